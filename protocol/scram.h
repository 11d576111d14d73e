/*
 * scram: server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as Postgres
 * uses it, and the verifier format Postgres stores:
 *   SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>
 * Pure: randomness comes from the caller; no I/O.
 */
#ifndef AIRLOCK_PROTOCOL_SCRAM_H
#define AIRLOCK_PROTOCOL_SCRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCRAM_KEY_LEN 32
#define SCRAM_MAX_SALT 64
#define SCRAM_MAX_MSG 1024

struct scram_verifier {
	int iterations;
	uint8_t salt[SCRAM_MAX_SALT];
	size_t salt_len;
	uint8_t stored_key[SCRAM_KEY_LEN];
	uint8_t server_key[SCRAM_KEY_LEN];
};

/* 0 on success, -1 on a malformed verifier. */
int scram_parse_verifier(const char *text, struct scram_verifier *out);
/* Writes a verifier for password into out (NUL-terminated). 0 or -1 if outlen is too small. */
int scram_make_verifier(const char *password, const uint8_t *salt, size_t salt_len, int iterations, char *out,
			size_t outlen);

struct scram_state {
	const struct scram_verifier *verifier; /* borrowed */
	char client_first_bare[SCRAM_MAX_MSG];
	char server_first[SCRAM_MAX_MSG];
	char nonce[SCRAM_MAX_MSG]; /* client nonce + server nonce */
	bool done;
};

/*
 * Step 1: client-first-message in, server-first-message out.
 * server_nonce: printable characters chosen by the caller (random in
 * production, fixed in tests). Channel binding is not offered: a gs2 header
 * of "p=" is refused, "n" and "y" are accepted. Returns 0, or -1 with *err.
 */
int scram_server_first(struct scram_state *st, const struct scram_verifier *v, const uint8_t *client_first, size_t len,
		       const char *server_nonce, char *out, size_t outcap, size_t *outlen, const char **err);
/*
 * Step 2: client-final-message in; verifies the proof against the verifier
 * and writes server-final-message ("v=..."). Returns 0 when the password was
 * right, -1 (with *err) otherwise.
 */
int scram_server_final(struct scram_state *st, const uint8_t *client_final, size_t len, char *out, size_t outcap,
		       size_t *outlen, const char **err);

#endif
