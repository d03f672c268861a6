// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_bench - instructions per operation of hwtimer_wheel.c, counted by
 * valgrind's callgrind (see ../Makefile, "make bench").
 *
 * Run under callgrind with collection switched on only inside the
 * hwtimer_wc_* calls, the program dumps the counters once per phase, with
 * the phase's name and operation count as the dump's description;
 * wheel_bench.sh divides one by the other. Outside callgrind it runs the
 * same workload and prints nothing but the phase list.
 *
 * Workload, fixed seed so that every run counts the same: a 1 ms tick,
 * deadlines uniform in [1, 2^24) ticks (each a random ns inside its tick).
 *   add, cancel      arm 100k entries into an empty wheel, cancel them all
 *   pair/N           100k arm + cancel of one entry, N pending
 *   modify/N         100k moves of a random pending entry to a new deadline,
 *                    N pending
 *   push/N           100k moves of a random pending entry 1 to 64 ticks
 *                    later (a keep-alive), N pending
 *   next/N           100k next-expiry queries, N pending
 *   advance          100k pending, advanced 256 ticks at a time until
 *                    empty: per entry handed out
 * for N = 1k, 10k, 100k, 1M.
 */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#include "hwtimer_wheel.h"

#include "bench_workload.h"

static struct hwtimer_wc wheel;
/* MAX_PENDING background entries, then OPS entries the phases move. */
static struct hwtimer_wc_entry *ents;
/* OPS deadlines to arm, then the background entries' current ones. */
static u64 *deadline;

static void bench_add_cancel(void)
{
	struct hwtimer_wc_entry *e = ents + MAX_PENDING;
	unsigned int i;

	phase_begin();
	for (i = 0; i < OPS; i++)
		hwtimer_wc_arm(&wheel, &e[i], deadline[i]);
	phase_end("add", OPS);
	phase_begin();
	for (i = 0; i < OPS; i++)
		hwtimer_wc_cancel(&wheel, &e[i]);
	phase_end("cancel", OPS);
}

static void bench_pending(unsigned int n)
{
	struct hwtimer_wc_entry *e = ents + MAX_PENDING;
	char name[32];
	unsigned int i;
	u64 tick;

	phase_begin();
	for (i = 0; i < OPS; i++) {
		hwtimer_wc_arm(&wheel, e, deadline[i]);
		hwtimer_wc_cancel(&wheel, e);
	}
	snprintf(name, sizeof(name), "pair/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++) {
		struct hwtimer_wc_entry *m = &ents[rand64() % n];

		hwtimer_wc_modify(&wheel, m, deadline[i]);
		deadline[OPS + (m - ents)] = deadline[i];
	}
	snprintf(name, sizeof(name), "modify/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++) {
		u64 *d = &deadline[OPS + rand64() % n];

		*d += (1 + rand64() % PUSH_TICKS) * TICK_NS;
		hwtimer_wc_modify(&wheel, &ents[d - deadline - OPS], *d);
	}
	snprintf(name, sizeof(name), "push/%u", n);
	phase_end(name, OPS);

	phase_begin();
	for (i = 0; i < OPS; i++)
		hwtimer_wc_next_expiry(&wheel, &tick);
	snprintf(name, sizeof(name), "next/%u", n);
	phase_end(name, OPS);
}

static void bench_advance(void)
{
	struct hwtimer_wc_entry *e = ents + MAX_PENDING;
	unsigned long fired = 0;
	LIST_HEAD(out);
	u64 t;
	unsigned int i;

	hwtimer_wc_init(&wheel, TICK_NS, 0);
	for (i = 0; i < OPS; i++)
		hwtimer_wc_arm(&wheel, &e[i], deadline[i]);
	phase_begin();
	for (t = 0; t <= SPAN_TICKS; t += ADVANCE_STEP) {
		fired += hwtimer_wc_advance(&wheel, t * TICK_NS, &out);
		INIT_LIST_HEAD(&out);
	}
	phase_end("advance", fired);
}

int main(void)
{
	static const unsigned int pending[] = { 1000, 10000, 100000, 1000000, 0 };
	unsigned int i, k, have = 0;

	ents = calloc(MAX_PENDING + OPS, sizeof(*ents));
	deadline = calloc(MAX_PENDING + OPS, sizeof(*deadline));
	if (!ents || !deadline)
		return 1;
	for (i = 0; i < MAX_PENDING + OPS; i++) {
		hwtimer_wc_entry_init(&ents[i]);
		deadline[i] = pick_deadline();
	}

	hwtimer_wc_init(&wheel, TICK_NS, 0);
	bench_add_cancel();
	for (k = 0; pending[k]; k++) {
		for (; have < pending[k]; have++)
			hwtimer_wc_arm(&wheel, &ents[have], deadline[OPS + have]);
		bench_pending(pending[k]);
	}
	bench_advance();
	return 0;
}
