/*
 * my_stmt: the MySQL prepared statement protocol, server side (layouts in
 * my_stmt.h). Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * The execute decoder reads through a bounded cursor: every getter checks
 * what remains before it reads. Parameter literals and binary rows are
 * built from values checked first, so a value that does not fit its type
 * is refused with a reason and the buffer is left as it was. Parameter
 * literals are my_literal.c's.
 */
#include "protocol/my_stmt.h"
#include "protocol/my_stmt_wire.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_BITMAP_OFFSET 2 /* a binary row's NULL bitmap skips two bits */
#define NUM_TEXT_MAX 64     /* longest float text we parse */

enum my_status my_fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return MY_ERR;
}

/* ---- types --------------------------------------------------------------- */

bool my_plain_number(const char *s)
{
	return *s && strspn(s, "0123456789+-.eE") == strlen(s);
}

enum my_wire_kind my_wire_kind(uint8_t type, size_t *fixed_len)
{
	*fixed_len = 0;
	switch (type) {
	case MY_TYPE_NULL:
		return MY_W_NONE;
	case MY_TYPE_TINY:
		*fixed_len = 1;
		return MY_W_FIXED;
	case MY_TYPE_SHORT:
	case MY_TYPE_YEAR:
		*fixed_len = 2;
		return MY_W_FIXED;
	case MY_TYPE_LONG:
	case MY_TYPE_INT24:
	case MY_TYPE_FLOAT:
		*fixed_len = 4;
		return MY_W_FIXED;
	case MY_TYPE_LONGLONG:
	case MY_TYPE_DOUBLE:
		*fixed_len = 8;
		return MY_W_FIXED;
	case MY_TYPE_DATE:
	case MY_TYPE_DATETIME:
	case MY_TYPE_TIMESTAMP:
		return MY_W_DATE;
	case MY_TYPE_TIME:
		return MY_W_TIME;
	case MY_TYPE_DECIMAL:
	case MY_TYPE_NEWDECIMAL:
	case MY_TYPE_VARCHAR:
	case MY_TYPE_BIT:
	case MY_TYPE_JSON:
	case MY_TYPE_ENUM:
	case MY_TYPE_SET:
	case MY_TYPE_TINY_BLOB:
	case MY_TYPE_MEDIUM_BLOB:
	case MY_TYPE_LONG_BLOB:
	case MY_TYPE_BLOB:
	case MY_TYPE_VAR_STRING:
	case MY_TYPE_STRING:
	case MY_TYPE_GEOMETRY:
		return MY_W_LENENC;
	default:
		return MY_W_UNKNOWN;
	}
}

/* ---- COM_STMT_EXECUTE ---------------------------------------------------- */

enum my_status my_stmt_execute_id(const uint8_t *p, size_t len, uint32_t *stmt_id)
{
	struct rbuf r;

	*stmt_id = 0;
	rbuf_init(&r, p, len);
	if (!rbuf_skip(&r, 1) || !rbuf_get_le32(&r, stmt_id))
		return MY_ERR;
	return MY_OK;
}

/* One non-NULL value of the given kind; false (nothing consumed) when it is truncated or malformed. */
static bool take_value(struct rbuf *r, enum my_wire_kind kind, size_t fixed_len, struct my_param *prm)
{
	struct rbuf t = *r;
	const uint8_t *v;
	uint8_t n8;
	size_t n;

	switch (kind) {
	case MY_W_FIXED:
		n = fixed_len;
		if (!rbuf_get_bytes(&t, n, &v))
			return false;
		break;
	case MY_W_DATE:
	case MY_W_TIME:
		if (!rbuf_get_u8(&t, &n8))
			return false;
		n = n8;
		if (kind == MY_W_DATE ? (n != 0 && n != 4 && n != 7 && n != 11) : (n != 0 && n != 8 && n != 12))
			return false;
		if (!rbuf_get_bytes(&t, n, &v))
			return false;
		break;
	case MY_W_LENENC:
		if (!my_get_lenenc_str(&t, &v, &n))
			return false;
		break;
	default:
		return false;
	}
	prm->value = v;
	prm->len = n;
	*r = t;
	return true;
}

enum my_status my_stmt_decode_execute(const uint8_t *p, size_t len, uint16_t nparams, const uint8_t *prev_types,
				      struct my_stmt_execute *out, uint8_t *types_out, const char **why)
{
	const uint8_t *bitmap, *types;
	struct rbuf r;
	uint32_t stmt_id, iterations;
	uint8_t cmd, flags, bound;
	size_t bitmap_len, i;

	out->stmt_id = 0;
	out->flags = 0;
	out->iterations = 0;
	out->new_params_bound = false;
	out->nparams = 0;
	if (nparams > MY_STMT_MAX_PARAMS)
		return my_fail(why, "too many parameters");
	rbuf_init(&r, p, len);
	if (!rbuf_get_u8(&r, &cmd) || !rbuf_get_le32(&r, &stmt_id) || !rbuf_get_u8(&r, &flags) ||
	    !rbuf_get_le32(&r, &iterations))
		return my_fail(why, "COM_STMT_EXECUTE truncated");
	if (cmd != MY_COM_STMT_EXECUTE)
		return my_fail(why, "not a COM_STMT_EXECUTE");
	out->stmt_id = stmt_id;
	out->flags = flags;
	out->iterations = iterations;
	if (nparams == 0) {
		if (rbuf_left(&r) != 0)
			return my_fail(why, "trailing bytes after COM_STMT_EXECUTE");
		return MY_OK;
	}
	bitmap_len = ((size_t)nparams + 7) / 8;
	if (!rbuf_get_bytes(&r, bitmap_len, &bitmap) || !rbuf_get_u8(&r, &bound))
		return my_fail(why, "COM_STMT_EXECUTE truncated in the NULL bitmap");
	if (bound > 1)
		return my_fail(why, "bad new_params_bound flag");
	out->new_params_bound = bound == 1;
	if (out->new_params_bound) {
		if (!rbuf_get_bytes(&r, 2 * (size_t)nparams, &types))
			return my_fail(why, "COM_STMT_EXECUTE truncated in the parameter types");
	} else {
		if (!prev_types)
			return my_fail(why, "parameter types never sent");
		types = prev_types;
	}
	/* bitmap holds bitmap_len bytes and types 2 * nparams: i < nparams indexes inside both. */
	for (i = 0; i < nparams; i++) {
		struct my_param *prm = &out->params[i];
		size_t fixed_len;
		enum my_wire_kind kind = my_wire_kind(types[2 * i], &fixed_len);

		prm->type = types[2 * i];
		prm->is_unsigned = (types[2 * i + 1] & MY_PARAM_FLAG_UNSIGNED) != 0;
		prm->value = NULL;
		prm->len = 0;
		if (kind == MY_W_UNKNOWN)
			return my_fail(why, "unsupported parameter type");
		prm->is_null = (bitmap[i / 8] >> (i % 8) & 1) || kind == MY_W_NONE;
		if (prm->is_null)
			continue;
		if (!take_value(&r, kind, fixed_len, prm))
			return my_fail(why, "COM_STMT_EXECUTE parameter value truncated or malformed");
	}
	if (rbuf_left(&r) != 0)
		return my_fail(why, "trailing bytes after COM_STMT_EXECUTE");
	if (types_out && types_out != types)
		memmove(types_out, types, 2 * (size_t)nparams);
	out->nparams = nparams;
	return MY_OK;
}

/* ---- COM_STMT_PREPARE_OK ------------------------------------------------- */

void my_write_prepare_ok(struct wbuf *b, uint8_t seq, uint32_t stmt_id, uint16_t ncols, uint16_t nparams,
			 uint16_t warnings)
{
	my_begin(b, seq);
	my_put_u8(b, 0x00);
	my_put_u32(b, stmt_id);
	my_put_u16(b, ncols);
	my_put_u16(b, nparams);
	my_put_u8(b, 0x00);
	my_put_u16(b, warnings);
	my_end(b);
}

/* ---- binary rows from text ----------------------------------------------- */

/* A run of 1..maxd digits at s[*i]; false when there is none or too many. */
static bool digits(const uint8_t *s, size_t n, size_t *i, size_t maxd, uint64_t *v)
{
	size_t k = 0;

	*v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (++k > maxd)
			return false;
		*v = *v * 10 + (uint64_t)(s[*i] - '0');
		(*i)++;
	}
	return k > 0;
}

static bool expect_ch(const uint8_t *s, size_t n, size_t *i, char c)
{
	if (*i >= n || s[*i] != (uint8_t)c)
		return false;
	(*i)++;
	return true;
}

/* '.f{1,6}' at s[*i] if present, scaled to microseconds. */
static bool fraction(const uint8_t *s, size_t n, size_t *i, uint32_t *us)
{
	size_t start;
	uint64_t v;

	*us = 0;
	if (*i == n || s[*i] != '.')
		return true;
	(*i)++;
	start = *i;
	if (!digits(s, n, i, 6, &v))
		return false;
	for (size_t k = *i - start; k < 6; k++)
		v *= 10;
	*us = (uint32_t)v;
	return true;
}

/* Decimal integer text into a two's-complement 64-bit value within [min, max] / [0, umax]. */
static bool parse_int(const uint8_t *s, size_t n, bool is_unsigned, size_t width, uint64_t *out)
{
	size_t i = 0;
	bool neg = false;
	uint64_t v = 0, limit;

	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == n)
		return false;
	if (is_unsigned)
		limit = width == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * width)) - 1;
	else
		limit = (UINT64_C(1) << (8 * width - 1)) - (neg ? 0 : 1);
	if (neg && is_unsigned) /* only -0 */
		limit = 0;
	for (; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (d > limit || v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (uint64_t)0 - v : v;
	return true;
}

static bool parse_double(const uint8_t *s, size_t n, double *out)
{
	char tmp[NUM_TEXT_MAX + 1];
	char *endp;

	if (n == 0 || n > NUM_TEXT_MAX)
		return false;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	if (!my_plain_number(tmp))
		return false;
	*out = strtod(tmp, &endp);
	return endp == tmp + n && *out == *out && *out <= DBL_MAX && *out >= -DBL_MAX;
}

struct dt {
	unsigned year, mon, day, hh, mm, ss;
	uint32_t us;
};

/* 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' */
static bool parse_datetime(const uint8_t *s, size_t n, struct dt *t)
{
	size_t i = 0;
	uint64_t y, mo, d, h = 0, mi = 0, se = 0;

	memset(t, 0, sizeof(*t));
	if (!digits(s, n, &i, 4, &y) || i != 4 || !expect_ch(s, n, &i, '-') || !digits(s, n, &i, 2, &mo) ||
	    !expect_ch(s, n, &i, '-') || !digits(s, n, &i, 2, &d))
		return false;
	if (i < n) {
		if (!expect_ch(s, n, &i, ' ') || !digits(s, n, &i, 2, &h) || !expect_ch(s, n, &i, ':') ||
		    !digits(s, n, &i, 2, &mi) || !expect_ch(s, n, &i, ':') || !digits(s, n, &i, 2, &se) ||
		    !fraction(s, n, &i, &t->us))
			return false;
	}
	if (i != n || mo > 12 || d > 31 || h > 23 || mi > 59 || se > 59)
		return false;
	t->year = (unsigned)y;
	t->mon = (unsigned)mo;
	t->day = (unsigned)d;
	t->hh = (unsigned)h;
	t->mm = (unsigned)mi;
	t->ss = (unsigned)se;
	return true;
}

struct tm_val {
	bool neg;
	uint32_t days;
	unsigned hh, mm, ss;
	uint32_t us;
};

/* '[-]H+:MM:SS[.ffffff]' */
static bool parse_time(const uint8_t *s, size_t n, struct tm_val *t)
{
	size_t i = 0;
	uint64_t h, mi, se;

	memset(t, 0, sizeof(*t));
	if (n && s[0] == '-') {
		t->neg = true;
		i = 1;
	}
	if (!digits(s, n, &i, 9, &h) || !expect_ch(s, n, &i, ':') || !digits(s, n, &i, 2, &mi) ||
	    !expect_ch(s, n, &i, ':') || !digits(s, n, &i, 2, &se) || !fraction(s, n, &i, &t->us))
		return false;
	if (i != n || mi > 59 || se > 59)
		return false;
	t->days = (uint32_t)(h / 24);
	t->hh = (unsigned)(h % 24);
	t->mm = (unsigned)mi;
	t->ss = (unsigned)se;
	return true;
}

/* One column's value, binary-encoded; false when the text does not parse for the type. */
static bool put_binary_value(struct wbuf *b, uint8_t type, bool is_unsigned, const uint8_t *s, size_t n)
{
	size_t fixed_len;
	enum my_wire_kind kind = my_wire_kind(type, &fixed_len);
	uint64_t v;

	switch (type) {
	case MY_TYPE_FLOAT:
	case MY_TYPE_DOUBLE: {
		double d;

		if (!parse_double(s, n, &d) || (type == MY_TYPE_FLOAT && (d > FLT_MAX || d < -FLT_MAX)))
			return false;
		if (type == MY_TYPE_FLOAT) {
			float f = (float)d;
			uint32_t bits;

			memcpy(&bits, &f, sizeof(bits));
			my_put_u32(b, bits);
		} else {
			uint64_t bits;

			memcpy(&bits, &d, sizeof(bits));
			my_put_u64(b, bits);
		}
		return true;
	}
	default:
		break;
	}
	switch (kind) {
	case MY_W_FIXED:
		if (!parse_int(s, n, is_unsigned, fixed_len, &v))
			return false;
		if (fixed_len == 1)
			my_put_u8(b, (uint8_t)v);
		else if (fixed_len == 2)
			my_put_u16(b, (uint16_t)v);
		else if (fixed_len == 4)
			my_put_u32(b, (uint32_t)v);
		else
			my_put_u64(b, v);
		return true;
	case MY_W_DATE: {
		struct dt t;
		uint8_t l;

		if (!parse_datetime(s, n, &t))
			return false;
		if (t.us)
			l = 11;
		else if (t.hh || t.mm || t.ss)
			l = 7;
		else if (t.year || t.mon || t.day)
			l = 4;
		else
			l = 0;
		my_put_u8(b, l);
		if (l >= 4) {
			my_put_u16(b, (uint16_t)t.year);
			my_put_u8(b, (uint8_t)t.mon);
			my_put_u8(b, (uint8_t)t.day);
		}
		if (l >= 7) {
			my_put_u8(b, (uint8_t)t.hh);
			my_put_u8(b, (uint8_t)t.mm);
			my_put_u8(b, (uint8_t)t.ss);
		}
		if (l == 11)
			my_put_u32(b, t.us);
		return true;
	}
	case MY_W_TIME: {
		struct tm_val t;
		uint8_t l;

		if (!parse_time(s, n, &t))
			return false;
		if (t.us)
			l = 12;
		else if (t.days || t.hh || t.mm || t.ss)
			l = 8;
		else
			l = 0;
		my_put_u8(b, l);
		if (l >= 8) {
			my_put_u8(b, t.neg ? 1 : 0);
			my_put_u32(b, t.days);
			my_put_u8(b, (uint8_t)t.hh);
			my_put_u8(b, (uint8_t)t.mm);
			my_put_u8(b, (uint8_t)t.ss);
		}
		if (l == 12)
			my_put_u32(b, t.us);
		return true;
	}
	default:
		my_put_lenenc_str(b, s, n);
		return true;
	}
}

enum my_status my_write_binary_row(struct wbuf *b, uint8_t seq, uint16_t ncols, const uint8_t *types,
				   const bool *unsigned_flags, const uint8_t *const *values, const size_t *lens,
				   const char **why)
{
	uint8_t bitmap[(MY_STMT_MAX_COLS + 7 + ROW_BITMAP_OFFSET) / 8];
	size_t bitmap_len = ((size_t)ncols + 7 + ROW_BITMAP_OFFSET) / 8, i;
	size_t saved_len = b->len, saved_mark = b->mark, saved_limit = b->limit;
	bool was_failed = b->failed;

	if (ncols > MY_STMT_MAX_COLS)
		return my_fail(why, "too many columns for a binary row");
	memset(bitmap, 0, bitmap_len);
	for (i = 0; i < ncols; i++) {
		if (!values[i])
			bitmap[(i + ROW_BITMAP_OFFSET) / 8] |= (uint8_t)(1u << ((i + ROW_BITMAP_OFFSET) % 8));
	}
	my_begin(b, seq);
	my_put_u8(b, 0x00);
	my_put_bytes(b, bitmap, bitmap_len);
	for (i = 0; i < ncols; i++) {
		if (!values[i])
			continue;
		if (!put_binary_value(b, types[i], unsigned_flags && unsigned_flags[i], values[i], lens[i])) {
			/* Undo the partial packet (and a failed bit set by this call). */
			b->len = saved_len;
			b->mark = saved_mark;
			b->limit = saved_limit;
			b->failed = was_failed;
			return my_fail(why, "column value does not parse for its binary type");
		}
	}
	my_end(b);
	return MY_OK;
}
