/*
 * bsess: backend sessions airlockd keeps for a target with keep_sessions
 * (docs/configuration.md). airlockd connects to the allowlisted backend,
 * negotiates TLS itself (the target's sslmode and CA) and logs in as the
 * target's role (SCRAM-SHA-256, MD5 or a password); a runner then gets
 * the logged-in session through its job's relay (relay_kept.c) instead of
 * a backend process forked, encrypted and logged in for its one statement.
 *
 * A session serves one runner at a time and only runners of one user of
 * one target (keyed by the user's name and a digest of everything the
 * target's connection is made of: a reload that changes any of it, the
 * password included, retires the old sessions). When its runner is done,
 * the session is reset before anyone else may have it: a Sync, ROLLBACK,
 * DISCARD ALL and a query of a random marker; only once the marker comes
 * back after DISCARD ALL succeeded, at a ReadyForQuery outside any
 * transaction, is it idle again. Anything else (an error, a runner that
 * stopped inside a message, more than BSESS_RESET_MAX_BYTES of the
 * runner's leftover output, BSESS_RESET_MS passing) closes it.
 *
 * At most pool_max (at least 2) of a target's sessions are kept idle. An
 * idle session counts as one of the target's backend connections
 * (job_dbs.c) and is closed first when a runner needs room under
 * max_db_connections (bsess_shed), after BSESS_IDLE_MS unused, and when
 * the pool is freed.
 */
#ifndef AIRLOCK_PROXY_JOB_BSESS_H
#define AIRLOCK_PROXY_JOB_BSESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

struct bufferevent;
struct job_env;
struct bsess;
struct bsess_pool;

/* The longest a login, or a reset, may take. */
#define BSESS_LOGIN_MS 10000
#define BSESS_RESET_MS 2000
#define BSESS_BUSY_MS 100
/* The most of a runner's unread output a reset reads past before it gives the session up. */
#define BSESS_RESET_MAX_BYTES (4u * 1024u * 1024u)

/* The pool of env's kept sessions; NULL when out of memory. env is borrowed for the pool's life. */
struct bsess_pool *bsess_pool_new(struct job_env *env);
/* Closes every session (idle, logging in, lent) and frees the pool. */
void bsess_pool_free(struct bsess_pool *p);

/*
 * A login's end: s logged in (lent to the caller from now on), or NULL
 * with why (a fixed text, never the backend's words about the password).
 */
typedef void (*bsess_ready_fn)(void *arg, struct bsess *s, const char *why);

/*
 * A session for user on t, at host:port (the address airlockd resolves;
 * t->host names the certificate's host): an idle one, lent at once and
 * returned, or NULL with a login started whose end ready is told, later,
 * on the loop. *started is false when not even that could be begun (out
 * of memory): then nothing is told.
 */
struct bsess *bsess_get(struct bsess_pool *p, const struct airlock_target *t, const char *host, uint16_t port,
			const char *user, bsess_ready_fn ready, void *arg, bool *started);
/* The login started by bsess_get will not be waited for: ready is never told; the session, once in, is kept idle. */
void bsess_forget(struct bsess_pool *p, void *arg);

/*
 * The ParameterStatus messages of t's latest login (wire bytes, borrowed
 * until the next login of t) into *msgs, *len: true when there is one.
 */
bool bsess_params(const struct bsess_pool *p, const struct airlock_target *t, const uint8_t **msgs, size_t *len);
/* Starts a login of t only to learn its parameters (bsess_params); ready is told as for bsess_get, with NULL. */
bool bsess_probe(struct bsess_pool *p, const struct airlock_target *t, const char *host, uint16_t port,
		 bsess_ready_fn ready, void *arg);

/* A lent session's connection: its reader and writer are the borrower's until bsess_give. */
struct bufferevent *bsess_bev(struct bsess *s);
/* Its backend's process id (BackendKeyData). */
uint32_t bsess_pid(const struct bsess *s);
/* The TCP socket under it (for getsockname / getpeername). */
int bsess_fd(const struct bsess *s);
/* Asks the backend to cancel what s runs (a CancelRequest on a connection of its own); does not wait. */
void bsess_cancel(struct bsess *s);
/*
 * The borrower is done: clean says it stopped at a message boundary of
 * its own input; unread, how many bytes of the backend's current message
 * it has not taken from the connection (the reset passes over them); busy:
 * the backend's last message was not a ReadyForQuery, so a statement may
 * still run: if the reset has not ended within BSESS_BUSY_MS, the
 * statement is canceled and the session closed. The session is reset and
 * kept, or closed. Either way the caller forgets s.
 */
void bsess_give(struct bsess *s, bool clean, uint64_t unread, bool busy);

/*
 * Has the kept session whose backend is pid ended what its last runner
 * left (its reset done: idle, or lent again)? false while its reset runs,
 * and when no kept session has that pid (it was closed: only the
 * process's exit tells then).
 */
bool bsess_pid_settled(const struct bsess_pool *p, uint32_t pid);
/* At t's max_db_connections: closes one idle session of t; true when one was. */
bool bsess_shed(struct bsess_pool *p, const char *target);
/* Idle sessions of target kept now (for the console and tests). */
unsigned bsess_idle_count(const struct bsess_pool *p, const char *target);

#endif
