#!/bin/sh
# What a user can make the kernel do for its /dev/hwtimer contexts is
# bounded (tools/testing/selftests/hwtimer/hwtimer_bounds.c): reads end,
# blocking calls die at SIGKILL, stop signals and task work fail no call,
# close() is one pass. hwtimer_bounds runs as root and as nobody (uid 65534,
# through hwtimer_runas); its TAP is merged as 30-selftests.sh merges its
# runs ("hwtimer_bounds-nobody: ..."). Its timed checks compare with
# controls measured in the same run and say how. It closes a context
# holding ctx_max_pending timeouts: on the debug kernel, where an arm costs
# 0.1 - 0.4 ms under emulation, that cap is BOUNDS_CAP_DEBUG (8,192)
# meanwhile; hwtimer_bounds sizes its other counts by kernel itself.
#
# Then, on the debug kernels only (preemptirq and hwtimer trace events), as
# nobody: the most hwtimer entries (the module's trace events: a context's
# timeouts going into and out of its queue, the runtime's arms, cancels
# and expiries) in one interrupts-off section anywhere in the kernel (from
# preemptirq:irq_disable to irq_enable, per CPU, counted by "hwtimer_bounds
# irqsections") while one of three loads runs, each as an attack and as a
# control that does the same work the ordinary way ("hwtimer_bounds
# irqsoff WHAT MODE", which sets up, says "ready PID" and starts on
# SIGUSR1, so setting up is not traced):
#
#   ring    one ENTER of a submission ring of 16,384 entries filled with
#           8,192 ARMs of as many slots, then CANCELs of them, and a thread that
#           keeps the completion ring empty. With room for every entry's
#           completion a drain pairs each ARM with its CANCEL and defers
#           it; the attack's thread parks the cq head, once the drain is
#           64 CANCELs in, where the kernel reads a full ring, so the drain
#           stops and must arm the deferred ARMs after all. The control's
#           completion ring has room for half the entries: no pairing,
#           every ARM and CANCEL is applied in its turn, the same arms and
#           cancels done the ordinary way, a chunk at a time
#   batch   4,096 ARMs then as many CANCELs: the attack in one BATCH
#           each, the control in BATCHes of 16
#   modify  8,192 MODIFYs of 4,096 timeouts, the same two ways
#
# (hwtimer_bounds's sizes on the debug kernels: tracing every entry and
# reading the trace back is what takes the time, 20 - 60 s a load.)
#
# Bound: attack <= IRQ_FACTOR x control + IRQ_SLACK (entries). A kernel
# that lets its locks go every 16 entries keeps the attack's sections the
# size of the control's; one that arms the deferred ARMs of a whole ring in
# one hold puts about 8,100 in one section. The figure is a count, not a time:
# a section's wall-clock length under emulation is as long as the host
# leaves the vCPU unrun (100 - 300 ms beside other VMs, the size of the
# 117 - 120 ms such a hold took), so each line prints the longest section
# with hwtimer entries in us for information only. A load whose trace lost
# events (IRQ_BUF_KB per CPU holds them) is not judged and fails. The
# events are global: nothing else runs meanwhile.
IRQ_FACTOR=${IRQ_FACTOR:-4}
IRQ_SLACK=${IRQ_SLACK:-16}
IRQ_BUF_KB=${IRQ_BUF_KB:-32768}
BOUNDS_CAP_DEBUG=${BOUNDS_CAP_DEBUG:-8192}
# shellcheck source=tools/vm/guest.d/runs.inc
. "$HWTIMER_DIR/guest.d/runs.inc"
runas=$HWTIMER_DIR/bin/hwtimer_runas
T=/sys/kernel/tracing
cap=/sys/module/hwtimer/parameters/ctx_max_pending

let_nobody_in

echo "TAP version 13"
echo 0 >/tmp/bounds-n
exe=$(find_prog hwtimer_bounds) || exe=
old_cap=$(cat "$cap")
[ "${HWTIMER_KERNEL%%-*}" = debug ] && echo "$BOUNDS_CAP_DEBUG" >"$cap"
for who in root nobody; do
	t0=$(date +%s)
	name=hwtimer_bounds-$who out=/tmp/bounds-$who
	echo "# ---- $name ----"
	{
		if [ -z "$exe" ]; then
			echo "# hwtimer_bounds missing from the initramfs"
			echo 127 >"$out.rc"
		elif [ "$who" = root ]; then
			"$exe" 2>&1
			echo $? >"$out.rc"
		else
			"$runas" 65534 65534 "$exe" 2>&1
			echo $? >"$out.rc"
		fi
	} | {
		n=$(cat /tmp/bounds-n)
		tap_merge "$name"
		echo "$n $seen $plan" >/tmp/bounds-n.run
	}
	read -r n seen plan </tmp/bounds-n.run
	rc=$(cat "$out.rc" 2>/dev/null || echo 255)
	tap_complete "$name" "$rc"
	echo "$n" >/tmp/bounds-n
	echo "# $name: $(($(date +%s) - t0)) s"
done
echo "$old_cap" >"$cap"
n=$(cat /tmp/bounds-n)

# result OK DESC: one result line of the irqsoff part.
result() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n hwtimer_bounds-irqsoff: $2"
	else
		echo "not ok $n hwtimer_bounds-irqsoff: $2"
	fi
}

# load WHAT MODE: run one load as nobody with the events traced; sets most
# (the most hwtimer entries in one interrupts-off section, empty if the
# load failed or the trace lost events) and prints what the trace held.
load() {
	log=/tmp/bounds-irqsoff.log
	most='' t0=$(date +%s)
	echo 0 >"$T/tracing_on"
	rm -f "$log"
	"$runas" 65534 65534 "$exe" irqsoff "$1" "$2" >"$log" 2>&1 &
	pid=$!
	i=0
	while ! grep -q "^ready $pid\$" "$log" 2>/dev/null &&
		kill -0 "$pid" 2>/dev/null && [ "$i" -lt 1200 ]; do
		usleep 100000
		i=$((i + 1))
	done
	if ! grep -q "^ready $pid\$" "$log" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		sed 's/^/# /' "$log"
		echo "# irqsoff $1 $2: not set up"
		return
	fi
	: >"$T/trace"
	echo 1 >"$T/tracing_on"
	kill -USR1 "$pid"
	wait "$pid"
	rc=$?
	echo 0 >"$T/tracing_on"
	grep -Ev '^(ready |done$)' "$log"
	[ "$rc" = 0 ] || {
		echo "# irqsoff $1 $2: exit status $rc"
		return
	}
	lost=0
	for st in "$T"/per_cpu/cpu*/stats; do
		o=$(sed -n 's/^overrun: //p' "$st")
		d=$(sed -n 's/^dropped events: //p' "$st")
		lost=$((lost + ${o:-0} + ${d:-0}))
	done
	out=$("$exe" irqsections "$T"/per_cpu/cpu*/trace)
	read -r _ secs _ ents _ m _ mus _ lus _ tlost <<-EOF
	$out
	EOF
	echo "# irqsoff $1 $2: $ents entries in $secs sections, at most $m in one ($mus us), longest ${lus:-?} us; events lost $lost + ${tlost:-?} ($(($(date +%s) - t0)) s)"
	if [ "$lost" = 0 ] && [ "$tlost" = 0 ] && [ "${ents:-0}" -gt 0 ]; then
		most=$m
	fi
}

# check WHAT DESC: attack against control; one result line.
check() {
	load "$1" control
	ctl=$most
	load "$1" attack
	att=$most
	ok=0
	if [ -n "$ctl" ] && [ -n "$att" ] &&
		[ "$att" -le $((IRQ_FACTOR * ctl + IRQ_SLACK)) ]; then
		ok=1
	fi
	result "$ok" "$2: most hwtimer entries in one irqs-off section ${att:-?} <= $IRQ_FACTOR x ${ctl:-?} + $IRQ_SLACK"
}

loads="ring batch modify"
ev="preemptirq/irq_disable preemptirq/irq_enable hwtimer/hwtimer_timeout_arm
hwtimer/hwtimer_timeout_cancel hwtimer/hwtimer_timeout_expire"
# A module without the context queues' events is judged on the runtime's.
cdev_ev="hwtimer/hwtimer_cdev_queue hwtimer/hwtimer_cdev_dequeue"
why=
if [ "${HWTIMER_KERNEL%%-*}" != debug ]; then
	why="the preemptirq trace events are in the debug kernels only"
elif [ -z "$exe" ]; then
	why="hwtimer_bounds missing from the initramfs"
else
	for e in $ev; do
		[ -f "$T/events/$e/enable" ] || why="no $e trace event"
	done
	for e in $cdev_ev; do
		if [ -f "$T/events/$e/enable" ]; then
			ev="$ev $e"
		else
			echo "# irqsoff: no $e trace event; the runtime's events only"
		fi
	done
fi
if [ -n "$why" ]; then
	for w in $loads; do
		n=$((n + 1))
		echo "ok $n hwtimer_bounds-irqsoff: $w # SKIP $why"
	done
else
	# Quiet console while tracing; the level the others expect after.
	con_level=$(cut -f1 /proc/sys/kernel/printk)
	trap 'dmesg -n "$con_level"' EXIT
	dmesg -n 1
	buf_kb=$(sed "s/.*expanded: \([0-9]*\).*/\1/; s/ .*//" "$T/buffer_size_kb")
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	# sched_clock() does not advance across idle in this TCG guest; the
	# clocksource does (see 46-irqsoff.sh).
	echo mono >"$T/trace_clock"
	echo "$IRQ_BUF_KB" >"$T/buffer_size_kb"
	for e in $ev; do
		echo 1 >"$T/events/$e/enable"
	done
	check ring "ring drain stopped mid-way by a full-looking completion ring"
	check batch "ARMs, then CANCELs, in one BATCH each"
	check modify "8192 MODIFYs of 4096 timeouts in one BATCH"
	for e in $ev; do
		echo 0 >"$T/events/$e/enable"
	done
	: >"$T/trace"
	echo "$buf_kb" >"$T/buffer_size_kb"
	echo local >"$T/trace_clock"
	echo 1 >"$T/tracing_on"
fi
echo "1..$n"
