/*
 * validate_my_sysvar: @@[scope.]name in a statement the MySQL validator
 * reads (see validate_my_read.h): @@global values and variables outside
 * the readable list are refused, since they name the backend's host,
 * paths and ports.
 */
#include "validator/mysql/validate_my_read.h"

#include <stdio.h>
#include <string.h>

#include "validator/mysql/validate_my_funcs.h"

bool vmy_read_sysvar(struct vmy_parser *p)
{
	char name[VMY_NAME_MAX], lower[VMY_NAME_MAX], hint[512];
	const struct vmy_token *t;
	bool global = false;

	vmy_next(p); /* @@ */
	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_WORD && vmy_punct_at(p, 1, ".") &&
	    (vmy_word_is(p, t, "GLOBAL") || vmy_word_is(p, t, "SESSION") || vmy_word_is(p, t, "LOCAL"))) {
		global = vmy_word_is(p, t, "GLOBAL");
		vmy_next(p);
		vmy_next(p);
		t = vmy_peek(p, 0);
	}
	if (!vmy_accept_name(p, name, sizeof(name)))
		return false;
	vmy_lower_copy(lower, sizeof(lower), name, strlen(name));
	snprintf(hint, sizeof(hint),
		 "readable system variables: %s; @@global values are not "
		 "shown through airlock",
		 vmy_sysvar_list());
	if (vmy_punct_at(p, 0, ".")) {
		vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, hint,
			   "Access denied to structured system variable '@@%.64s.*'", lower);
		return false;
	}
	if (global || !vmy_sysvar_readable(lower)) {
		vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, hint,
			   "Access denied to system variable '@@%s%.64s'", global ? "global." : "", lower);
		return false;
	}
	return true;
}
