#!/bin/sh
# shellcheck disable=SC2317 # helpers run indirectly, through check/wait_for
# The sample consumer module (samples/hwtimer_sample.c): it loads, uses the
# kernel API, and obeys the module lifetime rule of hwtimer.h: while one of
# its timeouts is pending or running it cannot be unloaded.
echo "TAP version 13"
echo "1..14"
ko=$HWTIMER_DIR/modules/hwtimer_sample.ko
par=/sys/module/hwtimer_sample/parameters
stats=/sys/kernel/debug/hwtimer/default/stats
tr=/sys/kernel/tracing
n=0

# check DESC CMD...: one TAP line from CMD's exit status.
check() {
	n=$((n + 1))
	desc=$1
	shift
	if "$@"; then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc"
	fi
}

param() { cat "$par/$1" 2>/dev/null || echo -1; }
refcnt() { cat /sys/module/hwtimer_sample/refcnt 2>/dev/null || echo -1; }
stat_fired() { sed -n 's/^fired //p' "$stats" 2>/dev/null || echo 0; }
loaded() { [ -d /sys/module/hwtimer_sample ]; }

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	i=$(($1 * 5))
	shift
	while [ "$i" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		i=$((i - 1))
	done
	"$@"
}

# try_rmmod: rmmod, with its complaint as a TAP comment.
try_rmmod() {
	out=$(rmmod hwtimer_sample 2>&1) && return 0
	echo "# rmmod: $out"
	return 1
}
refused() { ! try_rmmod && loaded; }

fired_ge() { [ "$(param fired)" -ge "$1" ]; }
runs_gt() { [ "$(param runs)" -gt "$1" ]; }
pinned() { [ "$(refcnt)" -gt 0 ]; }
unpinned() { [ "$(refcnt)" -eq 0 ]; }
in_dmesg() { dmesg | grep -q "hwtimer_sample: $1"; }
traced() {
	grep -q "hwtimer_timeout_arm: wheel=default" "$tr/trace" &&
		grep -q "hwtimer_timeout_expire: wheel=default.*lateness=" "$tr/trace" &&
		grep -q "hwtimer_timeout_cancel: wheel=default.*result=cancelled" "$tr/trace"
}

f0=$(stat_fired)
tracing=0
if [ -d "$tr/events/hwtimer" ]; then
	echo >"$tr/trace"
	echo 1 >"$tr/events/hwtimer/enable" && tracing=1
fi
check "insmod hwtimer_sample.ko" insmod "$ko"
loaded || { echo "# not loaded, the rest cannot run"; exit 1; }
# The emulated VM is slow: every wait below bounds a hang, not a latency.
check "modified one-shot fired (20 ms, was 1 s)" wait_for 10 fired_ge 1
check "cancelled timeout reported cancelled" in_dmesg "cancel of a pending timeout: cancelled"
r0=$(param runs)
check "periodic timeout keeps running" wait_for 10 runs_gt "$r0"
check "debugfs stats count the expiries" [ "$(stat_fired)" -gt "$f0" ]
if [ "$tracing" = 1 ]; then
	check "tracepoints hwtimer:hwtimer_timeout_{arm,expire,cancel} fire" traced
	echo 0 >"$tr/events/hwtimer/enable"
else
	n=$((n + 1))
	echo "ok $n tracepoints # SKIP no tracefs events/hwtimer"
fi
check "module pinned while its periodic timeout is armed" pinned
check "rmmod refused while a timeout is armed" refused
echo 0 >"$par/active"
check "quiesce (active=0) drops every pin" wait_for 5 unpinned
check "rmmod succeeds once quiesced" try_rmmod

# The rule without any quiesce: a pending one-shot (2 s) pins the module
# until it fires, then nothing stops the unload.
check "insmod with active=0 hold_ms=2000" insmod "$ko" active=0 hold_ms=2000
check "rmmod refused while the hold_ms one-shot is pending" refused
check "pin released once it fired" wait_for 20 fired_ge 2
check "rmmod succeeds after it fired" wait_for 5 try_rmmod
# Leave nothing behind for 99-unload, whatever failed above.
if loaded; then
	echo 0 >"$par/active"
	wait_for 20 unpinned && rmmod hwtimer_sample
fi
exit 0
