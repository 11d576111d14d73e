/*
 * test_session: the session core (proxy/session.c) over bufferevent_pair,
 * with a small protocol of its own (u16 big-endian length, then the
 * payload): messages arrive whole and in order however the bytes are cut,
 * the size allowed before and after authentication, input waiting while
 * a statement runs, close with and without flush and the hooks it calls,
 * the per-user and global connection limits, and the registry; the state
 * mover (every allowed move and the counts it moves, every forbidden one
 * refused, CLOSING terminal), close with its reason logged and the free
 * deferred to a later pass, and the jobs session_job_start counts.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "conf/config.h"
#include "launch/launcher.h"
#include "tests/conf/conf_fixture.h"
#include "proxy/gen.h"
#include "proxy/job/job.h"
#include "proxy/server.h"
#include "proxy/session.h"
#include "proxy/strict.h"
#include "proxy/timeval.h"

static const char conf_text[] = "[server]\n"
				"pg_listen = 127.0.0.1:6432\n"
				"runner_image = " DIGEST "\n"
				"max_connections = 3\n"
				"max_message_bytes = 20000\n"
				"\n"
				"[hosts]\n"
				"allow = 127.0.0.1\n"
				"\n" SHOP_TARGET_AND_AGENT "max_connections = 1\n";

/* The test protocol's session and what its hooks saw. */
struct toy {
	struct session core;
	char got[16][64]; /* payloads received, in order */
	size_t ngot;
	uint32_t last_max;
};

static unsigned closes, frees, refusals, starts, messages;

static size_t toy_frame(struct session *s, const uint8_t *hdr, size_t n, uint32_t max)
{
	size_t len = (size_t)hdr[0] << 8 | hdr[1];

	((struct toy *)s)->last_max = max;
	if (len > max) {
		session_close(s, false, "too large");
		return 0;
	}
	return len + 2;
}

static void toy_message(struct session *s, const uint8_t *msg, size_t len)
{
	struct toy *t = (struct toy *)s;
	char text[64];

	messages++;
	snprintf(text, sizeof(text), "%.*s", (int)(len - 2 < 63 ? len - 2 : 63), (const char *)msg + 2);
	if (t->ngot < 16)
		snprintf(t->got[t->ngot++], sizeof(t->got[0]), "%s", text);
	if (!strcmp(text, "login")) {
		snprintf(s->user, sizeof(s->user), "agent");
		s->u = config_find_user(s->gen->cfg, "agent");
		if (!session_login(s, "test"))
			session_close(s, false, "user at its limit");
	} else if (!strcmp(text, "busy")) {
		session_set_state(s, SESSION_BUSY);
	} else if (!strcmp(text, "quit")) {
		wbuf_put_str(&s->w, "bye");
		session_flush(s);
		session_close(s, true, "quit");
	} else if (!strcmp(text, "fail")) {
		s->w.failed = true; /* as when a reply outgrows its limit */
		session_flush(s);
	} else {
		wbuf_put_str(&s->w, "ok");
		session_flush(s);
	}
}

static bool toy_start(struct session *s)
{
	starts++;
	wbuf_put_str(&s->w, "hello");
	session_flush(s);
	return true;
}

static void toy_refuse(evutil_socket_t fd)
{
	refusals++;
	if (write(fd, "full", 4) < 0) {
		/* nothing to do */
	}
}

static void toy_close(struct session *s)
{
	closes++;
}

static void toy_free(struct session *s)
{
	frees++;
}

static const struct session_proto toy_proto = {
	.name = "toy",
	.size = sizeof(struct toy),
	.header = 2,
	.frame = toy_frame,
	.message = toy_message,
	.start = toy_start,
	.refuse = toy_refuse,
	.close = toy_close,
	.free = toy_free,
};

static const struct session_proto other_proto = {
	.name = "other",
	.size = sizeof(struct toy),
	.header = 2,
	.frame = toy_frame,
	.message = toy_message,
};

struct fixture {
	struct server srv;
	struct bufferevent *client;
	struct toy *t;
};

static void pump(struct fixture *f)
{
	for (int i = 0; i < 20; i++)
		event_base_loop(f->srv.base, EVLOOP_NONBLOCK);
}

/* What the client has received so far, as a string (drained). */
static const char *received(struct fixture *f)
{
	static char buf[256];
	size_t n;

	pump(f);
	n = bufferevent_read(f->client, buf, sizeof(buf) - 1);
	buf[n] = '\0';
	return buf;
}

static void send_msg(struct fixture *f, const char *payload)
{
	size_t n = strlen(payload);
	uint8_t hdr[2] = {(uint8_t)(n >> 8), (uint8_t)n};

	bufferevent_write(f->client, hdr, 2);
	bufferevent_write(f->client, payload, n);
}

/* A new session over a fresh pair, its client end in f->client. */
static struct toy *connect_pair(struct fixture *f, const struct session_proto *proto, struct bufferevent **client)
{
	struct bufferevent *pair[2];
	struct session *s;

	assert_int_equal(bufferevent_pair_new(f->srv.base, 0, pair), 0);
	s = session_attach(&f->srv, proto, pair[0]);
	assert_non_null(s);
	bufferevent_enable(pair[1], EV_READ | EV_WRITE);
	*client = pair[1];
	return (struct toy *)s;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct config_errors errs = {0};
	struct airlock_config *cfg;
	setup_data(state);
	cfg = config_load_string(conf_text, data_dir, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "config: %s\n", errs.msg[i]);
	assert_non_null(cfg);
	f->srv.base = event_base_new();
	f->srv.gen = gen_new(cfg);
	assert_non_null(f->srv.gen);
	f->srv.cfg = f->srv.gen->cfg;
	closes = frees = refusals = starts = messages = 0;
	f->t = connect_pair(f, &toy_proto, &f->client);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	session_close_all(&f->srv);
	if (f->client)
		bufferevent_free(f->client);
	pump(f); /* bufferevents finish freeing on the loop */
	assert_int_equal(f->srv.nsessions, 0);
	gen_release(f->srv.gen);
	event_base_free(f->srv.base);
	free(f);
	return 0;
}

static void test_greeting_and_whole_messages(void **state)
{
	struct fixture *f = *state;
	static const uint8_t cut[] = {0, 5, 'f', 'i', 'r', 's', 't', 0, 6, 's', 'e', 'c', 'o', 'n', 'd'};

	assert_int_equal(starts, 1);
	assert_string_equal(received(f), "hello");
	/* One byte at a time: nothing is handed over until a message is whole. */
	for (size_t i = 0; i < sizeof(cut); i++) {
		bufferevent_write(f->client, cut + i, 1);
		pump(f);
		if (i < 6)
			assert_int_equal(f->t->ngot, 0);
	}
	assert_int_equal(f->t->ngot, 2);
	assert_string_equal(f->t->got[0], "first");
	assert_string_equal(f->t->got[1], "second");
	assert_string_equal(received(f), "okok");
}

static void test_preauth_cap_then_max_message_bytes(void **state)
{
	struct fixture *f = *state;

	send_msg(f, "x");
	pump(f);
	assert_int_equal(f->t->last_max, SESSION_PREAUTH_MAX_MESSAGE);
	send_msg(f, "login");
	send_msg(f, "y");
	pump(f);
	assert_int_equal(f->t->core.st, SESSION_READY);
	assert_int_equal(f->t->last_max, 20000);
}

static void test_oversized_header_closes_before_buffering(void **state)
{
	struct fixture *f = *state;
	uint8_t hdr[2] = {0x40, 0x00}; /* 16 KiB, over the 8 KiB allowed before authentication */

	bufferevent_write(f->client, hdr, 2);
	pump(f);
	assert_int_equal(messages, 0);
	assert_int_equal(f->srv.nsessions, 0);
	assert_int_equal(closes, 1);
	assert_int_equal(frees, 1);
}

static void test_input_waits_while_busy(void **state)
{
	struct fixture *f = *state;

	send_msg(f, "login");
	send_msg(f, "busy");
	send_msg(f, "later");
	pump(f);
	assert_int_equal(f->t->ngot, 2);
	assert_int_equal(f->t->core.st, SESSION_BUSY);
	/* The statement ends: what waited is read. */
	session_set_state(&f->t->core, SESSION_READY);
	session_process(&f->t->core);
	assert_int_equal(f->t->ngot, 3);
	assert_string_equal(f->t->got[2], "later");
}

/* The admin console's PAUSE: a logged-in session's next message waits unread until the resume; an admin's does not. */
static void test_pause_holds_input_until_resume(void **state)
{
	struct fixture *f = *state;

	send_msg(f, "login");
	pump(f);
	f->srv.paused = true;
	send_msg(f, "held");
	pump(f);
	assert_int_equal(f->t->ngot, 1);
	assert_int_equal(f->t->core.st, SESSION_READY);
	f->t->core.admin = true;
	session_process(&f->t->core);
	assert_int_equal(f->t->ngot, 2);
	f->t->core.admin = false;
	send_msg(f, "after");
	pump(f);
	assert_int_equal(f->t->ngot, 2);
	f->srv.paused = false;
	session_resume_all(&f->srv);
	assert_int_equal(f->t->ngot, 3);
	assert_string_equal(f->t->got[2], "after");
}

static void test_close_flushes_then_frees_once(void **state)
{
	struct fixture *f = *state;

	received(f);
	send_msg(f, "quit");
	send_msg(f, "ignored");
	pump(f);
	assert_string_equal(received(f), "bye");
	assert_int_equal(f->srv.nsessions, 0);
	assert_null(f->srv.sessions);
	assert_int_equal(closes, 1);
	assert_int_equal(frees, 1);
}

static void test_unbuildable_reply_closes(void **state)
{
	struct fixture *f = *state;

	send_msg(f, "fail");
	pump(f);
	assert_int_equal(f->srv.nsessions, 0);
	assert_int_equal(frees, 1);
}

static void test_client_eof_closes(void **state)
{
	struct fixture *f = *state;

	/* A pair reports EOF to its partner when one side finishes writing. */
	bufferevent_flush(f->client, EV_WRITE, BEV_FINISHED);
	pump(f);
	assert_int_equal(f->srv.nsessions, 0);
	assert_int_equal(closes, 1);
	assert_int_equal(frees, 1);
}

static void test_user_max_connections(void **state)
{
	struct fixture *f = *state;
	struct bufferevent *c2;
	struct toy *t2;

	send_msg(f, "login");
	pump(f);
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
	t2 = connect_pair(f, &toy_proto, &c2);
	(void)t2;
	{
		uint8_t hdr[2] = {0, 5};

		bufferevent_write(c2, hdr, 2);
		bufferevent_write(c2, "login", 5);
	}
	pump(f);
	/* agent's max_connections is 1: the second login is refused and its session gone. */
	assert_int_equal(f->srv.nsessions, 1);
	assert_int_equal(f->srv.gen->user_sessions[0], 1);
	bufferevent_free(c2);
	/* The first session ends: the count goes back. */
	send_msg(f, "quit");
	pump(f);
	assert_int_equal(f->srv.gen->user_sessions[0], 0);
}

/* max_connections counts logged-in sessions: connections still logging in have a budget of their own. */
static void test_server_max_connections_refused(void **state)
{
	struct fixture *f = *state;
	struct airlock_config *cfg = (struct airlock_config *)f->srv.cfg;
	struct bufferevent *c2, *c3;
	int sv[2];
	char buf[8] = {0};

	cfg->max_connections = 1;
	connect_pair(f, &toy_proto, &c2);
	connect_pair(f, &toy_proto, &c3);
	assert_int_equal(f->srv.nsessions, 3);
	assert_int_equal(f->srv.npreauth, 3);
	send_msg(f, "login");
	pump(f);
	assert_int_equal(f->srv.npreauth, 2);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	session_accept(&f->srv, &toy_proto, sv[0]); /* closes sv[0] after refusing */
	assert_int_equal(refusals, 1);
	assert_int_equal(f->srv.nsessions, 3);
	assert_int_equal(read(sv[1], buf, sizeof(buf) - 1), 4);
	assert_string_equal(buf, "full");
	assert_int_equal(read(sv[1], buf, sizeof(buf)), 0); /* closed */
	close(sv[1]);
	bufferevent_free(c2);
	bufferevent_free(c3);
}

/*
 * A full unauthenticated budget makes room: the oldest connection that never
 * sent a whole message goes (what a half-open flood holds), not one that is
 * logging in, and the new one is accepted.
 */
static void test_unauthenticated_budget_evicts_oldest_idle(void **state)
{
	struct fixture *f = *state;
	struct airlock_config *cfg = (struct airlock_config *)f->srv.cfg;
	struct bufferevent *c2, *c3;
	struct toy *t2;
	unsigned before;
	int sv[2];

	cfg->max_unauthenticated = 3;
	t2 = connect_pair(f, &toy_proto, &c2);
	connect_pair(f, &toy_proto, &c3);
	/* The fixture's own session is the oldest, but it is sending a message: c2 is the oldest idle one... */
	send_msg(f, "hi");
	pump(f);
	/* ...until c2 sends one too: then c3, the only idle one, is the victim. */
	{
		uint8_t hdr[2] = {0, 2};

		bufferevent_write(c2, hdr, 2);
		bufferevent_write(c2, "hi", 2);
	}
	pump(f);
	assert_int_equal(f->srv.npreauth, 3);
	before = closes;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	session_accept(&f->srv, &toy_proto, sv[0]);
	pump(f);
	assert_int_equal(refusals, 0);
	assert_int_equal(closes, before + 1);
	assert_int_equal(f->srv.npreauth, 3); /* c3 gone, the new one counted */
	assert_true(f->t->core.st != SESSION_CLOSING);
	assert_true(t2->core.st != SESSION_CLOSING);
	close(sv[1]);
	bufferevent_free(c2);
	bufferevent_free(c3);
}

/*
 * A burst of connections in one loop pass: each one evicts another, and the
 * evicted ones, closing but not yet freed, no longer count as logging in,
 * so the budget is never seen as fuller than it is (which would evict a
 * client that is logging in) and the one logging in keeps its place.
 */
static void test_burst_of_evictions_keeps_the_count_true(void **state)
{
	struct fixture *f = *state;
	struct airlock_config *cfg = (struct airlock_config *)f->srv.cfg;
	int sv[2], peers[12];

	cfg->max_unauthenticated = 4;
	send_msg(f, "hi");
	pump(f);
	for (int i = 0; i < 12; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		session_accept(&f->srv, &toy_proto, sv[0]);
		peers[i] = sv[1];
		/* No loop pass in between: the evicted sessions are closing, not freed. */
		assert_true(f->srv.npreauth <= 4);
		assert_true(f->t->core.st != SESSION_CLOSING);
	}
	pump(f);
	assert_int_equal(f->srv.npreauth, 4);
	for (int i = 0; i < 12; i++)
		close(peers[i]);
}

static void test_registry_finds_by_protocol_and_id(void **state)
{
	struct fixture *f = *state;
	struct bufferevent *c2;
	struct toy *o = connect_pair(f, &other_proto, &c2);

	assert_ptr_equal(session_find(&f->srv, &toy_proto, f->t->core.id), &f->t->core);
	assert_ptr_equal(session_find(&f->srv, &other_proto, o->core.id), &o->core);
	if (o->core.id != f->t->core.id)
		assert_null(session_find(&f->srv, &other_proto, f->t->core.id));
	assert_int_equal(f->srv.gen->refs, 3); /* the server's and each session's */
	session_close(&o->core, false, "test");
	assert_null(session_find(&f->srv, &other_proto, o->core.id));
	pump(f);
	assert_int_equal(f->srv.gen->refs, 2);
	bufferevent_free(c2);
}

/* A client's bytes in a log line (a user name holding a newline) cannot forge a line of their own. */
static void test_log_line_cannot_be_forged(void **state)
{
	struct fixture *f = *state;
	FILE *tmp = tmpfile();
	int saved = dup(2);
	char buf[512] = {0};

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	session_log(&f->t->core, "user %s authenticated", "x\n2026-01-01T00:00:00Z info forged\r");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	assert_true(fread(buf, 1, sizeof(buf) - 1, tmp) > 0);
	fclose(tmp);
	assert_non_null(strstr(buf, "user x?2026-01-01T00:00:00Z info forged? authenticated"));
	assert_int_equal(strchr(buf, '\n') - buf, (long)strlen(buf) - 1); /* one line */
}

/* ---- the state mover ---- */

/* The moves session.h documents, written out again: the table may not drift from them. */
static const struct {
	enum session_state from, to;
} documented[] = {
	{SESSION_AUTH, SESSION_READY},    {SESSION_AUTH, SESSION_CLOSING}, {SESSION_READY, SESSION_BUSY},
	{SESSION_READY, SESSION_CLOSING}, {SESSION_BUSY, SESSION_READY},   {SESSION_BUSY, SESSION_CLOSING},
};

static bool documented_move(enum session_state from, enum session_state to)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		if (documented[i].from == from && documented[i].to == to)
			return true;
	return false;
}

static void test_state_table_is_the_documented_one(void **state)
{
	for (int from = 0; from < SESSION_NSTATES; from++)
		for (int to = 0; to < SESSION_NSTATES; to++)
			assert_int_equal(session_state_allowed(from, to), documented_move(from, to));
	assert_string_equal(session_state_name(SESSION_BUSY), "BUSY");
	assert_string_equal(session_state_name(SESSION_NSTATES), "?");
}

/* A new session of the fixture's server, moved to st by allowed moves. */
static struct toy *session_at(struct fixture *f, enum session_state st, struct bufferevent **client)
{
	struct toy *t = connect_pair(f, &toy_proto, client);

	assert_int_equal(t->core.st, SESSION_AUTH);
	if (st == SESSION_READY || st == SESSION_BUSY)
		assert_true(session_set_state(&t->core, SESSION_READY));
	if (st == SESSION_BUSY)
		assert_true(session_set_state(&t->core, SESSION_BUSY));
	if (st == SESSION_CLOSING)
		session_close(&t->core, false, "test");
	assert_int_equal(t->core.st, st);
	return t;
}

/* Every allowed move moves, and the server's budgets follow: logging in, logged in, neither. */
static void test_every_allowed_move_moves_the_counts(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		enum session_state from = documented[i].from, to = documented[i].to;
		struct bufferevent *c;
		struct toy *t = session_at(f, from, &c);
		unsigned pre = f->srv.npreauth, in = f->srv.nloggedin;

		if (to == SESSION_CLOSING)
			session_close(&t->core, false, "test"); /* the only way in */
		else
			assert_true(session_set_state(&t->core, to));
		assert_int_equal(t->core.st, to);
		assert_int_equal(f->srv.npreauth, pre - (from == SESSION_AUTH));
		assert_int_equal(f->srv.nloggedin, in + (to == SESSION_READY && from == SESSION_AUTH) -
							   (to == SESSION_CLOSING && from != SESSION_AUTH));
		session_close(&t->core, false, "test");
		pump(f);
		bufferevent_free(c);
	}
	/* Only the fixture's own session is left, logging in. */
	assert_int_equal(f->srv.nsessions, 1);
	assert_int_equal(f->srv.npreauth, 1);
	assert_int_equal(f->srv.nloggedin, 0);
}

static void test_every_forbidden_move_is_refused(void **state)
{
	struct fixture *f = *state;
	unsigned n = 0;

	for (int from = 0; from < SESSION_CLOSING; from++) {
		for (int to = 0; to < SESSION_NSTATES; to++) {
			struct bufferevent *c;
			struct toy *t;
			pid_t pid;
			int status;

			/* Allowed, except CLOSING, which session_set_state refuses: session_close is the way in. */
			if (session_state_allowed(from, to) && to != SESSION_CLOSING)
				continue;
			n++;
			t = session_at(f, from, &c);
			if (AIRLOCK_STRICT) {
				/* A strict build aborts: shown in a child, which exits 0 only if it returned. */
				pid = fork();
				assert_true(pid >= 0);
				if (pid == 0) {
					session_set_state(&t->core, to);
					_exit(0);
				}
				assert_int_equal(waitpid(pid, &status, 0), pid);
				assert_true(WIFSIGNALED(status));
				assert_int_equal(WTERMSIG(status), SIGABRT);
				session_close(&t->core, false, "test");
			} else {
				/* Otherwise the session is closed instead, and leaves both budgets. */
				assert_false(session_set_state(&t->core, to));
				assert_int_equal(t->core.st, SESSION_CLOSING);
				assert_int_equal(f->srv.npreauth, 1);
				assert_int_equal(f->srv.nloggedin, 0);
			}
			pump(f);
			bufferevent_free(c);
		}
	}
	assert_int_equal(n, SESSION_CLOSING * SESSION_NSTATES - sizeof(documented) / sizeof(documented[0]) + 3);
	assert_int_equal(f->srv.nsessions, 1);
}

/* A closing session stays closing, whatever is asked of it, in every build. */
static void test_closing_is_terminal(void **state)
{
	struct fixture *f = *state;

	assert_true(session_set_state(&f->t->core, SESSION_READY));
	session_close(&f->t->core, false, "test");
	for (int to = 0; to < SESSION_NSTATES; to++) {
		assert_false(session_set_state(&f->t->core, to));
		assert_int_equal(f->t->core.st, SESSION_CLOSING);
	}
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.npreauth, 0);
}

/* The close logs why with the session's identity, happens once, and the free waits for a later pass. */
static void test_close_logs_why_and_frees_later(void **state)
{
	struct fixture *f = *state;
	FILE *tmp = tmpfile();
	int saved = dup(2);
	char buf[1024] = {0}, want[128];

	send_msg(f, "login");
	pump(f);
	assert_int_equal(f->t->core.st, SESSION_READY);
	assert_non_null(tmp);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	session_close(&f->t->core, false, "the test is over");
	session_close(&f->t->core, false, "a second time");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	assert_true(fread(buf, 1, sizeof(buf) - 1, tmp) > 0);
	fclose(tmp);
	snprintf(want, sizeof(want), "toy session %u: closed: the test is over", f->t->core.id);
	assert_non_null(strstr(buf, want));
	assert_null(strstr(buf, "a second time"));
	assert_int_equal(closes, 1);
	/* Still there until the loop comes back: whoever called the close may still use it. */
	assert_int_equal(frees, 0);
	assert_int_equal(f->srv.nsessions, 1);
	assert_null(session_find(&f->srv, &toy_proto, f->t->core.id));
	assert_int_equal(f->srv.nloggedin, 0);
	assert_int_equal(f->srv.gen->user_sessions[0], 1); /* its place is given back at the free */
	pump(f);
	assert_int_equal(frees, 1);
	assert_int_equal(f->srv.nsessions, 0);
	assert_int_equal(f->srv.gen->user_sessions[0], 0);
}

static const struct job_events no_events = {0};

/*
 * session_job_start counts each job of the session until it is released;
 * past its user's max_jobs a session that holds a job is told BUSY at once
 * (it would wait for itself), others wait in the queue (test_jobs.c).
 */
static void test_user_max_jobs(void **state)
{
	struct fixture *f = *state;
	struct airlock_config *cfg = (struct airlock_config *)f->srv.cfg;
	char root[64] = "/tmp/airlock-sessiontest-XXXXXX", statedir[96], cmd[128];
	struct oci_options o = {.runtime = "/bin/false", .state_dir = statedir};
	struct launcher *l;
	struct job *j1, *j2, *j3;
	struct job_request req;
	char *saved_dir;
	struct session_refusal why;
	struct budget b = {.user = "agent", .amount = {[AIRLOCK_BUDGET_STATEMENTS] = 2}};

	assert_non_null(mkdtemp(root));
	snprintf(statedir, sizeof(statedir), "%s/state", root);
	mkdir(statedir, 0700);
	saved_dir = cfg->job_dir; /* the config frees its own: put back below */
	cfg->job_dir = root;
	l = launcher_new_oci(f->srv.base, &o);
	assert_non_null(l);
	f->srv.jobs = jobs_new(f->srv.base, NULL, l, cfg);
	assert_non_null(f->srv.jobs);
	send_msg(f, "login");
	pump(f);
	((struct airlock_user *)f->t->core.u)->max_jobs = 1;
	req = (struct job_request){.target = f->t->core.u->target, .limits = &f->t->core.u->limits, .sql = "SELECT 1"};

	j1 = session_job_start(&f->t->core, &req, &no_events, NULL, &why);
	assert_non_null(j1);
	assert_int_equal(f->t->core.njobs, 1);
	j2 = session_job_start(&f->t->core, &req, &no_events, NULL, &why);
	assert_null(j2);
	assert_int_equal(why.code, AIRLOCK_E_BUSY);
	assert_non_null(strstr(why.message, "max_jobs"));
	assert_int_equal(f->t->core.njobs, 1);
	job_detach(j1);
	session_job_release(&f->t->core);
	assert_int_equal(f->t->core.njobs, 0);
	j3 = session_job_start(&f->t->core, &req, &no_events, NULL, &why);
	assert_non_null(j3);
	job_detach(j3);
	session_job_release(&f->t->core);

	/* Two statements a minute: two start, the third is refused with when to retry; a describe is no statement. */
	b.level[AIRLOCK_BUDGET_STATEMENTS] = 2.0;
	b.at_ns = monotonic_ns();
	f->t->core.budget = &b;
	for (int i = 0; i < 2; i++) {
		j1 = session_job_start(&f->t->core, &req, &no_events, NULL, &why);
		assert_non_null(j1);
		job_detach(j1);
		session_job_release(&f->t->core);
	}
	assert_null(session_job_start(&f->t->core, &req, &no_events, NULL, &why));
	assert_int_equal(why.code, AIRLOCK_E_BUDGET);
	assert_non_null(strstr(why.message, "budget_statements_per_minute (2)"));
	assert_non_null(strstr(why.hint, "retry after "));
	assert_int_equal(f->t->core.njobs, 0);
	req.describe = true;
	j1 = session_job_start(&f->t->core, &req, &no_events, NULL, &why);
	assert_non_null(j1);
	job_detach(j1);
	session_job_release(&f->t->core);
	f->t->core.budget = NULL;

	jobs_stop_pool(f->srv.jobs);
	pump(f);
	assert_int_equal(jobs_live(f->srv.jobs), 0);
	launcher_free(l);
	jobs_free(f->srv.jobs);
	f->srv.jobs = NULL;
	cfg->job_dir = saved_dir;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_greeting_and_whole_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preauth_cap_then_max_message_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_header_closes_before_buffering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_input_waits_while_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pause_holds_input_until_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_flushes_then_frees_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbuildable_reply_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_eof_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_max_connections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_max_connections_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_of_evictions_keeps_the_count_true, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unauthenticated_budget_evicts_oldest_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry_finds_by_protocol_and_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_line_cannot_be_forged, setup, teardown),
		cmocka_unit_test(test_state_table_is_the_documented_one),
		cmocka_unit_test_setup_teardown(test_every_allowed_move_moves_the_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_forbidden_move_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closing_is_terminal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_logs_why_and_frees_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_max_jobs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
