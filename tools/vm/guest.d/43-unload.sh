#!/bin/sh
# Unload churn. rmmod hwtimer with a context open must fail cleanly; then
# load/unload cycles of hwtimer and its consumers with timeouts armed: the
# stress module in hold mode (armed timeouts pin it, so rmmod fails until
# its quiesce parameter is written), the sample consumer when present (its
# periodic timeout pins it until active=0), and a few userspace contexts;
# then kmemleak. Leaves hwtimer loaded. make check runs 20 cycles (a cycle
# takes seconds in an emulated VM); make soak runs 200.
UNLOAD_CYCLES=20
[ -f /tmp/stress.conf ] && . /tmp/stress.conf
mods=$HWTIMER_DIR/modules bin=$HWTIMER_DIR/bin
echo "TAP version 13"
echo "1..5"
t_start=$(date +%s)
trap 'echo "# $(basename "$0"): $(($(date +%s) - t_start)) s"' EXIT

# 1: rmmod hwtimer with /dev/hwtimer open fails and leaves it working.
exec 3</dev/hwtimer
if rmmod hwtimer 2>/dev/null; then
	echo "not ok 1 rmmod hwtimer with a context open fails"
else
	if [ -d /sys/module/hwtimer ] && [ -c /dev/hwtimer ]; then
		echo "ok 1 rmmod hwtimer with a context open fails cleanly"
	else
		echo "not ok 1 rmmod hwtimer with a context open fails cleanly (module half gone)"
	fi
fi
exec 3<&-

# One cycle; prints why it failed and returns 1.
pinned_ok=0
cycle() {
	if ! out=$(insmod "$mods/hwtimer_kstress.ko" secs=0 hold=32 2>&1); then
		echo "# cycle $1: insmod hwtimer_kstress: $out"
		return 1
	fi
	if [ -f "$mods/hwtimer_sample.ko" ] &&
		! out=$(insmod "$mods/hwtimer_sample.ko" 2>&1); then
		echo "# cycle $1: insmod hwtimer_sample: $out"
		return 1
	fi
	"$bin/hwtimer_churn" -n 3 -j 1 -s "$1" >/dev/null 2>&1 || {
		echo "# cycle $1: hwtimer_churn failed"
		return 1
	}
	# Periodic timeouts are armed: the lifetime rule must hold it.
	if rmmod hwtimer_kstress 2>/dev/null; then
		echo "# cycle $1: rmmod hwtimer_kstress succeeded with timeouts armed"
		return 1
	fi
	pinned_ok=$((pinned_ok + 1))
	echo 1 >/sys/module/hwtimer_kstress/parameters/quiesce
	if ! out=$(rmmod hwtimer_kstress 2>&1); then
		echo "# cycle $1: rmmod hwtimer_kstress after quiesce: $out"
		return 1
	fi
	if [ -d /sys/module/hwtimer_sample ]; then
		# Its periodic timeout pins it until active=0 quiesces it.
		if rmmod hwtimer_sample 2>/dev/null; then
			echo "# cycle $1: rmmod hwtimer_sample succeeded while armed"
			return 1
		fi
		echo 0 >/sys/module/hwtimer_sample/parameters/active
		w=50
		while [ "$(cat /sys/module/hwtimer_sample/refcnt)" != 0 ] &&
			[ "$w" -gt 0 ]; do
			sleep 0.1
			w=$((w - 1))
		done
		if ! out=$(rmmod hwtimer_sample 2>&1); then
			echo "# cycle $1: rmmod hwtimer_sample: $out"
			return 1
		fi
	fi
	if ! out=$(rmmod hwtimer 2>&1); then
		echo "# cycle $1: rmmod hwtimer: $out"
		return 1
	fi
	if ! out=$(insmod "$mods/hwtimer.ko" 2>&1); then
		echo "# cycle $1: insmod hwtimer: $out"
		return 1
	fi
	return 0
}

kml=/sys/kernel/debug/kmemleak
[ -w "$kml" ] && echo clear >"$kml"
t0=$(date +%s)
i=1 bad=0
while [ "$i" -le "$UNLOAD_CYCLES" ]; do
	cycle "$i" || { bad=$((bad + 1)); [ "$bad" -ge 5 ] && break; }
	i=$((i + 1))
done
[ -d /sys/module/hwtimer ] || insmod "$mods/hwtimer.ko"
echo "# $((i - 1)) cycles in $(($(date +%s) - t0)) s, $bad failed"
echo "STRESS-FIGURES unload cycles=$((i - 1)) failed=$bad" | sed 's/^/# /'
if [ "$bad" = 0 ]; then
	echo "ok 2 $UNLOAD_CYCLES load/unload cycles of hwtimer and its consumers with timeouts armed"
else
	echo "not ok 2 $UNLOAD_CYCLES load/unload cycles of hwtimer and its consumers with timeouts armed"
fi
if [ "$pinned_ok" = "$((i - 1 - bad))" ] && [ "$pinned_ok" -gt 0 ]; then
	echo "ok 3 armed timeouts pinned their module in every cycle"
else
	echo "not ok 3 armed timeouts pinned their module in every cycle ($pinned_ok)"
fi
if [ -f "$mods/hwtimer_sample.ko" ]; then
	echo "ok 4 the sample consumer took part in every cycle"
else
	echo "ok 4 the sample consumer took part # SKIP samples/hwtimer_sample.ko not built"
fi
"$bin/hwtimer_kmemleak" 5 "kmemleak after $UNLOAD_CYCLES unload cycles"
