/*
 * ops_page: the operator's page, on the approval listener for admin
 * accounts ([admin NAME]; approval_web.c routes and guards it): this
 * node's figures now (SHOW STATS), its last hour as charts drawn from
 * srv->ops (ops_history.h: statements by decision, refusals by check,
 * latency by phase, sessions, jobs, ready runners and the queue), and the
 * console's tables (sessions, pools, jobs, users, config) through
 * admin_show, so the page and the console cannot disagree. It reloads
 * itself every OPS_PAGE_REFRESH_S seconds; it has no script.
 */
#ifndef AIRLOCK_PROXY_OPS_PAGE_H
#define AIRLOCK_PROXY_OPS_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#define OPS_PAGE_REFRESH_S 30

struct server;
struct wbuf;

/* What is live now into srv->ops (the server samples it every few seconds, the page before it draws). */
void ops_sample(struct server *srv, int64_t now_s);
/* The page for admin who, its logout form carrying csrf; false when it could not be built. */
bool ops_page_render(struct wbuf *w, struct server *srv, const char *who, const char *csrf, int64_t now_s);

#endif
