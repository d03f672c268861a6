/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer_clock.h - what the clock selftests (hwtimer_timens,
 * hwtimer_realtime) share: a clock read, one ARM, and waiting for a record.
 * Included after <linux/hwtimer.h>, <poll.h>, <sys/ioctl.h>, <time.h> and
 * <unistd.h>.
 */
#ifndef HWTIMER_CLOCK_H
#define HWTIMER_CLOCK_H

#include <errno.h>

static __u64 now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* HWTIMER_IOC_ARM; @id (if not NULL) gets the id. Return: 0 or -errno. */
static int arm(int fd, clockid_t c, __u64 deadline, __u64 period,
	       __u32 flags, __u64 cookie, __u64 *id)
{
	struct hwtimer_arm_req r = {
		.cookie = cookie,
		.deadline_ns = deadline,
		.period_ns = period,
		.clock = c,
		.flags = flags,
	};

	if (ioctl(fd, HWTIMER_IOC_ARM, &r))
		return -errno;
	if (id)
		*id = r.id;
	return 0;
}

/*
 * Wait up to @ms for one record; @at: clock @c after it came.
 * Return: 0, -ETIMEDOUT, or -EIO.
 */
static int next_event(int fd, struct hwtimer_event *ev, int ms, clockid_t c,
		      __u64 *at)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	n = read(fd, ev, sizeof(*ev));
	*at = now_ns(c);
	return n == sizeof(*ev) ? 0 : -EIO;
}

#endif /* HWTIMER_CLOCK_H */
