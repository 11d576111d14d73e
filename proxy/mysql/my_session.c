/*
 * my_session: the MySQL session state machine.
 *
 * The core (proxy/session.c) owns the connection's life; this file is
 * the protocol's half. Authentication steps, inside the core's AUTH:
 *
 *   HANDSHAKE --response, native ok--------------------------> (core) READY
 *   HANDSHAKE --response, other plugin--> AUTH_SWITCH --token--> READY
 *   HANDSHAKE/AUTH_SWITCH --caching_sha2, not cached--> SHA2_FULL
 *   SHA2_FULL --0x02: public key out; RSA blob in, password right--> READY
 *
 * then READY --COM_QUERY / COM_FIELD_LIST to a job--> BUSY --result-->
 * READY, and any --COM_QUIT, EOF, fatal error--> CLOSING.
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
#include "proxy/gen.h"
#include "proxy/log.h"
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"
#include "validator/mysql/validate_my_versioned.h"

#define PLUGIN_NATIVE "mysql_native_password"
#define PLUGIN_SHA2 "caching_sha2_password"

/* What airlock offers; the session uses the AND with the client's. */
#define SERVER_CAPS                                                                                                  \
	(MY_CAP_LONG_PASSWORD | MY_CAP_FOUND_ROWS | MY_CAP_LONG_FLAG | MY_CAP_CONNECT_WITH_DB | MY_CAP_PROTOCOL_41 | \
	 MY_CAP_INTERACTIVE | MY_CAP_IGNORE_SIGPIPE | MY_CAP_TRANSACTIONS | MY_CAP_SECURE_CONNECTION |               \
	 MY_CAP_MULTI_RESULTS | MY_CAP_PLUGIN_AUTH | MY_CAP_CONNECT_ATTRS | MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA |  \
	 MY_CAP_DEPRECATE_EOF)

/* CLIENT_SSL too when the listeners have TLS. */
static uint32_t server_caps(const struct session *core)
{
	return SERVER_CAPS | (core->srv->tls ? MY_CAP_SSL : 0);
}

static struct my_session *my(struct session *core)
{
	return (struct my_session *)core;
}

/* ---- lifetime (the core's hooks) ---- */

static void my_free(struct session *core)
{
	struct my_session *s = my(core);

	myp_free_all(s);
	myr_bin_free(&s->bin);
	free(s->versioned);
	s->versioned = NULL;
	myw_pending_free(s->write);
	s->write = NULL;
	myw_wait_free(s);
	explicit_bzero(s->scramble, sizeof(s->scramble));
}

static void fatal(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message)
{
	myr_put_err(s, code, native, message, NULL);
	myr_flush(s);
	session_close(&s->core, true, message);
}

/* ---- authentication ---- */

static void login_finish(struct my_session *s);

/* The verdict on the password, once any wait for earlier failures is over. */
static void auth_verdict(struct session *core, bool pass)
{
	struct my_session *s = my(core);
	char msg[200];

	if (pass) {
		login_finish(s);
		return;
	}
	snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' (using password: %s)", s->core.user, s->host,
		 s->used_password ? "YES" : "NO");
	fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED, msg);
}

static void auth_fail(struct my_session *s, bool used_password)
{
	s->used_password = used_password;
	session_verdict(&s->core, false, airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED), auth_verdict);
}

/* The password was right: what was written so far goes out with the OK. */
static void login_ok(struct my_session *s)
{
	session_verdict(&s->core, true, airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED), auth_verdict);
}

static void login_finish(struct my_session *s)
{
	char msg[300];

	if (s->login_db[0] && !myq_database_allowed(s, s->login_db)) {
		snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' to database '%s'", s->core.user, s->host,
			 s->login_db);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_DB_ACCESS_DENIED, msg);
		return;
	}
	if (!session_login(&s->core, s->plugin == MYS_NATIVE ? PLUGIN_NATIVE : PLUGIN_SHA2)) {
		snprintf(msg, sizeof(msg), "User '%s' has exceeded the 'max_connections' resource (current value: %u)",
			 s->core.user, s->core.u->max_connections);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_USER_LIMIT_REACHED, msg);
		return;
	}
	snprintf(s->database, sizeof(s->database), "%s", s->login_db[0] ? s->login_db : s->core.u->mysql_database);
	myr_put_ok(s);
	myr_flush(s);
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
	digest2 = gen_sha2_entry(s->core.gen, s->core.u, &valid);
	if (valid && my_sha2_fast_verify(digest2, s->scramble, token, len)) {
		my_write_auth_more(&s->core.w, s->seq++, &fast_ok, 1);
		login_ok(s);
		return;
	}
	my_write_auth_more(&s->core.w, s->seq++, &full, 1);
	myr_flush(s);
	s->step = MYS_SHA2_FULL;
}

static void sha2_full(struct my_session *s, const uint8_t *p, size_t len)
{
	char password[512];
	const char *pem;
	size_t pemlen;
	uint8_t digest2[32];

	if (len == 1 && p[0] == 0x02) {
		/* The client asks for the public key to encrypt the password with. */
		pem = my_rsa_public_pem(s->core.srv->my_rsa, &pemlen);
		my_write_auth_more(&s->core.w, s->seq++, pem, pemlen);
		myr_flush(s);
		return;
	}
	if (s->unknown_user) {
		auth_fail(s, true);
		return;
	}
	if (s->core.tls && len > 0 && len <= sizeof(password) && p[len - 1] == '\0') {
		/* Over TLS the client sends the password itself, NUL-terminated, as to a MySQL server. */
		memcpy(password, p, len);
	} else if (my_rsa_decrypt_password(s->core.srv->my_rsa, p, len, s->scramble, password, sizeof(password)) < 0) {
		session_log(&s->core, "caching_sha2_password full authentication without the RSA exchange");
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED,
		      "Access denied: caching_sha2_password needs the password over TLS or RSA-encrypted; connect "
		      "with TLS, let the client fetch the server's public key (mysql --get-server-public-key, "
		      "PyMySQL with the cryptography package) or use mysql_native_password");
		return;
	}
	if (!password_matches(s->core.u, password)) {
		explicit_bzero(password, sizeof(password));
		auth_fail(s, true);
		return;
	}
	my_sha2_digest2(password, strlen(password), digest2);
	gen_sha2_fill(s->core.gen, s->core.u, digest2);
	explicit_bzero(digest2, sizeof(digest2));
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
	if (!s->core.u->mysql_native || my_native_hash_parse(s->core.u->mysql_native, stored) < 0 ||
	    !my_native_verify(stored, s->scramble, token, len)) {
		auth_fail(s, len > 0);
		return;
	}
	login_ok(s);
}

static void switch_plugin(struct my_session *s, enum mys_plugin to)
{
	s->plugin = to;
	my_write_auth_switch(&s->core.w, s->seq++, to == MYS_NATIVE ? PLUGIN_NATIVE : PLUGIN_SHA2, s->scramble,
			     sizeof(s->scramble));
	myr_flush(s);
	s->step = MYS_AUTH_SWITCH;
}

static bool plugin_is(const struct my_handshake_response *r, const char *name)
{
	size_t n = strlen(name);

	return r->plugin && r->plugin_len == n && memcmp(r->plugin, name, n) == 0;
}

/*
 * A dump tool writes what it reads into a file that must be whole; it
 * drops warnings, so a result cut at the caps would pass for the table.
 */
static bool dump_tool(const struct my_handshake_response *r)
{
	static const char *const tools[] = {"mysqldump", "mariadb-dump", "mysqlpump"};
	const uint8_t *v;
	size_t n;

	if (!my_connect_attr(r->attrs, r->attrs_len, "program_name", &v, &n))
		return false;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (n == strlen(tools[i]) && memcmp(v, tools[i], n) == 0)
			return true;
	return false;
}

/* The connection attribute program_name (what a held write records as its application), "" when none. */
static void program_name(const struct my_handshake_response *r, char *out, size_t cap)
{
	const uint8_t *v;
	size_t n;

	out[0] = '\0';
	if (!my_connect_attr(r->attrs, r->attrs_len, "program_name", &v, &n))
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, v, n);
	out[n] = '\0';
}

static void handle_response(struct my_session *s, const uint8_t *p, size_t len)
{
	struct my_handshake_response r;
	const char *why = NULL;
	bool native;

	if (my_decode_handshake_response(p, len, &r, &why) != MY_OK) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_BAD_HANDSHAKE, why ? why : "Bad handshake");
		return;
	}
	if (r.ssl_request) {
		/* The SSL request: TLS from the next byte, then the whole handshake response inside it. */
		if (s->core.srv->tls && !s->core.tls) {
			session_start_tls(&s->core);
			return;
		}
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED,
		      "TLS is not available on this airlock listener; connect without TLS");
		return;
	}
	if (s->core.srv->cfg->tls_required && !s->core.tls) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_SECURE_TRANSPORT_REQUIRED,
		      "Connections using insecure transport are prohibited: airlock requires TLS "
		      "(--ssl-mode=REQUIRED)");
		return;
	}
	if (r.user_len == 0 || r.user_len >= sizeof(s->core.user) || memchr(r.user, '\0', r.user_len) ||
	    r.database_len >= sizeof(s->login_db) || (r.database && memchr(r.database, '\0', r.database_len))) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_ACCESS_DENIED,
		      "Access denied: the user or database name is not valid");
		return;
	}
	memcpy(s->core.user, r.user, r.user_len);
	s->core.user[r.user_len] = '\0';
	if (r.database && (r.caps & MY_CAP_CONNECT_WITH_DB)) {
		memcpy(s->login_db, r.database, r.database_len);
		s->login_db[r.database_len] = '\0';
	}
	s->caps = r.caps & server_caps(&s->core);
	s->dump_tool = dump_tool(&r);
	program_name(&r, s->program, sizeof(s->program));
	if (!myv_set_charset_id(&s->vars, r.charset))
		myv_set_charset(&s->vars, "utf8mb4");
	s->core.u = config_find_user(s->core.gen->cfg, s->core.user);
	/* As REQUIRE SSL on the account: refused before its password is checked. */
	if (s->core.u && s->core.u->mysql_target && s->core.u->tls_required && !s->core.tls) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_SECURE_TRANSPORT_REQUIRED,
		      "Connections using insecure transport are prohibited: airlock requires TLS for this user "
		      "(--ssl-mode=REQUIRED)");
		return;
	}
	if (!s->core.u || !s->core.u->mysql_target) {
		/*
		 * An unknown user goes the way a known user's wrong password goes, so
		 * the exchange does not tell them apart: caching_sha2_password asks
		 * for full authentication (the RSA exchange) and fails after it;
		 * mysql_native_password fails at once; other plugins are switched
		 * to mysql_native_password first.
		 */
		s->core.u = NULL;
		s->unknown_user = true;
		if (plugin_is(&r, PLUGIN_SHA2) && r.auth_len > 0) {
			static const uint8_t full = 0x04;

			s->plugin = MYS_SHA2;
			my_write_auth_more(&s->core.w, s->seq++, &full, 1);
			myr_flush(s);
			s->step = MYS_SHA2_FULL;
		} else if (r.plugin && !plugin_is(&r, PLUGIN_NATIVE) && !plugin_is(&r, PLUGIN_SHA2) &&
			   (r.caps & MY_CAP_PLUGIN_AUTH)) {
			switch_plugin(s, MYS_NATIVE);
		} else {
			auth_fail(s, r.auth_len > 0);
		}
		return;
	}
	native = !r.plugin || plugin_is(&r, PLUGIN_NATIVE);
	if (native && s->core.u->mysql_native) {
		s->plugin = MYS_NATIVE;
		auth_token(s, r.auth, r.auth_len);
	} else if (plugin_is(&r, PLUGIN_SHA2)) {
		s->plugin = MYS_SHA2;
		auth_token(s, r.auth, r.auth_len);
	} else if (!(r.caps & MY_CAP_PLUGIN_AUTH)) {
		/* A client that cannot switch plugins gets one chance: native. */
		auth_fail(s, r.auth_len > 0);
	} else {
		switch_plugin(s, s->core.u->mysql_native ? MYS_NATIVE : MYS_SHA2);
	}
}

/* ---- the command loop ---- */

/*
 * COM_STATISTICS: MariaDB's line, with this session's own figures (its age,
 * one thread, its commands) so that it says nothing of other sessions,
 * other users or the backend.
 */
static void statistics(struct my_session *s)
{
	char text[256];
	long long up = (long long)(time(NULL) - s->connected);
	unsigned long long milli = up > 0 ? s->questions * 1000 / (unsigned long long)up : 0;

	snprintf(text, sizeof(text),
		 "Uptime: %lld  Threads: 1  Questions: %llu  Slow queries: 0  Opens: 0  Open tables: 0  "
		 "Queries per second avg: %llu.%03llu",
		 up, (unsigned long long)s->questions, milli / 1000, milli % 1000);
	my_begin(&s->core.w, s->seq++);
	my_put_bytes(&s->core.w, text, strlen(text));
	my_end(&s->core.w);
}

/* COM_RESET_CONNECTION: the session as it was at login, the user and the connection kept. */
static void reset_connection(struct my_session *s)
{
	myp_free_all(s);
	myv_init(&s->vars);
	s->in_trans = false;
	s->read_only_txn = false;
	myr_clear_warnings(s);
	snprintf(s->database, sizeof(s->database), "%s", s->core.u->mysql_database);
	myr_put_ok(s);
}

/* COM_SET_OPTION: 0 turns multi-statements on, 1 off; airlock never runs more than one statement. */
static void set_option(struct my_session *s, const struct my_command *c)
{
	if (c->arg_len == 2 && c->arg[0] == 1 && c->arg[1] == 0)
		my_write_eof(&s->core.w, s->seq++, 0, myr_status(s));
	else
		myr_put_err(s, AIRLOCK_E_MULTI_STATEMENT, AIRLOCK_N_MY_NOT_SUPPORTED_YET,
			    "This version of airlock doesn't yet support 'multiple statements'",
			    "send one statement per query");
}

/*
 * The commands the other files of the session answer, each in its own
 * time (after a statement's job, or never: COM_STMT_CLOSE and
 * COM_STMT_SEND_LONG_DATA have no reply). Each takes the text after the
 * command byte, or else the whole packet.
 */
static const struct handed_command {
	uint8_t cmd;
	void (*text)(struct my_session *s, const char *arg, size_t len);
	void (*packet)(struct my_session *s, const uint8_t *p, size_t len);
} handed[] = {
	/* clang-format off */
	{MY_COM_QUERY,               myq_query,   NULL},
	{MY_COM_INIT_DB,             myq_init_db, NULL},
	{MY_COM_STMT_PREPARE,        myp_prepare, NULL},
	{MY_COM_STMT_EXECUTE,        NULL,        myp_execute},
	{MY_COM_STMT_CLOSE,          NULL,        myp_close},
	{MY_COM_STMT_SEND_LONG_DATA, NULL,        myp_long_data},
	{MY_COM_STMT_RESET,          NULL,        myp_reset},
	{MY_COM_STMT_FETCH,          NULL,        myp_fetch},
	/* clang-format on */
};

/*
 * A statement's text with its versioned comments read as the server reads
 * them (validator/mysql/validate_my_versioned.h), so what is validated and
 * run holds none; the text itself when it has none, or when their reading
 * is uncertain (the validator then refuses the comment).
 */
static const char *read_versioned(struct my_session *s, const char *sql, size_t len)
{
	bool ansi_quotes, no_backslash;
	char *copy;

	free(s->versioned);
	s->versioned = NULL;
	if (!memmem(sql, len, "/*", 2))
		return sql;
	copy = malloc(len ? len : 1);
	if (!copy)
		return sql;
	memcpy(copy, sql, len);
	myv_lex_modes(&s->vars, &ansi_quotes, &no_backslash);
	if (vmy_expand_versioned(copy, len, ansi_quotes, no_backslash) != VMY_VERSIONED_EXPANDED) {
		free(copy);
		return sql;
	}
	s->versioned = copy;
	return copy;
}

static void handle_command(struct my_session *s, const uint8_t *p, size_t len)
{
	struct my_command c;
	const char *why = NULL;

	if (my_decode_command(p, len, &c, &why) != MY_OK) {
		myr_put_err(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_COMMAND, why ? why : "Unknown command", NULL);
		myr_flush(s);
		return;
	}
	session_statement_begin(&s->core, 0);
	s->questions++;
	for (size_t i = 0; i < sizeof(handed) / sizeof(handed[0]); i++) {
		if (handed[i].cmd != c.cmd)
			continue;
		if (handed[i].text && (c.cmd == MY_COM_QUERY || c.cmd == MY_COM_STMT_PREPARE))
			handed[i].text(s, read_versioned(s, (const char *)c.arg, c.arg_len), c.arg_len);
		else if (handed[i].text)
			handed[i].text(s, (const char *)c.arg, c.arg_len);
		else
			handed[i].packet(s, p, len);
		return;
	}
	/* The rest is answered here, at once. */
	switch (c.cmd) {
	case MY_COM_QUIT:
		session_close(&s->core, false, "COM_QUIT");
		return;
	case MY_COM_FIELD_LIST:
		myq_field_list(s, c.table, c.table_len, c.wildcard, c.wildcard_len);
		return;
	case MY_COM_PING:
		myr_put_ok(s);
		break;
	case MY_COM_STATISTICS:
		statistics(s);
		break;
	case MY_COM_RESET_CONNECTION:
		reset_connection(s);
		break;
	case MY_COM_SET_OPTION:
		set_option(s, &c);
		break;
	default:
		myr_put_err(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_MY_UNKNOWN_COMMAND, "Unknown command",
			    "airlock answers COM_QUERY, COM_PING, COM_INIT_DB, COM_FIELD_LIST and COM_QUIT");
		break;
	}
	myr_flush(s);
}

/* The length of the next packet (header included); a payload over max is refused before it is buffered. */
static size_t my_frame(struct session *core, const uint8_t *hdr, size_t n, uint32_t max)
{
	struct my_packet pkt;
	size_t consumed, needed;

	if (my_packet_peek(hdr, MY_HEADER_LEN, max, &pkt, &consumed, &needed) == MY_ERR) {
		/* The ERR answers this packet (n >= the header: its id is there), not the last exchange. */
		my(core)->seq = (uint8_t)(hdr[3] + 1);
		fatal(my(core), AIRLOCK_E_NONE, AIRLOCK_N_MY_PACKET_TOO_LARGE,
		      "Got a packet bigger than 'max_allowed_packet' bytes");
		return 0;
	}
	return needed ? needed : consumed;
}

static void my_message(struct session *core, const uint8_t *data, size_t len)
{
	struct my_session *s = my(core);
	uint32_t max = core->st == SESSION_READY ? core->srv->cfg->max_message_bytes : SESSION_PREAUTH_MAX_MESSAGE;
	struct my_packet pkt;
	size_t consumed, needed;

	if (my_packet_peek(data, len, max, &pkt, &consumed, &needed) != MY_OK) {
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_PACKET_TOO_LARGE,
		      "Got a packet bigger than 'max_allowed_packet' bytes");
		return;
	}
	if (core->st == SESSION_READY)
		s->seq = 0; /* every command starts a new exchange */
	if (my_seq_accept(&s->seq, pkt.seq) != MY_OK) {
		session_log(core, "packet out of order in %s", session_state_name(core->st));
		s->seq = (uint8_t)(pkt.seq + 1);
		fatal(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_PACKETS_OUT_OF_ORDER, "Got packets out of order");
		return;
	}
	if (core->st == SESSION_READY)
		handle_command(s, pkt.payload, pkt.len);
	else if (s->step == MYS_HANDSHAKE)
		handle_response(s, pkt.payload, pkt.len);
	else if (s->step == MYS_AUTH_SWITCH)
		auth_token(s, pkt.payload, pkt.len);
	else
		sha2_full(s, pkt.payload, pkt.len);
}

static void my_auth_timeout(struct session *core)
{
	struct my_session *s = my(core);

	myr_put_err(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_BAD_HANDSHAKE, "Bad handshake: authentication timeout", NULL);
	myr_flush(s);
}

/* Over the global limit: the ERR packet MySQL sends instead of a handshake. */
static void my_refuse(evutil_socket_t fd)
{
	struct wbuf w;

	wbuf_init(&w);
	my_write_err(&w, 0, airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_TOO_MANY_CONNECTIONS),
		     airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_TOO_MANY_CONNECTIONS),
		     "Too many connections: airlock's max_connections is reached");
	if (!w.failed && write(fd, w.data, w.len) < 0) {
		/* the client is gone either way */
	}
	wbuf_free(&w);
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

/* The greeting: HandshakeV10 with this session's scramble. */
static bool my_start(struct session *core)
{
	struct my_session *s = my(core);

	if (!core->srv->my_rsa || my_scramble_generate(s->scramble) < 0)
		return false;
	peer_host(bufferevent_getfd(core->bev), s->host, sizeof(s->host));
	s->step = MYS_HANDSHAKE;
	s->connected = time(NULL);
	myv_init(&s->vars);

	struct my_handshake h = {
		.server_version = MYS_SERVER_VERSION,
		.conn_id = core->id,
		.scramble = s->scramble,
		.caps = server_caps(core),
		.charset = s->vars.charset_id,
		.status = myr_status(s),
		.auth_plugin = PLUGIN_NATIVE,
	};
	my_write_handshake(&s->core.w, s->seq++, &h);
	myr_flush(s);
	return true;
}

static uint64_t my_idle_ms(struct session *core)
{
	return myv_idle_ms(my(core));
}

/* As MySQL 8 says it before closing an idle connection (ER_CLIENT_INTERACTION_TIMEOUT). */
static void my_idle_timeout(struct session *core)
{
	struct my_session *s = my(core);

	s->seq = 0;
	myr_put_err(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_CLIENT_INTERACTION_TIMEOUT,
		    "The client was disconnected by the server because of inactivity. See wait_timeout and "
		    "interactive_timeout for configuring this behavior.",
		    NULL);
	myr_flush(s);
}

static void my_shutdown(struct session *core)
{
	struct my_session *s = my(core);

	/* Logged in, it is read as the answer to whatever the client sends next. */
	if (core->st != SESSION_AUTH)
		s->seq = 0;
	myr_put_err(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_SERVER_SHUTDOWN, "Server shutdown in progress", NULL);
	myr_flush(s);
}

static void my_drained(struct session *core)
{
	myc_output_drained((struct my_session *)core);
}

static const char *my_application(struct session *core)
{
	return my(core)->program;
}

const struct session_proto my_session_proto = {
	.name = "mysql",
	.size = sizeof(struct my_session),
	.header = MY_HEADER_LEN,
	.frame = my_frame,
	.message = my_message,
	.start = my_start,
	.refuse = my_refuse,
	.auth_timeout = my_auth_timeout,
	.idle_ms = my_idle_ms,
	.idle_timeout = my_idle_timeout,
	.shutdown = my_shutdown,
	.drained = my_drained,
	.free = my_free,
	.application = my_application,
};
