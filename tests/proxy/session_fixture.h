/*
 * session_fixture: what the tests of a protocol's session core share: a
 * server with no listener, validator or runner (an event base, one config
 * generation, and for MySQL the RSA key pair), and clients that are the
 * far ends of bufferevent pairs whose near ends are sessions. The tests
 * write a client's bytes, run the loop, and read what came back. The
 * config is a Postgres target and a MariaDB one, and two users whose
 * password is "agent-secret": agent logs in over both protocols (with a
 * mysql_native_password hash), mysqlonly over MySQL only (its SCRAM
 * verifier decides caching_sha2_password's full authentication).
 * Include it after cmocka.h: its checks fail the test that calls them.
 */
#ifndef AIRLOCK_TESTS_PROXY_SESSION_FIXTURE_H
#define AIRLOCK_TESTS_PROXY_SESSION_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "conf/config.h"
#include "proxy/gen.h"
#include "proxy/login_guard.h"
#include "proxy/server.h"
#include "proxy/session.h"
#include "tests/conf/conf_fixture.h"

#define SFX_PASSWORD "agent-secret"
/* SHA1(SHA1("agent-secret")), as MySQL's PASSWORD() prints it. */
#define SFX_NATIVE_HASH "*84D31EC2CFCF57A89F87464D2A0213F639CCC639"
#define SFX_MAX_MESSAGE 20000u

__attribute__((unused)) static const char sfx_conf[] = "[server]\n"
						       "pg_listen = 127.0.0.1:6432\n"
						       "mysql_listen = 127.0.0.1:3307\n"
						       "runner_image = " DIGEST "\n"
						       "max_message_bytes = 20000\n"
						       "\n"
						       "[hosts]\n"
						       "allow = 127.0.0.1\n"
						       "\n"
						       "[target maria]\n"
						       "engine = mariadb\n"
						       "host = 127.0.0.1\n"
						       "port = 3306\n"
						       "database = shop\n"
						       "user = airlock_ro\n"
						       "password_file = shop.password\n"
						       "\n" SHOP_TARGET_AND_AGENT "mysql_target = maria\n"
						       "mysql_native = " SFX_NATIVE_HASH "\n"
						       "mysql_tables = other.orders\n"
						       "\n"
						       "[user mysqlonly]\n"
						       "scram = " VERIFIER "\n"
						       "mysql_target = maria\n";

struct sfx {
	struct server srv;
	struct bufferevent *client; /* the first session's client end */
	struct session *s;          /* the first session */
};

/* Runs the loop until nothing is left to do now. */
__attribute__((unused)) static void sfx_pump(struct sfx *f)
{
	for (int i = 0; i < 20; i++)
		event_base_loop(f->srv.base, EVLOOP_NONBLOCK);
}

/* A new session of proto over a fresh pair; its client end in *client. */
__attribute__((unused)) static struct session *sfx_connect(struct sfx *f, const struct session_proto *proto,
							   struct bufferevent **client)
{
	struct bufferevent *pair[2];
	struct session *s;

	*client = NULL;
	if (bufferevent_pair_new(f->srv.base, 0, pair) != 0)
		return NULL;
	s = session_attach(&f->srv, proto, pair[0]);
	bufferevent_enable(pair[1], EV_READ | EV_WRITE);
	*client = pair[1];
	return s;
}

/* The server and one session of proto (NULL: none yet); NULL when any of it fails. */
__attribute__((unused)) static struct sfx *sfx_new(const struct session_proto *proto, struct my_rsa *rsa)
{
	struct sfx *f = calloc(1, sizeof(*f));
	struct config_errors errs = {0};
	struct airlock_config *cfg;

	setup_data(NULL);
	cfg = config_load_string(sfx_conf, data_dir, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "config: %s\n", errs.msg[i]);
	if (!f || !cfg)
		return NULL;
	f->srv.base = event_base_new();
	f->srv.gen = gen_new(cfg);
	if (!f->srv.base || !f->srv.gen)
		return NULL;
	f->srv.cfg = f->srv.gen->cfg;
	f->srv.my_rsa = rsa;
	f->srv.started = time(NULL);
	if (proto && !(f->s = sfx_connect(f, proto, &f->client)))
		return NULL;
	sfx_pump(f);
	return f;
}

/* Frees every session, then the server (the RSA key pair is the caller's). */
__attribute__((unused)) static void sfx_free(struct sfx *f)
{
	session_close_all(&f->srv);
	if (f->client)
		bufferevent_free(f->client);
	sfx_pump(f);
	gen_release(f->srv.gen);
	event_base_free(f->srv.base);
	free(f);
}

/* Sends bytes from a client. */
__attribute__((unused)) static void sfx_send(struct bufferevent *client, const void *p, size_t len)
{
	bufferevent_write(client, p, len);
}

/* Runs the loop, then takes what a client received so far (at most cap bytes); returns how many. */
__attribute__((unused)) static size_t sfx_recv(struct sfx *f, struct bufferevent *client, uint8_t *buf, size_t cap)
{
	sfx_pump(f);
	return bufferevent_read(client, buf, cap);
}

/* Whether the session is still in the registry (not yet freed); s is not read. */
__attribute__((unused)) static bool sfx_alive(const struct sfx *f, const struct session *s)
{
	for (const struct session *o = f->srv.sessions; o; o = o->next)
		if (o == s)
			return true;
	return false;
}

/*
 * Runs the loop a pass at a time while s lives (a closed session is freed
 * on a later pass, or once its output drained) and returns the state it
 * was last seen in; SESSION_NSTATES when it was gone already.
 */
__attribute__((unused)) static enum session_state sfx_settle(struct sfx *f, const struct session *s)
{
	enum session_state st = sfx_alive(f, s) ? s->st : SESSION_NSTATES;

	for (int i = 0; i < 20 && sfx_alive(f, s); i++) {
		event_base_loop(f->srv.base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
		if (sfx_alive(f, s))
			st = s->st;
	}
	return st;
}

/* What a client received, for the protocol's reader to walk (off: how far it got). */
struct sfx_reply {
	uint8_t buf[16384];
	size_t len, off;
};

__attribute__((unused)) static void sfx_take(struct sfx *f, struct bufferevent *c, struct sfx_reply *r)
{
	r->len = sfx_recv(f, c, r->buf, sizeof(r->buf));
	r->off = 0;
}

/* The session ends: it is CLOSING, then freed; what it said last is in r. */
__attribute__((unused)) static void sfx_take_closing(struct sfx *f, struct bufferevent *c, const struct session *s,
						     struct sfx_reply *r)
{
	assert_int_equal(sfx_settle(f, s), SESSION_CLOSING);
	assert_false(sfx_alive(f, s));
	sfx_take(f, c, r);
}

/* cmocka's setup and teardown around sfx_new and sfx_free. */
__attribute__((unused)) static int sfx_setup(void **state, const struct session_proto *proto, struct my_rsa *rsa)
{
	*state = sfx_new(proto, rsa);
	return *state ? 0 : -1;
}

__attribute__((unused)) static int sfx_teardown(void **state)
{
	sfx_free(*state);
	return 0;
}

/* A protocol's login, for sfx_check_waits_alike. */
struct sfx_login {
	/* Logs in on c as user with password, up to the password's verdict (unread). */
	void (*attempt)(struct sfx *f, struct bufferevent *c, const char *user, const char *password, void *arg);
	/* The reply is the refusal a wrong password or an unknown user gets. */
	void (*refused)(struct sfx_reply *r, const char *user, void *arg);
	/* The reply logs s in. */
	void (*accepted)(struct sfx *f, struct session *s, struct sfx_reply *r, void *arg);
	void *arg;
};

/*
 * After failures for a name, its next verdict waits, whatever it is: an
 * unknown name waits as a known one does, and a right password waits as
 * a wrong one, so neither the answer nor its time tells them apart. Each
 * connection comes from an address of its own, so only the names count.
 */
__attribute__((unused)) static void sfx_check_waits_alike(struct sfx *f, const struct session_proto *proto,
							  const struct sfx_login *l)
{
	struct airlock_config *cfg = (struct airlock_config *)f->srv.cfg;
	const char *users[] = {"agent", "nobody", "agent", "nobody", "agent"};
	const char *passwords[] = {"agent-secret2", SFX_PASSWORD, "agent-secret2", SFX_PASSWORD, SFX_PASSWORD};
	struct sfx_reply r;

	f->srv.guard = login_guard_new();
	assert_non_null(f->srv.guard);
	cfg->login_free_failures = 1;
	for (uint8_t i = 0; i < 5; i++) {
		struct bufferevent *c;
		struct session *s = sfx_connect(f, proto, &c);

		memcpy(s->addr, (uint8_t[]){10, 0, 0, i}, 4);
		s->addrlen = 4;
		l->attempt(f, c, users[i], passwords[i], l->arg);
		sfx_take(f, c, &r);
		if (i < 2) {
			/* The first failure of each name: answered at once, and the session is gone. */
			assert_int_equal(sfx_settle(f, s), SESSION_NSTATES);
			l->refused(&r, users[i], l->arg);
			bufferevent_free(c);
			continue;
		}
		assert_int_equal(r.len, 0);
		assert_true(s->waiting);
		assert_int_equal(s->st, SESSION_AUTH);
		event_active(s->timer, EV_TIMEOUT, 1); /* the wait is over */
		if (i < 4) {
			sfx_take_closing(f, c, s, &r);
			l->refused(&r, users[i], l->arg);
		} else {
			sfx_take(f, c, &r);
			l->accepted(f, s, &r, l->arg);
		}
		bufferevent_free(c);
	}
	login_guard_free(f->srv.guard);
	f->srv.guard = NULL;
}

/* Bytes the session has not read yet from its client. */
__attribute__((unused)) static size_t sfx_unread(const struct session *s)
{
	return evbuffer_get_length(bufferevent_get_input(s->bev));
}

#endif
