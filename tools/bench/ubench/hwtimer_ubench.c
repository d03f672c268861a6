// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_ubench - userspace benchmark of /dev/hwtimer against timerfd.
 *
 * Run as root inside the test VM with hwtimer.ko loaded. Prints result lines
 * "BENCH,section,metric,peer,param,value,unit" (the in-kernel benchmark's
 * format) and "CDF,peer,percentile,lateness_us" lines for the lateness plot;
 * tools/bench/report.py reads both.
 *
 *  cost    per timeout armed and then cancelled, -n timeouts at a time:
 *          all are armed (random deadlines 1 s - 1 h), then all cancelled.
 *          hwtimer with one ioctl per op and with BATCH of 64 and 1024,
 *          each on a context it keeps over its rounds;
 *          io_uring with IORING_OP_TIMEOUT and IORING_OP_TIMEOUT_REMOVE,
 *          1024 per io_uring_enter(), every completion reaped, on a ring
 *          it keeps over its rounds; an event
 *          loop's way: a userspace binary heap with one timerfd armed for
 *          its earliest deadline; timerfd_settime() arm and disarm on
 *          pre-created timerfds; and timerfd_create() + timerfd_settime()
 *          + close() per timeout.
 *          Methods take turns over -r rounds; each keeps its fastest.
 *  memory  /proc/meminfo Slab (and MemFree) growth per pending timeout:
 *          hwtimer at -m pending, timerfd at as many as RLIMIT_NOFILE
 *          allows (raised to -m + 64 as root), both armed 1 h away.
 *  lateness -l timeouts with deadlines spread at random over 1 s, armed
 *          ahead of time; lateness is the time the process sees the expiry
 *          (read() of the hwtimer record, epoll + read() of the timerfd)
 *          minus the deadline. p50, p99, max, and early (seen before the
 *          deadline: must be 0). Three rounds each, taking turns; the
 *          round with the median p99 is reported.
 *  idle    the default wheel's hrtimer fires per second from debugfs, with
 *          nothing pending and with one timeout an hour away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>
#include <liburing.h>

#include "heap_loop.h"

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MS	1000000ULL
/* Random far deadlines of the cost and memory runs: 1 s to 1 h. */
#define FAR_MIN_NS	(1ULL * NSEC_PER_SEC)
#define FAR_MAX_NS	(3600ULL * NSEC_PER_SEC)
/* Lateness run: deadlines spread over this window ... */
#define LAT_SPREAD_NS	(1000ULL * NSEC_PER_MS)
/* ... starting this long after arming began, so all are armed in time. */
#define LAT_LEAD_NS	(1500ULL * NSEC_PER_MS)
/* Wait after a step before reading /proc/meminfo: vmstat folds per-cpu
 * counters into the global ones every second.
 */
#define MEMINFO_SETTLE_US	2500000
#define MEMINFO		"/proc/meminfo"
#define DEBUGFS_STATS	"/sys/kernel/debug/hwtimer/default/stats"

static unsigned int n_cost = 10000, n_mem = 100000, n_lat = 10000;
static unsigned int reps = 7, idle_s = 5;
/* ns per timeout of the arm half of the last cost measurement. */
static double last_arm_ns;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hwtimer_ubench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 31) ^ (uint64_t)random();
}

static uint64_t far_delay(void)
{
	return FAR_MIN_NS + rnd64() % (FAR_MAX_NS - FAR_MIN_NS);
}

static struct timespec to_ts(uint64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return ts;
}

static void emit(const char *section, const char *metric, const char *peer,
		 unsigned long param, double v, const char *unit)
{
	printf("BENCH,%s,%s,%s,%lu,%.1f,%s\n", section, metric, peer, param,
	       v, unit);
	fflush(stdout);
}

/* /dev/hwtimer */

static int hw_open(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	int fd = open("/dev/hwtimer", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open /dev/hwtimer");
	if (ioctl(fd, HWTIMER_IOC_API, &api))
		die("HWTIMER_IOC_API");
	return fd;
}

static uint64_t hw_arm1(int fd, uint64_t deadline, uint32_t flags)
{
	struct hwtimer_arm_req r = {
		.deadline_ns = deadline, .clock = CLOCK_MONOTONIC,
		.flags = flags,
	};

	if (ioctl(fd, HWTIMER_IOC_ARM, &r))
		die("HWTIMER_IOC_ARM");
	return r.id;
}

static void hw_cancel1(int fd, uint64_t id)
{
	struct hwtimer_cancel_req r = { .id = id };

	if (ioctl(fd, HWTIMER_IOC_CANCEL, &r))
		die("HWTIMER_IOC_CANCEL");
}

/* Run @n prepared ops in calls of @per; every op must succeed. */
static void hw_batch(int fd, struct hwtimer_batch_op *ops, unsigned int n,
		     unsigned int per)
{
	unsigned int i, k;

	for (i = 0; i < n; i += per) {
		struct hwtimer_batch b = {
			.ops = (uintptr_t)(ops + i),
			.count = n - i < per ? n - i : per,
		};

		if (ioctl(fd, HWTIMER_IOC_BATCH, &b))
			die("HWTIMER_IOC_BATCH");
		if (b.failed) {
			for (k = 0; k < b.count && !ops[i + k].status; k++)
				;
			errno = -ops[i + k].status;
			die("batch op %u", i + k);
		}
	}
}

static void fill_arms(struct hwtimer_batch_op *ops, unsigned int n,
		      const uint64_t *delay, uint64_t base, uint32_t flags)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].flags = flags;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].deadline_ns = base + delay[i];
		ops[i].cookie = i;
	}
}

/* Turn armed ops (ids filled in) into cancels of the same timeouts. */
static void to_cancels(struct hwtimer_batch_op *ops, unsigned int n)
{
	unsigned int i;
	uint64_t id;

	for (i = 0; i < n; i++) {
		id = ops[i].id;
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_CANCEL;
		ops[i].id = id;
	}
}

/*
 * ns per timeout armed and cancelled on context @fd, which the method keeps
 * over its rounds, as a server keeps its own; @per 0 means one ioctl per op.
 */
static double hw_cost(int fd, const uint64_t *delay, unsigned int n,
		      unsigned int per)
{
	struct hwtimer_batch_op *ops = calloc(n, sizeof(*ops));
	uint64_t *ids = calloc(n, sizeof(*ids));
	uint64_t t0, t1, dt;
	unsigned int i;

	if (!ops || !ids)
		die("calloc");
	t0 = now_ns();
	if (!per) {
		for (i = 0; i < n; i++)
			ids[i] = hw_arm1(fd, delay[i], 0);
		t1 = now_ns();
		for (i = 0; i < n; i++)
			hw_cancel1(fd, ids[i]);
		dt = now_ns() - t0;
	} else {
		fill_arms(ops, n, delay, 0, 0);
		t0 = now_ns();
		hw_batch(fd, ops, n, per);
		t1 = now_ns();
		to_cancels(ops, n);
		hw_batch(fd, ops, n, per);
		dt = now_ns() - t0;
	}
	last_arm_ns = (double)(t1 - t0) / n;
	free(ids);
	free(ops);
	return (double)dt / n;
}

/* timerfd */

static void tfd_set(int fd, uint64_t value, int flags)
{
	struct itimerspec its = { .it_value = to_ts(value) };

	if (timerfd_settime(fd, flags, &its, NULL))
		die("timerfd_settime");
}

static int tfd_new(void)
{
	int fd = heap_timerfd();

	if (fd < 0)
		die("timerfd_create");
	return fd;
}

/* Arm all @n pre-created @fds, then disarm all: ns per timeout. */
static double tfd_cost(const int *fds, const uint64_t *delay, unsigned int n)
{
	uint64_t t0 = now_ns(), t1;
	unsigned int i;

	for (i = 0; i < n; i++)
		tfd_set(fds[i], delay[i], 0);
	t1 = now_ns();
	for (i = 0; i < n; i++)
		tfd_set(fds[i], 0, 0);
	last_arm_ns = (double)(t1 - t0) / n;
	return (double)(now_ns() - t0) / n;
}

/* create + arm + close per timeout: ns per timeout. */
static double tfd_create_cost(const uint64_t *delay, unsigned int n)
{
	uint64_t t0 = now_ns();
	unsigned int i;
	int fd;

	last_arm_ns = 0;
	for (i = 0; i < n; i++) {
		fd = tfd_new();
		tfd_set(fd, delay[i], 0);
		close(fd);
	}
	return (double)(now_ns() - t0) / n;
}

/* io_uring: IORING_OP_TIMEOUT and IORING_OP_TIMEOUT_REMOVE, 1024 per enter */

#define URING_BATCH	1024
/* user_data of a remove; a timeout's is its index + 1. */
#define URING_REMOVE	(1ULL << 63)

/* Take every completion there is; wait for one when @wait and none is. */
static unsigned int uring_reap(struct io_uring *ring, bool wait)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	if (wait && io_uring_wait_cqe(ring, &cqe))
		die("io_uring_wait_cqe");
	io_uring_for_each_cqe(ring, head, cqe) {
		/* A remove must find its timeout; a timeout ends cancelled. */
		if ((cqe->user_data & URING_REMOVE) ? cqe->res != 0 :
		    cqe->res != -ECANCELED) {
			errno = cqe->res < 0 ? -cqe->res : EPROTO;
			die("io_uring completion %llx",
			    (unsigned long long)cqe->user_data);
		}
		n++;
	}
	io_uring_cq_advance(ring, n);
	return n;
}

static void uring_submit(struct io_uring *ring, unsigned int n)
{
	if (io_uring_submit(ring) != (int)n)
		die("io_uring_submit");
}

/* The cost run's ring, kept over its rounds as the hwtimer contexts are. */
static void uring_init(struct io_uring *ring)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE,
		.cq_entries = 4 * URING_BATCH,
	};
	int ret = io_uring_queue_init_params(URING_BATCH, ring, &p);

	if (ret) {
		errno = -ret;
		die("io_uring_queue_init");
	}
}

/*
 * Arm @n timeouts on @ring in submissions of URING_BATCH, then remove them
 * all the same way; every timeout and every remove completes: ns per
 * timeout.
 */
static double uring_cost(struct io_uring *ring, const uint64_t *delay,
			 unsigned int n)
{
	struct __kernel_timespec *ts = calloc(n, sizeof(*ts));
	struct io_uring_sqe *sqe;
	unsigned int i, k, got = 0;
	uint64_t t0, t1;

	if (!ts)
		die("calloc");
	for (i = 0; i < n; i++) {
		ts[i].tv_sec = delay[i] / NSEC_PER_SEC;
		ts[i].tv_nsec = delay[i] % NSEC_PER_SEC;
	}
	t0 = now_ns();
	for (i = 0; i < n; i += k) {
		for (k = 0; k < URING_BATCH && i + k < n; k++) {
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_timeout(sqe, &ts[i + k], 0, 0);
			sqe->user_data = i + k + 1;
		}
		uring_submit(ring, k);
	}
	t1 = now_ns();
	for (i = 0; i < n; i += k) {
		for (k = 0; k < URING_BATCH && i + k < n; k++) {
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_timeout_remove(sqe, i + k + 1, 0);
			sqe->user_data = URING_REMOVE | (i + k);
		}
		uring_submit(ring, k);
		got += uring_reap(ring, false);
	}
	while (got < 2 * n)
		got += uring_reap(ring, true);
	last_arm_ns = (double)(t1 - t0) / n;
	t1 = now_ns();
	free(ts);
	return (double)(t1 - t0) / n;
}

/* Arm @n heap timeouts, then cancel them all: ns per timeout. */
static double heap_cost(const uint64_t *delay, unsigned int n)
{
	struct heap_timeout *t = calloc(n, sizeof(*t));
	struct heap_loop l;
	uint64_t t0, t1, base;
	unsigned int i;

	if (!t)
		die("calloc");
	heap_open(&l, n);
	t0 = now_ns();
	base = t0;
	for (i = 0; i < n; i++)
		heap_arm(&l, &t[i], base + delay[i]);
	t1 = now_ns();
	for (i = 0; i < n; i++)
		heap_cancel(&l, &t[i]);
	last_arm_ns = (double)(t1 - t0) / n;
	t1 = now_ns();
	heap_close(&l);
	free(t);
	return (double)(t1 - t0) / n;
}

/* Raise RLIMIT_NOFILE to @want; return how many fds we may then hold. */
static unsigned int raise_nofile(unsigned int want)
{
	struct rlimit rl = { want, want };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		getrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 0;
}

/* Up to @n timerfds, fewer if the fd limit says so; count in *@got. */
static int *tfd_pool(unsigned int n, unsigned int *got)
{
	int *fds = calloc(n, sizeof(*fds));
	unsigned int i;

	if (!fds)
		die("calloc");
	for (i = 0; i < n; i++) {
		fds[i] = heap_timerfd();
		if (fds[i] < 0)
			break;
	}
	*got = i;
	return fds;
}

static void tfd_pool_close(int *fds, unsigned int n)
{
	while (n--)
		close(fds[n]);
	free(fds);
}

/* Methods of the cost run, in the order of the results. */
enum {
	M_IOCTL, M_BATCH64, M_BATCH1024, M_URING, M_HEAP_TFD, M_TFD_SETTIME,
	M_TFD_CREATE, M_NR
};

/*
 * What the cost run's methods keep over their rounds: a /dev/hwtimer context
 * per hwtimer method, the io_uring ring, the timerfds of timerfd-settime.
 */
struct cost_state {
	int hw[M_URING];
	struct io_uring ring;
	int *fds;
};

static double cost_once(int m, struct cost_state *cs, const uint64_t *delay)
{
	switch (m) {
	case M_IOCTL:
		return hw_cost(cs->hw[m], delay, n_cost, 0);
	case M_BATCH64:
		return hw_cost(cs->hw[m], delay, n_cost, 64);
	case M_BATCH1024:
		return hw_cost(cs->hw[m], delay, n_cost, 1024);
	case M_URING:
		return uring_cost(&cs->ring, delay, n_cost);
	case M_HEAP_TFD:
		return heap_cost(delay, n_cost);
	case M_TFD_SETTIME:
		return tfd_cost(cs->fds, delay, n_cost);
	default:
		return tfd_create_cost(delay, n_cost);
	}
}

/*
 * The emulated machine's speed drifts with its host's load, so the methods
 * take turns: each of -r rounds runs every method once, starting with a
 * different one each round, and each method keeps its fastest round. Each
 * keeps what it arms on (a context, a ring, timerfds) from round to round,
 * as a server does; timerfd-create is the one that makes its own each time.
 */
static void bench_cost(void)
{
	static const char * const name[M_NR] = {
		"hwtimer-ioctl", "hwtimer-batch64", "hwtimer-batch1024",
		"io_uring-batch1024", "heap-timerfd", "timerfd-settime",
		"timerfd-create",
	};
	uint64_t *delay = calloc(n_cost, sizeof(*delay));
	double best[M_NR], best_arm[M_NR], v;
	struct cost_state cs;
	unsigned int i, r, nfd;
	int m;

	if (!delay)
		die("calloc");
	for (i = 0; i < n_cost; i++)
		delay[i] = far_delay();
	cs.fds = tfd_pool(n_cost, &nfd);
	if (nfd < n_cost) {
		errno = EMFILE;
		die("only %u timerfds for the cost run", nfd);
	}
	for (m = 0; m < M_URING; m++)
		cs.hw[m] = hw_open();
	uring_init(&cs.ring);
	for (m = 0; m < M_NR; m++)
		best[m] = 1e30;
	for (r = 0; r < reps; r++)
		for (i = 0; i < M_NR; i++) {
			m = (r + i) % M_NR;
			v = cost_once(m, &cs, delay);
			if (v < best[m]) {
				best[m] = v;
				best_arm[m] = last_arm_ns;
			}
		}
	io_uring_queue_exit(&cs.ring);
	for (m = 0; m < M_URING; m++)
		close(cs.hw[m]);
	tfd_pool_close(cs.fds, nfd);
	for (m = 0; m < M_NR; m++)
		emit("ucost", "ns_per_timeout", name[m], n_cost, best[m], "ns");
	/* The arm and cancel halves of each best round (not timerfd-create). */
	for (m = 0; m < M_TFD_CREATE; m++) {
		emit("ucost", "arm_ns", name[m], n_cost, best_arm[m], "ns");
		emit("ucost", "cancel_ns", name[m], n_cost,
		     best[m] - best_arm[m], "ns");
	}
	free(delay);
}

/*
 * The number after "@key@sep" on a line of the file @path, or -1 when the
 * line is missing (or the file, unless @must_exist).
 */
static long long file_field(const char *path, const char *key, char sep,
			    bool must_exist)
{
	char line[1024];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (must_exist)
			die(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == sep) {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* A /proc/meminfo field in bytes. */
static long long meminfo_get(const char *key)
{
	return file_field(MEMINFO, key, ':', true) * 1024;
}

/* A numeric field of /proc/self/fdinfo/@fd, or -1. */
static long long fdinfo_get(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return file_field(path, key, ':', true);
}

struct memsnap {
	long long slab, vmalloc, freemem;
};

static struct memsnap snap(void)
{
	struct memsnap s;

	usleep(MEMINFO_SETTLE_US);
	s.slab = meminfo_get("Slab");
	s.vmalloc = meminfo_get("VmallocUsed");
	s.freemem = meminfo_get("MemFree");
	return s;
}

static void emit_mem(const char *peer, unsigned int n, struct memsnap a,
		     struct memsnap b)
{
	emit("umemory", "slab_per_timeout", peer, n,
	     (double)(b.slab - a.slab) / n, "bytes");
	emit("umemory", "vmalloc_per_timeout", peer, n,
	     (double)(b.vmalloc - a.vmalloc) / n, "bytes");
	emit("umemory", "memfree_per_timeout", peer, n,
	     (double)(a.freemem - b.freemem) / n, "bytes");
}

static void bench_memory(void)
{
	struct hwtimer_batch_op *ops = calloc(n_mem, sizeof(*ops));
	uint64_t *delay = calloc(n_mem, sizeof(*delay));
	struct memsnap a, b;
	unsigned int i, nfd, cap;
	int fd, *fds;

	if (!ops || !delay)
		die("calloc");
	for (i = 0; i < n_mem; i++)
		delay[i] = far_delay();

	fd = hw_open();
	fill_arms(ops, n_mem, delay, 0, 0);
	a = snap();
	hw_batch(fd, ops, n_mem, 1024);
	b = snap();
	emit_mem("hwtimer", n_mem, a, b);
	/*
	 * Of which the context's id table: 8 bytes a slot, doubled when full.
	 * Past 8 KiB kvmalloc() takes it from the page allocator (counted in
	 * Slab as a large kmalloc) or, failing that, from vmalloc.
	 */
	emit("umemory", "table_per_timeout", "hwtimer", n_mem,
	     (double)fdinfo_get(fd, "hwtimer-table-bytes") / n_mem, "bytes");
	close(fd);

	cap = raise_nofile(n_mem + 64);
	a = snap();
	fds = tfd_pool(n_mem < cap ? n_mem : cap, &nfd);
	for (i = 0; i < nfd; i++)
		tfd_set(fds[i], delay[i], 0);
	b = snap();
	if (nfd)
		emit_mem("timerfd", nfd, a, b);
	tfd_pool_close(fds, nfd);
	free(delay);
	free(ops);
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p50, p99 and max of sorted @late (ns). */
static void lat_summary(const char *peer, const int64_t *late, unsigned int n)
{
	emit("lateness", "p50", peer, n, late[n / 2] / 1e3, "us");
	emit("lateness", "p99", peer, n, late[(uint64_t)n * 99 / 100] / 1e3,
	     "us");
	emit("lateness", "max", peer, n, late[n - 1] / 1e3, "us");
}

/* Print the summary and CDF of sorted @late (ns, negative = early). */
static void lat_report(const char *peer, const int64_t *late, unsigned int n)
{
	unsigned int i, early = 0, p;

	for (i = 0; i < n; i++)
		early += late[i] < 0;
	lat_summary(peer, late, n);
	emit("lateness", "early", peer, n, early, "count");
	for (p = 0; p <= 1000; p += 5) {
		i = (uint64_t)(n - 1) * p / 1000;
		printf("CDF,%s,%.1f,%.1f\n", peer, p / 10.0, late[i] / 1e3);
	}
	fflush(stdout);
}

/*
 * One hwtimer round: lateness of each timeout into @late, split into when
 * its callback ran (@cb: the record's fire time minus the deadline) and
 * how long the record then took to reach the process (@dl: seen minus
 * fire time). Return: the kernel-early count.
 */
static unsigned int lat_hwtimer(const uint64_t *delay, int64_t *late,
				int64_t *cb, int64_t *dl)
{
	struct hwtimer_batch_op *ops = calloc(n_lat, sizeof(*ops));
	struct hwtimer_event ev[256];
	unsigned int got = 0, i, kearly = 0;
	uint64_t base, seen;
	ssize_t r;
	int fd = hw_open();

	if (!ops)
		die("calloc");
	base = now_ns() + LAT_LEAD_NS;
	fill_arms(ops, n_lat, delay, base, HWTIMER_ARM_ABS);
	hw_batch(fd, ops, n_lat, 1024);
	if (now_ns() > base)
		fprintf(stderr, "# hwtimer: arming ran past the first deadline\n");
	while (got < n_lat) {
		r = read(fd, ev, sizeof(ev));
		if (r < 0)
			die("read /dev/hwtimer");
		seen = now_ns();
		for (i = 0; i < r / sizeof(ev[0]) && got < n_lat; i++) {
			cb[got] = (int64_t)(ev[i].fire_ns - ev[i].deadline_ns);
			dl[got] = (int64_t)(seen - ev[i].fire_ns);
			late[got++] = (int64_t)(seen - ev[i].deadline_ns);
			kearly += ev[i].fire_ns < ev[i].deadline_ns;
		}
	}
	close(fd);
	free(ops);
	return kearly;
}

/* One timerfd round: lateness of each timeout into @late. */
static void lat_timerfd(const uint64_t *delay, int64_t *late)
{
	struct epoll_event ev[256];
	unsigned int got = 0, nfd, i;
	uint64_t base, seen, exp;
	int ep, n, *fds;

	raise_nofile(n_lat + 64);
	fds = tfd_pool(n_lat, &nfd);
	if (nfd < n_lat) {
		errno = EMFILE;
		die("only %u timerfds for the lateness run", nfd);
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n_lat; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e))
			die("epoll_ctl");
	}
	base = now_ns() + LAT_LEAD_NS;
	for (i = 0; i < n_lat; i++)
		tfd_set(fds[i], base + delay[i], TFD_TIMER_ABSTIME);
	if (now_ns() > base)
		fprintf(stderr, "# timerfd: arming ran past the first deadline\n");
	while (got < n_lat) {
		n = epoll_wait(ep, ev, 256, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait");
		seen = now_ns();
		for (i = 0; i < (unsigned int)n; i++) {
			unsigned int k = ev[i].data.u32;

			if (read(fds[k], &exp, sizeof(exp)) != sizeof(exp))
				continue;
			late[got++] = (int64_t)(seen - (base + delay[k]));
		}
	}
	close(ep);
	tfd_pool_close(fds, nfd);
}

/* Rounds of the lateness run; the round with the median p99 is reported. */
#define LAT_ROUNDS	3

static int64_t lat_p99(const int64_t *late)
{
	return late[(uint64_t)n_lat * 99 / 100];
}

/* Index of the round whose p99 is the median of the LAT_ROUNDS rounds. */
static unsigned int median_round(int64_t *const late[LAT_ROUNDS])
{
	unsigned int r, k, below;

	for (r = 0; r < LAT_ROUNDS; r++) {
		below = 0;
		for (k = 0; k < LAT_ROUNDS; k++)
			below += lat_p99(late[k]) < lat_p99(late[r]) ||
				 (lat_p99(late[k]) == lat_p99(late[r]) && k < r);
		if (below == LAT_ROUNDS / 2)
			return r;
	}
	return 0;
}

/*
 * hwtimer and timerfd take turns for LAT_ROUNDS rounds with the same
 * delays; for each, the round with the median p99 is reported, so one
 * round disturbed by the host's other load does not decide the figure.
 */
static void bench_lateness(void)
{
	uint64_t *delay = calloc(n_lat, sizeof(*delay));
	int64_t *hl[LAT_ROUNDS], *tl[LAT_ROUNDS], *cb[LAT_ROUNDS];
	int64_t *dl[LAT_ROUNDS];
	unsigned int i, r, m, kearly = 0, hearly = 0, tearly = 0;

	if (!delay)
		die("calloc");
	for (i = 0; i < n_lat; i++)
		delay[i] = rnd64() % LAT_SPREAD_NS;
	for (r = 0; r < LAT_ROUNDS; r++) {
		hl[r] = calloc(n_lat, sizeof(int64_t));
		tl[r] = calloc(n_lat, sizeof(int64_t));
		cb[r] = calloc(n_lat, sizeof(int64_t));
		dl[r] = calloc(n_lat, sizeof(int64_t));
		if (!hl[r] || !tl[r] || !cb[r] || !dl[r])
			die("calloc");
		kearly += lat_hwtimer(delay, hl[r], cb[r], dl[r]);
		lat_timerfd(delay, tl[r]);
		qsort(hl[r], n_lat, sizeof(int64_t), cmp_s64);
		qsort(cb[r], n_lat, sizeof(int64_t), cmp_s64);
		qsort(dl[r], n_lat, sizeof(int64_t), cmp_s64);
		qsort(tl[r], n_lat, sizeof(int64_t), cmp_s64);
		for (i = 0; i < n_lat; i++) {
			hearly += hl[r][i] < 0;
			tearly += tl[r][i] < 0;
		}
	}
	emit("lateness", "kernel_early", "hwtimer", n_lat * LAT_ROUNDS, kearly,
	     "count");
	emit("lateness", "early_all_rounds", "hwtimer", n_lat * LAT_ROUNDS,
	     hearly, "count");
	emit("lateness", "early_all_rounds", "timerfd", n_lat * LAT_ROUNDS,
	     tearly, "count");
	m = median_round(hl);
	lat_report("hwtimer", hl[m], n_lat);
	lat_summary("hwtimer-callback", cb[m], n_lat);
	lat_summary("hwtimer-delivery", dl[m], n_lat);
	lat_report("timerfd", tl[median_round(tl)], n_lat);
	for (r = 0; r < LAT_ROUNDS; r++) {
		free(hl[r]);
		free(tl[r]);
		free(cb[r]);
		free(dl[r]);
	}
	free(delay);
}

/* A "key value" line of the default wheel's debugfs stats. */
static long long wheel_stat(const char *key)
{
	return file_field(DEBUGFS_STATS, key, ' ', false);
}

static void idle_rate(const char *what)
{
	long long a, b;
	uint64_t t0, t1;

	a = wheel_stat("hrtimer_fires");
	t0 = now_ns();
	sleep(idle_s);
	b = wheel_stat("hrtimer_fires");
	t1 = now_ns();
	if (a < 0 || b < 0) {
		fprintf(stderr, "# no %s: idle test skipped\n", DEBUGFS_STATS);
		return;
	}
	emit("idle", "hrtimer_fires_per_s", what,
	     (unsigned long)wheel_stat("pending"),
	     (double)(b - a) * NSEC_PER_SEC / (t1 - t0), "1/s");
}

static void bench_idle(void)
{
	int fd;

	idle_rate("nothing-pending");
	fd = hw_open();
	hw_arm1(fd, 3600ULL * NSEC_PER_SEC, 0);
	idle_rate("one-1h-away");
	close(fd);
}

int main(int argc, char **argv)
{
	const char *only = "cost,memory,lateness,idle";
	int c;

	while ((c = getopt(argc, argv, "n:m:l:r:i:o:")) != -1) {
		switch (c) {
		case 'n':
			n_cost = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			n_mem = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			n_lat = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			idle_s = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			only = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n cost_n] [-m mem_n] [-l lat_n] [-r reps] [-i idle_s] [-o cost,memory,lateness,idle]\n",
				argv[0]);
			return 2;
		}
	}
	if (!n_cost || !n_mem || !n_lat || !reps)
		return 2;
	srandom(1);
	raise_nofile((n_cost > n_mem ? n_cost : n_mem) + 64);
	if (strstr(only, "idle"))
		bench_idle();
	if (strstr(only, "cost"))
		bench_cost();
	if (strstr(only, "memory"))
		bench_memory();
	if (strstr(only, "lateness"))
		bench_lateness();
	return 0;
}
