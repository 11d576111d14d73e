/*
 * validate_pg: the entry point. Parses with libpg_query, loads the JSON
 * parse tree with jansson, requires exactly one statement and dispatches
 * on its node type: reads to validate_pg_read, session statements to
 * validate_pg_session, everything else to validate_pg_stmt's refusals.
 * The reads inside DECLARE and COPY are validated here, recursively, as
 * statements of their own.
 * Everything libpg_query and jansson return is freed before returning.
 */
#define _GNU_SOURCE
#include "validator/pg/validate_pg.h"

#include <jansson.h>
#include <pg_query.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validator/pg/validate_pg_bound.h"
#include "validator/pg/validate_pg_copy.h"
#include "validator/pg/validate_pg_cursor.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_session.h"
#include "validator/pg/validate_pg_star.h"
#include "validator/pg/validate_pg_stmt.h"
#include "validator/pg/validate_pg_util.h"
#include "validator/pg/validate_pg_write.h"

static enum pgv_kind check_explain(const struct pgv_policy *policy, const char *sql, json_t *body,
				   struct pgv_result *out)
{
	json_t *opts = json_object_get(body, "options");
	json_t *query = json_object_get(body, "query");
	const char *type;
	json_t *inner;
	size_t i;

	for (i = 0; i < json_array_size(opts); i++) {
		json_t *d = json_object_get(json_array_get(opts, i), "DefElem");
		const char *name = pgv_str(d, "defname");

		if (name && strcasecmp(name, "analyze") == 0) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, pgv_cursor_of(sql, d),
				   "use plain EXPLAIN (VERBOSE, COSTS, FORMAT ... are fine)",
				   "EXPLAIN ANALYZE executes the statement and is not allowed");
			return out->kind;
		}
	}
	if (!json_is_object(query) || json_object_size(query) != 1) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised EXPLAIN statement");
		return out->kind;
	}
	type = json_object_iter_key(json_object_iter(query));
	inner = json_object_iter_value(json_object_iter(query));
	if (strcmp(type, "SelectStmt") != 0) {
		pgv_refuse_statement(type, inner, "EXPLAIN of ", out);
		return out->kind;
	}
	if (!pgv_check_read(policy, sql, query, out))
		return out->kind;
	out->kind = PGV_READ;
	out->explain = true;
	return out->kind;
}

/* A SELECT_STAR refusal of the read at [start, start + len) of the text: the span its hint describes. */
static void star_span(struct pgv_result *out, size_t start, size_t len)
{
	if (out->kind != PGV_REFUSED || out->code != AIRLOCK_E_SELECT_STAR || out->star_read[0])
		return;
	out->query_offset = start;
	out->query_len = len;
}

/* DECLARE: its header, then its query validated as a statement of its own (the grammar's recursion). */
static enum pgv_kind declare(const struct pgv_policy *policy, const char *sql, json_t *body, struct pgv_result *out)
{
	struct pgv_result inner;
	size_t start;

	if (pgv_cursor_declare(sql, body, out) != PGV_DECLARE)
		return out->kind;
	start = out->query_offset;
	if (pgv_validate(policy, sql + start, &inner) != PGV_READ) {
		*out = inner;
		star_span(out, start, strlen(sql) - start);
		if (out->kind != PGV_REFUSED)
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "declare a cursor for a SELECT",
				   "a cursor can only be declared for a SELECT");
	}
	return out->kind;
}

/* COPY ... TO STDOUT: its form and options, then its read validated as a statement of its own. */
static enum pgv_kind copy_out(const struct pgv_policy *policy, const char *sql, json_t *body, struct pgv_result *out)
{
	struct pgv_result inner;
	bool query_form;
	char *text;

	if (pgv_copy(sql, body, out) != PGV_COPY_OUT)
		return out->kind;
	query_form = !out->copy_query[0];
	text = query_form ? strndup(sql + out->query_offset, out->query_len) : strdup(out->copy_query);
	if (!text) {
		pgv_refuse(out, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, 0, NULL, "out of memory");
		return out->kind;
	}
	if (pgv_validate(policy, text, &inner) != PGV_READ || inner.explain) {
		size_t start = out->query_offset;

		*out = inner;
		if (out->kind != PGV_REFUSED || inner.explain) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "COPY (SELECT ...) TO STDOUT",
				   "COPY can only copy the rows of a read to the client");
		} else if (query_form) {
			star_span(out, start, strlen(text));
			if (out->cursor_pos)
				out->cursor_pos += pgv_cursor_from_offset(sql, (long long)start) - 1;
		} else {
			/* COPY table: the hint describes the SELECT made of it. */
			if (out->code == AIRLOCK_E_SELECT_STAR && !out->star_read[0] &&
			    strlen(text) < sizeof(out->star_read))
				memcpy(out->star_read, text, strlen(text) + 1);
			out->cursor_pos = 0; /* it counts in the SELECT made of the table */
		}
	}
	free(text);
	return out->kind;
}

/*
 * LOCK TABLE, as pg_dump sends it in its transaction: each table must be
 * one the user may read (checked as SELECT FROM it would be); a mode that
 * Postgres refuses in a read-only transaction is refused so. No lock is
 * taken: each statement runs in a snapshot of its own.
 */
static enum pgv_kind lock_tables(const struct pgv_policy *policy, json_t *body, struct pgv_result *out)
{
	enum { ROW_EXCLUSIVE_LOCK = 3 }; /* the strongest mode a read-only transaction may take */
	json_t *rels = json_object_get(body, "relations"), *mode = json_object_get(body, "mode");
	size_t i;

	if (!json_is_integer(mode) || json_integer_value(mode) > ROW_EXCLUSIVE_LOCK) {
		pgv_refuse(out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0,
			   "lock IN ACCESS SHARE MODE, or run the reads without a lock",
			   "cannot execute LOCK TABLE in a read-only transaction");
		return out->kind;
	}
	for (i = 0; i < json_array_size(rels); i++) {
		json_t *rv = json_object_get(json_array_get(rels, i), "RangeVar");
		const char *schema = pgv_str(rv, "schemaname"), *name = pgv_str(rv, "relname");
		struct pgv_sbuf sb = {0};
		char *text;

		if (!name || pgv_str(rv, "catalogname")) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised LOCK statement");
			return out->kind;
		}
		pgv_sb_put(&sb, "SELECT FROM ");
		if (schema) {
			pgv_sb_ident(&sb, schema);
			pgv_sb_put(&sb, ".");
		}
		pgv_sb_ident(&sb, name);
		text = pgv_sb_take(&sb);
		if (!text) {
			pgv_refuse(out, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, 0, NULL, "out of memory");
			return out->kind;
		}
		if (pgv_validate(policy, text, out) != PGV_READ) {
			free(text);
			out->cursor_pos = 0; /* it points into the SELECT made of the name */
			return out->kind;
		}
		free(text);
	}
	memset(out, 0, sizeof(*out));
	out->kind = i ? PGV_LOCK : PGV_REFUSED;
	if (!i)
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised LOCK statement");
	return out->kind;
}

static enum pgv_kind classify(const struct pgv_policy *policy, const char *sql, json_t *stmt, struct pgv_result *out)
{
	const char *type;
	json_t *body;

	if (!json_is_object(stmt) || json_object_size(stmt) != 1) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised statement");
		return out->kind;
	}
	type = json_object_iter_key(json_object_iter(stmt));
	body = json_object_iter_value(json_object_iter(stmt));
	if (strcmp(type, "SelectStmt") == 0) {
		if (pgv_session_set_config(sql, body, out))
			return out->kind;
		/* The star is judged last: refused for it, the read passed every other check (a hint's
		 * describe runs it with the star allowed). */
		if (pgv_check_read(policy, sql, stmt, out) &&
		    !(policy->forbid_star && pgv_star_refused(sql, stmt, out)))
			out->kind = PGV_READ;
		return out->kind;
	}
	if (strcmp(type, "ExplainStmt") == 0)
		return check_explain(policy, sql, body, out);
	if (strcmp(type, "VariableSetStmt") == 0)
		return pgv_session_set(sql, body, out);
	if (strcmp(type, "VariableShowStmt") == 0)
		return pgv_session_show(body, out);
	if (strcmp(type, "TransactionStmt") == 0)
		return pgv_session_transaction(body, out);
	if (strcmp(type, "DiscardStmt") == 0)
		return pgv_session_discard(body, out);
	if (strcmp(type, "DeallocateStmt") == 0)
		return pgv_session_deallocate(body, out);
	if (strcmp(type, "DeclareCursorStmt") == 0)
		return declare(policy, sql, body, out);
	if (strcmp(type, "FetchStmt") == 0)
		return pgv_cursor_fetch(body, out);
	if (strcmp(type, "ClosePortalStmt") == 0)
		return pgv_cursor_close(body, out);
	if (strcmp(type, "CopyStmt") == 0)
		return copy_out(policy, sql, body, out);
	if (strcmp(type, "LockStmt") == 0)
		return lock_tables(policy, body, out);
	if (policy->nwrite_tables > 0 &&
	    (!strcmp(type, "InsertStmt") || !strcmp(type, "UpdateStmt") || !strcmp(type, "DeleteStmt")))
		return pgv_write_check(policy, sql, type, body, out);
	pgv_refuse_statement(type, body, "", out);
	return out->kind;
}

/*
 * The location of a parameter Postgres does not take, or -1: "$0" (it
 * answers "there is no parameter $0") and libpg_query's own "?", a syntax
 * error to Postgres, which its deparser also writes for "$0".
 */
static long unnumbered_param(json_t *v, int depth)
{
	const char *key;
	json_t *child;
	size_t i;
	long at;

	if (depth > 4096)
		return -1;
	if (json_is_array(v)) {
		json_array_foreach(v, i, child)
		{
			if ((at = unnumbered_param(child, depth + 1)) >= 0)
				return at;
		}
		return -1;
	}
	json_object_foreach(v, key, child)
	{
		if (strcmp(key, "ParamRef") == 0) {
			json_t *num = json_object_get(child, "number"), *loc = json_object_get(child, "location");

			if (!json_is_integer(num) || json_integer_value(num) < 1)
				return json_is_integer(loc) ? (long)json_integer_value(loc) : 0;
		}
		if ((at = unnumbered_param(child, depth + 1)) >= 0)
			return at;
	}
	return -1;
}

/* The parse tree did not load: bad UTF-8, too deep, or out of memory. */
static void refuse_unloadable(const json_error_t *jerr, struct pgv_result *out)
{
	switch (json_error_code(jerr)) {
	case json_error_invalid_utf8:
	case json_error_null_character:
		pgv_refuse(out, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_PG_INVALID_BYTE_SEQUENCE, 0,
			   "send the statement as UTF-8", "invalid byte sequence for encoding \"UTF8\"");
		break;
	case json_error_out_of_memory:
		pgv_refuse(out, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, 0, NULL,
			   "out of memory while validating the statement");
		break;
	default:
		pgv_refuse(out, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, 0, "simplify the statement",
			   "statement is too complex to validate");
		break;
	}
}

static void fingerprint(const char *sql, struct pgv_result *out)
{
	PgQueryFingerprintResult fp = pg_query_fingerprint(sql);

	if (!fp.error)
		out->fingerprint = fp.fingerprint;
	pg_query_free_fingerprint_result(fp);
}

static enum pgv_kind validate(const struct pgv_policy *policy, const char *sql, struct pgv_result *out,
			      bool with_fingerprint)
{
	PgQueryParseResult parsed;
	json_error_t jerr;
	json_t *root = NULL, *stmts;
	size_t n;
	long at;

	static const struct pgv_policy deny_all;

	memset(out, 0, sizeof(*out));
	if (!policy)
		policy = &deny_all;
	out->kind = PGV_REFUSED;
	out->code = AIRLOCK_E_NONE;
	if (!sql) {
		pgv_refuse(out, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE, 0, NULL, "no statement text");
		return out->kind;
	}
	if (!pgv_bound(sql, out))
		return out->kind;
	parsed = pg_query_parse(sql);
	if (parsed.error) {
		pgv_refuse(out, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE,
			   parsed.error->cursorpos > 0 ? parsed.error->cursorpos : 0, NULL, "%s",
			   parsed.error->message ? parsed.error->message : "syntax error");
		goto out_free_parse;
	}
	root = json_loads(parsed.parse_tree, 0, &jerr);
	if (!root) {
		refuse_unloadable(&jerr, out);
		goto out_free_parse;
	}
	stmts = json_object_get(root, "stmts");
	if (!json_is_array(stmts)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_INTERNAL_ERROR, 0, NULL,
			   "statement could not be validated");
		goto out_free_json;
	}
	n = json_array_size(stmts);
	if (n == 0) {
		out->kind = PGV_EMPTY;
		goto out_free_json;
	}
	if (n > 1) {
		json_t *second = json_array_get(stmts, 1);
		json_t *loc = json_object_get(second, "stmt_location");

		pgv_refuse(out, AIRLOCK_E_MULTI_STATEMENT, AIRLOCK_N_NONE,
			   pgv_cursor_from_offset(sql, json_is_integer(loc) ? json_integer_value(loc) : 0),
			   "send one statement per query", "only one statement per query is allowed, found %zu", n);
		if (with_fingerprint)
			fingerprint(sql, out);
		goto out_free_json;
	}
	if ((at = unnumbered_param(stmts, 0)) >= 0)
		pgv_refuse(out, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE, pgv_cursor_from_offset(sql, at),
			   "number parameters from $1", "there is no parameter $0");
	else
		classify(policy, sql, json_object_get(json_array_get(stmts, 0), "stmt"), out);
	if (with_fingerprint)
		fingerprint(sql, out);
out_free_json:
	json_decref(root);
out_free_parse:
	pg_query_free_parse_result(parsed);
	return out->kind;
}

enum pgv_kind pgv_validate(const struct pgv_policy *policy, const char *sql, struct pgv_result *out)
{
	return validate(policy, sql, out, true);
}

size_t pgv_split(const char *sql, size_t *off, size_t *len, size_t max)
{
	struct pgv_result refused;
	PgQuerySplitResult r;
	size_t n = 0, total = strlen(sql);

	if (!pgv_bound(sql, &refused))
		return 0; /* validated whole, it is refused with the reason */
	r = pg_query_split_with_parser(sql);

	if (!r.error && r.n_stmts > 0 && (size_t)r.n_stmts <= max) {
		for (n = 0; n < (size_t)r.n_stmts; n++) {
			off[n] = (size_t)r.stmts[n]->stmt_location;
			len[n] = (size_t)r.stmts[n]->stmt_len;
			if (off[n] > total || len[n] > total - off[n]) {
				n = 0;
				break;
			}
			/* The last statement's length is 0: to the end of the text. */
			if (len[n] == 0)
				len[n] = total - off[n];
		}
	}
	pg_query_free_split_result(r);
	return n;
}

enum pgv_kind pgv_validate_again(const struct pgv_policy *policy, const char *sql, struct pgv_result *out)
{
	return validate(policy, sql, out, false);
}
