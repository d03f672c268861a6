// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_test - userspace selftests of /dev/hwtimer (kselftest TAP).
 *
 * Every check is one function and prints one result line, so the plan is
 * known up front. Run as root and as an unprivileged user; built also with
 * -m32 to cover compat_ptr_ioctl.
 *
 * Timing tolerances. "Never early" is exact: an event's fire time, and the
 * moment read() returns it, are never before its deadline. "Late by" is
 * bounded by LATE_MAX_NS, which is generous on purpose: the tests run in a
 * software-emulated (TCG) VM, sometimes with KASAN and lockdep, where a
 * vCPU can stall for hundreds of milliseconds. The bound still catches a
 * timeout served a whole wheel level late or never.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
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

#define DEV		"/dev/hwtimer"
#define PARAM_CAP	"/sys/module/hwtimer/parameters/ctx_max_pending"
#define PARAM_USER	"/sys/module/hwtimer/parameters/max_user_timeouts"
#define MS		1000000ULL
/* Most a timeout may be late here; see the comment at the top. */
#define LATE_MAX_NS	(2000 * MS)
/* How long to wait for an event that must come. */
#define WAIT_MS		5000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PAT64		0xaaaaaaaaaaaaaaaaULL

_Static_assert(sizeof(struct hwtimer_api) == 80, "api size");
_Static_assert(sizeof(struct hwtimer_arm_req) == 56, "arm size");
_Static_assert(sizeof(struct hwtimer_cancel_req) == 32, "cancel size");
_Static_assert(sizeof(struct hwtimer_modify_req) == 40, "modify size");
_Static_assert(sizeof(struct hwtimer_batch_op) == 64, "batch op size");
_Static_assert(sizeof(struct hwtimer_batch) == 40, "batch size");
_Static_assert(sizeof(struct hwtimer_eventfd_req) == 24, "eventfd size");
_Static_assert(sizeof(struct hwtimer_stats_req) == 472, "stats size");
_Static_assert(sizeof(struct hwtimer_event) == 48, "event size");

static int failed_check;
static char skip_reason[128];
static uint64_t tick_ns = MS;

/* Report why the current check fails; the check carries on to its end. */
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed_check = 1;
}

/* Pass when @cond holds; else report why and return false. */
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		return true;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed_check = 1;
	return false;
}

/* Mark the current check skipped, with a reason. */
static void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int open_dev(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fail("open %s: %s", DEV, strerror(errno));
	return fd;
}

/* ioctl returning 0 or -errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int arm_full(int fd, uint64_t cookie, uint64_t deadline,
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

static int arm(int fd, uint64_t cookie, uint64_t rel, uint64_t *id)
{
	return arm_full(fd, cookie, rel, 0, CLOCK_MONOTONIC, 0, id);
}

static int cancel(int fd, uint64_t id, uint32_t *result)
{
	struct hwtimer_cancel_req r = { .id = id };
	int ret = xioctl(fd, HWTIMER_IOC_CANCEL, &r);

	if (result)
		*result = r.result;
	return ret;
}

static int modify(int fd, uint64_t id, uint64_t deadline, uint32_t flags,
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

static int stats(int fd, struct hwtimer_stats_req *st)
{
	memset(st, 0, sizeof(*st));
	st->clock = CLOCK_MONOTONIC;
	return xioctl(fd, HWTIMER_IOC_STATS, st);
}

/* Pending timeouts of a context, per STATS; U64_MAX on error. */
static uint64_t stats_pending(int fd)
{
	struct hwtimer_stats_req st;

	return stats(fd, &st) ? UINT64_MAX : st.ctx_pending;
}

/*
 * Wait until the context has queued @n records (or, with @fired, counted
 * @n expiries). Polls STATS: under TCG a vCPU can stall for a long time, so
 * no check assumes an expiry was served after any fixed sleep.
 */
static bool wait_count(int fd, uint64_t n, bool fired)
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
static int wait_events(int fd, struct hwtimer_event *ev, int max, int ms)
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

static void *unmapped_ptr(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 4096);
	return p;
}

/* ---- the checks ---- */

static void t_open(void)
{
	struct stat st;
	int fd;

	if (!ok(stat(DEV, &st) == 0, "stat %s: %s", DEV, strerror(errno)))
		return;
	if (!ok(S_ISCHR(st.st_mode), "not a character device"))
		return;
	if (!ok((st.st_mode & 0666) == 0666, "mode %o, want 0666", st.st_mode & 0777))
		return;
	fd = open_dev();
	if (!ok(fd >= 0, "open"))
		return;
	close(fd);
}

static void t_api(void)
{
	struct hwtimer_api a;
	uint64_t want = 0;
	int fd = open_dev();

	memset(&a, 0xaa, sizeof(a));
	a.api = HWTIMER_API;
	a.features = HWTIMER_FEATURE_BATCH;
	a.flags = 0;
	memset(a.reserved, 0, sizeof(a.reserved));
	if (!ok(xioctl(fd, HWTIMER_IOC_API, &a) == 0, "API: %s", strerror(errno)))
		return;
	want = 1ULL << _IOC_NR(HWTIMER_IOC_API) | 1ULL << _IOC_NR(HWTIMER_IOC_ARM) |
	       1ULL << _IOC_NR(HWTIMER_IOC_CANCEL) | 1ULL << _IOC_NR(HWTIMER_IOC_MODIFY) |
	       1ULL << _IOC_NR(HWTIMER_IOC_BATCH) |
	       1ULL << _IOC_NR(HWTIMER_IOC_SET_EVENTFD) |
	       1ULL << _IOC_NR(HWTIMER_IOC_STATS);
	if (!ok(a.api == HWTIMER_API, "api %" PRIu64, (uint64_t)a.api))
		return;
	if (!ok(a.features == HWTIMER_FEATURES_ALL, "features %#" PRIx64,
		(uint64_t)a.features))
		return;
	if (!ok(a.ioctls == want, "ioctls %#" PRIx64 " want %#" PRIx64,
		(uint64_t)a.ioctls, want))
		return;
	if (!ok(a.event_size == sizeof(struct hwtimer_event), "event_size %u",
		a.event_size))
		return;
	if (!ok(a.tick_ns >= 10000 && a.tick_ns <= 1000000000ULL, "tick %" PRIu64,
		(uint64_t)a.tick_ns))
		return;
	if (!ok(a.max_pending > 0 && a.max_pending != PAT64, "max_pending"))
		return;
	if (!ok(!a.flags && !a.reserved[0] && !a.reserved[1] && !a.reserved[2] &&
		!a.reserved[3], "flags/reserved not zeroed"))
		return;
	tick_ns = a.tick_ns;
	close(fd);
}

static void t_api_bad(void)
{
	struct hwtimer_api a;
	int fd = open_dev();

	memset(&a, 0, sizeof(a));
	a.api = HWTIMER_API + 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL, "bad version accepted"))
		return;
	a.api = HWTIMER_API;
	a.features = 1ULL << 63;
	if (!ok(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL, "unknown feature accepted"))
		return;
	a.features = 0;
	a.flags = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL, "flags accepted"))
		return;
	a.flags = 0;
	a.reserved[3] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL, "reserved accepted"))
		return;
	close(fd);
}

static void t_enotty(void)
{
	char buf[512] = { 0 };
	int fd = open_dev();

	if (!ok(xioctl(fd, _IOWR(HWTIMER_IOC_MAGIC, 0x3f, struct hwtimer_api), buf) ==
		-ENOTTY, "unknown nr"))
		return;
	if (!ok(xioctl(fd, _IOWR(HWTIMER_IOC_MAGIC, 0x01, uint64_t), buf) == -ENOTTY,
		"ARM with the wrong size"))
		return;
	if (!ok(xioctl(fd, _IO(HWTIMER_IOC_MAGIC, 0x20), buf) == -ENOTTY,
		"_IO with no argument"))
		return;
	close(fd);
}

static void t_efault(void)
{
	unsigned long cmds[] = {
		HWTIMER_IOC_API, HWTIMER_IOC_ARM, HWTIMER_IOC_CANCEL,
		HWTIMER_IOC_MODIFY, HWTIMER_IOC_BATCH, HWTIMER_IOC_SET_EVENTFD,
		HWTIMER_IOC_STATS,
	};
	void *bad = unmapped_ptr();
	int fd = open_dev();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!ok(xioctl(fd, cmds[i], NULL) == -EFAULT, "cmd %#lx NULL", cmds[i]))
			return;
		if (!ok(xioctl(fd, cmds[i], bad) == -EFAULT, "cmd %#lx unmapped",
			cmds[i]))
			return;
	}
	close(fd);
}

static void t_arm_reserved(void)
{
	struct hwtimer_arm_req r = {
		.deadline_ns = 1000 * MS, .clock = CLOCK_MONOTONIC,
	};
	int fd = open_dev();

	r.reserved[1] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_ARM, &r) == -EINVAL, "reserved[1] accepted"))
		return;
	r.reserved[1] = 0;
	r.flags = 0x80000000;
	if (!ok(xioctl(fd, HWTIMER_IOC_ARM, &r) == -EINVAL, "unknown flag accepted"))
		return;
	close(fd);
}

static void t_arm_bad_clock(void)
{
	int fd = open_dev();

	if (!ok(arm_full(fd, 0, MS, 0, CLOCK_REALTIME, 0, NULL) == -EINVAL,
		"CLOCK_REALTIME accepted"))
		return;
	if (!ok(arm_full(fd, 0, MS, 0, 12345, 0, NULL) == -EINVAL, "clock 12345"))
		return;
	close(fd);
}

static void t_period_min(void)
{
	uint64_t id;
	uint32_t res;
	int fd = open_dev();

	if (!ok(arm_full(fd, 0, MS, tick_ns - 1, CLOCK_MONOTONIC, 0, NULL) == -EINVAL,
		"period below one tick accepted"))
		return;
	if (!ok(arm_full(fd, 0, MS, 1, CLOCK_MONOTONIC, 0, NULL) == -EINVAL,
		"period 1ns accepted"))
		return;
	if (!ok(arm_full(fd, 0, 1000 * MS, tick_ns, CLOCK_MONOTONIC, 0, &id) == 0,
		"period of one tick refused"))
		return;
	if (!ok(cancel(fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
		"cancel of the periodic"))
		return;
	close(fd);
}

/* A one-shot's event: id, cookie, deadline, fire time, flags. */
static void t_oneshot_event(void)
{
	struct hwtimer_event ev[2];
	uint64_t t0, t1, t2, id;
	int fd = open_dev();
	int n;

	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(arm(fd, 0xc00c1e, 20 * MS, &id) == 0, "arm"))
		return;
	t1 = now_ns(CLOCK_MONOTONIC);
	if (!ok(id != 0, "id 0"))
		return;
	n = wait_events(fd, ev, 2, WAIT_MS);
	t2 = now_ns(CLOCK_MONOTONIC);
	if (!ok(n == 1, "read %d events, want 1", n))
		return;
	if (!ok(ev[0].id == id, "id %#" PRIx64 " want %#" PRIx64, (uint64_t)ev[0].id, id))
		return;
	if (!ok(ev[0].cookie == 0xc00c1e, "cookie %#" PRIx64, (uint64_t)ev[0].cookie))
		return;
	if (!ok(ev[0].deadline_ns >= t0 + 20 * MS &&
		ev[0].deadline_ns < t1 + 20 * MS + tick_ns,
		"deadline %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]",
		(uint64_t)ev[0].deadline_ns, t0 + 20 * MS, t1 + 20 * MS))
		return;
	if (!ok(ev[0].fire_ns >= ev[0].deadline_ns, "fired %" PRIu64 " ns early",
		(uint64_t)(ev[0].deadline_ns - ev[0].fire_ns)))
		return;
	if (!ok(t2 >= ev[0].deadline_ns, "read returned before the deadline"))
		return;
	if (!ok(ev[0].overruns == 0, "overruns %" PRIu64, (uint64_t)ev[0].overruns))
		return;
	if (!ok(ev[0].clock == CLOCK_MONOTONIC, "clock %u", ev[0].clock))
		return;
	if (!ok(ev[0].flags == HWTIMER_EVENT_LAST, "flags %#x", ev[0].flags))
		return;
	close(fd);
}

/* Never early (exact) and late by at most LATE_MAX_NS, over many timeouts. */
static void t_never_early(void)
{
	struct hwtimer_event ev[64];
	uint64_t late, max_late = 0;
	int fd = open_dev();
	int i, got = 0, n;

	for (i = 0; i < 50; i++)
		if (!ok(arm(fd, i, (uint64_t)(i % 10 + 1) * 3 * MS + i * 7777, NULL) == 0,
			"arm %d", i))
			return;
	while (got < 50) {
		n = wait_events(fd, ev, 64, WAIT_MS);
		if (!ok(n > 0, "only %d of 50 fired", got))
			return;
		for (i = 0; i < n; i++) {
			if (!ok(ev[i].fire_ns >= ev[i].deadline_ns,
				"cookie %" PRIu64 " fired %" PRIu64 " ns early",
				(uint64_t)ev[i].cookie,
				(uint64_t)(ev[i].deadline_ns - ev[i].fire_ns)))
				return;
			late = ev[i].fire_ns - ev[i].deadline_ns;
			if (late > max_late)
				max_late = late;
		}
		got += n;
	}
	printf("# max lateness %" PRIu64 " us over 50 timeouts (bound %llu us)\n",
	       max_late / 1000, LATE_MAX_NS / 1000);
	if (!ok(max_late <= LATE_MAX_NS, "late by %" PRIu64 " ns", max_late))
		return;
	close(fd);
}

static void t_ids_unique(void)
{
	uint64_t ids[100];
	int fd = open_dev();
	int i, j;

	for (i = 0; i < 100; i++)
		if (!ok(arm(fd, i, 10000 * MS, &ids[i]) == 0, "arm %d", i))
			return;
	for (i = 0; i < 100; i++)
		for (j = 0; j < i; j++)
			if (!ok(ids[i] != ids[j], "ids %d and %d equal", i, j))
				return;
	close(fd);
}

static void t_cancel(void)
{
	struct hwtimer_cancel_req r;
	struct hwtimer_event ev;
	uint64_t id;
	int fd = open_dev();

	/* 500 ms: the cancel must come first even after a long vCPU stall. */
	if (!ok(arm(fd, 1, 500 * MS, &id) == 0, "arm"))
		return;
	memset(&r, 0xaa, sizeof(r));
	r.id = id;
	r.flags = 0;
	memset(r.reserved, 0, sizeof(r.reserved));
	if (!ok(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == 0, "cancel: %s", strerror(errno)))
		return;
	if (!ok(r.result == HWTIMER_RESULT_CANCELLED, "result %u", r.result))
		return;
	if (!ok(wait_events(fd, &ev, 1, 700) == 0, "cancelled timeout fired"))
		return;
	close(fd);
}

static void t_cancel_stale(void)
{
	uint64_t id, id2;
	int fd = open_dev();
	int i;

	if (!ok(arm(fd, 1, 1000 * MS, &id) == 0, "arm"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "first cancel"))
		return;
	if (!ok(cancel(fd, id, NULL) == -ENOENT, "second cancel of the same id"))
		return;
	if (!ok(arm(fd, 2, 1000 * MS, &id2) == 0, "arm again"))
		return;
	if (!ok(id2 != id, "id reused"))
		return;
	if (!ok(cancel(fd, id, NULL) == -ENOENT, "stale id matched the new timeout"))
		return;
	/*
	 * Free slots are reused oldest first: 200 rounds reuse every slot of
	 * the first table (64) three times, id's among them. The id layout is
	 * not ABI, so no new id may equal id, and id must stay unknown.
	 */
	for (i = 0; i < 200; i++) {
		if (!ok(cancel(fd, id2, NULL) == 0 && arm(fd, 3, 1000 * MS, &id2) == 0,
			"cancel and arm, round %d", i))
			return;
		if (!ok(id2 != id && cancel(fd, id, NULL) == -ENOENT,
			"round %d: stale id %#llx matched a new timeout (%#llx)", i,
			(unsigned long long)id, (unsigned long long)id2))
			return;
	}
	if (!ok(cancel(fd, 0, NULL) == -ENOENT, "id 0"))
		return;
	if (!ok(cancel(fd, 0x123456789abcdefULL, NULL) == -ENOENT, "random id"))
		return;
	close(fd);
}

/* The generation bits are checked, not only the index. */
static void t_cancel_generation(void)
{
	uint64_t id;
	int fd = open_dev();

	if (!ok(arm(fd, 1, 1000 * MS, &id) == 0, "arm"))
		return;
	if (!ok(cancel(fd, id ^ (1ULL << 40), NULL) == -ENOENT,
		"id with other generation bits matched"))
		return;
	if (!ok(modify(fd, id ^ (1ULL << 63), MS, 0, NULL) == -ENOENT,
		"modify with other generation bits matched"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "real id"))
		return;
	close(fd);
}

static void t_cancel_other_ctx(void)
{
	uint64_t id;
	int a = open_dev(), b = open_dev();

	if (!ok(arm(a, 1, 1000 * MS, &id) == 0, "arm on a"))
		return;
	if (!ok(arm(b, 1, 1000 * MS, NULL) == 0, "arm on b"))
		return;
	if (!ok(cancel(b, id, NULL) == -ENOENT, "b cancelled a's id"))
		return;
	if (!ok(modify(b, id, MS, 0, NULL) == -ENOENT, "b modified a's id"))
		return;
	if (!ok(cancel(a, id, NULL) == 0, "a's own cancel"))
		return;
	close(a);
	close(b);
}

static void t_cancel_fired(void)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id;
	int fd = open_dev();

	if (!ok(arm(fd, 7, MS, &id) == 0, "arm"))
		return;
	if (!ok(wait_count(fd, 1, false), "never fired"))
		return;
	if (!ok(cancel(fd, id, &res) == 0, "cancel of a fired, unread one-shot"))
		return;
	if (!ok(res == HWTIMER_RESULT_FIRED, "result %u want FIRED", res))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id,
		"event lost by the cancel"))
		return;
	if (!ok(cancel(fd, id, NULL) == -ENOENT, "id still known after read"))
		return;
	close(fd);
}

static void t_cancel_bad(void)
{
	struct hwtimer_cancel_req r = { 0 };
	uint64_t id;
	int fd = open_dev();

	if (!ok(arm(fd, 1, 1000 * MS, &id) == 0, "arm"))
		return;
	r.id = id;
	r.flags = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == -EINVAL, "flags accepted"))
		return;
	r.flags = 0;
	r.reserved[0] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == -EINVAL, "reserved accepted"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "still pending after bad cancels"))
		return;
	close(fd);
}

static void t_modify(void)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id, t0;
	int fd = open_dev();

	if (!ok(arm(fd, 9, 10000 * MS, &id) == 0, "arm"))
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(modify(fd, id, 30 * MS, 0, &res) == 0, "modify"))
		return;
	if (!ok(res == HWTIMER_RESULT_MODIFIED, "result %u", res))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "modified timeout did not fire"))
		return;
	if (!ok(ev.id == id && ev.cookie == 9, "wrong event"))
		return;
	if (!ok(ev.deadline_ns >= t0 + 30 * MS && ev.deadline_ns < t0 + 1000 * MS,
		"deadline not the new one"))
		return;
	if (!ok(ev.fire_ns >= ev.deadline_ns, "early"))
		return;
	if (!ok(modify(fd, id, MS, 0, NULL) == -ENOENT, "modify after read"))
		return;
	close(fd);
}

static void t_modify_later_abs(void)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id, dl;
	int fd = open_dev();

	if (!ok(arm(fd, 9, 200 * MS, &id) == 0, "arm"))
		return;
	dl = now_ns(CLOCK_MONOTONIC) + 600 * MS;
	if (!ok(modify(fd, id, dl, HWTIMER_ARM_ABS, &res) == 0 &&
		res == HWTIMER_RESULT_MODIFIED, "modify to absolute later"))
		return;
	if (!ok(wait_events(fd, &ev, 1, 400) == 0, "fired at the old deadline"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "did not fire"))
		return;
	if (!ok(ev.deadline_ns >= dl && ev.deadline_ns < dl + tick_ns,
		"deadline %" PRIu64 " want %" PRIu64,
		(uint64_t)ev.deadline_ns, dl))
		return;
	if (!ok(ev.fire_ns >= dl, "early"))
		return;
	close(fd);
}

static void t_modify_bad(void)
{
	struct hwtimer_modify_req r = { 0 };
	uint64_t id;
	int fd = open_dev();

	if (!ok(arm(fd, 1, 1000 * MS, &id) == 0, "arm"))
		return;
	if (!ok(modify(fd, id + 1, MS, 0, NULL) == -ENOENT, "unknown id"))
		return;
	if (!ok(modify(fd, id, MS, 0x10, NULL) == -EINVAL, "unknown flag"))
		return;
	r.id = id;
	r.reserved[1] = 5;
	if (!ok(xioctl(fd, HWTIMER_IOC_MODIFY, &r) == -EINVAL, "reserved accepted"))
		return;
	close(fd);
}

/* MODIFY of a periodic moves its next expiry and keeps its period. */
static void t_modify_periodic(void)
{
	uint64_t id, t0, period = 400 * MS;
	struct hwtimer_event ev;
	uint32_t res = 0;
	int fd = open_dev();

	if (!ok(arm_full(fd, 4, 100000 * MS, period, CLOCK_MONOTONIC, 0, &id) == 0,
		"arm"))
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(modify(fd, id, 20 * MS, 0, &res) == 0 &&
		res == HWTIMER_RESULT_MODIFIED, "modify: result %u", res))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id, "no expiry"))
		return;
	if (!ok(ev.deadline_ns >= t0 + 20 * MS && ev.fire_ns >= ev.deadline_ns &&
		ev.flags == 0, "first expiry deadline or flags"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "no second expiry"))
		return;
	if (!ok(ev.deadline_ns >= t0 + 20 * MS + period, "period not kept"))
		return;
	if (!ok(cancel(fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED, "cancel"))
		return;
	close(fd);
}

static void t_past_abs(void)
{
	struct hwtimer_event ev;
	uint64_t id, t0;
	int fd = open_dev();

	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(arm_full(fd, 3, 1, 0, CLOCK_MONOTONIC, HWTIMER_ARM_ABS, &id) == 0,
		"arm at absolute 1 ns"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "past deadline never fired"))
		return;
	if (!ok(ev.fire_ns - t0 < LATE_MAX_NS, "past deadline fired %" PRIu64 " ms late",
		(uint64_t)(ev.fire_ns - t0) / MS))
		return;
	if (!ok(ev.fire_ns >= ev.deadline_ns, "fire before deadline"))
		return;
	close(fd);
}

static void t_u64_max(void)
{
	struct hwtimer_event ev;
	uint64_t a, b;
	uint32_t ra = 0, rb = 0;
	int fd = open_dev();

	if (!ok(arm(fd, 1, UINT64_MAX, &a) == 0, "relative U64_MAX"))
		return;
	if (!ok(arm_full(fd, 2, UINT64_MAX, 0, CLOCK_MONOTONIC, HWTIMER_ARM_ABS,
			 &b) == 0, "absolute U64_MAX"))
		return;
	if (!ok(arm(fd, 3, UINT64_MAX - 5, NULL) == 0, "relative U64_MAX - 5"))
		return;
	if (!ok(wait_events(fd, &ev, 1, 200) == 0, "a U64_MAX deadline fired (wrap)"))
		return;
	if (!ok(cancel(fd, a, &ra) == 0 && ra == HWTIMER_RESULT_CANCELLED, "cancel a"))
		return;
	if (!ok(cancel(fd, b, &rb) == 0 && rb == HWTIMER_RESULT_CANCELLED, "cancel b"))
		return;
	close(fd);
}

static void t_periodic(void)
{
	struct hwtimer_event ev;
	uint64_t id, first = 0, period = 20 * MS;
	int fd = open_dev();
	int i;

	if (period < tick_ns)
		period = tick_ns;
	if (!ok(arm_full(fd, 5, period, period, CLOCK_MONOTONIC, 0, &id) == 0, "arm"))
		return;
	for (i = 0; i < 4; i++) {
		if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "expiry %d missing", i))
			return;
		if (!ok(ev.id == id && ev.cookie == 5, "wrong event"))
			return;
		if (!ok(ev.flags == 0, "flags %#x on a live periodic", ev.flags))
			return;
		if (!ok(ev.fire_ns >= ev.deadline_ns, "expiry %d early", i))
			return;
		if (!i)
			first = ev.deadline_ns;
		if (!ok((ev.deadline_ns - first) % period == 0,
			"deadline off the period grid by %" PRIu64 " ns",
			(uint64_t)((ev.deadline_ns - first) % period)))
			return;
	}
	if (!ok(ev.deadline_ns > first, "deadline did not advance"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "cancel"))
		return;
	close(fd);
}

/*
 * An unread periodic folds into one record with overruns, so memory does
 * not grow: ten periods after the first expiry there is still one record,
 * and it carries every expiry that passed (the read counts them: at least
 * 11, exact) and no more than the periods elapsed (never early, exact);
 * the context's fired counter is what the record carries (plus one the
 * re-armed timer may add before STATS).
 */
static void t_periodic_overruns(void)
{
	uint64_t id, t0, t1, period = 10 * MS, expiries, most;
	struct hwtimer_stats_req st;
	struct hwtimer_event ev[4];
	int fd = open_dev();
	int n;

	if (period < tick_ns)
		period = tick_ns;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(arm_full(fd, 6, period, period, CLOCK_MONOTONIC, 0, &id) == 0, "arm"))
		return;
	if (!ok(wait_count(fd, 1, false), "no first expiry"))
		return;
	sleep_ms(10 * period / MS);
	if (!ok(stats(fd, &st) == 0, "stats"))
		return;
	if (!ok(st.ctx_queued == 1, "%" PRIu64 " records queued, want 1",
		(uint64_t)st.ctx_queued))
		return;
	n = read(fd, ev, sizeof(ev));
	t1 = now_ns(CLOCK_MONOTONIC);
	if (!ok(n == (int)sizeof(ev[0]), "read %d bytes, want one record", n))
		return;
	expiries = 1 + ev[0].overruns;
	most = (t1 - t0) / period + 1;
	printf("# %" PRIu64 " expiries folded into one record, %" PRIu64
	       " ms period\n", expiries, (uint64_t)(period / MS));
	if (!ok(expiries >= 11, "record has %" PRIu64 " expiries, 11 periods passed",
		expiries))
		return;
	if (!ok(expiries <= most, "%" PRIu64 " expiries, more than %" PRIu64
		" periods elapsed (early)", expiries, most))
		return;
	/* The re-armed timer may have fired once more since the read. */
	if (!ok(stats(fd, &st) == 0 && st.ctx_fired >= expiries &&
		st.ctx_fired <= expiries + 1,
		"context counted %" PRIu64 " expiries, the record %" PRIu64,
		(uint64_t)st.ctx_fired, expiries))
		return;
	if (!ok(ev[0].fire_ns >= ev[0].deadline_ns, "latest deadline after its fire time"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "cancel"))
		return;
	close(fd);
}

static void t_periodic_cancel(void)
{
	struct hwtimer_event ev[8];
	uint64_t id;
	int fd = open_dev();
	int n;

	if (!ok(arm_full(fd, 5, tick_ns * 2, tick_ns * 2, CLOCK_MONOTONIC, 0, &id) == 0,
		"arm"))
		return;
	if (!ok(wait_events(fd, ev, 1, WAIT_MS) == 1, "no expiry"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "cancel"))
		return;
	/* At most one record, queued before the cancel, may still come. */
	n = wait_events(fd, ev, 8, 50);
	if (!ok(n <= 1, "%d records after cancel", n))
		return;
	if (!ok(n == 0 || ev[0].flags == HWTIMER_EVENT_LAST, "last record not LAST"))
		return;
	if (!ok(wait_events(fd, ev, 8, 100) == 0, "expiries after cancel"))
		return;
	close(fd);
}

static void t_boottime(void)
{
	struct hwtimer_event ev;
	uint64_t t0, id;
	int fd = open_dev();

	t0 = now_ns(CLOCK_BOOTTIME);
	if (!ok(arm_full(fd, 8, 20 * MS, 0, CLOCK_BOOTTIME, 0, &id) == 0, "arm"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "no event"))
		return;
	if (!ok(ev.clock == CLOCK_BOOTTIME, "clock %u", ev.clock))
		return;
	if (!ok(ev.deadline_ns >= t0 + 20 * MS &&
		ev.deadline_ns < now_ns(CLOCK_BOOTTIME), "deadline not on BOOTTIME"))
		return;
	if (!ok(ev.fire_ns >= ev.deadline_ns, "early"))
		return;
	close(fd);
}

static void t_read_short(void)
{
	struct hwtimer_event ev;
	int fd = open_dev();

	if (!ok(arm(fd, 1, 0, NULL) == 0, "arm"))
		return;
	if (!ok(wait_count(fd, 1, false), "never fired"))
		return;
	if (!ok(read(fd, &ev, sizeof(ev) - 1) == -1 && errno == EINVAL,
		"short read did not fail with EINVAL"))
		return;
	if (!ok(read(fd, &ev, 0) == -1 && errno == EINVAL, "zero read"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "event lost by short read"))
		return;
	close(fd);
}

static void t_read_nonblock(void)
{
	struct hwtimer_event ev;
	int fd = open(DEV, O_RDWR | O_NONBLOCK);

	if (!ok(fd >= 0, "open"))
		return;
	if (!ok(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN, "want EAGAIN"))
		return;
	if (!ok(arm(fd, 1, 1000 * MS, NULL) == 0, "arm"))
		return;
	if (!ok(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN,
		"want EAGAIN with pending, unfired timeouts"))
		return;
	close(fd);
}

static void t_read_blocking(void)
{
	struct hwtimer_event ev;
	uint64_t t0, t1;
	int fd = open_dev();
	ssize_t n;

	if (!ok(arm(fd, 1, 50 * MS, NULL) == 0, "arm"))
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	n = read(fd, &ev, sizeof(ev));
	t1 = now_ns(CLOCK_MONOTONIC);
	if (!ok(n == sizeof(ev), "read %zd", n))
		return;
	if (!ok(t1 >= ev.deadline_ns, "blocking read returned early"))
		return;
	if (!ok(t1 - t0 < 50 * MS + LATE_MAX_NS, "blocking read slept %" PRIu64 " ms",
		(t1 - t0) / MS))
		return;
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void t_read_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 50000 } };
	struct hwtimer_event ev;
	int fd = open_dev();
	ssize_t n;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(fd, &ev, sizeof(ev));
	err = errno;
	signal(SIGALRM, SIG_DFL);
	if (!ok(n == -1 && err == EINTR, "read gave %zd (%s), want EINTR", n,
		strerror(err)))
		return;
	close(fd);
}

/* read() returns as many whole records as fit, 0xAA-prefilled buffer. */
static void t_read_many_prefill(void)
{
	unsigned char buf[3 * sizeof(struct hwtimer_event) + 20];
	struct hwtimer_event ev[5];
	uint64_t w;
	size_t i;
	ssize_t n;
	int fd = open_dev();
	int k;

	for (k = 0; k < 5; k++)
		if (!ok(arm(fd, 100 + k, 0, NULL) == 0, "arm %d", k))
			return;
	if (!ok(wait_count(fd, 5, false), "not all 5 fired"))
		return;
	memset(buf, 0xaa, sizeof(buf));
	n = read(fd, buf, sizeof(buf));
	if (!ok(n == 3 * sizeof(struct hwtimer_event), "read %zd bytes, want 3 records",
		n))
		return;
	for (i = 0; i < (size_t)n; i += 8) {
		memcpy(&w, buf + i, 8);
		if (!ok(w != PAT64, "record byte %zu not written", i))
			return;
	}
	for (i = n; i < sizeof(buf); i++)
		if (!ok(buf[i] == 0xaa, "byte %zu past the records written", i))
			return;
	memcpy(ev, buf, 3 * sizeof(ev[0]));
	for (k = 0; k < 3; k++)
		if (!ok(ev[k].clock == CLOCK_MONOTONIC &&
			ev[k].flags == HWTIMER_EVENT_LAST && ev[k].overruns == 0,
			"record %d fields", k))
			return;
	n = read(fd, ev, sizeof(ev));
	if (!ok(n == 2 * sizeof(ev[0]), "second read %zd bytes, want 2 records", n))
		return;
	close(fd);
}

static void t_poll(void)
{
	struct pollfd p;
	int fd = open_dev();

	p.fd = fd;
	p.events = POLLIN;
	if (!ok(poll(&p, 1, 0) == 0, "POLLIN with nothing queued"))
		return;
	if (!ok(arm(fd, 1, 20 * MS, NULL) == 0, "arm"))
		return;
	if (!ok(poll(&p, 1, WAIT_MS) == 1 && (p.revents & POLLIN), "no POLLIN"))
		return;
	close(fd);
}

static void t_epoll(void)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	struct hwtimer_event ev;
	int fd = open_dev();
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (!ok(ep >= 0, "epoll_create1"))
		return;
	if (!ok(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) == 0, "epoll_ctl"))
		return;
	if (!ok(epoll_wait(ep, &out, 1, 0) == 0, "ready with nothing queued"))
		return;
	if (!ok(arm(fd, 1, 20 * MS, NULL) == 0, "arm"))
		return;
	if (!ok(epoll_wait(ep, &out, 1, WAIT_MS) == 1 && (out.events & EPOLLIN),
		"no EPOLLIN"))
		return;
	if (!ok(read(fd, &ev, sizeof(ev)) == sizeof(ev), "read"))
		return;
	if (!ok(epoll_wait(ep, &out, 1, 0) == 0, "still ready after read"))
		return;
	close(ep);
	close(fd);
}

static int set_eventfd(int fd, int efd)
{
	struct hwtimer_eventfd_req r = { .fd = efd };

	return xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r);
}

static void t_eventfd(void)
{
	struct pollfd p;
	uint64_t v = 0, total = 0;
	int fd = open_dev();
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int k;

	if (!ok(efd >= 0, "eventfd"))
		return;
	if (!ok(set_eventfd(fd, efd) == 0, "SET_EVENTFD: %s", strerror(errno)))
		return;
	for (k = 0; k < 3; k++)
		if (!ok(arm(fd, k, 10 * MS, NULL) == 0, "arm"))
			return;
	p.fd = efd;
	p.events = POLLIN;
	while (total < 3 && poll(&p, 1, WAIT_MS) == 1)
		if (read(efd, &v, 8) == 8)
			total += v;
	if (!ok(total == 3, "eventfd counted %" PRIu64 ", want 3", total))
		return;
	if (!ok(wait_count(fd, 3, true), "context counted fewer than 3"))
		return;
	if (!ok(read(efd, &v, 8) == -1 && errno == EAGAIN, "signalled too often"))
		return;
	close(efd);	/* the context keeps its own reference */
	if (!ok(arm(fd, 9, 0, NULL) == 0, "arm after closing the eventfd"))
		return;
	sleep_ms(50);
	close(fd);
}

static void t_eventfd_clear(void)
{
	struct hwtimer_event ev;
	uint64_t v = 0;
	int fd = open_dev();
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	if (!ok(set_eventfd(fd, efd) == 0, "set"))
		return;
	if (!ok(set_eventfd(fd, -1) == 0, "clear with -1"))
		return;
	if (!ok(arm(fd, 1, 0, NULL) == 0, "arm"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "never fired"))
		return;
	if (!ok(read(efd, &v, 8) == -1 && errno == EAGAIN,
		"cleared eventfd was signalled"))
		return;
	close(efd);
	close(fd);
}

static void t_eventfd_bad(void)
{
	struct hwtimer_eventfd_req r = { 0 };
	int fd = open_dev();
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (!ok(set_eventfd(fd, 9999) == -EBADF, "fd 9999"))
		return;
	if (!ok(set_eventfd(fd, -2) == -EBADF, "fd -2"))
		return;
	if (!ok(set_eventfd(fd, nul) == -EINVAL, "/dev/null accepted as eventfd"))
		return;
	if (!ok(set_eventfd(fd, fd) == -EINVAL, "hwtimer fd accepted as eventfd"))
		return;
	r.fd = -1;
	r.flags = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r) == -EINVAL, "flags"))
		return;
	r.flags = 0;
	r.reserved[0] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r) == -EINVAL, "reserved"))
		return;
	close(nul);
	close(fd);
}

static int batch(int fd, struct hwtimer_batch_op *ops, uint32_t n,
		 struct hwtimer_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = n;
	return xioctl(fd, HWTIMER_IOC_BATCH, b);
}

static void t_batch_arm_cancel(void)
{
	enum { N = 2000 };
	static struct hwtimer_batch_op ops[N];
	struct hwtimer_stats_req st;
	struct hwtimer_batch b;
	int fd = open_dev();
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < N; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = i;
		ops[i].deadline_ns = 10000 * MS + i;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].status = 0x55555555;
		ops[i].result = 0xaaaaaaaa;
		ops[i].id = PAT64;
	}
	if (!ok(batch(fd, ops, N, &b) == 0, "batch arm: %s", strerror(errno)))
		return;
	if (!ok(b.done == N && b.failed == 0, "done %u failed %u", b.done, b.failed))
		return;
	for (i = 0; i < N; i++)
		if (!ok(ops[i].status == 0 && ops[i].result == 0 && ops[i].id &&
			ops[i].id != PAT64, "op %d status %d", i, ops[i].status))
			return;
	if (!ok(stats(fd, &st) == 0 && st.ctx_pending == N, "ctx_pending %" PRIu64,
		(uint64_t)st.ctx_pending))
		return;
	for (i = 0; i < N; i++) {
		uint64_t id = ops[i].id;

		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_CANCEL;
		ops[i].id = id;
	}
	if (!ok(batch(fd, ops, N, &b) == 0 && b.done == N && !b.failed, "batch cancel"))
		return;
	for (i = 0; i < N; i++)
		if (!ok(ops[i].status == 0 && ops[i].result == HWTIMER_RESULT_CANCELLED,
			"cancel op %d: status %d result %u", i, ops[i].status,
			ops[i].result))
			return;
	if (!ok(stats(fd, &st) == 0 && st.ctx_pending == 0 && st.ctx_live == 0,
		"pending %" PRIu64 " live %" PRIu64 " after cancelling all",
		(uint64_t)st.ctx_pending, (uint64_t)st.ctx_live))
		return;
	close(fd);
}

/* Per-item status: bad items fail alone; the good ones go through. */
static void t_batch_status(void)
{
	struct hwtimer_batch_op ops[7];
	struct hwtimer_batch b;
	int fd = open_dev();
	uint64_t live;

	if (!ok(arm(fd, 1, 10000 * MS, &live) == 0, "arm"))
		return;
	memset(ops, 0, sizeof(ops));
	ops[0].op = HWTIMER_OP_ARM;		/* good */
	ops[0].deadline_ns = 1000 * MS;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[1] = ops[0];
	ops[1].clock = CLOCK_REALTIME;		/* bad clock */
	ops[2] = ops[0];
	ops[2].reserved = 1;			/* reserved */
	ops[3].op = HWTIMER_OP_CANCEL;		/* unknown id */
	ops[3].id = live + 12345;
	ops[4].op = 77;				/* unknown op */
	ops[5].op = HWTIMER_OP_MODIFY;		/* good */
	ops[5].id = live;
	ops[5].deadline_ns = 5000 * MS;
	ops[6] = ops[0];
	ops[6].period_ns = 1;			/* period too small */
	if (!ok(batch(fd, ops, 7, &b) == 0, "batch: %s", strerror(errno)))
		return;
	if (!ok(b.done == 7 && b.failed == 5, "done %u failed %u", b.done, b.failed))
		return;
	if (!ok(ops[0].status == 0 && ops[0].id, "good arm: %d", ops[0].status))
		return;
	if (!ok(ops[1].status == -EINVAL, "bad clock: %d", ops[1].status))
		return;
	if (!ok(ops[2].status == -EINVAL, "reserved: %d", ops[2].status))
		return;
	if (!ok(ops[3].status == -ENOENT, "unknown id: %d", ops[3].status))
		return;
	if (!ok(ops[4].status == -EINVAL, "unknown op: %d", ops[4].status))
		return;
	if (!ok(ops[5].status == 0 && ops[5].result == HWTIMER_RESULT_MODIFIED,
		"modify: %d/%u", ops[5].status, ops[5].result))
		return;
	if (!ok(ops[6].status == -EINVAL, "small period: %d", ops[6].status))
		return;
	close(fd);
}

static void t_batch_bad(void)
{
	struct hwtimer_batch_op op = { 0 };
	struct hwtimer_batch b = { 0 };
	int fd = open_dev();

	if (!ok(batch(fd, NULL, 0, &b) == 0 && b.done == 0, "empty batch"))
		return;
	if (!ok(batch(fd, NULL, 3, &b) == -EFAULT, "NULL ops"))
		return;
	if (!ok(batch(fd, unmapped_ptr(), 1, &b) == -EFAULT, "unmapped ops"))
		return;
	if (!ok(batch(fd, &op, HWTIMER_BATCH_MAX + 1, &b) == -EINVAL, "count > max"))
		return;
	memset(&b, 0, sizeof(b));
	b.ops = (uint64_t)(uintptr_t)&op;
	b.count = 1;
	b.flags = 2;
	if (!ok(xioctl(fd, HWTIMER_IOC_BATCH, &b) == -EINVAL, "flags"))
		return;
	b.flags = 0;
	b.reserved[1] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_BATCH, &b) == -EINVAL, "reserved"))
		return;
	close(fd);
}

/* STATS: every output word written (0xAA pre-fill), counters consistent. */
static void t_stats(void)
{
	struct hwtimer_stats_req st;
	uint64_t w;
	size_t i;
	int fd = open_dev();

	if (!ok(arm(fd, 1, 10000 * MS, NULL) == 0 && arm(fd, 2, 0, NULL) == 0, "arm"))
		return;
	if (!ok(wait_count(fd, 1, false), "never fired"))
		return;
	memset(&st, 0xaa, sizeof(st));
	st.clock = CLOCK_MONOTONIC;
	st.flags = 0;
	memset(st.reserved, 0, sizeof(st.reserved));
	if (!ok(xioctl(fd, HWTIMER_IOC_STATS, &st) == 0, "STATS: %s", strerror(errno)))
		return;
	for (i = 0; i < sizeof(st); i += 8) {
		memcpy(&w, (char *)&st + i, 8);
		if (!ok(w != PAT64, "stats byte %zu not written", i))
			return;
	}
	if (!ok(st.clock == CLOCK_MONOTONIC, "clock not echoed"))
		return;
	if (!ok(st.ctx_armed == 2 && st.ctx_pending == 1 && st.ctx_queued == 1 &&
		st.ctx_live == 2 && st.ctx_fired == 1,
		"armed %" PRIu64 " pending %" PRIu64 " queued %" PRIu64 " live %"
		PRIu64 " fired %" PRIu64, (uint64_t)st.ctx_armed,
		(uint64_t)st.ctx_pending, (uint64_t)st.ctx_queued,
		(uint64_t)st.ctx_live, (uint64_t)st.ctx_fired))
		return;
	if (!ok(st.tick_ns == tick_ns, "tick_ns %" PRIu64, (uint64_t)st.tick_ns))
		return;
	if (!ok(st.pending >= 1 && st.armed >= 2 && st.fired >= 1, "wheel counters"))
		return;
	close(fd);
}

static void t_stats_bad(void)
{
	struct hwtimer_stats_req st;
	int fd = open_dev();

	memset(&st, 0, sizeof(st));
	st.clock = CLOCK_REALTIME;
	if (!ok(xioctl(fd, HWTIMER_IOC_STATS, &st) == -EINVAL, "CLOCK_REALTIME"))
		return;
	st.clock = CLOCK_BOOTTIME;
	if (!ok(xioctl(fd, HWTIMER_IOC_STATS, &st) == 0, "CLOCK_BOOTTIME wheel"))
		return;
	st.reserved[0] = 1;
	if (!ok(xioctl(fd, HWTIMER_IOC_STATS, &st) == -EINVAL, "reserved"))
		return;
	close(fd);
}

static void t_fdinfo(void)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd = open_dev();
	int f;

	if (!ok(arm(fd, 1, 10000 * MS, NULL) == 0 && arm(fd, 2, 10000 * MS, NULL) == 0 &&
		arm(fd, 3, 0, NULL) == 0, "arm"))
		return;
	if (!ok(wait_count(fd, 1, false), "never fired"))
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (!ok(f >= 0, "open %s", path))
		return;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (!ok(n > 0, "read fdinfo"))
		return;
	buf[n] = 0;
	if (!ok(strstr(buf, "hwtimer-pending:\t2\n"), "pending missing:\n%s", buf))
		return;
	if (!ok(strstr(buf, "hwtimer-queued:\t1\n"), "queued missing:\n%s", buf))
		return;
	/* Three ids fit the first id table: 64 slots of 8 bytes. */
	if (!ok(strstr(buf, "hwtimer-table-bytes:\t512\n"), "table size missing:\n%s", buf))
		return;
	close(fd);
}

static uint64_t wheel_pending(void)
{
	struct hwtimer_stats_req st;
	int fd = open(DEV, O_RDWR);

	if (fd < 0 || stats(fd, &st))
		return UINT64_MAX;
	close(fd);
	return st.pending;
}

/* close() with pending, firing and unread timeouts cancels and frees all. */
static void t_close_pending(void)
{
	uint64_t before = wheel_pending(), after;
	int fd, i, r;

	for (r = 0; r < 5; r++) {
		fd = open_dev();
		if (!ok(fd >= 0, "open"))
			return;
		for (i = 0; i < 300; i++)
			if (!ok(arm(fd, i, (uint64_t)(i % 3) * tick_ns * 4, NULL) == 0,
				"arm %d", i))
				return;
		if (!ok(arm_full(fd, 1, tick_ns, tick_ns, CLOCK_MONOTONIC, 0, NULL) == 0,
			"arm periodic"))
			return;
		if (!ok(arm(fd, 1, 100000 * MS, NULL) == 0, "arm far"))
			return;
		if (r & 1)
			sleep_ms(5);
		close(fd);
	}
	sleep_ms(50);
	after = wheel_pending();
	if (!ok(after <= before, "wheel pending %" PRIu64 " -> %" PRIu64
		" after closing", before, after))
		return;
}

static void t_dup(void)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id;
	int fd = open_dev();
	int fd2 = dup(fd);

	if (!ok(arm(fd, 1, 10000 * MS, &id) == 0, "arm on fd"))
		return;
	if (!ok(cancel(fd2, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
		"cancel through the dup"))
		return;
	if (!ok(arm(fd2, 42, 10 * MS, &id) == 0, "arm on the dup"))
		return;
	close(fd2);
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id && ev.cookie == 42,
		"event of the dup not read through fd"))
		return;
	close(fd);
}

static void t_fork(void)
{
	struct hwtimer_event ev;
	int fd = open_dev();
	int status;
	pid_t pid;

	pid = fork();
	if (!ok(pid >= 0, "fork"))
		return;
	if (!pid)
		_exit(arm(fd, 0xf0f0, 10 * MS, NULL) == 0 ? 0 : 1);
	if (!ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		!WEXITSTATUS(status), "child's arm failed"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.cookie == 0xf0f0,
		"parent did not get the child's event"))
		return;
	close(fd);
}

static int read_cap(void)
{
	FILE *f = fopen(PARAM_CAP, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int cap_saved = -1;

static int write_cap(int v)
{
	FILE *f = fopen(PARAM_CAP, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", v);
	return fclose(f);
}

/* Fill a context to @cap with far timeouts; returns 0 or -errno. */
static int fill_to(int fd, int cap)
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

static void t_enospc(void)
{
	uint64_t id;
	int cap = read_cap(), want = cap, fd;

	if (cap < 0) {
		skip("%s not readable", PARAM_CAP);
		return;
	}
	if (geteuid() == 0) {
		want = 32;
		cap_saved = cap;
		if (!ok(write_cap(want) == 0, "lower the cap"))
			return;
	} else if (cap > 20000) {
		skip("cap %d too large to fill without root", cap);
		return;
	}
	fd = open_dev();
	if (!ok(fill_to(fd, want - 1) == 0, "fill to cap - 1"))
		return;
	if (!ok(arm(fd, 1, 100000 * MS, &id) == 0, "the last one under the cap"))
		return;
	if (!ok(arm(fd, 1, 100000 * MS, NULL) == -ENOSPC, "arm past the cap"))
		return;
	if (!ok(cancel(fd, id, NULL) == 0, "cancel one"))
		return;
	if (!ok(arm(fd, 1, 100000 * MS, NULL) == 0, "arm after freeing a slot"))
		return;
	if (!ok(arm(fd, 1, 100000 * MS, NULL) == -ENOSPC, "cap again"))
		return;
	close(fd);
}

/* An unread one-shot counts against the cap until it is read. */
static void t_enospc_unread(void)
{
	struct hwtimer_event ev;
	int cap = read_cap(), fd;

	if (geteuid() != 0 || cap < 0) {
		skip("needs root to lower the cap");
		return;
	}
	cap_saved = cap;
	if (!ok(write_cap(2) == 0, "lower the cap"))
		return;
	fd = open_dev();
	if (!ok(arm(fd, 1, 0, NULL) == 0 && arm(fd, 2, 0, NULL) == 0, "arm 2"))
		return;
	if (!ok(wait_count(fd, 2, false), "never fired"))
		return;
	if (!ok(arm(fd, 3, 0, NULL) == -ENOSPC, "unread events not counted"))
		return;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1, "read one"))
		return;
	if (!ok(arm(fd, 3, 0, NULL) == 0, "slot not freed by read"))
		return;
	close(fd);
}

/* The open file pins the module: delete_module must refuse. */
static void t_rmmod_refused(void)
{
	int fd, ret;

	if (geteuid() != 0) {
		skip("needs root");
		return;
	}
	fd = open_dev();
	ret = syscall(SYS_delete_module, "hwtimer", O_NONBLOCK);
	if (!ok(ret == -1 && (errno == EWOULDBLOCK || errno == EBUSY),
		"delete_module gave %d (%s) with a context open", ret,
		strerror(errno)))
		return;
	close(fd);
}

/* ---- regression checks: races, faults, signals, limits ---- */

/* Slab poison of a freed object (slub_debug=P): what a use-after-free reads. */
#define POISON64	0x6b6b6b6b6b6b6b6bULL
/* Status and header words the kernel never writes: "not written back". */
#define SENTINEL32	0x55555555U

/*
 * The program's own clock check. Every timing check below sleeps with
 * nanosleep(); a kernel that lacks the syscall a build uses (the -m32 build
 * needs the time32 or time64 compat entry) returns at once, and every
 * "nothing happened during N ms" check would pass without waiting. Exact:
 * a sleep never ends early.
 */
static void t_nanosleep(void)
{
	struct timespec ts = { 0, 20 * MS }, a, b;
	uint64_t slept;
	int ret;

	if (!ok(clock_gettime(CLOCK_MONOTONIC, &a) == 0, "clock_gettime: %s",
		strerror(errno)))
		return;
	ret = nanosleep(&ts, NULL);
	if (!ok(ret == 0, "nanosleep(20 ms): %s", strerror(errno)))
		return;
	if (!ok(clock_gettime(CLOCK_MONOTONIC, &b) == 0, "clock_gettime: %s",
		strerror(errno)))
		return;
	slept = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec -
		a.tv_nsec;
	printf("# nanosleep(20 ms) slept %" PRIu64 " us\n", slept / 1000);
	ok(slept >= 20 * MS, "nanosleep(20 ms) returned after %" PRIu64
	   " ns: this kernel does not sleep for a %zu-bit program", slept,
	   sizeof(long) * 8);
}

/* One anonymous mapping of @pages pages, read-write; NULL on failure. */
static void *map_pages(size_t pages, bool shared)
{
	void *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap: %s", strerror(errno));
		return NULL;
	}
	return p;
}

/* Last signal on_sig() caught; atomic, as the handler may run any time. */
static int sig_seen;

static void on_sig(int sig)
{
	__atomic_store_n(&sig_seen, sig, __ATOMIC_SEQ_CST);
}

static int seen_sig(void)
{
	return __atomic_load_n(&sig_seen, __ATOMIC_SEQ_CST);
}

/* Install on_sig for @sig without SA_RESTART; the old action into @old. */
static void catch_sig(int sig, struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_sig };

	sigemptyset(&sa.sa_mask);
	__atomic_store_n(&sig_seen, 0, __ATOMIC_SEQ_CST);
	sigaction(sig, &sa, old);
}

/*
 * ARM and BATCH racing readers on already-due one-shots. Each arm has its
 * own cookie; at the end every cookie armed must have come back in exactly
 * one record, with the id ARM returned. An ARM that returns the id of a
 * timer freed meanwhile (fired, read and reaped between the arm and the
 * copy-out of its id) gives a wrong id: slab poison under slub_debug=P, or
 * a KASAN report on the debug kernel.
 */
#define RACE_ARMERS	3
#define RACE_READERS	2
#define RACE_PER	131072		/* most arms per armer */
#define RACE_MS		3000		/* how long the armers run */
#define RACE_BATCH	16		/* ops per BATCH call */

struct race {
	int fd;
	bool batch;
	int stop_arm;			/* atomic: armers stop */
	int stop_read;			/* atomic: readers stop */
	uint64_t *arm_id;		/* by cookie: id ARM gave, 0 = not armed */
	uint64_t *ev_id;		/* by cookie: id of its record */
	uint32_t *ev_n;			/* by cookie: records seen */
	uint64_t armed;			/* atomic: successful arms */
	uint64_t nread;			/* atomic: records read */
	uint64_t strays;		/* atomic: records with unknown cookies */
	int err;			/* atomic: first unexpected errno */
	uint32_t used[RACE_ARMERS];	/* cookies each armer used */
};

struct racer {
	struct race *r;
	unsigned int idx;
};

static void race_err(struct race *r, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&r->err, &zero, err, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* One ARM per cookie; ENOSPC (readers behind) is retried. */
static void race_arm_one(struct race *r, uint64_t c)
{
	uint64_t id = 0;
	int ret;

	for (;;) {
		ret = arm(r->fd, c, 0, &id);
		if (ret != -ENOSPC)
			break;
		sched_yield();
	}
	if (ret) {
		race_err(r, -ret);
		return;
	}
	r->arm_id[c] = id;
	__atomic_fetch_add(&r->armed, 1, __ATOMIC_SEQ_CST);
}

/* RACE_BATCH ARM ops; a failed op leaves its cookie unarmed. */
static void race_arm_batch(struct race *r, uint64_t c)
{
	struct hwtimer_batch_op ops[RACE_BATCH];
	struct hwtimer_batch b;
	unsigned int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < RACE_BATCH; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = c + i;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	memset(&b, 0, sizeof(b));
	b.ops = (uint64_t)(uintptr_t)ops;
	b.count = RACE_BATCH;
	if (ioctl(r->fd, HWTIMER_IOC_BATCH, &b)) {
		race_err(r, errno);
		return;
	}
	for (i = 0; i < RACE_BATCH; i++) {
		if (ops[i].status) {
			if (ops[i].status != -ENOSPC)
				race_err(r, -ops[i].status);
			continue;
		}
		r->arm_id[c + i] = ops[i].id;
		__atomic_fetch_add(&r->armed, 1, __ATOMIC_SEQ_CST);
	}
}

static void *race_armer(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	uint64_t base = (uint64_t)me->idx * RACE_PER;
	uint32_t n = 0, step = r->batch ? RACE_BATCH : 1;

	while (!__atomic_load_n(&r->stop_arm, __ATOMIC_SEQ_CST) &&
	       n + step <= RACE_PER && !__atomic_load_n(&r->err, __ATOMIC_SEQ_CST)) {
		if (r->batch)
			race_arm_batch(r, base + n);
		else
			race_arm_one(r, base + n);
		n += step;
	}
	r->used[me->idx] = n;
	return NULL;
}

static void *race_reader(void *arg)
{
	struct race *r = ((struct racer *)arg)->r;
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	struct hwtimer_event ev[64];
	ssize_t n, i;
	uint64_t c;

	while (!__atomic_load_n(&r->stop_read, __ATOMIC_SEQ_CST)) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = read(r->fd, ev, sizeof(ev));
		if (n < 0) {
			if (errno != EAGAIN)
				race_err(r, errno);
			continue;
		}
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
			c = ev[i].cookie;
			if (c >= (uint64_t)RACE_ARMERS * RACE_PER) {
				__atomic_fetch_add(&r->strays, 1, __ATOMIC_SEQ_CST);
				continue;
			}
			r->ev_id[c] = ev[i].id;
			__atomic_fetch_add(&r->ev_n[c], 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_add(&r->nread, 1, __ATOMIC_SEQ_CST);
		}
	}
	return NULL;
}

/* Every cookie armed came back once, with ARM's id. */
static void race_verify(struct race *r)
{
	unsigned int a, bad = 0, poisoned = 0, lost = 0;
	uint64_t c, total = 0;
	uint32_t i;

	for (a = 0; a < RACE_ARMERS; a++) {
		total += r->used[a];
		for (i = 0; i < r->used[a]; i++) {
			c = (uint64_t)a * RACE_PER + i;
			if (!r->arm_id[c]) {
				if (r->ev_n[c] && bad++ < 5)
					printf("# cookie %#" PRIx64
					       ": record for a failed arm\n", c);
				continue;
			}
			if (r->arm_id[c] == POISON64)
				poisoned++;
			if (r->ev_n[c] == 0) {
				lost++;
				continue;
			}
			if (r->ev_n[c] != 1 || r->ev_id[c] != r->arm_id[c]) {
				if (bad++ < 5)
					printf("# cookie %#" PRIx64 ": ARM gave id %#" PRIx64
					       ", %u record(s), id %#" PRIx64 "\n", c,
					       r->arm_id[c], r->ev_n[c], r->ev_id[c]);
			}
		}
	}
	printf("# %" PRIu64 " cookies, %" PRIu64 " armed, %" PRIu64 " records read\n",
	       total, r->armed, r->nread);
	ok(!r->err, "unexpected error: %s", strerror(r->err));
	ok(r->armed > 0, "nothing armed");
	ok(!poisoned, "%u ARM(s) returned slab poison %#llx: a freed timer's id",
	   poisoned, POISON64);
	ok(!bad, "%u cookie(s) whose ARM id does not match its one record", bad);
	ok(!lost, "%u armed cookie(s) never delivered", lost);
	ok(!r->strays, "%" PRIu64 " record(s) with cookies nobody armed", r->strays);
}

static void arm_race(bool batch)
{
	struct racer armers[RACE_ARMERS], readers[RACE_READERS];
	pthread_t ta[RACE_ARMERS], tr[RACE_READERS];
	size_t n = (size_t)RACE_ARMERS * RACE_PER;
	struct race r = { .batch = batch };
	uint64_t end;
	unsigned int i;

	r.fd = open_dev();
	r.arm_id = calloc(n, sizeof(*r.arm_id));
	r.ev_id = calloc(n, sizeof(*r.ev_id));
	r.ev_n = calloc(n, sizeof(*r.ev_n));
	if (!ok(r.fd >= 0 && r.arm_id && r.ev_id && r.ev_n, "setup"))
		goto out;
	/* Two readers: the one that loses a record to the other must not block. */
	if (!ok(fcntl(r.fd, F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK"))
		goto out;
	for (i = 0; i < RACE_READERS; i++) {
		readers[i] = (struct racer){ &r, i };
		pthread_create(&tr[i], NULL, race_reader, &readers[i]);
	}
	for (i = 0; i < RACE_ARMERS; i++) {
		armers[i] = (struct racer){ &r, i };
		pthread_create(&ta[i], NULL, race_armer, &armers[i]);
	}
	sleep_ms(RACE_MS);
	__atomic_store_n(&r.stop_arm, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < RACE_ARMERS; i++)
		pthread_join(ta[i], NULL);
	/* Every arm is due: wait for its record, bounded for a lost one. */
	end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	while (__atomic_load_n(&r.nread, __ATOMIC_SEQ_CST) <
	       __atomic_load_n(&r.armed, __ATOMIC_SEQ_CST) &&
	       now_ns(CLOCK_MONOTONIC) < end)
		sleep_ms(10);
	sleep_ms(50);	/* a duplicate record would come now */
	__atomic_store_n(&r.stop_read, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < RACE_READERS; i++)
		pthread_join(tr[i], NULL);
	race_verify(&r);
out:
	free(r.arm_id);
	free(r.ev_id);
	free(r.ev_n);
	if (r.fd >= 0)
		close(r.fd);
}

static void t_arm_race_readers(void)
{
	arm_race(false);
}

static void t_batch_arm_race_readers(void)
{
	arm_race(true);
}

/*
 * Fault checks wait this long to see that a timeout that must not exist
 * does not fire. The decisive checks are the exact STATS counters; the wait
 * only gives a wrongly armed 20 ms timeout time to show up as a record.
 */
#define NOFIRE_MS	500

/* Live, pending and queued counts of a context are exactly these. */
static bool ctx_counts(int fd, uint64_t live, uint64_t pending, uint64_t queued)
{
	struct hwtimer_stats_req st;

	if (!ok(stats(fd, &st) == 0, "STATS: %s", strerror(errno)))
		return false;
	return ok(st.ctx_live == live && st.ctx_pending == pending &&
		  st.ctx_queued == queued,
		  "live %" PRIu64 " pending %" PRIu64 " queued %" PRIu64
		  ", want %" PRIu64 "/%" PRIu64 "/%" PRIu64,
		  (uint64_t)st.ctx_live, (uint64_t)st.ctx_pending,
		  (uint64_t)st.ctx_queued, live, pending, queued);
}

/* BATCH whose op array is read-only: EFAULT, and no op may take effect. */
static void t_batch_ro_ops(void)
{
	struct hwtimer_batch_op *ops = map_pages(1, false);
	struct hwtimer_event ev[4];
	struct hwtimer_batch b;
	int fd = open_dev();
	int i, ret;

	if (!ops || fd < 0)
		goto out;
	for (i = 0; i < 3; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = 0xa0 + i;
		ops[i].deadline_ns = 20 * MS;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	if (!ok(mprotect(ops, 4096, PROT_READ) == 0, "mprotect"))
		goto out;
	ret = batch(fd, ops, 3, &b);
	if (!ok(ret == -EFAULT, "BATCH with read-only ops gave %d, want -EFAULT", ret))
		goto out;
	if (!ctx_counts(fd, 0, 0, 0))
		goto out;
	i = wait_events(fd, ev, 4, NOFIRE_MS);
	if (!ok(i == 0, "%d record(s) of the faulted batch (cookie %#" PRIx64 ")",
		i, i > 0 ? (uint64_t)ev[0].cookie : 0))
		goto out;
	ctx_counts(fd, 0, 0, 0);
out:
	if (ops)
		munmap(ops, 4096);
	if (fd >= 0)
		close(fd);
}

/* ARM with a read-only request: EFAULT, and its timeout never fires. */
static void t_arm_ro_req(void)
{
	struct hwtimer_arm_req *r = map_pages(1, false);
	uint64_t end = now_ns(CLOCK_MONOTONIC) + 1000 * MS;
	struct hwtimer_event ev[8];
	int fd = open_dev();
	int i, n, wrong = 0, ret;

	if (!r || fd < 0)
		goto out;
	/* Due at once: it may fire before the kernel finds it cannot reply. */
	r->cookie = 0xb0;
	r->clock = CLOCK_MONOTONIC;
	if (!ok(mprotect(r, 4096, PROT_READ) == 0, "mprotect"))
		goto out;
	/*
	 * The timeout must fire between the arm and the failed copy-out to
	 * show: rare, so 1000 tries at least, and more for up to a second.
	 */
	for (i = 0; i < 20000 && (i < 1000 || now_ns(CLOCK_MONOTONIC) < end); i++) {
		ret = xioctl(fd, HWTIMER_IOC_ARM, r);
		if (ret != -EFAULT && !wrong++)
			fail("ARM %d with a read-only request gave %d, want -EFAULT",
			     i, ret);
	}
	printf("# %d ARMs with a read-only request\n", i);
	if (wrong)
		goto out;
	n = wait_events(fd, ev, 8, NOFIRE_MS);
	if (!ok(n == 0, "%d record(s) (first of possibly more) for ARMs that failed with EFAULT",
		n))
		goto out;
	ctx_counts(fd, 0, 0, 0);
out:
	if (r)
		munmap(r, 4096);
	if (fd >= 0)
		close(fd);
}

/* CANCEL with a read-only request: EFAULT, and the timeout still fires. */
static void t_cancel_ro_req(void)
{
	struct hwtimer_cancel_req *r = map_pages(1, false);
	struct hwtimer_event ev;
	int fd = open_dev();
	uint64_t id;
	int ret;

	if (!r || fd < 0)
		goto out;
	/* 300 ms: still pending when CANCEL runs, even after a vCPU stall. */
	if (!ok(arm(fd, 0xc0, 300 * MS, &id) == 0, "arm"))
		goto out;
	r->id = id;
	if (!ok(mprotect(r, 4096, PROT_READ) == 0, "mprotect"))
		goto out;
	ret = xioctl(fd, HWTIMER_IOC_CANCEL, r);
	if (!ok(ret == -EFAULT, "CANCEL with a read-only request gave %d, want -EFAULT",
		ret))
		goto out;
	if (!ok(stats_pending(fd) == 1, "the failed CANCEL cancelled the timeout"))
		goto out;
	ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id,
	   "timeout never fired after a CANCEL that failed with EFAULT");
out:
	if (r)
		munmap(r, 4096);
	if (fd >= 0)
		close(fd);
}

/* BATCH whose header is read-only: EFAULT and none of its ops happen. */
static void t_batch_ro_header(void)
{
	struct hwtimer_batch *b = map_pages(1, false);
	struct hwtimer_batch_op ops[2];
	struct hwtimer_event ev[4];
	int fd = open_dev();
	uint64_t keep;
	int ret, n;

	if (!b || fd < 0)
		goto out;
	/* 500 ms: the CANCEL op would find it pending after any stall. */
	if (!ok(arm(fd, 0xd0, 500 * MS, &keep) == 0, "arm"))
		goto out;
	memset(ops, 0, sizeof(ops));
	ops[0].op = HWTIMER_OP_ARM;
	ops[0].cookie = 0xd1;
	ops[0].deadline_ns = 20 * MS;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[1].op = HWTIMER_OP_CANCEL;
	ops[1].id = keep;
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = 2;
	if (!ok(mprotect(b, 4096, PROT_READ) == 0, "mprotect"))
		goto out;
	ret = xioctl(fd, HWTIMER_IOC_BATCH, b);
	if (!ok(ret == -EFAULT, "BATCH with a read-only header gave %d, want -EFAULT",
		ret))
		goto out;
	if (!ctx_counts(fd, 1, 1, 0))
		goto out;
	n = wait_events(fd, ev, 4, WAIT_MS);
	if (!ok(n == 1 && ev[0].id == keep, "got %d record(s), first cookie %#" PRIx64
		"; want only the timeout the batch's CANCEL must not have touched",
		n, n > 0 ? (uint64_t)ev[0].cookie : 0))
		goto out;
	n = wait_events(fd, ev, 4, NOFIRE_MS);
	ok(n == 0, "record of the faulted batch's ARM (cookie %#" PRIx64 ")",
	   n > 0 ? (uint64_t)ev[0].cookie : 0);
out:
	if (b)
		munmap(b, 4096);
	if (fd >= 0)
		close(fd);
}

/*
 * read() that cannot hang a test whose records were lost: waits at most
 * NOFIRE_MS for one to be queued, else returns 0.
 */
static ssize_t read_queued(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, NOFIRE_MS) <= 0)
		return 0;
	return read(fd, buf, len);
}

/* Arm @n due one-shots with cookies @cookie.. and wait until all are queued. */
static bool queue_due(int fd, uint64_t cookie, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!ok(arm(fd, cookie + i, 0, NULL) == 0, "arm %d", i))
			return false;
	return ok(wait_count(fd, n, false), "not all %d fired", n);
}

/*
 * Read with a guard: SIGALRM after @guard_ms interrupts a read() that
 * blocks; *blocked says whether it had to. A read that has records to
 * return does not block, so the guard only fires on a hang.
 */
static ssize_t guarded_readv(int fd, const struct iovec *iov, int n,
			     unsigned int guard_ms, bool *blocked)
{
	struct itimerval it = { .it_value = { guard_ms / 1000,
					      (guard_ms % 1000) * 1000 } };
	struct itimerval off = { 0 };
	struct sigaction old;
	ssize_t ret;
	int err;

	catch_sig(SIGALRM, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	ret = readv(fd, iov, n);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	*blocked = seen_sig() == SIGALRM;
	errno = err;
	return ret;
}

#define EV		((ssize_t)sizeof(struct hwtimer_event))
#define GUARD_MS	2000

/* readv() with one record queued and room for two returns the one. */
static void t_readv_no_block(void)
{
	struct hwtimer_event ev[2];
	struct iovec iov[2] = { { &ev[0], EV }, { &ev[1], EV } };
	bool blocked;
	ssize_t n;
	int fd = open_dev();

	if (fd < 0 || !queue_due(fd, 0xe0, 1))
		goto out;
	n = guarded_readv(fd, iov, 2, GUARD_MS, &blocked);
	/* Blocked: in the second iovec, with a record already copied. */
	if (!ok(!blocked, "readv blocked until the %d ms guard signal, then gave %zd",
		GUARD_MS, n))
		goto out;
	ok(n == EV && ev[0].cookie == 0xe0, "readv gave %zd (%s), want one record",
	   n, n < 0 ? strerror(errno) : "");
out:
	if (fd >= 0)
		close(fd);
}

/* Records parsed from @buf have cookies @cookie..+@n, each once. */
static bool cookies_once(const void *buf, int n, uint64_t cookie, uint32_t *seen)
{
	struct hwtimer_event ev;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(&ev, (const char *)buf + i * EV, EV);
		if (!ok(ev.cookie >= cookie && ev.cookie < cookie + 32 &&
			!(*seen & 1U << (ev.cookie - cookie)) && ev.id &&
			ev.flags == HWTIMER_EVENT_LAST,
			"record %d: cookie %#" PRIx64 " id %#" PRIx64 " flags %#x",
			i, (uint64_t)ev.cookie, (uint64_t)ev.id, ev.flags))
			return false;
		*seen |= 1U << (ev.cookie - cookie);
	}
	return true;
}

/* A record split across two iovecs: 10 + (2 records - 10) bytes hold two. */
static void t_readv_split(void)
{
	unsigned char buf[2 * EV];
	struct iovec iov[2] = { { buf, 10 }, { buf + 10, 2 * EV - 10 } };
	uint32_t seen = 0;
	bool blocked;
	ssize_t n;
	int fd = open_dev();

	if (fd < 0 || !queue_due(fd, 0xe8, 2))
		goto out;
	n = guarded_readv(fd, iov, 2, GUARD_MS, &blocked);
	if (!ok(!blocked, "readv blocked (ended by the %d ms guard signal)", GUARD_MS))
		goto out;
	if (!ok(n == 2 * EV, "readv of 10 + %zd bytes gave %zd (%s), want 2 records",
		2 * EV - 10, n, n < 0 ? strerror(errno) : ""))
		goto out;
	if (!cookies_once(buf, 2, 0xe8, &seen))
		goto out;
	ok(seen == 3, "cookies seen %#x", seen);
out:
	if (fd >= 0)
		close(fd);
}

/*
 * read() into a buffer whose second page is PROT_NONE: nothing fits before
 * it -> EFAULT; three records fit -> those three; every record taken but
 * not copied stays queued for the next read.
 */
static void t_read_fault_keeps(void)
{
	unsigned char *m = map_pages(2, false), *bad, good[6 * EV];
	uint32_t seen = 0;
	ssize_t n;
	int fd = open_dev();

	if (!m || fd < 0)
		goto out;
	bad = m + 4096;
	if (!ok(mprotect(bad, 4096, PROT_NONE) == 0, "mprotect"))
		goto out;
	if (!queue_due(fd, 0xf0, 6))
		goto out;
	n = read(fd, bad, 6 * EV);
	if (!ok(n == -1 && errno == EFAULT, "read into PROT_NONE gave %zd (%s)", n,
		strerror(errno)))
		goto out;
	if (!ctx_counts(fd, 6, 0, 6))
		goto out;
	/* Room for three whole records and 8 bytes of a fourth. */
	n = read_queued(fd, bad - 3 * EV - 8, 6 * EV);
	if (!ok(n == 3 * EV, "read ending in PROT_NONE gave %zd (%s), want 3 records",
		n, n < 0 ? strerror(errno) : ""))
		goto out;
	if (!cookies_once(bad - 3 * EV - 8, 3, 0xf0, &seen))
		goto out;
	n = read_queued(fd, good, sizeof(good));
	if (!ok(n == 3 * EV, "the read after the fault gave %zd, want the 3 left", n))
		goto out;
	if (!cookies_once(good, 3, 0xf0, &seen))
		goto out;
	ok(seen == 0x3f, "cookies seen %#x, want all 6", seen);
out:
	if (m)
		munmap(m, 8192);
	if (fd >= 0)
		close(fd);
}

/* readv() whose second iovec faults: the first's record, the rest kept. */
static void t_readv_fault_keeps(void)
{
	unsigned char *m = map_pages(2, false), good[4 * EV];
	struct iovec iov[2];
	uint32_t seen = 0;
	bool blocked;
	ssize_t n;
	int fd = open_dev();

	if (!m || fd < 0)
		goto out;
	if (!ok(mprotect(m + 4096, 4096, PROT_NONE) == 0, "mprotect"))
		goto out;
	if (!queue_due(fd, 0xf8, 4))
		goto out;
	iov[0] = (struct iovec){ m, EV };
	iov[1] = (struct iovec){ m + 4096, 3 * EV };
	n = guarded_readv(fd, iov, 2, GUARD_MS, &blocked);
	if (!ok(!blocked, "readv blocked (ended by the %d ms guard signal)", GUARD_MS))
		goto out;
	if (!ok(n == EV, "readv gave %zd (%s), want the first iovec's record", n,
		n < 0 ? strerror(errno) : ""))
		goto out;
	if (!cookies_once(m, 1, 0xf8, &seen))
		goto out;
	n = read_queued(fd, good, sizeof(good));
	if (!ok(n == 3 * EV, "the read after the fault gave %zd (%s), want the 3 left",
		n, n < 0 ? strerror(errno) : "no record: lost"))
		goto out;
	if (!cookies_once(good, 3, 0xf8, &seen))
		goto out;
	ok(seen == 0xf, "cookies seen %#x, want all 4", seen);
out:
	if (m)
		munmap(m, 8192);
	if (fd >= 0)
		close(fd);
}

/*
 * Ids of one context never match another open context's timeouts, however
 * many times a slot is reused: A arms and cancels 200 times (three trips
 * through its 63 first slots), and at each step neither context finds the
 * other's ids.
 */
static void t_ids_cross_ctx(void)
{
	int a = open_dev(), b = open_dev();
	uint64_t bid[4], id;
	uint32_t res;
	int i, k, ret;

	if (a < 0 || b < 0)
		goto out;
	for (k = 0; k < 4; k++)
		if (!ok(arm(b, 0xb00 + k, 100000 * MS, &bid[k]) == 0, "arm on B"))
			goto out;
	for (i = 0; i < 200; i++) {
		if (!ok(arm(a, i, 100000 * MS, &id) == 0, "arm %d on A", i))
			goto out;
		for (k = 0; k < 4; k++) {
			ret = cancel(a, bid[k], NULL);
			if (!ok(ret == -ENOENT, "cycle %d: B's id %#" PRIx64
				" on A gave %d, want -ENOENT (A's id %#" PRIx64 ")",
				i, bid[k], ret, id))
				goto out;
		}
		ret = cancel(b, id, NULL);
		if (!ok(ret == -ENOENT, "cycle %d: A's id %#" PRIx64
			" on B gave %d, want -ENOENT", i, id, ret))
			goto out;
		if (!ok(cancel(a, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
			"cycle %d: A's own cancel", i))
			goto out;
	}
	if (!ok(stats_pending(b) == 4, "B's timeouts touched"))
		goto out;
	for (k = 0; k < 4; k++)
		if (!ok(cancel(b, bid[k], &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
			"B's own cancel of %#" PRIx64, bid[k]))
			goto out;
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* A period whose next expiry is past U64_MAX: one expiry, its record LAST. */
static void t_period_u64_max(void)
{
	struct hwtimer_event ev;
	int fd = open_dev();
	uint64_t id;
	int n;

	if (fd < 0)
		goto out;
	if (!ok(arm_full(fd, 0x5a, 10 * MS, UINT64_MAX, CLOCK_MONOTONIC, 0, &id) == 0,
		"arm with period U64_MAX"))
		goto out;
	if (!ok(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id, "no expiry"))
		goto out;
	if (!ok(ev.fire_ns >= ev.deadline_ns, "early"))
		goto out;
	ok(ev.flags == HWTIMER_EVENT_LAST, "flags %#x: its only expiry is not LAST",
	   ev.flags);
	if (!ctx_counts(fd, 0, 0, 0))
		goto out;
	if (!ok(cancel(fd, id, NULL) == -ENOENT, "id still known after its last record"))
		goto out;
	n = wait_events(fd, &ev, 1, NOFIRE_MS);
	ok(n == 0, "a second expiry of a U64_MAX period");
out:
	if (fd >= 0)
		close(fd);
}

/*
 * O_ASYNC: SIGIO to the owner when a record becomes readable. The signal
 * is sent by the expiry that queues the record, so it is due by the time
 * poll() sees it; 1 s more covers a vCPU stall in its delivery.
 */
static void t_sigio(void)
{
	struct pollfd p;
	struct sigaction old;
	int fd = open_dev(), i, fl;

	if (fd < 0)
		return;
	catch_sig(SIGIO, &old);
	fl = fcntl(fd, F_GETFL);
	if (!ok(fcntl(fd, F_SETOWN, getpid()) == 0, "F_SETOWN: %s", strerror(errno)))
		goto out;
	if (!ok(fcntl(fd, F_SETFL, fl | O_ASYNC) == 0, "F_SETFL O_ASYNC: %s",
		strerror(errno)))
		goto out;
	ok(fcntl(fd, F_GETFL) & O_ASYNC, "O_ASYNC not kept by F_SETFL");
	if (!ok(seen_sig() == 0, "SIGIO with nothing queued"))
		goto out;
	if (!ok(arm(fd, 0x10, 20 * MS, NULL) == 0, "arm"))
		goto out;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (!ok(poll(&p, 1, WAIT_MS) == 1, "no expiry"))
		goto out;
	for (i = 0; i < 100 && seen_sig() != SIGIO; i++)
		sleep_ms(10);
	ok(seen_sig() == SIGIO, "no SIGIO when the record became readable");
out:
	close(fd);	/* before restoring: a late SIGIO must not kill us */
	sigaction(SIGIO, &old, NULL);
}

/* How long the long batch ran uninterrupted (t_batch_eintr), 0 unknown. */
static uint64_t long_batch_ns;

/* When to signal the long batch: 50 ms in, or a quarter of its run. */
static unsigned int long_batch_delay_ms(void)
{
	uint64_t q = long_batch_ns / MS / 4;

	if (!long_batch_ns || q >= 50)
		return 50;
	return q ? q : 1;
}

/* 65,536 MODIFYs of one far timeout: a long BATCH that leaves no state. */
static struct hwtimer_batch_op *long_batch(uint64_t id, struct hwtimer_batch_op *ops)
{
	uint32_t i;

	for (i = 0; i < HWTIMER_BATCH_MAX; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_MODIFY;
		ops[i].id = id;
		ops[i].deadline_ns = 100000 * MS + i;
		ops[i].status = (int32_t)SENTINEL32;
		ops[i].result = SENTINEL32;
	}
	return ops;
}

struct batch_run {
	int fd;
	struct hwtimer_batch b;
	int started;			/* atomic */
	int ret;
	int err;
	uint64_t t0, t1;
};

static void *batch_runner(void *arg)
{
	struct batch_run *r = arg;

	r->t0 = now_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&r->started, 1, __ATOMIC_SEQ_CST);
	r->ret = ioctl(r->fd, HWTIMER_IOC_BATCH, &r->b);
	r->err = errno;
	r->t1 = now_ns(CLOCK_MONOTONIC);
	return NULL;
}

static void batch_header(struct hwtimer_batch *b, struct hwtimer_batch_op *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = HWTIMER_BATCH_MAX;
	b->done = SENTINEL32;
	b->failed = SENTINEL32;
}

/* Run the long batch in a thread; SIGUSR1 to it after @ms (0: none). */
static void run_long_batch(struct batch_run *r, unsigned int ms)
{
	pthread_t t;

	__atomic_store_n(&r->started, 0, __ATOMIC_SEQ_CST);
	pthread_create(&t, NULL, batch_runner, r);
	while (!__atomic_load_n(&r->started, __ATOMIC_SEQ_CST))
		sched_yield();
	if (ms) {
		sleep_ms(ms);
		pthread_kill(t, SIGUSR1);
	}
	pthread_join(t, NULL);
}

/* Ops of @ops written back: status no longer the sentinel. */
static uint32_t written_back(const struct hwtimer_batch_op *ops)
{
	uint32_t i, n = 0;

	for (i = 0; i < HWTIMER_BATCH_MAX; i++)
		n += (uint32_t)ops[i].status != SENTINEL32;
	return n;
}

/*
 * A signal stops a long BATCH: EINTR, the header says how many ops were
 * done, those are written back and the rest untouched. The batch runs
 * uninterrupted first, to show it lasts well past the signal.
 */
static void t_batch_eintr(void)
{
	size_t sz = HWTIMER_BATCH_MAX * sizeof(struct hwtimer_batch_op);
	struct hwtimer_batch_op *ops = map_pages(sz / 4096, false);
	struct batch_run r = { .fd = open_dev() };
	unsigned int delay;
	struct sigaction old;
	uint64_t id, full;
	uint32_t i, res;

	if (!ops || r.fd < 0)
		goto out;
	if (!ok(arm(r.fd, 0x70, 100000 * MS, &id) == 0, "arm"))
		goto out;
	batch_header(&r.b, long_batch(id, ops));
	run_long_batch(&r, 0);
	full = r.t1 - r.t0;
	if (!ok(r.ret == 0 && r.b.done == HWTIMER_BATCH_MAX && !r.b.failed,
		"uninterrupted batch: %d (%s) done %u failed %u", r.ret,
		strerror(r.err), r.b.done, r.b.failed))
		goto out;
	/* The signal must come while the batch still runs. */
	long_batch_ns = full;
	delay = long_batch_delay_ms();
	printf("# %u MODIFYs take %" PRIu64 " ms; SIGUSR1 after %u ms\n",
	       HWTIMER_BATCH_MAX, (uint64_t)(full / MS), delay);

	catch_sig(SIGUSR1, &old);
	batch_header(&r.b, long_batch(id, ops));
	run_long_batch(&r, delay);
	sigaction(SIGUSR1, &old, NULL);
	printf("# interrupted batch: %d (%s) after %" PRIu64 " ms, done %u failed %u\n",
	       r.ret, r.ret ? strerror(r.err) : "ok", (uint64_t)((r.t1 - r.t0) / MS), r.b.done,
	       r.b.failed);
	if (!ok(r.ret == -1 && r.err == EINTR && r.b.done < HWTIMER_BATCH_MAX,
		"the signal did not stop the batch"))
		goto out;
	if (!ok(r.b.failed == 0, "header not written back: failed %#x", r.b.failed))
		goto out;
	for (i = 0; i < r.b.done; i++)
		if (!ok(ops[i].status == 0 && ops[i].result == HWTIMER_RESULT_MODIFIED,
			"op %u of %u done: status %d result %u", i, r.b.done,
			ops[i].status, ops[i].result))
			goto out;
	if (!ok(written_back(ops) == r.b.done, "%u ops written back, done says %u",
		written_back(ops), r.b.done))
		goto out;
	ok(cancel(r.fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
	   "timeout lost");
out:
	if (ops)
		munmap(ops, sz);
	if (r.fd >= 0)
		close(r.fd);
}

/*
 * SIGKILL ends a long BATCH promptly: the child's op array is shared, so
 * the parent sees how many ops were written back before the child died.
 * Tolerance: the child must be gone within 2 s of the kill (a vCPU stall
 * under TCG can take hundreds of ms; the whole batch takes longer than the
 * kill delay, as t_batch_eintr shows), and the batch must not have run to
 * its end (exact).
 */
static void t_batch_sigkill(void)
{
	size_t sz = HWTIMER_BATCH_MAX * sizeof(struct hwtimer_batch_op);
	struct hwtimer_batch_op *ops = map_pages(sz / 4096, true);
	struct hwtimer_batch b;
	uint64_t t_kill, t_dead;
	int pipefd[2], status;
	uint32_t done;
	pid_t pid;
	char c;

	if (!ops || !ok(pipe(pipefd) == 0, "pipe"))
		goto out;
	pid = fork();
	if (!pid) {
		int fd = open(DEV, O_RDWR);
		uint64_t id;

		if (fd < 0 || arm(fd, 0x71, 100000 * MS, &id))
			_exit(1);
		batch_header(&b, long_batch(id, ops));
		if (write(pipefd[1], "g", 1) != 1)
			_exit(1);
		ioctl(fd, HWTIMER_IOC_BATCH, &b);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (!ok(pid > 0 && read(pipefd[0], &c, 1) == 1, "child did not start"))
		goto out_close;
	sleep_ms(long_batch_delay_ms());
	t_kill = now_ns(CLOCK_MONOTONIC);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	t_dead = now_ns(CLOCK_MONOTONIC);
	done = written_back(ops);
	printf("# child gone %" PRIu64 " ms after SIGKILL, %u of %u ops written back\n",
	       (uint64_t)((t_dead - t_kill) / MS), done, HWTIMER_BATCH_MAX);
	if (!ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child not killed"))
		goto out_close;
	if (!ok(done < HWTIMER_BATCH_MAX, "the batch ran all %u ops after SIGKILL",
		HWTIMER_BATCH_MAX))
		goto out_close;
	ok(t_dead - t_kill <= 2000 * MS, "child took %" PRIu64 " ms to die",
	   (uint64_t)((t_dead - t_kill) / MS));
out_close:
	close(pipefd[0]);
out:
	if (ops)
		munmap(ops, sz);
}

/*
 * An unread periodic timeout costs nothing per period (timerfd): with its
 * record waiting, a 1-tick periodic makes the wheel run at most a few
 * callbacks over 200 periods; the record then read carries every expiry.
 * Tolerances: wheel callbacks <= 10 over the 200 periods (a kernel that
 * computes overruns when the record is read runs none; 10 leaves room for
 * stray timeouts of other tests on the shared wheel, far below the ~200 of
 * per-period callbacks). overruns within 30% of the periods elapsed
 * between the first expiry and the read (the read's moment is known only
 * as our clock reads around it, and a TCG vCPU stall between those and the
 * kernel's can be tens of ms, which is tens of periods). The record's
 * deadline is never after the read returned (exact) and at most one
 * period and one tick (the wheel's resolution) before the read started.
 */
static void t_periodic_unread_free(void)
{
	uint64_t p = tick_ns, t0, t1, f0, f1, tb, ta, first, expect, slack, prev;
	struct hwtimer_stats_req st;
	struct hwtimer_event ev[4];
	int fd = open_dev();
	ssize_t n;
	uint64_t id;
	int i;

	if (fd < 0)
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(arm_full(fd, 0x88, p, p, CLOCK_MONOTONIC, 0, &id) == 0, "arm"))
		goto out;
	t1 = now_ns(CLOCK_MONOTONIC);
	if (!ok(wait_count(fd, 1, false), "no first expiry"))
		goto out;
	if (!ok(stats(fd, &st) == 0, "stats"))
		goto out;
	f0 = st.fired;
	sleep_ms(200 * p / MS);
	if (!ok(stats(fd, &st) == 0, "stats"))
		goto out;
	f1 = st.fired;
	tb = now_ns(CLOCK_MONOTONIC);
	n = read(fd, ev, sizeof(ev));
	ta = now_ns(CLOCK_MONOTONIC);
	printf("# wheel ran %" PRIu64 " callbacks in 200 periods with the record unread\n",
	       f1 - f0);
	if (!ok(n == EV, "read %zd bytes, want one record", n))
		goto out;
	first = ev[0].deadline_ns - ev[0].overruns * p;
	expect = (tb - first) / p;
	slack = expect * 3 / 10;
	printf("# record: overruns %" PRIu64 ", %" PRIu64 " periods elapsed (+-%" PRIu64
	       "), deadline %" PRId64 " us before the read\n", (uint64_t)ev[0].overruns,
	       expect, slack, (int64_t)(tb - ev[0].deadline_ns) / 1000);
	ok(f1 - f0 <= 10, "the wheel ran %" PRIu64 " callbacks for an unread periodic",
	   f1 - f0);
	ok(first >= t0 + p && first <= t1 + p + tick_ns,
	   "first expiry %" PRIu64 " outside arm time + period [%" PRIu64 ", %" PRIu64 "]",
	   first, t0 + p, t1 + p + tick_ns);
	ok(ev[0].deadline_ns <= ta, "deadline after the read returned");
	ok(ev[0].deadline_ns + p + tick_ns >= tb,
	   "deadline %" PRIu64 " us before the read: not the latest expiry",
	   (tb - ev[0].deadline_ns) / 1000);
	ok(ev[0].overruns + slack >= expect && ev[0].overruns <= expect + slack,
	   "overruns %" PRIu64 ", want %" PRIu64 " +- %" PRIu64,
	   (uint64_t)ev[0].overruns, expect, slack);
	ok(ev[0].fire_ns >= ev[0].deadline_ns && ev[0].flags == 0, "fire_ns or flags");
	if (failed_check)
		goto out;
	prev = ev[0].deadline_ns;
	for (i = 0; i < 3; i++) {
		if (!ok(wait_events(fd, ev, 1, WAIT_MS) == 1, "no record after the read (%d)",
			i))
			goto out;
		if (!ok(ev[0].deadline_ns > prev && (ev[0].deadline_ns - first) % p == 0 &&
			ev[0].fire_ns >= ev[0].deadline_ns,
			"record %d: deadline %" PRIu64 " (previous %" PRIu64 ") fire %" PRIu64,
			i, (uint64_t)ev[0].deadline_ns, prev, (uint64_t)ev[0].fire_ns))
			goto out;
		prev = ev[0].deadline_ns;
	}
	ok(cancel(fd, id, NULL) == 0, "cancel");
out:
	close(fd);
}

static int read_param(const char *path)
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

static int write_param(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", v);
	return fclose(f);
}

static int user_saved = -1;
/* A uid nothing else in the VM runs as: its live count starts at 0. */
#define LIMIT_UID	54321

/* Live timeouts in one context, per STATS. */
static uint64_t ctx_live(int fd)
{
	struct hwtimer_stats_req st;

	return stats(fd, &st) ? UINT64_MAX : st.ctx_live;
}

/*
 * The per-user limit @lim across two files of this user: the (lim+1)th live
 * timeout fails with EDQUOT in either file and in a BATCH op, failures leak
 * nothing, a cancel in one file frees room in the other, close frees all.
 */
static void user_limit_body(int lim)
{
	struct hwtimer_batch_op op = { .op = HWTIMER_OP_ARM, .clock = CLOCK_MONOTONIC,
				       .deadline_ns = 100000 * MS };
	int a = open_dev(), b = open_dev(), na = lim * 6 / 10, ret;
	struct hwtimer_batch hb;
	uint64_t id;
	uint32_t res;

	if (a < 0 || b < 0)
		goto out;
	if (!ok(fill_to(a, na) == 0, "%d arms in file A", na) ||
	    !ok(fill_to(b, lim - na - 1) == 0, "%d arms in file B", lim - na - 1) ||
	    !ok(arm(b, 1, 100000 * MS, &id) == 0, "arm number %d", lim))
		goto out;
	ret = arm(a, 2, 100000 * MS, NULL);
	if (!ok(ret == -EDQUOT, "live timeout %d (file A) gave %d, want -EDQUOT",
		lim + 1, ret))
		goto out;
	ret = arm(b, 2, 100000 * MS, NULL);
	if (!ok(ret == -EDQUOT, "live timeout %d (file B) gave %d, want -EDQUOT",
		lim + 1, ret))
		goto out;
	if (!ok(batch(b, &op, 1, &hb) == 0 && hb.failed == 1 && op.status == -EDQUOT,
		"BATCH arm past the limit: status %d", op.status))
		goto out;
	if (!ok(ctx_live(a) == (uint64_t)na && ctx_live(b) == (uint64_t)(lim - na),
		"refused arms counted: live %" PRIu64 " + %" PRIu64, ctx_live(a),
		ctx_live(b)))
		goto out;
	if (!ok(cancel(b, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED,
		"cancel in B"))
		goto out;
	if (!ok(arm(a, 3, 100000 * MS, NULL) == 0,
		"arm in A after a cancel in B freed one"))
		goto out;
	if (!ok(arm(a, 4, 100000 * MS, NULL) == -EDQUOT, "limit again"))
		goto out;
	close(a);
	a = -1;
	ret = fill_to(b, na + 1);
	if (!ok(ret == 0, "closing A did not give back its %d: %d", na + 1, ret))
		goto out;
	ok(arm(b, 5, 100000 * MS, NULL) == -EDQUOT, "limit after close");
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/*
 * max_user_timeouts, a writable module parameter, bounds one user's live
 * timeouts across all its files with EDQUOT (ENOSPC is the per-file cap).
 * As root: limit 100 for a child running as LIMIT_UID. Unprivileged: the
 * limit as set, when small enough to fill.
 */
static void t_user_limit(void)
{
	int old = read_param(PARAM_USER), status;
	pid_t pid;

	if (!ok(old >= 0, "%s missing: the per-user limit is required", PARAM_USER))
		return;
	if (geteuid() != 0) {
		if (old > 20000) {
			skip("limit %d too large to fill without root", old);
			return;
		}
		user_limit_body(old);
		return;
	}
	user_saved = old;
	if (!ok(write_param(PARAM_USER, 100) == 0, "set %s: %s", PARAM_USER,
		strerror(errno)))
		return;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(LIMIT_UID, LIMIT_UID, LIMIT_UID) ||
		    setresuid(LIMIT_UID, LIMIT_UID, LIMIT_UID)) {
			fail("drop to uid %d: %s", LIMIT_UID, strerror(errno));
			_exit(1);
		}
		user_limit_body(100);
		fflush(stdout);
		_exit(failed_check);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   !WEXITSTATUS(status), "the check as uid %d failed", LIMIT_UID);
}

struct check {
	void (*fn)(void);
	const char *desc;
};

static const struct check checks[] = {
	{ t_nanosleep, "nanosleep(20 ms) sleeps 20 ms or more (else bail out)" },
	{ t_open, "open /dev/hwtimer, mode 0666" },
	{ t_api, "API handshake: version, features, ioctl mask, 0xAA outputs written" },
	{ t_api_bad, "API: bad version, unknown feature, flags, reserved -> EINVAL" },
	{ t_enotty, "unknown command and wrong size -> ENOTTY" },
	{ t_efault, "NULL and unmapped pointers -> EFAULT on every command" },
	{ t_arm_reserved, "ARM: reserved and unknown flags -> EINVAL" },
	{ t_arm_bad_clock, "ARM: bad clock -> EINVAL" },
	{ t_period_min, "ARM: period below one tick -> EINVAL, one tick accepted" },
	{ t_oneshot_event, "one-shot event: id, cookie, deadline, fire time, flags" },
	{ t_never_early, "50 timeouts: never early, lateness bounded" },
	{ t_ids_unique, "ids unique and non-zero" },
	{ t_cancel, "CANCEL pending -> CANCELLED, 0xAA result written, no event" },
	{ t_cancel_stale, "stale, zero and random ids -> ENOENT" },
	{ t_cancel_generation, "generation bits checked -> ENOENT" },
	{ t_cancel_other_ctx, "other context's id -> ENOENT" },
	{ t_cancel_fired, "CANCEL fired unread one-shot -> FIRED, event kept" },
	{ t_cancel_bad, "CANCEL: flags and reserved -> EINVAL" },
	{ t_modify, "MODIFY relative -> MODIFIED, fires at the new deadline" },
	{ t_modify_later_abs, "MODIFY absolute later: not at the old deadline" },
	{ t_modify_bad, "MODIFY: unknown id ENOENT, flags and reserved EINVAL" },
	{ t_modify_periodic, "MODIFY periodic: next expiry moved, period kept" },
	{ t_past_abs, "absolute deadline in the past fires at once" },
	{ t_u64_max, "U64_MAX relative and absolute: no wrap, cancellable" },
	{ t_periodic, "periodic: expiries on the period grid, never early" },
	{ t_periodic_overruns, "unread periodic folds into one record with overruns" },
	{ t_periodic_cancel, "periodic cancel stops expiries" },
	{ t_boottime, "CLOCK_BOOTTIME timeout" },
	{ t_read_short, "read: buffer below one record -> EINVAL" },
	{ t_read_nonblock, "read: O_NONBLOCK and empty -> EAGAIN" },
	{ t_read_blocking, "read: blocks until the expiry" },
	{ t_read_signal, "read: interrupted by a signal -> EINTR" },
	{ t_read_many_prefill, "read: whole records that fit, 0xAA buffer written exactly" },
	{ t_poll, "poll: POLLIN only while events wait" },
	{ t_epoll, "epoll: EPOLLIN on expiry, clear after read" },
	{ t_eventfd, "eventfd signalled once per expiry" },
	{ t_eventfd_clear, "SET_EVENTFD -1 stops signalling" },
	{ t_eventfd_bad, "SET_EVENTFD: bad fd EBADF, not an eventfd EINVAL" },
	{ t_batch_arm_cancel, "BATCH: 2000 arms then 2000 cancels, status written" },
	{ t_batch_status, "BATCH: per-item status for mixed good and bad ops" },
	{ t_batch_bad, "BATCH: NULL/unmapped EFAULT, count/flags/reserved EINVAL" },
	{ t_stats, "STATS: counters, 0xAA outputs written" },
	{ t_stats_bad, "STATS: bad clock and reserved -> EINVAL" },
	{ t_fdinfo, "fdinfo shows pending, queued and the id table's size" },
	{ t_close_pending, "close with pending, firing and periodic timeouts" },
	{ t_dup, "dup shares the context" },
	{ t_fork, "fork shares the context" },
	{ t_enospc, "per-context cap -> ENOSPC, freed by cancel" },
	{ t_enospc_unread, "unread events count against the cap" },
	{ t_arm_race_readers, "ARM racing readers on due one-shots: every id is its record's" },
	{ t_batch_arm_race_readers, "BATCH arms racing readers: every id is its record's" },
	{ t_batch_ro_ops, "BATCH with read-only ops -> EFAULT, nothing armed" },
	{ t_arm_ro_req, "ARM with a read-only request -> EFAULT, never fires (due arms)" },
	{ t_cancel_ro_req, "CANCEL with a read-only request -> EFAULT, not cancelled" },
	{ t_batch_ro_header, "BATCH with a read-only header -> EFAULT, no op takes effect" },
	{ t_readv_no_block, "readv: returns the records copied instead of blocking" },
	{ t_readv_split, "readv: a record split across two iovecs" },
	{ t_read_fault_keeps, "read into a faulting buffer: records that fit, rest kept" },
	{ t_readv_fault_keeps, "readv with a faulting iovec: records that fit, rest kept" },
	{ t_ids_cross_ctx, "200 slot reuses: ids never match another context's" },
	{ t_period_u64_max, "period U64_MAX: one expiry, LAST, nothing pending" },
	{ t_sigio, "O_ASYNC + F_SETOWN: SIGIO when a record becomes readable" },
	{ t_batch_eintr, "65536-op BATCH: a signal stops it with EINTR, done ops written back" },
	{ t_batch_sigkill, "65536-op BATCH: SIGKILL ends it promptly" },
	{ t_periodic_unread_free, "unread periodic: no callback per period, overruns on read" },
	{ t_user_limit, "max_user_timeouts: EDQUOT across files, nothing leaked" },
	{ t_rmmod_refused, "module pinned while a context is open" },
};

int main(int argc, char **argv)
{
	unsigned int n = ARRAY_SIZE(checks), i, nfail = 0;
	struct stat st;

	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (stat(DEV, &st)) {
		printf("1..0 # SKIP %s missing: is the hwtimer module loaded?\n", DEV);
		return 4;	/* KSFT_SKIP */
	}
	printf("# uid %u, %zu-bit build\n", (unsigned int)geteuid(),
	       sizeof(long) * 8);
	printf("1..%u\n", n);
	for (i = 0; i < n; i++) {
		failed_check = 0;
		skip_reason[0] = 0;
		checks[i].fn();
		if (cap_saved >= 0) {
			if (write_cap(cap_saved))
				fail("restore %s: %s", PARAM_CAP, strerror(errno));
			cap_saved = -1;
		}
		if (user_saved >= 0) {
			if (write_param(PARAM_USER, user_saved))
				fail("restore %s: %s", PARAM_USER, strerror(errno));
			user_saved = -1;
		}
		/* Without a working sleep no timing check means anything. */
		if (failed_check && checks[i].fn == t_nanosleep) {
			printf("not ok %u %s\n", i + 1, checks[i].desc);
			printf("Bail out! nanosleep does not sleep in this %zu-bit build\n",
			       sizeof(long) * 8);
			return 1;
		}
		if (failed_check) {
			printf("not ok %u %s\n", i + 1, checks[i].desc);
			nfail++;
		} else if (skip_reason[0]) {
			printf("ok %u %s # SKIP %s\n", i + 1, checks[i].desc,
			       skip_reason);
		} else {
			printf("ok %u %s\n", i + 1, checks[i].desc);
		}
	}
	printf("# %u of %u checks failed\n", nfail, n);
	return nfail ? 1 : 0;
}
