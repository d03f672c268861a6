// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_ring.c - timer rings: arm and cancel /dev/hwtimer timeouts
 * without a system call.
 *
 * HWTIMER_IOC_RING_SETUP gives a context one region that userspace maps
 * with mmap(): a header of indices, each on its own cache line, then the
 * submission ring (struct hwtimer_sqe) and the completion ring (struct
 * hwtimer_event, the record read() returns). Its timeouts are "slots",
 * hwt_ptimers made at setup and charged to the context's and the user's
 * limits then, so an arm in flight needs no memory beyond them; userspace
 * names them by index, so a cancel needs no answer from the arm.
 *
 * The submission ring is drained periodically, a wheel tick apart, or at
 * once by HWTIMER_IOC_ENTER; a periodic drain leaves far ARMs to a later
 * one until they have waited a tick (drain_bound()), so that timeouts
 * cancelled soon after their arm are taken back from the ring. The
 * periodic drains of all of one user's rings are one timeout, the user's
 * pass (struct hwt_drains), which drains HWT_DRAIN_VISITS of them a tick
 * at most, in turn. It runs on a wheel of its own with a single base,
 * whose workers may run on any CPU (hwtimer_cdev_drain_wheel()): a
 * per-CPU base's workers run on its CPU, and a drain there would take the
 * time of the thread filling the ring from that very CPU. A drain reads
 * the sq tail once, copies each entry once, checks it, and applies it
 * under the context's lock with the same helpers as the ioctls. As
 * Netty's timer drops a timeout cancelled while still in its queue, an
 * ARM whose slot the same drain then CANCELs, with nothing naming the
 * slot in between, never reaches the wheel: the CANCEL completes
 * CANCELLED at once. That needs the drain to reach the
 * CANCEL, so it pairs entries only when the completion ring has a place
 * for every entry, which it keeps from expiries (they go to read() then);
 * should a waiting MODIFY stop it before a paired CANCEL, the ARM is
 * armed after all. The HWT_RING_IDLE_DRAINS-th periodic drain in a row
 * that finds the ring empty sets NEED_WAKEUP and, if the ring is still
 * empty after a full barrier, stops the periodic drain; ENTER restarts it.
 * The drains in between, as io_uring's SQPOLL thread idles before it
 * sleeps, spare a process that pauses for a few ticks an ENTER:
 *
 *	userspace			kernel (drain, under drain_mutex)
 *	---------			------
 *	write sqe, store-release tail	set NEED_WAKEUP
 *	smp_mb()			smp_mb()
 *	load flags: NEED_WAKEUP?	load tail: still empty? stop
 *	   -> HWTIMER_IOC_ENTER
 *
 * Either the kernel sees the new tail or userspace sees the flag.
 *
 * Expiries of slots go to the completion ring where the context's
 * expiries are served (hwtimer_ctx.c): in its ENTER, read() and
 * STATS, or by its queue's wake-up within the user's budget, under the
 * context's lock; when the ring is full they take the record path of
 * every other timeout (the event list, read()) and the header's overflow
 * count goes up. Completions of entries (cancel results, errors) have no such
 * fallback: an entry is consumed only while the completion ring has room,
 * so none is ever lost; a full completion ring stalls the submission ring.
 *
 * Isolation: the periodic drains and the queues' wake-ups run on shared
 * threads, and what a process writes into its region costs no system
 * call, so what they do for one context is bounded per tick whatever the
 * process does, and the drains per user however many rings it opens: a
 * user's pass drains at most HWT_DRAIN_VISITS rings a tick, a periodic
 * drain looks at most at HWT_RING_DRAIN_BUDGET entries, and the drains of
 * one user's rings, with the expiries its wake-ups serve, consume at most
 * its budget a tick together (hwtimer_cdev_budget_take()); past either, a
 * drain asks for ENTER, which drains the rest on the process's time, and
 * a wake-up comes back a tick later. A periodic drain never sleeps on the
 * context's drain mutex (an ENTER holding it is draining anyway). Every
 * hold of the context's lock covers at most HWT_RING_CHUNK entries.
 *
 * Trust: the kernel keeps its own sq head, cq tail, flags and counters and
 * only writes them to the mapping; it reads the sq tail, the cq head and
 * the entries, each once where it decides something, and masks every
 * index. Whatever a process writes into the region can only hurt the
 * users of this context.
 *
 * Lifetime: the rings are set up once and freed at release, after they
 * left their user's pass and the pass and the context's wake-ups have
 * been waited for with hwtimer_cancel_sync(); a mapping holds the file,
 * so release comes after the last munmap().
 */
#include <linux/build_bug.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer.h"
#include "hwtimer_internal.h"
#include "hwtimer_ctx.h"
#include "hwtimer_ring.h"

/* Each shared index has a cache line of its own. */
#define HWT_RING_LINE		64
/* Offsets of the indices in the header, and where the entries start. */
#define HWT_RING_SQ_HEAD	(0 * HWT_RING_LINE)
#define HWT_RING_SQ_TAIL	(1 * HWT_RING_LINE)
#define HWT_RING_SQ_FLAGS	(2 * HWT_RING_LINE)
#define HWT_RING_SQ_DROPPED	(3 * HWT_RING_LINE)
#define HWT_RING_CQ_HEAD	(4 * HWT_RING_LINE)
#define HWT_RING_CQ_TAIL	(5 * HWT_RING_LINE)
#define HWT_RING_CQ_OVERFLOW	(6 * HWT_RING_LINE)
#define HWT_RING_EV_QUEUED	(7 * HWT_RING_LINE)
#define HWT_RING_SQ_CLAIM	(8 * HWT_RING_LINE)
#define HWT_RING_SQES		(9 * HWT_RING_LINE)
/* Entries a drain applies in one hold of the lock. */
#define HWT_RING_CHUNK		16
/* Entries ENTER copies between two looks for a fatal signal. */
#define HWT_RING_COPY_CHUNK	1024
/*
 * Entries a periodic drain looks at and consumes at most. It runs on a
 * shared thread, so what it does for one context must not grow with what
 * the process puts in its ring; past this, or past its user's budget
 * for the tick (hwtimer_cdev_budget_take()), it sets NEED_WAKEUP, and
 * the process's next submission drains the rest with ENTER, on its own
 * time.
 */
#define HWT_RING_DRAIN_BUDGET	(4 * HWT_RING_CHUNK)
/*
 * Periodic drains in a row that find the ring empty before the drain
 * stops and asks for ENTER: 16 ticks of a pause cost a process nothing,
 * the drain's end 16 wake-ups once.
 */
#define HWT_RING_IDLE_DRAINS	16
/* Rings a pass of one user's periodic drains visits at most. */
#define HWT_DRAIN_VISITS	64
/* In hwt_ring.link of a CANCEL: its ARM was deferred. */
#define HWT_RING_DEFERRED	BIT(31)
/* In hwt_ring.link: the entry failed sqe_check(), which it answers. */
#define HWT_RING_BAD		BIT(30)
/* sqe_run(): the ARM was deferred. */
#define HWT_RING_DEFER		1

/**
 * struct hwt_ring - the timer rings of a context
 * @ctx: the context
 * @w: the wheel of @clock
 * @clock: clock of every ring deadline and slot
 * @mem: the shared region, vmalloc()ed
 * @map_size: its length, whole pages
 * @sq_head: in @mem: the kernel's sq head, published
 * @sq_tail: in @mem: userspace's sq tail
 * @sq_flags: in @mem: %HWTIMER_RING_NEED_WAKEUP, published
 * @sq_dropped: in @mem: @dropped, published
 * @sq_claim: in @mem: the sq tail of the drain under way or last run,
 *	published before it copies entries
 * @sqes: in @mem: the submission ring
 * @sq_entries: size of the submission ring, a power of two
 * @id_tag: a tag of hwtimer_cdev_tag_alloc(), for userspace's ids
 * @nslots: slots in @slots
 * @slots: the ring timeouts, by index
 * @win: the entries of the drain under way, copied once
 * @link: per entry of @win: %HWT_RING_BAD for an entry that failed its
 *	check; else an ARM's paired CANCEL + 1, a CANCEL's deferred ARM + 1
 *	with %HWT_RING_DEFERRED, or 0
 * @last: per slot, while a drain pairs entries: its ARM + 1 in @win that
 *	no later entry named the slot after; else 0
 * @drain_mutex: one drain at a time; protects @sq_next, @flags,
 *	@sq_seen, @seen_ns, @dropped, @drain_on and @idle_drains
 * @drains: the periodic drains of the user's rings
 * @drain_node: in @drains->rings while @drain_on, under @drains->lock
 * @drain_on: the periodic drain is on: @drains' pass drains the ring
 * @idle_drains: periodic drains in a row that found the ring empty
 * @sq_next: the kernel's sq head: next entry to consume
 * @sq_seen: the sq tail as a drain read it at @seen_ns: the entries
 *	before it have waited since
 * @seen_ns: when, on the rings' clock
 * @flags: the kernel's copy of the header flags
 * @dropped: times the sq tail was found impossible and skipped to
 * @cq: the completion ring, in @mem: the context's (hwtimer_ctx.c)
 */
struct hwt_ring {
	struct hwt_ctx *ctx;
	struct hwtimer_wheel *w;
	u32 clock;
	void *mem;
	size_t map_size;
	u32 *sq_head;
	u32 *sq_tail;
	u32 *sq_flags;
	u32 *sq_dropped;
	u32 *sq_claim;
	struct hwtimer_sqe *sqes;
	u32 sq_entries;
	u32 id_tag;
	u32 nslots;
	struct hwt_ptimer *slots;
	struct hwtimer_sqe *win;
	u32 *link;
	u32 *last;
	struct mutex drain_mutex;	/* one drain at a time */
	struct hwt_drains *drains;
	struct list_head drain_node;
	bool drain_on;
	u32 idle_drains;
	u32 sq_next;
	u32 sq_seen;
	u64 seen_ns;
	u32 flags;
	u32 dropped;
	struct hwt_cq cq;
};

/* Offset of the completion ring: after the submission ring. */
static size_t cqes_offset(u32 sq_entries)
{
	return ALIGN(HWT_RING_SQES + sq_entries * sizeof(struct hwtimer_sqe),
		     HWT_RING_LINE);
}

static size_t map_size(u32 sq_entries, u32 cq_entries)
{
	return PAGE_ALIGN(cqes_offset(sq_entries) +
			  cq_entries * sizeof(struct hwtimer_event));
}

static bool ring_size_ok(u32 n)
{
	return is_power_of_2(n) && n <= HWTIMER_RING_MAX_ENTRIES;
}

static int setup_check(const struct hwtimer_ring_setup *req)
{
	if (req->flags || req->features || req->id_tag || req->ev_queued ||
	    req->sq_claim ||
	    memchr_inv(req->reserved, 0, sizeof(req->reserved)))
		return -EINVAL;
	if (!ring_size_ok(req->sq_entries) || !ring_size_ok(req->cq_entries))
		return -EINVAL;
	if (!req->slots || req->slots > hwtimer_cdev_max_pending())
		return -EINVAL;
	/* Rings take CLOCK_MONOTONIC and CLOCK_BOOTTIME deadlines only. */
	if (req->clock == CLOCK_REALTIME)
		return -EINVAL;
	return hwtimer_cdev_wheel(req->clock) ? 0 : -EINVAL;
}

/* Point the ring's fields into its region. */
static void ring_layout(struct hwt_ring *r)
{
	r->sq_head = r->mem + HWT_RING_SQ_HEAD;
	r->sq_tail = r->mem + HWT_RING_SQ_TAIL;
	r->sq_flags = r->mem + HWT_RING_SQ_FLAGS;
	r->sq_dropped = r->mem + HWT_RING_SQ_DROPPED;
	r->cq.head = r->mem + HWT_RING_CQ_HEAD;
	r->cq.tail = r->mem + HWT_RING_CQ_TAIL;
	r->cq.overflow_at = r->mem + HWT_RING_CQ_OVERFLOW;
	r->cq.ev_queued = r->mem + HWT_RING_EV_QUEUED;
	r->sq_claim = r->mem + HWT_RING_SQ_CLAIM;
	r->sqes = r->mem + HWT_RING_SQES;
	r->cq.cqes = r->mem + cqes_offset(r->sq_entries);
}

/* What setup answers: the size and every offset of the region. */
static void setup_answer(const struct hwt_ring *r,
			 struct hwtimer_ring_setup *req)
{
	req->map_size = r->map_size;
	req->sq_head = HWT_RING_SQ_HEAD;
	req->sq_tail = HWT_RING_SQ_TAIL;
	req->sq_flags = HWT_RING_SQ_FLAGS;
	req->sq_dropped = HWT_RING_SQ_DROPPED;
	req->sqes = HWT_RING_SQES;
	req->cq_head = HWT_RING_CQ_HEAD;
	req->cq_tail = HWT_RING_CQ_TAIL;
	req->cq_overflow = HWT_RING_CQ_OVERFLOW;
	req->ev_queued = HWT_RING_EV_QUEUED;
	req->sq_claim = HWT_RING_SQ_CLAIM;
	req->features = HWTIMER_RING_F_RETRACT;
	req->cqes = cqes_offset(r->sq_entries);
	req->id_tag = r->id_tag;
}

static void ring_destroy(struct hwt_ring *r)
{
	if (r->id_tag)
		hwtimer_cdev_tag_free(r->ctx, r->id_tag);
	vfree(r->mem);
	kvfree(r->slots);
	kvfree(r->win);
	kvfree(r->link);
	kvfree(r->last);
	mutex_destroy(&r->drain_mutex);
	kfree(r);
}

/* Set up the slots: idle ring timers of @r's clock, their index as id. */
static void slots_init(struct hwt_ring *r)
{
	struct hwt_timer *ht;
	u32 i;

	for (i = 0; i < r->nslots; i++) {
		ht = &r->slots[i].ht;
		hwtimer_cdev_timer_init(r->ctx, ht, r->clock);
		ht->ring = true;
		ht->id = i;
		if (!(i % 4096))
			cond_resched();
	}
}

/* A ring as @req asks, not yet installed. Return: it, or ERR_PTR. */
static struct hwt_ring *ring_alloc(struct hwt_ctx *ctx,
				   const struct hwtimer_ring_setup *req)
{
	struct hwt_ring *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	mutex_init(&r->drain_mutex);
	INIT_LIST_HEAD(&r->drain_node);
	r->drains = hwtimer_cdev_drains(ctx);
	r->ctx = ctx;
	r->clock = req->clock;
	r->w = hwtimer_cdev_wheel(req->clock);
	r->sq_entries = req->sq_entries;
	r->cq.entries = req->cq_entries;
	r->nslots = req->slots;
	r->map_size = map_size(r->sq_entries, r->cq.entries);
	r->slots = kvcalloc(r->nslots, sizeof(*r->slots), GFP_KERNEL_ACCOUNT);
	r->win = kvcalloc(r->sq_entries, sizeof(*r->win), GFP_KERNEL_ACCOUNT);
	r->link = kvcalloc(r->sq_entries, sizeof(*r->link), GFP_KERNEL_ACCOUNT);
	r->last = kvcalloc(r->nslots, sizeof(*r->last), GFP_KERNEL_ACCOUNT);
	/* Charged to the caller's memcg; hwtimer_ring_mmap() maps its pages. */
	r->mem = __vmalloc(r->map_size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	ret = r->slots && r->mem && r->win && r->link && r->last ?
	      hwtimer_cdev_tag_alloc(ctx, r, &r->id_tag) : -ENOMEM;
	if (ret) {
		ring_destroy(r);
		return ERR_PTR(ret);
	}
	ring_layout(r);
	slots_init(r);
	return r;
}

/* Publish the kernel's copy of the header flags. */
static void set_flags(struct hwt_ring *r, u32 flags)
{
	lockdep_assert_held(&r->drain_mutex);
	r->flags = flags;
	WRITE_ONCE(*r->sq_flags, flags);
}

/*
 * Arm @d's pass unless it is on: its deadlines fall on the drain wheel's
 * tick starts, a tick apart. Caller holds d->lock. Return: false when the
 * wheel refused.
 */
static bool pass_on(struct hwt_drains *d)
{
	struct hwtimer_wheel *w = hwtimer_cdev_drain_wheel();
	u64 tick = hwtimer_wheel_tick_ns(w);
	u64 at = hwtimer_wheel_now(w) + tick;
	int ret;

	lockdep_assert_held(&d->lock);
	if (d->on)
		return true;
	at = div64_u64(at + tick - 1, tick) * tick;
	ret = hwtimer_arm(w, &d->pass, at, tick, HWTIMER_ARM_ABS);
	if (ret && ret != -EBUSY)
		return false;
	d->on = true;
	return true;
}

/* Take @r off @d's list if it is on it. Caller holds d->lock. */
static void drain_unlist(struct hwt_drains *d, struct hwt_ring *r)
{
	lockdep_assert_held(&d->lock);
	if (list_empty(&r->drain_node))
		return;
	list_del_init(&r->drain_node);
	d->nrings--;
}

/*
 * Put the periodic drain on (again): the ring joins its user's list, at
 * the back, and the user's pass is armed. Should the wheel refuse, leave
 * NEED_WAKEUP set so that the next submission calls ENTER again.
 */
static void drain_start(struct hwt_ring *r)
{
	struct hwt_drains *d = r->drains;
	bool ok;

	lockdep_assert_held(&r->drain_mutex);
	r->idle_drains = 0;
	spin_lock(&d->lock);
	ok = pass_on(d);
	if (ok && list_empty(&r->drain_node)) {
		list_add_tail(&r->drain_node, &d->rings);
		d->nrings++;
	}
	spin_unlock(&d->lock);
	if (!ok) {
		set_flags(r, r->flags | HWTIMER_RING_NEED_WAKEUP);
		return;
	}
	r->drain_on = true;
}

/* Install @r as @ctx's rings, charging its slots. */
static int ring_install(struct hwt_ctx *ctx, struct hwt_ring *r)
{
	int ret = -EBUSY;

	spin_lock(&ctx->wqh.lock);
	if (!ctx->ring) {
		ret = hwtimer_cdev_reserve(ctx, r->nslots);
		if (!ret) {
			hwtimer_cdev_set_cq(ctx, &r->cq);
			/* Lockless readers (mmap, ENTER) see it set up. */
			smp_store_release(&ctx->ring, r);
		}
	}
	spin_unlock(&ctx->wqh.lock);
	return ret;
}

/**
 * hwtimer_ring_setup() - HWTIMER_IOC_RING_SETUP: create a context's rings
 * @ctx: the context
 * @arg: user pointer to struct hwtimer_ring_setup
 *
 * Context: process context, the ioctl; may sleep.
 * Return: 0; -EFAULT, -EINVAL (bad sizes, slots, clock, flags or reserved
 * words), -EBUSY (rings already set up), -ENOSPC or -EDQUOT (the slots
 * pass the context's or the user's limit), -EMFILE (the user holds
 * max_user_contexts tags), -ENFILE (no tag is free), -ENOMEM.
 */
long hwtimer_ring_setup(struct hwt_ctx *ctx, void __user *arg)
{
	struct hwtimer_ring_setup req;
	struct hwt_ring *r;
	int ret;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	ret = setup_check(&req);
	if (ret)
		return ret;
	/* Early answer only: ring_install() decides under the lock. */
	if (smp_load_acquire(&ctx->ring))
		return -EBUSY;
	r = ring_alloc(ctx, &req);
	if (IS_ERR(r))
		return PTR_ERR(r);
	setup_answer(r, &req);
	/* An answer that cannot be written back: the rings never existed. */
	if (copy_to_user(arg, &req, sizeof(req))) {
		ret = -EFAULT;
		goto err_destroy;
	}
	ret = ring_install(ctx, r);
	if (ret)
		goto err_destroy;
	mutex_lock(&r->drain_mutex);
	drain_start(r);
	mutex_unlock(&r->drain_mutex);
	return 0;

err_destroy:
	ring_destroy(r);
	return ret;
}

/**
 * hwtimer_ring_mmap() - map a context's rings
 * @ctx: the context
 * @vma: a shared mapping at offset 0, no longer than the setup's map_size
 *
 * Context: the mmap() file operation.
 * Return: 0; -EINVAL before setup, at another offset, for a private or
 * too long mapping; -ENOMEM.
 */
int hwtimer_ring_mmap(struct hwt_ctx *ctx, struct vm_area_struct *vma)
{
	/* Pairs with ring_install(): the ring is set up when seen. */
	struct hwt_ring *r = smp_load_acquire(&ctx->ring);

	unsigned long addr;
	void *kaddr;
	int ret;

	if (!r || vma->vm_pgoff || !(vma->vm_flags & VM_SHARED) ||
	    vma->vm_end - vma->vm_start > r->map_size)
		return -EINVAL;
	kaddr = r->mem;
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vm_insert_page(vma, addr, vmalloc_to_page(kaddr));
		if (ret)
			return ret;
		kaddr += PAGE_SIZE;
	}
	return 0;
}

/* Copy entry @idx of the submission ring once, word by word. */
static void sqe_copy(const struct hwt_ring *r, u32 idx,
		     struct hwtimer_sqe *sqe)
{
	const u64 *src = (const u64 *)&r->sqes[idx & (r->sq_entries - 1)];
	union {
		struct hwtimer_sqe sqe;
		u64 w[sizeof(struct hwtimer_sqe) / sizeof(u64)];
	} u;
	size_t i;

	BUILD_BUG_ON(sizeof(struct hwtimer_sqe) != 48);
	for (i = 0; i < ARRAY_SIZE(u.w); i++)
		u.w[i] = READ_ONCE(src[i]);
	*sqe = u.sqe;
}

/* Check an entry as copied. Return: 0 or -EINVAL. */
static int sqe_check(const struct hwt_ring *r, const struct hwtimer_sqe *sqe)
{
	if (sqe->op == HWTIMER_OP_NOP)
		return 0;
	if (sqe->flags || sqe->resv || sqe->reserved ||
	    sqe->slot >= r->nslots)
		return -EINVAL;
	switch (sqe->op) {
	case HWTIMER_OP_ARM:
		if (sqe->period_ns &&
		    sqe->period_ns < hwtimer_wheel_tick_ns(r->w))
			return -EINVAL;
		return 0;
	case HWTIMER_OP_CANCEL:
		return sqe->deadline_ns || sqe->period_ns ? -EINVAL : 0;
	case HWTIMER_OP_MODIFY:
		return sqe->period_ns ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* Complete entry @sqe with @res; @last: its slot became idle. */
static void sqe_complete(struct hwt_ring *r, const struct hwtimer_sqe *sqe,
			 s64 res, bool last)
{
	struct hwtimer_event ev = {
		.id = sqe->slot,
		.cookie = sqe->cookie,
		.res = res,
		.clock = r->clock,
		.flags = HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE |
			 ((sqe->op << HWTIMER_EVENT_OP_SHIFT) &
			  HWTIMER_EVENT_OP_MASK),
	};

	if (last)
		ev.flags |= HWTIMER_EVENT_LAST;
	hwtimer_cdev_cq_push(r->ctx, &ev);
}

/* The deadline of ARM or MODIFY @sqe on the host's clock. */
static u64 sqe_deadline(const struct hwt_ring *r, const struct hwtimer_sqe *sqe)
{
	return hwtimer_cdev_host_time(r->ctx, r->clock, sqe->deadline_ns);
}

/* Arm the slot of ARM @sqe. */
static int sqe_arm(struct hwt_ring *r, const struct hwtimer_sqe *sqe)
{
	struct hwt_timer *ht = &r->slots[sqe->slot].ht;

	if (ht->linked || ht->queued)
		return -EBUSY;
	ht->cookie = sqe->cookie;
	ht->periodic = sqe->period_ns != 0;
	return hwtimer_cdev_start_locked(r->ctx, ht, sqe_deadline(r, sqe),
					 sqe->period_ns, HWTIMER_ARM_ABS);
}

/* Apply CANCEL or MODIFY @sqe to its slot, and complete it as needed. */
static void sqe_cancel_modify(struct hwt_ring *r,
			      const struct hwtimer_sqe *sqe)
{
	struct hwt_timer *ht = &r->slots[sqe->slot].ht, *reap = NULL;
	u32 result = HWTIMER_RESULT_NOT_PENDING;
	int ret = 0;

	if (!ht->linked) {
		sqe_complete(r, sqe, result, false);
		return;
	}
	/*
	 * A one-shot whose deadline has passed is served first: its record
	 * leaves the completion ring the place this entry's completion needs.
	 */
	r->cq.reserved++;
	if (sqe->op == HWTIMER_OP_CANCEL)
		ret = hwtimer_cdev_cancel_locked(r->ctx, ht, &result, &reap);
	else
		ret = hwtimer_cdev_modify_locked(r->ctx, ht,
						 sqe_deadline(r, sqe),
						 HWTIMER_ARM_ABS, &result,
						 &reap);
	r->cq.reserved--;
	/* Slots are never dead, so never reaped. */
	WARN_ON_ONCE(reap);
	/* A slot that fired says its last in its expiry's record. */
	if (ret || result != HWTIMER_RESULT_MODIFIED)
		sqe_complete(r, sqe, ret ? ret : result,
			     result != HWTIMER_RESULT_FIRED &&
			     !ht->linked && !ht->queued);
}

/*
 * Pair, in the @n entries of r->win, each valid ARM with a valid CANCEL of
 * its slot that follows it with no entry naming the slot in between: the
 * two may cancel out without the wheel (see sqe_run()).
 */
static void pair_entries(struct hwt_ring *r, u32 n)
{
	const struct hwtimer_sqe *e;
	bool ok;
	u32 i, p;

	for (i = 0; i < n; i++) {
		e = &r->win[i];
		if (e->slot >= r->nslots || e->op == HWTIMER_OP_NOP)
			continue;
		ok = !(r->link[i] & HWT_RING_BAD);
		p = r->last[e->slot];
		if (p && ok && e->op == HWTIMER_OP_CANCEL)
			r->link[p - 1] = i + 1;
		r->last[e->slot] = ok && e->op == HWTIMER_OP_ARM ? i + 1 : 0;
	}
	for (i = 0; i < n; i++)
		if (r->win[i].slot < r->nslots)
			r->last[r->win[i].slot] = 0;
}

/*
 * Apply entry @i of r->win, checked as it was copied; the completion ring
 * has room for its completion. An ARM paired with a later CANCEL of its idle slot is
 * deferred: the CANCEL then completes CANCELLED at once, and neither
 * touches the queue, as if the CANCEL had come right after the ARM.
 * Caller holds ctx->wqh.lock. Return: 0, or %HWT_RING_DEFER for a
 * deferred ARM, which keeps its place in the completion ring until its
 * CANCEL or undefer().
 */
static int sqe_run(struct hwt_ring *r, u32 i)
{
	const struct hwtimer_sqe *sqe = &r->win[i];
	struct hwt_timer *ht;
	int ret = r->link[i] & HWT_RING_BAD ? -EINVAL : 0;

	lockdep_assert_held(&r->ctx->wqh.lock);
	if (sqe->op == HWTIMER_OP_NOP)
		return 0;	/* taken back by userspace: no completion */
	if (!ret && (r->link[i] & HWT_RING_DEFERRED)) {
		/* Its ARM is the last the slot saw, and kept a place. */
		r->link[i] = 0;
		if (r->cq.reserved)
			r->cq.reserved--;
		r->ctx->armed++;
		r->ctx->cancelled++;
		sqe_complete(r, sqe, HWTIMER_RESULT_CANCELLED, true);
		return 0;
	}
	if (!ret && sqe->op != HWTIMER_OP_ARM) {
		sqe_cancel_modify(r, sqe);
		return 0;
	}
	if (!ret && r->link[i]) {
		ht = &r->slots[sqe->slot].ht;
		if (!ht->linked && !ht->queued) {
			r->link[r->link[i] - 1] = (i + 1) | HWT_RING_DEFERRED;
			return HWT_RING_DEFER;
		}
	}
	if (!ret)
		ret = sqe_arm(r, sqe);
	if (ret)
		sqe_complete(r, sqe, ret, false);
	return 0;
}

/*
 * The drain stops before entry @from of r->win, of @n: arm for real the
 * deferred ARMs whose CANCEL it will not reach now. Each kept its place
 * in the completion ring, for an error. How many there are is the
 * process's choice (it decides where the drain stops by moving its cq
 * head), so the locks are let go every HWT_RING_CHUNK arms, as a drain
 * lets go every HWT_RING_CHUNK entries: an interrupts-off section never
 * grows with the ring. Caller holds drain_mutex, which keeps r->win and
 * r->link the drain's own meanwhile.
 */
static void undefer(struct hwt_ring *r, u32 from, u32 n)
{
	struct hwt_ctx *ctx = r->ctx;
	const struct hwtimer_sqe *sqe;
	u32 j, armed = 0;
	int ret;

	lockdep_assert_held(&r->drain_mutex);
	spin_lock(&ctx->wqh.lock);
	for (j = from; j < n; j++) {
		if (!(r->link[j] & HWT_RING_DEFERRED))
			continue;
		sqe = &r->win[(r->link[j] & ~HWT_RING_DEFERRED) - 1];
		r->link[j] = 0;
		if (r->cq.reserved)
			r->cq.reserved--;
		ret = sqe_arm(r, sqe);
		if (ret)
			sqe_complete(r, sqe, ret, false);
		if (++armed % HWT_RING_CHUNK)
			continue;
		spin_unlock(&ctx->wqh.lock);
		cond_resched();
		spin_lock(&ctx->wqh.lock);
	}
	spin_unlock(&ctx->wqh.lock);
}

/*
 * Apply entries @from to @to of r->win, stopping when the completion ring
 * is full. Each consumed entry gives back its place kept in the
 * completion ring. Return: how many were consumed.
 */
static u32 drain_chunk(struct hwt_ring *r, u32 from, u32 to)
{
	struct hwt_ctx *ctx = r->ctx;
	u32 i, cq_was;
	int ret;

	lockdep_assert_held(&r->drain_mutex);
	spin_lock(&ctx->wqh.lock);
	cq_was = r->cq.next;
	for (i = from; i < to && hwtimer_cdev_cq_space(r->ctx); i++) {
		ret = sqe_run(r, i);
		if (ret != HWT_RING_DEFER && r->cq.reserved)
			r->cq.reserved--;
	}
	if (r->cq.next != cq_was)
		hwtimer_cdev_wake_pollers(ctx);
	spin_unlock(&ctx->wqh.lock);
	return i - from;
}

/*
 * Keep @n places of the completion ring for this drain if it has them, so
 * that it consumes every entry (unless a MODIFY waits) and may pair ARMs
 * with CANCELs. Return: whether it does.
 */
static bool cq_reserve(struct hwt_ring *r, u32 n)
{
	struct hwt_ctx *ctx = r->ctx;
	bool ok;

	spin_lock(&ctx->wqh.lock);
	ok = hwtimer_cdev_cq_space(r->ctx) >= n;
	r->cq.reserved = ok ? n : 0;
	spin_unlock(&ctx->wqh.lock);
	return ok;
}

static void cq_unreserve(struct hwt_ring *r)
{
	spin_lock(&r->ctx->wqh.lock);
	r->cq.reserved = 0;
	spin_unlock(&r->ctx->wqh.lock);
}

/*
 * How many of the @n entries from r->sq_next, up to @tail, a periodic
 * drain at @now consumes. Those written before the tail a drain read a
 * tick ago or more are due; that drain's reading is then replaced by
 * @tail. Of the others, an ARM whose deadline is more than two ticks away
 * and a NOP may wait for a later drain, as long as every entry after them
 * may too: a timeout cancelled meanwhile is taken back from the ring and
 * never reaches the wheel, and one that is not enters the wheel before
 * its deadline is near. Any other entry is due, with all before it.
 * Entries are read here only to choose the bound, which userspace's
 * writes can only make nearer or further: those consumed are copied and
 * checked after the claim like any other. Their deadlines are on the
 * clock of the context's time namespace, @near too.
 */
static u32 drain_bound(struct hwt_ring *r, u32 tail, u32 n, u64 now)
{
	u64 tick = hwtimer_wheel_tick_ns(r->w);
	u64 near = hwtimer_cdev_user_time(r->ctx, r->clock, now + 2 * tick);
	const struct hwtimer_sqe *e;
	u32 old = 0, i, op;
	s32 seen;

	if (now - r->seen_ns >= tick) {
		seen = r->sq_seen - r->sq_next;
		old = seen > 0 ? seen : 0;
		r->sq_seen = tail;
		r->seen_ns = now;
	}
	if (old >= n)
		return n;
	for (i = n; i > old; i--) {
		e = &r->sqes[(r->sq_next + i - 1) & (r->sq_entries - 1)];
		op = READ_ONCE(e->op);
		if (op != HWTIMER_OP_NOP &&
		    (op != HWTIMER_OP_ARM ||
		     READ_ONCE(e->deadline_ns) < near))
			break;
	}
	return i;
}

/*
 * How many of the @n entries up to @tail a periodic drain consumes: no
 * more than HWT_RING_DRAIN_BUDGET, drain_bound() and the user's budget
 * for this tick allow. Where either budget cuts it short, NEED_WAKEUP asks
 * the process for ENTER.
 */
static u32 drain_budget(struct hwt_ring *r, u32 tail, u32 n)
{
	u64 now = hwtimer_wheel_now(r->w);
	u64 tick = div64_u64(now, hwtimer_wheel_tick_ns(r->w));
	u32 got;

	lockdep_assert_held(&r->drain_mutex);
	if (n > HWT_RING_DRAIN_BUDGET) {
		n = HWT_RING_DRAIN_BUDGET;
		set_flags(r, r->flags | HWTIMER_RING_NEED_WAKEUP);
	}
	n = drain_bound(r, tail, n, now);
	if (!n)
		return 0;
	got = hwtimer_cdev_budget_take(r->ctx, tick, n);
	if (got < n)
		set_flags(r, r->flags | HWTIMER_RING_NEED_WAKEUP);
	return got;
}

/*
 * Consume what the sq tail, read once, says is there, at most the ring's
 * size, and for a periodic drain (@all false) what drain_budget() allows:
 * copy and check it once into r->win, pair ARMs with CANCELs when the
 * completion ring has room for all of it, then apply it a chunk at a
 * time. ENTER (@all) stops between chunks when its caller is killed.
 * Caller holds drain_mutex. Return: entries consumed.
 */
static u32 ring_drain(struct hwt_ring *r, bool all)
{
	/* Pairs with userspace's release of the entries it wrote. */
	u32 tail = smp_load_acquire(r->sq_tail);
	u32 n = tail - r->sq_next, done = 0, k, want, i;

	lockdep_assert_held(&r->drain_mutex);
	if (n > r->sq_entries) {
		/* No ring holds that many: skip to the tail, consume nothing. */
		r->dropped++;
		WRITE_ONCE(*r->sq_dropped, r->dropped);
		r->sq_next = tail;
		/* As below, though nothing was read. */
		smp_store_release(r->sq_head, r->sq_next);
		return 0;
	}
	if (!all && n)
		n = drain_budget(r, tail, n);
	/*
	 * Claim the entries before copying them: userspace may take back an
	 * entry at or past the claim by making it a NOP, then a full barrier,
	 * then a load of the claim. Either it sees this claim (and leaves the
	 * entry to the drain) or the copy below sees its NOP.
	 */
	WRITE_ONCE(*r->sq_claim, r->sq_next + n);
	/* Pairs with userspace's barrier between its NOP and its load. */
	smp_mb();
	/*
	 * Userspace may also take back its last entries by moving the tail
	 * back (HWTIMER_RING_F_RETRACT), with the same barrier and load:
	 * either it sees this claim (and puts the tail back) or this load
	 * sees the tail it moved, and the entries past it are not consumed.
	 * A tail that came back further than that, or went on, changes
	 * nothing: it is only ever a bound.
	 */
	n = min_t(u32, n, smp_load_acquire(r->sq_tail) - r->sq_next);
	for (i = 0; i < n; i++) {
		/* A killed ENTER stops: the rest wait for another drain. */
		if (all && !(i % HWT_RING_COPY_CHUNK) && i &&
		    fatal_signal_pending(current)) {
			n = i;
			break;
		}
		sqe_copy(r, r->sq_next + i, &r->win[i]);
		r->link[i] = sqe_check(r, &r->win[i]) ? HWT_RING_BAD : 0;
	}
	if (n > 1 && cq_reserve(r, n))
		pair_entries(r, n);
	while (done < n) {
		want = min_t(u32, n - done, HWT_RING_CHUNK);
		k = drain_chunk(r, done, done + want);
		r->sq_next += k;
		done += k;
		/* Entries are copied before userspace may reuse their place. */
		smp_store_release(r->sq_head, r->sq_next);
		if (k < want)
			break;	/* the completion ring is full */
		if (all && fatal_signal_pending(current))
			break;
		cond_resched();
	}
	if (done < n)
		undefer(r, done, n);
	cq_unreserve(r);
	return done;
}

/*
 * After a drain that consumed nothing, from the drain's own callback: stop
 * the periodic drain if the ring is still empty once NEED_WAKEUP is
 * visible; else take the flag back.
 */
static void drain_stop_if_idle(struct hwt_ring *r)
{
	lockdep_assert_held(&r->drain_mutex);
	if (READ_ONCE(*r->sq_tail) != r->sq_next)
		return;
	set_flags(r, r->flags | HWTIMER_RING_NEED_WAKEUP);
	/* Pairs with userspace's barrier between its tail and flags. */
	smp_mb();
	if (READ_ONCE(*r->sq_tail) != r->sq_next) {
		set_flags(r, r->flags & ~HWTIMER_RING_NEED_WAKEUP);
		return;
	}
	/* The series ends, ENTER restarts it. */
	spin_lock(&r->drains->lock);
	drain_unlist(r->drains, r);
	spin_unlock(&r->drains->lock);
	r->drain_on = false;
}

/* A periodic drain of @r, from its user's pass. */
static void ring_drain_periodic(struct hwt_ring *r)
{
	u32 n;

	lockdep_assert_held(&r->drain_mutex);
	n = ring_drain(r, false);
	/* Entries left to a later drain: the process is at work. */
	if (n || READ_ONCE(*r->sq_tail) != r->sq_next)
		r->idle_drains = 0;
	else if (++r->idle_drains >= HWT_RING_IDLE_DRAINS)
		drain_stop_if_idle(r);
}

/*
 * Callback of a user's pass, on a shared worker of the drain wheel, a
 * tick apart while any of the user's rings has its periodic drain on: it
 * drains HWT_DRAIN_VISITS of them at most, in turn, each going to the
 * back of the list as it is taken. However many rings a user opens, they
 * cost the shared threads this one callback a tick, a bounded number of
 * drains and the user's budget of entries; with more rings than that, a
 * ring's turn comes every few ticks. It never sleeps on a process: a ring
 * an ENTER drains (holding drain_mutex for as long as its thread is kept
 * off the CPU) is passed over. A ring it took stays allocated until it
 * returns: hwtimer_ring_stop() waits for it.
 */
static void drains_pass_fn(struct hwtimer_timeout *t)
{
	struct hwt_drains *d = container_of(t, struct hwt_drains, pass);
	struct hwt_ring *r;
	u32 visits, i;

	spin_lock(&d->lock);
	visits = min_t(u32, d->nrings, HWT_DRAIN_VISITS);
	spin_unlock(&d->lock);
	for (i = 0; i < visits; i++) {
		spin_lock(&d->lock);
		r = list_first_entry_or_null(&d->rings, struct hwt_ring,
					     drain_node);
		if (r)
			list_move_tail(&r->drain_node, &d->rings);
		spin_unlock(&d->lock);
		if (!r)
			break;
		if (!mutex_trylock(&r->drain_mutex))
			continue;
		ring_drain_periodic(r);
		mutex_unlock(&r->drain_mutex);
		cond_resched();
	}
	/* From its own callback: the pass ends, a drain_start() re-arms it. */
	spin_lock(&d->lock);
	if (list_empty(&d->rings)) {
		hwtimer_cancel(t);
		d->on = false;
	}
	spin_unlock(&d->lock);
}

/**
 * hwtimer_drains_init() - set up the periodic drains of a user's rings
 * @d: the user's, not yet in use
 */
void hwtimer_drains_init(struct hwt_drains *d)
{
	spin_lock_init(&d->lock);
	INIT_LIST_HEAD(&d->rings);
	hwtimer_timeout_init(&d->pass, drains_pass_fn, 0);
}

/**
 * hwtimer_drains_exit() - stop a user's pass, the user's last ring gone
 * @d: the user's
 *
 * Context: process context; may sleep.
 */
void hwtimer_drains_exit(struct hwt_drains *d)
{
	WARN_ON_ONCE(!list_empty(&d->rings));
	hwtimer_cancel_sync(&d->pass);
}

/**
 * hwtimer_ring_enter() - HWTIMER_IOC_ENTER: drain the submission ring now
 * @ctx: the context
 * @arg: user pointer to struct hwtimer_ring_enter
 *
 * Clears NEED_WAKEUP, drains, and restarts the periodic drain.
 *
 * Context: process context, the ioctl; may sleep.
 * Return: entries consumed; -EFAULT; -EINVAL for flags, reserved words or
 * a context without rings; -ERESTARTSYS if a signal came while waiting for
 * another drain (nothing was consumed).
 */
long hwtimer_ring_enter(struct hwt_ctx *ctx, void __user *arg)
{
	/* Pairs with ring_install(): the ring is set up when seen. */
	struct hwt_ring *r = smp_load_acquire(&ctx->ring);
	struct hwtimer_ring_enter req;
	u32 n;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.resv ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)) || !r)
		return -EINVAL;
	if (mutex_lock_interruptible(&r->drain_mutex))
		return -ERESTARTSYS;
	set_flags(r, r->flags & ~HWTIMER_RING_NEED_WAKEUP);
	n = ring_drain(r, true);
	drain_start(r);
	mutex_unlock(&r->drain_mutex);
	/* The expiries due now are served on the caller's time. */
	if (hwtimer_cdev_collect(ctx) && !n)
		return -EINTR;
	return n;
}

/**
 * hwtimer_ring_stop() - stop the drain of a context's rings
 * @ctx: the context, being released
 *
 * Afterwards the drain does not run and will not run, so nothing arms
 * the slots.
 *
 * Context: release; may sleep.
 */
void hwtimer_ring_stop(struct hwt_ctx *ctx)
{
	struct hwt_ring *r = ctx->ring;
	struct hwt_drains *d;

	if (!r)
		return;
	d = r->drains;
	spin_lock(&d->lock);
	drain_unlist(d, r);
	spin_unlock(&d->lock);
	/* A pass that took the ring before returns before it is freed. */
	hwtimer_cancel_sync(&d->pass);
	spin_lock(&d->lock);
	d->on = false;
	/* Should the wheel refuse, the rings' next ENTER tries again. */
	if (!list_empty(&d->rings))
		pass_on(d);
	spin_unlock(&d->lock);
}

/**
 * hwtimer_ring_free() - free a context's rings
 * @ctx: the context, being released, after hwtimer_ring_stop()
 *
 * Their places in the limits are given back with the context's.
 *
 * Context: release; may sleep.
 */
void hwtimer_ring_free(struct hwt_ctx *ctx)
{
	if (ctx->ring)
		ring_destroy(ctx->ring);
}
