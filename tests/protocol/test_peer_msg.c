/* Tests for protocol/peer_msg.c: the signed KILL QUERY between nodes, good and malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/peer_msg.h"
#include "protocol/pg_codec.h"

static const uint8_t key[] = "a-key-the-nodes-share-0123456789";
#define KEYLEN (sizeof(key) - 1)
#define NOW 1764900000000ull

static size_t make(uint8_t *out, const char *user, uint64_t made)
{
	struct peer_kill k = {.id = 0x00c00123u, .made_ms = made};

	strcpy(k.user, user);
	return peer_msg_kill_encode(&k, key, KEYLEN, out);
}

/* Decodes an exact-size heap copy, so a read past the end is a sanitizer error. */
static enum peer_msg_check decode(const uint8_t *msg, size_t len, const uint8_t *secret, size_t slen,
				  struct peer_kill *k)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum peer_msg_check c;

	assert_non_null(copy);
	memcpy(copy, msg, len);
	c = peer_msg_kill_decode(copy, len, secret, slen, NOW, k);
	free(copy);
	return c;
}

static void round_trip(void **state)
{
	uint8_t msg[PEER_MSG_MAX_LEN];
	struct peer_kill k;
	struct pg_startup st;
	const char *err;
	size_t len = make(msg, "agent", NOW - 500), used;

	(void)state;
	assert_int_equal(len, 20 + 6 + 32);
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_OK);
	assert_int_equal(k.id, 0x00c00123u);
	assert_int_equal(k.made_ms, NOW - 500);
	assert_string_equal(k.user, "agent");
	assert_memory_equal(k.mac, msg + len - 32, 32);
	/* The Postgres listener's decoder hands the whole packet over. */
	assert_int_equal(pg_decode_startup(msg, len, 1 << 20, &st, &used, &err), PG_OK);
	assert_int_equal(st.kind, PG_STARTUP_PEER);
	assert_ptr_equal(st.raw, msg);
	assert_int_equal(st.raw_len, len);
	assert_int_equal(used, len);
	/* a name of the longest length */
	char longest[PEER_MSG_MAX_USER + 1];

	memset(longest, 'u', PEER_MSG_MAX_USER);
	longest[PEER_MSG_MAX_USER] = '\0';
	len = make(msg, longest, NOW);
	assert_int_equal(len, PEER_MSG_MAX_LEN);
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_OK);
	assert_string_equal(k.user, longest);
	assert_int_equal(make(msg, "", NOW), 0);
}

static void refused(void **state)
{
	uint8_t msg[PEER_MSG_MAX_LEN + 8];
	struct peer_kill k;
	size_t len = make(msg, "agent", NOW);
	static const uint8_t other[] = "another-key-entirely-0123456789";

	(void)state;
	assert_int_equal(decode(msg, len, other, sizeof(other) - 1, &k), PEER_MSG_BAD_MAC);
	assert_int_equal(decode(msg, len, key, KEYLEN - 1, &k), PEER_MSG_BAD_MAC);
	/* every byte matters */
	for (size_t i = 8; i < len; i++) {
		msg[i] ^= 0x20;
		assert_int_not_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_OK);
		msg[i] ^= 0x20;
	}
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_OK);
	/* too old, too new: the clock's window */
	len = make(msg, "agent", NOW - PEER_MSG_MAX_SKEW_MS - 1);
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_STALE);
	len = make(msg, "agent", NOW + PEER_MSG_MAX_SKEW_MS + 1);
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_STALE);
	len = make(msg, "agent", NOW - PEER_MSG_MAX_SKEW_MS);
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_OK);
}

static void malformed(void **state)
{
	uint8_t msg[PEER_MSG_MAX_LEN + 8];
	struct peer_kill k;
	size_t len = make(msg, "agent", NOW);

	(void)state;
	/* every cut, and the length field disagreeing */
	for (size_t n = 0; n < len; n++)
		assert_int_equal(decode(msg, n, key, KEYLEN, &k), PEER_MSG_MALFORMED);
	msg[3]++;
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_MALFORMED);
	msg[3]--;
	/* another code */
	msg[7]++;
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_MALFORMED);
	msg[7]--;
	/* no terminator, or a NUL inside the name */
	msg[20 + 5] = 'x';
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_MALFORMED);
	msg[20 + 5] = '\0';
	msg[20 + 2] = '\0';
	assert_int_equal(decode(msg, len, key, KEYLEN, &k), PEER_MSG_MALFORMED);
	/* longer than any message: refused by the listener's decoder before anything else */
	{
		uint8_t big[PG_PEER_REQUEST_MAX + 8] = {0};
		struct pg_startup st;
		const char *err = NULL;
		size_t used;

		big[2] = (uint8_t)((PG_PEER_REQUEST_MAX + 4) >> 8);
		big[3] = (uint8_t)(PG_PEER_REQUEST_MAX + 4);
		big[4] = (uint8_t)(PG_PEER_REQUEST_CODE >> 24);
		big[5] = (uint8_t)(PG_PEER_REQUEST_CODE >> 16);
		big[6] = (uint8_t)(PG_PEER_REQUEST_CODE >> 8);
		big[7] = (uint8_t)PG_PEER_REQUEST_CODE;
		assert_int_equal(pg_decode_startup(big, sizeof(big), 1 << 20, &st, &used, &err), PG_ERR);
		assert_non_null(strstr(err, "peer message too long"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(refused),
		cmocka_unit_test(malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
