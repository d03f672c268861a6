/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_compat.h - the kernel interfaces that differ between the kernels
 * hwtimer supports (Debian 12's 6.1, 6.12 and 6.12-rt), in one place.
 *
 * Out of tree, the top-level Makefile runs compat/conftest.sh first: it
 * compiles one small probe per interface against the target's headers and
 * defines HWTIMER_HAVE_<PROBE> for each that builds, in a generated
 * hwtimer_conftest.h (Kbuild defines HWTIMER_CONFTEST and puts it on the
 * include path). Built inside a kernel tree, where no probe runs, the
 * kernel version decides instead.
 *
 * The code calls the hwt_*() helpers below and never tests a version.
 */
#ifndef _HWTIMER_COMPAT_H
#define _HWTIMER_COMPAT_H

#ifdef HWTIMER_CONFTEST
#include "hwtimer_conftest.h"
#else
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define HWTIMER_HAVE_EVENTFD_SIGNAL_ONE_ARG 1
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define HWTIMER_HAVE_ASSIGN_STR_ONE_ARG 1
#endif
#endif

#include <linux/eventfd.h>

/* Add 1 to @ctx's counter: eventfd_signal() lost its count argument. */
static inline void hwt_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef HWTIMER_HAVE_EVENTFD_SIGNAL_ONE_ARG
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/*
 * In TP_fast_assign(): copy __string(@dst, @src)'s source into the event.
 * __assign_str() lost its source argument (__string() already names it).
 */
#ifdef HWTIMER_HAVE_ASSIGN_STR_ONE_ARG
#define hwt_assign_str(dst, src)	__assign_str(dst)
#else
#define hwt_assign_str(dst, src)	__assign_str(dst, src)
#endif

#endif /* _HWTIMER_COMPAT_H */
