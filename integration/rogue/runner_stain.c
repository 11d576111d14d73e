/*
 * runner_stain: a runner that uses the backend session airlockd lends it
 * (keep_sessions) as a compromised runner could, for test_kept_sessions.py.
 *
 *	runner_stain /job/control.sock
 *
 * Speaks the control protocol as airlock-runner does, connects through
 * the job's relay socket with libpq, and by the statement's text:
 *
 *  - "stain": changes every kind of session state a later runner of the
 *    session could meet (settings, the default transaction mode, a
 *    prepared statement, a held cursor, an advisory lock, a LISTEN, a
 *    temporary table where the role may make one), reports its backend's
 *    process id, and exits without a Terminate ("stain_x": with one).
 *  - "partial": reports its backend's process id, sends the first bytes
 *    of a message and exits: the session must not be used again.
 *  - "secrets": reports what of the backend's credentials airlockd gave
 *    it: the password's length and whether it was told to use TLS.
 *  - otherwise ("probe"): reports, as one text value, its backend's
 *    process id and the state "stain" leaves, as the session holds it now.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "base/frame.h"
#include "runner/runner_ctl.h"

struct stain_job {
	char sql[256];
	char user[128];
	char dbname[128];
	char password[256];
	bool tls; /* a "tls" key came */
};

static void copy_value(const struct frame_job *fj, const char *key, char *out, size_t cap)
{
	const struct frame_str *v = frame_job_get(fj, key);

	if (v && v->len < cap) {
		memcpy(out, v->ptr, v->len);
		out[v->len] = '\0';
	}
}

/* Reads one 'P' or 'J' frame into j; the frame type, or -1. */
static int read_job(struct runner_ctl *ctl, struct stain_job *j)
{
	struct frame_job *fj = malloc(sizeof(*fj));
	uint8_t *buf = NULL;
	struct frame f;
	int type = -1;

	if (!fj || runner_ctl_read_job(ctl, &buf, &f) < 0 || frame_decode_job(&f, fj) != FRAME_OK)
		goto out;
	type = f.type;
	copy_value(fj, "sql", j->sql, sizeof(j->sql));
	copy_value(fj, "user", j->user, sizeof(j->user));
	copy_value(fj, "dbname", j->dbname, sizeof(j->dbname));
	copy_value(fj, "password", j->password, sizeof(j->password));
	j->tls = j->tls || frame_job_get(fj, "tls") != NULL;
out:
	free(buf);
	free(fj);
	return type;
}

/* One text value as the whole result. */
static int answer(struct runner_ctl *ctl, const char *value)
{
	struct wbuf *b = &ctl->out;
	size_t n = strlen(value);

	frame_begin(b, FRAME_ROWDESC);
	frame_put_u16(b, 1);
	frame_put_cstr(b, "v");
	frame_put_u32(b, 0);
	frame_put_i16(b, 0);
	frame_put_u32(b, 25); /* text */
	frame_put_i16(b, -1);
	frame_put_i32(b, -1);
	frame_put_i16(b, 0);
	if (runner_ctl_commit(ctl) < 0)
		return -1;
	frame_begin(b, FRAME_ROW);
	frame_put_u16(b, 1);
	frame_put_i32(b, (int32_t)n);
	frame_put_bytes(b, value, n);
	if (runner_ctl_commit(ctl) < 0)
		return -1;
	runner_ctl_complete(ctl, 1, FRAME_TRUNC_NONE, "SELECT 1");
	return runner_ctl_flush(ctl);
}

static void run(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		fprintf(stderr, "runner_stain: %s: %s", sql, PQerrorMessage(c));
	PQclear(r);
}

static const char *const STAINS[] = {
	"SET application_name = 'stained'",
	"SET search_path = pg_catalog",
	"SET statement_timeout = 0",
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
	"SET default_transaction_read_only = off",
	"PREPARE stain_stmt AS SELECT 1",
	"SELECT pg_advisory_lock(4242)",
	"LISTEN stain_channel",
	"BEGIN",
	"DECLARE stain_cur CURSOR WITH HOLD FOR SELECT 1",
	"COMMIT",
	"CREATE TEMP TABLE stain_tmp (x int)",
	/* Left open: the next runner would find itself inside it. */
	"BEGIN",
};

static const char PROBE[] = "SELECT concat_ws('|', pg_backend_pid(), current_setting('application_name'), "
			    "current_setting('search_path'), current_setting('statement_timeout'), "
			    "current_setting('default_transaction_read_only'), "
			    "(SELECT count(*) FROM pg_prepared_statements), (SELECT count(*) FROM pg_cursors), "
			    "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()), "
			    "(SELECT count(*) FROM pg_listening_channels()), "
			    "(SELECT count(*) FROM pg_class WHERE relname = 'stain_tmp' AND relpersistence = 't'), "
			    "now() = statement_timestamp())";

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	struct stain_job j = {{0}};
	const char *keys[] = {"host", "port", "dbname", "user", "password", "sslmode", "application_name", NULL};
	const char *vals[] = {"/job", "5432", j.dbname, j.user, "", "disable", "airlock-runner", NULL};
	char out[512];
	PGconn *c;
	PGresult *r;
	int type;

	if (argc != 2 || runner_ctl_connect(&ctl, argv[1]) < 0)
		return 2;
	type = read_job(&ctl, &j);
	if (type == FRAME_CONNECT)
		type = read_job(&ctl, &j);
	if (type != FRAME_JOB)
		return 1;
	if (strstr(j.sql, "secrets")) {
		snprintf(out, sizeof(out), "password=%zu tls=%d", strlen(j.password), j.tls);
		return answer(&ctl, out) == 0 ? 0 : 1;
	}
	c = PQconnectdbParams(keys, vals, 0);
	if (PQstatus(c) != CONNECTION_OK) {
		runner_ctl_error(&ctl, FRAME_ERROR, "08006", "EXECUTION_FAILED", "runner_stain could not connect", "",
				 "");
		runner_ctl_flush(&ctl);
		return 1;
	}
	if (strstr(j.sql, "partial")) {
		/* A Query message's header promising 64 bytes, and 6 of them. */
		static const char half[] = "Q\0\0\0\x44SELECT";

		snprintf(out, sizeof(out), "%d", PQbackendPID(c));
		r = PQexec(c, "SELECT pg_backend_pid()");
		if (PQresultStatus(r) == PGRES_TUPLES_OK)
			snprintf(out, sizeof(out), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
		if (write(PQsocket(c), half, sizeof(half) - 1) < 0)
			return 1;
		answer(&ctl, out);
		_exit(0);
	}
	if (strstr(j.sql, "stain")) {
		for (size_t i = 0; i < sizeof(STAINS) / sizeof(STAINS[0]); i++)
			run(c, STAINS[i]);
		r = PQexec(c, "SELECT pg_backend_pid()");
		snprintf(out, sizeof(out), "%s", PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?");
		PQclear(r);
		answer(&ctl, out);
		if (strstr(j.sql, "stain_x"))
			PQfinish(c);
		_exit(0);
	}
	r = PQexec(c, PROBE);
	snprintf(out, sizeof(out), "%s",
		 PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : PQerrorMessage(c));
	PQclear(r);
	answer(&ctl, out);
	PQfinish(c);
	return 0;
}
