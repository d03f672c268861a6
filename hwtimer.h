/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API of the hwtimer hierarchical timing wheel timeout service.
 *
 * A timeout is embedded in the caller's object, like struct timer_list, and
 * its callback runs in process context on one of the wheel's kthread
 * workers, so it may sleep. Arm, modify and cancel never sleep and may be
 * called from any context, hard interrupt included.
 *
 * Module lifetime rule: while a timeout is pending or its callback is
 * running, hwtimer holds a reference on the module that initialised it
 * (hwtimer_timeout_init() records THIS_MODULE). Such a module cannot be
 * unloaded (rmmod fails with EBUSY) until every one of its timeouts has fired
 * or been cancelled, so no callback can ever point into freed code. A module
 * that arms periodic or far-off timeouts must therefore offer a way to
 * quiesce them before unload (see samples/hwtimer_sample.c), and should still
 * cancel_sync() them in its exit path.
 */
#ifndef _HWTIMER_H
#define _HWTIMER_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/time.h>
#include <linux/types.h>

/*
 * Both found next to this header, so a consumer needs only -I to its
 * directory (make install keeps the layout): the wheel entry a timeout
 * embeds, and the ABI, whose names serve the kernel API too
 * (%HWTIMER_ARM_ABS, %HWTIMER_STATS_LAT_BUCKETS, &struct hwtimer_stats).
 */
#include "hwtimer_wheel_entry.h"
#include "include/uapi/linux/hwtimer.h"

struct hwtimer_wheel;
struct hwtimer_timeout;

/* Callback of a timeout; runs in process context and may sleep. */
typedef void (*hwtimer_fn_t)(struct hwtimer_timeout *t);

/* Tick length bounds and default, in nanoseconds. */
#define HWTIMER_TICK_MIN_NS	10000ULL
#define HWTIMER_TICK_MAX_NS	1000000000ULL
#define HWTIMER_TICK_DEFAULT_NS	1000000ULL
/* Most callback workers a wheel may have. */
#define HWTIMER_WORKERS_MAX	64

/* What became of a timeout, as hwtimer_state() reports it. */
enum hwtimer_state {
	HWTIMER_STATE_IDLE = 0,		/* never armed since hwtimer_timeout_init() */
	HWTIMER_STATE_PENDING = 1,	/* armed; its callback has not started */
	HWTIMER_STATE_RUNNING = 2,	/* callback running now, not pending again */
	HWTIMER_STATE_FIRED = 3,	/* the callback of its last arm ran */
	HWTIMER_STATE_CANCELLED = 4,	/* cancelled: its last arm will not run */
	HWTIMER_STATE_STOPPED = 5,	/* taken back by hwtimer_wheel_stop() */
};

/* Results of hwtimer_cancel() and hwtimer_cancel_sync(). */
enum hwtimer_cancel_result {
	HWTIMER_NOT_PENDING = 0,	/* was idle: nothing to cancel */
	HWTIMER_CANCELLED = 1,		/* was pending; callback will not run */
	HWTIMER_RUNNING = 2,		/* callback running now; not re-armed */
};

/**
 * struct hwtimer_wheel_params - parameters of a private wheel
 * @name: name under /sys/kernel/debug/hwtimer/ (copied; unique per wheel)
 * @tick_ns: tick length; 0 means %HWTIMER_TICK_DEFAULT_NS
 * @clock: CLOCK_MONOTONIC or CLOCK_BOOTTIME; 0 means CLOCK_MONOTONIC, or
 *	CLOCK_REALTIME with %HWTIMER_WHEEL_REALTIME
 * @workers: callback workers of each base; 0 means 2
 * @max_pending: most timeouts pending at once, 0 for unlimited; a
 *	periodic timeout holds its place from its arm until it is cancelled
 *	or its wheel stops, its callback runs included, so the worker's
 *	re-arm never exceeds the cap
 * @flags: 0, or %HWTIMER_WHEEL_PERCPU and %HWTIMER_WHEEL_REALTIME
 */
struct hwtimer_wheel_params {
	const char *name;
	u64 tick_ns;
	clockid_t clock;
	u32 workers;
	u64 max_pending;
	u32 flags;
};

/*
 * hwtimer_wheel_create() flag: one base (wheel core, lock, hrtimer and
 * workers) per possible CPU instead of one for the whole wheel. An idle
 * timeout is armed on the base of the CPU arming it; a pending or running
 * one stays on its base. Arms, cancels and expiries on different CPUs then
 * share no lock. Without it, a wheel with one worker runs callbacks in
 * deadline order; with it, that order holds only among timeouts of one base.
 */
#define HWTIMER_WHEEL_PERCPU	0x1U

/*
 * hwtimer_wheel_create() flag: the wheel runs on CLOCK_REALTIME (@clock
 * must be 0, which would otherwise mean CLOCK_MONOTONIC). Its deadlines are
 * wall-clock times and follow every setting of the clock, as an hrtimer's
 * on CLOCK_REALTIME do: set forward past a deadline, the timeout is served
 * at once; set back, no timeout is served before the clock reaches its
 * deadline again. A relative arm counts from the wall clock's time of the
 * arm and then follows the clock too; arm relative timeouts on a
 * CLOCK_MONOTONIC wheel to have them keep their length. A periodic
 * timeout's deadlines are its first plus whole periods on the wall clock:
 * the next one is after both its last deadline and the clock's time when
 * its callback returns, as hrtimer_forward() has it. A clock set back costs the next expiry
 * of each base one move of every slot (at most 704 list splices under its
 * lock); the entries are then looked at in the usual bounded batches.
 */
#define HWTIMER_WHEEL_REALTIME	0x2U

/**
 * struct hwtimer_timeout - a timeout, embedded in the caller's object
 * @entry: the wheel's view: slot link and deadline in ns on the wheel's
 *	clock (the current one, or that of the run in progress); its spare
 *	@entry.aux holds the timeout's state, under the wheel's lock
 * @fn: callback
 * @owner: module pinned while the timeout is pending or running, unless it
 *	owns the wheel
 * @wheel_id: id of the wheel base of the last arm, 0 before the first; an
 *	id, not a pointer, so a timeout outlives its wheel safely
 * @period_ns: period, or 0 for a one-shot
 *
 * All fields are private to hwtimer; use the accessors below. 64 bytes on
 * 64-bit: the overrun count of a run lives in the worker running it.
 */
struct hwtimer_timeout {
	struct hwtimer_wc_entry entry;
	hwtimer_fn_t fn;
	struct module *owner;
	u64 wheel_id;
	u64 period_ns;
};

/* Get the object embedding timeout @t as member @field, like from_timer(). */
#define hwtimer_from(var, t, field) container_of(t, typeof(*(var)), field)

struct hwtimer_wheel *__hwtimer_wheel_create(const struct hwtimer_wheel_params *p,
					     struct module *owner);
/**
 * hwtimer_wheel_create() - create a private wheel
 * @p: parameters, see &struct hwtimer_wheel_params
 *
 * Records THIS_MODULE of the caller as the wheel's owner, which must
 * destroy the wheel before it unloads; see __hwtimer_wheel_create().
 */
#define hwtimer_wheel_create(p) __hwtimer_wheel_create(p, THIS_MODULE)
struct hwtimer_wheel *hwtimer_default_wheel(void);
int hwtimer_wheel_stop(struct hwtimer_wheel *w, struct list_head *unprocessed);
void hwtimer_wheel_destroy(struct hwtimer_wheel *w);
void hwtimer_wheel_get_stats(struct hwtimer_wheel *w, struct hwtimer_stats *st);
u64 hwtimer_wheel_now(struct hwtimer_wheel *w);
u64 hwtimer_wheel_tick_ns(struct hwtimer_wheel *w);
clockid_t hwtimer_wheel_clock(struct hwtimer_wheel *w);

void __hwtimer_timeout_init(struct hwtimer_timeout *t, hwtimer_fn_t fn,
			    u32 flags, struct module *owner);
/**
 * hwtimer_timeout_init() - prepare a timeout, like timer_setup()
 * @t: the timeout
 * @fn: callback, run in process context
 * @flags: must be 0 (reserved)
 *
 * Records THIS_MODULE of the caller as the module to pin while @t is
 * pending. Must not be called on a pending timeout.
 */
#define hwtimer_timeout_init(t, fn, flags) \
	__hwtimer_timeout_init(t, fn, flags, THIS_MODULE)

int hwtimer_arm(struct hwtimer_wheel *w, struct hwtimer_timeout *t,
		u64 expires, u64 period, u32 flags);
int hwtimer_modify(struct hwtimer_timeout *t, u64 expires, u32 flags);
int hwtimer_cancel(struct hwtimer_timeout *t);
int hwtimer_cancel_sync(struct hwtimer_timeout *t);
bool hwtimer_pending(struct hwtimer_timeout *t);
enum hwtimer_state hwtimer_state(struct hwtimer_timeout *t);
u64 hwtimer_overruns(const struct hwtimer_timeout *t);
u64 hwtimer_run_start(const struct hwtimer_timeout *t);
struct hwtimer_timeout *hwtimer_unprocessed_pop(struct list_head *list);

/**
 * hwtimer_period() - period of a timeout
 * @t: the timeout
 *
 * Context: any; stable while @t is armed (only an arm sets it).
 * Return: the period in ns given to the last hwtimer_arm(), 0 for a one-shot.
 */
static inline u64 hwtimer_period(const struct hwtimer_timeout *t)
{
	return t->period_ns;
}

/**
 * hwtimer_deadline() - deadline of the run in progress or pending
 * @t: the timeout
 *
 * Return: deadline in ns on the wheel's clock.
 */
static inline u64 hwtimer_deadline(const struct hwtimer_timeout *t)
{
	return t->entry.expires_ns;
}

#endif /* _HWTIMER_H */
