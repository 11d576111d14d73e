/*
 * relay_kept: a runner's connection to a target with keep_sessions
 * (bsess.h). The runner's client library connects to the job's relay
 * socket in plain text and logs in as usual; airlockd answers the login
 * itself (AuthenticationOk and the parameters of the target's latest
 * login, no password asked: the runner is given none), and once the job
 * has its user, lends the connection a kept session of that user (or logs
 * one in) and passes the messages both ways. The runner's Terminate is not
 * passed on; when the runner leaves (or the job ends first) the session
 * goes back to be reset, or is closed if the runner stopped inside a
 * message. A second connection holding a CancelRequest cancels what the
 * first one's session runs. Everything the runner sends is framed by its
 * length only: airlockd reads no statement from it.
 */
#ifndef AIRLOCK_PROXY_JOB_RELAY_KEPT_H
#define AIRLOCK_PROXY_JOB_RELAY_KEPT_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"

struct bsess_pool;
struct event_base;
struct relay_kept;

/* The longest startup packet read from a runner. */
#define RELAY_KEPT_STARTUP_MAX 10000u

struct relay_kept_events {
	/* A cancel request came on another connection: cancel what the job's session runs. */
	void (*on_cancel)(void *arg);
	/* A session was lent (its backend's process id, for the memory watch). */
	void (*on_session)(void *arg, uint32_t pid);
	/* The runner's connection ended; k frees itself right after (forget it). */
	void (*on_close)(void *arg, struct relay_kept *k);
};

/*
 * Takes ownership of fd (the runner's accepted connection). t, host and
 * user (NULL until the job has one: relay_kept_own) are copied or
 * borrowed for the call. NULL (fd closed) when out of memory.
 */
struct relay_kept *relay_kept_new(struct bsess_pool *pool, struct event_base *base, int fd,
				  const struct airlock_target *t, const char *host, uint16_t port, const char *user,
				  const struct relay_kept_events *ev, void *arg);
/* The job's user is known now: the runner gets a session of that user once it asks. */
void relay_kept_own(struct relay_kept *k, const char *user);
/* Cancels what k's session runs (nothing when it has none). */
void relay_kept_cancel(struct relay_kept *k);
/* The socket of k's session (-1: none now). */
int relay_kept_backend_fd(const struct relay_kept *k);
/* Ends k now: its session goes back to be reset (or is closed); on_close is not called. */
void relay_kept_free(struct relay_kept *k);

#endif
