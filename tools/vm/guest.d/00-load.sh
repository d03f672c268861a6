#!/bin/sh
# Load hwtimer.ko; every later fragment relies on it being loaded.
echo "TAP version 13"
echo "1..2"

# Forget boot-time kmemleak suspects, so 99-unload reports only ours.
kml=/sys/kernel/debug/kmemleak
# No automatic scans either: 99-unload scans once, after rmmod.
if [ -w "$kml" ]; then
	echo clear >"$kml"
	echo scan=off >"$kml"
fi

if out=$(insmod "$HWTIMER_DIR/modules/hwtimer.ko" 2>&1); then
	echo "ok 1 insmod hwtimer.ko"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 1 insmod hwtimer.ko"
fi

if [ -d /sys/module/hwtimer ]; then
	echo "ok 2 /sys/module/hwtimer present"
else
	echo "not ok 2 /sys/module/hwtimer present"
	exit 1
fi
