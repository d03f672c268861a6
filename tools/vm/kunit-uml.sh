#!/bin/bash
# make kunit-uml: run the KUnit suites with the kernel's kunit.py on User Mode
# Linux. hwtimer is dropped into drivers/misc/hwtimer of a scratch copy of
# the source tree (the unpacked tree itself is never touched); the copy and
# its build directory are kept in the cache, so later runs are incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$(source_dir)
scratch=$HWTIMER_CACHE/kunit-uml-$(src_version)/linux
if [ ! -f "$src/Makefile" ]; then
	echo "kunit-uml: unpacking linux-source $(src_version)" >&2
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
rsync -a --delete --exclude=/build/ --exclude=/.git/ --exclude=/tools/ \
	--exclude=/samples/ --exclude=/.ci/ --exclude='*.o' --exclude='*.ko' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
	--exclude=Module.symvers --exclude=modules.order \
	"$TOP/" "$scratch/drivers/misc/hwtimer/"

cd "$scratch"
exec python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir=.kunit --jobs="$JOBS" \
	--kunitconfig="$TOP/kunit/.kunitconfig" "$@"
