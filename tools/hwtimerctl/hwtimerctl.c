// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimerctl - command-line client of /dev/hwtimer.
 *
 *   hwtimerctl [--json] [--device PATH] info
 *   hwtimerctl [--json] arm DURATION... [--every D] [--count N] [--cancel I]
 *   hwtimerctl [--json] batch N [--at D] [--spread D] [--chunk K]
 *   hwtimerctl [--json] watch [--interval D] [--count N | --once]
 *
 * Durations are a number and a unit: 10us, 250ms, 1.5s, 2m (also ns, h).
 * Exit status: 0 success, 1 runtime error, 2 usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC	1000000000ULL

static const char *dev_path = "/dev/hwtimer";
static int json;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hwtimerctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(code);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Parse "250ms", "1.5s", "2m", "10us"; returns 0 or -1. */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || isnan(v))
		return -1;
	if (!*end)
		return v == 0 ? (*ns = 0, 0) : -1;	/* only 0 needs no unit */
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].mul;
			if (v >= 18446744073709551615.0)
				return -1;
			*ns = (uint64_t)(v + 0.5);
			return 0;
		}
	}
	return -1;
}

static uint64_t duration_arg(const char *what, const char *s)
{
	uint64_t ns;

	if (parse_duration(s, &ns))
		die(2, "bad %s '%s': want a number and a unit, e.g. 250ms, 1.5s, 2m, 10us",
		    what, s);
	return ns;
}

static unsigned long count_arg(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		die(2, "bad %s '%s': want a whole number", what, s);
	return v;
}

/* "1.234 ms" style, for humans. */
static const char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 10 * NSEC_PER_SEC)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

static int open_dev(void)
{
	int fd = open(dev_path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			die(1, "%s: %s (is the hwtimer module loaded?)", dev_path,
			    strerror(errno));
		die(1, "%s: %s", dev_path, strerror(errno));
	}
	return fd;
}

static void xioctl(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg))
		die(1, "%s: %s", what, strerror(errno));
}

static void get_stats(int fd, uint32_t clock, struct hwtimer_stats_req *st)
{
	memset(st, 0, sizeof(*st));
	st->clock = clock;
	xioctl(fd, HWTIMER_IOC_STATS, st, "HWTIMER_IOC_STATS");
}

/* ---- info ---- */

static void print_param(const char *name)
{
	char path[128], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/hwtimer/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	if (json)
		printf(", \"%s\": \"%s\"", name, buf);
	else
		printf("  %-16s %s\n", name, buf);
}

static void print_hist(const __u64 *h, const char *indent);

static void print_wheel_stats(const char *name, const struct hwtimer_stats_req *st)
{
	char b[32];
	int i;

	if (json) {
		printf("\"%s\": {\"tick_ns\": %" PRIu64 ", \"pending\": %" PRIu64
		       ", \"armed\": %" PRIu64 ", \"fired\": %" PRIu64
		       ", \"cancelled\": %" PRIu64 ", \"rejected\": %" PRIu64
		       ", \"hrtimer_fires\": %" PRIu64 ", \"max_lateness_ns\": %"
		       PRIu64 ", \"lateness_log2\": [", name,
		       (uint64_t)st->tick_ns, (uint64_t)st->pending,
		       (uint64_t)st->armed, (uint64_t)st->fired,
		       (uint64_t)st->cancelled, (uint64_t)st->rejected,
		       (uint64_t)st->hrtimer_fires, (uint64_t)st->max_lateness_ns);
		for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
			printf("%s%" PRIu64, i ? ", " : "", (uint64_t)st->lateness[i]);
		printf("]}");
		return;
	}
	printf("%s wheel:\n", name);
	printf("  tick             %s\n", fmt_ns(st->tick_ns, b, sizeof(b)));
	printf("  pending          %" PRIu64 "\n", (uint64_t)st->pending);
	printf("  armed            %" PRIu64 "\n", (uint64_t)st->armed);
	printf("  fired            %" PRIu64 "\n", (uint64_t)st->fired);
	printf("  cancelled        %" PRIu64 "\n", (uint64_t)st->cancelled);
	printf("  rejected         %" PRIu64 "\n", (uint64_t)st->rejected);
	printf("  hrtimer fires    %" PRIu64 "\n", (uint64_t)st->hrtimer_fires);
	printf("  max lateness     %s\n", fmt_ns(st->max_lateness_ns, b, sizeof(b)));
	print_hist(st->lateness, "  ");
}

static const char * const feature_names[] = { "periodic", "boottime", "batch", "eventfd" };

static int cmd_info(int argc, char **argv)
{
	struct hwtimer_stats_req mono, boot;
	struct hwtimer_api api = { .api = HWTIMER_API };
	unsigned int i;
	int fd;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: hwtimerctl [--json] info\n\n"
		       "Handshake with /dev/hwtimer and print the API version, features,\n"
		       "ioctls, module parameters and the counters of both wheels.\n");
		return 0;
	}
	if (argc > 1)
		die(2, "info: unexpected argument '%s' (see hwtimerctl info --help)",
		    argv[1]);
	fd = open_dev();
	xioctl(fd, HWTIMER_IOC_API, &api, "HWTIMER_IOC_API");
	get_stats(fd, CLOCK_MONOTONIC, &mono);
	get_stats(fd, CLOCK_BOOTTIME, &boot);
	if (json) {
		printf("{\"api\": %" PRIu64 ", \"features\": [", (uint64_t)api.api);
		for (i = 0; i < 4; i++)
			if (api.features & (1ULL << i))
				printf("%s\"%s\"", i ? ", " : "", feature_names[i]);
		printf("], \"ioctls\": %" PRIu64 ", \"tick_ns\": %" PRIu64
		       ", \"max_pending\": %" PRIu64 ", \"event_size\": %u",
		       (uint64_t)api.ioctls, (uint64_t)api.tick_ns,
		       (uint64_t)api.max_pending, api.event_size);
		printf(", \"params\": {\"_\": \"\"");
		print_param("tick_ns");
		print_param("workers");
		print_param("max_pending");
		print_param("clock");
		print_param("ctx_max_pending");
		printf("}, ");
		print_wheel_stats("monotonic", &mono);
		printf(", ");
		print_wheel_stats("boottime", &boot);
		printf("}\n");
		close(fd);
		return 0;
	}
	printf("%s: API %" PRIu64 ", event record %u bytes\n", dev_path,
	       (uint64_t)api.api, api.event_size);
	printf("features:");
	for (i = 0; i < 4; i++)
		if (api.features & (1ULL << i))
			printf(" %s", feature_names[i]);
	printf("\nioctls:   %#" PRIx64 "\n", (uint64_t)api.ioctls);
	printf("per-open cap: %" PRIu64 " timeouts; minimum period one tick\n",
	       (uint64_t)api.max_pending);
	printf("module parameters:\n");
	print_param("tick_ns");
	print_param("workers");
	print_param("max_pending");
	print_param("clock");
	print_param("ctx_max_pending");
	print_wheel_stats("CLOCK_MONOTONIC", &mono);
	print_wheel_stats("CLOCK_BOOTTIME", &boot);
	close(fd);
	return 0;
}

/* Lateness histogram: one bar per non-empty log2 bucket. */
static void print_hist(const __u64 *h, const char *indent)
{
	uint64_t max = 0, lo;
	char a[32], b[32];
	int i, bar;

	for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
		if (h[i] > max)
			max = h[i];
	if (!max) {
		printf("%slateness: no expiries yet\n", indent);
		return;
	}
	printf("%slateness histogram:\n", indent);
	for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++) {
		if (!h[i])
			continue;
		lo = i ? 1ULL << (i - 1) : 0;
		bar = (int)((h[i] * 40 + max - 1) / max);
		if (i == HWTIMER_STATS_LAT_BUCKETS - 1)
			printf("%s  >= %-10s          %10" PRIu64 " %.*s\n", indent,
			       fmt_ns(lo, a, sizeof(a)), (uint64_t)h[i], bar,
			       "########################################");
		else
			printf("%s  %10s .. %-10s %10" PRIu64 " %.*s\n", indent,
			       fmt_ns(lo, a, sizeof(a)),
			       fmt_ns(i ? 1ULL << i : 0, b, sizeof(b)),
			       (uint64_t)h[i], bar,
			       "########################################");
	}
}

/* ---- arm ---- */

static void arm_usage(FILE *f)
{
	fprintf(f,
		"usage: hwtimerctl [--json] arm DURATION... [options]\n\n"
		"Arm one timeout per DURATION on one context, wait, and print each\n"
		"expiry with its lateness (fire time minus deadline, in the kernel)\n"
		"and its delivery delay (when this process read it).\n\n"
		"options:\n"
		"  --every D     periodic with period D (DURATION is the first expiry;\n"
		"                without DURATION the first expiry is after D)\n"
		"  --count N     stop after N expiries per periodic timeout (default 5)\n"
		"  --cancel I    cancel the I-th timeout (1-based) right after arming;\n"
		"                may be repeated\n"
		"  --boottime    use CLOCK_BOOTTIME instead of CLOCK_MONOTONIC\n"
		"durations: 10us, 250ms, 1.5s, 2m (units ns us ms s m h)\n");
}

struct armed {
	uint64_t id;
	uint64_t after;
	uint64_t seen;		/* expiries, overruns included */
	int done;
};

static int cmd_arm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "every", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "cancel", required_argument, NULL, 'x' },
		{ "boottime", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t every = 0, count = 5, t0;
	uint32_t clock = CLOCK_MONOTONIC;
	unsigned char cancel_mask[256] = { 0 };
	struct armed *tm;
	int fd, c, n, i, left;
	char a[32], b[32], d[32];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			every = duration_arg("--every", optarg);
			break;
		case 'c':
			count = count_arg("--count", optarg);
			break;
		case 'x':
			i = (int)count_arg("--cancel", optarg);
			if (i < 1 || i > 255)
				die(2, "--cancel %d: want 1..255", i);
			cancel_mask[i] = 1;
			break;
		case 'b':
			clock = CLOCK_BOOTTIME;
			break;
		case 'h':
			arm_usage(stdout);
			return 0;
		default:
			arm_usage(stderr);
			return 2;
		}
	}
	n = argc - optind;
	if (!n && !every) {
		arm_usage(stderr);
		die(2, "arm: give at least one DURATION or --every");
	}
	if (!n)
		n = 1;
	tm = calloc(n, sizeof(*tm));
	if (!tm)
		die(1, "out of memory");
	for (i = 0; i < n; i++)
		tm[i].after = optind + i < argc ?
			duration_arg("duration", argv[optind + i]) : every;

	fd = open_dev();
	t0 = now_ns(clock);
	for (i = 0; i < n; i++) {
		struct hwtimer_arm_req r = {
			.cookie = i + 1, .deadline_ns = tm[i].after,
			.period_ns = every, .clock = clock,
		};

		if (ioctl(fd, HWTIMER_IOC_ARM, &r))
			die(1, "arm %s: %s%s", fmt_ns(tm[i].after, a, sizeof(a)),
			    strerror(errno), errno == EINVAL && every ?
			    " (is the period at least one tick?)" : "");
		tm[i].id = r.id;
		if (json)
			printf("{\"event\": \"armed\", \"n\": %d, \"id\": %" PRIu64
			       ", \"after_ns\": %" PRIu64 ", \"period_ns\": %" PRIu64
			       "}\n", i + 1, (uint64_t)r.id, tm[i].after, every);
		else
			printf("armed    #%d  id %#" PRIx64 "  in %s%s%s\n", i + 1,
			       (uint64_t)r.id, fmt_ns(tm[i].after, a, sizeof(a)),
			       every ? ", every " : "",
			       every ? fmt_ns(every, b, sizeof(b)) : "");
	}
	left = n;
	for (i = 0; i < n && i < 255; i++) {
		struct hwtimer_cancel_req r = { .id = tm[i].id };

		if (!cancel_mask[i + 1])
			continue;
		xioctl(fd, HWTIMER_IOC_CANCEL, &r, "HWTIMER_IOC_CANCEL");
		if (json)
			printf("{\"event\": \"cancel\", \"n\": %d, \"id\": %" PRIu64
			       ", \"result\": \"%s\"}\n", i + 1, tm[i].id,
			       r.result == HWTIMER_RESULT_CANCELLED ? "cancelled" :
			       "fired");
		else
			printf("cancel   #%d  id %#" PRIx64 "  -> %s\n", i + 1, tm[i].id,
			       r.result == HWTIMER_RESULT_CANCELLED ?
			       "cancelled before firing" : "already fired");
		if (r.result == HWTIMER_RESULT_CANCELLED) {
			tm[i].done = 1;
			left--;
		}
	}
	fflush(stdout);

	while (left > 0) {
		struct hwtimer_event ev[64];
		ssize_t got = read(fd, ev, sizeof(ev));
		uint64_t rd = now_ns(clock);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			die(1, "read: %s", strerror(errno));
		}
		for (c = 0; c < (int)(got / sizeof(ev[0])); c++) {
			i = (int)ev[c].cookie - 1;
			if (i < 0 || i >= n || tm[i].done)
				continue;
			tm[i].seen += 1 + ev[c].overruns;
			if (json)
				printf("{\"event\": \"fired\", \"n\": %d, \"id\": %" PRIu64
				       ", \"deadline_ns\": %" PRIu64 ", \"fire_ns\": %"
				       PRIu64 ", \"late_ns\": %" PRIu64 ", \"delivered_ns\": %"
				       PRIu64 ", \"overruns\": %" PRIu64 ", \"at_ns\": %"
				       PRIu64 "}\n", i + 1, (uint64_t)ev[c].id,
				       (uint64_t)ev[c].deadline_ns, (uint64_t)ev[c].fire_ns,
				       (uint64_t)(ev[c].fire_ns - ev[c].deadline_ns),
				       (uint64_t)(rd - ev[c].deadline_ns), (uint64_t)ev[c].overruns,
				       (uint64_t)(ev[c].deadline_ns - t0));
			else
				printf("fired    #%d  at +%s  late %s  (read +%s)%s\n",
				       i + 1, fmt_ns(ev[c].deadline_ns - t0, a, sizeof(a)),
				       fmt_ns(ev[c].fire_ns - ev[c].deadline_ns, b, sizeof(b)),
				       fmt_ns(rd - ev[c].deadline_ns, d, sizeof(d)),
				       ev[c].overruns ? "  +overruns" : "");
			if (!every || tm[i].seen >= count) {
				struct hwtimer_cancel_req r = { .id = tm[i].id };

				if (every)
					ioctl(fd, HWTIMER_IOC_CANCEL, &r);
				tm[i].done = 1;
				left--;
			}
		}
		fflush(stdout);
	}
	close(fd);
	free(tm);
	return 0;
}

/* ---- batch ---- */

static void batch_usage(FILE *f)
{
	fprintf(f,
		"usage: hwtimerctl [--json] batch N [options]\n\n"
		"Arm N one-shot timeouts with HWTIMER_IOC_BATCH, wait for all of them,\n"
		"and report how fast they went in (arms per second) and came out\n"
		"(events read per second), with their lateness.\n\n"
		"options:\n"
		"  --at D        first deadline, from the start (default 100ms)\n"
		"  --spread D    deadlines spread evenly over D after --at (default 100ms)\n"
		"  --chunk K     ops per BATCH call (default 4096, at most %u)\n",
		HWTIMER_BATCH_MAX);
}

static int cmd_batch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "at", required_argument, NULL, 'a' },
		{ "spread", required_argument, NULL, 's' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t at = 100000000ULL, spread = 100000000ULL, chunk = 4096;
	uint64_t n, i, t0, t1, t2, base, got = 0, late, max_late = 0;
	double sum_late = 0;
	struct hwtimer_batch_op *ops;
	struct hwtimer_event *ev;
	int fd, c;
	char a[32], b[32];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			at = duration_arg("--at", optarg);
			break;
		case 's':
			spread = duration_arg("--spread", optarg);
			break;
		case 'k':
			chunk = count_arg("--chunk", optarg);
			if (!chunk || chunk > HWTIMER_BATCH_MAX)
				die(2, "--chunk: want 1..%u", HWTIMER_BATCH_MAX);
			break;
		case 'h':
			batch_usage(stdout);
			return 0;
		default:
			batch_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		batch_usage(stderr);
		die(2, "batch: give the number of timeouts N");
	}
	n = count_arg("N", argv[optind]);
	if (!n)
		die(2, "batch: N must be at least 1");
	ops = calloc(chunk, sizeof(*ops));
	ev = calloc(4096, sizeof(*ev));
	if (!ops || !ev)
		die(1, "out of memory");

	fd = open_dev();
	t0 = now_ns(CLOCK_MONOTONIC);
	base = t0 + at;
	for (i = 0; i < n; i += chunk) {
		struct hwtimer_batch req = { 0 };
		uint64_t k, m = n - i < chunk ? n - i : chunk;

		memset(ops, 0, m * sizeof(*ops));
		for (k = 0; k < m; k++) {
			ops[k].op = HWTIMER_OP_ARM;
			ops[k].cookie = i + k;
			ops[k].deadline_ns = base + (n > 1 ? spread * (i + k) / (n - 1) : 0);
			ops[k].clock = CLOCK_MONOTONIC;
			ops[k].flags = HWTIMER_ARM_ABS;
		}
		req.ops = (uint64_t)(uintptr_t)ops;
		req.count = (uint32_t)m;
		xioctl(fd, HWTIMER_IOC_BATCH, &req, "HWTIMER_IOC_BATCH");
		if (req.failed) {
			for (k = 0; k < m && !ops[k].status; k++)
				;
			die(1, "batch: %u of %" PRIu64 " arms failed, first: %s%s",
			    req.failed, m, strerror(-ops[k].status),
			    ops[k].status == -ENOSPC ?
			    " (per-open cap: see hwtimerctl info)" : "");
		}
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	while (got < n) {
		ssize_t r = read(fd, ev, 4096 * sizeof(*ev));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			die(1, "read: %s", strerror(errno));
		}
		for (i = 0; i < (uint64_t)r / sizeof(*ev); i++) {
			late = ev[i].fire_ns - ev[i].deadline_ns;
			if (late > max_late)
				max_late = late;
			sum_late += late;
		}
		got += r / sizeof(*ev);
	}
	t2 = now_ns(CLOCK_MONOTONIC);
	/* Events come out no faster than the deadlines allow. */
	if (json) {
		printf("{\"n\": %" PRIu64 ", \"chunk\": %" PRIu64 ", \"arm_ns\": %"
		       PRIu64 ", \"arm_per_sec\": %.0f, \"drain_ns\": %" PRIu64
		       ", \"events_per_sec\": %.0f, \"max_late_ns\": %" PRIu64
		       ", \"avg_late_ns\": %.0f}\n", n, chunk, t1 - t0,
		       n * 1e9 / (double)(t1 - t0 ? t1 - t0 : 1),
		       t2 - (base > t1 ? base : t1),
		       n * 1e9 / (double)(t2 - (base > t1 ? base : t1) ?: 1),
		       max_late, sum_late / n);
	} else {
		printf("batch: armed %" PRIu64 " timeouts in %s, %" PRIu64
		       " ops per BATCH call: %.0f arms/s\n", n,
		       fmt_ns(t1 - t0, a, sizeof(a)), chunk,
		       n * 1e9 / (double)(t1 - t0 ? t1 - t0 : 1));
		printf("batch: deadlines over %s from +%s;",
		       fmt_ns(spread, a, sizeof(a)), fmt_ns(at, b, sizeof(b)));
		printf(" all %" PRIu64 " read %s after the first was due\n", n,
		       fmt_ns(t2 - (base > t1 ? base : t1), a, sizeof(a)));
		if (t1 > base)
			printf("batch: note: arming outlasted --at by %s, so those deadlines\n"
			       "       had passed when armed; use a larger --at\n",
			       fmt_ns(t1 - base, a, sizeof(a)));
		printf("batch: %.0f events/s read; lateness max %s, mean %s\n",
		       n * 1e9 / (double)(t2 - (base > t1 ? base : t1) ?: 1),
		       fmt_ns(max_late, a, sizeof(a)),
		       fmt_ns((uint64_t)(sum_late / n), b, sizeof(b)));
	}
	close(fd);
	free(ops);
	free(ev);
	return 0;
}

/* ---- watch ---- */

static void watch_usage(FILE *f)
{
	fprintf(f,
		"usage: hwtimerctl [--json] watch [options]\n\n"
		"Print the default wheel's counters, rates and lateness histogram\n"
		"every interval until interrupted.\n\n"
		"options:\n"
		"  --interval D  time between samples (default 1s)\n"
		"  --count N     stop after N samples\n"
		"  --once        one sample, no rates (same as --count 1)\n"
		"  --boottime    the CLOCK_BOOTTIME wheel instead\n");
}

static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, '1' },
		{ "boottime", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t interval = NSEC_PER_SEC, count = 0, k, t, tprev = 0;
	struct hwtimer_stats_req st, prev;
	uint32_t clock = CLOCK_MONOTONIC;
	int fd, c, i;
	char a[32];

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = duration_arg("--interval", optarg);
			if (!interval)
				die(2, "--interval must be more than 0");
			break;
		case 'c':
			count = count_arg("--count", optarg);
			break;
		case '1':
			count = 1;
			break;
		case 'b':
			clock = CLOCK_BOOTTIME;
			break;
		case 'h':
			watch_usage(stdout);
			return 0;
		default:
			watch_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		die(2, "watch: unexpected argument '%s' (see hwtimerctl watch --help)",
		    argv[optind]);
	fd = open_dev();
	memset(&prev, 0, sizeof(prev));
	for (k = 0; !count || k < count; k++) {
		struct timespec ts = { interval / NSEC_PER_SEC, interval % NSEC_PER_SEC };

		if (k)
			nanosleep(&ts, NULL);
		get_stats(fd, clock, &st);
		t = now_ns(CLOCK_MONOTONIC);
		if (json) {
			printf("{\"sample\": %" PRIu64 ", \"t_ns\": %" PRIu64 ", ", k, t);
			print_wheel_stats("wheel", &st);
			if (k)
				printf(", \"fired_per_sec\": %.1f, \"armed_per_sec\": %.1f",
				       (st.fired - prev.fired) * 1e9 / (t - tprev),
				       (st.armed - prev.armed) * 1e9 / (t - tprev));
			printf("}\n");
		} else {
			printf("%s wheel: pending %" PRIu64 "  armed %" PRIu64
			       "  fired %" PRIu64 "  cancelled %" PRIu64 "  rejected %"
			       PRIu64 "  max late %s\n",
			       clock == CLOCK_BOOTTIME ? "boottime" : "monotonic",
			       (uint64_t)st.pending, (uint64_t)st.armed,
			       (uint64_t)st.fired, (uint64_t)st.cancelled,
			       (uint64_t)st.rejected,
			       fmt_ns(st.max_lateness_ns, a, sizeof(a)));
			if (k)
				printf("  rates: %.1f fired/s, %.1f armed/s\n",
				       (st.fired - prev.fired) * 1e9 / (t - tprev),
				       (st.armed - prev.armed) * 1e9 / (t - tprev));
			print_hist(st.lateness, "  ");
		}
		fflush(stdout);
		prev = st;
		tprev = t;
		(void)i;
	}
	close(fd);
	return 0;
}

static void top_help(FILE *f)
{
	fprintf(f,
		"usage: hwtimerctl [--json] [--device PATH] COMMAND [ARGS]\n\n"
		"commands:\n"
		"  info                 API handshake, features, parameters, stats\n"
		"  arm DURATION...      arm timeouts and print each expiry and lateness\n"
		"  batch N              arm N timeouts with HWTIMER_IOC_BATCH, report rates\n"
		"  watch                live wheel counters and lateness histogram\n\n"
		"'hwtimerctl COMMAND --help' describes each command.\n"
		"--json prints JSON (one object per line) instead of text.\n");
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			dev_path = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			top_help(stdout);
			exit(0);
		} else {
			top_help(stderr);
			die(2, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		top_help(stderr);
		return 2;
	}
	/* --json is also accepted after the command. */
	for (int k = i + 1; k < argc; k++) {
		if (!strcmp(argv[k], "--json")) {
			json = 1;
			memmove(&argv[k], &argv[k + 1], (argc - k) * sizeof(*argv));
			argc--;
			k--;
		}
	}
	if (!strcmp(argv[i], "info"))
		return cmd_info(argc - i, argv + i);
	if (!strcmp(argv[i], "arm"))
		return cmd_arm(argc - i, argv + i);
	if (!strcmp(argv[i], "batch"))
		return cmd_batch(argc - i, argv + i);
	if (!strcmp(argv[i], "watch"))
		return cmd_watch(argc - i, argv + i);
	top_help(stderr);
	die(2, "unknown command '%s'", argv[i]);
	return 2;
}
