/*
 * test_name_table: exact look-ups in a sorted table of structs and of
 * bare strings (first, last, between, before and after every name), the
 * order check (equal neighbours and descending pairs refused), and a
 * denylist's exact match winning over a prefix family.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/name_table.h"

struct entry {
	const char *name;
	int value;
};

static const struct entry entries[] = {{"alpha", 1}, {"beta", 2}, {"delta", 4}, {"gamma", 3}};
static const char *const words[] = {"ascii", "utf8", "utf8mb4"};

static void test_find(void **state)
{
	const struct entry *e;

	(void)state;
	for (size_t i = 0; i < NAME_TABLE_LEN(entries); i++) {
		e = name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), entries[i].name);
		assert_ptr_equal(e, &entries[i]);
	}
	assert_null(name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), "aaa"));
	assert_null(name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), "charlie"));
	assert_null(name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), "zulu"));
	assert_null(name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), "alph"));
	assert_null(name_table_find(entries, NAME_TABLE_LEN(entries), sizeof(entries[0]), ""));
	assert_null(name_table_find(entries, 0, sizeof(entries[0]), "alpha"));

	assert_ptr_equal(name_table_find(words, NAME_TABLE_LEN(words), sizeof(words[0]), "utf8"), &words[1]);
	assert_null(name_table_find(words, NAME_TABLE_LEN(words), sizeof(words[0]), "utf8mb3"));
}

static void test_sorted(void **state)
{
	static const struct entry dup[] = {{"a", 0}, {"b", 0}, {"b", 0}};
	static const char *const down[] = {"b", "a"};

	(void)state;
	assert_true(name_table_sorted(entries, NAME_TABLE_LEN(entries), sizeof(entries[0])));
	assert_true(name_table_sorted(words, NAME_TABLE_LEN(words), sizeof(words[0])));
	assert_true(name_table_sorted(words, 0, sizeof(words[0])));
	assert_false(name_table_sorted(dup, NAME_TABLE_LEN(dup), sizeof(dup[0])));
	assert_false(name_table_sorted(down, NAME_TABLE_LEN(down), sizeof(down[0])));
}

static void test_rules(void **state)
{
	static const struct name_rule rules[] = {
		{"lo_", true, "family"},
		{"lo_export", false, "exact"},
		{"nextval", false, "sequence"},
		{"pg_advisory_", true, "lock"},
	};
	const size_t n = NAME_TABLE_LEN(rules);

	(void)state;
	assert_true(name_table_sorted(rules, n, sizeof(rules[0])));
	assert_string_equal(name_rule_find(rules, n, "lo_export")->reason, "exact");
	assert_string_equal(name_rule_find(rules, n, "lo_import")->reason, "family");
	assert_string_equal(name_rule_find(rules, n, "lo_")->reason, "family");
	assert_string_equal(name_rule_find(rules, n, "pg_advisory_lock")->reason, "lock");
	assert_string_equal(name_rule_find(rules, n, "nextval")->reason, "sequence");
	assert_null(name_rule_find(rules, n, "nextval2"));
	assert_null(name_rule_find(rules, n, "lo"));
	assert_null(name_rule_find(rules, n, "pg_advisory"));
	assert_null(name_rule_find(rules, n, "upper"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
