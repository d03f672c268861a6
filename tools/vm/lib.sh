# Shared settings for the VM harness; sourced, not run.
# shellcheck shell=bash

HWTIMER_CACHE=${HWTIMER_CACHE:-$HOME/.cache/hwtimer}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

# A config fragment may start from others and name its kernel source:
#   # base: debug.config     (merged first; in this directory)
#   # linux-source: 6.12     (Debian's linux-source-6.12; default 6.1)

# frag_series FRAGMENT: the linux-source series the fragment is built from.
frag_series() {
	local s
	s=$(sed -n 's/^# linux-source: *//p' "$1" | head -1)
	echo "${s:-6.1}"
}

# frag_files FRAGMENT: its bases, then itself, in merge order.
frag_files() {
	local b
	for b in $(sed -n 's/^# base: *//p' "$1"); do
		frag_files "$VM_DIR/$b"
	done
	echo "$1"
}

# Debian's linux-source package version, e.g. 6.1.187-1, of SERIES (6.1).
src_version() {
	dpkg-query -W -f='${Version}' "linux-source-${1:-6.1}"
}

# Directory of a debug kernel for a config fragment (default debug.config)
# and the version of its source: both are in the key, so a change of
# either rebuilds.
debug_kernel_dir() {
	local frag=${1:-$VM_DIR/debug.config}
	local h
	# shellcheck disable=SC2046
	h=$(cat $(frag_files "$frag") "$VM_DIR/build-kernel.sh" |
		sha256sum | cut -c1-12)
	echo "$HWTIMER_CACHE/linux-$(src_version "$(frag_series "$frag")")-$(basename "$frag" .config)-$h"
}

# The unpacked, pristine source tree of SERIES (6.1), shared by every config.
source_dir() {
	local s=${1:-6.1}
	echo "$HWTIMER_CACHE/src-$(src_version "$s")/linux-source-$s"
}

# Debian's stock kernels: stock_release [FLAVOUR] prints the newest
# installed release of FLAVOUR that has headers too. FLAVOUR is 6.1 (the
# default: linux-image-amd64, what Debian 12 boots), 6.12
# (linux-image-6.12-amd64) or rt (linux-image-6.12-rt-amd64).
stock_release() {
	local flavour=${1:-6.1} v pat
	case $flavour in
	6.1) pat='^6\.1\.[0-9.-]*-amd64$' ;;
	6.12) pat='^6\.12\.[0-9.]*\+deb12-amd64$' ;;
	rt) pat='^6\.12\.[0-9.]*\+deb12-rt-amd64$' ;;
	*) return 1 ;;
	esac
	for v in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sed 's,.*/vmlinuz-,,' |
		grep -E "$pat" | sort -V -r); do
		if [ -d "/lib/modules/$v/build" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

# For make check and its hooks, which set T0 (start, in $SECONDS), CHECK
# (the output directory) and RESULTS (results.py):
# say MESSAGE: one progress line with the time since T0.
say() { printf 'check: [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

# fail_step LABEL WHY LOG: count one failure, show the log's tail.
fail_step() {
	say "FAILED: $2 (log: ${3#"$TOP"/})"
	[ -f "$3" ] && tail -25 "$3" | sed 's/^/    /'
	python3 "$RESULTS" fail "$1" "$CHECK/$1" "$2" >/dev/null || true
}
