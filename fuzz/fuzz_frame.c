/*
 * fuzz_frame: libFuzzer target for the job/result frame codec. Walks every
 * frame frame_peek finds in the input and runs the decoder for its type;
 * then re-encodes what a job decoded to and checks it decodes the same.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/frame.h"

static struct frame_job job;
static struct frame_job again;

/* Writes the decoded job back out; a decodable job must survive a round trip. */
static void roundtrip_job(const struct frame_job *j)
{
	struct frame_buf b;
	struct frame f;
	size_t used;
	uint16_t i;

	frame_buf_init(&b);
	frame_begin(&b, FRAME_JOB);
	frame_put_u16(&b, j->npairs);
	for (i = 0; i < j->npairs; i++) {
		frame_put_str(&b, j->pairs[i].key.ptr, j->pairs[i].key.len);
		frame_put_str(&b, j->pairs[i].value.ptr, j->pairs[i].value.len);
	}
	frame_end(&b);
	if (b.failed ||
	    frame_peek(b.data, b.len, FRAME_MAX_PAYLOAD, &f, &used) != FRAME_OK ||
	    used != b.len || frame_decode_job(&f, &again) != FRAME_OK ||
	    again.npairs != j->npairs)
		abort();
	frame_buf_free(&b);
}

static void decode_one(const struct frame *f)
{
	struct frame_cursor cur;
	struct frame_column col;
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
			if (cur.p != cur.end)
				abort();
		}
		break;
	case FRAME_ROW:
		(void)frame_row_check(f, &n);
		break;
	case FRAME_COMPLETE:
		(void)frame_decode_complete(f, &c);
		break;
	case FRAME_ERROR:
	case FRAME_NOTICE:
		(void)frame_decode_error(f, &e);
		break;
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
