// SPDX-License-Identifier: GPL-2.0
/* __assign_str() takes only the field; the source is __string()'s (6.10+). */
#define CREATE_TRACE_POINTS
#include "assign_str_one_arg_trace.h"
