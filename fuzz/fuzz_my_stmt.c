/*
 * libFuzzer target for the prepared statement codec: the first input byte
 * is the statement's parameter count, the rest a COM_STMT_EXECUTE payload
 * for my_stmt_decode_execute (decoded once with no previous types and
 * once with types 0x00..: a byte pair per parameter from the tail of the
 * input). Every decoded parameter goes through my_param_literal in both
 * escaping modes. Checked: views lie inside the payload, fixed-size values
 * have their size, a quoted literal is one token (no quote ends it early),
 * a failed literal leaves the buffer as it was.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/my_stmt.h"

static struct my_stmt_execute ex;

static void inside(const uint8_t *q, size_t n, const uint8_t *p, size_t len)
{
	if (!q) {
		if (n)
			__builtin_trap();
		return;
	}
	if (q < p || n > len || q + n > p + len)
		__builtin_trap();
}

/* A quoted literal: the first quote not doubled (or backslash-escaped) is the last byte. */
static void one_token(const uint8_t *s, size_t n, bool nbe)
{
	size_t i;

	if (n < 2 || s[0] != '\'')
		__builtin_trap();
	for (i = 1; i < n; i++) {
		if (s[i] == '\\' && !nbe) {
			i++;
			continue;
		}
		if (s[i] == 0 && nbe)
			__builtin_trap();
		if (s[i] == '\'') {
			if (i + 1 < n && s[i + 1] == '\'') {
				i++;
				continue;
			}
			break;
		}
	}
	if (i != n - 1)
		__builtin_trap();
}

/* _utf8mb4 X'hex': a NUL's string under NO_BACKSLASH_ESCAPES, hex digits alone inside the quotes. */
static void hex_token(const uint8_t *s, size_t n)
{
	static const char head[] = "_utf8mb4 X'";

	if (n < sizeof(head) || memcmp(s, head, sizeof(head) - 1) != 0 || s[n - 1] != '\'' ||
	    (n - sizeof(head)) % 2 != 0)
		__builtin_trap();
	for (size_t i = sizeof(head) - 1; i + 1 < n; i++)
		if (!strchr("0123456789ABCDEF", s[i]) || s[i] == 0)
			__builtin_trap();
}

static void literals(struct wbuf *b)
{
	size_t i;

	for (i = 0; i < ex.nparams; i++) {
		int mode;

		/* 0: backslash escapes; 1: NO_BACKSLASH_ESCAPES; 2: the same with a set for a NUL's hex literal. */
		for (mode = 0; mode < 3; mode++) {
			const char *why = NULL;
			bool nbe = mode >= 1;

			wbuf_reset(b);
			my_put_u8(b, ' ');
			if (my_param_literal(&ex.params[i], nbe, mode == 2 ? "utf8mb4" : NULL, b, &why) != MY_OK) {
				if (!why || (!b->failed && b->len != 1))
					__builtin_trap();
				continue;
			}
			if (b->failed || b->len < 2)
				__builtin_trap();
			if (b->data[1] == '\'')
				one_token(b->data + 1, b->len - 1, nbe);
			else if (b->data[1] == '_')
				hex_token(b->data + 1, b->len - 1);
			else if (memchr(b->data + 1, '\'', b->len - 1) || memchr(b->data + 1, '\\', b->len - 1))
				__builtin_trap();
		}
	}
}

static void check(const uint8_t *p, size_t len, uint16_t nparams)
{
	size_t i;

	if (ex.nparams != nparams)
		__builtin_trap();
	for (i = 0; i < nparams; i++) {
		const struct my_param *prm = &ex.params[i];

		if (prm->is_null) {
			if (prm->value || prm->len)
				__builtin_trap();
			continue;
		}
		inside(prm->value, prm->len, p, len);
		if (!prm->value)
			__builtin_trap();
		switch (prm->type) {
		case MY_TYPE_TINY:
			if (prm->len != 1)
				__builtin_trap();
			break;
		case MY_TYPE_LONGLONG:
		case MY_TYPE_DOUBLE:
			if (prm->len != 8)
				__builtin_trap();
			break;
		default:
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t types[2 * 256], types2[2 * 256];
	uint16_t nparams;
	const uint8_t *p;
	size_t len, i;
	const char *why = NULL;
	struct wbuf b;
	uint32_t id;

	if (size < 1)
		return 0;
	nparams = data[0];
	p = data + 1;
	len = size - 1;
	wbuf_init(&b);
	if (my_stmt_execute_id(p, len, &id) == MY_OK &&
	    id != (len >= 5 ? (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24 : 0))
		__builtin_trap();
	{
		uint32_t fid, rows;

		/* COM_STMT_FETCH is exactly 9 bytes; anything else is refused and leaves zeros. */
		if (my_stmt_fetch_decode(p, len, &fid, &rows) == MY_OK ? len != 9 : (fid != 0 || rows != 0))
			__builtin_trap();
	}
	if (my_stmt_decode_execute(p, len, nparams, NULL, &ex, types, &why) == MY_OK) {
		check(p, len, nparams);
		literals(&b);
		/* Decoding again with the kept types (in place) gives the same. */
		memcpy(types2, types, 2 * (size_t)nparams);
		if (my_stmt_decode_execute(p, len, nparams, types2, &ex, types2, &why) != MY_OK ||
		    memcmp(types, types2, 2 * (size_t)nparams))
			__builtin_trap();
	} else if (!why || ex.nparams) {
		__builtin_trap();
	}
	/* Previous types from the input's tail. */
	for (i = 0; i < 2 * (size_t)nparams; i++)
		types[i] = len ? p[len - 1 - (i % len)] : 0;
	if (my_stmt_decode_execute(p, len, nparams, types, &ex, NULL, &why) == MY_OK) {
		check(p, len, nparams);
		literals(&b);
	}
	wbuf_free(&b);
	return 0;
}
