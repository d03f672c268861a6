// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_isolation - can one user of /dev/hwtimer make another user's
 * timeouts late?
 *
 * Some of what the kernel does for a context runs on threads every user
 * shares (the wheels' workers, which run the contexts' wake-ups; the
 * one-base wheel of the rings' drains) and under locks of the context
 * that the context's own threads also take. Each
 * attacker class below aims at one of those. tools/vm/guest.d/36-isolation.sh
 * runs the modes, one process each, and judges:
 *
 *   hwtimer_isolation attack CLASS [-c CPU]
 *   hwtimer_isolation control CLASS [-c CPU]
 *	Run as nobody (hwtimer_runas). Set up, print "ready" on stdout, then
 *	keep at it until SIGTERM. The control twin starts the same threads,
 *	at the same policies, pinned the same way, and sets up the same
 *	contexts and rings; only the harmful part is replaced by something
 *	harmless: a getppid() or an empty read() for an ioctl, a load for a
 *	store into a ring, nothing armed for timeouts armed.
 *   hwtimer_isolation victim -p PID -r FILE [-c CPU] [-s SECS] [-o OUT]
 *	Run as root, pinned to CPU. Wait for PID (the attacker or its twin)
 *	to write "ready" into FILE, let it settle, then for SECS seconds
 *	alternate two one-shot timeouts 5 ms ahead, one at a time: one armed
 *	with HWTIMER_IOC_ARM and read with read(), one armed through the
 *	victim's own timer ring (consumed by the periodic drain, never by an
 *	ENTER unless the drain asks for it with NEED_WAKEUP) and taken from
 *	the completion ring after poll(). The deadline is the one asked
 *	for: 5 ms after the ARM call began (the record's deadline_ns, read
 *	from the clock during the call, must not be earlier), or the ring
 *	entry's absolute deadline; a call kept waiting makes its timeout
 *	late. For each expiry:
 *		fire lateness	record's fire_ns - deadline
 *		wake lateness	CLOCK_MONOTONIC when the record is in hand,
 *				less deadline
 *		net lateness	fire lateness less the part of it during which
 *				a CPU stalled (see the stall watch below): the
 *				victim's CPU for the ioctl path, the one that
 *				stalled most for the ring path, whose timeout
 *				is armed and served on a drain's CPU
 *	A third path, "kernel", where tools/testing/kvictim's module is
 *	loaded (36-isolation.sh loads it with cpu=CPU): its kthread arms
 *	one-shots 5 ms ahead on the default wheel, one at a time, as a
 *	kernel user of the exported API does; those whose deadlines fall in
 *	the window count, their fire lateness from their callbacks' start,
 *	net of CPU's stalls, as ioctl's.
 *	It also takes, over its own window, the CPU time of hwtimer's
 *	kthreads (comm "hwtimer/...") and of every process of the attacker's
 *	uid, from /proc/PID/stat (utime + stime). p50, p99 and max of each
 *	go to stdout as "# " lines and, as "key value" lines, to OUT for the
 *	fragment, with the stalls of each CPU and the slowest ARM call.
 *
 * Classes (CPU is the victim's, where lock-holder and expiry-flood pin
 * their threads):
 *
 *   drain-stall	workers + 2 contexts with a timer ring; two SCHED_IDLE
 *		threads per ring loop on HWTIMER_IOC_ENTER (one refills
 *		the ring with NOPs first, so each ENTER has work and holds
 *		the ring's drain mutex across its chunks), next to one
 *		normal busy thread per CPU that starves them. The periodic
 *		drains of every context run on one wheel, with as many
 *		workers as the module parameter workers; a drain that
 *		waits for a starved ENTER holds one.
 *		Control: the same threads call getppid().
 *   nop-flood	workers + 2 rings (at least one per CPU) of 65536 NOPs;
 *		a thread per CPU keeps moving their sq tails to head + size,
 *		no system call (one ENTER per ring at the start), while their
 *		drains consume the NOPs.
 *		Control: the same threads load the heads and store nothing.
 *   lock-holder	workers + 2 contexts of 1024 far timeouts each, three
 *		SCHED_IDLE threads per context looping on BATCH (32 MODIFYs of
 *		its far ids and 16 ARMs one tick ahead), an ARM and CANCEL,
 *		and a read() of what fired, with two busy threads, and a
 *		normal feeder thread that each tick reads every context and
 *		arms it a one-shot a tick ahead; all pinned to CPU, so the
 *		contexts' wake-ups are on CPU's base, whose workers then
 *		need the contexts' locks. Where those are sleeping locks
 *		(PREEMPT_RT) a starved holder keeps them. Control: getppid()
 *		for the ioctls, the far timeouts armed.
 *   expiry-flood	50,000 periodic 10 ms timeouts in two contexts, all
 *		due at the same instants, armed from CPU, and a reader per
 *		context pinned to CPU reading records as fast as it can
 *		(each read serves the due ones and queues its dormant
 *		timeouts for the next period, on the reader's time). Control: the readers read() their
 *		contexts with nothing armed.
 *   many-contexts	1000 contexts (over several processes if the fd limit
 *		needs it), each with one 1-tick periodic timeout it never
 *		reads; one in two has a ring of 8 entries full of CANCELs
 *		and a completion ring of 2, whose cq head a busy thread per
 *		process keeps moving, so that every one of their drains,
 *		each tick, has an entry to consume. Control: the same
 *		contexts and rings, nothing armed or queued, the thread only
 *		loads the cq tails.
 *
 * Exit status: 0; 1 when the victim saw a record early or not its own, or
 * lost one (no record 30 s after its deadline); 2 on a setup error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "hwtimer_rings.h"

#define DEV		"/dev/hwtimer"
#define KVICTIM		"/sys/kernel/debug/hwtimer_kvictim/samples"
#define PARAMS		"/sys/module/hwtimer/parameters/"
#define MS		((uint64_t)1000000)
#define SEC		((uint64_t)1000000000)
/* The victim's timeouts are this far ahead when armed. */
#define VICTIM_AHEAD	(5 * MS)
/* A record this late is lost: the victim stops there. */
#define VICTIM_LOST	(30 * SEC)
/* Most samples of one path the victim keeps. */
#define VICTIM_MAX	16384
/* How long the victim waits for the attacker's "ready". */
#define READY_WAIT	(180 * SEC)
/* After "ready", before the victim's window. */
#define SETTLE		(500 * MS)
/* Kernel threads are flagged so in /proc/PID/stat (include/linux/sched.h). */
#define PF_KTHREAD	0x00200000UL

/* drain-stall: entries of each attacker ring. */
#define DS_SQ		1024
/* nop-flood: entries of each attacker ring (HWTIMER_RING_MAX_ENTRIES). */
#define NF_SQ		65536
/* lock-holder: far timeouts per context; ops of one BATCH. */
#define LH_FAR		1024
#define LH_MODIFY	32
#define LH_SHORT	16
/* lock-holder: SCHED_IDLE threads per context. */
#define LH_THREADS	3
/* expiry-flood: timeouts, contexts, period, ops per BATCH, read chunk. */
#define EF_N		50000
#define EF_CTX		2
#define EF_PERIOD	(10 * MS)
#define EF_CHUNK	4096
/* many-contexts: contexts, one ring per MC_RING_EVERY, ring sizes. */
#define MC_CTX		1000
#define MC_RING_EVERY	2
#define MC_SQ		8
#define MC_CQ		2
/* File descriptors a process keeps for itself besides its contexts. */
#define FD_SPARE	32

/* The harmful part runs (attack), or its harmless twin (control). */
static bool harm;
/* Set by SIGTERM: every attacker thread stops. */
static atomic_int stop;
/* The victim's CPU, where lock-holder and expiry-flood pin their threads. */
static int vcpu;
static uint64_t tick_ns = MS;
static int ncpus;

static void die(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hwtimer_isolation: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(e));
	va_end(ap);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / SEC, ns % SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool stopping(void)
{
	return atomic_load_explicit(&stop, memory_order_relaxed);
}

static unsigned long read_param(const char *name, unsigned long dflt)
{
	char path[128];
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%lu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pin to CPU %d", cpu);
}

static void set_idle(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		die("SCHED_IDLE");
}

static void start_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	errno = pthread_create(&t, NULL, fn, arg);
	if (errno)
		die("pthread_create");
	pthread_detach(t);
}

static int open_dev(int flags)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC | flags);

	if (fd < 0)
		die("open " DEV);
	return fd;
}

static int arm_one(int fd, uint64_t deadline, uint64_t period, uint32_t flags,
		   uint64_t *id)
{
	struct hwtimer_arm_req r = {
		.deadline_ns = deadline, .period_ns = period,
		.clock = CLOCK_MONOTONIC, .flags = flags,
	};

	if (ioctl(fd, HWTIMER_IOC_ARM, &r))
		return -errno;
	if (id)
		*id = r.id;
	return 0;
}

static void learn_tick(void)
{
	struct hwtimer_api a = { .api = HWTIMER_API };
	int fd = open_dev(0);

	if (ioctl(fd, HWTIMER_IOC_API, &a))
		die("HWTIMER_IOC_API");
	tick_ns = a.tick_ns;
	close(fd);
}

/* ---- timer rings (hwtimer_rings.h) ---- */

static void ring_open(int fd, struct ring *r, uint32_t sq, uint32_t cq)
{
	memset(r, 0, sizeof(*r));
	ring_req(&r->s, sq, cq, 1);
	if (ioctl(fd, HWTIMER_IOC_RING_SETUP, &r->s))
		die("RING_SETUP %u/%u", sq, cq);
	if (ring_mmap(fd, r))
		die("mmap rings");
}

/* Every entry of the submission ring becomes @op on slot 0. */
static void ring_fill_op(struct ring *r, uint32_t op)
{
	uint32_t i;

	memset(r->sqes, 0, r->s.sq_entries * sizeof(*r->sqes));
	for (i = 0; i < r->s.sq_entries; i++)
		r->sqes[i].op = op;
}

/* Queue every free place of the ring as it stands (its entries unchanged). */
static void ring_fill(struct ring *r)
{
	uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);

	if (*r->sq_tail != head + r->s.sq_entries)
		__atomic_store_n(r->sq_tail, head + r->s.sq_entries,
				 __ATOMIC_RELEASE);
}

/* ---- attacker threads every class may use ---- */

static void *busy_fn(void *arg)
{
	pin_self((int)(intptr_t)arg);
	while (!stopping())
		;
	return NULL;
}

/* @n normal busy threads on @cpu, or one on every CPU for -1. */
static void start_busy(int cpu, int n)
{
	int i;

	for (i = 0; i < n; i++)
		start_thread(busy_fn, (void *)(intptr_t)(cpu < 0 ? i : cpu));
}

/* ---- drain-stall ---- */

struct stall {
	int fd;
	struct ring r;
	bool fill;	/* this thread refills the ring before its ENTER */
};

static void *stall_fn(void *arg)
{
	struct stall *s = arg;

	set_idle();
	while (!stopping()) {
		if (!harm) {
			syscall(SYS_getppid);
			continue;
		}
		if (s->fill)
			ring_fill(&s->r);
		ring_enter(s->fd);
	}
	return NULL;
}

static void setup_drain_stall(void)
{
	int n = (int)read_param("workers", 2) + 2, i;
	struct stall *s = calloc(2 * n, sizeof(*s));

	if (!s)
		die("calloc");
	for (i = 0; i < n; i++) {
		s[2 * i].fd = open_dev(0);
		ring_open(s[2 * i].fd, &s[2 * i].r, DS_SQ, 16);
		ring_fill_op(&s[2 * i].r, HWTIMER_SQE_NOP);
		s[2 * i].fill = true;
		s[2 * i + 1] = s[2 * i];
		s[2 * i + 1].fill = false;
	}
	start_busy(-1, ncpus);
	for (i = 0; i < 2 * n; i++)
		start_thread(stall_fn, &s[i]);
	printf("ready drain-stall: %d rings of %d NOPs, %d SCHED_IDLE ENTER threads, %d busy\n",
	       n, DS_SQ, 2 * n, ncpus);
}

/* ---- nop-flood ---- */

struct flood {
	int fd;
	struct ring r;
};

/* The rings of nop-flood, and how many; thread @cpu serves every ncpus-th. */
static struct flood *floods;
static int nfloods;

/* Queue the whole ring again, over the NOPs already in it. */
static void flood_ring(struct flood *f)
{
	uint32_t head = __atomic_load_n(f->r.sq_head, __ATOMIC_ACQUIRE);

	if (harm && *f->r.sq_tail != head + NF_SQ)
		__atomic_store_n(f->r.sq_tail, head + NF_SQ, __ATOMIC_RELEASE);
}

static void *flood_fn(void *arg)
{
	int cpu = (int)(intptr_t)arg, i;

	pin_self(cpu);
	/*
	 * Once, so that a drain that went idle during the setup runs again:
	 * from here on the ring is never empty and its drain never stops.
	 */
	for (i = cpu; i < nfloods; i += ncpus) {
		flood_ring(&floods[i]);
		ring_enter(floods[i].fd);
	}
	while (!stopping())
		for (i = cpu; i < nfloods; i += ncpus)
			flood_ring(&floods[i]);
	return NULL;
}

static void setup_nop_flood(void)
{
	int i;

	nfloods = (int)read_param("workers", 2) + 2;
	if (nfloods < ncpus)
		nfloods = ncpus;
	floods = calloc(nfloods, sizeof(*floods));
	if (!floods)
		die("calloc");
	for (i = 0; i < nfloods; i++) {
		floods[i].fd = open_dev(0);
		ring_open(floods[i].fd, &floods[i].r, NF_SQ, 16);
		ring_fill_op(&floods[i].r, HWTIMER_SQE_NOP);
	}
	for (i = 0; i < ncpus; i++)
		start_thread(flood_fn, (void *)(intptr_t)i);
	printf("ready nop-flood: %d rings of %d NOPs, a thread on each of %d CPUs\n",
	       nfloods, NF_SQ, ncpus);
}

/* ---- lock-holder ---- */

struct holder {
	int fd;
	uint64_t ids[LH_FAR];
};

/* Arm @n timeouts @deadline (flags @flags) ahead, period @period, on @fd. */
static void batch_arm(int fd, unsigned int n, uint64_t deadline,
		      uint64_t period, uint32_t flags, uint64_t *ids)
{
	struct hwtimer_batch_op *ops = calloc(EF_CHUNK, sizeof(*ops));
	struct hwtimer_batch b;
	unsigned int i, k, done = 0;

	if (!ops)
		die("calloc");
	while (done < n) {
		k = n - done < EF_CHUNK ? n - done : EF_CHUNK;
		memset(ops, 0, k * sizeof(*ops));
		for (i = 0; i < k; i++) {
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].flags = flags;
			ops[i].deadline_ns = deadline;
			ops[i].period_ns = period;
			ops[i].clock = CLOCK_MONOTONIC;
		}
		memset(&b, 0, sizeof(b));
		b.ops = (uintptr_t)ops;
		b.count = k;
		if (ioctl(fd, HWTIMER_IOC_BATCH, &b) || b.failed)
			die("BATCH of %u arms (%u failed)", k, b.failed);
		for (i = 0; ids && i < k; i++)
			ids[done + i] = ops[i].id;
		done += k;
	}
	free(ops);
}

/* One round of a lock holder: BATCH, ARM + CANCEL, read what fired. */
static void holder_round(struct holder *h, unsigned int *k)
{
	struct hwtimer_batch_op ops[LH_MODIFY + LH_SHORT];
	struct hwtimer_event evs[64];
	struct hwtimer_cancel_req c;
	struct hwtimer_batch b;
	uint64_t id = 0;
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < LH_MODIFY; i++, (*k)++) {
		ops[i].op = HWTIMER_OP_MODIFY;
		ops[i].id = h->ids[*k % LH_FAR];
		ops[i].deadline_ns = 1000 * SEC + (*k % 1000) * tick_ns;
	}
	for (; i < LH_MODIFY + LH_SHORT; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].deadline_ns = tick_ns;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	memset(&b, 0, sizeof(b));
	b.ops = (uintptr_t)ops;
	b.count = LH_MODIFY + LH_SHORT;
	ioctl(h->fd, HWTIMER_IOC_BATCH, &b);
	if (!arm_one(h->fd, 1000 * SEC, 0, 0, &id)) {
		memset(&c, 0, sizeof(c));
		c.id = id;
		ioctl(h->fd, HWTIMER_IOC_CANCEL, &c);
	}
	while (read(h->fd, evs, sizeof(evs)) == sizeof(evs))
		;
}

static void *holder_fn(void *arg)
{
	struct holder *h = arg;
	unsigned int k = 0;

	pin_self(vcpu);
	set_idle();
	while (!stopping()) {
		if (harm)
			holder_round(h, &k);
		else
			syscall(SYS_getppid);
	}
	return NULL;
}

/* The contexts of lock-holder, and how many. */
static struct holder *holders;
static int nholders;

/*
 * Normal priority, on the victim's CPU: every tick, take each context's
 * records and arm it a one-shot a tick ahead, so that the CPU's workers
 * keep running callbacks that need the contexts' locks. Its calls block
 * while a starved thread holds a lock; the busy threads starve on.
 */
static void *feeder_fn(void *arg)
{
	struct hwtimer_event evs[64];
	int i;

	pin_self(vcpu);
	while (!stopping()) {
		for (i = 0; i < nholders; i++) {
			if (!harm) {
				syscall(SYS_getppid);
				continue;
			}
			while (read(holders[i].fd, evs, sizeof(evs)) > 0)
				;
			arm_one(holders[i].fd, tick_ns, 0, 0, NULL);
		}
		sleep_ns(tick_ns);
	}
	return NULL;
}

static void setup_lock_holder(void)
{
	int n = (int)read_param("workers", 2) + 2, i;
	struct holder *h = calloc(n, sizeof(*h));

	if (!h)
		die("calloc");
	/* The far timeouts go to the victim CPU's base, as the short ones. */
	pin_self(vcpu);
	for (i = 0; i < n; i++) {
		h[i].fd = open_dev(O_NONBLOCK);
		batch_arm(h[i].fd, LH_FAR, 1000 * SEC, 0, 0, h[i].ids);
	}
	holders = h;
	nholders = n;
	start_busy(vcpu, 2);
	start_thread(feeder_fn, NULL);
	for (i = 0; i < n * LH_THREADS; i++)
		start_thread(holder_fn, &h[i % n]);
	printf("ready lock-holder: %d contexts of %d far timeouts, %d SCHED_IDLE\n",
	       n, LH_FAR, n * LH_THREADS);
	printf("# ioctl threads, a feeder and 2 busy threads on CPU %d\n", vcpu);
}

/* ---- expiry-flood ---- */

static void *reader_fn(void *arg)
{
	struct hwtimer_event *evs = calloc(EF_CHUNK, sizeof(*evs));
	int fd = (int)(intptr_t)arg;

	if (!evs)
		die("calloc");
	pin_self(vcpu);
	while (!stopping())
		if (read(fd, evs, EF_CHUNK * sizeof(*evs)) < 0 && errno != EAGAIN)
			die("read");
	return NULL;
}

static void setup_expiry_flood(void)
{
	uint64_t first = now_ns() + 100 * MS;
	int fds[EF_CTX], i;

	first -= first % EF_PERIOD;
	pin_self(vcpu);
	for (i = 0; i < EF_CTX; i++) {
		fds[i] = open_dev(O_NONBLOCK);
		if (harm)
			batch_arm(fds[i], EF_N / EF_CTX, first, EF_PERIOD,
				  HWTIMER_ARM_ABS, NULL);
	}
	for (i = 0; i < EF_CTX; i++)
		start_thread(reader_fn, (void *)(intptr_t)fds[i]);
	printf("ready expiry-flood: %d periodic %" PRIu64 " ms timeouts\n",
	       harm ? EF_N : 0, EF_PERIOD / MS);
	printf("# due together, %d readers on CPU %d\n", EF_CTX, vcpu);
}

/* ---- many-contexts ---- */

struct mc_ring {
	int fd;
	struct ring r;
};

struct mover {
	struct mc_ring *rings;
	int n;
};

/* Make room in the completion ring and refill the submission ring. */
static void mover_round(struct mc_ring *m)
{
	struct ring *r = &m->r;
	uint32_t head, tail;

	tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
	if (!harm)
		return;
	if (*r->cq_head != tail)
		__atomic_store_n(r->cq_head, tail, __ATOMIC_RELEASE);
	head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	if (*r->sq_tail == head + MC_SQ)
		return;
	__atomic_store_n(r->sq_tail, head + MC_SQ, __ATOMIC_RELEASE);
	ring_kick(m->fd, r);
}

static void *mover_fn(void *arg)
{
	struct mover *mv = arg;
	int i;

	while (!stopping())
		for (i = 0; i < mv->n; i++)
			mover_round(&mv->rings[i]);
	return NULL;
}

/* Contexts [@from, @to) of many-contexts, and the thread of their rings. */
static void mc_share(int from, int to)
{
	struct mover *mv = calloc(1, sizeof(*mv));
	int i, fd;

	if (!mv)
		die("calloc");
	mv->rings = calloc(to - from, sizeof(*mv->rings));
	if (!mv->rings)
		die("calloc");
	for (i = from; i < to; i++) {
		fd = open_dev(0);
		if (harm && arm_one(fd, tick_ns, tick_ns, 0, NULL))
			die("arm a periodic timeout");
		if (i % MC_RING_EVERY)
			continue;
		mv->rings[mv->n].fd = fd;
		ring_open(fd, &mv->rings[mv->n].r, MC_SQ, MC_CQ);
		ring_fill_op(&mv->rings[mv->n].r, HWTIMER_SQE_CANCEL);
		mv->n++;
	}
	start_thread(mover_fn, mv);
}

/* Raise the fd limit as far as it goes; return: contexts per process. */
static int mc_per_process(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit");
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur <= 2 * FD_SPARE)
		return FD_SPARE;
	return rl.rlim_cur - FD_SPARE < MC_CTX ? rl.rlim_cur - FD_SPARE : MC_CTX;
}

static pid_t mc_kids[MC_CTX / FD_SPARE + 1];
static int mc_nkids;

/* Sleep until SIGTERM, which is blocked but here. */
static void wait_term(void)
{
	sigset_t none;

	sigemptyset(&none);
	while (!stopping())
		sigsuspend(&none);
}

/* Fork a process for contexts [@from, @to); it reports on @ready. */
static void mc_fork(int from, int to, int ready)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid) {
		mc_kids[mc_nkids++] = pid;
		return;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mc_share(from, to);
	if (write(ready, "r", 1) != 1)
		die("write");
	wait_term();
	_exit(0);
}

static void setup_many_contexts(void)
{
	int per = mc_per_process(), from, p[2], i;
	char c;

	if (pipe(p))
		die("pipe");
	for (from = per; from < MC_CTX; from += per)
		mc_fork(from, from + per < MC_CTX ? from + per : MC_CTX, p[1]);
	mc_share(0, per < MC_CTX ? per : MC_CTX);
	for (i = 0; i < mc_nkids; i++)
		if (read(p[0], &c, 1) != 1)
			die("a many-contexts process failed");
	printf("ready many-contexts: %d contexts in %d processes, %s\n",
	       MC_CTX, mc_nkids + 1,
	       harm ? "each with a 1-tick periodic timeout" : "nothing armed");
	printf("# one in %d with a ring of %d/%d%s\n", MC_RING_EVERY, MC_SQ,
	       MC_CQ, harm ? " kept busy" : "");
}

/* ---- attacker main ---- */

static void on_term(int sig)
{
	atomic_store(&stop, 1);
}

static int attacker(const char *cls)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t term;
	int i;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	sigaction(SIGTERM, &sa, NULL);
	learn_tick();
	if (!strcmp(cls, "drain-stall"))
		setup_drain_stall();
	else if (!strcmp(cls, "nop-flood"))
		setup_nop_flood();
	else if (!strcmp(cls, "lock-holder"))
		setup_lock_holder();
	else if (!strcmp(cls, "expiry-flood"))
		setup_expiry_flood();
	else if (!strcmp(cls, "many-contexts"))
		setup_many_contexts();
	else
		return 2;
	fflush(stdout);
	wait_term();
	for (i = 0; i < mc_nkids; i++)
		kill(mc_kids[i], SIGTERM);
	for (i = 0; i < mc_nkids; i++)
		waitpid(mc_kids[i], NULL, 0);
	_exit(0);
}

/* ---- CPU accounting from /proc ---- */

struct cpu_use {
	uint64_t kthreads;	/* clock ticks of hwtimer's kthreads */
	uint64_t user;		/* clock ticks of the attacker uid's processes */
};

/* The real uid of process @pid, from /proc/@pid/status; -1 if gone. */
static uid_t proc_uid(const char *pid)
{
	char path[64], line[128];
	unsigned int uid = (unsigned int)-1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

/* Add /proc/@pid's utime + stime to @c if it is one of ours to count. */
static void cpu_add(const char *pid, uid_t uid, struct cpu_use *c)
{
	unsigned long flags, ut, st;
	char path[64], buf[512], *p;
	bool kthread;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* Fields 3 to 15: state ... flags (9) ... utime (14) stime (15). */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %lu %lu",
			 &flags, &ut, &st) != 3)
		return;
	kthread = flags & PF_KTHREAD;
	if (kthread && !strncmp(strchr(buf, '(') + 1, "hwtimer/", 8))
		c->kthreads += ut + st;
	else if (!kthread && proc_uid(pid) == uid)
		c->user += ut + st;
}

static void cpu_sample(uid_t uid, struct cpu_use *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	memset(c, 0, sizeof(*c));
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			cpu_add(de->d_name, uid, c);
	closedir(d);
}

/* ---- the victim's stall watch ---- */

/*
 * A thread per CPU at the highest SCHED_FIFO priority sleeps HB_PERIOD at
 * a time. When it wakes more than HB_STALL late, nothing in the guest kept
 * it off its CPU (it preempts every task): the vCPU did not run (the host
 * did not schedule it) or the kernel ran without preemption. That span is
 * a stall of the CPU.
 */
#define HB_PERIOD	(1 * MS)
#define HB_STALL	(2 * MS)
#define HB_MAX		4096

struct watch {
	int cpu;
	unsigned int n;		/* stalls seen, at most HB_MAX kept */
	uint64_t from[HB_MAX];	/* when the thread should have run */
	uint64_t to[HB_MAX];	/* when it did */
};

static struct watch *watches;
static atomic_int watch_stop;

static void *watch_fn(void *arg)
{
	struct sched_param sp = { sched_get_priority_max(SCHED_FIFO) };
	struct timespec ts = { 0, HB_PERIOD };
	struct watch *w = arg;
	uint64_t t0, t1;

	pin_self(w->cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("SCHED_FIFO");
	t0 = now_ns();
	while (!atomic_load(&watch_stop)) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		t1 = now_ns();
		if (t1 - t0 > HB_PERIOD + HB_STALL && w->n < HB_MAX) {
			w->from[w->n] = t0 + HB_PERIOD;
			w->to[w->n] = t1;
			w->n++;
		}
		t0 = t1;
	}
	return NULL;
}

static void watch_start(void)
{
	int i;

	watches = calloc(ncpus, sizeof(*watches));
	if (!watches)
		die("calloc");
	for (i = 0; i < ncpus; i++) {
		watches[i].cpu = i;
		start_thread(watch_fn, &watches[i]);
	}
}

/* Time of [@a, @b) during which CPU @cpu stalled. */
static uint64_t stalled(int cpu, uint64_t a, uint64_t b)
{
	const struct watch *w = &watches[cpu];
	uint64_t sum = 0, x, y;
	unsigned int i;

	for (i = 0; i < w->n && i < HB_MAX; i++) {
		x = w->from[i] > a ? w->from[i] : a;
		y = w->to[i] < b ? w->to[i] : b;
		if (y > x)
			sum += y - x;
	}
	return sum;
}

/* The most of [@a, @b) any one CPU stalled. */
static uint64_t stalled_any(uint64_t a, uint64_t b)
{
	uint64_t most = 0, t;
	int i;

	for (i = 0; i < ncpus; i++) {
		t = stalled(i, a, b);
		if (t > most)
			most = t;
	}
	return most;
}

/* ---- the victim ---- */

/*
 * The expiries of one path: deadline, fire time, and when the record was
 * in hand. Lateness is worked out after the window, once the stalls that
 * ended during it are known.
 */
struct lat {
	uint64_t deadline[VICTIM_MAX];
	uint64_t fire[VICTIM_MAX];
	uint64_t wake[VICTIM_MAX];
	unsigned int n;
};

static struct lat lat_ioctl, lat_ring, lat_kernel;
static unsigned int early, lost;

/* Note one expiry of deadline @deadline, served at @fire, in hand at @t. */
static void note(struct lat *l, uint64_t deadline, uint64_t fire, uint64_t t)
{
	if (fire < deadline || t < deadline) {
		printf("# victim: a record early: deadline %" PRIu64 " fire %"
		       PRIu64 " read at %" PRIu64 "\n", deadline, fire, t);
		early++;
	}
	if (l->n == VICTIM_MAX)
		return;
	l->deadline[l->n] = deadline;
	l->fire[l->n] = fire;
	l->wake[l->n] = t;
	l->n++;
}

/* The slowest HWTIMER_IOC_ARM of the victim's. */
static uint64_t arm_call_max;

/*
 * One timeout through HWTIMER_IOC_ARM and read(). Its lateness counts from
 * 5 ms after the call began, what the victim asked for: a call that waits
 * makes the timeout that much late. Return: false if lost.
 */
static bool sample_ioctl(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct hwtimer_event ev;
	uint64_t id = 0, t0 = now_ns(), t;

	if (arm_one(fd, VICTIM_AHEAD, 0, 0, &id))
		die("victim: ARM");
	t = now_ns() - t0;
	if (t > arm_call_max)
		arm_call_max = t;
	for (;;) {
		if (read(fd, &ev, sizeof(ev)) == sizeof(ev))
			break;
		if (errno != EAGAIN)
			die("victim: read");
		if (now_ns() - t0 > VICTIM_LOST)
			return false;
		poll(&p, 1, 100);
	}
	if (ev.id != id) {
		printf("# victim: a record not its own (id %" PRIx64 ")\n",
		       (uint64_t)ev.id);
		early++;
	}
	if (ev.deadline_ns < t0 + VICTIM_AHEAD) {
		printf("# victim: a deadline before the one asked for\n");
		early++;
	}
	note(&lat_ioctl, t0 + VICTIM_AHEAD, ev.fire_ns, now_ns());
	return true;
}

/* Wait for the expiry of slot 0 in the completion ring. */
static bool ring_wait(int fd, struct ring *r, uint64_t t0,
		      struct hwtimer_event *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		while (cq_pop(r, ev)) {
			if (!(ev->flags & HWTIMER_EVENT_SQE))
				return true;
			printf("# victim: ring entry refused (%" PRId64 ")\n",
			       (int64_t)ev->res);
			early++;
		}
		if (now_ns() - t0 > VICTIM_LOST)
			return false;
		poll(&p, 1, 100);
	}
}

/* One timeout through the victim's ring. Return: false if lost. */
static bool sample_ring(int fd, struct ring *r, uint64_t cookie)
{
	uint32_t tail = *r->sq_tail;
	struct hwtimer_event ev;
	struct hwtimer_sqe *e;
	uint64_t t0 = now_ns();

	e = &r->sqes[tail & (r->s.sq_entries - 1)];
	memset(e, 0, sizeof(*e));
	e->op = HWTIMER_SQE_ARM;
	e->deadline_ns = t0 + VICTIM_AHEAD;
	e->cookie = cookie;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	ring_kick(fd, r);
	if (!ring_wait(fd, r, t0, &ev))
		return false;
	if (ev.id != 0 || ev.cookie != cookie ||
	    ev.deadline_ns != t0 + VICTIM_AHEAD) {
		printf("# victim: a ring record not its own\n");
		early++;
	}
	note(&lat_ring, ev.deadline_ns, ev.fire_ns, now_ns());
	return true;
}

/* Wait until @pid wrote "ready" into @file; false if it died first. */
static bool wait_ready(pid_t pid, const char *file)
{
	uint64_t end = now_ns() + READY_WAIT;
	char line[256], path[64], state;
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	while (!ok && now_ns() < end) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%*d %*s %c", &state) != 1 || state == 'Z') {
			if (f)
				fclose(f);
			return false;
		}
		fclose(f);
		f = fopen(file, "r");
		while (f && !ok && fgets(line, sizeof(line), f))
			ok = !strncmp(line, "ready", 5);
		if (f)
			fclose(f);
		if (!ok)
			sleep_ns(20 * MS);
	}
	return ok;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile @q of sorted @v[@n], in us. */
static uint64_t pct_us(const uint64_t *v, unsigned int n, double q)
{
	unsigned int i = (unsigned int)(q * n + 0.999999);

	if (!n)
		return 0;
	return v[i ? i - 1 : 0] / 1000;
}

/*
 * Print one series of @n samples as "# " and as key lines to @out: p50,
 * p99 and max.
 */
static void report(FILE *out, const char *key, uint64_t *v, unsigned int n)
{
	uint64_t p50, p99, max;

	qsort(v, n, sizeof(*v), cmp_u64);
	p50 = pct_us(v, n, 0.5);
	p99 = pct_us(v, n, 0.99);
	max = pct_us(v, n, 1.0);
	printf("#   %-10s n %4u  p50 %8.3f  p99 %8.3f  max %8.3f ms\n",
	       key, n, p50 / 1e3, p99 / 1e3, max / 1e3);
	fprintf(out, "%s_n %u\n%s_p50 %" PRIu64 "\n%s_p99 %" PRIu64
		"\n%s_max %" PRIu64 "\n", key, n, key, p50, key, p99, key, max);
}

/*
 * The lateness of @l's expiries, for @path ("ioctl" or "ring"): served
 * (fire), served less the time a CPU stalled meanwhile (net: CPU @cpu's,
 * or with @cpu < 0 the most of any CPU's), and in hand (wake).
 */
static void report_path(FILE *out, const char *path, struct lat *l, int cpu)
{
	uint64_t *fire = calloc(l->n + 1, sizeof(*fire));
	uint64_t *net = calloc(l->n + 1, sizeof(*net));
	uint64_t *wake = calloc(l->n + 1, sizeof(*wake));
	uint64_t d, st;
	char key[32];
	unsigned int i;

	if (!fire || !net || !wake)
		die("calloc");
	for (i = 0; i < l->n; i++) {
		d = l->deadline[i];
		fire[i] = l->fire[i] > d ? l->fire[i] - d : 0;
		wake[i] = l->wake[i] > d ? l->wake[i] - d : 0;
		st = cpu < 0 ? stalled_any(d, l->fire[i]) :
			       stalled(cpu, d, l->fire[i]);
		net[i] = fire[i] > st ? fire[i] - st : 0;
	}
	snprintf(key, sizeof(key), "%s_fire", path);
	report(out, key, fire, l->n);
	snprintf(key, sizeof(key), "%s_net", path);
	report(out, key, net, l->n);
	snprintf(key, sizeof(key), "%s_wake", path);
	report(out, key, wake, l->n);
	free(fire);
	free(net);
	free(wake);
}

/* The stalls each CPU's watch saw: how many, in all, the longest. */
static void report_stalls(FILE *out)
{
	uint64_t sum, longest, t;
	unsigned int i;
	int c;

	for (c = 0; c < ncpus; c++) {
		sum = 0;
		longest = 0;
		for (i = 0; i < watches[c].n && i < HB_MAX; i++) {
			t = watches[c].to[i] - watches[c].from[i];
			sum += t;
			if (t > longest)
				longest = t;
		}
		printf("#   CPU %d stalled %u times, %" PRIu64 " ms in all, longest %"
		       PRIu64 " ms\n", c, watches[c].n, sum / MS, longest / MS);
		fprintf(out, "stall%d_ms %" PRIu64 "\nstall%d_longest_ms %" PRIu64
			"\n", c, sum / MS, c, longest / MS);
	}
}

/*
 * The kernel victim's expiries whose deadlines fall in [@t0, @t1], from
 * hwtimer_kvictim's ring (tools/testing/kvictim), into lat_kernel: its
 * kthread, bound to the victim's CPU, arms one-shots 5 ms ahead on the
 * default wheel one at a time throughout. A fire time of 0 is a timeout
 * lost. Return: whether the module is there (and on CLOCK_MONOTONIC).
 */
static bool kernel_samples(uint64_t t0, uint64_t t1)
{
	FILE *f = fopen(KVICTIM, "r");
	unsigned long long d, fire;
	int clock = -1;

	if (!f)
		return false;
	if (fscanf(f, "clock %d", &clock) != 1 || clock != CLOCK_MONOTONIC) {
		fclose(f);
		return false;
	}
	while (fscanf(f, "%llu %llu", &d, &fire) == 2) {
		if (d < t0 || d > t1)
			continue;
		if (!fire) {
			printf("# kernel victim: no callback 30 s after deadline %llu\n",
			       d);
			lost++;
			continue;
		}
		note(&lat_kernel, d, fire, fire);
	}
	fclose(f);
	return true;
}

/* The victim's window: alternate the two paths for @secs seconds. */
static void victim_run(int fd, struct ring *r, unsigned int secs)
{
	uint64_t end = now_ns() + secs * SEC, i;

	for (i = 0; now_ns() < end; i++) {
		if (!sample_ioctl(fd) || !sample_ring(fd, r, i)) {
			printf("# victim: no record %" PRIu64 " s after its deadline\n",
			       VICTIM_LOST / SEC);
			lost++;
			return;
		}
	}
}

static int victim(pid_t pid, const char *ready, const char *outp,
		  unsigned int secs, uid_t uid)
{
	struct cpu_use c0, c1;
	uint64_t t0, t1;
	long hz = sysconf(_SC_CLK_TCK);
	struct ring r;
	FILE *out;
	int fd;

	pin_self(vcpu);
	if (!wait_ready(pid, ready)) {
		printf("# the attacker died or never got ready\n");
		return 2;
	}
	sleep_ns(SETTLE);
	fd = open_dev(O_NONBLOCK);
	ring_open(fd, &r, 16, 16);
	watch_start();
	cpu_sample(uid, &c0);
	t0 = now_ns();
	victim_run(fd, &r, secs);
	t1 = now_ns();
	cpu_sample(uid, &c1);
	atomic_store(&watch_stop, 1);
	/* Let each watch note a stall it is in, at most HB_PERIOD + HB_STALL. */
	sleep_ns(2 * (HB_PERIOD + HB_STALL));
	close(fd);
	out = fopen(outp, "w");
	if (!out)
		die("open %s", outp);
	/* ioctl: armed on the victim's CPU, woken by its workers there. */
	report_path(out, "ioctl", &lat_ioctl, vcpu);
	/* ring: armed by a drain on any CPU, its wake-up on that CPU's base. */
	report_path(out, "ring", &lat_ring, -1);
	/* kernel: armed and served on the victim's CPU, as ioctl. */
	if (kernel_samples(t0, t1))
		report_path(out, "kernel", &lat_kernel, vcpu);
	report_stalls(out);
	printf("#   slowest ARM call %.3f ms\n", arm_call_max / 1e6);
	fprintf(out, "arm_call_max_us %" PRIu64 "\n", arm_call_max / 1000);
	printf("#   CPU over %" PRIu64 " ms: hwtimer kthreads %" PRIu64
	       " ms, uid %u %" PRIu64 " ms\n", (t1 - t0) / MS,
	       (c1.kthreads - c0.kthreads) * 1000 / hz, (unsigned int)uid,
	       (c1.user - c0.user) * 1000 / hz);
	fprintf(out, "window_ms %" PRIu64 "\nkthread_ms %" PRIu64
		"\nuser_ms %" PRIu64 "\nearly %u\nlost %u\n", (t1 - t0) / MS,
		(c1.kthreads - c0.kthreads) * 1000 / hz,
		(c1.user - c0.user) * 1000 / hz, early, lost);
	fclose(out);
	return early || lost ? 1 : 0;
}

/*
 * tags N RINGS: open up to N contexts, and set up a ring on the first
 * RINGS of them, stopping at the first failure; print how many of each
 * succeeded and the errno that stopped it, then hold them until killed
 * (the fragment checks another user's open meanwhile).
 */
static int tags(int n, int rings)
{
	struct hwtimer_ring_setup rs;
	int i, opened = 0, set = 0, err = 0, fd;

	for (i = 0; i < n && !err; i++) {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			break;
		}
		opened++;
		if (i >= rings)
			continue;
		memset(&rs, 0, sizeof(rs));
		rs.sq_entries = 2;
		rs.cq_entries = 2;
		rs.slots = 1;
		rs.clock = CLOCK_MONOTONIC;
		if (ioctl(fd, HWTIMER_IOC_RING_SETUP, &rs))
			err = errno;
		else
			set++;
	}
	printf("contexts %d rings %d stopped %s\n", opened, set,
	       err ? strerror(err) : "no");
	fflush(stdout);
	pause();
	return 0;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: hwtimer_isolation attack|control CLASS [-c cpu]\n"
		"       hwtimer_isolation victim -p pid -r readyfile [-c cpu] [-s secs] [-o out] [-u uid]\n"
		"       hwtimer_isolation tags N RINGS\n"
		"  CLASS: drain-stall nop-flood lock-holder expiry-flood many-contexts\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "", *ready = NULL;
	const char *out = "/dev/null", *cls = NULL;
	unsigned int secs = 3;
	uid_t uid = 65534;
	pid_t pid = 0;
	int c;

	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "tags") && argc == 4)
		return tags(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(mode, "attack") || !strcmp(mode, "control")) {
		if (argc < 3)
			print_usage();
		harm = !strcmp(mode, "attack");
		cls = argv[2];
		optind = 3;
	} else if (!strcmp(mode, "victim")) {
		optind = 2;
	} else {
		print_usage();
	}
	while ((c = getopt(argc, argv, "c:p:r:s:o:u:")) != -1) {
		switch (c) {
		case 'c':
			vcpu = atoi(optarg);
			break;
		case 'p':
			pid = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 's':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'u':
			uid = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage();
		}
	}
	if (cls)
		return attacker(cls);
	if (!pid || !ready)
		print_usage();
	return victim(pid, ready, out, secs, uid);
}
