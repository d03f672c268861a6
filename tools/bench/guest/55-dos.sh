#!/bin/sh
# Guest fragment of make bench: how late one user's timeouts can make
# another's (tools/bench/dos/hwtimer_dos.c). A root victim arms 5 ms
# one-shots one after the other with (a) no attacker, (b) an attacker as
# nobody holding as many unread periodic 1 ms timeouts as its limits allow,
# (c) the same attacker reading its records as fast as it can; three runs
# taking turns. Result lines start with DOS; the rest is commentary.
# HWTIMER_DOS_ARGS passes hwtimer_dos options (bench.sh sets it on the line
# after the #! when it stages this file).
#
#   ok 1  the tool ran and every record it read was on time and its own
#   ok 2  (b) costs the victim nothing: while the victim runs, the wheel
#         serves none of the attacker's timeouts, and the victim's median
#         wake-up lateness over the runs is within 2 ms of (a)'s
echo "TAP version 13"
dos=$HWTIMER_DIR/bin/hwtimer_dos
if [ ! -x "$dos" ]; then
	echo "1..0 # SKIP hwtimer_dos not in the initramfs"
	exit 0
fi
echo "1..2"
echo "INFO,dos_cmdline,$(cat /proc/cmdline)"
echo "INFO,dos_preempt,$(cat /sys/kernel/debug/sched/preempt 2>/dev/null)"
echo "INFO,dos_clocksource,$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

dmesg -n 1
# shellcheck disable=SC2086
"$dos" ${HWTIMER_DOS_ARGS:-}
rc=$?
case $rc in
0 | 1) echo "ok 1 hwtimer_dos ran, every record on time and its own" ;;
*) echo "not ok 1 hwtimer_dos ran, every record on time and its own (exit $rc)" ;;
esac
if [ "$rc" = 0 ]; then
	echo "ok 2 an idle attacker at its limit gets nothing served and costs the victim at most 2 ms (median)"
else
	echo "not ok 2 an idle attacker at its limit gets nothing served and costs the victim at most 2 ms (median)"
fi
dmesg | grep -E 'BUG:|WARNING:|Call Trace|hrtimer: interrupt took' | sed 's/^/# /'
echo "# default wheel stats after the run:"
sed 's/^/# /' /sys/kernel/debug/hwtimer/default/stats 2>/dev/null
exit 0
