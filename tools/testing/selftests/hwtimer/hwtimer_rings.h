/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_rings.h - /dev/hwtimer's timer rings as a test process maps
 * them: the mapping, the completion ring's consumer, ENTER and the
 * NEED_WAKEUP protocol. Shared by hwtimer_ring.c and hwtimer_isolation.c;
 * needs <linux/hwtimer.h>, <stdint.h>, <string.h>, <errno.h>,
 * <sys/ioctl.h> and <sys/mman.h> first.
 */
#ifndef HWTIMER_RINGS_H
#define HWTIMER_RINGS_H

/* A context's rings as this process maps them. */
struct ring {
	struct hwtimer_ring_setup s;
	void *mem;
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_flags;
	uint32_t *sq_dropped;
	uint32_t *cq_head;
	uint32_t *cq_tail;
	uint32_t *cq_overflow;
	uint32_t *ev_queued;
	uint32_t *sq_claim;
	struct hwtimer_sqe *sqes;
	struct hwtimer_event *cqes;
};

/* A RING_SETUP request for @sq entries, @cq records and @slots slots. */
static inline void ring_req(struct hwtimer_ring_setup *s, uint32_t sq,
			    uint32_t cq, uint32_t slots)
{
	memset(s, 0, sizeof(*s));
	s->sq_entries = sq;
	s->cq_entries = cq;
	s->slots = slots;
	s->clock = CLOCK_MONOTONIC;
}

/* Map the rings @r->s describes and point @r's fields into them. */
static inline int ring_mmap(int fd, struct ring *r)
{
	char *m = mmap(NULL, r->s.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	r->mem = m;
	r->sq_head = (uint32_t *)(m + r->s.sq_head);
	r->sq_tail = (uint32_t *)(m + r->s.sq_tail);
	r->sq_flags = (uint32_t *)(m + r->s.sq_flags);
	r->sq_dropped = (uint32_t *)(m + r->s.sq_dropped);
	r->cq_head = (uint32_t *)(m + r->s.cq_head);
	r->cq_tail = (uint32_t *)(m + r->s.cq_tail);
	r->cq_overflow = (uint32_t *)(m + r->s.cq_overflow);
	r->ev_queued = (uint32_t *)(m + r->s.ev_queued);
	r->sq_claim = (uint32_t *)(m + r->s.sq_claim);
	r->sqes = (struct hwtimer_sqe *)(m + r->s.sqes);
	r->cqes = (struct hwtimer_event *)(m + r->s.cqes);
	return 0;
}

/* HWTIMER_IOC_ENTER. Return: the entries it consumed, or -errno. */
static inline int ring_enter(int fd)
{
	struct hwtimer_ring_enter e;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = ioctl(fd, HWTIMER_IOC_ENTER, &e);
	return ret < 0 ? -errno : ret;
}

/* The protocol after pushing: ENTER only if the drain stopped. */
static inline int ring_kick(int fd, struct ring *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) &
	    HWTIMER_RING_NEED_WAKEUP)
		return ring_enter(fd);
	return 0;
}

/* Take one record from the completion ring; false if it is empty. */
static inline bool cq_pop(struct ring *r, struct hwtimer_event *ev)
{
	uint32_t head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return false;
	*ev = r->cqes[head & (r->s.cq_entries - 1)];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

#endif /* HWTIMER_RINGS_H */
