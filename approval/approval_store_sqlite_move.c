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
#include "approval/approval_move_plan.h"
#include "approval/approval_store_sqlite_int.h"

#include <stdio.h>
#include <string.h>

/* Writes nx over the record if it is still cur's status and approvers; CONFLICT when no row changed. */
static enum approval_result apply_move(struct sqlstore *s, const struct approval_move *m, const struct approval *cur,
				       const struct approval_next *nx)
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
	enum approval_result res = approval_move_check(m, s->err, sizeof(s->err));
	struct approval cur;
	struct approval_next nx;

	if (res != APPROVAL_OK)
		return res;
	if (!sqlstore_begin(s))
		return APPROVAL_IO;
	res = sqlstore_get(base, m->id, &cur);
	if (res != APPROVAL_OK)
		goto out_rollback;
	res = approval_move_plan(m, &cur, &nx, s->err, sizeof(s->err));
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
		     APPROVAL_RUNNING, APPROVAL_FAILED, APPROVAL_RECOVER_REASON, now, n);
}
