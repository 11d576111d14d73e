/*
 * relay: one runner's database connection, asked for on the job's unix
 * socket: airlockd opens a TCP connection to the allowlisted backend
 * (the address airlockd resolved) and either
 *  - hands the connected socket to the runner (SCM_RIGHTS, with the one
 *    byte FRAME_RELAY_HANDED) and closes the unix connection: the runner's TLS
 *    shim then talks to the backend with no copy in between. airlockd
 *    keeps its own copy, read by no one, and shuts the connection down
 *    when the job ends (relay_free), whatever the runner still holds; or
 *  - splices the two byte by byte (a runner whose client library talks
 *    to the unix socket itself: a target without TLS), buffering bounded
 *    in each direction (reading pauses while the other side's output is
 *    above RELAY_HIGH_WATER).
 * Either way the runner chooses no address and opens no socket to one:
 * its container has no network.
 */
#ifndef AIRLOCK_PROXY_JOB_RELAY_H
#define AIRLOCK_PROXY_JOB_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct evdns_base;
struct relay;
struct bsess_pool;
struct airlock_target;

#define RELAY_HIGH_WATER (256u * 1024u)

/*
 * Takes ownership of client_fd. host/port are copied. hand: hand the
 * backend's socket over rather than splice. on_close is called once, on
 * the loop, when the splice ends (or the connection or the hand-over
 * failed); the relay frees itself right after it returns (the callback
 * must only forget the pointer). A handed relay never calls it: it lives
 * until relay_free. Returns NULL (and closes client_fd) on failure.
 */
struct relay *relay_new(struct event_base *base, struct evdns_base *dns, int client_fd, const char *host, uint16_t port,
			bool hand, void (*on_close)(void *arg, struct relay *r), void *arg);
/*
 * A relay served by a kept backend session (relay_kept.h): fd is the
 * runner's connection (taken), t borrowed for the relay's life, host and
 * user (NULL until known: relay_own) copied. on_cancel: a cancel request
 * came for the job; on_session: a session was lent, its backend's process
 * id. NULL (fd closed) when out of memory.
 */
struct relay *relay_new_kept(struct bsess_pool *pool, struct event_base *base, int client_fd,
			     const struct airlock_target *t, const char *host, uint16_t port, const char *user,
			     void (*on_cancel)(void *arg), void (*on_session)(void *arg, uint32_t pid),
			     void (*on_close)(void *arg, struct relay *r), void *arg);
/* A kept relay's job has its user now (nothing for other relays). */
void relay_own(struct relay *r, const char *user);
/* Cancels what a kept relay's session runs (nothing for other relays). */
void relay_cancel(struct relay *r);
/* Has the backend closed a handed relay's connection (a cancel request served, a session ended)? */
bool relay_ended(const struct relay *r);
/* Closes both sides now; on_close is not called. */
void relay_free(struct relay *r);
/* relay_free on each of relays[0..n), which are then NULL. */
void relay_free_all(struct relay **relays, size_t n);
/*
 * The TCP socket to the backend (borrowed: for getsockname / getpeername),
 * or -1 while it is not there yet.
 */
int relay_backend_fd(const struct relay *r);

#endif
