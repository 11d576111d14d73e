/*
 * runner_pg_result: what a Postgres job's result becomes (see
 * runner_pg_int.h): its 'T' frame with the format of every column, its
 * 'D' frames, a COPY TO STDOUT's 'O' and 'd' frames, and the describe
 * job's 'S' frame.
 *
 * libpq asks for one result format per statement, while a client's Bind
 * may ask for text and binary side by side. All text or all binary go to
 * the backend as they are. A mix is run as
 *
 *   SELECT q."1", "pg_catalog"."int4send"(q."2") FROM (
 *   <statement>
 *   ) AS q("1", "2")
 *
 * in text: each binary column passes through its type's own send function
 * (looked up in pg_type, so arrays, records, enums, ranges and domains get
 * theirs) and arrives as bytea, which is decoded back to the send
 * function's bytes. Text columns are untouched. The 'T' frame is the
 * statement's own description (prepared and described first), never the
 * wrapper's. The statement has passed the proxy's checks as one complete
 * statement, so the new lines around it end any trailing comment; a
 * trailing semicolon is dropped.
 */
#define _GNU_SOURCE
#include "runner/runner_pg_int.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "runner/runner_row.h"

int result_format(const struct runner_job *job, int i)
{
	size_t n;

	if (!job->formats)
		return 0;
	n = strlen(job->formats);
	if (n == 1)
		return job->formats[0] == '1';
	return i >= 0 && (size_t)i < n && job->formats[i] == '1';
}

bool formats_mixed(const struct runner_job *job)
{
	return job->formats && strchr(job->formats, '0') && strchr(job->formats, '1');
}

/* Bind's list of formats must be one for all or one per column, as Postgres checks. */
static enum outcome check_count(struct pg_run *r, int ncols)
{
	size_t n = r->job->formats ? strlen(r->job->formats) : 0;

	if (n <= 1 || n == (size_t)ncols)
		return OUT_OK;
	snprintf(r->proto_state, sizeof(r->proto_state), "%s",
		 airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION));
	snprintf(r->proto_msg, sizeof(r->proto_msg), "bind message has %zu result formats but query has %d columns", n,
		 ncols);
	return OUT_PROTO;
}

/* Prepares the job's statement unnamed and keeps its description in r->desc. */
static enum outcome prepare_described(struct pg_run *r, int64_t deadline)
{
	const struct runner_job *job = r->job;
	enum outcome o;

	if (!PQsendPrepare(r->conn, "", job->sql, job->nparams, job->nparams ? job->param_types : NULL))
		return OUT_LOST;
	o = collect(r, deadline);
	if (o != OUT_OK || r->error)
		return o;
	if (!PQsendDescribePrepared(r->conn, ""))
		return OUT_LOST;
	o = collect_keep(r, deadline, &r->desc);
	if (o == OUT_OK && !r->error && !r->desc)
		o = OUT_LOST;
	return o;
}

/* Appends text to the growing buffer *buf; false when memory ran out. */
static bool append(char **buf, size_t *len, size_t *cap, const char *text)
{
	size_t n = strlen(text);

	if (*len + n + 1 > *cap) {
		size_t c = (*len + n + 1) * 2;
		char *grown = realloc(*buf, c);

		if (!grown)
			return false;
		*buf = grown;
		*cap = c;
	}
	memcpy(*buf + *len, text, n + 1);
	*len += n;
	return true;
}

/*
 * The send function of every binary column's type: one query over
 * pg_type, every name schema-qualified so the session's search_path
 * cannot redirect it. Fills send[i] (quoted "schema"."name", owned) for
 * binary columns; OUT_PROTO when a type has none.
 */
static enum outcome find_send_functions(struct pg_run *r, int64_t deadline, char **send)
{
	static const char lookup[] =
		"SELECT t.oid, t.typname, n.nspname, p.proname FROM pg_catalog.pg_type t "
		"LEFT JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.typsend "
		"LEFT JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace "
		"WHERE t.oid OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.oid[])";
	int n = PQnfields(r->desc);
	char *oids = NULL, num[16];
	size_t len = 0, cap = 0;
	const char *param[1];
	PGresult *res = NULL;
	enum outcome o = OUT_LOST;

	if (!append(&oids, &len, &cap, "{"))
		return OUT_LOST;
	for (int i = 0; i < n; i++) {
		snprintf(num, sizeof(num), "%s%u", len > 1 ? "," : "", PQftype(r->desc, i));
		if (result_format(r->job, i) && !append(&oids, &len, &cap, num))
			goto out;
	}
	if (!append(&oids, &len, &cap, "}"))
		goto out;
	param[0] = oids;
	if (!PQsendQueryParams(r->conn, lookup, 1, NULL, param, NULL, NULL, 0))
		goto out;
	o = collect_keep(r, deadline, &res);
	if (o != OUT_OK || r->error)
		goto out;
	o = res && PQresultStatus(res) == PGRES_TUPLES_OK ? OUT_OK : OUT_LOST;
	for (int i = 0; i < n && o == OUT_OK; i++) {
		unsigned type = PQftype(r->desc, i);
		int row = -1;

		if (!result_format(r->job, i))
			continue;
		for (int k = 0; k < PQntuples(res) && row < 0; k++)
			if (strtoul(PQgetvalue(res, k, 0), NULL, 10) == type)
				row = k;
		if (row < 0 || PQgetisnull(res, row, 3)) {
			snprintf(r->proto_state, sizeof(r->proto_state), "%s",
				 airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_UNDEFINED_FUNCTION));
			snprintf(r->proto_msg, sizeof(r->proto_msg), "no binary output function available for type %s",
				 row < 0 ? "unknown" : PQgetvalue(res, row, 1));
			o = OUT_PROTO;
			break;
		}
		char *nsp = PQescapeIdentifier(r->conn, PQgetvalue(res, row, 2), strlen(PQgetvalue(res, row, 2)));
		char *fn = PQescapeIdentifier(r->conn, PQgetvalue(res, row, 3), strlen(PQgetvalue(res, row, 3)));

		if (nsp && fn && asprintf(&send[i], "%s.%s", nsp, fn) < 0)
			send[i] = NULL;
		if (!send[i])
			o = OUT_LOST;
		PQfreemem(nsp);
		PQfreemem(fn);
	}
out:
	PQclear(res);
	free(oids);
	return o;
}

/* The wrapper query (see the top of this file); NULL when memory ran out. */
static char *build_wrapper(const struct pg_run *r, char *const *send)
{
	int n = PQnfields(r->desc);
	size_t len = 0, cap = 0, body = strlen(r->job->sql);
	char *sql = NULL, item[160], *inner;
	bool ok;

	while (body && (strchr(" \t\r\n\f;", r->job->sql[body - 1])))
		body--;
	inner = strndup(r->job->sql, body);
	ok = inner && append(&sql, &len, &cap, "SELECT ");
	for (int i = 0; ok && i < n; i++) {
		if (send[i]) {
			ok = append(&sql, &len, &cap, i ? ", " : "") && append(&sql, &len, &cap, send[i]);
			snprintf(item, sizeof(item), "(q.\"%d\")", i + 1);
		} else {
			snprintf(item, sizeof(item), "%sq.\"%d\"", i ? ", " : "", i + 1);
		}
		ok = ok && append(&sql, &len, &cap, item);
	}
	ok = ok && append(&sql, &len, &cap, " FROM (\n") && append(&sql, &len, &cap, inner) &&
	     append(&sql, &len, &cap, "\n) AS q(");
	for (int i = 0; ok && i < n; i++) {
		snprintf(item, sizeof(item), "%s\"%d\"", i ? ", " : "", i + 1);
		ok = append(&sql, &len, &cap, item);
	}
	ok = ok && append(&sql, &len, &cap, ")");
	free(inner);
	if (!ok) {
		free(sql);
		return NULL;
	}
	return sql;
}

enum outcome result_prepare(struct pg_run *r, int64_t deadline, char **sql, int *format)
{
	enum outcome o;
	char **send;
	int n;

	*sql = r->job->sql;
	*format = result_format(r->job, 0);
	if (!formats_mixed(r->job))
		return OUT_OK;
	*format = 0;
	o = prepare_described(r, deadline);
	if (o != OUT_OK || r->error)
		return o;
	n = PQnfields(r->desc);
	o = check_count(r, n);
	if (o != OUT_OK)
		return o;
	send = calloc((size_t)n + 1, sizeof(*send));
	r->dec = calloc((size_t)n + 1, sizeof(*r->dec));
	r->dec_len = calloc((size_t)n + 1, sizeof(*r->dec_len));
	if (!send || !r->dec || !r->dec_len) {
		free(send);
		return OUT_LOST;
	}
	o = find_send_functions(r, deadline, send);
	if (o == OUT_OK && !r->error) {
		*sql = build_wrapper(r, send);
		r->wrapped = *sql != NULL;
		if (!*sql) {
			*sql = r->job->sql;
			o = OUT_LOST;
		}
	}
	for (int i = 0; i < n; i++)
		free(send[i]);
	free(send);
	return o;
}

/* Writes the columns of d as a 'T' frame, each with format(i) (NULL: text). */
static enum outcome put_desc(struct pg_run *r, const PGresult *d, bool formats)
{
	struct wbuf *b = &r->ctl->out;
	int n = PQnfields(d), i;

	if (n < r->skip || n - r->skip > FRAME_MAX_COLS) {
		r->refusal = "the result has too many columns";
		return OUT_REFUSED;
	}
	frame_begin(b, FRAME_ROWDESC);
	frame_put_u16(b, (uint16_t)(n - r->skip));
	for (i = r->skip; i < n; i++) {
		frame_put_cstr(b, PQfname(d, i));
		frame_put_u32(b, (uint32_t)PQftable(d, i));
		frame_put_i16(b, (int16_t)PQftablecol(d, i));
		frame_put_u32(b, (uint32_t)PQftype(d, i));
		frame_put_i16(b, (int16_t)PQfsize(d, i));
		frame_put_i32(b, (int32_t)PQfmod(d, i));
		frame_put_i16(b, formats ? (int16_t)result_format(r->job, i) : 0);
	}
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	return OUT_OK;
}

enum outcome send_desc(struct pg_run *r, const PGresult *res)
{
	enum outcome o;

	if (r->sent_desc)
		return OUT_OK;
	o = check_count(r, PQnfields(r->desc ? r->desc : res) - r->skip);
	if (o == OUT_OK)
		o = put_desc(r, r->desc ? r->desc : res, true);
	r->sent_desc = o == OUT_OK;
	return o;
}

/* A wrapped row's binary columns decoded from bytea into r->dec; false when one cannot be. */
static bool decode_row(struct pg_run *r, const PGresult *res)
{
	for (int i = 0; i < PQnfields(res); i++) {
		PQfreemem(r->dec[i]);
		r->dec[i] = NULL;
		r->dec_len[i] = 0;
		if (!result_format(r->job, i) || PQgetisnull(res, 0, i))
			continue;
		r->dec[i] = PQunescapeBytea((const unsigned char *)PQgetvalue(res, 0, i), &r->dec_len[i]);
		if (!r->dec[i])
			return false;
	}
	return true;
}

/* What runner_row_value reads: the first row of res, decoded where the job wraps bytea. */
struct row_at {
	const struct pg_run *r;
	const PGresult *res;
};

static const void *row_value(void *arg, unsigned i, size_t *len)
{
	const struct row_at *at = arg;

	*len = 0;
	i += (unsigned)at->r->skip;
	if (PQgetisnull(at->res, 0, (int)i))
		return NULL;
	if (at->r->wrapped && at->r->dec[i]) {
		*len = at->r->dec_len[i];
		return at->r->dec[i];
	}
	*len = (size_t)PQgetlength(at->res, 0, (int)i);
	return PQgetvalue(at->res, 0, (int)i);
}

enum outcome send_row(struct pg_run *r, const PGresult *res)
{
	struct row_at at = {r, res};
	enum runner_row_status st;

	/* Past max_rows nothing of the row is needed, not even its decoding. */
	r->trunc = runner_cap_check(r->job, &r->sent, 0, true);
	if (r->trunc != FRAME_TRUNC_NONE)
		return OUT_TRUNCATED;
	if (r->wrapped && !decode_row(r, res))
		return OUT_LOST;
	st = runner_row_send(r->ctl, r->job, &r->sent, (unsigned)(PQnfields(res) - r->skip), row_value, &at, &r->trunc);
	return st == RUNNER_ROW_SENT ? OUT_OK : st == RUNNER_ROW_TRUNCATED ? OUT_TRUNCATED : OUT_GONE;
}

enum outcome copy_out(struct pg_run *r, const PGresult *res)
{
	struct wbuf *b = &r->ctl->out;
	int n = PQnfields(res);
	bool header = r->job->copy_header;

	if (n < 0 || n > FRAME_MAX_COLS) {
		r->refusal = "the result has too many columns";
		return OUT_REFUSED;
	}
	r->copying = true;
	frame_begin(b, FRAME_COPY_START);
	frame_put_u8(b, PQbinaryTuples(res) ? 1 : 0);
	frame_put_u16(b, (uint16_t)n);
	for (int i = 0; i < n; i++)
		frame_put_i16(b, PQfformat(res, i) ? 1 : 0);
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	for (;;) {
		char *buf = NULL;
		int len = PQgetCopyData(r->conn, &buf, 1);
		enum outcome o;

		if (len == 0) {
			o = wait_db(r, POLLIN, r->deadline);
			if (o == OUT_OK && !PQconsumeInput(r->conn))
				o = OUT_LOST;
			if (o != OUT_OK)
				return o;
			continue;
		}
		if (len < 0)
			return OUT_OK; /* done (-1) or failed (-2): the result that follows says which */
		r->trunc = runner_cap_check(r->job, &r->sent, (size_t)len, !header);
		if (r->trunc != FRAME_TRUNC_NONE) {
			PQfreemem(buf);
			return OUT_TRUNCATED;
		}
		frame_begin(b, FRAME_COPY_DATA);
		frame_put_bytes(b, buf, (size_t)len);
		PQfreemem(buf);
		if (runner_ctl_commit(r->ctl) < 0)
			return OUT_GONE;
		runner_cap_count(&r->sent, (size_t)len, !header);
		header = false; /* the header line is bytes, not a row */
	}
}

enum outcome describe_statement(struct pg_run *r, int64_t deadline)
{
	struct wbuf *b = &r->ctl->out;
	enum outcome o = prepare_described(r, deadline);
	int n;

	if (o != OUT_OK || r->error)
		return o;
	n = PQnparams(r->desc);
	if (n < 0 || n > UINT16_MAX) {
		r->refusal = "the statement has too many parameters";
		return OUT_REFUSED;
	}
	frame_begin(b, FRAME_PARAMDESC);
	frame_put_u16(b, (uint16_t)n);
	for (int i = 0; i < n; i++)
		frame_put_u32(b, (uint32_t)PQparamtype(r->desc, i));
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	/* As Postgres describes a statement: every column's format is 0, the portal's is not known yet. */
	o = put_desc(r, r->desc, false);
	snprintf(r->tag, sizeof(r->tag), "DESCRIBE");
	return o;
}

void result_done(struct pg_run *r, char *sql)
{
	if (sql && sql != r->job->sql)
		free(sql);
	if (r->dec) {
		for (int i = 0; r->desc && i < PQnfields(r->desc); i++)
			PQfreemem(r->dec[i]);
	}
	free(r->dec);
	free(r->dec_len);
	PQclear(r->desc);
	r->dec = NULL;
	r->dec_len = NULL;
	r->desc = NULL;
}
