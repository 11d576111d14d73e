/*
 * peer: CancelRequests that name another node. Each node of a group has
 * its peer_id in every session id it issues (proxy/peer_key.h); a client's
 * CancelRequest may reach any node (a load balancer picks), and the node
 * it names may be another. That node's Postgres listener (from [server]
 * peers) is sent the same 16 bytes, its process id one hop further, from
 * a connection that is closed once they are written: PgBouncer's peering,
 * with no new protocol and nothing a client could not send itself.
 *
 * Bounded: at most PEER_MAX_INFLIGHT forwards at once, each given
 * PEER_TIMEOUT_SEC to connect and write; a cancel that already hopped
 * PEER_KEY_MAX_HOPS times, or names an id no peer has, is dropped. Each
 * outcome is counted per peer id (SHOW PEERS, airlock_peer_cancels_total).
 *
 * Ownership: peers_new's result is the server's (peers_free, which drops
 * what is still in flight).
 */
#ifndef AIRLOCK_PROXY_PEER_H
#define AIRLOCK_PROXY_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy/peer_key.h"

#define PEER_MAX_INFLIGHT 64
#define PEER_TIMEOUT_SEC 2

struct server;
struct peer_kill;
struct session_proto;

/* What became of one cancel naming a peer. */
enum peer_outcome {
	PEER_FORWARDED,       /* written to the peer */
	PEER_FAILED,          /* no connection, or it timed out */
	PEER_DROPPED_HOPS,    /* it had hopped PEER_KEY_MAX_HOPS times already */
	PEER_DROPPED_UNKNOWN, /* no peer has that id */
	PEER_DROPPED_BUSY,    /* PEER_MAX_INFLIGHT forwards were in flight */
};

/* What happened to the cancels naming one peer id since start. */
struct peer_counts {
	uint64_t forwarded; /* written to the peer */
	uint64_t failed;    /* no connection, or it timed out */
	uint64_t dropped;   /* too many hops, no such peer, or too many in flight */
};

struct peers;

struct peers *peers_new(void);
void peers_free(struct peers *p);

/* Where the session id names is: here, another worker of this node (workers = N), or another node. */
enum peer_key_where peers_where(const struct server *srv, uint32_t id);

/*
 * A CancelRequest for (pid, key) that peers_where says is not here: sent
 * to that node or, over its unix socket, to that worker; or dropped. Nothing is answered to the
 * client either way, as Postgres answers no CancelRequest.
 */
void peers_forward_cancel(struct server *srv, uint32_t pid, uint32_t key);

/* What the node that holds the connection said. */
enum peer_kill_answer {
	PEER_KILL_ANSWER_DONE,
	PEER_KILL_ANSWER_NONE,    /* also when the node could not be reached */
	PEER_KILL_ANSWER_UNKNOWN, /* sent, and no answer within PEER_TIMEOUT_SEC, or the connection closed */
};

/*
 * Told the answer to a KILL QUERY sent on; proto and waiter are what the
 * caller gave (a session's protocol, static, and its id: the session may
 * be gone by then, so it is looked up).
 */
typedef void (*peer_kill_cb)(struct server *srv, const struct session_proto *proto, uint32_t waiter,
			     enum peer_kill_answer answer);

/*
 * KILL QUERY id from a session of user, id another node's MySQL
 * connection (or another worker's of this node): that node (worker) is
 * sent the request signed with peer_secret_file's key (the workers' own
 * key, struct server_worker) (protocol/peer_msg.h), and cb is called once with its answer (never
 * after peers_free). false when it cannot be sent (no secret, no such
 * peer, too many in flight): cb is not called, and the caller answers as
 * for an unknown id.
 */
bool peers_forward_kill(struct server *srv, uint32_t id, const char *user, peer_kill_cb cb,
			const struct session_proto *proto, uint32_t waiter);

/*
 * A peer's message (raw: the whole startup-phase packet) arrived on the
 * Postgres listener: true, with the request in *out, when it is signed
 * with this node's peer secret (or the workers' key), made within 10 s,
 * not seen before and names a connection id of this node (of any of its
 * workers: peers_where tells); else logged and false.
 */
bool peers_receive(struct server *srv, const uint8_t *raw, size_t len, struct peer_kill *out);

/* The counts for peer id (1-255); all 0 for an id never named. */
struct peer_counts peers_counts(const struct peers *p, uint32_t id);

#endif
