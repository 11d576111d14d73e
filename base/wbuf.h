/*
 * wbuf: the one growable byte writer every codec appends to (protocol/'s
 * Postgres messages, MySQL packets and literals, base/'s job/result frames).
 * Pure: no I/O; the only allocation is realloc on w->data.
 *
 * Ownership: the caller owns the struct wbuf (usually on its stack or
 * inside a session) and, through it, w->data; wbuf_free releases it. A
 * caller that takes w->data for itself owns it from then on and must not
 * wbuf_free that wbuf (wbuf_init makes it usable again).
 *
 * Failure is sticky: a put that cannot get room (allocation, size_t
 * overflow, or the open message's limit) sets w->failed, writes nothing,
 * and every later put and patch does nothing until wbuf_reset. Callers
 * build a whole reply and check failed once, before sending it.
 *
 * Messages: wbuf_begin marks where a message starts and the most bytes it
 * may hold; the codec writes its header with a placeholder length and, at
 * the end, patches the real length at an offset it remembered.
 */
#ifndef AIRLOCK_BASE_WBUF_H
#define AIRLOCK_BASE_WBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wbuf {
	uint8_t *data; /* owned; NULL until the first byte is written */
	size_t len;    /* bytes written */
	size_t cap;    /* bytes allocated */
	size_t mark;   /* offset of the open message (wbuf_begin); 0 when none */
	size_t limit;  /* most bytes from mark to the end; 0: no limit */
	bool failed;   /* sticky; cleared only by wbuf_reset and wbuf_init */
};

void wbuf_init(struct wbuf *w);  /* empty, no limit, nothing allocated */
void wbuf_free(struct wbuf *w);  /* frees data; w is as after wbuf_init */
void wbuf_reset(struct wbuf *w); /* len 0, no message, not failed; keeps the allocation */

/*
 * Opens a message at the current end: from here on the bytes from that
 * offset to the end may not pass limit (0: unlimited); a put that would
 * sets failed. Returns the offset (for patching the message's length).
 */
size_t wbuf_begin(struct wbuf *w, size_t limit);

/* Makes room for n more bytes; false (and failed set) when it cannot. */
bool wbuf_reserve(struct wbuf *w, size_t n);

void wbuf_put_u8(struct wbuf *w, uint8_t v);
void wbuf_put_be16(struct wbuf *w, uint16_t v);
void wbuf_put_be24(struct wbuf *w, uint32_t v); /* the low 24 bits */
void wbuf_put_be32(struct wbuf *w, uint32_t v);
void wbuf_put_be64(struct wbuf *w, uint64_t v);
void wbuf_put_le16(struct wbuf *w, uint16_t v);
void wbuf_put_le24(struct wbuf *w, uint32_t v); /* the low 24 bits */
void wbuf_put_le32(struct wbuf *w, uint32_t v);
void wbuf_put_le64(struct wbuf *w, uint64_t v);
/* n bytes copied from p (borrowed for the call; may be NULL when n is 0). */
void wbuf_put_bytes(struct wbuf *w, const void *p, size_t n);
/* The bytes of s without its NUL; NULL writes nothing. */
void wbuf_put_str(struct wbuf *w, const char *s);
/* The bytes of s and its NUL; NULL writes a lone NUL (""). */
void wbuf_put_cstr(struct wbuf *w, const char *s);

/*
 * The payload length of the message opened at w->mark whose header is
 * header_len bytes: true with *len set when the header is all written and
 * the payload is at most max; false otherwise, with failed set.
 */
bool wbuf_message_len(struct wbuf *w, size_t header_len, size_t max, size_t *len);

/*
 * Overwrite bytes already written at off (a length placeholder). Nothing
 * happens once failed; an offset whose bytes are not all written sets it.
 */
void wbuf_patch_be32(struct wbuf *w, size_t off, uint32_t v);
void wbuf_patch_le24(struct wbuf *w, size_t off, uint32_t v); /* the low 24 bits */

#endif
