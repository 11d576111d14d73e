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

/* Postgres refuses startup packets above this (MAX_STARTUP_PACKET_LENGTH). */
#define PG_STARTUP_HARD_MAX 10000u
/* Marks the length field of a RowDescription still being built. */
#define PG_LEN_PENDING 0xffffffffu

static uint32_t rd_u32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint16_t rd_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Length of the NUL-terminated string at p, or -1 when no NUL comes before end. */
static ptrdiff_t bounded_strlen(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

	return nul ? nul - p : -1;
}

static enum pg_status fail(const char **err, const char *why)
{
	if (err)
		*err = why;
	return PG_ERR;
}

/* ---- startup ---------------------------------------------------------- */

static enum pg_status parse_startup_params(const uint8_t *p, const uint8_t *end,
					   struct pg_startup *out, const char **err)
{
	/* The body must end with the list terminator; strings never run past it. */
	if (p >= end || end[-1] != 0)
		return fail(err, "startup packet: missing final terminator");
	for (;;) {
		ptrdiff_t nlen, vlen;
		const uint8_t *name = p;

		nlen = bounded_strlen(p, end);
		if (nlen < 0)
			return fail(err, "startup packet: missing terminator");
		if (nlen == 0) {
			if (p + 1 != end)
				return fail(err, "startup packet: data after the final terminator");
			return PG_OK;
		}
		p += nlen + 1;
		if (p >= end)
			return fail(err, "startup packet: parameter without a value");
		vlen = bounded_strlen(p, end);
		if (vlen < 0)
			return fail(err, "startup packet: missing terminator");
		if (p + vlen + 1 >= end)
			return fail(err, "startup packet: parameter list not terminated");
		if (out->nparams >= PG_STARTUP_MAX_PARAMS)
			return fail(err, "startup packet: too many parameters");
		if (strncmp((const char *)name, "_pq_.", 5) == 0)
			return fail(err, "startup packet: protocol extensions (_pq_.*) are not supported");
		if (pg_startup_get(out, (const char *)name))
			return fail(err, "startup packet: duplicate parameter");
		out->params[out->nparams].name = (const char *)name;
		out->params[out->nparams].value = (const char *)p;
		out->nparams++;
		p += vlen + 1;
	}
}

enum pg_status pg_decode_startup(const uint8_t *buf, size_t len, uint32_t max_len,
				 struct pg_startup *out, size_t *consumed, const char **err)
{
	uint32_t mlen, code, cap;
	enum pg_status st;

	memset(out, 0, sizeof(*out));
	*consumed = 0;
	if (len < 4)
		return PG_NEED_MORE;
	mlen = rd_u32(buf);
	cap = max_len < PG_STARTUP_HARD_MAX ? max_len : PG_STARTUP_HARD_MAX;
	if (mlen < 8)
		return fail(err, "startup packet: length too small");
	if (mlen > cap)
		return fail(err, "startup packet: length too large");
	if (len < mlen)
		return PG_NEED_MORE;
	code = rd_u32(buf + 4);
	out->protocol = code;
	switch (code) {
	case PG_SSL_REQUEST_CODE:
	case PG_GSSENC_REQUEST_CODE:
		if (mlen != 8)
			return fail(err, "startup packet: encryption request of the wrong length");
		out->kind = code == PG_SSL_REQUEST_CODE ? PG_STARTUP_SSL : PG_STARTUP_GSSENC;
		break;
	case PG_CANCEL_REQUEST_CODE:
		if (mlen != 16)
			return fail(err, "startup packet: cancel request of the wrong length");
		out->kind = PG_STARTUP_CANCEL;
		out->cancel_pid = rd_u32(buf + 8);
		out->cancel_key = rd_u32(buf + 12);
		break;
	case PG_PROTOCOL_3_0:
		out->kind = PG_STARTUP_NORMAL;
		st = parse_startup_params(buf + 8, buf + mlen, out, err);
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
enum pg_status pg_decode_msg(const uint8_t *buf, size_t len, uint32_t max_len,
			     struct pg_msg *out, size_t *consumed, const char **err)
{
	uint32_t mlen;

	memset(out, 0, sizeof(*out));
	*consumed = 0;
	if (len < 5)
		return PG_NEED_MORE;
	mlen = rd_u32(buf + 1);
	if (mlen < 4)
		return fail(err, "message length too small");
	if (mlen > max_len)
		return fail(err, "message length too large");
	/* len >= 5 here, so len - 1 cannot wrap; mlen + 1 might on 32-bit. */
	if (len - 1 < mlen)
		return PG_NEED_MORE;
	out->type = buf[0];
	out->body_len = mlen - 4;
	out->body = buf + 5;
	*consumed = (size_t)mlen + 1;
	return PG_OK;
}

enum pg_status pg_parse_query(const struct pg_msg *m, const char **sql, const char **err)
{
	const uint8_t *nul;

	*sql = NULL;
	if (m->type != 'Q')
		return fail(err, "not a Query message");
	if (m->body_len == 0)
		return fail(err, "Query message: empty body");
	nul = memchr(m->body, 0, m->body_len);
	if (!nul)
		return fail(err, "Query message: missing terminator");
	if ((size_t)(nul - m->body) != m->body_len - 1)
		return fail(err, "Query message: NUL byte inside the query");
	*sql = (const char *)m->body;
	return PG_OK;
}

enum pg_status pg_parse_sasl_initial(const struct pg_msg *m, const char **mechanism,
				     const uint8_t **data, int32_t *data_len, const char **err)
{
	const uint8_t *p = m->body, *end = m->body + m->body_len;
	ptrdiff_t mlen;
	uint32_t raw;
	int32_t dlen;
	size_t left;

	*mechanism = NULL;
	*data = NULL;
	*data_len = -1;
	if (m->type != 'p')
		return fail(err, "not a SASLInitialResponse message");
	if (m->body_len == 0)
		return fail(err, "SASLInitialResponse: empty body");
	mlen = bounded_strlen(p, end);
	if (mlen < 0)
		return fail(err, "SASLInitialResponse: missing mechanism terminator");
	if (mlen == 0)
		return fail(err, "SASLInitialResponse: empty mechanism name");
	p += mlen + 1;
	if ((size_t)(end - p) < 4)
		return fail(err, "SASLInitialResponse: truncated data length");
	raw = rd_u32(p);
	p += 4;
	left = (size_t)(end - p);
	if (raw == 0xffffffffu) {
		if (left != 0)
			return fail(err, "SASLInitialResponse: trailing bytes after absent data");
		*mechanism = (const char *)m->body;
		return PG_OK;
	}
	if (raw > INT32_MAX)
		return fail(err, "SASLInitialResponse: negative data length");
	dlen = (int32_t)raw;
	if ((size_t)dlen > left)
		return fail(err, "SASLInitialResponse: data length exceeds the message");
	if ((size_t)dlen < left)
		return fail(err, "SASLInitialResponse: trailing bytes after the data");
	*mechanism = (const char *)m->body;
	*data = p;
	*data_len = dlen;
	return PG_OK;
}

enum pg_status pg_parse_sasl_response(const struct pg_msg *m, const uint8_t **data, size_t *data_len,
				      const char **err)
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
	size_t off = 0;

	while (w->len - off >= 5) {
		uint32_t mlen = rd_u32(w->data + off + 1);

		if (mlen == PG_LEN_PENDING) {
			if (w->data[off] != 'T')
				return false;
			*start = off;
			return true;
		}
		if (mlen < 4 || mlen > w->len - off - 1)
			return false;
		off += (size_t)mlen + 1;
	}
	return false;
}

/* The column count matches what was written, and nothing follows the columns. */
static bool rowdesc_consistent(const uint8_t *p, const uint8_t *end)
{
	uint16_t n, i;

	if (end - p < 2)
		return false;
	n = (uint16_t)((p[0] << 8) | p[1]);
	p += 2;
	for (i = 0; i < n; i++) {
		ptrdiff_t nl = bounded_strlen(p, end);

		if (nl < 0 || end - (p + nl + 1) < 18)
			return false;
		p += nl + 1 + 18;
	}
	return p == end;
}

void pg_put_rowdesc_end(struct wbuf *w)
{
	size_t start;

	if (w->failed)
		return;
	if (!find_pending_rowdesc(w, &start) ||
	    !rowdesc_consistent(w->data + start + 5, w->data + w->len)) {
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

/* ---- extended query protocol ---- */

/* A NUL-terminated string at *p inside [*p, end); advances *p past it. */
static const char *take_cstr(const uint8_t **p, const uint8_t *end)
{
	ptrdiff_t n = bounded_strlen(*p, end);
	const char *s;

	if (n < 0)
		return NULL;
	s = (const char *)*p;
	*p += n + 1;
	return s;
}

static bool take_u16(const uint8_t **p, const uint8_t *end, uint16_t *v)
{
	if (end - *p < 2)
		return false;
	*v = (uint16_t)((*p)[0] << 8 | (*p)[1]);
	*p += 2;
	return true;
}

enum pg_status pg_parse_parse(const struct pg_msg *m, struct pg_parse *out, const char **err)
{
	const uint8_t *p = m->body, *end = m->body + m->body_len;

	if (m->type != 'P')
		return fail(err, "not a Parse message");
	out->name = take_cstr(&p, end);
	if (!out->name)
		return fail(err, "Parse: missing statement name terminator");
	out->query = take_cstr(&p, end);
	if (!out->query)
		return fail(err, "Parse: missing query terminator");
	if (!take_u16(&p, end, &out->ntypes))
		return fail(err, "Parse: truncated parameter type count");
	if ((size_t)(end - p) != (size_t)out->ntypes * 4)
		return fail(err, "Parse: parameter type count does not match the message");
	out->types = p;
	return PG_OK;
}

uint32_t pg_parse_type_at(const struct pg_parse *p, uint16_t i)
{
	return i < p->ntypes ? rd_u32(p->types + 4 * (size_t)i) : 0;
}

enum pg_status pg_parse_bind(const struct pg_msg *m, struct pg_bind *out, const char **err)
{
	const uint8_t *p = m->body, *end = m->body + m->body_len;

	if (m->type != 'B')
		return fail(err, "not a Bind message");
	out->portal = take_cstr(&p, end);
	if (!out->portal)
		return fail(err, "Bind: missing portal name terminator");
	out->stmt = take_cstr(&p, end);
	if (!out->stmt)
		return fail(err, "Bind: missing statement name terminator");
	if (!take_u16(&p, end, &out->nformats) || (size_t)(end - p) < (size_t)out->nformats * 2)
		return fail(err, "Bind: truncated parameter formats");
	out->formats = p;
	p += (size_t)out->nformats * 2;
	if (!take_u16(&p, end, &out->nparams))
		return fail(err, "Bind: truncated parameter count");
	if (out->nformats > 1 && out->nformats != out->nparams)
		return fail(err, "Bind: parameter format count does not match the parameter count");
	out->params = p;
	for (uint16_t i = 0; i < out->nparams; i++) {
		uint32_t len;

		if (end - p < 4)
			return fail(err, "Bind: truncated parameter length");
		len = rd_u32(p);
		p += 4;
		if (len == 0xffffffffu)
			continue;
		if (len > INT32_MAX || (size_t)(end - p) < len)
			return fail(err, "Bind: parameter length exceeds the message");
		p += len;
	}
	if (!take_u16(&p, end, &out->nresult_formats) || (size_t)(end - p) != (size_t)out->nresult_formats * 2)
		return fail(err, "Bind: result format count does not match the message");
	out->result_formats = p;
	for (uint16_t i = 0; i < out->nformats; i++)
		if (rd_u16(out->formats + 2 * (size_t)i) > 1)
			return fail(err, "Bind: parameter format must be 0 (text) or 1 (binary)");
	for (uint16_t i = 0; i < out->nresult_formats; i++)
		if (rd_u16(out->result_formats + 2 * (size_t)i) > 1)
			return fail(err, "Bind: result format must be 0 (text) or 1 (binary)");
	return PG_OK;
}

enum pg_status pg_bind_values(const struct pg_bind *b, struct pg_bind_value *out, size_t max)
{
	const uint8_t *p = b->params;

	if (b->nparams > max)
		return PG_ERR;
	/* pg_parse_bind already checked every length against the message. */
	for (uint16_t i = 0; i < b->nparams; i++) {
		uint32_t len = rd_u32(p);

		p += 4;
		out[i].format = b->nformats == 0 ? 0 : rd_u16(b->formats + (b->nformats == 1 ? 0 : 2 * (size_t)i));
		if (len == 0xffffffffu) {
			out[i].data = NULL;
			out[i].len = -1;
			continue;
		}
		out[i].data = p;
		out[i].len = (int32_t)len;
		p += len;
	}
	return PG_OK;
}

int16_t pg_bind_result_format(const struct pg_bind *b, uint16_t col)
{
	if (b->nresult_formats == 0)
		return 0;
	if (b->nresult_formats == 1)
		return (int16_t)rd_u16(b->result_formats);
	return col < b->nresult_formats ? (int16_t)rd_u16(b->result_formats + 2 * (size_t)col) : 0;
}

enum pg_status pg_parse_describe(const struct pg_msg *m, char *kind, const char **name, const char **err)
{
	const uint8_t *p = m->body, *end = m->body + m->body_len;

	if (m->type != 'D' && m->type != 'C')
		return fail(err, "not a Describe or Close message");
	if (m->body_len < 2)
		return fail(err, "Describe/Close: truncated body");
	*kind = (char)*p++;
	if (*kind != 'S' && *kind != 'P')
		return fail(err, "Describe/Close: the target must be 'S' or 'P'");
	*name = take_cstr(&p, end);
	if (!*name || p != end)
		return fail(err, "Describe/Close: malformed name");
	return PG_OK;
}

enum pg_status pg_parse_execute(const struct pg_msg *m, const char **portal, uint32_t *max_rows, const char **err)
{
	const uint8_t *p = m->body, *end = m->body + m->body_len;

	if (m->type != 'E')
		return fail(err, "not an Execute message");
	*portal = take_cstr(&p, end);
	if (!*portal)
		return fail(err, "Execute: missing portal name terminator");
	if (end - p != 4)
		return fail(err, "Execute: malformed row limit");
	*max_rows = rd_u32(p);
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
