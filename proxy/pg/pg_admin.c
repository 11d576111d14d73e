/*
 * pg_admin: the admin console over the Postgres wire. An admin logs in to
 * the virtual database "airlock" (pg_session.c) and sends simple Query
 * messages; each is one console command (proxy/admin_cmd.h) run by
 * proxy/admin.c, whose result set is written here as text columns.
 * Every command is audited with the admin's name as its user.
 */
#include <stdio.h>
#include <string.h>

#include "proxy/admin.h"
#include "proxy/admin_cmd.h"
#include "proxy/pg/pg_session_int.h"

/* The largest DataRow a console row makes (proxy/admin.c's cells are shorter). */
#define PGA_ROW_MAX 4096

struct pga_reply {
	struct pg_session *s;
	bool bad; /* a row did not fit: the session ends rather than answer half a row */
};

static void pga_columns(void *arg, const char *const *names, size_t n)
{
	struct pga_reply *r = arg;

	pgr_text_rowdesc(r->s, names, n, NULL);
}

static void pga_row(void *arg, const char *const *cells, size_t n)
{
	struct pga_reply *r = arg;
	uint8_t row[PGA_ROW_MAX];
	size_t len = 2;

	row[0] = (uint8_t)(n >> 8);
	row[1] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		size_t v = strlen(cells[i]);

		if (len + 4 + v > sizeof(row)) {
			r->bad = true;
			return;
		}
		row[len++] = (uint8_t)(v >> 24);
		row[len++] = (uint8_t)(v >> 16);
		row[len++] = (uint8_t)(v >> 8);
		row[len++] = (uint8_t)v;
		memcpy(row + len, cells[i], v);
		len += v;
	}
	pg_put_datarow_raw(&r->s->core.w, row, len);
}

static void pga_query(struct pg_session *s, const char *sql)
{
	struct pga_reply r = {.s = s};
	const struct admin_out out = {.columns = pga_columns, .row = pga_row, .arg = &r};
	struct admin_error err;
	struct admin_cmd cmd;
	char tag[64];

	session_statement_begin(&s->core, 0);
	s->cur = (struct pgq_exec){.describe = true};
	admin_cmd_parse(sql, &cmd);
	if (!admin_run(&s->core, &cmd, &out, tag, sizeof(tag), &err)) {
		session_log(&s->core, "admin %s: refused: %s", s->core.user, err.message);
		pgr_error(s, err.code, err.native, err.message, NULL, 0);
		pgr_ready(s);
		return;
	}
	if (r.bad) {
		session_close(&s->core, false, "an admin console row did not fit");
		return;
	}
	session_log(&s->core, "admin %s: %s", s->core.user, admin_cmd_name(cmd.kind));
	pg_put_command_complete(&s->core.w, tag);
	session_audit(&s->core, "admin", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	pgr_ready(s);
	admin_after(&s->core, &cmd);
}

bool pga_message(struct pg_session *s, const struct pg_msg *m)
{
	const char *sql, *err;

	switch (m->type) {
	case 'Q':
		if (pg_parse_query(m, &sql, &err) != PG_OK) {
			pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION,
				  err ? err : "malformed Query message");
			pgr_flush(s);
			session_close(&s->core, true, "malformed Query message");
			return false;
		}
		pga_query(s, sql);
		return s->core.st != SESSION_CLOSING;
	case 'X':
		session_close(&s->core, true, "Terminate");
		return false;
	default:
		pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED,
			  "the admin console speaks the simple Query protocol only");
		pgr_flush(s);
		session_close(&s->core, true, "admin console: not a simple Query");
		return false;
	}
}
