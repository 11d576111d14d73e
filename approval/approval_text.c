/*
 * approval_text: attacker-written text shown exactly and inertly (API and
 * what is marked in approval_text.h). One decoder, one table of marked
 * ranges and one classifier (next_unit) that every renderer loops over;
 * the renderers differ only in how they write a marker and what they
 * escape. Nothing here allocates but the caller's wbuf.
 */
#include "approval/approval_text.h"

#include "base/wbuf.h"

/* Sorted by lo, rows not overlapping (a unit test checks). */
static const struct approval_text_range marked[] = {
	{0x0000, 0x0008},   /* C0 controls before \t */
	{0x000B, 0x001F},   /* C0 controls after \n (\r, ESC, ...) */
	{0x007F, 0x007F},   /* DEL */
	{0x0080, 0x009F},   /* C1 controls */
	{0x00A0, 0x00A0},   /* no-break space */
	{0x00AD, 0x00AD},   /* soft hyphen */
	{0x034F, 0x034F},   /* combining grapheme joiner */
	{0x061C, 0x061C},   /* Arabic letter mark */
	{0x115F, 0x1160},   /* Hangul choseong and jungseong fillers */
	{0x1680, 0x1680},   /* Ogham space mark */
	{0x17B4, 0x17B5},   /* Khmer inherent vowels */
	{0x180B, 0x180D},   /* Mongolian free variation selectors 1-3 */
	{0x180E, 0x180E},   /* Mongolian vowel separator */
	{0x180F, 0x180F},   /* Mongolian free variation selector 4 */
	{0x2000, 0x200A},   /* en quad .. hair space */
	{0x200B, 0x200D},   /* zero-width space, non-joiner, joiner */
	{0x200E, 0x200F},   /* left-to-right and right-to-left marks */
	{0x2028, 0x2029},   /* line and paragraph separators */
	{0x202A, 0x202E},   /* bidi embeddings and overrides */
	{0x202F, 0x202F},   /* narrow no-break space */
	{0x205F, 0x205F},   /* medium mathematical space */
	{0x2060, 0x2064},   /* word joiner, invisible operators */
	{0x2065, 0x2065},   /* reserved, default ignorable */
	{0x2066, 0x2069},   /* bidi isolates */
	{0x206A, 0x206F},   /* deprecated format characters */
	{0x2800, 0x2800},   /* Braille pattern blank */
	{0x3000, 0x3000},   /* ideographic space */
	{0x3164, 0x3164},   /* Hangul filler */
	{0xFE00, 0xFE0F},   /* variation selectors 1-16 */
	{0xFEFF, 0xFEFF},   /* zero-width no-break space (BOM) */
	{0xFFA0, 0xFFA0},   /* halfwidth Hangul filler */
	{0xFFF0, 0xFFF8},   /* reserved, default ignorable */
	{0xFFF9, 0xFFFB},   /* interlinear annotation */
	{0x1BCA0, 0x1BCA3}, /* shorthand format controls */
	{0x1D173, 0x1D17A}, /* musical symbol format controls */
	{0xE0000, 0xE007F}, /* tag characters */
	{0xE0080, 0xE00FF}, /* reserved, default ignorable */
	{0xE0100, 0xE01EF}, /* variation selectors 17-256 */
	{0xE01F0, 0xE0FFF}, /* reserved, default ignorable */
};

#define N_MARKED (sizeof(marked) / sizeof(marked[0]))

const struct approval_text_range *approval_text_ranges(size_t *n)
{
	*n = N_MARKED;
	return marked;
}

bool approval_text_marked(uint32_t cp)
{
	size_t lo = 0, hi = N_MARKED;

	if (cp >= 0x20 && cp < 0x7F) /* printable ASCII: most of any statement */
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp < marked[mid].lo)
			hi = mid;
		else if (cp > marked[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

size_t approval_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range (RFC 3629) */
	size_t need, i;
	uint32_t v;

	if (len == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] < 0xC2) /* a continuation byte, or C0/C1: overlong */
		return 0;
	if (p[0] < 0xE0) {
		need = 2;
		v = p[0] & 0x1F;
	} else if (p[0] < 0xF0) {
		need = 3;
		v = p[0] & 0x0F;
		if (p[0] == 0xE0) /* overlong below U+0800 */
			lo = 0xA0;
		else if (p[0] == 0xED) /* surrogates */
			hi = 0x9F;
	} else if (p[0] < 0xF5) {
		need = 4;
		v = p[0] & 0x07;
		if (p[0] == 0xF0) /* overlong below U+10000 */
			lo = 0x90;
		else if (p[0] == 0xF4) /* above U+10FFFF */
			hi = 0x8F;
	} else {
		return 0;
	}
	if (len < need || p[1] < lo || p[1] > hi)
		return 0;
	v = (v << 6) | (p[1] & 0x3F);
	for (i = 2; i < need; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	*cp = v;
	return need;
}

enum unit_kind {
	UNIT_PLAIN,  /* valid UTF-8, not marked: cp and n bytes */
	UNIT_MARKED, /* valid UTF-8, marked: cp and n bytes */
	UNIT_BYTE,   /* one byte outside valid UTF-8: cp is the byte, n is 1 */
};

struct unit {
	enum unit_kind kind;
	uint32_t cp;
	size_t n;
};

/* The unit at s[0] (len > 0): the one place that decides what is marked. */
static struct unit next_unit(const char *s, size_t len)
{
	struct unit u;

	u.n = approval_utf8_decode(s, len, &u.cp);
	if (u.n == 0) {
		u.kind = UNIT_BYTE;
		u.cp = (unsigned char)s[0];
		u.n = 1;
	} else {
		u.kind = approval_text_marked(u.cp) ? UNIT_MARKED : UNIT_PLAIN;
	}
	return u;
}

/* v as digits upper-case hex digits. */
static void put_hex(struct wbuf *out, uint32_t v, int digits)
{
	static const char hex[] = "0123456789ABCDEF";
	char buf[8];
	int i;

	for (i = digits - 1; i >= 0; i--) {
		buf[i] = hex[v & 0xF];
		v >>= 4;
	}
	wbuf_put_bytes(out, buf, (size_t)digits);
}

/* "U+" and four to six hex digits. */
static void put_u_plus(struct wbuf *out, uint32_t cp)
{
	wbuf_put_str(out, "U+");
	put_hex(out, cp, cp > 0xFFFFF ? 6 : cp > 0xFFFF ? 5 : 4);
}

/* "\x" and two hex digits. */
static void put_byte_marker(struct wbuf *out, uint32_t b)
{
	wbuf_put_str(out, "\\x");
	put_hex(out, b, 2);
}

/* The HTML entity for one of & < > " ', or NULL. */
static const char *html_entity(uint32_t cp)
{
	switch (cp) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		return NULL;
	}
}

/* A plain unit in HTML (text or attribute): its entity or its bytes. */
static void put_html_plain(struct wbuf *out, const char *s, const struct unit *u)
{
	const char *e = html_entity(u->cp);

	if (e)
		wbuf_put_str(out, e);
	else
		wbuf_put_bytes(out, s, u->n);
}

bool approval_html_text(struct wbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && !out->failed) {
		struct unit u = next_unit(s + i, len - i);

		if (u.kind == UNIT_PLAIN) {
			put_html_plain(out, s + i, &u);
		} else {
			wbuf_put_str(out, "<span class=\"ch\">");
			if (u.kind == UNIT_MARKED)
				put_u_plus(out, u.cp);
			else
				put_byte_marker(out, u.cp);
			wbuf_put_str(out, "</span>");
		}
		i += u.n;
	}
	return !out->failed;
}

bool approval_html_attr(struct wbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && !out->failed) {
		struct unit u = next_unit(s + i, len - i);

		if (u.kind == UNIT_PLAIN) {
			put_html_plain(out, s + i, &u);
		} else if (u.kind == UNIT_BYTE) {
			put_byte_marker(out, u.cp);
		} else if (u.cp > 0xFFFF) {
			wbuf_put_str(out, "\\U");
			put_hex(out, u.cp, 8);
		} else {
			wbuf_put_str(out, "\\u");
			put_hex(out, u.cp, 4);
		}
		i += u.n;
	}
	return !out->failed;
}

bool approval_terminal_text(struct wbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && !out->failed) {
		struct unit u = next_unit(s + i, len - i);

		if (u.kind == UNIT_PLAIN) {
			wbuf_put_bytes(out, s + i, u.n);
		} else {
			wbuf_put_u8(out, '<');
			if (u.kind == UNIT_MARKED)
				put_u_plus(out, u.cp);
			else
				put_byte_marker(out, u.cp);
			wbuf_put_u8(out, '>');
		}
		i += u.n;
	}
	return !out->failed;
}

/* "\u" and four hex digits: one UTF-16 unit of a JSON escape. */
static void put_json_u(struct wbuf *out, uint32_t unit)
{
	wbuf_put_str(out, "\\u");
	put_hex(out, unit, 4);
}

/* The JSON escape for cp, as \uXXXX or a surrogate pair. */
static void put_json_escape(struct wbuf *out, uint32_t cp)
{
	if (cp > 0xFFFF) {
		cp -= 0x10000;
		put_json_u(out, 0xD800 | (cp >> 10));
		put_json_u(out, 0xDC00 | (cp & 0x3FF));
	} else {
		put_json_u(out, cp);
	}
}

/* The two-character JSON escape for cp, or NULL. */
static const char *json_short_escape(uint32_t cp)
{
	switch (cp) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	default:
		return NULL;
	}
}

/* Plain code points JSON still writes as \uXXXX so the literal can sit in HTML or a script. */
static bool json_hidden(uint32_t cp)
{
	return cp == '<' || cp == '>' || cp == '&' || cp == '\'';
}

bool approval_json_string(struct wbuf *out, const char *s, size_t len, bool *lossy)
{
	size_t i = 0;

	wbuf_put_u8(out, '"');
	while (i < len && !out->failed) {
		struct unit u = next_unit(s + i, len - i);
		const char *e = json_short_escape(u.cp);

		if (u.kind == UNIT_BYTE) {
			put_json_u(out, 0xFFFD);
			if (lossy)
				*lossy = true;
		} else if (e) {
			wbuf_put_str(out, e);
		} else if (u.kind == UNIT_MARKED || json_hidden(u.cp)) {
			put_json_escape(out, u.cp);
		} else {
			wbuf_put_bytes(out, s + i, u.n);
		}
		i += u.n;
	}
	wbuf_put_u8(out, '"');
	return !out->failed;
}

bool approval_text_suspicious(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		struct unit u = next_unit(s + i, len - i);

		if (u.kind != UNIT_PLAIN)
			return true;
		i += u.n;
	}
	return false;
}
