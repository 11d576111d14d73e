/*
 * server_ctl: what changes a running server: reload (SIGHUP and the admin
 * console's RELOAD), pause and resume, and shutdown's drain (SIGTERM and
 * the console's SHUTDOWN). Apart from server.c so that the console, which
 * a protocol's session runs, reaches them without calling into what
 * builds the server.
 */
#include "proxy/server_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "proxy/approvals.h"
#include "proxy/audit.h"
#include "proxy/budget.h"
#include "proxy/gen.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "proxy/policy_check.h"
#include "proxy/server.h"
#include "proxy/session.h"
#include "proxy/timeval.h"
#include "proxy/tls.h"

/* What loads but refuses what it seems to allow: logged, never refused. */
void server_warn_policy(const struct airlock_config *cfg)
{
	struct config_errors w = {0};

	policy_warnings(cfg, &w);
	for (size_t i = 0; i < w.n; i++)
		log_warn("config: %s", w.msg[i]);
}

/* What refused a reload, for the admin console: why may be NULL. */
static void reload_why(char *why, size_t len, const char *text)
{
	if (why && len)
		snprintf(why, len, "%s", text);
}

static void reload_why_append(char *why, size_t len, const char *text)
{
	size_t n = why && len ? strlen(why) : 0;

	if (why && n < len)
		snprintf(why + n, len - n, "%s", text);
}

bool server_reload(struct server *srv, char *why, size_t len)
{
	struct config_errors errs = {0};
	struct airlock_config *cfg = config_load(srv->cfg->path, &errs);
	struct server_gen *gen, *old;
	const char *blocker;
	SSL_CTX *tls = NULL;
	char err[256];

	if (cfg && srv->worker.count > 1 && !config_worker_share(cfg, srv->worker.index)) {
		config_free(cfg);
		cfg = NULL;
	}
	if (!cfg) {
		for (size_t i = 0; i < errs.n; i++)
			log_error("reload: %s", errs.msg[i]);
		log_error("reload refused: the running config stays in force");
		reload_why(why, len, errs.n ? errs.msg[0] : "the config cannot be read");
		return false;
	}
	if (!policy_check(cfg, &errs)) {
		for (size_t i = 0; i < errs.n; i++)
			log_error("reload: %s", errs.msg[i]);
		log_error("reload refused: the running config stays in force");
		reload_why(why, len, errs.n ? errs.msg[0] : "the policy is refused");
		config_free(cfg);
		return false;
	}
	blocker = config_reload_blocker(srv->cfg, cfg);
	if (blocker) {
		log_error("reload refused: %s changed, which needs a restart; the running config stays in force",
			  blocker);
		reload_why(why, len, blocker);
		reload_why_append(why, len, " changed, which needs a restart");
		config_free(cfg);
		return false;
	}
	/* The certificate files are read again, renewed or not; a bad pair refuses the whole reload. */
	if (cfg->tls_cert_file && !(tls = tls_new(cfg->tls_cert_file, cfg->tls_key_file, err, sizeof(err)))) {
		log_error("reload refused: TLS: %s; the running config and certificate stay in force", err);
		reload_why(why, len, err);
		config_free(cfg);
		return false;
	}
	/* The first user that may write brings the store of held writes. */
	if (!srv->approvals && approvals_needed(cfg) &&
	    !(srv->approvals = approvals_open(cfg, srv->worker.count == 1, err, sizeof(err)))) {
		log_error("reload refused: %s; the running config stays in force", err);
		reload_why(why, len, err);
		tls_free(tls);
		config_free(cfg);
		return false;
	}
	server_warn_policy(cfg);
	gen = gen_new(cfg);
	if (!gen || !budgets_sync(&srv->budgets, gen->cfg, monotonic_ns())) {
		if (gen)
			gen_release(gen);
		log_error("reload refused: out of memory");
		reload_why(why, len, "out of memory");
		tls_free(tls);
		return false;
	}
	old = srv->gen;
	srv->gen = gen;
	srv->cfg = gen->cfg;
	/* Sessions already in TLS keep the context they were made with (OpenSSL counts its references). */
	tls_free(srv->tls);
	srv->tls = tls;
	jobs_set_config(srv->jobs, srv->cfg);
	audit_set_config(srv->audit, srv->cfg->checksum_hex);
	gen_release(old);
	if (tls)
		log_info("TLS: %s read again%s", srv->cfg->tls_cert_file,
			 srv->cfg->tls_required ? ", required for every login" : "");
	log_info("reloaded %s: %zu users, %zu targets; sessions already open keep their settings", srv->cfg->path,
		 srv->cfg->nusers, srv->cfg->ntargets);
	return true;
}

/* The grace is over: what still runs is cut off, and the loop ends once the sessions are freed. */
static void server_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;

	log_info("shutdown: %u ms passed; ending the %u statements still running", srv->cfg->shutdown_grace_ms,
		 srv->nsessions);
	session_shutdown_all(srv, true);
	if (srv->nsessions == 0)
		event_base_loopexit(srv->base, NULL);
}

/*
 * SIGTERM / SIGINT: the listeners close and the warm runners go at once;
 * idle sessions are told and closed; running statements have
 * shutdown_grace_ms to finish (their sessions close as they do). A second
 * signal ends everything now.
 */
static void server_drain(struct server *srv)
{
	uint32_t ms = srv->cfg->shutdown_grace_ms;
	struct timeval tv = ms_timeval(ms);

	srv->stopping = true;
	for (size_t i = 0; i < sizeof(srv->listeners) / sizeof(srv->listeners[0]); i++) {
		if (srv->listeners[i].lst)
			evconnlistener_free(srv->listeners[i].lst);
		srv->listeners[i].lst = NULL;
	}
	if (srv->jobs)
		jobs_stop_pool(srv->jobs);
	session_shutdown_all(srv, ms == 0);
	log_info("shutdown: not accepting; %u sessions left, running statements get %u ms", srv->nsessions, ms);
	if (srv->nsessions == 0) {
		event_base_loopexit(srv->base, NULL);
		return;
	}
	srv->drain = evtimer_new(srv->base, server_drain_cb, srv);
	if (!srv->drain) {
		session_shutdown_all(srv, true);
		event_base_loopexit(srv->base, NULL);
		return;
	}
	evtimer_add(srv->drain, &tv);
}

void server_resume(struct server *srv)
{
	srv->paused = false;
	session_resume_all(srv);
}

void server_shutdown(struct server *srv)
{
	if (srv->stopping) {
		log_info("shutdown asked again: stopping now");
		event_base_loopexit(srv->base, NULL);
		return;
	}
	server_drain(srv);
}

void server_tell_workers(struct server *srv, char what)
{
	char msg[2] = {SERVER_TELL_MARK, what};

	if (srv->worker.count <= 1)
		return;
	while (send(srv->worker.control_fd, msg, sizeof(msg), MSG_NOSIGNAL) < 0) {
		if (errno != EINTR) {
			log_warn("the other workers were not told (%s): the supervisor is gone", strerror(errno));
			return;
		}
	}
}
