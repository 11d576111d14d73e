/*
 * runner_my_sample: see runner_my_sample.h.
 */
#include "runner/runner_my_sample.h"

#include <stdint.h>
#include <stdio.h>

/* The length of the UTF-8 sequence at s (at most left bytes), or 0 when it is not a valid one. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, c = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, c = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	/* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	return n;
}

void my_sample_put_str(struct wbuf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char esc[8];
	size_t i = 0;

	wbuf_put_u8(b, '"');
	while (i < len) {
		size_t n = utf8_len(u + i, len - i);

		/* A NUL is no text either: the record's readers refuse \u0000. */
		if (n == 0 || u[i] == 0) {
			wbuf_put_str(b, "\\ufffd");
			i++;
		} else if (u[i] == '"' || u[i] == '\\') {
			wbuf_put_u8(b, '\\');
			wbuf_put_u8(b, u[i++]);
		} else if (u[i] < 0x20 || u[i] == 0x7F) {
			snprintf(esc, sizeof(esc), "\\u%04x", u[i++]);
			wbuf_put_str(b, esc);
		} else {
			wbuf_put_bytes(b, u + i, n);
			i += n;
		}
	}
	wbuf_put_u8(b, '"');
}

void my_sample_put_row(struct wbuf *b, const MYSQL_FIELD *f, const MYSQL_ROW row, const unsigned long *lengths,
		       unsigned n)
{
	wbuf_put_u8(b, '{');
	for (unsigned i = 0; i < n; i++) {
		if (i)
			wbuf_put_u8(b, ',');
		my_sample_put_str(b, f[i].name ? f[i].name : "", f[i].name ? f[i].name_length : 0);
		wbuf_put_u8(b, ':');
		if (row[i])
			my_sample_put_str(b, row[i], lengths[i]);
		else
			wbuf_put_str(b, "null");
	}
	wbuf_put_u8(b, '}');
}
