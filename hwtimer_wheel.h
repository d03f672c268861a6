/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure hierarchical timing wheel behind hwtimer.
 *
 * No clock, no hrtimer, no kthread, no locking: time is an argument and the
 * caller serialises every call on one wheel. The same code builds in
 * userspace through tools/testing/wheel/shim for the model checker.
 */
#ifndef _HWTIMER_WHEEL_H
#define _HWTIMER_WHEEL_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/types.h>

#include "hwtimer_wheel_entry.h"

/* Bits of tick number resolved per level. */
#define HWTIMER_WC_LVL_BITS	6
/* Slots per level; one bit of a u64 occupancy bitmap each. */
#define HWTIMER_WC_LVL_SIZE	BIT(HWTIMER_WC_LVL_BITS)
/* Mask of a slot number within its level. */
#define HWTIMER_WC_LVL_MASK	(HWTIMER_WC_LVL_SIZE - 1)
/* Levels needed so that every u64 tick number has a place: ceil(64 / 6). */
#define HWTIMER_WC_LEVELS	((64 + HWTIMER_WC_LVL_BITS - 1) / HWTIMER_WC_LVL_BITS)
/* Total number of slots in a wheel. */
#define HWTIMER_WC_SLOTS	(HWTIMER_WC_LEVELS * HWTIMER_WC_LVL_SIZE)

/*
 * Most entries a slot may hold for the wheel to hand them out at their own
 * deadlines (hwtimer_wc_due_ns()): a fuller tick is handed out whole at its
 * start, a fuller slot of a higher level holding several ticks brought
 * down as early as the wheel allows. Bounds the walk of the slot that exactness costs.
 */
#define HWTIMER_WC_EXACT_MAX	32

/* Entry index meaning "not in the wheel". */
#define HWTIMER_WC_IDLE		0xffff
/* Entry index meaning "already due, on the wheel's due list". */
#define HWTIMER_WC_DUE		0xfffe

/**
 * struct hwtimer_wc - a hierarchical timing wheel
 * @slots: the slot lists (first, so that a slot's address is a scaled index)
 * @now: current tick: everything due at or before it has been handed out,
 *	but for the due list
 * @goal: tick of the latest advance; @now is behind it while a bounded
 *	advance has work left (hwtimer_wc_advance_max())
 * @tick_ns: length of a tick in nanoseconds (at least 1)
 * @tick_inv: U64_MAX / @tick_ns, to divide by the tick with a multiplication
 * @count: entries in the wheel (slots and due list)
 * @levels: bit L set when level L has an occupied slot
 * @occupied: per level, bit S set when slot S's list is not empty
 * @due: entries armed at or before @now, or collected from slots whose
 *	range has begun, that the next advance hands out or cascades
 * @slot_min: per slot, a lower bound of its entries' deadlines (exact until
 *	an entry is cancelled or moved; reset when the slot empties)
 */
struct hwtimer_wc {
	struct list_head slots[HWTIMER_WC_SLOTS];
	u64 now;
	u64 goal;
	u32 tick_ns;
	u32 levels;
	u64 tick_inv;
	u64 count;
	u64 occupied[HWTIMER_WC_LEVELS];
	struct list_head due;
	u64 slot_min[HWTIMER_WC_SLOTS];
};

void hwtimer_wc_init(struct hwtimer_wc *wc, u32 tick_ns, u64 now_ns);
void hwtimer_wc_entry_init(struct hwtimer_wc_entry *e);
u64 hwtimer_wc_ns_to_tick(const struct hwtimer_wc *wc, u64 ns);
u64 hwtimer_wc_tick_to_ns(const struct hwtimer_wc *wc, u64 tick);
void hwtimer_wc_arm(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e,
		    u64 expires_ns);
bool hwtimer_wc_cancel(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e);
bool hwtimer_wc_modify(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e,
		       u64 expires_ns);
u64 hwtimer_wc_advance(struct hwtimer_wc *wc, u64 now_ns,
		       struct list_head *expired);
u64 hwtimer_wc_advance_max(struct hwtimer_wc *wc, u64 now_ns,
			   struct list_head *expired, u64 max);
bool hwtimer_wc_rewind(struct hwtimer_wc *wc, u64 now_ns);
u64 hwtimer_wc_due_ns(const struct hwtimer_wc *wc, u64 tick);
bool hwtimer_wc_next_expiry(const struct hwtimer_wc *wc, u64 *tick);
u64 hwtimer_wc_drain(struct hwtimer_wc *wc, struct list_head *list);
u64 hwtimer_wc_drain_max(struct hwtimer_wc *wc, struct list_head *list,
			 u64 max);

/**
 * hwtimer_wc_entry_pending() - is the entry in a wheel?
 * @e: the entry
 *
 * Context: caller holds the lock serialising the entry's wheel.
 * Return: true when @e sits in a slot or on the due list.
 */
static inline bool hwtimer_wc_entry_pending(const struct hwtimer_wc_entry *e)
{
	return e->idx != HWTIMER_WC_IDLE;
}

#endif /* _HWTIMER_WHEEL_H */
