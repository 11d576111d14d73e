/*
 * job_queue: fair, bounded waiting for max_jobs (see job_queue.h). The
 * queue is an array in arrival order; picking scans it (it is short, and
 * bounded by JOB_QUEUE_MAX).
 */
#include "proxy/job/job_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "proxy/job/job_int.h"
#include "proxy/timeval.h"

#define BUSY_MSG "BUSY: every runner is busy and the statement waited queue_wait_ms=%u ms; retry shortly"
#define USER_BUSY_MSG                                                                                  \
	"BUSY: this user already runs its max_jobs=%u statements or cursors and the statement waited " \
	"queue_wait_ms=%u ms; retry shortly"
#define DB_BUSY_MSG                                                                                      \
	"BUSY: the target's max_db_connections=%u backend connections are all in use and the statement " \
	"waited queue_wait_ms=%u ms; retry shortly"

static void remove_at(struct job_queue *jq, size_t k)
{
	memmove(&jq->q[k], &jq->q[k + 1], (jq->n - k - 1) * sizeof(jq->q[0]));
	jq->n--;
}

static void arm(struct job_queue *jq)
{
	int64_t first = INT64_MAX, now = monotonic_ms();
	struct timeval tv;

	for (size_t k = 0; k < jq->n; k++)
		if (jq->q[k].until_ms < first)
			first = jq->q[k].until_ms;
	if (!jq->timer)
		return;
	evtimer_del(jq->timer);
	if (jq->n == 0)
		return;
	tv = ms_timeval((uint32_t)(first > now ? first - now : 0));
	evtimer_add(jq->timer, &tv);
}

/* A held job ended (owner gone, canceled, expired): forget it. */
static void on_lost(void *arg, struct job *j)
{
	struct job_queue *jq = arg;

	for (size_t k = 0; k < jq->n; k++) {
		if (jq->q[k].j == j) {
			remove_at(jq, k);
			break;
		}
	}
	arm(jq);
}

static void fail_busy(struct job_queue *jq, const struct job_queued *e)
{
	uint32_t waited_ms = (uint32_t)(e->until_ms - e->since_ms);
	char msg[200];

	enum job_room why = jq->room(jq->room_arg, e);

	if (why == JOB_ROOM_USER)
		snprintf(msg, sizeof(msg), USER_BUSY_MSG, e->user_max, waited_ms);
	else if (why == JOB_ROOM_DB)
		snprintf(msg, sizeof(msg), DB_BUSY_MSG, e->target->max_db_connections, waited_ms);
	else
		snprintf(msg, sizeof(msg), BUSY_MSG, waited_ms);
	job_fail_later(e->j, AIRLOCK_E_BUSY, AIRLOCK_N_NONE, msg);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct job_queue *jq = arg;
	int64_t now = monotonic_ms();

	(void)fd;
	(void)what;
	for (size_t k = 0; k < jq->n;) {
		struct job_queued e = jq->q[k];

		if (e.until_ms > now) {
			k++;
			continue;
		}
		remove_at(jq, k);
		job_watch(e.j, NULL, NULL);
		fail_busy(jq, &e);
	}
	arm(jq);
}

void job_queue_init(struct job_queue *jq, struct job_env *env, job_queue_room_fn room, void *room_arg)
{
	memset(jq, 0, sizeof(*jq));
	jq->env = env;
	jq->room = room;
	jq->room_arg = room_arg;
}

int job_queue_add(struct job_queue *jq, struct job *j, const struct job_request *req, const struct job_events *ev,
		  void *arg, uint32_t wait_ms)
{
	int64_t now = monotonic_ms();

	if (!jq->timer && !(jq->timer = evtimer_new(jq->env->base, on_timer, jq)))
		return -1;
	if (jq->n == jq->cap) {
		size_t cap = jq->cap ? jq->cap * 2 : 16;
		struct job_queued *q;

		if (cap > JOB_QUEUE_MAX || !(q = realloc(jq->q, cap * sizeof(*q))))
			return -1;
		jq->q = q;
		jq->cap = cap;
	}
	job_hold(j, req, ev, arg, on_lost, jq);
	jq->q[jq->n++] = (struct job_queued){.j = j,
					     .user = req->user,
					     .user_max = req->user_max_jobs,
					     .target = req->target,
					     .since_ms = now,
					     .until_ms = now + wait_ms};
	arm(jq);
	return 0;
}

/* When user was last given a slot; 0 if never (or forgotten). */
static int64_t served_ms(const struct job_queue *jq, const void *user)
{
	for (size_t i = 0; i < jq->nserved; i++)
		if (jq->served[i].user == user)
			return jq->served[i].served_ms;
	return 0;
}

static void mark_served(struct job_queue *jq, const void *user, int64_t now)
{
	size_t i, oldest = 0;

	for (i = 0; i < jq->nserved; i++) {
		if (jq->served[i].user == user) {
			jq->served[i].served_ms = now;
			return;
		}
		if (jq->served[i].served_ms < jq->served[oldest].served_ms)
			oldest = i;
	}
	if (jq->nserved < JOB_QUEUE_USERS)
		oldest = jq->nserved++;
	jq->served[oldest].user = user;
	jq->served[oldest].served_ms = now;
}

struct job *job_queue_next(struct job_queue *jq)
{
	size_t best = SIZE_MAX;
	struct job *j;

	/* In arrival order, so the first of the least recently served user with room wins. */
	for (size_t k = 0; k < jq->n; k++) {
		if (jq->room(jq->room_arg, &jq->q[k]) != JOB_ROOM_OK)
			continue;
		if (best == SIZE_MAX || served_ms(jq, jq->q[k].user) < served_ms(jq, jq->q[best].user))
			best = k;
	}
	if (best == SIZE_MAX)
		return NULL;
	j = jq->q[best].j;
	mark_served(jq, jq->q[best].user, monotonic_ms());
	remove_at(jq, best);
	job_watch(j, NULL, NULL);
	arm(jq);
	return j;
}

size_t job_queue_len(const struct job_queue *jq)
{
	return jq->n;
}

bool job_queue_runnable(const struct job_queue *jq)
{
	for (size_t k = 0; k < jq->n; k++)
		if (jq->room(jq->room_arg, &jq->q[k]) == JOB_ROOM_OK)
			return true;
	return false;
}

size_t job_queue_waiting(const struct job_queue *jq, const char *target)
{
	size_t n = 0;

	for (size_t k = 0; k < jq->n; k++)
		n += jq->q[k].target && strcmp(jq->q[k].target->name, target) == 0;
	return n;
}

void job_queue_flush(struct job_queue *jq, const char *why)
{
	while (jq->n) {
		struct job *j = jq->q[--jq->n].j;

		job_watch(j, NULL, NULL);
		job_fail_later(j, AIRLOCK_E_BUSY, AIRLOCK_N_NONE, why);
	}
	arm(jq);
}

void job_queue_fini(struct job_queue *jq)
{
	if (jq->timer)
		event_free(jq->timer);
	free(jq->q);
	memset(jq, 0, sizeof(*jq));
}
