// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite hwtimer_core: the hwtimer runtime on real time. Each case
 * runs twice, on a wheel with one base and on one with a base per CPU.
 *
 * Every case runs on its own private wheel (destroyed in exit), except the
 * one that checks the default wheel. The suite runs in a software-emulated
 * VM with KASAN, lockdep and debug objects, easily 50 times slower than
 * native, so timing assertions follow two rules:
 *
 * - "never early" is exact: a callback that starts before its deadline is
 *   a bug however slow the machine is;
 * - "late by at most X" and "eventually" use bounds far above what the
 *   design needs (a tick), each with its reason, because a stalled vCPU
 *   delays everything. WAIT_MS bounds how long any case waits for
 *   something that must happen; reaching it means a lost timeout.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "hwtimer.h"
#include "hwtimer_kunit.h"
#include "hwtimer_wheel.h"

/* Upper bound for anything that must happen: only catches hangs. */
#define WAIT_MS		30000
/* A deadline that does not come during a case. */
#define FAR_NS		(3600ULL * NSEC_PER_SEC)
#define MS		NSEC_PER_MSEC
#define US		NSEC_PER_USEC
/* Timestamps kept per item for the periodic cases. */
#define NREC		16

/* What item_fn does besides counting: see item_does[]. */
enum item_mode {
	MODE_COUNT,		/* count only */
	MODE_SLEEP,		/* sleep arg ms, then set done */
	MODE_REARM,		/* arm itself again arg ns later, while rearms left */
	MODE_ARM_OTHER,		/* arm ->other arg ns later */
	MODE_CANCEL_SYNC_SELF,	/* hwtimer_cancel_sync() on itself */
	MODE_STOP_WHEEL,	/* hwtimer_wheel_stop() on its own wheel */
	MODE_SLEEP_FIRST,	/* sleep arg ms on the first run only */
	MODE_FREE,		/* kfree() the item */
	MODE_YIELD,		/* give up the CPU once, mid-callback */
	MODE_REARM_SLEEP,	/* arm itself due at once, then sleep arg ms */
	MODE_CPU,		/* result: the CPU the callback runs on */
};

struct core_ctx;

/**
 * struct item - a test timeout with its record
 * @tmo: the timeout
 * @ctx: the case's context
 * @mode: what the callback does
 * @arg: argument of @mode
 * @rearms: re-arms left in %MODE_REARM (negative: forever)
 * @other: timeout armed by %MODE_ARM_OTHER
 * @runs: callback runs
 * @done: %MODE_SLEEP callback finished
 * @result: return value of the call made in the callback
 * @expected: runs the race case expects
 * @fired_at: wheel time at the start of the last run
 * @started: hwtimer_run_start() in the last run
 * @dl: per run, deadline seen by the callback
 * @ov: per run, overruns seen by the callback
 */
struct item {
	struct hwtimer_timeout tmo;
	struct core_ctx *ctx;
	enum item_mode mode;
	u64 arg;
	int rearms;
	struct item *other;
	atomic_t runs;
	atomic_t done;
	int result;
	int expected;
	u64 fired_at;
	u64 started;
	u64 dl[NREC];
	u64 ov[NREC];
};

/**
 * struct core_ctx - per-case state
 * @w: the case's private wheel, destroyed in exit
 * @flags: flags of the wheels the case creates
 * @wq: woken by every callback
 * @fired: callback runs, all items
 * @early: runs that started before their deadline, or whose
 *	hwtimer_run_start() is not between the deadline and the callback
 * @max_late: largest lateness seen by a callback
 * @big: vmalloc'ed items of the large cases
 * @hrt: hrtimer for the hard-irq case
 * @irq_item: items used from @hrt's callback
 * @irq_res: results of the calls made from @hrt's callback
 * @in_irq: @hrt's callback ran in hard irq
 * @irq_done: @hrt's callback finished (a completion: its lock is raw, so
 *	it may be completed from hard irq on PREEMPT_RT, unlike a wait queue's)
 * @inside: callbacks of %MODE_REARM_SLEEP running now
 * @max_inside: most of them ever running at once
 */
struct core_ctx {
	struct hwtimer_wheel *w;
	u32 flags;
	wait_queue_head_t wq;
	atomic_t fired;
	atomic_t early;
	atomic64_t max_late;
	struct item *big;
	struct hrtimer hrt;
	struct item *irq_item[2];
	int irq_res[4];
	bool in_irq;
	struct completion irq_done;
	atomic_t inside;
	atomic_t max_inside;
};

static void note_late(struct core_ctx *ctx, u64 late)
{
	s64 old = atomic64_read(&ctx->max_late);

	while ((u64)old < late) {
		s64 seen = atomic64_cmpxchg(&ctx->max_late, old, late);

		if (seen == old)
			break;
		old = seen;
	}
}

/* Raise @max to @v unless it is already higher, atomically. */
static void note_max(atomic_t *max, int v)
{
	int old = atomic_read(max);

	while (old < v && !atomic_try_cmpxchg(max, &old, v))
		;
}

/*
 * What an item's callback does after recording the run, one function per
 * &enum item_mode (MODE_COUNT does nothing more). @run is the run's index.
 */
static void do_sleep(struct item *it, int run)
{
	msleep(it->arg);
	atomic_set(&it->done, 1);
}

static void do_sleep_first(struct item *it, int run)
{
	if (!run)
		msleep(it->arg);
}

static void do_rearm(struct item *it, int run)
{
	if (!it->rearms)
		return;
	if (it->rearms > 0)
		it->rearms--;
	it->result = hwtimer_arm(it->ctx->w, &it->tmo, it->arg, 0, 0);
}

static void do_arm_other(struct item *it, int run)
{
	it->result = hwtimer_arm(it->ctx->w, &it->other->tmo, it->arg, 0, 0);
}

static void do_cancel_sync_self(struct item *it, int run)
{
	it->result = hwtimer_cancel_sync(&it->tmo);
}

static void do_stop_wheel(struct item *it, int run)
{
	it->result = hwtimer_wheel_stop(it->ctx->w, NULL);
}

static void do_free(struct item *it, int run)
{
	kfree(it);	/* the runtime must not touch the timeout after this */
}

static void do_yield(struct item *it, int run)
{
	cond_resched();
}

static void do_rearm_sleep(struct item *it, int run)
{
	struct core_ctx *ctx = it->ctx;

	note_max(&ctx->max_inside, atomic_inc_return(&ctx->inside));
	if (it->rearms) {
		it->rearms--;
		it->result = hwtimer_arm(ctx->w, &it->tmo, 0, 0, 0);
	}
	msleep(it->arg);
	atomic_dec(&ctx->inside);
}

static void do_cpu(struct item *it, int run)
{
	it->result = raw_smp_processor_id();
}

static void (* const item_does[])(struct item *it, int run) = {
	[MODE_SLEEP] = do_sleep,
	[MODE_SLEEP_FIRST] = do_sleep_first,
	[MODE_REARM] = do_rearm,
	[MODE_ARM_OTHER] = do_arm_other,
	[MODE_CANCEL_SYNC_SELF] = do_cancel_sync_self,
	[MODE_STOP_WHEEL] = do_stop_wheel,
	[MODE_FREE] = do_free,
	[MODE_YIELD] = do_yield,
	[MODE_REARM_SLEEP] = do_rearm_sleep,
	[MODE_CPU] = do_cpu,
};

static void item_fn(struct hwtimer_timeout *t)
{
	struct item *it = hwtimer_from(it, t, tmo);
	struct core_ctx *ctx = it->ctx;
	u64 started = hwtimer_run_start(t);
	u64 now = hwtimer_wheel_now(ctx->w);
	u64 dl = hwtimer_deadline(t);
	int run = atomic_read(&it->runs);
	void (*does)(struct item *it, int run);

	/* Early, or a run start that is not between deadline and now. */
	if (now < dl || started < dl || started > now)
		atomic_inc(&ctx->early);
	else
		note_late(ctx, now - dl);
	it->fired_at = now;
	it->started = started;
	if (run < NREC) {
		it->dl[run] = dl;
		it->ov[run] = hwtimer_overruns(t);
	}
	atomic_inc(&it->runs);
	wake_up_all(&ctx->wq);	/* cases wait for a run to start */

	does = item_does[it->mode];
	if (does)
		does(it, run);	/* may free @it */
	atomic_inc(&ctx->fired);
	wake_up_all(&ctx->wq);
}

static void item_init(struct core_ctx *ctx, struct item *it,
		      enum item_mode mode, u64 arg)
{
	memset(it, 0, sizeof(*it));
	hwtimer_timeout_init(&it->tmo, item_fn, 0);
	it->ctx = ctx;
	it->mode = mode;
	it->arg = arg;
}

static struct item *new_items(struct kunit *test, int n)
{
	struct core_ctx *ctx = test->priv;
	struct item *it = kunit_kcalloc(test, n, sizeof(*it), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, it);
	for (i = 0; i < n; i++)
		item_init(ctx, &it[i], MODE_COUNT, 0);
	return it;
}

static struct hwtimer_wheel *new_wheel(struct kunit *test, u64 tick,
				       u32 workers, u64 max_pending,
				       clockid_t clock)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel_params p = {
		.name = "kunit_core",
		.tick_ns = tick,
		.workers = workers,
		.max_pending = max_pending,
		.clock = clock,
		.flags = ctx->flags,
	};

	ctx->w = hwtimer_wheel_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->w);
	return ctx->w;
}

/* Default wheel of a case: 1 ms tick, 2 workers, no limit, monotonic. */
static struct hwtimer_wheel *std_wheel(struct kunit *test)
{
	return new_wheel(test, MS, 2, 0, CLOCK_MONOTONIC);
}

static bool wait_atomic(struct core_ctx *ctx, atomic_t *v, int n, int ms)
{
	return wait_event_timeout(ctx->wq, atomic_read(v) >= n,
				  msecs_to_jiffies(ms)) != 0;
}

/* The control's sleep, and the longest a timed case waits with it. */
#define CONTROL_MS	10

/*
 * wait_atomic() that is also the same boot's control for lateness: it
 * sleeps CONTROL_MS at a time until @v reaches @n or @ms pass, and stores
 * in *@stall the most one of its sleeps overran, how long the (emulated,
 * shared) machine kept a thread of this kernel from running meanwhile. A
 * bound on the callbacks' lateness adds it: a busy host is not a bug, a
 * timeout served later than everything else ran is.
 */
static bool wait_atomic_control(struct core_ctx *ctx, atomic_t *v, int n,
				int ms, u64 *stall)
{
	u64 end = ktime_get_ns() + (u64)ms * MS, t0, slept;

	*stall = 0;
	while (atomic_read(v) < n) {
		t0 = ktime_get_ns();
		if (t0 >= end)
			return false;
		msleep(CONTROL_MS);
		slept = ktime_get_ns() - t0;
		if (slept > CONTROL_MS * MS)
			*stall = max(*stall, slept - CONTROL_MS * MS);
	}
	return true;
}

/* Wait for @it's run and check it was for @dl and not before it. */
static void expect_ran_for(struct kunit *test, struct item *it, u64 dl)
{
	struct core_ctx *ctx = test->priv;

	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
	KUNIT_EXPECT_GE(test, it->fired_at, dl);
	KUNIT_EXPECT_EQ(test, it->dl[0], dl);
}

/*
 * Arm @it due now with a callback that sleeps @ms in @mode (MODE_SLEEP or
 * MODE_REARM_SLEEP) and return once the callback has started.
 */
static void start_sleeper(struct kunit *test, struct hwtimer_wheel *w,
			  struct item *it, enum item_mode mode, u64 ms)
{
	struct core_ctx *ctx = test->priv;

	it->mode = mode;
	it->arg = ms;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
}

static int core_init(struct kunit *test)
{
	struct core_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	init_waitqueue_head(&ctx->wq);
	if (test->param_value)
		ctx->flags = *(const u32 *)test->param_value;
	test->priv = ctx;
	return 0;
}

static void core_exit(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;

	/* Drops every pending timeout and waits for running callbacks. */
	hwtimer_wheel_destroy(ctx->w);
	vfree(ctx->big);
}

static void core_create_rejects_bad_params(struct kunit *test)
{
	static const struct {
		const char *name;
		u64 tick;
		clockid_t clock;
		u32 workers;
	} bad[] = {
		{ NULL, 0, 0, 0 },
		{ "", 0, 0, 0 },
		{ "a/b", 0, 0, 0 },
		{ "a_name_that_is_longer_than_31_chars", 0, 0, 0 },
		{ "kunit_bad", HWTIMER_TICK_MIN_NS - 1, 0, 0 },
		{ "kunit_bad", HWTIMER_TICK_MAX_NS + 1, 0, 0 },
		{ "kunit_bad", 0, CLOCK_PROCESS_CPUTIME_ID, 0 },
		{ "kunit_bad", 0, CLOCK_TAI, 0 },
		{ "kunit_bad", 0, -1, 0 },
		{ "kunit_bad", 0, 0, HWTIMER_WORKERS_MAX + 1 },
	};
	struct hwtimer_wheel_params p = {};
	struct hwtimer_wheel *w;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, PTR_ERR(hwtimer_wheel_create(NULL)), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p.name = bad[i].name;
		p.tick_ns = bad[i].tick;
		p.clock = bad[i].clock;
		p.workers = bad[i].workers;
		w = hwtimer_wheel_create(&p);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(w), -EINVAL,
				    "bad params #%u accepted", i);
		if (!IS_ERR(w))
			hwtimer_wheel_destroy(w);
	}
	std_wheel(test);
	p = (struct hwtimer_wheel_params){ .name = "kunit_core" };
	w = hwtimer_wheel_create(&p);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(w), -EEXIST);
	if (!IS_ERR(w))
		hwtimer_wheel_destroy(w);
}

static void core_create_accepts_tick_bounds(struct kunit *test)
{
	struct hwtimer_wheel_params p = { .name = "kunit_tick" };
	struct hwtimer_wheel *w;

	p.tick_ns = HWTIMER_TICK_MIN_NS;
	w = hwtimer_wheel_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MIN_NS);
	hwtimer_wheel_destroy(w);
	p.tick_ns = HWTIMER_TICK_MAX_NS;
	p.workers = HWTIMER_WORKERS_MAX;
	w = hwtimer_wheel_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MAX_NS);
	hwtimer_wheel_destroy(w);
	p.tick_ns = 0;
	p.workers = 0;
	w = hwtimer_wheel_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_DEFAULT_NS);
	/* Clock 0 is the default, CLOCK_MONOTONIC, not CLOCK_REALTIME... */
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clock(w), CLOCK_MONOTONIC);
	hwtimer_wheel_destroy(w);
	/* ...which takes the flag, with no other clock beside it. */
	p.flags = HWTIMER_WHEEL_REALTIME;
	w = hwtimer_wheel_create(&p);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clock(w), CLOCK_REALTIME);
	hwtimer_wheel_destroy(w);
	p.clock = CLOCK_BOOTTIME;
	w = hwtimer_wheel_create(&p);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(w), -EINVAL);
	if (!IS_ERR(w))
		hwtimer_wheel_destroy(w);
}

static void core_default_wheel_serves_timeouts(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = hwtimer_default_wheel();
	struct item *it = new_items(test, 1);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_GE(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MIN_NS);
	KUNIT_EXPECT_LE(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MAX_NS);
	ctx->w = w;	/* for item_fn's clock; not destroyed: */
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
	hwtimer_cancel_sync(&it->tmo);
	ctx->w = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
}

static void core_arm_rejects_bad_input(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	KUNIT_EXPECT_EQ(test, hwtimer_arm(NULL, &it->tmo, MS, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0x2), -EINVAL);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, MS, MS - 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it->tmo, MS, 0), -EINVAL);
	hwtimer_timeout_init(&it->tmo, NULL, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), -EINVAL);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
}

static void core_arm_pending_is_busy(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
}

static void core_oneshot_fires_once_not_early(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	/* Far off, then moved close: a preempted test cannot miss "pending". */
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, hwtimer_pending(&it->tmo));
	KUNIT_ASSERT_EQ(test, hwtimer_modify(&it->tmo, 5 * MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
	KUNIT_EXPECT_GE(test, it->fired_at, hwtimer_deadline(&it->tmo));
	/* The run started at or after the deadline, before the callback. */
	KUNIT_EXPECT_GE(test, it->started, hwtimer_deadline(&it->tmo));
	KUNIT_EXPECT_LE(test, it->started, it->fired_at);
	/* A one-shot that ran once stays idle; 50 ms shows a second run. */
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 1);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_overruns(&it->tmo), 0ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_run_start(&it->tmo), 0ULL);
}

static void core_absolute_deadline_is_kept(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	u64 dl = hwtimer_wheel_now(w) + 10 * MS + 123;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, dl, 0, HWTIMER_ARM_ABS), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_deadline(&it->tmo), dl);
	expect_ran_for(test, it, dl);
}

/*
 * A lone timeout in a tick of the current window of 64 ticks is served at
 * its own deadline, not at its tick's start: with a 1 s tick, a deadline
 * half a tick before that start fires before it (the 500 ms between are
 * the slack for the worker's wake-up in a slow VM). Served at the tick's
 * start instead, it would fire at or after it.
 */
static void core_lone_timeout_fires_at_its_deadline(struct kunit *test)
{
	struct hwtimer_wheel *w;
	struct item *it = new_items(test, 1);
	u64 tick;

	/* Arm two ticks ahead within one window: wait out its last two. */
	for (;;) {
		tick = div64_u64(ktime_get_ns(), NSEC_PER_SEC);
		if (!(((tick + 2) ^ tick) >> HWTIMER_WC_LVL_BITS))
			break;
		msleep(1000);
	}
	w = new_wheel(test, NSEC_PER_SEC, 1, 0, CLOCK_MONOTONIC);
	tick += 2;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo,
					  tick * NSEC_PER_SEC - NSEC_PER_SEC / 2,
					  0, HWTIMER_ARM_ABS), 0);
	expect_ran_for(test, it, tick * NSEC_PER_SEC - NSEC_PER_SEC / 2);
	KUNIT_EXPECT_LT(test, it->fired_at, tick * NSEC_PER_SEC);
}

static void core_past_deadline_fires_at_once(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 3);

	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[0].tmo, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[1].tmo, 0, 0, HWTIMER_ARM_ABS), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[2].tmo,
					  hwtimer_wheel_now(w) - MS, 0,
					  HWTIMER_ARM_ABS), 0);
	KUNIT_EXPECT_TRUE(test, wait_atomic(ctx, &ctx->fired, 3, WAIT_MS));
}

/*
 * 10,000 timeouts, deadlines uniformly random in [0, 200 ms]: none may run
 * early (exact). Lateness is reported, and bounded only by 5 s beyond the
 * longest the same boot's control was kept from running and the time the
 * callbacks took from the first to the last: the VM's vCPUs are emulated,
 * may stall for long stretches under KASAN or a busy host, and run 10,000
 * callbacks with lockdep slower than 200 ms. What it catches is a wheel
 * that serves nothing for 5 s past the deadlines; that each timeout runs,
 * once, is checked exactly.
 */
#define RANDOM_N	10000
static void core_never_early_random_delays(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct hwtimer_stats st;
	u64 t0, t1, d, stall, first = U64_MAX, last = 0;
	int i;

	ctx->big = vzalloc(array_size(RANDOM_N, sizeof(*ctx->big)));
	KUNIT_ASSERT_NOT_NULL(test, ctx->big);
	t0 = hwtimer_wheel_now(w);
	for (i = 0; i < RANDOM_N; i++) {
		item_init(ctx, &ctx->big[i], MODE_COUNT, 0);
		d = get_random_u32_below(200 * MS + 1);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &ctx->big[i].tmo, d, 0, 0),
				0);
		if (!(i % 256))
			cond_resched();	/* the VM kernel is not preemptible */
	}
	t1 = hwtimer_wheel_now(w);
	KUNIT_ASSERT_TRUE(test, wait_atomic_control(ctx, &ctx->fired, RANDOM_N,
						    2 * WAIT_MS, &stall));
	hwtimer_wheel_get_stats(w, &st);
	for (i = 0; i < RANDOM_N; i++) {
		first = min(first, ctx->big[i].fired_at);
		last = max(last, ctx->big[i].fired_at);
	}
	kunit_info(test, "%d timeouts armed in %llu us: early %d, max lateness %llu us (stats %llu us; callbacks over %llu us; control: a %d ms sleep overran by %llu us), tick %llu us, hrtimer fires %llu\n",
		   RANDOM_N, (t1 - t0) / US, atomic_read(&ctx->early),
		   (u64)atomic64_read(&ctx->max_late) / US,
		   st.max_lateness_ns / US, (last - first) / US, CONTROL_MS,
		   stall / US, hwtimer_wheel_tick_ns(w) / US, st.hrtimer_fires);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_EXPECT_EQ(test, st.fired, (u64)RANDOM_N);
	KUNIT_EXPECT_LT(test, (u64)atomic64_read(&ctx->max_late),
			5ULL * NSEC_PER_SEC + stall + (last - first));
	for (i = 0; i < RANDOM_N; i++)
		KUNIT_ASSERT_EQ(test, atomic_read(&ctx->big[i].runs), 1);
}

/* 100,000 timeouts with one absolute deadline: each runs exactly once. */
#define SAME_N		100000
static void core_same_tick_fire_exactly_once(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct hwtimer_stats st;
	u64 dl, t0, t1;
	int i, bad = 0;

	ctx->big = vzalloc(array_size(SAME_N, sizeof(*ctx->big)));
	KUNIT_ASSERT_NOT_NULL(test, ctx->big);
	/*
	 * The deadline must come after the last arm, and arming is some 100
	 * times slower in the emulated VM than natively: time 1,000 arms and
	 * cancels, and put the deadline at 1.5 times the extrapolated arming
	 * time (at least 100 ms) from now.
	 */
	t0 = hwtimer_wheel_now(w);
	for (i = 0; i < SAME_N / 100; i++) {
		item_init(ctx, &ctx->big[i], MODE_COUNT, 0);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &ctx->big[i].tmo, FAR_NS, 0,
						  0), 0);
	}
	for (i = 0; i < SAME_N / 100; i++)
		hwtimer_cancel(&ctx->big[i].tmo);
	t1 = hwtimer_wheel_now(w);
	dl = t1 + max_t(u64, 100 * MS, 150 * (t1 - t0));
	for (i = 0; i < SAME_N; i++) {
		item_init(ctx, &ctx->big[i], MODE_COUNT, 0);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &ctx->big[i].tmo, dl, 0,
						  HWTIMER_ARM_ABS), 0);
		if (!(i % 256))
			cond_resched();	/* the VM kernel is not preemptible */
	}
	t0 = t1;
	t1 = hwtimer_wheel_now(w);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, SAME_N,
					    4 * WAIT_MS));
	/* Give a duplicate run 100 ms to show up. */
	msleep(100);
	for (i = 0; i < SAME_N; i++)
		bad += atomic_read(&ctx->big[i].runs) != 1;
	hwtimer_wheel_get_stats(w, &st);
	kunit_info(test, "%d same-deadline timeouts (deadline %llu ms ahead, armed %s it): %d ran other than once, early %d, max lateness %llu us, hrtimer fires %llu\n",
		   SAME_N, (dl - t0) / MS, t1 < dl ? "before" : "past", bad,
		   atomic_read(&ctx->early), st.max_lateness_ns / US,
		   st.hrtimer_fires);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fired), SAME_N);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_EXPECT_EQ(test, st.fired, (u64)SAME_N);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
}

static void core_callback_rearms_itself(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	it->mode = MODE_REARM;
	it->arg = 2 * MS;
	it->rearms = 4;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 2 * MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 5, WAIT_MS));
	msleep(50);	/* 25 re-arm periods: a sixth run would show */
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 5);
	KUNIT_EXPECT_EQ(test, it->result, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
}

static void core_callback_arms_another(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 2);

	it[0].mode = MODE_ARM_OTHER;
	it[0].arg = 3 * MS;
	it[0].other = &it[1];
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[0].tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[1].runs, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it[0].result, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].runs), 1);
	KUNIT_EXPECT_GE(test, it[1].fired_at, it[0].fired_at + 3 * MS);
}

/*
 * Each run of a periodic timeout is one period after the last one served
 * or skipped: deadline[k] - deadline[k-1] = period * (1 + overruns[k]),
 * exactly, whatever the VM's delays.
 */
static void core_periodic_runs_until_cancelled(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	u64 period = 2 * MS;
	int r, runs, k;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, period, period, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 6, WAIT_MS));
	r = hwtimer_cancel_sync(&it->tmo);
	KUNIT_EXPECT_TRUE(test, r == HWTIMER_CANCELLED || r == HWTIMER_RUNNING);
	runs = atomic_read(&it->runs);
	msleep(50);	/* 25 periods: a run after cancel_sync would show */
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), runs);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	for (k = 1; k < min(runs, NREC); k++)
		KUNIT_EXPECT_EQ_MSG(test, it->dl[k] - it->dl[k - 1],
				    period * (1 + it->ov[k]), "run %d", k);
}

/*
 * A 10 ms periodic timeout whose first run sleeps 55 ms: it is re-armed
 * when the callback returns, for the first boundary after that, at least
 * 60 ms after the first deadline, so the second run reports at least 5
 * skipped periods (lower bound exact; more if the VM stalls), and never
 * runs for a deadline that had passed when the first run returned.
 */
static void core_periodic_counts_overruns(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	it->mode = MODE_SLEEP_FIRST;
	it->arg = 55;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 10 * MS, 10 * MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 2, WAIT_MS));
	hwtimer_cancel_sync(&it->tmo);
	kunit_info(test, "overruns: first run %llu, second run %llu\n",
		   it->ov[0], it->ov[1]);
	KUNIT_EXPECT_EQ(test, it->ov[0], 0ULL);
	KUNIT_EXPECT_GE(test, it->ov[1], 5ULL);
	KUNIT_EXPECT_EQ(test, it->dl[1] - it->dl[0],
			10 * MS * (1 + it->ov[1]));
}

static void core_cancel_pending_never_runs(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	struct hwtimer_stats st;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 20 * MS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_NOT_PENDING);
	msleep(60);	/* three times the cancelled delay */
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 0);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fired, 0ULL);
}

static void core_cancel_idle_not_pending(struct kunit *test)
{
	struct item *it = new_items(test, 1);

	std_wheel(test);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_NOT_PENDING);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&it->tmo),
			HWTIMER_NOT_PENDING);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
}

static void core_cancel_running_reports_running(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	/* 500 ms: room for the emulated VM between its start and the cancel. */
	start_sleeper(test, w, it, MODE_SLEEP, 500);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_RUNNING);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&it->tmo), HWTIMER_RUNNING);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->done), 1);
}

/*
 * Cancel racing expiry: 100,000 attempts, each arms a timeout due now or
 * one or two ticks (10 us) later, then cancels it at once, after a busy
 * wait of 0-49 us, after giving up the CPU (so the tick thread may have
 * collected it but no worker started it, or a worker is mid-callback), or
 * after a short sleep. Whatever the timing, CANCELLED must mean the
 * callback never runs for that arm and anything else that it runs exactly
 * once; checked per timeout after cancel_sync, before the timeout is
 * reused. The VM may have one vCPU and a non-preemptible kernel, hence the
 * explicit yields, here and in the callback; sleeps are rare because each
 * costs milliseconds there.
 */
#define RACE_N		100000
#define RACE_SLOTS	256
/* Busy wait before yielding: about two ticks of the race's 10 us wheel. */
#define RACE_SPIN_US	20
static void core_cancel_races_expiry_exactly_once(struct kunit *test)
{
	struct hwtimer_wheel *w = new_wheel(test, HWTIMER_TICK_MIN_NS, 2, 0,
					    CLOCK_MONOTONIC);
	struct item *it = new_items(test, RACE_SLOTS);
	int counts[3] = {}, bad = 0, runs = 0, k, r;
	struct item *p;
	u64 d;

	for (k = 0; k < RACE_SLOTS; k++)
		it[k].mode = MODE_YIELD;

	for (k = 0; k < RACE_N; k++) {
		p = &it[k % RACE_SLOTS];
		if (k >= RACE_SLOTS) {
			hwtimer_cancel_sync(&p->tmo);
			bad += atomic_read(&p->runs) != p->expected;
		}
		cond_resched();
		d = (k % 3) * HWTIMER_TICK_MIN_NS;
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &p->tmo, d, 0, 0), 0);
		switch (k % 8) {
		case 0:
		case 1:
			break;
		case 2:
		case 3:
			udelay((k * 37) % 50);
			break;
		case 7:
			if (k % 64 == 7) {
				usleep_range(5, 50);
				break;
			}
			fallthrough;
		default:
			udelay(RACE_SPIN_US);
			cond_resched();
			break;
		}
		r = hwtimer_cancel(&p->tmo);
		KUNIT_ASSERT_TRUE(test, r >= 0 && r <= HWTIMER_RUNNING);
		counts[r]++;
		if (r != HWTIMER_CANCELLED)
			p->expected++;
	}
	for (k = 0; k < RACE_SLOTS; k++) {
		hwtimer_cancel_sync(&it[k].tmo);
		bad += atomic_read(&it[k].runs) != it[k].expected;
		runs += atomic_read(&it[k].runs);
	}
	kunit_info(test, "%d attempts: cancelled %d, already ran %d, running %d; %d timeouts miscounted\n",
		   RACE_N, counts[HWTIMER_CANCELLED],
		   counts[HWTIMER_NOT_PENDING], counts[HWTIMER_RUNNING], bad);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_GT(test, counts[HWTIMER_CANCELLED], 0);
	KUNIT_EXPECT_GT(test, counts[HWTIMER_NOT_PENDING] +
			counts[HWTIMER_RUNNING], 0);
}

static void core_cancel_sync_waits_for_callback(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	/* 500 ms: room for the emulated VM between its start and the wait. */
	start_sleeper(test, w, it, MODE_SLEEP, 500);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->done), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&it->tmo), HWTIMER_RUNNING);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->done), 1);
}

static void core_cancel_sync_from_own_callback_edeadlk(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	it->mode = MODE_CANCEL_SYNC_SELF;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it->result, -EDEADLK);
}

static void core_stop_from_callback_edeadlk(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 2);

	it[0].mode = MODE_STOP_WHEEL;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[0].tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, it[0].result, -EDEADLK);
	/* The wheel was not stopped. */
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[1].tmo, MS, 0, 0), 0);
}

static void core_cancel_sync_stops_self_rearming(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	int runs;

	it->mode = MODE_REARM;
	it->arg = MS;
	it->rearms = -1;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 3, WAIT_MS));
	KUNIT_EXPECT_NE(test, hwtimer_cancel_sync(&it->tmo),
			HWTIMER_NOT_PENDING);
	runs = atomic_read(&it->runs);
	msleep(50);	/* 50 re-arm delays: a run after cancel_sync shows */
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), runs);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
}

static void core_stop_returns_none_when_all_fired(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 10);
	LIST_HEAD(list);
	int i, count = 0;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 10, WAIT_MS));
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_stop(w, &list), 0);
	while (hwtimer_unprocessed_pop(&list))
		count++;
	KUNIT_EXPECT_EQ(test, count, 0);
}

static void core_stop_returns_all_when_none_fired(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 10);
	struct hwtimer_timeout *t;
	struct hwtimer_stats st;
	int i, seen[10] = {};
	LIST_HEAD(list);
	u64 d;

	/* Mixed levels: 1 ms, seconds, an hour, the end of time. */
	for (i = 0; i < 10; i++) {
		d = i == 9 ? U64_MAX : (u64)(i + 1) * FAR_NS / 8;
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, d, 0, 0), 0);
	}
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_stop(w, &list), 0);
	while ((t = hwtimer_unprocessed_pop(&list))) {
		struct item *p = hwtimer_from(p, t, tmo);

		KUNIT_ASSERT_TRUE(test, p >= it && p < it + 10);
		seen[p - it]++;
		KUNIT_EXPECT_FALSE(test, hwtimer_pending(t));
		KUNIT_EXPECT_EQ(test, hwtimer_state(t), HWTIMER_STATE_STOPPED);
	}
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ_MSG(test, seen[i], 1, "timeout %d", i);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	/* A second stop hands back nothing. */
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_stop(w, &list), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&list));
}

static void core_stop_waits_for_running_callback(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	start_sleeper(test, w, it, MODE_SLEEP, 100);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_stop(w, NULL), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->done), 1);
}

static void core_arm_after_stop_eshutdown(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 2);
	struct hwtimer_stats st;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[1].tmo, FAR_NS, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_wheel_stop(w, NULL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[0].tmo, MS, 0, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it[1].tmo, MS, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it[1].tmo), HWTIMER_NOT_PENDING);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.rejected, 2ULL);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
}

static void core_max_pending_enospc_and_recovery(struct kunit *test)
{
	struct hwtimer_wheel *w = new_wheel(test, MS, 2, 4,
					    CLOCK_MONOTONIC);
	struct item *it = new_items(test, 5);
	struct hwtimer_stats st;
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[4].tmo, FAR_NS, 0, 0), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it[4].tmo));
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.rejected, 1ULL);
	KUNIT_EXPECT_EQ(test, st.pending, 4ULL);
	/* Moving a pending timeout does not count against the limit. */
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it[0].tmo, 2 * FAR_NS, 0), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it[2].tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it[4].tmo, FAR_NS, 0, 0), 0);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 4ULL);
}

static void core_modify_earlier(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	u64 dl;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	dl = hwtimer_wheel_now(w) + 5 * MS;
	KUNIT_ASSERT_EQ(test, hwtimer_modify(&it->tmo, dl, HWTIMER_ARM_ABS), 0);
	expect_ran_for(test, it, dl);
}

static void core_modify_later(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	u64 dl;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 10 * MS, 0, 0), 0);
	dl = hwtimer_wheel_now(w) + 300 * MS;
	KUNIT_ASSERT_EQ(test, hwtimer_modify(&it->tmo, dl, HWTIMER_ARM_ABS), 0);
	msleep(100);	/* past the old deadline, before the new one */
	if (hwtimer_wheel_now(w) < dl)
		KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 0);
	expect_ran_for(test, it, dl);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 1);
}

static void core_modify_idle_arms_again(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	struct hwtimer_stats st;

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
	/* Nothing pending; the callback may still be returning. */
	KUNIT_ASSERT_NE(test, hwtimer_cancel_sync(&it->tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it->tmo, MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 2, WAIT_MS));
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.armed, 2ULL);
	KUNIT_EXPECT_EQ(test, st.fired, 2ULL);
}

static void core_boottime_wheel(struct kunit *test)
{
	struct hwtimer_wheel *w = new_wheel(test, MS, 2, 0,
					    CLOCK_BOOTTIME);
	struct item *it = new_items(test, 1);
	u64 b0, now, b1, dl;

	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clock(w), CLOCK_BOOTTIME);
	b0 = ktime_get_boottime_ns();
	now = hwtimer_wheel_now(w);
	b1 = ktime_get_boottime_ns();
	KUNIT_EXPECT_GE(test, now, b0);
	KUNIT_EXPECT_LE(test, now, b1);
	dl = b1 + 10 * MS;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, dl, 0, HWTIMER_ARM_ABS), 0);
	expect_ran_for(test, it, dl);
	KUNIT_EXPECT_GE(test, ktime_get_boottime_ns(), dl);
}

/* The hrtimer is tickless: exact counts, nothing here depends on speed. */
static void core_idle_wheel_fires_no_hrtimer(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);
	struct hwtimer_stats st;

	msleep(100);	/* 100 ticks */
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.hrtimer_fires, 0ULL);
	/* One timeout an hour away: the hrtimer is armed for then only. */
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	msleep(20);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.hrtimer_fires, 0ULL);
}

/*
 * Ten timeouts 10 ms apart, armed before the first is due, on a 1 ms tick:
 * the hrtimer fires once per distinct deadline tick, never per tick (at
 * most 10, fewer when a stalled VM serves two deadlines in one fire).
 */
static void core_hrtimer_fires_per_deadline_not_per_tick(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 10);
	struct hwtimer_stats st;
	u64 base = hwtimer_wheel_now(w) + 50 * MS;
	int i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, base + i * 10 * MS,
						  0, HWTIMER_ARM_ABS), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 10, WAIT_MS));
	hwtimer_wheel_get_stats(w, &st);
	kunit_info(test, "10 deadlines over 90 ticks: %llu hrtimer fires\n",
		   st.hrtimer_fires);
	KUNIT_EXPECT_GE(test, st.hrtimer_fires, 1ULL);
	KUNIT_EXPECT_LE(test, st.hrtimer_fires, 10ULL);
}

static enum hrtimer_restart irq_fn(struct hrtimer *hrt)
{
	struct core_ctx *ctx = container_of(hrt, struct core_ctx, hrt);
	struct hwtimer_timeout *a = &ctx->irq_item[0]->tmo;
	struct hwtimer_timeout *b = &ctx->irq_item[1]->tmo;

	ctx->in_irq = in_hardirq();
	ctx->irq_res[0] = hwtimer_arm(ctx->w, a, 20 * MS, 0, 0);
	ctx->irq_res[1] = hwtimer_arm(ctx->w, b, 5 * MS, 0, 0);
	ctx->irq_res[2] = hwtimer_cancel(b);
	ctx->irq_res[3] = hwtimer_modify(a, 2 * MS, 0);
	complete(&ctx->irq_done);
	return HRTIMER_NORESTART;
}

/* Arm, cancel and modify from a hard-irq hrtimer callback (lockdep and
 * DEBUG_ATOMIC_SLEEP catch any sleeping or irq-unsafe locking).
 */
static void core_arm_cancel_modify_from_hardirq(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct item *it = new_items(test, 2);
	unsigned long left;

	std_wheel(test);
	ctx->irq_item[0] = &it[0];
	ctx->irq_item[1] = &it[1];
	init_completion(&ctx->irq_done);
	hrtimer_init(&ctx->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ctx->hrt.function = irq_fn;
	hrtimer_start(&ctx->hrt, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&ctx->irq_done,
					   msecs_to_jiffies(WAIT_MS));
	KUNIT_EXPECT_NE(test, left, 0UL);
	hrtimer_cancel(&ctx->hrt);
	KUNIT_EXPECT_TRUE(test, ctx->in_irq);
	KUNIT_EXPECT_EQ(test, ctx->irq_res[0], 0);
	KUNIT_EXPECT_EQ(test, ctx->irq_res[1], 0);
	KUNIT_EXPECT_EQ(test, ctx->irq_res[2], HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, ctx->irq_res[3], 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[0].runs, 1, WAIT_MS));
	msleep(20);	/* four times b's cancelled delay */
	KUNIT_EXPECT_EQ(test, atomic_read(&it[1].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].runs), 1);
}

/*
 * Items 1..@n ran while item 0's 1 s callback slept, each late by less
 * than half that sleep beyond @stall, the most the same boot's control
 * (wait_atomic_control()) was kept from running meanwhile. The design
 * says one tick; the bar is what tells a hand-over from a wait for the
 * sleeper (1 s) on a host whose vCPUs stall for hundreds of ms when it is
 * loaded (230 ms seen beside a make check). The callers also check that
 * the sleeper had not finished when the last of them ran. @where says
 * how they stood to it, for the log.
 */
static void expect_late_by_less(struct kunit *test, const struct item *it,
				int n, const char *where, u64 stall)
{
	u64 max = 0;
	int i;

	for (i = 1; i <= n; i++)
		max = max(max, it[i].fired_at - it[i].dl[0]);
	kunit_info(test, "max lateness %s a 1 s sleeping callback: %llu us (control: a %d ms sleep overran by %llu us)\n",
		   where, max / US, CONTROL_MS, stall / US);
	KUNIT_EXPECT_LT(test, max, 500 * MS + stall);
}

/*
 * One callback sleeps 1 s; 20 timeouts due 10-200 ms later on the same
 * wheel (2 workers) must all run while it sleeps, late by less than 500 ms.
 */
static void core_sleeping_callback_does_not_delay_others(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 21);
	u64 stall;
	int i;

	start_sleeper(test, w, &it[0], MODE_SLEEP, 1000);
	for (i = 1; i <= 20; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, i * 10 * MS,
						  0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic_control(ctx, &ctx->fired, 20,
						    WAIT_MS, &stall));
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].done), 0);
	expect_late_by_less(test, it, 20, "beside", stall);
}

/*
 * One worker drains a backlog while its callbacks are short; when one
 * sleeps, another worker must take the rest over. A callback that sleeps
 * 1 s and 20 timeouts come due in the same tick, the sleeper first in
 * deadline order: the 20 must run while it sleeps, late by less than
 * 500 ms. The worker that took the sleeper may be preempted for a tick
 * before its callback starts, and the other worker then runs the 20
 * first: so the sleeper's start is waited for, not assumed.
 */
static void core_sleeping_callback_hands_over_backlog(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 21);
	u64 dl, stall;
	int i;

	it[0].mode = MODE_SLEEP;
	it[0].arg = 1000;
	/* 100 ns into a tick, so all 21 deadlines share it. */
	dl = (div64_u64(hwtimer_wheel_now(w), MS) + 20) * MS + 100;
	for (i = 0; i <= 20; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, dl + i, 0,
						  HWTIMER_ARM_ABS), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic_control(ctx, &ctx->fired, 20,
						    WAIT_MS, &stall));
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[0].runs, 1, WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it[0].done), 0);
	expect_late_by_less(test, it, 20, "behind", stall);
}

static void core_stats_count_everything(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 4);
	struct hwtimer_stats st;
	u64 sum = 0, stall;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[i].tmo, MS, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[3].tmo, FAR_NS, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic_control(ctx, &ctx->fired, 3,
						    WAIT_MS, &stall));
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 1ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it[3].tmo), HWTIMER_CANCELLED);
	/* Wait for the workers to account the third run. */
	msleep(20);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.armed, 4ULL);
	KUNIT_EXPECT_EQ(test, st.fired, 3ULL);
	KUNIT_EXPECT_EQ(test, st.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, st.rejected, 0ULL);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
		sum += st.lateness[i];
	KUNIT_EXPECT_EQ(test, sum, 3ULL);
	/* Lateness bound only catches garbage; see core_never_early_*. */
	KUNIT_EXPECT_LT(test, st.max_lateness_ns, 5ULL * NSEC_PER_SEC + stall);
	KUNIT_EXPECT_GE(test, st.hrtimer_fires, 1ULL);
}

static void core_pending_follows_state(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it->tmo), HWTIMER_STATE_IDLE);
	/* Far off, then moved close: a preempted test cannot miss "pending". */
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it->tmo), HWTIMER_STATE_PENDING);
	KUNIT_ASSERT_EQ(test, hwtimer_modify(&it->tmo, 5 * MS, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it->runs, 1, WAIT_MS));
	hwtimer_cancel_sync(&it->tmo);	/* the callback may still be returning */
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it->tmo), HWTIMER_STATE_FIRED);
}

/*
 * The lifetime rule: the owner module is pinned while pending or running
 * on a wheel it does not own; not on its own, which it destroys first.
 */
static void core_owner_pinned_while_pending_or_running(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel_params p = {
		.name = "kunit_core", .tick_ns = MS, .flags = ctx->flags,
	};
	struct module *me = THIS_MODULE;
	struct hwtimer_wheel *w;
	struct item *it;
	int base;

	if (!me)
		kunit_skip(test, "built in: no module to pin");
	w = std_wheel(test);
	it = new_items(test, 1);
	base = module_refcount(THIS_MODULE);
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	hwtimer_wheel_destroy(w);
	ctx->w = NULL;

	/* Owned by no module: every owner's timeouts are pinned. */
	w = __hwtimer_wheel_create(&p, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	ctx->w = w;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base + 1);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it->tmo, 2 * FAR_NS, 0), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base + 1);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base);

	/* 500 ms: see core_cancel_sync_waits_* */
	start_sleeper(test, w, it, MODE_SLEEP, 500);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base + 1);
	hwtimer_cancel_sync(&it->tmo);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base);

	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_wheel_stop(w, NULL), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), base);
}

/*
 * A one-shot callback may free the object embedding its timeout (KASAN
 * reports it if the runtime touches the timeout afterwards).
 */
static void core_callback_may_free_its_timeout(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it;
	int i;

	for (i = 0; i < 8; i++) {
		it = kmalloc(sizeof(*it), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, it);
		item_init(ctx, it, MODE_FREE, 0);
		KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, i * MS, 0, 0), 0);
	}
	KUNIT_EXPECT_TRUE(test, wait_atomic(ctx, &ctx->fired, 8, WAIT_MS));
}

/*
 * A callback that arms its own timeout due at once and then sleeps: the
 * new expiry is collected while the old run goes on, and must wait for it
 * (parked on its worker) instead of running on the other worker.
 */
static void core_timeout_never_runs_on_two_workers(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	it->mode = MODE_REARM_SLEEP;
	it->arg = 30;
	it->rearms = 3;
	KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it->tmo, 0, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 4, WAIT_MS));
	msleep(50);	/* longer than a run: a fifth run would show */
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->max_inside), 1);
	KUNIT_EXPECT_EQ(test, it->result, 0);
}

/*
 * The expiry parked behind its own running callback is still pending: a
 * cancel takes it back and it never runs. The callback sleeps 300 ms, and
 * 50 ms lets the other worker collect and park the new expiry; if the VM
 * is too slow for that, the cancel takes it from the wheel instead, which
 * must give the same result.
 */
static void core_cancel_takes_back_parked_expiry(struct kunit *test)
{
	struct hwtimer_wheel *w = std_wheel(test);
	struct item *it = new_items(test, 1);

	it->rearms = 1;
	start_sleeper(test, w, it, MODE_REARM_SLEEP, 300);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, hwtimer_pending(&it->tmo));
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&it->tmo), HWTIMER_RUNNING);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 1);
	KUNIT_EXPECT_EQ(test, it->result, 0);
}

/* Run current on @cpu only, or anywhere when @cpu is negative. */
static void run_on(struct kunit *test, int cpu)
{
	const struct cpumask *m = cpu < 0 ? cpu_possible_mask : cpumask_of(cpu);

	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, m), 0);
	if (cpu >= 0)
		KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
}

/*
 * On a per-CPU wheel a pending timeout stays on the base it was armed on,
 * whichever CPU moves or cancels it; an idle one moves to the arming
 * CPU's base; cancel and expiry work across CPUs.
 */
static void core_percpu_timeout_moves_only_when_idle(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct item *it = new_items(test, 1);
	struct hwtimer_wheel *w;
	u64 base0;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		kunit_skip(test, "needs CPUs 0 and 1 online");
	ctx->flags = HWTIMER_WHEEL_PERCPU;
	w = std_wheel(test);
	run_on(test, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	base0 = READ_ONCE(it->tmo.wheel_id);
	run_on(test, 1);
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it->tmo, FAR_NS / 2, 0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(it->tmo.wheel_id), base0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&it->tmo), HWTIMER_CANCELLED);
	/* Far, so that it is still pending when CPU 0 modifies it. */
	KUNIT_EXPECT_EQ(test, hwtimer_arm(w, &it->tmo, FAR_NS, 0, 0), 0);
	KUNIT_EXPECT_NE(test, READ_ONCE(it->tmo.wheel_id), base0);
	run_on(test, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&it->tmo, 2 * MS, 0), 0);
	run_on(test, -1);
	KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &ctx->fired, 1, WAIT_MS));
	hwtimer_cancel_sync(&it->tmo);	/* the callback may still be returning */
	KUNIT_EXPECT_EQ(test, hwtimer_state(&it->tmo), HWTIMER_STATE_FIRED);
	KUNIT_EXPECT_EQ(test, atomic_read(&it->runs), 1);
}

/*
 * On a per-CPU wheel a callback runs on the CPU whose base it was armed
 * on, while that CPU is online: the base's workers run there alone.
 */
static void core_percpu_callback_runs_on_its_cpu(struct kunit *test)
{
	struct core_ctx *ctx = test->priv;
	struct item *it = new_items(test, 2);
	struct hwtimer_wheel *w;
	int cpu, round;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		kunit_skip(test, "needs CPUs 0 and 1 online");
	ctx->flags = HWTIMER_WHEEL_PERCPU;
	w = std_wheel(test);
	for (round = 0; round < 4; round++) {
		for (cpu = 0; cpu < 2; cpu++) {
			item_init(ctx, &it[cpu], MODE_CPU, 0);
			it[cpu].result = -1;
			run_on(test, cpu);
			KUNIT_ASSERT_EQ(test, hwtimer_arm(w, &it[cpu].tmo,
							  (round + 1) * MS, 0,
							  0), 0);
		}
		/* The arming thread leaves: the callbacks must not follow it. */
		run_on(test, -1);
		for (cpu = 0; cpu < 2; cpu++) {
			KUNIT_ASSERT_TRUE(test, wait_atomic(ctx, &it[cpu].runs,
							    1, WAIT_MS));
			hwtimer_cancel_sync(&it[cpu].tmo);
			KUNIT_EXPECT_EQ(test, it[cpu].result, cpu);
		}
	}
}

/* Threads and rounds of the cross-CPU race; the timeouts they share. */
#define XCPU_THREADS	2
#define XCPU_ROUNDS	4000
#define XCPU_ITEMS	16

/**
 * struct xcpu_thread - one thread of the cross-CPU race
 * @w: the per-CPU wheel
 * @items: the timeouts every thread arms and cancels
 * @go: released once all threads are bound
 * @done: completed when its rounds are over
 * @arms: its successful arms
 * @cancels: its cancels that said %HWTIMER_CANCELLED
 * @me: its index
 * @arrived: threads arrived at the lockstep race's barriers, in total
 */
struct xcpu_thread {
	struct hwtimer_wheel *w;
	struct item *items;
	struct completion *go;
	struct completion done;
	unsigned long arms;
	unsigned long cancels;
	unsigned int me;
	atomic_t *arrived;
};

static int xcpu_fn(void *arg)
{
	struct xcpu_thread *x = arg;
	unsigned int i;
	u32 r;

	wait_for_completion(x->go);
	for (i = 0; i < XCPU_ROUNDS; i++) {
		struct item *it = &x->items[get_random_u32_below(XCPU_ITEMS)];

		r = get_random_u32();
		if (r & 1) {
			if (!hwtimer_arm(x->w, &it->tmo,
					 (r >> 1) % (3 * MS), 0, 0))
				x->arms++;
		} else if (hwtimer_cancel(&it->tmo) == HWTIMER_CANCELLED) {
			x->cancels++;
		}
		if (!(i & 63))
			cond_resched();
	}
	complete(&x->done);
	return 0;
}

/*
 * Run @fn on XCPU_THREADS kthreads bound to different online CPUs, one
 * &struct xcpu_thread each, released together, on the timeouts @it of a
 * new per-CPU wheel; @arrived is their barrier count, or NULL. Return
 * when all are done, with their successful arms and cancels added up.
 */
static struct hwtimer_wheel *xcpu_run(struct kunit *test, struct item *it,
				      int (*fn)(void *), atomic_t *arrived,
				      unsigned long *arms,
				      unsigned long *cancels)
{
	struct core_ctx *ctx = test->priv;
	struct xcpu_thread x[XCPU_THREADS] = {};
	struct task_struct *task[XCPU_THREADS];
	DECLARE_COMPLETION_ONSTACK(go);
	struct hwtimer_wheel *w;
	int i, cpu = -1;

	if (num_online_cpus() < XCPU_THREADS)
		kunit_skip(test, "needs %d online CPUs", XCPU_THREADS);
	ctx->flags = HWTIMER_WHEEL_PERCPU;
	w = std_wheel(test);
	for (i = 0; i < XCPU_THREADS; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		x[i] = (struct xcpu_thread){ .w = w, .items = it, .go = &go,
					     .me = i, .arrived = arrived };
		init_completion(&x[i].done);
		task[i] = kthread_create(fn, &x[i], "hwt-xcpu/%d", cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task[i]));
		get_task_struct(task[i]);
		kthread_bind(task[i], cpu);
		wake_up_process(task[i]);
	}
	complete_all(&go);
	for (i = 0; i < XCPU_THREADS; i++) {
		wait_for_completion(&x[i].done);
		kthread_stop(task[i]);
		put_task_struct(task[i]);
		*arms += x[i].arms;
		*cancels += x[i].cancels;
	}
	return w;
}

/*
 * Threads bound to different CPUs arm and cancel the same timeouts of a
 * per-CPU wheel, so idle timeouts keep moving between bases while the
 * other CPU cancels them on theirs: every arm ends exactly once, in a run
 * or in a cancel that says so.
 */
static void core_percpu_race_moves_and_cancels(struct kunit *test)
{
	struct item *it = new_items(test, XCPU_ITEMS);
	unsigned long arms = 0, cancels = 0, runs = 0;
	int i;

	xcpu_run(test, it, xcpu_fn, NULL, &arms, &cancels);
	for (i = 0; i < XCPU_ITEMS; i++)
		if (hwtimer_cancel_sync(&it[i].tmo) == HWTIMER_CANCELLED)
			cancels++;
	for (i = 0; i < XCPU_ITEMS; i++)
		runs += atomic_read(&it[i].runs);
	kunit_info(test, "%lu arms, %lu cancelled, %lu runs\n", arms, cancels,
		   runs);
	KUNIT_EXPECT_GT(test, cancels, 0UL);
	KUNIT_EXPECT_EQ(test, runs, arms - cancels);
}

/* Rounds of the lockstep race. */
#define LOCKSTEP_ROUNDS	20000

/* Wait until every thread reached barrier @n (counted from 0). */
static void xcpu_barrier(struct xcpu_thread *x, int n)
{
	atomic_inc(x->arrived);
	while (atomic_read(x->arrived) < (n + 1) * XCPU_THREADS)
		cpu_relax();
}

static int lockstep_fn(void *arg)
{
	struct xcpu_thread *x = arg;
	int round, i;

	wait_for_completion(x->go);
	for (round = 0; round < LOCKSTEP_ROUNDS; round++) {
		xcpu_barrier(x, 2 * round);
		for (i = 0; i < XCPU_ITEMS; i++)
			if (!hwtimer_arm(x->w, &x->items[i].tmo, FAR_NS, 0, 0))
				x->arms++;
		xcpu_barrier(x, 2 * round + 1);
		/* Each thread in turn takes them all back. */
		if (round % XCPU_THREADS != x->me)
			continue;
		for (i = 0; i < XCPU_ITEMS; i++)
			if (hwtimer_cancel(&x->items[i].tmo) ==
			    HWTIMER_CANCELLED)
				x->cancels++;
	}
	complete(&x->done);
	return 0;
}

/*
 * Threads on different CPUs arm the same idle timeouts at the same moment,
 * round after round, each on its own base of a per-CPU wheel; the
 * timeouts are unbound at first and then bound to whichever base won the
 * round before. Exactly one arm of each timeout wins each round, and one
 * cancel takes it back: a timeout armed on two bases at once would show
 * as an extra arm, a pending count left over, or a corrupted list.
 */
static void core_percpu_same_timeout_armed_once(struct kunit *test)
{
	struct item *it = new_items(test, XCPU_ITEMS);
	unsigned long arms = 0, cancels = 0;
	atomic_t arrived = ATOMIC_INIT(0);
	struct hwtimer_wheel *w;
	struct hwtimer_stats st;
	int i;

	w = xcpu_run(test, it, lockstep_fn, &arrived, &arms, &cancels);
	KUNIT_EXPECT_EQ(test, arms, (unsigned long)LOCKSTEP_ROUNDS * XCPU_ITEMS);
	KUNIT_EXPECT_EQ(test, cancels, arms);
	hwtimer_wheel_get_stats(w, &st);
	KUNIT_EXPECT_EQ(test, st.pending, 0ULL);
	for (i = 0; i < XCPU_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&it[i].runs), 0);
}

/* Every case but the per-CPU ones runs on both kinds of wheel. */
static const u32 wheel_flags[] = { 0, HWTIMER_WHEEL_PERCPU };

static void wheel_flags_desc(const u32 *flags, char *desc)
{
	strscpy(desc, *flags ? "per-CPU bases" : "one base",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(wheel_flags, wheel_flags, wheel_flags_desc);

#define HWT_CASE(name) KUNIT_CASE_PARAM(name, wheel_flags_gen_params)
#ifdef KUNIT_CASE_PARAM_ATTR
#define HWT_CASE_SLOW(name)						\
	KUNIT_CASE_PARAM_ATTR(name, wheel_flags_gen_params,		\
			      { .speed = KUNIT_SPEED_SLOW })
#else
#define HWT_CASE_SLOW(name) HWT_CASE(name)
#endif

static struct kunit_case hwtimer_core_cases[] = {
	HWT_CASE(core_create_rejects_bad_params),
	HWT_CASE(core_create_accepts_tick_bounds),
	HWT_CASE(core_default_wheel_serves_timeouts),
	HWT_CASE(core_arm_rejects_bad_input),
	HWT_CASE(core_arm_pending_is_busy),
	HWT_CASE(core_oneshot_fires_once_not_early),
	HWT_CASE(core_absolute_deadline_is_kept),
	HWT_CASE(core_lone_timeout_fires_at_its_deadline),
	HWT_CASE(core_past_deadline_fires_at_once),
	HWT_CASE_SLOW(core_never_early_random_delays),
	HWT_CASE_SLOW(core_same_tick_fire_exactly_once),
	HWT_CASE(core_callback_rearms_itself),
	HWT_CASE(core_callback_arms_another),
	HWT_CASE(core_periodic_runs_until_cancelled),
	HWT_CASE(core_periodic_counts_overruns),
	HWT_CASE(core_cancel_pending_never_runs),
	HWT_CASE(core_cancel_idle_not_pending),
	HWT_CASE(core_cancel_running_reports_running),
	HWT_CASE_SLOW(core_cancel_races_expiry_exactly_once),
	HWT_CASE(core_cancel_sync_waits_for_callback),
	HWT_CASE(core_cancel_sync_from_own_callback_edeadlk),
	HWT_CASE(core_stop_from_callback_edeadlk),
	HWT_CASE(core_cancel_sync_stops_self_rearming),
	HWT_CASE(core_stop_returns_none_when_all_fired),
	HWT_CASE(core_stop_returns_all_when_none_fired),
	HWT_CASE(core_stop_waits_for_running_callback),
	HWT_CASE(core_arm_after_stop_eshutdown),
	HWT_CASE(core_max_pending_enospc_and_recovery),
	HWT_CASE(core_modify_earlier),
	HWT_CASE(core_modify_later),
	HWT_CASE(core_modify_idle_arms_again),
	HWT_CASE(core_boottime_wheel),
	HWT_CASE(core_idle_wheel_fires_no_hrtimer),
	HWT_CASE(core_hrtimer_fires_per_deadline_not_per_tick),
	HWT_CASE(core_arm_cancel_modify_from_hardirq),
	HWT_CASE(core_sleeping_callback_does_not_delay_others),
	HWT_CASE(core_sleeping_callback_hands_over_backlog),
	HWT_CASE(core_stats_count_everything),
	HWT_CASE(core_pending_follows_state),
	HWT_CASE(core_owner_pinned_while_pending_or_running),
	HWT_CASE(core_callback_may_free_its_timeout),
	HWT_CASE(core_timeout_never_runs_on_two_workers),
	HWT_CASE(core_cancel_takes_back_parked_expiry),
	KUNIT_CASE(core_percpu_timeout_moves_only_when_idle),
	KUNIT_CASE(core_percpu_callback_runs_on_its_cpu),
	KUNIT_CASE_SLOW(core_percpu_race_moves_and_cancels),
	KUNIT_CASE_SLOW(core_percpu_same_timeout_armed_once),
	{}
};

static struct kunit_suite hwtimer_core_suite = {
	.name = "hwtimer_core",
	.init = core_init,
	.exit = core_exit,
	.test_cases = hwtimer_core_cases,
};

kunit_test_suite(hwtimer_core_suite);
