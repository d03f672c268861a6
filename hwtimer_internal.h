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
