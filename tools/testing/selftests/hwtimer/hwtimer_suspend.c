// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_suspend - timeouts across a system suspend: CLOCK_MONOTONIC
 * ones are paused, CLOCK_BOOTTIME ones, which count the time asleep, fire
 * at once on resume; none early, none lost. Root; it suspends the machine
 * to RAM (ACPI S3, woken by an RTC alarm; qemu's suspend-to-idle is not
 * woken by one), so it is for a VM (tools/vm/guest.d/38-suspend.sh), never
 * for a machine anyone uses. Its CPUs but the first go offline and back on
 * the way, with the timeouts pending on their bases.
 *
 * Before the suspend it arms, relative to now: a CLOCK_MONOTONIC one-shot
 * 2 s ahead, a CLOCK_BOOTTIME one-shot 3 s ahead, and a periodic timeout
 * of each clock every 500 ms. The RTC wakes the guest SLEEP_S seconds
 * later. Checks, all exact (an order, a count, a time against a clock
 * read), none against a bar:
 *
 *  - the guest slept: CLOCK_BOOTTIME went on past the one-shots'
 *    deadlines while CLOCK_MONOTONIC stood (else the test skips);
 *  - the BOOTTIME one-shot, due during the sleep, comes before the
 *    MONOTONIC one, due 2 s of CLOCK_MONOTONIC after the arm: served on
 *    resume, not 3 s of CLOCK_MONOTONIC later;
 *  - the MONOTONIC one-shot is served at or after its deadline;
 *  - every record is at or after its deadline, and at or before the read
 *    that took it, on its own clock;
 *  - the BOOTTIME periodic timeout's first record after the resume counts
 *    the periods slept through as overruns; the MONOTONIC one's does not;
 *  - all four timeouts are delivered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define SLEEP_S		8
#define PERIOD_NS	(500 * MS)
#define WAIT_MS		20000

enum { M_ONE = 1, B_ONE, M_PER, B_PER, NCOOKIE };

static int ntests, nfail;

static __u64 now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (__u64)ts.tv_sec * SEC + ts.tv_nsec;
}

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", pass ? "" : "not ", ++ntests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nfail += !pass;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		r = -errno;
	close(fd);
	return r;
}

static int arm(int fd, clockid_t c, __u64 rel, __u64 period, __u64 cookie,
	       __u64 *deadline)
{
	struct hwtimer_arm_req r = {
		.cookie = cookie,
		.deadline_ns = rel,
		.period_ns = period,
		.clock = c,
	};
	__u64 t0 = now_ns(c);

	if (ioctl(fd, HWTIMER_IOC_ARM, &r))
		return -errno;
	*deadline = t0 + rel;
	return 0;
}

int main(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	__u64 dl[NCOOKIE] = {}, m0, b0, m1, b1, slept, at;
	struct hwtimer_event ev[NCOOKIE] = {};
	bool seen[NCOOKIE] = {};
	int fd, r, order = 0, pos[NCOOKIE] = {}, i, bad = 0, nrec = 0;
	char alarm[32];

	printf("TAP version 13\n");
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, HWTIMER_IOC_API, &api)) {
		printf("1..0 # SKIP %s: %s\n", DEV, strerror(errno));
		return 0;
	}
	if (access("/sys/class/rtc/rtc0/wakealarm", W_OK) ||
	    access("/sys/power/state", W_OK)) {
		printf("1..0 # SKIP no RTC wake alarm or /sys/power/state\n");
		return 0;
	}
	m0 = now_ns(CLOCK_MONOTONIC);
	b0 = now_ns(CLOCK_BOOTTIME);
	r = arm(fd, CLOCK_MONOTONIC, 2 * SEC, 0, M_ONE, &dl[M_ONE]) ||
	    arm(fd, CLOCK_BOOTTIME, 3 * SEC, 0, B_ONE, &dl[B_ONE]) ||
	    arm(fd, CLOCK_MONOTONIC, PERIOD_NS, PERIOD_NS, M_PER, &dl[M_PER]) ||
	    arm(fd, CLOCK_BOOTTIME, PERIOD_NS, PERIOD_NS, B_PER, &dl[B_PER]);
	if (r) {
		printf("1..0 # SKIP arm: %s\n", strerror(errno));
		return 1;
	}
	/* Suspend to RAM until the RTC's alarm, SLEEP_S s from now. */
	snprintf(alarm, sizeof(alarm), "+%d", SLEEP_S);
	if (write_str("/sys/class/rtc/rtc0/wakealarm", "0") ||
	    write_str("/sys/class/rtc/rtc0/wakealarm", alarm)) {
		printf("1..0 # SKIP cannot set the RTC wake alarm\n");
		return 0;
	}
	if (write_str("/sys/power/mem_sleep", "deep")) {
		printf("1..0 # SKIP no suspend to RAM (mem_sleep deep)\n");
		return 0;
	}
	r = write_str("/sys/power/state", "mem");
	m1 = now_ns(CLOCK_MONOTONIC);
	b1 = now_ns(CLOCK_BOOTTIME);
	slept = (b1 - b0) - (m1 - m0);
	printf("# suspend: %s; MONOTONIC +%llu ms, BOOTTIME +%llu ms, asleep %llu ms\n",
	       r ? strerror(-r) : "resumed", (m1 - m0) / MS, (b1 - b0) / MS,
	       slept / MS);
	if (r || b1 < dl[B_ONE] || m1 >= dl[M_ONE]) {
		printf("1..0 # SKIP no sleep past the BOOTTIME deadline\n");
		return 0;
	}
	printf("1..7\n");
	/* Every record until both one-shots came, in the order they come. */
	while (!seen[M_ONE] || !seen[B_ONE]) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct hwtimer_event e;

		if (poll(&p, 1, WAIT_MS) != 1 ||
		    read(fd, &e, sizeof(e)) != sizeof(e) || !e.cookie ||
		    e.cookie >= NCOOKIE)
			break;
		at = now_ns(e.clock);
		if (e.deadline_ns > e.fire_ns || e.fire_ns > at ||
		    e.deadline_ns < dl[e.cookie]) {
			printf("# timeout %llu: armed %llu, deadline %llu, fired %llu, read %llu\n",
			       e.cookie, dl[e.cookie], e.deadline_ns,
			       e.fire_ns, at);
			bad++;
		}
		nrec++;
		/* The first record after the resume of each. */
		if (!seen[e.cookie]) {
			ev[e.cookie] = e;
			seen[e.cookie] = true;
			pos[e.cookie] = ++order;
		}
	}
	if (seen[B_ONE])
		printf("# BOOTTIME one-shot served %lld ms from resume\n",
		       ((long long)ev[B_ONE].fire_ns - (long long)b1) /
		       (long long)MS);
	ok(!bad, "%d records at or after their deadlines, before their reads (%d not)",
	   nrec, bad);
	ok(seen[M_ONE] && seen[B_ONE],
	   "both one-shots delivered (MONOTONIC %d, BOOTTIME %d)",
	   seen[M_ONE], seen[B_ONE]);
	ok(seen[B_ONE] && (!seen[M_ONE] || pos[B_ONE] < pos[M_ONE]),
	   "the BOOTTIME one-shot, due asleep, came before the MONOTONIC one (%d, %d)",
	   pos[B_ONE], pos[M_ONE]);
	ok(seen[M_ONE] && ev[M_ONE].fire_ns >= dl[M_ONE],
	   "the MONOTONIC one-shot served at or after its deadline (%lld ms)",
	   (long long)(ev[M_ONE].fire_ns - dl[M_ONE]) / (long long)MS);
	ok(seen[B_PER] && ev[B_PER].overruns + 2 >= slept / PERIOD_NS,
	   "BOOTTIME periodic counts the %llu periods slept (%llu overruns)",
	   slept / PERIOD_NS, ev[B_PER].overruns);
	i = M_PER;
	ok(seen[i] && ev[i].overruns <= (now_ns(CLOCK_MONOTONIC) - m0) /
	   PERIOD_NS + 1, "MONOTONIC periodic counts no periods slept (%llu overruns)",
	   ev[i].overruns);
	ok(seen[M_PER] && seen[B_PER], "both periodic timeouts delivered");
	close(fd);
	return nfail ? 1 : 0;
}
