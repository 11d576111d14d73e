/*
 * approval_web_session: the approval page's logins, kept in airlockd's
 * memory only. A session is a random 256-bit token (the cookie), the
 * approver it belongs to and a second random 256-bit token that every form
 * the page serves carries back (its CSRF token). A session ends after
 * idle_ms without a request, absolute_ms after its login, or on logout;
 * a restart ends them all.
 *
 * The table holds at most max sessions: a login into a full table ends
 * the session idle longest. Tokens are compared in constant time, and a
 * look-up compares against every slot, so the time a look-up takes says
 * nothing about which tokens exist.
 *
 * A session also holds a binding the caller chose at login (the page's:
 * a digest of the approver's name and verifier), so the caller can end a
 * session whose approver was removed or given a new password since.
 *
 * Shared (web_sessions_share, with a store several nodes share): every
 * login is also kept in the store, under the SHA-256 of its token, and a
 * look-up reads it there, so a login made on one node's page holds on
 * every node's and a logout on one ends it on all; the table is then each
 * node's copy of what the store says, and times are unix milliseconds.
 *
 * Ownership: the table owns every session; a pointer it returns is
 * borrowed and stays valid until the next call that creates or ends a
 * session (web_sessions_create, web_sessions_end, web_sessions_free).
 * Times are the caller's monotonic milliseconds.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_WEB_SESSION_H
#define AIRLOCK_PROXY_APPROVAL_WEB_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approval/approval.h"
#include "approval/approval_store.h"

#define WEB_SESSION_TOKEN_BYTES 32
/* A token as text: lower-case hex, two characters a byte. */
#define WEB_SESSION_TOKEN_LEN (2 * WEB_SESSION_TOKEN_BYTES)
#define WEB_SESSION_BINDING_LEN 32

struct web_session {
	char token[WEB_SESSION_TOKEN_LEN + 1]; /* the cookie's value */
	char csrf[WEB_SESSION_TOKEN_LEN + 1];  /* the forms' hidden csrf value */
	char approver[APPROVAL_MAX_NAME + 1];
	unsigned char binding[WEB_SESSION_BINDING_LEN]; /* as given at login */
	int64_t created_ms;
	int64_t last_ms; /* the last request that found it */
	bool used;
};

struct web_sessions;

/* An empty table of at most max (> 0) sessions; NULL when out of memory. The caller frees it. */
struct web_sessions *web_sessions_new(size_t max, int64_t idle_ms, int64_t absolute_ms);
/* Wipes and frees every session and the table; NULL is fine. */
void web_sessions_free(struct web_sessions *t);

/*
 * Keeps the logins in store from now on when store has login ops (see
 * above); NULL, or a store without them, keeps them in the table alone.
 * store is borrowed: the caller calls this again before it closes it.
 */
void web_sessions_share(struct web_sessions *t, struct approval_store *store);
/* The time the table's calls take: unix milliseconds when shared, else the monotonic clock's. */
int64_t web_sessions_now(const struct web_sessions *t);

/*
 * A new session for approver (copied; at most APPROVAL_MAX_NAME bytes)
 * bound to binding (WEB_SESSION_BINDING_LEN bytes, copied; NULL: zeros) at
 * now, with fresh tokens from the system's random source; NULL when that
 * source failed or the name is too long. Borrowed (see above).
 */
const struct web_session *web_sessions_create(struct web_sessions *t, const char *approver,
					      const unsigned char *binding, int64_t now);

/*
 * The live session whose token is token (any string; NULL finds nothing),
 * touched at now; NULL when none is, or it has expired (it is then ended).
 * Borrowed (see above).
 */
const struct web_session *web_sessions_find(struct web_sessions *t, const char *token, int64_t now);

/* Ends the session whose token is token; nothing when none is. */
void web_sessions_end(struct web_sessions *t, const char *token);

/* csrf (any string; NULL is false) equals the session's CSRF token, compared in constant time. */
bool web_session_csrf_ok(const struct web_session *s, const char *csrf);

/* Live sessions in the table at now (for the tests and the log; shared, this node's copies). */
size_t web_sessions_count(struct web_sessions *t, int64_t now);

#endif
