/*
 * vw_result: the validators' results (struct pgv_result, struct
 * vmy_result) field by field on the worker's channel, and read back with
 * every field checked against its bounds. See vw_codec.h.
 */
#include <string.h>

#include "validator/channel/vw_codec.h"

/* Booleans travel as one byte each, in these bit positions. */
enum {
	PG_LOCAL = 1 << 0,
	PG_DEFAULT = 1 << 1,
	PG_READ_WRITE = 1 << 2,
	PG_HOLD = 1 << 3,
	PG_EXPLAIN = 1 << 4,
	PG_COPY_HEADER = 1 << 5,
	PG_SET_CONFIG = 1 << 6,
	PG_MOVE = 1 << 7,
};

void vw_put_str(struct wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wbuf_put_be32(w, (uint32_t)n);
	wbuf_put_bytes(w, s ? s : "", n);
}

bool vw_get_str(struct rbuf *r, char *dst, size_t cap)
{
	const uint8_t *p;
	uint32_t n;

	if (!rbuf_get_be32(r, &n) || n >= cap || !rbuf_get_bytes(r, n, &p) || memchr(p, '\0', n))
		return false;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return true;
}

static bool get_bool(struct rbuf *r, bool *v)
{
	uint8_t b;

	if (!rbuf_get_u8(r, &b) || b > 1)
		return false;
	*v = b;
	return true;
}

static bool get_size(struct rbuf *r, size_t *v, size_t max)
{
	uint64_t n;

	if (!rbuf_get_be64(r, &n) || n > max)
		return false;
	*v = (size_t)n;
	return true;
}

static bool sqlstate_ok(const char *s)
{
	size_t n = strlen(s);

	if (n != 0 && n != 5)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* ---- Postgres ---- */

void vw_put_pg_result(struct wbuf *w, const struct pgv_result *r)
{
	uint8_t flags = (r->is_local ? PG_LOCAL : 0) | (r->set_default ? PG_DEFAULT : 0) |
			(r->read_write ? PG_READ_WRITE : 0) | (r->hold ? PG_HOLD : 0) | (r->explain ? PG_EXPLAIN : 0) |
			(r->copy_header ? PG_COPY_HEADER : 0) | (r->set_config ? PG_SET_CONFIG : 0) |
			(r->move ? PG_MOVE : 0);

	wbuf_put_u8(w, (uint8_t)r->kind);
	vw_put_str(w, r->sqlstate);
	wbuf_put_be16(w, (uint16_t)r->code);
	vw_put_str(w, r->message);
	vw_put_str(w, r->hint);
	wbuf_put_be32(w, (uint32_t)(r->cursor_pos < 0 ? 0 : r->cursor_pos));
	vw_put_str(w, r->name);
	vw_put_str(w, r->value);
	wbuf_put_u8(w, flags);
	wbuf_put_be64(w, r->query_offset);
	wbuf_put_be64(w, r->count);
	wbuf_put_be64(w, r->query_len);
	vw_put_str(w, r->copy_query);
	vw_put_str(w, r->copy_options);
	wbuf_put_be64(w, r->fingerprint);
	vw_put_str(w, r->column);
	vw_put_str(w, r->target);
	vw_put_str(w, r->command);
	wbuf_put_u8(w, (uint8_t)((r->returning ? 1 : 0) | (r->write_check ? 2 : 0) | (r->read_only ? 4 : 0)));
	vw_put_str(w, r->star_read);
}

bool vw_get_pg_result(struct rbuf *r, size_t sql_len, struct pgv_result *out)
{
	uint8_t kind, flags, wflags;
	uint16_t code;
	uint32_t cursor;

	memset(out, 0, sizeof(*out));
	if (!rbuf_get_u8(r, &kind) || kind >= PGV_NKINDS || !vw_get_str(r, out->sqlstate, sizeof(out->sqlstate)) ||
	    !sqlstate_ok(out->sqlstate) || !rbuf_get_be16(r, &code) || code >= AIRLOCK_E_COUNT ||
	    !vw_get_str(r, out->message, sizeof(out->message)) || !vw_get_str(r, out->hint, sizeof(out->hint)) ||
	    !rbuf_get_be32(r, &cursor) || cursor > sql_len + 1 || !vw_get_str(r, out->name, sizeof(out->name)) ||
	    !vw_get_str(r, out->value, sizeof(out->value)) || !rbuf_get_u8(r, &flags) ||
	    !get_size(r, &out->query_offset, sql_len) || !rbuf_get_be64(r, &out->count) ||
	    !get_size(r, &out->query_len, sql_len - out->query_offset) ||
	    !vw_get_str(r, out->copy_query, sizeof(out->copy_query)) ||
	    !vw_get_str(r, out->copy_options, sizeof(out->copy_options)) || !rbuf_get_be64(r, &out->fingerprint) ||
	    !vw_get_str(r, out->column, sizeof(out->column)) || !vw_get_str(r, out->target, sizeof(out->target)) ||
	    !vw_get_str(r, out->command, sizeof(out->command)) || !rbuf_get_u8(r, &wflags) || wflags > 7 ||
	    !vw_get_str(r, out->star_read, sizeof(out->star_read)))
		goto bad;
	/* Only a SELECT_STAR refusal names a read for its hint. */
	if (out->star_read[0] && (kind != PGV_REFUSED || code != AIRLOCK_E_SELECT_STAR))
		goto bad;
	/* A write names its table and command, and only a write does. */
	if ((kind == PGV_WRITE) != (out->target[0] != '\0') || (kind == PGV_WRITE) != (out->command[0] != '\0') ||
	    (out->command[0] && strcmp(out->command, "INSERT") != 0 && strcmp(out->command, "UPDATE") != 0 &&
	     strcmp(out->command, "DELETE") != 0))
		goto bad;
	/* A refusal carries its SQLSTATE. */
	if (kind == PGV_REFUSED && out->sqlstate[0] == '\0')
		goto bad;
	out->kind = (enum pgv_kind)kind;
	out->code = (enum airlock_err)code;
	out->cursor_pos = (int)cursor;
	out->is_local = flags & PG_LOCAL;
	out->set_default = flags & PG_DEFAULT;
	out->read_write = flags & PG_READ_WRITE;
	out->hold = flags & PG_HOLD;
	out->explain = flags & PG_EXPLAIN;
	out->copy_header = flags & PG_COPY_HEADER;
	out->set_config = flags & PG_SET_CONFIG;
	out->move = flags & PG_MOVE;
	out->returning = wflags & 1;
	out->write_check = wflags & 2;
	out->read_only = wflags & 4;
	if (out->read_only && out->read_write)
		goto bad;
	return true;
bad:
	memset(out, 0, sizeof(*out));
	return false;
}

/* ---- MySQL ---- */

/* The statement kinds a read names; stmt_kind points at one of these again after reading. */
static const char *const stmt_kinds[] = {"SELECT", "SHOW", "DESCRIBE", "EXPLAIN"};

static void put_assign(struct wbuf *w, const struct vmy_assign *a)
{
	vw_put_str(w, a->name);
	vw_put_str(w, a->value);
	vw_put_str(w, a->collate);
	wbuf_put_u8(w, a->is_default);
	wbuf_put_u8(w, a->quoted);
	wbuf_put_u8(w, a->append);
	wbuf_put_u8(w, a->next_transaction_only);
	wbuf_put_u8(w, (uint8_t)a->nreplace);
	for (unsigned i = 0; i < a->nreplace && i < VMY_MAX_REPLACE; i++) {
		vw_put_str(w, a->replace[i].from);
		vw_put_str(w, a->replace[i].to);
	}
}

static bool get_assign(struct rbuf *r, struct vmy_assign *a)
{
	uint8_t n;

	if (!(vw_get_str(r, a->name, sizeof(a->name)) && vw_get_str(r, a->value, sizeof(a->value)) &&
	      vw_get_str(r, a->collate, sizeof(a->collate)) && get_bool(r, &a->is_default) && get_bool(r, &a->quoted) &&
	      get_bool(r, &a->append) && get_bool(r, &a->next_transaction_only) && rbuf_get_u8(r, &n) &&
	      n <= VMY_MAX_REPLACE))
		return false;
	a->nreplace = n;
	for (unsigned i = 0; i < n; i++) {
		if (!vw_get_str(r, a->replace[i].from, sizeof(a->replace[i].from)) ||
		    !vw_get_str(r, a->replace[i].to, sizeof(a->replace[i].to)))
			return false;
	}
	return true;
}

static void put_ref(struct wbuf *w, const struct vmy_scoped_ref *ref)
{
	wbuf_put_be32(w, ref->start);
	wbuf_put_be32(w, ref->end);
	vw_put_str(w, ref->table);
	vw_put_str(w, ref->written);
	vw_put_str(w, ref->db);
	wbuf_put_be16(w, (uint16_t)ref->rule);
	wbuf_put_u8(w, ref->aliased);
	wbuf_put_be32(w, ref->hint_start);
	wbuf_put_be32(w, ref->hint_end);
}

static bool get_ref(struct rbuf *r, size_t stmt_len, size_t nrules, struct vmy_scoped_ref *ref)
{
	uint16_t rule;

	if (!rbuf_get_be32(r, &ref->start) || !rbuf_get_be32(r, &ref->end) || ref->start > ref->end ||
	    ref->end > stmt_len || !vw_get_str(r, ref->table, sizeof(ref->table)) ||
	    !vw_get_str(r, ref->written, sizeof(ref->written)) || !vw_get_str(r, ref->db, sizeof(ref->db)) ||
	    !rbuf_get_be16(r, &rule) || !get_bool(r, &ref->aliased) || !rbuf_get_be32(r, &ref->hint_start) ||
	    !rbuf_get_be32(r, &ref->hint_end) || ref->hint_start > ref->hint_end || ref->hint_end > stmt_len ||
	    (ref->hint_end > ref->hint_start && ref->hint_start < ref->end))
		return false;
	ref->rule = (int16_t)rule;
	return ref->rule >= VMY_REF_QUALIFIER && (ref->rule < 0 || (size_t)ref->rule < nrules);
}

static void put_write_plan(struct wbuf *w, const struct vmy_write_plan *p)
{
	vw_put_str(w, p->command);
	vw_put_str(w, p->db);
	vw_put_str(w, p->table);
	wbuf_put_be16(w, (uint16_t)p->rule);
	wbuf_put_be32(w, p->target_start);
	wbuf_put_be32(w, p->target_end);
	wbuf_put_be32(w, p->where_start);
	wbuf_put_be32(w, p->where_end);
	wbuf_put_be32(w, p->filter_at);
	wbuf_put_be32(w, p->rows);
	wbuf_put_u8(w, p->sample ? 1 : 0);
}

/* A write's plan: its offsets in order inside the statement, its rule one of the policy's. */
static bool get_write_plan(struct rbuf *r, size_t stmt_len, size_t nrules, struct vmy_write_plan *p)
{
	uint16_t rule;
	uint8_t sample;

	if (!vw_get_str(r, p->command, sizeof(p->command)) || !vw_get_str(r, p->db, sizeof(p->db)) ||
	    !vw_get_str(r, p->table, sizeof(p->table)) || !rbuf_get_be16(r, &rule) ||
	    !rbuf_get_be32(r, &p->target_start) || !rbuf_get_be32(r, &p->target_end) ||
	    !rbuf_get_be32(r, &p->where_start) || !rbuf_get_be32(r, &p->where_end) ||
	    !rbuf_get_be32(r, &p->filter_at) || !rbuf_get_be32(r, &p->rows) || !rbuf_get_u8(r, &sample) || sample > 1)
		return false;
	p->sample = sample == 1;
	p->rule = (int16_t)rule;
	if (p->rule < -1 || (p->rule >= 0 && (size_t)p->rule >= nrules))
		p->rule = -2; /* refused below for a write; nothing else reads it */
	/* Offsets in order inside the statement; a result other than a write carries none. */
	return p->target_start <= p->target_end && p->target_end <= p->filter_at && p->filter_at <= stmt_len &&
	       p->where_start <= p->where_end && p->where_end <= stmt_len &&
	       (p->where_end == 0 || p->where_start >= p->filter_at);
}

void vw_put_my_result(struct wbuf *w, const struct vmy_result *r)
{
	size_t i, kind = 0;

	wbuf_put_u8(w, (uint8_t)r->kind);
	wbuf_put_be16(w, r->my_errno);
	vw_put_str(w, r->sqlstate);
	wbuf_put_be16(w, (uint16_t)r->code);
	vw_put_str(w, r->message);
	vw_put_str(w, r->hint);
	wbuf_put_be32(w, (uint32_t)r->nassigns);
	for (i = 0; i < r->nassigns && i < VMY_MAX_ASSIGNS; i++)
		put_assign(w, &r->assigns[i]);
	wbuf_put_u8(w, r->read_only_txn);
	vw_put_str(w, r->use_db);
	wbuf_put_be32(w, (uint32_t)r->nitems);
	for (i = 0; i < r->nitems && i < VMY_MAX_ITEMS; i++) {
		wbuf_put_u8(w, (uint8_t)r->items[i].item);
		vw_put_str(w, r->items[i].sysvar);
		vw_put_str(w, r->items[i].label);
	}
	wbuf_put_be64(w, (uint64_t)r->limit);
	vw_put_str(w, r->like);
	wbuf_put_u8(w, r->have_like);
	wbuf_put_be32(w, (uint32_t)r->nnames);
	for (i = 0; i < r->nnames && i < VMY_MAX_ITEMS; i++)
		vw_put_str(w, r->names[i]);
	for (i = 0; r->stmt_kind && i < sizeof(stmt_kinds) / sizeof(stmt_kinds[0]); i++)
		if (strcmp(r->stmt_kind, stmt_kinds[i]) == 0)
			kind = i + 1;
	wbuf_put_u8(w, (uint8_t)kind);
	wbuf_put_u8(w, r->count_only);
	wbuf_put_be64(w, (uint64_t)r->offset);
	wbuf_put_be64(w, r->stmt_len);
	wbuf_put_be32(w, (uint32_t)r->scope.nrefs);
	for (i = 0; i < r->scope.nrefs && i < VMY_MAX_SCOPED; i++)
		put_ref(w, &r->scope.refs[i]);
	wbuf_put_u8(w, r->scope.too_many);
	wbuf_put_u8(w, (uint8_t)r->scope.show);
	wbuf_put_u8(w, r->scope.full);
	vw_put_str(w, r->scope.db);
	vw_put_str(w, r->scope.table);
	wbuf_put_be32(w, r->scope.like_start);
	wbuf_put_be32(w, r->scope.like_len);
	wbuf_put_be32(w, r->scope.where_start);
	vw_put_str(w, r->create_db);
	vw_put_str(w, r->approval);
	put_write_plan(w, &r->write);
}

static bool get_my_head(struct rbuf *r, struct vmy_result *out)
{
	uint8_t kind;
	uint16_t code;

	if (!rbuf_get_u8(r, &kind) || kind >= VMY_NKINDS || !rbuf_get_be16(r, &out->my_errno) ||
	    !vw_get_str(r, out->sqlstate, sizeof(out->sqlstate)) || !sqlstate_ok(out->sqlstate) ||
	    !rbuf_get_be16(r, &code) || code >= AIRLOCK_E_COUNT || !vw_get_str(r, out->message, sizeof(out->message)) ||
	    !vw_get_str(r, out->hint, sizeof(out->hint)))
		return false;
	out->kind = (enum vmy_kind)kind;
	out->code = (enum airlock_err)code;
	/* A refusal carries its errno and SQLSTATE. */
	return kind != VMY_REFUSED || (out->my_errno != 0 && out->sqlstate[0]);
}

static bool get_my_lists(struct rbuf *r, struct vmy_result *out)
{
	uint32_t n;
	size_t i;

	if (!rbuf_get_be32(r, &n) || n > VMY_MAX_ASSIGNS)
		return false;
	out->nassigns = n;
	for (i = 0; i < n; i++)
		if (!get_assign(r, &out->assigns[i]))
			return false;
	if (!get_bool(r, &out->read_only_txn) || !vw_get_str(r, out->use_db, sizeof(out->use_db)) ||
	    !rbuf_get_be32(r, &n) || n > VMY_MAX_ITEMS)
		return false;
	out->nitems = n;
	for (i = 0; i < n; i++) {
		uint8_t item;

		if (!rbuf_get_u8(r, &item) || item > VMY_ITEM_SYSVAR ||
		    !vw_get_str(r, out->items[i].sysvar, sizeof(out->items[i].sysvar)) ||
		    !vw_get_str(r, out->items[i].label, sizeof(out->items[i].label)))
			return false;
		out->items[i].item = (enum vmy_item)item;
	}
	return true;
}

bool vw_get_my_result(struct rbuf *r, size_t sql_len, size_t nrules, struct vmy_result *out)
{
	uint64_t limit, offset;
	uint32_t n;
	uint8_t kind, show;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!get_my_head(r, out) || !get_my_lists(r, out) || !rbuf_get_be64(r, &limit) ||
	    !vw_get_str(r, out->like, sizeof(out->like)) || !get_bool(r, &out->have_like) || !rbuf_get_be32(r, &n) ||
	    n > VMY_MAX_ITEMS)
		goto bad;
	out->limit = (long)(int64_t)limit;
	out->nnames = n;
	for (i = 0; i < n; i++)
		if (!vw_get_str(r, out->names[i], sizeof(out->names[i])))
			goto bad;
	if (!rbuf_get_u8(r, &kind) || kind > sizeof(stmt_kinds) / sizeof(stmt_kinds[0]) ||
	    !get_bool(r, &out->count_only) || !rbuf_get_be64(r, &offset) || !get_size(r, &out->stmt_len, sql_len) ||
	    !rbuf_get_be32(r, &n) || n > VMY_MAX_SCOPED)
		goto bad;
	out->stmt_kind = kind ? stmt_kinds[kind - 1] : NULL;
	out->offset = (long)(int64_t)offset;
	out->scope.nrefs = n;
	for (i = 0; i < n; i++)
		if (!get_ref(r, out->stmt_len, nrules, &out->scope.refs[i]))
			goto bad;
	if (!get_bool(r, &out->scope.too_many) || !rbuf_get_u8(r, &show) || show > VMY_SHOW_INDEX ||
	    !get_bool(r, &out->scope.full) || !vw_get_str(r, out->scope.db, sizeof(out->scope.db)) ||
	    !vw_get_str(r, out->scope.table, sizeof(out->scope.table)) || !rbuf_get_be32(r, &out->scope.like_start) ||
	    !rbuf_get_be32(r, &out->scope.like_len) || !rbuf_get_be32(r, &out->scope.where_start) ||
	    !vw_get_str(r, out->create_db, sizeof(out->create_db)) || out->scope.like_start > sql_len ||
	    out->scope.like_len > sql_len - out->scope.like_start || out->scope.where_start > out->stmt_len)
		goto bad;
	out->scope.show = (enum vmy_show_kind)show;
	if (!vw_get_str(r, out->approval, sizeof(out->approval)) ||
	    !get_write_plan(r, out->stmt_len, nrules, &out->write))
		goto bad;
	/* A write names its command and its table. */
	if (out->kind == VMY_WRITE &&
	    (!out->write.command[0] || !out->write.db[0] || !out->write.table[0] || out->write.rule < -1))
		goto bad;
	/* A read names its kind. */
	if (out->kind == VMY_READ && !out->stmt_kind)
		goto bad;
	return true;
bad:
	memset(out, 0, sizeof(*out));
	return false;
}
