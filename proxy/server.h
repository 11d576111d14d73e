/*
 * server: the process-wide state of airlockd: the event loop, the loaded
 * config, the launcher, the job manager, the audit log, the listeners and
 * the registry of live sessions (for connection limits and CancelRequest).
 * One struct server per process; it owns everything it points to.
 *
 * The config lives in generations: SIGHUP loads the file again and, when it
 * is valid, makes a new generation current. Each session holds the
 * generation it logged in under (its user, target and per-user counters
 * live there) until it ends; a generation is freed when nothing holds it.
 */
#ifndef AIRLOCK_PROXY_SERVER_H
#define AIRLOCK_PROXY_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "conf/config.h"

struct event_base;
struct evdns_base;
struct evconnlistener;
struct launcher;
struct jobs;
struct audit;
struct pg_session;
struct my_session;
struct my_rsa;

/* One loaded config and the per-user counters of the sessions under it. */
struct server_gen {
	struct airlock_config *cfg; /* owned */
	unsigned *user_sessions;    /* per cfg->users index */
	unsigned *user_jobs;        /* per cfg->users index: running jobs, cursors included */
	/* caching_sha2_password's fast-path cache, per cfg->users index: SHA256(SHA256(password)),
	 * filled by a successful full authentication and valid for this generation only. */
	uint8_t (*my_sha2_cache)[32];
	bool *my_sha2_valid;
	size_t cfg_nusers;          /* entries in the per-user arrays */
	unsigned refs;              /* the server (while current) and each session */
};

struct server {
	struct event_base *base;
	struct evdns_base *dns;
	const struct airlock_config *cfg; /* gen->cfg */
	struct server_gen *gen;           /* the current generation */
	struct launcher *launcher;
	struct jobs *jobs;
	struct audit *audit;
	struct evconnlistener *pg_listener;
	struct evconnlistener *my_listener; /* NULL without mysql_listen */
	struct my_rsa *my_rsa;              /* caching_sha2_password's key pair, made at start-up */
	time_t started;
	struct event *sigint;
	struct event *sigterm;
	struct event *sighup;

	unsigned nsessions;             /* Postgres and MySQL sessions together */
	struct pg_session *sessions;    /* doubly linked through the sessions */
	struct my_session *my_sessions; /* likewise */
};

/*
 * Builds the server and binds its listeners; takes ownership of cfg (even
 * on failure). path is where SIGHUP reloads it from. Returns -1 with a
 * message on stderr.
 */
int server_init(struct server *srv, const char *path, struct airlock_config *cfg);
/* Runs the loop until SIGINT/SIGTERM. */
int server_run(struct server *srv);
void server_fini(struct server *srv);

/* The current generation, with a reference for the caller. */
struct server_gen *server_gen_hold(struct server *srv);
/* Drops a reference; frees the generation when it was the last and it is not current. */
void server_gen_release(struct server *srv, struct server_gen *gen);
/* Index of u in gen->cfg->users. */
size_t server_gen_user_index(const struct server_gen *gen, const struct airlock_user *u);
/* SIGHUP: load the config file again and make it current if it is valid. */
void server_reload(struct server *srv);

#endif
