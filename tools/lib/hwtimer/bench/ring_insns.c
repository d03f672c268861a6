// SPDX-License-Identifier: GPL-2.0
/*
 * ring_insns - libhwtimer's work per timeout on the timer rings, without a
 * device: a stand-in for the kernel, to count instructions under callgrind.
 *
 *   ring_insns [-n TIMEOUTS] [-v sq1024|single[-drained]] [-w]
 *
 * It is linked with test/fake_kernel.c, a stand-in for the driver's
 * rings in the process (fake_kernel.h says what it answers), and opens
 * /dev/null as the device. Nothing expires, so every cancel finds its ARM
 * unclaimed and takes it back, the best case; a -drained variant ENTERs
 * between the arms and their cancels, the worst case, where every cancel
 * is an entry and its completion.
 *
 * The workload is hwtimer_lib_bench's: TIMEOUTS (default 262144) one-shots
 * on CLOCK_MONOTONIC, 10 s away, armed and cancelled 1024 at a time, with
 * absolute deadlines from one clock read per 1024. -v
 * sq1024 (the default) queues them with hwtimer_prep_arm() and
 * hwtimer_prep_cancel() and submits each 1024 with hwtimer_submit(), as
 * rings_sq1024 does; -v single makes one hwtimer_arm() or hwtimer_cancel()
 * call each, as rings_single does. Each arm must give an id of the rings
 * (status 0, their id tag in bits 63..44), each cancel CANCELLED, and the
 * stand-in must refuse no entry: else the program fails.
 *
 * It runs the workload once to warm up, then again in measured(), the
 * function to give callgrind's --toggle-collect, and prints
 * "VARIANT timeouts N enters E entries S nops P" for the measured run:
 * its timeouts, the ENTERs it made, the entries the stand-in consumed and
 * how many of them were NOPs.
 * With -w it warms up only (N is then 0): callgrind counts calls made
 * while it does not collect costs, so the calls of the measured run are
 * those of a run less those of a warm-up alone.
 * bench/ring_insns.sh runs it under callgrind ("make ring-insns").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwtimer/hwtimer.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../test/fake_kernel.h"

#define noinline	__attribute__((__noinline__))

#define CHUNK		1024
#define FAR_NS		10000000000ULL

/* CLOCK_MONOTONIC now, in ns. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "ring_insns: %s: %s\n", what, strerror(err));
	exit(1);
}

/* ---- the workload ---- */

enum variant { SQ1024, SINGLE };

/*
 * -drained variants: the workload ENTERs between its arms and their
 * cancels, as a worker's drain would, so no cancel can take its ARM back.
 */
static bool drained;

static void drain(struct hwtimer *h)
{
	struct hwtimer_ring_enter e = { 0 };

	if (drained && ioctl(hwtimer_fd(h), HWTIMER_IOC_ENTER, &e) < 0)
		die("ENTER", errno);
}

static void check_arm(uint64_t id, int status)
{
	if (status)
		die("arm", -status);
	if (id >> HWTIMER_ID_TAG_SHIFT != FAKE_ID_TAG)
		die("arm: not an id of the rings", EIO);
}

static void check_cancel(int status, unsigned int result)
{
	if (status)
		die("cancel", -status);
	if (result != HWTIMER_RESULT_CANCELLED)
		die("cancel: not CANCELLED", EIO);
}

/* As hwtimer_lib_bench's lib_sq(): @n timeouts, CHUNK per submit. */
static void run_sq(struct hwtimer *h, uint64_t n)
{
	static struct hwtimer_result res[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		uint64_t at = now_ns() + FAR_NS;

		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_prep_arm(h, CLOCK_MONOTONIC, at, 0,
					     HWTIMER_ARM_ABS, i, &res[i]);
			if (r)
				die("prep_arm", -r);
		}
		r = hwtimer_submit(h);
		if (r)
			die("submit of arms", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			check_arm(res[i].id, res[i].status);
		drain(h);
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_prep_cancel(h, res[i].id, &res[i]);
			if (r)
				die("prep_cancel", -r);
		}
		r = hwtimer_submit(h);
		if (r)
			die("submit of cancels", r < 0 ? -r : EIO);
		for (i = 0; i < CHUNK; i++)
			check_cancel(res[i].status, res[i].result);
	}
}

/* As hwtimer_lib_bench's lib_single(): a call per arm and per cancel. */
static void run_single(struct hwtimer *h, uint64_t n)
{
	static uint64_t ids[CHUNK];
	uint64_t done;
	int i, r;

	for (done = 0; done < n; done += CHUNK) {
		uint64_t at = now_ns() + FAR_NS;

		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_arm(h, CLOCK_MONOTONIC, at, 0,
					HWTIMER_ARM_ABS, i, &ids[i]);
			check_arm(ids[i], r);
		}
		drain(h);
		for (i = 0; i < CHUNK; i++) {
			r = hwtimer_cancel(h, ids[i]);
			check_cancel(r < 0 ? r : 0, r < 0 ? 0 : r);
		}
	}
}

static void run(enum variant v, struct hwtimer *h, uint64_t n)
{
	if (v == SQ1024)
		run_sq(h, n);
	else
		run_single(h, n);
}

/* VARIANT of -v: sq1024 or single, with or without -drained. */
static bool parse_variant(const char *arg, enum variant *v)
{
	if (!strncmp(arg, "sq1024", 6))
		*v = SQ1024;
	else if (!strncmp(arg, "single", 6))
		*v = SINGLE;
	else
		return false;
	drained = !strcmp(arg + 6, "-drained");
	return drained || !arg[6];
}

/*
 * The run callgrind counts: --toggle-collect=measured. Not inlined, and
 * not static, so that it keeps its name.
 */
noinline void measured(enum variant v, struct hwtimer *h, uint64_t n)
{
	run(v, h, n);
	/* Not folded into the caller's code: a call callgrind sees. */
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static const char * const names[] = { "sq1024", "single" };
	static const char * const suffix[] = { "", "-drained" };
	enum variant v = SQ1024;
	uint64_t n = 262144, enters, entries, nops;
	bool warm_only = false;
	struct hwtimer *h;
	int c, r;

	while ((c = getopt(argc, argv, "n:v:w")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 0);
		else if (c == 'w')
			warm_only = true;
		else if (c != 'v' || !parse_variant(optarg, &v))
			n = 0;
	}
	n -= n % CHUNK;
	if (!n || optind != argc) {
		fprintf(stderr, "usage: %s [-n TIMEOUTS (a multiple of %d)]\n"
			"\t[-v sq1024|single[-drained]] [-w]\n", argv[0], CHUNK);
		return 2;
	}
	/* The library would keep off the rings. */
	unsetenv("HWTIMER_NO_RINGS");
	r = hwtimer_open_path(&h, "/dev/null", CHUNK, HWTIMER_OPEN_DEVICE);
	if (r) {
		fprintf(stderr, "ring_insns: %s\n", hwtimer_open_error());
		return 1;
	}
	if (!(hwtimer_features(h) & HWTIMER_FEATURE_RINGS))
		die("the library does not use the rings", EIO);
	run(v, h, n);
	enters = fk.enters;
	entries = fk.entries;
	nops = fk.nops;
	if (!warm_only)
		measured(v, h, n);
	enters = fk.enters - enters;
	entries = fk.entries - entries;
	nops = fk.nops - nops;
	if (fk.refused)
		die("the stand-in refused entries", EIO);
	hwtimer_close(h);
	if (fk.mem)
		die("the rings were not unmapped", EIO);
	printf("%s%s timeouts %llu enters %llu entries %llu nops %llu\n",
	       names[v], suffix[drained],
	       warm_only ? 0ULL : (unsigned long long)n,
	       (unsigned long long)enters,
	       (unsigned long long)entries, (unsigned long long)nops);
	return 0;
}
