/*
 * libFuzzer target for the Postgres frontend decoders: the input is a
 * connection's byte stream; the startup packet is decoded first, then
 * typed messages until the input runs out or is refused, each passed to
 * the parser for its type.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/pg_codec.h"

#define FUZZ_MAX_LEN 512u

static void parse_one(const struct pg_msg *m)
{
	const char *err = NULL, *sql, *mech;
	const uint8_t *data;
	int32_t ilen;
	size_t rlen;

	switch (m->type) {
	case 'Q':
		if (pg_parse_query(m, &sql, &err) == PG_OK && strlen(sql) + 1 != m->body_len)
			__builtin_trap();
		break;
	case 'p':
		if (pg_parse_sasl_initial(m, &mech, &data, &ilen, &err) == PG_OK) {
			if (ilen >= 0 && data + ilen != m->body + m->body_len)
				__builtin_trap();
		}
		if (pg_parse_sasl_response(m, &data, &rlen, &err) == PG_OK && rlen != m->body_len)
			__builtin_trap();
		break;
	case 'P': {
		struct pg_parse pp;

		if (pg_parse_parse(m, &pp, &err) == PG_OK)
			for (uint16_t i = 0; i <= pp.ntypes; i++)
				(void)pg_parse_type_at(&pp, i);
		break;
	}
	case 'B': {
		struct pg_bind b;
		struct pg_bind_value v[64];

		if (pg_parse_bind(m, &b, &err) == PG_OK && pg_bind_values(&b, v, 64) == PG_OK) {
			for (uint16_t i = 0; i < b.nparams; i++)
				if (v[i].len > 0 &&
				    (v[i].data < m->body || v[i].data + v[i].len > m->body + m->body_len))
					__builtin_trap();
			(void)pg_bind_result_format(&b, 3);
		}
		break;
	}
	case 'D':
	case 'C': {
		char kind;
		const char *name;

		(void)pg_parse_describe(m, &kind, &name, &err);
		break;
	}
	case 'E': {
		const char *portal;
		uint32_t max_rows;

		(void)pg_parse_execute(m, &portal, &max_rows, &err);
		break;
	}
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_startup s;
	struct pg_msg m;
	size_t off = 0, consumed = 0, i;
	const char *err = NULL;

	if (pg_decode_startup(data, size, FUZZ_MAX_LEN, &s, &consumed, &err) == PG_OK) {
		if (consumed < 8 || consumed > size)
			__builtin_trap();
		for (i = 0; i < s.nparams; i++)
			if (pg_startup_get(&s, s.params[i].name) != s.params[i].value)
				__builtin_trap();
		off = consumed;
	}
	/* Typed messages from wherever the startup packet ended (or the start). */
	while (off < size) {
		enum pg_status st = pg_decode_msg(data + off, size - off, FUZZ_MAX_LEN, &m, &consumed, &err);

		if (st != PG_OK)
			break;
		if (consumed != (size_t)m.body_len + 5 || consumed > size - off)
			__builtin_trap();
		parse_one(&m);
		off += consumed;
	}
	return 0;
}
