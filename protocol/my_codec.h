/*
 * my_codec: the MySQL / MariaDB client/server protocol as a server speaks
 * it: client packets in (packet framing, HandshakeResponse41, commands),
 * server packets out (handshake, OK, ERR, EOF, result set metadata and
 * text rows, auth switch). Pure: bytes to structs, structs to bytes, no I/O.
 *
 * Decoders never read past len, check every length read off the wire
 * against what is there and against the caller's maximum, and return
 * views into the caller's buffer (valid while that buffer is). Errors are
 * static strings.
 *
 * Sequence ids: my_packet_peek reports the id it found and writers put
 * the id they are given; my_seq_accept is the one rule the caller applies
 * to every packet it receives.
 */
#ifndef AIRLOCK_PROTOCOL_MY_CODEC_H
#define AIRLOCK_PROTOCOL_MY_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rbuf.h"
#include "base/wbuf.h"

#define MY_HEADER_LEN 4
/* A 0xffffff packet (a payload split over several packets) is refused: our caps are far below 16 MiB. */
#define MY_MAX_PAYLOAD 0xfffffeu

/* Limits on HandshakeResponse41 fields (bytes). */
#define MY_MAX_USER_LEN 256
#define MY_MAX_DATABASE_LEN 256
#define MY_MAX_PLUGIN_LEN 64
#define MY_MAX_AUTH_RESPONSE 1024
/* Limit on a COM_FIELD_LIST table name (bytes). */
#define MY_MAX_TABLE_LEN 256

enum my_status {
	MY_OK = 0,
	MY_NEED_MORE = 1,
	MY_ERR = -1,
};

/* ---- capability flags (CLIENT_*) ---- */
#define MY_CAP_LONG_PASSWORD 0x00000001u
#define MY_CAP_FOUND_ROWS 0x00000002u
#define MY_CAP_LONG_FLAG 0x00000004u
#define MY_CAP_CONNECT_WITH_DB 0x00000008u
#define MY_CAP_NO_SCHEMA 0x00000010u
#define MY_CAP_COMPRESS 0x00000020u
#define MY_CAP_ODBC 0x00000040u
#define MY_CAP_LOCAL_FILES 0x00000080u
#define MY_CAP_IGNORE_SPACE 0x00000100u
#define MY_CAP_PROTOCOL_41 0x00000200u
#define MY_CAP_INTERACTIVE 0x00000400u
#define MY_CAP_SSL 0x00000800u
#define MY_CAP_IGNORE_SIGPIPE 0x00001000u
#define MY_CAP_TRANSACTIONS 0x00002000u
#define MY_CAP_RESERVED 0x00004000u
#define MY_CAP_SECURE_CONNECTION 0x00008000u
#define MY_CAP_MULTI_STATEMENTS 0x00010000u
#define MY_CAP_MULTI_RESULTS 0x00020000u
#define MY_CAP_PS_MULTI_RESULTS 0x00040000u
#define MY_CAP_PLUGIN_AUTH 0x00080000u
#define MY_CAP_CONNECT_ATTRS 0x00100000u
#define MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA 0x00200000u
#define MY_CAP_CAN_HANDLE_EXPIRED_PASSWORDS 0x00400000u
#define MY_CAP_SESSION_TRACK 0x00800000u
#define MY_CAP_DEPRECATE_EOF 0x01000000u
#define MY_CAP_OPTIONAL_RESULTSET_METADATA 0x02000000u
#define MY_CAP_ZSTD_COMPRESSION_ALGORITHM 0x04000000u
#define MY_CAP_QUERY_ATTRIBUTES 0x08000000u
#define MY_CAP_MULTI_FACTOR_AUTHENTICATION 0x10000000u
#define MY_CAP_CAPABILITY_EXTENSION 0x20000000u
#define MY_CAP_SSL_VERIFY_SERVER_CERT 0x40000000u
#define MY_CAP_REMEMBER_OPTIONS 0x80000000u

/* ---- server status flags (SERVER_STATUS_* and friends) ---- */
#define MY_STATUS_IN_TRANS 0x0001u
#define MY_STATUS_AUTOCOMMIT 0x0002u
#define MY_STATUS_MORE_RESULTS_EXISTS 0x0008u
#define MY_STATUS_NO_GOOD_INDEX_USED 0x0010u
#define MY_STATUS_NO_INDEX_USED 0x0020u
#define MY_STATUS_CURSOR_EXISTS 0x0040u
#define MY_STATUS_LAST_ROW_SENT 0x0080u
#define MY_STATUS_DB_DROPPED 0x0100u
#define MY_STATUS_NO_BACKSLASH_ESCAPES 0x0200u
#define MY_STATUS_METADATA_CHANGED 0x0400u
#define MY_STATUS_QUERY_WAS_SLOW 0x0800u
#define MY_STATUS_PS_OUT_PARAMS 0x1000u
#define MY_STATUS_IN_TRANS_READONLY 0x2000u
#define MY_STATUS_SESSION_STATE_CHANGED 0x4000u

/* ---- command bytes (COM_*) ---- */
#define MY_COM_SLEEP 0x00
#define MY_COM_QUIT 0x01
#define MY_COM_INIT_DB 0x02
#define MY_COM_QUERY 0x03
#define MY_COM_FIELD_LIST 0x04
#define MY_COM_CREATE_DB 0x05
#define MY_COM_DROP_DB 0x06
#define MY_COM_REFRESH 0x07
#define MY_COM_SHUTDOWN 0x08
#define MY_COM_STATISTICS 0x09
#define MY_COM_PROCESS_INFO 0x0a
#define MY_COM_CONNECT 0x0b
#define MY_COM_PROCESS_KILL 0x0c
#define MY_COM_DEBUG 0x0d
#define MY_COM_PING 0x0e
#define MY_COM_TIME 0x0f
#define MY_COM_DELAYED_INSERT 0x10
#define MY_COM_CHANGE_USER 0x11
#define MY_COM_BINLOG_DUMP 0x12
#define MY_COM_TABLE_DUMP 0x13
#define MY_COM_CONNECT_OUT 0x14
#define MY_COM_REGISTER_SLAVE 0x15
#define MY_COM_STMT_PREPARE 0x16
#define MY_COM_STMT_EXECUTE 0x17
#define MY_COM_STMT_SEND_LONG_DATA 0x18
#define MY_COM_STMT_CLOSE 0x19
#define MY_COM_STMT_RESET 0x1a
#define MY_COM_SET_OPTION 0x1b
#define MY_COM_STMT_FETCH 0x1c
#define MY_COM_DAEMON 0x1d
#define MY_COM_BINLOG_DUMP_GTID 0x1e
#define MY_COM_RESET_CONNECTION 0x1f

/* ---- column types (MYSQL_TYPE_*) ---- */
#define MY_TYPE_DECIMAL 0
#define MY_TYPE_TINY 1
#define MY_TYPE_SHORT 2
#define MY_TYPE_LONG 3
#define MY_TYPE_FLOAT 4
#define MY_TYPE_DOUBLE 5
#define MY_TYPE_NULL 6
#define MY_TYPE_TIMESTAMP 7
#define MY_TYPE_LONGLONG 8
#define MY_TYPE_INT24 9
#define MY_TYPE_DATE 10
#define MY_TYPE_TIME 11
#define MY_TYPE_DATETIME 12
#define MY_TYPE_YEAR 13
#define MY_TYPE_NEWDATE 14
#define MY_TYPE_VARCHAR 15
#define MY_TYPE_BIT 16
#define MY_TYPE_TIMESTAMP2 17
#define MY_TYPE_DATETIME2 18
#define MY_TYPE_TIME2 19
#define MY_TYPE_JSON 245
#define MY_TYPE_NEWDECIMAL 246
#define MY_TYPE_ENUM 247
#define MY_TYPE_SET 248
#define MY_TYPE_TINY_BLOB 249
#define MY_TYPE_MEDIUM_BLOB 250
#define MY_TYPE_LONG_BLOB 251
#define MY_TYPE_BLOB 252
#define MY_TYPE_VAR_STRING 253
#define MY_TYPE_STRING 254
#define MY_TYPE_GEOMETRY 255

/* ---- column flags (*_FLAG) ---- */
#define MY_FLAG_NOT_NULL 0x0001u
#define MY_FLAG_PRI_KEY 0x0002u
#define MY_FLAG_UNIQUE_KEY 0x0004u
#define MY_FLAG_MULTIPLE_KEY 0x0008u
#define MY_FLAG_BLOB 0x0010u
#define MY_FLAG_UNSIGNED 0x0020u
#define MY_FLAG_ZEROFILL 0x0040u
#define MY_FLAG_BINARY 0x0080u
#define MY_FLAG_ENUM 0x0100u
#define MY_FLAG_AUTO_INCREMENT 0x0200u
#define MY_FLAG_TIMESTAMP 0x0400u
#define MY_FLAG_SET 0x0800u
#define MY_FLAG_NO_DEFAULT_VALUE 0x1000u
#define MY_FLAG_ON_UPDATE_NOW 0x2000u
#define MY_FLAG_PART_KEY 0x4000u
#define MY_FLAG_NUM 0x8000u

/* ---- a few collation ids ---- */
#define MY_CHARSET_UTF8_GENERAL_CI 33
#define MY_CHARSET_BINARY 63
#define MY_CHARSET_UTF8MB4_GENERAL_CI 45
#define MY_CHARSET_UTF8MB4_0900_AI_CI 255

/* ---- packet framing ---- */

/* One packet located in a buffer; payload points into that buffer. */
struct my_packet {
	uint8_t seq;
	uint32_t len;
	const uint8_t *payload;
};

/*
 * The sequence id rule. *next is the id the next packet of the exchange
 * must carry, whichever side sends it (a command starts an exchange at 0).
 * A received packet with id got is in order when got == *next; then *next
 * moves past it (wrapping from 255 to 0) and MY_OK is returned. Otherwise
 * MY_ERR ("Got packets out of order") and *next is left alone. Sending
 * takes (*next)++.
 */
enum my_status my_seq_accept(uint8_t *next, uint8_t got);

/*
 * Locate one packet at buf. MY_OK with *consumed (header + payload);
 * MY_NEED_MORE with *needed set to the total bytes the packet needs (4
 * while the header is incomplete); MY_ERR when the length is above
 * max_payload (itself capped at MY_MAX_PAYLOAD) or is 0xffffff. A payload
 * of length 0 is valid. consumed and needed may be NULL.
 */
enum my_status my_packet_peek(const uint8_t *buf, size_t len, uint32_t max_payload, struct my_packet *out,
			      size_t *consumed, size_t *needed);

/*
 * The length-encoded integer at p (len bytes available): MY_OK with *out
 * and *used (bytes it took); MY_ERR when truncated or when the first byte
 * is 0xfb (a NULL, not an integer) or 0xff.
 */
enum my_status my_read_lenenc_int(const uint8_t *p, size_t len, uint64_t *out, size_t *used);

/*
 * The same through a cursor (base/rbuf.h), for decoders: false, with
 * nothing consumed, when the integer is truncated or starts with 0xfb or
 * 0xff, or (my_get_lenenc_str) when the bytes it counts run past the
 * cursor. *s points into the cursor's bytes.
 */
RBUF_MUST_CHECK bool my_get_lenenc_int(struct rbuf *r, uint64_t *v);
RBUF_MUST_CHECK bool my_get_lenenc_str(struct rbuf *r, const uint8_t **s, size_t *len);

/* ---- writer ---- */

/*
 * Packets are written into a wbuf the caller owns (base/wbuf.h); check
 * w->failed once before sending. A packet above MY_MAX_PAYLOAD or a
 * my_end without a my_begin sets the sticky failed bit, like a failed
 * allocation. One packet is open at a time: the whole-packet writers
 * (my_write_*) begin and end their own packet, so call them between
 * packets, never inside one.
 */
void my_begin(struct wbuf *b, uint8_t seq); /* reserves the 4-byte header */
void my_end(struct wbuf *b);                /* patches the length of the packet begun last */

/* Little-endian integers: the codec's names for the wbuf puts. */
static inline void my_put_u8(struct wbuf *b, uint8_t v)
{
	wbuf_put_u8(b, v);
}
static inline void my_put_u16(struct wbuf *b, uint16_t v)
{
	wbuf_put_le16(b, v);
}
static inline void my_put_u24(struct wbuf *b, uint32_t v) /* the low 24 bits */
{
	wbuf_put_le24(b, v);
}
static inline void my_put_u32(struct wbuf *b, uint32_t v)
{
	wbuf_put_le32(b, v);
}
static inline void my_put_u64(struct wbuf *b, uint64_t v)
{
	wbuf_put_le64(b, v);
}
static inline void my_put_bytes(struct wbuf *b, const void *p, size_t len)
{
	wbuf_put_bytes(b, p, len);
}
/* < 251: 1 byte; < 2^16: 0xfc + 2; < 2^24: 0xfd + 3; else 0xfe + 8. */
void my_put_lenenc_int(struct wbuf *b, uint64_t v);
void my_put_lenenc_str(struct wbuf *b, const void *s, size_t len);
void my_put_nul_str(struct wbuf *b, const char *s); /* bytes + NUL; NULL writes "" */
void my_put_null(struct wbuf *b);                   /* a NULL value in a text row: 0xfb */

/* ---- server packets ---- */

struct my_handshake {
	const char *server_version; /* e.g. "8.0.36-airlock"; NULL writes "" */
	uint32_t conn_id;
	const uint8_t *scramble; /* MY_SCRAMBLE_LEN (20) bytes, none of them NUL */
	uint32_t caps;
	uint8_t charset;
	uint16_t status;
	const char *auth_plugin; /* NULL: "mysql_native_password" */
};
/*
 * HandshakeV10, a complete packet: 0x0a, version NUL, conn id, scramble
 * bytes 0-7, 0x00, caps low 16, charset, status, caps high 16, 21 (with
 * CLIENT_PLUGIN_AUTH, else 0), 10 zero bytes, scramble bytes 8-19 + NUL
 * (with CLIENT_SECURE_CONNECTION), plugin name NUL (with CLIENT_PLUGIN_AUTH).
 */
void my_write_handshake(struct wbuf *b, uint8_t seq, const struct my_handshake *h);

/*
 * OK: header 0x00 (0xfe when eof_header: the OK that ends a result set for
 * a client with CLIENT_DEPRECATE_EOF), lenenc affected rows, lenenc last
 * insert id, then with CLIENT_PROTOCOL_41 u16 status + u16 warnings (with
 * only CLIENT_TRANSACTIONS, u16 status). With CLIENT_SESSION_TRACK in
 * client_caps an empty lenenc info string follows; otherwise nothing.
 */
void my_write_ok(struct wbuf *b, uint8_t seq, uint32_t client_caps, uint64_t affected, uint64_t last_id,
		 uint16_t status, uint16_t warnings, bool eof_header);
/* ERR: 0xff, u16 code, '#', sqlstate (5 chars; anything else writes "HY000"), message (NULL: ""). */
void my_write_err(struct wbuf *b, uint8_t seq, uint16_t errcode, const char *sqlstate, const char *message);
/* EOF (clients without CLIENT_DEPRECATE_EOF): 0xfe, u16 warnings, u16 status. */
void my_write_eof(struct wbuf *b, uint8_t seq, uint16_t warnings, uint16_t status);
/* The first packet of a result set: a lenenc column count. */
void my_write_column_count(struct wbuf *b, uint8_t seq, uint64_t n);

/* A column's metadata; string views need no NUL; a NULL pointer is "" whatever its length. */
struct my_column {
	const char *schema, *table, *org_table, *name, *org_name;
	size_t schema_len, table_len, org_table_len, name_len, org_name_len;
	uint16_t charset;
	uint32_t length;
	uint8_t type;
	uint16_t flags;
	uint8_t decimals;
};
/*
 * ColumnDefinition41 with catalog "def", then lenenc 0x0c, u16 charset,
 * u32 length, u8 type, u16 flags, u8 decimals, 2 zero bytes. field_list
 * appends the COM_FIELD_LIST default value (a lenenc NULL, 0xfb).
 */
void my_write_column_def(struct wbuf *b, uint8_t seq, const struct my_column *c, bool field_list);

/*
 * A text result row is built by the caller: my_begin, per value
 * my_put_lenenc_str or my_put_null, my_end.
 */

/* AuthSwitchRequest: 0xfe, plugin NUL, data, NUL (pass the 20 scramble bytes; the NUL is added here). */
void my_write_auth_switch(struct wbuf *b, uint8_t seq, const char *plugin, const uint8_t *data, size_t len);
/* AuthMoreData: 0x01 + data (e.g. 0x03 / 0x04 for caching_sha2_password, or the PEM public key). */
void my_write_auth_more(struct wbuf *b, uint8_t seq, const void *data, size_t len);

/* ---- client packets ---- */

/*
 * HandshakeResponse41 (or the SSLRequest that precedes TLS). Views point
 * into the payload (borrowed). user and plugin are followed by a NUL in the
 * payload; database too, auth and attrs are not.
 */
struct my_handshake_response {
	uint32_t caps;
	uint32_t max_packet;
	uint8_t charset;
	const char *user;
	size_t user_len;
	const uint8_t *auth; /* NULL when auth_len is 0 */
	size_t auth_len;
	const char *database; /* NULL / 0 when absent or empty */
	size_t database_len;
	const char *plugin; /* NULL when absent */
	size_t plugin_len;
	const uint8_t *attrs; /* connection attributes, raw (lenenc key, lenenc value)...; NULL when absent */
	size_t attrs_len;
	bool ssl_request; /* the 32-byte SSLRequest: caps has CLIENT_SSL, nothing after the filler */
};
/*
 * Decodes one HandshakeResponse41 payload. MY_OK or MY_ERR with a static
 * reason in *why (why may be NULL): no CLIENT_PROTOCOL_41, truncated
 * fields, a missing NUL, a lenenc length past the end, malformed
 * connection attributes, a field above its MY_MAX_* limit, trailing bytes.
 * Fields after the auth response that are announced in caps but wholly
 * absent (the payload ends first) are taken as absent, as servers do. On
 * MY_ERR *out is all zero.
 */
enum my_status my_decode_handshake_response(const uint8_t *p, size_t len, struct my_handshake_response *out,
					    const char **why);

/*
 * The value of connection attribute key in attrs (as the decoder above
 * checked them): true with *value / *value_len viewing it, false when it
 * is absent.
 */
bool my_connect_attr(const uint8_t *attrs, size_t attrs_len, const char *key, const uint8_t **value, size_t *value_len);

/*
 * A command packet: the command byte and the bytes after it (arg, not
 * NUL-terminated). For COM_FIELD_LIST also the table (NUL-terminated in
 * the payload, non-empty, at most MY_MAX_TABLE_LEN) and the wildcard (the
 * rest; a single trailing NUL is dropped; may be empty).
 */
struct my_command {
	uint8_t cmd;
	const uint8_t *arg;
	size_t arg_len;
	const char *table;
	size_t table_len;
	const char *wildcard;
	size_t wildcard_len;
};
/*
 * MY_ERR (with *why, *out all zero) on an empty payload or a malformed
 * COM_FIELD_LIST. Other commands' arguments are not checked here.
 */
enum my_status my_decode_command(const uint8_t *p, size_t len, struct my_command *out, const char **why);

/* COM_STMT_FETCH (command byte included): statement id and rows wanted; MY_ERR (both 0) unless exactly 9 bytes. */
enum my_status my_stmt_fetch_decode(const uint8_t *p, size_t len, uint32_t *stmt_id, uint32_t *rows);

#endif
