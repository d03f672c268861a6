/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_workload.h - what wheel_bench.c and queue_bench.c share: the
 * workload's sizes, its fixed-seed deadlines, and the callgrind dumps
 * that name each phase. Included after the headers that give u64 and
 * BIT_ULL.
 */
#ifndef _BENCH_WORKLOAD_H
#define _BENCH_WORKLOAD_H

#include <stdio.h>
#include <valgrind/callgrind.h>

#define TICK_NS		1000000U
#define SPAN_TICKS	BIT_ULL(24)
#define OPS		100000U
#define MAX_PENDING	1000000U
#define ADVANCE_STEP	256
#define PUSH_TICKS	64

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rand64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

/* A deadline in ns whose tick is uniform in [1, 2^24). */
static u64 pick_deadline(void)
{
	u64 tick = 1 + rand64() % (SPAN_TICKS - 1);

	return (tick - 1) * TICK_NS + 1 + rand64() % TICK_NS;
}

/* Start counting a phase: what ran before it is not part of it. */
static void phase_begin(void)
{
	CALLGRIND_ZERO_STATS;
}

/* Dump the phase's counts, named "<phase> <operations>". */
static void phase_end(const char *name, unsigned long n)
{
	char desc[64];

	snprintf(desc, sizeof(desc), "%s %lu", name, n);
	CALLGRIND_DUMP_STATS_AT(desc);
	if (!RUNNING_ON_VALGRIND)
		printf("%s\n", desc);
}

#endif /* _BENCH_WORKLOAD_H */
