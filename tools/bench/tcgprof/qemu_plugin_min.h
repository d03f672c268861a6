/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few declarations of QEMU's TCG plugin API (plugin version 1, as in
 * QEMU 7.2) that tcgprof uses, spelled without the API's typedefs: a
 * plugin id is a uint64_t, and tcgprof never looks inside qemu_info_t.
 */
#ifndef TCGPROF_QEMU_PLUGIN_MIN_H
#define TCGPROF_QEMU_PLUGIN_MIN_H

#include <stddef.h>
#include <stdint.h>

struct qemu_plugin_tb;

enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(uint64_t id,
					   void (*cb)(uint64_t id,
						      struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(uint64_t id,
				    void (*cb)(uint64_t id, void *userdata),
				    void *userdata);

#endif
