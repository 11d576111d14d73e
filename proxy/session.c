/*
 * session: the connection life both protocols share (see session.h).
 *
 *   AUTH --session_verdict (maybe a wait)--> session_login --> READY --statement to a job--> BUSY --result--> READY
 *   any --session_close--> CLOSING (flush if asked, then free on a later pass)
 *
 * session_set_state is the only writer of s->st after session_attach's
 * first AUTH, and the only place the budgets of sessions logging in and
 * logged in change (see session.h).
 */
#define _GNU_SOURCE
#include "proxy/session.h"
#include "proxy/peer_key.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "base/dlist.h"
#include "proxy/audit.h"
#include "proxy/budget.h"
#include "proxy/gen.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "proxy/login_guard.h"
#include "proxy/server.h"
#include "proxy/stats.h"
#include "proxy/validator_pool.h"
#include "proxy/strict.h"
#include "proxy/timeval.h"
#include "proxy/tls.h"

/* Read-ahead above the message being waited for, so the next header arrives with it. */
#define READ_SLACK 4096u

static const char *const state_names[] = {
#define SESSION_NAME(name) #name,
	SESSION_STATES(SESSION_NAME)
#undef SESSION_NAME
};

#define TO(st) (1u << SESSION_##st)

/* For each state, the states it may move to. */
static const unsigned allowed[SESSION_NSTATES] = {
	[SESSION_AUTH] = TO(READY) | TO(CLOSING),
	[SESSION_READY] = TO(BUSY) | TO(CLOSING),
	[SESSION_BUSY] = TO(READY) | TO(CLOSING),
	[SESSION_CLOSING] = 0,
};

const char *session_state_name(enum session_state st)
{
	return (unsigned)st < SESSION_NSTATES ? state_names[st] : "?";
}

bool session_state_allowed(enum session_state from, enum session_state to)
{
	return (unsigned)from < SESSION_NSTATES && (unsigned)to < SESSION_NSTATES && (allowed[from] & (1u << to));
}

/* The server's count a session in st belongs to: logging in, logged in, or none (closing). */
static unsigned *budget(struct server *srv, enum session_state st)
{
	if (st == SESSION_AUTH)
		return &srv->npreauth;
	if (st == SESSION_READY || st == SESSION_BUSY)
		return &srv->nloggedin;
	return NULL;
}

/*
 * Moves s to st when the table allows it (CLOSING too: session_close's
 * move). A forbidden move is the bug of session_set_state's caller.
 */
static bool move(struct session *s, enum session_state st)
{
	unsigned *from, *to;

	if (s->st == SESSION_CLOSING)
		return false; /* terminal: see session.h */
	if (!session_state_allowed(s->st, st)) {
		log_error("%s session %u: BUG: state %s -> %s is not allowed; closing the session", s->proto->name,
			  s->id, session_state_name(s->st), session_state_name(st));
		if (AIRLOCK_STRICT)
			abort();
		session_close(s, true, "internal error: inconsistent session state");
		return false;
	}
	/*
	 * A closing session leaves its budget now, not when it is freed, so a
	 * burst of evictions does not look like pressure and evict connections
	 * that are logging in.
	 */
	from = budget(s->srv, s->st);
	to = budget(s->srv, st);
	if (from != to) {
		if (from)
			(*from)--;
		if (to)
			(*to)++;
	}
	s->st = st;
	return true;
}

bool session_set_state(struct session *s, enum session_state st)
{
	/* CLOSING is entered by session_close only, which does what closing takes. */
	if (st == SESSION_CLOSING && s->st != SESSION_CLOSING) {
		log_error("%s session %u: BUG: CLOSING asked of session_set_state, not session_close", s->proto->name,
			  s->id);
		if (AIRLOCK_STRICT)
			abort();
		session_close(s, true, "internal error: inconsistent session state");
		return false;
	}
	return move(s, st);
}

__attribute__((format(printf, 3, 0))) static void say(const struct session *s, bool warn, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* What a client sent (a user name, say) cannot start a forged log line. */
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (warn)
		log_warn("%s session %u: %s", s->proto->name, s->id, line);
	else
		log_info("%s session %u: %s", s->proto->name, s->id, line);
}

void session_log(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(s, false, fmt, ap);
	va_end(ap);
}

void session_warn(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(s, true, fmt, ap);
	va_end(ap);
}

/* ---- lifetime ---- */

static void unlink_session(struct session *s)
{
	struct server *srv = s->srv;
	unsigned *n;

	DLIST_UNLINK(srv->sessions, s);
	srv->nsessions--;
	/* Freed without a close (shutdown): it leaves its budget here. */
	if ((n = budget(srv, s->st)))
		(*n)--;
}

/* Stops what runs for the session: its statement's job and whatever the protocol holds. */
static void detach_all(struct session *s)
{
	if (s->job) {
		job_detach(s->job);
		s->job = NULL;
		session_job_release(s);
	}
	if (s->proto->close)
		s->proto->close(s);
}

static void session_free(struct session *s)
{
	if (s->st != SESSION_CLOSING)
		detach_all(s);
	if (s->proto->free)
		s->proto->free(s);
	wbuf_free(&s->w);
	if (s->counted)
		gen_session_release(s->gen, s->u);
	unlink_session(s);
	event_free(s->timer); /* made with the session (session_attach) */
	if (s->idle)
		event_free(s->idle);
	if (s->bev)
		bufferevent_free(s->bev);
	gen_release(s->gen);
	free(s);
}

static void free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct server *srv = s->srv;
	struct bufferevent *raw = s->tls ? bufferevent_get_underlying(s->bev) : NULL;

	/* Everything the session wrote is encrypted by now: end TLS cleanly after it. */
	if (raw && !s->tls_ended) {
		s->tls_ended = true;
		tls_close_notify(s->bev);
	}
	/* Over TLS the last records may still sit below the TLS layer: give the socket up to 1 s. */
	if (raw && evbuffer_get_length(bufferevent_get_output(raw)) > 0 && s->flush_waits < 100) {
		struct timeval tv = {0, 10000};

		s->flush_waits++;
		evtimer_add(s->timer, &tv);
		return;
	}
	session_free(s);
	/* Draining and the last session is gone: the server may stop. */
	if (srv->stopping && srv->nsessions == 0)
		event_base_loopexit(srv->base, NULL);
}

static void free_soon(struct session *s)
{
	struct timeval zero = {0, 0};

	evtimer_add(s->timer, &zero);
}

void session_close(struct session *s, bool flush, const char *why)
{
	if (s->st == SESSION_CLOSING)
		return;
	if (s->u || s->st != SESSION_AUTH)
		session_log(s, "closed: %s", why);
	move(s, SESSION_CLOSING);
	if (s->idle)
		event_del(s->idle);
	detach_all(s);
	if (s->bev)
		bufferevent_disable(s->bev, EV_READ);
	/* The timer was the authentication deadline; from now on it frees (no allocation here). */
	event_del(s->timer);
	event_assign(s->timer, s->srv->base, -1, 0, free_cb, s);
	if (flush && s->bev && evbuffer_get_length(bufferevent_get_output(s->bev)) > 0) {
		bufferevent_setwatermark(s->bev, EV_WRITE, 0, 0);
		return; /* the write callback frees once drained */
	}
	free_soon(s);
}

/* Tells the client the server is going away and closes; false when s keeps running a statement. */
static bool shutdown_one(struct session *s, bool force)
{
	if (s->st == SESSION_CLOSING || (s->st == SESSION_BUSY && !force))
		return false;
	if (s->proto->shutdown)
		s->proto->shutdown(s);
	session_close(s, true,
		      force && s->st == SESSION_BUSY ? "shutting down: its statement was cut off" : "shutting down");
	return true;
}

void session_shutdown_all(struct server *srv, bool force)
{
	struct session *s, *next;

	for (s = srv->sessions; s; s = next) {
		next = s->next;
		shutdown_one(s, force);
	}
}

void session_close_all(struct server *srv)
{
	while (srv->sessions)
		session_free(srv->sessions);
}

struct session *session_find(struct server *srv, const struct session_proto *proto, uint32_t id)
{
	for (struct session *s = srv->sessions; s; s = s->next)
		if (s->proto == proto && s->id == id && s->st != SESSION_CLOSING)
			return s;
	return NULL;
}

struct session *session_find_any(struct server *srv, uint32_t id)
{
	for (struct session *s = srv->sessions; s; s = s->next)
		if (s->id == id && s->st != SESSION_CLOSING)
			return s;
	return NULL;
}

/* ---- output ---- */

void session_flush(struct session *s)
{
	if (s->w.failed) {
		session_warn(s, "a reply could not be built (out of memory or too large)");
		wbuf_reset(&s->w);
		session_close(s, false, "a reply could not be built");
		return;
	}
	if (s->w.len)
		bufferevent_write(s->bev, s->w.data, s->w.len);
	/*
	 * Outside a statement (a login step, a statement's last reply) the
	 * buffer goes: an idle session holds no reply buffer. A statement's
	 * rows keep it between flushes.
	 */
	if (s->st == SESSION_BUSY)
		wbuf_reset(&s->w);
	else
		wbuf_free(&s->w);
}

void session_statement_done(struct session *s)
{
	session_flush(s);
	wbuf_free(&s->w); /* sent: the idle session holds no reply buffer */
	session_set_state(s, SESSION_READY);
	session_process(s);
}

void session_backpressure(struct session *s, struct job *j)
{
	if (j && s->st != SESSION_CLOSING &&
	    evbuffer_get_length(bufferevent_get_output(s->bev)) >= SESSION_OUT_HIGH_WATER) {
		s->out_paused = true;
		job_pause(j, true);
	}
}

static void tls_begin(struct session *s);

/* ---- input ---- */

static void idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;

	if (s->st != SESSION_READY)
		return;
	if (s->proto->idle_timeout)
		s->proto->idle_timeout(s);
	session_close(s, true, "idle for longer than the session allows");
}

/* Waiting for the client while logged in: the protocol's idle limit runs. */
static void idle_arm(struct session *s)
{
	uint64_t ms;
	struct timeval tv;

	if (s->st != SESSION_READY || !s->proto->idle_ms || !(ms = s->proto->idle_ms(s)))
		return;
	if (!s->idle && !(s->idle = evtimer_new(s->srv->base, idle_cb, s)))
		return;
	tv = ms_timeval(ms);
	evtimer_add(s->idle, &tv);
}

void session_process(struct session *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);
	const struct session_proto *p = s->proto;

	/* Draining: a session whose statement just ended goes now. */
	if (s->srv->stopping && shutdown_one(s, false))
		return;
	while ((s->st == SESSION_AUTH || s->st == SESSION_READY) && !s->waiting) {
		uint32_t max = s->st == SESSION_READY ? s->srv->cfg->max_message_bytes : SESSION_PREAUTH_MAX_MESSAGE;
		size_t have = evbuffer_get_length(in), len, n;
		uint8_t hdr[SESSION_PEEK];
		const uint8_t *msg;
		uint64_t busy;

		if (have < p->header) {
			idle_arm(s);
			return;
		}
		if (s->st == SESSION_READY && s->srv->paused && !s->admin) {
			/* Paused: the statement waits unread, and no idle limit runs meanwhile (session_resume_all). */
			if (s->idle)
				event_del(s->idle);
			return;
		}
		n = have < sizeof(hdr) ? have : sizeof(hdr);
		evbuffer_copyout(in, hdr, n);
		len = p->frame(s, hdr, n, max);
		if (len == 0 && s->tls_next && s->st != SESSION_CLOSING) {
			/* TLS from the first byte (the frame saw a handshake record): its bytes stay for TLS to read.
			 */
			tls_begin(s);
			return;
		}
		if (len == 0 || s->st == SESSION_CLOSING)
			return;
		if (have < len) {
			bufferevent_setwatermark(s->bev, EV_READ, 0, len + READ_SLACK);
			idle_arm(s);
			return;
		}
		if (s->idle)
			event_del(s->idle);
		msg = evbuffer_pullup(in, (ssize_t)len);
		if (!msg) {
			session_close(s, false, "out of memory reading a message");
			return;
		}
		s->progressed = true;
		busy = vpool_busy_ns(s->srv->validators);
		/* A statement this message begins counts from its arrival, its checks included. */
		clock_gettime(CLOCK_MONOTONIC, &s->t0);
		s->in_message = true;
		p->message(s, msg, len);
		s->in_message = false;
		s->validate_ns += vpool_busy_ns(s->srv->validators) - busy;
		if (s->st == SESSION_CLOSING)
			return;
		evbuffer_drain(in, len);
		if (s->tls_next) {
			/* What follows is TLS: the new bufferevent's callbacks read it. */
			tls_begin(s);
			return;
		}
		bufferevent_setwatermark(s->bev, EV_READ, 0, (size_t)max + p->header + READ_SLACK);
	}
}

void session_resume_all(struct server *srv)
{
	struct session *s, *next;

	for (s = srv->sessions; s; s = next) {
		next = s->next;
		if (s->st == SESSION_READY && !s->admin)
			session_process(s);
	}
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	session_process(arg);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	struct session *s = arg;

	if (s->st == SESSION_CLOSING) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			free_soon(s);
		return;
	}
	if (s->out_paused && s->job) {
		s->out_paused = false;
		job_pause(s->job, false);
	}
	if (s->proto->drained)
		s->proto->drained(s);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct session *s = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	if (s->st == SESSION_CLOSING) {
		free_soon(s); /* the flush cannot finish: the client is gone */
		return;
	}
	session_close(s, false, what & BEV_EVENT_EOF ? "the client disconnected" : "connection error");
}

static void auth_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;

	session_log(s, "authentication not finished in time");
	if (s->proto->auth_timeout)
		s->proto->auth_timeout(s);
	session_close(s, true, "authentication timeout");
}

/* The client address of fd as bytes (IPv4-mapped IPv6 as IPv4); 0 when it has none. */
static uint8_t peer_address(evutil_socket_t fd, uint8_t out[16])
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET) {
		memcpy(out, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		return 4;
	}
	if (ss.ss_family == AF_INET6) {
		const uint8_t *a = ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a)) {
			memcpy(out, a + 12, 4);
			return 4;
		}
		memcpy(out, a, 16);
		return 16;
	}
	return 0;
}

/*
 * The session that makes room for a new connection still logging in: the
 * oldest one that never sent a whole first message (what a half-open flood
 * holds), else the oldest; only from addr when addrlen is not 0.
 */
static struct session *eviction_victim(struct server *srv, const uint8_t *addr, uint8_t addrlen, unsigned *same)
{
	struct session *idle = NULL, *any = NULL, *s;

	*same = 0;
	for (s = srv->sessions; s; s = s->next) {
		if (s->st != SESSION_AUTH)
			continue;
		if (addrlen && (s->addrlen != addrlen || memcmp(s->addr, addr, addrlen) != 0))
			continue;
		(*same)++;
		if (!any || s->seq < any->seq)
			any = s;
		if (!s->progressed && (!idle || s->seq < idle->seq))
			idle = s;
	}
	return idle ? idle : any;
}

void session_accept(struct server *srv, const struct session_proto *proto, evutil_socket_t fd)
{
	const struct airlock_config *cfg = srv->cfg;
	struct bufferevent *bev;
	struct session *s, *victim;
	uint8_t addr[16] = {0};
	uint8_t addrlen = peer_address(fd, addr);
	unsigned same;

	/* Logged-in sessions are capped by max_connections; those logging in have budgets of their own. */
	if (srv->nloggedin >= cfg->max_connections) {
		if (proto->refuse)
			proto->refuse(fd);
		close(fd);
		return;
	}
	victim = eviction_victim(srv, addr, addrlen, &same);
	if (addrlen && same >= cfg->max_unauthenticated_per_address && victim) {
		session_log(victim, "closed to make room: %u connections from its address are logging in", same);
		session_close(victim, false, "too many unauthenticated connections from its address");
	} else if (srv->npreauth >= cfg->max_unauthenticated) {
		victim = eviction_victim(srv, NULL, 0, &same);
		if (victim) {
			session_log(victim, "closed to make room: %u connections are logging in", srv->npreauth);
			session_close(victim, false, "too many unauthenticated connections");
		}
	}
	evutil_make_socket_nonblocking(fd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		close(fd);
		return;
	}
	s = session_attach(srv, proto, bev);
	if (s && addrlen) {
		memcpy(s->addr, addr, addrlen);
		s->addrlen = addrlen;
	}
}

struct session *session_attach(struct server *srv, const struct session_proto *proto, struct bufferevent *bev)
{
	/* Under pressure a connection gets less time to log in, so a flood turns over faster. */
	bool pressed = srv->cfg && srv->npreauth >= srv->cfg->max_unauthenticated / 2;
	struct timeval tv = {pressed ? SESSION_AUTH_TIMEOUT_PRESSED_SEC : SESSION_AUTH_TIMEOUT_SEC, 0};
	struct session *s = calloc(1, proto->size);
	uint32_t id, peer_id = srv->cfg ? srv->cfg->peer_id : 0;

	if (!s || getrandom(&id, sizeof(id), 0) != sizeof(id) ||
	    !(s->timer = evtimer_new(srv->base, auth_timeout_cb, s))) {
		free(s);
		bufferevent_free(bev);
		return NULL;
	}
	s->proto = proto;
	s->srv = srv;
	s->bev = bev;
	wbuf_init(&s->w);
	/* Unique among live sessions: a cancel or KILL QUERY names exactly one. */
	s->id = peer_key_make(peer_id, srv->worker.index, srv->worker.count, id);
	for (int tries = 0; tries < 16 && session_find_any(srv, s->id); tries++)
		s->id = peer_key_make(peer_id, srv->worker.index, srv->worker.count,
				      id = id * 2654435761u + 0x9e3779b9u);
	s->gen = gen_hold(srv->gen);
	s->st = SESSION_AUTH; /* its first state, before any move: counted as logging in */
	srv->npreauth++;
	DLIST_PUSH(srv->sessions, s);
	srv->nsessions++;
	s->seq = ++srv->accept_seq;
	s->since = time(NULL);
	evtimer_add(s->timer, &tv);
	bufferevent_setcb(bev, read_cb, write_cb, event_cb, s);
	bufferevent_setwatermark(bev, EV_READ, 0, SESSION_PREAUTH_MAX_MESSAGE + proto->header + READ_SLACK);
	bufferevent_setwatermark(bev, EV_WRITE, SESSION_OUT_LOW_WATER, 0);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	if (proto->start && !proto->start(s)) {
		session_close(s, true, "could not start");
		return NULL;
	}
	return s;
}

static void guard_cfg(const struct airlock_config *cfg, struct login_guard_cfg *g)
{
	g->free = cfg->login_free_failures;
	g->delay_ms = cfg->login_delay_ms;
	g->max_ms = cfg->login_delay_max_ms;
	g->window_ms = cfg->login_failure_window_ms;
}

static void verdict_cb(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct timeval tv = {SESSION_AUTH_TIMEOUT_PRESSED_SEC, 0};

	s->waiting = false;
	/* Whatever then does next, the session is still bound by a login deadline. */
	event_assign(s->timer, s->srv->base, -1, 0, auth_timeout_cb, s);
	evtimer_add(s->timer, &tv);
	s->verdict_then(s, s->verdict_pass);
	if (s->st == SESSION_AUTH || s->st == SESSION_READY)
		session_process(s);
}

void session_client(const struct session *s, char *out, size_t len)
{
	out[0] = '\0';
	if (s->addrlen && !inet_ntop(s->addrlen == 4 ? AF_INET : AF_INET6, s->addr, out, (socklen_t)len))
		out[0] = '\0';
}

void session_verdict(struct session *s, bool pass, const char *sqlstate, void (*then)(struct session *s, bool pass))
{
	struct login_guard_cfg gc;
	struct timeval tv;
	uint64_t now = (uint64_t)monotonic_ms();
	uint32_t wait;
	char client[INET6_ADDRSTRLEN];

	guard_cfg(s->srv->cfg, &gc);
	wait = s->srv->guard ? login_guard_wait(s->srv->guard, &gc, s->addr, s->addrlen, s->user, now) : 0;
	if (!pass) {
		session_client(s, client, sizeof(client));
		session_log(s, "authentication failed for user %s%s%s", s->user, client[0] ? " from " : "", client);
		if (s->srv->guard)
			login_guard_failed(s->srv->guard, &gc, s->addr, s->addrlen, s->user, now);
		audit_login_failed(s->srv->audit, s->user, s->id, s->proto->name, client, sqlstate, wait);
		stats_login_failed(s->srv->stats, s->proto->name, wait);
	} else if (s->srv->guard) {
		login_guard_passed(s->srv->guard, s->user);
	}
	if (wait == 0) {
		then(s, pass);
		return;
	}
	session_log(s, "answering the login of user %s in %u ms: repeated failed logins for its address or name",
		    s->user, wait);
	s->waiting = true;
	s->verdict_pass = pass;
	s->verdict_then = then;
	event_del(s->timer);
	event_assign(s->timer, s->srv->base, -1, 0, verdict_cb, s);
	tv = ms_timeval(wait);
	evtimer_add(s->timer, &tv);
}

bool session_start_tls(struct session *s)
{
	if (!s->srv->tls || s->tls) {
		session_close(s, true, "TLS is not available");
		return false;
	}
	s->tls_next = true;
	return true;
}

/* After the asking message left the input: the socket's bufferevent goes under a TLS one. */
static void tls_begin(struct session *s)
{
	struct bufferevent *raw = s->bev, *tls;

	/* The answer that said yes must go out in the clear, before the handshake. */
	bufferevent_setcb(raw, NULL, NULL, NULL, NULL);
	bufferevent_setwatermark(raw, EV_READ, 0, 0);
	tls = tls_wrap(s->srv->tls, s->srv->base, raw);
	s->bev = tls;
	s->tls_next = false;
	if (!tls) {
		/* raw is gone with the wrap that failed: nothing is left to write to. */
		session_close(s, false, "TLS could not start");
		return;
	}
	s->tls = true;
	bufferevent_setcb(tls, read_cb, write_cb, event_cb, s);
	bufferevent_setwatermark(tls, EV_READ, 0, SESSION_PREAUTH_MAX_MESSAGE + s->proto->header + READ_SLACK);
	bufferevent_setwatermark(tls, EV_WRITE, SESSION_OUT_LOW_WATER, 0);
	bufferevent_enable(tls, EV_READ | EV_WRITE);
}

bool session_login(struct session *s, const char *how)
{
	if (!s->admin) {
		if (!gen_session_acquire(s->gen, s->u))
			return false;
		s->counted = true;
		s->budget = budgets_find(&s->srv->budgets, s->u->name);
	}
	event_del(s->timer);
	session_set_state(s, SESSION_READY); /* from logging in to logged in, in the server's counts too */
	session_log(s, "user %s authenticated (%s)", s->user, how);
	return true;
}

/* ---- jobs ---- */

struct job *session_job_start(struct session *s, const struct job_request *req, const struct job_events *ev, void *arg,
			      struct session_refusal *why)
{
	struct job_request mine = *req;
	enum airlock_budget_kind over;
	uint64_t retry_ms;
	struct job *j;

	if (s->njobs > 0 && !jobs_user_has_room(s->srv->jobs, s->u, s->u->max_jobs)) {
		why->code = AIRLOCK_E_BUSY;
		snprintf(why->message, sizeof(why->message),
			 "user \"%s\" already runs %u statements or cursors, its max_jobs, this session's among them",
			 s->user, s->u->max_jobs);
		snprintf(why->hint, sizeof(why->hint), "%s", "wait for a statement to finish or close a cursor");
		return NULL;
	}
	/* A describe runs nothing of the client's: it is no statement of the budget, though its runner time is. */
	if (s->budget && !req->describe &&
	    (over = budget_admit(s->budget, monotonic_ns(), &retry_ms)) != AIRLOCK_BUDGET_NKINDS) {
		why->code = AIRLOCK_E_BUDGET;
		budget_message(s->budget, over, retry_ms, why->message, sizeof(why->message), why->hint,
			       sizeof(why->hint));
		stats_budget_refused(s->srv->stats, s->user, budget_name(over));
		return NULL;
	}
	mine.user = s->u;
	mine.user_name = s->u->name;
	mine.user_max_jobs = s->u->max_jobs;
	mine.budget = s->budget;
	j = job_start(s->srv->jobs, &mine, ev, arg);
	if (j) {
		s->njobs++;
		return j;
	}
	why->code = AIRLOCK_E_OUT_OF_MEMORY;
	snprintf(why->message, sizeof(why->message), "%s", "out of memory");
	why->hint[0] = '\0';
	return NULL;
}

void session_job_release(struct session *s)
{
	if (s->njobs)
		s->njobs--;
}

void session_job_finished(struct session *s)
{
	s->job = NULL;
	session_job_release(s);
	s->out_paused = false;
}
