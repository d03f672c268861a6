// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_bounds - what a user of /dev/hwtimer can make the kernel do on
 * behalf of its contexts is bounded: every call ends, every blocking call
 * is killable, no call fails with a spurious EINTR, and no interrupts-off
 * section grows with what the user asks for.
 *
 * Run as root and as an unprivileged user (tools/vm/guest.d/37-bounds.sh
 * does both). Every check is a TEST of kselftest_harness.h, run in a
 * child of its own.
 *
 * Timing rules. A timed check compares with a control measured just
 * before, in the same boot and under the same load: the same work done
 * the bounded way, or a child holding the same context that dies in
 * pause(). Its tolerance is stated where it is defined (a factor of the
 * control plus a slack for one stalled vCPU of a software-emulated guest),
 * a try over it is run again once with fresh controls, and both figures of
 * every try are printed. "Never" and "exactly" checks are exact.
 *
 * "hwtimer_bounds irqsoff WHAT MODE" is no test: it sets up one load
 * (WHAT: ring, batch or modify; MODE: attack or control), prints "ready
 * PID", runs it on SIGUSR1 and exits. The guest fragment, as root, traces
 * interrupts going off and on and hwtimer's arms, cancels and expiries
 * meanwhile; "hwtimer_bounds irqsections TRACE..." counts from those
 * traces the hwtimer entries in each interrupts-off section, and the
 * fragment compares the attack's most with the control's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>
#include <linux/io_uring.h>

#include "kselftest_harness.h"

#include "hwtimer_rings.h"

/*
 * The harness kills a test after TEST_TIMEOUT_DEFAULT seconds (30). On an
 * old kernel a read can go on for minutes; the guest fragment's own bound
 * still caps the whole run.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#define DEV		"/dev/hwtimer"
#define PARAMS		"/sys/module/hwtimer/parameters/"
#define MS		1000000ULL
/* A deadline no run reaches, relative to now. */
#define FAR_NS		(100000 * MS)
/* The buffer of the long read: room for 349,525 records. */
#define READ_BUF	(16U << 20)
/* Most a setup may take (arming, waiting for records to be queued). */
#define SETUP_MS	120000
/* How long a killed child is waited for before it is reported alive. */
#define GONE_CAP_MS	30000
/* How long a child is in its call before it is killed. */
#define KILL_DELAY_MS	20
/* Most tries of a kill check, counted or not (see kill_check()). */
#define KILL_TRIES	4

/*
 * Tolerances of the timed checks; see the top comment.
 *
 * READ_*: a read with room for 349,525 records, of a context with N
 * records of one-tick periodic timeouts queued, takes at most READ_FACTOR
 * times a read with room for N of the same context, plus READ_SLACK. The
 * two do the same work if the first takes only the records queued when
 * it began: take each, arm its timeout again, while the timeouts taken
 * come back on another CPU. Records that do not come back (one-shots, or
 * a period no run sees twice) make no control: their read costs a sixth
 * of this one, whose timeouts fire again on another CPU while it runs.
 *
 * KILL_*: a killed child is gone within KILL_FACTOR times what the
 * control took (the same child killed in pause(): its exit releases the
 * same context), plus what the kernel may still finish after the kill
 * (one read of the records queued, for a read), plus KILL_SLACK.
 *
 * CLOSE_*: close() of a full context takes at most CLOSE_FACTOR times
 * what arming its timeouts took, plus CLOSE_SLACK: both are one pass over
 * the same timeouts.
 */
#define READ_FACTOR	3
#define READ_SLACK	(100 * MS)
#define KILL_FACTOR	3
#define KILL_SLACK	(100 * MS)
#define CLOSE_FACTOR	3
#define CLOSE_SLACK	(100 * MS)

/* Stop/continue storms: SIGSTOP, STORM_STOP_MS, SIGCONT, STORM_RUN_MS. */
#define STORM_STOP_MS	2
#define STORM_RUN_MS	3
/* Most a storm goes on: within the harness's TEST_TIMEOUT_DEFAULT. */
#define STORM_MAX_MS	240000

/* Entries of the largest submission ring. */
#define RING_MAX	HWTIMER_RING_MAX_ENTRIES

/* The module's tick, from its parameter; 1 ms if unreadable. */
static uint64_t tick_ns = MS;

/*
 * Counts, sized by kernel: the debug kernel (KASAN, lockdep) runs all of
 * this about five times slower under emulation.
 */
static struct {
	bool debug;		/* the debug kernel: see debug_kernel() */
	uint32_t records;	/* periodic timeouts of the long read */
	uint32_t rounds;	/* calls of each no-EINTR check */
	uint32_t enters;	/* ENTERs of the ring load */
	uint32_t ring;		/* entries of the ring load's submission ring */
	uint32_t batch_ops;	/* ARMs (and CANCELs) of the BATCH load */
	uint32_t modify_ops;	/* MODIFYs of the MODIFY load */
} sz;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static unsigned long long to_ms(uint64_t ns)
{
	return ns / MS;
}

/* ioctl returning 0 (or what it returned) or -errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* A module parameter, 0 if unreadable. */
static uint64_t read_param(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/*
 * Whether this is a debug kernel: HWTIMER_KERNEL, which the VM harness
 * sets, says so ("debug", "debug-rt"); elsewhere KASAN does, whose
 * symbols /proc/kallsyms lists to all (a long read under emulation).
 */
static bool debug_kernel(void)
{
	const char *k = getenv("HWTIMER_KERNEL");
	char line[256];
	bool found = false;
	FILE *f;

	if (k && *k)
		return !strncmp(k, "debug", 5);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !!strstr(line, " kasan_report\n");
	fclose(f);
	return found;
}

static int stats(int fd, struct hwtimer_stats_req *st)
{
	memset(st, 0, sizeof(*st));
	st->clock = CLOCK_MONOTONIC;
	return xioctl(fd, HWTIMER_IOC_STATS, st);
}

static int batch(int fd, struct hwtimer_batch_op *ops, uint32_t n,
		 struct hwtimer_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = n;
	return xioctl(fd, HWTIMER_IOC_BATCH, b);
}

/* An array of @n batch ops, zeroed; NULL if it cannot be mapped. */
static struct hwtimer_batch_op *ops_alloc(uint32_t n)
{
	void *p = mmap(NULL, (size_t)n * sizeof(struct hwtimer_batch_op),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void ops_free(struct hwtimer_batch_op *ops, uint32_t n)
{
	if (ops)
		munmap(ops, (size_t)n * sizeof(*ops));
}

/*
 * Arm @n timeouts in BATCHes of at most @per ops, first due @rel ns from
 * now, one-shots or (@period not 0) periodic; their ids into @ids unless
 * NULL. Return: 0 or -errno (an op's status if one failed).
 */
static int arm_n(int fd, uint32_t n, uint32_t per, uint64_t rel,
		 uint64_t period, uint64_t *ids)
{
	struct hwtimer_batch_op *ops = ops_alloc(per);
	struct hwtimer_batch b;
	uint32_t done = 0, k, i;
	int ret = ops ? 0 : -ENOMEM;

	while (!ret && done < n) {
		k = n - done < per ? n - done : per;
		for (i = 0; i < k; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].cookie = done + i;
			ops[i].deadline_ns = rel;
			ops[i].period_ns = period;
			ops[i].clock = CLOCK_MONOTONIC;
		}
		ret = batch(fd, ops, k, &b);
		if (!ret && b.failed) {
			for (i = 0; i < k && !ops[i].status; i++)
				;
			ret = i < k ? ops[i].status : -EIO;
		}
		for (i = 0; !ret && ids && i < k; i++)
			ids[done + i] = ops[i].id;
		done += k;
	}
	ops_free(ops, per);
	return ret;
}

/* Wait until @fd has @n records queued; false after SETUP_MS. */
static bool wait_queued(int fd, uint64_t n)
{
	uint64_t end = now_ns() + SETUP_MS * MS;
	struct hwtimer_stats_req st;

	do {
		if (stats(fd, &st))
			return false;
		if (st.ctx_queued >= n)
			return true;
		sleep_ms(5);
	} while (now_ns() < end);
	return false;
}

/*
 * A context with @n records queued, of periodic timeouts of one tick,
 * each dormant once it fired with its record unread: a read that takes a
 * record arms its timeout again, and a new record comes a tick later.
 * Return: the file, or -errno.
 */
static int queued_ctx(uint32_t n)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = arm_n(fd, n, 4096, tick_ns, tick_ns, NULL);
	if (!ret && !wait_queued(fd, n))
		ret = -ETIMEDOUT;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* A buffer of @len bytes, every page touched, so a read does not fault. */
static void *buf_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

/* One read of @len bytes from @fd: its time in *@ns, records or -errno. */
static long timed_read(int fd, void *buf, size_t len, uint64_t *ns)
{
	uint64_t t0 = now_ns();
	ssize_t n = read(fd, buf, len);
	int err = errno;

	*ns = now_ns() - t0;
	return n < 0 ? -err : (long)(n / sizeof(struct hwtimer_event));
}

/*
 * The control of the long reads: once @n records are queued on @fd (a
 * queued_ctx()), one read with room for @n records, timed into *@ns. It
 * does what a read that takes only the records queued does, and runs dry
 * by its size. Return: 0, or -errno.
 */
static int control_read(int fd, void *buf, uint32_t n, uint64_t *ns)
{
	long got;

	if (!wait_queued(fd, n))
		return -ETIMEDOUT;
	got = timed_read(fd, buf, (size_t)n * sizeof(struct hwtimer_event), ns);
	if (got >= 0 && got != (long)n)
		got = -EIO;
	return got < 0 ? (int)got : 0;
}

/* ---- timer rings ---- */

/* Set up and map rings of the given sizes on @fd. Return: 0 or -errno. */
static int ring_open(int fd, struct ring *r, uint32_t sq, uint32_t cq,
		     uint32_t slots)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ring_req(&r->s, sq, cq, slots);
	ret = xioctl(fd, HWTIMER_IOC_RING_SETUP, &r->s);
	return ret ? ret : ring_mmap(fd, r);
}

static void sqe_set(struct hwtimer_sqe *e, uint32_t op, uint32_t slot,
		    uint64_t deadline, uint64_t cookie)
{
	memset(e, 0, sizeof(*e));
	e->op = op;
	e->slot = slot;
	e->deadline_ns = deadline;
	e->cookie = cookie;
}

/*
 * Fill every free place of the submission ring with MODIFYs of slot 0 to
 * @deadline and later, then publish the tail once.
 */
static void ring_fill_modify(struct ring *r, uint64_t deadline)
{
	uint32_t tail = *r->sq_tail, mask = r->s.sq_entries - 1;
	uint32_t end = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) +
		       r->s.sq_entries;

	for (; tail != end; tail++)
		sqe_set(&r->sqes[tail & mask], HWTIMER_SQE_MODIFY, 0,
			deadline + (tail & 0xffff), tail);
	__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
}

/*
 * Rings of @sq entries on @fd whose slot 0 is armed far away (the
 * MODIFYs then move it, and complete nothing), the periodic drain left
 * running or, with @idle, stopped (NEED_WAKEUP: only ENTER drains).
 * Return: 0 or -errno.
 */
static int ring_modify_setup(int fd, struct ring *r, uint32_t sq, bool idle)
{
	uint64_t end, far = now_ns() + FAR_NS;
	int ret = ring_open(fd, r, sq, 64, 1);

	if (ret)
		return ret;
	sqe_set(&r->sqes[0], HWTIMER_SQE_ARM, 0, far, 1);
	__atomic_store_n(r->sq_tail, 1, __ATOMIC_RELEASE);
	/* ENTER, or the periodic drain before it, arms slot 0. */
	ret = ring_enter(fd);
	if (ret < 0)
		return ret;
	end = now_ns() + SETUP_MS * MS;
	while (idle && !(__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) &
			 HWTIMER_RING_NEED_WAKEUP)) {
		if (now_ns() > end)
			return -ETIMEDOUT;
		sleep_ms(1);
	}
	ring_fill_modify(r, far);
	return 0;
}

/* ---- SIGKILL of a child in a blocking call ---- */

enum call_kind {
	CALL_READ_PERIODIC,	/* read() of READ_BUF, sz.records periodic records */
	CALL_READ_EMPTY,	/* read() of one record, none queued */
	CALL_BATCH,		/* HWTIMER_BATCH_MAX MODIFYs of one timeout */
	CALL_ENTER,		/* ENTER over a full ring of RING_MAX MODIFYs */
	CALL_POLL,		/* poll(), nothing to read */
	CALL_EPOLL,		/* epoll_wait(), nothing to read */
};

/* What a child and its parent share. */
struct call_state {
	int phase;		/* atomic: 0 setup, 1 in the call, 2 returned, -1 failed */
	int err;		/* the setup's or the call's errno */
	int64_t ret;		/* what the call returned */
	uint64_t t_call;	/* when it was called */
	uint64_t t_ret;		/* when it returned */
};

/* What a child builds before its call. */
struct call_ctx {
	int fd;
	int ep;
	void *buf;
	size_t len;
	struct hwtimer_batch_op *ops;
	struct hwtimer_batch b;
	struct ring r;
};

/* 65,536 MODIFYs of timeout @id: a long BATCH that leaves no state. */
static void long_batch(struct hwtimer_batch_op *ops, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < HWTIMER_BATCH_MAX; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_MODIFY;
		ops[i].id = id;
		ops[i].deadline_ns = FAR_NS + i;
	}
}

static void long_batch_header(struct hwtimer_batch *b,
			      struct hwtimer_batch_op *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = HWTIMER_BATCH_MAX;
}

/* A far timeout on @fd and the long batch that moves it. Return: 0 or -errno. */
static int long_batch_setup(struct call_ctx *c)
{
	uint64_t id;
	int ret;

	c->ops = ops_alloc(HWTIMER_BATCH_MAX);
	if (!c->ops)
		return -ENOMEM;
	ret = arm_n(c->fd, 1, 1, FAR_NS, 0, &id);
	if (ret)
		return ret;
	long_batch(c->ops, id);
	long_batch_header(&c->b, c->ops);
	return 0;
}

/* Build what call @k needs. Return: 0 or -errno. */
static int call_setup(enum call_kind k, struct call_ctx *c)
{
	struct epoll_event e = { .events = EPOLLIN };

	memset(c, 0, sizeof(*c));
	c->ep = -1;
	if (k == CALL_READ_PERIODIC)
		c->fd = queued_ctx(sz.records);
	else
		c->fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return c->fd == -1 ? -errno : c->fd;
	switch (k) {
	case CALL_READ_PERIODIC:
	case CALL_READ_EMPTY:
		c->len = k == CALL_READ_EMPTY ? sizeof(struct hwtimer_event) : READ_BUF;
		c->buf = buf_alloc(c->len);
		return c->buf ? 0 : -ENOMEM;
	case CALL_BATCH:
		return long_batch_setup(c);
	case CALL_ENTER:
		return ring_modify_setup(c->fd, &c->r, RING_MAX, true);
	case CALL_POLL:
		return 0;
	case CALL_EPOLL:
		c->ep = epoll_create1(EPOLL_CLOEXEC);
		if (c->ep < 0 || epoll_ctl(c->ep, EPOLL_CTL_ADD, c->fd, &e))
			return -errno;
		return 0;
	}
	return -EINVAL;
}

/* Make call @k. Return: what it returned, errno in errno. */
static int64_t call_run(enum call_kind k, struct call_ctx *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	struct epoll_event e;

	switch (k) {
	case CALL_READ_PERIODIC:
	case CALL_READ_EMPTY:
		return read(c->fd, c->buf, c->len);
	case CALL_BATCH:
		return ioctl(c->fd, HWTIMER_IOC_BATCH, &c->b);
	case CALL_ENTER:
		return ring_enter(c->fd);
	case CALL_POLL:
		return poll(&p, 1, -1);
	case CALL_EPOLL:
		return epoll_wait(c->ep, &e, 1, -1);
	}
	return -1;
}

/* The child: set up, then make the call or, as a control, pause(). */
static void call_child(enum call_kind k, bool control, struct call_state *st)
{
	struct call_ctx c;
	int ret = call_setup(k, &c);

	if (ret) {
		st->err = -ret;
		__atomic_store_n(&st->phase, -1, __ATOMIC_SEQ_CST);
		_exit(1);
	}
	st->t_call = now_ns();
	__atomic_store_n(&st->phase, 1, __ATOMIC_SEQ_CST);
	if (!control) {
		st->ret = call_run(k, &c);
		st->err = errno;
		st->t_ret = now_ns();
		__atomic_store_n(&st->phase, 2, __ATOMIC_SEQ_CST);
	}
	for (;;)
		pause();
}

/*
 * Reap child @pid, polling every millisecond from @t0 on. Return: the
 * time from @t0 until it was reaped, or UINT64_MAX if it still lived
 * GONE_CAP_MS after @t0 (then it is left to init).
 */
static uint64_t reap_from(pid_t pid, uint64_t t0)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return now_ns() - t0;
		if (now_ns() - t0 > GONE_CAP_MS * MS)
			return UINT64_MAX;
		usleep(1000);
	}
}

/* One child killed in call @k (in pause() for a @control). */
struct kill_run {
	uint64_t gone_ns;	/* from SIGKILL until reaped; UINT64_MAX: alive */
	int phase;		/* the child's phase when it was killed */
	int err;		/* its setup's errno, when phase is -1 */
	int64_t ret;		/* its call's return, when phase is 2 */
	uint64_t call_ns;	/* how long the call ran (to the kill or its end) */
};

/*
 * Fork a child for call @k, kill it KILL_DELAY_MS after it made the call
 * (or paused), and time its death. Return: 0, or -1 if it could not be
 * set up (@kr says why).
 */
static int kill_one(enum call_kind k, bool control, struct kill_run *kr)
{
	struct call_state *st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t end = now_ns() + SETUP_MS * MS, t0;
	pid_t pid;

	memset(kr, 0, sizeof(*kr));
	if (st == MAP_FAILED) {
		kr->err = errno;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		call_child(k, control, st);
	if (pid < 0) {
		kr->err = errno;
		munmap(st, sizeof(*st));
		return -1;
	}
	while (!__atomic_load_n(&st->phase, __ATOMIC_SEQ_CST) && now_ns() < end)
		usleep(1000);
	if (__atomic_load_n(&st->phase, __ATOMIC_SEQ_CST) == 1)
		sleep_ms(KILL_DELAY_MS);
	kr->phase = __atomic_load_n(&st->phase, __ATOMIC_SEQ_CST);
	t0 = now_ns();
	kill(pid, SIGKILL);
	kr->gone_ns = reap_from(pid, t0);
	kr->err = st->err;
	kr->ret = st->ret;
	kr->call_ns = (kr->phase == 2 ? st->t_ret : t0) - st->t_call;
	munmap(st, sizeof(*st));
	return kr->phase > 0 ? 0 : -1;
}

static const char *phase_name(int phase)
{
	switch (phase) {
	case 1:
		return "in the call";
	case 2:
		return "the call had returned";
	default:
		return "not set up";
	}
}

/* "N ms", or "still alive after GONE_CAP_MS" */
static const char *gone_str(uint64_t ns, char *buf, size_t len)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, "still alive after %d ms", GONE_CAP_MS);
	else
		snprintf(buf, len, "%llu ms", to_ms(ns));
	return buf;
}

/*
 * A child in call @k is gone after SIGKILL within KILL_FACTOR times
 * (the control's death + @allow_ns) + KILL_SLACK; retried once. A try
 * whose call had returned before the kill measured nothing and does not
 * count (at most KILL_TRIES in all; a call that always returns first is
 * no call a kill waits for, which passes).
 */
static void kill_check(struct __test_metadata *_metadata, enum call_kind k,
		       const char *what, uint64_t allow_ns)
{
	uint64_t bound = 0, gone = 0, counted_bound = 0;
	struct kill_run ctl, att;
	char g1[48], g2[48];
	int try, counted = 0;

	for (try = 1; try <= KILL_TRIES && counted < 2; try++) {
		ASSERT_EQ(0, kill_one(k, true, &ctl)) {
			TH_LOG("%s: control child not set up: %s", what, strerror(ctl.err));
		}
		ASSERT_NE(UINT64_MAX, ctl.gone_ns) {
			TH_LOG("%s: control child in pause() alive %d ms after SIGKILL",
			       what, GONE_CAP_MS);
		}
		ASSERT_EQ(0, kill_one(k, false, &att)) {
			TH_LOG("%s: child not set up: %s", what, strerror(att.err));
		}
		bound = KILL_FACTOR * (ctl.gone_ns + allow_ns) + KILL_SLACK;
		printf("# %s, try %d: killed %llu ms into the call (%s), gone %s;",
		       what, try, to_ms(att.call_ns), phase_name(att.phase),
		       gone_str(att.gone_ns, g1, sizeof(g1)));
		printf(" control (pause()) gone %s; bound %d x (%llu + %llu) + %llu = %llu ms\n",
		       gone_str(ctl.gone_ns, g2, sizeof(g2)), KILL_FACTOR,
		       to_ms(ctl.gone_ns), to_ms(allow_ns), to_ms(KILL_SLACK),
		       to_ms(bound));
		if (att.phase == 2) {
			printf("# %s: the call returned %lld (%s) before the kill: not counted\n",
			       what, (long long)att.ret,
			       att.ret < 0 ? strerror(att.err) : "ok");
			continue;
		}
		counted++;
		gone = att.gone_ns;
		counted_bound = bound;
		if (gone <= bound)
			break;
	}
	if (!counted)
		printf("# %s: every call returned before its kill\n", what);
	EXPECT_TRUE(gone <= counted_bound) {
		TH_LOG("%s: the killed child took %s to go, bound %llu ms",
		       what, gone_str(gone, g1, sizeof(g1)), to_ms(counted_bound));
	}
}

FIXTURE(bounds) {
	int unused;
};

FIXTURE_SETUP(bounds)
{
	uint64_t t = read_param("tick_ns");

	tick_ns = t ? t : MS;
}

FIXTURE_TEARDOWN(bounds)
{
}

/*
 * A read takes at most the records queued when it began, and so ends.
 *
 * sz.records periodic timeouts of one tick, each fired once and dormant
 * with its record unread; one read() with room for 349,525 records.
 * Taking a periodic record arms the timeout again, so a new record comes
 * a tick later: a read bounded only by its buffer could take records as
 * fast as they come, for as long as the buffer lasts. Exact: the read
 * returns at most sz.records records. Timed: it takes at most READ_FACTOR
 * times the read of the same context with room for sz.records records,
 * just before (control_read()), plus READ_SLACK; retried once, unless the
 * exact check failed already.
 */
TEST_F(bounds, read_takes_only_queued)
{
	void *buf = buf_alloc(READ_BUF);
	uint64_t ctl_ns = 0, att_ns = 0, bound = 0;
	long got = 0, first = 0;
	int fd, ret, try;

	ASSERT_TRUE(!!buf);
	fd = queued_ctx(sz.records);
	ASSERT_LE(0, fd) {
		TH_LOG("%u periodic timeouts: %s", sz.records, strerror(-fd));
	}
	for (try = 1; try <= 2; try++) {
		/* Each read's records come back a tick after it. */
		ret = control_read(fd, buf, sz.records, &ctl_ns);
		ASSERT_EQ(0, ret) {
			TH_LOG("control: %u records not read back: %s", sz.records,
			       strerror(-ret));
		}
		ASSERT_TRUE(wait_queued(fd, sz.records)) {
			TH_LOG("%u periodic records not queued", sz.records);
		}
		got = timed_read(fd, buf, READ_BUF, &att_ns);
		bound = READ_FACTOR * ctl_ns + READ_SLACK;
		printf("# try %d: read of %u periodic records: %ld records in %llu ms;",
		       try, sz.records, got, to_ms(att_ns));
		printf(" control (room for %u): %llu ms; bound %d x %llu + %llu = %llu ms\n",
		       sz.records, to_ms(ctl_ns), READ_FACTOR, to_ms(ctl_ns),
		       to_ms(READ_SLACK), to_ms(bound));
		if (try == 1)
			first = got;
		if (first > (long)sz.records || att_ns <= bound)
			break;
	}
	close(fd);
	munmap(buf, READ_BUF);
	EXPECT_TRUE(first > 0 && first <= (long)sz.records) {
		TH_LOG("one read took %ld records, %u were queued when it began",
		       first, sz.records);
	}
	EXPECT_TRUE(att_ns <= bound) {
		TH_LOG("the read took %llu ms, bound %llu ms", to_ms(att_ns), to_ms(bound));
	}
}

/*
 * SIGKILL ends that read: a child in it is gone within KILL_FACTOR times
 * (a child with the same context killed in pause() + a read of the same
 * context with room for sz.records records) + KILL_SLACK. The read stops
 * between chunks at a signal; one that read on would keep the child for
 * as long as its buffer lasts.
 */
TEST_F(bounds, read_sigkill)
{
	void *buf = buf_alloc(READ_BUF);
	uint64_t ctl_ns = 0;
	int fd, ret;

	ASSERT_TRUE(!!buf);
	fd = queued_ctx(sz.records);
	ASSERT_LE(0, fd) {
		TH_LOG("%u periodic timeouts: %s", sz.records, strerror(-fd));
	}
	ret = control_read(fd, buf, sz.records, &ctl_ns);
	close(fd);
	munmap(buf, READ_BUF);
	ASSERT_EQ(0, ret) {
		TH_LOG("control: %u records not read back: %s", sz.records, strerror(-ret));
	}
	kill_check(_metadata, CALL_READ_PERIODIC, "read of periodic records", ctl_ns);
}

/* A read() waiting for a record is killable (bound: see kill_check()). */
TEST_F(bounds, read_empty_sigkill)
{
	kill_check(_metadata, CALL_READ_EMPTY, "blocking read", 0);
}

/* A BATCH of HWTIMER_BATCH_MAX MODIFYs is killable mid-way. */
TEST_F(bounds, batch_sigkill)
{
	kill_check(_metadata, CALL_BATCH, "BATCH of 65536 MODIFYs", 0);
}

/*
 * ENTER over the largest submission ring, full of MODIFYs, with the
 * periodic drain stopped so that ENTER drains it all itself, is killable
 * mid-way.
 */
TEST_F(bounds, enter_sigkill)
{
	kill_check(_metadata, CALL_ENTER, "ENTER of 65536 MODIFYs", 0);
}

/* poll() and epoll_wait() with nothing to read are killable. */
TEST_F(bounds, poll_sigkill)
{
	kill_check(_metadata, CALL_POLL, "poll", 0);
	kill_check(_metadata, CALL_EPOLL, "epoll_wait", 0);
}

/*
 * close() of a context holding ctx_max_pending timeouts (fewer if the
 * user's limit is lower) takes at most CLOSE_FACTOR times what arming
 * them took, plus CLOSE_SLACK; retried once. close() is not
 * interruptible, so its length is what a kill of its caller waits for.
 */
TEST_F(bounds, close_full_ctx)
{
	uint64_t cap = read_param("ctx_max_pending");
	uint64_t user = read_param("max_user_timeouts");
	uint64_t arm_ns = 0, close_ns = 0, bound = 0, t0;
	uint32_t n;
	int fd, ret, try;

	ASSERT_TRUE(cap != 0) {
		TH_LOG("no ctx_max_pending under " PARAMS);
	}
	/* Room for the other contexts this user may hold meanwhile. */
	n = cap;
	if (user && n + 4096 > user)
		n = user > 8192 ? user - 4096 : user / 2;
	for (try = 1; try <= 2; try++) {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		t0 = now_ns();
		ret = arm_n(fd, n, 4096, FAR_NS, 0, NULL);
		arm_ns = now_ns() - t0;
		ASSERT_EQ(0, ret) {
			TH_LOG("arming %u: %s", n, strerror(-ret));
		}
		t0 = now_ns();
		close(fd);
		close_ns = now_ns() - t0;
		bound = CLOSE_FACTOR * arm_ns + CLOSE_SLACK;
		printf("# try %d: close() of %u timeouts (ctx_max_pending %llu): %llu ms;",
		       try, n, (unsigned long long)cap, to_ms(close_ns));
		printf(" arming them (control): %llu ms; bound %d x %llu + %llu = %llu ms\n",
		       to_ms(arm_ns), CLOSE_FACTOR, to_ms(arm_ns), to_ms(CLOSE_SLACK),
		       to_ms(bound));
		if (close_ns <= bound)
			break;
	}
	EXPECT_TRUE(close_ns <= bound) {
		TH_LOG("close() took %llu ms, bound %llu ms", to_ms(close_ns), to_ms(bound));
	}
}

/* ---- no spurious EINTR ---- */

/* What a storm's child counts. */
struct storm_state {
	int done;		/* atomic: the child made all its calls */
	uint32_t calls;		/* calls made */
	uint32_t bad;		/* calls that failed or came back short */
	int first_err;		/* errno of the first failed call */
	uint32_t first_done;	/* done of the first short BATCH; UINT32_MAX: none */
	int setup_err;		/* errno of the child's setup, or 0 */
};

/* A child that makes sz.rounds long BATCHes, each to return 0 and run all. */
static void storm_batch_child(struct storm_state *s)
{
	struct call_ctx c;
	uint32_t i;
	int ret;

	memset(&c, 0, sizeof(c));
	c.fd = open(DEV, O_RDWR | O_CLOEXEC);
	ret = c.fd < 0 ? -errno : long_batch_setup(&c);
	s->setup_err = -ret;
	for (i = 0; !ret && i < sz.rounds; i++) {
		long_batch_header(&c.b, c.ops);
		if (ioctl(c.fd, HWTIMER_IOC_BATCH, &c.b) ||
		    c.b.done != HWTIMER_BATCH_MAX) {
			if (!s->bad) {
				s->first_err = errno;
				s->first_done = c.b.done;
			}
			s->bad++;
		}
		s->calls++;
	}
	__atomic_store_n(&s->done, 1, __ATOMIC_SEQ_CST);
	_exit(0);
}

/*
 * A child that sz.rounds times fills a ring of RING_MAX entries with
 * MODIFYs, lets the periodic drain start on it (three ticks), and calls
 * ENTER, which may have to wait for that drain: each ENTER must return
 * what it consumed, never an error.
 */
static void storm_enter_child(struct storm_state *s)
{
	uint64_t far = now_ns() + FAR_NS;
	struct ring r;
	uint32_t i;
	int fd = open(DEV, O_RDWR | O_CLOEXEC), ret;

	ret = fd < 0 ? -errno : ring_modify_setup(fd, &r, RING_MAX, false);
	s->setup_err = -ret;
	for (i = 0; !ret && i < sz.rounds; i++) {
		if (i)
			ring_fill_modify(&r, far);
		usleep(3 * tick_ns / 1000);
		if (ring_enter(fd) < 0) {
			if (!s->bad) {
				s->first_err = errno;
				s->first_done = UINT32_MAX;
			}
			s->bad++;
		}
		s->calls++;
	}
	__atomic_store_n(&s->done, 1, __ATOMIC_SEQ_CST);
	_exit(0);
}

/*
 * Run @child in a child process while SIGSTOP and SIGCONT go to it every
 * few milliseconds; every one of its calls must succeed whole (exact).
 */
static void storm_check(struct __test_metadata *_metadata,
			void (*child)(struct storm_state *), const char *what)
{
	struct storm_state *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t t0 = now_ns(), end = t0 + STORM_MAX_MS * MS;
	uint32_t stops = 0;
	int status;
	pid_t pid;

	ASSERT_TRUE(s != MAP_FAILED);
	memset(s, 0, sizeof(*s));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		child(s);
	ASSERT_LT(0, pid);
	while (!__atomic_load_n(&s->done, __ATOMIC_SEQ_CST) && now_ns() < end &&
	       waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGSTOP);
		sleep_ms(STORM_STOP_MS);
		kill(pid, SIGCONT);
		sleep_ms(STORM_RUN_MS);
		stops++;
	}
	kill(pid, SIGCONT);
	if (!__atomic_load_n(&s->done, __ATOMIC_SEQ_CST))
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("# %s: %u calls in %llu ms under %u SIGSTOP/SIGCONT pairs, %u failed or short",
	       what, s->calls, to_ms(now_ns() - t0), stops, s->bad);
	if (s->bad && s->first_done != UINT32_MAX)
		printf(" (first: %s, done %u)", strerror(s->first_err), s->first_done);
	else if (s->bad)
		printf(" (first: %s)", strerror(s->first_err));
	printf("\n");
	ASSERT_EQ(0, s->setup_err) {
		TH_LOG("%s: setup: %s", what, strerror(s->setup_err));
	}
	EXPECT_TRUE(s->done && s->calls == sz.rounds) {
		TH_LOG("%s: %u of %u calls made", what, s->calls, sz.rounds);
	}
	EXPECT_TRUE(s->bad == 0) {
		TH_LOG("%s: %u calls stopped by SIGSTOP (first: %s)", what, s->bad,
		       strerror(s->first_err));
	}
	munmap(s, sizeof(*s));
}

/*
 * BATCH under a stop/continue storm: every long BATCH returns 0 with all
 * its ops done. A stop signal the process never sees must not fail a
 * call: before any op ran the kernel restarts the call, after that it
 * finishes it.
 */
TEST_F(bounds, batch_stop_storm_no_eintr)
{
	storm_check(_metadata, storm_batch_child, "BATCH");
}

/*
 * ENTER under a stop/continue storm: one waiting for the periodic drain
 * to finish is restarted, never fails with EINTR.
 */
TEST_F(bounds, enter_stop_storm_no_eintr)
{
	storm_check(_metadata, storm_enter_child, "ENTER");
}

static int uring_setup(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	return syscall(__NR_io_uring_setup, 4, &p);
}

/*
 * A process that set up an io_uring and closed it gets task work when
 * the ring's exit runs (TWA_SIGNAL, as a signal would); a BATCH that it
 * interrupts must not fail. sz.rounds times: io_uring_setup(), close(),
 * then a long BATCH, which must return 0 with all done (exact). Skipped
 * where io_uring is missing or refused.
 */
TEST_F(bounds, batch_io_uring_no_eintr)
{
	struct call_ctx c;
	uint32_t i, bad = 0, first_done = 0;
	int ufd, first_err = 0, ret;

	/* Missing (not built, or an old kernel) or refused to this user. */
	ufd = uring_setup();
	if (ufd < 0)
		SKIP(return, "io_uring_setup: %s", strerror(errno));
	close(ufd);
	memset(&c, 0, sizeof(c));
	c.fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c.fd);
	ret = long_batch_setup(&c);
	ASSERT_EQ(0, ret) {
		TH_LOG("setup: %s", strerror(-ret));
	}
	for (i = 0; i < sz.rounds; i++) {
		ufd = uring_setup();
		ASSERT_LE(0, ufd);
		close(ufd);
		long_batch_header(&c.b, c.ops);
		if (ioctl(c.fd, HWTIMER_IOC_BATCH, &c.b) ||
		    c.b.done != HWTIMER_BATCH_MAX) {
			if (!bad) {
				first_err = errno;
				first_done = c.b.done;
			}
			bad++;
		}
	}
	printf("# %u BATCHes each right after an io_uring's close: %u failed or short",
	       sz.rounds, bad);
	if (bad)
		printf(" (first: %s, done %u)", strerror(first_err), first_done);
	printf("\n");
	EXPECT_TRUE(bad == 0) {
		TH_LOG("%u BATCHes stopped (first: %s)", bad, strerror(first_err));
	}
	ops_free(c.ops, HWTIMER_BATCH_MAX);
	close(c.fd);
}

/* ---- loads for the irqsoff tracer (not tests) ---- */

/* CANCELs a drain of the ring attack gets through before the ring looks full. */
#define RING_PARK_AT	64
/* Timeouts the MODIFY storm moves. */
#define MODIFY_IDS	4096

/* The cq head mover of one ENTER of the ring load. */
struct mover {
	struct ring *r;
	bool attack;		/* park the head once the drain is past @trigger */
	uint32_t trigger;	/* an sq index */
	int stop;		/* atomic: set once the ENTER returned */
	bool parked;		/* the head was parked */
};

/* The head a completion ring has when every record in it was taken. */
static void cq_take_all(struct ring *r)
{
	__atomic_store_n(r->cq_head, __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/*
 * Keep the completion ring empty by moving its head to the tail. In an
 * attack, once the kernel's sq head passed @trigger, park the head half
 * the index space ahead of the tail, where the kernel reads a full ring,
 * until the ENTER is over.
 */
static void *mover_fn(void *arg)
{
	struct mover *m = arg;
	uint32_t t;

	while (!__atomic_load_n(&m->stop, __ATOMIC_SEQ_CST)) {
		if (m->attack && !m->parked &&
		    (int32_t)(__atomic_load_n(m->r->sq_head, __ATOMIC_ACQUIRE) -
			      m->trigger) >= 0) {
			t = __atomic_load_n(m->r->cq_tail, __ATOMIC_ACQUIRE);
			__atomic_store_n(m->r->cq_head, t + 0x80000000U, __ATOMIC_RELEASE);
			m->parked = true;
		}
		if (!m->parked)
			cq_take_all(m->r);
	}
	return NULL;
}

/*
 * Fill the empty submission ring, of n entries, with n / 2 ARMs of slots
 * 0, 1, ... at @far, then n / 2 CANCELs of them in the same order: with
 * room for a completion of every entry, a drain pairs each ARM with its
 * CANCEL and defers it. Return: the index of the first CANCEL.
 */
static uint32_t ring_fill_pairs(struct ring *r, uint64_t far)
{
	uint32_t n = r->s.sq_entries, pairs = n / 2, tail = *r->sq_tail, i;

	for (i = 0; i < n; i++)
		sqe_set(&r->sqes[(tail + i) & (n - 1)],
			i < pairs ? HWTIMER_SQE_ARM : HWTIMER_SQE_CANCEL,
			i % pairs, i < pairs ? far : 0, i);
	__atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
	return tail + pairs;
}

/* The ring load's setup. */
struct ring_load {
	int fd;
	struct ring r;
};

/*
 * The rings of the ring load: a submission ring of sz.ring entries, half
 * as many slots, and a completion ring with room for every entry (so
 * that a drain pairs ARMs with CANCELs) or, for the control, for half of
 * them (so that it applies each entry in its turn, a chunk at a time: the
 * ARMs the attack makes a drain arm, and the CANCELs, in the bounded way).
 */
static int ring_load_setup(struct ring_load *l, bool attack)
{
	l->fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	return ring_open(l->fd, &l->r, sz.ring, attack ? sz.ring : sz.ring / 2,
			 sz.ring / 2);
}

/* ENTER until the submission ring is empty, taking every record. */
static int ring_drain_all(struct ring_load *l)
{
	int ret = 0, i;

	for (i = 0; i < 64 && ret >= 0 &&
	     __atomic_load_n(l->r.sq_head, __ATOMIC_ACQUIRE) != *l->r.sq_tail; i++) {
		cq_take_all(&l->r);
		ret = ring_enter(l->fd);
	}
	cq_take_all(&l->r);
	return ret < 0 ? ret : 0;
}

/*
 * sz.enters times: fill the empty ring with ARMs then CANCELs of the
 * same slots and ENTER, while a thread keeps the completion ring empty;
 * in an attack it parks the cq head once the drain is RING_PARK_AT
 * entries into the CANCELs, which stops the drain there: it must then arm
 * every ARM it deferred whose CANCEL it did not reach. Between ENTERs,
 * the rest of the ring is drained with the head in place (those CANCELs
 * cancel what was armed). Prints how many slots the ENTERs left armed,
 * which shows the attack landed.
 */
static int ring_load_run(struct ring_load *l, bool attack)
{
	uint64_t far = now_ns() + FAR_NS, most = 0, armed = 0;
	uint32_t i, consumed = 0, parked = 0;
	struct hwtimer_stats_req st;
	struct mover m;
	pthread_t th;
	int ret = 0;

	for (i = 0; i < sz.enters && ret >= 0; i++) {
		memset(&m, 0, sizeof(m));
		m.r = &l->r;
		m.attack = attack;
		cq_take_all(&l->r);
		m.trigger = ring_fill_pairs(&l->r, far) + RING_PARK_AT;
		if (pthread_create(&th, NULL, mover_fn, &m))
			return -EAGAIN;
		ret = ring_enter(l->fd);
		__atomic_store_n(&m.stop, 1, __ATOMIC_SEQ_CST);
		pthread_join(th, NULL);
		parked += m.parked;
		if (ret >= 0)
			consumed += ret;
		if (!stats(l->fd, &st)) {
			armed += st.ctx_pending;
			if (st.ctx_pending > most)
				most = st.ctx_pending;
		}
		if (ret >= 0)
			ret = ring_drain_all(l);
	}
	printf("# ring %s: %u ENTERs of %u entries consumed %u, the head parked in %u;",
	       attack ? "attack" : "control", sz.enters, sz.ring, consumed, parked);
	printf(" slots left armed: %llu in all, at most %llu by one\n",
	       (unsigned long long)armed, (unsigned long long)most);
	return ret < 0 ? ret : 0;
}

/* The BATCH and MODIFY loads' setup. */
struct batch_load {
	int fd;
	struct hwtimer_batch_op *ops;
	uint64_t *ids;
};

static int batch_load_setup(struct batch_load *l, bool modify)
{
	uint32_t i;
	int ret;

	l->fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	l->ops = ops_alloc(HWTIMER_BATCH_MAX);
	l->ids = calloc(MODIFY_IDS, sizeof(*l->ids));
	if (!l->ops || !l->ids)
		return -ENOMEM;
	for (i = 0; i < HWTIMER_BATCH_MAX; i++) {
		l->ops[i].op = modify ? HWTIMER_OP_MODIFY : HWTIMER_OP_ARM;
		l->ops[i].deadline_ns = FAR_NS + i;
		l->ops[i].clock = modify ? 0 : CLOCK_MONOTONIC;
	}
	if (!modify)
		return 0;
	ret = arm_n(l->fd, MODIFY_IDS, 4096, FAR_NS, 0, l->ids);
	for (i = 0; !ret && i < HWTIMER_BATCH_MAX; i++)
		l->ops[i].id = l->ids[i % MODIFY_IDS];
	return ret;
}

/* Run @n ops of @ops in calls of @per. Return: 0 or -errno. */
static int batch_in(int fd, struct hwtimer_batch_op *ops, uint32_t n,
		    uint32_t per)
{
	struct hwtimer_batch b;
	uint32_t i, k;
	int ret;

	for (i = 0; i < n; i += k) {
		k = n - i < per ? n - i : per;
		ret = batch(fd, ops + i, k, &b);
		if (ret)
			return ret;
		if (b.failed)
			return -EIO;
	}
	return 0;
}

/*
 * BATCH load: sz.batch_ops ARMs, then as many CANCELs of them; an attack
 * in one call each, the control 16 ops a call. MODIFY load:
 * sz.modify_ops MODIFYs of MODIFY_IDS timeouts, in turn, the same way.
 */
static int batch_load_run(struct batch_load *l, bool modify, bool attack)
{
	uint32_t n = modify ? sz.modify_ops : sz.batch_ops, i;
	uint32_t per = attack ? n : 16;
	uint64_t t0 = now_ns();
	int ret;

	ret = batch_in(l->fd, l->ops, n, per);
	if (!ret && !modify) {
		for (i = 0; i < n; i++) {
			uint64_t id = l->ops[i].id;

			memset(&l->ops[i], 0, sizeof(l->ops[i]));
			l->ops[i].op = HWTIMER_OP_CANCEL;
			l->ops[i].id = id;
		}
		ret = batch_in(l->fd, l->ops, n, per);
	}
	printf("# %s %s: %u %s in calls of %u: %llu ms\n", modify ? "modify" : "batch",
	       attack ? "attack" : "control", n,
	       modify ? "MODIFYs" : "ARMs then CANCELs", per, to_ms(now_ns() - t0));
	return ret;
}

/* What sections_file() found in one CPU's trace. */
struct sections {
	uint64_t sections;	/* interrupts-off sections with hwtimer entries */
	uint64_t entries;	/* hwtimer entries in them */
	uint64_t most;		/* the most hwtimer entries in one section */
	double most_us;		/* how long that section was */
	double longest_us;	/* the longest section with hwtimer entries */
	uint64_t lost;		/* events the trace says it lost */
};

/* The timestamp ("  123.456789: ") before the event name at @name. */
static double trace_stamp(const char *line, const char *name)
{
	const char *p = name;

	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ':')
		p--;
	while (p > line && p[-1] != ' ')
		p--;
	return strtod(p, NULL);
}

/*
 * Walk one CPU's text trace of the events preemptirq:irq_disable and
 * irq_enable, hwtimer:hwtimer_timeout_{arm,cancel,expire} (the runtime's
 * timeouts) and hwtimer:hwtimer_cdev_{queue,dequeue} (a context's):
 * count the hwtimer entries between each irq_disable and the irq_enable that ends
 * its section. Entries outside a section begun in the trace (it began
 * before tracing did) are not counted.
 */
static int sections_file(const char *path, struct sections *s)
{
	static const char *const entry[] = {
		" hwtimer_timeout_arm:", " hwtimer_timeout_cancel:",
		" hwtimer_timeout_expire:", " hwtimer_cdev_queue:",
		" hwtimer_cdev_dequeue:",
	};
	char line[1024], *p;
	uint64_t n = 0;
	double t0 = 0, us;
	bool in = false;
	unsigned int i;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		p = strstr(line, "[LOST ");
		if (p) {
			s->lost += strtoull(p + 6, NULL, 10);
			continue;
		}
		p = strstr(line, " irq_disable:");
		if (p) {
			in = true;
			n = 0;
			t0 = trace_stamp(line, p + 1);
			continue;
		}
		p = strstr(line, " irq_enable:");
		if (p) {
			if (in && n) {
				us = (trace_stamp(line, p + 1) - t0) * 1e6;
				s->sections++;
				s->entries += n;
				if (n > s->most) {
					s->most = n;
					s->most_us = us;
				}
				if (us > s->longest_us)
					s->longest_us = us;
			}
			in = false;
			continue;
		}
		for (i = 0; in && i < ARRAY_SIZE(entry); i++)
			if (strstr(line, entry[i])) {
				n++;
				break;
			}
	}
	fclose(f);
	return 0;
}

/*
 * hwtimer_bounds irqsections TRACE...: each TRACE one CPU's text trace
 * (per_cpu/cpuN/trace); print what the sections of all of them held.
 */
static int irqsections_main(int n, char **paths)
{
	struct sections s = { 0 }, one;
	int i, ret;

	for (i = 0; i < n; i++) {
		memset(&one, 0, sizeof(one));
		ret = sections_file(paths[i], &one);
		if (ret) {
			printf("# %s: %s\n", paths[i], strerror(-ret));
			return 1;
		}
		s.sections += one.sections;
		s.entries += one.entries;
		s.lost += one.lost;
		if (one.most > s.most) {
			s.most = one.most;
			s.most_us = one.most_us;
		}
		if (one.longest_us > s.longest_us)
			s.longest_us = one.longest_us;
	}
	printf("sections %llu entries %llu most %llu most_us %.0f longest_us %.0f lost %llu\n",
	       (unsigned long long)s.sections, (unsigned long long)s.entries,
	       (unsigned long long)s.most, s.most_us, s.longest_us,
	       (unsigned long long)s.lost);
	return 0;
}

/*
 * hwtimer_bounds irqsoff WHAT MODE: set up, print "ready PID", wait for
 * SIGUSR1 (at most SETUP_MS), run, exit 0 (1 on any error).
 */
static int irqsoff_main(const char *what, const char *mode)
{
	bool attack = !strcmp(mode, "attack"), ring = !strcmp(what, "ring");
	bool modify = !strcmp(what, "modify");
	struct timespec ts = { SETUP_MS / 1000, 0 };
	struct batch_load bl = { .fd = -1 };
	struct ring_load rl = { .fd = -1 };
	sigset_t set;
	int ret;

	if ((!attack && strcmp(mode, "control")) ||
	    (!ring && !modify && strcmp(what, "batch"))) {
		fprintf(stderr, "usage: hwtimer_bounds irqsoff ring|batch|modify attack|control\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ret = ring ? ring_load_setup(&rl, attack) : batch_load_setup(&bl, modify);
	if (ret) {
		printf("# irqsoff %s %s: setup: %s\n", what, mode, strerror(-ret));
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigtimedwait(&set, NULL, &ts) != SIGUSR1) {
		printf("# irqsoff %s %s: no SIGUSR1\n", what, mode);
		return 1;
	}
	ret = ring ? ring_load_run(&rl, attack) : batch_load_run(&bl, modify, attack);
	if (ret)
		printf("# irqsoff %s %s: %s\n", what, mode, strerror(-ret));
	printf("done\n");
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sz.debug = debug_kernel();
	/*
	 * Enough periodic records that a read bounded only by its buffer
	 * reads on: the records it takes come back a tick later, and it
	 * runs dry only if the wheel's worker falls behind by as long as a
	 * pass over all of them takes. 5,000 do on the debug kernel; a stock
	 * one takes them about 15 times as fast, and with 20,000 such a read
	 * still ran dry now and then.
	 */
	sz.records = sz.debug ? 5000 : 50000;
	sz.rounds = sz.debug ? 5 : 20;
	/*
	 * The irqsoff loads are judged by the hwtimer entries in one
	 * interrupts-off section, which one ENTER shows as well as many, and
	 * 8,192 deferred ARMs in one hold as well as 32,768; what takes the
	 * time on the debug kernels is tracing every entry and reading the
	 * trace back.
	 */
	sz.enters = sz.debug ? 1 : 4;
	sz.ring = sz.debug ? 16384 : RING_MAX;
	/* An ARM costs the debug kernel about 100 times a MODIFY. */
	sz.batch_ops = sz.debug ? 4096 : HWTIMER_BATCH_MAX;
	sz.modify_ops = sz.debug ? 8192 : HWTIMER_BATCH_MAX;
	if (argc > 2 && !strcmp(argv[1], "irqsections"))
		return irqsections_main(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "irqsoff"))
		return stat(DEV, &st) ? 1 : irqsoff_main(argv[2], argv[3]);
	if (stat(DEV, &st)) {
		ksft_print_header();
		ksft_exit_skip("%s missing: is the hwtimer module loaded?\n", DEV);
	}
	ksft_print_msg("uid %u, %zu-bit build, %s kernel: %u periodic records, %u calls a storm\n",
		       (unsigned int)geteuid(), sizeof(long) * 8,
		       sz.debug ? "debug" : "non-debug", sz.records, sz.rounds);
	return test_harness_run(argc, argv);
}
