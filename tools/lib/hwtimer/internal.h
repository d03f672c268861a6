/* SPDX-License-Identifier: LGPL-2.1-only OR MIT */
/*
 * internal.h - what the context and its two backends share.
 *
 * A backend runs operations given as struct hwtimer_batch_op (the ABI's
 * own batch op, so the device takes the submission queue as it is) and
 * fills the context's completion buffer with struct hwtimer_event.
 */
#ifndef HWTIMER_INTERNAL_H
#define HWTIMER_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <unistd.h>

#include <hwtimer/hwtimer.h>

#define HWT_EXPORT	__attribute__((visibility("default")))
/* The kernel's names: kept out of line, rarely run. */
#define noinline	__attribute__((__noinline__))
#define __cold		__attribute__((__cold__))
/* Inlined whatever the compiler's estimate: glibc's; elsewhere a hint. */
#ifndef __always_inline
#define __always_inline	inline
#endif

/* Records the context's buffer takes per read: 12 KiB. */
#define HWT_CQ_SIZE	256

struct hwt_fb;
struct hwt_ring;

/**
 * struct hwt_backend - operations of one backend
 * @name: what hwtimer_backend() returns
 * @run: run @n ops in order, each written back (status, result, id);
 *	0, or a negative errno when the call itself failed: ops from the
 *	first one not run carry that errno
 * @read: up to @max due records into @evs; their count, or -EAGAIN
 * @fd: the pollable fd, made current in a child after fork()
 * @set_eventfd: as hwtimer_set_eventfd()
 * @stats: as hwtimer_stats(), @st zeroed but for its clock
 * @close: release the backend's state and fds
 */
struct hwt_backend {
	const char *name;
	int (*run)(struct hwtimer *h, struct hwtimer_batch_op *ops,
		   unsigned int n);
	int (*read)(struct hwtimer *h, struct hwtimer_event *evs,
		    unsigned int max);
	int (*fd)(struct hwtimer *h);
	int (*set_eventfd)(struct hwtimer *h, int efd);
	int (*stats)(struct hwtimer *h, struct hwtimer_stats_req *st);
	void (*close)(struct hwtimer *h);
};

/**
 * struct hwtimer - a context
 * @be: its backend
 * @fd: the device, or the timerfd backend's epoll fd
 * @features: HWTIMER_FEATURE_* bits
 * @api: the handshake's answer, as hwtimer_get_api() gives it
 * @tick_ns: tick and shortest period
 * @fb: the timerfd backend's state, NULL on the device
 * @sq: queued ops, not yet submitted
 * @sq_res: where each queued op's outcome goes (NULL: nowhere)
 * @sq_len: ops queued
 * @sq_size: room in @sq and @sq_res
 * @cq_head: next record of @cq to hand out
 * @cq_tail: end of the records in @cq
 * @cq: records taken from the backend, handed out one by one
 * @ring: the device's timer rings when in use (ring.c), else NULL
 * @read_all: on the device, read() whatever the rings' count says: a
 *	cancel-on-set timeout was armed, whose clock-set record the
 *	kernel queues in a read()
 */
struct hwtimer {
	const struct hwt_backend *be;
	int fd;
	uint64_t features;
	struct hwtimer_api api;
	uint64_t tick_ns;
	struct hwt_fb *fb;
	struct hwtimer_batch_op *sq;
	struct hwtimer_result **sq_res;
	unsigned int sq_len;
	unsigned int sq_size;
	unsigned int cq_head;
	unsigned int cq_tail;
	struct hwtimer_event cq[HWT_CQ_SIZE];
	struct hwt_ring *ring;
	bool read_all;
};

extern const struct hwt_backend hwtimer__device;
extern const struct hwt_backend hwtimer__timerfd;

/* Set up @h on the timerfd backend: 0 or a negative errno. */
int hwtimer__timerfd_init(struct hwtimer *h);

/*
 * The device's timer rings (ring.c). init: 0 or a negative errno (the
 * context then uses BATCH). op: whether the rings took @op, one the
 * library built (make_arm() and its like: well formed, flags checked);
 * its outcome is then written back; the others go through BATCH. kick:
 * after ops,
 * ENTER if the kernel's drain stopped. read: records of the rings, up to
 * @max. read_needed: whether read() may have records (the kernel's count
 * says so, or the rings are not this process's). filter: whether a record
 * read() gave goes to the caller, rewritten; ring completions never do.
 * lib_stats: the library's own counts, into @st zeroed. flush: have the
 * kernel consume every entry and take the completions.
 */
int hwtimer__ring_init(struct hwtimer *h);
void hwtimer__ring_close(struct hwtimer *h);
bool hwtimer__ring_op(struct hwtimer *h, struct hwtimer_batch_op *op);
/*
 * hwtimer__ring_op() on each of @n ops in turn, up to the first one the
 * rings do not take. Return: how many they took.
 */
unsigned int hwtimer__ring_run(struct hwtimer *h,
			       struct hwtimer_batch_op *ops, unsigned int n);
int hwtimer__ring_kick(struct hwtimer *h);
/* What hwtimer__ring_op()'s helpers answer for an op that is not theirs. */
#define HWT_RING_PASS	INT_MIN
/*
 * hwtimer_arm() and hwtimer_cancel() on the rings, which hand an op they
 * leave to the general path, hwtimer__arm_op() and hwtimer__cancel_op(),
 * on with a tail call: the call that the rings serve saves nothing for a
 * fallback it does not take.
 */
int hwtimer__ring_arm(struct hwtimer *h, int clock, uint64_t deadline_ns,
		      uint64_t period_ns, unsigned int flags,
		      uint64_t user_data, uint64_t *id);
int hwtimer__ring_cancel(struct hwtimer *h, uint64_t id);
int hwtimer__arm_op(struct hwtimer *h, int clock, uint64_t deadline_ns,
		    uint64_t period_ns, unsigned int flags,
		    uint64_t user_data, uint64_t *id);
int hwtimer__cancel_op(struct hwtimer *h, uint64_t id);
int hwtimer__ring_read(struct hwtimer *h, struct hwtimer_event *evs,
		       unsigned int max);
bool hwtimer__ring_read_needed(struct hwtimer *h);
void hwtimer__ring_readable(struct hwtimer *h);
bool hwtimer__ring_filter(struct hwtimer *h, struct hwtimer_event *ev);
void hwtimer__ring_lib_stats(struct hwtimer *h, struct hwtimer_lib_stats *st);
int hwtimer__ring_flush(struct hwtimer *h);

/* Now on @clock in ns. */
uint64_t hwtimer__now(clockid_t clock);
/* This process, told apart from its parent and children of fork(). */
extern unsigned int hwtimer__fork_gen;
extern bool hwtimer__fork_unwatched;
void hwtimer__proc_init(void);

static inline unsigned int hwtimer__proc(void)
{
	return hwtimer__fork_unwatched ? (unsigned int)getpid() :
	       hwtimer__fork_gen;
}

#endif /* HWTIMER_INTERNAL_H */
