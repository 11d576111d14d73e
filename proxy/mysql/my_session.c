/*
 * my_session: the MySQL session state machine.
 *
 *   HANDSHAKE --response, native ok--------------------------> READY
 *   HANDSHAKE --response, other plugin--> AUTH_SWITCH --token--> READY
 *   HANDSHAKE/AUTH_SWITCH --caching_sha2, not cached--> SHA2_FULL
 *   SHA2_FULL --0x02: public key out; RSA blob in, password right--> READY
 *   READY --COM_QUERY / COM_FIELD_LIST to a job--> BUSY --result--> READY
 *   any --COM_QUIT, EOF, fatal error--> CLOSING (flush, then free)
 *
 * Sequence ids: s->seq is the id of the next packet this side sends. A
 * client packet must carry exactly s->seq (in the command phase: 0); after
 * it, replies count on from there. A packet out of order ends the session.
 *
 * Logins: a user with mysql_native may use mysql_native_password; every
 * user may use caching_sha2_password, whose fast path works once a full
 * authentication (the password sent RSA-encrypted, as there is no TLS) put
 * the user's SHA256(SHA256(password)) in the generation's cache. A client
 * that starts with another plugin is switched to one of these two.
 */
#define _GNU_SOURCE
#include "proxy/mysql/my_session.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "protocol/scram.h"
#include "proxy/audit.h"
#include "proxy/log.h"
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"

#define AUTH_TIMEOUT_SEC 15
#define PREAUTH_MAX_PACKET 8192u
#define PLUGIN_NATIVE "mysql_native_password"
#define PLUGIN_SHA2 "caching_sha2_password"

/* What airlock offers; the session uses the AND with the client's. */
#define SERVER_CAPS                                                                                      \
	(MY_CAP_LONG_PASSWORD | MY_CAP_FOUND_ROWS | MY_CAP_LONG_FLAG | MY_CAP_CONNECT_WITH_DB |          \
	 MY_CAP_PROTOCOL_41 | MY_CAP_INTERACTIVE | MY_CAP_IGNORE_SIGPIPE | MY_CAP_TRANSACTIONS |         \
	 MY_CAP_SECURE_CONNECTION | MY_CAP_MULTI_RESULTS | MY_CAP_PLUGIN_AUTH | MY_CAP_CONNECT_ATTRS |  \
	 MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA | MY_CAP_DEPRECATE_EOF)

static const char *const state_names[] = {
#define MYS_NAME(name) #name,
	MYS_STATES(MYS_NAME)
#undef MYS_NAME
};

void mys_set_state(struct my_session *s, enum mys_state st)
{
	if (s->st == MYS_CLOSING)
		return; /* terminal */
	s->st = st;
}

/* ---- lifetime ---- */

static void session_free(struct my_session *s)
{
	struct server *srv = s->srv;

	if (s->job) {
		job_detach(s->job);
		s->job = NULL;
		myq_job_ended(s);
	}
	myp_free_all(s);
	myq_bin_free(s);
	if (s->counted)
		s->gen->user_sessions[server_gen_user_index(s->gen, s->u)]--;
	if (s->prev)
		s->prev->next = s->next;
	else
		srv->my_sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	srv->nsessions--;
	if (s->timer)
		event_free(s->timer);
	if (s->bev)
		bufferevent_free(s->bev);
	my_buf_free(&s->w);
	explicit_bzero(s->scramble, sizeof(s->scramble));
	server_gen_release(srv, s->gen);
	free(s);
}

static void session_free_cb(evutil_socket_t fd, short what, void *arg)
{
	session_free(arg);
}

/* Ends the session: flush what is queued (when flush), then free on a later pass. */
static void session_close(struct my_session *s, bool flush)
{
	struct timeval zero = {0, 0};

	if (s->st == MYS_CLOSING)
		return;
	s->st = MYS_CLOSING;
	if (s->job) {
		job_detach(s->job);
		s->job = NULL;
		myq_job_ended(s);
	}
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

void mys_flush(struct my_session *s)
{
	if (s->w.failed) {
		log_error("mysql session %u: a reply could not be built (out of memory or too large)", s->conn_id);
		my_buf_reset(&s->w);
		session_close(s, false);
		return;
	}
	if (s->w.len)
		bufferevent_write(s->bev, s->w.data, s->w.len);
	my_buf_reset(&s->w);
}

uint16_t mys_status(const struct my_session *s)
{
	uint16_t st = 0;

	if (s->vars.autocommit)
		st |= MY_STATUS_AUTOCOMMIT;
	if (s->in_trans)
		st |= MY_STATUS_IN_TRANS;
	if (s->in_trans && s->read_only_txn)
		st |= MY_STATUS_IN_TRANS_READONLY;
	return st;
}

void mys_put_ok(struct my_session *s)
{
	my_write_ok(&s->w, s->seq++, s->caps, 0, 0, mys_status(s), (uint16_t)s->warn_count, false);
}

void mys_put_err(struct my_session *s, uint16_t errcode, const char *sqlstate, const char *code,
		 const char *message, const char *hint)
{
	char text[1400];
	int n;

	if (code && code[0] && strncmp(message, code, strlen(code)) != 0)
		n = snprintf(text, sizeof(text), "%s: %s", code, message);
	else
		n = snprintf(text, sizeof(text), "%s", message);
	if (hint && hint[0] && n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, " (%s)", hint);
	my_write_err(&s->w, s->seq++, errcode, sqlstate, text);
}

static void fatal(struct my_session *s, uint16_t errcode, const char *sqlstate, const char *message)
{
	mys_put_err(s, errcode, sqlstate, NULL, message, NULL);
	mys_flush(s);
	session_close(s, true);
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1000.0 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

void mys_audit(struct my_session *s, const char *decision, const char *sqlstate, const char *code, uint64_t rows,
	       uint64_t bytes, uint8_t truncated)
{
	struct audit_entry e = {
		.user = s->user,
		.session = s->conn_id,
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

bool mys_database_allowed(const struct my_session *s, const char *db)
{
	const struct airlock_user *u = s->u;
	size_t n = strlen(db);

	if (!u)
		return false;
	if (strcmp(db, u->mysql_database) == 0)
		return true;
	for (size_t i = 0; i < u->nmysql_tables; i++) {
		const char *e = u->mysql_tables[i];

		if (strncmp(e, db, n) == 0 && e[n] == '.')
			return true;
	}
	return false;
}

/* ---- authentication ---- */

static void auth_fail(struct my_session *s, bool used_password)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' (using password: %s)", s->user, s->host,
		 used_password ? "YES" : "NO");
	log_info("mysql session %u: authentication failed for user %s", s->conn_id, s->user);
	fatal(s, 1045, "28000", msg);
}

static void login_ok(struct my_session *s)
{
	size_t ui = server_gen_user_index(s->gen, s->u);
	char msg[300];

	if (s->login_db[0] && !mys_database_allowed(s, s->login_db)) {
		snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' to database '%s'", s->user, s->host,
			 s->login_db);
		fatal(s, 1044, "42000", msg);
		return;
	}
	if (s->gen->user_sessions[ui] >= s->u->max_connections) {
		snprintf(msg, sizeof(msg), "User '%s' has exceeded the 'max_connections' resource (current value: %u)",
			 s->user, s->u->max_connections);
		fatal(s, 1226, "42000", msg);
		return;
	}
	s->gen->user_sessions[ui]++;
	s->counted = true;
	snprintf(s->database, sizeof(s->database), "%s", s->login_db[0] ? s->login_db : s->u->mysql_database);
	mys_put_ok(s);
	mys_flush(s);
	event_del(s->timer);
	mys_set_state(s, MYS_READY);
	log_info("mysql session %u: user %s authenticated (%s)", s->conn_id, s->user,
		 s->plugin == MYS_NATIVE ? PLUGIN_NATIVE : PLUGIN_SHA2);
}

/* Whether password (cleartext, from the RSA exchange) is the user's. */
static bool password_matches(const struct airlock_user *u, const char *password)
{
	struct scram_verifier v, mine;
	uint8_t stored[MY_NATIVE_HASH_LEN];
	char text[512];
	bool ok;

	if (u->mysql_native)
		return my_native_hash_parse(u->mysql_native, stored) == 0 &&
		       my_native_check_password(stored, password, strlen(password));
	/* No native hash: the SCRAM verifier decides (same salt and iterations, compare StoredKey). */
	if (scram_parse_verifier(u->scram, &v) < 0 ||
	    scram_make_verifier(password, v.salt, v.salt_len, v.iterations, text, sizeof(text)) < 0 ||
	    scram_parse_verifier(text, &mine) < 0)
		return false;
	ok = CRYPTO_memcmp(v.stored_key, mine.stored_key, SCRAM_KEY_LEN) == 0;
	explicit_bzero(text, sizeof(text));
	explicit_bzero(&mine, sizeof(mine));
	return ok;
}

static uint8_t *sha2_cache_slot(struct my_session *s, bool *valid)
{
	size_t ui = server_gen_user_index(s->gen, s->u);

	*valid = s->gen->my_sha2_valid[ui];
	return s->gen->my_sha2_cache[ui];
}

/* caching_sha2_password's first token: the fast path, or on to full authentication. */
static void sha2_token(struct my_session *s, const uint8_t *token, size_t len)
{
	static const uint8_t fast_ok = 0x03, full = 0x04;
	bool valid;
	uint8_t *digest2;

	if (len == 0 || (len == 1 && token[0] == 0)) {
		auth_fail(s, false);
		return;
	}
	digest2 = sha2_cache_slot(s, &valid);
	if (valid && my_sha2_fast_verify(digest2, s->scramble, token, len)) {
		my_write_auth_more(&s->w, s->seq++, &fast_ok, 1);
		login_ok(s);
		return;
	}
	my_write_auth_more(&s->w, s->seq++, &full, 1);
	mys_flush(s);
	mys_set_state(s, MYS_SHA2_FULL);
}

static void sha2_full(struct my_session *s, const uint8_t *p, size_t len)
{
	char password[512];
	const char *pem;
	size_t pemlen;
	bool valid;

	if (len == 1 && p[0] == 0x02) {
		/* The client asks for the public key to encrypt the password with. */
		pem = my_rsa_public_pem(s->srv->my_rsa, &pemlen);
		my_write_auth_more(&s->w, s->seq++, pem, pemlen);
		mys_flush(s);
		return;
	}
	if (s->unknown_user) {
		auth_fail(s, true);
		return;
	}
	if (my_rsa_decrypt_password(s->srv->my_rsa, p, len, s->scramble, password, sizeof(password)) < 0) {
		log_info("mysql session %u: caching_sha2_password full authentication without the RSA exchange",
			 s->conn_id);
		fatal(s, 1045, "28000",
		      "Access denied: caching_sha2_password needs the password RSA-encrypted, as airlock has no TLS; "
		      "let the client fetch the server's public key (mysql --get-server-public-key, "
		      "PyMySQL with the cryptography package) or use mysql_native_password");
		return;
	}
	if (!password_matches(s->u, password)) {
		explicit_bzero(password, sizeof(password));
		auth_fail(s, true);
		return;
	}
	my_sha2_digest2(password, strlen(password), sha2_cache_slot(s, &valid));
	s->gen->my_sha2_valid[server_gen_user_index(s->gen, s->u)] = true;
	explicit_bzero(password, sizeof(password));
	login_ok(s);
}

/* The token for the plugin the session settled on. */
static void auth_token(struct my_session *s, const uint8_t *token, size_t len)
{
	uint8_t stored[MY_NATIVE_HASH_LEN];

	if (s->unknown_user) {
		auth_fail(s, len > 0);
		return;
	}
	if (s->plugin == MYS_SHA2) {
		sha2_token(s, token, len);
		return;
	}
	if (!s->u->mysql_native || my_native_hash_parse(s->u->mysql_native, stored) < 0 ||
	    !my_native_verify(stored, s->scramble, token, len)) {
		auth_fail(s, len > 0);
		return;
	}
	login_ok(s);
}

static void switch_plugin(struct my_session *s, enum mys_plugin to)
{
	s->plugin = to;
	my_write_auth_switch(&s->w, s->seq++, to == MYS_NATIVE ? PLUGIN_NATIVE : PLUGIN_SHA2, s->scramble,
			     sizeof(s->scramble));
	mys_flush(s);
	mys_set_state(s, MYS_AUTH_SWITCH);
}

static bool plugin_is(const struct my_handshake_response *r, const char *name)
{
	size_t n = strlen(name);

	return r->plugin && r->plugin_len == n && memcmp(r->plugin, name, n) == 0;
}

static void handle_response(struct my_session *s, const uint8_t *p, size_t len)
{
	struct my_handshake_response r;
	const char *why = NULL;
	bool native;

	if (my_decode_handshake_response(p, len, &r, &why) != MY_OK) {
		fatal(s, 1043, "08S01", why ? why : "Bad handshake");
		return;
	}
	if (r.ssl_request) {
		fatal(s, 1045, "28000", "TLS is not available on this airlock listener; connect without TLS");
		return;
	}
	if (r.user_len == 0 || r.user_len >= sizeof(s->user) || memchr(r.user, '\0', r.user_len) ||
	    r.database_len >= sizeof(s->login_db) || (r.database && memchr(r.database, '\0', r.database_len))) {
		fatal(s, 1045, "28000", "Access denied: the user or database name is not valid");
		return;
	}
	memcpy(s->user, r.user, r.user_len);
	s->user[r.user_len] = '\0';
	if (r.database && (r.caps & MY_CAP_CONNECT_WITH_DB)) {
		memcpy(s->login_db, r.database, r.database_len);
		s->login_db[r.database_len] = '\0';
	}
	s->caps = r.caps & SERVER_CAPS;
	if (!myv_set_charset_id(&s->vars, r.charset))
		myv_set_charset(&s->vars, "utf8mb4");
	s->u = config_find_user(s->gen->cfg, s->user);
	if (!s->u || !s->u->mysql_target) {
		/*
		 * An unknown user goes the way a known user's wrong password goes, so
		 * the exchange does not tell them apart: caching_sha2_password asks
		 * for full authentication (the RSA exchange) and fails after it;
		 * mysql_native_password fails at once; other plugins are switched
		 * to mysql_native_password first.
		 */
		s->u = NULL;
		s->unknown_user = true;
		if (plugin_is(&r, PLUGIN_SHA2) && r.auth_len > 0) {
			static const uint8_t full = 0x04;

			s->plugin = MYS_SHA2;
			my_write_auth_more(&s->w, s->seq++, &full, 1);
			mys_flush(s);
			mys_set_state(s, MYS_SHA2_FULL);
		} else if (r.plugin && !plugin_is(&r, PLUGIN_NATIVE) && !plugin_is(&r, PLUGIN_SHA2) &&
			   (r.caps & MY_CAP_PLUGIN_AUTH)) {
			switch_plugin(s, MYS_NATIVE);
		} else {
			auth_fail(s, r.auth_len > 0);
		}
		return;
	}
	native = !r.plugin || plugin_is(&r, PLUGIN_NATIVE);
	if (native && s->u->mysql_native) {
		s->plugin = MYS_NATIVE;
		auth_token(s, r.auth, r.auth_len);
	} else if (plugin_is(&r, PLUGIN_SHA2)) {
		s->plugin = MYS_SHA2;
		auth_token(s, r.auth, r.auth_len);
	} else if (!(r.caps & MY_CAP_PLUGIN_AUTH)) {
		/* A client that cannot switch plugins gets one chance: native. */
		auth_fail(s, r.auth_len > 0);
	} else {
		switch_plugin(s, s->u->mysql_native ? MYS_NATIVE : MYS_SHA2);
	}
}

/* ---- the command loop ---- */

static void statistics(struct my_session *s)
{
	char text[128];

	snprintf(text, sizeof(text), "Uptime: %lld  Threads: %u  Questions: 0  Slow queries: 0  Opens: 0",
		 (long long)(time(NULL) - s->srv->started), s->srv->nsessions);
	my_begin(&s->w, s->seq++);
	my_put_bytes(&s->w, text, strlen(text));
	my_end(&s->w);
}

static void handle_command(struct my_session *s, const uint8_t *p, size_t len)
{
	struct my_command c;
	const char *why = NULL;

	if (my_decode_command(p, len, &c, &why) != MY_OK) {
		mys_put_err(s, 1047, "08S01", NULL, why ? why : "Unknown command", NULL);
		mys_flush(s);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	s->fingerprint = 0;
	switch (c.cmd) {
	case MY_COM_QUIT:
		session_close(s, false);
		return;
	case MY_COM_PING:
		mys_put_ok(s);
		break;
	case MY_COM_QUERY:
		myq_query(s, (const char *)c.arg, c.arg_len);
		return;
	case MY_COM_INIT_DB:
		myq_init_db(s, (const char *)c.arg, c.arg_len);
		return;
	case MY_COM_FIELD_LIST:
		myq_field_list(s, c.table, c.table_len);
		return;
	case MY_COM_STATISTICS:
		statistics(s);
		break;
	case MY_COM_RESET_CONNECTION:
		myp_free_all(s);
		myv_init(&s->vars);
		s->in_trans = false;
		s->read_only_txn = false;
		myq_clear_warnings(s);
		snprintf(s->database, sizeof(s->database), "%s", s->u->mysql_database);
		mys_put_ok(s);
		break;
	case MY_COM_STMT_PREPARE:
		myp_prepare(s, (const char *)c.arg, c.arg_len);
		return;
	case MY_COM_STMT_EXECUTE:
		myp_execute(s, p, len);
		return;
	case MY_COM_STMT_CLOSE:
		myp_close(s, p, len);
		return; /* no reply */
	case MY_COM_STMT_SEND_LONG_DATA:
		myp_long_data(s, p, len);
		return; /* no reply */
	case MY_COM_STMT_RESET:
		myp_reset(s, p, len);
		return;
	case MY_COM_SET_OPTION:
		/* 0 turns multi-statements on, 1 off; airlock never runs more than one statement. */
		if (c.arg_len == 2 && c.arg[0] == 1 && c.arg[1] == 0)
			my_write_eof(&s->w, s->seq++, 0, mys_status(s));
		else
			mys_put_err(s, 1235, "42000", "MULTI_STATEMENT",
				    "This version of airlock doesn't yet support 'multiple statements'",
				    "send one statement per query");
		break;
	case MY_COM_STMT_FETCH:
		mys_put_err(s, 1235, "42000", "UNSUPPORTED", "Server-side cursors are not supported",
			    "execute without a cursor; rows are streamed anyway");
		break;
	default:
		mys_put_err(s, 1047, "08S01", "UNSUPPORTED", "Unknown command",
			    "airlock answers COM_QUERY, COM_PING, COM_INIT_DB, COM_FIELD_LIST and COM_QUIT");
		break;
	}
	mys_flush(s);
}

void mys_process(struct my_session *s)
{
	struct evbuffer *in = bufferevent_get_input(s->bev);

	while (s->st != MYS_CLOSING && s->st != MYS_BUSY) {
		uint32_t max = s->st == MYS_READY ? s->srv->cfg->max_message_bytes : PREAUTH_MAX_PACKET;
		size_t have = evbuffer_get_length(in), consumed = 0, needed = 0;
		struct my_packet pkt;
		const uint8_t *data;
		enum my_status rc;
		uint8_t hdr[MY_HEADER_LEN];

		if (have < MY_HEADER_LEN)
			return;
		evbuffer_copyout(in, hdr, sizeof(hdr));
		rc = my_packet_peek(hdr, sizeof(hdr), max, &pkt, &consumed, &needed);
		if (rc == MY_ERR) {
			fatal(s, 1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes");
			return;
		}
		if (have < needed || (rc == MY_NEED_MORE && !needed)) {
			bufferevent_setwatermark(s->bev, EV_READ, 0, (needed ? needed : MY_HEADER_LEN) + 4096);
			return;
		}
		data = evbuffer_pullup(in, (ssize_t)(needed ? needed : MY_HEADER_LEN));
		if (!data || my_packet_peek(data, needed ? needed : MY_HEADER_LEN, max, &pkt, &consumed, &needed) !=
				     MY_OK) {
			fatal(s, 1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes");
			return;
		}
		if (s->st == MYS_READY)
			s->seq = 0; /* every command starts a new exchange */
		if (my_seq_accept(&s->seq, pkt.seq) != MY_OK) {
			log_info("mysql session %u: packet out of order in %s", s->conn_id, state_names[s->st]);
			s->seq = (uint8_t)(pkt.seq + 1);
			fatal(s, 1156, "08S01", "Got packets out of order");
			return;
		}
		switch (s->st) {
		case MYS_HANDSHAKE:
			handle_response(s, pkt.payload, pkt.len);
			break;
		case MYS_AUTH_SWITCH:
			auth_token(s, pkt.payload, pkt.len);
			break;
		case MYS_SHA2_FULL:
			sha2_full(s, pkt.payload, pkt.len);
			break;
		default:
			handle_command(s, pkt.payload, pkt.len);
			break;
		}
		if (s->st == MYS_CLOSING)
			return;
		evbuffer_drain(in, consumed);
		bufferevent_setwatermark(s->bev, EV_READ, 0, (size_t)max + MY_HEADER_LEN + 4096);
	}
}

static void session_read_cb(struct bufferevent *bev, void *arg)
{
	mys_process(arg);
}

static void session_write_cb(struct bufferevent *bev, void *arg)
{
	struct my_session *s = arg;

	if (s->st == MYS_CLOSING) {
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
}

static void session_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct my_session *s = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		if (s->st == MYS_CLOSING) {
			struct timeval zero = {0, 0};

			evtimer_add(s->timer, &zero);
			return;
		}
		session_close(s, false);
	}
}

static void session_auth_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct my_session *s = arg;

	log_info("mysql session %u: handshake not finished in %d s (%s)", s->conn_id, AUTH_TIMEOUT_SEC,
		 state_names[s->st]);
	fatal(s, 1043, "08S01", "Bad handshake: authentication timeout");
}

/* Refuses a connection over the global limit with the ERR packet MySQL sends instead of a handshake. */
static void refuse_connection(evutil_socket_t fd)
{
	struct my_buf w;

	my_buf_init(&w);
	my_write_err(&w, 0, 1040, "08004", "Too many connections: airlock's max_connections is reached");
	if (!w.failed && write(fd, w.data, w.len) < 0) {
		/* the client is gone either way */
	}
	my_buf_free(&w);
	close(fd);
}

static void peer_host(evutil_socket_t fd, char *out, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	snprintf(out, cap, "%%");
	if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, out, (socklen_t)cap);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, out, (socklen_t)cap);
}

void my_session_accept(struct server *srv, evutil_socket_t fd)
{
	struct timeval tv = {AUTH_TIMEOUT_SEC, 0};
	struct my_session *s;
	uint32_t id;

	if (srv->nsessions >= srv->cfg->max_connections || !srv->my_rsa) {
		refuse_connection(fd);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return;
	}
	s->srv = srv;
	my_buf_init(&s->w);
	evutil_make_socket_nonblocking(fd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	peer_host(fd, s->host, sizeof(s->host));
	s->bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
	s->timer = evtimer_new(srv->base, session_auth_timeout, s);
	if (!s->bev || !s->timer || getrandom(&id, sizeof(id), 0) != sizeof(id) ||
	    my_scramble_generate(s->scramble) < 0) {
		if (s->bev)
			bufferevent_free(s->bev);
		else
			close(fd);
		if (s->timer)
			event_free(s->timer);
		my_buf_free(&s->w);
		free(s);
		return;
	}
	s->gen = server_gen_hold(srv);
	s->conn_id = (id & 0x3fffffff) | 1;
	s->st = MYS_HANDSHAKE;
	myv_init(&s->vars);
	s->next = srv->my_sessions;
	if (srv->my_sessions)
		srv->my_sessions->prev = s;
	srv->my_sessions = s;
	srv->nsessions++;

	struct my_handshake h = {
		.server_version = MYS_SERVER_VERSION,
		.conn_id = s->conn_id,
		.scramble = s->scramble,
		.caps = SERVER_CAPS,
		.charset = s->vars.charset_id,
		.status = mys_status(s),
		.auth_plugin = PLUGIN_NATIVE,
	};
	my_write_handshake(&s->w, s->seq++, &h);
	evtimer_add(s->timer, &tv);
	bufferevent_setcb(s->bev, session_read_cb, session_write_cb, session_event_cb, s);
	bufferevent_setwatermark(s->bev, EV_READ, 0, PREAUTH_MAX_PACKET + 4096);
	bufferevent_setwatermark(s->bev, EV_WRITE, MYS_OUT_LOW_WATER, 0);
	bufferevent_enable(s->bev, EV_READ | EV_WRITE);
	mys_flush(s);
}

void my_session_close_all(struct server *srv)
{
	while (srv->my_sessions)
		session_free(srv->my_sessions);
}
