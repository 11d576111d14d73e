/*
 * my_star: the events of the describe job that names the columns of a
 * read refused for its star (forbid_select_star, proxy/star_hint.h; the
 * job is started by myq_star_refuse). The ERR goes out when it ends.
 */
#include "proxy/mysql/my_session_int.h"

static void star_columns(void *arg, const struct frame *f)
{
	struct my_session *s = arg;

	star_refusal_columns(&s->star, f);
}

static void star_done(void *arg, const struct job_result *r)
{
	struct my_session *s = arg;

	(void)r; /* a describe that failed leaves the validator's hint */
	session_job_finished(&s->core);
	myr_refuse(s, AIRLOCK_E_SELECT_STAR, AIRLOCK_N_NONE, s->star.message, s->star.hint);
	session_set_state(&s->core, SESSION_READY);
	session_process(&s->core);
}

const struct job_events mys_star_events = {
	.on_rowdesc = star_columns,
	.on_done = star_done,
};
