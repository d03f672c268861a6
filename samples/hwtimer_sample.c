// SPDX-License-Identifier: GPL-2.0
/*
 * A small consumer of hwtimer's kernel API, and the reference for its
 * module lifetime rule (see hwtimer.h).
 *
 * On load it arms a one-shot timeout a second away and moves it to 20 ms
 * (hwtimer_modify), arms a second one ten seconds away and cancels it, and
 * starts a periodic timeout (period_ms). While any of them is pending or
 * running, hwtimer holds a reference on this module, so rmmod fails. Write
 * 0 to /sys/module/hwtimer_sample/parameters/active to quiesce it (cancel
 * everything and wait for running callbacks); then it unloads. Write 1 to
 * start the periodic timeout again.
 *
 * hold_ms arms one more one-shot that far away at load: the module cannot
 * be unloaded until it has fired, with nothing to quiesce.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include "hwtimer.h"

#define MS	NSEC_PER_MSEC

/* Serialises quiesce and restart, and guards sample_up. */
static DEFINE_MUTEX(sample_lock);
/* Module init finished: parameter writes act on the timeouts. */
static bool sample_up;

static struct hwtimer_timeout oneshot;	/* armed, then modified */
static struct hwtimer_timeout doomed;	/* armed, then cancelled */
static struct hwtimer_timeout tick;	/* periodic */
static struct hwtimer_timeout hold;	/* hold_ms one-shot */

static uint period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "period of the periodic timeout in ms (>= 1)");

static uint hold_ms;
module_param(hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms, "arm one more one-shot this far away at load (0: none)");

static ulong runs;
module_param(runs, ulong, 0444);
MODULE_PARM_DESC(runs, "runs of the periodic timeout");

static ulong overruns;
module_param(overruns, ulong, 0444);
MODULE_PARM_DESC(overruns, "periods the periodic timeout skipped");

static ulong fired;
module_param(fired, ulong, 0444);
MODULE_PARM_DESC(fired, "one-shot timeouts that fired");

static bool active = true;

static void oneshot_fn(struct hwtimer_timeout *t)
{
	struct hwtimer_wheel *w = hwtimer_default_wheel();

	WRITE_ONCE(fired, fired + 1);
	pr_info("%s one-shot fired %llu us after its deadline\n",
		t == &hold ? "hold_ms" : "modified",
		div_u64(hwtimer_wheel_now(w) - hwtimer_deadline(t),
			NSEC_PER_USEC));
}

static void doomed_fn(struct hwtimer_timeout *t)
{
	pr_err("the cancelled timeout ran\n");
}

static void tick_fn(struct hwtimer_timeout *t)
{
	WRITE_ONCE(runs, runs + 1);
	WRITE_ONCE(overruns, overruns + hwtimer_overruns(t));
	if (runs == 1)
		pr_info("periodic timeout running every %u ms\n", period_ms);
}

static int start_tick(void)
{
	u64 p = (u64)period_ms * MS;

	return hwtimer_arm(hwtimer_default_wheel(), &tick, p, p, 0);
}

/* Cancel everything and wait for running callbacks: then rmmod works. */
static void quiesce(void)
{
	hwtimer_cancel_sync(&tick);
	hwtimer_cancel_sync(&oneshot);
	hwtimer_cancel_sync(&doomed);
	hwtimer_cancel_sync(&hold);
}

static int active_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	mutex_lock(&sample_lock);
	if (sample_up && on && !active)
		ret = start_tick();
	else if (sample_up && !on && active)
		quiesce();
	if (!ret)
		active = on;
	mutex_unlock(&sample_lock);
	return ret;
}

static const struct kernel_param_ops active_ops = {
	.set = active_set,
	.get = param_get_bool,
};
module_param_cb(active, &active_ops, &active, 0644);
MODULE_PARM_DESC(active, "1: periodic timeout running; write 0 to quiesce before rmmod");

static int __init sample_init(void)
{
	struct hwtimer_wheel *w = hwtimer_default_wheel();
	int ret;

	if (!period_ms)
		return -EINVAL;
	hwtimer_timeout_init(&oneshot, oneshot_fn, 0);
	hwtimer_timeout_init(&doomed, doomed_fn, 0);
	hwtimer_timeout_init(&tick, tick_fn, 0);
	hwtimer_timeout_init(&hold, oneshot_fn, 0);

	ret = hwtimer_arm(w, &oneshot, 1000 * MS, 0, 0);
	if (!ret)
		ret = hwtimer_modify(&oneshot, 20 * MS, 0);
	if (!ret)
		ret = hwtimer_arm(w, &doomed, 10000 * MS, 0, 0);
	if (!ret)
		pr_info("cancel of a pending timeout: %s\n",
			hwtimer_cancel(&doomed) == HWTIMER_CANCELLED ?
			"cancelled" : "unexpected result");
	if (!ret && hold_ms)
		ret = hwtimer_arm(w, &hold, (u64)hold_ms * MS, 0, 0);
	mutex_lock(&sample_lock);
	if (!ret && active)
		ret = start_tick();
	sample_up = !ret;
	mutex_unlock(&sample_lock);
	if (ret) {
		quiesce();
		return ret;
	}
	pr_info("loaded; write 0 to /sys/module/hwtimer_sample/parameters/active before rmmod\n");
	return 0;
}

static void __exit sample_exit(void)
{
	/* Nothing can be pending here (the pins would have kept us), but
	 * cancel_sync() is cheap and keeps the rule visible.
	 */
	quiesce();
	pr_info("unloaded after %lu periodic runs\n", runs);
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_DESCRIPTION("Sample consumer of the hwtimer kernel API");
MODULE_LICENSE("GPL");
