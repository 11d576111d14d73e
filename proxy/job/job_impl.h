/*
 * job_impl: the insides of a job, shared by job.c (its directory,
 * container, control connection and frames) and job_owner.c (what its
 * owner and the manager do to it: attach, hold, cancel, pause, detach).
 * Nothing else includes it.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_IMPL_H
#define AIRLOCK_PROXY_JOB_JOB_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proxy/job/job_dir.h"
#include "proxy/job/job_int.h"
#include "proxy/job/job_state.h"
#include "base/wbuf.h"

#define JOB_MAX_RELAYS 2

struct budget;

struct job {
	struct job_env *env;
	struct job *prev, *next; /* env->all */
	job_lost_fn lost;        /* told if the job is lost while idle */
	void *lost_arg;
	struct event *deadline;      /* kill at timeout_ms + kill_margin_ms, and kill_margin_ms after the result */
	const struct job_events *ev; /* the owner's, from job_attach or job_hold */
	void *arg;
	const void *user;      /* the request's user, counted running against it (job_users.c) */
	char *user_name;       /* its name ("" for nobody's), owned: the key of its kept backend sessions */
	struct budget *budget; /* the request's: charged the runner's time as the job ends; NULL: nobody's */
	enum job_state state;  /* written by job_set_state only (job_state.h) */
	bool paused;           /* the owner's back-pressure: result frames are not read */
	int exit_code;         /* the runner's, once it exited with its frames still unread (paused) */
	bool copy_ok;          /* the statement is a COPY TO STDOUT: 'O' and 'd' frames may come */
	bool copy_header;      /* its first 'd' frame is a header line, not a row */
	bool no_position;      /* the request was rewritten: errors carry no position */
	bool db_held;          /* counted in env->dbs under target's name (job_dbs.c) */

	/* When (monotonic_ns, 0: not yet) the phases job_observe reports began: */
	uint64_t t_asked;  /* the statement came (job_attach, job_hold) */
	uint64_t t_admit;  /* it had room to run (RUNNING) */
	uint64_t t_sent;   /* the runner got it */
	uint64_t t_launch; /* the container was asked for */

	char id[JOB_DIR_ID_LEN + 1];
	char dir[256];
	char ctl_path[300];
	char db_path[300];
	uid_t runner_uid;     /* this job's own, from runner_uids; its gid is the same number */
	char runner_user[24]; /* "uid:gid", for the launcher */

	struct evconnlistener *ctl_lst;
	struct evconnlistener *db_lst;
	struct job_ctl *ctl;
	struct relay *relays[JOB_MAX_RELAYS];
	struct launch *launch; /* NULL once the container is gone (or before there is one) */
	struct event *defer;
	struct job_mem *mem; /* the watch over the backend's memory (job_mem.h), while there is one */
	bool mem_tried;      /* a backend pid came: never a second watch */
	/* The backend passed backend_memory_mb and was sent a cancel: whatever ends the job, it ends with this. */
	bool mem_over;
	char mem_message[256];
	bool draining; /* job_drain: its runner is gone, its backend is awaited */

	struct wbuf connframe; /* 'P': the backend credentials, sent as soon as the runner connects */
	struct wbuf jobframe;  /* 'J': the statement, sent once attached */
	char *host;
	uint16_t port;
	/* Borrowed from its request's config generation, which can go before a draining job does. */
	const struct airlock_target *target;
	char *target_name; /* owned copy of target->name: the key of its count in env->dbs, read to the end */
	struct airlock_limits limits;
	uint64_t rows;
	uint64_t bytes;

	/* A failure found before any runner output, delivered on the next pass. */
	enum airlock_native pend_native;
	enum airlock_err pend_code; /* AIRLOCK_E_NONE: no failure pending */
	char pend_message[256];
};

/* Delivers the final event once (r may be NULL once detached); closes the control connection. */
void job_finish(struct job *j, const struct job_result *r);
/*
 * j ends while its backend may still run the statement: its runner and
 * connection go, j stays CANCELING (counted) until the backend has exited
 * or its kept session's reset has ended (job_mem_await_exit), then gone(j)
 * ends it. false: nothing done (no
 * memory watch whose backend passes its checks, or j is not running);
 * the caller ends j now.
 */
bool job_drain(struct job *j, void (*gone)(struct job *j));
/* The memory watch's over (job_mem.h): j waits for its runner's end, which then answers MEMORY_LIMIT. */
void job_mem_exceeded(struct job *j);
/* Sends what the runner can have now: credentials at once, the statement once attached. */
void job_send_frame(struct job *j);
/* Frees the job once it is DONE, its container is gone and no failure waits to be told. */
void job_maybe_free(struct job *j);

#endif
