// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/* Arm three timeouts and wait for them. */
#define _POSIX_C_SOURCE 200809L
#include <hwtimer/hwtimer.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	const struct hwtimer_event *ev;
	struct hwtimer *h;

	if (hwtimer_open(&h, 0, 0))
		return fprintf(stderr, "%s\n", hwtimer_open_error()), 1;
	for (int i = 1; i <= 3; i++)
		hwtimer_arm(h, CLOCK_MONOTONIC, i * 100000000ULL, 0, 0, i, NULL);
	for (int i = 0; i < 3 && !hwtimer_wait(h, &ev, -1); i++, hwtimer_seen(h))
		printf("timeout %llu, %llu ns late\n", (unsigned long long)ev->cookie,
		       (unsigned long long)hwtimer_event_late_ns(ev));
	hwtimer_close(h);
	return 0;
}
