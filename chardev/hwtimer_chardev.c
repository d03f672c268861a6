// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_chardev.c - /dev/hwtimer: hwtimer for userspace.
 *
 * Each open file is a context (hwtimer_ctx.c) that arms any number of
 * timeouts and hands their expiries back as fixed-size records through
 * read(), poll() and an optional eventfd, or through timer rings
 * (hwtimer_ring.c). The ABI is in include/uapi/linux/hwtimer.h.
 *
 * This file is the device's front-end: the file operations, the copying
 * of the ioctls' requests in and their answers out, BATCH's chunks, and
 * the accounting of users. What a request does is the context's
 * (hwtimer_ctx.c), which the single ioctls, BATCH and the rings' drains
 * share: one implementation per operation, three ways to name it.
 */
#include <linux/cred.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer.h"
#include "hwtimer_ctx.h"
#include "hwtimer_internal.h"
#include "hwtimer_ring.h"

/* Users with open contexts, by uid; protected by hwt_users_lock. */
static DEFINE_HASHTABLE(hwt_users, 6);
static DEFINE_SPINLOCK(hwt_users_lock);

static u64 ioctl_mask(void)
{
	return BIT_ULL(_IOC_NR(HWTIMER_IOC_API)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_ARM)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_CANCEL)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_MODIFY)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_BATCH)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_SET_EVENTFD)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_STATS)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_RING_SETUP)) |
	       BIT_ULL(_IOC_NR(HWTIMER_IOC_ENTER));
}

static long ioc_api(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_api req;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.api != HWTIMER_API || req.flags ||
	    req.features & ~HWTIMER_FEATURES_ALL ||
	    !hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.api = HWTIMER_API;
	req.features = HWTIMER_FEATURES_ALL;
	req.ioctls = ioctl_mask();
	req.tick_ns = hwtimer_wheel_tick_ns(hwtimer_default_wheel());
	req.max_pending = hwtimer_cdev_max_pending();
	req.event_size = sizeof(struct hwtimer_event);
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * The single ioctls run their op as a BATCH of one, through the same
 * dispatch (hwtimer_cdev_ops()): first the sweep of cancel-on-set
 * timeouts a set of the clock hit, as every BATCH call does.
 * Return: the op's status.
 */
static int run_one(struct hwt_ctx *ctx, struct hwtimer_batch_op *op)
{
	struct hwtimer_wheel *w;
	void *one, *per;
	struct hwt_batch bt = { .w = &w, .one = &one, .per = &per };
	int ret;

	ret = hwtimer_cdev_cos_sync(ctx);
	if (ret)
		return ret;
	hwtimer_cdev_ops(ctx, op, &bt, 1);
	return op->status;
}

/*
 * The rule for results: an op whose result cannot be returned did not
 * happen. Each command first writes its output fields with what they
 * hold, the same stores its answer makes later, so a read-only or bad
 * buffer fails with EFAULT before anything takes effect. Should the buffer
 * go bad in the short window after that (another thread changing the
 * mapping), arms are taken back; a cancel or modify done in that window
 * stands. Only the output fields are written: the rest of a request is
 * left as the caller wrote it.
 */
static long ioc_arm(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_arm_req __user *u = arg;
	struct hwtimer_arm_req req;
	struct hwtimer_batch_op op;
	int ret;

	if (copy_from_user(&req, u, sizeof(req)))
		return -EFAULT;
	if (put_user(req.id, &u->id))
		return -EFAULT;
	if (!hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	op = (struct hwtimer_batch_op){
		.op = HWTIMER_OP_ARM, .flags = req.flags,
		.cookie = req.cookie, .deadline_ns = req.deadline_ns,
		.period_ns = req.period_ns, .clock = req.clock,
	};
	ret = run_one(ctx, &op);
	if (ret)
		return ret;
	if (put_user(op.id, &u->id)) {
		hwtimer_cdev_withdraw(ctx, op.id);
		return -EFAULT;
	}
	return 0;
}

static long ioc_cancel(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_cancel_req __user *u = arg;
	struct hwtimer_cancel_req req;
	struct hwtimer_batch_op op;
	int ret;

	if (copy_from_user(&req, u, sizeof(req)))
		return -EFAULT;
	if (req.flags || !hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	if (put_user(req.result, &u->result))
		return -EFAULT;
	op = (struct hwtimer_batch_op){ .op = HWTIMER_OP_CANCEL, .id = req.id };
	ret = run_one(ctx, &op);
	if (ret)
		return ret;
	return put_user(op.result, &u->result);
}

static long ioc_modify(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_modify_req __user *u = arg;
	struct hwtimer_modify_req req;
	struct hwtimer_batch_op op;
	int ret;

	if (copy_from_user(&req, u, sizeof(req)))
		return -EFAULT;
	if (!hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	if (put_user(req.result, &u->result))
		return -EFAULT;
	op = (struct hwtimer_batch_op){
		.op = HWTIMER_OP_MODIFY, .flags = req.flags, .id = req.id,
		.deadline_ns = req.deadline_ns,
	};
	ret = run_one(ctx, &op);
	if (ret)
		return ret;
	return put_user(op.result, &u->result);
}

/* Take back the successful arms among @n ops whose results were lost. */
static void batch_withdraw(struct hwt_ctx *ctx, struct hwtimer_batch_op *ops,
			   u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (ops[i].op == HWTIMER_OP_ARM && !ops[i].status)
			hwtimer_cdev_withdraw(ctx, ops[i].id);
}

/* Read the @n ops at @uops into @ops. Return: 0, or -EFAULT. */
static int batch_read(struct hwtimer_batch_op *ops,
		      const struct hwtimer_batch_op __user *uops, u32 n)
{
	return copy_from_user(ops, uops, n * sizeof(*ops)) ? -EFAULT : 0;
}

/*
 * Write the outputs of the @n ops at @ops to @uops: status, result and id
 * (an ARM's new id; the id every other op named). The rest of each op is
 * input and stays as the caller wrote it. Return: 0, or -EFAULT with the
 * ops before the fault written.
 */
static int batch_write_back(struct hwtimer_batch_op __user *uops,
			    const struct hwtimer_batch_op *ops, u32 n)
{
	u32 i;

	if (!user_write_access_begin(uops, n * sizeof(*uops)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		unsafe_put_user(ops[i].id, &uops[i].id, efault);
		unsafe_put_user(ops[i].status, &uops[i].status, efault);
		unsafe_put_user(ops[i].result, &uops[i].result, efault);
	}
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * Run the ops at @uops in chunks, each written back before the next is
 * read. A signal before the first chunk restarts the call (nothing ran);
 * once ops ran, only a fatal one stops it (-EINTR: @req->done says how
 * far it got, for no one to see), and the others wait for its end, at
 * most HWTIMER_BATCH_MAX ops away: a stop signal or task work, which the
 * process never sees, must not fail a call half done. A fault stops it
 * too (-EFAULT: the faulting chunk had no effect). Before a chunk runs,
 * the fields it writes back are written with what they hold, so that its
 * write-back does not fault unless the memory is unmapped meanwhile.
 */
static long batch_run(struct hwt_ctx *ctx, struct hwtimer_batch *req,
		      struct hwtimer_batch_op __user *uops)
{
	struct hwtimer_batch_op ops[HWT_BATCH_CHUNK];
	struct hwtimer_wheel *w[HWT_BATCH_CHUNK];
	void *one[HWT_BATCH_CHUNK], *per[HWT_BATCH_CHUNK];
	struct hwt_batch bt;
	u32 i, n;

	while (req->done < req->count) {
		if (!req->done && signal_pending(current))
			return -ERESTARTSYS;
		if (fatal_signal_pending(current))
			return -EINTR;
		n = min_t(u32, req->count - req->done, HWT_BATCH_CHUNK);
		if (batch_read(ops, uops + req->done, n) ||
		    batch_write_back(uops + req->done, ops, n))
			return -EFAULT;
		bt = (struct hwt_batch){ .w = w, .one = one, .per = per };
		req->failed += hwtimer_cdev_ops(ctx, ops, &bt, n);
		if (batch_write_back(uops + req->done, ops, n)) {
			batch_withdraw(ctx, ops, n);
			for (i = 0; i < n; i++)
				req->failed -= ops[i].status != 0;
			return -EFAULT;
		}
		req->done += n;
		cond_resched();
	}
	return 0;
}

static long ioc_batch(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_batch req;
	long ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	req.done = 0;
	req.failed = 0;
	if (req.flags || req.count > HWTIMER_BATCH_MAX ||
	    !hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	/* Written back whole (done and failed are its outputs). */
	if (copy_to_user(arg, &req, sizeof(req)))
		return -EFAULT;
	ret = hwtimer_cdev_cos_sync(ctx);
	if (!ret)
		ret = batch_run(ctx, &req, u64_to_user_ptr(req.ops));
	if (copy_to_user(arg, &req, sizeof(req)))
		return -EFAULT;
	return ret;
}

static long ioc_set_eventfd(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_eventfd_req req;
	struct eventfd_ctx *evfd = NULL, *old;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.flags || !hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	if (req.fd != -1) {
		evfd = eventfd_ctx_fdget(req.fd);
		if (IS_ERR(evfd))
			return PTR_ERR(evfd);
	}
	spin_lock(&ctx->wqh.lock);
	old = ctx->evfd;
	ctx->evfd = evfd;
	spin_unlock(&ctx->wqh.lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

static long ioc_stats(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_stats_req req;
	struct hwtimer_wheel *w;
	u32 clock;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	w = hwtimer_cdev_wheel(req.clock);
	if (!w || req.flags ||
	    !hwt_reserved_zero(req.reserved, ARRAY_SIZE(req.reserved)))
		return -EINVAL;
	clock = req.clock;
	memset(&req, 0, sizeof(req));
	req.clock = clock;
	/* The counts include the expiries due now. */
	if (hwtimer_cdev_collect(ctx))
		return -EINTR;
	spin_lock(&ctx->wqh.lock);
	req.ctx_pending = ctx->pending;
	req.ctx_queued = ctx->queued;
	req.ctx_live = ctx->live;
	req.ctx_armed = ctx->armed;
	req.ctx_fired = ctx->fired;
	req.ctx_cancelled = ctx->cancelled;
	req.ctx_read = ctx->read;
	spin_unlock(&ctx->wqh.lock);
	req.ctx_max_pending = hwtimer_cdev_max_pending();
	req.tick_ns = hwtimer_wheel_tick_ns(w);
	hwtimer_wheel_get_stats(w, &req.wheel);
	return copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
}

static long hwt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hwt_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case HWTIMER_IOC_API:
		return ioc_api(ctx, uarg);
	case HWTIMER_IOC_ARM:
		return ioc_arm(ctx, uarg);
	case HWTIMER_IOC_CANCEL:
		return ioc_cancel(ctx, uarg);
	case HWTIMER_IOC_MODIFY:
		return ioc_modify(ctx, uarg);
	case HWTIMER_IOC_BATCH:
		return ioc_batch(ctx, uarg);
	case HWTIMER_IOC_SET_EVENTFD:
		return ioc_set_eventfd(ctx, uarg);
	case HWTIMER_IOC_STATS:
		return ioc_stats(ctx, uarg);
	case HWTIMER_IOC_RING_SETUP:
		return hwtimer_ring_setup(ctx, uarg);
	case HWTIMER_IOC_ENTER:
		return hwtimer_ring_enter(ctx, uarg);
	default:
		return -ENOTTY;
	}
}

static ssize_t hwt_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	bool nonblock = (iocb->ki_filp->f_flags & O_NONBLOCK) ||
			(iocb->ki_flags & IOCB_NOWAIT);

	return hwtimer_cdev_read(iocb->ki_filp->private_data, to, nonblock);
}

static __poll_t hwt_poll(struct file *file, poll_table *wait)
{
	struct hwt_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->wqh, wait);
	return hwtimer_cdev_readable(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int hwt_mmap(struct file *file, struct vm_area_struct *vma)
{
	return hwtimer_ring_mmap(file->private_data, vma);
}

/* The accounting of the calling user, created on first use. May sleep. */
static struct hwt_user *user_get(void)
{
	kuid_t uid = current_uid();
	struct hwt_user *u, *nu;

	nu = kzalloc(sizeof(*nu), GFP_KERNEL);
	if (nu)
		hwtimer_drains_init(&nu->drains);
	spin_lock(&hwt_users_lock);
	hash_for_each_possible(hwt_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid)) {
			refcount_inc(&u->ref);
			goto out_unlock;
		}
	}
	u = nu;
	nu = NULL;
	if (u) {
		u->uid = uid;
		refcount_set(&u->ref, 1);
		atomic_long_set(&u->live, 0);
		atomic_long_set(&u->tags, 0);
		atomic64_set(&u->budget, 0);
		hash_add(hwt_users, &u->node, __kuid_val(uid));
	}
out_unlock:
	spin_unlock(&hwt_users_lock);
	kfree(nu);
	return u;
}

static void user_put(struct hwt_user *u)
{
	if (!refcount_dec_and_lock(&u->ref, &hwt_users_lock))
		return;
	hash_del(&u->node);
	spin_unlock(&hwt_users_lock);
	WARN_ON_ONCE(atomic_long_read(&u->live));
	WARN_ON_ONCE(atomic_long_read(&u->tags));
	hwtimer_drains_exit(&u->drains);
	kfree(u);
}

static int hwt_open(struct inode *inode, struct file *file)
{
	struct hwt_user *u = user_get();
	struct hwt_ctx *ctx;

	if (!u)
		return -ENOMEM;
	ctx = hwtimer_cdev_ctx_alloc(u);
	if (IS_ERR(ctx)) {
		user_put(u);
		return PTR_ERR(ctx);
	}
	file->private_data = ctx;
	return stream_open(inode, file);
}

static int hwt_fasync(int fd, struct file *file, int on)
{
	struct hwt_ctx *ctx = file->private_data;

	return fasync_helper(fd, file, on, &ctx->fasync);
}

/*
 * Last reference gone: no ioctl or read can run, only the rings' drain
 * and the queues' wake-ups. The drain is stopped first: it is the only
 * thing that arms a timer now.
 */
static int hwt_release(struct inode *inode, struct file *file)
{
	struct hwt_ctx *ctx = file->private_data;
	struct hwt_user *u = ctx->user;

	hwtimer_ring_stop(ctx);
	hwtimer_cdev_ctx_stop(ctx);
	/* The vmas hold the file: no mapping of the rings is left. */
	hwtimer_ring_free(ctx);
	hwtimer_cdev_ctx_free(ctx);
	user_put(u);
	return 0;
}

static void hwt_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct hwt_ctx *ctx = file->private_data;
	u64 pending, queued, live;
	u32 cap, nspare, nextra;
	bool evfd;

	/* As STATS: the expiries due now are served first. */
	hwtimer_cdev_collect(ctx);
	spin_lock(&ctx->wqh.lock);
	pending = ctx->pending;
	queued = ctx->queued;
	live = ctx->live;
	evfd = ctx->evfd;
	cap = ctx->ids.cap;
	nspare = ctx->nspare;
	nextra = ctx->nextra;
	spin_unlock(&ctx->wqh.lock);
	seq_printf(m, "hwtimer-pending:\t%llu\n", pending);
	seq_printf(m, "hwtimer-queued:\t%llu\n", queued);
	seq_printf(m, "hwtimer-live:\t%llu\n", live);
	seq_printf(m, "hwtimer-eventfd:\t%d\n", evfd);
	seq_printf(m, "hwtimer-table-bytes:\t%zu\n", cap * sizeof(u64));
	seq_printf(m, "hwtimer-spare:\t%u\n", nspare);
	seq_printf(m, "hwtimer-spare-charged:\t%u\n", nextra);
}

static const struct file_operations hwt_fops = {
	.owner		= THIS_MODULE,
	.open		= hwt_open,
	.release	= hwt_release,
	.read_iter	= hwt_read_iter,
	.poll		= hwt_poll,
	.mmap		= hwt_mmap,
	.fasync		= hwt_fasync,
	.unlocked_ioctl	= hwt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= hwt_show_fdinfo,
};

/*
 * A fixed minor from the range Documentation/admin-guide/devices.txt
 * reserves for local use, so that depmod's modules.devname lets the boot
 * create /dev/hwtimer before the module is loaded and the first open loads
 * it. If another driver has the minor, a dynamic one is taken instead.
 */
#define HWTIMER_MISC_MINOR	250

static struct miscdevice hwt_misc = {
	.minor	= HWTIMER_MISC_MINOR,
	.name	= "hwtimer",
	.fops	= &hwt_fops,
	.mode	= 0666,
};

/**
 * hwtimer_chardev_init() - create /dev/hwtimer and what its contexts share
 *
 * Context: module init, after the default wheel exists.
 * Return: 0 or a negative errno.
 */
int hwtimer_chardev_init(void)
{
	int ret;

	ret = hwtimer_cdev_init();
	if (ret)
		return ret;
	ret = misc_register(&hwt_misc);
	if (ret == -EBUSY) {
		pr_warn("hwtimer: misc minor %d is taken, using a dynamic one (no load on first open)\n",
			HWTIMER_MISC_MINOR);
		hwt_misc.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&hwt_misc);
	}
	if (ret)
		hwtimer_cdev_exit();
	return ret;
}

/**
 * hwtimer_chardev_exit() - remove /dev/hwtimer
 *
 * Context: module exit; no context is open (each pins the module).
 */
void hwtimer_chardev_exit(void)
{
	misc_deregister(&hwt_misc);
	hwtimer_cdev_exit();
}

MODULE_ALIAS_MISCDEV(HWTIMER_MISC_MINOR);
MODULE_ALIAS("devname:hwtimer");
