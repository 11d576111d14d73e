/*
 * test_ctl_http: the one HTTPS request against a TLS server the test runs
 * itself, on 127.0.0.1 only, with throwaway self-signed certificates the
 * test makes with OpenSSL's API (one naming 127.0.0.1, one naming another
 * host). Each case forks a child that accepts one connection, answers it
 * as the case says and hands the request it read back through a pipe.
 *
 * What it shows: HTTP Basic carries a user and a password holding ':'
 * and non-ASCII intact; a POST says Content-Type: application/json and
 * sends its body exactly; the peer is verified (an unknown CA, or a
 * certificate for another name, fails before any request is sent); a
 * refusal's status and body come back; a redirect is not followed; a
 * reply over the cap fails whether or not it announced its length; a
 * silent server times out; http:// is refused. No error text holds the
 * password.
 */
#define _GNU_SOURCE /* strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "ctl/ctl_http.h"

#define PASSWORD "pa:ss w\xc3\xa9 \"x\""

struct cert {
	EVP_PKEY *key;
	X509 *x509;
	char path[64]; /* the certificate as PEM, for --cacert */
};

static struct cert good;  /* names IP 127.0.0.1 */
static struct cert other; /* names DNS elsewhere.invalid */

/* What the child does with the one connection it accepts. */
enum answer {
	ANSWER_JSON,       /* 200 and a small JSON body */
	ANSWER_CONFLICT,   /* 409 and {"error": ...} */
	ANSWER_REDIRECT,   /* 302 to another path */
	ANSWER_BIG_LENGTH, /* 200 announcing and sending 4096 bytes */
	ANSWER_BIG_STREAM, /* 200 sending 4096 bytes with no length, then closing */
	ANSWER_SILENT,     /* reads the request, answers nothing */
};

static const char json_body[] = "[{\"id\": \"wabcdefghijklmnopqrst\"}]";

static bool add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	bool ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	ok = ext && X509_add_ext(x, ext, -1) == 1;
	X509_EXTENSION_free(ext);
	return ok;
}

static void make_cert(struct cert *c, const char *cn, const char *san)
{
	X509_NAME *name;
	FILE *f;
	int fd;

	c->key = EVP_EC_gen("P-256");
	assert_non_null(c->key);
	c->x509 = X509_new();
	assert_non_null(c->x509);
	assert_int_equal(X509_set_version(c->x509, 2), 1);
	assert_int_equal(ASN1_INTEGER_set(X509_get_serialNumber(c->x509), 1), 1);
	assert_non_null(X509_gmtime_adj(X509_getm_notBefore(c->x509), -3600));
	assert_non_null(X509_gmtime_adj(X509_getm_notAfter(c->x509), 3600));
	assert_int_equal(X509_set_pubkey(c->x509, c->key), 1);
	name = X509_get_subject_name(c->x509);
	assert_int_equal(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0), 1);
	assert_int_equal(X509_set_issuer_name(c->x509, name), 1);
	assert_true(add_ext(c->x509, NID_basic_constraints, "critical,CA:TRUE"));
	assert_true(add_ext(c->x509, NID_subject_alt_name, san));
	assert_true(X509_sign(c->x509, c->key, EVP_sha256()) > 0);

	strcpy(c->path, "/tmp/test_ctl_http_XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_X509(f, c->x509), 1);
	assert_int_equal(fclose(f), 0);
}

static void free_cert(struct cert *c)
{
	unlink(c->path);
	X509_free(c->x509);
	EVP_PKEY_free(c->key);
}

static int setup(void **state)
{
	(void)state;
	make_cert(&good, "127.0.0.1", "IP:127.0.0.1");
	make_cert(&other, "elsewhere.invalid", "DNS:elsewhere.invalid");
	return ctl_http_global_init() ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ctl_http_global_cleanup();
	free_cert(&good);
	free_cert(&other);
	return 0;
}

/* The request's head and its Content-Length body, read into buf (NUL-terminated); its length. */
static size_t read_request(SSL *ssl, char *buf, size_t cap)
{
	size_t len = 0, want = 0;
	const char *end = NULL, *cl;
	int n;

	while (len + 1 < cap && (!end || len < want)) {
		n = SSL_read(ssl, buf + len, (int)(cap - 1 - len));
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (!end && (end = strstr(buf, "\r\n\r\n"))) {
			cl = strcasestr(buf, "\r\nContent-Length:");
			want = (size_t)(end - buf) + 4 + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
		}
	}
	buf[len] = '\0';
	return len;
}

static void answer(SSL *ssl, enum answer how)
{
	char big[4096], head[256];
	int n = 0;

	memset(big, 'x', sizeof(big));
	switch (how) {
	case ANSWER_JSON:
		n = snprintf(head, sizeof(head),
			     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
			     strlen(json_body), json_body);
		break;
	case ANSWER_CONFLICT:
		n = snprintf(head, sizeof(head),
			     "HTTP/1.1 409 Conflict\r\nContent-Length: 22\r\n\r\n{\"error\": \"decided\"}\r\n");
		break;
	case ANSWER_REDIRECT:
		n = snprintf(head, sizeof(head),
			     "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n");
		break;
	case ANSWER_BIG_LENGTH:
		n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", sizeof(big));
		break;
	case ANSWER_BIG_STREAM:
		n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
		break;
	case ANSWER_SILENT:
		sleep(2);
		return;
	}
	SSL_write(ssl, head, n);
	if (how == ANSWER_BIG_LENGTH || how == ANSWER_BIG_STREAM)
		SSL_write(ssl, big, sizeof(big));
}

/* The child: one TLS connection on lfd, answered as how; the request read goes to out. Never returns. */
static void serve_one(int lfd, const struct cert *c, enum answer how, int out)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	char req[65536];
	size_t len = 0;
	SSL *ssl = NULL;
	int fd;

	alarm(10);
	fd = accept(lfd, NULL, NULL);
	if (ctx && fd >= 0 && SSL_CTX_use_certificate(ctx, c->x509) == 1 && SSL_CTX_use_PrivateKey(ctx, c->key) == 1 &&
	    (ssl = SSL_new(ctx)) && SSL_set_fd(ssl, fd) == 1 && SSL_accept(ssl) == 1) {
		len = read_request(ssl, req, sizeof(req));
		answer(ssl, how);
		SSL_shutdown(ssl);
	}
	if (len && write(out, req, len) != (ssize_t)len)
		_exit(1);
	_exit(0);
}

/* One exchange: a child serving how with c; the request it saw, malloc'd ("" when none came). */
struct exchange {
	bool ok;
	struct ctl_http_reply reply;
	char err[512];
	char *request;
};

static void run(struct exchange *ex, const struct cert *c, enum answer how, const struct ctl_http_conn *conn,
		const char *method, const char *path, const char *body, bool plain_http)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), p[2], status;
	char url[128], buf[4096];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		serve_one(lfd, c, how, p[1]);
	}
	close(p[1]);
	snprintf(url, sizeof(url), "%s://127.0.0.1:%u%s", plain_http ? "http" : "https", ntohs(sa.sin_port), path);
	ex->ok = ctl_http_send(conn, method, url, body, &ex->reply, ex->err, sizeof(ex->err));
	/* A request that never reached the child leaves it in accept: wake it. */
	if (!ex->ok)
		shutdown(lfd, SHUT_RDWR);
	close(lfd);
	ex->request = malloc(65536);
	assert_non_null(ex->request);
	while ((n = read(p[0], buf, sizeof(buf))) > 0 && len + (size_t)n < 65536) {
		memcpy(ex->request + len, buf, (size_t)n);
		len += (size_t)n;
	}
	ex->request[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_null(strstr(ex->err, "pa:ss"));
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void done(struct exchange *ex)
{
	ctl_http_reply_free(&ex->reply);
	free(ex->request);
}

static struct ctl_http_conn conn_for(const struct cert *c)
{
	struct ctl_http_conn conn = {.user = "alice", .password = PASSWORD, .cacert = c->path};

	return conn;
}

static void test_get_with_basic_auth(void **state)
{
	struct ctl_http_conn conn = conn_for(&good);
	unsigned char b64[128];
	char expect[160];
	struct exchange ex;

	(void)state;
	run(&ex, &good, ANSWER_JSON, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	if (!ex.ok)
		fail_msg("%s", ex.err);
	assert_int_equal(ex.reply.status, 200);
	assert_int_equal(ex.reply.len, strlen(json_body));
	assert_string_equal(ex.reply.body, json_body);
	assert_true(starts_with(ex.request, "GET /api/approvals?status=pending HTTP/1.1\r\n"));
	EVP_EncodeBlock(b64, (const unsigned char *)"alice:" PASSWORD, (int)strlen("alice:" PASSWORD));
	snprintf(expect, sizeof(expect), "\r\nAuthorization: Basic %s\r\n", b64);
	assert_non_null(strstr(ex.request, expect));
	assert_non_null(strstr(ex.request, "\r\nAccept: application/json\r\n"));
	assert_null(strcasestr(ex.request, "Content-Type"));
	done(&ex);
}

static void test_post_body(void **state)
{
	struct ctl_http_conn conn = conn_for(&good);
	static const char body[] = "{\"reason\":\"caf\xc3\xa9 \\\"ok\\\"\"}";
	struct exchange ex;
	const char *sep;

	(void)state;
	run(&ex, &good, ANSWER_JSON, &conn, "POST", "/api/approvals/wabcdefghijklmnopqrst/approve", body, false);
	if (!ex.ok)
		fail_msg("%s", ex.err);
	assert_int_equal(ex.reply.status, 200);
	assert_true(starts_with(ex.request, "POST /api/approvals/wabcdefghijklmnopqrst/approve HTTP/1.1\r\n"));
	assert_non_null(strstr(ex.request, "\r\nContent-Type: application/json\r\n"));
	assert_null(strcasestr(ex.request, "Expect:"));
	sep = strstr(ex.request, "\r\n\r\n");
	assert_non_null(sep);
	assert_string_equal(sep + 4, body);
	done(&ex);
}

static void test_peer_verified(void **state)
{
	struct ctl_http_conn system_cas = {.user = "alice", .password = PASSWORD};
	struct ctl_http_conn conn = conn_for(&other);
	struct exchange ex;

	(void)state;
	/* A self-signed certificate the system does not trust: no request is sent. */
	run(&ex, &good, ANSWER_JSON, &system_cas, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_non_null(strstr(ex.err, "certificate"));
	assert_string_equal(ex.request, "");
	assert_null(ex.reply.body);
	done(&ex);

	/* A trusted certificate for another name. */
	run(&ex, &other, ANSWER_JSON, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_non_null(strstr(ex.err, "name"));
	assert_string_equal(ex.request, "");
	done(&ex);

	/* The CA file is another certificate than the server's. */
	run(&ex, &good, ANSWER_JSON, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_string_equal(ex.request, "");
	done(&ex);
}

static void test_refusal_and_redirect(void **state)
{
	struct ctl_http_conn conn = conn_for(&good);
	struct exchange ex;

	(void)state;
	run(&ex, &good, ANSWER_CONFLICT, &conn, "POST", "/api/approvals/wabcdefghijklmnopqrst/reject", "{}", false);
	assert_true(ex.ok);
	assert_int_equal(ex.reply.status, 409);
	assert_string_equal(ex.reply.body, "{\"error\": \"decided\"}\r\n");
	done(&ex);

	/* The redirect comes back as it is; a second request would find no server. */
	run(&ex, &good, ANSWER_REDIRECT, &conn, "GET", "/api/approvals/wabcdefghijklmnopqrst", NULL, false);
	assert_true(ex.ok);
	assert_int_equal(ex.reply.status, 302);
	assert_string_equal(ex.reply.body, "");
	done(&ex);
}

static void test_reply_cap(void **state)
{
	struct ctl_http_conn conn = conn_for(&good);
	struct exchange ex;

	(void)state;
	conn.reply_max = 1024;
	run(&ex, &good, ANSWER_BIG_LENGTH, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_string_equal(ex.err, "the server's reply is larger than 1024 bytes");
	assert_null(ex.reply.body);
	done(&ex);

	run(&ex, &good, ANSWER_BIG_STREAM, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_string_equal(ex.err, "the server's reply is larger than 1024 bytes");
	done(&ex);

	/* At the cap exactly it fits. */
	conn.reply_max = 4096;
	run(&ex, &good, ANSWER_BIG_STREAM, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_true(ex.ok);
	assert_int_equal(ex.reply.len, 4096);
	done(&ex);
}

static void test_timeout_and_plain_http(void **state)
{
	struct ctl_http_conn conn = conn_for(&good);
	struct exchange ex;

	(void)state;
	conn.timeout_ms = 300;
	run(&ex, &good, ANSWER_SILENT, &conn, "GET", "/api/approvals?status=pending", NULL, false);
	assert_false(ex.ok);
	assert_non_null(strcasestr(ex.err, "timed out"));
	done(&ex);

	/* Refused by libcurl before it connects, not by the TLS server failing to read it. */
	run(&ex, &good, ANSWER_JSON, &conn, "GET", "/api/approvals?status=pending", NULL, true);
	assert_false(ex.ok);
	assert_non_null(strstr(ex.err, "not supported"));
	assert_string_equal(ex.request, "");
	done(&ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_with_basic_auth), cmocka_unit_test(test_post_body),
		cmocka_unit_test(test_peer_verified),       cmocka_unit_test(test_refusal_and_redirect),
		cmocka_unit_test(test_reply_cap),           cmocka_unit_test(test_timeout_and_plain_http),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
