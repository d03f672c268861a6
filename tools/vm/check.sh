#!/bin/bash
# make check: build everything and run every test, kernel code only in qemu.
#
#  1. install missing packages (deps.sh)
#  2. build or reuse the debug kernels (build-kernel.sh, cached): 6.1 with
#     KASAN, lockdep, kmemleak and KUnit; 6.12 PREEMPT_RT with lockdep
#  3. build hwtimer.ko, hwtimer_kunit.ko and the sample with W=1 against the
#     debug kernels (build/mod-debug, build/mod-debug-rt) and the headers of each of
#     Debian 12's kernels (build/mod-stock: 6.1, build/mod-stock-6.12,
#     build/mod-stock-rt: 6.12 PREEMPT_RT)
#  4. build the userspace tests statically, 64-bit and -m32
#  5. run the userspace wheel model test on the host, and the KUnit suites
#     built into a User Mode Linux kernel (kunit-uml.sh, cached build)
#  6. boot each kernel with a busybox initramfs and run tools/vm/guest.d/*.sh
#     (the debug kernel is fully preemptive; the stock 6.1 and 6.12 ones
#     boot with preempt=full, every stock one with slub_debug on hwtimer's
#     caches; 6.12 runs the stress fragments for a shorter time)
#  7. count results; the last line is "N passed, N failed[, N skipped]"
#
# Everything lands in build/check/. A failing step is counted as a failure
# and the run goes on where it can, so one broken part does not hide others.
# Bounds (seconds, overridable): VM_BOUND_DEBUG, VM_BOUND_STOCK for the whole
# VM; FRAG_BOUND_DEBUG, FRAG_BOUND_STOCK for each guest fragment.
# STOCK_KERNELS (default "6.1 6.12 rt") picks the stock kernels to test,
# DEBUG_KERNELS (default "debug debug-rt") the debug ones (tools/vm/NAME.config).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECK=$TOP/build/check
VM_BOUND_DEBUG=${VM_BOUND_DEBUG:-3000}
VM_BOUND_STOCK=${VM_BOUND_STOCK:-1500}
FRAG_BOUND_DEBUG=${FRAG_BOUND_DEBUG:-1200}
FRAG_BOUND_STOCK=${FRAG_BOUND_STOCK:-900}
STOCK_KERNELS=${STOCK_KERNELS:-6.1 6.12 rt}
DEBUG_KERNELS=${DEBUG_KERNELS:-debug debug-rt}
# The stress fragments' durations on the 6.12 VM (see guest.d/4*.sh).
SHORT_STRESS="STRESS_SECS=10 KSTRESS_SECS=10 ABIFUZZ_SECS=20 TRINITY_SECS=20"
RESULTS=$VM_DIR/results.py
T0=$SECONDS


# build_mods NAME KDIR: copy the sources to build/mod-NAME and build there
# with the top-level Makefile and W=1, so every kernel's build coexists and
# the work tree stays clean. Compiler warnings fail the step too.
build_mods() {
	local name=$1 kdir=$2 dir=$TOP/build/mod-$1 log=$CHECK/build-$1.log
	rm -rf "$dir"
	mkdir -p "$dir"
	# Leave out earlier in-tree build products: they may be for another kernel.
	rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' \
		--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=Module.symvers \
		--exclude=modules.order "$TOP/" "$dir/"
	say "building modules against $name kernel ($kdir)"
	if ! make -C "$dir" KDIR="$kdir" W=1 all >"$log" 2>&1; then
		fail_step "build-$name" "module build for $name kernel" "$log"
		return 1
	fi
	if grep -qi 'warning:' "$log"; then
		grep -i 'warning:' "$log" | sed 's/^/    /'
		fail_step "build-$name" "compiler warnings building for $name" "$log"
	fi
	return 0
}

# build_tools: static userspace programs into build/check/bin and bin32.
# The selftests include kselftest_harness.h from the 6.1 source tree.
build_tools() {
	local log=$CHECK/build-tools.log d
	local ksft
	ksft=$(source_dir 6.1)/tools/testing/selftests
	: >"$log"
	for d in tools/hwtimerctl tools/testing/selftests/hwtimer; do
		say "building $d (static)"
		make -C "$TOP/$d" O="$CHECK/bin" STATIC=1 KSFT_DIR="$ksft" \
			>>"$log" 2>&1 || fail_step build-tools "$d" "$log"
	done
	d=tools/testing/selftests/hwtimer
	say "building $d (static, -m32)"
	make -C "$TOP/$d" O="$CHECK/bin32" STATIC=1 M32=1 KSFT_DIR="$ksft" \
		>>"$log" 2>&1 ||
		fail_step build-tools "$d -m32" "$log"
}

# run_wheel_model: the pure wheel against its reference model, on the host.
run_wheel_model() {
	local out=$CHECK/wheel rc=0
	mkdir -p "$out"
	say "running the wheel model test on the host"
	make -s -C "$TOP/tools/testing/wheel" run O="$out" >"$out/run.log" 2>&1 ||
		rc=$?
	tail -1 "$out/run.log" | sed 's/^/    /'
	python3 "$RESULTS" tap wheel-model "$out/run.log" "$rc" | tail -1 |
		sed 's/^/    /' || true
}

# run_kunit_uml: the KUnit suites built into a User Mode Linux kernel by
# the kernel's kunit.py (kunit-uml.sh; its tree is cached, so a later run
# rebuilds only what changed), counted from the kernel's KTAP. A failed
# build leaves no KTAP, which counts as a failure too. stdin is not the
# terminal: kunit.py resets the one it is given.
run_kunit_uml() {
	local out=$CHECK/kunit-uml rc=0
	mkdir -p "$out"
	say "running the KUnit suites under User Mode Linux (kunit.py)"
	"$VM_DIR/kunit-uml.sh" --ktap "$out/kunit.ktap" </dev/null \
		>"$out/run.log" 2>&1 || rc=$?
	if [ -s "$out/kunit.ktap" ]; then
		grep -E 'Testing complete|Elapsed time: .* total' "$out/run.log" |
			sed 's/^/    /' || true
	else
		tail -25 "$out/run.log" | sed 's/^/    /'
	fi
	python3 "$RESULTS" ktap kunit-uml "$out/kunit.ktap" "$rc" | tail -1 |
		sed 's/^/    /' || true
}

# died_before_init OUTDIR: the VM's kernel panicked before running /init
# (no fragment output at all, a panic on the console, no "Run /init").
died_before_init() {
	[ ! -s "$1/results.log" ] &&
		grep -q 'Kernel panic' "$1/console.log" 2>/dev/null &&
		! grep -q 'Run /init as init process' "$1/console.log"
}

# run_vm NAME KERNEL MODDIR VMBOUND FRAGBOUND: pack, boot, count.
run_vm() {
	local name=$1 kernel=$2 mods=$3 bound=$4 frag=$5 out=$CHECK/vm-$1 rc=0
	mkdir -p "$out"
	HWTIMER_FRAG_TIMEOUT=$frag "$VM_DIR/mkinitrd.sh" "$out/initrd.gz" \
		"$name" check "$mods" "$CHECK/bin" "$CHECK/bin32"
	say "booting $name kernel in qemu (TCG; killed after ${bound}s)"
	"$VM_DIR/run-vm.sh" "$kernel" "$out/initrd.gz" "$out" "$bound" || rc=$?
	# A kernel that panics before it starts /init has run none of our
	# code: nothing is loaded before /init. TCG sometimes crashes a guest
	# there (an int3 from live code patching racing a vCPU), so such a
	# boot is tried once more; its log is kept as console.boot1.log.
	if died_before_init "$out"; then
		mv "$out/console.log" "$out/console.boot1.log"
		say "$name kernel panicked before /init (see ${out#"$TOP"/}/console.boot1.log); booting it again"
		rc=0
		"$VM_DIR/run-vm.sh" "$kernel" "$out/initrd.gz" "$out" "$bound" ||
			rc=$?
	fi
	case $rc in
	0) ;;
	124 | 137) say "FAILED: $name VM still running after ${bound}s, killed" ;;
	*) say "FAILED: qemu exited with $rc (see ${out#"$TOP"/}/qemu.stderr)" ;;
	esac
	python3 "$RESULTS" vm "$name" "$out" || true
	# A VM that ended abnormally is a failure even if its log looks fine.
	if [ "$rc" != 0 ]; then
		python3 "$RESULTS" fail "vm-$name-exit" "$CHECK/vm-$name-exit" \
			"qemu for $name ended with status $rc" >/dev/null || true
	fi
	return 0
}

# If anything above fails unexpectedly, still end with the summary line,
# counting the abort itself as a failure.
on_exit() {
	local rc=$?
	[ -f "$CHECK/summary.txt" ] && return
	[ -d "$CHECK" ] || return
	say "check.sh stopped early (status $rc)"
	python3 "$RESULTS" fail aborted "$CHECK/aborted" \
		"check.sh stopped early (status $rc)" >/dev/null || true
	python3 "$RESULTS" total "$CHECK" || true
	exit 1
}

# lock_check_dir: one make check per work tree at a time (both would
# rewrite build/); start build/check/ afresh; install missing packages.
lock_check_dir() {
	mkdir -p "$TOP/build"
	exec 9>"$TOP/build/.check.lock"
	flock -n 9 || {
		say "waiting for another make check in this tree to finish"
		flock 9
	}
	rm -rf "$CHECK"
	mkdir -p "$CHECK"
	trap on_exit EXIT
	say "installing missing packages (if any)"
	"$VM_DIR/deps.sh"
}

# build_debug: the debug kernels (debug: 6.1, debug.config; debug-rt: 6.12
# PREEMPT_RT, debug-rt.config) and the modules for each. Fills main's
# debugs (names built), debug_dir[name] (kernel build directory) and
# dbg/kdbg (debug's).
build_debug() {
	local d kd
	mkdir -p "$HWTIMER_CACHE"
	for d in $DEBUG_KERNELS; do
		kd=$(debug_kernel_dir "$VM_DIR/$d.config")
		if [ -f "$kd/.done" ]; then
			say "$d kernel: $kd (cached)"
		else
			say "$d kernel: building $kd (about 8 minutes on 2 idle cores)"
		fi
		# The lock keeps concurrent runs (other work trees, make demo)
		# from building into, or deleting, the same cache directory.
		if ! kd=$(flock "$HWTIMER_CACHE/.build-kernel.lock" \
			"$VM_DIR/build-kernel.sh" "$VM_DIR/$d.config" \
			2>"$CHECK/build-kernel-$d.log"); then
			fail_step "build-kernel-$d" "$d kernel build" \
				"$CHECK/build-kernel-$d.log"
			continue
		fi
		build_mods "$d" "$kd" || continue
		debugs+=("$d")
		debug_dir[$d]=$kd
		if [ "$d" = debug ]; then
			dbg=$kd
			kdbg=1
		fi
	done
}

# build_stock: the modules for Debian 12's kernels (stock: 6.1, stock-6.12,
# stock-rt). Fills main's stocks (names built), stock_rel[name] (release)
# and, for 6.1, stock/kstock.
build_stock() {
	local f name rel
	for f in $STOCK_KERNELS; do
		name=stock
		[ "$f" = 6.1 ] || name=stock-$f
		if ! rel=$(stock_release "$f"); then
			fail_step "build-$name" "no $f stock kernel with headers in /boot" /dev/null
			continue
		fi
		build_mods "$name" "/lib/modules/$rel/build" || continue
		stocks+=("$name")
		stock_rel[$name]=$rel
		if [ "$f" = 6.1 ]; then
			stock=$rel
			kstock=1
		fi
	done
}

# run_vms: boot every kernel built. The debug ones are fully preemptive.
# The stock ones are what users run, made as strict as it goes: full
# preemption opens every unlock-then-touch window (PREEMPT_RT is
# preemptible already), and slub_debug poisons freed timers so a
# use-after-free returns 0x6b.. instead of stale data.
run_vms() {
	local d name conf append
	for d in "${debugs[@]}"; do
		conf=""
		[ "$d" = debug-rt ] && conf=$SHORT_STRESS
		HWTIMER_STRESS_CONF=$conf run_vm "$d" \
			"${debug_dir[$d]}/arch/x86/boot/bzImage" \
			"$TOP/build/mod-$d" "$VM_BOUND_DEBUG" "$FRAG_BOUND_DEBUG"
	done
	for name in "${stocks[@]}"; do
		append="slub_debug=FZP,hwt_timer,hwt_ptimer"
		[ "$name" = stock-rt ] || append="preempt=full $append"
		conf=""
		[ "$name" = stock-6.12 ] && conf=$SHORT_STRESS
		HWTIMER_APPEND=$append HWTIMER_STRESS_CONF=$conf \
			run_vm "$name" "/boot/vmlinuz-${stock_rel[$name]}" \
			"$TOP/build/mod-$name" "$VM_BOUND_STOCK" "$FRAG_BOUND_STOCK"
	done
}

main() {
	lock_check_dir
	# What the build steps fill in and the hooks below read.
	local dbg="" stock="" kdbg=0 kstock=0 hook
	declare -A debug_dir=() stock_rel=()
	local debugs=() stocks=()
	build_debug
	build_stock
	build_tools
	run_wheel_model
	run_kunit_uml
	# Other parts plug in here: tools/*/check-hook.sh is sourced in this
	# scope (CHECK, TOP, RESULTS, debugs, debug_dir, dbg, kdbg, stocks,
	# stock_rel, stock, kstock, say, fail_step) to add build steps and host
	# tests before the VMs boot.
	for hook in "$TOP"/tools/*/check-hook.sh; do
		[ -f "$hook" ] || continue
		# shellcheck disable=SC1090
		. "$hook"
	done
	run_vms
	say "logs and TAP/KTAP extracts are in build/check/"
	python3 "$RESULTS" total "$CHECK"
}

main "$@"
