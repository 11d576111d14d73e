/*
 * job_int: what job.c and job_pool.c share: the job manager, one job, and
 * a pool of warm runners. Nothing else includes it.
 */
#ifndef AIRLOCK_PROXY_JOB_INT_H
#define AIRLOCK_PROXY_JOB_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proxy/job.h"

struct event;
struct evconnlistener;
struct job_ctl;
struct launch;
struct relay;

#define JOB_MAX_RELAYS 2

#define JOB_MAX_POOLS 8
#define POOL_BACKOFF_MAX_MS 10000

/* Warm containers of one resource shape, started ahead of demand. */
struct job_pool {
	const struct airlock_target *target; /* warm runners are connected to it */
	uint32_t memory_mb;
	uint64_t nano_cpus;
	uint32_t pids;
	struct job *idle; /* linked through job->next_idle */
	unsigned nidle;
};

struct jobs {
	struct event_base *base;
	struct evdns_base *dns;
	struct launcher *launcher;
	const struct airlock_config *cfg;
	unsigned running; /* attached and not yet done */
	unsigned live;    /* not yet freed */
	struct job *all;  /* every live job, for shutdown */

	struct job_pool pools[JOB_MAX_POOLS];
	size_t npools;
	struct event *refill;
	uint32_t backoff_ms;
};

struct job {
	struct jobs *js;
	struct job *prev, *next;
	struct job_pool *pool;  /* set while the job is an idle warm slot */
	struct job *next_idle;
	struct event *deadline; /* kill at timeout_ms + kill_margin_ms */
	const struct job_events *ev;
	void *arg;
	bool detached;
	bool done;
	bool container_gone;
	bool paused;
	bool cancel_sent;

	char id[33];
	char dir[256];
	char ctl_path[300];
	char db_path[300];
	uid_t runner_uid;
	gid_t runner_gid;

	struct evconnlistener *ctl_lst;
	struct evconnlistener *db_lst;
	struct job_ctl *ctl;
	struct relay *relays[JOB_MAX_RELAYS];
	struct launch *launch;
	struct event *defer;

	struct frame_buf connframe; /* 'P': the backend credentials, sent as soon as the runner connects */
	struct frame_buf jobframe;  /* 'J': the statement, sent once attached */
	char *host;
	uint16_t port;
	const struct airlock_target *target;
	struct airlock_limits limits;
	uint64_t rows;
	uint64_t bytes;

	/* A failure found before any runner output, delivered on the next pass. */
	char pend_sqlstate[6];
	const char *pend_code;
	char pend_message[256];
};

/* job.c */
/* A job with no directory and no container yet; counted live, detached until attached. */
struct job *job_new_bare(struct jobs *js);
/* Directory, sockets and container for a job of this target and resource shape; -1 on failure. */
int job_prepare(struct job *j, const struct airlock_target *target, uint32_t memory_mb, uint64_t nano_cpus,
		uint32_t pids);
/* Frees the job once it is done or detached and its container is gone. */
void job_maybe_free(struct job *j);

/* job_pool.c */
void pool_remove(struct job *j);
/* Takes an idle slot out of its pool and kills its container. */
void pool_discard(struct job *j);
void pool_schedule(struct jobs *js, uint32_t delay_ms);
/* A warm slot died before use: refill later, slower each time. */
void pool_slot_failed(struct jobs *js);
/* An idle warm slot of this target and shape (one whose runner is connected first), or NULL. */
struct job *pool_take(struct jobs *js, const struct airlock_target *target, const struct airlock_limits *lim);

#endif
