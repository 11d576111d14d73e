/*
 * metrics_http: the metrics listener (see metrics_http.h).
 */
#define _GNU_SOURCE
#include "proxy/metrics_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "base/wbuf.h"
#include "approval/approval_store.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "proxy/server.h"
#include "proxy/session.h"
#include "proxy/stats.h"
#include "proxy/timeval.h"
#include "proxy/validator_pool.h"

#define MAX_HEADERS (8 * 1024)
#define TIMEOUT_SEC 10
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct server *srv; /* borrowed: owns this listener */
	struct evhttp *http;
};

/* The budgets of the users the config in force has, those with a budget at all. */
static void sample_budgets(struct server *srv)
{
	uint64_t now = monotonic_ns();

	stats_budgets_clear(srv->stats);
	for (size_t i = 0; i < srv->cfg->nusers; i++) {
		struct budget *b = budgets_find(&srv->budgets, srv->cfg->users[i].name);

		if (!b)
			continue;
		budget_refill(b, now);
		for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++)
			if (b->amount[k])
				stats_budget(srv->stats, b->user, budget_name((enum airlock_budget_kind)k),
					     (double)b->amount[k], b->level[k]);
	}
}

/* The gauges and the counts kept elsewhere, as they are now. */
static void sample(struct server *srv)
{
	uint64_t calls = 0, failures = 0, started = 0;

	for (size_t i = 0; i < sizeof(srv->listeners) / sizeof(srv->listeners[0]); i++) {
		const struct session_proto *proto = srv->listeners[i].proto;
		unsigned in = 0, on = 0;

		if (!proto)
			continue;
		for (const struct session *s = srv->sessions; s; s = s->next) {
			if (s->proto != proto)
				continue;
			if (s->st == SESSION_AUTH)
				in++;
			else if (s->st == SESSION_READY || s->st == SESSION_BUSY)
				on++;
		}
		stats_sessions(srv->stats, proto->name, in, on);
	}
	stats_jobs_live(srv->stats, srv->jobs ? jobs_live(srv->jobs) : 0);
	stats_config(srv->stats, srv->cfg->checksum_hex);
	if (srv->approvals)
		stats_store(srv->stats, srv->approvals->failures);
	stats_targets_clear(srv->stats);
	for (size_t i = 0; srv->jobs && i < srv->cfg->ntargets; i++) {
		const struct airlock_target *t = &srv->cfg->targets[i];
		struct jobs_target_counts c;

		jobs_target_counts(srv->jobs, t->name, &c);
		stats_target(srv->stats, t->name, c.connections, t->max_db_connections, c.ready, c.busy, c.starting,
			     c.waiting);
		stats_target_kept(srv->stats, t->name, c.kept);
	}
	if (srv->jobs)
		stats_queue(srv->stats, jobs_queue_len(srv->jobs));
	sample_budgets(srv);
	if (srv->validators) {
		vpool_counts(srv->validators, &calls, &failures, &started);
		stats_validator(srv->stats, calls, failures, started);
	}
}

static void reply_text(struct evhttp_request *req, int status, const char *reason, const void *body, size_t len)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(out, "Content-Type", CONTENT_TYPE);
	evhttp_add_header(out, "Cache-Control", "no-store");
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	if (buf && len)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, status, reason, buf);
	if (buf)
		evbuffer_free(buf);
}

static void handle(struct evhttp_request *req, void *arg)
{
	struct metrics_http *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct wbuf w;

	/* A load balancer's check: a paused or draining node answers 503, so new clients go elsewhere. */
	if (path && strcmp(path, "/health") == 0) {
		if (h->srv->stopping)
			reply_text(req, 503, "Service Unavailable", "stopping\n", 9);
		else if (h->srv->paused)
			reply_text(req, 503, "Service Unavailable", "paused\n", 7);
		else
			reply_text(req, 200, "OK", "ok\n", 3);
		return;
	}
	if (!path || strcmp(path, "/metrics") != 0) {
		reply_text(req, 404, "Not Found", "not found\n", 10);
		return;
	}
	wbuf_init(&w);
	sample(h->srv);
	if (!stats_render(h->srv->stats, &w)) {
		wbuf_free(&w);
		reply_text(req, 500, "Internal Server Error", "out of memory\n", 14);
		return;
	}
	reply_text(req, 200, "OK", w.data, w.len);
	wbuf_free(&w);
}

struct metrics_http *metrics_http_new(struct server *srv, char *err, size_t errlen)
{
	const struct airlock_config *cfg = srv->cfg;
	struct metrics_http *h = calloc(1, sizeof(*h));

	if (!h || !(h->http = evhttp_new(srv->base))) {
		snprintf(err, errlen, "out of memory");
		free(h);
		return NULL;
	}
	h->srv = srv;
	/* A scrape is a bodiless GET: any body is refused (413) before it is read. */
	evhttp_set_max_body_size(h->http, 0);
	evhttp_set_max_headers_size(h->http, MAX_HEADERS);
	evhttp_set_timeout(h->http, TIMEOUT_SEC);
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(h->http, handle, h);
	if (!evhttp_bind_socket_with_handle(h->http, cfg->metrics_listen_host, cfg->metrics_listen_port)) {
		snprintf(err, errlen, "cannot listen on %s:%u", cfg->metrics_listen_host, cfg->metrics_listen_port);
		metrics_http_free(h);
		return NULL;
	}
	log_info("serving metrics (HTTP) on %s:%u/metrics", cfg->metrics_listen_host, cfg->metrics_listen_port);
	return h;
}

void metrics_http_free(struct metrics_http *h)
{
	if (!h)
		return;
	if (h->http)
		evhttp_free(h->http);
	free(h);
}
