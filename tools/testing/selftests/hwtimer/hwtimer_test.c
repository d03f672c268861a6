// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_test - userspace selftests of /dev/hwtimer's ioctls, read(),
 * poll(), eventfd, BATCH and limits, on kselftest_harness.h; the timer
 * rings' are hwtimer_ring.c's. What they share is in hwtimer_test.h.
 */
#include "hwtimer_test.h"

/* ---- regression checks: races, faults, signals, limits ---- */

/* Slab poison of a freed object (slub_debug=P): what a use-after-free reads. */
#define POISON64	0x6b6b6b6b6b6b6b6bULL
/* Status and header words the kernel never writes: "not written back". */
#define SENTINEL32	0x55555555U

/* One anonymous mapping of @pages pages, read-write. */
static void *map_pages(struct __test_metadata *_metadata, size_t pages,
		       bool shared)
{
	void *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(p != MAP_FAILED) {
		TH_LOG("mmap: %s", strerror(errno));
	}
	return p;
}

/* Last signal on_sig() caught; atomic, as the handler may run any time. */
static int sig_seen;

static void on_sig(int sig)
{
	__atomic_store_n(&sig_seen, sig, __ATOMIC_SEQ_CST);
}

static int seen_sig(void)
{
	return __atomic_load_n(&sig_seen, __ATOMIC_SEQ_CST);
}

/* Install on_sig for @sig without SA_RESTART; the old action into @old. */
static void catch_sig(int sig, struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_sig };

	sigemptyset(&sa.sa_mask);
	__atomic_store_n(&sig_seen, 0, __ATOMIC_SEQ_CST);
	sigaction(sig, &sa, old);
}

/*
 * ARM and BATCH racing readers on already-due one-shots. Each arm has its
 * own cookie; at the end every cookie armed must have come back in exactly
 * one record, with the id ARM returned. An ARM that returns the id of a
 * timer freed meanwhile (fired, read and reaped between the arm and the
 * copy-out of its id) gives a wrong id: slab poison under slub_debug=P, or
 * a KASAN report on the debug kernel.
 */
#define RACE_ARMERS	3
#define RACE_READERS	2
#define RACE_PER	131072		/* most arms per armer */
#define RACE_MS		3000		/* how long the armers run */
#define RACE_BATCH	16		/* ops per BATCH call */

struct race {
	int fd;
	bool batch;
	int stop_arm;			/* atomic: armers stop */
	int stop_read;			/* atomic: readers stop */
	uint64_t *arm_id;		/* by cookie: id ARM gave, 0 = not armed */
	uint64_t *ev_id;		/* by cookie: id of its record */
	uint32_t *ev_n;			/* by cookie: records seen */
	uint64_t armed;			/* atomic: successful arms */
	uint64_t nread;			/* atomic: records read */
	uint64_t strays;		/* atomic: records with unknown cookies */
	int err;			/* atomic: first unexpected errno */
	uint32_t used[RACE_ARMERS];	/* cookies each armer used */
};

struct racer {
	struct race *r;
	unsigned int idx;
};

static void race_err(struct race *r, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&r->err, &zero, err, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* One ARM per cookie; ENOSPC (readers behind) is retried. */
static void race_arm_one(struct race *r, uint64_t c)
{
	uint64_t id = 0;
	int ret;

	for (;;) {
		ret = arm(r->fd, c, 0, &id);
		if (ret != -ENOSPC)
			break;
		sched_yield();
	}
	if (ret) {
		race_err(r, -ret);
		return;
	}
	r->arm_id[c] = id;
	__atomic_fetch_add(&r->armed, 1, __ATOMIC_SEQ_CST);
}

/* RACE_BATCH ARM ops; a failed op leaves its cookie unarmed. */
static void race_arm_batch(struct race *r, uint64_t c)
{
	struct hwtimer_batch_op ops[RACE_BATCH];
	struct hwtimer_batch b;
	unsigned int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < RACE_BATCH; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = c + i;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	memset(&b, 0, sizeof(b));
	b.ops = (uint64_t)(uintptr_t)ops;
	b.count = RACE_BATCH;
	if (ioctl(r->fd, HWTIMER_IOC_BATCH, &b)) {
		race_err(r, errno);
		return;
	}
	for (i = 0; i < RACE_BATCH; i++) {
		if (ops[i].status) {
			if (ops[i].status != -ENOSPC)
				race_err(r, -ops[i].status);
			continue;
		}
		r->arm_id[c + i] = ops[i].id;
		__atomic_fetch_add(&r->armed, 1, __ATOMIC_SEQ_CST);
	}
}

static void *race_armer(void *arg)
{
	struct racer *me = arg;
	struct race *r = me->r;
	uint64_t base = (uint64_t)me->idx * RACE_PER;
	uint32_t n = 0, step = r->batch ? RACE_BATCH : 1;

	while (!__atomic_load_n(&r->stop_arm, __ATOMIC_SEQ_CST) &&
	       n + step <= RACE_PER && !__atomic_load_n(&r->err, __ATOMIC_SEQ_CST)) {
		if (r->batch)
			race_arm_batch(r, base + n);
		else
			race_arm_one(r, base + n);
		n += step;
	}
	r->used[me->idx] = n;
	return NULL;
}

static void *race_reader(void *arg)
{
	struct race *r = ((struct racer *)arg)->r;
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	struct hwtimer_event ev[64];
	ssize_t n, i;
	uint64_t c;

	while (!__atomic_load_n(&r->stop_read, __ATOMIC_SEQ_CST)) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = read(r->fd, ev, sizeof(ev));
		if (n < 0) {
			if (errno != EAGAIN)
				race_err(r, errno);
			continue;
		}
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
			c = ev[i].cookie;
			if (c >= (uint64_t)RACE_ARMERS * RACE_PER) {
				__atomic_fetch_add(&r->strays, 1, __ATOMIC_SEQ_CST);
				continue;
			}
			r->ev_id[c] = ev[i].id;
			__atomic_fetch_add(&r->ev_n[c], 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_add(&r->nread, 1, __ATOMIC_SEQ_CST);
		}
	}
	return NULL;
}

/* Every cookie armed came back once, with ARM's id. */
static void race_verify(struct __test_metadata *_metadata, struct race *r)
{
	unsigned int a, bad = 0, poisoned = 0, lost = 0;
	uint64_t c, total = 0;
	uint32_t i;

	for (a = 0; a < RACE_ARMERS; a++) {
		total += r->used[a];
		for (i = 0; i < r->used[a]; i++) {
			c = (uint64_t)a * RACE_PER + i;
			if (!r->arm_id[c]) {
				if (r->ev_n[c] && bad++ < 5)
					printf("# cookie %#" PRIx64
					       ": record for a failed arm\n", c);
				continue;
			}
			if (r->arm_id[c] == POISON64)
				poisoned++;
			if (r->ev_n[c] == 0) {
				lost++;
				continue;
			}
			if (r->ev_n[c] != 1 || r->ev_id[c] != r->arm_id[c]) {
				if (bad++ < 5)
					printf("# cookie %#" PRIx64 ": ARM gave id %#" PRIx64
					       ", %u record(s), id %#" PRIx64 "\n", c,
					       r->arm_id[c], r->ev_n[c], r->ev_id[c]);
			}
		}
	}
	printf("# %" PRIu64 " cookies, %" PRIu64 " armed, %" PRIu64 " records read\n",
	       total, r->armed, r->nread);
	EXPECT_TRUE(!r->err) {
		TH_LOG("unexpected error: %s", strerror(r->err));
	}
	EXPECT_TRUE(r->armed > 0) {
		TH_LOG("nothing armed");
	}
	EXPECT_TRUE(!poisoned) {
		TH_LOG("%u ARM(s) returned slab poison %#llx: a freed timer's id",
		       poisoned, POISON64);
	}
	EXPECT_TRUE(!bad) {
		TH_LOG("%u cookie(s) whose ARM id does not match its one record", bad);
	}
	EXPECT_TRUE(!lost) {
		TH_LOG("%u armed cookie(s) never delivered", lost);
	}
	EXPECT_TRUE(!r->strays) {
		TH_LOG("%" PRIu64 " record(s) with cookies nobody armed", r->strays);
	}
}

static void arm_race(struct __test_metadata *_metadata,
		     struct _test_data_ctx *self, bool batch)
{
	struct racer armers[RACE_ARMERS], readers[RACE_READERS];
	pthread_t ta[RACE_ARMERS], tr[RACE_READERS];
	size_t n = (size_t)RACE_ARMERS * RACE_PER;
	struct race r = { .batch = batch };
	uint64_t end;
	unsigned int i;

	r.fd = self->fd;
	r.arm_id = calloc(n, sizeof(*r.arm_id));
	r.ev_id = calloc(n, sizeof(*r.ev_id));
	r.ev_n = calloc(n, sizeof(*r.ev_n));
	ASSERT_TRUE(r.arm_id && r.ev_id && r.ev_n) {
		TH_LOG("setup");
	}
	/* Two readers: the one that loses a record to the other must not block. */
	ASSERT_TRUE(fcntl(r.fd, F_SETFL, O_NONBLOCK) == 0) {
		TH_LOG("O_NONBLOCK");
	}
	for (i = 0; i < RACE_READERS; i++) {
		readers[i] = (struct racer){ &r, i };
		pthread_create(&tr[i], NULL, race_reader, &readers[i]);
	}
	for (i = 0; i < RACE_ARMERS; i++) {
		armers[i] = (struct racer){ &r, i };
		pthread_create(&ta[i], NULL, race_armer, &armers[i]);
	}
	sleep_ms(RACE_MS);
	__atomic_store_n(&r.stop_arm, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < RACE_ARMERS; i++)
		pthread_join(ta[i], NULL);
	/* Every arm is due: wait for its record, bounded for a lost one. */
	end = now_ns(CLOCK_MONOTONIC) + WAIT_MS * MS;
	while (__atomic_load_n(&r.nread, __ATOMIC_SEQ_CST) <
	       __atomic_load_n(&r.armed, __ATOMIC_SEQ_CST) &&
	       now_ns(CLOCK_MONOTONIC) < end)
		sleep_ms(10);
	sleep_ms(50);	/* a duplicate record would come now */
	__atomic_store_n(&r.stop_read, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < RACE_READERS; i++)
		pthread_join(tr[i], NULL);
	race_verify(_metadata, &r);
	free(r.arm_id);
	free(r.ev_id);
	free(r.ev_n);
}

/* Live, pending and queued counts of a context are exactly these. */
/* The context's live, pending and queued counts are exactly these. */
static void assert_ctx_counts(struct __test_metadata *_metadata, int fd,
			      uint64_t live, uint64_t pending, uint64_t queued)
{
	struct hwtimer_stats_req st;

	ASSERT_EQ(0, stats(fd, &st)) {
		TH_LOG("STATS: %s", strerror(errno));
	}
	ASSERT_TRUE(st.ctx_live == live && st.ctx_pending == pending &&
		    st.ctx_queued == queued) {
		TH_LOG("live %" PRIu64 " pending %" PRIu64 " queued %" PRIu64
		       ", want %" PRIu64 "/%" PRIu64 "/%" PRIu64,
		       (uint64_t)st.ctx_live, (uint64_t)st.ctx_pending,
		       (uint64_t)st.ctx_queued, live, pending, queued);
	}
}

/* Arm @n due one-shots with cookies @cookie.. and wait until all are queued. */
static void queue_due(struct __test_metadata *_metadata, int fd,
		      uint64_t cookie, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, arm(fd, cookie + i, 0, NULL)) {
			TH_LOG("arm %d", i);
		}
	}
	ASSERT_TRUE(wait_count(fd, n, false)) {
		TH_LOG("not all %d fired", n);
	}
}

#define GUARD_MS	2000

/*
 * readv() with a guard: SIGALRM after GUARD_MS interrupts a readv() that
 * blocks, and a readv() that had to block fails the test. A read that has
 * records to return does not block, so the guard only fires on a hang.
 * Returns what readv() did, errno kept.
 */
static ssize_t guarded_readv(struct __test_metadata *_metadata, int fd,
			     const struct iovec *iov, int n)
{
	struct itimerval it = { .it_value = { GUARD_MS / 1000,
					      (GUARD_MS % 1000) * 1000 } };
	struct itimerval off = { 0 };
	struct sigaction old;
	ssize_t ret;
	int err;

	catch_sig(SIGALRM, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	ret = readv(fd, iov, n);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	ASSERT_TRUE(seen_sig() != SIGALRM) {
		TH_LOG("readv blocked until the %d ms guard signal, then gave %zd",
		       GUARD_MS, ret);
	}
	errno = err;
	return ret;
}

/* Records parsed from @buf have cookies @cookie..+@n, each once. */
static void cookies_once(struct __test_metadata *_metadata, const void *buf,
			 int n, uint64_t cookie, uint32_t *seen)
{
	struct hwtimer_event ev;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(&ev, (const char *)buf + i * EV, EV);
		ASSERT_TRUE(ev.cookie >= cookie && ev.cookie < cookie + 32 &&
			    !(*seen & 1U << (ev.cookie - cookie)) && ev.id &&
			    ev.flags == HWTIMER_EVENT_LAST) {
			TH_LOG("record %d: cookie %#" PRIx64 " id %#" PRIx64 " flags %#x",
			       i, (uint64_t)ev.cookie, (uint64_t)ev.id, ev.flags);
		}
		*seen |= 1U << (ev.cookie - cookie);
	}
}

/*
 * After a read that faulted with @copied of the @n records from @cookie
 * copied (their cookies in *@seen): a read with room for all @n returns
 * the ones left, and every cookie has come back once. @n < 32, as *@seen
 * is a bitmask.
 */
static void rest_kept(struct __test_metadata *_metadata, int fd, int n,
		      int copied, uint64_t cookie, uint32_t *seen)
{
	unsigned char good[31 * EV];
	ssize_t got;

	got = read_queued(fd, good, n * EV);
	ASSERT_TRUE(got == (n - copied) * EV) {
		TH_LOG("the read after the fault gave %zd (%s), want the %d left", got,
		       got < 0 ? strerror(errno) : "no record: lost", n - copied);
	}
	cookies_once(_metadata, good, n - copied, cookie, seen);
	EXPECT_TRUE(*seen == (1U << n) - 1) {
		TH_LOG("cookies seen %#x, want all %d", *seen, n);
	}
}

/*
 * The long BATCH of batch_signal_no_eintr and batch_sigkill:
 * HWTIMER_BATCH_MAX MODIFYs of one far timeout, which leave no state. Each
 * op's status and result start as SENTINEL32, so that what was written
 * back shows; calling this again resets them.
 */
static struct hwtimer_batch_op *long_batch(uint64_t id, struct hwtimer_batch_op *ops)
{
	uint32_t i;

	for (i = 0; i < HWTIMER_BATCH_MAX; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_MODIFY;
		ops[i].id = id;
		ops[i].deadline_ns = 100000 * MS + i;
		ops[i].status = (int32_t)SENTINEL32;
		ops[i].result = SENTINEL32;
	}
	/* The other side reads the marks as this call left them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return ops;
}

/*
 * Half the long batch. A signal sent while this op was not yet written
 * back came mid-batch, with thousands of chunk boundaries still ahead of
 * the kernel, whatever its chunk size.
 */
#define LONG_BATCH_HALF	(HWTIMER_BATCH_MAX / 2)

/* Whether op @i of @ops was written back: status no longer the sentinel. */
static bool op_written(const struct hwtimer_batch_op *ops, uint32_t i)
{
	return (uint32_t)__atomic_load_n(&ops[i].status, __ATOMIC_SEQ_CST) !=
	       SENTINEL32;
}

/*
 * How far the long batch at @ops got: ops are written back in order, so
 * the index of the first one not yet written back (HWTIMER_BATCH_MAX when
 * all are). Read while the batch runs, it is at least the progress when
 * the scan began.
 */
static uint32_t first_unwritten(const struct hwtimer_batch_op *ops)
{
	uint32_t i;

	for (i = 0; i < HWTIMER_BATCH_MAX && op_written(ops, i); i++)
		;
	return i;
}

/* Ops of @ops written back, wherever they are. */
static uint32_t written_back(const struct hwtimer_batch_op *ops)
{
	uint32_t i, n = 0;

	for (i = 0; i < HWTIMER_BATCH_MAX; i++)
		n += op_written(ops, i);
	return n;
}

/* @ns in whole milliseconds, for the figures the tests print. */
static unsigned int ms_of(uint64_t ns)
{
	return (unsigned int)(ns / MS);
}

struct batch_run {
	int fd;
	struct hwtimer_batch b;
	int finished;			/* atomic */
	int ret;
	int err;
	uint64_t t0, t1;
};

static void *batch_runner(void *arg)
{
	struct batch_run *r = arg;

	r->t0 = now_ns(CLOCK_MONOTONIC);
	r->ret = ioctl(r->fd, HWTIMER_IOC_BATCH, &r->b);
	r->err = errno;
	r->t1 = now_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&r->finished, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void batch_header(struct hwtimer_batch *b, struct hwtimer_batch_op *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = HWTIMER_BATCH_MAX;
	b->done = SENTINEL32;
	b->failed = SENTINEL32;
}

/*
 * Run the long batch at @ops (header in @r) in a thread, and send that
 * thread SIGUSR1 as soon as the first op is written back: the call has
 * run ops by then. Return: how far the batch had got once the signal was
 * sent (first_unwritten() after the send, so at least that far), or
 * HWTIMER_BATCH_MAX if the call ended before an op was seen written.
 */
static uint32_t signal_long_batch(struct batch_run *r,
				  const struct hwtimer_batch_op *ops)
{
	uint32_t at = HWTIMER_BATCH_MAX;
	pthread_t t;

	__atomic_store_n(&r->finished, 0, __ATOMIC_SEQ_CST);
	pthread_create(&t, NULL, batch_runner, r);
	while (!__atomic_load_n(&r->finished, __ATOMIC_SEQ_CST)) {
		if (op_written(ops, 0)) {
			pthread_kill(t, SIGUSR1);
			at = first_unwritten(ops);
			break;
		}
		sched_yield();
	}
	pthread_join(t, NULL);
	return at;
}

/* The long batch whose progress on_batch_sig() records. */
static const struct hwtimer_batch_op *sig_batch_ops;
/* first_unwritten() of it when on_batch_sig() ran; atomic. */
static uint32_t sig_batch_at;

static void on_batch_sig(int sig)
{
	__atomic_store_n(&sig_batch_at, first_unwritten(sig_batch_ops),
			 __ATOMIC_SEQ_CST);
	on_sig(sig);
}

/* A uid nothing else in the VM runs as: its live count starts at 0. */
#define LIMIT_UID	54321

/*
 * The per-user limit @lim across two files of this user: the (lim+1)th live
 * timeout fails with EDQUOT in either file and in a BATCH op, failures leak
 * nothing, a cancel in one file frees room in the other, close frees all.
 */
static void user_limit_body(struct __test_metadata *_metadata,
			    struct _test_data_ctx *self, int lim)
{
	struct hwtimer_batch_op op = { .op = HWTIMER_OP_ARM, .clock = CLOCK_MONOTONIC,
				       .deadline_ns = 100000 * MS };
	int a = open_dev(_metadata, self), b = open_dev(_metadata, self);
	int na = lim * 6 / 10, ret;
	struct hwtimer_batch hb;
	uint64_t id;
	uint32_t res;

	ASSERT_EQ(0, fill_to(a, na)) {
		TH_LOG("%d arms in file A", na);
	}
	ASSERT_EQ(0, fill_to(b, lim - na - 1)) {
		TH_LOG("%d arms in file B", lim - na - 1);
	}
	ASSERT_EQ(0, arm(b, 1, 100000 * MS, &id)) {
		TH_LOG("arm number %d", lim);
	}
	ret = arm(a, 2, 100000 * MS, NULL);
	ASSERT_TRUE(ret == -EDQUOT) {
		TH_LOG("live timeout %d (file A) gave %d, want -EDQUOT", lim + 1, ret);
	}
	ret = arm(b, 2, 100000 * MS, NULL);
	ASSERT_TRUE(ret == -EDQUOT) {
		TH_LOG("live timeout %d (file B) gave %d, want -EDQUOT", lim + 1, ret);
	}
	ASSERT_TRUE(batch(b, &op, 1, &hb) == 0 && hb.failed == 1 && op.status == -EDQUOT) {
		TH_LOG("BATCH arm past the limit: status %d", op.status);
	}
	ASSERT_TRUE(ctx_live(a) == (uint64_t)na && ctx_live(b) == (uint64_t)(lim - na)) {
		TH_LOG("refused arms counted: live %" PRIu64 " + %" PRIu64, ctx_live(a),
		       ctx_live(b));
	}
	ASSERT_TRUE(cancel(b, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel in B");
	}
	ASSERT_TRUE(arm(a, 3, 100000 * MS, NULL) == 0) {
		TH_LOG("arm in A after a cancel in B freed one");
	}
	ASSERT_TRUE(arm(a, 4, 100000 * MS, NULL) == -EDQUOT) {
		TH_LOG("limit again");
	}
	close_dev(self, a);
	ret = fill_to(b, na + 1);
	ASSERT_TRUE(ret == 0) {
		TH_LOG("closing A did not give back its %d: %d", na + 1, ret);
	}
	EXPECT_TRUE(arm(b, 5, 100000 * MS, NULL) == -EDQUOT) {
		TH_LOG("limit after close");
	}
}

/* A check run as uid LIMIT_UID: the test's metadata, its files, an argument. */
typedef void (*limited_body_fn)(struct __test_metadata *_metadata,
				struct _test_data_ctx *self, int arg);

/*
 * Set max_user_timeouts to @limit (the teardown restores it) and run @body
 * with @arg in a child as uid LIMIT_UID; its failure is the test's.
 */
static void as_limited_user(struct __test_metadata *_metadata,
			    struct _test_data_ctx *self, int old, int limit,
			    limited_body_fn body, int arg)
{
	int status;
	pid_t pid;

	user_saved = old;
	ASSERT_TRUE(write_param(PARAM_USER, limit) == 0) {
		TH_LOG("set %s: %s", PARAM_USER, strerror(errno));
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* Only the test itself restores the limit. */
		user_saved = -1;
		ASSERT_FALSE(setgroups(0, NULL) ||
			     setresgid(LIMIT_UID, LIMIT_UID, LIMIT_UID) ||
			     setresuid(LIMIT_UID, LIMIT_UID, LIMIT_UID)) {
			TH_LOG("drop to uid %d: %s", LIMIT_UID, strerror(errno));
		}
		body(_metadata, self, arg);
		fflush(stdout);
		_exit(_metadata->passed ? 0 : 1);
	}
	EXPECT_TRUE(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    !WEXITSTATUS(status)) {
		TH_LOG("the check as uid %d failed", LIMIT_UID);
	}
}

/*
 * nanosleep(20 ms) sleeps 20 ms or more (else bail out).
 *
 * The program's own clock check. Every timing check below sleeps with
 * nanosleep(); a kernel that lacks the syscall a build uses (the -m32 build
 * needs the time32 or time64 compat entry) returns at once, and every
 * "nothing happened during N ms" check would pass without waiting. Exact:
 * a sleep never ends early.
 */
TEST_F(ctx, nanosleep)
{
	struct timespec ts = { 0, 20 * MS }, a, b;
	uint64_t slept;
	int ret;

	ASSERT_TRUE(clock_gettime(CLOCK_MONOTONIC, &a) == 0) {
		TH_LOG("clock_gettime: %s", strerror(errno));
	}
	ret = nanosleep(&ts, NULL);
	ASSERT_TRUE(ret == 0) {
		TH_LOG("nanosleep(20 ms): %s", strerror(errno));
	}
	ASSERT_TRUE(clock_gettime(CLOCK_MONOTONIC, &b) == 0) {
		TH_LOG("clock_gettime: %s", strerror(errno));
	}
	slept = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec -
		a.tv_nsec;
	printf("# nanosleep(20 ms) slept %" PRIu64 " us\n", slept / 1000);
	EXPECT_TRUE(slept >= 20 * MS) {
		TH_LOG("nanosleep(20 ms) returned after %" PRIu64 " ns: this kernel does not sleep for a %zu-bit program",
		       slept, sizeof(long) * 8);
	}
}

/* open /dev/hwtimer, mode 0666. */
TEST_F(ctx, open)
{
	struct stat st;
	int fd;

	ASSERT_TRUE(stat(DEV, &st) == 0) {
		TH_LOG("stat %s: %s", DEV, strerror(errno));
	}
	ASSERT_TRUE(S_ISCHR(st.st_mode)) {
		TH_LOG("not a character device");
	}
	ASSERT_TRUE((st.st_mode & 0666) == 0666) {
		TH_LOG("mode %o, want 0666", st.st_mode & 0777);
	}
	fd = self->fd;
	ASSERT_TRUE(fd >= 0) {
		TH_LOG("open");
	}
	close_dev(self, fd);
}

/* API handshake: version, features, ioctl mask, 0xAA outputs written. */
TEST_F(ctx, api)
{
	struct hwtimer_api a;
	uint64_t want = 0;
	int fd = self->fd;

	memset(&a, 0xaa, sizeof(a));
	a.api = HWTIMER_API;
	a.features = HWTIMER_FEATURE_BATCH;
	a.flags = 0;
	memset(a.reserved, 0, sizeof(a.reserved));
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == 0) {
		TH_LOG("API: %s", strerror(errno));
	}
	want = 1ULL << _IOC_NR(HWTIMER_IOC_API) | 1ULL << _IOC_NR(HWTIMER_IOC_ARM) |
	       1ULL << _IOC_NR(HWTIMER_IOC_CANCEL) | 1ULL << _IOC_NR(HWTIMER_IOC_MODIFY) |
	       1ULL << _IOC_NR(HWTIMER_IOC_BATCH) |
	       1ULL << _IOC_NR(HWTIMER_IOC_SET_EVENTFD) |
	       1ULL << _IOC_NR(HWTIMER_IOC_STATS) |
	       1ULL << _IOC_NR(HWTIMER_IOC_RING_SETUP) |
	       1ULL << _IOC_NR(HWTIMER_IOC_ENTER);
	ASSERT_TRUE(a.api == HWTIMER_API) {
		TH_LOG("api %" PRIu64, (uint64_t)a.api);
	}
	ASSERT_TRUE(a.features == HWTIMER_FEATURES_ALL) {
		TH_LOG("features %#" PRIx64, (uint64_t)a.features);
	}
	ASSERT_TRUE(a.ioctls == want) {
		TH_LOG("ioctls %#" PRIx64 " want %#" PRIx64, (uint64_t)a.ioctls, want);
	}
	ASSERT_TRUE(a.event_size == sizeof(struct hwtimer_event)) {
		TH_LOG("event_size %u", a.event_size);
	}
	ASSERT_TRUE(a.tick_ns >= 10000 && a.tick_ns <= 1000000000ULL) {
		TH_LOG("tick %" PRIu64, (uint64_t)a.tick_ns);
	}
	ASSERT_TRUE(a.max_pending > 0 && a.max_pending != PAT64) {
		TH_LOG("max_pending");
	}
	ASSERT_TRUE(!a.flags && !a.reserved[0] && !a.reserved[1] && !a.reserved[2] &&
		    !a.reserved[3]) {
		TH_LOG("flags/reserved not zeroed");
	}
	tick_ns = a.tick_ns;
	close_dev(self, fd);
}

/* API: bad version, unknown feature, flags, reserved gives EINVAL. */
TEST_F(ctx, api_bad)
{
	struct hwtimer_api a;
	int fd = self->fd;

	memset(&a, 0, sizeof(a));
	a.api = HWTIMER_API + 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL) {
		TH_LOG("bad version accepted");
	}
	a.api = HWTIMER_API;
	a.features = 1ULL << 63;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL) {
		TH_LOG("unknown feature accepted");
	}
	a.features = 0;
	a.flags = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL) {
		TH_LOG("flags accepted");
	}
	a.flags = 0;
	a.reserved[3] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_API, &a) == -EINVAL) {
		TH_LOG("reserved accepted");
	}
	close_dev(self, fd);
}

/* unknown command and wrong size gives ENOTTY. */
TEST_F(ctx, enotty)
{
	char buf[512] = { 0 };
	int fd = self->fd;

	ASSERT_TRUE(xioctl(fd, _IOWR(HWTIMER_IOC_MAGIC, 0x3f, struct hwtimer_api),
			   buf) == -ENOTTY) {
		TH_LOG("unknown nr");
	}
	ASSERT_TRUE(xioctl(fd, _IOWR(HWTIMER_IOC_MAGIC, 0x01, uint64_t), buf) == -ENOTTY) {
		TH_LOG("ARM with the wrong size");
	}
	ASSERT_TRUE(xioctl(fd, _IO(HWTIMER_IOC_MAGIC, 0x20), buf) == -ENOTTY) {
		TH_LOG("_IO with no argument");
	}
	close_dev(self, fd);
}

/* NULL and unmapped pointers gives EFAULT on every command. */
TEST_F(ctx, efault)
{
	unsigned long cmds[] = {
		HWTIMER_IOC_API, HWTIMER_IOC_ARM, HWTIMER_IOC_CANCEL,
		HWTIMER_IOC_MODIFY, HWTIMER_IOC_BATCH, HWTIMER_IOC_SET_EVENTFD,
		HWTIMER_IOC_STATS,
	};
	void *bad = unmapped_ptr();
	int fd = self->fd;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ASSERT_TRUE(xioctl(fd, cmds[i], NULL) == -EFAULT) {
			TH_LOG("cmd %#lx NULL", cmds[i]);
		}
		ASSERT_TRUE(xioctl(fd, cmds[i], bad) == -EFAULT) {
			TH_LOG("cmd %#lx unmapped", cmds[i]);
		}
	}
	close_dev(self, fd);
}

/* ARM: reserved and unknown flags gives EINVAL. */
TEST_F(ctx, arm_reserved)
{
	struct hwtimer_arm_req r = {
		.deadline_ns = 1000 * MS, .clock = CLOCK_MONOTONIC,
	};
	int fd = self->fd;

	r.reserved[1] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_ARM, &r) == -EINVAL) {
		TH_LOG("reserved[1] accepted");
	}
	r.reserved[1] = 0;
	r.flags = 0x80000000;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_ARM, &r) == -EINVAL) {
		TH_LOG("unknown flag accepted");
	}
	close_dev(self, fd);
}

/* ARM: bad clock gives EINVAL (CLOCK_REALTIME is hwtimer_realtime's). */
TEST_F(ctx, arm_bad_clock)
{
	int fd = self->fd;

	ASSERT_TRUE(arm_full(fd, 0, MS, 0, CLOCK_TAI, 0, NULL) == -EINVAL) {
		TH_LOG("CLOCK_TAI accepted");
	}
	ASSERT_TRUE(arm_full(fd, 0, MS, 0, 12345, 0, NULL) == -EINVAL) {
		TH_LOG("clock 12345");
	}
	close_dev(self, fd);
}

/* ARM: period below one tick gives EINVAL, one tick accepted. */
TEST_F(ctx, period_min)
{
	uint64_t id;
	uint32_t res;
	int fd = self->fd;

	ASSERT_TRUE(arm_full(fd, 0, MS, tick_ns - 1, CLOCK_MONOTONIC, 0, NULL) == -EINVAL) {
		TH_LOG("period below one tick accepted");
	}
	ASSERT_TRUE(arm_full(fd, 0, MS, 1, CLOCK_MONOTONIC, 0, NULL) == -EINVAL) {
		TH_LOG("period 1ns accepted");
	}
	ASSERT_TRUE(arm_full(fd, 0, 1000 * MS, tick_ns, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("period of one tick refused");
	}
	ASSERT_TRUE(cancel(fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel of the periodic");
	}
	close_dev(self, fd);
}

/*
 * one-shot event: id, cookie, deadline, fire time, flags.
 * A one-shot's event: id, cookie, deadline, fire time, flags.
 */
TEST_F(ctx, oneshot_event)
{
	struct hwtimer_event ev[2];
	uint64_t t0, t1, t2, id;
	int fd = self->fd;
	int n;

	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(arm(fd, 0xc00c1e, 20 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(id != 0) {
		TH_LOG("id 0");
	}
	n = wait_events(fd, ev, 2, WAIT_MS);
	t2 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(n == 1) {
		TH_LOG("read %d events, want 1", n);
	}
	ASSERT_TRUE(ev[0].id == id) {
		TH_LOG("id %#" PRIx64 " want %#" PRIx64, (uint64_t)ev[0].id, id);
	}
	ASSERT_TRUE(ev[0].cookie == 0xc00c1e) {
		TH_LOG("cookie %#" PRIx64, (uint64_t)ev[0].cookie);
	}
	ASSERT_TRUE(ev[0].deadline_ns >= t0 + 20 * MS &&
		    ev[0].deadline_ns < t1 + 20 * MS + tick_ns) {
		TH_LOG("deadline %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]",
		       (uint64_t)ev[0].deadline_ns, (uint64_t)(t0 + 20 * MS),
		       (uint64_t)(t1 + 20 * MS));
	}
	ASSERT_TRUE(ev[0].fire_ns >= ev[0].deadline_ns) {
		TH_LOG("fired %" PRIu64 " ns early", (uint64_t)(ev[0].deadline_ns - ev[0].fire_ns));
	}
	ASSERT_TRUE(t2 >= ev[0].deadline_ns) {
		TH_LOG("read returned before the deadline");
	}
	ASSERT_TRUE(ev[0].overruns == 0) {
		TH_LOG("overruns %" PRIu64, (uint64_t)ev[0].overruns);
	}
	ASSERT_TRUE(ev[0].clock == CLOCK_MONOTONIC) {
		TH_LOG("clock %u", ev[0].clock);
	}
	ASSERT_TRUE(ev[0].flags == HWTIMER_EVENT_LAST) {
		TH_LOG("flags %#x", ev[0].flags);
	}
	close_dev(self, fd);
}

/*
 * 50 timeouts: never early, lateness bounded.
 * Never early (exact) and late by at most LATE_MAX_NS, over many timeouts.
 */
TEST_F(ctx, never_early)
{
	struct hwtimer_event ev[64];
	uint64_t late, max_late = 0;
	int fd = self->fd;
	int i, got = 0, n;

	for (i = 0; i < 50; i++) {
		ASSERT_TRUE(arm(fd, i, (uint64_t)(i % 10 + 1) * 3 * MS + i * 7777, NULL) == 0) {
			TH_LOG("arm %d", i);
		}
	}
	while (got < 50) {
		n = wait_events(fd, ev, 64, WAIT_MS);
		ASSERT_TRUE(n > 0) {
			TH_LOG("only %d of 50 fired", got);
		}
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(ev[i].fire_ns >= ev[i].deadline_ns) {
				TH_LOG("cookie %" PRIu64 " fired %" PRIu64 " ns early",
				       (uint64_t)ev[i].cookie,
				       (uint64_t)(ev[i].deadline_ns - ev[i].fire_ns));
			}
			late = ev[i].fire_ns - ev[i].deadline_ns;
			if (late > max_late)
				max_late = late;
		}
		got += n;
	}
	printf("# max lateness %" PRIu64 " us over 50 timeouts (bound %llu us)\n",
	       max_late / 1000, LATE_MAX_NS / 1000);
	ASSERT_TRUE(max_late <= LATE_MAX_NS) {
		TH_LOG("late by %" PRIu64 " ns", max_late);
	}
	close_dev(self, fd);
}

/* ids unique and non-zero. */
TEST_F(ctx, ids_unique)
{
	uint64_t ids[100];
	int fd = self->fd;
	int i, j;

	for (i = 0; i < 100; i++) {
		ASSERT_TRUE(arm(fd, i, 10000 * MS, &ids[i]) == 0) {
			TH_LOG("arm %d", i);
		}
	}
	for (i = 0; i < 100; i++)
		for (j = 0; j < i; j++) {
			ASSERT_TRUE(ids[i] != ids[j]) {
				TH_LOG("ids %d and %d equal", i, j);
			}
		}
	close_dev(self, fd);
}

/* CANCEL pending gives CANCELLED, 0xAA result written, no event. */
TEST_F(ctx, cancel)
{
	struct hwtimer_cancel_req r;
	struct hwtimer_event ev;
	uint64_t id;
	int fd = self->fd;

	/* 500 ms: the cancel must come first even after a long vCPU stall. */
	ASSERT_TRUE(arm(fd, 1, 500 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	memset(&r, 0xaa, sizeof(r));
	r.id = id;
	r.flags = 0;
	memset(r.reserved, 0, sizeof(r.reserved));
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == 0) {
		TH_LOG("cancel: %s", strerror(errno));
	}
	ASSERT_TRUE(r.result == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("result %u", r.result);
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, 700) == 0) {
		TH_LOG("cancelled timeout fired");
	}
	close_dev(self, fd);
}

/* stale, zero and random ids gives ENOENT. */
TEST_F(ctx, cancel_stale)
{
	uint64_t id, id2;
	int fd = self->fd;
	int i;

	ASSERT_TRUE(arm(fd, 1, 1000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("first cancel");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == -ENOENT) {
		TH_LOG("second cancel of the same id");
	}
	ASSERT_TRUE(arm(fd, 2, 1000 * MS, &id2) == 0) {
		TH_LOG("arm again");
	}
	ASSERT_TRUE(id2 != id) {
		TH_LOG("id reused");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == -ENOENT) {
		TH_LOG("stale id matched the new timeout");
	}
	/*
	 * Free slots are reused oldest first: 200 rounds reuse every slot of
	 * the first table (64) three times, id's among them. The id layout is
	 * not ABI, so no new id may equal id, and id must stay unknown.
	 */
	for (i = 0; i < 200; i++) {
		ASSERT_TRUE(cancel(fd, id2, NULL) == 0 && arm(fd, 3, 1000 * MS, &id2) == 0) {
			TH_LOG("cancel and arm, round %d", i);
		}
		ASSERT_TRUE(id2 != id && cancel(fd, id, NULL) == -ENOENT) {
			TH_LOG("round %d: stale id %#llx matched a new timeout (%#llx)",
			       i, (unsigned long long)id, (unsigned long long)id2);
		}
	}
	ASSERT_TRUE(cancel(fd, 0, NULL) == -ENOENT) {
		TH_LOG("id 0");
	}
	ASSERT_TRUE(cancel(fd, 0x123456789abcdefULL, NULL) == -ENOENT) {
		TH_LOG("random id");
	}
	close_dev(self, fd);
}

/*
 * generation bits checked gives ENOENT.
 * The generation bits are checked, not only the index.
 */
TEST_F(ctx, cancel_generation)
{
	uint64_t id;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, 1000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(cancel(fd, id ^ (1ULL << 40), NULL) == -ENOENT) {
		TH_LOG("id with other generation bits matched");
	}
	ASSERT_TRUE(modify(fd, id ^ (1ULL << 63), MS, 0, NULL) == -ENOENT) {
		TH_LOG("modify with other generation bits matched");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("real id");
	}
	close_dev(self, fd);
}

/* other context's id gives ENOENT. */
TEST_F(ctx, cancel_other_ctx)
{
	uint64_t id;
	int a = self->fd, b = open_dev(_metadata, self);

	ASSERT_TRUE(arm(a, 1, 1000 * MS, &id) == 0) {
		TH_LOG("arm on a");
	}
	ASSERT_TRUE(arm(b, 1, 1000 * MS, NULL) == 0) {
		TH_LOG("arm on b");
	}
	ASSERT_TRUE(cancel(b, id, NULL) == -ENOENT) {
		TH_LOG("b cancelled a's id");
	}
	ASSERT_TRUE(modify(b, id, MS, 0, NULL) == -ENOENT) {
		TH_LOG("b modified a's id");
	}
	ASSERT_TRUE(cancel(a, id, NULL) == 0) {
		TH_LOG("a's own cancel");
	}
	close_dev(self, a);
	close_dev(self, b);
}

/* CANCEL fired unread one-shot gives FIRED, event kept. */
TEST_F(ctx, cancel_fired)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 7, MS, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("never fired");
	}
	ASSERT_TRUE(cancel(fd, id, &res) == 0) {
		TH_LOG("cancel of a fired, unread one-shot");
	}
	ASSERT_TRUE(res == HWTIMER_RESULT_FIRED) {
		TH_LOG("result %u want FIRED", res);
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id) {
		TH_LOG("event lost by the cancel");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == -ENOENT) {
		TH_LOG("id still known after read");
	}
	close_dev(self, fd);
}

/* CANCEL: flags and reserved gives EINVAL. */
TEST_F(ctx, cancel_bad)
{
	struct hwtimer_cancel_req r = { 0 };
	uint64_t id;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, 1000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	r.id = id;
	r.flags = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == -EINVAL) {
		TH_LOG("flags accepted");
	}
	r.flags = 0;
	r.reserved[0] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_CANCEL, &r) == -EINVAL) {
		TH_LOG("reserved accepted");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("still pending after bad cancels");
	}
	close_dev(self, fd);
}

/* MODIFY relative gives MODIFIED, fires at the new deadline. */
TEST_F(ctx, modify)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id, t0;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 9, 10000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(modify(fd, id, 30 * MS, 0, &res) == 0) {
		TH_LOG("modify");
	}
	ASSERT_TRUE(res == HWTIMER_RESULT_MODIFIED) {
		TH_LOG("result %u", res);
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("modified timeout did not fire");
	}
	ASSERT_TRUE(ev.id == id && ev.cookie == 9) {
		TH_LOG("wrong event");
	}
	ASSERT_TRUE(ev.deadline_ns >= t0 + 30 * MS && ev.deadline_ns < t0 + 1000 * MS) {
		TH_LOG("deadline not the new one");
	}
	ASSERT_TRUE(ev.fire_ns >= ev.deadline_ns) {
		TH_LOG("early");
	}
	ASSERT_TRUE(modify(fd, id, MS, 0, NULL) == -ENOENT) {
		TH_LOG("modify after read");
	}
	close_dev(self, fd);
}

/*
 * MODIFY absolute later: not at the old deadline. Exact, whatever the
 * load: the one record that comes has the new deadline and was served at
 * or after it (a record of the old deadline would come first, or have
 * that deadline).
 */
TEST_F(ctx, modify_later_abs)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id, dl;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 9, 400 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	dl = now_ns(CLOCK_MONOTONIC) + 1000 * MS;
	ASSERT_TRUE(modify(fd, id, dl, HWTIMER_ARM_ABS, &res) == 0 &&
		    res == HWTIMER_RESULT_MODIFIED) {
		TH_LOG("modify to absolute later");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("did not fire");
	}
	ASSERT_TRUE(ev.deadline_ns >= dl && ev.deadline_ns < dl + tick_ns) {
		TH_LOG("deadline %" PRIu64 " want %" PRIu64, (uint64_t)ev.deadline_ns, dl);
	}
	ASSERT_TRUE(ev.fire_ns >= dl) {
		TH_LOG("early");
	}
	close_dev(self, fd);
}

/* MODIFY: unknown id ENOENT, flags and reserved EINVAL. */
TEST_F(ctx, modify_bad)
{
	struct hwtimer_modify_req r = { 0 };
	uint64_t id;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, 1000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(modify(fd, id + 1, MS, 0, NULL) == -ENOENT) {
		TH_LOG("unknown id");
	}
	ASSERT_TRUE(modify(fd, id, MS, 0x10, NULL) == -EINVAL) {
		TH_LOG("unknown flag");
	}
	r.id = id;
	r.reserved[1] = 5;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_MODIFY, &r) == -EINVAL) {
		TH_LOG("reserved accepted");
	}
	close_dev(self, fd);
}

/*
 * MODIFY periodic: next expiry moved, period kept.
 * MODIFY of a periodic moves its next expiry and keeps its period.
 */
TEST_F(ctx, modify_periodic)
{
	uint64_t id, t0, period = 400 * MS;
	struct hwtimer_event ev;
	uint32_t res = 0;
	int fd = self->fd;

	ASSERT_TRUE(arm_full(fd, 4, 100000 * MS, period, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm");
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(modify(fd, id, 20 * MS, 0, &res) == 0 && res == HWTIMER_RESULT_MODIFIED) {
		TH_LOG("modify: result %u", res);
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id) {
		TH_LOG("no expiry");
	}
	ASSERT_TRUE(ev.deadline_ns >= t0 + 20 * MS && ev.fire_ns >= ev.deadline_ns &&
		    ev.flags == 0) {
		TH_LOG("first expiry deadline or flags");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("no second expiry");
	}
	ASSERT_TRUE(ev.deadline_ns >= t0 + 20 * MS + period) {
		TH_LOG("period not kept");
	}
	ASSERT_TRUE(cancel(fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel");
	}
	close_dev(self, fd);
}

/* absolute deadline in the past fires at once. */
TEST_F(ctx, past_abs)
{
	struct hwtimer_event ev;
	uint64_t id, t0;
	int fd = self->fd;

	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(arm_full(fd, 3, 1, 0, CLOCK_MONOTONIC, HWTIMER_ARM_ABS, &id) == 0) {
		TH_LOG("arm at absolute 1 ns");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("past deadline never fired");
	}
	ASSERT_TRUE(ev.fire_ns - t0 < LATE_MAX_NS) {
		TH_LOG("past deadline fired %" PRIu64 " ms late",
		       (uint64_t)((ev.fire_ns - t0) / MS));
	}
	ASSERT_TRUE(ev.fire_ns >= ev.deadline_ns) {
		TH_LOG("fire before deadline");
	}
	close_dev(self, fd);
}

/* U64_MAX relative and absolute: no wrap, cancellable. */
TEST_F(ctx, u64_max)
{
	struct hwtimer_event ev;
	uint64_t a, b;
	uint32_t ra = 0, rb = 0;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, UINT64_MAX, &a) == 0) {
		TH_LOG("relative U64_MAX");
	}
	ASSERT_TRUE(arm_full(fd, 2, UINT64_MAX, 0, CLOCK_MONOTONIC, HWTIMER_ARM_ABS, &b) == 0) {
		TH_LOG("absolute U64_MAX");
	}
	ASSERT_TRUE(arm(fd, 3, UINT64_MAX - 5, NULL) == 0) {
		TH_LOG("relative U64_MAX - 5");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, 200) == 0) {
		TH_LOG("a U64_MAX deadline fired (wrap)");
	}
	ASSERT_TRUE(cancel(fd, a, &ra) == 0 && ra == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel a");
	}
	ASSERT_TRUE(cancel(fd, b, &rb) == 0 && rb == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel b");
	}
	close_dev(self, fd);
}

/* periodic: expiries on the period grid, never early. */
TEST_F(ctx, periodic)
{
	struct hwtimer_event ev;
	uint64_t id, first = 0, period = 20 * MS;
	int fd = self->fd;
	int i;

	if (period < tick_ns)
		period = tick_ns;
	ASSERT_TRUE(arm_full(fd, 5, period, period, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm");
	}
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
			TH_LOG("expiry %d missing", i);
		}
		ASSERT_TRUE(ev.id == id && ev.cookie == 5) {
			TH_LOG("wrong event");
		}
		ASSERT_TRUE(ev.flags == 0) {
			TH_LOG("flags %#x on a live periodic", ev.flags);
		}
		ASSERT_TRUE(ev.fire_ns >= ev.deadline_ns) {
			TH_LOG("expiry %d early", i);
		}
		if (!i)
			first = ev.deadline_ns;
		ASSERT_TRUE((ev.deadline_ns - first) % period == 0) {
			TH_LOG("deadline off the period grid by %" PRIu64 " ns",
			       (uint64_t)((ev.deadline_ns - first) % period));
		}
	}
	ASSERT_TRUE(ev.deadline_ns > first) {
		TH_LOG("deadline did not advance");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("cancel");
	}
	close_dev(self, fd);
}

/*
 * unread periodic folds into one record with overruns.
 *
 * An unread periodic folds into one record with overruns, so memory does
 * not grow: ten periods after the first expiry there is still one record,
 * and it carries every expiry that passed (the read counts them: at least
 * 11, exact) and no more than the periods elapsed (never early, exact);
 * the context's fired counter is what the record carries, plus what the
 * re-armed timer added before STATS: at most one per period boundary in
 * the time measured from the read to after STATS.
 */
TEST_F(ctx, periodic_overruns)
{
	uint64_t id, t0, tr, t1, t2, period = 10 * MS, expiries, most, extra;
	struct hwtimer_stats_req st;
	struct hwtimer_event ev[4];
	int fd = self->fd;
	int n;

	if (period < tick_ns)
		period = tick_ns;
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(arm_full(fd, 6, period, period, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("no first expiry");
	}
	sleep_ms(10 * period / MS);
	ASSERT_TRUE(stats(fd, &st) == 0) {
		TH_LOG("stats");
	}
	ASSERT_TRUE(st.ctx_queued == 1) {
		TH_LOG("%" PRIu64 " records queued, want 1", (uint64_t)st.ctx_queued);
	}
	tr = now_ns(CLOCK_MONOTONIC);
	n = read(fd, ev, sizeof(ev));
	t1 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(n == (int)sizeof(ev[0])) {
		TH_LOG("read %d bytes, want one record", n);
	}
	expiries = 1 + ev[0].overruns;
	most = (t1 - t0) / period + 1;
	printf("# %" PRIu64 " expiries folded into one record, %" PRIu64
	       " ms period\n", expiries, (uint64_t)(period / MS));
	ASSERT_TRUE(expiries >= 11) {
		TH_LOG("record has %" PRIu64 " expiries, 11 periods passed", expiries);
	}
	ASSERT_TRUE(expiries <= most) {
		TH_LOG("%" PRIu64 " expiries, more than %" PRIu64 " periods elapsed (early)",
		       expiries, most);
	}
	/*
	 * The re-armed timer may have fired since the read: once per period
	 * boundary between the read and STATS, whose times bound them.
	 */
	ASSERT_TRUE(stats(fd, &st) == 0) {
		TH_LOG("stats");
	}
	t2 = now_ns(CLOCK_MONOTONIC);
	extra = (t2 - tr) / period + 1;
	ASSERT_TRUE(st.ctx_fired >= expiries &&
		    st.ctx_fired <= expiries + extra) {
		TH_LOG("context counted %" PRIu64 " expiries, the record %" PRIu64
		       ", at most %" PRIu64 " more in the %" PRIu64 " us since the read",
		       (uint64_t)st.ctx_fired, expiries, extra, (t2 - tr) / 1000);
	}
	ASSERT_TRUE(ev[0].fire_ns >= ev[0].deadline_ns) {
		TH_LOG("latest deadline after its fire time");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("cancel");
	}
	close_dev(self, fd);
}

/* periodic cancel stops expiries. */
TEST_F(ctx, periodic_cancel)
{
	struct hwtimer_event ev[8];
	uint64_t id;
	int fd = self->fd;
	int n;

	ASSERT_TRUE(arm_full(fd, 5, tick_ns * 2, tick_ns * 2, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_events(fd, ev, 1, WAIT_MS) == 1) {
		TH_LOG("no expiry");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("cancel");
	}
	/* At most one record, queued before the cancel, may still come. */
	n = wait_events(fd, ev, 8, 50);
	ASSERT_TRUE(n <= 1) {
		TH_LOG("%d records after cancel", n);
	}
	ASSERT_TRUE(n == 0 || ev[0].flags == HWTIMER_EVENT_LAST) {
		TH_LOG("last record not LAST");
	}
	ASSERT_TRUE(wait_events(fd, ev, 8, 100) == 0) {
		TH_LOG("expiries after cancel");
	}
	close_dev(self, fd);
}

/* CLOCK_BOOTTIME timeout. */
TEST_F(ctx, boottime)
{
	struct hwtimer_event ev;
	uint64_t t0, id;
	int fd = self->fd;

	t0 = now_ns(CLOCK_BOOTTIME);
	ASSERT_TRUE(arm_full(fd, 8, 20 * MS, 0, CLOCK_BOOTTIME, 0, &id) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("no event");
	}
	ASSERT_TRUE(ev.clock == CLOCK_BOOTTIME) {
		TH_LOG("clock %u", ev.clock);
	}
	ASSERT_TRUE(ev.deadline_ns >= t0 + 20 * MS && ev.deadline_ns < now_ns(CLOCK_BOOTTIME)) {
		TH_LOG("deadline not on BOOTTIME");
	}
	ASSERT_TRUE(ev.fire_ns >= ev.deadline_ns) {
		TH_LOG("early");
	}
	close_dev(self, fd);
}

/* read: buffer below one record gives EINVAL. */
TEST_F(ctx, read_short)
{
	struct hwtimer_event ev;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, 0, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("never fired");
	}
	ASSERT_TRUE(read(fd, &ev, sizeof(ev) - 1) == -1 && errno == EINVAL) {
		TH_LOG("short read did not fail with EINVAL");
	}
	ASSERT_TRUE(read(fd, &ev, 0) == -1 && errno == EINVAL) {
		TH_LOG("zero read");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("event lost by short read");
	}
	close_dev(self, fd);
}

/* read: O_NONBLOCK and empty gives EAGAIN. */
TEST_F(ctx, read_nonblock)
{
	struct hwtimer_event ev;
	int fd = open(DEV, O_RDWR | O_NONBLOCK);

	ASSERT_TRUE(fd >= 0) {
		TH_LOG("open");
	}
	ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN) {
		TH_LOG("want EAGAIN");
	}
	ASSERT_TRUE(arm(fd, 1, 1000 * MS, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN) {
		TH_LOG("want EAGAIN with pending, unfired timeouts");
	}
	close_dev(self, fd);
}

/* read: blocks until the expiry. */
TEST_F(ctx, read_blocking)
{
	struct hwtimer_event ev;
	uint64_t t0, t1;
	int fd = self->fd;
	ssize_t n;

	ASSERT_TRUE(arm(fd, 1, 50 * MS, NULL) == 0) {
		TH_LOG("arm");
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	n = read(fd, &ev, sizeof(ev));
	t1 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(n == sizeof(ev)) {
		TH_LOG("read %zd", n);
	}
	ASSERT_TRUE(t1 >= ev.deadline_ns) {
		TH_LOG("blocking read returned early");
	}
	ASSERT_TRUE(t1 - t0 < 50 * MS + LATE_MAX_NS) {
		TH_LOG("blocking read slept %" PRIu64 " ms", (uint64_t)((t1 - t0) / MS));
	}
	close_dev(self, fd);
}

/* read: interrupted by a signal gives EINTR. */
TEST_F(ctx, read_signal)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 50000 } };
	struct hwtimer_event ev;
	int fd = self->fd;
	ssize_t n;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(fd, &ev, sizeof(ev));
	err = errno;
	signal(SIGALRM, SIG_DFL);
	ASSERT_TRUE(n == -1 && err == EINTR) {
		TH_LOG("read gave %zd (%s), want EINTR", n, strerror(err));
	}
	close_dev(self, fd);
}

/*
 * read: whole records that fit, 0xAA buffer written exactly.
 * read() returns as many whole records as fit, 0xAA-prefilled buffer.
 */
TEST_F(ctx, read_many_prefill)
{
	unsigned char buf[3 * sizeof(struct hwtimer_event) + 20];
	struct hwtimer_event ev[5];
	uint64_t w;
	size_t i;
	ssize_t n;
	int fd = self->fd;
	int k;

	for (k = 0; k < 5; k++) {
		ASSERT_TRUE(arm(fd, 100 + k, 0, NULL) == 0) {
			TH_LOG("arm %d", k);
		}
	}
	ASSERT_TRUE(wait_count(fd, 5, false)) {
		TH_LOG("not all 5 fired");
	}
	memset(buf, 0xaa, sizeof(buf));
	n = read(fd, buf, sizeof(buf));
	ASSERT_TRUE(n == 3 * sizeof(struct hwtimer_event)) {
		TH_LOG("read %zd bytes, want 3 records", n);
	}
	for (i = 0; i < (size_t)n; i += 8) {
		memcpy(&w, buf + i, 8);
		ASSERT_TRUE(w != PAT64) {
			TH_LOG("record byte %zu not written", i);
		}
	}
	for (i = n; i < sizeof(buf); i++) {
		ASSERT_TRUE(buf[i] == 0xaa) {
			TH_LOG("byte %zu past the records written", i);
		}
	}
	memcpy(ev, buf, 3 * sizeof(ev[0]));
	for (k = 0; k < 3; k++) {
		ASSERT_TRUE(ev[k].clock == CLOCK_MONOTONIC &&
			    ev[k].flags == HWTIMER_EVENT_LAST && ev[k].overruns == 0) {
			TH_LOG("record %d fields", k);
		}
	}
	n = read(fd, ev, sizeof(ev));
	ASSERT_TRUE(n == 2 * sizeof(ev[0])) {
		TH_LOG("second read %zd bytes, want 2 records", n);
	}
	close_dev(self, fd);
}

/* poll: POLLIN only while events wait. */
TEST_F(ctx, poll)
{
	struct pollfd p;
	int fd = self->fd;

	p.fd = fd;
	p.events = POLLIN;
	ASSERT_TRUE(poll(&p, 1, 0) == 0) {
		TH_LOG("POLLIN with nothing queued");
	}
	ASSERT_TRUE(arm(fd, 1, 20 * MS, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(poll(&p, 1, WAIT_MS) == 1 && (p.revents & POLLIN)) {
		TH_LOG("no POLLIN");
	}
	close_dev(self, fd);
}

/* epoll: EPOLLIN on expiry, clear after read. */
TEST_F(ctx, epoll)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	struct hwtimer_event ev;
	int fd = self->fd;
	int ep = track_fd(self, epoll_create1(EPOLL_CLOEXEC));

	ASSERT_TRUE(ep >= 0) {
		TH_LOG("epoll_create1");
	}
	ASSERT_TRUE(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) == 0) {
		TH_LOG("epoll_ctl");
	}
	ASSERT_TRUE(epoll_wait(ep, &out, 1, 0) == 0) {
		TH_LOG("ready with nothing queued");
	}
	ASSERT_TRUE(arm(fd, 1, 20 * MS, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(epoll_wait(ep, &out, 1, WAIT_MS) == 1 && (out.events & EPOLLIN)) {
		TH_LOG("no EPOLLIN");
	}
	ASSERT_TRUE(read(fd, &ev, sizeof(ev)) == sizeof(ev)) {
		TH_LOG("read");
	}
	ASSERT_TRUE(epoll_wait(ep, &out, 1, 0) == 0) {
		TH_LOG("still ready after read");
	}
	close_dev(self, ep);
	close_dev(self, fd);
}

/*
 * The eventfd is signalled when expiries become ready: its count is of
 * wake-ups, not of expiries, and it stops once they are read.
 */
TEST_F(ctx, eventfd)
{
	struct hwtimer_event evs[4];
	struct pollfd p;
	uint64_t v = 0;
	int fd = self->fd;
	int efd = track_fd(self, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	int k, got = 0, n;

	ASSERT_TRUE(efd >= 0) {
		TH_LOG("eventfd");
	}
	ASSERT_TRUE(set_eventfd(fd, efd) == 0) {
		TH_LOG("SET_EVENTFD: %s", strerror(errno));
	}
	for (k = 0; k < 3; k++) {
		ASSERT_TRUE(arm(fd, k, 10 * MS, NULL) == 0) {
			TH_LOG("arm");
		}
	}
	p.fd = efd;
	p.events = POLLIN;
	ASSERT_TRUE(poll(&p, 1, WAIT_MS) == 1 && read(efd, &v, 8) == 8 &&
		    v >= 1) {
		TH_LOG("eventfd not signalled for the expiries");
	}
	while (got < 3 && (n = wait_events(fd, evs, 4, WAIT_MS)) > 0)
		got += n;
	ASSERT_TRUE(got == 3) {
		TH_LOG("read %d records after the eventfd, want 3", got);
	}
	/* Whatever the reads added, nothing more comes with nothing armed. */
	while (read(efd, &v, 8) == 8)
		;
	sleep_ms(50);
	ASSERT_TRUE(read(efd, &v, 8) == -1 && errno == EAGAIN) {
		TH_LOG("signalled with nothing due");
	}
	close_dev(self, efd);	/* the context keeps its own reference */
	ASSERT_TRUE(arm(fd, 9, 0, NULL) == 0) {
		TH_LOG("arm after closing the eventfd");
	}
	sleep_ms(50);
	close_dev(self, fd);
}

/* SET_EVENTFD -1 stops signalling. */
TEST_F(ctx, eventfd_clear)
{
	struct hwtimer_event ev;
	uint64_t v = 0;
	int fd = self->fd;
	int efd = track_fd(self, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));

	ASSERT_TRUE(set_eventfd(fd, efd) == 0) {
		TH_LOG("set");
	}
	ASSERT_TRUE(set_eventfd(fd, -1) == 0) {
		TH_LOG("clear with -1");
	}
	ASSERT_TRUE(arm(fd, 1, 0, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("never fired");
	}
	ASSERT_TRUE(read(efd, &v, 8) == -1 && errno == EAGAIN) {
		TH_LOG("cleared eventfd was signalled");
	}
	close_dev(self, efd);
	close_dev(self, fd);
}

/* SET_EVENTFD: bad fd EBADF, not an eventfd EINVAL. */
TEST_F(ctx, eventfd_bad)
{
	struct hwtimer_eventfd_req r = { 0 };
	int fd = self->fd;
	int nul = track_fd(self, open("/dev/null", O_RDONLY | O_CLOEXEC));

	ASSERT_TRUE(set_eventfd(fd, 9999) == -EBADF) {
		TH_LOG("fd 9999");
	}
	ASSERT_TRUE(set_eventfd(fd, -2) == -EBADF) {
		TH_LOG("fd -2");
	}
	ASSERT_TRUE(set_eventfd(fd, nul) == -EINVAL) {
		TH_LOG("/dev/null accepted as eventfd");
	}
	ASSERT_TRUE(set_eventfd(fd, fd) == -EINVAL) {
		TH_LOG("hwtimer fd accepted as eventfd");
	}
	r.fd = -1;
	r.flags = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r) == -EINVAL) {
		TH_LOG("flags");
	}
	r.flags = 0;
	r.reserved[0] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_SET_EVENTFD, &r) == -EINVAL) {
		TH_LOG("reserved");
	}
	close_dev(self, nul);
	close_dev(self, fd);
}

/* BATCH: 2000 arms then 2000 cancels, status written. */
TEST_F(ctx, batch_arm_cancel)
{
	enum { N = 2000 };
	static struct hwtimer_batch_op ops[N];
	struct hwtimer_stats_req st;
	struct hwtimer_batch b;
	int fd = self->fd;
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < N; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = i;
		ops[i].deadline_ns = 10000 * MS + i;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].status = 0x55555555;
		ops[i].result = 0xaaaaaaaa;
		ops[i].id = PAT64;
	}
	ASSERT_TRUE(batch(fd, ops, N, &b) == 0) {
		TH_LOG("batch arm: %s", strerror(errno));
	}
	ASSERT_TRUE(b.done == N && b.failed == 0) {
		TH_LOG("done %u failed %u", b.done, b.failed);
	}
	for (i = 0; i < N; i++) {
		ASSERT_TRUE(ops[i].status == 0 && ops[i].result == 0 && ops[i].id &&
			    ops[i].id != PAT64) {
			TH_LOG("op %d status %d", i, ops[i].status);
		}
	}
	ASSERT_TRUE(stats(fd, &st) == 0 && st.ctx_pending == N) {
		TH_LOG("ctx_pending %" PRIu64, (uint64_t)st.ctx_pending);
	}
	for (i = 0; i < N; i++) {
		uint64_t id = ops[i].id;

		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_CANCEL;
		ops[i].id = id;
	}
	ASSERT_TRUE(batch(fd, ops, N, &b) == 0 && b.done == N && !b.failed) {
		TH_LOG("batch cancel");
	}
	for (i = 0; i < N; i++) {
		ASSERT_TRUE(ops[i].status == 0 && ops[i].result == HWTIMER_RESULT_CANCELLED) {
			TH_LOG("cancel op %d: status %d result %u", i, ops[i].status,
			       ops[i].result);
		}
	}
	ASSERT_TRUE(stats(fd, &st) == 0 && st.ctx_pending == 0 && st.ctx_live == 0) {
		TH_LOG("pending %" PRIu64 " live %" PRIu64 " after cancelling all",
		       (uint64_t)st.ctx_pending, (uint64_t)st.ctx_live);
	}
	close_dev(self, fd);
}

/*
 * BATCH: per-item status for mixed good and bad ops.
 * Per-item status: bad items fail alone; the good ones go through.
 */
TEST_F(ctx, batch_status)
{
	struct hwtimer_batch_op ops[7];
	struct hwtimer_batch b;
	int fd = self->fd;
	uint64_t live;

	ASSERT_TRUE(arm(fd, 1, 10000 * MS, &live) == 0) {
		TH_LOG("arm");
	}
	memset(ops, 0, sizeof(ops));
	ops[0].op = HWTIMER_OP_ARM;		/* good */
	ops[0].deadline_ns = 1000 * MS;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[1] = ops[0];
	ops[1].clock = CLOCK_TAI;		/* bad clock */
	ops[2] = ops[0];
	ops[2].reserved = 1;			/* reserved */
	ops[3].op = HWTIMER_OP_CANCEL;		/* unknown id */
	ops[3].id = live + 12345;
	ops[4].op = 77;				/* unknown op */
	ops[5].op = HWTIMER_OP_MODIFY;		/* good */
	ops[5].id = live;
	ops[5].deadline_ns = 5000 * MS;
	ops[6] = ops[0];
	ops[6].period_ns = 1;			/* period too small */
	ASSERT_TRUE(batch(fd, ops, 7, &b) == 0) {
		TH_LOG("batch: %s", strerror(errno));
	}
	ASSERT_TRUE(b.done == 7 && b.failed == 5) {
		TH_LOG("done %u failed %u", b.done, b.failed);
	}
	ASSERT_TRUE(ops[0].status == 0 && ops[0].id) {
		TH_LOG("good arm: %d", ops[0].status);
	}
	ASSERT_TRUE(ops[1].status == -EINVAL) {
		TH_LOG("bad clock: %d", ops[1].status);
	}
	ASSERT_TRUE(ops[2].status == -EINVAL) {
		TH_LOG("reserved: %d", ops[2].status);
	}
	ASSERT_TRUE(ops[3].status == -ENOENT) {
		TH_LOG("unknown id: %d", ops[3].status);
	}
	ASSERT_TRUE(ops[4].status == -EINVAL) {
		TH_LOG("unknown op: %d", ops[4].status);
	}
	ASSERT_TRUE(ops[5].status == 0 && ops[5].result == HWTIMER_RESULT_MODIFIED) {
		TH_LOG("modify: %d/%u", ops[5].status, ops[5].result);
	}
	ASSERT_TRUE(ops[6].status == -EINVAL) {
		TH_LOG("small period: %d", ops[6].status);
	}
	close_dev(self, fd);
}

/* An ARM op of a one-shot @rel ns from now on @clock. */
static struct hwtimer_batch_op arm_op(uint64_t cookie, uint64_t rel,
				      clockid_t clock)
{
	struct hwtimer_batch_op op = {
		.op = HWTIMER_OP_ARM,
		.cookie = cookie,
		.deadline_ns = rel,
		.clock = clock,
	};

	return op;
}

/* A CANCEL (@deadline 0) or MODIFY op of timeout @id. */
static struct hwtimer_batch_op id_op(uint32_t op, uint64_t id, uint64_t rel)
{
	struct hwtimer_batch_op o = { .op = op, .id = id, .deadline_ns = rel };

	return o;
}

/* Pending timeouts of the default wheel of @clock, UINT64_MAX on error. */
static uint64_t clock_pending(int fd, clockid_t clock)
{
	struct hwtimer_stats_req st = { .clock = clock };

	return xioctl(fd, HWTIMER_IOC_STATS, &st) ? UINT64_MAX : st.pending;
}

/*
 * BATCH runs the ARMs, CANCELs and MODIFYs (a cancel and an arm) of one
 * chunk in one hold of the context's lock, moving the wake-ups of the
 * context's queues on the clocks' wheels as their earliest deadlines
 * change. Here the ops of a chunk alternate between both clocks and, on
 * a machine with two CPUs, between timeouts armed from each CPU, MODIFYs
 * of both CPUs' timeouts among them: every op must do what it does alone,
 * and each wheel must end with the count it began with (the wake-ups go
 * once the queues are empty).
 */
TEST_F(ctx, batch_mixed_bases)
{
	enum { PER = 12, FAR = 10000 };
	static const clockid_t clk[2] = { CLOCK_MONOTONIC, CLOCK_BOOTTIME };
	struct hwtimer_batch_op far[2][2 * PER], mix[8 * PER];
	struct hwtimer_event ev[4 * PER];
	uint64_t before[2], fired = 0, bit, t0, want;
	struct hwtimer_batch b;
	int fd = self->fd, cpus[2], c, i, k, m, n, got;
	cpu_set_t allowed;

	ASSERT_TRUE(two_cpus(cpus, &allowed));
	for (k = 0; k < 2; k++)
		before[k] = clock_pending(fd, clk[k]);

	/* On each CPU: PER far timeouts on each clock, taking turns. */
	for (c = 0; c < 2; c++) {
		ASSERT_TRUE(run_on_cpu(cpus[c]));
		for (i = 0; i < 2 * PER; i++)
			far[c][i] = arm_op(c * 100 + i, FAR * MS, clk[i % 2]);
		ASSERT_TRUE(batch(fd, far[c], 2 * PER, &b) == 0 && !b.failed) {
			TH_LOG("far arms from CPU %d: %s, %u failed", cpus[c],
			       strerror(errno), b.failed);
		}
	}

	/*
	 * From the second CPU: cancel the first CPU's timeouts and its own
	 * on both clocks, arm new short ones on both clocks, and move the
	 * rest (MODIFY) to a short deadline, all interleaved. Every other
	 * odd timeout of the first CPU is moved too, not cancelled.
	 */
	t0 = now_ns(CLOCK_MONOTONIC);
	for (i = 0, n = 0; i < PER; i++) {
		c = i % 2;
		mix[n++] = id_op(HWTIMER_OP_CANCEL, far[0][2 * i].id, 0);
		mix[n++] = arm_op(1000 + 2 * i, 30 * MS, clk[c]);
		mix[n++] = id_op(HWTIMER_OP_CANCEL, far[1][2 * i + 1].id, 0);
		mix[n++] = id_op(i % 2 ? HWTIMER_OP_MODIFY : HWTIMER_OP_CANCEL,
				 far[0][2 * i + 1].id, i % 2 ? 25 * MS : 0);
		mix[n++] = arm_op(1000 + 2 * i + 1, 30 * MS, clk[!c]);
		mix[n++] = id_op(HWTIMER_OP_MODIFY, far[1][2 * i].id, 20 * MS);
	}
	ASSERT_TRUE(batch(fd, mix, n, &b) == 0 && b.done == (uint32_t)n) {
		TH_LOG("mixed batch: %s, done %u", strerror(errno), b.done);
	}
	for (i = 0; i < n; i++) {
		m = i % 6;
		want = m == 1 || m == 4 ? 0 :
		       m == 5 || (m == 3 && i / 6 % 2) ? HWTIMER_RESULT_MODIFIED :
		       HWTIMER_RESULT_CANCELLED;
		ASSERT_TRUE(mix[i].status == 0 && mix[i].result == want) {
			TH_LOG("op %d (op %u): status %d result %u, want %" PRIu64,
			       i, mix[i].op, mix[i].status, mix[i].result, want);
		}
	}

	/* The new ones and the moved ones fire, each on its own clock. */
	for (got = 0; got < 3 * PER + PER / 2; ) {
		k = wait_events(fd, ev, 4 * PER, LATE_MAX_NS / MS);
		ASSERT_TRUE(k > 0) {
			TH_LOG("%d of %d records", got, 3 * PER + PER / 2);
		}
		for (i = 0; i < k; i++) {
			uint64_t ck = ev[i].cookie;
			clockid_t want_clk;

			if (ck >= 1000)
				want_clk = clk[((ck - 1000) / 2 + ck) % 2];
			else
				want_clk = clk[ck % 2];
			ASSERT_TRUE(ck >= 1000 ? ck < 1000 + 2 * PER :
				    ck >= 100 ? ck < 100 + 2 * PER && !(ck % 2) :
				    ck < 2 * PER && ck % 4 == 3) {
				TH_LOG("record of cookie %" PRIu64, ck);
			}
			ASSERT_TRUE(ev[i].clock == (uint32_t)want_clk &&
				    ev[i].fire_ns >= ev[i].deadline_ns) {
				TH_LOG("cookie %" PRIu64 ": clock %u, fire %" PRIu64
				       " deadline %" PRIu64, ck, ev[i].clock,
				       (uint64_t)ev[i].fire_ns,
				       (uint64_t)ev[i].deadline_ns);
			}
			bit = 1ULL << (ck >= 1000 ? ck - 1000 :
				       ck >= 100 ? 2 * PER + (ck - 100) / 2 :
				       3 * PER + ck / 4);
			ASSERT_TRUE(!(fired & bit)) {
				TH_LOG("cookie %" PRIu64 " twice", ck);
			}
			fired |= bit;
		}
		got += k;
	}
	ASSERT_TRUE(now_ns(CLOCK_MONOTONIC) >= t0 + 20 * MS);
	assert_ctx_counts(_metadata, fd, 0, 0, 0);
	for (k = 0; k < 2; k++) {
		ASSERT_TRUE(clock_pending(fd, clk[k]) == before[k]) {
			TH_LOG("clock %d wheel: %" PRIu64 " pending, %" PRIu64
			       " before", clk[k], clock_pending(fd, clk[k]),
			       before[k]);
		}
	}
	close_dev(self, fd);
}

/* Write @val to sysfs file @path. Return: 0 or -errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The first line of @path, without its newline, in @buf; false if none. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = !!fgets(buf, len, f);
	fclose(f);
	buf[ok ? strcspn(buf, "\n") : 0] = '\0';
	return ok;
}

/*
 * How many workers of the default wheel (kthreads "hwtimer/default/...",
 * a name older kernels cut to "hwtimer/default") may run on exactly the
 * CPUs of list @cpus, as /proc's Cpus_allowed_list prints it ("1", "0-1").
 */
static int default_workers_on(const char *cpus)
{
	char path[300], line[256];
	struct dirent *d;
	int n = 0;
	FILE *f;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		/* The full name where the kernel shows it, else cut short. */
		if (!read_line(path, line, sizeof(line)) ||
		    strncmp(line, "hwtimer/default", 15) ||
		    (line[15] && line[15] != '/'))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Cpus_allowed_list:", 18)) {
				line[strcspn(line, "\n")] = '\0';
				n += !strcmp(line + 18 + strspn(line + 18, " \t"),
					     cpus);
			}
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * CPU hotplug and the default wheel's per-CPU bases. While a CPU is
 * online its base's workers run on it alone; taken offline, they may run
 * anywhere and still serve the base: its timeouts fire, never early, and
 * cancel. Back online, they are on it alone again, and it serves new
 * arms. Root only; skipped when the kernel keeps the CPU online.
 */
TEST_F(ctx, cpu_hotplug)
{
	enum { N = 16 };
	struct hwtimer_batch_op ops[2 * N];
	struct hwtimer_event ev[2 * N];
	char online[64], c1s[16], possible[64];
	int fd = self->fd, cpus[2], k, i, got, nw, bad = 0;
	int not_cancelled = 0, ret;
	uint64_t seen = 0;
	struct hwtimer_batch b;
	cpu_set_t allowed;

	if (geteuid() != 0)
		SKIP(return, "needs root to take a CPU offline");
	if (read_param("/sys/module/hwtimer/parameters/percpu") != 1)
		SKIP(return, "the default wheel has one base");
	ASSERT_TRUE(two_cpus(cpus, &allowed));
	if (cpus[1] == cpus[0])
		SKIP(return, "needs two CPUs");
	snprintf(online, sizeof(online), "/sys/devices/system/cpu/cpu%d/online",
		 cpus[1]);
	if (access(online, W_OK))
		SKIP(return, "%s not writable", online);
	ASSERT_TRUE(read_line("/sys/devices/system/cpu/possible", possible,
			      sizeof(possible)));
	snprintf(c1s, sizeof(c1s), "%d", cpus[1]);
	nw = read_param("/sys/module/hwtimer/parameters/workers");
	ASSERT_TRUE(nw > 0);
	ASSERT_TRUE(default_workers_on(c1s) == nw) {
		TH_LOG("%d workers on CPU %s alone, want %d",
		       default_workers_on(c1s), c1s, nw);
	}

	/* On the second CPU's base: N due soon, N far. */
	ASSERT_TRUE(run_on_cpu(cpus[1]));
	for (i = 0; i < N; i++) {
		ops[i] = arm_op(i, 300 * MS, CLOCK_MONOTONIC);
		ops[N + i] = arm_op(100 + i, 100000 * MS, CLOCK_MONOTONIC);
	}
	ASSERT_TRUE(batch(fd, ops, 2 * N, &b) == 0 && !b.failed);
	ASSERT_TRUE(run_on_cpu(cpus[0]));
	ret = write_file(online, "0");
	if (ret) {
		/* Teardown closes the context and its timeouts with it. */
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(allowed), &allowed));
		SKIP(return, "CPU %s stays online: %s", c1s, strerror(-ret));
	}

	/* Offline: nothing below may ASSERT before the CPU is back. */
	EXPECT_TRUE(default_workers_on(c1s) == 0 &&
		    default_workers_on(possible) == nw) {
		TH_LOG("CPU %s offline: %d workers on it alone, %d on %s",
		       c1s, default_workers_on(c1s),
		       default_workers_on(possible), possible);
	}
	for (got = 0; got < N; ) {
		k = wait_events(fd, ev, 2 * N, LATE_MAX_NS / MS + 300);
		if (k <= 0)
			break;
		for (i = 0; i < k; i++) {
			bad += ev[i].cookie >= N || (seen & 1ULL << ev[i].cookie) ||
			       ev[i].fire_ns < ev[i].deadline_ns;
			if (ev[i].cookie < N)
				seen |= 1ULL << ev[i].cookie;
		}
		got += k;
	}
	EXPECT_TRUE(got == N && !bad) {
		TH_LOG("CPU %s offline: %d of %d records, %d bad", c1s, got, N,
		       bad);
	}
	for (i = 0; i < N; i++)
		ops[i] = id_op(HWTIMER_OP_CANCEL, ops[N + i].id, 0);
	EXPECT_TRUE(batch(fd, ops, N, &b) == 0 && !b.failed);
	for (i = 0; i < N; i++)
		not_cancelled += ops[i].result != HWTIMER_RESULT_CANCELLED;
	EXPECT_EQ(0, not_cancelled);

	ASSERT_EQ(0, write_file(online, "1"));
	ASSERT_TRUE(default_workers_on(c1s) == nw) {
		TH_LOG("CPU %s back: %d workers on it alone, want %d", c1s,
		       default_workers_on(c1s), nw);
	}
	ASSERT_TRUE(run_on_cpu(cpus[1]));
	for (i = 0; i < N; i++)
		ops[i] = arm_op(200 + i, 20 * MS, CLOCK_MONOTONIC);
	ASSERT_TRUE(batch(fd, ops, N, &b) == 0 && !b.failed);
	for (got = 0; got < N; got += k) {
		k = wait_events(fd, ev, 2 * N, LATE_MAX_NS / MS + 20);
		ASSERT_TRUE(k > 0) {
			TH_LOG("CPU %s back: %d of %d records", c1s, got, N);
		}
		for (i = 0; i < k; i++)
			ASSERT_TRUE(ev[i].cookie >= 200 && ev[i].cookie < 200 + N &&
				    ev[i].fire_ns >= ev[i].deadline_ns);
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(allowed), &allowed));
	close_dev(self, fd);
}

/* BATCH: NULL/unmapped EFAULT, count/flags/reserved EINVAL. */
TEST_F(ctx, batch_bad)
{
	struct hwtimer_batch_op op = { 0 };
	struct hwtimer_batch b = { 0 };
	int fd = self->fd;

	ASSERT_TRUE(batch(fd, NULL, 0, &b) == 0 && b.done == 0) {
		TH_LOG("empty batch");
	}
	ASSERT_TRUE(batch(fd, NULL, 3, &b) == -EFAULT) {
		TH_LOG("NULL ops");
	}
	ASSERT_TRUE(batch(fd, unmapped_ptr(), 1, &b) == -EFAULT) {
		TH_LOG("unmapped ops");
	}
	ASSERT_TRUE(batch(fd, &op, HWTIMER_BATCH_MAX + 1, &b) == -EINVAL) {
		TH_LOG("count > max");
	}
	memset(&b, 0, sizeof(b));
	b.ops = (uint64_t)(uintptr_t)&op;
	b.count = 1;
	b.flags = 2;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_BATCH, &b) == -EINVAL) {
		TH_LOG("flags");
	}
	b.flags = 0;
	b.reserved[1] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_BATCH, &b) == -EINVAL) {
		TH_LOG("reserved");
	}
	close_dev(self, fd);
}

/*
 * STATS: counters, 0xAA outputs written.
 * STATS: every output word written (0xAA pre-fill), counters consistent.
 */
TEST_F(ctx, stats)
{
	struct hwtimer_stats_req st;
	uint64_t w;
	size_t i;
	int fd = self->fd;

	ASSERT_TRUE(arm(fd, 1, 10000 * MS, NULL) == 0 && arm(fd, 2, 0, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("never fired");
	}
	memset(&st, 0xaa, sizeof(st));
	st.clock = CLOCK_MONOTONIC;
	st.flags = 0;
	memset(st.reserved, 0, sizeof(st.reserved));
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_STATS, &st) == 0) {
		TH_LOG("STATS: %s", strerror(errno));
	}
	for (i = 0; i < sizeof(st); i += 8) {
		memcpy(&w, (char *)&st + i, 8);
		ASSERT_TRUE(w != PAT64) {
			TH_LOG("stats byte %zu not written", i);
		}
	}
	ASSERT_TRUE(st.clock == CLOCK_MONOTONIC) {
		TH_LOG("clock not echoed");
	}
	ASSERT_TRUE(st.ctx_armed == 2 && st.ctx_pending == 1 && st.ctx_queued == 1 &&
		    st.ctx_live == 2 && st.ctx_fired == 1) {
		TH_LOG("armed %" PRIu64 " pending %" PRIu64 " queued %" PRIu64
		       " live %" PRIu64 " fired %" PRIu64,
		       (uint64_t)st.ctx_armed, (uint64_t)st.ctx_pending,
		       (uint64_t)st.ctx_queued, (uint64_t)st.ctx_live,
		       (uint64_t)st.ctx_fired);
	}
	ASSERT_TRUE(st.tick_ns == tick_ns) {
		TH_LOG("tick_ns %" PRIu64, (uint64_t)st.tick_ns);
	}
	/* The wheel carries the context's wake-up, for the far timeout. */
	ASSERT_TRUE(st.pending >= 1 && st.armed >= 1) {
		TH_LOG("wheel counters: pending %" PRIu64 " armed %" PRIu64,
		       (uint64_t)st.pending, (uint64_t)st.armed);
	}
	close_dev(self, fd);
}

/* STATS: bad clock and reserved gives EINVAL. */
TEST_F(ctx, stats_bad)
{
	struct hwtimer_stats_req st;
	int fd = self->fd;

	memset(&st, 0, sizeof(st));
	st.clock = CLOCK_TAI;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_STATS, &st) == -EINVAL) {
		TH_LOG("CLOCK_TAI");
	}
	st.clock = CLOCK_BOOTTIME;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_STATS, &st) == 0) {
		TH_LOG("CLOCK_BOOTTIME wheel");
	}
	st.reserved[0] = 1;
	ASSERT_TRUE(xioctl(fd, HWTIMER_IOC_STATS, &st) == -EINVAL) {
		TH_LOG("reserved");
	}
	close_dev(self, fd);
}

/* fdinfo shows pending, queued and the id table's size. */
TEST_F(ctx, fdinfo)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd = self->fd;
	int f;

	ASSERT_TRUE(arm(fd, 1, 10000 * MS, NULL) == 0 &&
		    arm(fd, 2, 10000 * MS, NULL) == 0 && arm(fd, 3, 0, NULL) == 0) {
		TH_LOG("arm");
	}
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("never fired");
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	ASSERT_TRUE(f >= 0) {
		TH_LOG("open %s", path);
	}
	n = read(f, buf, sizeof(buf) - 1);
	close_dev(self, f);
	ASSERT_TRUE(n > 0) {
		TH_LOG("read fdinfo");
	}
	buf[n] = 0;
	ASSERT_TRUE(!!strstr(buf, "hwtimer-pending:\t2\n")) {
		TH_LOG("pending missing:\n%s", buf);
	}
	ASSERT_TRUE(!!strstr(buf, "hwtimer-queued:\t1\n")) {
		TH_LOG("queued missing:\n%s", buf);
	}
	/* Three ids fit the first id table: 64 slots of 8 bytes. */
	ASSERT_TRUE(!!strstr(buf, "hwtimer-table-bytes:\t512\n")) {
		TH_LOG("table size missing:\n%s", buf);
	}
	close_dev(self, fd);
}

/* fdinfo field @key (with its colon) of @fd as a number, or -1. */
static long fdinfo_field(int fd, const char *key)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

#define SPARE_N 64

/*
 * A context keeps the one-shot timers its cancels and reads free for its
 * next arms (fdinfo's hwtimer-spare): ARM takes them, a periodic arm does
 * not, and a timer used again carries nothing of its last life. The ids
 * of the old timeouts stay dead, a new one-shot on a timer that fired
 * before is cancelled (not "already fired"), records carry the new
 * cookies.
 */
TEST_F(ctx, spare_reuse)
{
	uint64_t old[SPARE_N], id[SPARE_N], pid;
	struct hwtimer_batch_op ops[SPARE_N];
	struct hwtimer_event ev;
	struct hwtimer_batch b;
	long s0, s;
	uint32_t res;
	int fd = self->fd, i, k;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < SPARE_N; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].deadline_ns = 3600000 * MS;
		ops[i].cookie = i;
	}
	ASSERT_TRUE(batch(fd, ops, SPARE_N, &b) == 0 && !b.failed) {
		TH_LOG("batch of arms");
	}
	ASSERT_EQ(fdinfo_field(fd, "hwtimer-spare:"), 0);
	for (i = 0; i < SPARE_N; i++) {
		old[i] = ops[i].id;
		ASSERT_TRUE(cancel(fd, old[i], &res) == 0 &&
			    res == HWTIMER_RESULT_CANCELLED) {
			TH_LOG("cancel %d", i);
		}
	}
	s0 = fdinfo_field(fd, "hwtimer-spare:");
	ASSERT_TRUE(s0 >= 2 && s0 <= SPARE_N) {
		TH_LOG("%ld spares after %d cancels", s0, SPARE_N);
	}
	k = s0 < 8 ? s0 : 8;
	/* The first fires at once, the others wait. */
	for (i = 0; i < k; i++) {
		ASSERT_EQ(arm(fd, 1000 + i, i ? 3600000 * MS : 0, &id[i]), 0);
		ASSERT_EQ(fdinfo_field(fd, "hwtimer-spare:"), s0 - i - 1);
	}
	ASSERT_EQ(arm_full(fd, 7, 3600000 * MS, 1000 * MS, CLOCK_MONOTONIC, 0,
			   &pid), 0);
	ASSERT_EQ(fdinfo_field(fd, "hwtimer-spare:"), s0 - k);
	for (i = 0; i < SPARE_N; i++)
		ASSERT_EQ(cancel(fd, old[i], &res), -ENOENT);
	ASSERT_EQ(wait_events(fd, &ev, 1, WAIT_MS), 1);
	ASSERT_TRUE(ev.id == id[0] && ev.cookie == 1000) {
		TH_LOG("record of id %llx cookie %llu",
		       (unsigned long long)ev.id,
		       (unsigned long long)ev.cookie);
	}
	/* Read, the fired one-shot is a spare again: then armed again. */
	ASSERT_EQ(fdinfo_field(fd, "hwtimer-spare:"), s0 - k + 1);
	ASSERT_EQ(arm(fd, 2000, 3600000 * MS, &id[0]), 0);
	for (i = 0; i < k; i++) {
		ASSERT_TRUE(modify(fd, id[i], 7200000 * MS, 0, &res) == 0 &&
			    res == HWTIMER_RESULT_MODIFIED) {
			TH_LOG("modify %d", i);
		}
		ASSERT_TRUE(cancel(fd, id[i], &res) == 0 &&
			    res == HWTIMER_RESULT_CANCELLED) {
			TH_LOG("cancel of reused timer %d: result %u", i, res);
		}
	}
	ASSERT_EQ(cancel(fd, pid, &res), 0);
	s = fdinfo_field(fd, "hwtimer-spare:");
	ASSERT_EQ(s, s0);
	close_dev(self, fd);
}

/* Whether the running kernel has KASAN: its symbols are listed to all. */
static bool kernel_has_kasan(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !!strstr(line, " kasan_report\n");
	fclose(f);
	return found;
}

/* Arm @n one-shots an hour away in one BATCH, then cancel them in another. */
static int arm_cancel_n(int fd, int n)
{
	static struct hwtimer_batch_op ops[4096];
	struct hwtimer_batch b;
	uint64_t id;
	int i;

	if (n > 4096)
		return -EINVAL;
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < n; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].deadline_ns = 3600000 * MS;
	}
	if (batch(fd, ops, n, &b) || b.failed)
		return -EIO;
	for (i = 0; i < n; i++) {
		id = ops[i].id;
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = HWTIMER_OP_CANCEL;
		ops[i].id = id;
	}
	if (batch(fd, ops, n, &b) || b.failed)
		return -EIO;
	return 0;
}

/*
 * Arm @n one-shots an hour away in one BATCH, never cancelled.
 * Return: how many armed, or -1 if an arm failed but with EDQUOT.
 */
static int arm_until_quota(int fd, int n)
{
	static struct hwtimer_batch_op ops[4096];
	struct hwtimer_batch b;
	int i, ok = 0;

	if (n > 4096)
		return -1;
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < n; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].clock = CLOCK_MONOTONIC;
		ops[i].deadline_ns = 3600000 * MS;
	}
	if (batch(fd, ops, n, &b))
		return -1;
	for (i = 0; i < n; i++) {
		if (!ops[i].status)
			ok++;
		else if (ops[i].status != -EDQUOT)
			return -1;
	}
	return ok;
}

#define CHARGE_LIMIT	3000
#define CHARGE_N	2000

/*
 * Past the spares a context keeps free of charge, it keeps the rest of
 * what its cancels free, each counted against max_user_timeouts as a live
 * timeout (fdinfo's hwtimer-spare-charged): another context of the user
 * has that much less room, until a second or so in which the context takes
 * none frees them. A KASAN kernel keeps none charged. As uid LIMIT_UID
 * with the limit at CHARGE_LIMIT.
 */
static void spare_charge_body(struct __test_metadata *_metadata,
			      struct _test_data_ctx *self, int kasan)
{
	int a = open_dev(_metadata, self), b = open_dev(_metadata, self);
	long s1, c1, c, s;
	int room, i;

	ASSERT_EQ(0, arm_cancel_n(a, CHARGE_N));
	s1 = fdinfo_field(a, "hwtimer-spare:");
	c1 = fdinfo_field(a, "hwtimer-spare-charged:");
	ASSERT_TRUE(c1 >= 0 && s1 > c1 && s1 <= CHARGE_N) {
		TH_LOG("%ld spares, %ld charged, after %d cancels", s1, c1, CHARGE_N);
	}
	ASSERT_TRUE(kasan ? c1 == 0 : s1 == CHARGE_N && c1 > 0) {
		TH_LOG("%ld spares, %ld charged, after %d cancels (KASAN: %d)",
		       s1, c1, CHARGE_N, kasan);
	}
	/* B's room is the limit less A's charged spares. */
	room = arm_until_quota(b, CHARGE_LIMIT);
	c = fdinfo_field(a, "hwtimer-spare-charged:");
	if (c == c1) {
		/* Not freed meanwhile: B met the charge. */
		ASSERT_EQ(room, CHARGE_LIMIT - c1);
	} else {
		TH_LOG("charged spares freed within B's arms: room %d", room);
		ASSERT_TRUE(c == 0 && room >= CHARGE_LIMIT - c1 && room <= CHARGE_LIMIT);
	}
	/* Idle, A's charged spares go, and B gets their room. */
	for (i = 0; i < 100 && c; i++) {
		sleep_ms(100);
		c = fdinfo_field(a, "hwtimer-spare-charged:");
	}
	ASSERT_EQ(c, 0) {
		TH_LOG("%ld charged spares left after 10 s idle", c);
	}
	s = fdinfo_field(a, "hwtimer-spare:");
	ASSERT_EQ(s, s1 - c1);
	ASSERT_EQ(arm_until_quota(b, CHARGE_LIMIT), CHARGE_LIMIT - room);
	/* Spares let no context past the limit: A arms none either. */
	ASSERT_EQ(arm_until_quota(a, 16), 0);
	close_dev(self, b);
	ASSERT_EQ(0, arm_cancel_n(a, 16));
	ASSERT_EQ(fdinfo_field(a, "hwtimer-spare:"), s);
	close_dev(self, a);
}

TEST_F(ctx, spare_charged)
{
	int old = read_param(PARAM_USER);

	if (geteuid() != 0)
		SKIP(return, "needs root to set max_user_timeouts");
	ASSERT_TRUE(old >= 0) {
		TH_LOG("%s missing", PARAM_USER);
	}
	as_limited_user(_metadata, self, old, CHARGE_LIMIT, spare_charge_body,
			kernel_has_kasan());
}

/*
 * close with pending, firing and periodic timeouts.
 * close() with pending, firing and unread timeouts cancels and frees all.
 */
TEST_F(ctx, close_pending)
{
	uint64_t before = wheel_pending(), after;
	int fd, i, r;

	close_dev(self, self->fd);
	for (r = 0; r < 5; r++) {
		fd = open_dev(_metadata, self);
		ASSERT_TRUE(fd >= 0) {
			TH_LOG("open");
		}
		for (i = 0; i < 300; i++) {
			ASSERT_TRUE(arm(fd, i, (uint64_t)(i % 3) * tick_ns * 4, NULL) == 0) {
				TH_LOG("arm %d", i);
			}
		}
		ASSERT_TRUE(arm_full(fd, 1, tick_ns, tick_ns, CLOCK_MONOTONIC, 0, NULL) == 0) {
			TH_LOG("arm periodic");
		}
		ASSERT_TRUE(arm(fd, 1, 100000 * MS, NULL) == 0) {
			TH_LOG("arm far");
		}
		if (r & 1)
			sleep_ms(5);
		close_dev(self, fd);
	}
	sleep_ms(50);
	after = wheel_pending();
	ASSERT_TRUE(after <= before) {
		TH_LOG("wheel pending %" PRIu64 " -> %" PRIu64 " after closing", before, after);
	}
}

/* dup shares the context. */
TEST_F(ctx, dup)
{
	struct hwtimer_event ev;
	uint32_t res = 0;
	uint64_t id;
	int fd = self->fd;
	int fd2 = track_fd(self, dup(fd));

	ASSERT_TRUE(arm(fd, 1, 10000 * MS, &id) == 0) {
		TH_LOG("arm on fd");
	}
	ASSERT_TRUE(cancel(fd2, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("cancel through the dup");
	}
	ASSERT_TRUE(arm(fd2, 42, 10 * MS, &id) == 0) {
		TH_LOG("arm on the dup");
	}
	close_dev(self, fd2);
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id && ev.cookie == 42) {
		TH_LOG("event of the dup not read through fd");
	}
	close_dev(self, fd);
}

/* fork shares the context. */
TEST_F(ctx, fork)
{
	struct hwtimer_event ev;
	int fd = self->fd;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_TRUE(pid >= 0) {
		TH_LOG("fork");
	}
	if (!pid)
		_exit(arm(fd, 0xf0f0, 10 * MS, NULL) == 0 ? 0 : 1);
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("child's arm failed");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.cookie == 0xf0f0) {
		TH_LOG("parent did not get the child's event");
	}
	close_dev(self, fd);
}

/* per-context cap gives ENOSPC, freed by cancel. */
TEST_F(ctx, enospc)
{
	uint64_t id;
	int cap = read_param(PARAM_CAP), want = cap, fd;

	if (cap < 0)
		SKIP(return, "%s not readable", PARAM_CAP);
	if (geteuid() == 0) {
		want = 32;
		cap_saved = cap;
		ASSERT_TRUE(write_param(PARAM_CAP, want) == 0) {
			TH_LOG("lower the cap");
		}
	} else if (cap > 20000) {
		SKIP(return, "cap %d too large to fill without root", cap);
	}
	fd = self->fd;
	ASSERT_TRUE(fill_to(fd, want - 1) == 0) {
		TH_LOG("fill to cap - 1");
	}
	ASSERT_TRUE(arm(fd, 1, 100000 * MS, &id) == 0) {
		TH_LOG("the last one under the cap");
	}
	ASSERT_TRUE(arm(fd, 1, 100000 * MS, NULL) == -ENOSPC) {
		TH_LOG("arm past the cap");
	}
	ASSERT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("cancel one");
	}
	ASSERT_TRUE(arm(fd, 1, 100000 * MS, NULL) == 0) {
		TH_LOG("arm after freeing a slot");
	}
	ASSERT_TRUE(arm(fd, 1, 100000 * MS, NULL) == -ENOSPC) {
		TH_LOG("cap again");
	}
	close_dev(self, fd);
}

/*
 * unread events count against the cap.
 * An unread one-shot counts against the cap until it is read.
 */
TEST_F(ctx, enospc_unread)
{
	struct hwtimer_event ev;
	int cap = read_param(PARAM_CAP), fd;

	if (geteuid() != 0 || cap < 0)
		SKIP(return, "needs root to lower the cap");
	cap_saved = cap;
	ASSERT_TRUE(write_param(PARAM_CAP, 2) == 0) {
		TH_LOG("lower the cap");
	}
	fd = self->fd;
	ASSERT_TRUE(arm(fd, 1, 0, NULL) == 0 && arm(fd, 2, 0, NULL) == 0) {
		TH_LOG("arm 2");
	}
	ASSERT_TRUE(wait_count(fd, 2, false)) {
		TH_LOG("never fired");
	}
	ASSERT_TRUE(arm(fd, 3, 0, NULL) == -ENOSPC) {
		TH_LOG("unread events not counted");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
		TH_LOG("read one");
	}
	ASSERT_TRUE(arm(fd, 3, 0, NULL) == 0) {
		TH_LOG("slot not freed by read");
	}
	close_dev(self, fd);
}

/* ARM racing readers on due one-shots: every id is its record's. */
TEST_F(ctx, arm_race_readers)
{
	arm_race(_metadata, self, false);
}

/* BATCH arms racing readers: every id is its record's. */
TEST_F(ctx, batch_arm_race_readers)
{
	arm_race(_metadata, self, true);
}

/*
 * BATCH with read-only ops gives EFAULT, nothing armed.
 * BATCH whose op array is read-only: EFAULT, and no op may take effect.
 */
TEST_F(ctx, batch_ro_ops)
{
	struct hwtimer_batch_op *ops = map_pages(_metadata, 1, false);
	struct hwtimer_event ev[4];
	struct hwtimer_batch b;
	int fd = self->fd;
	int i, ret;

	if (!ops || fd < 0)
		goto out;
	for (i = 0; i < 3; i++) {
		ops[i].op = HWTIMER_OP_ARM;
		ops[i].cookie = 0xa0 + i;
		ops[i].deadline_ns = 20 * MS;
		ops[i].clock = CLOCK_MONOTONIC;
	}
	ASSERT_TRUE(mprotect(ops, 4096, PROT_READ) == 0) {
		TH_LOG("mprotect");
	}
	ret = batch(fd, ops, 3, &b);
	ASSERT_TRUE(ret == -EFAULT) {
		TH_LOG("BATCH with read-only ops gave %d, want -EFAULT", ret);
	}
	assert_ctx_counts(_metadata, fd, 0, 0, 0);
	i = wait_events(fd, ev, 4, NOFIRE_MS);
	ASSERT_TRUE(i == 0) {
		TH_LOG("%d record(s) of the faulted batch (cookie %#" PRIx64 ")", i,
		       i > 0 ? (uint64_t)ev[0].cookie : 0);
	}
	assert_ctx_counts(_metadata, fd, 0, 0, 0);
out:
	if (ops)
		munmap(ops, 4096);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * ARM with a read-only request gives EFAULT, never fires (due arms).
 * ARM with a read-only request: EFAULT, and its timeout never fires.
 */
TEST_F(ctx, arm_ro_req)
{
	struct hwtimer_arm_req *r = map_pages(_metadata, 1, false);
	uint64_t end = now_ns(CLOCK_MONOTONIC) + 1000 * MS;
	struct hwtimer_event ev[8];
	int fd = self->fd;
	int i, n, wrong = 0, ret;

	if (!r || fd < 0)
		goto out;
	/* Due at once: it may fire before the kernel finds it cannot reply. */
	r->cookie = 0xb0;
	r->clock = CLOCK_MONOTONIC;
	ASSERT_TRUE(mprotect(r, 4096, PROT_READ) == 0) {
		TH_LOG("mprotect");
	}
	/*
	 * The timeout must fire between the arm and the failed copy-out to
	 * show: rare, so 1000 tries at least, and more for up to a second.
	 */
	for (i = 0; i < 20000 && (i < 1000 || now_ns(CLOCK_MONOTONIC) < end); i++) {
		ret = xioctl(fd, HWTIMER_IOC_ARM, r);
		if (ret != -EFAULT && !wrong++) {
			EXPECT_EQ(-EFAULT, ret) {
				TH_LOG("ARM %d with a read-only request gave %d, want -EFAULT",
				       i, ret);
			}
		}
	}
	printf("# %d ARMs with a read-only request\n", i);
	if (wrong)
		goto out;
	n = wait_events(fd, ev, 8, NOFIRE_MS);
	ASSERT_TRUE(n == 0) {
		TH_LOG("%d record(s) (first of possibly more) for ARMs that failed with EFAULT", n);
	}
	assert_ctx_counts(_metadata, fd, 0, 0, 0);
out:
	if (r)
		munmap(r, 4096);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * CANCEL with a read-only request gives EFAULT, not cancelled.
 * CANCEL with a read-only request: EFAULT, and the timeout still fires.
 */
TEST_F(ctx, cancel_ro_req)
{
	struct hwtimer_cancel_req *r = map_pages(_metadata, 1, false);
	struct hwtimer_event ev;
	int fd = self->fd;
	uint64_t id;
	int ret;

	if (!r || fd < 0)
		goto out;
	/* 300 ms: still pending when CANCEL runs, even after a vCPU stall. */
	ASSERT_TRUE(arm(fd, 0xc0, 300 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	r->id = id;
	ASSERT_TRUE(mprotect(r, 4096, PROT_READ) == 0) {
		TH_LOG("mprotect");
	}
	ret = xioctl(fd, HWTIMER_IOC_CANCEL, r);
	ASSERT_TRUE(ret == -EFAULT) {
		TH_LOG("CANCEL with a read-only request gave %d, want -EFAULT", ret);
	}
	ASSERT_TRUE(stats_pending(fd) == 1) {
		TH_LOG("the failed CANCEL cancelled the timeout");
	}
	EXPECT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id) {
		TH_LOG("timeout never fired after a CANCEL that failed with EFAULT");
	}
out:
	if (r)
		munmap(r, 4096);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * BATCH with a read-only header gives EFAULT, no op takes effect.
 * BATCH whose header is read-only: EFAULT and none of its ops happen.
 */
TEST_F(ctx, batch_ro_header)
{
	struct hwtimer_batch *b = map_pages(_metadata, 1, false);
	struct hwtimer_batch_op ops[2];
	struct hwtimer_event ev[4];
	int fd = self->fd;
	uint64_t keep;
	int ret, n;

	if (!b || fd < 0)
		goto out;
	/* 500 ms: the CANCEL op would find it pending after any stall. */
	ASSERT_TRUE(arm(fd, 0xd0, 500 * MS, &keep) == 0) {
		TH_LOG("arm");
	}
	memset(ops, 0, sizeof(ops));
	ops[0].op = HWTIMER_OP_ARM;
	ops[0].cookie = 0xd1;
	ops[0].deadline_ns = 20 * MS;
	ops[0].clock = CLOCK_MONOTONIC;
	ops[1].op = HWTIMER_OP_CANCEL;
	ops[1].id = keep;
	b->ops = (uint64_t)(uintptr_t)ops;
	b->count = 2;
	ASSERT_TRUE(mprotect(b, 4096, PROT_READ) == 0) {
		TH_LOG("mprotect");
	}
	ret = xioctl(fd, HWTIMER_IOC_BATCH, b);
	ASSERT_TRUE(ret == -EFAULT) {
		TH_LOG("BATCH with a read-only header gave %d, want -EFAULT", ret);
	}
	assert_ctx_counts(_metadata, fd, 1, 1, 0);
	n = wait_events(fd, ev, 4, WAIT_MS);
	ASSERT_TRUE(n == 1 && ev[0].id == keep) {
		TH_LOG("got %d record(s), first cookie %#" PRIx64 "; want only the timeout the batch's CANCEL must not have touched",
		       n, n > 0 ? (uint64_t)ev[0].cookie : 0);
	}
	n = wait_events(fd, ev, 4, NOFIRE_MS);
	EXPECT_TRUE(n == 0) {
		TH_LOG("record of the faulted batch's ARM (cookie %#" PRIx64 ")",
		       n > 0 ? (uint64_t)ev[0].cookie : 0);
	}
out:
	if (b)
		munmap(b, 4096);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * readv: returns the records copied instead of blocking.
 * readv() with one record queued and room for two returns the one.
 */
TEST_F(ctx, readv_no_block)
{
	struct hwtimer_event ev[2];
	struct iovec iov[2] = { { &ev[0], EV }, { &ev[1], EV } };
	ssize_t n;
	int fd = self->fd;

	queue_due(_metadata, fd, 0xe0, 1);
	/* Blocking would be in the second iovec, with a record already copied. */
	n = guarded_readv(_metadata, fd, iov, 2);
	EXPECT_TRUE(n == EV && ev[0].cookie == 0xe0) {
		TH_LOG("readv gave %zd (%s), want one record", n, n < 0 ? strerror(errno) : "");
	}
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * readv: a record split across two iovecs.
 * A record split across two iovecs: 10 + (2 records - 10) bytes hold two.
 */
TEST_F(ctx, readv_split)
{
	unsigned char buf[2 * EV];
	struct iovec iov[2] = { { buf, 10 }, { buf + 10, 2 * EV - 10 } };
	uint32_t seen = 0;
	ssize_t n;
	int fd = self->fd;

	queue_due(_metadata, fd, 0xe8, 2);
	n = guarded_readv(_metadata, fd, iov, 2);
	ASSERT_TRUE(n == 2 * EV) {
		TH_LOG("readv of 10 + %zd bytes gave %zd (%s), want 2 records",
		       2 * EV - 10, n, n < 0 ? strerror(errno) : "");
	}
	cookies_once(_metadata, buf, 2, 0xe8, &seen);
	EXPECT_TRUE(seen == 3) {
		TH_LOG("cookies seen %#x", seen);
	}
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * read into a faulting buffer: records that fit, rest kept.
 *
 * read() into a buffer whose second page is PROT_NONE: nothing fits before
 * it -> EFAULT; three records fit -> those three; every record taken but
 * not copied stays queued for the next read.
 */
TEST_F(ctx, read_fault_keeps)
{
	unsigned char *m = map_pages(_metadata, 2, false), *bad;
	uint32_t seen = 0;
	ssize_t n;
	int fd = self->fd;

	if (!m || fd < 0)
		goto out;
	bad = m + 4096;
	ASSERT_TRUE(mprotect(bad, 4096, PROT_NONE) == 0) {
		TH_LOG("mprotect");
	}
	queue_due(_metadata, fd, 0xf0, 6);
	n = read(fd, bad, 6 * EV);
	ASSERT_TRUE(n == -1 && errno == EFAULT) {
		TH_LOG("read into PROT_NONE gave %zd (%s)", n, strerror(errno));
	}
	assert_ctx_counts(_metadata, fd, 6, 0, 6);
	/* Room for three whole records and 8 bytes of a fourth. */
	n = read_queued(fd, bad - 3 * EV - 8, 6 * EV);
	ASSERT_TRUE(n == 3 * EV) {
		TH_LOG("read ending in PROT_NONE gave %zd (%s), want 3 records", n,
		       n < 0 ? strerror(errno) : "");
	}
	cookies_once(_metadata, bad - 3 * EV - 8, 3, 0xf0, &seen);
	rest_kept(_metadata, fd, 6, 3, 0xf0, &seen);
out:
	if (m)
		munmap(m, 8192);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * readv with a faulting iovec: records that fit, rest kept.
 * readv() whose second iovec faults: the first's record, the rest kept.
 */
TEST_F(ctx, readv_fault_keeps)
{
	unsigned char *m = map_pages(_metadata, 2, false);
	struct iovec iov[2];
	uint32_t seen = 0;
	ssize_t n;
	int fd = self->fd;

	if (!m || fd < 0)
		goto out;
	ASSERT_TRUE(mprotect(m + 4096, 4096, PROT_NONE) == 0) {
		TH_LOG("mprotect");
	}
	queue_due(_metadata, fd, 0xf8, 4);
	iov[0] = (struct iovec){ m, EV };
	iov[1] = (struct iovec){ m + 4096, 3 * EV };
	n = guarded_readv(_metadata, fd, iov, 2);
	ASSERT_TRUE(n == EV) {
		TH_LOG("readv gave %zd (%s), want the first iovec's record", n,
		       n < 0 ? strerror(errno) : "");
	}
	cookies_once(_metadata, m, 1, 0xf8, &seen);
	rest_kept(_metadata, fd, 4, 1, 0xf8, &seen);
out:
	if (m)
		munmap(m, 8192);
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * 200 slot reuses: ids never match another context's.
 *
 * Ids of one context never match another open context's timeouts, however
 * many times a slot is reused: A arms and cancels 200 times (three trips
 * through its 63 first slots), and at each step neither context finds the
 * other's ids.
 */
TEST_F(ctx, ids_cross_ctx)
{
	int a = self->fd, b = open_dev(_metadata, self);
	uint64_t bid[4], id;
	uint32_t res;
	int i, k, ret;

	if (a < 0 || b < 0)
		goto out;
	for (k = 0; k < 4; k++) {
		ASSERT_TRUE(arm(b, 0xb00 + k, 100000 * MS, &bid[k]) == 0) {
			TH_LOG("arm on B");
		}
	}
	for (i = 0; i < 200; i++) {
		ASSERT_TRUE(arm(a, i, 100000 * MS, &id) == 0) {
			TH_LOG("arm %d on A", i);
		}
		for (k = 0; k < 4; k++) {
			ret = cancel(a, bid[k], NULL);
			ASSERT_TRUE(ret == -ENOENT) {
				TH_LOG("cycle %d: B's id %#" PRIx64
				       " on A gave %d, want -ENOENT (A's id %#" PRIx64 ")",
				       i, bid[k], ret, id);
			}
		}
		ret = cancel(b, id, NULL);
		ASSERT_TRUE(ret == -ENOENT) {
			TH_LOG("cycle %d: A's id %#" PRIx64 " on B gave %d, want -ENOENT",
			       i, id, ret);
		}
		ASSERT_TRUE(cancel(a, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
			TH_LOG("cycle %d: A's own cancel", i);
		}
	}
	ASSERT_TRUE(stats_pending(b) == 4) {
		TH_LOG("B's timeouts touched");
	}
	for (k = 0; k < 4; k++) {
		ASSERT_TRUE(cancel(b, bid[k], &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
			TH_LOG("B's own cancel of %#" PRIx64, bid[k]);
		}
	}
out:
	if (a >= 0)
		close_dev(self, a);
	if (b >= 0)
		close_dev(self, b);
}

/*
 * period U64_MAX: one expiry, LAST, nothing pending.
 * A period whose next expiry is past U64_MAX: one expiry, its record LAST.
 */
TEST_F(ctx, period_u64_max)
{
	struct hwtimer_event ev;
	int fd = self->fd;
	uint64_t id;
	int n;

	if (fd < 0)
		goto out;
	ASSERT_TRUE(arm_full(fd, 0x5a, 10 * MS, UINT64_MAX, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm with period U64_MAX");
	}
	ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1 && ev.id == id) {
		TH_LOG("no expiry");
	}
	ASSERT_TRUE(ev.fire_ns >= ev.deadline_ns) {
		TH_LOG("early");
	}
	EXPECT_TRUE(ev.flags == HWTIMER_EVENT_LAST) {
		TH_LOG("flags %#x: its only expiry is not LAST", ev.flags);
	}
	assert_ctx_counts(_metadata, fd, 0, 0, 0);
	ASSERT_TRUE(cancel(fd, id, NULL) == -ENOENT) {
		TH_LOG("id still known after its last record");
	}
	n = wait_events(fd, &ev, 1, NOFIRE_MS);
	EXPECT_TRUE(n == 0) {
		TH_LOG("a second expiry of a U64_MAX period");
	}
out:
	if (fd >= 0)
		close_dev(self, fd);
}

/*
 * O_ASYNC + F_SETOWN: SIGIO when a record becomes readable.
 *
 * O_ASYNC: SIGIO to the owner when a record becomes readable. The signal
 * is sent by the context's wake-up that makes it readable, so it is due
 * by the time poll() sees it; 1 s more covers a vCPU stall in its
 * delivery.
 */
TEST_F(ctx, sigio)
{
	struct pollfd p;
	struct sigaction old;
	int fd = self->fd, i, fl;

	if (fd < 0)
		return;
	catch_sig(SIGIO, &old);
	fl = fcntl(fd, F_GETFL);
	ASSERT_TRUE(fcntl(fd, F_SETOWN, getpid()) == 0) {
		TH_LOG("F_SETOWN: %s", strerror(errno));
	}
	ASSERT_TRUE(fcntl(fd, F_SETFL, fl | O_ASYNC) == 0) {
		TH_LOG("F_SETFL O_ASYNC: %s", strerror(errno));
	}
	EXPECT_TRUE(fcntl(fd, F_GETFL) & O_ASYNC) {
		TH_LOG("O_ASYNC not kept by F_SETFL");
	}
	ASSERT_TRUE(seen_sig() == 0) {
		TH_LOG("SIGIO with nothing queued");
	}
	ASSERT_TRUE(arm(fd, 0x10, 20 * MS, NULL) == 0) {
		TH_LOG("arm");
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	ASSERT_TRUE(poll(&p, 1, WAIT_MS) == 1) {
		TH_LOG("no expiry");
	}
	for (i = 0; i < 100 && seen_sig() != SIGIO; i++)
		sleep_ms(10);
	EXPECT_TRUE(seen_sig() == SIGIO) {
		TH_LOG("no SIGIO when the record became readable");
	}
	close_dev(self, fd);	/* before restoring: a late SIGIO must not kill us */
	sigaction(SIGIO, &old, NULL);
}

/*
 * A signal mid-BATCH does not stop it: all ops run, the handler after.
 *
 * Once a BATCH call has run ops, only a fatal signal stops it: a call
 * that made progress must not fail with EINTR for a signal the process
 * may never see (SIGSTOP and SIGCONT, task work). SIGUSR1, caught without
 * SA_RESTART, goes to the thread in the long batch as soon as its first op
 * is written back. The call must return 0 with done == HWTIMER_BATCH_MAX,
 * nothing failed and every op written back, and the handler must run
 * after it, with the whole batch written back.
 *
 * Timing: none assumed. A trial counts when the batch had not reached
 * its half once the signal was sent (LONG_BATCH_HALF, read after the
 * send); one whose sender stalled that long is inconclusive and run
 * again, up to 5 times.
 */
TEST_F(ctx, batch_signal_no_eintr)
{
	size_t sz = HWTIMER_BATCH_MAX * sizeof(struct hwtimer_batch_op);
	struct hwtimer_batch_op *ops = map_pages(_metadata, sz / 4096, false);
	struct sigaction sa = { .sa_handler = on_batch_sig }, old;
	struct batch_run r = { .fd = self->fd };
	uint32_t at = HWTIMER_BATCH_MAX, i, res;
	int trial;
	uint64_t id;

	if (!ops || r.fd < 0)
		goto out;
	ASSERT_TRUE(arm(r.fd, 0x70, 100000 * MS, &id) == 0) {
		TH_LOG("arm");
	}
	sig_batch_ops = ops;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	for (trial = 1; trial <= 5 && at >= LONG_BATCH_HALF; trial++) {
		__atomic_store_n(&sig_seen, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sig_batch_at, 0, __ATOMIC_SEQ_CST);
		batch_header(&r.b, long_batch(id, ops));
		at = signal_long_batch(&r, ops);
		printf("# trial %d: SIGUSR1 at op %u of %u; returned %d (%s) after %u ms, done %u failed %u\n",
		       trial, at, HWTIMER_BATCH_MAX, r.ret, r.ret ? strerror(r.err) : "ok",
		       ms_of(r.t1 - r.t0), r.b.done, r.b.failed);
		printf("# trial %d: the handler ran with %u ops written back\n", trial,
		       __atomic_load_n(&sig_batch_at, __ATOMIC_SEQ_CST));
	}
	sigaction(SIGUSR1, &old, NULL);
	ASSERT_TRUE(at < LONG_BATCH_HALF) {
		TH_LOG("no trial signalled the batch before its half");
	}
	ASSERT_TRUE(r.ret == 0 && r.b.done == HWTIMER_BATCH_MAX && r.b.failed == 0) {
		TH_LOG("the signal stopped the batch: %d (%s), done %u of %u, failed %u",
		       r.ret, r.ret ? strerror(r.err) : "ok", r.b.done,
		       HWTIMER_BATCH_MAX, r.b.failed);
	}
	for (i = 0; i < HWTIMER_BATCH_MAX; i++) {
		ASSERT_TRUE(ops[i].status == 0 && ops[i].result == HWTIMER_RESULT_MODIFIED) {
			TH_LOG("op %u: status %d result %u", i, ops[i].status, ops[i].result);
		}
	}
	ASSERT_TRUE(seen_sig() == SIGUSR1) {
		TH_LOG("the handler did not run");
	}
	EXPECT_TRUE(__atomic_load_n(&sig_batch_at, __ATOMIC_SEQ_CST) == HWTIMER_BATCH_MAX) {
		TH_LOG("the handler ran with %u ops written back, before the call ended",
		       __atomic_load_n(&sig_batch_at, __ATOMIC_SEQ_CST));
	}
	EXPECT_TRUE(cancel(r.fd, id, &res) == 0 && res == HWTIMER_RESULT_CANCELLED) {
		TH_LOG("timeout lost");
	}
out:
	if (ops)
		munmap(ops, sz);
	if (r.fd >= 0)
		close_dev(self, r.fd);
}

/* What batch_sigkill shares with its children. */
struct kill_share {
	struct hwtimer_batch_op ops[HWTIMER_BATCH_MAX];
	uint32_t ready;		/* atomic: the control child is set up */
	uint32_t gen;		/* atomic: long batches started */
	uint32_t running;	/* atomic: batch @gen is in its BATCH call */
	uint32_t whole;		/* atomic: long batches run to their end */
	uint32_t batch_us;	/* atomic: how long the last of those took */
};

/* One try of batch_sigkill, with its same-boot controls. */
struct kill_try {
	uint64_t exit_ns;	/* control: SIGKILL to waitpid(), child in pause() */
	uint64_t batch_ns;	/* control: one whole long batch, in the child */
	uint64_t dead_ns;	/* SIGKILL to waitpid(), child mid-batch */
	uint32_t at;		/* how far the batch was, read after the kill */
	uint32_t left;		/* how far it was once the child was gone */
	uint32_t all;		/* ops written back then, wherever they are */
	bool mid;		/* the kill came before LONG_BATCH_HALF */
	int status;		/* the child's wait status */
};

/* The child of a kill try: long batches back to back until killed. */
static void long_batches(struct kill_share *sh)
{
	struct hwtimer_batch b;
	int fd = open(DEV, O_RDWR);
	uint64_t id, t0;

	if (fd < 0 || arm(fd, 0x71, 100000 * MS, &id))
		_exit(1);
	for (;;) {
		__atomic_store_n(&sh->running, 0, __ATOMIC_SEQ_CST);
		batch_header(&b, long_batch(id, sh->ops));
		__atomic_add_fetch(&sh->gen, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sh->running, 1, __ATOMIC_SEQ_CST);
		t0 = now_ns(CLOCK_MONOTONIC);
		if (ioctl(fd, HWTIMER_IOC_BATCH, &b) || b.done != HWTIMER_BATCH_MAX)
			_exit(2);
		__atomic_store_n(&sh->running, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sh->batch_us,
				 (uint32_t)((now_ns(CLOCK_MONOTONIC) - t0) / 1000),
				 __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&sh->whole, 1, __ATOMIC_SEQ_CST);
	}
}

/* Wait up to 120 s for *@p to be non-zero, unless child @pid ends first. */
static bool wait_share(uint32_t *p, pid_t pid, int *status)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + 120000 * MS;

	while (!__atomic_load_n(p, __ATOMIC_SEQ_CST)) {
		if (waitpid(pid, status, WNOHANG) || now_ns(CLOCK_MONOTONIC) > end)
			return false;
		sleep_ms(1);
	}
	return true;
}

/* SIGKILL child @pid and reap it; how long that took, in ns. */
static uint64_t kill_reap(pid_t pid, int *status)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC);

	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return now_ns(CLOCK_MONOTONIC) - t;
}

/*
 * One try: a control child that dies in pause(), then a child running
 * long batches, SIGKILLed once one whole batch has ended and the next has
 * written back its first op. Return: NULL, or what went wrong (every
 * child reaped).
 */
static const char *kill_try(struct kill_share *sh, struct kill_try *k)
{
	uint64_t end, id, t;
	uint32_t g;
	pid_t pid;
	int fd;

	memset(k, 0, sizeof(*k));
	__atomic_store_n(&sh->ready, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sh->whole, 0, __ATOMIC_SEQ_CST);
	pid = fork();
	if (!pid) {
		fd = open(DEV, O_RDWR);
		if (fd < 0 || arm(fd, 0x71, 100000 * MS, &id))
			_exit(1);
		__atomic_store_n(&sh->ready, 1, __ATOMIC_SEQ_CST);
		for (;;)
			pause();
	}
	if (pid < 0)
		return "fork";
	if (!wait_share(&sh->ready, pid, &k->status)) {
		kill_reap(pid, &k->status);
		return "the control child did not start";
	}
	k->exit_ns = kill_reap(pid, &k->status);

	pid = fork();
	if (!pid)
		long_batches(sh);
	if (pid < 0)
		return "fork";
	if (!wait_share(&sh->whole, pid, &k->status)) {
		kill_reap(pid, &k->status);
		return "no long batch ended in 120 s";
	}
	k->batch_ns = (uint64_t)__atomic_load_n(&sh->batch_us, __ATOMIC_SEQ_CST) * 1000;
	end = now_ns(CLOCK_MONOTONIC) + 120000 * MS;
	for (;;) {
		g = __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&sh->running, __ATOMIC_SEQ_CST) &&
		    op_written(sh->ops, 0) &&
		    __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST) == g)
			break;
		if (waitpid(pid, &k->status, WNOHANG))
			return "the child of long batches ended";
		if (now_ns(CLOCK_MONOTONIC) > end) {
			kill_reap(pid, &k->status);
			return "no batch seen under way in 120 s";
		}
		sched_yield();
	}
	t = now_ns(CLOCK_MONOTONIC);
	kill(pid, SIGKILL);
	/*
	 * How far the batch is, then whether batch g still runs, in this
	 * order: the child resets the marks only after setting running to 0,
	 * and sets it to 1 again only after a new gen. So a mark found
	 * unwritten while batch g still runs after it is batch g's own, and
	 * the batch had not got that far when SIGKILL became pending.
	 */
	k->at = first_unwritten(sh->ops);
	k->mid = k->at < LONG_BATCH_HALF &&
		 __atomic_load_n(&sh->running, __ATOMIC_SEQ_CST) &&
		 __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST) == g;
	waitpid(pid, &k->status, 0);
	k->dead_ns = now_ns(CLOCK_MONOTONIC) - t;
	k->left = first_unwritten(sh->ops);
	k->all = written_back(sh->ops);
	return NULL;
}

/*
 * SIGKILL ends a long BATCH mid-way, and the child dies promptly.
 *
 * A child runs long batches back to back, each resetting its op array
 * (shared with the parent) to the sentinel; the parent kills it once a
 * batch has written back its first op. Exact: a kill that came before
 * the batch's half (checked after the kill: see batch_signal_no_eintr)
 * leaves it partly written back, in order, its last op untouched, and
 * the child dead of SIGKILL. A kill that found the child between batches
 * is inconclusive: up to 10 tries.
 *
 * Tolerance: the child must be gone within twice what the same boot
 * shows just before, under the same load, for a child dying idle (in
 * pause()) plus one whole long batch: a kill acted on only at the end of
 * the batch stays under that, which the exact check catches; one acted
 * on much later does not. A try over it is retried once with fresh
 * controls; both tries' figures are printed.
 */
TEST_F(ctx, batch_sigkill)
{
	size_t sz = (sizeof(struct kill_share) + 4095) / 4096 * 4096;
	struct kill_share *sh = map_pages(_metadata, sz / 4096, true);
	struct kill_try k, slow = { 0 };
	int tries = 0, slows = 0;
	const char *err;

	if (!sh)
		return;
	for (;;) {
		err = kill_try(sh, &k);
		ASSERT_TRUE(!err) {
			TH_LOG("%s (wait status %#x)", err, k.status);
		}
		tries++;
		printf("# try %d: SIGKILL at op %u of %u (%s); gone after %u ms, %u written back (%u in order)\n",
		       tries, k.at, HWTIMER_BATCH_MAX, k.mid ? "mid-batch" : "inconclusive",
		       ms_of(k.dead_ns), k.all, k.left);
		printf("# try %d: controls: idle child gone after %u ms, one whole batch %u ms\n",
		       tries, ms_of(k.exit_ns), ms_of(k.batch_ns));
		ASSERT_TRUE(WIFSIGNALED(k.status) && WTERMSIG(k.status) == SIGKILL) {
			TH_LOG("child not killed: wait status %#x", k.status);
		}
		if (!k.mid) {
			ASSERT_TRUE(tries < 10) {
				TH_LOG("no kill in 10 tries came mid-batch");
			}
			continue;
		}
		ASSERT_TRUE(k.left > 0 && k.left < HWTIMER_BATCH_MAX && k.all == k.left) {
			TH_LOG("SIGKILL at op %u: %u ops written back, %u in order; want part, in order",
			       k.at, k.all, k.left);
		}
		if (k.dead_ns <= 2 * (k.exit_ns + k.batch_ns))
			break;
		ASSERT_TRUE(++slows < 2) {
			TH_LOG("child gone after %u ms, bound 2 x (%u + %u) ms; on the retry %u ms, bound 2 x (%u + %u) ms",
			       ms_of(slow.dead_ns), ms_of(slow.exit_ns), ms_of(slow.batch_ns),
			       ms_of(k.dead_ns), ms_of(k.exit_ns), ms_of(k.batch_ns));
		}
		slow = k;
	}
	munmap(sh, sz);
}

/*
 * The three records of periodic @p (first expiry @first) after the one
 * with deadline @prev: each a later expiry, whole periods after the first,
 * never early.
 */
static void periodic_goes_on(struct __test_metadata *_metadata, int fd,
			     uint64_t p, uint64_t first, uint64_t prev)
{
	struct hwtimer_event ev;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(wait_events(fd, &ev, 1, WAIT_MS) == 1) {
			TH_LOG("no record after the read (%d)", i);
		}
		ASSERT_TRUE(ev.deadline_ns > prev &&
			    (ev.deadline_ns - first) % p == 0 &&
			    ev.fire_ns >= ev.deadline_ns) {
			TH_LOG("record %d: deadline %" PRIu64 " (previous %" PRIu64
			       ") fire %" PRIu64,
			       i, (uint64_t)ev.deadline_ns, prev,
			       (uint64_t)ev.fire_ns);
		}
		prev = ev.deadline_ns;
	}
}

/*
 * unread periodic: no callback per period, overruns on read.
 *
 * An unread periodic timeout costs nothing per period (timerfd): with its
 * record waiting, a 1-tick periodic makes the wheel run at most a few
 * callbacks (the context's wake-up) over 200 periods; the record then
 * read carries every expiry.
 * Tolerances: wheel callbacks <= 10 over the 200 periods (a kernel that
 * computes overruns when the record is read runs none; 10 leaves room for
 * stray timeouts of other tests on the shared wheel, far below the ~200 of
 * per-period callbacks). overruns within 30% of the periods elapsed
 * between the first expiry and the read (the read's moment is known only
 * as our clock reads around it, and a TCG vCPU stall between those and the
 * kernel's can be tens of ms, which is tens of periods). The record's
 * deadline is never after the read returned (exact) and at most one
 * period and one tick (the wheel's resolution) before the read started.
 */
TEST_F(ctx, periodic_unread_free)
{
	uint64_t p = tick_ns, t0, t1, f0, f1, tb, ta, first, expect, slack;
	struct hwtimer_stats_req st;
	struct hwtimer_event ev[4];
	int fd = self->fd;
	ssize_t n;
	uint64_t id;

	if (fd < 0)
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(arm_full(fd, 0x88, p, p, CLOCK_MONOTONIC, 0, &id) == 0) {
		TH_LOG("arm");
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	ASSERT_TRUE(wait_count(fd, 1, false)) {
		TH_LOG("no first expiry");
	}
	ASSERT_TRUE(stats(fd, &st) == 0) {
		TH_LOG("stats");
	}
	f0 = st.fired;
	sleep_ms(200 * p / MS);
	ASSERT_TRUE(stats(fd, &st) == 0) {
		TH_LOG("stats");
	}
	f1 = st.fired;
	tb = now_ns(CLOCK_MONOTONIC);
	n = read(fd, ev, sizeof(ev));
	ta = now_ns(CLOCK_MONOTONIC);
	printf("# wheel ran %" PRIu64 " callbacks in 200 periods with the record unread\n",
	       f1 - f0);
	ASSERT_TRUE(n == EV) {
		TH_LOG("read %zd bytes, want one record", n);
	}
	first = ev[0].deadline_ns - ev[0].overruns * p;
	expect = (tb - first) / p;
	slack = expect * 3 / 10;
	printf("# record: overruns %" PRIu64 ", %" PRIu64 " periods elapsed (+-%" PRIu64
	       "), deadline %" PRId64 " us before the read\n", (uint64_t)ev[0].overruns,
	       expect, slack, (int64_t)(tb - ev[0].deadline_ns) / 1000);
	EXPECT_TRUE(f1 - f0 <= 10) {
		TH_LOG("the wheel ran %" PRIu64 " callbacks for an unread periodic", f1 - f0);
	}
	EXPECT_TRUE(first >= t0 + p && first <= t1 + p + tick_ns) {
		TH_LOG("first expiry %" PRIu64 " outside arm time + period [%" PRIu64 ", %" PRIu64 "]",
		       first, t0 + p, t1 + p + tick_ns);
	}
	EXPECT_TRUE(ev[0].deadline_ns <= ta) {
		TH_LOG("deadline after the read returned");
	}
	EXPECT_TRUE(ev[0].deadline_ns + p + tick_ns >= tb) {
		TH_LOG("deadline %" PRIu64 " us before the read: not the latest expiry",
		       (uint64_t)((tb - ev[0].deadline_ns) / 1000));
	}
	EXPECT_TRUE(ev[0].overruns + slack >= expect && ev[0].overruns <= expect + slack) {
		TH_LOG("overruns %" PRIu64 ", want %" PRIu64 " +- %" PRIu64,
		       (uint64_t)ev[0].overruns, expect, slack);
	}
	EXPECT_TRUE(ev[0].fire_ns >= ev[0].deadline_ns && ev[0].flags == 0) {
		TH_LOG("fire_ns or flags");
	}
	/* The records after the read only mean something after a good one. */
	if (!_metadata->passed)
		return;
	periodic_goes_on(_metadata, fd, p, first, ev[0].deadline_ns);
	EXPECT_TRUE(cancel(fd, id, NULL) == 0) {
		TH_LOG("cancel");
	}
	close_dev(self, fd);
}

/*
 * max_user_timeouts: EDQUOT across files, nothing leaked.
 *
 * max_user_timeouts, a writable module parameter, bounds one user's live
 * timeouts across all its files with EDQUOT (ENOSPC is the per-file cap).
 * As root: limit 100 for a child running as LIMIT_UID. Unprivileged: the
 * limit as set, when small enough to fill.
 */
TEST_F(ctx, user_limit)
{
	int old = read_param(PARAM_USER);

	ASSERT_TRUE(old >= 0) {
		TH_LOG("%s missing: the per-user limit is required", PARAM_USER);
	}
	if (geteuid() != 0) {
		if (old > 20000)
			SKIP(return, "limit %d too large to fill without root", old);
		user_limit_body(_metadata, self, old);
		return;
	}
	as_limited_user(_metadata, self, old, 100, user_limit_body, 100);
}

/*
 * module pinned while a context is open.
 * The open file pins the module: delete_module must refuse.
 */
TEST_F(ctx, rmmod_refused)
{
	int fd, ret;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	fd = self->fd;
	ret = syscall(SYS_delete_module, "hwtimer", O_NONBLOCK);
	ASSERT_TRUE(ret == -1 && (errno == EWOULDBLOCK || errno == EBUSY)) {
		TH_LOG("delete_module gave %d (%s) with a context open", ret, strerror(errno));
	}
	close_dev(self, fd);
}

int main(int argc, char **argv)
{
	return hwtimer_test_main(argc, argv);
}
