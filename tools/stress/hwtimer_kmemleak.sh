#!/bin/sh
# hwtimer_kmemleak N WHAT: print kselftest TAP line N for a kmemleak check
# (guest side, busybox sh). Waits past kmemleak's minimum object age, scans
# twice, and passes when no unreferenced object has a backtrace through an
# hwtimer module (or through a bare module address, which is what frames of
# an unloaded module look like); then clears, so the next check starts anew.
n=$1 what=$2 kml=/sys/kernel/debug/kmemleak
if [ ! -w "$kml" ]; then
	echo "ok $n $what # SKIP kmemleak not in this kernel"
	exit 0
fi
sleep 6
echo scan >"$kml"
echo scan >"$kml"
ours=$(awk '
	/^unreferenced object/ { if (rec != "" && mine) print rec; rec = ""; mine = 0 }
	{ rec = rec "# " $0 "\n" }
	/hwtimer|\] 0xffffffffc/ { mine = 1 }
	END { if (rec != "" && mine) print rec }' "$kml")
echo clear >"$kml"
if [ -z "$ours" ]; then
	echo "ok $n $what: nothing of hwtimer's"
else
	printf '%s' "$ours"
	echo "not ok $n $what: leaks from hwtimer modules"
	exit 1
fi
