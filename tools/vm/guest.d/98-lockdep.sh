#!/bin/sh
# lockdep sees hwtimer's waits for callbacks (debug kernel only): loading
# tools/testing/lockdep/hwtimer_lockdep_test.ko must make lockdep report a
# possible circular locking dependency. A report turns lockdep off for the
# rest of the boot, so this runs last before 99-unload. The kernel log gets
# a marker line before and after; tools/vm/results.py ignores splats
# between the two markers (only there), and this fragment checks that the
# expected report, and nothing else, appeared between them.
echo "TAP version 13"
if [ "${HWTIMER_KERNEL%%-*}" != debug ]; then
	echo "1..0 # SKIP lockdep runs only in the debug kernel"
	exit 0
fi
ko=$HWTIMER_DIR/modules/hwtimer_lockdep_test.ko
if [ ! -f "$ko" ]; then
	echo "1..0 # SKIP hwtimer_lockdep_test.ko not built"
	exit 0
fi
echo "1..4"

# lockdep must still be on: an earlier report (already a failure) turns it off.
if grep -q '^ *debug_locks: *1' /proc/lockdep_stats 2>/dev/null; then
	echo "ok 1 lockdep is on"
else
	echo "not ok 1 lockdep is on (off already, or no /proc/lockdep_stats)"
fi

# The markers must reach the console, whatever level an earlier fragment
# left it at: results.py reads them there. <3> is KERN_ERR.
dmesg -n 7
echo "<3>hwtimer-expect-splat: begin" >/dev/kmsg
if out=$(insmod "$ko" 2>&1); then
	echo "ok 2 insmod hwtimer_lockdep_test.ko"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 2 insmod hwtimer_lockdep_test.ko"
fi
echo "<3>hwtimer-expect-splat: end" >/dev/kmsg

# The log between the markers; never echoed whole, since the host scans
# this fragment's output for splats too.
log=$(dmesg | sed -n '/hwtimer-expect-splat: begin/,/hwtimer-expect-splat: end/p')
if echo "$log" | grep -q 'possible circular locking dependency detected'; then
	echo "ok 3 lockdep reports a lock held across hwtimer_cancel_sync() that the callback takes"
else
	echo "# no 'possible circular locking dependency detected' between the markers"
	echo "not ok 3 lockdep reports a lock held across hwtimer_cancel_sync() that the callback takes"
fi
other=$(echo "$log" | grep -cE 'BUG:|KASAN|ODEBUG|UBSAN|Oops|general protection fault|list_(add|del) corruption|sleeping function called|inconsistent lock state|possible recursive locking')
if [ "$other" = 0 ]; then
	echo "ok 4 no other report between the markers"
else
	echo "# $other other report lines between the markers"
	echo "not ok 4 no other report between the markers"
fi
rmmod hwtimer_lockdep_test 2>/dev/null
exit 0
