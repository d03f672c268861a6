/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between the parts of hwtimer.ko; not an API.
 */
#ifndef _HWTIMER_INTERNAL_H
#define _HWTIMER_INTERNAL_H

/*
 * /dev/hwtimer (chardev/hwtimer_chardev.c). Module init calls
 * hwtimer_chardev_init() after the default wheel exists; module exit calls
 * hwtimer_chardev_exit() before the default wheel is destroyed.
 */
int hwtimer_chardev_init(void);
void hwtimer_chardev_exit(void);

#endif /* _HWTIMER_INTERNAL_H */
