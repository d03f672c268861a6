// SPDX-License-Identifier: GPL-2.0
/* eventfd_signal() takes only the context and adds 1 (Linux 6.8+). */
#include <linux/eventfd.h>

void hwtimer_probe(struct eventfd_ctx *ctx);
void hwtimer_probe(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx);
}
