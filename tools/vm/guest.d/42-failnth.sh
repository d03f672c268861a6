#!/bin/sh
# Fault injection: open, every ioctl and read under fail-nth from 1 until
# nothing is injected (FAILSLAB and fail_usercopy), then kmemleak.
echo "TAP version 13"
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT
kml=/sys/kernel/debug/kmemleak
[ -w "$kml" ] && echo clear >"$kml"
out=/tmp/failnth.out
"$HWTIMER_DIR/bin/hwtimer_failnth" >"$out" 2>&1
rc=$?
plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out" | head -1)
plan=${plan:-0}
echo "1..$((plan + 2))"
grep -v '^TAP version\|^1\.\.' "$out"
if [ "$rc" = 0 ] || grep -q '^not ok' "$out"; then
	echo "ok $((plan + 1)) hwtimer_failnth ran to its end"
else
	echo "not ok $((plan + 1)) hwtimer_failnth ran to its end (rc $rc)"
fi
"$HWTIMER_DIR/bin/hwtimer_kmemleak" $((plan + 2)) "kmemleak after fault injection"
