/*
 * config_peers: the checks [server] peer_id and peers need together, and
 * finding one peer's address. An entry was checked and normalised when it
 * was stored (config_store.c): ID=ADDRESS:PORT, the address an IP literal
 * ([IPv6] in brackets).
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void conf_finish_peers(struct conf_ctx *ctx)
{
	const struct airlock_config *cfg = ctx->cfg;
	unsigned line = conf_key_line(SECT_SERVER, &ctx->server_seen, "peers");
	bool seen[256] = {false};

	if (cfg->peer_secret && strlen(cfg->peer_secret) < 16)
		conf_err(ctx, conf_key_line(SECT_SERVER, &ctx->server_seen, "peer_secret_file"),
			 "[server] peer_secret_file holds a key of %zu bytes; expected at least 16 (e.g. openssl rand "
			 "-hex 32)",
			 strlen(cfg->peer_secret));
	if (cfg->npeers && !cfg->peer_id) {
		conf_err(ctx, line,
			 "[server] peers needs peer_id: this node's own id (1 to 255), which its cancel keys carry");
		return;
	}
	for (size_t i = 0; i < cfg->npeers; i++) {
		uint32_t id;
		uint16_t port;
		char *host = NULL;

		if (conf_parse_peer(cfg->peers[i], &id, &host, &port) < 0)
			continue; /* refused when stored */
		free(host);
		if (id == cfg->peer_id)
			conf_err(ctx, line,
				 "[server] peers lists %u, which is this node's own peer_id; list the others", id);
		else if (seen[id])
			conf_err(ctx, line, "[server] peers lists id %u twice; each node has one id", id);
		seen[id] = true;
	}
}

bool config_peer_at(const struct airlock_config *cfg, size_t i, uint32_t *id, char *host, size_t hostlen,
		    uint16_t *port)
{
	char *h = NULL;
	bool ok;

	if (!cfg || i >= cfg->npeers || conf_parse_peer(cfg->peers[i], id, &h, port) < 0)
		return false;
	ok = strlen(h) < hostlen;
	if (ok)
		memcpy(host, h, strlen(h) + 1);
	free(h);
	return ok;
}

bool config_peer(const struct airlock_config *cfg, uint32_t id, char *host, size_t hostlen, uint16_t *port)
{
	for (size_t i = 0; cfg && i < cfg->npeers; i++) {
		uint32_t pid;
		uint16_t p;

		if (config_peer_at(cfg, i, &pid, host, hostlen, &p) && pid == id) {
			*port = p;
			return true;
		}
	}
	return false;
}
