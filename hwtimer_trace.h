/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the hwtimer runtime and of /dev/hwtimer's contexts:
 * events/hwtimer/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hwtimer

#if !defined(_HWTIMER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HWTIMER_TRACE_H

#include <linux/tracepoint.h>

#include "hwtimer_compat.h"

/* A timeout was armed, modified or re-armed for its next period. */
TRACE_EVENT(hwtimer_timeout_arm,
	    TP_PROTO(const char *wheel, const void *t, u64 deadline,
		     u64 period),
	    TP_ARGS(wheel, t, deadline, period),
	    TP_STRUCT__entry(__string(wheel, wheel)
			     __field(const void *, t)
			     __field(u64, deadline)
			     __field(u64, period)),
	    TP_fast_assign(hwt_assign_str(wheel, wheel);
			   __entry->t = t;
			   __entry->deadline = deadline;
			   __entry->period = period;),
	    TP_printk("wheel=%s timeout=%p deadline=%llu period=%llu",
		      __get_str(wheel), __entry->t, __entry->deadline,
		      __entry->period)
);

/* A worker is about to run a timeout's callback; lateness = now - deadline. */
TRACE_EVENT(hwtimer_timeout_expire,
	    TP_PROTO(const char *wheel, const void *t, u64 deadline, u64 now,
		     u64 overruns),
	    TP_ARGS(wheel, t, deadline, now, overruns),
	    TP_STRUCT__entry(__string(wheel, wheel)
			     __field(const void *, t)
			     __field(u64, deadline)
			     __field(u64, now)
			     __field(u64, lateness)
			     __field(u64, overruns)),
	    TP_fast_assign(hwt_assign_str(wheel, wheel);
			   __entry->t = t;
			   __entry->deadline = deadline;
			   __entry->now = now;
			   __entry->lateness = now > deadline ?
					       now - deadline : 0;
			   __entry->overruns = overruns;),
	    TP_printk("wheel=%s timeout=%p deadline=%llu now=%llu lateness=%llu overruns=%llu",
		      __get_str(wheel), __entry->t, __entry->deadline,
		      __entry->now, __entry->lateness, __entry->overruns)
);

/* The result names, resolvable by tools reading the format file. */
TRACE_DEFINE_ENUM(HWTIMER_NOT_PENDING);
TRACE_DEFINE_ENUM(HWTIMER_CANCELLED);
TRACE_DEFINE_ENUM(HWTIMER_RUNNING);

/* hwtimer_cancel() was called; result is an enum hwtimer_cancel_result. */
TRACE_EVENT(hwtimer_timeout_cancel,
	    TP_PROTO(const char *wheel, const void *t, int result),
	    TP_ARGS(wheel, t, result),
	    TP_STRUCT__entry(__string(wheel, wheel)
			     __field(const void *, t)
			     __field(int, result)),
	    TP_fast_assign(hwt_assign_str(wheel, wheel);
			   __entry->t = t;
			   __entry->result = result;),
	    TP_printk("wheel=%s timeout=%p result=%s", __get_str(wheel),
		      __entry->t,
		      __print_symbolic(__entry->result,
				       { HWTIMER_NOT_PENDING, "not_pending" },
				       { HWTIMER_CANCELLED, "cancelled" },
				       { HWTIMER_RUNNING, "running" }))
);

/*
 * A CLOCK_REALTIME wheel's base found its clock set back before its current
 * tick and moved the wheel back to @now (hwtimer_wc_rewind()).
 */
TRACE_EVENT(hwtimer_wheel_rewind,
	    TP_PROTO(const char *wheel, u64 now),
	    TP_ARGS(wheel, now),
	    TP_STRUCT__entry(__string(wheel, wheel)
			     __field(u64, now)),
	    TP_fast_assign(hwt_assign_str(wheel, wheel);
			   __entry->now = now;),
	    TP_printk("wheel=%s now=%llu", __get_str(wheel), __entry->now)
);

/*
 * A /dev/hwtimer timeout went into its context's queue: armed, moved by
 * MODIFY, or re-armed for its next period.
 */
TRACE_EVENT(hwtimer_cdev_queue,
	    TP_PROTO(const void *ctx, const void *timer, u64 expires),
	    TP_ARGS(ctx, timer, expires),
	    TP_STRUCT__entry(__field(const void *, ctx)
			     __field(const void *, timer)
			     __field(u64, expires)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->timer = timer;
			   __entry->expires = expires;),
	    TP_printk("ctx=%p timer=%p expires=%llu", __entry->ctx,
		      __entry->timer, __entry->expires)
);

/*
 * A /dev/hwtimer timeout left its context's queue: cancelled, moved by
 * MODIFY, expired, or its context closed.
 */
TRACE_EVENT(hwtimer_cdev_dequeue,
	    TP_PROTO(const void *ctx, const void *timer),
	    TP_ARGS(ctx, timer),
	    TP_STRUCT__entry(__field(const void *, ctx)
			     __field(const void *, timer)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->timer = timer;),
	    TP_printk("ctx=%p timer=%p", __entry->ctx, __entry->timer)
);

#endif /* _HWTIMER_TRACE_H */

/* Out of tree: the including directory is on the include path (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hwtimer_trace
#include <trace/define_trace.h>
