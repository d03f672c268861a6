// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_ids.c - the id table of a /dev/hwtimer context.
 *
 * An array of u64 slots, like a file descriptor table; the id layout and
 * the locking rule are in hwtimer_ids.h. A used slot holds the address of
 * its object's id, so a lookup is two loads and a compare, and the table
 * costs 8 bytes an object. A free slot holds, with bit 0 set (an id's
 * address is 8-aligned), the generation its next id gets and the index of
 * the next free slot: the free slots form a list threaded through the
 * table, used oldest first, so a freed slot comes back as late as it can.
 * Allocation and release are O(1).
 *
 * The table doubles when the caller asks, from HWTIMER_IDS_MIN slots up to
 * its maximum. The allocation may sleep, so it happens with the caller's
 * lock dropped; a thread that finds the table grown meanwhile keeps the
 * bigger one and frees its own.
 */
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "hwtimer_ids.h"

/* A free slot: next generation in the high half, next free index, bit 0. */
static u64 free_slot(u32 gen, u32 next)
{
	return (u64)gen << 32 | (u64)next << 1 | 1;
}

static u32 free_next(u64 slot)
{
	return (u32)slot >> 1;
}

static u32 id_idx(u64 id)
{
	return id & HWTIMER_IDS_IDX_MASK;
}

static u32 id_gen(u64 id)
{
	return (id >> HWTIMER_IDS_GEN_SHIFT) & HWTIMER_IDS_GEN_MASK;
}

/* Append free slot @idx, next to be used with @gen. Caller holds the lock. */
static void put_slot(struct hwtimer_ids *ids, u32 idx, u32 gen)
{
	lockdep_assert_held(ids->lock);
	gen &= HWTIMER_IDS_GEN_MASK;
	ids->tab[idx] = free_slot(gen, 0);
	if (ids->free_tail)
		ids->tab[ids->free_tail] =
			free_slot(ids->tab[ids->free_tail] >> 32, idx);
	else
		ids->free_head = idx;
	ids->free_tail = idx;
}

/**
 * hwtimer_ids_init() - set up an empty table
 * @ids: the table
 * @lock: the caller's lock that will protect it
 * @tag: the top bits of its ids, below BIT(%HWTIMER_IDS_TAG_BITS)
 * @max: most slots it may grow to, at most %HWTIMER_IDS_MAX; it holds one
 *	id fewer (slot 0 is never used)
 *
 * The table has no slot until the first hwtimer_ids_grow().
 *
 * Context: any; allocates nothing.
 */
void hwtimer_ids_init(struct hwtimer_ids *ids, spinlock_t *lock, u32 tag,
		      u32 max)
{
	BUILD_BUG_ON(HWTIMER_IDS_TAG_SHIFT + HWTIMER_IDS_TAG_BITS != 64);
	WARN_ON_ONCE(tag >= BIT(HWTIMER_IDS_TAG_BITS));
	ids->lock = lock;
	ids->tab = NULL;
	ids->cap = 0;
	ids->max = min_t(u32, max, HWTIMER_IDS_MAX);
	ids->tag = tag;
	ids->free_head = 0;
	ids->free_tail = 0;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_init);

/**
 * hwtimer_ids_destroy() - free a table's memory
 * @ids: the table
 *
 * The objects whose ids it holds are the caller's, before and after.
 *
 * Context: process; nothing else uses the table any more.
 */
void hwtimer_ids_destroy(struct hwtimer_ids *ids)
{
	kvfree(ids->tab);
	ids->tab = NULL;
	ids->cap = 0;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_destroy);

/**
 * hwtimer_ids_grow() - double the table, its new slots free
 * @ids: the table
 *
 * The first call gives the table %HWTIMER_IDS_MIN slots. Drops the lock to
 * allocate and to free the old array, and retakes it, so the caller checks
 * again whatever made it grow: another thread may have grown the table or
 * used its new slots meanwhile.
 *
 * Context: process, with @ids->lock held (a spinlock_t); may sleep with it
 * dropped.
 * Return: 0 (the table grew, here or in another thread), or -ENOMEM (it is
 * at its maximum, or no memory).
 */
int hwtimer_ids_grow(struct hwtimer_ids *ids)
{
	u32 cap = ids->cap, ncap, i;
	u64 *tab, *old;

	lockdep_assert_held(ids->lock);
	ncap = cap ? cap * 2 : HWTIMER_IDS_MIN;
	if (ncap > ids->max)
		return -ENOMEM;
	spin_unlock(ids->lock);
	tab = kvmalloc_array(ncap, sizeof(*tab), GFP_KERNEL_ACCOUNT);
	spin_lock(ids->lock);
	if (!tab)
		return -ENOMEM;
	old = tab;
	if (ids->cap == cap) {
		if (cap)
			memcpy(tab, ids->tab, cap * sizeof(*tab));
		tab[0] = free_slot(0, 0);	/* never used: ids start at 1 */
		old = ids->tab;
		ids->tab = tab;
		ids->cap = ncap;
		for (i = max(cap, 1U); i < ncap; i++)
			put_slot(ids, i, 0);
	}
	spin_unlock(ids->lock);
	kvfree(old);
	spin_lock(ids->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_grow);

/**
 * hwtimer_ids_alloc() - give an object the oldest free slot and its id
 * @ids: the table
 * @idp: the object's id field: the table stores its address, and the id
 *	goes there
 *
 * Context: any, with @ids->lock held.
 * Return: the id, or 0 when the table has no free slot (grow it first).
 */
u64 hwtimer_ids_alloc(struct hwtimer_ids *ids, u64 *idp)
{
	u32 idx = ids->free_head;
	u64 slot;

	lockdep_assert_held(ids->lock);
	if (!idx)
		return 0;
	slot = ids->tab[idx];
	ids->free_head = free_next(slot);
	if (!ids->free_head)
		ids->free_tail = 0;
	*idp = (u64)ids->tag << HWTIMER_IDS_TAG_SHIFT |
	       (slot >> 32) << HWTIMER_IDS_GEN_SHIFT | idx;
	ids->tab[idx] = (uintptr_t)idp;
	return *idp;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_alloc);

/**
 * hwtimer_ids_free() - free a live id
 * @ids: the table
 * @id: the id
 *
 * Its slot goes to the back of the free list with the next generation, so
 * @id and every older id of the slot miss from now on.
 *
 * Context: any, with @ids->lock held.
 */
void hwtimer_ids_free(struct hwtimer_ids *ids, u64 id)
{
	if (WARN_ON_ONCE(!hwtimer_ids_lookup(ids, id)))
		return;
	put_slot(ids, id_idx(id), id_gen(id) + 1);
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_free);

/**
 * hwtimer_ids_put_back() - undo the allocation of an id no one has seen
 * @ids: the table
 * @id: the id, live
 *
 * Like hwtimer_ids_free(), but the slot keeps its generation: its next id
 * is @id again.
 *
 * Context: any, with @ids->lock held.
 */
void hwtimer_ids_put_back(struct hwtimer_ids *ids, u64 id)
{
	if (WARN_ON_ONCE(!hwtimer_ids_lookup(ids, id)))
		return;
	put_slot(ids, id_idx(id), id_gen(id));
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_put_back);

/**
 * hwtimer_ids_at() - the object in a slot
 * @ids: the table
 * @idx: the slot's index; any value
 *
 * For walking the table from 1 to @ids->cap.
 *
 * Context: any, with @ids->lock held or the table to oneself.
 * Return: the id field of the object in slot @idx, or NULL when the slot is
 * free or out of the table.
 */
u64 *hwtimer_ids_at(const struct hwtimer_ids *ids, u32 idx)
{
	u64 slot;

	if (!idx || idx >= ids->cap)
		return NULL;
	slot = ids->tab[idx];
	return slot & 1 ? NULL : (u64 *)(uintptr_t)slot;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_at);

/**
 * hwtimer_ids_lookup() - find an object by id
 * @ids: the table
 * @id: any value
 *
 * Context: any, with @ids->lock held.
 * Return: the id field of the object whose id is @id, or NULL when @id is
 * not live in the table (0, freed, of another tag, out of the table).
 */
u64 *hwtimer_ids_lookup(const struct hwtimer_ids *ids, u64 id)
{
	u64 *idp;

	lockdep_assert_held(ids->lock);
	idp = hwtimer_ids_at(ids, id_idx(id));
	if (!idp || *idp != id)
		return NULL;
	return idp;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_ids_lookup);
