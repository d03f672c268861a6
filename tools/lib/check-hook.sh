# shellcheck shell=bash
# Sourced by tools/vm/check.sh after its own build steps, in its scope
# (CHECK, TOP, RESULTS, say, fail_step). For libhwtimer (tools/lib/hwtimer):
#  - builds the library, shared and static, with its test and example;
#    a compiler warning fails the step;
#  - runs the test on the host against the timerfd backend, counted as
#    "libhwtimer-timerfd";
#  - runs the three-timeouts example, formats the man pages
#    (tools/lib/hwtimer/man) without a groff warning, builds the
#    example from outside against make install DESTDIR=... alone, through
#    pkg-config, and runs the idle-timeout echo server example on the
#    timerfd backend: "libhwtimer-extras";
#  - runs test/ring_fake_test, the rings against a stand-in kernel in the
#    process, on the host: "libhwtimer-fake";
#  - builds bench/hwtimer_lib_bench against that stand-in, without a
#    warning, and runs it briefly: it must run its rings variants and
#    the heap peer to the end, every cancel taking its ARM back (its
#    figures are make bench's to judge): "libhwtimer-native";
#  - builds the test statically into build/check/bin, which the initramfs
#    carries, so a guest fragment can run it against /dev/hwtimer; and
#    with -m32 (32-bit time_t by default: the library must still use
#    64-bit time), shared here and static as hwtimer_lib_test32 for the
#    guests; the 32-bit test runs on the host's timerfd backend where the
#    host runs i386 programs, counted as "libhwtimer-timerfd-m32", else
#    that count is a skip saying so.
# Never fails the sourcing script: a failing step is counted as a failure.

# libhwtimer_outside OUT DEST: install into DEST, build the example from
# OUT with only what pkg-config says of DEST, and run it.
libhwtimer_outside() {
	local out=$1 dest=$2 pc
	make -C "$TOP/tools/lib/hwtimer" O="$out/shared" PREFIX=/usr \
		DESTDIR="$dest" install || return
	pc=$(PKG_CONFIG_SYSROOT_DIR=$dest \
		PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig \
		pkg-config --cflags --libs hwtimer) || return
	echo "pkg-config: $pc"
	# shellcheck disable=SC2086
	(cd "$out" && cc -std=c11 -Wall -Wextra -Werror -o outside \
		"$TOP/tools/lib/hwtimer/examples/three.c" $pc) || return
	LD_LIBRARY_PATH=$dest/usr/lib timeout 10 "$out/outside"
}

# libhwtimer_extras OUT: TAP of the example, the man pages, install.
libhwtimer_extras() {
	local out=$1 m bad="" dest=$1/dest
	echo "1..5"
	# The example prints one line per timeout, three within a second.
	if timeout 10 "$out/shared/three" >"$out/three.log" 2>&1 &&
		[ "$(grep -c '^timeout [123],' "$out/three.log")" = 3 ]; then
		echo "ok 1 examples/three: three timeouts"
	else
		echo "not ok 1 examples/three (see three.log)"
	fi
	for m in "$TOP"/tools/lib/hwtimer/man/*.3; do
		[ -z "$(groff -man -Tutf8 -ww -z "$m" 2>&1)" ] || bad="$bad ${m##*/}"
	done
	if [ -z "$bad" ]; then
		echo "ok 2 man pages format without a groff warning"
	else
		echo "not ok 2 groff warnings in:$bad"
	fi
	if libhwtimer_outside "$out" "$dest" >"$out/install.log" 2>&1; then
		echo "ok 3 install, pkg-config --cflags --libs, a program built outside"
	else
		echo "not ok 3 install and an outside build (see install.log)"
	fi
	make -C "$TOP/tools/lib/hwtimer" O="$out/shared" PREFIX=/usr \
		DESTDIR="$dest" uninstall >>"$out/install.log" 2>&1 || true
	if [ "$(cd "$dest" 2>/dev/null && find . ! -type d)" = \
		./usr/include/linux/hwtimer.h ]; then
		echo "ok 4 uninstall leaves only <linux/hwtimer.h>"
	else
		echo "not ok 4 uninstall left files (see install.log)"
	fi
	# 2000 connections, not the example's 10000: each of its two
	# processes then needs 2032 fds, within the common hard
	# RLIMIT_NOFILE of 4096 without privileges, and the step costs a
	# quarter of the kernel time (0.5 s against 1.9 s, measured on the
	# 2-core host) while make check's builds share the cores. The run
	# still takes ACTIVE_S + IDLE (4 s) either way.
	if timeout 60 "$out/shared/echo_idle" -n 2000 -b timerfd \
		>"$out/echo_idle.log" 2>&1; then
		echo "ok 5 examples/echo_idle -n 2000: $(tail -1 "$out/echo_idle.log")"
	else
		echo "not ok 5 examples/echo_idle -n 2000: $(tail -1 "$out/echo_idle.log")"
	fi
}

# libhwtimer_m32 OUT: the -m32 test on the timerfd backend, in its own
# directory; a host that cannot run i386 programs (no IA32 emulation)
# makes it one skip.
libhwtimer_m32() {
	local out=$1 rc=0 t=$1/m32/hwtimer_lib_test
	mkdir -p "$out/m32tap"
	[ -x "$t" ] || return 0
	"$t" --backend timerfd >"$out/m32tap/timerfd-m32.tap" 2>&1 || rc=$?
	if [ "$rc" = 126 ] && ! grep -q '^TAP' "$out/m32tap/timerfd-m32.tap"; then
		printf '%s\n' "1..1" "ok 1 libhwtimer -m32 # SKIP this host runs no i386 programs (exec: rc 126); the VMs run hwtimer_lib_test32" \
			>"$out/m32tap/timerfd-m32.tap"
		rc=0
	fi
	grep '^not ok' "$out/m32tap/timerfd-m32.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap libhwtimer-timerfd-m32 \
		"$out/m32tap/timerfd-m32.tap" "$rc" | tail -1 | sed 's/^/    /' || true
}

# libhwtimer_fake OUT: the library against the stand-in kernel
# (test/ring_fake_test), in its own directory.
libhwtimer_fake() {
	local out=$1 rc=0 log=$1/fake/build.log
	mkdir -p "$out/fake"
	say "running libhwtimer's rings against the stand-in kernel on the host"
	if ! make -C "$TOP/tools/lib/hwtimer" O="$out/static" STATIC=1 \
		"$out/static/ring_fake_test" >"$log" 2>&1; then
		fail_step build-libhwtimer "libhwtimer's ring_fake_test" "$log"
		return 0
	fi
	"$out/static/ring_fake_test" >"$out/fake/fake.tap" 2>&1 || rc=$?
	grep '^not ok' "$out/fake/fake.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap libhwtimer-fake "$out/fake/fake.tap" "$rc" |
		tail -1 | sed 's/^/    /' || true
}

# libhwtimer_native OUT: hwtimer_lib_bench -b stand-in, briefly.
libhwtimer_native() {
	local out=$1 rc=0 d=$1/native v bad=
	mkdir -p "$d"
	say "running hwtimer_lib_bench against the stand-in kernel on the host"
	if ! make -C "$TOP/tools/lib/hwtimer" O="$out/static" STATIC=1 \
		"$out/static/hwtimer_lib_bench_standin" >"$d/build.log" 2>&1 ||
		grep -qi 'warning:' "$d/build.log"; then
		fail_step build-libhwtimer "hwtimer_lib_bench -b stand-in" \
			"$d/build.log"
		return 0
	fi
	"$out/static/hwtimer_lib_bench_standin" -b stand-in -n 16384 -r 1 \
		-e 0 >"$d/run.log" 2>&1 || rc=$?
	for v in heap_single rings_single rings_sq1024 rings_loop1024; do
		grep -q "^$v [0-9]" "$d/run.log" || bad="$bad $v"
	done
	# The stand-in drains only when entered: nothing may reach it.
	for v in rings_single rings_sq1024; do
		grep -qx "kernel $v 0.0" "$d/run.log" || bad="$bad kernel-$v"
	done
	{
		echo "1..1"
		if [ "$rc" = 0 ] && [ -z "$bad" ]; then
			echo "ok 1 hwtimer_lib_bench -b stand-in: the rings and the heap peer"
		else
			echo "not ok 1 hwtimer_lib_bench -b stand-in: exit $rc, missing:${bad:- none}"
			sed 's/^/# /' "$d/run.log"
		fi
	} >"$d/native.tap"
	grep '^not ok' "$d/native.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap libhwtimer-native "$d/native.tap" "$rc" |
		tail -1 | sed 's/^/    /' || true
}

libhwtimer_check_hook() {
	local out=$CHECK/libhwtimer log=$CHECK/libhwtimer/build.log rc=0
	rm -rf "$out"
	mkdir -p "$out" "$CHECK/bin"
	say "building libhwtimer (shared, static) and its test"
	if ! make -C "$TOP/tools/lib/hwtimer" O="$out/shared" all test \
		>"$log" 2>&1; then
		fail_step build-libhwtimer "libhwtimer and its test" "$log"
		return 0
	fi
	if ! make -C "$TOP/tools/lib/hwtimer" O="$out/static" STATIC=1 test \
		>>"$log" 2>&1 ||
		! cp "$out/static/hwtimer_lib_test" "$CHECK/bin/"; then
		fail_step build-libhwtimer "libhwtimer's test (static)" "$log"
	fi
	if grep -qi 'warning:' "$log"; then
		grep -i 'warning:' "$log" | sed 's/^/    /'
		fail_step build-libhwtimer "compiler warnings in libhwtimer" "$log"
	fi

	if ! make -C "$TOP/tools/lib/hwtimer" O="$out/m32" CFLAGS="-O2 -g -m32" \
		all test >>"$log" 2>&1 ||
		! make -C "$TOP/tools/lib/hwtimer" O="$out/m32s" \
			CFLAGS="-O2 -g -m32" STATIC=1 test >>"$log" 2>&1 ||
		! cp "$out/m32s/hwtimer_lib_test" "$CHECK/bin/hwtimer_lib_test32"; then
		fail_step build-libhwtimer "libhwtimer and its test with -m32" "$log"
	fi
	say "running libhwtimer's test on the host (timerfd backend)"
	"$out/shared/hwtimer_lib_test" --backend timerfd >"$out/timerfd.tap" \
		2>&1 || rc=$?
	grep '^not ok' "$out/timerfd.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap libhwtimer-timerfd "$out/timerfd.tap" "$rc" |
		tail -1 | sed 's/^/    /' || true
	libhwtimer_m32 "$out"
	libhwtimer_fake "$out"
	libhwtimer_native "$out"
	# Its own directory: results.py keeps one count per directory.
	mkdir -p "$out/extras"
	libhwtimer_extras "$out" >"$out/extras/extras.tap"
	grep '^not ok' "$out/extras/extras.tap" | sed 's/^/    /' || true
	python3 "$RESULTS" tap libhwtimer-extras "$out/extras/extras.tap" 0 |
		tail -1 | sed 's/^/    /' || true
}

libhwtimer_check_hook || true
