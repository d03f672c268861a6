#!/bin/sh
# libhwtimer's test suite against /dev/hwtimer: the same program and the
# same checks that make check runs on the host against the timerfd
# fallback (tools/lib/check-hook.sh), here on the device backend, as root
# and as nobody; then the -m32 build (hwtimer_lib_test32, 64-bit time in
# a 32-bit process) on both backends; then the suite inside a time
# namespace whose clocks are a day (CLOCK_BOOTTIME two) ahead of the
# host's, on both backends, as root (hwtimer_timens exec): its checks of
# delivery times (never early, the record's deadline as armed, lateness)
# read the namespace's clocks, as a program in a container does.
# The root runs set the wall clock (HWTIMER_TEST_SET_CLOCK=1: the suite's
# cancel-on-set check sets it back 2 s, then puts it back); the run as
# nobody, which may not, skips that check.
t=$HWTIMER_DIR/bin/hwtimer_lib_test
t32=$HWTIMER_DIR/bin/hwtimer_lib_test32
runas=$HWTIMER_DIR/bin/hwtimer_runas
timens=$HWTIMER_DIR/bin/hwtimer_timens
echo "TAP version 13"
if [ ! -x "$t" ]; then
	echo "1..0 # SKIP hwtimer_lib_test not built"
	exit 0
fi
echo "1..6"
n=0

# suite WHAT OUT CMD...: run one suite into OUT and report it as test n+1.
suite() {
	what=$1 out=$2
	shift 2
	n=$((n + 1))
	"$@" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	if [ "$rc" = 0 ] && grep -q '^ok' "$out" && ! grep -q '^not ok' "$out"; then
		echo "ok $n libhwtimer $what"
	else
		echo "not ok $n libhwtimer $what (exit $rc)"
	fi
}

suite "test suite on the device backend as root" /tmp/libtest-root.out \
	env HWTIMER_TEST_SET_CLOCK=1 "$t" --backend device
suite "test suite on the device backend as nobody" /tmp/libtest-nobody.out \
	"$runas" 65534 65534 "$t" --backend device
for be in device timerfd; do
	if [ ! -x "$t32" ]; then
		n=$((n + 1))
		echo "ok $n libhwtimer -m32 suite on $be # SKIP hwtimer_lib_test32 not built"
		continue
	fi
	suite "-m32 suite on the $be backend" /tmp/libtest32-$be.out \
		env HWTIMER_TEST_SET_CLOCK=1 "$t32" --backend $be
done
for be in device timerfd; do
	if [ ! -x "$timens" ]; then
		n=$((n + 1))
		echo "ok $n libhwtimer suite in a time namespace on $be # SKIP hwtimer_timens not built"
		continue
	fi
	"$timens" exec true >/tmp/libtest-timens-probe.out 2>&1
	if [ $? = 4 ]; then
		n=$((n + 1))
		echo "ok $n libhwtimer suite in a time namespace on $be # SKIP $(cat /tmp/libtest-timens-probe.out)"
		continue
	fi
	suite "suite in a time namespace on the $be backend" \
		/tmp/libtest-timens-$be.out env HWTIMER_TEST_SET_CLOCK=1 \
		"$timens" exec "$t" --backend $be
done
