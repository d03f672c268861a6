// SPDX-License-Identifier: GPL-2.0
/*
 * opcost - what one instruction or system call of a kind costs where this
 * runs: make bench runs it in its VM (TCG) and on the host, so that the
 * two weightings can be set side by side.
 *
 *   opcost [-n LOOPS] [-r WHERE]
 *
 * Each kind runs in a loop of LOOPS (default 20,000,000; system calls a
 * hundredth of that) taking 3 passes; the fastest pass, less an empty
 * loop's fastest, is divided by the operations it made. It prints one
 * line per kind, "opcost NAME ns_per_op"; with -r, make bench's row for
 * it instead, "BENCH,opcost,ns_per_op,WHERE-NAME,1,ns_per_op,ns":
 *
 *	call_ret	a call of a function that is not inlined, and its return
 *	lock_or		lock or $0,(%rsp), the full barrier GCC emits for
 *			__atomic_thread_fence(__ATOMIC_SEQ_CST) on x86-64
 *	load		an 8-byte load, within 48 KiB (as a ring's entries)
 *	store		an 8-byte store, the same
 *	getppid		the cheapest system call there is
 *	timerfd_settime	one, arming and disarming by turns
 *
 * x86-64 only (lock_or is written in assembly). Not a timed test.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define noinline	__attribute__((__noinline__))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PASSES		3
#define WORDS		6144	/* 48 KiB */
#define PER_ITER	6	/* loads or stores per iteration */

static uint64_t words[WORDS];
static int tfd;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static noinline uint64_t callee(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* One loop of @n iterations of kind @k; its time in ns. */
static uint64_t run(int k, uint64_t n)
{
	static const struct itimerspec on = { .it_value = { 1000, 0 } };
	static const struct itimerspec off;
	uint64_t t0 = now_ns(), x = 0, i, *w;

	for (i = 0; i < n; i++) {
		w = &words[(i * PER_ITER) % WORDS];
		switch (k) {
		case 0:		/* the empty loop */
			break;
		case 1:
			x = callee(x);
			break;
		case 2:
			__asm__ volatile("lock orq $0,(%%rsp)" ::: "memory");
			break;
		case 3:
			x += w[0] + w[1] + w[2] + w[3] + w[4] + w[5];
			break;
		case 4:
			w[0] = i;
			w[1] = i;
			w[2] = i;
			w[3] = i;
			w[4] = i;
			w[5] = i;
			break;
		case 5:
			x += getppid();
			break;
		case 6:
			x += timerfd_settime(tfd, 0, i & 1 ? &off : &on, NULL);
			break;
		}
		/* Every access is made, and no two iterations merge. */
		__asm__ volatile("" : "+r"(x) : : "memory");
	}
	t0 = now_ns() - t0;
	/* x is used: no loop may be dropped. */
	__asm__ volatile("" : : "r"(x));
	return t0;
}

/* The fastest of PASSES loops of kind @k. */
static uint64_t fastest(int k, uint64_t n)
{
	uint64_t best = UINT64_MAX, t;
	int p;

	for (p = 0; p < PASSES; p++) {
		t = run(k, n);
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const char * const names[] = {
		NULL, "call_ret", "lock_or", "load", "store", "getppid",
		"timerfd_settime"
	};
	static const unsigned int ops[] = { 1, 1, 1, PER_ITER, PER_ITER, 1, 1 };
	const char *where = NULL;
	uint64_t n = 20000000, m, base, t;
	double ns;
	int c, k;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 'r')
			where = optarg;
		else
			goto usage;
	}
	if (n < 100 || optind != argc)
		goto usage;
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0) {
		perror("opcost: timerfd_create");
		return 1;
	}
	for (k = 1; k < (int)ARRAY_SIZE(names); k++) {
		m = k >= 5 ? n / 100 : n;
		base = fastest(0, m);
		t = fastest(k, m);
		ns = t > base ? (double)(t - base) / m / ops[k] : 0.0;
		if (where)
			printf("BENCH,opcost,ns_per_op,%s-%s,1,%.2f,ns\n",
			       where, names[k], ns);
		else
			printf("opcost %s %.2f\n", names[k], ns);
	}
	close(tfd);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n LOOPS (at least 100)] [-r WHERE]\n", argv[0]);
	return 2;
}
