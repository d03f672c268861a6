# shellcheck shell=bash
# Sourced by tools/vm/check.sh before the VMs boot, in its scope (CHECK,
# TOP, RESULTS, say, fail_step). Checks the Debian packages of debian/ on
# the host, loading and installing nothing into the system:
#  - installs what building and checking them needs (build-essential,
#    dpkg-dev, debhelper, dh-dkms, dkms, lintian) when missing, as root,
#    with apt;
#  - dpkg-buildpackage -b -us -uc in a copy of the tree builds the four
#    packages, the library's tests running in the build, with the release
#    of include/uapi/linux/hwtimer.h;
#  - lintian on the .changes (the packages and the .buildinfo): no error,
#    no warning, no hardening tag at any level; every tag is printed;
#  - the packages, unpacked into a scratch root, hold make install's files
#    (PREFIX=/usr, the multiarch LIBDIR, man pages compressed) each in the
#    package meant for it, and nothing else but their docs and the DKMS
#    source tree, which is make dkms-source's, file for file;
#  - examples/three.c, as libhwtimer-dev ships it, builds with only what
#    pkg-config says of that root, shared and static, and runs;
#  - DKMS builds hwtimer-dkms's source on private trees for every
#    supported kernel with headers, and a copy of samples/hwtimer_sample.c
#    builds against the package's headers (-I/usr/src/hwtimer-VERSION) and
#    each DKMS build's Module.symvers;
#  - the host's DKMS tree, /usr/src, /lib/modules and dpkg's database are
#    left alone.
# One check is one line of build/check/deb/deb.tap, counted as "deb".
# tools/install/run-check-hook.sh deb runs it alone. Never fails the sourcing
# script.

# shellcheck source=tools/install/hook-lib.sh
. "$TOP/tools/install/hook-lib.sh"

# What the build (debian/control's Build-Depends) and the checks need.
DEB_NEEDS="build-essential dpkg-dev debhelper dh-dkms dkms lintian pkg-config rsync"

# deb_deps: install what is missing; false when it cannot.
deb_deps() {
	local p missing="" log=$deb_out/apt.log
	for p in $DEB_NEEDS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		hook_result ok "build and check tools present ($DEB_NEEDS)"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		hook_result fail "build and check tools" "missing$missing (run as root or install them)"
		return 1
	fi
	# shellcheck disable=SC2086 # a list of packages
	if DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >>"$log" 2>&1; then
		hook_result ok "build and check tools: installed$missing"
	else
		hook_result fail "build and check tools" "apt-get install$missing failed (log: ${log#"$CHECK"/})"
		return 1
	fi
}

# deb_build: the packages, from a copy of the tree, into $hook_work.
deb_build() {
	local src=$hook_work/hwtimer-$hook_ver log=$deb_out/build.log rc=0 t0=$SECONDS
	local p f missing="" changelog tests
	hook_copy_tree "$src"
	changelog=$(cd "$src" && dpkg-parsechangelog -S Version)
	(cd "$src" && dpkg-buildpackage -b -us -uc) >"$log" 2>&1 || rc=$?
	for p in "hwtimer-dkms_${hook_ver}_all" "libhwtimer1_${hook_ver}_$deb_arch" \
		"libhwtimer-dev_${hook_ver}_$deb_arch" "hwtimer-tools_${hook_ver}_$deb_arch"; do
		f=$hook_work/$p.deb
		[ -f "$f" ] || missing="$missing $p.deb"
		deb_debs="$deb_debs $f"
	done
	tests=$(grep -E -m1 '^# [0-9]+ of [0-9]+ checks failed' "$log" || true)
	if [ "$rc" != 0 ] || [ -n "$missing" ]; then
		hook_result fail "dpkg-buildpackage -b -us -uc" \
			"rc $rc${missing:+, missing$missing} (log: ${log#"$CHECK"/})"
		return 1
	fi
	hook_result ok "dpkg-buildpackage -b -us -uc: 4 packages of hwtimer $changelog ($((SECONDS - t0)) s)"
	if [ "$changelog" = "$hook_ver" ]; then
		hook_result ok "debian/changelog's version is the uapi header's ($hook_ver)"
	else
		hook_result fail "debian/changelog's version" "$changelog, the uapi header says $hook_ver"
	fi
	if [ "$tests" = "# 0 of ${tests##* of }" ] && grep -q '^1\.\.[0-9]' "$log"; then
		hook_result ok "library tests in the build: timerfd backend ($tests), fake kernel ($(grep -m1 '^1\.\.[0-9]' "$log"))"
	else
		hook_result fail "library tests in the build" "'$tests' (log: ${log#"$CHECK"/})"
	fi
}

# deb_lintian: no error or warning, no hardening tag; all tags printed.
deb_lintian() {
	local log=$deb_out/lintian.log n_e n_w hard tags
	lintian -I --pedantic "$hook_work/hwtimer_${hook_ver}_$deb_arch.changes" \
		>"$log" 2>&1 || true
	grep -v 'running with root privileges' "$log" | sed 's/^/    lintian: /'
	n_e=$(grep -c '^E: ' "$log" || true)
	n_w=$(grep -c '^W: ' "$log" || true)
	hard=$(grep -o 'hardening-[a-z-]*' "$log" | sort -u | tr '\n' ' ' || true)
	tags=$(grep -E '^[IPX]: ' "$log" | awk '{ print $3 }' | sort | uniq -c |
		awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }' || true)
	if [ "$n_e" = 0 ] && [ "$n_w" = 0 ] && [ -z "$hard" ]; then
		hook_result ok "lintian --pedantic -I on .changes, .buildinfo and 4 .debs: 0 errors, 0 warnings, no hardening tag (others: ${tags:-none})"
	else
		hook_result fail "lintian" "$n_e errors, $n_w warnings${hard:+, $hard} (log: ${log#"$CHECK"/})"
	fi
}

# deb_owner FILE: the package meant to hold make install's FILE.
deb_owner() {
	case $1 in
	usr/src/* | usr/lib/modules-load.d/*) echo hwtimer-dkms ;;
	usr/lib/*/libhwtimer.so.*) echo libhwtimer1 ;;
	usr/include/* | usr/lib/*/libhwtimer.* | usr/lib/*/pkgconfig/* | \
		usr/share/man/man3/*) echo libhwtimer-dev ;;
	*) echo hwtimer-tools ;;
	esac
}

# deb_layout: make install's files, each in its package, nothing more
# but docs, lintian overrides and the DKMS tree; links, man pages,
# hwtimer.pc.
deb_layout() {
	local f p d=$deb_root lib=usr/lib/$deb_ma missing="" misplaced="" extra
	local so=libhwtimer.so.${hook_ver%%.*} n=0 bad=""
	local -a want
	mapfile -t want < <(hook_install_files "$hook_ver" "$lib" |
		sed 's,^\(usr/share/man/.*\),\1.gz,')
	for f in "${want[@]}"; do
		n=$((n + 1))
		p=$(deb_owner "$f")
		if [ ! -e "$d/$f" ] && [ ! -L "$d/$f" ]; then
			missing="$missing $f"
		elif ! grep -qxF "./$f" "$deb_out/contents-$p"; then
			misplaced="$misplaced $f (not in $p)"
		fi
	done
	extra=$(cd "$d" && find . ! -type d | sed 's,^\./,,' |
		grep -v -e "^usr/share/doc/" -e "^usr/share/lintian/overrides/" \
			-e "^usr/src/hwtimer-$hook_ver/" |
		grep -vxF -f <(printf '%s\n' "${want[@]}") | tr '\n' ' ')
	if [ -n "$missing$misplaced$extra" ]; then
		hook_result fail "package contents as make install's" \
			"${missing:+missing$missing; }${misplaced:+misplaced$misplaced; }${extra:+not expected: $extra}"
	elif [ "$(readlink "$d/$lib/$so")" != "libhwtimer.so.$hook_ver" ] ||
		[ "$(readlink "$d/$lib/libhwtimer.so")" != "$so" ]; then
		hook_result fail "package contents: libhwtimer links" \
			"$so -> $(readlink "$d/$lib/$so"), libhwtimer.so -> $(readlink "$d/$lib/libhwtimer.so")"
	else
		hook_result ok "package contents are make install PREFIX=/usr LIBDIR=/$lib MODULES_LOAD=1's ($n files, module and Module.symvers aside), each in its package, no other file but docs and the DKMS tree"
	fi
	for f in "$d"/usr/share/man/man*/*.gz; do
		zcat "$f" | grep -q "^\.TH .*$hook_ver" || bad="$bad ${f##*/}"
	done
	grep -qx "libdir=/$lib" "$d/$lib/pkgconfig/hwtimer.pc" || bad="$bad hwtimer.pc"
	for f in "$TOP"/tools/lib/hwtimer/examples/*.c; do
		cmp -s "$f" "$d/usr/share/doc/libhwtimer-dev/examples/${f##*/}" ||
			bad="$bad examples/${f##*/}"
	done
	if [ -z "$bad" ]; then
		hook_result ok "man pages carry $hook_ver, hwtimer.pc libdir=/$lib, libhwtimer-dev's examples are tools/lib/hwtimer/examples/"
	else
		hook_result fail "man pages, hwtimer.pc, examples" "$bad"
	fi
}

# deb_dkms_tree: hwtimer-dkms's /usr/src/hwtimer-VERSION is make
# dkms-source's, of the same copy of the tree, and dh_dkms's postinst
# registers that version.
deb_dkms_tree() {
	local ref=$hook_work/ref diff n
	make -C "$hook_work/hwtimer-$hook_ver" dkms-source DESTDIR="$ref" \
		>"$deb_out/dkms-source.log" 2>&1
	diff=$(diff -r "$ref/usr/src/hwtimer-$hook_ver" \
		"$deb_root/usr/src/hwtimer-$hook_ver" 2>&1 | head -5 | tr '\n' ' ')
	n=$(find "$ref/usr/src/hwtimer-$hook_ver" -type f | wc -l)
	if [ -z "$diff" ] && [ "$n" -gt 0 ] &&
		grep -q "DKMS_VERSION=$hook_ver" "$deb_out/postinst-hwtimer-dkms"; then
		hook_result ok "hwtimer-dkms: /usr/src/hwtimer-$hook_ver is make dkms-source's ($n files, same content); postinst: dkms for hwtimer $hook_ver"
	else
		hook_result fail "hwtimer-dkms's source tree" "${diff:-postinst does not name $hook_ver}"
	fi
}

# deb_dkms_add: the package's source tree added to the private DKMS tree.
deb_dkms_add() {
	local log=$deb_out/dkms-add.log
	mkdir -p "$hook_work/dkms"
	if hook_dkms_env dkms add -m hwtimer -v "$hook_ver" \
		--dkmstree "$hook_work/dkms" --sourcetree "$deb_root/usr/src" \
		>"$log" 2>&1; then
		return 0
	fi
	hook_result fail "dkms add of hwtimer-dkms's source" "(log: ${log#"$CHECK"/})"
	return 1
}

# deb_dkms K: DKMS builds the package's source for kernel K on the private
# trees; the consumer builds against the package's headers.
deb_dkms() {
	local k=$1 base ko v rc=0 log=$deb_out/dkms-$1.log t0=$SECONDS
	base=$hook_work/dkms/hwtimer/$hook_ver/$k/$(uname -m)
	hook_dkms_env dkms build -m hwtimer -v "$hook_ver" -k "$k" \
		--dkmstree "$hook_work/dkms" --sourcetree "$deb_root/usr/src" \
		>"$log" 2>&1 || rc=$?
	ko=$(find "$base/module" -name 'hwtimer.ko*' 2>/dev/null | head -1)
	v=$(modinfo -F version "$ko" 2>/dev/null || true)
	if [ "$rc" != 0 ] || [ "$v" != "$hook_ver" ] || [ ! -s "$base/Module.symvers" ]; then
		hook_result fail "$k: dkms build of hwtimer-dkms" \
			"rc $rc, module version '$v' (log: ${log#"$CHECK"/})"
		return
	fi
	hook_result ok "$k: dkms build of hwtimer-dkms's source: version $v, Module.symvers kept ($((SECONDS - t0)) s)"
	hook_consumer "$k: consumer module builds against hwtimer-dkms's headers (-I/usr/src/hwtimer-$hook_ver) and the DKMS build" \
		"/lib/modules/$k/build" "$deb_root/usr/src/hwtimer-$hook_ver" \
		"$base/Module.symvers" "$deb_out/consumer-$k.log"
}

# deb_unpack: every package (debug symbols aside) into deb_root, with
# its file list and maintainer scripts.
deb_unpack() {
	local f p
	for f in $deb_debs; do
		p=${f##*/}
		p=${p%%_*}
		dpkg-deb -x "$f" "$deb_root" &&
			dpkg-deb -c "$f" | awk '{ print $6 }' >"$deb_out/contents-$p" &&
			{ dpkg-deb -I "$f" postinst >"$deb_out/postinst-$p" 2>/dev/null || true; } ||
			return 1
	done
}

deb_check_hook() {
	local deb_out=$CHECK/deb hook_tap hook_n=0 hook_work hook_ver deb_root
	local deb_arch deb_ma deb_debs="" before kdir k t0=$SECONDS
	hook_tap=$deb_out/deb.tap
	rm -rf "$deb_out"
	mkdir -p "$deb_out"
	: >"$hook_tap"
	hook_work=$(mktemp -d "${TMPDIR:-/tmp}/hwtimer-deb.XXXXXX")
	hook_ver=$(make -s -C "$TOP" print-version)
	deb_root=$hook_work/root
	say "deb: Debian packages of hwtimer $hook_ver: build, lintian, contents, DKMS and consumer builds"
	before=$(hook_host_state)

	if deb_deps; then
		deb_arch=$(dpkg-architecture -qDEB_HOST_ARCH)
		deb_ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
		if deb_build; then
			deb_lintian
			if deb_unpack; then
				deb_layout
				deb_dkms_tree
				hook_libhwtimer "libhwtimer-dev" "$deb_root" "usr/lib/$deb_ma" \
					"$deb_root/usr/share/doc/libhwtimer-dev/examples/three.c" \
					shared "$deb_out/libhwtimer-shared.log"
				hook_libhwtimer "libhwtimer-dev" "$deb_root" "usr/lib/$deb_ma" \
					"$deb_root/usr/share/doc/libhwtimer-dev/examples/three.c" \
					static "$deb_out/libhwtimer-static.log"
				deb_dkms_add &&
				for kdir in /lib/modules/*/build; do
					k=$(basename "$(dirname "$kdir")")
					if [ ! -f "$kdir/Makefile" ]; then
						continue
					elif [[ $k =~ $HOOK_SUPPORTED ]]; then
						deb_dkms "$k"
					else
						hook_result skip "$k: dkms build of hwtimer-dkms" "not a supported kernel"
					fi
				done
			else
				hook_result fail "dpkg-deb -x of the packages" "into ${deb_root#"$hook_work"/}"
			fi
		fi
	fi

	hook_finish deb "$before" "$t0"
}

deb_check_hook || true
