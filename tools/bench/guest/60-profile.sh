#!/bin/sh
# Optional guest fragment of make bench (BENCH_PROFILE=1): where the time
# of /dev/hwtimer goes. The function_graph tracer times every call under
# ioc_batch (arm and cancel in BATCH) and under the wheel's tick and worker
# threads (expiry), three calls deep; awk folds the trace into lines
#   PROF,run,depth,function,calls,total_us,avg_us
# The tracer slows every traced call, so compare functions with each other,
# not with the untraced figures of 50-bench.
echo "TAP version 13"
echo "1..2"
T=/sys/kernel/tracing
if [ ! -f "$T/set_graph_function" ]; then
	echo "ok 1 profile # SKIP no function_graph tracer"
	echo "ok 2 profile # SKIP no function_graph tracer"
	exit 0
fi
u=$HWTIMER_DIR/bin/hwtimer_ubench

# fold RUN: aggregate the graph trace per (depth, function).
fold() {
	awk -F'|' -v run="$1" '
	NF >= 2 && $1 ~ /[0-9.]+ us/ {
		match($1, /[0-9.]+ us/)
		us = substr($1, RSTART, RLENGTH - 3) + 0
		r = $2
		match(r, /^ */)
		depth = int((RLENGTH - 2) / 2)
		f = r
		if (f ~ /\/\*/) {
			sub(/.*\/\* */, "", f)
			sub(/ *\*\/.*/, "", f)
		} else {
			sub(/^ */, "", f)
			sub(/\(.*/, "", f)
		}
		sub(/ \[.*\]/, "", f)
		k = depth "," f
		n[k]++
		t[k] += us
	}
	END {
		for (k in n)
			printf "PROF,%s,%s,%d,%.1f,%.2f\n", run, k, n[k], t[k], t[k] / n[k]
	}' "$T/trace" | sort -t, -k3,3n -k6,6nr
}

# prof RUN FUNCS CMD...: trace FUNCS (and what they call) while CMD runs.
prof() {
	run=$1 funcs=$2
	shift 2
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo 32768 >"$T/buffer_size_kb"
	echo "$funcs" >"$T/set_graph_function"
	echo 3 >"$T/max_graph_depth"
	# Graph options exist only while the graph tracer is the current one.
	echo function_graph >"$T/current_tracer"
	echo funcgraph-tail >"$T/trace_options"
	echo nofuncgraph-irqs >"$T/trace_options"
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	"$@" >/dev/null
	echo 0 >"$T/tracing_on"
	fold "$run"
	echo "# $run: $(grep -c . "$T/trace") trace lines; overruns: $(grep overrun "$T/per_cpu/cpu0/stats")"
	echo nop >"$T/current_tracer"
	echo >"$T/set_graph_function"
}

if prof batch "ioc_batch" "$u" -o cost -n 4096 -r 1; then
	echo "ok 1 profile of BATCH arm and cancel"
else
	echo "not ok 1 profile of BATCH arm and cancel"
fi
if prof expiry "tick_fn worker_fn" "$u" -o lateness -l 10000; then
	echo "ok 2 profile of expiry"
else
	echo "not ok 2 profile of expiry"
fi
grep -E '^(# name|hwt_timer|xarray_node|radix_tree_node|filp|dentry|kmalloc-(192|256)) ' /proc/slabinfo | sed 's/^/# slabinfo: /'
