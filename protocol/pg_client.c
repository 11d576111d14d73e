/*
 * pg_client: the Postgres protocol as a client speaks it (pg_client.h).
 */
#include "protocol/pg_client.h"

#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/rbuf.h"

/* A frontend message airlockd writes is small: the largest is a query of the reset. */
#define PG_CLIENT_MSG_LIMIT (64u * 1024u)

static enum pg_status fail(const char **err, const char *why)
{
	if (err)
		*err = why;
	return PG_ERR;
}

/* Starts a message of type (0: a startup-style one with no type byte); returns its offset. */
static size_t begin(struct wbuf *w, char type)
{
	size_t start = wbuf_begin(w, PG_CLIENT_MSG_LIMIT);

	if (type)
		wbuf_put_u8(w, (uint8_t)type);
	wbuf_put_be32(w, 0);
	return start;
}

static void end(struct wbuf *w, size_t start, bool typed)
{
	size_t at = start + (typed ? 1 : 0);

	if (!w->failed)
		wbuf_patch_be32(w, at, (uint32_t)(w->len - at));
}

void pg_put_ssl_request(struct wbuf *w)
{
	wbuf_put_be32(w, 8);
	wbuf_put_be32(w, PG_SSL_REQUEST_CODE);
}

void pg_put_startup(struct wbuf *w, const struct pg_param *params, size_t n)
{
	size_t s = begin(w, 0);

	wbuf_put_be32(w, PG_PROTOCOL_3_0);
	for (size_t i = 0; i < n; i++) {
		wbuf_put_cstr(w, params[i].name);
		wbuf_put_cstr(w, params[i].value);
	}
	wbuf_put_u8(w, 0);
	end(w, s, false);
}

void pg_put_password(struct wbuf *w, const char *password)
{
	size_t s = begin(w, 'p');

	wbuf_put_cstr(w, password);
	end(w, s, true);
}

void pg_put_sasl_initial(struct wbuf *w, const char *mechanism, const void *data, size_t len)
{
	size_t s = begin(w, 'p');

	wbuf_put_cstr(w, mechanism);
	wbuf_put_be32(w, (uint32_t)len);
	wbuf_put_bytes(w, data, len);
	end(w, s, true);
}

void pg_put_sasl_response(struct wbuf *w, const void *data, size_t len)
{
	size_t s = begin(w, 'p');

	wbuf_put_bytes(w, data, len);
	end(w, s, true);
}

void pg_put_query(struct wbuf *w, const char *sql)
{
	size_t s = begin(w, 'Q');

	wbuf_put_cstr(w, sql);
	end(w, s, true);
}

void pg_put_sync(struct wbuf *w)
{
	wbuf_put_u8(w, 'S');
	wbuf_put_be32(w, 4);
}

void pg_put_terminate(struct wbuf *w)
{
	wbuf_put_u8(w, 'X');
	wbuf_put_be32(w, 4);
}

enum pg_status pg_read_auth(const struct pg_msg *m, uint32_t *code, const uint8_t **data, size_t *len, const char **err)
{
	struct rbuf r;

	*data = NULL;
	*len = 0;
	if (m->type != 'R')
		return fail(err, "not an authentication request");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_be32(&r, code))
		return fail(err, "authentication request: no code");
	*len = rbuf_left(&r);
	if (*len && !rbuf_get_bytes(&r, *len, data))
		return fail(err, "authentication request: truncated");
	if (*code == PG_AUTH_MD5 && *len != 4)
		return fail(err, "authentication request: an MD5 salt is 4 bytes");
	return PG_OK;
}

bool pg_auth_sasl_offers(const uint8_t *data, size_t len, const char *mechanism)
{
	struct rbuf r;
	const char *name;

	rbuf_init(&r, data, len);
	while (rbuf_get_cstr(&r, &name, NULL) && name[0])
		if (strcmp(name, mechanism) == 0)
			return true;
	return false;
}

enum pg_status pg_read_parameter_status(const struct pg_msg *m, const char **name, const char **value, const char **err)
{
	struct rbuf r;

	if (m->type != 'S')
		return fail(err, "not a parameter status");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, name, NULL) || !rbuf_get_cstr(&r, value, NULL) || rbuf_left(&r) != 0)
		return fail(err, "parameter status: not a name and a value");
	return PG_OK;
}

enum pg_status pg_read_backend_key(const struct pg_msg *m, uint32_t *pid, uint32_t *key, const char **err)
{
	struct rbuf r;

	if (m->type != 'K')
		return fail(err, "not backend key data");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_be32(&r, pid) || !rbuf_get_be32(&r, key) || rbuf_left(&r) != 0)
		return fail(err, "backend key data: not 8 bytes");
	return PG_OK;
}

enum pg_status pg_read_ready(const struct pg_msg *m, char *status, const char **err)
{
	if (m->type != 'Z')
		return fail(err, "not ready for query");
	if (m->body_len != 1 || (m->body[0] != 'I' && m->body[0] != 'T' && m->body[0] != 'E'))
		return fail(err, "ready for query: not one status byte");
	*status = (char)m->body[0];
	return PG_OK;
}

enum pg_status pg_read_command_tag(const struct pg_msg *m, const char **tag, const char **err)
{
	struct rbuf r;

	if (m->type != 'C')
		return fail(err, "not a command completion");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_cstr(&r, tag, NULL) || rbuf_left(&r) != 0)
		return fail(err, "command completion: not one tag");
	return PG_OK;
}

enum pg_status pg_read_error(const struct pg_msg *m, const char **sqlstate, const char **message, const char **err)
{
	struct rbuf r;
	uint8_t field;
	const char *v;

	*sqlstate = *message = "";
	if (m->type != 'E' && m->type != 'N')
		return fail(err, "not an error or notice");
	rbuf_init(&r, m->body, m->body_len);
	for (;;) {
		if (!rbuf_get_u8(&r, &field))
			return fail(err, "error fields: no terminator");
		if (field == 0)
			break;
		if (!rbuf_get_cstr(&r, &v, NULL))
			return fail(err, "error fields: a field without its end");
		if (field == 'C')
			*sqlstate = v;
		else if (field == 'M')
			*message = v;
	}
	if (rbuf_left(&r) != 0)
		return fail(err, "error fields: bytes after the terminator");
	return PG_OK;
}

enum pg_status pg_read_datarow_one(const struct pg_msg *m, const uint8_t **value, size_t *len, const char **err)
{
	struct rbuf r;
	uint16_t n;
	uint32_t l;

	if (m->type != 'D')
		return fail(err, "not a data row");
	rbuf_init(&r, m->body, m->body_len);
	if (!rbuf_get_be16(&r, &n) || n != 1)
		return fail(err, "data row: not one column");
	if (!rbuf_get_be32(&r, &l) || l == UINT32_MAX || !rbuf_get_bytes(&r, l, value) || rbuf_left(&r) != 0)
		return fail(err, "data row: not one value");
	*len = l;
	return PG_OK;
}

enum pg_reset_step pg_reset_step(struct pg_reset_watch *w, const struct pg_msg *m, const char *marker)
{
	const char *err, *tag, *code, *msg;
	const uint8_t *v;
	size_t vlen;
	char status;

	switch (m->type) {
	case 'E':
		if (pg_read_error(m, &code, &msg, &err) != PG_OK)
			return PG_RESET_FAILED;
		w->error = true;
		return PG_RESET_MORE;
	case 'C':
		if (pg_read_command_tag(m, &tag, &err) != PG_OK)
			return PG_RESET_FAILED;
		if (strcmp(tag, "DISCARD ALL") == 0)
			w->discard = true;
		return PG_RESET_MORE;
	case 'D':
		if (pg_read_datarow_one(m, &v, &vlen, &err) == PG_OK && vlen == strlen(marker) &&
		    memcmp(v, marker, vlen) == 0)
			w->marker = true;
		return PG_RESET_MORE;
	case 'Z':
		if (pg_read_ready(m, &status, &err) != PG_OK)
			return PG_RESET_FAILED;
		if (w->marker)
			return !w->error && w->prev_discard && status == 'I' ? PG_RESET_CLEAN : PG_RESET_FAILED;
		w->prev_discard = w->discard && !w->error;
		w->discard = w->error = false;
		return PG_RESET_MORE;
	default:
		return PG_RESET_MORE;
	}
}

/* hex of the MD5 of a's and b's bytes into out (33 bytes); 0 or -1. */
static int md5_hex(const void *a, size_t alen, const void *b, size_t blen, char out[33])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int ok;

	if (!c)
		return -1;
	ok = EVP_DigestInit_ex(c, EVP_md5(), NULL) == 1 && EVP_DigestUpdate(c, a, alen) == 1 &&
	     EVP_DigestUpdate(c, b, blen) == 1 && EVP_DigestFinal_ex(c, d, &n) == 1 && n == 16;
	EVP_MD_CTX_free(c);
	if (!ok)
		return -1;
	for (unsigned i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return 0;
}

int pg_md5_password(const char *password, const char *user, const uint8_t salt[4], char out[36])
{
	char inner[33];

	if (md5_hex(password, strlen(password), user, strlen(user), inner) < 0)
		return -1;
	memcpy(out, "md5", 3);
	return md5_hex(inner, 32, salt, 4, out + 3);
}
