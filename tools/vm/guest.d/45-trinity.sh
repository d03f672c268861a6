#!/bin/sh
# Debian's trinity syscall fuzzer aimed at /dev/hwtimer, as nobody: its
# only file fds are opens of the device (with random flags), next to
# eventfds and epoll fds, and it calls only the syscalls that reach a
# file (ioctl, read*, poll/select/epoll, dup*, fcntl, mmap, splice...),
# 64-bit and 32-bit (compat_ptr_ioctl). Passes when trinity ran for its
# whole time; a kernel splat fails the run through the console scan.
# make check: TRINITY_SECS (60 s); make soak: /tmp/stress.conf.
TRINITY_SECS=60
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
runas=$HWTIMER_DIR/bin/hwtimer_runas
echo "TAP version 13"
tr=$(command -v trinity)
if [ -z "$tr" ]; then
	echo "1..0 # SKIP trinity not in the initramfs (apt-get install trinity)"
	exit 0
fi
echo "1..2"
what="trinity: $TRINITY_SECS s on /dev/hwtimer as nobody"
dir=/tmp/trinity
mkdir -p "$dir"
chown 65534:65534 "$dir"
chmod a+rx / "$HWTIMER_DIR" "$HWTIMER_DIR/bin" 2>/dev/null
cd "$dir" || exit 1
calls=""
for c in ioctl read readv preadv preadv2 pread64 write writev poll ppoll \
	select pselect6 epoll_ctl epoll_wait epoll_pwait dup dup2 dup3 \
	fcntl flock lseek mmap splice sendfile; do
	calls="$calls -c $c"
done
t0=$(date +%s)
# shellcheck disable=SC2086
timeout -s INT "$TRINITY_SECS" "$runas" 65534 65534 "$tr" -q -l off -C 2 \
	-V /dev/hwtimer --disable-fds=sockets,pipes,perf,timerfd,testfile,memfd,drm \
	$calls >/tmp/trinity.out 2>&1
rc=$?
took=$(($(date +%s) - t0))
grep -v '^$' /tmp/trinity.out | tail -15 | sed 's/^/# /'
echo "# trinity exited $rc after $took s"
if [ "$took" -ge $((TRINITY_SECS - 2)) ]; then
	echo "ok 1 $what: ran for its time"
else
	echo "not ok 1 $what: ended after $took s"
fi
if grep -qi 'became tainted' /tmp/trinity.out; then
	echo "not ok 2 trinity: the kernel became tainted"
else
	echo "ok 2 trinity: kernel not tainted"
fi
# Leave nothing of nobody's behind for later fragments.
cd / && rm -rf "$dir"
