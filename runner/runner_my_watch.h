/*
 * runner_my_watch: the watchdog thread of the MySQL runner. Connector/C
 * blocks the main thread inside the statement, so a second thread watches
 * what the main thread cannot: the control socket (an 'X' cancel frame,
 * or the proxy going away) and the job's deadline. On any of them it
 * records the event, opens a second connection through the same relay
 * socket and sends KILL QUERY <connection id>; if that fails, or the
 * statement has not let go shortly after, it shuts the statement's socket
 * down so the main thread's blocking read returns.
 *
 * Who owns what, from my_watch_start to my_watch_stop:
 *  - the main thread: the statement's MYSQL handle (the watch only ever
 *    calls shutdown(2) on its file descriptor, never closes it), the job
 *    (which must not change: the watch reads user and password), and the
 *    writing side of the control socket. Only the main thread writes frames.
 *  - the watch thread: the reading side of the control socket
 *    (runner_ctl_on_readable) and the KILL connection, which it opens,
 *    uses and closes itself.
 *  - shared, under the mutex: the event and whether the statement is still
 *    armed. The main thread reads the event with my_watch_event and ends
 *    the statement's exposure with my_watch_disarm: after it, the watch
 *    starts no KILL and no shutdown.
 */
#ifndef AIRLOCK_RUNNER_MY_WATCH_H
#define AIRLOCK_RUNNER_MY_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "runner/runner_ctl.h"
#include "runner/runner_job.h"

enum my_event {
	MY_EVENT_NONE,
	MY_EVENT_CANCEL,  /* the proxy sent 'X' */
	MY_EVENT_GONE,    /* the control socket closed, failed, or sent something else */
	MY_EVENT_TIMEOUT, /* the deadline passed */
};

struct my_watch {
	/* Set by my_watch_start, read-only while the thread runs. */
	struct runner_ctl *ctl;
	const struct runner_job *job;
	const char *sock_path;      /* borrowed; outlives the watch */
	unsigned long long conn_id; /* the statement's connection, for KILL QUERY */
	int db_fd;                  /* the statement's socket, for shutdown(2) only */
	int64_t deadline_ms;        /* CLOCK_MONOTONIC */
	int wake[2];                /* main -> watch: stop waiting */
	pthread_t thread;
	bool started;
	/* Shared, under mu. */
	pthread_mutex_t mu;
	enum my_event event;
	bool armed;
	bool stop;
};

/* Milliseconds on CLOCK_MONOTONIC, the clock deadline_ms is on. */
int64_t my_watch_now_ms(void);

/*
 * Starts the thread, armed: from now on it reads the control socket and
 * acts at deadline_ms. 0, or -1 when no thread could be started (nothing
 * then needs stopping).
 */
int my_watch_start(struct my_watch *w, struct runner_ctl *ctl, const struct runner_job *job, const char *sock_path,
		   unsigned long long conn_id, int db_fd, int64_t deadline_ms);
/* The event recorded so far (MY_EVENT_NONE when none); cheap, for checks between rows. */
enum my_event my_watch_event(struct my_watch *w);
/* Ends the armed phase and returns the event that decides the outcome. */
enum my_event my_watch_disarm(struct my_watch *w);
/* Stops and joins the thread (waiting for a KILL under way). Safe when not started. */
void my_watch_stop(struct my_watch *w);

#endif
