/*
 * rbuf: the one bounds-checked read cursor every decoder reads through
 * (protocol/'s Postgres messages and MySQL packets, base/'s job/result
 * frames, the validator channel's requests).
 * Pure: no I/O, no allocation.
 *
 * Ownership: an rbuf borrows the caller's bytes; it never writes or frees
 * them, and every view it hands out (rbuf_get_bytes, rbuf_get_cstr,
 * rbuf_get_rbuf) points into them, valid while they are.
 *
 * Every getter returns bool and must be checked (the compiler is told to
 * warn when one is not). false means the bytes asked for are not all
 * there: nothing was read, the cursor did not move, and the outputs were
 * not written. No getter ever reads past the range given to rbuf_init.
 */
#ifndef AIRLOCK_BASE_RBUF_H
#define AIRLOCK_BASE_RBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RBUF_MUST_CHECK __attribute__((warn_unused_result))

struct rbuf {
	const uint8_t *data; /* borrowed; NULL only when len is 0 */
	size_t len;
	size_t pos; /* bytes consumed, at most len */
};

/* A cursor at the start of [data, data + len); data may be NULL when len is 0. */
void rbuf_init(struct rbuf *r, const void *data, size_t len);
/* Bytes not yet consumed. */
size_t rbuf_left(const struct rbuf *r);

RBUF_MUST_CHECK bool rbuf_get_u8(struct rbuf *r, uint8_t *v);
RBUF_MUST_CHECK bool rbuf_get_be16(struct rbuf *r, uint16_t *v);
RBUF_MUST_CHECK bool rbuf_get_be32(struct rbuf *r, uint32_t *v);
RBUF_MUST_CHECK bool rbuf_get_be64(struct rbuf *r, uint64_t *v);
RBUF_MUST_CHECK bool rbuf_get_le16(struct rbuf *r, uint16_t *v);
RBUF_MUST_CHECK bool rbuf_get_le24(struct rbuf *r, uint32_t *v);
RBUF_MUST_CHECK bool rbuf_get_le32(struct rbuf *r, uint32_t *v);
RBUF_MUST_CHECK bool rbuf_get_le64(struct rbuf *r, uint64_t *v);
/* Big-endian two's complement. */
RBUF_MUST_CHECK bool rbuf_get_be16_signed(struct rbuf *r, int16_t *v);
RBUF_MUST_CHECK bool rbuf_get_be32_signed(struct rbuf *r, int32_t *v);

/* A view of the next n bytes (*p points into the caller's bytes). */
RBUF_MUST_CHECK bool rbuf_get_bytes(struct rbuf *r, size_t n, const uint8_t **p);
/* Steps over n bytes. */
RBUF_MUST_CHECK bool rbuf_skip(struct rbuf *r, size_t n);
/*
 * A NUL-terminated string that ends inside the cursor: *s points at it (in
 * the caller's bytes), *len (when len is not NULL) is its length without
 * the NUL, and the cursor moves past the NUL. false when no NUL is left.
 */
RBUF_MUST_CHECK bool rbuf_get_cstr(struct rbuf *r, const char **s, size_t *len);
/* The next n bytes as a cursor of their own (sub borrows the same bytes). */
RBUF_MUST_CHECK bool rbuf_get_rbuf(struct rbuf *r, size_t n, struct rbuf *sub);

#endif
