// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimerctl - command-line client of /dev/hwtimer, on libhwtimer.
 *
 *   hwtimerctl [OPTIONS] info
 *   hwtimerctl [OPTIONS] arm [--every D] [--count N] [--cancel I]... DURATION...
 *   hwtimerctl [OPTIONS] batch [--at D] [--spread D] [--chunk K] N
 *   hwtimerctl [OPTIONS] watch [--interval D] [--count N | --once]
 *   hwtimerctl help [COMMAND]
 *   hwtimerctl --version
 *
 * OPTIONS are --json, --device PATH and --backend B, also accepted after
 * the command. --backend picks libhwtimer's backend by its open flags:
 * "device" (/dev/hwtimer, the module), "timerfd" (in this process, no
 * module) or "auto", the library's own choice: the device if it is there,
 * else timerfd. arm and batch run on either; info says what it cannot
 * show without the module; watch reads the module's wheel and needs it.
 * Every command parses all of its arguments before it opens a context, so
 * bad usage never has an effect. Durations are a decimal number and a unit:
 * 10us, 250ms, 1.5s, 2m (also ns, min, h). Counts are digits only.
 * Exit status: 0 success, 1 runtime error, 2 usage error. Messages start
 * with "hwtimerctl: ", or "hwtimerctl COMMAND: " once a command is known.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwtimer/hwtimer.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC	1000000000ULL
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define CTL_VERSION	XSTR(HWTIMER_VERSION_MAJOR) "." \
			XSTR(HWTIMER_VERSION_MINOR) "." \
			XSTR(HWTIMER_VERSION_PATCH)

#define SYSFS_MODULE	"/sys/module/hwtimer"
#define SYSFS_PARAMS	SYSFS_MODULE "/parameters"

/* Exit statuses. */
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/* Values of the long-only options, past every character. */
enum {
	OPT_JSON = 256,
	OPT_DEVICE,
	OPT_BACKEND,
	OPT_EVERY,
	OPT_COUNT,
	OPT_CANCEL,
	OPT_BOOTTIME,
	OPT_AT,
	OPT_SPREAD,
	OPT_CHUNK,
	OPT_INTERVAL,
	OPT_ONCE,
};

/**
 * struct command - one subcommand
 * @name: as typed
 * @args: its synopsis after "hwtimerctl [OPTIONS] NAME"
 * @summary: one line for the command list
 * @help: what it does, for "help NAME"
 * @options: its own options, one "  --opt VALUE  what" line each; NULL
 *	for no options section at all
 * @opts: getopt_long table: its own options, then --json, --device,
 *	--backend and --help, which every command but help takes
 * @run: parses the arguments (argv[0] is @name), does the work and
 *	returns the exit status
 */
struct command {
	const char *name;
	const char *args;
	const char *summary;
	const char *help;
	const char *options;
	const struct option *opts;
	int (*run)(int argc, char **argv);
};

static const char *dev_path = "/dev/hwtimer";
/* --backend: the open flag of libhwtimer it stands for; 0 for auto. */
static unsigned int backend_flag;
static bool json;
/* Command being run, named in messages and usage; NULL before one is. */
static const struct command *cur;

static void print_usage(FILE *f, const struct command *c);

static void vmsg(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "hwtimerctl%s%s: ", cur ? " " : "", cur ? cur->name : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* A message, without exiting. */
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* A runtime error: exit 1. */
static _Noreturn void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(EXIT_RUNTIME);
}

/* Bad usage: the reason, the synopsis on stderr, exit 2. */
static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	print_usage(stderr, cur);
	exit(EXIT_USAGE);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ---- arguments ---- */

/*
 * An unsigned decimal of digits only: no space, sign or base prefix.
 * Return: 0, -EINVAL (not such a number) or -ERANGE (above @max).
 */
static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

/* The value of option or operand @what, in [@min, @max]; exits 2 if not. */
static uint64_t number_arg(const char *what, const char *s, uint64_t min,
			   uint64_t max)
{
	uint64_t v;
	int err = parse_u64(s, max, &v);

	if (err == -EINVAL)
		usage_error("%s '%s': want a whole number (digits only)", what, s);
	if (err)
		usage_error("%s '%s' is out of range: at most %" PRIu64, what, s,
			    max);
	if (v < min)
		usage_error("%s '%s': must be at least %" PRIu64, what, s, min);
	return v;
}

/*
 * A duration: decimal digits, an optional fraction and a unit ("250ms",
 * "1.5s"); "0" alone needs no unit. Return: 0, -EINVAL or -ERANGE.
 */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
		{ "ms", 1000000 }, { "s", NSEC_PER_SEC },
		{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
		{ "h", 3600 * NSEC_PER_SEC },
	};
	uint64_t whole = 0, v;
	double frac = 0, scale = 1;
	size_t i;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *s - '0', &whole))
			return -ERANGE;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++)
			frac += (*s - '0') * (scale /= 10);
	}
	if (!*s) {
		*ns = 0;
		return whole || frac ? -EINVAL : 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(s, units[i].unit))
			continue;
		if (__builtin_mul_overflow(whole, units[i].mul, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(frac * units[i].mul + 0.5),
					   ns))
			return -ERANGE;
		return 0;
	}
	return -EINVAL;
}

static uint64_t duration_arg(const char *what, const char *s)
{
	uint64_t ns;
	int err = parse_duration(s, &ns);

	if (err == -ERANGE)
		usage_error("%s '%s' is too long: at most %" PRIu64 " ns", what, s,
			    UINT64_MAX);
	if (err)
		usage_error("bad %s '%s': want a number and a unit, e.g. 250ms, 1.5s, 2m, 10us",
			    what, s);
	return ns;
}

/* Does long option @o of @opts match "--NAME[=...]" (exactly or a prefix)? */
static int count_matches(const struct option *opts, const char *name,
			 size_t len, const struct option **found)
{
	int n = 0;

	for (; opts->name; opts++) {
		if (strncmp(opts->name, name, len))
			continue;
		*found = opts;
		if (strlen(opts->name) == len)
			return 1;
		n++;
	}
	return n;
}

/*
 * getopt_long returned '?' or ':' (opterr is 0): say why and exit 2.
 * optopt is the short option at fault, or the val of the long one (0 for
 * an unknown or ambiguous long option).
 */
static void option_error(int c, char **argv, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	const struct option *o = NULL;
	size_t len = 0;
	int n = 0;

	if (!strncmp(arg, "--", 2)) {
		len = strcspn(arg + 2, "=");
		n = count_matches(opts, arg + 2, len, &o);
	}
	if (optopt && (n != 1 || o->val != optopt)) {
		if (c == ':')
			usage_error("option '-%c' needs a value", optopt);
		usage_error("unknown option '-%c'", optopt);
	}
	if (n == 1 && c == ':')
		usage_error("option '--%s' needs a value", o->name);
	if (n == 1 && arg[2 + len] == '=')
		usage_error("option '--%s' takes no value", o->name);
	if (n > 1)
		usage_error("option '%.*s' is ambiguous", (int)len + 2, arg);
	usage_error("unknown option '%s'", arg);
}

/*
 * Take @c, one of the options accepted before and after the command:
 * --json, --device, --backend, or --help (the usage of the current
 * command, or of hwtimerctl before one is chosen, then exit 0).
 */
static void take_common_option(int c)
{
	switch (c) {
	case OPT_JSON:
		json = true;
		break;
	case OPT_DEVICE:
		if (!*optarg)
			usage_error("--device: empty path");
		dev_path = optarg;
		break;
	case OPT_BACKEND:
		if (!strcmp(optarg, "device"))
			backend_flag = HWTIMER_OPEN_DEVICE;
		else if (!strcmp(optarg, "timerfd"))
			backend_flag = HWTIMER_OPEN_TIMERFD;
		else if (!strcmp(optarg, "auto"))
			backend_flag = 0;
		else
			usage_error("--backend '%s': want device, timerfd or auto",
				    optarg);
		break;
	case 'h':
		print_usage(stdout, cur);
		exit(0);
	}
}

/*
 * The next option of the current command's own, getopt_long style; the
 * common ones (--json, --device, --backend, --help) are handled here,
 * errors exit 2.
 */
static int next_option(int argc, char **argv, const struct option *opts)
{
	int c;

	for (;;) {
		c = getopt_long(argc, argv, ":h", opts, NULL);
		switch (c) {
		case OPT_JSON:
		case OPT_DEVICE:
		case OPT_BACKEND:
		case 'h':
			take_common_option(c);
			break;
		case '?':
		case ':':
			option_error(c, argv, opts);
			break;
		default:
			return c;
		}
	}
}

/* ---- output ---- */

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

/*
 * JSON, one top-level object per line, written as it goes: js_begin()
 * and js_end() open and close objects and arrays, and each value is
 * preceded by a comma when it is not the first at its depth.
 */
static struct {
	int depth;		/* objects and arrays open */
	bool comma[8];		/* a value was written at this depth */
} js;

static void js_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* Separator and key (NULL in arrays) before a value. */
static void js_key(const char *key)
{
	if (js.comma[js.depth])
		fputs(", ", stdout);
	js.comma[js.depth] = true;
	if (key) {
		js_string(key);
		fputs(": ", stdout);
	}
}

static void js_begin(const char *key, char open)
{
	if (js.depth)
		js_key(key);
	putchar(open);
	js.comma[++js.depth] = false;
}

static void js_end(char close)
{
	putchar(close);
	if (!--js.depth) {
		putchar('\n');
		js.comma[0] = false;
	}
}

static void js_u64(const char *key, uint64_t v)
{
	js_key(key);
	printf("%" PRIu64, v);
}

/*
 * An id, as a string of its decimal digits: ids reach 2^64, and JSON
 * readers that keep numbers as doubles (jq, JavaScript) round those
 * past 2^53.
 */
static void js_id(const char *key, uint64_t id)
{
	js_key(key);
	printf("\"%" PRIu64 "\"", id);
}

static void js_real(const char *key, double v)
{
	js_key(key);
	printf("%.1f", v);
}

static void js_str(const char *key, const char *s)
{
	js_key(key);
	js_string(s);
}

/* A sysfs value: a number, a boolean (Y/N) or else a string. */
static void js_sysfs(const char *key, const char *s)
{
	uint64_t v;

	if (!parse_u64(s, UINT64_MAX, &v)) {
		js_u64(key, v);
	} else if (!strcmp(s, "Y") || !strcmp(s, "N")) {
		js_key(key);
		fputs(*s == 'Y' ? "true" : "false", stdout);
	} else {
		js_str(key, s);
	}
}

/* Lateness histogram: one bar per non-empty log2 bucket. */
static void print_hist(const __u64 *h, const char *indent)
{
	static const char bars[] = "########################################";
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
			       fmt_ns(lo, a, sizeof(a)), (uint64_t)h[i], bar, bars);
		else
			printf("%s  %10s .. %-10s %10" PRIu64 " %.*s\n", indent,
			       fmt_ns(lo, a, sizeof(a)),
			       fmt_ns(i ? 1ULL << i : 0, b, sizeof(b)),
			       (uint64_t)h[i], bar, bars);
	}
}

/*
 * One printer for text and JSON: each piece of output is described once,
 * by its JSON key and its text, a printf format of its value. With --json
 * it is a member of the object being written, else its text is printed.
 * A NULL key leaves a piece out of the JSON, a NULL format out of the text.
 */

/* Open an object or array named @key, or print its text heading @fmt. */
static void out_begin(const char *key, char open, const char *fmt, ...)
{
	va_list ap;

	if (json) {
		js_begin(key, open);
	} else if (fmt) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
}

/* Close what out_begin() opened; the text needs no closing. */
static void out_end(char close)
{
	if (json)
		js_end(close);
}

/* Text that has no JSON counterpart. */
static void out_text(const char *fmt, ...)
{
	va_list ap;

	if (json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static void put_u64(const char *key, const char *fmt, uint64_t v)
{
	if (json && key)
		js_u64(key, v);
	else if (!json && fmt)
		printf(fmt, v);
}

/* An id: a string in JSON (js_id()), @fmt's number in the text. */
static void put_id(const char *key, const char *fmt, uint64_t id)
{
	if (json && key)
		js_id(key, id);
	else if (!json && fmt)
		printf(fmt, id);
}

/* A duration: nanoseconds in JSON, "1.234 ms" style in the text. */
static void put_ns(const char *key, const char *fmt, uint64_t ns)
{
	char b[32];

	if (json && key)
		js_u64(key, ns);
	else if (!json && fmt)
		printf(fmt, fmt_ns(ns, b, sizeof(b)));
}

/* A real number, to one decimal in JSON. */
static void put_real(const char *key, const char *fmt, double v)
{
	if (json && key)
		js_real(key, v);
	else if (!json && fmt)
		printf(fmt, v);
}

static void put_str(const char *key, const char *fmt, const char *s)
{
	if (json && key)
		js_str(key, s);
	else if (!json && fmt)
		printf(fmt, s);
}

/* One string of an array. */
static void put_item(const char *fmt, const char *s)
{
	if (json)
		js_str(NULL, s);
	else
		printf(fmt, s);
}

/* A sysfs value named @key, typed in JSON; an aligned line of text. */
static void put_sysfs(const char *key, const char *s)
{
	if (json)
		js_sysfs(key, s);
	else
		printf("  %-18s %s\n", key, s);
}

/* A lateness histogram: an array of the buckets, or bars in the text. */
static void put_hist(const char *key, const __u64 *h)
{
	int i;

	if (!json) {
		print_hist(h, "  ");
	} else if (key) {
		js_begin(key, '[');
		for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
			js_u64(NULL, h[i]);
		js_end(']');
	}
}

/* ---- the device ---- */

/* First line of a sysfs file into @buf; false if it cannot be read. */
static bool read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static bool read_param(const char *name, char *buf, size_t len)
{
	char path[sizeof(SYSFS_PARAMS "/") + NAME_MAX];

	snprintf(path, sizeof(path), SYSFS_PARAMS "/%s", name);
	return read_sysfs(path, buf, len);
}

/*
 * Open dev_path and shake hands, with a submission queue of @sq ops and
 * the library's open @flags besides HWTIMER_OPEN_DEVICE. A command that
 * only reads counters passes HWTIMER_OPEN_BATCH: the timer rings would
 * arm their periodic drain on the wheel whose counters it prints.
 * Return: the context, or NULL with the reason in hwtimer_open_error().
 */
static struct hwtimer *try_open_dev(unsigned int sq, unsigned int flags)
{
	struct hwtimer *h;

	if (hwtimer_open_path(&h, dev_path, sq, HWTIMER_OPEN_DEVICE | flags))
		return NULL;
	return h;
}

/*
 * Errors of opening the device after which libhwtimer's auto choice
 * takes the timerfd backend (no module, no right to it, a module that
 * would get this process's clocks wrong): --backend timerfd would serve.
 */
static bool device_unusable(int err)
{
	return err == ENOENT || err == ENODEV || err == ENXIO ||
	       err == EACCES || err == EPERM || err == EXDEV;
}

/*
 * A context on the backend of --backend, with a submission queue of @sq
 * ops and the library's open @flags besides the backend's (see
 * try_open_dev()); exits 1 if it cannot be had. A device that cannot be
 * used with --backend device is named with the alternative.
 */
static struct hwtimer *open_ctx(unsigned int sq, unsigned int flags)
{
	struct hwtimer *h;
	int err = -hwtimer_open_path(&h, dev_path, sq, backend_flag | flags);

	if (!err)
		return h;
	note("%s", hwtimer_open_error());
	if (backend_flag == HWTIMER_OPEN_DEVICE && device_unusable(err))
		note("--backend timerfd (or auto) runs %s without the hwtimer module",
		     cur->name);
	exit(EXIT_RUNTIME);
}

/* Whether @h runs on the timerfd backend, in this process. */
static bool on_timerfd(const struct hwtimer *h)
{
	return !strcmp(hwtimer_backend(h), "timerfd");
}

/*
 * Why @h, on the timerfd backend, does not use the device: asked for,
 * or the library's reason for falling back.
 */
static const char *timerfd_reason(void)
{
	return backend_flag == HWTIMER_OPEN_TIMERFD ? "--backend timerfd" :
	       hwtimer_open_error();
}

/*
 * The text's note that @h runs without the module, on its own line
 * after @prefix; nothing on the device, whose output is as it was.
 */
static void print_backend_note(const struct hwtimer *h, const char *prefix)
{
	if (on_timerfd(h))
		out_text("%stimerfd (%s)\n", prefix, timerfd_reason());
}

static void get_stats(struct hwtimer *h, uint32_t clock,
		      struct hwtimer_stats_req *st)
{
	int err = hwtimer_stats(h, clock, st);

	if (err)
		fail("HWTIMER_IOC_STATS: %s", strerror(-err));
}

/*
 * Explain an arm that failed with @err after @armed of @want succeeded
 * on @h: which cap was reached, its value and how to raise it.
 */
static void explain_arm_failure(struct hwtimer *h, int err, uint64_t armed,
				uint64_t want)
{
	struct hwtimer_stats_req st;
	uint64_t cap;
	char v[64];

	note("armed %" PRIu64 " of %" PRIu64 " timeouts, then: %s", armed, want,
	     strerror(err));
	if (on_timerfd(h)) {
		get_stats(h, CLOCK_MONOTONIC, &st);
		if (err == ENOSPC)
			note("the timerfd backend's cap was reached: %" PRIu64
			     " live timeouts per context, fixed (the module's is ctx_max_pending)",
			     (uint64_t)st.ctx_max_pending);
		return;
	}
	if (err == EDQUOT) {
		if (!read_param("max_user_timeouts", v, sizeof(v)) ||
		    parse_u64(v, UINT64_MAX, &cap)) {
			note("the per-user cap was reached: max_user_timeouts, for all of this user's open %s files together",
			     dev_path);
			note("raise it in " SYSFS_PARAMS "/max_user_timeouts");
			return;
		}
		note("the per-user cap was reached: max_user_timeouts is %" PRIu64
		     ", for all of this user's open %s files together", cap,
		     dev_path);
		note("raise it with: echo %" PRIu64 " > " SYSFS_PARAMS
		     "/max_user_timeouts", cap + (want - armed));
		return;
	}
	if (err != ENOSPC)
		return;
	get_stats(h, CLOCK_MONOTONIC, &st);
	if (st.ctx_live >= st.ctx_max_pending) {
		note("the per-context cap was reached: ctx_max_pending is %" PRIu64
		     " live timeouts for one open %s", (uint64_t)st.ctx_max_pending,
		     dev_path);
		note("raise it with: echo %" PRIu64 " > " SYSFS_PARAMS
		     "/ctx_max_pending", want > st.ctx_max_pending ? want :
		     (uint64_t)st.ctx_max_pending * 2);
		return;
	}
	if (!read_param("max_pending", v, sizeof(v)))
		strcpy(v, "?");
	note("the wheel's cap was reached: max_pending is %s timeouts of all users",
	     v);
	note("it is set when the module is loaded: modprobe hwtimer max_pending=N (0: no cap)");
}

/* ---- info ---- */

static const char * const feature_names[] = {
	"periodic", "boottime", "batch", "eventfd", "rings", "timens",
	"realtime", "cancel-on-set", "batch-cancel-on-set",
};

static int not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every module parameter: "name value" lines, or a JSON object. */
static void print_params(void)
{
	struct dirent **names;
	char v[256];
	int i, n;

	n = scandir(SYSFS_PARAMS, &names, not_hidden, alphasort);
	out_begin("params", '{', "module parameters:%s\n",
		  n < 0 ? " not readable" : "");
	for (i = 0; i < n; i++) {
		if (read_param(names[i]->d_name, v, sizeof(v)))
			put_sysfs(names[i]->d_name, v);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	out_end('}');
}

/* One wheel's counters: a block of text headed @title, or object @key. */
static void print_wheel(const char *key, const char *title,
			const struct hwtimer_stats_req *st)
{
	out_begin(key, '{', "%s wheel:\n", title);
	put_ns("tick_ns", "  tick             %s\n", st->tick_ns);
	put_u64("pending", "  pending          %" PRIu64 "\n", st->pending);
	put_u64("armed", "  armed            %" PRIu64 "\n", st->armed);
	put_u64("fired", "  fired            %" PRIu64 "\n", st->fired);
	put_u64("cancelled", "  cancelled        %" PRIu64 "\n",
		st->cancelled);
	put_u64("rejected", "  rejected         %" PRIu64 "\n", st->rejected);
	put_u64("hrtimer_fires", "  hrtimer fires    %" PRIu64 "\n",
		st->hrtimer_fires);
	put_ns("max_lateness_ns", "  max lateness     %s\n",
	       st->max_lateness_ns);
	put_hist("lateness_log2", st->lateness);
	out_end('}');
}

/* The handshake's answer (or the timerfd backend's), after the first line. */
static void print_api(const char *backend, const struct hwtimer_api *api)
{
	unsigned int i;

	put_str("backend", "backend:  %s\n", backend);
	out_begin("features", '[', "features:");
	for (i = 0; i < ARRAY_SIZE(feature_names); i++)
		if (api->features & (1ULL << i))
			put_item(" %s", feature_names[i]);
	out_end(']');
	put_u64("ioctls", "\nioctls:   %#" PRIx64 "\n", api->ioctls);
	put_u64("tick_ns", NULL, api->tick_ns);
	put_u64("max_pending",
		"per-open cap: %" PRIu64 " timeouts; minimum period one tick\n",
		api->max_pending);
	put_u64("event_size", NULL, api->event_size);
}

static void print_info(const struct hwtimer_api *api, const char *version,
		       const struct hwtimer_stats_req *mono,
		       const struct hwtimer_stats_req *boot)
{
	out_begin(NULL, '{', NULL);
	put_str("device", "%s: ", dev_path);
	put_str("module_version", "module %s, ", version);
	put_u64("api", "API %" PRIu64, api->api);
	/* The text gives the record's size here, JSON at the end. */
	put_u64(NULL, ", event record %" PRIu64 " bytes\n", api->event_size);
	print_api("device", api);
	print_params();
	print_wheel("monotonic", "CLOCK_MONOTONIC", mono);
	print_wheel("boottime", "CLOCK_BOOTTIME", boot);
	out_end('}');
}

/*
 * info on the timerfd backend: what it answers, why the device is not
 * used, and what only the module has: its version, parameters and wheels.
 */
static void print_info_timerfd(const struct hwtimer_api *api)
{
	static const char * const missing[] = {
		"module_version", "params", "monotonic", "boottime",
	};
	unsigned int i;

	out_begin(NULL, '{', NULL);
	put_str("device", NULL, dev_path);
	put_str("device_not_used", NULL, timerfd_reason());
	put_u64("api", "timerfd backend: API %" PRIu64, api->api);
	put_u64(NULL, ", event record %" PRIu64 " bytes\n", api->event_size);
	print_api("timerfd", api);
	put_str(NULL, "device:   not used: %s\n", timerfd_reason());
	if (json) {
		js_begin("unavailable", '[');
		for (i = 0; i < ARRAY_SIZE(missing); i++)
			js_str(NULL, missing[i]);
		js_end(']');
	}
	out_text("module version, parameters and wheel counters: not available without the hwtimer module (--backend device)\n");
	out_end('}');
}

static int cmd_info(int argc, char **argv)
{
	struct hwtimer_stats_req mono, boot;
	struct hwtimer_api api;
	struct hwtimer *h;
	char version[64];

	optind = 0;
	while (next_option(argc, argv, cur->opts) != -1)
		;
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	h = open_ctx(0, HWTIMER_OPEN_BATCH);
	hwtimer_get_api(h, &api);
	if (on_timerfd(h)) {
		print_info_timerfd(&api);
		hwtimer_close(h);
		return 0;
	}
	get_stats(h, CLOCK_MONOTONIC, &mono);
	get_stats(h, CLOCK_BOOTTIME, &boot);
	if (!read_sysfs(SYSFS_MODULE "/version", version, sizeof(version)))
		strcpy(version, "unknown");
	print_info(&api, version, &mono, &boot);
	hwtimer_close(h);
	return 0;
}

/* ---- arm ---- */

/**
 * struct arm_args - what arm was asked to do
 * @n: timeouts, one per DURATION (one for --every alone)
 * @after: first expiry of each, relative
 * @cancel: cancel[i] set: cancel timeout i right after arming
 * @every: period, 0 for one-shots
 * @count: expiries of each periodic timeout before it is cancelled
 * @clock: CLOCK_MONOTONIC or CLOCK_BOOTTIME
 */
struct arm_args {
	int n;
	uint64_t *after;
	bool *cancel;
	uint64_t every;
	uint64_t count;
	uint32_t clock;
};

/**
 * struct armed - one timeout of arm, as it runs
 * @id: from hwtimer_arm()
 * @t_arm: when it was armed (just before the call), on its clock
 * @seen: expiries read, overruns included
 * @done: cancelled, or its last expiry read
 */
struct armed {
	uint64_t id;
	uint64_t t_arm;
	uint64_t seen;
	bool done;
};

static void arm_parse(int argc, char **argv, struct arm_args *a)
{
	uint64_t *cancel = calloc(argc, sizeof(*cancel));
	bool count_given = false;
	int c, i, ncancel = 0;

	if (!cancel)
		fail("out of memory");
	*a = (struct arm_args){ .count = 5, .clock = CLOCK_MONOTONIC };
	optind = 0;
	while ((c = next_option(argc, argv, cur->opts)) != -1) {
		switch (c) {
		case OPT_EVERY:
			a->every = duration_arg("--every", optarg);
			if (!a->every)
				usage_error("--every must be more than 0");
			break;
		case OPT_COUNT:
			a->count = number_arg("--count", optarg, 1, UINT64_MAX);
			count_given = true;
			break;
		case OPT_CANCEL:
			cancel[ncancel++] = number_arg("--cancel", optarg, 1,
						       UINT64_MAX);
			break;
		case OPT_BOOTTIME:
			a->clock = CLOCK_BOOTTIME;
			break;
		}
	}
	a->n = argc - optind;
	if (!a->n && !a->every)
		usage_error("give at least one DURATION, or --every");
	if (count_given && !a->every)
		usage_error("--count counts the expiries of periodic timeouts: add --every");
	if (!a->n)
		a->n = 1;
	a->after = calloc(a->n, sizeof(*a->after));
	a->cancel = calloc(a->n, sizeof(*a->cancel));
	if (!a->after || !a->cancel)
		fail("out of memory");
	for (i = 0; i < a->n; i++)
		a->after[i] = optind + i < argc ?
			duration_arg("DURATION", argv[optind + i]) : a->every;
	for (i = 0; i < ncancel; i++) {
		if (cancel[i] > (uint64_t)a->n)
			usage_error("--cancel %" PRIu64 ": there %s only %d timeout%s to cancel",
				    cancel[i], a->n == 1 ? "is" : "are", a->n,
				    a->n == 1 ? "" : "s");
		a->cancel[cancel[i] - 1] = true;
	}
	free(cancel);
}

/*
 * Start the line of @event for timeout @i (from 0) of arm, whose id the
 * text shows in @id_fmt when that is not NULL.
 */
static void begin_event(const char *event, int i, const char *id_fmt,
			uint64_t id)
{
	out_begin(NULL, '{', NULL);
	put_str("event", "%-9s", event);
	put_u64("n", "#%" PRIu64, i + 1);
	put_id("id", id_fmt, id);
}

static void end_event(void)
{
	out_text("\n");
	out_end('}');
}

/* Timeout @i armed on @h; JSON names the backend, as the text's header. */
static void print_armed(const struct hwtimer *h, int i, uint64_t id,
			uint64_t after, uint64_t every)
{
	begin_event("armed", i, "  id %#" PRIx64, id);
	put_ns("after_ns", "  in %s", after);
	put_ns("period_ns", every ? ", every %s" : NULL, every);
	put_str("backend", NULL, hwtimer_backend(h));
	end_event();
}

static void print_cancelled(int i, uint64_t id, uint32_t result)
{
	bool stopped = result == HWTIMER_RESULT_CANCELLED;

	begin_event("cancel", i, "  id %#" PRIx64, id);
	/* JSON names the outcome, the text says what it means. */
	put_str("result", NULL, stopped ? "cancelled" : "fired");
	out_text("  -> %s",
		 stopped ? "cancelled before firing" : "already fired");
	end_event();
}

/*
 * One expiry of timeout @i, taken at @rd; @t0 is when it was armed. "at"
 * is when it fired and "late" how long after its deadline, both from the
 * kernel; as the deadline is at least the DURATION after @t0, "at" is at
 * least the DURATION plus "late".
 */
static void print_fired(int i, const struct hwtimer_event *ev, uint64_t t0,
			uint64_t rd)
{
	uint64_t late = ev->fire_ns - ev->deadline_ns;
	uint64_t at = ev->fire_ns - t0, read = rd - t0;

	begin_event("fired", i, NULL, ev->id);
	put_u64("deadline_ns", NULL, ev->deadline_ns);
	put_u64("fire_ns", NULL, ev->fire_ns);
	/* The text has "at" and "read" around "late", JSON has them last. */
	put_ns(NULL, "  at +%s", at);
	put_ns("late_ns", "  late %s", late);
	put_ns(NULL, "  read +%s", read);
	put_u64("delivered_ns", NULL, rd - ev->deadline_ns);
	put_u64("overruns", ev->overruns ? "  (+%" PRIu64 " overruns)" : NULL,
		ev->overruns);
	put_u64("due_ns", NULL, ev->deadline_ns - t0);
	put_u64("at_ns", NULL, at);
	put_u64("read_ns", NULL, read);
	end_event();
}

/* Arm every timeout of @a on @h; exits on failure. */
static void arm_all(struct hwtimer *h, const struct arm_args *a,
		    struct armed *tm)
{
	char b[32];
	int i, err;

	for (i = 0; i < a->n; i++) {
		tm[i].t_arm = now_ns(a->clock);
		err = -hwtimer_arm(h, a->clock, a->after[i], a->every, 0, i + 1,
				   &tm[i].id);
		if (err == ENOSPC || err == EDQUOT) {
			explain_arm_failure(h, err, i, a->n);
			exit(EXIT_RUNTIME);
		}
		if (err)
			fail("arm #%d (in %s): %s%s", i + 1,
			     fmt_ns(a->after[i], b, sizeof(b)), strerror(err),
			     err == EINVAL && a->every ?
			     " (is the period at least one tick?)" : "");
		print_armed(h, i, tm[i].id, a->after[i], a->every);
	}
}

/* Cancel the timeouts asked for; return how many are left to wait for. */
static int cancel_asked(struct hwtimer *h, const struct arm_args *a,
			struct armed *tm)
{
	int i, r, left = a->n;

	for (i = 0; i < a->n; i++) {
		if (!a->cancel[i])
			continue;
		r = hwtimer_cancel(h, tm[i].id);
		if (r < 0)
			fail("cancel #%d: %s", i + 1, strerror(-r));
		print_cancelled(i, tm[i].id, r);
		if (r == HWTIMER_RESULT_CANCELLED) {
			tm[i].done = true;
			left--;
		}
	}
	return left;
}

/* Take and print expiries until @left timeouts are done. */
static void wait_expiries(struct hwtimer *h, const struct arm_args *a,
			  struct armed *tm, int left)
{
	const struct hwtimer_event *ev;
	uint64_t rd;
	int i, r;

	while (left > 0) {
		r = hwtimer_wait(h, &ev, -1);
		rd = now_ns(a->clock);
		if (r == -EINTR)
			continue;
		if (r)
			fail("wait: %s", strerror(-r));
		i = (int)ev->cookie - 1;
		if (i >= 0 && i < a->n && !tm[i].done) {
			tm[i].seen += 1 + ev->overruns;
			print_fired(i, ev, tm[i].t_arm, rd);
			if (!a->every || tm[i].seen >= a->count) {
				if (a->every)
					hwtimer_cancel(h, tm[i].id);
				tm[i].done = true;
				left--;
			}
		}
		hwtimer_seen(h);
	}
}

static int cmd_arm(int argc, char **argv)
{
	struct arm_args a;
	struct hwtimer *h;
	struct armed *tm;

	arm_parse(argc, argv, &a);
	tm = calloc(a.n, sizeof(*tm));
	if (!tm)
		fail("out of memory");
	h = open_ctx(0, 0);
	print_backend_note(h, "backend  ");
	arm_all(h, &a, tm);
	wait_expiries(h, &a, tm, cancel_asked(h, &a, tm));
	hwtimer_close(h);
	free(tm);
	free(a.after);
	free(a.cancel);
	return 0;
}

/* ---- batch ---- */

/**
 * struct batch_args - what batch was asked to do
 * @n: one-shot timeouts
 * @at: first deadline, from the start
 * @spread: deadlines spread evenly over this after @at
 * @chunk: ops per submission (one HWTIMER_IOC_BATCH call without rings)
 */
struct batch_args {
	uint64_t n;
	uint64_t at;
	uint64_t spread;
	uint64_t chunk;
};

/**
 * struct batch_result - what batch measured
 * @t0: start (CLOCK_MONOTONIC)
 * @armed: when the last arm returned
 * @drained: when the last event was taken
 * @max_late: largest lateness of an event
 * @sum_late: sum of the events' lateness
 */
struct batch_result {
	uint64_t t0;
	uint64_t armed;
	uint64_t drained;
	uint64_t max_late;
	double sum_late;
};

static void batch_parse(int argc, char **argv, struct batch_args *a)
{
	uint64_t end;
	int c;

	*a = (struct batch_args){
		.at = 100000000ULL, .spread = 100000000ULL, .chunk = 4096,
	};
	optind = 0;
	while ((c = next_option(argc, argv, cur->opts)) != -1) {
		switch (c) {
		case OPT_AT:
			a->at = duration_arg("--at", optarg);
			break;
		case OPT_SPREAD:
			a->spread = duration_arg("--spread", optarg);
			break;
		case OPT_CHUNK:
			a->chunk = number_arg("--chunk", optarg, 1,
					      HWTIMER_BATCH_MAX);
			break;
		}
	}
	if (optind == argc)
		usage_error("give the number of timeouts N");
	if (argc - optind > 1)
		usage_error("unexpected argument '%s'", argv[optind + 1]);
	a->n = number_arg("N", argv[optind], 1, UINT32_MAX);
	if (__builtin_add_overflow(a->at, a->spread, &end) ||
	    __builtin_add_overflow(end, now_ns(CLOCK_MONOTONIC), &end))
		usage_error("--at plus --spread is too long");
}

/* Deadline of timeout @i of @a when the first is due at @base. */
static uint64_t batch_deadline(const struct batch_args *a, uint64_t base,
			       uint64_t i)
{
	uint64_t q, r;

	if (a->n < 2)
		return base;
	/* spread * i / (n - 1) without overflow: i < n < 2^32. */
	q = a->spread / (a->n - 1);
	r = a->spread % (a->n - 1);
	return base + q * i + r * i / (a->n - 1);
}

/*
 * Arm the timeouts of @a, @a->chunk per submission (the queue's size, so
 * one BATCH call each without rings), stopping after the first submission
 * in which one failed: the cap or error is explained, exit 1.
 */
static void batch_arm(struct hwtimer *h, const struct batch_args *a,
		      uint64_t base, struct hwtimer_result *res)
{
	uint64_t i, k, m, ok, bad;
	int r;

	for (i = 0; i < a->n; i += m) {
		m = a->n - i < a->chunk ? a->n - i : a->chunk;
		for (k = 0; k < m; k++) {
			r = hwtimer_prep_arm(h, CLOCK_MONOTONIC,
					     batch_deadline(a, base, i + k), 0,
					     HWTIMER_ARM_ABS, i + k, &res[k]);
			if (r)
				fail("queue arm: %s", strerror(-r));
		}
		r = hwtimer_submit(h);
		if (r < 0)
			fail("submit: %s", strerror(-r));
		for (k = 0, ok = i, bad = m; k < m; k++) {
			if (!res[k].status)
				ok++;
			else if (bad == m)
				bad = k;
		}
		if (bad < m) {
			explain_arm_failure(h, -res[bad].status, ok, a->n);
			exit(EXIT_RUNTIME);
		}
	}
}

/* Take the @n events, gathering their lateness into @res. */
static void batch_drain(struct hwtimer *h, uint64_t n, struct batch_result *res)
{
	const struct hwtimer_event *ev;
	uint64_t got = 0, late;
	int r;

	while (got < n) {
		r = hwtimer_wait(h, &ev, -1);
		if (r == -EINTR)
			continue;
		if (r)
			fail("wait: %s", strerror(-r));
		late = hwtimer_event_late_ns(ev);
		if (late > res->max_late)
			res->max_late = late;
		res->sum_late += late;
		hwtimer_seen(h);
		got++;
	}
}

static void print_batch(const struct hwtimer *h, const struct batch_args *a,
			const struct batch_result *res)
{
	uint64_t base = res->t0 + a->at;
	/* Events come out no faster than the deadlines allow. */
	uint64_t from = base > res->armed ? base : res->armed;
	uint64_t arm_ns = res->armed - res->t0, drain_ns = res->drained - from;
	double arm_rate = a->n * 1e9 / (double)(arm_ns ?: 1);
	double ev_rate = a->n * 1e9 / (double)(drain_ns ?: 1);
	double avg_late = res->sum_late / a->n;

	out_begin(NULL, '{', NULL);
	/* The text names the timerfd backend in its first line, if on it. */
	put_str("backend", NULL, hwtimer_backend(h));
	print_backend_note(h, "batch: backend ");
	put_u64("n", "batch: armed %" PRIu64 " timeouts in ", a->n);
	/* JSON has the chunk before the time, the text after. */
	put_u64("chunk", NULL, a->chunk);
	put_ns("arm_ns", "%s, ", arm_ns);
	put_u64(NULL, "%" PRIu64 " ops per submission: ", a->chunk);
	put_real("arm_per_sec", "%.0f arms/s\n", arm_rate);
	put_ns(NULL, "batch: deadlines over %s", a->spread);
	put_ns(NULL, " from +%s", a->at);
	put_u64(NULL, "; all %" PRIu64 " read ", a->n);
	put_ns("drain_ns", "%s after the first was due\n", drain_ns);
	if (res->armed > base)
		put_ns(NULL, "batch: note: arming outlasted --at by %s, so those deadlines\n"
		       "       had passed when armed; use a larger --at\n",
		       res->armed - base);
	put_real("events_per_sec", "batch: %.0f events/s read; ", ev_rate);
	put_ns("max_late_ns", "lateness max %s, ", res->max_late);
	/* A mean to a tenth of a nanosecond in JSON, as a duration in text. */
	put_real("avg_late_ns", NULL, avg_late);
	put_ns(NULL, "mean %s\n", (uint64_t)avg_late);
	out_end('}');
}

static int cmd_batch(int argc, char **argv)
{
	struct batch_result res = { 0 };
	struct hwtimer_result *ops;
	struct batch_args a;
	struct hwtimer *h;

	batch_parse(argc, argv, &a);
	ops = calloc(a.chunk, sizeof(*ops));
	if (!ops)
		fail("out of memory");
	h = open_ctx((unsigned int)a.chunk, 0);
	res.t0 = now_ns(CLOCK_MONOTONIC);
	batch_arm(h, &a, res.t0 + a.at, ops);
	res.armed = now_ns(CLOCK_MONOTONIC);
	batch_drain(h, a.n, &res);
	res.drained = now_ns(CLOCK_MONOTONIC);
	print_batch(h, &a, &res);
	hwtimer_close(h);
	free(ops);
	return 0;
}

/* ---- watch ---- */

/**
 * struct watch_args - what watch was asked to do
 * @interval: between samples
 * @count: samples, 0 until interrupted
 * @clock: the wheel: CLOCK_MONOTONIC or CLOCK_BOOTTIME
 */
struct watch_args {
	uint64_t interval;
	uint64_t count;
	uint32_t clock;
};

static void watch_parse(int argc, char **argv, struct watch_args *a)
{
	int c;

	*a = (struct watch_args){
		.interval = NSEC_PER_SEC, .clock = CLOCK_MONOTONIC,
	};
	optind = 0;
	while ((c = next_option(argc, argv, cur->opts)) != -1) {
		switch (c) {
		case OPT_INTERVAL:
			a->interval = duration_arg("--interval", optarg);
			if (!a->interval)
				usage_error("--interval must be more than 0");
			break;
		case OPT_COUNT:
			a->count = number_arg("--count", optarg, 0, UINT64_MAX);
			if (!a->count)
				usage_error("--count 0: must be at least 1 (leave --count out to sample until interrupted)");
			break;
		case OPT_ONCE:
			a->count = 1;
			break;
		case OPT_BOOTTIME:
			a->clock = CLOCK_BOOTTIME;
			break;
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (backend_flag == HWTIMER_OPEN_TIMERFD)
		usage_error("the timerfd backend has no wheel: watch reads the hwtimer module's (--backend device or auto)");
}

/*
 * The device for watch, whatever --backend says (auto or device): the
 * counters it prints are the module's wheel's. Exits 1 without it.
 */
static struct hwtimer *open_wheel(void)
{
	struct hwtimer *h = try_open_dev(0, HWTIMER_OPEN_BATCH);
	int err = errno;

	if (h)
		return h;
	note("%s", hwtimer_open_error());
	if (device_unusable(err))
		note("watch reads the wheel counters of the hwtimer module: it needs the module (the timerfd backend has no wheel)");
	exit(EXIT_RUNTIME);
}

/*
 * Sample @k (from 0) taken at @t; @prev, taken at @tprev, gives the rates
 * from the second sample on.
 */
static void print_sample(const struct watch_args *a, uint64_t k, uint64_t t,
			 const struct hwtimer_stats_req *st,
			 const struct hwtimer_stats_req *prev, uint64_t tprev)
{
	double fired = k ? (st->fired - prev->fired) * 1e9 / (t - tprev) : 0;
	double armed = k ? (st->armed - prev->armed) * 1e9 / (t - tprev) : 0;
	char b[32];

	out_begin(NULL, '{', NULL);
	put_u64("sample", NULL, k);
	put_u64("t_ns", NULL, t);
	/* JSON has the whole wheel, the text a line of its main counters. */
	if (json)
		print_wheel("wheel", NULL, st);
	else
		printf("%s wheel: pending %" PRIu64 "  armed %" PRIu64
		       "  fired %" PRIu64 "  cancelled %" PRIu64
		       "  rejected %" PRIu64 "  max late %s\n",
		       a->clock == CLOCK_BOOTTIME ? "boottime" : "monotonic",
		       (uint64_t)st->pending, (uint64_t)st->armed,
		       (uint64_t)st->fired, (uint64_t)st->cancelled,
		       (uint64_t)st->rejected,
		       fmt_ns(st->max_lateness_ns, b, sizeof(b)));
	if (k) {
		put_real("fired_per_sec", "  rates: %.1f fired/s", fired);
		put_real("armed_per_sec", ", %.1f armed/s\n", armed);
	}
	put_hist(NULL, st->lateness);
	out_end('}');
}

static int cmd_watch(int argc, char **argv)
{
	struct hwtimer_stats_req st, prev = { 0 };
	struct watch_args a;
	struct timespec ts;
	uint64_t k, t, tprev = 0;
	struct hwtimer *h;

	watch_parse(argc, argv, &a);
	ts.tv_sec = a.interval / NSEC_PER_SEC;
	ts.tv_nsec = a.interval % NSEC_PER_SEC;
	h = open_wheel();
	for (k = 0; !a.count || k < a.count; k++) {
		if (k)
			nanosleep(&ts, NULL);
		get_stats(h, a.clock, &st);
		t = now_ns(CLOCK_MONOTONIC);
		print_sample(&a, k, t, &st, &prev, tprev);
		prev = st;
		tprev = t;
	}
	hwtimer_close(h);
	return 0;
}

/* ---- help, version ---- */

static int cmd_help(int argc, char **argv);

static const struct option info_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option arm_opts[] = {
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "cancel", required_argument, NULL, OPT_CANCEL },
	{ "boottime", no_argument, NULL, OPT_BOOTTIME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option batch_opts[] = {
	{ "at", required_argument, NULL, OPT_AT },
	{ "spread", required_argument, NULL, OPT_SPREAD },
	{ "chunk", required_argument, NULL, OPT_CHUNK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option watch_opts[] = {
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "boottime", no_argument, NULL, OPT_BOOTTIME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option help_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct command commands[] = {
	{
		.name = "info",
		.args = "",
		.summary = "backend, API handshake, features, parameters, stats",
		.help =
"Shake hands with the device and print the module version, API, features,\n"
"ioctls, module parameters and the counters and lateness histogram of\n"
"both wheels. On the timerfd backend: its API, features and cap, why the\n"
"device is not used, and that the module's parameters and wheels are not\n"
"available.\n",
		.options = "",
		.opts = info_opts,
		.run = cmd_info,
	}, {
		.name = "arm",
		.args = " [--every D] [--count N] [--cancel I]... [--boottime] DURATION...",
		.summary = "arm timeouts and print each expiry and lateness",
		.help =
"Arm one timeout per DURATION on one context, wait, and print each expiry:\n"
"when it fired (\"at\", from when it was armed), how late that was after\n"
"its deadline (\"late\", both from the kernel, or from the library on the\n"
"timerfd backend), and when this process read it (\"read\", from when it\n"
"was armed).\n",
		.options =
"  --every D      periodic with period D; DURATION is the first expiry\n"
"                 (without DURATION the first expiry is after D)\n"
"  --count N      with --every: stop each after N expiries (N >= 1,\n"
"                 default 5)\n"
"  --cancel I     cancel the I-th timeout (1-based) right after arming;\n"
"                 may be repeated\n"
"  --boottime     CLOCK_BOOTTIME instead of CLOCK_MONOTONIC\n",
		.opts = arm_opts,
		.run = cmd_arm,
	}, {
		.name = "batch",
		.args = " [--at D] [--spread D] [--chunk K] N",
		.summary = "arm N timeouts K per submission, report rates",
		.help =
"Arm N one-shot timeouts through the device's timer rings, or with\n"
"HWTIMER_IOC_BATCH where it has none, or on the timerfd backend's heap,\n"
"wait for all of them, and\n"
"report how fast they went in (arms per second) and came out (events read\n"
"per second), with their lateness. When a cap stops the arms (ENOSPC:\n"
"ctx_max_pending or the wheel's max_pending; EDQUOT: max_user_timeouts),\n"
"it says how many were armed, which cap, its value and how to raise it,\n"
"and exits 1.\n",
		.options =
"  --at D         first deadline, from the start (default 100ms)\n"
"  --spread D     deadlines spread evenly over D after --at (default 100ms)\n"
"  --chunk K      ops per submission (1 to " XSTR(HWTIMER_BATCH_MAX)
", default 4096)\n",
		.opts = batch_opts,
		.run = cmd_batch,
	}, {
		.name = "watch",
		.args = " [--interval D] [--count N | --once] [--boottime]",
		.summary = "live wheel counters and lateness histogram",
		.help =
"Print a wheel's counters, rates and lateness histogram every interval,\n"
"until interrupted or N samples were printed. The wheels are the hwtimer\n"
"module's: watch needs the device, whatever --backend says, and is a\n"
"usage error with --backend timerfd.\n",
		.options =
"  --interval D   time between samples (default 1s)\n"
"  --count N      stop after N samples (N >= 1; leave it out to run\n"
"                 until interrupted)\n"
"  --once         one sample, no rates (same as --count 1)\n"
"  --boottime     the CLOCK_BOOTTIME wheel instead of CLOCK_MONOTONIC\n",
		.opts = watch_opts,
		.run = cmd_watch,
	}, {
		.name = "help",
		.args = " [COMMAND]",
		.summary = "this list, or what COMMAND does and takes",
		.help = "Describe hwtimerctl, or COMMAND and its options.\n",
		.options = NULL,
		.opts = help_opts,
		.run = cmd_help,
	},
};

static const char common_help[] =
"  --json         print JSON, one object per line, instead of text; ids\n"
"                 are strings of decimal digits\n"
"  --device PATH  the device to use (default /dev/hwtimer)\n"
"  --backend B    libhwtimer's backend: device (the module), timerfd (in\n"
"                 this process, no module) or auto: the device if it can\n"
"                 be opened, else timerfd (default)\n"
"  -h, --help     print this help\n";

static const char durations_help[] =
"Durations are a decimal number and a unit: 10us, 250ms, 1.5s, 2m\n"
"(units ns us ms s m min h); counts are whole numbers, digits only.\n";

/*
 * Usage of command @c, or of hwtimerctl when NULL: the synopsis alone on
 * stderr (after an error), everything on stdout (asked for).
 */
static void print_usage(FILE *f, const struct command *c)
{
	size_t i;

	if (c) {
		fprintf(f, "usage: hwtimerctl %s%s%s\n",
			c->opts == help_opts ? "" :
			"[--json] [--device PATH] [--backend B] ",
			c->name, c->args);
		if (f == stderr) {
			fprintf(f, "Try 'hwtimerctl help %s' for more.\n", c->name);
			return;
		}
		fprintf(f, "\n%s", c->help);
		if (c->options)
			fprintf(f, "\noptions:\n%s%s\n%s", c->options, common_help,
				durations_help);
		return;
	}
	fprintf(f, "usage: hwtimerctl [--json] [--device PATH] [--backend B] COMMAND [ARGS]\n"
		"       hwtimerctl -V | --version\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-20s %s\n", commands[i].name, commands[i].summary);
	if (f == stderr) {
		fprintf(f, "Try 'hwtimerctl help' for more.\n");
		return;
	}
	fprintf(f, "\noptions (also accepted after the command):\n%s", common_help);
	fprintf(f, "  -V, --version  print the versions of hwtimerctl and the module\n");
	fprintf(f, "\n%s", durations_help);
	fprintf(f, "'hwtimerctl help COMMAND' describes each command.\n");
	fprintf(f, "Exit status: 0 success, 1 runtime error, 2 usage error.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c = NULL;

	optind = 0;
	while (next_option(argc, argv, cur->opts) != -1)
		;
	if (argc - optind > 1)
		usage_error("unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		c = find_command(argv[optind]);
		if (!c)
			usage_error("unknown command '%s'", argv[optind]);
	}
	print_usage(stdout, c);
	return 0;
}

/*
 * hwtimerctl's version; the module's from sysfs and its ABI from the
 * handshake when they can be had. Always exit 0.
 */
static int print_version(void)
{
	char mod[64];
	bool have_mod = read_sysfs(SYSFS_MODULE "/version", mod, sizeof(mod));
	struct hwtimer *h = try_open_dev(0, HWTIMER_OPEN_BATCH);
	bool opened = h;

	hwtimer_close(h);
	out_begin(NULL, '{', NULL);
	put_str("hwtimerctl", "hwtimerctl %s", CTL_VERSION);
	put_u64("api", " (ABI %" PRIu64 ")\n", HWTIMER_API);
	/* The text names a module it did not find when it opened a device. */
	if (have_mod || opened)
		put_str(have_mod ? "module" : NULL, "hwtimer module %s",
			have_mod ? mod : "unknown");
	if (opened) {
		put_u64("module_api", " (ABI %" PRIu64 ", ", HWTIMER_API);
		out_text("%s)\n", dev_path);
	} else if (have_mod) {
		out_text(" (%s)\n", hwtimer_open_error());
	}
	out_end('}');
	return 0;
}

/* Global options, before the command; returns the command's index. */
static int parse_global(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "device", required_argument, NULL, OPT_DEVICE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool version = false;
	int c;

	for (;;) {
		c = getopt_long(argc, argv, "+:hV", opts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case OPT_JSON:
		case OPT_DEVICE:
		case OPT_BACKEND:
		case 'h':
			take_common_option(c);
			break;
		case 'V':
			version = true;
			break;
		default:
			option_error(c, argv, opts);
		}
	}
	if (version)
		exit(print_version());
	return optind;
}

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	i = parse_global(argc, argv);
	if (i >= argc) {
		note("no command given");
		print_usage(stderr, NULL);
		return EXIT_USAGE;
	}
	cur = find_command(argv[i]);
	if (!cur) {
		note("unknown command '%s'", argv[i]);
		print_usage(stderr, NULL);
		return EXIT_USAGE;
	}
	return cur->run(argc - i, argv + i);
}
