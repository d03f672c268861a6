// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_timens - /dev/hwtimer inside a time namespace: absolute
 * deadlines are read on the namespace's clocks and every time handed out
 * is on them, through ARM, MODIFY, BATCH, read() and the timer rings, for
 * a context opened
 * in the namespace; a context opened before keeps the clocks it was
 * opened on.
 *
 * Every TEST of kselftest_harness.h runs in a child of its own, which
 * enters a new time namespace with the variant's offsets (CLOCK_MONOTONIC
 * a day ahead and CLOCK_BOOTTIME two days ahead, or both half the uptime
 * behind) before it opens the device. Unprivileged, it first makes a user
 * namespace to own the time namespace (time_namespaces(7)); where the
 * kernel allows neither, the tests skip.
 *
 * "hwtimer_timens exec CMD ARG..." is no test: it runs CMD in a time
 * namespace with the first variant's offsets (the library's test suite,
 * from tools/vm/guest.d/34-libhwtimer.sh).
 *
 * Timing rules. "Never early" and "exactly" are exact. A record must
 * come within WAIT_MS (an offset error would be a day, or half the uptime
 * early), and an absolute arm fires in the same tick as a relative one
 * armed beside it for the same time: they are compared with each other,
 * not with a bar, within 2 ticks plus the time the two arms took; a try
 * over it is run again once, and both figures are printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest_harness.h"
#include "hwtimer_clock.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
#define DAY_S		86400LL
/* How long a record may take to come. */
#define WAIT_MS		5000
/* How far ahead the timeouts of a test are armed. */
#define AHEAD_NS	(100 * MS)

static int write_file(const char *path, const char *s)
{
	ssize_t len = strlen(s), n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n != len) {
		n = n < 0 ? -errno : -EIO;
		close(fd);
		return n;
	}
	close(fd);
	return 0;
}

/*
 * Enter a new time namespace whose CLOCK_MONOTONIC is @mono_s and
 * CLOCK_BOOTTIME @boot_s seconds from this one's: unshare it, set its
 * offsets, and join it (a single-threaded process may join the namespace
 * it made for its children). Return: 0, or why not (-errno); @why says
 * which step.
 */
static int enter_timens(long long mono_s, long long boot_s, const char **why)
{
	char buf[128];
	int fd, r;

	*why = "unshare(CLONE_NEWUSER)";
	if (geteuid() != 0 && unshare(CLONE_NEWUSER))
		return -errno;
	*why = "unshare(CLONE_NEWTIME)";
	if (unshare(CLONE_NEWTIME))
		return -errno;
	*why = "/proc/self/timens_offsets";
	snprintf(buf, sizeof(buf), "monotonic %lld 0\nboottime %lld 0\n",
		 mono_s, boot_s);
	r = write_file("/proc/self/timens_offsets", buf);
	if (r)
		return r;
	*why = "setns(time_for_children)";
	fd = open("/proc/self/ns/time_for_children", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = setns(fd, CLONE_NEWTIME) ? -errno : 0;
	close(fd);
	return r;
}

/* The offsets of the variant: a day (two for BOOTTIME) ahead, or behind. */
static void variant_offsets(bool behind, long long *mono_s, long long *boot_s)
{
	long long up = now_ns(CLOCK_MONOTONIC) / 1000000000ULL;

	if (!behind) {
		*mono_s = DAY_S;
		*boot_s = 2 * DAY_S;
		return;
	}
	/* A namespace's clock may not start before 0: half the uptime. */
	*mono_s = -(up / 2);
	*boot_s = -(up / 2);
}

static int dev_open(__u64 *tick, __u64 *features)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, HWTIMER_IOC_API, &api)) {
		close(fd);
		return -1;
	}
	*tick = api.tick_ns;
	*features = api.features;
	return fd;
}

FIXTURE(ns) {
	int fd;
	__u64 tick;
	__u64 features;
	long long mono_s;
	long long boot_s;
};

FIXTURE_VARIANT(ns) {
	bool behind;
};

FIXTURE_VARIANT_ADD(ns, ahead) {
	.behind = false,
};

FIXTURE_VARIANT_ADD(ns, behind) {
	.behind = true,
};

/*
 * A setup that skips leaves fd at -1, and each test returns at once:
 * 6.1's harness runs the body of a test whose setup skipped.
 */
FIXTURE_SETUP(ns)
{
	const char *why;
	int r;

	self->fd = -1;
	if (access(DEV, F_OK))
		SKIP(return, "no " DEV);
	variant_offsets(variant->behind, &self->mono_s, &self->boot_s);
	if (variant->behind && !self->mono_s)
		SKIP(return, "uptime under 2 s: no room behind");
	r = enter_timens(self->mono_s, self->boot_s, &why);
	if (r == -EPERM || r == -EINVAL || r == -ENOSPC || r == -ENOENT ||
	    r == -EACCES || r == -EUSERS)
		SKIP(return, "no time namespace here: %s: %s", why,
		     strerror(-r));
	ASSERT_EQ(0, r) TH_LOG("%s: %s", why, strerror(-r));
	self->fd = dev_open(&self->tick, &self->features);
	ASSERT_LE(0, self->fd) TH_LOG(DEV ": %s", strerror(errno));
}

FIXTURE_TEARDOWN(ns)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The record of an absolute arm at @dl, armed at @t0 on @c: its deadline
 * exactly, never served before it, and served on this clock.
 */
static void check_record(struct __test_metadata *_metadata,
			 const struct hwtimer_event *ev, __u64 at,
			 __u64 dl, clockid_t c)
{
	EXPECT_EQ(dl, ev->deadline_ns);
	EXPECT_EQ((__u32)c, ev->clock);
	EXPECT_LE(ev->deadline_ns, ev->fire_ns)
		TH_LOG("served %llu ns before its deadline",
		       ev->deadline_ns - ev->fire_ns);
	EXPECT_LE(ev->fire_ns, at)
		TH_LOG("fire_ns %llu is after the read (%llu)",
		       ev->fire_ns, at);
	EXPECT_LE(dl, at);
}

/*
 * Were two timeouts armed for the same moment, @gap apart, served at
 * @fa and @fb within 2 ticks (plus @gap) of each other? Else say how far.
 */
static bool same_tick(struct __test_metadata *_metadata, __u64 fa, __u64 fb,
		      __u64 tick, __u64 gap, int try)
{
	__u64 d = fa > fb ? fa - fb : fb - fa;

	if (d <= 2 * tick + gap)
		return true;
	TH_LOG("try %d: served %llu ns apart, over 2 ticks + %llu ns%s",
	       try + 1, d, gap, try ? "" : "; again");
	return false;
}

/*
 * An absolute and a relative arm for the same time: both come, on this
 * clock, and in the same tick but for the time between the two arms.
 * Two timeouts of one moment can be served apart when a vCPU of the
 * emulated guest stalls between them: a try that finds them so is run
 * again once.
 */
static void abs_and_rel(struct __test_metadata *_metadata, int fd,
			clockid_t c, __u64 tick)
{
	struct hwtimer_event ev, evs[2] = {};
	__u64 t0, t1, at, ats[2], dl;
	int i, try;

	for (try = 0; try < 2; try++) {
		t0 = now_ns(c);
		dl = t0 + AHEAD_NS;
		ASSERT_EQ(0, arm(fd, c, dl, 0, HWTIMER_ARM_ABS, 1, NULL));
		ASSERT_EQ(0, arm(fd, c, AHEAD_NS, 0, 0, 2, NULL));
		t1 = now_ns(c);
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, next_event(fd, &ev, WAIT_MS, c, &at))
				TH_LOG("record %d of 2 not in %d ms", i + 1,
				       WAIT_MS);
			ASSERT_TRUE(ev.cookie == 1 || ev.cookie == 2);
			evs[ev.cookie - 1] = ev;
			ats[ev.cookie - 1] = at;
		}
		check_record(_metadata, &evs[0], ats[0], dl, c);
		/* The relative one counts from a time during its ARM. */
		EXPECT_LE(t0 + AHEAD_NS, evs[1].deadline_ns);
		EXPECT_GE(t1 + AHEAD_NS, evs[1].deadline_ns);
		check_record(_metadata, &evs[1], ats[1], evs[1].deadline_ns, c);
		if (same_tick(_metadata, evs[0].fire_ns, evs[1].fire_ns, tick,
			      t1 - t0, try))
			return;
	}
	EXPECT_TRUE(false);
}

/* The handshake says times are on the namespace's clocks. */
TEST_F(ns, feature)
{
	if (self->fd < 0)
		return;
	EXPECT_NE(0, (int)!!(self->features & HWTIMER_FEATURE_TIMENS))
		TH_LOG("features %#llx: no HWTIMER_FEATURE_TIMENS",
		       self->features);
}

TEST_F(ns, monotonic)
{
	if (self->fd < 0)
		return;
	abs_and_rel(_metadata, self->fd, CLOCK_MONOTONIC, self->tick);
}

TEST_F(ns, boottime)
{
	if (self->fd < 0)
		return;
	abs_and_rel(_metadata, self->fd, CLOCK_BOOTTIME, self->tick);
}

/*
 * An absolute deadline of 1 ns has passed: it fires at once. Ahead of the
 * host, it is before the host's clock began, and the record says 0.
 */
TEST_F(ns, long_past)
{
	struct hwtimer_event ev;
	__u64 at;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, arm(self->fd, CLOCK_MONOTONIC, 1, 0, HWTIMER_ARM_ABS, 5,
			 NULL));
	ASSERT_EQ(0, next_event(self->fd, &ev, WAIT_MS, CLOCK_MONOTONIC, &at))
		TH_LOG("a past deadline did not fire in %d ms", WAIT_MS);
	EXPECT_EQ(5ULL, ev.cookie);
	EXPECT_EQ(variant->behind ? 1ULL : 0ULL, ev.deadline_ns);
	EXPECT_LE(ev.fire_ns, at);
	EXPECT_GE(ev.fire_ns + (__u64)WAIT_MS * MS, at);
}

/* MODIFY to an absolute time: exactly that deadline, never before it. */
TEST_F(ns, modify_abs)
{
	struct hwtimer_modify_req m = { .flags = HWTIMER_ARM_ABS };
	struct hwtimer_event ev;
	__u64 at, dl;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, arm(self->fd, CLOCK_MONOTONIC,
			 now_ns(CLOCK_MONOTONIC) + 100000 * MS, 0,
			 HWTIMER_ARM_ABS, 7, &m.id));
	dl = now_ns(CLOCK_MONOTONIC) + AHEAD_NS;
	m.deadline_ns = dl;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_MODIFY, &m));
	ASSERT_EQ((__u32)HWTIMER_RESULT_MODIFIED, m.result);
	ASSERT_EQ(0, next_event(self->fd, &ev, WAIT_MS, CLOCK_MONOTONIC, &at))
		TH_LOG("no record in %d ms", WAIT_MS);
	EXPECT_EQ(7ULL, ev.cookie);
	check_record(_metadata, &ev, at, dl, CLOCK_MONOTONIC);
}

/* BATCH: absolute ARMs on both clocks and an absolute MODIFY. */
TEST_F(ns, batch)
{
	struct hwtimer_batch_op ops[3] = {};
	struct hwtimer_batch b = {
		.ops = (uintptr_t)ops,
		.count = 2,
	};
	struct hwtimer_event ev;
	__u64 dl[3], at;
	clockid_t c;
	int i;

	if (self->fd < 0)
		return;
	for (i = 0; i < 2; i++) {
		c = i ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
		dl[i] = now_ns(c) + AHEAD_NS + i * 20 * MS;
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].flags = HWTIMER_ARM_ABS;
		ops[i].cookie = i;
		ops[i].deadline_ns = i ? dl[i] : dl[i] + 100000 * MS;
		ops[i].clock = c;
	}
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_BATCH, &b));
	ASSERT_EQ(0U, b.failed);
	/* The first, far away, is moved to a near absolute time. */
	dl[0] = now_ns(CLOCK_MONOTONIC) + AHEAD_NS + 40 * MS;
	ops[2].op = HWTIMER_OP_MODIFY;
	ops[2].flags = HWTIMER_ARM_ABS;
	ops[2].id = ops[0].id;
	ops[2].deadline_ns = dl[0];
	b.ops = (uintptr_t)&ops[2];
	b.count = 1;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_BATCH, &b));
	ASSERT_EQ(0U, b.failed);
	ASSERT_EQ((__u32)HWTIMER_RESULT_MODIFIED, ops[2].result);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, next_event(self->fd, &ev, WAIT_MS, CLOCK_MONOTONIC, &at))
			TH_LOG("record %d of 2 not in %d ms", i + 1, WAIT_MS);
		ASSERT_GT(2ULL, ev.cookie);
		c = ev.cookie ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
		check_record(_metadata, &ev, now_ns(c), dl[ev.cookie], c);
	}
}

/*
 * A periodic timeout: each record's deadline is the first plus whole
 * periods, on this clock; one left unread counts the periods that passed
 * and says so on this clock too.
 */
TEST_F(ns, periodic)
{
	const __u64 period = 50 * MS;
	struct hwtimer_event ev;
	__u64 at, dl, id;
	int i;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_BOOTTIME) + period;
	ASSERT_EQ(0, arm(self->fd, CLOCK_BOOTTIME, dl, period,
			 HWTIMER_ARM_ABS, 3, &id));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, next_event(self->fd, &ev, WAIT_MS, CLOCK_BOOTTIME, &at))
			TH_LOG("record %d not in %d ms", i + 1, WAIT_MS);
		EXPECT_LE(dl, ev.deadline_ns);
		EXPECT_EQ(0ULL, (ev.deadline_ns - dl) % period)
			TH_LOG("deadline %llu: not first %llu + k periods",
			       ev.deadline_ns, dl);
		check_record(_metadata, &ev, at, ev.deadline_ns,
			     CLOCK_BOOTTIME);
	}
	/* Unread for four periods: the record counts them, on this clock. */
	usleep(4 * period / 1000);
	ASSERT_EQ(0, next_event(self->fd, &ev, WAIT_MS, CLOCK_BOOTTIME, &at));
	EXPECT_LE(3ULL, ev.overruns);
	EXPECT_GE(at, ev.deadline_ns);
	EXPECT_GE(ev.deadline_ns + period, at - 2 * self->tick)
		TH_LOG("deadline %llu ns before the read",
		       at - ev.deadline_ns);
	check_record(_metadata, &ev, at, ev.deadline_ns, CLOCK_BOOTTIME);
}

/* Queue @e on the submission ring at @m (setup @s). */
static void sq_push(const struct hwtimer_ring_setup *s, char *m,
		    const struct hwtimer_sqe *e)
{
	__u32 *tail = (__u32 *)(m + s->sq_tail);
	struct hwtimer_sqe *sqes = (struct hwtimer_sqe *)(m + s->sqes);

	sqes[*tail & (s->sq_entries - 1)] = *e;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
}

/*
 * The rings: an absolute ARM entry and one moved by a MODIFY entry, both
 * on this clock, served at their deadlines; their completions say so on
 * this clock. The kernel applies the entries, with no caller's clock.
 */
TEST_F(ns, ring)
{
	struct hwtimer_ring_setup s = {
		.sq_entries = 8,
		.cq_entries = 8,
		.slots = 2,
		.clock = CLOCK_MONOTONIC,
	};
	struct hwtimer_ring_enter enter = {};
	struct hwtimer_sqe e = { .op = HWTIMER_SQE_ARM };
	struct pollfd p = { .events = POLLIN };
	struct hwtimer_event ev;
	__u32 *cq_head, *cq_tail, head;
	__u64 dl[2], at;
	char *m;
	int got = 0;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_RING_SETUP, &s))
		TH_LOG("RING_SETUP: %s", strerror(errno));
	m = mmap(NULL, s.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	ASSERT_TRUE(m != MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
	cq_head = (__u32 *)(m + s.cq_head);
	cq_tail = (__u32 *)(m + s.cq_tail);
	/* Slot 1 far away, then moved to a near absolute time. */
	dl[0] = now_ns(CLOCK_MONOTONIC) + AHEAD_NS;
	dl[1] = dl[0] + 20 * MS;
	e.deadline_ns = dl[0];
	e.cookie = 10;
	sq_push(&s, m, &e);
	e.slot = 1;
	e.deadline_ns = dl[1] + 100000 * MS;
	e.cookie = 11;
	sq_push(&s, m, &e);
	e.op = HWTIMER_SQE_MODIFY;
	e.deadline_ns = dl[1];
	e.cookie = 12;
	sq_push(&s, m, &e);
	ASSERT_LE(0, ioctl(self->fd, HWTIMER_IOC_ENTER, &enter))
		TH_LOG("ENTER: %s", strerror(errno));
	p.fd = self->fd;
	while (got < 2) {
		head = *cq_head;
		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
			ASSERT_EQ(1, poll(&p, 1, WAIT_MS))
				TH_LOG("completion %d of 2 not in %d ms",
				       got + 1, WAIT_MS);
			continue;
		}
		ev = ((struct hwtimer_event *)(m + s.cqes))
			[head & (s.cq_entries - 1)];
		at = now_ns(CLOCK_MONOTONIC);
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
		ASSERT_TRUE(ev.cookie == 10 || ev.cookie == 11)
			TH_LOG("completion: cookie %llu, res %lld",
			       ev.cookie, (long long)ev.res);
		check_record(_metadata, &ev, at, dl[ev.cookie - 10],
			     CLOCK_MONOTONIC);
		got++;
	}
	munmap(m, s.map_size);
}

/*
 * A context opened before its process entered a namespace keeps the
 * clocks it was opened on: its deadlines and records are the host's,
 * while a context opened after, beside it, has the namespace's. Each
 * fires in the tick of the other, armed for the same moment.
 */
TEST(opener_clock)
{
	struct hwtimer_event ev, evs[2] = {};
	__u64 tick, features, t0, t1, at, dl[2], off;
	long long mono_s, boot_s;
	const char *why;
	int fd[2], i, r, try;

	if (access(DEV, F_OK))
		SKIP(return, "no " DEV);
	fd[0] = dev_open(&tick, &features);
	ASSERT_LE(0, fd[0]);
	variant_offsets(false, &mono_s, &boot_s);
	r = enter_timens(mono_s, boot_s, &why);
	if (r == -EPERM || r == -EINVAL || r == -ENOSPC || r == -ENOENT ||
	    r == -EACCES || r == -EUSERS)
		SKIP(return, "no time namespace here: %s: %s", why,
		     strerror(-r));
	ASSERT_EQ(0, r) TH_LOG("%s: %s", why, strerror(-r));
	fd[1] = dev_open(&tick, &features);
	ASSERT_LE(0, fd[1]);
	/* The namespace's clock less its offset is the host's. */
	off = mono_s * 1000000000ULL;
	for (try = 0; try < 2; try++) {
		t0 = now_ns(CLOCK_MONOTONIC);
		dl[0] = t0 - off + AHEAD_NS;
		dl[1] = t0 + AHEAD_NS;
		for (i = 0; i < 2; i++)
			ASSERT_EQ(0, arm(fd[i], CLOCK_MONOTONIC, dl[i], 0,
					 HWTIMER_ARM_ABS, i, NULL));
		t1 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, next_event(fd[i], &ev, WAIT_MS, CLOCK_MONOTONIC,
						&at))
				TH_LOG("context %d: no record in %d ms", i,
				       WAIT_MS);
			EXPECT_EQ((__u64)i, ev.cookie);
			evs[i] = ev;
			/* The host's clock, as the first context reads it. */
			check_record(_metadata, &ev, i ? at : at - off, dl[i],
				     CLOCK_MONOTONIC);
		}
		if (same_tick(_metadata, evs[0].fire_ns + off, evs[1].fire_ns,
			      tick, t1 - t0, try))
			break;
	}
	EXPECT_LT(try, 2);
	close(fd[0]);
	close(fd[1]);
}

/*
 * "exec CMD ARG...": run CMD in a time namespace with the offsets of the
 * "ahead" variant. Return: CMD's exit status, 4 (kselftest's SKIP) where
 * no time namespace can be had, 1 if CMD cannot be run.
 */
static int run_in_timens(char **argv)
{
	const char *why;
	long long mono_s, boot_s;
	int r;

	variant_offsets(false, &mono_s, &boot_s);
	r = enter_timens(mono_s, boot_s, &why);
	if (r) {
		fprintf(stderr, "hwtimer_timens: %s: %s\n", why, strerror(-r));
		return r == -EPERM || r == -EINVAL || r == -ENOSPC ||
		       r == -ENOENT ? KSFT_SKIP : 1;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "hwtimer_timens: %s: %s\n", argv[0], strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "exec"))
		return run_in_timens(argv + 2);
	return test_harness_run(argc, argv);
}
