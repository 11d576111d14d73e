/*
 * peer_key: what a session id says about the node that issued it. The id
 * is the Postgres cancel key's process id and the MySQL connection id:
 *
 *   bits  0-21  the session, random (never 0)
 *   bits 22-29  the issuing node's peer_id (0 on a node without peers)
 *   bits 30-31  hops: 0 as issued; a node that forwards a CancelRequest
 *               to the peer it names adds one, and a cancel that has
 *               hopped PEER_KEY_MAX_HOPS times is not forwarded again,
 *               so peers that disagree about an address cannot loop.
 *
 * A node without peers draws bits 0-29 at random, as before peering.
 * Pure functions, no state.
 */
#ifndef AIRLOCK_PROXY_PEER_KEY_H
#define AIRLOCK_PROXY_PEER_KEY_H

#include <stdbool.h>
#include <stdint.h>

#define PEER_KEY_MAX_HOPS 2u
#define PEER_KEY_SESSION_MASK 0x003fffffu
#define PEER_KEY_ID_MASK 0x3fffffffu /* the session id as issued: everything but the hops */

/* A new session id from random bits for the node peer_id (0: no peers); never 0. */
static inline uint32_t peer_key_make(uint32_t peer_id, uint32_t random)
{
	if (!peer_id)
		return (random & PEER_KEY_ID_MASK) | 1u;
	return ((peer_id & 0xffu) << 22) | (random & PEER_KEY_SESSION_MASK) | 1u;
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

#endif
