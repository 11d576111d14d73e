/*
 * metrics_http: the metrics listener (metrics_listen), plain HTTP through
 * libevent's evhttp. GET /metrics answers the Prometheus text exposition
 * of srv->stats (stats.h), its gauges sampled from the server first.
 * GET /health is a load balancer's check: 200 "ok", or 503 "paused" (the
 * console's PAUSE) or "stopping" (SIGTERM, SHUTDOWN), so new clients go
 * to another node. Every other path is 404 and every method but GET and HEAD 501. No
 * request may carry a body (413), headers are capped and an idle connection is
 * closed after a few seconds. It serves no secret and takes no input but
 * the request line, so it has no login: bind it where only the scraper
 * reaches it.
 */
#ifndef AIRLOCK_PROXY_METRICS_HTTP_H
#define AIRLOCK_PROXY_METRICS_HTTP_H

#include <stddef.h>

struct server;
struct metrics_http;

/* Binds cfg's metrics_listen; NULL with the reason in err. The caller frees it with metrics_http_free. */
struct metrics_http *metrics_http_new(struct server *srv, char *err, size_t errlen);
void metrics_http_free(struct metrics_http *h);

#endif
