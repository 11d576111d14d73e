/*
 * ctl_api: the approval listener's JSON API as airlockctl uses it: which
 * method, URL and body a command is, and what a reply's HTTP status means.
 * Pure: no I/O; the request's body is the only allocation.
 *
 *	pending  GET  URL/api/approvals?status=NAME
 *	show     GET  URL/api/approvals/ID
 *	approve  POST URL/api/approvals/ID/approve  {"reason": TEXT} or {}
 *	reject   POST URL/api/approvals/ID/reject   {"reason": TEXT}
 *
 * The id and status name were checked by ctl_args_parse (approval_id_valid,
 * approval_status_parse), so nothing in the URL needs encoding.
 *
 * Ownership: a struct ctl_request owns its body; ctl_api_request_free
 * frees it.
 */
#ifndef AIRLOCK_CTL_CTL_API_H
#define AIRLOCK_CTL_CTL_API_H

#include <stdbool.h>

#include "ctl/ctl_args.h"

/* airlockctl's exit status. */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_REFUSED = 1,   /* the server answered 4xx/5xx, or a reply that is not the API's */
	CTL_EXIT_USAGE = 2,     /* the command line; no request was sent */
	CTL_EXIT_TRANSPORT = 3, /* no reply: connection, TLS, timeout, a reply over the size limit */
};

#define CTL_REQUEST_URL_MAX (CTL_URL_MAX + 64)

struct ctl_request {
	const char *method; /* "GET" or "POST" (static) */
	char url[CTL_REQUEST_URL_MAX];
	char *body; /* POST: JSON, malloc'd, owned; NULL for GET */
};

/*
 * The request a parsed command line asks for (any command but CTL_HELP);
 * false (nothing to free) when the body cannot be built: out of memory, or
 * a reason that is not UTF-8.
 */
bool ctl_api_request(const struct ctl_args *a, struct ctl_request *out);

/* Frees the body; r is then as zeroed. */
void ctl_api_request_free(struct ctl_request *r);

/* The status is a success (2xx): the body is what the command asked for. */
bool ctl_api_success(long status);

/* What a refusal means to the approver, a few static words, or NULL when the server's message says it all. */
const char *ctl_api_status_hint(long status);

#endif
