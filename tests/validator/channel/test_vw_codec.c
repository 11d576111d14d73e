/*
 * test_vw_codec: the validator worker's channel. Requests and responses
 * survive the round trip field for field; every truncation of a message
 * and every flipped byte is refused or read as a whole, never half; the
 * checks a response must pass (enums in range, strings that fit their
 * field, offsets inside the text, rule indexes inside the policy) each
 * refuse a message that breaks them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "validator/channel/vw_codec.h"

static const char *const tables[] = {"public.orders", "public.customers", "pg_catalog.*"};
static const char *const path[] = {"app", "public"};
static struct airlock_column cols[] = {{"id", NULL}, {"email", "left(email, 1) || '***'"}};
static const struct airlock_rule rules[] = {
	{.table = "public.orders", .filter = "customer_id <= 100"},
	{.table = "public.customers", .columns = cols, .ncolumns = 2, .has_columns = true},
};
static const struct pgv_policy pg = {
	.tables = tables,
	.ntables = 3,
	.search_path = path,
	.nsearch_path = 2,
	.user = "agent",
	.rules = rules,
	.nrules = 2,
	.functions = path,
	.nfunctions = 1,
	.write_tables = tables,
	.nwrite_tables = 1,
	.forbid_star = true,
};
static const struct vmy_policy my = {
	.user = "agent",
	.database = "shop",
	.tables = tables,
	.ntables = 2,
	.ansi_quotes = true,
	.forbid_star = true,
	.charset = "latin1",
	.rules = rules,
	.nrules = 2,
};

static const char sql[] = "SELECT * FROM orders";

static void sample_my(struct vmy_result *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = VMY_READ;
	r->stmt_kind = "SHOW";
	strcpy(r->create_db, "shop");
	r->nassigns = 1;
	strcpy(r->assigns[0].name, "sql_mode");
	strcpy(r->assigns[0].value, "ANSI");
	r->assigns[0].append = true;
	r->nitems = 1;
	r->items[0].item = VMY_ITEM_SYSVAR;
	strcpy(r->items[0].sysvar, "version");
	strcpy(r->items[0].label, "@@version");
	r->limit = -1;
	r->stmt_len = 20;
	r->scope.nrefs = 1;
	r->scope.refs[0] = (struct vmy_scoped_ref){.start = 14, .end = 20, .rule = 1, .aliased = true};
	strcpy(r->scope.refs[0].table, "ORDERS");
	r->scope.show = VMY_SHOW_TABLES;
	r->scope.like_start = 3;
	r->scope.like_len = 4;
}

/* The message's body (after the 4-byte length). */
static const uint8_t *body_of(const struct wbuf *w, size_t *len)
{
	assert_false(w->failed);
	assert_true(w->len >= 4);
	*len = w->len - 4;
	assert_int_equal(((size_t)w->data[0] << 24 | (size_t)w->data[1] << 16 | (size_t)w->data[2] << 8 | w->data[3]),
			 *len);
	return w->data + 4;
}

static void test_request_round_trip(void **state)
{
	struct vmy_result read;
	struct vw_request req;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	sample_my(&read);
	wbuf_init(&w);
	assert_true(vw_put_request(&w, VW_MY_SCOPE, &pg, &my, sql, strlen(sql), &read, 7));
	body = body_of(&w, &len);
	assert_true(vw_get_request(body, len, &req));
	assert_int_equal(req.op, VW_MY_SCOPE);
	assert_int_equal(req.split_max, 7);
	assert_int_equal(req.pg.ntables, 3);
	assert_string_equal(req.pg.tables[2], "pg_catalog.*");
	assert_int_equal(req.pg.nsearch_path, 2);
	assert_string_equal(req.pg.search_path[0], "app");
	assert_string_equal(req.pg.user, "agent");
	assert_int_equal(req.pg.nrules, 2);
	assert_string_equal(req.pg.rules[0].filter, "customer_id <= 100");
	assert_int_equal(req.pg.nfunctions, 1);
	assert_string_equal(req.pg.functions[0], "app");
	assert_int_equal(req.pg.nwrite_tables, 1);
	assert_string_equal(req.pg.write_tables[0], tables[0]);
	assert_true(req.pg.forbid_star);
	assert_null(req.pg.rules[1].filter);
	assert_true(req.pg.rules[1].has_columns);
	assert_int_equal(req.pg.rules[1].ncolumns, 2);
	assert_null(req.pg.rules[1].columns[0].mask);
	assert_string_equal(req.pg.rules[1].columns[1].mask, "left(email, 1) || '***'");
	assert_string_equal(req.my.database, "shop");
	assert_true(req.my.ansi_quotes);
	assert_true(req.my.forbid_star);
	assert_false(req.my.no_backslash_escapes);
	assert_string_equal(req.my.charset, "latin1");
	assert_int_equal(req.my.ntables, 2);
	assert_int_equal(req.sql_len, strlen(sql));
	assert_string_equal(req.sql, sql);
	assert_non_null(req.my_read);
	assert_string_equal(req.my_read->stmt_kind, "SHOW");
	assert_int_equal(req.my_read->scope.refs[0].rule, 1);
	assert_string_equal(req.my_read->assigns[0].value, "ANSI");
	vw_request_free(&req);
	wbuf_free(&w);
}

/* Every prefix of a message and every byte changed: refused or read whole, and nothing leaks. */
static void test_request_truncated_and_corrupted(void **state)
{
	struct vmy_result read;
	struct vw_request req;
	struct wbuf w;
	const uint8_t *body;
	uint8_t *copy;
	size_t len;

	(void)state;
	sample_my(&read);
	wbuf_init(&w);
	assert_true(vw_put_request(&w, VW_MY_SCOPE, &pg, &my, sql, strlen(sql), &read, 0));
	body = body_of(&w, &len);
	for (size_t n = 0; n < len; n++)
		assert_false(vw_get_request(body, n, &req));
	copy = malloc(len);
	assert_non_null(copy);
	for (size_t i = 0; i < len; i++) {
		static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};

		for (size_t k = 0; k < sizeof(values); k++) {
			memcpy(copy, body, len);
			copy[i] = values[k];
			if (vw_get_request(copy, len, &req))
				vw_request_free(&req);
		}
	}
	/* A count far beyond what the message holds is refused before anything is allocated for it. */
	memcpy(copy, body, len);
	memset(copy + 5, 0xff, 4); /* the first list's count */
	assert_false(vw_get_request(copy, len, &req));
	free(copy);
	wbuf_free(&w);
}

static void test_pg_response_round_trip_and_checks(void **state)
{
	struct vw_response res = {.status = VW_OK}, back;
	struct wbuf w;
	const uint8_t *body;
	uint8_t *copy;
	size_t len;

	(void)state;
	res.pg.kind = PGV_REFUSED;
	strcpy(res.pg.sqlstate, "42501");
	res.pg.code = AIRLOCK_E_TABLE_NOT_ALLOWED;
	strcpy(res.pg.message, "table \"x\" is not allowed");
	strcpy(res.pg.hint, "allowed: orders");
	res.pg.cursor_pos = 15;
	res.pg.query_offset = 4;
	res.pg.query_len = 10;
	res.pg.fingerprint = 0x1234567890abcdefull;
	res.pg.explain = true;
	res.pg.set_config = true;
	strcpy(res.pg.column, "sp");
	res.text = "SELECT 1";
	res.guard = "SELECT 2";
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_SCOPE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_SCOPE, strlen(sql), 0, &back));
	assert_int_equal(back.pg.kind, PGV_REFUSED);
	assert_string_equal(back.pg.sqlstate, "42501");
	assert_int_equal(back.pg.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
	assert_string_equal(back.pg.hint, "allowed: orders");
	assert_int_equal(back.pg.cursor_pos, 15);
	assert_true(back.pg.explain);
	assert_false(back.pg.hold);
	assert_true(back.pg.set_config);
	assert_string_equal(back.pg.column, "sp");
	assert_int_equal(back.pg.fingerprint, 0x1234567890abcdefull);
	assert_string_equal(back.text, "SELECT 1");
	assert_string_equal(back.guard, "SELECT 2");
	vw_response_free(&back);
	/* Read as an answer to another operation, it is malformed. */
	assert_false(vw_get_response(body, len, VW_PG_VALIDATE, strlen(sql), 0, &back));
	/* Offsets past the text the request sent are refused. */
	assert_false(vw_get_response(body, len, VW_PG_SCOPE, 12, 0, &back));
	for (size_t n = 0; n < len; n++)
		assert_false(vw_get_response(body, n, VW_PG_SCOPE, strlen(sql), 0, &back));
	copy = malloc(len);
	assert_non_null(copy);
	memcpy(copy, body, len);
	copy[1] = PGV_NKINDS; /* kind */
	assert_false(vw_get_response(copy, len, VW_PG_SCOPE, strlen(sql), 0, &back));
	memcpy(copy, body, len);
	copy[1 + 1 + 4 + 1] = 'a'; /* a lower-case SQLSTATE character */
	assert_false(vw_get_response(copy, len, VW_PG_SCOPE, strlen(sql), 0, &back));
	memcpy(copy, body, len);
	copy[1 + 1 + 3] = 200; /* the SQLSTATE's length: longer than its field */
	assert_false(vw_get_response(copy, len, VW_PG_SCOPE, strlen(sql), 0, &back));
	free(copy);
	wbuf_free(&w);
}

/* A read's answer in one round trip: its validation, and only for a read its scope, text only where the scope let it
 * through. */
static void test_pg_read_response(void **state)
{
	struct vw_response res = {.status = VW_OK}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	res.pg.kind = PGV_READ;
	res.pg.fingerprint = 42;
	res.scoped = true;
	res.scope.kind = PGV_READ;
	res.text = "SELECT * FROM (SELECT 1) AS orders";
	res.guard = "SELECT 2";
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_READ, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_READ, strlen(sql), 0, &back));
	assert_int_equal(back.pg.kind, PGV_READ);
	assert_int_equal(back.pg.fingerprint, 42);
	assert_true(back.scoped);
	assert_int_equal(back.scope.kind, PGV_READ);
	assert_string_equal(back.text, res.text);
	assert_string_equal(back.guard, "SELECT 2");
	vw_response_free(&back);
	for (size_t n = 0; n < len; n++)
		assert_false(vw_get_response(body, n, VW_PG_READ, strlen(sql), 0, &back));
	assert_false(vw_get_response(body, len, VW_PG_SCOPE, strlen(sql), 0, &back));

	/* A scope refused carries no text. */
	res.scope.kind = PGV_REFUSED;
	strcpy(res.scope.sqlstate, "42501");
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_PG_READ, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_READ, strlen(sql), 0, &back));
	res.text = res.guard = NULL;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_PG_READ, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_READ, strlen(sql), 0, &back));
	assert_true(back.scoped);
	assert_int_equal(back.scope.kind, PGV_REFUSED);
	vw_response_free(&back);

	/* Anything but a read is never scoped. */
	res.pg.kind = PGV_REFUSED;
	strcpy(res.pg.sqlstate, "42501");
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_PG_READ, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_READ, strlen(sql), 0, &back));
	res.scoped = false;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_PG_READ, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_READ, strlen(sql), 0, &back));
	assert_false(back.scoped);
	assert_null(back.text);
	vw_response_free(&back);
	wbuf_free(&w);
}

/* A write's result carries its table, command and flags; only a write does, and its command is one of three. */
static void test_pg_write_response(void **state)
{
	struct vw_response res = {.status = VW_OK}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	res.pg.kind = PGV_WRITE;
	strcpy(res.pg.target, "public.orders");
	strcpy(res.pg.command, "UPDATE");
	res.pg.returning = true;
	res.pg.write_check = true;
	res.text = "UPDATE public.orders SET amount = 1";
	res.sample = "UPDATE public.orders SET amount = 1 RETURNING to_json(orders) AS airlock_after";
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_WRITE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_WRITE, strlen(sql), 0, &back));
	assert_int_equal(back.pg.kind, PGV_WRITE);
	assert_string_equal(back.pg.target, "public.orders");
	assert_string_equal(back.pg.command, "UPDATE");
	assert_true(back.pg.returning);
	assert_true(back.pg.write_check);
	assert_string_equal(back.text, "UPDATE public.orders SET amount = 1");
	assert_null(back.guard);
	assert_string_equal(back.sample, res.sample);
	vw_response_free(&back);
	/* The same bytes read as a scope's answer: the sample is left over, malformed. */
	assert_false(vw_get_response(body, len, VW_PG_SCOPE, strlen(sql), 0, &back));
	/* Cut before the sample: malformed. */
	for (size_t n = 0; n < len; n++)
		assert_false(vw_get_response(body, n, VW_PG_WRITE, strlen(sql), 0, &back));
	wbuf_free(&w);
	res.sample = NULL;

	/* A read that names a table, a write that names none, a command of another kind: malformed. */
	res.pg.kind = PGV_READ;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_WRITE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_WRITE, strlen(sql), 0, &back));
	wbuf_free(&w);
	res.pg.kind = PGV_WRITE;
	res.pg.target[0] = '\0';
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_WRITE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_WRITE, strlen(sql), 0, &back));
	wbuf_free(&w);
	strcpy(res.pg.target, "public.orders");
	strcpy(res.pg.command, "DROP");
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_WRITE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_WRITE, strlen(sql), 0, &back));
	wbuf_free(&w);
}

/* BEGIN READ ONLY's flag travels; READ ONLY and READ WRITE at once is malformed. */
static void test_pg_read_only_flag(void **state)
{
	struct vw_response res = {.status = VW_OK}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	res.pg.kind = PGV_BEGIN;
	res.pg.read_only = true;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_VALIDATE, strlen(sql), 0, &back));
	assert_true(back.pg.read_only);
	assert_false(back.pg.read_write);
	vw_response_free(&back);
	wbuf_free(&w);
	res.pg.read_write = true;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_VALIDATE, strlen(sql), 0, &back));
	wbuf_free(&w);
}

/* A SELECT_STAR refusal names the read its hint describes; no other result names one. */
static void test_pg_star_read(void **state)
{
	struct vw_response res = {.status = VW_OK}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	res.pg.kind = PGV_REFUSED;
	res.pg.code = AIRLOCK_E_SELECT_STAR;
	strcpy(res.pg.sqlstate, "42501");
	strcpy(res.pg.star_read, "SELECT * FROM \"orders\"");
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_VALIDATE, strlen(sql), 0, &back));
	assert_int_equal(back.pg.code, AIRLOCK_E_SELECT_STAR);
	assert_string_equal(back.pg.star_read, res.pg.star_read);
	vw_response_free(&back);
	wbuf_free(&w);
	res.pg.code = AIRLOCK_E_TABLE_NOT_ALLOWED;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_PG_VALIDATE, strlen(sql), 0, &back));
	wbuf_free(&w);
}

static void test_my_response_checks(void **state)
{
	struct vmy_result r;
	struct vw_response res = {.status = VW_OK, .my = &r}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	sample_my(&r);
	res.my_fingerprint = 42;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 2, &back));
	assert_int_equal(back.my_fingerprint, 42);
	assert_string_equal(back.my->stmt_kind, "SHOW");
	assert_string_equal(back.my->create_db, "shop");
	assert_int_equal(back.my->scope.refs[0].end, 20);
	vw_response_free(&back);
	/* Rule 1 of a policy of one rule; a reference past the statement. */
	assert_false(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 1, &back));
	assert_false(vw_get_response(body, len, VW_MY_VALIDATE, 19, 2, &back));
	/* A UUID() call carries no rule; below the last kind, no kind of reference. */
	r.scope.refs[0].rule = VMY_REF_UUID;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 0, &back));
	assert_int_equal(back.my->scope.refs[0].rule, VMY_REF_UUID);
	vw_response_free(&back);
	/* A column's "db." carries none either. */
	r.scope.refs[0].rule = VMY_REF_QUALIFIER;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 0, &back));
	assert_int_equal(back.my->scope.refs[0].rule, VMY_REF_QUALIFIER);
	vw_response_free(&back);
	r.scope.refs[0].rule = VMY_REF_QUALIFIER - 1;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 2, &back));
	r.scope.refs[0].rule = 1;
	wbuf_reset(&w);
	r.nassigns = VMY_MAX_ASSIGNS + 1; /* written as the count, with VMY_MAX_ASSIGNS entries */
	vw_put_response(&w, VW_MY_VALIDATE, &res);
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 2, &back));
	wbuf_free(&w);
}

/* A write's plan: its table and offsets come back; offsets out of order or a rule outside the policy do not. */
static void test_my_write_plan(void **state)
{
	struct vmy_result r;
	struct vw_response res = {.status = VW_OK, .my = &r}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	sample_my(&r);
	r.kind = VMY_WRITE;
	r.stmt_kind = NULL;
	r.scope.show = VMY_SHOW_NONE;
	r.write = (struct vmy_write_plan){
		.rule = 1, .target_start = 7, .target_end = 13, .where_start = 16, .where_end = 20, .filter_at = 14};
	strcpy(r.write.command, "UPDATE");
	strcpy(r.write.db, "shop");
	strcpy(r.write.table, "orders");
	strcpy(r.approval, "w123");
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 2, &back));
	assert_int_equal(back.my->kind, VMY_WRITE);
	assert_string_equal(back.my->write.table, "orders");
	assert_int_equal(back.my->write.rule, 1);
	assert_int_equal(back.my->write.where_end, 20);
	assert_string_equal(back.my->approval, "w123");
	assert_false(back.my->write.sample);
	vw_response_free(&back);
	/* The variant's flag comes back; a flag byte other than 0 or 1 is malformed. */
	{
		struct wbuf with;
		const uint8_t *wbody;
		size_t wlen, at = SIZE_MAX;

		r.write.sample = true;
		wbuf_init(&with);
		assert_true(vw_put_response(&with, VW_MY_VALIDATE, &res));
		wbody = body_of(&with, &wlen);
		assert_true(vw_get_response(wbody, wlen, VW_MY_VALIDATE, strlen(sql), 2, &back));
		assert_true(back.my->write.sample);
		vw_response_free(&back);
		/* The one byte that differs from the plan without the flag is the flag. */
		assert_int_equal(wlen, len);
		for (size_t i = 0; i < len; i++) {
			if (wbody[i] != body[i]) {
				assert_int_equal(at, SIZE_MAX);
				at = i;
			}
		}
		assert_true(at < len);
		((uint8_t *)wbody)[at] = 2;
		assert_false(vw_get_response(wbody, wlen, VW_MY_VALIDATE, strlen(sql), 2, &back));
		wbuf_free(&with);
		r.write.sample = false;
	}
	/* A rule the policy does not have. */
	assert_false(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 1, &back));
	/* The table after where a filter goes; a condition before it; no table named. */
	for (int i = 0; i < 3; i++) {
		struct vmy_write_plan keep = r.write;

		if (i == 0)
			r.write.target_end = 15;
		else if (i == 1)
			r.write.where_start = 12;
		else
			r.write.table[0] = '\0';
		wbuf_reset(&w);
		assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
		body = body_of(&w, &len);
		assert_false(vw_get_response(body, len, VW_MY_VALIDATE, strlen(sql), 2, &back));
		r.write = keep;
	}
	wbuf_free(&w);
}

/* A write's scope answer carries its dry run's variant; a variant without the text, or cut, is malformed. */
static void test_my_scope_sample(void **state)
{
	static const char text[] = "DELETE FROM `shop`.`orders` WHERE (customer_id <= 100)";
	static const char variant[] = "DELETE FROM `shop`.`orders` WHERE (customer_id <= 100)\nRETURNING *";
	struct vmy_result r;
	struct vw_response res = {.status = VW_OK, .my = &r}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	sample_my(&r);
	r.kind = VMY_WRITE;
	r.stmt_kind = NULL;
	r.scope.show = VMY_SHOW_NONE;
	r.stmt_len = (uint32_t)strlen(text);
	r.write = (struct vmy_write_plan){.rule = 0, .target_start = 12, .target_end = 27, .filter_at = 27};
	strcpy(r.write.command, "DELETE");
	strcpy(r.write.db, "shop");
	strcpy(r.write.table, "orders");
	res.text = (char *)text;
	res.sample = (char *)variant;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_MY_SCOPE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_SCOPE, 100, 2, &back));
	assert_string_equal(back.text, text);
	assert_string_equal(back.sample, variant);
	assert_int_equal(back.my->kind, VMY_WRITE);
	vw_response_free(&back);
	for (size_t n = 0; n < len; n++)
		assert_false(vw_get_response(body, n, VW_MY_SCOPE, 100, 2, &back));
	/* The variant's presence byte: only 0 or 1. */
	((uint8_t *)body)[len - 5 - strlen(variant)] = 2;
	assert_false(vw_get_response(body, len, VW_MY_SCOPE, 100, 2, &back));
	/* A NUL inside the variant. */
	((uint8_t *)body)[len - 5 - strlen(variant)] = 1;
	((uint8_t *)body)[len - 3] = 0;
	assert_false(vw_get_response(body, len, VW_MY_SCOPE, 100, 2, &back));
	/* A read's answer (no variant) still reads; a variant without the text does not. */
	res.sample = NULL;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_MY_SCOPE, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_MY_SCOPE, 100, 2, &back));
	assert_null(back.sample);
	vw_response_free(&back);
	res.text = NULL;
	res.sample = (char *)variant;
	res.my_failed = true;
	wbuf_reset(&w);
	assert_true(vw_put_response(&w, VW_MY_SCOPE, &res));
	body = body_of(&w, &len);
	assert_false(vw_get_response(body, len, VW_MY_SCOPE, 100, 2, &back));
	wbuf_free(&w);
}

static void test_split_response(void **state)
{
	size_t off[2] = {0, 9}, lens[2] = {8, 11};
	struct vw_response res = {.status = VW_OK, .nsplit = 2, .split_off = off, .split_len = lens}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_PG_SPLIT, &res));
	body = body_of(&w, &len);
	assert_true(vw_get_response(body, len, VW_PG_SPLIT, 20, 0, &back));
	assert_int_equal(back.nsplit, 2);
	assert_int_equal(back.split_off[1], 9);
	assert_int_equal(back.split_len[1], 11);
	vw_response_free(&back);
	assert_false(vw_get_response(body, len, VW_PG_SPLIT, 19, 0, &back));
	wbuf_free(&w);
}

static void test_bad_request_status(void **state)
{
	struct vw_response res = {.status = VW_BAD_REQUEST}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_MY_SCOPE, &res));
	body = body_of(&w, &len);
	assert_int_equal(len, 1);
	assert_true(vw_get_response(body, len, VW_MY_SCOPE, 0, 0, &back));
	assert_int_equal(back.status, VW_BAD_REQUEST);
	assert_false(vw_get_response((const uint8_t *)"\x07", 1, VW_MY_SCOPE, 0, 0, &back));
	wbuf_free(&w);
}

/* A worker out of memory says so, and nothing else. */
static void test_no_memory_status(void **state)
{
	struct vw_response res = {.status = VW_NO_MEMORY}, back;
	struct wbuf w;
	const uint8_t *body;
	size_t len;

	(void)state;
	wbuf_init(&w);
	assert_true(vw_put_response(&w, VW_MY_VALIDATE, &res));
	body = body_of(&w, &len);
	assert_int_equal(len, 1);
	assert_true(vw_get_response(body, len, VW_MY_VALIDATE, 0, 0, &back));
	assert_int_equal(back.status, VW_NO_MEMORY);
	assert_false(vw_get_response((const uint8_t *)"\x02\x00", 2, VW_MY_VALIDATE, 0, 0, &back));
	wbuf_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_request_truncated_and_corrupted),
		cmocka_unit_test(test_pg_response_round_trip_and_checks),
		cmocka_unit_test(test_pg_write_response),
		cmocka_unit_test(test_pg_read_response),
		cmocka_unit_test(test_pg_read_only_flag),
		cmocka_unit_test(test_pg_star_read),
		cmocka_unit_test(test_my_response_checks),
		cmocka_unit_test(test_my_write_plan),
		cmocka_unit_test(test_my_scope_sample),
		cmocka_unit_test(test_split_response),
		cmocka_unit_test(test_bad_request_status),
		cmocka_unit_test(test_no_memory_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
