/*
 * scram_int: the pieces the two sides of SCRAM-SHA-256 share (scram.c
 * the server's, scram_client.c the client's). Not for the rest of the
 * tree: scram.h and scram_client.h.
 */
#ifndef AIRLOCK_PROTOCOL_SCRAM_INT_H
#define AIRLOCK_PROTOCOL_SCRAM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/scram.h"

/* Encoded length of n bytes, without a terminator. */
#define B64_ENC_LEN(n) (((n) + 2) / 3 * 4)
/* Most bytes scram_b64_decode gives (the largest salt); its scratch holds the padding's too. */
#define B64_DEC_MAX SCRAM_MAX_SALT

/* Encodes n bytes into out (NUL-terminated); -1 when outcap is too small. */
int scram_b64_encode(const uint8_t *in, size_t n, char *out, size_t outcap);
/*
 * Decodes exactly n characters of strict base64 (RFC 4648 alphabet, a
 * multiple of 4, '=' only as the last one or two) into out: the number of
 * bytes, or -1 on bad input or more than outcap (or B64_DEC_MAX) bytes.
 */
int scram_b64_decode(const char *in, size_t n, uint8_t *out, size_t outcap);
/* HMAC-SHA-256 and SHA-256 (OpenSSL): 0, or -1. */
int scram_hmac(const uint8_t *key, size_t keylen, const void *msg, size_t msglen, uint8_t out[SCRAM_KEY_LEN]);
int scram_sha256(const uint8_t *in, size_t n, uint8_t out[SCRAM_KEY_LEN]);
/* A positive decimal int of at most INT_MAX, all of [p, end): 0, or -1. */
int scram_parse_int(const char *p, const char *end, int *out);
/* A nonce character: printable ASCII except ','. */
bool scram_nonce_char(uint8_t c);
/*
 * A SCRAM message's framing: not empty, shorter than SCRAM_MAX_MSG, no NUL
 * byte; otherwise refused with reasons[0], [1] or [2] in that order. 0, or -1.
 */
int scram_check_message(const uint8_t *msg, size_t len, const char *const reasons[3], const char **err);
/* Sets *err (when err is not NULL) to why; returns -1. */
int scram_refuse(const char **err, const char *why);

#endif
