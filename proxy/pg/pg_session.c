/*
 * pg_session: the Postgres session state machine.
 *
 *   STARTUP --startup--> SASL_INIT --client-first--> SASL_CONT --client-final--> READY
 *   READY --read statement--> BUSY --result or error--> READY
 *   any --Terminate, EOF, FATAL--> CLOSING (flush, then free)
 *
 * Session statements (SET, SHOW of kept settings, BEGIN, COMMIT, ...) are
 * answered here; reads go to a job; everything else is refused with a
 * native ErrorResponse. Transaction blocks are tracked for the
 * ReadyForQuery status byte; each statement still runs in its own runner
 * and snapshot.
 */
#define _GNU_SOURCE
#include "proxy/pg/pg_session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "protocol/pg_codec.h"
#include "protocol/scram.h"
#include "proxy/audit.h"
#include "proxy/job.h"
#include "proxy/log.h"
#include "proxy/pg/pg_settings.h"
#include "proxy/server.h"
#include "proxy/pg/validate/validate_pg.h"
#include "proxy/pg/pg_session_int.h"

#define AUTH_TIMEOUT_SEC 15
#define PREAUTH_MAX_MESSAGE 8192u

static const char *const state_names[] = {
#define SESS_NAME(name) #name,
	SESS_STATES(SESS_NAME)
#undef SESS_NAME
};

const char *sess_state_name(enum sess_state st)
{
	return state_names[st];
}

/* ---- state and lifetime ---- */

void sess_set_state(struct pg_session *s, enum sess_state st)
{
	if (s->st == st)
		return;
	if (s->st == ST_CLOSING)
		return; /* terminal */
	s->st = st;
}

static void session_free(struct pg_session *s)
{
	struct server *srv = s->srv;

	if (s->job) {
		job_detach(s->job);
		pgq_job_ended(s);
	}
	pgc_close_all(s);
	pgx_free_all(s);
	if (s->counted)
		s->gen->user_sessions[server_gen_user_index(s->gen, s->u)]--;
	if (s->prev)
		s->prev->next = s->next;
	else
		srv->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	srv->nsessions--;
	if (s->timer)
		event_free(s->timer);
	if (s->bev)
		bufferevent_free(s->bev);
	pg_wbuf_free(&s->w);
	explicit_bzero(&s->scram, sizeof(s->scram));
	server_gen_release(srv, s->gen);
	free(s);
}

static void session_free_cb(evutil_socket_t fd, short what, void *arg)
{
	session_free(arg);
}

/* Ends the session: flush what is queued (when flush), then free on a later pass. */
static void session_close(struct pg_session *s, bool flush)
{
	struct timeval zero = {0, 0};

	if (s->st == ST_CLOSING)
		return;
	sess_set_state(s, ST_CLOSING);
	s->st = ST_CLOSING;
	if (s->job) {
		job_detach(s->job);
		s->job = NULL;
		pgq_job_ended(s);
	}
	pgc_close_all(s);
	bufferevent_disable(s->bev, EV_READ);
	event_free(s->timer);
	s->timer = evtimer_new(s->srv->base, session_free_cb, s);
	if (flush && evbuffer_get_length(bufferevent_get_output(s->bev)) > 0) {
		bufferevent_setwatermark(s->bev, EV_WRITE, 0, 0);
		return; /* the write callback frees once drained */
	}
	evtimer_add(s->timer, &zero);
}

/* ---- output ---- */

void sess_flush(struct pg_session *s)
{
	if (s->w.failed) {
		log_error("session %u: out of memory building a reply", s->pid);
		pg_wbuf_reset(&s->w);
		session_close(s, false);
		return;
	}
	if (s->w.len)
		bufferevent_write(s->bev, s->w.data, s->w.len);
	pg_wbuf_reset(&s->w);
}

void sess_put_error(struct pg_session *s, const char *severity, const char *sqlstate, const char *message,
		      const char *detail, const char *hint, int position)
{
	struct pg_error_fields e = {
		.severity = severity,
		.sqlstate = sqlstate,
		.message = message,
		.detail = detail,
		.hint = hint,
		.position = position,
	};
	pg_put_error(&s->w, &e);
}

void sess_put_notice(struct pg_session *s, const char *severity, const char *sqlstate, const char *message,
		       const char *hint)
{
	struct pg_error_fields e = {
		.severity = severity,
		.sqlstate = sqlstate,
		.message = message,
		.hint = hint,
	};
	pg_put_notice(&s->w, &e);
}

static void fatal(struct pg_session *s, const char *sqlstate, const char *message)
{
	sess_put_error(s, "FATAL", sqlstate, message, NULL, NULL, 0);
	sess_flush(s);
	session_close(s, true);
}

void sess_ready(struct pg_session *s)
{
	pg_put_ready(&s->w, s->txn);
	sess_flush(s);
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1000.0 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

void sess_audit(struct pg_session *s, const char *decision, const char *sqlstate, const char *code,
		  uint64_t rows, uint64_t bytes, uint8_t truncated)
{
	struct audit_entry e = {
		.user = s->user,
		.session = s->pid,
		.fingerprint = s->fingerprint,
		.decision = decision,
		.sqlstate = sqlstate,
		.code = code,
		.rows = rows,
		.bytes = bytes,
		.truncated = truncated,
		.ms = elapsed_ms(&s->t0),
	};
	audit_record(s->srv->audit, &e);
}

/* ---- start-up and authentication ---- */

/* A stable, secret-derived verifier for unknown users, so they fail like a wrong password. */
static void fake_verifier(struct pg_session *s)
{
	static uint8_t secret[32];
	static bool have_secret;
	uint8_t salt[32];
	unsigned int len = sizeof(salt);

	if (!have_secret) {
		if (getrandom(secret, sizeof(secret), 0) != sizeof(secret))
			memset(secret, 0x5a, sizeof(secret));
		have_secret = true;
	}
	HMAC(EVP_sha256(), secret, sizeof(secret), (const uint8_t *)s->user, strlen(s->user), salt, &len);
	memset(&s->verifier, 0, sizeof(s->verifier));
	s->verifier.iterations = 4096;
	memcpy(s->verifier.salt, salt, 16);
	s->verifier.salt_len = 16;
	/* Stored and server keys stay random: no password can match them. */
	if (getrandom(s->verifier.stored_key, SCRAM_KEY_LEN, 0) != SCRAM_KEY_LEN)
		memset(s->verifier.stored_key, 0xa5, SCRAM_KEY_LEN);
	if (getrandom(s->verifier.server_key, SCRAM_KEY_LEN, 0) != SCRAM_KEY_LEN)
		memset(s->verifier.server_key, 0xa5, SCRAM_KEY_LEN);
}

/*
 * The "options" start-up parameter (PGOPTIONS): "-c name=value" and
 * "--name=value" words, backslash escaping a space, as the postmaster
 * reads them. Each goes through the same rules as SET; anything else ends
 * the session with the reason.
 */
static bool startup_options(struct pg_session *s, const char *opts)
{
	const char *p = opts;
	char word[PGS_VALUE_MAX + 64], msg[512];
	bool expect_c = false;

	for (;;) {
		size_t n = 0;
		char *eq;
		const char *setting;
		bool reported;
		const char *sqlstate, *code;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 >= sizeof(word)) {
				fatal(s, "22023", "start-up options are too long");
				return false;
			}
			word[n++] = *p++;
		}
		word[n] = '\0';
		if (!expect_c && !strcmp(word, "-c")) {
			expect_c = true;
			continue;
		}
		if (expect_c)
			setting = word;
		else if (!strncmp(word, "--", 2))
			setting = word + 2;
		else if (!strncmp(word, "-c", 2))
			setting = word + 2;
		else
			setting = NULL;
		expect_c = false;
		eq = setting ? strchr(setting, '=') : NULL;
		if (!eq) {
			snprintf(msg, sizeof(msg), "UNSUPPORTED: start-up option \"%.64s\" is not a -c name=value setting",
				 word);
			fatal(s, "0A000", msg);
			return false;
		}
		*eq = '\0';
		for (char *c = (char *)setting; *c; c++)
			if (*c == '-')
				*c = '_';
		if (pgs_set(&s->set, setting, eq + 1, true, &reported, &sqlstate, &code, msg, sizeof(msg)) < 0) {
			fatal(s, sqlstate, msg);
			return false;
		}
	}
	if (expect_c) {
		fatal(s, "0A000", "UNSUPPORTED: start-up option -c without a setting");
		return false;
	}
	return true;
}

static bool handle_startup(struct pg_session *s, const struct pg_startup *st)
{
	const char *user, *db;
	bool reported;
	const char *sqlstate, *code;
	char msg[256];

	switch (st->kind) {
	case PG_STARTUP_SSL:
	case PG_STARTUP_GSSENC:
		/* No TLS or GSS encryption yet: a single 'N', then the client goes on in plain text. */
		bufferevent_write(s->bev, "N", 1);
		return true;
	case PG_STARTUP_CANCEL:
		pg_session_cancel(s->srv, st->cancel_pid, st->cancel_key);
		session_close(s, false);
		return false;
	case PG_STARTUP_NORMAL:
		break;
	}
	if (st->protocol >> 16 != 3) {
		fatal(s, "0A000", "unsupported frontend protocol: airlock speaks protocol 3.0");
		return false;
	}
	user = pg_startup_get(st, "user");
	if (!user || !*user) {
		fatal(s, "28000", "no PostgreSQL user name specified in startup packet");
		return false;
	}
	if (pg_startup_get(st, "replication")) {
		fatal(s, "0A000", "UNSUPPORTED: replication connections are not available through airlock");
		return false;
	}
	db = pg_startup_get(st, "database");
	if (!db || !*db)
		db = user;
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->database, sizeof(s->database), "%s", db);
	pgs_init(&s->set, s->user);
	for (size_t i = 0; i < st->nparams; i++) {
		const char *name = st->params[i].name;

		if (!strcmp(name, "options")) {
			if (!startup_options(s, st->params[i].value))
				return false;
			continue;
		}
		if (!strcmp(name, "user") || !strcmp(name, "database"))
			continue;
		if (pgs_find(name) < 0)
			continue; /* unknown start-up parameters are ignored */
		if (pgs_set(&s->set, name, st->params[i].value, true, &reported, &sqlstate, &code, msg,
			    sizeof(msg)) < 0) {
			fatal(s, sqlstate, msg);
			return false;
		}
	}
	s->u = config_find_user(s->gen->cfg, s->user);
	if (!s->u || scram_parse_verifier(s->u->scram, &s->verifier) < 0) {
		s->u = NULL;
		fake_verifier(s);
	}
	pg_put_auth_sasl(&s->w, "SCRAM-SHA-256");
	sess_flush(s);
	sess_set_state(s, ST_SASL_INIT);
	return true;
}

static bool handle_sasl_init(struct pg_session *s, const struct pg_msg *m)
{
	const char *mech, *err;
	const uint8_t *data;
	int32_t dlen;
	uint8_t rnd[18];
	char nonce[32], out[SCRAM_MAX_MSG];
	size_t outlen;

	if (m->type != 'p' || pg_parse_sasl_initial(m, &mech, &data, &dlen, &err) != PG_OK) {
		fatal(s, "08P01", "expected SASLInitialResponse");
		return false;
	}
	if (strcmp(mech, "SCRAM-SHA-256") != 0) {
		fatal(s, "28000", "client selected an invalid SASL authentication mechanism");
		return false;
	}
	if (dlen < 0 || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		fatal(s, "08P01", "malformed SCRAM message");
		return false;
	}
	EVP_EncodeBlock((unsigned char *)nonce, rnd, sizeof(rnd));
	if (scram_server_first(&s->scram, &s->verifier, data, (size_t)dlen, nonce, out, sizeof(out), &outlen,
			       &err) < 0) {
		fatal(s, "08P01", err ? err : "malformed SCRAM message");
		return false;
	}
	pg_put_auth_sasl_continue(&s->w, out, outlen);
	sess_flush(s);
	sess_set_state(s, ST_SASL_CONT);
	return true;
}

static bool finish_login(struct pg_session *s)
{
	size_t ui = server_gen_user_index(s->gen, s->u);
	char msg[160];

	if (!s->u->target) {
		fatal(s, "28000", "user has no Postgres target (no target key in its [user] section); it logs in over "
			     "MySQL only");
		return false;
	}
	if (strcmp(s->database, s->u->database) != 0) {
		snprintf(msg, sizeof(msg), "database \"%s\" does not exist", s->database);
		fatal(s, "3D000", msg);
		return false;
	}
	if (s->gen->user_sessions[ui] >= s->u->max_connections) {
		fatal(s, "53300", "too many connections for this user");
		return false;
	}
	s->gen->user_sessions[ui]++;
	s->counted = true;
	pg_put_auth_ok(&s->w);
	for (size_t i = 0; i < pgs_ndefs; i++)
		if (pgs_defs[i].flags & PGS_REPORT)
			pg_put_parameter_status(&s->w, pgs_defs[i].display, s->set.value[i]);
	pg_put_backend_key(&s->w, s->pid, s->key);
	s->txn = 'I';
	sess_ready(s);
	event_del(s->timer);
	sess_set_state(s, ST_READY);
	log_info("session %u: user %s authenticated", s->pid, s->user);
	return true;
}

static bool handle_sasl_cont(struct pg_session *s, const struct pg_msg *m)
{
	const char *err;
	const uint8_t *data;
	size_t dlen, outlen;
	char out[SCRAM_MAX_MSG], msg[160];

	if (m->type != 'p' || pg_parse_sasl_response(m, &data, &dlen, &err) != PG_OK) {
		fatal(s, "08P01", "expected SASLResponse");
		return false;
	}
	if (scram_server_final(&s->scram, data, dlen, out, sizeof(out), &outlen, &err) < 0 || !s->u) {
		snprintf(msg, sizeof(msg), "password authentication failed for user \"%s\"", s->user);
		log_info("session %u: authentication failed for user %s", s->pid, s->user);
		fatal(s, "28P01", msg);
		return false;
	}
	pg_put_auth_sasl_final(&s->w, out, outlen);
	return finish_login(s);
}

/* ---- the message loop ---- */

static bool handle_ready_msg(struct pg_session *s, const struct pg_msg *m)
{
	const char *sql, *err;

	switch (m->type) {
	case 'Q':
		if (s->discard_until_sync)
			return true;
		if (pg_parse_query(m, &sql, &err) != PG_OK) {
			fatal(s, "08P01", err ? err : "malformed Query message");
			return false;
		}
		pgq_simple(s, sql);
		return true;
	case 'X':
		session_close(s, true);
		return false;
	case 'P':
	case 'B':
	case 'D':
	case 'E':
	case 'C':
	case 'S':
	case 'H':
		return pgx_message(s, m);
	default:
		fatal(s, "08P01", "invalid frontend message type");
		return false;
	}
}

void sess_process(struct pg_session *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);

	while (s->st != ST_CLOSING && s->st != ST_BUSY) {
		/* Before authentication only small messages (SCRAM's) are accepted. */
		uint32_t max = s->st == ST_READY ? s->srv->cfg->max_message_bytes : PREAUTH_MAX_MESSAGE;
		size_t have = evbuffer_get_length(in), consumed = 0;
		const char *err = NULL;
		const uint8_t *data;
		enum pg_status rc;
		bool go;

		if (have == 0)
			return;
		if (s->st == ST_STARTUP) {
			struct pg_startup st;

			data = evbuffer_pullup(in, (ssize_t)(have < 10000 ? have : 10000));
			rc = pg_decode_startup(data, have < 10000 ? have : 10000, 10000, &st, &consumed, &err);
			if (rc == PG_NEED_MORE)
				return;
			if (rc == PG_ERR) {
				fatal(s, "08P01", err ? err : "invalid startup packet");
				return;
			}
			go = handle_startup(s, &st);
		} else {
			struct pg_msg m;
			uint8_t hdr[5];
			uint32_t len;

			if (have < 5)
				return;
			evbuffer_copyout(in, hdr, 5);
			len = (uint32_t)hdr[1] << 24 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 8 | hdr[4];
			if (len < 4 || len > max) {
				fatal(s, len < 4 ? "08P01" : "54000",
				      len < 4 ? "invalid message length"
					      : "message too large: larger than max_message_bytes");
				return;
			}
			if (have < (size_t)len + 1) {
				bufferevent_setwatermark(s->bev, EV_READ, 0, (size_t)len + 1 + 4096);
				return;
			}
			data = evbuffer_pullup(in, (ssize_t)len + 1);
			rc = pg_decode_msg(data, (size_t)len + 1, max, &m, &consumed, &err);
			if (rc != PG_OK) {
				fatal(s, "08P01", err ? err : "malformed message");
				return;
			}
			if (s->st == ST_SASL_INIT)
				go = handle_sasl_init(s, &m);
			else if (s->st == ST_SASL_CONT)
				go = handle_sasl_cont(s, &m);
			else
				go = handle_ready_msg(s, &m);
		}
		if (s->st == ST_CLOSING || !go)
			return;
		evbuffer_drain(in, consumed);
		bufferevent_setwatermark(s->bev, EV_READ, 0, (size_t)max + 4096);
	}
}

static void session_read_cb(struct bufferevent *bev, void *arg)
{
	sess_process(arg);
}

static void session_write_cb(struct bufferevent *bev, void *arg)
{
	struct pg_session *s = arg;

	if (s->st == ST_CLOSING) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
			struct timeval zero = {0, 0};

			evtimer_add(s->timer, &zero);
		}
		return;
	}
	if (s->out_paused && s->job) {
		s->out_paused = false;
		job_pause(s->job, false);
	}
	pgc_output_drained(s);
}

static void session_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct pg_session *s = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		if (s->st == ST_CLOSING) {
			struct timeval zero = {0, 0};

			evtimer_add(s->timer, &zero);
			return;
		}
		session_close(s, false);
	}
}

static void session_auth_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct pg_session *s = arg;

	log_info("session %u: start-up not finished in %d s (%s)", s->pid, AUTH_TIMEOUT_SEC,
		 sess_state_name(s->st));
	fatal(s, "08P01", "authentication timeout");
}

void pg_session_accept(struct server *srv, evutil_socket_t fd)
{
	struct pg_session *s;
	struct timeval tv = {AUTH_TIMEOUT_SEC, 0};
	uint32_t ids[2];

	if (srv->nsessions >= srv->cfg->max_connections) {
		static const char msg[] = "too many connections: airlock's max_connections is reached";
		struct pg_wbuf w;
		struct pg_error_fields e = {.severity = "FATAL", .sqlstate = "53300", .message = msg};

		pg_wbuf_init(&w);
		pg_put_error(&w, &e);
		if (!w.failed && write(fd, w.data, w.len) < 0) {
			/* the client is gone either way */
		}
		pg_wbuf_free(&w);
		close(fd);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return;
	}
	s->srv = srv;
	pg_wbuf_init(&s->w);
	evutil_make_socket_nonblocking(fd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	s->bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
	s->timer = evtimer_new(srv->base, session_auth_timeout, s);
	if (!s->bev || !s->timer || getrandom(ids, sizeof(ids), 0) != sizeof(ids)) {
		if (s->bev)
			bufferevent_free(s->bev);
		else
			close(fd);
		if (s->timer)
			event_free(s->timer);
		free(s);
		return;
	}
	s->gen = server_gen_hold(srv);
	s->pid = (ids[0] & 0x3fffffff) | 1;
	s->key = ids[1];
	s->st = ST_STARTUP;
	s->txn = 'I';
	s->next = srv->sessions;
	if (srv->sessions)
		srv->sessions->prev = s;
	srv->sessions = s;
	srv->nsessions++;
	evtimer_add(s->timer, &tv);
	bufferevent_setcb(s->bev, session_read_cb, session_write_cb, session_event_cb, s);
	bufferevent_setwatermark(s->bev, EV_READ, 0, 10000 + 4096);
	bufferevent_setwatermark(s->bev, EV_WRITE, SESS_OUT_LOW_WATER, 0);
	bufferevent_enable(s->bev, EV_READ | EV_WRITE);
}

void pg_session_cancel(struct server *srv, uint32_t pid, uint32_t key)
{
	for (struct pg_session *s = srv->sessions; s; s = s->next) {
		if (s->pid != pid || s->key != key)
			continue;
		if (s->job) {
			log_info("session %u: cancel requested", s->pid);
			job_cancel(s->job);
		} else if (pgc_cancel(s)) {
			log_info("session %u: cancel requested during FETCH", s->pid);
		}
		return;
	}
}

void pg_session_close_all(struct server *srv)
{
	while (srv->sessions)
		session_free(srv->sessions);
}
