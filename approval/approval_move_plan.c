/*
 * approval_move_plan: the table of transitions and the next values of a
 * record under a move (approval_move_plan.h).
 */
#include "approval/approval_move_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static enum approval_result fail(char *err, size_t errlen, enum approval_result code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum approval_result fail(char *err, size_t errlen, enum approval_result code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* The moves there are (approval.h draws them); any other is APPROVAL_INVALID. */
static const struct {
	enum approval_status from;
	enum approval_status to;
} transitions[] = {
	{APPROVAL_PENDING, APPROVAL_APPROVED}, {APPROVAL_PENDING, APPROVAL_REJECTED},
	{APPROVAL_PENDING, APPROVAL_EXPIRED},  {APPROVAL_APPROVED, APPROVAL_RUNNING},
	{APPROVAL_APPROVED, APPROVAL_DRIFTED}, {APPROVAL_APPROVED, APPROVAL_FAILED},
	{APPROVAL_RUNNING, APPROVAL_EXECUTED}, {APPROVAL_RUNNING, APPROVAL_FAILED},
	{APPROVAL_RUNNING, APPROVAL_DRIFTED},
};

static bool transition_allowed(enum approval_status from, enum approval_status to)
{
	for (size_t i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++) {
		if (transitions[i].from == from && transitions[i].to == to)
			return true;
	}
	return false;
}

static bool is_decision(enum approval_status to)
{
	return to == APPROVAL_APPROVED || to == APPROVAL_REJECTED;
}

static const char *status_label(enum approval_status st)
{
	const char *name = approval_status_name(st);

	return name ? name : "(no such status)";
}

enum approval_result approval_move_check(const struct approval_move *m, char *err, size_t errlen)
{
	if (!m)
		return fail(err, errlen, APPROVAL_INVALID, "no move given");
	if (!approval_id_valid(m->id))
		return fail(err, errlen, APPROVAL_INVALID, "a malformed id");
	if (!transition_allowed(m->from, m->to))
		return fail(err, errlen, APPROVAL_INVALID, "record %s: no move from %s to %s", m->id,
			    status_label(m->from), status_label(m->to));
	if (is_decision(m->to) &&
	    (!m->by || !*m->by || strnlen(m->by, APPROVAL_MAX_NAME + 1) > APPROVAL_MAX_NAME || strchr(m->by, ',')))
		return fail(err, errlen, APPROVAL_INVALID,
			    "record %s: a decision needs the approver's name (1 to %d bytes, no comma)", m->id,
			    APPROVAL_MAX_NAME);
	if (m->reason && strnlen(m->reason, APPROVAL_MAX_REASON + 1) > APPROVAL_MAX_REASON)
		return fail(err, errlen, APPROVAL_INVALID, "record %s: the reason is longer than %d bytes", m->id,
			    APPROVAL_MAX_REASON);
	if (m->to == APPROVAL_EXECUTED && m->executed_rows < 0)
		return fail(err, errlen, APPROVAL_INVALID, "record %s: executed_rows must not be negative", m->id);
	if (m->to == APPROVAL_EXECUTED && m->result && strnlen(m->result, APPROVAL_MAX_TEXT + 1) > APPROVAL_MAX_TEXT)
		return fail(err, errlen, APPROVAL_INVALID, "record %s: the result is longer than %d bytes", m->id,
			    APPROVAL_MAX_TEXT);
	return APPROVAL_OK;
}

/*
 * An approval: with one approver needed it decides; with two, the first
 * is recorded and the record stays pending, and a second, different one
 * decides with both names.
 */
static enum approval_result plan_approval(const struct approval_move *m, const struct approval *cur,
					  struct approval_next *nx, char *err, size_t errlen)
{
	const char *first = cur->approved_by;

	if (cur->approvals_needed == 1 || !*first) {
		if (*first)
			return fail(err, errlen, APPROVAL_IO, "record %s: pending, and approved by someone already",
				    cur->id);
		nx->approved_by = m->by;
		if (cur->approvals_needed == 1) {
			nx->status = APPROVAL_APPROVED;
			nx->decided_by = m->by;
			nx->decided = true;
		}
		return APPROVAL_OK;
	}
	if (strchr(first, ','))
		return fail(err, errlen, APPROVAL_IO, "record %s: pending, with two approvers already", cur->id);
	if (strcmp(first, m->by) == 0)
		return fail(err, errlen, APPROVAL_CONFLICT, "record %s: this approver has approved it already",
			    cur->id);
	snprintf(nx->both, sizeof(nx->both), "%s,%s", first, m->by);
	nx->status = APPROVAL_APPROVED;
	nx->approved_by = nx->both;
	nx->decided_by = nx->both;
	nx->decided = true;
	return APPROVAL_OK;
}

enum approval_result approval_move_plan(const struct approval_move *m, const struct approval *cur,
					struct approval_next *nx, char *err, size_t errlen)
{
	memset(nx, 0, sizeof(*nx));
	nx->status = m->to;
	nx->approved_by = cur->approved_by;
	if (cur->status != m->from)
		return fail(err, errlen, APPROVAL_CONFLICT, "record %s is %s, not %s", cur->id,
			    status_label(cur->status), status_label(m->from));
	if (is_decision(m->to) && cur->expires_at <= m->now)
		return fail(err, errlen, APPROVAL_CONFLICT, "record %s is past its expiry", cur->id);
	if (m->to == APPROVAL_APPROVED) {
		nx->status = APPROVAL_PENDING;
		return plan_approval(m, cur, nx, err, errlen);
	}
	if (m->to == APPROVAL_REJECTED) {
		nx->decided_by = m->by;
		nx->decided = true;
	}
	return APPROVAL_OK;
}
