#!/bin/sh
# Stress through libhwtimer: hwtimer_stress --lib gives each worker thread
# its own library context on /dev/hwtimer (arms, cancels, modifies, the
# submission queue flushing when full, expiries read with hwtimer_wait())
# and checks the same exact ledger as the raw mode of 40-stress against
# the library's hwtimer_stats(). Duration as 40-stress (/tmp/stress.conf).
STRESS_SECS=30
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
out=/tmp/libstress.out
echo "TAP version 13"
echo "1..1"
"$HWTIMER_DIR/bin/hwtimer_stress" -t "$STRESS_SECS" -g 2 -w 2 --lib >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
if [ "$rc" = 0 ] && grep -q '^ok' "$out" && ! grep -q '^not ok' "$out"; then
	echo "ok 1 hwtimer_stress --lib: $STRESS_SECS s through libhwtimer, ledger exact"
else
	echo "not ok 1 hwtimer_stress --lib (exit $rc)"
fi
