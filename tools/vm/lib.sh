# Shared settings for the VM harness; sourced, not run.
# shellcheck shell=bash

HWTIMER_CACHE=${HWTIMER_CACHE:-$HOME/.cache/hwtimer}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

# Debian's linux-source package version, e.g. 6.1.187-1.
src_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1
}

# Directory of the debug kernel for the current source version and config
# fragment: both are in the key, so a change of either rebuilds.
debug_kernel_dir() {
	local frag=${1:-$VM_DIR/debug.config}
	local h
	h=$(cat "$frag" "$VM_DIR/build-kernel.sh" | sha256sum | cut -c1-12)
	echo "$HWTIMER_CACHE/linux-$(src_version)-$(basename "$frag" .config)-$h"
}

# The unpacked, pristine source tree (shared by every config).
source_dir() {
	echo "$HWTIMER_CACHE/src-$(src_version)/linux-source-6.1"
}

# Debian's stock kernel: newest installed vmlinuz with matching headers.
stock_release() {
	local v
	for v in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sed 's,.*/vmlinuz-,,' | sort -V -r); do
		if [ -d "/lib/modules/$v/build" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}
