/*
 * peer_msg: the one message airlockd nodes send each other beyond a
 * client's CancelRequest: "KILL QUERY <id> for user U", which a node
 * cannot take on a peer's word alone, so it is signed with the secret the
 * nodes share ([server] peer_secret_file). It travels as a startup-phase
 * packet to the node's Postgres listener, as a CancelRequest does:
 *
 *   int32   length (the whole packet)
 *   int32   PEER_MSG_KILL_CODE
 *   uint32  the MySQL connection id
 *   uint64  unix milliseconds when it was made
 *   string  the user name, NUL-terminated (1..PEER_MSG_MAX_USER bytes)
 *   byte32  HMAC-SHA256 with the shared secret of every byte before it
 *
 * The receiving node answers with one byte, PEER_MSG_KILLED or
 * PEER_MSG_NOT_KILLED (no such session of that user, or the message was
 * refused), and closes.
 *
 * Pure: no I/O, no clock (the caller passes now), no state (the caller
 * keeps what it has seen, against replays).
 */
#ifndef AIRLOCK_PROTOCOL_PEER_MSG_H
#define AIRLOCK_PROTOCOL_PEER_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Beside CancelRequest (80877102), SSLRequest and GSSENCRequest: (1234 << 16) | 5701. */
#define PEER_MSG_KILL_CODE 80877125u
#define PEER_MSG_MAX_USER 63
#define PEER_MSG_MAC_LEN 32
#define PEER_MSG_KILLED 'K'
#define PEER_MSG_NOT_KILLED 'N'
#define PEER_MSG_MAX_LEN (4 + 4 + 4 + 8 + PEER_MSG_MAX_USER + 1 + PEER_MSG_MAC_LEN)
/* A message older or newer than this, by the receiver's clock, is refused. */
#define PEER_MSG_MAX_SKEW_MS 10000

struct peer_kill {
	uint32_t id;
	uint64_t made_ms;
	char user[PEER_MSG_MAX_USER + 1];
	uint8_t mac[PEER_MSG_MAC_LEN]; /* as received: a replay cache keys on it */
};

/*
 * The packet for k (its mac is ignored) into out (PEER_MSG_MAX_LEN
 * bytes); its length, or 0 for a user name that is empty or too long, or
 * a failure of the HMAC.
 */
size_t peer_msg_kill_encode(const struct peer_kill *k, const uint8_t *secret, size_t secret_len, uint8_t *out);

enum peer_msg_check {
	PEER_MSG_OK,
	PEER_MSG_MALFORMED, /* wrong length, no terminator, an empty or overlong name */
	PEER_MSG_BAD_MAC,   /* not signed with this secret */
	PEER_MSG_STALE,     /* made more than PEER_MSG_MAX_SKEW_MS from now */
};

/*
 * Checks a whole packet (len bytes, the length and code included) made
 * with secret, at now_ms; fills *out when it is PEER_MSG_OK (and on
 * PEER_MSG_STALE).
 */
enum peer_msg_check peer_msg_kill_decode(const uint8_t *buf, size_t len, const uint8_t *secret, size_t secret_len,
					 uint64_t now_ms, struct peer_kill *out);

#endif
