/*
 * pg_reply: the replies every part of a Postgres session writes: the
 * output buffer and its flush, ErrorResponse and NoticeResponse,
 * ReadyForQuery, a statement's refusal (which aborts a transaction block
 * and, in the extended protocol, discards until Sync), the pieces a
 * runner's frames become, and a job started under the user's max_jobs
 * with its refusal answered. It calls nothing else of the session's
 * files, so they all build on it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "proxy/pg/pg_session_int.h"

void pgr_flush(struct pg_session *s)
{
	session_flush(&s->core);
}

/* An ErrorResponse with a SQLSTATE decided already (the table's, or one relayed from a runner). */
static void put_error(struct pg_session *s, const char *severity, const char *sqlstate, const char *message,
		      const char *detail, const char *hint, int position)
{
	struct pg_error_fields e = {
		.severity = severity,
		.sqlstate = sqlstate,
		.message = message,
		.detail = detail,
		.hint = hint,
		.position = position,
	};
	pg_put_error(&s->core.w, &e);
}

static void put_notice(struct pg_session *s, const char *severity, const char *sqlstate, const char *message,
		       const char *hint)
{
	struct pg_error_fields e = {
		.severity = severity,
		.sqlstate = sqlstate,
		.message = message,
		.hint = hint,
	};
	pg_put_notice(&s->core.w, &e);
}

/* The message as sent: the airlock code leads it, so an agent can branch on it. */
static const char *led(enum airlock_err code, const char *message, char *buf, size_t len)
{
	const char *name = airlock_err_name(code);

	if (!name[0] || strncmp(message, name, strlen(name)) == 0)
		return message;
	snprintf(buf, len, "%s: %s", name, message);
	return buf;
}

void pgr_warning(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message)
{
	char text[1100];

	put_notice(s, "WARNING", airlock_pg_sqlstate(code, native), led(code, message, text, sizeof(text)), NULL);
}

void pgr_fatal(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message)
{
	char text[1100];

	put_error(s, "FATAL", airlock_pg_sqlstate(code, native), led(code, message, text, sizeof(text)), NULL, NULL, 0);
}

void pgr_ready(struct pg_session *s)
{
	pg_put_ready(&s->core.w, s->txn);
	pgr_flush(s);
}

/* A statement-level error: inside a transaction block it aborts the block; audited as decision. */
static void refuse_as(struct pg_session *s, const char *decision, const char *sqlstate, enum airlock_err code,
		      const char *message, const char *hint, int position)
{
	char text[1100];

	put_error(s, "ERROR", sqlstate, led(code, message, text, sizeof(text)), NULL, hint, position);
	s->errors++;
	if (s->txn == 'T')
		s->txn = 'E';
	if (s->cur.extended)
		s->discard_until_sync = true;
	session_audit(&s->core, decision, sqlstate, code, 0, 0, 0);
}

static void refuse(struct pg_session *s, const char *sqlstate, enum airlock_err code, const char *message,
		   const char *hint, int position)
{
	refuse_as(s, "refused", sqlstate, code, message, hint, position);
}

void pgr_held(struct pg_session *s, const char *approval, const char *message, const char *hint, uint64_t rows)
{
	char text[1100];
	const char *sqlstate = airlock_err_pg_sqlstate(AIRLOCK_E_APPROVAL_REQUIRED);

	put_error(s, "ERROR", sqlstate, led(AIRLOCK_E_APPROVAL_REQUIRED, message, text, sizeof(text)), NULL, hint, 0);
	s->errors++;
	if (s->txn == 'T')
		s->txn = 'E';
	if (s->cur.extended)
		s->discard_until_sync = true;
	session_audit_held(&s->core, approval, rows);
}

void pgr_error(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message,
	       const char *hint, int position)
{
	refuse(s, airlock_pg_sqlstate(code, native), code, message, hint, position);
}

void pgr_refused(struct pg_session *s, const struct pgv_result *v)
{
	/* The worker took the SQLSTATE from the table; one that is not a SQLSTATE never passed vw_result. */
	refuse(s, v->sqlstate, v->code, v->message, v->hint[0] ? v->hint : NULL, v->cursor_pos);
}

void pgr_local_done(struct pg_session *s, const char *tag)
{
	pg_put_command_complete(&s->core.w, tag);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
}

void pgr_text_rowdesc(struct pg_session *s, const char *const *names, size_t n, const char *formats)
{
	pg_put_rowdesc_begin(&s->core.w, (uint16_t)n);
	for (size_t i = 0; i < n; i++) {
		struct pg_column_desc c = {.name = names[i],
					   .name_len = strlen(names[i]),
					   .type_oid = 25, /* text */
					   .typlen = -1,
					   .typmod = -1,
					   .format = pgr_format(formats, i)};

		pg_put_rowdesc_column(&s->core.w, &c);
	}
	pg_put_rowdesc_end(&s->core.w);
}

int16_t pgr_format(const char *formats, size_t i)
{
	size_t n = formats ? strlen(formats) : 0;

	if (n == 0)
		return 0;
	return formats[n == 1 ? 0 : (i < n ? i : 0)] == '1';
}

/* A 'T' payload as a RowDescription; formats NULL: as the frame says. */
static void put_rowdesc(struct pg_session *s, const struct frame *f, bool own, const char *formats)
{
	struct rbuf cur;
	struct frame_column col;
	uint16_t n;

	if (frame_rowdesc_begin(f, &n, &cur) != FRAME_OK)
		return;
	pg_put_rowdesc_begin(&s->core.w, n);
	for (uint16_t i = 0; i < n; i++) {
		struct pg_column_desc c;

		if (frame_rowdesc_next(&cur, &col) != FRAME_OK) {
			wbuf_reset(&s->core.w);
			return;
		}
		c = (struct pg_column_desc){
			.name = col.name.ptr,
			.name_len = col.name.len,
			.table_oid = col.table_oid,
			.attnum = col.attnum,
			.type_oid = col.type_oid,
			.typlen = col.typlen,
			.typmod = col.typmod,
			.format = own ? col.format : pgr_format(formats, i),
		};
		pg_put_rowdesc_column(&s->core.w, &c);
	}
	pg_put_rowdesc_end(&s->core.w);
	pgr_flush(s);
}

void pgr_rowdesc(struct pg_session *s, const struct frame *f)
{
	put_rowdesc(s, f, true, NULL);
}

void pgr_stmt_rowdesc(struct pg_session *s, const struct pgx_stmt *st, const char *formats)
{
	struct frame f = {.type = FRAME_ROWDESC, .len = st->desc_len, .payload = st->desc};
	uint16_t n = 0;
	struct rbuf cur;

	if (!st->desc || frame_rowdesc_begin(&f, &n, &cur) != FRAME_OK || n == 0) {
		pg_put_no_data(&s->core.w);
		pgr_flush(s);
		return;
	}
	put_rowdesc(s, &f, false, formats);
}

bool pgr_rowdesc_differs(const struct pgx_stmt *st, const struct frame *f)
{
	struct frame d = {.type = FRAME_ROWDESC, .len = st->desc_len, .payload = st->desc};
	struct rbuf a, b;
	struct frame_column x, y;
	uint16_t na, nb;

	if (!st->desc)
		return false;
	if (frame_rowdesc_begin(&d, &na, &a) != FRAME_OK || frame_rowdesc_begin(f, &nb, &b) != FRAME_OK || na != nb)
		return true;
	for (uint16_t i = 0; i < na; i++) {
		if (frame_rowdesc_next(&a, &x) != FRAME_OK || frame_rowdesc_next(&b, &y) != FRAME_OK)
			return true;
		if (x.type_oid != y.type_oid || x.typmod != y.typmod || x.name.len != y.name.len ||
		    memcmp(x.name.ptr, y.name.ptr, x.name.len) != 0)
			return true;
	}
	return false;
}

void pgr_result_type_changed(struct pg_session *s)
{
	pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED, "cached plan must not change result type",
		  "prepare the statement again (Parse), then Describe it", 0);
}

/* A runner's 'N' frame as a NoticeResponse, sent now. */
void pgr_frame_notice(struct pg_session *s, const struct frame_error *e)
{
	char sqlstate[6], message[1024], hint[512];

	snprintf(sqlstate, sizeof(sqlstate), "%.*s", (int)e->sqlstate.len, e->sqlstate.ptr);
	snprintf(message, sizeof(message), "%.*s", (int)e->message.len, e->message.ptr);
	snprintf(hint, sizeof(hint), "%.*s", (int)e->hint.len, e->hint.ptr);
	put_notice(s, "NOTICE",
		   sqlstate[0] ? sqlstate : airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION),
		   message, hint[0] ? hint : NULL);
	pgr_flush(s);
}

static const char TRUNC_HINT[] = "add a LIMIT, select fewer columns or filter with WHERE to get the whole result";

static void truncation_text(struct pg_session *s, uint8_t truncated, uint64_t rows, char *out, size_t len)
{
	const struct airlock_limits *lim = &s->core.u->limits;

	if (truncated == FRAME_TRUNC_MAX_ROWS)
		snprintf(out, len, "RESULT_TRUNCATED: result truncated by max_rows=%u after %" PRIu64 " rows",
			 lim->max_rows, rows);
	else
		snprintf(out, len, "RESULT_TRUNCATED: result truncated by max_bytes=%" PRIu64 " after %" PRIu64 " rows",
			 lim->max_bytes, rows);
}

void pgr_truncated(struct pg_session *s, uint8_t truncated, uint64_t rows)
{
	char note[512];

	truncation_text(s, truncated, rows, note, sizeof(note));
	put_notice(s, "NOTICE", airlock_pg_sqlstate(AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE), note, TRUNC_HINT);
}

void pgr_truncated_error(struct pg_session *s, uint8_t truncated, uint64_t rows)
{
	char msg[512];

	truncation_text(s, truncated, rows, msg, sizeof(msg));
	pgr_error(s, AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, msg, TRUNC_HINT, 0);
}

/* A job's error as an ErrorResponse, the airlock code leading the message. */
void pgr_job_error(struct pg_session *s, const struct job_result *r)
{
	const char *code = airlock_err_name(r->code);
	char msg[1200];

	if (code[0] && strncmp(r->message, code, strlen(code)) != 0)
		snprintf(msg, sizeof(msg), "%s: %s", code, r->message);
	else
		snprintf(msg, sizeof(msg), "%s", r->message);
	put_error(s, "ERROR", r->sqlstate, msg, r->detail, r->hint, r->position);
	if (s->txn == 'T')
		s->txn = 'E';
	session_audit(&s->core, "error", r->sqlstate, r->code, 0, 0, 0);
}

struct job *pgr_start_job(struct pg_session *s, const struct job_request *req, const struct job_events *ev, void *arg)
{
	struct session_refusal why;
	struct job *j = session_job_start(&s->core, req, ev, arg, &why);

	if (!j)
		pgr_error(s, why.code, AIRLOCK_N_NONE, why.message, why.hint[0] ? why.hint : NULL, 0);
	return j;
}
