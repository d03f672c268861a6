# SPDX-License-Identifier: GPL-2.0
# The "module" target of the test modules under tools/testing (irqsoff,
# kvictim, lockdep), included by each one's Makefile: built like samples/
# against a built hwtimer,
#   make module KDIR=... SYMVERS=.../Module.symvers [MO=dir]
# in a copy of the module's directory (MO), so the source tree stays clean
# and several kernels' builds coexist.
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
SRC := $(abspath $(dir $(firstword $(MAKEFILE_LIST))))
MO ?= $(SRC)

module:
	@test -n "$(KDIR)" -a -n "$(SYMVERS)" || \
		{ echo "make module needs KDIR= and SYMVERS=" >&2; exit 1; }
	@mkdir -p $(MO)
	@test "$(abspath $(MO))" = "$(SRC)" || cp $(SRC)/Kbuild $(SRC)/*.c $(MO)/
	$(MAKE) -C $(KDIR) M=$(abspath $(MO)) HWTIMER_TOP=$(TOP) \
		KBUILD_EXTRA_SYMBOLS=$(abspath $(SYMVERS)) modules

.PHONY: module
