/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: nothing is exported from a program. */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL_NS_GPL(sym, ns)
#define EXPORT_SYMBOL_GPL(sym)

#endif
