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

/*
 * workers = N: what the console did on this worker, asked of every other
 * through the supervisor (proxy/supervisor.h): SERVER_TELL_RELOAD,
 * _PAUSE, _RESUME or _SHUTDOWN. Nothing with one process.
 */
#define SERVER_TELL_RELOAD 'R'
#define SERVER_TELL_PAUSE 'P'
#define SERVER_TELL_RESUME 'U'
#define SERVER_TELL_SHUTDOWN 'S'
#define SERVER_TELL_MARK '!' /* a control message's first byte; an audit record's is '{' */
void server_tell_workers(struct server *srv, char what);

/* What loads but refuses what it seems to allow: logged, never refused. */
void server_warn_policy(const struct airlock_config *cfg);

#endif
