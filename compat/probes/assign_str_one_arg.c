// SPDX-License-Identifier: GPL-2.0
/* __assign_str() takes only the field; the source is __string()'s (6.10+). */

/*
 * Without tracepoints TRACE_EVENT() expands to nothing, so either form
 * would compile and the answer would mean nothing: say no. hwtimer's own
 * events are compiled out there as well.
 */
#ifndef CONFIG_TRACEPOINTS
#error "no tracepoints: __assign_str() is never expanded"
#endif

#define CREATE_TRACE_POINTS
#include "assign_str_one_arg_trace.h"
