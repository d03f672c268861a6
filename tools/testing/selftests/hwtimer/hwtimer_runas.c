// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_runas - run a command as another uid/gid, for the selftests.
 *
 * Usage: hwtimer_runas UID GID COMMAND [ARG...]
 * busybox's su needs a password database and a setuid binary; this needs
 * neither. Drops supplementary groups, then gid, then uid, and checks that
 * the uid cannot be regained.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: %s UID GID COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("hwtimer_runas: drop privileges");
		return 1;
	}
	if (uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "hwtimer_runas: regained root\n");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("hwtimer_runas: exec");
	return 127;
}
