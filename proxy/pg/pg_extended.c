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
	pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, err ? err : "malformed message", NULL, 0);
}

static void pgx_begin(struct pg_session *s)
{
	session_statement_begin(&s->core, 0);
	s->cur = (struct pgq_exec){.extended = true};
}

/* A prepared statement or a portal: how the messages find, replace and name one. */
struct pgx_kind {
	const char *noun;
	enum airlock_native duplicate; /* a named one that exists already */
	enum airlock_native missing;   /* none of that name */
	int (*find)(struct pg_session *s, const char *name);
	void (*close)(struct pg_session *s, int i);
};

static const struct pgx_kind stmt_kind = {"prepared statement", AIRLOCK_N_PG_DUPLICATE_PREPARED_STATEMENT,
					  AIRLOCK_N_PG_NO_SUCH_PREPARED_STATEMENT, pgx_find_stmt, pgx_close_stmt};
static const struct pgx_kind portal_kind = {"portal", AIRLOCK_N_PG_DUPLICATE_CURSOR, AIRLOCK_N_PG_NO_SUCH_CURSOR,
					    pgx_find_portal, pgx_close_portal};

/* Queues the error that name exists already (exists) or does not exist. */
static void pgx_name_error(struct pg_session *s, const struct pgx_kind *k, const char *name, bool exists)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s \"%.64s\" %s", k->noun, name, exists ? "already exists" : "does not exist");
	pgr_error(s, AIRLOCK_E_NONE, exists ? k->duplicate : k->missing, msg, NULL, 0);
}

/* The index of the statement or portal called name; -1 (the error queued) when there is none. */
static int pgx_lookup(struct pg_session *s, const struct pgx_kind *k, const char *name)
{
	int i = k->find(s, name);

	if (i < 0)
		pgx_name_error(s, k, name, false);
	return i;
}

/*
 * Frees name for a new statement or portal: a named one that exists is an
 * error (queued; false); the unnamed one is closed, as Postgres replaces it.
 * Its length is checked before, so the error quotes it whole.
 */
static bool pgx_claim_name(struct pg_session *s, const struct pgx_kind *k, const char *name)
{
	int old = k->find(s, name);

	if (old >= 0 && name[0]) {
		pgx_name_error(s, k, name, true);
		return false;
	}
	if (old >= 0)
		k->close(s, old);
	return true;
}

/* A statement Parse refuses; a star's refusal waits for the describe job that names its columns. */
static void refuse_parse(struct pg_session *s, const struct pgx_stmt *st)
{
	struct job_param params[SESS_MAX_PARAMS];

	if (st->v.code != AIRLOCK_E_SELECT_STAR) {
		pgr_refused(s, &st->v);
		return;
	}
	for (uint16_t i = 0; i < st->ntypes; i++)
		params[i] = (struct job_param){.type_oid = st->types[i]};
	pgst_refuse(s, st->sql, &st->v, params, st->ntypes);
}

static bool pgx_parse(struct pg_session *s, const struct pg_msg *m)
{
	struct pg_parse pp;
	struct pgx_stmt *st;
	const char *err = NULL;
	int slot;

	pgx_begin(s);
	if (pg_parse_parse(m, &pp, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	if (strlen(pp.name) >= sizeof(st->name) || pp.ntypes > SESS_MAX_PARAMS) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED,
			  "statement name too long or too many parameter types", NULL, 0);
		return true;
	}
	if (!pgx_claim_name(s, &stmt_kind, pp.name))
		return true;
	/* Bounded by the memory they hold (their text and what airlock keeps for each), not by a count. */
	if (s->prepared_bytes + sizeof(*st) + strlen(pp.query) + 1 + (size_t)pp.ntypes * sizeof(uint32_t) >
	    SESS_MAX_PREPARED_BYTES) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_CONFIGURATION_LIMIT_EXCEEDED,
			  "prepared statements of this session hold too much memory",
			  "close prepared statements you no longer need", 0);
		return true;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->sql = strdup(pp.query)) ||
	    (pp.ntypes && !(st->types = calloc(pp.ntypes, sizeof(*st->types))))) {
		if (st)
			free(st->sql);
		free(st);
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return true;
	}
	snprintf(st->name, sizeof(st->name), "%s", pp.name);
	st->ntypes = pp.ntypes;
	for (uint16_t i = 0; i < pp.ntypes; i++)
		st->types[i] = pg_parse_type_at(&pp, i);
	pgp_validate(s, st->sql, &st->v);
	s->core.fingerprint = st->v.fingerprint;
	if (st->v.kind == PGV_REFUSED) {
		refuse_parse(s, st);
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
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return true;
	}
	st->bytes = sizeof(*st) + strlen(st->sql) + 1 + (size_t)st->ntypes * sizeof(uint32_t);
	st->refs = 1;
	s->prepared_bytes += st->bytes;
	s->stmts[slot] = st;
	pg_put_parse_complete(&s->core.w);
	pgr_flush(s);
	return true;
}

/* A free slot of s->portals, or -1. */
static int free_portal_slot(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_PORTALS; i++)
		if (!s->portals[i])
			return i;
	return -1;
}

/* What Postgres checks at Bind, for a statement whose description is known. */
static bool bind_matches(struct pg_session *s, const struct pgx_stmt *st, const struct pg_bind *b)
{
	struct frame f = {.type = FRAME_ROWDESC, .len = st->desc_len, .payload = st->desc};
	struct rbuf cur;
	uint16_t ncols;
	char msg[200];

	if (!st->desc || frame_rowdesc_begin(&f, &ncols, &cur) != FRAME_OK)
		return true;
	if (b->nparams != st->ntypes) {
		snprintf(msg, sizeof(msg),
			 "bind message supplies %u parameters, but prepared statement \"%s\" requires %u", b->nparams,
			 st->name, st->ntypes);
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, msg, NULL, 0);
		return false;
	}
	if (b->nresult_formats > 1 && b->nresult_formats != ncols) {
		snprintf(msg, sizeof(msg), "bind message has %u result formats but query has %u columns",
			 b->nresult_formats, ncols);
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, msg, NULL, 0);
		return false;
	}
	return true;
}

static bool pgx_bind(struct pg_session *s, const struct pg_msg *m)
{
	struct pg_bind b;
	struct pg_bind_value vals[SESS_MAX_PARAMS];
	struct pgx_portal *p;
	struct pgx_stmt *st;
	const char *err = NULL;
	size_t total = 0, off = 0;
	int si, slot;
	bool binary = false, keep_formats;

	pgx_begin(s);
	if (pg_parse_bind(m, &b, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	si = pgx_lookup(s, &stmt_kind, b.stmt);
	if (si < 0)
		return true;
	st = s->stmts[si];
	if (b.nparams > SESS_MAX_PARAMS || strlen(b.portal) >= sizeof(p->name) ||
	    pg_bind_values(&b, vals, SESS_MAX_PARAMS) != PG_OK) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, "too many parameters", NULL, 0);
		return true;
	}
	/* The codec has checked every code is 0 or 1. */
	for (uint16_t c = 0; c < b.nresult_formats; c++)
		binary = binary || pg_bind_result_format(&b, c) == 1;
	/* Formats travel to the runner when any is binary, or when a list must match the column count. */
	keep_formats = binary || b.nresult_formats > 1;
	if (!bind_matches(s, st, &b))
		return true;
	if (!pgx_claim_name(s, &portal_kind, b.portal))
		return true;
	slot = free_portal_slot(s);
	if (slot < 0) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_CONFIGURATION_LIMIT_EXCEEDED,
			  "too many open portals in this session", "close portals you no longer need", 0);
		return true;
	}
	for (uint16_t i = 0; i < b.nparams; i++) {
		/* Postgres reads a text parameter as a string of the client encoding: a NUL byte is not one. */
		if (vals[i].format == 0 && vals[i].len > 0 && memchr(vals[i].data, '\0', (size_t)vals[i].len)) {
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_BYTE_SEQUENCE,
				  "invalid byte sequence for encoding \"UTF8\": 0x00", NULL, 0);
			return true;
		}
		total += vals[i].len > 0 ? (size_t)vals[i].len : 0;
	}
	if (keep_formats)
		total += b.nresult_formats + 1;
	if (s->prepared_bytes + total > SESS_MAX_PREPARED_BYTES) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_CONFIGURATION_LIMIT_EXCEEDED,
			  "bound parameters of this session hold too much memory", "close portals you no longer need",
			  0);
		return true;
	}
	p = calloc(1, sizeof(*p));
	if (p) {
		p->values = malloc(total ? total : 1);
		p->params = calloc(b.nparams ? b.nparams : 1, sizeof(*p->params));
	}
	if (p && keep_formats && (p->formats = malloc(b.nresult_formats + 1u))) {
		for (uint16_t c = 0; c < b.nresult_formats; c++)
			p->formats[c] = pg_bind_result_format(&b, c) == 1 ? '1' : '0';
		p->formats[b.nresult_formats] = '\0';
	}
	if (!p || !p->values || !p->params || (keep_formats && !p->formats)) {
		if (p) {
			free(p->values);
			free(p->params);
			free(p->formats);
		}
		free(p);
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return true;
	}
	snprintf(p->name, sizeof(p->name), "%s", b.portal);
	p->stmt = st;
	st->refs++;
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

/* RowDescription for what the proxy answers itself (local SHOW, set_config()), or NoData. */
static void describe_local(struct pg_session *s, const struct pgv_result *v, const char *formats)
{
	int i = v->kind == PGV_SHOW ? pgs_find(v->name) : -1;
	const char *name = i >= 0 ? pgs_defs[i].display : v->kind == PGV_SET && v->set_config ? v->column : NULL;

	if (name) {
		struct pg_column_desc c = {
			.name = name,
			.name_len = strlen(name),
			.type_oid = 25,
			.typlen = -1,
			.typmod = -1,
			.format = pgr_format(formats, 0),
		};

		pg_put_rowdesc_begin(&s->core.w, 1);
		pg_put_rowdesc_column(&s->core.w, &c);
		pg_put_rowdesc_end(&s->core.w);
	} else {
		pg_put_no_data(&s->core.w);
	}
}

/* Sync's answer: the error state ends, an implicit transaction and its portals end, ReadyForQuery. */
static void sync_ready(struct pg_session *s)
{
	s->discard_until_sync = false;
	if (s->txn == 'I')
		pgx_close_suspended(s);
	pgr_ready(s);
}

/* ---- Describe of a statement that runs remotely: a describe job ---- */

static void described_params(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;
	struct pgx_stmt *st = s->describing;
	struct rbuf cur;
	uint32_t *types;
	uint16_t n;

	if (!st || frame_paramdesc_begin(f, &n, &cur) != FRAME_OK || n > SESS_MAX_PARAMS)
		return;
	types = calloc(n ? n : 1, sizeof(*types));
	if (!types) {
		s->describe_out_of_memory = true;
		return;
	}
	for (uint16_t i = 0; i < n; i++)
		if (frame_paramdesc_next(&cur, &types[i]) != FRAME_OK)
			types[i] = 0;
	/* The backend's inference replaces Parse's zeros: Bind then tells the runner the same types. */
	s->prepared_bytes += ((size_t)n - st->ntypes) * sizeof(*types);
	st->bytes += ((size_t)n - st->ntypes) * sizeof(*types);
	free(st->types);
	st->types = types;
	st->ntypes = n;
}

static void described_columns(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;
	struct pgx_stmt *st = s->describing;
	uint8_t *copy;

	if (!st)
		return;
	if (!(copy = malloc(f->len ? f->len : 1))) {
		s->describe_out_of_memory = true;
		return;
	}
	memcpy(copy, f->payload, f->len);
	s->prepared_bytes += (size_t)f->len - st->desc_len;
	st->bytes += (size_t)f->len - st->desc_len;
	free(st->desc);
	st->desc = copy;
	st->desc_len = f->len;
}

static void described(void *arg, const struct job_result *r)
{
	struct pg_session *s = arg;
	struct pgx_stmt *st = s->describing;
	struct pgx_portal *p = s->describing_portal;
	bool sync = s->sync_after_describe, oom = s->describe_out_of_memory;

	session_job_finished(&s->core);
	s->describe_out_of_memory = false;
	s->describing = NULL;
	s->describing_portal = NULL;
	s->sync_after_describe = false;
	if (r->ok && oom) {
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
	} else if (r->ok && st && st->desc) {
		if (!p)
			pg_put_parameter_description(&s->core.w, st->types, st->ntypes);
		pgr_stmt_rowdesc(s, st, p ? p->formats : NULL);
		session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	} else if (r->ok) {
		pgr_error(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			  "the statement could not be described", NULL, 0);
	} else {
		pgr_job_error(s, r);
		s->discard_until_sync = true;
	}
	if (sync)
		sync_ready(s);
	pgp_scoped_free(s);
	session_statement_done(&s->core);
}

static const struct job_events describe_events = {
	.on_rowdesc = described_columns,
	.on_paramdesc = described_params,
	.on_done = described,
};

/*
 * Starts the describe job of st; false when it started (it answers later:
 * the statement's description, or with portal the portal's RowDescription,
 * then with sync the Sync's ReadyForQuery).
 */
static bool describe_remote(struct pg_session *s, struct pgx_stmt *st, struct pgx_portal *portal, bool sync)
{
	struct job_param params[SESS_MAX_PARAMS];
	struct pgv_result v;
	struct pgj_read rd = {.sql = st->sql, .describe = true, .params = params, .nparams = st->ntypes};

	/* The search_path may have changed since Parse: decide again, as Execute will. */
	pgp_validate(s, st->sql, &v);
	if (v.kind == PGV_REFUSED) {
		pgr_refused(s, &v);
		return true;
	}
	rd.scope = v.kind == PGV_READ;
	for (uint16_t i = 0; i < st->ntypes; i++)
		params[i] = (struct job_param){.type_oid = st->types[i]};
	s->describing = st;
	s->describing_portal = portal;
	s->describe_out_of_memory = false;
	s->sync_after_describe = sync;
	s->core.job = pgj_start(s, &rd, &describe_events, s);
	if (!s->core.job) {
		s->describing = NULL;
		s->describing_portal = NULL;
		s->sync_after_describe = false;
		return true;
	}
	session_set_state(&s->core, SESSION_BUSY);
	return false;
}

/* Begins a Describe or a Close, whose bodies are alike: false (the error queued) when m is malformed. */
static bool pgx_begin_named(struct pg_session *s, const struct pg_msg *m, char *kind, const char **name)
{
	const char *err = NULL;

	pgx_begin(s);
	if (pg_parse_describe(m, kind, name, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return false;
	}
	return true;
}

static bool pgx_describe(struct pg_session *s, const struct pg_msg *m)
{
	const char *name;
	struct pgx_portal *p;
	char kind;
	int i;

	if (!pgx_begin_named(s, m, &kind, &name))
		return true;
	if (kind == 'S') {
		struct pgx_stmt *st;

		i = pgx_lookup(s, &stmt_kind, name);
		if (i < 0)
			return true;
		st = s->stmts[i];
		if (runs_remotely(&st->v) && !st->desc)
			return describe_remote(s, st, NULL, false);
		pg_put_parameter_description(&s->core.w, st->types, st->ntypes);
		if (st->desc)
			pgr_stmt_rowdesc(s, st, NULL);
		else
			describe_local(s, &st->v, NULL);
		pgr_flush(s);
		return true;
	}
	i = pgx_find_portal(s, name);
	if (i < 0)
		return pgc_describe_cursor(s, name); /* a cursor is a portal too */
	p = s->portals[i];
	if (p->stmt->v.kind == PGV_FETCH) {
		/* The cursor's columns go out with the FETCH's rows. */
		p->described = true;
		return true;
	}
	if (p->stmt->desc) {
		/* Described before: answered now, and checked against the result when it runs. */
		pgr_stmt_rowdesc(s, p->stmt, p->formats);
		return true;
	}
	if (runs_remotely(&p->stmt->v) || (p->stmt->v.kind == PGV_WRITE && p->stmt->v.returning)) {
		/*
		 * Sent when Execute runs it, the runner's column description being the real one, or at Sync; a
		 * write's when it ran, its rows given by the wait (pg_write.c).
		 */
		p->described = true;
		s->undescribed = p;
		return true;
	}
	describe_local(s, &p->stmt->v, p->formats);
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
	int i;

	pgx_begin(s);
	if (pg_parse_execute(m, &name, &max_rows, &err) != PG_OK) {
		pgx_protocol_error(s, err);
		return true;
	}
	i = pgx_lookup(s, &portal_kind, name);
	if (i < 0)
		return true;
	p = s->portals[i];
	if (s->undescribed == p)
		s->undescribed = NULL; /* its RowDescription goes out with the rows */
	/* The search_path may have changed since Parse: decide again. */
	pgp_validate(s, p->stmt->sql, &v);
	x = (struct pgq_exec){
		.extended = true,
		.describe = p->described,
		.params = p->params,
		.nparams = p->nparams,
		.formats = p->formats,
		.portal = p,
	};
	/* A row limit on a read: the portal keeps its job and later Executes go on with it. */
	if ((max_rows || p->running) && runs_remotely(&v) && s->txn != 'E') {
		const struct pgj_read rd = pgj_statement(p->stmt->sql, &v, &x);

		session_statement_begin(&s->core, v.fingerprint);
		s->cur = x;
		if (pgc_portal_execute(s, p, &rd, max_rows))
			pgr_flush(s);
		return true;
	}
	if (pgq_execute(s, p->stmt->sql, &v, &x))
		pgr_flush(s);
	return true;
}

static bool pgx_close(struct pg_session *s, const struct pg_msg *m)
{
	const char *name;
	char kind;
	int i;

	if (!pgx_begin_named(s, m, &kind, &name))
		return true;
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
	if ((m->type == 'S' || m->type == 'H') && s->undescribed) {
		/* A Describe of a portal that no Execute followed: answered now, by a describe job. */
		struct pgx_portal *p = s->undescribed;

		s->undescribed = NULL;
		p->described = false;
		if (!s->discard_until_sync && !describe_remote(s, p->stmt, p, m->type == 'S'))
			return true;
	}
	if (m->type == 'S') {
		sync_ready(s);
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
