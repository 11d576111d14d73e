/*
 * my_codec: the MySQL client/server protocol, server side (layouts in
 * my_codec.h). Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * Decoders read through a bounded cursor (struct rd): every getter checks
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

struct rd {
	const uint8_t *p;
	const uint8_t *end;
};

static size_t rd_left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

static bool rd_take(struct rd *r, size_t n, const uint8_t **out)
{
	if (rd_left(r) < n)
		return false;
	if (out)
		*out = r->p;
	r->p += n;
	return true;
}

static uint32_t load_u16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t load_u24(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static uint32_t load_u32(const uint8_t *p)
{
	return load_u24(p) | (uint32_t)p[3] << 24;
}

static uint64_t load_u64(const uint8_t *p)
{
	return (uint64_t)load_u32(p) | (uint64_t)load_u32(p + 4) << 32;
}

enum my_status my_read_lenenc_int(const uint8_t *p, size_t len, uint64_t *out, size_t *used)
{
	size_t n;

	*out = 0;
	*used = 0;
	if (len < 1)
		return MY_ERR;
	switch (p[0]) {
	case 0xfb:
	case 0xff:
		return MY_ERR;
	case 0xfc:
		n = 2;
		break;
	case 0xfd:
		n = 3;
		break;
	case 0xfe:
		n = 8;
		break;
	default:
		*out = p[0];
		*used = 1;
		return MY_OK;
	}
	if (len - 1 < n)
		return MY_ERR;
	if (n == 2)
		*out = load_u16(p + 1);
	else if (n == 3)
		*out = load_u24(p + 1);
	else
		*out = load_u64(p + 1);
	*used = n + 1;
	return MY_OK;
}

static bool rd_lenenc(struct rd *r, uint64_t *v)
{
	size_t used;

	if (my_read_lenenc_int(r->p, rd_left(r), v, &used) != MY_OK)
		return false;
	r->p += used;
	return true;
}

/* A lenenc length followed by that many bytes, all inside the cursor. */
static bool rd_lenenc_bytes(struct rd *r, const uint8_t **s, size_t *len)
{
	uint64_t n;

	if (!rd_lenenc(r, &n) || n > rd_left(r))
		return false;
	*len = (size_t)n;
	return rd_take(r, (size_t)n, s);
}

/* A NUL-terminated string; the cursor moves past the NUL. */
static bool rd_nul_str(struct rd *r, const char **s, size_t *len)
{
	const uint8_t *nul = memchr(r->p, 0, rd_left(r));

	if (!nul)
		return false;
	*s = (const char *)r->p;
	*len = (size_t)(nul - r->p);
	r->p = nul + 1;
	return true;
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

enum my_status my_packet_peek(const uint8_t *buf, size_t len, uint32_t max_payload,
			      struct my_packet *out, size_t *consumed, size_t *needed)
{
	uint32_t plen;

	memset(out, 0, sizeof(*out));
	if (consumed)
		*consumed = 0;
	if (needed)
		*needed = 0;
	if (max_payload > MY_MAX_PAYLOAD)
		max_payload = MY_MAX_PAYLOAD;
	/* The length is known from 3 bytes on: refuse a bad one before waiting for more. */
	if (len >= 3) {
		plen = load_u24(buf);
		if (plen == MY_SPLIT_LEN || plen > max_payload)
			return MY_ERR;
	}
	if (len < MY_HEADER_LEN) {
		if (needed)
			*needed = MY_HEADER_LEN;
		return MY_NEED_MORE;
	}
	plen = load_u24(buf);
	if (len - MY_HEADER_LEN < plen) {
		if (needed)
			*needed = (size_t)MY_HEADER_LEN + plen;
		return MY_NEED_MORE;
	}
	out->seq = buf[3];
	out->len = plen;
	out->payload = buf + MY_HEADER_LEN;
	if (consumed)
		*consumed = (size_t)MY_HEADER_LEN + plen;
	return MY_OK;
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

	if (b->failed)
		return;
	if (b->len < b->mark + MY_HEADER_LEN) {
		b->failed = true;
		return;
	}
	plen = b->len - b->mark - MY_HEADER_LEN;
	if (plen > MY_MAX_PAYLOAD) {
		b->failed = true;
		return;
	}
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

/* Connection attributes: pairs of lenenc strings filling [p, p + len) exactly. */
static bool attrs_well_formed(const uint8_t *p, size_t len)
{
	struct rd r = { p, p + len };
	const uint8_t *s;
	size_t n;

	while (rd_left(&r) > 0) {
		if (!rd_lenenc_bytes(&r, &s, &n)) /* key */
			return false;
		if (!rd_lenenc_bytes(&r, &s, &n)) /* value */
			return false;
	}
	return true;
}

/*
 * The auth response: lenenc with CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
 * else one length byte with CLIENT_SECURE_CONNECTION, else NUL-terminated.
 */
static enum my_status decode_auth_response(struct rd *r, struct my_handshake_response *out, const char **why)
{
	const uint8_t *auth = NULL;
	size_t alen = 0;

	if (out->caps & MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
		uint64_t n;

		if (!rd_lenenc(r, &n))
			return fail(why, "handshake response: bad auth response length");
		if (n > rd_left(r))
			return fail(why, "handshake response: auth response past the end");
		alen = (size_t)n;
		(void)rd_take(r, alen, &auth);
	} else if (out->caps & MY_CAP_SECURE_CONNECTION) {
		const uint8_t *lp;

		if (!rd_take(r, 1, &lp))
			return fail(why, "handshake response: truncated auth response length");
		alen = lp[0];
		if (!rd_take(r, alen, &auth))
			return fail(why, "handshake response: auth response past the end");
	} else {
		const char *s;

		if (!rd_nul_str(r, &s, &alen))
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
	struct rd r = { p, p + len };
	const uint8_t *fixed;
	enum my_status st;

	memset(out, 0, sizeof(*out));
	if (len < 4)
		return fail(why, "handshake response: truncated capability flags");
	if (!(load_u32(p) & MY_CAP_PROTOCOL_41))
		return fail(why, "handshake response: client lacks CLIENT_PROTOCOL_41");
	if (!rd_take(&r, MY_HS_RESPONSE_FIXED, &fixed))
		return fail(why, "handshake response: truncated fixed fields");
	out->caps = load_u32(fixed);
	out->max_packet = load_u32(fixed + 4);
	out->charset = fixed[8];
	/* The 23 filler bytes are not checked: MariaDB clients may put extended capabilities there. */
	if (rd_left(&r) == 0) {
		if (!(out->caps & MY_CAP_SSL)) {
			memset(out, 0, sizeof(*out));
			return fail(why, "handshake response: truncated before the user name");
		}
		out->ssl_request = true;
		return MY_OK;
	}
	if (!rd_nul_str(&r, &out->user, &out->user_len)) {
		st = fail(why, "handshake response: user name without NUL");
		goto out_err;
	}
	if (out->user_len > MY_MAX_USER_LEN) {
		st = fail(why, "handshake response: user name too long");
		goto out_err;
	}
	st = decode_auth_response(&r, out, why);
	if (st != MY_OK)
		goto out_err;
	if ((out->caps & MY_CAP_CONNECT_WITH_DB) && rd_left(&r) > 0) {
		if (!rd_nul_str(&r, &out->database, &out->database_len)) {
			st = fail(why, "handshake response: database name without NUL");
			goto out_err;
		}
		if (out->database_len > MY_MAX_DATABASE_LEN) {
			st = fail(why, "handshake response: database name too long");
			goto out_err;
		}
		if (out->database_len == 0)
			out->database = NULL;
	}
	if ((out->caps & MY_CAP_PLUGIN_AUTH) && rd_left(&r) > 0) {
		if (!rd_nul_str(&r, &out->plugin, &out->plugin_len)) {
			st = fail(why, "handshake response: plugin name without NUL");
			goto out_err;
		}
		if (out->plugin_len > MY_MAX_PLUGIN_LEN) {
			st = fail(why, "handshake response: plugin name too long");
			goto out_err;
		}
	}
	if ((out->caps & MY_CAP_CONNECT_ATTRS) && rd_left(&r) > 0) {
		const uint8_t *a;
		size_t alen;

		if (!rd_lenenc_bytes(&r, &a, &alen)) {
			st = fail(why, "handshake response: connection attributes past the end");
			goto out_err;
		}
		if (!attrs_well_formed(a, alen)) {
			st = fail(why, "handshake response: malformed connection attributes");
			goto out_err;
		}
		out->attrs = a;
		out->attrs_len = alen;
	}
	/* MySQL 8 clients add the zstd level when they negotiated zstd compression. */
	if ((out->caps & MY_CAP_ZSTD_COMPRESSION_ALGORITHM) && rd_left(&r) > 0)
		(void)rd_take(&r, 1, NULL);
	if (rd_left(&r) > 0) {
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
	const uint8_t *nul, *w;
	size_t wlen;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return fail(why, "empty command packet");
	out->cmd = p[0];
	out->arg = p + 1;
	out->arg_len = len - 1;
	if (out->cmd != MY_COM_FIELD_LIST)
		return MY_OK;
	nul = memchr(out->arg, 0, out->arg_len);
	if (!nul) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: table name without NUL");
	}
	if (nul == out->arg) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: empty table name");
	}
	if ((size_t)(nul - out->arg) > MY_MAX_TABLE_LEN) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: table name too long");
	}
	w = nul + 1;
	wlen = (size_t)(p + len - w);
	if (wlen > 0 && w[wlen - 1] == 0)
		wlen--;
	if (wlen > 0 && memchr(w, 0, wlen)) {
		memset(out, 0, sizeof(*out));
		return fail(why, "COM_FIELD_LIST: NUL byte inside the wildcard");
	}
	out->table = (const char *)out->arg;
	out->table_len = (size_t)(nul - out->arg);
	out->wildcard = (const char *)w;
	out->wildcard_len = wlen;
	return MY_OK;
}
