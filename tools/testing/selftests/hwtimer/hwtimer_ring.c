// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_ring - userspace selftests of /dev/hwtimer's timer rings
 * (HWTIMER_IOC_RING_SETUP, the mapping, ENTER), on kselftest_harness.h,
 * with the fixture and helpers of hwtimer_test.h.
 */
#include "hwtimer_test.h"
#include "hwtimer_rings.h"

/* Slots of the rings the tests set up, unless a test says otherwise. */
#define RING_SLOTS	64

static int ring_setup(int fd, struct ring *r, uint32_t sq, uint32_t cq,
		      uint32_t slots)
{
	memset(r, 0, sizeof(*r));
	ring_req(&r->s, sq, cq, slots);
	return xioctl(fd, HWTIMER_IOC_RING_SETUP, &r->s);
}

/* Set up rings of the given sizes on @fd and map them, or fail the test. */
static void ring_open(struct __test_metadata *_metadata, int fd,
		      struct ring *r, uint32_t sq, uint32_t cq, uint32_t slots)
{
	int ret = ring_setup(fd, r, sq, cq, slots);

	ASSERT_TRUE(ret == 0) {
		TH_LOG("RING_SETUP %u/%u/%u: %s", sq, cq, slots, strerror(-ret));
	}
	ret = ring_mmap(fd, r);
	ASSERT_TRUE(ret == 0) {
		TH_LOG("mmap %" PRIu64 " bytes: %s", (uint64_t)r->s.map_size,
		       strerror(-ret));
	}
}

static struct hwtimer_sqe sqe_of(uint8_t op, uint32_t slot, uint64_t deadline,
				 uint64_t period, uint64_t cookie)
{
	struct hwtimer_sqe e;

	memset(&e, 0, sizeof(e));
	e.op = op;
	e.slot = slot;
	e.deadline_ns = deadline;
	e.period_ns = period;
	e.cookie = cookie;
	return e;
}

/* Queue @e; -EAGAIN when the submission ring is full. */
static int ring_push(struct ring *r, const struct hwtimer_sqe *e)
{
	uint32_t tail = *r->sq_tail;
	uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);

	if (tail - head >= r->s.sq_entries)
		return -EAGAIN;
	r->sqes[tail & (r->s.sq_entries - 1)] = *e;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

static int ring_push_kick(int fd, struct ring *r, struct hwtimer_sqe e)
{
	int ret = ring_push(r, &e);

	return ret ? ret : (ring_kick(fd, r) < 0 ? -EIO : 0);
}

/*
 * ENTER, then wait until every entry pushed is consumed: the periodic
 * drain may take some before ENTER does, so its count says little.
 */
static void ring_submit(struct __test_metadata *_metadata, int fd,
			struct ring *r)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	int ret = ring_enter(fd);

	ASSERT_TRUE(ret >= 0) {
		TH_LOG("ENTER: %s", strerror(-ret));
	}
	while (__atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) != *r->sq_tail) {
		ASSERT_TRUE(now_ns(CLOCK_MONOTONIC) < end) {
			TH_LOG("entries not consumed: head %u tail %u",
			       *r->sq_head, *r->sq_tail);
		}
		sleep_ms(1);
	}
}

/* Wait up to @ms for a record in the completion ring (poll()ing @fd). */
static bool cq_wait(int fd, struct ring *r, struct hwtimer_event *ev, int ms)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)ms * MS;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (!cq_pop(r, ev)) {
		if (now_ns(CLOCK_MONOTONIC) >= end)
			return false;
		poll(&p, 1, 10);
	}
	return true;
}

/* Whether @ev completes entry @op with @res. */
static bool is_completion(const struct hwtimer_event *ev, uint8_t op,
			  int64_t res)
{
	return (ev->flags & (HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE)) ==
	       (HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE) &&
	       (ev->flags & HWTIMER_EVENT_OP_MASK) >> HWTIMER_EVENT_OP_SHIFT == op &&
	       ev->res == res;
}

/* RING_SETUP: every bad size, field and reserved word gives EINVAL. */
TEST_F(ctx, ring_setup_bad)
{
	struct hwtimer_api a = { .api = HWTIMER_API };
	struct hwtimer_ring_setup s;
	int fd = self->fd, i;
	static const uint32_t bad[] = { 0, 3, 6, 100, 131072, 1U << 31 };
	static const size_t zero_in[] = {
		offsetof(struct hwtimer_ring_setup, flags),
		offsetof(struct hwtimer_ring_setup, features),
		offsetof(struct hwtimer_ring_setup, id_tag),
		offsetof(struct hwtimer_ring_setup, ev_queued),
		offsetof(struct hwtimer_ring_setup, sq_claim),
		offsetof(struct hwtimer_ring_setup, reserved[0]),
		offsetof(struct hwtimer_ring_setup, reserved[1]),
		offsetof(struct hwtimer_ring_setup, reserved[2]),
	};

	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == 0);
	ASSERT_TRUE((a.features & HWTIMER_FEATURE_RINGS) != 0);
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		ring_req(&s, bad[i], 8, 4);
		EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL) {
			TH_LOG("sq_entries %u accepted", bad[i]);
		}
		ring_req(&s, 8, bad[i], 4);
		EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL) {
			TH_LOG("cq_entries %u accepted", bad[i]);
		}
	}
	ring_req(&s, 8, 8, 0);
	EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL);
	ring_req(&s, 8, 8, a.max_pending + 1);
	EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL);
	ring_req(&s, 8, 8, 4);
	s.clock = CLOCK_REALTIME;
	EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL);
	/* The input words that must be 0, outputs included. */
	for (i = 0; i < (int)ARRAY_SIZE(zero_in); i++) {
		ring_req(&s, 8, 8, 4);
		*(uint32_t *)((char *)&s + zero_in[i]) = 1;
		EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EINVAL) {
			TH_LOG("a 1 at offset %zu accepted", zero_in[i]);
		}
	}
	EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, unmapped_ptr()) == -EFAULT);
	/* Nothing above set the rings up: a good call still works, once. */
	ring_req(&s, 8, 8, 4);
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == 0);
	ring_req(&s, 8, 8, 4);
	EXPECT_TRUE(xioctl(fd, HWTIMER_IOC_RING_SETUP, &s) == -EBUSY);
}

/* RING_SETUP's answer: the region holds every field, none overlaps. */
TEST_F(ctx, ring_setup_layout)
{
	struct hwtimer_stats_req st;
	struct ring r;
	uint32_t idx[9];
	uint64_t id;
	int i, j;

	ASSERT_TRUE(ring_setup(self->fd, &r, 256, 1024, 100) == 0);
	idx[0] = r.s.sq_head;
	idx[1] = r.s.sq_tail;
	idx[2] = r.s.sq_flags;
	idx[3] = r.s.sq_dropped;
	idx[4] = r.s.cq_head;
	idx[5] = r.s.cq_tail;
	idx[6] = r.s.cq_overflow;
	idx[7] = r.s.ev_queued;
	idx[8] = r.s.sq_claim;
	EXPECT_TRUE(r.s.map_size % getpagesize() == 0);
	for (i = 0; i < 9; i++) {
		EXPECT_TRUE(idx[i] % 4 == 0);
		EXPECT_TRUE(idx[i] + 4 <= r.s.sqes || idx[i] >= r.s.cqes +
			    1024 * sizeof(struct hwtimer_event)) {
			TH_LOG("index %d at %u inside an array", i, idx[i]);
		}
		for (j = 0; j < i; j++)
			EXPECT_TRUE(idx[i] != idx[j]);
	}
	EXPECT_TRUE(r.s.sqes % 8 == 0);
	EXPECT_TRUE(r.s.cqes % 8 == 0);
	EXPECT_TRUE(r.s.sqes + 256 * sizeof(struct hwtimer_sqe) <= r.s.cqes);
	EXPECT_TRUE(r.s.cqes + 1024 * sizeof(struct hwtimer_event) <=
		    r.s.map_size);
	EXPECT_TRUE(r.s.features == HWTIMER_RING_F_RETRACT &&
		    r.s.reserved[0] + r.s.reserved[2] == 0);
	/* The slots are charged to the context at once. */
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	EXPECT_TRUE(st.ctx_live == 100);
	EXPECT_TRUE(st.ctx_pending == 0);
	/* A tag of its own: no id of this context carries it. */
	EXPECT_TRUE(r.s.id_tag && r.s.id_tag < 1U << HWTIMER_ID_TAG_BITS);
	ASSERT_TRUE(arm(self->fd, 1, 100ULL * WAIT_MS * MS, &id) == 0);
	EXPECT_TRUE(id >> HWTIMER_ID_TAG_SHIFT != r.s.id_tag &&
		    id >> HWTIMER_ID_TAG_SHIFT);
}

/* mmap: before setup, at an offset, too long or private is EINVAL. */
TEST_F(ctx, ring_mmap_bad)
{
	long pg = getpagesize();
	struct ring r;
	void *m;

	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	EXPECT_TRUE(m == MAP_FAILED && errno == EINVAL) {
		TH_LOG("mmap before setup: %s", m == MAP_FAILED ?
		       strerror(errno) : "mapped");
	}
	ASSERT_TRUE(ring_setup(self->fd, &r, 8, 8, 4) == 0);
	m = mmap(NULL, r.s.map_size + pg, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	EXPECT_TRUE(m == MAP_FAILED && errno == EINVAL) {
		TH_LOG("mmap past map_size accepted");
	}
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, pg);
	EXPECT_TRUE(m == MAP_FAILED && errno == EINVAL) {
		TH_LOG("mmap at offset one page accepted");
	}
	m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	EXPECT_TRUE(m == MAP_FAILED && errno == EINVAL) {
		TH_LOG("private mmap accepted");
	}
	/* A shorter mapping is fine, and so is the whole. */
	m = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	EXPECT_TRUE(munmap(m, pg) == 0);
	ASSERT_TRUE(ring_mmap(self->fd, &r) == 0);
	EXPECT_TRUE(*r.sq_head + *r.sq_tail + *r.cq_head + *r.cq_tail == 0);
	EXPECT_TRUE(munmap(r.mem, r.s.map_size) == 0);
}

/* ENTER: reserved words, flags and a context without rings are EINVAL. */
TEST_F(ctx, ring_enter_bad)
{
	struct hwtimer_ring_enter e;
	struct ring r;

	memset(&e, 0, sizeof(e));
	EXPECT_TRUE(xioctl(self->fd, HWTIMER_IOC_ENTER, &e) == -EINVAL);
	ASSERT_TRUE(ring_setup(self->fd, &r, 8, 8, 4) == 0);
	e.flags = 1;
	EXPECT_TRUE(xioctl(self->fd, HWTIMER_IOC_ENTER, &e) == -EINVAL);
	e.flags = 0;
	e.resv = 1;
	EXPECT_TRUE(xioctl(self->fd, HWTIMER_IOC_ENTER, &e) == -EINVAL);
	e.resv = 0;
	e.reserved[1] = 1;
	EXPECT_TRUE(xioctl(self->fd, HWTIMER_IOC_ENTER, &e) == -EINVAL);
	EXPECT_TRUE(xioctl(self->fd, HWTIMER_IOC_ENTER, unmapped_ptr()) == -EFAULT);
	EXPECT_TRUE(ring_enter(self->fd) == 0);
}

/* A ring ARM fires into the completion ring, never early; POLLIN. */
TEST_F(ctx, ring_arm_fires)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct hwtimer_event ev;
	uint64_t d;
	struct ring r;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	d = now_ns(CLOCK_MONOTONIC) + 20 * MS;
	ASSERT_TRUE(ring_push_kick(self->fd, &r,
				    sqe_of(HWTIMER_SQE_ARM, 3, d, 0, 0xc0de)) == 0);
	ASSERT_TRUE(poll(&p, 1, WAIT_MS) == 1);
	ASSERT_TRUE(cq_pop(&r, &ev));
	EXPECT_TRUE(ev.id == 3);
	EXPECT_TRUE(ev.cookie == 0xc0de);
	EXPECT_TRUE(ev.deadline_ns == d);
	EXPECT_TRUE(ev.flags == (HWTIMER_EVENT_RING | HWTIMER_EVENT_LAST));
	EXPECT_TRUE(ev.clock == CLOCK_MONOTONIC);
	EXPECT_TRUE(ev.overruns == 0);
	EXPECT_TRUE(ev.fire_ns >= d && ev.fire_ns - d < LATE_MAX_NS) {
		TH_LOG("fired %" PRId64 " ns from its deadline",
		       (int64_t)(ev.fire_ns - d));
	}
	/* Taken: nothing is readable, and the slot takes a new arm. */
	EXPECT_TRUE(poll(&p, 1, 0) == 0);
	EXPECT_TRUE(read_queued(self->fd, &ev, sizeof(ev)) == 0);
	ASSERT_TRUE(ring_push_kick(self->fd, &r,
				    sqe_of(HWTIMER_SQE_ARM, 3, 1, 0, 2)) == 0);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(ev.id == 3 && ev.cookie == 2 &&
		    !(ev.flags & HWTIMER_EVENT_SQE)) {
		TH_LOG("re-arm of slot 3: flags %#x res %" PRId64, ev.flags,
		       (int64_t)ev.res);
	}
}

/* ARM of an armed slot completes with EBUSY; the first arm stands. */
TEST_F(ctx, ring_arm_busy)
{
	struct hwtimer_event ev;
	struct ring r;
	uint64_t far = now_ns(CLOCK_MONOTONIC) + 100000 * MS;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 5, .deadline_ns = far }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 5, .deadline_ns = 1,
		.cookie = 77 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_ARM, -EBUSY) &&
		    ev.id == 5 && ev.cookie == 77) {
		TH_LOG("flags %#x res %" PRId64 " id %" PRIu64, ev.flags,
		       (int64_t)ev.res, (uint64_t)ev.id);
	}
	EXPECT_TRUE((ev.flags & HWTIMER_EVENT_LAST) == 0);
	EXPECT_TRUE(stats_pending(self->fd) == 1);
	sleep_ms(NOFIRE_MS);
	EXPECT_FALSE(cq_pop(&r, &ev));
}

/* CANCEL completes with CANCELLED and LAST, then NOT_PENDING; no expiry. */
TEST_F(ctx, ring_cancel)
{
	struct hwtimer_stats_req st;
	struct hwtimer_event ev;
	struct ring r;
	uint64_t d = now_ns(CLOCK_MONOTONIC) + 100000 * MS;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 1, .deadline_ns = d }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_CANCEL, .slot = 1, .cookie = 11 }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_CANCEL, .slot = 1, .cookie = 12 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_CANCELLED) &&
		    ev.cookie == 11 && ev.id == 1 &&
		    (ev.flags & HWTIMER_EVENT_LAST)) {
		TH_LOG("first cancel: flags %#x res %" PRId64, ev.flags, (int64_t)ev.res);
	}
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_NOT_PENDING) &&
		    ev.cookie == 12 && !(ev.flags & HWTIMER_EVENT_LAST)) {
		TH_LOG("second cancel: flags %#x res %" PRId64, ev.flags, (int64_t)ev.res);
	}
	sleep_ms(NOFIRE_MS);
	EXPECT_FALSE(cq_pop(&r, &ev)) {
		TH_LOG("cancelled slot fired: flags %#x", ev.flags);
	}
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	EXPECT_TRUE(st.ctx_pending == 0);
	EXPECT_TRUE(st.ctx_cancelled == 1);
	EXPECT_TRUE(st.ctx_live == RING_SLOTS);
}

/* Write @n entries, then move the tail once: one drain sees them all. */
static void ring_push_all(struct __test_metadata *_metadata, struct ring *r,
			  const struct hwtimer_sqe *e, uint32_t n)
{
	uint32_t tail = *r->sq_tail, i;

	ASSERT_TRUE(tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) + n <=
		    r->s.sq_entries);
	for (i = 0; i < n; i++)
		r->sqes[(tail + i) & (r->s.sq_entries - 1)] = e[i];
	__atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
}

/*
 * An ARM and a CANCEL of its slot that one drain sees cancel out: the
 * CANCEL says CANCELLED with LAST, nothing fires (the deadlines have
 * passed, so an armed one would be due at once), and the wheel never
 * sees them: its arm count moves by the drain's own re-arms only, at most
 * one per ENTER. An ARM of a busy slot still fails, and its CANCEL then
 * cancels what the slot had.
 */
TEST_F(ctx, ring_arm_cancel_pair)
{
	enum { ROUNDS = 20, PAIRS = 10 };
	struct hwtimer_stats_req st0, st;
	struct hwtimer_sqe e[2 * PAIRS];
	struct hwtimer_event ev;
	struct ring r;
	uint64_t past, far = now_ns(CLOCK_MONOTONIC) + 100000 * MS;
	int k, i, bad = 0;

	ring_open(_metadata, self->fd, &r, 64, 64, RING_SLOTS);
	ASSERT_TRUE(stats(self->fd, &st0) == 0);
	for (k = 0; k < ROUNDS; k++) {
		past = now_ns(CLOCK_MONOTONIC) - MS;
		for (i = 0; i < PAIRS; i++) {
			e[2 * i] = sqe_of(HWTIMER_SQE_ARM, i, past, 0, 100 + i);
			e[2 * i + 1] = sqe_of(HWTIMER_SQE_CANCEL, i, 0, 0,
					      200 + i);
		}
		ring_push_all(_metadata, &r, e, 2 * PAIRS);
		ring_submit(_metadata, self->fd, &r);
		for (i = 0; i < PAIRS; i++) {
			ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
			bad += !is_completion(&ev, HWTIMER_SQE_CANCEL,
					      HWTIMER_RESULT_CANCELLED) ||
			       ev.cookie != 200 + ev.id ||
			       !(ev.flags & HWTIMER_EVENT_LAST);
		}
	}
	EXPECT_TRUE(bad == 0) {
		TH_LOG("%d completions not CANCELLED with LAST", bad);
	}
	sleep_ms(NOFIRE_MS);
	EXPECT_FALSE(cq_pop(&r, &ev)) {
		TH_LOG("a record after the pairs: flags %#x id %" PRIu64,
		       ev.flags, (uint64_t)ev.id);
	}
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	EXPECT_TRUE(st.ctx_armed - st0.ctx_armed == ROUNDS * PAIRS);
	EXPECT_TRUE(st.ctx_cancelled - st0.ctx_cancelled == ROUNDS * PAIRS);
	EXPECT_TRUE(st.ctx_fired == st0.ctx_fired && st.ctx_pending == 0);
	EXPECT_TRUE(st.wheel.armed - st0.wheel.armed <= ROUNDS) {
		TH_LOG("the wheel saw %" PRIu64 " arms",
		       (uint64_t)(st.wheel.armed - st0.wheel.armed));
	}

	/* Slot 30 is pending: the paired ARM is refused, the CANCEL wins. */
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 30, .deadline_ns = far,
		.cookie = 6 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	e[0] = sqe_of(HWTIMER_SQE_ARM, 30, far, 0, 7);
	e[1] = sqe_of(HWTIMER_SQE_CANCEL, 30, 0, 0, 8);
	ring_push_all(_metadata, &r, e, 2);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_ARM, -EBUSY) &&
		    ev.cookie == 7);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_CANCELLED) &&
		    ev.cookie == 8 && (ev.flags & HWTIMER_EVENT_LAST));

	/* A MODIFY in between: no pair, the same answers. */
	e[0] = sqe_of(HWTIMER_SQE_ARM, 31, far, 0, 9);
	e[1] = sqe_of(HWTIMER_SQE_MODIFY, 31, far + MS, 0, 10);
	e[2] = sqe_of(HWTIMER_SQE_CANCEL, 31, 0, 0, 11);
	ring_push_all(_metadata, &r, e, 3);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_CANCELLED) &&
		    ev.cookie == 11 && (ev.flags & HWTIMER_EVENT_LAST));
	EXPECT_TRUE(stats_pending(self->fd) == 0);
}

/*
 * A completion ring too small for a drain's entries: no pairing, each
 * entry is applied as it comes and waits for room, nothing is lost.
 */
TEST_F(ctx, ring_arm_cancel_no_room)
{
	struct hwtimer_sqe e[8];
	struct hwtimer_event ev;
	struct ring r;
	uint64_t far = now_ns(CLOCK_MONOTONIC) + 100000 * MS;
	int i, n = 0;

	ring_open(_metadata, self->fd, &r, 8, 2, RING_SLOTS);
	for (i = 0; i < 4; i++) {
		e[2 * i] = sqe_of(HWTIMER_SQE_ARM, i, far, 0, 100 + i);
		e[2 * i + 1] = sqe_of(HWTIMER_SQE_CANCEL, i, 0, 0, 200 + i);
	}
	ring_push_all(_metadata, &r, e, 8);
	EXPECT_TRUE(ring_enter(self->fd) >= 0);
	while (n < 4 && cq_wait(self->fd, &r, &ev, WAIT_MS)) {
		EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
					  HWTIMER_RESULT_CANCELLED) &&
			    ev.cookie == 200U + n && ev.id == (uint64_t)n);
		n++;
		/* Room again: the rest is consumed by the next drain. */
		EXPECT_TRUE(ring_enter(self->fd) >= 0);
	}
	EXPECT_TRUE(n == 4);
	EXPECT_TRUE(*r.sq_head == *r.sq_tail);
	EXPECT_TRUE(stats_pending(self->fd) == 0);
}

/*
 * A drain runs the ARMs and CANCELs of a chunk under one base lock while
 * they stay on one base, moving it when an entry is on another, as BATCH
 * does. Here slots are armed by drains on each of two CPUs (each CPU's
 * base of the per-CPU wheel), then one drain on the second CPU cancels
 * slots of both, arms new ones and moves others (MODIFY), interleaved:
 * every entry must do what it does alone, and the context's counts must
 * add up. (The wheel's own count cannot tell a cancel under the wrong
 * base of one wheel: it is the sum of its bases'. BATCH's test, whose
 * ops cross wheels, can.)
 */
TEST_F(ctx, ring_mixed_bases)
{
	enum { PER = 16, FAR = 10000 };
	struct hwtimer_sqe e[3 * PER];
	struct hwtimer_stats_req st0, st;
	struct hwtimer_event ev;
	struct ring r;
	uint64_t fired = 0, t0, want, want_dl[3 * PER];
	int fd = self->fd, cpus[2], c, i, n, cancels = 0;
	cpu_set_t allowed;

	ASSERT_TRUE(two_cpus(cpus, &allowed));
	ring_open(_metadata, fd, &r, 64, 64, RING_SLOTS);
	ASSERT_TRUE(stats(fd, &st0) == 0);

	/* Slots 0..PER-1 armed from the first CPU, PER..2*PER-1 from the second. */
	t0 = now_ns(CLOCK_MONOTONIC);
	for (c = 0; c < 2; c++) {
		ASSERT_TRUE(run_on_cpu(cpus[c]));
		for (i = 0; i < PER; i++)
			e[i] = sqe_of(HWTIMER_SQE_ARM, c * PER + i,
				      t0 + FAR * MS, 0, c * PER + i);
		ring_push_all(_metadata, &r, e, PER);
		ring_submit(_metadata, fd, &r);
	}
	ASSERT_TRUE(stats_pending(fd) == 2 * PER);

	/*
	 * From the second CPU: cancel every first-CPU slot, arm new short
	 * ones (slots 2*PER..), cancel half of the second CPU's and move the
	 * other half to a short deadline, all interleaved.
	 */
	t0 = now_ns(CLOCK_MONOTONIC);
	for (i = 0, n = 0; i < PER; i++) {
		e[n++] = sqe_of(HWTIMER_SQE_CANCEL, i, 0, 0, 1000 + i);
		e[n++] = sqe_of(HWTIMER_SQE_ARM, 2 * PER + i, t0 + 30 * MS, 0,
				2 * PER + i);
		want_dl[2 * PER + i] = t0 + 30 * MS;
		if (i % 2) {
			e[n++] = sqe_of(HWTIMER_SQE_CANCEL, PER + i, 0, 0,
					1000 + PER + i);
		} else {
			e[n++] = sqe_of(HWTIMER_SQE_MODIFY, PER + i,
					t0 + 20 * MS, 0, 1000 + PER + i);
			want_dl[PER + i] = t0 + 20 * MS;
		}
	}
	ring_push_all(_metadata, &r, e, n);
	ring_submit(_metadata, fd, &r);

	/*
	 * A CANCEL completes CANCELLED with LAST; a successful ARM or
	 * MODIFY completes nothing; the new and the moved slots fire once,
	 * never early, at the deadline their entry gave.
	 */
	/* To fire: slots 2*PER.., and the even ones of PER..2*PER-1. */
	want = ((1ULL << PER) - 1) << 2 * PER |
	       (0x5555555555555555ULL & ((1ULL << PER) - 1) << PER);
	while (cancels < PER + PER / 2 || fired != want) {
		ASSERT_TRUE(cq_wait(fd, &r, &ev, WAIT_MS)) {
			TH_LOG("%d cancels, fired %#" PRIx64, cancels, fired);
		}
		if (ev.flags & HWTIMER_EVENT_SQE) {
			ASSERT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
						  HWTIMER_RESULT_CANCELLED) &&
				    ev.cookie == 1000 + ev.id &&
				    (ev.flags & HWTIMER_EVENT_LAST) &&
				    (ev.id < PER || (ev.id < 2 * PER && ev.id % 2))) {
				TH_LOG("completion of slot %" PRIu64 ": flags %#x res %" PRId64
				       " cookie %" PRIu64, (uint64_t)ev.id, ev.flags,
				       (int64_t)ev.res, (uint64_t)ev.cookie);
			}
			cancels++;
			continue;
		}
		ASSERT_TRUE(ev.id >= PER && ev.id < 3 * PER &&
			    (ev.id >= 2 * PER || !(ev.id % 2)) &&
			    ev.cookie == ev.id && !(fired & 1ULL << ev.id) &&
			    ev.deadline_ns == want_dl[ev.id] &&
			    ev.fire_ns >= ev.deadline_ns) {
			TH_LOG("expiry of slot %" PRIu64 ": cookie %" PRIu64
			       " deadline %" PRIu64 " fire %" PRIu64 " fired %#" PRIx64,
			       (uint64_t)ev.id, (uint64_t)ev.cookie,
			       (uint64_t)ev.deadline_ns, (uint64_t)ev.fire_ns, fired);
		}
		fired |= 1ULL << ev.id;
	}
	EXPECT_TRUE(cancels == PER + PER / 2);
	ASSERT_TRUE(stats(fd, &st) == 0);
	EXPECT_TRUE(st.ctx_pending == 0 &&
		    st.ctx_armed - st0.ctx_armed == 3 * PER &&
		    st.ctx_cancelled - st0.ctx_cancelled == PER + PER / 2 &&
		    st.ctx_fired - st0.ctx_fired == PER + PER / 2) {
		TH_LOG("pending %" PRIu64 ", armed %" PRIu64 ", cancelled %" PRIu64
		       ", fired %" PRIu64, (uint64_t)st.ctx_pending,
		       (uint64_t)(st.ctx_armed - st0.ctx_armed),
		       (uint64_t)(st.ctx_cancelled - st0.ctx_cancelled),
		       (uint64_t)(st.ctx_fired - st0.ctx_fired));
	}
}

/* MODIFY moves a pending slot; of an idle one it completes NOT_PENDING. */
TEST_F(ctx, ring_modify)
{
	struct hwtimer_event ev;
	struct ring r;
	uint64_t d;
	int i;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	d = now_ns(CLOCK_MONOTONIC) + 100000 * MS;
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 7, .deadline_ns = d,
		.cookie = 70 }) == 0);
	d = now_ns(CLOCK_MONOTONIC) + 30 * MS;
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_MODIFY, .slot = 7, .deadline_ns = d,
		.cookie = 71 }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_MODIFY, .slot = 8, .deadline_ns = d,
		.cookie = 81 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
		if (ev.id == 8) {
			EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_MODIFY,
						  HWTIMER_RESULT_NOT_PENDING) &&
				    ev.cookie == 81) {
				TH_LOG("modify of idle slot 8: flags %#x res %"
				       PRId64, ev.flags, (int64_t)ev.res);
			}
			continue;
		}
		EXPECT_TRUE(ev.id == 7 && ev.cookie == 70 &&
			    ev.deadline_ns == d && ev.fire_ns >= d &&
			    ev.flags == (HWTIMER_EVENT_RING | HWTIMER_EVENT_LAST)) {
			TH_LOG("slot %" PRIu64 ": flags %#x deadline %" PRIu64
			       " want %" PRIu64, (uint64_t)ev.id, ev.flags,
			       (uint64_t)ev.deadline_ns, d);
		}
	}
}

/* A periodic slot writes a record a period, then CANCEL stops it. */
TEST_F(ctx, ring_periodic)
{
	uint64_t period = tick_ns > 10 * MS ? tick_ns : 10 * MS, d, prev = 0;
	struct hwtimer_event ev;
	struct ring r;
	int i;

	ring_open(_metadata, self->fd, &r, 8, 64, RING_SLOTS);
	d = now_ns(CLOCK_MONOTONIC) + period;
	ASSERT_TRUE(ring_push_kick(self->fd, &r, sqe_of(HWTIMER_SQE_ARM, 0, d,
							  period, 5)) == 0);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS)) {
			TH_LOG("period %d never came", i);
		}
		ASSERT_TRUE(ev.id == 0 && ev.cookie == 5 &&
			    ev.flags == HWTIMER_EVENT_RING) {
			TH_LOG("record %d: flags %#x", i, ev.flags);
		}
		EXPECT_TRUE(ev.fire_ns >= ev.deadline_ns);
		/* The latest expiry a record covers, the first late or not. */
		EXPECT_TRUE(ev.deadline_ns ==
			    (i ? prev : d - period) + (1 + ev.overruns) * period) {
			TH_LOG("record %d: deadline %" PRIu64 ", overruns %" PRIu64
			       ", previous %" PRIu64 ", first %" PRIu64, i,
			       (uint64_t)ev.deadline_ns, (uint64_t)ev.overruns,
			       prev, d);
		}
		prev = ev.deadline_ns;
	}
	ASSERT_TRUE(ring_push_kick(self->fd, &r, sqe_of(HWTIMER_SQE_CANCEL, 0,
							  0, 0, 6)) == 0);
	/* Expiries already in the ring come first, then the cancel's result. */
	do {
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	} while (!(ev.flags & HWTIMER_EVENT_SQE));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_CANCELLED) && ev.cookie == 6);
	sleep_ms(3 * period / MS + 50);
	EXPECT_FALSE(cq_pop(&r, &ev));
	EXPECT_TRUE(stats_pending(self->fd) == 0);
}

/* Every bad entry completes with EINVAL, its op, slot and cookie. */
TEST_F(ctx, ring_bad_sqes)
{
	struct hwtimer_sqe e[10];
	struct hwtimer_event ev;
	struct ring r;
	int i;

	ring_open(_metadata, self->fd, &r, 16, 16, RING_SLOTS);
	for (i = 0; i < 10; i++)
		e[i] = sqe_of(HWTIMER_SQE_ARM, 1, 1, 0, 100 + i);
	e[0].op = 0;
	e[1].op = 9;
	e[2].flags = 1;
	e[3].resv = 1;
	e[4].reserved = 1;
	/* An op wider than the completion's 8 bits: they hold its low byte. */
	e[5].op = 0x10000 | HWTIMER_SQE_ARM;
	e[6].slot = RING_SLOTS;
	e[7].period_ns = tick_ns - 1;
	e[8] = sqe_of(HWTIMER_SQE_CANCEL, 1, 1, 0, 108);
	e[9] = sqe_of(HWTIMER_SQE_MODIFY, 1, 1, tick_ns, 109);
	for (i = 0; i < 10; i++)
		ASSERT_TRUE(ring_push(&r, &e[i]) == 0);
	ring_submit(_metadata, self->fd, &r);
	for (i = 0; i < 10; i++) {
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS)) {
			TH_LOG("no completion for bad entry %d", i);
		}
		EXPECT_TRUE(is_completion(&ev, e[i].op, -EINVAL) &&
			    ev.cookie == 100U + i && ev.id == e[i].slot &&
			    !(ev.flags & ~(HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE |
					   HWTIMER_EVENT_OP_MASK))) {
			TH_LOG("entry %d: flags %#x res %" PRId64 " cookie %"
			       PRIu64, i, ev.flags, (int64_t)ev.res, (uint64_t)ev.cookie);
		}
	}
	EXPECT_TRUE(stats_pending(self->fd) == 0);
}

/* Kinds of records take_back_records() counts. */
enum { TB_STRAY, TB_TAKEN_FIRED, TB_APPLIED, TB_REPLACED, TB_NR };

/*
 * Records of try @i of a take-back test until one is LAST, waiting up to
 * @ms for each, counted in @n by kind: its ARM's (cookie 1000 + @i) as
 * TB_TAKEN_FIRED when the try took it back (@gone), else TB_APPLIED; the
 * entry's written in its place (2000 + @i) as TB_REPLACED; any other as
 * TB_STRAY.
 */
static void take_back_records(int fd, struct ring *r, int i, bool gone,
			      int ms, int n[TB_NR])
{
	struct hwtimer_event ev;

	while (cq_wait(fd, r, &ev, ms)) {
		if (ev.cookie == 2000U + i)
			n[TB_REPLACED]++;
		else if (ev.cookie != 1000U + i)
			n[TB_STRAY]++;
		else
			n[gone ? TB_TAKEN_FIRED : TB_APPLIED]++;
		if (ev.flags & HWTIMER_EVENT_LAST)
			break;
	}
}

/*
 * Push try @i of a take-back test: an ARM of a slot for a passed deadline
 * (applied, it fires at once), cookie 1000 + @i. Return: its index.
 */
static uint32_t push_try(struct __test_metadata *_metadata, struct ring *r,
			 int i)
{
	uint32_t pos = *r->sq_tail;

	ASSERT_TRUE(ring_push(r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = i % RING_SLOTS,
		.deadline_ns = 1, .cookie = 1000 + i }) == 0);
	return pos;
}

/*
 * Taking an entry back: an ARM rewritten to NOP before any drain claimed
 * it is consumed without a completion and arms nothing; a NOP with
 * garbage in every other field is consumed the same way. Each ARM is for
 * a passed deadline, so one that a drain applied would fire at once.
 * The periodic drain runs meanwhile: an attempt that finds its entry
 * claimed already may go either way, and is only counted.
 */
TEST_F(ctx, ring_take_back)
{
	enum { TRIES = 50 };
	struct hwtimer_stats_req st0, st;
	struct hwtimer_event ev;
	struct ring r;
	uint32_t pos, claim;
	int i, back = 0, fired, stray, n[TB_NR] = { 0 };
	bool gone[TRIES] = { false };

	ring_open(_metadata, self->fd, &r, 64, 128, RING_SLOTS);
	ASSERT_TRUE(r.s.sq_claim != 0);
	ASSERT_TRUE(stats(self->fd, &st0) == 0);
	for (i = 0; i < TRIES; i++) {
		pos = push_try(_metadata, &r, i);
		__atomic_store_n(&r.sqes[pos & (r.s.sq_entries - 1)].op,
				 HWTIMER_SQE_NOP, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		claim = __atomic_load_n(r.sq_claim, __ATOMIC_RELAXED);
		gone[i] = (int32_t)(claim - pos) <= 0;
		back += gone[i];
		ring_submit(_metadata, self->fd, &r);
		/* Whatever the slot got, it is idle before the next try. */
		take_back_records(self->fd, &r, i, gone[i],
				  gone[i] ? 0 : WAIT_MS, n);
	}
	EXPECT_TRUE(back > 0) {
		TH_LOG("every entry was claimed before its NOP");
	}
	fired = n[TB_TAKEN_FIRED];
	stray = n[TB_STRAY] + n[TB_REPLACED];
	sleep_ms(NOFIRE_MS);
	while (cq_pop(&r, &ev)) {
		for (i = 0; i < TRIES; i++)
			fired += gone[i] && ev.cookie == 1000U + i;
	}
	EXPECT_TRUE(fired == 0 && stray == 0) {
		TH_LOG("%d taken-back ARMs fired, %d stray records", fired,
		       stray);
	}
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	/* Claimed entries the kernel copied as ARMs fired; no other armed. */
	EXPECT_TRUE(st.ctx_armed - st0.ctx_armed == (uint64_t)n[TB_APPLIED]);
	EXPECT_TRUE(st.ctx_pending == 0);
	/* The drain publishes the tail it read before copying. */
	EXPECT_TRUE(__atomic_load_n(r.sq_claim, __ATOMIC_ACQUIRE) ==
		    *r.sq_tail);

	/* A NOP is consumed whatever else it holds, without a completion. */
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_NOP, .flags = 7, .slot = RING_SLOTS + 5,
		.resv = 1, .deadline_ns = 1, .period_ns = 3,
		.reserved = 9 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	EXPECT_FALSE(cq_wait(self->fd, &r, &ev, NOFIRE_MS)) {
		TH_LOG("a NOP completed: flags %#x res %" PRId64, ev.flags,
		       (int64_t)ev.res);
	}
	EXPECT_TRUE(stats_pending(self->fd) == 0);
}

/*
 * Retracting entries (HWTIMER_RING_F_RETRACT): an ARM taken back by moving
 * the tail back before any drain claimed it is never consumed, and its
 * place takes a new entry, which is. Each ARM is for a passed deadline, so
 * one that a drain applied would fire at once. The periodic drain runs
 * meanwhile: an attempt that finds its entry claimed puts the tail back,
 * and the ARM may then be applied; it is only counted.
 */
TEST_F(ctx, ring_retract)
{
	enum { TRIES = 50 };
	struct hwtimer_stats_req st0, st;
	struct hwtimer_event ev;
	struct ring r;
	uint32_t pos, claim;
	int i, back = 0, n[TB_NR] = { 0 };
	bool gone;

	ring_open(_metadata, self->fd, &r, 64, 128, RING_SLOTS);
	ASSERT_TRUE((r.s.features & HWTIMER_RING_F_RETRACT) != 0);
	ASSERT_TRUE(stats(self->fd, &st0) == 0);
	for (i = 0; i < TRIES; i++) {
		pos = push_try(_metadata, &r, i);
		__atomic_store_n(r.sq_tail, pos, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		claim = __atomic_load_n(r.sq_claim, __ATOMIC_RELAXED);
		gone = (int32_t)(claim - pos) <= 0;
		back += gone;
		if (!gone)
			__atomic_store_n(r.sq_tail, pos + 1, __ATOMIC_RELEASE);
		else
			ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
				.op = HWTIMER_SQE_ARM, .slot = i % RING_SLOTS,
				.deadline_ns = 1, .cookie = 2000 + i }) == 0);
		ring_submit(_metadata, self->fd, &r);
		/* One of the two ARMs was applied: wait for its record. */
		take_back_records(self->fd, &r, i, gone, WAIT_MS, n);
	}
	EXPECT_TRUE(back > 0) {
		TH_LOG("every entry was claimed before its retraction");
	}
	sleep_ms(NOFIRE_MS);
	while (cq_pop(&r, &ev))
		n[TB_STRAY]++;
	EXPECT_TRUE(n[TB_TAKEN_FIRED] == 0 && n[TB_STRAY] == 0 &&
		    n[TB_REPLACED] == back && n[TB_APPLIED] == TRIES - back) {
		TH_LOG("%d retracted ARMs fired, %d stray records, %d of %d new entries fired, %d of %d kept ARMs",
		       n[TB_TAKEN_FIRED], n[TB_STRAY], n[TB_REPLACED], back,
		       n[TB_APPLIED], TRIES - back);
	}
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	EXPECT_TRUE(st.ctx_armed - st0.ctx_armed == (uint64_t)TRIES);
	EXPECT_TRUE(st.ctx_pending == 0);
	EXPECT_TRUE(*r.sq_dropped == 0);
	EXPECT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) ==
		    *r.sq_tail);
}

/*
 * An idle ring sets NEED_WAKEUP and stops draining; ENTER drains.
 *
 * Timing: the kernel decides to stop right after it sets the flag; the
 * test waits NOFIRE_MS more before it pushes, so only a vCPU stalled that
 * long between the two could drain the entry without ENTER.
 */
TEST_F(ctx, ring_need_wakeup)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	struct hwtimer_event ev;
	struct ring r;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	while (!(__atomic_load_n(r.sq_flags, __ATOMIC_ACQUIRE) &
		 HWTIMER_RING_NEED_WAKEUP) && now_ns(CLOCK_MONOTONIC) < end)
		sleep_ms(1);
	ASSERT_TRUE((*r.sq_flags & HWTIMER_RING_NEED_WAKEUP) != 0) {
		TH_LOG("an idle ring never asked for a wakeup");
	}
	sleep_ms(NOFIRE_MS);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 2, .deadline_ns = 1 }) == 0);
	sleep_ms(NOFIRE_MS);
	EXPECT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) == 0) {
		TH_LOG("stopped drain consumed an entry");
	}
	EXPECT_TRUE((*r.sq_flags & HWTIMER_RING_NEED_WAKEUP) != 0);
	EXPECT_TRUE(ring_enter(self->fd) == 1);
	EXPECT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) == 1);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(ev.id == 2 && !(ev.flags & HWTIMER_EVENT_SQE));
	/* With the protocol, entries are consumed whatever the flag says. */
	ASSERT_TRUE(ring_push_kick(self->fd, &r,
				    sqe_of(HWTIMER_SQE_ARM, 2, 1, 0, 3)) == 0);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(ev.id == 2 && ev.cookie == 3);
}

/*
 * A pause of a couple of ticks does not stop the drain: an entry pushed
 * after it, with no ENTER, is consumed, and NEED_WAKEUP stays clear. A
 * drain that stopped after one empty pass fails every trial.
 *
 * Timing: the pause is 2 ticks, the drain idles 16 before it stops; a
 * trial fails spuriously only if the process stalls for over 13 ticks
 * between its two pushes, so 3 of 5 trials must pass.
 */
TEST_F(ctx, ring_pause_needs_no_enter)
{
	struct hwtimer_event ev;
	int trial, passed = 0;
	struct ring r;
	uint32_t head;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	for (trial = 0; trial < 5; trial++) {
		uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;

		/* The drain runs: an ENTER (re)starts it, consuming all. */
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_NOP }) == 0);
		ASSERT_TRUE(ring_enter(self->fd) >= 0);
		head = __atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE);
		ASSERT_TRUE(head == *r.sq_tail);
		sleep_ms((2 * tick_ns + MS - 1) / MS);
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_ARM, .slot = 1, .deadline_ns = 1,
			.cookie = trial }) == 0);
		while (__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) == head &&
		       !(__atomic_load_n(r.sq_flags, __ATOMIC_ACQUIRE) &
			 HWTIMER_RING_NEED_WAKEUP) &&
		       now_ns(CLOCK_MONOTONIC) < end)
			sleep_ms(1);
		if (__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) != head)
			passed++;
		else
			TH_LOG("trial %d: the drain stopped after a pause",
			       trial);
		/* Consumed or not, ENTER settles it; the expiry comes. */
		ASSERT_TRUE(ring_enter(self->fd) >= 0);
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
		EXPECT_TRUE(ev.id == 1 && ev.cookie == (uint64_t)trial);
	}
	EXPECT_TRUE(passed >= 3) {
		TH_LOG("%d of 5 pauses of 2 ticks needed no ENTER", passed);
	}
}

/* No claim a drain publishes: claims are indices near the tail. */
#define CLAIM_NONE	0x80000000U

/*
 * The claim of the next drain: CLAIM_NONE stored in its place, then
 * polled without sleeping until a drain replaces it; CLAIM_NONE if none
 * did within WAIT_MS.
 */
static uint32_t next_claim(struct ring *r)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	uint32_t c;

	__atomic_store_n(r->sq_claim, CLAIM_NONE, __ATOMIC_SEQ_CST);
	while ((c = __atomic_load_n(r->sq_claim, __ATOMIC_ACQUIRE)) ==
	       CLAIM_NONE && now_ns(CLOCK_MONOTONIC) < end)
		sched_yield();
	return c;
}

/*
 * A periodic drain leaves an ARM more than two ticks ahead that has not
 * waited a tick in the ring to a later drain: its claim stops before it,
 * so userspace may still take it back; a later drain consumes it without
 * an ENTER. An ARM whose deadline has passed is claimed by the first drain
 * that reads it. ENTER consumes both at once.
 *
 * Timing: each push is timed to the claim it sees, and only claims seen
 * within a tick of the push count, up to 5 of each kind, in 5 to 200
 * trials over about 10 s at most. A drain that consumes a far ARM runs a
 * tick or more after a drain read the tail with it (which came after the
 * push), so a claim seen sooner is exact for the far ARM, and a trial
 * that stalled longer says nothing. A due ARM may still see the claim of
 * a drain that read the tail just before the push and published it just
 * after the poll began: 2 of those may miss it. Load can make every trial
 * slow: then none counts, and only the checks with no time in them remain.
 */
TEST_F(ctx, ring_young_far_arm)
{
	int trial, far_n = 0, far_left = 0, near_n = 0, near_claimed = 0;
	uint64_t t0, end, stop = now_ns(CLOCK_MONOTONIC) + 10000 * MS;
	struct hwtimer_event ev;
	struct ring r;
	uint32_t p, c;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	for (trial = 0; trial < 200; trial++) {
		if (trial >= 5 && ((far_n >= 5 && near_n >= 5) ||
				   now_ns(CLOCK_MONOTONIC) > stop))
			break;
		/* An ENTER (re)starts the drain and consumes all. */
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_NOP }) == 0);
		ASSERT_TRUE(ring_enter(self->fd) >= 0);
		p = *r.sq_tail;
		ASSERT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) == p);
		t0 = now_ns(CLOCK_MONOTONIC);
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_ARM, .slot = 1, .cookie = trial,
			.deadline_ns = t0 + 10000 * MS }) == 0);
		c = next_claim(&r);
		if (now_ns(CLOCK_MONOTONIC) - t0 < tick_ns && far_n < 5) {
			far_n++;
			far_left += c == p;
		}
		/* The next drains consume it, no ENTER needed. */
		end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
		while (__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) == p &&
		       now_ns(CLOCK_MONOTONIC) < end)
			sleep_ms(1);
		EXPECT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) ==
			    p + 1) {
			TH_LOG("trial %d: the far ARM was not consumed", trial);
		}
		EXPECT_TRUE(stats_pending(self->fd) == 1);
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_CANCEL, .slot = 1,
			.cookie = trial }) == 0);
		ring_submit(_metadata, self->fd, &r);
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
		EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
					  HWTIMER_RESULT_CANCELLED));

		/* A passed deadline: claimed by the first drain. */
		p = *r.sq_tail;
		t0 = now_ns(CLOCK_MONOTONIC);
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_ARM, .slot = 2, .cookie = trial,
			.deadline_ns = 1 }) == 0);
		c = next_claim(&r);
		if (now_ns(CLOCK_MONOTONIC) - t0 < tick_ns && near_n < 5) {
			near_n++;
			near_claimed += c == p + 1;
		}
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
		EXPECT_TRUE(ev.id == 2 && ev.cookie == (uint64_t)trial);
	}
	printf("# %d trials; claims seen within a tick: %d of %d left the far ARM, %d of %d claimed the due one\n",
	       trial, far_left, far_n, near_claimed, near_n);
	EXPECT_TRUE(far_left == far_n && near_claimed + 2 >= near_n) {
		TH_LOG("first drains within a tick: %d of %d left the far ARM (want all), %d of %d claimed the due one",
		       far_left, far_n, near_claimed, near_n);
	}
	/* ENTER takes a young far ARM at once. */
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 3,
		.deadline_ns = now_ns(CLOCK_MONOTONIC) + 10000 * MS }) == 0);
	EXPECT_TRUE(ring_enter(self->fd) >= 0);
	EXPECT_TRUE(__atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) ==
		    *r.sq_tail);
	EXPECT_TRUE(stats_pending(self->fd) == 1);
}

/* Arm the @n slots from 0 to fire together @ms from now, through ENTER. */
static void arm_slots(struct __test_metadata *_metadata, int fd,
		      struct ring *r, int n, unsigned int ms)
{
	uint64_t d = now_ns(CLOCK_MONOTONIC) + ms * MS;
	int i;

	for (i = 0; i < n; i++)
		ASSERT_TRUE(ring_push(r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_ARM, .slot = i, .deadline_ns = d,
			.cookie = 1000 + i }) == 0);
	ring_submit(_metadata, fd, r);
}

/*
 * A full completion ring: expiries go to read() and count as overflow,
 * nothing is lost; entries wait for room.
 */
TEST_F(ctx, ring_overflow)
{
	struct hwtimer_event ev, evs[8];
	uint64_t seen = 0;
	struct ring r;
	int i, n;

	ring_open(_metadata, self->fd, &r, 16, 2, RING_SLOTS);
	arm_slots(_metadata, self->fd, &r, 8, 300);
	ASSERT_TRUE(wait_count(self->fd, 6, false)) {
		TH_LOG("6 records not queued for read()");
	}
	EXPECT_TRUE(__atomic_load_n(r.cq_overflow, __ATOMIC_RELAXED) == 6);
	EXPECT_TRUE(__atomic_load_n(r.ev_queued, __ATOMIC_RELAXED) == 6);
	EXPECT_TRUE(*r.cq_tail - *r.cq_head == 2);
	/* Full: a CANCEL waits, ENTER consumes nothing. */
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_CANCEL, .slot = 0, .cookie = 9 }) == 0);
	EXPECT_TRUE(ring_enter(self->fd) == 0);
	EXPECT_TRUE(*r.sq_head == *r.sq_tail - 1);
	n = read_queued(self->fd, evs, sizeof(evs));
	ASSERT_TRUE(n == 6 * EV);
	EXPECT_TRUE(__atomic_load_n(r.ev_queued, __ATOMIC_RELAXED) == 0);
	for (i = 0; i < 6; i++) {
		EXPECT_TRUE(evs[i].flags == (HWTIMER_EVENT_RING |
					     HWTIMER_EVENT_LAST) &&
			    evs[i].cookie == 1000 + evs[i].id);
		seen |= 1ULL << evs[i].id;
	}
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(cq_pop(&r, &ev));
		EXPECT_TRUE(1000 + ev.id == ev.cookie);
		seen |= 1ULL << ev.id;
	}
	EXPECT_TRUE(seen == 0xffULL) {
		TH_LOG("slots seen %#" PRIx64, seen);
	}
	/* Room again: the CANCEL completes; slot 0 is idle by now. */
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_NOT_PENDING) && ev.cookie == 9);
}

/* A record queued for read() keeps its slot busy until it is read. */
TEST_F(ctx, ring_overflow_slot_busy)
{
	struct hwtimer_event ev, evs[4];
	struct ring r;
	int i;

	ring_open(_metadata, self->fd, &r, 16, 1, RING_SLOTS);
	arm_slots(_metadata, self->fd, &r, 2, 300);
	ASSERT_TRUE(wait_count(self->fd, 1, false));
	ASSERT_TRUE(cq_pop(&r, &ev));
	i = ev.id == 0;		/* the slot whose record waits for read() */
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_CANCEL, .slot = i, .cookie = 1 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_FIRED) &&
		    !(ev.flags & HWTIMER_EVENT_LAST)) {
		TH_LOG("cancel of fired slot %d: flags %#x res %" PRId64, i,
		       ev.flags, (int64_t)ev.res);
	}
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = i, .deadline_ns = 1,
		.cookie = 2 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_ARM, -EBUSY));
	ASSERT_TRUE(read_queued(self->fd, evs, sizeof(evs)) == EV);
	EXPECT_TRUE(evs[0].id == (uint64_t)i);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = i, .deadline_ns = 1,
		.cookie = 3 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(ev.cookie == 3 && !(ev.flags & HWTIMER_EVENT_SQE));
}

/* Indices the kernel cannot trust: a far sq tail, a bogus cq head. */
TEST_F(ctx, ring_bogus_indices)
{
	struct hwtimer_event evs[4];
	struct ring r;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	__atomic_store_n(r.sq_tail, 1000, __ATOMIC_RELEASE);
	EXPECT_TRUE(ring_enter(self->fd) == 0);
	EXPECT_TRUE(*r.sq_dropped == 1);
	EXPECT_TRUE(*r.sq_head == 1000);
	/* A cq head ahead of the tail means full: expiries go to read(). */
	__atomic_store_n(r.cq_head, 5, __ATOMIC_RELEASE);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 1,
		.deadline_ns = now_ns(CLOCK_MONOTONIC) + 300 * MS }) == 0);
	EXPECT_TRUE(ring_enter(self->fd) == 0);	/* no room for a completion */
	EXPECT_TRUE(*r.sq_head == 1000);
	__atomic_store_n(r.cq_head, 0, __ATOMIC_RELEASE);
	ring_submit(_metadata, self->fd, &r);
	/* More than the ring's size behind the tail: full as well. */
	__atomic_store_n(r.cq_head, 0x80000000U, __ATOMIC_RELEASE);
	ASSERT_TRUE(wait_count(self->fd, 1, false));
	EXPECT_TRUE(*r.cq_overflow == 1);
	EXPECT_TRUE(*r.cq_tail == 0);
	ASSERT_TRUE(read_queued(self->fd, evs, sizeof(evs)) == EV);
	EXPECT_TRUE(evs[0].id == 1);
}

#define SCRIBBLE_MS	1500

struct scribble {
	struct ring *r;
	bool stop;		/* __atomic: set by the test, read by the thread */
};

/* Random values over the whole region, indices and records alike. */
static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	uint32_t *w = s->r->mem, x = 2463534242U;
	size_t n = s->r->s.map_size / 4;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w[x % n] = x;
		/* Now and then an index a few entries ahead, as a writer would. */
		if (!(x & 0xff))
			*s->r->sq_tail += x & 7;
	}
	return NULL;
}

/*
 * A thread scribbles over the mapping while the rings are in use: the
 * process gets errors and drops, the kernel stays sane (its counts hold,
 * close frees everything, the wheel is left as it was).
 */
TEST_F(ctx, ring_hostile)
{
	struct scribble s = { 0 };
	struct hwtimer_stats_req st;
	struct hwtimer_event evs[16];
	uint64_t before = wheel_pending(), end;
	pthread_t th;
	struct ring r;
	int i = 0;

	ring_open(_metadata, self->fd, &r, 64, 64, RING_SLOTS);
	/* POLLIN may come from a scribbled cq head: read() must not wait. */
	ASSERT_TRUE(fcntl(self->fd, F_SETFL, O_NONBLOCK) == 0);
	s.r = &r;
	ASSERT_TRUE(pthread_create(&th, NULL, scribbler, &s) == 0);
	end = now_ns(CLOCK_MONOTONIC) + SCRIBBLE_MS * MS;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		ring_push(&r, &(struct hwtimer_sqe){
			.op = 1 + i % 3, .slot = i % RING_SLOTS,
			.deadline_ns = now_ns(CLOCK_MONOTONIC) + (i % 5) * MS,
			.period_ns = i % 7 ? 0 : tick_ns });
		EXPECT_TRUE(ring_enter(self->fd) >= 0);
		while (read(self->fd, evs, sizeof(evs)) > 0)
			;
		i++;
	}
	__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ASSERT_TRUE(stats(self->fd, &st) == 0);
	EXPECT_TRUE(st.ctx_pending <= RING_SLOTS && st.ctx_live == RING_SLOTS) {
		TH_LOG("pending %" PRIu64 " live %" PRIu64,
		       (uint64_t)st.ctx_pending, (uint64_t)st.ctx_live);
	}
	printf("# %d entries pushed, %u drops, %u overflows\n", i,
	       *r.sq_dropped, *r.cq_overflow);
	close_dev(self, self->fd);
	EXPECT_TRUE(munmap(r.mem, r.s.map_size) == 0);
	sleep_ms(50);
	EXPECT_TRUE(wheel_pending() <= before);
}

/* fork() shares the rings: the child's entries complete for the parent. */
TEST_F(ctx, ring_fork)
{
	struct hwtimer_event ev;
	uint64_t seen = 0;
	struct ring r;
	int status, i;
	pid_t pid;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid)
		_exit(ring_push_kick(self->fd, &r, sqe_of(HWTIMER_SQE_ARM, 1, 1,
							   0, 0xc41d)) ? 1 : 0);
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    !WEXITSTATUS(status));
	ASSERT_TRUE(ring_push_kick(self->fd, &r,
				    sqe_of(HWTIMER_SQE_ARM, 2, 1, 0, 0x9a7e)) == 0);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
		EXPECT_TRUE(ev.cookie == (ev.id == 1 ? 0xc41dU : 0x9a7eU));
		seen |= 1ULL << ev.id;
	}
	EXPECT_TRUE(seen == 6);
}

/*
 * close() with the rings mapped: the mapping keeps the context, which
 * goes away at munmap(), taking its armed slots and drain with it.
 */
TEST_F(ctx, ring_close_mapped)
{
	uint64_t before = wheel_pending(), far;
	struct hwtimer_event ev;
	struct ring r;
	int i;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	far = now_ns(CLOCK_MONOTONIC) + 100000 * MS;
	for (i = 0; i < 4; i++)
		ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
			.op = HWTIMER_SQE_ARM, .slot = i, .deadline_ns = far,
			.period_ns = i & 1 ? tick_ns : 0 }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 9, .deadline_ns = 1 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	close_dev(self, self->fd);
	/* The mapping still works, and the kernel still fills it. */
	ASSERT_TRUE(cq_wait(-1, &r, &ev, WAIT_MS));
	EXPECT_TRUE(ev.id == 9);
	*r.sq_tail = 12345;
	EXPECT_TRUE(munmap(r.mem, r.s.map_size) == 0);
	sleep_ms(50);
	EXPECT_TRUE(wheel_pending() <= before) {
		TH_LOG("wheel pending %" PRIu64 " after munmap, %" PRIu64
		       " before", wheel_pending(), before);
	}
}

/* The eventfd counts ring expiries, not completions of entries. */
TEST_F(ctx, ring_eventfd)
{
	int efd = track_fd(self, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	uint64_t far = now_ns(CLOCK_MONOTONIC) + 100000 * MS, cnt = 0;
	struct hwtimer_event ev;
	struct ring r;

	ASSERT_TRUE(efd >= 0);
	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	ASSERT_TRUE(set_eventfd(self->fd, efd) == 0);
	ASSERT_TRUE(ring_push_kick(self->fd, &r,
				   sqe_of(HWTIMER_SQE_ARM, 1, 1, 0, 1)) == 0);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(read(efd, &cnt, sizeof(cnt)) == sizeof(cnt) && cnt == 1) {
		TH_LOG("eventfd %" PRIu64 " after one expiry", cnt);
	}
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_ARM, .slot = 2, .deadline_ns = far }) == 0);
	ASSERT_TRUE(ring_push(&r, &(struct hwtimer_sqe){
		.op = HWTIMER_SQE_CANCEL, .slot = 2 }) == 0);
	ring_submit(_metadata, self->fd, &r);
	ASSERT_TRUE(cq_wait(self->fd, &r, &ev, WAIT_MS));
	EXPECT_TRUE(is_completion(&ev, HWTIMER_SQE_CANCEL,
				  HWTIMER_RESULT_CANCELLED));
	EXPECT_TRUE(read(efd, &cnt, sizeof(cnt)) < 0 && errno == EAGAIN) {
		TH_LOG("eventfd signalled by a completion");
	}
}

/* A context with rings still serves the ioctls and read() as before. */
TEST_F(ctx, ring_and_ioctls)
{
	struct hwtimer_event ev;
	struct ring r;
	uint64_t id;

	ring_open(_metadata, self->fd, &r, 8, 8, RING_SLOTS);
	ASSERT_TRUE(arm(self->fd, 0x10c7, 10 * MS, &id) == 0);
	ASSERT_TRUE(wait_events(self->fd, &ev, 1, WAIT_MS) == 1);
	EXPECT_TRUE(ev.id == id && ev.cookie == 0x10c7 &&
		    !(ev.flags & HWTIMER_EVENT_RING));
	EXPECT_FALSE(cq_pop(&r, &ev));
}

int main(int argc, char **argv)
{
	return hwtimer_test_main(argc, argv);
}
