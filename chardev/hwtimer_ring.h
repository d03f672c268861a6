/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_ring.h - the timer rings of a /dev/hwtimer context
 * (hwtimer_ring.c), as hwtimer_chardev.c calls them. Not an API.
 */
#ifndef _HWTIMER_RING_H
#define _HWTIMER_RING_H

#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "hwtimer.h"

struct hwt_ctx;
struct hwt_timer;

/**
 * struct hwt_drains - the periodic drains of one user's timer rings
 * @lock: protects @rings, @nrings and @on
 * @rings: the rings whose periodic drain is on, the next to drain first
 * @nrings: how many
 * @on: @pass is armed, or its running callback goes on
 * @pass: a tick apart on the drain wheel while @rings is not empty: drains
 *	some of them, in turn
 */
struct hwt_drains {
	spinlock_t lock;	/* the list, its count and @on */
	struct list_head rings;
	u32 nrings;
	bool on;
	struct hwtimer_timeout pass;
};

void hwtimer_drains_init(struct hwt_drains *d);
void hwtimer_drains_exit(struct hwt_drains *d);

long hwtimer_ring_setup(struct hwt_ctx *ctx, void __user *arg);
long hwtimer_ring_enter(struct hwt_ctx *ctx, void __user *arg);
int hwtimer_ring_mmap(struct hwt_ctx *ctx, struct vm_area_struct *vma);
bool hwtimer_ring_complete_locked(struct hwt_ctx *ctx,
				  const struct hwt_timer *ht, u64 overruns,
				  bool last);
void hwtimer_ring_queued_locked(struct hwt_ctx *ctx);
bool hwtimer_ring_cq_ready_locked(struct hwt_ctx *ctx);
void hwtimer_ring_stop(struct hwt_ctx *ctx);
void hwtimer_ring_free(struct hwt_ctx *ctx);

#endif /* _HWTIMER_RING_H */
