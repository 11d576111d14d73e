#define _GNU_SOURCE
#include "proxy/approval_login.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event2/http.h>
#include <openssl/crypto.h>

#include "conf/config.h"
#include "protocol/scram.h"
#include "proxy/audit.h"
#include "proxy/login_guard.h"
#include "proxy/server.h"
#include "proxy/timeval.h"

/* The client's address bytes (addr, *len 4 or 16) and text. */
static void client_of(struct evhttp_request *req, uint8_t *addr, size_t *len, char *text, size_t textlen)
{
	const char *host = NULL;
	ev_uint16_t port = 0;
	struct evhttp_connection *c = evhttp_request_get_connection(req);

	*len = 0;
	text[0] = '\0';
	if (c)
		evhttp_connection_get_peer(c, (char **)&host, &port);
	if (!host)
		return;
	snprintf(text, textlen, "%s", host);
	if (inet_pton(AF_INET, host, addr) == 1)
		*len = 4;
	else if (inet_pton(AF_INET6, host, addr) == 1)
		*len = 16;
}

/* The password matches the verifier (NULL: no account, never a match). */
static bool password_ok(const char *scram, const char *password)
{
	struct scram_verifier want, got;
	char made[256];
	bool ok;

	if (!scram || scram_parse_verifier(scram, &want) < 0)
		return false;
	if (scram_make_verifier(password, want.salt, want.salt_len, want.iterations, made, sizeof(made)) < 0 ||
	    scram_parse_verifier(made, &got) < 0)
		return false;
	ok = CRYPTO_memcmp(want.stored_key, got.stored_key, SCRAM_KEY_LEN) == 0;
	explicit_bzero(made, sizeof(made));
	explicit_bzero(&got, sizeof(got));
	return ok;
}

const struct airlock_approver *approval_login_find(const struct airlock_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->napprovers; i++)
		if (strcmp(cfg->approvers[i].name, name) == 0)
			return &cfg->approvers[i];
	return NULL;
}

/*
 * The account name names among approvers (and, with admins, [admin NAME]s
 * after them) whose verifier password matches, under the login guard;
 * false otherwise, with *wait_ms the wait due.
 */
static bool check(struct server *srv, struct evhttp_request *req, const char *name, const char *password, bool admins,
		  uint32_t *wait_ms, struct web_account *out)
{
	const struct airlock_config *cfg = srv->cfg;
	struct login_guard_cfg gc = {cfg->login_free_failures, cfg->login_delay_ms, cfg->login_delay_max_ms,
				     cfg->login_failure_window_ms};
	uint64_t now = (uint64_t)monotonic_ms();
	const struct airlock_approver *a = approval_login_find(cfg, name);
	const struct airlock_admin *ad = admins ? config_find_admin(cfg, name) : NULL;
	bool ok = false;
	uint8_t addr[16];
	size_t addrlen;
	char client[64];
	uint32_t wait;

	client_of(req, addr, &addrlen, client, sizeof(client));
	wait = srv->guard ? login_guard_wait(srv->guard, &gc, addr, addrlen, name, now) : 0;
	if (a && password_ok(a->scram, password)) {
		*out = (struct web_account){a->name, a->scram, false};
		ok = true;
	} else if (ad && password_ok(ad->scram, password)) {
		*out = (struct web_account){ad->name, ad->scram, true};
		ok = true;
	}
	if (!ok && srv->guard)
		login_guard_failed(srv->guard, &gc, addr, addrlen, name, now);
	else if (srv->guard)
		login_guard_passed(srv->guard, name);
	if (!ok)
		audit_login_failed(srv->audit, name, 0, "https", client, "401", wait);
	*wait_ms = wait;
	/* Right or wrong, a due wait refuses: only the wait is told. */
	return ok && !wait;
}

const struct airlock_approver *approval_login(struct server *srv, struct evhttp_request *req, const char *name,
					      const char *password, uint32_t *wait_ms)
{
	struct web_account acct;

	return check(srv, req, name, password, false, wait_ms, &acct) ? approval_login_find(srv->cfg, acct.name) : NULL;
}

bool approval_login_web(struct server *srv, struct evhttp_request *req, const char *name, const char *password,
			uint32_t *wait_ms, struct web_account *out)
{
	return check(srv, req, name, password, true, wait_ms, out);
}
