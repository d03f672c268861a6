// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_lib_bench - what libhwtimer's submission queue costs per timeout
 * against HWTIMER_IOC_BATCH called by hand.
 *
 *   hwtimer_lib_bench [-n TIMEOUTS] [-r ROUNDS] [-b device|timerfd]
 *
 * Each variant arms TIMEOUTS (default 1048576) one-shots 10 s away and
 * cancels them, 1024 at a time (1024 arms, then their 1024 cancels, so
 * at most 1024 are pending), ROUNDS times (default 5) after one warm-up
 * round; it prints the median round as one line "name ns_per_op", where
 * an op is one timeout armed and cancelled:
 *
 *	lib_sq1024	hwtimer_prep_arm/prep_cancel, hwtimer_submit() per 1024
 *	raw_batch1024	a struct hwtimer_batch_op array of 1024 filled by
 *			hand, one HWTIMER_IOC_BATCH (device only)
 *	lib_single	hwtimer_arm() and hwtimer_cancel(), one call each
 *	rings_sq1024	lib_sq1024 through the device's timer rings
 *	rings_single	lib_single through the device's timer rings
 *
 * The lib_ variants keep to BATCH (HWTIMER_OPEN_BATCH); the rings_ ones
 * run where the device offers rings. With -b timerfd (the library's
 * fallback) only the lib_ variants run. Not a timed test: the numbers are
 * for comparison within one run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hwtimer/hwtimer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define CHUNK		1024
#define FAR_NS		10000000000ULL
#define MAX_ROUNDS	64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "hwtimer_lib_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* @n timeouts through the submission queue, CHUNK per submit. */
static void lib_sq(struct hwtimer *h, uint64_t n)
{
	static struct hwtimer_result res[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++)
			hwtimer_prep_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, i,
					 &res[i]);
		r = hwtimer_submit(h);
		if (r)
			die("submit of arms", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			hwtimer_prep_cancel(h, res[i].id, &res[i]);
		r = hwtimer_submit(h);
		if (r)
			die("submit of cancels", r < 0 ? -r : EIO);
	}
}

static void lib_single(struct hwtimer *h, uint64_t n)
{
	static uint64_t ids[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, i,
					&ids[i]);
			if (r)
				die("arm", -r);
		}
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_cancel(h, ids[i]);
			if (r != HWTIMER_RESULT_CANCELLED)
				die("cancel", r < 0 ? -r : EIO);
		}
	}
}

static void raw_call(int fd, struct hwtimer_batch_op *ops)
{
	struct hwtimer_batch b = { .ops = (uintptr_t)ops, .count = CHUNK };

	if (ioctl(fd, HWTIMER_IOC_BATCH, &b))
		die("HWTIMER_IOC_BATCH", errno);
	if (b.done != CHUNK || b.failed)
		die("HWTIMER_IOC_BATCH ops", EIO);
}

/* The same work as lib_sq(), with the ABI's batch filled by hand. */
static void raw_batch(int fd, uint64_t n)
{
	static struct hwtimer_batch_op ops[CHUNK];
	uint64_t done;
	int i;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].clock = CLOCK_MONOTONIC;
			ops[i].deadline_ns = FAR_NS;
			ops[i].cookie = i;
		}
		raw_call(fd, ops);
		for (i = 0; i < CHUNK; i++) {
			uint64_t id = ops[i].id;

			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_CANCEL;
			ops[i].id = id;
		}
		raw_call(fd, ops);
	}
}

static int raw_open(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API,
				   .features = HWTIMER_FEATURE_BATCH };
	int fd = open("/dev/hwtimer", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("/dev/hwtimer", errno);
	if (ioctl(fd, HWTIMER_IOC_API, &api))
		die("HWTIMER_IOC_API", errno);
	return fd;
}

/* Whether @h arms through the rings. */
static bool rings_in_use(struct hwtimer *h)
{
	return hwtimer_features(h) & HWTIMER_FEATURE_RINGS;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

enum variant { LIB_SQ, RAW_BATCH, LIB_SINGLE };

static const char * const names[] = { "lib_sq1024", "raw_batch1024",
				      "lib_single" };

/* The median of @rounds runs of @v over @n timeouts, in ns per timeout. */
static double measure(enum variant v, struct hwtimer *h, int fd, uint64_t n,
		      int rounds)
{
	uint64_t t[MAX_ROUNDS], t0;
	int k;

	for (k = -1; k < rounds; k++) {
		t0 = now_ns();
		if (v == LIB_SQ)
			lib_sq(h, n);
		else if (v == RAW_BATCH)
			raw_batch(fd, n);
		else
			lib_single(h, n);
		if (k >= 0)
			t[k] = now_ns() - t0;
	}
	qsort(t, rounds, sizeof(t[0]), cmp_u64);
	return (double)t[rounds / 2] / n;
}

int main(int argc, char **argv)
{
	uint64_t n = 1048576;
	unsigned int flags = HWTIMER_OPEN_DEVICE;
	int rounds = 5, c, r, fd = -1;
	struct hwtimer *h;

	while ((c = getopt(argc, argv, "n:r:b:")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 'b' && !strcmp(optarg, "timerfd"))
			flags = HWTIMER_OPEN_TIMERFD;
		else if (c != 'b' || strcmp(optarg, "device"))
			n = 0;
	}
	n -= n % CHUNK;
	if (!n || rounds < 1 || rounds > MAX_ROUNDS || optind != argc) {
		fprintf(stderr, "usage: %s [-n TIMEOUTS (a multiple of %d)] [-r ROUNDS] [-b device|timerfd]\n",
			argv[0], CHUNK);
		return 2;
	}
	r = hwtimer_open(&h, CHUNK, flags | HWTIMER_OPEN_BATCH);
	if (r) {
		fprintf(stderr, "hwtimer_lib_bench: %s\n", hwtimer_open_error());
		return 1;
	}
	printf("# backend %s, %llu timeouts, %d rounds, median\n",
	       hwtimer_backend(h), (unsigned long long)n, rounds);
	printf("%s %.1f\n", names[LIB_SQ], measure(LIB_SQ, h, fd, n, rounds));
	if (flags == HWTIMER_OPEN_DEVICE) {
		fd = raw_open();
		printf("%s %.1f\n", names[RAW_BATCH],
		       measure(RAW_BATCH, h, fd, n, rounds));
		close(fd);
	}
	printf("%s %.1f\n", names[LIB_SINGLE],
	       measure(LIB_SINGLE, h, fd, n, rounds));
	hwtimer_close(h);
	if (flags != HWTIMER_OPEN_DEVICE ||
	    hwtimer_open(&h, CHUNK, flags) || !rings_in_use(h))
		return 0;
	printf("rings_sq1024 %.1f\n", measure(LIB_SQ, h, fd, n, rounds));
	printf("rings_single %.1f\n", measure(LIB_SINGLE, h, fd, n, rounds));
	hwtimer_close(h);
	return 0;
}
