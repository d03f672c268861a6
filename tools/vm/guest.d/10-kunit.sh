#!/bin/sh
# Run the KUnit suites by loading hwtimer_kunit.ko (debug kernel only: the
# stock kernel has no KUnit). The suites run inside insmod; their KTAP goes
# to the kernel log, which we print with dmesg (timestamped lines) for the
# host to parse. We do not use /sys/kernel/debug/kunit/*/results: in 6.1
# each case's log there is capped at 512 bytes, which drops result lines.
echo "TAP version 13"
if [ "${HWTIMER_KERNEL%%-*}" != debug ]; then
	echo "1..0 # SKIP KUnit runs only in the debug kernel"
	exit 0
fi
echo "1..2"
ko=$HWTIMER_DIR/modules/hwtimer_kunit.ko

dmesg -c >/dev/null
if out=$(insmod "$ko" 2>&1); then
	echo "ok 1 insmod hwtimer_kunit.ko"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 1 insmod hwtimer_kunit.ko"
fi
echo "# kernel log since insmod (KTAP):"
dmesg
dmesg -c >/dev/null

if out=$(rmmod hwtimer_kunit 2>&1); then
	echo "ok 2 rmmod hwtimer_kunit"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 2 rmmod hwtimer_kunit"
fi
