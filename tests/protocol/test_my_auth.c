/*
 * Tests for protocol/my_auth: the scramble, mysql_native_password and the
 * caching_sha2_password fast path against tokens computed here the way a
 * client does (and fixed vectors), and the RSA full-authentication
 * exchange with a blob encrypted here like PyMySQL / Connector/C do.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "protocol/my_auth.h"

static const uint8_t scramble[MY_SCRAMBLE_LEN] = "ABCDEFGHIJKLMNOPQRST";

#define PASSWORD "agent-secret"

/* SHA1(SHA1("agent-secret")) and the token for the scramble above (computed independently). */
#define AGENT_NATIVE_HASH "*84D31EC2CFCF57A89F87464D2A0213F639CCC639"
static const uint8_t agent_native_token[20] = {
	0xb6, 0xad, 0xfa, 0xd3, 0x4f, 0x24, 0x3b, 0x69, 0xbe, 0xa6,
	0xec, 0x5c, 0x1d, 0x4e, 0xa6, 0x64, 0x93, 0xc4, 0xb9, 0x45,
};
/* SHA256(SHA256("agent-secret")) and the caching_sha2 token for the scramble above. */
static const uint8_t agent_digest2[32] = {
	0xe1, 0xc6, 0x2a, 0x9b, 0xa1, 0xfa, 0x19, 0x7b, 0xec, 0x4f, 0x8a, 0xd0, 0xf5, 0xa1, 0xcb, 0x35,
	0xe0, 0xe0, 0x4f, 0x1b, 0x12, 0xed, 0xe2, 0xfe, 0x04, 0xbc, 0xdd, 0xdc, 0xcd, 0xd6, 0x60, 0xaa,
};
static const uint8_t agent_sha2_token[32] = {
	0x4e, 0x60, 0xe0, 0xf8, 0xf9, 0xf9, 0xbe, 0x0d, 0x80, 0xa2, 0xb4, 0xf2, 0xc8, 0x35, 0x87, 0xea,
	0x31, 0x63, 0xed, 0x6c, 0xee, 0x8b, 0x3e, 0x8e, 0xf1, 0x7c, 0x33, 0xb2, 0x06, 0x61, 0x57, 0x79,
};

static void digest(const EVP_MD *md, const void *a, size_t alen, const void *b, size_t blen, uint8_t *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	assert_non_null(ctx);
	assert_int_equal(EVP_DigestInit_ex(ctx, md, NULL), 1);
	assert_int_equal(EVP_DigestUpdate(ctx, a, alen), 1);
	if (blen)
		assert_int_equal(EVP_DigestUpdate(ctx, b, blen), 1);
	assert_int_equal(EVP_DigestFinal_ex(ctx, out, NULL), 1);
	EVP_MD_CTX_free(ctx);
}

/* What a client sends for mysql_native_password. */
static void native_token(const char *pw, const uint8_t *scr, uint8_t out[20])
{
	uint8_t s1[20], s2[20], s3[20];

	digest(EVP_sha1(), pw, strlen(pw), NULL, 0, s1);
	digest(EVP_sha1(), s1, 20, NULL, 0, s2);
	digest(EVP_sha1(), scr, MY_SCRAMBLE_LEN, s2, 20, s3);
	for (int i = 0; i < 20; i++)
		out[i] = s1[i] ^ s3[i];
}

/* What a client sends for the caching_sha2_password fast path. */
static void sha2_token(const char *pw, const uint8_t *scr, uint8_t out[32])
{
	uint8_t s1[32], s2[32], s3[32];

	digest(EVP_sha256(), pw, strlen(pw), NULL, 0, s1);
	digest(EVP_sha256(), s1, 32, NULL, 0, s2);
	digest(EVP_sha256(), s2, 32, scr, MY_SCRAMBLE_LEN, s3);
	for (int i = 0; i < 32; i++)
		out[i] = s1[i] ^ s3[i];
}

/* ---- scramble -------------------------------------------------------------- */

static void test_scramble(void **state)
{
	uint8_t a[MY_SCRAMBLE_LEN], b[MY_SCRAMBLE_LEN];
	int i;

	(void)state;
	assert_int_equal(my_scramble_generate(a), 0);
	assert_int_equal(my_scramble_generate(b), 0);
	for (i = 0; i < MY_SCRAMBLE_LEN; i++) {
		assert_in_range(a[i], 0x21, 0x7e);
		assert_in_range(b[i], 0x21, 0x7e);
	}
	assert_memory_not_equal(a, b, MY_SCRAMBLE_LEN);
}

/* ---- mysql_native_password ------------------------------------------------- */

static void test_native_hash_text(void **state)
{
	uint8_t h[20], h2[20];
	char text[MY_NATIVE_HASH_TEXT_LEN + 1];

	(void)state;
	/* What MySQL's PASSWORD('password') prints. */
	my_native_hash_password("password", 8, h);
	my_native_hash_format(h, text);
	assert_string_equal(text, "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
	assert_int_equal(my_native_hash_parse(text, h2), 0);
	assert_memory_equal(h, h2, 20);
	assert_int_equal(my_native_hash_parse("*2470c0c06dee42fd1618bb99005adca2ec9d1e19", h2), 0);
	assert_memory_equal(h, h2, 20);
	assert_int_equal(my_native_hash_parse("*2470c0C06DEE42FD1618BB99005ADCA2EC9d1e19", h2), 0);

	memset(h2, 0x55, sizeof(h2));
	assert_int_equal(my_native_hash_parse(NULL, h2), -1);
	assert_int_equal(my_native_hash_parse("", h2), -1);
	assert_int_equal(my_native_hash_parse("*", h2), -1);
	assert_int_equal(my_native_hash_parse("2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19", h2), -1);
	assert_int_equal(my_native_hash_parse("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1", h2), -1);
	assert_int_equal(my_native_hash_parse("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E190", h2), -1);
	assert_int_equal(my_native_hash_parse("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1G", h2), -1);
	assert_int_equal(my_native_hash_parse("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19 ", h2), -1);
	assert_int_equal(my_native_hash_parse(" *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19", h2), -1);
	/* A failed parse leaves out untouched. */
	for (int i = 0; i < 20; i++)
		assert_int_equal(h2[i], 0x55);
}

static void test_native_verify(void **state)
{
	uint8_t stored[20], token[20], other[MY_SCRAMBLE_LEN];

	(void)state;
	assert_int_equal(my_native_hash_parse(AGENT_NATIVE_HASH, stored), 0);
	my_native_hash_password(PASSWORD, strlen(PASSWORD), token);
	assert_memory_equal(token, stored, 20);

	/* The fixed vector and a token computed here agree and verify. */
	native_token(PASSWORD, scramble, token);
	assert_memory_equal(token, agent_native_token, 20);
	assert_true(my_native_verify(stored, scramble, token, 20));

	/* Wrong password, other scramble, one flipped bit. */
	native_token("agent-secreT", scramble, token);
	assert_false(my_native_verify(stored, scramble, token, 20));
	memcpy(other, scramble, sizeof(other));
	other[19] = 'U';
	assert_false(my_native_verify(stored, other, agent_native_token, 20));
	memcpy(token, agent_native_token, 20);
	token[7] ^= 0x10;
	assert_false(my_native_verify(stored, scramble, token, 20));

	/* Wrong lengths and the empty password. */
	assert_false(my_native_verify(stored, scramble, agent_native_token, 19));
	assert_false(my_native_verify(stored, scramble, agent_native_token, 0));
	assert_false(my_native_verify(stored, scramble, NULL, 20));
	{
		uint8_t longer[21];

		memcpy(longer, agent_native_token, 20);
		longer[20] = 0;
		assert_false(my_native_verify(stored, scramble, longer, 21));
	}
	/* Even when the stored hash is that of "", an empty token is refused. */
	my_native_hash_password("", 0, stored);
	assert_false(my_native_verify(stored, scramble, (const uint8_t *)"", 0));
}

static void test_native_check_password(void **state)
{
	uint8_t stored[20];

	(void)state;
	assert_int_equal(my_native_hash_parse(AGENT_NATIVE_HASH, stored), 0);
	assert_true(my_native_check_password(stored, PASSWORD, strlen(PASSWORD)));
	assert_false(my_native_check_password(stored, PASSWORD, strlen(PASSWORD) - 1));
	assert_false(my_native_check_password(stored, "wrong", 5));
	assert_false(my_native_check_password(stored, "", 0));
	assert_false(my_native_check_password(stored, NULL, 0));
}

/* ---- caching_sha2_password fast path --------------------------------------- */

static void test_sha2_fast(void **state)
{
	uint8_t d2[32], token[32], other[MY_SCRAMBLE_LEN];

	(void)state;
	my_sha2_digest2(PASSWORD, strlen(PASSWORD), d2);
	assert_memory_equal(d2, agent_digest2, 32);
	sha2_token(PASSWORD, scramble, token);
	assert_memory_equal(token, agent_sha2_token, 32);
	assert_true(my_sha2_fast_verify(d2, scramble, token, 32));

	sha2_token("agent-secret!", scramble, token);
	assert_false(my_sha2_fast_verify(d2, scramble, token, 32));
	memcpy(other, scramble, sizeof(other));
	other[0] = 'Z';
	assert_false(my_sha2_fast_verify(d2, other, agent_sha2_token, 32));
	/* A native-password-sized token, other lengths, empty. */
	assert_false(my_sha2_fast_verify(d2, scramble, agent_sha2_token, 20));
	assert_false(my_sha2_fast_verify(d2, scramble, agent_sha2_token, 31));
	assert_false(my_sha2_fast_verify(d2, scramble, agent_sha2_token, 0));
	assert_false(my_sha2_fast_verify(d2, scramble, NULL, 32));
	my_sha2_digest2("", 0, d2);
	assert_false(my_sha2_fast_verify(d2, scramble, (const uint8_t *)"", 0));
}

/* ---- RSA ------------------------------------------------------------------- */

static struct my_rsa *key;

static int setup_rsa(void **state)
{
	(void)state;
	key = my_rsa_generate(2048);
	return key ? 0 : -1;
}

static int teardown_rsa(void **state)
{
	(void)state;
	my_rsa_free(key);
	key = NULL;
	return 0;
}

/* The client side: load the PEM the server sent, XOR pw (with n bytes, NUL included by the caller) and encrypt. */
static size_t client_encrypt(const char *pem, size_t pem_len, const uint8_t *pw, size_t n, const uint8_t *scr,
			     int padding, uint8_t *out, size_t outcap)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)pem_len);
	EVP_PKEY *pub;
	EVP_PKEY_CTX *ctx;
	uint8_t x[512];
	size_t olen = outcap, i;

	assert_non_null(bio);
	pub = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	assert_non_null(pub);
	assert_true(n <= sizeof(x));
	for (i = 0; i < n; i++)
		x[i] = pw[i] ^ scr[i % MY_SCRAMBLE_LEN];
	ctx = EVP_PKEY_CTX_new(pub, NULL);
	assert_non_null(ctx);
	assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
	assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, padding), 1);
	assert_int_equal(EVP_PKEY_encrypt(ctx, out, &olen, x, n), 1);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pub);
	return olen;
}

static size_t encrypt_pw(const char *pw, size_t n, uint8_t *out, size_t outcap)
{
	size_t pem_len;
	const char *pem = my_rsa_public_pem(key, &pem_len);

	return client_encrypt(pem, pem_len, (const uint8_t *)pw, n, scramble, RSA_PKCS1_OAEP_PADDING, out, outcap);
}

static void test_rsa_pem(void **state)
{
	size_t len = 0;
	const char *pem;

	(void)state;
	pem = my_rsa_public_pem(key, &len);
	assert_non_null(pem);
	assert_int_equal(strlen(pem), len);
	assert_true(strncmp(pem, "-----BEGIN PUBLIC KEY-----\n", 27) == 0);
	assert_non_null(strstr(pem, "-----END PUBLIC KEY-----\n"));
	assert_null(strstr(pem, "PRIVATE"));
	assert_null(my_rsa_public_pem(NULL, &len));
	assert_int_equal(len, 0);
	assert_null(my_rsa_generate(512));
	assert_null(my_rsa_generate(0));
	my_rsa_free(NULL);
}

static void test_rsa_decrypt(void **state)
{
	uint8_t blob[256];
	char out[256];
	size_t n;
	char longpw[150];

	(void)state;
	n = encrypt_pw(PASSWORD, sizeof(PASSWORD), blob, sizeof(blob)); /* with its NUL */
	assert_int_equal(n, 256);
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), 0);
	assert_string_equal(out, PASSWORD);

	/* A password longer than the scramble: the XOR wraps around. */
	memset(longpw, 'p', sizeof(longpw) - 1);
	longpw[sizeof(longpw) - 1] = 0;
	longpw[25] = 'q';
	n = encrypt_pw(longpw, sizeof(longpw), blob, sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), 0);
	assert_string_equal(out, longpw);
	/* Exactly fitting, and one byte short. */
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(longpw)), 0);
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(longpw) - 1), -1);
	assert_string_equal(out, "");

	/* Empty password (just the NUL). */
	n = encrypt_pw("", 1, blob, sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), 0);
	assert_string_equal(out, "");

	/* Decrypted with another scramble: the XOR garbles the NUL. */
	{
		uint8_t other[MY_SCRAMBLE_LEN];

		memcpy(other, scramble, sizeof(other));
		other[sizeof(PASSWORD) - 1] ^= 0x01;
		n = encrypt_pw(PASSWORD, sizeof(PASSWORD), blob, sizeof(blob));
		assert_int_equal(my_rsa_decrypt_password(key, blob, n, other, out, sizeof(out)), -1);
	}
}

static void test_rsa_decrypt_refused(void **state)
{
	uint8_t blob[300];
	char out[64];
	size_t n, pem_len;
	const char *pem = my_rsa_public_pem(key, &pem_len);

	(void)state;
	/* No trailing NUL; a NUL inside. */
	n = encrypt_pw(PASSWORD, strlen(PASSWORD), blob, sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), -1);
	n = encrypt_pw("ab\0cd", 6, blob, sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), -1);

	/* Wrong sizes. */
	n = encrypt_pw(PASSWORD, sizeof(PASSWORD), blob, sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n - 1, scramble, out, sizeof(out)), -1);
	blob[n] = 0;
	assert_int_equal(my_rsa_decrypt_password(key, blob, n + 1, scramble, out, sizeof(out)), -1);
	assert_int_equal(my_rsa_decrypt_password(key, blob, 0, scramble, out, sizeof(out)), -1);
	assert_int_equal(my_rsa_decrypt_password(key, NULL, 256, scramble, out, sizeof(out)), -1);
	assert_int_equal(my_rsa_decrypt_password(NULL, blob, n, scramble, out, sizeof(out)), -1);
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, 0), -1);

	/* Garbage of the right size; a flipped bit; PKCS#1 v1.5 instead of OAEP. */
	for (size_t i = 0; i < 256; i++)
		blob[i] = (uint8_t)(i * 7 + 3);
	blob[0] = 0x01;
	strcpy(out, "x");
	assert_int_equal(my_rsa_decrypt_password(key, blob, 256, scramble, out, sizeof(out)), -1);
	assert_string_equal(out, "");
	n = encrypt_pw(PASSWORD, sizeof(PASSWORD), blob, sizeof(blob));
	blob[100] ^= 0x04;
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), -1);
	n = client_encrypt(pem, pem_len, (const uint8_t *)PASSWORD, sizeof(PASSWORD), scramble, RSA_PKCS1_PADDING, blob,
			   sizeof(blob));
	assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), -1);

	/* Encrypted for another key. */
	{
		struct my_rsa *k2 = my_rsa_generate(2048);
		const char *pem2;
		size_t pem2_len;

		assert_non_null(k2);
		pem2 = my_rsa_public_pem(k2, &pem2_len);
		assert_string_not_equal(pem, pem2);
		n = client_encrypt(pem2, pem2_len, (const uint8_t *)PASSWORD, sizeof(PASSWORD), scramble,
				   RSA_PKCS1_OAEP_PADDING, blob, sizeof(blob));
		assert_int_equal(my_rsa_decrypt_password(key, blob, n, scramble, out, sizeof(out)), -1);
		assert_int_equal(my_rsa_decrypt_password(k2, blob, n, scramble, out, sizeof(out)), 0);
		assert_string_equal(out, PASSWORD);
		my_rsa_free(k2);
	}
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_scramble),      cmocka_unit_test(test_native_hash_text),
		cmocka_unit_test(test_native_verify), cmocka_unit_test(test_native_check_password),
		cmocka_unit_test(test_sha2_fast),
	};
	const struct CMUnitTest rsa[] = {
		cmocka_unit_test(test_rsa_pem),
		cmocka_unit_test(test_rsa_decrypt),
		cmocka_unit_test(test_rsa_decrypt_refused),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("my_auth", plain, NULL, NULL);
	failed += cmocka_run_group_tests_name("my_auth_rsa", rsa, setup_rsa, teardown_rsa);
	return failed;
}
