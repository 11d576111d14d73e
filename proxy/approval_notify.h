/*
 * approval_notify: the webhook (approval_webhook) told of each new held
 * write, so a team channel can show it. One JSON POST per pending record,
 * sent from the event loop without blocking it (curl's multi interface on
 * the loop's events); a delivery that fails is logged and never retried,
 * and never delays or fails the hold that asked for it.
 *
 * Ownership: approval_notify_new copies what it needs of the config, so
 * the config may be freed while the notifier lives; approval_notify_free
 * ends the deliveries still in flight. The record passed to
 * approval_notify_pending is borrowed for the call only.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_NOTIFY_H
#define AIRLOCK_PROXY_APPROVAL_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct airlock_config;
struct approval;
struct event_base;
struct wbuf;

/* Deliveries in flight at once; a held write beyond them is not announced (a warning says so). */
#define APPROVAL_NOTIFY_MAX_INFLIGHT 64
/* The statement's first bytes the body carries, cut back to a whole UTF-8 character. */
#define APPROVAL_NOTIFY_STATEMENT_MAX 1000
/* A reply's body is read and dropped; one longer than this ends the delivery. */
#define APPROVAL_NOTIFY_REPLY_MAX (64 * 1024)
/* "sha256=" and 64 hex digits: the X-Airlock-Signature value. */
#define APPROVAL_NOTIFY_SIG_LEN (7 + 64)

struct approval_notify;

/*
 * A notifier for cfg->approval_webhook on base (cfg->approval_webhook must
 * be set). NULL with the reason in err when it cannot be made.
 */
struct approval_notify *approval_notify_new(struct event_base *base, const struct airlock_config *cfg, char *err,
					    size_t errlen);

/* Starts one POST announcing a (a pending record). n NULL: nothing is sent. */
void approval_notify_pending(struct approval_notify *n, const struct approval *a);

/* The webhook's host, for the log (the URL's path may hold a token and is never logged). */
const char *approval_notify_host(const struct approval_notify *n);

/* Deliveries in flight now (for the tests). */
unsigned approval_notify_inflight(const struct approval_notify *n);

/* Ends every delivery in flight, unsent, and frees n. NULL is fine. */
void approval_notify_free(struct approval_notify *n);

/*
 * The POST's body for a, appended to out:
 *   {"event":"approval.pending","id":...,"user":...,"protocol":...,
 *    "rows":N,"statement":...,"statement_truncated":bool,
 *    "created_at":ms,"expires_at":ms,"url":...}
 * Every string goes through approval_json_string; the statement is its
 * first APPROVAL_NOTIFY_STATEMENT_MAX bytes, cut at a character boundary.
 * "url" is https://listen_host:listen_port/approval/<id>, present only
 * when listen_host is not NULL. Returns !out->failed.
 */
bool approval_notify_body(struct wbuf *out, const struct approval *a, const char *listen_host, uint16_t listen_port);

/*
 * "sha256=" and the lower-case hex HMAC-SHA256 of body under key, NUL
 * terminated, into out. False when the digest could not be made.
 */
bool approval_notify_sign(const char *key, size_t keylen, const void *body, size_t len,
			  char out[APPROVAL_NOTIFY_SIG_LEN + 1]);

#endif
