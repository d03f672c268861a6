// SPDX-License-Identifier: GPL-2.0
/* Always compiles: if it does not, the probes say nothing (conftest fails). */
#include <linux/types.h>

int hwtimer_probe_control(void);
int hwtimer_probe_control(void)
{
	return 0;
}
