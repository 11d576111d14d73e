/*
 * job: one statement run in one one-shot runner container.
 *
 * A job owns a private directory under the configured job_dir holding two
 * unix sockets: control.sock (the job frame goes in, result frames come
 * out) and the relay to the allowlisted backend (.s.PGSQL.5432 for
 * Postgres, mysqld.sock for MariaDB). It asks
 * the launcher for a container with that directory mounted read-only at
 * /job, feeds the job to the runner when it connects, and passes result
 * frames to its owner as they arrive. The job frees itself once it has
 * delivered its final event (or been detached) AND its container is gone;
 * then the directory and sockets are removed too.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_H
#define AIRLOCK_PROXY_JOB_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "base/errors.h"
#include "base/frame.h"

struct event_base;
struct evdns_base;
struct launcher;
struct jobs;
struct job;

/* A session setting the runner applies with set_config(name, value, true). */
struct job_setting {
	const char *name;
	const char *value;
};

/* A bound parameter of an extended-protocol statement. */
struct job_param {
	const uint8_t *value; /* NULL for SQL NULL */
	uint32_t len;
	uint32_t type_oid; /* 0: the server infers it */
	bool binary;
};

/* Everything a job needs; borrowed for the duration of job_start (copied). */
struct budget;

struct job_request {
	const struct airlock_target *target;
	const struct airlock_limits *limits;
	const char *sql;
	const struct job_setting *settings;
	size_t nsettings;
	const struct job_param *params;
	size_t nparams;
	bool cost_check; /* a plain read: the runner checks limits->max_cost with EXPLAIN first (both engines) */
	const char *plan_tables; /* the plan check: what the plan may scan ("schema.table, schema.*"); NULL: off */
	const char *formats;     /* Postgres result formats ('0' / '1', one for all or one per column); NULL: text */
	bool describe;           /* Postgres: prepare and describe the statement, run nothing */
	const char *plan_sql;    /* Postgres: the read the cost and plan checks EXPLAIN when sql is a COPY */
	bool copy;               /* Postgres: sql is a COPY TO STDOUT ('O' and 'd' frames expected) */
	bool copy_header;        /* its first line is a header, not a row */
	bool rewritten;          /* sql is the scoping's text, not the client's: an error's position
				  * would point into text the client never sent, and is left out */
	const void *user;        /* whose statement (a fairness key for the queue); NULL: nobody's */
	const char *user_name;   /* its name: the key of kept backend sessions (bsess.h); NULL: nobody's */
	struct budget *budget;   /* charged the time the job's runner worked on it (budget.h); NULL: none */
	/*
	 * The user's own max_jobs: while that many of its jobs run, the next
	 * waits in the queue as one past the server's max_jobs does. 0: none.
	 */
	uint32_t user_max_jobs;
	/*
	 * Postgres: a read run first in the statement's transaction, before
	 * anything is prepared with the parameter types; a row it returns is the
	 * oid of a parameter type outside the user's world, and the job then
	 * fails as Postgres fails a type that does not exist. NULL: none.
	 */
	const char *type_check;
	/*
	 * Postgres: a read run in the statement's transaction after its settings
	 * and before anything of the statement is parsed; its error (22P02, text
	 * "...airlock-guard:what") refuses the statement as reaching a function
	 * the user may not run (validator/pg/validate_pg_guard.h). NULL: none.
	 */
	const char *guard;
	/*
	 * MySQL EXPLAIN: a read run before the statement that lists the names
	 * of the keys outside the user's world; the index MariaDB made for such
	 * a key carries its name, which the plan's key columns then print as
	 * RUNNER_HIDDEN_KEY (runner/runner_my_hidden.h). NULL: none.
	 */
	const char *hidden_keys;
	/*
	 * Postgres: the statement is a write (runner/runner_job.h): 1 a dry
	 * run (always rolled back), 2 a run (committed when it touches at most
	 * write_max rows); 0 a read. write_check: its first column is the
	 * check each row must pass; returning: the client asked for rows.
	 * sample (a dry run): sql is the dry run's variant, whose first rows
	 * come back as the sample, and plan_sql's plan as a notice coded
	 * FRAME_PLAN_CODE.
	 */
	int write;
	uint64_t write_max;
	bool write_check;
	bool returning;
	bool sample;
	/*
	 * MySQL, a dry run without sample (an UPDATE): the read of the rows it
	 * will touch, run first; they come back with their state after the
	 * write as notices coded FRAME_SAMPLE_PAIR_CODE. NULL: none.
	 */
	const char *sample_read;
};

/* Final outcome, borrowed for the duration of on_done. */
struct job_result {
	bool ok;
	/* ok: */
	uint64_t rows;
	uint64_t bytes;
	uint8_t truncated; /* enum frame_trunc */
	const char *tag;   /* command tag, e.g. "SELECT 3" */
	uint16_t warnings; /* the backend's warning count (MySQL) */
	/* !ok: */
	const char *sqlstate;
	enum airlock_err code; /* AIRLOCK_E_NONE for the database's own errors */
	const char *message;
	const char *detail;
	const char *hint;
	int position;      /* 1-based character position in the statement, 0 if none */
	unsigned my_errno; /* MySQL error number from a MySQL runner; 0 otherwise */
};

/*
 * Events, called on the loop. Frames are borrowed for the call.
 * on_done is called exactly once unless the owner detached first.
 */
struct job_events {
	void (*on_rowdesc)(void *arg, const struct frame *f);   /* 'T' or 'O' (Postgres), 'K' (MySQL) */
	void (*on_paramdesc)(void *arg, const struct frame *f); /* 'S', from a describe job */
	void (*on_row)(void *arg, const struct frame *f);       /* 'D', or 'd' after 'O' */
	void (*on_notice)(void *arg, const struct frame_error *e);
	void (*on_done)(void *arg, const struct job_result *r);
};

/*
 * The steps of a statement's life the manager times (the metrics' phases,
 * proxy/stats.h), each told once per job with its seconds:
 */
enum job_phase {
	JOB_PHASE_QUEUE_WAIT,       /* job_start to room to run: 0 when there was room, the queue's wait otherwise
				     * (told also when the wait ends in BUSY) */
	JOB_PHASE_RUNNER_WAIT,      /* room to run to the statement handed to a connected runner */
	JOB_PHASE_BACKEND,          /* the statement handed to the runner to its result delivered */
	JOB_PHASE_CONTAINER_START,  /* a container asked of the launcher to its runner's connection (warm ones too) */
	JOB_PHASE_CONTAINER_OK,     /* the launcher started a container (seconds since it was asked) */
	JOB_PHASE_CONTAINER_FAILED, /* the launcher could not start one (seconds since it was asked) */
};
typedef void (*job_observe_fn)(void *arg, enum job_phase phase, double seconds);

/* The job manager; one per server. Borrowed pointers must outlive it. */
struct jobs *jobs_new(struct event_base *base, struct evdns_base *dns, struct launcher *launcher,
		      const struct airlock_config *cfg);
/*
 * Swaps the config used for new jobs (running jobs keep what they copied);
 * warm runners of the old config are killed and the pools rebuilt.
 */
void jobs_set_config(struct jobs *js, const struct airlock_config *cfg);
/* From now on fn(arg, ...) is told each phase of each job (fn NULL: nobody); arg is borrowed, outliving js. */
void jobs_observe(struct jobs *js, job_observe_fn fn, void *arg);
/* Starts keeping cfg->pool_min warm containers per resource shape (memory, CPU, PIDs) of the users. */
void jobs_start_pool(struct jobs *js);
/* Shutting down: the warm runners go and none are made again. */
void jobs_stop_pool(struct jobs *js);
/* Frees every job too; call after launcher_free has removed the containers. */
void jobs_free(struct jobs *js);
/* Removes job directories left by an earlier run. Returns how many, or -1. */
int jobs_sweep_dir(const char *job_dir);
/* Jobs started and not yet fully cleaned up (containers included). */
unsigned jobs_live(const struct jobs *js);
/* Backend connections the runners of the target named target hold now, ready ones included. */
unsigned jobs_db_open(const struct jobs *js, const char *target);

/* One target's runners now, for the metrics. */
struct jobs_target_counts {
	unsigned connections; /* backend connections held (jobs_db_open) */
	unsigned ready;       /* warm runners connected, waiting for a statement */
	unsigned busy;        /* runners running a statement (or being canceled) */
	unsigned starting;    /* warm runners not connected yet */
	unsigned waiting;     /* statements in the queue for it */
	unsigned kept;        /* idle backend sessions kept (keep_sessions), among its connections */
};
void jobs_target_counts(const struct jobs *js, const char *target, struct jobs_target_counts *out);
/* Warm runners of the target named target connected and waiting (jobs_target_counts' ready, alone). */
unsigned jobs_ready(const struct jobs *js, const char *target);
/* Statements waiting in the queue, all targets. */
size_t jobs_queue_len(const struct jobs *js);

/* One live job as the admin console lists it; every string is borrowed for the callback only. */
struct jobs_info {
	const char *id;      /* its directory's id */
	const char *state;   /* job_state.h's name */
	uint64_t age_ms;     /* since it was asked for (a statement) or launched (a warm runner); 0: neither yet */
	uint32_t runner_uid; /* 0 before one is given */
	const char *target;  /* its target's name; "" when none yet */
};
/* Calls fn once for each live job; fn must not start or end jobs. */
void jobs_each(const struct jobs *js, void (*fn)(void *arg, const struct jobs_info *info), void *arg);

/*
 * Starts a job. Never calls back from inside job_start: failures (busy,
 * host not allowed, Docker down) arrive through on_done on a later loop
 * pass. When the server's max_jobs statements run already, the job waits
 * (fairly between users, see job_queue.h) up to queue_wait_ms for room,
 * then fails with BUSY. Returns NULL only when out of memory.
 */
struct job *job_start(struct jobs *js, const struct job_request *req, const struct job_events *ev, void *arg);
/* True when user (a job_request's) runs fewer than user_max jobs now (0: no cap). */
bool jobs_user_has_room(struct jobs *js, const void *user, uint32_t user_max);
/* Asks the runner to cancel the statement (an 'E' 57014 follows). */
void job_cancel(struct job *j);
/* Back-pressure: stop/resume reading result frames. */
void job_pause(struct job *j, bool paused);
/* The owner is gone: no more events; the job cancels and cleans up on its own. */
void job_detach(struct job *j);

#endif
