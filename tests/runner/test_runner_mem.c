/*
 * test_runner_mem: the engine settings derived from backend_memory_mb, for
 * Postgres and MariaDB: the documented fractions, the floors, and a budget
 * outside the key's range clamped into it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_mem.h"

static const char *value_of(const struct runner_mem_setting *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return s[i].value;
	fail_msg("no setting %s", name);
	return NULL;
}

static void test_pg(void **state)
{
	struct runner_mem_setting s[RUNNER_MEM_PG_N];

	(void)state;
	runner_mem_pg(256, s);
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "work_mem"), "16384kB");
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "hash_mem_multiplier"), "1");
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "max_parallel_workers_per_gather"), "0");
	runner_mem_pg(16, s);
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "work_mem"), "1024kB");
	/* Out of range: clamped, never a work_mem of 0 or above the largest budget's. */
	runner_mem_pg(0, s);
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "work_mem"), "1024kB");
	runner_mem_pg(UINT32_MAX, s);
	assert_string_equal(value_of(s, RUNNER_MEM_PG_N, "work_mem"), "4194304kB");
}

static void test_my(void **state)
{
	struct runner_mem_setting s[RUNNER_MEM_MY_N];

	(void)state;
	runner_mem_my(256, s);
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "max_session_mem_used"), "268435456");
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "tmp_table_size"), "67108864");
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "max_heap_table_size"), "67108864");
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "sort_buffer_size"), "8388608");
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "join_buffer_size"), "8388608");
	runner_mem_my(1, s);
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "max_session_mem_used"), "16777216");
	assert_string_equal(value_of(s, RUNNER_MEM_MY_N, "sort_buffer_size"), "524288");
	/* Digits only: runner_my sends them unquoted. */
	for (size_t i = 0; i < RUNNER_MEM_MY_N; i++)
		assert_int_equal(strspn(s[i].value, "0123456789"), strlen(s[i].value));
}

static void test_my_sql(void **state)
{
	char sql[RUNNER_MEM_MY_SQL_MAX];
	size_t n;

	(void)state;
	n = runner_mem_my_sql(256, sql, sizeof(sql));
	assert_int_equal(n, strlen(sql));
	assert_string_equal(sql, ", @@SESSION.max_session_mem_used = 268435456, @@SESSION.tmp_table_size = 67108864, "
				 "@@SESSION.max_heap_table_size = 67108864, @@SESSION.sort_buffer_size = 8388608, "
				 "@@SESSION.join_buffer_size = 8388608");
	/* The largest budget still fits; a buffer too small gives nothing rather than a cut SET. */
	assert_true(runner_mem_my_sql(UINT32_MAX, sql, sizeof(sql)) > 0);
	assert_int_equal(runner_mem_my_sql(256, sql, 40), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg),
		cmocka_unit_test(test_my),
		cmocka_unit_test(test_my_sql),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
