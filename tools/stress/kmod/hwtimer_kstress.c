// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_kstress - stress the exported hwtimer API from several kthreads
 * and from hard interrupt context, with an exact ledger.
 *
 * insmod hwtimer_kstress.ko secs=N [threads=T]
 *	runs inside insmod for N seconds: T kthreads own ITEMS timeouts each,
 *	half on the default wheel and half on a private one, and at random
 *	arm (one-shot or periodic), modify, cancel and cancel_sync them; an
 *	hrtimer per thread re-arms and cancels one more timeout from hard irq.
 *	Then it checks the ledger, exercises hwtimer_wheel_stop() on the
 *	private wheel, prints a summary and "hwtimer_kstress: result pass"
 *	or "... result fail". The load itself succeeds either way (busybox
 *	insmod retries a failed init_module, which would run it twice).
 * insmod hwtimer_kstress.ko secs=0 [hold=N]
 *	arms N timeouts (one-shots and periodic) and stays loaded: hwtimer
 *	pins the module, so rmmod fails with EBUSY until
 *	"echo 1 > /sys/module/hwtimer_kstress/parameters/quiesce".
 *
 * The ledger, per life of a timeout (arm ... settle):
 * - a one-shot runs its callback once, at its last deadline, unless the
 *   cancel that ended its life said HWTIMER_CANCELLED, and then never;
 * - a periodic timeout's callbacks are consecutive: each deadline is the
 *   previous one plus (1 + its overruns) periods (or the deadline of a
 *   modify), and no later than a period after the previous callback;
 * - no callback runs after hwtimer_cancel_sync() returned;
 * - from irq: arms == callbacks + cancels that said HWTIMER_CANCELLED.
 * A one-shot is modified only while its deadline is ahead of the wheel's
 * clock; a modify less than a second ahead may still find it fired (the
 * caller can be preempted between the clock read and the call), and then
 * hwtimer_modify() arms it again, so such a life may run once per tight
 * modify more (counted as "raced a firing", not as double). The irq item's
 * deadline is rewritten under its running callback, so its runs are not
 * checked for earliness.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "hwtimer.h"

#define ITEMS		64
/* Modify deadlines a periodic item remembers. */
#define KST_MODS	16
#define MS		1000000ULL
/*
 * Still pending while a timeout of the same wheel due this much later has
 * already run: lost in all but name. Judged against the wheel's own
 * progress, not the clock, so a stalled (virtual) CPU, which makes every
 * timeout late alike, is not counted.
 */
#define STUCK_NS	(3000 * MS)

static unsigned int secs = 30;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "seconds of stress inside insmod; 0 = hold mode");
static unsigned int threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "stress kthreads (1 - 16)");
static unsigned int hold = 256;
module_param(hold, uint, 0444);
MODULE_PARM_DESC(hold, "hold mode: timeouts armed and kept");

/**
 * struct kitem - one timeout and its ledger
 * @t: the timeout
 * @w: its wheel, fixed
 * @period: period of the current life, 0 for a one-shot
 * @deadline: one-shot: deadline of the last arm or modify (absolute)
 * @mods: periodic: deadlines of the last KST_MODS modifies, the last at
 *	@nmods - 1 (mod KST_MODS): a callback that reads a modified deadline
 *	may be preempted while the next modifies are made
 * @nmods: periodic: modifies this life
 * @prev_deadline: periodic: deadline of the last callback (at the start of
 *	a life: the first deadline less a period)
 * @next_expect: periodic: latest deadline the next expiry may have
 * @fired_deadline: one-shot: deadline seen by the last callback
 * @armed_at: wheel time of the arm that began this life
 * @tight_mods: modifies of this one-shot life made less than a second
 *	before its deadline: a preempted caller may find it already fired,
 *	and then hwtimer_modify() rightly arms it again (one more run)
 * @racy_deadline: re-armed from irq while its callback may run, so the
 *	callback may read the next deadline (the irq item)
 * @fires: callbacks this life
 * @exps: expiries this life (1 + overruns per callback)
 * @armed: the owner's view: a life is in progress
 * @cancelled: the life ended with a cancel that said HWTIMER_CANCELLED
 * @settled_fires: @fires when the life was settled (to catch late runs)
 */
struct kitem {
	struct hwtimer_timeout t;
	struct hwtimer_wheel *w;
	u64 period;
	u64 deadline;
	u64 mods[KST_MODS];
	unsigned int nmods;
	u64 prev_deadline;
	u64 next_expect;
	u64 fired_deadline;
	u64 armed_at;
	unsigned int tight_mods;
	bool racy_deadline;
	atomic_t fires;
	atomic64_t exps;
	bool armed;
	bool cancelled;
	int settled_fires;
};

/**
 * struct kthr - one stress kthread, its items and its irq timeout
 * @task: the kthread
 * @items: timeouts it owns
 * @hrt: hrtimer re-arming @irq_item from hard irq
 * @irq_item: the timeout armed and cancelled from @hrt
 * @irq_arms: successful arms from irq
 * @irq_cancels: cancels from irq that said HWTIMER_CANCELLED
 * @irq_errors: arms from irq that failed
 * @rng: random state of the thread
 * @irq_rng: random state of @hrt's callback
 * @done: the thread finished settling
 */
struct kthr {
	struct task_struct *task;
	struct kitem items[ITEMS];
	struct hrtimer hrt;
	struct kitem irq_item;
	u64 irq_arms;
	u64 irq_cancels;
	u64 irq_errors;
	u64 rng;
	u64 irq_rng;
	struct completion done;
};

/* Ledger totals, all threads. */
static atomic64_t n_ops, n_arms, n_fired, n_cancelled, n_modified;
static atomic64_t n_lost, n_double, n_after, n_early, n_wrong, n_unexpected;
/* One-shot lives run twice because a tight modify found them fired. */
static atomic64_t n_mod_raced;

static struct hwtimer_wheel *priv;
/* Latest deadline run so far on the private [1] and default [0] wheel. */
static atomic64_t ran_upto[2];
static struct kthr *thr;
static unsigned long stop_at;

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void note_early(struct kitem *it, u64 d, u64 now)
{
	if (atomic64_inc_return(&n_early) <= 8)
		pr_err("hwtimer_kstress: early: deadline %llu now %llu (%llu ns early) period %llu armed at %llu fires %d\n",
		       d, now, d - now, it->period, it->armed_at,
		       atomic_read(&it->fires));
}

/* Was @d the deadline of one of @it's last KST_MODS modifies? */
static bool modified_to(const struct kitem *it, u64 d)
{
	unsigned int i;

	for (i = 0; i < KST_MODS; i++)
		if (d && READ_ONCE(it->mods[i]) == d)
			return true;
	return false;
}

/* The deadline of @it's last modify, 0 if none this life. */
static u64 last_mod(const struct kitem *it)
{
	unsigned int n = READ_ONCE(it->nmods);

	return n ? READ_ONCE(it->mods[(n - 1) % KST_MODS]) : 0;
}

static atomic64_t *ran_upto_of(const struct kitem *it)
{
	return &ran_upto[it->w == priv];
}

static void note_ran(const struct kitem *it, u64 d)
{
	atomic64_t *upto = ran_upto_of(it);
	s64 old = atomic64_read(upto);

	while (old < (s64)d && !atomic64_try_cmpxchg(upto, &old, d))
		;
}

static void kst_fn(struct hwtimer_timeout *t)
{
	struct kitem *it = hwtimer_from(it, t, t);
	u64 d = hwtimer_deadline(t), o = hwtimer_overruns(t);
	u64 now = hwtimer_wheel_now(it->w);

	note_ran(it, d);

	if (it->period) {
		u64 prev = READ_ONCE(it->prev_deadline);
		u64 want = prev + (1 + o) * it->period;
		bool moved = modified_to(it, d);

		if (prev && d != want && !moved) {
			atomic64_inc(&n_wrong);
			pr_err("hwtimer_kstress: periodic deadline %llu, expected %llu\n",
			       d, want);
		}
		/*
		 * A modify while this callback runs re-arms the timeout and
		 * rewrites its deadline under us: only an unmoved deadline
		 * says when this run was due.
		 */
		if (!moved && now < d)
			note_early(it, d, now);
		WRITE_ONCE(it->prev_deadline, d);
		/* Re-armed for the first boundary after this callback. */
		WRITE_ONCE(it->next_expect,
			   hwtimer_wheel_now(it->w) + it->period);
	} else {
		if (now < d && !it->racy_deadline)
			note_early(it, d, now);
		WRITE_ONCE(it->fired_deadline, d);
	}
	atomic64_add(1 + o, &it->exps);
	atomic64_add(1 + o, &n_fired);
	atomic_inc(&it->fires);
}

/* End a life: wait out any callback, then check what happened. */
static void settle(struct kitem *it)
{
	int r = hwtimer_cancel_sync(&it->t), f;

	if (r == HWTIMER_CANCELLED) {
		/* Still pending after the life's cancel: re-armed behind us. */
		atomic64_inc(&n_unexpected);
		pr_err("hwtimer_kstress: pending again after cancel\n");
	}
	f = atomic_read(&it->fires);
	if (!it->period) {
		if (it->cancelled && f > it->tight_mods) {
			atomic64_inc(&n_after);
		} else if (it->cancelled && f) {
			/* Fired, then a tight modify armed it again. */
			atomic64_inc(&n_mod_raced);
		} else if (!it->cancelled && !f) {
			if (atomic64_inc_return(&n_lost) <= 8)
				pr_err("hwtimer_kstress: lost: deadline %llu armed at %llu, not pending at its cancel and never run\n",
				       it->deadline, it->armed_at);
		} else if (f > 1 && f <= 1 + it->tight_mods) {
			atomic64_inc(&n_mod_raced);
		} else if (f > 1) {
			if (atomic64_inc_return(&n_double) <= 8)
				pr_err("hwtimer_kstress: double: %d runs, deadline %llu fired for %llu armed at %llu cancel said %d\n",
				       f, it->deadline, it->fired_deadline,
				       it->armed_at, it->cancelled);
		} else if (f == 1 && !it->tight_mods &&
			   it->fired_deadline != it->deadline) {
			atomic64_inc(&n_wrong);
			pr_err("hwtimer_kstress: one-shot fired for %llu, armed for %llu\n",
			       it->fired_deadline, it->deadline);
		}
	}
	it->settled_fires = f;
	it->armed = false;
}

/* Cancel to end the life, and check it was not left behind its wheel. */
static void end_life(struct kitem *it)
{
	u64 due = max3(it->armed_at, it->deadline, last_mod(it));
	u64 upto = atomic64_read(ran_upto_of(it));
	int r;

	/* When the next expiry was due at the latest (periodic: tracked). */
	if (it->period)
		due = max(due, READ_ONCE(it->next_expect));
	r = hwtimer_cancel(&it->t);

	atomic64_inc(&n_ops);
	it->cancelled = r == HWTIMER_CANCELLED;
	if (it->cancelled)
		atomic64_inc(&n_cancelled);
	if (r == HWTIMER_CANCELLED && upto > due + STUCK_NS &&
	    atomic64_inc_return(&n_lost) <= 8)
		pr_err("hwtimer_kstress: stuck: still pending, due at %llu, while one due at %llu has run\n",
		       due, upto);
	settle(it);
}

static void start_life(struct kthr *k, struct kitem *it)
{
	u64 now = hwtimer_wheel_now(it->w), tick = hwtimer_wheel_tick_ns(it->w);
	u64 r = rnd(&k->rng) % 100, rel;
	int ret;

	atomic_set(&it->fires, 0);
	atomic64_set(&it->exps, 0);
	it->tight_mods = 0;
	it->cancelled = false;
	it->period = r < 15 ? tick * (1 + rnd(&k->rng) % 8) : 0;
	if (r < 70)
		rel = rnd(&k->rng) % (20 * MS);
	else if (r < 95)
		rel = rnd(&k->rng) % (200 * MS);
	else
		rel = 3600000 * MS;
	/* Some in the past; periodic ones not far, or overruns explode. */
	if (r % 10)
		it->deadline = now + rel;
	else if (it->period)
		it->deadline = now - rnd(&k->rng) % (min(now, 100 * MS) + 1);
	else
		it->deadline = now - rnd(&k->rng) % (now / 2 + 1);
	it->next_expect = it->deadline;
	it->prev_deadline = it->period ? it->deadline - it->period : 0;
	memset(it->mods, 0, sizeof(it->mods));
	it->nmods = 0;
	it->armed_at = now;
	ret = hwtimer_arm(it->w, &it->t, it->deadline, it->period, HWTIMER_ARM_ABS);
	atomic64_inc(&n_ops);
	if (ret) {
		atomic64_inc(&n_unexpected);
		pr_err("hwtimer_kstress: arm: %d\n", ret);
		return;
	}
	atomic64_inc(&n_arms);
	it->armed = true;
}

static void modify(struct kthr *k, struct kitem *it)
{
	u64 now = hwtimer_wheel_now(it->w);
	u64 nd = now + rnd(&k->rng) % (50 * MS);
	int ret;

	/* A one-shot whose deadline is ahead cannot have fired yet. */
	if (!it->period && now + MS > it->deadline)
		return;
	if (it->period) {
		WRITE_ONCE(it->mods[it->nmods % KST_MODS], nd);
		WRITE_ONCE(it->nmods, it->nmods + 1);
	} else {
		if (now + 1000 * MS > it->deadline)
			it->tight_mods++;
		it->deadline = nd;
	}
	ret = hwtimer_modify(&it->t, nd, HWTIMER_ARM_ABS);
	atomic64_inc(&n_ops);
	if (ret) {
		atomic64_inc(&n_unexpected);
		pr_err("hwtimer_kstress: %s: %d\n", __func__, ret);
	} else {
		atomic64_inc(&n_modified);
	}
}

/* Hard irq: cancel and re-arm the irq item. */
static enum hrtimer_restart irq_fn(struct hrtimer *h)
{
	struct kthr *k = container_of(h, struct kthr, hrt);
	struct kitem *it = &k->irq_item;

	if (hwtimer_cancel(&it->t) == HWTIMER_CANCELLED)
		k->irq_cancels++;
	if (hwtimer_arm(it->w, &it->t, rnd(&k->irq_rng) % (3 * MS), 0, 0))
		k->irq_errors++;
	else
		k->irq_arms++;
	hrtimer_forward_now(h, ns_to_ktime(MS + rnd(&k->irq_rng) % MS));
	return HRTIMER_RESTART;
}

static int kst_thread(void *arg)
{
	struct kthr *k = arg;
	unsigned int i;

	hrtimer_start(&k->hrt, ns_to_ktime(MS), HRTIMER_MODE_REL_HARD);
	while (time_before(jiffies, stop_at) && !kthread_should_stop()) {
		struct kitem *it = &k->items[rnd(&k->rng) % ITEMS];
		u64 r = rnd(&k->rng) % 100;

		if (!it->armed)
			start_life(k, it);
		else if (r < 35)
			end_life(it);
		else if (r < 60)
			modify(k, it);
		if (r % 16 == 0)
			usleep_range(50, 500);
		cond_resched();
	}
	hrtimer_cancel(&k->hrt);
	for (i = 0; i < ITEMS; i++)
		if (k->items[i].armed)
			end_life(&k->items[i]);
	/* The irq item's ledger: every arm ended in a callback or a cancel. */
	if (hwtimer_cancel_sync(&k->irq_item.t) == HWTIMER_CANCELLED)
		k->irq_cancels++;
	complete(&k->done);
	return 0;
}

static void init_item(struct kitem *it, struct hwtimer_wheel *w)
{
	hwtimer_timeout_init(&it->t, kst_fn, 0);
	it->w = w;
}

static int wheel_stop_check(void)
{
	struct kitem *items;
	LIST_HEAD(list);
	int i, got = 0, ret = 0;

	items = kcalloc(ITEMS, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	for (i = 0; i < ITEMS; i++) {
		init_item(&items[i], priv);
		if (hwtimer_arm(priv, &items[i].t, 3600000 * MS, 0, 0))
			ret = -EIO;
	}
	hwtimer_wheel_stop(priv, &list);
	while (hwtimer_unprocessed_pop(&list))
		got++;
	if (got != ITEMS) {
		pr_err("hwtimer_kstress: stop handed back %d of %d\n", got, ITEMS);
		ret = -EIO;
	}
	if (hwtimer_arm(priv, &items[0].t, MS, 0, 0) != -ESHUTDOWN) {
		pr_err("hwtimer_kstress: arm after stop did not fail\n");
		ret = -EIO;
	}
	hwtimer_wheel_destroy(priv);
	priv = NULL;
	for (i = 0; i < ITEMS; i++)
		if (atomic_read(&items[i].fires))
			ret = -EIO;
	kfree(items);
	return ret;
}

static struct hwtimer_wheel *make_wheel(void)
{
	struct hwtimer_wheel_params p = {
		.name = "kstress",
		.tick_ns = 250000,
		.clock = CLOCK_BOOTTIME,
		.workers = 3,
	};

	return hwtimer_wheel_create(&p);
}

/**
 * struct irq_ledger - the irq items' counts, summed over the threads
 * @arms: successful arms from irq
 * @cancels: cancels from irq or at the end that said HWTIMER_CANCELLED
 * @fired: callbacks of the irq items
 * @errors: arms from irq that failed
 */
struct irq_ledger {
	u64 arms;
	u64 cancels;
	u64 fired;
	u64 errors;
};

/* Start @threads kthreads on thr[]: 0, or -ENOMEM if any failed to start. */
static int start_threads(void)
{
	unsigned int i, j;
	int ret = 0;

	for (i = 0; i < threads; i++) {
		struct kthr *k = &thr[i];

		k->rng = get_random_u64() | 1;
		k->irq_rng = get_random_u64() | 1;
		init_completion(&k->done);
		for (j = 0; j < ITEMS; j++)
			init_item(&k->items[j],
				  j % 2 ? priv : hwtimer_default_wheel());
		init_item(&k->irq_item, i % 2 ? priv : hwtimer_default_wheel());
		k->irq_item.racy_deadline = true;
		hrtimer_init(&k->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		k->hrt.function = irq_fn;
		k->task = kthread_run(kst_thread, k, "hwt_kstress/%u", i);
		if (IS_ERR(k->task)) {
			k->task = NULL;
			complete(&k->done);
			ret = -ENOMEM;
		}
	}
	return ret;
}

/*
 * Count each item of finished @k that ran after its life was settled, and
 * add @k's irq counts to @l.
 */
static void check_settled(struct kthr *k, struct irq_ledger *l)
{
	unsigned int j;

	for (j = 0; j < ITEMS; j++) {
		struct kitem *it = &k->items[j];

		if (atomic_read(&it->fires) == it->settled_fires)
			continue;
		atomic64_inc(&n_after);
		pr_err("hwtimer_kstress: after settle: %d runs, settled at %d, period %llu deadline %llu armed at %llu cancel said %d\n",
		       atomic_read(&it->fires), it->settled_fires,
		       it->period, it->deadline, it->armed_at,
		       it->cancelled);
	}
	l->arms += k->irq_arms;
	l->cancels += k->irq_cancels;
	l->fired += atomic_read(&k->irq_item.fires);
	l->errors += k->irq_errors;
}

/* The totals, for people and as the STRESS-FIGURES line. */
static void report_totals(const struct irq_ledger *l)
{
	pr_info("hwtimer_kstress: %u s, %u threads: ops %lld arms %lld modified %lld (raced a firing %lld) fired %lld cancelled %lld irq-arms %llu irq-errors %llu\n",
		secs, threads, atomic64_read(&n_ops), atomic64_read(&n_arms),
		atomic64_read(&n_modified), atomic64_read(&n_mod_raced),
		atomic64_read(&n_fired), atomic64_read(&n_cancelled), l->arms,
		l->errors);
	pr_info("STRESS-FIGURES kernel ops=%lld arms=%lld fired=%lld cancelled=%lld lost=%lld double=%lld after_cancel=%lld early=%lld wrong=%lld unexpected=%lld\n",
		atomic64_read(&n_ops) + l->arms, atomic64_read(&n_arms) + l->arms,
		atomic64_read(&n_fired), atomic64_read(&n_cancelled) + l->cancels,
		atomic64_read(&n_lost), atomic64_read(&n_double),
		atomic64_read(&n_after), atomic64_read(&n_early),
		atomic64_read(&n_wrong), atomic64_read(&n_unexpected));
}

static int run_stress(void)
{
	struct irq_ledger l = {};
	unsigned int i;
	int ret;

	threads = clamp(threads, 1U, 16U);
	priv = make_wheel();
	if (IS_ERR(priv))
		return PTR_ERR(priv);
	thr = vzalloc(array_size(threads, sizeof(*thr)));
	if (!thr) {
		hwtimer_wheel_destroy(priv);
		return -ENOMEM;
	}
	stop_at = jiffies + secs * HZ;
	ret = start_threads();
	for (i = 0; i < threads; i++)
		wait_for_completion(&thr[i].done);

	/* Nothing may run once its life was settled. */
	msleep(100);
	for (i = 0; i < threads; i++)
		check_settled(&thr[i], &l);
	if (l.arms != l.fired + l.cancels) {
		pr_err("hwtimer_kstress: irq ledger: %llu arms, %llu fired, %llu cancelled\n",
		       l.arms, l.fired, l.cancels);
		atomic64_inc(l.arms > l.fired + l.cancels ? &n_lost : &n_double);
	}
	if (wheel_stop_check())
		atomic64_inc(&n_unexpected);
	vfree(thr);
	thr = NULL;

	report_totals(&l);
	if (ret || l.errors || atomic64_read(&n_lost) ||
	    atomic64_read(&n_double) || atomic64_read(&n_after) ||
	    atomic64_read(&n_early) || atomic64_read(&n_wrong) ||
	    atomic64_read(&n_unexpected))
		return -EIO;
	return 0;
}

/* Hold mode: timeouts that pin this module until quiesced. */
static struct kitem *held;
static unsigned int nheld;

static void release_held(void)
{
	unsigned int i;

	for (i = 0; i < nheld; i++)
		hwtimer_cancel_sync(&held[i].t);
}

static int quiesce_set(const char *val, const struct kernel_param *kp)
{
	if (held)
		release_held();
	return 0;
}

static const struct kernel_param_ops quiesce_ops = {
	.set = quiesce_set,
};

module_param_cb(quiesce, &quiesce_ops, NULL, 0200);
MODULE_PARM_DESC(quiesce, "hold mode: write 1 to cancel every held timeout");

static int hold_timeouts(void)
{
	u64 seed = get_random_u64() | 1;
	unsigned int i;

	held = kcalloc(hold, sizeof(*held), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	nheld = hold;
	for (i = 0; i < nheld; i++) {
		struct kitem *it = &held[i];
		u64 period = i % 4 ? 0 : MS * (1 + i % 10);

		init_item(it, hwtimer_default_wheel());
		it->period = period;
		it->next_expect = 0;
		it->prev_deadline = 0;
		it->nmods = 0;
		if (hwtimer_arm(it->w, &it->t, rnd(&seed) % (2000 * MS), period,
				0))
			pr_err("hwtimer_kstress: hold: arm %u failed\n", i);
	}
	return 0;
}

static int __init kst_init(void)
{
	int ret;

	if (!secs)
		return hold_timeouts();
	ret = run_stress();
	pr_info("hwtimer_kstress: result %s (%d)\n", ret ? "fail" : "pass", ret);
	return 0;
}

static void __exit kst_exit(void)
{
	if (held) {
		release_held();
		kfree(held);
	}
}

module_init(kst_init);
module_exit(kst_exit);
MODULE_DESCRIPTION("hwtimer kernel API stress test");
MODULE_LICENSE("GPL");
