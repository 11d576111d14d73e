/*
 * approval_http: the approval listener (approval_listen), HTTPS with the
 * server's certificate, where approvers ([approver NAME]) decide held
 * writes through a JSON API:
 *
 *   GET  /api/approvals?status=S       the records in status S (pending
 *                                      when absent), oldest first
 *   GET  /api/approvals/ID             one record
 *   POST /api/approvals/ID/approve     {"reason": "..."} optional
 *   POST /api/approvals/ID/reject      {"reason": "..."} required
 *
 * Every other path is the approval page for people in a browser
 * (approval_web.h), with its own login form and sessions.
 *
 * Every API request carries HTTP Basic credentials, checked against the
 * approver's verifier; failures count and wait with the listeners' (the
 * same login guard, approval_login.h), and a request that must wait is
 * answered 429 with Retry-After. A POST must be application/json, which no cross-site form
 * can send. Answers are JSON (approval_json.h) with a content security
 * policy that allows nothing, nosniff and no-store. Decisions go through
 * approval_decide.h, as the page's do.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_HTTP_H
#define AIRLOCK_PROXY_APPROVAL_HTTP_H

#include <stddef.h>

struct server;
struct approval_http;

/* Binds cfg's approval_listen; NULL with the reason in err. The caller frees it with approval_http_free. */
struct approval_http *approval_http_new(struct server *srv, char *err, size_t errlen);
void approval_http_free(struct approval_http *h);

#endif
