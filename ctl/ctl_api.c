/*
 * ctl_api: see ctl_api.h.
 */
#include "ctl/ctl_api.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The POST body: {"reason": reason}, or {} when reason is NULL. malloc'd; NULL when it cannot be built. */
static char *decision_body(const char *reason)
{
	json_t *o = json_object();
	json_t *r = reason ? json_string(reason) : NULL;
	char *body = NULL;

	if (!o || (reason && !r))
		goto out;
	if (r && json_object_set(o, "reason", r) != 0)
		goto out;
	body = json_dumps(o, JSON_COMPACT);
out:
	json_decref(r);
	json_decref(o);
	return body;
}

bool ctl_api_request(const struct ctl_args *a, struct ctl_request *out)
{
	const char *status = approval_status_name(a->status);
	int n = -1;

	memset(out, 0, sizeof(*out));
	out->method = "GET";
	switch (a->command) {
	case CTL_PENDING:
		if (status)
			n = snprintf(out->url, sizeof(out->url), "%s/api/approvals?status=%s", a->url, status);
		break;
	case CTL_SHOW:
		n = snprintf(out->url, sizeof(out->url), "%s/api/approvals/%s", a->url, a->id);
		break;
	case CTL_APPROVE:
	case CTL_REJECT:
		out->method = "POST";
		n = snprintf(out->url, sizeof(out->url), "%s/api/approvals/%s/%s", a->url, a->id,
			     a->command == CTL_APPROVE ? "approve" : "reject");
		out->body = decision_body(a->reason);
		if (!out->body)
			n = -1;
		break;
	case CTL_HELP:
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(out->url)) {
		ctl_api_request_free(out);
		return false;
	}
	return true;
}

void ctl_api_request_free(struct ctl_request *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

bool ctl_api_success(long status)
{
	return status >= 200 && status <= 299;
}

const char *ctl_api_status_hint(long status)
{
	switch (status) {
	case 401:
		return "check --user and " CTL_ENV_PASSWORD;
	case 404:
		return "no such write, or --url is not the approval listener";
	case 409:
		return "the write was already decided or has expired";
	case 429:
		return "too many failed logins: wait before trying again";
	default:
		return NULL;
	}
}
