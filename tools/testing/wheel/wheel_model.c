// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_model - hwtimer_wheel.c, compiled in userspace through shim/, checked
 * against the reference model of kunit/hwtimer_wheel_model.h for millions of
 * random arm / cancel / modify / advance operations with random tick lengths
 * and deadlines spanning every level and the U64_MAX edge; its rounding
 * of nanoseconds up to ticks against a division; and, driven as a base
 * drives it (advancing at hwtimer_wc_due_ns() of the next expiry), that it
 * hands out every entry of a tick of at most HWTIMER_WC_EXACT_MAX entries
 * at that entry's own deadline, wherever in the wheel it waited.
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
#include "wheel_modify.h"

#define NITEMS	1024
#define ROUND	200000
#define RUNS	4
#define NS_TO_TICK_LENGTHS	20000
#define DRIVEN_MAX	50000
/* As the kernel has it; the shim has no linux/kernel.h. */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct hwtimer_wc_entry driven[DRIVEN_MAX];
static u64 driven_ticks[DRIVEN_MAX];

static struct hwtimer_wc wheel;
static struct wm_item items[NITEMS];
static u32 sorted[NITEMS];

/* wm_run() with a fifth of the operations moves by hwtimer_wc_modify(). */
static int run_rounds(struct wm_state *st, u64 seed, u64 ops, u64 round)
{
	static const u32 ticks[] = { 1, 3, 7, 1000, 10000, 1000000, 1000000000 };
	u64 done = 0;

	st->rng = seed;
	while (done < ops) {
		u64 k = wm_rand(st) % 8;
		u32 tick = k < 7 ? ticks[k] : (u32)(wm_rand(st) | 1);
		u64 start = wm_rand(st) % 4 == 0 ? wm_rand(st) :
			wm_below(st, 1ULL << 40);
		u64 j;

		wm_reset(st, tick, start);
		for (j = 0; j < round && done < ops; j++, done++) {
			int ret;

			if (wm_rand(st) % 5 == 0) {
				st->ops++;
				ret = wm_modify(st, wm_rand(st) % st->nitems);
			} else {
				ret = wm_step(st);
			}
			if (ret)
				return -1;
		}
		if (wm_drain(st))
			return -1;
	}
	return 0;
}

/*
 * hwtimer_wc_ns_to_tick() against a division, rounded up, for @nticks tick
 * lengths (the edges first, then random ones) and 1024 values each: around
 * multiples of the tick, near U64_MAX, small and random. Return: mismatches.
 */
static unsigned long check_ns_to_tick(u64 seed, unsigned long nticks)
{
	static const u32 fixed[] = { 1, 2, 3, 7, 1000, 1024, 10000, 1000000,
				     1000000000, 0x80000000u, 0xffffffffu };
	struct wm_state st = { .rng = seed };
	unsigned long bad = 0, t, i;

	for (t = 0; t < nticks; t++) {
		u32 tick = t < 11 ? fixed[t] : (u32)wm_rand(&st) | 1;

		hwtimer_wc_init(&wheel, tick, 0);
		for (i = 0; i < 1024; i++) {
			u64 r = wm_rand(&st), ns, want, got;
			u64 near = (wm_rand(&st) % 3) - 1;

			switch (i % 6) {
			case 0:
				ns = r;
				break;
			case 1:
				ns = U64_MAX - r % (4ULL * tick);
				break;
			case 2:
				ns = r % (8ULL * tick);
				break;
			case 3:
				ns = (r / tick) * tick + near;
				break;
			case 4:
				ns = r >> (wm_rand(&st) % 64);
				break;
			default:
				ns = (U64_MAX / tick) * tick + near;
				break;
			}
			want = ns / tick + (ns % tick != 0);
			got = hwtimer_wc_ns_to_tick(&wheel, ns);
			if (got != want && bad++ < 5)
				printf("# ns_to_tick(%llu) with tick %u: %llu, want %llu\n",
				       (unsigned long long)ns, tick,
				       (unsigned long long)got,
				       (unsigned long long)want);
		}
	}
	return bad;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Entries of tick @t among the @n sorted ticks of driven_ticks[]. */
static u64 tick_count(u64 t, u64 n)
{
	u64 lo = 0, hi = n, first;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (driven_ticks[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = n;
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (driven_ticks[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

/*
 * Arm @n entries with deadlines uniform over @spread ns from @lead ns after
 * @start, then advance only at hwtimer_wc_due_ns() of each next expiry, as
 * a base programs its hrtimer. Every entry must be handed out at or after
 * its deadline, and exactly at it when its tick holds at most
 * HWTIMER_WC_EXACT_MAX entries. Return: failures (the first few printed).
 */
static unsigned long check_driven(struct wm_state *st, u32 tick, u64 start,
				  u64 lead, u64 spread, u64 n)
{
	unsigned long bad = 0, advances = 0, exact = 0;
	u64 now = start, i, t, at, got = 0;
	struct hwtimer_wc_entry *e, *tmp;

	hwtimer_wc_init(&wheel, tick, start);
	for (i = 0; i < n; i++) {
		hwtimer_wc_entry_init(&driven[i]);
		hwtimer_wc_arm(&wheel, &driven[i],
			       start + lead + wm_below(st, spread - 1));
		driven_ticks[i] = hwtimer_wc_ns_to_tick(&wheel,
							driven[i].expires_ns);
	}
	qsort(driven_ticks, n, sizeof(u64), cmp_u64);
	while (hwtimer_wc_next_expiry(&wheel, &t)) {
		LIST_HEAD(out);

		at = hwtimer_wc_due_ns(&wheel, t);
		now = at > now ? at : now;
		hwtimer_wc_advance(&wheel, now, &out);
		advances++;
		list_for_each_entry_safe(e, tmp, &out, node) {
			bool small = tick_count(hwtimer_wc_ns_to_tick(&wheel,
					e->expires_ns), n) <= HWTIMER_WC_EXACT_MAX;

			got++;
			exact += e->expires_ns == now;
			if (e->expires_ns <= now &&
			    (!small || e->expires_ns == now))
				continue;
			if (bad++ < 5)
				printf("# tick %u: deadline %llu handed out at %llu (%s tick)\n",
				       tick, (unsigned long long)e->expires_ns,
				       (unsigned long long)now,
				       small ? "small" : "full");
		}
	}
	if (got != n && bad++ < 5)
		printf("# tick %u: %llu of %llu handed out\n", tick,
		       (unsigned long long)got, (unsigned long long)n);
	printf("# %llu entries over %llu ns, tick %u: %lu advances, %lu at their deadline\n",
	       (unsigned long long)n, (unsigned long long)spread, tick,
	       advances, exact);
	return bad;
}

/* check_driven() over sparse, dense and far workloads. */
static unsigned long check_driven_all(u64 seed)
{
	static const struct {
		u32 tick;
		u64 lead, spread, n;
	} w[] = {
		{ 1000000, 1500000000ULL, 1000000000ULL, 10000 },
		{ 1000000, 1000000ULL, 100000000000ULL, 1000 },
		{ 1000000, 1000000ULL, 3600000000000ULL, 100 },
		{ 1000000, 4000000000ULL, 1000000000ULL, 50000 },
		{ 1000000, 0, 1ULL, 1000 },
		{ 10000, 1000000ULL, 1000000000000ULL, DRIVEN_MAX },
		{ 3, 0, 1ULL << 40, 20000 },
	};
	struct wm_state st = { .rng = seed };
	unsigned long bad = 0;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(w); k++)
		bad += check_driven(&st, w[k].tick, wm_below(&st, 1ULL << 50),
				    w[k].lead, w[k].spread, w[k].n);
	return bad;
}

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

	printf("TAP version 13\n1..%d\n", RUNS + 2);
	for (run = 0; run < RUNS; run++) {
		unsigned long long s = seed + run * 0x632be59bd9b4e019ULL;
		double t0 = now_s();
		int ret;

		st.ops = 0;
		st.fired = 0;
		st.cancels = 0;
		st.inexact = 0;
		ret = run_rounds(&st, s | 1, ops / RUNS, ROUND);
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
	if (check_ns_to_tick(seed, NS_TO_TICK_LENGTHS)) {
		printf("not ok %d wheel_ns_to_tick_rounds_up_exactly\n", RUNS + 1);
		failed++;
	} else {
		printf("ok %d wheel_ns_to_tick_rounds_up_exactly\n", RUNS + 1);
	}
	if (check_driven_all(seed)) {
		printf("not ok %d wheel_small_ticks_due_at_their_deadlines\n",
		       RUNS + 2);
		failed++;
	} else {
		printf("ok %d wheel_small_ticks_due_at_their_deadlines\n",
		       RUNS + 2);
	}
	printf("# wheel model: %d passed, %d failed\n", RUNS + 2 - failed,
	       failed);
	return failed ? 1 : 0;
}
