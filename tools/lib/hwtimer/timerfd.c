// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * timerfd.c - libhwtimer's backend for when /dev/hwtimer is missing.
 *
 * The same model as the device (chardev/hwtimer_ctx.c) in one
 * process: a table of timeouts found by id, a min-heap of deadlines per
 * clock, each heap's earliest deadline on a timerfd of that clock, and a
 * FIFO of timeouts whose record waits to be read. The three timerfds sit
 * in one epoll fd, which hwtimer_fd() returns.
 *
 * CLOCK_REALTIME is the device's too: an absolute deadline goes on the
 * realtime heap, whose timerfd (absolute, on CLOCK_REALTIME) the kernel
 * fires when the clock is set forward past it and not before the clock
 * reaches it when set back; a relative one goes on the monotonic heap,
 * and its records say CLOCK_MONOTONIC.
 *
 * Nothing expires by itself: every call first serves the deadlines that
 * clock_gettime() says have passed, so a timeout is never served before
 * its deadline, and a record's fire time is the clock read that served it.
 * Records follow hwtimer(4): a one-shot's record is its last; a periodic
 * timeout whose record is unread stops, and the read that takes the record
 * counts the periods that passed meanwhile as overruns and arms it for the
 * next one. Cancel and modify of a due but unserved timeout serve it first,
 * so they answer as the device, whose wheel would have fired it.
 *
 * Any call that leaves records waiting makes the monotonic timerfd expire
 * at once, so hwtimer_fd() polls readable however the records were served.
 *
 * Cancel on set (HWTIMER_ARM_CANCEL_ON_SET): such a timeout sits on the
 * realtime heap as any absolute one, and while one is pending a sentinel
 * watches the wall clock: a fourth timerfd, on CLOCK_REALTIME with
 * TFD_TIMER_CANCEL_ON_SET at a time it never reaches, in the epoll fd.
 * A set of the clock makes it readable, and its read() fail with
 * ECANCELED once per set; it is never set again while it watches (a
 * timerfd_settime() would forget a set not yet read), and goes when no
 * such timeout is pending. Every call reads it: a set turns each pending
 * cancel-on-set timeout into its clock-set record. An arm reads it first,
 * so that a set before the arm cancels nothing it arms; a serve reads it
 * before it serves a cancel-on-set timeout as an expiry, which the set,
 * not the deadline, may have made due. As with timerfd(2), a set that
 * comes after such a deadline but before the call that serves it is
 * what the record reports.
 *
 * Ids are built like the device's: a context tag (20 bits, from a counter
 * shared by the process), the slot's generation (20) and its index (24);
 * free slots are reused oldest first.
 *
 * An eventfd (hwtimer_set_eventfd()) is signalled by a thread of the
 * context that waits on the timerfds, edge-triggered, and adds 1 each time
 * one of them expires: records are then waiting, or about to be served by
 * the next call. The thread touches nothing but its own fds, and the
 * caller's eventfd through a duplicate, so the context needs no lock.
 *
 * Time is 64-bit even where time_t is 32-bit by default (i386): a
 * deadline past 2038 on the timerfd, or a long wait, must not wrap.
 */
#ifndef _TIME_BITS
#define _TIME_BITS 64
#define _FILE_OFFSET_BITS 64
#endif
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "internal.h"

#define NONE		UINT32_MAX
/* Ids laid out as the device's (HWTIMER_ID_*). */
#define GEN_MASK	((1U << HWTIMER_ID_GEN_BITS) - 1)
#define IDX_MASK	((1U << HWTIMER_ID_INDEX_BITS) - 1)
/* Most live timeouts of a context: the device's default ctx_max_pending. */
#define FB_MAX_LIVE	262144U

/* Clocks by index: each has its heap and timerfd. */
#define FB_MONO		0
#define FB_BOOTTIME	1
#define FB_REALTIME	2
#define FB_NCLOCKS	3
static const clockid_t fb_clocks[FB_NCLOCKS] = {
	CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME
};

/* Tags of contexts of this process; a tag is never 0. */
static atomic_uint fb_tags;

/**
 * struct fb_timer - a timeout, or a free slot
 * @cookie: user data
 * @deadline: next expiry, absolute, while on the heap
 * @period: 0 for a one-shot
 * @rec_deadline: record: deadline of the latest expiry it covers
 * @rec_fire: record: when that expiry was served
 * @rec_overruns: record: expiries folded in since it was last read
 * @gen: the slot's generation
 * @next: next in the free list or the record FIFO
 * @hidx: index in its clock's heap, NONE when not on it
 * @ci: index of its clock in fb_clocks
 * @used: the slot holds a timeout (linked, or its record waits)
 * @linked: its id matches (until cancel, or its last record is read)
 * @fired: a one-shot that expired
 * @queued: its record waits in the FIFO
 * @dormant: a periodic stopped until its record is read
 * @cos: armed with HWTIMER_ARM_CANCEL_ON_SET and counted in @cos_n of
 *	struct hwt_fb: a set of the clock would cancel it
 * @clock_set: a set of the clock cancelled it: its record says so
 */
struct fb_timer {
	uint64_t cookie;
	uint64_t deadline;
	uint64_t period;
	uint64_t rec_deadline;
	uint64_t rec_fire;
	uint64_t rec_overruns;
	uint32_t gen;
	uint32_t next;
	uint32_t hidx;
	uint8_t ci;
	bool used;
	bool linked;
	bool fired;
	bool queued;
	bool dormant;
	bool cos;
	bool clock_set;
};

/**
 * struct fb_heap - min-heap of slot indexes by deadline
 * @slot: the heap
 * @len: entries in it
 * @cap: room in @slot
 */
struct fb_heap {
	uint32_t *slot;
	uint32_t len;
	uint32_t cap;
};

/**
 * struct hwt_fb - state of the timerfd backend
 * @t: the table of timeouts
 * @nslots: slots in use or free in @t
 * @cap: room in @t
 * @free_head: oldest free slot, NONE if none
 * @free_tail: newest free slot
 * @ev_head: first timeout whose record waits, NONE if none
 * @ev_tail: last one
 * @live: slots used
 * @queued: records waiting in the FIFO
 * @armed: successful arms, ever
 * @fired: expiries, overruns included, ever
 * @cancelled: cancels that stopped a timeout, ever
 * @read: records read, ever
 * @tag: the context's tag, shifted into place
 * @heap: deadlines per clock
 * @tfd: a timerfd per clock
 * @armed_at: deadline its timerfd is set to, 0 when not set
 * @proc: process that owns @tfd and the epoll fd (hwtimer__proc(); see
 *	fb_enter())
 * @efd: duplicate of the caller's eventfd, -1 when none is set
 * @nep: the notifier's epoll fd (timerfds edge-triggered, @nstop), or -1
 * @nstop: eventfd that tells the notifier to return
 * @nthr: the notifier, running while @nep is not -1
 * @cos_n: timeouts with @cos set: pending, a set would cancel them
 * @cos_fd: the sentinel that hears of sets of the clock while @cos_n is
 *	not 0 (cos_open()), else -1
 */
struct hwt_fb {
	struct fb_timer *t;
	uint32_t nslots;
	uint32_t cap;
	uint32_t free_head;
	uint32_t free_tail;
	uint32_t ev_head;
	uint32_t ev_tail;
	uint32_t live;
	uint32_t queued;
	uint64_t armed;
	uint64_t fired;
	uint64_t cancelled;
	uint64_t read;
	uint64_t tag;
	struct fb_heap heap[FB_NCLOCKS];
	int tfd[FB_NCLOCKS];
	uint64_t armed_at[FB_NCLOCKS];
	unsigned int proc;
	int efd;
	int nep;
	int nstop;
	pthread_t nthr;
	uint32_t cos_n;
	int cos_fd;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* ---- heap ---- */

static bool heap_less(struct hwt_fb *fb, uint32_t a, uint32_t b)
{
	return fb->t[a].deadline < fb->t[b].deadline;
}

static void heap_set(struct hwt_fb *fb, struct fb_heap *hp, uint32_t i,
		     uint32_t s)
{
	hp->slot[i] = s;
	fb->t[s].hidx = i;
}

static void sift_up(struct hwt_fb *fb, struct fb_heap *hp, uint32_t i)
{
	uint32_t s = hp->slot[i];

	while (i && heap_less(fb, s, hp->slot[(i - 1) / 2])) {
		heap_set(fb, hp, i, hp->slot[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(fb, hp, i, s);
}

static void sift_down(struct hwt_fb *fb, struct fb_heap *hp, uint32_t i)
{
	uint32_t s = hp->slot[i], c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= hp->len)
			break;
		if (c + 1 < hp->len && heap_less(fb, hp->slot[c + 1], hp->slot[c]))
			c++;
		if (!heap_less(fb, hp->slot[c], s))
			break;
		heap_set(fb, hp, i, hp->slot[c]);
		i = c;
	}
	heap_set(fb, hp, i, s);
}

static int heap_push(struct hwt_fb *fb, uint32_t s)
{
	struct fb_heap *hp = &fb->heap[fb->t[s].ci];
	uint32_t *n;

	if (hp->len == hp->cap) {
		n = realloc(hp->slot, (hp->cap ? 2 * hp->cap : 64) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		hp->slot = n;
		hp->cap = hp->cap ? 2 * hp->cap : 64;
	}
	hp->slot[hp->len++] = s;
	sift_up(fb, hp, hp->len - 1);
	return 0;
}

static void heap_remove(struct hwt_fb *fb, uint32_t s)
{
	struct fb_heap *hp = &fb->heap[fb->t[s].ci];
	uint32_t i = fb->t[s].hidx, moved;

	fb->t[s].hidx = NONE;
	if (i == --hp->len)
		return;
	moved = hp->slot[hp->len];
	heap_set(fb, hp, i, moved);
	sift_down(fb, hp, i);
	sift_up(fb, hp, fb->t[moved].hidx);
}

/* ---- table ---- */

static uint64_t slot_id(struct hwt_fb *fb, uint32_t s)
{
	return fb->tag | (uint64_t)fb->t[s].gen << HWTIMER_ID_GEN_SHIFT | s;
}

static struct fb_timer *lookup(struct hwt_fb *fb, uint64_t id, uint32_t *s)
{
	*s = id & IDX_MASK;
	if (*s >= fb->nslots || !fb->t[*s].linked || slot_id(fb, *s) != id)
		return NULL;
	return &fb->t[*s];
}

/* A free slot, oldest first, or a new one; NONE without memory. */
static uint32_t slot_alloc(struct hwt_fb *fb)
{
	struct fb_timer *n;
	uint32_t s = fb->free_head;

	if (s != NONE) {
		fb->free_head = fb->t[s].next;
	} else {
		if (fb->nslots == fb->cap) {
			n = realloc(fb->t, (fb->cap ? 2 * fb->cap : 64) * sizeof(*n));
			if (!n)
				return NONE;
			fb->t = n;
			fb->cap = fb->cap ? 2 * fb->cap : 64;
		}
		s = fb->nslots++;
		fb->t[s].gen = 0;
	}
	fb->live++;
	return s;
}

static void slot_free(struct hwt_fb *fb, uint32_t s)
{
	struct fb_timer *t = &fb->t[s];

	t->used = false;
	t->gen = (t->gen + 1) & GEN_MASK;
	t->next = NONE;
	if (fb->free_head == NONE)
		fb->free_head = s;
	else
		fb->t[fb->free_tail].next = s;
	fb->free_tail = s;
	fb->live--;
}

/* A set of the clock no longer concerns @t: it fired, or it is gone. */
static void cos_forget(struct hwt_fb *fb, struct fb_timer *t)
{
	if (!t->cos)
		return;
	t->cos = false;
	fb->cos_n--;
}

/* The id no longer matches; the slot goes once no record waits. */
static void unlink_timer(struct hwt_fb *fb, uint32_t s)
{
	cos_forget(fb, &fb->t[s]);
	fb->t[s].linked = false;
	if (!fb->t[s].queued)
		slot_free(fb, s);
}

/* ---- expiries ---- */

/* Queue the record of @s, unless it waits already. */
static void ev_push(struct hwt_fb *fb, uint32_t s)
{
	struct fb_timer *t = &fb->t[s];

	if (t->queued)
		return;
	t->queued = true;
	fb->queued++;
	t->next = NONE;
	if (fb->ev_head == NONE)
		fb->ev_head = s;
	else
		fb->t[fb->ev_tail].next = s;
	fb->ev_tail = s;
}

/* Serve timeout @s, off its heap, at @now (not before its deadline). */
static void fire(struct hwt_fb *fb, uint32_t s, uint64_t now)
{
	struct fb_timer *t = &fb->t[s];
	uint64_t k;

	t->rec_fire = now;
	if (t->period) {
		/* Periods that also passed, as the wheel's overrun count. */
		k = (now - t->deadline) / t->period;
		t->rec_deadline = t->deadline + k * t->period;
		t->rec_overruns = t->queued ? t->rec_overruns + 1 + k : k;
		t->dormant = true;
		fb->fired += k;
	} else {
		t->rec_deadline = t->deadline;
		t->fired = true;
		cos_forget(fb, t);
	}
	fb->fired++;
	ev_push(fb, s);
}

/*
 * A set of the clock cancelled cancel-on-set timeout @s, seen at @now on
 * the wall clock: its record says so, with the deadline it was armed for
 * (a periodic one's next), or, when a record of a periodic one waits
 * unread, that record's deadline and overruns. A one-shot's id goes with
 * the record, as after an expiry; a periodic one's at once.
 */
static void cos_cancel(struct hwt_fb *fb, uint32_t s, uint64_t now)
{
	struct fb_timer *t = &fb->t[s];

	cos_forget(fb, t);
	t->clock_set = true;
	if (t->hidx != NONE)
		heap_remove(fb, s);
	if (!t->queued) {
		t->rec_deadline = t->deadline;
		t->rec_overruns = 0;
	}
	t->rec_fire = now;
	if (!t->period)
		t->fired = true;
	fb->cancelled++;
	ev_push(fb, s);
	if (t->period)
		unlink_timer(fb, s);
}

/*
 * Whether the wall clock was set since the sentinel last looked: its
 * read() fails with ECANCELED once per set (and the sentinel watches on,
 * from the clock as it is now).
 */
static bool cos_was_set(struct hwt_fb *fb)
{
	uint64_t ticks;

	return fb->cos_fd >= 0 &&
	       read(fb->cos_fd, &ticks, sizeof(ticks)) < 0 && errno == ECANCELED;
}

/* The wall clock was set: cancel every cancel-on-set timeout pending. */
static void cos_set(struct hwt_fb *fb)
{
	uint64_t now = hwtimer__now(CLOCK_REALTIME);
	uint32_t s;

	for (s = 0; s < fb->nslots && fb->cos_n; s++)
		if (fb->t[s].used && fb->t[s].cos)
			cos_cancel(fb, s, now);
}

/* Serve @s now if its deadline passed, as the device would have. */
static void serve_if_due(struct hwt_fb *fb, uint32_t s)
{
	struct fb_timer *t = &fb->t[s];
	uint64_t now;

	if (t->hidx == NONE)
		return;
	now = hwtimer__now(fb_clocks[t->ci]);
	if (t->deadline > now)
		return;
	heap_remove(fb, s);
	fire(fb, s, now);
}

static int tfd_set(struct hwt_fb *fb, unsigned int ci, uint64_t at)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = at / 1000000000ULL;
	its.it_value.tv_nsec = at % 1000000000ULL;
	if (timerfd_settime(fb->tfd[ci], TFD_TIMER_ABSTIME, &its, NULL))
		return -errno;
	fb->armed_at[ci] = at;
	return 0;
}

/*
 * Point clock @ci's timerfd at its earliest deadline if it is set later or
 * not at all. A timerfd that went off (@stale) is set again or disarmed,
 * which also clears its readiness.
 */
static void tfd_sync(struct hwt_fb *fb, unsigned int ci, bool stale)
{
	struct fb_heap *hp = &fb->heap[ci];
	uint64_t min;

	if (!hp->len) {
		if (stale)
			tfd_set(fb, ci, 0);
		return;
	}
	min = fb->t[hp->slot[0]].deadline;
	if (!min)
		min = 1;	/* 0 would disarm it */
	if (!fb->armed_at[ci] || min < fb->armed_at[ci])
		tfd_set(fb, ci, min);
}

/*
 * Whether clock @ci's timerfd went off though its clock reads before the
 * time it is set to: only the realtime one, set back after it fired. Its
 * expiry count is taken, so it polls readable no longer; left alone, it
 * would until the clock reached that time again. A read() per call while
 * a realtime deadline is set: the price of a clock that moves back.
 */
static bool tfd_went_off(struct hwt_fb *fb, unsigned int ci)
{
	uint64_t ticks;

	return ci == FB_REALTIME &&
	       read(fb->tfd[ci], &ticks, sizeof(ticks)) == sizeof(ticks);
}

/* Serve every deadline of clock @ci that has passed. */
static void serve_due(struct hwt_fb *fb, unsigned int ci)
{
	struct fb_heap *hp = &fb->heap[ci];
	bool stale = false, checked = false;
	uint64_t now;
	uint32_t s;

	if (!hp->len && !fb->armed_at[ci])
		return;
	now = hwtimer__now(fb_clocks[ci]);
	if (fb->armed_at[ci] && fb->armed_at[ci] > now &&
	    tfd_went_off(fb, ci)) {
		/*
		 * The clock reached the timerfd's time and was set back
		 * before this call: what was due then is served as of then,
		 * as the device's wheel served it: before the set, so as
		 * expiries, cancel-on-set ones too.
		 */
		now = fb->armed_at[ci];
		checked = true;
	}
	if (fb->armed_at[ci] && fb->armed_at[ci] <= now) {
		fb->armed_at[ci] = 0;
		stale = true;
	}
	while (hp->len && fb->t[hp->slot[0]].deadline <= now) {
		s = hp->slot[0];
		/*
		 * A set of the clock may have made it due: the sentinel,
		 * read after @now, tells. Without a set, every deadline up
		 * to @now was reached on the clock as it was at the arms.
		 */
		if (fb->t[s].cos && !checked) {
			checked = true;
			if (cos_was_set(fb)) {
				cos_set(fb);
				continue;
			}
		}
		heap_remove(fb, s);
		fire(fb, s, now);
	}
	tfd_sync(fb, ci, stale);
}

/* Records wait: make hwtimer_fd() readable (and the notifier signal). */
static void keep_ready(struct hwt_fb *fb)
{
	if (fb->ev_head != NONE && fb->armed_at[FB_MONO] != 1)
		tfd_set(fb, FB_MONO, 1);
}

/* ---- eventfd notifier ---- */

/* The notifier's fds, passed by value: nothing else of the context. */
struct notify_arg {
	int ep;
	int efd;
};

/* Data of the notifier's fds in its epoll: clock indexes, then these. */
#define NOTIFY_STOP	FB_NCLOCKS
#define NOTIFY_COS	(FB_NCLOCKS + 1)

static void *notify_main(void *p)
{
	struct notify_arg a = *(struct notify_arg *)p;
	struct epoll_event evs[NOTIFY_COS + 1];
	uint64_t one = 1;
	bool signal;
	int i, n;

	free(p);
	for (;;) {
		n = epoll_wait(a.ep, evs, NOTIFY_COS + 1, -1);
		signal = false;
		for (i = 0; i < n; i++) {
			if (evs[i].data.u32 == NOTIFY_STOP)
				return NULL;
			signal = true;
		}
		/* EAGAIN: the count is at its maximum, readable anyway. */
		if (signal && write(a.efd, &one, sizeof(one)) < 0)
			continue;
	}
}

/* Start the notifier on the current timerfds, signals blocked in it. */
static int notify_start(struct hwt_fb *fb)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct notify_arg *a = malloc(sizeof(*a));
	sigset_t all, old;
	int r = -ENOMEM;

	if (!a)
		return r;
	fb->nep = epoll_create1(EPOLL_CLOEXEC);
	fb->nstop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fb->nep < 0 || fb->nstop < 0)
		goto err;
	for (ev.data.u32 = 0; ev.data.u32 <= NOTIFY_STOP; ev.data.u32++)
		if (epoll_ctl(fb->nep, EPOLL_CTL_ADD, ev.data.u32 < FB_NCLOCKS ?
			      fb->tfd[ev.data.u32] : fb->nstop, &ev))
			goto err;
	/* A set of the clock signals as an expiry does. */
	ev.data.u32 = NOTIFY_COS;
	if (fb->cos_fd >= 0 &&
	    epoll_ctl(fb->nep, EPOLL_CTL_ADD, fb->cos_fd, &ev))
		goto err;
	a->ep = fb->nep;
	a->efd = fb->efd;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&fb->nthr, NULL, notify_main, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r)
		return 0;
err:
	if (!r)
		r = -errno;
	free(a);
	if (fb->nep >= 0)
		close(fb->nep);
	if (fb->nstop >= 0)
		close(fb->nstop);
	fb->nep = -1;
	fb->nstop = -1;
	return r;
}

/*
 * Stop the notifier. In a child of fork() it does not exist (@join false):
 * only the fds inherited from the parent's are closed.
 */
static void notify_stop(struct hwt_fb *fb, bool join)
{
	uint64_t one = 1;

	if (fb->nep < 0)
		return;
	if (join && write(fb->nstop, &one, sizeof(one)) == sizeof(one))
		pthread_join(fb->nthr, NULL);
	close(fb->nep);
	close(fb->nstop);
	fb->nep = -1;
	fb->nstop = -1;
}

/* ---- setup, and fork ---- */

static int fds_open(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int ci;

	h->fd = epoll_create1(EPOLL_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	for (ci = 0; ci < FB_NCLOCKS; ci++) {
		fb->armed_at[ci] = 0;
		fb->tfd[ci] = timerfd_create(fb_clocks[ci],
					     TFD_CLOEXEC | TFD_NONBLOCK);
		if (fb->tfd[ci] < 0)
			return -errno;
		if (epoll_ctl(h->fd, EPOLL_CTL_ADD, fb->tfd[ci], &ev))
			return -errno;
	}
	fb->proc = hwtimer__proc();
	return 0;
}

/*
 * Start the sentinel (see the top), in the epoll fd and the notifier's:
 * a timerfd, new, so that it takes the clock as it is now, set to a time
 * it never reaches. Return: 0 or a negative errno.
 */
static int cos_open(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;
	struct epoll_event ev = { .events = EPOLLIN };
	struct itimerspec its = { 0 };
	int fd, err;

	fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	its.it_value.tv_sec = UINT64_MAX / 1000000000ULL;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			    &its, NULL) ||
	    epoll_ctl(h->fd, EPOLL_CTL_ADD, fd, &ev))
		goto err;
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u32 = NOTIFY_COS;
	if (fb->nep >= 0 && epoll_ctl(fb->nep, EPOLL_CTL_ADD, fd, &ev)) {
		err = errno;
		epoll_ctl(h->fd, EPOLL_CTL_DEL, fd, NULL);
		errno = err;
		goto err;
	}
	fb->cos_fd = fd;
	return 0;

err:
	err = errno;
	close(fd);
	return -err;
}

/*
 * Stop the sentinel: no cancel-on-set timeout is pending. Taken out of
 * the epolls first: a child of fork() may hold it open, which would keep
 * it in them.
 */
static void cos_close(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;

	epoll_ctl(h->fd, EPOLL_CTL_DEL, fb->cos_fd, NULL);
	if (fb->nep >= 0)
		epoll_ctl(fb->nep, EPOLL_CTL_DEL, fb->cos_fd, NULL);
	close(fb->cos_fd);
	fb->cos_fd = -1;
}

/* No cancel-on-set timeout is pending any more: stop the sentinel. */
static void cos_idle(struct hwtimer *h)
{
	if (h->fb->cos_fd >= 0 && !h->fb->cos_n)
		cos_close(h);
}

/*
 * Whether the sentinel @fd that a child of fork() inherited heard of a
 * set of the clock that its parent has not read: it is readable.
 */
static bool cos_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void fds_close(struct hwtimer *h)
{
	unsigned int ci;

	for (ci = 0; ci < FB_NCLOCKS; ci++)
		if (h->fb->tfd[ci] >= 0)
			close(h->fb->tfd[ci]);
	if (h->fd >= 0)
		close(h->fd);
}

/*
 * A child of fork() shares its parent's fds: it opens its own. A set of
 * the clock that the parent has not read yet it takes from the sentinel
 * they share, before it starts a sentinel of its own.
 */
static int fb_forked(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;
	bool set = false;
	unsigned int ci;
	int r;

	notify_stop(fb, false);
	if (fb->cos_fd >= 0) {
		set = cos_readable(fb->cos_fd);
		close(fb->cos_fd);
		fb->cos_fd = -1;
	}
	fds_close(h);
	h->fd = -1;
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		fb->tfd[ci] = -1;
	r = fds_open(h);
	if (!r && fb->efd >= 0)
		r = notify_start(fb);
	if (r)
		return r;
	if (set)
		cos_set(fb);
	return fb->cos_n ? cos_open(h) : 0;
}

/*
 * Every entry starts here, and ends with keep_ready() once it took what
 * it takes. A child of fork() shares the parent's timerfds, which each
 * would set for its own copy of the heaps: the child's first call gives
 * it fds of its own. Then the deadlines that passed are served, and a
 * set of the clock cancels the cancel-on-set timeouts still pending.
 */
static int fb_enter(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;
	unsigned int ci;
	int r;

	if (fb->proc != hwtimer__proc()) {
		r = fb_forked(h);
		if (r)
			return r;
	}
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		serve_due(fb, ci);
	if (cos_was_set(fb))
		cos_set(fb);
	cos_idle(h);
	return 0;
}

int hwtimer__timerfd_init(struct hwtimer *h)
{
	struct hwt_fb *fb = calloc(1, sizeof(*fb));
	unsigned int ci;
	uint64_t tag;
	int r;

	if (!fb)
		return -ENOMEM;
	h->fb = fb;
	h->be = &hwtimer__timerfd;
	h->fd = -1;
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		fb->tfd[ci] = -1;
	h->tick_ns = HWTIMER_TIMERFD_TICK_NS;
	h->features = HWTIMER_FEATURE_PERIODIC | HWTIMER_FEATURE_BOOTTIME |
		      HWTIMER_FEATURE_BATCH | HWTIMER_FEATURE_EVENTFD |
		      HWTIMER_FEATURE_REALTIME | HWTIMER_FEATURE_CANCEL_ON_SET;
	/* What the device would answer with the same limits; no ioctls. */
	memset(&h->api, 0, sizeof(h->api));
	h->api.api = HWTIMER_API;
	h->api.features = h->features;
	h->api.tick_ns = h->tick_ns;
	h->api.max_pending = FB_MAX_LIVE;
	h->api.event_size = sizeof(struct hwtimer_event);
	fb->free_head = NONE;
	fb->ev_head = NONE;
	fb->efd = -1;
	fb->nep = -1;
	fb->nstop = -1;
	fb->cos_fd = -1;
	tag = atomic_fetch_add(&fb_tags, 1) %
	      ((1U << HWTIMER_ID_TAG_BITS) - 1) + 1;
	fb->tag = tag << HWTIMER_ID_TAG_SHIFT;
	r = fds_open(h);
	if (r) {
		fds_close(h);
		free(fb);
		h->fb = NULL;
	}
	return r;
}

/* ---- operations ---- */

/*
 * Before a cancel-on-set arm: a set of the clock before it must cancel
 * only the timeouts armed before it, so the sentinel is read first, or
 * started if none watches yet. Return: 0 or a negative errno.
 */
static int cos_prepare(struct hwtimer *h)
{
	struct hwt_fb *fb = h->fb;

	if (fb->cos_fd < 0)
		return cos_open(h);
	if (cos_was_set(fb))
		cos_set(fb);
	return 0;
}

static int op_arm(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	const unsigned int cos = HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET;
	struct hwt_fb *fb = h->fb;
	struct fb_timer *t;
	uint32_t s, gen;
	uint8_t ci;
	int r;

	if (op->flags & ~cos)
		return -EINVAL;
	/* Cancel on set: of an absolute wall-clock deadline only. */
	if ((op->flags & HWTIMER_ARM_CANCEL_ON_SET) &&
	    (op->flags != cos || op->clock != CLOCK_REALTIME))
		return -EINVAL;
	/* A relative deadline on CLOCK_REALTIME runs on CLOCK_MONOTONIC. */
	if (op->clock == CLOCK_MONOTONIC ||
	    (op->clock == CLOCK_REALTIME && !(op->flags & HWTIMER_ARM_ABS)))
		ci = FB_MONO;
	else if (op->clock == CLOCK_BOOTTIME)
		ci = FB_BOOTTIME;
	else if (op->clock == CLOCK_REALTIME)
		ci = FB_REALTIME;
	else
		return -EINVAL;
	if (op->period_ns && op->period_ns < h->tick_ns)
		return -EINVAL;
	if (fb->live >= FB_MAX_LIVE)
		return -ENOSPC;
	if (op->flags & HWTIMER_ARM_CANCEL_ON_SET) {
		r = cos_prepare(h);
		if (r)
			return r;
	}
	s = slot_alloc(fb);
	if (s == NONE)
		return -ENOMEM;
	t = &fb->t[s];
	gen = t->gen;
	memset(t, 0, sizeof(*t));
	t->gen = gen;
	t->cookie = op->cookie;
	t->period = op->period_ns;
	t->deadline = op->deadline_ns;
	if (!(op->flags & HWTIMER_ARM_ABS))
		t->deadline = add_sat(hwtimer__now(fb_clocks[ci]), op->deadline_ns);
	t->ci = ci;
	t->hidx = NONE;
	t->used = true;
	t->linked = true;
	if (heap_push(fb, s)) {
		slot_free(fb, s);
		return -ENOMEM;
	}
	if (op->flags & HWTIMER_ARM_CANCEL_ON_SET) {
		t->cos = true;
		fb->cos_n++;
	}
	op->id = slot_id(fb, s);
	fb->armed++;
	return 0;
}

/*
 * The timeout @op names, taken off the heap for a cancel or a modify: 1 with
 * *@t and its slot *@s; 0 with op->result FIRED when it already fired (its
 * record stays); -ENOENT when the id matches nothing.
 */
static int take_pending(struct hwt_fb *fb, struct hwtimer_batch_op *op,
			struct fb_timer **t, uint32_t *s)
{
	*t = lookup(fb, op->id, s);
	if (!*t)
		return -ENOENT;
	serve_if_due(fb, *s);
	if ((*t)->fired) {
		op->result = HWTIMER_RESULT_FIRED;
		return 0;
	}
	if ((*t)->hidx != NONE)
		heap_remove(fb, *s);
	return 1;
}

static int op_cancel(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	struct hwt_fb *fb = h->fb;
	struct fb_timer *t;
	uint32_t s;
	int r;

	if (op->flags || op->cookie || op->deadline_ns || op->period_ns ||
	    op->clock)
		return -EINVAL;
	r = take_pending(fb, op, &t, &s);
	if (r <= 0)
		return r;
	unlink_timer(fb, s);
	fb->cancelled++;
	op->result = HWTIMER_RESULT_CANCELLED;
	return 0;
}

static int op_modify(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	struct hwt_fb *fb = h->fb;
	struct fb_timer *t;
	uint32_t s;
	int r;

	if (op->flags & ~HWTIMER_ARM_ABS || op->cookie || op->period_ns ||
	    op->clock)
		return -EINVAL;
	r = take_pending(fb, op, &t, &s);
	if (r <= 0)
		return r;
	t->deadline = op->deadline_ns;
	if (!(op->flags & HWTIMER_ARM_ABS))
		t->deadline = add_sat(hwtimer__now(fb_clocks[t->ci]), op->deadline_ns);
	t->dormant = false;
	if (heap_push(fb, s)) {
		/* Stopped and not armed again: gone, as on the device. */
		unlink_timer(fb, s);
		return -ENOMEM;
	}
	op->result = HWTIMER_RESULT_MODIFIED;
	return 0;
}

static int fb_run(struct hwtimer *h, struct hwtimer_batch_op *ops,
		  unsigned int n)
{
	struct hwtimer_batch_op *op;
	unsigned int i, ci;
	int r = fb_enter(h);

	if (r)
		return r;
	for (i = 0; i < n; i++) {
		op = &ops[i];
		op->result = 0;
		if (op->pad || op->reserved)
			op->status = -EINVAL;
		else if (op->op == HWTIMER_OP_ARM)
			op->status = op_arm(h, op);
		else if (op->op == HWTIMER_OP_CANCEL)
			op->status = op_cancel(h, op);
		else if (op->op == HWTIMER_OP_MODIFY)
			op->status = op_modify(h, op);
		else
			op->status = -EINVAL;
	}
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		tfd_sync(h->fb, ci, false);
	cos_idle(h);
	keep_ready(h->fb);
	return 0;
}

/* ---- records ---- */

/*
 * The record of @t, taken now: a dormant periodic counts the periods that
 * passed since it stopped, and *@next is where it goes on (0: nowhere).
 */
static void fill_record(struct hwt_fb *fb, uint32_t s, struct hwtimer_event *ev,
			uint64_t *next)
{
	struct fb_timer *t = &fb->t[s];
	uint64_t now, k = 0;

	memset(ev, 0, sizeof(*ev));
	ev->id = slot_id(fb, s);
	ev->cookie = t->cookie;
	ev->deadline_ns = t->rec_deadline;
	ev->fire_ns = t->rec_fire;
	ev->overruns = t->rec_overruns;
	ev->clock = fb_clocks[t->ci];
	ev->flags = t->linked && t->period ? 0 : HWTIMER_EVENT_LAST;
	if (t->clock_set)
		ev->flags |= HWTIMER_EVENT_CLOCK_SET | HWTIMER_EVENT_LAST;
	*next = 0;
	if (!t->period || !t->dormant || !t->linked)
		return;
	now = hwtimer__now(fb_clocks[t->ci]);
	if (now > t->rec_deadline)
		k = (now - t->rec_deadline) / t->period;
	ev->deadline_ns += k * t->period;
	ev->overruns += k;
	fb->fired += k;
	if (k)
		ev->fire_ns = now;
	if (ev->deadline_ns + t->period < ev->deadline_ns)
		ev->flags = HWTIMER_EVENT_LAST;
	else
		*next = ev->deadline_ns + t->period;
}

/* The caller has @ev, the record of @s: the timeout goes on or goes. */
static void take_record(struct hwt_fb *fb, uint32_t s, uint64_t next)
{
	struct fb_timer *t = &fb->t[s];

	t->queued = false;
	if (!t->linked) {
		slot_free(fb, s);
		return;
	}
	if (!t->period) {
		unlink_timer(fb, s);
		return;
	}
	t->rec_overruns = 0;
	if (!t->dormant)
		return;
	t->dormant = false;
	t->deadline = next;
	if (!next || heap_push(fb, s))
		unlink_timer(fb, s);
}

static int fb_read(struct hwtimer *h, struct hwtimer_event *evs,
		   unsigned int max)
{
	struct hwt_fb *fb = h->fb;
	unsigned int n = 0, ci;
	uint64_t next;
	uint32_t s;
	int r = fb_enter(h);

	if (r)
		return r;
	while (fb->ev_head != NONE && n < max) {
		s = fb->ev_head;
		fb->ev_head = fb->t[s].next;
		fill_record(fb, s, &evs[n++], &next);
		take_record(fb, s, next);
		fb->queued--;
	}
	fb->read += n;
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		tfd_sync(fb, ci, false);
	cos_idle(h);
	keep_ready(fb);
	return n ? (int)n : -EAGAIN;
}

static int fb_fd(struct hwtimer *h)
{
	fb_enter(h);
	keep_ready(h->fb);
	return h->fd;
}

/* Whether @fd is an eventfd; true when /proc cannot tell. */
static bool is_eventfd(int fd)
{
	char path[32], target[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return true;
	target[n] = 0;
	return !strcmp(target, "anon_inode:[eventfd]");
}

static int fb_set_eventfd(struct hwtimer *h, int efd)
{
	struct hwt_fb *fb = h->fb;
	int dup = -1, r = fb_enter(h);

	if (r)
		return r;
	keep_ready(fb);
	if (efd != -1) {
		dup = fcntl(efd, F_DUPFD_CLOEXEC, 0);
		if (dup < 0)
			return -errno;
		if (!is_eventfd(dup)) {
			close(dup);
			return -EINVAL;
		}
	}
	notify_stop(fb, true);
	if (fb->efd >= 0)
		close(fb->efd);
	fb->efd = dup;
	if (dup < 0)
		return 0;
	r = notify_start(fb);
	if (r) {
		close(dup);
		fb->efd = -1;
	}
	return r;
}

/* The context's own counters; there is no wheel shared with others. */
static int fb_stats(struct hwtimer *h, struct hwtimer_stats_req *st)
{
	struct hwt_fb *fb = h->fb;
	unsigned int ci;
	int r;

	if (st->clock != CLOCK_MONOTONIC && st->clock != CLOCK_BOOTTIME &&
	    st->clock != CLOCK_REALTIME)
		return -EINVAL;
	r = fb_enter(h);
	if (r)
		return r;
	keep_ready(fb);
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		st->ctx_pending += fb->heap[ci].len;
	st->ctx_queued = fb->queued;
	st->ctx_live = fb->live;
	st->ctx_max_pending = FB_MAX_LIVE;
	st->ctx_armed = fb->armed;
	st->ctx_fired = fb->fired;
	st->ctx_cancelled = fb->cancelled;
	st->ctx_read = fb->read;
	st->tick_ns = h->tick_ns;
	return 0;
}

static void fb_close(struct hwtimer *h)
{
	unsigned int ci;

	notify_stop(h->fb, h->fb->proc == hwtimer__proc());
	if (h->fb->efd >= 0)
		close(h->fb->efd);
	if (h->fb->cos_fd >= 0)
		close(h->fb->cos_fd);
	fds_close(h);
	for (ci = 0; ci < FB_NCLOCKS; ci++)
		free(h->fb->heap[ci].slot);
	free(h->fb->t);
	free(h->fb);
}

const struct hwt_backend hwtimer__timerfd = {
	.name = "timerfd",
	.run = fb_run,
	.read = fb_read,
	.fd = fb_fd,
	.set_eventfd = fb_set_eventfd,
	.stats = fb_stats,
	.close = fb_close,
};
