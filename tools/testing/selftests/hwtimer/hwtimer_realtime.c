// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_realtime - /dev/hwtimer on CLOCK_REALTIME, as timerfd_create(2)
 * has it: an absolute deadline is a wall-clock time and follows every
 * setting of the clock; a relative one runs on CLOCK_MONOTONIC.
 *
 * Without CAP_SYS_TIME (as nobody): the handshake's feature bit, absolute
 * ARM, BATCH and MODIFY on the wall clock, a periodic one's deadlines, a
 * relative arm's records on CLOCK_MONOTONIC, and the rings refusing the
 * clock. As root, the clock is also set (clock_settime()):
 *
 *   forward   past a deadline a minute away: the timeout is served at
 *             once, its record's deadline as armed and fire_ns after it
 *   back      two seconds back with a deadline 300 ms away: nothing within
 *             a second, then the record, served at or after its deadline
 *   rewind    the wheel has served a timeout at the current time; the
 *             clock set back two seconds; timeouts armed 100 and 500 ms
 *             ahead, before the time the wheel was at, must not be served
 *             early, the second not when the first makes the wheel move
 *   relative  a relative arm of 300 ms, the clock set back a minute:
 *             served after 300 ms on CLOCK_MONOTONIC all the same
 *   cos_*     cancel on set (HWTIMER_ARM_CANCEL_ON_SET): set forward past
 *             its deadline, or back, a minute before it, a one-shot and a
 *             periodic one give a clock-set record at once, woken through
 *             poll(), a blocking read() and the eventfd, while a plain
 *             timeout beside them is served as usual; one armed after a
 *             set is not cancelled by it; COS_MANY of them, swept by the
 *             read in chunks of the id table, all report one set; armed
 *             through BATCH, they report it as those of ARM do
 *
 * Cancel on set is also checked without CAP_SYS_TIME: the flag is refused
 * where it means nothing, and a timeout armed with it is served as usual
 * when the clock is left alone.
 *
 * Each test that sets the clock puts it back in its teardown, to where it
 * would be had it not been set (CLOCK_MONOTONIC's progress since).
 *
 * Timing rules. "Never early" is exact: fire_ns is the wall clock when
 * the wheel served the timeout, and no record may come before the clock
 * reaches its deadline. Lateness is bounded only by WAIT_MS, whose
 * failures are a minute (forward) or seconds (back) off: what a wrong
 * wheel would do, far beyond what a loaded, emulated host stalls.
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
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest_harness.h"
#include "hwtimer_clock.h"

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
#define SEC		1000000000ULL
/* How long a record may take to come once it is due. */
#define WAIT_MS		5000
/* Cancel-on-set timeouts in one context for one set: many sweep chunks. */
#define COS_MANY	20000

static int set_real(__u64 ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };

	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

/* Wait up to @ms for one record; @at: CLOCK_REALTIME after it came. */
static int rt_event(int fd, struct hwtimer_event *ev, int ms, __u64 *at)
{
	return next_event(fd, ev, ms, CLOCK_REALTIME, at);
}

FIXTURE(rt) {
	int fd;
	__u64 tick;
	__u64 features;
	/* The clock before a test set it, and CLOCK_MONOTONIC then. */
	__u64 real0;
	__u64 mono0;
	bool set;
};

/*
 * A setup that skips leaves fd at -1, and each test returns at once:
 * 6.1's harness runs the body of a test whose setup skipped.
 */
FIXTURE_SETUP(rt)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	cpu_set_t one;

	self->fd = -1;
	self->set = false;
	if (access(DEV, F_OK))
		SKIP(return, "no " DEV);
	/* One CPU: the timeouts of a test share a base of the wheel. */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	self->fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG(DEV ": %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_API, &api));
	self->tick = api.tick_ns;
	self->features = api.features;
}

FIXTURE_TEARDOWN(rt)
{
	if (self->set)
		set_real(self->real0 + now_ns(CLOCK_MONOTONIC) - self->mono0);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Set the clock by @delta_ns; teardown puts it back. Return: false when
 * this process may not (the test then skips).
 */
static bool step(struct __test_metadata *_metadata,
		 FIXTURE_DATA(rt) *self, long long delta_ns)
{
	if (!self->set) {
		self->real0 = now_ns(CLOCK_REALTIME);
		self->mono0 = now_ns(CLOCK_MONOTONIC);
	}
	if (set_real(now_ns(CLOCK_REALTIME) + delta_ns))
		return false;
	self->set = true;
	return true;
}

/* A record of an absolute wall-clock deadline @dl, read at @at. */
static void check_record(struct __test_metadata *_metadata,
			 const struct hwtimer_event *ev, __u64 at, __u64 dl)
{
	EXPECT_EQ(dl, ev->deadline_ns);
	EXPECT_EQ((__u32)CLOCK_REALTIME, ev->clock);
	EXPECT_LE(dl, ev->fire_ns)
		TH_LOG("served %lld ns before its deadline",
		       (long long)(dl - ev->fire_ns));
	EXPECT_LE(ev->fire_ns, at);
}

TEST_F(rt, feature)
{
	if (self->fd < 0)
		return;
	EXPECT_NE(0, (int)!!(self->features & HWTIMER_FEATURE_REALTIME))
		TH_LOG("features %#llx", self->features);
}

/* A clock-set record of cancel-on-set deadline @dl, read at @at. */
static void check_set_record(struct __test_metadata *_metadata,
			     const struct hwtimer_event *ev, __u64 at, __u64 dl)
{
	EXPECT_EQ(HWTIMER_EVENT_CLOCK_SET | HWTIMER_EVENT_LAST, ev->flags)
		TH_LOG("cookie %llu: flags %#x", ev->cookie, ev->flags);
	EXPECT_EQ(dl, ev->deadline_ns);
	EXPECT_EQ((__u32)CLOCK_REALTIME, ev->clock);
	EXPECT_LE(ev->fire_ns, at);
}

/* An absolute wall-clock deadline, the clock left alone. */
TEST_F(rt, absolute)
{
	struct hwtimer_event ev;
	__u64 dl, at;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 100 * MS;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 1,
			 NULL));
	ASSERT_EQ(0, rt_event(self->fd, &ev, 100 + WAIT_MS, &at));
	EXPECT_EQ(1ULL, ev.cookie);
	check_record(_metadata, &ev, at, dl);
}

/* BATCH: an absolute REALTIME ARM, then a MODIFY to a nearer time. */
TEST_F(rt, batch_modify)
{
	struct hwtimer_batch_op op = {
		.op = HWTIMER_OP_ARM,
		.flags = HWTIMER_ARM_ABS,
		.cookie = 2,
		.clock = CLOCK_REALTIME,
	};
	struct hwtimer_batch b = { .ops = (uintptr_t)&op, .count = 1 };
	struct hwtimer_modify_req m = { .flags = HWTIMER_ARM_ABS };
	struct hwtimer_event ev;
	__u64 at;

	if (self->fd < 0)
		return;
	op.deadline_ns = now_ns(CLOCK_REALTIME) + 3600 * SEC;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_BATCH, &b));
	ASSERT_EQ(0U, b.failed) TH_LOG("status %d", op.status);
	m.id = op.id;
	m.deadline_ns = now_ns(CLOCK_REALTIME) + 100 * MS;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_MODIFY, &m));
	ASSERT_EQ((__u32)HWTIMER_RESULT_MODIFIED, m.result);
	ASSERT_EQ(0, rt_event(self->fd, &ev, 100 + WAIT_MS, &at));
	EXPECT_EQ(2ULL, ev.cookie);
	check_record(_metadata, &ev, at, m.deadline_ns);
}

/* A periodic one: the first deadline plus whole periods, on the wall clock. */
TEST_F(rt, periodic)
{
	const __u64 period = 50 * MS;
	struct hwtimer_event ev;
	__u64 dl, at;
	int i;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + period;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, period,
			 HWTIMER_ARM_ABS, 3, NULL));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at));
		EXPECT_EQ(0ULL, (ev.deadline_ns - dl) % period)
			TH_LOG("deadline %llu: not %llu + k periods",
			       ev.deadline_ns, dl);
		check_record(_metadata, &ev, at, ev.deadline_ns);
	}
}

/* A relative arm on CLOCK_REALTIME runs on CLOCK_MONOTONIC and says so. */
TEST_F(rt, relative_is_monotonic)
{
	struct hwtimer_event ev;
	__u64 t0, t1, at;

	if (self->fd < 0)
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, 100 * MS, 0, 0, 4, NULL));
	t1 = now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, rt_event(self->fd, &ev, 100 + WAIT_MS, &at));
	EXPECT_EQ((__u32)CLOCK_MONOTONIC, ev.clock);
	EXPECT_LE(t0 + 100 * MS, ev.deadline_ns);
	EXPECT_GE(t1 + 100 * MS, ev.deadline_ns);
	EXPECT_LE(ev.deadline_ns, ev.fire_ns);
	EXPECT_GE(now_ns(CLOCK_MONOTONIC), ev.fire_ns);
}

/* The timer rings take CLOCK_MONOTONIC and CLOCK_BOOTTIME only. */
TEST_F(rt, rings_refuse)
{
	struct hwtimer_ring_setup s = {
		.sq_entries = 8,
		.cq_entries = 8,
		.slots = 1,
		.clock = CLOCK_REALTIME,
	};

	if (self->fd < 0)
		return;
	EXPECT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING_SETUP, &s));
	EXPECT_EQ(EINVAL, errno);
}

/* The clock set forward past a deadline a minute away: served at once. */
TEST_F(rt, forward)
{
	struct hwtimer_event ev;
	__u64 dl, at, t0;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 60 * SEC;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 5,
			 NULL));
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!step(_metadata, self, 120 * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at))
		TH_LOG("no record %d ms after the clock passed the deadline",
		       WAIT_MS);
	TH_LOG("served %llu ms after the clock was set",
	       (now_ns(CLOCK_MONOTONIC) - t0) / MS);
	EXPECT_EQ(5ULL, ev.cookie);
	check_record(_metadata, &ev, at, dl);
}

/* Two seconds back, 300 ms before a deadline: never served early. */
TEST_F(rt, back)
{
	struct hwtimer_event ev;
	__u64 dl, at;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 300 * MS;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 6,
			 NULL));
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	EXPECT_EQ(-ETIMEDOUT, rt_event(self->fd, &ev, 1000, &at))
		TH_LOG("served at %llu, %lld ns before its deadline",
		       ev.fire_ns, (long long)(dl - at));
	ASSERT_EQ(0, rt_event(self->fd, &ev, 2300 + WAIT_MS, &at));
	EXPECT_EQ(6ULL, ev.cookie);
	check_record(_metadata, &ev, at, dl);
}

/*
 * The wheel has served a timeout at the clock's time; the clock is set
 * two seconds back, and two timeouts armed 100 and 500 ms ahead: before
 * the time the wheel was at, which it must move back to. The first one's
 * expiry makes the wheel collect while the second is not yet due.
 */
TEST_F(rt, rewind)
{
	struct hwtimer_event ev;
	__u64 dl[2], at;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, now_ns(CLOCK_REALTIME), 0,
			 HWTIMER_ARM_ABS, 7, NULL));
	ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at));
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	dl[0] = now_ns(CLOCK_REALTIME) + 100 * MS;
	dl[1] = dl[0] + 400 * MS;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl[i], 0,
				 HWTIMER_ARM_ABS, 8 + i, NULL));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rt_event(self->fd, &ev, 500 + WAIT_MS, &at));
		EXPECT_EQ(8ULL + i, ev.cookie);
		check_record(_metadata, &ev, at, dl[i]);
	}
}

/* Setting the clock leaves a relative arm's length alone. */
TEST_F(rt, relative_keeps_length)
{
	struct hwtimer_event ev;
	__u64 t0, at;

	if (self->fd < 0)
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, 300 * MS, 0, 0, 10, NULL));
	if (!step(_metadata, self, -60LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	ASSERT_EQ(0, rt_event(self->fd, &ev, 300 + WAIT_MS, &at));
	EXPECT_EQ(10ULL, ev.cookie);
	EXPECT_EQ((__u32)CLOCK_MONOTONIC, ev.clock);
	EXPECT_LE(t0 + 300 * MS, ev.fire_ns);
	/* Not a minute later: served within WAIT_MS of its deadline. */
	EXPECT_GT(t0 + 300 * MS + WAIT_MS * MS, now_ns(CLOCK_MONOTONIC));
}

/* Where cancel on set means nothing, the flag is refused. */
TEST_F(rt, cos_refused)
{
	const __u32 cos = HWTIMER_ARM_CANCEL_ON_SET;
	struct hwtimer_batch_op op = {
		.op = HWTIMER_OP_ARM,
		.flags = cos,
		.deadline_ns = SEC,
		.clock = CLOCK_REALTIME,
	};
	struct hwtimer_batch b = { .ops = (uintptr_t)&op, .count = 1 };
	struct hwtimer_modify_req m = { .flags = HWTIMER_ARM_ABS | cos };
	__u64 dl = now_ns(CLOCK_REALTIME) + 3600 * SEC;

	if (self->fd < 0)
		return;
	EXPECT_NE(0ULL, self->features & HWTIMER_FEATURE_CANCEL_ON_SET);
	/* Relative, on another clock, on MODIFY, relative in BATCH. */
	EXPECT_EQ(-EINVAL, arm(self->fd, CLOCK_REALTIME, SEC, 0, cos, 1, NULL));
	EXPECT_EQ(-EINVAL, arm(self->fd, CLOCK_MONOTONIC,
			       now_ns(CLOCK_MONOTONIC) + SEC, 0,
			       HWTIMER_ARM_ABS | cos, 1, NULL));
	EXPECT_EQ(-EINVAL, arm(self->fd, CLOCK_BOOTTIME,
			       now_ns(CLOCK_BOOTTIME) + SEC, 0,
			       HWTIMER_ARM_ABS | cos, 1, NULL));
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 1,
			 &m.id));
	m.deadline_ns = dl;
	EXPECT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_MODIFY, &m));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_BATCH, &b));
	EXPECT_EQ(-EINVAL, op.status);
}

/* The clock left alone: served as any timeout, no clock-set flag. */
TEST_F(rt, cos_quiet)
{
	struct hwtimer_event ev;
	__u64 dl, at;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 100 * MS;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 11, NULL));
	ASSERT_EQ(0, rt_event(self->fd, &ev, 100 + WAIT_MS, &at));
	EXPECT_EQ(11ULL, ev.cookie);
	EXPECT_EQ(HWTIMER_EVENT_LAST, ev.flags);
	check_record(_metadata, &ev, at, dl);
}

/*
 * Set forward past the deadlines: the cancel-on-set one-shot reports the
 * set, not an expiry; a plain timeout with the same deadline expires.
 */
TEST_F(rt, cos_forward)
{
	struct hwtimer_event ev;
	__u64 dl, at;
	int i, seen = 0;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 60 * SEC;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 12, NULL));
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 13,
			 NULL));
	if (!step(_metadata, self, 120 * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at))
			TH_LOG("record %d not there %d ms after the set", i,
			       WAIT_MS);
		seen |= 1 << (ev.cookie - 12);
		if (ev.cookie == 12) {
			check_set_record(_metadata, &ev, at, dl);
		} else {
			EXPECT_EQ(HWTIMER_EVENT_LAST, ev.flags);
			check_record(_metadata, &ev, at, dl);
		}
	}
	EXPECT_EQ(3, seen);
}

/*
 * Set back two seconds, a minute before the deadlines: a one-shot and a
 * periodic cancel-on-set timeout report it at once, through poll(); the
 * plain one stays pending. A CANCEL of the one-shot after the set finds
 * it fired: the set cancelled it first.
 */
TEST_F(rt, cos_back)
{
	struct hwtimer_cancel_req c = { 0 };
	struct hwtimer_event ev;
	__u64 dl, at;
	int i, seen = 0;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 60 * SEC;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 14, &c.id));
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, SEC,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 15, NULL));
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 16,
			 NULL));
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_CANCEL, &c));
	EXPECT_EQ((__u32)HWTIMER_RESULT_FIRED, c.result);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at))
			TH_LOG("record %d not there %d ms after the set", i,
			       WAIT_MS);
		seen |= 1 << (ev.cookie - 14);
		check_set_record(_metadata, &ev, at, dl);
		EXPECT_EQ(0ULL, ev.overruns);
	}
	EXPECT_EQ(3, seen);
	EXPECT_EQ(-ETIMEDOUT, rt_event(self->fd, &ev, 300, &at))
		TH_LOG("cookie %llu flags %#x", ev.cookie, ev.flags);
}

/*
 * BATCH takes cancel-on-set ARMs as ARM does: a one-shot and a periodic
 * one beside a plain ARM and a CANCEL in one call; a set of the clock
 * then gives the two clock-set records and leaves the plain one pending.
 */
TEST_F(rt, cos_batch)
{
	const __u32 cos = HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET;
	__u64 dl = now_ns(CLOCK_REALTIME) + 60 * SEC;
	struct hwtimer_batch_op op[4] = {
		{ .op = HWTIMER_OP_ARM, .flags = cos, .cookie = 40,
		  .deadline_ns = dl, .clock = CLOCK_REALTIME },
		{ .op = HWTIMER_OP_ARM, .flags = HWTIMER_ARM_ABS, .cookie = 41,
		  .deadline_ns = dl, .clock = CLOCK_REALTIME },
		{ .op = HWTIMER_OP_ARM, .flags = cos, .cookie = 42,
		  .deadline_ns = dl, .period_ns = SEC,
		  .clock = CLOCK_REALTIME },
		{ .op = HWTIMER_OP_CANCEL },
	};
	struct hwtimer_batch b = { .ops = (uintptr_t)op, .count = 4 };
	struct hwtimer_event ev;
	__u64 at;
	int i, seen = 0;

	if (self->fd < 0)
		return;
	ASSERT_NE(0ULL, self->features & HWTIMER_FEATURE_BATCH_CANCEL_ON_SET);
	ASSERT_EQ(0, arm(self->fd, CLOCK_MONOTONIC, 3600 * SEC, 0, 0, 43,
			 &op[3].id));
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_BATCH, &b));
	ASSERT_EQ(4U, b.done);
	ASSERT_EQ(0U, b.failed);
	EXPECT_EQ((__u32)HWTIMER_RESULT_CANCELLED, op[3].result);
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at))
			TH_LOG("record %d not there %d ms after the set", i,
			       WAIT_MS);
		ASSERT_TRUE(ev.cookie == 40 || ev.cookie == 42)
			TH_LOG("cookie %llu", ev.cookie);
		seen |= 1 << (ev.cookie - 40);
		check_set_record(_metadata, &ev, at, dl);
	}
	EXPECT_EQ(5, seen);
	EXPECT_EQ(-ETIMEDOUT, rt_event(self->fd, &ev, 300, &at))
		TH_LOG("cookie %llu flags %#x", ev.cookie, ev.flags);
}

/* A blocking read() and the eventfd wake at a set, as at an expiry. */
TEST_F(rt, cos_wakes)
{
	struct hwtimer_eventfd_req e = { .fd = -1 };
	struct pollfd p = { .events = POLLIN };
	struct hwtimer_event ev;
	__u64 dl, n;
	pid_t pid;
	int st;

	if (self->fd < 0)
		return;
	e.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, e.fd);
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_SET_EVENTFD, &e));
	dl = now_ns(CLOCK_REALTIME) + 60 * SEC;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 17, NULL));
	if (set_real(now_ns(CLOCK_REALTIME)))
		SKIP(close(e.fd); return, "clock_settime: %s", strerror(errno));
	/* The clock set to its own time: its offset moved by nanoseconds. */
	self->real0 = now_ns(CLOCK_REALTIME);
	self->mono0 = now_ns(CLOCK_MONOTONIC);
	self->set = true;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		alarm(WAIT_MS / 1000);
		_exit(read(self->fd, &ev, sizeof(ev)) == sizeof(ev) &&
		      ev.cookie == 17 &&
		      ev.flags & HWTIMER_EVENT_CLOCK_SET ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("blocking read: status %#x", st);
	p.fd = e.fd;
	EXPECT_EQ(1, poll(&p, 1, WAIT_MS));
	EXPECT_EQ((ssize_t)sizeof(n), read(e.fd, &n, sizeof(n)));
	close(e.fd);
}

/*
 * One armed after a set is not cancelled by it: its arm first turns the
 * earlier one into a clock-set record.
 */
TEST_F(rt, cos_after_set)
{
	struct hwtimer_event ev;
	__u64 dl[2], at;

	if (self->fd < 0)
		return;
	dl[0] = now_ns(CLOCK_REALTIME) + 60 * SEC;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl[0], 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 18, NULL));
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	dl[1] = now_ns(CLOCK_REALTIME) + 300 * MS;
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl[1], 0,
			 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET, 19, NULL));
	ASSERT_EQ(0, rt_event(self->fd, &ev, WAIT_MS, &at));
	EXPECT_EQ(18ULL, ev.cookie);
	check_set_record(_metadata, &ev, at, dl[0]);
	ASSERT_EQ(0, rt_event(self->fd, &ev, 300 + WAIT_MS, &at));
	EXPECT_EQ(19ULL, ev.cookie);
	EXPECT_EQ(HWTIMER_EVENT_LAST, ev.flags);
	check_record(_metadata, &ev, at, dl[1]);
}

/*
 * COS_MANY cancel-on-set timeouts and one plain one: a set back gives a
 * clock-set record for each, the plain one none; the time from the set to
 * the last record is logged (the owner's read() pays for the sweep).
 */
TEST_F(rt, cos_many)
{
	static struct hwtimer_event evs[256];
	__u64 dl, t0, got = 0;
	ssize_t n;
	int i;

	if (self->fd < 0)
		return;
	dl = now_ns(CLOCK_REALTIME) + 600 * SEC;
	for (i = 0; i < COS_MANY; i++)
		ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl + i, 0,
				 HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET,
				 i, NULL));
	ASSERT_EQ(0, arm(self->fd, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS,
			 COS_MANY, NULL));
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!step(_metadata, self, -2LL * SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	while (got < COS_MANY) {
		struct pollfd p = { .fd = self->fd, .events = POLLIN };

		ASSERT_EQ(1, poll(&p, 1, WAIT_MS))
			TH_LOG("%llu of %d records", got, COS_MANY);
		n = read(self->fd, evs, sizeof(evs));
		ASSERT_LT(0, n);
		for (i = 0; i < n / (ssize_t)sizeof(evs[0]); i++, got++) {
			ASSERT_GT((__u64)COS_MANY, evs[i].cookie);
			ASSERT_EQ(HWTIMER_EVENT_CLOCK_SET | HWTIMER_EVENT_LAST,
				  evs[i].flags);
			ASSERT_EQ(dl + evs[i].cookie, evs[i].deadline_ns);
		}
	}
	TH_LOG("%d clock-set records read %llu ms after the set", COS_MANY,
	       (now_ns(CLOCK_MONOTONIC) - t0) / MS);
	EXPECT_EQ(-ETIMEDOUT, rt_event(self->fd, evs, 200, &dl))
		TH_LOG("cookie %llu flags %#x", evs[0].cookie, evs[0].flags);
}

TEST_HARNESS_MAIN
