// SPDX-License-Identifier: GPL-2.0
/*
 * ring_insns - libhwtimer's work per timeout on the timer rings, without a
 * device: a stand-in for the kernel, to count instructions under callgrind.
 *
 *   ring_insns [-n TIMEOUTS] [-v sq1024|single[-drained]] [-w]
 *
 * The program defines ioctl(), mmap() and munmap(), which libhwtimer,
 * linked in from libhwtimer.a, calls instead of libc's, and opens
 * /dev/null as the device (HWTIMER_OPEN_DEVICE). Those calls answer as
 * the driver does:
 *
 *	HWTIMER_IOC_API		every feature, a 1 ms tick, the module's
 *				default ctx_max_pending
 *	HWTIMER_IOC_RING_SETUP	checked as the driver checks it; the layout
 *				of chardev/hwtimer_ring.c
 *	mmap()			of the device at offset 0: the rings, a
 *				zeroed region of the heap; other fds: ENODEV
 *	HWTIMER_IOC_ENTER	a drain, at once (below)
 *	anything else		ENOTTY
 *
 * A drain consumes the submission ring from the kernel's head to the
 * user's tail, while the completion ring has room: an ARM of an idle slot
 * arms it and completes nothing (the driver completes a good ARM
 * silently); a CANCEL of an armed slot completes CANCELLED with
 * HWTIMER_EVENT_LAST, of an idle one NOT_PENDING; an ARM of an armed slot
 * completes -EBUSY, a NOP nothing, and anything else -EINVAL; the drain
 * publishes its claim first, as the driver's does. Nothing expires. There
 * is no periodic drain, and NEED_WAKEUP is never set: as on the device in
 * steady state, the library enters the kernel only when its submission
 * ring is full or it has no free slot. So every cancel finds its ARM
 * unclaimed and takes it back, the best case; a -drained variant ENTERs
 * between the arms and their cancels, the worst case, where every cancel
 * is an entry and its completion.
 *
 * The workload is hwtimer_lib_bench's: TIMEOUTS (default 262144) one-shots
 * on CLOCK_MONOTONIC, 10 s away, armed and cancelled 1024 at a time. -v
 * sq1024 (the default) queues them with hwtimer_prep_arm() and
 * hwtimer_prep_cancel() and submits each 1024 with hwtimer_submit(), as
 * rings_sq1024 does; -v single makes one hwtimer_arm() or hwtimer_cancel()
 * call each, as rings_single does. Each arm must give an id of the rings
 * (status 0, their id tag in bits 63..44), each cancel CANCELLED, and the
 * stand-in must refuse no entry: else the program fails.
 *
 * It runs the workload once to warm up, then again in measured(), the
 * function to give callgrind's --toggle-collect, and prints
 * "VARIANT timeouts N enters E entries S nops P" for the measured run:
 * its timeouts, the ENTERs it made, the entries the stand-in consumed and
 * how many of them were NOPs.
 * With -w it warms up only (N is then 0): callgrind counts calls made
 * while it does not collect costs, so the calls of the measured run are
 * those of a run less those of a warm-up alone.
 * bench/ring_insns.sh runs it under callgrind ("make ring-insns").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwtimer/hwtimer.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK		1024
#define FAR_NS		10000000000ULL
/* What the stand-in answers to HWTIMER_IOC_API. */
#define FAKE_TICK_NS	1000000ULL
#define FAKE_MAX_PENDING 262144ULL
/* The rings' id tag; the driver's are from 1 to 2^20 - 1. */
#define FAKE_ID_TAG	0x5a5a5U
/* Bits 63..44 of an id of the rings are their tag. */
#define ID_TAG_SHIFT	44
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

/**
 * struct fake_kernel - the stand-in's state: one context's rings
 * @fd: the fd the rings were set up on, -1 before
 * @setup: the setup as answered
 * @mem: the shared region, NULL before setup and after munmap()
 * @sq_head, @sq_tail, @cq_head, @cq_tail: indices in @mem
 * @sq_claim: the claim in @mem
 * @sqes: the submission ring
 * @cqes: the completion ring
 * @armed: per slot, whether it is armed
 * @sq_next: the kernel's sq head
 * @cq_next: the kernel's cq tail
 * @enters: HWTIMER_IOC_ENTER calls
 * @entries: entries consumed
 * @refused: entries completed with an error, and sq tails skipped
 * @nops: NOP entries consumed: ARMs the library took back
 */
struct fake_kernel {
	int fd;
	struct hwtimer_ring_setup setup;
	char *mem;
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_claim;
	uint32_t *cq_head;
	uint32_t *cq_tail;
	struct hwtimer_sqe *sqes;
	struct hwtimer_event *cqes;
	bool *armed;
	uint32_t sq_next;
	uint32_t cq_next;
	uint64_t enters;
	uint64_t entries;
	uint64_t refused;
	uint64_t nops;
};

static struct fake_kernel fk = { .fd = -1 };

static void die(const char *what, int err)
{
	fprintf(stderr, "ring_insns: %s: %s\n", what, strerror(err));
	exit(1);
}

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

	if (req->flags || req->resv || req->id_tag || req->ev_queued ||
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
	fk.armed = calloc(req->slots, sizeof(*fk.armed));
	if (!fk.armed || posix_memalign(&mem, page, size)) {
		free(fk.armed);
		fk.armed = NULL;
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
	fk.cqes[fk.cq_next & (fk.setup.cq_entries - 1)] = ev;
	fk.cq_next++;
	/* The record is written before userspace can see the new tail. */
	__atomic_store_n(fk.cq_tail, fk.cq_next, __ATOMIC_RELEASE);
}

/* Apply entry @sqe, copied from the ring. */
static void fake_sqe(const struct hwtimer_sqe *sqe)
{
	if (sqe->op == HWTIMER_SQE_NOP) {
		fk.nops++;
		return;
	}
	if (sqe->flags || sqe->resv || sqe->reserved || sqe->period_ns ||
	    sqe->slot >= fk.setup.slots) {
		fake_complete(sqe, -EINVAL, false);
		return;
	}
	switch (sqe->op) {
	case HWTIMER_SQE_ARM:
		if (fk.armed[sqe->slot])
			fake_complete(sqe, -EBUSY, false);
		else
			fk.armed[sqe->slot] = true;
		return;
	case HWTIMER_SQE_CANCEL:
		if (sqe->deadline_ns) {
			fake_complete(sqe, -EINVAL, false);
		} else if (fk.armed[sqe->slot]) {
			fk.armed[sqe->slot] = false;
			fake_complete(sqe, HWTIMER_RESULT_CANCELLED, true);
		} else {
			fake_complete(sqe, HWTIMER_RESULT_NOT_PENDING, false);
		}
		return;
	default:
		fake_complete(sqe, -EINVAL, false);
	}
}

/* A drain: consume what the tail says is there while the cq has room. */
static long fake_enter(int fd, const struct hwtimer_ring_enter *e)
{
	uint32_t tail, n, i;
	struct hwtimer_sqe sqe;

	if (e->flags || e->resv || e->reserved[0] || e->reserved[1] ||
	    !fk.mem || fd != fk.fd)
		return -EINVAL;
	fk.enters++;
	/* Pairs with userspace's release of the entries it wrote. */
	tail = __atomic_load_n(fk.sq_tail, __ATOMIC_ACQUIRE);
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
	free(fk.armed);
	fk.mem = NULL;
	fk.armed = NULL;
	return 0;
}

/* ---- the workload ---- */

enum variant { SQ1024, SINGLE };

/*
 * -drained variants: the workload ENTERs between its arms and their
 * cancels, as a worker's drain would, so no cancel can take its ARM back.
 */
static bool drained;

static void drain(struct hwtimer *h)
{
	struct hwtimer_ring_enter e = { 0 };

	if (drained && ioctl(hwtimer_fd(h), HWTIMER_IOC_ENTER, &e) < 0)
		die("ENTER", errno);
}

static void check_arm(uint64_t id, int status)
{
	if (status)
		die("arm", -status);
	if (id >> ID_TAG_SHIFT != FAKE_ID_TAG)
		die("arm: not an id of the rings", EIO);
}

static void check_cancel(int status, unsigned int result)
{
	if (status)
		die("cancel", -status);
	if (result != HWTIMER_RESULT_CANCELLED)
		die("cancel: not CANCELLED", EIO);
}

/* As hwtimer_lib_bench's lib_sq(): @n timeouts, CHUNK per submit. */
static void run_sq(struct hwtimer *h, uint64_t n)
{
	static struct hwtimer_result res[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0,
					     i, &res[i]);
			if (r)
				die("prep_arm", -r);
		}
		r = hwtimer_submit(h);
		if (r)
			die("submit of arms", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			check_arm(res[i].id, res[i].status);
		drain(h);
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_prep_cancel(h, res[i].id, &res[i]);
			if (r)
				die("prep_cancel", -r);
		}
		r = hwtimer_submit(h);
		if (r)
			die("submit of cancels", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			check_cancel(res[i].status, res[i].result);
	}
}

/* As hwtimer_lib_bench's lib_single(): a call per arm and per cancel. */
static void run_single(struct hwtimer *h, uint64_t n)
{
	static uint64_t ids[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, i,
					&ids[i]);
			check_arm(ids[i], r);
		}
		drain(h);
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_cancel(h, ids[i]);
			check_cancel(r < 0 ? r : 0, r < 0 ? 0 : r);
		}
	}
}

static void run(enum variant v, struct hwtimer *h, uint64_t n)
{
	if (v == SQ1024)
		run_sq(h, n);
	else
		run_single(h, n);
}

/* VARIANT of -v: sq1024 or single, with or without -drained. */
static bool parse_variant(const char *arg, enum variant *v)
{
	if (!strncmp(arg, "sq1024", 6))
		*v = SQ1024;
	else if (!strncmp(arg, "single", 6))
		*v = SINGLE;
	else
		return false;
	drained = !strcmp(arg + 6, "-drained");
	return drained || !arg[6];
}

/*
 * The run callgrind counts: --toggle-collect=measured. Not inlined, and
 * not static, so that it keeps its name.
 */
__attribute__((noinline)) void measured(enum variant v, struct hwtimer *h,
					uint64_t n)
{
	run(v, h, n);
	/* Not folded into the caller's code: a call callgrind sees. */
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static const char * const names[] = { "sq1024", "single" };
	static const char * const suffix[] = { "", "-drained" };
	enum variant v = SQ1024;
	uint64_t n = 262144, enters, entries, nops;
	bool warm_only = false;
	struct hwtimer *h;
	int c, r;

	while ((c = getopt(argc, argv, "n:v:w")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 'w')
			warm_only = true;
		else if (c != 'v' || !parse_variant(optarg, &v))
			n = 0;
	}
	n -= n % CHUNK;
	if (!n || optind != argc) {
		fprintf(stderr, "usage: %s [-n TIMEOUTS (a multiple of %d)]\n"
			"\t[-v sq1024|single[-drained]] [-w]\n", argv[0], CHUNK);
		return 2;
	}
	/* The library would keep off the rings. */
	unsetenv("HWTIMER_NO_RINGS");
	r = hwtimer_open_path(&h, "/dev/null", CHUNK, HWTIMER_OPEN_DEVICE);
	if (r) {
		fprintf(stderr, "ring_insns: %s\n", hwtimer_open_error());
		return 1;
	}
	if (!(hwtimer_features(h) & HWTIMER_FEATURE_RINGS))
		die("the library does not use the rings", EIO);
	run(v, h, n);
	enters = fk.enters;
	entries = fk.entries;
	nops = fk.nops;
	if (!warm_only)
		measured(v, h, n);
	enters = fk.enters - enters;
	entries = fk.entries - entries;
	nops = fk.nops - nops;
	if (fk.refused)
		die("the stand-in refused entries", EIO);
	hwtimer_close(h);
	if (fk.mem)
		die("the rings were not unmapped", EIO);
	printf("%s%s timeouts %llu enters %llu entries %llu nops %llu\n",
	       names[v], suffix[drained],
	       warm_only ? 0ULL : (unsigned long long)n,
	       (unsigned long long)enters,
	       (unsigned long long)entries, (unsigned long long)nops);
	return 0;
}
