/*
 * validate_my: the entry point. First the whole text is lexed once: a
 * lexical error (unterminated literal or comment, executable comment,
 * NUL byte, ...) or a second statement after a ';' refuses it before any
 * parsing. Then the first keyword picks the parser: reads go to
 * validate_my_read (after validate_my_local had its chance at a SELECT),
 * SHOW / DESCRIBE / EXPLAIN to validate_my_show, SET / transactions / USE
 * to validate_my_session; every other statement is refused as a write.
 */
#include "validator/mysql/validate_my.h"

#include <stdio.h>
#include <string.h>

#include "validator/mysql/validate_my_funcs.h"
#include "validator/mysql/validate_my_lex.h"
#include "validator/mysql/validate_my_local.h"
#include "validator/mysql/validate_my_parse.h"
#include "validator/mysql/validate_my_read.h"
#include "validator/mysql/validate_my_star.h"
#include "validator/mysql/validate_my_lock.h"
#include "validator/mysql/validate_my_session.h"
#include "validator/mysql/validate_my_show.h"
#include "validator/mysql/validate_my_write.h"

/*
 * One pass of the lexer over everything: refuses lexical errors and a
 * second statement. Returns false when refused; *ntok counts the tokens
 * of the (first) statement and *stmt_end is where its last one ends.
 */
static bool prepass(const struct vmy_policy *pol, const char *sql, size_t len, struct vmy_result *out, size_t *ntok,
		    size_t *stmt_end)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	bool after_semi = false;
	const void *nul = len ? memchr(sql, '\0', len) : NULL;

	*ntok = 0;
	*stmt_end = 0;
	if (nul) {
		vmy_result_near(out, sql, len, (size_t)((const char *)nul - sql), AIRLOCK_E_SYNTAX,
				vmy_lex_err_text(VMY_LEX_NUL));
		return false;
	}
	vmy_lex_init(&lx, sql, len, pol->ansi_quotes, pol->no_backslash_escapes);
	lx.quoted_high_bytes_only = vmy_charset_single_byte(pol->charset);
	for (;;) {
		switch (vmy_lex_next(&lx, &t)) {
		case VMY_T_END:
			return true;
		case VMY_T_ERROR:
			vmy_result_near(out, sql, len, lx.err_at,
					lx.err == VMY_LEX_EXEC_COMMENT || lx.err == VMY_LEX_HINT_COMMENT
						? AIRLOCK_E_EXECUTABLE_COMMENT
						: AIRLOCK_E_SYNTAX,
					vmy_lex_err_text(lx.err));
			return false;
		case VMY_T_SEMI:
			after_semi = *ntok > 0 || after_semi;
			break;
		default:
			if (after_semi) {
				vmy_result_near(out, sql, len, t.start, AIRLOCK_E_MULTI_STATEMENT,
						"airlock runs one statement per query; send each "
						"statement separately");
				return false;
			}
			(*ntok)++;
			*stmt_end = t.start + t.len;
			break;
		}
	}
}

static void refuse_statement(struct vmy_parser *p, const struct vmy_token *t)
{
	char word[40];
	size_t n = t->len < sizeof(word) - 1 ? t->len : sizeof(word) - 1, i;

	if (t->kind != VMY_T_WORD) {
		vmy_syntax(p, "a statement was expected");
		return;
	}
	for (i = 0; i < n; i++) {
		char c = p->sql[t->start + i];

		word[i] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
	}
	word[n] = '\0';
	vmy_refuse_write(p, word);
}

static void read_statement(struct vmy_parser *p)
{
	vmy_star_output(p, true);
	if (!vmy_read_query(p))
		return;
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input after the query") || vmy_star_refused(p))
		return;
	p->out->kind = VMY_READ;
	p->out->stmt_kind = "SELECT";
}

static void dispatch(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	if (vmy_tok_punct(p->sql, t, "(") || vmy_is_kw(p, t, "WITH") || vmy_is_kw(p, t, "VALUES")) {
		read_statement(p);
	} else if (vmy_is_kw(p, t, "SELECT")) {
		if (!vmy_local_select(p))
			read_statement(p);
	} else if (vmy_is_kw(p, t, "SHOW")) {
		vmy_show(p);
	} else if (vmy_is_kw(p, t, "DESCRIBE") || vmy_is_kw(p, t, "DESC") || vmy_is_kw(p, t, "EXPLAIN")) {
		vmy_describe(p);
	} else if (vmy_is_kw(p, t, "SET")) {
		vmy_set(p);
	} else if (vmy_is_kw(p, t, "BEGIN") || (vmy_is_kw(p, t, "START") && vmy_kw_at(p, 1, "TRANSACTION"))) {
		vmy_begin(p);
	} else if (vmy_is_kw(p, t, "COMMIT")) {
		vmy_commit(p, false);
	} else if (vmy_is_kw(p, t, "ROLLBACK")) {
		vmy_commit(p, true);
	} else if (vmy_is_kw(p, t, "USE")) {
		vmy_use(p);
	} else if (vmy_is_kw(p, t, "LOCK") || vmy_is_kw(p, t, "UNLOCK")) {
		vmy_lock(p);
	} else if (p->pol->nwrite_tables &&
		   (vmy_is_kw(p, t, "INSERT") || vmy_is_kw(p, t, "UPDATE") || vmy_is_kw(p, t, "DELETE"))) {
		vmy_write(p);
	} else if (vmy_is_kw(p, t, "ANALYZE") && !vmy_kw_at(p, 1, "TABLE") && !vmy_kw_at(p, 1, "LOCAL") &&
		   !vmy_kw_at(p, 1, "NO_WRITE_TO_BINLOG")) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "use plain EXPLAIN (EXTENDED, PARTITIONS and FORMAT=JSON are fine)",
			   "Not supported through airlock: ANALYZE runs the statement");
	} else {
		refuse_statement(p, t);
	}
}

/* True when the plan holds a UUID() call, which only the rewrite of a read replaces. */
static bool has_uuid(const struct vmy_scope_plan *sp)
{
	for (size_t i = 0; i < sp->nrefs; i++) {
		if (sp->refs[i].rule == VMY_REF_UUID)
			return true;
	}
	return false;
}

void vmy_validate(const struct vmy_policy *pol, const char *sql, size_t len, struct vmy_result *out)
{
	static const struct vmy_policy deny_all;
	struct vmy_parser p;
	size_t ntok, stmt_end;

	memset(out, 0, sizeof(*out));
	out->kind = VMY_REFUSED;
	out->code = AIRLOCK_E_NONE;
	out->limit = -1;
	out->write.rule = -1;
	if (!pol)
		pol = &deny_all;
	if (!sql) {
		sql = "";
		len = 0;
	}
	if (!vmy_charset_supported(pol->charset)) {
		vmy_result_refuse(out, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE,
				  "reconnect with utf8mb4 (or run SET NAMES utf8mb4)",
				  "Access denied; statements in character set '%.32s' cannot be "
				  "checked by airlock",
				  pol->charset);
		return;
	}
	if (!prepass(pol, sql, len, out, &ntok, &stmt_end))
		return;
	if (ntok == 0) {
		out->kind = VMY_EMPTY;
		return;
	}
	out->stmt_len = stmt_end;
	vmy_parser_init(&p, pol, sql, len, out);
	dispatch(&p);
	if (out->kind != VMY_READ && out->kind != VMY_REFUSED && has_uuid(&out->scope))
		vmy_refuse(&p, AIRLOCK_E_FORBIDDEN_FUNCTION, AIRLOCK_N_NONE,
			   "uuid() is not allowed here: only a read puts a random UUID in its place",
			   "execute command denied to user '%.64s' for routine 'uuid'", pol->user ? pol->user : "");
	if (out->kind == VMY_REFUSED && !p.failed)
		vmy_syntax(&p, "airlock could not classify this statement");
	if (out->kind != VMY_WRITE) {
		memset(&out->write, 0, sizeof(out->write));
		out->write.rule = -1;
	}
	if (out->kind == VMY_REFUSED) {
		out->nassigns = 0;
		out->nitems = 0;
		out->nnames = 0;
		out->have_like = false;
		out->stmt_kind = NULL;
	} else {
		out->code = AIRLOCK_E_NONE;
	}
}
