// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_dos - how late can one user make another user's timeouts?
 *
 * Run as root inside a test VM with hwtimer.ko loaded. A victim (root)
 * arms a one-shot on /dev/hwtimer -n times in a row, reading each record
 * before arming the next, and measures two latenesses per expiry:
 *
 *	fire  record's fire_ns - deadline_ns (when the worker served it)
 *	wake  CLOCK_MONOTONIC right after read() returned - deadline_ns
 *
 * under three scenarios, taking turns for -r runs in one boot:
 *
 *	a  no attacker
 *	b  an attacker (uid -u, default 65534 "nobody") opens as many
 *	   /dev/hwtimer files as it needs (ENOSPC: ctx_max_pending) and arms
 *	   periodic timeouts of -p (default 1 ms, one tick) until its user
 *	   reaches max_user_timeouts (EDQUOT), never reads them, and sleeps.
 *	   Unread periodic timeouts go dormant after their first expiry, so
 *	   this must cost the victim nothing once they have (-s settle time).
 *	c  the same attacker then reads its records as fast as it can
 *	   (O_NONBLOCK read() in a loop over its files), re-arming every
 *	   dormant timeout it reads: it buys one expiry per record it reads.
 *
 * Output lines (commentary starts with "# "):
 *
 *	DOS,scen,run,fire|wake,median_us,p90_us,p99_us,max_us
 *	DOS,scen,run,attacker,armed,files,arm_cpu_ms,win_cpu_ms,win_ms,records
 *	DOS,scen,run,wheel,fired_delta,hrtimer_fires_delta,pending,max_lateness_us,
 *		threads_cpu_ms
 *	DOS,scen,run,slab,cache,objects,bytes
 *	DOS,check,run,d_median_us,d_p99_us,extra_fired  (b against a)
 *	DOS,pooled,scen,wake,median_us,p90_us,p99_us,max_us  (every run's)
 *	DOS,bar,ok|fail,d_median_us,d_p99_us,extra_fired
 *	BENCH,dos,...  the pooled figures and the bar, for report.py
 *
 * attacker: arm_cpu_ms is the attacker's CPU time (getrusage, user +
 * system) to arm everything, win_cpu_ms the CPU it used from the start of
 * the victim's run to its end (win_ms of wall time), records what it read
 * meanwhile. wheel: deltas of the default wheel's debugfs counters over the
 * victim's run (fired counts the victim's own -n expiries too), the
 * wheel's pending count before it, its largest lateness since it was
 * loaded, and the CPU its tick thread and workers used during the run
 * (/proc/PID/stat, 10 ms resolution). slab: the hwt_timer and hwt_ptimer
 * caches (/sys/kernel/slab) with the attacker's timeouts armed.
 *
 * check and bar: d_ are b's wake lateness less a's; extra_fired is how
 * many more expiries the wheel served during b's victim run than during
 * a's of the same run (the idle attacker's own, which should be none).
 *
 * Exit status: 0 when b meets the bar: the wheel served none of the idle
 * attacker's timeouts while the victim ran (extra_fired <= 0 in every
 * run), and the median of the victim's wake-ups of every run taken
 * together is within -B ms (default 2, two ticks) of a's; 1 when not; 2
 * on error; 3 when the victim read a record that came early or was not
 * its own. The p99 is reported, not held to the bar: under TCG a whole
 * run of the victim's is now and then milliseconds slower with or without
 * an attacker, which moves a p99 of hundreds of wake-ups, pooled or not,
 * by more than the bar.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#define NSEC_PER_USEC	((uint64_t)1000)
#define NSEC_PER_MSEC	((uint64_t)1000000)
#define DEV		"/dev/hwtimer"
#define WHEEL_STATS	"/sys/kernel/debug/hwtimer/default/stats"
#define PARAMS		"/sys/module/hwtimer/parameters/"
/* Ops per BATCH call of the attacker, records per read() of the reader. */
#define ARM_CHUNK	4096
#define READ_CHUNK	4096
/* Most files the attacker opens. */
#define MAX_FILES	256
#define MAX_RUNS	16

static unsigned int n_victim = 200, runs = 3;
static uint64_t delay_ns = 5 * NSEC_PER_MSEC;
static uint64_t period_ns = NSEC_PER_MSEC;
static uint64_t settle_ns = 1000 * NSEC_PER_MSEC;
static uint64_t bar_ns = 2 * NSEC_PER_MSEC;
static unsigned int att_uid = 65534;
static const char *scenarios = "abc";

static void die(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hwtimer_dos: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(e));
	va_end(ap);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* CPU time (user + system) of this process so far, in ns. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NSEC_PER_USEC;
}

static unsigned long read_ulong(const char *path)
{
	unsigned long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* The default wheel's counters we look at, from debugfs. */
struct wheel_stats {
	uint64_t pending, fired, hrtimer_fires, max_lateness_ns;
};

static void wheel_stats(struct wheel_stats *st)
{
	char key[64];
	uint64_t v;
	FILE *f = fopen(WHEEL_STATS, "r");

	memset(st, 0, sizeof(*st));
	if (!f)
		return;
	while (fscanf(f, "%63s %" SCNu64, key, &v) == 2) {
		if (!strcmp(key, "pending"))
			st->pending = v;
		else if (!strcmp(key, "fired"))
			st->fired = v;
		else if (!strcmp(key, "hrtimer_fires"))
			st->hrtimer_fires = v;
		else if (!strcmp(key, "max_lateness_ns"))
			st->max_lateness_ns = v;
		else if (!strcmp(key, "lateness_log2_ns"))
			break;	/* the histogram ends what we need */
	}
	fclose(f);
}

/*
 * CPU time in ns of the default wheel's tick thread and workers (the
 * kthreads named "hwtimer/default..."), from /proc/PID/schedstat.
 */
static uint64_t wheel_threads_ns(void)
{
	char path[300], comm[64];
	uint64_t sum = 0, ns;
	DIR *d = opendir("/proc");
	struct dirent *de;
	FILE *f;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, "hwtimer/default", 15))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/schedstat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%" SCNu64, &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* A slab cache's objects and bytes (slabs times slab size). */
static void print_slab(char scen, unsigned int run, const char *cache)
{
	char path[128], link[128];
	unsigned long objs, slabs, order;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objects", cache);
	objs = read_ulong(path);
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slabs", cache);
	slabs = read_ulong(path);
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/order", cache);
	order = read_ulong(path);
	printf("DOS,%c,%u,slab,%s,%lu,%lu\n", scen, run, cache, objs,
	       slabs * (4096UL << order));
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s", cache);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		printf("# %s is merged into %s: its counts include other users\n",
		       cache, link);
	}
}

/* ---- the victim ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile @q (0..1) of sorted @v[@n]. */
static uint64_t pct(const uint64_t *v, unsigned int n, double q)
{
	unsigned int i = (unsigned int)(q * n + 0.999999);

	return v[i ? i - 1 : 0];
}

struct summary {
	uint64_t med, p90, p99, max;
};

static void summarise(uint64_t *v, unsigned int n, struct summary *s)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	s->med = pct(v, n, 0.5);
	s->p90 = pct(v, n, 0.9);
	s->p99 = pct(v, n, 0.99);
	s->max = v[n - 1];
}

static void print_summary(char scen, unsigned int run, const char *what,
			  const struct summary *s)
{
	printf("DOS,%c,%u,%s,%.1f,%.1f,%.1f,%.1f\n", scen, run, what,
	       s->med / 1e3, s->p90 / 1e3, s->p99 / 1e3, s->max / 1e3);
}

/*
 * Arm a one-shot -n times in a row, each read before the next is armed.
 * Return: 0, or -1 when a record came early or was not ours.
 */
static int run_victim(struct summary *fire, struct summary *wake,
		      uint64_t *keep)
{
	uint64_t *fl = calloc(n_victim, sizeof(*fl));
	uint64_t *wl = calloc(n_victim, sizeof(*wl));
	struct hwtimer_event ev;
	unsigned int i;
	int fd, ret = 0;
	uint64_t t;

	fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0 || !fl || !wl)
		die("victim: open " DEV);
	for (i = 0; i < n_victim; i++) {
		struct hwtimer_arm_req arm = {
			.cookie = i, .deadline_ns = delay_ns,
			.clock = CLOCK_MONOTONIC,
		};

		if (ioctl(fd, HWTIMER_IOC_ARM, &arm))
			die("victim: ARM");
		if (read(fd, &ev, sizeof(ev)) != sizeof(ev))
			die("victim: read");
		t = now_ns();
		if (ev.id != arm.id || ev.fire_ns < ev.deadline_ns ||
		    t < ev.deadline_ns) {
			printf("# victim: record %u early or not ours\n", i);
			ret = -1;
		}
		fl[i] = ev.fire_ns > ev.deadline_ns ? ev.fire_ns - ev.deadline_ns : 0;
		wl[i] = t > ev.deadline_ns ? t - ev.deadline_ns : 0;
	}
	close(fd);
	memcpy(keep, wl, n_victim * sizeof(*wl));
	summarise(fl, n_victim, fire);
	summarise(wl, n_victim, wake);
	free(fl);
	free(wl);
	return ret;
}

/* ---- the attacker (a child process, unprivileged) ---- */

/* Set by the signal handler; lock-free, so safe there. */
static atomic_int got_usr1, got_term;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

/*
 * Arm periodic timeouts on new files until the user's limit. Return: how
 * many are armed; *nfiles gets the files opened.
 */
static uint64_t arm_all(int *fds, int *nfiles)
{
	struct hwtimer_batch_op *ops = calloc(ARM_CHUNK, sizeof(*ops));
	struct hwtimer_batch b = { 0 };
	uint64_t armed = 0;
	bool quota = false, full;
	unsigned int i;
	int fd = -1;

	if (!ops)
		die("attacker: calloc");
	*nfiles = 0;
	while (!quota) {
		if (fd < 0) {
			if (*nfiles == MAX_FILES)
				break;
			fd = open(DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
			if (fd < 0)
				die("attacker: open " DEV);
			fds[(*nfiles)++] = fd;
		}
		memset(ops, 0, ARM_CHUNK * sizeof(*ops));
		for (i = 0; i < ARM_CHUNK; i++) {
			ops[i].op = HWTIMER_OP_ARM;
			ops[i].cookie = armed + i;
			ops[i].deadline_ns = period_ns;
			ops[i].period_ns = period_ns;
			ops[i].clock = CLOCK_MONOTONIC;
		}
		b.ops = (uintptr_t)ops;
		b.count = ARM_CHUNK;
		if (ioctl(fd, HWTIMER_IOC_BATCH, &b))
			die("attacker: BATCH");
		full = false;
		for (i = 0; i < b.done; i++) {
			if (!ops[i].status)
				armed++;
			else if (ops[i].status == -EDQUOT)
				quota = true;
			else if (ops[i].status == -ENOSPC)
				full = true;
			else
				die("attacker: arm status %d", ops[i].status);
		}
		if (full)
			fd = -1;
	}
	free(ops);
	return armed;
}

/* Read every file without waiting until *@stop is set. Return: records. */
static uint64_t read_all(const int *fds, int nfiles,
			 atomic_int *stop)
{
	struct hwtimer_event *evs = calloc(READ_CHUNK, sizeof(*evs));
	uint64_t records = 0;
	ssize_t n;
	int i;

	if (!evs)
		die("attacker: calloc");
	while (!*stop && !got_term) {
		for (i = 0; i < nfiles; i++) {
			n = read(fds[i], evs, READ_CHUNK * sizeof(*evs));
			if (n > 0)
				records += n / sizeof(*evs);
			else if (errno != EAGAIN && errno != EINTR)
				die("attacker: read");
		}
	}
	free(evs);
	return records;
}

/*
 * The attacker: drop to att_uid, arm, report "armed files cpu" on @out,
 * then sleep (@busy false) or read (@busy true) until SIGTERM, noting its
 * CPU time at SIGUSR1 (the victim starts) and at SIGTERM (it ended).
 */
static void run_attacker(int out, bool busy)
{
	uint64_t armed, cpu0, cpu1 = 0, cpu2, t1 = 0, records = 0;
	int fds[MAX_FILES], nfiles;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t none, sigs;
	char line[160];

	/* Blocked but while reading or in sigsuspend(): none is missed. */
	sigemptyset(&none);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (setgroups(0, NULL) || setresgid(att_uid, att_uid, att_uid) ||
	    setresuid(att_uid, att_uid, att_uid))
		die("attacker: drop privileges");
	cpu0 = cpu_ns();
	armed = arm_all(fds, &nfiles);
	snprintf(line, sizeof(line), "%" PRIu64 " %d %" PRIu64 "\n", armed,
		 nfiles, (cpu_ns() - cpu0) / NSEC_PER_USEC);
	if (write(out, line, strlen(line)) < 0)
		die("attacker: write");
	/* Records read before the victim starts are not counted. */
	if (busy) {
		sigprocmask(SIG_UNBLOCK, &sigs, NULL);
		read_all(fds, nfiles, &got_usr1);
	}
	while (!got_usr1 && !got_term)
		sigsuspend(&none);
	cpu1 = cpu_ns();
	t1 = now_ns();
	if (busy)
		records = read_all(fds, nfiles, &got_term);
	while (!got_term)
		sigsuspend(&none);
	cpu2 = cpu_ns();
	snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		 (cpu2 - cpu1) / NSEC_PER_USEC, (now_ns() - t1) / NSEC_PER_USEC,
		 records);
	if (write(out, line, strlen(line)) < 0)
		die("attacker: write");
	_exit(0);
}

/* ---- the runs ---- */

/* The victim's figures of one scenario in one run. */
struct result {
	struct summary fire, wake;
	uint64_t att_cpu_us;
	uint64_t fired;
	bool done;
};

static struct result results[3][MAX_RUNS];
/* Wake lateness of every victim run of each scenario, in run order. */
static uint64_t *pool[3];
static unsigned int pooled[3];

/*
 * Fork the attacker and wait until it has armed. Return: its pid; *@from
 * reads its report lines.
 */
static pid_t spawn(bool busy, FILE **from, uint64_t *armed, int *files,
		   uint64_t *arm_cpu_us)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(p[0]);
		run_attacker(p[1], busy);
	}
	close(p[1]);
	*from = fdopen(p[0], "r");
	if (!*from || fscanf(*from, "%" SCNu64 " %d %" SCNu64, armed, files,
			     arm_cpu_us) != 3)
		die("attacker did not report");
	return pid;
}

/* One scenario of one run. Return: 0, or -1 if the victim saw a bad record. */
static int scenario(char scen, unsigned int run)
{
	uint64_t armed = 0, arm_cpu = 0, win_cpu = 0, win_ms = 0, records = 0;
	struct result *r = &results[scen - 'a'][run - 1];
	struct wheel_stats s0, s1;
	uint64_t kt0, kt1;
	FILE *from = NULL;
	int files = 0, ret, status;
	uint64_t t;
	pid_t pid = 0;

	if (scen != 'a') {
		pid = spawn(scen == 'c', &from, &armed, &files, &arm_cpu);
		/* Let every first expiry pass: unread ones go dormant. */
		sleep_ns(settle_ns);
		print_slab(scen, run, "hwt_timer");
		print_slab(scen, run, "hwt_ptimer");
		kill(pid, SIGUSR1);
	}
	wheel_stats(&s0);
	kt0 = wheel_threads_ns();
	ret = run_victim(&r->fire, &r->wake,
			 pool[scen - 'a'] + pooled[scen - 'a']);
	pooled[scen - 'a'] += n_victim;
	kt1 = wheel_threads_ns();
	wheel_stats(&s1);
	if (pid) {
		kill(pid, SIGTERM);
		if (fscanf(from, "%" SCNu64 " %" SCNu64 " %" SCNu64, &win_cpu,
			   &win_ms, &records) != 3)
			die("attacker did not report its end");
		fclose(from);
		t = now_ns();
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		printf("# %c run %u: attacker exit (closing %" PRIu64
		       " timeouts) took %.0f ms\n", scen, run, armed,
		       (now_ns() - t) / 1e6);
		printf("DOS,%c,%u,attacker,%" PRIu64 ",%d,%.1f,%.1f,%.1f,%" PRIu64
		       "\n", scen, run, armed, files, arm_cpu / 1e3,
		       win_cpu / 1e3, win_ms / 1e3, records);
	}
	r->att_cpu_us = win_cpu;
	r->fired = s1.fired - s0.fired;
	r->done = true;
	print_summary(scen, run, "fire", &r->fire);
	print_summary(scen, run, "wake", &r->wake);
	printf("DOS,%c,%u,wheel,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f\n",
	       scen, run, s1.fired - s0.fired,
	       s1.hrtimer_fires - s0.hrtimer_fires, s0.pending,
	       s1.max_lateness_ns / 1e3, (kt1 - kt0) / 1e6);
	fflush(stdout);
	return ret;
}

/*
 * The most expiries the wheel served during a victim run of scenario @s
 * beyond those of a's run of the same number: INT64_MIN if none compares.
 */
static int64_t most_served(unsigned int s)
{
	int64_t extra, most = INT64_MIN;
	unsigned int run;

	for (run = 0; run < runs; run++) {
		if (!results[0][run].done || !results[s][run].done)
			continue;
		extra = (int64_t)results[s][run].fired -
			(int64_t)results[0][run].fired;
		if (extra > most)
			most = extra;
	}
	return most;
}

/*
 * b against a: each run's figures, then the bar over the runs pooled.
 * Return: true when b meets it (see the exit status above).
 */
static bool check_bar(void)
{
	int64_t most = most_served(1), busy = most_served(2);
	struct summary p[3];
	unsigned int run, s;
	double dm, dp;
	bool ok;

	for (run = 1; run <= runs; run++) {
		struct result *a = &results[0][run - 1], *b = &results[1][run - 1];

		if (!a->done || !b->done)
			continue;
		printf("DOS,check,%u,%.1f,%.1f,%" PRId64 "\n", run,
		       ((double)b->wake.med - (double)a->wake.med) / 1e3,
		       ((double)b->wake.p99 - (double)a->wake.p99) / 1e3,
		       (int64_t)b->fired - (int64_t)a->fired);
	}
	for (s = 0; s < 3; s++) {
		if (!pooled[s])
			continue;
		summarise(pool[s], pooled[s], &p[s]);
		printf("DOS,pooled,%c,wake,%.1f,%.1f,%.1f,%.1f\n", 'a' + s,
		       p[s].med / 1e3, p[s].p90 / 1e3, p[s].p99 / 1e3,
		       p[s].max / 1e3);
		printf("BENCH,dos,wake_p50,%c,%u,%.1f,us\n", 'a' + s, pooled[s],
		       p[s].med / 1e3);
		printf("BENCH,dos,wake_p99,%c,%u,%.1f,us\n", 'a' + s, pooled[s],
		       p[s].p99 / 1e3);
		printf("BENCH,dos,wake_max,%c,%u,%.1f,us\n", 'a' + s, pooled[s],
		       p[s].max / 1e3);
	}
	/* The busy reader's, for scale: served attacker timeouts show. */
	if (pooled[2] && busy != INT64_MIN)
		printf("BENCH,dos,extra_fired,c,%u,%" PRId64 ",expiries\n",
		       pooled[2], busy);
	if (most == INT64_MIN)
		return true;	/* a or b not run: no bar */
	dm = ((double)p[1].med - (double)p[0].med) / 1e3;
	dp = ((double)p[1].p99 - (double)p[0].p99) / 1e3;
	ok = most <= 0 && dm <= bar_ns / 1e3;
	printf("DOS,bar,%s,%.1f,%.1f,%" PRId64 "\n", ok ? "ok" : "fail", dm, dp,
	       most);
	printf("BENCH,dos,d_wake_p50,b,%u,%.1f,us\n", pooled[1], dm);
	printf("BENCH,dos,d_wake_p99,b,%u,%.1f,us\n", pooled[1], dp);
	printf("BENCH,dos,extra_fired,b,%u,%" PRId64 ",expiries\n", pooled[1],
	       most);
	printf("BENCH,dos,bar_met,b,%u,%d,bool\n", pooled[1], ok);
	return ok;
}

static void print_table(void)
{
	unsigned int s, run;

	printf("# scen run |  fire: median     p90     p99     max |  wake: median     p90     p99     max | attacker CPU ms (victim's run)\n");
	for (s = 0; s < 3; s++) {
		for (run = 1; run <= runs; run++) {
			struct result *r = &results[s][run - 1];

			if (!r->done)
				continue;
			printf("#    %c %3u | %13.1f %7.1f %7.1f %7.1f | %13.1f %7.1f %7.1f %7.1f | %.1f\n",
			       'a' + s, run, r->fire.med / 1e3,
			       r->fire.p90 / 1e3, r->fire.p99 / 1e3,
			       r->fire.max / 1e3, r->wake.med / 1e3,
			       r->wake.p90 / 1e3, r->wake.p99 / 1e3,
			       r->wake.max / 1e3, r->att_cpu_us / 1e3);
		}
	}
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: hwtimer_dos [-n arms] [-d delay_us] [-r runs] [-p period_us]\n"
		"                   [-s settle_ms] [-B bar_ms] [-u uid] [-S scenarios]\n"
		"  scenarios: a (no attacker), b (idle attacker), c (busy reader)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int run;
	const char *s;
	bool bad = false;
	int c;

	while ((c = getopt(argc, argv, "n:d:r:p:s:B:u:S:")) != -1) {
		switch (c) {
		case 'n':
			n_victim = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			delay_ns = strtoull(optarg, NULL, 0) * NSEC_PER_USEC;
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			period_ns = strtoull(optarg, NULL, 0) * NSEC_PER_USEC;
			break;
		case 's':
			settle_ns = strtoull(optarg, NULL, 0) * NSEC_PER_MSEC;
			break;
		case 'B':
			bar_ns = strtoull(optarg, NULL, 0) * NSEC_PER_MSEC;
			break;
		case 'u':
			att_uid = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			scenarios = optarg;
			break;
		default:
			print_usage();
		}
	}
	if (!n_victim || !runs || runs > MAX_RUNS || !period_ns)
		print_usage();
	for (run = 0; run < 3; run++) {
		pool[run] = calloc((size_t)runs * n_victim, sizeof(*pool[run]));
		if (!pool[run])
			die("calloc");
	}
	if (geteuid())
		fprintf(stderr, "hwtimer_dos: not root: victim and attacker share a user\n");
	printf("# victim: %u one-shots of %.1f ms in a row; attacker uid %u, period %.1f ms; %u runs\n",
	       n_victim, delay_ns / 1e6, att_uid, period_ns / 1e6, runs);
	printf("# max_user_timeouts %lu, ctx_max_pending %lu, tick %lu ns\n",
	       read_ulong(PARAMS "max_user_timeouts"),
	       read_ulong(PARAMS "ctx_max_pending"), read_ulong(PARAMS "tick_ns"));
	for (run = 1; run <= runs; run++)
		for (s = scenarios; *s; s++)
			if (*s >= 'a' && *s <= 'c' && scenario(*s, run))
				bad = true;
	print_table();
	if (bad)
		return 3;
	return check_bar() ? 0 : 1;
}
