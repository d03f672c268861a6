#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Count wheel_bench's phases under callgrind and print instructions per
# operation (and, with CACHE=1, first-level and last-level data cache
# misses per operation from callgrind's cache model).
#
# Usage: [IMPL=name] [CACHE=1] wheel_bench.sh BENCH_BINARY OUTDIR [FUNCTION...]
# FUNCTIONs are the calls whose inclusive cost is counted (default: the
# wheel's hwtimer_wc_* entry points that wheel_bench makes).
set -eu

bin=$1
out=$2
shift 2
[ $# -gt 0 ] || set -- hwtimer_wc_arm hwtimer_wc_cancel hwtimer_wc_modify \
	hwtimer_wc_advance hwtimer_wc_next_expiry
name=$(basename "$bin")
impl=${IMPL:-hwtimer}

toggles=
for f in "$@"; do
	toggles="$toggles --toggle-collect=$f"
done
cache=--cache-sim=no
# A fixed cache geometry, so that misses do not depend on the host.
[ "${CACHE:-0}" = 1 ] &&
	cache="--cache-sim=yes --D1=32768,8,64 --LL=8388608,16,64"

rm -f "$out/$name.cg" "$out/$name.cg".*
# shellcheck disable=SC2086
valgrind --tool=callgrind --collect-atstart=no $toggles $cache \
	--callgrind-out-file="$out/$name.cg" "$bin" >/dev/null 2>"$out/$name.log" ||
	{ cat "$out/$name.log" >&2; exit 1; }

# One dump per phase: "desc: Trigger: Client Request: <phase> <ops>", the
# event names, and the totals in the same order.
i=1
while [ -f "$out/$name.cg.$i" ]; do
	cat "$out/$name.cg.$i"
	echo "end:"
	i=$((i + 1))
done | awk -v impl="$impl" -v cache="${CACHE:-0}" '
/^desc: Trigger: Client Request:/ { phase = $5; ops = $6 }
/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i; nev = NF - 1 }
/^(summary|totals):/ { for (i = 2; i <= NF; i++) tot[ev[i - 1]] = $i }
/^end:/ {
	if (phase == "" || ops == 0)
		next
	n++
	name[n] = phase
	ir[n] = tot["Ir"] / ops
	d1[n] = (tot["D1mr"] + tot["D1mw"]) / ops
	ll[n] = (tot["DLmr"] + tot["DLmw"]) / ops
	phase = ""; delete tot
}
END {
	if (cache == 1)
		printf "%-16s %12s %10s %10s\n", "phase", "instr/op", "D1miss/op", "LLmiss/op"
	else
		printf "%-16s %12s\n", "phase", "instr/op"
	line = "bench: impl=" impl
	for (i = 1; i <= n; i++) {
		if (cache == 1)
			printf "%-16s %12.1f %10.2f %10.2f\n", name[i], ir[i], d1[i], ll[i]
		else
			printf "%-16s %12.1f\n", name[i], ir[i]
		line = line sprintf(" %s=%.1f", name[i], ir[i])
	}
	print line
}'
