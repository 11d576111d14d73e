/*
 * vw_serve: one request's validator calls and its response. See
 * vw_serve.h.
 */
#include "validator/vw_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/mysql/validate_my_fingerprint.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_write.h"
#include "validator/mysql/validate_my_write_sample.h"
#include "validator/pg/validate_pg_scope.h"
#include "validator/pg/validate_pg_write.h"

/* A rewrite too large for the channel is refused as too complex, in each protocol's terms. */
static void refuse_pg_too_large(struct vw_response *res)
{
	free(res->text);
	res->text = NULL;
	free(res->guard);
	res->guard = NULL;
	free(res->sample);
	res->sample = NULL;
	memset(&res->pg, 0, sizeof(res->pg));
	res->pg.kind = PGV_REFUSED;
	res->pg.code = AIRLOCK_E_TOO_COMPLEX;
	snprintf(res->pg.sqlstate, sizeof(res->pg.sqlstate), "%s", airlock_err_pg_sqlstate(AIRLOCK_E_TOO_COMPLEX));
	snprintf(res->pg.message, sizeof(res->pg.message), "the statement's scoped form is too large");
	snprintf(res->pg.hint, sizeof(res->pg.hint), "read fewer relations in one statement");
}

static void scope_my(const struct vw_request *req, struct vw_response *res)
{
	struct vmy_policy ext = req->my;
	const char **tables;

	if (req->my_read->kind == VMY_WRITE) {
		/* A write always runs as made here: its table named with its database, its rule's filter joined. */
		res->text = vmy_write_scope(&req->my, req->sql, req->sql_len, req->my_read);
		res->my_failed = !res->text;
	} else {
		res->text = vmy_scope(&req->my, req->sql, req->sql_len, req->my_read, &res->my_failed);
	}
	if (!res->text)
		return;
	/* The rewrite reads information_schema for the derived tables it added. */
	tables = calloc(req->my.ntables + 1, sizeof(*tables));
	res->my = malloc(sizeof(*res->my));
	if (!tables || !res->my) {
		free(tables);
		free(res->text);
		res->text = NULL;
		res->my_failed = true;
		return;
	}
	if (req->my.ntables)
		memcpy(tables, req->my.tables, req->my.ntables * sizeof(*tables));
	tables[req->my.ntables] = "information_schema.*";
	ext.tables = tables;
	ext.ntables = req->my.ntables + 1;
	ext.rewrite = true;
	vmy_validate(&ext, res->text, strlen(res->text), res->my);
	if (req->my_read->kind == VMY_WRITE)
		res->sample = vmy_write_sample_checked(&ext, res->text, res->my);
	free(tables);
}

/* VW_OK with res filled, VW_NO_MEMORY, or VW_BAD_REQUEST for a request the worker cannot serve. */
static enum vw_status run(const struct vw_request *req, struct vw_response *res)
{
	switch (req->op) {
	case VW_PG_VALIDATE:
		pgv_validate(&req->pg, req->sql, &res->pg);
		return VW_OK;
	case VW_PG_AGAIN:
		pgv_validate_again(&req->pg, req->sql, &res->pg);
		return VW_OK;
	case VW_PG_SCOPE:
		pgv_scope_guarded(&req->pg, req->sql, &res->text, &res->guard, &res->pg);
		return VW_OK;
	case VW_PG_READ:
		pgv_validate(&req->pg, req->sql, &res->pg);
		if (res->pg.kind == PGV_READ) {
			res->scoped = true;
			pgv_scope_guarded(&req->pg, req->sql, &res->text, &res->guard, &res->scope);
			if (res->scope.kind != PGV_READ) {
				free(res->text);
				free(res->guard);
				res->text = res->guard = NULL;
			}
		}
		return VW_OK;
	case VW_PG_WRITE:
		if (pgv_write_scope(&req->pg, req->sql, &res->text, &res->guard, &res->pg) == PGV_WRITE)
			res->sample = pgv_write_sample(&req->pg, res->text, &res->pg);
		return VW_OK;
	case VW_PG_SPLIT:
		res->split_off = calloc(req->split_max ? req->split_max : 1, sizeof(*res->split_off));
		res->split_len = calloc(req->split_max ? req->split_max : 1, sizeof(*res->split_len));
		if (!res->split_off || !res->split_len)
			return VW_NO_MEMORY;
		res->nsplit = pgv_split(req->sql, res->split_off, res->split_len, req->split_max);
		return VW_OK;
	case VW_MY_VALIDATE:
		res->my = malloc(sizeof(*res->my));
		if (!res->my)
			return VW_NO_MEMORY;
		vmy_validate(&req->my, req->sql, req->sql_len, res->my);
		res->my_fingerprint =
			vmy_fingerprint(req->sql, req->sql_len, req->my.ansi_quotes, req->my.no_backslash_escapes);
		return VW_OK;
	case VW_MY_SCOPE:
		if (!req->my_read)
			return VW_BAD_REQUEST;
		scope_my(req, res);
		return VW_OK;
	default:
		return VW_BAD_REQUEST;
	}
}

/* airlockd sends another request as soon as it reads this answer: a statement's scoping or its write. */
static bool followed(const struct vw_request *req, const struct vw_response *res)
{
	switch (req->op) {
	case VW_PG_SPLIT:
		return true;
	case VW_PG_VALIDATE:
		return res->pg.kind == PGV_READ || res->pg.kind == PGV_WRITE;
	case VW_PG_READ:
		return res->pg.kind == PGV_WRITE;
	case VW_MY_VALIDATE:
		return res->my && (res->my->kind == VMY_READ || res->my->kind == VMY_WRITE);
	default:
		return false;
	}
}

/* An answer that another moment could make otherwise: the worker ran out of memory. */
static bool passing(const struct vw_response *res)
{
	return res->status != VW_OK || res->pg.code == AIRLOCK_E_OUT_OF_MEMORY ||
	       res->scope.code == AIRLOCK_E_OUT_OF_MEMORY || (res->my && res->my->code == AIRLOCK_E_OUT_OF_MEMORY);
}

/* Answers req into w; *keep: the answer is the same whenever the same request comes. */
static bool serve(const struct vw_request *req, struct wbuf *w, bool *follows, bool *keep)
{
	struct vw_response res = {.status = VW_OK};
	size_t at = w->len;
	bool ok;

	res.status = run(req, &res);
	*keep = !passing(&res);
	*follows = res.status == VW_OK && followed(req, &res);
	if (res.status != VW_OK) {
		enum vw_status status = res.status;

		vw_response_free(&res);
		res = (struct vw_response){.status = status};
		return vw_put_response(w, req->op, &res);
	}
	ok = vw_put_response(w, req->op, &res);
	if (!ok && req->op == VW_MY_SCOPE && res.sample) {
		/* A write's variant doubles its text: past the channel's bound it is held without a sample. */
		w->len = at;
		w->failed = false;
		free(res.sample);
		res.sample = NULL;
		ok = vw_put_response(w, req->op, &res);
	}
	if (!ok && (req->op == VW_PG_SCOPE || req->op == VW_PG_WRITE)) {
		/* Only a rewrite can outgrow the channel: answer without it. */
		w->len = at;
		w->failed = false;
		refuse_pg_too_large(&res);
		ok = vw_put_response(w, req->op, &res);
	}
	if (!ok && req->op == VW_PG_READ && res.scoped) {
		/* The statement's own result stands; the scope's answer is the refusal. */
		struct pgv_result validated = res.pg;

		w->len = at;
		w->failed = false;
		refuse_pg_too_large(&res);
		res.scope = res.pg;
		res.pg = validated;
		ok = vw_put_response(w, req->op, &res);
	}
	vw_response_free(&res);
	return ok;
}

/*
 * The operations whose answers are kept: the Postgres reads' (what \d and
 * reflection repeat). MySQL's are microseconds and a write is not repeated.
 */
static bool kept_op(enum vw_op op)
{
	return op == VW_PG_VALIDATE || op == VW_PG_AGAIN || op == VW_PG_SCOPE || op == VW_PG_READ || op == VW_PG_SPLIT;
}

bool vw_serve_body(struct vw_cache *cache, const uint8_t *body, size_t len, struct wbuf *w, bool *follows)
{
	struct vw_request req;
	const uint8_t *kept;
	size_t at = w->len, n;
	bool ok, keep;

	kept = vw_cache_get(cache, body, len, &n, follows);
	if (kept) {
		wbuf_put_bytes(w, kept, n);
		return !w->failed;
	}
	*follows = false;
	if (!vw_get_request(body, len, &req))
		return vw_serve_bad_request(w);
	ok = serve(&req, w, follows, &keep);
	if (ok && keep && kept_op(req.op))
		vw_cache_put(cache, body, len, w->data + at, w->len - at, *follows);
	vw_request_free(&req);
	return ok;
}

bool vw_serve_bad_request(struct wbuf *w)
{
	struct vw_response res = {.status = VW_BAD_REQUEST};

	return vw_put_response(w, VW_PG_VALIDATE, &res);
}

void vw_serve_warm_up(void)
{
	static const char *const tables[] = {"public.t", "pg_catalog.*", "information_schema.*"};
	static const char *const path[] = {"public"};
	static struct airlock_column cols[] = {{"a", NULL}, {"b", "left(b, 1)"}};
	static const struct airlock_rule rules[] = {
		{.table = "public.t", .filter = "a > 0", .columns = cols, .ncolumns = 2, .has_columns = true},
	};
	const struct pgv_policy pg = {
		.tables = tables,
		.ntables = 3,
		.search_path = path,
		.nsearch_path = 1,
		.user = "u",
		.rules = rules,
		.nrules = 1,
	};
	const struct vmy_policy my = {.user = "u", .database = "d", .tables = tables, .ntables = 1};
	static const char *const reads[] = {
		"SELECT a, b FROM t JOIN pg_class c ON true WHERE c.relname = 't' AND a::regclass IS NULL",
		"SELECT 1 +", /* a syntax error: the parser's error path */
		"SET search_path = public",
		"SELECT 1; SELECT 2",
	};
	struct pgv_result r;
	struct vmy_result *m = malloc(sizeof(*m));
	size_t off[2], len[2];
	char *out;

	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		out = NULL;
		if (pgv_validate(&pg, reads[i], &r) == PGV_READ)
			pgv_scope(&pg, reads[i], &out, &r);
		free(out);
		pgv_split(reads[i], off, len, 2);
	}
	if (m) {
		vmy_validate(&my, "SELECT * FROM information_schema.tables", 39, m);
		vmy_fingerprint("SELECT 1", 8, false, false);
		free(m);
	}
}
