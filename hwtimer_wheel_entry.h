/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one type of the wheel core that users of the kernel API see: the
 * entry embedded in every struct hwtimer_timeout, as struct timer_list
 * embeds its list node. The core itself is in hwtimer_wheel.h.
 */
#ifndef _HWTIMER_WHEEL_ENTRY_H
#define _HWTIMER_WHEEL_ENTRY_H

#include <linux/list.h>
#include <linux/types.h>

/**
 * struct hwtimer_wc_entry - one timeout as the wheel sees it
 * @node: link in a slot list, the due list, or the caller's expired list
 * @expires_ns: deadline in ns, as given to hwtimer_wc_arm(); the wheel
 *	works with it rounded up to a whole tick, and leaves it as it is when
 *	it hands the entry out, so the caller need not keep a copy
 * @idx: slot number (level * 64 + slot), %HWTIMER_WC_DUE or %HWTIMER_WC_IDLE
 * @aux: free for the object embedding the entry: the wheel never reads or
 *	writes it (it fills what would be padding)
 * @aux32: the same, 32 bits of it
 *
 * Embedded in the caller's object; the wheel never allocates.
 */
struct hwtimer_wc_entry {
	struct list_head node;
	u64 expires_ns;
	u16 idx;
	u16 aux;
	u32 aux32;
};

#endif /* _HWTIMER_WHEEL_ENTRY_H */
