// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_failnth - fault injection over every entry point of /dev/hwtimer
 * (kselftest TAP).
 *
 * Usage: hwtimer_failnth
 *
 * For each operation (open, every ioctl, read) and for n = 1, 2, ...: set up
 * a fresh context without faults, write n to /proc/thread-self/fail-nth,
 * run the operation once, and read fail-nth back. 0 means the n-th fault
 * site (a slab allocation under FAILSLAB, a copy to or from userspace under
 * FAULT_INJECTION_USERCOPY) was made to fail; the operation must then fail
 * cleanly with ENOMEM or EFAULT (a batch op may carry -ENOMEM in its status
 * instead), or succeed if the site had a fallback, and the context must
 * still work and close. The sweep ends at the first n that injects nothing;
 * that run must succeed. The caller checks kmemleak afterwards.
 *
 * Needs CONFIG_FAULT_INJECTION (fail-nth), CONFIG_FAILSLAB with
 * ignore-gfp-wait off (set here through debugfs) and, for the copies,
 * CONFIG_FAULT_INJECTION_USERCOPY; skips what is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest.h"

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
#define FAIL_NTH	"/proc/thread-self/fail-nth"
/* No operation has anywhere near this many fault sites. */
#define NTH_MAX		2000
/* Ops in the batch case: more than one chunk of the chardev's copy loop. */
#define BATCH_OPS	40

/**
 * struct fcase - one operation under fault injection
 * @name: what the TAP line says
 * @setup: prepare *@fd (open and arm what @run needs), or NULL
 * @run: the operation; returns 0 or an errno, and sets *@partial when
 *	it succeeded with some batch ops failed with -ENOMEM
 */
struct fcase {
	const char *name;
	int (*setup)(int *fd);
	int (*run)(int *fd, int *partial);
};

static int efd = -1;
static uint64_t target_id, target2_id;
static uint64_t points;

/*
 * fail-nth is written and read through one descriptor opened up front:
 * opening the file between the write and the read would itself allocate
 * and consume a fault site.
 */
static int nth_fd = -1;

static int set_nth(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(nth_fd, buf, len, 0) == len ? 0 : -1;
}

static long get_nth(void)
{
	char buf[16] = "";
	ssize_t r = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	return r > 0 ? strtol(buf, NULL, 10) : -1;
}

static int arm_one(int fd, uint64_t deadline, uint64_t period, uint64_t *id)
{
	struct hwtimer_arm_req a = {
		.deadline_ns = deadline, .period_ns = period,
		.clock = CLOCK_MONOTONIC,
	};

	if (ioctl(fd, HWTIMER_IOC_ARM, &a))
		return errno;
	*id = a.id;
	return 0;
}

static int setup_open(int *fd)
{
	*fd = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return *fd < 0 ? errno : 0;
}

/* A context with a far one-shot and a periodic timeout to work on. */
static int setup_armed(int *fd)
{
	int ret = setup_open(fd);

	if (!ret)
		ret = arm_one(*fd, 3600000 * MS, 0, &target_id);
	if (!ret)
		ret = arm_one(*fd, 3600000 * MS, 5 * MS, &target2_id);
	return ret;
}

/* A context with an event waiting to be read. */
static int setup_event(int *fd)
{
	struct hwtimer_stats_req st = { .clock = CLOCK_MONOTONIC };
	int ret = setup_open(fd), i;

	if (!ret)
		ret = arm_one(*fd, 0, 0, &target_id);
	for (i = 0; !ret && i < 500; i++) {
		if (ioctl(*fd, HWTIMER_IOC_STATS, &st))
			return errno;
		if (st.ctx_queued)
			return 0;
		usleep(10000);
	}
	return ret ? ret : ETIMEDOUT;
}

static int run_open(int *fd, int *partial)
{
	*fd = open(DEV, O_RDWR | O_CLOEXEC);
	return *fd < 0 ? errno : 0;
}

static int run_api(int *fd, int *partial)
{
	struct hwtimer_api a = { .api = HWTIMER_API };

	return ioctl(*fd, HWTIMER_IOC_API, &a) ? errno : 0;
}

static int run_arm(int *fd, int *partial)
{
	uint64_t id;

	return arm_one(*fd, 3600000 * MS, 0, &id);
}

static int run_arm_periodic(int *fd, int *partial)
{
	uint64_t id;

	return arm_one(*fd, 0, 2 * MS, &id);
}

static int run_cancel(int *fd, int *partial)
{
	struct hwtimer_cancel_req c = { .id = target_id };

	return ioctl(*fd, HWTIMER_IOC_CANCEL, &c) ? errno : 0;
}

static int run_cancel_periodic(int *fd, int *partial)
{
	struct hwtimer_cancel_req c = { .id = target2_id };

	return ioctl(*fd, HWTIMER_IOC_CANCEL, &c) ? errno : 0;
}

static int run_modify(int *fd, int *partial)
{
	struct hwtimer_modify_req m = { .id = target_id, .deadline_ns = MS };

	return ioctl(*fd, HWTIMER_IOC_MODIFY, &m) ? errno : 0;
}

static int run_batch(int *fd, int *partial)
{
	struct hwtimer_batch_op ops[BATCH_OPS];
	struct hwtimer_batch b = { .ops = (uintptr_t)ops, .count = BATCH_OPS };
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < BATCH_OPS; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].deadline_ns = (i % 3) * MS;
		ops[i].clock = i % 4 ? CLOCK_MONOTONIC : CLOCK_BOOTTIME;
	}
	ops[5].op = HWTIMER_OP_CANCEL;
	ops[5].id = target_id;
	ops[5].deadline_ns = 0;
	ops[5].clock = 0;
	ops[20].op = HWTIMER_OP_MODIFY;
	ops[20].id = target2_id;
	ops[20].clock = 0;
	if (ioctl(*fd, HWTIMER_IOC_BATCH, &b))
		return errno;
	for (i = 0; i < BATCH_OPS; i++) {
		if (ops[i].status == -ENOMEM)
			*partial = 1;
		else if (ops[i].status)
			return -ops[i].status;
	}
	return 0;
}

static int run_eventfd(int *fd, int *partial)
{
	struct hwtimer_eventfd_req e = { .fd = efd };

	return ioctl(*fd, HWTIMER_IOC_SET_EVENTFD, &e) ? errno : 0;
}

static int run_stats(int *fd, int *partial)
{
	struct hwtimer_stats_req st = { .clock = CLOCK_BOOTTIME };

	return ioctl(*fd, HWTIMER_IOC_STATS, &st) ? errno : 0;
}

static int run_read(int *fd, int *partial)
{
	struct hwtimer_event ev;

	return read(*fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : errno;
}

static const struct fcase cases[] = {
	{ "open", NULL, run_open },
	{ "HWTIMER_IOC_API", setup_open, run_api },
	{ "HWTIMER_IOC_ARM one-shot", setup_open, run_arm },
	{ "HWTIMER_IOC_ARM periodic", setup_open, run_arm_periodic },
	{ "HWTIMER_IOC_CANCEL one-shot", setup_armed, run_cancel },
	{ "HWTIMER_IOC_CANCEL periodic", setup_armed, run_cancel_periodic },
	{ "HWTIMER_IOC_MODIFY", setup_armed, run_modify },
	{ "HWTIMER_IOC_BATCH", setup_armed, run_batch },
	{ "HWTIMER_IOC_SET_EVENTFD", setup_open, run_eventfd },
	{ "HWTIMER_IOC_STATS", setup_open, run_stats },
	{ "read", setup_event, run_read },
};

/* After an injected failure the context must still work. */
static int still_works(int fd)
{
	struct hwtimer_stats_req st = { .clock = CLOCK_MONOTONIC };
	uint64_t id;

	if (fd < 0)
		return 1;
	if (ioctl(fd, HWTIMER_IOC_STATS, &st))
		return 0;
	return arm_one(fd, 3600000 * MS, 0, &id) == 0;
}

static int sweep(const struct fcase *c, int num)
{
	unsigned int n, injected = 0;
	int bad = 0;

	for (n = 1; n <= NTH_MAX; n++) {
		int fd = -1, err, partial = 0;
		long left;

		if (c->setup && c->setup(&fd)) {
			printf("# %s: setup failed: %s\n", c->name,
			       strerror(errno));
			bad = 1;
			break;
		}
		if (set_nth(n)) {
			printf("# cannot write %s\n", FAIL_NTH);
			bad = 1;
			break;
		}
		err = c->run(&fd, &partial);
		left = get_nth();
		set_nth(0);
		if (left != 0) {
			/* Nothing left to fail: this run must have worked. */
			if (err || partial) {
				printf("# %s: fault-free run failed: %s\n",
				       c->name, strerror(err));
				bad = 1;
			}
			if (fd >= 0)
				close(fd);
			break;
		}
		injected++;
		points++;
		if (err && err != ENOMEM && err != EFAULT) {
			printf("# %s: fault %u gave %s\n", c->name, n,
			       strerror(err));
			bad = 1;
		}
		if (!still_works(fd)) {
			printf("# %s: context unusable after fault %u\n",
			       c->name, n);
			bad = 1;
		}
		if (fd >= 0 && close(fd)) {
			printf("# %s: close after fault %u: %s\n", c->name, n,
			       strerror(errno));
			bad = 1;
		}
	}
	if (n > NTH_MAX) {
		printf("# %s: still injecting at %u\n", c->name, n);
		bad = 1;
	}
	ksft_test_result(!bad, "fail-nth %s: %u fault points, each failed cleanly\n",
			 c->name, injected);
	return bad;
}

/* Make FAILSLAB hit GFP_KERNEL too and keep the injections quiet. */
static void tune_debugfs(void)
{
	static const char * const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_usercopy/verbose", "0" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		int fd = open(knobs[i][0], O_WRONLY);

		if (fd < 0) {
			printf("# %s: %s\n", knobs[i][0], strerror(errno));
			continue;
		}
		if (write(fd, knobs[i][1], 1) != 1)
			printf("# %s: %s\n", knobs[i][0], strerror(errno));
		close(fd);
	}
}

int main(void)
{
	unsigned int i, n = ARRAY_SIZE(cases);
	int fails = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(n);
	nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		for (i = 0; i < n; i++)
			ksft_test_result_skip("fail-nth %s: no %s\n",
					      cases[i].name, FAIL_NTH);
		ksft_finished();
	}
	tune_debugfs();
	efd = eventfd(0, EFD_CLOEXEC);
	for (i = 0; i < n; i++)
		fails += sweep(&cases[i], i + 1);
	printf("STRESS-FIGURES failnth points=%llu\n",
	       (unsigned long long)points);
	ksft_finished();
}
