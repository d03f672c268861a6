// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_stress - several threads hammer /dev/hwtimer with random arm,
 * modify, cancel, periodic and batch operations for a set time, keeping an
 * exact ledger of every timeout, then check the ledger (kselftest TAP).
 *
 * Usage: hwtimer_stress [-t SECONDS] [-g GROUPS] [-w WORKERS] [-s SEED]
 *			 [--lib[=device|timerfd]]
 *
 * GROUPS open files each get WORKERS arming threads and one reader thread
 * (group 0 waits with poll(), the others on an eventfd). Every timeout gets
 * a ledger record; its cookie names the record. At the end every live
 * timeout is cancelled, the readers drain, and the ledger must show:
 *
 * - a one-shot whose cancel said CANCELLED produced no event; any other
 *   one-shot produced exactly one event, flagged LAST, with no overrun and
 *   with the deadline of its last successful arm or modify;
 * - a periodic timeout's records, in read order, cover consecutive periods
 *   from its first deadline: a record of 1 + overruns expiries carries a
 *   deadline inside the run of periods it covers (the chardev folds unread
 *   expiries into one record, keeping the latest deadline);
 * - no expiry after the cancel returned, no event before its deadline;
 * - the context's own counters (STATS) equal the ledger's sums.
 *
 * "Stuck" counts timeouts still cancellable STUCK_NS after their deadline:
 * lost in all but name.
 *
 * With --lib the same runs on libhwtimer, whose context serves one thread
 * at a time: each of the GROUPS x WORKERS threads gets a context of its
 * own (on the device, or on the timerfd backend with --lib=timerfd) and
 * is its own reader. Single ops are hwtimer_arm/cancel/modify(); batches
 * go through a submission queue smaller than a batch, so it also flushes
 * itself when full. Expiries are taken with hwtimer_peek() after every op
 * (odd contexts: when their eventfd says so) and hwtimer_wait() where the
 * raw mode sleeps; STATS is hwtimer_stats().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <hwtimer/hwtimer.h>

#include "kselftest.h"

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
/* Ledger records per worker; a worker stops arming when it runs out. */
#define RECS_MAX	(1U << 17)
/* Live (not yet settled) timeouts per worker. */
#define LIVE_MAX	256
/* Ops in one batch, at most. */
#define BATCH_MAX	32
/* Submission queue of a library context: less than a batch. */
#define LIB_SQ		8
/* A timeout still pending this long after its deadline counts as stuck. */
#define STUCK_NS	(5000 * MS)

enum kind { ONESHOT = 1, PERIODIC, PERIODIC_MOD };
enum state { LIVE = 1, CANCELLED, FIRED, GONE, FAILED };

/**
 * struct rec - ledger record of one timeout
 * @id: id from ARM
 * @kind: &enum kind
 * @state: &enum state, as the arming thread last learnt it
 * @clock: its clock
 * @dl_lo: earliest the kernel may have set the deadline to (last arm/modify)
 * @dl_hi: latest, the same as @dl_lo for absolute deadlines
 * @ref_ns: clock time after the last arm or modify: a past deadline is
 *	due from then on
 * @period: period, 0 for a one-shot
 * @cancel_ns: clock time once the settling cancel returned
 * @cancel_from: clock time before the settling cancel started
 * @nrec: event records read (by the reader)
 * @exp: expiries read, 1 + overruns per record (by the reader)
 * @ev_id: id of the last event
 * @ev_deadline: deadline of the last event
 * @ev_max_deadline: largest deadline of any event
 * @ev_flags: flags of the last event
 * @ev_overruns: overruns of the last event
 * @bad: the reader found a record out of order (1) or early (2)
 * @early_fire: fire time of the first early record
 * @early_deadline: deadline of the first early record
 */
struct rec {
	uint64_t id;
	uint32_t kind;
	uint32_t state;
	uint32_t clock;
	uint64_t dl_lo;
	uint64_t dl_hi;
	uint64_t ref_ns;
	uint64_t period;
	uint64_t cancel_ns;
	uint64_t cancel_from;
	uint32_t nrec;
	uint64_t exp;
	uint64_t ev_id;
	uint64_t ev_deadline;
	uint64_t ev_max_deadline;
	uint32_t ev_flags;
	uint64_t ev_overruns;
	uint32_t bad;
	uint64_t early_fire;
	uint64_t early_deadline;
};

struct group;

/**
 * struct worker - one arming thread and its ledger
 * @g: its group
 * @idx: index among all workers (high half of the cookie)
 * @rng: xorshift64 state
 * @recs: ledger records, @nrecs used
 * @live: indexes of unsettled records, @nlive of them
 * @ops: ioctls issued (a batch counts its ops)
 * @arms: successful arms
 * @cancels: cancels answered CANCELLED
 * @modifies: modifies answered MODIFIED
 * @unexpected: ioctls that failed in a way the ledger does not allow
 * @stuck: timeouts cancelled STUCK_NS after their deadline
 */
struct worker {
	struct group *g;
	uint32_t idx;
	uint64_t rng;
	struct rec *recs;
	uint32_t nrecs;
	uint32_t live[LIVE_MAX];
	uint32_t nlive;
	uint64_t ops;
	uint64_t arms;
	uint64_t cancels;
	uint64_t modifies;
	uint64_t unexpected;
	uint64_t stuck;
	pthread_t thr;
};

/**
 * struct group - one open /dev/hwtimer shared by its threads, or one
 *	library context and its only thread
 * @fd: the open file (raw mode)
 * @h: the context (--lib), NULL in raw mode
 * @efd: eventfd the reader waits on, or -1 (poll on @fd)
 * @stop_reader: set once the workers have settled everything
 * @records: event records read
 * @unknown: events whose cookie names no record
 */
struct group {
	int fd;
	struct hwtimer *h;
	int efd;
	atomic_int stop_reader;
	uint64_t records;
	uint64_t unknown;
	pthread_t thr;
};

static struct worker *workers;
static uint32_t nworkers;
static atomic_int stop;
static uint64_t tick_ns = MS;
/* --lib: 0 for raw ioctls, else the hwtimer_open() flag of the backend. */
static unsigned int lib_flags;

static uint64_t clock_now(uint32_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static uint64_t below(struct worker *w, uint64_t n)
{
	return n ? rnd(w) % n : 0;
}

/*
 * The record a cookie names. Not bounded by nrecs: an event can be read
 * before the arming thread has counted the record it filled in.
 */
static struct rec *cookie_rec(uint64_t cookie)
{
	uint32_t wi = cookie >> 32, ri = (uint32_t)cookie;

	if (wi >= nworkers || ri >= RECS_MAX || !workers[wi].recs[ri].kind)
		return NULL;
	return &workers[wi].recs[ri];
}

/* Account one event record. Only this group's reader touches the fields. */
static void take_event(struct group *g, const struct hwtimer_event *ev)
{
	struct rec *r = cookie_rec(ev->cookie);
	uint64_t k = 1 + ev->overruns;

	g->records++;
	if (!r) {
		g->unknown++;
		return;
	}
	if (r->kind == PERIODIC && !r->bad) {
		/* This record covers periods exp .. exp + k - 1. */
		uint64_t lo = r->dl_lo + r->exp * r->period;
		uint64_t hi = lo + (k - 1) * r->period;

		if (ev->deadline_ns < lo || ev->deadline_ns > hi ||
		    (ev->deadline_ns - r->dl_lo) % r->period)
			r->bad = 1;
	}
	if (ev->fire_ns < ev->deadline_ns && !(r->bad & 2)) {
		r->bad |= 2;
		r->early_fire = ev->fire_ns;
		r->early_deadline = ev->deadline_ns;
	}
	r->nrec++;
	r->exp += k;
	r->ev_id = ev->id;
	r->ev_deadline = ev->deadline_ns;
	if (ev->deadline_ns > r->ev_max_deadline)
		r->ev_max_deadline = ev->deadline_ns;
	r->ev_flags = ev->flags;
	r->ev_overruns = ev->overruns;
}

static int drain(struct group *g)
{
	struct hwtimer_event evs[64];
	ssize_t n;
	int i;

	n = read(g->fd, evs, sizeof(evs));
	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	for (i = 0; i < n / (ssize_t)sizeof(evs[0]); i++)
		take_event(g, &evs[i]);
	return (int)(n / sizeof(evs[0]));
}

static void *reader(void *arg)
{
	struct group *g = arg;
	struct pollfd p = { .fd = g->efd >= 0 ? g->efd : g->fd,
			    .events = POLLIN };
	uint64_t cnt;

	while (!atomic_load(&g->stop_reader)) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		if (g->efd >= 0 && read(g->efd, &cnt, sizeof(cnt)) < 0)
			continue;
		while (drain(g) > 0)
			;
	}
	while (drain(g) > 0)
		;
	return NULL;
}

/* Take every expiry waiting in a library context. */
static void lib_drain(struct group *g)
{
	const struct hwtimer_event *ev;

	while (!hwtimer_peek(g->h, &ev)) {
		take_event(g, ev);
		hwtimer_seen(g->h);
	}
}

/* After an op: drain, or on an eventfd context only once it signalled. */
static void lib_poll(struct group *g)
{
	uint64_t cnt;

	if (g->efd < 0 || read(g->efd, &cnt, sizeof(cnt)) == sizeof(cnt))
		lib_drain(g);
}

/* Where the raw mode sleeps: wait up to @ns for an expiry, then drain. */
static void lib_wait(struct group *g, uint64_t ns)
{
	const struct hwtimer_event *ev;

	if (!hwtimer_wait(g->h, &ev, (int64_t)ns)) {
		take_event(g, ev);
		hwtimer_seen(g->h);
	}
	lib_drain(g);
}

/* Drop live slot @slot from the live set. */
static void unlive(struct worker *w, uint32_t slot)
{
	w->live[slot] = w->live[--w->nlive];
}

/* A deadline for a one-shot, or a periodic timeout's new first expiry. */
static void pick_deadline(struct worker *w, struct rec *r, __u32 *flags,
			  __u64 *deadline)
{
	uint64_t now = clock_now(r->clock), rel;
	uint64_t k = below(w, 100);

	if (k < 5)
		rel = 0;
	else if (k < 85)
		rel = below(w, 30 * MS);
	else if (k < 95)
		rel = below(w, 300 * MS);
	else
		rel = 10000 * MS + below(w, 1000000 * MS);
	if (below(w, 4) == 0) {
		/* Relative: the kernel reads its clock in between. */
		*flags = 0;
		*deadline = rel;
		r->dl_lo = now + rel;
		r->dl_hi = 0;	/* set by settle_rel() after the call */
	} else {
		*flags = HWTIMER_ARM_ABS;
		/* Far in the past only for one-shots: overruns stay sane. */
		if (below(w, 20))
			*deadline = now + rel;
		else if (r->kind == ONESHOT)
			*deadline = now - below(w, now / 2);
		else
			*deadline = now - below(w, 100 * MS);
		r->dl_lo = *deadline;
		r->dl_hi = *deadline;
	}
}

/*
 * After the call: the latest a relative deadline can have been set to, and
 * the moment from which a past deadline is due.
 */
static void settle_rel(struct rec *r, uint32_t flags, uint64_t deadline)
{
	r->ref_ns = clock_now(r->clock);
	if (!(flags & HWTIMER_ARM_ABS))
		r->dl_hi = r->ref_ns + deadline;
}

/* Fill @req for a new record; returns it, or NULL when out of records. */
static struct rec *new_arm(struct worker *w, struct hwtimer_arm_req *req)
{
	struct rec *r;
	uint64_t k;

	if (w->nrecs == RECS_MAX || w->nlive == LIVE_MAX)
		return NULL;
	r = &w->recs[w->nrecs];
	memset(req, 0, sizeof(*req));
	r->clock = below(w, 8) == 0 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
	k = below(w, 100);
	r->kind = k < 85 ? ONESHOT : k < 95 ? PERIODIC : PERIODIC_MOD;
	if (r->kind == ONESHOT) {
		pick_deadline(w, r, &req->flags, &req->deadline_ns);
	} else {
		r->period = tick_ns * (1 + below(w, 10));
		req->flags = HWTIMER_ARM_ABS;
		req->deadline_ns = clock_now(r->clock) + below(w, 20 * MS);
		r->dl_lo = req->deadline_ns;
		r->dl_hi = req->deadline_ns;
	}
	req->period_ns = r->period;
	req->clock = r->clock;
	req->cookie = ((uint64_t)w->idx << 32) | w->nrecs;
	return r;
}

static void armed(struct worker *w, struct rec *r, int err, uint64_t id)
{
	w->ops++;
	w->nrecs++;
	if (err) {
		r->state = FAILED;
		w->unexpected++;
		printf("# worker %u: arm failed: %s\n", w->idx, strerror(err));
		return;
	}
	r->id = id;
	r->state = LIVE;
	w->arms++;
	w->live[w->nlive++] = (uint32_t)(r - w->recs);
}

/* Record what a cancel of live slot @slot said. */
static void cancelled(struct worker *w, uint32_t slot, int err,
		      uint32_t result, uint64_t from)
{
	struct rec *r = &w->recs[w->live[slot]];

	w->ops++;
	r->cancel_from = from;
	r->cancel_ns = clock_now(r->clock);
	if (err == ENOENT && r->kind == ONESHOT) {
		r->state = GONE;	/* its event was read already */
	} else if (err) {
		w->unexpected++;
		printf("# worker %u: cancel failed: %s\n", w->idx, strerror(err));
		r->state = FAILED;
	} else if (result == HWTIMER_RESULT_CANCELLED) {
		r->state = CANCELLED;
		w->cancels++;
		if (r->kind == ONESHOT &&
		    from > (r->dl_hi > r->ref_ns ? r->dl_hi : r->ref_ns) + STUCK_NS)
			w->stuck++;
	} else if (result == HWTIMER_RESULT_FIRED && r->kind == ONESHOT) {
		r->state = FIRED;
	} else {
		w->unexpected++;
		printf("# worker %u: cancel result %u\n", w->idx, result);
		r->state = FAILED;
	}
	unlive(w, slot);
}

/* What a modify of live slot @slot said; @req holds the new deadline. */
static void modified(struct worker *w, uint32_t slot, int err, uint32_t result,
		     const struct rec *want)
{
	struct rec *r = &w->recs[w->live[slot]];

	w->ops++;
	if (err == ENOENT && r->kind == ONESHOT) {
		r->state = GONE;
		unlive(w, slot);
	} else if (err) {
		w->unexpected++;
		printf("# worker %u: modify failed: %s\n", w->idx, strerror(err));
	} else if (result == HWTIMER_RESULT_MODIFIED) {
		w->modifies++;
		if (r->kind == ONESHOT) {
			r->dl_lo = want->dl_lo;
			r->dl_hi = want->dl_hi;
		}
		r->ref_ns = want->ref_ns;
	} else if (result != HWTIMER_RESULT_FIRED || r->kind != ONESHOT) {
		w->unexpected++;
		printf("# worker %u: modify result %u\n", w->idx, result);
	} else {
		r->state = FIRED;
		unlive(w, slot);
	}
}

/* One arm, by ioctl or by the library; 0 or a positive errno. */
static int call_arm(struct group *g, struct hwtimer_arm_req *req)
{
	uint64_t id = 0;
	int r;

	if (!g->h)
		return ioctl(g->fd, HWTIMER_IOC_ARM, req) ? errno : 0;
	r = hwtimer_arm(g->h, req->clock, req->deadline_ns, req->period_ns,
			req->flags, req->cookie, &id);
	req->id = id;
	return -r;
}

/* One cancel or modify's answer from the library: 0 and @result, or errno. */
static int lib_answer(int r, __u32 *result)
{
	if (r < 0)
		return -r;
	*result = r;
	return 0;
}

static int call_cancel(struct group *g, struct hwtimer_cancel_req *req)
{
	if (g->h)
		return lib_answer(hwtimer_cancel(g->h, req->id), &req->result);
	return ioctl(g->fd, HWTIMER_IOC_CANCEL, req) ? errno : 0;
}

static int call_modify(struct group *g, struct hwtimer_modify_req *req)
{
	if (g->h)
		return lib_answer(hwtimer_modify(g->h, req->id, req->deadline_ns,
						 req->flags), &req->result);
	return ioctl(g->fd, HWTIMER_IOC_MODIFY, req) ? errno : 0;
}

/*
 * A batch of @n ops through a library context's submission queue (which
 * flushes itself when full), each op's outcome written back into @ops.
 * Return: 0, or the negative errno of a submit that failed as a whole.
 */
static int lib_batch(struct group *g, struct hwtimer_batch_op *ops,
		     uint32_t n)
{
	struct hwtimer_result res[BATCH_MAX];
	struct hwtimer_batch_op *op;
	uint32_t i;
	int r = 0;

	for (i = 0; i < n && !r; i++) {
		op = &ops[i];
		if (op->op == HWTIMER_OP_ARM)
			r = hwtimer_prep_arm(g->h, op->clock, op->deadline_ns,
					     op->period_ns, op->flags,
					     op->cookie, &res[i]);
		else if (op->op == HWTIMER_OP_CANCEL)
			r = hwtimer_prep_cancel(g->h, op->id, &res[i]);
		else
			r = hwtimer_prep_modify(g->h, op->id, op->deadline_ns,
						op->flags, &res[i]);
	}
	if (!r)
		r = hwtimer_submit(g->h);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		ops[i].status = res[i].status;
		ops[i].result = res[i].result;
		if (ops[i].op == HWTIMER_OP_ARM)
			ops[i].id = res[i].id;
	}
	return 0;
}

/* One batch, by ioctl or by the library; 0 or a negative errno. */
static int call_batch(struct group *g, struct hwtimer_batch_op *ops,
		      uint32_t n)
{
	struct hwtimer_batch b = { .ops = (uintptr_t)ops, .count = n };

	if (g->h)
		return lib_batch(g, ops, n);
	if (ioctl(g->fd, HWTIMER_IOC_BATCH, &b))
		return -errno;
	return b.done == n ? 0 : -EINTR;
}

static void op_arm(struct worker *w)
{
	struct hwtimer_arm_req req;
	struct rec *r = new_arm(w, &req);
	int err;

	if (!r)
		return;
	err = call_arm(w->g, &req);
	settle_rel(r, req.flags, req.deadline_ns);
	armed(w, r, err, req.id);
}

static void op_cancel(struct worker *w, uint32_t slot)
{
	struct rec *r = &w->recs[w->live[slot]];
	struct hwtimer_cancel_req req = { .id = r->id };
	uint64_t from = clock_now(r->clock);
	int err = call_cancel(w->g, &req);

	cancelled(w, slot, err, req.result, from);
}

static void op_modify(struct worker *w, uint32_t slot)
{
	struct rec *r = &w->recs[w->live[slot]];
	struct hwtimer_modify_req req = { .id = r->id };
	struct rec want = { .clock = r->clock, .kind = r->kind };
	int err;

	if (r->kind == PERIODIC)
		return;
	pick_deadline(w, &want, &req.flags, &req.deadline_ns);
	err = call_modify(w->g, &req);
	settle_rel(&want, req.flags, req.deadline_ns);
	modified(w, slot, err, req.result, &want);
}

/*
 * A batch of arms, cancels and modifies. Each live record appears at most
 * once; cancels and modifies are settled after the call, from the end of
 * the live array backwards so the slots stay valid.
 */
static void op_batch(struct worker *w)
{
	struct hwtimer_batch_op ops[BATCH_MAX];
	struct rec want[BATCH_MAX], *arm_rec[BATCH_MAX];
	uint32_t slot[BATCH_MAX], n = 1 + below(w, BATCH_MAX), i, used = 0;
	uint64_t from = clock_now(CLOCK_MONOTONIC);
	int err;

	memset(ops, 0, sizeof(ops));
	/* Cancels and modifies on the last live slots, then arms. */
	for (i = 0; i < n && used < w->nlive && below(w, 2); i++, used++) {
		struct rec *r;

		slot[i] = w->nlive - 1 - used;
		r = &w->recs[w->live[slot[i]]];
		ops[i].id = r->id;
		if (r->kind == PERIODIC || below(w, 2)) {
			ops[i].op = HWTIMER_OP_CANCEL;
		} else {
			ops[i].op = HWTIMER_OP_MODIFY;
			want[i].clock = r->clock;
			want[i].kind = r->kind;
			pick_deadline(w, &want[i], &ops[i].flags,
				      &ops[i].deadline_ns);
		}
	}
	for (; i < n; i++) {
		struct hwtimer_arm_req req;

		arm_rec[i] = NULL;
		if (w->nlive + (i - used) >= LIVE_MAX)
			break;
		arm_rec[i] = new_arm(w, &req);
		if (!arm_rec[i])
			break;
		w->nrecs++;	/* reserve; armed() counts it again */
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].flags = req.flags;
		ops[i].cookie = req.cookie;
		ops[i].deadline_ns = req.deadline_ns;
		ops[i].period_ns = req.period_ns;
		ops[i].clock = req.clock;
	}
	n = i;
	w->nrecs -= n - used;
	err = call_batch(w->g, ops, n);
	if (err) {
		printf("# worker %u: batch of %u failed: %s\n", w->idx, n,
		       strerror(-err));
		w->unexpected++;
		atomic_store(&stop, 1);
		return;
	}
	/*
	 * Settle from the highest slot down, before the arms append to the
	 * live array: unlive() only moves already settled entries.
	 */
	for (i = 0; i < used; i++) {
		if (ops[i].op == HWTIMER_OP_CANCEL) {
			cancelled(w, slot[i], -ops[i].status, ops[i].result,
				  from);
		} else {
			settle_rel(&want[i], ops[i].flags, ops[i].deadline_ns);
			modified(w, slot[i], -ops[i].status, ops[i].result,
				 &want[i]);
		}
	}
	for (i = used; i < n; i++) {
		settle_rel(arm_rec[i], ops[i].flags, ops[i].deadline_ns);
		armed(w, arm_rec[i], -ops[i].status, ops[i].id);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&stop)) {
		uint64_t k = below(w, 100);

		if (k < 35)
			op_arm(w);
		else if (k < 50)
			op_batch(w);
		else if (k < 72 && w->nlive)
			op_cancel(w, below(w, w->nlive));
		else if (k < 90 && w->nlive)
			op_modify(w, below(w, w->nlive));
		else if (k < 92 && w->g->h)
			lib_wait(w->g, below(w, 2000) * 1000);
		else if (k < 92)
			usleep(below(w, 2000));
		if (w->g->h)
			lib_poll(w->g);
	}
	/* Settle everything still live. */
	while (w->nlive)
		op_cancel(w, w->nlive - 1);
	return NULL;
}

/*
 * The context's counters as the calls made count them: on the library,
 * the kernel's (hwtimer_stats()) with what the library did on its own on
 * the timer rings (hwtimer_lib_stats()), added up as <hwtimer/hwtimer.h>
 * says.
 */
static int get_stats(struct group *g, struct hwtimer_stats_req *st)
{
	struct hwtimer_lib_stats ls;

	if (g->h) {
		if (hwtimer_stats(g->h, CLOCK_MONOTONIC, st) ||
		    hwtimer_lib_stats(g->h, &ls, sizeof(ls)))
			return -1;
		st->ctx_armed += ls.taken_back + ls.refused - ls.rearmed;
		st->ctx_cancelled += ls.taken_back + ls.cancel_raced;
		st->ctx_fired -= ls.dropped;
		st->ctx_read += ls.ring_read - ls.dropped_read;
		st->ctx_queued += ls.stashed;
		st->ctx_live += ls.ring_live - ls.ring_slots;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	st->clock = CLOCK_MONOTONIC;
	return ioctl(g->fd, HWTIMER_IOC_STATS, st);
}

/*
 * Wait until the context has nothing pending or queued, at most @ms; a
 * library context is drained here, by the only thread using it now.
 */
static int quiesce(struct group *g, int ms)
{
	struct hwtimer_stats_req st;

	for (; ms > 0; ms -= 10) {
		if (g->h)
			lib_drain(g);
		if (get_stats(g, &st))
			return -1;
		if (!st.ctx_pending && !st.ctx_queued && !st.ctx_live)
			return 0;
		usleep(10000);
	}
	printf("# %s: pending %llu queued %llu live %llu\n",
	       __func__, (unsigned long long)st.ctx_pending,
	       (unsigned long long)st.ctx_queued,
	       (unsigned long long)st.ctx_live);
	return -1;
}

/**
 * struct tally - the ledger's verdict
 * @lost: settled as fired (or read) but no event
 * @dbl: more events than expiries allowed
 * @after: an expiry after a cancel had returned, or an event of a
 *	timeout whose cancel said CANCELLED
 * @early: an event before its deadline
 * @wrong: an event with the wrong deadline, flags, overruns or order
 */
struct tally {
	uint64_t lost, dbl, after, early, wrong, fired, oneshots, periodics;
};

static void check_one(const struct rec *r, struct tally *t);

/* Describe a record the ledger rejects (the first few). */
static void show(const struct rec *r, const char *why)
{
	static int shown;

	if (shown++ >= 8)
		return;
	printf("# %s: kind %u state %u clock %u id %#llx period %llu dl [%llu, %llu] ref %llu cancel [%llu, %llu]\n",
	       why, r->kind, r->state, r->clock, (unsigned long long)r->id,
	       (unsigned long long)r->period, (unsigned long long)r->dl_lo,
	       (unsigned long long)r->dl_hi, (unsigned long long)r->ref_ns,
	       (unsigned long long)r->cancel_from,
	       (unsigned long long)r->cancel_ns);
	printf("#   records %u expiries %llu last deadline %llu max %llu flags %u overruns %llu bad %u early fire %llu < deadline %llu\n",
	       r->nrec, (unsigned long long)r->exp,
	       (unsigned long long)r->ev_deadline,
	       (unsigned long long)r->ev_max_deadline, r->ev_flags,
	       (unsigned long long)r->ev_overruns, r->bad,
	       (unsigned long long)r->early_fire,
	       (unsigned long long)r->early_deadline);
}

static void check_rec(const struct rec *r, struct tally *t)
{
	struct tally before = *t;

	if (r->state == FAILED)
		return;
	check_one(r, t);
	if (t->lost != before.lost)
		show(r, "lost");
	if (t->dbl != before.dbl)
		show(r, "double");
	if (t->after != before.after)
		show(r, "after cancel");
	if (t->early != before.early)
		show(r, "early");
	if (t->wrong != before.wrong)
		show(r, "wrong");
}

static void check_one(const struct rec *r, struct tally *t)
{
	t->fired += r->exp;
	if (r->bad & 2)
		t->early++;
	if (r->nrec && r->ev_id != r->id)
		t->wrong++;
	if (r->kind == ONESHOT) {
		t->oneshots++;
		if (r->state == CANCELLED) {
			t->after += r->nrec != 0;
			return;
		}
		if (!r->nrec)
			t->lost++;
		else if (r->nrec > 1)
			t->dbl++;
		else if (r->ev_overruns || !(r->ev_flags & HWTIMER_EVENT_LAST) ||
			 r->ev_deadline < r->dl_lo || r->ev_deadline > r->dl_hi)
			t->wrong++;
		return;
	}
	t->periodics++;
	/* No expiry past the moment the cancel returned. */
	if (r->nrec && r->ev_max_deadline > r->cancel_ns)
		t->after++;
	if (r->kind != PERIODIC)
		return;
	if (r->bad & 1)
		t->wrong++;
	/* The last covered period lies before the cancel returned ... */
	if (r->exp && r->dl_lo + (r->exp - 1) * r->period > r->cancel_ns)
		t->dbl++;
	/* ... and the next one was not overdue by STUCK_NS when it began. */
	if (r->dl_lo + r->exp * r->period + STUCK_NS < r->cancel_from)
		t->lost++;
}

static void usage(const char *me)
{
	fprintf(stderr, "Usage: %s [-t SECONDS] [-g GROUPS] [-w WORKERS] [-s SEED]\n"
		"       [--lib[=device|timerfd]]\n", me);
	exit(2);
}

/**
 * struct config - what the command line asks for
 * @secs: seconds of stress
 * @ngroups: groups (open contexts)
 * @per: worker threads per group
 * @seed: seed of the workers' generators
 */
struct config {
	unsigned int secs, ngroups, per;
	uint64_t seed;
};

/**
 * struct totals - the workers' and readers' counts, summed
 * @ops: operations tried
 * @arms: successful arms
 * @cancels: cancels that stopped a timeout
 * @modifies: successful modifies
 * @unexpected: answers the ledger does not allow
 * @stuck: timeouts still pending long after their deadline
 * @unknown: events whose cookie names no record
 * @records: events read
 */
struct totals {
	uint64_t ops, arms, cancels, modifies, unexpected, stuck, unknown;
	uint64_t records;
};

static void parse_args(int argc, char **argv, struct config *c)
{
	static const struct option lopts[] = {
		{ "lib", optional_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*c = (struct config){ .secs = 30, .ngroups = 2, .per = 2,
		.seed = (uint64_t)time(NULL) * 2654435761ULL | 1 };
	while ((opt = getopt_long(argc, argv, "t:g:w:s:", lopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (!optarg || !strcmp(optarg, "device"))
				lib_flags = HWTIMER_OPEN_DEVICE;
			else if (!strcmp(optarg, "timerfd"))
				lib_flags = HWTIMER_OPEN_TIMERFD;
			else
				usage(argv[0]);
			break;
		case 't':
			c->secs = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			c->ngroups = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			c->per = strtoul(optarg, NULL, 0);
			break;
		case 's':
			c->seed = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!c->ngroups || !c->per)
		usage(argv[0]);
}

/*
 * Open group @g as a libhwtimer context; odd groups get an eventfd. Bails
 * out if it cannot.
 */
static void open_lib(struct group *g, unsigned int i)
{
	int r = hwtimer_open(&g->h, LIB_SQ, lib_flags);

	if (r)
		ksft_exit_fail_msg("%s\n", hwtimer_open_error());
	tick_ns = hwtimer_tick_ns(g->h);
	g->fd = -1;
	g->efd = -1;
	if (i % 2) {
		g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		r = g->efd < 0 ? -errno : hwtimer_set_eventfd(g->h, g->efd);
		if (r)
			ksft_exit_fail_msg("eventfd: %s\n", strerror(-r));
	}
}

/*
 * Open group @g on /dev/hwtimer with raw ioctls; odd groups get an
 * eventfd. Bails out if it cannot.
 */
static void open_raw(struct group *g, unsigned int i)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	struct hwtimer_eventfd_req er = { 0 };

	g->fd = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (g->fd < 0 || ioctl(g->fd, HWTIMER_IOC_API, &api))
		ksft_exit_fail_msg("cannot open and handshake %s: %s\n", DEV,
				   strerror(errno));
	tick_ns = api.tick_ns;
	g->efd = -1;
	if (i % 2) {
		g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		er.fd = g->efd;
		if (g->efd < 0 || ioctl(g->fd, HWTIMER_IOC_SET_EVENTFD, &er))
			ksft_exit_fail_msg("eventfd: %s\n", strerror(errno));
	}
}

/*
 * Run the workers (and, on raw ioctls, one reader per group) for @secs,
 * stop them, and let every group drain. Return: false if one did not.
 */
static bool run(struct group *groups, unsigned int ngroups, unsigned int secs)
{
	bool drained = true;
	unsigned int i;

	for (i = 0; i < ngroups && !lib_flags; i++)
		pthread_create(&groups[i].thr, NULL, reader, &groups[i]);
	for (i = 0; i < nworkers; i++)
		pthread_create(&workers[i].thr, NULL, work, &workers[i]);
	sleep(secs);
	atomic_store(&stop, 1);
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i].thr, NULL);
	/* Fired one-shots' events are at most a moment away. */
	for (i = 0; i < ngroups; i++) {
		if (quiesce(&groups[i], 30000))
			drained = false;
		atomic_store(&groups[i].stop_reader, 1);
		if (!lib_flags)
			pthread_join(groups[i].thr, NULL);
	}
	return drained;
}

/*
 * Check group @i's STATS counters against the ledger of its workers
 * (@per of them), then close it. Return: false on a mismatch.
 */
static bool check_group(struct group *groups, unsigned int i,
			unsigned int per)
{
	struct group *g = &groups[i];
	struct hwtimer_stats_req st;
	uint64_t ga = 0, gc = 0, gf = 0;
	bool good = true;
	uint32_t j, k;

	for (j = i * per; j < (i + 1) * per; j++) {
		ga += workers[j].arms;
		gc += workers[j].cancels;
		for (k = 0; k < workers[j].nrecs; k++)
			gf += workers[j].recs[k].exp;
	}
	if (get_stats(g, &st) || st.ctx_armed != ga ||
	    st.ctx_cancelled != gc || st.ctx_fired != gf ||
	    st.ctx_read != g->records) {
		printf("# group %u: STATS armed %llu cancelled %llu fired %llu read %llu; ledger %llu %llu %llu %llu\n",
		       i, (unsigned long long)st.ctx_armed,
		       (unsigned long long)st.ctx_cancelled,
		       (unsigned long long)st.ctx_fired,
		       (unsigned long long)st.ctx_read,
		       (unsigned long long)ga, (unsigned long long)gc,
		       (unsigned long long)gf, (unsigned long long)g->records);
		good = false;
	}
	if (g->h)
		hwtimer_close(g->h);
	else
		close(g->fd);
	if (g->efd >= 0)
		close(g->efd);
	return good;
}

/* Check every record and sum the workers' and groups' counts. */
static void tally_all(struct group *groups, unsigned int ngroups,
		      struct tally *t, struct totals *n)
{
	unsigned int i;
	uint32_t j;

	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		for (j = 0; j < w->nrecs; j++)
			check_rec(&w->recs[j], t);
		n->ops += w->ops;
		n->arms += w->arms;
		n->cancels += w->cancels;
		n->modifies += w->modifies;
		n->unexpected += w->unexpected;
		n->stuck += w->stuck;
	}
	for (i = 0; i < ngroups; i++) {
		n->unknown += groups[i].unknown;
		n->records += groups[i].records;
	}
}

/* Print the figures and the four results. */
static void report(const struct tally *t, const struct totals *n,
		   bool stats_ok)
{
	printf("# ops %llu arms %llu (one-shot %llu periodic %llu) modified %llu\n",
	       (unsigned long long)n->ops, (unsigned long long)n->arms,
	       (unsigned long long)t->oneshots,
	       (unsigned long long)t->periodics,
	       (unsigned long long)n->modifies);
	printf("# fired %llu (records %llu) cancelled %llu\n",
	       (unsigned long long)t->fired, (unsigned long long)n->records,
	       (unsigned long long)n->cancels);
	printf("# lost %llu double %llu after-cancel %llu early %llu wrong %llu stuck %llu unknown %llu unexpected %llu\n",
	       (unsigned long long)t->lost, (unsigned long long)t->dbl,
	       (unsigned long long)t->after, (unsigned long long)t->early,
	       (unsigned long long)t->wrong, (unsigned long long)n->stuck,
	       (unsigned long long)n->unknown,
	       (unsigned long long)n->unexpected);
	printf("STRESS-FIGURES user ops=%llu arms=%llu fired=%llu cancelled=%llu lost=%llu double=%llu after_cancel=%llu\n",
	       (unsigned long long)n->ops, (unsigned long long)n->arms,
	       (unsigned long long)t->fired, (unsigned long long)n->cancels,
	       (unsigned long long)(t->lost + n->stuck),
	       (unsigned long long)t->dbl, (unsigned long long)t->after);
	ksft_test_result(n->arms > 0 && !n->unexpected,
			 "stress: every ioctl answered as the ledger allows\n");
	ksft_test_result(!t->lost && !n->stuck && !t->dbl && !t->after,
			 "stress: lost 0, double 0, fired-after-cancel 0\n");
	ksft_test_result(!t->early && !t->wrong && !n->unknown,
			 "stress: no event early, misfiled or with a wrong deadline or overrun total\n");
	ksft_test_result(stats_ok,
			 "stress: contexts drained; STATS counters equal the ledger\n");
}

int main(int argc, char **argv)
{
	struct totals n = { 0 };
	struct tally t = { 0 };
	struct group *groups;
	struct config c;
	bool stats_ok;
	unsigned int i;

	parse_args(argc, argv, &c);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(4);
	printf("# hwtimer_stress: %u s, %u groups x %u workers, seed %#llx%s\n",
	       c.secs, c.ngroups, c.per, (unsigned long long)c.seed,
	       lib_flags ? ", a libhwtimer context per worker" : "");
	if (lib_flags) {
		c.ngroups *= c.per;
		c.per = 1;
	}

	nworkers = c.ngroups * c.per;
	groups = calloc(c.ngroups, sizeof(*groups));
	workers = calloc(nworkers, sizeof(*workers));
	if (!groups || !workers)
		return 1;
	for (i = 0; i < c.ngroups; i++)
		(lib_flags ? open_lib : open_raw)(&groups[i], i);
	if (lib_flags)
		printf("# backend %s\n", hwtimer_backend(groups[0].h));
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		w->g = &groups[i / c.per];
		w->idx = i;
		w->rng = c.seed + i * 0x9e3779b97f4a7c15ULL;
		w->recs = calloc(RECS_MAX, sizeof(*w->recs));
		if (!w->recs)
			return 1;
	}
	stats_ok = run(groups, c.ngroups, c.secs);
	tally_all(groups, c.ngroups, &t, &n);
	for (i = 0; i < c.ngroups; i++)
		if (!check_group(groups, i, c.per))
			stats_ok = false;
	report(&t, &n, stats_ok);
	ksft_finished();
}
