// SPDX-License-Identifier: GPL-2.0
/*
 * tcgprof: a QEMU TCG plugin that counts the guest instructions executed
 * in each translation block and, when QEMU exits, writes one line per
 * translated block: "<hex vaddr> <instructions> <executions>". Load it with
 * -plugin tcgprof.so,out=<outfile>; tcgprof.py turns the file and the
 * guest's symbols into instructions per function.
 *
 * The counters are bumped inline by the translated code, without atomics,
 * so two vCPUs running the same block at once may lose a count now and
 * then: the profile is a sample, exact enough to rank functions.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_min.h"

int qemu_plugin_version = 1;

struct block {
	uint64_t vaddr;
	uint64_t ninsns;
	uint64_t count;
	struct block *next;
};

static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path = "tcgprof.out";

static void tb_trans(uint64_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		return;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->ninsns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

static void at_exit(uint64_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	if (!f)
		return;
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = b->next)
		if (b->count)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->ninsns,
				(unsigned long long)b->count);
	pthread_mutex_unlock(&blocks_lock);
	fclose(f);
}

int qemu_plugin_install(uint64_t id, const void *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
