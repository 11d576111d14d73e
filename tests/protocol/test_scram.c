/*
 * Tests for protocol/scram: RFC 7677's SCRAM-SHA-256 exchange end to end,
 * refusals of wrong passwords and malformed messages, verifier parsing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/scram.h"

#define RFC_CLIENT_FIRST "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define RFC_SERVER_NONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define RFC_NONCE "rOprNGfwEbeRWgbNEkqO" RFC_SERVER_NONCE
#define RFC_SERVER_FIRST "r=" RFC_NONCE ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define RFC_PROOF "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define RFC_CLIENT_FINAL "c=biws,r=" RFC_NONCE ",p=" RFC_PROOF
#define RFC_SERVER_FINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

/* base64 "W22ZaJ0SNY7soEsUEjb6gQ==" */
static const uint8_t rfc_salt[16] = {
	0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e, 0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81,
};

struct fixture {
	char text[256];
	struct scram_verifier v;
	struct scram_state st;
	char out[SCRAM_MAX_MSG];
	size_t outlen;
	const char *err;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	if (scram_make_verifier("pencil", rfc_salt, sizeof(rfc_salt), 4096, f.text, sizeof(f.text)) != 0)
		return -1;
	if (scram_parse_verifier(f.text, &f.v) != 0)
		return -1;
	*state = &f;
	return 0;
}

static int first(struct fixture *f, const char *msg)
{
	f->err = NULL;
	return scram_server_first(&f->st, &f->v, (const uint8_t *)msg, strlen(msg), RFC_SERVER_NONCE, f->out,
				  sizeof(f->out), &f->outlen, &f->err);
}

static int final(struct fixture *f, const char *msg)
{
	f->err = NULL;
	return scram_server_final(&f->st, (const uint8_t *)msg, strlen(msg), f->out, sizeof(f->out), &f->outlen,
				  &f->err);
}

static void test_verifier_text(void **state)
{
	struct fixture *f = *state;

	/* The salt comes out as in the RFC, and the text parses back. */
	assert_true(strncmp(f->text, "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 44) == 0);
	assert_int_equal(f->v.iterations, 4096);
	assert_int_equal(f->v.salt_len, 16);
	assert_memory_equal(f->v.salt, rfc_salt, 16);
}

static void test_rfc7677_exchange(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
	assert_string_equal(f->out, RFC_SERVER_FIRST);
	assert_int_equal(f->outlen, strlen(RFC_SERVER_FIRST));
	assert_int_equal(final(f, RFC_CLIENT_FINAL), 0);
	assert_string_equal(f->out, RFC_SERVER_FINAL);
	assert_int_equal(f->outlen, strlen(RFC_SERVER_FINAL));
	/* One attempt per exchange. */
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
	assert_non_null(f->err);
}

/* The username in client-first is ignored: the AuthMessage still uses what was sent. */
static void test_username_ignored_but_bound(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(first(f, "n,,n=,r=rOprNGfwEbeRWgbNEkqO"), 0);
	assert_string_equal(f->out, RFC_SERVER_FIRST);
	/* The RFC proof was computed over "n=user": it must not pass here. */
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
}

static void test_wrong_password(void **state)
{
	struct fixture *f = *state;
	char text[256];
	struct scram_verifier other;

	assert_int_equal(scram_make_verifier("pencil2", rfc_salt, sizeof(rfc_salt), 4096, text, sizeof(text)), 0);
	assert_int_equal(scram_parse_verifier(text, &other), 0);
	f->err = NULL;
	assert_int_equal(scram_server_first(&f->st, &other, (const uint8_t *)RFC_CLIENT_FIRST, strlen(RFC_CLIENT_FIRST),
					    RFC_SERVER_NONCE, f->out, sizeof(f->out), &f->outlen, &f->err),
			 0);
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
	assert_non_null(f->err);
	assert_int_equal(f->outlen, 0);
}

static void test_tampered_proof(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
	assert_int_equal(final(f, "c=biws,r=" RFC_NONCE ",p=eHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="), -1);
}

static void test_tampered_nonce(void **state)
{
	struct fixture *f = *state;
	static const char *bad[] = {
		"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k1,p=" RFC_PROOF,
		"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k,p=" RFC_PROOF,
		"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k00,p=" RFC_PROOF,
		"c=biws,r=rOprNGfwEbeRWgbNEkqO,p=" RFC_PROOF,
		"c=biws,r=,p=" RFC_PROOF,
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
		assert_int_equal(final(f, bad[i]), -1);
		assert_non_null(f->err);
	}
}

static void test_bad_client_first(void **state)
{
	struct fixture *f = *state;
	static const char *bad[] = {
		"",
		"n",
		"n,",
		"n,,",
		"x,,n=user,r=abc",
		"p=tls-server-end-point,,n=user,r=abc",
		"n,a=admin,n=user,r=abc",
		"n,,m=ext,n=user,r=abc",
		"n,,n=user",
		"n,,n=user,",
		"n,,n=user,r=",
		"n,,n=user,x=abc",
		"n,,r=abc",
		"n,,n=user,r=ab,c",
		"n,,n=user,r=abc,m=1",
		"n,,n=user,r=abc,",
		"n,,n=user,r=abc,x",
		"n,,n=user,r=abc,x=",
		"n,,n=user,r=abc,1=2",
		"n,,n=user,r=a\177b",
		"n,,n=user,r=a b",
		"nn,n=user,r=abc",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (first(f, bad[i]) != -1)
			fail_msg("accepted client-first #%zu: %s", i, bad[i]);
		assert_non_null(f->err);
		assert_int_equal(f->outlen, 0);
	}
	/* A channel-binding request names the reason. */
	first(f, "p=tls-server-end-point,,n=user,r=abc");
	assert_non_null(strstr(f->err, "channel binding"));
}

static void test_nul_and_overlong_client_first(void **state)
{
	struct fixture *f = *state;
	static const char nul_msg[] = "n,,n=us\0er,r=abc";
	char big[SCRAM_MAX_MSG + 16];

	assert_int_equal(scram_server_first(&f->st, &f->v, (const uint8_t *)nul_msg, sizeof(nul_msg) - 1,
					    RFC_SERVER_NONCE, f->out, sizeof(f->out), &f->outlen, &f->err),
			 -1);
	memset(big, 'a', sizeof(big));
	memcpy(big, "n,,n=user,r=", 12);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(first(f, big), -1);
	/* Exactly at the cap is refused too. */
	big[SCRAM_MAX_MSG] = 0;
	assert_int_equal(first(f, big), -1);
	/* A nonce whose server-first would not fit is refused. */
	big[SCRAM_MAX_MSG - 1] = 0;
	assert_int_equal(first(f, big), -1);
	big[900] = 0;
	assert_int_equal(first(f, big), 0);
	/* One byte below the cap, with a long username, is accepted. */
	memset(big, 'u', sizeof(big));
	memcpy(big, "n,,n=", 5);
	memcpy(big + SCRAM_MAX_MSG - 1 - 23, ",r=rOprNGfwEbeRWgbNEkqO", 23);
	big[SCRAM_MAX_MSG - 1] = 0;
	assert_int_equal(strlen(big), SCRAM_MAX_MSG - 1);
	assert_int_equal(first(f, big), 0);
	assert_string_equal(f->out, RFC_SERVER_FIRST);
}

static void test_extensions_accepted(void **state)
{
	struct fixture *f = *state;

	/* Unknown extensions after the nonce are ignored, as RFC 5802 allows. */
	assert_int_equal(first(f, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO,x=foo,Y=bar"), 0);
	assert_string_equal(f->out, RFC_SERVER_FIRST);
	/* The proof does not match because the bare message differs, but parsing passes. */
	assert_int_equal(final(f, "c=biws,r=" RFC_NONCE ",x=1,p=" RFC_PROOF), -1);
	assert_string_equal(f->err, "SCRAM: password authentication failed");
}

static void test_y_flag(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(first(f, "y,,n=user,r=rOprNGfwEbeRWgbNEkqO"), 0);
	/* c= must then be base64("y,,"), not "n,,". */
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
	assert_non_null(strstr(f->err, "c="));
	assert_int_equal(first(f, "y,,n=user,r=rOprNGfwEbeRWgbNEkqO"), 0);
	assert_int_equal(final(f, "c=eSws,r=" RFC_NONCE ",p=" RFC_PROOF), -1);
	assert_string_equal(f->err, "SCRAM: password authentication failed");
	/* and with "n" the "y" binding is refused */
	assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
	assert_int_equal(final(f, "c=eSws,r=" RFC_NONCE ",p=" RFC_PROOF), -1);
	assert_non_null(strstr(f->err, "c="));
}

static void test_bad_client_final(void **state)
{
	struct fixture *f = *state;
	static const char *bad[] = {
		"",
		"r=" RFC_NONCE ",p=" RFC_PROOF,
		"c=biws,p=" RFC_PROOF,
		"c=biws,r=" RFC_NONCE,
		"c=biws,r=" RFC_NONCE ",",
		"c=biws,r=" RFC_NONCE ",p=",
		"c=bi*s,r=" RFC_NONCE ",p=" RFC_PROOF,
		"c=biw,r=" RFC_NONCE ",p=" RFC_PROOF,
		"c=,r=" RFC_NONCE ",p=" RFC_PROOF,
		"c=cD10bHMtdW5pcXVlLCw=,r=" RFC_NONCE ",p=" RFC_PROOF,
		"c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ",
		"c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndV==",
		"c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=x",
		"c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7A=dVQ=",
		"c=biws,r=" RFC_NONCE ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQA",
		"c=biws,r=" RFC_NONCE ",p=" RFC_PROOF ",x=1",
		"c=biws,r=" RFC_NONCE ",m=1,p=" RFC_PROOF,
		"c=biws,r=" RFC_NONCE ",,p=" RFC_PROOF,
		"c=biws,r=" RFC_NONCE ",p=" RFC_PROOF ",",
		"c=biws,r=" RFC_NONCE ",p=" RFC_PROOF "\n",
		" c=biws,r=" RFC_NONCE ",p=" RFC_PROOF,
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
		if (final(f, bad[i]) != -1)
			fail_msg("accepted client-final #%zu: %s", i, bad[i]);
		assert_non_null(f->err);
		assert_int_equal(f->outlen, 0);
	}
}

static void test_overlong_client_final(void **state)
{
	struct fixture *f = *state;
	char big[SCRAM_MAX_MSG + 64];

	assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
	memset(big, 'A', sizeof(big));
	big[sizeof(big) - 1] = 0;
	memcpy(big, RFC_CLIENT_FINAL, strlen(RFC_CLIENT_FINAL));
	assert_int_equal(final(f, big), -1);
	assert_non_null(strstr(f->err, "too long"));
}

static void test_final_without_first(void **state)
{
	struct fixture *f = *state;

	memset(&f->st, 0, sizeof(f->st));
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
	/* A failed first step leaves no exchange behind. */
	assert_int_equal(first(f, "n,,n=user"), -1);
	assert_int_equal(final(f, RFC_CLIENT_FINAL), -1);
}

static void test_small_output_buffers(void **state)
{
	struct fixture *f = *state;
	char small[16];
	size_t n = 99;

	assert_int_equal(scram_server_first(&f->st, &f->v, (const uint8_t *)RFC_CLIENT_FIRST, strlen(RFC_CLIENT_FIRST),
					    RFC_SERVER_NONCE, small, sizeof(small), &n, &f->err),
			 -1);
	assert_int_equal(n, 0);
	assert_int_equal(first(f, RFC_CLIENT_FIRST), 0);
	assert_int_equal(scram_server_final(&f->st, (const uint8_t *)RFC_CLIENT_FINAL, strlen(RFC_CLIENT_FINAL), small,
					    sizeof(small), &n, &f->err),
			 -1);
	assert_int_equal(n, 0);
}

static void test_bad_server_nonce(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(scram_server_first(&f->st, &f->v, (const uint8_t *)RFC_CLIENT_FIRST, strlen(RFC_CLIENT_FIRST),
					    "ab,c", f->out, sizeof(f->out), &f->outlen, &f->err),
			 -1);
	assert_int_equal(scram_server_first(&f->st, &f->v, (const uint8_t *)RFC_CLIENT_FIRST, strlen(RFC_CLIENT_FIRST),
					    "", f->out, sizeof(f->out), &f->outlen, &f->err),
			 -1);
}

static void test_verifier_parse_errors(void **state)
{
	struct fixture *f = *state;
	struct scram_verifier v;
	char buf[300];
	const char *keys = strchr(f->text + 14, '$'); /* "$StoredKey:ServerKey" */
	static const char *bad[] = {
		"",
		"md5abcdef",
		"SCRAM-SHA-256$",
		"SCRAM-SHA-1$4096:W22ZaJ0SNY7soEsUEjb6gQ==$a:b",
		"SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==",
		"SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$",
		"SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$:",
		"SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$AAAA:AAAA",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (scram_parse_verifier(bad[i], &v) != -1)
			fail_msg("accepted verifier #%zu: %s", i, bad[i]);
	assert_int_equal(scram_parse_verifier(NULL, &v), -1);

	assert_non_null(keys);
	/* Iterations: zero, negative, not a number, overflow, empty. */
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$0:W22ZaJ0SNY7soEsUEjb6gQ==%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$-1:W22ZaJ0SNY7soEsUEjb6gQ==%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$4x:W22ZaJ0SNY7soEsUEjb6gQ==%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$99999999999:W22ZaJ0SNY7soEsUEjb6gQ==%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$:W22ZaJ0SNY7soEsUEjb6gQ==%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	/* Salt: empty, bad base64, too long. */
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$4096:%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ=%s", keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$4096:%0108d%s", 0, keys);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	/* A 64-byte salt (88 characters) is the largest accepted. */
	snprintf(buf, sizeof(buf), "SCRAM-SHA-256$4096:%086d==%s", 0, keys);
	assert_int_equal(scram_parse_verifier(buf, &v), 0);
	assert_int_equal(v.salt_len, 64);
	/* Trailing garbage after the server key. */
	snprintf(buf, sizeof(buf), "%s$", f->text);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
	snprintf(buf, sizeof(buf), "%sAAAA", f->text);
	assert_int_equal(scram_parse_verifier(buf, &v), -1);
}

static void test_make_verifier_errors(void **state)
{
	char small[40], buf[256];
	uint8_t salt[SCRAM_MAX_SALT + 1] = {0};

	(void)state;
	assert_int_equal(scram_make_verifier("pw", rfc_salt, sizeof(rfc_salt), 16, small, sizeof(small)), -1);
	assert_int_equal(scram_make_verifier("pw", rfc_salt, 0, 16, buf, sizeof(buf)), -1);
	assert_int_equal(scram_make_verifier("pw", salt, sizeof(salt), 16, buf, sizeof(buf)), -1);
	assert_int_equal(scram_make_verifier("pw", rfc_salt, sizeof(rfc_salt), 0, buf, sizeof(buf)), -1);
	assert_int_equal(scram_make_verifier("", rfc_salt, sizeof(rfc_salt), 1, buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_verifier_text, setup),
		cmocka_unit_test_setup(test_rfc7677_exchange, setup),
		cmocka_unit_test_setup(test_username_ignored_but_bound, setup),
		cmocka_unit_test_setup(test_wrong_password, setup),
		cmocka_unit_test_setup(test_tampered_proof, setup),
		cmocka_unit_test_setup(test_tampered_nonce, setup),
		cmocka_unit_test_setup(test_bad_client_first, setup),
		cmocka_unit_test_setup(test_nul_and_overlong_client_first, setup),
		cmocka_unit_test_setup(test_extensions_accepted, setup),
		cmocka_unit_test_setup(test_y_flag, setup),
		cmocka_unit_test_setup(test_bad_client_final, setup),
		cmocka_unit_test_setup(test_overlong_client_final, setup),
		cmocka_unit_test_setup(test_final_without_first, setup),
		cmocka_unit_test_setup(test_small_output_buffers, setup),
		cmocka_unit_test_setup(test_bad_server_nonce, setup),
		cmocka_unit_test_setup(test_verifier_parse_errors, setup),
		cmocka_unit_test(test_make_verifier_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
