// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/hwtimer, for test-cli.sh on a host without the
 * module. LD_PRELOADed into a dynamically linked hwtimerctl run with
 * --device=/dev/null, it answers the hwtimer ioctls on any file and, once
 * one was answered, read() on that file with expiries.
 *
 * It is a model of the ABI as hwtimerctl sees it, not of the module:
 *  - HWTIMER_FAKE_CAP (default 100): live timeouts per open file (ENOSPC);
 *  - HWTIMER_FAKE_USER_CAP (default 1000000): the per-user cap (EDQUOT);
 *  - HWTIMER_FAKE_ID_BASE (default 0): ids are this plus 1, 2, ... (the
 *    module's ids of the 512th and later open are past 2^53);
 *  - every expiry fires exactly HWTIMER_FAKE_LATE_NS (default 1234) after
 *    its deadline, and read() returns one record per live timeout, at
 *    once: the caller sees the times it is told, not the time it waited;
 *  - arms, cancels and modifies come in BATCH calls, as libhwtimer makes
 *    them, a single one as a batch of one;
 *  - HWTIMER_FAKE_LOG, when set, is a file that gets one line per BATCH
 *    call: "batch COUNT failed FAILED".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#define MAX_TIMEOUTS	4096

/**
 * struct fake_timeout - one armed timeout
 * @id: as returned by ARM, 0 for a free slot
 * @cookie: from ARM
 * @deadline: next expiry, absolute on @clock
 * @period: 0 for a one-shot
 * @clock: from ARM
 */
struct fake_timeout {
	uint64_t id;
	uint64_t cookie;
	uint64_t deadline;
	uint64_t period;
	uint32_t clock;
};

static struct fake_timeout tm[MAX_TIMEOUTS];
static uint64_t live, armed, fired, cancelled, next_id;
static int fake_fd = -1;

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : def;
}

static uint64_t now(uint32_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Arm one timeout; return 0 or a negative errno, as the module would. */
static int fake_arm(uint64_t cookie, uint64_t deadline, uint64_t period,
		    uint32_t clock, uint32_t flags, __u64 *id)
{
	size_t i;

	if (live >= env_u64("HWTIMER_FAKE_CAP", 100))
		return -ENOSPC;
	if (live >= env_u64("HWTIMER_FAKE_USER_CAP", 1000000))
		return -EDQUOT;
	for (i = 0; i < MAX_TIMEOUTS && tm[i].id; i++)
		;
	if (i == MAX_TIMEOUTS)
		return -ENOMEM;
	if (!(flags & HWTIMER_ARM_ABS))
		deadline += now(clock);
	if (!next_id)
		next_id = env_u64("HWTIMER_FAKE_ID_BASE", 0);
	tm[i] = (struct fake_timeout){ ++next_id, cookie, deadline, period,
				       clock };
	*id = tm[i].id;
	live++;
	armed++;
	return 0;
}

static struct fake_timeout *find(uint64_t id)
{
	size_t i;

	for (i = 0; i < MAX_TIMEOUTS; i++)
		if (id && tm[i].id == id)
			return &tm[i];
	return NULL;
}

/* Cancel @op->id: 0 with the result, or -ENOENT. */
static int fake_cancel(struct hwtimer_batch_op *op)
{
	struct fake_timeout *t = find(op->id);

	if (!t)
		return -ENOENT;
	t->id = 0;
	live--;
	cancelled++;
	op->result = HWTIMER_RESULT_CANCELLED;
	return 0;
}

/* Move @op->id to @op->deadline_ns: 0 with the result, or -ENOENT. */
static int fake_modify(struct hwtimer_batch_op *op)
{
	struct fake_timeout *t = find(op->id);

	if (!t)
		return -ENOENT;
	t->deadline = op->deadline_ns;
	if (!(op->flags & HWTIMER_ARM_ABS))
		t->deadline += now(t->clock);
	op->result = HWTIMER_RESULT_MODIFIED;
	return 0;
}

/* One op of a batch; 0 or a negative errno. */
static int fake_op(struct hwtimer_batch_op *op)
{
	op->result = 0;
	switch (op->op) {
	case HWTIMER_OP_ARM:
		return fake_arm(op->cookie, op->deadline_ns, op->period_ns,
				op->clock, op->flags, &op->id);
	case HWTIMER_OP_CANCEL:
		return fake_cancel(op);
	case HWTIMER_OP_MODIFY:
		return fake_modify(op);
	}
	return -EINVAL;
}

static void log_batch(const struct hwtimer_batch *b)
{
	const char *path = getenv("HWTIMER_FAKE_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "batch %u failed %u\n", b->count, b->failed);
	fclose(f);
}

static int fake_batch(struct hwtimer_batch *b)
{
	struct hwtimer_batch_op *ops = (void *)(uintptr_t)b->ops;
	uint32_t k;

	b->failed = 0;
	for (k = 0; k < b->count; k++) {
		ops[k].status = fake_op(&ops[k]);
		b->failed += !!ops[k].status;
	}
	b->done = b->count;
	log_batch(b);
	return 0;
}

static void fake_stats(struct hwtimer_stats_req *st)
{
	int i;

	st->ctx_pending = live;
	st->ctx_live = live;
	st->ctx_max_pending = env_u64("HWTIMER_FAKE_CAP", 100);
	st->ctx_armed = armed;
	st->ctx_fired = fired;
	st->ctx_cancelled = cancelled;
	st->tick_ns = 1000000;
	st->pending = live;
	st->armed = armed;
	st->fired = fired;
	st->cancelled = cancelled;
	st->max_lateness_ns = 1234;
	for (i = 0; i < HWTIMER_STATS_LAT_BUCKETS; i++)
		st->lateness[i] = i == 11 ? fired : 0;
}

static int fake_ioctl(int fd, unsigned long cmd, void *arg)
{
	struct hwtimer_api *api = arg;

	switch (cmd) {
	case HWTIMER_IOC_API:
		if (api->api != HWTIMER_API)
			return -EINVAL;
		/* No rings: the library keeps to BATCH here. */
		api->features = HWTIMER_FEATURES_ALL & ~HWTIMER_FEATURE_RINGS;
		api->ioctls = 0x7f;
		api->tick_ns = 1000000;
		api->max_pending = env_u64("HWTIMER_FAKE_CAP", 100);
		api->event_size = sizeof(struct hwtimer_event);
		fake_fd = fd;
		return 0;
	case HWTIMER_IOC_BATCH:
		return fake_batch(arg);
	case HWTIMER_IOC_STATS:
		fake_stats(arg);
		return 0;
	}
	return -ENOTTY;
}

int ioctl(int fd, unsigned long cmd, ...)
{
	static int (*real)(int, unsigned long, void *);
	va_list ap;
	void *arg;
	int err;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(cmd) != HWTIMER_IOC_MAGIC) {
		if (!real)
			real = (int (*)(int, unsigned long, void *))
				dlsym(RTLD_NEXT, "ioctl");
		return real(fd, cmd, arg);
	}
	err = fake_ioctl(fd, cmd, arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

/* One record per live timeout, fired HWTIMER_FAKE_LATE_NS late. */
ssize_t read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);
	struct hwtimer_event *ev = buf;
	uint64_t late = env_u64("HWTIMER_FAKE_LATE_NS", 1234);
	size_t i, n = 0;

	if (fd != fake_fd) {
		if (!real)
			real = (ssize_t (*)(int, void *, size_t))
				dlsym(RTLD_NEXT, "read");
		return real(fd, buf, len);
	}
	if (len < sizeof(*ev)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < MAX_TIMEOUTS && (n + 1) * sizeof(*ev) <= len; i++) {
		struct fake_timeout *t = &tm[i];

		if (!t->id)
			continue;
		ev[n++] = (struct hwtimer_event){
			.id = t->id, .cookie = t->cookie,
			.deadline_ns = t->deadline,
			.fire_ns = t->deadline + late, .clock = t->clock,
			.flags = t->period ? 0 : HWTIMER_EVENT_LAST,
		};
		fired++;
		if (t->period) {
			t->deadline += t->period;
		} else {
			t->id = 0;
			live--;
		}
	}
	if (!n) {
		errno = EAGAIN;
		return -1;
	}
	return n * sizeof(*ev);
}
