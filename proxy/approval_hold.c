/*
 * approval_hold: see approval_hold.h.
 */
#include "proxy/approval_hold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "approval/approval_store.h"
#include "proxy/approval_notify.h"
#include "proxy/approvals.h"
#include "proxy/server.h"
#include "proxy/session.h"
#include "proxy/timeval.h"

/* The record's sample when there is not even memory for one saying why it is empty. */
#define NO_SAMPLE "{\"columns\":[],\"rows\":[],\"truncated\":false}"

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/*
 * The record's sample: the dry run's rows, or none with a note saying so
 * (and truncated when the write touches any); q's sample is taken.
 */
static char *finish_sample(struct approval_ask *q, uint64_t rows)
{
	static const char none[] = "airlock could not make a sample of this write's rows";
	bool made = q->sample == NULL;
	struct approval_sample *s = made ? approval_sample_new() : q->sample;
	char *json;

	q->sample = NULL;
	if (s && made && rows && !approval_sample_note(s, none, sizeof(none) - 1)) {
		approval_sample_free(s);
		s = NULL;
	}
	json = approval_sample_finish(s, rows, APPROVAL_MAX_SAMPLE);
	return json ? json : strdup(NO_SAMPLE);
}

bool approval_hold(struct session *c, struct approval_ask *q, uint64_t rows, char id[APPROVAL_ID_LEN + 1], char *why,
		   size_t whylen)
{
	const struct airlock_user *u = c->u;
	struct approval_store *st = c->srv->approvals;
	char addr[64];
	int64_t now = wall_ms();
	struct approval a = {
		.status = APPROVAL_PENDING,
		.rows = (int64_t)rows,
		.executed_rows = -1,
		.created_at = now,
		.expires_at = now + (int64_t)u->approval_ttl * 1000,
		.approvals_needed = (int)u->approvals,
	};
	bool ok;

	session_client(c, addr, sizeof(addr));
	a.sample = finish_sample(q, rows);
	if (!approval_new_id(a.id)) {
		snprintf(why, whylen, "no random id could be made");
		approval_free(&a);
		return false;
	}
	a.user = dup_or_empty(u->name);
	a.protocol = dup_or_empty(q->protocol);
	a.client_addr = dup_or_empty(addr);
	a.application_name = dup_or_empty(q->application_name);
	a.statement = dup_or_empty(q->statement);
	a.params = dup_or_empty(q->params);
	a.rewritten = dup_or_empty(q->rewritten);
	a.plan = dup_or_empty(q->plan);
	a.approved_by = dup_or_empty("");
	a.decided_by = dup_or_empty("");
	a.reason = dup_or_empty("");
	a.policy_checksum = dup_or_empty(c->srv->cfg->checksum_hex);
	a.settings = dup_or_empty(q->settings);
	a.param_types = dup_or_empty(q->param_types);
	ok = a.user && a.protocol && a.client_addr && a.application_name && a.statement && a.params && a.rewritten &&
	     a.plan && a.sample && a.approved_by && a.decided_by && a.reason && a.policy_checksum && a.settings &&
	     a.param_types;
	/* Pending writes past their time leave first, so a decision never lands on one. */
	approvals_expire(st, c->srv->audit, now);
	if (!ok)
		snprintf(why, whylen, "out of memory");
	else if (st->ops->put(st, &a) != APPROVAL_OK) {
		/* The store's own words (a path, a database's address) are the operator's, not the agent's. */
		session_warn(c, "the write could not be held: %s", st->ops->error(st));
		snprintf(why, whylen, "the store of held writes failed (airlockd's log says why); nothing was written");
		ok = false;
	}
	if (ok)
		approval_notify_pending(c->srv->notify, &a);
	if (ok)
		memcpy(id, a.id, sizeof(a.id));
	approval_free(&a);
	return ok;
}

char *approval_settings_json(const struct job_setting *set, size_t n)
{
	json_t *o = json_object();
	char *out = NULL;
	bool ok = o != NULL;

	for (size_t i = 0; ok && i < n; i++)
		ok = json_object_set_new(o, set[i].name, json_string(set[i].value)) == 0;
	if (ok)
		out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return out;
}
