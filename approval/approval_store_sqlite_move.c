/*
 * approval_store_sqlite_move: how a record's state changes in the SQLite
 * store. A move is checked against the table of transitions before the
 * file is touched, then done in one BEGIN IMMEDIATE transaction: read the
 * record, work out its next values, write them with an UPDATE whose WHERE
 * names the status and approvers it read (a compare-and-set), and check
 * that one row changed. expire and recover are one UPDATE each.
 *
 * Timestamps: decided_at is set to m->now by a decision only (approved,
 * rejected); later states (running, executed, drifted, failed) keep it,
 * and expired leaves it 0. A decision on a record whose expires_at <= now
 * is APPROVAL_CONFLICT even before expire has swept it: it is expired.
 */
#include "approval/approval_store_sqlite_int.h"

#include <stdio.h>
#include <string.h>

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

/* The reason recover records. */
#define SQLSTORE_RECOVER_REASON "airlockd stopped while this write ran; it is never run again by itself"

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

/* What can be told from m alone: the id's shape, the transition, the approver's name, the reason's length. */
static enum approval_result move_check(struct sqlstore *s, const struct approval_move *m)
{
	if (!m)
		return sqlstore_fail(s, APPROVAL_INVALID, "no move given");
	if (!approval_id_valid(m->id))
		return sqlstore_fail(s, APPROVAL_INVALID, "a malformed id");
	if (!transition_allowed(m->from, m->to))
		return sqlstore_fail(s, APPROVAL_INVALID, "record %s: no move from %s to %s", m->id,
				     status_label(m->from), status_label(m->to));
	if (is_decision(m->to) &&
	    (!m->by || !*m->by || strnlen(m->by, APPROVAL_MAX_NAME + 1) > APPROVAL_MAX_NAME || strchr(m->by, ',')))
		return sqlstore_fail(s, APPROVAL_INVALID,
				     "record %s: a decision needs the approver's name (1 to %d bytes, no comma)", m->id,
				     APPROVAL_MAX_NAME);
	if (m->reason && strnlen(m->reason, APPROVAL_MAX_REASON + 1) > APPROVAL_MAX_REASON)
		return sqlstore_fail(s, APPROVAL_INVALID, "record %s: the reason is longer than %d bytes", m->id,
				     APPROVAL_MAX_REASON);
	if (m->to == APPROVAL_EXECUTED && m->executed_rows < 0)
		return sqlstore_fail(s, APPROVAL_INVALID, "record %s: executed_rows must not be negative", m->id);
	if (m->to == APPROVAL_EXECUTED && m->result && strnlen(m->result, APPROVAL_MAX_TEXT + 1) > APPROVAL_MAX_TEXT)
		return sqlstore_fail(s, APPROVAL_INVALID, "record %s: the result is longer than %d bytes", m->id,
				     APPROVAL_MAX_TEXT);
	return APPROVAL_OK;
}

/* A record's next values: decided_by NULL and decided false keep the current ones. */
struct next {
	enum approval_status status;
	const char *approved_by;
	const char *decided_by;
	bool decided; /* decided_at = now */
	char both[APPROVAL_SQLITE_MAX_BY + 1];
};

/*
 * An approval: with one approver needed it decides; with two, the first
 * is recorded and the record stays pending, and a second, different one
 * decides with both names.
 */
static enum approval_result plan_approval(struct sqlstore *s, const struct approval_move *m, const struct approval *cur,
					  struct next *nx)
{
	const char *first = cur->approved_by;

	if (cur->approvals_needed == 1 || !*first) {
		if (*first)
			return sqlstore_fail(s, APPROVAL_IO, "record %s: pending, and approved by someone already",
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
		return sqlstore_fail(s, APPROVAL_IO, "record %s: pending, with two approvers already", cur->id);
	if (strcmp(first, m->by) == 0)
		return sqlstore_fail(s, APPROVAL_CONFLICT, "record %s: this approver has approved it already", cur->id);
	snprintf(nx->both, sizeof(nx->both), "%s,%s", first, m->by);
	nx->status = APPROVAL_APPROVED;
	nx->approved_by = nx->both;
	nx->decided_by = nx->both;
	nx->decided = true;
	return APPROVAL_OK;
}

/* The next values of cur (read in the open transaction) under m; CONFLICT when cur is not where m expects. */
static enum approval_result plan_move(struct sqlstore *s, const struct approval_move *m, const struct approval *cur,
				      struct next *nx)
{
	memset(nx, 0, sizeof(*nx));
	nx->status = m->to;
	nx->approved_by = cur->approved_by;
	if (cur->status != m->from)
		return sqlstore_fail(s, APPROVAL_CONFLICT, "record %s is %s, not %s", cur->id,
				     status_label(cur->status), status_label(m->from));
	if (is_decision(m->to) && cur->expires_at <= m->now)
		return sqlstore_fail(s, APPROVAL_CONFLICT, "record %s is past its expiry", cur->id);
	if (m->to == APPROVAL_APPROVED) {
		nx->status = APPROVAL_PENDING;
		return plan_approval(s, m, cur, nx);
	}
	if (m->to == APPROVAL_REJECTED) {
		nx->decided_by = m->by;
		nx->decided = true;
	}
	return APPROVAL_OK;
}

/* Writes nx over the record if it is still cur's status and approvers; CONFLICT when no row changed. */
static enum approval_result apply_move(struct sqlstore *s, const struct approval_move *m, const struct approval *cur,
				       const struct next *nx)
{
	static const char sql[] =
		"UPDATE approvals SET \"status\" = ?1, \"approved_by\" = ?2, "
		"\"decided_by\" = COALESCE(?3, \"decided_by\"), "
		"\"decided_at\" = COALESCE(?4, \"decided_at\"), \"reason\" = COALESCE(?5, \"reason\"), "
		"\"executed_rows\" = COALESCE(?6, \"executed_rows\"), \"result\" = COALESCE(?10, \"result\") "
		"WHERE \"id\" = ?7 AND \"status\" = ?8 AND \"approved_by\" = ?9";
	enum approval_result res = APPROVAL_OK;
	sqlite3_stmt *st;
	int rc = SQLITE_OK;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlstore_fail_db(s, "cannot move a record");
	rc = sqlite3_bind_text(st, 1, approval_status_name(nx->status), -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 2, nx->approved_by, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && nx->decided_by)
		rc = sqlite3_bind_text(st, 3, nx->decided_by, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && nx->decided)
		rc = sqlite3_bind_int64(st, 4, m->now);
	if (rc == SQLITE_OK && m->reason)
		rc = sqlite3_bind_text(st, 5, m->reason, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && m->to == APPROVAL_EXECUTED)
		rc = sqlite3_bind_int64(st, 6, m->executed_rows);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 7, cur->id, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 8, approval_status_name(cur->status), -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 9, cur->approved_by, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK && m->to == APPROVAL_EXECUTED && m->result)
		rc = sqlite3_bind_text(st, 10, m->result, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK) {
		res = sqlstore_fail_db(s, "cannot move a record");
		goto out_finalize;
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		res = sqlstore_fail_db(s, "cannot move a record");
	else if (sqlite3_changes(s->db) != 1)
		res = sqlstore_fail(s, APPROVAL_CONFLICT, "record %s was moved by someone else", cur->id);
out_finalize:
	sqlite3_finalize(st);
	return res;
}

enum approval_result sqlstore_move(struct approval_store *base, const struct approval_move *m)
{
	struct sqlstore *s = sqlstore_of(base);
	enum approval_result res = move_check(s, m);
	struct approval cur;
	struct next nx;

	if (res != APPROVAL_OK)
		return res;
	if (!sqlstore_begin(s))
		return APPROVAL_IO;
	res = sqlstore_get(base, m->id, &cur);
	if (res != APPROVAL_OK)
		goto out_rollback;
	res = plan_move(s, m, &cur, &nx);
	if (res == APPROVAL_OK)
		res = apply_move(s, m, &cur, &nx);
	approval_free(&cur);
	if (res != APPROVAL_OK)
		goto out_rollback;
	if (!sqlstore_commit(s))
		return APPROVAL_IO;
	return APPROVAL_OK;
out_rollback:
	sqlstore_rollback(s);
	return res;
}

/* Binds v to the parameter name of st when st has one. */
static int bind_named_text(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	return i ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : SQLITE_OK;
}

/*
 * Runs one UPDATE over many records; sql names those of :to, :from, :now
 * and :reason it uses. *n (when n is not NULL) counts the records changed.
 */
static enum approval_result sweep(struct sqlstore *s, const char *sql, enum approval_status from,
				  enum approval_status to, const char *reason, int64_t now, size_t *n)
{
	enum approval_result res = APPROVAL_OK;
	sqlite3_stmt *st;
	int rc, i;

	if (n)
		*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sqlstore_fail_db(s, "cannot sweep records");
	rc = bind_named_text(st, ":to", approval_status_name(to));
	if (rc == SQLITE_OK)
		rc = bind_named_text(st, ":from", approval_status_name(from));
	if (rc == SQLITE_OK)
		rc = bind_named_text(st, ":reason", reason);
	if (rc == SQLITE_OK && (i = sqlite3_bind_parameter_index(st, ":now")) != 0)
		rc = sqlite3_bind_int64(st, i, now);
	if (rc != SQLITE_OK) {
		res = sqlstore_fail_db(s, "cannot sweep records");
		goto out_finalize;
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		res = sqlstore_fail_db(s, "cannot sweep records");
	else if (n)
		*n = (size_t)sqlite3_changes64(s->db);
out_finalize:
	sqlite3_finalize(st);
	return res;
}

enum approval_result sqlstore_expire(struct approval_store *base, int64_t now, size_t *n)
{
	return sweep(sqlstore_of(base),
		     "UPDATE approvals SET \"status\" = :to WHERE \"status\" = :from AND \"expires_at\" <= :now",
		     APPROVAL_PENDING, APPROVAL_EXPIRED, NULL, now, n);
}

/* now is not recorded: decided_at keeps the decision's time, and the reason says what happened. */
enum approval_result sqlstore_recover(struct approval_store *base, int64_t now, size_t *n)
{
	return sweep(sqlstore_of(base),
		     "UPDATE approvals SET \"status\" = :to, \"reason\" = :reason WHERE \"status\" = :from",
		     APPROVAL_RUNNING, APPROVAL_FAILED, SQLSTORE_RECOVER_REASON, now, n);
}
