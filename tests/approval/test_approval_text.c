/*
 * approval_text: the decoder, the table of marked code points, each
 * renderer's exact output for every marked class, invalid UTF-8 and the
 * hostile text an approver sees, and an exhaustive property test over
 * every input of one, two and three bytes. Every buffer here is the
 * test's own; the module's outputs are freed with wbuf_free.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"

typedef bool (*render_fn)(struct wbuf *out, const char *s, size_t len);

/* Ranges that must stay marked: each class approval_text.h names, both ends. */
static const struct approval_text_range listed[] = {
	{0x0000, 0x0008}, {0x000B, 0x001F}, {0x007F, 0x007F}, {0x0080, 0x009F},   {0x061C, 0x061C}, {0x200E, 0x200F},
	{0x202A, 0x202E}, {0x2066, 0x2069}, {0x00AD, 0x00AD}, {0x034F, 0x034F},   {0x180E, 0x180E}, {0x200B, 0x200D},
	{0x2060, 0x2064}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0xE0000, 0xE007F}, {0xFE00, 0xFE0F}, {0xE0100, 0xE01EF},
	{0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},   {0x202F, 0x202F}, {0x205F, 0x205F},
	{0x3000, 0x3000}, {0x115F, 0x1160}, {0x3164, 0x3164}, {0xFFA0, 0xFFA0},
};

/* Code points that pass through: neighbours of marked ranges and ordinary letters. */
static const uint32_t unmarked[] = {
	'\t',   '\n',   ' ',    'A',    '~',    0x00A1,  0x00AC,  0x00AE,  0x00E9,  0x034E,  0x0350,  0x0627,  0x061B,
	0x061D, 0x115E, 0x1161, 0x167F, 0x1681, 0x17B3,  0x17B6,  0x180A,  0x1810,  0x1FFF,  0x2010,  0x2027,  0x2030,
	0x205E, 0x2070, 0x27FF, 0x2801, 0x2FFF, 0x3001,  0x3163,  0x3165,  0x4E2D,  0xFDFF,  0xFE10,  0xFEFE,  0xFF00,
	0xFF9F, 0xFFA1, 0xFFEF, 0xFFFC, 0xFFFD, 0x1BC9F, 0x1BCA4, 0x1D172, 0x1D17B, 0x1F600, 0xDFFFF, 0xE1000, 0x10FFFF,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* cp as UTF-8 into buf (4 bytes of room); its length. */
static size_t utf8_put(uint32_t cp, char *buf)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xC0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xE0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	buf[0] = (char)(0xF0 | (cp >> 18));
	buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	buf[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* A decoder written the other way round: decode by the bit pattern, then refuse what RFC 3629 forbids. */
static size_t ref_decode(const unsigned char *p, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t v, min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if ((p[0] & 0xE0) == 0xC0) {
		n = 2, v = p[0] & 0x1F, min = 0x80;
	} else if ((p[0] & 0xF0) == 0xE0) {
		n = 3, v = p[0] & 0x0F, min = 0x800;
	} else if ((p[0] & 0xF8) == 0xF0) {
		n = 4, v = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

/* Decodes exactly len bytes from a heap copy, so a read past len is a sanitizer error. */
static size_t decode_exact(const char *s, size_t len, uint32_t *cp)
{
	char *copy = malloc(len ? len : 1);
	size_t n;

	assert_non_null(copy);
	memcpy(copy, s, len);
	n = approval_utf8_decode(copy, len, cp);
	free(copy);
	return n;
}

static void test_decode(void **state)
{
	static const struct {
		const char *s;
		uint32_t cp;
		size_t n;
	} ok[] = {
		{"A", 'A', 1},
		{"\x7F", 0x7F, 1},
		{"\xC2\x80", 0x80, 2},
		{"\xDF\xBF", 0x7FF, 2},
		{"\xE0\xA0\x80", 0x800, 3},
		{"\xED\x9F\xBF", 0xD7FF, 3},
		{"\xEE\x80\x80", 0xE000, 3},
		{"\xEF\xBF\xBF", 0xFFFF, 3},
		{"\xF0\x90\x80\x80", 0x10000, 4},
		{"\xF4\x8F\xBF\xBF", 0x10FFFF, 4},
		{"\xC3\xA9Z", 0xE9, 2},
	};
	static const char *bad[] = {
		"\x80",
		"\xBF",
		"\xC0\x80",
		"\xC1\xBF",
		"\xE0\x80\x80",
		"\xE0\x9F\xBF",
		"\xED\xA0\x80",
		"\xED\xBF\xBF",
		"\xF0\x80\x80\x80",
		"\xF0\x8F\xBF\xBF",
		"\xF4\x90\x80\x80",
		"\xF5\x80\x80\x80",
		"\xF7\xBF\xBF\xBF",
		"\xF8\x88\x80\x80",
		"\xFC\x84\x80\x80\x80",
		"\xFE",
		"\xFF",
		"\xC3",
		"\xE2\x82",
		"\xF0\x9F\x98",
		"\xE2\x28\xA1",
		"\xF0\x9F\x28\x80",
		"\xC3\xC3",
	};
	uint32_t cp = 0;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(ok); i++) {
		assert_int_equal(decode_exact(ok[i].s, strlen(ok[i].s), &cp), ok[i].n);
		assert_int_equal(cp, ok[i].cp);
	}
	assert_int_equal(decode_exact("\0", 1, &cp), 1);
	assert_int_equal(cp, 0);
	for (i = 0; i < COUNT(bad); i++)
		assert_int_equal(decode_exact(bad[i], strlen(bad[i]), &cp), 0);
	/* A valid sequence cut short by len is a byte alone. */
	assert_int_equal(decode_exact("\xC3\xA9", 1, &cp), 0);
	assert_int_equal(decode_exact("\xF0\x9F\x98\x80", 3, &cp), 0);
	assert_int_equal(decode_exact("", 0, &cp), 0);
}

/* The decoder agrees with the reference on every input of up to three bytes and on four-byte edges. */
static void test_decode_reference(void **state)
{
	static const unsigned char edge[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
	unsigned char b[4];
	uint32_t v, a = 0, r = 0;
	size_t n, len;

	(void)state;
	for (len = 1; len <= 3; len++) {
		for (v = 0; v < (1u << (8 * len)); v++) {
			for (n = 0; n < len; n++)
				b[n] = (unsigned char)(v >> (8 * (len - 1 - n)));
			n = approval_utf8_decode((const char *)b, len, &a);
			assert_int_equal(n, ref_decode(b, len, &r));
			if (n)
				assert_int_equal(a, r);
		}
	}
	for (v = 0; v < 16 * 256 * COUNT(edge) * COUNT(edge); v++) {
		b[0] = (unsigned char)(0xF0 + v % 16);
		b[1] = (unsigned char)(v / 16 % 256);
		b[2] = edge[v / 4096 % COUNT(edge)];
		b[3] = edge[v / 4096 / COUNT(edge)];
		n = approval_utf8_decode((const char *)b, 4, &a);
		assert_int_equal(n, ref_decode(b, 4, &r));
		if (n)
			assert_int_equal(a, r);
	}
}

static bool linear_marked(const struct approval_text_range *t, size_t n, uint32_t cp)
{
	for (size_t i = 0; i < n; i++)
		if (cp >= t[i].lo && cp <= t[i].hi)
			return true;
	return false;
}

static void test_table(void **state)
{
	size_t n, i;
	const struct approval_text_range *t = approval_text_ranges(&n);
	uint32_t cp;

	(void)state;
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		assert_true(t[i].lo <= t[i].hi);
		assert_true(t[i].hi <= 0x10FFFF);
		assert_false(t[i].lo <= 0xDFFF && t[i].hi >= 0xD800);
		if (i > 0)
			assert_true(t[i - 1].hi < t[i].lo);
		assert_true(approval_text_marked(t[i].lo));
		assert_true(approval_text_marked(t[i].hi));
		assert_true(approval_text_marked(t[i].lo + (t[i].hi - t[i].lo) / 2));
		if (t[i].lo > 0 && !(i > 0 && t[i - 1].hi == t[i].lo - 1))
			assert_false(approval_text_marked(t[i].lo - 1));
		if (!(i + 1 < n && t[i + 1].lo == t[i].hi + 1))
			assert_false(approval_text_marked(t[i].hi + 1));
	}
	for (i = 0; i < COUNT(listed); i++) {
		assert_true(approval_text_marked(listed[i].lo));
		assert_true(approval_text_marked(listed[i].hi));
	}
	for (i = 0; i < COUNT(unmarked); i++)
		assert_false(approval_text_marked(unmarked[i]));
	for (cp = 0; cp <= 0x10FFFF; cp++)
		assert_int_equal(approval_text_marked(cp), linear_marked(t, n, cp));
}

/* f's output for len bytes of in is want. */
static void expect(render_fn f, const char *in, size_t len, const char *want)
{
	struct wbuf w;

	wbuf_init(&w);
	assert_true(f(&w, in, len));
	assert_null(memchr(w.data ? (const char *)w.data : "", '\0', w.len));
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	assert_string_equal((const char *)w.data, want);
	wbuf_free(&w);
}

#define EXPECT(f, lit, want) expect(f, lit, sizeof(lit) - 1, want)

/* JSON's output is want, lossy as said, and reads back (jansson) as in, or as in with U+FFFD for each bad byte. */
static void expect_json(const char *in, size_t len, const char *want, bool want_lossy)
{
	struct wbuf w, back;
	bool lossy = false;
	json_t *j;
	size_t i = 0;
	uint32_t cp;
	char u[4];

	wbuf_init(&w);
	wbuf_init(&back);
	assert_true(approval_json_string(&w, in, len, &lossy));
	assert_int_equal(lossy, want_lossy);
	assert_int_equal(w.len, strlen(want));
	assert_memory_equal(w.data, want, w.len);
	while (i < len) {
		size_t n = approval_utf8_decode(in + i, len - i, &cp);

		if (n)
			wbuf_put_bytes(&back, in + i, n);
		else
			wbuf_put_bytes(&back, u, utf8_put(0xFFFD, u));
		i += n ? n : 1;
	}
	j = json_loadb((const char *)w.data, w.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	assert_non_null(j);
	assert_true(json_is_string(j));
	assert_int_equal(json_string_length(j), back.len);
	assert_memory_equal(json_string_value(j), back.len ? (const char *)back.data : "", back.len);
	json_decref(j);
	wbuf_free(&back);
	wbuf_free(&w);
}

#define EXPECT_JSON(lit, want, lossy) expect_json(lit, sizeof(lit) - 1, want, lossy)

/* Every listed range's ends, in every form. */
static void test_each_class(void **state)
{
	char in[4], want[64];
	size_t i, n;
	int end;

	(void)state;
	for (i = 0; i < COUNT(listed); i++) {
		for (end = 0; end < 2; end++) {
			uint32_t cp = end ? listed[i].hi : listed[i].lo;
			uint32_t c = cp - 0x10000;

			n = utf8_put(cp, in);
			assert_true(approval_text_suspicious(in, n));
			snprintf(want, sizeof(want), "<span class=\"ch\">U+%04X</span>", (unsigned)cp);
			expect(approval_html_text, in, n, want);
			snprintf(want, sizeof(want), "<U+%04X>", (unsigned)cp);
			expect(approval_terminal_text, in, n, want);
			if (cp > 0xFFFF) {
				snprintf(want, sizeof(want), "\\U%08X", (unsigned)cp);
				expect(approval_html_attr, in, n, want);
				snprintf(want, sizeof(want), "\"\\u%04X\\u%04X\"", (unsigned)(0xD800 | (c >> 10)),
					 (unsigned)(0xDC00 | (c & 0x3FF)));
			} else {
				snprintf(want, sizeof(want), "\\u%04X", (unsigned)cp);
				expect(approval_html_attr, in, n, want);
				if (cp == '\b' || cp == '\f' || cp == '\r')
					snprintf(want, sizeof(want), "\"\\%c\"",
						 cp == '\b'   ? 'b'
						 : cp == '\f' ? 'f'
							      : 'r');
				else
					snprintf(want, sizeof(want), "\"\\u%04X\"", (unsigned)cp);
			}
			expect_json(in, n, want, false);
		}
	}
}

#define SPAN(x) "<span class=\"ch\">" x "</span>"

static void test_html_controls(void **state)
{
	(void)state;
	EXPECT(approval_html_text, "", "");
	EXPECT(approval_html_text, "a\tb\nc", "a\tb\nc");
	EXPECT(approval_html_text, "a\r\nb", "a" SPAN("U+000D") "\nb");
	EXPECT(approval_html_text, "a\0b", "a" SPAN("U+0000") "b");
	EXPECT(approval_html_text, "\0\0", SPAN("U+0000") SPAN("U+0000"));
	EXPECT(approval_html_text, "\x1B[31mred", SPAN("U+001B") "[31mred");
	EXPECT(approval_html_text, "x\x7Fy", "x" SPAN("U+007F") "y");
	EXPECT(approval_html_text, "\xC2\x85\xC2\x9B", SPAN("U+0085") SPAN("U+009B"));
	EXPECT(approval_html_text,
	       "a\xC2\xA0"
	       "b",
	       "a" SPAN("U+00A0") "b");
	EXPECT(approval_html_text, "pass\xE2\x80\x8Bword", "pass" SPAN("U+200B") "word");
	EXPECT(approval_html_text, "\xEF\xBB\xBFSELECT", SPAN("U+FEFF") "SELECT");
	EXPECT(approval_html_text, "\xF3\xA0\x80\x81\xF3\xA0\x81\xBF", SPAN("U+E0001") SPAN("U+E007F"));
	EXPECT(approval_html_text, "\xE3\x85\xA4", SPAN("U+3164"));
}

static void test_html_invalid(void **state)
{
	(void)state;
	EXPECT(approval_html_text, "\x80", SPAN("\\x80"));
	EXPECT(approval_html_text,
	       "a\xBF"
	       "b",
	       "a" SPAN("\\xBF") "b");
	EXPECT(approval_html_text, "\xC0\x80", SPAN("\\xC0") SPAN("\\x80"));
	EXPECT(approval_html_text, "\xC1\xBF", SPAN("\\xC1") SPAN("\\xBF"));
	EXPECT(approval_html_text, "\xE0\x80\xAF", SPAN("\\xE0") SPAN("\\x80") SPAN("\\xAF"));
	EXPECT(approval_html_text, "\xE0\x81\x9C", SPAN("\\xE0") SPAN("\\x81") SPAN("\\x9C"));
	EXPECT(approval_html_text, "\xED\xA0\x80", SPAN("\\xED") SPAN("\\xA0") SPAN("\\x80"));
	EXPECT(approval_html_text, "\xF0\x80\x80\xAF", SPAN("\\xF0") SPAN("\\x80") SPAN("\\x80") SPAN("\\xAF"));
	EXPECT(approval_html_text, "\xF4\x90\x80\x80", SPAN("\\xF4") SPAN("\\x90") SPAN("\\x80") SPAN("\\x80"));
	EXPECT(approval_html_text, "\xF5\xF8\xFC\xFE\xFF",
	       SPAN("\\xF5") SPAN("\\xF8") SPAN("\\xFC") SPAN("\\xFE") SPAN("\\xFF"));
	/* Truncated at the end of the buffer. */
	EXPECT(approval_html_text, "x\xC3", "x" SPAN("\\xC3"));
	EXPECT(approval_html_text, "x\xE2\x82", "x" SPAN("\\xE2") SPAN("\\x82"));
	EXPECT(approval_html_text, "x\xF0\x9F\x98", "x" SPAN("\\xF0") SPAN("\\x9F") SPAN("\\x98"));
	/* Truncated before more text: the text after is kept. */
	EXPECT(approval_html_text, "\xE2\x82<", SPAN("\\xE2") SPAN("\\x82") "&lt;");
	EXPECT(approval_html_text, "\xC3\xC3\xA9", SPAN("\\xC3") "\xC3\xA9");
}

static void test_html_hostile(void **state)
{
	(void)state;
	EXPECT(approval_html_text, "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	EXPECT(approval_html_text, "\"><img src=x onerror=alert(1)>", "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
	EXPECT(approval_html_text, "javascript:alert('x')", "javascript:alert(&#39;x&#39;)");
	EXPECT(approval_html_text, "</textarea><b>", "&lt;/textarea&gt;&lt;b&gt;");
	EXPECT(approval_html_text, "&lt;", "&amp;lt;");
	EXPECT(approval_html_text, "&#x3C;&amp;", "&amp;#x3C;&amp;amp;");
	EXPECT(approval_html_text, "<span class=\"ch\">U+202E</span>",
	       "&lt;span class=&quot;ch&quot;&gt;U+202E&lt;/span&gt;");
	EXPECT(approval_html_text, "UPDATE t SET a = 'x' WHERE id < 3 AND b > 2",
	       "UPDATE t SET a = &#39;x&#39; WHERE id &lt; 3 AND b &gt; 2");
	assert_false(approval_text_suspicious("<script>alert(1)</script>", 25));
}

/* The Trojan Source shape: overrides and isolates that reorder what is shown. */
static void test_trojan_source(void **state)
{
	static const char in[] =
		"/* \xE2\x80\xAE } \xE2\x81\xA6if (admin)\xE2\x81\xA9 \xE2\x81\xA6 begin admins only */";

	(void)state;
	EXPECT(approval_html_text, in,
	       "/* " SPAN("U+202E") " } " SPAN("U+2066") "if (admin)" SPAN("U+2069") " " SPAN(
		       "U+2066") " begin admins only */");
	EXPECT(approval_terminal_text, in, "/* <U+202E> } <U+2066>if (admin)<U+2069> <U+2066> begin admins only */");
	EXPECT(approval_html_attr, in, "/* \\u202E } \\u2066if (admin)\\u2069 \\u2066 begin admins only */");
	EXPECT_JSON(in, "\"/* \\u202E } \\u2066if (admin)\\u2069 \\u2066 begin admins only */\"", false);
	assert_true(approval_text_suspicious(in, sizeof(in) - 1));
	/* An Arabic letter mark hidden between Latin letters. */
	EXPECT(approval_html_text, "adm\xD8\x9Cin", "adm" SPAN("U+061C") "in");
}

static void test_other_scripts(void **state)
{
	static const char *same[] = {
		"\xE4\xB8\xAD\xE6\x96\x87 SELECT",                  /* Chinese */
		"\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7",         /* Arabic letters, no bidi control */
		"\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D",                 /* Hebrew letters */
		"\xF0\x9F\x98\x80\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7", /* an emoji and a flag */
		"caf\xC3\xA9 cafe\xCC\x81",                         /* precomposed and combining accents */
		"\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82", /* Cyrillic */
		"\xEF\xBF\xBD\xF4\x8F\xBF\xBF",                     /* U+FFFD and U+10FFFF are shown as they are */
	};
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(same); i++) {
		size_t n = strlen(same[i]);

		assert_false(approval_text_suspicious(same[i], n));
		expect(approval_html_text, same[i], n, same[i]);
		expect(approval_html_attr, same[i], n, same[i]);
		expect(approval_terminal_text, same[i], n, same[i]);
	}
	/* A variation selector or a joiner inside an emoji is still marked. */
	EXPECT(approval_html_text, "\xE2\x9D\xA4\xEF\xB8\x8F", "\xE2\x9D\xA4" SPAN("U+FE0F"));
	EXPECT(approval_terminal_text, "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9",
	       "\xF0\x9F\x91\xA8<U+200D>\xF0\x9F\x91\xA9");
}

static void test_attr(void **state)
{
	(void)state;
	EXPECT(approval_html_attr, "", "");
	EXPECT(approval_html_attr, "waaaaaaaaaaaaaaaaaaa7", "waaaaaaaaaaaaaaaaaaa7");
	EXPECT(approval_html_attr, "\"><script>x</script>", "&quot;&gt;&lt;script&gt;x&lt;/script&gt;");
	EXPECT(approval_html_attr, "' onmouseover='alert(1)", "&#39; onmouseover=&#39;alert(1)");
	EXPECT(approval_html_attr, "a&b", "a&amp;b");
	EXPECT(approval_html_attr, "w\xE2\x80\xAE", "w\\u202E");
	EXPECT(approval_html_attr, "a\0b\r", "a\\u0000b\\u000D");
	EXPECT(approval_html_attr, "\xF3\xA0\x80\x81", "\\U000E0001");
	EXPECT(approval_html_attr, "\xFF\xC0\x80", "\\xFF\\xC0\\x80");
	EXPECT(approval_html_attr, "a\tb\nc", "a\tb\nc");
}

static void test_terminal(void **state)
{
	(void)state;
	EXPECT(approval_terminal_text, "", "");
	EXPECT(approval_terminal_text, "SELECT 1 < 2 & 'x'", "SELECT 1 < 2 & 'x'");
	EXPECT(approval_terminal_text, "\x1B]0;pwned\x07", "<U+001B>]0;pwned<U+0007>");
	EXPECT(approval_terminal_text, "\x1B[2J\x1B[H", "<U+001B>[2J<U+001B>[H");
	EXPECT(approval_terminal_text,
	       "\xC2\x9B"
	       "2J",
	       "<U+009B>2J");
	EXPECT(approval_terminal_text,
	       "\x9B"
	       "2J",
	       "<\\x9B>2J");
	EXPECT(approval_terminal_text, "a\r\n\tb\b", "a<U+000D>\n\tb<U+0008>");
	EXPECT(approval_terminal_text, "a\0b\x7F", "a<U+0000>b<U+007F>");
	EXPECT(approval_terminal_text, "x\xE2\x82", "x<\\xE2><\\x82>");
	/* Text that looks like a marker is shown as typed, and is not suspicious. */
	EXPECT(approval_terminal_text, "<U+202E>", "<U+202E>");
	assert_false(approval_text_suspicious("<U+202E>", 8));
}

static void test_json(void **state)
{
	bool lossy;

	(void)state;
	EXPECT_JSON("", "\"\"", false);
	EXPECT_JSON("a\"b\\c", "\"a\\\"b\\\\c\"", false);
	EXPECT_JSON("\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"", false);
	EXPECT_JSON("\x01\x1B\x7F", "\"\\u0001\\u001B\\u007F\"", false);
	EXPECT_JSON("a\0b", "\"a\\u0000b\"", false);
	EXPECT_JSON("</script><!--", "\"\\u003C/script\\u003E\\u003C!--\"", false);
	EXPECT_JSON("it's & co", "\"it\\u0027s \\u0026 co\"", false);
	EXPECT_JSON("\xE2\x80\xA8\xE2\x80\xA9", "\"\\u2028\\u2029\"", false);
	EXPECT_JSON("\xC2\x85", "\"\\u0085\"", false);
	EXPECT_JSON("\xF3\xA0\x80\x81", "\"\\uDB40\\uDC01\"", false);
	EXPECT_JSON("\xE4\xB8\xAD\xF0\x9F\x98\x80", "\"\xE4\xB8\xAD\xF0\x9F\x98\x80\"", false);
	EXPECT_JSON("a\xFF"
		    "b",
		    "\"a\\uFFFDb\"", true);
	EXPECT_JSON("\xC0\x80", "\"\\uFFFD\\uFFFD\"", true);
	EXPECT_JSON("\xED\xA0\x80", "\"\\uFFFD\\uFFFD\\uFFFD\"", true);
	EXPECT_JSON("x\xF0\x9F\x98", "\"x\\uFFFD\\uFFFD\\uFFFD\"", true);
	/* lossy is only ever set, never cleared, and may be NULL. */
	lossy = true;
	{
		struct wbuf w;

		wbuf_init(&w);
		assert_true(approval_json_string(&w, "ok", 2, &lossy));
		assert_true(lossy);
		assert_true(approval_json_string(&w, "\xFF", 1, NULL));
		wbuf_put_u8(&w, 0);
		assert_string_equal((const char *)w.data, "\"ok\"\"\\uFFFD\"");
		wbuf_free(&w);
	}
}

static void test_suspicious(void **state)
{
	(void)state;
	assert_false(approval_text_suspicious(NULL, 0));
	assert_false(approval_text_suspicious("", 0));
	assert_false(approval_text_suspicious("UPDATE t SET a = 1\n\tWHERE b = 2", 31));
	assert_true(approval_text_suspicious("a\0b", 3));
	assert_true(approval_text_suspicious("a\rb", 3));
	assert_true(approval_text_suspicious("\xFF", 1));
	assert_true(approval_text_suspicious("ok\xE2\x82", 4));
	assert_true(approval_text_suspicious("\xC2\xA0", 2));
	assert_false(approval_text_suspicious("\xC2\xA1", 2));
}

/* A failed wbuf stays failed: every renderer says so and writes nothing more. */
static void test_failed_wbuf(void **state)
{
	struct wbuf w;
	bool lossy = false;

	(void)state;
	wbuf_init(&w);
	wbuf_put_str(&w, "x");
	w.failed = true;
	assert_false(approval_html_text(&w, "<a>", 3));
	assert_false(approval_html_attr(&w, "<a>", 3));
	assert_false(approval_terminal_text(&w, "a", 1));
	assert_false(approval_json_string(&w, "\xFF", 1, &lossy));
	assert_int_equal(w.len, 1);
	wbuf_reset(&w);
	wbuf_begin(&w, 16);
	assert_false(approval_html_text(&w, "\x01\x02\x03", 3));
	assert_true(w.len <= 16);
	wbuf_free(&w);
}

/* Reads one marker's text at p: U+ and 4-6 hex digits, or \x and two; the bytes it stands for go to back. */
static size_t read_marker(const uint8_t *p, size_t n, struct wbuf *back)
{
	uint32_t v = 0;
	size_t i = 2, digits;
	char u[4];

	if (n < 2 || !((p[0] == 'U' && p[1] == '+') || (p[0] == '\\' && p[1] == 'x')))
		return 0;
	for (; i < n && i < 8 && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'A' && p[i] <= 'F')); i++)
		v = v * 16 + (uint32_t)(p[i] <= '9' ? p[i] - '0' : p[i] - 'A' + 10);
	digits = i - 2;
	if (p[0] == 'U') {
		if (digits < 4 || digits > 6 || !approval_text_marked(v))
			return 0;
		wbuf_put_bytes(back, u, utf8_put(v, u));
	} else {
		if (digits != 2 || v < 0x80)
			return 0;
		wbuf_put_u8(back, (uint8_t)v);
	}
	return i;
}

/*
 * Reads approval_html_text's output back to the bytes it shows, counting
 * its markers; false when
 * it holds a '<' other than a marker span's, a '>', '"' or '\'' outside
 * one, or an '&' that is not one of the five entities.
 */
static bool html_read_back(const uint8_t *p, size_t n, struct wbuf *back, size_t *markers)
{
	static const char open[] = "<span class=\"ch\">", close[] = "</span>";
	static const char *ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
	static const char ch[] = "&<>\"'";
	size_t i = 0, k, m;

	while (i < n) {
		if (p[i] == '<') {
			if (n - i < sizeof(open) - 1 || memcmp(p + i, open, sizeof(open) - 1) != 0)
				return false;
			i += sizeof(open) - 1;
			m = read_marker(p + i, n - i, back);
			if (m == 0)
				return false;
			i += m;
			(*markers)++;
			if (n - i < sizeof(close) - 1 || memcmp(p + i, close, sizeof(close) - 1) != 0)
				return false;
			i += sizeof(close) - 1;
		} else if (p[i] == '&') {
			for (k = 0; k < COUNT(ent); k++)
				if (n - i >= strlen(ent[k]) && memcmp(p + i, ent[k], strlen(ent[k])) == 0)
					break;
			if (k == COUNT(ent))
				return false;
			wbuf_put_u8(back, (uint8_t)ch[k]);
			i += strlen(ent[k]);
		} else if (p[i] == '>' || p[i] == '"' || p[i] == '\'') {
			return false;
		} else {
			wbuf_put_u8(back, p[i++]);
		}
	}
	return true;
}

/*
 * The output is valid UTF-8 holding no marked code point: so no byte
 * below 0x20 but \n and \t, no DEL, no C1, no bidi or invisible character.
 */
static void assert_inert(const struct wbuf *w)
{
	size_t i = 0, n;
	uint32_t cp;

	while (i < w->len) {
		n = approval_utf8_decode((const char *)w->data + i, w->len - i, &cp);
		assert_true(n > 0);
		assert_false(approval_text_marked(cp));
		assert_true(cp >= 0x20 || cp == '\n' || cp == '\t');
		i += n;
	}
}

static bool has_byte(const struct wbuf *w, const char *set)
{
	for (size_t i = 0; i < w->len; i++)
		if (w->data[i] != 0 && strchr(set, w->data[i]))
			return true;
	return false;
}

/* Every input of one, two and three bytes through every renderer. */
static void test_exhaustive(void **state)
{
	struct wbuf h, a, t, j, back;
	uint8_t in[3];
	uint32_t v, cp;
	size_t len, i, n, markers;

	(void)state;
	wbuf_init(&h);
	wbuf_init(&a);
	wbuf_init(&t);
	wbuf_init(&j);
	wbuf_init(&back);
	for (len = 1; len <= 3; len++) {
		for (v = 0; v < (1u << (8 * len)); v++) {
			const char *s = (const char *)in;
			bool suspicious, lossy = false, invalid = false;

			for (i = 0; i < len; i++)
				in[i] = (uint8_t)(v >> (8 * (len - 1 - i)));
			for (i = 0; i < len; i += n ? n : 1) {
				n = approval_utf8_decode(s + i, len - i, &cp);
				invalid |= n == 0;
			}
			suspicious = approval_text_suspicious(s, len);
			wbuf_reset(&h);
			wbuf_reset(&a);
			wbuf_reset(&t);
			wbuf_reset(&j);
			wbuf_reset(&back);
			assert_true(approval_html_text(&h, s, len));
			assert_true(approval_html_attr(&a, s, len));
			assert_true(approval_terminal_text(&t, s, len));
			assert_true(approval_json_string(&j, s, len, &lossy));

			/* HTML: inert, only marker markup, and it reads back exactly. */
			assert_inert(&h);
			markers = 0;
			assert_true(html_read_back(h.data, h.len, &back, &markers));
			assert_int_equal(back.len, len);
			assert_memory_equal(back.data, in, len);
			assert_int_equal(suspicious, markers > 0);

			/* Attribute: inert, no markup at all; entities read back to the input when nothing is marked.
			 */
			assert_inert(&a);
			assert_false(has_byte(&a, "<>\"'"));
			if (!suspicious) {
				wbuf_reset(&back);
				assert_true(html_read_back(a.data, a.len, &back, &markers));
				assert_int_equal(markers, 0);
				assert_int_equal(back.len, len);
				assert_memory_equal(back.data, in, len);
			}

			/* Terminal: inert, and unchanged when nothing is marked. */
			assert_inert(&t);
			if (!suspicious) {
				assert_int_equal(t.len, len);
				assert_memory_equal(t.data, in, len);
			}

			/* JSON: quoted, ASCII controls and HTML characters escaped, lossy exactly on bad bytes. */
			assert_inert(&j);
			assert_int_equal(lossy, invalid);
			assert_true(j.len >= 2 && j.data[0] == '"' && j.data[j.len - 1] == '"');
			assert_false(has_byte(&j, "<>&'\n\t"));
			if (len <= 2) {
				json_t *js =
					json_loadb((const char *)j.data, j.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);

				assert_non_null(js);
				assert_true(json_is_string(js));
				if (!invalid) {
					assert_int_equal(json_string_length(js), len);
					assert_memory_equal(json_string_value(js), in, len);
				}
				json_decref(js);
			}
		}
	}
	wbuf_free(&h);
	wbuf_free(&a);
	wbuf_free(&t);
	wbuf_free(&j);
	wbuf_free(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),        cmocka_unit_test(test_decode_reference),
		cmocka_unit_test(test_table),         cmocka_unit_test(test_each_class),
		cmocka_unit_test(test_html_controls), cmocka_unit_test(test_html_invalid),
		cmocka_unit_test(test_html_hostile),  cmocka_unit_test(test_trojan_source),
		cmocka_unit_test(test_other_scripts), cmocka_unit_test(test_attr),
		cmocka_unit_test(test_terminal),      cmocka_unit_test(test_json),
		cmocka_unit_test(test_suspicious),    cmocka_unit_test(test_failed_wbuf),
		cmocka_unit_test(test_exhaustive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
