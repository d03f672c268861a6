/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_modify.h - hwtimer_wc_modify() as a step of the model check of
 * kunit/hwtimer_wheel_model.h, shared by wheel_model.c and fuzz/wheel_fuzz.c.
 * Include after hwtimer_wheel_model.h.
 */
#ifndef _WHEEL_MODIFY_H
#define _WHEEL_MODIFY_H

/*
 * Move item @i to deadline @d with hwtimer_wc_modify(), which arms it when
 * it is not pending, and check the wheel against the model.
 */
static inline int wm_modify_to(struct wm_state *st, u32 i, u64 d)
{
	struct wm_item *it = &st->items[i];
	bool was = hwtimer_wc_modify(st->wc, &it->e, d);

	if (was != it->armed)
		return WM_FAIL(st, "modify of entry %u said %d, model %d",
			       i, was, it->armed);
	if (was) {
		wm_sorted_remove(st, i);
		/* A move leaves the old slot's minimum as a cancel does. */
		st->cancelled = true;
	}
	it->deadline = d;
	it->armed = true;
	wm_sorted_insert(st, i);
	if (!hwtimer_wc_entry_pending(&it->e))
		return WM_FAIL(st, "entry %u not pending after modify", i);
	if (st->wc->count != st->nsorted)
		return WM_FAIL(st, "wheel counts %llu, model %u",
			       (unsigned long long)st->wc->count, st->nsorted);
	return wm_check_next(st);
}

/*
 * Move item @i to a random deadline. Half the moves of a pending item stay
 * within a few ticks of its deadline, mostly in the slot it already sits in.
 */
static inline int wm_modify(struct wm_state *st, u32 i)
{
	struct wm_item *it = &st->items[i];
	u64 step = wm_below(st, (u64)st->tick * 4);
	u64 d;

	if (it->armed && wm_rand(st) % 2)
		d = wm_rand(st) % 2 ? wm_add(it->deadline, step) :
		    it->deadline - (step < it->deadline ? step : it->deadline);
	else
		d = wm_pick_deadline(st);
	return wm_modify_to(st, i, d);
}

#endif /* _WHEEL_MODIFY_H */
