/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: nothing is exported from a program. The export macros are
 * defined empty on the compiler's command line (see ../../Makefile).
 */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H
#endif
