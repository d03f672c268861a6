# shellcheck shell=bash
# Sourced by tools/vm/check.sh after its own build steps, in its scope
# (CHECK, TOP, RESULTS, debugs/debug_dir, stocks/stock_rel, say, fail_step).
# Adds:
#  - the reliability programs (static) to build/check/bin, which the
#    initramfs carries, for the tools/vm/guest.d/4x-*.sh fragments;
#  - hwtimer_kstress.ko next to each kernel's hwtimer.ko, and
#    hwtimer_kvictim.ko (tools/testing/kvictim) next to each stock one's;
#  - a short libFuzzer run of the wheel core against its model
#    (tools/testing/wheel/fuzz; FUZZ_SECS, default 60).
# Never fails the sourcing script: a failing step is counted as a failure.

stress_check_hook() {
	local log=$CHECK/build-stress.log out=$CHECK/wheel-fuzz rc=0
	: >"$log"
	say "building tools/stress (static) and hwtimer_kstress.ko"
	make -C "$TOP/tools/stress" O="$CHECK/bin" STATIC=1 \
		KSFT_DIR="$(source_dir 6.1)/tools/testing/selftests" >>"$log" 2>&1 ||
		fail_step build-stress "tools/stress programs" "$log"
	local dk
	for dk in "${debugs[@]}"; do
		make -C "$TOP/tools/stress" module KDIR="${debug_dir[$dk]}" \
			SYMVERS="$TOP/build/mod-$dk/Module.symvers" \
			MO="$TOP/build/mod-$dk/tools/stress/kmod" >>"$log" 2>&1 ||
			fail_step build-stress "hwtimer_kstress.ko ($dk)" "$log"
		# The lockdep test module of 98-lockdep.sh (tools/testing/lockdep).
		make -C "$TOP/tools/testing/lockdep" module KDIR="${debug_dir[$dk]}" \
			SYMVERS="$TOP/build/mod-$dk/Module.symvers" \
			MO="$TOP/build/mod-$dk/tools/testing/lockdep" >>"$log" 2>&1 ||
			fail_step build-lockdep "hwtimer_lockdep_test.ko ($dk)" "$log"
		# The interrupts-off bound of 46-irqsoff.sh (tools/testing/irqsoff).
		make -C "$TOP/tools/testing/irqsoff" module KDIR="${debug_dir[$dk]}" \
			SYMVERS="$TOP/build/mod-$dk/Module.symvers" \
			MO="$TOP/build/mod-$dk/tools/testing/irqsoff" >>"$log" 2>&1 ||
			fail_step build-irqsoff "hwtimer_irqsoff.ko ($dk)" "$log"
	done
	local sk
	for sk in "${stocks[@]}"; do
		make -C "$TOP/tools/stress" module \
			KDIR="/lib/modules/${stock_rel[$sk]}/build" \
			SYMVERS="$TOP/build/mod-$sk/Module.symvers" \
			MO="$TOP/build/mod-$sk/tools/stress/kmod" >>"$log" 2>&1 ||
			fail_step build-stress "hwtimer_kstress.ko ($sk)" "$log"
		# The kernel victim of 36-isolation.sh (tools/testing/kvictim).
		make -C "$TOP/tools/testing/kvictim" module \
			KDIR="/lib/modules/${stock_rel[$sk]}/build" \
			SYMVERS="$TOP/build/mod-$sk/Module.symvers" \
			MO="$TOP/build/mod-$sk/tools/testing/kvictim" >>"$log" 2>&1 ||
			fail_step build-kvictim "hwtimer_kvictim.ko ($sk)" "$log"
	done
	if grep -v 'jobserver' "$log" | grep -qi 'warning:'; then
		grep -i 'warning:' "$log" | sed 's/^/    /'
		fail_step build-stress "compiler warnings in tools/stress" "$log"
	fi

	mkdir -p "$out"
	say "fuzzing the wheel core against its model for ${FUZZ_SECS:-60}s"
	"$TOP/tools/stress/fuzz-deps.sh" >"$out/run.log" 2>&1 &&
		make -s -C "$TOP/tools/testing/wheel/fuzz" run O="$out" \
			SECS="${FUZZ_SECS:-60}" >>"$out/run.log" 2>&1 || rc=$?
	# libFuzzer prints no TAP: one line from its exit status.
	if [ "$rc" = 0 ]; then
		echo "ok 1 wheel_fuzz: $(grep -o 'Done [0-9]* runs' \
			"$out/run.log" | tail -1), no mismatch" >>"$out/run.log"
	else
		echo "not ok 1 wheel_fuzz (rc $rc)" >>"$out/run.log"
	fi
	tail -1 "$out/run.log" | sed 's/^/    /'
	python3 "$RESULTS" tap wheel-fuzz "$out/run.log" "$rc" | tail -1 |
		sed 's/^/    /' || true
}

stress_check_hook || true
