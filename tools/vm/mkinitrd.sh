#!/bin/bash
# Pack the busybox initramfs for one VM run.
# Usage: mkinitrd.sh OUT.gz KERNEL MODE MODDIR BINDIR [BIN32DIR]
#   KERNEL  debug|stock|stock-6.12|stock-rt (fragments see HWTIMER_KERNEL)
#   MODE    check (run guest.d/*.sh) | demo (run tools/vm/demo.sh)
#   MODDIR  directory whose *.ko go to /hwtimer/modules
#   BINDIR  directory whose executables go to /hwtimer/bin (BIN32DIR: bin32)
# HWTIMER_FRAG_TIMEOUT (seconds, default 600) bounds each fragment in the guest.
# HWTIMER_STRESS_CONF, when set, becomes the guest's /tmp/stress.conf: shell
# assignments of the stress fragments' durations (e.g. "STRESS_SECS=10").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1 kernel=$2 mode=$3 moddir=$4 bindir=$5 bin32dir=${6:-}
stage=$(mktemp -d "${TMPDIR:-/tmp}/hwtimer-initrd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage" # becomes /: mktemp's 0700 would lock out "nobody"

# copy_execs SRC DST: every regular executable file in SRC (not recursive).
copy_execs() {
	mkdir -p "$2"
	[ -n "$1" ] && [ -d "$1" ] || return 0
	find "$1" -maxdepth 1 -type f -perm -u+x -exec cp {} "$2/" \;
}

mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,root,run,usr/bin,usr/sbin}
cp /bin/busybox "$stage/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done
mknod -m 600 "$stage/dev/console" c 5 1
mknod -m 666 "$stage/dev/null" c 1 3

# An unprivileged user for the selftests that must run without root.
cat >"$stage/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
P
cat >"$stage/etc/group" <<'G'
root:x:0:
nobody:x:65534:
G

h=$stage/hwtimer
mkdir -p "$h/modules" "$h/guest.d"
find "$moddir" -name '*.ko' -exec cp {} "$h/modules/" \;
copy_execs "$bindir" "$h/bin"
copy_execs "$bin32dir" "$h/bin32"
# Debian's trinity (guest.d/45-trinity.sh) when installed: it is dynamically
# linked, so the libraries ldd names and the loader come along.
if tr=$(command -v trinity); then
	install -D -m 755 "$tr" "$stage/usr/bin/trinity"
	for lib in $(ldd "$tr" | grep -o '/[^ ]*'); do
		install -D -m 755 "$lib" "$stage$lib"
	done
fi
cp "${HWTIMER_GUESTD:-$VM_DIR/guest.d}"/*.sh "$h/guest.d/" 2>/dev/null || true
# What the fragments source, whichever set of them was chosen; init runs
# only the *.sh.
cp "$VM_DIR"/guest.d/*.inc "$h/guest.d/"
[ -f "$VM_DIR/demo.sh" ] && cp "$VM_DIR/demo.sh" "$h/demo.sh"
cat >"$h/env" <<E
HWTIMER_KERNEL=$kernel
HWTIMER_MODE=$mode
HWTIMER_FRAG_TIMEOUT=${HWTIMER_FRAG_TIMEOUT:-600}
E
if [ -n "${HWTIMER_STRESS_CONF:-}" ]; then
	printf '%s\n' $HWTIMER_STRESS_CONF >"$h/stress.conf"
fi
install -m 755 "$VM_DIR/init" "$stage/init"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out"
