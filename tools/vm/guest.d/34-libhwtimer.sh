#!/bin/sh
# libhwtimer's test suite against /dev/hwtimer: the same program and the
# same checks that make check runs on the host against the timerfd
# fallback (tools/lib/check-hook.sh), here on the device backend, as root
# and as nobody; then the -m32 build (hwtimer_lib_test32, 64-bit time in
# a 32-bit process) on both backends.
t=$HWTIMER_DIR/bin/hwtimer_lib_test
t32=$HWTIMER_DIR/bin/hwtimer_lib_test32
runas=$HWTIMER_DIR/bin/hwtimer_runas
echo "TAP version 13"
if [ ! -x "$t" ]; then
	echo "1..0 # SKIP hwtimer_lib_test not built"
	exit 0
fi
echo "1..4"
for who in root nobody; do
	n=$((${n:-0} + 1))
	out=/tmp/libtest-$who.out
	if [ "$who" = root ]; then
		"$t" --backend device >"$out" 2>&1
	else
		"$runas" 65534 65534 "$t" --backend device >"$out" 2>&1
	fi
	rc=$?
	sed 's/^/# /' "$out"
	if [ "$rc" = 0 ] && grep -q '^ok' "$out" && ! grep -q '^not ok' "$out"; then
		echo "ok $n libhwtimer test suite on the device backend as $who"
	else
		echo "not ok $n libhwtimer test suite on the device backend as $who (exit $rc)"
	fi
done
for be in device timerfd; do
	n=$((n + 1))
	out=/tmp/libtest32-$be.out
	if [ ! -x "$t32" ]; then
		echo "ok $n libhwtimer -m32 suite on $be # SKIP hwtimer_lib_test32 not built"
		continue
	fi
	"$t32" --backend $be >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	if [ "$rc" = 0 ] && grep -q '^ok' "$out" && ! grep -q '^not ok' "$out"; then
		echo "ok $n libhwtimer -m32 suite on the $be backend"
	else
		echo "not ok $n libhwtimer -m32 suite on the $be backend (exit $rc)"
	fi
done
