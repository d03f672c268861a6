// SPDX-License-Identifier: GPL-2.0
/*
 * The pure hierarchical timing wheel behind hwtimer.
 *
 * Time is a u64 count of ticks; a tick is tick_ns nanoseconds, chosen by the
 * caller. A deadline in nanoseconds is rounded UP to a tick, and an entry is
 * handed out by the first advance to a time whose tick (rounded DOWN) has
 * reached it. So an entry never leaves early, and a caller that advances at
 * the start of every occupied tick hands it out less than one tick late.
 *
 * A tick with few entries (HWTIMER_WC_EXACT_MAX) is also handed out entry
 * by entry, at each one's own deadline: an advance to a time in the tick
 * before it hands out those of its entries whose deadline that time has
 * reached, and hwtimer_wc_due_ns() tells the caller the earliest of them,
 * wherever in the wheel they wait. A caller that advances then is late
 * only by its own wake-up.
 *
 * The wheel has HWTIMER_WC_LEVELS levels of 64 slots. Level L resolves bits
 * [6L, 6L + 6) of the tick number. Entries are placed relative to the next
 * tick, the first not handed out yet: one whose deadline first differs from
 * it in bit b sits at level b / 6 (level 0 when it is that tick), in the
 * slot given by its own bits at that level. Entries of level L thus share
 * the next tick's bits above 6L + 6, and their slot number is never below
 * the next tick's digit at that level (above it from level 1 on): no slot
 * wraps, and the lowest set bit of a level's occupancy bitmap is its
 * earliest slot. Level 0 thus holds exactly the entries of the ticks from
 * the next one to the end of its window of 64, so the entries of the next
 * tick are in level 0 even when it begins a window. Eleven levels cover all
 * 64 bits, so any deadline up to U64_MAX ns has a place; nothing parks in an
 * overflow list and nothing wraps.
 *
 * When time advances, the slots of level 0 whose tick has come and the
 * higher slots whose range the new next tick has reached are emptied, and
 * their entries are either handed out (due) or placed again relative to
 * the new next tick, which moves them to a lower level: they cascade down,
 * and keep their exact deadline on the way (unlike kernel/time/timer.c,
 * which does not cascade and accepts up to 12.5% lateness instead). An
 * entry cascades at most once per level. Advancing across any gap stops at
 * each occupied tick on the way, and just before each occupied higher
 * slot, touching at most one bitmap word per level there plus the entries
 * that move, never the empty ticks in between: a late advance hands out
 * tick after tick, as an early one would have.
 *
 * Every entry of level L is earlier than every entry of level L + 1, so the
 * next expiry is in the lowest occupied level's lowest occupied slot. Each
 * slot keeps the smallest deadline put into it, so a caller sleeping until
 * the next expiry wakes once per distinct deadline rather than once per
 * cascade step; a cancel or a move may leave that minimum too small, which
 * only costs an early wake-up, never a late one.
 *
 * The ns-to-tick rounding is a multiplication by a reciprocal of the tick
 * kept in the wheel, corrected by the exact remainder (calc_tick()); every
 * deadline is rounded up exactly as a division would, never down.
 *
 * Levels, granularity and range for the default 1 ms tick (range = how far
 * ahead of the current tick a level reaches; a level's entries are placed to
 * their exact tick regardless of its granularity):
 *
 * Level  Granularity           Range
 *   0        1 ms              64 ms
 *   1       64 ms               4.1 s
 *   2        4.1 s              4.4 min
 *   3        4.4 min            4.7 h
 *   4        4.7 h             12.4 days
 *   5       12.4 days           2.2 years
 *   6        2.2 years        139 years
 *   7      139 years         8,900 years
 *   8     8,900 years       570,000 years
 *   9    570,000 years         36 million years
 *  10     36 million years    584 million years (all 2^64 ticks)
 *
 * With a 1 ms tick, U64_MAX ns (584 years) is reached at level 7.
 *
 * Nothing here takes a lock or reads a clock: the caller serialises all
 * calls on a wheel and passes the time in.
 */
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <kunit/visibility.h>

#include "hwtimer_wheel.h"

/* Bit position of the lowest bit of the digit of level @lvl. */
#define LVL_SHIFT(lvl)		((lvl) * HWTIMER_WC_LVL_BITS)
/* Digit of tick @t at level @lvl: its slot number there. */
#define LVL_DIGIT(t, lvl)	(((t) >> LVL_SHIFT(lvl)) & HWTIMER_WC_LVL_MASK)

/**
 * hwtimer_wc_init() - set up an empty wheel
 * @wc: the wheel
 * @tick_ns: tick length in ns, at least 1
 * @now_ns: current time in ns; the wheel's tick is @now_ns rounded down
 *
 * Context: any; the wheel must not be in use.
 */
void hwtimer_wc_init(struct hwtimer_wc *wc, u32 tick_ns, u64 now_ns)
{
	unsigned int i;

	wc->tick_ns = tick_ns ? tick_ns : 1;
	wc->tick_inv = div_u64(U64_MAX, wc->tick_ns);
	wc->now = div_u64(now_ns, wc->tick_ns);
	wc->goal = wc->now;
	wc->levels = 0;
	wc->count = 0;
	INIT_LIST_HEAD(&wc->due);
	for (i = 0; i < HWTIMER_WC_LEVELS; i++)
		wc->occupied[i] = 0;
	for (i = 0; i < HWTIMER_WC_SLOTS; i++) {
		INIT_LIST_HEAD(&wc->slots[i]);
		wc->slot_min[i] = U64_MAX;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_init);

/**
 * hwtimer_wc_entry_init() - mark an entry as not in any wheel
 * @e: the entry
 *
 * Context: any.
 */
void hwtimer_wc_entry_init(struct hwtimer_wc_entry *e)
{
	INIT_LIST_HEAD(&e->node);
	e->expires_ns = 0;
	e->idx = HWTIMER_WC_IDLE;
	e->aux = 0;
	e->aux32 = 0;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_entry_init);

/*
 * ceil(@ns / tick) with a multiplication instead of a division. With
 * inv = floor((2^64 - 1) / tick), (2^64 - tick) / tick <= inv <= 2^64 / tick,
 * so ns * inv / 2^64 lies in (ns / tick - 1, ns / tick] for any u64 @ns: its
 * integer part q is floor(ns / tick) or one less. The remainder
 * r = ns - q * tick is then exact, in [0, 2 * tick), and the quotient rounded
 * up is q + (r > 0) + (r > tick): never below the true one, never above.
 */
static inline u64 calc_tick(const struct hwtimer_wc *wc, u64 ns)
{
	u64 q = mul_u64_u64_shr(ns, wc->tick_inv, 64);
	u64 r = ns - q * wc->tick_ns;

	return q + (r != 0) + (r > wc->tick_ns);
}

/**
 * hwtimer_wc_ns_to_tick() - deadline tick of a nanosecond deadline
 * @wc: the wheel (for its tick length)
 * @ns: deadline in ns
 *
 * Context: any.
 * Return: @ns divided by the tick, rounded up; cannot overflow.
 */
u64 hwtimer_wc_ns_to_tick(const struct hwtimer_wc *wc, u64 ns)
{
	return calc_tick(wc, ns);
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_ns_to_tick);

/**
 * hwtimer_wc_tick_to_ns() - start of a tick in nanoseconds
 * @wc: the wheel (for its tick length)
 * @tick: a tick number
 *
 * Context: any.
 * Return: @tick times the tick length, or U64_MAX when that overflows.
 */
u64 hwtimer_wc_tick_to_ns(const struct hwtimer_wc *wc, u64 tick)
{
	if (tick > wc->tick_inv)
		return U64_MAX;
	return tick * wc->tick_ns;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_tick_to_ns);

/*
 * Level of each bit of a tick number, bit / HWTIMER_WC_LVL_BITS, and the
 * lowest bit of that level's digit, LVL_SHIFT() of it, looked up: loads
 * from one table instead of a division and a multiplication on the arm
 * path. One entry per level of the eleven that 6-bit levels make.
 */
static const struct {
	u8 level[64];
	u8 shift[64];
} bit_tab = {
	.level = {
		[LVL_SHIFT(0) ... LVL_SHIFT(1) - 1] = 0,
		[LVL_SHIFT(1) ... LVL_SHIFT(2) - 1] = 1,
		[LVL_SHIFT(2) ... LVL_SHIFT(3) - 1] = 2,
		[LVL_SHIFT(3) ... LVL_SHIFT(4) - 1] = 3,
		[LVL_SHIFT(4) ... LVL_SHIFT(5) - 1] = 4,
		[LVL_SHIFT(5) ... LVL_SHIFT(6) - 1] = 5,
		[LVL_SHIFT(6) ... LVL_SHIFT(7) - 1] = 6,
		[LVL_SHIFT(7) ... LVL_SHIFT(8) - 1] = 7,
		[LVL_SHIFT(8) ... LVL_SHIFT(9) - 1] = 8,
		[LVL_SHIFT(9) ... LVL_SHIFT(10) - 1] = 9,
		[LVL_SHIFT(10) ... 63] = 10,
	},
	.shift = {
		[LVL_SHIFT(0) ... LVL_SHIFT(1) - 1] = LVL_SHIFT(0),
		[LVL_SHIFT(1) ... LVL_SHIFT(2) - 1] = LVL_SHIFT(1),
		[LVL_SHIFT(2) ... LVL_SHIFT(3) - 1] = LVL_SHIFT(2),
		[LVL_SHIFT(3) ... LVL_SHIFT(4) - 1] = LVL_SHIFT(3),
		[LVL_SHIFT(4) ... LVL_SHIFT(5) - 1] = LVL_SHIFT(4),
		[LVL_SHIFT(5) ... LVL_SHIFT(6) - 1] = LVL_SHIFT(5),
		[LVL_SHIFT(6) ... LVL_SHIFT(7) - 1] = LVL_SHIFT(6),
		[LVL_SHIFT(7) ... LVL_SHIFT(8) - 1] = LVL_SHIFT(7),
		[LVL_SHIFT(8) ... LVL_SHIFT(9) - 1] = LVL_SHIFT(8),
		[LVL_SHIFT(9) ... LVL_SHIFT(10) - 1] = LVL_SHIFT(9),
		[LVL_SHIFT(10) ... 63] = LVL_SHIFT(10),
	},
};

/*
 * Where deadline tick @expires goes when the wheel is at @now (< @expires):
 * the highest bit in which it differs from the next tick, now + 1, or bit 0
 * when it is that tick; bit_tab.level[] of it is its level. Placed
 * relative to the next tick, the entries of the first tick of a window are
 * in level 0 while the wheel is at the last tick of the window before, as
 * those of every other tick are while the wheel is at the tick before
 * theirs.
 */
static inline unsigned int calc_bit(u64 now, u64 expires)
{
	/* Bit 0 stands for "same tick": below the first level's top bit. */
	u64 diff = ((now + 1) ^ expires) | 1;

	/* __fls() takes a long: it holds the whole difference on 64 bits. */
	if (BITS_PER_LONG == 64)
		return __fls(diff);
	return fls64(diff) - 1;
}

/* Slot of tick @expires in the level of @bit, a calc_bit() answer. */
static inline unsigned int bit_slot(u64 expires, unsigned int bit)
{
	return (expires >> bit_tab.shift[bit]) & HWTIMER_WC_LVL_MASK;
}

/* Slot number of slot @slot of level @lvl. */
#define SLOT_INDEX(lvl, slot)	((lvl) * HWTIMER_WC_LVL_SIZE + (slot))

/*
 * Put @e, not in the wheel, in slot @slot of level @lvl, the one of its
 * deadline tick @expires (after the wheel's current tick).
 */
static inline void enqueue_slot(struct hwtimer_wc *wc,
				struct hwtimer_wc_entry *e,
				u64 expires, unsigned int lvl,
				unsigned int slot)
{
	unsigned int idx = SLOT_INDEX(lvl, slot);

	e->idx = idx;
	wc->occupied[lvl] |= BIT_ULL(slot);
	wc->levels |= BIT(lvl);
	if (expires < wc->slot_min[idx])
		wc->slot_min[idx] = expires;
	/* Last: with CONFIG_DEBUG_LIST a call, across which nothing is kept. */
	list_add_tail(&e->node, &wc->slots[idx]);
}

/* Put @e, not in the wheel, on the due list. */
static inline void enqueue_due(struct hwtimer_wc *wc,
			       struct hwtimer_wc_entry *e)
{
	e->idx = HWTIMER_WC_DUE;
	list_add_tail(&e->node, &wc->due);
}

/*
 * Put @e, not in the wheel, where its deadline tick @expires belongs
 * relative to the wheel's current tick: on the due list when that has been
 * reached. ceil(ns / tick) <= now exactly when ns <= now * tick: a deadline
 * is due in the tick it falls in, never before.
 */
static inline void enqueue_entry(struct hwtimer_wc *wc,
				 struct hwtimer_wc_entry *e,
				 u64 expires)
{
	unsigned int bit;

	if (expires <= wc->now) {
		enqueue_due(wc, e);
		return;
	}
	bit = calc_bit(wc->now, expires);
	enqueue_slot(wc, e, expires, bit_tab.level[bit], bit_slot(expires, bit));
}

/* Forget that slot @idx holds anything; its list is already empty. */
static void clear_slot(struct hwtimer_wc *wc, unsigned int idx)
{
	unsigned int lvl = idx / HWTIMER_WC_LVL_SIZE;

	wc->slot_min[idx] = U64_MAX;
	wc->occupied[lvl] &= ~BIT_ULL(idx % HWTIMER_WC_LVL_SIZE);
	if (!wc->occupied[lvl])
		wc->levels &= ~BIT(lvl);
}

/*
 * clear_slot() kept out of line, for a caller whose common path it would
 * crowd (more registers to save on every call for a rare branch).
 */
static noinline void clear_slot_cold(struct hwtimer_wc *wc, unsigned int idx)
{
	clear_slot(wc, idx);
}

/*
 * Unlink @e, which is in the wheel, from its slot or the due list, leaving
 * its node and slot number stale; true when that emptied its slot. Its two
 * neighbours are one and the same node only when @e was alone on its list,
 * and that node is then the list's head: a slot emptied by the unlink is
 * known without looking it up. An entry on the due list may still carry the
 * slot number it had before an advance collected it, so the due list's own
 * head is told apart; every entry on a slot list carries its slot's number.
 */
static inline bool unlink_entry(struct hwtimer_wc *wc,
				struct hwtimer_wc_entry *e)
{
	struct list_head *next = e->node.next;
	bool last = next == e->node.prev && next != &wc->due;

	__list_del_entry(&e->node);
	return last;
}

/* Take @e, which is in the wheel, out of its slot or the due list. */
static void detach_entry(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e)
{
	if (unlink_entry(wc, e))
		clear_slot(wc, e->idx);
	INIT_LIST_HEAD(&e->node);
	e->idx = HWTIMER_WC_IDLE;
}

/*
 * Are the entries of @tick, the tick after the current one, handed out at
 * their own deadlines? If they are at most HWTIMER_WC_EXACT_MAX. Placed
 * relative to that tick (calc_bit()), they are all in its level-0 slot,
 * and that slot holds no other. None follows the last tick, U64_MAX.
 */
static bool exact_tick(const struct hwtimer_wc *wc, u64 tick)
{
	const struct list_head *head, *pos;
	unsigned int n = 0;

	if (!tick)
		return false;
	head = &wc->slots[SLOT_INDEX(0, LVL_DIGIT(tick, 0))];
	list_for_each(pos, head)
		if (++n > HWTIMER_WC_EXACT_MAX)
			return false;
	return n;
}

/*
 * Hand out the entries of the next tick whose deadline @now_ns has reached,
 * when that tick's are handed out at their own deadlines. At most
 * HWTIMER_WC_EXACT_MAX looked at. Return: the number handed out.
 */
static u64 advance_exact(struct hwtimer_wc *wc, u64 now_ns,
			 struct list_head *expired)
{
	struct hwtimer_wc_entry *e, *tmp;
	u64 tick = wc->now + 1, n = 0;

	if (!exact_tick(wc, tick))
		return 0;
	list_for_each_entry_safe(e, tmp,
				 &wc->slots[SLOT_INDEX(0, LVL_DIGIT(tick, 0))],
				 node) {
		if (e->expires_ns > now_ns)
			continue;
		detach_entry(wc, e);
		list_add_tail(&e->node, expired);
		n++;
	}
	return n;
}

/**
 * hwtimer_wc_arm() - put an entry in the wheel
 * @wc: the wheel
 * @e: an entry not in any wheel
 * @expires_ns: absolute deadline in ns; any value up to U64_MAX
 *
 * A deadline at or before the wheel's current tick puts @e on the due list,
 * handed out by the next hwtimer_wc_advance(). O(1).
 *
 * Context: caller serialises all calls on @wc.
 */
void hwtimer_wc_arm(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e,
		    u64 expires_ns)
{
	e->expires_ns = expires_ns;
	enqueue_entry(wc, e, calc_tick(wc, expires_ns));
	wc->count++;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_arm);

/**
 * hwtimer_wc_cancel() - take an entry out of the wheel
 * @wc: the wheel
 * @e: an entry of @wc, or one not in any wheel
 *
 * O(1).
 *
 * Context: caller serialises all calls on @wc.
 * Return: true when @e was in the wheel, false when it was not.
 */
bool hwtimer_wc_cancel(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e)
{
	if (unlikely(!hwtimer_wc_entry_pending(e)))
		return false;
	detach_entry(wc, e);
	wc->count--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_cancel);

/**
 * hwtimer_wc_modify() - move an entry to a new deadline, or arm it
 * @wc: the wheel
 * @e: an entry of @wc, or one not in any wheel
 * @expires_ns: new absolute deadline in ns; any value up to U64_MAX
 *
 * hwtimer_wc_cancel() then hwtimer_wc_arm() in one step. A pending entry
 * whose new deadline falls in the slot it already sits in stays where it
 * is: only that slot's minimum is touched, not the lists. Like a cancel, a
 * move may leave hwtimer_wc_next_expiry() a lower bound rather than exact.
 * O(1).
 *
 * Context: caller serialises all calls on @wc.
 * Return: true when @e was in the wheel, false when it was armed afresh.
 */
bool hwtimer_wc_modify(struct hwtimer_wc *wc, struct hwtimer_wc_entry *e,
		       u64 expires_ns)
{
	unsigned int bit, lvl, slot, idx;
	u64 expires;

	if (unlikely(!hwtimer_wc_entry_pending(e))) {
		hwtimer_wc_arm(wc, e, expires_ns);
		return false;
	}
	e->expires_ns = expires_ns;
	expires = calc_tick(wc, expires_ns);
	if (unlikely(expires <= wc->now)) {
		if (unlink_entry(wc, e))
			clear_slot_cold(wc, e->idx);
		enqueue_due(wc, e);
		return true;
	}
	bit = calc_bit(wc->now, expires);
	lvl = bit_tab.level[bit];
	slot = bit_slot(expires, bit);
	idx = SLOT_INDEX(lvl, slot);
	/*
	 * With the due list empty every entry sits in the slot its deadline
	 * gives relative to the current tick; otherwise @e may be on the due
	 * list with the number of a slot it has left.
	 */
	if (idx == e->idx && list_empty(&wc->due)) {
		if (expires < wc->slot_min[idx])
			wc->slot_min[idx] = expires;
		return true;
	}
	if (unlink_entry(wc, e))
		clear_slot_cold(wc, e->idx);
	enqueue_slot(wc, e, expires, lvl, slot);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_modify);

/*
 * Mask of the slots of level @lvl whose range begins in (@old, @now]: those
 * between the two times' digits, or the whole level once @now has left the
 * level's window (the span its 64 slots cover around @old).
 */
static u64 passed_slots(u64 old, u64 now, unsigned int lvl)
{
	unsigned int top = LVL_SHIFT(lvl + 1);
	u64 lo, hi;

	if (top < 64 && (old >> top) != (now >> top))
		return ~0ULL;
	lo = LVL_DIGIT(old, lvl);
	hi = LVL_DIGIT(now, lvl);
	/* Bits lo+1 .. hi; "2 << 63" is 0 in u64, which makes the mask all ones. */
	return ((2ULL << hi) - 1) & ~((2ULL << lo) - 1);
}

/*
 * Mask of the level-0 slots of the ticks in (@old, @now], @old < @now: the
 * level holds the window of tick @old + 1, all of it due once @now has
 * left that window.
 */
static u64 due_slots(u64 old, u64 now)
{
	u64 next = old + 1;

	if ((next ^ now) >> HWTIMER_WC_LVL_BITS)
		return ~0ULL;
	return ((2ULL << LVL_DIGIT(now, 0)) - 1) &
	       ~((1ULL << LVL_DIGIT(next, 0)) - 1);
}

/* Move every entry of the slots in @mask at level @lvl onto @todo. */
static void collect_slots(struct hwtimer_wc *wc, unsigned int lvl, u64 mask,
			  struct list_head *todo)
{
	u64 hit = wc->occupied[lvl] & mask;

	while (hit) {
		unsigned int slot = __ffs64(hit);
		unsigned int idx = lvl * HWTIMER_WC_LVL_SIZE + slot;

		hit &= hit - 1;
		list_splice_tail_init(&wc->slots[idx], todo);
		clear_slot(wc, idx);
	}
}

/*
 * Move the current tick forward to @now, after it, emptying onto the due
 * list the slots whose range that begins: level 0's ticks up to @now, and
 * each higher slot once the next tick reaches it. O(levels). The entries
 * keep their old slot number until they are looked at; detach_entry()
 * copes with that (the slot's list is empty or holds others).
 */
static void move_to(struct hwtimer_wc *wc, u64 now)
{
	/* Entries are placed relative to the next tick (calc_bit()). */
	u64 next = wc->now + 1, to = now < U64_MAX ? now + 1 : now;
	unsigned int lvl;

	collect_slots(wc, 0, due_slots(wc->now, now), &wc->due);
	for (lvl = 1; lvl < HWTIMER_WC_LEVELS; lvl++) {
		u64 mask = passed_slots(next, to, lvl);

		collect_slots(wc, lvl, mask, &wc->due);
		/*
		 * A level whose window still holds the next tick leaves
		 * every higher level's window (and digit) unchanged.
		 */
		if (mask != ~0ULL)
			break;
	}
	wc->now = now;
}

/*
 * The next tick to move to on the way to wc->goal, the due list being
 * empty: that of the earliest occupied slot when it is in level 0, the
 * tick before the range of a higher one (so that all of its entries are
 * still ahead, and cascade to their own ticks instead of being handed out
 * together), or wc->goal when that comes first. Always after the current
 * tick: level 0 holds only later ticks, and a higher slot's range begins
 * after the next tick. O(1).
 */
static u64 next_stop(const struct hwtimer_wc *wc)
{
	u64 next = wc->now + 1, stop;
	unsigned int lvl, top;

	if (!wc->levels)
		return wc->goal;
	lvl = __ffs(wc->levels);
	top = LVL_SHIFT(lvl + 1);
	/* The next tick's digits above the level, the slot's own at it. */
	stop = top < 64 ? next >> top << top : 0;
	stop |= (u64)__ffs64(wc->occupied[lvl]) << LVL_SHIFT(lvl);
	if (lvl)
		stop--;
	return stop < wc->goal ? stop : wc->goal;
}

/*
 * Does slot @head hold more than @max entries? Looks at @max + 1 at most.
 */
static bool slot_over(const struct list_head *head, u64 max)
{
	const struct list_head *pos;

	list_for_each(pos, head)
		if (!max--)
			return true;
	return false;
}

/*
 * Hand out the due list's entries whose tick has come and cascade the
 * others, up to *@max of them, taking each from *@max. Return: the number
 * appended to @expired.
 */
static u64 walk_due(struct hwtimer_wc *wc, struct list_head *expired,
		    u64 *max)
{
	struct hwtimer_wc_entry *e;
	struct list_head *pos;
	u64 expires, n = 0;
	LIST_HEAD(run);

	/*
	 * The due entries stay where they are and go to @expired as one run
	 * at the end, cut off and spliced: no list operation per entry.
	 */
	pos = wc->due.next;
	while (*max && pos != &wc->due) {
		e = list_entry(pos, struct hwtimer_wc_entry, node);
		pos = pos->next;
		(*max)--;
		expires = calc_tick(wc, e->expires_ns);
		if (expires <= wc->now) {
			e->idx = HWTIMER_WC_IDLE;
			n++;
		} else {
			/* A later tick's entry, from a higher level: cascade. */
			list_del(&e->node);
			enqueue_entry(wc, e, expires);
		}
	}
	if (n) {
		list_cut_before(&run, &wc->due, pos);
		list_splice_tail(&run, expired);
	}
	return n;
}

/**
 * hwtimer_wc_advance_max() - move the wheel to a new time, handing out at
 *	most a bounded amount of what is due
 * @wc: the wheel
 * @now_ns: current time in ns; an earlier time than the latest one given
 *	moves the wheel no further than that one
 * @expired: list to append due entries to (linked by their node), tick
 *	after tick, within a tick in no particular order; they are no longer
 *	in the wheel
 * @max: most entries to look at (hand out or cascade) plus ticks to move
 *	to in this call
 *
 * The wheel moves towards @now_ns's tick from one occupied tick to the
 * next: at each, the slots whose range has begun are emptied onto the due
 * list, O(levels), and their entries handed out or cascaded one by one. A
 * higher level's slot is emptied just before its range begins, so its
 * entries cascade to their own ticks rather than being handed out
 * together: however late the call, what it and the calls after it hand
 * out comes tick after tick. A call that has already looked at some
 * entries stops before a tick with more than it has left (counting at
 * most that many), so a tick of fewer than @max entries is handed out by
 * one call. Work left when @max runs out (entries on the due list, ticks
 * not reached) stays in the wheel, cancelled as usual, and
 * hwtimer_wc_next_expiry() reports the current tick until a later call
 * has done it. A caller holding a lock with interrupts off can thus bound
 * the time it holds it by calling again with the lock dropped in between.
 * Once at @now_ns's tick with the due list empty, the next tick's entries
 * whose deadline @now_ns has reached are handed out too, when that tick
 * has at most HWTIMER_WC_EXACT_MAX (looked at beyond @max).
 *
 * Context: caller serialises all calls on @wc.
 * Return: number of entries appended to @expired.
 */
u64 hwtimer_wc_advance_max(struct hwtimer_wc *wc, u64 now_ns,
			   struct list_head *expired, u64 max)
{
	u64 now = div_u64(now_ns, wc->tick_ns), budget = max, n = 0, stop;

	if (now > wc->goal)
		wc->goal = now;
	for (;;) {
		n += walk_due(wc, expired, &max);
		if (!max || !list_empty(&wc->due) || wc->now == wc->goal)
			break;
		stop = next_stop(wc);
		/* A tick that would not fit waits for a fresh call. */
		if (max < budget && budget != U64_MAX &&
		    slot_over(&wc->slots[SLOT_INDEX(0, LVL_DIGIT(stop, 0))],
			      max - 1))
			break;
		max--;
		move_to(wc, stop);
	}
	/* Every earlier tick is handed out: the next one's first entries. */
	if (list_empty(&wc->due) && wc->now == wc->goal)
		n += advance_exact(wc, now_ns, expired);
	wc->count -= n;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_advance_max);

/**
 * hwtimer_wc_advance() - move the wheel to a new time, handing out what is due
 * @wc: the wheel
 * @now_ns: current time in ns; an earlier time than the wheel's moves nothing
 * @expired: list to append due entries to (linked by their node), tick
 *	after tick; they are no longer in the wheel
 *
 * hwtimer_wc_advance_max() without a bound: costs O(levels) per occupied
 * tick or higher slot on the way plus O(1) per entry handed out or
 * cascaded.
 *
 * Context: caller serialises all calls on @wc.
 * Return: number of entries appended to @expired.
 */
u64 hwtimer_wc_advance(struct hwtimer_wc *wc, u64 now_ns,
		       struct list_head *expired)
{
	return hwtimer_wc_advance_max(wc, now_ns, expired, U64_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_advance);

/**
 * hwtimer_wc_rewind() - move the wheel back to an earlier time
 * @wc: the wheel
 * @now_ns: current time in ns, on a clock that was set back (CLOCK_REALTIME)
 *
 * When @now_ns is before the start of the wheel's current tick, that tick
 * becomes @now_ns's, and every slot's list is moved whole onto the due
 * list: its entries were placed relative to the later tick. O(occupied
 * slots), at most HWTIMER_WC_SLOTS list splices, and no entry looked at.
 * The advances after it cascade those entries to their places or hand out
 * the ones whose tick has come, one by one, bounded per call as ever by
 * hwtimer_wc_advance_max(); until they are done, hwtimer_wc_next_expiry()
 * reports the current tick. No entry is handed out before @now_ns's tick
 * reaches its deadline. A time within the current tick or after it
 * changes nothing.
 *
 * Context: caller serialises all calls on @wc.
 * Return: true when the wheel moved back.
 */
bool hwtimer_wc_rewind(struct hwtimer_wc *wc, u64 now_ns)
{
	u64 now = div_u64(now_ns, wc->tick_ns);
	unsigned int lvl;

	if (now >= wc->now)
		return false;
	for (lvl = 0; lvl < HWTIMER_WC_LEVELS; lvl++)
		collect_slots(wc, lvl, ~0ULL, &wc->due);
	wc->now = now;
	wc->goal = now;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_rewind);

/**
 * hwtimer_wc_next_expiry() - when the wheel next needs advancing
 * @wc: the wheel
 * @tick: out: a tick at or before the earliest deadline in the wheel; exact
 *	unless an entry was cancelled or moved from that slot; the current
 *	tick when the due list is not empty or a bounded advance stopped
 *	short of its time (hwtimer_wc_advance_max())
 *
 * O(1): two find-first-bit operations.
 *
 * Context: caller serialises all calls on @wc.
 * Return: false when the wheel is empty and no advance has work left
 * (@tick untouched).
 */
bool hwtimer_wc_next_expiry(const struct hwtimer_wc *wc, u64 *tick)
{
	unsigned int lvl, slot;

	if (!list_empty(&wc->due) || wc->now < wc->goal) {
		*tick = wc->now;
		return true;
	}
	if (!wc->levels)
		return false;
	lvl = __ffs(wc->levels);
	slot = __ffs64(wc->occupied[lvl]);
	*tick = wc->slot_min[lvl * HWTIMER_WC_LVL_SIZE + slot];
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_next_expiry);

/*
 * When to advance to bring down the slot of @tick, past level 0, whose
 * level calc_bit() gave as @bit: the start of the tick before the slot's
 * range, where the next tick reaches it. As early as the wheel allows, so
 * that a large slot's cascade is done before its first entries are due.
 * That tick is after the current one: the slot's range begins after the
 * next tick.
 */
static u64 slot_down_ns(const struct hwtimer_wc *wc, u64 tick,
			unsigned int bit)
{
	u64 first = tick & ~(BIT_ULL(bit_tab.shift[bit]) - 1);

	return hwtimer_wc_tick_to_ns(wc, first - 1);
}

/**
 * hwtimer_wc_due_ns() - when to advance the wheel for a tick, to the ns
 * @wc: the wheel
 * @tick: a tick, such as hwtimer_wc_next_expiry() reports
 *
 * The earliest deadline in @tick's slot when that slot holds at most
 * HWTIMER_WC_EXACT_MAX entries: in level 0 they are @tick's own, handed
 * out at their own deadlines (see the top of this file); in a higher level
 * an advance to that time brings the slot down and then hands out the
 * entries of that deadline's tick as those of level 0. A fuller slot is
 * handed out at @tick's start when what it walked is all of @tick (a burst,
 * collected and handed out in one pass); a fuller slot of a higher level
 * that holds other ticks too is brought down as early as the wheel allows,
 * at the start of the tick before its range begins, after which @tick is
 * in a lower level and asked about again. Never later than @tick's
 * start. Walks at most HWTIMER_WC_EXACT_MAX + 1 entries.
 *
 * Context: caller serialises all calls on @wc.
 * Return: a time in ns.
 */
u64 hwtimer_wc_due_ns(const struct hwtimer_wc *wc, u64 tick)
{
	u64 start = hwtimer_wc_tick_to_ns(wc, tick), first = U64_MAX;
	const struct hwtimer_wc_entry *e;
	unsigned int bit, lvl, n = 0;
	bool mixed = false;

	if (tick <= wc->now)
		return start;
	bit = calc_bit(wc->now, tick);
	lvl = bit_tab.level[bit];
	list_for_each_entry(e, &wc->slots[SLOT_INDEX(lvl, bit_slot(tick, bit))],
			    node) {
		if (++n > HWTIMER_WC_EXACT_MAX)
			return mixed ? slot_down_ns(wc, tick, bit) : start;
		if (e->expires_ns < first)
			first = e->expires_ns;
		if (lvl && calc_tick(wc, e->expires_ns) != tick)
			mixed = true;
	}
	/*
	 * The slot's first deadline when it is before @tick's start; an
	 * empty slot (a stale lower bound) leaves @tick's start.
	 */
	return first < start ? first : start;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_due_ns);

/**
 * hwtimer_wc_drain_max() - take up to a bounded number of entries out
 * @wc: the wheel
 * @list: list to append them to (linked by their node), earliest slots
 *	first
 * @max: most entries to move
 *
 * O(1) per entry moved, so a caller holding a lock with interrupts off can
 * empty a full wheel in bounded steps, dropping the lock in between.
 *
 * Context: caller serialises all calls on @wc.
 * Return: number of entries moved; fewer than @max when the wheel is empty.
 */
u64 hwtimer_wc_drain_max(struct hwtimer_wc *wc, struct list_head *list,
			 u64 max)
{
	struct hwtimer_wc_entry *e;
	unsigned int lvl, idx;
	u64 n = 0;

	while (n < max) {
		if (!list_empty(&wc->due)) {
			e = list_first_entry(&wc->due, struct hwtimer_wc_entry,
					     node);
		} else if (wc->levels) {
			lvl = __ffs(wc->levels);
			idx = lvl * HWTIMER_WC_LVL_SIZE +
			      __ffs64(wc->occupied[lvl]);
			e = list_first_entry(&wc->slots[idx],
					     struct hwtimer_wc_entry, node);
		} else {
			break;
		}
		detach_entry(wc, e);
		list_add_tail(&e->node, list);
		n++;
	}
	wc->count -= n;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_drain_max);

/**
 * hwtimer_wc_drain() - take every entry out of the wheel
 * @wc: the wheel
 * @list: list to append them to (linked by their node)
 *
 * Context: caller serialises all calls on @wc.
 * Return: number of entries moved; the wheel is empty afterwards.
 */
u64 hwtimer_wc_drain(struct hwtimer_wc *wc, struct list_head *list)
{
	return hwtimer_wc_drain_max(wc, list, U64_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(hwtimer_wc_drain);
