/*
 * job_int: one job as the layers above it use it. The warm pool
 * (job_pool.c) makes jobs ahead of demand and discards them; the manager
 * (jobs.c) admits statements and attaches jobs to their owners. job.c
 * implements this and knows neither: what it has to tell them goes
 * through job_env's hook and a job's watcher. Nothing else includes it.
 *
 * A job is idle from job_prepare until job_attach or job_discard: its
 * runner may connect and reach the database, but it has no statement.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_INT_H
#define AIRLOCK_PROXY_JOB_JOB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/frame.h"
#include "protocol/scram_client.h"
#include "proxy/job/job.h"

struct event_base;
struct evdns_base;
struct launcher;
struct bsess_pool;

/* A user with jobs running, and how many (a user's own max_jobs). */
struct job_user_count {
	const void *user; /* the job_request's user: a key, never read through */
	unsigned running;
};

/* Backend connections the prepared jobs of one target hold (its max_db_connections). */
struct job_db_count {
	char *target; /* the target's name, owned */
	unsigned open;
};

/* What the jobs of one manager share; the manager owns it, every job borrows it. */
struct job_env {
	struct event_base *base;
	struct evdns_base *dns;
	struct launcher *launcher;
	const struct airlock_config *cfg; /* for jobs prepared from now on */
	unsigned running;                 /* attached and not yet done */
	unsigned live;                    /* made and not yet freed */
	struct job *all;                  /* every live job, for shutdown */
	uint32_t next_uid;                /* the next runner uid to try, as an offset into runner_uids */
	/* Called, if set, whenever a job's container has started: the engine works. */
	void (*on_started)(void *arg);
	/*
	 * Called, if set, whenever room frees: a running job is done, or a
	 * job gave back its backend connection.
	 */
	void (*on_finished)(void *arg);
	void *hook_arg;
	job_observe_fn observe; /* told each phase's time (jobs_observe); NULL: nobody */
	void *observe_arg;
	struct job_user_count *users; /* the users with jobs running (job_users.c) */
	size_t nusers, users_cap;
	struct job_db_count *dbs; /* the targets with jobs prepared (job_dbs.c) */
	size_t ndbs, dbs_cap;
	struct job_scram_entry *scram; /* the targets' salted passwords (job_scram.c) */
	size_t nscram, scram_cap;
	struct bsess_pool *bsess; /* the backend sessions kept for targets with keep_sessions (bsess.h) */
};

/* Tells env's observer that phase took from since (monotonic_ns) to now, if there is an observer and a since. */
void job_observe(const struct job_env *env, enum job_phase phase, uint64_t since);

/* Jobs of user (a job_request's user) running now. */
unsigned job_user_running(const struct job_env *env, const void *user);
/* Room for one more user in env->users; false when out of memory. */
bool job_user_reserve(struct job_env *env);
/* A job of user starts or stops running (job_set_state); NULL user: nobody's, not counted. */
void job_user_add(struct job_env *env, const void *user);
void job_user_sub(struct job_env *env, const void *user);
void job_users_fini(struct job_env *env);

/*
 * Backend connections held by jobs of the target named target: one from
 * job_prepare until the job is done (its relays close then) or freed.
 */
unsigned job_db_open(const struct job_env *env, const char *target);
/* One more for target; false when out of memory (the job then holds none counted). */
bool job_db_take(struct job_env *env, const char *target);
void job_db_give(struct job_env *env, const char *target);
/* job_db_give, then the manager hears there is room (env->on_finished). */
void job_db_give_room(struct job_env *env, const char *target);
void job_dbs_fini(struct job_env *env);

/*
 * The salted password of t's SCRAM login that airlockd made for the salt
 * and iterations one of t's runners named (job_scram.c says why and what
 * bounds it), for the 'P' frame of t's next runners; NULL when none, or
 * when t's password is no longer the one it was made from. Borrowed from
 * env until the next job_scram_learn.
 */
const struct scram_salted *job_scram_known(const struct job_env *env, const struct airlock_target *t);
/* A runner of t named its login's salt and iterations (be, decoded, untrusted): salt t's password for them. */
void job_scram_learn(struct job_env *env, const struct airlock_target *t, const struct frame_backend *be);
void job_scram_fini(struct job_env *env);
/* The target a prepared or held job is for (NULL before either). */
const struct airlock_target *job_target(const struct job *j);

/*
 * An idle job cannot serve any more: its container did not start or
 * exited, or its runner could not connect to the database. Called once;
 * the job then stops its container and frees itself when it is gone.
 */
typedef void (*job_lost_fn)(void *arg, struct job *j);

/* A job with no directory and no container yet; counted live. NULL when out of memory. */
struct job *job_new(struct job_env *env);
/* The live job after j in env->all, or NULL. */
const struct job *job_next(const struct job *j);
/* What the operator sees of j at now (monotonic ns); info points into j. */
void job_info(const struct job *j, uint64_t now, struct jobs_info *info);
/* Is j's runner running a statement (or being canceled) against the target named target? */
bool job_busy_for(const struct job *j, const char *target);
/*
 * Directory, sockets and container for a job of this target and resource
 * shape; the job is idle from now on. -1 (with a reason logged) when any
 * of it could not be made.
 */
int job_prepare(struct job *j, const struct airlock_target *target, uint32_t memory_mb, uint64_t nano_cpus,
		uint32_t pids);
/* Who to tell if the idle job j is lost (one watcher; NULL lost: none). */
void job_watch(struct job *j, job_lost_fn lost, void *arg);
/* Has the job's runner connected to its control socket? */
bool job_runner_connected(const struct job *j);
/* The idle job will not be used: no watcher is told; it stops its container and frees itself. */
void job_discard(struct job *j);
/* Records a failure that on_done reports on the next loop pass (never re-entrantly). */
void job_fail_later(struct job *j, enum airlock_err code, enum airlock_native native, const char *message);
/*
 * Gives the job (idle, or new with a failure recorded) its owner and its
 * statement: counts it running, arms the kill deadline and sends the
 * statement once the runner is there. Never calls back from inside.
 */
void job_attach(struct job *j, const struct job_request *req, const struct job_events *ev, void *arg);
/*
 * Gives a new job (job_new) its owner and statement, but no container and
 * no running count yet: it waits for job_release_held. lost is told (once)
 * if the job ends while held: its owner detached or canceled, or
 * job_fail_later failed it. Never calls back from inside.
 */
void job_hold(struct job *j, const struct job_request *req, const struct job_events *ev, void *arg, job_lost_fn lost,
	      void *lost_arg);
/* The held job runs now: a container of its own is prepared and the statement sent once the runner is there. */
void job_release_held(struct job *j);
/* Frees every job of env now, telling nobody; for shutdown, after the launcher is gone. */
void job_free_all(struct job_env *env);

#endif
