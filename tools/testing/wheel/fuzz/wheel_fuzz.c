// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_fuzz - libFuzzer target: hwtimer_wheel.c, built in userspace through
 * ../shim, driven by the fuzz input and checked after every operation
 * against the reference model of kunit/hwtimer_wheel_model.h.
 *
 * The input is a header (tick choice, start time) and then operations of
 * one opcode byte and its operands. Operations reuse the model's own steps
 * (wm_arm, wm_cancel, wm_advance, wm_drain, and wm_modify of ../wheel_modify.h
 * for an arm of an armed item) with the model's random state taken from the
 * input, so the fuzzer steers the deadlines and times the model would pick;
 * two more arm (or move) and advance at values read straight from the input,
 * to reach edges (U64_MAX, tick boundaries) directly. A mismatch
 * prints the model's description and aborts, which libFuzzer reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwtimer_wheel.h"
#include "hwtimer_wheel_model.h"
#include "../wheel_modify.h"

#define NITEMS	64

static struct hwtimer_wc wheel;
static struct wm_item items[NITEMS];
static u32 sorted[NITEMS];

/* Input cursor; reads past the end give zeros. */
struct in {
	const u8 *p;
	size_t n;
};

static u64 take(struct in *in, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

static void fail(struct wm_state *st, const char *op)
{
	fprintf(stderr, "wheel_fuzz: %s: %s\n", op, st->err);
	abort();
}

/*
 * Arm item @i at exactly @deadline: wm_arm() without its random pick; move
 * it there when it is armed.
 */
static int arm_at(struct wm_state *st, u32 i, u64 deadline)
{
	struct wm_item *it = &st->items[i];

	if (it->armed)
		return wm_modify_to(st, i, deadline);
	it->deadline = deadline;
	hwtimer_wc_arm(st->wc, &it->e, deadline);
	it->armed = true;
	wm_sorted_insert(st, i);
	if (!hwtimer_wc_entry_pending(&it->e))
		return WM_FAIL(st, "entry %u not pending after arm", i);
	return 0;
}

/* Advance to exactly @t (the model's clock never goes back). */
static int advance_to(struct wm_state *st, u64 t)
{
	LIST_HEAD(out);
	u64 n;

	if (t > st->now)
		st->now = t;
	n = hwtimer_wc_advance(st->wc, t, &out);
	return wm_check_fired(st, &out, n, t);
}

static void start(struct wm_state *st, struct in *in)
{
	static const u32 ticks[] = { 1, 3, 7, 1000, 10000, 1000000, 1000000000 };
	u32 k = take(in, 1) % 8;
	u32 tick = k < 7 ? ticks[k] : (u32)take(in, 4) | 1;

	wm_reset(st, tick, take(in, 8));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct wm_state st = {
		.wc = &wheel, .items = items, .sorted = sorted,
		.nitems = NITEMS,
	};
	struct in in = { data, size };
	const char *op = "";
	int ret = 0;

	start(&st, &in);
	while (in.n && !ret) {
		u32 code = take(&in, 1), i = take(&in, 1) % NITEMS;

		/* The model's random picks come from the input too. */
		st.rng = take(&in, 4) | 1;
		switch (code % 8) {
		case 0:
		case 1:
			op = st.items[i].armed ? "modify" : "arm";
			ret = st.items[i].armed ? wm_modify(&st, i) :
			      wm_arm(&st, i);
			break;
		case 2:
			op = "cancel";
			ret = wm_cancel(&st, i);
			break;
		case 3:
		case 4:
			op = "advance";
			ret = wm_advance(&st);
			break;
		case 5:
			op = "arm at";
			ret = arm_at(&st, i, take(&in, 8));
			break;
		case 6:
			op = "advance to";
			ret = advance_to(&st, take(&in, 8));
			break;
		default:
			op = "drain";
			ret = wm_drain(&st);
			if (!ret)
				start(&st, &in);
			break;
		}
		if (!ret && st.wc->count != st.nsorted)
			ret = WM_FAIL(&st, "wheel counts %llu, model %u",
				      (unsigned long long)st.wc->count,
				      st.nsorted);
		if (!ret)
			ret = wm_check_next(&st);
	}
	if (!ret) {
		op = "final drain";
		ret = wm_drain(&st);
	}
	if (ret)
		fail(&st, op);
	return 0;
}
