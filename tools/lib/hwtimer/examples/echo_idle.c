// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * echo_idle - a TCP echo server on loopback whose connections close after
 * IDLE ms without a byte (Netty's IdleStateHandler pattern), and a client
 * that checks it.
 *
 *   echo_idle [-n CONNS] [-i IDLE_MS] [-a ACTIVE_S] [-b BACKEND]
 *	the server in a child process and the client against it; one
 *	summary line; exit 0 when every check holds
 *   echo_idle server [-p PORT] [-i IDLE_MS] [-b BACKEND]
 *   echo_idle client [-p PORT] [-n CONNS] [-i IDLE_MS] [-a ACTIVE_S]
 *
 * Server: one epoll loop. Each connection has one libhwtimer timeout,
 * armed at accept; every read that echoes bytes pushes it out to now +
 * IDLE with a modify in the submission queue (once per connection per
 * loop pass), and the queue is submitted once per pass: one BATCH ioctl
 * for all the connections that spoke. An expiry closes its connection
 * unless bytes came after the timeout was last moved (its modify met the
 * expiry on the way), or bytes wait unread (a loaded loop reached the
 * expiry first): then it is armed again, for the rest of the idle time
 * or for a whole one.
 *
 * Client: opens CONNS connections (default 10000); on a random half of
 * them it sends one byte at a time for ACTIVE_S seconds, each byte at a
 * random delay under IDLE/2 after the previous one's echo, so that none
 * of these may close then; the other half stay silent. Then all go
 * silent, and the client checks that every
 * connection is closed by the server, none before IDLE ms after the last
 * byte it sent (or after its connect() began), and that every byte came
 * back. A client too slow to keep its own schedule may send a byte IDLE
 * or more after the one before: the server may then rightly close the
 * connection first, and lose the byte. Such a connection goes silent and
 * is left out of those two checks and of the close-after-idle figures (it
 * must still close); the summary counts them as "sent late". RLIMIT_NOFILE
 * is raised to what CONNS needs; where the hard limit cannot be raised,
 * CONNS is lowered to fit and the summary says so.
 * BACKEND is auto (default), device or timerfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwtimer/hwtimer.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS		1000000ULL
#define TAG_LISTEN	(UINT64_MAX - 1)
#define TAG_TIMER	(UINT64_MAX - 2)
/* Client: a pass over the connections that are due to send, every ms. */
#define SEND_EVERY_NS	MS
/* Client: how long after the last byte a close may still come. */
#define CLOSE_SLACK_NS	(10000 * MS)

struct opts {
	unsigned int conns;
	uint64_t idle_ns;
	uint64_t active_ns;
	unsigned int open_flags;
	int port;
};

/* What the server counted; sent to the client through a pipe at exit. */
struct srv_stats {
	char backend[16];
	uint64_t accepted;
	uint64_t bytes;
	uint64_t modifies;
	uint64_t submits;
	uint64_t expiries;
	uint64_t rearms;
	uint64_t idle_closes;
};

/**
 * struct sconn - the server's side of a connection, indexed by its fd
 * @id: its timeout, valid once @arming is false
 * @last: when bytes last came, CLOCK_MONOTONIC
 * @gen: bumped at each close, so a late expiry of a closed one is ignored
 * @pass: loop pass of its last modify, to queue one per pass
 * @res: outcome of its queued arm
 * @mres: outcome of its queued modify (counted only)
 * @alive: open
 * @arming: its arm waits in the submission queue
 */
struct sconn {
	uint64_t id;
	uint64_t last;
	uint32_t gen;
	uint64_t pass;
	struct hwtimer_result res;
	struct hwtimer_result mres;
	bool alive;
	bool arming;
};

struct server {
	struct hwtimer *h;
	struct sconn *c;
	int *arming;		/* fds whose arm is queued this pass */
	unsigned int narming;
	unsigned int max_fd;
	int ep;
	int lfd;
	uint64_t idle_ns;
	uint64_t pass;
	struct srv_stats st;
};

static atomic_bool stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t cookie_of(struct server *s, int fd)
{
	return (uint64_t)s->c[fd].gen << 32 | (uint32_t)fd;
}

/* Queue an arm of @fd's timeout at @at (absolute) or IDLE from now. */
static void srv_arm(struct server *s, int fd, uint64_t at)
{
	struct sconn *c = &s->c[fd];
	int r;

	r = hwtimer_prep_arm(s->h, CLOCK_MONOTONIC, at ? at : s->idle_ns, 0,
			     at ? HWTIMER_ARM_ABS : 0, cookie_of(s, fd), &c->res);
	if (r) {
		fprintf(stderr, "echo_idle: prep_arm: %s\n", strerror(-r));
		exit(1);
	}
	c->arming = true;
	s->arming[s->narming++] = fd;
}

/*
 * Close @fd; @cancel its timeout unless it just expired. An expiry that
 * waits, or an arm still queued, is ignored later by its generation.
 */
static void srv_close(struct server *s, int fd, bool cancel)
{
	struct sconn *c = &s->c[fd];

	if (cancel && !c->arming)
		hwtimer_prep_cancel(s->h, c->id, NULL);
	c->alive = false;
	c->gen++;
	close(fd);
}

static void srv_accept(struct server *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
		if ((unsigned int)fd >= s->max_fd) {
			close(fd);
			continue;
		}
		s->c[fd].alive = true;
		s->c[fd].last = now_ns();
		s->c[fd].pass = 0;
		srv_arm(s, fd, 0);
		ev.data.u64 = fd;
		epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev);
		s->st.accepted++;
	}
}

/* Echo what @fd sent and push its timeout out; close on EOF or error. */
static void srv_read(struct server *s, int fd)
{
	struct sconn *c = &s->c[fd];
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0 || write(fd, buf, n) != n) {
		srv_close(s, fd, true);
		return;
	}
	s->st.bytes += n;
	c->last = now_ns();
	if (c->arming || c->pass == s->pass)
		return;
	c->pass = s->pass;
	hwtimer_prep_modify(s->h, c->id, s->idle_ns, 0, &c->mres);
	s->st.modifies++;
}

/* Are bytes waiting in @fd's receive queue? */
static bool unread(int fd)
{
	char b;

	return recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/* Take every expiry: close idle connections, re-arm those that spoke. */
static void srv_expiries(struct server *s)
{
	const struct hwtimer_event *ev;
	struct sconn *c;
	uint64_t now;
	int fd;

	for (; !hwtimer_peek(s->h, &ev); hwtimer_seen(s->h)) {
		s->st.expiries++;
		fd = (uint32_t)ev->cookie;
		c = &s->c[fd];
		if (!c->alive || c->gen != ev->cookie >> 32 || c->id != ev->id)
			continue;
		now = now_ns();
		if (unread(fd)) {
			/* Bytes this loop has not read yet: not idle. */
			s->st.rearms++;
			srv_arm(s, fd, now + s->idle_ns);
		} else if (now - c->last >= s->idle_ns) {
			s->st.idle_closes++;
			srv_close(s, fd, false);
		} else {
			s->st.rearms++;
			srv_arm(s, fd, c->last + s->idle_ns);
		}
	}
}

/* One BATCH for the pass; the queued arms learn their ids. */
static void srv_submit(struct server *s)
{
	struct sconn *c;
	unsigned int i;
	int r;

	if (!hwtimer_sq_ready(s->h))
		return;
	r = hwtimer_submit(s->h);
	s->st.submits++;
	if (r < 0) {
		fprintf(stderr, "echo_idle: submit: %s\n", strerror(-r));
		exit(1);
	}
	for (i = 0; i < s->narming; i++) {
		c = &s->c[s->arming[i]];
		c->arming = false;
		c->id = c->res.id;
		if (c->res.status && c->alive)
			srv_close(s, s->arming[i], false);
	}
	s->narming = 0;
	/* Cancels queued by closes just above. */
	if (hwtimer_sq_ready(s->h))
		hwtimer_submit(s->h);
}

static int srv_loop(struct server *s)
{
	struct epoll_event evs[256];
	int i, n;

	while (!stop) {
		n = epoll_wait(s->ep, evs, 256, -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		s->pass++;
		for (i = 0; i < n; i++) {
			if (evs[i].data.u64 == TAG_LISTEN)
				srv_accept(s);
			else if (evs[i].data.u64 == TAG_TIMER)
				srv_expiries(s);
			else
				srv_read(s, evs[i].data.u64);
		}
		srv_submit(s);
	}
	return 0;
}

/* Serve @lfd until SIGTERM/SIGINT; the counts go to @out_fd if >= 0. */
static int run_server(const struct opts *o, int lfd, unsigned int max_fd,
		      int out_fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct server s = { .lfd = lfd, .idle_ns = o->idle_ns };
	int r;

	r = hwtimer_open(&s.h, HWTIMER_SQ_DEFAULT, o->open_flags);
	if (r) {
		fprintf(stderr, "echo_idle: %s\n", hwtimer_open_error());
		return 1;
	}
	snprintf(s.st.backend, sizeof(s.st.backend), "%s",
		 hwtimer_backend(s.h));
	s.max_fd = max_fd;
	s.c = calloc(max_fd, sizeof(*s.c));
	s.arming = calloc(max_fd, sizeof(*s.arming));
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!s.c || !s.arming || s.ep < 0)
		return 1;
	ev.data.u64 = TAG_LISTEN;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.u64 = TAG_TIMER;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, hwtimer_fd(s.h), &ev);
	r = srv_loop(&s);
	if (out_fd >= 0 && write(out_fd, &s.st, sizeof(s.st)) != sizeof(s.st))
		r = -EIO;
	hwtimer_close(s.h);
	return r ? 1 : 0;
}

/**
 * struct cconn - the client's side of a connection
 * @fd: the socket, -1 once closed
 * @last: when its last byte was sent, or its connect() began
 * @next: when it sends its next byte; 0 for a silent one
 * @closed: when the server's close (EOF) was read
 * @sent: bytes sent
 * @echoed: bytes read back
 * @waiting: a byte is on its way back
 * @late: a byte went out IDLE or more after the one before
 */
struct cconn {
	int fd;
	uint64_t last;
	uint64_t next;
	uint64_t closed;
	uint64_t sent;
	uint64_t echoed;
	bool waiting;
	bool late;
};

struct client {
	struct cconn *c;
	unsigned int n;
	unsigned int open;
	unsigned int late;
	int ep;
	uint64_t idle_ns;
};

/* A random delay under IDLE/2 from now. */
static uint64_t next_send(struct client *cl)
{
	return now_ns() + 1 + (uint64_t)random() % (cl->idle_ns / 2);
}

static int cli_connect(struct client *cl, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i;
	int fd;

	for (i = 0; i < cl->n; i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cl->c[i].last = now_ns();
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			perror("echo_idle: connect");
			return -1;
		}
		cl->c[i].fd = fd;
		cl->c[i].next = random() % 2 ? next_send(cl) : 0;
		ev.data.u32 = i;
		if (epoll_ctl(cl->ep, EPOLL_CTL_ADD, fd, &ev))
			return -1;
	}
	cl->open = cl->n;
	return 0;
}

/* One byte on each active connection whose time has come. */
static void cli_send(struct client *cl)
{
	uint64_t now = now_ns(), prev;
	struct cconn *c;
	unsigned int i;

	for (i = 0; i < cl->n; i++) {
		c = &cl->c[i];
		if (c->fd < 0 || c->waiting || !c->next || c->next > now)
			continue;
		prev = c->last;
		c->last = now_ns();
		if (send(c->fd, "x", 1, MSG_DONTWAIT) != 1)
			continue;
		c->sent++;
		c->waiting = true;
		/*
		 * On loopback the byte is in the server's receive queue once
		 * send() returns. Before IDLE after the byte before, the
		 * server may not close: it read that byte no earlier than it
		 * went out. From then on it may.
		 */
		if (now_ns() - prev >= cl->idle_ns) {
			c->late = true;
			c->next = 0;
			cl->late++;
		}
	}
}

static void cli_events(struct client *cl, int timeout_ms)
{
	struct epoll_event evs[256];
	struct cconn *c;
	char buf[256];
	ssize_t r;
	int i, n;

	n = epoll_wait(cl->ep, evs, 256, timeout_ms);
	for (i = 0; i < n; i++) {
		c = &cl->c[evs[i].data.u32];
		r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r > 0) {
			c->echoed += r;
			c->waiting = false;
			if (c->next)
				c->next = next_send(cl);
		} else if (r == 0 || errno != EAGAIN) {
			c->closed = now_ns();
			close(c->fd);
			c->fd = -1;
			cl->open--;
		}
	}
}

/* Percentile @p of the @n sorted values in @v. */
static uint64_t pct(const uint64_t *v, unsigned int n, unsigned int p)
{
	return n ? v[(uint64_t)(n - 1) * p / 100] : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The checks and the summary line: every connection closed, none before
 * IDLE after its last byte, every byte echoed. @st: the server's counts,
 * or NULL. Return: 0 when all hold.
 */
static int cli_report(struct client *cl, const struct opts *o,
		      const struct srv_stats *st, const char *note)
{
	uint64_t *after = calloc(cl->n, sizeof(*after)), sent = 0, lost = 0;
	unsigned int i, early = 0, nclosed = 0, nafter = 0, active = 0;
	struct cconn *c;

	if (!after) {
		fprintf(stderr, "echo_idle: out of memory\n");
		return 1;
	}
	for (i = 0; i < cl->n; i++) {
		c = &cl->c[i];
		sent += c->sent;
		active += c->sent > 0;
		if (!c->late)
			lost += c->sent - c->echoed;
		if (c->fd >= 0)
			continue;
		nclosed++;
		/* Its close may rightly come before IDLE after its last byte. */
		if (c->late)
			continue;
		if (c->closed - c->last < o->idle_ns)
			early++;
		else
			after[nafter++] = c->closed - c->last - o->idle_ns;
	}
	qsort(after, nafter, sizeof(*after), cmp_u64);
	printf("echo_idle: %s%s%u connections (%u sent), idle %llu ms: ",
	       st ? st->backend : "", st ? " backend, " : "", cl->n, active,
	       (unsigned long long)(o->idle_ns / MS));
	printf("%u closed by idle timeout, %u early, %u never, %u sent late, ",
	       nclosed, early, cl->open, cl->late);
	printf("%llu bytes sent, %llu lost; ", (unsigned long long)sent,
	       (unsigned long long)lost);
	printf("close after idle p50 %.1f ms, p99 %.1f ms, max %.1f ms",
	       pct(after, nafter, 50) / 1e6, pct(after, nafter, 99) / 1e6,
	       pct(after, nafter, 100) / 1e6);
	if (st)
		printf("; server: %llu modifies in %llu submits, %llu expiries, %llu re-armed",
		       (unsigned long long)st->modifies,
		       (unsigned long long)st->submits,
		       (unsigned long long)st->expiries,
		       (unsigned long long)st->rearms);
	printf("%s\n", note);
	free(after);
	return early || cl->open || lost ? 1 : 0;
}

static int run_client(const struct opts *o, const struct srv_stats **st,
		      pid_t server, int stats_fd, const char *note)
{
	struct client cl = { .n = o->conns, .idle_ns = o->idle_ns };
	static struct srv_stats sst;
	uint64_t t0, next, end;

	cl.c = calloc(cl.n, sizeof(*cl.c));
	cl.ep = epoll_create1(EPOLL_CLOEXEC);
	if (!cl.c || cl.ep < 0 || cli_connect(&cl, o->port))
		return 1;
	t0 = now_ns();
	next = t0;
	while (now_ns() - t0 < o->active_ns) {
		if (now_ns() >= next) {
			cli_send(&cl);
			next += SEND_EVERY_NS;
		}
		cli_events(&cl, 1);
	}
	/* Silent: wait for the closes. */
	end = now_ns() + o->idle_ns + CLOSE_SLACK_NS;
	while (cl.open && now_ns() < end)
		cli_events(&cl, 100);
	*st = NULL;
	if (server > 0) {
		kill(server, SIGTERM);
		if (read(stats_fd, &sst, sizeof(sst)) == sizeof(sst))
			*st = &sst;
		waitpid(server, NULL, 0);
	}
	return cli_report(&cl, o, *st, note);
}

/* Room for @want fds, raising the limits; the count that fits. */
static unsigned int fit_nofile(unsigned int want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_max < want) {
		rl.rlim_max = want;
		rl.rlim_cur = want;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return want;
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur;
}

static int listen_on(int *port, unsigned int backlog)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(*port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("echo_idle: listen");
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:i:a:b:p:")) != -1) {
		if (c == 'n')
			o->conns = strtoul(optarg, NULL, 0);
		else if (c == 'i')
			o->idle_ns = strtoull(optarg, NULL, 0) * MS;
		else if (c == 'a')
			o->active_ns = strtoull(optarg, NULL, 0) * 1000 * MS;
		else if (c == 'p')
			o->port = atoi(optarg);
		else if (c == 'b' && !strcmp(optarg, "device"))
			o->open_flags = HWTIMER_OPEN_DEVICE;
		else if (c == 'b' && !strcmp(optarg, "timerfd"))
			o->open_flags = HWTIMER_OPEN_TIMERFD;
		else if (c != 'b' || strcmp(optarg, "auto"))
			return -1;
	}
	return o->conns && o->idle_ns ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .conns = 10000, .idle_ns = 1000 * MS,
			  .active_ns = 3000 * MS, .port = 7007 };
	const char *mode = argc > 1 && argv[1][0] != '-' ? argv[1] : "both";
	int shift = argc > 1 && argv[1] == mode;
	struct sigaction sa = { .sa_handler = on_stop };
	const struct srv_stats *st;
	unsigned int fds, want;
	char note[128] = "";
	int lfd, p[2];
	pid_t pid;

	if (strcmp(mode, "both"))
		o.port = 7007;
	else
		o.port = 0;
	if (parse(argc - shift, argv + shift, &o)) {
		fprintf(stderr, "usage: %s [server|client] [-n CONNS] [-i IDLE_MS]\n"
			"\t[-a ACTIVE_S] [-b auto|device|timerfd] [-p PORT]\n",
			argv[0]);
		return 2;
	}
	/* Each side holds CONNS sockets, plus a few fds of its own. */
	want = o.conns + 32;
	fds = fit_nofile(want);
	if (fds < want) {
		snprintf(note, sizeof(note), " (%u asked: RLIMIT_NOFILE allows %u fds)",
			 o.conns, fds);
		o.conns = fds > 64 ? fds - 32 : 32;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(mode, "client"))
		return run_client(&o, &st, 0, -1, note);
	lfd = listen_on(&o.port, o.conns);
	if (lfd < 0)
		return 1;
	if (!strcmp(mode, "server"))
		return run_server(&o, lfd, fds, -1);
	if (strcmp(mode, "both") || pipe(p))
		return 2;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(p[0]);
		_exit(run_server(&o, lfd, fds, p[1]));
	}
	close(p[1]);
	close(lfd);
	return run_client(&o, &st, pid, p[0], note);
}
