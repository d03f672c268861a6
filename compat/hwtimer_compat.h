/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_compat.h - the kernel interfaces that differ between the kernels
 * hwtimer supports (Debian 12's 6.1, 6.12 and 6.12-rt), in one place.
 *
 * The top-level Makefile runs compat/conftest.sh before kbuild: it
 * compiles one small probe per interface against the target's headers and
 * defines HWTIMER_HAVE_<PROBE> for each that builds, in a generated
 * hwtimer_conftest.h that Kbuild puts on the include path. Built inside a
 * kernel tree, run the script once against that tree first (README).
 *
 * The code calls the hwt_*() helpers below and never tests a version.
 */
#ifndef _HWTIMER_COMPAT_H
#define _HWTIMER_COMPAT_H

#if !__has_include("hwtimer_conftest.h")
#error "hwtimer: no feature probes; run compat/conftest.sh KDIR OUTDIR first (make does)"
#endif
#include <hwtimer_conftest.h>

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
