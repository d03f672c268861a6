/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heap_loop.h - the peer an event-loop author measures /dev/hwtimer
 * against: timeouts in a binary min-heap by deadline and one timerfd armed
 * (absolute, CLOCK_MONOTONIC) for the earliest, re-armed only when the
 * earliest changes. hwtimer_ubench and hwtimer_lib_bench both time it.
 */
#ifndef HEAP_LOOP_H
#define HEAP_LOOP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

/**
 * struct heap_timeout - one timeout of the heap peer
 * @deadline: absolute CLOCK_MONOTONIC ns
 * @pos: index in the heap, or -1 when not in it
 */
struct heap_timeout {
	uint64_t deadline;
	int pos;
};

/**
 * struct heap_loop - the event loop's timeouts
 * @h: min-heap of timeouts by deadline
 * @n: timeouts in @h
 * @armed: deadline the timerfd is armed for, 0 when disarmed
 * @fd: the one timerfd
 */
struct heap_loop {
	struct heap_timeout **h;
	unsigned int n;
	uint64_t armed;
	int fd;
};

static inline void heap_set(struct heap_loop *l, unsigned int i,
			    struct heap_timeout *t)
{
	l->h[i] = t;
	t->pos = i;
}

static inline void heap_up(struct heap_loop *l, unsigned int i)
{
	struct heap_timeout *t = l->h[i];

	while (i && l->h[(i - 1) / 2]->deadline > t->deadline) {
		heap_set(l, i, l->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(l, i, t);
}

static inline void heap_down(struct heap_loop *l, unsigned int i)
{
	struct heap_timeout *t = l->h[i];
	unsigned int c;

	while ((c = 2 * i + 1) < l->n) {
		if (c + 1 < l->n && l->h[c + 1]->deadline < l->h[c]->deadline)
			c++;
		if (l->h[c]->deadline >= t->deadline)
			break;
		heap_set(l, i, l->h[c]);
		i = c;
	}
	heap_set(l, i, t);
}

/* Point the timerfd at the heap's earliest deadline, if that changed. */
static inline void heap_sync(struct heap_loop *l)
{
	uint64_t want = l->n ? l->h[0]->deadline : 0;
	struct itimerspec its = {
		.it_value = { .tv_sec = want / 1000000000ULL,
			      .tv_nsec = want % 1000000000ULL },
	};

	if (want == l->armed)
		return;
	if (timerfd_settime(l->fd, want ? TFD_TIMER_ABSTIME : 0, &its, NULL)) {
		perror("timerfd_settime");
		exit(1);
	}
	l->armed = want;
}

static inline void heap_arm(struct heap_loop *l, struct heap_timeout *t,
			    uint64_t deadline)
{
	t->deadline = deadline;
	heap_set(l, l->n++, t);
	heap_up(l, t->pos);
	if (!t->pos)
		heap_sync(l);
}

static inline void heap_cancel(struct heap_loop *l, struct heap_timeout *t)
{
	unsigned int i = t->pos;
	struct heap_timeout *last = l->h[--l->n];

	t->pos = -1;
	if (last != t) {
		heap_set(l, i, last);
		heap_down(l, i);
		heap_up(l, last->pos);
	}
	if (!i)
		heap_sync(l);
}

/* A timerfd as every peer here makes one; -1 and errno on failure. */
static inline int heap_timerfd(void)
{
	return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

/* A loop of room for @cap timeouts and its timerfd; exits on failure. */
static inline void heap_open(struct heap_loop *l, unsigned int cap)
{
	l->h = calloc(cap, sizeof(*l->h));
	l->n = 0;
	l->armed = 0;
	l->fd = heap_timerfd();
	if (!l->h || l->fd < 0) {
		perror("heap_open");
		exit(1);
	}
}

static inline void heap_close(struct heap_loop *l)
{
	close(l->fd);
	free(l->h);
}

#endif /* HEAP_LOOP_H */
