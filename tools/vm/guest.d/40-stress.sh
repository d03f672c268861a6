#!/bin/sh
# Stress with an exact ledger: the userspace program on /dev/hwtimer
# (threads sharing open files: arm, modify, cancel, periodic, batches), then
# the kernel module on the exported API (kthreads and hard irq).
# Durations come from /tmp/stress.conf when a soak run wrote one.
STRESS_SECS=30
KSTRESS_SECS=30
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
bin=$HWTIMER_DIR/bin mods=$HWTIMER_DIR/modules
echo "TAP version 13"
echo "1..6"
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT

out=/tmp/stress.out
"$bin/hwtimer_stress" -t "$STRESS_SECS" -g 2 -w 2 >"$out" 2>&1
rc=$?
grep -v '^TAP version\|^1\.\.' "$out"
[ "$rc" = 0 ] || grep -q '^not ok' "$out" || echo "# hwtimer_stress exited $rc"

dmesg -c >/dev/null
what="hwtimer_kstress: $KSTRESS_SECS s of kernel API stress, ledger exact"
if ! out=$(insmod "$mods/hwtimer_kstress.ko" secs="$KSTRESS_SECS" threads=4 2>&1); then
	echo "$out" | sed 's/^/# /'
	echo "not ok 5 $what (insmod failed)"
elif dmesg | grep -q 'hwtimer_kstress: result pass'; then
	echo "ok 5 $what"
else
	dmesg | grep 'hwtimer_kstress' | sed 's/^\[[ 0-9.]*\] /# /'
	echo "not ok 5 $what"
fi
dmesg | grep -o 'STRESS-FIGURES.*\|hwtimer_kstress: [0-9]* s.*' | sed 's/^/# /'
if [ -d /sys/module/hwtimer_kstress ]; then
	if out=$(rmmod hwtimer_kstress 2>&1); then
		echo "ok 6 rmmod hwtimer_kstress: nothing left pinned"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok 6 rmmod hwtimer_kstress: nothing left pinned"
	fi
else
	echo "ok 6 rmmod hwtimer_kstress # SKIP not loaded"
fi
