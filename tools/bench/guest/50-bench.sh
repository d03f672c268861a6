#!/bin/sh
# Guest side of make bench (busybox sh, in the VM, after 00-load put
# hwtimer.ko in): environment lines, the in-kernel benchmark (its BENCH
# lines come from the kernel log), then the userspace one. Every result
# line starts with BENCH, CDF or INFO; the rest is commentary for humans.
# HWTIMER_BENCH_KARGS and HWTIMER_BENCH_UARGS pass module parameters and
# hwtimer_ubench options for quick runs, HWTIMER_BENCH_USER=0 skips the
# userspace part (the contended-only boots); bench.sh sets them on the line
# after the #! when it stages this file.
echo "TAP version 13"
echo "1..3"

echo "INFO,kernel,$(uname -r)"
echo "INFO,cpus,$(grep -c ^processor /proc/cpuinfo)"
echo "INFO,cpu,$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "INFO,clocksource,$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "INFO,memtotal_kb,$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
sed 's/^/INFO,hwtimer_/; s/ /,/' /sys/kernel/debug/hwtimer/default/params 2>/dev/null

# Quiet console: 1M timers' worth of printk is not what we measure.
dmesg -n 1
dmesg -c >/dev/null
# shellcheck disable=SC2086
if out=$(insmod "$HWTIMER_DIR/modules/hwtimer_bench.ko" ${HWTIMER_BENCH_KARGS:-} 2>&1); then
	echo "ok 1 in-kernel benchmark (hwtimer_bench.ko)"
else
	echo "$out" | sed 's/^/# /'
	echo "not ok 1 in-kernel benchmark (hwtimer_bench.ko)"
fi
dmesg | sed -n 's/.*hwtimer_bench: //p' | sed '/^BENCH,/!s/^/# /'
dmesg | grep -E 'BUG:|WARNING:|Call Trace|hrtimer: interrupt took' | sed 's/^/# /'
dmesg -c >/dev/null
rmmod hwtimer_bench 2>/dev/null

# shellcheck disable=SC2086
if [ "${HWTIMER_BENCH_USER:-1}" = 0 ]; then
	echo "ok 2 userspace benchmark (hwtimer_ubench) # SKIP contended-only boot"
elif "$HWTIMER_DIR/bin/hwtimer_ubench" ${HWTIMER_BENCH_UARGS:-}; then
	echo "ok 2 userspace benchmark (hwtimer_ubench)"
else
	echo "not ok 2 userspace benchmark (hwtimer_ubench)"
fi
dmesg | grep -E 'BUG:|WARNING:|Call Trace' | sed 's/^/# /'

# libhwtimer's submission queue against BATCH filled by hand, 1024 a
# submit: "name ns_per_op" lines become ucost rows beside hwtimer_ubench's.
lib=$HWTIMER_DIR/bin/hwtimer_lib_bench
if [ "${HWTIMER_BENCH_USER:-1}" != 0 ] && [ -x "$lib" ]; then
	"$lib" -n 262144 -r 5 >/tmp/libbench.out 2>&1
	sed 's/^/# /' /tmp/libbench.out
	awk 'NF == 2 && $2 ~ /^[0-9.]+$/ {
		printf "BENCH,ucost,ns_per_timeout,libhwtimer-%s,262144,%s,ns\n", $1, $2 }' \
		/tmp/libbench.out
fi

echo "# default wheel stats after the run:"
sed 's/^/# /' /sys/kernel/debug/hwtimer/default/stats 2>/dev/null
echo "ok 3 benchmark finished"
