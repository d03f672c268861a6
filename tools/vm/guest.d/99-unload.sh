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

kml=/sys/kernel/debug/kmemleak
if [ ! -w "$kml" ]; then
	echo "ok 2 kmemleak # SKIP kmemleak not in this kernel"
	exit 0
fi
echo scan >"$kml"
# A record is ours when its backtrace names hwtimer, or shows a bare
# module address (0xffffffffc...), which is what frames of a module that
# is no longer loaded look like.
ours=$(awk '
	/^unreferenced object/ { if (rec != "" && mine) print rec; rec = ""; mine = 0 }
	{ rec = rec "# " $0 "\n" }
	/hwtimer|\] 0xffffffffc/ { mine = 1 }
	END { if (rec != "" && mine) print rec }' "$kml")
if [ -z "$ours" ]; then
	echo "ok 2 kmemleak: no leaks from hwtimer modules"
else
	printf '%s' "$ours"
	echo "not ok 2 kmemleak: leaks from hwtimer modules"
fi
