/*
 * test_pg_session: the Postgres session (proxy/pg/pg_session.c) on the
 * session core, driven as a client drives it, bytes in and bytes out over
 * a bufferevent pair, with no validator, runner or database: the start-up
 * packet (its parameters and options, an unknown protocol, no user),
 * SSLRequest and GSSENCRequest without TLS, CancelRequest on a connection
 * of its own, the SCRAM-SHA-256 login computed here as a client computes
 * it (a right password, a wrong one and an unknown user, which must read
 * alike), the user's connection cap, Terminate, the messages answered
 * without a statement, shutdown, messages out of turn and too long, and
 * the core's state at each step: AUTH, READY, BUSY (input waits) and
 * CLOSING.
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

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "protocol/pg_codec.h"
#include "proxy/pg/pg_session.h"
#include "tests/proxy/session_fixture.h"

/* ---- the client's side of the wire ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A start-up packet: the code word, then name/value pairs (kv ends with NULL). */
static void send_startup(struct bufferevent *c, uint32_t code, const char *const *kv)
{
	uint8_t buf[1024];
	size_t n = 8;

	for (size_t i = 0; kv && kv[i]; i++) {
		size_t l = strlen(kv[i]) + 1;

		memcpy(buf + n, kv[i], l);
		n += l;
	}
	if (kv)
		buf[n++] = '\0';
	put_be32(buf, (uint32_t)n);
	put_be32(buf + 4, code);
	sfx_send(c, buf, n);
}

/* A typed message. */
static void send_msg(struct bufferevent *c, char type, const void *body, size_t len)
{
	uint8_t hdr[5];

	hdr[0] = (uint8_t)type;
	put_be32(hdr + 1, (uint32_t)len + 4);
	sfx_send(c, hdr, 5);
	if (len)
		sfx_send(c, body, len);
}

/* The next message: its type, body and body length; false at the end (a cut message fails the test). */
static bool next(struct sfx_reply *r, char *type, const uint8_t **body, size_t *len)
{
	uint32_t l;

	if (r->off == r->len)
		return false;
	assert_true(r->len - r->off >= 5);
	*type = (char)r->buf[r->off];
	l = get_be32(r->buf + r->off + 1);
	assert_true(l >= 4 && r->len - r->off - 1 >= l);
	*body = r->buf + r->off + 5;
	*len = l - 4;
	r->off += 1 + l;
	return true;
}

/* The next message, which must be of type. */
static const uint8_t *expect(struct sfx_reply *r, char type, size_t *len)
{
	char t;
	const uint8_t *body;
	size_t n;

	assert_true(next(r, &t, &body, &n));
	assert_int_equal(t, type);
	if (len)
		*len = n;
	return body;
}

/* One field of an ErrorResponse body ("" when absent). */
static const char *field(const uint8_t *body, size_t len, char which)
{
	size_t i = 0;

	while (i < len && body[i]) {
		const char *v = (const char *)body + i + 1;

		if (body[i] == which)
			return v;
		i += 1 + strlen(v) + 1;
	}
	return "";
}

/* The reply is exactly one FATAL ErrorResponse with this SQLSTATE; returns its message. */
static const char *expect_fatal(struct sfx_reply *r, const char *sqlstate)
{
	static char msg[512];
	size_t n;
	const uint8_t *e = expect(r, 'E', &n);

	assert_string_equal(field(e, n, 'S'), "FATAL");
	assert_string_equal(field(e, n, 'V'), "FATAL");
	assert_string_equal(field(e, n, 'C'), sqlstate);
	snprintf(msg, sizeof(msg), "%s", field(e, n, 'M'));
	assert_int_equal(r->off, r->len);
	return msg;
}

/* ---- SCRAM-SHA-256, the client's half (RFC 5802) ---- */

struct scram_client {
	char first_bare[128];
	char server_first[512];
	char final_bare[512];
	uint8_t salted[32];
};

static size_t b64_decode(const char *in, size_t len, uint8_t *out)
{
	int n = EVP_DecodeBlock(out, (const unsigned char *)in, (int)len);

	assert_true(n >= 0);
	while (len > 0 && in[len - 1] == '=') {
		n--;
		len--;
	}
	return (size_t)n;
}

static void hmac(const uint8_t *key, size_t klen, const void *data, size_t len, uint8_t out[32])
{
	unsigned int n = 32;

	assert_non_null(HMAC(EVP_sha256(), key, (int)klen, data, len, out, &n));
}

/* A SASLInitialResponse naming mech, with client-first-message "n,,n=,r=<nonce>". */
static void scram_first(struct bufferevent *c, struct scram_client *sc, const char *mech)
{
	uint8_t buf[256];
	char first[160];
	size_t m = strlen(mech) + 1, n;

	snprintf(sc->first_bare, sizeof(sc->first_bare), "n=,r=fyko+d2lbbFgONRv9qkxdawL");
	n = (size_t)snprintf(first, sizeof(first), "n,,%s", sc->first_bare);
	memcpy(buf, mech, m);
	put_be32(buf + m, (uint32_t)n);
	memcpy(buf + m + 4, first, n);
	send_msg(c, 'p', buf, m + 4 + n);
}

/* From AuthenticationSASLContinue's server-first-message, the SASLResponse that proves password. */
static void scram_final(struct bufferevent *c, struct scram_client *sc, const uint8_t *cont, size_t len,
			const char *password)
{
	const char *r, *s, *i, *comma;
	uint8_t salt[64], client_key[32], stored[32], sig[32], proof[32];
	char auth[1200], msg[600], proof64[64];
	size_t saltlen;
	int n;

	assert_int_equal(get_be32(cont), 11);
	assert_true(len - 4 < sizeof(sc->server_first));
	memcpy(sc->server_first, cont + 4, len - 4);
	sc->server_first[len - 4] = '\0';
	r = strstr(sc->server_first, "r=");
	s = strstr(sc->server_first, ",s=");
	i = strstr(sc->server_first, ",i=");
	assert_true(r == sc->server_first && s && i && s < i);
	/* The server's nonce extends ours. */
	assert_int_equal(strncmp(r + 2, "fyko+d2lbbFgONRv9qkxdawL", 24), 0);
	assert_true(s - r - 2 > 24);
	saltlen = b64_decode(s + 3, (size_t)(i - s - 3), salt);
	assert_int_equal(PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)saltlen, atoi(i + 3),
					   EVP_sha256(), 32, sc->salted),
			 1);
	comma = s;
	snprintf(sc->final_bare, sizeof(sc->final_bare), "c=biws,r=%.*s", (int)(comma - r - 2), r + 2);
	snprintf(auth, sizeof(auth), "%s,%s,%s", sc->first_bare, sc->server_first, sc->final_bare);
	hmac(sc->salted, 32, "Client Key", 10, client_key);
	SHA256(client_key, 32, stored);
	hmac(stored, 32, auth, strlen(auth), sig);
	for (int k = 0; k < 32; k++)
		proof[k] = client_key[k] ^ sig[k];
	EVP_EncodeBlock((unsigned char *)proof64, proof, 32);
	n = snprintf(msg, sizeof(msg), "%s,p=%s", sc->final_bare, proof64);
	send_msg(c, 'p', msg, (size_t)n);
}

/* The server-final-message a server that knows the password sends. */
static void scram_expected_final(const struct scram_client *sc, char *out, size_t cap)
{
	uint8_t server_key[32], sig[32];
	char auth[1200], sig64[64];

	snprintf(auth, sizeof(auth), "%s,%s,%s", sc->first_bare, sc->server_first, sc->final_bare);
	hmac(sc->salted, 32, "Server Key", 10, server_key);
	hmac(server_key, 32, auth, strlen(auth), sig);
	EVP_EncodeBlock((unsigned char *)sig64, sig, 32);
	snprintf(out, cap, "v=%s", sig64);
}

/* Start-up as user to database (NULL: none), the SASL offer checked, up to the proof sent (its answer unread). */
static void login(struct sfx *f, struct bufferevent *c, const char *user, const char *db, const char *password,
		  struct scram_client *sc, struct sfx_reply *r)
{
	const char *kv[] = {"user", user, db ? "database" : NULL, db, NULL};
	const uint8_t *b;
	size_t n;

	send_startup(c, PG_PROTOCOL_3_0, kv);
	sfx_take(f, c, r);
	b = expect(r, 'R', &n);
	assert_int_equal(n, 4 + sizeof("SCRAM-SHA-256") + 1);
	assert_int_equal(get_be32(b), 10);
	assert_memory_equal(b + 4, "SCRAM-SHA-256\0", sizeof("SCRAM-SHA-256") + 1);
	scram_first(c, sc, "SCRAM-SHA-256");
	sfx_take(f, c, r);
	b = expect(r, 'R', &n);
	scram_final(c, sc, b, n, password);
}

/* The user logged in: SASLFinal (the server knew the password), AuthenticationOk, the parameters, the key, ready. */
static void expect_logged_in(struct sfx *f, struct session *s, const struct scram_client *sc, struct sfx_reply *r,
			     uint32_t *key)
{
	char want[128], t;
	const uint8_t *b;
	size_t n;
	bool encoding = false;

	b = expect(r, 'R', &n);
	assert_int_equal(get_be32(b), 12);
	scram_expected_final(sc, want, sizeof(want));
	assert_int_equal(n - 4, strlen(want));
	assert_memory_equal(b + 4, want, n - 4);
	b = expect(r, 'R', &n);
	assert_int_equal(n, 4);
	assert_int_equal(get_be32(b), 0);
	while (next(r, &t, &b, &n) && t == 'S')
		if (!strcmp((const char *)b, "client_encoding"))
			encoding = !strcmp((const char *)b + strlen("client_encoding") + 1, "UTF8");
	assert_true(encoding);
	assert_int_equal(t, 'K');
	assert_int_equal(n, 8);
	assert_int_equal(get_be32(b), s->id);
	if (key)
		*key = get_be32(b + 4);
	b = expect(r, 'Z', &n);
	assert_int_equal(n, 1);
	assert_int_equal(b[0], 'I');
	assert_int_equal(r->off, r->len);
	assert_int_equal(s->st, SESSION_READY);
	assert_int_equal(f->srv.nloggedin, 1);
}

/* ---- fixtures ---- */

static int setup(void **state)
{
	return sfx_setup(state, &pg_session_proto, NULL);
}

/* ---- start-up ---- */

static void test_startup_offers_scram_only(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {"user", "agent", "database", "shop", "application_name", "psql", NULL};
	struct sfx_reply r;
	const uint8_t *b;
	size_t n;

	/* Nothing is said before the client speaks. */
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	send_startup(f->client, PG_PROTOCOL_3_0, kv);
	sfx_take(f, f->client, &r);
	b = expect(&r, 'R', &n);
	assert_int_equal(get_be32(b), 10);
	assert_int_equal(n, 4 + sizeof("SCRAM-SHA-256") + 1);
	assert_string_equal((const char *)b + 4, "SCRAM-SHA-256");
	assert_int_equal(b[n - 1], '\0');
	assert_int_equal(r.off, r.len);
	assert_int_equal(f->s->st, SESSION_AUTH);
	assert_int_equal(f->srv.npreauth, 1);
}

/*
 * Postgres refuses a protocol it does not speak with 0A000, naming the
 * version (libpq may then try another); a malformed request is a
 * protocol violation.
 */
static void test_unknown_protocol_version(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {"user", "agent", NULL};
	struct bufferevent *c2, *c3;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct session *s3 = sfx_connect(f, &pg_session_proto, &c3);
	uint8_t ssl[12];
	struct sfx_reply r;

	send_startup(f->client, 2u << 16, kv);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "0A000"), "unsupported frontend protocol 2.0: airlock supports 3.0 only");
	send_startup(c2, 3u << 16 | 2, kv);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_fatal(&r, "0A000"), "unsupported frontend protocol 3.2: airlock supports 3.0 only");
	/* An SSLRequest four bytes too long. */
	put_be32(ssl, 12);
	put_be32(ssl + 4, PG_SSL_REQUEST_CODE);
	put_be32(ssl + 8, 0);
	sfx_send(c3, ssl, 12);
	sfx_take_closing(f, c3, s3, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "startup packet: encryption request of the wrong length");
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
	bufferevent_free(c3);
}

static void test_missing_user(void **state)
{
	struct sfx *f = *state;
	const char *no_user[] = {"database", "shop", NULL};
	const char *empty_user[] = {"user", "", NULL};
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct sfx_reply r;

	send_startup(f->client, PG_PROTOCOL_3_0, no_user);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "28000"), "no PostgreSQL user name specified in startup packet");
	send_startup(c2, PG_PROTOCOL_3_0, empty_user);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_fatal(&r, "28000"), "no PostgreSQL user name specified in startup packet");
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
}

/* Options go through SET's rules: a setting nobody may change, or a word that is no setting, ends the session. */
static void test_startup_options_refused(void **state)
{
	struct sfx *f = *state;
	const char *fixed[] = {"user", "agent", "options", "-c default_transaction_read_only=off", NULL};
	const char *junk[] = {"user", "agent", "options", "-x", NULL};
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct sfx_reply r;

	send_startup(f->client, PG_PROTOCOL_3_0, fixed);
	sfx_take_closing(f, f->client, f->s, &r);
	expect_fatal(&r, "25006");
	send_startup(c2, PG_PROTOCOL_3_0, junk);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_fatal(&r, "0A000"),
			    "UNSUPPORTED: start-up option \"-x\" is not a -c name=value setting");
	bufferevent_free(c2);
}

/* Without TLS both encryption requests get a single 'N', and the client goes on in the clear. */
static void test_ssl_and_gssenc_requests_get_n(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;
	const uint8_t *b;
	size_t n;
	const char *kv[] = {"user", "agent", NULL};

	send_startup(f->client, PG_GSSENC_REQUEST_CODE, NULL);
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 1);
	assert_int_equal(r.buf[0], 'N');
	send_startup(f->client, PG_SSL_REQUEST_CODE, NULL);
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 1);
	assert_int_equal(r.buf[0], 'N');
	assert_int_equal(f->s->st, SESSION_AUTH);
	assert_false(f->s->tls);
	send_startup(f->client, PG_PROTOCOL_3_0, kv);
	sfx_take(f, f->client, &r);
	b = expect(&r, 'R', &n);
	assert_int_equal(get_be32(b), 10);
}

/* ---- SCRAM-SHA-256 ---- */

static void test_login_with_the_right_password(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {
		"user", "agent", "database", "shop", "application_name", "psql", "options", "-c DateStyle=German",
		NULL};
	struct scram_client sc;
	struct sfx_reply r;
	const uint8_t *b;
	size_t n;
	char t;
	bool app = false, datestyle = false;

	send_startup(f->client, PG_PROTOCOL_3_0, kv);
	sfx_take(f, f->client, &r);
	expect(&r, 'R', NULL);
	scram_first(f->client, &sc, "SCRAM-SHA-256");
	sfx_take(f, f->client, &r);
	b = expect(&r, 'R', &n);
	scram_final(f->client, &sc, b, n, SFX_PASSWORD);
	sfx_take(f, f->client, &r);
	/* The start-up parameter and option are in force and reported. */
	while (next(&r, &t, &b, &n)) {
		if (t == 'S' && !strcmp((const char *)b, "application_name"))
			app = !strcmp((const char *)b + sizeof("application_name"), "psql");
		if (t == 'S' && !strcmp((const char *)b, "DateStyle"))
			datestyle = !strcmp((const char *)b + sizeof("DateStyle"), "German, MDY");
	}
	assert_true(app);
	assert_true(datestyle);
	r.off = 0;
	expect_logged_in(f, f->s, &sc, &r, NULL);
	assert_int_equal(f->srv.npreauth, 0);
	assert_string_equal(f->s->user, "agent");
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
}

/*
 * The password proven, the login can still fail: as in Postgres the
 * SASLFinal comes first, then the FATAL. No database parameter: the
 * user's name is the database; it must be the target's.
 */
static void test_database_must_be_the_targets(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct scram_client sc;
	struct sfx_reply r;

	login(f, f->client, "agent", NULL, SFX_PASSWORD, &sc, &r);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_int_equal(get_be32(expect(&r, 'R', NULL)), 12);
	assert_string_equal(expect_fatal(&r, "3D000"), "database \"agent\" does not exist");
	login(f, c2, "agent", "elsewhere", SFX_PASSWORD, &sc, &r);
	sfx_take_closing(f, c2, s2, &r);
	assert_int_equal(get_be32(expect(&r, 'R', NULL)), 12);
	assert_string_equal(expect_fatal(&r, "3D000"), "database \"elsewhere\" does not exist");
	assert_int_equal(f->srv.gen->user_sessions[0], 0);
	assert_int_equal(f->srv.nloggedin, 0);
	bufferevent_free(c2);
}

/* A wrong password and a user that does not exist read the same: no SASLFinal, the FATAL, the end. */
static void test_wrong_password_and_unknown_user_alike(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct scram_client wrong, unknown;
	struct sfx_reply r;

	login(f, f->client, "agent", "shop", "agent-secret2", &wrong, &r);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "28P01"), "password authentication failed for user \"agent\"");
	login(f, c2, "nobody", "shop", SFX_PASSWORD, &unknown, &r);
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_fatal(&r, "28P01"), "password authentication failed for user \"nobody\"");
	/* The unknown user was offered a salt and the same iterations, as a known one is. */
	assert_non_null(strstr(unknown.server_first, ",s="));
	assert_non_null(strstr(unknown.server_first, ",i=4096"));
	assert_non_null(strstr(wrong.server_first, ",i=4096"));
	assert_int_equal(f->srv.npreauth, 0);
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
}

static void pg_attempt(struct sfx *f, struct bufferevent *c, const char *user, const char *password, void *arg)
{
	struct sfx_reply r;

	login(f, c, user, "shop", password, arg, &r);
}

static void pg_refused(struct sfx_reply *r, const char *user, void *arg)
{
	char want[96];

	snprintf(want, sizeof(want), "password authentication failed for user \"%s\"", user);
	assert_string_equal(expect_fatal(r, "28P01"), want);
}

static void pg_accepted(struct sfx *f, struct session *s, struct sfx_reply *r, void *arg)
{
	expect_logged_in(f, s, arg, r, NULL);
}

/* A login's verdict waits alike for unknown and known names, right and wrong passwords (the fixture says how). */
static void test_failed_logins_wait_alike(void **state)
{
	struct scram_client sc;
	const struct sfx_login l = {pg_attempt, pg_refused, pg_accepted, &sc};

	sfx_check_waits_alike(*state, &pg_session_proto, &l);
}

/* The right password of a user with no Postgres target: refused after the password. */
static void test_user_without_a_postgres_target(void **state)
{
	struct sfx *f = *state;
	struct scram_client sc;
	struct sfx_reply r;

	login(f, f->client, "mysqlonly", "shop", SFX_PASSWORD, &sc, &r);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_int_equal(get_be32(expect(&r, 'R', NULL)), 12);
	assert_non_null(strstr(expect_fatal(&r, "28000"), "has no Postgres target"));
}

static void test_other_sasl_mechanism_refused(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {"user", "agent", "database", "shop", NULL};
	struct scram_client sc;
	struct sfx_reply r;

	send_startup(f->client, PG_PROTOCOL_3_0, kv);
	sfx_take(f, f->client, &r);
	scram_first(f->client, &sc, "SCRAM-SHA-256-PLUS");
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "28000"), "client selected an invalid SASL authentication mechanism");
}

/* ---- after login ---- */

static void logged_in(struct sfx *f, struct bufferevent *c, struct session *s, uint32_t *key)
{
	struct scram_client sc;
	struct sfx_reply r;

	login(f, c, "agent", "shop", SFX_PASSWORD, &sc, &r);
	sfx_take(f, c, &r);
	expect_logged_in(f, s, &sc, &r, key);
}

static void test_terminate_closes_quietly(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f, f->client, f->s, NULL);
	send_msg(f->client, 'X', NULL, 0);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.gen->user_sessions[0], 0);
}

/* A CancelRequest comes on a connection of its own, gets no answer, and leaves the session it names alone. */
static void test_cancel_request_on_its_own_connection(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2, *c3;
	struct session *s2, *s3;
	uint8_t cancel[16];
	uint32_t key;
	struct sfx_reply r;

	logged_in(f, f->client, f->s, &key);
	s2 = sfx_connect(f, &pg_session_proto, &c2);
	s3 = sfx_connect(f, &pg_session_proto, &c3);
	put_be32(cancel, 16);
	put_be32(cancel + 4, PG_CANCEL_REQUEST_CODE);
	put_be32(cancel + 8, f->s->id);
	put_be32(cancel + 12, key);
	sfx_send(c2, cancel, 16);
	sfx_take_closing(f, c2, s2, &r);
	assert_int_equal(r.len, 0);
	put_be32(cancel + 12, key ^ 1); /* a wrong key: the same */
	sfx_send(c3, cancel, 16);
	sfx_take_closing(f, c3, s3, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->srv.nsessions, 1);
	assert_int_equal(f->srv.npreauth, 0);
	/* Nothing ran, so nothing was cancelled: the session answers on. */
	assert_int_equal(f->s->st, SESSION_READY);
	send_msg(f->client, 'S', NULL, 0);
	sfx_take(f, f->client, &r);
	assert_int_equal(expect(&r, 'Z', NULL)[0], 'I');
	bufferevent_free(c2);
	bufferevent_free(c3);
}

/*
 * What the session answers without a statement: a FunctionCall is refused
 * as a statement is (ERROR, then ready), COPY messages outside a COPY are
 * ignored, and an unknown message type ends the session.
 */
static void test_messages_answered_without_a_statement(void **state)
{
	struct sfx *f = *state;
	static const uint8_t call[] = {0, 0, 0x04, 0xd2, 0, 0, 0, 0, 0, 0};
	struct sfx_reply r;
	const uint8_t *b;
	size_t n;

	logged_in(f, f->client, f->s, NULL);
	send_msg(f->client, 'F', call, sizeof(call));
	sfx_take(f, f->client, &r);
	b = expect(&r, 'E', &n);
	assert_string_equal(field(b, n, 'S'), "ERROR");
	assert_string_equal(field(b, n, 'C'), "0A000");
	assert_non_null(strstr(field(b, n, 'M'), "fastpath function calls are not supported"));
	assert_int_equal(expect(&r, 'Z', NULL)[0], 'I');
	assert_int_equal(r.off, r.len);
	send_msg(f->client, 'd', "x", 1);
	send_msg(f->client, 'c', NULL, 0);
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->s->st, SESSION_READY);
	send_msg(f->client, 'z', NULL, 0);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "invalid frontend message type");
}

/* A user at its own max_connections: the right password, then 53300, and the count does not move. */
static void test_user_max_connections(void **state)
{
	struct sfx *f = *state;
	struct bufferevent *c2;
	struct session *s2;
	struct scram_client sc;
	struct sfx_reply r;

	((struct airlock_user *)config_find_user(f->srv.cfg, "agent"))->max_connections = 1;
	logged_in(f, f->client, f->s, NULL);
	s2 = sfx_connect(f, &pg_session_proto, &c2);
	login(f, c2, "agent", "shop", SFX_PASSWORD, &sc, &r);
	sfx_take_closing(f, c2, s2, &r);
	assert_int_equal(get_be32(expect(&r, 'R', NULL)), 12);
	assert_string_equal(expect_fatal(&r, "53300"), "too many connections for this user");
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
	assert_int_equal(f->srv.nloggedin, 1);
	bufferevent_free(c2);
}

/* Shutting down: a session waiting for its client gets the FATAL an administrator's shutdown sends. */
static void test_shutdown(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f, f->client, f->s, NULL);
	session_shutdown_all(&f->srv, false);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "57P01"), "terminating connection due to administrator command");
}

/* Before the password is proven only the next step of the login is read. */
static void test_messages_before_login_finishes(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {"user", "agent", "database", "shop", NULL};
	static const char sql[] = "SELECT 1";
	struct bufferevent *c2, *c3;
	struct session *s2 = sfx_connect(f, &pg_session_proto, &c2);
	struct session *s3 = sfx_connect(f, &pg_session_proto, &c3);
	struct scram_client sc;
	struct sfx_reply r;
	const uint8_t *b;
	size_t n;

	/* A Query instead of a start-up packet: its bytes read as a start-up length far too large. */
	send_msg(f->client, 'Q', sql, sizeof(sql));
	sfx_take_closing(f, f->client, f->s, &r);
	expect_fatal(&r, "08P01");
	/* A Query instead of SASLInitialResponse. */
	send_startup(c2, PG_PROTOCOL_3_0, kv);
	sfx_take(f, c2, &r);
	send_msg(c2, 'Q', sql, sizeof(sql));
	sfx_take_closing(f, c2, s2, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "expected SASLInitialResponse");
	/* A Query instead of SASLResponse. */
	send_startup(c3, PG_PROTOCOL_3_0, kv);
	sfx_take(f, c3, &r);
	scram_first(c3, &sc, "SCRAM-SHA-256");
	sfx_take(f, c3, &r);
	b = expect(&r, 'R', &n);
	assert_int_equal(get_be32(b), 11);
	send_msg(c3, 'Q', sql, sizeof(sql));
	sfx_take_closing(f, c3, s3, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "expected SASLResponse");
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
	bufferevent_free(c3);
}

/* A message longer than allowed is refused from its header, before its body is buffered. */
static void test_too_long_messages(void **state)
{
	struct sfx *f = *state;
	const char *kv[] = {"user", "agent", "database", "shop", NULL};
	struct bufferevent *c2, *c3;
	struct session *s2, *s3;
	uint8_t hdr[5] = {'Q'};
	uint8_t startup[8];
	struct sfx_reply r;

	/* Logged in: max_message_bytes. */
	logged_in(f, f->client, f->s, NULL);
	put_be32(hdr + 1, SFX_MAX_MESSAGE + 1);
	sfx_send(f->client, hdr, 5);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "54000"), "message too large: larger than max_message_bytes");
	/* Logging in: 8 KiB. */
	s2 = sfx_connect(f, &pg_session_proto, &c2);
	send_startup(c2, PG_PROTOCOL_3_0, kv);
	sfx_take(f, c2, &r);
	hdr[0] = 'p';
	put_be32(hdr + 1, SESSION_PREAUTH_MAX_MESSAGE + 1);
	sfx_send(c2, hdr, 5);
	sfx_take_closing(f, c2, s2, &r);
	expect_fatal(&r, "54000");
	/* A start-up packet over its own limit. */
	s3 = sfx_connect(f, &pg_session_proto, &c3);
	put_be32(startup, 100000);
	put_be32(startup + 4, PG_PROTOCOL_3_0);
	sfx_send(c3, startup, 8);
	sfx_take_closing(f, c3, s3, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "startup packet: length too large");
	assert_int_equal(f->srv.nsessions, 0);
	bufferevent_free(c2);
	bufferevent_free(c3);
}

/* BUSY: what the client sends waits, unread, until the statement ends. */
static void test_input_waits_while_busy(void **state)
{
	struct sfx *f = *state;
	static const char sql[] = "SELECT 1";
	struct sfx_reply r;

	logged_in(f, f->client, f->s, NULL);
	assert_true(session_set_state(f->s, SESSION_BUSY));
	send_msg(f->client, 'S', NULL, 0);
	send_msg(f->client, 'Q', sql, sizeof(sql));
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->s->st, SESSION_BUSY);
	assert_int_equal(sfx_unread(f->s), 5 + 5 + sizeof(sql));
	assert_int_equal(f->srv.nloggedin, 1);
	/* The statement's end would read them; here the session ends first, and the Query never runs. */
	session_close(f->s, false, "test");
	sfx_take_closing(f, f->client, f->s, &r);
	assert_int_equal(r.len, 0);
	assert_int_equal(f->srv.nloggedin, 0);
}

/* The statement ends: the session is READY, and what waited is answered. */
static void test_waiting_input_is_read_when_ready(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	logged_in(f, f->client, f->s, NULL);
	assert_true(session_set_state(f->s, SESSION_BUSY));
	send_msg(f->client, 'S', NULL, 0);
	sfx_take(f, f->client, &r);
	assert_int_equal(r.len, 0);
	session_statement_done(f->s);
	assert_int_equal(f->s->st, SESSION_READY);
	sfx_take(f, f->client, &r);
	assert_int_equal(expect(&r, 'Z', NULL)[0], 'I');
	assert_int_equal(r.off, r.len);
	assert_int_equal(sfx_unread(f->s), 0);
}

/* The login deadline: a FATAL, then the session goes. */
static void test_authentication_timeout(void **state)
{
	struct sfx *f = *state;
	struct sfx_reply r;

	event_active(f->s->timer, EV_TIMEOUT, 1);
	sfx_take_closing(f, f->client, f->s, &r);
	assert_string_equal(expect_fatal(&r, "08P01"), "authentication timeout");
	assert_int_equal(f->srv.nsessions, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_startup_offers_scram_only, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_unknown_protocol_version, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_missing_user, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_startup_options_refused, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_ssl_and_gssenc_requests_get_n, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_login_with_the_right_password, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_database_must_be_the_targets, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_wrong_password_and_unknown_user_alike, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_failed_logins_wait_alike, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_user_without_a_postgres_target, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_other_sasl_mechanism_refused, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_terminate_closes_quietly, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_cancel_request_on_its_own_connection, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_messages_answered_without_a_statement, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_user_max_connections, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_shutdown, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_messages_before_login_finishes, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_too_long_messages, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_input_waits_while_busy, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_waiting_input_is_read_when_ready, setup, sfx_teardown),
		cmocka_unit_test_setup_teardown(test_authentication_timeout, setup, sfx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
