#!/bin/bash
# uml-bench.sh: the in-kernel benchmark at the CPU's own speed. Runs the
# KUnit suite hwtimer_bench (kunit/hwtimer_bench_test.c) alone in the User
# Mode Linux kernel of make kunit-uml (tools/vm/kunit-uml.sh: the same
# cached tree and build, so only what changed is rebuilt). UML runs kernel
# code natively, where make bench's VMs emulate it under qemu TCG: these
# are the figures for what a code path costs a CPU (docs/benchmarks.md says
# which figures to trust for what).
#
# kunit.py's filter picks the suite, and hwtimer_kunit.bench=1 on the UML
# kernel's command line lets it run; in make kunit-uml and the debug VMs,
# which do not pass it, its cases skip.
#
# Usage: uml-bench.sh [-o RESULTS_LOG] [PARAM=VALUE...]
#   -o FILE      also write the figures to FILE as make bench's logs have
#                them ("BENCH,section,metric,peer,param,value,unit" lines and
#                "INFO,uml_*" lines about the UML kernel), for report.py
#   PARAM=VALUE  a parameter of the suite, its name without "bench_": ops,
#                objs, rounds, max_pending, expiry_n, expiry_rounds
#                (kunit/hwtimer_bench_test.c says what each does), e.g.
#                max_pending=10000 rounds=3 for a quick look
# Prints one table per operation: ns per operation, the median of the
# rounds with the fastest round in brackets, per peer and population.
# Exit status: non-zero when the build failed, a case failed, or no
# figure came out.
#
# The suite takes about half a minute natively; kunit.py gives UML 1 GiB,
# which holds the 1M-pending populations of all five peers at once (about
# 320 MiB). JOBS (default: CPUs + 1) is kunit-uml.sh's build parallelism.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

out=""
if [ "${1:-}" = -o ]; then
	out=$(realpath -m "${2:?-o needs a file}")
	shift 2
fi
kargs=(--kernel_args hwtimer_kunit.bench=1)
for a in "$@"; do
	case $a in
	ops=[0-9]* | objs=[0-9]* | rounds=[0-9]* | max_pending=[0-9]* | \
		expiry_n=[0-9]* | expiry_rounds=[0-9]*)
		kargs+=(--kernel_args "hwtimer_kunit.bench_$a")
		;;
	*)
		echo "uml-bench: unknown parameter '$a' (see the usage in $0)" >&2
		exit 2
		;;
	esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
echo "uml-bench: building and booting the UML kernel (kunit.py)" >&2
"$VM_DIR/kunit-uml.sh" --ktap "$tmp/ktap" --timeout=900 "${kargs[@]}" \
	hwtimer_bench </dev/null >"$tmp/run.log" 2>&1 || rc=$?
[ -f "$tmp/ktap" ] || : >"$tmp/ktap"
grep -E 'Testing complete|Elapsed time' "$tmp/run.log" | sed 's/^/  /' >&2 || true

# The figures, without the KTAP prefix; the facts of the UML kernel.
tr -d '\r' <"$tmp/ktap" | sed -n 's/^.*\(BENCH,uml-[^ ]*\)$/\1/p' >"$tmp/results.log"
kbuild=$HWTIMER_CACHE/kunit-uml-$(src_version 6.1)/linux/.kunit
{
	printf 'INFO,uml_kernel,%s\n' \
		"$(cat "$kbuild/include/config/kernel.release" 2>/dev/null || echo '?')"
	printf 'INFO,uml_hz,%s\n' \
		"$(sed -n 's/^CONFIG_HZ=//p' "$kbuild/.config" 2>/dev/null)"
	if grep -q '^CONFIG_SMP=y' "$kbuild/.config" 2>/dev/null; then
		echo 'INFO,uml_smp,y'
	else
		echo 'INFO,uml_smp,n'
	fi
	printf 'INFO,uml_host_cpu,%s\n' \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
} >>"$tmp/results.log"
n=$(grep -c '^BENCH,' "$tmp/results.log" || true)
if [ "$rc" != 0 ] || [ "$n" = 0 ]; then
	tail -30 "$tmp/run.log" | sed 's/^/    /' >&2
	grep -E '^[[:space:]]*(not ok|# .*(Expected|expected|ASSERT|EXPECT))' \
		"$tmp/ktap" 2>/dev/null | head -20 | sed 's/^/    /' >&2 || true
	echo "not ok uml-bench: kunit-uml.sh status $rc, $n figures" \
		>>"$tmp/results.log"
	trap - EXIT
	echo "uml-bench: kunit.py's output and the KTAP kept in $tmp" >&2
fi
[ -n "$out" ] && cp "$tmp/results.log" "$out"

# table SECTION TITLE METRIC [PEERS]: rows per population, a column per
# peer (default: the five timeout peers).
table() {
	awk -F, -v sec="$1" -v title="$2" -v metric="$3" \
		-v peers="${4:-hwtimer hwtimer-default timer_list hrtimer delayed_work}" '
	$1 == "BENCH" && $2 == sec && ($3 == metric || $3 == metric "_min") {
		if (!($5 in seen)) { seen[$5] = 1; ns[++n] = $5 }
		v[$3, $4, $5] = $6
	}
	END {
		if (!n)
			exit
		np = split(peers, p, " ")
		printf "\n%s, ns (median of the rounds, fastest in brackets)\n", title
		printf "%-10s", "pending"
		for (i = 1; i <= np; i++)
			printf " %18s", p[i]
		printf "\n"
		for (j = 1; j <= n; j++) {
			printf "%-10s", ns[j]
			for (i = 1; i <= np; i++) {
				m = v[metric, p[i], ns[j]]
				f = v[metric "_min", p[i], ns[j]]
				printf " %18s", m == "" ? "-" : m " (" f ")"
			}
			printf "\n"
		}
	}' "$tmp/results.log"
}
echo "uml-bench: hwtimer_bench natively under User Mode Linux" \
	"($(sed -n 's/^INFO,uml_kernel,//p' "$tmp/results.log"), HZ=$(sed -n \
		's/^INFO,uml_hz,//p' "$tmp/results.log"), SMP=$(sed -n \
		's/^INFO,uml_smp,//p' "$tmp/results.log"))"
table uml-armcancel "arm+cancel, per pair" ns_per_pair
table uml-modify "modify of a pending timeout, per move" ns_per_op
table uml-expiry "expiry, per expiry from the first callback to the last (param: timeouts due at once)" ns_per_expiry
table uml-ids "id table alloc+free, per pair (param: live ids)" ns_per_pair \
	"hwtimer_ids xarray"
table uml-ids "id table lookup of a live id (param: live ids)" ns_per_lookup \
	"hwtimer_ids xarray"
awk -F, '$1 == "BENCH" && $2 == "uml-expiry" && $3 ~ /_late$/ {
	v[$4] = v[$4] sprintf(" %s %.1f ms", $3, $6 / 1e6)
} END {
	if (length(v)) print "\nexpiry, lateness after the deadline (median of the rounds)"
	split("hwtimer hwtimer-default timer_list hrtimer delayed_work", p, " ")
	for (i = 1; i <= 5; i++)
		if (p[i] in v)
			printf "%-16s%s\n", p[i], v[p[i]]
}' "$tmp/results.log"
grep '^not ok' "$tmp/results.log" && exit 1
exit "$rc"
