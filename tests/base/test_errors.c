/*
 * test_errors: the table of airlock error codes (base/errors.h) and the
 * two error tables of docs/errors.md say the same: every code that reaches
 * Postgres clients is a row of the Postgres table with its SQLSTATE first,
 * every code that reaches MySQL clients a row of the MySQL table with its
 * errno and SQLSTATE first, and the page names no code the table lacks.
 * docs/errors.md is found from $AIRLOCK_TEST_DATA (tests/data) two levels up.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"

static char *page;

static int load_page(void **state)
{
	const char *d = getenv("AIRLOCK_TEST_DATA");
	char path[4096];
	FILE *f;
	long n;

	(void)state;
	snprintf(path, sizeof(path), "%s/../../docs/errors.md", d ? d : "tests/data");
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	page = calloc(1, (size_t)n + 1);
	if (!page || fread(page, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int free_page(void **state)
{
	(void)state;
	free(page);
	return 0;
}

/* The table whose header line starts with header: its rows, up to the first line that is not a row. */
static char *table(const char *header)
{
	const char *at = strstr(page, header), *end;

	assert_non_null(at);
	at = strchr(at, '\n') + 1; /* the header */
	at = strchr(at, '\n') + 1; /* the | --- | line */
	for (end = at; *end == '|'; end = strchr(end, '\n') + 1)
		;
	return strndup(at, (size_t)(end - at));
}

/* The row of rows naming `name` in its first cell, or NULL: a copy of its second cell. */
static char *cell_for(const char *rows, const char *name)
{
	char want[64];
	const char *line = rows;

	snprintf(want, sizeof(want), "`%s`", name);
	while (*line) {
		const char *eol = strchr(line, '\n');
		const char *c1 = line + 1, *c2 = strchr(c1, '|');
		const char *c3 = c2 ? strchr(c2 + 1, '|') : NULL;

		if (c2 && c3 && memmem(c1, (size_t)(c2 - c1), want, strlen(want)))
			return strndup(c2 + 1, (size_t)(c3 - c2 - 1));
		line = eol + 1;
	}
	return NULL;
}

/* Every `CODE` in the first cells of rows is in the table. */
static void all_codes_known(const char *rows)
{
	const char *line = rows;

	while (*line) {
		const char *eol = strchr(line, '\n'), *c2 = strchr(line + 1, '|');

		for (const char *p = line + 1; p < c2; p++) {
			const char *q;

			if (*p != '`')
				continue;
			q = strchr(p + 1, '`');
			if (airlock_err_from_name(p + 1, (uint32_t)(q - p - 1)) == AIRLOCK_E_NONE)
				fail_msg("docs/errors.md names %.*s, which base/errors.h does not have",
					 (int)(q - p - 1), p + 1);
			p = q;
		}
		line = eol + 1;
	}
}

/* The first word of five digits or capitals in cell ("NOTICE 01000" gives 01000), or "". */
static const char *first_sqlstate(const char *cell)
{
	static char out[6];
	const char *p = cell;

	out[0] = '\0';
	while (*p) {
		size_t n = strspn(p, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ");

		if (n == 5) {
			memcpy(out, p, 5);
			out[5] = '\0';
			break;
		}
		p += n ? n : 1;
	}
	return out;
}

static void test_names_round_trip(void **state)
{
	(void)state;
	assert_string_equal(airlock_err_name(AIRLOCK_E_NONE), "");
	assert_string_equal(airlock_err_name(AIRLOCK_E_COUNT), "");
	assert_int_equal(airlock_err_from_name("", 0), AIRLOCK_E_NONE);
	assert_int_equal(airlock_err_from_name("TIMEOUTX", 8), AIRLOCK_E_NONE);
	assert_int_equal(airlock_err_from_name("TIMEOUTX", 7), AIRLOCK_E_TIMEOUT);
	for (int e = 1; e < AIRLOCK_E_COUNT; e++) {
		const char *n = airlock_err_name((enum airlock_err)e);

		assert_int_equal(airlock_err_from_name(n, (uint32_t)strlen(n)), e);
		/* Every code reaches some client, and a SQLSTATE is five characters. */
		assert_true(airlock_err_pg_sqlstate((enum airlock_err)e) || airlock_err_my_errno((enum airlock_err)e));
		if (airlock_err_pg_sqlstate((enum airlock_err)e))
			assert_int_equal(strlen(airlock_err_pg_sqlstate((enum airlock_err)e)), 5);
		if (airlock_err_my_errno((enum airlock_err)e))
			assert_int_equal(strlen(airlock_err_my_sqlstate((enum airlock_err)e)), 5);
	}
}

static void test_doc_postgres_table(void **state)
{
	char *rows = table("| Code | SQLSTATE | Meaning |");

	(void)state;
	all_codes_known(rows);
	for (int e = 1; e < AIRLOCK_E_COUNT; e++) {
		const char *want = airlock_err_pg_sqlstate((enum airlock_err)e);
		char *cell;

		if (!want)
			continue;
		cell = cell_for(rows, airlock_err_name((enum airlock_err)e));
		if (!cell)
			fail_msg("docs/errors.md's Postgres error table has no row for %s",
				 airlock_err_name((enum airlock_err)e));
		if (strcmp(first_sqlstate(cell), want) != 0)
			fail_msg("docs/errors.md gives %s the SQLSTATE \"%s\"; base/errors.h says %s",
				 airlock_err_name((enum airlock_err)e), cell, want);
		free(cell);
	}
	free(rows);
}

static void test_doc_mysql_table(void **state)
{
	char *rows = table("| Code | errno (SQLSTATE) | Meaning |");

	(void)state;
	all_codes_known(rows);
	for (int e = 1; e < AIRLOCK_E_COUNT; e++) {
		unsigned want = airlock_err_my_errno((enum airlock_err)e);
		const char *state_want = airlock_err_my_sqlstate((enum airlock_err)e), *p, *paren;
		char *cell;

		if (!want)
			continue;
		cell = cell_for(rows, airlock_err_name((enum airlock_err)e));
		if (!cell)
			fail_msg("docs/errors.md's MySQL error table has no row for %s",
				 airlock_err_name((enum airlock_err)e));
		p = cell + strcspn(cell, "0123456789");
		if ((unsigned)strtoul(p, NULL, 10) != want)
			fail_msg("docs/errors.md gives %s \"%s\"; base/errors.h says errno %u",
				 airlock_err_name((enum airlock_err)e), cell, want);
		/* A warning has no SQLSTATE in the table; an error names it in parentheses. */
		paren = strchr(cell, '(');
		if (paren && strncmp(paren + 1, state_want, 5) != 0)
			fail_msg("docs/errors.md gives %s \"%s\"; base/errors.h says SQLSTATE %s",
				 airlock_err_name((enum airlock_err)e), cell, state_want);
		if (!paren && e != AIRLOCK_E_RESULT_TRUNCATED)
			fail_msg("docs/errors.md gives %s no SQLSTATE", airlock_err_name((enum airlock_err)e));
		free(cell);
	}
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_doc_postgres_table),
		cmocka_unit_test(test_doc_mysql_table),
	};

	return cmocka_run_group_tests(tests, load_page, free_page);
}
