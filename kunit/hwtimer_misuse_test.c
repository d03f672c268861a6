// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite hwtimer_misuse: the exported API used the hard way. Stop and
 * destroy racing arms on other wheels, a callback freeing its object while
 * a new timeout takes the same address, calls on timeouts whose wheel is
 * gone, modify/cancel storms against running callbacks, the pending limit
 * with periodic timeouts, periodic callbacks longer than their period,
 * deadline order after a cascade and after a late burst, and
 * hwtimer_state() through every transition.
 *
 * Every case runs on private wheels (destroyed in exit). The suite runs in
 * a software-emulated VM with KASAN, lockdep and debug objects, so timing
 * follows hwtimer_core's rules: "never early" is exact; "late by at most
 * X" and "eventually" use bounds far above what the design needs, each
 * with its reason; WAIT_MS only bounds a hang. Memory and list misuse is
 * reported by KASAN and CONFIG_DEBUG_LIST, which fail the run by their
 * splat even where no expectation below trips.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "hwtimer.h"
#include "hwtimer_kunit.h"

/* Upper bound for anything that must happen: only catches hangs. */
#define WAIT_MS		30000
/*
 * Bound for something that must happen while another callback is blocked
 * on the case: a hang bound too, shorter so a failing case (the blocked
 * callback waits up to WAIT_MS) does not eat KUnit's 300 s per case.
 */
#define SHORT_WAIT_MS	5000
/* A deadline that does not come during a case. */
#define FAR_NS		(3600ULL * NSEC_PER_SEC)
#define MS		NSEC_PER_MSEC
/* Runs recorded per item. */
#define NREC		8
/* Items of the order case, kthreads of the storm and race cases. */
#define NORDER		8
/*
 * Items of the late-burst order case: more than two of the worker's
 * batches of 256, spread over one level-1 slot's 64 ticks.
 */
#define NLATE		600
#define NTHREADS	4

/* What mitem_fn does besides recording the run. */
enum mitem_mode {
	MODE_COUNT,		/* record only */
	MODE_BLOCK,		/* wait for ctx->release (bounded) */
	MODE_SLEEP_FIRST,	/* sleep arg ms on the first run only */
	MODE_REARM_ONCE,	/* arm itself arg ns later on its first run */
	MODE_STORM,		/* check it runs alone, sleep arg us */
	MODE_RACE,		/* arm victims on wheels 0 and 1 for arg ms */
};

struct misuse_ctx;

/**
 * struct mitem - a test timeout with its record
 * @tmo: the timeout
 * @ctx: the case's context
 * @mode: what the callback does
 * @id: index in the case's array (order case)
 * @pos: place in the run order of its first run (%MODE_COUNT)
 * @arg: argument of @mode
 * @runs: callback runs started
 * @returned: callback runs finished
 * @inside: callbacks of this item running now (%MODE_STORM)
 * @state_in: per run, hwtimer_state() at the callback's start
 * @state_rearmed: hwtimer_state() after %MODE_REARM_ONCE's re-arm
 * @result: return value of the call made in the callback
 * @fired_at: per run, wheel time at the callback's start
 * @ret_at: per run, wheel time just before the callback returned
 * @dl: per run, deadline seen by the callback
 * @ov: per run, overruns seen by the callback
 */
struct mitem {
	struct hwtimer_timeout tmo;
	struct misuse_ctx *ctx;
	enum mitem_mode mode;
	int id;
	int pos;
	u64 arg;
	atomic_t runs;
	atomic_t returned;
	atomic_t inside;
	int state_in[NREC];
	int state_rearmed;
	int result;
	u64 fired_at[NREC];
	u64 ret_at[NREC];
	u64 dl[NREC];
	u64 ov[NREC];
};

/* Results the race and storm threads tally: index by tally_idx(). */
enum { R_OK, R_BUSY, R_SHUTDOWN, R_CANCELLED, R_OTHER, R_N };

/**
 * struct misuse_ctx - per-case state
 * @w: the case's private wheels, destroyed in exit
 * @wq: woken by every callback
 * @release: %MODE_BLOCK callbacks wait for it; completed in exit too
 * @fired: callback runs finished, all items
 * @early: runs that started before their deadline
 * @overlap: %MODE_STORM runs that found their item already running
 * @order: item ids in run order (order case)
 * @norder: entries in @order
 * @victims: timeouts the race threads and callbacks arm and cancel
 * @nvictims: entries in @victims
 * @tally_b: results of the race arms on wheel 1
 * @tally_a: results of the race callbacks' arms on wheel 0
 * @tally_cancel: results of the race cancels
 * @storm: the storm case's items
 * @tasks: race or storm kthreads, NULL once stopped
 * @hogs: CPU hog kthreads still spinning (order case)
 * @hog_until: wheel time the hogs spin until
 * @reuse: state of the address-reuse cases, see reuse_old_fn()
 */
struct misuse_ctx {
	struct hwtimer_wheel *w[2];
	wait_queue_head_t wq;
	struct completion release;
	atomic_t fired;
	atomic_t early;
	atomic_t overlap;
	int order[NORDER * 4];
	atomic_t norder;
	struct mitem *victims;
	int nvictims;
	atomic_t tally_b[R_N];
	atomic_t tally_a[R_N];
	atomic_t tally_cancel[R_N];
	struct mitem *storm;
	struct task_struct *tasks[NTHREADS];
	atomic_t hogs;
	u64 hog_until;
	struct {
		struct hwtimer_timeout *slot;
		struct kmem_cache *cache;
		atomic_t freed;
		atomic_t old_returned;
		atomic_t new_runs;
		atomic_t new_ran_first;
		int new_state_in;
		int cpu;
		bool reused;
	} reuse;
};

static void mitem_fn(struct hwtimer_timeout *t);

/* hwtimer_core's pattern: init, then fill in what the case needs. */
static void mitem_init(struct misuse_ctx *ctx, struct mitem *it,
		       enum mitem_mode mode, u64 arg)
{
	memset(it, 0, sizeof(*it));
	hwtimer_timeout_init(&it->tmo, mitem_fn, 0);
	it->ctx = ctx;
	it->mode = mode;
	it->arg = arg;
}

static struct mitem *new_items(struct kunit *test, int n)
{
	struct misuse_ctx *ctx = test->priv;
	struct mitem *it = kunit_kcalloc(test, n, sizeof(*it), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (i = 0; i < n; i++) {
		mitem_init(ctx, &it[i], MODE_COUNT, 0);
		it[i].id = i;
	}
	return it;
}

/* Wheel @i of the case (0 or 1), with @workers workers and @max_pending. */
static struct hwtimer_wheel *new_wheel(struct kunit *test, int i, u32 workers,
				       u64 max_pending)
{
	static const char * const names[] = { "kunit_misuse", "kunit_misuse2" };
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel_params p = {
		.name = names[i],
		.tick_ns = MS,
		.workers = workers,
		.max_pending = max_pending,
	};

	/* Owned by no module, so the cases' own timeouts are pinned. */
	ctx->w[i] = __hwtimer_wheel_create(&p, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->w[i]);
	return ctx->w[i];
}

static void drop_wheel(struct misuse_ctx *ctx, int i)
{
	hwtimer_wheel_destroy(ctx->w[i]);
	ctx->w[i] = NULL;
}

static bool wait_atomic(struct misuse_ctx *ctx, atomic_t *v, int n, int ms)
{
	return wait_event_timeout(ctx->wq, atomic_read(v) >= n,
				  msecs_to_jiffies(ms)) != 0;
}

/* Poll hwtimer_state() (it has no wait queue) until it reads @s. */
static bool wait_state(struct hwtimer_timeout *t, enum hwtimer_state s,
		       int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (hwtimer_state(t) != s) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

/* The owner's module refcount, or -1 when built in (nothing is pinned). */
static int refcount(void)
{
	struct module *me = THIS_MODULE;

	return me ? module_refcount(me) : -1;
}

/* Poll the refcount back to @base: workers drop pins after callbacks. */
static bool wait_refcount(int base, int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (refcount() != base) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static int tally_idx(int r)
{
	switch (r) {
	case 0:
		return R_OK;
	case -EBUSY:
		return R_BUSY;
	case -ESHUTDOWN:
		return R_SHUTDOWN;
	default:
		return R_OTHER;
	}
}

/* Arm or cancel a random victim; the race threads and callbacks do this. */
static void race_arm(struct misuse_ctx *ctx, struct hwtimer_wheel *w,
		     atomic_t *tally)
{
	struct mitem *v = &ctx->victims[get_random_u32_below(ctx->nvictims)];

	atomic_inc(&tally[tally_idx(hwtimer_arm(w, &v->tmo, FAR_NS, 0, 0))]);
}

static void race_cancel(struct misuse_ctx *ctx)
{
	struct mitem *v = &ctx->victims[get_random_u32_below(ctx->nvictims)];
	int r = hwtimer_cancel(&v->tmo);

	if (r == HWTIMER_CANCELLED)
		atomic_inc(&ctx->tally_cancel[R_CANCELLED]);
	else if (r != HWTIMER_NOT_PENDING && r != HWTIMER_RUNNING)
		atomic_inc(&ctx->tally_cancel[R_OTHER]);
}

/* %MODE_RACE: arm victims on wheel 1 and on its own wheel 0 for a while. */
static void race_callback(struct mitem *it)
{
	struct misuse_ctx *ctx = it->ctx;
	u64 end = ktime_get_ns() + it->arg * MS;
	int k = 0;

	while (ktime_get_ns() < end) {
		if (k++ & 1)
			race_arm(ctx, ctx->w[1], ctx->tally_b);
		else
			race_arm(ctx, READ_ONCE(ctx->w[0]), ctx->tally_a);
		usleep_range(20, 100);
	}
}

static void mitem_fn(struct hwtimer_timeout *t)
{
	struct mitem *it = hwtimer_from(it, t, tmo);
	struct misuse_ctx *ctx = it->ctx;
	struct hwtimer_wheel *w = ctx->w[0] ? ctx->w[0] : ctx->w[1];
	u64 now = ktime_get_ns();	/* every wheel here is monotonic */
	int run = atomic_read(&it->runs);
	u64 dl = hwtimer_deadline(t);

	if (now < dl)
		atomic_inc(&ctx->early);
	if (run < NREC) {
		it->fired_at[run] = now;
		it->dl[run] = dl;
		it->ov[run] = hwtimer_overruns(t);
		it->state_in[run] = hwtimer_state(t);
	}
	if (it->mode == MODE_COUNT) {
		it->pos = atomic_inc_return(&ctx->norder) - 1;
		ctx->order[it->pos % ARRAY_SIZE(ctx->order)] = it->id;
	}
	atomic_inc(&it->runs);
	wake_up_all(&ctx->wq);	/* cases wait for a run to start */

	switch (it->mode) {
	case MODE_COUNT:
		break;
	case MODE_BLOCK:
		wait_for_completion_timeout(&ctx->release,
					    msecs_to_jiffies(WAIT_MS));
		break;
	case MODE_SLEEP_FIRST:
		if (!run)
			msleep(it->arg);
		break;
	case MODE_REARM_ONCE:
		if (!run) {
			it->result = hwtimer_arm(w, t, it->arg, 0, 0);
			it->state_rearmed = hwtimer_state(t);
		}
		break;
	case MODE_STORM:
		if (atomic_inc_return(&it->inside) > 1)
			atomic_inc(&ctx->overlap);
		usleep_range(it->arg, 2 * it->arg);
		atomic_dec(&it->inside);
		break;
	case MODE_RACE:
		race_callback(it);
		break;
	}
	if (run < NREC)
		it->ret_at[run] = ktime_get_ns();
	atomic_inc(&it->returned);
	atomic_inc(&ctx->fired);
	wake_up_all(&ctx->wq);
}

static void stop_tasks(struct misuse_ctx *ctx)
{
	int i;

	for (i = 0; i < NTHREADS; i++) {
		if (ctx->tasks[i])
			kthread_stop(ctx->tasks[i]);
		ctx->tasks[i] = NULL;
	}
}

static int misuse_init(struct kunit *test)
{
	struct misuse_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wq);
	init_completion(&ctx->release);
	test->priv = ctx;
	return 0;
}

static void misuse_exit(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;

	/* A case that failed half-way may leave threads and blocked runs. */
	complete_all(&ctx->release);
	stop_tasks(ctx);
	wait_event_timeout(ctx->wq, !atomic_read(&ctx->hogs),
			   msecs_to_jiffies(WAIT_MS));
	drop_wheel(ctx, 0);
	drop_wheel(ctx, 1);
	kmem_cache_destroy(ctx->reuse.cache);
}

/* ---- 8. hwtimer_state() and hwtimer_unprocessed_pop() ---------------- */

/*
 * A one-shot through idle, pending, cancelled, running, fired; a
 * self-re-arming one-shot reads pending inside its callback; a periodic
 * reads running, then pending between runs, and cancelled once a cancel
 * during its run let the callback return.
 */
static void misuse_state_follows_every_transition(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	struct mitem *it = new_items(test, 4);
	struct hwtimer_timeout *t = &it[0].tmo;

	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_IDLE);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, t, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(t), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(t), HWTIMER_NOT_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_CANCELLED);

	it[0].mode = MODE_BLOCK;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, t, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[0].runs, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it[0].state_in[0], HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(t));
	complete_all(&ctx->release);
	KUNIT_EXPECT_TRUE(test, wait_state(t, HWTIMER_STATE_FIRED, WAIT_MS));
	/* modify() of an idle timeout arms it again on its wheel. */
	KUNIT_ASSERT_EQ(test, hwtimer_modify(t, FAR_NS, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_PENDING);
	KUNIT_ASSERT_EQ(test, hwtimer_modify(t, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_state(t, HWTIMER_STATE_FIRED, WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].runs), 2);

	/* Re-armed by its own callback: pending, not running, from there. */
	it[1].mode = MODE_REARM_ONCE;
	it[1].arg = FAR_NS;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[1].tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[1].returned, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it[1].result, 0);
	KUNIT_EXPECT_EQ(test, it[1].state_rearmed, HWTIMER_STATE_PENDING);
	KUNIT_EXPECT_TRUE(test, wait_state(&it[1].tmo, HWTIMER_STATE_PENDING,
					   WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&it[1].tmo),
			HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[1].tmo),
			HWTIMER_STATE_CANCELLED);

	/*
	 * A 1 s periodic: pending between runs (a run takes far less; only a
	 * vCPU stalled for a period could make the cancel meet a run).
	 */
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[2].tmo, 0, NSEC_PER_SEC, 0),
			0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[2].returned, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it[2].state_in[0], HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_TRUE(test, wait_state(&it[2].tmo, HWTIMER_STATE_PENDING,
					   WAIT_MS));
	KUNIT_EXPECT_NE(test, hwtimer_cancel_sync(&it[2].tmo),
			HWTIMER_NOT_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[2].tmo),
			HWTIMER_STATE_CANCELLED);

	/* A periodic cancelled while its callback runs. */
	reinit_completion(&ctx->release);
	it[3].mode = MODE_BLOCK;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[3].tmo, 0, 10 * MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[3].runs, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[3].tmo), HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it[3].tmo), HWTIMER_RUNNING);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[3].tmo), HWTIMER_STATE_RUNNING);
	complete_all(&ctx->release);
	KUNIT_EXPECT_TRUE(test, wait_state(&it[3].tmo, HWTIMER_STATE_CANCELLED,
					   WAIT_MS));
	msleep(50);	/* five periods: a run after the cancel would show */
	KUNIT_EXPECT_EQ(test, atomic_read(&it[3].runs), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[3].tmo),
			HWTIMER_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
}

/*
 * hwtimer_wheel_stop() hands back pending timeouts on a list; while there
 * they cannot be armed or modified anywhere (-EBUSY); hwtimer_unprocessed_pop()
 * hands each out once, stopped and free to arm on another wheel, then NULL.
 */
static void misuse_unprocessed_pop_hands_back_each_once(struct kunit *test)
{
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	struct hwtimer_wheel *w2 = new_wheel(test, 1, 2, 0);
	struct mitem *it = new_items(test, 11);
	struct hwtimer_timeout *t;
	struct hwtimer_stats st;
	int i, r, seen[10] = {}, bad[5] = {}, n = 0;
	LIST_HEAD(list);
	u64 d;

	KUNIT_EXPECT_NULL(test, hwtimer_unprocessed_pop(&list));
	/* Mixed levels: a second, minutes, hours, the end of time. */
	for (i = 0; i < 10; i++) {
		d = i == 9 ? U64_MAX : (u64)(i + 1) * FAR_NS / 8;
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, d, 0, 0), 0);
	}
	KUNIT_ASSERT_EQ(test, hwtimer_wheel_stop(w, &list), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[10].tmo), HWTIMER_STATE_IDLE);
	for (i = 0; i < 10; i++) {
		t = &it[i].tmo;
		bad[0] += hwtimer_pending(t);
		bad[1] += hwtimer_arm(w2, t, FAR_NS, 0, 0) != -EBUSY;
		r = hwtimer_arm(w, t, FAR_NS, 0, 0);
		bad[2] += r != -EBUSY && r != -ESHUTDOWN;
		r = hwtimer_modify(t, FAR_NS, 0);
		bad[3] += r != -EBUSY;
		bad[4] += hwtimer_cancel(t) != HWTIMER_NOT_PENDING;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad[0], 0, "handed back yet pending");
	KUNIT_EXPECT_EQ_MSG(test, bad[1], 0, "armed on another wheel");
	KUNIT_EXPECT_EQ_MSG(test, bad[2], 0, "armed on the stopped wheel");
	KUNIT_EXPECT_EQ_MSG(test, bad[3], 0, "modify not -EBUSY (last %d)", r);
	KUNIT_EXPECT_EQ_MSG(test, bad[4], 0, "cancel found it pending");
	hwtimer_wheel_get_stats(w2, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	while ((t = hwtimer_unprocessed_pop(&list))) {
		struct mitem *p = hwtimer_from(p, t, tmo);

		KUNIT_ASSERT_TRUE(test, p >= it && p < it + 10);
		KUNIT_ASSERT_LT(test, ++n, 11);
		seen[p - it]++;
		KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_STOPPED);
		KUNIT_EXPECT_FALSE(test, hwtimer_pending(t));
		/* Popped: free to go to another wheel, not back to the stopped. */
		KUNIT_EXPECT_EQ(test, hwtimer_arm(w, t, FAR_NS, 0, 0), -ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, hwtimer_arm(w2, t, FAR_NS, 0, 0), 0);
		KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_PENDING);
	}
	KUNIT_EXPECT_TRUE(test, list_empty(&list));
	KUNIT_EXPECT_NULL(test, hwtimer_unprocessed_pop(&list));
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ_MSG(test, seen[i], 1, "timeout %d", i);
	hwtimer_wheel_get_stats(w2, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 10ULL);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	/* A second stop hands back nothing. */
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_stop(w, &list), 0);
	KUNIT_EXPECT_NULL(test, hwtimer_unprocessed_pop(&list));
}

/* ---- 3. Calls on timeouts whose wheel was destroyed ------------------ */

/*
 * A timeout that fired, one that was pending (dropped by destroy) and one
 * never armed, after hwtimer_wheel_destroy(): no use of the freed wheel
 * (KASAN), answers as documented, and each arms on a new wheel, also when
 * that wheel took the old one's memory (modify must not find it there).
 */
static void misuse_calls_after_wheel_destroyed(struct kunit *test)
{
	static const struct {
		enum hwtimer_state state;
		int modify;
	} want[] = {
		{ HWTIMER_STATE_FIRED, -ESHUTDOWN },	/* fired */
		{ HWTIMER_STATE_STOPPED, -ESHUTDOWN },	/* dropped by destroy */
		{ HWTIMER_STATE_IDLE, -EINVAL },	/* never armed */
	};
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	struct mitem *it = new_items(test, 3);
	struct hwtimer_stats st;
	int base = refcount(), i, pass;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[0].tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_state(&it[0].tmo, HWTIMER_STATE_FIRED,
					   WAIT_MS));
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[1].tmo, FAR_NS, 0, 0), 0);
	drop_wheel(ctx, 0);
	KUNIT_EXPECT_EQ(test, refcount(), base);

	/* Pass 0 right after destroy, pass 1 with a new wheel about. */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			w = new_wheel(test, 0, 2, 0);
		for (i = 0; i < 3; i++) {
			struct hwtimer_timeout *t = &it[i].tmo;

			KUNIT_EXPECT_EQ_MSG(test, hwtimer_cancel(t),
					    HWTIMER_NOT_PENDING, "timeout %d", i);
			KUNIT_EXPECT_EQ_MSG(test, hwtimer_cancel_sync(t),
					    HWTIMER_NOT_PENDING, "timeout %d", i);
			KUNIT_EXPECT_FALSE_MSG(test, hwtimer_pending(t),
					       "timeout %d", i);
			KUNIT_EXPECT_EQ_MSG(test, hwtimer_state(t), want[i].state,
					    "timeout %d", i);
			KUNIT_EXPECT_EQ_MSG(test, hwtimer_modify(t, FAR_NS, 0),
					    want[i].modify, "timeout %d", i);
		}
	}
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, st.armed, 0ULL);

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ_MSG(test, hwtimer_arm(w, &it[i].tmo, 0, 0, 0), 0,
				    "timeout %d", i);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE_MSG(test, wait_state(&it[i].tmo,
						       HWTIMER_STATE_FIRED,
						       WAIT_MS),
				      "timeout %d", i);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[1].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[2].runs), 1);
	KUNIT_EXPECT_TRUE(test, wait_refcount(base, WAIT_MS));
}

/* ---- 2. A callback frees its object; a new timeout takes the address - */

/* The object of the reuse cases. */
struct reuse_obj {
	struct hwtimer_timeout tmo;
	struct misuse_ctx *ctx;
};

/*
 * The old object's callback: "frees" the object (the slot goes back to the
 * case, which re-inits and arms it), then blocks until the case lets it
 * return. From "free" on it touches only ctx, as a callback that freed
 * its object would.
 */
static void reuse_old_fn(struct hwtimer_timeout *t)
{
	struct misuse_ctx *ctx = container_of(t, struct reuse_obj, tmo)->ctx;

	atomic_set(&ctx->reuse.freed, 1);
	wake_up_all(&ctx->wq);
	wait_for_completion_timeout(&ctx->release, msecs_to_jiffies(WAIT_MS));
	atomic_set(&ctx->reuse.old_returned, 1);
	wake_up_all(&ctx->wq);
}

static void reuse_new_fn(struct hwtimer_timeout *t)
{
	struct misuse_ctx *ctx = container_of(t, struct reuse_obj, tmo)->ctx;

	ctx->reuse.new_state_in = hwtimer_state(t);
	if (!atomic_read(&ctx->reuse.old_returned))
		atomic_set(&ctx->reuse.new_ran_first, 1);
	atomic_inc(&ctx->reuse.new_runs);
	wake_up_all(&ctx->wq);
}

static struct hwtimer_timeout *reuse_start(struct kunit *test,
					   struct hwtimer_wheel *w)
{
	struct misuse_ctx *ctx = test->priv;
	struct reuse_obj *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	o->ctx = ctx;
	hwtimer_timeout_init(&o->tmo, reuse_old_fn, 0);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &o->tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->reuse.freed, 1,
					    WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&o->tmo), HWTIMER_STATE_RUNNING);
	/* The object is "freed": what follows is a new timeout at its address. */
	hwtimer_timeout_init(&o->tmo, reuse_new_fn, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&o->tmo), HWTIMER_STATE_IDLE);
	return &o->tmo;
}

/*
 * The new timeout, armed due at once while the old callback blocks, runs
 * on the other worker on its own (not parked behind the old run as if it
 * were the same timeout), reads fired, and the pins balance at the end.
 */
static void misuse_reused_address_fires_on_its_own(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	int base = refcount();
	struct hwtimer_timeout *t = reuse_start(test, w);

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, t, 0, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_atomic(ctx, &ctx->reuse.new_runs, 1,
					    SHORT_WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.new_ran_first), 1);
	KUNIT_EXPECT_EQ(test, ctx->reuse.new_state_in, HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_TRUE(test, wait_state(t, HWTIMER_STATE_FIRED,
					   SHORT_WAIT_MS));
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(t));
	complete_all(&ctx->release);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->reuse.old_returned, 1,
					    WAIT_MS));
	KUNIT_EXPECT_TRUE(test, wait_refcount(base, WAIT_MS));
	/* The old run's end changed nothing of the new timeout. */
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_FIRED);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.new_runs), 1);
}

/*
 * The new timeout, pending while the old callback blocks: cancel and
 * cancel_sync see it alone (cancelled, no wait for the old run), and it
 * holds a pin of its own after the old run dropped its pin. One worker,
 * so a marker timeout run after the old run shows that run finished.
 */
static void misuse_reused_address_keeps_its_own_pin(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	int base = refcount();
	struct hwtimer_timeout *t;
	struct hwtimer_wheel *w;
	struct mitem *marker;
	unsigned long t0;

	if (base < 0)
		kunit_skip(test, "built in: no module to pin");
	w = new_wheel(test, 0, 1, 0);
	marker = new_items(test, 1);
	t = reuse_start(test, w);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, t, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_PENDING);
	KUNIT_EXPECT_GE(test, refcount(), base + 1);
	/* cancel_sync of the new one must not wait for the old run. */
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(t), HWTIMER_CANCELLED);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0),
			(unsigned int)SHORT_WAIT_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.old_returned), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_CANCELLED);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, t, FAR_NS, 0, 0), 0);

	complete_all(&ctx->release);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &marker->tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &marker->returned, 1,
					    WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.old_returned), 1);
	/* The old run dropped its pin, the pending new one keeps its own. */
	KUNIT_EXPECT_TRUE(test, wait_state(&marker->tmo, HWTIMER_STATE_FIRED,
					   WAIT_MS));
	KUNIT_EXPECT_EQ(test, refcount(), base + 1);
	KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(t), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, refcount(), base);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.new_runs), 0);
}

/*
 * The same with a real free: objects from a dedicated cache; the callback
 * frees its object and allocates again on the same CPU, which SLUB serves
 * from the same address (LIFO per-CPU freelist) when the object came from
 * that CPU's slab; it re-inits and arms that new object on its own wheel,
 * then waits for it to run on the other worker. Generic KASAN quarantines
 * freed objects of ordinary caches, so the cache is SLAB_TYPESAFE_BY_RCU,
 * which KASAN leaves out of its quarantine. The object is allocated on the
 * CPU the worker last ran on (work_on_cpu()); when the worker moved and
 * the address differs, the attempt is repeated; after 16 misses the case
 * is skipped.
 */
static void kmem_new_fn(struct hwtimer_timeout *t)
{
	reuse_new_fn(t);
}

static void kmem_old_fn(struct hwtimer_timeout *t)
{
	struct reuse_obj *o = container_of(t, struct reuse_obj, tmo), *n;
	struct misuse_ctx *ctx = o->ctx;
	struct hwtimer_wheel *w = ctx->w[0];

	/*
	 * Free and allocate on one CPU, where the slab hands the object
	 * straight back. Not preempt_disable(): on PREEMPT_RT the slab's
	 * locks sleep.
	 */
	migrate_disable();
	ctx->reuse.cpu = smp_processor_id();
	kmem_cache_free(ctx->reuse.cache, o);
	n = kmem_cache_alloc(ctx->reuse.cache, GFP_ATOMIC);
	migrate_enable();
	ctx->reuse.reused = n == o;
	ctx->reuse.slot = n ? &n->tmo : NULL;
	if (n == o) {
		n->ctx = ctx;
		hwtimer_timeout_init(&n->tmo, kmem_new_fn, 0);
		ctx->reuse.new_state_in = -1;
		if (hwtimer_arm(w, &n->tmo, 0, 0, 0) == 0)
			wait_event_timeout(ctx->wq,
					   atomic_read(&ctx->reuse.new_runs),
					   msecs_to_jiffies(SHORT_WAIT_MS));
	}
	atomic_set(&ctx->reuse.old_returned, 1);
	atomic_set(&ctx->reuse.freed, 1);
	wake_up_all(&ctx->wq);
}

static long kmem_alloc_fn(void *arg)
{
	struct misuse_ctx *ctx = arg;

	return (long)kmem_cache_alloc(ctx->reuse.cache, GFP_KERNEL);
}

static void misuse_reused_slab_object_is_independent(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	int base = refcount(), tries;
	struct reuse_obj *o;

	ctx->reuse.cache = kmem_cache_create("kunit_misuse_reuse",
					     sizeof(struct reuse_obj), 0,
					     SLAB_TYPESAFE_BY_RCU, NULL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->reuse.cache);
	ctx->reuse.cpu = raw_smp_processor_id();
	for (tries = 0; tries < 16; tries++) {
		o = (struct reuse_obj *)work_on_cpu(ctx->reuse.cpu, kmem_alloc_fn,
						    ctx);
		KUNIT_ASSERT_NOT_NULL(test, o);
		o->ctx = ctx;
		hwtimer_timeout_init(&o->tmo, kmem_old_fn, 0);
		atomic_set(&ctx->reuse.freed, 0);
		atomic_set(&ctx->reuse.old_returned, 0);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &o->tmo, 0, 0, 0), 0);
		KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->reuse.freed, 1,
						    WAIT_MS));
		if (ctx->reuse.reused)
			break;
		if (ctx->reuse.slot)
			kmem_cache_free(ctx->reuse.cache,
					hwtimer_from(o, ctx->reuse.slot, tmo));
	}
	if (!ctx->reuse.reused)
		kunit_skip(test, "no address reuse in %d tries", tries);
	kunit_info(test, "address reused after %d misses\n", tries);
	/* The new one ran while the old callback still waited for it. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->reuse.new_ran_first), 1);
	KUNIT_EXPECT_TRUE(test, wait_atomic(ctx, &ctx->reuse.new_runs, 1,
					    WAIT_MS));
	KUNIT_EXPECT_EQ(test, ctx->reuse.new_state_in, HWTIMER_STATE_RUNNING);
	KUNIT_EXPECT_TRUE(test, wait_state(ctx->reuse.slot, HWTIMER_STATE_FIRED,
					   WAIT_MS));
	KUNIT_EXPECT_TRUE(test, wait_refcount(base, WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(ctx->reuse.slot),
			HWTIMER_NOT_PENDING);
	kmem_cache_free(ctx->reuse.cache,
			hwtimer_from(o, ctx->reuse.slot, tmo));
}

/* ---- 5. max_pending and a periodic timeout --------------------------- */

/*
 * max_pending 1 and a 20 ms periodic P whose first run blocks: P holds the
 * only place through its run, so arming Q fails with -ENOSPC (counted as
 * rejected) then and between P's later runs; pending never exceeds 1; once
 * P is cancelled Q gets the place.
 */
static void misuse_max_pending_counts_running_periodic(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 1);
	struct mitem *it = new_items(test, 2);
	struct hwtimer_stats st;
	u64 refused = 0, max_pending = 0;
	unsigned long end;
	int r;

	it[0].mode = MODE_BLOCK;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[0].tmo, 0, 20 * MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[0].runs, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it[0].tmo), HWTIMER_STATE_RUNNING);
	r = hwtimer_arm(w, &it[1].tmo, FAR_NS, 0, 0);
	KUNIT_EXPECT_EQ(test, r, -ENOSPC);
	refused += r == -ENOSPC;
	complete_all(&ctx->release);
	/* Keep trying through three more runs of P. */
	end = jiffies + msecs_to_jiffies(WAIT_MS);
	while (atomic_read(&it[0].runs) < 4 && time_before(jiffies, end)) {
		hwtimer_wheel_get_stats(w, &st);
		max_pending = max(max_pending, st.pending);
		r = hwtimer_arm(w, &it[1].tmo, FAR_NS, 0, 0);
		KUNIT_ASSERT_EQ(test, r, -ENOSPC);
		refused++;
		usleep_range(200, 1000);
	}
	KUNIT_EXPECT_GE(test, atomic_read(&it[0].runs), 4);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_LE(test, max(max_pending, st.pending), 1ULL);
	KUNIT_EXPECT_EQ(test, st.rejected, refused);
	KUNIT_EXPECT_NE(test, hwtimer_cancel_sync(&it[0].tmo),
			HWTIMER_NOT_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[1].tmo, FAR_NS, 0, 0), 0);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 1ULL);
}

/* ---- 6. A periodic callback longer than its period ------------------- */

/*
 * Period 50 ms, first deadline D, first run sleeps 110 ms and returns at
 * R: the next deadline is the first D + k * 50 ms after R (D + 150 ms
 * when the first run was on time), never a past one run at once, and the
 * k - 1 skipped periods are in the next run's hwtimer_overruns(). Exact:
 * the next deadline is on the period grid, after R, never early, and its
 * overruns at least k - 1 and at most k - 1 plus the whole periods that
 * run itself was late. Bounded: the next deadline is at most a period
 * after R plus 500 ms, the time the worker may take (stalled vCPU) to read
 * the clock after the callback returned.
 */
static void misuse_periodic_longer_than_period_skips_ahead(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 2, 0);
	struct mitem *it = new_items(test, 1);
	const u64 period = 50 * MS;
	u64 d = ktime_get_ns() + period, ret0, skipped;

	it->mode = MODE_SLEEP_FIRST;
	it->arg = 110;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, d, period, HWTIMER_ARM_ABS),
			0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 2, WAIT_MS));
	hwtimer_cancel_sync(&it->tmo);
	ret0 = it->ret_at[0];
	kunit_info(test, "first run %llu ms late, returned at D+%llu ms; next deadline D+%llu ms, overruns %llu, started %llu ms late\n",
		   (it->fired_at[0] - d) / MS, (ret0 - d) / MS,
		   (it->dl[1] - d) / MS, it->ov[1],
		   (it->fired_at[1] - it->dl[1]) / MS);
	KUNIT_EXPECT_EQ(test, it->dl[0], d);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_ASSERT_GT(test, it->dl[1], ret0);
	KUNIT_EXPECT_EQ(test, (it->dl[1] - d) % period, 0ULL);
	skipped = (it->dl[1] - d) / period - 1;
	KUNIT_EXPECT_GE(test, skipped, 2ULL);
	KUNIT_EXPECT_GE(test, it->ov[1], skipped);
	KUNIT_EXPECT_LE(test, it->ov[1],
			skipped + (it->fired_at[1] - it->dl[1]) / period);
	KUNIT_EXPECT_LE(test, it->dl[1], ret0 + period + 500 * MS);
}

/* ---- 7. Deadline order with one worker ------------------------------- */

static bool order_is_sorted(struct kunit *test, struct misuse_ctx *ctx,
			    int n)
{
	int i, ok = 1;

	for (i = 0; i < n; i++)
		ok &= ctx->order[i] == i;
	if (!ok) {
		char buf[64] = "";

		for (i = 0; i < n && i < 16; i++)
			scnprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				  " %d", ctx->order[i]);
		kunit_info(test, "run order:%s\n", buf);
	}
	return ok;
}

/*
 * NORDER timeouts in one tick, 100 ns apart, 200 ms ahead (level 1),
 * armed latest first: the cascade hands them out together, and the one
 * worker must still run them earliest first.
 */
static void misuse_one_worker_orders_same_tick_cascade(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 1, 0);
	struct mitem *it = new_items(test, NORDER);
	u64 base = roundup(ktime_get_ns() + 200 * MS, MS);
	int i;

	for (i = NORDER - 1; i >= 0; i--)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo,
						  base + 100 + i * 100, 0,
						  HWTIMER_ARM_ABS), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, NORDER, WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->norder), NORDER);
	KUNIT_EXPECT_TRUE(test, order_is_sorted(test, ctx, NORDER));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
}

/* Keep one CPU from running anything else until ctx->hog_until. */
static int hog_fn(void *arg)
{
	struct misuse_ctx *ctx = arg;

	preempt_disable();
	while (ktime_get_ns() < ctx->hog_until)
		cpu_relax();
	preempt_enable();
	atomic_dec(&ctx->hogs);
	wake_up_all(&ctx->wq);
	return 0;
}

/* Start a hog on every online CPU; each ends on its own. */
static void start_hogs(struct misuse_ctx *ctx, u64 until)
{
	struct task_struct *task;
	unsigned int cpu;

	ctx->hog_until = until;
	for_each_online_cpu(cpu) {
		task = kthread_create(hog_fn, ctx, "kunit_hog/%u", cpu);
		if (IS_ERR(task))
			continue;
		kthread_bind(task, cpu);
		atomic_inc(&ctx->hogs);
		wake_up_process(task);
	}
}

/*
 * NORDER timeouts 1 ms apart: the later half armed first while 500 ms
 * away (level 1), the earlier half 50 ms before the first deadline (level
 * 0 or 1, by alignment), each half latest first. Every CPU is then held
 * (preemption off) until 3 ms after the last deadline, so the tick
 * thread, delayed, advances past all of them at once and cascades in one
 * go: the one worker must still run them in deadline order. A hog that
 * starts late only makes the jump shorter; the order must hold either
 * way. Skipped when the VM was so slow that the second half was armed
 * after its deadlines (then arm order, not deadline order, is all there is).
 */
static void misuse_one_worker_orders_after_delayed_tick(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 1, 0);
	struct mitem *it = new_items(test, NORDER);
	u64 base = roundup(ktime_get_ns() + 500 * MS, MS) + MS / 2;
	bool late;
	int i;

	for (i = NORDER - 1; i >= NORDER / 2; i--)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, base + i * MS, 0,
						  HWTIMER_ARM_ABS), 0);
	if (ktime_get_ns() + 50 * MS < base)
		msleep((base - ktime_get_ns()) / MS - 50);
	for (i = NORDER / 2 - 1; i >= 0; i--)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, base + i * MS, 0,
						  HWTIMER_ARM_ABS), 0);
	late = ktime_get_ns() > base;
	start_hogs(ctx, base + (NORDER + 3) * MS);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, NORDER, WAIT_MS));
	KUNIT_EXPECT_TRUE(test, wait_event_timeout(ctx->wq,
						   !atomic_read(&ctx->hogs),
						   msecs_to_jiffies(WAIT_MS)));
	kunit_info(test, "first deadline ran %llu us late, last %llu us late\n",
		   (it[0].fired_at[0] - it[0].dl[0]) / NSEC_PER_USEC,
		   (it[NORDER - 1].fired_at[0] - it[NORDER - 1].dl[0]) /
		   NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->norder), NORDER);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	if (late)
		kunit_skip(test, "VM too slow: armed after the first deadline");
	KUNIT_EXPECT_TRUE(test, order_is_sorted(test, ctx, NORDER));
}

/*
 * NLATE timeouts spread over the 64 ticks of one level-1 slot, 200 ms or
 * more ahead, about nine a tick with distinct deadlines, armed in an order
 * that strides through the slot. A first callback blocks the one worker
 * until about 10 ms after the last deadline, so the slot is collected
 * late, all of it due at once and more than two batches of the worker's:
 * the worker must still run them in deadline order. Only the order is checked, not
 * the timing, so a slow VM cannot fail it; skipped when it was so slow
 * that the arms came after the first deadline.
 */
static void misuse_one_worker_orders_late_burst(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 1, 0);
	struct mitem *blk = new_items(test, 1);
	struct mitem *it = new_items(test, NLATE);
	u64 *dl = kunit_kcalloc(test, NLATE, sizeof(*dl), GFP_KERNEL);
	u64 base = roundup(ktime_get_ns() + 200 * MS, 64 * MS);
	u64 step = 63 * MS / NLATE, worst = 0;
	int i, k, bad = 0, first_bad = -1;
	bool late;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dl);
	blk->mode = MODE_BLOCK;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &blk->tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &blk->runs, 1, WAIT_MS));
	/* 7 and NLATE are coprime: every item once, striding the slot. */
	for (i = 0; i < NLATE; i++) {
		k = i * 7 % NLATE;
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[k].tmo,
						  base + 1 + k * step, 0,
						  HWTIMER_ARM_ABS), 0);
	}
	late = ktime_get_ns() > base;
	if (ktime_get_ns() < base + 74 * MS)
		msleep((base + 74 * MS - ktime_get_ns()) / MS + 1);
	complete_all(&ctx->release);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, NLATE + 1,
					    WAIT_MS));
	KUNIT_ASSERT_EQ(test, atomic_read(&ctx->norder), NLATE);
	for (i = 0; i < NLATE; i++) {
		KUNIT_ASSERT_GE(test, it[i].pos, 0);
		KUNIT_ASSERT_LT(test, it[i].pos, NLATE);
		dl[it[i].pos] = it[i].dl[0];
	}
	/* Each run against the latest deadline run before it. */
	for (i = 1, k = 0; i < NLATE; i++) {
		if (dl[i] >= dl[k]) {
			k = i;
			continue;
		}
		if (first_bad < 0)
			first_bad = i;
		bad++;
		worst = max(worst, dl[k] - dl[i]);
	}
	kunit_info(test, "%d of %d ran after a later deadline (first at run %d), by up to %llu us (%llu ticks)\n",
		   bad, NLATE, first_bad, worst / NSEC_PER_USEC,
		   DIV_ROUND_UP_ULL(worst, MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	if (late)
		kunit_skip(test, "VM too slow: armed after the first deadline");
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/* ---- 4. modify / cancel / arm storms against running callbacks -------- */

static int storm_fn(void *arg)
{
	struct misuse_ctx *ctx = arg;
	struct mitem *it;
	u32 k = 0;
	int r;

	while (!kthread_should_stop()) {
		it = &ctx->storm[get_random_u32_below(2)];
		switch (get_random_u32_below(3)) {
		case 0:
			r = hwtimer_arm(ctx->w[0], &it->tmo,
					get_random_u32_below(3 * MS),
					it->id ? 0 : 2 * MS, 0);
			atomic_inc(&ctx->tally_b[tally_idx(r)]);
			break;
		case 1:
			r = hwtimer_modify(&it->tmo, get_random_u32_below(3 * MS),
					   0);
			atomic_inc(&ctx->tally_a[tally_idx(r)]);
			break;
		default:
			r = hwtimer_cancel(&it->tmo);
			if (r < HWTIMER_NOT_PENDING || r > HWTIMER_RUNNING)
				atomic_inc(&ctx->tally_cancel[R_OTHER]);
			break;
		}
		if (!(++k % 16))
			usleep_range(100, 500);
		else
			cond_resched();
	}
	return 0;
}

/*
 * A 2 ms periodic and a one-shot, both with callbacks that sleep 1-2 ms,
 * hammered by NTHREADS kthreads with arm, modify and cancel for 200 ms a
 * phase, ten phases. Between phases the threads stop and cancel_sync()
 * takes both back: then neither callback may be running, and none may
 * start in the next 20 ms (ten periods). At no time may either run on two
 * workers at once; at the end every pin is dropped. (No "never early"
 * check here: a modify racing a run moves the deadline the callback reads.)
 */
static void misuse_storm_never_overlaps_or_outlives_cancel_sync(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = new_wheel(test, 0, 3, 0);
	int base = refcount(), phase, i, runs[2];

	ctx->storm = new_items(test, 2);
	for (i = 0; i < 2; i++) {
		ctx->storm[i].mode = MODE_STORM;
		ctx->storm[i].arg = 1000;
	}
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &ctx->storm[0].tmo, 0, 2 * MS, 0), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &ctx->storm[1].tmo, 0, 0, 0), 0);
	for (phase = 0; phase < 10; phase++) {
		for (i = 0; i < NTHREADS; i++) {
			ctx->tasks[i] = kthread_run(storm_fn, ctx, "kunit_storm/%d",
						    i);
			if (IS_ERR(ctx->tasks[i]))
				ctx->tasks[i] = NULL;
		}
		msleep(200);
		stop_tasks(ctx);
		for (i = 0; i < 2; i++) {
			hwtimer_cancel_sync(&ctx->storm[i].tmo);
			KUNIT_EXPECT_EQ(test, atomic_read(&ctx->storm[i].inside), 0);
			KUNIT_EXPECT_FALSE(test, hwtimer_pending(&ctx->storm[i].tmo));
			runs[i] = atomic_read(&ctx->storm[i].runs);
		}
		msleep(20);
		for (i = 0; i < 2; i++)
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->storm[i].runs),
					    runs[i], "phase %d item %d", phase, i);
	}
	kunit_info(test, "runs %d + %d; arms ok %d busy %d; modifies ok %d; overlaps %d\n",
		   runs[0], runs[1], atomic_read(&ctx->tally_b[R_OK]),
		   atomic_read(&ctx->tally_b[R_BUSY]),
		   atomic_read(&ctx->tally_a[R_OK]),
		   atomic_read(&ctx->overlap));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlap), 0);
	KUNIT_EXPECT_GT(test, runs[0] + runs[1], 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->tally_b[R_OTHER]) +
			atomic_read(&ctx->tally_b[R_SHUTDOWN]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->tally_a[R_OTHER]) +
			atomic_read(&ctx->tally_a[R_BUSY]) +
			atomic_read(&ctx->tally_a[R_SHUTDOWN]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->tally_cancel[R_OTHER]), 0);
	if (base >= 0)
		KUNIT_EXPECT_TRUE(test, wait_refcount(base, WAIT_MS));
}

/* ---- 1. stop and destroy racing arms on other wheels ----------------- */

#define RACE_VICTIMS	64
#define RACE_DRIVERS	4
#define RACE_ROUNDS	8
/* How long each driver callback keeps arming victims. */
#define RACE_DRIVE_MS	20

static int race_fn(void *arg)
{
	struct misuse_ctx *ctx = arg;
	u32 k = 0;

	while (!kthread_should_stop()) {
		if (get_random_u32_below(4))
			race_arm(ctx, ctx->w[1], ctx->tally_b);
		else
			race_cancel(ctx);
		if (!(++k % 8))
			usleep_range(20, 100);
		else
			cond_resched();
	}
	return 0;
}

/*
 * One round's start: fresh wheels 0 (A) and 1 (B); a quarter of the
 * victims pending on A far ahead, a quarter due on A within a few ms, the
 * rest left as they were (idle, or bound to last round's destroyed
 * wheels, which must not stop an arm on a new wheel); drivers on A due at
 * once; two race threads arming victims on B and cancelling at random.
 */
static void race_round_start(struct kunit *test, struct mitem *drivers)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_wheel *a = new_wheel(test, 0, 2, 0);
	int i;

	new_wheel(test, 1, 2, 0);
	memset(ctx->tally_a, 0, sizeof(ctx->tally_a));
	memset(ctx->tally_b, 0, sizeof(ctx->tally_b));
	memset(ctx->tally_cancel, 0, sizeof(ctx->tally_cancel));
	for (i = 0; i < RACE_VICTIMS; i++) {
		struct hwtimer_timeout *t = &ctx->victims[i].tmo;

		if (i % 4 == 0)
			KUNIT_ASSERT_EQ(test, hwtimer_arm(a, t, FAR_NS, 0, 0), 0);
		else if (i % 4 == 1)
			KUNIT_ASSERT_EQ(test, hwtimer_arm(a, t, (i % 8) * MS, 0, 0),
					0);
	}
	for (i = 0; i < RACE_DRIVERS; i++) {
		atomic_set(&drivers[i].runs, 0);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(a, &drivers[i].tmo, i * MS, 0, 0),
				0);
	}
	for (i = 0; i < 2; i++) {
		ctx->tasks[i] = kthread_run(race_fn, ctx, "kunit_race/%d", i);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->tasks[i]);
	}
}

/*
 * Pop the unprocessed list: each entry a victim or a driver, each once;
 * a victim must have been refused with -EBUSY by the probe before (it
 * was on the list). Return: victims popped, marked in @where as 1.
 */
static int race_pop_all(struct kunit *test, struct list_head *list,
			struct mitem *drivers, const int *probe, int *where)
{
	struct misuse_ctx *ctx = test->priv;
	struct hwtimer_timeout *t;
	int n = 0, guard = 0;

	while ((t = hwtimer_unprocessed_pop(list))) {
		struct mitem *p = hwtimer_from(p, t, tmo);

		KUNIT_ASSERT_LT(test, ++guard, RACE_VICTIMS + RACE_DRIVERS + 1);
		KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_STOPPED);
		if (p >= drivers && p < drivers + RACE_DRIVERS)
			continue;
		KUNIT_ASSERT_TRUE(test, p >= ctx->victims &&
				  p < ctx->victims + RACE_VICTIMS);
		KUNIT_EXPECT_EQ_MSG(test, where[p - ctx->victims], 0,
				    "victim %ld handed back twice",
				    (long)(p - ctx->victims));
		KUNIT_EXPECT_EQ_MSG(test, probe[p - ctx->victims], -EBUSY,
				    "victim %ld", (long)(p - ctx->victims));
		where[p - ctx->victims] = 1;
		n++;
	}
	return n;
}

/*
 * After the stop and the threads: every victim is in exactly one place:
 * on the unprocessed list (an arm says -EBUSY, then popped once), pending
 * on B, or idle; B's counters agree with what the threads and callbacks
 * saw. @stopped: A was stopped (its counters are still readable).
 */
static void race_round_check(struct kunit *test, struct list_head *list,
			     struct mitem *drivers, bool stopped)
{
	struct misuse_ctx *ctx = test->priv;
	int probe[RACE_VICTIMS], where[RACE_VICTIMS] = {};
	int i, npend = 0, nlist, probe_ok = 0;
	struct hwtimer_stats sa = {}, sb;

	for (i = 0; i < RACE_VICTIMS; i++) {
		struct hwtimer_timeout *t = &ctx->victims[i].tmo;

		probe[i] = 0;
		if (hwtimer_pending(t))
			continue;
		/* An idle victim goes to B; one on the list must be refused. */
		probe[i] = hwtimer_arm(ctx->w[1], t, FAR_NS, 0, 0);
		KUNIT_EXPECT_TRUE_MSG(test, probe[i] == 0 || probe[i] == -EBUSY,
				      "victim %d: arm %d", i, probe[i]);
		probe_ok += !probe[i];
	}
	nlist = race_pop_all(test, list, drivers, probe, where);
	for (i = 0; i < RACE_VICTIMS; i++) {
		struct hwtimer_timeout *t = &ctx->victims[i].tmo;
		bool pend = hwtimer_pending(t);

		KUNIT_EXPECT_FALSE_MSG(test, pend && where[i],
				       "victim %d pending and handed back", i);
		KUNIT_EXPECT_FALSE_MSG(test, probe[i] == -EBUSY && !where[i],
				       "victim %d busy but not handed back", i);
		npend += pend;
		KUNIT_EXPECT_EQ_MSG(test, hwtimer_state(t) ==
				    HWTIMER_STATE_PENDING, pend, "victim %d", i);
	}
	hwtimer_wheel_get_stats(ctx->w[1], &sb);
	if (stopped)
		hwtimer_wheel_get_stats(ctx->w[0], &sa);
	KUNIT_EXPECT_EQ(test, sb.pending, (u64)npend);
	KUNIT_EXPECT_EQ(test, sa.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, sb.fired, 0ULL);
	KUNIT_EXPECT_EQ(test, sb.armed - sb.cancelled, sb.pending);
	KUNIT_EXPECT_EQ(test, sb.armed, (u64)(atomic_read(&ctx->tally_b[R_OK]) +
					      probe_ok));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->tally_b[R_OTHER]) +
			atomic_read(&ctx->tally_b[R_SHUTDOWN]) +
			atomic_read(&ctx->tally_a[R_OTHER]) +
			atomic_read(&ctx->tally_cancel[R_OTHER]), 0);
	/* A's counter may or may not count what stop handed back. */
	KUNIT_EXPECT_LE(test, sb.cancelled,
			(u64)atomic_read(&ctx->tally_cancel[R_CANCELLED]));
	if (stopped)
		KUNIT_EXPECT_GE(test, sa.cancelled + sb.cancelled,
				(u64)atomic_read(&ctx->tally_cancel[R_CANCELLED]));
	kunit_info(test, "round: %d handed back, %d pending on B, %d idle; B arms ok %d busy %d, A arms ok %d busy %d shutdown %d, cancels %d\n",
		   nlist, npend, RACE_VICTIMS - nlist - npend,
		   atomic_read(&ctx->tally_b[R_OK]),
		   atomic_read(&ctx->tally_b[R_BUSY]),
		   atomic_read(&ctx->tally_a[R_OK]),
		   atomic_read(&ctx->tally_a[R_BUSY]),
		   atomic_read(&ctx->tally_a[R_SHUTDOWN]),
		   atomic_read(&ctx->tally_cancel[R_CANCELLED]));
}

/*
 * @t was just popped while the race threads run: idle (STOPPED), unless a
 * thread already armed it on B again (PENDING), and maybe cancelled it.
 */
static void expect_popped(struct kunit *test, struct hwtimer_timeout *t)
{
	enum hwtimer_state s = hwtimer_state(t);

	KUNIT_EXPECT_TRUE_MSG(test, s == HWTIMER_STATE_STOPPED ||
			      s == HWTIMER_STATE_PENDING ||
			      s == HWTIMER_STATE_CANCELLED,
			      "popped timeout in state %d", s);
}

/*
 * RACE_ROUNDS rounds. Each: victims and driver callbacks on wheel A, race
 * threads arming victims on wheel B; while the drivers run (each keeps
 * arming victims on A and B for RACE_DRIVE_MS), A is stopped (even
 * rounds; a few taken off the list while the threads still run) or
 * destroyed (odd rounds). Handed-back victims must be refused (-EBUSY)
 * until popped; nothing is lost or in two places; CONFIG_DEBUG_LIST and
 * KASAN watch the lists and the freed wheels.
 */
static void misuse_stop_races_arms_on_other_wheel(struct kunit *test)
{
	struct misuse_ctx *ctx = test->priv;
	struct mitem *drivers = new_items(test, RACE_DRIVERS);
	int base = refcount(), round, i;
	struct hwtimer_timeout *t;
	LIST_HEAD(list);
	bool stop;

	ctx->victims = new_items(test, RACE_VICTIMS);
	ctx->nvictims = RACE_VICTIMS;
	for (i = 0; i < RACE_DRIVERS; i++) {
		drivers[i].mode = MODE_RACE;
		drivers[i].arg = RACE_DRIVE_MS;
	}
	for (round = 0; round < RACE_ROUNDS; round++) {
		stop = !(round & 1);
		race_round_start(test, drivers);
		KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &drivers[0].runs, 1,
						    WAIT_MS));
		if (stop) {
			KUNIT_ASSERT_EQ(test, hwtimer_wheel_stop(ctx->w[0], &list),
					0);
			/* Some back while the threads race to arm them. */
			for (i = 0; i < RACE_VICTIMS / 8; i++) {
				t = hwtimer_unprocessed_pop(&list);
				if (t)
					expect_popped(test, t);
				cond_resched();
			}
		} else {
			drop_wheel(ctx, 0);
		}
		usleep_range(5000, 6000);
		stop_tasks(ctx);
		race_round_check(test, &list, drivers, stop);
		drop_wheel(ctx, 0);
		drop_wheel(ctx, 1);
	}
	for (i = 0; i < RACE_VICTIMS; i++)
		KUNIT_EXPECT_FALSE(test, hwtimer_pending(&ctx->victims[i].tmo));
	if (base >= 0)
		KUNIT_EXPECT_TRUE(test, wait_refcount(base, WAIT_MS));
}

static struct kunit_case hwtimer_misuse_cases[] = {
	KUNIT_CASE(misuse_state_follows_every_transition),
	KUNIT_CASE(misuse_unprocessed_pop_hands_back_each_once),
	KUNIT_CASE(misuse_calls_after_wheel_destroyed),
	KUNIT_CASE(misuse_reused_address_fires_on_its_own),
	KUNIT_CASE(misuse_reused_address_keeps_its_own_pin),
	KUNIT_CASE(misuse_reused_slab_object_is_independent),
	KUNIT_CASE(misuse_max_pending_counts_running_periodic),
	KUNIT_CASE(misuse_periodic_longer_than_period_skips_ahead),
	KUNIT_CASE(misuse_one_worker_orders_same_tick_cascade),
	KUNIT_CASE(misuse_one_worker_orders_after_delayed_tick),
	KUNIT_CASE(misuse_one_worker_orders_late_burst),
	KUNIT_CASE_SLOW(misuse_storm_never_overlaps_or_outlives_cancel_sync),
	KUNIT_CASE_SLOW(misuse_stop_races_arms_on_other_wheel),
	{}
};

static struct kunit_suite hwtimer_misuse_suite = {
	.name = "hwtimer_misuse",
	.init = misuse_init,
	.exit = misuse_exit,
	.test_cases = hwtimer_misuse_cases,
};

kunit_test_suite(hwtimer_misuse_suite);
