/*
 * bsess: one backend session airlockd keeps (bsess.h): its login, what runners are told of it, its
 * reset between runners, its time idle, its cancel requests. Choosing one and TLS contexts: bsess_pool.c.
 */
#define _GNU_SOURCE
#include "proxy/job/bsess_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "base/dlist.h"
#include "proxy/job/job_int.h"
#include "proxy/log.h"
#include "proxy/timeval.h"

/* The largest backend message a login or a reset reads whole; longer ones a reset skips. */
#define BSESS_MSG_MAX (64u * 1024u)

static void bs_event_cb(struct bufferevent *bev, short what, void *arg);
static void bs_read_cb(struct bufferevent *bev, void *arg);

/* pool->all links through all_prev / all_next (prev / next are the idle list's). */
static void all_push(struct bsess_pool *p, struct bsess *s)
{
	s->all_prev = NULL;
	s->all_next = p->all;
	if (p->all)
		p->all->all_prev = s;
	p->all = s;
}

static void all_unlink(struct bsess_pool *p, struct bsess *s)
{
	if (s->all_prev)
		s->all_prev->all_next = s->all_next;
	else
		p->all = s->all_next;
	if (s->all_next)
		s->all_next->all_prev = s->all_prev;
	s->all_prev = s->all_next = NULL;
}

static void bs_arm(struct bsess *s, uint32_t ms)
{
	struct timeval tv = ms_timeval(ms);

	evtimer_add(s->timer, &tv);
}

/* A TLS connection object for s, of its target's context; NULL on failure. */
static SSL *bs_ssl(const struct bsess *s)
{
	SSL *ssl;
	struct in6_addr a6;
	bool ip = inet_pton(AF_INET, s->cert_host, &a6) == 1 || inet_pton(AF_INET6, s->cert_host, &a6) == 1;

	if (!s->ctx || !(ssl = SSL_new(s->ctx)))
		return NULL;
	if (!ip && SSL_set_tlsext_host_name(ssl, s->cert_host) != 1)
		goto fail;
	if (s->verify_host && (ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), s->cert_host)
				  : SSL_set1_host(ssl, s->cert_host)) != 1)
		goto fail;
	return ssl;
fail:
	SSL_free(ssl);
	return NULL;
}

/* s logged in: its parameters are what its target's runners are told from now on. */
static void bs_learn(struct bsess_pool *p, const struct bsess *s)
{
	struct bsess_params *e = NULL, *n;

	for (size_t i = 0; i < p->nparams && !e; i++)
		if (strcmp(p->params[i].target, s->target) == 0)
			e = &p->params[i];
	if (!e) {
		n = realloc(p->params, (p->nparams + 1) * sizeof(*n));
		if (!n)
			return;
		p->params = n;
		e = &p->params[p->nparams];
		memset(e, 0, sizeof(*e));
		e->target = strdup(s->target);
		if (!e->target)
			return;
		wbuf_init(&e->msgs);
		p->nparams++;
	}
	memcpy(e->fp, s->fp, BSESS_FP_LEN);
	wbuf_reset(&e->msgs);
	wbuf_put_bytes(&e->msgs, s->params.data, s->params.len);
}

/* Frees s wherever it is: off the idle list (its count given back), its login's waiter told nothing. */
void bsess_close(struct bsess *s)
{
	struct bsess_pool *p = s->pool;

	if (s->state == BS_IDLE)
		DLIST_UNLINK(p->idle, s);
	/* A cancel still on its way holds the session's backend connection until the postmaster closes it. */
	if (s->cancel && s->counted && bsess_cancel_hold(s->cancel, s->target))
		s->counted = false;
	if (s->counted) {
		s->counted = false;
		job_db_give_room(p->env, s->target);
	}
	all_unlink(p, s);
	if (s->cancel)
		bsess_cancel_detach(s->cancel);
	if (s->timer)
		event_free(s->timer);
	if (s->bev)
		bufferevent_free(s->bev);
	if (s->password) {
		OPENSSL_cleanse(s->password, strlen(s->password));
		free(s->password);
	}
	free(s->target);
	free(s->user);
	free(s->role);
	free(s->db);
	free(s->host);
	free(s->cert_host);
	SSL_CTX_free(s->ctx);
	wbuf_free(&s->params);
	OPENSSL_cleanse(&s->sc, sizeof(s->sc));
	free(s);
}

/* The login failed: its waiter hears why, s goes. */
static void bs_fail(struct bsess *s, const char *why)
{
	bsess_ready_fn ready = s->ready;
	void *arg = s->ready_arg;

	log_warn("backend session for target %s: %s", s->target, why);
	s->ready = NULL;
	bsess_close(s);
	if (ready)
		ready(arg, NULL, why);
}

unsigned bsess_idle_count(const struct bsess_pool *p, const char *target)
{
	unsigned n = 0;

	for (const struct bsess *s = p->idle; s; s = s->next)
		n += strcmp(s->target, target) == 0;
	return n;
}

/* Kept for the next runner of its user and target. */
static void bs_idle(struct bsess *s)
{
	struct bsess_pool *p = s->pool;

	s->ready = NULL;
	if (!s->counted && !(s->counted = job_db_take(p->env, s->target))) {
		bsess_close(s);
		return;
	}
	/*
	 * Idle up to as many as a target's ready runners (pool_max, at least 2);
	 * past it the one unused longest goes, so one user's burst leaves the
	 * others some.
	 */
	if (bsess_idle_count(p, s->target) >= (p->env->cfg->pool_max > 2 ? p->env->cfg->pool_max : 2)) {
		struct bsess *oldest = NULL;

		for (struct bsess *o = p->idle; o; o = o->next)
			if (strcmp(o->target, s->target) == 0)
				oldest = o;
		if (oldest)
			bsess_close(oldest);
	}
	s->state = BS_IDLE;
	bufferevent_setcb(s->bev, bs_read_cb, NULL, bs_event_cb, s);
	bufferevent_enable(s->bev, EV_READ);
	DLIST_PUSH(p->idle, s);
	bs_arm(s, p->idle_ms);
}

static void bs_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bsess *s = arg;

	(void)fd;
	(void)what;
	switch (s->state) {
	case BS_IDLE:
		bsess_close(s);
		return;
	case BS_RESET:
		/* Still running what its runner left: stopped, and the session not kept (a late cancel could hit its
		 * next). */
		if (s->busy)
			bsess_cancel(s);
		log_info("backend session for target %s: the reset did not end in time; closed", s->target);
		bsess_close(s);
		return;
	case BS_LENT:
		return;
	default:
		bs_fail(s, "the database did not complete the login in time");
		return;
	}
}

static void bs_send(struct bsess *s, struct wbuf *w)
{
	if (!w->failed)
		bufferevent_write(s->bev, w->data, w->len);
	wbuf_free(w);
}

static void bs_send_startup(struct bsess *s)
{
	struct pg_param params[] = {
		{"user", s->role},
		{"database", s->db},
		{"application_name", "airlock-runner"},
	};
	struct wbuf w;

	wbuf_init(&w);
	pg_put_startup(&w, params, sizeof(params) / sizeof(params[0]));
	bs_send(s, &w);
	s->state = BS_LOGIN;
}

/* The backend answered the SSLRequest: 'S' wraps the connection in TLS, anything else fails. */
static void bs_ssl_answer(struct bsess *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);
	uint8_t c;
	SSL *ssl;
	struct bufferevent *tls;

	if (evbuffer_remove(in, &c, 1) != 1)
		return;
	if (c != PG_SSL_YES || evbuffer_get_length(in) != 0) {
		bs_fail(s, "the database does not offer TLS");
		return;
	}
	ssl = bs_ssl(s);
	if (!ssl) {
		bs_fail(s, "TLS to the database could not be set up");
		return;
	}
	tls = bufferevent_openssl_filter_new(s->pool->env->base, s->bev, ssl, BUFFEREVENT_SSL_CONNECTING,
					     BEV_OPT_CLOSE_ON_FREE);
	if (!tls) {
		SSL_free(ssl);
		bs_fail(s, "TLS to the database could not be set up");
		return;
	}
	s->bev = tls;
	s->state = BS_TLS;
	bufferevent_setcb(s->bev, bs_read_cb, NULL, bs_event_cb, s);
	bufferevent_enable(s->bev, EV_READ);
}

static int bs_sasl_first(struct bsess *s, const uint8_t *mechs, size_t len)
{
	uint8_t raw[18];
	char nonce[32], msg[SCRAM_MAX_MSG];
	const char *err = NULL;
	size_t n;
	struct wbuf w;

	if (!pg_auth_sasl_offers(mechs, len, "SCRAM-SHA-256") || !scram_client_password_plain(s->password) ||
	    getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw) ||
	    EVP_EncodeBlock((unsigned char *)nonce, raw, sizeof(raw)) != 24 ||
	    scram_client_first(&s->sc, nonce, msg, sizeof(msg), &n, &err) < 0)
		return -1;
	wbuf_init(&w);
	pg_put_sasl_initial(&w, "SCRAM-SHA-256", msg, n);
	bs_send(s, &w);
	return 0;
}

/* One 'R' of the login; -1 with *why when it cannot go on. */
static int bs_auth(struct bsess *s, const struct pg_msg *m, const char **why)
{
	uint32_t code;
	const uint8_t *data;
	size_t len, n;
	char msg[SCRAM_MAX_MSG], md5[36];
	const char *err = NULL;
	struct wbuf w;

	*why = "the database sent a malformed authentication request";
	if (pg_read_auth(m, &code, &data, &len, &err) != PG_OK)
		return -1;
	wbuf_init(&w);
	switch (code) {
	case PG_AUTH_OK:
		/* Once SCRAM began, only a server that proved it knows the password may say the login is done. */
		*why = "the database did not prove it knows the password";
		if (s->sasl && !s->sasl_proved)
			return -1;
		s->authed = true;
		return 0;
	case PG_AUTH_CLEARTEXT:
		pg_put_password(&w, s->password);
		break;
	case PG_AUTH_MD5:
		*why = "the MD5 login could not be answered";
		if (pg_md5_password(s->password, s->role, data, md5) < 0)
			return -1;
		pg_put_password(&w, md5);
		OPENSSL_cleanse(md5, sizeof(md5));
		break;
	case PG_AUTH_SASL:
		*why = "the database asks for a SASL mechanism other than SCRAM-SHA-256 (or the password is not plain "
		       "ASCII)";
		s->sasl = true;
		return bs_sasl_first(s, data, len);
	case PG_AUTH_SASL_CONTINUE:
		*why = "the database's SCRAM challenge was refused";
		if (scram_client_final(&s->sc, s->password, data, len, msg, sizeof(msg), &n, &err) < 0)
			return -1;
		pg_put_sasl_response(&w, msg, n);
		OPENSSL_cleanse(msg, sizeof(msg));
		break;
	case PG_AUTH_SASL_FINAL:
		*why = "the database did not prove it knows the password";
		if (!s->sasl || scram_client_verify(&s->sc, data, len, &err) < 0)
			return -1;
		s->sasl_proved = true;
		return 0;
	default:
		*why = "the database asks for a login method airlockd does not speak";
		return -1;
	}
	bs_send(s, &w);
	return 0;
}

/* Logged in: lent to its waiter, or kept idle when nobody waits any more. */
static void bs_logged_in(struct bsess *s)
{
	bsess_ready_fn ready = s->ready;
	void *arg = s->ready_arg;

	OPENSSL_cleanse(s->password, strlen(s->password));
	free(s->password);
	s->password = NULL;
	evtimer_del(s->timer);
	bs_learn(s->pool, s);
	s->ready = NULL;
	if (s->probe) {
		bsess_close(s);
		if (ready)
			ready(arg, NULL, NULL);
		return;
	}
	if (!ready) {
		bs_idle(s);
		return;
	}
	s->state = BS_LENT;
	bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
	ready(arg, s, NULL);
}

/* Reads the login's messages; false once s is gone. */
static bool bs_login_read(struct bsess *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);
	const char *why = "the database sent a malformed message during the login", *err, *name, *value, *code;
	struct pg_msg m;
	size_t used;
	char status;

	for (;;) {
		size_t len = evbuffer_get_length(in);
		const uint8_t *buf = evbuffer_pullup(in, len < BSESS_MSG_MAX ? (ssize_t)len : (ssize_t)BSESS_MSG_MAX);
		enum pg_status st =
			pg_decode_msg(buf, len < BSESS_MSG_MAX ? len : BSESS_MSG_MAX, BSESS_MSG_MAX, &m, &used, &err);

		if (st == PG_NEED_MORE)
			return true;
		if (st != PG_OK)
			goto fail;
		switch (m.type) {
		case 'R':
			if (bs_auth(s, &m, &why) < 0)
				goto fail;
			break;
		case 'S':
			if (pg_read_parameter_status(&m, &name, &value, &err) != PG_OK)
				goto fail;
			wbuf_put_bytes(&s->params, buf, used);
			break;
		case 'K':
			if (pg_read_backend_key(&m, &s->pid, &s->key, &err) != PG_OK)
				goto fail;
			break;
		case 'N':
			break;
		case 'E':
			why = "the database refused the login";
			if (pg_read_error(&m, &code, &value, &err) == PG_OK && code[0]) {
				log_warn("backend session for target %s: the login was refused with SQLSTATE %.5s",
					 s->target, code);
			}
			goto fail;
		case 'Z':
			if (pg_read_ready(&m, &status, &err) != PG_OK || !s->authed || !s->pid || s->params.failed)
				goto fail;
			evbuffer_drain(in, used);
			bs_logged_in(s);
			return false;
		default:
			goto fail;
		}
		evbuffer_drain(in, used);
	}
fail:
	bs_fail(s, why);
	return false;
}

/* ---- the reset ---- */

/* Reads what the backend sends after its runner left; false once s is gone or idle. */
static bool bs_reset_read(struct bsess *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);
	const char *err;
	struct pg_msg m;
	size_t used;

	for (;;) {
		size_t len = evbuffer_get_length(in), n;
		uint8_t head[5];
		uint32_t mlen;
		const uint8_t *buf;

		if (s->skip) {
			n = len < s->skip ? len : s->skip;
			evbuffer_drain(in, n);
			s->skip -= n;
			if (s->skip)
				return true;
			continue;
		}
		if (evbuffer_copyout(in, head, sizeof(head)) != (ssize_t)sizeof(head))
			return true;
		mlen = (uint32_t)head[1] << 24 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 8 | head[4];
		if (mlen < 4)
			goto fail;
		/* A long message is the runner's leftover rows, never part of the reset's answers. */
		if (mlen > BSESS_MSG_MAX) {
			s->discarded += (size_t)mlen + 1;
			if (head[0] == 'E' || head[0] == 'Z' || head[0] == 'C' || s->discarded > BSESS_RESET_MAX_BYTES)
				goto fail;
			s->skip = (size_t)mlen + 1;
			continue;
		}
		if (len < (size_t)mlen + 1)
			return true;
		s->discarded += (size_t)mlen + 1;
		if (s->discarded > BSESS_RESET_MAX_BYTES)
			goto fail;
		buf = evbuffer_pullup(in, (ssize_t)mlen + 1);
		if (!buf || pg_decode_msg(buf, (size_t)mlen + 1, BSESS_MSG_MAX, &m, &used, &err) != PG_OK)
			goto fail;
		switch (pg_reset_step(&s->watch, &m, s->marker)) {
		case PG_RESET_FAILED:
			goto fail;
		case PG_RESET_CLEAN:
			if (used != len)
				goto fail;
			evbuffer_drain(in, used);
			evtimer_del(s->timer);
			bs_idle(s);
			return false;
		case PG_RESET_MORE:
			break;
		}
		evbuffer_drain(in, used);
	}
fail:
	log_info("backend session for target %s: the reset did not end cleanly; closed", s->target);
	bsess_close(s);
	return false;
}

static void bs_reset_start(struct bsess *s);

void bsess_give(struct bsess *s, bool clean, uint64_t unread, bool busy)
{
	if (!s)
		return;
	if (!clean || s->state != BS_LENT || unread > BSESS_RESET_MAX_BYTES) {
		bsess_close(s);
		return;
	}
	s->state = BS_RESET;
	s->skip = unread;
	s->discarded = unread;
	/* Still a backend connection of its target while the job that had it lets its own count go. */
	s->counted = job_db_take(s->pool->env, s->target);
	bufferevent_setcb(s->bev, bs_read_cb, NULL, bs_event_cb, s);
	s->busy = busy;
	bs_arm(s, busy ? BSESS_BUSY_MS : BSESS_RESET_MS);
	if (s->cancel) {
		/* What the backend sends meanwhile waits in the socket. */
		bufferevent_disable(s->bev, EV_READ);
		s->reset_waits = true;
		return;
	}
	bs_reset_start(s);
}

static void bsess_cancel_done(struct bsess *s)
{
	if (s->reset_waits) {
		s->reset_waits = false;
		bs_reset_start(s);
	}
}

static void bs_reset_start(struct bsess *s)
{
	uint8_t raw[16];
	char sql[96];
	struct wbuf w;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		bsess_close(s);
		return;
	}
	strcpy(s->marker, "airlock-reset-");
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(s->marker + 14 + 2 * i, 3, "%02x", raw[i]);
	snprintf(sql, sizeof(sql), "SELECT '%s'", s->marker);
	memset(&s->watch, 0, sizeof(s->watch));
	bufferevent_enable(s->bev, EV_READ);
	wbuf_init(&w);
	pg_put_sync(&w);
	pg_put_query(&w, "ROLLBACK");
	pg_put_query(&w, "DISCARD ALL");
	pg_put_query(&w, sql);
	if (w.failed) {
		wbuf_free(&w);
		bsess_close(s);
		return;
	}
	bs_send(s, &w);
	bs_read_cb(s->bev, s);
}

static void bs_read_cb(struct bufferevent *bev, void *arg)
{
	struct bsess *s = arg;

	(void)bev;
	switch (s->state) {
	case BS_SSL_ANSWER:
		bs_ssl_answer(s);
		return;
	case BS_LOGIN:
		bs_login_read(s);
		return;
	case BS_RESET:
		if (!s->reset_waits)
			bs_reset_read(s);
		return;
	case BS_IDLE:
		/* An idle backend says something only as it ends (a FATAL before its EOF): it is not kept. */
		bsess_close(s);
		return;
	default:
		return;
	}
}

/* The TLS handshake failed: why, in the words the runner's own TLS uses (runner/runner_tls_io.c). */
static void bs_tls_failed(struct bsess *s)
{
	SSL *ssl = s->state == BS_TLS ? bufferevent_openssl_get_ssl(s->bev) : NULL;
	long verify = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
	unsigned long err = s->state == BS_TLS ? bufferevent_get_openssl_error(s->bev) : 0;
	const char *reason = err ? ERR_reason_error_string(err) : NULL;
	char why[256];

	if (verify != X509_V_OK)
		snprintf(why, sizeof(why), "the database's certificate failed its check: %s",
			 X509_verify_cert_error_string(verify));
	else
		snprintf(why, sizeof(why), "the TLS handshake with the database failed: %s",
			 reason ? reason : "the connection was closed");
	bs_fail(s, why);
}

static void bs_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct bsess *s = arg;
	struct wbuf w;
	int one = 1;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		if (s->state == BS_CONNECTING) {
			setsockopt(bufferevent_getfd(s->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (!s->tls) {
				bs_send_startup(s);
				return;
			}
			wbuf_init(&w);
			pg_put_ssl_request(&w);
			bs_send(s, &w);
			s->state = BS_SSL_ANSWER;
			return;
		}
		if (s->state == BS_TLS)
			bs_send_startup(s);
		return;
	}
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	switch (s->state) {
	case BS_CONNECTING:
		bs_fail(s, "the database is not reachable");
		return;
	case BS_SSL_ANSWER:
	case BS_TLS:
		bs_tls_failed(s);
		return;
	case BS_LOGIN:
		bs_fail(s, "the database closed the connection during the login");
		return;
	default:
		bsess_close(s);
		return;
	}
}

struct bsess *bsess_login(struct bsess_pool *p, const struct airlock_target *t, const uint8_t fp[BSESS_FP_LEN],
			  const char *host, uint16_t port, const char *user, bool probe, SSL_CTX *ctx,
			  bsess_ready_fn ready, void *arg)
{
	struct bsess *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pool = p;
	s->state = BS_CONNECTING;
	s->probe = probe;
	s->ready = ready;
	s->ready_arg = arg;
	s->tls = config_target_tls(t);
	s->verify_host = t->sslmode && strcmp(t->sslmode, "verify-full") == 0;
	s->port = port;
	if (ctx && SSL_CTX_up_ref(ctx) == 1)
		s->ctx = ctx;
	memcpy(s->fp, fp, BSESS_FP_LEN);
	wbuf_init(&s->params);
	all_push(p, s);
	s->target = strdup(t->name);
	s->user = strdup(user ? user : "");
	s->role = strdup(t->user);
	s->host = strdup(host);
	s->cert_host = strdup(t->host);
	s->password = strdup(t->password ? t->password : "");
	s->db = strdup(t->database);
	s->timer = evtimer_new(p->env->base, bs_timer_cb, s);
	s->bev = bufferevent_socket_new(p->env->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!s->target || !s->user || !s->role || !s->host || !s->cert_host || !s->password || !s->db || !s->timer ||
	    !s->bev)
		goto fail;
	bufferevent_setcb(s->bev, bs_read_cb, NULL, bs_event_cb, s);
	bufferevent_enable(s->bev, EV_READ);
	bs_arm(s, BSESS_LOGIN_MS);
	if (bufferevent_socket_connect_hostname(s->bev, p->env->dns, AF_UNSPEC, host, port) < 0)
		goto fail;
	return s;
fail:
	s->ready = NULL;
	bsess_close(s);
	return NULL;
}

struct bufferevent *bsess_bev(struct bsess *s)
{
	return s->bev;
}

uint32_t bsess_pid(const struct bsess *s)
{
	return s->pid;
}

int bsess_fd(const struct bsess *s)
{
	return s->bev ? (int)bufferevent_getfd(s->bev) : -1;
}

void bsess_cancel(struct bsess *s)
{
	bsess_cancel_start(s, bsess_cancel_done);
}
