/*
 * validate_my_lex: see validate_my_lex.h. The states mirror the server's
 * lexer: ST_IDENT_SEP is "an identifier was directly followed by '.' and
 * an identifier byte", ST_IDENT_START is "the token after that '.' is an
 * identifier, whatever it spells", ST_SYSVAR is "the name right after
 * @@". Byte classes are those of the utf8mb4 character set: whitespace is
 * 0x09-0x0D and space, control bytes are 0x00-0x1F and 0x7F, identifier
 * bytes are [A-Za-z0-9_$] and every byte >= 0x80.
 */
#include "validator/mysql/validate_my_lex.h"

#include <string.h>

enum { ST_START = 0, ST_IDENT_SEP, ST_IDENT_START, ST_SYSVAR, ST_DONE };

static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= 0x09 && c <= 0x0d);
}

static bool is_cntrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The server's ident_map for utf8mb4. */
static bool is_ident_byte(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Byte at i, or 0 past the end (the server's buffer is NUL-terminated). */
static unsigned char at(const struct vmy_lexer *lx, size_t i)
{
	return i < lx->len ? (unsigned char)lx->sql[i] : 0;
}

/* Length of the valid UTF-8 (utf8mb4) character at i, 0 if invalid. */
static size_t utf8_len(const struct vmy_lexer *lx, size_t i)
{
	unsigned char c = at(lx, i), c1 = at(lx, i + 1);
	size_t n, k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (i + n > lx->len)
		return 0;
	for (k = 1; k < n; k++) {
		if ((at(lx, i + k) & 0xc0) != 0x80)
			return 0;
	}
	if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) ||
	    (c == 0xf4 && c1 > 0x8f))
		return 0; /* overlong, surrogate or beyond U+10FFFF */
	return n;
}

void vmy_lex_init(struct vmy_lexer *lx, const char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes)
{
	memset(lx, 0, sizeof(*lx));
	lx->sql = sql;
	lx->len = sql ? len : 0;
	lx->ansi_quotes = ansi_quotes;
	lx->no_backslash_escapes = no_backslash_escapes;
	lx->state = ST_START;
}

static enum vmy_tok_kind fail(struct vmy_lexer *lx, struct vmy_token *t, enum vmy_lex_err err, size_t where)
{
	lx->err = err;
	lx->err_at = where;
	lx->state = ST_DONE;
	t->kind = VMY_T_ERROR;
	t->start = where;
	t->len = 0;
	return t->kind;
}

static enum vmy_tok_kind emit(struct vmy_lexer *lx, struct vmy_token *t, enum vmy_tok_kind kind, size_t start,
			      size_t end)
{
	t->kind = kind;
	t->start = start;
	t->len = end - start;
	lx->pos = end;
	return kind;
}

/*
 * Identifier bytes from i on; multi-byte characters must be valid UTF-8.
 * Returns the end offset, or (size_t)-1 after an invalid byte (the server
 * would end the identifier there and fail on the byte).
 */
static size_t scan_ident(const struct vmy_lexer *lx, size_t i)
{
	while (i < lx->len) {
		unsigned char c = at(lx, i);
		size_t n;

		if (c < 0x80) {
			if (!is_ident_byte(c))
				break;
			i++;
			continue;
		}
		n = lx->quoted_high_bytes_only ? 0 : utf8_len(lx, i);
		if (n == 0)
			return (size_t)-1;
		i += n;
	}
	return i;
}

/*
 * A word ending at end: it is an identifier, never a keyword, when a '.'
 * and an identifier byte follow directly (the server then lexes the '.'
 * and the next word in "identifier" states).
 */
static enum vmy_tok_kind emit_word(struct vmy_lexer *lx, struct vmy_token *t, size_t start, size_t end, bool kw)
{
	if (end == (size_t)-1)
		return fail(lx, t, lx->quoted_high_bytes_only ? VMY_LEX_HIGH_BYTE : VMY_LEX_BAD_UTF8, start);
	if (at(lx, end) == '.' && end + 1 < lx->len && is_ident_byte(at(lx, end + 1))) {
		kw = false;
		lx->state = ST_IDENT_SEP;
	} else {
		lx->state = ST_START;
	}
	t->kw = kw;
	return emit(lx, t, VMY_T_WORD, start, end);
}

/* '...' or "..." from the opening quote at start (after any N prefix). */
static enum vmy_tok_kind lex_string(struct vmy_lexer *lx, struct vmy_token *t, size_t tok_start, size_t quote_at)
{
	char q = lx->sql[quote_at];
	size_t i = quote_at + 1;

	while (i < lx->len) {
		char c = lx->sql[i];

		if (c == '\\' && !lx->no_backslash_escapes) {
			if (i + 1 >= lx->len)
				break;
			i += 2;
		} else if (c == q) {
			if (at(lx, i + 1) == (unsigned char)q && i + 1 < lx->len) {
				i += 2;
				continue;
			}
			t->quote = q;
			return emit(lx, t, VMY_T_STRING, tok_start, i + 1);
		} else {
			i++;
		}
	}
	return fail(lx, t, VMY_LEX_UNTERM_STRING, tok_start);
}

static enum vmy_tok_kind lex_qident(struct vmy_lexer *lx, struct vmy_token *t, size_t start)
{
	char q = lx->sql[start];
	size_t i = start + 1;

	while (i < lx->len) {
		if (lx->sql[i] == q) {
			if (i + 1 < lx->len && lx->sql[i + 1] == q) {
				i += 2;
				continue;
			}
			t->quote = q;
			return emit(lx, t, VMY_T_QIDENT, start, i + 1);
		}
		i++;
	}
	return fail(lx, t, VMY_LEX_UNTERM_IDENT, start);
}

/* X'hex' or B'bin' from the prefix letter at start. */
static enum vmy_tok_kind lex_bitstring(struct vmy_lexer *lx, struct vmy_token *t, size_t start, bool hex)
{
	size_t i = start + 2;

	while (i < lx->len && (hex ? is_xdigit(at(lx, i)) : (at(lx, i) == '0' || at(lx, i) == '1')))
		i++;
	if (at(lx, i) != '\'' || i >= lx->len)
		return fail(lx, t, hex ? VMY_LEX_BAD_HEX : VMY_LEX_BAD_BIN, start);
	if (hex && (i - start - 2) % 2 != 0)
		return fail(lx, t, VMY_LEX_BAD_HEX, start);
	lx->state = ST_START;
	return emit(lx, t, hex ? VMY_T_HEXSTR : VMY_T_BINSTR, start, i + 1);
}

/*
 * The fraction and exponent of a number, from i (just after the '.').
 * An 'e' without digits after it makes the server drop the characters
 * read so far and return a single-character token: refused.
 */
static enum vmy_tok_kind lex_real(struct vmy_lexer *lx, struct vmy_token *t, size_t start, size_t i)
{
	while (is_digit(at(lx, i)) && i < lx->len)
		i++;
	if (at(lx, i) == 'e' || at(lx, i) == 'E') {
		i++;
		if (at(lx, i) == '+' || at(lx, i) == '-')
			i++;
		if (!is_digit(at(lx, i)) || i >= lx->len)
			return fail(lx, t, VMY_LEX_BAD_NUMBER, start);
		while (is_digit(at(lx, i)) && i < lx->len)
			i++;
	}
	lx->state = ST_START;
	return emit(lx, t, VMY_T_NUMBER, start, i);
}

/* A token starting with a digit: a number, or an identifier such as 1ex or 0x1g. */
static enum vmy_tok_kind lex_digits(struct vmy_lexer *lx, struct vmy_token *t, size_t start)
{
	size_t i;
	unsigned char c;

	if (at(lx, start) == '0' && (at(lx, start + 1) == 'x' || at(lx, start + 1) == 'b')) {
		bool hex = at(lx, start + 1) == 'x';

		i = start + 2;
		while (i < lx->len && (hex ? is_xdigit(at(lx, i)) : (at(lx, i) == '0' || at(lx, i) == '1')))
			i++;
		if (i - start >= 3 && !is_ident_byte(at(lx, i))) {
			lx->state = ST_START;
			return emit(lx, t, VMY_T_NUMBER, start, i);
		}
		return emit_word(lx, t, start, scan_ident(lx, i), false);
	}
	i = start;
	while (i < lx->len && is_digit(at(lx, i)))
		i++;
	c = i < lx->len ? at(lx, i) : 0;
	if (!is_ident_byte(c)) {
		if (c == '.' && at(lx, i + 1) != '.')
			return lex_real(lx, t, start, i + 1);
		lx->state = ST_START;
		return emit(lx, t, VMY_T_NUMBER, start, i);
	}
	if (c == 'e' || c == 'E') {
		unsigned char n1 = at(lx, i + 1);
		size_t j = 0;

		if (is_digit(n1) && i + 1 < lx->len)
			j = i + 1;
		else if ((n1 == '+' || n1 == '-') && is_digit(at(lx, i + 2)) && i + 2 < lx->len)
			j = i + 2;
		if (j) {
			while (j < lx->len && is_digit(at(lx, j)))
				j++;
			lx->state = ST_START;
			return emit(lx, t, VMY_T_NUMBER, start, j);
		}
		return emit_word(lx, t, start, scan_ident(lx, i + 1), false);
	}
	return emit_word(lx, t, start, scan_ident(lx, i), false);
}

/* '@' at start: @@, @'quoted', or @name (the server's "hostname" scan). */
static enum vmy_tok_kind lex_at(struct vmy_lexer *lx, struct vmy_token *t, size_t start)
{
	unsigned char n = at(lx, start + 1);
	size_t i;

	if (n == '@' && start + 1 < lx->len) {
		lx->state = at(lx, start + 2) == '`' ? ST_START : ST_SYSVAR;
		return emit(lx, t, VMY_T_ATAT, start, start + 2);
	}
	if (n == '\'' || n == '"' || n == '`') {
		lx->state = ST_START;
		return emit(lx, t, VMY_T_AT, start, start + 1);
	}
	i = start + 1;
	while (i < lx->len) {
		unsigned char c = at(lx, i);
		size_t len;

		if (is_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '$') {
			i++;
			continue;
		}
		if (c < 0x80)
			break;
		if (lx->quoted_high_bytes_only)
			return fail(lx, t, VMY_LEX_HIGH_BYTE, i);
		len = utf8_len(lx, i);
		if (len == 0)
			return fail(lx, t, VMY_LEX_BAD_UTF8, i);
		i += len;
	}
	lx->state = ST_START;
	return emit(lx, t, VMY_T_USERVAR, start, i);
}

/* The name right after "@@": identifier bytes, keywords included. */
static enum vmy_tok_kind lex_sysvar(struct vmy_lexer *lx, struct vmy_token *t)
{
	size_t start = lx->pos, i = start;

	while (i < lx->len && is_ident_byte(at(lx, i))) {
		if (at(lx, i) >= 0x80)
			return fail(lx, t, VMY_LEX_BAD_SYSVAR, start);
		i++;
	}
	if (i == start)
		return fail(lx, t, VMY_LEX_BAD_SYSVAR, start);
	lx->state = at(lx, i) == '.' && i < lx->len ? ST_IDENT_SEP : ST_START;
	t->kw = true;
	return emit(lx, t, VMY_T_WORD, start, i);
}

/* Skips whitespace and comments; returns false (with the error set) on a bad comment. */
static bool skip_blanks(struct vmy_lexer *lx, struct vmy_token *t)
{
	for (;;) {
		unsigned char c = at(lx, lx->pos), c1 = at(lx, lx->pos + 1);

		if (lx->pos >= lx->len)
			return true;
		if (is_space(c)) {
			lx->pos++;
		} else if (c == '#' || (c == '-' && c1 == '-' && lx->pos + 1 < lx->len)) {
			if (c == '-') {
				unsigned char c2 = at(lx, lx->pos + 2);

				if (lx->pos + 2 < lx->len && c2 >= 0x80) {
					fail(lx, t, VMY_LEX_AMBIGUOUS_DASHES, lx->pos);
					return false;
				}
				if (lx->pos + 2 < lx->len && !is_space(c2) && !is_cntrl(c2))
					return true; /* "--x": minus minus */
			}
			while (lx->pos < lx->len && lx->sql[lx->pos] != '\n')
				lx->pos++;
		} else if (c == '/' && c1 == '*' && lx->pos + 1 < lx->len) {
			unsigned char c2 = at(lx, lx->pos + 2), c3 = at(lx, lx->pos + 3);
			const char *end;

			if (c2 == '!' || ((c2 == 'M' || c2 == 'm') && c3 == '!')) {
				fail(lx, t, VMY_LEX_EXEC_COMMENT, lx->pos);
				return false;
			}
			if (c2 == '+') {
				fail(lx, t, VMY_LEX_HINT_COMMENT, lx->pos);
				return false;
			}
			end = NULL;
			if (lx->pos + 2 < lx->len) {
				const char *p = lx->sql + lx->pos + 2;
				size_t left = lx->len - lx->pos - 2;

				while (left >= 2) {
					const char *star = memchr(p, '*', left - 1);

					if (!star)
						break;
					if (star[1] == '/') {
						end = star + 2;
						break;
					}
					left -= (size_t)(star + 1 - p);
					p = star + 1;
				}
			}
			if (!end) {
				fail(lx, t, VMY_LEX_UNTERM_COMMENT, lx->pos);
				return false;
			}
			lx->pos = (size_t)(end - lx->sql);
		} else {
			return true;
		}
	}
}

/* Multi-character operators the server returns as one token. */
static size_t op_len(const struct vmy_lexer *lx, size_t i)
{
	static const char *const ops[] = {"<=>", "<=", ">=", "<>", "!=", "<<", ">>", "&&", "||", ":=", ".."};
	size_t k;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		size_t n = strlen(ops[k]);

		if (i + n <= lx->len && memcmp(lx->sql + i, ops[k], n) == 0)
			return n;
	}
	return 1;
}

static enum vmy_tok_kind lex_start(struct vmy_lexer *lx, struct vmy_token *t)
{
	size_t s;
	unsigned char c, c1;

	if (!skip_blanks(lx, t))
		return t->kind;
	s = lx->pos;
	if (s >= lx->len) {
		lx->state = ST_DONE;
		t->start = lx->len;
		t->len = 0;
		t->kind = VMY_T_END;
		return t->kind;
	}
	c = at(lx, s);
	c1 = at(lx, s + 1);
	lx->state = ST_START;
	if (c == 0)
		return fail(lx, t, VMY_LEX_NUL, s);
	if (c == '\'' || (c == '"' && !lx->ansi_quotes))
		return lex_string(lx, t, s, s);
	if (c == '`' || c == '"')
		return lex_qident(lx, t, s);
	if ((c == 'N' || c == 'n') && c1 == '\'' && s + 1 < lx->len)
		return lex_string(lx, t, s, s + 1);
	if ((c == 'X' || c == 'x' || c == 'B' || c == 'b') && c1 == '\'' && s + 1 < lx->len)
		return lex_bitstring(lx, t, s, c == 'X' || c == 'x');
	if (is_digit(c))
		return lex_digits(lx, t, s);
	if (c == '$')
		return fail(lx, t, VMY_LEX_DOLLAR, s);
	if (is_alpha(c) || c == '_' || c >= 0x80)
		return emit_word(lx, t, s, scan_ident(lx, s), true);
	if (c == '@')
		return lex_at(lx, t, s);
	if (c == '.') {
		if (is_digit(c1) && s + 1 < lx->len)
			return lex_real(lx, t, s, s + 1);
		if (c1 != '.' && s + 1 < lx->len && is_ident_byte(c1))
			lx->state = ST_IDENT_START;
		return emit(lx, t, VMY_T_PUNCT, s, s + op_len(lx, s));
	}
	if (c == ';')
		return emit(lx, t, VMY_T_SEMI, s, s + 1);
	if (c == '\\' || c == '[' || c == ']' || is_cntrl(c))
		return fail(lx, t, VMY_LEX_BAD_CHAR, s);
	return emit(lx, t, VMY_T_PUNCT, s, s + op_len(lx, s));
}

enum vmy_tok_kind vmy_lex_next(struct vmy_lexer *lx, struct vmy_token *t)
{
	memset(t, 0, sizeof(*t));
	switch (lx->state) {
	case ST_IDENT_SEP:
		/* The '.' right after an identifier. */
		lx->state = lx->pos + 1 < lx->len && is_ident_byte(at(lx, lx->pos + 1)) ? ST_IDENT_START : ST_START;
		return emit(lx, t, VMY_T_PUNCT, lx->pos, lx->pos + 1);
	case ST_IDENT_START:
		if (at(lx, lx->pos) == '$')
			return fail(lx, t, VMY_LEX_DOLLAR, lx->pos);
		return emit_word(lx, t, lx->pos, scan_ident(lx, lx->pos), false);
	case ST_SYSVAR:
		return lex_sysvar(lx, t);
	case ST_DONE:
		t->kind = lx->err ? VMY_T_ERROR : VMY_T_END;
		t->start = lx->err ? lx->err_at : lx->len;
		return t->kind;
	default:
		return lex_start(lx, t);
	}
}

const char *vmy_lex_err_text(enum vmy_lex_err err)
{
	switch (err) {
	case VMY_LEX_OK:
		return "no error";
	case VMY_LEX_NUL:
		return "the statement contains a NUL byte";
	case VMY_LEX_UNTERM_STRING:
		return "unterminated string literal";
	case VMY_LEX_UNTERM_IDENT:
		return "unterminated quoted identifier";
	case VMY_LEX_UNTERM_COMMENT:
		return "unterminated /* comment";
	case VMY_LEX_EXEC_COMMENT:
		return "executable comments (/*! ... */, /*M! ... */) are not allowed; "
		       "write the statement without them";
	case VMY_LEX_HINT_COMMENT:
		return "optimizer hints (/*+ ... */) are not allowed; write the statement without them";
	case VMY_LEX_BAD_HEX:
		return "malformed X'...' literal (hex digits, an even number of them)";
	case VMY_LEX_BAD_BIN:
		return "malformed B'...' literal (only 0 and 1)";
	case VMY_LEX_BAD_NUMBER:
		return "malformed number: exponent without digits";
	case VMY_LEX_BAD_UTF8:
		return "invalid UTF-8 outside a string literal; quote non-ASCII names with backticks "
		       "and send UTF-8";
	case VMY_LEX_BAD_CHAR:
		return "unexpected control character, backslash or bracket outside a string literal";
	case VMY_LEX_DOLLAR:
		return "a name may not start with '$'; quote it with backticks";
	case VMY_LEX_AMBIGUOUS_DASHES:
		return "'--' followed by a non-ASCII byte is ambiguous; put a space after '--' "
		       "for a comment";
	case VMY_LEX_BAD_SYSVAR:
		return "'@@' must be followed directly by a variable name";
	case VMY_LEX_HIGH_BYTE:
		return "with this connection character set non-ASCII text must be inside quotes; "
		       "use SET NAMES utf8mb4 to write non-ASCII names";
	}
	return "lexical error";
}

bool vmy_tok_punct(const char *sql, const struct vmy_token *t, const char *p)
{
	size_t n = strlen(p);

	return t->kind == VMY_T_PUNCT && t->len == n && memcmp(sql + t->start, p, n) == 0;
}

int vmy_tok_ident(const char *sql, const struct vmy_token *t, char *buf, size_t size)
{
	const char *s = sql + t->start;
	size_t n = 0, i;

	if (size == 0)
		return -1;
	buf[0] = '\0';
	if (t->kind == VMY_T_WORD) {
		if (t->len >= size)
			return -1;
		memcpy(buf, s, t->len);
		buf[t->len] = '\0';
		return (int)t->len;
	}
	if (t->kind != VMY_T_QIDENT || t->len < 2)
		return -1;
	for (i = 1; i + 1 < t->len; i++) {
		if (s[i] == t->quote)
			i++; /* doubled quote: keep one */
		if (s[i] == '\0' || n + 1 >= size)
			return -1;
		buf[n++] = s[i];
	}
	buf[n] = '\0';
	return (int)n;
}

bool vmy_tok_string(const char *sql, const struct vmy_token *t, bool no_backslash_escapes, char *buf, size_t size,
		    size_t *used)
{
	const char *s = sql + t->start;
	size_t i = 0, end = t->len - 1, n = *used;

	if (t->kind != VMY_T_STRING || size == 0 || n >= size)
		return false;
	if (s[0] != t->quote)
		i = 1; /* N prefix */
	for (i++; i < end; i++) {
		char c = s[i];

		if (c == '\\' && !no_backslash_escapes && i + 1 < end) {
			switch (s[++i]) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case '0':
				c = '\0';
				break;
			case 'Z':
				c = '\032';
				break;
			case '%':
			case '_':
				if (n + 1 >= size)
					return false;
				buf[n++] = '\\';
				c = s[i];
				break;
			default:
				c = s[i];
				break;
			}
		} else if (c == t->quote) {
			i++; /* doubled quote */
		}
		if (c == '\0' || n + 1 >= size)
			return false;
		buf[n++] = c;
	}
	buf[n] = '\0';
	*used = n;
	return true;
}
