/*
 * approval_store_pg_move: how a record's state changes in the Postgres
 * store. A move is checked (approval_move_check) before the database is
 * touched; then the record is read, its next values worked out
 * (approval_move_plan), and written with one UPDATE whose WHERE names the
 * status and approvers it read: a compare-and-set, so of two nodes moving
 * one record at once exactly one changes it and the other is told
 * APPROVAL_CONFLICT. A move to running records this node in run_node.
 * expire and recover are one UPDATE each.
 */
#include "approval/approval_move_plan.h"
#include "approval/approval_store_pg_int.h"

#include <stdio.h>
#include <string.h>

/* Writes nx over the record if it is still cur's status and approvers; CONFLICT when no row changed. */
static enum approval_result apply_move(struct pgstore *s, const struct approval_move *m, const struct approval *cur,
				       const struct approval_next *nx)
{
	static const char sql[] =
		"UPDATE " PGSTORE_TABLE " SET \"status\" = $1, \"approved_by\" = $2, "
		"\"decided_by\" = COALESCE($3, \"decided_by\"), \"decided_at\" = COALESCE($4, \"decided_at\"), "
		"\"reason\" = COALESCE($5, \"reason\"), \"executed_rows\" = COALESCE($6, \"executed_rows\"), "
		"\"result\" = COALESCE($10, \"result\"), "
		"\"run_node\" = CASE WHEN $1 = 'running' THEN $11 ELSE \"run_node\" END "
		"WHERE \"id\" = $7 AND \"status\" = $8 AND \"approved_by\" = $9";
	const unsigned types[11] = {PGSTORE_OID_TEXT,  PGSTORE_OID_BYTEA, PGSTORE_OID_BYTEA, PGSTORE_OID_INT8,
				    PGSTORE_OID_BYTEA, PGSTORE_OID_INT8,  PGSTORE_OID_TEXT,  PGSTORE_OID_TEXT,
				    PGSTORE_OID_BYTEA, PGSTORE_OID_BYTEA, PGSTORE_OID_INT4};
	const char *values[11] = {0};
	int lengths[11] = {0};
	char now[8], rows[8], node[4];
	enum approval_result res = APPROVAL_OK;
	PGresult *r;

	values[0] = approval_status_name(nx->status);
	values[1] = nx->approved_by;
	values[2] = nx->decided_by;
	if (nx->decided) {
		pgstore_i64(m->now, now);
		values[3] = now;
		lengths[3] = 8;
	}
	values[4] = m->reason;
	if (m->to == APPROVAL_EXECUTED) {
		pgstore_i64(m->executed_rows, rows);
		values[5] = rows;
		lengths[5] = 8;
	}
	values[6] = cur->id;
	values[7] = approval_status_name(cur->status);
	values[8] = cur->approved_by;
	values[9] = m->to == APPROVAL_EXECUTED ? m->result : NULL;
	pgstore_i32(s->node, node);
	values[10] = node;
	lengths[10] = 4;
	for (int i = 0; i < 10; i++) {
		if (values[i] && i != 3 && i != 5)
			lengths[i] = (int)strlen(values[i]);
	}
	r = pgstore_exec(s, PGSTORE_RETRY_NEVER, "cannot move a record", sql, 11, types, values, lengths);
	if (!r)
		return APPROVAL_IO;
	if (strcmp(PQcmdTuples(r), "1") != 0)
		res = pgstore_fail(s, APPROVAL_CONFLICT, "record %s was moved by someone else", cur->id);
	PQclear(r);
	return res;
}

enum approval_result pgstore_move(struct approval_store *base, const struct approval_move *m)
{
	struct pgstore *s = pgstore_of(base);
	enum approval_result res = approval_move_check(m, s->err, sizeof(s->err));
	struct approval cur;
	struct approval_next nx;

	if (res != APPROVAL_OK)
		return res;
	res = pgstore_get(base, m->id, &cur);
	if (res != APPROVAL_OK)
		return res;
	res = approval_move_plan(m, &cur, &nx, s->err, sizeof(s->err));
	if (res == APPROVAL_OK)
		res = apply_move(s, m, &cur, &nx);
	approval_free(&cur);
	return res;
}

/* Runs one UPDATE over many records with n parameters; *n_changed counts the records changed. */
static enum approval_result sweep(struct pgstore *s, const char *sql, int n, const unsigned *types,
				  const char *const *values, const int *lengths, size_t *n_changed)
{
	PGresult *r;
	unsigned long long changed = 0;

	if (n_changed)
		*n_changed = 0;
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot sweep records", sql, n, types, values, lengths);
	if (!r)
		return APPROVAL_IO;
	if (sscanf(PQcmdTuples(r), "%llu", &changed) != 1)
		changed = 0;
	if (n_changed)
		*n_changed = (size_t)changed;
	PQclear(r);
	return APPROVAL_OK;
}

enum approval_result pgstore_expire(struct approval_store *base, int64_t now, size_t *n)
{
	const unsigned types[1] = {PGSTORE_OID_INT8};
	const int lengths[1] = {8};
	char t[8];
	const char *values[1] = {t};

	pgstore_i64(now, t);
	return sweep(pgstore_of(base),
		     "UPDATE " PGSTORE_TABLE " SET \"status\" = 'expired' WHERE \"status\" = 'pending' AND "
		     "\"expires_at\" <= $1",
		     1, types, values, lengths, n);
}

/* now is not recorded: decided_at keeps the decision's time, and the reason says what happened. */
enum approval_result pgstore_recover(struct approval_store *base, int64_t now, size_t *n)
{
	struct pgstore *s = pgstore_of(base);
	const unsigned types[2] = {PGSTORE_OID_BYTEA, PGSTORE_OID_INT4};
	const int lengths[2] = {(int)sizeof(APPROVAL_RECOVER_REASON) - 1, 4};
	char node[4];
	const char *values[2] = {APPROVAL_RECOVER_REASON, node};

	(void)now;
	pgstore_i32(s->node, node);
	return sweep(s,
		     "UPDATE " PGSTORE_TABLE " SET \"status\" = 'failed', \"reason\" = $1 WHERE \"status\" = "
		     "'running' AND \"run_node\" = $2",
		     2, types, values, lengths, n);
}
