# SPDX-License-Identifier: GPL-2.0
# hwtimer: user entry points. The objects are listed in Kbuild.
#
#   make [KDIR=...]      hwtimer.ko (+ kunit/hwtimer_kunit.ko when the target
#                        kernel has KUnit) and the sample consumer module
#   make install         module, hwtimerctl, libhwtimer, headers, man pages,
#                        udev rule (DESTDIR, PREFIX; make uninstall;
#                        make install-dkms: see tools/install/install.mk)
#   make deb             the Debian packages (hwtimer-dkms, libhwtimer1,
#                        libhwtimer-dev, hwtimer-tools) into build/deb/,
#                        built from a copy of the tree (debian/)
#   make tools           hwtimerctl and the selftests into $(TOOLS_O)
#   make check           everything, in qemu VMs (see tools/vm/check.sh)
#   make demo            boot Debian's kernel in a VM and run the demo
#   make bench           benchmarks against timer_list, hrtimer, delayed_work
#                        and timerfd in a VM (see tools/bench/bench.sh)
#   make checkpatch      scripts/checkpatch.pl --strict over every .c/.h
#   make kunit-uml       the KUnit suites under kunit.py --arch=um
#   make soak            the reliability tests for minutes (SOAK_SECS each)
#   make fuzz            long libFuzzer run of the wheel core (FUZZ_SECS)
#   make check-kcsan     the reliability tests on a KCSAN debug kernel
#   make clean

KDIR ?= /lib/modules/$(shell uname -r)/build
INSTALL_MOD_PATH ?=
BUILD ?= $(CURDIR)/build
TOOLS_O ?= $(BUILD)/tools
STATIC ?=

# Build the KUnit module only for kernels that have KUnit.
KUNIT := $(shell grep -qsE '^CONFIG_KUNIT=(y|m)' $(KDIR)/.config && echo m)
# Feature probes of KDIR's headers (compat/conftest.sh), one directory per
# kernel tree, redone when the probes or the kernel's configuration change.
CONFTEST_O := $(BUILD)/conftest/$(subst /,_,$(abspath $(KDIR)))
CONFTEST_H := $(CONFTEST_O)/hwtimer_conftest.h
KBUILD_ARGS := CONFIG_HWTIMER=m $(if $(KUNIT),CONFIG_HWTIMER_KUNIT_TEST=m) \
	HWTIMER_CONFTEST_DIR=$(CONFTEST_O)
KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS)

TOOL_DIRS := tools/hwtimerctl tools/testing/selftests/hwtimer

all: modules samples

# One line saying how to point KDIR at headers when they are missing.
HEADERS_HINT := $(firstword $(wildcard /lib/modules/*/build/Makefile))
kdir-check:
	@test -f $(KDIR)/Makefile || { echo "hwtimer: no kernel headers at" \
		"$(KDIR); install them or run make KDIR=$(or $(HEADERS_HINT:/Makefile=),/path/to/kernel/build)" >&2; exit 1; }

$(CONFTEST_H): compat/conftest.sh $(wildcard compat/probes/*) \
		$(wildcard $(KDIR)/include/generated/autoconf.h)
	compat/conftest.sh $(KDIR) $(CONFTEST_O)

conftest: kdir-check $(CONFTEST_H)

modules: conftest
	+$(KMAKE) modules

# The sample consumer is a separate external module linking against our
# exported symbols, as an out-of-tree user of hwtimer would be.
samples: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/samples \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/Module.symvers modules

# make install / make uninstall: tools/install/install.mk.
include $(CURDIR)/tools/install/install.mk

# dpkg-buildpackage in a copy of the tree without build products, so that
# the work tree stays as it is; the packages, .changes and .buildinfo land
# next to the copy, which goes once they are built. DEB_BUILD_ARGS adds
# dpkg-buildpackage options.
DEB_O := $(BUILD)/deb
DEB_SRC := $(DEB_O)/hwtimer-$(HWTIMER_VERSION)
deb:
	rm -rf $(DEB_O)
	mkdir -p $(DEB_SRC)
	rsync -a --exclude=/build/ --exclude=/.git/ --exclude='*.o' \
		--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=Module.symvers \
		--exclude=modules.order $(CURDIR)/ $(DEB_SRC)/
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc $(DEB_BUILD_ARGS)
	rm -rf $(DEB_SRC)
	@ls $(DEB_O)/*.deb

tools:
	@set -e; for d in $(TOOL_DIRS); do \
		$(MAKE) -C $$d O=$(abspath $(TOOLS_O)) STATIC=$(STATIC); \
	done

check:
	tools/vm/check.sh

demo:
	tools/vm/demo-vm.sh

bench:
	tools/bench/bench.sh

checkpatch:
	tools/vm/checkpatch.sh

kunit-uml:
	tools/vm/kunit-uml.sh

# Reliability (tools/stress, docs/testing.md "Reliability"): a long soak of the
# stress, churn, fault-injection and unload tests in the debug kernel; a
# long fuzz run whose new inputs are merged into the repo corpus; and the
# same tests on a KCSAN build of the debug kernel (a second cached build).
SOAK_SECS ?= 300
FUZZ_SECS ?= 3600
soak:
	tools/stress/vm.sh --kernel debug --soak $(SOAK_SECS)

fuzz:
	tools/stress/fuzz-deps.sh
	$(MAKE) -C tools/testing/wheel/fuzz long SECS=$(FUZZ_SECS)

check-kcsan:
	tools/stress/vm.sh --kernel kcsan

# Works without KDIR: removes what Kbuild and the harness leave behind.
clean:
	rm -rf $(BUILD)
	find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' \
		-o -name '*.a' -o -name 'modules.order' -o -name 'Module.symvers' \
		-o -name '*.dwo' -o -name '.*.d' \) -type f -print0 | xargs -0 rm -f
	rm -rf .tmp_versions
	@set -e; for d in $(TOOL_DIRS) tools/testing/wheel; do \
		$(MAKE) -s -C $$d clean; \
	done

.PHONY: all kdir-check conftest modules samples install deb tools check demo bench checkpatch \
	kunit-uml soak fuzz check-kcsan clean
