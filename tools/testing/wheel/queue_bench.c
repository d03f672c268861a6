// SPDX-License-Identifier: GPL-2.0
/*
 * queue_bench - instructions per operation of the queue a /dev/hwtimer
 * context keeps its pending timeouts in (chardev/hwtimer_ctx.c: a
 * red-black tree ordered by deadline, its earliest node cached), counted
 * by valgrind's callgrind as wheel_bench.c counts the wheel core (see
 * ../Makefile, "make bench-queue").
 *
 * The tree is the kernel's own: tools/lib/rbtree.c of the kernel source,
 * built as its own translation unit, as lib/rbtree.c is in the kernel, so
 * that rb_insert_color() and rb_erase() stay calls. The queue_* helpers
 * below do what q_add(), q_remove(), q_first() and q_collect() do with
 * the tree, nothing else; they are the functions wheel_bench.sh counts.
 *
 * The workload is wheel_bench.c's, with the same seed, so the same
 * deadlines go into the same entries in the same order:
 *   add, cancel      add 100k entries to an empty queue, remove them all
 *   pair/N           100k add + remove of one entry, N pending
 *   modify/N         100k moves (remove, then add) of a random pending
 *                    entry to a new deadline, N pending
 *   push/N           100k moves of a random pending entry 1 to 64 ticks
 *                    later (a keep-alive), N pending
 *   next/N           100k earliest-entry queries, N pending
 *   advance          100k pending, the clock moved 256 ticks at a time
 *                    until the queue is empty, due entries taken out
 *                    earliest first: per entry handed out
 * for N = 1k, 10k, 100k, 1M.
 */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#include <linux/bits.h>
#include <linux/rbtree.h>
#include <linux/types.h>

#include "bench_workload.h"

/*
 * The functions counted are called as the wheel core's are from
 * wheel_bench.c, across translation units: not inlined, not cloned for
 * this program's one queue, and kept where their answer goes unused.
 */
#define bench_call	__attribute__((__noipa__))

/**
 * struct qent - one timeout as the queue sees it (the part of struct
 * hwt_timer that the queue touches)
 * @node: link in the queue; cleared while not queued
 * @expires: deadline in ns, the queue's key
 */
struct qent {
	struct rb_node node;
	u64 expires;
};

static struct rb_root_cached queue = RB_ROOT_CACHED;
/* MAX_PENDING background entries, then OPS entries the phases move. */
static struct qent *ents;
/* OPS deadlines to add, then the background entries' current ones. */
static u64 *deadline;

/* The order of the queue: q_less() of the chardev. */
static bool less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct qent, node)->expires <
	       rb_entry(b, struct qent, node)->expires;
}

static inline struct qent *first(struct rb_root_cached *root)
{
	struct rb_node *n = rb_first_cached(root);

	return n ? rb_entry(n, struct qent, node) : NULL;
}

static inline bool erase(struct rb_root_cached *root, struct qent *e)
{
	if (RB_EMPTY_NODE(&e->node))
		return false;
	rb_erase_cached(&e->node, root);
	RB_CLEAR_NODE(&e->node);
	return true;
}

/*
 * Queue @e at @expires. Return: whether it is now the earliest, which
 * q_add() learns from rb_add_cached() to know whether to move the
 * queue's wake-up (the tools copy of rb_add_cached() returns nothing).
 */
static bench_call bool queue_add(struct rb_root_cached *root,
				 struct qent *e, u64 expires)
{
	e->expires = expires;
	rb_add_cached(&e->node, root, less);
	return rb_first_cached(root) == &e->node;
}

/* Take @e out of the queue. Return: whether it was queued. */
static bench_call bool queue_remove(struct rb_root_cached *root, struct qent *e)
{
	return erase(root, e);
}

/* The entry with the earliest deadline, or NULL. */
static bench_call struct qent *queue_first(struct rb_root_cached *root)
{
	return first(root);
}

/*
 * Take out and return the earliest entry if it is due at @now, else
 * return NULL: one turn of q_collect()'s loop.
 */
static bench_call struct qent *queue_pop(struct rb_root_cached *root, u64 now)
{
	struct qent *e = first(root);

	if (!e || e->expires > now)
		return NULL;
	erase(root, e);
	return e;
}

static void bench_add_cancel(void)
{
	struct qent *e = ents + MAX_PENDING;
	unsigned int i;

	phase_begin();
	for (i = 0; i < OPS; i++)
		queue_add(&queue, &e[i], deadline[i]);
	phase_end("add", OPS);
	phase_begin();
	for (i = 0; i < OPS; i++)
		queue_remove(&queue, &e[i]);
	phase_end("cancel", OPS);
}

/* A move, as hwtimer_cdev_modify_locked() makes it: out, then in again. */
static void move(struct qent *e, u64 expires)
{
	queue_remove(&queue, e);
	queue_add(&queue, e, expires);
}

static void bench_pending(unsigned int n)
{
	struct qent *e = ents + MAX_PENDING;
	char name[32];
	unsigned int i;

	phase_begin();
	for (i = 0; i < OPS; i++) {
		queue_add(&queue, e, deadline[i]);
		queue_remove(&queue, e);
	}
	snprintf(name, sizeof(name), "pair/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++) {
		struct qent *m = &ents[rand64() % n];

		move(m, deadline[i]);
		deadline[OPS + (m - ents)] = deadline[i];
	}
	snprintf(name, sizeof(name), "modify/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++) {
		u64 *d = &deadline[OPS + rand64() % n];

		*d += (1 + rand64() % PUSH_TICKS) * TICK_NS;
		move(&ents[d - deadline - OPS], *d);
	}
	snprintf(name, sizeof(name), "push/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++)
		queue_first(&queue);
	snprintf(name, sizeof(name), "next/%u", n);
	phase_end(name, OPS);
}

/* Return: how many entries it handed out. */
static unsigned long bench_advance(void)
{
	struct qent *e = ents + MAX_PENDING;
	unsigned long fired = 0;
	u64 t;
	unsigned int i;

	/* A new, empty queue: the pending phases' entries are dropped. */
	queue = RB_ROOT_CACHED;
	for (i = 0; i < OPS; i++)
		queue_add(&queue, &e[i], deadline[i]);
	phase_begin();
	for (t = 0; t <= SPAN_TICKS; t += ADVANCE_STEP)
		while (queue_pop(&queue, t * TICK_NS))
			fired++;
	phase_end("advance", fired);
	return fired;
}

int main(void)
{
	static const unsigned int pending[] = { 1000, 10000, 100000, 1000000, 0 };
	unsigned int i, k, have = 0;

	ents = calloc(MAX_PENDING + OPS, sizeof(*ents));
	deadline = calloc(MAX_PENDING + OPS, sizeof(*deadline));
	if (!ents || !deadline)
		return 1;
	for (i = 0; i < MAX_PENDING + OPS; i++) {
		RB_CLEAR_NODE(&ents[i].node);
		deadline[i] = pick_deadline();
	}

	bench_add_cancel();
	for (k = 0; pending[k]; k++) {
		for (; have < pending[k]; have++)
			queue_add(&queue, &ents[have], deadline[OPS + have]);
		bench_pending(pending[k]);
	}
	/* Every entry added comes out, and nothing else. */
	return bench_advance() == OPS && RB_EMPTY_ROOT(&queue.rb_root) ? 0 : 1;
}
