/*
 * test_approval_json: held writes as the API shows them. Each record reads
 * back with a JSON parser field for field; what an agent wrote reaches the
 * output with no control, bidirectional or invisible character and no
 * < > & ' left raw, and is flagged suspicious; the list is oldest first,
 * bounded, and only of the status asked for.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "approval/approval_json.h"
#include "base/wbuf.h"
#include "tests/approval/store_fixture.h"

static void put_with(struct approval_store *s, const char *statement, const char *plan, const char *sample,
		     int64_t created, char *id)
{
	struct approval a = {
		.status = APPROVAL_PENDING,
		.user = "writer",
		.protocol = "postgres",
		.client_addr = "127.0.0.1",
		.application_name = "psql",
		.statement = (char *)statement,
		.params = "[\"x\", null]",
		.rewritten = "UPDATE public.orders SET note = 'x'",
		.plan = (char *)plan,
		.sample = (char *)sample,
		.rows = 3,
		.executed_rows = -1,
		.created_at = created,
		.expires_at = created + 60000,
		.approvals_needed = 1,
		.approved_by = "",
		.decided_by = "",
		.reason = "",
		.policy_checksum = "",
	};

	assert_true(approval_new_id(a.id));
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	if (id)
		strcpy(id, a.id);
}

static void put(struct approval_store *s, const char *statement, int64_t created, char *id)
{
	put_with(s, statement, "", "{}", created, id);
}

static json_t *list(struct approval_store *s, enum approval_status st, size_t limit, char **raw)
{
	struct wbuf w;
	json_error_t err;
	json_t *j;

	wbuf_init(&w);
	assert_int_equal(approval_json_list(s, st, limit, &w), APPROVAL_OK);
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	j = json_loads((const char *)w.data, 0, &err);
	if (!j)
		fail_msg("%s: %s", err.text, (const char *)w.data);
	*raw = (char *)w.data;
	return j;
}

static void test_record_reads_back(void **state)
{
	struct fixture *f = fixture_open("/tmp/approval_json_XXXXXX");
	struct approval_store *s = f->s;
	char id[APPROVAL_ID_LEN + 1], *raw;
	json_t *j, *r;

	(void)state;
	put(s, "UPDATE orders SET note = 'x' WHERE id = 1", 1000, id);
	j = list(s, APPROVAL_PENDING, 10, &raw);
	assert_int_equal(json_array_size(j), 1);
	r = json_array_get(j, 0);
	assert_string_equal(json_string_value(json_object_get(r, "id")), id);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "pending");
	assert_string_equal(json_string_value(json_object_get(r, "user")), "writer");
	assert_string_equal(json_string_value(json_object_get(r, "statement")),
			    "UPDATE orders SET note = 'x' WHERE id = 1");
	assert_string_equal(json_string_value(json_object_get(r, "params")), "[\"x\", null]");
	assert_int_equal(json_integer_value(json_object_get(r, "rows")), 3);
	assert_int_equal(json_integer_value(json_object_get(r, "created_at")), 1000);
	assert_int_equal(json_integer_value(json_object_get(r, "executed_rows")), -1);
	assert_true(json_is_false(json_object_get(r, "suspicious")));
	/* Quotes in the statement leave the output only escaped. */
	assert_null(strstr(raw, "'x'"));
	json_decref(j);
	free(raw);
	fixture_close(f);
}

static void test_hostile_text_is_inert(void **state)
{
	static const char hostile[] = "UPDATE orders SET note = '</script><img src=x onerror=alert(1)>'"
				      " /* \xe2\x80\xae } \xe2\x81\xa6if (admin)\xe2\x81\xa9 */\x1b[2J\r";
	struct fixture *f = fixture_open("/tmp/approval_json_XXXXXX");
	struct approval_store *s = f->s;
	char *raw;
	json_t *j, *r;

	(void)state;
	put(s, hostile, 1000, NULL);
	j = list(s, APPROVAL_PENDING, 10, &raw);
	r = json_array_get(j, 0);
	/* The parser gives back what was written, byte for byte. */
	assert_string_equal(json_string_value(json_object_get(r, "statement")), hostile);
	assert_true(json_is_true(json_object_get(r, "suspicious")));
	/* The text on the wire holds none of it raw. */
	assert_null(strstr(raw, "<"));
	assert_null(strstr(raw, ">"));
	assert_null(strstr(raw, "'"));
	assert_null(strstr(raw, "\xe2\x80\xae"));
	assert_null(strstr(raw, "\x1b"));
	assert_null(strstr(raw, "\r"));
	assert_non_null(strstr(raw, "\\u202E"));
	json_decref(j);
	free(raw);
	fixture_close(f);
}

static void test_list_order_limit_status(void **state)
{
	struct fixture *f = fixture_open("/tmp/approval_json_XXXXXX");
	struct approval_store *s = f->s;
	char first[APPROVAL_ID_LEN + 1], second[APPROVAL_ID_LEN + 1], *raw;
	struct approval_move m = {.from = APPROVAL_PENDING, .to = APPROVAL_REJECTED, .now = 2500, .by = "ann"};
	json_t *j;

	(void)state;
	put(s, "DELETE FROM orders WHERE id = 2", 2000, second);
	put(s, "DELETE FROM orders WHERE id = 1", 1000, first);
	put(s, "DELETE FROM orders WHERE id = 3", 3000, NULL);
	j = list(s, APPROVAL_PENDING, 2, &raw);
	assert_int_equal(json_array_size(j), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "id")), first);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "id")), second);
	json_decref(j);
	free(raw);
	m.id = first;
	assert_int_equal(s->ops->move(s, &m), APPROVAL_OK);
	j = list(s, APPROVAL_REJECTED, 10, &raw);
	assert_int_equal(json_array_size(j), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "decided_by")), "ann");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "decided_at")), 2500);
	json_decref(j);
	free(raw);
	j = list(s, APPROVAL_EXECUTED, 10, &raw);
	assert_int_equal(json_array_size(j), 0);
	json_decref(j);
	free(raw);
	fixture_close(f);
}

/* The dry run's plan and sample: the sample a JSON value, its database text as inert as the agent's. */
static void test_plan_and_sample(void **state)
{
	struct fixture *f = fixture_open("/tmp/approval_json_XXXXXX");
	struct approval_store *s = f->s;
	json_t *j, *r, *sample;
	char *raw;

	(void)state;
	put_with(s, "UPDATE t SET a = 1", "Update on t\n  ->  Seq Scan on t",
		 "{\"columns\":[\"id\",\"note\"],\"rows\":[{\"before\":[\"1\",\"<b>\u202e\"],\"after\":[\"1\",null]}],"
		 "\"truncated\":false}",
		 1000, NULL);
	put_with(s, "UPDATE t SET a = 2", "", "[1]", 2000, NULL);
	j = list(s, APPROVAL_PENDING, 10, &raw);
	r = json_array_get(j, 0);
	assert_string_equal(json_string_value(json_object_get(r, "plan")), "Update on t\n  ->  Seq Scan on t");
	sample = json_object_get(r, "sample");
	assert_true(json_is_object(sample));
	assert_string_equal(json_string_value(json_array_get(json_object_get(sample, "columns"), 1)), "note");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(json_array_get(json_object_get(sample, "rows"), 0), "before"), 1)),
			    "<b>\u202e");
	assert_true(json_is_null(
		json_array_get(json_object_get(json_array_get(json_object_get(sample, "rows"), 0), "after"), 1)));
	assert_true(json_is_false(json_object_get(sample, "truncated")));
	assert_true(json_is_true(json_object_get(r, "suspicious")));
	assert_true(json_is_null(json_object_get(json_array_get(j, 1), "sample")));
	assert_null(strstr(raw, "<b>"));
	assert_null(strstr(raw, "\xe2\x80\xae"));
	json_decref(j);
	free(raw);
	fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_reads_back),
		cmocka_unit_test(test_hostile_text_is_inert),
		cmocka_unit_test(test_list_order_limit_status),
		cmocka_unit_test(test_plan_and_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
