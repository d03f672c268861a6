// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_lib_bench - what libhwtimer's submission queue costs per timeout
 * against HWTIMER_IOC_BATCH called by hand, the system calls it makes, and
 * how late expiries reach the caller through the completion ring and
 * through read().
 *
 *   hwtimer_lib_bench [-n TIMEOUTS] [-r ROUNDS] [-e EXPIRIES]
 *                     [-b device|timerfd]
 *
 * Each variant arms TIMEOUTS (default 1048576) one-shots 10 s away and
 * cancels them, 1024 at a time (1024 arms, then their 1024 cancels, so
 * at most 1024 are pending), ROUNDS times (default 5) after one warm-up
 * round; it prints the median round as one line "name ns_per_op", where
 * an op is one timeout armed and cancelled:
 *
 *	lib_sq1024	hwtimer_prep_arm/prep_cancel, hwtimer_submit() per 1024
 *	raw_batch1024	a struct hwtimer_batch_op array of 1024 filled by
 *			hand, one HWTIMER_IOC_BATCH (device only)
 *	lib_single	hwtimer_arm() and hwtimer_cancel(), one call each
 *	rings_sq1024	lib_sq1024 through the device's timer rings
 *	rings_single	lib_single through the device's timer rings
 *	rings_loop1024	rings_sq1024 with a hwtimer_peek() after each 1024
 *			cancels, as an event loop takes its expiries
 *
 * The lib_ variants keep to BATCH (HWTIMER_OPEN_BATCH); the rings_ ones
 * run where the device offers rings. With -b timerfd (the library's
 * fallback) only the lib_ variants run.
 *
 * On the device, each variant also prints "syscalls name per_timeout
 * ioctl=I enter=E batch=B read=R": the system calls of its median round
 * (by their total) per timeout, and that round's count of each kind. They
 * are counted by defining ioctl() and read() here, which the library then
 * calls instead of libc's (a program's definition wins, statically linked
 * or not); they are the only system calls its device backend makes to
 * arm, cancel and take expiries other than poll() in hwtimer_wait(), which
 * these variants do not call.
 *
 * Then EXPIRIES (default 150000; 0 skips) one-shots with deadlines 10 us
 * apart, 100,000 a second, each armed with an absolute deadline 20 ms
 * ahead, at most as many waiting as the rings have slots, and taken back
 * with hwtimer_peek(), or hwtimer_wait() when none is there: the lateness
 * of one is when the caller got it (clock_gettime() then) minus its
 * deadline. "rings" takes them from the completion ring, "read" from
 * read() (HWTIMER_OPEN_BATCH). The two take turns for ROUNDS rounds each;
 * the round with the median p99 is printed as "expiry name expiries
 * delivered early p50_us p99_us max_us" (timerfd alone with -b timerfd).
 *
 * Not a timed test: the numbers are for comparison within one run.
 */
#define _GNU_SOURCE
/* read() is defined here: no fortified inline in its place. */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hwtimer/hwtimer.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK		1024
#define FAR_NS		10000000000ULL
#define MAX_ROUNDS	64
/* Expiry delivery: a deadline every 10 us, each armed 20 ms before it. */
#define EXP_GAP_NS	10000ULL
#define EXP_LEAD_NS	20000000ULL
/* Slots of libhwtimer's rings (ring.c): more waiting would go to BATCH. */
#define EXP_SLOTS	4096ULL
/* How long after the last deadline a round waits for the missing ones. */
#define EXP_GRACE_NS	2000000000ULL

/**
 * struct calls - system calls made through the definitions below
 * @ioctl: every ioctl()
 * @enter: of which HWTIMER_IOC_ENTER
 * @batch: of which HWTIMER_IOC_BATCH
 * @read: every read()
 */
struct calls {
	uint64_t ioctl;
	uint64_t enter;
	uint64_t batch;
	uint64_t read;
};

static struct calls calls;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	calls.ioctl++;
	calls.enter += req == HWTIMER_IOC_ENTER;
	calls.batch += req == HWTIMER_IOC_BATCH;
	return syscall(SYS_ioctl, fd, req, arg);
}

ssize_t read(int fd, void *buf, size_t count)
{
	calls.read++;
	return syscall(SYS_read, fd, buf, count);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "hwtimer_lib_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/*
 * @n timeouts through the submission queue, CHUNK per submit; with @peek,
 * a hwtimer_peek() after each CHUNK cancels (none expires).
 */
static void lib_sq(struct hwtimer *h, uint64_t n, bool peek)
{
	static struct hwtimer_result res[CHUNK];
	const struct hwtimer_event *ev;
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++)
			hwtimer_prep_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, i,
					 &res[i]);
		r = hwtimer_submit(h);
		if (r)
			die("submit of arms", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			hwtimer_prep_cancel(h, res[i].id, &res[i]);
		r = hwtimer_submit(h);
		if (r)
			die("submit of cancels", r < 0 ? -r : EIO);
		r = peek ? hwtimer_peek(h, &ev) : -EAGAIN;
		if (r != -EAGAIN)
			die("peek", r < 0 ? -r : EIO);
	}
}

static void lib_single(struct hwtimer *h, uint64_t n)
{
	static uint64_t ids[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, i,
					&ids[i]);
			if (r)
				die("arm", -r);
		}
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_cancel(h, ids[i]);
			if (r != HWTIMER_RESULT_CANCELLED)
				die("cancel", r < 0 ? -r : EIO);
		}
	}
}

static void raw_call(int fd, struct hwtimer_batch_op *ops)
{
	struct hwtimer_batch b = { .ops = (uintptr_t)ops, .count = CHUNK };

	if (ioctl(fd, HWTIMER_IOC_BATCH, &b))
		die("HWTIMER_IOC_BATCH", errno);
	if (b.done != CHUNK || b.failed)
		die("HWTIMER_IOC_BATCH ops", EIO);
}

/* The same work as lib_sq(), with the ABI's batch filled by hand. */
static void raw_batch(int fd, uint64_t n)
{
	static struct hwtimer_batch_op ops[CHUNK];
	uint64_t done;
	int i;

	for (done = 0; done < n; done += CHUNK) {
		for (i = 0; i < CHUNK; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].clock = CLOCK_MONOTONIC;
			ops[i].deadline_ns = FAR_NS;
			ops[i].cookie = i;
		}
		raw_call(fd, ops);
		for (i = 0; i < CHUNK; i++) {
			uint64_t id = ops[i].id;

			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_CANCEL;
			ops[i].id = id;
		}
		raw_call(fd, ops);
	}
}

static int raw_open(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API,
				   .features = HWTIMER_FEATURE_BATCH };
	int fd = open("/dev/hwtimer", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("/dev/hwtimer", errno);
	if (ioctl(fd, HWTIMER_IOC_API, &api))
		die("HWTIMER_IOC_API", errno);
	return fd;
}

/* Whether @h arms through the rings. */
static bool rings_in_use(struct hwtimer *h)
{
	return hwtimer_features(h) & HWTIMER_FEATURE_RINGS;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t calls_total(const struct calls *c)
{
	return c->ioctl + c->read;
}

enum variant { LIB_SQ, RAW_BATCH, LIB_SINGLE, LIB_LOOP };

/**
 * struct round - one timed round of a variant
 * @ns: its time
 * @calls: the system calls it made
 */
struct round {
	uint64_t ns;
	struct calls calls;
};

static int cmp_ns(const void *a, const void *b)
{
	return cmp_u64(&((const struct round *)a)->ns,
		       &((const struct round *)b)->ns);
}

static int cmp_calls(const void *a, const void *b)
{
	uint64_t x = calls_total(&((const struct round *)a)->calls);
	uint64_t y = calls_total(&((const struct round *)b)->calls);

	return cmp_u64(&x, &y);
}

static void run_variant(enum variant v, struct hwtimer *h, int fd, uint64_t n)
{
	if (v == LIB_SQ || v == LIB_LOOP)
		lib_sq(h, n, v == LIB_LOOP);
	else if (v == RAW_BATCH)
		raw_batch(fd, n);
	else
		lib_single(h, n);
}

/*
 * @rounds runs of @v over @n timeouts, after one warm-up: print the median
 * time in ns per timeout, then the system calls of the median round.
 */
static void measure(const char *name, enum variant v, struct hwtimer *h,
		    int fd, uint64_t n, int rounds)
{
	struct round t[MAX_ROUNDS];
	struct calls c0, *c;
	uint64_t t0;
	int k;

	for (k = -1; k < rounds; k++) {
		c0 = calls;
		t0 = now_ns();
		run_variant(v, h, fd, n);
		if (k < 0)
			continue;
		t[k].ns = now_ns() - t0;
		t[k].calls.ioctl = calls.ioctl - c0.ioctl;
		t[k].calls.enter = calls.enter - c0.enter;
		t[k].calls.batch = calls.batch - c0.batch;
		t[k].calls.read = calls.read - c0.read;
	}
	qsort(t, rounds, sizeof(t[0]), cmp_ns);
	printf("%s %.1f\n", name, (double)t[rounds / 2].ns / n);
	/* The timerfd backend makes other calls: only the device's count. */
	if (strcmp(hwtimer_backend(h), "device"))
		return;
	qsort(t, rounds, sizeof(t[0]), cmp_calls);
	c = &t[rounds / 2].calls;
	printf("syscalls %s %.6f ioctl=%llu enter=%llu batch=%llu read=%llu\n",
	       name, (double)calls_total(c) / n, (unsigned long long)c->ioctl,
	       (unsigned long long)c->enter, (unsigned long long)c->batch,
	       (unsigned long long)c->read);
}

/**
 * struct expiry_round - what one round of expiry delivery saw
 * @delivered: expiries the caller got
 * @early: of which before their deadline
 * @p50, @p99, @max: lateness of those delivered, in ns
 */
struct expiry_round {
	uint64_t delivered;
	uint64_t early;
	int64_t p50;
	int64_t p99;
	int64_t max;
};

/*
 * Arm, with absolute deadlines @start + i * EXP_GAP_NS, the timeouts from
 * *@armed on whose deadline is less than EXP_LEAD_NS away, keeping fewer
 * than EXP_SLOTS of them waiting.
 */
static void expiry_arm(struct hwtimer *h, uint64_t start, uint64_t n,
		       uint64_t *armed, uint64_t got)
{
	uint64_t until = now_ns() + EXP_LEAD_NS, i = *armed;
	int r;

	while (i < n && start + i * EXP_GAP_NS < until && i - got < EXP_SLOTS) {
		r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, start + i * EXP_GAP_NS,
				     0, HWTIMER_ARM_ABS, i, NULL);
		if (r)
			die("prep_arm", -r);
		i++;
	}
	if (i == *armed)
		return;
	*armed = i;
	r = hwtimer_submit(h);
	if (r)
		die("submit of arms", r < 0 ? -r : EIO);
}

/* Take the expiries waiting, each one's lateness into @late[*got]. */
static void expiry_take(struct hwtimer *h, uint64_t start, int64_t *late,
			uint64_t *got)
{
	const struct hwtimer_event *ev;

	while (!hwtimer_peek(h, &ev)) {
		late[(*got)++] = (int64_t)(now_ns() -
					   (start + ev->cookie * EXP_GAP_NS));
		hwtimer_seen(h);
	}
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* One round: @n expiries, 100,000 a second, armed ahead and taken back. */
static void expiry_round(struct hwtimer *h, uint64_t n, int64_t *late,
			 struct expiry_round *out)
{
	uint64_t start = now_ns() + EXP_LEAD_NS, armed = 0, got = 0, i;
	uint64_t end = start + n * EXP_GAP_NS + EXP_GRACE_NS;
	const struct hwtimer_event *ev;
	int r;

	while (got < n && now_ns() < end) {
		expiry_arm(h, start, n, &armed, got);
		expiry_take(h, start, late, &got);
		r = hwtimer_wait(h, &ev, armed < n ? 1000000 : 10000000);
		if (r && r != -ETIME && r != -EINTR)
			die("wait", -r);
	}
	memset(out, 0, sizeof(*out));
	out->delivered = got;
	if (!got)
		return;
	for (i = 0; i < got; i++)
		out->early += late[i] < 0;
	qsort(late, got, sizeof(late[0]), cmp_s64);
	out->p50 = late[got / 2];
	out->p99 = late[got * 99 / 100];
	out->max = late[got - 1];
}

static int cmp_p99(const void *a, const void *b)
{
	return cmp_s64(&((const struct expiry_round *)a)->p99,
		       &((const struct expiry_round *)b)->p99);
}

static void expiry_print(const char *name, uint64_t n,
			 struct expiry_round *t, int rounds)
{
	const struct expiry_round *m;

	qsort(t, rounds, sizeof(t[0]), cmp_p99);
	m = &t[rounds / 2];
	printf("expiry %s %llu %llu %llu %.1f %.1f %.1f\n", name,
	       (unsigned long long)n, (unsigned long long)m->delivered,
	       (unsigned long long)m->early, m->p50 / 1e3, m->p99 / 1e3,
	       m->max / 1e3);
}

/*
 * Expiry delivery on @nh contexts (the rings and read(), or timerfd
 * alone), taking turns, @rounds rounds each.
 */
static void expiry(struct hwtimer **h, const char * const *names, int nh,
		   uint64_t n, int rounds)
{
	static struct expiry_round t[2][MAX_ROUNDS];
	int64_t *late = malloc(n * sizeof(*late));
	int k, j;

	if (!late)
		die("expiry", ENOMEM);
	for (k = 0; k < rounds; k++) {
		for (j = 0; j < nh; j++)
			expiry_round(h[j], n, late, &t[j][k]);
	}
	for (j = 0; j < nh; j++)
		expiry_print(names[j], n, t[j], rounds);
	free(late);
}

static int open_ctx(struct hwtimer **h, unsigned int flags)
{
	int r = hwtimer_open(h, CHUNK, flags);

	if (r)
		fprintf(stderr, "hwtimer_lib_bench: %s\n", hwtimer_open_error());
	return r;
}

/* The BATCH variants, then the rings ones where the device has rings. */
static int cost(unsigned int flags, uint64_t n, int rounds)
{
	struct hwtimer *h;
	int fd;

	if (open_ctx(&h, flags | HWTIMER_OPEN_BATCH))
		return 1;
	printf("# backend %s, %llu timeouts, %d rounds, median\n",
	       hwtimer_backend(h), (unsigned long long)n, rounds);
	measure("lib_sq1024", LIB_SQ, h, -1, n, rounds);
	if (flags == HWTIMER_OPEN_DEVICE) {
		fd = raw_open();
		measure("raw_batch1024", RAW_BATCH, h, fd, n, rounds);
		close(fd);
	}
	measure("lib_single", LIB_SINGLE, h, -1, n, rounds);
	hwtimer_close(h);
	if (flags != HWTIMER_OPEN_DEVICE)
		return 0;
	if (open_ctx(&h, flags))
		return 1;
	if (rings_in_use(h)) {
		measure("rings_sq1024", LIB_SQ, h, -1, n, rounds);
		measure("rings_single", LIB_SINGLE, h, -1, n, rounds);
		measure("rings_loop1024", LIB_LOOP, h, -1, n, rounds);
	}
	hwtimer_close(h);
	return 0;
}

/* Expiry delivery: the rings against read(), or timerfd alone. */
static int delivery(unsigned int flags, uint64_t n, int rounds)
{
	static const char * const dev_names[] = { "rings", "read" };
	static const char * const tfd_names[] = { "timerfd" };
	struct hwtimer *h[2];
	int r = 1;

	if (flags != HWTIMER_OPEN_DEVICE) {
		if (open_ctx(&h[0], flags))
			return 1;
		expiry(h, tfd_names, 1, n, rounds);
		hwtimer_close(h[0]);
		return 0;
	}
	if (open_ctx(&h[0], flags))
		return 1;
	if (!rings_in_use(h[0]))
		goto out_close0;
	if (open_ctx(&h[1], flags | HWTIMER_OPEN_BATCH))
		goto out_close0;
	expiry(h, dev_names, 2, n, rounds);
	r = 0;
	hwtimer_close(h[1]);
out_close0:
	hwtimer_close(h[0]);
	return r;
}

int main(int argc, char **argv)
{
	uint64_t n = 1048576, ne = 150000;
	unsigned int flags = HWTIMER_OPEN_DEVICE;
	int rounds = 5, c;

	while ((c = getopt(argc, argv, "n:r:e:b:")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 'e')
			ne = strtoull(optarg, NULL, 0);
		else if (c == 'b' && !strcmp(optarg, "timerfd"))
			flags = HWTIMER_OPEN_TIMERFD;
		else if (c != 'b' || strcmp(optarg, "device"))
			n = 0;
	}
	n -= n % CHUNK;
	if (!n || rounds < 1 || rounds > MAX_ROUNDS || optind != argc) {
		fprintf(stderr, "usage: %s [-n TIMEOUTS (a multiple of %d)] [-r ROUNDS]\n"
			"\t[-e EXPIRIES] [-b device|timerfd]\n", argv[0], CHUNK);
		return 2;
	}
	if (cost(flags, n, rounds))
		return 1;
	fflush(stdout);
	return ne ? delivery(flags, ne, rounds) : 0;
}
