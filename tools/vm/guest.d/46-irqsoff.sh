#!/bin/sh
# How long hwtimer keeps interrupts off with many timeouts pending (debug
# kernel with CONFIG_IRQSOFF_TRACER only). The irqsoff tracer keeps the
# longest interrupts-off section anywhere in the kernel (tracing_max_latency,
# in us), where it started and ended and the stack it ended in.
# tools/testing/irqsoff/hwtimer_irqsoff.ko is loaded four times, the
# tracer's maximum reset before each:
#
#   base      nothing armed: loading and unloading a module, the floor
#   small     IRQSOFF_SMALL one-shots pending, a tenth of them due at one
#             instant; then stop with the rest pending, and destroy
#   big       the same with IRQSOFF_BIG (ten times as many)
#   periodic  1,000 periodic timeouts and arm/cancel churn, then destroy
#
# Each prints "# irqsoff NAME: MAX us, start -> end in TASK, WHERE" (WHERE
# is "hwtimer" when the task or stack is hwtimer's) and the stack it ended
# in. The wheel lock is held for at most HWTIMER_ADVANCE_BATCH (256)
# entries at a time by the tick thread, stop and destroy, so the worst
# section must not grow with what is pending.
#
# Counts: 25,000 and 250,000, not 100,000 and 1,000,000: under TCG with
# KASAN, lockdep and the tracer an arm costs about 150 us, so 1,000,000
# would take over two and a half minutes to arm alone.
#
# Bounds, from what this measures on a busy 2-CPU host (several TCG guests
# at once): loading a module with nothing armed (base) already shows
# 12 - 24 ms sections (interrupt entry on a vCPU the host did not run for a
# while); hwtimer's own worst, the tick thread handing out a batch of 256,
# was 32 ms; 250,000 pending gave 21 ms. A section proportional to what is
# pending would walk 250,000 entries under the lock: at even 1 us an entry
# that is 250 ms, and KASAN makes it more. So:
#
#   ok 1  every load succeeded: the due ones fired, the rest came back
#   ok 2  big's worst section is below IRQSOFF_MAX_US (200 ms)
#   ok 3  big's worst section is below IRQSOFF_GROWTH (5) times the larger
#         of small's and base's, plus IRQSOFF_SLACK_US (50 ms): ten times
#         the timeouts, not ten times the section
#   ok 4  the periodic part's worst section is below IRQSOFF_MAX_US
IRQSOFF_SMALL=${IRQSOFF_SMALL:-25000}
IRQSOFF_BIG=${IRQSOFF_BIG:-250000}
IRQSOFF_MAX_US=${IRQSOFF_MAX_US:-200000}
IRQSOFF_GROWTH=${IRQSOFF_GROWTH:-5}
IRQSOFF_SLACK_US=${IRQSOFF_SLACK_US:-50000}
echo "TAP version 13"
if [ "${HWTIMER_KERNEL%%-*}" != debug ]; then
	echo "1..0 # SKIP the irqsoff tracer is in the debug kernel only"
	exit 0
fi
ko=$HWTIMER_DIR/modules/hwtimer_irqsoff.ko
T=/sys/kernel/tracing
if [ ! -f "$ko" ]; then
	echo "1..0 # SKIP hwtimer_irqsoff.ko not built"
	exit 0
fi
if ! grep -qw irqsoff "$T/available_tracers" 2>/dev/null; then
	echo "1..0 # SKIP no irqsoff tracer (CONFIG_IRQSOFF_TRACER)"
	exit 0
fi
echo "1..4"
# Quiet console while the tracer runs; the level the others expect after.
con_level=$(cut -f1 /proc/sys/kernel/printk)
trap 'dmesg -n "$con_level"' EXIT
dmesg -n 1
dmesg -c >/dev/null
loads_ok=1
# The default "local" clock is sched_clock(), which in this TCG guest does
# not advance across idle: sections that begin with an interrupt waking an
# idle vCPU then look as long as the idle period. "mono" reads the
# clocksource, which does.
echo mono >"$T/trace_clock"
echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), trace_clock mono"

# run NAME PARAMS...: load the module with PARAMS under a fresh maximum;
# sets lat (us) and prints the worst section, its stack and the module's
# log lines.
run() {
	name=$1
	shift
	echo 0 >"$T/tracing_on"
	echo irqsoff >"$T/current_tracer"
	echo 0 >"$T/tracing_max_latency"
	echo 1 >"$T/tracing_on"
	t0=$(date +%s)
	out=$(insmod "$ko" "$@" 2>&1) || echo "$out" | sed 's/^/# /'
	rmmod hwtimer_irqsoff 2>/dev/null
	echo 0 >"$T/tracing_on"
	lat=$(cat "$T/tracing_max_latency")
	from=$(sed -n 's/^#  => started at: *//p' "$T/trace" | head -1)
	to=$(sed -n 's/^#  => ended at: *//p' "$T/trace" | head -1)
	task=$(sed -n 's/^#    | task: \([^ ]*\).*/\1/p' "$T/trace" | head -1)
	stack=$(sed -n 's/^ => //p' "$T/trace" | head -8 | tr '\n' ' ')
	where=elsewhere
	echo "$task $stack" |
		grep -qE 'hwtimer|advance|tick_fn|worker_fn|take_some|drop_some' &&
		where=hwtimer
	log=$(dmesg -c | sed -n 's/.*hwtimer_irqsoff: //p')
	echo "$log" | sed 's/^/# /'
	echo "$log" | grep -q '^result ok' || loads_ok=0
	echo "# irqsoff $name: $lat us, $from -> $to in $task, $where ($(($(date +%s) - t0)) s)"
	echo "#   ended in: $stack"
	echo "IRQSOFF,$name,$lat,$from,$to,$where"
}

run base count=0 due=0 periodic=0
base=$lat
run small count="$IRQSOFF_SMALL" due=$((IRQSOFF_SMALL / 10)) periodic=0
lsmall=$lat
run big count="$IRQSOFF_BIG" due=$((IRQSOFF_BIG / 10)) periodic=0
lbig=$lat
run periodic count=0 due=0 periodic=1000 churn_ms=2000
lper=$lat
echo nop >"$T/current_tracer"
echo local >"$T/trace_clock"

if [ "$loads_ok" = 1 ]; then
	echo "ok 1 every load of hwtimer_irqsoff.ko succeeded"
else
	echo "not ok 1 every load of hwtimer_irqsoff.ko succeeded"
fi
if [ "$lbig" -lt "$IRQSOFF_MAX_US" ]; then
	echo "ok 2 $IRQSOFF_BIG pending: longest irqs-off section $lbig us < $IRQSOFF_MAX_US us"
else
	echo "not ok 2 $IRQSOFF_BIG pending: longest irqs-off section $lbig us < $IRQSOFF_MAX_US us"
fi
ref=$lsmall
[ "$base" -gt "$ref" ] && ref=$base
lim=$((IRQSOFF_GROWTH * ref + IRQSOFF_SLACK_US))
if [ "$lbig" -lt "$lim" ]; then
	echo "ok 3 10x the pending timeouts, not 10x the section: $lbig us < $IRQSOFF_GROWTH x $ref + $IRQSOFF_SLACK_US us"
else
	echo "not ok 3 10x the pending timeouts, not 10x the section: $lbig us < $IRQSOFF_GROWTH x $ref + $IRQSOFF_SLACK_US us"
fi
if [ "$lper" -lt "$IRQSOFF_MAX_US" ]; then
	echo "ok 4 periodic and churn: longest irqs-off section $lper us < $IRQSOFF_MAX_US us"
else
	echo "not ok 4 periodic and churn: longest irqs-off section $lper us < $IRQSOFF_MAX_US us"
fi
exit 0
