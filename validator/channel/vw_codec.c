/*
 * vw_codec: requests and responses on a validator worker's channel; the
 * policies inside a request. See vw_codec.h.
 */
#include "validator/channel/vw_codec.h"

#include <stdlib.h>
#include <string.h>

/* A policy list's strings travel as count, then each as a string; NULL as a flag byte before it. */

static void put_list(struct wbuf *w, const char *const *v, size_t n)
{
	wbuf_put_be32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		vw_put_str(w, v[i]);
}

static void put_opt(struct wbuf *w, const char *s)
{
	wbuf_put_u8(w, s != NULL);
	if (s)
		vw_put_str(w, s);
}

static void put_rules(struct wbuf *w, const struct airlock_rule *rules, size_t n)
{
	wbuf_put_be32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct airlock_rule *r = &rules[i];

		vw_put_str(w, r->table);
		put_opt(w, r->filter);
		wbuf_put_u8(w, r->has_columns);
		wbuf_put_be32(w, (uint32_t)r->ncolumns);
		for (size_t c = 0; c < r->ncolumns; c++) {
			vw_put_str(w, r->columns[c].name);
			put_opt(w, r->columns[c].mask);
		}
	}
}

/* Fills in the length of the body begun at at (a 4-byte placeholder); false, and w failed, when it is too long. */
static bool end_body(struct wbuf *w, size_t at)
{
	if (w->failed || w->len - at - 4 > VW_MAX_BODY) {
		w->failed = true;
		return false;
	}
	wbuf_patch_be32(w, at, (uint32_t)(w->len - at - 4));
	return true;
}

bool vw_put_request(struct wbuf *w, enum vw_op op, const struct pgv_policy *pg, const struct vmy_policy *my,
		    const char *sql, size_t sql_len, const struct vmy_result *my_read, size_t split_max)
{
	static const struct pgv_policy no_pg;
	static const struct vmy_policy no_my;
	size_t at = w->len;

	if (!pg)
		pg = &no_pg;
	if (!my)
		my = &no_my;
	wbuf_put_be32(w, 0);
	wbuf_put_u8(w, (uint8_t)op);
	wbuf_put_be32(w, (uint32_t)split_max);
	/* Postgres */
	put_list(w, pg->tables, pg->ntables);
	put_list(w, pg->search_path, pg->nsearch_path);
	put_opt(w, pg->user);
	put_rules(w, pg->rules, pg->nrules);
	put_list(w, pg->functions, pg->nfunctions);
	put_list(w, pg->write_tables, pg->nwrite_tables);
	wbuf_put_u8(w, pg->forbid_star ? 1 : 0);
	/* MySQL */
	put_opt(w, my->user);
	put_opt(w, my->database);
	put_list(w, my->tables, my->ntables);
	wbuf_put_u8(w, (uint8_t)((my->allow_sleep ? 1 : 0) | (my->allow_benchmark ? 2 : 0) |
				 (my->no_backslash_escapes ? 4 : 0) | (my->ansi_quotes ? 8 : 0) |
				 (my->forbid_star ? 16 : 0)));
	put_opt(w, my->charset);
	put_rules(w, my->rules, my->nrules);
	put_list(w, my->write_tables, my->nwrite_tables);
	/* The text, and the read's result for VW_MY_SCOPE */
	wbuf_put_be32(w, (uint32_t)sql_len);
	wbuf_put_bytes(w, sql, sql_len);
	wbuf_put_u8(w, my_read != NULL);
	if (my_read)
		vw_put_my_result(w, my_read);
	return end_body(w, at);
}

/* ---- reading a request ---- */

/*
 * Everything a request's reader allocates is recorded in req->owned and
 * freed together; nothing points into that list itself, so it may grow.
 * Counts read off the wire are checked against the bytes left before
 * anything is allocated for them: every element takes at least 4 bytes.
 */
static void *own(struct vw_request *req, size_t n, size_t size)
{
	void *p;

	if (req->nowned == req->capowned) {
		size_t cap = req->capowned ? req->capowned * 2 : 16;
		void **grown = realloc(req->owned, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		req->owned = grown;
		req->capowned = cap;
	}
	p = calloc(n ? n : 1, size);
	if (p)
		req->owned[req->nowned++] = p;
	return p;
}

static bool get_view(struct rbuf *r, struct vw_request *req, const char **s)
{
	const uint8_t *p;
	uint32_t n;
	char *copy;

	if (!rbuf_get_be32(r, &n) || !rbuf_get_bytes(r, n, &p) || memchr(p, '\0', n))
		return false;
	copy = own(req, (size_t)n + 1, 1);
	if (!copy)
		return false;
	memcpy(copy, p, n);
	*s = copy;
	return true;
}

static bool get_opt(struct rbuf *r, struct vw_request *req, const char **s)
{
	uint8_t present;

	*s = NULL;
	if (!rbuf_get_u8(r, &present) || present > 1)
		return false;
	return !present || get_view(r, req, s);
}

static bool get_count(struct rbuf *r, uint32_t *n)
{
	return rbuf_get_be32(r, n) && *n <= rbuf_left(r) / 4;
}

typedef bool (*get_elem_fn)(struct rbuf *r, struct vw_request *req, void *elem);

/*
 * A count, then that many elements of size bytes each, read by get into
 * an array owned by req. *out is NULL when the count is 0.
 */
static bool get_array(struct rbuf *r, struct vw_request *req, size_t size, get_elem_fn get, void **out, size_t *nout)
{
	char *v;
	uint32_t n;

	*out = NULL;
	*nout = 0;
	if (!get_count(r, &n))
		return false;
	if (n == 0)
		return true;
	v = own(req, n, size);
	if (!v)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!get(r, req, v + (size_t)i * size))
			return false;
	*out = v;
	*nout = n;
	return true;
}

static bool get_string(struct rbuf *r, struct vw_request *req, void *elem)
{
	return get_view(r, req, elem);
}

static bool get_list(struct rbuf *r, struct vw_request *req, const char *const **out, size_t *nout)
{
	void *v;
	bool ok = get_array(r, req, sizeof(**out), get_string, &v, nout);

	*out = v;
	return ok;
}

static bool get_column(struct rbuf *r, struct vw_request *req, void *elem)
{
	struct airlock_column *col = elem;
	const char *name, *mask;

	if (!get_view(r, req, &name) || !get_opt(r, req, &mask))
		return false;
	col->name = (char *)name;
	col->mask = (char *)mask;
	return true;
}

static bool get_rule(struct rbuf *r, struct vw_request *req, void *elem)
{
	struct airlock_rule *rule = elem;
	const char *table, *filter;
	uint8_t has_columns;
	void *columns;

	if (!get_view(r, req, &table) || !get_opt(r, req, &filter) || !rbuf_get_u8(r, &has_columns) || has_columns > 1)
		return false;
	rule->table = (char *)table;
	rule->filter = (char *)filter;
	rule->has_columns = has_columns;
	if (!get_array(r, req, sizeof(*rule->columns), get_column, &columns, &rule->ncolumns))
		return false;
	rule->columns = columns;
	return true;
}

static bool get_rules(struct rbuf *r, struct vw_request *req, const struct airlock_rule **out, size_t *nout)
{
	void *v;
	bool ok = get_array(r, req, sizeof(**out), get_rule, &v, nout);

	*out = v;
	return ok;
}

static bool get_policies(struct rbuf *r, struct vw_request *req)
{
	uint8_t flags, star;

	if (!get_list(r, req, &req->pg.tables, &req->pg.ntables) ||
	    !get_list(r, req, &req->pg.search_path, &req->pg.nsearch_path) || !get_opt(r, req, &req->pg.user) ||
	    !get_rules(r, req, &req->pg.rules, &req->pg.nrules) ||
	    !get_list(r, req, &req->pg.functions, &req->pg.nfunctions) ||
	    !get_list(r, req, &req->pg.write_tables, &req->pg.nwrite_tables) || !rbuf_get_u8(r, &star) || star > 1)
		return false;
	req->pg.forbid_star = star;
	if (!get_opt(r, req, &req->my.user) || !get_opt(r, req, &req->my.database) ||
	    !get_list(r, req, &req->my.tables, &req->my.ntables) || !rbuf_get_u8(r, &flags) || flags > 31 ||
	    !get_opt(r, req, &req->my.charset) || !get_rules(r, req, &req->my.rules, &req->my.nrules) ||
	    !get_list(r, req, &req->my.write_tables, &req->my.nwrite_tables))
		return false;
	req->my.allow_sleep = flags & 1;
	req->my.allow_benchmark = flags & 2;
	req->my.no_backslash_escapes = flags & 4;
	req->my.ansi_quotes = flags & 8;
	req->my.forbid_star = flags & 16;
	return true;
}

bool vw_get_request(const uint8_t *body, size_t len, struct vw_request *req)
{
	struct rbuf r;
	uint8_t op, has_read;
	uint32_t split_max, sql_len;
	const uint8_t *sql;
	char *text;

	memset(req, 0, sizeof(*req));
	rbuf_init(&r, body, len);
	if (!rbuf_get_u8(&r, &op) || op == 0 || op >= VW_NOPS || !rbuf_get_be32(&r, &split_max) ||
	    split_max > VW_MAX_SPLIT || !get_policies(&r, req) || !rbuf_get_be32(&r, &sql_len) ||
	    !rbuf_get_bytes(&r, sql_len, &sql) || !rbuf_get_u8(&r, &has_read) || has_read > 1)
		goto bad;
	req->op = (enum vw_op)op;
	req->split_max = split_max;
	text = own(req, (size_t)sql_len + 1, 1);
	if (!text)
		goto bad;
	memcpy(text, sql, sql_len);
	req->sql = text;
	req->sql_len = sql_len;
	if (has_read) {
		req->my_read = own(req, 1, sizeof(*req->my_read));
		if (!req->my_read || !vw_get_my_result(&r, sql_len, req->my.nrules, req->my_read))
			goto bad;
	}
	if (rbuf_left(&r) == 0)
		return true;
bad:
	vw_request_free(req);
	return false;
}

void vw_request_free(struct vw_request *req)
{
	for (size_t i = 0; i < req->nowned; i++)
		free(req->owned[i]);
	free(req->owned);
	memset(req, 0, sizeof(*req));
}

/* ---- responses ---- */

bool vw_put_response(struct wbuf *w, enum vw_op op, const struct vw_response *r)
{
	size_t at = w->len;

	wbuf_put_be32(w, 0);
	wbuf_put_u8(w, (uint8_t)r->status);
	if (r->status == VW_OK) {
		switch (op) {
		case VW_PG_VALIDATE:
		case VW_PG_AGAIN:
			vw_put_pg_result(w, &r->pg);
			break;
		case VW_PG_SCOPE:
		case VW_PG_WRITE:
			vw_put_pg_result(w, &r->pg);
			put_opt(w, r->text);
			put_opt(w, r->guard);
			if (op == VW_PG_WRITE)
				put_opt(w, r->sample);
			break;
		case VW_PG_READ:
			vw_put_pg_result(w, &r->pg);
			wbuf_put_u8(w, r->scoped);
			if (r->scoped) {
				vw_put_pg_result(w, &r->scope);
				put_opt(w, r->text);
				put_opt(w, r->guard);
			}
			break;
		case VW_PG_SPLIT:
			wbuf_put_be32(w, (uint32_t)r->nsplit);
			for (size_t i = 0; i < r->nsplit; i++) {
				wbuf_put_be64(w, r->split_off[i]);
				wbuf_put_be64(w, r->split_len[i]);
			}
			break;
		case VW_MY_VALIDATE:
			vw_put_my_result(w, r->my);
			wbuf_put_be64(w, r->my_fingerprint);
			break;
		case VW_MY_SCOPE:
			wbuf_put_u8(w, r->my_failed);
			put_opt(w, r->text);
			if (r->text)
				vw_put_my_result(w, r->my);
			put_opt(w, r->sample);
			break;
		default:
			w->failed = true;
			break;
		}
	}
	return end_body(w, at);
}

/* An optional string of any length up to the body's, copied to the heap. */
static bool get_text(struct rbuf *r, char **out)
{
	const uint8_t *p;
	uint8_t present;
	uint32_t n;

	*out = NULL;
	if (!rbuf_get_u8(r, &present) || present > 1)
		return false;
	if (!present)
		return true;
	if (!rbuf_get_be32(r, &n) || !rbuf_get_bytes(r, n, &p) || memchr(p, '\0', n))
		return false;
	*out = malloc((size_t)n + 1);
	if (!*out)
		return false;
	memcpy(*out, p, n);
	(*out)[n] = '\0';
	return true;
}

static bool get_split(struct rbuf *r, size_t sql_len, struct vw_response *res)
{
	uint32_t n;

	if (!rbuf_get_be32(r, &n) || n > VW_MAX_SPLIT || n > rbuf_left(r) / 16)
		return false;
	res->nsplit = n;
	if (n == 0)
		return true;
	res->split_off = calloc(n, sizeof(*res->split_off));
	res->split_len = calloc(n, sizeof(*res->split_len));
	if (!res->split_off || !res->split_len)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t off, len;

		if (!rbuf_get_be64(r, &off) || !rbuf_get_be64(r, &len) || off > sql_len || len > sql_len - off)
			return false;
		res->split_off[i] = (size_t)off;
		res->split_len[i] = (size_t)len;
	}
	return true;
}

bool vw_get_response(const uint8_t *body, size_t len, enum vw_op op, size_t sql_len, size_t nrules,
		     struct vw_response *res)
{
	struct rbuf r;
	uint8_t status;
	bool ok = false;

	memset(res, 0, sizeof(*res));
	rbuf_init(&r, body, len);
	if (!rbuf_get_u8(&r, &status) || status > VW_NO_MEMORY)
		return false;
	res->status = (enum vw_status)status;
	if (status != VW_OK)
		return rbuf_left(&r) == 0;
	switch (op) {
	case VW_PG_VALIDATE:
	case VW_PG_AGAIN:
		ok = vw_get_pg_result(&r, sql_len, &res->pg);
		break;
	case VW_PG_SCOPE:
	case VW_PG_WRITE:
		ok = vw_get_pg_result(&r, sql_len, &res->pg) && get_text(&r, &res->text) && get_text(&r, &res->guard) &&
		     (op != VW_PG_WRITE || get_text(&r, &res->sample));
		break;
	case VW_PG_READ: {
		uint8_t scoped;

		ok = vw_get_pg_result(&r, sql_len, &res->pg) && rbuf_get_u8(&r, &scoped) && scoped <= 1;
		res->scoped = ok && scoped;
		/* Only a read is scoped, and only a read the scope let through has text. */
		if (ok && res->scoped)
			ok = res->pg.kind == PGV_READ && vw_get_pg_result(&r, sql_len, &res->scope) &&
			     get_text(&r, &res->text) && get_text(&r, &res->guard) &&
			     (res->scope.kind == PGV_READ || (!res->text && !res->guard));
		break;
	}
	case VW_PG_SPLIT:
		ok = get_split(&r, sql_len, res);
		break;
	case VW_MY_VALIDATE:
		res->my = malloc(sizeof(*res->my));
		ok = res->my && vw_get_my_result(&r, sql_len, nrules, res->my) &&
		     rbuf_get_be64(&r, &res->my_fingerprint);
		break;
	case VW_MY_SCOPE: {
		uint8_t failed;

		ok = rbuf_get_u8(&r, &failed) && failed <= 1 && get_text(&r, &res->text);
		res->my_failed = ok && failed;
		if (ok && res->text) {
			res->my = malloc(sizeof(*res->my));
			ok = res->my && vw_get_my_result(&r, strlen(res->text), nrules, res->my);
		}
		/* A write's dry-run variant only beside the text it varies. */
		ok = ok && get_text(&r, &res->sample) && (!res->sample || res->text);
		break;
	}
	default:
		break;
	}
	if (ok && rbuf_left(&r) == 0)
		return true;
	vw_response_free(res);
	return false;
}

void vw_response_free(struct vw_response *res)
{
	free(res->text);
	free(res->guard);
	free(res->sample);
	free(res->split_off);
	free(res->split_len);
	free(res->my);
	memset(res, 0, sizeof(*res));
}
