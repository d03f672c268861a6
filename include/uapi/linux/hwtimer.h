/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hwtimer.h - userspace ABI of /dev/hwtimer.
 *
 * One open file is one context: it arms any number of timeouts and
 * delivers their expiries as fixed-size records through read(), with
 * poll()/epoll and an optional eventfd to wait on. A context serves its
 * own timeouts, as a timerfd does: the kernel wakes it when one is due,
 * and the expiries are served in its own calls (read(), STATS, ENTER, a
 * CANCEL or MODIFY of a timeout that is due), or, for a context with
 * timer rings, by the wake-up within a budget per tick.
 *
 * Layout rules (Documentation/driver-api/ioctl.rst): fixed-width types only,
 * natural alignment, explicit padding, no pointers (a __u64 holds them).
 * Every input struct has a flags word and reserved words; unknown flags and
 * non-zero reserved words are rejected with EINVAL, so they can be given a
 * meaning later without a second set of ioctls. Fields marked "out" only
 * are ignored on input and always written, padding included.
 *
 * An operation whose result cannot be written back did not happen: a
 * request (or BATCH op array) that is not writable fails with EFAULT
 * before anything takes effect.
 *
 * Clocks: every time crosses this ABI on the clocks of the time namespace
 * (time_namespaces(7)) of the process that opened the context, as
 * clock_gettime() reads them there; the context keeps them when passed to
 * another namespace. timerfd converts at each timerfd_settime() with the
 * caller's namespace instead; the two agree for a context used where it
 * was opened. The wheels run on the host's clocks: an absolute deadline
 * before the host's clock began fires at once, and its record's
 * deadline_ns is 0 (%HWTIMER_FEATURE_TIMENS).
 *
 * The clocks, as timerfd_create(2) has them: CLOCK_MONOTONIC does not count
 * a suspend and is never set; CLOCK_BOOTTIME counts a suspend, so its
 * timeouts due during one are served on resume; CLOCK_REALTIME
 * (%HWTIMER_FEATURE_REALTIME) is the settable wall clock, which no time
 * namespace offsets. An absolute CLOCK_REALTIME deadline follows every
 * setting of the clock (clock_settime(), settimeofday(), an NTP step):
 * set forward past the deadline, the timeout is served at once; set back,
 * it is never served before the clock reaches its deadline again; periodic
 * ones keep their first deadline plus whole periods on the wall clock. A
 * relative arm on CLOCK_REALTIME runs on CLOCK_MONOTONIC, as a relative
 * timerfd of CLOCK_REALTIME does: setting the clock leaves its length
 * alone, and its records say CLOCK_MONOTONIC. The timer rings take
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME only.
 *
 * Cancel on set (%HWTIMER_FEATURE_CANCEL_ON_SET), timerfd's
 * TFD_TIMER_CANCEL_ON_SET for one timeout: an absolute CLOCK_REALTIME ARM
 * (HWTIMER_IOC_ARM, or with %HWTIMER_FEATURE_BATCH_CANCEL_ON_SET a BATCH
 * op too) with %HWTIMER_ARM_CANCEL_ON_SET is cancelled when the wall clock is set
 * (its offset from CLOCK_MONOTONIC changes: clock_settime(), an NTP step,
 * a leap second, a resume from suspend) before it fires. Its record then
 * comes at once with %HWTIMER_EVENT_CLOCK_SET and %HWTIMER_EVENT_LAST:
 * deadline_ns as armed (or, for a periodic one, its next deadline),
 * fire_ns the wall clock when the set was seen, overruns the periods it
 * served that were still unread. The context's own read(), ARM, MODIFY,
 * CANCEL or BATCH cancels it (CANCEL then answers FIRED), and poll() and
 * the eventfd report a set as they report an expiry.
 *
 * Limits: a context holds at most ctx_max_pending live timeouts (ENOSPC),
 * and all contexts of one user together at most max_user_timeouts
 * (EDQUOT); both are module parameters under /sys/module/hwtimer/.
 */
#ifndef _UAPI_LINUX_HWTIMER_H
#define _UAPI_LINUX_HWTIMER_H

#include <linux/ioctl.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* From <linux/stddef.h> since Linux 5.16; older userspace headers lack it. */
#ifndef __struct_group
#define __struct_group(TAG, NAME, ATTRS, MEMBERS...) \
	union { \
		struct { MEMBERS } ATTRS; \
		struct TAG { MEMBERS } ATTRS NAME; \
	}
#endif

/*
 * Release of the module and its tools. This is the one place the version
 * is written: MODULE_VERSION(), hwtimerctl --version, the DKMS package and
 * the ABI generation below all derive from it.
 */
#define HWTIMER_VERSION_MAJOR		1
#define HWTIMER_VERSION_MINOR		0
#define HWTIMER_VERSION_PATCH		0

/*
 * Generation of this ABI; HWTIMER_IOC_API accepts exactly this. It is the
 * major version: a release that breaks the ABI bumps the major.
 */
#define HWTIMER_API			HWTIMER_VERSION_MAJOR

/* Feature bits reported by HWTIMER_IOC_API. */
#define HWTIMER_FEATURE_PERIODIC	(1ULL << 0)	/* period_ns != 0 */
#define HWTIMER_FEATURE_BOOTTIME	(1ULL << 1)	/* CLOCK_BOOTTIME */
#define HWTIMER_FEATURE_BATCH		(1ULL << 2)	/* HWTIMER_IOC_BATCH */
#define HWTIMER_FEATURE_EVENTFD		(1ULL << 3)	/* HWTIMER_IOC_SET_EVENTFD */
#define HWTIMER_FEATURE_RINGS		(1ULL << 4)	/* HWTIMER_IOC_RING_SETUP */
/*
 * Times are on the clocks of the opener's time namespace: absolute
 * deadlines in, deadline_ns and fire_ns out. Without it, host time.
 */
#define HWTIMER_FEATURE_TIMENS		(1ULL << 5)
/*
 * CLOCK_REALTIME in ARM and BATCH: an absolute deadline is a wall-clock
 * time and follows every setting of the clock; a relative one runs on
 * CLOCK_MONOTONIC (see "Clocks" above). Without it, EINVAL.
 */
#define HWTIMER_FEATURE_REALTIME	(1ULL << 6)
/*
 * HWTIMER_ARM_CANCEL_ON_SET and HWTIMER_EVENT_CLOCK_SET (see "Cancel on
 * set" above). Without it, the flag is EINVAL.
 */
#define HWTIMER_FEATURE_CANCEL_ON_SET	(1ULL << 7)
/*
 * BATCH's ARMs take %HWTIMER_ARM_CANCEL_ON_SET as HWTIMER_IOC_ARM does:
 * every single call is a BATCH op. Without it, EINVAL in BATCH.
 */
#define HWTIMER_FEATURE_BATCH_CANCEL_ON_SET (1ULL << 8)
#define HWTIMER_FEATURES_ALL		((1ULL << 9) - 1)

/**
 * struct hwtimer_api - API handshake (like UFFDIO_API)
 * @api: in: %HWTIMER_API
 * @features: in: features the caller requires (unknown: EINVAL);
 *	out: every feature supported
 * @ioctls: out: bit _IOC_NR(cmd) set for every supported command
 * @tick_ns: out: tick of the wheels, which is also the minimum period
 * @max_pending: out: most live timeouts per context (ENOSPC past it)
 * @event_size: out: sizeof(struct hwtimer_event)
 * @flags: in: must be 0
 * @reserved: in: must be 0; out: 0
 */
struct hwtimer_api {
	__u64 api;
	__u64 features;
	__u64 ioctls;
	__u64 tick_ns;
	__u64 max_pending;
	__u32 event_size;
	__u32 flags;
	__u64 reserved[4];
};

/* Flag of ARM, MODIFY and batch ops: deadline_ns is absolute on the clock. */
#define HWTIMER_ARM_ABS			(1U << 0)
/*
 * Flag of HWTIMER_IOC_ARM only, with %HWTIMER_ARM_ABS on CLOCK_REALTIME
 * (else EINVAL): cancel the timeout if the wall clock is set before it
 * fires (see "Cancel on set" above).
 */
#define HWTIMER_ARM_CANCEL_ON_SET	(1U << 1)

/*
 * Ids. A timeout's id is three fields:
 *
 *	bits 63..44: the tag of its context (HWTIMER_ID_TAG_*)
 *	bits 43..24: the generation of its slot in the context's id table
 *	bits 23..0:  the index of that slot, from 1
 *
 * The device promises: 0 is never an id; no two open contexts, nor a
 * context and a set of timer rings, share a tag (a tag freed comes back
 * after every other tag was handed out once); an id of a freed slot
 * matches nothing until the slot has been reused 2^20 times. A ring's
 * @id_tag (struct hwtimer_ring_setup) is such a tag that no context's ids
 * carry, so its user may build ids of its own from the three fields
 * without colliding with any id the device hands out. Nothing else is
 * promised: ids of one context are not handed out in any order.
 */
#define HWTIMER_ID_INDEX_BITS		24
#define HWTIMER_ID_GEN_BITS		20
#define HWTIMER_ID_TAG_BITS		20
#define HWTIMER_ID_GEN_SHIFT		HWTIMER_ID_INDEX_BITS
#define HWTIMER_ID_TAG_SHIFT		(HWTIMER_ID_INDEX_BITS + \
					 HWTIMER_ID_GEN_BITS)

/**
 * struct hwtimer_arm_req - arm one timeout
 * @cookie: in: opaque, returned in every event of this timeout
 * @deadline_ns: in: first expiry, relative to now or absolute with
 *	%HWTIMER_ARM_ABS; a past absolute deadline fires at once, and any
 *	value up to U64_MAX is honoured (no wrap)
 * @period_ns: in: 0 for a one-shot, else the period (at least one tick)
 * @clock: in: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (from
 *	<time.h>; see "Clocks" above)
 * @flags: in: 0 or %HWTIMER_ARM_ABS, with %HWTIMER_ARM_CANCEL_ON_SET
 *	on CLOCK_REALTIME
 * @id: out: id of the new timeout, never 0. An id of one open context
 *	never matches in another (ENOENT); a stale id of the same context
 *	matches nothing until its table slot has been reused 2^20 times
 * @reserved: in: must be 0; out: 0
 */
struct hwtimer_arm_req {
	__u64 cookie;
	__u64 deadline_ns;
	__u64 period_ns;
	__u32 clock;
	__u32 flags;
	__u64 id;
	__u64 reserved[2];
};

/* What CANCEL and MODIFY found (the result field). */
#define HWTIMER_RESULT_CANCELLED	1	/* stopped before it fired */
#define HWTIMER_RESULT_MODIFIED		2	/* moved to the new deadline */
#define HWTIMER_RESULT_FIRED		3	/* one-shot already fired: its
						 * event is queued or about to
						 * be; nothing changed
						 */
#define HWTIMER_RESULT_NOT_PENDING	4	/* ring slot not armed */

/**
 * struct hwtimer_cancel_req - cancel a timeout by id
 * @id: in: id from ARM
 * @flags: in: must be 0
 * @result: out: %HWTIMER_RESULT_CANCELLED or %HWTIMER_RESULT_FIRED
 * @reserved: in: must be 0; out: 0
 *
 * An unknown id, one of another context, or one whose last event was
 * already read fails with ENOENT. Events already queued stay queued.
 */
struct hwtimer_cancel_req {
	__u64 id;
	__u32 flags;
	__u32 result;
	__u64 reserved[2];
};

/**
 * struct hwtimer_modify_req - move a timeout's next expiry
 * @id: in: id from ARM
 * @deadline_ns: in: new deadline, relative or with %HWTIMER_ARM_ABS
 * @flags: in: 0 or %HWTIMER_ARM_ABS
 * @result: out: %HWTIMER_RESULT_MODIFIED or %HWTIMER_RESULT_FIRED
 * @reserved: in: must be 0; out: 0
 *
 * A periodic timeout keeps its period, counted from the new deadline.
 * Should arming at the new deadline fail (ENOSPC from the wheel), the
 * timeout is gone.
 */
struct hwtimer_modify_req {
	__u64 id;
	__u64 deadline_ns;
	__u32 flags;
	__u32 result;
	__u64 reserved[2];
};

/*
 * Operations: one vocabulary for the single ioctls (ARM, CANCEL, MODIFY),
 * the ops of a batch and the entries of a submission ring, which the
 * kernel applies with the same code. A single ioctl is a BATCH of one op
 * (struct hwtimer_batch_op) that returns the op's status as its own; its
 * request struct is the same op's fields, one at a time. NOP is for ring
 * entries only.
 */
#define HWTIMER_OP_ARM			1
#define HWTIMER_OP_CANCEL		2
#define HWTIMER_OP_MODIFY		3
#define HWTIMER_OP_NOP			4	/* consumed, no completion */

/* Most ops in one HWTIMER_IOC_BATCH call. */
#define HWTIMER_BATCH_MAX		65536

/**
 * struct hwtimer_batch_op - one operation of a batch; @id, @status and
 *	@result are written back, the rest is left as the caller wrote it
 * @op: in: %HWTIMER_OP_ARM, %HWTIMER_OP_CANCEL or %HWTIMER_OP_MODIFY
 * @flags: in: as in the single-op struct
 * @id: in: target of CANCEL and MODIFY; out: id of an ARM
 * @cookie: in: ARM only
 * @deadline_ns: in: ARM and MODIFY; an ARM's relative deadline may
 *	count from any time during the call (the clock is read once for
 *	several ARMs), never from before it
 * @period_ns: in: ARM only
 * @clock: in: ARM only
 * @status: out: 0, or the negative errno the single-op ioctl would give
 * @result: out: %HWTIMER_RESULT_* of CANCEL and MODIFY, 0 for ARM
 * @pad: in: must be 0; out: 0
 * @reserved: in: must be 0; out: 0
 *
 * Fields an op does not use must be 0.
 */
struct hwtimer_batch_op {
	__u32 op;
	__u32 flags;
	__u64 id;
	__u64 cookie;
	__u64 deadline_ns;
	__u64 period_ns;
	__u32 clock;
	__s32 status;
	__u32 result;
	__u32 pad;
	__u64 reserved;
};

/**
 * struct hwtimer_batch - many operations in one call
 * @ops: in: user pointer to an array of struct hwtimer_batch_op
 * @count: in: elements in @ops, at most %HWTIMER_BATCH_MAX
 * @flags: in: must be 0
 * @done: out: ops processed and written back (all of them unless the
 *	call failed with EFAULT part way)
 * @failed: out: ops among @done whose status is not 0
 * @reserved: in: must be 0; out: 0
 *
 * Ops run in order; one failing does not stop the others. A signal that
 * comes before the first op ran fails the call with EINTR, @done 0, unless
 * it is restarted (SA_RESTART); once ops ran, the call runs them all and
 * the signal is handled after it. Only a fatal signal ends it part way.
 */
struct hwtimer_batch {
	__u64 ops;
	__u32 count;
	__u32 flags;
	__u32 done;
	__u32 failed;
	__u64 reserved[2];
};

/**
 * struct hwtimer_eventfd_req - signal an eventfd when expiries are ready
 * @fd: in: an eventfd, or -1 to stop signalling
 * @flags: in: must be 0
 * @reserved: in: must be 0
 *
 * The eventfd is signalled when the context's wake-up finds expiries due
 * (at most once a tick) and when a call of the context serves some: its
 * count is of those signals, not of expiries. Read the records until
 * read() says EAGAIN. Not an eventfd: EINVAL; not a file descriptor:
 * EBADF.
 */
struct hwtimer_eventfd_req {
	__s32 fd;
	__u32 flags;
	__u64 reserved[2];
};

/* Buckets of the lateness histogram: 0 is on time, bucket i (0 < i < 39) is
 * [2^(i-1), 2^i) ns late, bucket 39 takes the rest.
 */
#define HWTIMER_STATS_LAT_BUCKETS	40

/**
 * struct hwtimer_stats_req - counters of the context and of one wheel
 * @clock: in: the wheel: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @flags: in: must be 0
 * @reserved: in: must be 0; out: 0
 * @ctx_pending: out: this context's timeouts waiting to fire
 * @ctx_queued: out: events waiting to be read (STATS first serves the
 *	expiries due)
 * @ctx_live: out: timeouts counted against the cap (pending or unread)
 * @ctx_max_pending: out: the cap
 * @ctx_armed: out: successful arms, ever
 * @ctx_fired: out: expiries, overruns included, ever
 * @ctx_cancelled: out: cancels that stopped a timeout, ever
 * @ctx_read: out: event records read, ever
 * @tick_ns: out: the wheel's tick
 * @wheel: out: the wheel's counters, all users; also a
 *	&struct hwtimer_stats, the layout the kernel API fills. A context's
 *	timeouts are not on the wheel: what it counts of contexts is their
 *	wake-ups, one per context and clock
 * @wheel.pending: timeouts pending now
 * @wheel.armed: successful arms and modifies of idle timeouts, ever
 * @wheel.fired: callbacks run, ever
 * @wheel.cancelled: pending timeouts cancelled before their callback
 *	ran, ever
 * @wheel.rejected: arms refused for the wheel's limit or its stop, ever
 * @wheel.hrtimer_fires: times the wheel's hrtimer fired
 * @wheel.max_lateness_ns: largest lateness seen (fire time minus deadline)
 * @wheel.lateness: log2 histogram of lateness, see
 *	%HWTIMER_STATS_LAT_BUCKETS
 */
struct hwtimer_stats_req {
	__u32 clock;
	__u32 flags;
	__u64 reserved[2];
	__u64 ctx_pending;
	__u64 ctx_queued;
	__u64 ctx_live;
	__u64 ctx_max_pending;
	__u64 ctx_armed;
	__u64 ctx_fired;
	__u64 ctx_cancelled;
	__u64 ctx_read;
	__u64 tick_ns;

	__struct_group(hwtimer_stats, wheel, /* no attrs */,
		__u64 pending;
		__u64 armed;
		__u64 fired;
		__u64 cancelled;
		__u64 rejected;
		__u64 hrtimer_fires;
		__u64 max_lateness_ns;
		__u64 lateness[HWTIMER_STATS_LAT_BUCKETS];
	);
};

/*
 * Flags of an event. LAST: the id is now unknown (one-shot done, cancelled,
 * or a periodic timeout whose next period would pass U64_MAX); for a ring
 * slot, the slot is idle again and may be armed anew.
 */
#define HWTIMER_EVENT_LAST		(1U << 0)
/* A record of a ring slot: @id is the slot's index, not an id. */
#define HWTIMER_EVENT_RING		(1U << 1)
/*
 * With HWTIMER_EVENT_RING: the completion of a submission queue entry, not
 * an expiry. @res is its result, @cookie the entry's cookie, the entry's op
 * is in the bits HWTIMER_EVENT_OP_MASK, @deadline_ns and @fire_ns are 0.
 */
#define HWTIMER_EVENT_SQE		(1U << 2)
/*
 * A %HWTIMER_ARM_CANCEL_ON_SET timeout cancelled because the wall clock
 * was set before it fired; always with %HWTIMER_EVENT_LAST.
 */
#define HWTIMER_EVENT_CLOCK_SET		(1U << 3)
#define HWTIMER_EVENT_OP_SHIFT		8
#define HWTIMER_EVENT_OP_MASK		(0xffU << HWTIMER_EVENT_OP_SHIFT)

/**
 * struct hwtimer_event - what read() returns, one record per expiry
 * @id: the timeout's id; with %HWTIMER_EVENT_RING, the ring slot
 * @cookie: the cookie given to ARM (or to the ring entry)
 * @deadline_ns: deadline of the latest expiry, on @clock
 * @fire_ns: when the latest expiry was served, on @clock
 * @overruns: further expiries folded into this record because the
 *	previous one was still unread (timerfd semantics); 0 normally. A
 *	periodic timeout whose record is unread stops: the read counts the
 *	periods that passed meanwhile here and arms it for the next one
 * @res: in place of @overruns in an %HWTIMER_EVENT_SQE completion: a
 *	%HWTIMER_RESULT_* value, or a negative errno for an entry that was
 *	refused
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME: the clock the
 *	timeout runs on
 * @flags: %HWTIMER_EVENT_LAST, %HWTIMER_EVENT_RING, %HWTIMER_EVENT_SQE,
 *	%HWTIMER_EVENT_CLOCK_SET, the op of an entry's completion
 *	(%HWTIMER_EVENT_OP_MASK), or 0
 *
 * read() and readv() need room for at least one record (EINVAL otherwise)
 * and return as many whole records as fit and are queued, without waiting
 * once one was copied; a record may straddle iovecs. A fault part way
 * returns the records copied before it (EFAULT if none); the others stay
 * queued. A read first serves the expiries that are due. O_ASYNC (with
 * F_SETOWN) sends SIGIO when the wake-up finds expiries due. The same
 * record is the entry of a completion ring.
 */
struct hwtimer_event {
	__u64 id;
	__u64 cookie;
	__u64 deadline_ns;
	__u64 fire_ns;
	union {
		__u64 overruns;
		__s64 res;
	};
	__u32 clock;
	__u32 flags;
};

/*
 * Timer rings. A context may set up once a pair of rings shared with the
 * kernel through mmap(): userspace writes entries (struct hwtimer_sqe) into
 * the submission ring and moves its tail; the kernel drains it once a wheel
 * tick (at most 64 of one user's rings a tick, in turn), or at once on
 * HWTIMER_IOC_ENTER, and writes records (struct
 * hwtimer_event) into the completion ring: completions of entries, and
 * the expiries of ring timeouts, which the context's wake-up serves there
 * within its user's budget of 256 a tick (shared with the drains), and
 * ENTER, read() and STATS at once. The periodic drain may leave an
 * ARM whose deadline is more than two ticks away, and a NOP, to a later
 * one until it has waited a tick, when only such entries follow it. Ring
 * timeouts are named by slot, an index in [0, slots) the caller chooses,
 * so an arm needs no answer before the slot can be cancelled. Indices are
 * free-running __u32 counters; an entry's place is its index modulo the
 * ring's size.
 *
 * Ordering: userspace writes entries, then the sq tail with a release
 * store; the kernel publishes the sq head and the cq tail with release
 * stores; userspace reads records after an acquire load of the cq tail and
 * moves the cq head with a release store once done with them.
 */

/* Most entries of either ring. */
#define HWTIMER_RING_MAX_ENTRIES	65536

/* Ring header flags: the periodic drain stopped; call HWTIMER_IOC_ENTER. */
#define HWTIMER_RING_NEED_WAKEUP	(1U << 0)

/*
 * Features of the rings, answered by setup. RETRACT: entries not yet
 * consumed may be taken back from the end by moving the sq tail back to
 * index i, then a full barrier, then a load of the claim: if the claim is
 * not past i ((__s32)(claim - i) <= 0), no drain will consume the entries
 * from i on, and the place is free for new ones; else a drain may consume
 * them as they were, and the tail must be put back where it was.
 */
#define HWTIMER_RING_F_RETRACT		(1U << 0)

/**
 * struct hwtimer_ring_setup - create the rings of a context
 * @sq_entries: in: submission ring size, a power of two up to
 *	%HWTIMER_RING_MAX_ENTRIES
 * @cq_entries: in: completion ring size, the same rules
 * @slots: in: ring timeouts, from 1 to the context's max_pending; all are
 *	charged to the context's and the user's limits at once
 * @clock: in: CLOCK_MONOTONIC or CLOCK_BOOTTIME, the clock of every
 *	deadline given through the rings
 * @flags: in: must be 0
 * @features: in: must be 0; out: %HWTIMER_RING_F_* the kernel offers
 *	(kernels without any answer 0)
 * @map_size: out: length to mmap() at offset 0
 * @sq_head: out: offset of the __u32 sq head (kernel writes)
 * @sq_tail: out: offset of the __u32 sq tail (userspace writes)
 * @sq_flags: out: offset of the __u32 %HWTIMER_RING_* flags (kernel writes)
 * @sq_dropped: out: offset of the __u32 count of times the kernel found
 *	the sq tail more than @sq_entries ahead of its head and skipped to it
 * @sqes: out: offset of the array of @sq_entries struct hwtimer_sqe
 * @cq_head: out: offset of the __u32 cq head (userspace writes)
 * @cq_tail: out: offset of the __u32 cq tail (kernel writes)
 * @cq_overflow: out: offset of the __u32 count of expiries that found the
 *	completion ring full and were queued for read() instead
 * @cqes: out: offset of the array of @cq_entries struct hwtimer_event
 * @id_tag: in: must be 0; out: a tag, from 1 to 2^20 - 1, that no
 *	context's ids carry while the rings exist, nor for 2^20 opens after:
 *	the rings' user may name its ring timeouts by ids whose bits 63..44
 *	are this tag without colliding with any id the device hands out
 * @ev_queued: out: offset of the __u32 count of records waiting for
 *	read() (kernel writes; saturates): while it is 0, no record waits
 *	for read(), and a process that takes its records from the completion
 *	ring need not call it (expiries past the wake-up's budget come at
 *	the next tick, or at once with ENTER)
 * @sq_claim: in: must be 0; out: offset of the __u32 claim (kernel
 *	writes): the index up to which a drain consumes, at most the sq
 *	tail as it read it, stored before the drain copies any entry. An
 *	entry at index i not yet consumed may be taken back by rewriting
 *	its @op to %HWTIMER_OP_NOP, then a full barrier, then a load of
 *	the claim: if the claim is not past i ((__s32)(claim - i) <= 0), no
 *	drain copied the entry before the NOP and none will apply it; else
 *	a drain may have copied it either way. Kernels without it answer 0.
 * @reserved: in: must be 0; out: 0
 */
struct hwtimer_ring_setup {
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 slots;
	__u32 clock;
	__u32 flags;
	__u32 features;
	__u64 map_size;
	__u32 sq_head;
	__u32 sq_tail;
	__u32 sq_flags;
	__u32 sq_dropped;
	__u32 sqes;
	__u32 cq_head;
	__u32 cq_tail;
	__u32 cq_overflow;
	__u32 cqes;
	__u32 id_tag;
	__u32 ev_queued;
	__u32 sq_claim;
	__u64 reserved[3];
};

/* The ring's names of the operations (HWTIMER_OP_*): the same values. */
#define HWTIMER_SQE_ARM			HWTIMER_OP_ARM
#define HWTIMER_SQE_CANCEL		HWTIMER_OP_CANCEL
#define HWTIMER_SQE_MODIFY		HWTIMER_OP_MODIFY
#define HWTIMER_SQE_NOP			HWTIMER_OP_NOP

/**
 * struct hwtimer_sqe - one entry of the submission ring
 * @op: %HWTIMER_OP_ARM, %HWTIMER_OP_CANCEL, %HWTIMER_OP_MODIFY or
 *	%HWTIMER_OP_NOP, which the kernel consumes whatever the other
 *	fields hold, without a completion
 * @flags: must be 0
 * @slot: the ring timeout, below the setup's slots
 * @resv: must be 0
 * @deadline_ns: ARM and MODIFY: absolute deadline on the rings' clock; a
 *	past one fires at once. CANCEL: must be 0
 * @period_ns: ARM: 0 for a one-shot, else at least one tick. Others: 0
 * @cookie: ARM: returned in every expiry of the slot. CANCEL and MODIFY:
 *	returned in their completion
 * @reserved: must be 0
 *
 * An ARM of a slot that is armed, or whose last record is not yet taken,
 * fails with EBUSY. A CANCEL always completes: %HWTIMER_RESULT_CANCELLED
 * (with %HWTIMER_EVENT_LAST when the slot is idle at once),
 * %HWTIMER_RESULT_FIRED or %HWTIMER_RESULT_NOT_PENDING. A MODIFY completes
 * only when it moved nothing: %HWTIMER_RESULT_FIRED or
 * %HWTIMER_RESULT_NOT_PENDING. A bad entry completes with -EINVAL (its
 * @slot as written, in range or not), an ARM the wheel refuses with its
 * errno. An ARM and a later CANCEL of its slot that one drain consumes,
 * with no entry naming the slot in between, may never reach the wheel:
 * the CANCEL then says CANCELLED. Completions come in the order of their
 * entries, except the error of such an ARM that a drain stopped early had
 * to arm after all, which comes when it does. The kernel copies each entry
 * once. A completion wakes poll() and epoll; the eventfd and SIGIO
 * signal expiries only.
 */
struct hwtimer_sqe {
	__u32 op;
	__u32 flags;
	__u32 slot;
	__u32 resv;
	__u64 deadline_ns;
	__u64 period_ns;
	__u64 cookie;
	__u64 reserved;
};

/**
 * struct hwtimer_ring_enter - drain the submission ring now
 * @flags: in: must be 0
 * @resv: in: must be 0
 * @reserved: in: must be 0
 *
 * Clears %HWTIMER_RING_NEED_WAKEUP, consumes the entries waiting and
 * restarts the periodic drain; returns the number of entries consumed.
 */
struct hwtimer_ring_enter {
	__u32 flags;
	__u32 resv;
	__u64 reserved[2];
};

/* ioctl magic; free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define HWTIMER_IOC_MAGIC		0xB2

#define HWTIMER_IOC_API		_IOWR(HWTIMER_IOC_MAGIC, 0x00, struct hwtimer_api)
#define HWTIMER_IOC_ARM		_IOWR(HWTIMER_IOC_MAGIC, 0x01, struct hwtimer_arm_req)
#define HWTIMER_IOC_CANCEL	_IOWR(HWTIMER_IOC_MAGIC, 0x02, struct hwtimer_cancel_req)
#define HWTIMER_IOC_MODIFY	_IOWR(HWTIMER_IOC_MAGIC, 0x03, struct hwtimer_modify_req)
#define HWTIMER_IOC_BATCH	_IOWR(HWTIMER_IOC_MAGIC, 0x04, struct hwtimer_batch)
#define HWTIMER_IOC_SET_EVENTFD	_IOW(HWTIMER_IOC_MAGIC, 0x05, struct hwtimer_eventfd_req)
#define HWTIMER_IOC_STATS	_IOWR(HWTIMER_IOC_MAGIC, 0x06, struct hwtimer_stats_req)
#define HWTIMER_IOC_RING_SETUP	_IOWR(HWTIMER_IOC_MAGIC, 0x07, struct hwtimer_ring_setup)
#define HWTIMER_IOC_ENTER	_IOW(HWTIMER_IOC_MAGIC, 0x08, struct hwtimer_ring_enter)

#endif /* _UAPI_LINUX_HWTIMER_H */
