/*
 * libFuzzer target for what airlockd reads as a kept backend session's
 * client (protocol/pg_client.h, proxy/job/bsess.c): the input is the
 * backend's byte stream, cut into messages as bsess.c cuts it (at most
 * 64 KiB each), each read as the login reads it (authentication requests,
 * parameters, key, errors, ReadyForQuery; the SCRAM messages themselves are
 * fuzz_scram_client.c's, which drives the same client) and as the reset
 * watches it, with the marker "mk".
 */
#include <stdint.h>
#include <string.h>

#include "protocol/pg_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_reset_watch w = {0};
	const char *err;

	while (size) {
		struct pg_msg m;
		size_t used, len;
		const char *a, *b;
		const uint8_t *v;
		uint32_t code, x, y;
		char status;

		if (pg_decode_msg(data, size, 64u * 1024u, &m, &used, &err) != PG_OK)
			break;
		if (used > size || m.body_len + 5u != used)
			__builtin_trap();
		switch (m.type) {
		case 'R':
			if (pg_read_auth(&m, &code, &v, &len, &err) == PG_OK && code == PG_AUTH_SASL)
				(void)pg_auth_sasl_offers(v, len, "SCRAM-SHA-256");
			break;
		case 'S':
			if (pg_read_parameter_status(&m, &a, &b, &err) == PG_OK && (!a || !b))
				__builtin_trap();
			break;
		case 'K':
			(void)pg_read_backend_key(&m, &x, &y, &err);
			break;
		case 'Z':
			if (pg_read_ready(&m, &status, &err) == PG_OK && status != 'I' && status != 'T' &&
			    status != 'E')
				__builtin_trap();
			break;
		case 'D':
			if (pg_read_datarow_one(&m, &v, &len, &err) == PG_OK && v + len > m.body + m.body_len)
				__builtin_trap();
			break;
		default:
			break;
		}
		if (pg_reset_step(&w, &m, "mk") != PG_RESET_MORE)
			w = (struct pg_reset_watch){0};
		data += used;
		size -= used;
	}
	return 0;
}
