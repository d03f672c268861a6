/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: U64_MAX lives in types.h here. */
#include <linux/types.h>
