/*
 * scram_client: the client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as
 * Postgres speaks it, without channel binding (gs2 header "n,,") and with
 * an empty username (Postgres authenticates the startup packet's user).
 * Pure: the caller supplies the nonce; every output goes to caller-owned
 * buffers; errors are static strings.
 *
 * The password is used as bytes, which is what Postgres' SASLprep makes
 * of printable ASCII; scram_client_password_plain says whether a password
 * is such, and a caller leaves any other to a library that does SASLprep.
 *
 * Why it exists: libpq 15 salts the password with one HMAC set-up per
 * iteration (about 5.8 ms for Postgres' 4096 on the 2-core test machine),
 * OpenSSL's PBKDF2 in about 1.9 ms; a runner logs in once per statement.
 */
#ifndef AIRLOCK_PROTOCOL_SCRAM_CLIENT_H
#define AIRLOCK_PROTOCOL_SCRAM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/scram.h"

/* The most iterations a server may ask for (CPU a hostile server could burn): Postgres' default is 4096. */
#define SCRAM_CLIENT_MAX_ITERATIONS 1000000

/*
 * A salted password: PBKDF2-HMAC-SHA-256 of the password over salt and
 * iterations, the costly part of a login and the same for every login of
 * a role until its password changes. As secret as the password.
 */
struct scram_salted {
	uint8_t salt[SCRAM_MAX_SALT];
	size_t salt_len; /* 0: none */
	int iterations;
	uint8_t key[SCRAM_KEY_LEN];
};

struct scram_client {
	char first_bare[SCRAM_MAX_MSG];    /* "n=,r=<client nonce>" */
	size_t nonce_len;                  /* of the client nonce */
	uint8_t server_sig[SCRAM_KEY_LEN]; /* expected in server-final, set by scram_client_final */
	bool have_sig;
	/* Set by the caller between scram_client_first and _final (NULL: none); used when its salt and iterations are
	 * the server's. */
	const struct scram_salted *known;
	/* Set by scram_client_final: the server's salt and iterations (key unset), and whether known was used. */
	struct scram_salted seen;
	bool reused;
};

/* out = the salted password; 0, or -1 (iterations outside 1..SCRAM_CLIENT_MAX_ITERATIONS, no salt, OpenSSL). */
int scram_salt_password(const char *password, const uint8_t *salt, size_t salt_len, int iterations,
			uint8_t out[SCRAM_KEY_LEN]);

/* Base64 of the largest salt and of a key, with their terminators. */
#define SCRAM_SALT_B64_MAX (((SCRAM_MAX_SALT) + 2) / 3 * 4 + 1)
#define SCRAM_KEY_B64_LEN (((SCRAM_KEY_LEN) + 2) / 3 * 4 + 1)

/*
 * *out for password over salt_b64 (n characters of strict base64, as a
 * server-first-message carries it) and iterations, which must be at most
 * max_iterations (the caller's bound on the CPU it spends). 0, or -1.
 */
int scram_salted_make(const char *password, const char *salt_b64, size_t n, int iterations, int max_iterations,
		      struct scram_salted *out);
/* The salt and the key of s in base64 (NUL-terminated): 0, or -1 (s has no salt). */
int scram_salted_encode(const struct scram_salted *s, char salt_b64[SCRAM_SALT_B64_MAX],
			char key_b64[SCRAM_KEY_B64_LEN]);
/*
 * *out from the three text values scram_salted_encode and a decimal
 * iteration count make: 0, or -1 when any is malformed (strict base64, a
 * salt of 1 to SCRAM_MAX_SALT bytes, a key of exactly SCRAM_KEY_LEN, 1 to
 * SCRAM_CLIENT_MAX_ITERATIONS iterations); *out is then zeroed.
 */
int scram_salted_decode(const char *salt_b64, const char *iterations, const char *key_b64, struct scram_salted *out);

/* True when password is non-empty printable ASCII (0x20..0x7e), which SASLprep leaves as it is. */
bool scram_client_password_plain(const char *password);

/*
 * client-first-message ("n,,n=,r=<nonce>") into out (NUL-terminated).
 * nonce: at least 18 nonce characters (printable ASCII except ','), from
 * a strong random source in production. 0, or -1 with *err.
 */
int scram_client_first(struct scram_client *c, const char *nonce, char *out, size_t outcap, size_t *outlen,
		       const char **err);

/*
 * server-first-message (len bytes, "r=<nonce>,s=<salt>,i=<iterations>"
 * and extensions) in; client-final-message ("c=biws,r=<nonce>,p=<proof>")
 * out, NUL-terminated. The server's nonce must extend the client's; the
 * salt must be strict base64 of at most SCRAM_MAX_SALT bytes; iterations
 * at most SCRAM_CLIENT_MAX_ITERATIONS. c->known, when it matches them,
 * stands in for salting the password. 0, or -1 with *err.
 */
int scram_client_final(struct scram_client *c, const char *password, const uint8_t *server_first, size_t len, char *out,
		       size_t outcap, size_t *outlen, const char **err);

/*
 * server-final-message (len bytes) in: 0 when it is "v=" with the
 * signature the password proves (compared in constant time), -1 with
 * *err for an "e=" error, a wrong signature or anything else.
 */
int scram_client_verify(const struct scram_client *c, const uint8_t *server_final, size_t len, const char **err);

#endif
