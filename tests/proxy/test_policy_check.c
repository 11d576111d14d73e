/*
 * test_policy_check: a rule's SQL is checked at load by the validator of
 * its protocol, against the user's own policy: a filter or mask that reads
 * a table outside the allowlist, calls a denied function or is more than
 * one expression is refused with the validator's message; a rule on a
 * table the user may not read, or on a catalog, is refused; good rules
 * pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "proxy/policy_check.h"
#include "tests/conf/conf_fixture.h"

/* base_conf's user with rules appended; NULL problems expected when want is NULL. */
static void expect(const char *rules, const char *want)
{
	char text[4096];
	struct config_errors e = {0};
	struct airlock_config *cfg;
	bool ok;

	snprintf(text, sizeof(text),
		 "%s"
		 "tables = public.orders, public.customers\n"
		 "mysql_target = mar\n"
		 "mysql_tables = shop.orders\n%s"
		 "\n[target mar]\nengine = mariadb\nhost = 127.0.0.1\nport = 3306\ndatabase = shop\nuser = ro\n"
		 "password_file = shop.password\n",
		 base_conf, rules);
	cfg = config_load_string(text, data_dir, &e);
	if (!cfg) {
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "load: %s\n", e.msg[i]);
		fail();
	}
	ok = policy_check(cfg, &e);
	if (!want) {
		if (!ok)
			fail_msg("refused: %s", e.msg[0]);
	} else {
		if (ok)
			fail_msg("not refused: %s", rules);
		if (!strstr(e.msg[0], want))
			fail_msg("got \"%s\", wanted \"%s\"", e.msg[0], want);
	}
	config_free(cfg);
}

static void test_good_rules(void **state)
{
	(void)state;
	expect("filter public.orders = customer_id <= 100\n"
	       "columns public.customers = id, email\n"
	       "mask public.customers.email = left(email, 1) || '***@' || split_part(email, '@', 2)\n"
	       "mysql_filter shop.orders = customer_id <= 100 -- a comment cannot swallow the rest\n",
	       NULL);
}

static void test_bad_rules(void **state)
{
	(void)state;
	expect("filter public.orders = customer_id IN (SELECT id FROM staff_salaries)\n",
	       "[user agent] filter public.orders: table \"staff_salaries\" is not allowed");
	expect("filter public.orders = pg_read_file('/etc/passwd') IS NULL\n",
	       "function pg_read_file() is not allowed");
	expect("columns public.customers = id\nmask public.customers.id = (SELECT 1); DROP TABLE x\n",
	       "[user agent] mask of id in public.customers:");
	expect("filter public.orders = true) OR (SELECT 1 FROM x\n", "filter public.orders:");
	expect("filter public.staff_salaries = true\n", "which is not in its tables");
	expect("filter pg_catalog.pg_class = true\n", "the catalogs are scoped by airlock");
	expect("mysql_filter shop.orders = LOAD_FILE('/etc/passwd') IS NULL\n",
	       "[user agent] mysql_filter shop.orders:");
	expect("mysql_filter shop.customers = true\n", "which is not in its mysql_tables");
	expect("mysql_filter information_schema.TABLES = true\n", "the catalogs are scoped by airlock");
}

/* base_conf's user with extra appended: how many warnings policy_warnings gives, the first in *first. */
static size_t warnings(const char *extra, char *first, size_t len)
{
	char text[4096];
	struct config_errors e = {0}, w = {0};
	struct airlock_config *cfg;
	size_t n;

	snprintf(text, sizeof(text),
		 "%s"
		 "tables = public.orders\n"
		 "mysql_target = mar\n"
		 "mysql_tables = shop.orders\n%s"
		 "\n[target mar]\nengine = mariadb\nhost = 127.0.0.1\nport = 3306\ndatabase = shop\nuser = ro\n"
		 "password_file = shop.password\n",
		 base_conf, extra);
	cfg = config_load_string(text, data_dir, &e);
	assert_non_null(cfg);
	assert_true(policy_check(cfg, &e));
	n = policy_warnings(cfg, &w);
	assert_int_equal(n, w.n);
	snprintf(first, len, "%s", n ? w.msg[0] : "");
	config_free(cfg);
	return n;
}

/* max_cost with a MySQL rule loads, and says that every read of the ruled table will be refused. */
static void test_cost_with_mysql_rules_is_warned(void **state)
{
	char msg[256];

	(void)state;
	assert_int_equal(
		warnings("max_cost = 50000\nmysql_filter shop.orders = customer_id <= 100\n", msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "[user agent] max_cost and MySQL rules"));
	assert_non_null(strstr(msg, "shop.orders"));
	assert_non_null(strstr(msg, "COST_LIMIT"));
	assert_int_equal(warnings("mysql_filter shop.orders = customer_id <= 100\n", msg, sizeof(msg)), 0);
	assert_int_equal(warnings("max_cost = 50000\nfilter public.orders = customer_id <= 100\n", msg, sizeof(msg)),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_good_rules, setup_data),
		cmocka_unit_test_setup(test_bad_rules, setup_data),
		cmocka_unit_test_setup(test_cost_with_mysql_rules_is_warned, setup_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
