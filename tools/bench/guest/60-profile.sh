#!/bin/sh
# Optional guest fragment of make bench (BENCH_PROFILE=1): where the time
# of /dev/hwtimer goes. The function_graph tracer times the functions
# named in each run while hwtimer_ubench works; awk folds the trace into
#   PROF,run,depth,function,calls,total_us,avg_us
# Every traced call costs the tracer a fixed few microseconds under TCG, so
# the runs trace few levels, and _raw_spin_unlock (tens of ns of real
# work) shows what the tracer adds per call:
#   outer   arm_locked, do_cancel_locked: the chardev's per-op work under
#           its context lock, one level
#   inner   the same and what they call directly, two levels
#   expiry  the wheel's advance and the chardev's callback, two levels deep
# (A run over the callees of arm_locked/do_cancel_locked is left out: on Debian's
# kernel writing several of them to set_graph_function left the filter
# empty, which traces everything.)
echo "TAP version 13"
echo "1..3"
T=/sys/kernel/tracing
if [ ! -f "$T/set_graph_function" ]; then
	echo "ok 1 profile # SKIP no function_graph tracer"
	echo "ok 2 profile # SKIP no function_graph tracer"
	echo "ok 3 profile # SKIP no function_graph tracer"
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

# prof RUN DEPTH FUNCS CMD...: trace FUNCS (DEPTH levels) while CMD runs.
# Status 2, tracing nothing, when ftrace knows none of FUNCS: an empty
# filter would trace every function, which swamps the VM.
prof() {
	run=$1 depth=$2 funcs=$3 known=0
	shift 3
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	echo 32768 >"$T/buffer_size_kb"
	echo >"$T/set_graph_function"
	# Only names ftrace knows: one it rejects empties the filter.
	for f in $funcs; do
		grep -q "^$f\( \|$\)" "$T/available_filter_functions" ||
			{ echo "# $run: cannot trace $f"; continue; }
		echo "$f" >>"$T/set_graph_function"
		known=$((known + 1))
	done
	[ "$known" != 0 ] || return 2
	echo "$depth" >"$T/max_graph_depth"
	# Graph options exist only while the graph tracer is the current one.
	echo function_graph >"$T/current_tracer"
	echo funcgraph-tail >"$T/trace_options"
	echo nofuncgraph-irqs >"$T/trace_options"
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	"$@" >/dev/null
	echo 0 >"$T/tracing_on"
	fold "$run"
	echo "# $run: $(grep -c . "$T/trace") trace lines; $(grep overrun "$T/per_cpu/cpu0/stats")"
	echo nop >"$T/current_tracer"
	echo >"$T/set_graph_function"
}

# report N WHAT STATUS: the TAP line of one profile run.
report() {
	case $3 in
	0) echo "ok $1 profile of $2" ;;
	2) echo "ok $1 profile of $2 # SKIP none of its functions traceable" ;;
	*) echo "not ok $1 profile of $2" ;;
	esac
}

cost() { "$u" -o cost -n 4096 -r 1; }
ops="arm_locked do_cancel_locked"
prof outer 1 "$ops" cost
report 1 "arm and cancel" $?
prof inner 2 "$ops" cost
report 2 "arm and cancel, one level down" $?
# The threads' own loops never return, so time what they call per tick
# and per expiry: the wheel's advance, and the chardev's callback.
prof expiry 2 "hwtimer_wc_advance_max hwt_fire" "$u" -o lateness -l 3000
report 3 expiry $?
grep -E '^(# name|hwt_timer|hwt_ptimer|filp|dentry|kmalloc-(192|256)) ' /proc/slabinfo | sed 's/^/# slabinfo: /'
