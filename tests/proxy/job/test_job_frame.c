/*
 * test_job_frame: the job frame a request becomes: the parameter types'
 * check travels as "type_check" only when the request has one, a MySQL
 * UPDATE's read of its rows as "sample_read", and the frame decodes with
 * every pair it announced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/frame.h"
#include "proxy/job/job.h"
#include "proxy/job/job_frame.h"

/* The value of key in the job frame built from req; NULL when it has none. */
static const char *pair(const struct job_request *req, const char *key, char *out, size_t cap)
{
	static struct frame_job fj;
	struct wbuf b;
	struct frame f;
	size_t used;
	const char *found = NULL;

	assert_int_equal(job_frame_job(&b, req), 0);
	assert_int_equal(frame_peek(b.data, b.len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	assert_int_equal(frame_decode_job(&f, &fj), FRAME_OK);
	for (uint16_t i = 0; i < fj.npairs; i++) {
		const struct frame_str *k = &fj.pairs[i].key, *v = &fj.pairs[i].value;

		if (k->len == strlen(key) && memcmp(k->ptr, key, k->len) == 0 && v->len < cap) {
			memcpy(out, v->ptr, v->len);
			out[v->len] = '\0';
			found = out;
		}
	}
	wbuf_free(&b);
	return found;
}

static void test_type_check_travels(void **state)
{
	struct airlock_limits limits = {.timeout_ms = 1000, .max_rows = 10, .max_bytes = 1000};
	struct job_param params[] = {{.type_oid = 16386}};
	struct job_request req = {.limits = &limits, .sql = "SELECT $1", .params = params, .nparams = 1};
	char v[64];

	(void)state;
	assert_null(pair(&req, "type_check", v, sizeof(v)));
	assert_string_equal(pair(&req, "sql", v, sizeof(v)), "SELECT $1");
	req.type_check = "SELECT 16386";
	assert_string_equal(pair(&req, "type_check", v, sizeof(v)), "SELECT 16386");
	assert_non_null(pair(&req, "param.0", v, sizeof(v)));
}

static void test_sample_read_travels(void **state)
{
	struct airlock_limits limits = {.timeout_ms = 1000, .max_rows = 10, .max_bytes = 1000};
	struct job_request req = {.limits = &limits, .sql = "UPDATE t SET a = 1", .write = 1, .write_max = 5};
	char v[64];

	(void)state;
	assert_null(pair(&req, "sample_read", v, sizeof(v)));
	req.sample_read = "SELECT * FROM t\nLIMIT 20";
	assert_string_equal(pair(&req, "sample_read", v, sizeof(v)), "SELECT * FROM t\nLIMIT 20");
	assert_string_equal(pair(&req, "write", v, sizeof(v)), "dry");
	assert_null(pair(&req, "sample", v, sizeof(v)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_check_travels),
		cmocka_unit_test(test_sample_read_travels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
