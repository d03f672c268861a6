#!/bin/bash
# make bench: measure hwtimer against timer_list, hrtimer, delayed_work and
# timerfd in one qemu VM on Debian's stock kernel, then write
# build/bench/results.csv, results.md and the PNG plots.
#
#  1. install missing packages (tools/vm/deps.sh, and gnuplot-nox)
#  2. build hwtimer.ko against the stock kernel's headers in a copy of the
#     tree (build/bench/src), then tools/bench/kmod against its
#     Module.symvers, and hwtimer_ubench statically
#  3. pack an initramfs with the harness (tools/vm/mkinitrd.sh, mode check)
#     whose fragments are 00-load, tools/bench/guest/50-bench, 55-dos,
#     99-unload
#  4. boot it (tools/vm/run-vm.sh) and hand results.log to report.py
#
# Knobs (environment): HWTIMER_VM_MEM (MiB, default 3072: the in-kernel run
# holds 1M timeouts of each kind at once), BENCH_BOUND (VM wall-clock limit
# in s, default 1500), HWTIMER_BENCH_KARGS (hwtimer_bench.ko parameters,
# e.g. "max_pending=100000"), HWTIMER_BENCH_UARGS (hwtimer_ubench options),
# HWTIMER_DOS_ARGS (tools/bench/dos/hwtimer_dos options; its figures were
# taken with HWTIMER_APPEND=preempt=full, which this script passes on),
# BENCH_CLOCKSOURCE (default tsc; see below), BENCH_PROFILE=1 (also run
# tools/bench/guest/60-profile.sh: a function_graph profile of the
# /dev/hwtimer hot paths, into build/bench/profile.txt).
#
# Clocksource: under TCG the guest kernel rejects the TSC and falls back to
# the HPET, whose every read is an emulated MMIO access costing microseconds.
# That penalises exactly the peers that read the clock per call (hwtimer,
# hrtimer, timerfd) against those that use jiffies (timer_list,
# delayed_work), which no real machine does, so the guest is booted with
# clocksource=tsc tsc=reliable as hardware would pick. BENCH_CLOCKSOURCE=hpet
# measures the emulated default instead.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

BENCH=$TOP/build/bench
BDIR=$TOP/tools/bench
BENCH_BOUND=${BENCH_BOUND:-1500}
T0=$SECONDS
say() { printf 'bench: [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

# run LOG CMD...: run quietly into LOG; on failure show its tail and stop.
run() {
	local log=$1
	shift
	if ! "$@" >>"$log" 2>&1; then
		tail -25 "$log" | sed 's/^/    /' >&2
		say "FAILED: $* (log: ${log#"$TOP"/})" >&2
		exit 1
	fi
}

say "installing missing packages (if any)"
"$VM_DIR/deps.sh"
if ! command -v gnuplot >/dev/null; then
	[ "$(id -u)" = 0 ] || {
		say "gnuplot missing: apt-get install gnuplot-nox as root" >&2
		exit 1
	}
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends gnuplot-nox >/dev/null
fi

stock=$(stock_release) || {
	say "no kernel in /boot with headers in /lib/modules" >&2
	exit 1
}
kdir=/lib/modules/$stock/build
rm -rf "$BENCH"
mkdir -p "$BENCH/mods" "$BENCH/bin" "$BENCH/guest.d"
log=$BENCH/build.log
: >"$log"

say "building hwtimer.ko and hwtimer_bench.ko for $stock (log: build/bench/build.log)"
rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude=Module.symvers --exclude=modules.order "$TOP/" "$BENCH/src/"
run "$log" make -C "$BENCH/src" KDIR="$kdir" modules
run "$log" make -C "$kdir" M="$BENCH/src/tools/bench/kmod" \
	KBUILD_EXTRA_SYMBOLS="$BENCH/src/Module.symvers" modules
cp "$BENCH/src/hwtimer.ko" "$BENCH/src/tools/bench/kmod/hwtimer_bench.ko" \
	"$BENCH/mods/"
say "building hwtimer_ubench (static)"
run "$log" gcc -O2 -Wall -Wextra -Wno-unused-parameter -static \
	-I"$TOP/include/uapi" -o "$BENCH/bin/hwtimer_ubench" \
	"$BDIR/ubench/hwtimer_ubench.c"
say "building hwtimer_dos (static)"
run "$log" gcc -O2 -Wall -Wextra -Wno-unused-parameter -static \
	-I"$TOP/include/uapi" -o "$BENCH/bin/hwtimer_dos" \
	"$BDIR/dos/hwtimer_dos.c"

# The harness's load and unload fragments around ours; our parameters go on
# the line after the #!.
cp "$VM_DIR/guest.d/00-load.sh" "$VM_DIR/guest.d/99-unload.sh" "$BENCH/guest.d/"
{
	head -1 "$BDIR/guest/50-bench.sh"
	printf "HWTIMER_BENCH_KARGS='%s'\n" "${HWTIMER_BENCH_KARGS:-}"
	printf "HWTIMER_BENCH_UARGS='%s'\n" "${HWTIMER_BENCH_UARGS:-}"
	tail -n +2 "$BDIR/guest/50-bench.sh"
} >"$BENCH/guest.d/50-bench.sh"
{
	head -1 "$BDIR/guest/55-dos.sh"
	printf "HWTIMER_DOS_ARGS='%s'\n" "${HWTIMER_DOS_ARGS:-}"
	tail -n +2 "$BDIR/guest/55-dos.sh"
} >"$BENCH/guest.d/55-dos.sh"
[ "${BENCH_PROFILE:-0}" = 1 ] && cp "$BDIR/guest/60-profile.sh" "$BENCH/guest.d/"
HWTIMER_GUESTD=$BENCH/guest.d HWTIMER_FRAG_TIMEOUT=$((BENCH_BOUND - 60)) \
	"$VM_DIR/mkinitrd.sh" "$BENCH/initrd.gz" stock check "$BENCH/mods" \
	"$BENCH/bin"

export HWTIMER_VM_MEM=${HWTIMER_VM_MEM:-3072}
say "booting $stock in qemu (TCG, ${HWTIMER_VM_MEM} MiB, killed after ${BENCH_BOUND}s; a few minutes)"
cs=${BENCH_CLOCKSOURCE:-tsc}
export HWTIMER_APPEND="clocksource=$cs${HWTIMER_APPEND:+ $HWTIMER_APPEND}"
[ "$cs" = tsc ] && HWTIMER_APPEND+=" tsc=reliable"
rc=0
HWTIMER_LOGLEVEL=4 "$VM_DIR/run-vm.sh" "/boot/vmlinuz-$stock" \
	"$BENCH/initrd.gz" "$BENCH/vm" "$BENCH_BOUND" || rc=$?
[ "$rc" = 0 ] || say "qemu ended with status $rc; reporting what was measured"

if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	grep -E '^(PROF,|# (outer|inner|expiry|slabinfo))' "$BENCH/vm/results.log" \
		>"$BENCH/profile.txt" || true
	say "profile in build/bench/profile.txt"
fi
say "writing build/bench/results.csv, results.md and plots"
python3 "$BDIR/report.py" "$BENCH/vm/results.log" "$BENCH"
