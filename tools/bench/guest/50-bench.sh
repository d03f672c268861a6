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
echo "1..4"

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
# Text symbols, kernel and modules, for an instruction profile of this
# boot (tcgprof.py): a few MB, so only when asked.
[ "${HWTIMER_BENCH_KSYMS:-0}" = 1 ] &&
	awk '$2 ~ /^[tT]$/ { print "KSYM," $0 }' /proc/kallsyms
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
# submit, through the timer rings, and an event loop's heap and timerfd in
# the same loop: "name ns_per_op" lines (the fastest round) become ucost
# rows beside hwtimer_ubench's, "median name ns_per_op" ns_median rows,
# "syscalls name per_timeout k=v..." lines
# usyscalls rows (k_per_round: that kind's count in one traced run of
# 262144, total and other among them),
# "kernel name percent" lines urings rows (of the arms of a rings
# variant's median round, the share that reached the kernel, the others
# taken back from the submission ring), "expiry name n delivered early p50
# p99 max" lines uexpiry rows (100,000 expiries a second through the
# completion ring and through read()).
lib=$HWTIMER_DIR/bin/hwtimer_lib_bench
if [ "${HWTIMER_BENCH_USER:-1}" != 0 ] && [ -x "$lib" ]; then
	"$lib" -n 262144 -r 5 >/tmp/libbench.out 2>&1
	sed 's/^/# /' /tmp/libbench.out
	awk 'NF == 2 && $2 ~ /^[0-9.]+$/ {
		printf "BENCH,ucost,ns_per_timeout,libhwtimer-%s,262144,%s,ns\n", $1, $2 }
	$1 == "median" && NF == 3 && $3 ~ /^[0-9.]+$/ {
		printf "BENCH,ucost,ns_median,libhwtimer-%s,262144,%s,ns\n", $2, $3 }
	$1 == "syscalls" && NF >= 4 && $3 ~ /^[0-9.]+$/ {
		printf "BENCH,usyscalls,per_timeout,libhwtimer-%s,262144,%s,calls\n", $2, $3
		for (i = 4; i <= NF; i++) {
			if (split($i, kv, "=") != 2)
				continue
			printf "BENCH,usyscalls,%s_per_round,libhwtimer-%s,262144,%s,calls\n", kv[1], $2, kv[2]
		} }
	$1 == "kernel" && NF == 3 && $3 ~ /^[0-9.]+$/ {
		printf "BENCH,urings,kernel_pct,libhwtimer-%s,262144,%s,%%\n", $2, $3 }
	$1 == "expiry" && NF == 8 {
		split("delivered early p50 p99 max", m, " ")
		split("expiries expiries us us us", u, " ")
		for (i = 1; i <= 5; i++)
			printf "BENCH,uexpiry,%s,libhwtimer-%s,%s,%s,%s\n", m[i], $2, $3, $(i + 3), u[i]
	}' /tmp/libbench.out
fi

# What an instruction or system call of a kind costs under TCG (bench.sh
# runs the same program on the host).
opcost=$HWTIMER_DIR/bin/opcost
if [ "${HWTIMER_BENCH_USER:-1}" != 0 ] && [ -x "$opcost" ]; then
	"$opcost" -r tcg 2>&1 || echo "# opcost failed"
fi

# examples/echo_idle on /dev/hwtimer at as many loopback connections as
# the guest keeps up with: 2,000, then 5,000, 10,000 and 20,000 (under the
# 28,232 ephemeral ports), up to HWTIMER_BENCH_ECHO, stopping at the first
# count where a check fails (a connection closed early or never, a byte
# lost) or where more than 1% of the connections sent late (under TCG the
# client falls behind its own sends long before the wheel does, and a late
# sender is exempt from the checks). The largest count that passed is
# reported.
echo_idle=$HWTIMER_DIR/bin/echo_idle
# echo_rows N SECS: BENCH rows from echo_idle's summary line in /tmp/echo.out.
echo_rows() {
	awk -v n="$1" -v secs="$2" '/^echo_idle: / {
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "closed") closed = $i
			if ($(i + 1) == "early,") early = $i
			if ($(i + 1) == "lost;") lost = $i
			if ($(i + 1) == "sent" && $(i + 2) == "late,") late = $i
			if ($i == "p50") p50 = $(i + 1)
			if ($i == "p99") p99 = $(i + 1)
			if ($i == "modifies") mods = $(i - 1)
			if ($i == "submits,") subs = $(i - 1)
		}
		printf "BENCH,echo,closed,hwtimer,%s,%s,conns\n", n, closed
		printf "BENCH,echo,early,hwtimer,%s,%s,conns\n", n, early
		printf "BENCH,echo,lost,hwtimer,%s,%s,bytes\n", n, lost
		printf "BENCH,echo,late,hwtimer,%s,%s,conns\n", n, late
		printf "BENCH,echo,close_p50,hwtimer,%s,%s,ms\n", n, p50
		printf "BENCH,echo,close_p99,hwtimer,%s,%s,ms\n", n, p99
		printf "BENCH,echo,modifies,hwtimer,%s,%s,ops\n", n, mods
		printf "BENCH,echo,submits,hwtimer,%s,%s,ops\n", n, subs
		printf "BENCH,echo,wall,hwtimer,%s,%s,s\n", n, secs
	}' /tmp/echo.out
}
if [ "${HWTIMER_BENCH_USER:-1}" != 0 ] && [ -x "$echo_idle" ]; then
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	best=0 client_bound=0
	for n in 2000 5000 10000 20000; do
		[ "$n" -le "${HWTIMER_BENCH_ECHO:-20000}" ] || break
		t0=$(date +%s)
		"$echo_idle" -b device -n "$n" -i 1000 -a 3 >/tmp/echo.out 2>&1
		rc=$?
		secs=$(($(date +%s) - t0))
		sed 's/^/# /' /tmp/echo.out
		[ "$rc" = 0 ] || break
		# A client that fell behind its own sends on more than 1% of
		# its connections no longer tests the server at this count.
		echo_rows "$n" "$secs" >/tmp/echo.try
		late=$(awk -F, '$3 == "late" { print $6 }' /tmp/echo.try)
		if [ "${late:-0}" -gt $((n / 100)) ]; then
			echo "# $late of $n connections sent late: the client, not the server, is the limit"
			client_bound=1
			break
		fi
		best=$n
		mv /tmp/echo.try /tmp/echo.rows
	done
	if [ "$best" != 0 ]; then
		cat /tmp/echo.rows
		echo "ok 3 examples/echo_idle -b device: every check holds at $best connections"
	elif [ "$client_bound" = 1 ]; then
		# Its checks held; a host too busy for the client measured nothing.
		echo "ok 3 examples/echo_idle -b device -n 2000 # SKIP the client fell behind its own sends"
	else
		echo "not ok 3 examples/echo_idle -b device -n 2000"
	fi
else
	echo "ok 3 examples/echo_idle # SKIP contended-only boot, or not built"
fi

echo "# default wheel stats after the run:"
sed 's/^/# /' /sys/kernel/debug/hwtimer/default/stats 2>/dev/null
echo "ok 4 benchmark finished"
