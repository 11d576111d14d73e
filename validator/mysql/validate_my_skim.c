/*
 * validate_my_skim: see validate_my_skim.h.
 */
#include "validator/mysql/validate_my_skim.h"

#include "validator/mysql/validate_my_lex.h"
#include "validator/mysql/validate_my_names.h"

/* Skips a balanced ( ... ) with a raw lexer; false when unbalanced. */
static bool skip_parens(struct vmy_lexer *lx, struct vmy_token *t)
{
	int depth = 0;

	do {
		if (vmy_tok_punct(lx->sql, t, "("))
			depth++;
		else if (vmy_tok_punct(lx->sql, t, ")"))
			depth--;
		else if (t->kind == VMY_T_END || t->kind == VMY_T_ERROR || t->kind == VMY_T_SEMI)
			return false;
		if (depth == 0)
			return true;
		vmy_lex_next(lx, t);
	} while (depth > 0);
	return true;
}

bool vmy_push_recursive_names(struct vmy_parser *p)
{
	struct vmy_lexer lx = vmy_lexer_here(p);
	struct vmy_token t;
	char name[VMY_NAME_MAX];

	vmy_lex_next(&lx, &t);
	for (;;) {
		if (vmy_tok_ident(p->sql, &t, name, sizeof(name)) <= 0)
			return true; /* the real parse below refuses it */
		if (!vmy_cte_push(p, name))
			return false;
		vmy_lex_next(&lx, &t);
		if (vmy_tok_punct(p->sql, &t, "(")) {
			if (!skip_parens(&lx, &t))
				return true;
			vmy_lex_next(&lx, &t);
		}
		if (!vmy_is_kw(p, &t, "AS"))
			return true;
		vmy_lex_next(&lx, &t);
		if (!skip_parens(&lx, &t))
			return true;
		vmy_lex_next(&lx, &t);
		if (!vmy_tok_punct(p->sql, &t, ","))
			return true;
		vmy_lex_next(&lx, &t);
	}
}

bool vmy_parens_lead_to_query(struct vmy_parser *p)
{
	struct vmy_lexer lx = vmy_lexer_here(p);
	struct vmy_token t;
	int n = 0;

	do {
		vmy_lex_next(&lx, &t);
	} while (vmy_tok_punct(p->sql, &t, "(") && ++n <= VMY_MAX_DEPTH);
	return vmy_is_kw(p, &t, "SELECT") || vmy_is_kw(p, &t, "WITH") || vmy_is_kw(p, &t, "VALUES") ||
	       vmy_is_kw(p, &t, "TABLE");
}

bool vmy_json_columns(struct vmy_parser *p)
{
	int depth = 0;

	if (!vmy_expect(p, vmy_word_is(p, vmy_peek(p, 0), "COLUMNS") && vmy_punct_at(p, 1, "("),
			"COLUMNS (...) was expected"))
		return false;
	vmy_next(p);
	for (;;) {
		const struct vmy_token *t = vmy_peek(p, 0);

		if (t->kind == VMY_T_PUNCT) {
			if (vmy_tok_punct(p->sql, t, "(")) {
				if (!vmy_enter(p))
					return false;
				depth++;
			} else if (vmy_tok_punct(p->sql, t, ")")) {
				vmy_leave(p);
				vmy_next(p);
				if (--depth == 0)
					return true;
				continue;
			} else if (!vmy_tok_punct(p->sql, t, ",")) {
				vmy_syntax(p, "JSON_TABLE's COLUMNS hold names, types, paths and literals");
				return false;
			}
		} else if (t->kind != VMY_T_WORD && t->kind != VMY_T_QIDENT && t->kind != VMY_T_NUMBER &&
			   t->kind != VMY_T_STRING) {
			vmy_syntax(p, "JSON_TABLE's COLUMNS hold names, types, paths and literals");
			return false;
		}
		vmy_next(p);
	}
}

bool vmy_name_list(struct vmy_parser *p)
{
	char name[VMY_NAME_MAX];

	if (!vmy_expect(p, vmy_accept_punct(p, "("), "'(' was expected here"))
		return false;
	do {
		if (!vmy_accept_name(p, name, sizeof(name)))
			return false;
	} while (vmy_accept_punct(p, ","));
	return vmy_expect(p, vmy_accept_punct(p, ")"), "')' was expected here");
}

bool vmy_index_hints(struct vmy_parser *p)
{
	while (vmy_kw_at(p, 0, "USE") || vmy_kw_at(p, 0, "IGNORE") || vmy_kw_at(p, 0, "FORCE")) {
		vmy_next(p);
		if (!vmy_expect(p, vmy_accept_kw(p, "INDEX") || vmy_accept_kw(p, "KEY"), "INDEX or KEY was expected"))
			return false;
		if (vmy_accept_kw(p, "FOR") && !vmy_accept_kw(p, "JOIN")) {
			if (!vmy_expect(p, vmy_accept_kw(p, "ORDER") || vmy_accept_kw(p, "GROUP"),
					"FOR JOIN, FOR ORDER BY or FOR GROUP BY was expected") ||
			    !vmy_expect(p, vmy_accept_kw(p, "BY"), "BY was expected"))
				return false;
		}
		if (!vmy_expect(p, vmy_punct_at(p, 0, "("), "an index list was expected"))
			return false;
		if (vmy_punct_at(p, 1, ")")) {
			vmy_next(p);
			vmy_next(p);
		} else if (!vmy_name_list(p)) {
			return false;
		}
	}
	return true;
}
