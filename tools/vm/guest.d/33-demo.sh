#!/bin/sh
# The make demo session (tools/vm/demo.sh) on this kernel: every step must
# succeed except the two that show refusals (bad input, and info on the
# device once the module is unloaded; arm then runs on timerfd), and the
# module comes back for the later fragments.
echo "TAP version 13"
echo "1..3"
out=/tmp/demo.out
sh "$HWTIMER_DIR/demo.sh" >"$out" 2>&1
sed 's/^/# /' "$out"

# Each "(exit status N)" follows the "$ command" line that failed.
failed=$(awk '/^\$ / { cmd = $0 } /^\(exit status/ { print cmd " -> " $0 }' "$out")
want='$ hwtimerctl arm 5 parsecs -> (exit status 2)
$ hwtimerctl --backend device info -> (exit status 1)'
if [ "$failed" = "$want" ]; then
	echo "ok 1 demo: every step succeeds but the two refusals it shows"
else
	echo "$failed" | sed 's/^/# failed: /'
	echo "not ok 1 demo: every step succeeds but the two refusals it shows"
fi
if grep -q '^### demo done' "$out" && grep -q 'fired' "$out"; then
	echo "ok 2 demo ran to the end, timeouts fired"
else
	echo "not ok 2 demo ran to the end, timeouts fired"
fi
insmod "$HWTIMER_DIR/modules/hwtimer.ko" 2>/dev/null
if [ -d /sys/module/hwtimer ]; then
	echo "ok 3 hwtimer.ko loaded again"
else
	echo "not ok 3 hwtimer.ko loaded again"
fi
