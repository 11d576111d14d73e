/*
 * runner_pg_guard: the guard read of a job (validator/pg/validate_pg_guard.h):
 * sent before the statement in its transaction, its own error refuses the
 * statement, which then never runs, as FORBIDDEN_FUNCTION naming what the
 * statement would have reached.
 */
#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/errors.h"
#include "runner/runner_ctl.h"
#include "runner/runner_pg_int.h"

/*
 * The guard's own error (validate_pg_guard.h) becomes OUT_GUARD, what it
 * names kept; any other error stays the job's.
 */
enum outcome guard_outcome(struct pg_run *r)
{
	const char *state, *msg, *at, *end;

	if (!r->error)
		return OUT_OK;
	state = PQresultErrorField(r->error, PG_DIAG_SQLSTATE);
	msg = PQresultErrorField(r->error, PG_DIAG_MESSAGE_PRIMARY);
	at = msg ? strstr(msg, "\"" FRAME_GUARD_PREFIX) : NULL;
	if (!state ||
	    strcmp(state, airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_TEXT_REPRESENTATION)) != 0 || !at)
		return OUT_OK;
	at += strlen("\"" FRAME_GUARD_PREFIX);
	end = strrchr(at, '"');
	snprintf(r->guard_what, sizeof(r->guard_what), "%.*s", end ? (int)(end - at) : 0, at);
	PQclear(r->error);
	r->error = NULL;
	return OUT_GUARD;
}

/* The guard, alone, after the settings: before anything parses or plans the statement. */
enum outcome check_guard(struct pg_run *r, int64_t deadline)
{
	enum outcome o;

	if (!PQsendQueryParams(r->conn, r->job->guard, 0, NULL, NULL, NULL, NULL, 0))
		return OUT_LOST;
	o = collect(r, deadline);
	return o == OUT_OK ? guard_outcome(r) : o;
}

/* The guard's refusal, in the terms of the validator's FORBIDDEN_FUNCTION. */
void send_guard_refusal(struct pg_run *r)
{
	static const char unchecked[] = "its body is not checked: it would run with the backend role's grants, past "
					"your tables, row filters and masks";
	const char *state = airlock_err_pg_sqlstate(AIRLOCK_E_FORBIDDEN_FUNCTION);
	const char *name = airlock_err_name(AIRLOCK_E_FORBIDDEN_FUNCTION);
	const char *what = r->guard_what;
	char msg[512];

	if (strncmp(what, "inherits ", 9) == 0) {
		state = airlock_err_pg_sqlstate(AIRLOCK_E_TABLE_NOT_ALLOWED);
		name = airlock_err_name(AIRLOCK_E_TABLE_NOT_ALLOWED);
		snprintf(msg, sizeof(msg),
			 "%s: table %s has inheritance children or partitions that are not among your tables, or "
			 "that have a row filter or column list of their own: a read of it would show their rows",
			 name, what + 9);
		runner_ctl_error(r->ctl, FRAME_ERROR, state, name, msg, "",
				 "read only its own rows with FROM ONLY, or ask the operator to allow its children");
		return;
	}
	if (strncmp(what, "operator ", 9) == 0) {
		snprintf(msg, sizeof(msg),
			 "%s: operator %s is not allowed here: the database defines one with a function that is not "
			 "built in and not listed in the user's functions (%s)",
			 name, what + 9, unchecked);
		runner_ctl_error(r->ctl, FRAME_ERROR, state, name, msg, "",
				 "write the expression with built-in operators and types, or ask the operator to list "
				 "the operator's function in the user's functions");
	} else if (strncmp(what, "function ", 9) == 0) {
		snprintf(msg, sizeof(msg),
			 "%s: column notation .%s is not allowed: the database defines a function %s(), which x.%s "
			 "calls when x has no such column (%s)",
			 name, what + 9, what + 9, what + 9, unchecked);
		runner_ctl_error(r->ctl, FRAME_ERROR, state, name, msg, "",
				 "if it is a column, write it without the table's name; a function the database "
				 "defines runs only when the operator lists it in the user's functions");
	} else if (strcmp(what, "domain") == 0) {
		snprintf(msg, sizeof(msg),
			 "%s: a domain the statement casts to checks its values with a function that is not built "
			 "in and not listed in the user's functions (%s)",
			 name, unchecked);
		runner_ctl_error(r->ctl, FRAME_ERROR, state, name, msg, "",
				 "cast to the domain's base type, or ask the operator to list the function its check "
				 "calls in the user's functions");
	} else {
		snprintf(msg, sizeof(msg),
			 "%s: the statement can reach a cast the database defines with a function that is not built "
			 "in and not listed in the user's functions (%s)",
			 name, unchecked);
		runner_ctl_error(r->ctl, FRAME_ERROR, state, name, msg, "",
				 "ask the operator to list the cast's function in the user's functions");
	}
}
