// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_ctx.c - the context of an open /dev/hwtimer: its timeouts,
 * their queues and records, and the limits they are charged to.
 *
 * Each open file is a context that arms any number of timeouts and hands
 * their expiries back as fixed-size records through read(), poll() and an
 * optional eventfd. The ABI is in include/uapi/linux/hwtimer.h. Its
 * front-ends, the file operations and ioctls (hwtimer_chardev.c) and the
 * timer rings (hwtimer_ring.c), call the operations here; nothing here
 * calls them. The completion ring the rings share with userspace is the
 * context's (struct hwt_cq): serving an expiry writes its record there.
 *
 * A context serves its own timeouts, as a timerfd does: they wait in a
 * queue of the context per clock (CLOCK_MONOTONIC, CLOCK_BOOTTIME, and
 * absolute CLOCK_REALTIME deadlines), a red-black tree by deadline with
 * the earliest cached, and none of them is on a shared wheel. What the
 * wheels see of a context is one timeout per queue, its wake-up, armed
 * for the queue's earliest deadline on that clock's wheel (the default
 * one, the module's own one for the other of CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME, or the realtime one). Its callback, on the wheel's
 * shared workers, only wakes the context's readers, pollers, eventfd and
 * SIGIO; the expiries are served by the context's own system calls
 * (read(), STATS, CANCEL and MODIFY of a timeout that is due, ENTER),
 * which take what is due off the queue, build its record, and arm the
 * wake-up again for what is left. So what one context costs the shared
 * threads is a callback per tick at most, however many of its timeouts
 * expire, and every per-timeout cost is paid on the time of the process
 * that owns them. The one exception is a context with timer rings
 * (hwtimer_ring.c), whose process may wait on its completion ring
 * without a system call: its wake-up serves expiries into the ring too,
 * within its user's budget of shared-thread work per tick, and comes
 * back a tick later for the rest.
 *
 * A timeout of a context is a struct hwt_timer. It is found by id in the
 * context's id table (hwtimer_ids.c), an array like a file descriptor
 * table whose ids carry the context's tag, the slot's generation and its
 * index: an id of one open context never matches in another, and a stale id
 * matches nothing until its slot has been reused 2^20 times. Tags are
 * handed out cyclically, so a closed context's tag comes back only after
 * 2^20 other opens. Lookup, allocation and release are O(1), a few loads
 * and stores under the context's lock; the table doubles (outside the lock)
 * to keep more slots than the context has live timeouts.
 *
 * The record of an expiry lives inside the hwt_timer, so serving one never
 * allocates: it notes the fire time and links the timer on the context's
 * event list, or, when the record is still unread, only counts an overrun;
 * read() assembles the record. A periodic timer whose record waits to be
 * read stays out of its queue (dormant), as a timerfd does: the read that
 * takes the record counts the periods that passed meanwhile as overruns
 * and queues it for the next one. Memory is bounded by the per-context cap
 * on live timeouts and by a per-user cap across all of a user's contexts
 * (max_user_timeouts, like epoll's max_user_watches). A one-shot timer is
 * 88 bytes (its record's deadline is the timeout's own, its overruns 0); a
 * periodic one is a struct hwt_ptimer of 104 bytes, which keeps the
 * record's deadline and overrun count apart from the timeout's next
 * deadline.
 *
 * Lifetime of a hwt_timer, all under ctx->wqh.lock:
 *
 *	reference		taken			dropped
 *	linked (id table)	ARM			CANCEL, or read() of
 *							a one-shot's record
 *	queued (event list)	served expiry		read()
 *
 * When both are gone the timer is "dead": it goes to the context's spares
 * or on a reap list, freed after the lock is dropped. Nothing runs on a
 * timer outside the context's lock, so nothing is ever waited for.
 * Nothing is read from a timer after the lock that kept it alive is
 * dropped, unless the read mutex keeps it.
 *
 * read() copies records out without the lock: under the context's read
 * mutex it assembles records from the head of the event list, copies them,
 * and only then takes the ones that reached the caller off the list. A
 * fault part way loses nothing: the records not copied stay queued.
 *
 * The timer rings (hwtimer_ring.c) add timers of another kind, ring slots:
 * made at ring setup and freed with the rings at release, never in the id
 * table and never dead. For them "linked" means armed through the ring.
 * Their expiries go to the completion ring when it has room, else onto the
 * event list like any other record; the ring arms, cancels and moves them
 * with the same helpers as the ioctls, under the same lock.
 */
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/pvclock_gtod.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer.h"
#include "hwtimer_ctx.h"
#include "hwtimer_compat.h"
#include "hwtimer_ids.h"
#include "hwtimer_internal.h"
#include "hwtimer_trace.h"

static unsigned long ctx_max_pending = 262144;
hwtimer_param_ranged(ctx_max_pending, ctx_max_pending, 1,
		     HWTIMER_IDS_MAX - 1, 0644);
MODULE_PARM_DESC(ctx_max_pending,
		 "Most live timeouts per open /dev/hwtimer (pending or unread; 1 - 16777215, default 262144)");

/* Set at init to 4% of RAM at 128 bytes a timeout, unless given. */
static unsigned long max_user_timeouts;
hwtimer_param_ranged(max_user_timeouts, max_user_timeouts, 1, ULONG_MAX,
		     0644);
MODULE_PARM_DESC(max_user_timeouts,
		 "Most live timeouts per user across all open /dev/hwtimer, spare timers past a context's first 1024 counted as live (default: 4% of RAM at 128 bytes each)");

/*
 * Each open context and each set of timer rings holds one of the 2^20 id
 * tags, which all users share: a user may hold a sixteenth of them, as
 * inotify caps a user's instances, so no one user can make another's
 * open fail.
 */
static unsigned long max_user_contexts = 65536;
hwtimer_param_ranged(max_user_contexts, max_user_contexts, 1,
		     BIT(HWTIMER_IDS_TAG_BITS) - 1, 0644);
MODULE_PARM_DESC(max_user_contexts,
		 "Most open /dev/hwtimer contexts plus timer rings per user (1 - 1048575, default 65536)");

/* Records read() assembles under the lock before copying them out. */
#define HWT_READ_CHUNK		8
/* Records a walk of the event list passes in one hold of the lock. */
#define HWT_WALK_CHUNK		256
/* Expiries served in one hold of the lock. */
#define HWT_SERVE_CHUNK		16
/*
 * Expiries a wake-up serves into a context's timer rings at most, within
 * its user's budget (hwtimer_cdev_budget_take()); it comes back a tick
 * later for the rest, unless a call of the context serves them first.
 */
#define HWT_WAKE_SERVE		64
/*
 * Dead one-shot timers a context keeps for its next arms (128 bytes each):
 * those arms skip the slab's allocation and free, and the clearing of
 * every object that init_on_alloc (on in Debian's kernels) costs.
 * HWT_SPARE_MAX are kept free of charge. Beyond them, a context keeps as
 * many as ctx_max_pending more, each counted against its user's
 * max_user_timeouts as a live timeout is, for as long as it takes some of
 * them again: HWT_SPARE_IDLE without that frees them. A few under KASAN,
 * which sees a use after free only of timers freed to the slab: enough to
 * test the spares, few enough that most timers go there.
 */
#ifdef CONFIG_KASAN
#define HWT_SPARE_MAX		16
#define HWT_SPARE_CHARGED	false
#else
#define HWT_SPARE_MAX		1024
#define HWT_SPARE_CHARGED	true
#endif
#define HWT_SPARE_IDLE		HZ

/*
 * Entries the periodic drains of one user's rings consume, and periodic
 * expiries they put into completion rings, in one tick, on shared
 * threads, however many contexts the user opens.
 */
#define HWT_USER_BUDGET		256
#define HWT_BUDGET_SHIFT	20

/* Tags of open contexts, handed out cyclically. */
static DEFINE_XARRAY_ALLOC1(hwt_tags);
static u32 hwt_next_tag;

/* Caches of one-shot (struct hwt_timer) and periodic (hwt_ptimer) timers. */
static struct kmem_cache *hwt_cache;
static struct kmem_cache *hwt_pcache;
/*
 * The wheel of the other clock than the default wheel's (CLOCK_BOOTTIME
 * unless the module's clock parameter makes that the default's), with the
 * default wheel's tick and workers and one base.
 */
static struct hwtimer_wheel *hwt_own_wheel;
/*
 * The wheel of absolute CLOCK_REALTIME deadlines (HWTIMER_WHEEL_REALTIME),
 * with the default wheel's tick and workers and one base.
 */
static struct hwtimer_wheel *hwt_rt_wheel;
/*
 * The wheel the users' passes of ring drains run on: one base, whose
 * workers run on any CPU. A drain then runs where the scheduler finds
 * room, mostly not on the CPU of the thread filling the ring.
 */
static struct hwtimer_wheel *hwt_drain_wheel;

/* The wheel of @clock: the default one or ours; NULL for another clock. */
static struct hwtimer_wheel *clock_wheel(u32 clock)
{
	struct hwtimer_wheel *def = hwtimer_default_wheel();

	if (clock == CLOCK_REALTIME)
		return hwt_rt_wheel;
	if (clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME)
		return NULL;
	return hwtimer_wheel_clock(def) == clock ? def : hwt_own_wheel;
}

/*
 * The clock an arm runs on: a relative arm on CLOCK_REALTIME runs on
 * CLOCK_MONOTONIC, as timerfd's and POSIX timers' do, so that setting the
 * wall clock leaves its length alone; its records say CLOCK_MONOTONIC.
 */
static u32 arm_clock(u32 clock, u32 flags)
{
	if (clock == CLOCK_REALTIME && !(flags & HWTIMER_ARM_ABS))
		return CLOCK_MONOTONIC;
	return clock;
}

/**
 * hwtimer_cdev_max_pending() - the cap on live timeouts of one context
 *
 * Return: the module parameter ctx_max_pending as it is now.
 */
u64 hwtimer_cdev_max_pending(void)
{
	return READ_ONCE(ctx_max_pending);
}

/**
 * hwtimer_cdev_wheel() - the wheel /dev/hwtimer runs timeouts of @clock on
 * @clock: a clock id
 *
 * Return: the wheel, or NULL for a clock other than CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME and CLOCK_REALTIME.
 */
struct hwtimer_wheel *hwtimer_cdev_wheel(u32 clock)
{
	return clock_wheel(clock);
}

/**
 * hwtimer_cdev_drain_wheel() - the wheel the rings' periodic drains run on
 *
 * CLOCK_MONOTONIC, with hwtimer_cdev_wheel(CLOCK_MONOTONIC)'s tick and a
 * single base.
 *
 * Return: the wheel.
 */
struct hwtimer_wheel *hwtimer_cdev_drain_wheel(void)
{
	return hwt_drain_wheel;
}

/**
 * hwtimer_cdev_drains() - the periodic drains of a context's user's rings
 * @ctx: the context
 *
 * Return: them; they live as long as the context.
 */
struct hwt_drains *hwtimer_cdev_drains(struct hwt_ctx *ctx)
{
	return &ctx->user->drains;
}

static int drain_wheel_create(void)
{
	struct hwtimer_wheel_params p = {
		.name = "chardev-drain",
		.clock = CLOCK_MONOTONIC,
	};
	struct hwtimer_wheel *drain;

	hwtimer_default_wheel_like(&p);
	p.tick_ns = hwtimer_wheel_tick_ns(clock_wheel(CLOCK_MONOTONIC));
	p.flags = 0;
	drain = hwtimer_wheel_create(&p);
	if (IS_ERR(drain))
		return PTR_ERR(drain);
	hwt_drain_wheel = drain;
	return 0;
}

static void drain_wheel_destroy(void)
{
	hwtimer_wheel_destroy(hwt_drain_wheel);
	hwt_drain_wheel = NULL;
}

/* The timer whose id field is @idp, or NULL. */
static struct hwt_timer *id_timer(u64 *idp)
{
	return idp ? container_of(idp, struct hwt_timer, id) : NULL;
}

/* Find a linked timer by id. Caller holds ctx->wqh.lock. */
static struct hwt_timer *lookup(struct hwt_ctx *ctx, u64 id)
{
	return id_timer(hwtimer_ids_lookup(&ctx->ids, id));
}

static void free_timer(struct hwt_timer *ht)
{
	if (ht->periodic)
		kmem_cache_free(hwt_pcache, to_ptimer(ht));
	else
		kmem_cache_free(hwt_cache, ht);
}

/*
 * Room for one more spare beyond HWT_SPARE_MAX: charge it to the user, and
 * have the idle ones freed later. Caller holds ctx->wqh.lock.
 */
static bool spare_charge(struct hwt_ctx *ctx)
{
	if (!HWT_SPARE_CHARGED || ctx->nextra >= READ_ONCE(ctx_max_pending))
		return false;
	if (atomic_long_add_return(1, &ctx->user->live) >
	    READ_ONCE(max_user_timeouts)) {
		atomic_long_dec(&ctx->user->live);
		return false;
	}
	if (!ctx->spare_trimming) {
		ctx->spare_trimming = true;
		schedule_delayed_work(&ctx->spare_trim, HWT_SPARE_IDLE);
	}
	return true;
}

/* Push @ht on the stack @top. */
static void spare_push(struct hwt_timer **top, struct hwt_timer *ht)
{
	ht->next = *top;
	*top = ht;
}

/*
 * Keep dead one-shot @ht for a later arm, if there is room. Caller holds
 * ctx->wqh.lock. Return: whether it was kept.
 */
static bool spare_put(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (ctx->nspare - ctx->nextra < HWT_SPARE_MAX) {
		spare_push(&ctx->spare, ht);
	} else {
		if (!spare_charge(ctx))
			return false;
		spare_push(&ctx->spare_extra, ht);
		ctx->nextra++;
	}
	/* Read without the lock by reap_timers(), as a hint. */
	WRITE_ONCE(ctx->nspare, ctx->nspare + 1);
	return true;
}

/*
 * Take up to @n spare one-shot timers into @objs, not zeroed; charged ones
 * first. Caller holds ctx->wqh.lock. Return: how many.
 */
static unsigned int spare_take(struct hwt_ctx *ctx, void **objs,
			       unsigned int n)
{
	unsigned int i, charged = 0;
	struct hwt_timer **top;

	lockdep_assert_held(&ctx->wqh.lock);
	for (i = 0; i < n; i++) {
		top = ctx->spare_extra ? &ctx->spare_extra : &ctx->spare;
		if (!*top)
			break;
		charged += top == &ctx->spare_extra;
		objs[i] = *top;
		*top = (*top)->next;
	}
	WRITE_ONCE(ctx->nspare, ctx->nspare - i);
	if (charged) {
		/* The arms count them as live instead. */
		ctx->nextra -= charged;
		atomic_long_sub(charged, &ctx->user->live);
		ctx->spare_used = true;
	}
	return i;
}

/* Free the @n timers on the stack @ht, a chunk at a time. May sleep. */
static void free_spares(struct hwt_timer *ht, u32 n)
{
	void *objs[HWT_BATCH_CHUNK];
	u32 k;

	while (n) {
		for (k = 0; k < n && k < ARRAY_SIZE(objs); k++) {
			objs[k] = ht;
			ht = ht->next;
		}
		kmem_cache_free_bulk(hwt_cache, k, objs);
		n -= k;
		cond_resched();
	}
}

/*
 * HWT_SPARE_IDLE after spares were charged: free the charged ones, unless
 * some were taken meanwhile (then look again after as long).
 */
static void spare_trim_fn(struct work_struct *work)
{
	struct hwt_ctx *ctx = container_of(to_delayed_work(work),
					   struct hwt_ctx, spare_trim);
	struct hwt_timer *trim = NULL;
	u32 n = 0;

	spin_lock(&ctx->wqh.lock);
	if (ctx->spare_used) {
		ctx->spare_used = false;
	} else {
		trim = ctx->spare_extra;
		n = ctx->nextra;
		ctx->spare_extra = NULL;
		ctx->nextra = 0;
		WRITE_ONCE(ctx->nspare, ctx->nspare - n);
	}
	ctx->spare_trimming = ctx->nextra != 0;
	if (ctx->spare_trimming)
		schedule_delayed_work(&ctx->spare_trim, HWT_SPARE_IDLE);
	spin_unlock(&ctx->wqh.lock);
	if (!n)
		return;
	atomic_long_sub(n, &ctx->user->live);
	free_spares(trim, n);
}

/* Put a dead timer on the reap list @reap (a stack through @next). */
static void reap_push(struct hwt_timer *ht, struct hwt_timer **reap)
{
	ht->next = *reap;
	*reap = ht;
}

/*
 * Neither linked nor queued any more: a one-shot goes to the spares if
 * they have room, else to @reap. Caller holds ctx->wqh.lock.
 */
static void kill_timer(struct hwt_timer *ht, struct hwt_timer **reap)
{
	struct hwt_ctx *ctx = ht->ctx;

	lockdep_assert_held(&ctx->wqh.lock);
	ht->dead = true;
	ctx->live--;
	ctx->cos_live -= ht->cos;
	atomic_long_dec(&ctx->user->live);
	if (!ht->periodic && spare_put(ctx, ht))
		return;
	reap_push(ht, reap);
}

/*
 * Drop the timer from the id index; its record, if any is queued or comes,
 * is its last. Caller holds ctx->wqh.lock.
 */
static void unlink_timer(struct hwt_timer *ht, struct hwt_timer **reap)
{
	struct hwt_ctx *ctx = ht->ctx;

	lockdep_assert_held(&ctx->wqh.lock);
	ht->linked = false;
	/* A ring slot is only idle now: it lives as long as the rings. */
	if (ht->ring)
		return;
	hwtimer_ids_free(&ctx->ids, ht->id);
	if (!ht->queued)
		kill_timer(ht, reap);
}

/* Give the timers on the reap list @reap back to the slab. */
static void reap_free(struct hwt_timer *reap)
{
	void *objs[HWT_BATCH_CHUNK];
	struct hwt_timer *ht;
	size_t n = 0;

	while (reap) {
		ht = reap;
		reap = ht->next;
		if (ht->periodic) {
			free_timer(ht);
			continue;
		}
		objs[n++] = ht;
		if (n == ARRAY_SIZE(objs)) {
			kmem_cache_free_bulk(hwt_cache, n, objs);
			n = 0;
		}
	}
	if (n)
		kmem_cache_free_bulk(hwt_cache, n, objs);
}

/*
 * Free dead timers of @ctx, keeping one-shots as spares while there is
 * room; the other one-shots go back to the slab a batch at a time.
 * May sleep.
 */
static void reap_timers(struct hwt_ctx *ctx, struct hwt_timer *reap)
{
	struct hwt_timer *ht, *next;

	if (!reap)
		return;
	if (HWT_SPARE_CHARGED || READ_ONCE(ctx->nspare) < HWT_SPARE_MAX) {
		spin_lock(&ctx->wqh.lock);
		for (ht = reap; ht && !ht->periodic; ht = next) {
			next = ht->next;
			if (!spare_put(ctx, ht))
				break;
		}
		spin_unlock(&ctx->wqh.lock);
		reap = ht;
	}
	if (reap)
		reap_free(reap);
}

/*
 * The completion ring of a context with timer rings (struct hwt_cq): its
 * records are written here, the expiries' by the context's serving and
 * the entries' answers by hwtimer_ring.c, under the context's lock.
 */

/**
 * hwtimer_cdev_set_cq() - give a context its completion ring
 * @ctx: the context, which has none yet
 * @cq: the ring, set up, in the rings' shared memory
 *
 * Context: caller holds ctx->wqh.lock.
 */
void hwtimer_cdev_set_cq(struct hwt_ctx *ctx, struct hwt_cq *cq)
{
	lockdep_assert_held(&ctx->wqh.lock);
	ctx->cq = cq;
	WRITE_ONCE(*cq->ev_queued, min_t(u64, ctx->queued, U32_MAX));
}

/**
 * hwtimer_cdev_cq_space() - room in a context's completion ring
 * @ctx: the context, which has one
 *
 * The cq head is userspace's: one that is ahead of the tail, or more than
 * the ring's size behind, means full.
 *
 * Context: caller holds ctx->wqh.lock.
 * Return: the places free.
 */
u32 hwtimer_cdev_cq_space(struct hwt_ctx *ctx)
{
	struct hwt_cq *cq = ctx->cq;
	/* Pairs with userspace's release of the records it is done with. */
	u32 used = cq->next - smp_load_acquire(cq->head);

	lockdep_assert_held(&ctx->wqh.lock);
	return used > cq->entries ? 0 : cq->entries - used;
}

/**
 * hwtimer_cdev_cq_push() - write a record at the completion ring's tail
 * @ctx: the context, whose ring hwtimer_cdev_cq_space() found room in
 * @ev: the record
 *
 * Context: caller holds ctx->wqh.lock.
 */
void hwtimer_cdev_cq_push(struct hwt_ctx *ctx, const struct hwtimer_event *ev)
{
	struct hwt_cq *cq = ctx->cq;

	lockdep_assert_held(&ctx->wqh.lock);
	memcpy(&cq->cqes[cq->next & (cq->entries - 1)], ev, sizeof(*ev));
	cq->next++;
	/* The record is written before userspace can see the new tail. */
	smp_store_release(cq->tail, cq->next);
}

/*
 * The record of ring slot @ht's expiry, served now, to the completion
 * ring; its expires is the latest deadline the expiry covers, @overruns
 * the further ones, @last: the slot's last record. A full ring counts an
 * overflow and leaves the record to the event list. What becomes of the
 * slot is the caller's business. Caller holds the lock.
 * Return: true if the record went to the completion ring.
 */
static bool cq_complete_locked(struct hwt_ctx *ctx, const struct hwt_timer *ht,
			       u64 overruns, bool last)
{
	struct hwt_cq *cq = ctx->cq;
	struct hwtimer_event ev = {
		.id = ht->id,
		.cookie = ht->cookie,
		.deadline_ns = hwtimer_cdev_user_time(ctx, ht->clock,
						      ht->expires),
		.fire_ns = hwtimer_cdev_user_time(ctx, ht->clock, ht->fire_ns),
		.overruns = overruns,
		.clock = ht->clock,
		.flags = HWTIMER_EVENT_RING | (last ? HWTIMER_EVENT_LAST : 0),
	};

	lockdep_assert_held(&ctx->wqh.lock);
	/* The places a drain kept are its own. */
	if (hwtimer_cdev_cq_space(ctx) <= cq->reserved) {
		cq->overflow++;
		WRITE_ONCE(*cq->overflow_at, cq->overflow);
		return false;
	}
	hwtimer_cdev_cq_push(ctx, &ev);
	return true;
}

/* Publish the count of records for read(), if @ctx has rings. */
static void queued_locked(struct hwt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (ctx->cq)
		WRITE_ONCE(*ctx->cq->ev_queued, min_t(u64, ctx->queued,
						      U32_MAX));
}

/* Do records wait in @ctx's completion ring? Caller holds the lock. */
static bool cq_ready_locked(struct hwt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	return ctx->cq && READ_ONCE(*ctx->cq->head) != ctx->cq->next;
}

/* Queue @ht's record at the tail of the event list. Caller holds the lock. */
static void events_push(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	lockdep_assert_held(&ctx->wqh.lock);
	ht->next = NULL;
	*ctx->ev_tail = ht;
	ctx->ev_tail = &ht->next;
}

/* Unlink the oldest queued record's timer. Caller holds the lock. */
static struct hwt_timer *events_pop(struct hwt_ctx *ctx)
{
	struct hwt_timer *ht = ctx->ev_head;

	lockdep_assert_held(&ctx->wqh.lock);
	if (ht) {
		ctx->ev_head = ht->next;
		if (!ctx->ev_head)
			ctx->ev_tail = &ctx->ev_head;
	}
	return ht;
}

/*
 * Unlink @ht from the event list wherever it is. The list is as long as
 * the process makes it, so the walk lets go of the lock every
 * HWT_WALK_CHUNK records: under the read mutex, records only join the
 * list at its tail, so the link it stands on stays on the list. Caller
 * holds the lock and the read mutex.
 */
static void events_remove(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	struct hwt_timer **pp;
	u32 walked = 0;

	lockdep_assert_held(&ctx->read_mutex);
	lockdep_assert_held(&ctx->wqh.lock);
	for (pp = &ctx->ev_head; *pp; pp = &(*pp)->next) {
		if (*pp != ht) {
			if (++walked % HWT_WALK_CHUNK)
				continue;
			spin_unlock(&ctx->wqh.lock);
			cond_resched();
			spin_lock(&ctx->wqh.lock);
			continue;
		}
		*pp = ht->next;
		if (ctx->ev_tail == &ht->next)
			ctx->ev_tail = pp;
		return;
	}
}

/* The queue of @ctx's timers that run on @clock. */
static struct hwt_queue *clock_queue(struct hwt_ctx *ctx, u32 clock)
{
	if (clock == CLOCK_REALTIME)
		return &ctx->q[2];
	return &ctx->q[clock == CLOCK_BOOTTIME];
}

static bool q_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct hwt_timer, node)->expires <
	       rb_entry(b, struct hwt_timer, node)->expires;
}

/* The timer of @q with the earliest deadline, or NULL. */
static struct hwt_timer *q_first(struct hwt_queue *q)
{
	struct rb_node *n = rb_first_cached(&q->root);

	return n ? rb_entry(n, struct hwt_timer, node) : NULL;
}

/* Is @ht in its queue? Caller holds the lock. */
static bool q_pending(const struct hwt_timer *ht)
{
	return !RB_EMPTY_NODE(&ht->node);
}

/*
 * Take @ht out of its queue; the last one out takes the queue's wake-up
 * off the wheel. Return: whether it was there.
 */
static bool q_remove(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	struct hwt_queue *q = clock_queue(ctx, ht->clock);

	lockdep_assert_held(&ctx->wqh.lock);
	if (!q_pending(ht))
		return false;
	rb_erase_cached(&ht->node, &q->root);
	RB_CLEAR_NODE(&ht->node);
	trace_hwtimer_cdev_dequeue(ctx, ht);
	if (q->wake_at && RB_EMPTY_ROOT(&q->root.rb_root)) {
		hwtimer_cancel(&q->wake);
		q->wake_at = 0;
	}
	return true;
}

/* Now, on the host's clock of @q. */
static u64 q_now(const struct hwt_queue *q)
{
	return hwtimer_wheel_now(clock_wheel(q->clock));
}

/*
 * Have @q's wake-up run at its earliest deadline, unless it is armed for
 * that or earlier. Return: 0, or the error of the wheel (-ENOSPC when
 * it holds its maximum), the wake-up then left as it was.
 */
static int q_wake_sync(struct hwt_queue *q)
{
	struct hwt_timer *first = q_first(q);
	int ret;

	lockdep_assert_held(&q->ctx->wqh.lock);
	if (!first || (q->wake_at && q->wake_at <= first->expires))
		return 0;
	/* One hold of the base lock: only the first arm is not a move. */
	ret = hwtimer_modify(&q->wake, first->expires, HWTIMER_ARM_ABS);
	if (ret == -EINVAL)	/* never armed */
		ret = hwtimer_arm(clock_wheel(q->clock), &q->wake,
				  first->expires, 0, HWTIMER_ARM_ABS);
	if (!ret)
		q->wake_at = max(first->expires, 1ULL);
	return ret;
}

/*
 * Put @ht, whose expires and period are set, into its queue.
 * Return: 0, or the error of q_wake_sync() (@ht is then not queued).
 */
static int q_add(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	struct hwt_queue *q = clock_queue(ctx, ht->clock);
	int ret;

	lockdep_assert_held(&ctx->wqh.lock);
	/* A deadline the wake-up has passed is served at the next one. */
	if (ht->expires <= q->woke_ns)
		q->woke_ns = 0;
	trace_hwtimer_cdev_queue(ctx, ht, ht->expires);
	if (!rb_add_cached(&ht->node, &q->root, q_less))
		return 0;
	ret = q_wake_sync(q);
	if (ret)
		q_remove(ctx, ht);
	return ret;
}

/*
 * Fold the expiry of periodic @ht into its record and stop the timeout
 * until the record is read. Caller holds the lock.
 */
static void fire_periodic(struct hwt_timer *ht, u64 overruns)
{
	struct hwt_ptimer *pt = to_ptimer(ht);

	lockdep_assert_held(&ht->ctx->wqh.lock);
	/* The deadline is the latest of the expiries it covers. */
	pt->deadline_ns = ht->expires;
	pt->overruns = ht->queued ? pt->overruns + 1 + overruns : overruns;
	/* Not armed again: the read arms it. */
	q_remove(ht->ctx, ht);
	ht->dormant = true;
}

/* Wake pollers and readers, signal the eventfd: records are ready. */
static void wake_locked(struct hwt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	wake_up_locked_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
	if (ctx->evfd)
		hwt_eventfd_signal(ctx->evfd);
}

/**
 * hwtimer_cdev_wake_pollers() - tell poll() that a completion is ready
 * @ctx: the context
 *
 * Only poll() and epoll waiters: the eventfd and SIGIO count expiries,
 * and a completion of a ring entry is none.
 *
 * Context: caller holds ctx->wqh.lock.
 */
void hwtimer_cdev_wake_pollers(struct hwt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	wake_up_locked_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
}

/*
 * The offsets of the calling process's time namespace, for a context it
 * opens: timerfd reads the same ones when its caller arms an absolute
 * deadline (timens_ktime_to_host()).
 */
static void tns_capture(struct hwt_ctx *ctx)
{
#ifdef CONFIG_TIME_NS
	const struct timens_offsets *o = &current->nsproxy->time_ns->offsets;

	ctx->tns_off[0] = timespec64_to_ns(&o->monotonic);
	ctx->tns_off[1] = timespec64_to_ns(&o->boottime);
#endif
}

/* The offset of @clock in @ctx's namespace: none for CLOCK_REALTIME. */
static s64 tns_off(const struct hwt_ctx *ctx, u32 clock)
{
	if (clock == CLOCK_REALTIME)
		return 0;
	return ctx->tns_off[clock == CLOCK_BOOTTIME];
}

/**
 * hwtimer_cdev_host_time() - a time of @ctx's namespace, on the host's clock
 * @ctx: the context
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (no offset)
 * @t: an absolute time on @clock as the opener of @ctx reads it
 *
 * A time before the host's clock began is 0, long past; one past the end
 * of the host's clock is U64_MAX, as an arm that overflows is.
 *
 * Return: @t on the host's @clock, which the wheels run on.
 */
u64 hwtimer_cdev_host_time(const struct hwt_ctx *ctx, u32 clock, u64 t)
{
	s64 off = tns_off(ctx, clock);
	u64 host;

	if (off >= 0)
		return t > (u64)off ? t - (u64)off : 0;
	return check_add_overflow(t, (u64)-off, &host) ? U64_MAX : host;
}

/**
 * hwtimer_cdev_user_time() - a host time, on the clock of @ctx's namespace
 * @ctx: the context
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (no offset)
 * @t: an absolute time on the host's @clock, or 0 for none
 *
 * Return: @t as the opener of @ctx reads @clock (0 stays 0, and a time
 * before the namespace's clock began is 0 too).
 */
u64 hwtimer_cdev_user_time(const struct hwt_ctx *ctx, u32 clock, u64 t)
{
	s64 off = tns_off(ctx, clock);
	u64 ns;

	if (!t)
		return 0;
	if (off < 0)
		return t > (u64)-off ? t - (u64)-off : 0;
	return check_add_overflow(t, (u64)off, &ns) ? U64_MAX : ns;
}

/* Keep the record of this expiry in @ht, on the event list. */
static void queue_record(struct hwt_ctx *ctx, struct hwt_timer *ht,
			 u64 overruns)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (ht->periodic)
		fire_periodic(ht, overruns);
	if (!ht->queued) {
		ht->queued = true;
		events_push(ctx, ht);
		ctx->queued++;
		queued_locked(ctx);
	}
	if (!ht->periodic && !ht->fired) {
		ht->fired = true;
		ctx->pending--;
	}
}

/* CLOCK_REALTIME's offset from CLOCK_MONOTONIC: it changes at every set. */
static s64 wall_offs(void)
{
	return ktime_to_ns(ktime_mono_to_real(0));
}

/*
 * The wall clock was set since @ctx's cancel-on-set timeouts were armed:
 * a sweep is due. Caller holds the lock.
 */
static bool cos_stale(struct hwt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	return ctx->cos_live && wall_offs() != ctx->cos_offs;
}

/*
 * Queue the clock-set record of cancel-on-set @ht, taking it out of its
 * queue. A one-shot's id leaves with the record, as after an expiry; a
 * periodic one's at once. Caller holds the lock.
 */
static void cos_record(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	struct hwt_timer *reap = NULL;

	lockdep_assert_held(&ctx->wqh.lock);
	ht->clock_set = true;
	q_remove(ctx, ht);
	ht->fire_ns = hwtimer_wheel_now(hwt_rt_wheel);
	ctx->pending--;
	ctx->cancelled++;
	if (!ht->periodic) {
		ht->fired = true;
	} else {
		/* Keep the unread periods of a record already queued. */
		if (!ht->queued) {
			to_ptimer(ht)->deadline_ns = ht->expires;
			to_ptimer(ht)->overruns = 0;
		}
		ht->dormant = true;
	}
	if (!ht->queued) {
		ht->queued = true;
		events_push(ctx, ht);
		ctx->queued++;
		queued_locked(ctx);
	}
	/* Queued: unlinking it kills nothing, so nothing is reaped. */
	if (ht->periodic)
		unlink_timer(ht, &reap);
	WARN_ON_ONCE(reap);
}

/*
 * Cancel-on-set @ht met a set of the wall clock in a sweep: stop it and
 * queue its clock-set record. Return: whether a record was queued.
 * Caller holds the lock.
 */
static bool cos_cancel(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (!ht->cos || !ht->linked || ht->fired || ht->clock_set)
		return false;
	if (!(ht->periodic && ht->dormant) && !q_pending(ht))
		return false;
	cos_record(ctx, ht);
	return true;
}

/*
 * Between two chunks of a walk in a call of @ctx: let go of its lock, and
 * end the call at a fatal signal. Return: 0 with the lock held again, or
 * -EINTR without it.
 */
static int chunk_break(struct hwt_ctx *ctx)
{
	spin_unlock(&ctx->wqh.lock);
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	spin_lock(&ctx->wqh.lock);
	return 0;
}

/*
 * After a set of the wall clock, turn every cancel-on-set timeout of @ctx
 * into a clock-set record. It runs in the context's own system calls
 * (read(), ARM, MODIFY, CANCEL, BATCH), a chunk of the id table per hold
 * of the lock: a set costs the shared threads only a wake-up per such
 * context.
 * Caller holds ctx->cos_mutex.
 * Return: 0, or -EINTR at a fatal signal (the next call goes on).
 */
static int cos_sweep_locked(struct hwt_ctx *ctx)
{
	struct hwt_timer *ht;
	bool queued = false;
	u32 idx = 1, end;
	s64 offs;

	lockdep_assert_held(&ctx->cos_mutex);
	spin_lock(&ctx->wqh.lock);
	offs = wall_offs();
	while (ctx->cos_live && offs != ctx->cos_offs) {
		end = min_t(u32, idx + HWT_WALK_CHUNK, ctx->ids.cap);
		for (; idx < end; idx++) {
			ht = id_timer(hwtimer_ids_at(&ctx->ids, idx));
			if (ht && cos_cancel(ctx, ht))
				queued = true;
		}
		if (idx >= ctx->ids.cap) {
			ctx->cos_offs = offs;
			break;
		}
		if (chunk_break(ctx))
			return -EINTR;
	}
	if (queued)
		wake_locked(ctx);
	spin_unlock(&ctx->wqh.lock);
	return 0;
}

/**
 * hwtimer_cdev_cos_sync() - catch up with sets of the wall clock
 * @ctx: the context
 *
 * Cancels the context's cancel-on-set timeouts if the wall clock was set
 * under them, as each call that looks at timeouts does first.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EINTR at a fatal signal.
 */
int hwtimer_cdev_cos_sync(struct hwt_ctx *ctx)
{
	int ret;

	if (!READ_ONCE(ctx->cos_live))
		return 0;
	if (mutex_lock_killable(&ctx->cos_mutex))
		return -EINTR;
	ret = cos_sweep_locked(ctx);
	mutex_unlock(&ctx->cos_mutex);
	return ret;
}

/*
 * Contexts that armed a cancel-on-set timeout, woken at every set of the
 * clock, as timerfd's cancel list is: walked under RCU, changed under
 * hwt_cos_lock.
 */
static LIST_HEAD(hwt_cos_ctxs);
static DEFINE_SPINLOCK(hwt_cos_lock);
/* Runs cos_wake_fn() on the default wheel's workers, a tick after a set. */
static struct hwtimer_timeout hwt_cos_wake;

/*
 * Wake the readers of every context whose cancel-on-set timeouts a set
 * hit: a wake-up per context, the sweep left to their own calls. On the
 * callback workers, whose priority lends itself to a preempted holder of
 * a context's lock on PREEMPT_RT, as for a queue's wake-up.
 */
static void cos_wake_fn(struct hwtimer_timeout *t)
{
	struct hwt_ctx *ctx;
	bool woke;

	rcu_read_lock();
	list_for_each_entry_rcu(ctx, &hwt_cos_ctxs, cos_node) {
		spin_lock(&ctx->wqh.lock);
		woke = cos_stale(ctx);
		if (woke)
			wake_locked(ctx);
		spin_unlock(&ctx->wqh.lock);
		if (woke)
			kill_fasync(&ctx->fasync, SIGIO, POLL_IN);
	}
	rcu_read_unlock();
}

/* Out of the timekeeper's lock: have the wake-ups run (once if pending). */
static void cos_irq_fn(struct irq_work *work)
{
	hwtimer_arm(hwtimer_default_wheel(), &hwt_cos_wake, 0, 0, 0);
}

static struct irq_work hwt_cos_irq = IRQ_WORK_INIT_HARD(cos_irq_fn);

/*
 * Called at every update of the timekeeper, with its lock held and
 * interrupts off; @was_set when the clock was set (the kernel's
 * clock_was_set(), which timerfd's cancel-on-set hangs on, has no hook for
 * modules). Nothing here may read the time.
 */
static int cos_notify(struct notifier_block *nb, unsigned long was_set,
		      void *tk)
{
	if (was_set)
		irq_work_queue(&hwt_cos_irq);
	return NOTIFY_DONE;
}

static struct notifier_block hwt_cos_nb = { .notifier_call = cos_notify };

/* No context is open: stop hearing of sets, and let the last wake finish. */
static void cos_unregister(void)
{
	pvclock_gtod_unregister_notifier(&hwt_cos_nb);
	irq_work_sync(&hwt_cos_irq);
	hwtimer_cancel_sync(&hwt_cos_wake);
}

/*
 * Serve the expiry of @ht, due at @now, taking it out of its queue @q: its
 * record goes to the completion ring (a ring slot, when there is room)
 * or the event list. A periodic one covers every period up to @now; in
 * the completion ring it goes on, elsewhere it stops until read.
 * Caller holds the lock.
 */
static void expire_locked(struct hwt_ctx *ctx, struct hwt_queue *q,
			  struct hwt_timer *ht, u64 now)
{
	u64 overruns = 0, next;
	bool last;

	lockdep_assert_held(&ctx->wqh.lock);
	q_remove(ctx, ht);
	if (ht->period) {
		overruns = div64_u64(now - ht->expires, ht->period);
		ht->expires += overruns * ht->period;
	}
	if (ht->cos && (ht->clock_set || wall_offs() != ctx->cos_offs)) {
		/* The set, not the deadline, is what it reports. */
		cos_record(ctx, ht);
		return;
	}
	/* Served at the wake-up that found it due, else now. */
	ht->fire_ns = q->woke_ns && q->woke_ns >= ht->expires ? q->woke_ns :
		      now;
	ctx->fired += 1 + overruns;
	/* A slot's last record: a one-shot's, or a period past U64_MAX. */
	last = !ht->periodic ||
	       check_add_overflow(ht->expires, ht->period, &next);
	if (!ht->ring || !cq_complete_locked(ctx, ht, overruns, last)) {
		queue_record(ctx, ht, overruns);
		return;
	}
	/* Gone on in the completion ring: its next period, if it has one. */
	if (!last) {
		ht->expires = next;
		if (!q_add(ctx, ht))
			return;
	}
	ht->linked = false;
	ctx->pending--;
}

/*
 * Serve up to @max expiries of @q due at @now, earliest first.
 * Return: how many. Caller holds the lock.
 */
static u32 q_collect(struct hwt_ctx *ctx, struct hwt_queue *q, u64 now,
		     u32 max)
{
	struct hwt_timer *ht;
	u32 n = 0;

	lockdep_assert_held(&ctx->wqh.lock);
	while (n < max && (ht = q_first(q)) && ht->expires <= now) {
		expire_locked(ctx, q, ht, now);
		n++;
	}
	return n;
}

/* Serve @ht's expiry now if it is due (it is pending). Caller holds the lock. */
static bool expire_if_due(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	struct hwt_queue *q = clock_queue(ctx, ht->clock);
	u64 now = q_now(q);

	lockdep_assert_held(&ctx->wqh.lock);
	if (ht->expires > now)
		return false;
	expire_locked(ctx, q, ht, now);
	wake_locked(ctx);
	return true;
}

/* Are expiries of @ctx due and not served yet? Caller holds the lock. */
static bool ctx_due(struct hwt_ctx *ctx)
{
	struct hwt_timer *first;
	int i;

	lockdep_assert_held(&ctx->wqh.lock);
	for (i = 0; i < HWT_QUEUES; i++) {
		first = q_first(&ctx->q[i]);
		if (first && first->expires <= q_now(&ctx->q[i]))
			return true;
	}
	return false;
}

/**
 * hwtimer_cdev_collect() - serve a context's due expiries, in its own call
 * @ctx: the context
 *
 * Every expiry due when it looks at a clock, a chunk of them per hold of
 * the lock: the records of the context's timeouts are built on the time
 * of its own system calls (read(), ENTER), never on shared threads. Each
 * queue's wake-up is then armed for what is left.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EINTR at a fatal signal (the rest wait for the next call).
 */
int hwtimer_cdev_collect(struct hwt_ctx *ctx)
{
	struct hwt_queue *q;
	u32 n, k;
	u64 now;
	int i;

	for (i = 0; i < HWT_QUEUES; i++) {
		q = &ctx->q[i];
		/* A timer armed meanwhile has the wake-up armed for it. */
		if (!READ_ONCE(q->root.rb_leftmost))
			continue;
		now = q_now(q);
		n = 0;
		spin_lock(&ctx->wqh.lock);
		while ((k = q_collect(ctx, q, now, HWT_SERVE_CHUNK))) {
			n += k;
			if (k < HWT_SERVE_CHUNK)
				break;
			if (chunk_break(ctx))
				return -EINTR;
		}
		q_wake_sync(q);
		if (n)
			wake_locked(ctx);
		spin_unlock(&ctx->wqh.lock);
	}
	return 0;
}

/*
 * Callback of a queue's wake-up, on the shared workers of its clock's
 * wheel: a context costs them this one callback per tick at most,
 * whatever number of its timeouts expire. It wakes the context's
 * readers, pollers, eventfd and SIGIO; the readers serve the expiries.
 * The exception is a context with timer rings, whose process may wait on
 * its completion ring without a system call: there it serves expiries
 * too, up to HWT_WAKE_SERVE and as many as its user's budget for the tick
 * allows, HWT_SERVE_CHUNK per hold of the lock, and comes back a tick
 * later for the rest.
 */
static void q_wake_fn(struct hwtimer_timeout *t)
{
	struct hwt_queue *q = container_of(t, struct hwt_queue, wake);
	struct hwt_ctx *ctx = q->ctx;
	struct hwt_timer *first;
	u64 now, tick_ns, tick;
	bool woke = false;
	u32 served = 0;

	spin_lock(&ctx->wqh.lock);
	if (!hwtimer_pending(t))
		q->wake_at = 0;
	q->woke_ns = hwtimer_run_start(t);
	now = q_now(q);
	if (ctx->cq) {
		tick_ns = hwtimer_wheel_tick_ns(clock_wheel(q->clock));
		tick = div64_u64(now, tick_ns);
		while (served < HWT_WAKE_SERVE && (first = q_first(q)) &&
		       first->expires <= now &&
		       hwtimer_cdev_budget_take(ctx, tick, 1)) {
			expire_locked(ctx, q, first, now);
			woke = true;
			if (++served % HWT_SERVE_CHUNK)
				continue;
			spin_unlock(&ctx->wqh.lock);
			cond_resched();
			spin_lock(&ctx->wqh.lock);
		}
		first = q_first(q);
		if (first && first->expires <= now && !hwtimer_pending(t) &&
		    !hwtimer_modify(t, (tick + 1) * tick_ns, HWTIMER_ARM_ABS))
			q->wake_at = (tick + 1) * tick_ns;
	}
	first = q_first(q);
	if (first && first->expires <= now)
		woke = true;
	else
		q_wake_sync(q);
	if (woke)
		wake_locked(ctx);
	spin_unlock(&ctx->wqh.lock);
	if (woke)
		kill_fasync(&ctx->fasync, SIGIO, POLL_IN);
}

static int check_deadline_flags(u32 flags)
{
	return flags & ~HWTIMER_ARM_ABS ? -EINVAL : 0;
}

/**
 * hwtimer_cdev_reserve() - charge live timeouts to a context and its user
 * @ctx: the context
 * @n: how many places, at least 1
 *
 * Context: caller holds ctx->wqh.lock.
 * Return: 0; -ENOSPC past ctx_max_pending, -EDQUOT past max_user_timeouts
 * (nothing charged then).
 */
int hwtimer_cdev_reserve(struct hwt_ctx *ctx, u64 n)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (ctx->live + n > READ_ONCE(ctx_max_pending))
		return -ENOSPC;
	if (atomic_long_add_return(n, &ctx->user->live) >
	    READ_ONCE(max_user_timeouts)) {
		atomic_long_sub(n, &ctx->user->live);
		return -EDQUOT;
	}
	ctx->live += n;
	return 0;
}

/**
 * hwtimer_cdev_unreserve() - give back places hwtimer_cdev_reserve() took
 * @ctx: the context
 * @n: how many
 *
 * Context: caller holds ctx->wqh.lock.
 */
void hwtimer_cdev_unreserve(struct hwt_ctx *ctx, u64 n)
{
	lockdep_assert_held(&ctx->wqh.lock);
	ctx->live -= n;
	atomic_long_sub(n, &ctx->user->live);
}

static int reserve_live(struct hwt_ctx *ctx)
{
	return hwtimer_cdev_reserve(ctx, 1);
}

static void unreserve_live(struct hwt_ctx *ctx)
{
	hwtimer_cdev_unreserve(ctx, 1);
}

/*
 * Check the clock, flags and period of an arm.
 * Return: the wheel of @clock, or NULL when they are invalid.
 */
static struct hwtimer_wheel *arm_wheel_of(u32 clock, u32 flags, u64 period)
{
	struct hwtimer_wheel *w = clock_wheel(clock);

	if (!w || check_deadline_flags(flags))
		return NULL;
	if (period && period < hwtimer_wheel_tick_ns(w))
		return NULL;
	return w;
}

/**
 * hwtimer_cdev_timer_init() - set up a timer of @ctx, before its first arm
 * @ctx: the context
 * @ht: the timer: new memory, or a spare; every field of it is set, to 0
 *	but for @ht->ctx and @ht->clock
 * @clock: the clock it will run on (CLOCK_MONOTONIC, CLOCK_BOOTTIME or
 *	CLOCK_REALTIME)
 *
 * Context: any; @ht must not be armed.
 */
void hwtimer_cdev_timer_init(struct hwt_ctx *ctx, struct hwt_timer *ht,
			     u32 clock)
{
	*ht = (struct hwt_timer){ .ctx = ctx, .clock = clock };
	RB_CLEAR_NODE(&ht->node);
}

/*
 * Put @ht into its queue for @deadline (as hwtimer_arm() takes it) and
 * @period: the work of an arm and of a move, counting nothing.
 * Return: 0, or q_add()'s error (@ht is then not in its queue).
 */
static int timer_start(struct hwt_ctx *ctx, struct hwt_timer *ht,
		       u64 deadline, u64 period, u32 flags)
{
	int ret;

	if (!(flags & HWTIMER_ARM_ABS) &&
	    check_add_overflow(q_now(clock_queue(ctx, ht->clock)), deadline,
			       &deadline))
		deadline = U64_MAX;
	ht->expires = deadline;
	ht->period = period;
	ret = q_add(ctx, ht);
	if (ret)
		return ret;
	ht->linked = true;
	ht->fired = false;
	ht->dormant = false;
	return 0;
}

/**
 * hwtimer_cdev_start_locked() - arm an idle timer of a context
 * @ctx: the context
 * @ht: the timer, with its cookie and periodic flag set
 * @deadline: first expiry, as hwtimer_arm() takes it, on the host's
 *	clock of @ht
 * @period: 0 or the period, at least a tick
 * @flags: 0 or %HWTIMER_ARM_ABS
 *
 * The timer's place in the limits is the caller's business.
 *
 * Context: caller holds ctx->wqh.lock.
 * Return: 0, or the error of the wheel its queue's wake-up is armed on
 * (@ht then stays idle).
 */
int hwtimer_cdev_start_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			      u64 deadline, u64 period, u32 flags)
{
	int ret;

	lockdep_assert_held(&ctx->wqh.lock);
	ret = timer_start(ctx, ht, deadline, period, flags);
	if (ret)
		return ret;
	ctx->pending++;
	ctx->armed++;
	return 0;
}

/*
 * Arm @ht, fresh from the cache, for ARM op @op (checked, its deadline
 * absolute on the host's clock), and fill in @op->id. On failure @ht
 * stays the caller's to free. Caller holds ctx->wqh.lock, which growing
 * the id table drops for a while.
 */
static int arm_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
		      struct hwtimer_batch_op *op)
{
	int ret;

	lockdep_assert_held(&ctx->wqh.lock);
	hwtimer_cdev_timer_init(ctx, ht, op->clock);
	ht->cookie = op->cookie;
	ht->periodic = op->period_ns != 0;
	ret = reserve_live(ctx);
	if (ret)
		return ret;
	/*
	 * The table has a free slot for us once cap > live; growing drops
	 * the lock, so check again after each step.
	 */
	while (ctx->ids.cap <= ctx->live) {
		ret = hwtimer_ids_grow(&ctx->ids);
		if (ret)
			goto err_unreserve;
	}
	if (WARN_ON_ONCE(!hwtimer_ids_alloc(&ctx->ids, &ht->id))) {
		ret = -ENOSPC;
		goto err_unreserve;
	}
	ret = hwtimer_cdev_start_locked(ctx, ht, op->deadline_ns,
					op->period_ns, HWTIMER_ARM_ABS);
	if (ret) {
		/* The id was never seen: the slot keeps its generation. */
		hwtimer_ids_put_back(&ctx->ids, ht->id);
		goto err_unreserve;
	}
	/* Once the lock is dropped @ht may be read and freed. */
	op->id = ht->id;
	return 0;

err_unreserve:
	unreserve_live(ctx);
	return ret;
}

/*
 * A cancel-on-set timeout @ht was armed: count it, and take the clock's
 * offset now if it is the context's first (cos_sweep_locked() made sure
 * the others' offset is now's). Caller holds the lock and ctx->cos_mutex.
 */
static void cos_armed(struct hwt_ctx *ctx, struct hwt_timer *ht)
{
	lockdep_assert_held(&ctx->wqh.lock);
	lockdep_assert_held(&ctx->cos_mutex);
	if (!ctx->cos_live++)
		ctx->cos_offs = wall_offs();
	ht->cos = true;
}

/*
 * Before a run of ops with cancel-on-set ARMs: take ctx->cos_mutex, turn
 * the timeouts a set of the clock hit into records, so that all of the
 * context's have the same offset, and join the list of the contexts woken
 * at a set. Return: 0 with the mutex held, or -EINTR without it.
 */
static int cos_begin(struct hwt_ctx *ctx)
{
	int ret;

	if (mutex_lock_killable(&ctx->cos_mutex))
		return -EINTR;
	ret = cos_sweep_locked(ctx);
	if (ret) {
		mutex_unlock(&ctx->cos_mutex);
		return ret;
	}
	if (!ctx->cos_listed) {
		spin_lock(&hwt_cos_lock);
		list_add_tail_rcu(&ctx->cos_node, &hwt_cos_ctxs);
		spin_unlock(&hwt_cos_lock);
		ctx->cos_listed = true;
	}
	return 0;
}

/**
 * hwtimer_cdev_withdraw() - take back an arm whose caller was not told
 * @ctx: the context
 * @id: the id the arm gave
 *
 * Stops the timeout and drops a record it queued.
 *
 * Context: process context; may sleep.
 */
void hwtimer_cdev_withdraw(struct hwt_ctx *ctx, u64 id)
{
	struct hwt_timer *ht, *reap = NULL;

	/* No read() holds a copy of a record it has not taken yet. */
	mutex_lock(&ctx->read_mutex);
	spin_lock(&ctx->wqh.lock);
	ht = lookup(ctx, id);
	if (!ht)
		goto out_unlock;
	q_remove(ctx, ht);
	if (ht->queued) {
		events_remove(ctx, ht);
		ht->queued = false;
		ctx->queued--;
		queued_locked(ctx);
	}
	if (ht->linked) {
		if (ht->periodic || !ht->fired)
			ctx->pending--;
		ctx->armed--;
		unlink_timer(ht, &reap);
	} else if (!ht->dead) {
		kill_timer(ht, &reap);
	}
out_unlock:
	spin_unlock(&ctx->wqh.lock);
	mutex_unlock(&ctx->read_mutex);
	reap_timers(ctx, reap);
}

/**
 * hwtimer_cdev_cancel_locked() - cancel a linked timer of a context
 * @ctx: the context
 * @ht: the timer, linked
 * @result: set to %HWTIMER_RESULT_CANCELLED, or %HWTIMER_RESULT_FIRED for
 *	a one-shot whose deadline came (its record is queued, served now if
 *	it was not yet)
 * @reap: where a timer that dies goes
 *
 * An expiry that is due is served first, as its wake-up would have: a
 * periodic timer's record then comes, its last.
 *
 * Context: caller holds ctx->wqh.lock.
 * Return: 0.
 */
int hwtimer_cdev_cancel_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			       u32 *result, struct hwt_timer **reap)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (ht->fired || (q_pending(ht) && expire_if_due(ctx, ht) &&
			  !ht->periodic)) {
		*result = HWTIMER_RESULT_FIRED;
		return 0;
	}
	q_remove(ctx, ht);
	ctx->pending--;
	ctx->cancelled++;
	unlink_timer(ht, reap);
	*result = HWTIMER_RESULT_CANCELLED;
	return 0;
}

/* Cancel by id; sets *result. Caller holds ctx->wqh.lock. */
static int do_cancel_locked(struct hwt_ctx *ctx, u64 id, u32 *result,
			    struct hwt_timer **reap)
{
	struct hwt_timer *ht = lookup(ctx, id);

	if (!ht)
		return -ENOENT;
	return hwtimer_cdev_cancel_locked(ctx, ht, result, reap);
}

/**
 * hwtimer_cdev_modify_locked() - move a linked timer of a context
 * @ctx: the context
 * @ht: the timer, linked
 * @deadline: new deadline, as hwtimer_arm() takes it, on the host's clock
 * @flags: 0 or %HWTIMER_ARM_ABS
 * @result: set to %HWTIMER_RESULT_MODIFIED, or %HWTIMER_RESULT_FIRED for
 *	a one-shot whose deadline came (as for hwtimer_cdev_cancel_locked())
 * @reap: where a timer that dies goes
 *
 * A periodic timer keeps its period, and a record it has queued; an
 * expiry of it that is due is served first.
 *
 * Context: caller holds ctx->wqh.lock.
 * Return: 0, or an error of hwtimer_cdev_start_locked(), the timer then
 * being unlinked (the timeout is gone).
 */
int hwtimer_cdev_modify_locked(struct hwt_ctx *ctx, struct hwt_timer *ht,
			       u64 deadline, u32 flags, u32 *result,
			       struct hwt_timer **reap)
{
	int r;

	lockdep_assert_held(&ctx->wqh.lock);
	if (ht->fired || (q_pending(ht) && expire_if_due(ctx, ht) &&
			  !ht->periodic)) {
		*result = HWTIMER_RESULT_FIRED;
		return 0;
	}
	q_remove(ctx, ht);
	r = timer_start(ctx, ht, deadline, ht->period, flags);
	if (r) {
		/* Stopped and not armed again: the timeout is gone. */
		ctx->pending--;
		unlink_timer(ht, reap);
		return r;
	}
	*result = HWTIMER_RESULT_MODIFIED;
	return 0;
}

/* An ARM with HWTIMER_ARM_CANCEL_ON_SET. */
static bool op_cos(const struct hwtimer_batch_op *op)
{
	return op->op == HWTIMER_OP_ARM &&
	       (op->flags & HWTIMER_ARM_CANCEL_ON_SET);
}

/*
 * Check op @op; for an ARM, set its wheel in @w and its clock to the one
 * it runs on (arm_clock()).
 * Return: 0 or the op's status.
 */
static int op_check(struct hwtimer_batch_op *op, struct hwtimer_wheel **w)
{
	const u32 cos = HWTIMER_ARM_CANCEL_ON_SET | HWTIMER_ARM_ABS;

	op->result = 0;
	if (op->pad || op->reserved)
		return -EINVAL;
	switch (op->op) {
	case HWTIMER_OP_ARM:
		/* Cancel on set: of an absolute wall-clock deadline only. */
		if (op_cos(op) &&
		    ((op->flags & cos) != cos || op->clock != CLOCK_REALTIME))
			return -EINVAL;
		op->clock = arm_clock(op->clock, op->flags);
		*w = arm_wheel_of(op->clock,
				  op->flags & ~HWTIMER_ARM_CANCEL_ON_SET,
				  op->period_ns);
		return *w ? 0 : -EINVAL;
	case HWTIMER_OP_CANCEL:
		if (op->flags || op->cookie || op->deadline_ns ||
		    op->period_ns || op->clock)
			return -EINVAL;
		return 0;
	case HWTIMER_OP_MODIFY:
		if (op->cookie || op->period_ns || op->clock ||
		    check_deadline_flags(op->flags))
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Timers for the ARM ops of a chunk that passed op_check(): @n of them
 * from @cache, taken in one call when the cache can, one by one otherwise;
 * not zeroed (batch_timer() does that as it hands one out).
 * Return: how many were allocated (all or, when memory runs out, fewer).
 */
static unsigned int batch_alloc(struct kmem_cache *cache, unsigned int n,
				void **objs)
{
	unsigned int i;

	if (!n)
		return 0;
	if (kmem_cache_alloc_bulk(cache, GFP_KERNEL_ACCOUNT, n, objs) == n)
		return n;
	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(cache, GFP_KERNEL_ACCOUNT);
		if (!objs[i])
			break;
	}
	return i;
}

/*
 * The next timer batch_alloc() or the spares left in @bt for an ARM, or
 * NULL when they ran out. arm_locked() sets its fields.
 */
static struct hwt_timer *batch_timer(struct hwt_batch *bt, bool periodic)
{
	struct hwt_ptimer *pt;

	if (!periodic)
		return bt->gone < bt->none ? bt->one[bt->gone++] : NULL;
	if (bt->gper == bt->nper)
		return NULL;
	pt = bt->per[bt->gper++];
	pt->deadline_ns = 0;
	pt->overruns = 0;
	return &pt->ht;
}

/*
 * Make @deadline with @flags, on @clock of @ctx and wheel @w, absolute on
 * the host's clock. The clock is read once for the relative ARMs and
 * MODIFYs of a run on one wheel (@bt->now_w, @bt->now: the last reading),
 * when the first needs it: a deadline counts from a time after the call
 * began, never from an earlier one.
 */
static void batch_abs(const struct hwt_ctx *ctx, u32 clock, u64 *deadline,
		      u32 *flags, struct hwtimer_wheel *w, struct hwt_batch *bt)
{
	if (*flags & HWTIMER_ARM_ABS) {
		*deadline = hwtimer_cdev_host_time(ctx, clock, *deadline);
		return;
	}
	if (bt->now_w != w) {
		bt->now_w = w;
		bt->now = hwtimer_wheel_now(w);
	}
	if (check_add_overflow(bt->now, *deadline, deadline))
		*deadline = U64_MAX;
	*flags |= HWTIMER_ARM_ABS;
}

/*
 * Check the @n ops at @ops, and take ctx->cos_mutex for their
 * cancel-on-set ARMs (cos_begin()): those fail with its error when it
 * cannot be had. Count in @bt the one-shot and periodic ARMs that passed,
 * with the wheel of each.
 * Return: whether the mutex is held.
 */
static bool ops_prepare(struct hwt_ctx *ctx, struct hwtimer_batch_op *ops,
			struct hwt_batch *bt, u32 n)
{
	bool cos = false;
	int ret = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		ops[i].status = op_check(&ops[i], &bt->w[i]);
		if (ops[i].status || !op_cos(&ops[i]))
			continue;
		if (!cos && !ret) {
			ret = cos_begin(ctx);
			cos = !ret;
		}
		ops[i].status = ret;
	}
	for (i = 0; i < n; i++) {
		if (ops[i].status || ops[i].op != HWTIMER_OP_ARM)
			continue;
		if (ops[i].period_ns)
			bt->nper++;
		else
			bt->none++;
	}
	return cos;
}

/*
 * Run checked ARM op @op on wheel @w with a timer of @bt's. Caller holds
 * ctx->wqh.lock, and ctx->cos_mutex for a cancel-on-set ARM.
 */
static void op_arm_locked(struct hwt_ctx *ctx, struct hwtimer_batch_op *op,
			  struct hwtimer_wheel *w, struct hwt_batch *bt)
{
	struct hwt_timer *ht = batch_timer(bt, op->period_ns != 0);

	if (!ht) {
		op->status = -ENOMEM;
		return;
	}
	batch_abs(ctx, op->clock, &op->deadline_ns, &op->flags, w, bt);
	op->status = arm_locked(ctx, ht, op);
	if (op->status)
		reap_push(ht, &bt->reap);
	else if (op_cos(op))
		cos_armed(ctx, ht);
}

/* Run checked MODIFY op @op. Caller holds ctx->wqh.lock. */
static void op_modify_locked(struct hwt_ctx *ctx, struct hwtimer_batch_op *op,
			     struct hwt_batch *bt)
{
	struct hwt_timer *ht = lookup(ctx, op->id);

	if (!ht) {
		op->status = -ENOENT;
		return;
	}
	batch_abs(ctx, ht->clock, &op->deadline_ns, &op->flags,
		  clock_wheel(ht->clock), bt);
	op->status = hwtimer_cdev_modify_locked(ctx, ht, op->deadline_ns,
						op->flags, &op->result,
						&bt->reap);
}

/**
 * hwtimer_cdev_ops() - run operations of a context
 * @ctx: the context
 * @ops: the ops, in kernel memory
 * @bt: room for what running them takes (arrays for @n ops), its counts
 *	and the rest 0
 * @n: how many ops, at most %HWT_BATCH_CHUNK
 *
 * The one dispatch of ARM, CANCEL and MODIFY: BATCH runs its ops through
 * it a chunk at a time, the single ioctls theirs as a chunk of one. Runs
 * the ops in place, setting each one's status (and id and result):
 * checked and their timers taken from the spares or allocated first, then
 * run in one hold of the context lock (and of its cos_mutex, when some
 * are cancel-on-set ARMs).
 *
 * Context: process context; may sleep.
 * Return: how many failed.
 */
u32 hwtimer_cdev_ops(struct hwt_ctx *ctx, struct hwtimer_batch_op *ops,
		     struct hwt_batch *bt, u32 n)
{
	u32 i, failed = 0, got;
	bool cos;

	cos = ops_prepare(ctx, ops, bt, n);
	spin_lock(&ctx->wqh.lock);
	got = spare_take(ctx, bt->one, bt->none);
	if (got < bt->none || bt->nper) {
		spin_unlock(&ctx->wqh.lock);
		bt->none = got + batch_alloc(hwt_cache, bt->none - got,
					     bt->one + got);
		bt->nper = batch_alloc(hwt_pcache, bt->nper, bt->per);
		spin_lock(&ctx->wqh.lock);
	}
	for (i = 0; i < n; i++) {
		if (ops[i].status)
			continue;
		if (ops[i].op == HWTIMER_OP_ARM)
			op_arm_locked(ctx, &ops[i], bt->w[i], bt);
		else if (ops[i].op == HWTIMER_OP_CANCEL)
			ops[i].status = do_cancel_locked(ctx, ops[i].id,
							 &ops[i].result,
							 &bt->reap);
		else
			op_modify_locked(ctx, &ops[i], bt);
	}
	while (bt->gone < bt->none && spare_put(ctx, bt->one[bt->gone]))
		bt->gone++;
	spin_unlock(&ctx->wqh.lock);
	if (cos)
		mutex_unlock(&ctx->cos_mutex);
	reap_timers(ctx, bt->reap);
	if (bt->gone < bt->none)
		kmem_cache_free_bulk(hwt_cache, bt->none - bt->gone,
				     bt->one + bt->gone);
	if (bt->gper < bt->nper)
		kmem_cache_free_bulk(hwt_pcache, bt->nper - bt->gper,
				     bt->per + bt->gper);
	for (i = 0; i < n; i++)
		failed += ops[i].status != 0;
	return failed;
}

/**
 * struct hwt_taken - a record read() copied out, to take off the list
 * @ht: its timer, at the head of the event list while read() holds
 *	the read mutex
 * @deadline: the record's deadline on the host's clock (the record has it
 *	on the context's)
 * @overruns: the periodic timer's folded overrun count the record covers
 * @next: dormant periodic: deadline to arm it for, 0 if there is none
 * @counted: dormant periodic: expiries the read counted, not the serving
 */
struct hwt_taken {
	struct hwt_timer *ht;
	u64 deadline;
	u64 overruns;
	u64 next;
	u64 counted;
};

/*
 * The record of dormant periodic @ht, with the periods that passed since
 * its expiry was served counted in; sets @tk->next. Caller holds the lock.
 */
static void fill_dormant(struct hwt_timer *ht, struct hwtimer_event *ev,
			 struct hwt_taken *tk)
{
	struct hwt_ptimer *pt = to_ptimer(ht);
	u64 period = ht->period, now, k = 0;

	lockdep_assert_held(&ht->ctx->wqh.lock);
	now = hwtimer_wheel_now(clock_wheel(ht->clock));
	if (now > pt->deadline_ns)
		k = div64_u64(now - pt->deadline_ns, period);
	tk->deadline = pt->deadline_ns + k * period;
	ev->overruns = pt->overruns + k;
	tk->counted = k;
	/* The periods counted now are served now. */
	if (k)
		ev->fire_ns = now;
	if (check_add_overflow(tk->deadline, period, &tk->next)) {
		tk->next = 0;
		ev->flags = HWTIMER_EVENT_LAST;
	}
}

/*
 * The record of @ht's expiries since the last read, its times on the
 * clocks of the context's time namespace, and what taking it will do.
 * Changes nothing. Caller holds the lock.
 */
static void fill_record(struct hwt_timer *ht, struct hwtimer_event *ev,
			struct hwt_taken *tk)
{
	lockdep_assert_held(&ht->ctx->wqh.lock);
	memset(ev, 0, sizeof(*ev));
	ev->id = ht->id;
	ev->cookie = ht->cookie;
	ev->fire_ns = ht->fire_ns;
	ev->clock = ht->clock;
	/* A one-shot's record is its last: taking it unlinks the id. */
	ev->flags = ht->linked && ht->periodic ? 0 : HWTIMER_EVENT_LAST;
	if (ht->ring)
		ev->flags |= HWTIMER_EVENT_RING;
	if (ht->clock_set)
		ev->flags |= HWTIMER_EVENT_CLOCK_SET | HWTIMER_EVENT_LAST;
	tk->ht = ht;
	tk->next = 0;
	tk->overruns = 0;
	tk->counted = 0;
	if (!ht->periodic) {
		/* A one-shot that fired is never armed again. */
		tk->deadline = ht->expires;
	} else if (ht->dormant && ht->linked) {
		tk->overruns = to_ptimer(ht)->overruns;
		fill_dormant(ht, ev, tk);
	} else {
		tk->overruns = to_ptimer(ht)->overruns;
		tk->deadline = to_ptimer(ht)->deadline_ns;
		ev->overruns = tk->overruns;
	}
	ev->deadline_ns = hwtimer_cdev_user_time(ht->ctx, ht->clock,
						 tk->deadline);
	ev->fire_ns = hwtimer_cdev_user_time(ht->ctx, ht->clock, ev->fire_ns);
}

/*
 * Assemble up to @max records from the head of the event list, leaving
 * them there. Caller holds the lock and the read mutex.
 */
static size_t peek_events(struct hwt_ctx *ctx, struct hwtimer_event *evs,
			  struct hwt_taken *tks, size_t max)
{
	struct hwt_timer *ht = ctx->ev_head;
	size_t n = 0;

	lockdep_assert_held(&ctx->wqh.lock);
	for (; ht && n < max; ht = ht->next, n++)
		fill_record(ht, &evs[n], &tks[n]);
	return n;
}

/*
 * Periodic @ht's record reached the caller: start a new record, and arm a
 * dormant timer for its next period (it is gone if there is none, or the
 * wheel refuses). Caller holds the lock.
 */
static void took_periodic(struct hwt_timer *ht, const struct hwt_taken *tk,
			  struct hwt_timer **reap)
{
	struct hwt_ptimer *pt = to_ptimer(ht);
	struct hwt_ctx *ctx = ht->ctx;

	lockdep_assert_held(&ctx->wqh.lock);
	pt->overruns = 0;
	if (!ht->dormant || !ht->linked)
		return;
	ht->dormant = false;
	pt->deadline_ns = tk->deadline;
	ht->expires = tk->next;
	if (!tk->next || q_add(ctx, ht)) {
		ctx->pending--;
		unlink_timer(ht, reap);
	}
}

/*
 * Take the first @n records, which read() copied out, off the event list.
 * A periodic timer that expired again since (a MODIFY armed it) keeps a
 * record of the rest at the tail. One-shot timers leave the id table with
 * their record. Caller holds the lock and the read mutex.
 */
static void take_events(struct hwt_ctx *ctx, const struct hwt_taken *tks,
			size_t n, struct hwt_timer **reap)
{
	struct hwt_timer *ht;
	size_t i;

	lockdep_assert_held(&ctx->wqh.lock);
	for (i = 0; i < n; i++) {
		ht = events_pop(ctx);
		if (WARN_ON_ONCE(ht != tks[i].ht))
			break;
		ctx->read++;
		/* Periods the read counted reached the caller: they fired. */
		ctx->fired += tks[i].counted;
		if (ht->periodic && to_ptimer(ht)->overruns != tks[i].overruns) {
			to_ptimer(ht)->overruns -= tks[i].overruns + 1;
			events_push(ctx, ht);
			continue;
		}
		ht->queued = false;
		ctx->queued--;
		queued_locked(ctx);
		if (ht->periodic)
			took_periodic(ht, &tks[i], reap);
		else if (ht->linked)
			unlink_timer(ht, reap);
		if (!ht->linked && !ht->dead && !ht->ring)
			kill_timer(ht, reap);
	}
}

static bool have_events(struct hwt_ctx *ctx)
{
	return READ_ONCE(ctx->ev_head);
}

/*
 * Wait for a record, an expiry to serve, or a set of the wall clock that
 * makes records of cancel-on-set timeouts. Caller holds the lock.
 * Return: 0 or an errno.
 */
static int wait_events(struct hwt_ctx *ctx, bool nonblock)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (have_events(ctx) || cos_stale(ctx) || ctx_due(ctx))
		return 0;
	if (nonblock)
		return -EAGAIN;
	return wait_event_interruptible_locked(ctx->wqh, have_events(ctx) ||
					       cos_stale(ctx) || ctx_due(ctx));
}

/**
 * hwtimer_cdev_read() - read()/readv() of a context's records
 * @ctx: the context
 * @to: where to copy them
 * @nonblock: O_NONBLOCK or IOCB_NOWAIT: never wait
 *
 * Whole records, as many as fit, timerfd's rules: a buffer smaller than a
 * record is EINVAL, no record and @nonblock is EAGAIN, a signal while
 * waiting for the first record is ERESTARTSYS. Once a record was copied
 * the call never waits again. A record may straddle iovecs.
 *
 * A read takes at most the records that were queued when it found the
 * first one: taking a periodic timeout's record re-arms it, and with
 * enough short periods new records would come as fast as copying takes
 * them, so a read bounded only by the buffer might never end. It also
 * stops between chunks at a signal, returning what it copied.
 *
 * Context: process context; may sleep.
 * Return: bytes copied, or a negative errno.
 */
ssize_t hwtimer_cdev_read(struct hwt_ctx *ctx, struct iov_iter *to,
			  bool nonblock)
{
	const size_t size = sizeof(struct hwtimer_event);
	struct hwtimer_event evs[HWT_READ_CHUNK];
	struct hwt_taken tks[HWT_READ_CHUNK];
	size_t max = iov_iter_count(to) / size;
	struct hwt_timer *reap = NULL;
	size_t n, got, done = 0;
	int ret;

	if (!max)
		return -EINVAL;
	if (nonblock) {
		if (!mutex_trylock(&ctx->read_mutex))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&ctx->read_mutex)) {
		return -ERESTARTSYS;
	}
	/*
	 * The read serves the context's due expiries, and a set of the clock
	 * turns cancel-on-set timeouts into records.
	 */
	for (;;) {
		ret = hwtimer_cdev_cos_sync(ctx);
		if (!ret)
			ret = hwtimer_cdev_collect(ctx);
		if (ret) {
			mutex_unlock(&ctx->read_mutex);
			return ret;
		}
		spin_lock(&ctx->wqh.lock);
		ret = wait_events(ctx, nonblock);
		if (ret || have_events(ctx))
			break;
		spin_unlock(&ctx->wqh.lock);
	}
	if (!ret)
		max = min_t(u64, max, ctx->queued);
	while (!ret && done < max) {
		n = peek_events(ctx, evs, tks,
				min_t(size_t, max - done, HWT_READ_CHUNK));
		if (!n)
			break;
		spin_unlock(&ctx->wqh.lock);
		got = copy_to_iter(evs, n * size, to) / size;
		spin_lock(&ctx->wqh.lock);
		take_events(ctx, tks, got, &reap);
		done += got;
		if (got < n)
			ret = -EFAULT;
		else if (done < max && signal_pending(current))
			break;
	}
	spin_unlock(&ctx->wqh.lock);
	mutex_unlock(&ctx->read_mutex);
	reap_timers(ctx, reap);
	return done ? done * size : ret;
}

/**
 * hwtimer_cdev_readable() - does a context have something to read?
 * @ctx: the context
 *
 * Context: any but interrupt; takes the context's lock.
 * Return: true if a record waits in the event list or the completion
 * ring, an expiry is due, or a set of the wall clock is to be swept.
 */
bool hwtimer_cdev_readable(struct hwt_ctx *ctx)
{
	bool ready;

	spin_lock(&ctx->wqh.lock);
	ready = have_events(ctx) || cq_ready_locked(ctx) || cos_stale(ctx) ||
		ctx_due(ctx);
	spin_unlock(&ctx->wqh.lock);
	return ready;
}

/**
 * hwtimer_cdev_budget_take() - take shared-thread work from a user's budget
 * @ctx: the context the work is for
 * @tick: index of the tick the work is done in, on the work's wheel
 * @want: units of work (ring entries or expiries)
 *
 * Each user may have %HWT_USER_BUDGET units of ring work done on shared
 * threads per tick, whatever number of contexts it spreads them over.
 *
 * Context: any; never sleeps.
 * Return: the units granted, at most @want; 0 once the tick's are spent.
 */
u32 hwtimer_cdev_budget_take(struct hwt_ctx *ctx, u64 tick, u32 want)
{
	atomic64_t *b = &ctx->user->budget;
	s64 old = atomic64_read(b), new;
	u64 t = tick & (BIT_ULL(63 - HWT_BUDGET_SHIFT) - 1);
	u32 used, got;

	BUILD_BUG_ON(BIT(HWT_BUDGET_SHIFT) <= HWT_USER_BUDGET);
	do {
		used = 0;
		if ((u64)old >> HWT_BUDGET_SHIFT == t)
			used = old & (BIT(HWT_BUDGET_SHIFT) - 1);
		if (used >= HWT_USER_BUDGET)
			return 0;
		got = min_t(u32, want, HWT_USER_BUDGET - used);
		new = (s64)(t << HWT_BUDGET_SHIFT | (used + got));
	} while (!atomic64_try_cmpxchg(b, &old, new));
	return got;
}

/**
 * hwtimer_cdev_tag_alloc() - a tag no context's ids carry
 * @ctx: the context it is for, whose user it is charged to
 * @owner: what holds the tag
 * @tag: out: the tag, from 1 to 2^%HWTIMER_IDS_TAG_BITS - 1
 *
 * Tags are handed out cyclically, so a freed one comes back as late as it
 * can: after every other tag was handed out once.
 *
 * Context: process context; may sleep.
 * Return: 0; -EMFILE when the user holds max_user_contexts tags; -ENFILE
 * when every tag is held; -ENOMEM.
 */
int hwtimer_cdev_tag_alloc(struct hwt_ctx *ctx, void *owner, u32 *tag)
{
	struct hwt_user *u = ctx->user;
	int ret;

	if (atomic_long_inc_return(&u->tags) >
	    READ_ONCE(max_user_contexts)) {
		atomic_long_dec(&u->tags);
		return -EMFILE;
	}
	ret = xa_alloc_cyclic(&hwt_tags, tag, owner,
			      XA_LIMIT(1, BIT(HWTIMER_IDS_TAG_BITS) - 1),
			      &hwt_next_tag, GFP_KERNEL);
	if (ret >= 0)
		return 0;
	atomic_long_dec(&u->tags);
	return ret == -EBUSY ? -ENFILE : ret;
}

/**
 * hwtimer_cdev_tag_free() - give back a tag of hwtimer_cdev_tag_alloc()
 * @ctx: the context it was for
 * @tag: the tag
 */
void hwtimer_cdev_tag_free(struct hwt_ctx *ctx, u32 tag)
{
	xa_erase(&hwt_tags, tag);
	atomic_long_dec(&ctx->user->tags);
}

/**
 * hwtimer_cdev_ctx_alloc() - a new context
 * @u: the user it is charged to, whose reference it takes over
 *
 * Context: process context; may sleep.
 * Return: the context, or ERR_PTR(): -ENOMEM, or an errno of
 * hwtimer_cdev_tag_alloc(). On error the caller keeps its reference.
 */
struct hwt_ctx *hwtimer_cdev_ctx_alloc(struct hwt_user *u)
{
	struct hwt_ctx *ctx;
	int i, ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	init_waitqueue_head(&ctx->wqh);
	mutex_init(&ctx->read_mutex);
	mutex_init(&ctx->cos_mutex);
	INIT_LIST_HEAD(&ctx->cos_node);
	ctx->ev_tail = &ctx->ev_head;
	for (i = 0; i < HWT_QUEUES; i++) {
		ctx->q[i].root = RB_ROOT_CACHED;
		ctx->q[i].ctx = ctx;
		ctx->q[i].clock = i == 2 ? CLOCK_REALTIME :
			i ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
		hwtimer_timeout_init(&ctx->q[i].wake, q_wake_fn, 0);
	}
	INIT_DELAYED_WORK(&ctx->spare_trim, spare_trim_fn);
	tns_capture(ctx);
	ctx->user = u;
	ret = hwtimer_cdev_tag_alloc(ctx, ctx, &ctx->tag);
	if (ret) {
		kfree(ctx);
		return ERR_PTR(ret);
	}
	hwtimer_ids_init(&ctx->ids, &ctx->wqh.lock, ctx->tag, HWTIMER_IDS_MAX);
	return ctx;
}

/**
 * hwtimer_cdev_ctx_stop() - stop a context and free its timeouts
 * @ctx: the context, whose last reference is gone and whose rings'
 *	drains are stopped (hwtimer_ring_stop()): nothing arms a timer now
 *
 * Stops the wake-ups; after this nothing else touches the context and the
 * rest needs no lock. The ring slots stay, for hwtimer_ring_free().
 *
 * Context: process context; may sleep. A context may hold ctx_max_pending
 * timeouts: it reschedules.
 */
void hwtimer_cdev_ctx_stop(struct hwt_ctx *ctx)
{
	struct hwt_timer *ht, *n;
	u32 idx;
	int i;

	if (ctx->cos_listed) {
		spin_lock(&hwt_cos_lock);
		list_del_rcu(&ctx->cos_node);
		spin_unlock(&hwt_cos_lock);
		/* No wake-up walk still sees the context. */
		synchronize_rcu();
	}
	for (i = 0; i < HWT_QUEUES; i++)
		hwtimer_cancel_sync(&ctx->q[i].wake);
	for (idx = 1; idx < ctx->ids.cap; idx++) {
		ht = id_timer(hwtimer_ids_at(&ctx->ids, idx));
		if (ht && !ht->queued)
			free_timer(ht);
		cond_resched();
	}
	for (ht = ctx->ev_head; ht; ht = n) {
		n = ht->next;
		if (!ht->ring)
			free_timer(ht);
	}
	/* Nothing puts a spare now: the trim is not queued again. */
	cancel_delayed_work_sync(&ctx->spare_trim);
	free_spares(ctx->spare, ctx->nspare - ctx->nextra);
	free_spares(ctx->spare_extra, ctx->nextra);
}

/**
 * hwtimer_cdev_ctx_free() - free a context
 * @ctx: the context, after hwtimer_cdev_ctx_stop() and hwtimer_ring_free()
 *
 * Gives back its places in the limits and its tag; the caller then drops
 * the reference to its user.
 *
 * Context: process context; may sleep.
 */
void hwtimer_cdev_ctx_free(struct hwt_ctx *ctx)
{
	hwtimer_ids_destroy(&ctx->ids);
	if (ctx->evfd)
		eventfd_ctx_put(ctx->evfd);
	atomic_long_sub(ctx->live + ctx->nextra, &ctx->user->live);
	hwtimer_cdev_tag_free(ctx, ctx->tag);
	mutex_destroy(&ctx->cos_mutex);
	mutex_destroy(&ctx->read_mutex);
	kfree(ctx);
}

/**
 * hwtimer_cdev_init() - set up what contexts share: caches and wheels
 *
 * Context: module init, after the default wheel exists.
 * Return: 0 or a negative errno.
 */
int hwtimer_cdev_init(void)
{
	struct hwtimer_wheel *def = hwtimer_default_wheel();
	clockid_t other = hwtimer_wheel_clock(def) == CLOCK_BOOTTIME ?
		CLOCK_MONOTONIC : CLOCK_BOOTTIME;
	struct hwtimer_wheel_params p = {
		.name = other == CLOCK_BOOTTIME ? "chardev-boottime" :
			"chardev-monotonic",
		.clock = other,
	};
	int ret;

	/*
	 * One base each, whatever the default wheel has: they carry a
	 * wake-up per context of their clock, moved only when its earliest
	 * deadline changes, and per-CPU bases would multiply their workers
	 * by the CPUs for that.
	 */
	hwtimer_default_wheel_like(&p);
	p.flags &= ~HWTIMER_WHEEL_PERCPU;
	if (!max_user_timeouts)
		max_user_timeouts = max(totalram_pages() * PAGE_SIZE / 25 / 128,
					1024UL);
	/*
	 * max_user_timeouts counts 128 bytes a timeout: a one-shot is 96
	 * with its slot of the id table, a periodic one 112.
	 */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && sizeof(struct hwt_timer) > 88);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     sizeof(struct hwt_ptimer) > 104);

	hwt_cache = KMEM_CACHE(hwt_timer, SLAB_ACCOUNT);
	hwt_pcache = KMEM_CACHE(hwt_ptimer, SLAB_ACCOUNT);
	if (!hwt_cache || !hwt_pcache) {
		ret = -ENOMEM;
		goto err_destroy_cache;
	}
	hwt_own_wheel = hwtimer_wheel_create(&p);
	if (IS_ERR(hwt_own_wheel)) {
		ret = PTR_ERR(hwt_own_wheel);
		goto err_destroy_cache;
	}
	p.name = "chardev-realtime";
	p.clock = 0;
	p.flags |= HWTIMER_WHEEL_REALTIME;
	hwt_rt_wheel = hwtimer_wheel_create(&p);
	if (IS_ERR(hwt_rt_wheel)) {
		ret = PTR_ERR(hwt_rt_wheel);
		goto err_destroy_own;
	}
	ret = drain_wheel_create();
	if (ret)
		goto err_destroy_wheel;
	hwtimer_timeout_init(&hwt_cos_wake, cos_wake_fn, 0);
	ret = pvclock_gtod_register_notifier(&hwt_cos_nb);
	if (ret)
		goto err_destroy_wheel;
	return 0;

err_destroy_wheel:
	drain_wheel_destroy();
	hwtimer_wheel_destroy(hwt_rt_wheel);
err_destroy_own:
	hwtimer_wheel_destroy(hwt_own_wheel);
err_destroy_cache:
	kmem_cache_destroy(hwt_pcache);
	kmem_cache_destroy(hwt_cache);
	return ret;
}

/**
 * hwtimer_cdev_exit() - undo hwtimer_cdev_init()
 *
 * Context: module exit; no context is open.
 */
void hwtimer_cdev_exit(void)
{
	cos_unregister();
	drain_wheel_destroy();
	hwtimer_wheel_destroy(hwt_rt_wheel);
	hwtimer_wheel_destroy(hwt_own_wheel);
	kmem_cache_destroy(hwt_pcache);
	kmem_cache_destroy(hwt_cache);
}
