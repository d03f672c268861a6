/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_test.h - what the userspace selftests of /dev/hwtimer on
 * kselftest_harness.h share: the ctx fixture, which opens /dev/hwtimer
 * and closes every file the test left open, the ioctl helpers, and the
 * programs' main(). kselftest_harness.h keeps a program's tests in its one
 * translation unit, so each area is a program of its own that includes
 * this once: hwtimer_test.c (the ioctls, read, BATCH, limits) and
 * hwtimer_ring.c (the timer rings).
 *
 * Every check is one TEST_F of the ctx fixture; each runs in a child of
 * its own and prints one result line. Run as root and as an unprivileged
 * user; built also with -m32 to cover compat_ptr_ioctl.
 *
 * Timing tolerances. "Never early" is exact: an event's fire time, and the
 * moment read() returns it, are never before its deadline. "Late by" is
 * bounded by LATE_MAX_NS, which is generous on purpose: the tests run in a
 * software-emulated (TCG) VM, sometimes with KASAN and lockdep, where a
 * vCPU can stall for hundreds of milliseconds. The bound still catches a
 * timeout served a whole wheel level late or never.
 */
#ifndef HWTIMER_TEST_H
#define HWTIMER_TEST_H

#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest_harness.h"

/*
 * The harness kills a test after TEST_TIMEOUT_DEFAULT seconds (30). The
 * debug kernel under software emulation runs the races and the large
 * batches ten and more times slower than a stock one, so every test here
 * gets 300 s; the guest fragment's own bound still caps the whole run.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#define DEV		"/dev/hwtimer"
#define PARAM_CAP	"/sys/module/hwtimer/parameters/ctx_max_pending"
#define PARAM_USER	"/sys/module/hwtimer/parameters/max_user_timeouts"
#define MS		1000000ULL
/* Most a timeout may be late here; see the comment at the top. */
#define LATE_MAX_NS	(2000 * MS)
/* How long to wait for an event that must come. */
#define WAIT_MS		5000
#define PAT64		0xaaaaaaaaaaaaaaaaULL

static_assert(sizeof(struct hwtimer_api) == 80, "api size");
static_assert(sizeof(struct hwtimer_arm_req) == 56, "arm size");
static_assert(sizeof(struct hwtimer_cancel_req) == 32, "cancel size");
static_assert(sizeof(struct hwtimer_modify_req) == 40, "modify size");
static_assert(sizeof(struct hwtimer_batch_op) == 64, "batch op size");
static_assert(sizeof(struct hwtimer_batch) == 40, "batch size");
static_assert(sizeof(struct hwtimer_eventfd_req) == 24, "eventfd size");
static_assert(sizeof(struct hwtimer_stats_req) == 472, "stats size");
static_assert(sizeof(struct hwtimer_event) == 48, "event size");
static_assert(offsetof(struct hwtimer_event, res) == 32, "event res");
static_assert(sizeof(struct hwtimer_ring_setup) == 104, "ring setup size");
static_assert(offsetof(struct hwtimer_ring_setup, map_size) == 24, "map_size");
static_assert(offsetof(struct hwtimer_ring_setup, id_tag) == 68, "id_tag");
static_assert(offsetof(struct hwtimer_ring_setup, ev_queued) == 72, "ev_queued");
static_assert(offsetof(struct hwtimer_ring_setup, reserved) == 80, "setup resv");
static_assert(sizeof(struct hwtimer_sqe) == 48, "sqe size");
static_assert(offsetof(struct hwtimer_sqe, slot) == 8, "sqe slot");
static_assert(offsetof(struct hwtimer_sqe, deadline_ns) == 16, "sqe deadline");
static_assert(offsetof(struct hwtimer_sqe, reserved) == 40, "sqe reserved");
static_assert(sizeof(struct hwtimer_ring_enter) == 24, "enter size");

/* The module's tick, learnt in FIXTURE_SETUP; one millisecond if unknown. */
static uint64_t tick_ns = MS;

#define CTX_FDS		8

/* FIXTURE(ctx) declares struct _test_data_ctx, the type of a test's @self. */
FIXTURE(ctx) {
	int fd;			/* the test's first file of /dev/hwtimer */
	int fds[CTX_FDS];	/* every file the test opened; -1 once closed */
};

/* Open one more file of /dev/hwtimer, closed by the teardown if not before. */
static inline int open_dev(struct __test_metadata *_metadata, struct _test_data_ctx *self)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC), i;

	ASSERT_LE(0, fd) {
		TH_LOG("open %s: %s", DEV, strerror(errno));
	}
	for (i = 0; i < CTX_FDS && self->fds[i] >= 0; i++)
		;
	ASSERT_GT(CTX_FDS, i) {
		close(fd);
		TH_LOG("more than %d files open", CTX_FDS);
	}
	self->fds[i] = fd;
	return fd;
}

/* Have the teardown close @fd (an eventfd, a pipe, a dup) too. */
static inline int track_fd(struct _test_data_ctx *self, int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < CTX_FDS; i++) {
		if (self->fds[i] < 0) {
			self->fds[i] = fd;
			break;
		}
	}
	return fd;
}

/* Close @fd now, and forget it so that the teardown does not close it again. */
static inline void close_dev(struct _test_data_ctx *self, int fd)
{
	int i;

	for (i = 0; i < CTX_FDS; i++)
		if (self->fds[i] == fd)
			self->fds[i] = -1;
	close(fd);
}

static inline uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ioctl returning 0 or -errno. */
static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int arm_full(int fd, uint64_t cookie, uint64_t deadline,
			   uint64_t period, uint32_t clock, uint32_t flags,
			   uint64_t *id)
{
	struct hwtimer_arm_req r = {
		.cookie = cookie, .deadline_ns = deadline,
		.period_ns = period, .clock = clock, .flags = flags,
	};
	int ret = xioctl(fd, HWTIMER_IOC_ARM, &r);

	if (!ret && id)
		*id = r.id;
	return ret;
}

static inline int arm(int fd, uint64_t cookie, uint64_t rel, uint64_t *id)
{
	return arm_full(fd, cookie, rel, 0, CLOCK_MONOTONIC, 0, id);
}

static inline int cancel(int fd, uint64_t id, uint32_t *result)
{
	struct hwtimer_cancel_req r = { .id = id };
	int ret = xioctl(fd, HWTIMER_IOC_CANCEL, &r);

	if (result)
		*result = r.result;
	return ret;
}

static inline int modify(int fd, uint64_t id, uint64_t deadline, uint32_t flags,
			 uint32_t *result)
{
	struct hwtimer_modify_req r = {
		.id = id, .deadline_ns = deadline, .flags = flags,
	};
	int ret = xioctl(fd, HWTIMER_IOC_MODIFY, &r);

	if (result)
		*result = r.result;
	return ret;
}

static inline int stats(int fd, struct hwtimer_stats_req *st)
{
	memset(st, 0, sizeof(*st));
	st->clock = CLOCK_MONOTONIC;
	return xioctl(fd, HWTIMER_IOC_STATS, st);
}

/* Pending timeouts of a context, per STATS; U64_MAX on error. */
static inline uint64_t stats_pending(int fd)
{
	struct hwtimer_stats_req st;

	return stats(fd, &st) ? UINT64_MAX : st.ctx_pending;
}

/*
 * Wait until the context has queued @n records (or, with @fired, counted
 * @n expiries). Polls STATS: under TCG a vCPU can stall for a long time, so
 * no check assumes an expiry was served after any fixed sleep.
 */
static inline bool wait_count(int fd, uint64_t n, bool fired)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	struct hwtimer_stats_req st;

	do {
		if (stats(fd, &st))
			return false;
		if ((fired ? st.ctx_fired : st.ctx_queued) >= n)
			return true;
		sleep_ms(5);
	} while (now_ns(CLOCK_MONOTONIC) < end);
	return false;
}

/* Wait up to @ms for events, then read up to @max; returns records read. */
static inline int wait_events(int fd, struct hwtimer_event *ev, int max, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = read(fd, ev, max * sizeof(*ev));
	if (n < 0)
		return -errno;
	return n / sizeof(*ev);
}

static inline void *unmapped_ptr(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 4096);
	return p;
}

static inline void on_alarm(int sig)
{
	(void)sig;
}

static inline int set_eventfd(int fd, int efd)
{
	struct hwtimer_eventfd_req r = { .fd = efd };

	return xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r);
}

static inline int batch(int fd, struct hwtimer_batch_op *ops, uint32_t n,
			struct hwtimer_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = n;
	return xioctl(fd, HWTIMER_IOC_BATCH, b);
}

static inline uint64_t wheel_pending(void)
{
	struct hwtimer_stats_req st;
	int fd = open(DEV, O_RDWR);

	if (fd < 0 || stats(fd, &st))
		return UINT64_MAX;
	close(fd);
	return st.pending;
}

/* A module parameter's value, -1 if unreadable. */
static inline int read_param(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static inline int write_param(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", v);
	return fclose(f);
}

/* Module parameters a test changed, for the teardown to restore; -1: none. */
static int cap_saved = -1;
static int user_saved = -1;

/* Fill a context to @cap with far timeouts; returns 0 or -errno. */
static inline int fill_to(int fd, int cap)
{
	enum { CHUNK = 4096 };
	static struct hwtimer_batch_op ops[CHUNK];
	struct hwtimer_batch b;
	int done = 0, n, i;

	while (done < cap) {
		n = cap - done < CHUNK ? cap - done : CHUNK;
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < n; i++) {
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].deadline_ns = 100000 * MS;
			ops[i].clock = CLOCK_MONOTONIC;
		}
		if (batch(fd, ops, n, &b))
			return -errno;
		if (b.failed)
			return ops[n - 1].status ? ops[n - 1].status : -EIO;
		done += n;
	}
	return 0;
}

/*
 * Fault checks wait this long to see that a timeout that must not exist
 * does not fire. The decisive checks are the exact STATS counters; the wait
 * only gives a wrongly armed 20 ms timeout time to show up as a record.
 */
#define NOFIRE_MS	500

/*
 * read() that cannot hang a test whose records were lost: waits at most
 * NOFIRE_MS for one to be queued, else returns 0.
 */
static inline ssize_t read_queued(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, NOFIRE_MS) <= 0)
		return 0;
	return read(fd, buf, len);
}

#define EV		((ssize_t)sizeof(struct hwtimer_event))

/* Live timeouts in one context, per STATS. */
static inline uint64_t ctx_live(int fd)
{
	struct hwtimer_stats_req st;

	return stats(fd, &st) ? UINT64_MAX : st.ctx_live;
}

/* Run the calling thread on @cpu only. Return: false if it may not. */
static inline bool run_on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The first two CPUs this thread may run on, in @cpus (the first twice
 * when it may run on one only); the set in @allowed.
 * Return: false if sched_getaffinity() failed.
 */
static inline bool two_cpus(int cpus[2], cpu_set_t *allowed)
{
	int c, k = 0;

	cpus[0] = -1;
	cpus[1] = -1;
	if (sched_getaffinity(0, sizeof(*allowed), allowed))
		return false;
	for (c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, allowed))
			cpus[k++] = c;
	if (cpus[1] < 0)
		cpus[1] = cpus[0];
	return true;
}

/* The module's tick, from the API handshake of a file of its own. */
static inline uint64_t read_tick_ns(void)
{
	struct hwtimer_api a = { .api = HWTIMER_API };
	int fd = open(DEV, O_RDWR | O_CLOEXEC);
	uint64_t tick = 0;

	if (fd >= 0 && !xioctl(fd, HWTIMER_IOC_API, &a))
		tick = a.tick_ns;
	if (fd >= 0)
		close(fd);
	return tick;
}

FIXTURE_SETUP(ctx)
{
	int i;

	for (i = 0; i < CTX_FDS; i++)
		self->fds[i] = -1;
	/* The API test checks the handshake; here a failed one keeps 1 ms. */
	tick_ns = read_tick_ns() ?: MS;
	self->fd = open_dev(_metadata, self);
}

/* Every file the test left open, then the module parameters it changed. */
FIXTURE_TEARDOWN(ctx)
{
	int i;

	for (i = 0; i < CTX_FDS; i++)
		if (self->fds[i] >= 0)
			close_dev(self, self->fds[i]);
	if (cap_saved >= 0) {
		EXPECT_EQ(0, write_param(PARAM_CAP, cap_saved)) {
			TH_LOG("restore %s: %s", PARAM_CAP, strerror(errno));
		}
	}
	if (user_saved >= 0) {
		EXPECT_EQ(0, write_param(PARAM_USER, user_saved)) {
			TH_LOG("restore %s: %s", PARAM_USER, strerror(errno));
		}
	}
}

/*
 * Without a working sleep no timing check means anything: bail out before
 * the first test when nanosleep(20 ms) returns early (the nanosleep test
 * reports by how much).
 */
static inline bool nanosleep_sleeps(void)
{
	struct timespec ts = { 0, 20 * MS };
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	return !nanosleep(&ts, NULL) && now_ns(CLOCK_MONOTONIC) - t0 >= 20 * MS;
}

/* The main() of each test program: checks that it can test, then runs. */
static inline int hwtimer_test_main(int argc, char **argv)
{
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (stat(DEV, &st)) {
		ksft_print_header();
		ksft_exit_skip("%s missing: is the hwtimer module loaded?\n", DEV);
	}
	if (!nanosleep_sleeps()) {
		ksft_print_header();
		ksft_exit_fail_msg("nanosleep does not sleep in this %zu-bit build\n",
				   sizeof(long) * 8);
	}
	ksft_print_msg("uid %u, %zu-bit build\n", (unsigned int)geteuid(),
		       sizeof(long) * 8);
	return test_harness_run(argc, argv);
}

#endif /* HWTIMER_TEST_H */
