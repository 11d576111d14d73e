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

struct scram_client {
	char first_bare[SCRAM_MAX_MSG];    /* "n=,r=<client nonce>" */
	size_t nonce_len;                  /* of the client nonce */
	uint8_t server_sig[SCRAM_KEY_LEN]; /* expected in server-final, set by scram_client_final */
	bool have_sig;
};

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
 * at most SCRAM_CLIENT_MAX_ITERATIONS. 0, or -1 with *err.
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
