// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_abifuzz - concurrency fuzzer of the /dev/hwtimer ABI with an
 * exact ledger (kselftest TAP).
 *
 * Usage: hwtimer_abifuzz [-t SECONDS] [-j THREADS] [-c CONTEXTS] [-s SEED]
 *
 * THREADS threads (and the short-lived children they fork) share CONTEXTS
 * open files and race random ARM (one-shot and periodic, relative and
 * absolute, both clocks, deadlines of 0-5 ms), CANCEL, MODIFY, BATCH (with
 * deliberately bad ops), read/readv (blocking, interrupted by a per-thread
 * timer signal, and O_NONBLOCK), poll, epoll, SET_EVENTFD, STATS, dup,
 * fork, and close-and-reopen of a context while others still use it.
 *
 * Each thread uses its own dup() of a context, so an fd always names the
 * context the ledger thinks it does; a context is released when its last
 * dup is closed, and whoever closes it marks its unresolved timeouts
 * dropped. The ledger lives in MAP_SHARED memory (children write to it too)
 * and is keyed by cookie, so an event read before its ARM returned is still
 * matched. It checks, as it goes and at the end:
 *
 * - a one-shot ARM is resolved exactly once: its event is read, or CANCEL
 *   (or MODIFY) says CANCELLED, or its context is closed first;
 * - every event carries the id its ARM returned; no context issues an id
 *   twice; no two live contexts issue the same id, and CANCEL of another
 *   context's id is ENOENT; CANCEL of a dead or never-issued id is ENOENT;
 * - no event before its deadline (fire_ns >= deadline_ns), and the
 *   deadline is the one armed; fire_ns is not in the future;
 * - periodic records: one LAST at most, only after a cancel, and the
 *   records of an absolute, unmodified periodic timeout account for every
 *   period up to the latest one reported (overruns included);
 * - only documented errors; STATS agrees with the ledger once quiet.
 *
 * EDQUOT (a per-user limit) is taken like ENOSPC. The exit status is 1 on
 * any violation; the first few of each kind are printed as "# VIOLATION".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#define DEV		"/dev/hwtimer"
#define MS		1000000ULL
#define SEC		(1000 * MS)
/* Contexts and threads, at most. */
#define NCTX_MAX	8
#define THREADS_MAX	32
/* Ledger entries; an entry is reused once its timeout is resolved. */
#define NENT		(1U << 17)
/* Incarnations of contexts (opens) tracked at once. */
#define NINC		1024
/* Ids remembered to catch one issued twice: slots and probe window. */
#define IDTAB		(1U << 18)
#define IDPROBE		8
#define NSTRIPE		256
/* Recently armed entries per context, the targets of CANCEL and MODIFY. */
#define RECENT		64
/* Children alive per thread; ops a child runs. */
#define KIDS_MAX	1
#define KID_OPS		300
/* Live periodic and far (1 s - 1 h) timeouts per context, at most. */
#define PERIODIC_MAX	16
#define FAR_MAX		64
#define BATCH_OPS	12
#define READ_MAX	16
/* How long the final drain waits for the last events. */
#define DRAIN_NS	(60 * SEC)
/* Violations printed per kind. */
#define REPORT_MAX	8

/* Ledger states; E_EVENT and later are final. */
enum estate {
	E_ARMING = 1,	/* ARM in flight */
	E_LIVE,		/* armed */
	E_FIREDX,	/* CANCEL/MODIFY said FIRED: its event must come */
	E_EVENT,	/* one-shot's event read */
	E_CANCELLED,	/* CANCELLED */
	E_GONE,		/* MODIFY failed: the timeout is gone */
	E_NOARM,	/* ARM failed */
	E_DROPPED,	/* its context was closed first */
};

static const char *const state_name[] = {
	"?", "arming", "live", "fired", "read", "cancelled", "gone",
	"not armed", "dropped",
};

/* Entry flags. */
#define F_MODIFIED	(1U << 0)	/* a MODIFY was sent: phase unknown */
#define F_LAST		(1U << 1)	/* periodic: LAST record read */
#define F_CLOSED	(1U << 2)	/* its context is closed */
#define F_FAR		(1U << 3)	/* one-shot 1 s - 1 h away */

enum viol {
	V_DOUBLE, V_LOST, V_IDMIS, V_DUPID, V_FOREIGN, V_STALE, V_EARLY,
	V_RECORD, V_ERRNO, V_PERIODIC, V_STATS, V_CHILD, V_NR
};

static const char *const viol_name[V_NR] = {
	"double", "lost", "id-mismatch", "dup-id", "foreign-id", "stale-id",
	"early", "record", "errno", "periodic", "stats", "child",
};

static const char *const viol_desc[V_NR] = {
	"no timeout resolved twice (event, CANCELLED, close)",
	"no one-shot lost: each armed one read, cancelled or closed",
	"events carry the id their ARM returned",
	"no context issues an id twice",
	"ids of live contexts differ; another context's id is ENOENT",
	"dead and never-issued ids are ENOENT",
	"no event before its deadline, none before the armed deadline",
	"records well-formed (flags, clock, cookie, fire time, size)",
	"only documented errors",
	"periodic: one LAST at most, overruns count every period",
	"STATS invariants and counters agree with the ledger",
	"forked children exited cleanly",
};

enum total {
	T_OPS, T_ARM, T_PERIODIC, T_FULL, T_EVENT, T_OVERRUN, T_CANCELLED,
	T_FIRED, T_MODIFIED, T_GONE, T_DROPPED, T_ENOENT, T_EAGAIN, T_EINTR,
	T_BATCH, T_BAD, T_FOREIGN, T_CLOSE, T_FORK, T_DUP, T_POLL, T_EVENTFD,
	T_STATS, T_READ, T_NR
};

static const char *const total_name[T_NR] = {
	"ops", "arms", "periodic-arms", "arm-enospc", "events", "overruns",
	"cancelled", "fired", "modified", "gone", "dropped", "enoent",
	"eagain", "eintr", "batches", "bad-ops", "foreign-cancels",
	"context-closes", "forks", "dups", "polls", "eventfd-sets", "stats",
	"reads",
};

/**
 * struct ent - ledger entry of one ARM; its cookie is @seq
 * @lock: spin lock of the entry
 * @state: &enum estate
 * @flags: F_*
 * @seq: cookie, 0 when free; also the index (@seq % NENT)
 * @id: id from ARM, or from its first event if that came first
 * @inc: incarnation (open) of the context it was armed on
 * @slot: context slot
 * @clock: its clock
 * @pins: operations in flight on it; it is not reused while pinned
 * @moving: MODIFYs in flight: the deadline window is open-ended
 * @period: period, 0 for a one-shot
 * @dl_lo: earliest deadline the kernel may have set (any arm or modify)
 * @dl_hi: latest, for one-shots
 * @abs0: first deadline of an absolute periodic, else 0
 * @nev: records read
 * @nexp: expiries read (1 + overruns per record)
 * @maxdl: latest deadline read
 */
struct ent {
	__u32 lock;
	__u32 state;
	__u32 flags;
	__u32 inc;
	__u64 seq;
	__u64 id;
	__u16 slot;
	__u16 clock;
	__u16 pins;
	__u16 moving;
	__u64 period;
	__u64 dl_lo;
	__u64 dl_hi;
	__u64 abs0;
	__u64 nev;
	__u64 nexp;
	__u64 maxdl;
};

/**
 * struct inc - one open of a context slot (an incarnation)
 * @serial: its number (0: unused); index is @serial % NINC
 * @refs: fds open on it, all processes; 0 once released
 * @armed: successful arms, for STATS
 * @read: records read, for STATS
 */
struct inc {
	__u32 serial;
	__s32 refs;
	__u64 armed;
	__u64 read;
};

/**
 * struct ctxslot - a context slot shared by the threads
 * @lock: protects @master and @inc
 * @inc: current incarnation
 * @master: the parent's fd of it, which the threads dup
 * @nperiodic: live periodic timeouts (approximate)
 * @nfar: live far one-shots (approximate)
 * @pos: next @recent slot
 * @recent: cookies of recent arms
 */
struct ctxslot {
	__u32 lock;
	__u32 inc;
	__s32 master;
	__s32 nperiodic;
	__s32 nfar;
	__u32 pos;
	__u64 recent[RECENT];
};

/* An id seen, with the incarnation that issued it and its cookie. */
struct idslot {
	__u64 id;
	__u64 seq;
	__u32 inc;
	__u32 pad;
};

struct shared {
	__u64 viol[V_NR];
	__u64 tot[T_NR];
	__u64 next_seq;
	__u32 next_inc;
	__u32 stop;
	__u32 print_lock;
	struct ctxslot ctx[NCTX_MAX];
	struct inc incs[NINC];
	__u32 stripe[NSTRIPE];
	struct idslot ids[IDTAB];
	struct ent ents[NENT];
};

/**
 * struct worker - a fuzzing thread, or a forked child (@child)
 * @rng: xorshift64 state
 * @fd: its own fd of each context slot
 * @inc: incarnation of each @fd
 * @linger: ops left on a closed incarnation before moving on
 * @alarm: timer that interrupts blocking reads (SIGUSR1 to this thread)
 * @kids: children it forked, 0 when none
 * @child: a forked child, confined to slot @only
 */
struct worker {
	__u64 rng;
	int fd[NCTX_MAX];
	__u32 inc[NCTX_MAX];
	int linger[NCTX_MAX];
	timer_t alarm;
	bool has_alarm;
	pid_t kids[KIDS_MAX];
	bool child;
	int only;
	pthread_t thr;
};

static struct shared *sh;
static unsigned int nctx = 3, nthreads = 4;
static __u64 tick_ns;

#define ld(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define st(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define add(p, v)	__atomic_add_fetch(p, v, __ATOMIC_ACQ_REL)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void spin_lock(__u32 *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void spin_unlock(__u32 *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static void bump(enum total t)
{
	add(&sh->tot[t], 1);
}

static __u64 rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static __u64 below(struct worker *w, __u64 n)
{
	return n ? rnd(w) % n : 0;
}

static __u64 now(__u32 clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * SEC + ts.tv_nsec;
}

static bool stopping(void)
{
	return ld(&sh->stop);
}

/* Count a violation of @kind; print the first few. */
static void report(enum viol kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (add(&sh->viol[kind], 1) > REPORT_MAX)
		return;
	n = snprintf(buf, sizeof(buf), "# VIOLATION %s [pid %d]: ",
		     viol_name[kind], getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	spin_lock(&sh->print_lock);
	if (write(STDOUT_FILENO, buf, n) < 0)
		n = 0;
	spin_unlock(&sh->print_lock);
}

/* An error the ABI documents for what was asked, else a violation. */
static void unexpected(const char *what, __u64 id, int err)
{
	report(V_ERRNO, "%s (id %#llx): %s", what, id, strerror(err));
}

static const char *sname(__u32 s)
{
	return s < ARRAY_SIZE(state_name) ?
	       state_name[s] : "?";
}

static bool final(__u32 state)
{
	return state >= E_EVENT;
}

/* ---- incarnations ---- */

static struct inc *inc_of(__u32 serial)
{
	return &sh->incs[serial % NINC];
}

static bool inc_live(__u32 serial)
{
	struct inc *in = inc_of(serial);

	return ld(&in->serial) == serial && ld(&in->refs) > 0;
}

static __u32 inc_new(void)
{
	__u32 serial = add(&sh->next_inc, 1);
	struct inc *in = inc_of(serial);

	if (ld(&in->refs) > 0) {
		printf("Bail out! more than %u contexts open at once\n", NINC);
		exit(2);
	}
	in->armed = 0;
	in->read = 0;
	st(&in->refs, 1);
	st(&in->serial, serial);
	return serial;
}

static void inc_get(__u32 serial)
{
	add(&inc_of(serial)->refs, 1);
}

/* Set a final state; keeps the per-context counts of long-lived ones. */
static void settle(struct ent *e, __u32 state)
{
	struct ctxslot *c = &sh->ctx[e->slot];

	if (!final(e->state)) {
		if (e->period)
			add(&c->nperiodic, -1);
		if (e->flags & F_FAR)
			add(&c->nfar, -1);
	}
	e->state = state;
}

/* The last fd of an incarnation closed: what it left unresolved dropped. */
static void inc_released(__u32 serial)
{
	__u32 i;

	for (i = 0; i < NENT; i++) {
		struct ent *e = &sh->ents[i];

		if (ld(&e->inc) != serial)
			continue;
		spin_lock(&e->lock);
		if (e->seq && e->inc == serial) {
			if (!final(e->state)) {
				settle(e, E_DROPPED);
				bump(T_DROPPED);
			}
			e->flags |= F_CLOSED;
		}
		spin_unlock(&e->lock);
	}
}

static void inc_put(__u32 serial)
{
	if (!add(&inc_of(serial)->refs, -1))
		inc_released(serial);
}

/* ---- ids seen ---- */

static __u32 id_hash(__u64 id)
{
	return (__u32)((id * 0x9e3779b97f4a7c15ULL) >> 40) % IDTAB;
}

/* Remember @id of @serial; a repeat in the same or a live context is bad. */
static void id_insert(__u64 id, __u32 serial, __u64 seq)
{
	__u32 h = id_hash(id), i, victim = IDTAB;
	__u32 *lk = &sh->stripe[h % NSTRIPE];

	spin_lock(lk);
	for (i = 0; i < IDPROBE; i++) {
		struct idslot *s = &sh->ids[(h + i) % IDTAB];

		if (!s->id) {
			if (victim == IDTAB)
				victim = (h + i) % IDTAB;
			continue;
		}
		if (s->id != id)
			continue;
		if (s->inc == serial)
			report(V_DUPID, "context #%u issued id %#llx twice (cookies %llu and %llu)",
			       serial, id, s->seq, seq);
		else if (inc_live(s->inc))
			report(V_FOREIGN, "id %#llx issued by live contexts #%u and #%u",
			       id, s->inc, serial);
	}
	if (victim == IDTAB)
		victim = (h + (__u32)seq % IDPROBE) % IDTAB;
	sh->ids[victim] = (struct idslot){ .id = id, .seq = seq, .inc = serial };
	spin_unlock(lk);
}

/* The cookie of the timeout @serial armed with @id, or 0. */
static __u64 id_lookup(__u64 id, __u32 serial)
{
	__u32 h = id_hash(id), i;
	__u64 seq = 0;

	spin_lock(&sh->stripe[h % NSTRIPE]);
	for (i = 0; i < IDPROBE; i++) {
		struct idslot *s = &sh->ids[(h + i) % IDTAB];

		if (s->id == id && s->inc == serial)
			seq = s->seq;
	}
	spin_unlock(&sh->stripe[h % NSTRIPE]);
	return seq;
}

/* ---- ledger entries ---- */

static struct ent *ent_of(__u64 seq)
{
	return &sh->ents[seq % NENT];
}

/* Checks of a periodic entry once nothing more can happen to it. */
static void periodic_retire(struct ent *e)
{
	__u64 span;

	if ((e->flags & F_LAST) && e->state != E_CANCELLED &&
	    e->state != E_GONE)
		report(V_PERIODIC, "id %#llx: LAST record though never cancelled (%s)",
		       e->id, sname(e->state));
	if (!e->nev || !e->abs0 || (e->flags & F_MODIFIED))
		return;
	span = (e->maxdl - e->abs0) / e->period + 1;
	if (e->nexp != span)
		report(V_PERIODIC, "id %#llx: records count %llu expiries (overruns included) but deadlines %llu..%llu span %llu periods of %llu ns",
		       e->id, e->nexp, e->abs0, e->maxdl, span, e->period);
}

/* May the entry be reused? A cancelled periodic waits for LAST or close. */
static bool reusable(struct ent *e)
{
	if (!e->seq)
		return true;
	if (e->pins || !final(e->state))
		return false;
	if (e->period && !(e->flags & (F_LAST | F_CLOSED)))
		return false;
	return true;
}

/* A fresh entry in state E_ARMING, pinned, or NULL when all are busy. */
static struct ent *ent_new(struct worker *w, int slot, __u32 serial)
{
	int tries;

	for (tries = 0; tries < 64; tries++) {
		__u64 seq = add(&sh->next_seq, 1);
		struct ent *e = ent_of(seq);

		spin_lock(&e->lock);
		if (!reusable(e)) {
			spin_unlock(&e->lock);
			continue;
		}
		if (e->seq && e->period)
			periodic_retire(e);
		memset((char *)e + sizeof(e->lock), 0,
		       sizeof(*e) - sizeof(e->lock));
		e->seq = seq;
		e->state = E_ARMING;
		e->inc = serial;
		e->slot = slot;
		e->pins = 1;
		spin_unlock(&e->lock);
		return e;
	}
	return NULL;
}

/*
 * Pin the entry of cookie @seq for an operation by id; NULL if it was
 * reused or has no id yet. *dead: its id was already dead.
 */
static struct ent *ent_pin(__u64 seq, __u64 *id, bool *dead,
			   __u32 *serial)
{
	struct ent *e = ent_of(seq);

	spin_lock(&e->lock);
	if (e->seq != seq || !e->id) {
		spin_unlock(&e->lock);
		return NULL;
	}
	*id = e->id;
	*dead = final(e->state);
	*serial = e->inc;
	e->pins++;
	spin_unlock(&e->lock);
	return e;
}

static void recent_push(int slot, __u64 seq)
{
	struct ctxslot *c = &sh->ctx[slot];

	st(&c->recent[add(&c->pos, 1) % RECENT], seq);
}

static __u64 recent_pick(struct worker *w, int slot)
{
	return ld(&sh->ctx[slot].recent[below(w, RECENT)]);
}

/* ---- events ---- */

/* Deadline and fire time of a record against its entry (locked). */
static void check_times(struct ent *e, const struct hwtimer_event *ev,
			__u64 after)
{
	if (ev->fire_ns < ev->deadline_ns)
		report(V_EARLY, "id %#llx fired at %llu, %llu ns before its deadline %llu",
		       ev->id, ev->fire_ns, ev->deadline_ns - ev->fire_ns,
		       ev->deadline_ns);
	if (ev->deadline_ns < e->dl_lo)
		report(V_EARLY, "id %#llx: record deadline %llu is %llu ns before the armed one",
		       ev->id, ev->deadline_ns, e->dl_lo - ev->deadline_ns);
	if (!e->period && !e->moving && e->state != E_ARMING &&
	    ev->deadline_ns > e->dl_hi)
		report(V_RECORD, "id %#llx: record deadline %llu is %llu ns after the armed one",
		       ev->id, ev->deadline_ns, ev->deadline_ns - e->dl_hi);
	if (ev->fire_ns > after)
		report(V_RECORD, "id %#llx: fire_ns %llu is in the future (read returned at %llu)",
		       ev->id, ev->fire_ns, after);
}

static void periodic_event(struct ent *e, const struct hwtimer_event *ev)
{
	e->nev++;
	e->nexp += 1 + ev->overruns;
	if (ev->deadline_ns > e->maxdl)
		e->maxdl = ev->deadline_ns;
	add(&sh->tot[T_OVERRUN], ev->overruns);
	if (e->abs0 && !(e->flags & F_MODIFIED) && !e->moving &&
	    (ev->deadline_ns - e->abs0) % e->period)
		report(V_PERIODIC, "id %#llx: deadline %llu is not first deadline %llu + k * %llu",
		       ev->id, ev->deadline_ns, e->abs0, e->period);
	if (!(ev->flags & HWTIMER_EVENT_LAST))
		return;
	if (e->flags & F_LAST)
		report(V_DOUBLE, "periodic id %#llx: second LAST record",
		       ev->id);
	e->flags |= F_LAST;
}

static void oneshot_event(struct ent *e, const struct hwtimer_event *ev)
{
	if (!(ev->flags & HWTIMER_EVENT_LAST) || ev->overruns)
		report(V_RECORD, "one-shot id %#llx: flags %#x overruns %llu",
		       ev->id, ev->flags, ev->overruns);
	if (final(e->state)) {
		report(V_DOUBLE, "one-shot id %#llx (cookie %llu): event read after it was %s",
		       ev->id, e->seq, sname(e->state));
		return;
	}
	settle(e, E_EVENT);
}

/* Match one record read from incarnation @serial against the ledger. */
static void handle_event(__u32 serial, const struct hwtimer_event *ev,
			 __u64 after)
{
	struct ent *e = ent_of(ev->cookie);

	bump(T_EVENT);
	add(&inc_of(serial)->read, 1);
	if (!ev->cookie || ev->cookie > ld(&sh->next_seq)) {
		report(V_RECORD, "event id %#llx with cookie %llu that was never armed",
		       ev->id, ev->cookie);
		return;
	}
	spin_lock(&e->lock);
	if (e->seq != ev->cookie) {
		spin_unlock(&e->lock);
		report(V_DOUBLE, "event id %#llx for cookie %llu whose timeout was resolved long ago",
		       ev->id, ev->cookie);
		return;
	}
	if (e->inc != serial)
		report(V_FOREIGN, "event of context #%u's id %#llx read from context #%u",
		       e->inc, ev->id, serial);
	if (!e->id)
		e->id = ev->id;
	else if (e->id != ev->id)
		report(V_IDMIS, "cookie %llu: event id %#llx but ARM returned %#llx",
		       e->seq, ev->id, e->id);
	if (ev->clock != e->clock)
		report(V_RECORD, "id %#llx: clock %u, armed on %u",
		       ev->id, ev->clock, e->clock);
	check_times(e, ev, after);
	if (e->period)
		periodic_event(e, ev);
	else
		oneshot_event(e, ev);
	spin_unlock(&e->lock);
}

/* ---- the blocking-read alarm ---- */

static void on_alarm(int sig)
{
}

static void alarm_setup(struct worker *w)
{
	struct sigevent sev = { 0 };

	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = gettid();
	w->has_alarm = !timer_create(CLOCK_MONOTONIC, &sev, &w->alarm);
}

/*
 * Interrupt this thread's blocking call @ns from now, and again every @ns
 * until alarm_set(w, 0): a single signal that lands before the call blocks
 * (the thread was preempted in between) would leave it blocked for good.
 */
static void alarm_set(struct worker *w, __u64 ns)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ns / SEC;
	its.it_value.tv_nsec = ns % SEC;
	its.it_interval = its.it_value;
	if (w->has_alarm)
		timer_settime(w->alarm, 0, &its, NULL);
}

/* ---- operations ---- */

/**
 * struct armspec - what one ARM asks for
 * @req: the request (cookie filled in by arm_begin)
 * @rel: relative deadline, or 0 with HWTIMER_ARM_ABS
 * @far: a far one-shot
 */
struct armspec {
	struct hwtimer_arm_req req;
	__u64 rel;
	bool far;
};

static __u32 pick_clock(struct worker *w)
{
	return below(w, 2) ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
}

/* A deadline of 0-5 ms, relative or absolute (sometimes just past). */
static void pick_deadline(struct worker *w, __u32 clock, __u64 *dl,
			  __u32 *flags, __u64 *rel)
{
	__u64 d = below(w, 5 * MS + 1);

	*flags = 0;
	*rel = d;
	*dl = d;
	if (below(w, 10) < 3) {
		*flags = HWTIMER_ARM_ABS;
		*rel = 0;
		*dl = now(clock) + d;
		if (!below(w, 10))
			*dl -= 2 * d;
	}
}

static void pick_arm(struct worker *w, int slot, struct armspec *a)
{
	struct ctxslot *c = &sh->ctx[slot];

	memset(a, 0, sizeof(*a));
	a->req.clock = pick_clock(w);
	pick_deadline(w, a->req.clock, &a->req.deadline_ns, &a->req.flags,
		      &a->rel);
	if (!below(w, 8) && ld(&c->nperiodic) < PERIODIC_MAX) {
		a->req.period_ns = tick_ns * (1 + below(w, 5));
	} else if (!below(w, 50) && ld(&c->nfar) < FAR_MAX) {
		a->far = true;
		a->rel = SEC + below(w, 3600 * SEC);
		a->req.deadline_ns = a->rel;
		a->req.flags = 0;
	}
}

static bool arm_is_rel(const struct armspec *a)
{
	return !(a->req.flags & HWTIMER_ARM_ABS);
}

/* Reserve the ledger entry of an ARM; fills in the cookie. */
static struct ent *arm_begin(struct worker *w, int slot, struct armspec *a)
{
	struct ctxslot *c = &sh->ctx[slot];
	struct ent *e = ent_new(w, slot, w->inc[slot]);

	if (!e)
		return NULL;
	spin_lock(&e->lock);
	a->req.cookie = e->seq;
	e->clock = a->req.clock;
	e->period = a->req.period_ns;
	/* Relative by its flags: a relative deadline may be 0 (now). */
	e->dl_lo = arm_is_rel(a) ? now(a->req.clock) + a->rel :
				   a->req.deadline_ns;
	e->dl_hi = e->dl_lo;
	if (a->req.period_ns && !arm_is_rel(a))
		e->abs0 = a->req.deadline_ns;
	if (a->far)
		e->flags |= F_FAR;
	spin_unlock(&e->lock);
	if (a->req.period_ns)
		add(&c->nperiodic, 1);
	if (a->far)
		add(&c->nfar, 1);
	return e;
}

/* The ARM of @e returned @err (0: @id); unpin it. */
static void arm_end(struct ent *e, const struct armspec *a, int err,
		    __u64 id)
{
	__u64 t1 = now(a->req.clock), seq;
	__u32 serial;

	spin_lock(&e->lock);
	e->pins--;
	seq = e->seq;
	serial = e->inc;
	if (err) {
		if (e->state != E_ARMING)
			report(V_RECORD, "ARM failed (%s) but cookie %llu produced an event",
			       strerror(err), seq);
		settle(e, E_NOARM);
		spin_unlock(&e->lock);
		if (err == ENOSPC || err == EDQUOT)
			bump(T_FULL);
		else if (err != EINTR)
			unexpected("ARM", 0, err);
		return;
	}
	if (arm_is_rel(a))
		e->dl_hi = t1 + a->rel;
	if (e->id && e->id != id)
		report(V_IDMIS, "ARM returned id %#llx but the event of its timeout (cookie %llu) carried id %#llx",
		       id, seq, e->id);
	if (!e->id)
		e->id = id;
	if (e->state == E_ARMING)
		e->state = E_LIVE;
	spin_unlock(&e->lock);
	add(&inc_of(serial)->armed, 1);
	bump(T_ARM);
	if (a->req.period_ns)
		bump(T_PERIODIC);
	if (!id)
		report(V_RECORD, "ARM returned id 0");
	id_insert(id, serial, seq);
	recent_push(e->slot, seq);
}

static void op_arm(struct worker *w, int slot)
{
	struct armspec a;
	struct ent *e;
	int err = 0;

	pick_arm(w, slot, &a);
	e = arm_begin(w, slot, &a);
	if (!e)
		return;
	if (ioctl(w->fd[slot], HWTIMER_IOC_ARM, &a.req))
		err = errno;
	arm_end(e, &a, err, a.req.id);
}

static void unpin(struct ent *e)
{
	spin_lock(&e->lock);
	e->pins--;
	spin_unlock(&e->lock);
}

/*
 * CANCEL (or MODIFY) of pinned @e's id answered @result: record it.
 * @dead: the id was dead before the call.
 */
static void resolve(struct ent *e, __u64 id, bool dead, __u32 result,
		    const char *what)
{
	spin_lock(&e->lock);
	if (dead) {
		report(V_STALE, "%s of id %#llx, %s before the call, matched (result %u)",
		       what, id, sname(e->state), result);
	} else if (result == HWTIMER_RESULT_CANCELLED) {
		bump(T_CANCELLED);
		if (final(e->state) || e->state == E_FIREDX)
			report(V_DOUBLE, "%s said CANCELLED for id %#llx (cookie %llu) already %s",
			       what, id, e->seq, sname(e->state));
		else
			settle(e, E_CANCELLED);
	} else if (result == HWTIMER_RESULT_FIRED && !e->period) {
		bump(T_FIRED);
		if (e->state == E_LIVE)
			e->state = E_FIREDX;
		else if (e->state != E_FIREDX && e->state != E_EVENT)
			report(V_DOUBLE, "%s said FIRED for id %#llx already %s",
			       what, id, sname(e->state));
	} else if (result == HWTIMER_RESULT_MODIFIED) {
		/*
		 * A CANCEL or read that ended the timeout while this MODIFY
		 * was in the kernel may be recorded first: the kernel order
		 * (modify, then the end) is not the ledger's. An end recorded
		 * before the call began is caught above (@dead).
		 */
		bump(T_MODIFIED);
	} else {
		report(V_RECORD, "%s of id %#llx: result %u (%speriodic)",
		       what, id, result, e->period ? "" : "not ");
	}
	e->pins--;
	spin_unlock(&e->lock);
}

/* CANCEL of another context's id answered @err/@result on @serial. */
static void foreign_hit(__u64 id, __u32 owner, __u32 serial,
			int err, __u32 result)
{
	__u64 seq;
	__u64 mid;
	bool dead;
	__u32 s;
	struct ent *e;

	bump(T_FOREIGN);
	if (err == ENOENT)
		return;
	if (err) {
		unexpected("CANCEL of another context's id", id, err);
		return;
	}
	report(V_FOREIGN, "CANCEL of %s context #%u's id %#llx on context #%u matched (result %u)",
	       inc_live(owner) ? "open" : "closed", owner, id, serial,
	       result);
	/* It hit a timeout of this context: account for it. */
	seq = id_lookup(id, serial);
	e = seq ? ent_pin(seq, &mid, &dead, &s) : NULL;
	if (e)
		resolve(e, id, false, result, "foreign CANCEL");
}

/* After a CANCEL of pinned @e (cookie's owner @owner) on @serial. */
static void cancel_done(struct ent *e, __u64 id, bool dead,
			__u32 owner, __u32 serial, int err,
			__u32 result)
{
	if (owner != serial) {
		unpin(e);
		foreign_hit(id, owner, serial, err, result);
		return;
	}
	if (err) {
		unpin(e);
		if (err == ENOENT)
			bump(T_ENOENT);
		else
			unexpected("CANCEL", id, err);
		return;
	}
	resolve(e, id, dead, result, "CANCEL");
}

static void op_cancel(struct worker *w, int slot)
{
	struct hwtimer_cancel_req req = { 0 };
	__u64 seq = recent_pick(w, slot);
	__u32 owner;
	struct ent *e;
	bool dead;
	int err = 0;

	e = seq ? ent_pin(seq, &req.id, &dead, &owner) : NULL;
	if (!e)
		return;
	if (ioctl(w->fd[slot], HWTIMER_IOC_CANCEL, &req))
		err = errno;
	cancel_done(e, req.id, dead, owner, w->inc[slot], err, req.result);
}

/* CANCEL of another slot's id, or of a never-issued one: ENOENT. */
static void op_cancel_foreign(struct worker *w, int slot)
{
	struct hwtimer_cancel_req req = { 0 };
	int other = (slot + 1 + below(w, nctx - 1)) % nctx;
	__u64 seq = nctx > 1 ? recent_pick(w, other) : 0;
	__u32 owner = 0;
	struct ent *e;
	bool dead;
	int err = 0;

	e = seq ? ent_pin(seq, &req.id, &dead, &owner) : NULL;
	if (e)
		unpin(e);
	else
		req.id = rnd(w) | 1ULL << 63;
	if (ioctl(w->fd[slot], HWTIMER_IOC_CANCEL, &req))
		err = errno;
	if (e) {
		if (owner == w->inc[slot])
			return;	/* a dup of this very context */
		foreign_hit(req.id, owner, w->inc[slot], err, req.result);
	} else if (err != ENOENT) {
		report(V_STALE, "CANCEL of never-issued id %#llx: %s (result %u)",
		       req.id, err ? strerror(err) : "matched", req.result);
	}
}

/* Open the deadline window of pinned @e for a MODIFY to @lo. */
static void modify_begin(struct ent *e, __u64 lo)
{
	spin_lock(&e->lock);
	e->moving++;
	e->flags |= F_MODIFIED;
	if (lo < e->dl_lo)
		e->dl_lo = lo;
	spin_unlock(&e->lock);
}

/* After a MODIFY of pinned @e; @hi the latest new deadline. */
static void modify_done(struct ent *e, __u64 id, bool dead, int err,
			__u32 result, __u64 hi)
{
	spin_lock(&e->lock);
	e->moving--;
	if (!err && result == HWTIMER_RESULT_MODIFIED && hi > e->dl_hi)
		e->dl_hi = hi;
	if (err == ENOSPC || err == EDQUOT) {
		/* The timeout is gone. */
		if (!dead && !final(e->state))
			settle(e, E_GONE);
		bump(T_GONE);
	}
	spin_unlock(&e->lock);
	if (!err) {
		resolve(e, id, dead, result, "MODIFY");
		return;
	}
	unpin(e);
	if (err == ENOENT)
		bump(T_ENOENT);
	else if (err != ENOSPC && err != EDQUOT && err != EINTR)
		unexpected("MODIFY", id, err);
}

static void op_modify(struct worker *w, int slot)
{
	struct hwtimer_modify_req req = { 0 };
	__u64 seq = recent_pick(w, slot), rel, lo;
	__u32 owner, clock;
	struct ent *e;
	bool dead;
	int err = 0;

	e = seq ? ent_pin(seq, &req.id, &dead, &owner) : NULL;
	if (!e)
		return;
	clock = e->clock;
	if (owner != w->inc[slot]) {
		unpin(e);	/* another context's: CANCEL covers that */
		return;
	}
	pick_deadline(w, clock, &req.deadline_ns, &req.flags, &rel);
	lo = rel ? now(clock) + rel : req.deadline_ns;
	modify_begin(e, lo);
	if (ioctl(w->fd[slot], HWTIMER_IOC_MODIFY, &req))
		err = errno;
	modify_done(e, req.id, dead, err, req.result,
		    rel ? now(clock) + rel : req.deadline_ns);
}

/* ---- batches ---- */

/* Status of an op the kernel did not write back. */
#define NOT_RUN		(-EOWNERDEAD)

enum bkind { B_ARM, B_CANCEL, B_MODIFY, B_FOREIGN, B_BAD };

/**
 * struct bslot - what the fuzzer knows about one op of a batch
 * @kind: &enum bkind
 * @e: pinned entry (ARM, CANCEL, MODIFY, FOREIGN), or NULL
 * @a: the ARM's spec
 * @dead: CANCEL/MODIFY: the id was dead before
 * @owner: incarnation of @e
 * @rel: MODIFY: relative deadline, or 0
 */
struct bslot {
	enum bkind kind;
	struct ent *e;
	struct armspec a;
	bool dead;
	__u32 owner;
	__u64 rel;
};

/* A bad op: every one must fail with EINVAL. */
static void bad_op(struct worker *w, struct hwtimer_batch_op *op)
{
	op->op = HWTIMER_OP_ARM;
	op->clock = CLOCK_MONOTONIC;
	op->deadline_ns = MS;
	switch (below(w, 7)) {
	case 0:
		op->op = below(w, 2) ? 0 : 4 + below(w, 100);
		break;
	case 1:
		op->clock = 8 + below(w, 100);	/* 7 is CLOCK_BOOTTIME */
		break;
	case 2:
		op->flags = 1U << (1 + below(w, 31));
		break;
	case 3:
		op->period_ns = 1 + below(w, tick_ns - 1);
		break;
	case 4:
		op->op = HWTIMER_OP_CANCEL;
		op->clock = 0;
		op->id = rnd(w);
		op->cookie = 1;
		break;
	case 5:
		op->op = HWTIMER_OP_MODIFY;
		op->clock = 0;
		op->id = rnd(w);
		op->period_ns = tick_ns;
		break;
	default:
		if (below(w, 2))
			op->pad = 1;
		else
			op->reserved = 1;
		break;
	}
}

static void batch_fill(struct worker *w, int slot, struct bslot *b,
		       struct hwtimer_batch_op *op)
{
	__u64 seq;

	memset(b, 0, sizeof(*b));
	memset(op, 0, sizeof(*op));
	op->status = NOT_RUN;
	b->kind = below(w, 10) < 4 ? B_ARM : below(w, 5);
	if (b->kind == B_ARM) {
		pick_arm(w, slot, &b->a);
		b->e = arm_begin(w, slot, &b->a);
		if (!b->e) {
			b->kind = B_BAD;
			bad_op(w, op);
			return;
		}
		op->op = HWTIMER_OP_ARM;
		op->cookie = b->a.req.cookie;
		op->deadline_ns = b->a.req.deadline_ns;
		op->period_ns = b->a.req.period_ns;
		op->clock = b->a.req.clock;
		op->flags = b->a.req.flags;
		return;
	}
	if (b->kind == B_BAD) {
		bad_op(w, op);
		return;
	}
	seq = recent_pick(w, b->kind == B_FOREIGN ?
			  (slot + 1) % (int)nctx : slot);
	b->e = seq ? ent_pin(seq, &op->id, &b->dead, &b->owner) : NULL;
	if (b->kind == B_MODIFY && b->e && b->owner != w->inc[slot]) {
		unpin(b->e);
		b->e = NULL;
	}
	if (!b->e) {
		b->kind = B_BAD;
		bad_op(w, op);
		return;
	}
	op->op = HWTIMER_OP_CANCEL;
	if (b->kind == B_MODIFY) {
		op->op = HWTIMER_OP_MODIFY;
		pick_deadline(w, b->e->clock, &op->deadline_ns, &op->flags,
			      &b->rel);
		modify_begin(b->e, b->rel ? now(b->e->clock) + b->rel :
			     op->deadline_ns);
	}
}

static void batch_done(struct worker *w, int slot, struct bslot *b,
		       struct hwtimer_batch_op *op)
{
	int err = op->status < 0 ? -op->status : 0;

	if (op->status == NOT_RUN) {
		/* A signal stopped the batch before this op: it did not run. */
		if (b->kind == B_MODIFY)
			modify_done(b->e, op->id, b->dead, EINTR, 0, 0);
		else if (b->kind == B_ARM)
			arm_end(b->e, &b->a, EINTR, 0);
		else if (b->e)
			unpin(b->e);
		return;
	}
	switch (b->kind) {
	case B_ARM:
		arm_end(b->e, &b->a, err, op->id);
		break;
	case B_CANCEL:
	case B_FOREIGN:
		cancel_done(b->e, op->id, b->dead, b->owner, w->inc[slot],
			    err, op->result);
		break;
	case B_MODIFY:
		modify_done(b->e, op->id, b->dead, err, op->result,
			    b->rel ? now(b->e->clock) + b->rel :
			    op->deadline_ns);
		break;
	case B_BAD:
		bump(T_BAD);
		if (err != EINVAL)
			report(V_ERRNO, "bad batch op %u (clock %u flags %#x period %llu pad %u reserved %llu): status %d, not -EINVAL",
			       op->op, op->clock, op->flags,
			       (__u64)op->period_ns, op->pad,
			       (__u64)op->reserved, op->status);
		break;
	}
}

static void op_batch(struct worker *w, int slot)
{
	struct hwtimer_batch_op ops[BATCH_OPS];
	struct bslot bs[BATCH_OPS];
	struct hwtimer_batch req = { 0 };
	__u32 n = 1 + below(w, BATCH_OPS), i, failed = 0;

	for (i = 0; i < n; i++)
		batch_fill(w, slot, &bs[i], &ops[i]);
	req.ops = (uintptr_t)ops;
	req.count = n;
	bump(T_BATCH);
	if (ioctl(w->fd[slot], HWTIMER_IOC_BATCH, &req)) {
		if (errno == EINTR)
			bump(T_EINTR);
		else
			unexpected("BATCH", 0, errno);
	} else if (req.done != n) {
		report(V_RECORD, "BATCH of %u ops: done %u", n, req.done);
	}
	for (i = 0; i < n; i++) {
		failed += ops[i].status != 0 && ops[i].status != NOT_RUN;
		batch_done(w, slot, &bs[i], &ops[i]);
	}
	if (req.failed != failed && req.done == n)
		report(V_RECORD, "BATCH: failed %u, but %u ops have a status",
		       req.failed, failed);
}

/* ---- reads and waits ---- */

/* Check and ledger @n bytes of records read from @slot. */
static void take_records(struct worker *w, int slot,
			 const struct hwtimer_event *evs, ssize_t n,
			 size_t asked)
{
	__u64 after = now(CLOCK_BOOTTIME);
	__u64 after_mono = now(CLOCK_MONOTONIC);
	ssize_t i;

	if (n % sizeof(*evs) || (size_t)n > asked)
		report(V_RECORD, "read of %zu bytes returned %zd", asked, n);
	for (i = 0; i < n / (ssize_t)sizeof(*evs); i++)
		handle_event(w->inc[slot], &evs[i],
			     evs[i].clock == CLOCK_MONOTONIC ? after_mono :
			     after);
}

static void read_failed(int err, size_t asked)
{
	if (err == EAGAIN)
		bump(T_EAGAIN);
	else if (err == EINTR)
		bump(T_EINTR);
	else if (err == EINVAL && asked < sizeof(struct hwtimer_event))
		bump(T_BAD);
	else
		unexpected("read", 0, err);
}

static void op_read(struct worker *w, int slot)
{
	struct hwtimer_event evs[READ_MAX + 1];
	size_t asked;
	ssize_t n;

	asked = sizeof(evs[0]) * (1 + below(w, READ_MAX));
	if (!below(w, 4))
		asked += below(w, sizeof(evs[0]));
	if (!below(w, 50))
		asked = below(w, sizeof(evs[0]));
	bump(T_READ);
	alarm_set(w, MS + below(w, 10 * MS));
	n = read(w->fd[slot], evs, asked);
	alarm_set(w, 0);
	if (n < 0) {
		read_failed(errno, asked);
		return;
	}
	if (asked < sizeof(evs[0]))
		report(V_RECORD, "read of %zu bytes returned %zd, not EINVAL",
		       asked, n);
	take_records(w, slot, evs, n, asked);
}

static void op_readv(struct worker *w, int slot)
{
	struct hwtimer_event evs[READ_MAX];
	struct iovec iov[4];
	size_t off = 0, asked = 0;
	int i, niov = 2 + below(w, 3);
	ssize_t n;

	for (i = 0; i < niov; i++) {
		size_t len = sizeof(evs[0]) * (1 + below(w, 3));

		if (!below(w, 8))
			len += below(w, sizeof(evs[0]));
		iov[i].iov_base = (char *)evs + off;
		iov[i].iov_len = len;
		off += len;
	}
	asked = off;
	bump(T_READ);
	alarm_set(w, MS + below(w, 10 * MS));
	n = readv(w->fd[slot], iov, niov);
	alarm_set(w, 0);
	if (n < 0) {
		read_failed(errno, iov[0].iov_len);
		return;
	}
	take_records(w, slot, evs, n, asked);
}

static void op_poll(struct worker *w, int slot)
{
	struct pollfd p = { .fd = w->fd[slot], .events = POLLIN };
	int r;

	bump(T_POLL);
	r = poll(&p, 1, below(w, 6));
	if (r < 0 && errno != EINTR)
		unexpected("poll", 0, errno);
	if (r > 0 && (p.revents & ~(POLLIN | POLLRDNORM)))
		report(V_RECORD, "poll revents %#x", p.revents);
	if (r > 0)
		op_read(w, slot);
}

static void op_epoll(struct worker *w, int slot)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), r;

	bump(T_POLL);
	if (ep < 0) {
		unexpected("epoll_create1", 0, errno);
		return;
	}
	if (below(w, 2))
		ev.events |= EPOLLET;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, w->fd[slot], &ev)) {
		unexpected("epoll_ctl", 0, errno);
	} else {
		r = epoll_wait(ep, &ev, 1, below(w, 6));
		if (r < 0 && errno != EINTR)
			unexpected("epoll_wait", 0, errno);
		if (r > 0)
			op_read(w, slot);
	}
	close(ep);
}

/* Flip O_NONBLOCK: it is the open file's, so every thread sees it. */
static void op_nonblock(struct worker *w, int slot)
{
	int fl = fcntl(w->fd[slot], F_GETFL);

	if (fl >= 0)
		fcntl(w->fd[slot], F_SETFL, fl ^ O_NONBLOCK);
}

/* ---- other commands ---- */

static void op_eventfd(struct worker *w, int slot)
{
	struct hwtimer_eventfd_req req = { 0 };
	int want = 0, efd = -1, r;
	__u64 v;

	bump(T_EVENTFD);
	switch (below(w, 10)) {
	case 0:
	case 1:
		req.fd = -1;
		break;
	case 2:
		req.fd = w->fd[slot];	/* not an eventfd */
		want = EINVAL;
		break;
	case 3:
		req.fd = 1 << 20;	/* not a file */
		want = EBADF;
		break;
	default:
		efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		req.fd = efd;
		break;
	}
	r = ioctl(w->fd[slot], HWTIMER_IOC_SET_EVENTFD, &req) ? errno : 0;
	if (r != want)
		report(V_ERRNO, "SET_EVENTFD(%d): %s, expected %s", req.fd,
		       strerror(r), strerror(want));
	if (want)
		bump(T_BAD);
	if (efd >= 0) {
		if (!r) {
			sched_yield();
			if (read(efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				unexpected("eventfd read", 0, errno);
		}
		close(efd);
	}
}

static void op_stats(struct worker *w, int slot)
{
	struct hwtimer_stats_req s = { 0 };

	bump(T_STATS);
	s.clock = pick_clock(w);
	if (ioctl(w->fd[slot], HWTIMER_IOC_STATS, &s)) {
		unexpected("STATS", 0, errno);
		return;
	}
	if (s.ctx_pending > s.ctx_live || s.ctx_queued > s.ctx_live ||
	    s.ctx_live > s.ctx_max_pending || s.ctx_read > s.ctx_fired ||
	    s.reserved[0] || s.reserved[1] || s.tick_ns != tick_ns)
		report(V_STATS, "STATS: pending %llu queued %llu live %llu cap %llu read %llu fired %llu tick %llu",
		       (__u64)s.ctx_pending, (__u64)s.ctx_queued,
		       (__u64)s.ctx_live, (__u64)s.ctx_max_pending,
		       (__u64)s.ctx_read, (__u64)s.ctx_fired,
		       (__u64)s.tick_ns);
}

/* Deliberately bad single commands and the errno each must give. */
static void op_bad(struct worker *w, int slot)
{
	union {
		struct hwtimer_arm_req arm;
		struct hwtimer_cancel_req cancel;
		struct hwtimer_modify_req modify;
		struct hwtimer_stats_req stats;
		struct hwtimer_api api;
		struct hwtimer_batch batch;
	} u;
	unsigned long cmd;
	void *arg = &u;
	int want = EINVAL, r;

	memset(&u, 0, sizeof(u));
	switch (below(w, 8)) {
	case 0:
		cmd = HWTIMER_IOC_ARM;
		u.arm.clock = CLOCK_MONOTONIC;
		u.arm.reserved[below(w, 2)] = 1;
		break;
	case 1:
		cmd = HWTIMER_IOC_CANCEL;
		u.cancel.id = rnd(w);
		u.cancel.flags = 1;
		break;
	case 2:
		cmd = HWTIMER_IOC_MODIFY;
		u.modify.id = rnd(w);
		u.modify.flags = 2;
		break;
	case 3:
		cmd = HWTIMER_IOC_STATS;
		u.stats.clock = 99;
		break;
	case 4:
		cmd = HWTIMER_IOC_API;
		u.api.api = HWTIMER_API + 1;
		break;
	case 5:
		cmd = HWTIMER_IOC_BATCH;
		u.batch.count = HWTIMER_BATCH_MAX + 1;
		break;
	case 6:
		cmd = _IOWR(HWTIMER_IOC_MAGIC, 0x3f, __u64);
		want = ENOTTY;
		break;
	default:
		cmd = HWTIMER_IOC_ARM;
		arg = NULL;
		want = EFAULT;
		break;
	}
	bump(T_BAD);
	r = ioctl(w->fd[slot], cmd, arg) ? errno : 0;
	if (r != want)
		report(V_ERRNO, "bad ioctl %#lx: %s, expected %s", cmd,
		       r ? strerror(r) : "success", strerror(want));
}

static void basic_op(struct worker *w, int slot, unsigned int which);

/* An op on a fresh dup of the fd, closed right after. */
static void op_dup(struct worker *w, int slot)
{
	int d = dup(w->fd[slot]), save = w->fd[slot];

	if (d < 0) {
		unexpected("dup", 0, errno);
		return;
	}
	bump(T_DUP);
	inc_get(w->inc[slot]);
	w->fd[slot] = d;
	basic_op(w, slot, below(w, 100));
	w->fd[slot] = save;
	close(d);
	inc_put(w->inc[slot]);
}

/* Close the slot's context and open a new one; the threads follow. */
static void op_reopen(struct worker *w, int slot)
{
	struct ctxslot *c = &sh->ctx[slot];
	int fd = open(DEV, O_RDWR | O_CLOEXEC), old;
	__u32 old_inc;

	if (fd < 0) {
		unexpected("open", 0, errno);
		return;
	}
	bump(T_CLOSE);
	spin_lock(&c->lock);
	old = c->master;
	old_inc = c->inc;
	c->master = fd;
	c->inc = inc_new();
	spin_unlock(&c->lock);
	close(old);
	inc_put(old_inc);
}

/* Move the thread's fd of @slot to the current incarnation. */
static void refresh(struct worker *w, int slot)
{
	struct ctxslot *c = &sh->ctx[slot];
	__u32 old = w->inc[slot];
	int fd;

	if (ld(&c->inc) == old)
		return;
	if (old && w->linger[slot]-- > 0)
		return;
	spin_lock(&c->lock);
	fd = dup(c->master);
	if (fd >= 0) {
		w->inc[slot] = c->inc;
		inc_get(c->inc);
	}
	spin_unlock(&c->lock);
	if (fd < 0) {
		unexpected("dup", 0, errno);
		return;
	}
	if (old) {
		close(w->fd[slot]);
		inc_put(old);
	}
	w->fd[slot] = fd;
	w->linger[slot] = below(w, 2) ? below(w, 16) : 0;
}

/* ---- forked children ---- */

static void reap(struct worker *w, bool wait)
{
	int i, status;
	pid_t r;

	for (i = 0; i < KIDS_MAX; i++) {
		if (!w->kids[i])
			continue;
		do {
			r = waitpid(w->kids[i], &status, wait ? 0 : WNOHANG);
		} while (r < 0 && errno == EINTR);
		if (!r)
			continue;
		if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			report(V_CHILD, "child %d: status %#x", w->kids[i],
			       r < 0 ? -1 : status);
		w->kids[i] = 0;
	}
}

static void child_main(struct worker *w, int slot)
{
	int fd = w->fd[slot], i;

	/* Only the inherited fd of @slot stays open (the parent's refs). */
	if (fd > 3)
		close_range(3, fd - 1, 0);
	close_range(fd + 1, ~0U, 0);
	w->child = true;
	w->only = slot;
	w->rng ^= (__u64)getpid() << 32;
	memset(w->kids, 0, sizeof(w->kids));
	alarm_setup(w);
	for (i = 0; i < KID_OPS && !stopping(); i++) {
		basic_op(w, slot, below(w, 100));
		bump(T_OPS);
	}
	close(fd);
	inc_put(w->inc[slot]);
	_exit(0);
}

static void op_fork(struct worker *w, int slot)
{
	int i;
	pid_t pid;

	reap(w, false);
	for (i = 0; i < KIDS_MAX && w->kids[i]; i++)
		;
	if (i == KIDS_MAX)
		return;
	inc_get(w->inc[slot]);
	pid = fork();
	if (pid < 0) {
		inc_put(w->inc[slot]);
		return;
	}
	if (!pid)
		child_main(w, slot);
	bump(T_FORK);
	w->kids[i] = pid;
}

/* ---- the op mix ---- */

/* The ops a child or a dup may run, by a roll of 0-99. */
static void basic_op(struct worker *w, int slot, unsigned int which)
{
	if (which < 26)
		op_arm(w, slot);
	else if (which < 36)
		op_batch(w, slot);
	else if (which < 50)
		op_cancel(w, slot);
	else if (which < 58)
		op_modify(w, slot);
	else if (which < 63)
		op_cancel_foreign(w, slot);
	else if (which < 78)
		op_read(w, slot);
	else if (which < 82)
		op_readv(w, slot);
	else if (which < 88)
		op_poll(w, slot);
	else if (which < 91)
		op_epoll(w, slot);
	else if (which < 93)
		op_eventfd(w, slot);
	else if (which < 96)
		op_stats(w, slot);
	else if (which < 98)
		op_bad(w, slot);
	else if (which < 99 && !w->child)
		op_nonblock(w, slot);
	else
		op_read(w, slot);
}

static void one_op(struct worker *w)
{
	int slot = below(w, nctx);
	unsigned int roll = below(w, 1000);

	refresh(w, slot);
	if (roll < 2)
		op_reopen(w, slot);
	else if (roll < 4)
		op_fork(w, slot);
	else if (roll < 34)
		op_dup(w, slot);
	else
		basic_op(w, slot, roll % 100);
	bump(T_OPS);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned int i, n = 0;

	alarm_setup(w);
	for (i = 0; i < nctx; i++)
		refresh(w, i);
	while (!stopping()) {
		one_op(w);
		if (!(++n % 64))
			reap(w, false);
	}
	reap(w, true);
	for (i = 0; i < nctx; i++) {
		close(w->fd[i]);
		inc_put(w->inc[i]);
	}
	if (w->has_alarm)
		timer_delete(w->alarm);
	return NULL;
}

/* ---- the end: drain, compare, report ---- */

/* Non-final one-shots of @serial, or the live periodics with @periodic. */
static unsigned int outstanding(__u32 serial, bool report_them)
{
	unsigned int i, n = 0;

	for (i = 0; i < NENT; i++) {
		struct ent *e = &sh->ents[i];

		if (e->seq && e->inc == serial && !final(e->state)) {
			n++;
			if (report_them)
				report(V_LOST, "%s id %#llx (cookie %llu, clock %u, deadline %llu..%llu) was %s and never resolved",
				       e->period ? "periodic" : "one-shot",
				       e->id, e->seq, e->clock, e->dl_lo,
				       e->dl_hi, sname(e->state));
		}
	}
	return n;
}

/* Cancel everything still live on @serial, as one quiet thread. */
static void cancel_all(struct worker *w, int slot, __u32 serial)
{
	unsigned int i;

	for (i = 0; i < NENT; i++) {
		struct ent *e = &sh->ents[i];
		struct hwtimer_cancel_req req = { 0 };
		__u32 owner;
		bool dead;
		int err = 0;

		if (!e->seq || e->inc != serial || e->state != E_LIVE)
			continue;
		if (!ent_pin(e->seq, &req.id, &dead, &owner))
			continue;
		if (ioctl(w->fd[slot], HWTIMER_IOC_CANCEL, &req))
			err = errno;
		cancel_done(e, req.id, dead, owner, serial, err, req.result);
	}
}

static bool queue_empty(int fd, __u64 *live)
{
	struct hwtimer_stats_req s = { .clock = CLOCK_MONOTONIC };

	if (ioctl(fd, HWTIMER_IOC_STATS, &s))
		return true;
	*live = s.ctx_live;
	return !s.ctx_queued;
}

/* Compare the quiet context's counters with the ledger. */
static void final_stats(int fd, __u32 serial)
{
	struct hwtimer_stats_req s = { .clock = CLOCK_MONOTONIC };
	struct inc *in = inc_of(serial);

	if (ioctl(fd, HWTIMER_IOC_STATS, &s)) {
		unexpected("STATS", 0, errno);
		return;
	}
	if (s.ctx_armed != in->armed || s.ctx_read != in->read ||
	    s.ctx_pending || s.ctx_queued || s.ctx_live)
		report(V_STATS, "context #%u at rest: armed %llu (ledger %llu), read %llu (ledger %llu), pending %llu queued %llu live %llu (all 0 expected)",
		       serial, (__u64)s.ctx_armed, in->armed,
		       (__u64)s.ctx_read, in->read, (__u64)s.ctx_pending,
		       (__u64)s.ctx_queued, (__u64)s.ctx_live);
}

/* Drain one slot: cancel the live, read the rest, compare, close. */
static void drain(int slot)
{
	struct ctxslot *c = &sh->ctx[slot];
	struct hwtimer_event evs[READ_MAX];
	struct worker w = { .rng = 1 };
	__u32 serial = c->inc;
	__u64 end = now(CLOCK_MONOTONIC) + DRAIN_NS, live = 0;
	struct pollfd p = { .fd = c->master, .events = POLLIN };
	ssize_t n;

	w.fd[slot] = c->master;
	w.inc[slot] = serial;
	fcntl(c->master, F_SETFL, O_NONBLOCK);
	cancel_all(&w, slot, serial);
	while (now(CLOCK_MONOTONIC) < end) {
		n = read(c->master, evs, sizeof(evs));
		if (n > 0) {
			take_records(&w, slot, evs, n, sizeof(evs));
			continue;
		}
		if (n < 0 && errno != EAGAIN)
			unexpected("read", 0, errno);
		if (!outstanding(serial, false) && queue_empty(c->master, &live))
			break;
		poll(&p, 1, 100);
	}
	outstanding(serial, true);
	final_stats(c->master, serial);
	close(c->master);
	inc_put(serial);
}

static void final_scan(void)
{
	unsigned int i;

	for (i = 0; i < NENT; i++) {
		struct ent *e = &sh->ents[i];

		if (e->seq && e->period)
			periodic_retire(e);
	}
}

/* ---- TAP ---- */

static unsigned int tap_n, tap_fail;

static void tap_result(bool pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	tap_fail += !pass;
	printf("%sok %u ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void print_totals(void)
{
	char line[1024];
	int i, n = 0;

	for (i = 0; i < T_NR; i++) {
		n += snprintf(line + n, sizeof(line) - n, " %s %llu",
			      total_name[i], ld(&sh->tot[i]));
		if (n > 900 || i == T_NR - 1) {
			printf("#%s\n", line);
			n = 0;
		}
	}
}

static void print_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t SECONDS] [-j THREADS] [-c CONTEXTS] [-s SEED]\n",
		prog);
	exit(2);
}

static int setup(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i;
	int fd;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: reads get EINTR */
	signal(SIGPIPE, SIG_IGN);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		printf("Bail out! mmap of the ledger: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < nctx; i++) {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, HWTIMER_IOC_API, &api)) {
			printf("Bail out! %s: %s\n", DEV, strerror(errno));
			return -1;
		}
		tick_ns = api.tick_ns;
		sh->ctx[i].master = fd;
		sh->ctx[i].inc = inc_new();
	}
	return 0;
}

static void run(unsigned int secs, __u64 seed)
{
	struct worker *ws = calloc(nthreads, sizeof(*ws));
	__u64 t0 = now(CLOCK_MONOTONIC), t;
	unsigned int i, next_note = 60;

	for (i = 0; i < nthreads; i++) {
		ws[i].rng = (seed + i) * 0x9e3779b97f4a7c15ULL | 1;
		pthread_create(&ws[i].thr, NULL, worker_main, &ws[i]);
	}
	while ((t = (now(CLOCK_MONOTONIC) - t0) / SEC) < secs) {
		if (t >= next_note) {
			printf("# %llu s: ops %llu arms %llu events %llu\n", t, ld(&sh->tot[T_OPS]),
			       ld(&sh->tot[T_ARM]), ld(&sh->tot[T_EVENT]));
			next_note += 60;
		}
		usleep(100000);
	}
	st(&sh->stop, 1);
	for (i = 0; i < nthreads; i++)
		pthread_join(ws[i].thr, NULL);
	free(ws);
}

int main(int argc, char **argv)
{
	__u64 seed = (__u64)time(NULL) ^ (__u64)getpid() << 20;
	unsigned int secs = 10, i;
	int opt;

	while ((opt = getopt(argc, argv, "t:j:c:s:")) != -1) {
		switch (opt) {
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			nthreads = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			nctx = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (!nthreads || nthreads > THREADS_MAX || !nctx || nctx > NCTX_MAX)
		print_usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("# hwtimer_abifuzz: %u s, %u threads, %u contexts, seed %#llx, uid %d\n",
	       secs, nthreads, nctx, seed, getuid());
	if (setup())
		return 1;
	printf("1..%u\n", V_NR);
	run(secs, seed);
	for (i = 0; i < nctx; i++)
		drain(i);
	final_scan();
	print_totals();
	for (i = 0; i < V_NR; i++) {
		__u64 n = ld(&sh->viol[i]);

		if (n)
			tap_result(false, "abifuzz: %s (%llu violations)",
				   viol_desc[i], n);
		else
			tap_result(true, "abifuzz: %s", viol_desc[i]);
	}
	printf("# seed %#llx: %u of %u checks failed\n", seed,
	       tap_fail, tap_n);
	return tap_fail ? 1 : 0;
}
