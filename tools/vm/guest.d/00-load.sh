#!/bin/sh
# Load hwtimer.ko; every later fragment relies on it being loaded. First,
# bad module parameters must refuse the load with a message that names the
# parameter, and out-of-range writes under /sys/module must be refused.
echo "TAP version 13"
echo "1..5"

# Forget boot-time kmemleak suspects, so 99-unload reports only ours.
kml=/sys/kernel/debug/kmemleak
# No automatic scans either: 99-unload scans once, after rmmod.
if [ -w "$kml" ]; then
	echo clear >"$kml"
	echo scan=off >"$kml"
fi

ko=$HWTIMER_DIR/modules/hwtimer.ko
bad_ok=1
for p in workers=0 workers=65 tick_ns=5 tick_ns=2000000000 clock=2; do
	dmesg -c >/dev/null
	if insmod "$ko" "$p" 2>/dev/null; then
		echo "# insmod hwtimer.ko $p was accepted"
		rmmod hwtimer
		bad_ok=0
	elif ! dmesg | grep -q "parameter .${p%%=*}'"; then
		echo "# insmod hwtimer.ko $p: the kernel log does not name ${p%%=*}:"
		dmesg | tail -3 | sed 's/^/#   /'
		bad_ok=0
	fi
done
if [ "$bad_ok" = 1 ]; then
	echo "ok 1 bad module parameters refused, each named in the log"
else
	echo "not ok 1 bad module parameters refused, each named in the log"
fi

if out=$(insmod "$ko" 2>&1); then
	echo "ok 2 insmod hwtimer.ko"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 2 insmod hwtimer.ko"
fi

if [ -d /sys/module/hwtimer ]; then
	echo "ok 3 /sys/module/hwtimer present"
else
	echo "not ok 3 /sys/module/hwtimer present"
	exit 1
fi

# A context's table holds at most 2^24 - 1 live timeouts: larger caps are
# refused rather than failing an allocation later.
prm=/sys/module/hwtimer/parameters
old=$(cat "$prm/ctx_max_pending")
if ! echo 16777216 >"$prm/ctx_max_pending" 2>/dev/null &&
	! echo 0 >"$prm/ctx_max_pending" 2>/dev/null &&
	echo 16777215 >"$prm/ctx_max_pending" 2>/dev/null; then
	echo "ok 4 ctx_max_pending: 1 - 16777215 accepted, outside refused"
else
	echo "not ok 4 ctx_max_pending: 1 - 16777215 accepted, outside refused"
fi
echo "$old" >"$prm/ctx_max_pending"

mu=$(cat "$prm/max_user_timeouts" 2>/dev/null)
if [ -n "$mu" ] && [ "$mu" -ge 1024 ]; then
	echo "ok 5 max_user_timeouts defaults to a limit ($mu)"
else
	echo "not ok 5 max_user_timeouts defaults to a limit (${mu:-missing})"
fi
