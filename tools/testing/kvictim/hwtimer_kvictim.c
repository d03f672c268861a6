// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_kvictim - a kernel user of hwtimer's exported API, for the
 * isolation suite (tools/vm/guest.d/36-isolation.sh): is a kernel
 * module's timeout late while a user attacks /dev/hwtimer?
 *
 * insmod hwtimer_kvictim.ko cpu=N
 *	A kthread bound to CPU N arms a one-shot timeout 5 ms ahead on the
 *	default wheel, waits for its callback, and arms the next, until
 *	quiesced. For each expiry the deadline and the time its callback
 *	started (hwtimer_deadline() and hwtimer_run_start(), ns on the
 *	default wheel's clock) go to a ring of the last KV_MAX; a timeout
 *	not served 30 s after its deadline is noted with a fire time of 0
 *	and cancelled. /sys/kernel/debug/hwtimer_kvictim/samples prints
 *	the ring oldest first, "deadline fire" a line, and the clock's id
 *	on the first line ("clock N").
 * echo 1 > /sys/module/hwtimer_kvictim/parameters/quiesce
 *	stops the kthread and the timeout: hwtimer pins the module while
 *	its timeout is pending, so rmmod needs this first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>

#include "hwtimer.h"

#define KV_AHEAD	(5 * NSEC_PER_MSEC)
#define KV_LOST		(30 * HZ)
#define KV_MAX		16384

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "the CPU the kthread is bound to (arms there)");

struct kv_sample {
	u64 deadline;
	u64 fire;
};

static struct hwtimer_timeout kv_t;
static DECLARE_COMPLETION(kv_done);
static u64 kv_deadline, kv_fire;	/* written by the callback */
static struct kv_sample *kv_ring;
static u64 kv_n;			/* samples ever taken */
static DEFINE_MUTEX(kv_lock);		/* kv_ring, kv_n */
static struct task_struct *kv_task;
static struct dentry *kv_dir;
static DEFINE_MUTEX(kv_quiesce_lock);

static void kv_fn(struct hwtimer_timeout *t)
{
	kv_deadline = hwtimer_deadline(t);
	kv_fire = hwtimer_run_start(t);
	complete(&kv_done);
}

static void kv_note(u64 deadline, u64 fire)
{
	mutex_lock(&kv_lock);
	kv_ring[kv_n % KV_MAX].deadline = deadline;
	kv_ring[kv_n % KV_MAX].fire = fire;
	kv_n++;
	mutex_unlock(&kv_lock);
}

static int kv_thread(void *arg)
{
	struct hwtimer_wheel *w = hwtimer_default_wheel();
	u64 asked;

	while (!kthread_should_stop()) {
		reinit_completion(&kv_done);
		asked = hwtimer_wheel_now(w) + KV_AHEAD;
		if (hwtimer_arm(w, &kv_t, asked, 0, HWTIMER_ARM_ABS)) {
			schedule_timeout_interruptible(1);
			continue;
		}
		if (!wait_for_completion_timeout(&kv_done, KV_LOST)) {
			hwtimer_cancel_sync(&kv_t);
			kv_note(asked, 0);
			continue;
		}
		/* Its callback has returned once hwtimer_cancel_sync() does. */
		hwtimer_cancel_sync(&kv_t);
		kv_note(kv_deadline, kv_fire);
	}
	return 0;
}

static int samples_show(struct seq_file *m, void *v)
{
	u64 i, from;

	seq_printf(m, "clock %d\n",
		   hwtimer_wheel_clock(hwtimer_default_wheel()));
	mutex_lock(&kv_lock);
	from = kv_n > KV_MAX ? kv_n - KV_MAX : 0;
	for (i = from; i < kv_n; i++)
		seq_printf(m, "%llu %llu\n", kv_ring[i % KV_MAX].deadline,
			   kv_ring[i % KV_MAX].fire);
	mutex_unlock(&kv_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(samples);

static void kv_stop(void)
{
	mutex_lock(&kv_quiesce_lock);
	if (kv_task) {
		kthread_stop(kv_task);
		kv_task = NULL;
	}
	hwtimer_cancel_sync(&kv_t);
	mutex_unlock(&kv_quiesce_lock);
}

static int quiesce_set(const char *val, const struct kernel_param *kp)
{
	kv_stop();
	return 0;
}

static const struct kernel_param_ops quiesce_ops = {
	.set = quiesce_set,
};

module_param_cb(quiesce, &quiesce_ops, NULL, 0200);
MODULE_PARM_DESC(quiesce, "write 1 to stop the kthread and its timeout");

static int __init kv_init(void)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	kv_ring = vzalloc(array_size(KV_MAX, sizeof(*kv_ring)));
	if (!kv_ring)
		return -ENOMEM;
	hwtimer_timeout_init(&kv_t, kv_fn, 0);
	kv_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("samples", 0400, kv_dir, NULL, &samples_fops);
	kv_task = kthread_create(kv_thread, NULL, "hwtimer_kvictim");
	if (IS_ERR(kv_task)) {
		debugfs_remove_recursive(kv_dir);
		vfree(kv_ring);
		return PTR_ERR(kv_task);
	}
	kthread_bind(kv_task, cpu);
	wake_up_process(kv_task);
	return 0;
}

static void __exit kv_exit(void)
{
	kv_stop();
	debugfs_remove_recursive(kv_dir);
	vfree(kv_ring);
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("hwtimer isolation suite: a kernel module's timeouts");
MODULE_LICENSE("GPL");
