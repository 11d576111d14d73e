/*
 * my_literal: a bound parameter of COM_STMT_EXECUTE as SQL literal text
 * (my_param_literal, documented in my_stmt.h). Pure: no I/O, no
 * allocation except the growth of the caller's wbuf; a value that does not
 * fit its type is refused with a reason and the buffer left as it was.
 */
#include "protocol/my_stmt.h"
#include "protocol/my_stmt_wire.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_POW_53 9007199254740992.0

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
/* Shortest text that reads back as v (float when is_float). */
static enum my_status put_float_text(struct wbuf *b, double v, bool is_float, const char **why)
{
	char tmp[48];
	int prec, max = is_float ? 9 : 17;

	if (v != v || v > DBL_MAX || v < -DBL_MAX)
		return my_fail(why, "NaN or infinite floating point parameter");
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
	if (!my_plain_number(tmp))
		return my_fail(why, "floating point parameter did not format");
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

/* _charset X'hex': the string s under NO_BACKSLASH_ESCAPES, where no escape can write its NUL. */
static enum my_status put_hex_string(struct wbuf *b, const uint8_t *s, size_t n, const char *charset, const char **why)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t cl = charset ? strlen(charset) : 0;

	if (cl == 0 || cl > 32 || strspn(charset, "abcdefghijklmnopqrstuvwxyz0123456789") != cl)
		return my_fail(why, "NUL byte in a string parameter under NO_BACKSLASH_ESCAPES");
	my_put_u8(b, '_');
	my_put_bytes(b, charset, cl);
	my_put_bytes(b, " X'", 3);
	for (size_t i = 0; i < n; i++) {
		char two[2] = {digits[s[i] >> 4], digits[s[i] & 15]};

		my_put_bytes(b, two, 2);
	}
	my_put_u8(b, '\'');
	return MY_OK;
}

static enum my_status put_quoted(struct wbuf *b, const uint8_t *s, size_t n, bool nbe, const char *nul_charset,
				 const char **why)
{
	size_t i, run = 0;

	if (nbe && memchr(s, 0, n))
		return put_hex_string(b, s, n, nul_charset, why);
	my_put_u8(b, '\'');
	for (i = 0; i < n; i++) {
		const char *esc = NULL;

		if (s[i] == '\'')
			esc = "''";
		else if (s[i] == '\\' && !nbe)
			esc = "\\\\";
		else if (s[i] == 0)
			esc = "\\0";
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
		return my_fail(why, "bad date parameter length");
	rbuf_init(&r, v, n);
	if ((n >= 4 && (!rbuf_get_le16(&r, &y16) || !get_byte(&r, &mon) || !get_byte(&r, &day))) ||
	    (n >= 7 && (!get_byte(&r, &hh) || !get_byte(&r, &mm) || !get_byte(&r, &ss))) ||
	    (n == 11 && !rbuf_get_le32(&r, &us)))
		return my_fail(why, "bad date parameter length");
	year = y16;
	if (year > 9999 || mon > 12 || day > 31 || hh > 23 || mm > 59 || ss > 59 || us > 999999)
		return my_fail(why, "date parameter out of range");
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
		return my_fail(why, "bad time parameter length");
	rbuf_init(&r, v, n);
	if (n >= 8) {
		if (!get_byte(&r, &sign) || !rbuf_get_le32(&r, &days) || !get_byte(&r, &hh) || !get_byte(&r, &mm) ||
		    !get_byte(&r, &ss))
			return my_fail(why, "bad time parameter length");
		if (sign > 1)
			return my_fail(why, "bad time parameter sign");
		neg = sign == 1;
		hours = (unsigned long long)days * 24u + hh;
	}
	if (n == 12 && !rbuf_get_le32(&r, &us))
		return my_fail(why, "bad time parameter length");
	if (hh > 23 || mm > 59 || ss > 59 || us > 999999)
		return my_fail(why, "time parameter out of range");
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
		return my_fail(why, "bad integer parameter length");
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
		return my_fail(why, "bad integer parameter length");
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
		return my_fail(why, is_float ? "bad FLOAT parameter length" : "bad DOUBLE parameter length");
	if (!is_float) {
		memcpy(&d, &bits64, sizeof(d));
		return put_float_text(out, d, false, why);
	}
	memcpy(&f, &bits32, sizeof(f));
	return put_float_text(out, (double)f, true, why);
}

static enum my_status literal(const struct my_param *prm, bool nbe, const char *nul_charset, struct wbuf *out,
			      const char **why)
{
	size_t fixed_len;
	enum my_wire_kind kind;

	if (prm->is_null || prm->type == MY_TYPE_NULL) {
		put_str(out, "NULL");
		return MY_OK;
	}
	kind = my_wire_kind(prm->type, &fixed_len);
	if (kind == MY_W_UNKNOWN)
		return my_fail(why, "unsupported parameter type");
	if (!prm->value && prm->len)
		return my_fail(why, "parameter without a value");
	switch (prm->type) {
	case MY_TYPE_FLOAT:
	case MY_TYPE_DOUBLE:
		return put_float_param(out, prm, prm->type == MY_TYPE_FLOAT, why);
	case MY_TYPE_DECIMAL:
	case MY_TYPE_NEWDECIMAL:
		if (!decimal_text(prm->value, prm->len))
			return my_fail(why, "malformed DECIMAL parameter");
		my_put_bytes(out, prm->value, prm->len);
		return MY_OK;
	default:
		break;
	}
	switch (kind) {
	case MY_W_FIXED:
		return put_int_param(out, prm, fixed_len, why);
	case MY_W_DATE:
		return put_date(out, prm->value, prm->len, why);
	case MY_W_TIME:
		return put_time(out, prm->value, prm->len, why);
	default:
		return put_quoted(out, prm->value, prm->len, nbe, nul_charset, why);
	}
}

enum my_status my_param_literal(const struct my_param *prm, bool no_backslash_escapes, const char *nul_charset,
				struct wbuf *out, const char **why)
{
	size_t start = out->len;
	enum my_status st;

	if (out->failed)
		return my_fail(why, "output buffer failed");
	st = literal(prm, no_backslash_escapes, nul_charset, out, why);
	if (out->failed)
		return my_fail(why, "out of memory for the parameter literal");
	if (st != MY_OK)
		out->len = start;
	return st;
}
