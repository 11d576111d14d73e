/*
 * approval_hold: a dry-run write kept as a pending record of the store of
 * held writes, for either protocol's session; the webhook hears of it.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_HOLD_H
#define AIRLOCK_PROXY_APPROVAL_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approval/approval.h"
#include "approval/approval_sample.h"
#include "proxy/job/job.h"
#include "proxy/session.h"

/* What the record of a held write says besides its user, client and times; all borrowed, NULL reads as "". */
struct approval_ask {
	const char *protocol; /* "postgres" or "mysql" */
	const char *application_name;
	const char *statement;   /* as the agent sent it */
	const char *params;      /* its bound values, a JSON array */
	const char *param_types; /* their types, a JSON array */
	const char *rewritten;   /* the text that will run */
	const char *plan;
	const char *settings; /* the session's settings it runs under, a JSON object */
	/* The dry run's rows, unfinished: taken (finished or freed here); NULL: none could be made. */
	struct approval_sample *sample;
};

/*
 * Keeps the write c's user asked for, its dry run touching rows, as a
 * pending record; its id in id. False with the reason in why.
 */
bool approval_hold(struct session *c, struct approval_ask *q, uint64_t rows, char id[APPROVAL_ID_LEN + 1], char *why,
		   size_t whylen);

/* Settings as a JSON object of names to values, in order (heap); NULL when out of memory. */
char *approval_settings_json(const struct job_setting *set, size_t n);

#endif
