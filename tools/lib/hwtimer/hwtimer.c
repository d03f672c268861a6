// SPDX-License-Identifier: LGPL-2.1-only OR MIT
/*
 * hwtimer.c - libhwtimer's context: open, the calls of the API, and the
 * device backend.
 *
 * Every operation, single or queued, is a struct hwtimer_batch_op run by
 * the backend: the device takes the submission queue as its BATCH array,
 * and a single call is a batch of one, so both paths give the same
 * statuses. Where the device offers timer rings, the ops they can serve
 * go there instead (ring.c) and the rest through BATCH. Expiries are read
 * into the context's buffer in bulk and handed out from it one at a time.
 *
 * Time is 64-bit even where time_t is 32-bit by default (i386): a wait
 * longer than 2^31 seconds must not wrap.
 */
#ifndef _TIME_BITS
#define _TIME_BITS 64
#define _FILE_OFFSET_BITS 64
#endif
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define HWT_DEV		"/dev/hwtimer"
#define HWT_NEED	(HWTIMER_FEATURE_PERIODIC | HWTIMER_FEATURE_BOOTTIME | \
			 HWTIMER_FEATURE_BATCH)
#define HWT_XSTR(x)	#x
#define HWT_STR(x)	HWT_XSTR(x)

/* Why this thread's last hwtimer_open() failed. */
static _Thread_local char open_error[200];

/*
 * Which process this is, as the library tells a child of fork() from its
 * parent on every call: the forks the process descends from since the
 * library was first used, counted by an atfork handler. getpid() would
 * do, but it is a system call. Should the handler not register (no
 * memory), the pid it is; either way a process sees one kind of token
 * only. A child made by a raw clone() system call, which runs no atfork
 * handler, is not told apart. hwtimer__proc() reads them: every context
 * is opened after hwtimer__proc_init().
 */
unsigned int hwtimer__fork_gen;
bool hwtimer__fork_unwatched;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_child(void)
{
	hwtimer__fork_gen++;
}

static void fork_watch(void)
{
	hwtimer__fork_unwatched = pthread_atfork(NULL, NULL, fork_child) != 0;
}

void hwtimer__proc_init(void)
{
	pthread_once(&fork_once, fork_watch);
}

uint64_t hwtimer__now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Record why an open failed; returns -@err. */
static int open_failed(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(open_error, sizeof(open_error), fmt, ap);
	va_end(ap);
	return -err;
}

/* ---- device backend ---- */

/* Ops run through BATCH at a time when the rings take the others. */
#define HWT_RUN_CHUNK	64
/* Environment variable that keeps a context off the rings. */
#define HWT_ENV_BATCH	"HWTIMER_NO_RINGS"

/* An arm with HWTIMER_ARM_CANCEL_ON_SET. */
static inline bool cos_arm(const struct hwtimer_batch_op *op)
{
	return op->op == HWTIMER_OP_ARM &&
	       (op->flags & HWTIMER_ARM_CANCEL_ON_SET);
}

/*
 * A cancel-on-set arm that BATCH does not take, on a module without
 * HWTIMER_FEATURE_BATCH_CANCEL_ON_SET: HWTIMER_IOC_ARM does.
 */
static inline bool cos_alone(const struct hwtimer *h,
			     const struct hwtimer_batch_op *op)
{
	return cos_arm(op) &&
	       !(h->features & HWTIMER_FEATURE_BATCH_CANCEL_ON_SET);
}

/*
 * After @n ops ran: a cancel-on-set arm among them makes the context
 * read() from now on, where the kernel's sweep queues clock-set records,
 * whatever the rings say.
 */
static void cos_armed(struct hwtimer *h, const struct hwtimer_batch_op *ops,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && !h->read_all; i++)
		if (cos_arm(&ops[i]) && !ops[i].status)
			h->read_all = true;
}

/*
 * Run cancel-on-set arm @op through HWTIMER_IOC_ARM, writing its outcome
 * back as BATCH would; a module without the feature refuses it here.
 * Its clock-set record comes only from a read(), which the kernel's
 * sweep fills: the context reads from now on whatever the rings say.
 */
static void dev_arm_cos(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	struct hwtimer_arm_req req;
	int r;

	op->result = 0;
	op->id = 0;
	if (!(h->features & HWTIMER_FEATURE_CANCEL_ON_SET)) {
		op->status = -EINVAL;
		return;
	}
	memset(&req, 0, sizeof(req));
	req.cookie = op->cookie;
	req.deadline_ns = op->deadline_ns;
	req.period_ns = op->period_ns;
	req.clock = op->clock;
	req.flags = op->flags;
	do {
		r = ioctl(h->fd, HWTIMER_IOC_ARM, &req);
	} while (r && errno == EINTR);
	op->status = r ? -errno : 0;
	if (r)
		return;
	op->id = req.id;
	cos_armed(h, op, 1);
}

/*
 * @n ops through BATCH, a chunk at a time, but for cancel-on-set arms a
 * module's BATCH does not take, which go through HWTIMER_IOC_ARM in
 * their turn.
 */
static int dev_batch(struct hwtimer *h, struct hwtimer_batch_op *ops,
		     unsigned int n)
{
	struct hwtimer_batch b;
	unsigned int i, chunk;

	while (n) {
		if (cos_alone(h, ops)) {
			dev_arm_cos(h, ops);
			ops++;
			n--;
			continue;
		}
		chunk = n < HWTIMER_BATCH_MAX ? n : HWTIMER_BATCH_MAX;
		for (i = 1; i < chunk; i++)
			if (cos_alone(h, &ops[i]))
				chunk = i;
		memset(&b, 0, sizeof(b));
		b.ops = (uintptr_t)ops;
		b.count = chunk;
		if (ioctl(h->fd, HWTIMER_IOC_BATCH, &b) && errno != EINTR)
			goto err_rest;
		if (h->features & HWTIMER_FEATURE_BATCH_CANCEL_ON_SET)
			cos_armed(h, ops, b.done);
		/* A signal stops it between ops: the rest are passed again. */
		ops += b.done;
		n -= b.done;
	}
	return 0;

err_rest:
	for (i = 0; i < n; i++)
		ops[i].status = -errno;
	return -errno;
}

/* Run @n ops through BATCH, gathered from @ops by @idx, and put them back. */
static int dev_batch_some(struct hwtimer *h, struct hwtimer_batch_op *ops,
			  struct hwtimer_batch_op *some,
			  const unsigned int *idx, unsigned int n)
{
	unsigned int i;
	int r = n ? dev_batch(h, some, n) : 0;

	for (i = 0; i < n; i++)
		ops[idx[i]] = some[i];
	return r;
}

/*
 * With rings: each op the rings take runs there; the others go through
 * BATCH in order, a chunk at a time. A failed BATCH call stops the run:
 * the ops after it get its errno.
 */
static int dev_run_rings(struct hwtimer *h, struct hwtimer_batch_op *ops,
			 unsigned int n)
{
	struct hwtimer_batch_op some[HWT_RUN_CHUNK];
	unsigned int idx[HWT_RUN_CHUNK], i, k = 0;
	int r = 0, kick;

	for (i = 0; i < n && !r; i++) {
		i += hwtimer__ring_run(h, ops + i, n - i);
		if (i == n)
			break;
		some[k] = ops[i];
		idx[k++] = i;
		if (k == HWT_RUN_CHUNK) {
			r = dev_batch_some(h, ops, some, idx, k);
			k = 0;
		}
	}
	if (!r)
		r = dev_batch_some(h, ops, some, idx, k);
	for (; r && i < n; i++)
		ops[i].status = r;
	kick = hwtimer__ring_kick(h);
	return r ? r : kick;
}

static int dev_run(struct hwtimer *h, struct hwtimer_batch_op *ops,
		   unsigned int n)
{
	return h->ring ? dev_run_rings(h, ops, n) : dev_batch(h, ops, n);
}

/* Records of the rings, then what read() gives, ring completions left out. */
static int dev_read(struct hwtimer *h, struct hwtimer_event *evs,
		    unsigned int max)
{
	unsigned int n = h->ring ? hwtimer__ring_read(h, evs, max) : 0;
	unsigned int i, end;
	ssize_t r;

	/*
	 * With rings, read() only when the kernel says records wait there,
	 * or it may sweep clock-set records in (@h->read_all).
	 */
	while (n < max && (!h->ring || h->read_all ||
			   hwtimer__ring_read_needed(h))) {
		r = read(h->fd, evs + n, (max - n) * sizeof(*evs));
		if (r <= 0)
			return n || !r || errno == EAGAIN ? (int)n : -errno;
		end = n + r / sizeof(*evs);
		for (i = n; i < end; i++) {
			if (hwtimer__ring_filter(h, &evs[i]))
				evs[n++] = evs[i];
		}
		if (!h->ring)
			break;
	}
	return n;
}

static int dev_fd(struct hwtimer *h)
{
	return h->fd;
}

static int dev_set_eventfd(struct hwtimer *h, int efd)
{
	struct hwtimer_eventfd_req r = { .fd = efd };

	return ioctl(h->fd, HWTIMER_IOC_SET_EVENTFD, &r) ? -errno : 0;
}

/*
 * The kernel's answer, as it is. On the rings the kernel first consumes
 * every op submitted so far, so that its counts include them, and the
 * library takes the completions, so that its own counts go with them.
 */
static int dev_stats(struct hwtimer *h, struct hwtimer_stats_req *st)
{
	if (h->ring)
		hwtimer__ring_flush(h);
	return ioctl(h->fd, HWTIMER_IOC_STATS, st) ? -errno : 0;
}

static void dev_close(struct hwtimer *h)
{
	hwtimer__ring_close(h);
	close(h->fd);
}

const struct hwt_backend hwtimer__device = {
	.name = "device",
	.run = dev_run,
	.read = dev_read,
	.fd = dev_fd,
	.set_eventfd = dev_set_eventfd,
	.stats = dev_stats,
	.close = dev_close,
};

/*
 * Errors of dev_open() after which the timerfd backend serves instead: no
 * device, no right to it, or a module that would get this process's
 * clocks wrong.
 */
static bool dev_absent(int err)
{
	return err == ENOENT || err == ENODEV || err == ENXIO ||
	       err == EACCES || err == EPERM || err == EXDEV;
}

/*
 * Might this process's clocks not be the host's? It is in a time
 * namespace other than the initial one (whose inode number the kernel
 * fixes, PROC_TIME_INIT_INO) and that namespace has offsets, or it made
 * one for its children that it is not in, whose offsets do not say its
 * own. Without /proc, or a kernel without time namespaces, it is not.
 */
static bool in_timens(void)
{
	char self[64] = "", kids[64] = "", line[128];
	long long sec, nsec;
	bool off = false;
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/ns/time", self, sizeof(self) - 1);
	if (n <= 0 || !strcmp(self, "time:[4026531834]"))
		return false;
	n = readlink("/proc/self/ns/time_for_children", kids, sizeof(kids) - 1);
	if (n <= 0 || strcmp(self, kids))
		return true;
	f = fopen("/proc/self/timens_offsets", "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %lld %lld", &sec, &nsec) == 2 &&
		    (sec || nsec))
			off = true;
	fclose(f);
	return off;
}

/* What a failed open() of the device with error @err probably means. */
static const char *open_hint(int err)
{
	if (err == ENOENT || err == ENODEV || err == ENXIO)
		return " (is the hwtimer module loaded?)";
	if (err == EMFILE)
		return " (RLIMIT_NOFILE, or the module's max_user_contexts)";
	return "";
}

/* What a failed handshake with error @err probably means. */
static const char *api_hint(int err)
{
	if (err == ENOTTY)
		return " (not a hwtimer device?)";
	if (err == EINVAL)
		return " (no ABI " HWT_STR(HWTIMER_API)
			" with periodic, boottime and batch)";
	if (err == EPROTO)
		return " (event records of another size)";
	if (err == EXDEV)
		return " (a module older than time namespaces, in one)";
	return "";
}

/*
 * Open the device at @path and shake hands. Return: 0; errnos of open()
 * as they are (the caller may fall back); others after a message.
 */
static int dev_open(struct hwtimer *h, const char *path, unsigned int flags)
{
	struct hwtimer_api *api = &h->api;
	int err;

	h->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (h->fd < 0) {
		err = errno;
		return open_failed(err, "cannot open %s: %s%s", path,
				   strerror(err), open_hint(err));
	}
	memset(api, 0, sizeof(*api));
	api->api = HWTIMER_API;
	api->features = HWT_NEED;
	if (ioctl(h->fd, HWTIMER_IOC_API, api)) {
		err = errno;
		goto err_close;
	}
	if (api->event_size != sizeof(struct hwtimer_event)) {
		err = EPROTO;
		goto err_close;
	}
	/* An older module would read this process's times as the host's. */
	if (!(api->features & HWTIMER_FEATURE_TIMENS) && in_timens()) {
		err = EXDEV;
		goto err_close;
	}
	h->be = &hwtimer__device;
	h->features = api->features;
	h->tick_ns = api->tick_ns;
	/* Rings where offered and not declined; BATCH if they cannot be had. */
	if (!(h->features & HWTIMER_FEATURE_RINGS) ||
	    (flags & HWTIMER_OPEN_BATCH) || getenv(HWT_ENV_BATCH) ||
	    hwtimer__ring_init(h))
		h->features &= ~HWTIMER_FEATURE_RINGS;
	return 0;

err_close:
	close(h->fd);
	return open_failed(err, "%s: HWTIMER_IOC_API: %s%s", path,
			   strerror(err), api_hint(err));
}

/* ---- the context ---- */

HWT_EXPORT int hwtimer_open_path(struct hwtimer **hp, const char *path,
				 unsigned int sq_entries, unsigned int flags)
{
	struct hwtimer *h;
	int r;

	*hp = NULL;
	if (flags & ~(HWTIMER_OPEN_DEVICE | HWTIMER_OPEN_TIMERFD |
		      HWTIMER_OPEN_BATCH) ||
	    (flags & HWTIMER_OPEN_DEVICE && flags & HWTIMER_OPEN_TIMERFD)) {
		r = open_failed(EINVAL, "%s: bad flags %#x", __func__, flags);
		goto out;
	}
	hwtimer__proc_init();
	h = calloc(1, sizeof(*h));
	if (!h) {
		r = open_failed(ENOMEM, "%s: %s", __func__, strerror(ENOMEM));
		goto out;
	}
	h->sq_size = sq_entries ? sq_entries : HWTIMER_SQ_DEFAULT;
	h->sq = calloc(h->sq_size, sizeof(*h->sq));
	h->sq_res = calloc(h->sq_size, sizeof(*h->sq_res));
	if (!h->sq || !h->sq_res) {
		r = open_failed(ENOMEM, "%s: %s", __func__, strerror(ENOMEM));
		goto err_free;
	}
	r = -ENOENT;
	if (!(flags & HWTIMER_OPEN_TIMERFD))
		r = dev_open(h, path ? path : HWT_DEV, flags);
	if (r && !(flags & HWTIMER_OPEN_DEVICE) && dev_absent(-r)) {
		r = hwtimer__timerfd_init(h);
		if (r)
			open_failed(-r, "%s: timerfd backend: %s",
				    __func__, strerror(-r));
	}
	if (r)
		goto err_free;
	*hp = h;
	return 0;

err_free:
	free(h->sq);
	free(h->sq_res);
	free(h);
out:
	errno = -r;
	return r;
}

HWT_EXPORT int hwtimer_open(struct hwtimer **hp, unsigned int sq_entries,
			    unsigned int flags)
{
	return hwtimer_open_path(hp, NULL, sq_entries, flags);
}

HWT_EXPORT const char *hwtimer_open_error(void)
{
	return open_error;
}

HWT_EXPORT void hwtimer_close(struct hwtimer *h)
{
	if (!h)
		return;
	h->be->close(h);
	free(h->sq);
	free(h->sq_res);
	free(h);
}

HWT_EXPORT const char *hwtimer_backend(const struct hwtimer *h)
{
	return h->be->name;
}

HWT_EXPORT uint64_t hwtimer_features(const struct hwtimer *h)
{
	return h->features;
}

HWT_EXPORT uint64_t hwtimer_tick_ns(const struct hwtimer *h)
{
	return h->tick_ns;
}

HWT_EXPORT void hwtimer_get_api(const struct hwtimer *h,
				struct hwtimer_api *api)
{
	*api = h->api;
}

HWT_EXPORT int hwtimer_stats(struct hwtimer *h, int clock,
			     struct hwtimer_stats_req *st)
{
	memset(st, 0, sizeof(*st));
	st->clock = clock;
	return h->be->stats(h, st);
}

_Static_assert(sizeof(struct hwtimer_lib_stats) >= HWTIMER_LIB_STATS_SIZE_VER0,
	       "struct hwtimer_lib_stats only grows");

HWT_EXPORT int hwtimer_lib_stats(struct hwtimer *h,
				 struct hwtimer_lib_stats *st, size_t size)
{
	struct hwtimer_lib_stats own;

	if (size < HWTIMER_LIB_STATS_SIZE_VER0)
		return -EINVAL;
	memset(&own, 0, sizeof(own));
	if (h->ring)
		hwtimer__ring_lib_stats(h, &own);
	/* A caller's larger struct has fields this library does not know. */
	if (size > sizeof(own)) {
		memset((char *)st + sizeof(own), 0, size - sizeof(own));
		size = sizeof(own);
	}
	memcpy(st, &own, size);
	return 0;
}

HWT_EXPORT int hwtimer_fd(struct hwtimer *h)
{
	return h->be->fd(h);
}

HWT_EXPORT int hwtimer_set_eventfd(struct hwtimer *h, int efd)
{
	return h->be->set_eventfd(h, efd);
}

/* ---- operations ---- */

#define HWT_ARM_COS	(HWTIMER_ARM_ABS | HWTIMER_ARM_CANCEL_ON_SET)

/*
 * Whether an arm's @flags are unknown, or cancel on set with a deadline
 * that is not an absolute one on CLOCK_REALTIME: -EINVAL, else 0.
 */
static inline int check_arm(int clock, unsigned int flags)
{
	if (flags & ~HWT_ARM_COS)
		return -EINVAL;
	if ((flags & HWTIMER_ARM_CANCEL_ON_SET) &&
	    (flags != HWT_ARM_COS || clock != CLOCK_REALTIME))
		return -EINVAL;
	return 0;
}

/* Fill @op for an arm; -EINVAL as check_arm(). */
static int make_arm(struct hwtimer_batch_op *op, int clock,
		    uint64_t deadline_ns, uint64_t period_ns, unsigned int flags,
		    uint64_t user_data)
{
	if (check_arm(clock, flags))
		return -EINVAL;
	memset(op, 0, sizeof(*op));
	op->op = HWTIMER_OP_ARM;
	op->flags = flags;
	op->cookie = user_data;
	op->deadline_ns = deadline_ns;
	op->period_ns = period_ns;
	/* Unknown clocks are the backend's to refuse, as the device does. */
	op->clock = clock;
	return 0;
}

static void make_cancel(struct hwtimer_batch_op *op, uint64_t id)
{
	memset(op, 0, sizeof(*op));
	op->op = HWTIMER_OP_CANCEL;
	op->id = id;
}

/* Fill @op for a modify; -EINVAL for unknown flags. */
static int make_modify(struct hwtimer_batch_op *op, uint64_t id,
		       uint64_t deadline_ns, unsigned int flags)
{
	if (flags & ~HWTIMER_ARM_ABS)
		return -EINVAL;
	memset(op, 0, sizeof(*op));
	op->op = HWTIMER_OP_MODIFY;
	op->flags = flags;
	op->id = id;
	op->deadline_ns = deadline_ns;
	return 0;
}

/* Run one op now. Return: its result (0 for an arm) or a negative errno. */
static int run_one(struct hwtimer *h, struct hwtimer_batch_op *op)
{
	int r, kick;

	if (h->ring) {
		/* As dev_run_rings() for one op, without its gathering. */
		r = hwtimer__ring_op(h, op) ? 0 : dev_batch(h, op, 1);
		kick = hwtimer__ring_kick(h);
		r = r ? r : kick;
	} else {
		r = h->be->run(h, op, 1);
	}

	if (r)
		return r;
	return op->status ? op->status : (int)op->result;
}

/* hwtimer_arm() through BATCH or the backend: an op, run at once. */
noinline int hwtimer__arm_op(struct hwtimer *h, int clock,
			     uint64_t deadline_ns, uint64_t period_ns,
			     unsigned int flags, uint64_t user_data,
			     uint64_t *id)
{
	struct hwtimer_batch_op op;
	int r;

	r = make_arm(&op, clock, deadline_ns, period_ns, flags, user_data);
	if (!r)
		r = run_one(h, &op);
	if (!r && id)
		*id = op.id;
	return r;
}

HWT_EXPORT int hwtimer_arm(struct hwtimer *h, int clock,
			   uint64_t deadline_ns, uint64_t period_ns,
			   unsigned int flags, uint64_t user_data, uint64_t *id)
{
	/* On the rings: no op to fill and dispatch. */
	if (h->ring)
		return hwtimer__ring_arm(h, clock, deadline_ns, period_ns,
					 flags, user_data, id);
	return hwtimer__arm_op(h, clock, deadline_ns, period_ns, flags,
			       user_data, id);
}

/* hwtimer_cancel() through BATCH or the backend. */
noinline int hwtimer__cancel_op(struct hwtimer *h, uint64_t id)
{
	struct hwtimer_batch_op op;

	make_cancel(&op, id);
	return run_one(h, &op);
}

HWT_EXPORT int hwtimer_cancel(struct hwtimer *h, uint64_t id)
{
	if (h->ring)
		return hwtimer__ring_cancel(h, id);
	return hwtimer__cancel_op(h, id);
}

HWT_EXPORT int hwtimer_modify(struct hwtimer *h, uint64_t id,
			      uint64_t deadline_ns, unsigned int flags)
{
	struct hwtimer_batch_op op;
	int r = make_modify(&op, id, deadline_ns, flags);

	return r ? r : run_one(h, &op);
}

/* ---- submission queue ---- */

/* Write the outcome of @op to @res, if any. */
static void put_result(struct hwtimer_result *res,
		       const struct hwtimer_batch_op *op)
{
	if (!res)
		return;
	res->id = op->id;
	res->status = op->status;
	res->result = op->result;
}

/*
 * Queue an op with @flags for @res, submitting a full queue first; the
 * caller fills it in at *@op. Return: 0, -EINVAL for unknown flags, or
 * the errno of that submit.
 */
static inline int sq_next(struct hwtimer *h, unsigned int flags,
			  struct hwtimer_result *res,
			  struct hwtimer_batch_op **op)
{
	int r;

	if (flags & ~HWTIMER_ARM_ABS)
		return -EINVAL;
	if (h->sq_len == h->sq_size) {
		r = hwtimer_submit(h);
		if (r < 0)
			return r;
	}
	h->sq_res[h->sq_len] = res;
	*op = &h->sq[h->sq_len++];
	return 0;
}

HWT_EXPORT int hwtimer_prep_arm(struct hwtimer *h, int clock,
				uint64_t deadline_ns, uint64_t period_ns,
				unsigned int flags, uint64_t user_data,
				struct hwtimer_result *res)
{
	struct hwtimer_batch_op *op;
	int r = check_arm(clock, flags);

	if (!r)
		r = sq_next(h, 0, res, &op);
	if (!r)
		make_arm(op, clock, deadline_ns, period_ns, flags, user_data);
	return r;
}

HWT_EXPORT int hwtimer_prep_cancel(struct hwtimer *h, uint64_t id,
				   struct hwtimer_result *res)
{
	struct hwtimer_batch_op *op;
	int r = sq_next(h, 0, res, &op);

	if (!r)
		make_cancel(op, id);
	return r;
}

HWT_EXPORT int hwtimer_prep_modify(struct hwtimer *h, uint64_t id,
				   uint64_t deadline_ns, unsigned int flags,
				   struct hwtimer_result *res)
{
	struct hwtimer_batch_op *op;
	int r = sq_next(h, flags, res, &op);

	if (!r)
		make_modify(op, id, deadline_ns, flags);
	return r;
}

HWT_EXPORT unsigned int hwtimer_sq_ready(const struct hwtimer *h)
{
	return h->sq_len;
}

HWT_EXPORT int hwtimer_submit(struct hwtimer *h)
{
	unsigned int i, n = h->sq_len;
	int r, failed = 0;

	h->sq_len = 0;
	r = n ? h->be->run(h, h->sq, n) : 0;
	for (i = 0; i < n; i++) {
		failed += h->sq[i].status != 0;
		put_result(h->sq_res[i], &h->sq[i]);
	}
	return r ? r : failed;
}

/* ---- completions ---- */

/* Refill an empty buffer. Return: 0, -EAGAIN or another negative errno. */
static int cq_fill(struct hwtimer *h)
{
	int r;

	if (h->cq_head < h->cq_tail)
		return 0;
	r = h->be->read(h, h->cq, HWT_CQ_SIZE);
	if (r < 0)
		return r;
	h->cq_head = 0;
	h->cq_tail = r;
	return r ? 0 : -EAGAIN;
}

HWT_EXPORT int hwtimer_peek(struct hwtimer *h, const struct hwtimer_event **ev)
{
	int r = cq_fill(h);

	if (r)
		return r;
	*ev = &h->cq[h->cq_head];
	return 0;
}

HWT_EXPORT void hwtimer_seen(struct hwtimer *h)
{
	if (h->cq_head < h->cq_tail)
		h->cq_head++;
}

/* Poll @fd until readable or @until (0: no limit) on CLOCK_MONOTONIC. */
static int wait_readable(int fd, uint64_t until)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	uint64_t now;
	int r;

	if (until) {
		now = hwtimer__now(CLOCK_MONOTONIC);
		if (now >= until)
			return -ETIME;
		ts.tv_sec = (until - now) / 1000000000ULL;
		ts.tv_nsec = (until - now) % 1000000000ULL;
		tsp = &ts;
	}
	/*
	 * 32-bit glibc's ppoll() with a timeout past 2^31 s takes a stale
	 * ENOSYS in errno, after a ready ppoll_time64, for its own ENOSYS,
	 * and fails with EOVERFLOW: give it none.
	 */
	errno = 0;
	r = ppoll(&pfd, 1, tsp, NULL);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIME;
}

HWT_EXPORT int hwtimer_wait(struct hwtimer *h, const struct hwtimer_event **ev,
			    int64_t timeout_ns)
{
	uint64_t until = 0;
	int r;

	if (timeout_ns >= 0)
		until = hwtimer__now(CLOCK_MONOTONIC) + timeout_ns + !timeout_ns;
	for (;;) {
		r = hwtimer_peek(h, ev);
		if (r != -EAGAIN)
			return r;
		/* Readable but taken by another process sharing it: wait on. */
		r = wait_readable(hwtimer_fd(h), until);
		if (r)
			return r;
		/* Expiries may be due that no one served: the next look does. */
		hwtimer__ring_readable(h);
	}
}
