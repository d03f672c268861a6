/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * <hwtimer/hwtimer.h> - libhwtimer, timeouts served by /dev/hwtimer.
 *
 * A context (struct hwtimer) arms any number of timeouts and hands their
 * expiries back one by one. It runs on one of two backends:
 *
 *	"device"	/dev/hwtimer, the hwtimer kernel module (hwtimer(4))
 *	"timerfd"	a userspace heap of deadlines per clock, each on a
 *			timerfd of its clock, when the device is missing or
 *			when asked for
 *
 * so a program can depend on the library whether or not the module is
 * loaded. Both backends give the same results for the same calls: a
 * timeout never expires before its deadline, and cancel, modify, batch
 * statuses and overruns follow hwtimer(4). What differs is listed at each
 * function (eventfd counts, fork).
 *
 * The vocabulary is the ABI's, from <linux/hwtimer.h>: a timeout runs on
 * CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME, its deadline is
 * relative unless HWTIMER_ARM_ABS is given, cancel and modify answer
 * HWTIMER_RESULT_*, and expiries are the kernel's own records, struct
 * hwtimer_event, whose @cookie is the user data given at arm time (the
 * helpers at the end of this file read the rest).
 *
 * Clocks, as <linux/hwtimer.h> has them, on both backends: an absolute
 * CLOCK_REALTIME deadline is a wall-clock time that follows every setting
 * of the clock (set forward past it, it expires at once; set back, never
 * before the clock reaches it again; a periodic one keeps its first
 * deadline plus whole periods on the wall clock); a relative one runs on
 * CLOCK_MONOTONIC, and its records say CLOCK_MONOTONIC. Modify keeps the
 * timeout's clock. CLOCK_REALTIME needs %HWTIMER_FEATURE_REALTIME: a
 * module without it refuses the clock with -EINVAL.
 *
 * Cancel on set, timerfd's TFD_TIMER_CANCEL_ON_SET for one timeout: an
 * absolute CLOCK_REALTIME timeout armed with %HWTIMER_ARM_CANCEL_ON_SET
 * is cancelled when the wall clock is set (clock_settime(), an NTP step,
 * a leap second, a resume) before it expires. Its record then comes at
 * once, flags %HWTIMER_EVENT_CLOCK_SET | %HWTIMER_EVENT_LAST, deadline_ns
 * as armed (a periodic one's next deadline), fire_ns the wall clock when
 * the set was seen, overruns 0 (or a periodic one's unread periods), and
 * its id is unknown from then on. A set before the arm cancels nothing it
 * arms; without a set it expires as any timeout. Both backends have it;
 * the device needs %HWTIMER_FEATURE_CANCEL_ON_SET (-EINVAL without).
 *
 * Answers and counters. On the device, results and counters come from
 * the kernel, with one exception, the timer rings (hwtimer_open()): there
 * the library owns the slots, so it answers arm, cancel and modify of a
 * ring timeout itself, at once, as the device would at that moment, and
 * keeps that answer (an expiry the kernel makes after CANCELLED, or
 * before the deadline MODIFIED gave, never reaches the caller). A cancel
 * before any drain of the kernel saw the arm takes the arm back from the
 * ring: the kernel never hears of that timeout. hwtimer_stats() gives the kernel's
 * counters as the kernel reports them; what the library did on its own
 * is counted apart, by hwtimer_lib_stats(). The timerfd backend has no
 * kernel: its answers and counters are the library's, as the device's
 * would be.
 *
 * Errors: functions return 0 (or a count) on success and a negative errno
 * on failure, as liburing does; errno is not set, except by hwtimer_open().
 *
 * Threads: a context is used by one thread at a time unless a function
 * says otherwise; different contexts are independent. A program that
 * shares a context between threads serialises the calls itself.
 */
#ifndef HWTIMER_HWTIMER_H
#define HWTIMER_HWTIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/hwtimer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A context: opaque, from hwtimer_open(). */
struct hwtimer;

/* Flags of hwtimer_open(); neither means the device if present, else timerfd. */
#define HWTIMER_OPEN_DEVICE	(1U << 0)	/* the device or fail */
#define HWTIMER_OPEN_TIMERFD	(1U << 1)	/* the timerfd backend only */
#define HWTIMER_OPEN_BATCH	(1U << 2)	/* the device without its rings */

/* Entries of the submission queue when hwtimer_open() is given 0. */
#define HWTIMER_SQ_DEFAULT	1024

/* Tick and shortest period of the timerfd backend (the device's default). */
#define HWTIMER_TIMERFD_TICK_NS	1000000ULL

/*
 * Where hwtimer_submit() writes the outcome of one queued operation; the
 * caller owns it and keeps it valid until the operation is submitted.
 */
struct hwtimer_result {
	uint64_t id;		/* arm: the new id (0 on failure); else the target */
	int32_t status;		/* 0, or the -errno the single call would give */
	uint32_t result;	/* HWTIMER_RESULT_* of cancel and modify, else 0 */
};

/**
 * hwtimer_open() - create a context
 * @hp: where to store the context
 * @sq_entries: size of the submission queue, 0 for %HWTIMER_SQ_DEFAULT
 * @flags: 0, %HWTIMER_OPEN_DEVICE or %HWTIMER_OPEN_TIMERFD
 *
 * With no flag, opens /dev/hwtimer and does the version and feature
 * handshake; when the device is missing or not accessible (ENOENT, ENODEV,
 * ENXIO, EACCES, EPERM) the timerfd backend is used instead. On a device
 * with %HWTIMER_FEATURE_RINGS, one-shot CLOCK_MONOTONIC timeouts are armed,
 * cancelled and moved through its timer rings, without a system call
 * (never CLOCK_REALTIME ones, relative or absolute: BATCH serves them);
 * %HWTIMER_OPEN_BATCH, or HWTIMER_NO_RINGS set in the environment, keeps
 * the context on HWTIMER_IOC_BATCH (the rings' slots are charged to the
 * context's limit: up to 4096, half its max_pending at most). A device that
 * is present but answers the handshake with another ABI is an error, not a
 * reason to fall back. File descriptors are opened close-on-exec.
 *
 * Thread-safety: any thread, any time.
 * Return: 0, or a negative errno (also stored in errno); the reason in
 * words is then in hwtimer_open_error().
 */
int hwtimer_open(struct hwtimer **hp, unsigned int sq_entries,
		 unsigned int flags);

/**
 * hwtimer_open_path() - create a context on the device at @path
 * @hp: where to store the context
 * @path: the device node, or NULL for /dev/hwtimer
 * @sq_entries: as hwtimer_open()
 * @flags: as hwtimer_open(); %HWTIMER_OPEN_TIMERFD ignores @path
 *
 * hwtimer_open() on another node than /dev/hwtimer (a device in a
 * container, a test's stand-in). The same fallback rules apply: without
 * %HWTIMER_OPEN_DEVICE, a missing @path means the timerfd backend. The
 * message of hwtimer_open_error() tells a failed open(2) ("cannot open
 * PATH: ...") from a failed handshake ("PATH: HWTIMER_IOC_API: ...").
 *
 * Thread-safety: any thread, any time.
 * Return: as hwtimer_open().
 */
int hwtimer_open_path(struct hwtimer **hp, const char *path,
		      unsigned int sq_entries, unsigned int flags);

/**
 * hwtimer_open_error() - why this thread's last hwtimer_open() failed
 *
 * A sentence such as "/dev/hwtimer: No such file or directory (is the
 * hwtimer module loaded?)". After an open that fell back to the timerfd
 * backend, it says why the device was not used. Kept per thread until the
 * next open that fails or falls back.
 * Return: the message, "" if there was none in this thread.
 */
const char *hwtimer_open_error(void);

/**
 * hwtimer_close() - cancel every timeout of @h (in this process) and free it
 * @h: the context; NULL does nothing
 *
 * Operations still queued are dropped unsubmitted. Ids of @h match nothing
 * in any context opened later (-ENOENT), on both backends. On the device,
 * a context shared with another process (fork, SCM_RIGHTS) lives on until
 * the last process closes it.
 */
void hwtimer_close(struct hwtimer *h);

/**
 * hwtimer_backend() - which backend serves @h
 * Return: "device" or "timerfd". Thread-safety: any thread.
 */
const char *hwtimer_backend(const struct hwtimer *h);

/**
 * hwtimer_features() - what @h supports
 * Return: %HWTIMER_FEATURE_* bits of <linux/hwtimer.h>; the timerfd
 * backend has the periodic, boottime, batch, eventfd, realtime and
 * cancel-on-set ones.
 * %HWTIMER_FEATURE_RINGS only while @h arms through the timer rings.
 * Thread-safety: any thread.
 */
uint64_t hwtimer_features(const struct hwtimer *h);

/**
 * hwtimer_tick_ns() - granularity of @h, which is also its shortest period
 * Return: the module's tick, or %HWTIMER_TIMERFD_TICK_NS. Any thread.
 */
uint64_t hwtimer_tick_ns(const struct hwtimer *h);

/**
 * hwtimer_get_api() - the handshake's answer
 * @h: the context
 * @api: where to copy it
 *
 * On the device, its answer to HWTIMER_IOC_API (ioctls, the per-context
 * cap, the record size). The timerfd backend fills in what it would
 * answer: the same ABI, its features and tick, its cap of live timeouts
 * as max_pending, and 0 for ioctls.
 * Thread-safety: any thread.
 */
void hwtimer_get_api(const struct hwtimer *h, struct hwtimer_api *api);

/**
 * hwtimer_stats() - counters of the context and of one clock's wheel
 * @h: the context
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (with
 *	%HWTIMER_FEATURE_REALTIME): the wheel to read
 * @st: where to store them (struct hwtimer_stats_req of <linux/hwtimer.h>)
 *
 * On the device, HWTIMER_IOC_STATS, as the kernel answers it: the ctx_*
 * counters are the context's (shared with other processes that have it),
 * the rest are the wheel's, for all users. On the timer rings the kernel
 * is first made to consume every entry written (HWTIMER_IOC_ENTER) and
 * the completions it made are taken (expiries taken meanwhile wait for
 * hwtimer_peek()), so the counters cover every operation made so far;
 * they are not adjusted: a timeout whose arm the library took back is in
 * none of them, every ring slot is in ctx_live, and records of the
 * completion ring are not in ctx_read (see hwtimer_lib_stats()). The
 * timerfd backend, which has no kernel, stands in for it: it gives the
 * same ctx_* counters, counted by the library for this context in this
 * process (since fork() too: a child counts on from the parent's), and
 * @st->tick_ns; the wheel's counters and histogram are 0.
 * Return: 0; -EINVAL for another clock, or CLOCK_REALTIME without
 * %HWTIMER_FEATURE_REALTIME.
 */
int hwtimer_stats(struct hwtimer *h, int clock, struct hwtimer_stats_req *st);

/**
 * struct hwtimer_lib_stats - what the library did on its own for a context
 * @ring_slots: slots of the timer rings, 0 without them; the kernel
 *	charges every one to the context at setup, so its ctx_live counts
 *	them all, busy or not
 * @ring_live: slots serving a timeout: pending, or its last record not
 *	yet handed out
 * @stashed: records the library took off the completion ring (to make
 *	room, or in hwtimer_stats()) and holds for hwtimer_peek(); the
 *	kernel's ctx_queued counts only records waiting for read()
 * @taken_back: ring timeouts cancelled by taking their arm back before
 *	the kernel armed them; each was answered CANCELLED and is in
 *	neither the kernel's ctx_armed nor its ctx_cancelled
 * @cancel_raced: ring cancels answered CANCELLED whose entry the kernel
 *	answered otherwise: the timeout fired first (its expiry is then
 *	dropped) or the kernel had refused its arm; not in ctx_cancelled
 * @rearmed: arms the library wrote again for a ring timeout that fired
 *	before the kernel took its modify: in ctx_armed, one arm of the
 *	caller's
 * @refused: ring arms the kernel refused after the library answered 0
 *	(the wheel's limit): not in ctx_armed; with @rearmed refused too
 * @lost: ring timeouts answered for (arm, MODIFIED) that will never
 *	expire: the kernel refused their arm or modify, or an arm again
 *	could not be written
 * @dropped: expiries the kernel made (in ctx_fired) that the library
 *	kept from the caller: of a timeout answered CANCELLED, before the
 *	deadline a modify gave, or a record the library had no memory for
 * @dropped_read: of @dropped, those that read() gave (in ctx_read)
 * @ring_read: records of the completion ring the context took for the
 *	caller; the kernel's ctx_read counts read() alone
 *
 * Counts of this process, since the context was opened (a child of fork()
 * starts from its parent's). Once the kernel has consumed every entry and
 * every record was taken, the kernel's counters of hwtimer_stats() and
 * these give the caller's own count of its calls exactly:
 *
 *	arms answered 0		ctx_armed + taken_back + refused - rearmed
 *	cancels answered	ctx_cancelled + taken_back + cancel_raced
 *	  CANCELLED
 *	expiries		ctx_fired - dropped
 *	records taken		ctx_read - dropped_read + ring_read
 *	records waiting		ctx_queued + stashed
 *	live timeouts		ctx_live - ring_slots + ring_live
 *
 * Off the rings (BATCH, the timerfd backend) every count is 0.
 */
struct hwtimer_lib_stats {
	uint64_t ring_slots;
	uint64_t ring_live;
	uint64_t stashed;
	uint64_t taken_back;
	uint64_t cancel_raced;
	uint64_t rearmed;
	uint64_t refused;
	uint64_t lost;
	uint64_t dropped;
	uint64_t dropped_read;
	uint64_t ring_read;
};

/* Size of the first struct hwtimer_lib_stats: later ones only grow. */
#define HWTIMER_LIB_STATS_SIZE_VER0	88

/**
 * hwtimer_lib_stats() - the library's own counters of @h
 * @h: the context
 * @st: where to store them
 * @size: sizeof(*@st), as the caller was built
 *
 * Makes no system call: the counts are as of the library's last look at
 * the rings; right after hwtimer_stats(), which takes every completion,
 * they go with its counters. A @size larger than the library's struct
 * gets the fields it does not know as 0; a smaller one, from a program
 * built against an older header, gets the fields it knows.
 * Return: 0; -EINVAL if @size is below %HWTIMER_LIB_STATS_SIZE_VER0.
 */
int hwtimer_lib_stats(struct hwtimer *h, struct hwtimer_lib_stats *st,
		      size_t size);

/**
 * hwtimer_fd() - a file descriptor that polls readable when expiries wait
 * @h: the context
 *
 * For poll(2)/epoll(7); do not read it or change its flags. It says only
 * that expiries wait outside the context's buffer: once it is readable,
 * take expiries with hwtimer_peek() until -EAGAIN before waiting on it
 * again. On the timerfd backend it is an epoll fd, and a child of fork()
 * gets a new one at its first call on the context (see "Fork" below).
 * Return: the fd, owned by @h.
 */
int hwtimer_fd(struct hwtimer *h);

/**
 * hwtimer_set_eventfd() - signal eventfd @efd when expiries are ready
 * @h: the context
 * @efd: an eventfd, or -1 to stop
 *
 * The eventfd becomes readable without any call on @h; take expiries
 * with hwtimer_peek() until -EAGAIN when it does. The device adds 1 when
 * its wake-up finds expiries due (at most once a tick) and when a call
 * on @h serves some. The timerfd backend adds 1 each time its timerfd
 * expires, from a thread of @h (signals blocked; gone at hwtimer_close()
 * or -1): that is once for all the expiries due at that moment, and again
 * after a call on @h that leaves expiries untaken. On neither is the
 * count a number of expiries. @h keeps a duplicate of @efd: closing @efd does not
 * stop it. After fork(), see "Fork" below.
 * Return: 0; -EBADF if @efd is not open; -EINVAL if it is no eventfd;
 * on the timerfd backend also -EAGAIN or -ENOMEM (no thread).
 */
int hwtimer_set_eventfd(struct hwtimer *h, int efd);

/**
 * hwtimer_arm() - arm one timeout now
 * @h: the context
 * @clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME (a clockid_t
 *	of <time.h>; CLOCK_REALTIME with %HWTIMER_FEATURE_REALTIME only)
 * @deadline_ns: first expiry: relative to now, or absolute on @clock with
 *	%HWTIMER_ARM_ABS; past deadlines expire at once, and any value up
 *	to UINT64_MAX is honoured without wrapping. A relative deadline on
 *	CLOCK_REALTIME runs on CLOCK_MONOTONIC (see "Clocks" at the top)
 * @period_ns: 0 for a one-shot, else the period, at least hwtimer_tick_ns()
 * @flags: 0 or %HWTIMER_ARM_ABS; on CLOCK_REALTIME also
 *	%HWTIMER_ARM_ABS | %HWTIMER_ARM_CANCEL_ON_SET: cancelled, with a
 *	%HWTIMER_EVENT_CLOCK_SET record, if the wall clock is set before it
 *	expires (see "Cancel on set" at the top)
 * @user_data: returned in every expiry as its cookie (a pointer: (uintptr_t))
 * @id: where to store the timeout's id, never 0; may be NULL
 *
 * Operations waiting in the submission queue are not flushed first. On
 * the device a cancel-on-set arm is never on the timer rings: it goes in
 * a BATCH call (a HWTIMER_IOC_ARM call of its own on a module without
 * %HWTIMER_FEATURE_BATCH_CANCEL_ON_SET); hwtimer_prep_arm() takes it too.
 * Return: 0; -EINVAL (flags, clock, period; CLOCK_REALTIME on a module
 * without %HWTIMER_FEATURE_REALTIME; %HWTIMER_ARM_CANCEL_ON_SET without
 * %HWTIMER_ARM_ABS, on another clock, or on a module without
 * %HWTIMER_FEATURE_CANCEL_ON_SET), -ENOSPC, -EDQUOT, -ENOMEM.
 */
int hwtimer_arm(struct hwtimer *h, int clock, uint64_t deadline_ns,
		uint64_t period_ns, unsigned int flags, uint64_t user_data,
		uint64_t *id);

/**
 * hwtimer_cancel() - stop a timeout before it expires
 * @h: the context
 * @id: from arm
 *
 * Expiries already waiting to be taken stay; a periodic timeout's waiting
 * expiry then carries %HWTIMER_EVENT_LAST.
 * Return: %HWTIMER_RESULT_CANCELLED (it will not expire), or
 * %HWTIMER_RESULT_FIRED (a one-shot that expired: its expiry waits or is
 * about to, nothing changed); -ENOENT for an id that is unknown, of
 * another context, cancelled, or whose last expiry was taken (into the
 * context's buffer, by hwtimer_peek() or hwtimer_wait(), even if not seen).
 */
int hwtimer_cancel(struct hwtimer *h, uint64_t id);

/**
 * hwtimer_modify() - move a timeout's next expiry
 * @h: the context
 * @id: from arm
 * @deadline_ns: relative, or absolute on the timeout's clock with
 *	%HWTIMER_ARM_ABS
 * @flags: 0 or %HWTIMER_ARM_ABS (not %HWTIMER_ARM_CANCEL_ON_SET)
 *
 * A periodic timeout keeps its period, counted from the new deadline. The
 * timeout keeps its clock: a relative deadline for an absolute
 * CLOCK_REALTIME one counts from the wall clock's now. A cancel-on-set
 * timeout stays one; one that a set of the clock cancelled is not moved
 * (%HWTIMER_RESULT_FIRED for a one-shot, -ENOENT for a periodic one).
 * Return: %HWTIMER_RESULT_MODIFIED, or %HWTIMER_RESULT_FIRED (a one-shot
 * that expired, nothing changed); -ENOENT as for hwtimer_cancel(),
 * -EINVAL for flags.
 */
int hwtimer_modify(struct hwtimer *h, uint64_t id, uint64_t deadline_ns,
		   unsigned int flags);

/**
 * hwtimer_prep_arm() - queue an arm for the next hwtimer_submit()
 * @h: the context
 * @clock, @deadline_ns, @period_ns, @flags, @user_data: as hwtimer_arm()
 * @res: where submit writes the outcome and the id, or NULL
 *
 * A full queue is submitted first (its results written as usual), so a
 * prep never fails for lack of room.
 * Return: 0; -EINVAL for flags hwtimer_arm() refuses whatever the
 * backend (nothing queued); an error of the automatic submit (the op is
 * then not queued either).
 */
int hwtimer_prep_arm(struct hwtimer *h, int clock, uint64_t deadline_ns,
		     uint64_t period_ns, unsigned int flags, uint64_t user_data,
		     struct hwtimer_result *res);

/**
 * hwtimer_prep_cancel() - queue a cancel; see hwtimer_prep_arm()
 * Return: as hwtimer_prep_arm(); the op's own outcome is in @res.
 */
int hwtimer_prep_cancel(struct hwtimer *h, uint64_t id,
			struct hwtimer_result *res);

/**
 * hwtimer_prep_modify() - queue a modify; see hwtimer_prep_arm()
 * Return: as hwtimer_prep_arm(); the op's own outcome is in @res.
 */
int hwtimer_prep_modify(struct hwtimer *h, uint64_t id, uint64_t deadline_ns,
			unsigned int flags, struct hwtimer_result *res);

/**
 * hwtimer_sq_ready() - operations queued and not yet submitted
 * Return: the count.
 */
unsigned int hwtimer_sq_ready(const struct hwtimer *h);

/**
 * hwtimer_submit() - run the queued operations, in order
 * @h: the context
 *
 * The device gets them in one HWTIMER_IOC_BATCH per HWTIMER_BATCH_MAX ops;
 * each op's outcome goes to its struct hwtimer_result. One op failing does
 * not stop the others. A signal interrupting the batch does not lose ops:
 * the rest are passed again. On the timer rings the clock is read once
 * per call: relative deadlines count from that reading, taken at the
 * first op that needs it, so never from later than the op's own turn.
 * Return: the number of ops that failed (status != 0), 0 if none; a
 * negative errno if the batch call itself failed (the ops not run then
 * get that status too).
 */
int hwtimer_submit(struct hwtimer *h);

/**
 * hwtimer_peek() - the next expiry, without waiting
 * @h: the context
 * @ev: where to store a pointer to it, valid until hwtimer_seen() or the
 *	next call that takes expiries
 *
 * Expiries are read in bulk into the context's buffer and handed out from
 * there. The same expiry is returned until hwtimer_seen(). On the timer
 * rings, when the buffer and the completion ring are empty, it has the
 * kernel serve the expiries due (one system call, at most once a tick
 * unless hwtimer_wait() found the fd readable): the kernel's own threads
 * serve a bounded number a tick into the completion ring, and the rest
 * wait for the context's calls.
 * Return: 0; -EAGAIN if none is due.
 */
int hwtimer_peek(struct hwtimer *h, const struct hwtimer_event **ev);

/**
 * hwtimer_wait() - the next expiry, waiting up to @timeout_ns for one
 * @h: the context
 * @ev: as hwtimer_peek()
 * @timeout_ns: most nanoseconds to wait; negative waits without limit
 *
 * Return: 0; -ETIME when @timeout_ns passed; -EINTR when a signal handler
 * ran while waiting, with or without SA_RESTART (as poll(2)): the caller
 * decides whether to wait again.
 */
int hwtimer_wait(struct hwtimer *h, const struct hwtimer_event **ev,
		 int64_t timeout_ns);

/**
 * hwtimer_seen() - done with the expiry hwtimer_peek/wait() returned
 * @h: the context
 */
void hwtimer_seen(struct hwtimer *h);

/*
 * Fork. On the device the context is shared, as any fd is: a timeout
 * expires once, and whichever process takes its expiry gets it; ids are
 * valid in both. Expiries already in the context's buffer at fork() are in
 * both copies of it. On the timerfd backend the context is copied: each
 * process has its own timeouts from then on; those pending at fork()
 * expire in both, a cancel or arm in one is not seen by the other, and
 * the child's first call on the context gives it its own timerfds (and a
 * new hwtimer_fd()), and its own thread for an eventfd set before fork().
 * A set of the wall clock between fork() and the child's first call
 * cancels the child's cancel-on-set timeouts there unless the parent
 * took notice of it first.
 * The library tells a child by the C library's fork handlers: a child
 * made by a raw clone() system call must not use the parent's contexts.
 */

/* Lateness of expiry @ev: how long after its deadline it was served. */
static inline uint64_t hwtimer_event_late_ns(const struct hwtimer_event *ev)
{
	return ev->fire_ns - ev->deadline_ns;
}

/* Whether @ev is the last expiry of its timeout: its id is now unknown. */
static inline bool hwtimer_event_last(const struct hwtimer_event *ev)
{
	return ev->flags & HWTIMER_EVENT_LAST;
}

/* The user data of @ev as the pointer it was armed with. */
static inline void *hwtimer_event_ptr(const struct hwtimer_event *ev)
{
	return (void *)(uintptr_t)ev->cookie;
}

#ifdef __cplusplus
}
#endif

#endif /* HWTIMER_HWTIMER_H */
