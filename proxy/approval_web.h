/*
 * approval_web: the approval page, for people in a browser, on the
 * approval listener beside the JSON API (approval_http.c routes every
 * path outside /api/ here). No script: plain HTML forms.
 *
 *   GET  /                       the login form, or with an approver's
 *                                session the pending writes (an admin's:
 *                                303 to /ops)
 *   GET  /ops                    the operator's page (ops_page.h), admins only
 *   POST /login                  name, password (form-encoded): a session
 *   POST /logout                 csrf: ends the session
 *   GET  /approval/ID            one record in full
 *   POST /approval/ID/approve    csrf, reason (optional)
 *   POST /approval/ID/reject     csrf, reason (required)
 *   GET  /style.css              the page's style sheet
 *
 * A login is checked as Basic credentials are (approval_login.h), and
 * may be an approver's or an [admin NAME]'s: a session's role is bound
 * into it, admins see /ops only, approvers everything else. It makes
 * a server-side session (approval_web_session.h): the cookie
 * "__Host-airlock" (Secure, HttpOnly, SameSite=Strict, Path=/) and a CSRF
 * token every form carries. A POST is refused (403) when Sec-Fetch-Site
 * is present and not same-origin, when its Origin is present and is not
 * this listener's (https:// and the request's Host; "null", which the
 * pages' no-referrer policy makes a browser send, only beside
 * Sec-Fetch-Site: same-origin), and, past /login,
 * without a live session or with a CSRF token other than the session's.
 * Every answer carries a content security policy that allows no script,
 * no frame, no image and forms to this origin only, nosniff, no-store,
 * no referrer and X-Frame-Options DENY.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_WEB_H
#define AIRLOCK_PROXY_APPROVAL_WEB_H

struct server;
struct approval_web;
struct evhttp_request;

/* The page's state (its sessions) for srv (borrowed; outlives it); NULL when out of memory. The caller frees it. */
struct approval_web *approval_web_new(struct server *srv);
/* Ends every session; NULL is fine. */
void approval_web_free(struct approval_web *web);

/* Answers req, whose path (borrowed; as the request line has it, undecoded) is outside /api/. */
void approval_web_handle(struct approval_web *web, struct evhttp_request *req, const char *path);

#endif
