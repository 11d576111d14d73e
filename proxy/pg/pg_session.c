/*
 * pg_session: the Postgres session state machine.
 *
 * The core (proxy/session.c) owns the connection's life; this file is
 * the protocol's half: the start-up packet, SCRAM-SHA-256, and the
 * dispatch of each message. Authentication steps, inside the core's AUTH:
 *
 *   STARTUP --startup--> SASL_INIT --client-first--> SASL_CONT --client-final--> (core) READY
 *
 * then READY --read statement--> BUSY --result or error--> READY, and any
 * --Terminate, EOF, FATAL--> CLOSING.
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
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "protocol/pg_codec.h"
#include "base/rbuf.h"
#include "protocol/scram.h"
#include "proxy/gen.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "protocol/peer_msg.h"
#include "proxy/mysql/my_session.h"
#include "proxy/peer.h"
#include "proxy/peer_key.h"
#include "proxy/pg/pg_settings.h"
#include "proxy/server.h"
#include "validator/pg/validate_pg.h"
#include "proxy/pg/pg_session_int.h"

#define TLS_HANDSHAKE_RECORD 0x16

#define STARTUP_MAX 10000u
/* The major "version" of SSLRequest, GSSENCRequest and CancelRequest (1234). */
#define PG_REQUEST_MAJOR 1234u

static void cancel(struct server *srv, uint32_t pid, uint32_t key);

static struct pg_session *pg(struct session *core)
{
	return (struct pg_session *)core;
}

/* ---- lifetime (the core's hooks) ---- */

static void pg_close(struct session *core)
{
	pgc_close_all(pg(core));
}

/* What only a login needs, kept only while it lasts: an idle session does not carry it. */
struct pg_auth {
	struct scram_verifier verifier;
	struct scram_state scram;
};

/* The login is decided (or the session ends): its keys and nonces are wiped. */
static void auth_free(struct pg_session *s)
{
	if (!s->auth)
		return;
	explicit_bzero(s->auth, sizeof(*s->auth));
	free(s->auth);
	s->auth = NULL;
}

static void pg_free(struct session *core)
{
	struct pg_session *s = pg(core);

	pgx_free_all(s);
	pgp_scoped_free(s);
	pgw_pending_free(s->write);
	s->write = NULL;
	pgw_wait_free(s);
	if (s->snapshot)
		pgs_free(s->snapshot);
	free(s->snapshot);
	s->snapshot = NULL;
	pgs_free(&s->set);
	auth_free(s);
	free(s->savepoints);
	s->savepoints = NULL;
	free(s->star);
	s->star = NULL;
}

static void fatal(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message)
{
	pgr_fatal(s, code, native, message);
	pgr_flush(s);
	session_close(&s->core, true, message);
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
	HMAC(EVP_sha256(), secret, sizeof(secret), (const uint8_t *)s->core.user, strlen(s->core.user), salt, &len);
	memset(&s->auth->verifier, 0, sizeof(s->auth->verifier));
	s->auth->verifier.iterations = 4096;
	memcpy(s->auth->verifier.salt, salt, 16);
	s->auth->verifier.salt_len = 16;
	/* Stored and server keys stay random: no password can match them. */
	if (getrandom(s->auth->verifier.stored_key, SCRAM_KEY_LEN, 0) != SCRAM_KEY_LEN)
		memset(s->auth->verifier.stored_key, 0xa5, SCRAM_KEY_LEN);
	if (getrandom(s->auth->verifier.server_key, SCRAM_KEY_LEN, 0) != SCRAM_KEY_LEN)
		memset(s->auth->verifier.server_key, 0xa5, SCRAM_KEY_LEN);
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
		const char *sqlstate;
		enum airlock_err code;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 >= sizeof(word)) {
				fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_PARAMETER_VALUE,
				      "start-up options are too long");
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
			snprintf(msg, sizeof(msg), "start-up option \"%.64s\" is not a -c name=value setting", word);
			fatal(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, msg);
			return false;
		}
		*eq = '\0';
		for (char *c = (char *)setting; *c; c++)
			if (*c == '-')
				*c = '_';
		if (pgs_set(&s->set, setting, eq + 1, true, &reported, &sqlstate, &code, msg, sizeof(msg)) < 0) {
			fatal(s, code, AIRLOCK_N_NONE, msg);
			return false;
		}
	}
	if (expect_c) {
		fatal(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "start-up option -c without a setting");
		return false;
	}
	return true;
}

/*
 * A start-up packet the decoder refused. A protocol version airlock does
 * not speak gets what Postgres answers, 0A000 naming the version (the
 * client may try another); anything else is a protocol violation.
 */
static void startup_refused(struct pg_session *s, const uint8_t *data, size_t n, const char *err)
{
	struct rbuf r;
	uint32_t len, code;
	char msg[128];

	rbuf_init(&r, data, n);
	if (rbuf_get_be32(&r, &len) && rbuf_get_be32(&r, &code) && len >= 8 && len <= STARTUP_MAX &&
	    code != PG_PROTOCOL_3_0 && code >> 16 != PG_REQUEST_MAJOR) {
		snprintf(msg, sizeof(msg), "unsupported frontend protocol %u.%u: airlock supports 3.0 only", code >> 16,
			 code & 0xffff);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED, msg);
		return;
	}
	fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, err ? err : "invalid startup packet");
}

/*
 * Whose verifier the password is checked against: the database "airlock"
 * is the admin console, for [admin NAME]s only; any other is a user's.
 * A name of the wrong kind gets no verifier (*scram NULL), so it fails as
 * a wrong password would and names cannot be probed. False: refused (and
 * answered) before any password is exchanged.
 */
static bool login_account(struct pg_session *s, const char **scram)
{
	const struct airlock_config *cfg = s->core.gen->cfg;
	const struct airlock_admin *a;

	*scram = NULL;
	if (strcmp(s->database, CONFIG_ADMIN_DATABASE) == 0) {
		a = config_find_admin(cfg, s->core.user);
		s->core.admin = a != NULL;
		*scram = a ? a->scram : NULL;
		return true;
	}
	s->core.u = config_find_user(cfg, s->core.user);
	/* As pg_hba's hostssl: refused before any password is exchanged. */
	if (s->core.u && s->core.u->tls_required && !s->core.tls) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_AUTHORIZATION,
		      "airlock requires TLS for this user: connect with sslmode=require (or stricter)");
		return false;
	}
	*scram = s->core.u ? s->core.u->scram : NULL;
	return true;
}

/* The answer of the worker a peer's KILL QUERY was passed on to: passed back, in its one byte. */
static void peer_relayed(struct server *srv, const struct session_proto *proto, uint32_t waiter,
			 enum peer_kill_answer answer)
{
	struct session *core = session_find(srv, proto, waiter);
	char b = answer == PEER_KILL_ANSWER_DONE ? PEER_MSG_KILLED : PEER_MSG_NOT_KILLED;

	if (!core)
		return;
	/* No answer from the worker: none to the peer either, which then answers as for an older node. */
	if (answer != PEER_KILL_ANSWER_UNKNOWN)
		bufferevent_write(core->bev, &b, 1);
	session_close(core, true, "peer message");
}

static bool handle_startup(struct pg_session *s, const struct pg_startup *st)
{
	const char *user, *db, *scram;
	bool reported;
	const char *sqlstate;
	enum airlock_err code;
	struct peer_kill kill = {0};
	bool received, killed;
	char msg[256];

	switch (st->kind) {
	case PG_STARTUP_SSL:
		/* 'S' and the handshake when TLS is configured (once per connection), else 'N' and plain text. */
		if (s->core.srv->tls && !s->core.tls) {
			bufferevent_write(s->core.bev, "S", 1);
			return session_start_tls(&s->core);
		}
		bufferevent_write(s->core.bev, "N", 1);
		return true;
	case PG_STARTUP_GSSENC:
		/* No GSS encryption: a single 'N', then the client goes on (libpq tries TLS next). */
		bufferevent_write(s->core.bev, "N", 1);
		return true;
	case PG_STARTUP_CANCEL:
		cancel(s->core.srv, st->cancel_pid, st->cancel_key);
		session_close(&s->core, false, "CancelRequest");
		return false;
	case PG_STARTUP_PEER:
		/* Another node's signed KILL QUERY for one of this node's MySQL connections: answered in one byte. */
		received = peers_receive(s->core.srv, st->raw, st->raw_len, &kill);
		/* Another worker's connection (workers = N): that worker is asked, and its answer passed on. */
		if (received && peers_where(s->core.srv, kill.id) == PEER_KEY_OTHER_WORKER &&
		    peers_forward_kill(s->core.srv, kill.id, kill.user, peer_relayed, &pg_session_proto, s->core.id)) {
			log_info("KILL QUERY %u from a peer: sent to worker %u", kill.id, peer_key_worker(kill.id));
			return true;
		}
		killed = received &&
			 my_kill_query(s->core.srv, &my_session_proto, peer_key_session(kill.id), kill.user, "a peer");
		if (received && !killed)
			log_info("KILL QUERY %u from a peer: no such session of that user here", kill.id);
		bufferevent_write(s->core.bev, &(const char){killed ? PEER_MSG_KILLED : PEER_MSG_NOT_KILLED}, 1);
		session_close(&s->core, true, "peer message");
		return false;
	case PG_STARTUP_NORMAL:
		break;
	}
	if (s->core.srv->cfg->tls_required && !s->core.tls) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_AUTHORIZATION,
		      "airlock requires TLS for every login: connect with sslmode=require (or stricter)");
		return false;
	}
	user = pg_startup_get(st, "user");
	if (!user || !*user) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_AUTHORIZATION,
		      "no PostgreSQL user name specified in startup packet");
		return false;
	}
	if (pg_startup_get(st, "replication")) {
		fatal(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
		      "replication connections are not available through airlock");
		return false;
	}
	db = pg_startup_get(st, "database");
	if (!db || !*db)
		db = user;
	snprintf(s->core.user, sizeof(s->core.user), "%s", user);
	snprintf(s->database, sizeof(s->database), "%s", db);
	if (pgs_init(&s->set, s->core.user) < 0) {
		fatal(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory");
		return false;
	}
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
		if (pgs_set(&s->set, name, st->params[i].value, true, &reported, &sqlstate, &code, msg, sizeof(msg)) <
		    0) {
			fatal(s, code, AIRLOCK_N_NONE, msg);
			return false;
		}
	}
	if (!login_account(s, &scram))
		return false;
	if (!s->auth && !(s->auth = calloc(1, sizeof(*s->auth)))) {
		fatal(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory");
		return false;
	}
	if (!scram || scram_parse_verifier(scram, &s->auth->verifier) < 0) {
		s->core.u = NULL;
		s->core.admin = false;
		fake_verifier(s);
	}
	pg_put_auth_sasl(&s->core.w, "SCRAM-SHA-256");
	pgr_flush(s);
	s->step = PG_SASL_INIT;
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
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, "expected SASLInitialResponse");
		return false;
	}
	if (strcmp(mech, "SCRAM-SHA-256") != 0) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_AUTHORIZATION,
		      "client selected an invalid SASL authentication mechanism");
		return false;
	}
	if (dlen < 0 || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, "malformed SCRAM message");
		return false;
	}
	EVP_EncodeBlock((unsigned char *)nonce, rnd, sizeof(rnd));
	if (!s->auth || scram_server_first(&s->auth->scram, &s->auth->verifier, data, (size_t)dlen, nonce, out,
					   sizeof(out), &outlen, &err) < 0) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, err ? err : "malformed SCRAM message");
		return false;
	}
	pg_put_auth_sasl_continue(&s->core.w, out, outlen);
	pgr_flush(s);
	s->step = PG_SASL_CONT;
	return true;
}

/* A user's login may go on to its target and database (an admin's has neither: the console is its own). */
static bool user_database_ok(struct pg_session *s)
{
	char msg[160];

	if (!s->core.u->target) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_AUTHORIZATION,
		      "user has no Postgres target (no target key in its [user] section); it logs in over "
		      "MySQL only");
		return false;
	}
	if (strcmp(s->database, s->core.u->database) != 0) {
		snprintf(msg, sizeof(msg), "database \"%s\" does not exist", s->database);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_DATABASE, msg);
		return false;
	}
	return true;
}

static bool finish_login(struct pg_session *s)
{
	if (!s->core.admin && !user_database_ok(s))
		return false;
	if (!session_login(&s->core, s->core.admin ? "SCRAM-SHA-256, admin console" : "SCRAM-SHA-256")) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_TOO_MANY_CONNECTIONS, "too many connections for this user");
		return false;
	}
	pg_put_auth_ok(&s->core.w);
	for (size_t i = 0; i < pgs_ndefs; i++)
		if (pgs_defs[i].flags & PGS_REPORT)
			pg_put_parameter_status(&s->core.w, pgs_defs[i].display, pgs_value(&s->set, i));
	pg_put_backend_key(&s->core.w, s->core.id, s->key);
	s->txn = 'I';
	pgr_ready(s);
	return true;
}

/* The verdict on the password, once any wait for earlier failures is over. */
static void sasl_verdict(struct session *core, bool pass)
{
	struct pg_session *s = (struct pg_session *)core;
	char msg[160];

	if (!pass) {
		snprintf(msg, sizeof(msg), "password authentication failed for user \"%s\"", s->core.user);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_PASSWORD, msg);
		return;
	}
	finish_login(s);
}

static bool handle_sasl_cont(struct pg_session *s, const struct pg_msg *m)
{
	const char *err;
	const uint8_t *data;
	size_t dlen, outlen;
	char out[SCRAM_MAX_MSG];
	bool pass;

	if (m->type != 'p' || pg_parse_sasl_response(m, &data, &dlen, &err) != PG_OK) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, "expected SASLResponse");
		return false;
	}
	pass = s->auth && scram_server_final(&s->auth->scram, data, dlen, out, sizeof(out), &outlen, &err) == 0 &&
	       (s->core.u || s->core.admin);
	auth_free(s);
	/* SASLFinal waits in the reply with the rest of the login's answer. */
	if (pass)
		pg_put_auth_sasl_final(&s->core.w, out, outlen);
	session_verdict(&s->core, pass, airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_PASSWORD),
			sasl_verdict);
	return s->core.st == SESSION_READY;
}

/* ---- the message loop ---- */

static bool handle_ready_msg(struct pg_session *s, const struct pg_msg *m)
{
	const char *sql, *err;

	if (s->core.admin)
		return pga_message(s, m);
	switch (m->type) {
	case 'Q':
		if (s->discard_until_sync)
			return true;
		if (pg_parse_query(m, &sql, &err) != PG_OK) {
			fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION,
			      err ? err : "malformed Query message");
			return false;
		}
		pgq_simple(s, sql);
		return true;
	case 'X':
		session_close(&s->core, true, "Terminate");
		return false;
	case 'P':
	case 'B':
	case 'D':
	case 'E':
	case 'C':
	case 'S':
	case 'H':
		return pgx_message(s, m);
	case 'F':
		/* FunctionCall: answered like a refused statement, as Postgres answers a call it cannot make. */
		if (s->discard_until_sync)
			return true;
		session_statement_begin(&s->core, 0);
		s->cur = (struct pgq_exec){.describe = false};
		pgr_error(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "fastpath function calls are not supported",
			  "send the call as a query: SELECT function(...)", 0);
		pgr_ready(s);
		return true;
	case 'c':
	case 'd':
	case 'f':
		/* CopyDone / CopyData / CopyFail outside a COPY: ignored, as Postgres ignores them. */
		return true;
	default:
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, "invalid frontend message type");
		return false;
	}
}

/* The length of the next message: the start-up packet's own length, or the type byte and length. */
static size_t pg_frame(struct session *core, const uint8_t *hdr, size_t n, uint32_t max)
{
	struct pg_session *s = pg(core);
	struct rbuf r;
	uint8_t type;
	uint32_t len;

	rbuf_init(&r, hdr, n);
	if (s->step == PG_STARTUP && core->st == SESSION_AUTH) {
		struct pg_startup st;
		const char *err = NULL;
		size_t consumed;

		/*
		 * Direct TLS negotiation (PostgreSQL 17's sslnegotiation=direct): a
		 * TLS handshake record (0x16) instead of SSLRequest. No length word
		 * of a start-up packet begins with it (that would be over 369 MB).
		 */
		if (hdr[0] == TLS_HANDSHAKE_RECORD && core->srv->tls && !core->tls) {
			session_start_tls(core);
			return 0;
		}

		/* The decoder judges the length from the first bytes, before the rest is buffered. */
		if (pg_decode_startup(hdr, n, STARTUP_MAX, &st, &consumed, &err) == PG_ERR) {
			startup_refused(s, hdr, n, err);
			return 0;
		}
		/* n >= proto->header (4): the length is there. */
		return rbuf_get_be32(&r, &len) ? len : 0;
	}
	if (!rbuf_get_u8(&r, &type) || !rbuf_get_be32(&r, &len))
		return 5; /* the type byte and the length */
	if (len < 4 || len > max) {
		fatal(s, AIRLOCK_E_NONE,
		      len < 4 ? AIRLOCK_N_PG_PROTOCOL_VIOLATION : AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED,
		      len < 4 ? "invalid message length" : "message too large: larger than max_message_bytes");
		return 0;
	}
	return (size_t)len + 1;
}

static void pg_message(struct session *core, const uint8_t *data, size_t len)
{
	struct pg_session *s = pg(core);
	uint32_t max = core->st == SESSION_READY ? core->srv->cfg->max_message_bytes : SESSION_PREAUTH_MAX_MESSAGE;
	const char *err = NULL;
	size_t consumed;
	struct pg_msg m;

	if (s->step == PG_STARTUP && core->st == SESSION_AUTH) {
		struct pg_startup st;

		if (pg_decode_startup(data, len, STARTUP_MAX, &st, &consumed, &err) != PG_OK) {
			startup_refused(s, data, len, err);
			return;
		}
		handle_startup(s, &st);
		return;
	}
	if (pg_decode_msg(data, len, max, &m, &consumed, &err) != PG_OK) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, err ? err : "malformed message");
		return;
	}
	if (core->st != SESSION_AUTH)
		handle_ready_msg(s, &m);
	else if (s->step == PG_SASL_INIT)
		handle_sasl_init(s, &m);
	else
		handle_sasl_cont(s, &m);
}

static void pg_auth_timeout(struct session *core)
{
	struct pg_session *s = pg(core);

	pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROTOCOL_VIOLATION, "authentication timeout");
	pgr_flush(s);
}

/* Over airlock's max_connections: the FATAL a full Postgres sends. */
static void pg_refuse(evutil_socket_t fd)
{
	static const char msg[] = "too many connections: airlock's max_connections is reached";
	struct pg_error_fields e = {
		.severity = "FATAL",
		.sqlstate = airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_TOO_MANY_CONNECTIONS),
		.message = msg,
	};
	struct wbuf w;

	wbuf_init(&w);
	pg_put_error(&w, &e);
	if (!w.failed && write(fd, w.data, w.len) < 0) {
		/* the client is gone either way */
	}
	wbuf_free(&w);
}

static bool pg_start(struct session *core)
{
	struct pg_session *s = pg(core);

	s->step = PG_STARTUP;
	s->txn = 'I';
	return getrandom(&s->key, sizeof(s->key), 0) == sizeof(s->key);
}

static void pg_drained(struct session *core)
{
	pgc_output_drained(pg(core));
}

/* CancelRequest: cancels the statement (or FETCH) of the session with this pid and key, if any. */
static void cancel(struct server *srv, uint32_t pid, uint32_t key)
{
	struct session *core;
	struct pg_session *s;

	/* Another node's key (a load balancer sent the cancel here), or another worker's: it is sent there. */
	if (peers_where(srv, pid) != PEER_KEY_HERE) {
		peers_forward_cancel(srv, pid, key);
		return;
	}
	core = session_find(srv, &pg_session_proto, peer_key_session(pid));
	s = core ? pg(core) : NULL;
	if (!s || s->key != key)
		return;
	if (core->job) {
		session_log(core, "cancel requested");
		job_cancel(core->job);
	} else if (pgc_cancel(s)) {
		session_log(core, "cancel requested during FETCH");
	} else if (pgw_cancel(s)) {
		session_log(core, "cancel requested while waiting for an approval");
	}
}

/* idle_in_transaction_session_timeout inside a transaction block, idle_session_timeout outside one. */
static uint64_t pg_idle_ms(struct session *core)
{
	struct pg_session *s = pg(core);

	return pgs_ms(&s->set, s->txn == 'I' ? "idle_session_timeout" : "idle_in_transaction_session_timeout");
}

static void pg_idle_timeout(struct session *core)
{
	struct pg_session *s = pg(core);

	if (s->txn == 'I')
		pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_IDLE_SESSION_TIMEOUT,
			  "terminating connection due to idle-session timeout");
	else
		pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_IDLE_IN_TRANSACTION_TIMEOUT,
			  "terminating connection due to idle-in-transaction timeout");
	pgr_flush(s);
}

static void pg_shutdown(struct session *core)
{
	struct pg_session *s = pg(core);

	pgr_fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_ADMIN_SHUTDOWN,
		  "terminating connection due to administrator command");
	pgr_flush(s);
}

static const char *pg_application(struct session *core)
{
	const char *display, *name = pgs_show(&pg(core)->set, "application_name", &display);

	return name ? name : "";
}

const struct session_proto pg_session_proto = {
	.name = "pg",
	.size = sizeof(struct pg_session),
	.header = 4, /* a start-up packet's length; other messages need 5, which frame asks for */
	.frame = pg_frame,
	.message = pg_message,
	.start = pg_start,
	.refuse = pg_refuse,
	.auth_timeout = pg_auth_timeout,
	.idle_ms = pg_idle_ms,
	.idle_timeout = pg_idle_timeout,
	.shutdown = pg_shutdown,
	.drained = pg_drained,
	.close = pg_close,
	.free = pg_free,
	.application = pg_application,
};
