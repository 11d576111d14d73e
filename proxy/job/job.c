/*
 * job: one statement, one runner container, one private directory. It
 * knows nothing of pools or of the manager (job_int.h says how they use
 * it); the directory and sockets are job_dir's, the control connection's
 * frames job_ctl's, the frames sent job_frame's.
 *
 * Life of a job (its states and their moves: job_state.h):
 *   job_prepare: make the directory and its two sockets, ask the launcher
 *   for a container (the job is IDLE until attached).
 *   runner connects to control.sock -> the credentials go out, and the
 *   statement once job_attach has given the job an owner (RUNNING).
 *   runner connects to the relay socket (job_dir_db_sock) -> a relay to
 *   the backend.
 *   result frames -> owner events; 'C' or 'E' -> on_done (DONE).
 *   DONE and the container gone (exited, killed or never started) ->
 *   sockets and directory removed, job freed.
 */
#define _GNU_SOURCE
#include "proxy/job/job.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "base/dlist.h"
#include "proxy/budget.h"
#include "proxy/job/job_ctl.h"
#include "proxy/job/job_dir.h"
#include "proxy/job/job_frame.h"
#include "proxy/job/job_int.h"
#include "proxy/job/job_mem.h"
#include "proxy/log.h"
#include "proxy/job/relay.h"
#include "proxy/timeval.h"
#include "launch/launcher.h"

#include "proxy/job/job_impl.h"

/* Prepared, no owner attached yet, not discarded: a warm runner waiting for a statement. */
static bool job_idle(const struct job *j)
{
	return j->state == JOB_IDLE;
}

static void job_wipe_frame(struct job *j)
{
	job_frame_wipe(&j->connframe);
	job_frame_wipe(&j->jobframe);
}

static void job_close_ctl(struct job *j)
{
	job_ctl_free(j->ctl);
	j->ctl = NULL;
}

/*
 * The job's backend connection is gone (or will never be made): its
 * target's count drops; with tell, the manager hears there is room.
 */
static void job_db_release(struct job *j, bool tell)
{
	if (!j->db_held)
		return;
	j->db_held = false;
	if (tell)
		job_db_give_room(j->env, j->target_name);
	else
		job_db_give(j->env, j->target_name);
}

/*
 * The job has its outcome (or will never have one): the runner loses its
 * way to the backend at once, and has kill_margin_ms to exit before its
 * container is killed. The deadline stays armed until the container is gone.
 */
static void job_end_runner(struct job *j)
{
	struct timeval tv = ms_timeval(j->env->cfg->kill_margin_ms);

	relay_free_all(j->relays, JOB_MAX_RELAYS);
	if (j->db_lst)
		evconnlistener_disable(j->db_lst);
	job_db_release(j, true);
	if (j->launch)
		evtimer_add(j->deadline, &tv);
}

/* Delivers the final event once (r may be NULL once detached); closes the control connection. */
void job_finish(struct job *j, const struct job_result *r)
{
	struct timeval zero = {0, 0};
	enum job_state was = j->state;
	/* Past backend_memory_mb: however the statement ended (the cancel's error, a result, a timeout), it failed. */
	const struct job_result over = {
		.ok = false,
		.sqlstate = airlock_err_pg_sqlstate(AIRLOCK_E_MEMORY_LIMIT),
		.code = AIRLOCK_E_MEMORY_LIMIT,
		.message = j->mem_message,
		.hint = "aggregate fewer or smaller values (string_agg, array_agg, json_agg over many rows), "
			"select fewer or shorter columns, or add a LIMIT",
	};

	if (r && j->mem_over)
		r = &over;

	/* Moving to DONE uncounts a running job and tells the manager there is room. */
	if (was == JOB_DONE || !job_set_state(j, JOB_DONE))
		return;
	if (was == JOB_HELD)
		job_observe(j->env, JOB_PHASE_QUEUE_WAIT, j->t_asked);
	else if (r && job_state_owed(was))
		job_observe(j->env, JOB_PHASE_BACKEND, j->t_sent);
	/* The runner worked from the statement's arrival to now, whether anyone is told the result or not. */
	if (j->budget && j->t_sent) {
		uint64_t now = monotonic_ns();

		budget_charge(j->budget, AIRLOCK_BUDGET_RUNNER_SECONDS,
			      now > j->t_sent ? (double)(now - j->t_sent) / 1e9 : 0.0, now);
	}
	/* Held in the manager's queue: it forgets the job. */
	if (was == JOB_HELD && j->lost) {
		job_lost_fn lost = j->lost;

		j->lost = NULL;
		lost(j->lost_arg, j);
	}
	job_mem_stop(j);
	job_close_ctl(j);
	job_end_runner(j);
	job_wipe_frame(j);
	/* Its container went first (a paused cursor's frames read after): nothing else will free it. */
	if (!j->launch && j->defer)
		evtimer_add(j->defer, &zero);
	if (job_state_owed(was) && r && j->ev->on_done)
		j->ev->on_done(j->arg, r);
}

/* Fails the job now with code, on the wire as native (AIRLOCK_N_NONE: the code's own SQLSTATE). */
static void job_fail(struct job *j, enum airlock_err code, enum airlock_native native, const char *message)
{
	struct job_result r = {
		.ok = false,
		.sqlstate = airlock_pg_sqlstate(code, native),
		.code = code,
		.message = message,
		.detail = NULL,
		.hint = NULL,
	};
	job_finish(j, &r);
}

/* The idle job cannot serve: its watcher forgets it, its container is stopped. */
static void job_lose(struct job *j)
{
	job_lost_fn lost = j->lost;

	j->lost = NULL;
	if (!job_set_state(j, JOB_DONE)) /* never attached: nothing to report, nothing counted as running */
		return;
	if (lost)
		lost(j->lost_arg, j);
	job_end_runner(j);
	if (j->launch)
		launcher_kill(j->launch);
}

static void job_defer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;

	if (j->pend_code) {
		job_fail(j, j->pend_code, j->pend_native, j->pend_message);
		j->pend_code = AIRLOCK_E_NONE;
	}
	job_maybe_free(j);
}

void job_fail_later(struct job *j, enum airlock_err code, enum airlock_native native, const char *message)
{
	struct timeval zero = {0, 0};

	j->pend_native = native;
	j->pend_code = code;
	snprintf(j->pend_message, sizeof(j->pend_message), "%s", message);
	evtimer_add(j->defer, &zero);
}

static void job_free(struct job *j)
{
	job_mem_stop(j);
	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		relay_free(j->relays[i]);
	job_db_release(j, false); /* shutdown: the manager may be gone */
	job_close_ctl(j);
	if (j->ctl_lst)
		evconnlistener_free(j->ctl_lst);
	if (j->db_lst)
		evconnlistener_free(j->db_lst);
	if (j->dir[0] && job_dir_remove(j->dir) < 0)
		log_warn("job %s: could not remove its directory: %s", j->id, strerror(errno));
	if (j->defer)
		event_free(j->defer);
	if (j->deadline)
		event_free(j->deadline);
	job_wipe_frame(j);
	free(j->host);
	free(j->target_name);
	free(j->user_name);
	DLIST_UNLINK(j->env->all, j);
	j->env->live--;
	free(j);
}

/* Frees the job once it is DONE, its container is gone and no failure waits to be told. */
void job_maybe_free(struct job *j)
{
	if (j->state == JOB_DONE && !j->launch && !j->pend_code)
		job_free(j);
}

void job_free_all(struct job_env *env)
{
	/* The launcher is already gone (its containers removed): drop every job now. */
	while (env->all) {
		env->all->pend_code = AIRLOCK_E_NONE;
		env->all->launch = NULL;
		job_free(env->all);
	}
}

/* ---- result frames from the runner ---- */

static void job_frame_error(struct job *j, const struct frame *f, bool notice)
{
	struct frame_error e;
	char sqlstate[6], message[1024], detail[1024], hint[1024];
	struct job_result r = {.ok = false};

	if (frame_decode_error(f, &e) != FRAME_OK) {
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			 "runner sent a malformed error frame");
		return;
	}
	if (notice) {
		if (job_state_streams(j->state) && j->ev->on_notice)
			j->ev->on_notice(j->arg, &e);
		return;
	}
	snprintf(sqlstate, sizeof(sqlstate), "%.*s", (int)e.sqlstate.len, e.sqlstate.ptr);
	snprintf(message, sizeof(message), "%.*s", (int)e.message.len, e.message.ptr);
	snprintf(detail, sizeof(detail), "%.*s", (int)e.detail.len, e.detail.ptr);
	snprintf(hint, sizeof(hint), "%.*s", (int)e.hint.len, e.hint.ptr);
	if (strlen(sqlstate) != 5)
		snprintf(sqlstate, sizeof(sqlstate), "%s",
			 airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INTERNAL_ERROR));
	r.sqlstate = sqlstate;
	/* The runner names airlock's codes; anything else is the database's own error. */
	r.code = airlock_err_from_name(e.code.ptr, e.code.len);
	r.message = message;
	r.detail = detail[0] ? detail : NULL;
	r.hint = hint[0] ? hint : NULL;
	for (uint32_t i = 0; i < e.position.len && !j->no_position; i++)
		r.position = r.position * 10 + (e.position.ptr[i] - '0');
	for (uint32_t i = 0; i < e.my_errno.len && r.my_errno < 100000; i++)
		r.my_errno = r.my_errno * 10 + (unsigned)(e.my_errno.ptr[i] - '0');
	job_finish(j, &r);
}

static void job_frame_complete(struct job *j, const struct frame *f)
{
	struct frame_complete c;
	char tag[64];
	struct job_result r = {.ok = true};

	if (frame_decode_complete(f, &c) != FRAME_OK) {
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			 "runner sent a malformed completion frame");
		return;
	}
	snprintf(tag, sizeof(tag), "%.*s", (int)c.tag.len, c.tag.ptr);
	r.rows = j->rows;
	r.bytes = j->bytes;
	r.truncated = c.truncated;
	r.warnings = c.warnings;
	r.tag = tag;
	job_finish(j, &r);
}

/* Backstop: the runner enforces the caps; the proxy enforces them again. */
static bool job_frame_row(struct job *j, const struct frame *f)
{
	uint16_t ncols;
	struct job_result r = {.ok = true};
	char tag[48];

	if (f->type == FRAME_ROW && frame_row_check(f, &ncols) != FRAME_OK) {
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR, "runner sent a malformed row");
		return false;
	}
	if (f->type == FRAME_COPY_DATA && j->copy_header) {
		/* The header line: bytes, not a row. */
		j->copy_header = false;
		if (j->bytes + f->len <= j->limits.max_bytes) {
			j->bytes += f->len;
			if (job_state_streams(j->state) && j->ev->on_row)
				j->ev->on_row(j->arg, f);
			return true;
		}
	}
	if (j->rows + 1 > j->limits.max_rows || j->bytes + f->len > j->limits.max_bytes) {
		snprintf(tag, sizeof(tag), "%s %" PRIu64, f->type == FRAME_ROW ? "SELECT" : "COPY", j->rows);
		r.rows = j->rows;
		r.bytes = j->bytes;
		r.truncated = j->rows + 1 > j->limits.max_rows ? FRAME_TRUNC_MAX_ROWS : FRAME_TRUNC_MAX_BYTES;
		r.tag = tag;
		job_finish(j, &r);
		return false;
	}
	j->rows++;
	j->bytes += f->len;
	if (job_state_streams(j->state) && j->ev->on_row)
		j->ev->on_row(j->arg, f);
	return true;
}

/* A warm runner speaks before its statement only when its connect failed. */
static void job_idle_spoke(struct job *j)
{
	log_warn("job %s: warm runner could not connect to the database", j->id);
	job_close_ctl(j);
	job_lose(j);
}

static bool job_ctl_frame(void *arg, const struct frame *f)
{
	struct job *j = arg;

	if (job_idle(j)) {
		job_idle_spoke(j);
		return false;
	}
	if (j->state == JOB_DONE || (j->paused && !j->mem_over))
		return false;
	if ((f->type == FRAME_COPY_START || f->type == FRAME_COPY_DATA) && !j->copy_ok) {
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			 "runner sent a COPY the job did not ask for");
		return false;
	}
	switch (f->type) {
	case FRAME_BACKEND: {
		struct frame_backend be;

		if (frame_decode_backend(f, &be) != FRAME_OK) {
			job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
				 "runner sent a malformed backend frame");
			return false;
		}
		/* Postgres only: a MariaDB session is a thread, bounded by max_session_mem_used. */
		if (strcmp(j->target->engine, "postgres") == 0)
			job_mem_watch(j, be.pid, job_mem_exceeded);
		job_scram_learn(j->env, j->target, &be);
		break;
	}
	case FRAME_COPY_START:
	case FRAME_ROWDESC:
	case FRAME_MYCOLS:
		if (job_state_streams(j->state) && !j->mem_over && j->ev->on_rowdesc)
			j->ev->on_rowdesc(j->arg, f);
		break;
	case FRAME_PARAMDESC:
		if (job_state_streams(j->state) && !j->mem_over && j->ev->on_paramdesc)
			j->ev->on_paramdesc(j->arg, f);
		break;
	case FRAME_COPY_DATA:
	case FRAME_ROW:
		if (j->mem_over)
			break;
		if (!job_frame_row(j, f))
			return false;
		break;
	case FRAME_NOTICE:
		job_frame_error(j, f, true);
		break;
	case FRAME_COMPLETE:
		job_frame_complete(j, f);
		return false;
	case FRAME_ERROR:
		job_frame_error(j, f, false);
		return false;
	default:
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR, "runner sent an unexpected frame");
		return false;
	}
	return j->state != JOB_DONE && j->ctl;
}

static void job_ctl_bad(void *arg, const char *reason)
{
	struct job *j = arg;

	if (job_idle(j))
		job_idle_spoke(j);
	else
		job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR, reason);
}

static void job_exited_early(struct job *j, int exit_code)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "the runner exited (status %d) before returning a result", exit_code);
	job_fail(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE, msg);
}

static void job_ctl_closed(void *arg)
{
	struct job *j = arg;

	/* Runner went away without a result; on_exited will tell why, or has (paused, its frames then read). */
	job_close_ctl(j);
	if (!j->launch && j->state != JOB_DONE) {
		job_exited_early(j, j->exit_code);
		job_maybe_free(j);
	}
}

static const struct job_ctl_events job_ctl_events = {
	.on_frame = job_ctl_frame,
	.on_bad = job_ctl_bad,
	.on_closed = job_ctl_closed,
};

/* Sends what the runner can have now: credentials at once, the statement once attached. */
void job_send_frame(struct job *j)
{
	if (!j->ctl || j->state == JOB_DONE)
		return;
	if (j->connframe.data) {
		job_ctl_write(j->ctl, j->connframe.data, j->connframe.len);
		job_frame_wipe(&j->connframe);
		/* A warm runner reports a failed connect before it has a statement. */
		job_ctl_pause(j->ctl, false);
	}
	if (!j->jobframe.data)
		return;
	job_ctl_write(j->ctl, j->jobframe.data, j->jobframe.len);
	job_frame_wipe(&j->jobframe);
	job_observe(j->env, JOB_PHASE_RUNNER_WAIT, j->t_admit);
	j->t_sent = monotonic_ns();
	job_ctl_pause(j->ctl, j->paused);
}

static void job_ctl_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
	struct job *j = arg;

	/* Attached or idle: an idle job's runner connects first and gets the credentials. */
	if (j->ctl || j->state == JOB_DONE || !job_dir_peer_ok(fd, j->runner_uid)) {
		close(fd);
		return;
	}
	j->ctl = job_ctl_new(j->env->base, fd, &job_ctl_events, j);
	if (!j->ctl)
		return;
	/* One runner per job: no further control connections. */
	evconnlistener_disable(j->ctl_lst);
	job_observe(j->env, JOB_PHASE_CONTAINER_START, j->t_launch);
	job_send_frame(j);
}

/* The runner asked (on a connection of its own) to cancel what its kept session runs. */
static void job_kept_cancel(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		relay_cancel(j->relays[i]);
}

/* A kept session was lent to the job's runner: its backend is the one whose memory is watched. */
static void job_kept_session(void *arg, uint32_t pid)
{
	job_mem_watch(arg, pid, job_mem_exceeded);
}

static void job_relay_closed(void *arg, struct relay *r)
{
	struct job *j = arg;

	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		if (j->relays[i] == r)
			j->relays[i] = NULL;
}

static void job_db_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
	struct job *j = arg;
	int slot = -1;

	for (int i = 0; i < JOB_MAX_RELAYS; i++) {
		/* A handed connection the backend closed (a cancel request's) frees its slot. */
		if (relay_ended(j->relays[i])) {
			relay_free(j->relays[i]);
			j->relays[i] = NULL;
		}
		if (!j->relays[i])
			slot = i;
	}
	/* Only a prepared job has a backend to reach. */
	if (slot < 0 || !j->host || !j->launch || j->state == JOB_DONE || !job_dir_peer_ok(fd, j->runner_uid)) {
		close(fd);
		return;
	}
	if (config_target_kept(j->target))
		j->relays[slot] = relay_new_kept(j->env->bsess, j->env->base, fd, j->target, j->host, j->port,
						 j->user_name, job_kept_cancel, job_kept_session, job_relay_closed, j);
	else
		j->relays[slot] = relay_new(j->env->base, j->env->dns, fd, j->host, j->port,
					    config_target_tls(j->target), job_relay_closed, j);
}

/* ---- container events ---- */

static void job_on_started(void *arg, bool ok, const char *code, const char *error)
{
	struct job *j = arg;
	enum airlock_err err;
	char msg[256];

	job_observe(j->env, ok ? JOB_PHASE_CONTAINER_OK : JOB_PHASE_CONTAINER_FAILED, j->t_launch);
	if (ok) {
		if (j->env->on_started)
			j->env->on_started(j->env->hook_arg);
		return;
	}
	j->launch = NULL;
	log_warn("job %s: runner did not start: %s: %s", j->id, code, error);
	if (job_idle(j)) {
		job_lose(j);
		job_maybe_free(j);
		return;
	}
	/* The launcher's own failures (LAUNCH_FAILED, ...) reach clients as EXECUTION_FAILED. */
	err = airlock_err_from_name(code, (uint32_t)strlen(code));
	if (err == AIRLOCK_E_DOCKER_UNAVAILABLE) {
		snprintf(msg, sizeof(msg), "the Docker engine is not reachable, so the statement was not run");
	} else if (err == AIRLOCK_E_IMAGE_UNAVAILABLE) {
		snprintf(msg, sizeof(msg), "the pinned runner image (or root filesystem) is not available");
	} else if (err == AIRLOCK_E_RUNTIME_UNAVAILABLE) {
		snprintf(msg, sizeof(msg), "the OCI runtime cannot be run, so the statement was not run");
	} else {
		err = AIRLOCK_E_EXECUTION_FAILED;
		snprintf(msg, sizeof(msg), "the runner container could not be started");
	}
	job_fail(j, err, AIRLOCK_N_NONE, msg);
	job_maybe_free(j);
}

static void job_timed_out(struct job *j)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "statement exceeded timeout_ms=%u and its runner was stopped", j->limits.timeout_ms);
	job_fail(j, AIRLOCK_E_TIMEOUT, AIRLOCK_N_NONE, msg);
	job_maybe_free(j);
}

static void job_on_exited(void *arg, int exit_code, bool killed)
{
	struct job *j = arg;

	j->launch = NULL;
	if (job_idle(j)) {
		log_warn("job %s: warm runner exited before use (status %d)", j->id, exit_code);
		job_lose(j);
	} else if (j->draining) {
		/* Its backend decides when it ends; if it has ended already, the job goes below. */
	} else if (j->state != JOB_DONE) {
		if (killed) {
			if (!job_drain(j, job_timed_out))
				job_timed_out(j);
			return;
		} else if (j->ctl) {
			/*
			 * Its frames may still wait in the socket (a cursor not read yet, or a
			 * result the loop has not read when a runtime reports the exit first):
			 * they decide, once read, and the socket's end reports the exit.
			 */
			j->exit_code = exit_code;
		} else {
			job_exited_early(j, exit_code);
		}
	}
	job_maybe_free(j);
}

static const struct launch_callbacks job_launch_cb = {
	.on_started = job_on_started,
	.on_exited = job_on_exited,
};

static void job_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;

	if (!j->launch)
		return;
	if (j->state == JOB_DONE)
		log_warn("job %s: runner still running %u ms after its result; killing it", j->id,
			 j->env->cfg->kill_margin_ms);
	else
		log_info("job %s: kill deadline reached", j->id);
	launcher_kill(j->launch);
}

/* ---- set-up ---- */

/* A listener on a new socket at path in the job's directory. */
static int job_listen(struct job *j, const char *path, evconnlistener_cb cb, struct evconnlistener **out)
{
	int fd = job_dir_listen(path, j->runner_uid, (gid_t)j->runner_uid);

	if (fd < 0)
		return -1;
	*out = evconnlistener_new(j->env->base, cb, j, LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (!*out) {
		close(fd);
		return -1;
	}
	return 0;
}

void job_observe(const struct job_env *env, enum job_phase phase, uint64_t since)
{
	uint64_t now;

	if (!env->observe || !since)
		return;
	now = monotonic_ns();
	env->observe(env->observe_arg, phase, now > since ? (double)(now - since) / 1e9 : 0.0);
}

struct job *job_new(struct job_env *env)
{
	struct job *j = calloc(1, sizeof(*j));
	uint8_t rnd[JOB_DIR_ID_LEN / 2];

	if (!j)
		return NULL;
	j->env = env;
	j->defer = evtimer_new(env->base, job_defer_cb, j);
	j->deadline = evtimer_new(env->base, job_deadline_cb, j);
	if (!j->defer || !j->deadline || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		if (j->defer)
			event_free(j->defer);
		if (j->deadline)
			event_free(j->deadline);
		free(j);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(j->id + 2 * i, 3, "%02x", rnd[i]);
	env->live++;
	DLIST_PUSH(env->all, j);
	j->state = JOB_NEW; /* no launch yet: its container counts as gone */
	return j;
}

/*
 * A uid of runner_uids that no live job has, taken in turn, so no two
 * runners ever share one; 0 when every uid of the range is taken.
 */
static uid_t job_pick_uid(struct job_env *env)
{
	uint32_t first = env->cfg->runner_uid_first, count = env->cfg->runner_uid_last - first + 1;

	for (unsigned tries = 0; tries <= env->live && tries < count; tries++) {
		uid_t cand = (uid_t)(first + env->next_uid++ % count);
		bool taken = false;

		for (struct job *o = env->all; o && !taken; o = o->next)
			taken = o->runner_uid == cand;
		if (!taken)
			return cand;
	}
	return 0;
}

int job_prepare(struct job *j, const struct airlock_target *target, uint32_t memory_mb, uint64_t nano_cpus,
		uint32_t pids)
{
	const struct airlock_config *cfg = j->env->cfg;
	struct launch_spec spec;

	j->target = target;
	j->port = target->port;
	j->host = strdup(target->host);
	free(j->target_name);
	j->target_name = strdup(target->name);
	job_frame_connect(&j->connframe, target, job_scram_known(j->env, target), config_target_kept(j->target));
	if (!j->host || !j->target_name || j->connframe.failed)
		return -1;

	j->runner_uid = job_pick_uid(j->env);
	if (!j->runner_uid) {
		log_error("job %s: every uid of runner_uids is taken by a live job", j->id);
		return -1;
	}
	snprintf(j->runner_user, sizeof(j->runner_user), "%u:%u", (unsigned)j->runner_uid, (unsigned)j->runner_uid);
	snprintf(j->dir, sizeof(j->dir), "%s/%s", cfg->job_dir, j->id);
	if (job_dir_make(j->dir) < 0) {
		log_error("job %s: cannot create its directory under %s: %s", j->id, cfg->job_dir, strerror(errno));
		j->dir[0] = '\0';
		return -1;
	}
	if (target->ca_pem && !config_target_kept(j->target) &&
	    job_dir_put_file(j->dir, FRAME_TLS_CA_FILE, target->ca_pem) < 0) {
		log_error("job %s: cannot write the CA file of target %s into its directory: %s", j->id, target->name,
			  strerror(errno));
		return -1;
	}
	snprintf(j->ctl_path, sizeof(j->ctl_path), "%s/%s", j->dir, JOB_DIR_CTL_SOCK);
	snprintf(j->db_path, sizeof(j->db_path), "%s/%s", j->dir, job_dir_db_sock(target->engine));
	if (job_listen(j, j->ctl_path, job_ctl_accept_cb, &j->ctl_lst) < 0 ||
	    job_listen(j, j->db_path, job_db_accept_cb, &j->db_lst) < 0) {
		log_error("job %s: cannot listen in its directory: %s", j->id, strerror(errno));
		return -1;
	}
	spec = (struct launch_spec){
		.image = cfg->runner_image,
		.user = j->runner_user,
		.job_dir = j->dir,
		.job_id = j->id,
		.memory_bytes = (uint64_t)memory_mb * 1024 * 1024,
		.nano_cpus = nano_cpus,
		.pids_limit = pids,
		.kill_after_ms = 0, /* the job's own deadline kills it, counted from attach */
	};
	j->t_launch = monotonic_ns();
	j->launch = launcher_run(j->env->launcher, &spec, &job_launch_cb, j);
	if (!j->launch)
		return -1;
	/* Its runner will connect to the backend through it from now until the job is done. */
	j->db_held = job_db_take(j->env, j->target_name);
	/* A held job being released stays HELD: job_release_held moves it on. */
	if (j->state == JOB_NEW && !job_set_state(j, JOB_IDLE))
		return -1;
	return 0;
}

void job_watch(struct job *j, job_lost_fn lost, void *arg)
{
	j->lost = lost;
	j->lost_arg = arg;
}

const struct airlock_target *job_target(const struct job *j)
{
	return j->target;
}

bool job_runner_connected(const struct job *j)
{
	return j->ctl != NULL;
}

void job_discard(struct job *j)
{
	j->lost = NULL;
	job_lose(j);
	job_maybe_free(j);
}
