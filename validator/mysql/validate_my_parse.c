/*
 * validate_my_parse: see validate_my_parse.h.
 */
#include "validator/mysql/validate_my_parse.h"

#include "validator/mysql/validate_my_funcs.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void vmy_parser_init(struct vmy_parser *p, const struct vmy_policy *pol, const char *sql, size_t len,
		     struct vmy_result *out)
{
	memset(p, 0, sizeof(*p));
	p->pol = pol;
	p->out = out;
	p->sql = sql;
	p->len = len;
	vmy_lex_init(&p->lx, sql, len, pol->ansi_quotes, pol->no_backslash_escapes);
	p->lx.quoted_high_bytes_only = vmy_charset_single_byte(pol->charset);
}

/* The next token from the lexer; ';' (and everything after it) reads as the end. */
static void lex_one(struct vmy_parser *p, struct vmy_la *la)
{
	la->before = p->lx;
	vmy_lex_next(&p->lx, &la->tok);
	if (la->tok.kind == VMY_T_SEMI) {
		la->tok.kind = VMY_T_END;
		la->tok.len = 0;
		p->lx = la->before; /* stay on the ';': every later token is the end again */
	}
}

const struct vmy_token *vmy_peek(struct vmy_parser *p, unsigned k)
{
	if (k >= VMY_LOOKAHEAD)
		k = VMY_LOOKAHEAD - 1;
	while (p->nla <= k) {
		lex_one(p, &p->la[p->nla]);
		p->nla++;
	}
	return &p->la[k].tok;
}

void vmy_next(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	if (t->kind == VMY_T_END || t->kind == VMY_T_ERROR)
		return;
	p->last_end = t->start + t->len;
	memmove(&p->la[0], &p->la[1], (p->nla - 1) * sizeof(p->la[0]));
	p->nla--;
}

void vmy_save(const struct vmy_parser *p, struct vmy_mark *m)
{
	m->lx = p->lx;
	memcpy(m->la, p->la, sizeof(m->la));
	m->nla = p->nla;
	m->last_end = p->last_end;
	m->nscoped = p->out->scope.nrefs;
}

void vmy_restore(struct vmy_parser *p, const struct vmy_mark *m)
{
	p->lx = m->lx;
	memcpy(p->la, m->la, sizeof(p->la));
	p->nla = m->nla;
	p->last_end = m->last_end;
	p->out->scope.nrefs = m->nscoped;
}

struct vmy_lexer vmy_lexer_here(struct vmy_parser *p)
{
	vmy_peek(p, 0);
	return p->la[0].before;
}

bool vmy_is_kw(const struct vmy_parser *p, const struct vmy_token *t, const char *kw)
{
	size_t n = strlen(kw);

	return t->kind == VMY_T_WORD && t->kw && t->len == n && strncasecmp(p->sql + t->start, kw, n) == 0;
}

bool vmy_word_is(const struct vmy_parser *p, const struct vmy_token *t, const char *name)
{
	size_t n = strlen(name);

	return t->kind == VMY_T_WORD && t->len == n && strncasecmp(p->sql + t->start, name, n) == 0;
}

bool vmy_kw_at(struct vmy_parser *p, unsigned k, const char *kw)
{
	return vmy_is_kw(p, vmy_peek(p, k), kw);
}

bool vmy_accept_kw(struct vmy_parser *p, const char *kw)
{
	if (!vmy_kw_at(p, 0, kw))
		return false;
	vmy_next(p);
	return true;
}

bool vmy_punct_at(struct vmy_parser *p, unsigned k, const char *s)
{
	return vmy_tok_punct(p->sql, vmy_peek(p, k), s);
}

bool vmy_accept_punct(struct vmy_parser *p, const char *s)
{
	if (!vmy_punct_at(p, 0, s))
		return false;
	vmy_next(p);
	return true;
}

bool vmy_at_end(struct vmy_parser *p)
{
	return vmy_peek(p, 0)->kind == VMY_T_END;
}

bool vmy_take_name(struct vmy_parser *p, const struct vmy_token *t, char *buf, size_t size)
{
	int n = vmy_tok_ident(p->sql, t, buf, size);

	if (n > 0)
		return true;
	if (n == 0) {
		vmy_refuse_near(p, t->start, AIRLOCK_E_SYNTAX, "an empty quoted name is not a valid name");
		return false;
	}
	if ((t->kind == VMY_T_WORD || t->kind == VMY_T_QIDENT) && t->len >= size)
		vmy_refuse(p, AIRLOCK_E_SYNTAX, AIRLOCK_N_MY_IDENTIFIER_TOO_LONG, "names are at most 64 characters",
			   "Identifier name '%.64s...' is too long", p->sql + t->start);
	else
		vmy_syntax(p, "a name was expected here");
	return false;
}

bool vmy_accept_name(struct vmy_parser *p, char *buf, size_t size)
{
	if (!vmy_take_name(p, vmy_peek(p, 0), buf, size))
		return false;
	vmy_next(p);
	return true;
}

bool vmy_accept_number(struct vmy_parser *p, long *v)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	long n = 0;
	size_t i;

	if (t->kind != VMY_T_NUMBER)
		return false;
	for (i = 0; i < t->len; i++) {
		char c = p->sql[t->start + i];

		if (c < '0' || c > '9')
			return false;
		n = n > (LONG_MAX - 9) / 10 ? LONG_MAX : n * 10 + (c - '0');
	}
	vmy_next(p);
	*v = n;
	return true;
}

bool vmy_enter(struct vmy_parser *p)
{
	if (p->failed)
		return false;
	if (p->depth >= VMY_MAX_DEPTH) {
		vmy_refuse(p, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, "nest fewer subqueries and parentheses",
			   "Too high level of nesting for select");
		return false;
	}
	p->depth++;
	return true;
}

void vmy_leave(struct vmy_parser *p)
{
	p->depth--;
}

__attribute__((format(printf, 5, 0))) static void vrefuse(struct vmy_result *out, enum airlock_err code,
							  enum airlock_native native, const char *hint, const char *fmt,
							  va_list ap)
{
	out->kind = VMY_REFUSED;
	out->my_errno = airlock_my_errno(code, native);
	snprintf(out->sqlstate, sizeof(out->sqlstate), "%s", airlock_my_sqlstate(code, native));
	out->code = code;
	snprintf(out->hint, sizeof(out->hint), "%s", hint ? hint : "");
	vsnprintf(out->message, sizeof(out->message), fmt, ap);
}

void vmy_result_refuse(struct vmy_result *out, enum airlock_err code, enum airlock_native native, const char *hint,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrefuse(out, code, native, hint, fmt, ap);
	va_end(ap);
}

void vmy_refuse(struct vmy_parser *p, enum airlock_err code, enum airlock_native native, const char *hint,
		const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vrefuse(p->out, code, native, hint, fmt, ap);
	va_end(ap);
}

void vmy_result_near(struct vmy_result *out, const char *sql, size_t len, size_t at, enum airlock_err code,
		     const char *hint)
{
	unsigned line = 1;
	size_t i, n;

	if (at > len)
		at = len;
	for (i = 0; i < at; i++) {
		if (sql[i] == '\n')
			line++;
	}
	n = len - at;
	if (n > 80)
		n = 80;
	/* Do not cut a UTF-8 character in two. */
	while (n > 0 && n < len - at && ((unsigned char)sql[at + n] & 0xc0) == 0x80)
		n--;
	for (i = 0; i < n; i++) {
		if (sql[at + i] == '\0') {
			n = i;
			break;
		}
	}
	vmy_result_refuse(out, code, AIRLOCK_N_MY_PARSE_ERROR, hint,
			  "You have an error in your SQL syntax; check the manual that corresponds "
			  "to your MariaDB server version for the right syntax to use near '%.*s' "
			  "at line %u",
			  (int)n, sql + at, line);
}

void vmy_refuse_near(struct vmy_parser *p, size_t at, enum airlock_err code, const char *hint)
{
	if (p->failed)
		return;
	p->failed = true;
	vmy_result_near(p->out, p->sql, p->len, at, code, hint);
}

void vmy_syntax(struct vmy_parser *p, const char *hint)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	vmy_refuse_near(p, t->start, AIRLOCK_E_SYNTAX, hint);
}

bool vmy_expect(struct vmy_parser *p, bool ok, const char *hint)
{
	if (!ok)
		vmy_syntax(p, hint);
	return ok;
}

void vmy_refuse_write(struct vmy_parser *p, const char *what)
{
	char hint[512];

	snprintf(hint, sizeof(hint),
		 "airlock only runs reads (SELECT, SHOW, DESCRIBE, EXPLAIN) "
		 "and session statements; %s is not allowed",
		 what);
	vmy_refuse(p, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, hint,
		   "Cannot execute statement in a READ ONLY transaction");
}

bool vmy_lower_copy(char *dst, size_t dsz, const char *src, size_t n)
{
	size_t i;

	if (dsz == 0)
		return false;
	if (n >= dsz) {
		dst[0] = '\0';
		return false;
	}
	for (i = 0; i < n; i++)
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ? (char)(src[i] + 32) : src[i];
	dst[n] = '\0';
	return true;
}
