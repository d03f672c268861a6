#!/bin/bash
# Build (or reuse) the debug kernel for the VM tests.
# Usage: build-kernel.sh [fragment]   prints the build directory on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=${1:-$VM_DIR/debug.config}
src=$(source_dir)
out=$(debug_kernel_dir "$frag")

if [ ! -f "$src/Makefile" ]; then
	echo "build-kernel: unpacking linux-source $(src_version)" >&2
	mkdir -p "$(dirname "$src")"
	tar -C "$(dirname "$src")" -xf /usr/src/linux-source-6.1.tar.xz
fi

if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

echo "build-kernel: building debug kernel in $out (several minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
log="$out/build.log"
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
	make -C "$src" O="$out" ARCH=x86_64 -j"$JOBS" bzImage modules
} >"$log" 2>&1 || {
	echo "build-kernel: FAILED, last lines of $log:" >&2
	tail -30 "$log" >&2
	exit 1
}

# Every fragment option must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	grep -qx "$line" "$out/.config" || {
		echo "build-kernel: $line did not stick" >&2
		bad=1
	}
done <"$frag"
[ "$bad" = 0 ] || echo "build-kernel: warning: some options were dropped" >&2
touch "$out/.done"
echo "$out"
