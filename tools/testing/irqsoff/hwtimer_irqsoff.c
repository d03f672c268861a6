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

/* One-shots armed and cancelled at a time by the periodic part. */
#define CHURN_BATCH	512

static atomic_t fired = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(fired_wq);

static void count_fn(struct hwtimer_timeout *t)
{
	atomic_inc(&fired);
	wake_up(&fired_wq);
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
	wait_event_timeout(fired_wq, atomic_read(&fired) >= due, 180 * HZ);
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
	size_t n = max_t(size_t, count, (size_t)periodic + CHURN_BATCH);
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
