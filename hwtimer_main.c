// SPDX-License-Identifier: GPL-2.0
/*
 * The hwtimer runtime: wheel instances, their drive, the
 * exported kernel API, stats, debugfs and the module life cycle.
 *
 * Each wheel is driven like this:
 *
 *   hrtimer (hard irq)        tick kthread              worker kthreads
 *   ------------------        ------------              ---------------
 *   count, set kicked,   ->   advance the wheel to  ->  take a timeout off
 *   wake the tick thread      now, splice what is       the ready list, run
 *                             due onto the ready        its callback, re-arm
 *                             list, re-arm the          it when periodic
 *                             hrtimer to the next
 *                             occupied tick
 *
 * The hrtimer is absolute and tickless: it is armed to the next occupied
 * tick only, moved earlier when an earlier timeout arrives, and left
 * unarmed while nothing is pending. Its callback does O(1) work. Like
 * timerfd, nothing is re-armed in interrupt context: a periodic timeout is
 * re-armed by the worker after its callback returned, so a tiny period
 * cannot keep a CPU in hard irq (and periods shorter than a tick are
 * refused anyway).
 *
 * A timeout's state lives under its wheel's raw spinlock:
 *
 *   idle --arm--> PENDING (in the wheel, or collected onto the ready list,
 *                 or parked on the worker still running its last expiry)
 *   PENDING --worker takes it--> RUNNING --callback returns--> idle, or
 *                 PENDING again (periodic, or armed by the callback)
 *   PENDING --cancel--> idle (the callback never starts)
 *
 * A collected timeout whose callback has not started is still PENDING, so
 * hwtimer_cancel() racing expiry resolves exactly once: either the cancel
 * takes the timeout back (CANCELLED, no run) or the worker took it first
 * (RUNNING or NOT_PENDING, exactly one run). Running is recorded per worker,
 * not in the timeout, so a one-shot callback may free the object embedding
 * its timeout: once the callback returns, the timeout is only touched again
 * if it is pending or periodic (and a periodic timeout lives until it is
 * cancelled). A timeout never runs on two workers at once: one that expires
 * while its previous run is still going is parked on that worker, which
 * queues it again when the callback returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "hwtimer.h"
#include "hwtimer_internal.h"

#define CREATE_TRACE_POINTS
#include "hwtimer_trace.h"

/* Longest wheel name, including the terminating NUL. */
#define HWTIMER_NAME_LEN	32
/* Workers of a wheel whose parameters say 0. */
#define HWTIMER_WORKERS_DEFAULT	2

/* A timeout's state: bits in the spare of its wheel entry. */
#define hwt_state(t)	((t)->entry.aux)
/* Bits of hwt_state(). */
#define HWT_QUEUED	0x1	/* pending: in the wheel or on the ready list */
#define HWT_PARKED	0x2	/* pending, parked on the worker running it */

/* Owner modules a wheel pins with one reference each; see pin_get(). */
#define HWTIMER_PIN_SLOTS	4

/**
 * struct hwtimer_pin - one module reference held for many timeouts
 * @mod: the owner module, NULL when the slot is free
 * @count: pending or running timeouts of @mod on the wheel using this slot
 */
struct hwtimer_pin {
	struct module *mod;
	unsigned long count;
};

/**
 * struct hwtimer_worker - one callback kthread of a wheel
 * @w: the wheel
 * @task: the kthread
 * @cur: timeout whose callback this worker runs now, or NULL
 * @owner: module pinned for @cur (NULL when none is pinned)
 * @period: @cur's period when its callback started
 * @overruns: periods @cur missed before this run
 * @rearmed: @cur became pending again during this run
 * @norearm: @cur was cancelled during this run: no periodic re-arm
 * @parked: @cur expired again during this run; queued when it returns
 *
 * Every field but @w and @task is under the wheel's lock; @cur is also read
 * locklessly by hwtimer_cancel_sync() to wait for the callback.
 */
struct hwtimer_worker {
	struct hwtimer_wheel *w;
	struct task_struct *task;
	struct hwtimer_timeout *cur;
	struct module *owner;
	u64 period;
	u64 overruns;
	bool rearmed;
	bool norearm;
	struct hwtimer_timeout *parked;
};

/**
 * struct hwtimer_wheel - a wheel instance
 * @lock: protects the wheel core, @ready, @npending, @hrt_next, @stopped,
 *	@nrunning, @stats, every worker's run state and the state of every
 *	timeout armed on this wheel
 * @ready: due timeouts waiting for a worker (linked by entry.node)
 * @npending: timeouts pending now
 * @hrt_next: time the hrtimer is armed to, U64_MAX when not armed
 * @stopped: hwtimer_wheel_stop() was called: arms are refused
 * @nrunning: callbacks running now
 * @stats: counters; pending and hrtimer_fires are filled in on read
 * @pins: owner modules pinned for many timeouts at once
 * @hrt_fires: times @hrt fired (written only by its callback)
 * @kicked: the hrtimer fired since the tick thread last advanced
 * @hrt: the tickless hrtimer driving the wheel
 * @tick_task: kthread advancing the wheel
 * @work_wq: idle workers wait here for @ready to fill
 * @done_wq: hwtimer_cancel_sync() and stop wait here for callbacks
 * @stop_mutex: serialises stop and destroy
 * @link: entry in hwtimer_wheels
 * @dir: debugfs directory
 * @clock: an &enum hwtimer_clock
 * @tick_ns: tick length
 * @max_pending: most timeouts pending at once, 0 for no limit
 * @nworkers: entries in @workers
 * @name: name under debugfs
 * @wc: the wheel core
 * @workers: the callback workers
 */
struct hwtimer_wheel {
	raw_spinlock_t lock;
	struct list_head ready;
	u64 npending;
	u64 hrt_next;
	bool stopped;
	unsigned int nrunning;
	struct hwtimer_stats stats;
	struct hwtimer_pin pins[HWTIMER_PIN_SLOTS];
	atomic64_t hrt_fires;
	bool kicked;
	struct hrtimer hrt;
	struct task_struct *tick_task;
	wait_queue_head_t work_wq;
	wait_queue_head_t done_wq;
	struct mutex stop_mutex;	/* serialises stop and destroy */
	struct list_head link;
	struct dentry *dir;
	u32 clock;
	u64 tick_ns;
	u64 max_pending;
	unsigned int nworkers;
	char name[HWTIMER_NAME_LEN];
	struct hwtimer_wc wc;
	struct hwtimer_worker workers[];
};

/* Every wheel, for unique names; protected by hwtimer_wheels_lock. */
static LIST_HEAD(hwtimer_wheels);
static DEFINE_MUTEX(hwtimer_wheels_lock);
/* /sys/kernel/debug/hwtimer, or an error pointer without debugfs. */
static struct dentry *hwtimer_debugfs;
/* The shared instance, from module init to module exit. */
static struct hwtimer_wheel *hwtimer_default;

/* Parameters of the default wheel. */
static ulong tick_ns = HWTIMER_TICK_DEFAULT_NS;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "default wheel: tick length in ns (10000 - 1000000000)");
static uint workers = HWTIMER_WORKERS_DEFAULT;
module_param(workers, uint, 0444);
MODULE_PARM_DESC(workers, "default wheel: callback worker kthreads (1 - 64)");
static ulong max_pending;
module_param(max_pending, ulong, 0444);
MODULE_PARM_DESC(max_pending, "default wheel: most pending timeouts, 0 = unlimited");
static uint clock_param;
module_param_named(clock, clock_param, uint, 0444);
MODULE_PARM_DESC(clock, "default wheel: 0 = CLOCK_MONOTONIC, 1 = CLOCK_BOOTTIME");

static u64 wheel_now(const struct hwtimer_wheel *w)
{
	if (w->clock == HWTIMER_CLOCK_BOOTTIME)
		return ktime_get_boottime_ns();
	return ktime_get_ns();
}

/*
 * Pin @owner for one more pending or running timeout of @w. A wheel holds
 * one module reference per owner for all of that owner's timeouts, counted
 * in @w->pins under the wheel lock, so arming and cancelling do no atomic
 * operation on the module's refcount; when every slot is taken by other
 * owners, the timeout takes a reference of its own. pin_put() drops the
 * slot's count first and a reference of the timeout's own otherwise, so
 * while an owner has P timeouts pinned on @w, P = slot count + references
 * of their own, and the owner keeps at least one reference while P > 0.
 * Caller holds w->lock. Return: false if @owner is being unloaded.
 */
static bool pin_get(struct hwtimer_wheel *w, struct module *owner)
{
	struct hwtimer_pin *p, *free = NULL;

	lockdep_assert_held(&w->lock);
	if (!owner || owner == THIS_MODULE)
		return true;
	for (p = w->pins; p < w->pins + HWTIMER_PIN_SLOTS; p++) {
		if (p->mod == owner) {
			p->count++;
			return true;
		}
		if (!p->mod && !free)
			free = p;
	}
	if (!try_module_get(owner))
		return false;
	if (free) {
		free->mod = owner;
		free->count = 1;
	}
	return true;
}

/* Drop one pin of @owner taken by pin_get(). Caller holds w->lock. */
static void pin_put(struct hwtimer_wheel *w, struct module *owner)
{
	struct hwtimer_pin *p;

	lockdep_assert_held(&w->lock);
	if (!owner || owner == THIS_MODULE)
		return;
	for (p = w->pins; p < w->pins + HWTIMER_PIN_SLOTS; p++) {
		if (p->mod != owner)
			continue;
		if (--p->count)
			return;
		p->mod = NULL;
		break;
	}
	module_put(owner);
}

static bool is_pending(const struct hwtimer_timeout *t)
{
	return hwt_state(t) & HWT_QUEUED;
}

/* Worker running @t's callback now, or NULL. Caller holds w->lock. */
static struct hwtimer_worker *running_on(struct hwtimer_wheel *w,
					 const struct hwtimer_timeout *t)
{
	unsigned int i;

	lockdep_assert_held(&w->lock);
	if (!w->nrunning)
		return NULL;
	for (i = 0; i < w->nworkers; i++)
		if (w->workers[i].cur == t)
			return &w->workers[i];
	return NULL;
}

/* Lockless variant for waiters; see hwtimer_cancel_sync(). */
static bool maybe_running(struct hwtimer_wheel *w,
			  const struct hwtimer_timeout *t)
{
	unsigned int i;

	for (i = 0; i < w->nworkers; i++)
		if (READ_ONCE(w->workers[i].cur) == t)
			return true;
	return false;
}

static struct hwtimer_worker *current_worker(struct hwtimer_wheel *w)
{
	unsigned int i;

	for (i = 0; i < w->nworkers; i++)
		if (w->workers[i].task == current)
			return &w->workers[i];
	return NULL;
}

/* Make sure the hrtimer fires by @ns. Caller holds w->lock. */
static void program(struct hwtimer_wheel *w, u64 ns)
{
	lockdep_assert_held(&w->lock);
	if (ns >= w->hrt_next)
		return;
	w->hrt_next = ns;
	hrtimer_start(&w->hrt, ns_to_ktime(min_t(u64, ns, KTIME_MAX)),
		      HRTIMER_MODE_ABS_HARD);
}

/* Put idle, pinned @t into the wheel for @deadline. Caller holds w->lock. */
static void enqueue(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		    u64 deadline)
{
	struct hwtimer_worker *wk;

	lockdep_assert_held(&w->lock);
	hwtimer_wc_arm(&w->wc, &t->entry, deadline);
	hwt_state(t) = HWT_QUEUED;
	w->npending++;
	wk = running_on(w, t);
	if (wk)
		wk->rearmed = true;
	/* The hrtimer fires at the start of the deadline's (rounded up) tick. */
	if (deadline < w->hrt_next) {
		u64 tick = hwtimer_wc_ns_to_tick(&w->wc, deadline);

		program(w, hwtimer_wc_tick_to_ns(&w->wc, tick));
	}
	trace_hwtimer_timeout_arm(w->name, t, deadline, t->period_ns);
}

/*
 * Take pending @t back from wherever it waits; its pin is left to the
 * caller. Caller holds w->lock.
 */
static void dequeue(struct hwtimer_wheel *w, struct hwtimer_timeout *t)
{
	struct hwtimer_worker *wk = running_on(w, t);

	lockdep_assert_held(&w->lock);
	if (hwtimer_wc_entry_pending(&t->entry)) {
		hwtimer_wc_cancel(&w->wc, &t->entry);
	} else if (hwt_state(t) & HWT_PARKED) {
		if (!WARN_ON_ONCE(!wk))
			wk->parked = NULL;
	} else {
		list_del_init(&t->entry.node);
	}
	hwt_state(t) = 0;
	w->npending--;
	if (wk)
		wk->rearmed = false;
	if (!w->wc.count && w->hrt_next != U64_MAX) {
		hrtimer_try_to_cancel(&w->hrt);
		w->hrt_next = U64_MAX;
	}
}

/* Deadline in ns on @w's clock of an arm with @expires and @flags. */
static u64 abs_deadline(struct hwtimer_wheel *w, u64 expires, u32 flags)
{
	u64 d;

	if (flags & HWTIMER_ABS)
		return expires;
	if (check_add_overflow(wheel_now(w), expires, &d))
		return U64_MAX;
	return d;
}

/*
 * Arm idle @t for @deadline: check the limit, pin the owner (unless a
 * running callback already holds the pin), enqueue. Caller holds w->lock.
 */
static int start(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		 u64 deadline, u64 period)
{
	lockdep_assert_held(&w->lock);
	if (w->max_pending && w->npending >= w->max_pending) {
		w->stats.rejected++;
		return -ENOSPC;
	}
	if (!running_on(w, t) && !pin_get(w, t->owner))
		return -ENODEV;
	t->period_ns = period;
	enqueue(w, t, deadline);
	w->stats.armed++;
	return 0;
}

/*
 * Lock the wheel @t was last armed on, coping with a concurrent move to
 * another wheel. Return: the locked wheel, or NULL if @t was never armed.
 */
static struct hwtimer_wheel *lock_timeout(struct hwtimer_timeout *t,
					  unsigned long *flags)
{
	struct hwtimer_wheel *w;

	for (;;) {
		w = READ_ONCE(t->wheel);
		if (!w)
			return NULL;
		raw_spin_lock_irqsave(&w->lock, *flags);
		if (likely(READ_ONCE(t->wheel) == w))
			return w;
		raw_spin_unlock_irqrestore(&w->lock, *flags);
	}
}

/*
 * Bind @t to @w and lock @w. A timeout moves between wheels only while
 * idle on the old one. Return: 0 with w->lock held, or -EBUSY.
 */
static int claim(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		 unsigned long *flags)
{
	struct hwtimer_wheel *old = READ_ONCE(t->wheel);
	unsigned long oflags;

	if (old && old != w) {
		old = lock_timeout(t, &oflags);
		if (old && old != w) {
			bool busy = is_pending(t) || running_on(old, t);

			if (!busy)
				WRITE_ONCE(t->wheel, NULL);
			raw_spin_unlock_irqrestore(&old->lock, oflags);
			if (busy)
				return -EBUSY;
		} else if (old) {
			raw_spin_unlock_irqrestore(&old->lock, oflags);
		}
	}
	raw_spin_lock_irqsave(&w->lock, *flags);
	if (!READ_ONCE(t->wheel))
		WRITE_ONCE(t->wheel, w);
	if (READ_ONCE(t->wheel) != w) {
		raw_spin_unlock_irqrestore(&w->lock, *flags);
		return -EBUSY;
	}
	return 0;
}

/**
 * __hwtimer_timeout_init() - prepare a timeout; use hwtimer_timeout_init()
 * @t: the timeout
 * @fn: callback, run in process context
 * @flags: must be 0 (reserved)
 * @owner: module to pin while @t is pending or running; NULL pins nothing
 *
 * Context: any; @t must not be pending or running.
 */
void __hwtimer_timeout_init(struct hwtimer_timeout *t, hwtimer_fn_t fn,
			    u32 flags, struct module *owner)
{
	memset(t, 0, sizeof(*t));
	hwtimer_wc_entry_init(&t->entry);
	t->fn = fn;
	t->owner = owner;
}
EXPORT_SYMBOL_GPL(__hwtimer_timeout_init);

/**
 * hwtimer_arm() - arm an idle timeout
 * @w: the wheel
 * @t: the timeout, set up by hwtimer_timeout_init()
 * @expires: deadline in ns: relative to now, or absolute on @w's clock with
 *	%HWTIMER_ABS; a deadline in the past fires at once
 * @period: 0 for a one-shot, else the period in ns (at least one tick)
 * @flags: 0 or %HWTIMER_ABS
 *
 * The callback runs no earlier than the deadline, normally within a tick
 * after it. A periodic timeout is re-armed after each run for the next
 * period that has not passed yet; the periods it skipped are reported by
 * hwtimer_overruns(). The callback may arm its own timeout again.
 *
 * Context: any, hard interrupt included; never sleeps. Takes @w's lock
 * with interrupts saved.
 * Return: 0 on success; -EINVAL on bad arguments; -EBUSY if @t is pending
 * (or bound to another wheel that it is pending or running on); -ENOSPC
 * when @w holds its maximum of pending timeouts; -ESHUTDOWN after
 * hwtimer_wheel_stop(); -ENODEV if @t's owner module is being unloaded.
 */
int hwtimer_arm(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		u64 expires, u64 period, u32 flags)
{
	unsigned long irqflags;
	int ret;

	if (!w || !t || !t->fn || (flags & ~HWTIMER_ABS) ||
	    (period && period < w->tick_ns))
		return -EINVAL;
	ret = claim(w, t, &irqflags);
	if (ret)
		return ret;
	if (w->stopped) {
		w->stats.rejected++;
		ret = -ESHUTDOWN;
	} else if (is_pending(t)) {
		ret = -EBUSY;
	} else {
		ret = start(w, t, abs_deadline(w, expires, flags), period);
	}
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_arm);

/**
 * hwtimer_modify() - move a timeout to a new deadline, in place
 * @t: the timeout; pending, or idle after an earlier hwtimer_arm()
 * @expires: new deadline, as for hwtimer_arm()
 * @flags: 0 or %HWTIMER_ABS
 *
 * A pending timeout keeps its place in the limit and its pin and just moves;
 * an idle one is armed again on the wheel of its last arm, keeping its
 * period. A timeout collected for expiry whose callback has not started yet
 * is still pending and is moved too.
 *
 * Context: any, hard interrupt included; never sleeps.
 * Return: 0 on success; -EINVAL if @t was never armed or @flags is bad;
 * -ENOSPC, -ESHUTDOWN or -ENODEV as for hwtimer_arm() when @t was idle
 * (-ESHUTDOWN also when pending on a stopped wheel).
 */
int hwtimer_modify(struct hwtimer_timeout *t, u64 expires, u32 flags)
{
	struct hwtimer_wheel *w;
	unsigned long irqflags;
	int ret = 0;

	if (!t || (flags & ~HWTIMER_ABS))
		return -EINVAL;
	w = lock_timeout(t, &irqflags);
	if (!w)
		return -EINVAL;
	if (w->stopped) {
		w->stats.rejected++;
		ret = -ESHUTDOWN;
	} else if (is_pending(t)) {
		dequeue(w, t);
		enqueue(w, t, abs_deadline(w, expires, flags));
	} else {
		ret = start(w, t, abs_deadline(w, expires, flags),
			    t->period_ns);
	}
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_modify);

/* Cancel @t on @w. Caller holds w->lock. */
static int cancel_locked(struct hwtimer_wheel *w, struct hwtimer_timeout *t)
{
	struct hwtimer_worker *wk = running_on(w, t);
	int ret = HWTIMER_NOT_PENDING;

	lockdep_assert_held(&w->lock);
	if (is_pending(t)) {
		dequeue(w, t);
		w->stats.cancelled++;
		if (!wk)
			pin_put(w, t->owner);
		ret = HWTIMER_CANCELLED;
	}
	if (wk) {
		wk->norearm = true;
		if (ret == HWTIMER_NOT_PENDING)
			ret = HWTIMER_RUNNING;
	}
	trace_hwtimer_timeout_cancel(w->name, t, ret);
	return ret;
}

/**
 * hwtimer_cancel() - take back a pending timeout, without waiting
 * @t: the timeout
 *
 * Cancelling a timeout whose expiry was already collected but whose
 * callback has not started still succeeds: exactly one of cancel and
 * callback wins. A running periodic timeout is not re-armed after its
 * callback returns.
 *
 * Context: any, hard interrupt included; never sleeps.
 * Return: %HWTIMER_CANCELLED if @t was pending (its pending expiry will
 * not run; an earlier run of the callback may still be in progress);
 * %HWTIMER_RUNNING if @t was not pending but its callback is running now;
 * %HWTIMER_NOT_PENDING otherwise.
 */
int hwtimer_cancel(struct hwtimer_timeout *t)
{
	struct hwtimer_wheel *w;
	unsigned long irqflags;
	int ret;

	w = lock_timeout(t, &irqflags);
	if (!w)
		return HWTIMER_NOT_PENDING;
	ret = cancel_locked(w, t);
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_cancel);

/**
 * hwtimer_cancel_sync() - cancel a timeout and wait for its callback
 * @t: the timeout
 *
 * Like hwtimer_cancel(), then waits until the callback is not running,
 * cancelling again whatever the callback re-armed. On return @t is idle
 * (unless someone else arms it concurrently) and may be freed.
 *
 * Context: process context, may sleep. Must not be called from @t's own
 * callback; may be called from another callback of the same wheel.
 * Return: the result of the first cancel that found something to cancel
 * (%HWTIMER_CANCELLED or %HWTIMER_RUNNING), else %HWTIMER_NOT_PENDING;
 * -EDEADLK when called from @t's own callback.
 */
int hwtimer_cancel_sync(struct hwtimer_timeout *t)
{
	int ret = HWTIMER_NOT_PENDING;
	struct hwtimer_worker *wk;
	struct hwtimer_wheel *w;
	unsigned long irqflags;
	int r;

	might_sleep();
	for (;;) {
		w = lock_timeout(t, &irqflags);
		if (!w)
			return ret;
		wk = running_on(w, t);
		if (wk && wk->task == current) {
			raw_spin_unlock_irqrestore(&w->lock, irqflags);
			return -EDEADLK;
		}
		r = cancel_locked(w, t);
		raw_spin_unlock_irqrestore(&w->lock, irqflags);
		if (ret == HWTIMER_NOT_PENDING)
			ret = r;
		if (!wk)
			return ret;
		wait_event(w->done_wq, !maybe_running(w, t));
	}
}
EXPORT_SYMBOL_GPL(hwtimer_cancel_sync);

/**
 * hwtimer_pending() - is a timeout pending?
 * @t: the timeout
 *
 * Context: any; never sleeps. The answer may be stale by the time the
 * caller looks at it unless the caller serialises with the timeout's users.
 * Return: true if @t is armed and its callback has not started yet.
 */
bool hwtimer_pending(struct hwtimer_timeout *t)
{
	struct hwtimer_wheel *w;
	unsigned long irqflags;
	bool ret;

	w = lock_timeout(t, &irqflags);
	if (!w)
		return false;
	ret = is_pending(t);
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_pending);

/**
 * hwtimer_overruns() - periods missed before the running callback
 * @t: a periodic timeout, from inside its callback
 *
 * Context: @t's own callback; the count is kept by the worker running it.
 * Return: how many whole periods passed unserved before this run (0 when on
 * time); 0 for a one-shot, and 0 when not called from @t's callback.
 */
u64 hwtimer_overruns(const struct hwtimer_timeout *t)
{
	struct hwtimer_wheel *w = READ_ONCE(t->wheel);
	struct hwtimer_worker *wk = w ? current_worker(w) : NULL;

	return wk && READ_ONCE(wk->cur) == t ? wk->overruns : 0;
}
EXPORT_SYMBOL_GPL(hwtimer_overruns);

/* Hard irq: count, flag, wake the tick thread. Never re-arms itself. */
static enum hrtimer_restart hrt_fn(struct hrtimer *hrt)
{
	struct hwtimer_wheel *w = container_of(hrt, struct hwtimer_wheel, hrt);

	atomic64_inc(&w->hrt_fires);
	WRITE_ONCE(w->kicked, true);
	wake_up_process(w->tick_task);
	return HRTIMER_NORESTART;
}

/*
 * Entries the tick thread hands out or cascades per hold of the wheel lock:
 * bounds how long interrupts stay off when many timeouts come due at once.
 */
#define HWTIMER_ADVANCE_BATCH	256

/*
 * Advance the wheel to now by up to HWTIMER_ADVANCE_BATCH entries, make
 * what is due ready and, once nothing due is left, re-arm the hrtimer.
 * Return: true when due entries are left for another call.
 */
static bool advance(struct hwtimer_wheel *w, u64 *n)
{
	unsigned long irqflags;
	LIST_HEAD(due);
	bool more;
	u64 tick;

	raw_spin_lock_irqsave(&w->lock, irqflags);
	w->hrt_next = U64_MAX;
	*n = hwtimer_wc_advance_max(&w->wc, wheel_now(w), &due,
				    HWTIMER_ADVANCE_BATCH);
	list_splice_tail(&due, &w->ready);
	if (!hwtimer_wc_next_expiry(&w->wc, &tick)) {
		more = false;
		hrtimer_try_to_cancel(&w->hrt);
	} else {
		/* Only entries left on the due list are at the current tick. */
		more = tick <= w->wc.now;
		if (!more)
			program(w, hwtimer_wc_tick_to_ns(&w->wc, tick));
	}
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	return more;
}

static int tick_fn(void *arg)
{
	struct hwtimer_wheel *w = arg;
	bool more;
	u64 n;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!READ_ONCE(w->kicked)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(w->kicked, false);
		do {
			more = advance(w, &n);
			/* Workers start on each batch while the next is cut. */
			if (n)
				wake_up_nr(&w->work_wq,
					   min_t(u64, n, w->nworkers));
			if (more)
				cond_resched();
		} while (more);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Lateness bucket: 0 for on time, else fls64, capped at the last bucket. */
static unsigned int lat_bucket(u64 late)
{
	return min_t(unsigned int, fls64(late), HWTIMER_LAT_BUCKETS - 1);
}

/*
 * Re-arm periodic @t for the first period after the ones its last run
 * covered or skipped. Return: false if the next deadline overflows.
 * Caller holds w->lock.
 */
static bool rearm_periodic(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
			   u64 overruns)
{
	u64 step, next;

	lockdep_assert_held(&w->lock);
	if (check_mul_overflow(overruns + 1, t->period_ns, &step) ||
	    check_add_overflow(hwtimer_deadline(t), step, &next))
		return false;
	enqueue(w, t, next);
	return true;
}

/*
 * The callback of @wk->cur returned. Touch the timeout only if it is
 * pending again or periodic; else it may already be freed.
 * Caller holds w->lock. Return: true if done_wq has waiters to wake.
 */
static bool finish_locked(struct hwtimer_worker *wk)
{
	struct hwtimer_wheel *w = wk->w;
	struct hwtimer_timeout *t = wk->cur;

	lockdep_assert_held(&w->lock);
	WRITE_ONCE(wk->cur, NULL);
	WRITE_ONCE(w->nrunning, w->nrunning - 1);
	if (wk->parked) {
		hwt_state(wk->parked) &= ~HWT_PARKED;
		list_add(&wk->parked->entry.node, &w->ready);
		wk->parked = NULL;
	} else if (!wk->rearmed &&
		   !(wk->period && !wk->norearm && !w->stopped &&
		     rearm_periodic(w, t, wk->overruns))) {
		pin_put(w, wk->owner);
	}
	wk->owner = NULL;
	return wq_has_sleeper(&w->done_wq);
}

/*
 * Finish the callback @wk ran last (when @ran), then, when @take, take the
 * first ready timeout that is not running elsewhere and mark it running on
 * @wk: one hold of the wheel lock per expiry. Return: the timeout taken, or
 * NULL when none is ready.
 */
static struct hwtimer_timeout *next_ready(struct hwtimer_worker *wk, bool ran,
					  bool take)
{
	struct hwtimer_wheel *w = wk->w;
	struct hwtimer_timeout *t = NULL;
	struct hwtimer_worker *other;
	unsigned long irqflags;
	bool wake = false;
	u64 now, late;

	raw_spin_lock_irqsave(&w->lock, irqflags);
	if (ran)
		wake = finish_locked(wk);
	while (take) {
		t = list_first_entry_or_null(&w->ready, struct hwtimer_timeout,
					     entry.node);
		if (!t)
			goto out_unlock;
		list_del_init(&t->entry.node);
		other = running_on(w, t);
		if (!other)
			break;
		/* Still running its last expiry: the runner queues it again. */
		hwt_state(t) |= HWT_PARKED;
		other->parked = t;
	}
	if (!t)
		goto out_unlock;
	hwt_state(t) = 0;
	w->npending--;
	WRITE_ONCE(w->nrunning, w->nrunning + 1);
	WRITE_ONCE(wk->cur, t);
	wk->owner = t->owner;
	wk->period = t->period_ns;
	wk->rearmed = false;
	wk->norearm = false;
	now = wheel_now(w);
	late = now > hwtimer_deadline(t) ? now - hwtimer_deadline(t) : 0;
	wk->overruns = t->period_ns ? div64_u64(late, t->period_ns) : 0;
	w->stats.fired++;
	w->stats.lateness[lat_bucket(late)]++;
	if (late > w->stats.max_lateness_ns)
		w->stats.max_lateness_ns = late;
	trace_hwtimer_timeout_expire(w->name, t, hwtimer_deadline(t), now,
				     wk->overruns);
out_unlock:
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	if (wake)
		wake_up_all(&w->done_wq);
	return t;
}

static bool worker_should_wake(struct hwtimer_wheel *w)
{
	/* Lockless peek: list_add() and list_del() write ->next once. */
	return !list_empty(&w->ready) || kthread_should_stop();
}

static int worker_fn(void *arg)
{
	struct hwtimer_worker *wk = arg;
	struct hwtimer_wheel *w = wk->w;
	struct hwtimer_timeout *t;
	bool ran = false;

	while (!kthread_should_stop()) {
		t = next_ready(wk, ran, true);
		ran = t;
		if (!t) {
			wait_event_interruptible_exclusive(w->work_wq,
							   worker_should_wake(w));
			continue;
		}
		t->fn(t);
		if (need_resched()) {
			/* Finish before yielding: waiters need not wait. */
			next_ready(wk, true, false);
			ran = false;
			cond_resched();
		}
	}
	if (ran)
		next_ready(wk, true, false);
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct hwtimer_wheel *w = m->private;
	struct hwtimer_stats *st;
	unsigned int i;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	hwtimer_wheel_get_stats(w, st);
	seq_printf(m, "pending %llu\narmed %llu\nfired %llu\ncancelled %llu\n",
		   st->pending, st->armed, st->fired, st->cancelled);
	seq_printf(m, "rejected %llu\nhrtimer_fires %llu\nmax_lateness_ns %llu\n",
		   st->rejected, st->hrtimer_fires, st->max_lateness_ns);
	seq_puts(m, "lateness_log2_ns");
	for (i = 0; i < HWTIMER_LAT_BUCKETS; i++)
		seq_printf(m, " %llu", st->lateness[i]);
	seq_putc(m, '\n');
	kfree(st);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int params_show(struct seq_file *m, void *v)
{
	struct hwtimer_wheel *w = m->private;

	seq_printf(m, "name %s\ntick_ns %llu\nclock %s\nworkers %u\nmax_pending %llu\n",
		   w->name, w->tick_ns,
		   w->clock == HWTIMER_CLOCK_BOOTTIME ? "boottime" : "monotonic",
		   w->nworkers, w->max_pending);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(params);

static int check_params(const struct hwtimer_wheel_params *p)
{
	size_t len;

	if (!p || !p->name)
		return -EINVAL;
	len = strnlen(p->name, HWTIMER_NAME_LEN);
	if (!len || len >= HWTIMER_NAME_LEN || strchr(p->name, '/'))
		return -EINVAL;
	if (p->tick_ns && (p->tick_ns < HWTIMER_TICK_MIN_NS ||
			   p->tick_ns > HWTIMER_TICK_MAX_NS))
		return -EINVAL;
	if (p->clock != HWTIMER_CLOCK_MONOTONIC &&
	    p->clock != HWTIMER_CLOCK_BOOTTIME)
		return -EINVAL;
	if (p->workers > HWTIMER_WORKERS_MAX)
		return -EINVAL;
	return 0;
}

/* Stop the kthreads of a wheel that was never stopped or is stopped. */
static void stop_threads(struct hwtimer_wheel *w)
{
	unsigned int i;

	for (i = 0; i < w->nworkers; i++)
		if (w->workers[i].task)
			kthread_stop(w->workers[i].task);
	if (w->tick_task) {
		hrtimer_cancel(&w->hrt);
		kthread_stop(w->tick_task);
	}
}

static int start_threads(struct hwtimer_wheel *w)
{
	struct task_struct *task;
	unsigned int i;

	task = kthread_create(tick_fn, w, "hwtimer/%s", w->name);
	if (IS_ERR(task))
		return PTR_ERR(task);
	w->tick_task = task;
	for (i = 0; i < w->nworkers; i++) {
		task = kthread_create(worker_fn, &w->workers[i], "hwtimer/%s/%u",
				      w->name, i);
		if (IS_ERR(task))
			return PTR_ERR(task);
		w->workers[i].task = task;
	}
	wake_up_process(w->tick_task);
	for (i = 0; i < w->nworkers; i++)
		wake_up_process(w->workers[i].task);
	return 0;
}

static bool name_taken(const char *name)
{
	struct hwtimer_wheel *w;

	lockdep_assert_held(&hwtimer_wheels_lock);
	list_for_each_entry(w, &hwtimer_wheels, link)
		if (!strcmp(w->name, name))
			return true;
	return false;
}

/**
 * hwtimer_wheel_create() - create a private wheel
 * @p: parameters, see &struct hwtimer_wheel_params
 *
 * Starts the wheel's tick kthread and @p->workers callback kthreads and
 * adds /sys/kernel/debug/hwtimer/<name>/.
 *
 * Context: process context, may sleep.
 * Return: the wheel; ERR_PTR(-EINVAL) on bad parameters, ERR_PTR(-EEXIST)
 * if the name is taken, ERR_PTR(-ENOMEM) or another error when resources
 * run out.
 */
struct hwtimer_wheel *hwtimer_wheel_create(const struct hwtimer_wheel_params *p)
{
	unsigned int nworkers, i;
	struct hwtimer_wheel *w;
	int ret;

	ret = check_params(p);
	if (ret)
		return ERR_PTR(ret);
	nworkers = p->workers ?: HWTIMER_WORKERS_DEFAULT;
	w = kvzalloc(struct_size(w, workers, nworkers), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->ready);
	w->hrt_next = U64_MAX;
	atomic64_set(&w->hrt_fires, 0);
	init_waitqueue_head(&w->work_wq);
	init_waitqueue_head(&w->done_wq);
	mutex_init(&w->stop_mutex);
	strscpy(w->name, p->name, sizeof(w->name));
	w->clock = p->clock;
	w->tick_ns = p->tick_ns ?: HWTIMER_TICK_DEFAULT_NS;
	w->max_pending = p->max_pending;
	w->nworkers = nworkers;
	for (i = 0; i < nworkers; i++)
		w->workers[i].w = w;
	hrtimer_init(&w->hrt, w->clock == HWTIMER_CLOCK_BOOTTIME ?
		     CLOCK_BOOTTIME : CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	w->hrt.function = hrt_fn;
	hwtimer_wc_init(&w->wc, w->tick_ns, wheel_now(w));

	mutex_lock(&hwtimer_wheels_lock);
	if (name_taken(w->name)) {
		mutex_unlock(&hwtimer_wheels_lock);
		ret = -EEXIST;
		goto err_free;
	}
	list_add_tail(&w->link, &hwtimer_wheels);
	mutex_unlock(&hwtimer_wheels_lock);

	ret = start_threads(w);
	if (ret)
		goto err_unlist;
	w->dir = debugfs_create_dir(w->name, hwtimer_debugfs);
	debugfs_create_file("stats", 0444, w->dir, w, &stats_fops);
	debugfs_create_file("params", 0444, w->dir, w, &params_fops);
	return w;

err_unlist:
	stop_threads(w);
	mutex_lock(&hwtimer_wheels_lock);
	list_del(&w->link);
	mutex_unlock(&hwtimer_wheels_lock);
err_free:
	kvfree(w);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_create);

/**
 * hwtimer_default_wheel() - the module's shared wheel
 *
 * Context: any.
 * Return: the wheel; its parameters are hwtimer's module parameters
 * tick_ns, workers, max_pending and clock, its debugfs name "default".
 * Valid while hwtimer is loaded, which a caller of this symbol guarantees.
 */
struct hwtimer_wheel *hwtimer_default_wheel(void)
{
	return hwtimer_default;
}
EXPORT_SYMBOL_GPL(hwtimer_default_wheel);

/* Hand every pending timeout of @w to @list and make them idle. */
static void take_all(struct hwtimer_wheel *w, struct list_head *list)
{
	struct hwtimer_timeout *t;
	struct hwtimer_worker *wk;
	unsigned int i;

	lockdep_assert_held(&w->lock);
	hwtimer_wc_drain(&w->wc, list);
	list_splice_tail_init(&w->ready, list);
	for (i = 0; i < w->nworkers; i++) {
		wk = &w->workers[i];
		if (wk->parked) {
			list_add_tail(&wk->parked->entry.node, list);
			wk->parked = NULL;
		}
	}
	list_for_each_entry(t, list, entry.node) {
		hwt_state(t) = 0;
		wk = running_on(w, t);
		if (wk)
			wk->rearmed = false;	/* the runner drops the pin */
		else
			pin_put(w, t->owner);
	}
	w->npending = 0;
	w->hrt_next = U64_MAX;
}

/**
 * hwtimer_wheel_stop() - stop a wheel, handing back what did not fire
 * @w: the wheel
 * @unprocessed: list to append every pending timeout to, or NULL to drop
 *	them; walk it with hwtimer_for_each_unprocessed()
 *
 * Like Netty's HashedWheelTimer.stop(): from now on arms and modifies fail
 * with -ESHUTDOWN and periodic timeouts are not re-armed; every pending
 * timeout (in the wheel or collected but not started) becomes idle and is
 * handed back, its module pin dropped; then this waits for running
 * callbacks to return. Calling it again hands back nothing.
 *
 * Context: process context, may sleep; not from a callback of @w.
 * Return: 0, or -EDEADLK when called from a callback of @w.
 */
int hwtimer_wheel_stop(struct hwtimer_wheel *w, struct list_head *unprocessed)
{
	struct hwtimer_timeout *t, *n;
	unsigned long irqflags;
	LIST_HEAD(list);

	might_sleep();
	if (current_worker(w))
		return -EDEADLK;
	mutex_lock(&w->stop_mutex);
	raw_spin_lock_irqsave(&w->lock, irqflags);
	w->stopped = true;
	take_all(w, &list);
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	hrtimer_cancel(&w->hrt);
	wait_event(w->done_wq, !READ_ONCE(w->nrunning));
	mutex_unlock(&w->stop_mutex);
	if (unprocessed) {
		list_splice_tail(&list, unprocessed);
	} else {
		list_for_each_entry_safe(t, n, &list, entry.node)
			list_del_init(&t->entry.node);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_stop);

/**
 * hwtimer_wheel_destroy() - stop and free a wheel
 * @w: a wheel from hwtimer_wheel_create(), or NULL
 *
 * hwtimer_wheel_stop() dropping every pending timeout, then stops the
 * kthreads and frees the wheel. Timeouts last armed on @w must be set up
 * again with hwtimer_timeout_init() before they are used again.
 *
 * Context: process context, may sleep; not from a callback of @w.
 */
void hwtimer_wheel_destroy(struct hwtimer_wheel *w)
{
	if (!w)
		return;
	if (WARN_ON_ONCE(hwtimer_wheel_stop(w, NULL)))
		return;
	debugfs_remove_recursive(w->dir);
	stop_threads(w);
	mutex_lock(&hwtimer_wheels_lock);
	list_del(&w->link);
	mutex_unlock(&hwtimer_wheels_lock);
	mutex_destroy(&w->stop_mutex);
	kvfree(w);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_destroy);

/**
 * hwtimer_wheel_get_stats() - read a wheel's counters
 * @w: the wheel
 * @st: filled with a consistent snapshot
 *
 * Context: any; never sleeps.
 */
void hwtimer_wheel_get_stats(struct hwtimer_wheel *w, struct hwtimer_stats *st)
{
	unsigned long irqflags;

	raw_spin_lock_irqsave(&w->lock, irqflags);
	*st = w->stats;
	st->pending = w->npending;
	raw_spin_unlock_irqrestore(&w->lock, irqflags);
	st->hrtimer_fires = atomic64_read(&w->hrt_fires);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_get_stats);

/**
 * hwtimer_wheel_now() - current time on a wheel's clock
 * @w: the wheel
 *
 * Context: any.
 * Return: ns on CLOCK_MONOTONIC or CLOCK_BOOTTIME, as for %HWTIMER_ABS.
 */
u64 hwtimer_wheel_now(struct hwtimer_wheel *w)
{
	return wheel_now(w);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_now);

/**
 * hwtimer_wheel_tick_ns() - tick length of a wheel
 * @w: the wheel
 *
 * Context: any.
 * Return: the tick in ns, also the shortest period hwtimer_arm() accepts.
 */
u64 hwtimer_wheel_tick_ns(struct hwtimer_wheel *w)
{
	return w->tick_ns;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_tick_ns);

/**
 * hwtimer_wheel_clock() - clock a wheel runs on
 * @w: the wheel
 *
 * Context: any.
 * Return: an &enum hwtimer_clock.
 */
u32 hwtimer_wheel_clock(struct hwtimer_wheel *w)
{
	return w->clock;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_clock);

static int __init hwtimer_init(void)
{
	struct hwtimer_wheel_params p = {
		.name = "default",
		.tick_ns = tick_ns,
		.clock = clock_param,
		.workers = workers,
		.max_pending = max_pending,
	};
	int ret;

	hwtimer_debugfs = debugfs_create_dir("hwtimer", NULL);
	hwtimer_default = hwtimer_wheel_create(&p);
	if (IS_ERR(hwtimer_default)) {
		ret = PTR_ERR(hwtimer_default);
		pr_err("cannot create the default wheel: %d\n", ret);
		goto err_debugfs;
	}
	ret = hwtimer_chardev_init();
	if (ret)
		goto err_destroy_default;
	return 0;

err_destroy_default:
	hwtimer_wheel_destroy(hwtimer_default);
err_debugfs:
	debugfs_remove_recursive(hwtimer_debugfs);
	return ret;
}

static void __exit hwtimer_exit(void)
{
	hwtimer_chardev_exit();
	hwtimer_wheel_destroy(hwtimer_default);
	WARN_ON_ONCE(!list_empty(&hwtimer_wheels));
	debugfs_remove_recursive(hwtimer_debugfs);
}

module_init(hwtimer_init);
module_exit(hwtimer_exit);

MODULE_DESCRIPTION("Hierarchical timing wheel timeout service");
MODULE_LICENSE("GPL");
