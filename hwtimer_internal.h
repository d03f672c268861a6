/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between the parts of hwtimer.ko; not an API.
 */
#ifndef _HWTIMER_INTERNAL_H
#define _HWTIMER_INTERNAL_H

#include <linux/moduleparam.h>
#include <linux/types.h>

/*
 * /dev/hwtimer (chardev/hwtimer_chardev.c). Module init calls
 * hwtimer_chardev_init() after the default wheel exists; module exit calls
 * hwtimer_chardev_exit() before the default wheel is destroyed.
 */
int hwtimer_chardev_init(void);
void hwtimer_chardev_exit(void);

struct hwtimer_wheel_params;
void hwtimer_default_wheel_like(struct hwtimer_wheel_params *p);

/*
 * A base lock kept from one arm or cancel to the next (hwtimer_main.c), so
 * that a run of them on one base takes its lock once: /dev/hwtimer's BATCH
 * runs a chunk of ops under one. Start with a zeroed one; while it holds a
 * lock, interrupts are off: no sleeping, and no hwtimer call but the _held
 * ones, until hwtimer_hold_release().
 */
struct hwtimer_base;
struct hwtimer_wheel;
struct hwtimer_timeout;

struct hwtimer_hold {
	struct hwtimer_base *b;
	unsigned long flags;
};

int hwtimer_arm_held(struct hwtimer_hold *h, struct hwtimer_wheel *w,
		     struct hwtimer_timeout *t, u64 expires, u64 period,
		     u32 flags);
int hwtimer_cancel_held(struct hwtimer_hold *h, struct hwtimer_timeout *t);
void hwtimer_hold_release(struct hwtimer_hold *h);

/*
 * A module parameter of type unsigned long that must lie in [min, max]: a
 * bad value fails the load (or the write under /sys/module) with -EINVAL,
 * and the module loader's message names the parameter.
 */
struct hwtimer_ulong_param {
	unsigned long *var;
	unsigned long min;
	unsigned long max;
};

extern const struct kernel_param_ops hwtimer_param_ops_ranged;

/* @v (unsigned long) as module parameter @name, accepted in [@lo, @hi]. */
#define hwtimer_param_ranged(name, v, lo, hi, perm)			\
	static struct hwtimer_ulong_param hwtimer_param_##name = {	\
		.var = &(v), .min = (lo), .max = (hi),			\
	};								\
	module_param_cb(name, &hwtimer_param_ops_ranged,		\
			&hwtimer_param_##name, perm)

#endif /* _HWTIMER_INTERNAL_H */
