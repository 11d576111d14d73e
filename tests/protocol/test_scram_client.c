/*
 * Tests for protocol/scram_client: a known answer (RFC 7677's salt, nonces
 * and password with Postgres' empty username, computed independently with
 * Python's hashlib), the exchange against this tree's SCRAM server, and
 * refusals of what a broken or hostile server could send.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/scram.h"
#include "protocol/scram_client.h"

#define CNONCE "rOprNGfwEbeRWgbNEkqO"
#define SNONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define SERVER_FIRST "r=" CNONCE SNONCE ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define CLIENT_FINAL "c=biws,r=" CNONCE SNONCE ",p=qvT2SWdEH5Q06albL+hjSYuUhCG7VndFyzIb7CK4n9k="
#define SERVER_FINAL "v=3HO6Qt1M4MKJrmlKaoOqLAI0/0TV0HZe7J9H3MBtSOg="

struct run {
	struct scram_client c;
	char out[SCRAM_MAX_MSG];
	size_t outlen;
	const char *err;
};

static int start(struct run *r)
{
	memset(r, 0, sizeof(*r));
	return scram_client_first(&r->c, CNONCE, r->out, sizeof(r->out), &r->outlen, &r->err);
}

static int answer(struct run *r, const char *password, const char *server_first)
{
	r->err = NULL;
	return scram_client_final(&r->c, password, (const uint8_t *)server_first, strlen(server_first), r->out,
				  sizeof(r->out), &r->outlen, &r->err);
}

static int verify(struct run *r, const char *server_final)
{
	r->err = NULL;
	return scram_client_verify(&r->c, (const uint8_t *)server_final, strlen(server_final), &r->err);
}

static void test_known_answer(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(start(&r), 0);
	assert_string_equal(r.out, "n,,n=,r=" CNONCE);
	assert_int_equal(r.outlen, strlen(r.out));
	assert_int_equal(answer(&r, "pencil", SERVER_FIRST), 0);
	assert_string_equal(r.out, CLIENT_FINAL);
	assert_int_equal(verify(&r, SERVER_FINAL), 0);
	/* Extensions after v= are allowed. */
	assert_int_equal(verify(&r, SERVER_FINAL ",x=1"), 0);
}

static void test_against_the_server(void **state)
{
	static const uint8_t salt[] = "0123456789abcdef";
	struct scram_verifier v;
	struct scram_state st;
	char text[256], sfirst[SCRAM_MAX_MSG], sfinal[SCRAM_MAX_MSG];
	size_t n1, n2;
	const char *err = NULL;
	struct run r;

	(void)state;
	assert_int_equal(scram_make_verifier("s3cret pass", salt, 16, 4096, text, sizeof(text)), 0);
	assert_int_equal(scram_parse_verifier(text, &v), 0);
	assert_int_equal(start(&r), 0);
	assert_int_equal(scram_server_first(&st, &v, (const uint8_t *)r.out, r.outlen, "srvnonce", sfirst,
					    sizeof(sfirst), &n1, &err),
			 0);
	assert_int_equal(answer(&r, "s3cret pass", sfirst), 0);
	assert_int_equal(scram_server_final(&st, (const uint8_t *)r.out, r.outlen, sfinal, sizeof(sfinal), &n2, &err),
			 0);
	assert_int_equal(verify(&r, sfinal), 0);

	/* A wrong password: the server refuses the proof. */
	assert_int_equal(start(&r), 0);
	assert_int_equal(scram_server_first(&st, &v, (const uint8_t *)r.out, r.outlen, "srvnonce", sfirst,
					    sizeof(sfirst), &n1, &err),
			 0);
	assert_int_equal(answer(&r, "wrong", sfirst), 0);
	assert_int_equal(scram_server_final(&st, (const uint8_t *)r.out, r.outlen, sfinal, sizeof(sfinal), &n2, &err),
			 -1);
}

static void test_server_first_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",                           /* no r= */
		"r=" CNONCE ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",              /* the server added nothing */
		"r=xOprNGfwEbeRWgbNEkqOabc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", /* not the client's nonce */
		"r=" CNONCE "a b,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",           /* a space in the nonce */
		"r=" CNONCE "ab,i=4096,s=W22ZaJ0SNY7soEsUEjb6gQ==",            /* out of order */
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ=,i=4096",             /* bad base64 */
		"r=" CNONCE "ab,s=,i=4096",                                    /* empty salt */
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",               /* no iterations */
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=-1",
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1000001", /* past the bound */
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999999999999999",
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096x",
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,junk", /* an extension without = */
		"r=" CNONCE "ab,s=W22ZaJ0SNY7soEsUEjb6gQ==",             /* no i= */
	};
	struct run r;

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(start(&r), 0);
		assert_int_equal(answer(&r, "pencil", bad[k]), -1);
		assert_non_null(r.err);
		assert_int_equal(r.outlen, 0);
		/* No signature to check against after a refusal. */
		assert_int_equal(verify(&r, SERVER_FINAL), -1);
	}
	/* A NUL inside, and a message at the size bound. */
	assert_int_equal(start(&r), 0);
	r.err = NULL;
	assert_int_equal(scram_client_final(&r.c, "pencil", (const uint8_t *)"r=a\0b", 5, r.out, sizeof(r.out),
					    &r.outlen, &r.err),
			 -1);
	{
		static char big[SCRAM_MAX_MSG + 8];

		memset(big, 'r', sizeof(big) - 1);
		assert_int_equal(start(&r), 0);
		assert_int_equal(answer(&r, "pencil", big), -1);
	}
}

static void test_server_final_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"v",
		"v=",
		"e=invalid-proof",
		"x=3HO6Qt1M4MKJrmlKaoOqLAI0/0TV0HZe7J9H3MBtSOg=",
		"v=3HO6Qt2M4MKJrmlKaoOqLAI0/0TV0HZe7J9H3MBtSOg=", /* one character off */
		"v=3HO6Qt1M4MKJrmlKaoOqLAI0/0TV0HZe7J9H3MBt",     /* short */
		"v=3HO6Qt1M4MKJrmlKaoOqLAI0/0TV0HZe7J9H3MBtSOg=AAAA",
	};
	struct run r;

	(void)state;
	assert_int_equal(start(&r), 0);
	assert_int_equal(answer(&r, "pencil", SERVER_FIRST), 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(verify(&r, bad[k]), -1);
		assert_non_null(r.err);
	}
	/* The signature of another password's exchange does not pass. */
	assert_int_equal(start(&r), 0);
	assert_int_equal(answer(&r, "pencil2", SERVER_FIRST), 0);
	assert_int_equal(verify(&r, SERVER_FINAL), -1);
}

static void test_client_first_and_password_rules(void **state)
{
	struct scram_client c;
	char out[64];
	size_t n;
	const char *err = NULL;

	(void)state;
	assert_int_equal(scram_client_first(&c, NULL, out, sizeof(out), &n, &err), -1);
	assert_int_equal(scram_client_first(&c, "short", out, sizeof(out), &n, &err), -1);
	assert_int_equal(scram_client_first(&c, "rOprNGfwEbeRWgb,kqO", out, sizeof(out), &n, &err), -1);
	assert_int_equal(scram_client_first(&c, CNONCE, out, 10, &n, &err), -1);
	/* A final step without a first one is refused. */
	memset(&c, 0, sizeof(c));
	assert_int_equal(scram_client_final(&c, "pencil", (const uint8_t *)SERVER_FIRST, strlen(SERVER_FIRST), out,
					    sizeof(out), &n, &err),
			 -1);
	assert_true(scram_client_password_plain("pencil"));
	assert_true(scram_client_password_plain("a b ~!"));
	assert_false(scram_client_password_plain(""));
	assert_false(scram_client_password_plain(NULL));
	assert_false(scram_client_password_plain("caf\xc3\xa9"));
	assert_false(scram_client_password_plain("tab\there"));
}

/* A fresh exchange answered with known offered; 0, or -1. */
static int answer_known(struct run *r, const struct scram_salted *known, const char *password)
{
	if (start(r) < 0)
		return -1;
	r->c.known = known;
	return answer(r, password, SERVER_FIRST);
}

/* A salted password made for the server's salt and count stands in for the password; any other is not used. */
static void test_known_salted_password(void **state)
{
	struct scram_salted known, other;
	char salt64[SCRAM_SALT_B64_MAX], key64[SCRAM_KEY_B64_LEN];
	struct run r;

	(void)state;
	assert_int_equal(scram_salted_make("pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 24, 4096, 4096, &known), 0);
	assert_int_equal(known.salt_len, 16);
	assert_int_equal(known.iterations, 4096);
	/* Made for the server's salt: the same answer as the password's, without the password. */
	assert_int_equal(answer_known(&r, &known, "not the password"), 0);
	assert_true(r.c.reused);
	assert_string_equal(r.out, CLIENT_FINAL);
	assert_int_equal(verify(&r, SERVER_FINAL), 0);
	assert_int_equal(r.c.seen.iterations, 4096);
	assert_int_equal(r.c.seen.salt_len, 16);
	/* Another count, or another salt: the password is salted as ever. */
	other = known;
	other.iterations = 4097;
	assert_int_equal(answer_known(&r, &other, "pencil"), 0);
	assert_false(r.c.reused);
	assert_string_equal(r.out, CLIENT_FINAL);
	other = known;
	other.salt[3] ^= 1;
	assert_int_equal(answer_known(&r, &other, "pencil"), 0);
	assert_false(r.c.reused);
	assert_string_equal(r.out, CLIENT_FINAL);
	/* A wrong key for the right salt is used, and the server's signature then fails. */
	other = known;
	other.key[0] ^= 1;
	assert_int_equal(answer_known(&r, &other, "pencil"), 0);
	assert_true(r.c.reused);
	assert_string_not_equal(r.out, CLIENT_FINAL);
	assert_int_equal(verify(&r, SERVER_FINAL), -1);

	/* Encoded and decoded as the 'P' frame carries it. */
	assert_int_equal(scram_salted_encode(&known, salt64, key64), 0);
	assert_string_equal(salt64, "W22ZaJ0SNY7soEsUEjb6gQ==");
	assert_int_equal(scram_salted_decode(salt64, "4096", key64, &other), 0);
	assert_memory_equal(&other, &known, sizeof(known));
	other.salt_len = 0;
	assert_int_equal(scram_salted_encode(&other, salt64, key64), -1);
}

static void test_salted_refusals(void **state)
{
	static const char key[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
	static const struct {
		const char *salt, *iterations, *key;
	} bad[] = {
		{"", "4096", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ=", "4096", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ=!", "4096", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "0", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "-1", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "1000001", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "4096x", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "", key},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "4096", "AAAA"},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "4096", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="},
		{"W22ZaJ0SNY7soEsUEjb6gQ==", "4096", ""},
	};
	struct scram_salted s;

	(void)state;
	assert_int_equal(scram_salted_decode("W22ZaJ0SNY7soEsUEjb6gQ==", "4096", key, &s), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0x5a, sizeof(s));
		assert_int_equal(scram_salted_decode(bad[i].salt, bad[i].iterations, bad[i].key, &s), -1);
		assert_int_equal(s.salt_len, 0);
	}
	/* Making one: strict base64 of 1 to 64 bytes, 1 to the caller's bound of iterations. */
	assert_int_equal(scram_salted_make("pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 24, 4097, 4096, &s), -1);
	assert_int_equal(scram_salted_make("pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 24, 0, 4096, &s), -1);
	assert_int_equal(scram_salted_make("pencil", "W22ZaJ0SNY7soEsUEjb6gQ", 22, 4096, 4096, &s), -1);
	assert_int_equal(scram_salted_make("pencil", "", 0, 4096, 4096, &s), -1);
	assert_int_equal(s.salt_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answer),
		cmocka_unit_test(test_against_the_server),
		cmocka_unit_test(test_server_first_refused),
		cmocka_unit_test(test_server_final_refused),
		cmocka_unit_test(test_client_first_and_password_rules),
		cmocka_unit_test(test_known_salted_password),
		cmocka_unit_test(test_salted_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
