// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_churn - open / arm a random number / close at a random moment,
 * over and over, from several threads (kselftest TAP).
 *
 * Usage: hwtimer_churn [-n ROUNDS] [-j THREADS] [-s SEED]
 *
 * Each round opens /dev/hwtimer, arms 0..64 one-shot and periodic timeouts
 * (single ioctls and batches, deadlines from the past to a few ticks
 * ahead and some far away), sometimes sets an eventfd, reads some events,
 * sometimes dup()s the file, and closes it after a random pause: so close
 * meets timeouts pending, firing, queued and read. The caller checks
 * kmemleak afterwards; this program checks that every call succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#define DEV	"/dev/hwtimer"
#define MS	1000000ULL

/**
 * struct churner - one thread's share of the rounds
 * @rounds: rounds to run
 * @rng: xorshift64 state
 * @arms: timeouts armed
 * @events: event records read
 * @bad: calls that failed
 */
struct churner {
	unsigned int rounds;
	uint64_t rng;
	uint64_t arms;
	uint64_t events;
	uint64_t bad;
	pthread_t thr;
};

static uint64_t rnd(struct churner *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

static uint64_t below(struct churner *c, uint64_t n)
{
	return n ? rnd(c) % n : 0;
}

static void fill_arm(struct churner *c, __u64 *deadline, __u64 *period,
		     __u32 *clock)
{
	uint64_t k = below(c, 100);

	*clock = below(c, 4) ? CLOCK_MONOTONIC : CLOCK_BOOTTIME;
	*period = below(c, 5) == 0 ? MS * (1 + below(c, 3)) : 0;
	if (k < 80)
		*deadline = below(c, 3 * MS);
	else if (k < 95)
		*deadline = below(c, 100 * MS);
	else
		*deadline = 3600000 * MS;
}

static void note(struct churner *c, const char *what)
{
	c->bad++;
	if (c->bad < 10)
		printf("# %s: %s\n", what, strerror(errno));
}

static void round_once(struct churner *c)
{
	struct hwtimer_batch_op ops[16];
	struct hwtimer_event evs[8];
	unsigned int n = below(c, 65), i;
	int fd, fd2 = -1, efd = -1;
	ssize_t r;

	fd = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		note(c, "open");
		return;
	}
	if (below(c, 4) == 0) {
		struct hwtimer_eventfd_req er = { 0 };

		efd = eventfd(0, EFD_CLOEXEC);
		er.fd = efd;
		if (ioctl(fd, HWTIMER_IOC_SET_EVENTFD, &er))
			note(c, "set eventfd");
	}
	for (i = 0; i < n;) {
		if (below(c, 3) == 0) {
			struct hwtimer_batch b = { .ops = (uintptr_t)ops };
			unsigned int k, m = 1 + below(c, 16);

			memset(ops, 0, sizeof(ops));
			for (k = 0; k < m; k++) {
				ops[k].op = HWTIMER_OP_ARM;
				ops[k].cookie = k;
				fill_arm(c, &ops[k].deadline_ns,
					 &ops[k].period_ns,
					 &ops[k].clock);
			}
			b.count = m;
			if (ioctl(fd, HWTIMER_IOC_BATCH, &b) || b.failed)
				note(c, "batch");
			c->arms += m;
			i += m;
		} else {
			struct hwtimer_arm_req a = { .cookie = i };

			fill_arm(c, &a.deadline_ns,
				 &a.period_ns, &a.clock);
			if (ioctl(fd, HWTIMER_IOC_ARM, &a))
				note(c, "arm");
			c->arms++;
			i++;
		}
		if (below(c, 8) == 0) {
			r = read(fd, evs, sizeof(evs));
			if (r > 0)
				c->events += r / sizeof(evs[0]);
		}
	}
	if (below(c, 8) == 0)
		fd2 = dup(fd);
	usleep(below(c, 4000));
	if (below(c, 2)) {
		r = read(fd, evs, sizeof(evs));
		if (r > 0)
			c->events += r / sizeof(evs[0]);
	}
	close(fd);
	if (fd2 >= 0)
		close(fd2);
	if (efd >= 0)
		close(efd);
}

static void *churn(void *arg)
{
	struct churner *c = arg;
	unsigned int i;

	for (i = 0; i < c->rounds; i++)
		round_once(c);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int rounds = 10000, nthr = 2, i;
	uint64_t seed = (uint64_t)time(NULL) * 2654435761ULL | 1;
	uint64_t arms = 0, events = 0, bad = 0;
	struct churner *c;
	int opt;

	while ((opt = getopt(argc, argv, "n:j:s:")) != -1) {
		switch (opt) {
		case 'n':
			rounds = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			nthr = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			fprintf(stderr, "Usage: %s [-n ROUNDS] [-j THREADS] [-s SEED]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nthr)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(1);
	printf("# hwtimer_churn: %u rounds on %u threads, seed %#llx\n",
	       rounds, nthr, (unsigned long long)seed);
	c = calloc(nthr, sizeof(*c));
	if (!c)
		ksft_exit_fail_msg("no memory for %u threads\n", nthr);
	for (i = 0; i < nthr; i++) {
		c[i].rounds = rounds / nthr + (i < rounds % nthr);
		c[i].rng = seed + i * 0x9e3779b97f4a7c15ULL;
		pthread_create(&c[i].thr, NULL, churn, &c[i]);
	}
	for (i = 0; i < nthr; i++) {
		pthread_join(c[i].thr, NULL);
		arms += c[i].arms;
		events += c[i].events;
		bad += c[i].bad;
	}
	printf("# rounds %u arms %llu events read %llu failed calls %llu\n",
	       rounds, (unsigned long long)arms,
	       (unsigned long long)events, (unsigned long long)bad);
	printf("STRESS-FIGURES churn rounds=%u arms=%llu\n", rounds,
	       (unsigned long long)arms);
	ksft_test_result(!bad, "churn: %u rounds of open / arm / close, every call succeeded\n",
			 rounds);
	ksft_finished();
}
