/*
 * validate_my_lock: see validate_my_lock.h.
 */
#include "validator/mysql/validate_my_lock.h"

#include "validator/mysql/validate_my_names.h"

/* [db.]t [[AS] alias] READ [LOCAL] */
static bool one_table(struct vmy_parser *p)
{
	char a[VMY_NAME_MAX], b[VMY_NAME_MAX];
	bool ok;

	if (!vmy_accept_name(p, a, sizeof(a)))
		return false;
	if (vmy_accept_punct(p, ".")) {
		if (!vmy_accept_name(p, b, sizeof(b)))
			return false;
		ok = vmy_check_table(p, a, b);
	} else {
		ok = vmy_check_table(p, NULL, a);
	}
	if (!ok)
		return false;
	if (vmy_accept_kw(p, "AS") ||
	    (!vmy_kw_at(p, 0, "READ") && !vmy_kw_at(p, 0, "WRITE") && !vmy_kw_at(p, 0, "LOW_PRIORITY"))) {
		if (!vmy_accept_name(p, a, sizeof(a)))
			return false;
	}
	if (vmy_accept_kw(p, "READ")) {
		(void)vmy_accept_kw(p, "LOCAL");
		return true;
	}
	if (vmy_kw_at(p, 0, "WRITE") || vmy_kw_at(p, 0, "LOW_PRIORITY")) {
		vmy_refuse_write(p, "LOCK TABLES ... WRITE");
		return false;
	}
	vmy_syntax(p, "READ [LOCAL] was expected");
	return false;
}

void vmy_lock(struct vmy_parser *p)
{
	bool unlock = vmy_kw_at(p, 0, "UNLOCK");

	vmy_next(p); /* LOCK / UNLOCK */
	if (!vmy_accept_kw(p, "TABLES") && !vmy_accept_kw(p, "TABLE")) {
		vmy_syntax(p, unlock ? "UNLOCK TABLES was expected" : "LOCK TABLES was expected");
		return;
	}
	if (!unlock) {
		do {
			if (!one_table(p))
				return;
		} while (vmy_accept_punct(p, ","));
	}
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of the statement"))
		return;
	p->out->kind = VMY_LOCK_TABLES;
}
