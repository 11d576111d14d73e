/*
 * libFuzzer target for what an unauthenticated client reaches: a Postgres
 * or MySQL session (the real protocols on the session core) fed through
 * bufferevent_pair. The first input byte picks the protocol (even:
 * Postgres, odd: MySQL) and, in its high bits, the size of the pieces the
 * rest is written in, so framing is tried across every cut; then the
 * client closes. Start-up packets, SSLRequest and CancelRequest, options,
 * SCRAM's messages, MySQL's handshake response, plugin switches and the
 * caching_sha2 exchange all run; ASan and UBSan judge, and every session
 * must be closing once the client has hung up.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "conf/config.h"
#include "protocol/my_auth.h"
#include "proxy/gen.h"
#include "proxy/mysql/my_session.h"
#include "proxy/pg/pg_session.h"
#include "proxy/server.h"
#include "proxy/session.h"

/* Password "agent-secret" for both logins. */
#define VERIFIER                                       \
	"SCRAM-SHA-256$4096:YWlybG9jay10ZXN0LXNhbHQ=$" \
	"cKkZlZXmh1OEM3AP9aRO2IiCEtynl4/E0ck21FGe++Q=:triCvT67TiAu9fE9j0tqZDvEO6HWPXCOgoxs+AQnM94="

static const char conf_text[] =
	"[server]\n"
	"pg_listen = 127.0.0.1:6432\n"
	"mysql_listen = 127.0.0.1:3307\n"
	"runner_image = sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
	"max_message_bytes = 65536\n"
	"[hosts]\n"
	"allow = 127.0.0.1\n"
	"[target shop]\n"
	"host = 127.0.0.1\nport = 5432\ndatabase = shop\nuser = ro\npassword_file = pw\n"
	"[target maria]\n"
	"engine = mariadb\n"
	"host = 127.0.0.1\nport = 3306\ndatabase = shop\nuser = ro\npassword_file = pw\n"
	"[user agent]\n"
	"scram = " VERIFIER "\n"
	"target = shop\n"
	"mysql_target = maria\n"
	"mysql_native = *5D46C4C4CF2C8CB8BB3C1D7F4B0E3FAEA5D6E0E6\n";

static struct server srv;

static void setup(void)
{
	char dir[] = "/tmp/airlock-fuzz-session-XXXXXX", path[64];
	struct config_errors errs = {0};
	struct airlock_config *cfg;
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/pw", dir);
	f = fopen(path, "w");
	if (!f || fputs("backend-secret\n", f) < 0 || fclose(f) != 0)
		abort();
	cfg = config_load_string(conf_text, dir, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "fuzz_session config: %s\n", errs.msg[i]);
	if (!cfg)
		abort();
	srv.base = event_base_new();
	srv.gen = gen_new(cfg);
	if (!srv.base || !srv.gen)
		abort();
	srv.cfg = srv.gen->cfg;
	srv.my_rsa = my_rsa_generate(2048);
	if (!srv.my_rsa)
		abort();
	unlink(path);
	rmdir(dir);
}

static void pump(void)
{
	for (int i = 0; i < 8; i++)
		event_base_loop(srv.base, EVLOOP_NONBLOCK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bufferevent *pair[2];
	size_t piece;

	if (!srv.base)
		setup();
	if (size < 1)
		return 0;
	piece = (size_t)(data[0] >> 1) + 1;
	if (bufferevent_pair_new(srv.base, 0, pair) != 0)
		abort();
	if (!session_attach(&srv, data[0] & 1 ? &my_session_proto : &pg_session_proto, pair[0])) {
		bufferevent_free(pair[1]);
		return 0;
	}
	bufferevent_enable(pair[1], EV_READ | EV_WRITE);
	for (size_t off = 1; off < size; off += piece) {
		size_t n = size - off < piece ? size - off : piece;

		bufferevent_write(pair[1], data + off, n);
		pump();
	}
	/* The client hangs up: whatever the session was doing, it ends. */
	bufferevent_flush(pair[1], EV_WRITE, BEV_FINISHED);
	pump();
	for (struct session *s = srv.sessions; s; s = s->next)
		if (s->st != SESSION_CLOSING)
			__builtin_trap();
	bufferevent_free(pair[1]);
	pump();
	if (srv.sessions)
		session_close_all(&srv);
	pump();
	return 0;
}
