// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * An epoll loop that waits on the context's fd alongside another fd,
 * standard input: three timeouts (100, 200 and 300 ms) print as they
 * expire, lines read from standard input are echoed meanwhile. Done once
 * the three expired. Standard input that epoll cannot watch (a regular
 * file, /dev/null) is left out. Try: (sleep 0.15; echo hi) | ./epoll
 */
#define _POSIX_C_SOURCE 200809L
#include <hwtimer/hwtimer.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

/* What epoll hands back: which of the two fds is ready. */
enum { TIMER, INPUT };

int main(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TIMER }, out[8];
	const struct hwtimer_event *e;
	int ep, n, left = 3;
	struct hwtimer *h;
	char buf[256];
	ssize_t len;

	if (hwtimer_open(&h, 0, 0))
		return fprintf(stderr, "%s\n", hwtimer_open_error()), 1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, hwtimer_fd(h), &ev))
		return perror("epoll"), 1;
	ev.data.u32 = INPUT;
	epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev);
	for (int i = 1; i <= 3; i++)
		hwtimer_arm(h, CLOCK_MONOTONIC, i * 100000000ULL, 0, 0, i, NULL);
	printf("%s backend, waiting for 3 timeouts\n", hwtimer_backend(h));
	while (left > 0) {
		n = epoll_wait(ep, out, 8, -1);
		for (int i = 0; i < n; i++) {
			if (out[i].data.u32 == INPUT) {
				len = read(STDIN_FILENO, buf, sizeof(buf));
				if (len > 0)
					printf("stdin: %.*s", (int)len, buf);
				else	/* end of input: stop watching it */
					epoll_ctl(ep, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
				continue;
			}
			/* Readable: take every expiry that waits, then wait again. */
			for (; !hwtimer_peek(h, &e); hwtimer_seen(h), left--)
				printf("timeout %llu, %llu ns late\n",
				       (unsigned long long)e->cookie,
				       (unsigned long long)hwtimer_event_late_ns(e));
		}
	}
	close(ep);
	hwtimer_close(h);
	return 0;
}
