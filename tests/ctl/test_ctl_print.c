/*
 * test_ctl_print: the API's replies as airlockctl prints them. Records are
 * written by the server's own encoder (approval_json_record), so the test
 * reads what the API will send. Hostile statements (escape sequences,
 * bidirectional overrides, CR, NUL, C1 controls, invisible characters,
 * bytes that are not UTF-8, newlines that forge another record) print
 * inert: no marked character in the output and no record text where a
 * label or an id starts a line. A suspicious record gets its warning;
 * --json passes the reply through only when it parses as the API's
 * shape; refusals print the server's message escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "approval/approval_json.h"
#include "approval/approval_text.h"
#include "base/wbuf.h"
#include "ctl/ctl_print.h"

#define ID "wabcdefghijklmnopqrst"
#define ID2 "w234567abcdefghijklmn"
#define VALUE_COLUMN 16

static char err[256];

static struct approval plain_record(const char *id, const char *statement)
{
	struct approval a = {
		.status = APPROVAL_PENDING,
		.user = "writer",
		.protocol = "postgres",
		.client_addr = "10.0.0.5",
		.application_name = "psql",
		.statement = (char *)statement,
		.params = "[\"x\", null]",
		.rewritten = "UPDATE public.orders SET note = 'x'",
		.plan = "",
		.sample = "{}",
		.rows = 3,
		.executed_rows = -1,
		.created_at = 1714566896000LL,
		.expires_at = 1714566956000LL,
		.approvals_needed = 1,
		.approved_by = "",
		.decided_by = "",
		.reason = "",
		.policy_checksum = "",
	};

	strcpy(a.id, id);
	return a;
}

/* The records as the API sends them: one object, or an array when list. Freed by the caller. */
static char *encode(const struct approval *recs, size_t n, bool list)
{
	struct wbuf w;

	wbuf_init(&w);
	if (list)
		wbuf_put_str(&w, "[");
	for (size_t i = 0; i < n; i++) {
		wbuf_put_str(&w, i ? ", " : "");
		assert_true(approval_json_record(&w, &recs[i]));
	}
	if (list)
		wbuf_put_str(&w, "]");
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	return (char *)w.data;
}

/* out's text, NUL-terminated, owned by out. */
static const char *text(struct wbuf *out)
{
	wbuf_put_u8(out, 0);
	assert_false(out->failed);
	out->len--;
	return (const char *)out->data;
}

static const char *const labels[] = {
	"user",      "when",          "rows",       "application", "client",    "statement",  "status",
	"rewritten", "params",        "protocol",   "expires",     "approvals", "decided by", "decided at",
	"reason",    "executed rows", "!! WARNING", "plan",        "sample",
};

/*
 * Every line is an id, blank, a label at column 2 with its value at the
 * value column, or a value's later line indented to the value column; no
 * line holds a marked character. Returns how many lines carry label.
 */
static size_t check_layout(const char *s, const char *label)
{
	size_t count = 0;

	assert_false(approval_text_suspicious(s, strlen(s)));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char line[APPROVAL_ID_LEN + 1];
		bool ok = len == 0;

		if (len == APPROVAL_ID_LEN) {
			memcpy(line, s, len);
			line[len] = '\0';
			ok = ok || approval_id_valid(line);
		}
		if (len >= VALUE_COLUMN && strspn(s, " ") >= VALUE_COLUMN)
			ok = true;
		for (size_t i = 0; !ok && i < sizeof(labels) / sizeof(labels[0]); i++) {
			size_t n = strlen(labels[i]);

			if (len > VALUE_COLUMN && s[0] == ' ' && s[1] == ' ' && strncmp(s + 2, labels[i], n) == 0 &&
			    strspn(s + 2 + n, " ") == VALUE_COLUMN - 2 - n && s[VALUE_COLUMN] != ' ') {
				ok = true;
				count += strcmp(labels[i], label) == 0;
			}
		}
		if (!ok)
			fail_msg("line out of place: \"%.*s\"", (int)len, s);
		s += len + (nl != NULL);
	}
	return count;
}

static void test_list_layout(void **state)
{
	struct approval recs[2] = {plain_record(ID, "UPDATE orders SET note = 'x' WHERE id = 1"),
				   plain_record(ID2, "DELETE FROM orders\nWHERE id = 2")};
	char *body;
	struct wbuf out;

	(void)state;
	recs[1].application_name = "";
	body = encode(recs, 2, true);
	wbuf_init(&out);
	assert_true(ctl_print_list(&out, body, strlen(body), APPROVAL_PENDING, err, sizeof(err)));
	assert_string_equal(text(&out), ID "\n"
					   "  user          writer\n"
					   "  when          2024-05-01T12:34:56Z\n"
					   "  rows          3\n"
					   "  application   psql\n"
					   "  client        10.0.0.5\n"
					   "  statement     UPDATE orders SET note = 'x' WHERE id = 1\n"
					   "\n" ID2 "\n"
					   "  user          writer\n"
					   "  when          2024-05-01T12:34:56Z\n"
					   "  rows          3\n"
					   "  application   (none)\n"
					   "  client        10.0.0.5\n"
					   "  statement     DELETE FROM orders\n"
					   "                WHERE id = 2\n");
	assert_int_equal(check_layout(text(&out), "user"), 2);
	wbuf_free(&out);
	free(body);
}

static void test_empty_list(void **state)
{
	struct wbuf out;

	(void)state;
	wbuf_init(&out);
	assert_true(ctl_print_list(&out, "[]", 2, APPROVAL_PENDING, err, sizeof(err)));
	assert_string_equal(text(&out), "no pending writes\n");
	wbuf_reset(&out);
	assert_true(ctl_print_list(&out, " [ ]\n", 5, APPROVAL_EXECUTED, err, sizeof(err)));
	assert_string_equal(text(&out), "no executed writes\n");
	wbuf_free(&out);
}

/* Statements an agent could send to mislead or attack the approver's terminal. */
static const char *const hostile[] = {
	/* Clear the screen, home the cursor, set the window title, ring the bell. */
	"UPDATE t SET a = 1\x1b[2J\x1b[H\x1b]0;approved\x07",
	/* Colour that hides the rest, then a harmless-looking tail. */
	"DELETE FROM users \x1b[8mWHERE false\x1b[0m -- nothing",
	/* Bidirectional overrides and isolates: reads as one thing, runs as another. */
	"DELETE FROM t WHERE id = 1 /* \xe2\x80\xae } \xe2\x81\xa6if (admin)\xe2\x81\xa9 \xe2\x81\xa6 */",
	/* CR: overwrite what the terminal showed of the line. */
	"DROP TABLE accounts;\rSELECT 1 -- read only          ",
	/* C1 CSI (U+009B), DEL, a zero-width space, a BOM, a tag character. */
	"UPDATE t SET a = 1\xc2\x9b"
	"2J\x7f\xe2\x80\x8b\xef\xbb\xbf\xf3\xa0\x80\x81",
	/* Bytes that are not UTF-8 (the server sends \uFFFD and flags it). */
	"UPDATE t SET a = '\xff\xfe\xc0\xaf\xed\xa0\x80'",
	/* A forged second record and forged labels after newlines. */
	"UPDATE t SET a = 1\n" ID2 "\n  user          admin\n  statement     SELECT 1\n\n" ID2 "\n",
	/* Non-breaking and other odd spaces to fake alignment. */
	"UPDATE t SET a = 1\n\xc2\xa0\xc2\xa0user\xe3\x80\x80root",
};

static void test_hostile_statements_print_inert(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct approval rec = plain_record(ID, hostile[i]);
		char *body;
		struct wbuf out;

		rec.rewritten = (char *)hostile[i];
		rec.application_name = (char *)hostile[i];
		rec.client_addr = "10.0.0.5\r\x1b[1A";
		rec.params = "[\"\\u001b[2J\", \"\xe2\x80\xae\"]";
		rec.reason = (char *)hostile[i];
		body = encode(&rec, 1, true);
		wbuf_init(&out);
		assert_true(ctl_print_list(&out, body, strlen(body), APPROVAL_PENDING, err, sizeof(err)));
		assert_int_equal(check_layout(text(&out), "user"), 1);
		assert_int_equal(check_layout(text(&out), "!! WARNING"), 1);
		assert_null(strchr(text(&out), '\x1b'));
		assert_null(strchr(text(&out), '\r'));
		wbuf_free(&out);
		free(body);

		body = encode(&rec, 1, false);
		wbuf_init(&out);
		assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
		assert_int_equal(check_layout(text(&out), "statement"), 1);
		assert_int_equal(check_layout(text(&out), "!! WARNING"), 1);
		wbuf_reset(&out);
		assert_true(ctl_print_decision(&out, body, strlen(body), err, sizeof(err)));
		assert_int_equal(check_layout(text(&out), "!! WARNING"), 1);
		wbuf_free(&out);
		free(body);
	}
}

static void test_markers(void **state)
{
	struct approval rec = plain_record(ID, "A\x1b[2J B\xe2\x80\xae C\rD\x7f"
					       "E\xc2\x9b");
	char *body;
	const char *s;
	struct wbuf out;

	(void)state;
	rec.params = "[\"\xff\"]";
	body = encode(&rec, 1, false);
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	s = text(&out);
	assert_non_null(strstr(s, "  statement     A<U+001B>[2J B<U+202E> C<U+000D>D<U+007F>E<U+009B>\n"));
	/* The server sent \uFFFD for the byte that was not UTF-8 and flagged the record. */
	assert_non_null(strstr(s, "  params        [\"\xef\xbf\xbd\"]\n"));
	assert_non_null(strstr(s, "  !! WARNING"));
	wbuf_free(&out);
	free(body);

	/* A NUL the server escaped as \u0000 shows marked, and the rest of the string still shows. */
	wbuf_init(&out);
	s = "{\"id\": \"" ID "\", \"user\": \"a\\u0000b\", \"statement\": \"x\\u0000y\", \"rows\": 1}";
	assert_true(ctl_print_record(&out, s, strlen(s), err, sizeof(err)));
	s = text(&out);
	assert_non_null(strstr(s, "  user          a<U+0000>b\n"));
	assert_non_null(strstr(s, "  statement     x<U+0000>y\n"));
	wbuf_free(&out);
}

/* The dry run's plan, and each sampled row: an UPDATE's changed columns as old -> new, escaped. */
static void test_sample(void **state)
{
	const char *body = "{\"id\": \"" ID "\", \"user\": \"w\", \"statement\": \"UPDATE t\", \"rows\": 3, "
			   "\"plan\": \"Update on t\\n  ->  Seq Scan on t\", \"sample\": {\"columns\": [\"id\", "
			   "\"note\"], \"rows\": [{\"before\": [\"1\", \"a\\u001b[2J\"], \"after\": [\"1\", "
			   "null]}, {\"before\": null, \"after\": [\"2\", \"b\"]}, {\"before\": [\"3\", \"c\"], "
			   "\"after\": null}], \"truncated\": true}}";
	const char *s;
	struct wbuf out;

	(void)state;
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	s = text(&out);
	assert_non_null(strstr(s, "  plan          Update on t\n                  ->  Seq Scan on t\n"));
	assert_non_null(strstr(s, "  sample        3 rows as the dry run changed them (more not shown)\n"));
	assert_non_null(strstr(s, "                ~ id=1, note: a<U+001B>[2J -> NULL\n"));
	assert_non_null(strstr(s, "                + id=2, note=b\n"));
	assert_non_null(strstr(s, "                - id=3, note=c\n"));
	assert_null(strchr(s, '\x1b'));
	wbuf_free(&out);
	body = "{\"id\": \"" ID "\", \"user\": \"w\", \"statement\": \"UPDATE t\", \"rows\": 3, \"sample\": null}";
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	assert_non_null(strstr(text(&out), "  sample        (none)\n"));
	wbuf_free(&out);
}

static void test_suspicious_warning(void **state)
{
	struct approval rec = plain_record(ID, "UPDATE t SET a = 1");
	char *body;
	const char *s;
	struct wbuf out;

	(void)state;
	body = encode(&rec, 1, false);
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	assert_null(strstr(text(&out), "WARNING"));
	wbuf_free(&out);
	free(body);

	/* The server's flag alone brings the warning, right under the id. */
	s = "{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\", \"rows\": 1, \"suspicious\": true}";
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, s, strlen(s), err, sizeof(err)));
	assert_memory_equal(text(&out), ID "\n  !! WARNING    this write holds control",
			    strlen(ID "\n  !! WARNING    this write holds control"));
	wbuf_free(&out);

	/* So does a marked character the server did not flag. */
	s = "{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\\u200b\", \"rows\": 1, \"suspicious\": false}";
	wbuf_init(&out);
	assert_true(ctl_print_decision(&out, s, strlen(s), err, sizeof(err)));
	assert_non_null(strstr(text(&out), "!! WARNING"));
	assert_non_null(strstr(text(&out), "<\\xNN>"));
	wbuf_free(&out);
}

static void test_show_fields(void **state)
{
	struct approval rec = plain_record(ID, "UPDATE orders SET note = 'x'");
	char *body;
	const char *s;
	struct wbuf out;

	(void)state;
	rec.status = APPROVAL_EXECUTED;
	rec.approvals_needed = 2;
	rec.approved_by = "ann,bob";
	rec.decided_by = "ann,bob";
	rec.decided_at = 1714566900000LL;
	rec.reason = "ticket 42";
	rec.executed_rows = 3;
	body = encode(&rec, 1, false);
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	s = text(&out);
	assert_string_equal(s, ID "\n"
				  "  status        executed\n"
				  "  user          writer\n"
				  "  when          2024-05-01T12:34:56Z\n"
				  "  rows          3\n"
				  "  application   psql\n"
				  "  client        10.0.0.5\n"
				  "  statement     UPDATE orders SET note = 'x'\n"
				  "  rewritten     UPDATE public.orders SET note = 'x'\n"
				  "  params        [\"x\", null]\n"
				  "  plan          (none)\n"
				  "  sample        (none)\n"
				  "  protocol      postgres\n"
				  "  expires       2024-05-01T12:35:56Z\n"
				  "  approvals     2 of 2 (ann,bob)\n"
				  "  decided by    ann,bob\n"
				  "  decided at    2024-05-01T12:35:00Z\n"
				  "  reason        ticket 42\n"
				  "  executed rows 3\n");
	check_layout(s, "");
	wbuf_reset(&out);
	assert_true(ctl_print_decision(&out, body, strlen(body), err, sizeof(err)));
	assert_string_equal(text(&out), ID "\n"
					   "  status        executed\n"
					   "  executed rows 3\n"
					   "  reason        ticket 42\n");
	wbuf_free(&out);
	free(body);

	/* One approval of two: still pending. */
	rec.status = APPROVAL_PENDING;
	rec.approved_by = "ann";
	rec.decided_by = "";
	rec.decided_at = 0;
	rec.reason = "";
	rec.executed_rows = -1;
	body = encode(&rec, 1, false);
	wbuf_init(&out);
	assert_true(ctl_print_decision(&out, body, strlen(body), err, sizeof(err)));
	assert_string_equal(text(&out), ID "\n"
					   "  status        pending\n"
					   "  approvals     1 of 2 (ann)\n");
	wbuf_reset(&out);
	assert_true(ctl_print_record(&out, body, strlen(body), err, sizeof(err)));
	s = text(&out);
	assert_non_null(strstr(s, "  decided by    (none)\n  decided at    (none)\n  reason        (none)\n"));
	assert_non_null(strstr(s, "  executed rows (not run)\n"));
	wbuf_free(&out);
	free(body);

	/* Fields beyond the four every record has show "?" when missing. */
	s = "{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\", \"rows\": 1}";
	wbuf_init(&out);
	assert_true(ctl_print_record(&out, s, strlen(s), err, sizeof(err)));
	s = text(&out);
	assert_non_null(strstr(s, "  status        ?\n"));
	assert_non_null(strstr(s, "  when          ?\n"));
	assert_non_null(strstr(s, "  approvals     0 of ?\n"));
	assert_non_null(strstr(s, "  executed rows ?\n"));
	wbuf_free(&out);
}

static void test_times(void **state)
{
	char buf[64];

	(void)state;
	ctl_print_time(buf, sizeof(buf), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	ctl_print_time(buf, sizeof(buf), 1714566896999LL);
	assert_string_equal(buf, "2024-05-01T12:34:56Z");
	ctl_print_time(buf, sizeof(buf), -1);
	assert_string_equal(buf, "-1");
	ctl_print_time(buf, sizeof(buf), 253402300799999LL);
	assert_string_equal(buf, "9999-12-31T23:59:59Z");
	ctl_print_time(buf, sizeof(buf), 253402300800000LL);
	assert_string_equal(buf, "253402300800000");
	ctl_print_time(buf, sizeof(buf), INT64_MAX);
	assert_string_equal(buf, "9223372036854775807");
}

static void test_json_passthrough(void **state)
{
	struct approval recs[2] = {plain_record(ID, "UPDATE t SET a = 1"),
				   plain_record(ID2, "UPDATE t SET a = '\xe2\x80\xae\x1b'")};
	char *body = encode(recs, 2, true);
	char *one = encode(recs, 1, false);
	struct wbuf out;

	(void)state;
	wbuf_init(&out);
	assert_true(ctl_print_json(&out, body, strlen(body), CTL_SHAPE_LIST, err, sizeof(err)));
	assert_int_equal(out.len, strlen(body) + 1);
	assert_memory_equal(out.data, body, strlen(body));
	assert_int_equal(out.data[strlen(body)], '\n');
	/* The escaped hostile text went through escaped, as received. */
	assert_non_null(strstr(text(&out), "\\u202E"));
	assert_false(approval_text_suspicious(text(&out), out.len));
	wbuf_reset(&out);
	assert_true(ctl_print_json(&out, one, strlen(one), CTL_SHAPE_RECORD, err, sizeof(err)));
	assert_int_equal(out.len, strlen(one) + 1);
	wbuf_reset(&out);
	assert_true(ctl_print_json(&out, "[]\n", 3, CTL_SHAPE_LIST, err, sizeof(err)));
	assert_string_equal(text(&out), "[]\n");
	wbuf_free(&out);
	free(body);
	free(one);
}

/* Replies --json must refuse, with the words the error holds. */
static const struct {
	const char *body;
	enum ctl_shape shape;
	const char *words;
} refused[] = {
	{"", CTL_SHAPE_LIST, "not JSON"},
	{"[", CTL_SHAPE_LIST, "not JSON"},
	{"<html>502 Bad Gateway</html>", CTL_SHAPE_LIST, "not JSON"},
	{"[] []", CTL_SHAPE_LIST, "not JSON"},
	{"{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\", \"rows\": 1,}", CTL_SHAPE_RECORD, "not JSON"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\xff\", \"rows\": 1}]", CTL_SHAPE_LIST, "not UTF-8"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"\\ud800\", \"rows\": 1}]", CTL_SHAPE_LIST,
	 "not JSON"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\x1b[2J\", \"rows\": 1}]", CTL_SHAPE_LIST,
	 "raw control"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\xe2\x80\xae\", \"rows\": 1}]", CTL_SHAPE_LIST,
	 "raw control"},
	{"[]\r", CTL_SHAPE_LIST, "raw control"},
	{"{}", CTL_SHAPE_LIST, "not a list"},
	{"[1]", CTL_SHAPE_LIST, "not a list"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"statement\": \"s\", \"rows\": \"1\"}]", CTL_SHAPE_LIST,
	 "not a list"},
	{"[{\"id\": \"" ID "\", \"user\": \"u\", \"rows\": 1}]", CTL_SHAPE_LIST, "not a list"},
	{"[]", CTL_SHAPE_RECORD, "not a record"},
	{"{\"error\": \"nope\"}", CTL_SHAPE_RECORD, "not a record"},
	{"{\"id\": 1, \"user\": \"u\", \"statement\": \"s\", \"rows\": 1}", CTL_SHAPE_RECORD, "not a record"},
	{"{\"id\": \"" ID "\", \"id\": \"" ID2 "\", \"user\": \"u\", \"statement\": \"s\", \"rows\": 1}",
	 CTL_SHAPE_RECORD, "not JSON"},
};

static void test_json_refuses(void **state)
{
	struct wbuf out;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *b = refused[i].body;

		wbuf_init(&out);
		err[0] = '\0';
		assert_false(ctl_print_json(&out, b, strlen(b), refused[i].shape, err, sizeof(err)));
		if (!strstr(err, refused[i].words))
			fail_msg("reply %zu: error \"%s\" lacks \"%s\"", i, err, refused[i].words);
		assert_int_equal(out.len, 0);
		/* The text renderers refuse what does not parse or has another shape too. */
		if (strstr(refused[i].words, "raw control") == NULL) {
			if (refused[i].shape == CTL_SHAPE_LIST)
				assert_false(ctl_print_list(&out, b, strlen(b), APPROVAL_PENDING, err, sizeof(err)));
			else
				assert_false(ctl_print_record(&out, b, strlen(b), err, sizeof(err)));
			assert_int_equal(out.len, 0);
		}
		wbuf_free(&out);
	}
}

static void test_refusals(void **state)
{
	char long_msg[3001], body[3100];
	struct wbuf out;
	const char *s;

	(void)state;
	wbuf_init(&out);
	s = "{\"error\": \"already decided\"}";
	assert_true(ctl_print_refusal(&out, 409, s, strlen(s)));
	assert_string_equal(text(&out),
			    "airlockctl: already decided (HTTP 409: the write was already decided or has expired)\n");
	wbuf_reset(&out);
	s = "{\"error\": \"bad credentials\"}";
	assert_true(ctl_print_refusal(&out, 401, s, strlen(s)));
	assert_string_equal(text(&out),
			    "airlockctl: bad credentials (HTTP 401: check --user and AIRLOCK_APPROVER_PASSWORD)\n");
	wbuf_reset(&out);
	s = "{\"error\": \"boom\"}";
	assert_true(ctl_print_refusal(&out, 500, s, strlen(s)));
	assert_string_equal(text(&out), "airlockctl: boom (HTTP 500)\n");
	wbuf_reset(&out);
	s = "<html>Too Many Requests</html>";
	assert_true(ctl_print_refusal(&out, 429, s, strlen(s)));
	assert_string_equal(text(&out), "airlockctl: the server answered HTTP 429 (too many failed logins: wait "
					"before trying again)\n");
	wbuf_reset(&out);
	assert_true(ctl_print_refusal(&out, 502, "", 0));
	assert_string_equal(text(&out), "airlockctl: the server answered HTTP 502\n");
	wbuf_reset(&out);
	assert_true(ctl_print_refusal(&out, 404, NULL, 0));
	assert_string_equal(
		text(&out),
		"airlockctl: the server answered HTTP 404 (no such write, or --url is not the approval listener)\n");

	/* The server's message is escaped, its later lines indented. */
	wbuf_reset(&out);
	s = "{\"error\": \"no \\u001b[2J\\u202e such\\r\\nwrite\"}";
	assert_true(ctl_print_refusal(&out, 404, s, strlen(s)));
	assert_string_equal(text(&out),
			    "airlockctl: no <U+001B>[2J<U+202E> such<U+000D>\n"
			    "                write (HTTP 404: no such write, or --url is not the approval listener)\n");

	/* A long message is cut at a character's start: no stray byte shows. */
	wbuf_reset(&out);
	for (size_t i = 0; i < 1500; i++)
		memcpy(long_msg + 2 * i, "\xc3\xa9", 2);
	long_msg[3000] = '\0';
	/* "x" and 1500 two-byte characters: the cut at 1024 bytes falls inside one and backs off to its start. */
	snprintf(body, sizeof(body), "{\"error\": \"x%s\"}", long_msg);
	assert_true(ctl_print_refusal(&out, 500, body, strlen(body)));
	s = text(&out);
	assert_false(approval_text_suspicious(s, strlen(s)));
	assert_null(strstr(s, "<\\x"));
	assert_int_equal(strlen(s), strlen("airlockctl: x") + 1022 + strlen(" (HTTP 500)\n"));
	wbuf_free(&out);
}

static void test_error_line(void **state)
{
	struct wbuf out;

	(void)state;
	wbuf_init(&out);
	assert_true(ctl_print_error(&out, "SSL peer certificate \x1b]0;x\x07 was not OK"));
	assert_string_equal(text(&out), "airlockctl: SSL peer certificate <U+001B>]0;x<U+0007> was not OK\n");
	wbuf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_layout),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_hostile_statements_print_inert),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_suspicious_warning),
		cmocka_unit_test(test_show_fields),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_json_passthrough),
		cmocka_unit_test(test_json_refuses),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_error_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
