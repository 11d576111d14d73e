/*
 * store_fixture: what the tests of the SQLite store share: a store opened
 * on a new file in a directory of its own under /tmp, and the teardown
 * that closes it and removes the directory with everything SQLite left
 * in it (the -wal and -shm files).
 */
#ifndef AIRLOCK_TESTS_APPROVAL_STORE_FIXTURE_H
#define AIRLOCK_TESTS_APPROVAL_STORE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "approval/approval_store.h"

struct fixture {
	char dir[64];
	char path[128];
	struct approval_store *s; /* NULL while a test has it closed */
};

/* A fixture with its store open on dir/approvals.db, dir made from template (ending in XXXXXX). */
__attribute__((unused)) static struct fixture *fixture_open(const char *template)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[512];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s", template);
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/approvals.db", f->dir);
	f->s = approval_store_sqlite_open(f->path, err, sizeof(err));
	if (!f->s)
		fail_msg("open: %s", err);
	return f;
}

__attribute__((unused)) static void fixture_close(struct fixture *f)
{
	struct dirent *e;
	DIR *d;
	char p[512];

	if (f->s)
		f->s->ops->close(f->s);
	d = opendir(f->dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
}

#endif
