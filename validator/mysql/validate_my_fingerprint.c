/*
 * validate_my_fingerprint: FNV-1a over the statement's tokens (see the
 * header).
 */
#include "validator/mysql/validate_my_fingerprint.h"

#include <ctype.h>

#include "validator/mysql/validate_my_lex.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t mix(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

uint64_t vmy_fingerprint(const char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	uint64_t h = FNV_OFFSET;

	vmy_lex_init(&lx, sql, len, ansi_quotes, no_backslash_escapes);
	for (;;) {
		switch (vmy_lex_next(&lx, &t)) {
		case VMY_T_END:
			return h ? h : 1;
		case VMY_T_ERROR:
			return 0;
		case VMY_T_STRING:
		case VMY_T_HEXSTR:
		case VMY_T_BINSTR:
		case VMY_T_NUMBER:
			h = mix(h, '?');
			break;
		case VMY_T_WORD:
			for (size_t i = 0; i < t.len; i++)
				h = mix(h, (unsigned char)tolower((unsigned char)sql[t.start + i]));
			break;
		default:
			for (size_t i = 0; i < t.len; i++)
				h = mix(h, (unsigned char)sql[t.start + i]);
			break;
		}
		/* A separator, so "ab" "c" and "a" "bc" differ. */
		h = mix(h, ' ');
	}
}
