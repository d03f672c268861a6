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
 * round, the variants taking turns round by round. The deadlines are
 * absolute, from one clock read per 1024, as an event loop arms from its
 * cached time (a relative arm would add a clock read to each single
 * call), spread over the second after it: the i-th of each 1024 at the
 * same random offset in every variant. Each prints its fastest round as
 * one line "name ns_per_op", where an op is one timeout armed and
 * cancelled, as hwtimer_ubench keeps its fastest, then its median round
 * as "median name ns_per_op":
 *
 *	lib_sq1024	hwtimer_prep_arm/prep_cancel, hwtimer_submit() per 1024
 *	raw_batch1024	a struct hwtimer_batch_op array of 1024 filled by
 *			hand, one HWTIMER_IOC_BATCH (device only)
 *	lib_single	hwtimer_arm() and hwtimer_cancel(), one call each
 *	rings_sq1024	lib_sq1024 through the device's timer rings
 *	rings_single	lib_single through the device's timer rings
 *	rings_loop1024	rings_sq1024 with a hwtimer_peek() after each 1024
 *			cancels, as an event loop takes its expiries
 *	heap_single	no libhwtimer: an event loop's binary heap and one
 *			timerfd (heap_loop.h, hwtimer_ubench's heap peer),
 *			in the loop of lib_single
 *
 * The lib_ variants keep to BATCH (HWTIMER_OPEN_BATCH); the rings_ ones
 * run where the device offers rings. With -b timerfd (the library's
 * fallback) only the lib_ variants and heap_single run.
 *
 * On the device, each variant then prints "syscalls name per_timeout
 * total=T ioctl=I enter=E batch=B read=R other=O": every system call of
 * one counted run over TIMEOUTS, per timeout, then how many in all, how
 * many ioctl() (of which HWTIMER_IOC_ENTER and HWTIMER_IOC_BATCH), read()
 * and other (all but ioctl() and read()); when other is not 0, a line
 * "# syscalls name other: NR=COUNT ..." follows, NR a system call's name
 * for the common ones, else its number. They are counted with ptrace, as
 * strace -c counts them, in a run that is not timed: a child of fork()
 * opens its own context with the variant's flags (raw_batch1024 its own
 * fd), runs the variant once as a warm-up, then once more between two
 * int3 marks, and every system call it enters between the marks counts
 * (the child stops at system calls there alone). Its timeouts are an
 * hour away, not 10 s: traced, a chunk of 1024 single calls may take
 * longer than that, and its cancels would find them fired.
 * The child's one thread is traced; the device backend starts no other.
 * Where ptrace is not allowed, stderr says why and the line is missing.
 *
 * Through the rings, a cancel of an ARM that no drain has copied yet takes
 * it back from the submission ring, and the kernel never hears of the
 * timeout; once a drain has copied it, the cancel is a CANCEL entry that
 * the kernel applies, and its completion comes back. Which one a timeout
 * gets depends on where the periodic drain falls, so each rings variant
 * also prints "kernel name percent": of the arms of its fastest round, how
 * many reached the kernel (the kernel's count of the context's arms; the
 * library counts those it took back apart, in hwtimer_lib_stats()).
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
 * Built with -DHWT_STAND_IN and linked with test/fake_kernel.c (make
 * ring-native), it also takes -b stand-in: the rings variants then run
 * against that stand-in for the driver, on /dev/null, beside heap_single,
 * with no other variant, no system call count and no expiries. That is
 * the library's own cost on the host's CPU, with no device and no VM:
 * nothing drains the rings there, so every cancel takes its ARM back.
 *
 * Not a timed test: the numbers are for comparison within one run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hwtimer/hwtimer.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heap_loop.h"

#define CHUNK		1024
#define FAR_NS		10000000000ULL
/* The traced run's: its arms are so slow that 10 s may pass in a chunk. */
#define COUNT_FAR_NS	3600000000000ULL
#define MAX_ROUNDS	64
/* Expiry delivery: a deadline every 10 us, each armed 20 ms before it. */
#define EXP_GAP_NS	10000ULL
#define EXP_LEAD_NS	20000000ULL
/* Slots of libhwtimer's rings (ring.c): more waiting would go to BATCH. */
#define EXP_SLOTS	4096ULL
/* How long after the last deadline a round waits for the missing ones. */
#define EXP_GRACE_NS	2000000000ULL
/* System call numbers counted one by one; higher ones go to @high. */
#define NR_MAX		1024

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* -b stand-in: the rings of test/fake_kernel.c, on /dev/null. */
static bool stand_in;
#ifdef HWT_STAND_IN
#define BACKENDS	"device|timerfd|stand-in"
#else
#define BACKENDS	"device|timerfd"
#endif

/**
 * struct calls - the system calls of one counted run
 * @total: every system call
 * @ioctl: every ioctl()
 * @enter: of which HWTIMER_IOC_ENTER
 * @batch: of which HWTIMER_IOC_BATCH
 * @read: every read()
 * @high: system calls numbered NR_MAX or more
 * @nr: the others, by their number
 */
struct calls {
	uint64_t total;
	uint64_t ioctl;
	uint64_t enter;
	uint64_t batch;
	uint64_t read;
	uint64_t high;
	uint64_t nr[NR_MAX];
};

/* How far ahead the cost variants arm, and the i-th's offset past it. */
static uint64_t far_ns = FAR_NS;
static uint64_t spread[CHUNK];

/* The heap peer's loop, and its timeouts. */
static struct heap_loop heap;
static struct heap_timeout heap_t[CHUNK];

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
		uint64_t at = now_ns() + far_ns;

		for (i = 0; i < CHUNK; i++)
			hwtimer_prep_arm(h, CLOCK_MONOTONIC, at + spread[i], 0,
					 HWTIMER_ARM_ABS, i, &res[i]);
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
		uint64_t at = now_ns() + far_ns;

		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_arm(h, CLOCK_MONOTONIC, at + spread[i], 0,
					HWTIMER_ARM_ABS, i, &ids[i]);
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

/* lib_single()'s work on an event loop's heap and timerfd. */
static void heap_single(uint64_t n)
{
	uint64_t done;
	int i;

	for (done = 0; done < n; done += CHUNK) {
		uint64_t at = now_ns() + far_ns;

		for (i = 0; i < CHUNK; i++)
			heap_arm(&heap, &heap_t[i], at + spread[i]);
		for (i = 0; i < CHUNK; i++)
			heap_cancel(&heap, &heap_t[i]);
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
		uint64_t at = now_ns() + far_ns;

		for (i = 0; i < CHUNK; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].clock = CLOCK_MONOTONIC;
			ops[i].flags = HWTIMER_ARM_ABS;
			ops[i].deadline_ns = at + spread[i];
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

static int open_ctx(struct hwtimer **h, unsigned int flags)
{
	int r = stand_in ? hwtimer_open_path(h, "/dev/null", CHUNK, flags) :
			   hwtimer_open(h, CHUNK, flags);

	if (r)
		fprintf(stderr, "hwtimer_lib_bench: %s\n", hwtimer_open_error());
	return r;
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

enum variant { LIB_SQ, RAW_BATCH, LIB_SINGLE, LIB_LOOP, HEAP_SINGLE };

/**
 * struct round - one timed round of a variant
 * @ns: how long it took
 * @seen: arms of the round that reached the kernel (rings only)
 */
struct round {
	uint64_t ns;
	uint64_t seen;
};

static int cmp_round(const void *a, const void *b)
{
	return cmp_u64(&((const struct round *)a)->ns,
		       &((const struct round *)b)->ns);
}

/*
 * Arms of @h that reached the kernel so far: the kernel's count, read
 * with HWTIMER_IOC_STATS alone, not hwtimer_stats(), whose ENTER would
 * have the kernel consume the arms still in the ring.
 */
static uint64_t kernel_arms(struct hwtimer *h)
{
	struct hwtimer_stats_req st;

	memset(&st, 0, sizeof(st));
	st.clock = CLOCK_MONOTONIC;
	if (ioctl(hwtimer_fd(h), HWTIMER_IOC_STATS, &st))
		die("HWTIMER_IOC_STATS", errno);
	return st.ctx_armed;
}

static void run_variant(enum variant v, struct hwtimer *h, int fd, uint64_t n)
{
	if (v == LIB_SQ || v == LIB_LOOP)
		lib_sq(h, n, v == LIB_LOOP);
	else if (v == RAW_BATCH)
		raw_batch(fd, n);
	else if (v == HEAP_SINGLE)
		heap_single(n);
	else
		lib_single(h, n);
}

/*
 * A mark for the tracer that is not a system call: a breakpoint trap, seen
 * as a SIGTRAP, which the tracer takes away. x86's int3 traps after
 * itself, so the child goes on from there; elsewhere there is no mark,
 * and no count.
 */
#if defined(__x86_64__) || defined(__i386__)
#define HAVE_MARK	1
#else
#define HAVE_MARK	0
#endif
#ifdef __has_builtin
#if __has_builtin(__builtin_debugtrap)
#define HAVE_DEBUGTRAP	1
#endif
#endif

static inline void mark(void)
{
#if HAVE_MARK && defined(HAVE_DEBUGTRAP)
	__builtin_debugtrap();
#elif HAVE_MARK
	__asm__ volatile("int3");
#endif
}

/* Why the system calls of @name are not counted: @what, @err if not 0. */
static void not_counted(const char *name, const char *what, int err)
{
	fprintf(stderr, "hwtimer_lib_bench: syscalls %s not counted: %s%s%s\n",
		name, what, err ? ": " : "", err ? strerror(err) : "");
}

/*
 * Follow the child @pid, stopped by its SIGSTOP, to its exit, counting
 * into @c each system call it enters between its first mark and its
 * second. Returns 0, or -1 after saying why on stderr; the child is then
 * gone.
 */
static int trace_child(pid_t pid, struct calls *c, const char *name)
{
	struct __ptrace_syscall_info info;
	const char *what = "waitpid";
	int st, sig = 0, marks = 0;
	char msg[80];

	if (waitpid(pid, &st, 0) != pid)
		goto fail;
	if (!WIFSTOPPED(st)) {
		not_counted(name, "the child ended before it was traced", 0);
		return -1;
	}
	what = "ptrace(PTRACE_SETOPTIONS)";
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)))
		goto fail;
	for (;;) {
		/* Stops at system calls cost: only between the marks. */
		what = marks == 1 ? "ptrace(PTRACE_SYSCALL)" :
				    "ptrace(PTRACE_CONT)";
		if (ptrace(marks == 1 ? PTRACE_SYSCALL : PTRACE_CONT, pid,
			   NULL, (void *)(long)sig))
			goto fail;
		sig = 0;
		what = "waitpid";
		if (waitpid(pid, &st, 0) != pid)
			goto fail;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (WSTOPSIG(st) == SIGTRAP) {
			marks++;
			continue;
		}
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st);
			continue;
		}
		if (marks != 1)
			continue;
		what = "ptrace(PTRACE_GET_SYSCALL_INFO)";
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid,
			   (void *)sizeof(info), &info) <= 0)
			goto fail;
		if (info.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		c->total++;
		if (info.entry.nr >= NR_MAX)
			c->high++;
		else
			c->nr[info.entry.nr]++;
		if (info.entry.nr == SYS_read)
			c->read++;
		if (info.entry.nr != SYS_ioctl)
			continue;
		c->ioctl++;
		/* The request is an unsigned long: 32 bits in a 32-bit call. */
		c->enter += (unsigned long)info.entry.args[1] ==
			    HWTIMER_IOC_ENTER;
		c->batch += (unsigned long)info.entry.args[1] ==
			    HWTIMER_IOC_BATCH;
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st) && marks == 2)
		return 0;
	snprintf(msg, sizeof(msg), "the child %s %d after %d of its 2 marks",
		 WIFEXITED(st) ? "exited with" : "was killed by signal",
		 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), marks);
	not_counted(name, msg, 0);
	return -1;

fail:
	not_counted(name, what, errno);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) == pid && !WIFEXITED(st) &&
	       !WIFSIGNALED(st))
		;
	return -1;
}

/*
 * Count into @c, with ptrace, every system call that @body(@arg) makes in
 * a child of fork() between its two mark()s. The child's system calls
 * are slow while traced, and none of this is timed. Returns 0, or -1
 * after saying why on stderr.
 */
static int count_calls(void (*body)(const void *arg), const void *arg,
		       struct calls *c, const char *name)
{
	pid_t pid;

	memset(c, 0, sizeof(*c));
	if (!HAVE_MARK) {
		not_counted(name, "no mark on this architecture", 0);
		return -1;
	}
	/* Nothing buffered twice, by the child's exit() in die(). */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		not_counted(name, "fork", errno);
		return -1;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			not_counted(name, "ptrace(PTRACE_TRACEME)", errno);
			_exit(1);
		}
		raise(SIGSTOP);
		body(arg);
		_exit(0);
	}
	return trace_child(pid, c, name);
}

/**
 * struct counted - what the traced child runs
 * @v: the variant
 * @flags: the open flags of its context (not for RAW_BATCH, HEAP_SINGLE)
 * @n: timeouts
 */
struct counted {
	enum variant v;
	unsigned int flags;
	uint64_t n;
};

/*
 * In the child: its own context (one opened before fork() does not drive
 * its rings in a child) or raw fd, the variant once as a warm-up, then
 * once between the marks.
 */
static void counted_body(const void *arg)
{
	const struct counted *t = arg;
	struct hwtimer *h = NULL;
	int fd = -1;

	far_ns = COUNT_FAR_NS;
	if (t->v == RAW_BATCH)
		fd = raw_open();
	else if (t->v != HEAP_SINGLE && open_ctx(&h, t->flags))
		_exit(1);
	run_variant(t->v, h, fd, t->n);
	mark();
	run_variant(t->v, h, fd, t->n);
	mark();
	if (h)
		hwtimer_close(h);
	if (fd >= 0)
		close(fd);
}

/* Names of the system calls the "other:" line is likeliest to show. */
static const struct {
	long nr;
	const char *name;
} nr_names[] = {
	{ SYS_getpid, "getpid" },
	{ SYS_clock_gettime, "clock_gettime" },
#ifdef SYS_clock_gettime64
	{ SYS_clock_gettime64, "clock_gettime64" },
#endif
	{ SYS_ppoll, "ppoll" },
#ifdef SYS_ppoll_time64
	{ SYS_ppoll_time64, "ppoll_time64" },
#endif
#ifdef SYS_poll
	{ SYS_poll, "poll" },
#endif
	{ SYS_timerfd_settime, "timerfd_settime" },
#ifdef SYS_timerfd_settime64
	{ SYS_timerfd_settime64, "timerfd_settime64" },
#endif
	{ SYS_madvise, "madvise" },
	{ SYS_mmap, "mmap" },
#ifdef SYS_mmap2
	{ SYS_mmap2, "mmap2" },
#endif
	{ SYS_munmap, "munmap" },
	{ SYS_futex, "futex" },
#ifdef SYS_futex_time64
	{ SYS_futex_time64, "futex_time64" },
#endif
};

static void print_calls(const char *name, const struct calls *c, uint64_t n)
{
	uint64_t other = c->total - c->ioctl - c->read;
	size_t i, j;

	printf("syscalls %s %.6f total=%llu", name, (double)c->total / n,
	       (unsigned long long)c->total);
	printf(" ioctl=%llu enter=%llu batch=%llu read=%llu other=%llu\n",
	       (unsigned long long)c->ioctl, (unsigned long long)c->enter,
	       (unsigned long long)c->batch, (unsigned long long)c->read,
	       (unsigned long long)other);
	if (!other)
		return;
	printf("# syscalls %s other:", name);
	for (i = 0; i < NR_MAX; i++) {
		if (!c->nr[i] || i == SYS_ioctl || i == SYS_read)
			continue;
		for (j = 0; j < ARRAY_SIZE(nr_names); j++) {
			if (nr_names[j].nr == (long)i)
				break;
		}
		if (j < ARRAY_SIZE(nr_names))
			printf(" %s=", nr_names[j].name);
		else
			printf(" %zu=", i);
		printf("%llu", (unsigned long long)c->nr[i]);
	}
	if (c->high)
		printf(" high=%llu", (unsigned long long)c->high);
	printf("\n");
}

/**
 * struct var - a cost variant of one run
 * @name: its name in the output
 * @v: what it runs
 * @h: its context (not for RAW_BATCH, HEAP_SINGLE)
 * @fd: its raw fd (RAW_BATCH), else -1
 * @flags: the open flags of the traced child's context
 * @rings: whether @h arms through the rings
 * @rd: its timed rounds
 */
struct var {
	const char *name;
	enum variant v;
	struct hwtimer *h;
	int fd;
	unsigned int flags;
	bool rings;
	struct round rd[MAX_ROUNDS];
};

/* One round of @x over @n timeouts, timed into @rd. */
static void time_round(const struct var *x, uint64_t n, struct round *rd)
{
	uint64_t t0, seen = x->rings ? kernel_arms(x->h) : 0;

	t0 = now_ns();
	run_variant(x->v, x->h, x->fd, n);
	rd->ns = now_ns() - t0;
	rd->seen = x->rings ? kernel_arms(x->h) - seen : 0;
}

/*
 * Print @x's fastest and median of @rounds rounds in ns per timeout, and
 * how many of the fastest round's arms reached the kernel. With @count,
 * then count the system calls of one more run in a traced child.
 */
static void report(struct var *x, uint64_t n, int rounds, bool count)
{
	static struct calls c;
	struct counted t = { .v = x->v, .flags = x->flags, .n = n };

	qsort(x->rd, rounds, sizeof(x->rd[0]), cmp_round);
	printf("%s %.1f\n", x->name, (double)x->rd[0].ns / n);
	printf("median %s %.1f\n", x->name,
	       (double)x->rd[rounds / 2].ns / n);
	if (x->rings)
		printf("kernel %s %.1f\n", x->name, 100.0 * x->rd[0].seen / n);
	if (count && !count_calls(counted_body, &t, &c, x->name))
		print_calls(x->name, &c, n);
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

/* The BATCH variants, then the rings ones where the device has rings. */
/* Append variant @name to @x, which holds *@nx. */
static void add_var(struct var *x, int *nx, const char *name, enum variant v,
		    struct hwtimer *h, int fd, unsigned int flags)
{
	struct var *e = &x[(*nx)++];

	e->name = name;
	e->v = v;
	e->h = h;
	e->fd = fd;
	e->flags = flags;
	e->rings = h && rings_in_use(h);
}

/*
 * The cost variants, taking turns over @rounds rounds after a warm-up of
 * each. The timerfd backend has a thread of its own: system calls are
 * counted on the device's alone.
 */
static int cost(unsigned int flags, uint64_t n, int rounds)
{
	bool device = flags == HWTIMER_OPEN_DEVICE && !stand_in;
	struct hwtimer *hb = NULL, *hr = NULL;
	static struct var x[8];
	int nx = 0, fd = -1, k, i;

	/* The stand-in answers no BATCH: the rings alone. */
	if (!stand_in && open_ctx(&hb, flags | HWTIMER_OPEN_BATCH))
		return 1;
	if (device || stand_in) {
		if (open_ctx(&hr, flags)) {
			if (hb)
				hwtimer_close(hb);
			return 1;
		}
		if (device)
			fd = raw_open();
	}
	heap_open(&heap, CHUNK);
	if (hb) {
		add_var(x, &nx, "lib_sq1024", LIB_SQ, hb, -1,
			flags | HWTIMER_OPEN_BATCH);
		if (device)
			add_var(x, &nx, "raw_batch1024", RAW_BATCH, NULL, fd,
				0);
		add_var(x, &nx, "lib_single", LIB_SINGLE, hb, -1,
			flags | HWTIMER_OPEN_BATCH);
	}
	add_var(x, &nx, "heap_single", HEAP_SINGLE, NULL, -1, 0);
	if (hr && rings_in_use(hr)) {
		add_var(x, &nx, "rings_sq1024", LIB_SQ, hr, -1, flags);
		add_var(x, &nx, "rings_single", LIB_SINGLE, hr, -1, flags);
		add_var(x, &nx, "rings_loop1024", LIB_LOOP, hr, -1, flags);
	}
	printf("# backend %s, %llu timeouts, %d rounds taking turns, fastest, then median\n",
	       stand_in ? "stand-in" : hwtimer_backend(hb),
	       (unsigned long long)n, rounds);
	for (k = -1; k < rounds; k++) {
		for (i = 0; i < nx; i++) {
			if (k < 0)
				run_variant(x[i].v, x[i].h, x[i].fd, n);
			else
				time_round(&x[i], n, &x[i].rd[k]);
		}
	}
	for (i = 0; i < nx; i++)
		report(&x[i], n, rounds, device);
	heap_close(&heap);
	if (fd >= 0)
		close(fd);
	if (hr)
		hwtimer_close(hr);
	if (hb)
		hwtimer_close(hb);
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
#ifdef HWT_STAND_IN
		else if (c == 'b' && !strcmp(optarg, "stand-in"))
			stand_in = true;
#endif
		else if (c != 'b' || strcmp(optarg, "device"))
			n = 0;
	}
	n -= n % CHUNK;
	/* The same offsets every run: a fixed seed. */
	srand48(1);
	for (c = 0; c < CHUNK; c++)
		spread[c] = (uint64_t)(drand48() * 1e9);
	if (!n || rounds < 1 || rounds > MAX_ROUNDS || optind != argc) {
		fprintf(stderr, "usage: %s [-n TIMEOUTS (a multiple of %d)] [-r ROUNDS]\n"
			"\t[-e EXPIRIES] [-b " BACKENDS "]\n", argv[0], CHUNK);
		return 2;
	}
	if (cost(flags, n, rounds))
		return 1;
	fflush(stdout);
	return ne && !stand_in ? delivery(flags, ne, rounds) : 0;
}
