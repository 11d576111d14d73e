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

/* The n bytes at p as an unsigned number, most significant first (big) or last. */
static uint64_t uint_at(const uint8_t *p, size_t n, bool big)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[big ? i : n - 1 - i];
	return v;
}

/*
 * The fixed-width getters: n bytes in one byte order through take(), so
 * nothing is read, moved or written when fewer than n are left. The
 * signed ones reinterpret the unsigned value (two's complement).
 */
#define RBUF_GETTER(name, type, n, big)        \
	bool name(struct rbuf *r, type *v)     \
	{                                      \
		const uint8_t *p;              \
                                               \
		if (!take(r, n, &p))           \
			return false;          \
		*v = (type)uint_at(p, n, big); \
		return true;                   \
	}

RBUF_GETTER(rbuf_get_u8, uint8_t, 1, true)
RBUF_GETTER(rbuf_get_be16, uint16_t, 2, true)
RBUF_GETTER(rbuf_get_be32, uint32_t, 4, true)
RBUF_GETTER(rbuf_get_be64, uint64_t, 8, true)
RBUF_GETTER(rbuf_get_le16, uint16_t, 2, false)
RBUF_GETTER(rbuf_get_le24, uint32_t, 3, false)
RBUF_GETTER(rbuf_get_le32, uint32_t, 4, false)
RBUF_GETTER(rbuf_get_le64, uint64_t, 8, false)
RBUF_GETTER(rbuf_get_be16_signed, int16_t, 2, true)
RBUF_GETTER(rbuf_get_be32_signed, int32_t, 4, true)

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
