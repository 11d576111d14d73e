/*
 * rbuf: the bounds-checked read cursor shared by the decoders (API and
 * ownership in rbuf.h). take() is the one place that checks what is left;
 * every getter but rbuf_get_cstr asks it for its bytes first.
 */
#include "base/rbuf.h"

#include <string.h>

void rbuf_init(struct rbuf *r, const void *data, size_t len)
{
	r->data = data;
	r->len = data ? len : 0;
	r->pos = 0;
}

size_t rbuf_left(const struct rbuf *r)
{
	return r->len - r->pos;
}

/*
 * Consumes the next n bytes and points *p at them; false (nothing
 * consumed) when fewer are left. An empty cursor over NULL gives NULL for
 * n == 0 rather than computing NULL + 0.
 */
static bool take(struct rbuf *r, size_t n, const uint8_t **p)
{
	if (n > rbuf_left(r))
		return false;
	*p = r->data ? r->data + r->pos : NULL;
	r->pos += n;
	return true;
}

bool rbuf_get_u8(struct rbuf *r, uint8_t *v)
{
	const uint8_t *p;

	if (!take(r, 1, &p))
		return false;
	*v = p[0];
	return true;
}

bool rbuf_get_be16(struct rbuf *r, uint16_t *v)
{
	const uint8_t *p;

	if (!take(r, 2, &p))
		return false;
	*v = (uint16_t)((unsigned)p[0] << 8 | p[1]);
	return true;
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool rbuf_get_be32(struct rbuf *r, uint32_t *v)
{
	const uint8_t *p;

	if (!take(r, 4, &p))
		return false;
	*v = be32_at(p);
	return true;
}

bool rbuf_get_be64(struct rbuf *r, uint64_t *v)
{
	const uint8_t *p;

	if (!take(r, 8, &p))
		return false;
	*v = (uint64_t)be32_at(p) << 32 | be32_at(p + 4);
	return true;
}

bool rbuf_get_le16(struct rbuf *r, uint16_t *v)
{
	const uint8_t *p;

	if (!take(r, 2, &p))
		return false;
	*v = (uint16_t)(p[0] | (unsigned)p[1] << 8);
	return true;
}

static uint32_t le24_at(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

bool rbuf_get_le24(struct rbuf *r, uint32_t *v)
{
	const uint8_t *p;

	if (!take(r, 3, &p))
		return false;
	*v = le24_at(p);
	return true;
}

static uint32_t le32_at(const uint8_t *p)
{
	return le24_at(p) | (uint32_t)p[3] << 24;
}

bool rbuf_get_le32(struct rbuf *r, uint32_t *v)
{
	const uint8_t *p;

	if (!take(r, 4, &p))
		return false;
	*v = le32_at(p);
	return true;
}

bool rbuf_get_le64(struct rbuf *r, uint64_t *v)
{
	const uint8_t *p;

	if (!take(r, 8, &p))
		return false;
	*v = le32_at(p) | (uint64_t)le32_at(p + 4) << 32;
	return true;
}

bool rbuf_get_bytes(struct rbuf *r, size_t n, const uint8_t **p)
{
	return take(r, n, p);
}

bool rbuf_skip(struct rbuf *r, size_t n)
{
	const uint8_t *p;

	return take(r, n, &p);
}

bool rbuf_get_cstr(struct rbuf *r, const char **s, size_t *len)
{
	const uint8_t *start, *nul;
	size_t n;

	if (rbuf_left(r) == 0)
		return false;
	start = r->data + r->pos;
	nul = memchr(start, 0, rbuf_left(r));
	if (!nul)
		return false;
	n = (size_t)(nul - start);
	r->pos += n + 1;
	*s = (const char *)start;
	if (len)
		*len = n;
	return true;
}

bool rbuf_get_rbuf(struct rbuf *r, size_t n, struct rbuf *sub)
{
	const uint8_t *p;

	if (!take(r, n, &p))
		return false;
	rbuf_init(sub, p, n);
	return true;
}
