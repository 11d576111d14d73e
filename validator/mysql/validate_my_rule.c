/*
 * validate_my_rule: see validate_my_rule.h.
 */
#include "validator/mysql/validate_my_rule.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validator/mysql/validate_my_lex.h"

struct rule {
	const char *sql;
	struct vmy_token *t;
	size_t n;
	struct wbuf *w;
	bool sep; /* the last token written was re-spelled: a space before the next one */
};

static bool word_is(const struct rule *r, size_t i, const char *kw)
{
	size_t n = strlen(kw);

	return i < r->n && r->t[i].kind == VMY_T_WORD && r->t[i].kw && r->t[i].len == n &&
	       strncasecmp(r->sql + r->t[i].start, kw, n) == 0;
}

static bool punct_is(const struct rule *r, size_t i, const char *p)
{
	return i < r->n && vmy_tok_punct(r->sql, &r->t[i], p);
}

/* Words after which MariaDB's grammar takes only a quoted string, not a hexadecimal literal. */
static bool wants_text(const struct rule *r, size_t i)
{
	static const char *const kws[] = {"DATE",      "TIME", "TIMESTAMP", "COLLATE",
					  "SEPARATOR", "SET",  "CHARSET",   "USING"};

	for (size_t k = 0; k < sizeof(kws) / sizeof(kws[0]); k++)
		if (word_is(r, i, kws[k]))
			return true;
	return false;
}

/* One space, unless the text so far is empty or ends in a space or '('. */
static void put_space(struct wbuf *w)
{
	if (w->len > 0 && w->data && w->data[w->len - 1] != ' ' && w->data[w->len - 1] != '(')
		wbuf_put_u8(w, ' ');
}

static void put_hex(struct wbuf *w, const char *s, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";

	wbuf_put_str(w, "X'");
	for (size_t i = 0; i < n; i++) {
		wbuf_put_u8(w, (uint8_t)digits[(unsigned char)s[i] >> 4]);
		wbuf_put_u8(w, (uint8_t)digits[(unsigned char)s[i] & 15]);
	}
	wbuf_put_u8(w, '\'');
}

/*
 * The string literal at *i and those right after it (MariaDB joins
 * adjacent literals), as one literal no mode reads differently.
 */
static bool put_string(struct rule *r, size_t *i)
{
	size_t cap = 0, used = 0, j, k;
	bool national = r->sql[r->t[*i].start] != r->t[*i].quote, ok = true;
	char *buf;

	for (j = *i; j < r->n && r->t[j].kind == VMY_T_STRING; j++)
		cap += r->t[j].len;
	buf = malloc(cap + 1);
	if (!buf)
		return false;
	for (k = *i; k < j && ok; k++)
		ok = vmy_tok_string(r->sql, &r->t[k], false, buf, cap + 1, &used);
	if (ok && *i > 0 && wants_text(r, *i - 1)) {
		/* Printable ASCII without a backslash reads the same under every mode. */
		ok = used > 0;
		for (k = 0; k < used && ok; k++)
			ok = buf[k] >= 0x20 && buf[k] < 0x7f && buf[k] != '\\';
		put_space(r->w);
		wbuf_put_u8(r->w, '\'');
		for (k = 0; k < used && ok; k++) {
			if (buf[k] == '\'')
				wbuf_put_u8(r->w, '\'');
			wbuf_put_u8(r->w, (uint8_t)buf[k]);
		}
		wbuf_put_u8(r->w, '\'');
	} else if (ok) {
		bool introduced = *i > 0 && r->t[*i - 1].kind == VMY_T_WORD && r->sql[r->t[*i - 1].start] == '_';

		put_space(r->w);
		wbuf_put_str(r->w, introduced ? "" : national ? "_utf8mb3 " : "_utf8mb4 ");
		put_hex(r->w, buf, used);
	}
	free(buf);
	*i = j;
	r->sep = true;
	return ok;
}

/* @'name' or @"name": the name backquoted. */
static bool put_at_name(struct rule *r, size_t i)
{
	char name[256];
	size_t used = 0;

	if (r->t[i].kind == VMY_T_STRING) {
		if (!vmy_tok_string(r->sql, &r->t[i], false, name, sizeof(name), &used))
			return false;
	} else if (vmy_tok_ident(r->sql, &r->t[i], name, sizeof(name)) < 0) {
		return false;
	} else {
		used = strlen(name);
	}
	wbuf_put_u8(r->w, '`');
	for (size_t k = 0; k < used; k++) {
		if (name[k] == '`')
			wbuf_put_u8(r->w, '`');
		wbuf_put_u8(r->w, (uint8_t)name[k]);
	}
	wbuf_put_u8(r->w, '`');
	return true;
}

/* A NOT at i that is an operator of its own, not part of IS NOT, NOT IN, NOT LIKE, ... */
static bool prefix_not(const struct rule *r, size_t i)
{
	return word_is(r, i, "NOT") && !(i > 0 && word_is(r, i - 1, "IS")) && !word_is(r, i + 1, "IN") &&
	       !word_is(r, i + 1, "LIKE") && !word_is(r, i + 1, "BETWEEN") && !word_is(r, i + 1, "REGEXP") &&
	       !word_is(r, i + 1, "RLIKE");
}

/*
 * Where the operand of a prefix NOT at i ends under the default grammar,
 * where NOT binds looser than comparisons and BETWEEN and tighter than
 * AND, XOR and OR: at the first of those (an AND that closes a BETWEEN
 * excepted), or a token that ends the expression around it, at its own
 * depth. Returns the index of that token (at most end).
 */
static size_t not_operand_end(const struct rule *r, size_t i, size_t end)
{
	static const char *const stops[] = {"OR",   "XOR", "THEN",  "WHEN",      "ELSE", "AS",
					    "FROM", "FOR", "USING", "SEPARATOR", "ORDER"};
	size_t depth = 0, cases = 0, between = 0, j;

	for (j = i + 1; j < end; j++) {
		bool top = depth == 0 && cases == 0;

		if (punct_is(r, j, "(")) {
			depth++;
		} else if (punct_is(r, j, ")")) {
			if (depth == 0)
				return j;
			depth--;
		} else if (depth == 0 && word_is(r, j, "CASE")) {
			cases++;
		} else if (depth == 0 && word_is(r, j, "END")) {
			if (cases == 0)
				return j;
			cases--;
		} else if (top && (punct_is(r, j, ",") || punct_is(r, j, "||") || punct_is(r, j, "&&"))) {
			return j;
		} else if (top && word_is(r, j, "BETWEEN")) {
			between++;
		} else if (top && word_is(r, j, "AND")) {
			if (between == 0)
				return j;
			between--;
		} else if (top) {
			for (size_t k = 0; k < sizeof(stops) / sizeof(stops[0]); k++)
				if (word_is(r, j, stops[k]))
					return j;
		}
	}
	return end;
}

/* Tokens [from, end) re-spelled. */
static bool put_range(struct rule *r, size_t from, size_t end)
{
	size_t i = from;

	while (i < end) {
		const struct vmy_token *t = &r->t[i];

		if ((r->sep && !punct_is(r, i, ")") && !punct_is(r, i, ",")) ||
		    (i > from && t->start > r->t[i - 1].start + r->t[i - 1].len &&
		     !(punct_is(r, i, "(") && r->t[i - 1].kind == VMY_T_WORD)))
			put_space(r->w);
		r->sep = false;
		if (t->kind == VMY_T_STRING && !(i > 0 && r->t[i - 1].kind == VMY_T_AT)) {
			size_t j = i;

			if (!put_string(r, &j) || j > end)
				return false;
			i = j;
			continue;
		}
		if (t->kind == VMY_T_STRING || (t->kind == VMY_T_QIDENT && i > 0 && r->t[i - 1].kind == VMY_T_AT)) {
			if (!put_at_name(r, i))
				return false;
		} else if (punct_is(r, i, "||")) {
			put_space(r->w);
			wbuf_put_str(r->w, "OR");
			r->sep = true;
		} else if (punct_is(r, i, "&&")) {
			put_space(r->w);
			wbuf_put_str(r->w, "AND");
			r->sep = true;
		} else if (prefix_not(r, i)) {
			size_t j = not_operand_end(r, i, end);

			put_space(r->w);
			wbuf_put_str(r->w, "NOT (");
			if (!put_range(r, i + 1, j))
				return false;
			wbuf_put_u8(r->w, ')');
			r->sep = true;
			i = j;
			continue;
		} else {
			wbuf_put_bytes(r->w, r->sql + t->start, t->len);
		}
		i++;
	}
	return true;
}

bool vmy_rule_put(struct wbuf *w, const char *expr)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	struct rule r = {.sql = expr, .w = w};
	size_t len = strlen(expr), n = 0;
	bool ok;

	vmy_lex_init(&lx, expr, len, false, false);
	while (vmy_lex_next(&lx, &t) != VMY_T_END) {
		if (t.kind == VMY_T_ERROR || t.kind == VMY_T_SEMI)
			return false;
		n++;
	}
	r.t = calloc(n ? n : 1, sizeof(*r.t));
	if (!r.t)
		return false;
	vmy_lex_init(&lx, expr, len, false, false);
	while (r.n < n && vmy_lex_next(&lx, &r.t[r.n]) != VMY_T_END)
		r.n++;
	ok = put_range(&r, 0, r.n);
	free(r.t);
	return ok && !w->failed;
}
