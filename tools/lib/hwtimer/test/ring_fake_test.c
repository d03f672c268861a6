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
 * MODIFIED, and none.
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
 * back), then the submission ring filled up with MODIFY entries of B.
 * Return: 0, or a message.
 */
static const char *setup(struct hwtimer **hp, uint64_t *a, uint64_t *b)
{
	struct hwtimer_ring_enter e = { 0 };
	uint64_t k = 0;
	int r;

	if (hwtimer_open_path(hp, "/dev/null", 0, HWTIMER_OPEN_DEVICE))
		return hwtimer_open_error();
	if (!(hwtimer_features(*hp) & HWTIMER_FEATURE_RINGS))
		return "the library does not use the rings";
	if (hwtimer_arm(*hp, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_A, a) ||
	    hwtimer_arm(*hp, CLOCK_MONOTONIC, FAR_NS, 0, 0, COOKIE_B, b))
		return "arm failed";
	if (*a >> ID_TAG_SHIFT != FAKE_ID_TAG)
		return "the arm did not go to the rings";
	if (ioctl(hwtimer_fd(*hp), HWTIMER_IOC_ENTER, &e) != 2)
		return "ENTER did not consume both ARMs";
	while (fake_sq_waiting() < fk.setup.sq_entries) {
		r = hwtimer_modify(*hp, *b, FAR_NS + ++k, 0);
		if (r != HWTIMER_RESULT_MODIFIED)
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
 * Cancel (@cancel) or modify timeout A with a full submission ring, the
 * kernel consuming nothing at the first ENTER, at which A expires if
 * @fire. Return: 0, or a message.
 */
static const char *full_ring(bool cancel, bool fire)
{
	int want = !fire ? (cancel ? HWTIMER_RESULT_CANCELLED :
			    HWTIMER_RESULT_MODIFIED) : HWTIMER_RESULT_FIRED;
	struct hwtimer *h = NULL;
	uint64_t a, b, enters, fired;
	const char *why;
	int r;

	why = setup(&h, &a, &b);
	if (why)
		goto out;
	if (fire)
		fake_fire(a);
	fk.stall = 1;
	enters = fk.enters;
	fired = fk.fired;
	r = cancel ? hwtimer_cancel(h, a) : hwtimer_modify(h, a, FAR_NS, 0);
	if (r != want) {
		why = r == HWTIMER_RESULT_CANCELLED ? "answered CANCELLED" :
		      r == HWTIMER_RESULT_MODIFIED ? "answered MODIFIED" :
		      r == HWTIMER_RESULT_FIRED ? "answered FIRED" :
		      "answered an error";
		goto out;
	}
	/* One ENTER that consumed nothing, one that made room. */
	if (fk.enters - enters != 2 || fk.stall ||
	    fk.fired - fired != (fire ? 1U : 0U)) {
		why = "the ring was not full, or not made room in";
		goto out;
	}
	why = expiries(h, fire ? a : 0);
	if (why)
		goto out;
	/* Gone, unless only modified; B is untouched either way. */
	r = hwtimer_cancel(h, a);
	if (r != (cancel || fire ? -ENOENT : HWTIMER_RESULT_CANCELLED))
		why = "a second cancel of A did not answer as it should";
	else if (hwtimer_cancel(h, b) != HWTIMER_RESULT_CANCELLED)
		why = "B was not left pending";
	else if (fk.refused)
		why = "the stand-in refused an entry";
out:
	if (h)
		hwtimer_close(h);
	return why;
}

int main(void)
{
	static const struct {
		bool cancel, fire;
		const char *desc;
	} checks[] = {
		{ true, true, "cancel, full ring, expiry taken for room: FIRED, it once" },
		{ false, true, "modify, full ring, expiry taken for room: FIRED, it once" },
		{ true, false, "cancel, full ring, no expiry: CANCELLED, nothing comes" },
		{ false, false, "modify, full ring, no expiry: MODIFIED, nothing comes" },
	};
	unsigned int i;

	/* The library would keep off the rings. */
	unsetenv("HWTIMER_NO_RINGS");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		const char *why = full_ring(checks[i].cancel, checks[i].fire);

		tap(i + 1, !why, checks[i].desc, why ? why : "");
	}
	return failed ? 1 : 0;
}
