/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hwtimer_probe

#if !defined(_HWTIMER_PROBE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HWTIMER_PROBE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(hwtimer_probe,
	    TP_PROTO(const char *s),
	    TP_ARGS(s),
	    TP_STRUCT__entry(__string(s, s)),
	    TP_fast_assign(__assign_str(s);),
	    TP_printk("%s", __get_str(s))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE assign_str_one_arg_trace
#include <trace/define_trace.h>
