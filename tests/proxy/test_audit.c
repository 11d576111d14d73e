/*
 * test_audit: the audit log's hash chain: records written by audit.c
 * verify; an edit, a deletion or a torn write is reported at the right
 * line; a reopened log continues the chain; malformed lines are refused
 * with a reason, never a crash. And the fields a record carries.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "proxy/audit.h"
#include "proxy/audit_chain.h"
#include "proxy/audit_verify.h"

static char path[64];

static int setup(void **state)
{
	int fd;

	strcpy(path, "/tmp/test_audit.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

/* n statement records through a freshly opened log, closed after. */
static void write_records(int n, double ms)
{
	struct audit *a = audit_open(path);

	assert_non_null(a);
	for (int i = 0; i < n; i++) {
		struct audit_entry e = {.user = "agent",
					.session = 100 + (uint32_t)i,
					.fingerprint = 0xabcdefULL,
					.decision = "run",
					.rows = 1,
					.bytes = 10,
					.ms = ms,
					.protocol = "pg",
					.client = "10.0.0.7",
					.application = "reporting"};
		audit_record(a, &e);
	}
	audit_close(a);
}

static char *slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void put(const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void append(const char *text)
{
	FILE *f = fopen(path, "ab");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static enum audit_verify_result verify(struct audit_verify *v)
{
	FILE *f = fopen(path, "rb");
	enum audit_verify_result r;

	assert_non_null(f);
	audit_verify_init(v);
	r = audit_verify_file(v, f);
	fclose(f);
	return r;
}

/* The byte offset where line n (from 1) starts. */
static size_t line_start(const char *buf, int n)
{
	const char *p = buf;

	while (--n > 0)
		p = strchr(p, '\n') + 1;
	return (size_t)(p - buf);
}

static void test_three_records_verify(void **state)
{
	struct audit_verify v;
	char *buf;
	size_t len;

	write_records(3, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 3);
	buf = slurp(&len);
	/* The first record chains from zeros; prev is its last key. */
	assert_non_null(
		strstr(buf, "\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\"}\n"));
	free(buf);
}

static void test_edit_is_reported_at_the_next_line(void **state)
{
	struct audit_verify v;
	char *buf, *at;
	size_t len;

	write_records(3, 1.5);
	buf = slurp(&len);
	at = strstr(buf + line_start(buf, 2), "\"session\":101");
	assert_non_null(at);
	at[strlen("\"session\":10")] = '9'; /* still a valid record, only its hash changed */
	put(buf, len);
	free(buf);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_int_equal(v.lines, 2);
	assert_non_null(strstr(v.msg, "3: broken link: prev is "));
	assert_non_null(strstr(v.msg, "the previous record hashes to "));
}

static void test_deletion_is_reported(void **state)
{
	struct audit_verify v;
	char *buf;
	size_t len, two, three;

	write_records(3, 1.5);
	buf = slurp(&len);
	two = line_start(buf, 2);
	three = line_start(buf, 3);
	memmove(buf + two, buf + three, len - three);
	put(buf, len - (three - two));
	free(buf);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_true(!strncmp(v.msg, "2: broken link", 14));
}

static void test_reopened_log_continues(void **state)
{
	struct audit_verify v;

	write_records(2, 1.5);
	write_records(1, 1.5);
	write_records(2, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 5);
}

static void test_torn_line_is_reported_and_the_chain_goes_on(void **state)
{
	struct audit_verify v;
	char *buf;
	size_t len, three, four;

	write_records(2, 1.5);
	append("{\"ts\":\"2026-"); /* a crash in the middle of a write */
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_non_null(strstr(v.msg, "3: the last line has no newline"));

	write_records(1, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_string_equal(v.msg, "3: not a JSON record");

	/* The new record chains from the last complete line, before the fragment. */
	buf = slurp(&len);
	three = line_start(buf, 3);
	four = line_start(buf, 4);
	memmove(buf + three, buf + four, len - four);
	put(buf, len - (four - three));
	free(buf);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 3);
}

/* A last line longer than the chunks the tail is read in: found and hashed across them. */
static void test_reopen_after_a_long_line(void **state)
{
	struct audit_verify v;
	size_t n = 200 * 1024;
	char *reason = malloc(n + 1);
	struct audit *a;

	assert_non_null(reason);
	memset(reason, 'r', n);
	reason[n] = '\0';
	write_records(1, 1.5);
	a = audit_open(path);
	assert_non_null(a);
	audit_record(a,
		     &(struct audit_entry){.user = "agent", .decision = "failed", .approval = "x1", .reason = reason});
	audit_close(a);
	free(reason);
	write_records(1, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 3);
}

static void test_torn_first_line(void **state)
{
	struct audit_verify v;

	append("{\"ts\"");
	write_records(1, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_string_equal(v.msg, "1: not a JSON record");
}

static void test_fields_and_fixed_ms(void **state)
{
	char *buf;
	size_t len;

	write_records(1, 0.123);
	write_records(1, 1234.56789);
	buf = slurp(&len);
	assert_non_null(strstr(buf, "\"ms\":0.123,"));
	assert_non_null(strstr(buf, "\"ms\":1234.568,"));
	assert_non_null(strstr(buf, "\"protocol\":\"pg\",\"client\":\"10.0.0.7\",\"application_name\":\"reporting\""));
	free(buf);
}

/* Once set, each record names the configuration just before "prev"; a new one applies from the next record. */
static void test_config_checksum_in_each_record(void **state)
{
	static const char one[] = "1111111111111111111111111111111111111111111111111111111111111111";
	static const char two[] = "2222222222222222222222222222222222222222222222222222222222222222";
	struct audit *a = audit_open(path);
	struct audit_entry e = {.user = "agent", .decision = "run", .protocol = "pg", .client = ""};
	struct audit_verify v;
	char *buf, *second;
	size_t len;

	(void)state;
	assert_non_null(a);
	audit_record(a, &e);
	audit_set_config(a, one);
	audit_record(a, &e);
	audit_set_config(a, two);
	audit_login_failed(a, "agent", 7, "pg", "10.0.0.7", "28P01", 0);
	audit_close(a);
	buf = slurp(&len);
	second = strchr(buf, '\n') + 1;
	second[-1] = '\0'; /* the first line alone */
	assert_null(strstr(buf, "\"config\""));
	second[-1] = '\n';
	assert_non_null(strstr(second,
			       "\"config\":\"1111111111111111111111111111111111111111111111111111111111111111\","
			       "\"prev\":"));
	assert_non_null(strstr(strchr(second, '\n') + 1, "\"config\":\"2222"));
	free(buf);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
}

/* Moved away and opened again, the log goes on in a new file that continues the chain of the old one. */
static void test_reopen_after_rotation(void **state)
{
	struct audit *a = audit_open(path);
	struct audit_entry e = {.user = "agent", .decision = "run", .protocol = "pg", .client = ""};
	char rotated[80];
	struct audit_verify v;
	FILE *f;

	(void)state;
	assert_non_null(a);
	audit_record(a, &e);
	audit_record(a, &e);
	snprintf(rotated, sizeof(rotated), "%s.1", path);
	assert_int_equal(rename(path, rotated), 0);
	assert_int_equal(audit_reopen(a, path), 0);
	audit_record(a, &e);
	/* Opened again with nothing moved: the same file, the chain unbroken. */
	assert_int_equal(audit_reopen(a, path), 0);
	audit_record(a, &e);
	assert_int_equal(audit_reopen(a, "/nonexistent-dir/audit.log"), -1);
	audit_record(a, &e); /* still to the file open before */
	audit_close(a);

	/* The new file alone starts where the old one ended: a broken first link. */
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_int_equal(v.lines, 0);
	/* Both in order: intact, 2 records then 3. */
	audit_verify_init(&v);
	f = fopen(rotated, "rb");
	assert_non_null(f);
	assert_int_equal(audit_verify_file(&v, f), AUDIT_VERIFY_INTACT);
	fclose(f);
	assert_int_equal(v.lines, 2);
	v.lines = 0;
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(audit_verify_file(&v, f), AUDIT_VERIFY_INTACT);
	fclose(f);
	assert_int_equal(v.lines, 3);
	unlink(rotated);
}

static void test_login_failure_is_chained(void **state)
{
	struct audit *a = audit_open(path);
	struct audit_verify v;

	assert_non_null(a);
	audit_login_failed(a, "mallory\xff", 7, "mysql", "192.0.2.1", "28000", 0);
	audit_login_failed(a, "agent", 8, "pg", "", "28P01", 100);
	audit_close(a);
	write_records(1, 1.5);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 3);
}

/* One line checked on its own, as line 1. */
static const char *check(const char *line)
{
	static struct audit_verify v;

	audit_verify_init(&v);
	assert_false(audit_verify_line(&v, line, strlen(line)));
	return v.msg;
}

static void test_malformed_lines(void **state)
{
	assert_string_equal(check(""), "1: an empty line, not a JSON record");
	assert_string_equal(check("hello"), "1: not a JSON record");
	assert_string_equal(check("[1,2]"), "1: not a JSON record");
	assert_string_equal(check("{\"ts\":1} trailing"), "1: not a JSON record");
	assert_string_equal(check("{\"ts\":1}"), "1: the record has no \"prev\"");
	assert_string_equal(check("{\"prev\":5}"), "1: \"prev\" is not 64 lowercase hex digits");
	assert_string_equal(check("{\"prev\":\"zz\"}"), "1: \"prev\" is not 64 lowercase hex digits");
	assert_string_equal(check("{\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\","
				  "\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\"}"),
			    "1: not a JSON record");
	assert_string_equal(check("{\"prev\":\"000000000000000000000000000000000000000000000000000000000000000A\"}"),
			    "1: \"prev\" is not 64 lowercase hex digits");
	assert_non_null(strstr(check("{\"prev\":\"1000000000000000000000000000000000000000000000000000000000000000\"}"),
			       "1: broken link: prev is 1000"));
}

static void test_overlong_and_binary_files(void **state)
{
	struct audit_verify v;
	size_t len = AUDIT_VERIFY_LINE_MAX + 10;
	char *big = malloc(len);

	assert_non_null(big);
	memset(big, 'x', len);
	big[len - 1] = '\n';
	put(big, len);
	free(big);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_string_equal(v.msg, "1: a line longer than 1048576 bytes, not a record");

	put("{\"prev\":\"\0\"}\n", 13);
	assert_int_equal(verify(&v), AUDIT_VERIFY_BROKEN);
	assert_string_equal(v.msg, "1: not a JSON record");

	put("", 0);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 0);
}

/*
 * workers = N: each worker's records reach the supervisor whole, without
 * "prev", over a SEQPACKET socket; the supervisor chains them into the one
 * file, and what is not one JSON object on one line is refused.
 */
static void test_workers_records_are_chained_by_the_supervisor(void **state)
{
	struct audit_entry e = {.user = "agent", .session = 7, .decision = "run", .protocol = "pg", .client = ""};
	struct audit *worker[2], *sup = audit_open(path);
	static char buf[AUDIT_MAX_RECORD + 2];
	struct audit_verify v;
	int pair[2][2];
	ssize_t n;

	(void)state;
	assert_non_null(sup);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair[i]), 0);
		worker[i] = audit_open_remote(pair[i][1], NULL);
		assert_non_null(worker[i]);
		audit_set_config(worker[i], "ab12");
	}
	for (int k = 0; k < 6; k++) {
		e.session = 100 + (uint32_t)k;
		audit_record(worker[k % 2], &e);
		n = recv(pair[k % 2][0], buf, sizeof(buf), 0);
		assert_true(n > 2 && buf[0] == '{' && buf[n - 1] == '}');
		assert_null(memmem(buf, (size_t)n, "\"prev\"", 6));
		assert_non_null(memmem(buf, (size_t)n, "\"config\":\"ab12\"", 15));
		assert_int_equal(audit_append(sup, buf, (size_t)n), 0);
	}
	/* Not one object on one line, or one that brings its own "prev": refused, nothing written. */
	assert_int_equal(audit_append(sup, "", 0), -1);
	assert_int_equal(audit_append(sup, "{", 1), -1);
	assert_int_equal(audit_append(sup, "x}", 2), -1);
	assert_int_equal(audit_append(sup, "{\"a\":1}\n{\"b\":2}", 15), -1);
	assert_int_equal(audit_append(sup, "{\"a\":\"\0\"}", 9), -1);
	assert_int_equal(audit_append(sup, "{\"prev\":\"00\"}", 13), -1);
	memset(buf, ' ', sizeof(buf));
	buf[0] = '{';
	buf[AUDIT_MAX_RECORD] = '}';
	assert_int_equal(audit_append(sup, buf, AUDIT_MAX_RECORD + 1), -1);
	/* An empty object is still a record. */
	assert_int_equal(audit_append(sup, "{}", 2), 0);
	for (int i = 0; i < 2; i++) {
		audit_close(worker[i]);
		close(pair[i][0]);
	}
	audit_close(sup);
	assert_int_equal(verify(&v), AUDIT_VERIFY_INTACT);
	assert_int_equal(v.lines, 7);
}

/*
 * With the worker's loop: a record is sent once the loop has handled the
 * I/O ready now (the statement's answer to its client first), in order;
 * those not sent yet go at audit_close.
 */
static void test_worker_records_wait_for_the_loop(void **state)
{
	struct audit_entry e = {.user = "agent", .session = 7, .decision = "run", .protocol = "pg", .client = ""};
	struct event_base *base = event_base_new();
	static char buf[AUDIT_MAX_RECORD + 2];
	struct audit *worker;
	int pair[2];
	char want[32];
	ssize_t n;

	(void)state;
	assert_non_null(base);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair), 0);
	worker = audit_open_remote(pair[1], base);
	assert_non_null(worker);
	for (uint32_t k = 0; k < 3; k++) {
		e.session = 100 + k;
		audit_record(worker, &e);
	}
	assert_int_equal(recv(pair[0], buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(event_base_loop(base, EVLOOP_ONCE), 0);
	for (uint32_t k = 0; k < 3; k++) {
		n = recv(pair[0], buf, sizeof(buf), MSG_DONTWAIT);
		assert_true(n > 2 && buf[0] == '{' && buf[n - 1] == '}');
		snprintf(want, sizeof(want), "\"session\":%u", 100 + k);
		assert_non_null(memmem(buf, (size_t)n, want, strlen(want)));
	}
	assert_int_equal(recv(pair[0], buf, sizeof(buf), MSG_DONTWAIT), -1);
	/* Made, the loop not run again: audit_close sends it. */
	e.session = 200;
	audit_record(worker, &e);
	audit_close(worker);
	n = recv(pair[0], buf, sizeof(buf), MSG_DONTWAIT);
	assert_true(n > 2 && memmem(buf, (size_t)n, "\"session\":200", 13));
	close(pair[0]);
	event_base_free(base);
}

static void test_hash_is_sha256(void **state)
{
	char hex[AUDIT_CHAIN_HEX + 1];

	assert_true(audit_chain_hash("abc", 3, hex));
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_three_records_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers_records_are_chained_by_the_supervisor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_is_reported_at_the_next_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deletion_is_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopened_log_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_line_is_reported_and_the_chain_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_after_a_long_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_first_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields_and_fixed_ms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_checksum_in_each_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_after_rotation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_login_failure_is_chained, setup, teardown),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test_setup_teardown(test_overlong_and_binary_files, setup, teardown),
		cmocka_unit_test(test_worker_records_wait_for_the_loop),
		cmocka_unit_test(test_hash_is_sha256),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
