/* Unit tests for proxy/pg/pg_settings: the session settings table and its rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/pg/pg_settings.h"

static int set(struct pg_settings *s, const char *name, const char *value, const char **sqlstate)
{
	bool reported;
	enum airlock_err code;
	char msg[256];

	return pgs_set(s, name, value, false, &reported, sqlstate, &code, msg, sizeof(msg));
}

static const char *show(const struct pg_settings *s, const char *name)
{
	const char *display;

	return pgs_show(s, name, &display);
}

static void test_defaults(void **state)
{
	struct pg_settings s;
	const char *display;

	pgs_init(&s, "agent");
	assert_string_equal(show(&s, "DateStyle"), "ISO, MDY");
	assert_string_equal(show(&s, "client_encoding"), "UTF8");
	assert_string_equal(show(&s, "session_authorization"), "agent");
	assert_string_equal(show(&s, "default_transaction_read_only"), "on");
	assert_string_equal(show(&s, "search_path"), "\"public\"");
	assert_non_null(pgs_show(&s, "timezone", &display));
	assert_string_equal(display, "TimeZone");
	assert_null(show(&s, "work_mem"));
	pgs_free(&s);
}

static void test_datestyle_keeps_the_other_half(void **state)
{
	struct pg_settings s;
	const char *sqlstate;

	pgs_init(&s, "a");
	assert_int_equal(set(&s, "datestyle", "ISO", &sqlstate), 0);
	assert_string_equal(show(&s, "datestyle"), "ISO, MDY");
	assert_int_equal(set(&s, "DateStyle", "dmy", &sqlstate), 0);
	assert_string_equal(show(&s, "datestyle"), "ISO, DMY");
	assert_int_equal(set(&s, "datestyle", "German, YMD", &sqlstate), 0);
	assert_string_equal(show(&s, "datestyle"), "German, YMD");
	assert_int_equal(set(&s, "datestyle", "nonsense", &sqlstate), -1);
	assert_string_equal(sqlstate, "22023");
	pgs_free(&s);
}

static void test_search_path(void **state)
{
	struct pg_settings s;
	const char *sqlstate, *path[PGS_MAX_PATH];
	struct job_setting js[32];
	size_t n;
	bool found = false;

	pgs_init(&s, "a");
	assert_int_equal(set(&s, "search_path", "\"$user\", Public, \"App\"\"x\"", &sqlstate), 0);
	n = pgs_search_path(&s, path);
	assert_int_equal(n, 2);
	assert_string_equal(path[0], "public");
	assert_string_equal(path[1], "App\"x");
	assert_string_equal(show(&s, "search_path"), "\"public\", \"App\"\"x\"");
	/* search_path always reaches the runner: the validator resolved names against it. */
	n = pgs_job_settings(&s, js);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(js[i].name, "search_path"))
			found = !strcmp(js[i].value, "\"public\", \"App\"\"x\"");
	assert_true(found);
	/* So does standard_conforming_strings = on, which the validator parsed with. */
	found = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(js[i].name, "standard_conforming_strings"))
			found = !strcmp(js[i].value, "on");
	assert_true(found);
	assert_int_equal(set(&s, "standard_conforming_strings", "off", &sqlstate), -1);
	assert_int_equal(set(&s, "backslash_quote", "on", &sqlstate), -1);
	assert_int_equal(set(&s, "escape_string_warning", "off", &sqlstate), -1);
	assert_int_equal(set(&s, "search_path", "\"unterminated", &sqlstate), -1);
	assert_int_equal(set(&s, "search_path", "a b", &sqlstate), -1);
	pgs_free(&s);
}

static void test_fixed_and_unknown(void **state)
{
	struct pg_settings s;
	const char *sqlstate;

	pgs_init(&s, "a");
	assert_int_equal(set(&s, "default_transaction_read_only", "off", &sqlstate), -1);
	assert_string_equal(sqlstate, "25006");
	assert_int_equal(set(&s, "transaction_read_only", "off", &sqlstate), -1);
	assert_int_equal(set(&s, "default_transaction_read_only", "ON", &sqlstate), 0);
	assert_int_equal(set(&s, "client_encoding", "LATIN1", &sqlstate), -1);
	assert_string_equal(sqlstate, "22023");
	assert_int_equal(set(&s, "client_encoding", "utf-8", &sqlstate), 0);
	assert_int_equal(set(&s, "work_mem", "1GB", &sqlstate), -1);
	assert_string_equal(sqlstate, "42501");
	assert_int_equal(set(&s, "session_authorization", "postgres", &sqlstate), -1);
	pgs_free(&s);
}

static void test_reset(void **state)
{
	struct pg_settings s;
	const char *sqlstate;
	bool reported;
	enum airlock_err code;
	char msg[128];

	pgs_init(&s, "a");
	assert_int_equal(
		pgs_set(&s, "application_name", "from-startup", true, &reported, &sqlstate, &code, msg, sizeof(msg)),
		0);
	assert_true(reported);
	assert_int_equal(set(&s, "application_name", "later", &sqlstate), 0);
	assert_int_equal(set(&s, "timezone", "Europe/Paris", &sqlstate), 0);
	assert_int_equal(pgs_reset(&s, "application_name", msg, sizeof(msg)), 0);
	assert_string_equal(show(&s, "application_name"), "from-startup");
	assert_int_equal(pgs_reset(&s, "all", msg, sizeof(msg)), 0);
	assert_string_equal(show(&s, "timezone"), "UTC");
	assert_int_equal(pgs_reset(&s, "work_mem", msg, sizeof(msg)), -1);
	pgs_free(&s);
}

static void test_too_long(void **state)
{
	struct pg_settings s;
	const char *sqlstate;
	char big[PGS_VALUE_MAX + 10];

	pgs_init(&s, "a");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(set(&s, "application_name", big, &sqlstate), -1);
	assert_string_equal(sqlstate, "22023");
	pgs_free(&s);
}

static void test_client_encoding_names(void **state)
{
	static const char *const utf8[] = {"UTF8", "utf8", "utf-8", "'utf-8'", "UTF_8", "Unicode", "\"utf8\""};
	static const char *const other[] = {"latin1", "SQL_ASCII", "utf16", "", "'utf-8'x"};
	const char *sqlstate;
	struct pg_settings s;

	pgs_init(&s, "a");
	for (size_t i = 0; i < sizeof(utf8) / sizeof(utf8[0]); i++)
		assert_int_equal(set(&s, "client_encoding", utf8[i], &sqlstate), 0);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		assert_int_equal(set(&s, "client_encoding", other[i], &sqlstate), -1);
		assert_string_equal(sqlstate, "22023");
	}
	assert_string_equal(show(&s, "client_encoding"), "UTF8");
	pgs_free(&s);
}

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		const char *shown; /* NULL: refused */
		uint64_t ms;
	} cases[] = {
		{"0", "0", 0},
		{"1500", "1500ms", 1500},
		{"2000", "2s", 2000},
		{"1.5s", "1500ms", 1500},
		{"120s", "2min", 120000},
		{" 5 min ", "5min", 300000},
		{"3600000", "1h", 3600000},
		{"2d", "2d", 172800000},
		{"250us", "0", 0},
		{"600us", "1ms", 1},
		{"2147483647", "2147483647ms", 2147483647},
		{"2147483648", NULL, 0},
		{"1e20", NULL, 0},
		{"-1", NULL, 0},
		{"abc", NULL, 0},
		{"5 parsecs", NULL, 0},
		{"5 s s", NULL, 0},
		{"", NULL, 0},
		{"nan", NULL, 0},
	};
	const char *sqlstate;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pg_settings s;

		pgs_init(&s, "a");
		if (!cases[i].shown) {
			assert_int_equal(set(&s, "statement_timeout", cases[i].in, &sqlstate), -1);
			assert_string_equal(sqlstate, "22023");
			assert_string_equal(show(&s, "statement_timeout"), "0");
			pgs_free(&s);
			continue;
		}
		assert_int_equal(set(&s, "statement_timeout", cases[i].in, &sqlstate), 0);
		assert_string_equal(show(&s, "statement_timeout"), cases[i].shown);
		assert_int_equal(pgs_ms(&s, "statement_timeout"), cases[i].ms);
		pgs_free(&s);
	}
}

/* A block's end puts back what SET LOCAL changed, search_path's schema list too, and keeps the rest. */
static void test_end_local(void **state)
{
	struct pg_settings s, begin;
	const char *sqlstate, *path[PGS_MAX_PATH];
	uint32_t reverted;
	int tz = pgs_find("timezone"), sp = pgs_find("search_path"), st = pgs_find("statement_timeout");

	(void)state;
	assert_int_equal(pgs_init(&s, "a"), 0);
	assert_int_equal(pgs_dup(&begin, &s), 0);
	assert_int_equal(set(&s, "timezone", "Asia/Tokyo", &sqlstate), 0);
	assert_int_equal(set(&s, "search_path", "app", &sqlstate), 0);
	assert_int_equal(set(&s, "statement_timeout", "7s", &sqlstate), 0);
	pgs_end_local(&s, &begin, (UINT32_C(1) << tz) | (UINT32_C(1) << sp), &reverted);
	assert_int_equal(reverted, (UINT32_C(1) << tz) | (UINT32_C(1) << sp));
	assert_string_equal(show(&s, "timezone"), show(&begin, "timezone"));
	assert_string_equal(show(&s, "search_path"), "\"public\"");
	assert_int_equal(pgs_search_path(&s, path), 1);
	assert_string_equal(path[0], "public");
	assert_string_equal(show(&s, "statement_timeout"), "7s");
	assert_int_equal(reverted & (UINT32_C(1) << st), 0);
	pgs_free(&s);
	pgs_free(&begin);
}

/*
 * A copy is whole of its own (BEGIN's snapshot): changing or freeing
 * one leaves the other as it was. An idle session stores only what
 * differs from the defaults.
 */
static void test_dup_is_deep(void **state)
{
	struct pg_settings s, copy;
	const char *sqlstate, *path[PGS_MAX_PATH];

	(void)state;
	assert_int_equal(pgs_init(&s, "agent"), 0);
	assert_null(s.slots); /* every setting its default: nothing stored */
	assert_int_equal(set(&s, "search_path", "Public", &sqlstate), 0);
	assert_null(s.slots); /* "public" canonical is the default */
	assert_int_equal(set(&s, "search_path", "app, public", &sqlstate), 0);
	assert_int_equal(set(&s, "application_name", "first", &sqlstate), 0);
	assert_int_equal(pgs_dup(&copy, &s), 0);
	assert_int_equal(set(&s, "application_name", "second", &sqlstate), 0);
	assert_int_equal(set(&s, "search_path", "other", &sqlstate), 0);
	assert_string_equal(show(&copy, "application_name"), "first");
	assert_int_equal(pgs_search_path(&copy, path), 2);
	assert_string_equal(path[0], "app");
	assert_string_equal(path[1], "public");
	assert_int_equal(copy.changed, s.changed);
	pgs_free(&s);
	assert_string_equal(show(&copy, "session_authorization"), "agent");
	/* Set back to its default, a value is not stored. */
	assert_int_equal(set(&copy, "application_name", "", &sqlstate), 0);
	assert_null(copy.slots->value[pgs_find("application_name")]);
	pgs_free(&copy);
	assert_int_equal(copy.npath, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),    cmocka_unit_test(test_datestyle_keeps_the_other_half),
		cmocka_unit_test(test_search_path), cmocka_unit_test(test_fixed_and_unknown),
		cmocka_unit_test(test_reset),       cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_durations),   cmocka_unit_test(test_client_encoding_names),
		cmocka_unit_test(test_end_local),   cmocka_unit_test(test_dup_is_deep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
