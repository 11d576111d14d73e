/*
 * test_approval_web_session: the approval page's session table: fresh
 * tokens, look-up by the exact token only, idle and absolute expiry, the
 * bound (a full table ends the session idle longest), logout and the CSRF
 * token's comparison.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/approval_web_session.h"

#define IDLE 1000
#define ABSOLUTE 5000

static bool is_hex_token(const char *s)
{
	if (strlen(s) != WEB_SESSION_TOKEN_LEN)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789abcdef", *p))
			return false;
	return true;
}

static void test_create_and_find(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	const struct web_session *s, *f;
	char token[WEB_SESSION_TOKEN_LEN + 1], other[WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	assert_non_null(t);
	s = web_sessions_create(t, "approver", NULL, 100);
	assert_non_null(s);
	assert_true(is_hex_token(s->token));
	assert_true(is_hex_token(s->csrf));
	assert_string_not_equal(s->token, s->csrf);
	assert_string_equal(s->approver, "approver");
	memcpy(token, s->token, sizeof(token));
	f = web_sessions_find(t, token, 200);
	assert_ptr_equal(f, s);
	/* A token one character off, cut, longer, empty or NULL finds nothing. */
	memcpy(other, token, sizeof(other));
	other[10] = other[10] == 'a' ? 'b' : 'a';
	assert_null(web_sessions_find(t, other, 200));
	other[10] = token[10];
	other[WEB_SESSION_TOKEN_LEN - 1] = '\0';
	assert_null(web_sessions_find(t, other, 200));
	assert_null(web_sessions_find(t, "", 200));
	assert_null(web_sessions_find(t, NULL, 200));
	assert_null(web_sessions_find(t, "0000000000000000000000000000000000000000000000000000000000000000x", 200));
	/* An unused (zeroed) slot is never found, even by a token of zero bytes' text. */
	assert_null(web_sessions_find(t, "0000000000000000000000000000000000000000000000000000000000000000", 200));
	assert_int_equal(web_sessions_count(t, 200), 1);
	web_sessions_free(t);
}

static void test_two_sessions_have_different_tokens(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	char a[WEB_SESSION_TOKEN_LEN + 1], b[WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	memcpy(a, web_sessions_create(t, "x", NULL, 0)->token, sizeof(a));
	memcpy(b, web_sessions_create(t, "x", NULL, 0)->token, sizeof(b));
	assert_string_not_equal(a, b);
	assert_int_equal(web_sessions_count(t, 0), 2);
	web_sessions_free(t);
}

static void test_idle_expiry(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	char token[WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	memcpy(token, web_sessions_create(t, "x", NULL, 0)->token, sizeof(token));
	/* Each request restarts the idle clock. */
	assert_non_null(web_sessions_find(t, token, IDLE - 1));
	assert_non_null(web_sessions_find(t, token, 2 * IDLE - 2));
	assert_null(web_sessions_find(t, token, 3 * IDLE - 2));
	/* Ended for good: an earlier clock does not bring it back. */
	assert_null(web_sessions_find(t, token, 0));
	assert_int_equal(web_sessions_count(t, 0), 0);
	web_sessions_free(t);
}

static void test_absolute_expiry(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	char token[WEB_SESSION_TOKEN_LEN + 1];
	int64_t now;

	(void)state;
	memcpy(token, web_sessions_create(t, "x", NULL, 0)->token, sizeof(token));
	for (now = 500; now < ABSOLUTE; now += 500)
		assert_non_null(web_sessions_find(t, token, now));
	assert_null(web_sessions_find(t, token, ABSOLUTE));
	web_sessions_free(t);
}

static void test_bound_ends_the_longest_idle(void **state)
{
	struct web_sessions *t = web_sessions_new(3, IDLE, ABSOLUTE);
	char tok[4][WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	for (int i = 0; i < 3; i++)
		memcpy(tok[i], web_sessions_create(t, "x", NULL, i)->token, sizeof(tok[i]));
	/* The first is used again, so the second is the one idle longest. */
	assert_non_null(web_sessions_find(t, tok[0], 10));
	memcpy(tok[3], web_sessions_create(t, "y", NULL, 11)->token, sizeof(tok[3]));
	assert_int_equal(web_sessions_count(t, 11), 3);
	assert_non_null(web_sessions_find(t, tok[0], 12));
	assert_null(web_sessions_find(t, tok[1], 12));
	assert_non_null(web_sessions_find(t, tok[2], 12));
	assert_string_equal(web_sessions_find(t, tok[3], 12)->approver, "y");
	/* Many more logins never grow the table. */
	for (int i = 0; i < 100; i++)
		assert_non_null(web_sessions_create(t, "z", NULL, 20 + i));
	assert_int_equal(web_sessions_count(t, 120), 3);
	web_sessions_free(t);
}

static void test_an_expired_slot_is_reused_first(void **state)
{
	struct web_sessions *t = web_sessions_new(2, IDLE, ABSOLUTE);
	char a[WEB_SESSION_TOKEN_LEN + 1], b[WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	memcpy(a, web_sessions_create(t, "a", NULL, 0)->token, sizeof(a));
	memcpy(b, web_sessions_create(t, "b", NULL, 900)->token, sizeof(b));
	/* a is past its idle time at 1500, b is not: the new login takes a's slot. */
	assert_non_null(web_sessions_create(t, "c", NULL, 1500));
	assert_non_null(web_sessions_find(t, b, 1500));
	assert_null(web_sessions_find(t, a, 1500));
	web_sessions_free(t);
}

static void test_logout(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	char token[WEB_SESSION_TOKEN_LEN + 1];

	(void)state;
	memcpy(token, web_sessions_create(t, "x", NULL, 0)->token, sizeof(token));
	web_sessions_end(t, "not a token");
	assert_non_null(web_sessions_find(t, token, 1));
	web_sessions_end(t, token);
	assert_null(web_sessions_find(t, token, 2));
	web_sessions_end(t, token);
	web_sessions_free(t);
}

static void test_csrf(void **state)
{
	struct web_sessions *t = web_sessions_new(4, IDLE, ABSOLUTE);
	const struct web_session *s = web_sessions_create(t, "x", NULL, 0);
	char csrf[WEB_SESSION_TOKEN_LEN + 2];

	(void)state;
	memcpy(csrf, s->csrf, WEB_SESSION_TOKEN_LEN + 1);
	assert_true(web_session_csrf_ok(s, csrf));
	/* The session's own cookie token is not its CSRF token. */
	assert_false(web_session_csrf_ok(s, s->token));
	assert_false(web_session_csrf_ok(s, NULL));
	assert_false(web_session_csrf_ok(s, ""));
	assert_false(web_session_csrf_ok(NULL, csrf));
	csrf[WEB_SESSION_TOKEN_LEN] = 'a';
	csrf[WEB_SESSION_TOKEN_LEN + 1] = '\0';
	assert_false(web_session_csrf_ok(s, csrf));
	csrf[WEB_SESSION_TOKEN_LEN] = '\0';
	csrf[0] = csrf[0] == '0' ? '1' : '0';
	assert_false(web_session_csrf_ok(s, csrf));
	web_sessions_free(t);
}

static void test_binding(void **state)
{
	struct web_sessions *t = web_sessions_new(2, IDLE, ABSOLUTE);
	unsigned char b[WEB_SESSION_BINDING_LEN], zero[WEB_SESSION_BINDING_LEN] = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i + 1);
	assert_memory_equal(web_sessions_create(t, "x", b, 0)->binding, b, sizeof(b));
	assert_memory_equal(web_sessions_create(t, "y", NULL, 0)->binding, zero, sizeof(zero));
	web_sessions_free(t);
}

static void test_names(void **state)
{
	struct web_sessions *t = web_sessions_new(2, IDLE, ABSOLUTE);
	char longname[APPROVAL_MAX_NAME + 2];

	(void)state;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_null(web_sessions_create(t, longname, NULL, 0));
	longname[APPROVAL_MAX_NAME] = '\0';
	assert_non_null(web_sessions_create(t, longname, NULL, 0));
	assert_null(web_sessions_new(0, IDLE, ABSOLUTE));
	web_sessions_free(t);
	web_sessions_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_find),
		cmocka_unit_test(test_two_sessions_have_different_tokens),
		cmocka_unit_test(test_idle_expiry),
		cmocka_unit_test(test_absolute_expiry),
		cmocka_unit_test(test_bound_ends_the_longest_idle),
		cmocka_unit_test(test_an_expired_slot_is_reused_first),
		cmocka_unit_test(test_logout),
		cmocka_unit_test(test_csrf),
		cmocka_unit_test(test_binding),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
