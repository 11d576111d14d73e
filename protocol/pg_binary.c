/*
 * pg_binary: binary values of the fixed built-in types as their text
 * (pg_binary.h). Layouts as the server's send functions write them: all
 * integers big-endian; dates in days and times in microseconds from
 * 2000-01-01; numerics in base-10000 digits.
 */
#include "protocol/pg_binary.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Type OIDs (pg_type.dat). */
enum {
	T_BOOL = 16,
	T_BYTEA = 17,
	T_NAME = 19,
	T_INT8 = 20,
	T_INT2 = 21,
	T_INT4 = 23,
	T_TEXT = 25,
	T_OID = 26,
	T_JSON = 114,
	T_FLOAT4 = 700,
	T_FLOAT8 = 701,
	T_BPCHAR = 1042,
	T_VARCHAR = 1043,
	T_DATE = 1082,
	T_TIME = 1083,
	T_TIMESTAMP = 1114,
	T_TIMESTAMPTZ = 1184,
	T_INTERVAL = 1186,
	T_NUMERIC = 1700,
	T_UUID = 2950,
	T_JSONB = 3802,
};

#define USECS_PER_DAY INT64_C(86400000000)
/* 2000-01-01 counted in days from 1970-01-01. */
#define EPOCH_2000_DAYS 10957
/* The numeric sign words, and the most digits after the point a numeric carries. */
#define NUMERIC_POS 0x0000
#define NUMERIC_NEG 0x4000
#define NUMERIC_NAN 0xC000
#define NUMERIC_PINF 0xD000
#define NUMERIC_NINF 0xF000
#define NUMERIC_MAX_DSCALE 0x3FFF

bool pg_binary_known(uint32_t t)
{
	switch (t) {
	case T_BOOL:
	case T_BYTEA:
	case T_NAME:
	case T_INT8:
	case T_INT2:
	case T_INT4:
	case T_TEXT:
	case T_OID:
	case T_JSON:
	case T_FLOAT4:
	case T_FLOAT8:
	case T_BPCHAR:
	case T_VARCHAR:
	case T_DATE:
	case T_TIME:
	case T_TIMESTAMP:
	case T_TIMESTAMPTZ:
	case T_INTERVAL:
	case T_NUMERIC:
	case T_UUID:
	case T_JSONB:
		return true;
	default:
		return false;
	}
}

static uint64_t be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put(struct wbuf *out, const char *s)
{
	wbuf_put_str(out, s);
}

/* Strict UTF-8 (RFC 3629) with no NUL. */
static bool utf8_ok(const uint8_t *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint8_t c = s[i];
		size_t n;
		uint32_t cp, min;

		if (c == 0)
			return false;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xE0) == 0xC0)
			n = 2, cp = c & 0x1F, min = 0x80;
		else if ((c & 0xF0) == 0xE0)
			n = 3, cp = c & 0x0F, min = 0x800;
		else if ((c & 0xF8) == 0xF0)
			n = 4, cp = c & 0x07, min = 0x10000;
		else
			return false;
		if (len - i < n)
			return false;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += n;
	}
	return true;
}

/* floor(a / b) and its remainder, for b > 0. */
static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
	int64_t q = a / b, r = a % b;

	if (r < 0) {
		q--;
		r += b;
	}
	*rem = r;
	return q;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (y astronomical: 0 is 1 BC). */
static void civil(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp, rem;

	days += 719468; /* from 0000-03-01 */
	era = floor_div(days, 146097, &rem);
	doe = rem;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* "YYYY-MM-DD" of days from 2000-01-01; " BC" is put by the caller after any time. */
static bool put_date(struct wbuf *out, int64_t days2000, bool *bc)
{
	char buf[48];
	int64_t y;
	int m, d;

	civil(days2000 + EPOCH_2000_DAYS, &y, &m, &d);
	*bc = y <= 0;
	snprintf(buf, sizeof(buf), "%04" PRId64 "-%02d-%02d", *bc ? 1 - y : y, m, d);
	put(out, buf);
	return true;
}

/* "HH:MM:SS[.ffffff]" of microseconds in a day (0 to 24:00:00). */
static void put_time(struct wbuf *out, int64_t us)
{
	char buf[48];
	int64_t s = us / 1000000, frac = us % 1000000;
	int n;

	n = snprintf(buf, sizeof(buf), "%02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s / 60 % 60, s % 60);
	if (frac) {
		snprintf(buf + n, sizeof(buf) - (size_t)n, ".%06" PRId64, frac);
		for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
			*e = '\0';
	}
	put(out, buf);
}

static enum pg_binary_result timestamp(struct wbuf *out, const uint8_t *v, size_t len, bool tz)
{
	int64_t us, rem, days;
	bool bc;

	if (len != 8)
		return PG_BINARY_MALFORMED;
	us = (int64_t)be(v, 8);
	if (us == INT64_MAX || us == INT64_MIN) {
		put(out, us == INT64_MAX ? "infinity" : "-infinity");
		return PG_BINARY_OK;
	}
	days = floor_div(us, USECS_PER_DAY, &rem);
	put_date(out, days, &bc);
	put(out, " ");
	put_time(out, rem);
	if (tz)
		put(out, "+00");
	if (bc)
		put(out, " BC");
	return PG_BINARY_OK;
}

static enum pg_binary_result date(struct wbuf *out, const uint8_t *v, size_t len)
{
	int32_t days;
	bool bc;

	if (len != 4)
		return PG_BINARY_MALFORMED;
	days = (int32_t)(uint32_t)be(v, 4);
	if (days == INT32_MAX || days == INT32_MIN) {
		put(out, days == INT32_MAX ? "infinity" : "-infinity");
		return PG_BINARY_OK;
	}
	put_date(out, days, &bc);
	if (bc)
		put(out, " BC");
	return PG_BINARY_OK;
}

static void put_double(struct wbuf *out, double d, int digits)
{
	char buf[64];

	if (isnan(d))
		put(out, "NaN");
	else if (isinf(d))
		put(out, d > 0 ? "Infinity" : "-Infinity");
	else {
		snprintf(buf, sizeof(buf), "%.*g", digits, d);
		put(out, buf);
	}
}

static enum pg_binary_result numeric(struct wbuf *out, const uint8_t *v, size_t len)
{
	int ndigits, weight, dscale, sign;
	char group[8];

	if (len < 8)
		return PG_BINARY_MALFORMED;
	ndigits = (int16_t)(uint16_t)be(v, 2);
	weight = (int16_t)(uint16_t)be(v + 2, 2);
	sign = (int)be(v + 4, 2);
	dscale = (int)be(v + 6, 2);
	if (ndigits < 0 || len != 8 + 2 * (size_t)ndigits || dscale > NUMERIC_MAX_DSCALE)
		return PG_BINARY_MALFORMED;
	if (sign == NUMERIC_NAN || sign == NUMERIC_PINF || sign == NUMERIC_NINF) {
		if (ndigits != 0)
			return PG_BINARY_MALFORMED;
		put(out, sign == NUMERIC_NAN ? "NaN" : sign == NUMERIC_PINF ? "Infinity" : "-Infinity");
		return PG_BINARY_OK;
	}
	if (sign != NUMERIC_POS && sign != NUMERIC_NEG)
		return PG_BINARY_MALFORMED;
	for (int i = 0; i < ndigits; i++)
		if (be(v + 8 + 2 * i, 2) > 9999)
			return PG_BINARY_MALFORMED;
	if (sign == NUMERIC_NEG)
		put(out, "-");
	/* The integer part: the digits of weight 0 and up (10000^weight first). */
	if (weight < 0) {
		put(out, "0");
	} else {
		for (int i = 0; i <= weight; i++) {
			int d = i < ndigits ? (int)be(v + 8 + 2 * i, 2) : 0;

			snprintf(group, sizeof(group), i ? "%04d" : "%d", d);
			put(out, group);
		}
	}
	/* dscale digits after the point, four from each digit of negative weight. */
	if (dscale > 0) {
		int left = dscale;

		put(out, ".");
		for (int w = -1; left > 0; w--) {
			int i = weight - w, d;

			d = i >= 0 && i < ndigits ? (int)be(v + 8 + 2 * i, 2) : 0;
			snprintf(group, sizeof(group), "%04d", d);
			wbuf_put_bytes(out, group, left < 4 ? (size_t)left : 4);
			left -= 4;
		}
	}
	return PG_BINARY_OK;
}

static enum pg_binary_result interval(struct wbuf *out, const uint8_t *v, size_t len)
{
	char buf[128];

	if (len != 16)
		return PG_BINARY_MALFORMED;
	snprintf(buf, sizeof(buf), "%" PRId32 " mons %" PRId32 " days %" PRId64 " microseconds",
		 (int32_t)(uint32_t)be(v + 12, 4), (int32_t)(uint32_t)be(v + 8, 4), (int64_t)be(v, 8));
	put(out, buf);
	return PG_BINARY_OK;
}

static enum pg_binary_result convert(uint32_t t, const uint8_t *v, size_t len, struct wbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	char buf[64];

	switch (t) {
	case T_BOOL:
		if (len != 1 || v[0] > 1)
			return PG_BINARY_MALFORMED;
		put(out, v[0] ? "t" : "f");
		return PG_BINARY_OK;
	case T_INT2:
	case T_INT4:
	case T_INT8:
		if (len != (t == T_INT2 ? 2u : t == T_INT4 ? 4u : 8u))
			return PG_BINARY_MALFORMED;
		snprintf(buf, sizeof(buf), "%" PRId64,
			 t == T_INT2   ? (int64_t)(int16_t)(uint16_t)be(v, 2)
			 : t == T_INT4 ? (int64_t)(int32_t)(uint32_t)be(v, 4)
				       : (int64_t)be(v, 8));
		put(out, buf);
		return PG_BINARY_OK;
	case T_OID:
		if (len != 4)
			return PG_BINARY_MALFORMED;
		snprintf(buf, sizeof(buf), "%" PRIu32, (uint32_t)be(v, 4));
		put(out, buf);
		return PG_BINARY_OK;
	case T_FLOAT4: {
		uint32_t bits;
		float f;

		if (len != 4)
			return PG_BINARY_MALFORMED;
		bits = (uint32_t)be(v, 4);
		memcpy(&f, &bits, sizeof(f));
		put_double(out, f, 9);
		return PG_BINARY_OK;
	}
	case T_FLOAT8: {
		uint64_t bits;
		double d;

		if (len != 8)
			return PG_BINARY_MALFORMED;
		bits = be(v, 8);
		memcpy(&d, &bits, sizeof(d));
		put_double(out, d, 17);
		return PG_BINARY_OK;
	}
	case T_TEXT:
	case T_NAME:
	case T_BPCHAR:
	case T_VARCHAR:
	case T_JSON:
		if (!utf8_ok(v, len))
			return PG_BINARY_MALFORMED;
		wbuf_put_bytes(out, v, len);
		return PG_BINARY_OK;
	case T_JSONB:
		if (len < 1 || v[0] != 1 || !utf8_ok(v + 1, len - 1))
			return PG_BINARY_MALFORMED;
		wbuf_put_bytes(out, v + 1, len - 1);
		return PG_BINARY_OK;
	case T_BYTEA:
		put(out, "\\x");
		for (size_t i = 0; i < len; i++) {
			wbuf_put_u8(out, (uint8_t)hex[v[i] >> 4]);
			wbuf_put_u8(out, (uint8_t)hex[v[i] & 15]);
		}
		return PG_BINARY_OK;
	case T_UUID:
		if (len != 16)
			return PG_BINARY_MALFORMED;
		for (size_t i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				wbuf_put_u8(out, '-');
			wbuf_put_u8(out, (uint8_t)hex[v[i] >> 4]);
			wbuf_put_u8(out, (uint8_t)hex[v[i] & 15]);
		}
		return PG_BINARY_OK;
	case T_DATE:
		return date(out, v, len);
	case T_TIME: {
		int64_t us;

		if (len != 8 || (us = (int64_t)be(v, 8)) < 0 || us > USECS_PER_DAY)
			return PG_BINARY_MALFORMED;
		put_time(out, us);
		return PG_BINARY_OK;
	}
	case T_TIMESTAMP:
	case T_TIMESTAMPTZ:
		return timestamp(out, v, len, t == T_TIMESTAMPTZ);
	case T_INTERVAL:
		return interval(out, v, len);
	case T_NUMERIC:
		return numeric(out, v, len);
	default:
		return PG_BINARY_UNKNOWN_TYPE;
	}
}

enum pg_binary_result pg_binary_to_text(uint32_t type_oid, const uint8_t *v, size_t len, struct wbuf *out)
{
	size_t at = out->len;
	bool failed = out->failed;
	enum pg_binary_result r;

	if (!pg_binary_known(type_oid))
		return PG_BINARY_UNKNOWN_TYPE;
	if (!v && len)
		return PG_BINARY_MALFORMED;
	r = convert(type_oid, v ? v : (const uint8_t *)"", len, out);
	if (r != PG_BINARY_OK) {
		out->len = at;
		out->failed = failed;
	}
	return r;
}
