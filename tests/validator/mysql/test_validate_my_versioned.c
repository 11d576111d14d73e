/*
 * test_validate_my_versioned: versioned comments read as MariaDB 10.11
 * reads them (markers blanked, a newer version's content blanked, offsets
 * kept), quotes and modes respected, uncertain forms left to be refused,
 * and no read past the text at any truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_versioned.h"

struct vcase {
	const char *in;
	enum vmy_versioned want;
	const char *out; /* EXPANDED: the text after */
	bool ansi, nobs;
};

static const struct vcase cases[] = {
	{"SHOW /*!50002 FULL*/ TABLES FROM shop LIKE '%'", VMY_VERSIONED_EXPANDED,
	 "SHOW          FULL   TABLES FROM shop LIKE '%'"},
	{"/*!40100 SET @@SQL_MODE='' */", VMY_VERSIONED_EXPANDED, "         SET @@SQL_MODE=''   "},
	{"SELECT 1/*!*/", VMY_VERSIONED_EXPANDED, "SELECT 1     "},
	{"SELECT 1 /*!110000 , (SELECT 2) */", VMY_VERSIONED_EXPANDED, "SELECT 1                          "},
	{"SELECT 1 /*M!100100 , 2*/", VMY_VERSIONED_EXPANDED, "SELECT 1            , 2  "},
	{"SELECT 1 /*m!101200 , 'x*/'*/", VMY_VERSIONED_EXPANDED, "SELECT 1                     "},
	{"SELECT '*/' /*!50000 ,'*/' */", VMY_VERSIONED_EXPANDED, "SELECT '*/'          ,'*/'   "},
	{"SELECT 1 /*!50000\n, 2 */", VMY_VERSIONED_EXPANDED, "SELECT 1         \n, 2   "},
	{"SELECT '/*!50000 x*/'", VMY_VERSIONED_NONE, NULL},
	{"SELECT `a/*!` FROM t", VMY_VERSIONED_NONE, NULL},
	{"/* c */ SELECT 1 -- /*!x\n", VMY_VERSIONED_NONE, NULL},
	{"SELECT 1 # /*!50000 2 */", VMY_VERSIONED_NONE, NULL},
	{"SELECT 'a\\'/*!1*/'", VMY_VERSIONED_NONE, NULL},
	{"SELECT 'a\\'/*!*/", VMY_VERSIONED_EXPANDED, "SELECT 'a\\'     ", false, true},
	{"SELECT \"a\\\"/*!*/", VMY_VERSIONED_EXPANDED, "SELECT \"a\\\"     ", true, false},
	{"SELECT /*+ hint */ 1", VMY_VERSIONED_NONE, NULL},
	/* Uncertain: left whole for the validator to refuse. */
	{"/*!50000 SELECT 1", VMY_VERSIONED_UNSURE, NULL},
	{"/*!5000 SELECT 1*/", VMY_VERSIONED_UNSURE, NULL},
	{"/*!5000000 SELECT 1*/", VMY_VERSIONED_UNSURE, NULL},
	{"/*! SELECT /* x */ 1 */", VMY_VERSIONED_UNSURE, NULL},
	{"/*! SELECT 1 # */\n", VMY_VERSIONED_UNSURE, NULL},
	{"/*! SELECT 1 -- */\n", VMY_VERSIONED_UNSURE, NULL},
	{"SELECT 'open /*!50000", VMY_VERSIONED_UNSURE, NULL},
	{"SELECT 1 /* open", VMY_VERSIONED_UNSURE, NULL},
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct vcase *c = &cases[i];
		size_t len = strlen(c->in);
		char *buf = malloc(len ? len : 1);
		enum vmy_versioned got;

		assert_non_null(buf);
		memcpy(buf, c->in, len);
		got = vmy_expand_versioned(buf, len, c->ansi, c->nobs);
		if (got != c->want)
			fail_msg("%s: got %d, want %d", c->in, got, c->want);
		if (c->want == VMY_VERSIONED_EXPANDED && (strlen(c->out) != len || memcmp(buf, c->out, len) != 0))
			fail_msg("%s: got [%.*s], want [%s]", c->in, (int)len, buf, c->out);
		if (c->want == VMY_VERSIONED_NONE && memcmp(buf, c->in, len) != 0)
			fail_msg("%s: changed", c->in);
		free(buf);
	}
}

/* Every prefix, in a buffer of exactly its length (ASan sees a read past it). */
static void test_every_prefix(void **state)
{
	static const char *const texts[] = {
		"SHOW /*!50002 FULL*/ TABLES FROM shop LIKE '%'",
		"SELECT 'x\\'' /*M!100100 , `a``b`, \"c\"\"d\" */ -- e\n# f\n/* g */",
	};

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		size_t n = strlen(texts[t]);

		for (size_t len = 0; len <= n; len++) {
			char *buf = malloc(len ? len : 1);

			assert_non_null(buf);
			memcpy(buf, texts[t], len);
			(void)vmy_expand_versioned(buf, len, t == 1, false);
			free(buf);
		}
	}
}

/* The expanded text is what the validator judges: DBD::mysql's table_info reads. */
static void test_expanded_text_validates(void **state)
{
	static const char *const tables[] = {"shop.orders", "information_schema.*"};
	const struct vmy_policy pol = {.user = "agent", .database = "shop", .tables = tables, .ntables = 2};
	char sql[] = "SHOW /*!50002 FULL*/ TABLES FROM shop LIKE '%'";
	struct vmy_result r;

	(void)state;
	assert_int_equal(vmy_expand_versioned(sql, strlen(sql), false, false), VMY_VERSIONED_EXPANDED);
	vmy_validate(&pol, sql, strlen(sql), &r);
	if (r.kind != VMY_READ)
		fail_msg("%s: %s", sql, r.message);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_expanded_text_validates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
