/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the kernel types hwtimer_wheel.c uses. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define U64_MAX		UINT64_MAX

#endif
