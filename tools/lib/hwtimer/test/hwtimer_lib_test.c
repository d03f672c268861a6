// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_lib_test - libhwtimer's behaviour, on either backend (TAP).
 *
 *   hwtimer_lib_test [--backend device|timerfd|auto]
 *
 * The backend may also come from HWTIMER_TEST_BACKEND; the default is
 * auto (the device when present). With the device asked for and missing,
 * the whole test is skipped (exit status 4, as kselftest's KSFT_SKIP).
 * The same checks run on both: the library promises the same answers
 * from each, and where it documents a difference (fork, eventfd counts)
 * the check expects the documented one. Counters: on the device,
 * hwtimer_stats() must give the kernel's as HWTIMER_IOC_STATS does, and
 * with the library's own (hwtimer_lib_stats(), 0 off the timer rings)
 * they must add up to the calls made, exactly.
 *
 * Timing tolerances. "Never early" is exact: at delivery, clock_gettime()
 * of the timeout's clock is at or past its deadline, and so is the
 * record's fire time. "Late by" is bounded by LATE_MAX_NS (1 s), loose on
 * purpose: the host may be loaded by a VM beside it, and the device runs
 * in a TCG VM; the bound still catches a timeout served a period late or
 * never. An expiry that must come is waited for up to WAIT_NS (5 s).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hwtimer/hwtimer.h>

#define MS		1000000ULL
#define LATE_MAX_NS	(1000 * MS)
#define WAIT_NS		(5000 * MS)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned int open_flags;
static int failed_check;
static char skip_reason[128];

/* Pass when @cond holds; else say why and return false. */
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		return true;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed_check = 1;
	return false;
}

static void skip(const char *why)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", why);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static struct hwtimer *ctx_open(unsigned int sq)
{
	struct hwtimer *h;
	int r = hwtimer_open(&h, sq, open_flags);

	ok(!r, "hwtimer_open: %s: %s", strerror(-r), hwtimer_open_error());
	return r ? NULL : h;
}

static bool on_device(struct hwtimer *h)
{
	return !strcmp(hwtimer_backend(h), "device");
}

/* CLOCK_REALTIME is served; without it, the device refuses it (EINVAL). */
static bool has_realtime(struct hwtimer *h)
{
	return hwtimer_features(h) & HWTIMER_FEATURE_REALTIME;
}

/* Whether @h arms through the timer rings. */
static bool on_rings(struct hwtimer *h)
{
	return hwtimer_features(h) & HWTIMER_FEATURE_RINGS;
}

/**
 * struct view - the caller's own count of its calls on a context
 * @armed: arms answered 0
 * @cancelled: cancels answered CANCELLED
 * @fired: expiries, overruns included
 * @read: records taken for the caller
 * @queued: records waiting to be taken
 * @live: timeouts pending or with a record waiting
 */
struct view {
	uint64_t armed;
	uint64_t cancelled;
	uint64_t fired;
	uint64_t read;
	uint64_t queued;
	uint64_t live;
};

/*
 * hwtimer_stats() of @clock into @st, hwtimer_lib_stats() into @ls, and
 * the caller's count into @v, as <hwtimer/hwtimer.h> says the two add up.
 * Off the rings the library counts nothing. Return: whether both calls
 * succeeded (a failed check if not).
 */
static bool stats_view(struct hwtimer *h, int clock,
		       struct hwtimer_stats_req *st, struct hwtimer_lib_stats *ls,
		       struct view *v)
{
	int r = hwtimer_stats(h, clock, st);

	if (!ok(!r, "stats: %d", r))
		return false;
	r = hwtimer_lib_stats(h, ls, sizeof(*ls));
	if (!ok(!r, "hwtimer_lib_stats: %d", r))
		return false;
	v->armed = st->ctx_armed + ls->taken_back + ls->refused - ls->rearmed;
	v->cancelled = st->ctx_cancelled + ls->taken_back + ls->cancel_raced;
	v->fired = st->ctx_fired - ls->dropped;
	v->read = st->ctx_read - ls->dropped_read + ls->ring_read;
	v->queued = st->ctx_queued + ls->stashed;
	v->live = st->ctx_live - ls->ring_slots + ls->ring_live;
	if (!on_rings(h))
		ok(!ls->ring_slots && !ls->ring_live && !ls->stashed &&
		   !ls->taken_back && !ls->cancel_raced && !ls->rearmed &&
		   !ls->refused && !ls->lost && !ls->dropped &&
		   !ls->dropped_read && !ls->ring_read,
		   "the library counts something off the rings");
	return true;
}

/*
 * On the device, @st must be the kernel's own counters: HWTIMER_IOC_STATS
 * on the context's fd, made now, answers the same. Only for a context
 * where nothing is due meanwhile.
 */
static void kernel_as_is(struct hwtimer *h, const struct hwtimer_stats_req *st)
{
	struct hwtimer_stats_req k;

	if (!on_device(h))
		return;
	memset(&k, 0, sizeof(k));
	k.clock = st->clock;
	if (!ok(!ioctl(hwtimer_fd(h), HWTIMER_IOC_STATS, &k), "STATS: %s",
		strerror(errno)))
		return;
	ok(k.ctx_armed == st->ctx_armed && k.ctx_cancelled == st->ctx_cancelled &&
	   k.ctx_fired == st->ctx_fired && k.ctx_read == st->ctx_read &&
	   k.ctx_queued == st->ctx_queued && k.ctx_live == st->ctx_live &&
	   k.ctx_pending == st->ctx_pending,
	   "hwtimer_stats() is not the kernel's: armed %" PRIu64 "/%" PRIu64
	   " cancelled %" PRIu64 "/%" PRIu64 " fired %" PRIu64 "/%" PRIu64
	   " read %" PRIu64 "/%" PRIu64 " live %" PRIu64 "/%" PRIu64,
	   (uint64_t)st->ctx_armed, (uint64_t)k.ctx_armed,
	   (uint64_t)st->ctx_cancelled, (uint64_t)k.ctx_cancelled,
	   (uint64_t)st->ctx_fired, (uint64_t)k.ctx_fired,
	   (uint64_t)st->ctx_read, (uint64_t)k.ctx_read,
	   (uint64_t)st->ctx_live, (uint64_t)k.ctx_live);
}

/* The next expiry within @ns, copied; false if none came. */
static bool next_event(struct hwtimer *h, struct hwtimer_event *out,
		       uint64_t ns)
{
	const struct hwtimer_event *ev;

	memset(out, 0, sizeof(*out));
	if (hwtimer_wait(h, &ev, ns))
		return false;
	*out = *ev;
	hwtimer_seen(h);
	return true;
}

/* Wait until an expiry is due, without taking it (hwtimer_fd() polls). */
static bool due_within(struct hwtimer *h, unsigned int ms)
{
	struct pollfd p = { .fd = hwtimer_fd(h), .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Whether any expiry comes within @ms. */
static bool quiet_for(struct hwtimer *h, unsigned int ms)
{
	struct hwtimer_event ev;

	return !next_event(h, &ev, ms * MS);
}

static void t_open(void)
{
	struct hwtimer *h = ctx_open(0);
	const char *be;

	if (!h)
		return;
	be = hwtimer_backend(h);
	printf("# backend %s, tick %" PRIu64 " ns, features %#" PRIx64 "\n",
	       be, hwtimer_tick_ns(h), hwtimer_features(h));
	ok(!strcmp(be, "device") || !strcmp(be, "timerfd"), "backend %s", be);
	if (open_flags == HWTIMER_OPEN_TIMERFD)
		ok(!strcmp(be, "timerfd"), "forced timerfd, got %s", be);
	if (open_flags == HWTIMER_OPEN_DEVICE)
		ok(!strcmp(be, "device"), "forced device, got %s", be);
	ok(hwtimer_fd(h) >= 0, "hwtimer_fd %d", hwtimer_fd(h));
	ok(hwtimer_tick_ns(h) > 0, "tick 0");
	ok((hwtimer_features(h) & (HWTIMER_FEATURE_PERIODIC |
		HWTIMER_FEATURE_BOOTTIME | HWTIMER_FEATURE_BATCH)) ==
	   (HWTIMER_FEATURE_PERIODIC | HWTIMER_FEATURE_BOOTTIME |
	    HWTIMER_FEATURE_BATCH), "features %#" PRIx64, hwtimer_features(h));
	hwtimer_close(h);
}

/* Without the module, a forced device open fails clearly. */
static void t_open_absent(void)
{
	struct hwtimer *h;
	int r;

	if (!access("/dev/hwtimer", F_OK)) {
		skip("/dev/hwtimer is present");
		return;
	}
	errno = 0;
	r = hwtimer_open(&h, 0, HWTIMER_OPEN_DEVICE);
	ok(r == -ENOENT && errno == ENOENT && !h, "open: %d errno %d", r, errno);
	ok(strstr(hwtimer_open_error(), "/dev/hwtimer") &&
	   strstr(hwtimer_open_error(), "module"), "message \"%s\"",
	   hwtimer_open_error());
	r = hwtimer_open(&h, 0, HWTIMER_OPEN_DEVICE | HWTIMER_OPEN_TIMERFD);
	ok(r == -EINVAL, "both backends forced: %d", r);
}

/*
 * hwtimer_open_path(): NULL is /dev/hwtimer; a missing node falls back or
 * fails with its path named; a node that is no hwtimer fails the handshake
 * (ENOTTY), fallback or not. hwtimer_get_api() agrees with the getters.
 */
static void t_open_path(void)
{
	const char *nodev = "/nonexistent/hwtimer";
	struct hwtimer_api api;
	struct hwtimer *h;
	int r;

	r = hwtimer_open_path(&h, NULL, 0, open_flags);
	ok(!r, "open_path(NULL): %d: %s", r, hwtimer_open_error());
	if (h) {
		hwtimer_get_api(h, &api);
		ok(api.api == HWTIMER_API, "api %" PRIu64, (uint64_t)api.api);
		/* RINGS only while the context uses them. */
		ok((api.features | HWTIMER_FEATURE_RINGS) ==
		   (hwtimer_features(h) | HWTIMER_FEATURE_RINGS) &&
		   (api.features & HWTIMER_FEATURE_RINGS) >=
		   (hwtimer_features(h) & HWTIMER_FEATURE_RINGS) &&
		   api.tick_ns == hwtimer_tick_ns(h),
		   "api features %#" PRIx64 " tick %" PRIu64,
		   (uint64_t)api.features, (uint64_t)api.tick_ns);
		ok(api.event_size == sizeof(struct hwtimer_event) &&
		   api.max_pending > 0, "event_size %u max_pending %" PRIu64,
		   api.event_size, (uint64_t)api.max_pending);
		ok(on_device(h) == !!api.ioctls, "ioctls %#" PRIx64 " on %s",
		   (uint64_t)api.ioctls, hwtimer_backend(h));
		hwtimer_close(h);
	}
	r = hwtimer_open_path(&h, nodev, 0, HWTIMER_OPEN_DEVICE);
	ok(r == -ENOENT && !h, "forced device at %s: %d", nodev, r);
	ok(!strncmp(hwtimer_open_error(), "cannot open /nonexistent/hwtimer: ",
		    34), "message \"%s\"", hwtimer_open_error());
	r = hwtimer_open_path(&h, nodev, 0, 0);
	ok(!r && h && !strcmp(hwtimer_backend(h), "timerfd"),
	   "missing node, no flag: %d, not timerfd", r);
	ok(strstr(hwtimer_open_error(), nodev), "fallback message \"%s\"",
	   hwtimer_open_error());
	hwtimer_close(h);
	r = hwtimer_open_path(&h, "/dev/null", 0, 0);
	ok(r == -ENOTTY && !h, "/dev/null, no flag: %d", r);
	ok(!strncmp(hwtimer_open_error(), "/dev/null: HWTIMER_IOC_API: ", 28) &&
	   strstr(hwtimer_open_error(), "(not a hwtimer device?)"),
	   "message \"%s\"", hwtimer_open_error());
	r = hwtimer_open_path(&h, "/dev/null", 0, HWTIMER_OPEN_TIMERFD);
	ok(!r && h, "forced timerfd ignores the path: %d", r);
	hwtimer_close(h);
}

/*
 * hwtimer_stats() and hwtimer_lib_stats(): a fresh context counts from 0
 * (the kernel's ctx_live holds the rings' slots, which it charges at
 * setup); five arms, one cancel, three one-shots fired and read, one left
 * pending add up exactly; the library did nothing on its own but perhaps
 * take the cancelled arm back; on the device the counters are the
 * kernel's as it answers them. The wheel's counters are the device's (at
 * least our wake-up's), 0 on timerfd.
 */
static void t_stats(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_stats_req st;
	struct hwtimer_lib_stats ls;
	struct hwtimer_event ev;
	struct view v;
	uint64_t id[5];
	int i, r, got = 0;

	if (!h)
		return;
	if (!stats_view(h, CLOCK_MONOTONIC, &st, &ls, &v))
		goto out;
	ok(!st.ctx_armed && !st.ctx_fired && !st.ctx_read && !v.live &&
	   st.ctx_live == ls.ring_slots && !ls.ring_slots == !on_rings(h) &&
	   st.ctx_max_pending > 0 && st.tick_ns == hwtimer_tick_ns(h),
	   "fresh: armed %" PRIu64 " fired %" PRIu64 " live %" PRIu64
	   " ring slots %" PRIu64 " cap %" PRIu64 " tick %" PRIu64,
	   (uint64_t)st.ctx_armed, (uint64_t)st.ctx_fired,
	   (uint64_t)st.ctx_live, ls.ring_slots,
	   (uint64_t)st.ctx_max_pending, (uint64_t)st.tick_ns);
	for (i = 0; i < 5; i++) {
		r = hwtimer_arm(h, CLOCK_MONOTONIC, i < 3 ? 10 * MS : 3600000 * MS,
				0, 0, i, &id[i]);
		ok(!r, "arm %d: %d", i, r);
	}
	r = hwtimer_cancel(h, id[3]);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
	while (got < 3 && next_event(h, &ev, WAIT_NS))
		got++;
	ok(got == 3, "%d of 3 expiries", got);
	r = hwtimer_stats(h, CLOCK_BOOTTIME, &st);
	ok(!r && st.clock == CLOCK_BOOTTIME, "stats boottime: %d", r);
	if (!stats_view(h, CLOCK_MONOTONIC, &st, &ls, &v))
		goto out;
	printf("# ctx_*: armed %" PRIu64 " cancelled %" PRIu64 " fired %"
	       PRIu64 " read %" PRIu64 "; the library's: taken back %" PRIu64
	       ", ring records %" PRIu64 "\n", (uint64_t)st.ctx_armed,
	       (uint64_t)st.ctx_cancelled, (uint64_t)st.ctx_fired,
	       (uint64_t)st.ctx_read, ls.taken_back, ls.ring_read);
	ok(v.armed == 5 && v.cancelled == 1 && v.fired == 3 && v.read == 3,
	   "armed %" PRIu64 " cancelled %" PRIu64 " fired %" PRIu64 " read %"
	   PRIu64, v.armed, v.cancelled, v.fired, v.read);
	ok(st.ctx_pending == 1 && v.live == 1 && v.queued == 0,
	   "pending %" PRIu64 " live %" PRIu64 " queued %" PRIu64,
	   (uint64_t)st.ctx_pending, v.live, v.queued);
	ok(ls.taken_back <= 1 && !ls.cancel_raced && !ls.rearmed &&
	   !ls.refused && !ls.lost && !ls.dropped && !ls.stashed,
	   "the library did more than a take-back on its own");
	kernel_as_is(h, &st);
	/*
	 * The wheel carries the context's wake-up, not its timeouts: it was
	 * armed for the three expiries and ran at least once.
	 */
	if (on_device(h))
		ok(st.armed >= 1 && st.fired >= 1, "wheel armed %" PRIu64
		   " fired %" PRIu64, (uint64_t)st.armed, (uint64_t)st.fired);
	else
		ok(!st.armed && !st.fired && !st.pending && !st.lateness[0],
		   "timerfd wheel counters not 0");
	/* The realtime wheel's, with the same context's counters. */
	if (has_realtime(h)) {
		if (stats_view(h, CLOCK_REALTIME, &st, &ls, &v))
			ok(st.clock == CLOCK_REALTIME && v.armed == 5 &&
			   st.ctx_pending == 1 &&
			   st.tick_ns == hwtimer_tick_ns(h),
			   "stats realtime: armed %" PRIu64 " pending %"
			   PRIu64, v.armed, (uint64_t)st.ctx_pending);
	} else {
		r = hwtimer_stats(h, CLOCK_REALTIME, &st);
		ok(r == -EINVAL, "CLOCK_REALTIME without the feature: %d", r);
	}
out:
	hwtimer_close(h);
}

/*
 * 300 one-shots spread over 0..300 ms on both clocks, more than one bulk
 * read takes: each is delivered once, never before its deadline (exact),
 * at most LATE_MAX_NS late.
 */
static void t_never_early(void)
{
	enum { N = 300 };
	static uint64_t deadline[N];
	static bool seen[N];
	const struct hwtimer_event *ev;
	struct hwtimer *h = ctx_open(0);
	unsigned int i, got = 0;
	uint64_t now, end;
	clockid_t c;

	if (!h)
		return;
	srand(getpid());
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < N; i++) {
		c = i % 3 ? CLOCK_MONOTONIC : CLOCK_BOOTTIME;
		deadline[i] = now_ns(c) + (uint64_t)(rand() % 300) * MS + rand() % MS;
		if (!ok(!hwtimer_arm(h, c, deadline[i], 0, HWTIMER_ARM_ABS, i, NULL), "arm %u", i))
			goto out;
	}
	end = now_ns(CLOCK_MONOTONIC) + WAIT_NS;
	while (got < N && now_ns(CLOCK_MONOTONIC) < end) {
		if (hwtimer_wait(h, &ev, 100 * MS))
			continue;
		i = ev->cookie;
		now = now_ns(ev->clock);
		if (!ok(i < N && !seen[i], "cookie %u twice or unknown", i))
			goto out;
		seen[i] = true;
		got++;
		ok(now >= deadline[i], "%u delivered %" PRIu64 " ns early", i,
		   deadline[i] - now);
		ok(ev->deadline_ns == deadline[i] || on_device(h),
		   "%u: record deadline %" PRIu64 " armed %" PRIu64, i,
		   (uint64_t)ev->deadline_ns, deadline[i]);
		ok(ev->fire_ns >= ev->deadline_ns && ev->deadline_ns >= deadline[i],
		   "%u: fire %" PRIu64 " deadline %" PRIu64, i,
		   (uint64_t)ev->fire_ns, (uint64_t)ev->deadline_ns);
		ok(now - deadline[i] < LATE_MAX_NS, "%u: %" PRIu64 " ms late", i,
		   (now - deadline[i]) / MS);
		ok(hwtimer_event_last(ev) && !ev->overruns, "%u: flags %#x", i,
		   ev->flags);
		hwtimer_seen(h);
		if (failed_check)
			goto out;
	}
	ok(got == N, "%u of %u delivered", got, N);
out:
	hwtimer_close(h);
}

/* User data comes back as given: any u64, or a pointer. */
static void t_user_data(void)
{
	static int obj;
	uint64_t data[] = { 0, 1, UINT64_MAX, 0x8000000000000001ULL,
			    (uintptr_t)&obj };
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	unsigned int i, mask = 0;

	if (!h)
		return;
	for (i = 0; i < ARRAY_SIZE(data); i++)
		if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, i * MS, 0, 0, data[i], NULL), "arm"))
			goto out;
	for (i = 0; i < ARRAY_SIZE(data); i++) {
		if (!ok(next_event(h, &ev, WAIT_NS), "expiry %u missing", i))
			goto out;
		for (unsigned int j = 0; j < ARRAY_SIZE(data); j++)
			if (ev.cookie == data[j])
				mask |= 1U << j;
		if (ev.cookie == (uintptr_t)&obj)
			ok(hwtimer_event_ptr(&ev) == &obj, "pointer lost");
	}
	ok(mask == (1U << ARRAY_SIZE(data)) - 1, "cookies seen %#x", mask);
out:
	hwtimer_close(h);
}

/* Cancel before the deadline: CANCELLED, no expiry, then the id is gone. */
static void t_cancel_before(void)
{
	struct hwtimer *h = ctx_open(0);
	uint64_t id;
	int r;

	if (!h)
		return;
	/* 500 ms: the cancel comes first even after a long vCPU stall. */
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 500 * MS, 0, 0, 1, &id), "arm"))
		goto out;
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
	ok(quiet_for(h, 700), "cancelled timeout fired");
	r = hwtimer_cancel(h, id);
	ok(r == -ENOENT, "second cancel: %d", r);
	r = hwtimer_modify(h, id, MS, 0);
	ok(r == -ENOENT, "modify of a cancelled id: %d", r);
out:
	hwtimer_close(h);
}

/*
 * Cancel and modify after the deadline, record unread (also after stats,
 * which may take it off the rings): FIRED, the record still comes; after
 * it was taken the id is unknown.
 */
static void t_cancel_after(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_stats_req st;
	struct hwtimer_lib_stats ls;
	struct hwtimer_event ev;
	struct view v;
	uint64_t id;
	int r;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, MS, 0, 0, 7, &id), "arm"))
		goto out;
	if (!ok(due_within(h, WAIT_NS / MS), "never fired"))
		goto out;
	/*
	 * Stats may take the record off the rings: it still waits for us,
	 * in the library (stashed) or in the kernel.
	 */
	if (stats_view(h, CLOCK_MONOTONIC, &st, &ls, &v))
		ok(st.ctx_fired == 1 && v.fired == 1 && v.read + v.queued == 1,
		   "stats: fired %" PRIu64 " read %" PRIu64 " queued %" PRIu64
		   " stashed %" PRIu64, (uint64_t)st.ctx_fired, v.read,
		   v.queued, ls.stashed);
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_FIRED, "cancel of a fired one-shot: %d", r);
	r = hwtimer_modify(h, id, 10 * MS, 0);
	ok(r == HWTIMER_RESULT_FIRED, "modify of a fired one-shot: %d", r);
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id && ev.cookie == 7,
		"record lost by the cancel"))
		goto out;
	ok(hwtimer_event_last(&ev), "one-shot record not LAST");
	r = hwtimer_cancel(h, id);
	ok(r == -ENOENT, "cancel after the record was taken: %d", r);
	r = hwtimer_modify(h, id, MS, 0);
	ok(r == -ENOENT, "modify after the record was taken: %d", r);
	ok(quiet_for(h, 100), "a second record");
out:
	hwtimer_close(h);
}

/* Modify to earlier (relative) and to later (absolute). */
static void t_modify(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t a, b, t0, dl;
	int r;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 1, &a) &&
		!hwtimer_arm(h, CLOCK_MONOTONIC, 500 * MS, 0, 0, 2, &b), "arm"))
		goto out;
	t0 = now_ns(CLOCK_MONOTONIC);
	r = hwtimer_modify(h, a, 30 * MS, 0);
	ok(r == HWTIMER_RESULT_MODIFIED, "modify earlier: %d", r);
	dl = now_ns(CLOCK_MONOTONIC) + 1000 * MS;
	r = hwtimer_modify(h, b, dl, HWTIMER_ARM_ABS);
	ok(r == HWTIMER_RESULT_MODIFIED, "modify later: %d", r);
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == a, "earlier one missing"))
		goto out;
	/* The new deadline, not the old one 10 s away (1 s tolerance). */
	ok(ev.deadline_ns >= t0 + 30 * MS && ev.deadline_ns < t0 + LATE_MAX_NS &&
	   now_ns(CLOCK_MONOTONIC) >= ev.deadline_ns, "earlier: deadline %" PRIu64
	   " ms after arming", (uint64_t)(ev.deadline_ns - t0) / MS);
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == b, "later one missing"))
		goto out;
	/* Never before the new deadline (exact): not at the old 500 ms. */
	ok(ev.deadline_ns >= dl && ev.fire_ns >= dl && now_ns(CLOCK_MONOTONIC) >= dl,
	   "later: fired %" PRId64 " ns before its new deadline",
	   (int64_t)(dl - ev.fire_ns));
	r = hwtimer_modify(h, a, 10 * MS, 0x2);
	ok(r == -EINVAL, "modify with an unknown flag: %d", r);
out:
	hwtimer_close(h);
}

/*
 * A submitted queue: each op's own result; a bad id in the middle fails
 * alone, the ops around it take effect.
 */
static void t_batch_results(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_result res[6], keep;
	struct hwtimer_event ev;
	unsigned int got = 0;
	uint64_t id;
	int r;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 100, &id), "arm"))
		goto out;
	memset(res, 0xaa, sizeof(res));
	r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, 20 * MS, 0, 0, 101, &res[0]);
	r |= hwtimer_prep_cancel(h, id + 12345, &res[1]);	/* bad id */
	r |= hwtimer_prep_modify(h, id, 40 * MS, 0, &res[2]);
	r |= hwtimer_prep_cancel(h, 0, &res[3]);		/* id 0 */
	r |= hwtimer_prep_arm(h, CLOCK_MONOTONIC, 30 * MS, 0, 0, 102, &res[4]);
	r |= hwtimer_prep_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 103, &res[5]);
	if (!ok(!r && hwtimer_sq_ready(h) == 6, "prep: %d, %u ready", r,
		hwtimer_sq_ready(h)))
		goto out;
	r = hwtimer_submit(h);
	ok(r == 2 && !hwtimer_sq_ready(h), "submit: %d failed, want 2", r);
	ok(!res[0].status && res[0].id && !res[0].result, "arm 0: %d", res[0].status);
	ok(res[1].status == -ENOENT, "bad id: %d", res[1].status);
	ok(!res[2].status && res[2].result == HWTIMER_RESULT_MODIFIED,
	   "modify: %d/%u", res[2].status, res[2].result);
	ok(res[3].status == -ENOENT, "id 0: %d", res[3].status);
	ok(!res[4].status && res[4].id && res[4].id != res[0].id, "arm 4");
	/* The queue is reusable, and NULL results are allowed. */
	keep = res[5];
	ok(!hwtimer_prep_cancel(h, keep.id, NULL) && hwtimer_submit(h) == 0,
	   "second submit");
	ok(hwtimer_cancel(h, keep.id) == -ENOENT, "queued cancel not applied");
	while (got < 3 && next_event(h, &ev, WAIT_NS)) {
		got++;
		ok(ev.cookie >= 100 && ev.cookie <= 102, "cookie %" PRIu64,
		   (uint64_t)ev.cookie);
	}
	ok(got == 3, "%u of 3 expiries", got);
	ok(hwtimer_prep_arm(h, CLOCK_MONOTONIC, MS, 0, 0x80, 0, NULL) == -EINVAL &&
	   !hwtimer_sq_ready(h), "bad flags queued");
out:
	hwtimer_close(h);
}

/*
 * A queue of 4 submits itself when full; more ops than the device takes
 * in one BATCH are split. Every op's result arrives. The big queue's
 * timeouts are due in a day: on a slow kernel its arms alone can take
 * minutes, and a cancel must find each still pending.
 */
static void t_batch_split(void)
{
	enum { SMALL = 10, BIG = HWTIMER_BATCH_MAX + 1000 };
	static struct hwtimer_result res[BIG];
	struct hwtimer *h = ctx_open(4);
	struct hwtimer *g = NULL;
	unsigned int i, most = 0, bad = 0, first = BIG;
	int r = 0;

	if (!h)
		return;
	for (i = 0; i < SMALL; i++) {
		r |= hwtimer_prep_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, i, &res[i]);
		if (hwtimer_sq_ready(h) > most)
			most = hwtimer_sq_ready(h);
	}
	ok(!r && most == 4 && hwtimer_sq_ready(h) == SMALL % 4,
	   "prep %d, queue peaked at %u, %u left", r, most, hwtimer_sq_ready(h));
	ok(hwtimer_submit(h) == 0, "submit");
	for (i = 0; i < SMALL; i++)
		bad += res[i].status || !res[i].id;
	ok(!bad, "%u of the auto-submitted arms failed", bad);
	g = ctx_open(BIG);
	if (!g)
		goto out;
	for (i = 0; i < BIG; i++)
		r |= hwtimer_prep_arm(g, CLOCK_MONOTONIC, 86400000 * MS, 0, 0, i,
				      &res[i]);
	ok(!r && hwtimer_sq_ready(g) == BIG, "prep of %u", BIG);
	r = hwtimer_submit(g);
	ok(r == 0, "submit of %u arms: %d failed", BIG, r);
	for (i = 0; i < BIG; i++)
		r |= hwtimer_prep_cancel(g, res[i].id, &res[i]);
	r = hwtimer_submit(g);
	for (i = 0, bad = 0; i < BIG; i++) {
		if (!res[i].status && res[i].result == HWTIMER_RESULT_CANCELLED)
			continue;
		if (!bad++)
			first = i;
	}
	ok(!r && !bad, "submit of %u cancels: %d, %u bad, the first #%u: status %d, result %d",
	   BIG, r, bad, first, first < BIG ? res[first].status : 0,
	   first < BIG ? (int)res[first].result : 0);
out:
	hwtimer_close(g);
	hwtimer_close(h);
}

/* A periodic timeout: expiries on its grid, never early, not LAST. */
static void t_periodic(void)
{
	struct hwtimer *h = ctx_open(0);
	uint64_t id, first = 0, period = 20 * MS;
	struct hwtimer_event ev;
	int i, r;

	if (!h)
		return;
	if (period < hwtimer_tick_ns(h))
		period = hwtimer_tick_ns(h);
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, period, period, 0, 5, &id), "arm"))
		goto out;
	for (i = 0; i < 4; i++) {
		if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "expiry %d", i))
			goto out;
		ok(!ev.flags, "flags %#x on a live periodic", ev.flags);
		ok(ev.fire_ns >= ev.deadline_ns &&
		   now_ns(CLOCK_MONOTONIC) >= ev.deadline_ns, "expiry %d early", i);
		if (!i)
			first = ev.deadline_ns;
		ok((ev.deadline_ns - first) % period == 0, "off the grid");
	}
	ok(ev.deadline_ns > first, "deadline did not advance");
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
out:
	hwtimer_close(h);
}

/*
 * Unread, a periodic folds its expiries into one record: after 12
 * periods it holds at least 11 (exact: the take counts them) and no more
 * than the periods that elapsed (never early, exact).
 */
static void t_periodic_overruns(void)
{
	struct hwtimer *h = ctx_open(0);
	uint64_t id, t0, t1, period = 10 * MS, n, most;
	const struct hwtimer_event *ev;
	struct hwtimer_event got;

	if (!h)
		return;
	if (period < hwtimer_tick_ns(h))
		period = hwtimer_tick_ns(h);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, period, period, 0, 6, &id), "arm"))
		goto out;
	sleep_ms(12 * period / MS);
	if (!ok(!hwtimer_wait(h, &ev, WAIT_NS), "no record"))
		goto out;
	t1 = now_ns(CLOCK_MONOTONIC);
	got = *ev;
	hwtimer_seen(h);
	n = 1 + got.overruns;
	most = (t1 - t0) / period + 1;
	printf("# %" PRIu64 " expiries in one record\n", n);
	ok(n >= 11, "record has %" PRIu64 " expiries, 12 periods passed", n);
	ok(n <= most, "%" PRIu64 " expiries, only %" PRIu64 " periods", n, most);
	ok(got.fire_ns >= got.deadline_ns && t1 >= got.deadline_ns, "early");
	/* It goes on after the read, on its grid (never early, exact). */
	if (!ok(next_event(h, &got, WAIT_NS) && got.id == id, "no expiry after"))
		goto out;
	ok(got.deadline_ns >= t0 + period && (got.deadline_ns - t0) >= n * period &&
	   got.fire_ns >= got.deadline_ns, "next expiry early");
	ok(hwtimer_cancel(h, id) == HWTIMER_RESULT_CANCELLED, "cancel");
out:
	hwtimer_close(h);
}

/* Cancel of a periodic whose record waits: the record comes, LAST. */
static void t_periodic_cancel(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t id, p;
	int r;

	if (!h)
		return;
	p = hwtimer_tick_ns(h) * 5;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, p, p, 0, 9, &id), "arm"))
		goto out;
	if (!ok(due_within(h, WAIT_NS / MS), "never fired"))
		goto out;
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "waiting record lost"))
		goto out;
	ok(hwtimer_event_last(&ev), "record after cancel not LAST");
	ok(quiet_for(h, 100), "expiry after cancel");
	ok(hwtimer_cancel(h, id) == -ENOENT, "id still known");
out:
	hwtimer_close(h);
}

/* CLOCK_BOOTTIME: the record says so and is never early on it. */
static void t_boottime(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t dl;

	if (!h)
		return;
	dl = now_ns(CLOCK_BOOTTIME) + 20 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_BOOTTIME, dl, 0, HWTIMER_ARM_ABS, 3, NULL),
		"arm"))
		goto out;
	if (!ok(next_event(h, &ev, WAIT_NS), "no expiry"))
		goto out;
	ok(ev.clock == CLOCK_BOOTTIME, "clock %u", ev.clock);
	ok(now_ns(CLOCK_BOOTTIME) >= dl && ev.deadline_ns >= dl &&
	   ev.fire_ns >= ev.deadline_ns, "early on CLOCK_BOOTTIME");
	/* 1 s tolerance: see the top. */
	ok(ev.fire_ns - dl < LATE_MAX_NS, "%" PRIu64 " ms late",
	   (uint64_t)(ev.fire_ns - dl) / MS);
out:
	hwtimer_close(h);
}

/*
 * Without HWTIMER_FEATURE_REALTIME (an older module) CLOCK_REALTIME is
 * refused, relative or absolute: say so, check it, and skip.
 */
static bool realtime_or_skip(struct hwtimer *h)
{
	struct hwtimer_stats_req st;
	uint64_t id = 0;
	int r;

	if (has_realtime(h))
		return true;
	r = hwtimer_arm(h, CLOCK_REALTIME, now_ns(CLOCK_REALTIME) + MS, 0,
			HWTIMER_ARM_ABS, 1, &id);
	ok(r == -EINVAL && !id, "absolute CLOCK_REALTIME, no feature: %d", r);
	r = hwtimer_arm(h, CLOCK_REALTIME, MS, 0, 0, 1, &id);
	ok(r == -EINVAL && !id, "relative CLOCK_REALTIME, no feature: %d", r);
	r = hwtimer_stats(h, CLOCK_REALTIME, &st);
	ok(r == -EINVAL, "stats of CLOCK_REALTIME, no feature: %d", r);
	skip("no HWTIMER_FEATURE_REALTIME");
	return false;
}

/*
 * An absolute CLOCK_REALTIME deadline: the record says CLOCK_REALTIME and
 * the deadline as armed (exact), never early on the wall clock (exact, as
 * nothing sets the clock here), at most LATE_MAX_NS late. A MODIFY with a
 * relative deadline counts from the wall clock's now and keeps the clock.
 */
static void t_realtime_abs(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t dl, t0, id;
	int r;

	if (!h)
		return;
	if (!realtime_or_skip(h))
		goto out;
	dl = now_ns(CLOCK_REALTIME) + 20 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 3, &id),
		"arm"))
		goto out;
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "no expiry"))
		goto out;
	ok(ev.clock == CLOCK_REALTIME, "clock %u", ev.clock);
	ok(ev.deadline_ns == dl, "record deadline %" PRIu64 " armed %" PRIu64,
	   (uint64_t)ev.deadline_ns, dl);
	ok(now_ns(CLOCK_REALTIME) >= dl && ev.fire_ns >= ev.deadline_ns,
	   "early on CLOCK_REALTIME: fire %" PRIu64 " deadline %" PRIu64,
	   (uint64_t)ev.fire_ns, dl);
	ok(ev.fire_ns - dl < LATE_MAX_NS, "%" PRIu64 " ms late",
	   (uint64_t)(ev.fire_ns - dl) / MS);
	ok(hwtimer_event_last(&ev) && !ev.overruns, "flags %#x", ev.flags);
	/* An hour away, then moved to 20 ms from the wall clock's now. */
	dl = now_ns(CLOCK_REALTIME) + 3600000 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 4, &id),
		"arm an hour away"))
		goto out;
	t0 = now_ns(CLOCK_REALTIME);
	r = hwtimer_modify(h, id, 20 * MS, 0);
	ok(r == HWTIMER_RESULT_MODIFIED, "modify: %d", r);
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "modified: none"))
		goto out;
	ok(ev.clock == CLOCK_REALTIME && ev.deadline_ns >= t0 + 20 * MS &&
	   ev.deadline_ns < t0 + 20 * MS + LATE_MAX_NS &&
	   ev.fire_ns >= ev.deadline_ns,
	   "modified: clock %u, deadline %" PRId64 " ns after the modify",
	   ev.clock, (int64_t)(ev.deadline_ns - t0));
out:
	hwtimer_close(h);
}

/*
 * A relative CLOCK_REALTIME arm runs on CLOCK_MONOTONIC: its record says
 * CLOCK_MONOTONIC, with a deadline on that clock, 20 ms after the arm
 * (1 s tolerance for the time the arm takes: see the top), never early.
 */
static void t_realtime_rel(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t t0, id;

	if (!h)
		return;
	if (!realtime_or_skip(h))
		goto out;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, 20 * MS, 0, 0, 5, &id), "arm"))
		goto out;
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "no expiry"))
		goto out;
	ok(ev.clock == CLOCK_MONOTONIC, "clock %u", ev.clock);
	ok(ev.deadline_ns >= t0 + 20 * MS &&
	   ev.deadline_ns < t0 + 20 * MS + LATE_MAX_NS,
	   "deadline %" PRId64 " ns after the arm on CLOCK_MONOTONIC",
	   (int64_t)(ev.deadline_ns - t0));
	ok(now_ns(CLOCK_MONOTONIC) >= ev.deadline_ns &&
	   ev.fire_ns >= ev.deadline_ns, "early on CLOCK_MONOTONIC");
out:
	hwtimer_close(h);
}

/*
 * A periodic absolute CLOCK_REALTIME timeout: every record's deadline is
 * the first plus a whole number of periods, exactly the expiries it and
 * the records before it cover, and on the wall clock.
 */
static void t_realtime_periodic(void)
{
	struct hwtimer *h = ctx_open(0);
	uint64_t id, first, n = 0, period = 20 * MS;
	struct hwtimer_event ev;
	int i, r;

	if (!h)
		return;
	if (!realtime_or_skip(h))
		goto out;
	if (period < hwtimer_tick_ns(h))
		period = hwtimer_tick_ns(h);
	first = now_ns(CLOCK_REALTIME) + period;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, first, period, HWTIMER_ARM_ABS,
			     6, &id), "arm"))
		goto out;
	for (i = 0; i < 4; i++) {
		if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "expiry %d", i))
			goto out;
		n += 1 + ev.overruns;
		ok(ev.clock == CLOCK_REALTIME && !ev.flags, "clock %u flags %#x",
		   ev.clock, ev.flags);
		ok(ev.deadline_ns == first + (n - 1) * period,
		   "expiry %d: deadline first + %" PRId64 " ns, %" PRIu64
		   " periods passed", i, (int64_t)(ev.deadline_ns - first), n);
		ok(ev.fire_ns >= ev.deadline_ns &&
		   now_ns(CLOCK_REALTIME) >= ev.deadline_ns, "expiry %d early", i);
	}
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
out:
	hwtimer_close(h);
}

/*
 * CLOCK_REALTIME in a submitted queue, between monotonic ops (on the
 * device they go through BATCH, never the rings): an absolute one keeps
 * its clock and deadline, a relative one runs on CLOCK_MONOTONIC.
 */
static void t_realtime_batch(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_result res[4];
	struct hwtimer_event ev;
	uint64_t dl, t0, seen = 0;
	unsigned int i;
	int r;

	if (!h)
		return;
	if (!realtime_or_skip(h))
		goto out;
	memset(res, 0xaa, sizeof(res));
	t0 = now_ns(CLOCK_MONOTONIC);
	dl = now_ns(CLOCK_REALTIME) + 30 * MS;
	r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 0, &res[0]);
	r |= hwtimer_prep_arm(h, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 1,
			      &res[1]);
	r |= hwtimer_prep_arm(h, CLOCK_REALTIME, 20 * MS, 0, 0, 2, &res[2]);
	r |= hwtimer_prep_arm(h, CLOCK_MONOTONIC, 40 * MS, 0, 0, 3, &res[3]);
	if (!ok(!r, "prep: %d", r))
		goto out;
	r = hwtimer_submit(h);
	ok(!r, "submit: %d failed", r);
	for (i = 0; i < 4; i++)
		ok(!res[i].status && res[i].id, "arm %u: %d", i, res[i].status);
	for (i = 0; i < 4; i++) {
		if (!ok(next_event(h, &ev, WAIT_NS) && ev.cookie < 4 &&
			!(seen & 1ULL << ev.cookie), "expiry %u", i))
			goto out;
		seen |= 1ULL << ev.cookie;
		ok(ev.id == res[ev.cookie].id && ev.fire_ns >= ev.deadline_ns,
		   "%" PRIu64 ": id or early", (uint64_t)ev.cookie);
		if (ev.cookie == 1)
			ok(ev.clock == CLOCK_REALTIME && ev.deadline_ns == dl,
			   "absolute: clock %u deadline %" PRIu64 " armed %"
			   PRIu64, ev.clock, (uint64_t)ev.deadline_ns, dl);
		else
			ok(ev.clock == CLOCK_MONOTONIC &&
			   ev.deadline_ns >= t0 + 10 * MS &&
			   ev.deadline_ns < t0 + 40 * MS + LATE_MAX_NS,
			   "%" PRIu64 ": clock %u deadline %" PRId64
			   " ns after the submit", (uint64_t)ev.cookie,
			   ev.clock, (int64_t)(ev.deadline_ns - t0));
	}
out:
	hwtimer_close(h);
}

/*
 * Stats of CLOCK_REALTIME: the context's counters, as on the other
 * clocks, with a relative and an absolute CLOCK_REALTIME timeout pending;
 * the device's realtime wheel has at least the absolute one, the timerfd
 * backend's wheel counters are 0.
 */
static void t_realtime_stats(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_stats_req st;
	struct hwtimer_lib_stats ls;
	struct view v;
	uint64_t a, b;

	if (!h)
		return;
	if (!realtime_or_skip(h))
		goto out;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME,
			     now_ns(CLOCK_REALTIME) + 3600000 * MS, 0,
			     HWTIMER_ARM_ABS, 1, &a) &&
		!hwtimer_arm(h, CLOCK_REALTIME, 3600000 * MS, 0, 0, 2, &b),
		"arm"))
		goto out;
	/* The rings refuse CLOCK_REALTIME: the kernel counts it all. */
	if (!stats_view(h, CLOCK_REALTIME, &st, &ls, &v))
		goto out;
	ok(st.clock == CLOCK_REALTIME, "stats: clock %u", st.clock);
	ok(st.ctx_armed == 2 && st.ctx_pending == 2 && v.live == 2 &&
	   !st.ctx_fired && st.ctx_max_pending > 0 &&
	   st.tick_ns == hwtimer_tick_ns(h), "armed %" PRIu64 " pending %"
	   PRIu64 " live %" PRIu64 " fired %" PRIu64 " tick %" PRIu64,
	   (uint64_t)st.ctx_armed, (uint64_t)st.ctx_pending, v.live,
	   (uint64_t)st.ctx_fired, (uint64_t)st.tick_ns);
	if (on_device(h))
		ok(st.armed >= 1 && st.pending >= 1, "realtime wheel: armed %"
		   PRIu64 " pending %" PRIu64, (uint64_t)st.armed,
		   (uint64_t)st.pending);
	else
		ok(!st.armed && !st.pending && !st.fired,
		   "timerfd wheel counters not 0");
	ok(hwtimer_cancel(h, a) == HWTIMER_RESULT_CANCELLED &&
	   hwtimer_cancel(h, b) == HWTIMER_RESULT_CANCELLED, "cancel");
	if (stats_view(h, CLOCK_REALTIME, &st, &ls, &v))
		ok(!st.ctx_pending && st.ctx_cancelled == 2 && !v.live,
		   "after cancel: pending %" PRIu64 " cancelled %" PRIu64
		   " live %" PRIu64, (uint64_t)st.ctx_pending,
		   (uint64_t)st.ctx_cancelled, v.live);
out:
	hwtimer_close(h);
}

#define COS		(HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET)
#define CLOCK_SET_LAST	(HWTIMER_EVENT_CLOCK_SET | HWTIMER_EVENT_LAST)

/*
 * Without HWTIMER_FEATURE_CANCEL_ON_SET (a module older than it), an
 * absolute CLOCK_REALTIME arm with HWTIMER_ARM_CANCEL_ON_SET is refused
 * with -EINVAL, nothing armed: check it, and skip. The timerfd backend
 * always has it.
 */
static bool cos_or_skip(struct hwtimer *h)
{
	uint64_t id = 0;
	int r;

	if (!realtime_or_skip(h))
		return false;
	if (hwtimer_features(h) & HWTIMER_FEATURE_CANCEL_ON_SET)
		return true;
	ok(on_device(h), "the timerfd backend lacks cancel on set");
	r = hwtimer_arm(h, CLOCK_REALTIME, now_ns(CLOCK_REALTIME) + MS, 0, COS,
			1, &id);
	ok(r == -EINVAL && !id, "cancel on set, no feature: %d", r);
	ok(quiet_for(h, 50), "something was armed");
	skip("no HWTIMER_FEATURE_CANCEL_ON_SET");
	return false;
}

/*
 * HWTIMER_ARM_CANCEL_ON_SET where it means nothing: -EINVAL, nothing
 * armed or queued. It goes with HWTIMER_ARM_ABS on CLOCK_REALTIME only,
 * and is an arm's flag: modify refuses it, single or queued.
 */
static void t_cos_refused(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_result res;
	uint64_t id = 0, ok_id;
	int r;

	if (!h)
		return;
	if (!cos_or_skip(h))
		goto out;
	r = hwtimer_arm(h, CLOCK_REALTIME, 100 * MS, 0,
			HWTIMER_ARM_CANCEL_ON_SET, 1, &id);
	ok(r == -EINVAL && !id, "relative CLOCK_REALTIME: %d", r);
	r = hwtimer_arm(h, CLOCK_MONOTONIC, now_ns(CLOCK_MONOTONIC) + 100 * MS,
			0, COS, 2, &id);
	ok(r == -EINVAL && !id, "absolute CLOCK_MONOTONIC: %d", r);
	r = hwtimer_arm(h, CLOCK_MONOTONIC, 100 * MS, 0,
			HWTIMER_ARM_CANCEL_ON_SET, 3, &id);
	ok(r == -EINVAL && !id, "relative CLOCK_MONOTONIC: %d", r);
	r = hwtimer_arm(h, CLOCK_BOOTTIME, now_ns(CLOCK_BOOTTIME) + 100 * MS,
			0, COS, 4, &id);
	ok(r == -EINVAL && !id, "absolute CLOCK_BOOTTIME: %d", r);
	r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, 100 * MS, 0,
			     HWTIMER_ARM_CANCEL_ON_SET, 5, &res);
	ok(r == -EINVAL && !hwtimer_sq_ready(h), "queued, CLOCK_MONOTONIC: %d",
	   r);
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME,
			     now_ns(CLOCK_REALTIME) + 3600000 * MS, 0,
			     HWTIMER_ARM_ABS, 6, &ok_id), "arm a plain one"))
		goto out;
	r = hwtimer_modify(h, ok_id, now_ns(CLOCK_REALTIME) + 100 * MS, COS);
	ok(r == -EINVAL, "modify: %d", r);
	r = hwtimer_modify(h, ok_id, 100 * MS, HWTIMER_ARM_CANCEL_ON_SET);
	ok(r == -EINVAL, "relative modify: %d", r);
	r = hwtimer_prep_modify(h, ok_id, 100 * MS, HWTIMER_ARM_CANCEL_ON_SET,
				&res);
	ok(r == -EINVAL && !hwtimer_sq_ready(h), "queued modify: %d", r);
	ok(quiet_for(h, 200), "something was armed or moved");
	r = hwtimer_cancel(h, ok_id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel the plain one: %d", r);
out:
	hwtimer_close(h);
}

/*
 * With the clock left alone, a cancel-on-set timeout is any absolute
 * CLOCK_REALTIME one: a one-shot 100 ms ahead expires with the deadline
 * as armed, never early, flags LAST alone; a queued one, between
 * monotonic arms in one submit (on the device an ARM call of its own
 * between them), does the same; one an hour ahead cancels as usual.
 */
static void t_cos_expires(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_result res[3];
	struct hwtimer_event ev;
	uint64_t dl, id, seen = 0;
	unsigned int i;
	int r;

	if (!h)
		return;
	if (!cos_or_skip(h))
		goto out;
	dl = now_ns(CLOCK_REALTIME) + 100 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, dl, 0, COS, 7, &id), "arm"))
		goto out;
	if (!ok(next_event(h, &ev, WAIT_NS) && ev.id == id, "no expiry"))
		goto out;
	ok(ev.flags == HWTIMER_EVENT_LAST && !ev.overruns &&
	   ev.clock == CLOCK_REALTIME && ev.cookie == 7,
	   "flags %#x overruns %" PRIu64 " clock %u", ev.flags,
	   (uint64_t)ev.overruns, ev.clock);
	ok(ev.deadline_ns == dl, "record deadline %" PRIu64 " armed %" PRIu64,
	   (uint64_t)ev.deadline_ns, dl);
	ok(now_ns(CLOCK_REALTIME) >= dl && ev.fire_ns >= dl,
	   "early on CLOCK_REALTIME: fire %" PRIu64 " deadline %" PRIu64,
	   (uint64_t)ev.fire_ns, dl);
	/* 1 s tolerance: see the top. */
	ok(ev.fire_ns - dl < LATE_MAX_NS, "%" PRIu64 " ms late",
	   (uint64_t)(ev.fire_ns - dl) / MS);
	r = hwtimer_cancel(h, id);
	ok(r == -ENOENT, "cancel after its last record: %d", r);

	memset(res, 0xaa, sizeof(res));
	dl = now_ns(CLOCK_REALTIME) + 30 * MS;
	r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 0, &res[0]);
	r |= hwtimer_prep_arm(h, CLOCK_REALTIME, dl, 0, COS, 1, &res[1]);
	r |= hwtimer_prep_arm(h, CLOCK_MONOTONIC, 20 * MS, 0, 0, 2, &res[2]);
	if (!ok(!r, "prep: %d", r))
		goto out;
	r = hwtimer_submit(h);
	ok(!r, "submit: %d failed", r);
	for (i = 0; i < 3; i++)
		ok(!res[i].status && res[i].id, "queued arm %u: %d", i,
		   res[i].status);
	for (i = 0; i < 3; i++) {
		if (!ok(next_event(h, &ev, WAIT_NS) && ev.cookie < 3 &&
			!(seen & 1ULL << ev.cookie), "queued expiry %u", i))
			goto out;
		seen |= 1ULL << ev.cookie;
		ok(ev.id == res[ev.cookie].id && ev.fire_ns >= ev.deadline_ns &&
		   ev.flags == HWTIMER_EVENT_LAST, "%" PRIu64
		   ": id, early or flags %#x", (uint64_t)ev.cookie, ev.flags);
		if (ev.cookie == 1)
			ok(ev.clock == CLOCK_REALTIME && ev.deadline_ns == dl,
			   "queued: clock %u deadline %" PRIu64 " armed %"
			   PRIu64, ev.clock, (uint64_t)ev.deadline_ns, dl);
	}

	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME,
			     now_ns(CLOCK_REALTIME) + 3600000 * MS, 0, COS, 8,
			     &id), "arm an hour away"))
		goto out;
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
	ok(quiet_for(h, 100), "a record after the cancel");
out:
	hwtimer_close(h);
}

/* Set CLOCK_REALTIME to @ns: 0, or -errno. */
static int set_realtime(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

/* The record of cancel-on-set @id, armed for @dl, that the set at @set made. */
static void check_clock_set(const struct hwtimer_event *ev, uint64_t dl,
			    uint64_t set, uint64_t cookie)
{
	ok(ev->flags == CLOCK_SET_LAST && ev->clock == CLOCK_REALTIME &&
	   !ev->overruns, "%" PRIu64 ": flags %#x clock %u overruns %" PRIu64,
	   cookie, ev->flags, ev->clock, (uint64_t)ev->overruns);
	ok(ev->deadline_ns == dl, "%" PRIu64 ": record deadline %" PRIu64
	   " armed %" PRIu64, cookie, (uint64_t)ev->deadline_ns, dl);
	/* When the set was seen: at or after the clock's new time, not later than now. */
	ok(ev->fire_ns >= set && ev->fire_ns <= now_ns(CLOCK_REALTIME),
	   "%" PRIu64 ": fire %" PRId64 " ns from the set", cookie,
	   (int64_t)(ev->fire_ns - set));
}

/*
 * A set of the wall clock, for real: only with HWTIMER_TEST_SET_CLOCK=1
 * in the environment (a test VM) and when clock_settime() is allowed.
 * A cancel-on-set one-shot and periodic one, a plain one, all 60 s ahead;
 * the clock set back 2 s; a cancel-on-set one armed after the set. The
 * two armed before it come as clock-set records within WAIT_NS (the
 * deadline as armed), the others stay pending. Then the clock is put
 * back (its time at the start plus CLOCK_MONOTONIC's elapsed), a set as
 * well: hwtimer_fd() polls readable with no call on the context, and the
 * one armed between the sets comes cancelled in its turn.
 */
static void t_cos_clock_set(void)
{
	const char *env = getenv("HWTIMER_TEST_SET_CLOCK");
	struct hwtimer *h = NULL;
	uint64_t real0 = 0, mono0 = 0, set, dl, dl4, id[5], seen = 0;
	struct hwtimer_event ev = { 0 };
	bool moved = false;
	unsigned int i;
	int r;

	if (!env || strcmp(env, "1")) {
		skip("sets the clock: only with HWTIMER_TEST_SET_CLOCK=1");
		return;
	}
	h = ctx_open(0);
	if (!h)
		return;
	if (!cos_or_skip(h))
		goto out;
	mono0 = now_ns(CLOCK_MONOTONIC);
	real0 = now_ns(CLOCK_REALTIME);
	dl = real0 + 60000 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, dl, 0, COS, 1, &id[1]) &&
		!hwtimer_arm(h, CLOCK_REALTIME, dl, 0, HWTIMER_ARM_ABS, 2,
			     &id[2]) &&
		!hwtimer_arm(h, CLOCK_REALTIME, dl, 60000 * MS, COS, 3, &id[3]),
		"arm"))
		goto out;
	set = real0 + (now_ns(CLOCK_MONOTONIC) - mono0) - 2000 * MS;
	r = set_realtime(set);
	if (r) {
		ok(r == -EPERM, "clock_settime: %s", strerror(-r));
		skip("clock_settime() not allowed");
		goto out;
	}
	moved = true;
	dl4 = now_ns(CLOCK_REALTIME) + 60000 * MS;
	if (!ok(!hwtimer_arm(h, CLOCK_REALTIME, dl4, 0, COS, 4, &id[4]),
		"arm after the set"))
		goto out;
	for (i = 0; i < 2; i++) {
		if (!ok(next_event(h, &ev, WAIT_NS) &&
			(ev.cookie == 1 || ev.cookie == 3) &&
			!(seen & 1ULL << ev.cookie),
			"clock-set record %u: cookie %" PRIu64, i, ev.cookie))
			goto out;
		seen |= 1ULL << ev.cookie;
		ok(ev.id == id[ev.cookie], "%" PRIu64 ": id", ev.cookie);
		check_clock_set(&ev, dl, set, ev.cookie);
	}
	ok(quiet_for(h, 200), "the plain one or the one armed after the set");
	r = hwtimer_cancel(h, id[1]);
	ok(r == -ENOENT, "cancel of the one-shot cancelled by the set: %d", r);
	r = hwtimer_cancel(h, id[3]);
	ok(r == -ENOENT, "cancel of the periodic cancelled by the set: %d", r);

	/* Put the clock back: a set too, which the fd reports by itself. */
	set = real0 + (now_ns(CLOCK_MONOTONIC) - mono0);
	r = set_realtime(set);
	if (!ok(!r, "clock_settime back: %s", strerror(-r)))
		goto out;
	moved = false;
	ok(due_within(h, WAIT_NS / MS), "hwtimer_fd not readable after the set");
	if (ok(next_event(h, &ev, WAIT_NS) && ev.id == id[4],
	       "no clock-set record for the one armed after the first set"))
		check_clock_set(&ev, dl4, set, 4);
	ok(quiet_for(h, 200), "a record for the plain one");
	r = hwtimer_cancel(h, id[2]);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel the plain one: %d", r);
out:
	if (moved && set_realtime(real0 + (now_ns(CLOCK_MONOTONIC) - mono0)))
		ok(false, "could not put the clock back: %s", strerror(errno));
	hwtimer_close(h);
}

/* Past absolute deadlines fire at once; UINT64_MAX ones never wrap. */
static void t_past_and_max(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	uint64_t a, b, t0;

	if (!h)
		return;
	t0 = now_ns(CLOCK_MONOTONIC);
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 1, 0, HWTIMER_ARM_ABS, 1, NULL), "arm at 1 ns"))
		goto out;
	/* "At once" within the 1 s tolerance. */
	ok(next_event(h, &ev, WAIT_NS) && ev.cookie == 1 &&
	   ev.fire_ns - t0 < LATE_MAX_NS, "past deadline not served at once");
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, UINT64_MAX, 0, 0, 2, &a) &&
		!hwtimer_arm(h, CLOCK_MONOTONIC, UINT64_MAX, 0, HWTIMER_ARM_ABS, 3, &b), "arm max"))
		goto out;
	ok(quiet_for(h, 200), "a UINT64_MAX deadline fired (wrap)");
	ok(hwtimer_cancel(h, a) == HWTIMER_RESULT_CANCELLED &&
	   hwtimer_cancel(h, b) == HWTIMER_RESULT_CANCELLED, "cancel max");
out:
	hwtimer_close(h);
}

/* Bad flags, clocks and periods below the tick: -EINVAL, nothing armed. */
static void t_bad_args(void)
{
	struct hwtimer *h = ctx_open(0);
	uint64_t id = 0;
	int r;

	if (!h)
		return;
	r = hwtimer_arm(h, CLOCK_MONOTONIC, MS, 0, 0x40, 0, &id);
	ok(r == -EINVAL && !id, "unknown flag: %d", r);
	r = hwtimer_arm(h, CLOCK_MONOTONIC, MS, hwtimer_tick_ns(h) - 1, 0, 0, &id);
	ok(r == -EINVAL && !id, "period below the tick: %d", r);
	r = hwtimer_arm(h, CLOCK_TAI, MS, 0, 0, 0, &id);
	ok(r == -EINVAL && !id, "CLOCK_TAI: %d", r);
	if (!has_realtime(h)) {
		r = hwtimer_arm(h, CLOCK_REALTIME, MS, 0, HWTIMER_ARM_ABS, 0, &id);
		ok(r == -EINVAL && !id, "CLOCK_REALTIME, no feature: %d", r);
	}
	r = hwtimer_modify(h, 12345, MS, 0x40);
	ok(r == -EINVAL, "modify flag: %d", r);
	ok(quiet_for(h, 50), "something was armed");
	hwtimer_close(h);
}

/* Peek never waits; wait gives up after its timeout, not before. */
static void t_peek_wait(void)
{
	struct hwtimer *h = ctx_open(0);
	const struct hwtimer_event *ev;
	uint64_t t0, dt;
	int r;

	if (!h)
		return;
	r = hwtimer_peek(h, &ev);
	ok(r == -EAGAIN, "peek on nothing: %d", r);
	t0 = now_ns(CLOCK_MONOTONIC);
	r = hwtimer_wait(h, &ev, 50 * MS);
	dt = now_ns(CLOCK_MONOTONIC) - t0;
	/* Not before 50 ms (exact), by 1 s at most. */
	ok(r == -ETIME && dt >= 50 * MS && dt < 50 * MS + LATE_MAX_NS,
	   "wait 50 ms: %d after %" PRIu64 " ms", r, dt / MS);
	r = hwtimer_wait(h, &ev, 0);
	ok(r == -ETIME, "wait 0: %d", r);
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 0, 0, 0, 4, NULL), "arm"))
		goto out;
	r = hwtimer_wait(h, &ev, WAIT_NS);
	if (!ok(!r, "wait: %d", r))
		goto out;
	ok(hwtimer_peek(h, &ev) == 0 && ev->cookie == 4, "peek lost it");
	hwtimer_seen(h);
	ok(hwtimer_peek(h, &ev) == -EAGAIN, "seen did not consume");
out:
	hwtimer_close(h);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal during a blocking wait gives -EINTR, SA_RESTART or not. */
static void t_wait_eintr(void)
{
	struct itimerval it = { .it_value = { 0, 50000 } };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct hwtimer *h = ctx_open(0);
	const struct hwtimer_event *ev;
	int r, pass;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 1, NULL), "arm"))
		goto out;
	for (pass = 0; pass < 2; pass++) {
		sa.sa_flags = pass ? SA_RESTART : 0;
		sigaction(SIGALRM, &sa, &old);
		setitimer(ITIMER_REAL, &it, NULL);
		/* The alarm in 50 ms comes long before the 5 s wait ends. */
		r = hwtimer_wait(h, &ev, WAIT_NS);
		sigaction(SIGALRM, &old, NULL);
		ok(r == -EINTR, "wait %s SA_RESTART: %d", pass ? "with" : "without", r);
	}
out:
	hwtimer_close(h);
}

/* hwtimer_fd() in epoll: readable once an expiry is due. */
static void t_epoll(void)
{
	struct hwtimer *h = ctx_open(0);
	const struct hwtimer_event *ev;
	struct epoll_event e = { .events = EPOLLIN };
	int ep, n;

	if (!h)
		return;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!ok(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, hwtimer_fd(h), &e),
		"epoll"))
		goto out;
	ok(epoll_wait(ep, &e, 1, 0) == 0, "readable with nothing armed");
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 20 * MS, 0, 0, 8, NULL), "arm"))
		goto out_ep;
	n = epoll_wait(ep, &e, 1, WAIT_NS / MS);
	if (!ok(n == 1, "epoll_wait: %d", n))
		goto out_ep;
	ok(!hwtimer_peek(h, &ev) && ev->cookie == 8, "peek after epoll");
	hwtimer_seen(h);
	ok(hwtimer_peek(h, &ev) == -EAGAIN, "more than one");
	ok(epoll_wait(ep, &e, 1, 0) == 0, "still readable after the drain");
out_ep:
	close(ep);
out:
	hwtimer_close(h);
}

/*
 * A call on the context after hwtimer_fd() became readable (here an arm,
 * which serves the due expiry first on the timerfd backend) leaves it
 * readable until the expiry is taken: an event loop would hang otherwise.
 * The timerfd backend makes it readable again by a timerfd set in the
 * past, which the kernel fires from its timer interrupt, not within the
 * call: hence up to 100 ms for it (the far timeout is 10 s away).
 */
static void t_fd_stays_ready(void)
{
	struct hwtimer *h = ctx_open(0);
	const struct hwtimer_event *ev;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 1, NULL), "arm"))
		goto out;
	if (!ok(due_within(h, WAIT_NS / MS), "never readable"))
		goto out;
	ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 2, NULL), "arm 2");
	ok(due_within(h, 100), "not readable after an arm");
	ok(!hwtimer_peek(h, &ev) && ev->cookie == 1, "peek");
	hwtimer_seen(h);
	ok(hwtimer_peek(h, &ev) == -EAGAIN, "a second expiry");
	ok(!due_within(h, 0), "readable with nothing due");
out:
	hwtimer_close(h);
}

/*
 * The eventfd becomes readable with no call on the context, and the
 * expiries are there to take then. The device signals each wake-up of
 * the context and each call that serves expiries, so one signal may
 * cover both expiries (a wake-up that ran late); the timerfd backend
 * signals at least once for those due together (documented).
 * After -1 it stays quiet; a bad fd or a pipe is refused.
 */
static void t_eventfd(void)
{
	struct hwtimer *h = ctx_open(0);
	const struct hwtimer_event *ev;
	uint64_t cnt = 0, c;
	struct pollfd p;
	int efd, pfd[2] = { -1, -1 }, r, got = 0;

	if (!h)
		return;
	efd = eventfd(0, EFD_CLOEXEC);
	ok(hwtimer_features(h) & HWTIMER_FEATURE_EVENTFD, "feature bit");
	r = hwtimer_set_eventfd(h, efd);
	if (!ok(!r, "set_eventfd: %d", r))
		goto out;
	ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 1, NULL) &&
	   !hwtimer_arm(h, CLOCK_MONOTONIC, 40 * MS, 0, 0, 2, NULL), "arm");
	p.fd = efd;
	p.events = POLLIN;
	while (got < 2) {
		/* Nothing but poll(2) on the eventfd between expiries. */
		if (!ok(poll(&p, 1, WAIT_NS / MS) == 1, "eventfd silent, %d taken",
			got) || !ok(read(efd, &c, sizeof(c)) == sizeof(c), "read"))
			goto out;
		cnt += c;
		if (!ok(!hwtimer_peek(h, &ev), "eventfd readable, no expiry"))
			goto out;
		for (; !hwtimer_peek(h, &ev); hwtimer_seen(h))
			got++;
	}
	ok(got == 2, "%d expiries", got);
	ok(cnt >= 1, "eventfd counted %" PRIu64, cnt);
	ok(poll(&p, 1, 100) == 0, "readable after all were taken");
	ok(hwtimer_set_eventfd(h, -1) == 0, "set_eventfd -1");
	ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 3, NULL), "arm 3");
	ok(poll(&p, 1, 100) == 0, "signalled after -1");
	ok(hwtimer_set_eventfd(h, 1000000) == -EBADF, "bad fd");
	ok(!pipe(pfd) && hwtimer_set_eventfd(h, pfd[0]) == -EINVAL, "a pipe");
out:
	if (pfd[0] >= 0) {
		close(pfd[0]);
		close(pfd[1]);
	}
	close(efd);
	hwtimer_close(h);
}

/*
 * Past 2038 (the seconds of 2^31 and 2^32), where a 32-bit time_t wraps:
 * a deadline at 2^32 + 5 s does not fire (a wrapped timerfd would, at
 * 5 s) and can be cancelled; a wait of 3 * 2^30 s (negative as 32 bits)
 * waits and returns the expiry that comes.
 */
static void t_y2038(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev = { 0 };
	uint64_t far = ((1ULL << 32) + 5) * 1000000000ULL, id;
	int r;

	if (!h)
		return;
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, far, 0, HWTIMER_ARM_ABS, 1, &id),
		"arm at 2^32 s"))
		goto out;
	ok(!due_within(h, 50), "fd readable for a deadline at 2^32 s");
	ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 20 * MS, 0, 0, 2, NULL), "arm 20 ms");
	ok(next_event(h, &ev, (3ULL << 30) * 1000000000ULL) && ev.cookie == 2,
	   "wait of 3 * 2^30 s: cookie %" PRIu64, ev.cookie);
	ok(quiet_for(h, 50), "the far one fired");
	r = hwtimer_modify(h, id, far + (1ULL << 31) * 1000000000ULL,
			   HWTIMER_ARM_ABS);
	ok(r == HWTIMER_RESULT_MODIFIED, "modify to 2^32 + 2^31 s: %d", r);
	r = hwtimer_cancel(h, id);
	ok(r == HWTIMER_RESULT_CANCELLED, "cancel: %d", r);
out:
	hwtimer_close(h);
}

/*
 * fork() as documented: the device's context is shared (the child's
 * timeout reaches the parent); the timerfd backend's is copied (a timeout
 * pending at fork() expires in both, the child's own stays its own).
 */
static void t_fork(void)
{
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_event ev;
	bool dev;
	int status;
	pid_t pid;

	if (!h)
		return;
	dev = on_device(h);
	if (!ok(!hwtimer_arm(h, CLOCK_MONOTONIC, 100 * MS, 0, 0, 0xa, NULL), "arm"))
		goto out;
	fflush(stdout);
	pid = fork();
	if (!ok(pid >= 0, "fork"))
		goto out;
	if (!pid) {
		if (dev)
			_exit(hwtimer_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 0xc, NULL) ? 1 : 0);
		if (hwtimer_arm(h, CLOCK_MONOTONIC, 10 * MS, 0, 0, 0xc, NULL))
			_exit(1);
		/* The child sees its own first, then the inherited one. */
		if (!next_event(h, &ev, WAIT_NS) || ev.cookie != 0xc)
			_exit(2);
		if (!next_event(h, &ev, WAIT_NS) || ev.cookie != 0xa)
			_exit(3);
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   !WEXITSTATUS(status), "child: status %#x", status);
	if (dev) {
		/* Either may come first: 0xc at 10 ms, 0xa at 100 ms. */
		ok(next_event(h, &ev, WAIT_NS) && next_event(h, &ev, WAIT_NS),
		   "parent missed an expiry of the shared context");
	} else {
		ok(next_event(h, &ev, WAIT_NS) && ev.cookie == 0xa,
		   "parent lost its own timeout");
		ok(quiet_for(h, 100), "child's timeout reached the parent");
	}
out:
	hwtimer_close(h);
}

/*
 * The same ops with and without the device's rings (HWTIMER_OPEN_BATCH):
 * the same answers, each uncancelled timeout once and never early. With a
 * 4-entry queue and more timeouts than the rings have slots, the rings'
 * full submission ring and the fallback to BATCH are used too.
 */
static void rings_or_batch(unsigned int flags)
{
	enum { N = 5000, FIRE = 64 };
	static uint64_t id[N];
	struct hwtimer *h = NULL;
	struct hwtimer_event ev;
	uint64_t seen = 0, tags = 0, bad = 0;
	struct hwtimer_api api;
	int i, r = hwtimer_open(&h, 4, open_flags | flags);

	if (!ok(!r, "open %#x: %d", open_flags | flags, r))
		return;
	/*
	 * The ones that fire last and the cancels of half of them first, so
	 * that only 96 ops, not 10,000, race their 500 ms: a debug kernel
	 * under emulation takes longer than that for 5000 arms.
	 */
	for (i = N - 1; i >= 0; i--) {
		r = hwtimer_arm(h, CLOCK_MONOTONIC,
				i < FIRE ? 500 * MS : 3600000 * MS, 0, 0, i, &id[i]);
		bad += r != 0;
		/* Ring ids carry the rings' tag, device ids the context's. */
		tags += i < N - 1 && id[i] >> HWTIMER_ID_TAG_SHIFT !=
				 id[i + 1] >> HWTIMER_ID_TAG_SHIFT;
	}
	ok(!bad, "%" PRIu64 " of %d arms failed", bad, N);
	hwtimer_get_api(h, &api);
	/* With rings, the first 4096 (all their slots) go through them. */
	if (on_device(h) && (api.features & HWTIMER_FEATURE_RINGS))
		ok(flags & HWTIMER_OPEN_BATCH ?
		   !(hwtimer_features(h) & HWTIMER_FEATURE_RINGS) && !tags :
		   (hwtimer_features(h) & HWTIMER_FEATURE_RINGS) && tags == 1,
		   "%" PRIu64 " changes of id tag with flags %#x", tags, flags);
	for (i = 0, bad = 0; i < N; i++)
		if (i % 2 || i >= FIRE)
			bad += hwtimer_cancel(h, id[i]) != HWTIMER_RESULT_CANCELLED;
	ok(!bad, "%" PRIu64 " cancels did not say CANCELLED", bad);
	while (next_event(h, &ev, 1000 * MS)) {
		bad += ev.cookie >= FIRE || ev.cookie % 2 ||
		       (seen & 1ULL << ev.cookie) || ev.id != id[ev.cookie] ||
		       now_ns(CLOCK_MONOTONIC) < ev.deadline_ns ||
		       ev.fire_ns < ev.deadline_ns || !hwtimer_event_last(&ev);
		if (ev.cookie < FIRE)
			seen |= 1ULL << ev.cookie;
	}
	ok(!bad && seen == 0x5555555555555555ULL,
	   "expiries: %" PRIu64 " bad, seen %#" PRIx64, bad, seen);
	hwtimer_close(h);
}

static void t_rings_or_batch(void)
{
	rings_or_batch(0);
	rings_or_batch(HWTIMER_OPEN_BATCH);
}

/*
 * Stats count what the library answered, also when the kernel's answer
 * comes later and differs. On the rings a cancel before the deadline says
 * CANCELLED at once; should the timeout fire before the kernel takes the
 * entry, the kernel counts no cancel, and the library drops the expiry
 * and corrects the counts when it takes the cancel's completion.
 *
 * To make that race likely: the kernel's drain of the ring is a periodic
 * timeout on tick starts (restarted by an ENTER when it stopped after
 * idle ticks), and a lone timeout fires at its own deadline. So the arm's
 * deadline is put a quarter tick before a multiple of the tick from the
 * arm, and the cancel is made a tenth of a tick before that deadline: the
 * drain that takes the cancel usually comes at the next tick start, after
 * the expiry.
 * Nothing is read. Until two cancels raced (the kernel's own STATS on the
 * fd tell how many) or WAIT_NS passed. Then hwtimer_stats() must be the
 * kernel's counters as they are (a raced cancel fired there, and is not
 * cancelled), the library must count each raced cancel and its dropped
 * expiry and no take-back (the kernel took every arm first), and the two
 * must add up to the answers. Skipped when no cancel raced.
 */
static void t_stats_after_race(void)
{
	enum { TRIES = 1000, RACES = 2 };
	struct hwtimer *h = ctx_open(0);
	struct hwtimer_stats_req st, kst;
	struct hwtimer_lib_stats ls;
	struct view v;
	uint64_t tick, id, dl, armed = 0, cancelled = 0, fired = 0;
	uint64_t until = now_ns(CLOCK_MONOTONIC) + WAIT_NS;
	int i, r;

	if (!h)
		return;
	if (!on_device(h) || !(hwtimer_features(h) & HWTIMER_FEATURE_RINGS)) {
		skip("no timer rings");
		goto out;
	}
	tick = hwtimer_tick_ns(h);
	for (i = 0; i < TRIES; i++) {
		/* Between tries: the last try's records are all in. */
		sleep_ms(3 * tick / MS + 1);
		dl = now_ns(CLOCK_MONOTONIC) + 3 * tick - tick / 4;
		r = hwtimer_arm(h, CLOCK_MONOTONIC, dl, 0, HWTIMER_ARM_ABS, i, &id);
		if (!ok(!r, "arm: %d", r))
			goto out;
		armed++;
		/* The kernel takes the arm now: the cancel cannot take it back. */
		hwtimer_stats(h, CLOCK_MONOTONIC, &st);
		while (now_ns(CLOCK_MONOTONIC) + tick / 10 < dl)
			;
		r = hwtimer_cancel(h, id);
		if (!ok(r == HWTIMER_RESULT_CANCELLED || r == HWTIMER_RESULT_FIRED,
			"cancel: %d", r))
			goto out;
		cancelled += r == HWTIMER_RESULT_CANCELLED;
		fired += r == HWTIMER_RESULT_FIRED;
		sleep_ms(3 * tick / MS + 1);
		memset(&kst, 0, sizeof(kst));
		kst.clock = CLOCK_MONOTONIC;
		if (!ok(!ioctl(hwtimer_fd(h), HWTIMER_IOC_STATS, &kst),
			"STATS: %s", strerror(errno)))
			goto out;
		if (cancelled - kst.ctx_cancelled >= RACES ||
		    now_ns(CLOCK_MONOTONIC) > until)
			break;
	}
	/*
	 * A callback that started before its CANCEL came still counts as
	 * pending until it has queued its record, and under emulation a
	 * worker may take longer than the sleep above: wait for the records.
	 */
	until = now_ns(CLOCK_MONOTONIC) + WAIT_NS;
	while (!ioctl(hwtimer_fd(h), HWTIMER_IOC_STATS, &kst) &&
	       kst.ctx_pending && now_ns(CLOCK_MONOTONIC) < until)
		sleep_ms(1);
	if (!stats_view(h, CLOCK_MONOTONIC, &st, &ls, &v))
		goto out;
	kernel_as_is(h, &st);
	ok(v.armed == armed && v.cancelled == cancelled && v.fired == fired &&
	   !st.ctx_pending,
	   "stats: armed %" PRIu64 " cancelled %" PRIu64 " fired %" PRIu64
	   " pending %" PRIu64 "; answered %" PRIu64 " %" PRIu64 " %" PRIu64,
	   v.armed, v.cancelled, v.fired, (uint64_t)st.ctx_pending, armed,
	   cancelled, fired);
	ok(st.ctx_armed == armed && !ls.taken_back &&
	   ls.cancel_raced == cancelled - st.ctx_cancelled &&
	   ls.dropped == ls.cancel_raced && !ls.rearmed && !ls.refused,
	   "kernel armed %" PRIu64 " cancelled %" PRIu64 " fired %" PRIu64
	   "; library taken back %" PRIu64 " raced %" PRIu64 " dropped %"
	   PRIu64, (uint64_t)st.ctx_armed, (uint64_t)st.ctx_cancelled,
	   (uint64_t)st.ctx_fired, ls.taken_back, ls.cancel_raced,
	   ls.dropped);
	printf("# %d tries, %" PRIu64 " cancels raced their expiry\n",
	       i < TRIES ? i + 1 : i, cancelled - (uint64_t)kst.ctx_cancelled);
	if (!failed_check && cancelled == kst.ctx_cancelled)
		skip("no cancel raced its expiry");
out:
	hwtimer_close(h);
}

/* Ids of a closed context, and stale ids, match nothing. */
static void t_ids_after_close(void)
{
	struct hwtimer *a = ctx_open(0), *b;
	uint64_t ida, idb, id2;
	int r;

	if (!a)
		return;
	if (!ok(!hwtimer_arm(a, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 1, &ida), "arm a"))
		return hwtimer_close(a);
	hwtimer_close(a);
	b = ctx_open(0);
	if (!b)
		return;
	r = hwtimer_cancel(b, ida);
	ok(r == -ENOENT, "closed context's id: %d", r);
	ok(!hwtimer_arm(b, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 2, &idb) && idb != ida, "arm b");
	ok(hwtimer_cancel(b, idb) == HWTIMER_RESULT_CANCELLED, "cancel b");
	/* Its slot is reused: the stale id must not match the new timeout. */
	ok(!hwtimer_arm(b, CLOCK_MONOTONIC, 10000 * MS, 0, 0, 3, &id2) && id2 != idb, "re-arm");
	r = hwtimer_cancel(b, idb);
	ok(r == -ENOENT, "stale id: %d", r);
	ok(hwtimer_cancel(b, 0) == -ENOENT, "id 0");
	ok(hwtimer_cancel(b, id2) == HWTIMER_RESULT_CANCELLED, "live id");
	hwtimer_close(b);
	hwtimer_close(NULL);
}

static const struct {
	void (*fn)(void);
	const char *desc;
} checks[] = {
	{ t_open, "open: backend, fd, tick and features" },
	{ t_open_absent, "forced device without the module: -ENOENT, a message" },
	{ t_open_path, "open_path: NULL, a missing node, not a hwtimer; get_api" },
	{ t_stats, "stats: the context's arms, cancels, expiries, reads" },
	{ t_never_early, "300 one-shots on both clocks: never early, once each" },
	{ t_user_data, "user data round trip: u64 values and a pointer" },
	{ t_cancel_before, "cancel before the deadline: CANCELLED, nothing fires" },
	{ t_cancel_after, "cancel/modify after firing: FIRED, record kept, then ENOENT" },
	{ t_modify, "modify earlier (relative) and later (absolute)" },
	{ t_batch_results, "submit: per-op results, a bad id fails alone" },
	{ t_batch_split, "submit: auto-flush when full, split past BATCH_MAX" },
	{ t_periodic, "periodic: expiries on the grid, never early" },
	{ t_periodic_overruns, "periodic unread: overruns in one record" },
	{ t_periodic_cancel, "periodic cancel: waiting record comes, LAST" },
	{ t_boottime, "CLOCK_BOOTTIME: never early on it" },
	{ t_realtime_abs, "CLOCK_REALTIME absolute: its clock, deadline as armed" },
	{ t_realtime_rel, "CLOCK_REALTIME relative: runs on CLOCK_MONOTONIC" },
	{ t_realtime_periodic, "CLOCK_REALTIME periodic: first + whole periods" },
	{ t_realtime_batch, "CLOCK_REALTIME in a submit, beside monotonic arms" },
	{ t_realtime_stats, "stats of CLOCK_REALTIME: the context's counters" },
	{ t_cos_refused, "cancel on set: -EINVAL unless absolute CLOCK_REALTIME arm" },
	{ t_cos_expires, "cancel on set, clock left alone: expires as any timeout" },
	{ t_cos_clock_set, "cancel on set: a set of the clock cancels, with a record" },
	{ t_past_and_max, "past deadline at once, UINT64_MAX never" },
	{ t_bad_args, "bad flags, clock, period below the tick: -EINVAL" },
	{ t_peek_wait, "peek does not wait, wait times out with -ETIME" },
	{ t_wait_eintr, "signal in wait: -EINTR with and without SA_RESTART" },
	{ t_epoll, "hwtimer_fd in epoll" },
	{ t_fd_stays_ready, "hwtimer_fd stays readable across a call until taken" },
	{ t_eventfd, "eventfd signalled with no call on the context, stops at -1" },
	{ t_y2038, "past 2038: deadline at 2^32 s, a wait of 3 * 2^30 s" },
	{ t_fork, "fork: shared on the device, copied on timerfd" },
	{ t_ids_after_close, "ids of a closed context and stale ids: -ENOENT" },
	{ t_rings_or_batch, "5000 arms and cancels, with the rings and without" },
	{ t_stats_after_race, "stats: a cancel whose timeout fired in the kernel" },
};

static int parse_backend(const char *s)
{
	if (!s || !strcmp(s, "auto"))
		open_flags = 0;
	else if (!strcmp(s, "device"))
		open_flags = HWTIMER_OPEN_DEVICE;
	else if (!strcmp(s, "timerfd"))
		open_flags = HWTIMER_OPEN_TIMERFD;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = ARRAY_SIZE(checks), i, nfail = 0;
	const char *be = getenv("HWTIMER_TEST_BACKEND");

	if (argc == 3 && !strcmp(argv[1], "--backend"))
		be = argv[2];
	else if (argc != 1)
		be = "?";
	if (parse_backend(be)) {
		fprintf(stderr, "usage: %s [--backend device|timerfd|auto]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (open_flags == HWTIMER_OPEN_DEVICE && access("/dev/hwtimer", F_OK)) {
		printf("1..0 # SKIP /dev/hwtimer missing: is the hwtimer module loaded?\n");
		return 4;	/* KSFT_SKIP */
	}
	printf("1..%u\n", n);
	for (i = 0; i < n; i++) {
		failed_check = 0;
		skip_reason[0] = 0;
		checks[i].fn();
		if (failed_check) {
			printf("not ok %u %s\n", i + 1, checks[i].desc);
			nfail++;
		} else if (skip_reason[0]) {
			printf("ok %u %s # SKIP %s\n", i + 1, checks[i].desc,
			       skip_reason);
		} else {
			printf("ok %u %s\n", i + 1, checks[i].desc);
		}
	}
	printf("# %u of %u checks failed\n", nfail, n);
	return nfail ? 1 : 0;
}
