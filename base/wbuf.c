/*
 * wbuf: the growable writer shared by the codecs (API and ownership in
 * wbuf.h). Growth doubles from 256 bytes; every put goes through
 * wbuf_reserve, the one place that allocates, enforces the open message's
 * limit and sets the sticky failed bit.
 */
#include "base/wbuf.h"

#include <stdlib.h>
#include <string.h>

#define WBUF_FIRST_CAP 256

void wbuf_init(struct wbuf *w)
{
	memset(w, 0, sizeof(*w));
}

void wbuf_free(struct wbuf *w)
{
	free(w->data);
	memset(w, 0, sizeof(*w));
}

void wbuf_reset(struct wbuf *w)
{
	w->len = 0;
	w->mark = 0;
	w->limit = 0;
	w->failed = false;
}

size_t wbuf_begin(struct wbuf *w, size_t limit)
{
	w->mark = w->len;
	w->limit = limit;
	return w->mark;
}

bool wbuf_reserve(struct wbuf *w, size_t n)
{
	size_t used, need, ncap;
	uint8_t *nd;

	if (w->failed)
		return false;
	if (w->limit) {
		used = w->len > w->mark ? w->len - w->mark : 0;
		if (n > w->limit || used > w->limit - n)
			goto out_fail;
	}
	if (n > SIZE_MAX - w->len)
		goto out_fail;
	need = w->len + n;
	if (need <= w->cap)
		return true;
	ncap = w->cap ? w->cap : WBUF_FIRST_CAP;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			ncap = need;
			break;
		}
		ncap *= 2;
	}
	nd = realloc(w->data, ncap);
	if (!nd)
		goto out_fail;
	w->data = nd;
	w->cap = ncap;
	return true;
out_fail:
	w->failed = true;
	return false;
}

void wbuf_put_bytes(struct wbuf *w, const void *p, size_t n)
{
	if (!wbuf_reserve(w, n))
		return;
	if (n)
		memcpy(w->data + w->len, p, n);
	w->len += n;
}

void wbuf_put_u8(struct wbuf *w, uint8_t v)
{
	wbuf_put_bytes(w, &v, 1);
}

void wbuf_put_be16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_be24(struct wbuf *w, uint32_t v)
{
	uint8_t b[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};

	wbuf_put_bytes(w, b, sizeof(b));
}

static void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void store_le24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
}

void wbuf_put_be32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4];

	store_be32(b, v);
	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_be64(struct wbuf *w, uint64_t v)
{
	uint8_t b[8];

	store_be32(b, (uint32_t)(v >> 32));
	store_be32(b + 4, (uint32_t)v);
	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_le16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_le24(struct wbuf *w, uint32_t v)
{
	uint8_t b[3];

	store_le24(b, v);
	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_le32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_le64(struct wbuf *w, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	wbuf_put_bytes(w, b, sizeof(b));
}

void wbuf_put_str(struct wbuf *w, const char *s)
{
	if (s)
		wbuf_put_bytes(w, s, strlen(s));
}

void wbuf_put_cstr(struct wbuf *w, const char *s)
{
	if (!s)
		s = "";
	wbuf_put_bytes(w, s, strlen(s) + 1);
}

/* The n bytes at off, when they are all written and nothing failed. */
static uint8_t *patch_at(struct wbuf *w, size_t off, size_t n)
{
	if (w->failed)
		return NULL;
	if (off > w->len || w->len - off < n) {
		w->failed = true;
		return NULL;
	}
	return w->data + off;
}

bool wbuf_message_len(struct wbuf *w, size_t header_len, size_t max, size_t *len)
{
	if (w->failed)
		return false;
	if (w->len < w->mark + header_len || w->len - w->mark - header_len > max) {
		w->failed = true;
		return false;
	}
	*len = w->len - w->mark - header_len;
	return true;
}

void wbuf_patch_be32(struct wbuf *w, size_t off, uint32_t v)
{
	uint8_t *p = patch_at(w, off, 4);

	if (p)
		store_be32(p, v);
}

void wbuf_patch_le24(struct wbuf *w, size_t off, uint32_t v)
{
	uint8_t *p = patch_at(w, off, 3);

	if (p)
		store_le24(p, v);
}
