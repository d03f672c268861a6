// SPDX-License-Identifier: GPL-2.0
/*
 * Loads hwtimer with many pending timeouts so that the irqsoff tracer can
 * show how long hwtimer keeps interrupts off: the wheel lock is a raw
 * spinlock taken with interrupts saved, and the tick thread, stop and
 * destroy bound the work per hold (HWTIMER_ADVANCE_BATCH entries), so the
 * longest section must not grow with the number of pending timeouts.
 * tools/vm/guest.d/46-irqsoff.sh loads it with count=25000 and with
 * count=250000 (1,000,000, the default, takes minutes to arm in a KASAN
 * guest under TCG) and compares the tracer's tracing_max_latency.
 *
 * One-shot part, on a private wheel:
 *  1. arm @count timeouts (a kvmalloc'd array): @count - @due far off,
 *     spread over 10 min - 1 day (wheel levels 3 and 4, never due during
 *     the test), then @due all at one instant about a second later;
 *  2. wait until the @due ones have run (they come due together: the tick
 *     thread hands them out in batches);
 *  3. hwtimer_wheel_stop() with the far ones pending, count what it hands
 *     back, destroy the wheel, pop them.
 *
 * Periodic part, on a second wheel: @periodic periodic timeouts of 1 - 8
 * ticks run for @churn_ms while this thread arms and cancels batches of
 * 512 one-shots due in 0.1 - 4 s (wheel levels 1 and 2); then the wheel is
 * destroyed with everything still pending (stop dropping them).
 *
 * Clock part (@clock_count > 0), on a CLOCK_REALTIME wheel: @clock_count
 * one-shots armed 10 min - 1 day ahead on the wall clock; the clock set
 * back an hour and two more timeouts armed 100 and 500 ms ahead (before
 * the wheel's tick: the base moves the wheel back and cascades everything,
 * in bounded batches), which must run at their deadlines, not before, the
 * second not when the first's expiry makes the base collect; then the
 * clock set forward two days, past every deadline, so all of them run at
 * once; last, the clock put back where it would have been.
 *
 * Results go to the kernel log as "hwtimer_irqsoff: ..." lines, the last
 * one "hwtimer_irqsoff: result ok" or "result failed: ...". Loading
 * succeeds either way (but for want of memory for the array): busybox's
 * insmod retries a failed finit_module() with init_module(), which would
 * run everything twice.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "hwtimer.h"

static unsigned int count = 1000000;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "one-shot timeouts armed at once (default 1000000)");
static unsigned int due = 100000;
module_param(due, uint, 0444);
MODULE_PARM_DESC(due, "of those, due at one instant about a second after arming (default 100000)");
static unsigned int periodic = 1000;
module_param(periodic, uint, 0444);
MODULE_PARM_DESC(periodic, "periodic timeouts of the periodic part (default 1000, 0 skips the part)");
static unsigned int churn_ms = 2000;
module_param(churn_ms, uint, 0444);
MODULE_PARM_DESC(churn_ms, "how long the periodic part arms and cancels (default 2000)");
static unsigned int clock_count;
module_param(clock_count, uint, 0444);
MODULE_PARM_DESC(clock_count, "CLOCK_REALTIME one-shots pending when the clock is set back and forward (default 0: no clock part)");

/* One-shots armed and cancelled at a time by the periodic part. */
#define CHURN_BATCH	512

static atomic_t fired = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(fired_wq);

static void count_fn(struct hwtimer_timeout *t)
{
	atomic_inc(&fired);
	wake_up(&fired_wq);
}

/*
 * Wait until @target timeouts have run, for as long as they keep running:
 * a slow guest (a busy host, KASAN) takes longer, a timeout lost stops
 * the count. Fails only after FIRED_STALL_S seconds in which none ran.
 */
#define FIRED_STALL_S	30
static void wait_fired(int target)
{
	int seen;

	do {
		seen = atomic_read(&fired);
		if (wait_event_timeout(fired_wq, atomic_read(&fired) >= target,
				       FIRED_STALL_S * HZ))
			return;
	} while (atomic_read(&fired) > seen);
}

static unsigned int ms_since(ktime_t t0)
{
	return ktime_ms_delta(ktime_get(), t0);
}

/*
 * Arm @n timeouts of @ts at @at ns, plus (with @spread_ns) a pseudo-random
 * offset below @spread_ns. Return: 0 or the first error.
 */
static int arm_range(struct hwtimer_wheel *w, struct hwtimer_timeout *ts,
		     unsigned int n, u64 at, u64 spread_ns)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		u64 d = at;

		if (spread_ns)
			d += (u64)get_random_u32() * 100000 % spread_ns;
		hwtimer_timeout_init(&ts[i], count_fn, 0);
		ret = hwtimer_arm(w, &ts[i], d, 0, HWTIMER_ARM_ABS);
		if (ret)
			return ret;
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

/* Steps 1-3 of the one-shot part. Return: 0, or -EIO on a wrong count. */
static int oneshot_part(struct hwtimer_timeout *ts)
{
	struct hwtimer_wheel_params p = { .name = "irqsoff" };
	unsigned int far = count - due, back = 0;
	struct hwtimer_wheel *w;
	LIST_HEAD(unprocessed);
	ktime_t t0, t1;
	u64 now, at;
	int ret;

	w = hwtimer_wheel_create(&p);
	if (IS_ERR(w))
		return PTR_ERR(w);
	atomic_set(&fired, 0);
	t0 = ktime_get();
	now = hwtimer_wheel_now(w);
	ret = arm_range(w, ts + due, far, now + 600 * NSEC_PER_SEC,
			86400ULL * NSEC_PER_SEC);
	if (ret)
		goto out_destroy;
	t1 = ktime_get();
	/* A second after the due ones are armed, at the rate seen so far. */
	at = hwtimer_wheel_now(w) + NSEC_PER_SEC +
	     div_u64(2 * (u64)ktime_to_ns(ktime_sub(t1, t0)) * due, far ?: 1);
	ret = arm_range(w, ts, due, at, 0);
	if (ret)
		goto out_destroy;
	pr_info("armed %u (%u far, %u due together) in %u ms\n", count, far,
		due, ms_since(t0));

	t0 = ktime_get();
	wait_fired(due);
	pr_info("%d of %u due fired, %u ms after arming ended, %u pending\n",
		atomic_read(&fired), due, ms_since(t0), far);

	t0 = ktime_get();
	hwtimer_wheel_stop(w, &unprocessed);
	pr_info("stop handed back the pending ones in %u ms\n", ms_since(t0));
	t0 = ktime_get();
	hwtimer_wheel_destroy(w);
	w = NULL;
	while (hwtimer_unprocessed_pop(&unprocessed))
		back++;
	pr_info("destroy took %u ms; %u handed back\n", ms_since(t0), back);
	if (atomic_read(&fired) != due || back != far) {
		pr_info("result failed: %d fired, %u handed back, expected %u and %u\n",
			atomic_read(&fired), back, due, far);
		ret = -EIO;
	}
out_destroy:
	hwtimer_wheel_destroy(w);
	if (ret && ret != -EIO)
		pr_info("result failed: arm returned %d\n", ret);
	return ret;
}

/* The rewind probes: their wall-clock deadlines, and when each ran. */
static struct hwtimer_timeout *probes;
static u64 probe_deadline[2];
static u64 probe_ran[2];

static void probe_fn(struct hwtimer_timeout *t)
{
	WRITE_ONCE(probe_ran[t - probes], ktime_get_real_ns());
	wake_up(&fired_wq);
}

/* Set CLOCK_REALTIME to @ns. Return: 0 or do_settimeofday64()'s error. */
static int set_real(u64 ns)
{
	struct timespec64 ts = ns_to_timespec64(ns);

	return do_settimeofday64(&ts);
}

/*
 * The clock part; @ts has room for clock_count + 2. The wall clock is put
 * back to where it would be had it not been set, whatever happens.
 */
static int clock_part(struct hwtimer_timeout *ts)
{
	struct hwtimer_wheel_params p = {
		.name = "irqsoff-realtime",
		.flags = HWTIMER_WHEEL_REALTIME,
	};
	u64 real0 = ktime_get_real_ns(), mono0 = ktime_get_ns();
	struct hwtimer_wheel *w;
	ktime_t t0;
	int ret, i;

	w = hwtimer_wheel_create(&p);
	if (IS_ERR(w))
		return PTR_ERR(w);
	probes = ts + clock_count;
	atomic_set(&fired, 0);
	t0 = ktime_get();
	ret = arm_range(w, ts, clock_count,
			hwtimer_wheel_now(w) + 600 * NSEC_PER_SEC,
			86400ULL * NSEC_PER_SEC);
	if (ret)
		goto out;
	pr_info("clock: armed %u realtime one-shots in %u ms\n", clock_count,
		ms_since(t0));
	/* The wheel has been at this time: make it move back. */
	hwtimer_timeout_init(&probes[0], probe_fn, 0);
	hwtimer_timeout_init(&probes[1], probe_fn, 0);
	ret = hwtimer_arm(w, &probes[0], 0, 0, 0);
	if (!ret)
		wait_event_timeout(fired_wq, READ_ONCE(probe_ran[0]), 10 * HZ);
	WRITE_ONCE(probe_ran[0], 0);
	ret = ret ?: set_real(ktime_get_real_ns() - 3600 * NSEC_PER_SEC);
	if (ret)
		goto out;
	/* The first one's expiry makes the base collect before the second's. */
	t0 = ktime_get();
	for (i = 0; i < 2 && !ret; i++) {
		probe_deadline[i] = ktime_get_real_ns() +
				    (100 + 400 * i) * NSEC_PER_MSEC;
		ret = hwtimer_arm(w, &probes[i], probe_deadline[i], 0,
				  HWTIMER_ARM_ABS);
	}
	if (ret)
		goto out;
	wait_event_timeout(fired_wq, READ_ONCE(probe_ran[1]), 60 * HZ);
	for (i = 0; i < 2; i++) {
		u64 ran = READ_ONCE(probe_ran[i]);

		pr_info("clock: set back 1 h; a timeout %u ms ahead ran %lld us after its deadline, %u ms after the arms\n",
			100 + 400 * i,
			ran ? (s64)(ran - probe_deadline[i]) / 1000 : -1LL,
			ms_since(t0));
		if (!ran || ran < probe_deadline[i]) {
			pr_info("result failed: a timeout armed after the clock was set back ran early or never\n");
			ret = -EIO;
		}
	}
	if (ret)
		goto out;
	t0 = ktime_get();
	ret = set_real(ktime_get_real_ns() + 2 * 86400ULL * NSEC_PER_SEC);
	if (ret)
		goto out;
	wait_fired(clock_count);
	pr_info("clock: set forward 2 days; %d of %u ran, the last %u ms after\n",
		atomic_read(&fired), clock_count, ms_since(t0));
	if (atomic_read(&fired) != clock_count) {
		pr_info("result failed: %d of %u ran after the clock passed them\n",
			atomic_read(&fired), clock_count);
		ret = -EIO;
	}
out:
	set_real(real0 + (ktime_get_ns() - mono0));
	hwtimer_wheel_destroy(w);
	if (ret && ret != -EIO)
		pr_info("result failed: clock part: %d\n", ret);
	return ret;
}

/* Arm and cancel batches of one-shots on @w for churn_ms. */
static void churn(struct hwtimer_wheel *w, struct hwtimer_timeout *ts,
		  u64 *arms, u64 *cancels)
{
	unsigned long end = jiffies + msecs_to_jiffies(churn_ms);
	unsigned int i;

	for (i = 0; i < CHURN_BATCH; i++)
		hwtimer_timeout_init(&ts[i], count_fn, 0);
	while (time_before(jiffies, end)) {
		for (i = 0; i < CHURN_BATCH; i++) {
			u64 d = (100 + get_random_u32() % 3900) * NSEC_PER_MSEC;

			if (!hwtimer_arm(w, &ts[i], d, 0, 0))
				(*arms)++;
		}
		for (i = 0; i < CHURN_BATCH; i++)
			if (hwtimer_cancel(&ts[i]) == HWTIMER_CANCELLED)
				(*cancels)++;
		cond_resched();
	}
}

/* The periodic part: periodic timeouts plus arm/cancel churn. */
static int periodic_part(struct hwtimer_timeout *ts)
{
	struct hwtimer_wheel_params p = { .name = "irqsoff-periodic" };
	struct hwtimer_timeout *churn_ts = ts + periodic;
	struct hwtimer_wheel *w;
	u64 tick, arms = 0, cancels = 0;
	unsigned int i;
	ktime_t t0;
	int ret;

	w = hwtimer_wheel_create(&p);
	if (IS_ERR(w))
		return PTR_ERR(w);
	tick = hwtimer_wheel_tick_ns(w);
	atomic_set(&fired, 0);
	for (i = 0; i < periodic; i++) {
		u64 period = (1 + i % 8) * tick;

		hwtimer_timeout_init(&ts[i], count_fn, 0);
		ret = hwtimer_arm(w, &ts[i], period, period, 0);
		if (ret)
			goto out_destroy;
	}
	churn(w, churn_ts, &arms, &cancels);
	t0 = ktime_get();
	hwtimer_wheel_destroy(w);
	pr_info("periodic: %u periodic, %d callbacks, %llu arms, %llu cancelled in %u ms; destroy took %u ms\n",
		periodic, atomic_read(&fired), arms, cancels, churn_ms,
		ms_since(t0));
	return 0;

out_destroy:
	hwtimer_wheel_destroy(w);
	pr_info("result failed: periodic arm returned %d\n", ret);
	return ret;
}

static int __init irqsoff_init(void)
{
	size_t n = max3((size_t)count, (size_t)periodic + CHURN_BATCH,
			(size_t)clock_count + 2);
	struct hwtimer_timeout *ts;
	int ret = 0;

	if (due > count) {
		pr_info("result failed: due > count\n");
		return 0;
	}
	ts = kvcalloc(n, sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	if (count)
		ret = oneshot_part(ts);
	if (!ret && periodic)
		ret = periodic_part(ts);
	if (!ret && clock_count)
		ret = clock_part(ts);
	kvfree(ts);
	if (!ret)
		pr_info("result ok\n");
	return 0;
}

static void __exit irqsoff_exit(void)
{
}

module_init(irqsoff_init);
module_exit(irqsoff_exit);

MODULE_DESCRIPTION("hwtimer: interrupts-off time with many pending timeouts");
MODULE_LICENSE("GPL");
