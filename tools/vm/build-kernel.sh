#!/bin/bash
# Build (or reuse) the debug kernel for the VM tests.
# Usage: build-kernel.sh [fragment]   prints the build directory on stdout.
# The fragment names its bases and kernel source (see lib.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=${1:-$VM_DIR/debug.config}
series=$(frag_series "$frag")
src=$(source_dir "$series")
out=$(debug_kernel_dir "$frag")
# shellcheck disable=SC2207
frags=($(frag_files "$frag"))

if [ ! -f "$src/Makefile" ]; then
	echo "build-kernel: unpacking linux-source $(src_version "$series")" >&2
	mkdir -p "$(dirname "$src")"
	tar -C "$(dirname "$src")" -xf "/usr/src/linux-source-$series.tar.xz"
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
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${frags[@]}"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
	make -C "$src" O="$out" ARCH=x86_64 -j"$JOBS" bzImage modules
} >"$log" 2>&1 || {
	echo "build-kernel: FAILED, last lines of $log:" >&2
	tail -30 "$log" >&2
	exit 1
}

# Every fragment option must have survived olddefconfig (a later fragment's
# value of an option replaces an earlier one's; "# CONFIG_X is not set"
# must leave X unset).
bad=0
while read -r opt val; do
	if [ "$val" = n ]; then
		! grep -qE "^$opt=" "$out/.config"
	else
		grep -qx "$opt=$val" "$out/.config"
	fi || {
		echo "build-kernel: $opt=$val did not stick" >&2
		bad=1
	}
done < <(cat "${frags[@]}" |
	sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1 \2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1 n/p' |
	awk '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ }
		END { for (k in v) print o[k], k, v[k] }' | sort -n | cut -d' ' -f2-)
[ "$bad" = 0 ] || echo "build-kernel: warning: some options were dropped" >&2
touch "$out/.done"
echo "$out"
