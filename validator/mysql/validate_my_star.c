/* validate_my_star: see validate_my_star.h. */
#include "validator/mysql/validate_my_star.h"

#include "validator/mysql/validate_my_lex.h"

bool vmy_star_output(struct vmy_parser *p, bool output)
{
	bool was = p->star_output;

	p->star_output = output;
	return was;
}

void vmy_star_note(struct vmy_parser *p, const struct vmy_token *t, bool item_start)
{
	if (p->star_output && item_start && !p->star_at && vmy_tok_punct(p->sql, t, "*"))
		p->star_at = t->start + 1;
}

bool vmy_star_refused(struct vmy_parser *p)
{
	const char *user = p->pol->user ? p->pol->user : "";

	/* A rewrite's stars are airlock's own, inside derived tables: the agent's text was judged. */
	if (!p->pol->forbid_star || p->pol->rewrite || !p->star_at)
		return false;
	vmy_refuse(p, AIRLOCK_E_SELECT_STAR, AIRLOCK_N_NONE,
		   "name the columns you need (SELECT a, b FROM t); COUNT(*) and EXISTS (SELECT * ...) are fine",
		   "SELECT * is not allowed for user '%.64s': a star in the result's columns (SELECT *, t.*) reads "
		   "every column",
		   user);
	return true;
}
