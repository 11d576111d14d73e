/*
 * libFuzzer target for the MySQL client-packet decoders: the input is a
 * connection's byte stream, cut into packets with my_packet_peek; each
 * payload goes to my_decode_handshake_response and my_decode_command (the
 * first packet of a connection is the handshake response, later ones are
 * commands; both decoders see every payload so each gets all the input).
 * The whole input is also given to both directly, so inputs that are not
 * a valid packet stream still reach them. Every view a decoder returns
 * must lie inside what it was given.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/my_codec.h"

#define FUZZ_MAX_PAYLOAD 4096u

static void inside(const void *v, size_t n, const uint8_t *p, size_t len)
{
	const uint8_t *q = v;

	if (!q) {
		if (n)
			__builtin_trap();
		return;
	}
	if (q < p || n > len || q + n > p + len)
		__builtin_trap();
}

static void decode_response(const uint8_t *p, size_t len)
{
	struct my_handshake_response r;
	const char *why = NULL;

	if (my_decode_handshake_response(p, len, &r, &why) != MY_OK) {
		if (!why || r.user || r.auth || r.database || r.plugin || r.attrs)
			__builtin_trap();
		return;
	}
	if (!(r.caps & MY_CAP_PROTOCOL_41))
		__builtin_trap();
	if (r.ssl_request) {
		if (len != 32 || !(r.caps & MY_CAP_SSL) || r.user)
			__builtin_trap();
		return;
	}
	/* user, database and plugin are NUL-terminated inside the payload. */
	inside(r.user, r.user_len + 1, p, len);
	if (r.user_len > MY_MAX_USER_LEN || r.user[r.user_len] != 0 || memchr(r.user, 0, r.user_len))
		__builtin_trap();
	inside(r.auth, r.auth_len, p, len);
	if (r.auth_len > MY_MAX_AUTH_RESPONSE)
		__builtin_trap();
	if (r.database) {
		inside(r.database, r.database_len + 1, p, len);
		if (r.database_len == 0 || r.database_len > MY_MAX_DATABASE_LEN || r.database[r.database_len] != 0)
			__builtin_trap();
	}
	if (r.plugin) {
		inside(r.plugin, r.plugin_len + 1, p, len);
		if (r.plugin_len > MY_MAX_PLUGIN_LEN || r.plugin[r.plugin_len] != 0)
			__builtin_trap();
	}
	if (r.attrs) {
		const uint8_t *v;
		size_t n;

		inside(r.attrs, r.attrs_len, p, len);
		/* As the session reads it: the dump tool's name. */
		if (my_connect_attr(r.attrs, r.attrs_len, "program_name", &v, &n))
			inside(v, n, r.attrs, r.attrs_len);
	}
}

static void decode_command(const uint8_t *p, size_t len)
{
	struct my_command c;
	const char *why = NULL;

	if (my_decode_command(p, len, &c, &why) != MY_OK) {
		if (!why || c.table || c.arg)
			__builtin_trap();
		return;
	}
	if (len == 0 || c.cmd != p[0] || c.arg != p + 1 || c.arg_len != len - 1)
		__builtin_trap();
	if (c.cmd == MY_COM_FIELD_LIST) {
		inside(c.table, c.table_len + 1, p, len);
		inside(c.wildcard, c.wildcard_len, p, len);
		if (c.table_len == 0 || c.table_len > MY_MAX_TABLE_LEN || c.table[c.table_len] != 0 ||
		    memchr(c.table, 0, c.table_len) || memchr(c.wildcard, 0, c.wildcard_len))
			__builtin_trap();
	} else if (c.table || c.wildcard) {
		__builtin_trap();
	}
}

static void decode_lenenc(const uint8_t *p, size_t len)
{
	uint64_t v;
	size_t used;
	struct wbuf b;

	if (my_read_lenenc_int(p, len, &v, &used) != MY_OK)
		return;
	if (used == 0 || used > len || used > 9)
		__builtin_trap();
	/* Our writer's (shortest) encoding is never longer and reads back the same. */
	wbuf_init(&b);
	my_put_lenenc_int(&b, v);
	if (b.failed || b.len > used) {
		wbuf_free(&b);
		__builtin_trap();
	}
	{
		uint64_t v2;
		size_t used2;

		if (my_read_lenenc_int(b.data, b.len, &v2, &used2) != MY_OK || v2 != v || used2 != b.len) {
			wbuf_free(&b);
			__builtin_trap();
		}
	}
	wbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	decode_response(data, size);
	decode_command(data, size);
	decode_lenenc(data, size);
	while (off < size) {
		struct my_packet pkt;
		size_t consumed = 0, needed = 0;
		enum my_status st = my_packet_peek(data + off, size - off, FUZZ_MAX_PAYLOAD, &pkt, &consumed, &needed);

		if (st == MY_NEED_MORE) {
			if (needed <= size - off || needed > MY_HEADER_LEN + (size_t)FUZZ_MAX_PAYLOAD)
				__builtin_trap();
			break;
		}
		if (st != MY_OK)
			break;
		if (consumed != MY_HEADER_LEN + (size_t)pkt.len || consumed > size - off ||
		    pkt.payload != data + off + MY_HEADER_LEN || pkt.len > FUZZ_MAX_PAYLOAD)
			__builtin_trap();
		decode_response(pkt.payload, pkt.len);
		decode_command(pkt.payload, pkt.len);
		off += consumed;
	}
	return 0;
}
