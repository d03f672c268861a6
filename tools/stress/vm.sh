#!/bin/bash
# Run the reliability fragments (tools/vm/guest.d/4x-*.sh) in one VM, with
# the harness's own scripts (build-kernel.sh, mkinitrd.sh, run-vm.sh,
# results.py). Used by make soak and make check-kcsan.
#
# Usage: tools/stress/vm.sh [--kernel debug|kcsan|stock] [--soak SECONDS]
#   --kernel  debug (default): tools/vm/debug.config; kcsan: the same with
#             KASAN swapped for KCSAN (tools/vm/kcsan.config), a second
#             cached build; stock: Debian's kernel
#   --soak    stress for SECONDS each (user and kernel), 10000 churn rounds,
#             200 unload cycles, the ABI fuzzer and trinity for SECONDS each
#             (at least 600); without it the make check durations
#   --conf    "VAR=VALUE ..." overrides of STRESS_SECS, KSTRESS_SECS,
#             CHURN_ROUNDS, UNLOAD_CYCLES, ABIFUZZ_SECS, TRINITY_SECS
#             (after --soak's)
# Output in build/stress/<kernel>/; the last line is "N passed, N failed".
# KCSAN reports that do not involve hwtimer (core kernel races of 6.1) are
# moved out of the console log into kcsan-foreign.log and not counted.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

kernel=debug soak=0 conf=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--soak) soak=$2; shift 2 ;;
	--conf) conf=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel debug|kcsan|stock] [--soak SECONDS] [--conf VARS]" >&2
		exit 2 ;;
	esac
done
OUT=$TOP/build/stress/$kernel
JOBS=${JOBS:-2}
export JOBS
T0=$SECONDS
say() { printf 'stress: [%4ds] %s\n' $((SECONDS - T0)) "$*"; }

# The KCSAN fragment: debug.config without KASAN, plus kcsan.config. It is
# generated into the cache, so its contents (not this script) key the build.
kcsan_fragment() {
	local f=$HWTIMER_CACHE/kcsan.config
	mkdir -p "$HWTIMER_CACHE"
	{
		grep -v '^CONFIG_KASAN' "$VM_DIR/debug.config"
		cat "$VM_DIR/kcsan.config"
	} >"$f"
	echo "$f"
}

rm -rf "$OUT"
mkdir -p "$OUT"
"$VM_DIR/deps.sh"
case $kernel in
debug | kcsan)
	frag=$VM_DIR/debug.config
	[ "$kernel" = kcsan ] && frag=$(kcsan_fragment)
	say "$kernel kernel: $(debug_kernel_dir "$frag") (built once, then cached)"
	# The same lock as make check: one build per cache directory.
	mkdir -p "$HWTIMER_CACHE"
	kdir=$(flock "$HWTIMER_CACHE/.build-kernel.lock" \
		"$VM_DIR/build-kernel.sh" "$frag" 2>"$OUT/build-kernel.log") || {
		tail -30 "$OUT/build-kernel.log" >&2
		exit 1
	}
	image=$kdir/arch/x86/boot/bzImage
	bound=${VM_BOUND:-3000}
	;;
stock)
	v=$(stock_release)
	kdir=/lib/modules/$v/build
	image=/boot/vmlinuz-$v
	bound=${VM_BOUND:-1500}
	;;
*) echo "unknown kernel $kernel" >&2; exit 2 ;;
esac
# A soak also runs the ABI fuzzer and trinity for at least 10 minutes each.
fuzz_secs=$((soak > 600 ? soak : 600))
[ "$soak" != 0 ] && [ -z "${VM_BOUND:-}" ] && bound=$((bound + 2 * fuzz_secs + 120))

mods=$OUT/mod
say "building modules and tools (log: ${OUT#"$TOP"/}/build.log)"
rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude=Module.symvers --exclude=modules.order "$TOP/" "$mods/"
{
	make -C "$mods" KDIR="$kdir" all
	make -C "$TOP/tools/stress" module KDIR="$kdir" \
		SYMVERS="$mods/Module.symvers" MO="$mods/tools/stress/kmod"
	make -C "$TOP/tools/stress" O="$OUT/bin" STATIC=1 \
		KSFT_DIR="$(source_dir 6.1)/tools/testing/selftests"
	# hwtimer_runas: the fragments that run as nobody need it.
	make -C "$TOP/tools/testing/selftests/hwtimer" O="$OUT/bin" STATIC=1 \
		KSFT_DIR="$(source_dir 6.1)/tools/testing/selftests"
} >"$OUT/build.log" 2>&1 || {
	tail -25 "$OUT/build.log" >&2
	exit 1
}

# Only the load, reliability and unload fragments; a soak run first writes
# its durations where the 4x fragments look for them.
g=$OUT/guest.d
mkdir -p "$g"
cp "$VM_DIR/guest.d/00-load.sh" "$VM_DIR/guest.d/"4[0-9]-*.sh \
	"$VM_DIR/guest.d/99-unload.sh" "$g/"
if [ "$soak" != 0 ] || [ -n "$conf" ]; then
	{
		echo '#!/bin/sh'
		echo "cat >/tmp/stress.conf <<'C'"
		if [ "$soak" != 0 ]; then
			echo "STRESS_SECS=$soak"
			echo "KSTRESS_SECS=$soak"
			echo "CHURN_ROUNDS=10000"
			echo "UNLOAD_CYCLES=200"
			echo "ABIFUZZ_SECS=$fuzz_secs"
			echo "TRINITY_SECS=$fuzz_secs"
		fi
		for v in $conf; do echo "$v"; done
		echo "C"
		echo 'echo "TAP version 13"'
		echo 'echo "1..1"'
		echo 'echo "ok 1 durations: $(tr "\n" " " </tmp/stress.conf)"'
	} >"$g/01-stress-conf.sh"
fi
HWTIMER_GUESTD=$g HWTIMER_FRAG_TIMEOUT=$((bound - 60)) \
	"$VM_DIR/mkinitrd.sh" "$OUT/initrd.gz" \
	"$([ "$kernel" = stock ] && echo stock || echo debug)" check \
	"$mods" "$OUT/bin"
say "booting the $kernel kernel in qemu (TCG; killed after ${bound}s)"
rc=0
HWTIMER_VM_MEM=${HWTIMER_VM_MEM:-2048} \
	"$VM_DIR/run-vm.sh" "$image" "$OUT/initrd.gz" "$OUT/vm" "$bound" || rc=$?
[ "$rc" = 0 ] || say "FAILED: qemu ended with status $rc"

if [ "$kernel" = kcsan ]; then
	python3 "$TOP/tools/stress/kcsan_filter.py" "$OUT/vm/console.log" \
		"$OUT/kcsan-foreign.log"
fi
python3 "$VM_DIR/results.py" vm "$kernel" "$OUT/vm" || true
[ "$rc" = 0 ] || python3 "$VM_DIR/results.py" fail "vm-exit" "$OUT/vm-exit" \
	"qemu ended with status $rc" >/dev/null
grep -h 'STRESS-FIGURES' "$OUT/vm/results.log" | sed 's/^.*STRESS-FIGURES/stress:/' || true
python3 "$VM_DIR/results.py" total "$OUT"
