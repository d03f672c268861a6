#!/bin/bash
# make bench: measure hwtimer against timer_list, hrtimer, delayed_work,
# timerfd and io_uring in qemu VMs on Debian's stock kernel, then write
# build/bench/results.csv, results.md and the PNG plots.
#
#  1. install missing packages (tools/vm/deps.sh, gnuplot-nox, liburing-dev)
#  2. build hwtimer.ko against the stock kernel's headers in a copy of the
#     tree (build/bench/src), then tools/bench/kmod against its
#     Module.symvers, and hwtimer_ubench statically
#  3. pack two initramfs with the harness (tools/vm/mkinitrd.sh, mode
#     check): the full one, whose fragments are 00-load,
#     tools/bench/guest/50-bench, 55-dos, 99-unload, and a contended-only
#     one (50-bench with single=0 and no userspace part)
#  4. boot BENCH_RUNS rounds (tools/vm/run-vm.sh): in each, one boot per
#     vCPU count in BENCH_SMP, the first with the full initramfs, the others
#     contended-only; each boot's log is build/bench/runs/rR-smpN/results.log
#  5. in each round too, after the boots, hwtimer_lib_bench -b stand-in on
#     the host's CPU, pinned (build/bench/runs/rR-native): the rings
#     against test/fake_kernel.c beside the heap peer, without TCG, and
#     tools/bench/opcost, which the first boot of each round runs too
#  6. in each round too, the in-kernel operations at the CPU's own speed:
#     the KUnit suite hwtimer_bench in make kunit-uml's User Mode Linux
#     kernel (tools/bench/uml-bench.sh, build/bench/runs/rR-uml), which
#     runs kernel code natively (BENCH_UML=0 leaves it out)
#  7. hand every log to report.py: the median and the min-max over rounds
#
# What decides the total time (environment):
#   BENCH_RUNS     rounds of boots (default 3); every figure is reported as
#                  the median and the spread (min-max) over the rounds
#   BENCH_SMP      vCPU counts booted per round (default "2 4"); the first
#                  runs everything, the others only the contended part
#   HWTIMER_BENCH_KARGS  hwtimer_bench.ko parameters; the ones that decide
#                  its time: max_pending (largest population, default 1M),
#                  pairs (per figure and per worker, default 10000), reps
#                  (passes per figure, fastest kept, default 7), expiry_n
#                  (default 100000) and expiry_reps (default 2)
#   HWTIMER_BENCH_UARGS  hwtimer_ubench options (-n, -m, -l, -r, -o)
#   HWTIMER_UML_BENCH_ARGS  uml-bench.sh parameters (PARAM=VALUE: ops,
#                  objs, rounds, max_pending, expiry_n, expiry_rounds); a
#                  run takes about half a minute, the first the build of
#                  the UML kernel (shared with make kunit-uml) too
#   BENCH_BOUND    wall-clock limit of each boot in s (default 2400: on a
#                  2-CPU host beside make check, a boot ran past 1,440 s)
# A quick check: HWTIMER_BENCH_KARGS="max_pending=10000 pairs=2000 reps=2
# expiry_n=10000" BENCH_RUNS=1 BENCH_SMP=2.
#
# Other knobs: BENCH_LOCK (a file that each boot holds flock(1) on, so that
# VMs sharing the machine take turns instead of slowing each other down),
# HWTIMER_VM_MEM (MiB, default 3072: the in-kernel run
# holds 1M timeouts of each kind at once),
# HWTIMER_DOS_ARGS (tools/bench/dos/hwtimer_dos options; its figures were
# taken with HWTIMER_APPEND=preempt=full, which this script passes on),
# BENCH_CLOCKSOURCE (default tsc; see below), BENCH_PROFILE=1 (also run
# tools/bench/guest/60-profile.sh: a function_graph profile of the
# /dev/hwtimer hot paths, into build/bench/profile.txt), BENCH_INSNS=1
# (count the guest instructions of every kernel function with the TCG
# plugin tools/bench/tcgprof, in the first boot of the first round, into
# build/bench/insns.txt, whose rows for the entry functions of the
# in-kernel operations the report shows; the guest prints its kallsyms
# for it).
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
BENCH_BOUND=${BENCH_BOUND:-2400}
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
# need PACKAGE: install a Debian package unless it is there.
need() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' &&
		return 0
	[ "$(id -u)" = 0 ] || {
		say "$1 missing: apt-get install $1 as root" >&2
		exit 1
	}
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$1" >/dev/null
}
command -v gnuplot >/dev/null || need gnuplot-nox
need liburing-dev

BENCH_RUNS=${BENCH_RUNS:-3}
read -ra smps <<<"${BENCH_SMP:-2 4}"
if [ "$BENCH_RUNS" -lt 1 ] || [ "${#smps[@]}" = 0 ]; then
	say "BENCH_RUNS must be >= 1 and BENCH_SMP name a vCPU count" >&2
	exit 1
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
	-I"$TOP/include/uapi" -I"$TOP/tools/lib/hwtimer/bench" \
	-o "$BENCH/bin/hwtimer_ubench" \
	"$BDIR/ubench/hwtimer_ubench.c" -luring
say "building hwtimer_lib_bench and echo_idle (static, libhwtimer)"
run "$log" make -C "$TOP/tools/lib/hwtimer" O="$BENCH/lib" STATIC=1 bench \
	"$BENCH/lib/hwtimer_lib_bench_standin"
cp "$BENCH/lib/hwtimer_lib_bench" "$BENCH/lib/echo_idle" "$BENCH/bin/"
say "building opcost (static)"
run "$log" gcc -O2 -Wall -Wextra -static -o "$BENCH/bin/opcost" \
	"$BDIR/opcost/opcost.c"
say "building hwtimer_dos (static)"
run "$log" gcc -O2 -Wall -Wextra -Wno-unused-parameter -static \
	-I"$TOP/include/uapi" -o "$BENCH/bin/hwtimer_dos" \
	"$BDIR/dos/hwtimer_dos.c"

# stage DIR KARGS USER: the harness's load and unload fragments around
# ours, our parameters on the line after the #!; USER 0 skips the
# userspace part and the DoS fragment.
stage() {
	local dir=$1 kargs=$2 user=$3
	mkdir -p "$dir"
	cp "$VM_DIR/guest.d/00-load.sh" "$VM_DIR/guest.d/99-unload.sh" "$dir/"
	{
		head -1 "$BDIR/guest/50-bench.sh"
		printf "HWTIMER_BENCH_KARGS='%s'\n" "$kargs"
		printf "HWTIMER_BENCH_UARGS='%s'\n" "${HWTIMER_BENCH_UARGS:-}"
		printf "HWTIMER_BENCH_USER=%s\n" "$user"
		printf "HWTIMER_BENCH_KSYMS=%s\n" "${BENCH_INSNS:-0}"
		tail -n +2 "$BDIR/guest/50-bench.sh"
	} >"$dir/50-bench.sh"
	[ "$user" = 1 ] || return 0
	{
		head -1 "$BDIR/guest/55-dos.sh"
		printf "HWTIMER_DOS_ARGS='%s'\n" "${HWTIMER_DOS_ARGS:-}"
		tail -n +2 "$BDIR/guest/55-dos.sh"
	} >"$dir/55-dos.sh"
	[ "${BENCH_PROFILE:-0}" = 1 ] && cp "$BDIR/guest/60-profile.sh" "$dir/"
	return 0
}
stage "$BENCH/guest.d" "${HWTIMER_BENCH_KARGS:-}" 1
stage "$BENCH/guest-contended.d" "${HWTIMER_BENCH_KARGS:-} single=0" 0
for g in guest contended; do
	d=$BENCH/guest.d
	[ "$g" = contended ] && d=$BENCH/guest-contended.d
	HWTIMER_GUESTD=$d HWTIMER_FRAG_TIMEOUT=$((BENCH_BOUND - 60)) \
		"$VM_DIR/mkinitrd.sh" "$BENCH/initrd-$g.gz" stock check \
		"$BENCH/mods" "$BENCH/bin"
done

if [ "${BENCH_INSNS:-0}" = 1 ]; then
	say "building the tcgprof TCG plugin"
	run "$log" gcc -O2 -Wall -shared -fPIC -o "$BENCH/tcgprof.so" \
		"$BDIR/tcgprof/tcgprof.c"
fi

export HWTIMER_VM_MEM=${HWTIMER_VM_MEM:-3072}
cs=${BENCH_CLOCKSOURCE:-tsc}
export HWTIMER_APPEND="clocksource=$cs${HWTIMER_APPEND:+ $HWTIMER_APPEND}"
[ "$cs" = tsc ] && HWTIMER_APPEND+=" tsc=reliable"
for n in "${smps[@]}"; do
	[ "$n" -le "$(nproc)" ] ||
		say "note: $n vCPUs on $(nproc) host CPUs: the contended rows cannot scale past $(nproc)"
done
logs=()
for ((r = 1; r <= BENCH_RUNS; r++)); do
	for i in "${!smps[@]}"; do
		n=${smps[$i]} g=guest what="everything"
		[ "$i" = 0 ] || g=contended what="contended part only"
		out=$BENCH/runs/r$r-smp$n
		say "round $r/$BENCH_RUNS: booting $stock with $n vCPUs, $what (TCG, ${HWTIMER_VM_MEM} MiB, killed after ${BENCH_BOUND}s)"
		lock=()
		[ -n "${BENCH_LOCK:-}" ] && lock=(flock "$BENCH_LOCK")
		plugin=
		[ "${BENCH_INSNS:-0}" = 1 ] && [ "$r$i" = 10 ] &&
			plugin="$BENCH/tcgprof.so,out=$out/tcgprof.out"
		rc=0
		HWTIMER_QEMU_PLUGIN=$plugin HWTIMER_LOGLEVEL=4 HWTIMER_VM_SMP=$n \
			"${lock[@]}" "$VM_DIR/run-vm.sh" \
			"/boot/vmlinuz-$stock" "$BENCH/initrd-$g.gz" "$out" \
			"$BENCH_BOUND" || rc=$?
		[ "$rc" = 0 ] || say "qemu ended with status $rc; reporting what was measured"
		printf 'INFO,run,%s\nINFO,host_cpus,%s\n' "$r" "$(nproc)" \
			>>"$out/results.log"
		logs+=("$out/results.log")
	done
done

# The same library loop on the host's CPU, one run per round, after the
# boots so that no VM shares the machine: the rings against the stand-in
# kernel beside the heap peer, pinned to one CPU (as make ring-native).
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
for ((r = 1; r <= BENCH_RUNS; r++)); do
	out=$BENCH/runs/r$r-native
	mkdir -p "$out"
	say "round $r/$BENCH_RUNS: the rings beside the heap on the host's CPU (stand-in kernel)"
	"${pin[@]}" "$BENCH/lib/hwtimer_lib_bench_standin" -b stand-in \
		-n 1048576 -r 5 -e 0 >"$out/native.log" 2>&1 ||
		echo "not ok native hwtimer_lib_bench -b stand-in" >>"$out/native.log"
	awk 'NF == 2 && $2 ~ /^[0-9.]+$/ {
		printf "BENCH,unative,ns_per_timeout,libhwtimer-%s,1048576,%s,ns\n", $1, $2 }
	$1 == "median" && NF == 3 && $3 ~ /^[0-9.]+$/ {
		printf "BENCH,unative,ns_median,libhwtimer-%s,1048576,%s,ns\n", $2, $3 }
	/^not ok/ { print }' "$out/native.log" >"$out/results.log"
	# What an instruction or system call of a kind costs here, beside
	# what it costs in the VMs (50-bench.sh runs the same program).
	"${pin[@]}" "$BENCH/bin/opcost" -r host >>"$out/results.log" 2>&1 ||
		echo "not ok native opcost" >>"$out/results.log"
	printf 'INFO,run,%s\n' "$r" >>"$out/results.log"
	logs+=("$out/results.log")
done

# The in-kernel operations natively, one run per round, after the boots
# too: hwtimer_bench under User Mode Linux, figures in make bench's format.
if [ "${BENCH_UML:-1}" = 1 ]; then
	read -ra uargs <<<"${HWTIMER_UML_BENCH_ARGS:-}"
	for ((r = 1; r <= BENCH_RUNS; r++)); do
		out=$BENCH/runs/r$r-uml
		mkdir -p "$out"
		say "round $r/$BENCH_RUNS: the in-kernel operations natively (User Mode Linux, log: ${out#"$TOP"/}/uml.log)"
		"$BDIR/uml-bench.sh" -o "$out/results.log" "${uargs[@]}" \
			>"$out/uml.log" 2>&1 ||
			grep -qs '^not ok' "$out/results.log" ||
			echo "not ok uml-bench (see uml.log)" >>"$out/results.log"
		printf 'INFO,run,%s\n' "$r" >>"$out/results.log"
		logs+=("$out/results.log")
	done
fi

if [ "${BENCH_INSNS:-0}" = 1 ]; then
	python3 "$BDIR/tcgprof/tcgprof.py" \
		"$BENCH/runs/r1-smp${smps[0]}/tcgprof.out" "${logs[0]}" 400 \
		>"$BENCH/insns.txt" || true
	say "instruction profile in build/bench/insns.txt"
fi
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	grep -E '^(PROF,|# (outer|inner|expiry|slabinfo))' "${logs[0]}" \
		>"$BENCH/profile.txt" || true
	say "profile in build/bench/profile.txt"
fi
say "writing build/bench/results.csv, results.md and plots"
rc=0
python3 "$BDIR/report.py" "${logs[@]}" "$BENCH" || rc=$?

# docs/benchmarks.md is this run's results.md, dated, with its plots in
# docs/bench/.
docs=$TOP/docs
mkdir -p "$docs/bench"
cp "$BENCH"/*.png "$docs/bench/" 2>/dev/null || true
{
	sed -n 1p "$BENCH/results.md"
	printf '\nWritten by `make bench` on %s (UTC); `tools/bench/bench.sh` says how.\n' \
		"$(date -u '+%Y-%m-%d %H:%M')"
	sed 1d "$BENCH/results.md"
	printf '\n## Plots\n\n'
	for png in "$docs"/bench/*.png; do
		[ -f "$png" ] && printf '![%s](bench/%s)\n\n' \
			"$(basename "$png" .png)" "$(basename "$png")"
	done
} >"$docs/benchmarks.md"
say "docs/benchmarks.md and docs/bench/*.png written"
exit "$rc"
