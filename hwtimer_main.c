// SPDX-License-Identifier: GPL-2.0
/*
 * The hwtimer runtime: wheel instances, their drive, the
 * exported kernel API, stats, debugfs and the module life cycle.
 *
 * A wheel has one base, or one per possible CPU (%HWTIMER_WHEEL_PERCPU).
 * A base is a wheel core with its own raw spinlock, tickless hrtimer and
 * callback workers; bases share nothing but the wheel's parameters, its
 * limit count and its waiters. An idle timeout is armed on the base of the
 * arming CPU; a pending or running one stays where it is, as a timer_list
 * timer stays on its base. Each base is driven like this:
 *
 *   hrtimer (hard irq)              worker kthreads
 *   ------------------              ---------------
 *   count, set kicked, wake a  ->   the woken worker advances the wheel
 *   worker not in a callback,       to now, moves what is due onto the
 *   unless one that is has          ready list, re-arms the hrtimer to the
 *   been in it for less than        next occupied tick, takes timeouts off
 *   a tick (it collects when        the ready list one by one and runs
 *   it returns)                     their callbacks, re-arms periodic ones,
 *                                   and advances again once the ready
 *                                   list is empty
 *
 * The hrtimer is absolute and tickless: it is armed to the next occupied
 * tick only and moved earlier when an earlier timeout arrives. When the
 * last timeout is cancelled it is left to fire once for nothing, so an
 * arm and cancel on an idle wheel cost no hrtimer start and stop. Its
 * callback does O(workers) work and wakes one thread: like timerfd,
 * nothing is collected in interrupt context, so a tiny period cannot keep
 * a CPU in hard irq (periods shorter than a tick are refused anyway).
 *
 * One worker drains the ready list while its callbacks are short: two
 * workers taking turns on one list and one lock cost more per expiry than
 * one alone. While timeouts wait on the ready list, the hrtimer is armed
 * to come back when the running callback turns a tick old; then it wakes
 * the next worker, so a callback that sleeps holds the others up for at
 * most a tick.
 *
 * A timeout's state lives under its base's raw spinlock:
 *
 *   idle --arm--> PENDING (in the wheel, or collected onto the ready list,
 *                 or parked on the worker still running its last expiry)
 *   PENDING --worker takes it--> RUNNING --callback returns--> idle, or
 *                 PENDING again (periodic, or armed by the callback)
 *   PENDING --cancel--> idle (the callback never starts)
 *   PENDING --stop--> HANDBACK (on the list stop hands back) --pop--> idle
 *
 * A collected timeout whose callback has not started is still PENDING, so
 * hwtimer_cancel() racing expiry resolves exactly once: either the cancel
 * takes the timeout back (CANCELLED, no run) or the worker took it first
 * (RUNNING or NOT_PENDING, exactly one run).
 *
 * Which run is in progress is recorded twice: the worker points at the
 * timeout (@cur), and the timeout's state names the worker (HWT_RUNNING and
 * its index). A run is the timeout's only while both agree. A one-shot
 * callback may free the object embedding its timeout, and a new timeout
 * may then be set up at the same address: hwtimer_timeout_init() clears its
 * state, so the new timeout is never taken for the old run (its pin, its
 * limit place and its waiters stay its own). Once a one-shot's callback
 * returns, the timeout is not touched again; a periodic one lives until it
 * is cancelled. A timeout never runs on two workers at once: one that
 * expires while its previous run is still going is parked on that worker,
 * which queues it again when the callback returns.
 *
 * Bases are found by id, not by pointer: a timeout keeps the id of the
 * base of its last arm, which is looked up under RCU in hwtimer_bases.
 * A destroyed wheel's base ids match nothing, so cancelling a timeout after
 * its wheel is gone is safe. A wheel and its bases are freed when
 * hwtimer_wheel_destroy() and every thread waiting in it
 * (hwtimer_cancel_sync()) have dropped their references, after an RCU
 * grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/list_sort.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/hwtimer.h>

#include "hwtimer.h"
#include "hwtimer_internal.h"
#include "hwtimer_wheel.h"

#define CREATE_TRACE_POINTS
#include "hwtimer_trace.h"

/* Longest wheel name, including the terminating NUL. */
#define HWTIMER_NAME_LEN	32
/* Workers of each base of a wheel whose parameters say 0. */
#define HWTIMER_WORKERS_DEFAULT	2

/* Bits of a timeout's state (see state_of()), under the base lock. */
#define HWT_QUEUED	0x1	/* pending: in the wheel or on the ready list */
#define HWT_PARKED	0x2	/* pending, parked on the worker running it */
#define HWT_RUNNING	0x4	/* taken by the worker named in HWT_WORKER */
#define HWT_HANDBACK	0x8	/* on the list stop handed back: not armable */
/* How the last arm ended: an &enum hwtimer_state, 0 while none did. */
#define HWT_OUTCOME_SHIFT	4
#define HWT_OUTCOME	(0x7 << HWT_OUTCOME_SHIFT)
/* Index of the worker (of the timeout's base) HWT_RUNNING refers to. */
#define HWT_WORKER_SHIFT	8
#define HWT_WORKER	(0xff << HWT_WORKER_SHIFT)

/* Owner modules a base pins with one reference each; see pin_get(). */
#define HWTIMER_PIN_SLOTS	4

/**
 * struct hwtimer_pin - one module reference held for many timeouts
 * @mod: the owner module, NULL when the slot is free
 * @count: pending or running timeouts of @mod on the base using this slot
 */
struct hwtimer_pin {
	struct module *mod;
	unsigned long count;
};

struct hwtimer_base;

/**
 * struct hwtimer_worker - one callback kthread of a base
 * @b: the base
 * @task: the kthread
 * @cur: timeout whose callback this worker runs now, or NULL
 * @seq: runs finished; a waiter for the run in progress waits for a change
 * @owner: module pinned for @cur (NULL when none is pinned)
 * @period: @cur's period when its callback started
 * @overruns: period boundaries @cur skipped since its previous run
 * @parked: @cur expired again during this run; queued when it returns
 * @rearmed: @cur became pending again during this run
 * @held: @cur is periodic and keeps its place in the wheel's limit
 *	(max_pending) until it is re-armed or cancelled
 * @waited: hwtimer_cancel_sync() waits on done_wq for this run to end
 * @run_start: when @cur was taken, on the wheel's clock
 *
 * Every field but @b and @task is under the base's lock; @seq and @cur are
 * also read locklessly, by waiters.
 */
struct hwtimer_worker {
	struct hwtimer_base *b;
	struct task_struct *task;
	struct hwtimer_timeout *cur;
	unsigned long seq;
	struct module *owner;
	u64 period;
	u64 overruns;
	struct hwtimer_timeout *parked;
	bool rearmed;
	bool held;
	bool waited;
	u64 run_start;
};

/**
 * struct hwtimer_base - a wheel core with its lock, hrtimer and workers
 * @lock: protects @wc, @ready, @npending, @hrt_next, @stopped, @dead,
 *	@nrunning, @stats, @pins, every worker's run state and the state of
 *	every timeout armed on this base
 * @ready: due timeouts waiting for a worker (linked by entry.node)
 * @npending: timeouts pending now
 * @hrt_next: time the hrtimer is armed to, U64_MAX when nothing is
 *	pending earlier (it may still be armed, to fire for nothing)
 * @stopped: hwtimer_wheel_stop() was called: arms are refused
 * @dead: hwtimer_wheel_destroy() was called: the id matches nothing
 * @kicked: the hrtimer fired, or due timeouts are left, since a worker
 *	last advanced the wheel; read by idle workers without the lock
 * @nrunning: callbacks running now
 * @stats: counters; pending and hrtimer_fires are filled in on read
 * @pins: owner modules pinned for many timeouts at once
 * @hrt_fires: times @hrt fired (written only by its callback)
 * @hrt: the tickless hrtimer driving the base
 * @work_wq: idle workers wait here for @ready to fill or @kicked
 * @w: the wheel
 * @id: this base's id: a sequence number (high 32 bits) and its index in
 *	hwtimer_bases (low 32 bits)
 * @rcu: frees the base after lockless lookups by id are done with it
 * @cpu: the CPU whose arms it takes, or -1 for a wheel's only base
 * @nworkers: entries in @workers
 * @wc: the wheel core
 * @workers: the callback workers
 */
struct hwtimer_base {
	raw_spinlock_t lock;
	struct list_head ready;
	u64 npending;
	u64 hrt_next;
	bool stopped;
	bool dead;
	bool kicked;
	unsigned int nrunning;
	struct hwtimer_stats stats;
	struct hwtimer_pin pins[HWTIMER_PIN_SLOTS];
	atomic64_t hrt_fires;
	struct hrtimer hrt;
	wait_queue_head_t work_wq;
	struct hwtimer_wheel *w;
	u64 id;
	struct rcu_head rcu;
	int cpu;
	unsigned int nworkers;
	struct hwtimer_wc wc;
	struct hwtimer_worker workers[];
};

/**
 * struct hwtimer_wheel - a wheel instance: its bases and what they share
 * @nbases: entries in @bases: 1, or nr_cpu_ids with %HWTIMER_WHEEL_PERCPU
 * @max_pending: most timeouts pending at once, 0 for no limit
 * @nlive: places taken in the limit, only counted when there is one:
 *	pending timeouts and running periodic ones that will be re-armed
 * @done_wq: hwtimer_cancel_sync() and stop wait here for callbacks
 * @stop_mutex: serialises stop and destroy
 * @ref: destroy's reference and one per waiter; the last frees the wheel
 * @rcu: frees the wheel after lockless lookups are done with it
 * @key: lockdep class of @map, one per wheel
 * @map: lockdep map "held" while a callback runs and "taken" by those who
 *	wait for callbacks, so lockdep sees a waiter holding a lock that a
 *	callback takes
 * @link: entry in hwtimer_wheels
 * @affine: the workers of its per-CPU bases follow CPU hotplug (see
 *	base_affine()); set once they all run, cleared before they stop,
 *	under hwtimer_wheels_lock
 * @dir: debugfs directory
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @tick_ns: tick length
 * @flags: the &struct hwtimer_wheel_params flags it was created with
 * @nworkers: workers of each base
 * @name: name under debugfs
 * @owner: the module that created the wheel and destroys it before it
 *	unloads, or NULL: its own timeouts need no pin here
 * @bases: the bases, by CPU with %HWTIMER_WHEEL_PERCPU
 */
struct hwtimer_wheel {
	unsigned int nbases;
	u64 max_pending;
	atomic64_t nlive;
	wait_queue_head_t done_wq;
	struct mutex stop_mutex;	/* serialises stop and destroy */
	struct kref ref;
	struct rcu_head rcu;
	struct lock_class_key key;
	struct lockdep_map map;
	struct list_head link;
	bool affine;
	struct dentry *dir;
	clockid_t clock;
	u64 tick_ns;
	u32 flags;
	unsigned int nworkers;
	char name[HWTIMER_NAME_LEN];
	struct module *owner;
	struct hwtimer_base *bases[];
};

/* Every wheel, for unique names; protected by hwtimer_wheels_lock. */
static LIST_HEAD(hwtimer_wheels);
static DEFINE_MUTEX(hwtimer_wheels_lock);
/*
 * Bases of live wheels by the low half of their id, allocated lowest
 * free first. A cancel finds its timeout's base here with xa_load().
 */
static DEFINE_XARRAY_ALLOC(hwtimer_bases);
/*
 * The high half of base ids: an index is used again at once, but with
 * another sequence number, so a stale id matches no base until 2^32 more
 * bases were created.
 */
static atomic_t hwtimer_base_seq = ATOMIC_INIT(0);
/* /sys/kernel/debug/hwtimer, or an error pointer without debugfs. */
static struct dentry *hwtimer_debugfs;
/* The shared instance, from module init to module exit. */
static struct hwtimer_wheel *hwtimer_default;

static int param_set_ranged(const char *val, const struct kernel_param *kp)
{
	const struct hwtimer_ulong_param *p = kp->arg;
	unsigned long v;
	int ret;

	ret = kstrtoul(val, 0, &v);
	if (ret)
		return ret;
	if (v < p->min || v > p->max)
		return -EINVAL;
	WRITE_ONCE(*p->var, v);
	return 0;
}

static int param_get_ranged(char *buf, const struct kernel_param *kp)
{
	const struct hwtimer_ulong_param *p = kp->arg;

	return sysfs_emit(buf, "%lu\n", READ_ONCE(*p->var));
}

const struct kernel_param_ops hwtimer_param_ops_ranged = {
	.set = param_set_ranged,
	.get = param_get_ranged,
};

/* Parameters of the default wheel. */
static unsigned long tick_ns = HWTIMER_TICK_DEFAULT_NS;
hwtimer_param_ranged(tick_ns, tick_ns,
		     HWTIMER_TICK_MIN_NS, HWTIMER_TICK_MAX_NS, 0444);
MODULE_PARM_DESC(tick_ns, "default wheel: tick length in ns (10000 - 1000000000)");
static unsigned long workers = HWTIMER_WORKERS_DEFAULT;
hwtimer_param_ranged(workers, workers, 1, HWTIMER_WORKERS_MAX, 0444);
MODULE_PARM_DESC(workers, "default wheel: callback worker kthreads per base (1 - 64)");
static unsigned long max_pending;
hwtimer_param_ranged(max_pending, max_pending, 0, ULONG_MAX, 0444);
MODULE_PARM_DESC(max_pending, "default wheel: most pending timeouts, 0 = unlimited");
static unsigned long clock_param;
hwtimer_param_ranged(clock, clock_param, 0, 1, 0444);
MODULE_PARM_DESC(clock, "default wheel: 0 = CLOCK_MONOTONIC, 1 = CLOCK_BOOTTIME");
static unsigned long percpu = 1;
hwtimer_param_ranged(percpu, percpu, 0, 1, 0444);
MODULE_PARM_DESC(percpu, "default and /dev/hwtimer wheels: 1 = one base per CPU, 0 = one base");

/**
 * hwtimer_default_wheel_like() - parameters the default wheel was made with
 * @p: gets its tick, workers per base and flags; the rest is left alone
 *
 * For the wheel /dev/hwtimer adds beside it for the other clock.
 */
void hwtimer_default_wheel_like(struct hwtimer_wheel_params *p)
{
	p->tick_ns = hwtimer_default->tick_ns;
	p->workers = hwtimer_default->nworkers;
	p->flags = hwtimer_default->flags;
}

static u64 wheel_now(const struct hwtimer_wheel *w)
{
	if (w->clock == CLOCK_BOOTTIME)
		return ktime_get_boottime_ns();
	if (w->clock == CLOCK_REALTIME)
		return ktime_get_real_ns();
	return ktime_get_ns();
}

/* The base an idle timeout armed on this CPU goes to. */
static struct hwtimer_base *local_base(struct hwtimer_wheel *w)
{
	if (w->nbases == 1)
		return w->bases[0];
	return w->bases[raw_smp_processor_id()];
}

/*
 * Take a place in @w's limit (max_pending). The count is shared by the
 * bases and kept only when there is a limit, so an unlimited wheel does
 * no shared write per arm. Return: false when the limit is reached.
 */
static inline bool live_get(struct hwtimer_wheel *w)
{
	if (!w->max_pending)
		return true;
	if (atomic64_inc_return(&w->nlive) <= w->max_pending)
		return true;
	atomic64_dec(&w->nlive);
	return false;
}

/* Give back a place taken by live_get(). */
static inline void live_put(struct hwtimer_wheel *w)
{
	if (w->max_pending)
		atomic64_dec(&w->nlive);
}

/*
 * Whether a timeout of @owner is pinned on @b: not when it has no owner,
 * nor when its owner is this module or the wheel's, which destroys the
 * wheel, waiting for its callbacks, before it unloads.
 */
static inline bool pin_needed(struct hwtimer_base *b,
			      struct module *owner)
{
	return owner && owner != THIS_MODULE && owner != b->w->owner;
}

/* pin_get() past the first slot. Caller holds b->lock. */
static noinline bool pin_get_slow(struct hwtimer_base *b,
				  struct module *owner)
{
	struct hwtimer_pin *p, *free = NULL;

	for (p = b->pins; p < b->pins + HWTIMER_PIN_SLOTS; p++) {
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

/*
 * Pin @owner for one more pending or running timeout of @b. A base holds
 * one module reference per owner for all of that owner's timeouts, counted
 * in @b->pins under the base lock, so arming and cancelling do no atomic
 * operation on the module's refcount; when every slot is taken by other
 * owners, the timeout takes a reference of its own. pin_put() drops the
 * slot's count first and a reference of the timeout's own otherwise, so
 * while an owner has P timeouts pinned on @b, P = slot count + references
 * of their own, and the owner keeps at least one reference while P > 0.
 * Inline for no owner and for the owner of the first slot, the one a base
 * whose timeouts have one owner keeps using.
 * Caller holds b->lock. Return: false if @owner is being unloaded.
 */
static inline bool pin_get(struct hwtimer_base *b,
			   struct module *owner)
{
	lockdep_assert_held(&b->lock);
	if (!pin_needed(b, owner))
		return true;
	if (b->pins[0].mod == owner) {
		b->pins[0].count++;
		return true;
	}
	return pin_get_slow(b, owner);
}

/* pin_put() past the first slot's count. Caller holds b->lock. */
static noinline void pin_put_slow(struct hwtimer_base *b,
				  struct module *owner)
{
	struct hwtimer_pin *p;

	for (p = b->pins; p < b->pins + HWTIMER_PIN_SLOTS; p++) {
		if (p->mod != owner)
			continue;
		if (--p->count)
			return;
		p->mod = NULL;
		break;
	}
	module_put(owner);
}

/*
 * Drop one pin of @owner taken by pin_get(), inline as pin_get() takes it.
 * Caller holds b->lock.
 */
static inline void pin_put(struct hwtimer_base *b,
			   struct module *owner)
{
	lockdep_assert_held(&b->lock);
	if (!pin_needed(b, owner))
		return;
	if (b->pins[0].mod == owner && b->pins[0].count > 1) {
		b->pins[0].count--;
		return;
	}
	pin_put_slow(b, owner);
}

/*
 * A timeout's state lives in the spare 16 bits of its wheel entry, its
 * carried overruns in the spare 32: both under the base lock.
 */
static u16 state_of(const struct hwtimer_timeout *t)
{
	return t->entry.aux;
}

static void state_write(struct hwtimer_timeout *t, u16 state)
{
	t->entry.aux = state;
}

static void state_add(struct hwtimer_timeout *t, u16 bits)
{
	t->entry.aux |= bits;
}

static void state_clear(struct hwtimer_timeout *t, u16 bits)
{
	t->entry.aux &= ~bits;
}

/* Periods a periodic timeout skipped, added to its next run's overruns. */
static u32 carry_of(const struct hwtimer_timeout *t)
{
	return t->entry.aux32;
}

static void set_carry(struct hwtimer_timeout *t, u32 periods)
{
	t->entry.aux32 = periods;
}

static bool is_pending(const struct hwtimer_timeout *t)
{
	return state_of(t) & HWT_QUEUED;
}

/* Record how @t's last arm ended (an &enum hwtimer_state). */
static void set_outcome(struct hwtimer_timeout *t, unsigned int outcome)
{
	state_write(t, (state_of(t) & ~HWT_OUTCOME) |
		    outcome << HWT_OUTCOME_SHIFT);
}

/*
 * Worker running @t's callback now, or NULL: the worker @t's state names,
 * if that worker's current timeout is @t. A stale index (a run that ended,
 * or one on another base) names a worker that runs something else, or
 * none. O(1). Caller holds b->lock.
 */
static struct hwtimer_worker *running_on(struct hwtimer_base *b,
					 const struct hwtimer_timeout *t)
{
	unsigned int i = state_of(t) >> HWT_WORKER_SHIFT;

	lockdep_assert_held(&b->lock);
	if (!(state_of(t) & HWT_RUNNING) || i >= b->nworkers)
		return NULL;
	return b->workers[i].cur == t ? &b->workers[i] : NULL;
}

static int worker_fn(void *arg);

/* The worker current is, on any wheel, or NULL. O(1). */
static struct hwtimer_worker *current_worker(void)
{
	if (!(current->flags & PF_KTHREAD) || kthread_func(current) != worker_fn)
		return NULL;
	return kthread_data(current);
}

/* Is current a worker of @w? */
static bool in_worker_of(struct hwtimer_wheel *w)
{
	struct hwtimer_worker *wk = current_worker();

	return wk && wk->b->w == w;
}

/* Make sure the hrtimer fires by @ns. Caller holds b->lock. */
static inline void program(struct hwtimer_base *b, u64 ns)
{
	lockdep_assert_held(&b->lock);
	if (ns >= b->hrt_next || b->stopped)
		return;
	b->hrt_next = ns;
	/* A per-CPU base's hrtimer stays where it was started: its CPU, mostly. */
	hrtimer_start(&b->hrt, ns_to_ktime(min_t(u64, ns, KTIME_MAX)),
		      b->cpu < 0 ? HRTIMER_MODE_ABS_HARD :
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * @t now waits in the wheel for @deadline: make the hrtimer fire by the
 * time the wheel hands out the deadline's (rounded up) tick: the deadline
 * itself when that tick's entries go at their own. Caller holds b->lock.
 */
static inline void queued_for(struct hwtimer_base *b,
			      struct hwtimer_timeout *t, u64 deadline)
{
	if (deadline < b->hrt_next) {
		u64 tick = hwtimer_wc_ns_to_tick(&b->wc, deadline);

		program(b, hwtimer_wc_due_ns(&b->wc, tick));
	}
	trace_hwtimer_timeout_arm(b->w->name, t, deadline, t->period_ns);
}

/*
 * Put idle, pinned @t into the wheel for @deadline; a run in progress
 * (on @wk, running_on() of @t) stays recorded. Caller holds b->lock.
 */
static inline void enqueue(struct hwtimer_base *b,
			   struct hwtimer_timeout *t, u64 deadline,
			   struct hwtimer_worker *wk)
{
	lockdep_assert_held(&b->lock);
	hwtimer_wc_arm(&b->wc, &t->entry, deadline);
	state_write(t, (state_of(t) & (HWT_RUNNING | HWT_WORKER)) | HWT_QUEUED);
	b->npending++;
	if (wk)
		wk->rearmed = true;
	queued_for(b, t, deadline);
}

/*
 * Take pending @t back from wherever it waits; its pin and limit place are
 * left to the caller; @wk is running_on() of @t. The hrtimer stays armed
 * even when this empties the wheel: it fires once for nothing, cheaper
 * than a stop and a restart. Caller holds b->lock.
 */
static inline void dequeue(struct hwtimer_base *b,
			   struct hwtimer_timeout *t,
			   struct hwtimer_worker *wk)
{
	lockdep_assert_held(&b->lock);
	if (hwtimer_wc_entry_pending(&t->entry)) {
		hwtimer_wc_cancel(&b->wc, &t->entry);
	} else if (state_of(t) & HWT_PARKED) {
		if (!WARN_ON_ONCE(!wk))
			wk->parked = NULL;
	} else {
		list_del_init(&t->entry.node);
	}
	state_clear(t, HWT_QUEUED | HWT_PARKED);
	b->npending--;
	if (wk)
		wk->rearmed = false;
}

/* Deadline in ns on @w's clock of an arm with @expires and @flags. */
static u64 abs_deadline(struct hwtimer_wheel *w, u64 expires, u32 flags)
{
	u64 d;

	if (flags & HWTIMER_ARM_ABS)
		return expires;
	if (check_add_overflow(wheel_now(w), expires, &d))
		return U64_MAX;
	return d;
}

/*
 * Arm idle @t for @deadline: take a place in the limit (or the one its
 * running periodic callback still holds), pin the owner (unless a running
 * callback already holds the pin), enqueue. Caller holds b->lock.
 */
static inline int start(struct hwtimer_base *b,
			struct hwtimer_timeout *t, u64 deadline,
			u64 period)
{
	struct hwtimer_worker *wk = running_on(b, t);

	lockdep_assert_held(&b->lock);
	if (wk && wk->held) {
		wk->held = false;
	} else {
		if (!live_get(b->w)) {
			b->stats.rejected++;
			return -ENOSPC;
		}
		if (!wk && !pin_get(b, t->owner)) {
			live_put(b->w);
			return -ENODEV;
		}
	}
	t->period_ns = period;
	set_carry(t, 0);
	enqueue(b, t, deadline, wk);
	b->stats.armed++;
	return 0;
}

/*
 * The live base with id @id, or NULL. Caller has interrupts off, which is
 * an RCU read-side section: the bases are freed by kvfree_rcu(), whose
 * grace period waits for it.
 */
static struct hwtimer_base *base_lookup(u64 id)
{
	struct hwtimer_base *b;

	if (!id)
		return NULL;
	b = xa_load(&hwtimer_bases, (u32)id);
	return b && READ_ONCE(b->id) == id ? b : NULL;
}

/*
 * Lock the base @t was last armed on, coping with a concurrent move to
 * another base. Interrupts go off first, so the lookup needs no RCU read
 * lock of its own. Return: the locked base, or NULL if @t was never armed
 * or its wheel is destroyed.
 */
static inline struct hwtimer_base *
lock_timeout(struct hwtimer_timeout *t, unsigned long *flags)
{
	struct hwtimer_base *b;
	u64 id;

	local_irq_save(*flags);
	for (;;) {
		id = READ_ONCE(t->wheel_id);
		b = base_lookup(id);
		if (!b)
			break;
		raw_spin_lock(&b->lock);
		if (unlikely(b->dead)) {
			raw_spin_unlock(&b->lock);
			b = NULL;
			break;
		}
		if (likely(READ_ONCE(t->wheel_id) == id))
			return b;
		raw_spin_unlock(&b->lock);
	}
	local_irq_restore(*flags);
	return NULL;
}

/* Is @t on a list handed back by stop, not popped yet? Lockless. */
static bool handed_back(struct hwtimer_timeout *t)
{
	/* Pairs with the release in hwtimer_unprocessed_pop(): seeing the
	 * bit clear means the timeout is off the handed-back list.
	 */
	return smp_load_acquire(&t->entry.aux) & HWT_HANDBACK;
}

/*
 * Lock the base of @t's last arm when @t stays there: when that base is
 * one of @w's and @t is pending or running on it (a timeout moves only
 * while idle). Otherwise unbind idle @t from it. Return: the locked base
 * @t stays on, NULL once @t is unbound (or was never bound), or
 * ERR_PTR(-EBUSY) if @t is busy on another wheel or handed back.
 */
static struct hwtimer_base *stay_or_unbind(struct hwtimer_wheel *w,
					   struct hwtimer_timeout *t, u64 id,
					   unsigned long *flags)
{
	struct hwtimer_base *old;

	old = lock_timeout(t, flags);
	if (!old) {
		/* Its wheel is gone: only a handed-back timeout is busy. */
		if (handed_back(t))
			return ERR_PTR(-EBUSY);
		cmpxchg64(&t->wheel_id, id, 0);
		return NULL;
	}
	if (state_of(t) & HWT_HANDBACK) {
		raw_spin_unlock_irqrestore(&old->lock, *flags);
		return ERR_PTR(-EBUSY);
	}
	if (is_pending(t) || running_on(old, t)) {
		if (old->w == w)
			return old;
		raw_spin_unlock_irqrestore(&old->lock, *flags);
		return ERR_PTR(-EBUSY);
	}
	state_clear(t, HWT_RUNNING);
	/* Pairs with the cmpxchg in claim(): the binder sees this state. */
	smp_store_release(&t->wheel_id, 0);
	raw_spin_unlock_irqrestore(&old->lock, *flags);
	return NULL;
}

/*
 * Lock the base @t is to be armed on: the one it is pending or running on
 * if that is one of @w's, else this CPU's base of @w, binding @t to it.
 *
 * Binding is a cmpxchg from 0, not a store: two CPUs arming the same
 * unbound timeout each hold only their own base's lock, and both would
 * otherwise bind it and put it in two wheels. The loser finds @t bound
 * elsewhere and starts over from that base, where it is pending (-EBUSY)
 * or idle (and moved again).
 * Return: the base, locked, or ERR_PTR(-EBUSY).
 */
static struct hwtimer_base *claim(struct hwtimer_wheel *w,
				  struct hwtimer_timeout *t,
				  unsigned long *flags)
{
	struct hwtimer_base *b, *old;
	u64 id;

	for (;;) {
		b = local_base(w);
		id = READ_ONCE(t->wheel_id);
		if (id && id != b->id) {
			old = stay_or_unbind(w, t, id, flags);
			if (old)
				return old;
		}
		raw_spin_lock_irqsave(&b->lock, *flags);
		/* Bound here stays so under b->lock: no atomic needed. */
		id = READ_ONCE(t->wheel_id);
		if (id != b->id)
			id = cmpxchg64(&t->wheel_id, 0, b->id) ?: b->id;
		if (id == b->id)
			break;
		/* Bound to another base since: start over from there. */
		raw_spin_unlock_irqrestore(&b->lock, *flags);
		cpu_relax();
	}
	if (state_of(t) & HWT_HANDBACK) {
		raw_spin_unlock_irqrestore(&b->lock, *flags);
		return ERR_PTR(-EBUSY);
	}
	return b;
}

/**
 * __hwtimer_timeout_init() - prepare a timeout; use hwtimer_timeout_init()
 * @t: the timeout
 * @fn: callback, run in process context
 * @flags: must be 0 (reserved)
 * @owner: module to pin while @t is pending or running; NULL pins nothing
 *
 * @t may be memory that an earlier timeout used, even one whose callback
 * freed it and is still returning: the new timeout is a new one.
 *
 * Context: any; @t must not be pending, running or handed back.
 */
void __hwtimer_timeout_init(struct hwtimer_timeout *t, hwtimer_fn_t fn,
			    u32 flags, struct module *owner)
{
	/* Every field is written, none left from an earlier use. */
	*t = (struct hwtimer_timeout){ .fn = fn, .owner = owner };
	hwtimer_wc_entry_init(&t->entry);
}
EXPORT_SYMBOL_GPL(__hwtimer_timeout_init);

static bool arm_args_ok(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
			u64 period, u32 flags)
{
	return w && t && t->fn && !(flags & ~HWTIMER_ARM_ABS) &&
	       (!period || period >= w->tick_ns);
}

/* Arm @t, which claim() bound to @b and whose lock the caller holds. */
static inline int arm_claimed(struct hwtimer_base *b,
			      struct hwtimer_timeout *t, u64 expires,
			      u64 period, u32 flags)
{
	lockdep_assert_held(&b->lock);
	if (b->stopped) {
		b->stats.rejected++;
		return -ESHUTDOWN;
	}
	if (is_pending(t))
		return -EBUSY;
	return start(b, t, abs_deadline(b->w, expires, flags), period);
}

/**
 * hwtimer_arm() - arm an idle timeout
 * @w: the wheel
 * @t: the timeout, set up by hwtimer_timeout_init()
 * @expires: deadline in ns: relative to now, or absolute on @w's clock with
 *	%HWTIMER_ARM_ABS; a deadline in the past fires at once
 * @period: 0 for a one-shot, else the period in ns (at least one tick)
 * @flags: 0 or %HWTIMER_ARM_ABS
 *
 * The callback runs no earlier than the deadline, normally within a tick
 * after it. A periodic timeout is re-armed when its callback returns, for
 * the first period boundary after that; the boundaries it skipped are
 * hwtimer_overruns() of its next run. The callback may arm its own
 * timeout again. A periodic timeout holds one place in @w's max_pending
 * from this arm until it is cancelled, its callback runs included. On a
 * %HWTIMER_WHEEL_PERCPU wheel the timeout goes to this CPU's base, unless
 * its callback is running on another base of @w, where it then stays.
 *
 * Context: any, hard interrupt included; never sleeps. Takes the base's
 * lock with interrupts saved.
 * Return: 0 on success; -EINVAL on bad arguments; -EBUSY if @t is pending
 * (or bound to another wheel that it is pending or running on, or on a
 * list handed back by hwtimer_wheel_stop()); -ENOSPC when @w holds its
 * maximum of pending timeouts; -ESHUTDOWN after hwtimer_wheel_stop();
 * -ENODEV if @t's owner module is being unloaded.
 */
int hwtimer_arm(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		u64 expires, u64 period, u32 flags)
{
	struct hwtimer_base *b;
	unsigned long irqflags;
	int ret;

	if (!arm_args_ok(w, t, period, flags))
		return -EINVAL;
	b = claim(w, t, &irqflags);
	if (IS_ERR(b))
		return PTR_ERR(b);
	ret = arm_claimed(b, t, expires, period, flags);
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_arm);

/**
 * hwtimer_modify() - move a timeout to a new deadline, in place
 * @t: the timeout; pending, or idle after an earlier hwtimer_arm()
 * @expires: new deadline, as for hwtimer_arm()
 * @flags: 0 or %HWTIMER_ARM_ABS
 *
 * A pending timeout keeps its place in the limit and its pin and just moves;
 * an idle one is armed again on the base of its last arm, keeping its
 * period. A timeout collected for expiry whose callback has not started yet
 * is still pending and is moved too.
 *
 * Context: any, hard interrupt included; never sleeps.
 * Return: 0 on success; -EINVAL if @t was never armed or @flags is bad;
 * -EBUSY while @t is on a list handed back by hwtimer_wheel_stop();
 * -ESHUTDOWN if the wheel of its last arm is stopped or destroyed (also
 * when @t is pending there); -ENOSPC or -ENODEV as for hwtimer_arm() when
 * @t was idle.
 */
int hwtimer_modify(struct hwtimer_timeout *t, u64 expires, u32 flags)
{
	struct hwtimer_worker *wk;
	struct hwtimer_base *b;
	unsigned long irqflags;
	u64 deadline;
	int ret = 0;

	if (!t || (flags & ~HWTIMER_ARM_ABS))
		return -EINVAL;
	b = lock_timeout(t, &irqflags);
	if (!b) {
		if (handed_back(t))
			return -EBUSY;
		return READ_ONCE(t->wheel_id) ? -ESHUTDOWN : -EINVAL;
	}
	deadline = abs_deadline(b->w, expires, flags);
	if (state_of(t) & HWT_HANDBACK) {
		ret = -EBUSY;
	} else if (b->stopped) {
		b->stats.rejected++;
		ret = -ESHUTDOWN;
	} else if (hwtimer_wc_entry_pending(&t->entry)) {
		/* In the wheel: move it there, often within its slot. */
		hwtimer_wc_modify(&b->wc, &t->entry, deadline);
		queued_for(b, t, deadline);
	} else if (is_pending(t)) {
		wk = running_on(b, t);
		dequeue(b, t, wk);
		enqueue(b, t, deadline, wk);
	} else {
		ret = start(b, t, deadline, t->period_ns);
	}
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_modify);

/* Cancel @t on @b. Caller holds b->lock. */
static inline int cancel_locked(struct hwtimer_base *b,
				struct hwtimer_timeout *t)
{
	struct hwtimer_worker *wk = running_on(b, t);
	int ret = HWTIMER_NOT_PENDING;

	lockdep_assert_held(&b->lock);
	if (is_pending(t)) {
		dequeue(b, t, wk);
		live_put(b->w);
		b->stats.cancelled++;
		if (!wk)
			pin_put(b, t->owner);
		set_outcome(t, HWTIMER_STATE_CANCELLED);
		ret = HWTIMER_CANCELLED;
	}
	if (wk) {
		if (wk->held) {
			/* A periodic series ends here: no re-arm. */
			wk->held = false;
			live_put(b->w);
			set_outcome(t, HWTIMER_STATE_CANCELLED);
		}
		if (ret == HWTIMER_NOT_PENDING)
			ret = HWTIMER_RUNNING;
	}
	trace_hwtimer_timeout_cancel(b->w->name, t, ret);
	return ret;
}

/**
 * hwtimer_cancel() - take back a pending timeout, without waiting
 * @t: the timeout
 *
 * Cancelling a timeout whose expiry was already collected but whose
 * callback has not started still succeeds: exactly one of cancel and
 * callback wins. A running periodic timeout is not re-armed after its
 * callback returns. Safe on a timeout whose wheel was destroyed.
 *
 * Context: any, hard interrupt included; never sleeps.
 * Return: %HWTIMER_CANCELLED if @t was pending (its pending expiry will
 * not run; an earlier run of the callback may still be in progress);
 * %HWTIMER_RUNNING if @t was not pending but its callback is running now;
 * %HWTIMER_NOT_PENDING otherwise.
 */
int hwtimer_cancel(struct hwtimer_timeout *t)
{
	struct hwtimer_base *b;
	unsigned long irqflags;
	int ret;

	b = lock_timeout(t, &irqflags);
	if (!b)
		return HWTIMER_NOT_PENDING;
	ret = cancel_locked(b, t);
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_cancel);

static void wheel_release(struct kref *ref)
{
	struct hwtimer_wheel *w = container_of(ref, struct hwtimer_wheel, ref);
	unsigned int i;

	lockdep_unregister_key(&w->key);
	for (i = 0; i < w->nbases; i++)
		if (w->bases[i])
			kvfree_rcu(w->bases[i], rcu);
	kvfree_rcu(w, rcu);
}

/*
 * Tell lockdep that the caller waits for callbacks of @w: a lock held now
 * and taken by a callback is a possible deadlock. Not from a callback of
 * @w itself, where waiting for another worker is allowed.
 */
static void annotate_wait(struct hwtimer_wheel *w)
{
	if (in_worker_of(w))
		return;
	lock_map_acquire(&w->map);
	lock_map_release(&w->map);
}

/**
 * hwtimer_cancel_sync() - cancel a timeout and wait for its callback
 * @t: the timeout
 *
 * Like hwtimer_cancel(), then waits until the callback is not running,
 * cancelling again whatever the callback re-armed. On return @t is idle
 * (unless someone else arms it concurrently) and may be freed. Lockdep
 * checks the caller holds no lock that a callback of the wheel takes, as
 * it does for del_timer_sync().
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
	struct hwtimer_base *b;
	unsigned long irqflags, seq = 0;
	int r;

	might_sleep();
	for (;;) {
		b = lock_timeout(t, &irqflags);
		if (!b)
			return ret;
		w = b->w;
		wk = running_on(b, t);
		if (wk && wk->task == current) {
			raw_spin_unlock_irqrestore(&b->lock, irqflags);
			return -EDEADLK;
		}
		r = cancel_locked(b, t);
		if (ret == HWTIMER_NOT_PENDING)
			ret = r;
		if (wk) {
			seq = wk->seq;
			/* Under the lock: finish_locked() sees it, no barrier. */
			wk->waited = true;
		}
		kref_get(&w->ref);
		raw_spin_unlock_irqrestore(&b->lock, irqflags);
		annotate_wait(w);
		if (wk)
			wait_event(w->done_wq, READ_ONCE(wk->seq) != seq);
		kref_put(&w->ref, wheel_release);
		if (!wk)
			return ret;
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
	struct hwtimer_base *b;
	unsigned long irqflags;
	bool ret;

	b = lock_timeout(t, &irqflags);
	if (!b)
		return false;
	ret = is_pending(t);
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_pending);

/* State of idle @t from its recorded outcome. */
static enum hwtimer_state outcome_of(u16 state)
{
	if (state & HWT_HANDBACK)
		return HWTIMER_STATE_STOPPED;
	return (state & HWT_OUTCOME) >> HWT_OUTCOME_SHIFT;
}

/**
 * hwtimer_state() - what became of a timeout
 * @t: the timeout
 *
 * Tells apart the cases hwtimer_pending() folds into false: never armed,
 * running, fired, cancelled, taken back by a stopping wheel. A one-shot
 * reads %HWTIMER_STATE_FIRED from the moment its callback returns (and
 * %HWTIMER_STATE_RUNNING while it runs); a periodic one cancelled while its
 * callback runs reads %HWTIMER_STATE_CANCELLED once it returned.
 *
 * Context: any; never sleeps. As stale as hwtimer_pending()'s answer.
 * Return: an &enum hwtimer_state.
 */
enum hwtimer_state hwtimer_state(struct hwtimer_timeout *t)
{
	enum hwtimer_state ret;
	struct hwtimer_base *b;
	unsigned long irqflags;

	b = lock_timeout(t, &irqflags);
	if (!b)
		return outcome_of(READ_ONCE(t->entry.aux));
	if (is_pending(t))
		ret = HWTIMER_STATE_PENDING;
	else if (running_on(b, t))
		ret = HWTIMER_STATE_RUNNING;
	else
		ret = outcome_of(state_of(t));
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_state);

/**
 * hwtimer_overruns() - periods missed before the running callback
 * @t: a periodic timeout, from inside its callback
 *
 * A periodic timeout is re-armed when its callback returns, for the first
 * period boundary after that; the boundaries it skipped on the way (those
 * that passed while the previous callback was late or running) are this
 * run's overruns. So the deadlines of two runs in a row are exactly
 * (1 + overruns of the second) periods apart, and every period boundary is
 * either a run's deadline or counted once as an overrun.
 *
 * Context: @t's own callback; the count is kept by the worker running it.
 * Return: periods skipped between the previous run's deadline and this
 * run's (0 for the first run and when on time); 0 for a one-shot, and 0
 * when not called from @t's callback.
 */
u64 hwtimer_overruns(const struct hwtimer_timeout *t)
{
	struct hwtimer_worker *wk = current_worker();

	return wk && READ_ONCE(wk->cur) == t ? wk->overruns : 0;
}
EXPORT_SYMBOL_GPL(hwtimer_overruns);

/**
 * hwtimer_run_start() - when the running callback of a timeout started
 * @t: a timeout, from inside its callback
 *
 * The time on the wheel's clock at which the worker took @t to run it: at
 * or after its deadline, a moment before the callback was entered, the
 * time the wheel's lateness statistics count from. Unlike
 * hwtimer_wheel_now() it reads no clock; the worker read it once already.
 *
 * Context: @t's own callback; the time is kept by the worker running it.
 * Return: ns on the wheel's clock; 0 when not called from @t's callback.
 */
u64 hwtimer_run_start(const struct hwtimer_timeout *t)
{
	struct hwtimer_worker *wk = current_worker();

	return wk && READ_ONCE(wk->cur) == t ? wk->run_start : 0;
}
EXPORT_SYMBOL_GPL(hwtimer_run_start);

/**
 * hwtimer_unprocessed_pop() - take a timeout off a list stop handed back
 * @list: the list given to hwtimer_wheel_stop()
 *
 * While on the list, a timeout cannot be armed (-EBUSY); this takes the
 * first one off and makes it idle (%HWTIMER_STATE_STOPPED), free to be
 * armed again or freed. Works after the wheel was destroyed, too.
 *
 * Context: any; never sleeps. The caller serialises access to @list.
 * Return: the timeout, or NULL when @list is empty.
 */
struct hwtimer_timeout *hwtimer_unprocessed_pop(struct list_head *list)
{
	struct hwtimer_timeout *t;
	struct hwtimer_base *b;
	unsigned long irqflags;

	t = list_first_entry_or_null(list, struct hwtimer_timeout, entry.node);
	if (!t)
		return NULL;
	b = lock_timeout(t, &irqflags);
	list_del_init(&t->entry.node);
	/* Off the list before armable: pairs with handed_back(). */
	smp_store_release(&t->entry.aux, state_of(t) & ~HWT_HANDBACK);
	if (b)
		raw_spin_unlock_irqrestore(&b->lock, irqflags);
	return t;
}
EXPORT_SYMBOL_GPL(hwtimer_unprocessed_pop);

/*
 * The worker the hrtimer wakes, or NULL: the first that is not in a
 * callback, looking past those whose callback has run for a tick or more
 * (it may sleep for long). None when a callback is younger than a tick:
 * that worker collects when it returns, and @back says when to look
 * again if a worker after it could take over. Caller holds b->lock.
 */
static struct hwtimer_worker *worker_to_wake(struct hwtimer_base *b, u64 now,
					     u64 *back)
{
	struct hwtimer_worker *wk, *end = b->workers + b->nworkers;
	u64 tick = b->w->tick_ns;

	for (wk = b->workers; wk < end; wk++) {
		if (!wk->cur)
			return wk;
		/* A clock set back makes the run look old: look past it. */
		if (now >= wk->run_start && now < wk->run_start + tick) {
			if (wk + 1 < end)
				*back = wk->run_start + tick;
			return NULL;
		}
	}
	return NULL;
}

/*
 * Hard irq: count, flag, wake the worker that collects. When it wakes
 * none while another could take over, it comes back when the running
 * callback turns a tick old. O(workers).
 */
static enum hrtimer_restart hrt_fn(struct hrtimer *hrt)
{
	struct hwtimer_base *b = container_of(hrt, struct hwtimer_base, hrt);
	u64 now = ktime_to_ns(hrtimer_cb_get_time(hrt)), back = U64_MAX;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct hwtimer_worker *wk;

	raw_spin_lock(&b->lock);
	atomic64_inc(&b->hrt_fires);
	WRITE_ONCE(b->kicked, true);
	wk = worker_to_wake(b, now, &back);
	/* Started again while this ran: hrt_next already says when. */
	if (!hrtimer_is_queued(hrt)) {
		b->hrt_next = U64_MAX;
		if (back != U64_MAX && !b->stopped) {
			hrtimer_set_expires(hrt, ns_to_ktime(back));
			b->hrt_next = back;
			ret = HRTIMER_RESTART;
		}
	}
	raw_spin_unlock(&b->lock);
	if (wk)
		wake_up_process(wk->task);
	return ret;
}

/*
 * Entries a worker hands out or cascades, plus ticks the wheel steps to,
 * per hold of the base lock: bounds how long interrupts stay off when many
 * timeouts come due at once. Stop hands back as many per hold.
 */
#define HWTIMER_ADVANCE_BATCH	256

static int cmp_deadline(void *priv, const struct list_head *a,
			const struct list_head *b)
{
	const struct hwtimer_wc_entry *ea, *eb;

	ea = list_entry(a, struct hwtimer_wc_entry, node);
	eb = list_entry(b, struct hwtimer_wc_entry, node);
	return ea->expires_ns > eb->expires_ns;
}

/* Is @list in deadline order already? As it is when all share one. */
static bool in_deadline_order(const struct list_head *list)
{
	const struct hwtimer_wc_entry *e, *prev = NULL;

	list_for_each_entry(e, list, node) {
		if (prev && prev->expires_ns > e->expires_ns)
			return false;
		prev = e;
	}
	return true;
}

/*
 * Advance the wheel to now by up to HWTIMER_ADVANCE_BATCH entries and make
 * what is due ready in deadline order. On CLOCK_REALTIME, a clock set back
 * before the wheel's current tick first moves the wheel back to it
 * (hwtimer_wc_rewind(): at most HWTIMER_WC_SLOTS list splices), whose
 * entries the advances then cascade in the same bounded batches; a clock
 * set forward is a late advance like any other. The wheel hands out tick after
 * tick however late this is, a tick of fewer entries than a batch in one
 * batch, and one tick's entries in arming order, so the batch is sorted:
 * O(batch log batch), under b->lock. While work is left, @b stays kicked
 * for the next worker to come by; once none is, the hrtimer is re-armed
 * to when the wheel next hands out some: the next occupied tick, or its
 * first deadline when it has few entries (hwtimer_wc_due_ns()). Caller
 * holds b->lock.
 */
static void collect_locked(struct hwtimer_base *b)
{
	LIST_HEAD(due);
	u64 n, tick, now;

	lockdep_assert_held(&b->lock);
	WRITE_ONCE(b->kicked, false);
	b->hrt_next = U64_MAX;
	now = wheel_now(b->w);
	if (b->w->clock == CLOCK_REALTIME && hwtimer_wc_rewind(&b->wc, now))
		trace_hwtimer_wheel_rewind(b->w->name, now);
	n = hwtimer_wc_advance_max(&b->wc, now, &due, HWTIMER_ADVANCE_BATCH);
	if (n > 1 && !in_deadline_order(&due))
		list_sort(NULL, &due, cmp_deadline);
	list_splice_tail(&due, &b->ready);
	if (hwtimer_wc_next_expiry(&b->wc, &tick)) {
		/* Work left (due list, ticks not reached): the current tick. */
		if (tick <= b->wc.now)
			WRITE_ONCE(b->kicked, true);
		else
			program(b, hwtimer_wc_due_ns(&b->wc, tick));
	}
}

/* Lateness bucket: 0 for on time, else fls64, capped at the last bucket. */
static unsigned int lat_bucket(u64 late)
{
	return min_t(unsigned int, fls64(late), HWTIMER_STATS_LAT_BUCKETS - 1);
}

/*
 * The next deadline of periodic @t, whose callback just returned: the
 * first period boundary after now, in @next; the boundaries skipped on the
 * way, which are the next run's overruns, in @skipped. Changes nothing.
 * Return: false if the next deadline overflows.
 */
static bool next_period(struct hwtimer_base *b,
			const struct hwtimer_timeout *t, u64 *next,
			u64 *skipped)
{
	u64 deadline = hwtimer_deadline(t), now = wheel_now(b->w);
	u64 step;

	*skipped = now >= deadline ?
		div64_u64(now - deadline, t->period_ns) : 0;
	return !check_mul_overflow(*skipped + 1, t->period_ns, &step) &&
	       !check_add_overflow(deadline, step, next);
}

/*
 * The run on @wk ends for good: give back the limit place a periodic run
 * held and the owner's pin. Caller holds b->lock.
 */
static void drop_run(struct hwtimer_worker *wk)
{
	if (wk->held)
		live_put(wk->b->w);
	pin_put(wk->b, wk->owner);
}

/*
 * The callback of @wk->cur returned. Touch the timeout only if it is
 * pending again or a periodic one still held; else it may already be
 * freed. Caller holds b->lock. Return: true if done_wq has waiters to
 * wake: a hwtimer_cancel_sync() of this run, or a stop of the wheel. Both
 * say so under the lock, so finding out takes no barrier.
 */
static inline bool finish_locked(struct hwtimer_worker *wk)
{
	struct hwtimer_base *b = wk->b;
	struct hwtimer_timeout *t = wk->cur;
	u64 next, skipped;
	bool wake;

	lockdep_assert_held(&b->lock);
	WRITE_ONCE(wk->cur, NULL);
	WRITE_ONCE(wk->seq, wk->seq + 1);
	WRITE_ONCE(b->nrunning, b->nrunning - 1);
	if (wk->parked) {
		/* Re-armed during the run and due already: ready at once. */
		state_clear(t, HWT_PARKED | HWT_RUNNING | HWT_WORKER);
		list_add(&t->entry.node, &b->ready);
		wk->parked = NULL;
	} else if (wk->rearmed) {
		state_clear(t, HWT_RUNNING | HWT_WORKER);
	} else if (wk->held && !b->stopped &&
		   next_period(b, t, &next, &skipped)) {
		/* Periodic: queued again, keeping its run's limit place. */
		state_clear(t, HWT_RUNNING | HWT_WORKER);
		enqueue(b, t, next, NULL);
		set_carry(t, min_t(u64, skipped, U32_MAX));
	} else {
		/* A one-shot, a stopped wheel, or no next period: done. */
		drop_run(wk);
	}
	wk->held = false;
	wk->owner = NULL;
	wake = wk->waited || b->stopped;
	wk->waited = false;
	return wake;
}

/*
 * Take the first ready timeout that is not running elsewhere and mark it
 * running on @wk. Caller holds b->lock. Return: the timeout, or NULL.
 */
static struct hwtimer_timeout *take_locked(struct hwtimer_worker *wk)
{
	struct hwtimer_base *b = wk->b;
	struct hwtimer_worker *other;
	struct hwtimer_timeout *t;
	u64 now, late;

	lockdep_assert_held(&b->lock);
	for (;;) {
		t = list_first_entry_or_null(&b->ready, struct hwtimer_timeout,
					     entry.node);
		if (!t)
			return NULL;
		list_del_init(&t->entry.node);
		other = running_on(b, t);
		if (!other)
			break;
		/* Still running its last expiry: the runner queues it again. */
		state_add(t, HWT_PARKED);
		other->parked = t;
	}
	state_write(t, HWT_RUNNING |
		    (wk - b->workers) << HWT_WORKER_SHIFT |
		    HWTIMER_STATE_FIRED << HWT_OUTCOME_SHIFT);
	b->npending--;
	WRITE_ONCE(b->nrunning, b->nrunning + 1);
	WRITE_ONCE(wk->cur, t);
	now = wheel_now(b->w);
	wk->run_start = now;
	/* More wait: if this callback sleeps, the hrtimer wakes another. */
	if (b->nworkers > 1 && (!list_empty(&b->ready) || b->kicked))
		program(b, now + b->w->tick_ns);
	wk->owner = t->owner;
	wk->period = t->period_ns;
	wk->rearmed = false;
	/* A periodic timeout keeps its limit place through its run. */
	wk->held = t->period_ns != 0;
	if (!wk->held)
		live_put(b->w);
	late = now > hwtimer_deadline(t) ? now - hwtimer_deadline(t) : 0;
	wk->overruns = t->period_ns ? carry_of(t) : 0;
	set_carry(t, 0);
	b->stats.fired++;
	b->stats.lateness[lat_bucket(late)]++;
	if (late > b->stats.max_lateness_ns)
		b->stats.max_lateness_ns = late;
	trace_hwtimer_timeout_expire(b->w->name, t, hwtimer_deadline(t), now,
				     wk->overruns);
	return t;
}

/*
 * In one hold of the base lock: finish the callback @wk ran last, collect
 * what came due if the hrtimer fired, take the next ready timeout.
 * A worker runs with interrupts on, so they are turned off and on around
 * the hold rather than saved and restored: this runs once per expiry.
 * Return: the timeout taken, or NULL.
 */
static struct hwtimer_timeout *finish_and_take(struct hwtimer_worker *wk)
{
	struct hwtimer_base *b = wk->b;
	struct hwtimer_timeout *t;
	bool wake = false;

	lockdep_assert_irqs_enabled();
	raw_spin_lock_irq(&b->lock);
	if (wk->cur)
		wake = finish_locked(wk);
	/*
	 * A batch is taken before the next is collected: the clock is read
	 * and the wheel advanced once per batch, not once per expiry.
	 */
	if (b->kicked && list_empty(&b->ready))
		collect_locked(b);
	t = take_locked(wk);
	raw_spin_unlock_irq(&b->lock);
	if (wake)
		wake_up_all(&b->w->done_wq);
	return t;
}

/* Finish the callback @wk ran last, taking nothing. */
static void finish(struct hwtimer_worker *wk)
{
	struct hwtimer_base *b = wk->b;
	bool wake;

	raw_spin_lock_irq(&b->lock);
	wake = finish_locked(wk);
	raw_spin_unlock_irq(&b->lock);
	if (wake)
		wake_up_all(&b->w->done_wq);
}

static bool worker_should_wake(struct hwtimer_base *b)
{
	/* Lockless peek: list_add() and list_del() write ->next once. */
	return !list_empty(&b->ready) || READ_ONCE(b->kicked) ||
	       kthread_should_stop();
}

static int worker_fn(void *arg)
{
	struct hwtimer_worker *wk = arg;
	struct hwtimer_base *b = wk->b;
	struct hwtimer_timeout *t;

	for (;;) {
		t = finish_and_take(wk);
		if (!t) {
			if (kthread_should_stop())
				break;
			wait_event_interruptible_exclusive(b->work_wq,
							   worker_should_wake(b));
			continue;
		}
		lock_map_acquire(&b->w->map);
		t->fn(t);
		lock_map_release(&b->w->map);
		if (need_resched()) {
			/* Finish before yielding: waiters need not wait. */
			finish(wk);
			cond_resched();
		}
	}
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
	for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
		seq_printf(m, " %llu", st->lateness[i]);
	seq_putc(m, '\n');
	kfree(st);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int params_show(struct seq_file *m, void *v)
{
	struct hwtimer_wheel *w = m->private;

	seq_printf(m, "name %s\ntick_ns %llu\nclock %s\nworkers %u\nmax_pending %llu\nbases %u\n",
		   w->name, w->tick_ns,
		   w->clock == CLOCK_BOOTTIME ? "boottime" :
		   w->clock == CLOCK_REALTIME ? "realtime" : "monotonic",
		   w->nworkers, w->max_pending, w->nbases);
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
	if (p->clock && p->clock != CLOCK_MONOTONIC &&
	    p->clock != CLOCK_BOOTTIME)
		return -EINVAL;
	if (p->workers > HWTIMER_WORKERS_MAX)
		return -EINVAL;
	if (p->flags & ~(HWTIMER_WHEEL_PERCPU | HWTIMER_WHEEL_REALTIME))
		return -EINVAL;
	if ((p->flags & HWTIMER_WHEEL_REALTIME) && p->clock)
		return -EINVAL;
	return 0;
}

/* Stop the kthreads of a wheel that was never started, or is stopped. */
static void stop_threads(struct hwtimer_wheel *w)
{
	struct hwtimer_base *b;
	unsigned int i, j;

	for (i = 0; i < w->nbases; i++) {
		b = w->bases[i];
		if (!b)
			continue;
		/* No worker is woken by the hrtimer from here on. */
		hrtimer_cancel(&b->hrt);
		for (j = 0; j < b->nworkers; j++)
			if (b->workers[j].task)
				kthread_stop(b->workers[j].task);
	}
}

/*
 * Worker @j of @b, near @b's CPU when it has one; not started yet.
 *
 * On PREEMPT_RT a worker runs at the lowest SCHED_FIFO priority, as the
 * kernel's own timer softirq thread does there. A spinlock_t is a
 * sleeping lock on RT, and a callback may take one that a user thread
 * holds, such as a /dev/hwtimer context's lock: only a real-time waiter
 * boosts the holder (priority inheritance), so a holder that its owner
 * keeps off the CPU (SCHED_IDLE next to its own busy thread) then holds
 * a worker up for its short critical section, not for as long as it is
 * starved. Elsewhere such a lock spins with preemption off, and a worker
 * stays SCHED_NORMAL like any kthread.
 */
static struct task_struct *worker_create(struct hwtimer_base *b,
					 unsigned int j)
{
	struct hwtimer_worker *wk = &b->workers[j];
	const char *name = b->w->name;
	struct task_struct *task;

	if (b->cpu < 0)
		task = kthread_create(worker_fn, wk, "hwtimer/%s/%u", name, j);
	else
		task = kthread_create_on_node(worker_fn, wk,
					      cpu_to_node(b->cpu),
					      "hwtimer/%s/%d:%u", name, b->cpu,
					      j);
	if (!IS_ERR(task) && IS_ENABLED(CONFIG_PREEMPT_RT))
		sched_set_fifo_low(task);
	return task;
}

/*
 * The workers of @w's per-CPU base @cpu run on that CPU while it is online
 * (@online), as timer_list's expiry runs on the CPU that queued it: the
 * base's hrtimer, started there, wakes a worker without an interrupt to
 * another CPU, and the callbacks run where their timeouts were armed.
 * While it is offline they run anywhere, serving the base from there (its
 * hrtimer has moved to another CPU). Caller holds hwtimer_wheels_lock.
 */
static void base_affine(struct hwtimer_wheel *w, unsigned int cpu,
			bool online)
{
	struct hwtimer_base *b = w->bases[cpu];
	const struct cpumask *m = online ? cpumask_of(cpu) : cpu_possible_mask;
	unsigned int j;

	lockdep_assert_held(&hwtimer_wheels_lock);
	for (j = 0; j < b->nworkers; j++)
		WARN_ON_ONCE(set_cpus_allowed_ptr(b->workers[j].task, m));
}

/* Every per-CPU base's workers of every wheel follow @cpu's state. */
static void cpu_affine(unsigned int cpu, bool online)
{
	struct hwtimer_wheel *w;

	mutex_lock(&hwtimer_wheels_lock);
	list_for_each_entry(w, &hwtimer_wheels, link)
		if (w->affine)
			base_affine(w, cpu, online);
	mutex_unlock(&hwtimer_wheels_lock);
}

static int hwtimer_cpu_online(unsigned int cpu)
{
	cpu_affine(cpu, true);
	return 0;
}

static int hwtimer_cpu_down_prep(unsigned int cpu)
{
	cpu_affine(cpu, false);
	return 0;
}

static enum cpuhp_state hwtimer_cpuhp;

/* Make @w's per-CPU bases' workers follow CPU hotplug from now on. */
static void wheel_affine(struct hwtimer_wheel *w)
{
	unsigned int i;

	if (w->nbases == 1)
		return;
	/* No CPU comes or goes between the look at it and the move. */
	cpus_read_lock();
	mutex_lock(&hwtimer_wheels_lock);
	for (i = 0; i < w->nbases; i++)
		base_affine(w, i, cpu_online(i));
	w->affine = true;
	mutex_unlock(&hwtimer_wheels_lock);
	cpus_read_unlock();
}

/* From now on, hotplug leaves @w's workers alone: they are to stop. */
static void wheel_unaffine(struct hwtimer_wheel *w)
{
	mutex_lock(&hwtimer_wheels_lock);
	w->affine = false;
	mutex_unlock(&hwtimer_wheels_lock);
}

static int start_threads(struct hwtimer_wheel *w)
{
	struct task_struct *task;
	struct hwtimer_base *b;
	unsigned int i, j;

	for (i = 0; i < w->nbases; i++) {
		b = w->bases[i];
		for (j = 0; j < b->nworkers; j++) {
			task = worker_create(b, j);
			if (IS_ERR(task))
				return PTR_ERR(task);
			b->workers[j].task = task;
		}
	}
	for (i = 0; i < w->nbases; i++)
		for (j = 0; j < w->bases[i]->nworkers; j++)
			wake_up_process(w->bases[i]->workers[j].task);
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

/* Allocate base @i of @w (for CPU @i when there is one per CPU). */
static struct hwtimer_base *base_create(struct hwtimer_wheel *w,
					unsigned int i)
{
	int cpu = w->nbases > 1 ? i : -1;
	struct hwtimer_base *b;
	unsigned int j;

	b = kvzalloc_node(struct_size(b, workers, w->nworkers), GFP_KERNEL,
			  cpu < 0 ? NUMA_NO_NODE : cpu_to_node(cpu));
	if (!b)
		return NULL;
	raw_spin_lock_init(&b->lock);
	INIT_LIST_HEAD(&b->ready);
	b->hrt_next = U64_MAX;
	atomic64_set(&b->hrt_fires, 0);
	init_waitqueue_head(&b->work_wq);
	b->w = w;
	b->cpu = cpu;
	b->nworkers = w->nworkers;
	for (j = 0; j < b->nworkers; j++)
		b->workers[j].b = b;
	hrtimer_init(&b->hrt, w->clock, HRTIMER_MODE_ABS_HARD);
	b->hrt.function = hrt_fn;
	hwtimer_wc_init(&b->wc, w->tick_ns, wheel_now(w));
	return b;
}

/* Give each base of @w an id: from now on timeouts can find them. */
static int publish_bases(struct hwtimer_wheel *w)
{
	struct hwtimer_base *b;
	unsigned int i;
	u32 idx;
	int ret;

	for (i = 0; i < w->nbases; i++) {
		b = w->bases[i];
		ret = xa_alloc(&hwtimer_bases, &idx, b, xa_limit_32b,
			       GFP_KERNEL);
		if (ret)
			return ret;
		WRITE_ONCE(b->id,
			   (u64)(u32)atomic_inc_return(&hwtimer_base_seq) << 32 |
			   idx);
	}
	return 0;
}

/* Make @w's base ids match nothing, and no timeout find its bases. */
static void unpublish_bases(struct hwtimer_wheel *w)
{
	struct hwtimer_base *b;
	unsigned long irqflags;
	unsigned int i;

	for (i = 0; i < w->nbases; i++) {
		b = w->bases[i];
		raw_spin_lock_irqsave(&b->lock, irqflags);
		b->dead = true;
		raw_spin_unlock_irqrestore(&b->lock, irqflags);
		if (b->id)
			xa_erase(&hwtimer_bases, (u32)b->id);
	}
}

/**
 * __hwtimer_wheel_create() - create a private wheel; use hwtimer_wheel_create()
 * @p: parameters, see &struct hwtimer_wheel_params
 * @owner: the module that will destroy the wheel before it unloads, or
 *	NULL
 *
 * Starts @p->workers callback kthreads for each base (one base, or one
 * per possible CPU with %HWTIMER_WHEEL_PERCPU) and adds
 * /sys/kernel/debug/hwtimer/<name>/.
 *
 * The timeouts @owner initialised are not pinned on this wheel: @owner
 * cannot unload before its exit destroys the wheel, which waits for their
 * callbacks. Those of other modules are pinned while pending or running.
 * A per-CPU base's workers run on its CPU while it is online.
 *
 * Context: process context, may sleep; not under cpus_read_lock().
 * Return: the wheel; ERR_PTR(-EINVAL) on bad parameters, ERR_PTR(-EEXIST)
 * if the name is taken, ERR_PTR(-ENOMEM) or another error when resources
 * run out.
 */
struct hwtimer_wheel *__hwtimer_wheel_create(const struct hwtimer_wheel_params *p,
					     struct module *owner)
{
	struct hwtimer_wheel *w;
	unsigned int nbases, i;
	int ret;

	ret = check_params(p);
	if (ret)
		return ERR_PTR(ret);
	nbases = p->flags & HWTIMER_WHEEL_PERCPU ? nr_cpu_ids : 1;
	w = kvzalloc(struct_size(w, bases, nbases), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	w->nbases = nbases;
	atomic64_set(&w->nlive, 0);
	init_waitqueue_head(&w->done_wq);
	mutex_init(&w->stop_mutex);
	kref_init(&w->ref);
	strscpy(w->name, p->name, sizeof(w->name));
	lockdep_register_key(&w->key);
	lockdep_init_map(&w->map, w->name, &w->key, 0);
	w->clock = p->flags & HWTIMER_WHEEL_REALTIME ? CLOCK_REALTIME :
		   p->clock ?: CLOCK_MONOTONIC;
	w->tick_ns = p->tick_ns ?: HWTIMER_TICK_DEFAULT_NS;
	w->max_pending = p->max_pending;
	w->flags = p->flags;
	w->nworkers = p->workers ?: HWTIMER_WORKERS_DEFAULT;
	w->owner = owner;
	for (i = 0; i < nbases; i++) {
		w->bases[i] = base_create(w, i);
		if (!w->bases[i]) {
			ret = -ENOMEM;
			goto err_free;
		}
	}

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
	ret = publish_bases(w);
	if (ret < 0)
		goto err_unpublish;
	w->dir = debugfs_create_dir(w->name, hwtimer_debugfs);
	debugfs_create_file("stats", 0444, w->dir, w, &stats_fops);
	debugfs_create_file("params", 0444, w->dir, w, &params_fops);
	wheel_affine(w);
	return w;

err_unpublish:
	unpublish_bases(w);
	synchronize_rcu();
err_unlist:
	stop_threads(w);
	mutex_lock(&hwtimer_wheels_lock);
	list_del(&w->link);
	mutex_unlock(&hwtimer_wheels_lock);
err_free:
	for (i = 0; i < nbases; i++)
		kvfree(w->bases[i]);
	lockdep_unregister_key(&w->key);
	kvfree(w);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(__hwtimer_wheel_create);

/**
 * hwtimer_default_wheel() - the module's shared wheel
 *
 * Context: any.
 * Return: the wheel; its parameters are hwtimer's module parameters
 * tick_ns, workers, max_pending, clock and percpu, its debugfs name
 * "default". Valid while hwtimer is loaded, which a caller of this symbol
 * guarantees.
 */
struct hwtimer_wheel *hwtimer_default_wheel(void)
{
	return hwtimer_default;
}
EXPORT_SYMBOL_GPL(hwtimer_default_wheel);

/* Hand pending @t back: idle, not armable until popped. */
static void hand_back(struct hwtimer_base *b, struct hwtimer_timeout *t,
		      struct list_head *list)
{
	struct hwtimer_worker *wk = running_on(b, t);

	lockdep_assert_held(&b->lock);
	list_add_tail(&t->entry.node, list);
	state_clear(t, HWT_QUEUED | HWT_PARKED);
	state_add(t, HWT_HANDBACK);
	set_outcome(t, HWTIMER_STATE_STOPPED);
	b->npending--;
	live_put(b->w);
	if (wk)
		wk->rearmed = false;	/* the runner drops the pin */
	else
		pin_put(b, t->owner);
}

/*
 * Hand up to @max pending timeouts of stopped @b back onto @list.
 * Return: how many. Caller holds b->lock.
 */
static u64 take_some(struct hwtimer_base *b, struct list_head *list, u64 max)
{
	struct hwtimer_timeout *t;
	struct hwtimer_worker *wk;
	LIST_HEAD(some);
	u64 n;

	lockdep_assert_held(&b->lock);
	n = hwtimer_wc_drain_max(&b->wc, &some, max);
	while (n < max && !list_empty(&b->ready)) {
		list_move_tail(b->ready.next, &some);
		n++;
	}
	while (!list_empty(&some)) {
		t = list_first_entry(&some, struct hwtimer_timeout, entry.node);
		list_del(&t->entry.node);
		hand_back(b, t, list);
	}
	for (wk = b->workers; n < max && wk < b->workers + b->nworkers; wk++) {
		t = wk->parked;
		if (t) {
			wk->parked = NULL;
			hand_back(b, t, list);
			n++;
		}
	}
	return n;
}

/* Stop @b: refuse arms, hand back every pending timeout onto @list. */
static void stop_base(struct hwtimer_base *b, struct list_head *list)
{
	unsigned long irqflags;
	u64 n;

	raw_spin_lock_irqsave(&b->lock, irqflags);
	b->stopped = true;
	b->hrt_next = U64_MAX;
	raw_spin_unlock_irqrestore(&b->lock, irqflags);
	hrtimer_cancel(&b->hrt);
	do {
		raw_spin_lock_irqsave(&b->lock, irqflags);
		n = take_some(b, list, HWTIMER_ADVANCE_BATCH);
		raw_spin_unlock_irqrestore(&b->lock, irqflags);
		cond_resched();
	} while (n);
}

/* Callbacks running now on any base of @w. */
static unsigned int nrunning(struct hwtimer_wheel *w)
{
	unsigned int i, n = 0;

	for (i = 0; i < w->nbases; i++)
		n += READ_ONCE(w->bases[i]->nrunning);
	return n;
}

/**
 * hwtimer_wheel_stop() - stop a wheel, handing back what did not fire
 * @w: the wheel
 * @unprocessed: list to append every pending timeout to, or NULL to drop
 *	them; empty it with hwtimer_unprocessed_pop()
 *
 * Like Netty's HashedWheelTimer.stop(): from now on arms and modifies fail
 * with -ESHUTDOWN and periodic timeouts are not re-armed; every pending
 * timeout (in the wheel or collected but not started, on every base) is
 * taken back, its module pin dropped; then this waits for running
 * callbacks to return. A timeout on @unprocessed cannot be armed (-EBUSY,
 * on any wheel) until hwtimer_unprocessed_pop() takes it off. Calling
 * stop again hands back nothing. Interrupts stay off for at most
 * %HWTIMER_ADVANCE_BATCH timeouts at a time, however many are pending.
 *
 * Context: process context, may sleep; not from a callback of @w. Lockdep
 * checks the caller holds no lock that a callback of @w takes.
 * Return: 0, or -EDEADLK when called from a callback of @w.
 */
int hwtimer_wheel_stop(struct hwtimer_wheel *w, struct list_head *unprocessed)
{
	LIST_HEAD(list);
	unsigned int i;

	might_sleep();
	if (in_worker_of(w))
		return -EDEADLK;
	annotate_wait(w);
	mutex_lock(&w->stop_mutex);
	for (i = 0; i < w->nbases; i++)
		stop_base(w->bases[i], &list);
	wait_event(w->done_wq, !nrunning(w));
	if (unprocessed) {
		list_splice_tail(&list, unprocessed);
	} else {
		while (hwtimer_unprocessed_pop(&list))
			cond_resched();
	}
	mutex_unlock(&w->stop_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_stop);

/**
 * hwtimer_wheel_destroy() - stop and free a wheel
 * @w: a wheel from hwtimer_wheel_create(), or NULL
 *
 * hwtimer_wheel_stop() dropping every pending timeout, then stops the
 * kthreads and frees the wheel. Its ids then match nothing: a timeout
 * last armed on @w may still be cancelled (%HWTIMER_NOT_PENDING), queried,
 * armed on another wheel or freed.
 *
 * Context: process context, may sleep; not from a callback of @w.
 */
void hwtimer_wheel_destroy(struct hwtimer_wheel *w)
{
	if (!w)
		return;
	if (WARN_ON_ONCE(hwtimer_wheel_stop(w, NULL)))
		return;
	unpublish_bases(w);
	debugfs_remove_recursive(w->dir);
	wheel_unaffine(w);
	stop_threads(w);
	mutex_lock(&hwtimer_wheels_lock);
	list_del(&w->link);
	mutex_unlock(&hwtimer_wheels_lock);
	mutex_destroy(&w->stop_mutex);
	kref_put(&w->ref, wheel_release);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_destroy);

/**
 * hwtimer_wheel_get_stats() - read a wheel's counters
 * @w: the wheel
 * @st: filled with the sums over the wheel's bases (the maximum for
 *	max_lateness_ns), each base read in one consistent snapshot
 *
 * Context: any; never sleeps.
 */
void hwtimer_wheel_get_stats(struct hwtimer_wheel *w, struct hwtimer_stats *st)
{
	struct hwtimer_base *b;
	unsigned long irqflags;
	unsigned int i, j;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < w->nbases; i++) {
		b = w->bases[i];
		raw_spin_lock_irqsave(&b->lock, irqflags);
		st->pending += b->npending;
		st->armed += b->stats.armed;
		st->fired += b->stats.fired;
		st->cancelled += b->stats.cancelled;
		st->rejected += b->stats.rejected;
		st->max_lateness_ns = max(st->max_lateness_ns,
					  b->stats.max_lateness_ns);
		for (j = 0; j < HWTIMER_STATS_LAT_BUCKETS; j++)
			st->lateness[j] += b->stats.lateness[j];
		raw_spin_unlock_irqrestore(&b->lock, irqflags);
		st->hrtimer_fires += atomic64_read(&b->hrt_fires);
	}
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_get_stats);

/**
 * hwtimer_wheel_now() - current time on a wheel's clock
 * @w: the wheel
 *
 * Context: any.
 * Return: ns on CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME, as for
 * %HWTIMER_ARM_ABS.
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
 * Return: CLOCK_MONOTONIC, CLOCK_BOOTTIME, or CLOCK_REALTIME for a wheel
 * made with %HWTIMER_WHEEL_REALTIME.
 */
clockid_t hwtimer_wheel_clock(struct hwtimer_wheel *w)
{
	return w->clock;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_clock);

static int __init hwtimer_init(void)
{
	struct hwtimer_wheel_params p = {
		.name = "default",
		.tick_ns = tick_ns,
		.clock = clock_param ? CLOCK_BOOTTIME : CLOCK_MONOTONIC,
		.workers = workers,
		.max_pending = max_pending,
		.flags = percpu ? HWTIMER_WHEEL_PERCPU : 0,
	};
	int ret;

	/* Before any wheel: none misses a CPU coming or going. */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "hwtimer:online",
					hwtimer_cpu_online,
					hwtimer_cpu_down_prep);
	if (ret < 0)
		return ret;
	hwtimer_cpuhp = ret;
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
	cpuhp_remove_state_nocalls(hwtimer_cpuhp);
	return ret;
}

static void __exit hwtimer_exit(void)
{
	hwtimer_chardev_exit();
	hwtimer_wheel_destroy(hwtimer_default);
	WARN_ON_ONCE(!list_empty(&hwtimer_wheels));
	cpuhp_remove_state_nocalls(hwtimer_cpuhp);
	debugfs_remove_recursive(hwtimer_debugfs);
	WARN_ON_ONCE(!xa_empty(&hwtimer_bases));
	xa_destroy(&hwtimer_bases);
}

module_init(hwtimer_init);
module_exit(hwtimer_exit);

MODULE_DESCRIPTION("Hierarchical timing wheel timeout service");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(HWTIMER_VERSION_MAJOR) "."
	       __stringify(HWTIMER_VERSION_MINOR) "."
	       __stringify(HWTIMER_VERSION_PATCH));
