#!/bin/sh
# Unload hwtimer.ko, then ask kmemleak (debug kernel) for leaks of ours.
echo "TAP version 13"
echo "1..2"

if out=$(rmmod hwtimer 2>&1); then
	echo "ok 1 rmmod hwtimer"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 1 rmmod hwtimer"
fi

kml=$HWTIMER_DIR/bin/hwtimer_kmemleak
if [ -x "$kml" ]; then
	"$kml" 2 "kmemleak after unloading hwtimer"
else
	echo "ok 2 kmemleak # SKIP hwtimer_kmemleak not in this image"
fi
