/* Tests for [admin NAME]: the admin console's accounts, and the database name they reserve. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "tests/conf/conf_fixture.h"

static char *edit(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	char *out;

	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from)) > 0);
	return out;
}

/* base_conf with from replaced by to must fail with a message holding want. */
static void expect_edit_error(const char *from, const char *to, const char *want)
{
	struct config_errors e;
	char *text = edit(base_conf, from, to);
	struct airlock_config *cfg = config_load_string(text, data_dir, &e);
	bool found = false;

	free(text);
	assert_null(cfg);
	for (size_t i = 0; i < e.n; i++)
		found |= strstr(e.msg[i], want) != NULL;
	if (!found)
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "  %s\n", e.msg[i]);
	assert_true(found);
}

static void admins(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *text;

	text = edit(base_conf, "[hosts]\n", "[admin ops]\nscram = " VERIFIER "\n\n[hosts]\n");
	cfg = config_load_string(text, data_dir, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->nadmins, 1);
	assert_string_equal(cfg->admins[0].name, "ops");
	assert_string_equal(cfg->admins[0].scram, VERIFIER);
	assert_ptr_equal(config_find_admin(cfg, "ops"), &cfg->admins[0]);
	assert_null(config_find_admin(cfg, "agent"));
	assert_null(config_find_user(cfg, "ops"));
	config_free(cfg);
}

static void admin_errors(void **state)
{
	expect_edit_error("[hosts]\n", "[admin ops]\n\n[hosts]\n", "[admin ops] is missing scram");
	expect_edit_error("[hosts]\n", "[admin ops]\nscram = secret\n\n[hosts]\n", "[admin ops] scram");
	expect_edit_error("[hosts]\n", "[admin agent]\nscram = " VERIFIER "\n\n[hosts]\n",
			  "has the name of a [user agent]");
	expect_edit_error("[hosts]\n",
			  "[admin ops]\nscram = " VERIFIER "\n[admin ops]\nscram = " VERIFIER "\n\n[hosts]\n",
			  "[admin ops] is defined twice");
	expect_edit_error("target = shop\n", "target = shop\ndatabase = airlock\n", "the admin console's name");
}

/* The checksum is of the text as loaded: another byte, another checksum. */
static void checksum(void **state)
{
	struct config_errors e;
	struct airlock_config *a = config_load_string(base_conf, data_dir, &e), *b;
	char *text = edit(base_conf, "[hosts]\n", "[hosts]\n\n");
	uint8_t zero[32] = {0};

	b = config_load_string(text, data_dir, &e);
	free(text);
	assert_non_null(a);
	assert_non_null(b);
	assert_memory_not_equal(a->checksum, zero, 32);
	assert_memory_not_equal(a->checksum, b->checksum, 32);
	config_free(a);
	config_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(admins),
		cmocka_unit_test(admin_errors),
		cmocka_unit_test(checksum),
	};

	return cmocka_run_group_tests(tests, setup_data, NULL);
}
