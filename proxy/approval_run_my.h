/*
 * approval_run_my: what an approved MySQL write runs as, made again at
 * the moment it runs: its record's settings (the session's sql_mode,
 * time_zone, character set, database, ...) as the job's, and its
 * statement checked and scoped again under the policy in force now and
 * those settings (the same lexing modes it was asked under).
 */
#ifndef AIRLOCK_PROXY_APPROVAL_RUN_MY_H
#define AIRLOCK_PROXY_APPROVAL_RUN_MY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "conf/config.h"
#include "proxy/job/job.h"
#include "proxy/server.h"

/*
 * The record's settings (a JSON object of names to text values) as at most
 * max job settings in out; their names and values point into *keep, which
 * the caller json_decrefs after the job started. False when unreadable.
 */
bool approval_my_settings(const char *json, json_t **keep, struct job_setting *out, size_t max, size_t *n);

/*
 * The text that runs of u's write statement under set (n settings): heap,
 * or NULL with why saying which check refused it. *write_check: the text
 * returns its rows' checks.
 */
char *approval_my_made(struct server *srv, const struct airlock_user *u, const char *statement,
		       const struct job_setting *set, size_t n, bool *write_check, char *why, size_t whylen);

#endif
