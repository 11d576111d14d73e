/*
 * peer_key: what a session id says about the node that issued it. The id
 * is the Postgres cancel key's process id and the MySQL connection id:
 *
 *   bits  0-21  the session, random (never 0); with workers = N (N > 1),
 *               bits 18-21 are the worker that holds the session (0-15)
 *               and bits 0-17 the random part
 *   bits 22-29  the issuing node's peer_id (0 on a node without peers)
 *   bits 30-31  hops: 0 as issued; a node that forwards a CancelRequest
 *               to the peer it names adds one, and a cancel that has
 *               hopped PEER_KEY_MAX_HOPS times is not forwarded again,
 *               so peers that disagree about an address cannot loop.
 *
 * A node without peers draws bits 22-29 at random, as before peering.
 * Pure functions, no state.
 */
#ifndef AIRLOCK_PROXY_PEER_KEY_H
#define AIRLOCK_PROXY_PEER_KEY_H

#include <stdbool.h>
#include <stdint.h>

#define PEER_KEY_MAX_HOPS 2u
#define PEER_KEY_SESSION_MASK 0x003fffffu
#define PEER_KEY_ID_MASK 0x3fffffffu /* the session id as issued: everything but the hops */
#define PEER_KEY_WORKER_SHIFT 18
#define PEER_KEY_MAX_WORKERS 16u

/*
 * A new session id from random bits, for worker (0 to nworkers - 1) of the
 * node peer_id (0: no peers); never 0. nworkers 0 or 1: no worker bits.
 */
static inline uint32_t peer_key_make(uint32_t peer_id, uint32_t worker, uint32_t nworkers, uint32_t random)
{
	uint32_t id =
		peer_id ? ((peer_id & 0xffu) << 22) | (random & PEER_KEY_SESSION_MASK) : random & PEER_KEY_ID_MASK;

	if (nworkers > 1)
		id = (id & ~(0xfu << PEER_KEY_WORKER_SHIFT)) | ((worker & 0xfu) << PEER_KEY_WORKER_SHIFT);
	return id | 1u;
}

/* The worker of its node that holds the session id names (meaningful where workers > 1). */
static inline uint32_t peer_key_worker(uint32_t id)
{
	return (id >> PEER_KEY_WORKER_SHIFT) & 0xfu;
}

/* The node that issued id (a cancel key's process id, hops included). */
static inline uint32_t peer_key_node(uint32_t id)
{
	return (id >> 22) & 0xffu;
}

static inline uint32_t peer_key_hops(uint32_t id)
{
	return id >> 30;
}

/* id as issued, its hops dropped: what names the session on its node. */
static inline uint32_t peer_key_session(uint32_t id)
{
	return id & PEER_KEY_ID_MASK;
}

/* id with one hop more (the caller checked hops < PEER_KEY_MAX_HOPS). */
static inline uint32_t peer_key_hop(uint32_t id)
{
	return peer_key_session(id) | ((peer_key_hops(id) + 1u) << 30);
}

/* Whether id was issued by this node (own: its peer_id, 0 without peers). */
static inline bool peer_key_local(uint32_t own, uint32_t id)
{
	return !own || peer_key_node(id) == own;
}

/* Where the session id names is, seen from worker (of nworkers) of the node own. */
enum peer_key_where {
	PEER_KEY_HERE,        /* this worker's (or this process's) */
	PEER_KEY_OTHER_NODE,  /* another node's */
	PEER_KEY_OTHER_WORKER /* another worker's of this node */
};

static inline enum peer_key_where peer_key_where(uint32_t own, uint32_t worker, uint32_t nworkers, uint32_t id)
{
	if (!peer_key_local(own, id))
		return PEER_KEY_OTHER_NODE;
	if (nworkers > 1 && peer_key_worker(id) != worker)
		return PEER_KEY_OTHER_WORKER;
	return PEER_KEY_HERE;
}

#endif
