/*
 * fuzz_frame: libFuzzer target for the job/result frame codec. Walks every
 * frame frame_peek finds in the input and runs the decoder for its type;
 * then re-encodes what a job decoded to and checks it decodes the same,
 * and re-encodes decoded 'K', 'C', 'E' and 'N' frames (with their
 * optional MySQL fields) and checks the bytes are the ones decoded.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/frame.h"

static struct frame_job job;
static struct frame_job again;

/* Writes the decoded job back out; a decodable job must survive a round trip. */
static void roundtrip_job(const struct frame_job *j)
{
	struct wbuf b;
	struct frame f;
	size_t used;
	uint16_t i;

	wbuf_init(&b);
	frame_begin(&b, FRAME_JOB);
	frame_put_u16(&b, j->npairs);
	for (i = 0; i < j->npairs; i++) {
		frame_put_str(&b, j->pairs[i].key.ptr, j->pairs[i].key.len);
		frame_put_str(&b, j->pairs[i].value.ptr, j->pairs[i].value.len);
	}
	frame_end(&b);
	if (b.failed || frame_peek(b.data, b.len, FRAME_MAX_PAYLOAD, &f, &used) != FRAME_OK || used != b.len ||
	    frame_decode_job(&f, &again) != FRAME_OK || again.npairs != j->npairs)
		abort();
	wbuf_free(&b);
}

/* The frame in b must be byte-for-byte the one decoded. */
static void check_same(struct wbuf *b, const struct frame *f)
{
	if (b->failed || b->len != (size_t)FRAME_HEADER_LEN + f->len ||
	    memcmp(b->data + FRAME_HEADER_LEN, f->payload, f->len) != 0)
		abort();
	wbuf_free(b);
}

static void put(struct wbuf *b, const struct frame_str *s)
{
	frame_put_str(b, s->ptr, s->len);
}

/* Re-encodes a decoded 'K' frame column by column. */
static void roundtrip_mycols(const struct frame *f, uint16_t n)
{
	struct rbuf cur;
	struct frame_mycol col;
	struct wbuf b;
	uint16_t m, i;

	if (frame_mycols_begin(f, &m, &cur) != FRAME_OK || m != n)
		abort();
	wbuf_init(&b);
	frame_begin(&b, FRAME_MYCOLS);
	frame_put_u16(&b, n);
	for (i = 0; i < n; i++) {
		if (frame_mycols_next(&cur, &col) != FRAME_OK)
			abort();
		put(&b, &col.schema);
		put(&b, &col.table);
		put(&b, &col.org_table);
		put(&b, &col.name);
		put(&b, &col.org_name);
		frame_put_u16(&b, col.charset);
		frame_put_u32(&b, col.length);
		frame_put_u8(&b, col.type);
		frame_put_u16(&b, col.flags);
		frame_put_u8(&b, col.decimals);
	}
	frame_end(&b);
	check_same(&b, f);
}

/* A 'C' frame carries its warning count exactly when the payload runs past the tag. */
static void roundtrip_complete(const struct frame *f, const struct frame_complete *c)
{
	struct wbuf b;

	wbuf_init(&b);
	frame_begin(&b, FRAME_COMPLETE);
	frame_put_u64(&b, c->rows);
	frame_put_u8(&b, c->truncated);
	put(&b, &c->tag);
	if (f->len > 8 + 1 + 4 + c->tag.len)
		frame_put_u16(&b, c->warnings);
	else if (c->warnings != 0)
		abort();
	frame_end(&b);
	check_same(&b, f);
}

/* The optional position and my_errno: written back only as far as the frame had them. */
static void roundtrip_error(const struct frame *f, const struct frame_error *e)
{
	struct wbuf b;
	size_t base = 5 * 4 + e->sqlstate.len + e->code.len + e->message.len + e->detail.len + e->hint.len;

	wbuf_init(&b);
	frame_begin(&b, f->type);
	put(&b, &e->sqlstate);
	put(&b, &e->code);
	put(&b, &e->message);
	put(&b, &e->detail);
	put(&b, &e->hint);
	if (f->len > base)
		put(&b, &e->position);
	else if (e->position.len != 0 || e->my_errno.len != 0)
		abort();
	if (f->len > base + 4 + e->position.len)
		put(&b, &e->my_errno);
	else if (e->my_errno.len != 0)
		abort();
	frame_end(&b);
	check_same(&b, f);
}

static void decode_one(const struct frame *f)
{
	struct rbuf cur;
	struct frame_column col;
	struct frame_mycol mycol;
	struct frame_complete c;
	struct frame_error e;
	uint16_t n, i;

	switch (f->type) {
	case FRAME_JOB:
	case FRAME_CONNECT:
		if (frame_decode_job(f, &job) == FRAME_OK) {
			(void)frame_job_get(&job, "sql");
			roundtrip_job(&job);
		}
		break;
	case FRAME_CANCEL:
		(void)frame_check_cancel(f);
		break;
	case FRAME_ROWDESC:
		if (frame_rowdesc_begin(f, &n, &cur) == FRAME_OK) {
			for (i = 0; i < n; i++)
				if (frame_rowdesc_next(&cur, &col) != FRAME_OK)
					abort();
			if (rbuf_left(&cur) != 0)
				abort();
		}
		break;
	case FRAME_PARAMDESC:
		if (frame_paramdesc_begin(f, &n, &cur) == FRAME_OK) {
			uint32_t oid;

			for (i = 0; i < n; i++)
				if (frame_paramdesc_next(&cur, &oid) != FRAME_OK)
					abort();
			if (rbuf_left(&cur) != 0 || frame_paramdesc_next(&cur, &oid) == FRAME_OK)
				abort();
		}
		break;
	case FRAME_COPY_START: {
		uint8_t format;
		int16_t cf;

		if (frame_copy_start_begin(f, &format, &n, &cur) == FRAME_OK) {
			for (i = 0; i < n; i++)
				if (frame_copy_start_next(&cur, &cf) != FRAME_OK || (cf != 0 && cf != 1))
					abort();
			if (rbuf_left(&cur) != 0 || format > 1)
				abort();
		}
		break;
	}
	case FRAME_COPY_DATA:
		break;
	case FRAME_MYCOLS:
		if (frame_mycols_begin(f, &n, &cur) == FRAME_OK) {
			for (i = 0; i < n; i++)
				if (frame_mycols_next(&cur, &mycol) != FRAME_OK)
					abort();
			if (rbuf_left(&cur) != 0 || frame_mycols_next(&cur, &mycol) == FRAME_OK)
				abort();
			roundtrip_mycols(f, n);
		}
		break;
	case FRAME_ROW:
		(void)frame_row_check(f, &n);
		break;
	case FRAME_COMPLETE:
		if (frame_decode_complete(f, &c) == FRAME_OK)
			roundtrip_complete(f, &c);
		break;
	case FRAME_ERROR:
	case FRAME_NOTICE:
		if (frame_decode_error(f, &e) == FRAME_OK)
			roundtrip_error(f, &e);
		break;
	case FRAME_BACKEND: {
		struct frame_backend be;

		if (frame_decode_backend(f, &be) == FRAME_OK) {
			struct wbuf b;

			if (be.pid == 0 || (be.salt.len && (be.salt.len < 4 || be.salt.len > FRAME_SCRAM_SALT_MAX ||
							    be.iterations == 0)))
				abort();
			wbuf_init(&b);
			frame_begin(&b, FRAME_BACKEND);
			frame_put_u32(&b, be.pid);
			if (be.salt.len) {
				frame_put_str(&b, be.salt.ptr, be.salt.len);
				frame_put_u32(&b, be.iterations);
			}
			frame_end(&b);
			check_same(&b, f);
		}
		break;
	}
	default:
		abort(); /* frame_peek only returns known types */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct frame f;
		size_t used = 0;
		uint8_t *copy;

		if (frame_peek(data + off, size - off, FRAME_MAX_PAYLOAD, &f, &used) != FRAME_OK)
			break;
		if (used < FRAME_HEADER_LEN || used > size - off)
			abort();
		/* Decode from an exact-size copy so any overread hits the redzone. */
		copy = malloc(used);
		if (!copy)
			return 0;
		memcpy(copy, data + off, used);
		f.payload = copy + FRAME_HEADER_LEN;
		decode_one(&f);
		free(copy);
		off += used;
	}
	return 0;
}
