/*
 * test_runner_cap: the runner's one decision on max_rows and max_bytes.
 * Rows are checked before bytes; a COPY header counts bytes only; a frame
 * the codec cannot carry is cut as max_bytes; what was sent never passes
 * either cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runner/runner_cap.h"

static struct runner_job caps(uint64_t rows, uint64_t bytes)
{
	struct runner_job job;

	runner_job_init(&job);
	job.max_rows = rows;
	job.max_bytes = bytes;
	job.have_rows = job.have_bytes = true;
	return job;
}

static void test_rows_stop_at_max_rows(void **state)
{
	struct runner_job job = caps(3, 1000);
	struct runner_sent sent = {0};

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(runner_cap_check(&job, &sent, 10, true), FRAME_TRUNC_NONE);
		runner_cap_count(&sent, 10, true);
	}
	assert_int_equal(runner_cap_check(&job, &sent, 10, true), FRAME_TRUNC_MAX_ROWS);
	/* Rows first: a row past both caps reports max_rows. */
	assert_int_equal(runner_cap_check(&job, &sent, 5000, true), FRAME_TRUNC_MAX_ROWS);
	assert_int_equal(sent.rows, 3);
	assert_int_equal(sent.bytes, 30);
}

static void test_bytes_stop_before_max_bytes(void **state)
{
	struct runner_job job = caps(100, 25);
	struct runner_sent sent = {0};

	(void)state;
	assert_int_equal(runner_cap_check(&job, &sent, 10, true), FRAME_TRUNC_NONE);
	runner_cap_count(&sent, 10, true);
	assert_int_equal(runner_cap_check(&job, &sent, 15, true), FRAME_TRUNC_NONE);
	runner_cap_count(&sent, 15, true);
	/* Exactly at the cap: the next byte is one too many. */
	assert_int_equal(runner_cap_check(&job, &sent, 1, true), FRAME_TRUNC_MAX_BYTES);
	assert_int_equal(runner_cap_check(&job, &sent, 0, true), FRAME_TRUNC_NONE);
}

static void test_header_counts_bytes_only(void **state)
{
	struct runner_job job = caps(1, 100);
	struct runner_sent sent = {0};

	(void)state;
	assert_int_equal(runner_cap_check(&job, &sent, 20, false), FRAME_TRUNC_NONE);
	runner_cap_count(&sent, 20, false);
	assert_int_equal(sent.rows, 0);
	assert_int_equal(runner_cap_check(&job, &sent, 20, true), FRAME_TRUNC_NONE);
	runner_cap_count(&sent, 20, true);
	assert_int_equal(runner_cap_check(&job, &sent, 20, true), FRAME_TRUNC_MAX_ROWS);
	assert_int_equal(runner_cap_check(&job, &sent, 61, false), FRAME_TRUNC_MAX_BYTES);
}

static void test_frame_too_large_is_max_bytes(void **state)
{
	struct runner_job job = caps(UINT64_MAX, UINT64_MAX);
	struct runner_sent sent = {0};

	(void)state;
	assert_int_equal(runner_cap_check(&job, &sent, FRAME_MAX_PAYLOAD, true), FRAME_TRUNC_NONE);
	assert_int_equal(runner_cap_check(&job, &sent, (size_t)FRAME_MAX_PAYLOAD + 1, true), FRAME_TRUNC_MAX_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_stop_at_max_rows),
		cmocka_unit_test(test_bytes_stop_before_max_bytes),
		cmocka_unit_test(test_header_counts_bytes_only),
		cmocka_unit_test(test_frame_too_large_is_max_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
