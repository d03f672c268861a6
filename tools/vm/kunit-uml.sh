#!/bin/bash
# make kunit-uml: run the KUnit suites with the kernel's kunit.py on User Mode
# Linux. hwtimer is dropped into drivers/misc/hwtimer of a scratch copy of
# the source tree (the unpacked tree itself is never touched); the copy and
# its build directory are kept in the cache, so later runs are incremental.
#
# Usage: kunit-uml.sh [--ktap FILE] [kunit.py run options]
#   --ktap FILE  also copy the UML kernel's output (its KTAP results) to
#                FILE; empty if no kernel ran (make check counts it)
# Exit status: kunit.py's, non-zero on a failed build or any failed case.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ktap=""
if [ "${1:-}" = --ktap ]; then
	ktap=$(realpath -m "${2:?--ktap needs a file}")
	shift 2
fi

src=$(source_dir 6.1)
scratch=$HWTIMER_CACHE/kunit-uml-$(src_version 6.1)/linux
# One run at a time per cached tree (make check in another work tree too).
mkdir -p "$(dirname "$scratch")"
exec 8>"$(dirname "$scratch")/.lock"
flock -n 8 || {
	echo "kunit-uml: waiting for another run in $(dirname "$scratch")" >&2
	flock 8
}
if [ ! -f "$src/Makefile" ]; then
	echo "kunit-uml: unpacking linux-source $(src_version 6.1)" >&2
	mkdir -p "$(dirname "$src")"
	tar -C "$(dirname "$src")" -xf /usr/src/linux-source-6.1.tar.xz
fi
if [ ! -f "$scratch/.hwtimer-hooked" ]; then
	echo "kunit-uml: copying the source tree to $scratch" >&2
	rm -rf "$scratch"
	mkdir -p "$scratch"
	cp -a "$src/." "$scratch/"
	# Hook drivers/misc/hwtimer into Kconfig (before the last endmenu)
	# and the Makefile, as an in-tree driver would be.
	k=$scratch/drivers/misc/Kconfig
	[ "$(tail -1 "$k")" = endmenu ] || {
		echo "kunit-uml: $k does not end in endmenu" >&2
		exit 1
	}
	sed -i '$d' "$k"
	printf 'source "drivers/misc/hwtimer/Kconfig"\nendmenu\n' >>"$k"
	# shellcheck disable=SC2016 # a make variable, not a shell one
	echo 'obj-$(CONFIG_HWTIMER) += hwtimer/' >>"$scratch/drivers/misc/Makefile"
	touch "$scratch/.hwtimer-hooked"
fi

# The kernel parts only: objects, headers, Kbuild/Kconfig, KUnit suites.
# A file is rewritten only if its content differs, and then gets the time
# of the copy, not its own: a file older than the copy's object (another
# work tree, an older commit) must rebuild it too.
rsync -a --no-times --checksum --delete --exclude=/build/ --exclude=/.git/ \
	--exclude=/tools/ --exclude=/samples/ --exclude=/.ci/ --exclude='*.o' \
	--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude=Module.symvers --exclude=modules.order \
	"$TOP/" "$scratch/drivers/misc/hwtimer/"

cd "$scratch"
# compat/hwtimer_compat.h needs the feature probes' answers. As README says
# of any in-tree build, compat/conftest.sh runs once against the object
# tree, here the UML one (prepared for external modules; ARCH=um reaches
# kbuild through the environment); kbuild is pointed at the result with
# HWTIMER_CONFTEST_DIR, as the top-level Makefile does out of tree. The
# probes run again only when they or the tree's configuration change.
# Kept beside the copy, where the rsync above does not reach.
conftest=$(dirname "$scratch")/conftest
compat=drivers/misc/hwtimer/compat
opts=(--arch=um --build_dir=.kunit --kunitconfig="$TOP/kunit/.kunitconfig"
	--make_options="HWTIMER_CONFTEST_DIR=$conftest")
python3 tools/testing/kunit/kunit.py config "${opts[@]}"
if [ ! -f "$conftest/hwtimer_conftest.h" ] ||
	[ -n "$(find .kunit/.config "$compat/conftest.sh" "$compat/probes" \
		-newer "$conftest/hwtimer_conftest.h")" ]; then
	echo "kunit-uml: running the feature probes against the UML tree" >&2
	make ARCH=um O=.kunit --jobs="$JOBS" modules_prepare >/dev/null
	ARCH=um "$compat/conftest.sh" "$PWD/.kunit" "$conftest"
fi
rm -f .kunit/test.log
rc=0
python3 tools/testing/kunit/kunit.py run "${opts[@]}" --jobs="$JOBS" "$@" ||
	rc=$?
if [ -n "$ktap" ]; then
	if [ -f .kunit/test.log ]; then
		cp .kunit/test.log "$ktap"
	else
		: >"$ktap"
	fi
fi
exit "$rc"
