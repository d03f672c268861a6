/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_ring.h - the timer rings of a /dev/hwtimer context
 * (hwtimer_ring.c), as hwtimer_chardev.c calls them. Not an API.
 */
#ifndef _HWTIMER_RING_H
#define _HWTIMER_RING_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct hwt_ctx;
struct hwt_timer;

long hwtimer_ring_setup(struct hwt_ctx *ctx, void __user *arg);
long hwtimer_ring_enter(struct hwt_ctx *ctx, void __user *arg);
int hwtimer_ring_mmap(struct hwt_ctx *ctx, struct vm_area_struct *vma);
bool hwtimer_ring_complete_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
				  u64 overruns);
void hwtimer_ring_queued_locked(struct hwt_ctx *ctx);
bool hwtimer_ring_cq_ready_locked(struct hwt_ctx *ctx);
void hwtimer_ring_stop(struct hwt_ctx *ctx);
void hwtimer_ring_free(struct hwt_ctx *ctx);

#endif /* _HWTIMER_RING_H */
