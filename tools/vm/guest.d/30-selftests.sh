#!/bin/sh
# Userspace selftests of /dev/hwtimer, hwtimer_test (the ioctls, read,
# BATCH, limits), hwtimer_ring (the timer rings), hwtimer_timens (inside
# time namespaces) and hwtimer_realtime (which sets the wall clock as
# root, and puts it back): the 64-bit and -m32 builds, each as root
# and as nobody (uid 65534, through hwtimer_runas: no su needed).
# The runs' TAP is merged into one stream as it comes: result lines are
# renumbered and their descriptions prefixed with the run
# ("hwtimer_test_32-nobody: ..."), and a skip, which kselftest_harness.h
# prints without the test's name, gets the name of the test last started,
# so every line is unique; the merged plan comes last. A run that crashed or printed fewer results than its plan adds
# one "not ok" of its own, as does a missing device (plan 1..0).
# shellcheck source=tools/vm/guest.d/runs.inc
. "$HWTIMER_DIR/guest.d/runs.inc"
runas=$HWTIMER_DIR/bin/hwtimer_runas
runs="hwtimer_test:root hwtimer_test:nobody hwtimer_test_32:root hwtimer_test_32:nobody
hwtimer_ring:root hwtimer_ring:nobody hwtimer_ring_32:root hwtimer_ring_32:nobody
hwtimer_timens:root hwtimer_timens:nobody hwtimer_timens_32:root hwtimer_timens_32:nobody
hwtimer_realtime:root hwtimer_realtime:nobody hwtimer_realtime_32:root hwtimer_realtime_32:nobody"

let_nobody_in

echo "TAP version 13"
echo 0 >/tmp/st-n
for r in $runs; do
	t=${r%:*} who=${r#*:} name=${r%:*}-${r#*:} out=/tmp/st-$name
	echo "# ---- $name ----"
	{
		if ! exe=$(find_prog "$t"); then
			echo "# $t missing from the initramfs"
			echo 127 >"$out.rc"
		elif [ "$who" = root ]; then
			"$exe" 2>&1
			echo $? >"$out.rc"
		else
			"$runas" 65534 65534 "$exe" 2>&1
			echo $? >"$out.rc"
		fi
	} | {
		n=$(cat /tmp/st-n)
		tap_merge "$name"
		echo "$n $seen $plan" >/tmp/st-n.run
	}
	set -- $(cat /tmp/st-n.run)
	n=$1 seen=$2 plan=${3:-}
	rc=$(cat "$out.rc" 2>/dev/null || echo 255)
	tap_complete "$name" "$rc"
	echo "$n" >/tmp/st-n
done
echo "1..$(cat /tmp/st-n)"
