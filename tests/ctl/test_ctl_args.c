/*
 * test_ctl_args: airlockctl's command line. Every command in every form
 * (options before and after the command, --name=value and --name value,
 * "--", -h anywhere), the defaults from the environment, and each usage
 * error: bad ids, a reject without a reason, unknown and repeated options,
 * options the command does not take, URLs other than https://, a password
 * offered on the command line (refused and never echoed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/ctl_args.h"

#define ID "wabcdefghijklmnopqrst"
#define ID2 "w234567abcdefghijklmn"

static const struct ctl_env env_full = {.user = "alice", .password = "s3cret"};

static char err[256];

/* Parses the NULL-terminated list of arguments after the program's name. */
static int parse_with(const struct ctl_env *env, struct ctl_args *out, const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = (char *)"airlockctl";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *)) {
		assert_true(argc < 31);
		argv[argc++] = (char *)a;
	}
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return ctl_args_parse(argc, argv, env, out, err, sizeof(err));
}

#define PARSE(out, ...) parse_with(&env_full, out, __VA_ARGS__, (const char *)NULL)
#define OK(out, ...) assert_int_equal(PARSE(out, __VA_ARGS__), 0)
/* A usage error whose message holds words. */
#define BAD(words, ...)                                                    \
	do {                                                               \
		struct ctl_args bad_;                                      \
		assert_int_equal(PARSE(&bad_, __VA_ARGS__), -1);           \
		if (!strstr(err, words))                                   \
			fail_msg("error \"%s\" lacks \"%s\"", err, words); \
	} while (0)

static void test_pending(void **state)
{
	struct ctl_args a;

	(void)state;
	OK(&a, "pending");
	assert_int_equal(a.command, CTL_PENDING);
	assert_string_equal(a.url, CTL_DEFAULT_URL);
	assert_string_equal(a.user, "alice");
	assert_string_equal(a.password, "s3cret");
	assert_null(a.cacert);
	assert_null(a.reason);
	assert_string_equal(a.id, "");
	assert_int_equal(a.status, APPROVAL_PENDING);
	assert_false(a.json);

	OK(&a, "pending", "--json");
	assert_true(a.json);
	OK(&a, "--json", "pending");
	assert_true(a.json);
	OK(&a, "--url", "https://airlock.example:9443", "--user", "bob", "--cacert", "/etc/ca.pem", "pending",
	   "--json");
	assert_string_equal(a.url, "https://airlock.example:9443");
	assert_string_equal(a.user, "bob");
	assert_string_equal(a.cacert, "/etc/ca.pem");
	assert_true(a.json);
	OK(&a, "pending", "--url=https://h/", "--user=carol", "--cacert=ca.pem");
	assert_string_equal(a.url, "https://h");
	assert_string_equal(a.user, "carol");
	assert_string_equal(a.cacert, "ca.pem");
	OK(&a, "pending", "--status", "executed");
	assert_int_equal(a.status, APPROVAL_EXECUTED);
	OK(&a, "--status=failed", "pending");
	assert_int_equal(a.status, APPROVAL_FAILED);
}

static void test_show_approve_reject(void **state)
{
	struct ctl_args a;

	(void)state;
	OK(&a, "show", ID);
	assert_int_equal(a.command, CTL_SHOW);
	assert_string_equal(a.id, ID);
	assert_false(a.json);
	OK(&a, "show", ID, "--json");
	assert_true(a.json);
	OK(&a, "--json", "show", "--user", "dave", ID);
	assert_true(a.json);
	assert_string_equal(a.user, "dave");
	assert_string_equal(a.id, ID);

	OK(&a, "approve", ID2);
	assert_int_equal(a.command, CTL_APPROVE);
	assert_string_equal(a.id, ID2);
	assert_null(a.reason);
	OK(&a, "approve", ID2, "--reason", "looks right");
	assert_string_equal(a.reason, "looks right");
	OK(&a, "--reason=ticket 42", "approve", ID2);
	assert_string_equal(a.reason, "ticket 42");
	/* An empty reason is no reason. */
	OK(&a, "approve", ID2, "--reason", "");
	assert_null(a.reason);

	OK(&a, "reject", ID, "--reason", "wrong table");
	assert_int_equal(a.command, CTL_REJECT);
	assert_string_equal(a.id, ID);
	assert_string_equal(a.reason, "wrong table");
	OK(&a, "--reason", "no", "reject", ID, "--json");
	assert_string_equal(a.reason, "no");
	assert_true(a.json);
	/* A value may start with a dash, and "--" ends the options. */
	OK(&a, "reject", "--reason", "--json is not a reason", "--", ID);
	assert_string_equal(a.reason, "--json is not a reason");
	assert_false(a.json);
	OK(&a, "reject", "--reason=multi\nline\ttext", ID);
	assert_string_equal(a.reason, "multi\nline\ttext");
}

static void test_help(void **state)
{
	struct ctl_args a;
	const char *u = ctl_args_usage();

	(void)state;
	OK(&a, "-h");
	assert_int_equal(a.command, CTL_HELP);
	OK(&a, "--help");
	assert_int_equal(a.command, CTL_HELP);
	/* Help wins over anything else on the line, even an error before it. */
	OK(&a, "reject", "nonsense", "--bogus", "-h");
	assert_int_equal(a.command, CTL_HELP);
	assert_int_equal(parse_with(&(struct ctl_env){0}, &a, "--help", (const char *)NULL), 0);
	assert_int_equal(a.command, CTL_HELP);
	/* After "--" it is an argument. */
	BAD("not the id", "show", "--", "-h");
	assert_non_null(strstr(u, "pending"));
	assert_non_null(strstr(u, "reject ID --reason TEXT"));
	assert_non_null(strstr(u, CTL_ENV_PASSWORD));
	assert_int_equal(u[strlen(u) - 1], '\n');
}

static void test_bad_ids(void **state)
{
	static const char *const ids[] = {
		"",
		"w",
		"wabcdefghijklmnopqrs",   /* 20 characters */
		"wabcdefghijklmnopqrstu", /* 22 */
		"xabcdefghijklmnopqrst",
		"WABCDEFGHIJKLMNOPQRST",
		"wABCDEFGHIJKLMNOPQRST",
		"wabcdefghijklmnopqrs1", /* 1 is not base32 */
		"wabcdefghijklmnopqrs0",
		"wabcdefghij/mnopqrst",
		"../../api/approvals/x",
		"wabcdefghijklmnopq%2f",
		"wabcdefghijklmnopqr?s",
		"wabcdefghijklmnopqr\ns",
		"wabcdefghijklmnopqrst ",
		" wabcdefghijklmnopqrst",
		"wabcdefghijklmnopqrs\xc3\xa9",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		BAD("not the id of a write", "show", ids[i]);
		BAD("not the id of a write", "approve", ids[i]);
		BAD("not the id of a write", "reject", ids[i], "--reason", "r");
		/* The id is not quoted back. */
		if (strlen(ids[i]) > 4)
			assert_null(strstr(err, ids[i]));
	}
	BAD("needs the id", "show");
	BAD("needs the id", "approve", "--json");
	BAD("needs the id", "reject", "--reason", "r");
	BAD("too many arguments", "show", ID, ID2);
	BAD("too many arguments", "pending", ID);
}

static void test_reasons(void **state)
{
	char reason[APPROVAL_MAX_REASON + 2];
	struct ctl_args a;

	(void)state;
	BAD("reject needs a --reason", "reject", ID);
	BAD("reject needs a --reason", "reject", ID, "--reason", "");
	BAD("reject needs a --reason", "reject", ID, "--reason=");
	BAD("--reason needs a value", "reject", ID, "--reason");
	BAD("--reason is for approve and reject only", "show", ID, "--reason", "x");
	BAD("--reason is for approve and reject only", "pending", "--reason", "x");

	memset(reason, 'r', APPROVAL_MAX_REASON);
	reason[APPROVAL_MAX_REASON] = '\0';
	OK(&a, "reject", ID, "--reason", reason);
	assert_int_equal(strlen(a.reason), APPROVAL_MAX_REASON);
	reason[APPROVAL_MAX_REASON] = 'r';
	reason[APPROVAL_MAX_REASON + 1] = '\0';
	BAD("longer than 1024 bytes", "reject", ID, "--reason", reason);
	BAD("longer than 1024 bytes", "approve", ID, "--reason", reason);

	/* A reason is sent and shown to others: nothing in it may hide. */
	BAD("control or invisible", "reject", ID, "--reason", "ok\x1b[2J");
	BAD("control or invisible", "reject", ID, "--reason", "ok\rfake");
	BAD("control or invisible", "reject", ID, "--reason",
	    "abc\xe2\x80\xae"
	    "cba");
	BAD("control or invisible", "approve", ID, "--reason", "zero\xe2\x80\x8bwidth");
	BAD("control or invisible", "approve", ID, "--reason", "bad \xff utf-8");
	OK(&a, "approve", ID, "--reason", "caf\xc3\xa9 \xe4\xb8\xad");
}

static void test_options(void **state)
{
	(void)state;
	BAD("unknown option --bogus", "pending", "--bogus");
	BAD("unknown option --bogus", "--bogus=1", "pending");
	BAD("unknown option -x", "-x", "pending");
	BAD("unknown option -j", "pending", "-j");
	BAD("unknown option --JSON", "pending", "--JSON");
	BAD("--json takes no value", "pending", "--json=yes");
	BAD("--url needs a value", "pending", "--url");
	BAD("--user needs a value", "pending", "--user");
	BAD("--cacert needs a value", "pending", "--cacert");
	BAD("--cacert needs a file", "pending", "--cacert", "");
	BAD("--json given twice", "pending", "--json", "--json");
	BAD("--url given twice", "--url", "https://a", "pending", "--url=https://b");
	BAD("--reason given twice", "reject", ID, "--reason", "a", "--reason", "b");
	BAD("--status is for pending only", "show", ID, "--status", "pending");
	BAD("--status takes one of", "pending", "--status", "Pending");
	BAD("--status takes one of", "pending", "--status", "all");
	BAD("--status takes one of", "pending", "--status=");
	BAD("no command", "--json");
	BAD("unknown command list", "list");
	BAD("unknown command PENDING", "PENDING");
	BAD("unknown command -", "-");
}

static void test_password_never_on_the_line(void **state)
{
	struct ctl_args a;

	(void)state;
	BAD("read from AIRLOCK_APPROVER_PASSWORD only", "pending", "--password", "hunter2");
	assert_null(strstr(err, "hunter2"));
	BAD("read from AIRLOCK_APPROVER_PASSWORD only", "pending", "--password=hunter2");
	assert_null(strstr(err, "hunter2"));
	BAD("read from AIRLOCK_APPROVER_PASSWORD only", "--passwd=hunter2", "pending");
	BAD("read from AIRLOCK_APPROVER_PASSWORD only", "--pass", "hunter2", "pending");
	BAD("unknown option -p", "-p", "hunter2", "pending");
	assert_null(strstr(err, "hunter2"));
	BAD("unknown option -p", "-phunter2", "pending");
	assert_null(strstr(err, "hunter2"));
	BAD("unknown option --secret", "--secret=hunter2", "pending");
	assert_null(strstr(err, "hunter2"));
	BAD("too many arguments", "show", ID, "hunter2");
	assert_null(strstr(err, "hunter2"));

	/* No password in the environment: a usage error, before any request. */
	assert_int_equal(parse_with(&(struct ctl_env){.user = "alice"}, &a, "pending", (const char *)NULL), -1);
	assert_non_null(strstr(err, "set AIRLOCK_APPROVER_PASSWORD"));
	assert_int_equal(
		parse_with(&(struct ctl_env){.user = "alice", .password = ""}, &a, "pending", (const char *)NULL), -1);
	assert_non_null(strstr(err, "set AIRLOCK_APPROVER_PASSWORD"));
}

static void test_user(void **state)
{
	struct ctl_env no_user = {.password = "pw"};
	struct ctl_env empty_user = {.user = "", .password = "pw"};
	struct ctl_args a;
	char long_name[APPROVAL_MAX_NAME + 2];

	(void)state;
	assert_int_equal(parse_with(&no_user, &a, "pending", (const char *)NULL), -1);
	assert_non_null(strstr(err, "give --user or set AIRLOCK_APPROVER_USER"));
	assert_int_equal(parse_with(&empty_user, &a, "pending", (const char *)NULL), -1);
	assert_non_null(strstr(err, "give --user"));
	assert_int_equal(parse_with(&no_user, &a, "pending", "--user", "erin", (const char *)NULL), 0);
	assert_string_equal(a.user, "erin");
	assert_string_equal(a.password, "pw");

	BAD("holds ':'", "pending", "--user", "al:ice");
	BAD("holds ':'", "pending", "--user", "");
	BAD("holds ':'", "pending", "--user", "al\x1b[1mice");
	BAD("holds ':'", "pending", "--user", "al\xe2\x80\xaeice");
	memset(long_name, 'n', APPROVAL_MAX_NAME + 1);
	long_name[APPROVAL_MAX_NAME + 1] = '\0';
	BAD("too long", "pending", "--user", long_name);
	long_name[APPROVAL_MAX_NAME] = '\0';
	OK(&a, "pending", "--user", long_name);
}

static void test_urls(void **state)
{
	static const char *const good[][2] = {
		{"https://127.0.0.1:8443", "https://127.0.0.1:8443"},
		{"https://127.0.0.1:8443/", "https://127.0.0.1:8443"},
		{"https://airlock.example", "https://airlock.example"},
		{"https://airlock.example/approvals///", "https://airlock.example/approvals"},
		{"https://[::1]:8443", "https://[::1]:8443"},
		{"HTTPS://Airlock.Example:1", "HTTPS://Airlock.Example:1"},
	};
	static const char *const bad[] = {
		"http://127.0.0.1:8443",
		"HTTP://127.0.0.1",
		"ftp://127.0.0.1",
		"file:///etc/passwd",
		"127.0.0.1:8443",
		"//127.0.0.1",
		"https:/127.0.0.1",
		"https://",
		"https:///path",
		"https://:8443",
		"https://alice:pw@127.0.0.1",
		"https://alice@127.0.0.1",
		"https://127.0.0.1/?status=all",
		"https://127.0.0.1/#x",
		"https://127.0.0.1/a b",
		"https://127.0.0.1/a\tb",
		"https://127.0.0.1\\@evil",
		"https://127.0.0.1/\x1b[2J",
		"https://h\xc3\xa9.example",
		" https://127.0.0.1",
		"",
	};
	char long_url[CTL_URL_MAX + 2];
	struct ctl_args a;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		OK(&a, "pending", "--url", good[i][0]);
		assert_string_equal(a.url, good[i][1]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		BAD("--url takes https://", "pending", "--url", bad[i]);

	memcpy(long_url, "https://h/", 10);
	memset(long_url + 10, 'p', CTL_URL_MAX - 10);
	long_url[CTL_URL_MAX] = '\0';
	OK(&a, "pending", "--url", long_url);
	assert_int_equal(strlen(a.url), CTL_URL_MAX);
	long_url[CTL_URL_MAX] = 'p';
	long_url[CTL_URL_MAX + 1] = '\0';
	BAD("--url takes https://", "pending", "--url", long_url);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_show_approve_reject),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_bad_ids),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_password_never_on_the_line),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
