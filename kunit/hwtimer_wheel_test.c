// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite hwtimer_wheel: the pure wheel (hwtimer_wheel.c) with fake
 * time. Every case starts from an empty wheel at time 0 with a 1000 ns tick
 * (see wheel_init), so "tick t" is "t * 1000 ns".
 */
#include "hwtimer_kunit.h"
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hwtimer_wheel.h"

#define WM_YIELD() cond_resched()
#include "hwtimer_wheel_model.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define NENT	64
#define TICK	1000ULL

/**
 * struct wheel_ctx - per-case state, in test->priv
 * @wc: the wheel under test
 * @e: entries the case may arm
 * @out: what the last adv() handed out
 */
struct wheel_ctx {
	struct hwtimer_wc wc;
	struct hwtimer_wc_entry e[NENT];
	struct list_head out;
};

static int wheel_init(struct kunit *test)
{
	struct wheel_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	if (!c)
		return -ENOMEM;
	hwtimer_wc_init(&c->wc, TICK, 0);
	for (i = 0; i < NENT; i++)
		hwtimer_wc_entry_init(&c->e[i]);
	INIT_LIST_HEAD(&c->out);
	test->priv = c;
	return 0;
}

/* Advance to @now_ns; the handed-out entries replace c->out. */
static u64 adv(struct wheel_ctx *c, u64 now_ns)
{
	INIT_LIST_HEAD(&c->out);
	return hwtimer_wc_advance(&c->wc, now_ns, &c->out);
}

static bool in_out(struct wheel_ctx *c, struct hwtimer_wc_entry *e)
{
	struct hwtimer_wc_entry *p;

	list_for_each_entry(p, &c->out, node)
		if (p == e)
			return true;
	return false;
}

static unsigned int level_of(const struct hwtimer_wc_entry *e)
{
	return e->idx / HWTIMER_WC_LVL_SIZE;
}

/* Deadline tick the wheel works with for @e: its ns deadline rounded up. */
static u64 tick_of(struct wheel_ctx *c, const struct hwtimer_wc_entry *e)
{
	return hwtimer_wc_ns_to_tick(&c->wc, e->expires_ns);
}

static u64 next_tick(struct kunit *test, struct wheel_ctx *c)
{
	u64 t = 0;

	KUNIT_ASSERT_TRUE(test, hwtimer_wc_next_expiry(&c->wc, &t));
	return t;
}

/* Ticks from 0 at which level @l begins: 64^l. */
static u64 lvl_start(unsigned int l)
{
	return 1ULL << (HWTIMER_WC_LVL_BITS * l);
}

/* --- the level table of the design comment --- */

struct level_case {
	u64 ticks;
	unsigned int level;
	const char *name;
};

static const struct level_case level_cases[] = {
	{ 1, 0, "1 tick" }, { 63, 0, "63 ticks" },
	{ 64, 1, "64 ticks" }, { 4095, 1, "4095 ticks" },
	{ 4096, 2, "64^2" }, { 262143, 2, "64^3-1" },
	{ 262144, 3, "64^3" }, { 16777216, 4, "64^4" },
	{ 1ULL << 30, 5, "64^5" }, { 1ULL << 36, 6, "64^6" },
	{ 1ULL << 42, 7, "64^7" }, { 1ULL << 48, 8, "64^8" },
	{ 1ULL << 54, 9, "64^9" }, { 1ULL << 60, 10, "64^10" },
	{ U64_MAX, 10, "U64_MAX ticks" },
};

static void level_case_desc(const struct level_case *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s -> level %u", p->name,
		 p->level);
}

KUNIT_ARRAY_PARAM(level, level_cases, level_case_desc);

static void wheel_arm_lands_at_table_level(struct kunit *test)
{
	const struct level_case *p = test->param_value;
	struct wheel_ctx *c = test->priv;

	/* With a 1 ns tick the deadline in ns is the tick number. */
	hwtimer_wc_init(&c->wc, 1, 0);
	hwtimer_wc_arm(&c->wc, &c->e[0], p->ticks);
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), p->level);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), p->ticks);
}

static const unsigned int all_levels[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static void lvl_desc(const unsigned int *l, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "level %u", *l);
}

KUNIT_ARRAY_PARAM(lvl, all_levels, lvl_desc);

/* A deadline 1 ns past a level's first tick rounds up and never fires early. */
static void wheel_arm_rounds_up_at_level_edge(struct kunit *test)
{
	unsigned int l = *(const unsigned int *)test->param_value;
	struct wheel_ctx *c = test->priv;
	u64 t = lvl_start(l);

	/* 1 ns ticks would not round; use a 3 ns tick so 64^10 * 3 fits. */
	hwtimer_wc_init(&c->wc, 3, 0);
	hwtimer_wc_arm(&c->wc, &c->e[0], t * 3 + 1);
	KUNIT_EXPECT_EQ(test, tick_of(c, &c->e[0]), t + 1);
	KUNIT_EXPECT_EQ(test, adv(c, t * 3), 0ULL);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_entry_pending(&c->e[0]));
	/* Alone in the next tick, in the window: due at its own deadline. */
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, t + 1), t * 3 + 1);
	KUNIT_EXPECT_EQ(test, adv(c, t * 3 + 1), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[0]));
}

/* An entry placed at level L cascades to level 0 and fires on its tick. */
static void wheel_cascade_from_every_level(struct kunit *test)
{
	unsigned int l = *(const unsigned int *)test->param_value;
	struct wheel_ctx *c = test->priv;
	u64 d = lvl_start(l) + 5;	/* in ticks: level l, not slot-aligned */
	u64 prev = l;

	hwtimer_wc_init(&c->wc, 1, 0);
	hwtimer_wc_arm(&c->wc, &c->e[0], d);
	KUNIT_ASSERT_EQ(test, level_of(&c->e[0]), l);
	/* Step halfway to the deadline repeatedly: the level only goes down. */
	while (d - c->wc.now > 1) {
		KUNIT_ASSERT_EQ(test, adv(c, c->wc.now + (d - c->wc.now) / 2),
				0ULL);
		KUNIT_ASSERT_LE(test, (u64)level_of(&c->e[0]), prev);
		prev = level_of(&c->e[0]);
		KUNIT_ASSERT_EQ(test, next_tick(test, c), d);
	}
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 0U);
	KUNIT_EXPECT_EQ(test, adv(c, d), 1ULL);
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_entry_pending(&c->e[0]));
}

/* --- rounding and exactness --- */

static void wheel_arm_rounds_deadline_up_to_tick(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 1);
	hwtimer_wc_arm(&c->wc, &c->e[1], TICK);
	hwtimer_wc_arm(&c->wc, &c->e[2], TICK + 1);
	KUNIT_EXPECT_EQ(test, tick_of(c, &c->e[0]), 1ULL);
	KUNIT_EXPECT_EQ(test, tick_of(c, &c->e[1]), 1ULL);
	KUNIT_EXPECT_EQ(test, tick_of(c, &c->e[2]), 2ULL);
	/* The ns deadline itself is kept as given. */
	KUNIT_EXPECT_EQ(test, c->e[0].expires_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, c->e[2].expires_ns, TICK + 1);
}

static void wheel_never_fires_before_deadline(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 5 * TICK + 1);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK + 1), 1ULL);
}

/* A tick with few entries hands each out at its own deadline. */
static void wheel_small_tick_fires_at_each_deadline(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	/* Tick 5 holds the deadlines (4, 5] ticks. */
	hwtimer_wc_arm(&c->wc, &c->e[0], 4 * TICK + 300);
	hwtimer_wc_arm(&c->wc, &c->e[1], 4 * TICK + 100);
	hwtimer_wc_arm(&c->wc, &c->e[2], 5 * TICK);
	KUNIT_ASSERT_EQ(test, next_tick(test, c), 5ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 5), 4 * TICK + 100);
	KUNIT_EXPECT_EQ(test, adv(c, 4 * TICK + 99), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 4 * TICK + 100), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[1]));
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, next_tick(test, c)),
			4 * TICK + 300);
	KUNIT_EXPECT_EQ(test, adv(c, 4 * TICK + 500), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[0]));
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, next_tick(test, c)),
			5 * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK - 1), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK), 1ULL);
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
}

/*
 * Up to HWTIMER_WC_EXACT_MAX entries a tick is exact; one more and it is
 * handed out whole at its start, until a cancel makes it small again.
 */
static void wheel_full_tick_fires_at_its_start(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i < HWTIMER_WC_EXACT_MAX; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], 4 * TICK + 100 + i);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 5), 4 * TICK + 100);
	hwtimer_wc_arm(&c->wc, &c->e[i], 4 * TICK + 50);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 5), 5 * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK - 1), 0ULL);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[3]));
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 5), 4 * TICK + 50);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK - 1), (u64)HWTIMER_WC_EXACT_MAX);
}

/*
 * @e, alone with deadline @d in the wheel's next occupied tick @t, is due
 * at @d: not handed out 1 ns before, handed out at @d.
 */
static void expect_due_at(struct kunit *test, struct wheel_ctx *c,
			  struct hwtimer_wc_entry *e, u64 t, u64 d)
{
	KUNIT_ASSERT_EQ(test, next_tick(test, c), t);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, t), d);
	KUNIT_EXPECT_EQ(test, adv(c, d - 1), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, d), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, e));
}

/*
 * A lone entry past the current window, here in the first tick of the
 * next one, is due at its own deadline too: one advance then brings its
 * slot down and hands it out.
 */
static void wheel_next_window_tick_fires_at_its_deadline(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 63 * TICK + 500);
	KUNIT_ASSERT_EQ(test, level_of(&c->e[0]), 1U);
	expect_due_at(test, c, &c->e[0], 64, 63 * TICK + 500);
}

/*
 * A lone far entry is due at its own deadline, whatever level it waits in
 * (each one whose ticks this tick reaches): one wake-up, at the deadline,
 * not at its tick's start.
 */
static void wheel_lone_far_entry_due_at_its_deadline(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	unsigned int l;
	u64 t, d;

	for (l = 0; l < HWTIMER_WC_LEVELS - 1; l++) {
		hwtimer_wc_init(&c->wc, TICK, 0);
		t = lvl_start(l) + 5;
		d = t * TICK - TICK / 2;
		hwtimer_wc_arm(&c->wc, &c->e[0], d);
		KUNIT_ASSERT_EQ(test, level_of(&c->e[0]), l);
		expect_due_at(test, c, &c->e[0], t, d);
	}
}

/*
 * A slot past level 0 with more entries than are walked, of several ticks,
 * is brought down as early as the wheel allows: at the start of the tick
 * before its range, well before its first deadline. Its first tick is
 * then in level 0 and exact again.
 */
static void wheel_full_far_slot_comes_down_early(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	unsigned int i;

	/* Tick 70 (one entry) and ticks 71..102 share level 1's slot 1. */
	hwtimer_wc_arm(&c->wc, &c->e[0], 69 * TICK + 100);
	for (i = 1; i <= HWTIMER_WC_EXACT_MAX; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], (70 + i) * TICK);
	KUNIT_ASSERT_EQ(test, level_of(&c->e[0]), 1U);
	KUNIT_ASSERT_EQ(test, next_tick(test, c), 70ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 70), 63 * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, 63 * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 0U);
	expect_due_at(test, c, &c->e[0], 70, 69 * TICK + 100);
}

/*
 * A burst in one far tick, more entries than are walked, is handed out at
 * its tick's start in one pass, not brought down a tick before.
 */
static void wheel_far_burst_fires_at_its_start(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i <= HWTIMER_WC_EXACT_MAX; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], 63 * TICK + 100 + i);
	KUNIT_ASSERT_EQ(test, level_of(&c->e[0]), 1U);
	KUNIT_ASSERT_EQ(test, next_tick(test, c), 64ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_due_ns(&c->wc, 64), 64 * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, 64 * TICK), HWTIMER_WC_EXACT_MAX + 1ULL);
}

static void wheel_fires_on_its_tick_not_later(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 t;

	for (t = 1; t < 200; t++) {
		hwtimer_wc_arm(&c->wc, &c->e[0], t * TICK);
		KUNIT_ASSERT_EQ(test, next_tick(test, c), t);
		KUNIT_ASSERT_EQ(test, adv(c, t * TICK), 1ULL);
	}
}

static void wheel_past_deadline_is_due_at_once(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	adv(c, 100 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[0], 50 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[1], 100 * TICK);	/* the current tick */
	KUNIT_EXPECT_EQ(test, c->e[0].idx, HWTIMER_WC_DUE);
	KUNIT_EXPECT_EQ(test, c->e[1].idx, HWTIMER_WC_DUE);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 100ULL);
	/* Even an advance to an earlier time hands them out. */
	KUNIT_EXPECT_EQ(test, adv(c, 0), 2ULL);
}

static void wheel_advance_backwards_moves_nothing(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 20 * TICK);
	adv(c, 10 * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, 5 * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.now, 10ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 20 * TICK), 1ULL);
}

static void wheel_same_tick_all_fire_once(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	int i;

	for (i = 0; i < NENT; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], 3000 * TICK - i);
	KUNIT_EXPECT_EQ(test, adv(c, 3000 * TICK), (u64)NENT);
	for (i = 0; i < NENT; i++)
		KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[i]));
	KUNIT_EXPECT_EQ(test, adv(c, 4000 * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
}

static void wheel_slot_reused_after_window_wraps(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	/* Slot 5 of level 0 is behind us at tick 10; tick 69 uses it again. */
	adv(c, 10 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[0], 69 * TICK);
	KUNIT_EXPECT_EQ(test, c->e[0].idx, 1U * 64 + 1);
	adv(c, 64 * TICK);
	KUNIT_EXPECT_EQ(test, c->e[0].idx, 5U);
	KUNIT_EXPECT_EQ(test, adv(c, 68 * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 69 * TICK), 1ULL);
}

/* --- cancel at every position --- */

static void wheel_cancel_sole_entry_clears_slot(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 t;

	hwtimer_wc_arm(&c->wc, &c->e[0], 7 * TICK);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_entry_pending(&c->e[0]));
	KUNIT_EXPECT_EQ(test, c->wc.occupied[0], 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.levels, 0U);
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_next_expiry(&c->wc, &t));
	KUNIT_EXPECT_EQ(test, adv(c, 7 * TICK), 0ULL);
}

/* Cancel entry @victim of three sharing a slot; the other two still fire. */
static void cancel_one_of_three(struct kunit *test, int victim)
{
	struct wheel_ctx *c = test->priv;
	int i;

	for (i = 0; i < 3; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], 9 * TICK);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[victim]));
	KUNIT_EXPECT_NE(test, c->wc.occupied[0], 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 9 * TICK), 2ULL);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, in_out(c, &c->e[i]), i != victim);
}

static void wheel_cancel_head_of_slot(struct kunit *test)
{
	cancel_one_of_three(test, 0);
}

static void wheel_cancel_middle_of_slot(struct kunit *test)
{
	cancel_one_of_three(test, 1);
}

static void wheel_cancel_tail_of_slot(struct kunit *test)
{
	cancel_one_of_three(test, 2);
}

static void wheel_cancel_expired_entry_says_not_pending(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 2 * TICK);
	KUNIT_ASSERT_EQ(test, adv(c, 2 * TICK), 1ULL);
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
}

static void wheel_cancel_idle_and_twice(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	KUNIT_EXPECT_FALSE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	hwtimer_wc_arm(&c->wc, &c->e[0], 2 * TICK);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
}

static void wheel_cancel_due_entry(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	adv(c, 10 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[0], TICK);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_EQ(test, adv(c, 11 * TICK), 0ULL);
}

static void wheel_cancel_at_high_level(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], lvl_start(4) * TICK);
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 4U);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[0]));
	KUNIT_EXPECT_EQ(test, c->wc.levels, 0U);
}

static void wheel_rearm_after_fire_and_cancel(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 2 * TICK);
	adv(c, 2 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[0], 4 * TICK);
	hwtimer_wc_cancel(&c->wc, &c->e[0]);
	hwtimer_wc_arm(&c->wc, &c->e[0], 3 * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 3ULL);
	KUNIT_EXPECT_EQ(test, adv(c, 3 * TICK), 1ULL);
}

/* --- next expiry after every kind of operation --- */

static void wheel_next_expiry_empty(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 t = 12345;

	KUNIT_EXPECT_FALSE(test, hwtimer_wc_next_expiry(&c->wc, &t));
	KUNIT_EXPECT_EQ(test, t, 12345ULL);
}

static void wheel_next_expiry_after_arm_earlier(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 500000 * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 500000ULL);
	hwtimer_wc_arm(&c->wc, &c->e[1], 70 * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 70ULL);
	hwtimer_wc_arm(&c->wc, &c->e[2], 3 * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 3ULL);
}

/* A far deadline is reported exactly: one wake-up, not one per cascade. */
static void wheel_next_expiry_exact_for_high_levels(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 d = 3600ULL * 1000 * 1000;	/* an hour of 1 us ticks */

	hwtimer_wc_arm(&c->wc, &c->e[0], d * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), d);
	KUNIT_EXPECT_EQ(test, adv(c, next_tick(test, c) * TICK), 1ULL);
}

static void wheel_next_expiry_after_cancel_is_lower_bound(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 100 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[1], 120 * TICK);
	hwtimer_wc_cancel(&c->wc, &c->e[0]);
	/* Same slot at level 1: the stale minimum may stay, never later. */
	KUNIT_EXPECT_LE(test, next_tick(test, c), 120ULL);
	KUNIT_EXPECT_EQ(test, adv(c, next_tick(test, c) * TICK), 0ULL);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 120ULL);
}

static void wheel_next_expiry_after_advance_and_drain(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	LIST_HEAD(all);
	u64 t;

	hwtimer_wc_arm(&c->wc, &c->e[0], 10 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[1], 5000 * TICK);
	adv(c, 10 * TICK);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), 5000ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_drain(&c->wc, &all), 1ULL);
	KUNIT_EXPECT_FALSE(test, hwtimer_wc_next_expiry(&c->wc, &t));
}

/* --- the U64_MAX edge --- */

static void wheel_u64_max_deadline_one_ns_tick(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_init(&c->wc, 1, U64_MAX - 100);
	hwtimer_wc_arm(&c->wc, &c->e[0], U64_MAX);
	hwtimer_wc_arm(&c->wc, &c->e[1], U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX - 2), 0ULL);
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX - 1), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[1]));
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[0]));
}

static void wheel_u64_max_deadline_rounds_without_wrap(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	/* U64_MAX is not a multiple of 1000: its tick starts past U64_MAX ns. */
	hwtimer_wc_arm(&c->wc, &c->e[0], U64_MAX);
	KUNIT_EXPECT_EQ(test, tick_of(c, &c->e[0]), U64_MAX / TICK + 1);
	KUNIT_EXPECT_EQ(test,
			hwtimer_wc_tick_to_ns(&c->wc, tick_of(c, &c->e[0])),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 9U);
	/* Never early: not even 1 ns before, in its tick's window. */
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX - 1), 0ULL);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_entry_pending(&c->e[0]));
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 0U);
	/* Its tick, never started, is small: served at its deadline. */
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX), 1ULL);
}

/* A full last tick, whose start is past U64_MAX ns, is never reached. */
static void wheel_full_last_tick_never_reached(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i <= HWTIMER_WC_EXACT_MAX; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], U64_MAX - i);
	KUNIT_EXPECT_EQ(test, adv(c, U64_MAX), 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.count, HWTIMER_WC_EXACT_MAX + 1ULL);
}

static void wheel_tick_conversion_saturates(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, hwtimer_wc_ns_to_tick(&c->wc, U64_MAX),
			U64_MAX / TICK + 1);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_ns_to_tick(&c->wc, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_tick_to_ns(&c->wc, U64_MAX), U64_MAX);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_tick_to_ns(&c->wc, 5), 5 * TICK);
	hwtimer_wc_init(&c->wc, 1, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_ns_to_tick(&c->wc, U64_MAX), U64_MAX);
}

/* --- long idle jumps --- */

static void wheel_long_jump_hands_out_everything_due(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	int i;

	/* Deadlines spread over levels 0..9; jump far past them in one go. */
	hwtimer_wc_init(&c->wc, 1, 0);
	for (i = 0; i < 40; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], lvl_start(i / 4) + i);
	KUNIT_EXPECT_EQ(test, adv(c, lvl_start(10)), 40ULL);
	KUNIT_EXPECT_EQ(test, c->wc.levels, 0U);
}

static void wheel_long_jump_keeps_later_entries(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 jump = lvl_start(5) + 17;

	hwtimer_wc_arm(&c->wc, &c->e[0], (jump - 1) * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[1], (jump + 1) * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[2], (jump + lvl_start(3)) * TICK);
	KUNIT_EXPECT_EQ(test, adv(c, jump * TICK), 1ULL);
	KUNIT_EXPECT_TRUE(test, in_out(c, &c->e[0]));
	KUNIT_EXPECT_EQ(test, next_tick(test, c), jump + 1);
	KUNIT_EXPECT_EQ(test, adv(c, (jump + 1) * TICK), 1ULL);
	KUNIT_EXPECT_EQ(test, next_tick(test, c), jump + lvl_start(3));
}

/* An empty wheel crosses 2^63 ticks with one level touched per window. */
static void wheel_idle_jump_is_cheap(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	int i;

	for (i = 1; i <= 1000; i++)
		KUNIT_ASSERT_EQ(test, adv(c, (u64)i << 53), 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.now, (1000ULL << 53) / TICK);
}

/* A bounded advance leaves the rest on the due list, still cancellable. */
static void wheel_bounded_advance_hands_out_in_steps(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 n = 0, t;
	int i;

	for (i = 0; i < 40; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], (70 + i % 3) * TICK);
	INIT_LIST_HEAD(&c->out);
	n = hwtimer_wc_advance_max(&c->wc, 71 * TICK, &c->out, 5);
	KUNIT_EXPECT_LE(test, n, 5ULL);
	/* Work left: the next expiry is the current tick, not past 71. */
	KUNIT_EXPECT_EQ(test, next_tick(test, c), c->wc.now);
	KUNIT_EXPECT_LE(test, c->wc.now, 71ULL);
	/* e[39] is due at tick 70 (39 % 3 == 0) and not handed out yet. */
	if (!in_out(c, &c->e[39]))
		KUNIT_EXPECT_TRUE(test, hwtimer_wc_cancel(&c->wc, &c->e[39]));
	while (next_tick(test, c) <= c->wc.now)
		n += hwtimer_wc_advance_max(&c->wc, 71 * TICK, &c->out, 5);
	/* 27 entries are due at ticks 70 and 71; 13 wait for tick 72. */
	KUNIT_EXPECT_EQ(test, n + !in_out(c, &c->e[39]), 27ULL);
	KUNIT_EXPECT_EQ(test, c->wc.count, 13ULL);
	KUNIT_EXPECT_TRUE(test, hwtimer_wc_next_expiry(&c->wc, &t));
	KUNIT_EXPECT_EQ(test, t, 72ULL);
}

/*
 * A late bounded advance over a higher slot armed latest first, two
 * entries a tick: it hands out tick after tick, so the calls' outputs,
 * each sorted, make one run in deadline order, and never splits a tick
 * that fits in a call.
 */
static void wheel_late_bounded_advance_keeps_tick_order(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	u64 n = 0, last = 0, t, tick;
	struct hwtimer_wc_entry *e;
	int i, calls = 0;
	bool first;

	for (i = 0; i < NENT; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], (127 - i / 2) * TICK);
	KUNIT_EXPECT_EQ(test, level_of(&c->e[0]), 1U);
	do {
		INIT_LIST_HEAD(&c->out);
		n += hwtimer_wc_advance_max(&c->wc, 200 * TICK, &c->out, 8);
		calls++;
		first = true;
		list_for_each_entry(e, &c->out, node) {
			tick = tick_of(c, e);
			if (first && last)
				KUNIT_EXPECT_GT(test, tick, last);
			else
				KUNIT_EXPECT_GE(test, tick, last);
			last = tick;
			first = false;
		}
	} while (hwtimer_wc_next_expiry(&c->wc, &t) && t <= c->wc.now);
	KUNIT_EXPECT_EQ(test, n, (u64)NENT);
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.now, 200ULL);
	KUNIT_EXPECT_GE(test, calls, NENT / 8);
}

/* --- drain and counts --- */

static void wheel_drain_returns_every_entry(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;
	struct hwtimer_wc_entry *e;
	LIST_HEAD(all);
	int i, n = 0;

	adv(c, 5 * TICK);
	for (i = 0; i < NENT; i++)
		hwtimer_wc_arm(&c->wc, &c->e[i], (u64)i * i * i * i * TICK);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_drain(&c->wc, &all), (u64)NENT);
	list_for_each_entry(e, &all, node) {
		KUNIT_EXPECT_FALSE(test, hwtimer_wc_entry_pending(e));
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, NENT);
	KUNIT_EXPECT_EQ(test, c->wc.count, 0ULL);
	KUNIT_EXPECT_EQ(test, c->wc.levels, 0U);
	KUNIT_EXPECT_EQ(test, hwtimer_wc_drain(&c->wc, &all), 0ULL);
}

static void wheel_count_tracks_arm_cancel_fire(struct kunit *test)
{
	struct wheel_ctx *c = test->priv;

	hwtimer_wc_arm(&c->wc, &c->e[0], 1 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[1], 2 * TICK);
	hwtimer_wc_arm(&c->wc, &c->e[2], 3 * TICK);
	KUNIT_EXPECT_EQ(test, c->wc.count, 3ULL);
	hwtimer_wc_cancel(&c->wc, &c->e[1]);
	KUNIT_EXPECT_EQ(test, c->wc.count, 2ULL);
	adv(c, 1 * TICK);
	KUNIT_EXPECT_EQ(test, c->wc.count, 1ULL);
}

/* --- random operations against the reference model --- */

static void run_model(struct kunit *test, u64 seed, u64 ops, u64 round)
{
	struct wm_state st = { .nitems = 256 };

	st.wc = kunit_kzalloc(test, sizeof(*st.wc), GFP_KERNEL);
	st.items = kunit_kcalloc(test, st.nitems, sizeof(*st.items),
				 GFP_KERNEL);
	st.sorted = kunit_kcalloc(test, st.nitems, sizeof(*st.sorted),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st.wc);
	KUNIT_ASSERT_NOT_NULL(test, st.items);
	KUNIT_ASSERT_NOT_NULL(test, st.sorted);
	KUNIT_EXPECT_EQ_MSG(test, wm_run(&st, seed, ops, round), 0,
			    "after %llu ops: %s", st.ops, st.err);
	kunit_info(test, "%llu ops, %llu fired, %llu cancelled, %llu lower-bound next expiries\n",
		   st.ops, st.fired, st.cancels, st.inexact);
}

static void wheel_matches_model_short(struct kunit *test)
{
	run_model(test, 0x1234567, 20000, 5000);
}

static void wheel_matches_model_random(struct kunit *test)
{
	run_model(test, 0xfeedbeef, 1000000, 100000);
}

static struct kunit_case hwtimer_wheel_cases[] = {
	KUNIT_CASE_PARAM(wheel_arm_lands_at_table_level, level_gen_params),
	KUNIT_CASE_PARAM(wheel_arm_rounds_up_at_level_edge, lvl_gen_params),
	KUNIT_CASE_PARAM(wheel_cascade_from_every_level, lvl_gen_params),
	KUNIT_CASE(wheel_arm_rounds_deadline_up_to_tick),
	KUNIT_CASE(wheel_never_fires_before_deadline),
	KUNIT_CASE(wheel_small_tick_fires_at_each_deadline),
	KUNIT_CASE(wheel_full_tick_fires_at_its_start),
	KUNIT_CASE(wheel_next_window_tick_fires_at_its_deadline),
	KUNIT_CASE(wheel_lone_far_entry_due_at_its_deadline),
	KUNIT_CASE(wheel_full_far_slot_comes_down_early),
	KUNIT_CASE(wheel_far_burst_fires_at_its_start),
	KUNIT_CASE(wheel_fires_on_its_tick_not_later),
	KUNIT_CASE(wheel_past_deadline_is_due_at_once),
	KUNIT_CASE(wheel_advance_backwards_moves_nothing),
	KUNIT_CASE(wheel_same_tick_all_fire_once),
	KUNIT_CASE(wheel_slot_reused_after_window_wraps),
	KUNIT_CASE(wheel_cancel_sole_entry_clears_slot),
	KUNIT_CASE(wheel_cancel_head_of_slot),
	KUNIT_CASE(wheel_cancel_middle_of_slot),
	KUNIT_CASE(wheel_cancel_tail_of_slot),
	KUNIT_CASE(wheel_cancel_expired_entry_says_not_pending),
	KUNIT_CASE(wheel_cancel_idle_and_twice),
	KUNIT_CASE(wheel_cancel_due_entry),
	KUNIT_CASE(wheel_cancel_at_high_level),
	KUNIT_CASE(wheel_rearm_after_fire_and_cancel),
	KUNIT_CASE(wheel_next_expiry_empty),
	KUNIT_CASE(wheel_next_expiry_after_arm_earlier),
	KUNIT_CASE(wheel_next_expiry_exact_for_high_levels),
	KUNIT_CASE(wheel_next_expiry_after_cancel_is_lower_bound),
	KUNIT_CASE(wheel_next_expiry_after_advance_and_drain),
	KUNIT_CASE(wheel_u64_max_deadline_one_ns_tick),
	KUNIT_CASE(wheel_u64_max_deadline_rounds_without_wrap),
	KUNIT_CASE(wheel_full_last_tick_never_reached),
	KUNIT_CASE(wheel_tick_conversion_saturates),
	KUNIT_CASE(wheel_long_jump_hands_out_everything_due),
	KUNIT_CASE(wheel_long_jump_keeps_later_entries),
	KUNIT_CASE(wheel_idle_jump_is_cheap),
	KUNIT_CASE(wheel_bounded_advance_hands_out_in_steps),
	KUNIT_CASE(wheel_late_bounded_advance_keeps_tick_order),
	KUNIT_CASE(wheel_drain_returns_every_entry),
	KUNIT_CASE(wheel_count_tracks_arm_cancel_fire),
	KUNIT_CASE(wheel_matches_model_short),
	KUNIT_CASE_SLOW(wheel_matches_model_random),
	{}
};

static struct kunit_suite hwtimer_wheel_suite = {
	.name = "hwtimer_wheel",
	.init = wheel_init,
	.test_cases = hwtimer_wheel_cases,
};

kunit_test_suite(hwtimer_wheel_suite);

MODULE_DESCRIPTION("KUnit tests for the hwtimer wheel core");
MODULE_LICENSE("GPL");
