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
 * Rings: the threads (never the children) also set up a context's timer
 * rings once (random sizes, slots and clock), mmap() them (whole, short,
 * or bad: EINVAL), munmap() and map them again, push ARM (mostly idle
 * slots, some far busy ones), CANCEL, MODIFY and bad entries, ENTER, and
 * take records from the CQ. Each ring has one producer and one consumer:
 * a lock in the ledger for the sq tail, one for the cq head. Completions
 * of entries come only through the CQ, in the order of the entries, so
 * the ledger walks a cursor over the entries pushed: an entry passed
 * without a completion had none to give (sq head before cq tail). It
 * checks, for rings not fed garbage:
 *
 * - a ring ARM that did not complete with an error is resolved exactly
 *   once: its expiry (CQ, or read() once the CQ was full), never early,
 *   LAST set, slot and cookie its own; a CANCELLED completion (the slot's
 *   latest ARM known armed); a MODIFY's error (gone); or the close;
 * - a CANCEL has exactly one completion, a MODIFY one unless it moved a
 *   timeout, a bad entry completes with -EINVAL; EBUSY only for a slot
 *   that was not known idle, and always for one held by a far ARM;
 * - completions carry the slot, op and cookie of an entry waiting.
 *
 * A third of the rings are hostile: a scribbler writes garbage into the
 * indices (the kernel's too) and the entries, and their records are only
 * checked for form (flags, slot below slots, fire time). Mappings are
 * MADV_DONTFORK and referenced by their users; close-and-reopen takes a
 * context's mapping away, reads its CQ after the close (the mapping holds
 * the file) and unmaps it, so that the context is released.
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

#include "kselftest.h"

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
/* Ring ledgers (contexts with rings) kept at once; ring slots at most. */
#define NRLED		64
#define RSLOTS_MAX	32
/* Entries remembered per ring until their completion is settled. */
#define RLOG		256
/* A ring ARM this far away cannot fire during a run: its slot stays busy. */
#define RFAR_NS		(30 * SEC)

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
#define F_RING		(1U << 4)	/* ARM of a ring slot */

enum viol {
	V_DOUBLE, V_LOST, V_IDMIS, V_DUPID, V_FOREIGN, V_STALE, V_EARLY,
	V_RECORD, V_ERRNO, V_PERIODIC, V_STATS, V_CHILD, V_RING, V_HOSTILE,
	V_NR
};

static const char *const viol_name[V_NR] = {
	"double", "lost", "id-mismatch", "dup-id", "foreign-id", "stale-id",
	"early", "record", "errno", "periodic", "stats", "child", "ring",
	"hostile-ring",
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
	"ring entries complete as documented, ring arms resolved once",
	"rings fed garbage give well-formed records only",
};

enum total {
	T_OPS, T_ARM, T_PERIODIC, T_FULL, T_EVENT, T_OVERRUN, T_CANCELLED,
	T_FIRED, T_MODIFIED, T_GONE, T_DROPPED, T_ENOENT, T_EAGAIN, T_EINTR,
	T_BATCH, T_BAD, T_FOREIGN, T_CLOSE, T_FORK, T_DUP, T_POLL, T_EVENTFD,
	T_STATS, T_READ, T_RSETUP, T_RMAP, T_RPUSH, T_RFULL, T_RCQE,
	T_RREAD, T_RBUSY, T_RENTER, T_SCRIBBLE, T_RLATE, T_RETRACT,
	T_RKEPT, T_NR
};

static const char *const total_name[T_NR] = {
	"ops", "arms", "periodic-arms", "arm-enospc", "events", "overruns",
	"cancelled", "fired", "modified", "gone", "dropped", "enoent",
	"eagain", "eintr", "batches", "bad-ops", "foreign-cancels",
	"context-closes", "forks", "dups", "polls", "eventfd-sets", "stats",
	"reads", "ring-setups", "ring-maps", "ring-pushes", "ring-full",
	"ring-cqes", "ring-reads", "ring-ebusy", "ring-enters", "scribbles",
	"late-cq-reaps", "retracted", "retract-claimed",
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
 * @rled: ring ARM: index of its ring ledger
 * @rslot: ring ARM: its ring slot
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
	__u32 rled;
	__u32 rslot;
};

/**
 * struct inc - one open of a context slot (an incarnation)
 * @serial: its number (0: unused); index is @serial % NINC
 * @refs: fds open on it, all processes; 0 once released
 * @armed: successful arms, for STATS
 * @read: records read, for STATS
 * @ring: &enum rstate of its rings
 * @rled: index of its ring ledger, once @ring is RS_READY
 */
struct inc {
	__u32 serial;
	__s32 refs;
	__u64 armed;
	__u64 read;
	__u32 ring;
	__u32 rled;
};

/* Rings of an incarnation. */
enum rstate {
	RS_NONE,	/* none yet */
	RS_SETUP,	/* a thread is setting them up */
	RS_READY,	/* set up, ledger ready */
};

/**
 * struct rlog - an entry pushed to a submission ring, as the ledger keeps it
 * @cookie: its cookie; an ARM's is its ledger entry's
 * @busy: ARM: cookie of a far ARM of the slot it must find armed, or 0
 * @op: HWTIMER_SQE_*, as written
 * @rslot: its ring slot, as written
 * @bad: a bad entry: it must complete with -EINVAL
 * @idle: ARM: every earlier ARM of the slot was resolved when it was pushed
 */
struct rlog {
	__u64 cookie;
	__u64 busy;
	__u32 op;
	__u32 rslot;
	__u32 bad;
	__u32 idle;
};

/**
 * struct rslotled - what the ledger knows of one ring slot
 * @last_ok: cookie of the latest ARM known armed, in ring order (cq_lock)
 * @last_arm: cookie of the latest ARM pushed not expected to fail (sq_lock)
 * @far_dl: deadline of @last_arm if far and untouched since, else 0
 *	(sq_lock)
 * @last_idx: push index of the latest ARM pushed (sq_lock)
 * @nopen: ARMs pushed and not resolved
 */
struct rslotled {
	__u64 last_ok;
	__u64 last_arm;
	__u64 far_dl;
	__u32 last_idx;
	__s32 nopen;
};

/**
 * struct rled - ledger of one context's rings
 * @serial: the incarnation whose rings these are, 0 for none
 * @maps: mappings of them alive in the fuzzer's main process
 * @hostile: the scribbler writes garbage into them: their records are
 *	checked for form only
 * @sq_lock: the one producer: protects @tail, @log and the slots' push
 *	fields
 * @cq_lock: the one consumer: protects @head, @cursor and @last_ok
 * @tail: the sq tail as pushed
 * @head: the cq head as consumed
 * @cursor: push index of the oldest entry whose completion is not settled
 * @s: the answer of RING_SETUP
 * @slot: the ring slots
 * @log: the entries pushed, by push index modulo RLOG
 */
struct rled {
	__u32 serial;
	__s32 maps;
	__u32 hostile;
	__u32 sq_lock;
	__u32 cq_lock;
	__u32 tail;
	__u32 head;
	__u32 cursor;
	struct hwtimer_ring_setup s;
	struct rslotled slot[RSLOTS_MAX];
	struct rlog log[RLOG];
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
	struct rled rleds[NRLED];
};

/**
 * struct rmap - one mmap() of a context's rings in the main process
 * @mem: where
 * @len: its length, maybe shorter than map_size
 * @refs: the slot table's reference, if still current, and users
 * @serial: the incarnation mapped
 * @r: its ring ledger
 */
struct rmap {
	char *mem;
	size_t len;
	int refs;
	__u32 serial;
	struct rled *r;
};

/**
 * struct rmapslot - the mapping the threads use of a context slot's rings
 * @lock: protects @serial, @cur and every mapping's refs
 * @serial: the slot's incarnation; a mapping of another is not installed
 * @cur: the current mapping, or NULL
 */
struct rmapslot {
	pthread_mutex_t lock;
	__u32 serial;
	struct rmap *cur;
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
static struct rmapslot rmaps[NCTX_MAX];
static unsigned int nctx = 3, nthreads = 4;
static __u64 tick_ns;
static size_t pagesz;

#define ld(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define st(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define add(p, v)	__atomic_add_fetch(p, v, __ATOMIC_ACQ_REL)

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
	in->ring = RS_NONE;
	in->rled = 0;
	st(&in->refs, 1);
	st(&in->serial, serial);
	return serial;
}

static void inc_get(__u32 serial)
{
	add(&inc_of(serial)->refs, 1);
}

/* A ring ARM is resolved: its slot has one open ARM less. */
static void ring_unopen(struct ent *e)
{
	struct rled *r = &sh->rleds[e->rled];

	if (ld(&r->serial) == e->inc)
		add(&r->slot[e->rslot].nopen, -1);
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
		if (e->flags & F_RING)
			ring_unopen(e);
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

static void ring_read(__u32 serial, const struct hwtimer_event *ev,
		      __u64 after);

/* Match one record read from incarnation @serial against the ledger. */
static void handle_event(__u32 serial, const struct hwtimer_event *ev,
			 __u64 after)
{
	struct ent *e = ent_of(ev->cookie);

	bump(T_EVENT);
	add(&inc_of(serial)->read, 1);
	if (ev->flags & HWTIMER_EVENT_RING) {
		ring_read(serial, ev, after);
		return;
	}
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

/* ---- timer rings ---- */

/* The ring ledger of @serial, or NULL if it has no rings (yet). */
static struct rled *rled_of(__u32 serial)
{
	struct inc *in = inc_of(serial);
	struct rled *r;

	if (ld(&in->serial) != serial || ld(&in->ring) != RS_READY)
		return NULL;
	r = &sh->rleds[in->rled];
	return ld(&r->serial) == serial ? r : NULL;
}

/* Field @off, @len bytes long, in mapping @m; NULL past its end. */
static void *rm_at(const struct rmap *m, __u32 off, size_t len)
{
	return off + len <= m->len ? m->mem + off : NULL;
}

static __u32 *rm_u32(const struct rmap *m, __u32 off)
{
	return rm_at(m, off, sizeof(__u32));
}

static struct hwtimer_sqe *rm_sqes(const struct rmap *m)
{
	return rm_at(m, m->r->s.sqes,
		     m->r->s.sq_entries * sizeof(struct hwtimer_sqe));
}

static struct hwtimer_event *rm_cqes(const struct rmap *m)
{
	return rm_at(m, m->r->s.cqes,
		     m->r->s.cq_entries * sizeof(struct hwtimer_event));
}

/* The current mapping of @slot's rings, referenced, or NULL. */
static struct rmap *map_get(int slot)
{
	struct rmapslot *ms = &rmaps[slot];
	struct rmap *m;

	pthread_mutex_lock(&ms->lock);
	m = ms->cur;
	if (m)
		m->refs++;
	pthread_mutex_unlock(&ms->lock);
	return m;
}

/* Drop a reference to @m; the last one unmaps it. */
static void map_put(int slot, struct rmap *m)
{
	struct rmapslot *ms = &rmaps[slot];
	int refs;

	pthread_mutex_lock(&ms->lock);
	refs = --m->refs;
	pthread_mutex_unlock(&ms->lock);
	if (refs)
		return;
	if (munmap(m->mem, m->len))
		unexpected("munmap of the rings", 0, errno);
	add(&m->r->maps, -1);
	free(m);
}

/* Make @m (NULL: none) the mapping of @serial's rings, if still current. */
static void map_install(int slot, __u32 serial, struct rmap *m)
{
	struct rmapslot *ms = &rmaps[slot];
	struct rmap *old = m;

	pthread_mutex_lock(&ms->lock);
	if (ms->serial == serial) {
		old = ms->cur;
		ms->cur = m;
	}
	pthread_mutex_unlock(&ms->lock);
	if (old)
		map_put(slot, old);
}

/* @slot moves to incarnation @serial: the old mapping is the caller's. */
static struct rmap *map_retire(int slot, __u32 serial)
{
	struct rmapslot *ms = &rmaps[slot];
	struct rmap *old;

	pthread_mutex_lock(&ms->lock);
	old = ms->cur;
	ms->cur = NULL;
	ms->serial = serial;
	pthread_mutex_unlock(&ms->lock);
	return old;
}

/* Map @len bytes of @serial's rings through @fd and make them current. */
static void map_new(int slot, __u32 serial, struct rled *r, int fd,
		    size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct rmap *m;

	bump(T_RMAP);
	if (p == MAP_FAILED) {
		if (errno != ENOMEM)
			unexpected("mmap of the rings", 0, errno);
		return;
	}
	/*
	 * Forked children do not inherit it, where the kernel has madvise()
	 * (CONFIG_ADVISE_SYSCALLS); elsewhere they keep it, unused, until
	 * they exit. Best effort: the ledger needs neither.
	 */
	(void)madvise(p, len, MADV_DONTFORK);
	m = calloc(1, sizeof(*m));
	if (!m) {
		munmap(p, len);
		return;
	}
	m->mem = p;
	m->len = len;
	m->refs = 1;
	m->serial = serial;
	m->r = r;
	add(&r->maps, 1);
	map_install(slot, serial, m);
}

/* RING_SETUP of @serial by this thread, the first to try it. */
static void ring_setup_op(struct worker *w, int slot, __u32 serial)
{
	struct hwtimer_ring_setup req = { 0 };
	struct inc *in = inc_of(serial);
	struct rled *r = &sh->rleds[serial % NRLED];
	__u32 none = RS_NONE;
	int err = 0;

	if (!__atomic_compare_exchange_n(&in->ring, &none, RS_SETUP, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	/* The ledger's place is another context's until it is released. */
	if (ld(&r->maps) || (ld(&r->serial) && inc_live(ld(&r->serial)))) {
		st(&in->ring, RS_NONE);
		return;
	}
	req.sq_entries = 1U << below(w, 7);
	req.cq_entries = 1U << below(w, 7);
	req.slots = 1 + below(w, RSLOTS_MAX);
	req.clock = pick_clock(w);
	bump(T_RSETUP);
	if (ioctl(w->fd[slot], HWTIMER_IOC_RING_SETUP, &req))
		err = errno;
	if (err) {
		st(&in->ring, RS_NONE);
		if (err != ENOSPC && err != EDQUOT && err != ENOMEM &&
		    err != ENFILE)
			unexpected("RING_SETUP", 0, err);
		return;
	}
	if (!req.map_size || req.map_size % pagesz || !req.id_tag ||
	    req.id_tag >= 1U << 20 || req.reserved[0] ||
	    (req.features & ~HWTIMER_RING_F_RETRACT))
		report(V_RING, "RING_SETUP answered map_size %llu id_tag %#x",
		       (__u64)req.map_size, req.id_tag);
	memset(r, 0, sizeof(*r));
	r->hostile = !below(w, 3);
	r->s = req;
	st(&r->serial, serial);
	in->rled = r - sh->rleds;
	st(&in->ring, RS_READY);
}

/* Deliberately bad RING_SETUP and ENTER, and the errno each must give. */
static void ring_bad(struct worker *w, int slot, __u32 serial)
{
	struct hwtimer_ring_setup req = { 0 };
	struct hwtimer_ring_enter ent = { 0 };
	__u32 was = ld(&inc_of(serial)->ring);
	int want = EINVAL, r;

	req.sq_entries = 8;
	req.cq_entries = 8;
	req.slots = 1;
	req.clock = CLOCK_MONOTONIC;
	switch (below(w, 6)) {
	case 0:
		req.sq_entries = 3 << below(w, 4);
		break;
	case 1:
		req.cq_entries = below(w, 2) ? 0 : HWTIMER_RING_MAX_ENTRIES * 2;
		break;
	case 2:
		req.slots = 0;
		break;
	case 3:
		req.id_tag = 1;
		break;
	case 4:
		/* Well-formed: only a second setup, which is busy. */
		if (was != RS_READY)
			return;
		want = EBUSY;
		break;
	default:
		/* ENTER: bad words, or a context that has no rings. */
		if (below(w, 2))
			ent.reserved[below(w, 2)] = 1;
		else if (was != RS_NONE)
			ent.flags = 1;
		bump(T_BAD);
		r = ioctl(w->fd[slot], HWTIMER_IOC_ENTER, &ent) < 0 ? errno : 0;
		if (r != EINVAL && (was == RS_READY || ent.flags ||
				    ent.reserved[0] || ent.reserved[1] ||
				    ld(&inc_of(serial)->ring) == RS_NONE))
			report(V_ERRNO, "bad ENTER (rings %u): %s, expected %s",
			       was, r ? strerror(r) : "success",
			       strerror(EINVAL));
		return;
	}
	bump(T_BAD);
	r = ioctl(w->fd[slot], HWTIMER_IOC_RING_SETUP, &req) ? errno : 0;
	if (r != want)
		report(V_ERRNO, "bad RING_SETUP %u/%u/%u: %s, expected %s",
		       req.sq_entries, req.cq_entries, req.slots,
		       r ? strerror(r) : "success", strerror(want));
}

/* mmap() of the rings: whole, short, or bad (EINVAL); or munmap(). */
static void ring_map_op(struct worker *w, int slot, __u32 serial,
			struct rled *r)
{
	size_t full = r->s.map_size, len = full;
	int flags = MAP_SHARED;
	unsigned int kind = below(w, 12);
	off_t off = 0;
	void *p;

	if (kind == 0) {
		map_install(slot, serial, NULL);
		return;
	}
	if (kind > 4) {
		if (kind < 8)
			len = pagesz * (1 + below(w, full / pagesz));
		map_new(slot, serial, r, w->fd[slot], len);
		return;
	}
	if (kind == 1)
		len = full + pagesz;
	else if (kind == 2)
		flags = MAP_PRIVATE;
	else
		off = pagesz;
	bump(T_BAD);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, w->fd[slot], off);
	if (p != MAP_FAILED) {
		report(V_ERRNO, "mmap of %zu bytes at %lld (%s) of rings of %zu accepted",
		       len, (long long)off,
		       flags == MAP_SHARED ? "shared" : "private", full);
		munmap(p, len);
	} else if (errno != EINVAL) {
		unexpected("bad mmap of the rings", 0, errno);
	}
}

/* ENTER on @fd, of @r's incarnation. */
static void ring_enter(int fd, struct rled *r)
{
	struct hwtimer_ring_enter req = { 0 };
	long n;

	bump(T_RENTER);
	n = ioctl(fd, HWTIMER_IOC_ENTER, &req);
	if (n < 0 && errno != EINTR)
		unexpected("ENTER", 0, errno);
	if (n > (long)r->s.sq_entries)
		report(V_RING, "ENTER consumed %ld entries of a ring of %u",
		       n, r->s.sq_entries);
}

/* After a push: ENTER if the kernel's drain stopped. */
static void ring_kick(int fd, const struct rmap *m)
{
	__u32 *flags = rm_u32(m, m->r->s.sq_flags);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(flags, __ATOMIC_RELAXED) & HWTIMER_RING_NEED_WAKEUP)
		ring_enter(fd, m->r);
}

/* An absolute ring deadline: 0-5 ms away, sometimes past or far. */
static __u64 ring_deadline(struct worker *w, __u32 clock, bool *far)
{
	__u64 t = now(clock), d = below(w, 5 * MS + 1);

	*far = !below(w, 8);
	if (*far)
		return t + SEC + below(w, 3600 * SEC);
	if (!below(w, 10))
		return t > d ? t - d : 0;
	return t + d;
}

/* A bad entry for slot @l->rslot: it must complete with -EINVAL. */
static void pick_bad_sqe(struct worker *w, struct rled *r, struct rlog *l,
			 struct hwtimer_sqe *sqe)
{
	sqe->op = HWTIMER_SQE_ARM;
	switch (below(w, 6)) {
	case 0:
		/* Past the last op: HWTIMER_SQE_NOP is good, silently. */
		sqe->op = below(w, 2) ? 0 : HWTIMER_SQE_NOP + 1 + below(w, 200);
		break;
	case 1:
		sqe->flags = 1U << below(w, 32);
		break;
	case 2:
		sqe->resv = 1;
		break;
	case 3:
		sqe->period_ns = 1 + below(w, tick_ns - 1);
		break;
	case 4:
		sqe->op = HWTIMER_SQE_CANCEL;
		sqe->deadline_ns = 1 + below(w, MS);
		break;
	default:
		sqe->slot = r->s.slots + below(w, 1000);
		break;
	}
	l->bad = 1;
	l->op = sqe->op;
	l->rslot = sqe->slot;
	l->cookie = add(&sh->next_seq, 1);
	sqe->cookie = l->cookie;
}

/* An ARM of slot @l->rslot pushed at @idx, with its ledger entry. */
static bool pick_arm_sqe(struct worker *w, int slot, struct rled *r,
			 __u32 idx, struct rlog *l, struct hwtimer_sqe *sqe)
{
	struct rslotled *rs = &r->slot[l->rslot];
	__s32 open = ld(&rs->nopen);
	__u64 dl;
	struct ent *e;
	bool far;

	/* Mostly arm idle slots; an ARM racing an open one is ambiguous. */
	if (open && !rs->far_dl && below(w, 4))
		return false;
	e = ent_new(w, slot, r->serial);
	if (!e)
		return false;
	dl = ring_deadline(w, r->s.clock, &far);
	spin_lock(&e->lock);
	e->flags |= F_RING;
	e->rled = r - sh->rleds;
	e->rslot = l->rslot;
	e->clock = r->s.clock;
	e->dl_lo = dl;
	e->dl_hi = dl;
	e->pins = 0;
	spin_unlock(&e->lock);
	add(&rs->nopen, 1);
	l->op = HWTIMER_SQE_ARM;
	l->cookie = e->seq;
	l->idle = !open;
	if (rs->far_dl > now(r->s.clock) + RFAR_NS) {
		l->busy = rs->last_arm;
	} else {
		rs->last_arm = e->seq;
		rs->far_dl = far ? dl : 0;
	}
	rs->last_idx = idx;
	sqe->op = HWTIMER_SQE_ARM;
	sqe->deadline_ns = dl;
	sqe->cookie = e->seq;
	return true;
}

/*
 * A MODIFY of slot @l->rslot, whose ARMs all have their outcome known:
 * its armed one's deadline window takes in the new deadline.
 */
static void pick_modify_sqe(struct worker *w, struct rled *r,
			    struct rlog *l, struct hwtimer_sqe *sqe)
{
	__u64 tgt = ld(&r->slot[l->rslot].last_ok);
	__u64 dl = now(r->s.clock) + below(w, 5 * MS + 1);
	struct ent *e = ent_of(tgt);

	spin_lock(&e->lock);
	if (e->seq == tgt && !final(e->state)) {
		e->flags |= F_MODIFIED;
		if (dl < e->dl_lo)
			e->dl_lo = dl;
		if (dl > e->dl_hi)
			e->dl_hi = dl;
	}
	spin_unlock(&e->lock);
	l->op = HWTIMER_SQE_MODIFY;
	sqe->op = HWTIMER_SQE_MODIFY;
	sqe->deadline_ns = dl;
}

/* Choose the entry pushed at @idx. Caller holds r->sq_lock. */
static bool pick_sqe(struct worker *w, int slot, struct rled *r, __u32 idx,
		     struct rlog *l, struct hwtimer_sqe *sqe)
{
	struct rslotled *rs;
	unsigned int k = below(w, 100);

	l->rslot = below(w, r->s.slots);
	sqe->slot = l->rslot;
	rs = &r->slot[l->rslot];
	if (k < 6) {
		pick_bad_sqe(w, r, l, sqe);
		return true;
	}
	if (k < 55)
		return pick_arm_sqe(w, slot, r, idx, l, sqe);
	rs->far_dl = 0;
	l->cookie = add(&sh->next_seq, 1);
	sqe->cookie = l->cookie;
	l->op = HWTIMER_SQE_CANCEL;
	sqe->op = HWTIMER_SQE_CANCEL;
	/* MODIFY once the cursor is past every ARM of the slot. */
	if (k >= 80 && ld(&rs->last_ok) &&
	    (__s32)(ld(&r->cursor) - rs->last_idx) > 0)
		pick_modify_sqe(w, r, l, sqe);
	return true;
}

/*
 * Write a NOP at @tail and take it back by moving the tail back
 * (HWTIMER_RING_F_RETRACT), racing the drains of other threads' kicks and
 * the periodic one: if a drain claimed it meanwhile, the tail is put back
 * and the NOP stays, to be consumed with no completion. A drain that
 * consumed a retracted place would move the sq head past the ledger's
 * tail, and lose the entry written there next. Half the time the NOP
 * stays published for a while first (up to 65536 loads of the claim, a
 * fair part of a tick under TCG, until a drain claims it), so that drains
 * land in the window.
 * Caller holds r->sq_lock.
 */
static void ring_retract(struct worker *w, struct rmap *m,
			 struct hwtimer_sqe *sqes, __u32 tail)
{
	struct rled *r = m->r;
	__u32 *sq_tail = rm_u32(m, r->s.sq_tail);
	__u32 *sq_claim = rm_u32(m, r->s.sq_claim);
	struct rlog l = { .op = HWTIMER_SQE_NOP };
	__u64 spin = below(w, 2) ? below(w, 1 << 16) : 0;

	l.cookie = add(&sh->next_seq, 1);
	sqes[tail & (r->s.sq_entries - 1)] =
		(struct hwtimer_sqe){ .op = HWTIMER_SQE_NOP, .cookie = l.cookie };
	r->log[tail % RLOG] = l;
	/*
	 * In the ledger from before it is published until it is retracted:
	 * a drain may consume it meanwhile, and a reaper see the head past it.
	 */
	st(&r->tail, tail + 1);
	st(sq_tail, tail + 1);
	while (spin-- && (__s32)(ld(sq_claim) - tail) <= 0)
		;
	__atomic_store_n(sq_tail, tail, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if ((__s32)(ld(sq_claim) - tail) <= 0) {
		/* No drain consumes it: a head past @tail now is a violation. */
		st(&r->tail, tail);
		bump(T_RETRACT);
		return;
	}
	st(sq_tail, tail + 1);
	bump(T_RKEPT);
}

/* Push one entry on a ring the ledger follows; false if it is full. */
static bool ring_push(struct worker *w, int slot, struct rmap *m)
{
	struct rled *r = m->r;
	struct hwtimer_sqe *sqes = rm_sqes(m), sqe = { 0 };
	__u32 *sq_head = rm_u32(m, r->s.sq_head);
	__u32 *sq_tail = rm_u32(m, r->s.sq_tail);
	struct rlog l = { 0 };
	__u32 tail;

	if (!sqes)
		return false;	/* a short mapping */
	spin_lock(&r->sq_lock);
	tail = r->tail;
	if (tail - ld(sq_head) >= r->s.sq_entries ||
	    tail - ld(&r->cursor) >= RLOG) {
		spin_unlock(&r->sq_lock);
		bump(T_RFULL);
		return false;
	}
	if ((r->s.features & HWTIMER_RING_F_RETRACT) && !below(w, 8)) {
		ring_retract(w, m, sqes, tail);
		spin_unlock(&r->sq_lock);
		return true;
	}
	if (!pick_sqe(w, slot, r, tail, &l, &sqe)) {
		spin_unlock(&r->sq_lock);
		return true;
	}
	sqes[tail & (r->s.sq_entries - 1)] = sqe;
	r->log[tail % RLOG] = l;
	st(&r->tail, tail + 1);
	st(sq_tail, tail + 1);
	spin_unlock(&r->sq_lock);
	bump(T_RPUSH);
	return true;
}

/* Push an entry of random and sometimes garbage words, to a hostile ring. */
static void ring_push_hostile(struct worker *w, struct rmap *m)
{
	struct rled *r = m->r;
	struct hwtimer_sqe *sqes = rm_sqes(m), sqe = { 0 };
	__u32 *sq_tail = rm_u32(m, r->s.sq_tail);
	__u32 tail;

	if (!sqes)
		return;
	sqe.op = 1 + below(w, 3);
	sqe.slot = below(w, r->s.slots);
	sqe.deadline_ns = now(r->s.clock) + below(w, 5 * MS);
	sqe.cookie = rnd(w);
	if (sqe.op == HWTIMER_SQE_CANCEL)
		sqe.deadline_ns = 0;
	if (sqe.op == HWTIMER_SQE_ARM && !below(w, 3))
		sqe.period_ns = tick_ns * (1 + below(w, 3));
	if (!below(w, 8))
		((__u64 *)&sqe)[below(w, sizeof(sqe) / 8)] = rnd(w);
	spin_lock(&r->sq_lock);
	tail = below(w, 8) ? r->tail : ld(sq_tail);
	sqes[tail & (r->s.sq_entries - 1)] = sqe;
	r->tail = tail + 1;
	st(sq_tail, tail + 1);
	spin_unlock(&r->sq_lock);
	bump(T_RPUSH);
}

/*
 * Garbage into an index of a hostile ring (the claim included), a word of
 * an entry, or an entry's op made a NOP while a drain may be copying it.
 */
static void ring_scribble(struct worker *w, struct rmap *m)
{
	const struct hwtimer_ring_setup *s = &m->r->s;
	const __u32 offs[] = {
		s->sq_head, s->sq_tail, s->sq_flags, s->sq_dropped,
		s->cq_head, s->cq_tail, s->cq_overflow, s->sq_claim,
	};
	unsigned int k = below(w, ARRAY_SIZE(offs) + 3);
	__u64 *sqes = (__u64 *)rm_sqes(m);
	struct hwtimer_sqe *e;
	__u32 *p, v;

	bump(T_SCRIBBLE);
	if (k == ARRAY_SIZE(offs) + 2) {
		e = rm_sqes(m);
		if (e)
			__atomic_store_n(&e[below(w, s->sq_entries)].op,
					 HWTIMER_SQE_NOP, __ATOMIC_RELAXED);
		return;
	}
	if (k >= ARRAY_SIZE(offs)) {
		if (sqes)
			sqes[below(w, s->sq_entries * 6)] = rnd(w);
		return;
	}
	p = rm_u32(m, offs[k]);
	v = __atomic_load_n(p, __ATOMIC_RELAXED);
	v = below(w, 2) ? (__u32)rnd(w) : v + below(w, 256) - 128;
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Form of a record of a hostile ring; torn CQ records are possible. */
static void ring_form(const struct rled *r, const struct hwtimer_event *ev,
		      bool from_read)
{
	const __u32 allowed = HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE |
			      HWTIMER_EVENT_LAST | HWTIMER_EVENT_OP_MASK;

	if (!from_read && !ev->flags)
		return;	/* never written, as the cq tail was garbage */
	/* A refused entry's completion names the slot as it was written. */
	if ((ev->flags & ~allowed) || !(ev->flags & HWTIMER_EVENT_RING) ||
	    (ev->id >= r->s.slots && !(ev->flags & HWTIMER_EVENT_SQE)))
		report(V_HOSTILE, "%s record: slot %llu of %u, flags %#x",
		       from_read ? "read()" : "cq", ev->id, r->s.slots,
		       ev->flags);
	if (from_read && ((ev->flags & HWTIMER_EVENT_SQE) ||
			  ev->fire_ns < ev->deadline_ns ||
			  ev->clock != r->s.clock))
		report(V_HOSTILE, "read() record of slot %llu: flags %#x clock %u deadline %llu fire %llu",
		       ev->id, ev->flags, ev->clock, ev->deadline_ns,
		       ev->fire_ns);
}

/* An expiry record of a ring ARM of @serial, from the CQ or read(). */
static void ring_expiry(__u32 serial, const struct hwtimer_event *ev,
			__u64 after)
{
	struct ent *e = ent_of(ev->cookie);

	if (ev->flags != (HWTIMER_EVENT_RING | HWTIMER_EVENT_LAST) ||
	    ev->overruns)
		report(V_RING, "expiry of one-shot slot %llu: flags %#x overruns %llu",
		       ev->id, ev->flags, ev->overruns);
	if (!ev->cookie || ev->cookie > ld(&sh->next_seq)) {
		report(V_RING, "expiry of slot %llu with cookie %llu never armed",
		       ev->id, ev->cookie);
		return;
	}
	spin_lock(&e->lock);
	if (e->seq != ev->cookie || !(e->flags & F_RING) || e->inc != serial) {
		spin_unlock(&e->lock);
		report(V_RING, "expiry of slot %llu, cookie %llu: no open ring ARM of context #%u",
		       ev->id, ev->cookie, serial);
		return;
	}
	if (ev->id != e->rslot)
		report(V_IDMIS, "ring ARM cookie %llu of slot %u: expiry says slot %llu",
		       e->seq, e->rslot, ev->id);
	if (ev->clock != e->clock)
		report(V_RECORD, "ring slot %llu: clock %u, rings on %u",
		       ev->id, ev->clock, e->clock);
	check_times(e, ev, after);
	if (!final(e->state))
		settle(e, E_EVENT);
	else if (e->state != E_DROPPED)
		report(V_DOUBLE, "ring ARM cookie %llu (slot %u): expiry after it was %s",
		       e->seq, e->rslot, sname(e->state));
	spin_unlock(&e->lock);
}

/* A ring record read() returned: an expiry that found the CQ full. */
static void ring_read(__u32 serial, const struct hwtimer_event *ev,
		      __u64 after)
{
	struct rled *r = rled_of(serial);

	bump(T_RREAD);
	if (!r)
		report(V_RING, "ring record (slot %llu) from context #%u, which has no rings",
		       ev->id, serial);
	else if (ld(&r->hostile))
		ring_form(r, ev, true);
	else
		ring_expiry(serial, ev, after);
}

/* Ring slot @l's latest armed ARM ended by @state (CANCELLED, gone). */
static void ring_ended(struct rled *r, const struct rlog *l, __u32 state)
{
	__u64 tgt = r->slot[l->rslot].last_ok;
	struct ent *e = ent_of(tgt);

	if (!tgt) {
		report(V_RING, "slot %u: %s though no ARM of it was armed",
		       l->rslot, sname(state));
		return;
	}
	spin_lock(&e->lock);
	if (e->seq == tgt && !final(e->state))
		settle(e, state);
	else if (e->seq == tgt && e->state != E_DROPPED)
		report(V_DOUBLE, "ring ARM cookie %llu (slot %u): %s after it was %s",
		       tgt, l->rslot, sname(state), sname(e->state));
	spin_unlock(&e->lock);
}

/* Is the far ARM @seq, which an ARM found, known armed and open? */
static bool far_armed(__u64 seq)
{
	struct ent *e = ent_of(seq);
	bool armed;

	spin_lock(&e->lock);
	armed = e->seq == seq && e->state != E_NOARM &&
		!(e->flags & F_CLOSED);
	spin_unlock(&e->lock);
	return armed;
}

/* The outcome of ARM @l: armed (@ev NULL) or its error completion. */
static void settle_arm(struct rled *r, const struct rlog *l,
		       const struct hwtimer_event *ev)
{
	struct ent *e = ent_of(l->cookie);
	bool busy = l->busy && far_armed(l->busy), armed = false;

	if (!ev && busy)
		report(V_RING, "ARM cookie %llu armed slot %u, busy with far ARM %llu",
		       l->cookie, l->rslot, l->busy);
	if (ev && ev->res == -EBUSY) {
		bump(T_RBUSY);
		if (l->idle)
			report(V_RING, "ARM cookie %llu of idle slot %u: EBUSY",
			       l->cookie, l->rslot);
	} else if (ev && ev->res != -ENOSPC) {
		report(V_RING, "ARM cookie %llu of slot %u completed with %lld",
		       l->cookie, l->rslot, (long long)ev->res);
	}
	if (!ev)
		r->slot[l->rslot].last_ok = l->cookie;
	spin_lock(&e->lock);
	if (e->seq == l->cookie && !ev) {
		armed = true;
		if (e->state == E_ARMING)
			e->state = E_LIVE;
	} else if (e->seq == l->cookie) {
		if (e->state != E_ARMING && !(e->flags & F_CLOSED))
			report(V_RING, "ARM cookie %llu failed but was %s",
			       l->cookie, sname(e->state));
		if (!final(e->state))
			settle(e, E_NOARM);
	}
	spin_unlock(&e->lock);
	if (armed && inc_of(r->serial)->serial == r->serial) {
		add(&inc_of(r->serial)->armed, 1);
		bump(T_ARM);
	}
}

/* The completion of CANCEL @l; every CANCEL has exactly one. */
static void settle_cancel(struct rled *r, const struct rlog *l,
			  const struct hwtimer_event *ev)
{
	bool last;

	if (!ev) {
		report(V_RING, "CANCEL cookie %llu of slot %u consumed without a completion",
		       l->cookie, l->rslot);
		return;
	}
	last = ev->flags & HWTIMER_EVENT_LAST;
	if (ev->res == HWTIMER_RESULT_CANCELLED) {
		bump(T_CANCELLED);
		if (!last)
			report(V_RING, "CANCELLED one-shot slot %u without LAST",
			       l->rslot);
		ring_ended(r, l, E_CANCELLED);
	} else if (ev->res == HWTIMER_RESULT_FIRED ||
		   ev->res == HWTIMER_RESULT_NOT_PENDING) {
		bump(ev->res == HWTIMER_RESULT_FIRED ? T_FIRED : T_ENOENT);
		if (last || (ev->res == HWTIMER_RESULT_FIRED &&
			     !r->slot[l->rslot].last_ok))
			report(V_RING, "CANCEL of slot %u: result %lld flags %#x",
			       l->rslot, (long long)ev->res, ev->flags);
	} else {
		report(V_RING, "CANCEL of slot %u completed with %lld",
		       l->rslot, (long long)ev->res);
	}
}

/* MODIFY @l: moved (@ev NULL), or its completion. */
static void settle_modify(struct rled *r, const struct rlog *l,
			  const struct hwtimer_event *ev)
{
	bool last = ev && (ev->flags & HWTIMER_EVENT_LAST);

	if (!ev) {
		bump(T_MODIFIED);
		if (!r->slot[l->rslot].last_ok)
			report(V_RING, "MODIFY of never-armed slot %u consumed without a completion",
			       l->rslot);
	} else if (ev->res == HWTIMER_RESULT_FIRED ||
		   ev->res == HWTIMER_RESULT_NOT_PENDING) {
		if (last)
			report(V_RING, "MODIFY of slot %u: result %lld with LAST",
			       l->rslot, (long long)ev->res);
	} else if (ev->res == -ENOSPC) {
		bump(T_GONE);
		if (!last)
			report(V_RING, "MODIFY of slot %u: gone without LAST",
			       l->rslot);
		ring_ended(r, l, E_GONE);
	} else {
		report(V_RING, "MODIFY of slot %u completed with %lld",
		       l->rslot, (long long)ev->res);
	}
}

/* Settle entry @idx: consumed without a completion (@ev NULL), or @ev. */
static void sqe_settle(struct rled *r, __u32 idx,
		       const struct hwtimer_event *ev)
{
	const struct rlog *l = &r->log[idx % RLOG];
	const __u32 allowed = HWTIMER_EVENT_RING | HWTIMER_EVENT_SQE |
			      HWTIMER_EVENT_LAST | HWTIMER_EVENT_OP_MASK;

	if (ev && (ev->id != l->rslot || (ev->flags & ~allowed) ||
		   (ev->flags & HWTIMER_EVENT_OP_MASK) >>
		   HWTIMER_EVENT_OP_SHIFT != (l->op & 0xff) ||
		   ev->clock != r->s.clock || ev->deadline_ns ||
		   ev->fire_ns))
		report(V_RING, "completion of op %u slot %u: slot %llu flags %#x clock %u deadline %llu fire %llu",
		       l->op, l->rslot, ev->id, ev->flags, ev->clock,
		       ev->deadline_ns, ev->fire_ns);
	if (l->bad) {
		bump(T_BAD);
		if (!ev || ev->res != -EINVAL)
			report(V_RING, "bad entry (op %u slot %u) %s %lld, not -EINVAL",
			       l->op, l->rslot,
			       ev ? "completed with" : "had no completion",
			       ev ? (long long)ev->res : 0LL);
		return;
	}
	if (l->op == HWTIMER_SQE_NOP) {
		if (ev)
			report(V_RING, "a NOP (slot %u) completed: flags %#x res %lld",
			       l->rslot, ev->flags, (long long)ev->res);
		return;
	}
	if (l->op == HWTIMER_SQE_ARM)
		settle_arm(r, l, ev);
	else if (l->op == HWTIMER_SQE_CANCEL)
		settle_cancel(r, l, ev);
	else
		settle_modify(r, l, ev);
}

/* A completion in the CQ: entries before its own had none. */
static void ring_completion(struct rled *r, const struct hwtimer_event *ev)
{
	__u32 end = ld(&r->tail), k;

	for (k = r->cursor; k != end; k++)
		if (r->log[k % RLOG].cookie == ev->cookie)
			break;
	if (k == end) {
		report(V_RING, "completion (slot %llu cookie %llu flags %#x res %lld) of no entry waiting",
		       ev->id, ev->cookie, ev->flags, (long long)ev->res);
		return;
	}
	for (; r->cursor != k; st(&r->cursor, r->cursor + 1))
		sqe_settle(r, r->cursor, NULL);
	sqe_settle(r, k, ev);
	st(&r->cursor, k + 1);
}

/*
 * All completions of entries before sq head @h were taken. The cursor may
 * be past @h already: a completion is written before the head moves.
 */
static void ring_pass(struct rled *r, __u32 h)
{
	__u32 end = ld(&r->tail);

	if ((__s32)(h - r->cursor) <= 0)
		return;
	if (h - r->cursor > end - r->cursor) {
		report(V_RING, "sq head %u outside the entries waiting, %u..%u",
		       h, r->cursor, end);
		return;
	}
	for (; r->cursor != h; st(&r->cursor, r->cursor + 1))
		sqe_settle(r, r->cursor, NULL);
}

/*
 * Take up to @max records from the CQ of @m. The sq head is loaded
 * before the cq tail: the kernel publishes it after the completions of
 * the entries it consumed, so once all records up to that tail are taken,
 * every entry before the head that has none had none to give.
 */
static void ring_reap(struct rmap *m, __u32 max)
{
	struct rled *r = m->r;
	struct hwtimer_event *cqes = rm_cqes(m), ev;
	__u32 *cq_head = rm_u32(m, r->s.cq_head);
	__u32 mask = r->s.cq_entries - 1, h, t, n, i;
	bool hostile = ld(&r->hostile);
	__u64 after;

	if (!cqes)
		return;
	spin_lock(&r->cq_lock);
	h = ld(rm_u32(m, r->s.sq_head));
	t = ld(rm_u32(m, r->s.cq_tail));
	after = now(r->s.clock);
	n = t - r->head;
	if (n > r->s.cq_entries) {
		if (!hostile)
			report(V_RING, "cq tail %u is %u records past head %u, ring of %u",
			       t, n, r->head, r->s.cq_entries);
		r->head = t - r->s.cq_entries;
		n = r->s.cq_entries;
	}
	for (i = 0; i < n && i < max; i++) {
		memcpy(&ev, &cqes[(r->head + i) & mask], sizeof(ev));
		bump(T_RCQE);
		if (hostile)
			ring_form(r, &ev, false);
		else if (ev.flags & HWTIMER_EVENT_SQE)
			ring_completion(r, &ev);
		else
			ring_expiry(m->serial, &ev, after);
	}
	r->head += i;
	st(cq_head, r->head);
	if (i == n && !hostile)
		ring_pass(r, h);
	spin_unlock(&r->cq_lock);
}

/*
 * A ring op on @slot's context, when this thread's fd is of its current
 * incarnation: set up, map, push, reap, ENTER, scribble; or bad calls.
 */
static void op_ring(struct worker *w, int slot)
{
	__u32 serial = w->inc[slot];
	unsigned int k = below(w, 100);
	struct rmap *m;
	struct rled *r;

	if (serial != ld(&sh->ctx[slot].inc))
		return;
	if (k < 3) {
		ring_bad(w, slot, serial);
		return;
	}
	r = rled_of(serial);
	if (!r) {
		ring_setup_op(w, slot, serial);
		return;
	}
	m = map_get(slot);
	if (!m || m->serial != serial || k < 7) {
		if (m)
			map_put(slot, m);
		ring_map_op(w, slot, serial, r);
		return;
	}
	if (k < 50) {
		if (r->hostile)
			ring_push_hostile(w, m);
		else if (!ring_push(w, slot, m))
			ring_reap(m, ~0U);
		if (rm_sqes(m))
			ring_kick(w->fd[slot], m);
	} else if (k < 80) {
		ring_reap(m, below(w, 2) ? ~0U : below(w, 8));
	} else if (k < 88) {
		ring_enter(w->fd[slot], r);
	} else if (k < 96 && r->hostile) {
		ring_scribble(w, m);
	} else {
		op_read(w, slot);
	}
	map_put(slot, m);
}

/*
 * At the end, as the one thread left: cancel the open ARMs of @serial's
 * rings through them and take the completions; false once none is open.
 */
static bool ring_quiesce(int slot, __u32 serial, int fd)
{
	struct rled *r = rled_of(serial);
	struct rmap *m = map_get(slot);
	struct hwtimer_sqe *sqes;
	bool open = false, idle;
	__u32 i, tail;

	if (!r || r->hostile)
		goto out;
	if (!m || !rm_sqes(m) || !rm_cqes(m)) {
		if (m)
			map_put(slot, m);
		map_new(slot, serial, r, fd, r->s.map_size);
		m = map_get(slot);
		if (!m)
			return false;
	}
	ring_reap(m, ~0U);
	sqes = rm_sqes(m);
	/* CANCELs go out once the ones before have their completions. */
	idle = r->tail == r->cursor;
	for (i = 0; i < r->s.slots; i++) {
		if (!ld(&r->slot[i].nopen))
			continue;
		open = true;
		tail = r->tail;
		if (!idle ||
		    tail - ld(rm_u32(m, r->s.sq_head)) >= r->s.sq_entries)
			continue;
		r->log[tail % RLOG] = (struct rlog){
			.cookie = add(&sh->next_seq, 1),
			.op = HWTIMER_SQE_CANCEL, .rslot = i,
		};
		sqes[tail & (r->s.sq_entries - 1)] = (struct hwtimer_sqe){
			.op = HWTIMER_SQE_CANCEL, .slot = i,
			.cookie = r->log[tail % RLOG].cookie,
		};
		st(&r->tail, tail + 1);
		st(rm_u32(m, r->s.sq_tail), tail + 1);
	}
	ring_enter(fd, r);
	ring_reap(m, ~0U);
	open |= r->cursor != r->tail;
out:
	if (m)
		map_put(slot, m);
	return open;
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
	struct rmap *m;
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
	m = map_retire(slot, c->inc);
	spin_unlock(&c->lock);
	close(old);
	inc_put(old_inc);
	/* The mapping holds the file: its CQ still works, then it goes. */
	if (m) {
		bump(T_RLATE);
		ring_reap(m, ~0U);
		map_put(slot, m);
	}
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
	else if (roll < 184)
		op_ring(w, slot);
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
				       e->flags & F_RING ? "ring ARM" :
				       e->period ? "periodic" : "one-shot",
				       e->flags & F_RING ? e->rslot : e->id,
				       e->seq, e->clock, e->dl_lo,
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
	struct rled *r = rled_of(serial);
	__u64 slots = r ? r->s.slots : 0;

	if (ioctl(fd, HWTIMER_IOC_STATS, &s)) {
		unexpected("STATS", 0, errno);
		return;
	}
	/* Ring slots are live from setup; garbage arms what it likes. */
	if (r && r->hostile) {
		if (s.ctx_read != in->read || s.ctx_live < slots)
			report(V_STATS, "context #%u with hostile rings at rest: read %llu (ledger %llu), live %llu of %llu slots",
			       serial, (__u64)s.ctx_read, in->read,
			       (__u64)s.ctx_live, slots);
		return;
	}
	if (s.ctx_armed != in->armed || s.ctx_read != in->read ||
	    s.ctx_pending || s.ctx_queued || s.ctx_live != slots)
		report(V_STATS, "context #%u at rest: armed %llu (ledger %llu), read %llu (ledger %llu), pending %llu queued %llu live %llu (0, 0 and %llu ring slots expected)",
		       serial, (__u64)s.ctx_armed, in->armed,
		       (__u64)s.ctx_read, in->read, (__u64)s.ctx_pending,
		       (__u64)s.ctx_queued, (__u64)s.ctx_live, slots);
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
	struct rled *r = rled_of(serial);
	bool hostile = r && r->hostile, ring_open;
	struct rmap *m;
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
		ring_open = ring_quiesce(slot, serial, c->master);
		/* Garbage may keep periodic slots firing into read(). */
		if (!ring_open && !outstanding(serial, false) &&
		    (hostile || queue_empty(c->master, &live)))
			break;
		poll(&p, 1, ring_open ? 5 : 100);
	}
	outstanding(serial, true);
	final_stats(c->master, serial);
	m = map_retire(slot, 0);
	if (m)
		map_put(slot, m);
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

/* ---- results ---- */

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

static void setup(void)
{
	struct hwtimer_api api = { .api = HWTIMER_API };
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int i;
	int fd;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: reads get EINTR */
	signal(SIGPIPE, SIG_IGN);
	pagesz = sysconf(_SC_PAGESIZE);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap of the ledger: %s\n", strerror(errno));
	for (i = 0; i < nctx; i++) {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, HWTIMER_IOC_API, &api))
			ksft_exit_fail_msg("%s: %s\n", DEV, strerror(errno));
		tick_ns = api.tick_ns;
		sh->ctx[i].master = fd;
		sh->ctx[i].inc = inc_new();
		pthread_mutex_init(&rmaps[i].lock, NULL);
		rmaps[i].serial = sh->ctx[i].inc;
	}
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
	ksft_print_header();
	printf("# hwtimer_abifuzz: %u s, %u threads, %u contexts, seed %#llx, uid %d\n",
	       secs, nthreads, nctx, seed, getuid());
	setup();
	ksft_set_plan(V_NR);
	run(secs, seed);
	for (i = 0; i < nctx; i++)
		drain(i);
	final_scan();
	print_totals();
	for (i = 0; i < V_NR; i++) {
		__u64 n = ld(&sh->viol[i]);

		if (n)
			ksft_test_result_fail("abifuzz: %s (%llu violations)\n",
					      viol_desc[i], n);
		else
			ksft_test_result_pass("abifuzz: %s\n", viol_desc[i]);
	}
	printf("# seed %#llx: %u of %u checks failed\n", seed,
	       ksft_get_fail_cnt(), V_NR);
	ksft_finished();
}
