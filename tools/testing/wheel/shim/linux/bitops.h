/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the bit helpers hwtimer_wheel.c uses, on GCC builtins. */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <linux/types.h>

#define BITS_PER_LONG	(8 * (int)sizeof(long))

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))

/* Index of the most significant set bit, plus one; 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* Index of the least significant set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs(unsigned long x)
{
	return __builtin_ctzl(x);
}

/* Index of the most significant set bit; undefined for 0, as in the kernel. */
static inline unsigned long __fls(unsigned long x)
{
	return 8 * sizeof(long) - 1 - __builtin_clzl(x);
}

static inline unsigned int __ffs64(u64 x)
{
	return __builtin_ctzll(x);
}

#endif
