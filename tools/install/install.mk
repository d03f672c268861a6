# SPDX-License-Identifier: GPL-2.0
# Included by the top-level Makefile: installing hwtimer (docs/install.md).
#
#   make install     [DESTDIR=] [PREFIX=/usr/local] [KDIR=] [MODULES_LOAD=1]
#   make uninstall   the same variables: removes what install put there
#   make install-userspace, make uninstall-userspace   what install does
#                    but the module and the kernel-side development
#                    files: no KDIR, no kernel headers needed
#   make install-lib, make uninstall-lib   libhwtimer alone, the same way
#   make libhwtimer  the userspace library alone, into $(TOOLS_O)/libhwtimer
#   make dkms-source [DESTDIR=]   the DKMS source tree /usr/src/hwtimer-VERSION
#   make install-dkms, make uninstall-dkms   that tree plus dkms add/install
#   make print-version
#
# The module goes to lib/modules/KRELEASE/updates/ under INSTALL_MOD_PATH,
# which defaults to DESTDIR; the kernel-side development files (hwtimer.h,
# hwtimer_wheel_entry.h and the uapi header, at their places in the source
# tree, as in the DKMS source tree, so that -I/usr/src/hwtimer-VERSION
# serves either; this kernel's Module.symvers) to /usr/src/hwtimer-VERSION;
# everything else under PREFIX, libhwtimer (tools/lib/hwtimer: shared
# library with its soname links, static library, <hwtimer/hwtimer.h>,
# hwtimer.pc, section-3 pages) by its own Makefile. Kernel paths do not follow PREFIX: kmod
# looks only in /lib/modules, and kbuild users in /usr/src. A man page's
# footer ("hwtimer" in .TH) gets the release when installed.

# The release, read from the uapi header, where it is written once.
HWTIMER_UAPI_H := $(CURDIR)/include/uapi/linux/hwtimer.h
hwtimer_version_part = $(shell sed -n \
	's/^.define[[:space:]]*HWTIMER_VERSION_$(1)[[:space:]]*\([0-9]*\).*/\1/p' \
	$(HWTIMER_UAPI_H))
HWTIMER_VERSION := $(call hwtimer_version_part,MAJOR).$(call \
	hwtimer_version_part,MINOR).$(call hwtimer_version_part,PATCH)

# The release modules are installed for (Debian's headers carry the upstream
# version in kernel.release; utsrelease.h has the real one). Give
# KRELEASE= to uninstall for a kernel whose headers are gone.
KRELEASE = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
# systemd-udevd and systemd-modules-load read /usr/lib and /usr/local/lib.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
KSRCDIR ?= /usr/src/hwtimer-$(HWTIMER_VERSION)
INSTALL_MOD_DIR ?= updates
MOD_ROOT = $(or $(INSTALL_MOD_PATH),$(DESTDIR))
MODDIR = $(MOD_ROOT)/lib/modules/$(KRELEASE)
DEPMOD ?= $(or $(shell command -v depmod),$(wildcard /sbin/depmod))

MAN_PAGES := $(wildcard man/*.[1-9])
UDEV_RULES := udev/60-hwtimer.rules

# The kernel API headers, by their paths in the source tree, which are
# also their paths under KSRCDIR (hwtimer.h includes the other two).
KAPI_HEADERS := hwtimer.h hwtimer_wheel_entry.h include/uapi/linux/hwtimer.h

# What make install-userspace puts under DESTDIR, libhwtimer's files apart.
INSTALLED_USER = $(BINDIR)/hwtimerctl $(INCLUDEDIR)/linux/hwtimer.h \
	$(foreach m,$(MAN_PAGES),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	$(UDEVRULESDIR)/$(notdir $(UDEV_RULES)) $(MODULESLOADDIR)/hwtimer.conf

# libhwtimer's Makefile, with the directories install uses: hwtimer.pc
# records PREFIX, LIBDIR and INCLUDEDIR.
LIBHWTIMER_MAKE = $(MAKE) -C tools/lib/hwtimer \
	O=$(abspath $(TOOLS_O))/libhwtimer PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) \
	INCLUDEDIR=$(INCLUDEDIR) MANDIR=$(MANDIR) PKGCONFIGDIR=$(PKGCONFIGDIR)

print-version:
	@echo $(HWTIMER_VERSION)

krelease-check:
	@test -n "$(KRELEASE)" || { echo "hwtimer: no kernel release in" \
		"$(KDIR)/include/generated/utsrelease.h; give KDIR= or KRELEASE=" >&2; \
		exit 1; }

# After libhwtimer: both build $(TOOLS_O)/libhwtimer, and under make -j
# hwtimerctl could link the archive while the other rewrites it.
hwtimerctl: libhwtimer
	$(MAKE) -C tools/hwtimerctl O=$(abspath $(TOOLS_O)) STATIC=$(STATIC)

libhwtimer:
	+$(LIBHWTIMER_MAKE) all

install: modules krelease-check install-userspace
	install -D -m 0644 hwtimer.ko $(MODDIR)/$(INSTALL_MOD_DIR)/hwtimer.ko
	$(if $(INSTALL_MOD_STRIP),strip --strip-debug \
		$(MODDIR)/$(INSTALL_MOD_DIR)/hwtimer.ko)
	@set -e; for h in $(KAPI_HEADERS); do \
		echo "install -D -m 0644 $$h $(DESTDIR)$(KSRCDIR)/$$h"; \
		install -D -m 0644 $$h $(DESTDIR)$(KSRCDIR)/$$h; \
	done
	tools/install/install-symvers.sh Module.symvers \
		$(DESTDIR)$(KSRCDIR)/$(KRELEASE)/Module.symvers
	@$(hwtimer_depmod)

install-userspace: hwtimerctl install-lib
	install -D -m 0755 $(TOOLS_O)/hwtimerctl $(DESTDIR)$(BINDIR)/hwtimerctl
	install -D -m 0644 include/uapi/linux/hwtimer.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/hwtimer.h
	@set -e; for m in $(MAN_PAGES); do \
		d=$(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; \
		echo "install -D -m 0644 $$m $$d"; \
		install -D -m 0644 $$m $$d; \
		sed -i '/^\.TH /s/"hwtimer"/"hwtimer $(HWTIMER_VERSION)"/' $$d; \
	done
	install -D -m 0644 $(UDEV_RULES) \
		$(DESTDIR)$(UDEVRULESDIR)/$(notdir $(UDEV_RULES))
	$(if $(filter 1 y yes,$(MODULES_LOAD)),install -D -m 0644 \
		tools/install/modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/hwtimer.conf)

# libhwtimer alone: library, <hwtimer/hwtimer.h> and the <linux/hwtimer.h>
# it includes, hwtimer.pc, section-3 pages.
install-lib: libhwtimer
	+$(LIBHWTIMER_MAKE) DESTDIR=$(DESTDIR) install

# The headers stay while a DKMS source tree is there: they are its files
# too (make install-dkms).
uninstall: krelease-check uninstall-userspace
	rm -f $(MODDIR)/$(INSTALL_MOD_DIR)/hwtimer.ko
	rm -f $(DESTDIR)$(KSRCDIR)/$(KRELEASE)/Module.symvers
	test -f $(DESTDIR)$(KSRCDIR)/dkms.conf || \
		rm -f $(addprefix $(DESTDIR)$(KSRCDIR)/,$(KAPI_HEADERS))
	@test ! -d $(DESTDIR)$(KSRCDIR) || \
		find $(DESTDIR)$(KSRCDIR) -depth -type d -empty -delete
	@$(hwtimer_depmod)

uninstall-userspace: uninstall-lib
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_USER))

# libhwtimer's uninstall leaves <linux/hwtimer.h>, which the module's
# install owns too; installed by install-lib alone, it goes here.
uninstall-lib:
	+$(LIBHWTIMER_MAKE) DESTDIR=$(DESTDIR) uninstall
	rm -f $(DESTDIR)$(INCLUDEDIR)/linux/hwtimer.h

# depmod for the installed tree. On the running system a failure fails the
# install. For a tree under DESTDIR it is a convenience (the target system
# runs depmod when the package lands), so a missing or failing depmod is
# reported, not fatal; and once no module is left there, the index files it
# wrote describe nothing and go too, so that uninstall leaves no files.
DEPMOD_INDEX := alias alias.bin builtin.alias.bin builtin.bin dep dep.bin \
	devname softdep symbols symbols.bin weakdep
define hwtimer_depmod
if [ ! -d "$(MODDIR)" ]; then \
	:; \
elif [ -z "$(MOD_ROOT)" ]; then \
	echo "$(DEPMOD) -a $(KRELEASE)"; \
	$(DEPMOD) -a $(KRELEASE); \
elif [ -z "$$(find "$(MODDIR)" -name '*.ko*' -print -quit)" ]; then \
	echo "hwtimer: no module left in $(MODDIR): removing depmod's index"; \
	rm -f $(addprefix $(MODDIR)/modules.,$(DEPMOD_INDEX)); \
	rmdir "$(MODDIR)/$(INSTALL_MOD_DIR)" "$(MODDIR)" 2>/dev/null || true; \
elif [ -z "$(DEPMOD)" ]; then \
	echo "hwtimer: no depmod here; run depmod -a $(KRELEASE) on the target system"; \
else \
	echo "$(DEPMOD) -b $(MOD_ROOT) -a $(KRELEASE)"; \
	$(DEPMOD) -b $(MOD_ROOT) -a $(KRELEASE) || \
	echo "hwtimer: depmod failed for $(MOD_ROOT); run depmod -a $(KRELEASE) on the target system"; \
fi
endef

# DKMS: the sources the module build needs, and dkms.conf made from
# dkms.conf.in with the version from the uapi header. DKMS runs the
# top-level Makefile (make KDIR=... modules), probes included.
DKMS_DIR = $(DESTDIR)$(KSRCDIR)
DKMS_FILES = Makefile Kbuild Kconfig LICENSE \
	$(filter-out %.mod.c,$(wildcard *.c)) $(wildcard *.h) \
	tools/install/install.mk tools/install/install-symvers.sh \
	$(shell find chardev compat include -type f ! -name '*.mod.c' \
		\( -name '*.[ch]' -o -name '*.sh' -o -name Kbuild \
		-o -name Makefile \) | sort)

dkms-source:
	install -d $(DKMS_DIR)
	cp -p --parents $(DKMS_FILES) $(DKMS_DIR)/
	sed 's/@PACKAGE_VERSION@/$(HWTIMER_VERSION)/' dkms.conf.in \
		>$(DKMS_DIR)/dkms.conf

# With DESTDIR the tree is only laid out (a package's postinst runs dkms);
# without, it is added to DKMS and built and installed for every kernel
# with headers that dkms.conf supports (exit 77: BUILD_EXCLUSIVE). DKMS=
# may add options (a private tree: --dkmstree, --sourcetree, ...).
DKMS ?= dkms
install-dkms: dkms-source
ifeq ($(DESTDIR),)
	$(DKMS) status -m hwtimer -v $(HWTIMER_VERSION) | grep -q . || \
		$(DKMS) add -m hwtimer -v $(HWTIMER_VERSION)
	@set -e; for b in /lib/modules/*/build; do \
		k=$${b%/build}; k=$${k##*/}; rc=0; \
		echo "$(DKMS) install -m hwtimer -v $(HWTIMER_VERSION) -k $$k"; \
		$(DKMS) install -m hwtimer -v $(HWTIMER_VERSION) -k $$k || rc=$$?; \
		case $$rc in \
		0) ;; \
		77) echo "hwtimer: $$k is not a supported kernel, skipped" ;; \
		*) exit $$rc ;; \
		esac; \
	done
endif

uninstall-dkms:
ifeq ($(DESTDIR),)
	$(DKMS) status -m hwtimer -v $(HWTIMER_VERSION) | grep -q . && \
		$(DKMS) remove -m hwtimer -v $(HWTIMER_VERSION) --all || true
endif
	rm -f $(addprefix $(DKMS_DIR)/,$(if $(wildcard $(DKMS_DIR)/*/Module.symvers), \
		$(filter-out $(KAPI_HEADERS),$(DKMS_FILES)),$(DKMS_FILES)) dkms.conf)
	@test ! -d $(DKMS_DIR) || find $(DKMS_DIR) -depth -type d -empty -delete

.PHONY: print-version krelease-check hwtimerctl libhwtimer install uninstall \
	install-userspace uninstall-userspace install-lib uninstall-lib \
	dkms-source install-dkms uninstall-dkms
