/*
 * fuzz_peer_msg: libFuzzer target for the signed message between nodes
 * (protocol/peer_msg.h), as the Postgres listener hands it over: the input
 * through pg_decode_startup, and a peer message it yields through
 * peer_msg_kill_decode, in an exact-size heap copy (a read past its end is
 * an ASan error). Whatever the input, a message the decoder accepts says
 * what its bytes say: encoding it again gives the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/peer_msg.h"
#include "protocol/pg_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t secret[] = "fuzz-secret-0123456789";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_startup st;
	struct peer_kill k;
	const char *err = NULL;
	size_t consumed = 0;
	uint8_t *copy, again[PEER_MSG_MAX_LEN];

	if (size > 1 << 12)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (pg_decode_startup(copy, size, 1 << 12, &st, &consumed, &err) == PG_OK && st.kind == PG_STARTUP_PEER) {
		if (st.raw != copy || st.raw_len != consumed || consumed > size)
			abort();
		/* Signed or not, fresh or not: the decoder must stay inside the packet. */
		if (peer_msg_kill_decode(st.raw, st.raw_len, secret, sizeof(secret) - 1, 0, &k) == PEER_MSG_OK) {
			size_t n = peer_msg_kill_encode(&k, secret, sizeof(secret) - 1, again);

			if (n != st.raw_len || memcmp(again, st.raw, n) != 0)
				abort();
		}
	}
	/* The same bytes as a message of their own, and a message made from them that must decode. */
	memset(&k, 0, sizeof(k));
	if (size >= 12) {
		size_t n;

		memcpy(&k.id, data, 4);
		memcpy(&k.made_ms, data + 4, 8);
		k.made_ms %= 1000000;
		memcpy(k.user, data + 12, size - 12 < PEER_MSG_MAX_USER ? size - 12 : PEER_MSG_MAX_USER);
		n = peer_msg_kill_encode(&k, secret, sizeof(secret) - 1, again);
		if (n) {
			struct peer_kill back;

			if (peer_msg_kill_decode(again, n, secret, sizeof(secret) - 1, k.made_ms, &back) !=
				    PEER_MSG_OK ||
			    back.id != k.id || back.made_ms != k.made_ms || strcmp(back.user, k.user) != 0)
				abort();
			again[n - 1] ^= 1;
			if (peer_msg_kill_decode(again, n, secret, sizeof(secret) - 1, k.made_ms, &back) !=
			    PEER_MSG_BAD_MAC)
				abort();
		}
	}
	free(copy);
	return 0;
}
