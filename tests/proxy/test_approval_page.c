/*
 * test_approval_page: the approval page's HTML for hostile records. Every
 * page is scanned as a browser would tokenize it: each tag must be one the
 * page writes itself, with no event-handler attribute, whatever the agent
 * put in its statement, values, names or sample; marked characters show
 * as markers; the sample's changed cells are marked; an empty or
 * malformed sample and the forms' presence follow the record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/wbuf.h"
#include "proxy/approval_page.h"

#define CSRF "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static const char *const allowed_tags[] = {
	"!DOCTYPE", "html", "head", "meta", "title", "link", "body",  "header", "a",     "form",     "strong", "input",
	"button",   "main", "h1",   "h2",   "h3",    "p",    "label", "table",  "thead", "tbody",    "tr",     "th",
	"td",       "code", "dl",   "dt",   "dd",    "div",  "pre",   "span",   "mark",  "textarea",
};

/* Every tag in html is allowed and has no attribute whose name starts with "on"; the number of tags. */
static size_t check_tags(const char *html)
{
	size_t tags = 0;

	for (const char *p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
		const char *end = strchr(p, '>'), *name = p + 1;
		size_t n, i;
		bool known = false;

		assert_non_null(end);
		if (*name == '/')
			name++;
		n = strspn(name, "!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
		for (i = 0; i < sizeof(allowed_tags) / sizeof(allowed_tags[0]); i++)
			if (strlen(allowed_tags[i]) == n && !strncmp(allowed_tags[i], name, n))
				known = true;
		if (!known)
			fail_msg("a tag the page does not write: %.40s", p);
		/* Attributes: outside quotes, a name after white space. */
		for (const char *q = name + n; q < end; q++) {
			if (*q == '"') {
				q = strchr(q + 1, '"');
				assert_true(q && q < end);
				continue;
			}
			if ((q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\t' || q[-1] == '/') &&
			    (q[0] == 'o' || q[0] == 'O') && (q[1] == 'n' || q[1] == 'N'))
				fail_msg("an event attribute: %.60s", p);
		}
		p = end;
		tags++;
	}
	return tags;
}

static char *str(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

/* A pending record with every string set to something hostile. */
static void hostile(struct approval *a)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->id, "wabcdefghijklmnopqrst");
	a->status = APPROVAL_PENDING;
	a->user = str("writer<script>alert(1)</script>");
	a->protocol = str("postgres");
	a->client_addr = str("127.0.0.1\"><img src=x onerror=alert(1)>");
	a->application_name = str("psql\xe2\x80\xae"
				  "gnp.exe' onmouseover='alert(1)");
	a->statement = str("/* approve me */ UPDATE t SET a = '</td><script>document.title=\"pwned\"</script>'"
			   "\n-- \xe2\x80\xae hidden\xe2\x80\x8b zero width \xff\xfe <img src=x onerror=alert(1)>");
	a->params = str("[\"</pre><script>alert(2)</script>\", null, \"\\u202e\", \"<b onclick=x>\"]");
	a->rewritten = str("UPDATE public.t SET a = '</td><script>document.title=\"pwned\"</script>'");
	a->plan = str("Update on t  (cost=0.00..1.00 rows=1 width=6)\n  -> <script>x</script>");
	a->sample = str("{\"columns\":[\"a\",\"<th onclick=1>\"],\"rows\":[{\"before\":[\"1\",\"<i>x</i>\"],"
			"\"after\":[\"1\",\"</td><script>y</script>\"]},{\"before\":null,\"after\":[\"2\",null]},"
			"{\"before\":[\"3\",\"z\"],\"after\":null}],\"truncated\":true}");
	a->rows = 3;
	a->executed_rows = -1;
	a->created_at = 1767225599000; /* 2025-12-31 23:59:59 UTC */
	a->expires_at = 1767229199000;
	a->approvals_needed = 2;
	a->approved_by = str("first\"approver");
	a->decided_by = str("");
	a->reason = str("<script>reason</script>");
	a->policy_checksum = str("");
}

static char *render_record(const struct approval *a)
{
	struct wbuf w;
	char *out;

	wbuf_init(&w);
	assert_true(approval_page_record(&w, a, "approver<x>", CSRF));
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	out = (char *)w.data;
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_hostile_record_is_inert(void **state)
{
	struct approval a;
	char *out;

	(void)state;
	hostile(&a);
	out = render_record(&a);
	assert_true(check_tags(out) > 50);
	assert_null(strstr(out, "<script"));
	assert_null(strstr(out, "<img"));
	assert_null(strstr(out, "<i>"));
	assert_null(strstr(out, "<b "));
	assert_non_null(strstr(out, "&lt;/td&gt;&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;"));
	assert_non_null(strstr(out, "/* approve me */"));
	/* The override, the zero-width space and the bytes that are not UTF-8 are markers, not themselves. */
	assert_null(strstr(out, "\xe2\x80\xae"));
	assert_null(strstr(out, "\xe2\x80\x8b"));
	assert_non_null(strstr(out, "<span class=\"ch\">U+202E</span> hidden<span class=\"ch\">U+200B</span>"));
	assert_non_null(strstr(out, "<span class=\"ch\">\\xFF</span>"));
	assert_non_null(strstr(out, "class=\"badge\""));
	assert_non_null(strstr(out, "2025-12-31 23:59:59 UTC"));
	assert_non_null(strstr(out, "writer&lt;script&gt;"));
	assert_non_null(strstr(out, "127.0.0.1&quot;&gt;&lt;img"));
	assert_non_null(strstr(out, "first&quot;approver"));
	/* The bound values: each one, in order, NULL shown as such. */
	assert_non_null(strstr(out, "<th>$1</th><td>&lt;/pre&gt;&lt;script&gt;alert(2)"));
	assert_non_null(strstr(out, "<th>$2</th><td><span class=\"null\">NULL</span>"));
	assert_non_null(strstr(out, "<th>$3</th><td><span class=\"ch\">U+202E</span>"));
	/* The plan, the forms with the CSRF token, the approver in the header. */
	assert_non_null(strstr(out, "id=\"plan\""));
	assert_int_equal(count(out, "name=\"csrf\" value=\"" CSRF "\""), 3);
	assert_non_null(strstr(out, "action=\"/approval/wabcdefghijklmnopqrst/approve\""));
	assert_non_null(strstr(out, "action=\"/approval/wabcdefghijklmnopqrst/reject\""));
	assert_non_null(strstr(out, "Signed in as <strong>approver&lt;x&gt;</strong>"));
	free(out);
	approval_free(&a);
}

static void test_sample_marks_changes(void **state)
{
	struct approval a;
	char *out;

	(void)state;
	hostile(&a);
	out = render_record(&a);
	/* Row 1 changed its second value only; row 2 is inserted, row 3 deleted: nothing to compare. */
	assert_int_equal(count(out, "<td class=\"changed\">"), 1);
	assert_non_null(strstr(out, "<td class=\"changed\"><mark>&lt;/td&gt;&lt;script&gt;y&lt;/script&gt;</mark>"));
	assert_non_null(strstr(out, "<tr class=\"after\"><th>inserted</th><td>2</td><td><span class=\"null\">NULL"));
	assert_non_null(strstr(out, "<tr class=\"before\"><th>deleted</th><td>3</td><td>z</td>"));
	assert_non_null(strstr(out, "<th>&lt;th onclick=1&gt;</th>"));
	assert_non_null(strstr(out, "id=\"truncated\""));
	free(out);
	approval_free(&a);
}

static void test_sample_absent_empty_or_malformed(void **state)
{
	static const char *const none[] = {"", "{\"columns\":[],\"rows\":[]}"};
	static const char *const bad[] = {"[1,2]", "{\"columns\":1,\"rows\":[]}",
					  "{\"columns\":[\"a\"],\"a\":1,\"a\":2}", "not json</pre><script>"};
	struct approval a;
	char *out;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		hostile(&a);
		free(a.sample);
		a.sample = str(none[i]);
		out = render_record(&a);
		assert_non_null(strstr(out, "<p id=\"sample\" class=\"null\">no sample</p>"));
		free(out);
		approval_free(&a);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hostile(&a);
		free(a.sample);
		a.sample = str(bad[i]);
		out = render_record(&a);
		check_tags(out);
		assert_non_null(strstr(out, "not in the expected shape"));
		assert_null(strstr(out, "<script"));
		free(out);
		approval_free(&a);
	}
}

/* The reason a sample is empty, written by the database, shows as text beside "no sample". */
static void test_sample_note_is_shown_escaped(void **state)
{
	struct approval a;
	char *out;

	(void)state;
	hostile(&a);
	free(a.sample);
	a.sample = str("{\"columns\":[],\"rows\":[],\"truncated\":true,"
		       "\"note\":\"the rows could not be read before the write: <script>alert(1)</script>\"}");
	out = render_record(&a);
	check_tags(out);
	assert_non_null(strstr(out,
			       "<p id=\"sample\" class=\"null\">no sample</p><p class=\"note\" id=\"sample-note\">the "
			       "rows could not be read before the write: &lt;script&gt;alert(1)&lt;/script&gt;</p>"));
	assert_null(strstr(out, "<script"));
	free(out);
	approval_free(&a);
}

static void test_an_approver_who_approved_waits(void **state)
{
	struct approval a;
	struct wbuf w;

	(void)state;
	hostile(&a);
	free(a.approved_by);
	a.approved_by = str("alice,approver<x>");
	wbuf_init(&w);
	assert_true(approval_page_record(&w, &a, "approver<x>", CSRF));
	wbuf_put_u8(&w, 0);
	assert_null(strstr((char *)w.data, "id=\"approve\""));
	assert_non_null(strstr((char *)w.data, "id=\"waiting\""));
	assert_non_null(strstr((char *)w.data, "id=\"reject\""));
	wbuf_free(&w);
	/* A name that is only a prefix or a suffix of one listed is not listed. */
	free(a.approved_by);
	a.approved_by = str("approver<x>z,zapprover<x>");
	wbuf_init(&w);
	assert_true(approval_page_record(&w, &a, "approver<x>", CSRF));
	wbuf_put_u8(&w, 0);
	assert_non_null(strstr((char *)w.data, "id=\"approve\""));
	assert_null(strstr((char *)w.data, "id=\"waiting\""));
	wbuf_free(&w);
	approval_free(&a);
}

static void test_decided_record_has_no_forms(void **state)
{
	struct approval a;
	char *out;

	(void)state;
	hostile(&a);
	a.status = APPROVAL_REJECTED;
	free(a.plan);
	a.plan = str("");
	free(a.params);
	a.params = str("[]");
	a.executed_rows = 0;
	out = render_record(&a);
	check_tags(out);
	assert_null(strstr(out, "id=\"approve\""));
	assert_null(strstr(out, "id=\"reject\""));
	assert_null(strstr(out, "id=\"plan\""));
	assert_non_null(strstr(out, "<p id=\"params\" class=\"null\">none</p>"));
	assert_non_null(strstr(out, "&lt;script&gt;reason&lt;/script&gt;"));
	/* Only the logout form carries the token. */
	assert_int_equal(count(out, CSRF), 1);
	free(out);
	approval_free(&a);
}

static void test_list(void **state)
{
	struct approval a;
	struct wbuf w;
	char *out;

	(void)state;
	hostile(&a);
	wbuf_init(&w);
	approval_page_list_begin(&w, "approver", CSRF);
	approval_page_list_row(&w, &a);
	approval_page_list_end(&w, 1);
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	out = (char *)w.data;
	check_tags(out);
	assert_null(strstr(out, "<script"));
	/* The first line only, with the badge. */
	assert_non_null(strstr(out, "<code>/* approve me */ UPDATE t SET a = &#39;&lt;/td&gt;"));
	assert_null(strstr(out, "zero width"));
	assert_non_null(strstr(out, "class=\"badge\""));
	assert_non_null(strstr(out, "href=\"/approval/wabcdefghijklmnopqrst\""));
	assert_null(strstr(out, "id=\"empty\""));
	wbuf_free(&w);
	approval_free(&a);

	wbuf_init(&w);
	approval_page_list_begin(&w, "approver", CSRF);
	approval_page_list_end(&w, 0);
	wbuf_put_u8(&w, 0);
	assert_non_null(strstr((char *)w.data, "id=\"empty\""));
	wbuf_free(&w);
}

static void test_login_and_message(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	approval_page_login(&w, "wrong <name> or password");
	wbuf_put_u8(&w, 0);
	check_tags((char *)w.data);
	assert_non_null(strstr((char *)w.data, "wrong &lt;name&gt; or password"));
	assert_non_null(strstr((char *)w.data, "action=\"/login\""));
	assert_null(strstr((char *)w.data, "Log out"));
	wbuf_free(&w);
	wbuf_init(&w);
	approval_page_message(&w, "Refused", "no <b>", "/\"x");
	wbuf_put_u8(&w, 0);
	check_tags((char *)w.data);
	assert_non_null(strstr((char *)w.data, "href=\"/&quot;x\""));
	wbuf_free(&w);
}

static void test_first_line_and_time(void **state)
{
	char buf[300], when[40];
	bool cut;

	(void)state;
	assert_int_equal(approval_page_first_line("abc\ndef", 100, &cut), 3);
	assert_true(cut);
	assert_int_equal(approval_page_first_line("abc", 100, &cut), 3);
	assert_false(cut);
	assert_int_equal(approval_page_first_line("ab\r\n", 100, &cut), 2);
	/* A cut inside a three-byte character backs off to its start. */
	memset(buf, 'a', 200);
	memcpy(buf + 159, "\xe2\x80\xae", 3);
	buf[200] = '\0';
	assert_int_equal(approval_page_first_line(buf, 160, &cut), 159);
	assert_true(cut);
	approval_page_time(0, when, sizeof(when));
	assert_string_equal(when, "-");
	approval_page_time(1000, when, sizeof(when));
	assert_string_equal(when, "1970-01-01 00:00:01 UTC");
}

static void test_css_is_static(void **state)
{
	(void)state;
	assert_non_null(strstr(approval_page_css(), ".ch{"));
	assert_null(strstr(approval_page_css(), "url("));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_record_is_inert),
		cmocka_unit_test(test_sample_marks_changes),
		cmocka_unit_test(test_sample_absent_empty_or_malformed),
		cmocka_unit_test(test_sample_note_is_shown_escaped),
		cmocka_unit_test(test_an_approver_who_approved_waits),
		cmocka_unit_test(test_decided_record_has_no_forms),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_login_and_message),
		cmocka_unit_test(test_first_line_and_time),
		cmocka_unit_test(test_css_is_static),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
