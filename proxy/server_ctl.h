/*
 * server_ctl: what changes a running server (proxy/server.h's struct
 * server): reload, the admin console's pause and resume, and shutdown.
 */
#ifndef AIRLOCK_PROXY_SERVER_CTL_H
#define AIRLOCK_PROXY_SERVER_CTL_H

#include <stdbool.h>
#include <stddef.h>

struct airlock_config;
struct server;

/*
 * SIGHUP (and the admin console's RELOAD): load the config file again and
 * make it current if it is valid. false when refused (the reasons are
 * logged); then why (len bytes, may be NULL) holds the first.
 */
bool server_reload(struct server *srv, char *why, size_t len);
/* SIGTERM (and the admin console's SHUTDOWN): drain and stop; a second call stops now. */
void server_shutdown(struct server *srv);
/* The admin console's RESUME: client sessions read the statements that waited. */
void server_resume(struct server *srv);

/* What loads but refuses what it seems to allow: logged, never refused. */
void server_warn_policy(const struct airlock_config *cfg);

#endif
