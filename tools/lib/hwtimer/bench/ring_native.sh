#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ring_native.sh - the timer rings' cost per timeout on the host's own CPU,
# beside an event loop's heap and one timerfd: PROGRAM is
# hwtimer_lib_bench built against test/fake_kernel.c's stand-in for the
# driver ("make ring-native"), run RUNS (default 3) times with -b stand-in
# over TIMEOUTS (default 1048576).
#
#   ring_native.sh PROGRAM [TIMEOUTS [RUNS]]
#
# Each run is pinned to one CPU with taskset where there is one, so the
# heap and the rings share it and its caches, as in an event loop. Each
# run prints its variants as hwtimer_lib_bench does; then, per variant,
# its fastest-round figure over the runs as "median (lowest-highest)" ns
# per timeout, and its ratio to heap_single of the same run the same way.
# The stand-in drains only when the library enters it, so every cancel
# takes its ARM back: the library's cost alone, as on a device whose
# drain never comes between an arm and its cancel.
#
# Needs POSIX sh and awk; taskset (util-linux) where present.
set -e

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	echo "usage: $0 PROGRAM [TIMEOUTS [RUNS]]" >&2
	exit 2
fi
prog=$1
n=${2:-1048576}
runs=${3:-3}
pin=
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	echo "== run $i"
	$pin "$prog" -b stand-in -n "$n" -r 5 -e 0 | tee -a "$out"
	echo "== end" >>"$out"
done

awk '
function spread(v, k,    a, m, j, t, x) {
	m = 0
	for (j = 1; j <= runs; j++)
		if ((v, k, j) in val)
			a[++m] = val[v, k, j]
	for (j = 2; j <= m; j++)	# insertion sort, m is small
		for (x = j; x > 1 && a[x - 1] > a[x]; x--) {
			t = a[x]; a[x] = a[x - 1]; a[x - 1] = t
		}
	if (!m)
		return "-"
	return sprintf(k == "ns" ? "%.1f (%.1f-%.1f)" : "%.2f (%.2f-%.2f)",
		       a[int((m + 1) / 2)], a[1], a[m])
}
/^== end/ { run++; next }
NF == 2 && $2 ~ /^[0-9.]+$/ {
	if (!($1 in seen)) { seen[$1] = 1; order[++nv] = $1 }
	ns[$1, run + 1] = $2
}
END {
	runs = run
	for (r = 1; r <= runs; r++)
		for (k = 1; k <= nv; k++) {
			v = order[k]
			if (!((v, r) in ns))
				continue
			val[v, "ns", r] = ns[v, r]
			if (("heap_single", r) in ns && ns["heap_single", r] > 0)
				val[v, "x", r] = ns[v, r] / ns["heap_single", r]
		}
	printf "%-16s %-24s %s\n", "variant", "ns per timeout", "vs heap_single"
	for (k = 1; k <= nv; k++)
		printf "%-16s %-24s %s\n", order[k], spread(order[k], "ns"),
		       spread(order[k], "x")
}' "$out"
