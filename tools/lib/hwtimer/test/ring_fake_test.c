// SPDX-License-Identifier: GPL-2.0
/*
 * ring_fake_test - libhwtimer's timer rings against test/fake_kernel.c, a
 * stand-in for the driver in the process: orders of events a real kernel
 * makes too rarely to test on a device, made at will. Prints TAP; exit 0
 * when every check passed.
 *
 *   ring_fake_test
 *
 * Linked statically with libhwtimer.a ("make ring-fake-test"): the
 * stand-in's ioctl(), mmap() and munmap() take the library's calls.
 *
 * The checks cover a cancel or modify whose entry finds the submission
 * ring full: the library makes room (ENTER, and while the kernel consumes
 * nothing, takes the records waiting), and one of those records can be
 * the timeout's own expiry. The answer must then be FIRED, and the
 * expiry must reach the caller once; with no expiry, CANCELLED or
 * MODIFIED, and none. And the counters, after hwtimer_stats(), whose
 * flush makes the kernel drain: its ctx_* are the stand-in's own, as they
 * are, and hwtimer_lib_stats() counts exactly what the library did on its
 * own: a cancel answered CANCELLED whose timeout fired first, the expiry
 * it dropped, an expiry the flush took and holds until handed out, the
 * arms taken back, the arm made again for a modify that came after the
 * expiry. And retraction: cancels before a drain take their ARMs back out
 * of the ring, against a drain that read the tail before, or claimed it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwtimer/hwtimer.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "fake_kernel.h"

#define FAR_NS		10000000000ULL
#define COOKIE_A	0xa11ceULL
#define COOKIE_B	0xb0bULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned int failed;

/* One TAP line for check @n, @desc, passed if @ok; "# why" when not. */
static void tap(unsigned int n, bool ok, const char *desc, const char *why)
{
	if (ok) {
		printf("ok %u %s\n", n, desc);
		return;
	}
	failed++;
	printf("not ok %u %s\n# %s\n", n, desc, why);
}

/*
 * A context on the stand-in's rings with timeouts A and B armed FAR_NS
 * ahead, their ARMs consumed by an ENTER (so no cancel can take them
 * back). Return: 0, or a message.
 */
static const char *claimed_pair(struct hwtimer **hp, uint64_t *a,
				uint64_t *b)
{
	struct hwtimer_ring_enter e = { 0 };

	if (hwtimer_open_path(hp, "/dev/null", 0, HWTIMER_OPEN_DEVICE)) {
		*hp = NULL;
		return hwtimer_open_error();
	}
	if (!(hwtimer_features(*hp) & HWTIMER_FEATURE_RINGS))
		return "the library does not use the rings";
	if (hwtimer_arm(*hp, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, a) ||
	    hwtimer_arm(*hp, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_B, b))
		return "arm failed";
	if (*a >> HWTIMER_ID_TAG_SHIFT != FAKE_ID_TAG)
		return "the arm did not go to the rings";
	if (ioctl(hwtimer_fd(*hp), HWTIMER_IOC_ENTER, &e) != 2)
		return "ENTER did not consume both ARMs";
	return NULL;
}

/* Fill the submission ring up with MODIFY entries of @b. */
static const char *fill_ring(struct hwtimer *h, uint64_t b)
{
	uint64_t k = 0;

	while (fake_sq_waiting() < fk.setup.sq_entries) {
		if (hwtimer_modify(h, b, FAR_NS + ++k, 0) !=
		    HWTIMER_RESULT_MODIFIED)
			return "a modify to fill the ring failed";
	}
	return NULL;
}

/*
 * Take every expiry the caller is handed; @a: the id to expect once,
 * with COOKIE_A, or 0 for none. Return: 0, or a message.
 */
static const char *expiries(struct hwtimer *h, uint64_t a)
{
	const struct hwtimer_event *ev;
	unsigned int n = 0;

	while (!hwtimer_peek(h, &ev)) {
		if (ev->id != a || ev->cookie != COOKIE_A ||
		    !(ev->flags & HWTIMER_EVENT_LAST))
			return "an expiry of another id, user data or flags";
		n++;
		hwtimer_seen(h);
	}
	if (n != (a ? 1U : 0U))
		return a ? "the expiry came not once" : "an expiry came";
	return NULL;
}

/*
 * With the submission ring full (fill_ring()), cancel (@cancel) or modify
 * timeout @a, the kernel consuming nothing at the first ENTER, at which
 * @a expires if @fire. Return: 0, or a message.
 */
static const char *full_ring(struct hwtimer *h, uint64_t a, uint64_t b,
			     bool cancel, bool fire)
{
	int want = !fire ? (cancel ? HWTIMER_RESULT_CANCELLED :
			    HWTIMER_RESULT_MODIFIED) : HWTIMER_RESULT_FIRED;
	uint64_t enters = fk.enters, fired = fk.fired;
	const char *why;
	int r;

	if (fire)
		fake_fire(a);
	fk.stall = 1;
	r = cancel ? hwtimer_cancel(h, a) : hwtimer_modify(h, a, FAR_NS, 0);
	if (r != want)
		return r == HWTIMER_RESULT_CANCELLED ? "answered CANCELLED" :
		       r == HWTIMER_RESULT_MODIFIED ? "answered MODIFIED" :
		       r == HWTIMER_RESULT_FIRED ? "answered FIRED" :
		       "answered an error";
	/* One ENTER that consumed nothing, one that made room. */
	if (fk.enters - enters != 2 || fk.stall ||
	    fk.fired - fired != (fire ? 1U : 0U))
		return "the ring was not full, or not made room in";
	why = expiries(h, fire ? a : 0);
	if (why)
		return why;
	/* Gone, unless only modified; B is untouched either way. */
	r = hwtimer_cancel(h, a);
	if (r != (cancel || fire ? -ENOENT : HWTIMER_RESULT_CANCELLED))
		return "a second cancel of A did not answer as it should";
	if (hwtimer_cancel(h, b) != HWTIMER_RESULT_CANCELLED)
		return "B was not left pending";
	return fk.refused ? "the stand-in refused an entry" : NULL;
}

static const char *cancel_fired(struct hwtimer *h, uint64_t a, uint64_t b)
{
	return full_ring(h, a, b, true, true);
}

static const char *modify_fired(struct hwtimer *h, uint64_t a, uint64_t b)
{
	return full_ring(h, a, b, false, true);
}

static const char *cancel_full(struct hwtimer *h, uint64_t a, uint64_t b)
{
	return full_ring(h, a, b, true, false);
}

static const char *modify_full(struct hwtimer *h, uint64_t a, uint64_t b)
{
	return full_ring(h, a, b, false, false);
}

/* Slots the stand-in has armed: its ctx_pending. */
static uint64_t fake_pending(void)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < fk.setup.slots; i++)
		n += fk.slots[i].armed;
	return n;
}

/*
 * hwtimer_stats() gives the kernel's counters as the stand-in keeps them,
 * not adjusted for what the library did: a context with rings alone reads
 * nothing and queues nothing for read(), and every slot is live.
 */
static const char *kernel_counts(const struct hwtimer_stats_req *st)
{
	static char why[200];

	if (st->ctx_armed == fk.ctx_armed &&
	    st->ctx_cancelled == fk.ctx_cancelled &&
	    st->ctx_fired == fk.ctx_fired && !st->ctx_read &&
	    !st->ctx_queued && st->ctx_pending == fake_pending() &&
	    st->ctx_live == fk.setup.slots)
		return NULL;
	snprintf(why, sizeof(why), "kernel armed %llu cancelled %llu fired %llu read %llu queued %llu pending %llu live %llu; the stand-in's %llu %llu %llu 0 0 %llu %u",
		 (unsigned long long)st->ctx_armed,
		 (unsigned long long)st->ctx_cancelled,
		 (unsigned long long)st->ctx_fired,
		 (unsigned long long)st->ctx_read,
		 (unsigned long long)st->ctx_queued,
		 (unsigned long long)st->ctx_pending,
		 (unsigned long long)st->ctx_live,
		 (unsigned long long)fk.ctx_armed,
		 (unsigned long long)fk.ctx_cancelled,
		 (unsigned long long)fk.ctx_fired,
		 (unsigned long long)fake_pending(), fk.setup.slots);
	return why;
}

/* Whether the library's counts @got are @want; a message if not. */
static const char *lib_counts(const struct hwtimer_lib_stats *got,
			      const struct hwtimer_lib_stats *want)
{
	static char why[300];

	if (!memcmp(got, want, sizeof(*got)))
		return NULL;
	snprintf(why, sizeof(why), "library slots %llu live %llu stashed %llu taken_back %llu cancel_raced %llu rearmed %llu refused %llu lost %llu dropped %llu dropped_read %llu ring_read %llu",
		 (unsigned long long)got->ring_slots,
		 (unsigned long long)got->ring_live,
		 (unsigned long long)got->stashed,
		 (unsigned long long)got->taken_back,
		 (unsigned long long)got->cancel_raced,
		 (unsigned long long)got->rearmed,
		 (unsigned long long)got->refused,
		 (unsigned long long)got->lost,
		 (unsigned long long)got->dropped,
		 (unsigned long long)got->dropped_read,
		 (unsigned long long)got->ring_read);
	return why;
}

/*
 * hwtimer_stats(), then hwtimer_lib_stats(): the kernel's ctx_armed,
 * ctx_cancelled and ctx_fired must be @armed, @cancelled and @fired, and
 * all of them as the stand-in keeps them; the library's counts @want,
 * with the rings' slots. Return: 0, or a message.
 */
static const char *stats_are(struct hwtimer *h, uint64_t armed,
			     uint64_t cancelled, uint64_t fired,
			     struct hwtimer_lib_stats want)
{
	struct hwtimer_stats_req st;
	struct hwtimer_lib_stats got;
	const char *why;

	if (hwtimer_stats(h, CLOCK_MONOTONIC, &st))
		return "hwtimer_stats() failed";
	why = kernel_counts(&st);
	if (why)
		return why;
	if (st.ctx_armed != armed || st.ctx_cancelled != cancelled ||
	    st.ctx_fired != fired)
		return "the kernel's arms, cancels or expiries are not as made";
	if (hwtimer_lib_stats(h, &got, sizeof(got)))
		return "hwtimer_lib_stats() failed";
	want.ring_slots = fk.setup.slots;
	return lib_counts(&got, &want);
}

/*
 * A cancel the library answered CANCELLED, whose timeout the kernel fired
 * before it took the CANCEL: the kernel counts it fired, not cancelled;
 * the library counts the raced cancel and the expiry it dropped, which
 * never reaches the caller.
 */
static const char *stats_cancel_raced(struct hwtimer *h, uint64_t a,
				      uint64_t b)
{
	const char *why;

	fake_fire(a);
	if (hwtimer_cancel(h, a) != HWTIMER_RESULT_CANCELLED)
		return "the cancel did not answer CANCELLED";
	why = stats_are(h, 2, 0, 1, (struct hwtimer_lib_stats){
		.ring_live = 1, .cancel_raced = 1, .dropped = 1 });
	return why ? why : expiries(h, 0);
}

/*
 * An expiry that hwtimer_stats() took off the completion ring waits in the
 * library: the kernel counts it fired, the library holds it, its slot
 * live; a cancel says FIRED; handed out, the library counts it taken from
 * the completion ring, and the id is unknown.
 */
static const char *stats_stashed(struct hwtimer *h, uint64_t a, uint64_t b)
{
	const char *why;

	fake_fire(a);
	why = stats_are(h, 2, 0, 1, (struct hwtimer_lib_stats){
		.ring_live = 2, .stashed = 1 });
	if (why)
		return why;
	if (hwtimer_cancel(h, a) != HWTIMER_RESULT_FIRED)
		return "a cancel of the waiting expiry did not answer FIRED";
	why = expiries(h, a);
	if (why)
		return why;
	why = stats_are(h, 2, 0, 1, (struct hwtimer_lib_stats){
		.ring_live = 1, .ring_read = 1 });
	if (why)
		return why;
	if (hwtimer_cancel(h, a) != -ENOENT)
		return "a cancel after the expiry was handed out did not say ENOENT";
	return NULL;
}

/*
 * A modify the library answered MODIFIED, whose timeout the kernel fired
 * before it took the MODIFY: the library drops the expiry and arms the
 * slot again for the new deadline, which the kernel counts as an arm and
 * the library as one made again; the timeout stays pending for the
 * caller, and its cancel cancels it in the kernel.
 */
static const char *stats_modify_raced(struct hwtimer *h, uint64_t a,
				      uint64_t b)
{
	const char *why;

	fake_fire(a);
	if (hwtimer_modify(h, a, 2 * FAR_NS, 0) != HWTIMER_RESULT_MODIFIED)
		return "the modify did not answer MODIFIED";
	why = stats_are(h, 3, 0, 1, (struct hwtimer_lib_stats){
		.ring_live = 2, .rearmed = 1, .dropped = 1 });
	if (!why)
		why = expiries(h, 0);
	if (!why && hwtimer_cancel(h, a) != HWTIMER_RESULT_CANCELLED)
		why = "the cancel of the modified timeout did not say CANCELLED";
	if (!why)
		why = stats_are(h, 3, 1, 1, (struct hwtimer_lib_stats){
			.ring_live = 1, .rearmed = 1, .dropped = 1 });
	return why;
}

/* ENTER: entries the stand-in's drain consumed, or -1. */
static long enter(struct hwtimer *h)
{
	struct hwtimer_ring_enter e = { 0 };

	return ioctl(hwtimer_fd(h), HWTIMER_IOC_ENTER, &e);
}

/*
 * Arm @n timeouts FAR_NS ahead into @ids, then cancel them in order: the
 * first ones leave NOPs, the last one retracts them all with its own.
 * Return: 0, or a message.
 */
static const char *arm_cancel(struct hwtimer *h, uint64_t *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A,
				&ids[i]))
			return "arm failed";
	for (i = 0; i < n; i++)
		if (hwtimer_cancel(h, ids[i]) != HWTIMER_RESULT_CANCELLED)
			return "a cancel did not answer CANCELLED";
	return NULL;
}

/*
 * Timeouts armed and cancelled between two drains leave the submission
 * ring as it was: the NOPs of those cancelled first are retracted with
 * the last; the kernel consumes and arms nothing.
 */
static const char *retract(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint32_t tail = *fk.sq_tail;
	uint64_t armed = fk.ctx_armed, nops = fk.nops, ids[5];
	const char *why;

	why = arm_cancel(h, ids, 1);
	if (!why && *fk.sq_tail != tail)
		why = "one arm and its cancel left entries";
	if (!why)
		why = arm_cancel(h, ids, 5);
	if (!why && *fk.sq_tail != tail)
		why = "five arms and their cancels left entries";
	if (!why && enter(h) != 0)
		why = "the drain consumed entries";
	if (!why && (fk.ctx_armed != armed || fk.nops != nops))
		why = "the kernel armed a timeout or saw a NOP";
	return why ? why : expiries(h, 0);
}

/*
 * A drain that read the tail before a retraction but claims after it
 * consumes only what is left, and an entry written at a retracted place
 * before it read the tail again, as a new entry: the cancelled timeout is
 * never armed, the one armed in its place is.
 */
static const char *retract_raced(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint64_t armed = fk.ctx_armed, c, d;

	if (hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, &c))
		return "arm failed";
	fake_drain_begin(false);
	if (hwtimer_cancel(h, c) != HWTIMER_RESULT_CANCELLED)
		return "the cancel did not answer CANCELLED";
	if (enter(h) != 0)
		return "the drain consumed a retracted entry";
	if (hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, &c))
		return "arm failed";
	fake_drain_begin(false);
	if (hwtimer_cancel(h, c) != HWTIMER_RESULT_CANCELLED ||
	    hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, &d))
		return "cancel or arm failed";
	if (enter(h) != 1 || fk.ctx_armed != armed + 1)
		return "the drain did not take the new ARM alone";
	if (hwtimer_cancel(h, d) != HWTIMER_RESULT_CANCELLED || enter(h) != 1)
		return "the new timeout did not cancel through the ring";
	return fk.ctx_cancelled != 1 ? "the kernel cancelled not once" :
	       expiries(h, 0);
}

/*
 * A cancel whose ARM a drain under way has claimed cannot take it back:
 * the drain arms it, and the CANCEL that follows cancels it.
 */
static const char *retract_claimed(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint64_t armed = fk.ctx_armed, c;

	if (hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, &c))
		return "arm failed";
	fake_drain_begin(true);
	if (hwtimer_cancel(h, c) != HWTIMER_RESULT_CANCELLED)
		return "the cancel did not answer CANCELLED";
	if (enter(h) != 1 || fk.ctx_armed != armed + 1)
		return "the drain did not arm the claimed ARM alone";
	if (enter(h) != 1 || fk.ctx_cancelled != 1)
		return "the CANCEL did not cancel it";
	return expiries(h, 0);
}

/* A submit of @n arms FAR_NS ahead, ids into @ids. Return: 0 or a message. */
static const char *submit_arms(struct hwtimer *h, uint64_t *ids, unsigned int n)
{
	struct hwtimer_result res[128];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (hwtimer_prep_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A,
				     &res[i]))
			return "prep of an arm failed";
	if (hwtimer_submit(h))
		return "a submit of arms failed";
	for (i = 0; i < n; i++) {
		if (res[i].status || res[i].id >> HWTIMER_ID_TAG_SHIFT != FAKE_ID_TAG)
			return "an arm failed or missed the rings";
		ids[i] = res[i].id;
	}
	return NULL;
}

/*
 * A submit of cancels of @ids[0..@n), every one of which must answer
 * @want (a negative errno: that status). Return: 0 or a message.
 */
static const char *submit_cancels(struct hwtimer *h, const uint64_t *ids,
				  unsigned int n, int want)
{
	struct hwtimer_result res[128];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (hwtimer_prep_cancel(h, ids[i], &res[i]))
			return "prep of a cancel failed";
	hwtimer_submit(h);
	for (i = 0; i < n; i++)
		if (want < 0 ? res[i].status != want :
		    res[i].status || res[i].result != (uint32_t)want)
			return "a cancel of the submit answered otherwise";
	return NULL;
}

/*
 * The cancels of a submit share one barrier: all of a submit's arms,
 * cancelled in the next, are taken back and retracted, more than one
 * barrier's worth too; the kernel hears of none. A second cancel of an id
 * in the same submit finds nothing.
 */
static const char *submit_take_back(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint32_t tail = *fk.sq_tail;
	uint64_t armed = fk.ctx_armed, ids[128];
	const char *why;

	why = submit_arms(h, ids, 5);
	if (!why)
		why = submit_cancels(h, ids, 5, HWTIMER_RESULT_CANCELLED);
	if (!why && *fk.sq_tail != tail)
		why = "five arms and their cancels left entries";
	if (!why)
		why = submit_arms(h, ids, 128);
	if (!why)
		why = submit_cancels(h, ids, 128, HWTIMER_RESULT_CANCELLED);
	if (!why && *fk.sq_tail != tail)
		why = "128 arms and their cancels left entries";
	if (!why)
		why = submit_arms(h, ids, 1);
	if (!why) {
		ids[1] = ids[0];
		why = submit_cancels(h, ids, 1, HWTIMER_RESULT_CANCELLED);
	}
	if (!why)
		why = submit_cancels(h, ids + 1, 1, -ENOENT);
	if (!why && (enter(h) != 0 || fk.ctx_armed != armed))
		why = "the kernel consumed or armed something";
	return why ? why : expiries(h, 0);
}

/*
 * Timeouts cancelled before a drain, by single calls and in a submit, are
 * taken back: the kernel counts none of them, the library each; a cancel
 * of an ARM the kernel took goes to the kernel, and is its count alone.
 */
static const char *stats_taken_back(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint64_t ids[4];
	const char *why;

	why = arm_cancel(h, ids, 3);
	if (!why)
		why = submit_arms(h, ids, 4);
	if (!why)
		why = submit_cancels(h, ids, 4, HWTIMER_RESULT_CANCELLED);
	if (!why)
		why = stats_are(h, 2, 0, 0, (struct hwtimer_lib_stats){
			.ring_live = 2, .taken_back = 7 });
	if (!why && hwtimer_cancel(h, a) != HWTIMER_RESULT_CANCELLED)
		why = "the cancel of A did not say CANCELLED";
	if (!why)
		why = stats_are(h, 2, 1, 0, (struct hwtimer_lib_stats){
			.ring_live = 1, .taken_back = 7 });
	return why ? why : expiries(h, 0);
}

/*
 * hwtimer_lib_stats() refuses a size below its first struct's; a larger
 * struct, of a newer header, gets the fields it does not know as 0.
 */
static const char *lib_stats_size(struct hwtimer *h, uint64_t a, uint64_t b)
{
	struct {
		struct hwtimer_lib_stats st;
		uint64_t newer[2];
	} big;

	if (hwtimer_lib_stats(h, &big.st, HWTIMER_LIB_STATS_SIZE_VER0 - 8) !=
	    -EINVAL)
		return "a size below the first struct's was not refused";
	memset(&big, 0xff, sizeof(big));
	if (hwtimer_lib_stats(h, &big.st, sizeof(big)))
		return "a larger struct was refused";
	if (big.newer[0] || big.newer[1])
		return "fields past the library's struct are not 0";
	if (big.st.ring_slots != fk.setup.slots || big.st.ring_live != 2 ||
	    big.st.taken_back || big.st.ring_read)
		return "the counts of a larger struct are wrong";
	return NULL;
}

/*
 * A submit whose cancels find some ARMs claimed by a drain: those go as
 * CANCELs and the kernel cancels them, the others are taken back.
 */
static const char *submit_some_claimed(struct hwtimer *h, uint64_t a,
				       uint64_t b)
{
	uint64_t armed = fk.ctx_armed, cancelled = fk.ctx_cancelled, ids[6];
	uint64_t nops = fk.nops;
	const char *why;

	why = submit_arms(h, ids, 3);
	if (!why) {
		fake_drain_begin(true);
		why = submit_arms(h, ids + 3, 3);
	}
	if (!why)
		why = submit_cancels(h, ids, 6, HWTIMER_RESULT_CANCELLED);
	/* The drain under way arms the three it claimed... */
	if (!why && (enter(h) != 3 || fk.ctx_armed != armed + 3))
		why = "the drain did not arm the three claimed ARMs alone";
	/* ... the next cancels them, and the three others are NOPs. */
	if (!why && (enter(h) != 6 || fk.ctx_cancelled != cancelled + 3 ||
		     fk.nops != nops + 3))
		why = "the three CANCELs did not cancel them alone";
	return why ? why : expiries(h, 0);
}

/*
 * Every slot in use: a submit that cancels one and arms one serves the arm
 * from the slot the cancel took back, without a system call.
 */
static const char *submit_slot_reused(struct hwtimer *h, uint64_t a,
				      uint64_t b)
{
	unsigned int n = 0, i;
	uint64_t enters, ids[128], *all;
	const char *why = NULL;

	all = calloc(fk.setup.slots, sizeof(*all));
	if (!all)
		return "out of memory";
	/* A and B hold two slots. */
	while (!why && n + 2 < fk.setup.slots) {
		i = fk.setup.slots - 2 - n < 128 ? fk.setup.slots - 2 - n : 128;
		why = submit_arms(h, all + n, i);
		n += i;
	}
	enters = fk.enters;
	if (!why) {
		struct hwtimer_result rc, ra;

		if (hwtimer_prep_cancel(h, all[0], &rc) ||
		    hwtimer_prep_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A,
				     &ra) || hwtimer_submit(h))
			why = "the submit failed";
		else if (rc.result != HWTIMER_RESULT_CANCELLED ||
			 ra.id >> HWTIMER_ID_TAG_SHIFT != FAKE_ID_TAG ||
			 (ra.id ^ all[0]) &
			 ((1ULL << HWTIMER_ID_INDEX_BITS) - 1))
			why = "the arm did not take the cancelled one's slot";
		else if (fk.enters != enters)
			why = "the submit made a system call";
		all[0] = ra.id;
	}
	for (i = 0; !why && i < n; i += 128) {
		memcpy(ids, all + i, (n - i < 128 ? n - i : 128) * sizeof(*ids));
		why = submit_cancels(h, ids, n - i < 128 ? n - i : 128,
				     HWTIMER_RESULT_CANCELLED);
	}
	free(all);
	return why ? why : expiries(h, 0);
}

/* Timeouts a slot serves before its ids come round again. */
#define GEN_CYCLE	((1U << HWTIMER_ID_GEN_BITS) - 1)

/*
 * A slot armed and cancelled again and again, absolute arms taking the
 * fast path and relative ones the general one, runs through every
 * generation and wraps: each id is new until the cycle is complete, keeps
 * the rings' tag and the slot's index (its cancel finds it), and the
 * cycle's next id is its first.
 */
static const char *gen_wrap(struct hwtimer *h, uint64_t a, uint64_t b)
{
	uint64_t first = 0, prev = 0, id, at = 0;
	struct timespec ts;
	unsigned int i;

	for (i = 0; i <= GEN_CYCLE; i++) {
		if (i % 2) {
			if (hwtimer_arm(h, CLOCK_MONOTONIC, FAR_NS, 0, 0,
					COOKIE_A, &id))
				return "a relative arm failed";
		} else {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			at = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec +
			     FAR_NS;
			if (hwtimer_arm(h, CLOCK_MONOTONIC, at, 0,
					HWTIMER_ARM_ABS, COOKIE_A, &id))
				return "an absolute arm failed";
		}
		if (!i)
			first = id;
		else if (i < GEN_CYCLE && (id == prev || id == first))
			return "an id came again within the cycle";
		if ((id ^ first) >> HWTIMER_ID_TAG_SHIFT)
			return "an id lost the rings' tag";
		if ((id ^ first) & ((1ULL << HWTIMER_ID_INDEX_BITS) - 1))
			return "the slot's index changed";
		if (hwtimer_cancel(h, id) != HWTIMER_RESULT_CANCELLED)
			return "a cancel did not answer CANCELLED";
		prev = id;
	}
	return id != first ? "the cycle's next id is not its first" :
	       expiries(h, 0);
}

/*
 * Run check @fn on a fresh context with timeouts A and B claimed
 * (claimed_pair()), its submission ring filled up first if @full.
 * Return: 0, or a message.
 */
static const char *run_check(const char *(*fn)(struct hwtimer *h, uint64_t a,
					       uint64_t b), bool full)
{
	struct hwtimer *h;
	const char *why;
	uint64_t a, b;

	why = claimed_pair(&h, &a, &b);
	if (!why && full)
		why = fill_ring(h, b);
	if (!why)
		why = fn(h, a, b);
	if (h)
		hwtimer_close(h);
	return why;
}

int main(void)
{
	static const struct {
		const char *(*run)(struct hwtimer *h, uint64_t a, uint64_t b);
		bool full;
		const char *desc;
	} checks[] = {
		{ cancel_fired, true, "cancel, full ring, expiry taken for room: FIRED" },
		{ modify_fired, true, "modify, full ring, expiry taken for room: FIRED" },
		{ cancel_full, true, "cancel, full ring, no expiry: CANCELLED, nothing comes" },
		{ modify_full, true, "modify, full ring, no expiry: MODIFIED, nothing comes" },
		{ stats_cancel_raced, false, "stats: a CANCELLED cancel the kernel found fired" },
		{ stats_stashed, false, "stats: expiry the flush stashed, then cancel: FIRED" },
		{ stats_modify_raced, false, "stats: a MODIFIED modify the kernel found fired" },
		{ stats_taken_back, false, "stats: take-backs are the library's count alone" },
		{ lib_stats_size, false, "hwtimer_lib_stats: too small refused, larger zeroed" },
		{ retract, false, "arms cancelled before a drain are retracted, NOPs with them" },
		{ retract_raced, false, "a drain that read the tail before a retraction" },
		{ retract_claimed, false, "cancel of an ARM a drain claimed: armed, cancelled" },
		{ gen_wrap, false, "ids of a slot through every generation and round" },
		{ submit_take_back, false, "a submit's cancels taken back with one barrier" },
		{ submit_some_claimed, false, "a submit's cancels, some ARMs claimed by a drain" },
		{ submit_slot_reused, false, "no slot free: an arm takes the slot a cancel freed" },
	};
	unsigned int i;

	/* The library would keep off the rings. */
	unsetenv("HWTIMER_NO_RINGS");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		const char *why = run_check(checks[i].run, checks[i].full);

		tap(i + 1, !why, checks[i].desc, why ? why : "");
	}
	return failed ? 1 : 0;
}
