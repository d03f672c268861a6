// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite hwtimer_bench: what hwtimer's in-kernel operations cost beside
 * the kernel's own timeouts (timer_list, hrtimer, delayed_work), at the
 * speed of the CPU the kernel runs on. Built into a User Mode Linux kernel
 * (kunit.py --arch=um), kernel code runs natively, not emulated: these
 * figures stand beside make bench's, which come from qemu TCG, where calls,
 * loads and stores cost many times what they cost a CPU, each kind by its
 * own factor (docs/benchmarks.md).
 *
 * With N other timeouts of each peer's own kind pending (0, 1k, 100k, 1M,
 * capped by bench_max_pending), it times:
 *  - arm+cancel: bench_ops pairs, a timeout armed (random deadline 1 s -
 *    1 h) and cancelled at once, over bench_objs objects in turn; ns per
 *    pair;
 *  - modify: bench_ops moves of random pending timeouts to new random
 *    deadlines in that range; ns per move;
 * and, on its own:
 *  - expiry: bench_expiry_n timeouts armed for one deadline; ns per expiry
 *    from the first callback to the last, and how late the first and the
 *    last callback ran after the deadline;
 *  - ids: a /dev/hwtimer context's id table against an xarray (below).
 * The calls, deadline ranges and object counts are those of make bench's
 * module (tools/bench/kmod), so that the rows compare one to one. Peers
 * take turns within each round, the first one rotating; each figure is
 * the median of the rounds, and the fastest round is printed beside it.
 * Rounds are short (10k operations, about a millisecond) and many: UML's
 * clock is the host's, so a round during which the host ran something else
 * instead is slow, and short rounds are seldom hit.
 *
 * Nothing here asserts a time: the host is shared, and UML's clock is the
 * host's. The cases check that every operation did what it must: each arm
 * found its timeout idle and each cancel found it pending, each expiry
 * callback ran exactly once, and every background timeout was pending to
 * the end or had run. Figures are printed as lines
 * "BENCH,section,metric,peer,param,value,unit", the format of make bench's
 * logs, which tools/bench/report.py reads.
 *
 * The suite is built with the others but skips unless bench=1 is given
 * (hwtimer_kunit.bench=1 on the command line of a kernel it is built into),
 * so that make kunit-uml and the debug VMs stay quick;
 * tools/bench/uml-bench.sh runs it.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "chardev/hwtimer_ids.h"
#include "hwtimer.h"
#include "hwtimer_kunit.h"

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "Run the hwtimer_bench suite (default 0: its cases skip)");

static unsigned int bench_ops = 10000;
module_param(bench_ops, uint, 0444);
MODULE_PARM_DESC(bench_ops, "hwtimer_bench: operations per timed round (default 10000)");

static unsigned int bench_objs = 10000;
module_param(bench_objs, uint, 0444);
MODULE_PARM_DESC(bench_objs, "hwtimer_bench: arm+cancel objects, used in turn (default 10000)");

static unsigned int bench_rounds = 15;
module_param(bench_rounds, uint, 0444);
MODULE_PARM_DESC(bench_rounds, "hwtimer_bench: rounds per figure, median printed (default 15, at most 31)");

static unsigned long bench_max_pending = 1000000;
module_param(bench_max_pending, ulong, 0444);
MODULE_PARM_DESC(bench_max_pending, "hwtimer_bench: largest background population (default 1M)");

static unsigned int bench_expiry_n = 100000;
module_param(bench_expiry_n, uint, 0444);
MODULE_PARM_DESC(bench_expiry_n, "hwtimer_bench: timeouts due at once in the expiry case (default 100000)");

static unsigned int bench_expiry_rounds = 5;
module_param(bench_expiry_rounds, uint, 0444);
MODULE_PARM_DESC(bench_expiry_rounds, "hwtimer_bench: rounds of the expiry case (default 5, at most 31)");

/* Background populations, smallest first; 0 is the empty run. */
static const unsigned long bench_pending[] = { 0, 1000, 100000, 1000000 };

/* Shortest and longest random deadline, as make bench's. */
#define BENCH_MIN_NS	(1ULL * NSEC_PER_SEC)
#define BENCH_MAX_NS	(3600ULL * NSEC_PER_SEC)
/* Lead of the common expiry deadline over the start of arming. */
#define BENCH_LEAD_NS	(200ULL * NSEC_PER_MSEC)
/* Longest wait for all expiry callbacks: reaching it means lost ones. */
#define BENCH_WAIT	(30 * HZ)
/* Most rounds per figure. */
#define BENCH_ROUNDS_MAX	31
/* Yield the CPU every this many untimed operations. */
#define BENCH_RESCHED_MASK	1023

/*
 * The hwtimer peers' wheels: a private one with one base and default
 * parameters (make bench's "hwtimer"), and the default wheel.
 */
static struct hwtimer_wheel *bench_wheel, *dflt_wheel;

/* Background callbacks that ran: a timeout due within the case did. */
static atomic_t bg_fired;

/**
 * struct bench_expiry - the expiry pass in progress
 * @base: its objects, one peer's
 * @runs: callback runs of each object
 * @n: objects armed
 * @fired: callback runs, all objects
 * @first_ns: when the first callback ran
 * @last_ns: when the @n-th callback ran
 * @done: completed by the @n-th callback
 */
static struct bench_expiry {
	void *base;
	u32 *runs;
	unsigned int n;
	atomic_t fired;
	u64 first_ns;
	u64 last_ns;
	struct completion done;
} ex;

/* Count one run of expiry object @i; note the first and the last. */
static void note_fire(unsigned long i)
{
	unsigned int n;

	if (i < ex.n)
		WRITE_ONCE(ex.runs[i], ex.runs[i] + 1);
	n = atomic_inc_return(&ex.fired);
	if (n == 1)
		WRITE_ONCE(ex.first_ns, ktime_get_ns());
	if (n == ex.n) {
		WRITE_ONCE(ex.last_ns, ktime_get_ns());
		complete(&ex.done);
	}
}

/**
 * struct bench_peer - one timeout implementation under test
 * @name: peer name in the results
 * @size: bytes of one object
 * @init: set up object @p; with @count its callback counts expiries
 * @arm: arm idle @p to expire @ns (@jif jiffies) from now; true if it was
 *	idle and is now pending
 * @arm_at: the same for CLOCK_MONOTONIC time @ns, jiffies value @jif
 * @cancel: cancel @p without waiting; true if it was pending
 * @cancel_sync: cancel @p and wait for its callback; true if it was pending
 * @modify: move @p to expire @ns (@jif) from now; true if it was pending
 *	(hwtimer_modify() does not say, and hrtimer_start() returns nothing:
 *	true)
 */
struct bench_peer {
	const char *name;
	size_t size;
	void (*init)(void *p, bool count);
	bool (*arm)(void *p, u64 ns, unsigned long jif);
	bool (*arm_at)(void *p, u64 ns, unsigned long jif);
	bool (*cancel)(void *p);
	bool (*cancel_sync)(void *p);
	bool (*modify)(void *p, u64 ns, unsigned long jif);
};

/* hwtimer: hwtimer_arm(), hwtimer_cancel() and hwtimer_modify() */

static void hw_count(struct hwtimer_timeout *t)
{
	note_fire(t - (struct hwtimer_timeout *)ex.base);
}

static void hw_bg(struct hwtimer_timeout *t)
{
	atomic_inc(&bg_fired);
}

static void hw_init(void *p, bool count)
{
	hwtimer_timeout_init(p, count ? hw_count : hw_bg, 0);
}

static bool hw_arm(void *p, u64 ns, unsigned long jif)
{
	return !hwtimer_arm(bench_wheel, p, ns, 0, 0);
}

static bool hw_arm_at(void *p, u64 ns, unsigned long jif)
{
	return !hwtimer_arm(bench_wheel, p, ns, 0, HWTIMER_ARM_ABS);
}

static bool hwd_arm(void *p, u64 ns, unsigned long jif)
{
	return !hwtimer_arm(dflt_wheel, p, ns, 0, 0);
}

static bool hwd_arm_at(void *p, u64 ns, unsigned long jif)
{
	return !hwtimer_arm(dflt_wheel, p, ns, 0, HWTIMER_ARM_ABS);
}

static bool hw_cancel(void *p)
{
	return hwtimer_cancel(p) == HWTIMER_CANCELLED;
}

static bool hw_cancel_sync(void *p)
{
	return hwtimer_cancel_sync(p) == HWTIMER_CANCELLED;
}

static bool hw_modify(void *p, u64 ns, unsigned long jif)
{
	return !hwtimer_modify(p, ns, 0);
}

/* timer_list: mod_timer() and timer_delete(), as make bench's */

static void tl_count(struct timer_list *t)
{
	note_fire(t - (struct timer_list *)ex.base);
}

static void tl_bg(struct timer_list *t)
{
	atomic_inc(&bg_fired);
}

static void tl_init(void *p, bool count)
{
	timer_setup(p, count ? tl_count : tl_bg, 0);
}

static bool tl_arm(void *p, u64 ns, unsigned long jif)
{
	return !mod_timer(p, jiffies + jif);
}

static bool tl_arm_at(void *p, u64 ns, unsigned long jif)
{
	return !mod_timer(p, jif);
}

static bool tl_cancel(void *p)
{
	return timer_delete(p);
}

static bool tl_cancel_sync(void *p)
{
	return timer_delete_sync(p);
}

static bool tl_modify(void *p, u64 ns, unsigned long jif)
{
	return mod_timer(p, jiffies + jif);
}

/* hrtimer: hrtimer_start() and hrtimer_try_to_cancel() */

static enum hrtimer_restart hr_count(struct hrtimer *t)
{
	note_fire(t - (struct hrtimer *)ex.base);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart hr_bg(struct hrtimer *t)
{
	atomic_inc(&bg_fired);
	return HRTIMER_NORESTART;
}

static void hr_init(void *p, bool count)
{
	struct hrtimer *t = p;

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->function = count ? hr_count : hr_bg;
}

static bool hr_arm(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_REL);
	return true;
}

static bool hr_arm_at(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_ABS);
	return true;
}

static bool hr_cancel(void *p)
{
	return hrtimer_try_to_cancel(p) == 1;
}

static bool hr_cancel_sync(void *p)
{
	return hrtimer_cancel(p);
}

/* hrtimer_start() of a pending hrtimer moves it. */
static bool hr_modify(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_REL);
	return true;
}

/* delayed_work: mod_delayed_work() and cancel_delayed_work(), as make bench's */

static void dw_count(struct work_struct *w)
{
	note_fire(to_delayed_work(w) - (struct delayed_work *)ex.base);
}

static void dw_bg(struct work_struct *w)
{
	atomic_inc(&bg_fired);
}

static void dw_init(void *p, bool count)
{
	INIT_DELAYED_WORK((struct delayed_work *)p, count ? dw_count : dw_bg);
}

static bool dw_arm(void *p, u64 ns, unsigned long jif)
{
	return !mod_delayed_work(system_wq, p, jif);
}

static bool dw_arm_at(void *p, u64 ns, unsigned long jif)
{
	long d = (long)(jif - jiffies);

	return !mod_delayed_work(system_wq, p, d > 0 ? d : 0);
}

static bool dw_cancel(void *p)
{
	return cancel_delayed_work(p);
}

static bool dw_cancel_sync(void *p)
{
	return cancel_delayed_work_sync(p);
}

static bool dw_modify(void *p, u64 ns, unsigned long jif)
{
	return mod_delayed_work(system_wq, p, jif);
}

static const struct bench_peer peers[] = {
	{ .name = "hwtimer", .size = sizeof(struct hwtimer_timeout),
	  .init = hw_init, .arm = hw_arm, .arm_at = hw_arm_at,
	  .cancel = hw_cancel, .cancel_sync = hw_cancel_sync,
	  .modify = hw_modify },
	{ .name = "hwtimer-default", .size = sizeof(struct hwtimer_timeout),
	  .init = hw_init, .arm = hwd_arm, .arm_at = hwd_arm_at,
	  .cancel = hw_cancel, .cancel_sync = hw_cancel_sync,
	  .modify = hw_modify },
	{ .name = "timer_list", .size = sizeof(struct timer_list),
	  .init = tl_init, .arm = tl_arm, .arm_at = tl_arm_at,
	  .cancel = tl_cancel, .cancel_sync = tl_cancel_sync,
	  .modify = tl_modify },
	{ .name = "hrtimer", .size = sizeof(struct hrtimer),
	  .init = hr_init, .arm = hr_arm, .arm_at = hr_arm_at,
	  .cancel = hr_cancel, .cancel_sync = hr_cancel_sync,
	  .modify = hr_modify },
	{ .name = "delayed_work", .size = sizeof(struct delayed_work),
	  .init = dw_init, .arm = dw_arm, .arm_at = dw_arm_at,
	  .cancel = dw_cancel, .cancel_sync = dw_cancel_sync,
	  .modify = dw_modify },
};

#define BENCH_NPEERS	ARRAY_SIZE(peers)

/**
 * struct peer_run - one peer's objects and figures in a case
 * @bg: the background population; its first @nbg objects are armed
 * @pobj: the arm+cancel objects, initialised
 * @nbg: background objects armed
 * @ns: per round, ns of the timed loop (expiry: first to last callback)
 * @first_late: per expiry round, ns from the deadline to the first callback
 * @last_late: per expiry round, ns from the deadline to the last callback
 * @nvalid: expiry rounds counted
 * @bad: operations that did not do what they must
 * @idle_moves: moves that found their timeout idle, which only a
 *	background timeout that has run may be
 */
struct peer_run {
	void *bg;
	void *pobj;
	unsigned long nbg;
	u64 ns[BENCH_ROUNDS_MAX];
	u64 first_late[BENCH_ROUNDS_MAX];
	u64 last_late[BENCH_ROUNDS_MAX];
	unsigned int nvalid;
	unsigned long bad;
	unsigned long idle_moves;
};

/**
 * struct bench_ctx - per-case state
 * @run: per peer, its objects and figures
 * @pair_ns: per operation, its random deadline (drawn before timing)
 * @pair_jif: the same in jiffies
 * @idx: per move, the background object it moves (drawn before timing)
 * @ops: operations per timed round
 * @objs: arm+cancel objects per peer
 * @rounds: rounds per figure
 * @xobj: objects of the expiry pass in progress, of peer @xpeer
 * @xpeer: peer of @xobj
 */
struct bench_ctx {
	struct peer_run run[BENCH_NPEERS];
	u64 *pair_ns;
	unsigned long *pair_jif;
	u32 *idx;
	unsigned int ops;
	unsigned int objs;
	unsigned int rounds;
	void *xobj;
	unsigned int xpeer;
};

static void *obj(void *base, size_t size, unsigned long i)
{
	return (char *)base + i * size;
}

/* A random deadline from BENCH_MIN_NS to BENCH_MAX_NS, in ns. */
static u64 rand_delay(void)
{
	u64 span = (BENCH_MAX_NS - BENCH_MIN_NS) >> 20;

	return BENCH_MIN_NS + ((get_random_u32() % span) << 20);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values, 1 <= @n <= BENCH_ROUNDS_MAX (the upper middle). */
static u64 median(const u64 *v, unsigned int n)
{
	u64 s[BENCH_ROUNDS_MAX];

	memcpy(s, v, n * sizeof(*s));
	sort(s, n, sizeof(*s), cmp_u64, NULL);
	return s[n / 2];
}

static u64 fastest(const u64 *v, unsigned int n)
{
	u64 m = U64_MAX;

	while (n--)
		m = min(m, v[n]);
	return m;
}

/* One result line; @x10 is the value times ten (one decimal printed). */
static void emit(struct kunit *test, const char *section, const char *metric,
		 const char *peer, unsigned long param, u64 x10,
		 const char *unit)
{
	kunit_info(test, "BENCH,%s,%s,%s,%lu,%llu.%llu,%s\n", section, metric,
		   peer, param, x10 / 10, x10 % 10, unit);
}

/* Peer @p's median and fastest round, per operation (@metric and _min). */
static void emit_rounds(struct kunit *test, const struct bench_ctx *ctx,
			unsigned int p, const char *section,
			const char *metric, unsigned long param)
{
	const struct peer_run *pr = &ctx->run[p];
	char fast[32];

	emit(test, section, metric, peers[p].name, param,
	     div_u64(median(pr->ns, ctx->rounds) * 10, ctx->ops), "ns");
	snprintf(fast, sizeof(fast), "%s_min", metric);
	emit(test, section, fast, peers[p].name, param,
	     div_u64(fastest(pr->ns, ctx->rounds) * 10, ctx->ops), "ns");
}

/* One round of arm+cancel pairs on peer @p's objects in turn: elapsed ns. */
static u64 time_pairs(struct bench_ctx *ctx, unsigned int p, unsigned int r)
{
	const struct bench_peer *pp = &peers[p];
	struct peer_run *pr = &ctx->run[p];
	unsigned int i, o = 0;
	unsigned long bad = 0;
	u64 t0, t;

	t0 = ktime_get_ns();
	for (i = 0; i < ctx->ops; i++) {
		void *q = obj(pr->pobj, pp->size, o);

		bad += !pp->arm(q, ctx->pair_ns[i], ctx->pair_jif[i]);
		bad += !pp->cancel(q);
		if (++o == ctx->objs)
			o = 0;
	}
	t = ktime_get_ns() - t0;
	pr->bad += bad;
	return t;
}

/*
 * One round of moves of peer @p's background objects ctx->idx[] to the
 * deadlines from (@r * 997) on, so that round after round a timeout gets a
 * new deadline, not the one it has (which mod_timer() short-cuts).
 * Elapsed ns.
 */
static u64 time_modify(struct bench_ctx *ctx, unsigned int p, unsigned int r)
{
	const struct bench_peer *pp = &peers[p];
	struct peer_run *pr = &ctx->run[p];
	unsigned int i, j = (r * 997) % ctx->ops;
	unsigned long idle = 0;
	u64 t0, t;

	t0 = ktime_get_ns();
	for (i = 0; i < ctx->ops; i++) {
		idle += !pp->modify(obj(pr->bg, pp->size, ctx->idx[i]),
				    ctx->pair_ns[j], ctx->pair_jif[j]);
		if (++j == ctx->ops)
			j = 0;
	}
	t = ktime_get_ns() - t0;
	pr->idle_moves += idle;
	return t;
}

/* Arm peer @p's background objects up to @want, random deadlines. */
static void grow(struct bench_ctx *ctx, unsigned int p, unsigned long want)
{
	const struct bench_peer *pp = &peers[p];
	struct peer_run *pr = &ctx->run[p];

	for (; pr->nbg < want; pr->nbg++) {
		void *q = obj(pr->bg, pp->size, pr->nbg);
		u64 ns = rand_delay();

		pp->init(q, false);
		pr->bad += !pp->arm(q, ns, nsecs_to_jiffies(ns));
		if (!(pr->nbg & BENCH_RESCHED_MASK))
			cond_resched();
	}
}

/* Cancel and wait for @n objects of @pp at @base; how many were pending. */
static unsigned long cancel_all(const struct bench_peer *pp, void *base,
				unsigned long n)
{
	unsigned long i, pending = 0;

	for (i = 0; i < n; i++) {
		pending += pp->cancel_sync(obj(base, pp->size, i));
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
	return pending;
}

/* The largest population measured. */
static unsigned long top_pending(void)
{
	unsigned long top = 0;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(bench_pending); k++)
		if (bench_pending[k] <= bench_max_pending)
			top = bench_pending[k];
	return top;
}

/*
 * Allocate what the arm+cancel and modify cases use: the random
 * deadlines, and per peer room for the largest population and, with
 * @pairs, the arm+cancel objects.
 */
static void setup(struct kunit *test, struct bench_ctx *ctx, bool pairs)
{
	unsigned long top = top_pending();
	unsigned int p, i;

	ctx->pair_ns = kvmalloc_array(ctx->ops, sizeof(u64), GFP_KERNEL);
	ctx->pair_jif = kvmalloc_array(ctx->ops, sizeof(long), GFP_KERNEL);
	ctx->idx = kvmalloc_array(ctx->ops, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ctx->pair_ns && ctx->pair_jif && ctx->idx);
	for (i = 0; i < ctx->ops; i++) {
		ctx->pair_ns[i] = rand_delay();
		ctx->pair_jif[i] = nsecs_to_jiffies(ctx->pair_ns[i]);
	}
	for (p = 0; p < BENCH_NPEERS; p++) {
		struct peer_run *pr = &ctx->run[p];

		pr->bg = vzalloc(array_size(max(top, 1UL), peers[p].size));
		KUNIT_ASSERT_NOT_NULL(test, pr->bg);
		if (!pairs)
			continue;
		pr->pobj = vzalloc(array_size(ctx->objs, peers[p].size));
		KUNIT_ASSERT_NOT_NULL(test, pr->pobj);
		for (i = 0; i < ctx->objs; i++)
			peers[p].init(obj(pr->pobj, peers[p].size, i), false);
	}
}

/*
 * End of the arm+cancel and modify cases: every operation did what it
 * must, and every background timeout was still pending or has run (its
 * deadline, 1 s at the least, may come within the case).
 */
static void settle(struct kunit *test, struct bench_ctx *ctx)
{
	unsigned int p;

	for (p = 0; p < BENCH_NPEERS; p++) {
		struct peer_run *pr = &ctx->run[p];
		unsigned long n = pr->nbg, pending;

		pending = cancel_all(&peers[p], pr->bg, n);
		pr->nbg = 0;
		KUNIT_EXPECT_EQ_MSG(test, pr->bad, 0,
				    "%s: arms that did not find their timeout idle or cancels that did not find it pending",
				    peers[p].name);
		KUNIT_EXPECT_GE_MSG(test, pending + atomic_read(&bg_fired), n,
				    "%s: background timeouts neither pending nor run",
				    peers[p].name);
		KUNIT_EXPECT_LE_MSG(test, pr->idle_moves,
				    (unsigned long)atomic_read(&bg_fired),
				    "%s: moves that found a timeout idle that had not run",
				    peers[p].name);
	}
	if (atomic_read(&bg_fired))
		kunit_info(test, "%d background timeouts came due during the case\n",
			   atomic_read(&bg_fired));
}

/* Time @time on every peer over the rounds, the first peer rotating. */
static void interleave(struct bench_ctx *ctx,
		       u64 (*time)(struct bench_ctx *, unsigned int,
				   unsigned int))
{
	unsigned int r, i, p;

	for (r = 0; r < ctx->rounds; r++) {
		for (i = 0; i < BENCH_NPEERS; i++) {
			p = (r + i) % BENCH_NPEERS;
			ctx->run[p].ns[r] = time(ctx, p, r);
			cond_resched();
		}
	}
}

static int bench_init(struct kunit *test)
{
	struct hwtimer_wheel_params wp = { .name = "kunit_bench" };
	struct bench_ctx *ctx;

	/* Without bench=1 every case skips; nothing to set up. */
	if (!bench)
		return 0;
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->ops = max(bench_ops, 1U);
	ctx->objs = clamp(bench_objs, 1U, ctx->ops);
	ctx->rounds = clamp(bench_rounds, 1U, BENCH_ROUNDS_MAX);
	bench_wheel = hwtimer_wheel_create(&wp);
	if (IS_ERR(bench_wheel)) {
		int err = PTR_ERR(bench_wheel);

		bench_wheel = NULL;
		return err;
	}
	dflt_wheel = hwtimer_default_wheel();
	atomic_set(&bg_fired, 0);
	test->priv = ctx;
	return 0;
}

static void bench_exit(struct kunit *test)
{
	struct bench_ctx *ctx = test->priv;
	unsigned int p;

	if (!ctx)
		return;
	/* What a case left behind when an assertion stopped it. */
	if (ctx->xobj) {
		cancel_all(&peers[ctx->xpeer], ctx->xobj, ex.n);
		vfree(ctx->xobj);
	}
	for (p = 0; p < BENCH_NPEERS; p++) {
		struct peer_run *pr = &ctx->run[p];

		if (pr->bg)
			cancel_all(&peers[p], pr->bg, pr->nbg);
		if (pr->pobj)
			cancel_all(&peers[p], pr->pobj, ctx->objs);
		vfree(pr->bg);
		vfree(pr->pobj);
	}
	hwtimer_wheel_destroy(bench_wheel);
	bench_wheel = NULL;
	vfree(ex.runs);
	ex.runs = NULL;
	kvfree(ctx->pair_ns);
	kvfree(ctx->pair_jif);
	kvfree(ctx->idx);
}

/* The case's state; the case skips unless the suite was asked for. */
static struct bench_ctx *bench_ctx(struct kunit *test)
{
	if (!bench)
		kunit_skip(test,
			   "a benchmark: runs with hwtimer_kunit.bench=1 (tools/bench/uml-bench.sh)");
	return test->priv;
}

static void bench_arm_cancel_by_pending(struct kunit *test)
{
	struct bench_ctx *ctx = bench_ctx(test);
	unsigned int k, p;

	setup(test, ctx, true);
	for (k = 0; k < ARRAY_SIZE(bench_pending); k++) {
		unsigned long want = bench_pending[k];

		if (want > bench_max_pending)
			break;
		for (p = 0; p < BENCH_NPEERS; p++)
			grow(ctx, p, want);
		interleave(ctx, time_pairs);
		for (p = 0; p < BENCH_NPEERS; p++)
			emit_rounds(test, ctx, p, "uml-armcancel", "ns_per_pair",
				    want);
	}
	settle(test, ctx);
}

static void bench_modify_by_pending(struct kunit *test)
{
	struct bench_ctx *ctx = bench_ctx(test);
	unsigned int k, p, i;

	setup(test, ctx, false);
	for (k = 0; k < ARRAY_SIZE(bench_pending); k++) {
		unsigned long want = bench_pending[k];

		if (!want)
			continue;
		if (want > bench_max_pending)
			break;
		for (p = 0; p < BENCH_NPEERS; p++)
			grow(ctx, p, want);
		for (i = 0; i < ctx->ops; i++)
			ctx->idx[i] = get_random_u32() % want;
		interleave(ctx, time_modify);
		for (p = 0; p < BENCH_NPEERS; p++)
			emit_rounds(test, ctx, p, "uml-modify", "ns_per_op", want);
	}
	settle(test, ctx);
}

/*
 * One expiry pass of peer @p: ex.n timeouts armed for one deadline
 * BENCH_LEAD_NS after the first arm. Checks that every callback ran
 * exactly once, and records the pass unless arming outlasted the lead.
 */
static void expiry_pass(struct kunit *test, struct bench_ctx *ctx,
			unsigned int p)
{
	const struct bench_peer *pp = &peers[p];
	struct peer_run *pr = &ctx->run[p];
	unsigned long i, jif, bad = 0, wrong = 0;
	u64 t0, target, armed, first, last;
	bool done;

	ctx->xobj = vzalloc(array_size(ex.n, pp->size));
	KUNIT_ASSERT_NOT_NULL(test, ctx->xobj);
	ctx->xpeer = p;
	for (i = 0; i < ex.n; i++)
		pp->init(obj(ctx->xobj, pp->size, i), true);
	memset(ex.runs, 0, array_size(ex.n, sizeof(*ex.runs)));
	ex.base = ctx->xobj;
	atomic_set(&ex.fired, 0);
	reinit_completion(&ex.done);

	t0 = ktime_get_ns();
	target = t0 + BENCH_LEAD_NS;
	/* A jiffy more, so that a jiffies timeout is not due before @target. */
	jif = jiffies + nsecs_to_jiffies(BENCH_LEAD_NS) + 1;
	for (i = 0; i < ex.n; i++) {
		bad += !pp->arm_at(obj(ctx->xobj, pp->size, i), target, jif);
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
	armed = ktime_get_ns();
	done = wait_for_completion_timeout(&ex.done, BENCH_WAIT);
	KUNIT_EXPECT_TRUE_MSG(test, done, "%s: %d of %u callbacks ran",
			      pp->name, atomic_read(&ex.fired), ex.n);
	/* None may be pending now; a duplicate run would have happened. */
	bad += cancel_all(pp, ctx->xobj, ex.n);
	for (i = 0; i < ex.n; i++)
		wrong += READ_ONCE(ex.runs[i]) != 1;
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "%s: arms that did not find their timeout idle, or timeouts still pending after the run",
			    pp->name);
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0, "%s: callbacks that ran other than once",
			    pp->name);
	vfree(ctx->xobj);
	ctx->xobj = NULL;
	if (!done)
		return;
	if (armed > target) {
		kunit_info(test, "%s: arming took %llu ns, past the deadline: round not counted\n",
			   pp->name, armed - t0);
		return;
	}
	first = READ_ONCE(ex.first_ns);
	last = READ_ONCE(ex.last_ns);
	pr->ns[pr->nvalid] = last - first;
	pr->first_late[pr->nvalid] = first > target ? first - target : 0;
	pr->last_late[pr->nvalid] = last > target ? last - target : 0;
	pr->nvalid++;
}

static void bench_expiry_all_due_at_once(struct kunit *test)
{
	struct bench_ctx *ctx = bench_ctx(test);
	unsigned int rounds = clamp(bench_expiry_rounds, 1U, BENCH_ROUNDS_MAX);
	unsigned int r, i, p, n;

	ex.n = max(bench_expiry_n, 1U);
	ex.runs = vzalloc(array_size(ex.n, sizeof(*ex.runs)));
	KUNIT_ASSERT_NOT_NULL(test, ex.runs);
	init_completion(&ex.done);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < BENCH_NPEERS; i++) {
			expiry_pass(test, ctx, (r + i) % BENCH_NPEERS);
			cond_resched();
		}
	}
	for (p = 0; p < BENCH_NPEERS; p++) {
		const struct peer_run *pr = &ctx->run[p];

		n = pr->nvalid;
		if (!n) {
			kunit_info(test, "%s: no round counted\n", peers[p].name);
			continue;
		}
		emit(test, "uml-expiry", "ns_per_expiry", peers[p].name, ex.n,
		     div_u64(median(pr->ns, n) * 10, ex.n), "ns");
		emit(test, "uml-expiry", "ns_per_expiry_min", peers[p].name,
		     ex.n, div_u64(fastest(pr->ns, n) * 10, ex.n), "ns");
		emit(test, "uml-expiry", "first_late", peers[p].name, ex.n,
		     median(pr->first_late, n) * 10, "ns");
		emit(test, "uml-expiry", "last_late", peers[p].name, ex.n,
		     median(pr->last_late, n) * 10, "ns");
	}
}

/*
 * ---- id tables: the context's (hwtimer_ids.c) against an xarray ----
 *
 * A /dev/hwtimer context finds its timeouts by id in a table of its own
 * (chardev/hwtimer_ids.c). The kernel's general answer would be an xarray
 * with cyclic allocation (xa_alloc_cyclic(), as the context tags use):
 * ids from 1 to HWTIMER_IDS_MAX - 1, handed out in turn, so that a freed
 * id comes back only after every other one was handed out, and a lookup
 * that checks the object's own id. With N ids live in each (0, 1k, 100k,
 * 1M, capped by bench_max_pending), it times, under the table's lock
 * held for the round as the context's lock is held for an op:
 *  - alloc+free: bench_ops ids given to an object and taken back, as an
 *    arm and its cancel do; ns per pair;
 *  - lookup: bench_ops lookups of random live ids, as a cancel's or a
 *    modify's; ns per lookup.
 */

/* An object with an id, as a timer of a context is to its table. */
struct ids_obj {
	u64 id;
};

/**
 * struct ids_bench - the two tables of the id-table case
 * @lock: hwtimer_ids' lock, the context's lock in /dev/hwtimer
 * @ids: the context's table
 * @xa: the xarray, locked by its own xa_lock
 * @xa_next: the xarray's cyclic cursor
 * @live: N objects with an id in each table (@live[0] in @ids, [1] in @xa)
 * @spare: objects for the pairs
 * @n: live ids in each
 * @pick: positions of random live objects, for the lookups
 */
struct ids_bench {
	spinlock_t lock;	/* @ids' */
	struct hwtimer_ids ids;
	struct xarray xa;
	u32 xa_next;
	struct ids_obj *live[2];
	struct ids_obj spare[2];
	unsigned long n;
	u32 pick[1024];
};

/* Give @o an id of @b's table @t (0: hwtimer_ids, 1: xarray); 0 if none. */
static u64 ids_give(struct ids_bench *b, unsigned int t, struct ids_obj *o)
{
	u32 idx;

	if (!t)
		return hwtimer_ids_alloc(&b->ids, &o->id);
	if (__xa_alloc_cyclic(&b->xa, &idx, o,
			      XA_LIMIT(1, HWTIMER_IDS_MAX - 1), &b->xa_next,
			      GFP_KERNEL) < 0)
		return 0;
	o->id = (u64)1 << HWTIMER_IDS_TAG_SHIFT | idx;
	return o->id;
}

/* The object of @id in table @t, if it is still that id's. */
static struct ids_obj *ids_find(struct ids_bench *b, unsigned int t, u64 id)
{
	struct ids_obj *o;

	if (!t) {
		u64 *idp = hwtimer_ids_lookup(&b->ids, id);

		return idp ? container_of(idp, struct ids_obj, id) : NULL;
	}
	o = xa_load(&b->xa, id & HWTIMER_IDS_IDX_MASK);
	return o && o->id == id ? o : NULL;
}

static void ids_take(struct ids_bench *b, unsigned int t, u64 id)
{
	if (!t)
		hwtimer_ids_free(&b->ids, id);
	else
		__xa_erase(&b->xa, id & HWTIMER_IDS_IDX_MASK);
}

static void ids_lock(struct ids_bench *b, unsigned int t)
{
	if (!t)
		spin_lock(&b->lock);
	else
		xa_lock(&b->xa);
}

static void ids_unlock(struct ids_bench *b, unsigned int t)
{
	if (!t)
		spin_unlock(&b->lock);
	else
		xa_unlock(&b->xa);
}

/* Give ids to @b's live objects until @n have one in each table. */
static int ids_grow(struct ids_bench *b, unsigned long n)
{
	unsigned long i;
	unsigned int t;
	int ret = 0;

	for (t = 0; t < 2 && !ret; t++) {
		ids_lock(b, t);
		for (i = b->n; i < n && !ret; i++) {
			/* The xarray allocates as it goes; the table grows. */
			while (!ids_give(b, t, &b->live[t][i]) && !ret)
				ret = t ? -ENOMEM : hwtimer_ids_grow(&b->ids);
			if (!(i & BENCH_RESCHED_MASK)) {
				ids_unlock(b, t);
				cond_resched();
				ids_lock(b, t);
			}
		}
		/* A pair needs a free slot besides the live ones. */
		if (!t && !ret && !b->ids.free_head)
			ret = hwtimer_ids_grow(&b->ids);
		ids_unlock(b, t);
	}
	b->n = n;
	return ret;
}

/* One round of @ops alloc+free pairs (@lookup: lookups) on table @t, ns. */
static u64 ids_round(struct ids_bench *b, unsigned int t, unsigned int ops,
		     bool lookup, unsigned long *bad)
{
	struct ids_obj *o = &b->spare[t];
	unsigned int i;
	u64 t0, ns, id;

	ids_lock(b, t);
	t0 = ktime_get_ns();
	for (i = 0; i < ops; i++) {
		if (lookup) {
			o = &b->live[t][b->pick[i % ARRAY_SIZE(b->pick)]];
			*bad += ids_find(b, t, o->id) != o;
			continue;
		}
		id = ids_give(b, t, o);
		*bad += !id || ids_find(b, t, id) != o;
		if (id)
			ids_take(b, t, id);
	}
	ns = ktime_get_ns() - t0;
	ids_unlock(b, t);
	return ns;
}

/* Both tables' median and fastest round of @what at @n live ids. */
static void ids_figures(struct kunit *test, struct ids_bench *b,
			unsigned int ops, unsigned int rounds, bool lookup)
{
	static const char * const names[] = { "hwtimer_ids", "xarray" };
	const char *metric = lookup ? "ns_per_lookup" : "ns_per_pair";
	u64 ns[2][BENCH_ROUNDS_MAX];
	unsigned long bad = 0;
	unsigned int r, t;
	char fast[32];

	for (r = 0; r < rounds; r++) {
		for (t = 0; t < 2; t++)
			ns[(r + t) % 2][r] = ids_round(b, (r + t) % 2, ops,
						       lookup, &bad);
		cond_resched();
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0UL, "%s: ids not found as given",
			    metric);
	snprintf(fast, sizeof(fast), "%s_min", metric);
	for (t = 0; t < 2; t++) {
		emit(test, "uml-ids", metric, names[t], b->n,
		     div_u64(median(ns[t], rounds) * 10, ops), "ns");
		emit(test, "uml-ids", fast, names[t], b->n,
		     div_u64(fastest(ns[t], rounds) * 10, ops), "ns");
	}
}

static void ids_bench_free(struct ids_bench *b)
{
	hwtimer_ids_destroy(&b->ids);
	xa_destroy(&b->xa);
	vfree(b->live[0]);
	vfree(b->live[1]);
	kfree(b);
}

static void bench_ids_by_count(struct kunit *test)
{
	struct bench_ctx *ctx = bench_ctx(test);
	unsigned long most = min_t(unsigned long, bench_max_pending,
				   HWTIMER_IDS_MAX / 2);
	struct ids_bench *b;
	unsigned int k, i;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	spin_lock_init(&b->lock);
	hwtimer_ids_init(&b->ids, &b->lock, 1, HWTIMER_IDS_MAX);
	xa_init_flags(&b->xa, XA_FLAGS_ALLOC1);
	b->live[0] = vzalloc(array_size(most + 1, sizeof(struct ids_obj)));
	b->live[1] = vzalloc(array_size(most + 1, sizeof(struct ids_obj)));
	if (!b->live[0] || !b->live[1]) {
		ids_bench_free(b);
		KUNIT_FAIL(test, "no memory for %lu objects", most);
		return;
	}
	for (k = 0; k < ARRAY_SIZE(bench_pending); k++) {
		unsigned long want = bench_pending[k];

		if (want > most)
			break;
		if (ids_grow(b, want)) {
			KUNIT_FAIL(test, "could not give %lu ids", want);
			break;
		}
		ids_figures(test, b, ctx->ops, ctx->rounds, false);
		if (!want)
			continue;
		for (i = 0; i < ARRAY_SIZE(b->pick); i++)
			b->pick[i] = get_random_u32_below(want);
		ids_figures(test, b, ctx->ops, ctx->rounds, true);
	}
	ids_bench_free(b);
}

static struct kunit_case hwtimer_bench_cases[] = {
	KUNIT_CASE_SLOW(bench_arm_cancel_by_pending),
	KUNIT_CASE_SLOW(bench_modify_by_pending),
	KUNIT_CASE_SLOW(bench_expiry_all_due_at_once),
	KUNIT_CASE_SLOW(bench_ids_by_count),
	{}
};

static struct kunit_suite hwtimer_bench_suite = {
	.name = "hwtimer_bench",
	.init = bench_init,
	.exit = bench_exit,
	.test_cases = hwtimer_bench_cases,
};

kunit_test_suite(hwtimer_bench_suite);
