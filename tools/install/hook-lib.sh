# shellcheck shell=bash disable=SC2154 # hook_*: the hook's
# Helpers of the install checks, sourced by tools/install/check-hook.sh and
# tools/deb/check-hook.sh in tools/vm/check.sh's scope (CHECK, TOP, RESULTS, say). Each
# hook sets, in its own scope: hook_tap (its TAP file), hook_n (checks so
# far, 0), hook_work (its scratch directory, removed at its end) and
# hook_ver (make print-version).

# Kernels hwtimer supports (docs/install.md): dkms build must not refuse
# these. dkms.conf.in's BUILD_EXCLUSIVE_KERNEL is the same set.
# shellcheck disable=SC2034 # read by the hooks
HOOK_SUPPORTED='^(6\.1\.0-[0-9]+-amd64|6\.12\.[0-9]+\+deb12-(rt-)?amd64)$'

# hook_result ok|fail|skip WHAT [WHY]: one TAP line, echoed.
hook_result() {
	hook_n=$((hook_n + 1))
	case $1 in
	ok) echo "ok $hook_n $2" ;;
	skip) echo "ok $hook_n $2 # SKIP $3" ;;
	*) echo "not ok $hook_n $2${3:+: $3}" ;;
	esac >>"$hook_tap"
	tail -1 "$hook_tap" | sed 's/^/    /'
}

# hook_copy_tree DIR: the work tree without build products, as
# check.sh's module builds copy it.
hook_copy_tree() {
	mkdir -p "$1"
	rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' \
		--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=Module.symvers \
		--exclude=modules.order "$TOP/" "$1/"
}

# hook_install_files VERSION LIBDIR: the files make install PREFIX=/usr
# LIBDIR=/LIBDIR MODULES_LOAD=1 lays out under usr/, apart from the
# per-kernel Module.symvers, one a line, LIBDIR without its leading /.
hook_install_files() {
	local ver=$1 lib=$2 m
	printf '%s\n' \
		"usr/src/hwtimer-$ver/hwtimer.h" \
		"usr/src/hwtimer-$ver/hwtimer_wheel_entry.h" \
		"usr/src/hwtimer-$ver/include/uapi/linux/hwtimer.h" \
		usr/bin/hwtimerctl \
		usr/include/linux/hwtimer.h \
		usr/include/hwtimer/hwtimer.h \
		"$lib/libhwtimer.so.$ver" \
		"$lib/libhwtimer.so.${ver%%.*}" \
		"$lib/libhwtimer.so" \
		"$lib/libhwtimer.a" \
		"$lib/pkgconfig/hwtimer.pc" \
		usr/lib/udev/rules.d/60-hwtimer.rules \
		usr/lib/modules-load.d/hwtimer.conf
	for m in "$TOP"/man/*.[1-9] "$TOP"/tools/lib/hwtimer/man/*.3; do
		[ -f "$m" ] && echo "usr/share/man/man${m##*.}/${m##*/}"
	done
	true
}

# hook_libhwtimer WHAT ROOT LIBDIR EXAMPLE shared|static LOG: the
# libhwtimer installed under ROOT (LIBDIR, without its leading /) has its
# soname, and EXAMPLE (examples/three.c), copied outside the repository,
# builds with only what pkg-config says of ROOT (PKG_CONFIG_SYSROOT_DIR),
# linked to the shared library or, with pkg-config --static, statically,
# and runs.
# shellcheck disable=SC2086 # $pc is a list of options
hook_libhwtimer() {
	local what=$1 d=$2 lib=$3 example=$4 link=$5 log=$6 dir pc soname rc=0
	local so=libhwtimer.so.${hook_ver%%.*} static="" needed
	soname=$(objdump -p "$d/$lib/libhwtimer.so.$hook_ver" 2>/dev/null |
		awk '$1 == "SONAME" { print $2 }')
	if [ "$soname" != "$so" ]; then
		hook_result fail "$what: soname" "'$soname', want $so"
		return
	fi
	[ "$link" = static ] && static=--static
	dir=$(mktemp -d "$hook_work/libconsumer.XXXXXX")
	cp "$example" "$dir/three.c"
	{
		pc=$(PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_LIBDIR=$d/$lib/pkgconfig \
			pkg-config $static --cflags --libs hwtimer) &&
			echo "pkg-config: $pc" &&
			(cd "$dir" && cc -std=c11 -Wall -Wextra -Werror -o three \
				three.c ${static:+-static} $pc) &&
			LD_LIBRARY_PATH=$d/$lib timeout 10 "$dir/three" &&
			! grep -qF "$TOP/" <(cd "$dir" && cc -std=c11 -M three.c $pc)
	} >"$log" 2>&1 || rc=$?
	needed=$(objdump -p "$dir/three" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }' |
		grep '^libhwtimer' || true)
	if [ "$rc" != 0 ] || [ "$(grep -c '^timeout [123],' "$log")" != 3 ]; then
		hook_result fail "$what: outside build" "rc $rc (log: ${log#"$CHECK"/})"
	elif [ "$link" = static ] && [ -n "$needed" ]; then
		hook_result fail "$what: static build" "still needs $needed"
	elif [ "$link" = shared ] && [ "$needed" != "$so" ]; then
		hook_result fail "$what: shared build" "needs '$needed', want $so"
	else
		hook_result ok "$what: soname $soname; a program outside builds with pkg-config ${static:+--static }--cflags --libs alone, $link, and runs (${pc})"
	fi
	rm -rf "$dir"
}

# hook_consumer WHAT KDIR INCDIR SYMVERS LOG: build a copy of the sample
# consumer in an empty directory outside the repository with only INCDIR
# and SYMVERS, and check that its objects depend on nothing in the repo.
hook_consumer() {
	local what=$1 kdir=$2 inc=$3 syms=$4 log=$5 dir rc=0 why=""
	dir=$(mktemp -d "$hook_work/consumer.XXXXXX")
	cp "$TOP/samples/hwtimer_sample.c" "$dir/"
	printf '%s\n' "ccflags-y += -I$inc" "obj-m += hwtimer_sample.o" >"$dir/Kbuild"
	make -C "$kdir" M="$dir" KBUILD_EXTRA_SYMBOLS="$syms" modules \
		>"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		why="build failed (rc $rc)"
	elif grep -qi 'undefined' "$log"; then
		why="$(grep -i -m1 'undefined' "$log")"
	elif grep -q 'WARNING: modpost' "$log"; then
		why="$(grep -m1 'WARNING: modpost' "$log")"
	elif [ "$(modinfo -F depends "$dir/hwtimer_sample.ko")" != hwtimer ]; then
		why="depends= is not hwtimer"
	elif grep -qF "$TOP/" "$dir"/.hwtimer_sample.o.cmd; then
		why="compiled with files of the repository"
	elif ! grep -qF "$inc/hwtimer.h" "$dir"/.hwtimer_sample.o.cmd; then
		why="hwtimer.h did not come from $inc"
	fi
	if [ -z "$why" ]; then
		hook_result ok "$what"
	else
		hook_result fail "$what" "$why (log: ${log#"$CHECK"/})"
	fi
	rm -rf "$dir"
}

# hook_dkms_env COMMAND...: run COMMAND (dkms, or make with DKMS=) signing
# with a key made for this run under hook_work (dkms would otherwise
# create /var/lib/dkms/mok.*).
hook_dkms_env() {
	mok_signing_key=$hook_work/mok.key mok_certificate=$hook_work/mok.pub "$@"
}

# hook_host_state: what DKMS, depmod, an install or a package would change
# on the host.
hook_host_state() {
	ls -A /var/lib/dkms 2>/dev/null
	ls -d /usr/src/hwtimer* 2>/dev/null
	find /lib/modules/ -name 'hwtimer*.ko*' 2>/dev/null
	stat -c '%n %Y' /lib/modules/*/modules.dep 2>/dev/null
	dpkg-query -W 'hwtimer*' 'libhwtimer*' 2>/dev/null
	true
}

# hook_finish NAME BEFORE T0: the host is as hook_host_state found it
# (BEFORE); the TAP plan; the scratch directory goes; NAME's counts, the
# hook having started at T0 (SECONDS).
hook_finish() {
	local name=$1 before=$2 t0=$3 after
	after=$(hook_host_state)
	if [ "$before" = "$after" ]; then
		hook_result ok "host untouched: /var/lib/dkms, /usr/src/hwtimer*, no hwtimer.ko or new modules.dep in /lib/modules, no hwtimer package"
	else
		hook_result fail "host untouched" "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -5 | tr '\n' ' ')"
	fi
	echo "1..$hook_n" >>"$hook_tap"
	rm -rf "$hook_work"
	say "$name: $((SECONDS - t0)) s"
	python3 "$RESULTS" tap "$name" "$hook_tap" 0 | tail -1 |
		sed 's/^/    /' || true
}
