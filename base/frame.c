/*
 * frame: codec for the job/result frames between airlockd and
 * airlock-runner (layout in frame.h). Pure: no I/O, no hidden allocation
 * on the decoding side. Decoded strings are views into the caller's
 * buffer; the writer appends to a caller-owned wbuf.
 *
 * Every decoder reads through a bounded cursor (struct rbuf): each getter
 * checks what remains before it reads, and every frame must be consumed
 * exactly (no trailing bytes).
 */
#include "base/frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

static bool known_type(uint8_t t)
{
	switch (t) {
	case FRAME_JOB:
	case FRAME_CONNECT:
	case FRAME_CANCEL:
	case FRAME_BACKEND:
	case FRAME_ROWDESC:
	case FRAME_PARAMDESC:
	case FRAME_COPY_START:
	case FRAME_COPY_DATA:
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

enum frame_status frame_peek(const uint8_t *buf, size_t len, uint32_t max_payload, struct frame *out, size_t *consumed)
{
	struct rbuf r;
	const uint8_t *payload;
	uint32_t plen;
	uint8_t type = 0;

	if (max_payload > FRAME_MAX_PAYLOAD)
		max_payload = FRAME_MAX_PAYLOAD;
	rbuf_init(&r, buf, len);
	if (rbuf_get_u8(&r, &type) && !known_type(type))
		return FRAME_ERR;
	if (!rbuf_get_be32(&r, &plen)) {
		if (consumed)
			*consumed = FRAME_HEADER_LEN;
		return FRAME_NEED_MORE;
	}
	if (plen > max_payload)
		return FRAME_ERR;
	if (!rbuf_get_bytes(&r, plen, &payload)) {
		if (consumed)
			*consumed = (size_t)FRAME_HEADER_LEN + plen;
		return FRAME_NEED_MORE;
	}
	out->type = type;
	out->len = plen;
	out->payload = payload;
	if (consumed)
		*consumed = (size_t)FRAME_HEADER_LEN + plen;
	return FRAME_OK;
}

static void cur_init(struct rbuf *c, const struct frame *f)
{
	rbuf_init(c, f->payload, f->len);
}

/* A u32 length and that many bytes; nothing consumed when either is missing. */
static bool get_str(struct rbuf *c, struct frame_str *s)
{
	struct rbuf t = *c;
	const uint8_t *p;
	uint32_t n;

	if (!rbuf_get_be32(&t, &n) || !rbuf_get_bytes(&t, n, &p))
		return false;
	s->ptr = (const char *)p;
	s->len = n;
	*c = t;
	return true;
}

/* A cursor's next(): FRAME_OK when the read went, else FRAME_ERR with cur emptied so every later next fails too. */
static enum frame_status cur_step(struct rbuf *cur, bool read)
{
	if (read)
		return FRAME_OK;
	rbuf_init(cur, NULL, 0);
	return FRAME_ERR;
}

/* OK only when every byte was consumed. */
static enum frame_status cur_finish(const struct rbuf *c)
{
	return rbuf_left(c) == 0 ? FRAME_OK : FRAME_ERR;
}

static bool str_eq(const struct frame_str *a, const struct frame_str *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

enum frame_status frame_decode_job(const struct frame *f, struct frame_job *out)
{
	struct rbuf c;
	uint16_t i, j;

	if (f->type != FRAME_JOB && f->type != FRAME_CONNECT)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_be16(&c, &out->npairs))
		return FRAME_ERR;
	if (out->npairs > FRAME_MAX_PAIRS) {
		out->npairs = 0;
		return FRAME_ERR;
	}
	/* Each pair needs at least its two length words. */
	if (rbuf_left(&c) / 8 < out->npairs) {
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

static bool get_column(struct rbuf *c, struct frame_column *col)
{
	return get_str(c, &col->name) && rbuf_get_be32(c, &col->table_oid) && rbuf_get_be16_signed(c, &col->attnum) &&
	       rbuf_get_be32(c, &col->type_oid) && rbuf_get_be16_signed(c, &col->typlen) &&
	       rbuf_get_be32_signed(c, &col->typmod) && rbuf_get_be16_signed(c, &col->format) &&
	       (col->format == 0 || col->format == 1);
}

/* Smallest encoded column: empty name plus the fixed fields. */
#define COLUMN_MIN_LEN (4 + 4 + 2 + 4 + 2 + 4 + 2)

static bool get_mycol(struct rbuf *c, struct frame_mycol *col)
{
	return get_str(c, &col->schema) && get_str(c, &col->table) && get_str(c, &col->org_table) &&
	       get_str(c, &col->name) && get_str(c, &col->org_name) && rbuf_get_be16(c, &col->charset) &&
	       rbuf_get_be32(c, &col->length) && rbuf_get_u8(c, &col->type) && rbuf_get_be16(c, &col->flags) &&
	       rbuf_get_u8(c, &col->decimals);
}

/* Smallest encoded MySQL column: five empty strings plus the fixed fields. */
#define MYCOL_MIN_LEN (5 * 4 + 2 + 4 + 1 + 2 + 1)

/* Reads one column of a 'T' or a 'K' frame, only to check it. */
static bool check_column(struct rbuf *c, uint8_t type)
{
	struct frame_column pg;
	struct frame_mycol my;

	return type == FRAME_ROWDESC ? get_column(c, &pg) : get_mycol(c, &my);
}

/*
 * The column list of a 'T' or 'K' frame: every column is checked up front
 * (so next() can only fail on misuse) and cur is left at the first one.
 */
static enum frame_status columns_begin(const struct frame *f, uint8_t type, size_t min_len, uint16_t *ncols,
				       struct rbuf *cur)
{
	struct rbuf c;
	uint16_t n, i;

	if (f->type != type)
		goto err;
	cur_init(&c, f);
	if (!rbuf_get_be16(&c, &n) || n > FRAME_MAX_COLS || rbuf_left(&c) / min_len < n)
		goto err;
	*cur = c;
	for (i = 0; i < n; i++)
		if (!check_column(&c, type))
			goto err;
	if (cur_finish(&c) != FRAME_OK)
		goto err;
	*ncols = n;
	return FRAME_OK;
err:
	*ncols = 0;
	rbuf_init(cur, NULL, 0);
	return FRAME_ERR;
}

enum frame_status frame_rowdesc_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur)
{
	return columns_begin(f, FRAME_ROWDESC, COLUMN_MIN_LEN, ncols, cur);
}

enum frame_status frame_rowdesc_next(struct rbuf *cur, struct frame_column *col)
{
	return cur_step(cur, get_column(cur, col));
}

enum frame_status frame_paramdesc_begin(const struct frame *f, uint16_t *nparams, struct rbuf *cur)
{
	struct rbuf c;
	uint16_t n;

	*nparams = 0;
	rbuf_init(cur, NULL, 0);
	if (f->type != FRAME_PARAMDESC)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_be16(&c, &n) || rbuf_left(&c) != (size_t)n * 4)
		return FRAME_ERR;
	*nparams = n;
	*cur = c;
	return FRAME_OK;
}

enum frame_status frame_paramdesc_next(struct rbuf *cur, uint32_t *type_oid)
{
	return cur_step(cur, rbuf_get_be32(cur, type_oid));
}

enum frame_status frame_copy_start_begin(const struct frame *f, uint8_t *format, uint16_t *ncols, struct rbuf *cur)
{
	struct rbuf c;
	uint16_t n;
	uint8_t fmt;

	*ncols = 0;
	rbuf_init(cur, NULL, 0);
	if (f->type != FRAME_COPY_START)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_u8(&c, &fmt) || fmt > 1 || !rbuf_get_be16(&c, &n) || n > FRAME_MAX_COLS ||
	    rbuf_left(&c) != (size_t)n * 2)
		return FRAME_ERR;
	for (struct rbuf t = c; rbuf_left(&t);) {
		int16_t v;

		if (!rbuf_get_be16_signed(&t, &v) || (v != 0 && v != 1))
			return FRAME_ERR;
	}
	*format = fmt;
	*ncols = n;
	*cur = c;
	return FRAME_OK;
}

enum frame_status frame_copy_start_next(struct rbuf *cur, int16_t *format)
{
	return cur_step(cur, rbuf_get_be16_signed(cur, format));
}

enum frame_status frame_mycols_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur)
{
	return columns_begin(f, FRAME_MYCOLS, MYCOL_MIN_LEN, ncols, cur);
}

enum frame_status frame_mycols_next(struct rbuf *cur, struct frame_mycol *col)
{
	return cur_step(cur, get_mycol(cur, col));
}

enum frame_status frame_row_check(const struct frame *f, uint16_t *ncols)
{
	struct rbuf c;
	uint16_t n, i;
	int32_t vlen;

	*ncols = 0;
	if (f->type != FRAME_ROW)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_be16(&c, &n) || n > FRAME_MAX_COLS || rbuf_left(&c) / 4 < n)
		return FRAME_ERR;
	for (i = 0; i < n; i++) {
		if (!rbuf_get_be32_signed(&c, &vlen))
			return FRAME_ERR;
		if (vlen == -1)
			continue;
		if (vlen < 0 || !rbuf_skip(&c, (size_t)vlen))
			return FRAME_ERR;
	}
	if (cur_finish(&c) != FRAME_OK)
		return FRAME_ERR;
	*ncols = n;
	return FRAME_OK;
}

enum frame_status frame_row_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur)
{
	*ncols = 0;
	if (f->type != FRAME_ROW)
		return FRAME_ERR;
	cur_init(cur, f);
	if (!rbuf_get_be16(cur, ncols) || *ncols > FRAME_MAX_COLS) {
		*ncols = 0;
		return FRAME_ERR;
	}
	return FRAME_OK;
}

enum frame_status frame_row_next(struct rbuf *cur, const uint8_t **value, uint32_t *len)
{
	int32_t vlen;

	*value = NULL;
	*len = 0;
	if (!rbuf_get_be32_signed(cur, &vlen) || vlen < -1)
		return FRAME_ERR;
	if (vlen == -1)
		return FRAME_OK;
	if (!rbuf_get_bytes(cur, (size_t)vlen, value))
		return FRAME_ERR;
	*len = (uint32_t)vlen;
	return FRAME_OK;
}

enum frame_status frame_decode_complete(const struct frame *f, struct frame_complete *out)
{
	struct rbuf c;

	if (f->type != FRAME_COMPLETE)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_be64(&c, &out->rows) || !rbuf_get_u8(&c, &out->truncated) || !get_str(&c, &out->tag))
		return FRAME_ERR;
	if (out->truncated > FRAME_TRUNC_MAX_BYTES)
		return FRAME_ERR;
	out->warnings = 0;
	if (rbuf_left(&c) > 0 && !rbuf_get_be16(&c, &out->warnings))
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

bool frame_error_coded(const struct frame_error *e, const char *code)
{
	return e->code.len == strlen(code) && !memcmp(e->code.ptr, code, e->code.len);
}

enum frame_status frame_decode_error(const struct frame *f, struct frame_error *out)
{
	struct rbuf c;

	if (f->type != FRAME_ERROR && f->type != FRAME_NOTICE)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!get_str(&c, &out->sqlstate) || !get_str(&c, &out->code) || !get_str(&c, &out->message) ||
	    !get_str(&c, &out->detail) || !get_str(&c, &out->hint))
		return FRAME_ERR;
	if (!sqlstate_ok(&out->sqlstate))
		return FRAME_ERR;
	out->position.ptr = NULL;
	out->position.len = 0;
	out->my_errno.ptr = NULL;
	out->my_errno.len = 0;
	if (rbuf_left(&c) > 0 && !get_str(&c, &out->position))
		return FRAME_ERR;
	if (!digits_ok(&out->position, 9, UINT32_MAX))
		return FRAME_ERR;
	/* When present, the MySQL errno is a number that fits the ERR packet's u16. */
	if (rbuf_left(&c) > 0 &&
	    (!get_str(&c, &out->my_errno) || out->my_errno.len == 0 || !digits_ok(&out->my_errno, 5, UINT16_MAX)))
		return FRAME_ERR;
	return cur_finish(&c);
}

enum frame_status frame_check_cancel(const struct frame *f)
{
	return f->type == FRAME_CANCEL && f->len == 0 ? FRAME_OK : FRAME_ERR;
}

enum frame_status frame_decode_backend(const struct frame *f, struct frame_backend *out)
{
	struct rbuf c;

	*out = (struct frame_backend){0};
	if (f->type != FRAME_BACKEND)
		return FRAME_ERR;
	cur_init(&c, f);
	if (!rbuf_get_be32(&c, &out->pid) || out->pid == 0 || out->pid > INT32_MAX)
		goto bad;
	if (rbuf_left(&c) > 0 &&
	    (!get_str(&c, &out->salt) || out->salt.len < 4 || out->salt.len > FRAME_SCRAM_SALT_MAX ||
	     !rbuf_get_be32(&c, &out->iterations) || out->iterations == 0))
		goto bad;
	if (cur_finish(&c) == FRAME_OK)
		return FRAME_OK;
bad:
	*out = (struct frame_backend){0};
	return FRAME_ERR;
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

	if (wbuf_message_len(b, FRAME_HEADER_LEN, FRAME_MAX_PAYLOAD, &plen))
		wbuf_patch_be32(b, b->mark + 1, (uint32_t)plen);
}

bool frame_tag_rows(const char *tag, uint64_t *rows)
{
	const char *sp = tag ? strrchr(tag, ' ') : NULL;
	unsigned long long v;
	char *end;

	if (!sp || sp[1] < '0' || sp[1] > '9')
		return false;
	errno = 0;
	v = strtoull(sp + 1, &end, 10);
	if (*end != '\0' || errno == ERANGE)
		return false;
	*rows = (uint64_t)v;
	return true;
}
