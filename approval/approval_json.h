/*
 * approval_json: held writes as JSON, for the approval listener's API and
 * airlockctl. Pure but for the store's reads; appends to a wbuf the caller
 * owns (check w->failed once at the end).
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_JSON_H
#define AIRLOCK_APPROVAL_APPROVAL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval.h"
#include "approval/approval_store.h"

struct wbuf;

/*
 * One record as a JSON object: id, status, user, protocol, client_addr,
 * application_name, statement, params (the store's JSON array, as a
 * string), rewritten, rows, plan (the dry run's, text), sample (the dry
 * run's rows, approval_sample.h, as a JSON value; null when the record has
 * none), created_at, expires_at (unix ms),
 * approvals_needed, approved_by, decided_by, decided_at, reason,
 * executed_rows, and suspicious (a string held a character a person
 * cannot see, or bytes that are not UTF-8). a is borrowed.
 */
bool approval_json_record(struct wbuf *w, const struct approval *a);

/* The records in status, oldest first, at most limit, as a JSON array. */
enum approval_result approval_json_list(struct approval_store *st, enum approval_status status, size_t limit,
					struct wbuf *w);

#endif
