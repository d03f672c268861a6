#!/bin/sh
# make demo, guest side: load hwtimer.ko into Debian's stock kernel and walk
# through a short hwtimerctl session. Runs as PID 1's child in the busybox
# initramfs; $HWTIMER_DIR holds modules/ and bin/.
PATH=$HWTIMER_DIR/bin:$PATH

step() {
	echo
	echo "### $*"
}
run() {
	echo "\$ $*"
	"$@" || echo "(exit status $?)"
}

step "hwtimer.ko is loaded: /dev/hwtimer, open to every user"
[ -d /sys/module/hwtimer ] || run insmod "$HWTIMER_DIR/modules/hwtimer.ko"
run ls -l /dev/hwtimer

step "the API handshake, features, parameters and wheel counters"
run hwtimerctl info

step "three one-shot timeouts: each expiry with its lateness"
run hwtimerctl arm 10ms 250ms 1.5s

step "arm three, cancel the second before it fires"
run hwtimerctl arm 100ms 200ms 300ms --cancel 2

step "a periodic timeout: every 100ms, five expiries"
run hwtimerctl arm --every 100ms --count 5

# Deadlines from 10 s on: arming 100,000 takes seconds under emulation, and
# they should still be in the future when armed.
step "100,000 timeouts armed through HWTIMER_IOC_BATCH, all read back"
run hwtimerctl batch 100000 --at 10s --spread 1s

step "the wheel's counters and lateness histogram after all that"
run hwtimerctl watch --once

step "bad input is refused with a reason"
run hwtimerctl arm 5 parsecs

step "unload: the device is gone, and the library's timerfd backend serves"
run rmmod hwtimer
run hwtimerctl --backend device info
run hwtimerctl arm 10ms 20ms
echo
echo "### demo done"
