/*
 * test_approval_form: the approval page's form decoder: what a browser
 * sends decodes exactly ("+" and %XX), and a body with a NUL, a stray %,
 * an unknown or repeated field, a value over its bound or a body over
 * APPROVAL_FORM_MAX is refused whole with no value left behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/approval_form.h"

static enum approval_form_result parse(const char *body, size_t len, struct approval_form_field *f)
{
	f[0] = (struct approval_form_field){"csrf", 64, NULL};
	f[1] = (struct approval_form_field){"reason", 16, NULL};
	return approval_form_parse(body, len, f, 2);
}

static void test_browser_bodies(void **state)
{
	struct approval_form_field f[2];

	(void)state;
	assert_int_equal(parse("csrf=abc&reason=no+way%3A+a%2Bb", 31, f), APPROVAL_FORM_OK);
	assert_string_equal(f[0].value, "abc");
	assert_string_equal(f[1].value, "no way: a+b");
	approval_form_free(f, 2);
	assert_null(f[0].value);
	/* A field left out is NULL; an empty one is "". */
	assert_int_equal(parse("csrf=", 5, f), APPROVAL_FORM_OK);
	assert_string_equal(f[0].value, "");
	assert_null(f[1].value);
	approval_form_free(f, 2);
	assert_int_equal(parse("", 0, f), APPROVAL_FORM_OK);
	assert_null(f[0].value);
	assert_null(f[1].value);
	/* Bytes that are not UTF-8 pass through: the page shows them marked. */
	assert_int_equal(parse("reason=%FF%E2%80%AE", 19, f), APPROVAL_FORM_OK);
	assert_string_equal(f[1].value, "\xff\xe2\x80\xae");
	approval_form_free(f, 2);
}

static void test_bounds(void **state)
{
	struct approval_form_field f[2];
	char body[APPROVAL_FORM_MAX + 2];

	(void)state;
	/* 16 bytes after decoding pass, 17 do not, however short the encoding. */
	assert_int_equal(parse("reason=0123456789abcdef", 23, f), APPROVAL_FORM_OK);
	approval_form_free(f, 2);
	assert_int_equal(parse("reason=0123456789abcdefg", 24, f), APPROVAL_FORM_MALFORMED);
	assert_int_equal(parse("reason=%41%41%41%41%41%41%41%41%41%41%41%41%41%41%41%41", 55, f), APPROVAL_FORM_OK);
	approval_form_free(f, 2);
	memset(body, 'a', sizeof(body));
	memcpy(body, "csrf=", 5);
	assert_int_equal(parse(body, APPROVAL_FORM_MAX + 1, f), APPROVAL_FORM_TOO_LONG);
	assert_null(f[0].value);
}

static void test_refused_whole(void **state)
{
	static const char *const bad[] = {
		"csrf=a&csrf=a",     /* repeated */
		"csrf=a&other=b",    /* unknown */
		"reason=a%00b",      /* an encoded NUL */
		"reason=50%",        /* a stray % */
		"reason=%4",         /* a cut escape */
		"reason=%zz",        /* not hex */
		"csrf",              /* no = */
		"=x",                /* no name */
		"cs%72f=a",          /* names are not decoded: unknown */
		"csrf=a&reason=b&x", /* the first fields were read; nothing is kept */
	};
	struct approval_form_field f[2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], strlen(bad[i]), f), APPROVAL_FORM_MALFORMED);
		assert_null(f[0].value);
		assert_null(f[1].value);
	}
	/* A raw NUL in the body. */
	assert_int_equal(parse("csrf=a\0b", 8, f), APPROVAL_FORM_MALFORMED);
	assert_null(f[0].value);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_browser_bodies),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_refused_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
