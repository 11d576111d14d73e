/*
 * server: the process-wide state of airlockd: the event loop, the loaded
 * config, the launcher, the job manager, the audit log, the listeners and
 * the registry of live sessions (for connection limits and CancelRequest).
 * One struct server per process; it owns everything it points to except
 * the config, which the caller owns and keeps alive while the server runs.
 */
#ifndef AIRLOCK_PROXY_SERVER_H
#define AIRLOCK_PROXY_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"

struct event_base;
struct evdns_base;
struct evconnlistener;
struct launcher;
struct jobs;
struct audit;
struct pg_session;

struct server {
	struct event_base *base;
	struct evdns_base *dns;
	const struct airlock_config *cfg;
	struct launcher *launcher;
	struct jobs *jobs;
	struct audit *audit;
	struct evconnlistener *pg_listener;
	struct event *sigint;
	struct event *sigterm;

	unsigned nsessions;
	unsigned *user_sessions; /* per cfg->users index */
	unsigned *user_jobs;     /* per cfg->users index: running jobs, cursors included */
	struct pg_session *sessions; /* doubly linked through the sessions */
};

/* Builds the server and binds its listeners. Returns -1 with a message on stderr. */
int server_init(struct server *srv, const struct airlock_config *cfg);
/* Runs the loop until SIGINT/SIGTERM. */
int server_run(struct server *srv);
void server_fini(struct server *srv);

/* Index of u in cfg->users. */
size_t server_user_index(const struct server *srv, const struct airlock_user *u);

#endif
