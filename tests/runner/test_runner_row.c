/*
 * test_runner_row: one row as a 'D' frame, for both engines. NULL values
 * go out as -1, others as their length and bytes; a row that would pass a
 * cap queues nothing and says which cap; what went out is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_row.h"

static const char *const values[] = {"ab", NULL, ""};

static const void *value_at(void *arg, unsigned i, size_t *len)
{
	const char *const *v = arg;

	*len = v[i] ? strlen(v[i]) : 0;
	return v[i];
}

static struct runner_job caps(uint64_t rows, uint64_t bytes)
{
	struct runner_job job;

	runner_job_init(&job);
	job.max_rows = rows;
	job.max_bytes = bytes;
	job.have_rows = job.have_bytes = true;
	return job;
}

static void test_row_frame(void **state)
{
	struct runner_job job = caps(10, 1000);
	struct runner_sent sent = {0};
	struct runner_ctl ctl = {.fd = -1};
	enum frame_trunc trunc = FRAME_TRUNC_MAX_ROWS;
	const uint8_t *v;
	struct frame f;
	struct rbuf cur;
	uint16_t ncols;
	uint32_t len;
	size_t used;

	(void)state;
	wbuf_init(&ctl.out);
	assert_int_equal(runner_row_send(&ctl, &job, &sent, 3, value_at, (void *)values, &trunc), RUNNER_ROW_SENT);
	assert_int_equal(trunc, FRAME_TRUNC_NONE);
	assert_int_equal(frame_peek(ctl.out.data, ctl.out.len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	assert_int_equal(used, ctl.out.len);
	assert_int_equal(frame_row_check(&f, &ncols), FRAME_OK);
	assert_int_equal(frame_row_begin(&f, &ncols, &cur), FRAME_OK);
	assert_int_equal(ncols, 3);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_int_equal(len, 2);
	assert_memory_equal(v, "ab", 2);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_null(v);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_non_null(v);
	assert_int_equal(len, 0);
	/* Counted: the payload is the count, three lengths and two bytes. */
	assert_int_equal(sent.rows, 1);
	assert_int_equal(sent.bytes, 2 + 3 * 4 + 2);
	wbuf_free(&ctl.out);
}

static void test_row_past_a_cap_queues_nothing(void **state)
{
	struct runner_job job = caps(10, 15);
	struct runner_sent sent = {0};
	struct runner_ctl ctl = {.fd = -1};
	enum frame_trunc trunc = FRAME_TRUNC_NONE;

	(void)state;
	wbuf_init(&ctl.out);
	assert_int_equal(runner_row_send(&ctl, &job, &sent, 3, value_at, (void *)values, &trunc), RUNNER_ROW_TRUNCATED);
	assert_int_equal(trunc, FRAME_TRUNC_MAX_BYTES);
	assert_int_equal(ctl.out.len, 0);
	assert_int_equal(sent.rows, 0);
	assert_int_equal(sent.bytes, 0);
	wbuf_free(&ctl.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_frame),
		cmocka_unit_test(test_row_past_a_cap_queues_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
