// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * ring.c - libhwtimer on the device's timer rings.
 *
 * When the device offers HWTIMER_FEATURE_RINGS, a context maps a pair of
 * rings (HWTIMER_IOC_RING_SETUP) and serves one-shot CLOCK_MONOTONIC
 * timeouts from its slots without a system call: an arm, cancel or modify
 * is an entry written into the submission ring; the kernel drains the ring
 * every tick, and is asked to (HWTIMER_IOC_ENTER) only when it says it
 * stopped (NEED_WAKEUP). Other timeouts go through BATCH as before, behind
 * the same calls: CLOCK_BOOTTIME ones, CLOCK_REALTIME ones (which the
 * rings refuse; relative ones too, which the kernel runs and reports on
 * CLOCK_MONOTONIC), arms while every slot is in use, and periodic ones,
 * whose unread expiries the library promises to fold into one record
 * (the completion ring has a record per period).
 *
 * The library owns the slots. A timeout on the rings has an id made of the
 * rings' id tag (bits 63..44), which the kernel hands out at setup and no
 * device id carries, the slot's generation and its index. A slot is
 *
 *	FREE --arm--> ACTIVE --its last record taken--> FREE
 *	ACTIVE --its last record stashed--> STASHED --handed out--> FREE
 *	ACTIVE --cancel--> DRAINING --the kernel's slot is idle--> FREE
 *	ACTIVE --cancel, its ARM taken back before a drain claimed it--> FREE
 *	ACTIVE --cancel in a submit: its ARM made a NOP--> TAKING
 *	TAKING --the barrier: no drain claimed the ARM--> FREE
 *	TAKING --the barrier: a drain may have copied it--> ACTIVE, cancelled
 *
 * and is armed again only once FREE, so every entry that named it before
 * is ahead of the new arm in the ring, which the kernel consumes in order
 * (a taken-back ARM is a NOP there). A timeout cancelled before the next
 * drain, the common fate of a request's timeout, costs its arm's entry
 * and nothing else: no CANCEL entry, no completion.
 *
 * The answers are the library's own and match the device's: cancel and
 * modify of a one-shot whose deadline has passed say FIRED and change
 * nothing (the kernel will fire it, or has), unless a cancel takes its
 * ARM back; otherwise they say CANCELLED or MODIFIED at once. Waiting for
 * the kernel's answer would cost an ENTER per cancel, which BATCH already
 * is. Should the kernel find the one-shot fired before the entry reached
 * it, the library drops that expiry (a cancelled timeout's, or one whose
 * deadline is not the modified one) and, for a modify, arms the slot
 * again for the new deadline. So no expiry comes after CANCELLED, or
 * before the deadline a MODIFIED moved it to.
 *
 * The kernel's counters (HWTIMER_IOC_STATS) are left as the kernel keeps
 * them: what the library did on its own, the take-backs, the expiries it
 * dropped, the arms it made again, is counted apart, in struct
 * hwtimer_lib_stats, each where it happens.
 *
 * Records come from the completion ring, from the library's stash (records
 * taken off the ring to make room when the submission ring was full), and
 * from read() when the completion ring overflowed. Completions of entries
 * are the library's business and never reach the caller.
 */
#ifndef _TIME_BITS
#define _TIME_BITS 64
#define _FILE_OFFSET_BITS 64
#endif
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Most slots of a context's rings: charged to its and the user's limits. */
#define RING_SLOTS	4096U
/*
 * Smallest rings. The submission ring holds twice the library's queue, an
 * arm and a cancel per timeout, and at least what one thread submitting
 * without pause writes in a few ticks, so that the kernel's drain, once a
 * tick on a worker, keeps up without an ENTER: with 2048 entries a thread
 * arming and cancelling 1024 at a time filled it every tick and made an
 * ENTER per 4,000 timeouts, which doubled its cost per timeout.
 */
#define RING_SQ_MIN	8192U
#define RING_CQ_MIN	4096U
/*
 * Ids of ring timeouts, laid out as the device's (HWTIMER_ID_*): the
 * rings' id tag, the slot's generation, the slot's index + 1.
 */
#define RING_IDX_MASK	((1ULL << HWTIMER_ID_INDEX_BITS) - 1)
/* The generation, in place in an id: 1 up to its mask, then 1 again. */
#define RING_GEN_ONE	(1ULL << HWTIMER_ID_GEN_SHIFT)
#define RING_GEN_FIELD	(((1ULL << HWTIMER_ID_GEN_BITS) - 1) << \
			 HWTIMER_ID_GEN_SHIFT)
/* ENTERs a full submission ring gets before an op gives up on it. */
#define RING_FULL_TRIES	64

/* Cancels of a submit whose take-backs share a barrier (tb_resolve()). */
#define RING_TB_BATCH	64

enum { SLOT_FREE, SLOT_ACTIVE, SLOT_DRAINING, SLOT_STASHED, SLOT_TAKING };

/**
 * struct hwt_slot - one slot of the rings, as the library sees it
 * @id: id of the timeout it serves (ACTIVE) or served, whose generation
 *	the next timeout of the slot takes one further
 * @user_data: the caller's, returned as each expiry's cookie
 * @deadline: absolute on CLOCK_MONOTONIC: the deadline, moved by modify
 * @next: next FREE slot
 * @sq_pos: index of the slot's last ARM entry in the submission ring
 * @state: SLOT_*
 * @takeback: the ARM at @sq_pos is the last entry naming the slot, so a
 *	cancel may take it back if no drain claimed it
 * @maybe_nop: a take-back raced a drain's claim: the kernel copied the
 *	ARM or the NOP, and the cancel's completion tells which
 */
struct hwt_slot {
	uint64_t id;
	uint64_t user_data;
	uint64_t deadline;
	uint32_t next;
	uint32_t sq_pos;
	uint8_t state;
	bool takeback;
	bool maybe_nop;
};

/**
 * struct hwt_ring - the rings of a context
 * @setup: the answer of HWTIMER_IOC_RING_SETUP: sizes and offsets
 * @mem: the mapping
 * @sq_head, @sq_tail, @sq_flags, @cq_head, @cq_tail: indices in @mem
 * @sq_claim: the kernel's claim in @mem, NULL if it publishes none
 * @sqes: the submission ring
 * @ev_queued: the kernel's count of records waiting for read()
 * @cqes: the completion ring
 * @slots: every slot
 * @free_head: first FREE slot, or @setup.slots when none is
 * @proc: the process that set the rings up (hwtimer__proc()); a child of
 *	fork() leaves them to it and uses BATCH only
 * @stash: records taken off the completion ring to make room
 * @stash_head: next record of @stash to hand out
 * @stash_len: records in @stash
 * @stash_size: room in @stash
 * @own: the library's own counts (all but the first three fields, which
 *	hwtimer__ring_lib_stats() fills in)
 * @unkicked: entries were written since hwtimer__ring_kick() last made
 *	sure the kernel drains them
 * @retract: the kernel lets the sq tail move back (HWTIMER_RING_F_RETRACT)
 * @takeback: the kernel publishes its claim, so a cancel may take an ARM
 *	back
 * @id_base: the id tag in place in an id
 * @now: ring_now()'s reading for the ops under way, or 0
 * @sq_head_seen: the kernel's sq head as last read: at or behind it
 * @tb_ops: cancels of the submit under way whose slots are TAKING
 * @tb_n: ops in @tb_ops
 * @served_at: when a read that found nothing last had the kernel serve the
 *	expiries due (ENTER), on CLOCK_MONOTONIC; 0 once the fd was found
 *	readable
 */
struct hwt_ring {
	struct hwtimer_ring_setup setup;
	char *mem;
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_flags;
	uint32_t *sq_claim;
	uint32_t *cq_head;
	uint32_t *cq_tail;
	uint32_t *ev_queued;
	struct hwtimer_sqe *sqes;
	struct hwtimer_event *cqes;
	struct hwt_slot *slots;
	uint32_t free_head;
	unsigned int proc;
	struct hwtimer_event *stash;
	unsigned int stash_head;
	unsigned int stash_len;
	unsigned int stash_size;
	struct hwtimer_lib_stats own;
	uint64_t now;
	uint32_t sq_head_seen;
	bool unkicked;
	bool retract;
	bool takeback;
	uint64_t id_base;
	struct hwtimer_batch_op *tb_ops[RING_TB_BATCH];
	uint32_t tb_n;
	uint64_t served_at;
};

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n && p < HWTIMER_RING_MAX_ENTRIES)
		p <<= 1;
	return p;
}

static void slot_free(struct hwt_ring *r, uint32_t i)
{
	r->slots[i].state = SLOT_FREE;
	r->slots[i].next = r->free_head;
	r->free_head = i;
}

static void ring_map(struct hwt_ring *r)
{
	r->sq_head = (uint32_t *)(r->mem + r->setup.sq_head);
	r->sq_tail = (uint32_t *)(r->mem + r->setup.sq_tail);
	r->sq_flags = (uint32_t *)(r->mem + r->setup.sq_flags);
	r->cq_head = (uint32_t *)(r->mem + r->setup.cq_head);
	r->cq_tail = (uint32_t *)(r->mem + r->setup.cq_tail);
	r->ev_queued = (uint32_t *)(r->mem + r->setup.ev_queued);
	r->sq_claim = r->setup.sq_claim ?
		      (uint32_t *)(r->mem + r->setup.sq_claim) : NULL;
	r->sqes = (struct hwtimer_sqe *)(r->mem + r->setup.sqes);
	r->cqes = (struct hwtimer_event *)(r->mem + r->setup.cqes);
	r->retract = r->sq_claim &&
		     (r->setup.features & HWTIMER_RING_F_RETRACT);
	r->takeback = !!r->sq_claim;
	r->id_base = (uint64_t)r->setup.id_tag << HWTIMER_ID_TAG_SHIFT;
}

int hwtimer__ring_init(struct hwtimer *h)
{
	struct hwt_ring *r = calloc(1, sizeof(*r));
	uint32_t sq = pow2_at_least(2 * h->sq_size > RING_SQ_MIN ?
				    2 * h->sq_size : RING_SQ_MIN), i;
	void *m;
	int err;

	if (!r)
		return -ENOMEM;
	r->setup.sq_entries = sq;
	/* At most half the context's cap: BATCH keeps the rest. */
	r->setup.slots = h->api.max_pending / 2 < RING_SLOTS ?
			 (uint32_t)(h->api.max_pending / 2) : RING_SLOTS;
	/*
	 * Room for a completion of every slot and of a full submission ring:
	 * the kernel pairs an arm with its cancel only when the completion
	 * ring has a place for each entry it drains.
	 */
	r->setup.cq_entries = pow2_at_least(r->setup.slots + sq > RING_CQ_MIN ?
					    r->setup.slots + sq : RING_CQ_MIN);
	r->setup.clock = CLOCK_MONOTONIC;
	err = -ENOSPC;
	if (!r->setup.slots)
		goto err_free;
	r->slots = calloc(r->setup.slots, sizeof(*r->slots));
	err = -ENOMEM;
	if (!r->slots)
		goto err_free;
	if (ioctl(h->fd, HWTIMER_IOC_RING_SETUP, &r->setup)) {
		err = -errno;
		goto err_free;
	}
	m = mmap(NULL, r->setup.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 h->fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		goto err_free;
	}
	/*
	 * A child of fork() does not share the library's view of the slots.
	 * Kernels without madvise() fail it: the child then keeps a mapping
	 * it does not use. It leaves errno as it was.
	 */
	err = errno;
	madvise(m, r->setup.map_size, MADV_DONTFORK);
	errno = err;
	r->mem = m;
	ring_map(r);
	r->free_head = r->setup.slots;
	for (i = r->setup.slots; i--;) {
		/* Generation 0, which no timeout gets. */
		r->slots[i].id = r->id_base | (i + 1);
		slot_free(r, i);
	}
	r->proc = hwtimer__proc();
	h->ring = r;
	return 0;

err_free:
	free(r->slots);
	free(r);
	return err;
}

void hwtimer__ring_close(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;

	if (!r)
		return;
	if (r->proc == hwtimer__proc())
		munmap(r->mem, r->setup.map_size);
	free(r->stash);
	free(r->slots);
	free(r);
	h->ring = NULL;
}

/* Whether this process drives the rings (not a child of fork()). */
static bool ring_mine(const struct hwt_ring *r)
{
	return r && r->proc == hwtimer__proc();
}

static noinline __cold int ring_enter(struct hwtimer *h)
{
	struct hwtimer_ring_enter e;
	int n;

	memset(&e, 0, sizeof(e));
	n = ioctl(h->fd, HWTIMER_IOC_ENTER, &e);
	return n < 0 ? -errno : n;
}

/* hwtimer__ring_kick() on rings of this process. */
static inline int ring_kick_mine(struct hwtimer *h, struct hwt_ring *r)
{
	int ret = 0;

	r->now = 0;
	/* Nothing written since the kernel last saw the tail: no wake-up. */
	if (!r->unkicked)
		return 0;
	/* Pairs with the kernel's barrier between NEED_WAKEUP and the tail. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) &
	    HWTIMER_RING_NEED_WAKEUP)
		ret = ring_enter(h);
	if (ret < 0)
		return ret;	/* the next kick tries again */
	r->unkicked = false;
	return 0;
}

int hwtimer__ring_kick(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;

	if (!r)
		return 0;
	if (!ring_mine(r)) {
		r->now = 0;
		return 0;
	}
	return ring_kick_mine(h, r);
}

/* ---- records ---- */

/* Keep @ev, taken off the completion ring, for the caller. */
static int stash_push(struct hwt_ring *r, const struct hwtimer_event *ev)
{
	struct hwtimer_event *n;
	unsigned int size;

	if (r->stash_head == r->stash_len) {
		r->stash_head = 0;
		r->stash_len = 0;
	}
	if (r->stash_len == r->stash_size) {
		size = r->stash_size ? 2 * r->stash_size : 256;
		n = realloc(r->stash, size * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->stash = n;
		r->stash_size = size;
	}
	r->stash[r->stash_len++] = *ev;
	return 0;
}

/*
 * Whether the submission ring is full. The kernel's head is read only when
 * the last one read says it may be: it only moves forward.
 */
static inline bool sq_full(struct hwt_ring *r)
{
	uint32_t tail = *r->sq_tail;

	if (tail - r->sq_head_seen < r->setup.sq_entries)
		return false;
	r->sq_head_seen = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	return tail - r->sq_head_seen >= r->setup.sq_entries;
}

static void slot_arm_again(struct hwtimer *h, uint32_t i);

/*
 * Count the completion @ev, of entry @op of slot @s, that the library
 * answered otherwise: every CANCEL it sent was answered CANCELLED, every
 * ARM 0. A CANCEL of a slot whose take-back raced a drain that finds it
 * idle tells that the drain copied the NOP: the timeout was taken back.
 */
static void count_completion(struct hwt_ring *r, const struct hwt_slot *s,
			     const struct hwtimer_event *ev, uint32_t op)
{
	/* Of the slot's timeout now, not of an earlier one. */
	bool cur = ev->cookie == s->id && s->state != SLOT_FREE;

	if (op == HWTIMER_SQE_ARM && ev->res < 0)
		r->own.refused++;
	if (op != HWTIMER_SQE_CANCEL || ev->res == HWTIMER_RESULT_CANCELLED)
		return;
	if (cur && s->maybe_nop && ev->res == HWTIMER_RESULT_NOT_PENDING)
		r->own.taken_back++;
	else
		r->own.cancel_raced++;
}

/*
 * A completion of an entry: free the slot once the kernel's is idle, and
 * count what the kernel answered otherwise than the library.
 */
static void take_completion(struct hwtimer *h, const struct hwtimer_event *ev)
{
	struct hwt_ring *r = h->ring;
	struct hwt_slot *s = &r->slots[ev->id];
	uint32_t op = (ev->flags & HWTIMER_EVENT_OP_MASK) >>
		      HWTIMER_EVENT_OP_SHIFT;
	bool idle = ev->flags & HWTIMER_EVENT_LAST;

	count_completion(r, s, ev, op);
	if (ev->cookie != s->id || s->state == SLOT_FREE)
		return;		/* of an earlier timeout of the slot */
	if (op == HWTIMER_SQE_ARM)
		s->maybe_nop = false;	/* the kernel copied the ARM */
	if (ev->res < 0 && s->state == SLOT_ACTIVE) {
		/* An arm or a modify the wheel refused: the timeout is gone. */
		r->own.lost++;
		s->state = SLOT_DRAINING;
		idle = idle || (op == HWTIMER_SQE_ARM && ev->res != -EBUSY);
	}
	if (op == HWTIMER_SQE_CANCEL && ev->res == HWTIMER_RESULT_NOT_PENDING)
		idle = true;
	if (idle && s->state == SLOT_DRAINING)
		slot_free(r, ev->id);
}

/* The library drops an expiry the kernel counted (and read() read). */
static bool drop_expiry(struct hwt_ring *r, bool from_read)
{
	r->own.dropped++;
	if (from_read)
		r->own.dropped_read++;
	return false;
}

/*
 * An expiry of slot @ev->id: whether the caller gets it, rewritten to the
 * caller's id and user data. Its last record frees the slot, unless a
 * modify is still to be applied to the slot: then it is armed again. A
 * last record kept in the stash (@stash) leaves the slot STASHED until
 * the caller is handed the record: till then a cancel or modify says
 * FIRED, as the device does while a record waits for read().
 */
static bool take_expiry(struct hwtimer *h, struct hwtimer_event *ev,
			bool from_read, bool stash)
{
	struct hwt_ring *r = h->ring;
	uint32_t i = ev->id;
	struct hwt_slot *s = &r->slots[i];
	bool last = ev->flags & HWTIMER_EVENT_LAST;

	if (s->state == SLOT_DRAINING) {
		if (last)
			slot_free(r, i);
		return drop_expiry(r, from_read);
	}
	if (s->state != SLOT_ACTIVE)
		return drop_expiry(r, from_read);
	if (ev->deadline_ns != s->deadline &&
	    !(ev->deadline_ns == 0 && s->deadline <= ev->fire_ns)) {
		/*
		 * Fired before a modify reached the kernel: arm anew. A
		 * deadline of 0 is one before the host's clock began, in a
		 * time namespace ahead of it: the record of the arm at hand
		 * if that was served after the slot's deadline.
		 */
		if (last)
			slot_arm_again(h, i);
		return drop_expiry(r, from_read);
	}
	/* Taken for the caller when handed out, if from the stash. */
	if (!from_read && !stash)
		r->own.ring_read++;
	ev->id = s->id;
	ev->cookie = s->user_data;
	ev->flags &= ~HWTIMER_EVENT_RING;
	if (last && stash)
		s->state = SLOT_STASHED;
	else if (last)
		slot_free(r, i);
	return true;
}

/*
 * Whether record @ev goes to the caller; @from_read: read() gave it;
 * @stash: it goes to the stash.
 */
static bool ring_take(struct hwtimer *h, struct hwtimer_event *ev,
		      bool from_read, bool stash)
{
	struct hwt_ring *r = h->ring;

	if (!r || !(ev->flags & HWTIMER_EVENT_RING))
		return true;
	if (ev->id >= r->setup.slots)
		return false;
	if (ev->flags & HWTIMER_EVENT_SQE) {
		if (ring_mine(r))
			take_completion(h, ev);
		return false;
	}
	return take_expiry(h, ev, from_read, stash);
}

bool hwtimer__ring_read_needed(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;

	return !ring_mine(r) || __atomic_load_n(r->ev_queued, __ATOMIC_RELAXED);
}

bool hwtimer__ring_filter(struct hwtimer *h, struct hwtimer_event *ev)
{
	return ring_take(h, ev, true, false);
}

/* Index of the ACTIVE or STASHED slot of ring id @id, or NO_SLOT. */
#define NO_SLOT		UINT32_MAX
static inline uint32_t lookup_idx(const struct hwt_ring *r, uint64_t id)
{
	uint64_t idx = (id & RING_IDX_MASK) - 1;

	if (idx >= r->setup.slots ||
	    (r->slots[idx].state != SLOT_ACTIVE &&
	     r->slots[idx].state != SLOT_STASHED) ||
	    r->slots[idx].id != id)
		return NO_SLOT;
	return idx;
}

/* The ACTIVE or STASHED slot of ring id @id, or NULL. */
static struct hwt_slot *lookup(struct hwt_ring *r, uint64_t id)
{
	uint32_t i = lookup_idx(r, id);

	return i == NO_SLOT ? NULL : &r->slots[i];
}

/*
 * The caller is handed record @ev from the stash: the slot of a last
 * record is FREE now.
 */
static void stash_handed(struct hwt_ring *r, const struct hwtimer_event *ev)
{
	struct hwt_slot *s = lookup(r, ev->id);

	if (s && s->state == SLOT_STASHED && (ev->flags & HWTIMER_EVENT_LAST))
		slot_free(r, s - r->slots);
}

/*
 * Take record @ev off the completion ring, keeping it in the stash if it
 * is the caller's. Return: 0, or -ENOMEM when the stash could not grow
 * (the record is lost, its slot FREE).
 */
static int stash_take(struct hwtimer *h, struct hwtimer_event *ev)
{
	struct hwt_ring *r = h->ring;

	if (!ring_take(h, ev, false, true))
		return 0;
	if (!stash_push(r, ev))
		return 0;
	stash_handed(r, ev);
	r->own.dropped++;
	return -ENOMEM;
}

/* The next record off the completion ring; false when it is empty. */
static bool cq_pop(struct hwt_ring *r, struct hwtimer_event *ev)
{
	uint32_t head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return false;
	*ev = r->cqes[head & (r->setup.cq_entries - 1)];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/* The flags of a cancel's completion that found the slot armed. */
#define CQE_CANCELLED	(HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE | \
			 HWTIMER_EVENT_LAST | \
			 (HWTIMER_SQE_CANCEL << HWTIMER_EVENT_OP_SHIFT))

/*
 * Take the completions at the head of the completion ring that free the
 * slot of a timeout the library cancelled, the common record while a
 * thread arms and cancels: read in place, the head stored once. Stops at
 * any other record, which take_completion() and take_expiry() handle.
 */
static void cq_take_cancels(struct hwt_ring *r)
{
	uint32_t head = *r->cq_head, mask = r->setup.cq_entries - 1;
	uint32_t tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
	const struct hwtimer_event *ev;
	struct hwt_slot *s;

	for (; head != tail; head++) {
		ev = &r->cqes[head & mask];
		if (ev->flags != CQE_CANCELLED ||
		    ev->res != HWTIMER_RESULT_CANCELLED ||
		    ev->id >= r->setup.slots)
			break;
		s = &r->slots[ev->id];
		if (s->state != SLOT_DRAINING || s->id != ev->cookie)
			break;
		slot_free(r, ev->id);
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
}

/* Take up to @max records off the completion ring into @evs. */
static unsigned int cq_read(struct hwtimer *h, struct hwtimer_event *evs,
			    unsigned int max)
{
	struct hwt_ring *r = h->ring;
	unsigned int n = 0;

	while (n < max) {
		cq_take_cancels(r);
		if (!cq_pop(r, &evs[n]))
			break;
		if (ring_take(h, &evs[n], false, false))
			n++;
	}
	return n;
}

/*
 * Nothing to take: expiries may be due that the kernel leaves to the
 * context's own calls, as it does past what a queue's wake-up serves into
 * the completion ring in a tick. Have it serve them (ENTER), at most once
 * a tick while the fd has not been found readable, so that a caller
 * polling its empty rings makes no system call per look, and one woken
 * with expiries due gets them at once.
 */
static unsigned int serve_due(struct hwtimer *h, struct hwtimer_event *evs,
			      unsigned int max)
{
	struct hwt_ring *r = h->ring;
	uint64_t now = hwtimer__now(CLOCK_MONOTONIC);

	if (r->served_at && now - r->served_at < h->tick_ns)
		return 0;
	r->served_at = now;
	if (ring_enter(h) < 0)
		return 0;
	return cq_read(h, evs, max);
}

int hwtimer__ring_read(struct hwtimer *h, struct hwtimer_event *evs,
		       unsigned int max)
{
	struct hwt_ring *r = h->ring;
	unsigned int n = 0;

	while (n < max && r->stash_head < r->stash_len) {
		evs[n] = r->stash[r->stash_head++];
		r->own.ring_read++;
		stash_handed(r, &evs[n++]);
	}
	if (ring_mine(r)) {
		n += cq_read(h, evs + n, max - n);
		if (!n && max && !hwtimer__ring_read_needed(h))
			n = serve_due(h, evs, max);
	}
	/* Taking records may have armed slots again. */
	if (r->unkicked)
		hwtimer__ring_kick(h);
	return n;
}

void hwtimer__ring_readable(struct hwtimer *h)
{
	if (h->ring)
		h->ring->served_at = 0;
}

static void tb_resolve(struct hwtimer *h);

/*
 * Make room in a full submission ring: ENTER, and if the kernel cannot
 * consume for lack of room in the completion ring, take the records off
 * it (completions handled, expiries stashed) and ENTER again.
 */
static noinline __cold int sq_make_room(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;
	struct hwtimer_event ev;
	int tries, ret;

	/* Records may name TAKING slots: settle them first. */
	tb_resolve(h);

	for (tries = 0; sq_full(r) && tries < RING_FULL_TRIES; tries++) {
		ret = ring_enter(h);
		if (ret < 0 && ret != -EINTR)
			return ret;
		while (sq_full(r) && cq_pop(r, &ev)) {
			if (stash_take(h, &ev))
				return -ENOMEM;
		}
	}
	return sq_full(r) ? -EAGAIN : 0;
}

/* Take every record off the completion ring: expiries to the stash. */
static void cq_take_all(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;
	struct hwtimer_event ev;

	for (;;) {
		cq_take_cancels(r);
		if (!cq_pop(r, &ev) || stash_take(h, &ev))
			return;
	}
}

/*
 * No slot is FREE: take the completions waiting, which free the slots of
 * the timeouts cancelled meanwhile; only if none came free, have the
 * kernel drain what was submitted and take them again. All of them, so
 * that the next arms find free slots without a system call.
 */
static void slots_refill(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;

	/* Taken back, they are FREE; records may name them. */
	tb_resolve(h);
	if (r->free_head != r->setup.slots)
		return;
	cq_take_all(h);
	if (r->free_head != r->setup.slots)
		return;
	ring_enter(h);
	cq_take_all(h);
}

/*
 * The per-timeout path (below, to ring_cancel_modify()) is
 * __always_inline: left to gcc, slot_arm(), take_back() and
 * ring_cancel_modify() stay out of line, and an arm and a cancel take
 * 14-17% more instructions (make ring-insns: 286 against 334 per timeout
 * through a 1024-entry submit, 168 against 187 one at a time).
 */

/* Fill entry @e of the submission ring, in place. */
static __always_inline void sqe_fill(struct hwtimer_sqe *e, uint32_t op,
				     uint32_t slot, uint64_t deadline,
				     uint64_t cookie)
{
	e->op = op;
	e->flags = 0;
	e->slot = slot;
	e->resv = 0;
	e->deadline_ns = deadline;
	e->period_ns = 0;
	e->cookie = cookie;
	e->reserved = 0;
}

/*
 * Write an entry, in place, into a submission ring with room for it; the
 * caller kicks the kernel once its ops are in.
 */
static inline uint32_t sq_write(struct hwt_ring *r, uint32_t op,
				uint32_t slot, uint64_t deadline,
				uint64_t cookie)
{
	uint32_t tail = *r->sq_tail;

	sqe_fill(&r->sqes[tail & (r->setup.sq_entries - 1)], op, slot,
		 deadline, cookie);
	/* The entry is written before the kernel can see the new tail. */
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	r->unkicked = true;
	return tail;
}

/*
 * sq_write(), making room first in a full ring.
 * Return: 0, or a negative errno when the ring stayed full.
 */
static inline int sq_push(struct hwtimer *h, uint32_t op, uint32_t slot,
			  uint64_t deadline, uint64_t cookie)
{
	int ret;

	if (sq_full(h->ring)) {
		ret = sq_make_room(h);
		if (ret)
			return ret;
	}
	sq_write(h->ring, op, slot, deadline, cookie);
	return 0;
}

/* Arm slot @i again for the deadline a modify gave it. */
static void slot_arm_again(struct hwtimer *h, uint32_t i)
{
	struct hwt_slot *s = &h->ring->slots[i];

	/* A child of fork() has no rings: the parent re-arms its own. */
	s->takeback = false;
	if (ring_mine(h->ring) &&
	    !sq_push(h, HWTIMER_SQE_ARM, i, s->deadline, s->id)) {
		/* The caller armed once; the kernel counts this arm too. */
		h->ring->own.rearmed++;
		return;
	}
	/* The kernel's slot is idle (its last record came): the timeout is gone. */
	h->ring->own.lost++;
	slot_free(h->ring, i);
}

/* ---- operations ---- */

/*
 * CLOCK_MONOTONIC now, read once for the ops of one call (a submit, or a
 * single op): hwtimer__ring_kick(), which ends each, forgets it. Relative
 * deadlines count from the first op that needs the clock, so from no
 * later than the op's own turn: never early.
 */
static noinline uint64_t ring_now_read(struct hwt_ring *r)
{
	r->now = hwtimer__now(CLOCK_MONOTONIC);
	return r->now;
}

static inline uint64_t ring_now(struct hwt_ring *r)
{
	return r->now ? r->now : ring_now_read(r);
}

/* Absolute deadline on CLOCK_MONOTONIC of @deadline with @flags, saturated. */
static inline uint64_t abs_of(struct hwt_ring *r, uint64_t deadline,
			      unsigned int flags)
{
	uint64_t now;

	if (flags & HWTIMER_ARM_ABS)
		return deadline;
	now = ring_now(r);
	return deadline > UINT64_MAX - now ? UINT64_MAX : now + deadline;
}

/*
 * Take the first FREE slot, which the caller found there, off the list
 * for a timeout at absolute @deadline: its next id, its data. It is ACTIVE
 * once slot_armed() is told where its ARM went.
 */
static __always_inline struct hwt_slot *slot_take(struct hwt_ring *r,
						  uint64_t deadline,
						  uint64_t user_data)
{
	struct hwt_slot *s = &r->slots[r->free_head];
	uint64_t id = s->id + RING_GEN_ONE;

	/* The generation wrapped: take its carry back out of the tag. */
	if (!(id & RING_GEN_FIELD))
		id += RING_GEN_ONE - (1ULL << HWTIMER_ID_TAG_SHIFT);
	s->id = id;
	s->user_data = user_data;
	s->deadline = deadline;
	r->free_head = s->next;
	return s;
}

/* Slot @s's ARM is at ring index @pos: it is ACTIVE. */
static __always_inline void slot_armed(struct hwt_ring *r, struct hwt_slot *s,
				       uint32_t pos)
{
	s->sq_pos = pos;
	s->state = SLOT_ACTIVE;
	s->takeback = r->takeback;
	s->maybe_nop = false;
}

/*
 * Serve a one-shot at @deadline with @flags from the first FREE slot,
 * which the caller found there: write its ARM. Return: the slot, ACTIVE,
 * or NULL if the submission ring stayed full (the slot stays FREE).
 */
static __always_inline struct hwt_slot *slot_arm(struct hwtimer *h,
						 struct hwt_ring *r,
						 uint64_t deadline,
						 unsigned int flags,
						 uint64_t user_data)
{
	/* Off the list first: making room in the ring may free slots. */
	struct hwt_slot *s = slot_take(r, abs_of(r, deadline, flags),
				       user_data);
	uint32_t i = s - r->slots;

	if (sq_full(r) && sq_make_room(h)) {
		slot_free(r, i);
		return NULL;
	}
	slot_armed(r, s, sq_write(r, HWTIMER_SQE_ARM, i, s->deadline, s->id));
	return s;
}

static __always_inline bool ring_arm(struct hwtimer *h,
				     struct hwtimer_batch_op *op)
{
	struct hwt_ring *r = h->ring;
	struct hwt_slot *s;

	if (op->clock != CLOCK_MONOTONIC || op->period_ns ||
	    (op->flags & ~HWTIMER_ARM_ABS))
		return false;	/* BATCH answers, errors included */
	if (r->free_head == r->setup.slots) {
		slots_refill(h);
		if (r->free_head == r->setup.slots)
			return false;	/* all in use: BATCH takes it */
	}
	s = slot_arm(h, r, op->deadline_ns, op->flags, op->cookie);
	if (!s)
		return false;
	op->id = s->id;
	op->status = 0;
	op->result = 0;
	return true;
}

/*
 * Whether ring index @pos is at or past claim @claim: no drain that made
 * it has copied the entry. Free-running indices, so compared by their
 * difference.
 */
static inline bool not_past(uint32_t claim, uint32_t pos)
{
	return (int32_t)(claim - pos) <= 0;
}

/*
 * Where the sq tail may move back to from @to: below the NOPs that end
 * the ring and that no drain had claimed by @claim. Each NOP is passed
 * over here at most until it is retracted or claimed.
 */
static inline uint32_t retract_to(const struct hwt_ring *r, uint32_t claim,
				  uint32_t to)
{
	uint32_t mask = r->setup.sq_entries - 1;

	while (not_past(claim, to - 1) &&
	       r->sqes[(to - 1) & mask].op == HWTIMER_SQE_NOP)
		to--;
	return to;
}

/*
 * Whether the ARM of ACTIVE slot @s may be taken back: the rings publish
 * a claim, and no drain had claimed the ARM by the claim read now. Only
 * then is its place sure to hold it.
 */
static __always_inline bool takeback_open(const struct hwt_ring *r,
					  const struct hwt_slot *s)
{
	return s->takeback &&
	       not_past(__atomic_load_n(r->sq_claim, __ATOMIC_RELAXED),
			s->sq_pos);
}

/* Rewrite the ARM of slot @s, which takeback_open() allowed, to a NOP. */
static __always_inline void arm_to_nop(struct hwt_ring *r,
				       const struct hwt_slot *s)
{
	__atomic_store_n(&r->sqes[s->sq_pos & (r->setup.sq_entries - 1)].op,
			 HWTIMER_SQE_NOP, __ATOMIC_RELAXED);
}

/*
 * After ARMs were rewritten to NOPs: the full barrier, then the claim
 * again (pairs with the kernel's barrier between its claim and its copy).
 * An entry the claim returned is not past was not and will not be copied
 * as it was; one it is past, a drain copied either way.
 *
 * When the kernel allows it and a NOP ends the ring (@end), the NOPs that
 * end it are retracted in the same step: the tail moves back before the
 * barrier, and the same look at the claim tells whether a drain may still
 * consume them (the tail is put back) or none will (their places are free
 * again), so a timeout armed and cancelled between two drains leaves
 * nothing behind.
 * Return: the claim read after the barrier.
 */
static __always_inline uint32_t nops_settle(struct hwt_ring *r, bool end)
{
	uint32_t claim = __atomic_load_n(r->sq_claim, __ATOMIC_RELAXED);
	uint32_t tail = *r->sq_tail, to = tail;

	if (r->retract && end)
		to = retract_to(r, claim, tail);
	if (to != tail)
		__atomic_store_n(r->sq_tail, to, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	claim = __atomic_load_n(r->sq_claim, __ATOMIC_RELAXED);
	if (to != tail && !not_past(claim, to))
		/* A drain may consume them, as NOPs: they stay. */
		__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
	return claim;
}

/*
 * Slot @i, whose ARM is a NOP now, after nops_settle() returned @claim:
 * free if no drain claimed the ARM (the kernel counts neither its arm
 * nor its cancel: the caller armed and cancelled); else it stays with
 * the drain's copy unknown, which the caller's CANCEL settles.
 * Return: whether the ARM was taken back.
 */
static __always_inline bool takeback_done(struct hwt_ring *r, uint32_t i,
					  uint32_t claim)
{
	struct hwt_slot *s = &r->slots[i];

	if (!not_past(claim, s->sq_pos)) {
		s->maybe_nop = true;
		return false;
	}
	r->own.taken_back++;
	slot_free(r, i);
	return true;
}

/*
 * Cancel ACTIVE slot @i by taking its ARM back, if no drain has claimed
 * it: the slot is then free at once, and neither the kernel nor the
 * completion ring hears of the timeout.
 * Return: whether the ARM was taken back.
 */
static __always_inline bool take_back(struct hwt_ring *r, uint32_t i)
{
	if (!takeback_open(r, &r->slots[i]))
		return false;
	arm_to_nop(r, &r->slots[i]);
	return takeback_done(r, i, nops_settle(r, r->slots[i].sq_pos ==
						   *r->sq_tail - 1));
}

/*
 * Make room in the full submission ring for an entry of ACTIVE slot @s.
 * Making room takes records, and the timeout's own expiry may be one.
 * Return: 0 if @s is still ACTIVE; HWTIMER_RESULT_FIRED if its last record
 * came (it waits in the stash); -ENOENT if the kernel refused the
 * timeout meanwhile (it is lost); a negative errno when the ring stayed
 * full.
 */
static noinline __cold int room_for(struct hwtimer *h, struct hwt_slot *s)
{
	int ret = sq_make_room(h);

	if (ret)
		return ret;
	if (s->state == SLOT_STASHED)
		return HWTIMER_RESULT_FIRED;
	return s->state == SLOT_ACTIVE ? 0 : -ENOENT;
}

/*
 * Cancel (@cancel) or modify to @deadline with @flags the ACTIVE slot @s
 * whose ARM was not taken back: through an entry, unless it is due.
 * Return: as slot_cancel_modify().
 */
static __always_inline int slot_send(struct hwtimer *h, struct hwt_ring *r,
				     uint32_t i, bool cancel,
				     uint64_t deadline, unsigned int flags)
{
	struct hwt_slot *s = &r->slots[i];
	int ret;

	/*
	 * Due: the kernel fires it, if it has not yet; unless a take-back
	 * raced the drain, which may have copied the NOP: only the CANCEL's
	 * completion tells, so it must be sent.
	 */
	if (!s->maybe_nop && ring_now(r) >= s->deadline)
		return HWTIMER_RESULT_FIRED;
	if (sq_full(r)) {
		ret = room_for(h, s);
		if (ret)
			return ret;
	}
	deadline = cancel ? 0 : abs_of(r, deadline, flags);
	sq_write(r, cancel ? HWTIMER_SQE_CANCEL : HWTIMER_SQE_MODIFY, i,
		 deadline, s->id);
	s->takeback = false;
	if (cancel) {
		s->state = SLOT_DRAINING;
		return HWTIMER_RESULT_CANCELLED;
	}
	s->deadline = deadline;
	return HWTIMER_RESULT_MODIFIED;
}

/*
 * Cancel (@cancel) or modify to @deadline with @flags the ACTIVE or
 * STASHED slot @i.
 * Return: HWTIMER_RESULT_*, or a negative errno when the submission ring
 * stayed full.
 */
static __always_inline int slot_cancel_modify(struct hwtimer *h,
					      struct hwt_ring *r, uint32_t i,
					      bool cancel, uint64_t deadline,
					      unsigned int flags)
{
	/* Its last record waits in the stash. */
	if (r->slots[i].state == SLOT_STASHED)
		return HWTIMER_RESULT_FIRED;
	/* No drain saw the arm: it never fires, whatever its deadline. */
	if (cancel && take_back(r, i))
		return HWTIMER_RESULT_CANCELLED;
	return slot_send(h, r, i, cancel, deadline, flags);
}

/*
 * A cancel @op of ACTIVE slot @i in a submit: make its ARM a NOP, if it
 * may be taken back, and leave the barrier and the verdict to
 * tb_resolve(), once for the submit's cancels, which answer CANCELLED
 * either way (but for a full submission ring, which tb_resolve() writes
 * back). Until then the slot is TAKING: no op finds it, no record comes.
 * Return: whether @op was answered so.
 */
static __always_inline bool tb_defer(struct hwtimer *h, struct hwt_ring *r,
				     uint32_t i, struct hwtimer_batch_op *op)
{
	struct hwt_slot *s = &r->slots[i];

	if (s->state != SLOT_ACTIVE)
		return false;
	/* First: settling may write entries, even have the ring drained. */
	if (r->tb_n == RING_TB_BATCH)
		tb_resolve(h);
	if (!takeback_open(r, s))
		return false;
	arm_to_nop(r, s);
	s->state = SLOT_TAKING;
	r->tb_ops[r->tb_n++] = op;
	op->status = 0;
	op->result = HWTIMER_RESULT_CANCELLED;
	return true;
}

/*
 * Cancel or modify of ring id @op->id; in a submit (@batch), a cancel's
 * take-back waits for tb_resolve().
 */
static __always_inline void ring_cancel_modify(struct hwtimer *h,
					       struct hwtimer_batch_op *op,
					       bool batch)
{
	struct hwt_ring *r = h->ring;
	uint32_t i = lookup_idx(r, op->id);
	bool cancel = op->op == HWTIMER_OP_CANCEL;
	int ret = -ENOENT;

	if (i != NO_SLOT && batch && cancel && tb_defer(h, r, i, op))
		return;
	if (i != NO_SLOT)
		ret = slot_cancel_modify(h, r, i, cancel, op->deadline_ns,
					 op->flags);
	op->status = ret < 0 ? ret : 0;
	op->result = ret < 0 ? 0 : ret;
}

/*
 * Settle the take-backs tb_defer() began: one barrier for all. A slot
 * whose ARM no drain claimed is free; the others are ACTIVE again and
 * their cancel goes on as any other, through a CANCEL.
 */
static void tb_resolve(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;
	uint32_t n = r->tb_n, mask = r->setup.sq_entries - 1, k, i, claim;

	if (!n)
		return;
	r->tb_n = 0;
	claim = nops_settle(r, r->sqes[(*r->sq_tail - 1) & mask].op ==
			       HWTIMER_SQE_NOP);
	for (k = 0; k < n; k++) {
		i = (r->tb_ops[k]->id & RING_IDX_MASK) - 1;
		r->slots[i].state = SLOT_ACTIVE;
		if (takeback_done(r, i, claim))
			r->tb_ops[k] = NULL;
	}
	for (k = 0; k < n; k++)
		if (r->tb_ops[k])
			ring_cancel_modify(h, r->tb_ops[k], false);
}

/*
 * Whether @id is an id of rings @r: HWT_RING_PASS if not (a device id,
 * or none), -ENOENT in a child of fork(), whose rings are its parent's,
 * else 0.
 */
static inline int ring_id_check(const struct hwt_ring *r, uint64_t id)
{
	if (id >> HWTIMER_ID_TAG_SHIFT != r->setup.id_tag)
		return HWT_RING_PASS;
	return ring_mine(r) ? 0 : -ENOENT;
}

/*
 * hwtimer__ring_op() for rings @r, @mine when this process drives them;
 * @batch: in a submit, which calls tb_resolve() before it returns.
 */
static __always_inline bool ring_op(struct hwtimer *h, struct hwt_ring *r,
				    bool mine, struct hwtimer_batch_op *op,
				    bool batch)
{
	if (op->op == HWTIMER_OP_ARM)
		return mine && ring_arm(h, op);
	if (op->op != HWTIMER_OP_CANCEL && op->op != HWTIMER_OP_MODIFY)
		return false;
	if (op->id >> HWTIMER_ID_TAG_SHIFT != r->setup.id_tag)
		return false;	/* BATCH answers */
	if (!mine) {
		/* A child of fork(): the rings are its parent's. */
		op->status = -ENOENT;
		op->result = 0;
		return true;
	}
	ring_cancel_modify(h, op, batch);
	return true;
}

bool hwtimer__ring_op(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	struct hwt_ring *r = h->ring;

	/* @op is the library's own: only where it goes is decided here. */
	return r && ring_op(h, r, ring_mine(r), op, false);
}

unsigned int hwtimer__ring_run(struct hwtimer *h,
			       struct hwtimer_batch_op *ops, unsigned int n)
{
	struct hwt_ring *r = h->ring;
	bool mine = ring_mine(r);
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ring_op(h, r, mine, &ops[i], true))
			break;
	tb_resolve(h);
	return i;
}

/* hwtimer__ring_arm() where its fast path does not serve the arm. */
static noinline int ring_arm_slow(struct hwtimer *h, int clock,
				  uint64_t deadline_ns, uint64_t period_ns,
				  unsigned int flags, uint64_t user_data,
				  uint64_t *id)
{
	struct hwt_ring *r = h->ring;
	struct hwt_slot *s;
	int ret;

	/* No FREE slot at hand: the long way takes completions, or BATCH. */
	if (!ring_mine(r) || clock != CLOCK_MONOTONIC || period_ns ||
	    (flags & ~HWTIMER_ARM_ABS) || r->free_head == r->setup.slots)
		goto general;
	s = slot_arm(h, r, deadline_ns, flags, user_data);
	if (!s) {
		r->now = 0;
		goto general;
	}
	ret = ring_kick_mine(h, r);
	if (!ret && id)
		*id = s->id;
	return ret;
general:
	return hwtimer__arm_op(h, clock, deadline_ns, period_ns, flags,
			       user_data, id);
}

/* The fast path's arm of slot @s is written, and the kernel asks for ENTER. */
static noinline __cold int ring_arm_enter(struct hwtimer *h,
					  const struct hwt_slot *s,
					  uint64_t *id)
{
	int ret;

	h->ring->unkicked = true;
	ret = ring_kick_mine(h, h->ring);
	if (!ret && id)
		*id = s->id;
	return ret;
}

/*
 * The common arm, an absolute one-shot on CLOCK_MONOTONIC with a FREE slot
 * and room in the submission ring, takes no clock read and makes no call:
 * slot_arm() and ring_kick_mine() written out for that case alone. Every
 * other arm goes on to ring_arm_slow() with a tail call.
 */
int hwtimer__ring_arm(struct hwtimer *h, int clock, uint64_t deadline_ns,
		      uint64_t period_ns, unsigned int flags,
		      uint64_t user_data, uint64_t *id)
{
	struct hwt_ring *r = h->ring;
	struct hwt_slot *s;
	uint32_t i, tail;

	if (hwtimer__fork_unwatched || r->proc != hwtimer__fork_gen ||
	    clock != CLOCK_MONOTONIC || period_ns ||
	    flags != HWTIMER_ARM_ABS || r->free_head == r->setup.slots)
		goto slow;
	tail = *r->sq_tail;
	/* Full as far as the last head read tells: sq_full() reads it. */
	if (tail - r->sq_head_seen >= r->setup.sq_entries)
		goto slow;
	i = r->free_head;
	s = slot_take(r, deadline_ns, user_data);
	sqe_fill(&r->sqes[tail & (r->setup.sq_entries - 1)], HWTIMER_SQE_ARM,
		 i, deadline_ns, s->id);
	/* The entry is written before the kernel can see the new tail. */
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	slot_armed(r, s, tail);
	/* As ring_kick_mine(): pairs with the kernel's barrier. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) &
	    HWTIMER_RING_NEED_WAKEUP)
		return ring_arm_enter(h, s, id);
	r->unkicked = false;
	if (id)
		*id = s->id;
	return 0;
slow:
	return ring_arm_slow(h, clock, deadline_ns, period_ns, flags,
			     user_data, id);
}

/* Outcome @ret of an op of a single call, kicked: the kick's error wins. */
static inline int ring_kick_after(struct hwtimer *h, struct hwt_ring *r,
				  int ret)
{
	int kick = ring_kick_mine(h, r);

	return ret < 0 || !kick ? ret : kick;
}

/* hwtimer__ring_cancel() where its fast path does not serve the cancel. */
static noinline int ring_cancel_slow(struct hwtimer *h, uint64_t id)
{
	struct hwt_ring *r = h->ring;
	int ret;
	uint32_t i;

	ret = ring_id_check(r, id);
	if (ret == HWT_RING_PASS)
		return hwtimer__cancel_op(h, id);
	if (ret)
		return ret;
	i = lookup_idx(r, id);
	if (i == NO_SLOT)
		return -ENOENT;
	return ring_kick_after(h, r, slot_cancel_modify(h, r, i, true, 0, 0));
}

/* The fast path's cancel of ACTIVE slot @i did not take its ARM back. */
static noinline int ring_cancel_send(struct hwtimer *h, uint32_t i)
{
	return ring_kick_after(h, h->ring,
			       slot_send(h, h->ring, i, true, 0, 0));
}

/*
 * The common cancel, of an ACTIVE slot of this process's rings with every
 * entry kicked, makes no call when it takes the ARM back: slot_cancel_modify()
 * and ring_kick_mine() written out for that case. Every other cancel goes
 * on with a tail call.
 */
int hwtimer__ring_cancel(struct hwtimer *h, uint64_t id)
{
	struct hwt_ring *r = h->ring;
	uint64_t i = (id & RING_IDX_MASK) - 1;

	/* A slot's id carries the tag: equal ids need no look at it. */
	if (hwtimer__fork_unwatched || r->proc != hwtimer__fork_gen ||
	    i >= r->setup.slots || r->slots[i].id != id ||
	    r->slots[i].state != SLOT_ACTIVE || r->unkicked)
		return ring_cancel_slow(h, id);
	if (take_back(r, i))
		return HWTIMER_RESULT_CANCELLED;
	return ring_cancel_send(h, i);
}

void hwtimer__ring_lib_stats(struct hwtimer *h, struct hwtimer_lib_stats *st)
{
	struct hwt_ring *r = h->ring;
	uint32_t i;

	*st = r->own;
	st->ring_slots = r->setup.slots;
	/* Live: pending, or its last record not handed out yet. */
	for (i = 0; i < r->setup.slots; i++)
		st->ring_live += r->slots[i].state == SLOT_ACTIVE ||
				 r->slots[i].state == SLOT_STASHED;
	st->stashed = r->stash_len - r->stash_head;
}

/*
 * Have the kernel consume every entry written so far and take the
 * completions it made: the library's own counts (a cancel it answered
 * CANCELLED that the kernel found fired, an arm the kernel refused) move
 * only as their completions are taken. Expiries taken meanwhile wait in
 * the stash. An expiry that makes the library arm a slot again writes an
 * entry, so this goes round until the ring is empty.
 */
int hwtimer__ring_flush(struct hwtimer *h)
{
	struct hwt_ring *r = h->ring;
	int tries, ret;

	if (!ring_mine(r))
		return 0;
	for (tries = 0; tries < RING_FULL_TRIES; tries++) {
		ret = ring_enter(h);
		if (ret < 0 && ret != -EINTR)
			return ret;
		cq_take_all(h);
		if (*r->sq_tail == __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE)) {
			r->unkicked = false;
			break;
		}
	}
	return 0;
}
