/*
 * pg_extended: the extended query protocol of a Postgres session: Parse,
 * Bind, Describe, Execute, Close, Sync and Flush. Prepared statements and
 * portals live here (owned by the session, freed with it); execution goes
 * through pg_query like a simple Query, with bound parameters passed to the
 * runner and answered without ReadyForQuery until Sync.
 *
 * A statement is validated at Parse (so refusals come back early) and again
 * at Execute (the session's search_path may have changed in between).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy/pg/pg_session_int.h"

static void pgx_protocol_error(struct pg_session *s, const char *err)
{
	s->cur.extended = true;
	pgr_error(s, "08P01", AIRLOCK_E_NONE, err ? err : "malformed message", NULL, 0);
}

static void pgx_begin(struct pg_session *s)
{
	session_statement_begin(&s->core, 0);
	s->cur = (struct pgq_exec){.extended = true};
}

static bool pgx_parse(struct pg_session *s, const struct pg_msg *m)
{
	struct pg_parse pp;
	struct pgx_stmt *st;
	const char *err = NULL;
	char msg[160];
	int slot = -1, old;

	pgx_begin(s);
	if (pg_parse_parse(m, &pp, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	if (strlen(pp.name) >= sizeof(st->name) || pp.ntypes > SESS_MAX_PARAMS) {
		pgr_error(s, "54000", AIRLOCK_E_NONE, "statement name too long or too many parameter types", NULL, 0);
		return true;
	}
	old = pgx_find_stmt(s, pp.name);
	if (old >= 0 && pp.name[0]) {
		snprintf(msg, sizeof(msg), "prepared statement \"%s\" already exists", pp.name);
		pgr_error(s, "42P05", AIRLOCK_E_NONE, msg, NULL, 0);
		return true;
	}
	if (old >= 0)
		pgx_close_stmt(s, old); /* the unnamed statement is replaced */
	/* Bounded by the memory they hold (their text and what airlock keeps for each), not by a count. */
	if (s->prepared_bytes + sizeof(*st) + strlen(pp.query) + 1 + (size_t)pp.ntypes * sizeof(uint32_t) >
	    SESS_MAX_PREPARED_BYTES) {
		pgr_error(s, "53400", AIRLOCK_E_NONE, "prepared statements of this session hold too much memory",
			  "close prepared statements you no longer need", 0);
		return true;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->sql = strdup(pp.query)) ||
	    (pp.ntypes && !(st->types = calloc(pp.ntypes, sizeof(*st->types))))) {
		if (st)
			free(st->sql);
		free(st);
		pgr_error(s, "53200", AIRLOCK_E_NONE, "out of memory", NULL, 0);
		return true;
	}
	snprintf(st->name, sizeof(st->name), "%s", pp.name);
	st->ntypes = pp.ntypes;
	for (uint16_t i = 0; i < pp.ntypes; i++)
		st->types[i] = pg_parse_type_at(&pp, i);
	pgp_validate(s, st->sql, &st->v);
	s->core.fingerprint = st->v.fingerprint;
	if (st->v.kind == PGV_REFUSED) {
		pgr_error(s, st->v.sqlstate, st->v.code, st->v.message, st->v.hint[0] ? st->v.hint : NULL,
			  st->v.cursor_pos);
		free(st->sql);
		free(st->types);
		free(st);
		return true;
	}
	slot = pgx_stmt_slot(s);
	if (slot < 0) {
		free(st->sql);
		free(st->types);
		free(st);
		pgr_error(s, "53200", AIRLOCK_E_NONE, "out of memory", NULL, 0);
		return true;
	}
	st->bytes = sizeof(*st) + strlen(st->sql) + 1 + (size_t)st->ntypes * sizeof(uint32_t);
	s->prepared_bytes += st->bytes;
	s->stmts[slot] = st;
	pg_put_parse_complete(&s->core.w);
	pgr_flush(s);
	return true;
}

static bool pgx_bind(struct pg_session *s, const struct pg_msg *m)
{
	struct pg_bind b;
	struct pg_bind_value vals[SESS_MAX_PARAMS];
	struct pgx_portal *p;
	struct pgx_stmt *st;
	const char *err = NULL;
	char msg[160];
	size_t total = 0, off = 0;
	int si, old, slot = -1;

	pgx_begin(s);
	if (pg_parse_bind(m, &b, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	si = pgx_find_stmt(s, b.stmt);
	if (si < 0) {
		snprintf(msg, sizeof(msg), "prepared statement \"%.64s\" does not exist", b.stmt);
		pgr_error(s, "26000", AIRLOCK_E_NONE, msg, NULL, 0);
		return true;
	}
	st = s->stmts[si];
	if (b.nparams > SESS_MAX_PARAMS || strlen(b.portal) >= sizeof(p->name) ||
	    pg_bind_values(&b, vals, SESS_MAX_PARAMS) != PG_OK) {
		pgr_error(s, "54000", AIRLOCK_E_NONE, "too many parameters", NULL, 0);
		return true;
	}
	for (uint16_t c = 0; c < b.nresult_formats; c++) {
		if (pg_bind_result_format(&b, c) != 0) {
			pgr_error(s, "0A000", AIRLOCK_E_UNSUPPORTED, "binary result format is not supported yet",
				  "ask for text results (result format 0)", 0);
			return true;
		}
	}
	old = pgx_find_portal(s, b.portal);
	if (old >= 0 && b.portal[0]) {
		snprintf(msg, sizeof(msg), "portal \"%s\" already exists", b.portal);
		pgr_error(s, "42P03", AIRLOCK_E_NONE, msg, NULL, 0);
		return true;
	}
	if (old >= 0)
		pgx_close_portal(s, old);
	for (int i = 0; i < SESS_MAX_PORTALS && slot < 0; i++)
		if (!s->portals[i])
			slot = i;
	if (slot < 0) {
		pgr_error(s, "53400", AIRLOCK_E_NONE, "too many open portals in this session",
			  "close portals you no longer need", 0);
		return true;
	}
	for (uint16_t i = 0; i < b.nparams; i++) {
		/* Postgres reads a text parameter as a string of the client encoding: a NUL byte is not one. */
		if (vals[i].format == 0 && vals[i].len > 0 && memchr(vals[i].data, '\0', (size_t)vals[i].len)) {
			pgr_error(s, "22021", AIRLOCK_E_NONE, "invalid byte sequence for encoding \"UTF8\": 0x00", NULL,
				  0);
			return true;
		}
		total += vals[i].len > 0 ? (size_t)vals[i].len : 0;
	}
	if (s->prepared_bytes + total > SESS_MAX_PREPARED_BYTES) {
		pgr_error(s, "53400", AIRLOCK_E_NONE, "bound parameters of this session hold too much memory",
			  "close portals you no longer need", 0);
		return true;
	}
	p = calloc(1, sizeof(*p));
	if (p) {
		p->values = malloc(total ? total : 1);
		p->params = calloc(b.nparams ? b.nparams : 1, sizeof(*p->params));
	}
	if (!p || !p->values || !p->params) {
		if (p) {
			free(p->values);
			free(p->params);
		}
		free(p);
		pgr_error(s, "53200", AIRLOCK_E_NONE, "out of memory", NULL, 0);
		return true;
	}
	snprintf(p->name, sizeof(p->name), "%s", b.portal);
	p->stmt = st;
	p->nparams = b.nparams;
	for (uint16_t i = 0; i < b.nparams; i++) {
		struct job_param *jp = &p->params[i];

		jp->type_oid = i < st->ntypes ? st->types[i] : 0;
		jp->binary = vals[i].format == 1;
		if (vals[i].len < 0)
			continue;
		memcpy(p->values + off, vals[i].data, (size_t)vals[i].len);
		jp->value = p->values + off;
		jp->len = (uint32_t)vals[i].len;
		off += (size_t)vals[i].len;
	}
	p->bytes = total;
	s->prepared_bytes += p->bytes;
	s->portals[slot] = p;
	pg_put_bind_complete(&s->core.w);
	pgr_flush(s);
	return true;
}

/* Statements whose rows come from a runner: their RowDescription is known only once it runs. */
static bool runs_remotely(const struct pgv_result *v)
{
	return v->kind == PGV_READ || (v->kind == PGV_SHOW && pgs_find(v->name) < 0);
}

/* RowDescription for what the proxy answers itself (local SHOW), or NoData. */
static void describe_local(struct pg_session *s, const struct pgv_result *v)
{
	int i = v->kind == PGV_SHOW ? pgs_find(v->name) : -1;

	if (i >= 0) {
		struct pg_column_desc c = {
			.name = pgs_defs[i].display,
			.name_len = strlen(pgs_defs[i].display),
			.type_oid = 25,
			.typlen = -1,
			.typmod = -1,
		};

		pg_put_rowdesc_begin(&s->core.w, 1);
		pg_put_rowdesc_column(&s->core.w, &c);
		pg_put_rowdesc_end(&s->core.w);
	} else {
		pg_put_no_data(&s->core.w);
	}
}

static bool pgx_describe(struct pg_session *s, const struct pg_msg *m)
{
	const char *name, *err = NULL;
	char kind, msg[160];
	int i;

	pgx_begin(s);
	if (pg_parse_describe(m, &kind, &name, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	if (kind == 'S') {
		struct pgx_stmt *st;

		i = pgx_find_stmt(s, name);
		if (i < 0) {
			snprintf(msg, sizeof(msg), "prepared statement \"%.64s\" does not exist", name);
			pgr_error(s, "26000", AIRLOCK_E_NONE, msg, NULL, 0);
			return true;
		}
		st = s->stmts[i];
		if (runs_remotely(&st->v)) {
			pgr_error(s, "0A000", AIRLOCK_E_UNSUPPORTED,
				  "describing a prepared statement's result columns is not supported yet",
				  "Bind it and Describe the portal instead", 0);
			return true;
		}
		pg_put_parameter_description(&s->core.w, st->types, st->ntypes);
		describe_local(s, &st->v);
		pgr_flush(s);
		return true;
	}
	i = pgx_find_portal(s, name);
	if (i < 0) {
		snprintf(msg, sizeof(msg), "portal \"%.64s\" does not exist", name);
		pgr_error(s, "34000", AIRLOCK_E_NONE, msg, NULL, 0);
		return true;
	}
	if (runs_remotely(&s->portals[i]->stmt->v)) {
		/* Sent when Execute runs it: the runner's column description is the real one. */
		s->portals[i]->described = true;
		return true;
	}
	describe_local(s, &s->portals[i]->stmt->v);
	pgr_flush(s);
	return true;
}

static bool pgx_execute(struct pg_session *s, const struct pg_msg *m)
{
	const char *name, *err = NULL;
	struct pgx_portal *p;
	struct pgv_result v;
	struct pgq_exec x;
	uint32_t max_rows;
	char msg[160];
	int i;

	pgx_begin(s);
	if (pg_parse_execute(m, &name, &max_rows, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	i = pgx_find_portal(s, name);
	if (i < 0) {
		snprintf(msg, sizeof(msg), "portal \"%.64s\" does not exist", name);
		pgr_error(s, "34000", AIRLOCK_E_NONE, msg, NULL, 0);
		return true;
	}
	p = s->portals[i];
	if (p->suspended) {
		pgr_error(s, "0A000", AIRLOCK_E_UNSUPPORTED,
			  "fetching more rows from a suspended portal is not supported yet",
			  "run the query again with a LIMIT/OFFSET, or without a row limit on Execute", 0);
		return true;
	}
	/* The search_path may have changed since Parse: decide again. */
	pgp_validate(s, p->stmt->sql, &v);
	x = (struct pgq_exec){
		.extended = true,
		.describe = p->described,
		.max_rows = max_rows,
		.params = p->params,
		.nparams = p->nparams,
		.portal = p,
	};
	if (pgq_execute(s, p->stmt->sql, &v, &x))
		pgr_flush(s);
	return true;
}

static bool pgx_close(struct pg_session *s, const struct pg_msg *m)
{
	const char *name, *err = NULL;
	char kind;
	int i;

	pgx_begin(s);
	if (pg_parse_describe(m, &kind, &name, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	/* Closing something that does not exist is not an error. */
	if (kind == 'S' && (i = pgx_find_stmt(s, name)) >= 0)
		pgx_close_stmt(s, i);
	else if (kind == 'P' && (i = pgx_find_portal(s, name)) >= 0)
		pgx_close_portal(s, i);
	pg_put_close_complete(&s->core.w);
	pgr_flush(s);
	return true;
}

bool pgx_message(struct pg_session *s, const struct pg_msg *m)
{
	if (m->type == 'S') {
		s->discard_until_sync = false;
		pgr_ready(s);
		return true;
	}
	if (m->type == 'H') {
		pgr_flush(s);
		return true;
	}
	/* After an error, everything up to Sync is skipped. */
	if (s->discard_until_sync)
		return true;
	switch (m->type) {
	case 'P':
		return pgx_parse(s, m);
	case 'B':
		return pgx_bind(s, m);
	case 'D':
		return pgx_describe(s, m);
	case 'E':
		return pgx_execute(s, m);
	case 'C':
		return pgx_close(s, m);
	default:
		return true;
	}
}
