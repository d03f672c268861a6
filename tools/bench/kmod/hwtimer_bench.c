// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_bench.c - in-kernel benchmark of hwtimer against the kernel's own
 * timeouts: timer_list, hrtimer and delayed_work.
 *
 * Everything runs once, from module init, in the insmod task; results go
 * to the kernel log as lines "BENCH,section,metric,peer,param,value,unit"
 * that tools/bench/report.py turns into a CSV, a table and plots. The
 * module then stays loaded doing nothing until rmmod.
 *
 * The emulated machine shares its host with other work, so its speed
 * drifts. Peers are therefore measured interleaved, not one after another:
 * each pass times every peer in turn (rotating who goes first), and each
 * figure is the fastest of @reps passes, the least disturbed one.
 *
 *  - empty: the same pairs before any background timeout is armed, so
 *    each peer's structure holds nothing else (timer_list's and hrtimer's
 *    per-CPU bases still hold the kernel's own timers).
 *  - arm+cancel: with 1k, 10k, 100k and 1M other timeouts of its own kind
 *    pending (random deadlines from 1 s to 1 h; every peer's population is
 *    held at once), the cost of arming and at once cancelling each of
 *    @pairs further timeouts (random deadlines in the same range).
 *  - modify: against the same populations, @pairs times a random pending
 *    background timeout is moved to a new random deadline in that range
 *    (hwtimer_modify(), mod_timer(), hrtimer_start() of a pending hrtimer,
 *    mod_delayed_work()); ns per move.
 *  - slab: growth of the slab counters while a peer goes from 10k to 100k
 *    pending, per timeout. Every peer embeds its timeout in the caller's
 *    object, so this is about 0 for all; the object size is the real cost
 *    and is printed too.
 *  - contended: one kthread bound to each online CPU; each arms its share
 *    of a @max_pending background population on its own CPU, then, all
 *    released together, each does @pairs arm+cancel pairs (and, in another
 *    round, @pairs modifies of random timeouts of its share) on its own
 *    timeouts. The figure is throughput based: the wall time from the
 *    first worker's start to the last one's end, divided by the pairs of
 *    all workers. It is taken with 1, 2, 4, ... workers up to one per CPU,
 *    for hwtimer on a wheel with one base per CPU, hwtimer on a wheel with
 *    one base, timer_list and hrtimer; and for two diagnostic peers: the
 *    per-CPU wheel armed with absolute deadlines (no clock read per op)
 *    and a clock read alone, which shows what the emulator's clock costs.
 *  - expiry: @expiry_n timeouts armed for one and the same deadline; the
 *    time from the first callback to the last, per expiry. hwtimer runs
 *    three times: on a wheel with one base and its default pool of
 *    workers, with a single worker, and on the per-CPU wheel, where the
 *    timeouts armed from this CPU run on its base's workers, bound to it,
 *    as timer_list's run on the CPU that armed them.
 *
 * hwtimer runs on private wheels ("bench", "bench-percpu", "bench-1w", and
 * "bench-abs" and "bench-nopin" for the diagnostic variants) with the
 * default tick, so the module's default wheel stays idle for the idle test.
 * "hwtimer" is a wheel with one base, "hwtimer-percpu" one created with
 * %HWTIMER_WHEEL_PERCPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "hwtimer.h"

static unsigned long max_pending = 1000000;
module_param(max_pending, ulong, 0444);
MODULE_PARM_DESC(max_pending, "Largest background population (default 1M)");

static unsigned int pairs = 10000;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "Arm+cancel pairs per measurement (default 10000)");

static unsigned int reps = 7;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Passes per arm+cancel figure; the fastest is kept (default 7)");

static unsigned int expiry_reps = 2;
module_param(expiry_reps, uint, 0444);
MODULE_PARM_DESC(expiry_reps, "Passes per expiry figure; the fastest is kept (default 2)");

static unsigned int expiry_n = 100000;
module_param(expiry_n, uint, 0444);
MODULE_PARM_DESC(expiry_n, "Timeouts expiring in the same tick (default 100000)");

static bool single = true;
module_param(single, bool, 0444);
MODULE_PARM_DESC(single, "Run the one-thread parts: parts, empty, arm+cancel, modify, expiry (default 1)");

static bool contended = true;
module_param(contended, bool, 0444);
MODULE_PARM_DESC(contended, "Run the contended part, one kthread per CPU (default 1)");

/*
 * Background populations measured, smallest first, capped by max_pending;
 * 0 is the empty run.
 */
static const unsigned long bench_pending[] = { 0, 1000, 10000, 100000, 1000000 };

/* Shortest and longest random deadline of a background or pair timeout. */
#define BENCH_MIN_NS	(1ULL * NSEC_PER_SEC)
#define BENCH_MAX_NS	(3600ULL * NSEC_PER_SEC)
/* Lead time of the common expiry deadline over the start of arming. */
#define BENCH_EXPIRY_LEAD_NS	(4ULL * NSEC_PER_SEC)
/* Longest wait for all expiry callbacks. */
#define BENCH_EXPIRY_WAIT	(120 * HZ)
/* Yield the CPU every this many untimed operations. */
#define BENCH_RESCHED_MASK	1023

/* Expiry bookkeeping shared by every counting callback. */
static atomic_t fired;
static unsigned int fire_target;
static u64 first_ns, last_ns;
static DECLARE_COMPLETION(fire_done);

/*
 * Private wheels of the hwtimer peers: default workers, one base per CPU,
 * one worker, and one for each diagnostic variant, so every wheel holds only its own peer's
 * population.
 */
static struct hwtimer_wheel *bench_wheel, *bench_wheel1, *bench_wheelp;
static struct hwtimer_wheel *wheel_abs, *wheel_nopin;

/* Count one expiry; note the first and the last. Any context. */
static void note_fire(void)
{
	unsigned int n = atomic_inc_return(&fired);

	if (n == 1)
		WRITE_ONCE(first_ns, ktime_get_ns());
	if (n == fire_target) {
		WRITE_ONCE(last_ns, ktime_get_ns());
		complete(&fire_done);
	}
}

/**
 * struct bench_peer - one timeout implementation under test
 * @name: peer name in the results
 * @size: bytes of one object
 * @init: set up object @p; @count: its callback counts expiries
 * @arm: arm @p to expire in @ns (@jif: the same in jiffies, from now)
 * @arm_at: arm @p for absolute CLOCK_MONOTONIC time @ns (jiffies @jif)
 * @cancel: cancel @p without waiting
 * @cancel_sync: cancel @p and wait for its callback
 * @modify: move pending @p to expire in @ns (@jif) from now; NULL: not run
 * @armcancel: measured in the arm+cancel runs
 * @expiry: measured in the expiry runs
 * @contended: measured in the contended runs
 */
struct bench_peer {
	const char *name;
	size_t size;
	void (*init)(void *p, bool count);
	void (*arm)(void *p, u64 ns, unsigned long jif);
	void (*arm_at)(void *p, u64 ns, unsigned long jif);
	void (*cancel)(void *p);
	void (*cancel_sync)(void *p);
	void (*modify)(void *p, u64 ns, unsigned long jif);
	bool armcancel;
	bool expiry;
	bool contended;
};

/* timer_list: mod_timer() and timer_delete() */

static void tl_count(struct timer_list *t)
{
	note_fire();
}

static void tl_idle(struct timer_list *t)
{
}

static void tl_init(void *p, bool count)
{
	timer_setup(p, count ? tl_count : tl_idle, 0);
}

static void tl_arm(void *p, u64 ns, unsigned long jif)
{
	mod_timer(p, jiffies + jif);
}

static void tl_arm_at(void *p, u64 ns, unsigned long jif)
{
	mod_timer(p, jif);
}

static void tl_modify(void *p, u64 ns, unsigned long jif)
{
	mod_timer(p, jiffies + jif);
}

static void tl_cancel(void *p)
{
	timer_delete(p);
}

static void tl_cancel_sync(void *p)
{
	timer_delete_sync(p);
}

/* hrtimer: hrtimer_start() and hrtimer_try_to_cancel() */

static enum hrtimer_restart hr_count(struct hrtimer *t)
{
	note_fire();
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart hr_idle(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void hr_init(void *p, bool count)
{
	struct hrtimer *t = p;

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->function = count ? hr_count : hr_idle;
}

static void hr_arm(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_REL);
}

static void hr_arm_at(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_ABS);
}

/* hrtimer_start() of a pending hrtimer moves it, as hrtimer_forward would not. */
static void hr_modify(void *p, u64 ns, unsigned long jif)
{
	hrtimer_start(p, ns_to_ktime(ns), HRTIMER_MODE_REL);
}

static void hr_cancel(void *p)
{
	hrtimer_try_to_cancel(p);
}

static void hr_cancel_sync(void *p)
{
	hrtimer_cancel(p);
}

/* delayed_work: mod_delayed_work() and cancel_delayed_work() */

static void dw_count(struct work_struct *w)
{
	note_fire();
}

static void dw_idle(struct work_struct *w)
{
}

static void dw_init(void *p, bool count)
{
	INIT_DELAYED_WORK((struct delayed_work *)p, count ? dw_count : dw_idle);
}

static void dw_arm(void *p, u64 ns, unsigned long jif)
{
	mod_delayed_work(system_wq, p, jif);
}

static void dw_arm_at(void *p, u64 ns, unsigned long jif)
{
	long d = (long)(jif - jiffies);

	mod_delayed_work(system_wq, p, d > 0 ? d : 0);
}

static void dw_modify(void *p, u64 ns, unsigned long jif)
{
	mod_delayed_work(system_wq, p, jif);
}

static void dw_cancel(void *p)
{
	cancel_delayed_work(p);
}

static void dw_cancel_sync(void *p)
{
	cancel_delayed_work_sync(p);
}

/* hwtimer: hwtimer_arm() and hwtimer_cancel() on the private wheel */

static void hw_count(struct hwtimer_timeout *t)
{
	note_fire();
}

static void hw_idle(struct hwtimer_timeout *t)
{
}

static void hw_init(void *p, bool count)
{
	hwtimer_timeout_init((struct hwtimer_timeout *)p,
			     count ? hw_count : hw_idle, 0);
}

/*
 * Diagnostic variants of the hwtimer peer, to split its arm+cancel cost:
 * "hwtimer-abs" arms for an absolute deadline (no clock read on the arm
 * path, like timer_list) on a wheel this module does not own, where each
 * timeout pins it as on the default wheel; "hwtimer-abs-nopin" arms the
 * same on a wheel it owns, with no owner module either (the NULL owner
 * __hwtimer_timeout_init() allows).
 */
static u64 pair_base;

static void hw_init_nopin(void *p, bool count)
{
	__hwtimer_timeout_init(p, count ? hw_count : hw_idle, 0, NULL);
}

static void hw_arm_abs(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(wheel_abs, p, pair_base + ns, 0, HWTIMER_ARM_ABS);
}

static void hw_arm_abs_nopin(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(wheel_nopin, p, pair_base + ns, 0, HWTIMER_ARM_ABS);
}

static void hw_arm(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheel, p, ns, 0, 0);
}

static void hw_arm_at(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheel, p, ns, 0, HWTIMER_ARM_ABS);
}

static void hw1_arm_at(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheel1, p, ns, 0, HWTIMER_ARM_ABS);
}

static void hwp_arm(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheelp, p, ns, 0, 0);
}

static void hwp_arm_at(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheelp, p, ns, 0, HWTIMER_ARM_ABS);
}

/*
 * "hwtimer-percpu-abs": the contended runs of "hwtimer-percpu" with
 * absolute deadlines from pair_base, which the contended jobs keep
 * fresh, so that no arm or modify reads the clock.
 */
static void hwp_arm_abs(void *p, u64 ns, unsigned long jif)
{
	hwtimer_arm(bench_wheelp, p, READ_ONCE(pair_base) + ns, 0,
		    HWTIMER_ARM_ABS);
}

static void hw_modify_abs(void *p, u64 ns, unsigned long jif)
{
	hwtimer_modify(p, READ_ONCE(pair_base) + ns, HWTIMER_ARM_ABS);
}

/*
 * "ktime_get": no timeout at all, a clock read per arm and per modify;
 * what the contended runs of a peer that reads the clock pay for it.
 */
static void clk_init(void *p, bool count)
{
}

static void clk_read(void *p, u64 ns, unsigned long jif)
{
	WRITE_ONCE(*(u64 *)p, ktime_get_ns());
}

static void clk_none(void *p)
{
}

static void hw_modify(void *p, u64 ns, unsigned long jif)
{
	hwtimer_modify(p, ns, 0);
}

static void hw_cancel(void *p)
{
	hwtimer_cancel(p);
}

static void hw_cancel_sync(void *p)
{
	hwtimer_cancel_sync(p);
}

#define HW_SIZE	sizeof(struct hwtimer_timeout)

static const struct bench_peer peers[] = {
	{ .name = "hwtimer", .size = HW_SIZE, .init = hw_init,
	  .arm = hw_arm, .arm_at = hw_arm_at, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .modify = hw_modify,
	  .armcancel = true, .expiry = true, .contended = true },
	{ .name = "hwtimer-percpu", .size = HW_SIZE, .init = hw_init,
	  .arm = hwp_arm, .arm_at = hwp_arm_at, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .modify = hw_modify,
	  .armcancel = true, .expiry = true, .contended = true },
	{ .name = "timer_list", .size = sizeof(struct timer_list),
	  .init = tl_init, .arm = tl_arm, .arm_at = tl_arm_at,
	  .cancel = tl_cancel, .cancel_sync = tl_cancel_sync,
	  .modify = tl_modify, .armcancel = true, .expiry = true,
	  .contended = true },
	{ .name = "hrtimer", .size = sizeof(struct hrtimer), .init = hr_init,
	  .arm = hr_arm, .arm_at = hr_arm_at, .cancel = hr_cancel,
	  .cancel_sync = hr_cancel_sync, .modify = hr_modify,
	  .armcancel = true, .expiry = true, .contended = true },
	{ .name = "delayed_work", .size = sizeof(struct delayed_work),
	  .init = dw_init, .arm = dw_arm, .arm_at = dw_arm_at,
	  .cancel = dw_cancel, .cancel_sync = dw_cancel_sync,
	  .modify = dw_modify, .armcancel = true, .expiry = true },
	{ .name = "hwtimer-abs", .size = HW_SIZE, .init = hw_init,
	  .arm = hw_arm_abs, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .armcancel = true },
	{ .name = "hwtimer-abs-nopin", .size = HW_SIZE, .init = hw_init_nopin,
	  .arm = hw_arm_abs_nopin, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .armcancel = true },
	{ .name = "hwtimer-1worker", .size = HW_SIZE, .init = hw_init,
	  .arm_at = hw1_arm_at, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .expiry = true },
	{ .name = "hwtimer-percpu-abs", .size = HW_SIZE, .init = hw_init,
	  .arm = hwp_arm_abs, .cancel = hw_cancel,
	  .cancel_sync = hw_cancel_sync, .modify = hw_modify_abs,
	  .contended = true },
	{ .name = "ktime_get", .size = sizeof(u64), .init = clk_init,
	  .arm = clk_read, .cancel = clk_none, .cancel_sync = clk_none,
	  .modify = clk_read, .contended = true },
};

#define BENCH_NPEERS	ARRAY_SIZE(peers)

/* One result line; @x10 is the value times ten (one decimal printed). */
static void emit(const char *section, const char *metric, const char *peer,
		 unsigned long param, u64 x10, const char *unit)
{
	pr_info("BENCH,%s,%s,%s,%lu,%llu.%llu,%s\n", section, metric, peer,
		param, x10 / 10, x10 % 10, unit);
}

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

/* Slab pages in use, reclaimable or not, as /proc/meminfo's Slab. */
static unsigned long slab_pages(void)
{
	return global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
	       global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
}

/* Deadlines of the pair timeouts, drawn once so draws are not timed. */
static u64 *pair_ns;
static unsigned long *pair_jif;

/**
 * struct peer_run - one peer's objects during the arm+cancel runs
 * @bg: the background population, max_pending objects
 * @pobj: the pair objects, @pairs of them
 * @nbg: background objects armed so far
 * @best: fastest arm+cancel pass at the current population, ns for all pairs
 * @best_mod: fastest modify pass at the current population, ns for all moves
 * @ready: the pair objects are initialised
 */
struct peer_run {
	void *bg;
	void *pobj;
	unsigned long nbg;
	u64 best;
	u64 best_mod;
	bool ready;
};

/* One pass of arm+cancel over @pairs objects: elapsed ns. */
static u64 time_pairs(const struct bench_peer *pp, void *pobj)
{
	unsigned int i;
	u64 t0;

	pair_base = ktime_get_ns();
	t0 = ktime_get_ns();
	for (i = 0; i < pairs; i++) {
		void *p = obj(pobj, pp->size, i);

		pp->arm(p, pair_ns[i], pair_jif[i]);
		pp->cancel(p);
	}
	return ktime_get_ns() - t0;
}

/*
 * One pass of @pairs moves: background object @idx[i] of @bg goes to the
 * deadline pair_ns[(i + @rot) % pairs], so that pass after pass a timeout
 * gets a new deadline, not the one it has (which mod_timer() short-cuts).
 * Elapsed ns.
 */
static u64 time_modify(const struct bench_peer *pp, void *bg, const u32 *idx,
		       unsigned int rot)
{
	unsigned int i, j = rot % pairs;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < pairs; i++) {
		pp->modify(obj(bg, pp->size, idx[i]), pair_ns[j], pair_jif[j]);
		if (++j == pairs)
			j = 0;
	}
	return ktime_get_ns() - t0;
}

/* Arm @pp's background objects up to @want; report slab growth at 100k. */
static void grow(const struct bench_peer *pp, struct peer_run *pr,
		 unsigned long want)
{
	unsigned long from = pr->nbg, slab0 = slab_pages();
	long d;

	pair_base = ktime_get_ns();
	for (; pr->nbg < want; pr->nbg++) {
		void *p = obj(pr->bg, pp->size, pr->nbg);
		u64 ns = rand_delay();

		pp->init(p, false);
		pp->arm(p, ns, nsecs_to_jiffies(ns));
		if (!(pr->nbg & BENCH_RESCHED_MASK))
			cond_resched();
	}
	if (want == 100000 && want > from) {
		d = (long)(slab_pages() - slab0) * PAGE_SIZE;
		emit("memory", "slab_per_timeout", pp->name, want,
		     d > 0 ? div64_u64((u64)d * 10, want - from) : 0, "bytes");
	}
}

/* Cancel and free everything of @pr. */
static void drop(const struct bench_peer *pp, struct peer_run *pr)
{
	unsigned long i;

	for (i = 0; i < pr->nbg; i++) {
		pp->cancel_sync(obj(pr->bg, pp->size, i));
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
	if (pr->ready)
		for (i = 0; i < pairs; i++)
			pp->cancel_sync(obj(pr->pobj, pp->size, i));
	vfree(pr->pobj);
	vfree(pr->bg);
}

/* Fill @idx with @pairs random indices below @n. */
static void rand_indices(u32 *idx, unsigned long n)
{
	unsigned int i;

	for (i = 0; i < pairs; i++)
		idx[i] = get_random_u32() % n;
}

/*
 * @reps passes at one population of @want, peers taking turns: arm+cancel,
 * and modify of the background objects @idx when there are any.
 */
static void measure(struct peer_run *pr, unsigned long want, const u32 *idx)
{
	unsigned int p, r, i;

	for (p = 0; p < BENCH_NPEERS; p++) {
		pr[p].best = U64_MAX;
		pr[p].best_mod = U64_MAX;
	}
	for (r = 0; r < reps; r++) {
		for (i = 0; i < BENCH_NPEERS; i++) {
			const struct bench_peer *pp;

			p = (r + i) % BENCH_NPEERS;
			pp = &peers[p];
			if (!pp->armcancel)
				continue;
			pr[p].best = min(pr[p].best, time_pairs(pp, pr[p].pobj));
			cond_resched();
			if (!want || !pp->modify)
				continue;
			pr[p].best_mod = min(pr[p].best_mod,
					     time_modify(pp, pr[p].bg, idx,
							 r * 997));
			cond_resched();
		}
	}
	for (p = 0; p < BENCH_NPEERS; p++) {
		if (!peers[p].armcancel)
			continue;
		emit(want ? "armcancel" : "empty", "ns_per_pair", peers[p].name,
		     want, div64_u64(pr[p].best * 10, pairs), "ns");
		if (pr[p].best_mod != U64_MAX)
			emit("modify", "ns_per_op", peers[p].name, want,
			     div64_u64(pr[p].best_mod * 10, pairs), "ns");
	}
}

/*
 * Arm+cancel and modify against growing background populations (the
 * first, 0, is the empty run), peers interleaved.
 */
static int bench_armcancel(void)
{
	struct peer_run pr[BENCH_NPEERS] = {};
	unsigned int p, k, i;
	u32 *idx;
	int ret = -ENOMEM;

	idx = kvmalloc_array(pairs, sizeof(*idx), GFP_KERNEL);
	if (!idx)
		return -ENOMEM;
	for (p = 0; p < BENCH_NPEERS; p++) {
		if (!peers[p].armcancel)
			continue;
		pr[p].bg = vzalloc(array_size(max_pending, peers[p].size));
		pr[p].pobj = vzalloc(array_size(pairs, peers[p].size));
		if (!pr[p].bg || !pr[p].pobj)
			goto out_drop;
		for (i = 0; i < pairs; i++)
			peers[p].init(obj(pr[p].pobj, peers[p].size, i), false);
		pr[p].ready = true;
	}

	for (k = 0; k < ARRAY_SIZE(bench_pending); k++) {
		unsigned long want = bench_pending[k];

		if (want > max_pending)
			break;
		for (p = 0; p < BENCH_NPEERS; p++)
			if (peers[p].armcancel)
				grow(&peers[p], &pr[p], want);
		if (want)
			rand_indices(idx, want);
		measure(pr, want, idx);
	}
	ret = 0;
out_drop:
	for (p = 0; p < BENCH_NPEERS; p++)
		drop(&peers[p], &pr[p]);
	kvfree(idx);
	return ret;
}

/**
 * struct expiry_result - one expiry pass
 * @per: ns from the first callback to the last, per expiry, times ten
 * @first_late: ns from the deadline to the first callback
 * @last_late: ns from the deadline to the last callback
 */
struct expiry_result {
	u64 per;
	u64 first_late;
	u64 last_late;
};

/* @expiry_n timeouts for one deadline: first to last callback, per expiry. */
static int bench_expiry(const struct bench_peer *pp, struct expiry_result *res)
{
	u64 t0, target, arm_ns, first, last;
	unsigned long i, jif;
	void *o;
	int ret = 0;

	o = vzalloc(array_size(expiry_n, pp->size));
	if (!o)
		return -ENOMEM;
	for (i = 0; i < expiry_n; i++)
		pp->init(obj(o, pp->size, i), true);
	atomic_set(&fired, 0);
	fire_target = expiry_n;
	reinit_completion(&fire_done);

	t0 = ktime_get_ns();
	target = t0 + BENCH_EXPIRY_LEAD_NS;
	jif = jiffies + nsecs_to_jiffies(BENCH_EXPIRY_LEAD_NS);
	for (i = 0; i < expiry_n; i++) {
		pp->arm_at(obj(o, pp->size, i), target, jif);
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
	arm_ns = ktime_get_ns() - t0;
	if (arm_ns >= BENCH_EXPIRY_LEAD_NS)
		pr_warn("%s: arming took %llu ns, past the deadline\n",
			pp->name, arm_ns);

	if (!wait_for_completion_timeout(&fire_done, BENCH_EXPIRY_WAIT)) {
		pr_warn("%s: only %d of %u expiries\n", pp->name,
			atomic_read(&fired), expiry_n);
		ret = -ETIMEDOUT;
	} else {
		first = READ_ONCE(first_ns);
		last = READ_ONCE(last_ns);
		res->per = div64_u64((last - first) * 10, expiry_n);
		res->first_late = first > target ? first - target : 0;
		res->last_late = last > target ? last - target : 0;
	}
	for (i = 0; i < expiry_n; i++) {
		pp->cancel_sync(obj(o, pp->size, i));
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
	vfree(o);
	return ret;
}

/* Expiry of every peer, @expiry_reps passes interleaved; fastest kept. */
static void bench_expiry_all(void)
{
	struct expiry_result best[ARRAY_SIZE(peers)], res;
	unsigned int p, r;

	for (p = 0; p < ARRAY_SIZE(peers); p++)
		best[p].per = U64_MAX;
	for (r = 0; r < expiry_reps; r++)
		for (p = 0; p < ARRAY_SIZE(peers); p++)
			if (peers[p].expiry && !bench_expiry(&peers[p], &res) &&
			    res.per < best[p].per)
				best[p] = res;
	for (p = 0; p < ARRAY_SIZE(peers); p++) {
		if (best[p].per == U64_MAX)
			continue;
		emit("expiry", "ns_per_expiry", peers[p].name, expiry_n,
		     best[p].per, "ns");
		emit("expiry", "first_late", peers[p].name, expiry_n,
		     best[p].first_late * 10, "ns");
		emit("expiry", "last_late", peers[p].name, expiry_n,
		     best[p].last_late * 10, "ns");
	}
}

/*
 * The contended runs. One worker kthread per online CPU, bound to it, takes
 * jobs from the insmod task: a job is published by bumping cjob_gen, and
 * the last worker to finish completes cjob_done. Timed jobs start with all
 * their workers spinning at a barrier, so they run at once.
 */

/* What a worker does with the current job's peer. */
enum cjob_kind {
	CJOB_SETUP,	/* init its pair objects, arm its background share */
	CJOB_PAIRS,	/* timed: @pairs arm+cancel pairs on its pair objects */
	CJOB_MODIFY,	/* timed: @pairs moves of its background timeouts */
	CJOB_TEARDOWN,	/* cancel its pair objects and background share */
};

/**
 * struct cworker - one contended worker
 * @task: its kthread, bound to its CPU
 * @id: index among the workers, 0 first
 * @pobj: its pair objects, @pairs of them, per contended peer
 * @idx: random indices into its background share, @pairs of them
 * @t0: start of its last timed job (ktime_get_ns())
 * @t1: end of its last timed job
 */
struct cworker {
	struct task_struct *task;
	unsigned int id;
	void *pobj[BENCH_NPEERS];
	u32 *idx;
	u64 t0;
	u64 t1;
};

/* The job the workers run; written by the insmod task before cjob_gen. */
static enum cjob_kind cjob_kind;
static unsigned int cjob_peer;
/* Workers with @id below this take part; the others only check in. */
static unsigned int cjob_active;
/* Deadline rotation of a modify job, as time_modify()'s @rot. */
static unsigned int cjob_rot;
/* Bumped (release) to publish a job; workers wait on cjob_wq for it. */
static unsigned long cjob_gen;
static DECLARE_WAIT_QUEUE_HEAD(cjob_wq);
/* Workers at the start barrier of the current timed job. */
static atomic_t cjob_arrived;
/* Workers that have not finished the current job; the last completes. */
static atomic_t cjob_left;
static DECLARE_COMPLETION(cjob_done);

/* Background populations of the contended peers and each worker's share. */
static void *cbg[BENCH_NPEERS];
static unsigned long cshare;

/* Spin until all cjob_active workers have arrived, then note the start. */
static void cjob_barrier(struct cworker *cw)
{
	atomic_inc(&cjob_arrived);
	while (atomic_read(&cjob_arrived) < cjob_active)
		cpu_relax();
	cw->t0 = ktime_get_ns();
}

static void cjob_setup(struct cworker *cw, const struct bench_peer *pp,
		       void *bg)
{
	unsigned long i;
	u64 ns;

	for (i = 0; i < pairs; i++)
		pp->init(obj(cw->pobj[cjob_peer], pp->size, i), false);
	for (i = 0; i < cshare; i++) {
		ns = rand_delay();
		pp->init(obj(bg, pp->size, i), false);
		pp->arm(obj(bg, pp->size, i), ns, nsecs_to_jiffies(ns));
		if (!(i & BENCH_RESCHED_MASK)) {
			WRITE_ONCE(pair_base, ktime_get_ns());
			cond_resched();
		}
	}
}

static void cjob_teardown(struct cworker *cw, const struct bench_peer *pp,
			  void *bg)
{
	unsigned long i;

	for (i = 0; i < pairs; i++)
		pp->cancel_sync(obj(cw->pobj[cjob_peer], pp->size, i));
	for (i = 0; i < cshare; i++) {
		pp->cancel_sync(obj(bg, pp->size, i));
		if (!(i & BENCH_RESCHED_MASK))
			cond_resched();
	}
}

/* Run the current job's part of worker @cw. */
static void cjob_run(struct cworker *cw)
{
	const struct bench_peer *pp = &peers[cjob_peer];
	void *bg = obj(cbg[cjob_peer], pp->size, cw->id * cshare);
	void *pobj = cw->pobj[cjob_peer];
	unsigned int i;

	switch (cjob_kind) {
	case CJOB_SETUP:
		cjob_setup(cw, pp, bg);
		break;
	case CJOB_PAIRS:
		cjob_barrier(cw);
		for (i = 0; i < pairs; i++) {
			pp->arm(obj(pobj, pp->size, i), pair_ns[i], pair_jif[i]);
			pp->cancel(obj(pobj, pp->size, i));
		}
		cw->t1 = ktime_get_ns();
		break;
	case CJOB_MODIFY:
		cjob_barrier(cw);
		time_modify(pp, bg, cw->idx, cjob_rot);
		cw->t1 = ktime_get_ns();
		break;
	case CJOB_TEARDOWN:
		cjob_teardown(cw, pp, bg);
		break;
	}
}

static int cworker_fn(void *data)
{
	struct cworker *cw = data;
	unsigned long seen = 0;

	for (;;) {
		/* Pairs with cjob()'s release: the job is read after its gen. */
		wait_event_idle(cjob_wq, smp_load_acquire(&cjob_gen) != seen ||
				kthread_should_stop());
		if (kthread_should_stop())
			break;
		/* As above: the job's fields are read after this. */
		seen = smp_load_acquire(&cjob_gen);
		if (cw->id < cjob_active)
			cjob_run(cw);
		if (atomic_dec_and_test(&cjob_left))
			complete(&cjob_done);
	}
	return 0;
}

/* Run one job on @nw workers, @active of them taking part; wait for it. */
static void cjob(struct cworker *cw, unsigned int nw, enum cjob_kind kind,
		 unsigned int peer, unsigned int active)
{
	cjob_kind = kind;
	cjob_peer = peer;
	cjob_active = active;
	cjob_rot += 997;
	/* Absolute deadlines of this job count from here. */
	WRITE_ONCE(pair_base, ktime_get_ns());
	atomic_set(&cjob_arrived, 0);
	atomic_set(&cjob_left, nw);
	reinit_completion(&cjob_done);
	/* Publish the job's fields before its gen; workers acquire it. */
	smp_store_release(&cjob_gen, cjob_gen + 1);
	wake_up_all(&cjob_wq);
	wait_for_completion(&cjob_done);
}

/* Wall time of the last timed job: first start to last end, in ns. */
static u64 cjob_wall(const struct cworker *cw, unsigned int active)
{
	u64 t0 = U64_MAX, t1 = 0;
	unsigned int i;

	for (i = 0; i < active; i++) {
		t0 = min(t0, cw[i].t0);
		t1 = max(t1, cw[i].t1);
	}
	return t1 - t0;
}

/* The worker counts measured: 1, 2, 4, ... and @nw. */
static unsigned int next_count(unsigned int n, unsigned int nw)
{
	return n * 2 < nw ? n * 2 : (n < nw ? nw : 0);
}

/*
 * @reps passes, the peers taking turns; each pass times arm+cancel and
 * modify with every worker count. Fastest wall time kept per figure.
 */
static void contended_measure(struct cworker *cw, unsigned int nw)
{
	static u64 best[BENCH_NPEERS][2][BITS_PER_LONG];
	unsigned int p, r, i, n, k;
	u64 v;

	memset(best, 0xff, sizeof(best));
	for (r = 0; r < reps; r++) {
		for (i = 0; i < BENCH_NPEERS; i++) {
			p = (r + i) % BENCH_NPEERS;
			if (!peers[p].contended)
				continue;
			for (n = 1, k = 0; n; n = next_count(n, nw), k++) {
				cjob(cw, nw, CJOB_PAIRS, p, n);
				v = cjob_wall(cw, n);
				best[p][0][k] = min(best[p][0][k], v);
				cjob(cw, nw, CJOB_MODIFY, p, n);
				v = cjob_wall(cw, n);
				best[p][1][k] = min(best[p][1][k], v);
			}
		}
	}
	for (p = 0; p < BENCH_NPEERS; p++) {
		if (!peers[p].contended)
			continue;
		for (n = 1, k = 0; n; n = next_count(n, nw), k++) {
			emit("contended", "armcancel_ns_per_pair", peers[p].name,
			     n, div64_u64(best[p][0][k] * 10, (u64)n * pairs),
			     "ns");
			emit("contended", "modify_ns_per_op", peers[p].name, n,
			     div64_u64(best[p][1][k] * 10, (u64)n * pairs), "ns");
		}
	}
}

/*
 * Start a bound worker on every online CPU, at most @n; *@nw says how many
 * started. The array has @n entries, to be freed by cworkers_stop().
 */
static struct cworker *cworkers_start(unsigned int n, unsigned int *nw)
{
	struct cworker *cw = kcalloc(n, sizeof(*cw), GFP_KERNEL);
	unsigned int i = 0, p, cpu;

	*nw = 0;
	if (!cw)
		return NULL;
	for_each_online_cpu(cpu) {
		if (i == n)
			break;
		cw[i].id = i;
		cw[i].idx = kvmalloc_array(pairs, sizeof(u32), GFP_KERNEL);
		if (!cw[i].idx)
			break;
		rand_indices(cw[i].idx, cshare);
		for (p = 0; p < BENCH_NPEERS; p++) {
			if (!peers[p].contended)
				continue;
			cw[i].pobj[p] = vzalloc(array_size(pairs, peers[p].size));
			if (!cw[i].pobj[p])
				return cw;
		}
		cw[i].task = kthread_create_on_cpu(cworker_fn, &cw[i], cpu,
						   "hwtimer_bench/%u");
		if (IS_ERR(cw[i].task)) {
			cw[i].task = NULL;
			return cw;
		}
		wake_up_process(cw[i].task);
		*nw = ++i;
	}
	return cw;
}

/* Stop the workers of @cw, an array of @n, and free it. */
static void cworkers_stop(struct cworker *cw, unsigned int n)
{
	unsigned int i, p;

	for (i = 0; i < n; i++) {
		if (cw[i].task)
			kthread_stop(cw[i].task);
		for (p = 0; p < BENCH_NPEERS; p++)
			vfree(cw[i].pobj[p]);
		kvfree(cw[i].idx);
	}
	kfree(cw);
}

/*
 * Contended arm+cancel and modify: a background population of max_pending
 * per peer, each worker arming its share on its CPU, then the timed jobs.
 */
static int bench_contended(void)
{
	unsigned int ncpu = num_online_cpus(), nw, p;
	struct cworker *cw;
	int ret = -ENOMEM;

	cshare = max_pending / ncpu;
	if (!cshare)
		return -EINVAL;
	for (p = 0; p < BENCH_NPEERS; p++) {
		if (!peers[p].contended)
			continue;
		cbg[p] = vzalloc(array_size(max_pending, peers[p].size));
		if (!cbg[p])
			goto out_free;
	}
	cw = cworkers_start(ncpu, &nw);
	if (!cw)
		goto out_free;
	if (nw != ncpu)
		goto out_stop;
	pr_info("contended: %u workers, %lu background timeouts each, %u pairs each\n",
		nw, cshare, pairs);
	for (p = 0; p < BENCH_NPEERS; p++)
		if (peers[p].contended)
			cjob(cw, nw, CJOB_SETUP, p, nw);
	contended_measure(cw, nw);
	for (p = 0; p < BENCH_NPEERS; p++)
		if (peers[p].contended)
			cjob(cw, nw, CJOB_TEARDOWN, p, nw);
	ret = 0;
out_stop:
	cworkers_stop(cw, ncpu);
out_free:
	for (p = 0; p < BENCH_NPEERS; p++) {
		vfree(cbg[p]);
		cbg[p] = NULL;
	}
	return ret;
}

/* Iterations of each primitive timed by bench_parts(). */
#define BENCH_PARTS_N	100000

/* Tick length the parts run divides by, as hwtimer's ns-to-tick does. */
static u64 parts_tick_ns = HWTIMER_TICK_DEFAULT_NS;
static DEFINE_RAW_SPINLOCK(parts_lock);
static DEFINE_SPINLOCK(parts_spin);
/* Where bench_parts() leaves its sums, so its loops are not optimised out. */
static u64 parts_sink;

/*
 * What /dev/hwtimer adds per timeout, in the same units: a slab object of
 * a one-shot's size allocated and freed (GFP_KERNEL_ACCOUNT, as the
 * chardev does), and an id allocated, looked up and erased in an xarray,
 * as ARM and CANCEL do.
 */
#define BENCH_PARTS_IDS	4096

static void bench_parts_chardev(void)
{
	struct kmem_cache *c = kmem_cache_create("bench_parts", 112, 0,
						 SLAB_ACCOUNT, NULL);
	DEFINE_XARRAY_ALLOC1(xa);
	unsigned int i, r;
	u32 next = 0, *ids;
	u64 t0;
	void *p;

	if (!c)
		return;
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++) {
		p = kmem_cache_zalloc(c, GFP_KERNEL_ACCOUNT);
		kmem_cache_free(c, p);
	}
	emit("parts", "ns_per_op", "slab_alloc_free", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");
	kmem_cache_destroy(c);

	ids = kvmalloc_array(BENCH_PARTS_IDS, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return;
	/*
	 * As hwtimer_ubench's cost run does: BENCH_PARTS_IDS ids allocated,
	 * then each looked up and erased; the xarray's nodes come and go
	 * once per 64 ids, as in a context arming and cancelling in bulk.
	 */
	t0 = ktime_get_ns();
	for (r = 0; r < BENCH_PARTS_N / BENCH_PARTS_IDS; r++) {
		for (i = 0; i < BENCH_PARTS_IDS; i++)
			if (xa_alloc_cyclic(&xa, &ids[i], xa_mk_value(i),
					    xa_limit_32b, &next, GFP_KERNEL) < 0)
				goto out;
		for (i = 0; i < BENCH_PARTS_IDS; i++) {
			parts_sink += xa_to_value(xa_load(&xa, ids[i]));
			xa_erase(&xa, ids[i]);
		}
	}
	emit("parts", "ns_per_op", "xa_alloc_load_erase", r * BENCH_PARTS_IDS,
	     div64_u64((ktime_get_ns() - t0) * 10, r * BENCH_PARTS_IDS), "ns");
out:
	xa_destroy(&xa);
	kvfree(ids);
}

/*
 * The primitives an arm+cancel pair is made of, each timed alone, so the
 * gap between hwtimer and timer_list can be split into its parts: a clock
 * read (hwtimer and hrtimer read the clock on a relative arm; timer_list
 * uses jiffies), a module pin and unpin (hwtimer pins the owner of a
 * pending timeout on a wheel it does not own), a 64-bit division (ns to
 * ticks), and one lock round trip with interrupts saved.
 */
static void bench_parts(void)
{
	unsigned long flags;
	u64 t0, acc = 0;
	unsigned int i;

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++)
		acc += ktime_get_ns();
	emit("parts", "ns_per_op", "ktime_get", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++) {
		if (try_module_get(THIS_MODULE))
			module_put(THIS_MODULE);
	}
	emit("parts", "ns_per_op", "module_get_put", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++)
		acc += div64_u64(acc + t0 + i, READ_ONCE(parts_tick_ns));
	emit("parts", "ns_per_op", "div64", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++) {
		raw_spin_lock_irqsave(&parts_lock, flags);
		raw_spin_unlock_irqrestore(&parts_lock, flags);
	}
	emit("parts", "ns_per_op", "raw_lock_irqsave", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++) {
		spin_lock(&parts_spin);
		spin_unlock(&parts_spin);
	}
	emit("parts", "ns_per_op", "spin_lock", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");
	bench_parts_chardev();

	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_PARTS_N; i++)
		acc += jiffies;
	emit("parts", "ns_per_op", "jiffies", BENCH_PARTS_N,
	     div64_u64((ktime_get_ns() - t0) * 10, BENCH_PARTS_N), "ns");
	WRITE_ONCE(parts_sink, acc);
}

/*
 * Each private wheel and how it is made, in the order they are created.
 * This module owns them (hwtimer_wheel_create()), so its timeouts are not
 * pinned on them, but for "bench-abs", which is made with no owner: its
 * timeouts pin this module, as they would on the default wheel.
 */
static const struct {
	struct hwtimer_wheel **wheel;
	struct hwtimer_wheel_params params;
	bool unowned;
} bench_wheels[] = {
	{ &bench_wheel, { .name = "bench" } },
	{ &bench_wheelp, { .name = "bench-percpu",
			   .flags = HWTIMER_WHEEL_PERCPU } },
	{ &bench_wheel1, { .name = "bench-1w", .workers = 1 } },
	{ &wheel_abs, { .name = "bench-abs" }, true },
	{ &wheel_nopin, { .name = "bench-nopin" } },
};

/* Destroy the first @n wheels of bench_wheels[], the last created first. */
static void bench_wheels_destroy(unsigned int n)
{
	while (n--)
		hwtimer_wheel_destroy(*bench_wheels[n].wheel);
}

/* Create every wheel of bench_wheels[]: 0, or -errno with none left. */
static int bench_wheels_create(void)
{
	struct hwtimer_wheel *w;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_wheels); i++) {
		w = __hwtimer_wheel_create(&bench_wheels[i].params,
					   bench_wheels[i].unowned ? NULL :
					   THIS_MODULE);
		if (IS_ERR(w)) {
			bench_wheels_destroy(i);
			return PTR_ERR(w);
		}
		*bench_wheels[i].wheel = w;
	}
	return 0;
}

/* Every figure the module parameters ask for, as BENCH lines. */
static void bench_run(void)
{
	unsigned int i;
	int ret;

	pr_info("start: pairs %u reps %u max_pending %lu expiry_n %u expiry_reps %u HZ %d cpus %u\n",
		pairs, reps, max_pending, expiry_n, expiry_reps, HZ,
		num_online_cpus());
	if (single) {
		for (i = 0; i < ARRAY_SIZE(peers); i++)
			emit("memory", "sizeof", peers[i].name, 0,
			     peers[i].size * 10, "bytes");
		bench_parts();
		ret = bench_armcancel();
		if (ret)
			pr_err("arm+cancel failed: %d\n", ret);
	}
	if (contended) {
		ret = bench_contended();
		if (ret)
			pr_err("contended failed: %d\n", ret);
	}
	if (single)
		bench_expiry_all();
	pr_info("done\n");
}

static int __init hwtimer_bench_init(void)
{
	unsigned int i;
	int ret = -ENOMEM;

	if (!pairs || !reps || !expiry_n || !expiry_reps)
		return -EINVAL;
	pair_ns = kvmalloc_array(pairs, sizeof(*pair_ns), GFP_KERNEL);
	pair_jif = kvmalloc_array(pairs, sizeof(*pair_jif), GFP_KERNEL);
	if (!pair_ns || !pair_jif)
		goto out_free;
	for (i = 0; i < pairs; i++) {
		pair_ns[i] = rand_delay();
		pair_jif[i] = nsecs_to_jiffies(pair_ns[i]);
	}
	ret = bench_wheels_create();
	if (ret)
		goto out_free;

	bench_run();

	bench_wheels_destroy(ARRAY_SIZE(bench_wheels));
out_free:
	kvfree(pair_jif);
	kvfree(pair_ns);
	return ret;
}

static void __exit hwtimer_bench_exit(void)
{
}

module_init(hwtimer_bench_init);
module_exit(hwtimer_bench_exit);

MODULE_DESCRIPTION("hwtimer benchmark against timer_list, hrtimer and delayed_work");
MODULE_LICENSE("GPL");
