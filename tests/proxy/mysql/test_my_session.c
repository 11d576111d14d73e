/*
 * test_my_session: the MySQL session (proxy/mysql/my_session.c) on the
 * session core, driven as a client drives it, bytes in and bytes out over
 * a bufferevent pair, with no validator, runner or database: the initial
 * handshake, mysql_native_password computed here as a client computes it
 * (a right password, a wrong one and an unknown user, which must read
 * alike), caching_sha2_password's full authentication over the RSA
 * exchange and then its fast path, the commands answered without a
 * statement (COM_PING, COM_QUIT, COM_INIT_DB and the rest), sequence ids,
 * packets out of turn and too large, and the core's state at each step:
 * AUTH, READY, BUSY (input waits) and CLOSING.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "protocol/my_auth.h"
#include "protocol/my_codec.h"
#include "proxy/mysql/my_session.h"
#include "tests/proxy/session_fixture.h"

#define CLIENT_CAPS                                                                                  \
	(MY_CAP_LONG_PASSWORD | MY_CAP_PROTOCOL_41 | MY_CAP_SECURE_CONNECTION | MY_CAP_PLUGIN_AUTH | \
	 MY_CAP_TRANSACTIONS | MY_CAP_DEPRECATE_EOF)

static struct my_rsa *rsa; /* one key pair for every test: making one takes a while */

/* ---- the client's side of the wire ---- */

static void send_packet(struct bufferevent *c, uint8_t seq, const void *payload, size_t len)
{
	uint8_t hdr[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), seq};

	sfx_send(c, hdr, 4);
	if (len)
		sfx_send(c, payload, len);
}

static void send_command(struct bufferevent *c, uint8_t seq, uint8_t cmd, const char *arg)
{
	uint8_t buf[256];
	size_t n = arg ? strlen(arg) : 0;

	buf[0] = cmd;
	memcpy(buf + 1, arg ? arg : "", n);
	send_packet(c, seq, buf, n + 1);
}

/* The next packet, which must carry sequence id seq; its payload and length. */
static const uint8_t *next(struct sfx_reply *r, uint8_t seq, size_t *len)
{
	size_t n;

	assert_true(r->len - r->off >= 4);
	n = (size_t)r->buf[r->off] | (size_t)r->buf[r->off + 1] << 8 | (size_t)r->buf[r->off + 2] << 16;
	assert_int_equal(r->buf[r->off + 3], seq);
	assert_true(r->len - r->off - 4 >= n);
	r->off += 4 + n;
	*len = n;
	return r->buf + r->off - n;
}

/* The reply is one OK packet with sequence id seq. */
static void expect_ok(struct sfx_reply *r, uint8_t seq)
{
	size_t n;
	const uint8_t *p = next(r, seq, &n);

	assert_true(n >= 7);
	assert_int_equal(p[0], 0x00);
	assert_int_equal(r->off, r->len);
}

/* The reply is one ERR packet with sequence id seq, errno and SQLSTATE; returns its message. */
static const char *expect_err(struct sfx_reply *r, uint8_t seq, uint16_t code, const char *sqlstate)
{
	static char msg[600];
	size_t n;
	const uint8_t *p = next(r, seq, &n);

	assert_true(n >= 9);
	assert_int_equal(p[0], 0xff);
	assert_int_equal(p[1] | p[2] << 8, code);
	assert_int_equal(p[3], '#');
	assert_memory_equal(p + 4, sqlstate, 5);
	snprintf(msg, sizeof(msg), "%.*s", (int)(n - 9), (const char *)p + 9);
	assert_int_equal(r->off, r->len);
	return msg;
}

/* AuthMoreData with sequence id seq: its data (after 0x01) and length. */
static const uint8_t *expect_more(struct sfx_reply *r, uint8_t seq, size_t *len)
{
	size_t n;
	const uint8_t *p = next(r, seq, &n);

	assert_true(n >= 2);
	assert_int_equal(p[0], 0x01);
	*len = n - 1;
	return p + 1;
}

/* The greeting, as a client reads it. */
struct greeting {
	char version[64];
	uint32_t conn_id;
	uint8_t scramble[MY_SCRAMBLE_LEN];
	uint32_t caps;
	uint8_t charset;
	uint16_t status;
	char plugin[64];
};

static void read_greeting(struct sfx *f, struct bufferevent *c, struct greeting *g)
{
	struct sfx_reply r;
	const uint8_t *p, *end;
	size_t n, v;

	sfx_take(f, c, &r);
	p = next(&r, 0, &n);
	assert_int_equal(r.off, r.len);
	end = p + n;
	assert_int_equal(p[0], 10); /* protocol 10 */
	v = strnlen((const char *)p + 1, (size_t)(end - p - 1));
	assert_true(v < sizeof(g->version));
	memcpy(g->version, p + 1, v + 1);
	p += 2 + v;
	assert_true(end - p >= 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10 + 12 + 1);
	g->conn_id = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	memcpy(g->scramble, p + 4, 8);
	assert_int_equal(p[12], 0);
	g->caps = (uint32_t)(p[13] | p[14] << 8);
	g->charset = p[15];
	g->status = (uint16_t)(p[16] | p[17] << 8);
	g->caps |= (uint32_t)(p[18] | p[19] << 8) << 16;
	assert_int_equal(p[20], MY_SCRAMBLE_LEN + 1);
	for (int i = 0; i < 10; i++)
		assert_int_equal(p[21 + i], 0);
	memcpy(g->scramble + 8, p + 31, 12);
	assert_int_equal(p[43], 0);
	p += 44;
	assert_true(end > p && end[-1] == '\0' && (size_t)(end - p) <= sizeof(g->plugin));
	memcpy(g->plugin, p, (size_t)(end - p));
}

/* HandshakeResponse41 with sequence id 1. */
static void send_response(struct bufferevent *c, uint32_t caps, const char *user, const uint8_t *auth, size_t auth_len,
			  const char *db, const char *plugin)
{
	uint8_t buf[512];
	size_t n = 0;

	if (db)
		caps |= MY_CAP_CONNECT_WITH_DB;
	for (int i = 0; i < 4; i++)
		buf[n++] = (uint8_t)(caps >> (8 * i));
	memcpy(buf + n, "\0\0\0\1", 4); /* max packet 16 MiB */
	n += 4;
	buf[n++] = MY_CHARSET_UTF8MB4_GENERAL_CI;
	memset(buf + n, 0, 23);
	n += 23;
	memcpy(buf + n, user, strlen(user) + 1);
	n += strlen(user) + 1;
	buf[n++] = (uint8_t)auth_len;
	memcpy(buf + n, auth, auth_len);
	n += auth_len;
	if (db) {
		memcpy(buf + n, db, strlen(db) + 1);
		n += strlen(db) + 1;
	}
	if (plugin) {
		memcpy(buf + n, plugin, strlen(plugin) + 1);
		n += strlen(plugin) + 1;
	}
	send_packet(c, 1, buf, n);
}

/* mysql_native_password: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))). */
static void native_token(const char *password, const uint8_t *scramble, uint8_t out[20])
{
	uint8_t h1[20], h2[20], buf[40], x[20];

	SHA1((const uint8_t *)password, strlen(password), h1);
	SHA1(h1, 20, h2);
	memcpy(buf, scramble, 20);
	memcpy(buf + 20, h2, 20);
	SHA1(buf, 40, x);
	for (int i = 0; i < 20; i++)
		out[i] = h1[i] ^ x[i];
}

/* caching_sha2_password: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble). */
static void sha2_token(const char *password, const uint8_t *scramble, uint8_t out[32])
{
	uint8_t h1[32], h2[32], buf[52], x[32];

	SHA256((const uint8_t *)password, strlen(password), h1);
	SHA256(h1, 32, h2);
	memcpy(buf, h2, 32);
	memcpy(buf + 32, scramble, 20);
	SHA256(buf, 52, x);
	for (int i = 0; i < 32; i++)
		out[i] = h1[i] ^ x[i];
}

/* The password, NUL-terminated and XORed with the scramble, RSA-OAEP-encrypted to the PEM's key. */
static size_t rsa_blob(const uint8_t *pem, size_t pemlen, const char *password, const uint8_t *scramble, uint8_t *out,
		       size_t cap)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)pemlen);
	EVP_PKEY *key = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	EVP_PKEY_CTX *ctx;
	uint8_t plain[128];
	size_t n = strlen(password) + 1, outlen = cap;

	assert_non_null(key);
	for (size_t i = 0; i < n; i++)
		plain[i] = (uint8_t)password[i] ^ scramble[i % MY_SCRAMBLE_LEN];
	ctx = EVP_PKEY_CTX_new(key, NULL);
	assert_non_null(ctx);
	assert_int_equal(EVP_PKEY_encrypt_init(ctx), 1);
	assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 1);
	assert_int_equal(EVP_PKEY_encrypt(ctx, out, &outlen, plain, n), 1);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(key);
	BIO_free(bio);
	return outlen;
}

/* ---- fixtures ---- */

static int setup(void **state)
{
	return sfx_setup(state, &my_session_proto, rsa);
}

/* user logs in with mysql_native_password (the password right or not); the answer is unread. */
static void native_login(struct sfx *f, struct bufferevent *c, const char *user, const char *password, const char *db)
{
	struct greeting g;
	uint8_t token[20];

	read_greeting(f, c, &g);
	native_token(password, g.scramble, token);
	send_response(c, CLIENT_CAPS, user, token, sizeof(token), db, MY_PLUGIN_NATIVE);
}

static void logged_in(struct sfx *f)
{
	struct sfx_reply r;

	native_login(f, f->client, "agent", SFX_PASSWORD, NULL);
	sfx_take(f, f->client, &r);
	expect_ok(&r, 2);
	assert_int_equal(f->s->st, SESSION_READY);
	assert_int_equal(f->srv.nloggedin, 1);
	assert_int_equal(f->srv.npreauth, 0);
}

/* ---- the handshake ---- */

static void test_greeting(void **state)
{
	struct sfx *f = *state;
	struct greeting g;

	read_greeting(f, f->client, &g);
	assert_string_equal(g.version, "8.0.36-airlock");
	assert_int_equal(g.conn_id, f->s->id);
	for (int i = 0; i < MY_SCRAMBLE_LEN; i++)
		assert_true(g.scramble[i] != 0);
	assert_true(g.caps & MY_CAP_PROTOCOL_41);
	assert_true(g.caps & MY_CAP_SECURE_CONNECTION);
	assert_true(g.caps & MY_CAP_PLUGIN_AUTH);
	assert_true(g.caps & MY_CAP_CONNECT_WITH_DB);
	assert_false(g.caps & MY_CAP_SSL); /* no TLS configured */
	assert_false(g.caps & MY_CAP_MULTI_STATEMENTS);
	assert_false(g.caps & MY_CAP_LOCAL_FILES);
	assert_int_equal(g.status & 0x0002, 0x0002); /* autocommit */
	assert_string_equal(g.plugin, MY_PLUGIN_NATIVE);
	assert_int_equal(f->s->st, SESSION_AUTH);
}

/* Two sessions, two scrambles. */
static void test_each_session_its_own_scramble(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &my_session_proto, &c2);
	struct greeting a, b;

	read_greeting(f, f->client, &a);
	read_greeting(f, c2, &b);
	assert_int_equal(b.conn_id, s2->id);
	assert_true(memcmp(a.scramble, b.scramble, MY_SCRAMBLE_LEN) != 0);
	bufferevent_free(c2);
}

static void test_native_login(void **state)
{
	struct sfx *f = *state;

	logged_in(f);
	assert_string_equal(f->s->user, "agent");
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
}

/* A database named in the handshake must be one the user may use. */
static void test_login_database(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &my_session_proto, &c2);
	struct sfx_reply r;

	native_login(f, f->client, "agent", SFX_PASSWORD, "other");
	sfx_take(f, f->client, &r);
	expect_ok(&r, 2);
	native_login(f, c2, "agent", SFX_PASSWORD, "secret");
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_err(&r, 2, 1044, "42000"),
			    "Access denied for user 'agent'@'%' to database 'secret'");
	assert_int_equal(f->srv.nloggedin, 1);
	bufferevent_free(c2);
}

/* A wrong password and a user that does not exist read the same, then the session ends. */
static void test_wrong_password_and_unknown_user_alike(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &my_session_proto, &c2);
	struct sfx_reply r;

	native_login(f, f->client, "agent", "agent-secret2", NULL);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_err(&r, 2, 1045, "28000"),
			    "Access denied for user 'agent'@'%' (using password: YES)");
	native_login(f, c2, "nobody", SFX_PASSWORD, NULL);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_err(&r, 2, 1045, "28000"),
			    "Access denied for user 'nobody'@'%' (using password: YES)");
	assert_int_equal(f->srv.npreauth, 0);
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
}

static void my_attempt(struct sfx *f, struct bufferevent *c, const char *user, const char *password, void *arg)
{
	native_login(f, c, user, password, NULL);
}

static void my_refused(struct sfx_reply *r, const char *user, void *arg)
{
	char want[128];

	snprintf(want, sizeof(want), "Access denied for user '%s'@'%%' (using password: YES)", user);
	assert_string_equal(expect_err(r, 2, 1045, "28000"), want);
}

static void my_accepted(struct sfx *f, struct session *s, struct sfx_reply *r, void *arg)
{
	expect_ok(r, 2);
	assert_int_equal(s->st, SESSION_READY);
}

/* A login's verdict waits alike for unknown and known names, right and wrong passwords (the fixture says how). */
static void test_failed_logins_wait_alike(void **state)
{
	const struct sfx_login l = {my_attempt, my_refused, my_accepted, NULL};

	sfx_check_waits_alike(*state, &my_session_proto, &l);
}

/*
 * caching_sha2_password without TLS: the first login asks for full
 * authentication, the client fetches the public key and sends the password
 * RSA-encrypted; after that, the fast path.
 */
static void test_caching_sha2_full_then_fast(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2;
	struct greeting g;
	struct sfx_reply r;
	uint8_t token[32], blob[512], req = MY_SHA2_REQUEST_PUBLIC_KEY;
	const uint8_t *more;
	size_t n;

	read_greeting(f, f->client, &g);
	sha2_token(SFX_PASSWORD, g.scramble, token);
	send_response(f->client, CLIENT_CAPS, "mysqlonly", token, sizeof(token), NULL, MY_PLUGIN_CACHING_SHA2);
	sfx_take(f, f->client, &r);
	more = expect_more(&r, 2, &n);
	assert_int_equal(n, 1);
	assert_int_equal(more[0], MY_SHA2_PERFORM_FULL_AUTH);
	assert_int_equal(f->s->st, SESSION_AUTH);
	send_packet(f->client, 3, &req, 1);
	sfx_take(f, f->client, &r);
	more = expect_more(&r, 4, &n);
	assert_int_equal(strncmp((const char *)more, "-----BEGIN PUBLIC KEY-----", 26), 0);
	n = rsa_blob(more, n, SFX_PASSWORD, g.scramble, blob, sizeof(blob));
	send_packet(f->client, 5, blob, n);
	sfx_take(f, f->client, &r);
	expect_ok(&r, 6);
	assert_int_equal(f->s->st, SESSION_READY);

	/* The generation now knows the password's digest: the next login takes the fast path. */
	s2 = sfx_connect(f, &my_session_proto, &c2);
	read_greeting(f, c2, &g);
	sha2_token(SFX_PASSWORD, g.scramble, token);
	send_response(c2, CLIENT_CAPS, "mysqlonly", token, sizeof(token), NULL, MY_PLUGIN_CACHING_SHA2);
	sfx_take(f, c2, &r);
	more = expect_more(&r, 2, &n);
	assert_int_equal(n, 1);
	assert_int_equal(more[0], MY_SHA2_FAST_AUTH_OK);
	expect_ok(&r, 3);
	assert_int_equal(s2->st, SESSION_READY);
	assert_int_equal(f->srv.nloggedin, 2);
	bufferevent_free(c2);
}

/* The full authentication with a wrong password, and an unknown user taken through it, fail alike. */
static void test_caching_sha2_wrong_password_and_unknown_user_alike(void **state)
{
	struct sfx *f = *state;
	const char *users[] = {"mysqlonly", "nobody"};
	const char *passwords[] = {"agent-secret2", SFX_PASSWORD};
	char want[128];

	for (int i = 0; i < 2; i++) {
		struct bufferevent *c;
		struct session *s = i ? sfx_connect(f, &my_session_proto, &c) : f->s;
		struct greeting g;
		struct sfx_reply r;
		uint8_t token[32], blob[512], req = MY_SHA2_REQUEST_PUBLIC_KEY;
		const uint8_t *more;
		size_t n;

		if (!i)
			c = f->client;
		read_greeting(f, c, &g);
		sha2_token(passwords[i], g.scramble, token);
		send_response(c, CLIENT_CAPS, users[i], token, sizeof(token), NULL, MY_PLUGIN_CACHING_SHA2);
		sfx_take(f, c, &r);
		more = expect_more(&r, 2, &n);
		assert_int_equal(more[0], MY_SHA2_PERFORM_FULL_AUTH);
		send_packet(c, 3, &req, 1);
		sfx_take(f, c, &r);
		more = expect_more(&r, 4, &n);
		n = rsa_blob(more, n, passwords[i], g.scramble, blob, sizeof(blob));
		send_packet(c, 5, blob, n);
		sfx_take_closing(f, c, s, &r);
		snprintf(want, sizeof(want), "Access denied for user '%s'@'%%' (using password: YES)", users[i]);
		assert_string_equal(expect_err(&r, 6, 1045, "28000"), want);
		if (i)
			bufferevent_free(c);
	}
	assert_int_equal(f->srv.nsessions, 0);
}

/*
 * A client that starts with another plugin is switched: AuthSwitchRequest
 * names mysql_native_password and repeats the scramble, the client answers
 * with its token. An unknown user is switched the same way, then fails.
 */
static void test_plugin_switch(void **state)
{
	struct sfx *f = *state;
	const char *users[] = {"agent", "nobody"};

	for (int i = 0; i < 2; i++) {
		struct bufferevent *c = f->client;
		struct session *s = i ? sfx_connect(f, &my_session_proto, &c) : f->s;
		struct greeting g;
		struct sfx_reply r;
		uint8_t token[20];
		const uint8_t *p;
		size_t n;

		read_greeting(f, c, &g);
		send_response(c, CLIENT_CAPS, users[i], (const uint8_t *)"pw", 2, NULL, MY_PLUGIN_CLEAR);
		sfx_take(f, c, &r);
		p = next(&r, 2, &n);
		assert_int_equal(r.off, r.len);
		assert_int_equal(n, 1 + sizeof(MY_PLUGIN_NATIVE) + MY_SCRAMBLE_LEN + 1);
		assert_int_equal(p[0], 0xfe);
		assert_string_equal((const char *)p + 1, MY_PLUGIN_NATIVE);
		assert_memory_equal(p + 1 + sizeof(MY_PLUGIN_NATIVE), g.scramble, MY_SCRAMBLE_LEN);
		assert_int_equal(p[n - 1], 0);
		native_token(SFX_PASSWORD, g.scramble, token);
		send_packet(c, 3, token, sizeof(token));
		if (i == 0) {
			sfx_take(f, c, &r);
			expect_ok(&r, 4);
			assert_int_equal(s->st, SESSION_READY);
			continue;
		}
		sfx_take_closing(f, c, s, &r);
		assert_string_equal(expect_err(&r, 4, 1045, "28000"),
				    "Access denied for user 'nobody'@'%' (using password: YES)");
		bufferevent_free(c);
	}
}

/* No TLS on this listener: a client that asks for it is told so, not switched to TLS. */
static void test_ssl_request_without_tls(void **state)
{
	struct sfx *f = *state;
	uint8_t req[32] = {0};
	uint32_t caps = CLIENT_CAPS | MY_CAP_SSL;
	struct sfx_reply r;

	sfx_take(f, f->client, &r);
	for (int i = 0; i < 4; i++)
		req[i] = (uint8_t)(caps >> (8 * i));
	req[7] = 1;
	req[8] = MY_CHARSET_UTF8MB4_GENERAL_CI;
	send_packet(f->client, 1, req, sizeof(req));
	sfx_take_closing(f, f->client, f->s, &r);
	assert_non_null(strstr(expect_err(&r, 2, 1045, "28000"), "TLS is not available"));
}

/* A user at its own max_connections: the right password, then 1226, and the count does not move. */
static void test_user_max_connections(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2;
	struct sfx_reply r;

	((struct airlock_user *)config_find_user(f->srv.cfg, "agent"))->max_connections = 1;
	logged_in(f);
	s2 = sfx_connect(f, &my_session_proto, &c2);
	native_login(f, c2, "agent", SFX_PASSWORD, NULL);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_err(&r, 2, 1226, "42000"),
			    "User 'agent' has exceeded the 'max_connections' resource (current value: 1)");
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
	assert_int_equal(f->srv.nloggedin, 1);
	bufferevent_free(c2);
}

/* Shutting down: a session logged in is told (an ERR numbered as the answer to its next command), then closed. */
static void test_shutdown(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f);
	session_shutdown_all(&f->srv, false);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_err(&r, 0, 1053, "08S01"), "Server shutdown in progress");
}

/* Before login only the handshake response is read: a command there is a bad handshake. */
static void test_packet_before_login(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &my_session_proto, &c2);
	struct sfx_reply r;

	sfx_take(f, f->client, &r); /* the greeting */
	send_command(f->client, 1, MY_COM_QUERY, "SELECT 1");
	sfx_take_closing(f, f->client, f->s, &r);
	expect_err(&r, 2, 1043, "08S01");
	/* Sequence id 0 again, after the greeting's 0: out of order. */
	sfx_take(f, c2, &r);
	send_command(c2, 0, MY_COM_PING, NULL);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_err(&r, 1, 1156, "08S01"), "Got packets out of order");
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
}

/*
 * A packet over the size allowed is refused from its header, before its
 * payload is buffered; the ERR answers that packet (its sequence id plus
 * one, as from MySQL), or the client reads it as out of order.
 */
static void test_oversized_packet(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2;
	uint8_t hdr[4];
	struct sfx_reply r;

	/* Logging in: 8 KiB. */
	sfx_take(f, f->client, &r);
	hdr[0] = (uint8_t)(SESSION_PREAUTH_MAX_MESSAGE + 1);
	hdr[1] = (uint8_t)((SESSION_PREAUTH_MAX_MESSAGE + 1) >> 8);
	hdr[2] = 0;
	hdr[3] = 1;
	sfx_send(f->client, hdr, 4);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_err(&r, 2, 1153, "08S01"), "Got a packet bigger than 'max_allowed_packet' bytes");
	/* Logged in: max_message_bytes. */
	s2 = sfx_connect(f, &my_session_proto, &c2);
	bufferevent_free(f->client);
	f->s = s2;
	f->client = c2; /* the fixture frees it */
	logged_in(f);
	hdr[0] = (uint8_t)(SFX_MAX_MESSAGE + 1);
	hdr[1] = (uint8_t)((SFX_MAX_MESSAGE + 1) >> 8);
	hdr[2] = 0;
	hdr[3] = 0;
	sfx_send(c2, hdr, 4);
	sfx_take_closing(f, c2, s2, &r);
	expect_err(&r, 1, 1153, "08S01");
	assert_int_equal(f->srv.nsessions, 0);
}

/* The login deadline: ERR, then the session goes. */
static void test_authentication_timeout(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	sfx_take(f, f->client, &r);
	event_active(f->s->timer, EV_TIMEOUT, 1);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_err(&r, 1, 1043, "08S01"), "Bad handshake: authentication timeout");
}

/* ---- the command phase ---- */

/* Every command starts a new exchange: the client sends 0, the answer is 1; anything else ends the session. */
static void test_ping_and_sequence_ids(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f);
	for (int i = 0; i < 3; i++) {
		send_command(f->client, 0, MY_COM_PING, NULL);
		sfx_take(f, f->client, &r);
		expect_ok(&r, 1);
	}
	send_command(f->client, 1, MY_COM_PING, NULL);
	sfx_take_closing(f, f->client, f->s, &r);
	expect_err(&r, 2, 1156, "08S01");
	assert_int_equal(f->srv.nloggedin, 0);
}

static void test_quit(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f);
	send_command(f->client, 0, MY_COM_QUIT, NULL);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.gen->user_sessions[0], 0);
}

/* COM_INIT_DB: a database of mysql_tables, not another; a refusal leaves the session as it was. */
static void test_init_db(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f);
	send_command(f->client, 0, MY_COM_INIT_DB, "other");
	sfx_take(f, f->client, &r);
	expect_ok(&r, 1);
	send_command(f->client, 0, MY_COM_INIT_DB, "secret");
	sfx_take(f, f->client, &r);
	assert_non_null(
		strstr(expect_err(&r, 1, 1044, "42000"), "Access denied for user 'agent'@'%' to database 'secret'"));
	send_command(f->client, 0, MY_COM_INIT_DB, "");
	sfx_take(f, f->client, &r);
	assert_string_equal(expect_err(&r, 1, 1102, "42000"), "Incorrect database name");
	send_command(f->client, 0, MY_COM_INIT_DB, "shop");
	sfx_take(f, f->client, &r);
	expect_ok(&r, 1);
	assert_int_equal(f->s->st, SESSION_READY);
}

/* The commands the session answers itself, without a statement. */
static void test_local_commands(void **state)
{
	struct sfx *f = *state;
	static const uint8_t multi_off[] = {MY_COM_SET_OPTION, 1, 0}, multi_on[] = {MY_COM_SET_OPTION, 0, 0};
	static const uint8_t close_stmt[] = {MY_COM_STMT_CLOSE, 7, 0, 0, 0};
	struct sfx_reply r;
	const uint8_t *p;
	size_t n;

	logged_in(f);
	send_command(f->client, 0, MY_COM_STATISTICS, NULL);
	sfx_take(f, f->client, &r);
	p = next(&r, 1, &n);
	assert_int_equal(strncmp((const char *)p, "Uptime: ", 8), 0);
	send_command(f->client, 0, MY_COM_RESET_CONNECTION, NULL);
	sfx_take(f, f->client, &r);
	expect_ok(&r, 1);
	send_packet(f->client, 0, multi_off, sizeof(multi_off));
	sfx_take(f, f->client, &r);
	p = next(&r, 1, &n);
	assert_int_equal(p[0], 0xfe); /* EOF */
	send_packet(f->client, 0, multi_on, sizeof(multi_on));
	sfx_take(f, f->client, &r);
	expect_err(&r, 1, 1235, "42000");
	/* COM_STMT_CLOSE is never answered, even for a statement that does not exist. */
	send_packet(f->client, 0, close_stmt, sizeof(close_stmt));
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	send_command(f->client, 0, MY_COM_SHUTDOWN, NULL);
	sfx_take(f, f->client, &r);
	assert_non_null(strstr(expect_err(&r, 1, 1047, "08S01"), "Unknown command"));
	send_packet(f->client, 0, NULL, 0);
	sfx_take(f, f->client, &r);
	expect_err(&r, 1, 1047, "08S01");
	assert_int_equal(f->s->st, SESSION_READY);
}

/* BUSY: what the client sends waits, unread, until the statement ends; then it is answered. */
static void test_query_waits_while_busy(void **state)
{
	struct sfx *f = *state;
	static const char kill[] = "KILL QUERY 12345";
	struct sfx_reply r;

	logged_in(f);
	assert_true(session_set_state(f->s, SESSION_BUSY));
	send_command(f->client, 0, MY_COM_QUERY, kill);
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->s->st, SESSION_BUSY);
	assert_int_equal(sfx_unread(f->s), 4 + 1 + strlen(kill));
	/* A KILL is answered by the session itself: no validator needed to see the query read. */
	session_statement_done(f->s);
	assert_int_equal(f->s->st, SESSION_READY);
	sfx_take(f, f->client, &r);
	assert_string_equal(expect_err(&r, 1, 1094, "HY000"), "Unknown thread id: 12345");
	assert_int_equal(sfx_unread(f->s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_greeting, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_each_session_its_own_scramble, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_native_login, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_login_database, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_wrong_password_and_unknown_user_alike, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_failed_logins_wait_alike, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_caching_sha2_full_then_fast, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_caching_sha2_wrong_password_and_unknown_user_alike, setup,
						sfx_teardown),
		cmocka_unit_test_setup_teardown(test_plugin_switch, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_ssl_request_without_tls, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_user_max_connections, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_shutdown, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_packet_before_login, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_oversized_packet, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_authentication_timeout, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_ping_and_sequence_ids, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_quit, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_init_db, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_local_commands, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_query_waits_while_busy, setup, sfx_teardown),
	};
	int rc;

	rsa = my_rsa_generate(2048);
	if (!rsa)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	my_rsa_free(rsa);
	return rc;
}
