# shellcheck shell=bash
# Sourced by tools/vm/check.sh before the VMs boot, in its scope (CHECK,
# TOP, RESULTS, say, fail_step). Checks that hwtimer installs like a
# package, on the host and loading nothing, for every kernel with headers
# in /lib/modules/*/build:
#  - make install DESTDIR=... PREFIX=/usr MODULES_LOAD=1 lays out the
#    module (version, vermagic, depmod's index, /dev/hwtimer in
#    modules.devname), hwtimerctl, the uapi header, the man pages, the udev
#    rule, the modules-load.d file, the kernel-side development files, and
#    libhwtimer (shared library, soname links, static library, header,
#    hwtimer.pc, section-3 pages), and nothing else under usr/; no other
#    module (sample, KUnit) is installed;
#  - a program outside the repository builds against that libhwtimer with
#    only what pkg-config says of DESTDIR, and runs;
#  - a copy of samples/hwtimer_sample.c, in a directory outside the
#    repository, builds against those installed files alone
#    (KBUILD_EXTRA_SYMBOLS), with nothing undefined;
#  - make dkms-source DESTDIR=... lays out only what the module build
#    needs, with the version in dkms.conf;
#  - make install-dkms with dkms on private trees (DKMS=) builds and
#    installs for every supported kernel and is refused (dkms exit 77,
#    counted as a skip) for any other, a fake 5.10 one included; the same
#    consumer builds against each DKMS build;
#  - make uninstall and make uninstall-dkms leave no file behind, and the
#    host's DKMS tree, /usr/src and /lib/modules are left alone.
# One check is one line of build/check/install/install.tap, counted as
# "install". Never fails the sourcing script.

# shellcheck source=tools/install/hook-lib.sh
. "$TOP/tools/install/hook-lib.sh"

# install_layout K REL: make install's files for kernel release REL:
# each one there, and nothing else under usr/ (earlier kernels' installs
# share DESTDIR and add only their own usr/src/hwtimer-*/RELEASE/).
install_layout() {
	local k=$1 rel=$2 d=$install_dest missing="" extra f so
	so=libhwtimer.so.${install_ver%%.*}
	local -a want
	mapfile -t want < <(echo "lib/modules/$rel/updates/hwtimer.ko"
		echo "usr/src/hwtimer-$install_ver/$rel/Module.symvers"
		hook_install_files "$install_ver" usr/lib)
	for f in "${want[@]}"; do
		[ -f "$d/$f" ] || missing="$missing $f"
	done
	extra=$(cd "$d" && find usr ! -type d | grep -v \
		"^usr/src/hwtimer-$install_ver/[^/]*/Module.symvers$" |
		grep -vxF -f <(printf '%s\n' "${want[@]}") | tr '\n' ' ')
	if [ -n "$missing" ]; then
		hook_result fail "$k: installed files" "missing$missing"
	elif [ -n "$extra" ]; then
		hook_result fail "$k: installed files" "not expected: $extra"
	elif [ "$(readlink "$d/usr/lib/$so")" != "libhwtimer.so.$install_ver" ] ||
		[ "$(readlink "$d/usr/lib/libhwtimer.so")" != "$so" ]; then
		hook_result fail "$k: installed files" \
			"libhwtimer links: $so -> $(readlink "$d/usr/lib/$so"), libhwtimer.so -> $(readlink "$d/usr/lib/libhwtimer.so")"
	else
		hook_result ok "$k: installed files (${#want[@]}, no other; man pages:${install_mans:- none})"
	fi
}

# install_module_checks K REL: the installed module and depmod's index.
install_module_checks() {
	local k=$1 rel=$2 d=$install_dest ko v magic others syms
	ko=$d/lib/modules/$rel/updates/hwtimer.ko
	v=$(modinfo -F version "$ko" 2>/dev/null || true)
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1 || true)
	if [ "$v" = "$install_ver" ] && [ "$magic" = "$rel" ]; then
		hook_result ok "$k: modinfo: version $v, vermagic $magic"
	else
		hook_result fail "$k: modinfo" \
			"version '$v' (want $install_ver), vermagic '$magic' (want $rel)"
	fi
	# Earlier kernels' installs share DESTDIR: their hwtimer.ko is fine.
	others=$(cd "$d" && find . -name '*.ko*' | sed 's,^\./,,' |
		grep -v '^lib/modules/[^/]*/updates/hwtimer\.ko$' | tr '\n' ' ')
	if [ -z "$others" ]; then
		hook_result ok "$k: hwtimer.ko is the only module installed (no sample, no KUnit)"
	else
		hook_result fail "$k: only hwtimer.ko installed" "also $others"
	fi
	if grep -q "^updates/hwtimer.ko:" "$d/lib/modules/$rel/modules.dep" 2>/dev/null; then
		hook_result ok "$k: depmod -b DESTDIR lists updates/hwtimer.ko"
	else
		hook_result fail "$k: depmod index" "modules.dep does not list updates/hwtimer.ko"
	fi
	if ! modinfo -F alias "$ko" 2>/dev/null | grep -qx 'devname:hwtimer'; then
		hook_result skip "$k: modules.devname" "module has no devname:hwtimer alias"
	elif grep -q '^hwtimer hwtimer c10:' "$d/lib/modules/$rel/modules.devname"; then
		hook_result ok "$k: modules.devname: $(grep '^hwtimer ' \
			"$d/lib/modules/$rel/modules.devname") (first open loads it)"
	else
		hook_result fail "$k: modules.devname" "no hwtimer entry"
	fi
	syms=$d/usr/src/hwtimer-$install_ver/$rel/Module.symvers
	if [ -s "$syms" ] && ! cut -f3 "$syms" | grep -qvx hwtimer &&
		[ "$(wc -l <"$syms")" = "$(wc -l <"$install_src/Module.symvers")" ]; then
		hook_result ok "$k: Module.symvers: $(wc -l <"$syms") symbols of module hwtimer"
	else
		hook_result fail "$k: installed Module.symvers" \
			"empty, short, or naming another module than hwtimer"
	fi
}

# install_hwtimerctl: the installed hwtimerctl runs and knows its version.
install_hwtimerctl() {
	local out rc=0
	out=$("$install_dest/usr/bin/hwtimerctl" --version 2>&1) || rc=$?
	if [ "$rc" = 0 ] && grep -qF "$install_ver" <<<"$out"; then
		hook_result ok "installed hwtimerctl --version: $(head -1 <<<"$out")"
	else
		hook_result fail "installed hwtimerctl --version" "rc $rc: $(head -1 <<<"$out")"
	fi
}

# install_man_pages: the installed pages format without a groff warning
# and carry the release in their footer.
install_man_pages() {
	local m bad="" n=0
	for m in "$install_dest"/usr/share/man/man*/*; do
		[ -f "$m" ] || continue
		n=$((n + 1))
		if [ -n "$(groff -man -Tutf8 -ww -z "$m" 2>&1)" ]; then
			bad="$bad ${m##*/} (groff warnings)"
		elif ! grep -q "^\.TH .*$install_ver" "$m"; then
			bad="$bad ${m##*/} (no $install_ver in .TH)"
		fi
	done
	if [ "$n" = 0 ]; then
		hook_result skip "installed man pages" "no man/*.[1-9] in the tree"
	elif [ -n "$bad" ]; then
		hook_result fail "installed man pages" "$bad"
	else
		hook_result ok "installed man pages ($n): no groff -ww warning, release $install_ver in the footer"
	fi
}

# install_dkms_result K: what make install-dkms did for kernel K: built,
# installed and Module.symvers kept for a supported kernel, refused (a
# skip) for any other.
install_dkms_result() {
	local k=$1 base ko v log=${install_out#"$CHECK"/}/install-dkms.log
	base=$hook_work/dkms/hwtimer/$install_ver/$k/$(uname -m)
	ko=$(find "$hook_work/lib/modules/$k" -name 'hwtimer.ko*' 2>/dev/null | head -1)
	if ! [[ $k =~ $HOOK_SUPPORTED ]]; then
		if [ -n "$ko" ] || [ -d "$base" ]; then
			hook_result fail "$k: make install-dkms" "built for a kernel outside the supported set"
		elif grep -q "^hwtimer: $k is not a supported kernel, skipped" \
			"$install_out/install-dkms.log"; then
			hook_result skip "$k: make install-dkms" "not a supported kernel (BUILD_EXCLUSIVE, dkms exit 77)"
		else
			hook_result fail "$k: make install-dkms" "no word of $k (log: $log)"
		fi
		return
	fi
	v=$(modinfo -F version "$ko" 2>/dev/null || true)
	if [ -z "$ko" ]; then
		hook_result fail "$k: make install-dkms" "no module installed (log: $log)"
	elif [ "$v" != "$install_ver" ] || [ ! -s "$base/Module.symvers" ]; then
		hook_result fail "$k: make install-dkms" \
			"module version '$v', Module.symvers $([ -s "$base/Module.symvers" ] && echo kept || echo missing)"
	else
		hook_result ok "$k: make install-dkms: ${ko#"$hook_work"/lib/modules/} version $v, Module.symvers kept"
		hook_consumer "$k: consumer module builds against the DKMS build" \
			"/lib/modules/$k/build" "$install_dkms_src" \
			"$base/Module.symvers" "$install_out/consumer-dkms-$k.log"
	fi
}

# install_dkms_make TARGET: make TARGET with dkms on the private trees
# (--no-depmod: the modules go to the private install tree), signing with a
# key made for this run (dkms would otherwise create /var/lib/dkms/mok.*).
install_dkms_make() {
	hook_dkms_env make -C "$TOP" "$1" KSRCDIR="$install_dkms_src" \
		DKMS="dkms --dkmstree $hook_work/dkms --sourcetree $hook_work/usr/src --installtree $hook_work/lib/modules --no-depmod"
}

# install_dkms_checks: make install-dkms for every kernel, a fake
# unsupported one refused, make uninstall-dkms.
install_dkms_checks() {
	local kdir k rc=0 t0=$SECONDS log=$install_out/install-dkms.log left
	install_dkms_src=$hook_work/usr/src/hwtimer-$install_ver
	mkdir -p "$hook_work/dkms"
	for kdir in /lib/modules/*/build; do
		[ -f "$kdir/Makefile" ] &&
			mkdir -p "$hook_work/lib/modules/$(basename "$(dirname "$kdir")")"
	done
	install_dkms_make install-dkms >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		hook_result fail "make install-dkms" "rc $rc (log: ${log#"$CHECK"/})"
	else
		say "install: make install-dkms for every kernel: $((SECONDS - t0)) s"
		for kdir in /lib/modules/*/build; do
			[ -f "$kdir/Makefile" ] &&
				install_dkms_result "$(basename "$(dirname "$kdir")")"
		done
	fi
	# An unsupported kernel with fake headers: refused before any build;
	# dkms 3.0.10 exits 77 for a BUILD_EXCLUSIVE mismatch.
	mkdir -p "$hook_work/fake-headers"
	rc=0
	hook_dkms_env dkms build -m hwtimer -v "$install_ver" -k 5.10.0-99-amd64 \
		--kernelsourcedir "$hook_work/fake-headers" \
		--dkmstree "$hook_work/dkms" --sourcetree "$hook_work/usr/src" \
		>"$install_out/dkms-5.10.0-99-amd64.log" 2>&1 || rc=$?
	if [ "$rc" = 77 ]; then
		hook_result skip "5.10.0-99-amd64 (fake headers): dkms build" \
			"not a supported kernel (BUILD_EXCLUSIVE, dkms exit 77)"
	else
		hook_result fail "5.10.0-99-amd64: dkms build must be refused with 77" "rc $rc"
	fi
	rc=0
	install_dkms_make uninstall-dkms >"$install_out/uninstall-dkms.log" 2>&1 ||
		rc=$?
	left=$(find "$hook_work/dkms" "$hook_work/lib/modules" \
		"$hook_work/usr" -type f | sed "s,^$hook_work/,," | head -5 | tr '\n' ' ')
	if [ "$rc" = 0 ] && [ -z "$left" ]; then
		hook_result ok "make uninstall-dkms: dkms remove --all, source tree gone, no file left"
	else
		hook_result fail "make uninstall-dkms" "rc $rc, left: $left"
	fi
}

# install_per_kernel KDIR: install, files, module and consumer for one kernel.
install_per_kernel() {
	local kdir=$1 k rel src log rc=0 t0=$SECONDS
	k=$(basename "$(dirname "$kdir")")
	rel=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		"$kdir/include/generated/utsrelease.h" 2>/dev/null)
	src=$hook_work/src-$k
	install_src=$src
	log=$install_out/install-$k.log
	hook_copy_tree "$src"
	make -C "$src" -j"${JOBS:-$(nproc)}" install KDIR="$kdir" \
		DESTDIR="$install_dest" PREFIX=/usr MODULES_LOAD=1 >"$log" 2>&1 ||
		rc=$?
	if [ "$rc" != 0 ]; then
		hook_result fail "$k: make install DESTDIR=... PREFIX=/usr MODULES_LOAD=1" \
			"rc $rc (log: ${log#"$CHECK"/})"
		return
	fi
	hook_result ok "$k: make install DESTDIR=... PREFIX=/usr MODULES_LOAD=1 ($((SECONDS - t0)) s)"
	install_installed="$install_installed $k"
	install_layout "$k" "$rel"
	install_module_checks "$k" "$rel"
	hook_consumer "$k: consumer module builds against the installed files only" \
		"$kdir" "$install_dest/usr/src/hwtimer-$install_ver" \
		"$install_dest/usr/src/hwtimer-$install_ver/$rel/Module.symvers" \
		"$install_out/consumer-$k.log"
}

# install_mod_path K: INSTALL_MOD_PATH, when given, takes the module from
# DESTDIR; uninstall finds it there again. Reuses K's build.
install_mod_path() {
	local src=$hook_work/src-$1 kdir=/lib/modules/$1/build rc=0
	local a=$hook_work/mp-dest b=$hook_work/mp-mods
	local log=$install_out/install-mod-path.log
	{
		make -C "$src" install KDIR="$kdir" DESTDIR="$a" \
			INSTALL_MOD_PATH="$b" PREFIX=/usr &&
			[ -z "$(find "$a" -name '*.ko')" ] &&
			[ -n "$(find "$b" -name hwtimer.ko)" ] &&
			make -C "$src" uninstall KDIR="$kdir" DESTDIR="$a" \
				INSTALL_MOD_PATH="$b" PREFIX=/usr &&
			[ -z "$(find "$a" "$b" ! -type d)" ]
	} >"$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		hook_result ok "INSTALL_MOD_PATH takes the module out of DESTDIR; uninstall empties both"
	else
		hook_result fail "INSTALL_MOD_PATH with DESTDIR" "(log: ${log#"$CHECK"/})"
	fi
}

# install_dkms_source: make dkms-source DESTDIR=..., as a package would
# lay it out: only what the module build needs, dkms.conf with the
# version; make uninstall-dkms DESTDIR=... removes it all.
install_dkms_source() {
	local root=$hook_work/dkmsroot log=$install_out/dkms-source.log extra
	local dir=$root/usr/src/hwtimer-$install_ver rc=0
	if ! make -C "$TOP" dkms-source DESTDIR="$root" >"$log" 2>&1; then
		hook_result fail "make dkms-source DESTDIR=..." "(log: ${log#"$CHECK"/})"
		return
	fi
	extra=$(cd "$dir" && find . -type f | grep -E '^\./(samples|kunit|docs|man|tools/(vm|stress|bench|testing|hwtimerctl))/|\.(o|ko|cmd)$' | tr '\n' ' ')
	if ! grep -qx "PACKAGE_VERSION=\"$install_ver\"" "$dir/dkms.conf"; then
		hook_result fail "make dkms-source DESTDIR=..." "dkms.conf has no PACKAGE_VERSION=\"$install_ver\""
	elif [ -n "$extra" ]; then
		hook_result fail "make dkms-source DESTDIR=..." "carries more than the module build needs: $extra"
	else
		hook_result ok "make dkms-source DESTDIR=...: hwtimer-$install_ver/ ($(find "$dir" -type f | wc -l) files), PACKAGE_VERSION $install_ver"
	fi
	make -C "$TOP" uninstall-dkms DESTDIR="$root" >>"$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && [ -z "$(find "$root" -type f)" ]; then
		hook_result ok "make uninstall-dkms DESTDIR=...: no file left"
	else
		hook_result fail "make uninstall-dkms DESTDIR=..." "rc $rc, left: $(find "$root" -type f | head -5 | tr '\n' ' ')"
	fi
}

install_check_hook() {
	local install_out=$CHECK/install hook_tap hook_n=0 hook_work hook_ver
	local install_dest install_ver install_src="" install_installed=""
	local install_dkms_src="" install_mans before kdir k rc t0=$SECONDS
	hook_tap=$install_out/install.tap
	rm -rf "$install_out"
	mkdir -p "$install_out"
	: >"$hook_tap"
	hook_work=$(mktemp -d "${TMPDIR:-/tmp}/hwtimer-install.XXXXXX")
	install_dest=$hook_work/dest
	install_ver=$(make -s -C "$TOP" print-version)
	hook_ver=$install_ver
	install_mans=""
	for k in "$TOP"/man/*.[1-9] "$TOP"/tools/lib/hwtimer/man/*.3; do
		[ -f "$k" ] && install_mans="$install_mans ${k##*/}"
	done
	before=$(hook_host_state)
	say "install: make install/uninstall, consumer and DKMS builds of hwtimer $install_ver for every kernel with headers"

	for kdir in /lib/modules/*/build; do
		[ -f "$kdir/Makefile" ] && install_per_kernel "$kdir"
	done
	if [ -z "$install_installed" ]; then
		hook_result fail "make install" "no kernel headers in /lib/modules/*/build, or every install failed"
	else
		install_hwtimerctl
		hook_libhwtimer "installed libhwtimer" "$install_dest" usr/lib \
			"$TOP/tools/lib/hwtimer/examples/three.c" shared \
			"$install_out/libhwtimer.log"
		install_man_pages
		read -r k _ <<<"$install_installed"
		install_mod_path "$k"
	fi

	install_dkms_source
	if command -v dkms >/dev/null; then
		install_dkms_checks
	else
		hook_result skip "make install-dkms" "dkms is not installed (tools/vm/deps.sh installs it)"
	fi

	# Uninstall for every kernel installed for: then nothing is left,
	# not even depmod's index files.
	if [ -n "$install_installed" ]; then
		rc=0
		for k in $install_installed; do
			make -C "$hook_work/src-$k" uninstall KDIR="/lib/modules/$k/build" \
				DESTDIR="$install_dest" PREFIX=/usr \
				>>"$install_out/uninstall.log" 2>&1 || rc=$?
		done
		if [ "$rc" = 0 ] && [ -z "$(find "$install_dest" ! -type d)" ]; then
			hook_result ok "make uninstall DESTDIR=... for$install_installed: no file or link left"
		else
			hook_result fail "make uninstall DESTDIR=..." "rc $rc, left: $(find "$install_dest" ! -type d | sed "s,^$install_dest/,," | head -5 | tr '\n' ' ')"
		fi
	fi

	hook_finish install "$before" "$t0"
}

install_check_hook || true
