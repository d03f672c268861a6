// SPDX-License-Identifier: GPL-2.0
/*
 * fake_kernel - a stand-in for /dev/hwtimer's timer rings inside the
 * process: fake_kernel.h says what it answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_kernel.h"

/* The layout of chardev/hwtimer_ring.c: a 64-byte line per index. */
#define LINE		64U
#define OFF_SQ_HEAD	(0 * LINE)
#define OFF_SQ_TAIL	(1 * LINE)
#define OFF_SQ_FLAGS	(2 * LINE)
#define OFF_SQ_DROPPED	(3 * LINE)
#define OFF_CQ_HEAD	(4 * LINE)
#define OFF_CQ_TAIL	(5 * LINE)
#define OFF_CQ_OVERFLOW	(6 * LINE)
#define OFF_EV_QUEUED	(7 * LINE)
#define OFF_SQ_CLAIM	(8 * LINE)
#define OFF_SQES	(9 * LINE)

struct fake_kernel fk = { .fd = -1 };

static bool words_zero(const __u64 *w, size_t n)
{
	while (n--) {
		if (*w++)
			return false;
	}
	return true;
}

static bool pow2_ok(uint32_t n)
{
	return n && !(n & (n - 1)) && n <= HWTIMER_RING_MAX_ENTRIES;
}

static long fake_api(struct hwtimer_api *a)
{
	if (a->api != HWTIMER_API || a->flags ||
	    a->features & ~HWTIMER_FEATURES_ALL ||
	    !words_zero(a->reserved, 4))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->api = HWTIMER_API;
	a->features = HWTIMER_FEATURES_ALL;
	a->ioctls = (1ULL << (_IOC_NR(HWTIMER_IOC_ENTER) + 1)) - 1;
	a->tick_ns = FAKE_TICK_NS;
	a->max_pending = FAKE_MAX_PENDING;
	a->event_size = sizeof(struct hwtimer_event);
	return 0;
}

static long fake_ring_setup(int fd, struct hwtimer_ring_setup *req)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t cqes, size;
	void *mem;

	if (req->flags || req->features || req->id_tag || req->ev_queued ||
	    req->sq_claim || !words_zero(req->reserved, 3))
		return -EINVAL;
	if (!pow2_ok(req->sq_entries) || !pow2_ok(req->cq_entries))
		return -EINVAL;
	if (!req->slots || req->slots > FAKE_MAX_PENDING)
		return -EINVAL;
	if (req->clock != CLOCK_MONOTONIC && req->clock != CLOCK_BOOTTIME)
		return -EINVAL;
	if (fk.fd >= 0)
		return -EBUSY;
	cqes = OFF_SQES + (uint64_t)req->sq_entries * sizeof(*fk.sqes);
	cqes = (cqes + LINE - 1) & ~(uint64_t)(LINE - 1);
	size = cqes + (uint64_t)req->cq_entries * sizeof(*fk.cqes);
	size = (size + page - 1) & ~(page - 1);
	fk.slots = calloc(req->slots, sizeof(*fk.slots));
	if (!fk.slots || posix_memalign(&mem, page, size)) {
		free(fk.slots);
		fk.slots = NULL;
		return -ENOMEM;
	}
	memset(mem, 0, size);
	req->map_size = size;
	req->sq_head = OFF_SQ_HEAD;
	req->sq_tail = OFF_SQ_TAIL;
	req->sq_flags = OFF_SQ_FLAGS;
	req->sq_dropped = OFF_SQ_DROPPED;
	req->sqes = OFF_SQES;
	req->cq_head = OFF_CQ_HEAD;
	req->cq_tail = OFF_CQ_TAIL;
	req->cq_overflow = OFF_CQ_OVERFLOW;
	req->ev_queued = OFF_EV_QUEUED;
	req->sq_claim = OFF_SQ_CLAIM;
	req->features = HWTIMER_RING_F_RETRACT;
	req->cqes = cqes;
	req->id_tag = FAKE_ID_TAG;
	fk.fd = fd;
	fk.setup = *req;
	fk.mem = mem;
	fk.sq_head = (uint32_t *)(fk.mem + OFF_SQ_HEAD);
	fk.sq_tail = (uint32_t *)(fk.mem + OFF_SQ_TAIL);
	fk.sq_claim = (uint32_t *)(fk.mem + OFF_SQ_CLAIM);
	fk.cq_head = (uint32_t *)(fk.mem + OFF_CQ_HEAD);
	fk.cq_tail = (uint32_t *)(fk.mem + OFF_CQ_TAIL);
	fk.sqes = (struct hwtimer_sqe *)(fk.mem + OFF_SQES);
	fk.cqes = (struct hwtimer_event *)(fk.mem + cqes);
	return 0;
}

/* Room in the completion ring; a cq head ahead of the tail means none. */
static uint32_t fake_cq_space(void)
{
	uint32_t used = fk.cq_next - __atomic_load_n(fk.cq_head,
						     __ATOMIC_ACQUIRE);

	return used > fk.setup.cq_entries ? 0 : fk.setup.cq_entries - used;
}

/* Write record @ev to the completion ring, which has room for it. */
static void fake_cq_push(const struct hwtimer_event *ev)
{
	fk.cqes[fk.cq_next & (fk.setup.cq_entries - 1)] = *ev;
	fk.cq_next++;
	/* The record is written before userspace can see the new tail. */
	__atomic_store_n(fk.cq_tail, fk.cq_next, __ATOMIC_RELEASE);
}

/* Complete entry @sqe with @res; @last: its slot is idle now. */
static void fake_complete(const struct hwtimer_sqe *sqe, int64_t res,
			  bool last)
{
	struct hwtimer_event ev = {
		.id = sqe->slot,
		.cookie = sqe->cookie,
		.res = res,
		.clock = CLOCK_MONOTONIC,
		.flags = HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE |
			 ((sqe->op << HWTIMER_EVENT_OP_SHIFT) &
			  HWTIMER_EVENT_OP_MASK),
	};

	if (last)
		ev.flags |= HWTIMER_EVENT_LAST;
	if (res < 0)
		fk.refused++;
	fake_cq_push(&ev);
}

/* Apply entry @sqe, copied from the ring. */
static void fake_sqe(const struct hwtimer_sqe *sqe)
{
	struct fake_slot *fs;

	if (sqe->op == HWTIMER_SQE_NOP) {
		fk.nops++;
		return;
	}
	if (sqe->flags || sqe->resv || sqe->reserved || sqe->period_ns ||
	    sqe->slot >= fk.setup.slots) {
		fake_complete(sqe, -EINVAL, false);
		return;
	}
	fs = &fk.slots[sqe->slot];
	switch (sqe->op) {
	case HWTIMER_SQE_ARM:
		if (fs->armed) {
			fake_complete(sqe, -EBUSY, false);
		} else {
			fs->armed = true;
			fk.ctx_armed++;
			fs->deadline = sqe->deadline_ns;
			fs->cookie = sqe->cookie;
		}
		return;
	case HWTIMER_SQE_CANCEL:
		if (sqe->deadline_ns) {
			fake_complete(sqe, -EINVAL, false);
		} else if (fs->armed) {
			fs->armed = false;
			fk.ctx_cancelled++;
			fake_complete(sqe, HWTIMER_RESULT_CANCELLED, true);
		} else {
			fake_complete(sqe, HWTIMER_RESULT_NOT_PENDING, false);
		}
		return;
	case HWTIMER_SQE_MODIFY:
		if (fs->armed)
			fs->deadline = sqe->deadline_ns;
		else
			fake_complete(sqe, HWTIMER_RESULT_NOT_PENDING, false);
		return;
	default:
		fake_complete(sqe, -EINVAL, false);
	}
}

void fake_fire(uint64_t cookie)
{
	fk.fire_cookie = cookie;
}

void fake_drain_begin(bool claim)
{
	fk.begun_tail = __atomic_load_n(fk.sq_tail, __ATOMIC_ACQUIRE);
	fk.begun = true;
	if (claim)
		__atomic_store_n(fk.sq_claim, fk.begun_tail, __ATOMIC_RELAXED);
}

uint32_t fake_sq_waiting(void)
{
	return __atomic_load_n(fk.sq_tail, __ATOMIC_ACQUIRE) - fk.sq_next;
}

/* The expiry fake_fire() asked for, if its slot is armed. */
static void fake_expire(void)
{
	struct hwtimer_event ev = {
		.clock = CLOCK_MONOTONIC,
		.flags = HWTIMER_EVENT_RING | HWTIMER_EVENT_LAST,
	};
	uint32_t i;

	if (!fk.fire_cookie || !fake_cq_space())
		return;
	for (i = 0; i < fk.setup.slots; i++) {
		if (fk.slots[i].armed && fk.slots[i].cookie == fk.fire_cookie)
			break;
	}
	fk.fire_cookie = 0;
	if (i == fk.setup.slots)
		return;
	fk.slots[i].armed = false;
	ev.id = i;
	ev.cookie = fk.slots[i].cookie;
	ev.deadline_ns = fk.slots[i].deadline;
	ev.fire_ns = fk.slots[i].deadline;
	fk.fired++;
	fk.ctx_fired++;
	fake_cq_push(&ev);
}

/* A drain: consume what the tail says is there while the cq has room. */
static long fake_enter(int fd, const struct hwtimer_ring_enter *e)
{
	uint32_t tail, n, i, left;
	struct hwtimer_sqe sqe;

	if (e->flags || e->resv || e->reserved[0] || e->reserved[1] ||
	    !fk.mem || fd != fk.fd)
		return -EINVAL;
	fk.enters++;
	fake_expire();
	if (fk.stall) {
		fk.stall--;
		return 0;
	}
	/* Pairs with userspace's release of the entries it wrote. */
	tail = __atomic_load_n(fk.sq_tail, __ATOMIC_ACQUIRE);
	if (fk.begun) {
		/* The tail fake_drain_begin() read, as a drain under way. */
		tail = fk.begun_tail;
		fk.begun = false;
	}
	n = tail - fk.sq_next;
	if (n > fk.setup.sq_entries) {
		fk.refused++;
		fk.sq_next = tail;
		__atomic_store_n(fk.sq_head, fk.sq_next, __ATOMIC_RELEASE);
		return 0;
	}
	/* Claimed before copied: pairs with the library's take-back. */
	__atomic_store_n(fk.sq_claim, tail, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* The tail again: userspace may have retracted entries. */
	left = __atomic_load_n(fk.sq_tail, __ATOMIC_ACQUIRE) - fk.sq_next;
	if (left < n)
		n = left;
	for (i = 0; i < n && fake_cq_space(); i++) {
		sqe = fk.sqes[(fk.sq_next + i) & (fk.setup.sq_entries - 1)];
		fake_sqe(&sqe);
	}
	fk.sq_next += i;
	fk.entries += i;
	/* Entries are copied before userspace may reuse their place. */
	__atomic_store_n(fk.sq_head, fk.sq_next, __ATOMIC_RELEASE);
	return i;
}

/*
 * The context's counters: every slot is charged at setup (live), the
 * armed ones pending; nothing waits for read(), which reads nothing.
 */
static long fake_stats(int fd, struct hwtimer_stats_req *st)
{
	uint32_t i, clock = st->clock;

	if (st->flags || !words_zero(st->reserved, 2) ||
	    (clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME &&
	     clock != CLOCK_REALTIME))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->clock = clock;
	st->tick_ns = FAKE_TICK_NS;
	st->ctx_max_pending = FAKE_MAX_PENDING;
	if (fd != fk.fd || !fk.mem)
		return 0;
	for (i = 0; i < fk.setup.slots; i++)
		st->ctx_pending += fk.slots[i].armed;
	st->ctx_live = fk.setup.slots;
	st->ctx_armed = fk.ctx_armed;
	st->ctx_fired = fk.ctx_fired;
	st->ctx_cancelled = fk.ctx_cancelled;
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	long r;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == HWTIMER_IOC_API)
		r = fake_api(arg);
	else if (req == HWTIMER_IOC_RING_SETUP)
		r = fake_ring_setup(fd, arg);
	else if (req == HWTIMER_IOC_ENTER)
		r = fake_enter(fd, arg);
	else if (req == HWTIMER_IOC_STATS)
		r = fake_stats(fd, arg);
	else
		r = -ENOTTY;
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

static void *fake_mmap(size_t len, int flags, int fd, uint64_t off)
{
	if (fd < 0 || fd != fk.fd) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	if (!fk.mem || off || !(flags & MAP_SHARED) ||
	    len > fk.setup.map_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return fk.mem;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return fake_mmap(len, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
	     off64_t off)
{
	return fake_mmap(len, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	if (!addr || addr != fk.mem)
		return syscall(SYS_munmap, addr, len);
	free(fk.mem);
	free(fk.slots);
	fk.mem = NULL;
	fk.slots = NULL;
	fk.fd = -1;
	fk.sq_next = 0;
	fk.cq_next = 0;
	fk.ctx_armed = 0;
	fk.ctx_fired = 0;
	fk.ctx_cancelled = 0;
	return 0;
}

