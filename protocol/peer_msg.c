/*
 * peer_msg: the signed "KILL QUERY for user U" between nodes (peer_msg.h).
 */
#include "protocol/peer_msg.h"
#include "protocol/pg_codec.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

_Static_assert(PEER_MSG_KILL_CODE == PG_PEER_REQUEST_CODE, "one code on both sides");
_Static_assert(PEER_MSG_MAX_LEN <= PG_PEER_REQUEST_MAX, "the decoder takes every message");

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static bool mac(const uint8_t *secret, size_t secret_len, const uint8_t *msg, size_t len, uint8_t out[PEER_MSG_MAC_LEN])
{
	unsigned olen = 0;

	return secret_len <= INT32_MAX && HMAC(EVP_sha256(), secret, (int)secret_len, msg, len, out, &olen) != NULL &&
	       olen == PEER_MSG_MAC_LEN;
}

size_t peer_msg_kill_encode(const struct peer_kill *k, const uint8_t *secret, size_t secret_len, uint8_t *out)
{
	size_t ulen = strnlen(k->user, sizeof(k->user)), len;

	if (ulen == 0 || ulen > PEER_MSG_MAX_USER)
		return 0;
	len = 20 + ulen + 1 + PEER_MSG_MAC_LEN;
	put_be32(out, (uint32_t)len);
	put_be32(out + 4, PEER_MSG_KILL_CODE);
	put_be32(out + 8, k->id);
	put_be32(out + 12, (uint32_t)(k->made_ms >> 32));
	put_be32(out + 16, (uint32_t)k->made_ms);
	memcpy(out + 20, k->user, ulen + 1);
	if (!mac(secret, secret_len, out, len - PEER_MSG_MAC_LEN, out + len - PEER_MSG_MAC_LEN))
		return 0;
	return len;
}

enum peer_msg_check peer_msg_kill_decode(const uint8_t *buf, size_t len, const uint8_t *secret, size_t secret_len,
					 uint64_t now_ms, struct peer_kill *out)
{
	uint8_t want[PEER_MSG_MAC_LEN];
	size_t ulen;

	memset(out, 0, sizeof(*out));
	/* the fixed part, a name of at least one byte and its NUL, the MAC */
	if (len < 20 + 2 + PEER_MSG_MAC_LEN || len > PEER_MSG_MAX_LEN || get_be32(buf) != len ||
	    get_be32(buf + 4) != PEER_MSG_KILL_CODE)
		return PEER_MSG_MALFORMED;
	ulen = len - 20 - 1 - PEER_MSG_MAC_LEN;
	if (buf[20 + ulen] != '\0' || memchr(buf + 20, '\0', ulen))
		return PEER_MSG_MALFORMED;
	if (!mac(secret, secret_len, buf, len - PEER_MSG_MAC_LEN, want) ||
	    CRYPTO_memcmp(want, buf + len - PEER_MSG_MAC_LEN, PEER_MSG_MAC_LEN) != 0)
		return PEER_MSG_BAD_MAC;
	out->id = get_be32(buf + 8);
	out->made_ms = (uint64_t)get_be32(buf + 12) << 32 | get_be32(buf + 16);
	memcpy(out->user, buf + 20, ulen + 1);
	memcpy(out->mac, buf + len - PEER_MSG_MAC_LEN, PEER_MSG_MAC_LEN);
	if (out->made_ms > now_ms ? out->made_ms - now_ms > PEER_MSG_MAX_SKEW_MS
				  : now_ms - out->made_ms > PEER_MSG_MAX_SKEW_MS)
		return PEER_MSG_STALE;
	return PEER_MSG_OK;
}
