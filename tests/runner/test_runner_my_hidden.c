/*
 * test_runner_my_hidden: a MySQL plan's key names with the hidden keys'
 * printed as RUNNER_HIDDEN_KEY: in possible_keys lists, key, Extra's
 * index merges and FORMAT=JSON text, whole names only and in any case;
 * other columns untouched; a row scrubbed in place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_my_hidden.h"

static char fk[] = "fk_staff_salaries", other[] = "Fk_Other";
static char *names[] = {fk, other};

static struct my_hidden hidden(void)
{
	MYSQL_FIELD f[6];
	struct my_hidden h = {.names = names, .n = 2};
	static const char *const cols[] = {"id", "table", "possible_keys", "key", "Extra", "EXPLAIN"};

	memset(f, 0, sizeof(f));
	for (unsigned i = 0; i < 6; i++)
		f[i].name = (char *)cols[i];
	my_hidden_columns(&h, f, 6);
	return h;
}

static void expect(const struct my_hidden *h, unsigned col, const char *v, const char *want)
{
	size_t len = 0;
	bool failed = true;
	char *got = my_hidden_scrub(h, col, v, strlen(v), &len, &failed);

	assert_false(failed);
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(len, strlen(want));
	free(got);
}

static void test_names_replaced(void **state)
{
	struct my_hidden h = hidden();

	(void)state;
	assert_true(h.any);
	expect(&h, 2, "u_order,fk_staff_salaries", "u_order,airlock_hidden_key");
	expect(&h, 2, "fk_other,fk_staff_salaries,PRIMARY", "airlock_hidden_key,airlock_hidden_key,PRIMARY");
	expect(&h, 3, "fk_staff_salaries", "airlock_hidden_key");
	expect(&h, 4, "Using intersect(fk_staff_salaries,u_order); Using where",
	       "Using intersect(airlock_hidden_key,u_order); Using where");
	expect(&h, 5, "{\"key\": \"FK_STAFF_SALARIES\", \"possible_keys\": [\"u\", \"fk_other\"]}",
	       "{\"key\": \"airlock_hidden_key\", \"possible_keys\": [\"u\", \"airlock_hidden_key\"]}");
}

static void test_only_whole_names_in_printing_columns(void **state)
{
	struct my_hidden h = hidden();
	struct my_hidden none = {0};

	(void)state;
	expect(&h, 3, "fk_staff_salaries_2", NULL);
	expect(&h, 3, "xfk_staff_salaries", NULL);
	expect(&h, 3, "fk_staff_salarie", NULL);
	expect(&h, 3, "", NULL);
	/* The table column (an alias the agent chose) and others stay as the server printed them. */
	expect(&h, 1, "fk_staff_salaries", NULL);
	expect(&h, 0, "fk_staff_salaries", NULL);
	/* Nothing hidden: nothing to do. */
	assert_false(none.any);
	expect(&none, 3, "fk_staff_salaries", NULL);
}

static void test_row_in_place(void **state)
{
	struct my_hidden h = hidden();
	char v0[] = "1", v1[] = "c", v2[] = "fk_staff_salaries,u", v3[] = "u";
	char *row[] = {v0, v1, v2, v3, NULL, NULL};
	unsigned long lengths[] = {1, 1, strlen(v2), 1, 0, 0};

	(void)state;
	assert_int_equal(my_hidden_row(&h, row, lengths, 6), 0);
	assert_string_equal(row[2], "airlock_hidden_key,u");
	assert_int_equal(lengths[2], strlen("airlock_hidden_key,u"));
	assert_ptr_equal(row[3], v3);
	assert_null(row[4]);
	assert_int_equal(h.nscratch, 1);
	/* The next row (fetched anew) frees the last one's values. */
	row[2] = v2;
	lengths[2] = strlen(v2);
	assert_int_equal(my_hidden_row(&h, row, lengths, 6), 0);
	assert_int_equal(h.nscratch, 1);
	for (size_t k = 0; k < h.nscratch; k++)
		free(h.scratch[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_replaced),
		cmocka_unit_test(test_only_whole_names_in_printing_columns),
		cmocka_unit_test(test_row_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
