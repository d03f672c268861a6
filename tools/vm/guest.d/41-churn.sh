#!/bin/sh
# Close churn: open / arm a random number / close at a random moment, then
# kmemleak (clear, run, wait, scan twice) must report nothing of hwtimer's.
# make check: 10,000 rounds on the stock kernel, 500 on the debug kernel
# (KASAN, lockdep and kmemleak make each round about ten times dearer);
# make soak runs 10,000 on the debug kernel.
CHURN_ROUNDS=10000
[ "${HWTIMER_KERNEL%%-*}" = debug ] && CHURN_ROUNDS=500
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
echo "TAP version 13"
echo "1..2"
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT
kml=/sys/kernel/debug/kmemleak
[ -w "$kml" ] && echo clear >"$kml"

out=/tmp/churn.out
"$HWTIMER_DIR/bin/hwtimer_churn" -n "$CHURN_ROUNDS" -j 2 >"$out" 2>&1
grep -v '^TAP version\|^1\.\.' "$out"
grep -q '^ok 1 ' "$out" || grep -q '^not ok 1 ' "$out" ||
	echo "not ok 1 churn: hwtimer_churn crashed"

"$HWTIMER_DIR/bin/hwtimer_kmemleak" 2 "kmemleak after $CHURN_ROUNDS churn rounds"
