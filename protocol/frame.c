/*
 * frame: codec for the job/result frames between airlockd and
 * airlock-runner (layout in frame.h). Pure: no I/O, no hidden allocation
 * on the decoding side. Decoded strings are views into the caller's
 * buffer; the writer appends to a caller-owned wbuf.
 *
 * Every decoder reads through a bounded cursor: each getter checks what
 * remains before it reads, and every frame must be consumed exactly (no
 * trailing bytes).
 */
#include "protocol/frame.h"

#include <string.h>

/* ---- reading ---- */

static bool known_type(uint8_t t)
{
	switch (t) {
	case FRAME_JOB:
	case FRAME_CONNECT:
	case FRAME_CANCEL:
	case FRAME_ROWDESC:
	case FRAME_MYCOLS:
	case FRAME_ROW:
	case FRAME_COMPLETE:
	case FRAME_ERROR:
	case FRAME_NOTICE:
		return true;
	default:
		return false;
	}
}

static uint32_t load_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

enum frame_status frame_peek(const uint8_t *buf, size_t len, uint32_t max_payload,
			     struct frame *out, size_t *consumed)
{
	uint32_t plen;

	if (max_payload > FRAME_MAX_PAYLOAD)
		max_payload = FRAME_MAX_PAYLOAD;
	if (len >= 1 && !known_type(buf[0]))
		return FRAME_ERR;
	if (len < FRAME_HEADER_LEN) {
		if (consumed)
			*consumed = FRAME_HEADER_LEN;
		return FRAME_NEED_MORE;
	}
	plen = load_u32(buf + 1);
	if (plen > max_payload)
		return FRAME_ERR;
	if (len - FRAME_HEADER_LEN < plen) {
		if (consumed)
			*consumed = (size_t)FRAME_HEADER_LEN + plen;
		return FRAME_NEED_MORE;
	}
	out->type = buf[0];
	out->len = plen;
	out->payload = buf + FRAME_HEADER_LEN;
	if (consumed)
		*consumed = (size_t)FRAME_HEADER_LEN + plen;
	return FRAME_OK;
}

static void cur_init(struct frame_cursor *c, const struct frame *f)
{
	c->p = f->payload;
	c->end = f->payload + f->len;
	c->failed = false;
}

static size_t cur_left(const struct frame_cursor *c)
{
	return (size_t)(c->end - c->p);
}

static bool cur_need(struct frame_cursor *c, size_t n)
{
	if (c->failed || cur_left(c) < n) {
		c->failed = true;
		return false;
	}
	return true;
}

static bool get_u8(struct frame_cursor *c, uint8_t *v)
{
	if (!cur_need(c, 1))
		return false;
	*v = c->p[0];
	c->p += 1;
	return true;
}

static bool get_u16(struct frame_cursor *c, uint16_t *v)
{
	if (!cur_need(c, 2))
		return false;
	*v = (uint16_t)((uint16_t)c->p[0] << 8 | c->p[1]);
	c->p += 2;
	return true;
}

static bool get_i16(struct frame_cursor *c, int16_t *v)
{
	uint16_t u;

	if (!get_u16(c, &u))
		return false;
	*v = (int16_t)u;
	return true;
}

static bool get_u32(struct frame_cursor *c, uint32_t *v)
{
	if (!cur_need(c, 4))
		return false;
	*v = load_u32(c->p);
	c->p += 4;
	return true;
}

static bool get_i32(struct frame_cursor *c, int32_t *v)
{
	uint32_t u;

	if (!get_u32(c, &u))
		return false;
	*v = (int32_t)u;
	return true;
}

static bool get_u64(struct frame_cursor *c, uint64_t *v)
{
	uint32_t hi, lo;

	if (!get_u32(c, &hi) || !get_u32(c, &lo))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

static bool get_str(struct frame_cursor *c, struct frame_str *s)
{
	uint32_t n;

	if (!get_u32(c, &n) || !cur_need(c, n))
		return false;
	s->ptr = (const char *)c->p;
	s->len = n;
	c->p += n;
	return true;
}

/* OK only when nothing failed and every byte was consumed. */
static enum frame_status cur_finish(const struct frame_cursor *c)
{
	return !c->failed && c->p == c->end ? FRAME_OK : FRAME_ERR;
}

static bool str_eq(const struct frame_str *a, const struct frame_str *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

enum frame_status frame_decode_job(const struct frame *f, struct frame_job *out)
{
	struct frame_cursor c;
	uint16_t i, j;

	if (f->type != FRAME_JOB && f->type != FRAME_CONNECT)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!get_u16(&c, &out->npairs))
		return FRAME_ERR;
	if (out->npairs > FRAME_MAX_PAIRS) {
		out->npairs = 0;
		return FRAME_ERR;
	}
	/* Each pair needs at least its two length words. */
	if (cur_left(&c) / 8 < out->npairs) {
		out->npairs = 0;
		return FRAME_ERR;
	}
	for (i = 0; i < out->npairs; i++) {
		if (!get_str(&c, &out->pairs[i].key) || !get_str(&c, &out->pairs[i].value))
			goto err;
		/* A repeated key would let the two ends disagree on its value. */
		for (j = 0; j < i; j++)
			if (str_eq(&out->pairs[j].key, &out->pairs[i].key))
				goto err;
	}
	if (cur_finish(&c) != FRAME_OK)
		goto err;
	return FRAME_OK;
err:
	out->npairs = 0;
	return FRAME_ERR;
}

const struct frame_str *frame_job_get(const struct frame_job *job, const char *key)
{
	size_t klen = strlen(key);
	uint16_t i;

	for (i = 0; i < job->npairs && i < FRAME_MAX_PAIRS; i++) {
		const struct frame_str *k = &job->pairs[i].key;

		if (k->len == klen && (klen == 0 || memcmp(k->ptr, key, klen) == 0))
			return &job->pairs[i].value;
	}
	return NULL;
}

static bool get_column(struct frame_cursor *c, struct frame_column *col)
{
	if (!get_str(c, &col->name) || !get_u32(c, &col->table_oid) ||
	    !get_i16(c, &col->attnum) || !get_u32(c, &col->type_oid) ||
	    !get_i16(c, &col->typlen) || !get_i32(c, &col->typmod) ||
	    !get_i16(c, &col->format))
		return false;
	if (col->format != 0) {
		c->failed = true;
		return false;
	}
	return true;
}

/* Smallest encoded column: empty name plus the fixed fields. */
#define COLUMN_MIN_LEN (4 + 4 + 2 + 4 + 2 + 4 + 2)

/*
 * The column list of a 'T' or 'K' frame: every column is checked up front
 * (so next() can only fail on misuse) and cur is left at the first one.
 */
static enum frame_status columns_begin(const struct frame *f, uint8_t type, size_t min_len,
				       bool (*check)(struct frame_cursor *c), uint16_t *ncols,
				       struct frame_cursor *cur)
{
	struct frame_cursor c;
	uint16_t n, i;

	if (f->type != type)
		goto err;
	cur_init(&c, f);
	if (!get_u16(&c, &n) || n > FRAME_MAX_COLS || cur_left(&c) / min_len < n)
		goto err;
	*cur = c;
	for (i = 0; i < n; i++)
		if (!check(&c))
			goto err;
	if (cur_finish(&c) != FRAME_OK)
		goto err;
	*ncols = n;
	return FRAME_OK;
err:
	*ncols = 0;
	cur->p = cur->end = NULL;
	cur->failed = true;
	return FRAME_ERR;
}

static bool check_column(struct frame_cursor *c)
{
	struct frame_column col;

	return get_column(c, &col);
}

enum frame_status frame_rowdesc_begin(const struct frame *f, uint16_t *ncols, struct frame_cursor *cur)
{
	return columns_begin(f, FRAME_ROWDESC, COLUMN_MIN_LEN, check_column, ncols, cur);
}

enum frame_status frame_rowdesc_next(struct frame_cursor *cur, struct frame_column *col)
{
	if (cur->failed || cur->p == NULL)
		return FRAME_ERR;
	return get_column(cur, col) ? FRAME_OK : FRAME_ERR;
}

static bool get_mycol(struct frame_cursor *c, struct frame_mycol *col)
{
	return get_str(c, &col->schema) && get_str(c, &col->table) && get_str(c, &col->org_table) &&
	       get_str(c, &col->name) && get_str(c, &col->org_name) && get_u16(c, &col->charset) &&
	       get_u32(c, &col->length) && get_u8(c, &col->type) && get_u16(c, &col->flags) &&
	       get_u8(c, &col->decimals);
}

/* Smallest encoded MySQL column: five empty strings plus the fixed fields. */
#define MYCOL_MIN_LEN (5 * 4 + 2 + 4 + 1 + 2 + 1)

static bool check_mycol(struct frame_cursor *c)
{
	struct frame_mycol col;

	return get_mycol(c, &col);
}

enum frame_status frame_mycols_begin(const struct frame *f, uint16_t *ncols, struct frame_cursor *cur)
{
	return columns_begin(f, FRAME_MYCOLS, MYCOL_MIN_LEN, check_mycol, ncols, cur);
}

enum frame_status frame_mycols_next(struct frame_cursor *cur, struct frame_mycol *col)
{
	if (cur->failed || cur->p == NULL)
		return FRAME_ERR;
	return get_mycol(cur, col) ? FRAME_OK : FRAME_ERR;
}

enum frame_status frame_row_check(const struct frame *f, uint16_t *ncols)
{
	struct frame_cursor c;
	uint16_t n, i;
	int32_t vlen;

	*ncols = 0;
	if (f->type != FRAME_ROW)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!get_u16(&c, &n) || n > FRAME_MAX_COLS || cur_left(&c) / 4 < n)
		return FRAME_ERR;
	for (i = 0; i < n; i++) {
		if (!get_i32(&c, &vlen))
			return FRAME_ERR;
		if (vlen == -1)
			continue;
		if (vlen < 0 || !cur_need(&c, (size_t)vlen))
			return FRAME_ERR;
		c.p += vlen;
	}
	if (cur_finish(&c) != FRAME_OK)
		return FRAME_ERR;
	*ncols = n;
	return FRAME_OK;
}

enum frame_status frame_decode_complete(const struct frame *f, struct frame_complete *out)
{
	struct frame_cursor c;

	if (f->type != FRAME_COMPLETE)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!get_u64(&c, &out->rows) || !get_u8(&c, &out->truncated) || !get_str(&c, &out->tag))
		return FRAME_ERR;
	if (out->truncated > FRAME_TRUNC_MAX_BYTES)
		return FRAME_ERR;
	out->warnings = 0;
	if (c.p < c.end && !get_u16(&c, &out->warnings))
		return FRAME_ERR;
	return cur_finish(&c);
}

static bool sqlstate_ok(const struct frame_str *s)
{
	uint32_t i;

	if (s->len != 5)
		return false;
	for (i = 0; i < 5; i++) {
		char ch = s->ptr[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')))
			return false;
	}
	return true;
}

/* At most max_len decimal digits (none is fine) whose value is at most max. */
static bool digits_ok(const struct frame_str *s, uint32_t max_len, uint32_t max)
{
	uint64_t v = 0;
	uint32_t i;

	if (s->len > max_len)
		return false;
	for (i = 0; i < s->len; i++) {
		if (s->ptr[i] < '0' || s->ptr[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s->ptr[i] - '0');
	}
	return v <= max;
}

enum frame_status frame_decode_error(const struct frame *f, struct frame_error *out)
{
	struct frame_cursor c;

	if (f->type != FRAME_ERROR && f->type != FRAME_NOTICE)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!get_str(&c, &out->sqlstate) || !get_str(&c, &out->code) ||
	    !get_str(&c, &out->message) || !get_str(&c, &out->detail) ||
	    !get_str(&c, &out->hint))
		return FRAME_ERR;
	if (!sqlstate_ok(&out->sqlstate))
		return FRAME_ERR;
	out->position.ptr = NULL;
	out->position.len = 0;
	out->my_errno.ptr = NULL;
	out->my_errno.len = 0;
	if (c.p < c.end && !get_str(&c, &out->position))
		return FRAME_ERR;
	if (!digits_ok(&out->position, 9, UINT32_MAX))
		return FRAME_ERR;
	/* When present, the MySQL errno is a number that fits the ERR packet's u16. */
	if (c.p < c.end && (!get_str(&c, &out->my_errno) || out->my_errno.len == 0 ||
			    !digits_ok(&out->my_errno, 5, UINT16_MAX)))
		return FRAME_ERR;
	return cur_finish(&c);
}

enum frame_status frame_check_cancel(const struct frame *f)
{
	return f->type == FRAME_CANCEL && f->len == 0 ? FRAME_OK : FRAME_ERR;
}

/* ---- writing ---- */

/* The open frame, header included, never grows past this. */
#define FRAME_LIMIT ((size_t)FRAME_HEADER_LEN + FRAME_MAX_PAYLOAD)

void frame_begin(struct wbuf *b, uint8_t type)
{
	if (b->failed)
		return;
	(void)wbuf_begin(b, FRAME_LIMIT);
	wbuf_put_u8(b, type);
	wbuf_put_be32(b, 0);
}

void frame_put_str(struct wbuf *b, const char *s, size_t len)
{
	if (len > FRAME_MAX_PAYLOAD) {
		b->failed = true;
		return;
	}
	wbuf_put_be32(b, (uint32_t)len);
	wbuf_put_bytes(b, s, len);
}

void frame_put_cstr(struct wbuf *b, const char *s)
{
	if (!s)
		s = "";
	frame_put_str(b, s, strlen(s));
}

void frame_end(struct wbuf *b)
{
	size_t plen;

	if (b->failed)
		return;
	if (b->len < b->mark + FRAME_HEADER_LEN) {
		b->failed = true;
		return;
	}
	plen = b->len - b->mark - FRAME_HEADER_LEN;
	if (plen > FRAME_MAX_PAYLOAD) {
		b->failed = true;
		return;
	}
	wbuf_patch_be32(b, b->mark + 1, (uint32_t)plen);
}
