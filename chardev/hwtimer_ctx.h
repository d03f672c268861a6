/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_ctx.h - the context of an open /dev/hwtimer (hwtimer_ctx.c), as
 * its front-ends use it: the file operations and ioctls
 * (hwtimer_chardev.c) and the timer rings (hwtimer_ring.c). Not an API;
 * the rules are in hwtimer_ctx.c's header comment. The context calls
 * neither front-end.
 */
#ifndef _HWTIMER_CTX_H
#define _HWTIMER_CTX_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer.h"
#include "hwtimer_ids.h"

struct hwt_ring;
struct hwt_ctx;
struct iov_iter;

/* Queues of a context: CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME. */
#define HWT_QUEUES		3

/**
 * struct hwt_drains - the periodic drains of one user's timer rings
 * @lock: protects @rings, @nrings and @on
 * @rings: the rings whose periodic drain is on, the next to drain first
 * @nrings: how many
 * @on: @pass is armed, or its running callback goes on
 * @pass: a tick apart on the drain wheel while @rings is not empty: drains
 *	some of them, in turn
 */
struct hwt_drains {
	spinlock_t lock;	/* the list, its count and @on */
	struct list_head rings;
	u32 nrings;
	bool on;
	struct hwtimer_timeout pass;
};

/**
 * struct hwt_user - what one user's contexts hold, for max_user_timeouts
 * @node: link in hwt_users
 * @uid: the user
 * @ref: contexts of the user that are open
 * @live: live timeouts of all those contexts
 * @tags: id tags those contexts and their rings hold, for max_user_contexts
 * @budget: work the user's timer rings had done on shared threads in one
 *	tick: the tick's index above %HWT_BUDGET_SHIFT, the work below
 * @drains: the periodic drains of the user's timer rings
 */
struct hwt_user {
	struct hlist_node node;
	kuid_t uid;
	refcount_t ref;
	atomic_long_t live;
	atomic_long_t tags;
	atomic64_t budget;
	struct hwt_drains drains;
};

/**
 * struct hwt_cq - the completion ring of a context's timer rings
 * @head: in the shared region: userspace's cq head
 * @tail: in the shared region: the kernel's cq tail, published
 * @overflow_at: in the shared region: @overflow, published
 * @ev_queued: in the shared region: the context's records waiting for
 *	read(), published
 * @cqes: in the shared region: the ring
 * @entries: its size, a power of two
 * @next: the kernel's cq tail
 * @reserved: places kept for the drain under way, which expiries leave
 *	alone
 * @overflow: expiries that found the ring full, or came past the user's
 *	budget
 *
 * Part of the rings (hwtimer_ring.c), which set it up; written under the
 * context's lock, by the context's serving of expiries (hwtimer_ctx.c) and
 * the rings' answers to entries.
 */
struct hwt_cq {
	u32 *head;
	u32 *tail;
	u32 *overflow_at;
	u32 *ev_queued;
	struct hwtimer_event *cqes;
	u32 entries;
	u32 next;
	u32 reserved;
	u32 overflow;
};

/**
 * struct hwt_queue - a context's pending timeouts of one clock
 * @root: the timers, by deadline, the earliest cached
 * @wake: the context's one entry on the clock's shared wheel, at the
 *	earliest deadline (or earlier): its callback wakes the context's
 *	readers, and serves expiries only for timer rings, within their
 *	user's budget
 * @ctx: the context
 * @wake_at: the deadline @wake is armed for, 0 when it is not
 * @woke_ns: when @wake's latest callback ran, the fire time of the
 *	expiries it found due
 * @clock: the clock
 *
 * Under ctx->wqh.lock.
 */
struct hwt_queue {
	struct rb_root_cached root;
	struct hwtimer_timeout wake;
	struct hwt_ctx *ctx;
	u64 wake_at;
	u64 woke_ns;
	u32 clock;
};

/**
 * struct hwt_ctx - one open /dev/hwtimer
 * @wqh: readers and pollers wait here; its lock protects every other field
 *	but @read_mutex, @fasync, @user, @tns_off, @tag, @cos_mutex,
 *	@cos_node and @cos_listed (under @cos_mutex), and the state
 *	fields of every hwt_timer of the context
 * @read_mutex: one read() at a time: the records it copies out stay at the
 *	head of the event list until it takes them off
 * @fasync: O_ASYNC listeners, signalled on every expiry
 * @user: the user charged for the context's timeouts
 * @tns_off: the opener's time namespace: its clocks' offsets from the
 *	host's, in ns, CLOCK_MONOTONIC's and CLOCK_BOOTTIME's (index: is it
 *	CLOCK_BOOTTIME); fixed at open, as a namespace's offsets are once a
 *	process is in it
 * @tag: this context's tag, the top bits of its ids
 * @ids: the id table of the linked hwt_timers, by their @id fields
 * @ev_head: first hwt_timer whose record waits to be read (oldest), or NULL
 * @ev_tail: the next pointer the following record is linked to
 * @evfd: eventfd signalled on every expiry, or NULL
 * @pending: timeouts waiting to fire (a periodic one until it is gone)
 * @queued: records waiting to be read
 * @live: timeouts counted against ctx_max_pending (linked or queued)
 * @armed: successful arms, ever
 * @fired: expiries delivered or folded into overruns, ever
 * @cancelled: cancels that stopped a timeout, ever
 * @read: records read, ever
 * @ring: the timer rings, or NULL before HWTIMER_IOC_RING_SETUP; set once,
 *	under the lock, and freed only at release
 * @cq: their completion ring, set with @ring
 * @spare: dead one-shot timers kept for the context's next arms, a stack
 *	through their @next, under the lock; at most HWT_SPARE_MAX
 * @spare_extra: more of them, each charged to @user as a live timeout
 * @nspare: how many in both
 * @nextra: how many in @spare_extra
 * @spare_used: a charged spare was taken since @spare_trim last ran
 * @spare_trimming: @spare_trim is queued (or about to queue itself again)
 * @spare_trim: frees @spare_extra once it goes unused for a while
 * @cos_mutex: serialises the arms of cancel-on-set timeouts with the
 *	sweep that cancels them after a set of the wall clock
 * @cos_node: on the list of contexts told of every set, once the context
 *	armed a cancel-on-set timeout
 * @cos_offs: CLOCK_REALTIME's offset from CLOCK_MONOTONIC when the
 *	context's live cancel-on-set timeouts were armed (all of them: a
 *	set since is swept before the next such arm)
 * @cos_live: live timers armed with %HWTIMER_ARM_CANCEL_ON_SET
 * @cos_listed: @cos_node is on the list
 * @q: the pending timeouts, by clock (see clock_queue())
 */
struct hwt_ctx {
	wait_queue_head_t wqh;
	struct mutex read_mutex;	/* one read() at a time */
	struct fasync_struct *fasync;
	struct hwt_user *user;
	s64 tns_off[2];
	u32 tag;
	struct hwtimer_ids ids;
	struct hwt_timer *ev_head;
	struct hwt_timer **ev_tail;
	struct eventfd_ctx *evfd;
	u64 pending;
	u64 queued;
	u64 live;
	u64 armed;
	u64 fired;
	u64 cancelled;
	u64 read;
	struct hwt_ring *ring;
	struct hwt_cq *cq;
	struct hwt_timer *spare;
	struct hwt_timer *spare_extra;
	u32 nspare;
	u32 nextra;
	bool spare_used;
	bool spare_trimming;
	struct delayed_work spare_trim;
	struct mutex cos_mutex;		/* cancel-on-set arms and sweeps */
	struct list_head cos_node;
	s64 cos_offs;
	u32 cos_live;
	bool cos_listed;
	struct hwt_queue q[HWT_QUEUES];
};

/**
 * struct hwt_timer - a timeout of a context
 * @node: in its clock's queue of the context while pending
 * @expires: the deadline on the host's clock: of the pending expiry, else
 *	of the latest one served
 * @period: 0, or the period in ns
 * @ctx: owning context
 * @next: link on the context's event list while queued, or on a reap list
 *	once dead
 * @id: the id user space knows it by
 * @cookie: user space's value, returned in the record
 * @fire_ns: when the latest expiry was served (record's fire_ns)
 * @clock: user space's clock id (CLOCK_MONOTONIC or CLOCK_BOOTTIME)
 * @periodic: this is the @ht of a struct hwt_ptimer
 * @linked: findable by id in @ctx->ids
 * @queued: a record waits on the event list
 * @fired: one-shot whose expiry was served
 * @dead: neither linked nor queued; being freed
 * @dormant: periodic, stopped at its expiry until its record is read
 * @ring: a slot of the context's timer rings (@id is its index): made at
 *	ring setup, freed with the rings, never in the id table and never
 *	dead; @linked then means armed through the ring
 * @cos: armed with %HWTIMER_ARM_CANCEL_ON_SET
 * @clock_set: cancelled by a set of the wall clock: its record says so
 *
 * Every field but @ctx, @id, @cookie, @clock, @periodic and @ring (set
 * before the timer is armed) is under @ctx->wqh.lock. A ring slot's
 * @cookie and @periodic change at each arm, under the lock, while the slot
 * is neither linked nor queued. Nothing but the context's own calls and
 * its queues' wake-ups touches a timer, always under that lock: no
 * callback runs on a timer, so none is ever waited for.
 */
struct hwt_timer {
	struct rb_node node;
	u64 expires;
	u64 period;
	struct hwt_ctx *ctx;
	struct hwt_timer *next;
	u64 id;
	u64 cookie;
	u64 fire_ns;
	u8 clock;
	bool periodic:1;
	bool linked:1;
	bool queued:1;
	bool fired:1;
	bool dead:1;
	bool dormant:1;
	bool ring:1;
	bool cos:1;
	bool clock_set:1;
};

/**
 * struct hwt_ptimer - a periodic timeout of a context
 * @ht: the timer
 * @deadline_ns: record: the latest expiry its callbacks served
 * @overruns: record: expiries folded in since the record was last read
 */
struct hwt_ptimer {
	struct hwt_timer ht;
	u64 deadline_ns;
	u64 overruns;
};

static inline struct hwt_ptimer *to_ptimer(struct hwt_timer *ht)
{
	return container_of(ht, struct hwt_ptimer, ht);
}

/* Ops of a batch copied in and out at a time. */
#define HWT_BATCH_CHUNK		16

/**
 * struct hwt_batch - what hwtimer_cdev_ops() runs a chunk of ops with
 * @w: the wheel of each ARM, room for as many as the chunk has ops
 * @one: timers for its one-shot ARMs, the same room
 * @per: timers for its periodic ARMs, the same room
 * @none: timers in @one
 * @nper: timers in @per
 * @gone: timers of @one used
 * @gper: timers of @per used
 * @now_w: the wheel whose clock was last read for a relative deadline
 * @now: that reading
 * @reap: timers to free once the lock is dropped
 *
 * The arrays are the caller's, sized for its chunks: a single ioctl's
 * hold one op's, BATCH's a chunk's, in its call's frame, which a kernel
 * built with INIT_STACK_ALL_ZERO (Debian's) clears once per call. The
 * rest is zeroed for each chunk.
 */
struct hwt_batch {
	struct hwtimer_wheel **w;
	void **one;
	void **per;
	unsigned int none;
	unsigned int nper;
	unsigned int gone;
	unsigned int gper;
	struct hwtimer_wheel *now_w;
	u64 now;
	struct hwt_timer *reap;
};

/* Are the @n reserved words at @r zero, as every request's must be? */
static inline bool hwt_reserved_zero(const __u64 *r, size_t n)
{
	while (n--)
		if (*r++)
			return false;
	return true;
}

int hwtimer_cdev_init(void);
void hwtimer_cdev_exit(void);
struct hwt_ctx *hwtimer_cdev_ctx_alloc(struct hwt_user *u);
void hwtimer_cdev_ctx_stop(struct hwt_ctx *ctx);
void hwtimer_cdev_ctx_free(struct hwt_ctx *ctx);

u32 hwtimer_cdev_ops(struct hwt_ctx *ctx, struct hwtimer_batch_op *ops,
		     struct hwt_batch *bt, u32 n);
void hwtimer_cdev_withdraw(struct hwt_ctx *ctx, u64 id);
int hwtimer_cdev_cos_sync(struct hwt_ctx *ctx);
ssize_t hwtimer_cdev_read(struct hwt_ctx *ctx, struct iov_iter *to,
			  bool nonblock);
bool hwtimer_cdev_readable(struct hwt_ctx *ctx);

void hwtimer_cdev_set_cq(struct hwt_ctx *ctx, struct hwt_cq *cq);
u32 hwtimer_cdev_cq_space(struct hwt_ctx *ctx);
void hwtimer_cdev_cq_push(struct hwt_ctx *ctx, const struct hwtimer_event *ev);

u64 hwtimer_cdev_max_pending(void);
u32 hwtimer_cdev_budget_take(struct hwt_ctx *ctx, u64 tick, u32 want);
int hwtimer_cdev_tag_alloc(struct hwt_ctx *ctx, void *owner, u32 *tag);
void hwtimer_cdev_tag_free(struct hwt_ctx *ctx, u32 tag);
void hwtimer_cdev_wake_pollers(struct hwt_ctx *ctx);
u64 hwtimer_cdev_host_time(const struct hwt_ctx *ctx, u32 clock, u64 t);
u64 hwtimer_cdev_user_time(const struct hwt_ctx *ctx, u32 clock, u64 t);
struct hwtimer_wheel *hwtimer_cdev_wheel(u32 clock);
struct hwtimer_wheel *hwtimer_cdev_drain_wheel(void);
struct hwt_drains *hwtimer_cdev_drains(struct hwt_ctx *ctx);
void hwtimer_cdev_timer_init(struct hwt_ctx *ctx, struct hwt_timer *ht,
			     u32 clock);
int hwtimer_cdev_reserve(struct hwt_ctx *ctx, u64 n);
void hwtimer_cdev_unreserve(struct hwt_ctx *ctx, u64 n);
int hwtimer_cdev_start_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			      u64 deadline, u64 period, u32 flags);
int hwtimer_cdev_cancel_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			       u32 *result, struct hwt_timer **reap);
int hwtimer_cdev_modify_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			       u64 deadline, u32 flags, u32 *result,
			       struct hwt_timer **reap);
int hwtimer_cdev_collect(struct hwt_ctx *ctx);

#endif /* _HWTIMER_CTX_H */
