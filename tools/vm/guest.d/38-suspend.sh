#!/bin/sh
# Timeouts across a system suspend (hwtimer_suspend): the guest sleeps in
# suspend-to-RAM (S3) until its RTC's alarm, with CLOCK_MONOTONIC and
# CLOCK_BOOTTIME timeouts pending; CLOCK_MONOTONIC ones are paused, the
# CLOCK_BOOTTIME ones due during the sleep are served on resume, none
# early, none lost. The program's header says what each check is.
#
# Stock 6.1 only: the kernel users run, once; the program skips where the
# guest has no RTC alarm or does not sleep. A sleep stops every vCPU, so
# nothing else may run meanwhile: make check runs fragments one at a time.
prog=$HWTIMER_DIR/bin/hwtimer_suspend
case ${HWTIMER_KERNEL:-} in
stock) ;;
*)
	echo "TAP version 13"
	echo "1..0 # SKIP suspend is tested on stock 6.1"
	exit 0
	;;
esac
if [ ! -x "$prog" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP hwtimer_suspend not in the initramfs"
	exit 0
fi
"$prog"
rc=$?
dmesg | grep -iE 'PM: (suspend|resume)|Freezing|Restarting tasks' |
	tail -8 | sed 's/^/# /'
exit $rc
