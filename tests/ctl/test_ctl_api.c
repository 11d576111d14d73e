/*
 * test_ctl_api: each command's method, URL and body, built from a parsed
 * command line; the decision body reads back as JSON with the reason
 * exactly; what each status means.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "ctl/ctl_api.h"

#define ID "wabcdefghijklmnopqrst"

static void parsed(struct ctl_args *a, int argc, const char **argv)
{
	const struct ctl_env env = {.user = "alice", .password = "pw"};
	char err[256];

	if (ctl_args_parse(argc, (char *const *)argv, &env, a, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static void test_urls(void **state)
{
	const char *pending[] = {"airlockctl", "pending"};
	const char *executed[] = {"airlockctl", "pending", "--status", "executed", "--url", "https://h:1/base/"};
	const char *show[] = {"airlockctl", "show", ID};
	struct ctl_args a;
	struct ctl_request r;

	(void)state;
	parsed(&a, 2, pending);
	assert_true(ctl_api_request(&a, &r));
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.url, "https://127.0.0.1:8443/api/approvals?status=pending");
	assert_null(r.body);
	ctl_api_request_free(&r);

	parsed(&a, 6, executed);
	assert_true(ctl_api_request(&a, &r));
	assert_string_equal(r.url, "https://h:1/base/api/approvals?status=executed");
	ctl_api_request_free(&r);

	parsed(&a, 3, show);
	assert_true(ctl_api_request(&a, &r));
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.url, "https://127.0.0.1:8443/api/approvals/" ID);
	assert_null(r.body);
	ctl_api_request_free(&r);
	assert_null(r.method);

	a.command = CTL_HELP;
	assert_false(ctl_api_request(&a, &r));
}

static void test_decisions(void **state)
{
	static const char reason[] = "quote \" backslash \\ newline\n caf\xc3\xa9 </script>";
	const char *approve[] = {"airlockctl", "approve", ID};
	const char *approve_why[] = {"airlockctl", "approve", ID, "--reason", reason};
	const char *reject[] = {"airlockctl", "reject", ID, "--reason", "wrong table"};
	struct ctl_args a;
	struct ctl_request r;
	json_t *j;

	(void)state;
	parsed(&a, 3, approve);
	assert_true(ctl_api_request(&a, &r));
	assert_string_equal(r.method, "POST");
	assert_string_equal(r.url, "https://127.0.0.1:8443/api/approvals/" ID "/approve");
	assert_string_equal(r.body, "{}");
	ctl_api_request_free(&r);

	parsed(&a, 5, approve_why);
	assert_true(ctl_api_request(&a, &r));
	j = json_loads(r.body, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 1);
	assert_string_equal(json_string_value(json_object_get(j, "reason")), reason);
	json_decref(j);
	ctl_api_request_free(&r);

	parsed(&a, 5, reject);
	assert_true(ctl_api_request(&a, &r));
	assert_string_equal(r.method, "POST");
	assert_string_equal(r.url, "https://127.0.0.1:8443/api/approvals/" ID "/reject");
	assert_string_equal(r.body, "{\"reason\":\"wrong table\"}");
	ctl_api_request_free(&r);

	/* A reason that is not UTF-8 cannot become JSON: no request. */
	a.reason = "bad \xff";
	assert_false(ctl_api_request(&a, &r));
	assert_null(r.body);
}

static void test_statuses(void **state)
{
	(void)state;
	assert_true(ctl_api_success(200));
	assert_true(ctl_api_success(204));
	assert_false(ctl_api_success(199));
	assert_false(ctl_api_success(302));
	assert_false(ctl_api_success(409));
	assert_false(ctl_api_success(0));
	assert_non_null(strstr(ctl_api_status_hint(409), "already decided or has expired"));
	assert_non_null(strstr(ctl_api_status_hint(401), CTL_ENV_PASSWORD));
	assert_non_null(strstr(ctl_api_status_hint(429), "wait"));
	assert_non_null(ctl_api_status_hint(404));
	assert_null(ctl_api_status_hint(500));
	assert_null(ctl_api_status_hint(400));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_statuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
