/*
 * job_queue: statements that wait for room under the server's max_jobs,
 * their user's own, or their target's max_db_connections, for at most
 * queue_wait_ms each, then fail with
 * BUSY. Which waits next is fair between users: of the users with room,
 * the one served longest ago goes first (oldest statement first within a
 * user), so one user's burst cannot keep another user's single statement
 * waiting behind it.
 *
 * Sits beside the pools under the manager (jobs.c). The queue holds held
 * jobs (job_hold) by pointer; a job that ends while held (its owner went,
 * canceled, or it expired here) tells the queue through its lost hook.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_QUEUE_H
#define AIRLOCK_PROXY_JOB_JOB_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event;
struct job;
struct job_env;
struct job_request;
struct airlock_target;
struct job_events;

#define JOB_QUEUE_MAX 4096
#define JOB_QUEUE_USERS 64 /* users remembered for fairness */

struct job_queued {
	struct job *j;
	const void *user;                    /* fairness key: the user's config entry */
	uint32_t user_max;                   /* the user's own max_jobs (0: none) */
	const struct airlock_target *target; /* borrowed from the request, as the held job holds it */
	int64_t since_ms;
	int64_t until_ms;
};

/* Whether a waiter may run now, as far as its user and its target go. */
enum job_room {
	JOB_ROOM_OK,
	JOB_ROOM_USER, /* its user runs its own max_jobs */
	JOB_ROOM_DB,   /* its target's backend connections are all held */
};
typedef enum job_room (*job_queue_room_fn)(void *arg, const struct job_queued *e);

struct job_queue {
	struct job_env *env; /* borrowed */
	job_queue_room_fn room;
	void *room_arg;
	struct job_queued *q;
	size_t n;
	size_t cap;
	struct event *timer; /* the earliest expiry */
	struct {
		const void *user;
		int64_t served_ms;
	} served[JOB_QUEUE_USERS];
	size_t nserved;
};

/* room tells which waiters may run another job (their user's max_jobs, their target's connections). */
void job_queue_init(struct job_queue *jq, struct job_env *env, job_queue_room_fn room, void *room_arg);
/*
 * A new job (job_new) holding req for user, waiting at most wait_ms. 0, or
 * -1 when the queue is full or out of memory (the caller refuses it).
 */
int job_queue_add(struct job_queue *jq, struct job *j, const struct job_request *req, const struct job_events *ev,
		  void *arg, uint32_t wait_ms);
/*
 * The next job to run, fairly among those whose user has room, taken out
 * of the queue (the caller releases it); NULL when none may run.
 */
struct job *job_queue_next(struct job_queue *jq);
size_t job_queue_len(const struct job_queue *jq);
/* True when a waiter has room: it would run before a newcomer. */
bool job_queue_runnable(const struct job_queue *jq);
/* How many wait for the target named target. */
size_t job_queue_waiting(const struct job_queue *jq, const char *target);
/* Every job still waiting fails with BUSY (shutdown, or queue_wait_ms set to 0). */
void job_queue_flush(struct job_queue *jq, const char *why);
void job_queue_fini(struct job_queue *jq);

#endif
