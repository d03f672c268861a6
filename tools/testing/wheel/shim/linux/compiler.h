/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the branch hints of include/linux/compiler.h. Of the
 * attributes of include/linux/compiler_types.h, __always_inline comes from
 * glibc's <sys/cdefs.h> and noinline from the compiler's command line (see
 * ../../Makefile).
 */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#endif
