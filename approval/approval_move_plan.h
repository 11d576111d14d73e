/*
 * approval_move_plan: how a record's state may change, whatever store
 * holds it. approval_move_check refuses what can be told from the move
 * alone (before a store is touched); approval_move_plan works out a
 * record's next values from the record as the store read it, and the
 * store then writes them with a compare-and-set on the status and
 * approvers it read.
 *
 * Timestamps: decided_at is set to m->now by a decision only (approved,
 * rejected); later states (running, executed, drifted, failed) keep it,
 * and expired leaves it 0. A decision on a record whose expires_at <= now
 * is APPROVAL_CONFLICT even before expire has swept it: it is expired.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_MOVE_PLAN_H
#define AIRLOCK_APPROVAL_APPROVAL_MOVE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval_record.h"
#include "approval/approval_store.h"

/* The reason recover records on a write left running. */
#define APPROVAL_RECOVER_REASON "airlockd stopped while this write ran; it is never run again by itself"

/*
 * A record's next values. approved_by and decided_by point into the move,
 * the record read or both (borrowed from them); decided_by NULL and
 * decided false keep the current ones.
 */
struct approval_next {
	enum approval_status status;
	const char *approved_by;
	const char *decided_by;
	bool decided; /* decided_at = now */
	char both[RECORD_MAX_BY + 1];
};

/* What can be told from m alone: the id's shape, the transition, the approver's name, the reason's length. */
enum approval_result approval_move_check(const struct approval_move *m, char *err, size_t errlen);

/* The next values of cur under m; APPROVAL_CONFLICT when cur is not where m expects, with err saying why. */
enum approval_result approval_move_plan(const struct approval_move *m, const struct approval *cur,
					struct approval_next *nx, char *err, size_t errlen);

#endif
