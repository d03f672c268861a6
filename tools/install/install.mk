# SPDX-License-Identifier: GPL-2.0
# Included by the top-level Makefile: make install.

# The release modules are installed for (Debian's headers carry the upstream
# version in kernel.release; utsrelease.h has the real one).
KRELEASE = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)

install: all
	$(KMAKE) INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) modules_install
	@if [ -f samples/Kbuild ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/samples \
			INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) modules_install; \
	fi
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a \
		$(KRELEASE)

