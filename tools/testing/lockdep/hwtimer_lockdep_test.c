// SPDX-License-Identifier: GPL-2.0
/*
 * Proves that hwtimer's waits for callbacks carry a lockdep map: loading
 * this module must make lockdep report a possible circular locking
 * dependency, without any real deadlock.
 *
 * A callback takes mutex M once (lockdep learns: wheel's callbacks -> M).
 * Then, holding M, the module waits for that wheel's callbacks with
 * hwtimer_cancel_sync() (or hwtimer_wheel_stop() with stop=1) on a
 * timeout that is not running, so the wait returns at once; lockdep learns
 * M -> callbacks and reports the cycle, as it would for del_timer_sync()
 * under a lock its timer function takes.
 *
 * A lockdep report turns lockdep off for the rest of the boot, so this
 * cannot run inside a KUnit suite: tools/vm/guest.d/98-lockdep.sh loads it
 * last, between two kernel log markers, and checks the report appeared
 * there; tools/vm/results.py ignores splats between those markers only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include "hwtimer.h"

static bool stop;
module_param(stop, bool, 0444);
MODULE_PARM_DESC(stop, "wait with hwtimer_wheel_stop() instead of hwtimer_cancel_sync()");

/* Taken by the callback, then held around the wait. */
static DEFINE_MUTEX(lockdep_test_mutex);
static DECLARE_COMPLETION(lockdep_test_ran);
static struct hwtimer_timeout lockdep_test_tmo;

static void lockdep_test_fn(struct hwtimer_timeout *t)
{
	mutex_lock(&lockdep_test_mutex);
	mutex_unlock(&lockdep_test_mutex);
	complete(&lockdep_test_ran);
}

static int __init lockdep_test_init(void)
{
	struct hwtimer_wheel_params p = {
		.name = "lockdep_test",
		.workers = 1,
	};
	struct hwtimer_wheel *w;
	int ret;

	w = hwtimer_wheel_create(&p);
	if (IS_ERR(w))
		return PTR_ERR(w);
	hwtimer_timeout_init(&lockdep_test_tmo, lockdep_test_fn, 0);
	ret = hwtimer_arm(w, &lockdep_test_tmo, 0, 0, 0);
	if (ret)
		goto out_destroy;
	if (!wait_for_completion_timeout(&lockdep_test_ran, 30 * HZ)) {
		ret = -ETIMEDOUT;
		goto out_destroy;
	}
	/* Let the run end, without M held: no report from this wait. */
	hwtimer_cancel_sync(&lockdep_test_tmo);

	mutex_lock(&lockdep_test_mutex);
	if (stop)
		ret = hwtimer_wheel_stop(w, NULL);
	else
		ret = hwtimer_cancel_sync(&lockdep_test_tmo);
	mutex_unlock(&lockdep_test_mutex);
	pr_info("%s under the callback's mutex returned %d\n",
		stop ? "hwtimer_wheel_stop()" : "hwtimer_cancel_sync()", ret);
	ret = 0;
out_destroy:
	hwtimer_wheel_destroy(w);
	return ret;
}

static void __exit lockdep_test_exit(void)
{
}

module_init(lockdep_test_init);
module_exit(lockdep_test_exit);

MODULE_DESCRIPTION("hwtimer: lockdep sees waits for callbacks");
MODULE_LICENSE("GPL");
