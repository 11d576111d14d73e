/*
 * pg_codec: the Postgres v3 wire protocol, frontend messages in and backend
 * messages out. Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * Decoders: every length read from the input is checked against the bytes
 * present and against the caller's maximum before it is used; the structs
 * they fill point into the caller's buffer and are valid while it is.
 * Errors are static strings.
 *
 * Writers: each pg_put_* appends one whole backend message to a wbuf
 * owned by the caller. A failure (allocation, a message above INT32_MAX, a
 * RowDescription whose columns do not match its count) sets the sticky
 * failed bit; the caller checks it once before sending. A wbuf given to
 * pg_put_rowdesc_* holds only messages written here: pg_put_rowdesc_end
 * finds the RowDescription it closes by walking the message lengths from
 * the buffer's start.
 */
#include "protocol/pg_codec.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/rbuf.h"

/* Postgres refuses startup packets above this (MAX_STARTUP_PACKET_LENGTH). */
#define PG_STARTUP_HARD_MAX 10000u
/* Marks the length field of a RowDescription still being built. */
#define PG_LEN_PENDING 0xffffffffu

static enum pg_status fail(const char **err, const char *why)
{
	if (err)
		*err = why;
	return PG_ERR;
}

/* ---- startup ---------------------------------------------------------- */

/* The last byte of what r has left is a NUL. */
static bool ends_with_nul(const struct rbuf *r)
{
	struct rbuf t = *r;
	uint8_t last;

	return rbuf_left(&t) > 0 && rbuf_skip(&t, rbuf_left(&t) - 1) && rbuf_get_u8(&t, &last) && last == 0;
}

static enum pg_status parse_startup_params(struct rbuf *r, struct pg_startup *out, const char **err)
{
	/* The body must end with the list terminator; strings never run past it. */
	if (!ends_with_nul(r))
		return fail(err, "startup packet: missing final terminator");
	for (;;) {
		const char *name, *value;
		size_t nlen;

		if (!rbuf_get_cstr(r, &name, &nlen))
			return fail(err, "startup packet: missing terminator");
		if (nlen == 0) {
			if (rbuf_left(r) != 0)
				return fail(err, "startup packet: data after the final terminator");
			return PG_OK;
		}
		if (rbuf_left(r) == 0)
			return fail(err, "startup packet: parameter without a value");
		if (!rbuf_get_cstr(r, &value, NULL))
			return fail(err, "startup packet: missing terminator");
		if (rbuf_left(r) == 0)
			return fail(err, "startup packet: parameter list not terminated");
		if (out->nparams >= PG_STARTUP_MAX_PARAMS)
			return fail(err, "startup packet: too many parameters");
		if (strncmp(name, "_pq_.", 5) == 0)
			return fail(err, "startup packet: protocol extensions (_pq_.*) are not supported");
		if (pg_startup_get(out, name))
			return fail(err, "startup packet: duplicate parameter");
		out->params[out->nparams].name = name;
		out->params[out->nparams].value = value;
		out->nparams++;
	}
}

enum pg_status pg_decode_startup(const uint8_t *buf, size_t len, uint32_t max_len, struct pg_startup *out,
				 size_t *consumed, const char **err)
{
	struct rbuf r, body;
	uint32_t mlen, code, cap;
	enum pg_status st;

	memset(out, 0, sizeof(*out));
	*consumed = 0;
	rbuf_init(&r, buf, len);
	if (!rbuf_get_be32(&r, &mlen))
		return PG_NEED_MORE;
	cap = max_len < PG_STARTUP_HARD_MAX ? max_len : PG_STARTUP_HARD_MAX;
	if (mlen < 8)
		return fail(err, "startup packet: length too small");
	if (mlen > cap)
		return fail(err, "startup packet: length too large");
	if (!rbuf_get_rbuf(&r, mlen - 4, &body))
		return PG_NEED_MORE;
	if (!rbuf_get_be32(&body, &code))
		return fail(err, "startup packet: length too small");
	out->protocol = code;
	switch (code) {
	case PG_SSL_REQUEST_CODE:
	case PG_GSSENC_REQUEST_CODE:
		if (mlen != 8)
			return fail(err, "startup packet: encryption request of the wrong length");
		out->kind = code == PG_SSL_REQUEST_CODE ? PG_STARTUP_SSL : PG_STARTUP_GSSENC;
		break;
	case PG_CANCEL_REQUEST_CODE:
		if (mlen != 16 || !rbuf_get_be32(&body, &out->cancel_pid) || !rbuf_get_be32(&body, &out->cancel_key))
			return fail(err, "startup packet: cancel request of the wrong length");
		out->kind = PG_STARTUP_CANCEL;
		break;
	case PG_PEER_REQUEST_CODE:
		if (mlen > PG_PEER_REQUEST_MAX)
			return fail(err, "startup packet: peer message too long");
		out->kind = PG_STARTUP_PEER;
		out->raw = buf;
		out->raw_len = mlen;
		break;
	case PG_PROTOCOL_3_0:
		out->kind = PG_STARTUP_NORMAL;
		st = parse_startup_params(&body, out, err);
		if (st != PG_OK) {
			out->nparams = 0;
			return st;
		}
		break;
	default:
		return fail(err, "startup packet: unsupported frontend protocol");
	}
	*consumed = mlen;
	return PG_OK;
}

const char *pg_startup_get(const struct pg_startup *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nparams && i < PG_STARTUP_MAX_PARAMS; i++)
		if (strcmp(s->params[i].name, name) == 0)
			return s->params[i].value;
	return NULL;
}

/* ---- typed frontend messages ------------------------------------------ */

/* max_len bounds the length field (the body plus its own 4 bytes). */
enum pg_status pg_decode_msg(const uint8_t *buf, size_t len, uint32_t max_len, struct pg_msg *out, size_t *consumed,
			     const char **err)
{
	struct rbuf r;
	uint32_t mlen;
	uint8_t type;
	const uint8_t *body;

	memset(out, 0, sizeof(*out));
	*consumed = 0;
	rbuf_init(&r, buf, len);
	if (!rbuf_get_u8(&r, &type) || !rbuf_get_be32(&r, &mlen))
		return PG_NEED_MORE;
	if (mlen < 4)
		return fail(err, "message length too small");
	if (mlen > max_len)
		return fail(err, "message length too large");
	if (!rbuf_get_bytes(&r, mlen - 4, &body))
		return PG_NEED_MORE;
	out->type = type;
	out->body_len = mlen - 4;
	out->body = body;
	*consumed = (size_t)mlen + 1;
	return PG_OK;
}

enum pg_status pg_parse_query(const struct pg_msg *m, const char **sql, const char **err)
{
	struct rbuf r;
	const char *s;

	*sql = NULL;
	if (m->type != 'Q')
		return fail(err, "not a Query message");
	if (m->body_len == 0)
		return fail(err, "Query message: empty body");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, &s, NULL))
		return fail(err, "Query message: missing terminator");
	if (rbuf_left(&r) != 0)
		return fail(err, "Query message: NUL byte inside the query");
	*sql = s;
	return PG_OK;
}

enum pg_status pg_parse_sasl_initial(const struct pg_msg *m, const char **mechanism, const uint8_t **data,
				     int32_t *data_len, const char **err)
{
	struct rbuf r;
	const char *mech;
	const uint8_t *d;
	size_t mlen, left;
	uint32_t raw;

	*mechanism = NULL;
	*data = NULL;
	*data_len = -1;
	if (m->type != 'p')
		return fail(err, "not a SASLInitialResponse message");
	if (m->body_len == 0)
		return fail(err, "SASLInitialResponse: empty body");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, &mech, &mlen))
		return fail(err, "SASLInitialResponse: missing mechanism terminator");
	if (mlen == 0)
		return fail(err, "SASLInitialResponse: empty mechanism name");
	if (!rbuf_get_be32(&r, &raw))
		return fail(err, "SASLInitialResponse: truncated data length");
	left = rbuf_left(&r);
	if (raw == 0xffffffffu) {
		if (left != 0)
			return fail(err, "SASLInitialResponse: trailing bytes after absent data");
		*mechanism = mech;
		return PG_OK;
	}
	if (raw > INT32_MAX)
		return fail(err, "SASLInitialResponse: negative data length");
	if (raw > left)
		return fail(err, "SASLInitialResponse: data length exceeds the message");
	if (raw < left)
		return fail(err, "SASLInitialResponse: trailing bytes after the data");
	if (!rbuf_get_bytes(&r, raw, &d))
		return fail(err, "SASLInitialResponse: data length exceeds the message");
	*mechanism = mech;
	*data = d;
	*data_len = (int32_t)raw;
	return PG_OK;
}

enum pg_status pg_parse_sasl_response(const struct pg_msg *m, const uint8_t **data, size_t *data_len, const char **err)
{
	*data = NULL;
	*data_len = 0;
	if (m->type != 'p')
		return fail(err, "not a SASLResponse message");
	*data = m->body;
	*data_len = m->body_len;
	return PG_OK;
}

/* ---- backend message writer ------------------------------------------- */

/* A message's length field counts itself and the body: at most INT32_MAX. */
#define PG_MSG_LIMIT ((size_t)INT32_MAX + 1)

/* Starts a message; returns the offset of its type byte (for wb_end). */
static size_t wb_begin(struct wbuf *w, char type)
{
	size_t start = wbuf_begin(w, PG_MSG_LIMIT);

	wbuf_put_u8(w, (uint8_t)type);
	wbuf_put_be32(w, 0);
	return start;
}

/* Patches the length of the message begun at start. */
static void wb_end(struct wbuf *w, size_t start)
{
	size_t mlen;

	if (w->failed)
		return;
	mlen = w->len - start - 1;
	if (mlen > INT32_MAX) {
		w->failed = true;
		return;
	}
	wbuf_patch_be32(w, start + 1, (uint32_t)mlen);
}

void pg_put_auth_ok(struct wbuf *w)
{
	size_t s = wb_begin(w, 'R');

	wbuf_put_be32(w, 0);
	wb_end(w, s);
}

void pg_put_auth_sasl(struct wbuf *w, const char *mechanism)
{
	size_t s = wb_begin(w, 'R');

	wbuf_put_be32(w, 10);
	wbuf_put_cstr(w, mechanism);
	wbuf_put_u8(w, 0);
	wb_end(w, s);
}

void pg_put_auth_sasl_continue(struct wbuf *w, const void *data, size_t len)
{
	size_t s = wb_begin(w, 'R');

	wbuf_put_be32(w, 11);
	wbuf_put_bytes(w, data, len);
	wb_end(w, s);
}

void pg_put_auth_sasl_final(struct wbuf *w, const void *data, size_t len)
{
	size_t s = wb_begin(w, 'R');

	wbuf_put_be32(w, 12);
	wbuf_put_bytes(w, data, len);
	wb_end(w, s);
}

void pg_put_parameter_status(struct wbuf *w, const char *name, const char *value)
{
	size_t s = wb_begin(w, 'S');

	wbuf_put_cstr(w, name);
	wbuf_put_cstr(w, value);
	wb_end(w, s);
}

void pg_put_cancel_request(struct wbuf *w, uint32_t pid, uint32_t key)
{
	wbuf_put_be32(w, 16);
	wbuf_put_be32(w, PG_CANCEL_REQUEST_CODE);
	wbuf_put_be32(w, pid);
	wbuf_put_be32(w, key);
}

void pg_put_backend_key(struct wbuf *w, uint32_t pid, uint32_t key)
{
	size_t s = wb_begin(w, 'K');

	wbuf_put_be32(w, pid);
	wbuf_put_be32(w, key);
	wb_end(w, s);
}

void pg_put_ready(struct wbuf *w, char status)
{
	size_t s = wb_begin(w, 'Z');

	wbuf_put_u8(w, (uint8_t)status);
	wb_end(w, s);
}

void pg_put_command_complete(struct wbuf *w, const char *tag)
{
	size_t s = wb_begin(w, 'C');

	wbuf_put_cstr(w, tag);
	wb_end(w, s);
}

void pg_put_empty_query(struct wbuf *w)
{
	size_t s = wb_begin(w, 'I');

	wb_end(w, s);
}

static void put_field(struct wbuf *w, char code, const char *value)
{
	if (!value)
		return;
	wbuf_put_u8(w, (uint8_t)code);
	wbuf_put_cstr(w, value);
}

static void put_error_or_notice(struct wbuf *w, char type, const struct pg_error_fields *e)
{
	size_t s = wb_begin(w, type);
	char pos[16];

	put_field(w, 'S', e->severity);
	put_field(w, 'V', e->severity);
	put_field(w, 'C', e->sqlstate);
	put_field(w, 'M', e->message);
	put_field(w, 'D', e->detail);
	put_field(w, 'H', e->hint);
	if (e->position > 0) {
		snprintf(pos, sizeof(pos), "%d", e->position);
		put_field(w, 'P', pos);
	}
	wbuf_put_u8(w, 0);
	wb_end(w, s);
}

void pg_put_error(struct wbuf *w, const struct pg_error_fields *e)
{
	put_error_or_notice(w, 'E', e);
}

void pg_put_notice(struct wbuf *w, const struct pg_error_fields *e)
{
	put_error_or_notice(w, 'N', e);
}

void pg_put_rowdesc_begin(struct wbuf *w, uint16_t ncols)
{
	(void)wbuf_begin(w, PG_MSG_LIMIT);
	wbuf_put_u8(w, 'T');
	wbuf_put_be32(w, PG_LEN_PENDING);
	wbuf_put_be16(w, ncols);
}

void pg_put_rowdesc_column(struct wbuf *w, const struct pg_column_desc *c)
{
	/* The name is written up to its first NUL: the wire cannot carry more. */
	const char *nul = c->name ? memchr(c->name, 0, c->name_len) : NULL;
	size_t nlen = !c->name ? 0 : nul ? (size_t)(nul - c->name) : c->name_len;

	wbuf_put_bytes(w, c->name, nlen);
	wbuf_put_u8(w, 0);
	wbuf_put_be32(w, c->table_oid);
	wbuf_put_be16(w, (uint16_t)c->attnum);
	wbuf_put_be32(w, c->type_oid);
	wbuf_put_be16(w, (uint16_t)c->typlen);
	wbuf_put_be32(w, (uint32_t)c->typmod);
	wbuf_put_be16(w, (uint16_t)c->format);
}

/*
 * Finds the RowDescription being built: the writer's messages follow one
 * another from offset 0, so walk their lengths to the pending one.
 */
static bool find_pending_rowdesc(const struct wbuf *w, size_t *start)
{
	struct rbuf r;

	rbuf_init(&r, w->data, w->len);
	for (;;) {
		size_t off = w->len - rbuf_left(&r);
		uint32_t mlen;
		uint8_t type;

		if (!rbuf_get_u8(&r, &type) || !rbuf_get_be32(&r, &mlen))
			return false;
		if (mlen == PG_LEN_PENDING) {
			if (type != 'T')
				return false;
			*start = off;
			return true;
		}
		if (mlen < 4 || !rbuf_skip(&r, mlen - 4))
			return false;
	}
}

/* The column count matches what was written, and nothing follows the columns. */
static bool rowdesc_consistent(struct rbuf *r)
{
	uint16_t n, i;
	const char *name;

	if (!rbuf_get_be16(r, &n))
		return false;
	for (i = 0; i < n; i++)
		if (!rbuf_get_cstr(r, &name, NULL) || !rbuf_skip(r, 18))
			return false;
	return rbuf_left(r) == 0;
}

void pg_put_rowdesc_end(struct wbuf *w)
{
	struct rbuf cols;
	size_t start;

	if (w->failed)
		return;
	if (!find_pending_rowdesc(w, &start)) {
		w->failed = true;
		return;
	}
	rbuf_init(&cols, w->data + start + 5, w->len - start - 5);
	if (!rowdesc_consistent(&cols)) {
		w->failed = true;
		return;
	}
	wb_end(w, start);
}

void pg_put_datarow_raw(struct wbuf *w, const void *body, size_t len)
{
	size_t s = wb_begin(w, 'D');

	wbuf_put_bytes(w, body, len);
	wb_end(w, s);
}

void pg_put_copy_out_response(struct wbuf *w, uint8_t format, const int16_t *formats, uint16_t n)
{
	size_t s = wb_begin(w, 'H');

	wbuf_put_u8(w, format);
	wbuf_put_be16(w, n);
	for (uint16_t i = 0; i < n; i++)
		wbuf_put_be16(w, (uint16_t)formats[i]);
	wb_end(w, s);
}

void pg_put_copy_data(struct wbuf *w, const void *data, size_t len)
{
	size_t s = wb_begin(w, 'd');

	wbuf_put_bytes(w, data, len);
	wb_end(w, s);
}

void pg_put_copy_done(struct wbuf *w)
{
	size_t s = wb_begin(w, 'c');

	wb_end(w, s);
}

/* ---- extended query protocol ---- */

/* Entry i of n big-endian u16s at base; false when i is not below n. */
static bool u16_at(const uint8_t *base, uint16_t n, uint16_t i, uint16_t *v)
{
	struct rbuf r;

	rbuf_init(&r, base, 2 * (size_t)n);
	return rbuf_skip(&r, 2 * (size_t)i) && rbuf_get_be16(&r, v);
}

/* Every one of the n u16 format codes at base is 0 (text) or 1 (binary). */
static bool formats_valid(const uint8_t *base, uint16_t n)
{
	uint16_t i, v;

	for (i = 0; i < n; i++)
		if (!u16_at(base, n, i, &v) || v > 1)
			return false;
	return true;
}

enum pg_status pg_parse_parse(const struct pg_msg *m, struct pg_parse *out, const char **err)
{
	struct rbuf r;

	if (m->type != 'P')
		return fail(err, "not a Parse message");
	out->name = out->query = NULL;
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, &out->name, NULL))
		return fail(err, "Parse: missing statement name terminator");
	if (!rbuf_get_cstr(&r, &out->query, NULL))
		return fail(err, "Parse: missing query terminator");
	if (!rbuf_get_be16(&r, &out->ntypes))
		return fail(err, "Parse: truncated parameter type count");
	if (rbuf_left(&r) != (size_t)out->ntypes * 4 || !rbuf_get_bytes(&r, rbuf_left(&r), &out->types))
		return fail(err, "Parse: parameter type count does not match the message");
	return PG_OK;
}

uint32_t pg_parse_type_at(const struct pg_parse *p, uint16_t i)
{
	struct rbuf r;
	uint32_t oid;

	rbuf_init(&r, p->types, 4 * (size_t)p->ntypes);
	if (!rbuf_skip(&r, 4 * (size_t)i) || !rbuf_get_be32(&r, &oid))
		return 0;
	return oid;
}

enum pg_status pg_parse_bind(const struct pg_msg *m, struct pg_bind *out, const char **err)
{
	struct rbuf r, params;

	if (m->type != 'B')
		return fail(err, "not a Bind message");
	out->portal = out->stmt = NULL;
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, &out->portal, NULL))
		return fail(err, "Bind: missing portal name terminator");
	if (!rbuf_get_cstr(&r, &out->stmt, NULL))
		return fail(err, "Bind: missing statement name terminator");
	if (!rbuf_get_be16(&r, &out->nformats) || !rbuf_get_bytes(&r, (size_t)out->nformats * 2, &out->formats))
		return fail(err, "Bind: truncated parameter formats");
	if (!rbuf_get_be16(&r, &out->nparams))
		return fail(err, "Bind: truncated parameter count");
	if (out->nformats > 1 && out->nformats != out->nparams)
		return fail(err, "Bind: parameter format count does not match the parameter count");
	params = r;
	for (uint16_t i = 0; i < out->nparams; i++) {
		uint32_t len;

		if (!rbuf_get_be32(&r, &len))
			return fail(err, "Bind: truncated parameter length");
		if (len == 0xffffffffu)
			continue;
		if (len > INT32_MAX || !rbuf_skip(&r, len))
			return fail(err, "Bind: parameter length exceeds the message");
	}
	out->params_len = rbuf_left(&params) - rbuf_left(&r);
	if (!rbuf_get_bytes(&params, out->params_len, &out->params))
		return fail(err, "Bind: parameter length exceeds the message");
	if (!rbuf_get_be16(&r, &out->nresult_formats) || rbuf_left(&r) != (size_t)out->nresult_formats * 2 ||
	    !rbuf_get_bytes(&r, rbuf_left(&r), &out->result_formats))
		return fail(err, "Bind: result format count does not match the message");
	if (!formats_valid(out->formats, out->nformats))
		return fail(err, "Bind: parameter format must be 0 (text) or 1 (binary)");
	if (!formats_valid(out->result_formats, out->nresult_formats))
		return fail(err, "Bind: result format must be 0 (text) or 1 (binary)");
	return PG_OK;
}

enum pg_status pg_bind_values(const struct pg_bind *b, struct pg_bind_value *out, size_t max)
{
	struct rbuf r;

	if (b->nparams > max)
		return PG_ERR;
	/* pg_parse_bind already checked the layout; the cursor still bounds every read. */
	rbuf_init(&r, b->params, b->params_len);
	for (uint16_t i = 0; i < b->nparams; i++) {
		uint16_t format = 0;
		uint32_t len;

		if (!rbuf_get_be32(&r, &len))
			return PG_ERR;
		if (b->nformats != 0 && !u16_at(b->formats, b->nformats, b->nformats == 1 ? 0 : i, &format))
			return PG_ERR;
		out[i].format = (int16_t)format;
		if (len == 0xffffffffu) {
			out[i].data = NULL;
			out[i].len = -1;
			continue;
		}
		if (len > INT32_MAX || !rbuf_get_bytes(&r, len, &out[i].data))
			return PG_ERR;
		out[i].len = (int32_t)len;
	}
	return PG_OK;
}

int16_t pg_bind_result_format(const struct pg_bind *b, uint16_t col)
{
	uint16_t v;

	if (b->nresult_formats == 0)
		return 0;
	if (!u16_at(b->result_formats, b->nresult_formats, b->nresult_formats == 1 ? 0 : col, &v))
		return 0;
	return (int16_t)v;
}

enum pg_status pg_parse_describe(const struct pg_msg *m, char *kind, const char **name, const char **err)
{
	struct rbuf r;
	uint8_t k;

	if (m->type != 'D' && m->type != 'C')
		return fail(err, "not a Describe or Close message");
	if (m->body_len < 2)
		return fail(err, "Describe/Close: truncated body");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_u8(&r, &k))
		return fail(err, "Describe/Close: truncated body");
	*kind = (char)k;
	if (*kind != 'S' && *kind != 'P')
		return fail(err, "Describe/Close: the target must be 'S' or 'P'");
	*name = NULL;
	if (!rbuf_get_cstr(&r, name, NULL) || rbuf_left(&r) != 0)
		return fail(err, "Describe/Close: malformed name");
	return PG_OK;
}

enum pg_status pg_parse_execute(const struct pg_msg *m, const char **portal, uint32_t *max_rows, const char **err)
{
	struct rbuf r;

	if (m->type != 'E')
		return fail(err, "not an Execute message");
	*portal = NULL;
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, portal, NULL))
		return fail(err, "Execute: missing portal name terminator");
	if (rbuf_left(&r) != 4 || !rbuf_get_be32(&r, max_rows))
		return fail(err, "Execute: malformed row limit");
	if (*max_rows > INT32_MAX)
		return fail(err, "Execute: negative row limit");
	return PG_OK;
}

static void put_empty(struct wbuf *w, char type)
{
	size_t s = wb_begin(w, type);

	wb_end(w, s);
}

void pg_put_parse_complete(struct wbuf *w)
{
	put_empty(w, '1');
}

void pg_put_bind_complete(struct wbuf *w)
{
	put_empty(w, '2');
}

void pg_put_close_complete(struct wbuf *w)
{
	put_empty(w, '3');
}

void pg_put_no_data(struct wbuf *w)
{
	put_empty(w, 'n');
}

void pg_put_portal_suspended(struct wbuf *w)
{
	put_empty(w, 's');
}

void pg_put_parameter_description(struct wbuf *w, const uint32_t *oids, uint16_t n)
{
	size_t s = wb_begin(w, 't');

	wbuf_put_be16(w, n);
	for (uint16_t i = 0; i < n; i++)
		wbuf_put_be32(w, oids[i]);
	wb_end(w, s);
}
