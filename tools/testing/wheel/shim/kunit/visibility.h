/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: nothing is exported from a program. The export macro is
 * defined empty on the compiler's command line (see ../../Makefile).
 */
#ifndef _SHIM_KUNIT_VISIBILITY_H
#define _SHIM_KUNIT_VISIBILITY_H
#endif
