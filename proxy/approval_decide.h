/*
 * approval_decide: an approver's decision on a held write, the one path
 * both the JSON API and the approval page take. It expires what is due,
 * moves the record (a compare-and-set: pending to approved or rejected, or
 * a first of two approvals), audits the decision by the record's id, and
 * starts the run when the approval completes the record's approvers.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_DECIDE_H
#define AIRLOCK_PROXY_APPROVAL_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "approval/approval_store.h"

struct server;

/*
 * Decides the record id (a valid id) for approver: approve, or reject.
 * reason (borrowed; "" or NULL for none) is recorded; the caller refuses a
 * rejection without one before calling. APPROVAL_OK when it moved,
 * APPROVAL_NOT_FOUND, APPROVAL_CONFLICT when it is no longer pending (or
 * this approver approved it already), else the store failed.
 */
enum approval_result approval_decide(struct server *srv, const char *id, bool approve, const char *approver,
				     const char *reason);

#endif
