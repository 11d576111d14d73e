/*
 * approval_run: what happens to a held write once a person approved it.
 * It is validated again against the policy in force now, dry-run again,
 * and run only when it still touches exactly the rows the approver saw:
 * otherwise it is drifted (the rows changed) or failed (the policy or the
 * database refuses it now), and nothing is written. It runs once, in a
 * one-shot runner with the user's write role, in a transaction that rolls
 * back if it touches more rows than approved. Each step moves the record
 * in the store (approved -> running -> executed, or drifted, or failed) and
 * is audited.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_RUN_H
#define AIRLOCK_PROXY_APPROVAL_RUN_H

#include <stdbool.h>

struct server;

/*
 * Starts the run of the approved record id (its status approved). Returns
 * at once; the record moves as the run goes. False when nothing could be
 * started, the record then moved to failed with the reason.
 */
bool approval_run_start(struct server *srv, const char *id);

#endif
