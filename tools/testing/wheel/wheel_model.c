// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_model - hwtimer_wheel.c, compiled in userspace through shim/, checked
 * against the reference model of kunit/hwtimer_wheel_model.h for millions of
 * random arm / cancel / advance operations with random tick lengths and
 * deadlines spanning every level and the U64_MAX edge.
 *
 * Usage: wheel_model [-n OPS] [-s SEED]    prints TAP, exits 1 on a mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hwtimer_wheel.h"
#include "hwtimer_wheel_model.h"

#define NITEMS	1024
#define ROUND	200000
#define RUNS	4

static struct hwtimer_wc wheel;
static struct wm_item items[NITEMS];
static u32 sorted[NITEMS];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long ops = 10000000, seed = 0x9e3779b97f4a7c15ULL;
	struct wm_state st = {
		.wc = &wheel, .items = items, .sorted = sorted, .nitems = NITEMS,
	};
	int opt, run, failed = 0;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n':
			ops = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n OPS] [-s SEED]\n", argv[0]);
			return 2;
		}
	}

	printf("TAP version 13\n1..%d\n", RUNS);
	for (run = 0; run < RUNS; run++) {
		unsigned long long s = seed + run * 0x632be59bd9b4e019ULL;
		double t0 = now_s();
		int ret;

		st.ops = 0;
		st.fired = 0;
		st.cancels = 0;
		st.inexact = 0;
		ret = wm_run(&st, s | 1, ops / RUNS, ROUND);
		printf("# seed %#llx: %llu ops, %llu fired, %llu cancelled, %llu inexact next, %.2f s\n",
		       s | 1, (unsigned long long)st.ops,
		       (unsigned long long)st.fired,
		       (unsigned long long)st.cancels,
		       (unsigned long long)st.inexact, now_s() - t0);
		if (ret) {
			printf("# mismatch after %llu ops: %s\n",
			       (unsigned long long)st.ops, st.err);
			printf("not ok %d wheel_model_seed_%d\n", run + 1, run);
			failed++;
		} else {
			printf("ok %d wheel_model_seed_%d\n", run + 1, run);
		}
	}
	printf("# wheel model: %d passed, %d failed\n", RUNS - failed, failed);
	return failed ? 1 : 0;
}
