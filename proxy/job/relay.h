/*
 * relay: splices one runner's database connection (accepted on the job's
 * unix socket) to a TCP connection the proxy opens to the allowlisted
 * backend. The runner never learns or reaches any address itself.
 * Buffering is bounded in each direction (reading pauses while the other
 * side's output is above RELAY_HIGH_WATER).
 */
#ifndef AIRLOCK_PROXY_JOB_RELAY_H
#define AIRLOCK_PROXY_JOB_RELAY_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct evdns_base;
struct relay;

#define RELAY_HIGH_WATER (256u * 1024u)

/*
 * Takes ownership of client_fd. host/port are copied. on_close is called
 * once, on the loop, when the splice ends; the relay frees itself right
 * after it returns (the callback must only forget the pointer). Returns NULL (and closes client_fd) on failure.
 */
struct relay *relay_new(struct event_base *base, struct evdns_base *dns, int client_fd, const char *host, uint16_t port,
			void (*on_close)(void *arg, struct relay *r), void *arg);
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
