/*
 * pg_star: a read refused for its star (forbid_select_star) is answered
 * once a describe job of it has named the columns the star stood for
 * (proxy/star_hint.h). The job is scoped as the user's reads are, so the
 * names are those the policy shows; only the star itself is let through,
 * and nothing runs.
 */
#include <stdlib.h>
#include <string.h>

#include "proxy/pg/pg_session_int.h"

static void star_columns(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;

	if (s->star)
		star_refusal_columns(s->star, f);
}

static void star_done(void *arg, const struct job_result *r)
{
	struct pg_session *s = arg;

	(void)r; /* a describe that failed leaves the validator's hint */
	session_job_finished(&s->core);
	if (s->star)
		pgr_error(s, AIRLOCK_E_SELECT_STAR, AIRLOCK_N_NONE, s->star->message,
			  s->star->hint[0] ? s->star->hint : NULL, s->star->cursor_pos);
	free(s->star);
	s->star = NULL;
	if (!s->cur.extended)
		pg_put_ready(&s->core.w, s->txn);
	session_statement_done(&s->core);
}

static const struct job_events star_events = {
	.on_rowdesc = star_columns,
	.on_done = star_done,
};

/* The read whose columns the hint lists: the validator's, the read inside a cursor or COPY, or sql. */
static char *star_read(const char *sql, const struct pgv_result *v)
{
	if (v->star_read[0])
		return strdup(v->star_read);
	if (v->query_len && v->query_offset + v->query_len <= strlen(sql))
		return strndup(sql + v->query_offset, v->query_len);
	return strdup(sql);
}

bool pgst_refuse(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct job_param *params,
		 size_t nparams)
{
	struct pgj_read rd = {.scope = true, .describe = true};
	char *text = star_read(sql, v);
	unsigned errors = s->errors;

	free(s->star);
	s->star = calloc(1, sizeof(*s->star));
	if (!text || !s->star) {
		free(text);
		free(s->star);
		s->star = NULL;
		pgr_refused(s, v);
		return true;
	}
	star_refusal_hold(s->star, v->message, v->hint, v->cursor_pos);
	rd.sql = text;
	/* A table's read (star_read) has no parameters; the statement's own text keeps its own. */
	if (!v->star_read[0]) {
		rd.params = params;
		rd.nparams = nparams;
	}
	s->star_allowed = true;
	s->core.job = pgj_start(s, &rd, &star_events, s);
	s->star_allowed = false;
	free(text);
	if (!s->core.job) {
		free(s->star);
		s->star = NULL;
		/* Not started: the reason went out (BUSY, ...), or, if none did, the refusal goes as it is. */
		if (s->errors == errors)
			pgr_refused(s, v);
		return true;
	}
	session_set_state(&s->core, SESSION_BUSY);
	return false;
}
