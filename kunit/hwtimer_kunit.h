/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by hwtimer's KUnit suites. */
#ifndef _HWTIMER_KUNIT_H
#define _HWTIMER_KUNIT_H

#include <kunit/test.h>

/*
 * KUNIT_CASE_SLOW (attributes) arrived in 6.6; on older kernels a slow case
 * is an ordinary one. Each case still has KUnit's 300 s limit.
 */
#ifndef KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#endif

#endif /* _HWTIMER_KUNIT_H */
