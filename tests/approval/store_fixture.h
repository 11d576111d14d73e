/*
 * store_fixture: what the tests of the stores share: a store opened on a
 * new file in a directory of its own under /tmp, and the teardown that
 * closes it and removes the directory with everything SQLite left in it
 * (the -wal and -shm files).
 *
 * Built with STORE_PG, the store is the Postgres one instead, on the
 * database AIRLOCK_TEST_STATE_DSN names (a key=value conninfo), in a
 * schema of its own that the teardown drops; fixture_other opens a second
 * handle on the same store, as another node would.
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
	char schema[64];          /* STORE_PG: the schema the store's table is in */
	char dsn[1024];           /* STORE_PG: the conninfo the store is opened on */
	struct approval_store *s; /* NULL while a test has it closed */
};

#ifdef STORE_PG
#include <libpq-fe.h>

/* The node the fixture's first handle is (a peer_id). */
#define FIXTURE_NODE 1

/* Runs sql on the test database as the test's own connection. */
static void fixture_sql(const char *sql)
{
	PGconn *c = PQconnectdb(getenv("AIRLOCK_TEST_STATE_DSN"));
	PGresult *r = PQexec(c, sql);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}
#endif

/* Another handle on f's store; as node (STORE_PG) or on the same file. The caller closes it. */
__attribute__((unused)) static struct approval_store *fixture_other(struct fixture *f, int node)
{
	char err[512];
	struct approval_store *s;

#ifdef STORE_PG
	s = approval_store_pg_open(f->dsn, node, err, sizeof(err));
#else
	(void)node;
	s = approval_store_sqlite_open(f->path, err, sizeof(err));
#endif
	if (!s)
		fail_msg("open: %s", err);
	return s;
}

/* A fixture with its store open on dir/approvals.db, dir made from template (ending in XXXXXX). */
__attribute__((unused)) static struct fixture *fixture_open(const char *template)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[512];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s", template);
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/approvals.db", f->dir);
#ifdef STORE_PG
	char sql[128];

	(void)err;
	snprintf(f->schema, sizeof(f->schema), "approval_test_%s", strrchr(f->dir, '_') + 1);
	for (char *p = f->schema; *p; p++)
		*p = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	snprintf(sql, sizeof(sql), "CREATE SCHEMA \"%s\"", f->schema);
	fixture_sql(sql);
	snprintf(f->dsn, sizeof(f->dsn), "%s options='-c search_path=\"%s\"' application_name=%s",
		 getenv("AIRLOCK_TEST_STATE_DSN"), f->schema, f->schema);
	f->s = fixture_other(f, FIXTURE_NODE);
#else
	f->s = approval_store_sqlite_open(f->path, err, sizeof(err));
	if (!f->s)
		fail_msg("open: %s", err);
#endif
	return f;
}

__attribute__((unused)) static void fixture_close(struct fixture *f)
{
	struct dirent *e;
	DIR *d;
	char p[512];

	if (f->s)
		f->s->ops->close(f->s);
#ifdef STORE_PG
	snprintf(p, sizeof(p), "SET client_min_messages = warning; DROP SCHEMA \"%s\" CASCADE", f->schema);
	fixture_sql(p);
#endif
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
