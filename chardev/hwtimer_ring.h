/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_ring.h - the timer rings of a /dev/hwtimer context
 * (hwtimer_ring.c), as the device's front-end (hwtimer_chardev.c) calls
 * them. Not an API.
 */
#ifndef _HWTIMER_RING_H
#define _HWTIMER_RING_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct hwt_ctx;
struct hwt_drains;

void hwtimer_drains_init(struct hwt_drains *d);
void hwtimer_drains_exit(struct hwt_drains *d);

long hwtimer_ring_setup(struct hwt_ctx *ctx, void __user *arg);
long hwtimer_ring_enter(struct hwt_ctx *ctx, void __user *arg);
int hwtimer_ring_mmap(struct hwt_ctx *ctx, struct vm_area_struct *vma);
void hwtimer_ring_stop(struct hwt_ctx *ctx);
void hwtimer_ring_free(struct hwt_ctx *ctx);

#endif /* _HWTIMER_RING_H */
