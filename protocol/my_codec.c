/*
 * my_codec: the MySQL client/server protocol, server side (layouts in
 * my_codec.h). Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * Decoders read through a bounded cursor (struct rbuf): every getter checks
 * what remains before it reads and reports failure instead of reading on.
 * Decoded strings are views into the caller's buffer.
 *
 * Writers append to a caller-owned wbuf with a sticky failed bit; the
 * open packet may never grow past MY_HEADER_LEN + MY_MAX_PAYLOAD (the
 * limit my_begin gives the wbuf), so a runaway writer fails early instead
 * of buffering without bound.
 */
#include "protocol/my_codec.h"

#include <string.h>

#define MY_SPLIT_LEN 0xffffffu
#define MY_NATIVE_PLUGIN "mysql_native_password"
#define MY_SCRAMBLE_BYTES 20
#define MY_SCRAMBLE_PART1 8
#define MY_HS_RESPONSE_FIXED 32 /* caps, max packet, charset, 23 filler bytes */

/* ---- bounded reading --------------------------------------------------- */

bool my_get_lenenc_int(struct rbuf *r, uint64_t *v)
{
	struct rbuf t = *r;
	uint8_t first;
	uint16_t v16;
	uint32_t v24;
	uint64_t v64;

	if (!rbuf_get_u8(&t, &first))
		return false;
	switch (first) {
	case 0xfb:
	case 0xff:
		return false;
	case 0xfc:
		if (!rbuf_get_le16(&t, &v16))
			return false;
		v64 = v16;
		break;
	case 0xfd:
		if (!rbuf_get_le24(&t, &v24))
			return false;
		v64 = v24;
		break;
	case 0xfe:
		if (!rbuf_get_le64(&t, &v64))
			return false;
		break;
	default:
		v64 = first;
		break;
	}
	*v = v64;
	*r = t;
	return true;
}

bool my_get_lenenc_str(struct rbuf *r, const uint8_t **s, size_t *len)
{
	struct rbuf t = *r;
	uint64_t n;

	if (!my_get_lenenc_int(&t, &n) || n > rbuf_left(&t) || !rbuf_get_bytes(&t, (size_t)n, s))
		return false;
	*len = (size_t)n;
	*r = t;
	return true;
}

enum my_status my_read_lenenc_int(const uint8_t *p, size_t len, uint64_t *out, size_t *used)
{
	struct rbuf r;

	*out = 0;
	*used = 0;
	rbuf_init(&r, p, len);
	if (!my_get_lenenc_int(&r, out))
		return MY_ERR;
	*used = len - rbuf_left(&r);
	return MY_OK;
}

static enum my_status fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return MY_ERR;
}

/* ---- packet framing ---------------------------------------------------- */

enum my_status my_seq_accept(uint8_t *next, uint8_t got)
{
	if (got != *next)
		return MY_ERR;
	*next = (uint8_t)(got + 1);
	return MY_OK;
}

enum my_status my_packet_peek(const uint8_t *buf, size_t len, uint32_t max_payload, struct my_packet *out,
			      size_t *consumed, size_t *needed)
{
	struct rbuf r;
	const uint8_t *payload;
	uint32_t plen;
	uint8_t seq;

	memset(out, 0, sizeof(*out));
	if (consumed)
		*consumed = 0;
	if (needed)
		*needed = 0;
	if (max_payload > MY_MAX_PAYLOAD)
		max_payload = MY_MAX_PAYLOAD;
	rbuf_init(&r, buf, len);
	if (!rbuf_get_le24(&r, &plen))
		goto out_header;
	/* The length is known from 3 bytes on: refuse a bad one before waiting for more. */
	if (plen == MY_SPLIT_LEN || plen > max_payload)
		return MY_ERR;
	if (!rbuf_get_u8(&r, &seq))
		goto out_header;
	if (!rbuf_get_bytes(&r, plen, &payload)) {
		if (needed)
			*needed = (size_t)MY_HEADER_LEN + plen;
		return MY_NEED_MORE;
	}
	out->seq = seq;
	out->len = plen;
	out->payload = payload;
	if (consumed)
		*consumed = (size_t)MY_HEADER_LEN + plen;
	return MY_OK;
out_header:
	if (needed)
		*needed = MY_HEADER_LEN;
	return MY_NEED_MORE;
}

/* ---- writer ------------------------------------------------------------ */

/* The open packet, header included, never grows past this. */
#define MY_PACKET_LIMIT ((size_t)MY_HEADER_LEN + MY_MAX_PAYLOAD)

void my_begin(struct wbuf *b, uint8_t seq)
{
	if (b->failed)
		return;
	(void)wbuf_begin(b, MY_PACKET_LIMIT);
	wbuf_put_le24(b, 0);
	wbuf_put_u8(b, seq);
}

void my_end(struct wbuf *b)
{
	size_t plen;

	if (wbuf_message_len(b, MY_HEADER_LEN, MY_MAX_PAYLOAD, &plen))
		wbuf_patch_le24(b, b->mark, (uint32_t)plen);
}

void my_put_lenenc_int(struct wbuf *b, uint64_t v)
{
	if (v < 251) {
		my_put_u8(b, (uint8_t)v);
	} else if (v < 0x10000u) {
		my_put_u8(b, 0xfc);
		my_put_u16(b, (uint16_t)v);
	} else if (v < 0x1000000u) {
		my_put_u8(b, 0xfd);
		my_put_u24(b, (uint32_t)v);
	} else {
		my_put_u8(b, 0xfe);
		my_put_u64(b, v);
	}
}

void my_put_lenenc_str(struct wbuf *b, const void *s, size_t len)
{
	my_put_lenenc_int(b, len);
	my_put_bytes(b, s, len);
}

void my_put_nul_str(struct wbuf *b, const char *s)
{
	wbuf_put_cstr(b, s);
}

void my_put_null(struct wbuf *b)
{
	my_put_u8(b, 0xfb);
}

/* ---- server packets ---------------------------------------------------- */

void my_write_handshake(struct wbuf *b, uint8_t seq, const struct my_handshake *h)
{
	static const uint8_t reserved[10];

	my_begin(b, seq);
	my_put_u8(b, 10);
	my_put_nul_str(b, h->server_version);
	my_put_u32(b, h->conn_id);
	my_put_bytes(b, h->scramble, MY_SCRAMBLE_PART1);
	my_put_u8(b, 0);
	my_put_u16(b, (uint16_t)h->caps);
	my_put_u8(b, h->charset);
	my_put_u16(b, h->status);
	my_put_u16(b, (uint16_t)(h->caps >> 16));
	my_put_u8(b, (h->caps & MY_CAP_PLUGIN_AUTH) ? MY_SCRAMBLE_BYTES + 1 : 0);
	my_put_bytes(b, reserved, sizeof(reserved));
	if (h->caps & MY_CAP_SECURE_CONNECTION) {
		my_put_bytes(b, h->scramble + MY_SCRAMBLE_PART1, MY_SCRAMBLE_BYTES - MY_SCRAMBLE_PART1);
		my_put_u8(b, 0);
	}
	if (h->caps & MY_CAP_PLUGIN_AUTH)
		my_put_nul_str(b, h->auth_plugin ? h->auth_plugin : MY_NATIVE_PLUGIN);
	my_end(b);
}

void my_write_ok(struct wbuf *b, uint8_t seq, uint32_t client_caps, uint64_t affected, uint64_t last_id,
		 uint16_t status, uint16_t warnings, bool eof_header)
{
	my_begin(b, seq);
	my_put_u8(b, eof_header ? 0xfe : 0x00);
	my_put_lenenc_int(b, affected);
	my_put_lenenc_int(b, last_id);
	if (client_caps & MY_CAP_PROTOCOL_41) {
		my_put_u16(b, status);
		my_put_u16(b, warnings);
	} else if (client_caps & MY_CAP_TRANSACTIONS) {
		my_put_u16(b, status);
	}
	if (client_caps & MY_CAP_SESSION_TRACK)
		my_put_lenenc_int(b, 0); /* info: empty; no session state (we never set SESSION_STATE_CHANGED) */
	my_end(b);
}

static bool valid_sqlstate(const char *s)
{
	size_t i;

	if (!s)
		return false;
	for (i = 0; i < 5; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	return s[5] == 0;
}

void my_write_err(struct wbuf *b, uint8_t seq, uint16_t errcode, const char *sqlstate, const char *message)
{
	if (!valid_sqlstate(sqlstate))
		sqlstate = "HY000";
	if (!message)
		message = "";
	my_begin(b, seq);
	my_put_u8(b, 0xff);
	my_put_u16(b, errcode);
	my_put_u8(b, '#');
	my_put_bytes(b, sqlstate, 5);
	my_put_bytes(b, message, strlen(message));
	my_end(b);
}

void my_write_eof(struct wbuf *b, uint8_t seq, uint16_t warnings, uint16_t status)
{
	my_begin(b, seq);
	my_put_u8(b, 0xfe);
	my_put_u16(b, warnings);
	my_put_u16(b, status);
	my_end(b);
}

void my_write_column_count(struct wbuf *b, uint8_t seq, uint64_t n)
{
	my_begin(b, seq);
	my_put_lenenc_int(b, n);
	my_end(b);
}

static void put_view(struct wbuf *b, const char *s, size_t len)
{
	if (!s)
		len = 0;
	my_put_lenenc_str(b, s, len);
}

void my_write_column_def(struct wbuf *b, uint8_t seq, const struct my_column *c, bool field_list)
{
	my_begin(b, seq);
	my_put_lenenc_str(b, "def", 3);
	put_view(b, c->schema, c->schema_len);
	put_view(b, c->table, c->table_len);
	put_view(b, c->org_table, c->org_table_len);
	put_view(b, c->name, c->name_len);
	put_view(b, c->org_name, c->org_name_len);
	my_put_lenenc_int(b, 0x0c);
	my_put_u16(b, c->charset);
	my_put_u32(b, c->length);
	my_put_u8(b, c->type);
	my_put_u16(b, c->flags);
	my_put_u8(b, c->decimals);
	my_put_u16(b, 0);
	if (field_list)
		my_put_null(b);
	my_end(b);
}

void my_write_auth_switch(struct wbuf *b, uint8_t seq, const char *plugin, const uint8_t *data, size_t len)
{
	my_begin(b, seq);
	my_put_u8(b, 0xfe);
	my_put_nul_str(b, plugin);
	my_put_bytes(b, data, len);
	my_put_u8(b, 0);
	my_end(b);
}

void my_write_auth_more(struct wbuf *b, uint8_t seq, const void *data, size_t len)
{
	my_begin(b, seq);
	my_put_u8(b, 0x01);
	my_put_bytes(b, data, len);
	my_end(b);
}

/* ---- client packets ---------------------------------------------------- */

/* Connection attributes: pairs of lenenc strings filling the cursor exactly. */
static bool attrs_well_formed(struct rbuf *r)
{
	const uint8_t *s;
	size_t n;

	while (rbuf_left(r) > 0) {
		if (!my_get_lenenc_str(r, &s, &n)) /* key */
			return false;
		if (!my_get_lenenc_str(r, &s, &n)) /* value */
			return false;
	}
	return true;
}

bool my_connect_attr(const uint8_t *attrs, size_t attrs_len, const char *key, const uint8_t **value, size_t *value_len)
{
	struct rbuf r;
	const uint8_t *k;
	size_t klen, n = strlen(key);

	if (!attrs)
		return false;
	rbuf_init(&r, attrs, attrs_len);
	while (rbuf_left(&r) > 0) {
		if (!my_get_lenenc_str(&r, &k, &klen) || !my_get_lenenc_str(&r, value, value_len))
			return false;
		if (klen == n && memcmp(k, key, n) == 0)
			return true;
	}
	return false;
}

/*
 * The auth response: lenenc with CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
 * else one length byte with CLIENT_SECURE_CONNECTION, else NUL-terminated.
 */
/* A NUL-terminated name of at most max bytes; on failure, why says which of the two things went wrong. */
static enum my_status get_name(struct rbuf *r, size_t max, const char **s, size_t *len, const char *no_nul,
			       const char *too_long, const char **why)
{
	if (!rbuf_get_cstr(r, s, len))
		return fail(why, no_nul);
	if (*len > max)
		return fail(why, too_long);
	return MY_OK;
}

static enum my_status decode_auth_response(struct rbuf *r, struct my_handshake_response *out, const char **why)
{
	const uint8_t *auth = NULL;
	size_t alen = 0;

	if (out->caps & MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
		uint64_t n;

		if (!my_get_lenenc_int(r, &n))
			return fail(why, "handshake response: bad auth response length");
		if (n > rbuf_left(r) || !rbuf_get_bytes(r, (size_t)n, &auth))
			return fail(why, "handshake response: auth response past the end");
		alen = (size_t)n;
	} else if (out->caps & MY_CAP_SECURE_CONNECTION) {
		uint8_t n;

		if (!rbuf_get_u8(r, &n))
			return fail(why, "handshake response: truncated auth response length");
		alen = n;
		if (!rbuf_get_bytes(r, alen, &auth))
			return fail(why, "handshake response: auth response past the end");
	} else {
		const char *s;

		if (!rbuf_get_cstr(r, &s, &alen))
			return fail(why, "handshake response: auth response without NUL");
		auth = (const uint8_t *)s;
	}
	if (alen > MY_MAX_AUTH_RESPONSE)
		return fail(why, "handshake response: auth response too long");
	out->auth = alen ? auth : NULL;
	out->auth_len = alen;
	return MY_OK;
}

enum my_status my_decode_handshake_response(const uint8_t *p, size_t len, struct my_handshake_response *out,
					    const char **why)
{
	struct rbuf r;
	uint32_t caps, max_packet;
	uint8_t charset;
	enum my_status st;

	memset(out, 0, sizeof(*out));
	rbuf_init(&r, p, len);
	if (!rbuf_get_le32(&r, &caps))
		return fail(why, "handshake response: truncated capability flags");
	if (!(caps & MY_CAP_PROTOCOL_41))
		return fail(why, "handshake response: client lacks CLIENT_PROTOCOL_41");
	/* The 23 filler bytes are not checked: MariaDB clients may put extended capabilities there. */
	if (!rbuf_get_le32(&r, &max_packet) || !rbuf_get_u8(&r, &charset) || !rbuf_skip(&r, MY_HS_RESPONSE_FIXED - 9))
		return fail(why, "handshake response: truncated fixed fields");
	out->caps = caps;
	out->max_packet = max_packet;
	out->charset = charset;
	if (rbuf_left(&r) == 0) {
		if (!(out->caps & MY_CAP_SSL)) {
			memset(out, 0, sizeof(*out));
			return fail(why, "handshake response: truncated before the user name");
		}
		out->ssl_request = true;
		return MY_OK;
	}
	st = get_name(&r, MY_MAX_USER_LEN, &out->user, &out->user_len, "handshake response: user name without NUL",
		      "handshake response: user name too long", why);
	if (st != MY_OK)
		goto out_err;
	st = decode_auth_response(&r, out, why);
	if (st != MY_OK)
		goto out_err;
	if ((out->caps & MY_CAP_CONNECT_WITH_DB) && rbuf_left(&r) > 0) {
		st = get_name(&r, MY_MAX_DATABASE_LEN, &out->database, &out->database_len,
			      "handshake response: database name without NUL",
			      "handshake response: database name too long", why);
		if (st != MY_OK)
			goto out_err;
		if (out->database_len == 0)
			out->database = NULL;
	}
	if ((out->caps & MY_CAP_PLUGIN_AUTH) && rbuf_left(&r) > 0) {
		st = get_name(&r, MY_MAX_PLUGIN_LEN, &out->plugin, &out->plugin_len,
			      "handshake response: plugin name without NUL", "handshake response: plugin name too long",
			      why);
		if (st != MY_OK)
			goto out_err;
	}
	if ((out->caps & MY_CAP_CONNECT_ATTRS) && rbuf_left(&r) > 0) {
		struct rbuf attrs;
		const uint8_t *a;
		size_t alen;

		if (!my_get_lenenc_str(&r, &a, &alen)) {
			st = fail(why, "handshake response: connection attributes past the end");
			goto out_err;
		}
		rbuf_init(&attrs, a, alen);
		if (!attrs_well_formed(&attrs)) {
			st = fail(why, "handshake response: malformed connection attributes");
			goto out_err;
		}
		out->attrs = a;
		out->attrs_len = alen;
	}
	/* MySQL 8 clients add the zstd level when they negotiated zstd compression. */
	if ((out->caps & MY_CAP_ZSTD_COMPRESSION_ALGORITHM) && rbuf_left(&r) > 0 && !rbuf_skip(&r, 1)) {
		st = fail(why, "handshake response: truncated zstd level");
		goto out_err;
	}
	if (rbuf_left(&r) > 0) {
		st = fail(why, "handshake response: trailing bytes");
		goto out_err;
	}
	return MY_OK;
out_err:
	memset(out, 0, sizeof(*out));
	return st;
}

enum my_status my_decode_command(const uint8_t *p, size_t len, struct my_command *out, const char **why)
{
	struct rbuf r, arg;
	const uint8_t *w;
	size_t wlen;

	memset(out, 0, sizeof(*out));
	rbuf_init(&r, p, len);
	if (!rbuf_get_u8(&r, &out->cmd))
		return fail(why, "empty command packet");
	out->arg_len = rbuf_left(&r);
	if (!rbuf_get_bytes(&r, out->arg_len, &out->arg)) {
		memset(out, 0, sizeof(*out));
		return fail(why, "empty command packet");
	}
	if (out->cmd != MY_COM_FIELD_LIST)
		return MY_OK;
	rbuf_init(&arg, out->arg, out->arg_len);
	if (!rbuf_get_cstr(&arg, &out->table, &out->table_len)) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: table name without NUL");
	}
	if (out->table_len == 0) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: empty table name");
	}
	if (out->table_len > MY_MAX_TABLE_LEN) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: table name too long");
	}
	/* The wildcard is the rest; a single trailing NUL is dropped. */
	wlen = rbuf_left(&arg);
	if (!rbuf_get_bytes(&arg, wlen, &w)) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: table name without NUL");
	}
	if (wlen > 0 && w[wlen - 1] == 0)
		wlen--;
	if (wlen > 0 && memchr(w, 0, wlen)) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: NUL byte inside the wildcard");
	}
	out->wildcard = (const char *)w;
	out->wildcard_len = wlen;
	return MY_OK;
}

enum my_status my_stmt_fetch_decode(const uint8_t *p, size_t len, uint32_t *stmt_id, uint32_t *rows)
{
	struct rbuf r;
	uint8_t cmd;

	*stmt_id = 0;
	*rows = 0;
	rbuf_init(&r, p, len);
	if (!rbuf_get_u8(&r, &cmd) || cmd != MY_COM_STMT_FETCH || !rbuf_get_le32(&r, stmt_id) ||
	    !rbuf_get_le32(&r, rows) || rbuf_left(&r) != 0) {
		*stmt_id = 0;
		*rows = 0;
		return MY_ERR;
	}
	return MY_OK;
}
