/*
 * my_auth: the server side of MySQL authentication (OpenSSL libcrypto):
 * the handshake scramble, mysql_native_password, the caching_sha2_password
 * fast path, and the RSA exchange caching_sha2_password uses for a full
 * authentication without TLS. No I/O; every output goes to caller-owned
 * memory except the PEM, which the my_rsa owns.
 *
 * The stored secret for mysql_native_password is SHA1(SHA1(password)),
 * written "*" + 40 hex digits (what MySQL's PASSWORD() prints). Empty
 * passwords never verify.
 */
#ifndef AIRLOCK_PROTOCOL_MY_AUTH_H
#define AIRLOCK_PROTOCOL_MY_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MY_SCRAMBLE_LEN 20
#define MY_NATIVE_HASH_LEN 20
#define MY_NATIVE_HASH_TEXT_LEN 41 /* "*" + 40 hex, without the NUL */
#define MY_SHA2_DIGEST_LEN 32

#define MY_PLUGIN_NATIVE "mysql_native_password"
#define MY_PLUGIN_CACHING_SHA2 "caching_sha2_password"
#define MY_PLUGIN_CLEAR "mysql_clear_password"

/* caching_sha2_password bytes: AuthMoreData 0x03 / 0x04 from the server, 0x02 from the client. */
#define MY_SHA2_FAST_AUTH_OK 0x03
#define MY_SHA2_PERFORM_FULL_AUTH 0x04
#define MY_SHA2_REQUEST_PUBLIC_KEY 0x02

/*
 * 20 random bytes (RAND_bytes), each printable ASCII 0x21..0x7e chosen
 * uniformly: never NUL, so the scramble survives the NUL-terminated field
 * of the handshake. 0, or -1 when the RNG fails.
 */
int my_scramble_generate(uint8_t out[MY_SCRAMBLE_LEN]);

/* "*HEX" (upper or lower case, exactly 40 digits, nothing after) to the 20-byte hash. 0 or -1. */
int my_native_hash_parse(const char *text, uint8_t out[MY_NATIVE_HASH_LEN]);
/* The 20-byte hash as "*" + 40 upper-case hex + NUL. */
void my_native_hash_format(const uint8_t hash[MY_NATIVE_HASH_LEN], char out[MY_NATIVE_HASH_TEXT_LEN + 1]);
/* SHA1(SHA1(password)). */
void my_native_hash_password(const char *password, size_t len, uint8_t out[MY_NATIVE_HASH_LEN]);

/*
 * mysql_native_password: the client's token is
 * SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))). Checked with the stored hash
 * only, compared in constant time. token_len must be 20 (0, an empty
 * password, is false).
 */
bool my_native_verify(const uint8_t stored[MY_NATIVE_HASH_LEN], const uint8_t scramble[MY_SCRAMBLE_LEN],
		      const uint8_t *token, size_t token_len);
/* A clear-text password (TLS or RSA full authentication) against the stored hash; empty is false. */
bool my_native_check_password(const uint8_t stored[MY_NATIVE_HASH_LEN], const char *password, size_t len);

/*
 * caching_sha2_password fast path: the token is
 * SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble). digest2 is
 * SHA256(SHA256(pw)), what the server caches after a full authentication.
 */
void my_sha2_digest2(const char *password, size_t len, uint8_t out[MY_SHA2_DIGEST_LEN]);
/* token_len must be 32 (0, an empty password, is false); constant-time compare. */
bool my_sha2_fast_verify(const uint8_t digest2[MY_SHA2_DIGEST_LEN], const uint8_t scramble[MY_SCRAMBLE_LEN],
			 const uint8_t *token, size_t token_len);

/* An RSA key pair for the full authentication without TLS; owns an EVP_PKEY and its public PEM. */
struct my_rsa;
/* bits: 1024..8192 (2048 is what MySQL uses). NULL on failure. The caller frees with my_rsa_free. */
struct my_rsa *my_rsa_generate(unsigned bits);
void my_rsa_free(struct my_rsa *k);
/* "-----BEGIN PUBLIC KEY-----..." (SubjectPublicKeyInfo PEM, NUL-terminated); borrowed from k. */
const char *my_rsa_public_pem(const struct my_rsa *k, size_t *len);
/*
 * Decrypts a client's RSA blob (OAEP with SHA-1, as MySQL 8.0.5+ clients,
 * PyMySQL and MariaDB Connector/C send it), XORs it with the scramble
 * cyclically, requires the trailing NUL and strips it. Writes the
 * NUL-terminated password into out. 0, or -1 on a blob that is not the key
 * size, bad padding, no trailing NUL or a NUL inside, or a password that
 * does not fit outcap (out is then ""). Temporaries are wiped.
 */
int my_rsa_decrypt_password(const struct my_rsa *k, const uint8_t *cipher, size_t len,
			    const uint8_t scramble[MY_SCRAMBLE_LEN], char *out, size_t outcap);

#endif
