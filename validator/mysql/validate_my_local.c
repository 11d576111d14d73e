/*
 * validate_my_local: see validate_my_local.h. A label is what the server
 * would name the column: the item's text exactly as written (case and
 * inner spaces kept: "database()", "DATABASE( )", "@@SESSION . autocommit")
 * or the alias.
 */
#include "validator/mysql/validate_my_local.h"

#include <string.h>

#include "validator/mysql/validate_my_funcs.h"

struct fn_item {
	const char *name;
	enum vmy_item item;
};

static const struct fn_item functions[] = {
	{"DATABASE", VMY_ITEM_DATABASE},         {"SCHEMA", VMY_ITEM_DATABASE},
	{"VERSION", VMY_ITEM_VERSION},           {"USER", VMY_ITEM_USER},
	{"SESSION_USER", VMY_ITEM_USER},         {"SYSTEM_USER", VMY_ITEM_USER},
	{"CURRENT_USER", VMY_ITEM_CURRENT_USER}, {"CONNECTION_ID", VMY_ITEM_CONNECTION_ID},
};

/* Words after an item that end it rather than name it. */
static const char *const not_alias[] = {"LIMIT",     "FROM",   "INTO",      "FOR",   "LOCK",   "WHERE",
					"UNION",     "EXCEPT", "INTERSECT", "GROUP", "HAVING", "ORDER",
					"PROCEDURE", "WINDOW", "OFFSET",    "FETCH", NULL};

/* Copies at most size - 1 bytes of s, not cutting a UTF-8 character. */
static void copy_label(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static bool sysvar_item(struct vmy_parser *p, struct vmy_local_item *it)
{
	const struct vmy_token *t;
	char name[VMY_NAME_MAX];
	int n;

	vmy_next(p); /* @@ */
	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_WORD && vmy_punct_at(p, 1, ".")) {
		if (!vmy_word_is(p, t, "SESSION") && !vmy_word_is(p, t, "LOCAL"))
			return false;
		vmy_next(p);
		vmy_next(p);
		t = vmy_peek(p, 0);
	}
	n = vmy_tok_ident(p->sql, t, name, sizeof(name));
	if (n <= 0 || (size_t)n >= sizeof(it->sysvar))
		return false;
	vmy_next(p);
	if (vmy_punct_at(p, 0, "."))
		return false;
	vmy_lower_copy(it->sysvar, sizeof(it->sysvar), name, (size_t)n);
	if (!vmy_sysvar_local(it->sysvar))
		return false;
	if (strcmp(it->sysvar, "version_comment") == 0)
		it->item = VMY_ITEM_VERSION_COMMENT;
	else if (strcmp(it->sysvar, "version") == 0)
		it->item = VMY_ITEM_VERSION;
	else
		it->item = VMY_ITEM_SYSVAR;
	return true;
}

static bool function_item(struct vmy_parser *p, struct vmy_local_item *it)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	size_t i;

	for (i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		if (vmy_is_kw(p, t, functions[i].name))
			break;
	}
	if (i == sizeof(functions) / sizeof(functions[0]))
		return false;
	it->item = functions[i].item;
	vmy_next(p);
	if (it->item == VMY_ITEM_CURRENT_USER && !vmy_punct_at(p, 0, "("))
		return true; /* CURRENT_USER without parentheses */
	return vmy_accept_punct(p, "(") && vmy_accept_punct(p, ")");
}

static bool item_alias(struct vmy_parser *p, struct vmy_local_item *it)
{
	const struct vmy_token *t;
	bool as = vmy_accept_kw(p, "AS");
	size_t used = 0;

	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_STRING) {
		if (!vmy_tok_string(p->sql, t, p->pol->no_backslash_escapes, it->label, sizeof(it->label), &used))
			return false;
	} else if (t->kind == VMY_T_QIDENT || t->kind == VMY_T_WORD) {
		const char *const *w;

		for (w = not_alias; !as && *w; w++) {
			if (vmy_is_kw(p, t, *w))
				return true;
		}
		if (vmy_tok_ident(p->sql, t, it->label, sizeof(it->label)) <= 0)
			return false;
	} else {
		return !as;
	}
	vmy_next(p);
	return true;
}

/* LIMIT n with n a plain decimal number. */
static bool limit(struct vmy_parser *p, long *out)
{
	return !vmy_accept_kw(p, "LIMIT") || vmy_accept_number(p, out);
}

static bool match(struct vmy_parser *p, struct vmy_result *out)
{
	vmy_next(p); /* SELECT */
	do {
		struct vmy_local_item *it;
		size_t start;
		bool ok;

		if (out->nitems >= VMY_MAX_ITEMS)
			return false;
		it = &out->items[out->nitems];
		memset(it, 0, sizeof(*it));
		start = vmy_peek(p, 0)->start;
		ok = vmy_peek(p, 0)->kind == VMY_T_ATAT ? sysvar_item(p, it) : function_item(p, it);
		if (!ok)
			return false;
		copy_label(it->label, sizeof(it->label), p->sql + start, p->last_end - start);
		if (!item_alias(p, it))
			return false;
		out->nitems++;
	} while (vmy_accept_punct(p, ","));
	return limit(p, &out->limit) && vmy_at_end(p);
}

bool vmy_local_select(struct vmy_parser *p)
{
	struct vmy_mark mark;

	vmy_save(p, &mark);
	p->out->nitems = 0;
	p->out->limit = -1;
	if (match(p, p->out)) {
		p->out->kind = VMY_LOCAL_SELECT;
		return true;
	}
	vmy_restore(p, &mark);
	p->out->nitems = 0;
	p->out->limit = -1;
	memset(p->out->items, 0, sizeof(p->out->items));
	return false;
}
