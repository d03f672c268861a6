/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_ids.h - the id table of a /dev/hwtimer context.
 *
 * A table hands out 64-bit ids for objects that carry their own id (a u64
 * field), and finds an object by id in O(1). An id is laid out as the
 * uapi says (HWTIMER_ID_*): the table's tag, the slot's generation, and
 * the slot's index in the table from 1; so 0 is never an id, and an id of
 * one table never matches in a table with another tag. A freed slot's
 * generation goes up by one, so a stale id misses until its slot has been
 * reused 2^20 times.
 *
 * Locking: the caller's lock, named at hwtimer_ids_init(), protects the
 * table; every function but hwtimer_ids_init(), hwtimer_ids_destroy() and
 * hwtimer_ids_at() is called with it held. hwtimer_ids_grow() drops and
 * retakes it, so whatever the caller read under it before must be read
 * again after.
 */
#ifndef _HWTIMER_IDS_H
#define _HWTIMER_IDS_H

#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <uapi/linux/hwtimer.h>

/* The layout of the uapi's ids (HWTIMER_ID_*). */
#define HWTIMER_IDS_IDX_BITS	HWTIMER_ID_INDEX_BITS
#define HWTIMER_IDS_GEN_BITS	HWTIMER_ID_GEN_BITS
#define HWTIMER_IDS_TAG_BITS	HWTIMER_ID_TAG_BITS
#define HWTIMER_IDS_GEN_SHIFT	HWTIMER_ID_GEN_SHIFT
#define HWTIMER_IDS_TAG_SHIFT	HWTIMER_ID_TAG_SHIFT
/* Masks of the index and of the generation, once shifted down. */
#define HWTIMER_IDS_IDX_MASK	(BIT_ULL(HWTIMER_IDS_IDX_BITS) - 1)
#define HWTIMER_IDS_GEN_MASK	(BIT_ULL(HWTIMER_IDS_GEN_BITS) - 1)
/* Slots of a table's first allocation. */
#define HWTIMER_IDS_MIN		64U
/* Most slots any table may have: every index fits its bits. */
#define HWTIMER_IDS_MAX		BIT(HWTIMER_IDS_IDX_BITS)

/**
 * struct hwtimer_ids - an id table
 * @lock: the caller's lock that protects every other field
 * @tab: the slots: a used slot holds the address of its object's id, a free
 *	one (bit 0 set) its next generation and the next free index; slot 0
 *	is never used
 * @cap: slots in @tab, 0 before the first hwtimer_ids_grow()
 * @max: most slots @tab may grow to
 * @tag: the top bits of every id of the table
 * @free_head: oldest free slot, the next one handed out; 0 when none
 * @free_tail: newest free slot; 0 when none
 */
struct hwtimer_ids {
	spinlock_t *lock;	/* the caller's; protects the rest */
	u64 *tab;
	u32 cap;
	u32 max;
	u32 tag;
	u32 free_head;
	u32 free_tail;
};

void hwtimer_ids_init(struct hwtimer_ids *ids, spinlock_t *lock, u32 tag,
		      u32 max);
void hwtimer_ids_destroy(struct hwtimer_ids *ids);
int hwtimer_ids_grow(struct hwtimer_ids *ids);
u64 hwtimer_ids_alloc(struct hwtimer_ids *ids, u64 *idp);
void hwtimer_ids_free(struct hwtimer_ids *ids, u64 id);
void hwtimer_ids_put_back(struct hwtimer_ids *ids, u64 id);
u64 *hwtimer_ids_lookup(const struct hwtimer_ids *ids, u64 id);
u64 *hwtimer_ids_at(const struct hwtimer_ids *ids, u32 idx);

#endif /* _HWTIMER_IDS_H */
