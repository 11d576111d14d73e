/*
 * test_approval_notify: the webhook's body (hostile statements come out as
 * inert JSON that reads back as sent; the statement is cut at a character
 * boundary; the approval page's URL only with a listener), its signature
 * (RFC 4231's HMAC-SHA256 vectors), and the cap on deliveries in flight.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <event2/event.h>
#include <jansson.h>

#include "approval/approval.h"
#include "base/wbuf.h"
#include "conf/config.h"
#include "proxy/approval_notify.h"

static struct approval record(const char *statement)
{
	struct approval a = {
		.id = "wabcdefghijklmnopqrst",
		.status = APPROVAL_PENDING,
		.user = (char *)"agent",
		.protocol = (char *)"postgres",
		.statement = (char *)statement,
		.rows = 3,
		.created_at = 1700000000000,
		.expires_at = 1700003600000,
	};

	return a;
}

/* The body for a, checked to be one JSON object with no raw control, < > or &; parsed. */
static json_t *body_of(const struct approval *a, const char *host, uint16_t port, struct wbuf *w)
{
	json_error_t jerr;
	json_t *j;

	wbuf_init(w);
	assert_true(approval_notify_body(w, a, host, port));
	for (size_t i = 0; i < w->len; i++) {
		assert_true(w->data[i] >= 0x20 && w->data[i] != 0x7f);
		assert_true(w->data[i] != '<' && w->data[i] != '>' && w->data[i] != '&');
	}
	j = json_loadb((const char *)w->data, w->len, 0, &jerr);
	if (!j)
		fail_msg("not JSON: %s: %.*s", jerr.text, (int)w->len, (const char *)w->data);
	assert_true(json_is_object(j));
	return j;
}

static const char *str(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void test_body_fields(void **state)
{
	struct approval a = record("UPDATE public.orders SET status = 'paid' WHERE id = 7");
	struct wbuf w;
	json_t *j;

	(void)state;
	j = body_of(&a, "127.0.0.1", 8443, &w);
	assert_string_equal(str(j, "event"), "approval.pending");
	assert_string_equal(str(j, "id"), "wabcdefghijklmnopqrst");
	assert_string_equal(str(j, "user"), "agent");
	assert_string_equal(str(j, "protocol"), "postgres");
	assert_int_equal(json_integer_value(json_object_get(j, "rows")), 3);
	assert_string_equal(str(j, "statement"), a.statement);
	assert_true(json_is_false(json_object_get(j, "statement_truncated")));
	assert_true(json_integer_value(json_object_get(j, "created_at")) == 1700000000000);
	assert_true(json_integer_value(json_object_get(j, "expires_at")) == 1700003600000);
	assert_string_equal(str(j, "url"), "https://127.0.0.1:8443/approval/wabcdefghijklmnopqrst");
	json_decref(j);
	wbuf_free(&w);

	/* An IPv6 listener in brackets; no listener, no url. */
	j = body_of(&a, "::1", 9443, &w);
	assert_string_equal(str(j, "url"), "https://[::1]:9443/approval/wabcdefghijklmnopqrst");
	json_decref(j);
	wbuf_free(&w);
	j = body_of(&a, NULL, 0, &w);
	assert_null(json_object_get(j, "url"));
	json_decref(j);
	wbuf_free(&w);
}

/* Quotes, a closing script tag, bidi overrides and controls: escaped, and read back exactly. */
static void test_body_hostile_statement(void **state)
{
	static const char hostile[] = "UPDATE t SET note = '\"}, \"id\": \"forged\", \"x\": \"' -- </script><img src=x "
				      "onerror=alert(1)>&amp; \xe2\x80\xae\x64\x6e\x65\x73 \xe2\x81\xa6\x1b[2J\r\n\t"
				      "\xef\xbb\xbf\xf0\x9f\x98\x80";
	struct approval a = record(hostile);
	struct wbuf w;
	json_t *j;

	(void)state;
	j = body_of(&a, NULL, 0, &w);
	assert_string_equal(str(j, "statement"), hostile);
	/* the forged field stayed inside the statement */
	assert_string_equal(str(j, "id"), "wabcdefghijklmnopqrst");
	assert_null(json_object_get(j, "x"));
	assert_null(memmem(w.data, w.len, "</script", 8));
	assert_non_null(memmem(w.data, w.len, "\\u202E", 6));
	assert_null(memmem(w.data, w.len, "\xe2\x80\xae", 3));
	json_decref(j);
	wbuf_free(&w);
}

/* Bytes outside UTF-8 become U+FFFD; the body is still valid JSON. */
static void test_body_invalid_utf8(void **state)
{
	struct approval a = record("SELECT '\xff\xfe' || '\xc3' || '\xed\xa0\x80' || '\xc0\xaf'");
	struct wbuf w;
	json_t *j;
	const char *s;

	(void)state;
	j = body_of(&a, NULL, 0, &w);
	s = str(j, "statement");
	assert_non_null(strstr(s, "\xef\xbf\xbd\xef\xbf\xbd"));
	assert_null(strchr(s, '\xff'));
	json_decref(j);
	wbuf_free(&w);
}

/* s: n - tail_len bytes of 'a' followed by tail (allocated). */
static char *padded(size_t n, const char *tail)
{
	size_t t = strlen(tail);
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, 'a', n - t);
	memcpy(s + n - t, tail, t + 1);
	return s;
}

static void expect_cut(size_t n, const char *tail, size_t want_len, const char *want_end, bool truncated)
{
	char *s = padded(n, tail);
	struct approval a = record(s);
	struct wbuf w;
	json_t *j;
	const char *got;
	size_t len;

	j = body_of(&a, NULL, 0, &w);
	got = str(j, "statement");
	len = strlen(got);
	if (len != want_len)
		fail_msg("statement of %zu bytes ending %s: %zu bytes kept, wanted %zu", n, tail, len, want_len);
	assert_string_equal(got + len - strlen(want_end), want_end);
	assert_true(json_is_boolean(json_object_get(j, "statement_truncated")));
	assert_int_equal(json_is_true(json_object_get(j, "statement_truncated")), truncated);
	json_decref(j);
	wbuf_free(&w);
	free(s);
}

/* The first 1000 bytes, never half a character. */
static void test_body_cut_at_char(void **state)
{
	(void)state;
	expect_cut(1000, "a", 1000, "a", false);
	expect_cut(1001, "ab", 1000, "a", true);
	/* é (2 bytes) at 999..1000: it goes whole */
	expect_cut(1001, "\xc3\xa9", 999, "a", true);
	/* € (3 bytes) at 998..1000 */
	expect_cut(1001, "\xe2\x82\xac", 998, "a", true);
	/* 😀 (4 bytes) ending exactly at 1000: kept */
	expect_cut(1000, "\xf0\x9f\x98\x80", 1000, "\xf0\x9f\x98\x80", false);
	/* 😀 at 997..1000: cut before it */
	expect_cut(1001, "\xf0\x9f\x98\x80", 997, "a", true);
	/* U+202E (3 bytes) across the cut: dropped whole, never a stray byte */
	expect_cut(1002, "\xe2\x80\xae", 999, "a", true);
	/* a lone invalid byte at 999 is one character of its own: U+FFFD, then the cut */
	{
		char *s = padded(1002, "\xff"
				       "bc");
		struct approval a = record(s);
		struct wbuf w;
		json_t *j = body_of(&a, NULL, 0, &w);
		const char *got = str(j, "statement");

		assert_int_equal(strlen(got), 999 + 3);
		assert_string_equal(got + 999, "\xef\xbf\xbd");
		json_decref(j);
		wbuf_free(&w);
		free(s);
	}
	/* empty */
	{
		struct approval a = record("");
		struct wbuf w;
		json_t *j = body_of(&a, NULL, 0, &w);

		assert_string_equal(str(j, "statement"), "");
		json_decref(j);
		wbuf_free(&w);
	}
}

/* RFC 4231, test cases 1, 2 and 6 (a key longer than the block). */
static void test_signature(void **state)
{
	char sig[APPROVAL_NOTIFY_SIG_LEN + 1];
	char key1[20], key6[131];
	static const char data6[] = "Test Using Larger Than Block-Size Key - Hash Key First";

	(void)state;
	memset(key1, 0x0b, sizeof(key1));
	assert_true(approval_notify_sign(key1, sizeof(key1), "Hi There", 8, sig));
	assert_string_equal(sig, "sha256=b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	assert_true(approval_notify_sign("Jefe", 4, "what do ya want for nothing?", 28, sig));
	assert_string_equal(sig, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key6, 0xaa, sizeof(key6));
	assert_true(approval_notify_sign(key6, sizeof(key6), data6, strlen(data6), sig));
	assert_string_equal(sig, "sha256=60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	/* the whole body is signed: one byte more changes it */
	assert_true(approval_notify_sign("Jefe", 4, "what do ya want for nothing?!", 29, sig));
	assert_string_not_equal(sig, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

/*
 * Beyond 64 deliveries in flight a held write is not announced, and a
 * notifier freed with deliveries in flight ends them. The receiver is a
 * socket that listens and never accepts, so nothing completes.
 */
static void test_inflight_cap(void **state)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t slen = sizeof(sin);
	struct airlock_config cfg = {0};
	struct approval_notify *n;
	struct event_base *base;
	struct approval a = record("UPDATE t SET x = 1");
	char url[64], err[128];
	int fd;

	(void)state;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &slen), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", (unsigned)ntohs(sin.sin_port));
	cfg.approval_webhook = url;
	base = event_base_new();
	assert_non_null(base);
	n = approval_notify_new(base, &cfg, err, sizeof(err));
	assert_non_null(n);
	assert_string_equal(approval_notify_host(n), "127.0.0.1");
	approval_notify_pending(NULL, &a); /* no notifier: nothing */
	for (int i = 0; i < APPROVAL_NOTIFY_MAX_INFLIGHT + 6; i++)
		approval_notify_pending(n, &a);
	assert_int_equal(approval_notify_inflight(n), APPROVAL_NOTIFY_MAX_INFLIGHT);
	/* let curl start connecting, then free with everything in flight */
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(approval_notify_inflight(n), APPROVAL_NOTIFY_MAX_INFLIGHT);
	approval_notify_free(n);
	/* A CA file that cannot be read is refused when the notifier is made, not at each delivery. */
	cfg.approval_webhook_cacert = (char *)"/nonexistent/ca.pem";
	assert_null(approval_notify_new(base, &cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/ca.pem"));
	event_base_free(base);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_fields),       cmocka_unit_test(test_body_hostile_statement),
		cmocka_unit_test(test_body_invalid_utf8), cmocka_unit_test(test_body_cut_at_char),
		cmocka_unit_test(test_signature),         cmocka_unit_test(test_inflight_cap),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
