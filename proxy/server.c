/*
 * server: process-wide set-up, the Postgres listener, signals.
 */
#define _GNU_SOURCE
#include "proxy/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "proxy/audit.h"
#include "proxy/job.h"
#include "proxy/log.h"
#include "proxy/pg_session.h"
#include "runner/launcher.h"

size_t server_user_index(const struct server *srv, const struct airlock_user *u)
{
	return (size_t)(u - srv->cfg->users);
}

static void server_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen,
			     void *arg)
{
	pg_session_accept(arg, fd);
}

static void server_accept_error_cb(struct evconnlistener *lst, void *arg)
{
	int err = EVUTIL_SOCKET_ERROR();

	/* Out of descriptors and friends: keep serving the connections we have. */
	log_warn("accept failed: %s", evutil_socket_error_to_string(err));
}

static void server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	log_info("signal %d: shutting down", (int)sig);
	event_base_loopexit(srv->base, NULL);
}

static int server_listen(struct server *srv)
{
	struct evutil_addrinfo hints = {0}, *ai = NULL;
	char port[8];
	int rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%u", srv->cfg->pg_listen_port);
	rc = evutil_getaddrinfo(srv->cfg->pg_listen_host, port, &hints, &ai);
	if (rc != 0) {
		log_error("pg_listen %s: %s", srv->cfg->pg_listen_host, evutil_gai_strerror(rc));
		return -1;
	}
	srv->pg_listener = evconnlistener_new_bind(srv->base, server_accept_cb, srv,
						   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
						   512, ai->ai_addr, (int)ai->ai_addrlen);
	evutil_freeaddrinfo(ai);
	if (!srv->pg_listener) {
		log_error("cannot listen on %s:%u: %s", srv->cfg->pg_listen_host, srv->cfg->pg_listen_port,
			  strerror(errno));
		return -1;
	}
	evconnlistener_set_error_cb(srv->pg_listener, server_accept_error_cb);
	return 0;
}

int server_init(struct server *srv, const struct airlock_config *cfg)
{
	char err[256];
	int swept;

	memset(srv, 0, sizeof(*srv));
	srv->cfg = cfg;
	signal(SIGPIPE, SIG_IGN);
	if (mkdir(cfg->job_dir, 0700) < 0 && errno != EEXIST) {
		log_error("job_dir %s: %s", cfg->job_dir, strerror(errno));
		return -1;
	}
	swept = jobs_sweep_dir(cfg->job_dir);
	if (swept > 0)
		log_info("removed %d job directories left from an earlier run", swept);
	/* Fail closed but keep serving: the engine may come back later. */
	if (launcher_ping_sync(cfg->docker_socket, 3000, err, sizeof(err)) < 0) {
		log_warn("DOCKER_UNAVAILABLE: %s; statements will fail until the engine is reachable", err);
	} else {
		if (launcher_image_present_sync(cfg->docker_socket, cfg->runner_image, 3000, err, sizeof(err)) < 0)
			log_warn("IMAGE_UNAVAILABLE: %s", err);
		swept = launcher_sweep_sync(cfg->docker_socket, cfg->job_dir, 10000);
		if (swept > 0)
			log_info("removed %d runner containers left from an earlier run", swept);
	}
	srv->base = event_base_new();
	if (!srv->base)
		return -1;
	srv->dns = evdns_base_new(srv->base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	if (!srv->dns)
		srv->dns = evdns_base_new(srv->base, 0);
	srv->launcher = launcher_new(srv->base, cfg->docker_socket);
	srv->jobs = srv->launcher ? jobs_new(srv->base, srv->dns, srv->launcher, cfg) : NULL;
	if (srv->jobs && cfg->pool_size > 0)
		jobs_start_pool(srv->jobs);
	srv->audit = audit_open(cfg->audit_log);
	srv->user_sessions = calloc(cfg->nusers ? cfg->nusers : 1, sizeof(*srv->user_sessions));
	srv->user_jobs = calloc(cfg->nusers ? cfg->nusers : 1, sizeof(*srv->user_jobs));
	if (!srv->dns || !srv->jobs || !srv->user_sessions || !srv->user_jobs) {
		log_error("out of memory");
		return -1;
	}
	if (!srv->audit) {
		log_error("audit_log %s: %s", cfg->audit_log, strerror(errno));
		return -1;
	}
	if (server_listen(srv) < 0)
		return -1;
	srv->sigint = evsignal_new(srv->base, SIGINT, server_signal_cb, srv);
	srv->sigterm = evsignal_new(srv->base, SIGTERM, server_signal_cb, srv);
	event_add(srv->sigint, NULL);
	event_add(srv->sigterm, NULL);
	log_info("listening for Postgres clients on %s:%u", cfg->pg_listen_host, cfg->pg_listen_port);
	return 0;
}

int server_run(struct server *srv)
{
	return event_base_dispatch(srv->base) < 0 ? -1 : 0;
}

void server_fini(struct server *srv)
{
	if (srv->pg_listener)
		evconnlistener_free(srv->pg_listener);
	pg_session_close_all(srv);
	/* Removes every container still alive, then job directories go with the jobs. */
	if (srv->launcher)
		launcher_free(srv->launcher);
	if (srv->jobs)
		jobs_free(srv->jobs);
	if (srv->sigint)
		event_free(srv->sigint);
	if (srv->sigterm)
		event_free(srv->sigterm);
	if (srv->dns)
		evdns_base_free(srv->dns, 0);
	audit_close(srv->audit);
	free(srv->user_sessions);
	free(srv->user_jobs);
	if (srv->base)
		event_base_free(srv->base);
}
