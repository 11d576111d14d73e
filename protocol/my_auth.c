/*
 * my_auth: MySQL authentication, server side (API in my_auth.h), on
 * OpenSSL's EVP interface.
 *
 * Every comparison of a secret is CRYPTO_memcmp; every temporary that
 * held a password or a first-stage hash (SHA1(pw), SHA256(pw)) is wiped
 * with OPENSSL_cleanse before return. Failed RSA operations clear the
 * OpenSSL error queue so they leave nothing behind for other code.
 */
#include "protocol/my_auth.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#define SHA1_LEN MY_NATIVE_HASH_LEN
#define SHA256_LEN MY_SHA2_DIGEST_LEN
#define RSA_MIN_BITS 1024u
#define RSA_MAX_BITS 8192u
#define RSA_MAX_BYTES (RSA_MAX_BITS / 8)

struct my_rsa {
	EVP_PKEY *pkey;
	char *pem; /* NUL-terminated, owned */
	size_t pem_len;
};

/* ---- digests ------------------------------------------------------------ */

/* Digest of a then b (b may be empty). On an OpenSSL failure out is zeroed, which matches no hash. */
static void digest2_parts(const EVP_MD *md, const void *a, size_t alen, const void *b, size_t blen, uint8_t *out,
			  size_t outlen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int n = 0;

	if (!ctx || EVP_DigestInit_ex(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, a, alen) != 1 ||
	    (blen && EVP_DigestUpdate(ctx, b, blen) != 1) || EVP_DigestFinal_ex(ctx, out, &n) != 1 || n != outlen)
		memset(out, 0, outlen);
	EVP_MD_CTX_free(ctx);
}

#define MAX_DIGEST_LEN SHA256_LEN

/* H(H(p)): what both plugins store (SHA1 for native, SHA256 for caching_sha2). */
static void double_hash(const EVP_MD *md, size_t dlen, const void *p, size_t len, uint8_t *out)
{
	uint8_t stage1[MAX_DIGEST_LEN];

	digest2_parts(md, p, len, NULL, 0, stage1, dlen);
	digest2_parts(md, stage1, dlen, NULL, 0, out, dlen);
	OPENSSL_cleanse(stage1, sizeof(stage1));
}

/*
 * Both plugins' scramble check: the token is H(pw) XOR H(a + b), where a
 * and b are the stored H(H(pw)) and the scramble in the plugin's order.
 * Unmasking the token and hashing it once more must give stored.
 */
static bool scramble_verify(const EVP_MD *md, size_t dlen, const uint8_t *stored, const uint8_t *a, size_t alen,
			    const uint8_t *b, size_t blen, const uint8_t *token, size_t token_len)
{
	uint8_t mask[MAX_DIGEST_LEN], stage1[MAX_DIGEST_LEN], check[MAX_DIGEST_LEN];
	bool ok;

	if (!token || token_len != dlen)
		return false;
	digest2_parts(md, a, alen, b, blen, mask, dlen);
	for (size_t i = 0; i < dlen; i++)
		stage1[i] = token[i] ^ mask[i];
	digest2_parts(md, stage1, dlen, NULL, 0, check, dlen);
	ok = CRYPTO_memcmp(check, stored, dlen) == 0;
	OPENSSL_cleanse(stage1, sizeof(stage1));
	return ok;
}

/* ---- scramble ------------------------------------------------------------ */

int my_scramble_generate(uint8_t out[MY_SCRAMBLE_LEN])
{
	/* 94 printable characters; bytes >= 188 are dropped so each is equally likely. */
	uint8_t rnd[64];
	size_t n = 0, i;
	int rc = 0;

	while (n < MY_SCRAMBLE_LEN) {
		if (RAND_bytes(rnd, sizeof(rnd)) != 1) {
			rc = -1;
			break;
		}
		for (i = 0; i < sizeof(rnd) && n < MY_SCRAMBLE_LEN; i++)
			if (rnd[i] < 188)
				out[n++] = (uint8_t)(0x21 + rnd[i] % 94);
	}
	OPENSSL_cleanse(rnd, sizeof(rnd));
	return rc;
}

/* ---- mysql_native_password ----------------------------------------------- */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int my_native_hash_parse(const char *text, uint8_t out[MY_NATIVE_HASH_LEN])
{
	uint8_t h[MY_NATIVE_HASH_LEN];
	size_t i;

	if (!text || text[0] != '*')
		return -1;
	for (i = 0; i < MY_NATIVE_HASH_LEN; i++) {
		int hi, lo;

		/* A NUL stops here: hex_value(0) is -1 before the next character is read. */
		hi = hex_value(text[1 + 2 * i]);
		if (hi < 0)
			return -1;
		lo = hex_value(text[2 + 2 * i]);
		if (lo < 0)
			return -1;
		h[i] = (uint8_t)(hi << 4 | lo);
	}
	if (text[MY_NATIVE_HASH_TEXT_LEN] != 0)
		return -1;
	memcpy(out, h, sizeof(h));
	return 0;
}

void my_native_hash_format(const uint8_t hash[MY_NATIVE_HASH_LEN], char out[MY_NATIVE_HASH_TEXT_LEN + 1])
{
	static const char digits[] = "0123456789ABCDEF";
	size_t i;

	out[0] = '*';
	for (i = 0; i < MY_NATIVE_HASH_LEN; i++) {
		out[1 + 2 * i] = digits[hash[i] >> 4];
		out[2 + 2 * i] = digits[hash[i] & 15];
	}
	out[MY_NATIVE_HASH_TEXT_LEN] = 0;
}

void my_native_hash_password(const char *password, size_t len, uint8_t out[MY_NATIVE_HASH_LEN])
{
	double_hash(EVP_sha1(), SHA1_LEN, password, len, out);
}

bool my_native_verify(const uint8_t stored[MY_NATIVE_HASH_LEN], const uint8_t scramble[MY_SCRAMBLE_LEN],
		      const uint8_t *token, size_t token_len)
{
	/* token XOR SHA1(scramble + stored) is SHA1(pw) when the password is right. */
	return scramble_verify(EVP_sha1(), SHA1_LEN, stored, scramble, MY_SCRAMBLE_LEN, stored, MY_NATIVE_HASH_LEN,
			       token, token_len);
}

bool my_native_check_password(const uint8_t stored[MY_NATIVE_HASH_LEN], const char *password, size_t len)
{
	uint8_t h[MY_NATIVE_HASH_LEN];
	bool ok;

	if (!password || len == 0)
		return false;
	my_native_hash_password(password, len, h);
	ok = CRYPTO_memcmp(h, stored, sizeof(h)) == 0;
	OPENSSL_cleanse(h, sizeof(h));
	return ok;
}

/* ---- caching_sha2_password ------------------------------------------------ */

void my_sha2_digest2(const char *password, size_t len, uint8_t out[MY_SHA2_DIGEST_LEN])
{
	double_hash(EVP_sha256(), SHA256_LEN, password, len, out);
}

bool my_sha2_fast_verify(const uint8_t digest2[MY_SHA2_DIGEST_LEN], const uint8_t scramble[MY_SCRAMBLE_LEN],
			 const uint8_t *token, size_t token_len)
{
	/* token XOR SHA256(digest2 + scramble) is SHA256(pw) when the password is right. */
	return scramble_verify(EVP_sha256(), SHA256_LEN, digest2, digest2, SHA256_LEN, scramble, MY_SCRAMBLE_LEN, token,
			       token_len);
}

/* ---- RSA ------------------------------------------------------------------ */

/* The public half as SubjectPublicKeyInfo PEM, into a malloc'ed NUL-terminated copy. */
static int export_public_pem(struct my_rsa *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data = NULL;
	long n;
	int rc = -1;

	if (!bio)
		return -1;
	if (PEM_write_bio_PUBKEY(bio, k->pkey) != 1)
		goto out_free_bio;
	n = BIO_get_mem_data(bio, &data);
	if (n <= 0 || !data)
		goto out_free_bio;
	k->pem = malloc((size_t)n + 1);
	if (!k->pem)
		goto out_free_bio;
	memcpy(k->pem, data, (size_t)n);
	k->pem[n] = 0;
	k->pem_len = (size_t)n;
	rc = 0;
out_free_bio:
	BIO_free(bio);
	return rc;
}

struct my_rsa *my_rsa_generate(unsigned bits)
{
	struct my_rsa *k;
	EVP_PKEY_CTX *ctx;

	if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, NULL);
	if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) != 1 ||
	    EVP_PKEY_keygen(ctx, &k->pkey) != 1)
		goto out_fail;
	if (export_public_pem(k) < 0)
		goto out_fail;
	EVP_PKEY_CTX_free(ctx);
	return k;
out_fail:
	EVP_PKEY_CTX_free(ctx);
	ERR_clear_error();
	my_rsa_free(k);
	return NULL;
}

void my_rsa_free(struct my_rsa *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k->pem);
	free(k);
}

const char *my_rsa_public_pem(const struct my_rsa *k, size_t *len)
{
	if (len)
		*len = k ? k->pem_len : 0;
	return k ? k->pem : NULL;
}

int my_rsa_decrypt_password(const struct my_rsa *k, const uint8_t *cipher, size_t len,
			    const uint8_t scramble[MY_SCRAMBLE_LEN], char *out, size_t outcap)
{
	uint8_t plain[RSA_MAX_BYTES];
	EVP_PKEY_CTX *ctx = NULL;
	size_t plen = sizeof(plain), i;
	int ksize, rc = -1;

	if (!out || outcap == 0)
		return -1;
	out[0] = 0;
	if (!k || !k->pkey || !cipher)
		return -1;
	ksize = EVP_PKEY_size(k->pkey);
	if (ksize <= 0 || (size_t)ksize > sizeof(plain) || len != (size_t)ksize)
		return -1;
	ctx = EVP_PKEY_CTX_new(k->pkey, NULL);
	if (!ctx || EVP_PKEY_decrypt_init(ctx) != 1 || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha1()) != 1 || EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha1()) != 1)
		goto out_free_ctx;
	if (EVP_PKEY_decrypt(ctx, plain, &plen, cipher, len) != 1 || plen > sizeof(plain))
		goto out_wipe;
	for (i = 0; i < plen; i++)
		plain[i] ^= scramble[i % MY_SCRAMBLE_LEN];
	/* password + NUL: the NUL is last and the only one. */
	if (plen == 0 || plain[plen - 1] != 0 || memchr(plain, 0, plen - 1))
		goto out_wipe;
	if (plen > outcap)
		goto out_wipe;
	memcpy(out, plain, plen);
	rc = 0;
out_wipe:
	OPENSSL_cleanse(plain, sizeof(plain));
out_free_ctx:
	EVP_PKEY_CTX_free(ctx);
	if (rc < 0)
		ERR_clear_error();
	return rc;
}
