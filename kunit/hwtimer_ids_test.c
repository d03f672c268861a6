// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite hwtimer_ids: the id table of a /dev/hwtimer context
 * (chardev/hwtimer_ids.c) on its own. Every case starts from an empty table
 * with tag TAG and the largest maximum (see ids_init); its objects are the
 * u64 id fields in ids_ctx.obj. Each table call takes the table's lock
 * around it, so that no assertion fails with the lock held.
 */
#include "hwtimer_kunit.h"
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "chardev/hwtimer_ids.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define TAG	0xabcdeU
#define NOBJ	1024
/* Slots of a table that has grown once, and the ids it holds. */
#define FIRST	HWTIMER_IDS_MIN
#define FIRST_IDS	(FIRST - 1)

/**
 * struct ids_ctx - per-case state, in test->priv
 * @lock: the table's lock
 * @ids: the table under test
 * @obj: the objects: just their id fields
 * @live: @obj[i] holds a live id (random case)
 */
struct ids_ctx {
	spinlock_t lock;	/* protects @ids */
	struct hwtimer_ids ids;
	u64 obj[NOBJ];
	bool live[NOBJ];
};

static u64 mkid(u32 tag, u32 gen, u32 idx)
{
	return (u64)tag << HWTIMER_IDS_TAG_SHIFT |
	       (u64)gen << HWTIMER_IDS_GEN_SHIFT | idx;
}

static u32 idx_of(u64 id)
{
	return id & HWTIMER_IDS_IDX_MASK;
}

static u32 gen_of(u64 id)
{
	return (id >> HWTIMER_IDS_GEN_SHIFT) & HWTIMER_IDS_GEN_MASK;
}

static int grow(struct ids_ctx *c)
{
	int ret;

	spin_lock(&c->lock);
	ret = hwtimer_ids_grow(&c->ids);
	spin_unlock(&c->lock);
	return ret;
}

/* Give @obj[@i] an id; 0 when the table is full. */
static u64 alloc(struct ids_ctx *c, int i)
{
	u64 id;

	spin_lock(&c->lock);
	id = hwtimer_ids_alloc(&c->ids, &c->obj[i]);
	spin_unlock(&c->lock);
	return id;
}

static void free_id(struct ids_ctx *c, u64 id)
{
	spin_lock(&c->lock);
	hwtimer_ids_free(&c->ids, id);
	spin_unlock(&c->lock);
}

static void put_back(struct ids_ctx *c, u64 id)
{
	spin_lock(&c->lock);
	hwtimer_ids_put_back(&c->ids, id);
	spin_unlock(&c->lock);
}

static u64 *lookup(struct ids_ctx *c, u64 id)
{
	u64 *idp;

	spin_lock(&c->lock);
	idp = hwtimer_ids_lookup(&c->ids, id);
	spin_unlock(&c->lock);
	return idp;
}

/* Give objects 0 to @n - 1 an id each; false if one got none. */
static bool fill(struct ids_ctx *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!alloc(c, i))
			return false;
	return true;
}

/* Objects 0 to @n - 1 are found by their ids. */
static void expect_found(struct kunit *test, struct ids_ctx *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, lookup(c, c->obj[i]), &c->obj[i]);
}

static int ids_init(struct kunit *test)
{
	struct ids_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	spin_lock_init(&c->lock);
	hwtimer_ids_init(&c->ids, &c->lock, TAG, HWTIMER_IDS_MAX);
	test->priv = c;
	return 0;
}

static void ids_exit(struct kunit *test)
{
	struct ids_ctx *c = test->priv;

	hwtimer_ids_destroy(&c->ids);
}

/* An empty table has no slot; the first growth gives HWTIMER_IDS_MIN. */
static void ids_empty_table_hands_out_nothing(struct kunit *test)
{
	struct ids_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, c->ids.cap, 0U);
	KUNIT_EXPECT_EQ(test, alloc(c, 0), 0ULL);
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 0, 1)));
	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_EXPECT_EQ(test, c->ids.cap, FIRST);
}

/* Ids start at index 1, generation 0, in index order, with the tag. */
static void ids_start_at_one(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	int i;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	for (i = 0; i < FIRST_IDS; i++)
		KUNIT_EXPECT_EQ(test, c->obj[i], mkid(TAG, 0, i + 1));
}

/* Live ids are distinct, each finds its object, a full table says 0. */
static void ids_unique_while_live(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	int i, j;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	for (i = 0; i < FIRST_IDS; i++)
		for (j = i + 1; j < FIRST_IDS; j++)
			KUNIT_EXPECT_NE(test, c->obj[i], c->obj[j]);
	expect_found(test, c, FIRST_IDS);
	KUNIT_EXPECT_EQ(test, alloc(c, FIRST_IDS), 0ULL);
}

/* A freed slot comes back with the next generation; the old id misses. */
static void ids_free_bumps_generation(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u64 old;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	old = c->obj[9];
	free_id(c, old);
	KUNIT_EXPECT_NULL(test, lookup(c, old));
	KUNIT_ASSERT_NE(test, alloc(c, FIRST_IDS), 0ULL);
	KUNIT_EXPECT_EQ(test, c->obj[FIRST_IDS], mkid(TAG, 1, idx_of(old)));
	KUNIT_EXPECT_NULL(test, lookup(c, old));
	KUNIT_EXPECT_PTR_EQ(test, lookup(c, c->obj[FIRST_IDS]),
			    &c->obj[FIRST_IDS]);
}

/* Freed slots are handed out again oldest first. */
static void ids_reuse_oldest_first(struct kunit *test)
{
	static const int order[] = { 30, 4, 50, 17 };
	struct ids_ctx *c = test->priv;
	unsigned int i;
	u64 id;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	for (i = 0; i < ARRAY_SIZE(order); i++)
		free_id(c, c->obj[order[i]]);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		id = alloc(c, order[i]);
		KUNIT_EXPECT_EQ(test, id, mkid(TAG, 1, order[i] + 1));
	}
	expect_found(test, c, FIRST_IDS);
}

/* An id put back unseen comes out again the same. */
static void ids_put_back_keeps_generation(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u64 id;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	id = alloc(c, 0);
	KUNIT_ASSERT_NE(test, id, 0ULL);
	put_back(c, id);
	KUNIT_EXPECT_NULL(test, lookup(c, id));
	/* Slots 2..63 are ahead of slot 1 on the free list now. */
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	KUNIT_EXPECT_EQ(test, c->obj[FIRST_IDS - 1], id);
	KUNIT_EXPECT_PTR_EQ(test, lookup(c, id), &c->obj[FIRST_IDS - 1]);
}

/* 0, index 0, an index past the table, another tag or generation miss. */
static void ids_lookup_misses_what_is_not_live(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u64 id;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	id = alloc(c, 0);
	KUNIT_ASSERT_EQ(test, id, mkid(TAG, 0, 1));
	KUNIT_EXPECT_NULL(test, lookup(c, 0));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 0, 0)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 0, 2)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 0, FIRST)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 0, HWTIMER_IDS_IDX_MASK)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG + 1, 0, 1)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(0, 0, 1)));
	KUNIT_EXPECT_NULL(test, lookup(c, mkid(TAG, 1, 1)));
	KUNIT_EXPECT_NULL(test, lookup(c, U64_MAX));
	KUNIT_EXPECT_PTR_EQ(test, lookup(c, id), &c->obj[0]);
}

/* Doubling keeps every live id; the slots freed before come first. */
static void ids_grow_keeps_live_ids(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	int i;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	for (i = 0; i < FIRST_IDS; i += 2)
		free_id(c, c->obj[i]);
	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_EXPECT_EQ(test, c->ids.cap, 2 * FIRST);
	for (i = 1; i < FIRST_IDS; i += 2)
		KUNIT_EXPECT_PTR_EQ(test, lookup(c, c->obj[i]), &c->obj[i]);
	for (i = 0; i < FIRST_IDS; i += 2) {
		KUNIT_ASSERT_NE(test, alloc(c, i), 0ULL);
		KUNIT_EXPECT_EQ(test, c->obj[i], mkid(TAG, 1, i + 1));
	}
	/* Then the new slots, in order, up to a full table. */
	for (i = FIRST_IDS; i < 2 * FIRST - 1; i++) {
		KUNIT_ASSERT_NE(test, alloc(c, i), 0ULL);
		KUNIT_EXPECT_EQ(test, c->obj[i], mkid(TAG, 0, i + 1));
	}
	KUNIT_EXPECT_EQ(test, alloc(c, i), 0ULL);
	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_EXPECT_EQ(test, c->ids.cap, 4 * FIRST);
	expect_found(test, c, 2 * FIRST - 1);
}

/* A table never grows past its maximum, and holds one id fewer. */
static void ids_max_is_enforced(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u32 max = 4 * FIRST;

	hwtimer_ids_init(&c->ids, &c->lock, TAG, max);
	while (grow(c) == 0)
		KUNIT_ASSERT_LE(test, c->ids.cap, max);
	KUNIT_EXPECT_EQ(test, c->ids.cap, max);
	KUNIT_EXPECT_EQ(test, grow(c), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, fill(c, max - 1));
	KUNIT_EXPECT_EQ(test, alloc(c, max - 1), 0ULL);
	expect_found(test, c, max - 1);
	KUNIT_EXPECT_EQ(test, c->obj[max - 2], mkid(TAG, 0, max - 1));
}

/* A maximum that is not a power of two stops the doubling below it. */
static void ids_max_between_sizes(struct kunit *test)
{
	struct ids_ctx *c = test->priv;

	hwtimer_ids_init(&c->ids, &c->lock, TAG, 3 * FIRST);
	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_EXPECT_EQ(test, grow(c), -ENOMEM);
	KUNIT_EXPECT_EQ(test, c->ids.cap, 2 * FIRST);
	hwtimer_ids_destroy(&c->ids);
	hwtimer_ids_init(&c->ids, &c->lock, TAG, U32_MAX);
	KUNIT_EXPECT_EQ(test, c->ids.max, HWTIMER_IDS_MAX);
}

/* After 2^20 reuses a slot's generation wraps and its first id is back. */
static void ids_generation_wraps(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u64 first, id, prev;
	u32 n;

	KUNIT_ASSERT_EQ(test, grow(c), 0);
	KUNIT_ASSERT_TRUE(test, fill(c, FIRST_IDS));
	first = c->obj[0];
	prev = first;
	for (n = 1; n <= HWTIMER_IDS_GEN_MASK + 1; n++) {
		free_id(c, prev);
		id = alloc(c, 0);
		if (gen_of(id) != (n & HWTIMER_IDS_GEN_MASK) ||
		    idx_of(id) != 1) {
			KUNIT_FAIL(test, "reuse %u: id %llx", n, id);
			return;
		}
		prev = id;
		if (!(n % 4096))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, prev, first);
	expect_found(test, c, FIRST_IDS);
}

/* xorshift64: the same sequence on every run. */
static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every object is found by its id if live, and its last id misses if not. */
static bool check_shadow(struct kunit *test, struct ids_ctx *c)
{
	u64 *idp;
	int i;

	for (i = 0; i < NOBJ; i++) {
		idp = lookup(c, c->obj[i]);
		if (idp != (c->live[i] ? &c->obj[i] : NULL)) {
			KUNIT_FAIL(test, "obj %d (%s) id %llx: lookup %p",
				   i, c->live[i] ? "live" : "freed",
				   c->obj[i], idp);
			return false;
		}
	}
	return true;
}

/*
 * Random frees and allocations of NOBJ objects, growing as /dev/hwtimer
 * does (while the table has no more slots than live ids), checked against
 * the objects' own record of which is live.
 */
static void ids_random_reuse_matches_shadow(struct kunit *test)
{
	struct ids_ctx *c = test->priv;
	u64 seed = 0x9e3779b97f4a7c15ULL;
	u32 nlive = 0, op;
	int i;

	for (op = 0; op < 200000; op++) {
		i = next_rand(&seed) % NOBJ;
		if (c->live[i]) {
			free_id(c, c->obj[i]);
			c->live[i] = false;
			nlive--;
		} else {
			nlive++;
			while (c->ids.cap <= nlive)
				KUNIT_ASSERT_EQ(test, grow(c), 0);
			KUNIT_ASSERT_NE(test, alloc(c, i), 0ULL);
			c->live[i] = true;
		}
		if (!(op % 1000)) {
			if (!check_shadow(test, c))
				return;
			cond_resched();
		}
	}
	check_shadow(test, c);
	KUNIT_EXPECT_LE(test, c->ids.cap, 2 * NOBJ);
}

static struct kunit_case hwtimer_ids_cases[] = {
	KUNIT_CASE(ids_empty_table_hands_out_nothing),
	KUNIT_CASE(ids_start_at_one),
	KUNIT_CASE(ids_unique_while_live),
	KUNIT_CASE(ids_free_bumps_generation),
	KUNIT_CASE(ids_reuse_oldest_first),
	KUNIT_CASE(ids_put_back_keeps_generation),
	KUNIT_CASE(ids_lookup_misses_what_is_not_live),
	KUNIT_CASE(ids_grow_keeps_live_ids),
	KUNIT_CASE(ids_max_is_enforced),
	KUNIT_CASE(ids_max_between_sizes),
	KUNIT_CASE_SLOW(ids_generation_wraps),
	KUNIT_CASE_SLOW(ids_random_reuse_matches_shadow),
	{}
};

static struct kunit_suite hwtimer_ids_suite = {
	.name = "hwtimer_ids",
	.init = ids_init,
	.exit = ids_exit,
	.test_cases = hwtimer_ids_cases,
};

kunit_test_suite(hwtimer_ids_suite);
