#!/bin/sh
# Concurrency fuzzer of the /dev/hwtimer ABI with an exact ledger
# (tools/stress/hwtimer_abifuzz.c): 64-bit and -m32, each as root and as
# nobody (uid 65534, through hwtimer_runas). ABIFUZZ_SECS is split over
# the four runs: about 60 s in make check; make soak's /tmp/stress.conf
# gives the soak time. Each run's TAP is renumbered and prefixed with the
# run ("hwtimer_abifuzz_32-nobody: ..."); a run that crashed or printed
# fewer results than its plan adds one "not ok".
ABIFUZZ_SECS=48
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
# shellcheck source=tools/vm/guest.d/runs.inc
. "$HWTIMER_DIR/guest.d/runs.inc"
runas=$HWTIMER_DIR/bin/hwtimer_runas
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT

let_nobody_in

runs=""
for p in hwtimer_abifuzz hwtimer_abifuzz_32; do
	find_prog $p >/dev/null && runs="$runs $p:root $p:nobody"
done
echo "TAP version 13"
if [ -z "$runs" ]; then
	echo "1..0 # SKIP hwtimer_abifuzz not in the initramfs"
	exit 0
fi
nruns=$(echo $runs | wc -w)
secs=$((ABIFUZZ_SECS / nruns))
[ "$secs" -lt 5 ] && secs=5
n=0
for r in $runs; do
	p=${r%:*} who=${r#*:} name=${r%:*}-${r#*:} out=/tmp/af-$name
	exe=$(find_prog "$p")
	echo "# ---- $name: $secs s ----"
	if [ "$who" = root ]; then
		"$exe" -t "$secs" -j 4 -c 3 >"$out" 2>&1
	else
		"$runas" 65534 65534 "$exe" -t "$secs" -j 4 -c 3 >"$out" 2>&1
	fi
	rc=$?
	tap_merge "$name" <"$out"
	tap_complete "$name" "$rc"
done
echo "1..$n"
