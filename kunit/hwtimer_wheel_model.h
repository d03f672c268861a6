/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_wheel_model.h - a reference model of the wheel, and a random
 * operation driver that checks hwtimer_wheel.c against it.
 *
 * Shared by the KUnit suite (kunit/hwtimer_wheel_test.c) and the userspace
 * model checker (tools/testing/wheel/), which runs it for millions of
 * operations. The includer provides: the wheel's header, u64 and friends,
 * snprintf(), and the storage (see struct wm_state).
 *
 * The includer may define WM_YIELD() to let others run between operations
 * (the kernel build uses cond_resched(): the long runs would otherwise stall
 * RCU on a non-preemptible kernel).
 *
 * The model is a list of the armed entries sorted by nanosecond deadline and
 * a clock that moves forward, but for a rewind (a clock set back, as
 * CLOCK_REALTIME can be), after which nothing is due before its deadline
 * again. An entry is due once the model's time,
 * rounded down to a whole tick, has reached its deadline: the wheel's rule,
 * stated without its tick arithmetic. The entries of a tick after the
 * current one are due at their own deadlines when that tick is in the
 * window of 64 of the tick after the current one and has at most
 * HWTIMER_WC_EXACT_MAX of them.
 */
#ifndef _HWTIMER_WHEEL_MODEL_H
#define _HWTIMER_WHEEL_MODEL_H

/**
 * struct wm_item - one entry of the random test
 * @e: the wheel's entry
 * @deadline: deadline in ns given to the last arm
 * @armed: the model's view: armed and not yet fired or cancelled
 * @fired: set while checking one advance's output
 */
struct wm_item {
	struct hwtimer_wc_entry e;
	u64 deadline;
	bool armed;
	bool fired;
};

/**
 * struct wm_state - the wheel under test, the model and the counters
 * @wc: wheel under test (caller's storage)
 * @items: entries (caller's storage, @nitems of them)
 * @sorted: indices of armed items by ascending deadline (caller's storage)
 * @nitems: number of @items
 * @nsorted: number of armed items
 * @now: the model's current time in ns
 * @tick: tick length of the current round
 * @rng: xorshift64* state
 * @cancelled: an entry was cancelled since the model was last empty, so the
 *	wheel's next expiry may be a lower bound rather than exact
 * @ops: operations run
 * @fired: entries handed out
 * @cancels: successful cancels
 * @inexact: next-expiry answers that were a strict lower bound
 * @err: description of the first mismatch
 */
struct wm_state {
	struct hwtimer_wc *wc;
	struct wm_item *items;
	u32 *sorted;
	u32 nitems;
	u32 nsorted;
	u64 now;
	u32 tick;
	u64 rng;
	bool cancelled;
	u64 ops;
	u64 fired;
	u64 cancels;
	u64 inexact;
	char err[160];
};

#ifndef WM_YIELD
#define WM_YIELD() do { } while (0)
#endif

#define WM_FAIL(st, ...) ({ \
	snprintf((st)->err, sizeof((st)->err), __VA_ARGS__); -1; })

static inline u64 wm_rand(struct wm_state *st)
{
	st->rng ^= st->rng >> 12;
	st->rng ^= st->rng << 25;
	st->rng ^= st->rng >> 27;
	return st->rng * 0x2545F4914F6CDD1DULL;
}

/* Uniform-ish in [0, n]; n may be U64_MAX. */
static inline u64 wm_below(struct wm_state *st, u64 n)
{
	return n == U64_MAX ? wm_rand(st) : wm_rand(st) % (n + 1);
}

/* a + b, saturating at U64_MAX. */
static inline u64 wm_add(u64 a, u64 b)
{
	return a > U64_MAX - b ? U64_MAX : a + b;
}

/* Has the model's clock reached @deadline, counted in whole ticks? */
static inline bool wm_due(const struct wm_state *st, u64 deadline)
{
	return (st->now / st->tick) * st->tick >= deadline;
}

/* @deadline rounded up to a whole tick, as a tick number. */
static inline u64 wm_tick_of(const struct wm_state *st, u64 deadline)
{
	return deadline / st->tick + (deadline % st->tick != 0);
}

/*
 * Are the entries of @tick due at their own deadlines? When @tick is after
 * the wheel's current tick, in the window of 64 of the tick after it, and
 * has few entries.
 */
static inline bool wm_exact(const struct wm_state *st, u64 tick)
{
	u32 i, n = 0;

	if (tick <= st->wc->now ||
	    (tick ^ (st->wc->now + 1)) >> HWTIMER_WC_LVL_BITS)
		return false;
	for (i = 0; i < st->nsorted; i++)
		if (wm_tick_of(st, st->items[st->sorted[i]].deadline) == tick)
			n++;
	return n && n <= HWTIMER_WC_EXACT_MAX;
}

static inline void wm_sorted_insert(struct wm_state *st, u32 i)
{
	u64 d = st->items[i].deadline;
	u32 pos = st->nsorted;

	while (pos > 0 && st->items[st->sorted[pos - 1]].deadline > d) {
		st->sorted[pos] = st->sorted[pos - 1];
		pos--;
	}
	st->sorted[pos] = i;
	st->nsorted++;
}

static inline void wm_sorted_remove(struct wm_state *st, u32 i)
{
	u32 pos = 0;

	while (st->sorted[pos] != i)
		pos++;
	for (; pos + 1 < st->nsorted; pos++)
		st->sorted[pos] = st->sorted[pos + 1];
	st->nsorted--;
}

/**
 * wm_reset() - start a round: empty wheel and model at a time and tick
 * @st: state, with @wc, @items, @sorted and @nitems set by the caller
 * @tick: tick length in ns (>= 1)
 * @now: start time in ns
 */
static inline void wm_reset(struct wm_state *st, u32 tick, u64 now)
{
	u32 i;

	hwtimer_wc_init(st->wc, tick, now);
	for (i = 0; i < st->nitems; i++) {
		hwtimer_wc_entry_init(&st->items[i].e);
		st->items[i].armed = false;
		st->items[i].fired = false;
	}
	st->nsorted = 0;
	st->now = now;
	st->tick = tick;
	st->cancelled = false;
}

/* A random deadline: relative at a random level, absolute near U64_MAX, or past. */
static inline u64 wm_pick_deadline(struct wm_state *st)
{
	u64 r = wm_rand(st) % 16;
	unsigned int lvl = wm_rand(st) % HWTIMER_WC_LEVELS;
	u64 span;

	if (r == 0)
		return U64_MAX - wm_below(st, (u64)st->tick * 3);
	if (r == 1)
		return wm_below(st, st->now);
	if (r < 8)
		lvl = lvl % 3;
	span = U64_MAX;
	if (lvl < 10) {
		u64 ticks = 1ULL << (HWTIMER_WC_LVL_BITS * (lvl + 1));

		if (ticks <= U64_MAX / st->tick)
			span = ticks * st->tick;
	}
	return wm_add(st->now, wm_below(st, span));
}

static inline int wm_check_next(struct wm_state *st)
{
	u64 next, exact, at;
	bool any = hwtimer_wc_next_expiry(st->wc, &next);

	if (!st->nsorted) {
		st->cancelled = false;
		return any ? WM_FAIL(st, "next expiry %llu on an empty wheel",
				     (unsigned long long)next) : 0;
	}
	if (!any)
		return WM_FAIL(st, "no next expiry with %u armed", st->nsorted);
	exact = hwtimer_wc_ns_to_tick(st->wc,
				      st->items[st->sorted[0]].deadline);
	if (exact < st->wc->now)
		exact = st->wc->now;
	if (next > exact)
		return WM_FAIL(st, "next expiry %llu after earliest deadline tick %llu",
			       (unsigned long long)next,
			       (unsigned long long)exact);
	if (next < exact) {
		if (!st->cancelled)
			return WM_FAIL(st, "next expiry %llu before %llu with no cancel",
				       (unsigned long long)next,
				       (unsigned long long)exact);
		st->inexact++;
	}
	/* When to advance for it: by its start, at its first deadline if exact. */
	at = hwtimer_wc_due_ns(st->wc, next);
	if (at > hwtimer_wc_tick_to_ns(st->wc, next))
		return WM_FAIL(st, "due at %llu, after tick %llu starts",
			       (unsigned long long)at, (unsigned long long)next);
	if (next == exact && wm_exact(st, next) &&
	    at != st->items[st->sorted[0]].deadline)
		return WM_FAIL(st, "due at %llu, first deadline %llu",
			       (unsigned long long)at,
			       (unsigned long long)st->items[st->sorted[0]].deadline);
	return 0;
}

static inline int wm_arm(struct wm_state *st, u32 i)
{
	struct wm_item *it = &st->items[i];

	it->deadline = wm_pick_deadline(st);
	hwtimer_wc_arm(st->wc, &it->e, it->deadline);
	it->armed = true;
	wm_sorted_insert(st, i);
	if (!hwtimer_wc_entry_pending(&it->e))
		return WM_FAIL(st, "entry %u not pending after arm", i);
	return 0;
}

static inline int wm_cancel(struct wm_state *st, u32 i)
{
	struct wm_item *it = &st->items[i];
	bool was = hwtimer_wc_cancel(st->wc, &it->e);

	if (was != it->armed)
		return WM_FAIL(st, "cancel of entry %u said %d, model %d",
			       i, was, it->armed);
	if (was) {
		it->armed = false;
		wm_sorted_remove(st, i);
		st->cancelled = true;
		st->cancels++;
	}
	return 0;
}

/*
 * Check a list of handed-out entries, from advances to @t, against the
 * model's due prefix: the entries due in whole ticks, then those of the
 * next tick whose deadline @t has reached if that tick's are exact.
 */
static inline int wm_check_fired(struct wm_state *st, struct list_head *out,
				 u64 n, u64 t)
{
	bool exact = wm_exact(st, st->wc->now + 1);
	struct hwtimer_wc_entry *e;
	u64 seen = 0, due = 0;

	list_for_each_entry(e, out, node) {
		struct wm_item *it = container_of(e, struct wm_item, e);

		if (!it->armed || it->fired)
			return WM_FAIL(st, "entry %ld handed out twice or unarmed",
				       (long)(it - st->items));
		if (!wm_due(st, it->deadline) && it->deadline > t)
			return WM_FAIL(st, "entry early: deadline %llu now %llu tick %u",
				       (unsigned long long)it->deadline,
				       (unsigned long long)st->now, st->tick);
		if (hwtimer_wc_entry_pending(e))
			return WM_FAIL(st, "handed-out entry still pending");
		it->fired = true;
		seen++;
	}
	if (seen != n)
		return WM_FAIL(st, "advance returned %llu, listed %llu",
			       (unsigned long long)n, (unsigned long long)seen);
	while (due < st->nsorted &&
	       wm_due(st, st->items[st->sorted[due]].deadline))
		due++;
	while (exact && due < st->nsorted &&
	       st->items[st->sorted[due]].deadline <= t)
		due++;
	if (due != seen)
		return WM_FAIL(st, "advance to %llu handed out %llu, model %llu",
			       (unsigned long long)st->now,
			       (unsigned long long)seen, (unsigned long long)due);
	list_for_each_entry(e, out, node) {
		struct wm_item *it = container_of(e, struct wm_item, e);

		it->fired = false;
		it->armed = false;
		wm_sorted_remove(st, (u32)(it - st->items));
	}
	st->fired += seen;
	return 0;
}

/* A random step of time: small, one level's span, huge, or backwards. */
static inline u64 wm_pick_time(struct wm_state *st)
{
	u64 r = wm_rand(st) % 64;

	if (r < 40)
		return wm_add(st->now, wm_below(st, (u64)st->tick * 3));
	if (r < 58)
		return wm_add(st->now, wm_below(st, (u64)st->tick << (wm_rand(st) % 40)));
	if (r < 62 && st->nsorted)
		return st->items[st->sorted[0]].deadline;
	if (r < 63)
		return wm_below(st, st->now);
	return wm_add(st->now, wm_rand(st) >> (wm_rand(st) % 64));
}

/*
 * Advance to a random time; a quarter of the advances are bounded to a few
 * entries per call and repeated at the same time while work is left (the
 * next expiry is the current tick). Each call must hand out no tick before
 * one an earlier call handed out: the calls' outputs, each sorted, make
 * one run in deadline order. Entries armed at or before the current tick
 * (on the due list, in arm order) are left out of that: they are all
 * handed out first, whatever their order.
 */
static inline int wm_advance(struct wm_state *st)
{
	LIST_HEAD(out);
	u64 t = wm_pick_time(st);
	u64 max = wm_rand(st) % 4 ? U64_MAX : 1 + wm_rand(st) % 8;
	u64 n = 0, last = 0, start = st->wc->now, next;
	bool more;

	if (t > st->now)
		st->now = t;
	for (;;) {
		struct hwtimer_wc_entry *e;
		u64 first = U64_MAX, top = 0, tick;
		LIST_HEAD(part);
		u32 i;

		n += hwtimer_wc_advance_max(st->wc, t, &part, max);
		list_for_each_entry(e, &part, node) {
			tick = hwtimer_wc_ns_to_tick(st->wc, e->expires_ns);
			if (tick <= start)
				continue;
			first = tick < first ? tick : first;
			top = tick > top ? tick : top;
		}
		if (first < last)
			return WM_FAIL(st, "bounded advance handed out tick %llu after tick %llu",
				       (unsigned long long)first,
				       (unsigned long long)last);
		last = top > last ? top : last;
		list_splice_tail(&part, &out);
		more = hwtimer_wc_next_expiry(st->wc, &next) &&
		       next <= st->wc->now;
		if (!list_empty(&st->wc->due) && !more)
			return WM_FAIL(st, "work left on the due list but next expiry is not now");
		if (!more)
			break;
		/* Cancel between two bounded calls; skip what was handed out. */
		i = wm_rand(st) % st->nitems;
		if (st->items[i].armed &&
		    hwtimer_wc_entry_pending(&st->items[i].e) && wm_cancel(st, i))
			return -1;
	}
	return wm_check_fired(st, &out, n, t);
}

/*
 * Set the clock back by up to a random level's span, or to 0, as
 * clock_settime() may set CLOCK_REALTIME back. Nothing is handed out; the
 * wheel's next expiry becomes a lower bound (the current tick) until the
 * advances after it have cascaded what it moved.
 */
static inline int wm_rewind(struct wm_state *st)
{
	u64 back = wm_rand(st) % 8 ?
		wm_below(st, (u64)st->tick << (wm_rand(st) % 40)) : st->now;
	u64 t = st->now - (back < st->now ? back : st->now);
	u64 from = st->wc->now;
	bool want = t / st->tick < from;

	if (hwtimer_wc_rewind(st->wc, t) != want)
		return WM_FAIL(st, "rewind to %llu from tick %llu said %d",
			       (unsigned long long)t, (unsigned long long)from,
			       !want);
	if (want && st->wc->now != t / st->tick)
		return WM_FAIL(st, "rewind to %llu left tick %llu",
			       (unsigned long long)t,
			       (unsigned long long)st->wc->now);
	st->now = t;
	st->cancelled = true;
	return 0;
}

/* Drain the wheel and check it handed back exactly the armed set. */
static inline int wm_drain(struct wm_state *st)
{
	struct hwtimer_wc_entry *e, *tmp;
	LIST_HEAD(out);
	u64 n = hwtimer_wc_drain(st->wc, &out), seen = 0;

	list_for_each_entry_safe(e, tmp, &out, node) {
		struct wm_item *it = container_of(e, struct wm_item, e);

		if (!it->armed)
			return WM_FAIL(st, "drain returned an unarmed entry");
		it->armed = false;
		seen++;
	}
	if (seen != n || n != st->nsorted)
		return WM_FAIL(st, "drain returned %llu (listed %llu), model %u",
			       (unsigned long long)n,
			       (unsigned long long)seen, st->nsorted);
	st->nsorted = 0;
	if (st->wc->count || st->wc->levels)
		return WM_FAIL(st, "wheel not empty after drain");
	return 0;
}

/**
 * wm_step() - one random operation, checked against the model
 * @st: state after wm_reset()
 *
 * Return: 0, or -1 with @st->err describing the mismatch.
 */
static inline int wm_step(struct wm_state *st)
{
	u32 i = wm_rand(st) % st->nitems;
	u64 r = wm_rand(st) % 100;
	int ret;

	st->ops++;
	if (r < 45)
		ret = st->items[i].armed ? wm_cancel(st, i) : wm_arm(st, i);
	else if (r < 65)
		ret = wm_cancel(st, i);
	else if (r < 67)
		ret = wm_rewind(st);
	else
		ret = wm_advance(st);
	if (!ret && st->wc->count != st->nsorted)
		ret = WM_FAIL(st, "wheel counts %llu, model %u",
			      (unsigned long long)st->wc->count, st->nsorted);
	return ret ? ret : wm_check_next(st);
}

/**
 * wm_run() - rounds of random operations with random ticks and start times
 * @st: state with storage set
 * @seed: random seed (nonzero)
 * @ops: total operations
 * @round: operations per round; each round ends with a checked drain
 *
 * Return: 0, or -1 with @st->err set.
 */
static inline int wm_run(struct wm_state *st, u64 seed, u64 ops, u64 round)
{
	static const u32 ticks[] = { 1, 3, 7, 1000, 10000, 1000000, 1000000000 };
	u64 done = 0;

	st->rng = seed;
	while (done < ops) {
		u64 k = wm_rand(st) % 8;
		u32 tick = k < 7 ? ticks[k] : (u32)(wm_rand(st) | 1);
		u64 start = wm_rand(st) % 4 == 0 ? wm_rand(st) :
			wm_below(st, 1ULL << 40);
		u64 j;

		wm_reset(st, tick, start);
		for (j = 0; j < round && done < ops; j++, done++) {
			if (wm_step(st))
				return -1;
			if (!(j & 1023))
				WM_YIELD();
		}
		if (wm_drain(st))
			return -1;
	}
	return 0;
}

#endif /* _HWTIMER_WHEEL_MODEL_H */
