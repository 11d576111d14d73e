#define _GNU_SOURCE
#include "proxy/approval_run.h"
#include "proxy/approval_run_my.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "approval/approval_store.h"
#include "proxy/audit.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "proxy/pg/pg_policy.h"
#include "proxy/pg/pg_settings.h"
#include "proxy/server.h"
#include "proxy/validator_client.h"
#include "proxy/timeval.h"

/* One approved write on its way: owned by itself, freed when the run ends. */
struct run {
	struct server *srv;
	const struct airlock_target *target; /* the user's write target of the record's protocol */
	json_t *my_set;                      /* a MySQL record's settings, which settings point into */
	char id[APPROVAL_ID_LEN + 1];
	char *user;
	char *text;  /* what runs: made again from the statement under the policy in force */
	char *guard; /* its guard read, or NULL */
	int64_t approved_rows;
	struct job_param *params;
	size_t nparams;
	char **values;    /* the parameters' text (owned), NULL entries for SQL NULL */
	bool running;     /* the dry run passed: the write itself runs */
	bool write_check; /* its first column is the check of each row it writes */
	/* The session's settings the write was asked under, checked again; settings point into set. */
	struct pg_settings *set;
	struct job_setting settings[32];
	size_t nsettings;
	/* The statement returns rows (RETURNING): the run's frames, kept for a session waiting on it. */
	bool returning;
	json_t *frames;     /* NULL until the run sends one, or once they passed what a record keeps */
	size_t frame_bytes; /* their encoded size so far */
	bool frames_dropped;
};

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->nparams; i++)
		free(r->values[i]);
	free(r->values);
	free(r->params);
	free(r->user);
	free(r->text);
	free(r->guard);
	if (r->set)
		pgs_free(r->set);
	free(r->set);
	json_decref(r->my_set);
	json_decref(r->frames);
	free(r);
}

static void audit_step(struct server *srv, const char *user, const char *id, const char *decision, uint64_t rows,
		       const char *reason)
{
	struct audit_entry e = {.user = user, .decision = decision, .rows = rows, .approval = id, .reason = reason};

	audit_record(srv->audit, &e);
}

/*
 * Moves the record from -> to with reason (NULL: kept), and for executed
 * its count and the rows it returned (result, NULL: none kept); logs and
 * audits the step.
 */
static void move_with(struct run *r, enum approval_status from, enum approval_status to, const char *reason,
		      int64_t rows, const char *result)
{
	struct approval_store *st = r->srv->approvals;
	struct approval_move m = {.id = r->id,
				  .from = from,
				  .to = to,
				  .now = wall_ms(),
				  .reason = reason,
				  .executed_rows = rows,
				  .result = result};

	if (st->ops->move(st, &m) != APPROVAL_OK) {
		log_error("approval %s: cannot record %s: %s", r->id, approval_status_name(to), st->ops->error(st));
		return;
	}
	log_info("approval %s: %s%s%s", r->id, approval_status_name(to), reason ? ": " : "", reason ? reason : "");
	audit_step(r->srv, r->user, r->id, approval_status_name(to), rows > 0 ? (uint64_t)rows : 0, reason);
}

static void move(struct run *r, enum approval_status from, enum approval_status to, const char *reason, int64_t rows)
{
	move_with(r, from, to, reason, rows, NULL);
}

/*
 * A frame of the run's rows, kept as its type letter and its payload in
 * base64 while all of them fit in a record (with room for the JSON around
 * them); past that, none are kept.
 */
static void keep_frame(void *arg, const struct frame *f)
{
	struct run *r = arg;
	size_t need = 1 + 4 * (((size_t)f->len + 2) / 3) + 1;
	char *text;

	if (!r->running || !r->returning || r->frames_dropped)
		return;
	if (r->frame_bytes + need + 4 > APPROVAL_MAX_TEXT - 16 || (!r->frames && !(r->frames = json_array())) ||
	    !(text = malloc(need))) {
		r->frames_dropped = true;
		json_decref(r->frames);
		r->frames = NULL;
		return;
	}
	text[0] = (char)f->type;
	EVP_EncodeBlock((unsigned char *)text + 1, f->payload, (int)f->len);
	if (json_array_append_new(r->frames, json_string(text)) < 0) {
		r->frames_dropped = true;
		json_decref(r->frames);
		r->frames = NULL;
	}
	r->frame_bytes += need + 4;
	free(text);
}

static void ignore_notice(void *arg, const struct frame_error *e)
{
	(void)arg;
	(void)e;
}

static bool start_job(struct run *r, int write, int64_t max_rows);

static void job_done(void *arg, const struct job_result *res)
{
	struct run *r = arg;
	enum approval_status from = r->running ? APPROVAL_RUNNING : APPROVAL_APPROVED;
	char reason[APPROVAL_MAX_REASON];
	uint64_t rows = 0;

	if (!res->ok) {
		snprintf(reason, sizeof(reason), "%s %s: %s", r->running ? "the run" : "the dry run again",
			 res->sqlstate ? res->sqlstate : "", res->message ? res->message : "failed");
		/* Past the rows approved: the rows changed under it, and it rolled back. */
		move(r, from, res->code == AIRLOCK_E_WRITE_ROWS ? APPROVAL_DRIFTED : APPROVAL_FAILED, reason, -1);
		run_free(r);
		return;
	}
	if (!frame_tag_rows(res->tag, &rows)) {
		move(r, from, APPROVAL_FAILED, "the write's command tag has no row count", -1);
		run_free(r);
		return;
	}
	if (r->running) {
		char *result = r->frames ? json_dumps(r->frames, JSON_COMPACT) : NULL;

		move_with(r, APPROVAL_RUNNING, APPROVAL_EXECUTED, NULL, (int64_t)rows, result);
		free(result);
		run_free(r);
		return;
	}
	if (rows > INT64_MAX || (int64_t)rows != r->approved_rows) {
		snprintf(reason, sizeof(reason),
			 "the write now touches %" PRIu64 " rows; %" PRId64 " were approved: nothing was written", rows,
			 r->approved_rows);
		move(r, APPROVAL_APPROVED, APPROVAL_DRIFTED, reason, -1);
		run_free(r);
		return;
	}
	move(r, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, -1);
	r->running = true;
	if (!start_job(r, 2, r->approved_rows)) {
		move(r, APPROVAL_RUNNING, APPROVAL_FAILED, "the run could not be started", -1);
		run_free(r);
	}
}

static const struct job_events run_events = {
	.on_rowdesc = keep_frame,
	.on_row = keep_frame,
	.on_notice = ignore_notice,
	.on_done = job_done,
};

/* A job of the write (1 dry run, 2 run) with the user's write target, as the config has it now. */
static bool start_job(struct run *r, int write, int64_t max_rows)
{
	const struct airlock_user *u = config_find_user(r->srv->cfg, r->user);
	struct airlock_limits limits;
	struct job_request req;

	if (!u || !r->target || (r->target != u->write_target && r->target != u->mysql_write_target))
		return false;
	limits = u->limits;
	limits.max_rows = u->max_write_rows;
	req = (struct job_request){
		.target = r->target,
		.limits = &limits,
		.sql = r->text,
		.settings = r->settings,
		.nsettings = r->nsettings,
		.params = r->params,
		.nparams = r->nparams,
		.rewritten = true,
		.guard = r->guard,
		.write = write,
		.write_max = (uint64_t)max_rows,
		.write_check = r->write_check,
		.returning = write == 2 && r->returning,
	};
	return job_start(r->srv->jobs, &req, &run_events, r) != NULL;
}

/*
 * The record's settings (a JSON object of names to values) set again, as
 * SET would, on a session of the user's own: a value refused now fails the
 * run (why says which). An empty record (written before settings were
 * kept) runs under the defaults.
 */
static bool take_settings(struct run *r, const char *json, char *why, size_t whylen)
{
	json_t *o = json[0] ? json_loads(json, JSON_REJECT_DUPLICATES, NULL) : json_object();
	const char *name, *sqlstate;
	enum airlock_err code;
	bool reported, ok = json_is_object(o) && (r->set = calloc(1, sizeof(*r->set))) != NULL;
	char msg[256];
	json_t *v;

	snprintf(why, whylen, "out of memory, or the record's settings are unreadable");
	if (ok && pgs_init(r->set, r->user) < 0) {
		free(r->set);
		r->set = NULL;
		ok = false;
	}
	json_object_foreach(o, name, v)
	{
		if (!ok)
			break;
		if (!json_is_string(v) || pgs_set(r->set, name, json_string_value(v), false, &reported, &sqlstate,
						  &code, msg, sizeof(msg)) < 0) {
			snprintf(why, whylen, "the setting %.64s it was asked under is refused now: %s", name,
				 json_is_string(v) ? msg : "not text");
			ok = false;
		}
	}
	json_decref(o);
	if (ok)
		r->nsettings = pgs_job_settings(r->set, r->settings);
	return ok;
}

/* The record's parameters (a JSON array of strings and nulls, their types an array of OIDs) as r's. */
static bool take_params(struct run *r, const char *json, const char *types_json)
{
	json_t *a = json_loads(json, 0, NULL), *types = types_json[0] ? json_loads(types_json, 0, NULL) : NULL;
	size_t n = json_array_size(a);
	bool ok = json_is_array(a) && (!types_json[0] || json_array_size(types) == n);

	if (ok && n) {
		r->params = calloc(n, sizeof(*r->params));
		r->values = calloc(n, sizeof(*r->values));
		ok = r->params && r->values;
	}
	for (size_t i = 0; ok && i < n; i++) {
		json_t *v = json_array_get(a, i);

		r->nparams = i + 1;
		if (json_is_null(v))
			continue;
		if (!json_is_string(v) || !(r->values[i] = strndup(json_string_value(v), json_string_length(v)))) {
			ok = false;
			break;
		}
		r->params[i].value = (const uint8_t *)r->values[i];
		r->params[i].len = (uint32_t)json_string_length(v);
	}
	for (size_t i = 0; ok && types && i < n; i++) {
		json_int_t t = json_integer_value(json_array_get(types, i));

		ok = json_is_integer(json_array_get(types, i)) && t >= 0 && t <= 0xFFFFFFFFLL;
		if (ok)
			r->params[i].type_oid = (uint32_t)t;
	}
	json_decref(a);
	json_decref(types);
	return ok;
}

/* A Postgres record: its settings set again, its statement checked and made again. False with why. */
static bool prepare_pg(struct run *r, const struct approval *a, const struct airlock_user *u, char *why, size_t whylen)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;
	struct pgv_result v;

	if (!take_settings(r, a->settings, why, whylen))
		return false;
	if (!u || !u->writes || strcmp(u->writes, "approve") != 0 || !u->write_target) {
		snprintf(why, whylen, "the user may no longer write");
		return false;
	}
	/* Checked again, and made again, under the policy in force now and the session's search_path then. */
	pgp_user_policy(u, r->set, path, &pol);
	if (vcl_pg_write(r->srv->validators, &pol, a->statement, &r->text, &r->guard, NULL, &v) != PGV_WRITE) {
		snprintf(why, whylen, "the policy in force now refuses it: %s", v.message);
		return false;
	}
	r->target = u->write_target;
	r->write_check = v.write_check;
	r->returning = v.returning;
	return true;
}

/* A MySQL record: its settings as they were, its statement checked and made again under them. */
static bool prepare_my(struct run *r, const struct approval *a, const struct airlock_user *u, char *why, size_t whylen)
{
	if (!approval_my_settings(a->settings, &r->my_set, r->settings, sizeof(r->settings) / sizeof(r->settings[0]),
				  &r->nsettings)) {
		snprintf(why, whylen, "the record's settings are unreadable");
		return false;
	}
	if (!u || !u->writes || strcmp(u->writes, "approve") != 0 || !u->mysql_write_target) {
		snprintf(why, whylen, "the user may no longer write");
		return false;
	}
	r->text = approval_my_made(r->srv, u, a->statement, r->settings, r->nsettings, &r->write_check, why, whylen);
	if (!r->text)
		return false;
	r->target = u->mysql_write_target;
	return true;
}

/* The user's policy as a session would send it under the default search_path. */
bool approval_run_start(struct server *srv, const char *id)
{
	struct approval_store *st = srv->approvals;
	struct approval a = {0};
	const struct airlock_user *u;
	char reason[APPROVAL_MAX_REASON];
	struct run *r = calloc(1, sizeof(*r));

	if (!r || !st || st->ops->get(st, id, &a) != APPROVAL_OK || a.status != APPROVAL_APPROVED) {
		free(r);
		approval_free(&a);
		return false;
	}
	r->srv = srv;
	memcpy(r->id, a.id, sizeof(r->id));
	r->approved_rows = a.rows;
	r->user = strdup(a.user);
	u = config_find_user(srv->cfg, a.user);
	if (!r->user || !take_params(r, a.params, a.param_types)) {
		move(r, APPROVAL_APPROVED, APPROVAL_FAILED, "out of memory, or the record's values are unreadable", -1);
		goto fail;
	}
	if (a.protocol && strcmp(a.protocol, "mysql") == 0) {
		if (!prepare_my(r, &a, u, reason, sizeof(reason))) {
			move(r, APPROVAL_APPROVED, APPROVAL_FAILED, reason, -1);
			goto fail;
		}
	} else if (!prepare_pg(r, &a, u, reason, sizeof(reason))) {
		move(r, APPROVAL_APPROVED, APPROVAL_FAILED, reason, -1);
		goto fail;
	}
	if (!start_job(r, 1, u->max_write_rows)) {
		move(r, APPROVAL_APPROVED, APPROVAL_FAILED, "the dry run could not be started", -1);
		goto fail;
	}
	approval_free(&a);
	return true;
fail:
	approval_free(&a);
	run_free(r);
	return false;
}
