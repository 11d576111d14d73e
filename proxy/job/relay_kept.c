/*
 * relay_kept: a runner's connection served by a kept backend session
 * (relay_kept.h).
 */
#include "proxy/job/relay_kept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "base/errors.h"
#include "base/frame.h"
#include "protocol/pg_client.h"
#include "protocol/pg_codec.h"
#include "proxy/job/bsess.h"
#include "proxy/job/relay.h"
#include "proxy/log.h"

enum rk_state {
	RK_STARTUP, /* the runner's startup packet is read */
	RK_PARAMS,  /* a probe learns the target's parameters for the answer */
	RK_HOLD,    /* answered; the runner's messages wait for a session */
	RK_LOGIN,   /* a session logs in for it */
	RK_RELAY,   /* messages pass both ways */
};

struct relay_kept {
	struct bsess_pool *pool;
	struct bufferevent *runner;
	struct bsess *sess; /* lent, while RK_RELAY */
	struct bufferevent *backend;
	enum rk_state state;
	const struct airlock_target *target; /* borrowed: the job's, which outlives its relays */
	char *host;
	uint16_t port;
	char *user;        /* NULL until the job has one */
	uint64_t left;     /* bytes of the runner's current message still to pass */
	uint64_t bleft;    /* bytes of the backend's current message still to pass */
	bool backend_idle; /* the backend's last whole message was ReadyForQuery, and nothing was asked since */
	struct relay_kept_events ev;
	void *arg;
};

static void rk_runner_read(struct bufferevent *bev, void *arg);
static void rk_answer(struct relay_kept *k);
static void rk_runner_write(struct bufferevent *bev, void *arg);
static void rk_runner_event(struct bufferevent *bev, short what, void *arg);

/* Gives the session back (reset if the runner stopped between messages) and frees k; nobody is told. */
void relay_kept_free(struct relay_kept *k)
{
	if (!k)
		return;
	if (k->state == RK_PARAMS || k->state == RK_LOGIN)
		bsess_forget(k->pool, k);
	if (k->sess) {
		bufferevent_setcb(k->backend, NULL, NULL, NULL, NULL);
		/* Killed, or gone mid-statement, perhaps: bsess_give cancels it if the reset does not end soon. */
		bsess_give(k->sess, k->left == 0 && evbuffer_get_length(bufferevent_get_input(k->runner)) == 0,
			   k->bleft, !k->backend_idle);
	}
	if (k->runner)
		bufferevent_free(k->runner);
	free(k->host);
	free(k->user);
	free(k);
}

/* The runner's connection is over: the owner forgets k, which goes. */
static void rk_end(struct relay_kept *k)
{
	if (k->ev.on_close)
		k->ev.on_close(k->arg, k);
	relay_kept_free(k);
}

static void rk_drained(struct bufferevent *bev, void *arg)
{
	struct relay_kept *k = arg;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		rk_end(k);
}

/* Reads nothing more from the runner; ends once what it is owed is written. */
static void rk_close_after_output(struct relay_kept *k)
{
	k->state = RK_HOLD;
	bufferevent_disable(k->runner, EV_READ);
	bufferevent_setwatermark(k->runner, EV_WRITE, 0, 0);
	bufferevent_setcb(k->runner, NULL, rk_drained, rk_runner_event, k);
	if (evbuffer_get_length(bufferevent_get_output(k->runner)) == 0)
		rk_end(k);
}

/* Tells the runner the session could not be had (as the database would: a FATAL, then the close). */
static void rk_refuse(struct relay_kept *k, const char *why)
{
	char msg[320];
	struct pg_error_fields e = {
		.severity = "FATAL",
		.sqlstate = airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_CONNECTION_FAILURE),
		.message = msg,
	};
	struct wbuf w;

	snprintf(msg, sizeof(msg), "%s%s", FRAME_KEPT_REFUSED, why);
	wbuf_init(&w);
	pg_put_error(&w, &e);
	if (!w.failed)
		bufferevent_write(k->runner, w.data, w.len);
	wbuf_free(&w);
	rk_close_after_output(k);
}

/* Passes the runner's messages on, whole, keeping its Terminate; false once k is gone. */
static bool rk_forward(struct relay_kept *k)
{
	struct evbuffer *in = bufferevent_get_input(k->runner), *out = bufferevent_get_output(k->backend);

	for (;;) {
		size_t len = evbuffer_get_length(in);
		uint8_t head[5];
		uint32_t mlen;

		if (!len)
			break;
		if (k->left) {
			size_t n = len < k->left ? len : (size_t)k->left;

			evbuffer_remove_buffer(in, out, n);
			k->left -= n;
			continue;
		}
		if (evbuffer_copyout(in, head, sizeof(head)) != (ssize_t)sizeof(head))
			break;
		mlen = (uint32_t)head[1] << 24 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 8 | head[4];
		if (mlen < 4 || (head[0] == 'X' && mlen != 4)) {
			log_info("relay: a runner sent a malformed message; its session is closed");
			k->left = 1;
			rk_end(k);
			return false;
		}
		if (head[0] == 'X') {
			evbuffer_drain(in, sizeof(head));
			rk_end(k);
			return false;
		}
		k->left = (uint64_t)mlen + 1;
		k->backend_idle = false;
	}
	if (evbuffer_get_length(out) >= RELAY_HIGH_WATER)
		bufferevent_disable(k->runner, EV_READ);
	return true;
}

/* Passes the backend's bytes on, whole messages or not, noting whether it stopped at a ReadyForQuery. */
static void rk_backend_read(struct bufferevent *bev, void *arg)
{
	struct relay_kept *k = arg;
	struct evbuffer *in = bufferevent_get_input(bev), *out = bufferevent_get_output(k->runner);
	size_t len;
	uint8_t head[5];

	while ((len = evbuffer_get_length(in)) != 0) {
		if (k->bleft) {
			size_t n = len < k->bleft ? len : (size_t)k->bleft;

			evbuffer_remove_buffer(in, out, n);
			k->bleft -= n;
			continue;
		}
		if (evbuffer_copyout(in, head, sizeof(head)) != (ssize_t)sizeof(head))
			break;
		/* What the backend sends is passed on as it is; its lengths only tell where its messages end. */
		k->bleft = ((uint64_t)head[1] << 24 | (uint64_t)head[2] << 16 | (uint64_t)head[3] << 8 | head[4]) + 1;
		if (k->bleft < 5)
			k->bleft = 5;
		k->backend_idle = head[0] == 'Z';
	}
	if (evbuffer_get_length(out) >= RELAY_HIGH_WATER)
		bufferevent_disable(bev, EV_READ);
}

static void rk_backend_write(struct bufferevent *bev, void *arg)
{
	struct relay_kept *k = arg;

	(void)bev;
	bufferevent_enable(k->runner, EV_READ);
}

static void rk_backend_event(struct bufferevent *bev, short what, void *arg)
{
	struct relay_kept *k = arg;

	(void)bev;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	/* The backend ended the session (a FATAL it sent is on its way to the runner): closed, never kept. */
	bufferevent_setcb(k->backend, NULL, NULL, NULL, NULL);
	bsess_give(k->sess, false, 0, false);
	k->sess = NULL;
	k->backend = NULL;
	rk_close_after_output(k);
}

/* k has its session: messages pass from now on. */
static void rk_relay(struct relay_kept *k, struct bsess *s)
{
	k->sess = s;
	k->backend = bsess_bev(s);
	k->state = RK_RELAY;
	/* Lent at a ReadyForQuery (its login's, or its reset's). */
	k->backend_idle = true;
	k->bleft = 0;
	bufferevent_setcb(k->backend, rk_backend_read, rk_backend_write, rk_backend_event, k);
	bufferevent_setwatermark(k->backend, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	bufferevent_enable(k->backend, EV_READ);
	bufferevent_setcb(k->runner, rk_runner_read, rk_runner_write, rk_runner_event, k);
	bufferevent_enable(k->runner, EV_READ);
	if (k->ev.on_session)
		k->ev.on_session(k->arg, bsess_pid(s));
	/* What the runner sent while it waited. */
	if (rk_forward(k))
		rk_backend_read(k->backend, k);
}

static void rk_session_ready(void *arg, struct bsess *s, const char *why)
{
	struct relay_kept *k = arg;

	if (k->state == RK_PARAMS && !s && !why) {
		rk_answer(k);
		return;
	}
	if (!s) {
		rk_refuse(k, why ? why : "airlock could not open a session on the database");
		return;
	}
	rk_relay(k, s);
}

/* Answered and owned: a session of the user now, or once one has logged in. */
static void rk_take(struct relay_kept *k)
{
	struct bsess *s;
	bool started = false;

	if (k->state != RK_HOLD || !k->user)
		return;
	s = bsess_get(k->pool, k->target, k->host, k->port, k->user, rk_session_ready, k, &started);
	if (s) {
		rk_relay(k, s);
		return;
	}
	if (!started) {
		rk_refuse(k, "airlock could not open a session on the database");
		return;
	}
	k->state = RK_LOGIN;
}

/* The login the runner asked for, answered as the target's backend would: then a session is found. */
static void rk_answer(struct relay_kept *k)
{
	const uint8_t *params;
	size_t len;
	struct wbuf w;

	if (!bsess_params(k->pool, k->target, &params, &len)) {
		if (k->state == RK_PARAMS) {
			rk_refuse(k, "airlock could not open a session on the database");
			return;
		}
		k->state = RK_PARAMS;
		if (!bsess_probe(k->pool, k->target, k->host, k->port, rk_session_ready, k))
			rk_refuse(k, "airlock could not open a session on the database");
		return;
	}
	wbuf_init(&w);
	pg_put_auth_ok(&w);
	wbuf_put_bytes(&w, params, len);
	pg_put_ready(&w, 'I');
	if (!w.failed)
		bufferevent_write(k->runner, w.data, w.len);
	wbuf_free(&w);
	k->state = RK_HOLD;
	/* The runner's messages wait in the socket until there is a session for them. */
	bufferevent_disable(k->runner, EV_READ);
	rk_take(k);
}

/* The runner's first message; false once k is gone. */
static bool rk_startup(struct relay_kept *k)
{
	struct evbuffer *in = bufferevent_get_input(k->runner);
	size_t len = evbuffer_get_length(in), used = 0;
	size_t n = len < RELAY_KEPT_STARTUP_MAX ? len : RELAY_KEPT_STARTUP_MAX;
	const uint8_t *buf = evbuffer_pullup(in, (ssize_t)n);
	struct pg_startup st;
	const char *err = NULL;
	enum pg_status ps = pg_decode_startup(buf, n, RELAY_KEPT_STARTUP_MAX, &st, &used, &err);

	if (ps == PG_NEED_MORE)
		return true;
	if (ps != PG_OK) {
		rk_end(k);
		return false;
	}
	evbuffer_drain(in, used);
	switch (st.kind) {
	case PG_STARTUP_SSL:
	case PG_STARTUP_GSSENC:
		bufferevent_write(k->runner, "N", 1);
		return true;
	case PG_STARTUP_CANCEL:
		if (k->ev.on_cancel)
			k->ev.on_cancel(k->arg);
		rk_end(k);
		return false;
	case PG_STARTUP_NORMAL:
		rk_answer(k);
		return k->state != RK_STARTUP;
	default:
		rk_end(k);
		return false;
	}
}

static void rk_runner_read(struct bufferevent *bev, void *arg)
{
	struct relay_kept *k = arg;

	(void)bev;
	if (k->state == RK_STARTUP) {
		while (k->state == RK_STARTUP && evbuffer_get_length(bufferevent_get_input(k->runner)))
			if (!rk_startup(k))
				return;
		return;
	}
	if (k->state == RK_RELAY)
		rk_forward(k);
}

static void rk_runner_write(struct bufferevent *bev, void *arg)
{
	struct relay_kept *k = arg;

	(void)bev;
	if (k->state == RK_RELAY && k->backend)
		bufferevent_enable(k->backend, EV_READ);
}

static void rk_runner_event(struct bufferevent *bev, short what, void *arg)
{
	struct relay_kept *k = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		rk_end(k);
}

struct relay_kept *relay_kept_new(struct bsess_pool *pool, struct event_base *base, int fd,
				  const struct airlock_target *t, const char *host, uint16_t port, const char *user,
				  const struct relay_kept_events *ev, void *arg)
{
	struct relay_kept *k = calloc(1, sizeof(*k));

	if (!k) {
		close(fd);
		return NULL;
	}
	k->pool = pool;
	k->target = t;
	k->port = port;
	k->ev = *ev;
	k->arg = arg;
	k->host = strdup(host);
	k->user = user ? strdup(user) : NULL;
	evutil_make_socket_nonblocking(fd);
	k->runner = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!k->runner)
		close(fd);
	if (!k->runner || !k->host || (user && !k->user)) {
		relay_kept_free(k);
		return NULL;
	}
	bufferevent_setcb(k->runner, rk_runner_read, rk_runner_write, rk_runner_event, k);
	bufferevent_setwatermark(k->runner, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	bufferevent_enable(k->runner, EV_READ);
	return k;
}

void relay_kept_own(struct relay_kept *k, const char *user)
{
	if (!k || k->user)
		return;
	k->user = strdup(user);
	if (k->user)
		rk_take(k);
}

void relay_kept_cancel(struct relay_kept *k)
{
	if (k && k->sess)
		bsess_cancel(k->sess);
}

int relay_kept_backend_fd(const struct relay_kept *k)
{
	return k && k->sess ? bsess_fd(k->sess) : -1;
}
