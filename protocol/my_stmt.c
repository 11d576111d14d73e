/*
 * my_stmt: the MySQL prepared statement protocol, server side (layouts in
 * my_stmt.h). Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * The execute decoder reads through a bounded cursor: every getter checks
 * what remains before it reads. Parameter literals and binary rows are
 * built from values checked first, so a value that does not fit its type
 * is refused with a reason and the buffer is left as it was.
 */
#include "protocol/my_stmt.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_BITMAP_OFFSET 2 /* a binary row's NULL bitmap skips two bits */
#define NUM_TEXT_MAX 64     /* longest float text we parse */
#define TWO_POW_53 9007199254740992.0

static enum my_status fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return MY_ERR;
}

/* ---- types --------------------------------------------------------------- */

/* How a type's value is laid out on the wire (parameters and binary rows). */
enum wire_kind {
	W_UNKNOWN,
	W_NONE,   /* MY_TYPE_NULL: no bytes */
	W_FIXED,  /* fixed_len bytes */
	W_DATE,   /* length byte 0/4/7/11 + bytes */
	W_TIME,   /* length byte 0/8/12 + bytes */
	W_LENENC, /* lenenc string */
};

static enum wire_kind wire_kind(uint8_t type, size_t *fixed_len)
{
	*fixed_len = 0;
	switch (type) {
	case MY_TYPE_NULL:
		return W_NONE;
	case MY_TYPE_TINY:
		*fixed_len = 1;
		return W_FIXED;
	case MY_TYPE_SHORT:
	case MY_TYPE_YEAR:
		*fixed_len = 2;
		return W_FIXED;
	case MY_TYPE_LONG:
	case MY_TYPE_INT24:
	case MY_TYPE_FLOAT:
		*fixed_len = 4;
		return W_FIXED;
	case MY_TYPE_LONGLONG:
	case MY_TYPE_DOUBLE:
		*fixed_len = 8;
		return W_FIXED;
	case MY_TYPE_DATE:
	case MY_TYPE_DATETIME:
	case MY_TYPE_TIMESTAMP:
		return W_DATE;
	case MY_TYPE_TIME:
		return W_TIME;
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
		return W_LENENC;
	default:
		return W_UNKNOWN;
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
static bool take_value(struct rbuf *r, enum wire_kind kind, size_t fixed_len, struct my_param *prm)
{
	struct rbuf t = *r;
	const uint8_t *v;
	uint8_t n8;
	size_t n;

	switch (kind) {
	case W_FIXED:
		n = fixed_len;
		if (!rbuf_get_bytes(&t, n, &v))
			return false;
		break;
	case W_DATE:
	case W_TIME:
		if (!rbuf_get_u8(&t, &n8))
			return false;
		n = n8;
		if (kind == W_DATE ? (n != 0 && n != 4 && n != 7 && n != 11) : (n != 0 && n != 8 && n != 12))
			return false;
		if (!rbuf_get_bytes(&t, n, &v))
			return false;
		break;
	case W_LENENC:
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
		return fail(why, "too many parameters");
	rbuf_init(&r, p, len);
	if (!rbuf_get_u8(&r, &cmd) || !rbuf_get_le32(&r, &stmt_id) || !rbuf_get_u8(&r, &flags) ||
	    !rbuf_get_le32(&r, &iterations))
		return fail(why, "COM_STMT_EXECUTE truncated");
	if (cmd != MY_COM_STMT_EXECUTE)
		return fail(why, "not a COM_STMT_EXECUTE");
	out->stmt_id = stmt_id;
	out->flags = flags;
	out->iterations = iterations;
	if (nparams == 0) {
		if (rbuf_left(&r) != 0)
			return fail(why, "trailing bytes after COM_STMT_EXECUTE");
		return MY_OK;
	}
	bitmap_len = ((size_t)nparams + 7) / 8;
	if (!rbuf_get_bytes(&r, bitmap_len, &bitmap) || !rbuf_get_u8(&r, &bound))
		return fail(why, "COM_STMT_EXECUTE truncated in the NULL bitmap");
	if (bound > 1)
		return fail(why, "bad new_params_bound flag");
	out->new_params_bound = bound == 1;
	if (out->new_params_bound) {
		if (!rbuf_get_bytes(&r, 2 * (size_t)nparams, &types))
			return fail(why, "COM_STMT_EXECUTE truncated in the parameter types");
	} else {
		if (!prev_types)
			return fail(why, "parameter types never sent");
		types = prev_types;
	}
	/* bitmap holds bitmap_len bytes and types 2 * nparams: i < nparams indexes inside both. */
	for (i = 0; i < nparams; i++) {
		struct my_param *prm = &out->params[i];
		size_t fixed_len;
		enum wire_kind kind = wire_kind(types[2 * i], &fixed_len);

		prm->type = types[2 * i];
		prm->is_unsigned = (types[2 * i + 1] & MY_PARAM_FLAG_UNSIGNED) != 0;
		prm->value = NULL;
		prm->len = 0;
		if (kind == W_UNKNOWN)
			return fail(why, "unsupported parameter type");
		prm->is_null = (bitmap[i / 8] >> (i % 8) & 1) || kind == W_NONE;
		if (prm->is_null)
			continue;
		if (!take_value(&r, kind, fixed_len, prm))
			return fail(why, "COM_STMT_EXECUTE parameter value truncated or malformed");
	}
	if (rbuf_left(&r) != 0)
		return fail(why, "trailing bytes after COM_STMT_EXECUTE");
	if (types_out && types_out != types)
		memmove(types_out, types, 2 * (size_t)nparams);
	out->nparams = nparams;
	return MY_OK;
}

/* ---- parameter literals -------------------------------------------------- */

static void put_str(struct wbuf *b, const char *s)
{
	my_put_bytes(b, s, strlen(s));
}

static void put_fmt_int(struct wbuf *b, bool is_unsigned, uint64_t u, int64_t s)
{
	char tmp[32];

	if (is_unsigned)
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)u);
	else
		snprintf(tmp, sizeof(tmp), "%lld", (long long)s);
	put_str(b, tmp);
}

/* Only digits, sign, point and exponent: refuses a locale's decimal comma and nan/inf. */
static bool plain_number(const char *s)
{
	return *s && strspn(s, "0123456789+-.eE") == strlen(s);
}

/* Shortest text that reads back as v (float when is_float). */
static enum my_status put_float_text(struct wbuf *b, double v, bool is_float, const char **why)
{
	char tmp[48];
	int prec, max = is_float ? 9 : 17;

	if (v != v || v > DBL_MAX || v < -DBL_MAX)
		return fail(why, "NaN or infinite floating point parameter");
	if (v < TWO_POW_53 && v > -TWO_POW_53 && v == (double)(int64_t)v) {
		snprintf(tmp, sizeof(tmp), "%lld", (long long)(int64_t)v);
		put_str(b, tmp);
		return MY_OK;
	}
	for (prec = 1; prec <= max; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (is_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v)
			break;
	}
	if (!plain_number(tmp))
		return fail(why, "floating point parameter did not format");
	put_str(b, tmp);
	return MY_OK;
}

static bool decimal_text(const uint8_t *s, size_t n)
{
	size_t i = 0, digits;

	if (i < n && s[i] == '-')
		i++;
	for (digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (!digits)
		return false;
	if (i == n)
		return true;
	if (s[i++] != '.')
		return false;
	for (digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	return digits && i == n;
}

static enum my_status put_quoted(struct wbuf *b, const uint8_t *s, size_t n, bool nbe, const char **why)
{
	size_t i, run = 0;

	my_put_u8(b, '\'');
	for (i = 0; i < n; i++) {
		const char *esc = NULL;

		if (s[i] == '\'')
			esc = "''";
		else if (s[i] == '\\' && !nbe)
			esc = "\\\\";
		else if (s[i] == 0 && !nbe)
			esc = "\\0";
		else if (s[i] == 0)
			return fail(why, "NUL byte in a string parameter under NO_BACKSLASH_ESCAPES");
		if (!esc)
			continue;
		my_put_bytes(b, s + run, i - run);
		my_put_bytes(b, esc, 2);
		run = i + 1;
	}
	my_put_bytes(b, s + run, n - run);
	my_put_u8(b, '\'');
	return MY_OK;
}

/* One byte of a binary date or time, widened for printing. */
static bool get_byte(struct rbuf *r, unsigned *v)
{
	uint8_t b;

	if (!rbuf_get_u8(r, &b))
		return false;
	*v = b;
	return true;
}

/* Binary DATE/DATETIME/TIMESTAMP (len 0/4/7/11, after the length byte) as a quoted literal. */
static enum my_status put_date(struct wbuf *b, const uint8_t *v, size_t n, const char **why)
{
	unsigned year = 0, mon = 0, day = 0, hh = 0, mm = 0, ss = 0;
	uint32_t us = 0;
	uint16_t y16 = 0;
	struct rbuf r;
	char tmp[48];

	if (n != 0 && n != 4 && n != 7 && n != 11)
		return fail(why, "bad date parameter length");
	rbuf_init(&r, v, n);
	if ((n >= 4 && (!rbuf_get_le16(&r, &y16) || !get_byte(&r, &mon) || !get_byte(&r, &day))) ||
	    (n >= 7 && (!get_byte(&r, &hh) || !get_byte(&r, &mm) || !get_byte(&r, &ss))) ||
	    (n == 11 && !rbuf_get_le32(&r, &us)))
		return fail(why, "bad date parameter length");
	year = y16;
	if (year > 9999 || mon > 12 || day > 31 || hh > 23 || mm > 59 || ss > 59 || us > 999999)
		return fail(why, "date parameter out of range");
	if (n <= 4)
		snprintf(tmp, sizeof(tmp), "'%04u-%02u-%02u'", year, mon, day);
	else if (n == 7)
		snprintf(tmp, sizeof(tmp), "'%04u-%02u-%02u %02u:%02u:%02u'", year, mon, day, hh, mm, ss);
	else
		snprintf(tmp, sizeof(tmp), "'%04u-%02u-%02u %02u:%02u:%02u.%06u'", year, mon, day, hh, mm, ss,
			 (unsigned)us);
	put_str(b, tmp);
	return MY_OK;
}

/* Binary TIME (len 0/8/12, after the length byte) as a quoted literal. */
static enum my_status put_time(struct wbuf *b, const uint8_t *v, size_t n, const char **why)
{
	unsigned long long hours = 0;
	unsigned sign = 0, mm = 0, ss = 0, hh = 0;
	uint32_t days = 0, us = 0;
	bool neg = false;
	struct rbuf r;
	char tmp[64];

	if (n != 0 && n != 8 && n != 12)
		return fail(why, "bad time parameter length");
	rbuf_init(&r, v, n);
	if (n >= 8) {
		if (!get_byte(&r, &sign) || !rbuf_get_le32(&r, &days) || !get_byte(&r, &hh) || !get_byte(&r, &mm) ||
		    !get_byte(&r, &ss))
			return fail(why, "bad time parameter length");
		if (sign > 1)
			return fail(why, "bad time parameter sign");
		neg = sign == 1;
		hours = (unsigned long long)days * 24u + hh;
	}
	if (n == 12 && !rbuf_get_le32(&r, &us))
		return fail(why, "bad time parameter length");
	if (hh > 23 || mm > 59 || ss > 59 || us > 999999)
		return fail(why, "time parameter out of range");
	if (n == 12)
		snprintf(tmp, sizeof(tmp), "'%s%02llu:%02u:%02u.%06u'", neg ? "-" : "", hours, mm, ss, (unsigned)us);
	else
		snprintf(tmp, sizeof(tmp), "'%s%02llu:%02u:%02u'", neg ? "-" : "", hours, mm, ss);
	put_str(b, tmp);
	return MY_OK;
}

static enum my_status put_int_param(struct wbuf *b, const struct my_param *prm, size_t width, const char **why)
{
	struct rbuf r;
	uint64_t u = 0;
	uint32_t u32 = 0;
	uint16_t u16 = 0;
	uint8_t u8 = 0;
	int64_t s;
	bool ok;

	if (prm->len != width)
		return fail(why, "bad integer parameter length");
	rbuf_init(&r, prm->value, prm->len);
	switch (width) {
	case 1:
		ok = rbuf_get_u8(&r, &u8);
		u = u8;
		s = (int8_t)u8;
		break;
	case 2:
		ok = rbuf_get_le16(&r, &u16);
		u = u16;
		s = (int16_t)u16;
		break;
	case 4:
		ok = rbuf_get_le32(&r, &u32);
		u = u32;
		s = (int32_t)u32;
		break;
	default:
		ok = rbuf_get_le64(&r, &u);
		s = (int64_t)u;
		break;
	}
	if (!ok)
		return fail(why, "bad integer parameter length");
	put_fmt_int(b, prm->is_unsigned, u, s);
	return MY_OK;
}

/* A binary FLOAT (4 bytes) or DOUBLE (8 bytes) parameter, little-endian IEEE 754, as text. */
static enum my_status put_float_param(struct wbuf *out, const struct my_param *prm, bool is_float, const char **why)
{
	struct rbuf r;
	uint32_t bits32 = 0;
	uint64_t bits64 = 0;
	float f;
	double d;

	rbuf_init(&r, prm->value, prm->len);
	if (prm->len != (is_float ? 4u : 8u) || !(is_float ? rbuf_get_le32(&r, &bits32) : rbuf_get_le64(&r, &bits64)))
		return fail(why, is_float ? "bad FLOAT parameter length" : "bad DOUBLE parameter length");
	if (!is_float) {
		memcpy(&d, &bits64, sizeof(d));
		return put_float_text(out, d, false, why);
	}
	memcpy(&f, &bits32, sizeof(f));
	return put_float_text(out, (double)f, true, why);
}

static enum my_status literal(const struct my_param *prm, bool nbe, struct wbuf *out, const char **why)
{
	size_t fixed_len;
	enum wire_kind kind;

	if (prm->is_null || prm->type == MY_TYPE_NULL) {
		put_str(out, "NULL");
		return MY_OK;
	}
	kind = wire_kind(prm->type, &fixed_len);
	if (kind == W_UNKNOWN)
		return fail(why, "unsupported parameter type");
	if (!prm->value && prm->len)
		return fail(why, "parameter without a value");
	switch (prm->type) {
	case MY_TYPE_FLOAT:
	case MY_TYPE_DOUBLE:
		return put_float_param(out, prm, prm->type == MY_TYPE_FLOAT, why);
	case MY_TYPE_DECIMAL:
	case MY_TYPE_NEWDECIMAL:
		if (!decimal_text(prm->value, prm->len))
			return fail(why, "malformed DECIMAL parameter");
		my_put_bytes(out, prm->value, prm->len);
		return MY_OK;
	default:
		break;
	}
	switch (kind) {
	case W_FIXED:
		return put_int_param(out, prm, fixed_len, why);
	case W_DATE:
		return put_date(out, prm->value, prm->len, why);
	case W_TIME:
		return put_time(out, prm->value, prm->len, why);
	default:
		return put_quoted(out, prm->value, prm->len, nbe, why);
	}
}

enum my_status my_param_literal(const struct my_param *prm, bool no_backslash_escapes, struct wbuf *out,
				const char **why)
{
	size_t start = out->len;
	enum my_status st;

	if (out->failed)
		return fail(why, "output buffer failed");
	st = literal(prm, no_backslash_escapes, out, why);
	if (out->failed)
		return fail(why, "out of memory for the parameter literal");
	if (st != MY_OK)
		out->len = start;
	return st;
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
	if (!plain_number(tmp))
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
	enum wire_kind kind = wire_kind(type, &fixed_len);
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
	case W_FIXED:
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
	case W_DATE: {
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
	case W_TIME: {
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
		return fail(why, "too many columns for a binary row");
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
			return fail(why, "column value does not parse for its binary type");
		}
	}
	my_end(b);
	return MY_OK;
}
