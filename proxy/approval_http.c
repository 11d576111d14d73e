#define _GNU_SOURCE
#include "proxy/approval_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "approval/approval_json.h"
#include "approval/approval_store.h"
#include "base/wbuf.h"
#include "proxy/approval_decide.h"
#include "proxy/approval_login.h"
#include "proxy/approval_web.h"
#include "proxy/approvals.h"
#include "proxy/log.h"
#include "proxy/server.h"
#include "proxy/timeval.h"

#define API_PREFIX "/api/approvals"
#define MAX_BODY (64 * 1024)
#define MAX_HEADERS (16 * 1024)
#define LIST_MAX 500

struct approval_http {
	struct server *srv;
	struct evhttp *http;
	struct approval_web *web; /* owned: the page's sessions */
};

static struct bufferevent *tls_bev(struct event_base *base, void *arg)
{
	struct approval_http *h = arg;
	SSL *ssl = h->srv->tls ? SSL_new(h->srv->tls) : NULL;
	struct bufferevent *bev;

	if (!ssl)
		return NULL;
	bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		SSL_free(ssl);
	else
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

/* Sends body (JSON, len bytes) with status and the headers every answer has. */
static void reply(struct evhttp_request *req, int status, const char *body, size_t len)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(out, "Content-Type", "application/json; charset=utf-8");
	evhttp_add_header(out, "Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(out, "Cache-Control", "no-store");
	evhttp_add_header(out, "Referrer-Policy", "no-referrer");
	if (buf)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, status, NULL, buf);
	if (buf)
		evbuffer_free(buf);
}

static void reply_error(struct evhttp_request *req, int status, const char *message)
{
	json_t *o = json_pack("{s:s}", "error", message);
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_ESCAPE_SLASH) : NULL;

	reply(req, status, text ? text : "{}", text ? strlen(text) : 2);
	free(text);
	json_decref(o);
}

/*
 * The approver the request's Basic credentials name, when its password is
 * right; else NULL with the answer sent (401, or 429 while its address or
 * name must wait). name receives the approver's name.
 */
static const struct airlock_approver *authenticate(struct approval_http *h, struct evhttp_request *req, char *name,
						   size_t namelen)
{
	const char *auth = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	unsigned char decoded[512];
	size_t n;
	char *colon, retry[16];
	const struct airlock_approver *a;
	uint32_t wait;
	int len;

	name[0] = '\0';
	if (!auth || strncasecmp(auth, "Basic ", 6) != 0 || (n = strlen(auth + 6)) == 0 || n > 4 * 120 ||
	    (len = EVP_DecodeBlock(decoded, (const unsigned char *)auth + 6, (int)n)) <= 0) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
				  "Basic realm=\"airlock approvals\", charset=\"UTF-8\"");
		reply_error(req, 401, "log in with an approver's name and password");
		return NULL;
	}
	/* EVP_DecodeBlock counts the padding's zero bytes too. */
	while (len > 0 && decoded[len - 1] == '\0' && auth[6 + n - 1] == '=')
		len--, n--;
	decoded[len] = '\0';
	colon = memchr(decoded, ':', (size_t)len);
	if (!colon || memchr(decoded, '\0', (size_t)len)) {
		reply_error(req, 401, "log in with an approver's name and password");
		explicit_bzero(decoded, sizeof(decoded));
		return NULL;
	}
	*colon = '\0';
	/* A name longer than any approver's is refused whole, never matched cut. */
	if ((size_t)(colon - (char *)decoded) >= namelen) {
		explicit_bzero(decoded, sizeof(decoded));
		reply_error(req, 401, "wrong approver name or password");
		return NULL;
	}
	memcpy(name, decoded, (size_t)(colon - (char *)decoded) + 1);
	a = approval_login(h->srv, req, name, colon + 1, &wait);
	explicit_bzero(decoded, sizeof(decoded));
	if (wait) {
		snprintf(retry, sizeof(retry), "%u", (wait + 999) / 1000);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", retry);
		reply_error(req, 429, "too many failed logins from this address or for this name: try again later");
		return NULL;
	}
	if (!a) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
				  "Basic realm=\"airlock approvals\", charset=\"UTF-8\"");
		reply_error(req, 401, "wrong approver name or password");
	}
	return a;
}

static void send_record(struct approval_http *h, struct evhttp_request *req, const char *id, int status)
{
	struct approval_store *st = h->srv->approvals;
	struct approval a = {0};
	struct wbuf w;

	if (st->ops->get(st, id, &a) != APPROVAL_OK) {
		approval_free(&a);
		reply_error(req, 404, "no such approval");
		return;
	}
	wbuf_init(&w);
	approval_json_record(&w, &a);
	approval_free(&a);
	if (w.failed)
		reply_error(req, 500, "out of memory");
	else
		reply(req, status, (const char *)w.data, w.len);
	wbuf_free(&w);
}

static void list(struct approval_http *h, struct evhttp_request *req, const char *query)
{
	struct approval_store *st = h->srv->approvals;
	enum approval_status status = APPROVAL_PENDING;
	struct evkeyvalq q = {0};
	const char *want;
	struct wbuf w;

	if (query && evhttp_parse_query_str(query, &q) == 0 && (want = evhttp_find_header(&q, "status")) &&
	    !approval_status_parse(want, &status)) {
		evhttp_clear_headers(&q);
		reply_error(req, 400, "unknown status");
		return;
	}
	evhttp_clear_headers(&q);
	approvals_expire(st, h->srv->audit, wall_ms());
	wbuf_init(&w);
	if (approval_json_list(st, status, LIST_MAX, &w) != APPROVAL_OK || w.failed)
		reply_error(req, 500, "the store of held writes failed");
	else
		reply(req, 200, (const char *)w.data, w.len);
	wbuf_free(&w);
}

/* The request's JSON body's "reason" (heap; "" when none); NULL with the answer sent when it is malformed. */
static char *reason_of(struct evhttp_request *req)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	const char *type = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
	size_t len = evbuffer_get_length(in);
	json_t *o = NULL, *r;
	char *body, *out = NULL;

	/* No cross-site form can send this type: a browser asks first, and nothing here answers yes. */
	if (!type || strncasecmp(type, "application/json", 16) != 0) {
		reply_error(req, 415, "send the decision as application/json");
		return NULL;
	}
	body = malloc(len + 1);
	if (!body) {
		reply_error(req, 500, "out of memory");
		return NULL;
	}
	evbuffer_copyout(in, body, len);
	body[len] = '\0';
	o = len ? json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL) : json_object();
	free(body);
	r = json_object_get(o, "reason");
	if (!json_is_object(o) || (r && !json_is_string(r)) ||
	    (r && (json_string_length(r) > APPROVAL_MAX_REASON ||
		   memchr(json_string_value(r), '\0', json_string_length(r))))) {
		reply_error(req, 400, "the body is {\"reason\": \"...\"}, a reason of at most 1024 bytes");
	} else if (!(out = strdup(r ? json_string_value(r) : ""))) {
		reply_error(req, 500, "out of memory");
	}
	json_decref(o);
	return out;
}

static void decide(struct approval_http *h, struct evhttp_request *req, const char *id, bool approve,
		   const char *approver)
{
	char *reason = reason_of(req);

	if (!reason)
		return;
	if (!approve && !reason[0]) {
		free(reason);
		reply_error(req, 400, "a rejection needs a reason");
		return;
	}
	switch (approval_decide(h->srv, id, approve, approver, reason)) {
	case APPROVAL_OK:
		send_record(h, req, id, 200);
		break;
	case APPROVAL_NOT_FOUND:
		reply_error(req, 404, "no such approval");
		break;
	case APPROVAL_CONFLICT:
		reply_error(req, 409, "the write is no longer pending (decided, expired, or approved by you already)");
		break;
	default:
		reply_error(req, 500, "the store of held writes failed");
		break;
	}
	free(reason);
}

static void handle(struct evhttp_request *req, void *arg)
{
	struct approval_http *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	char name[APPROVAL_MAX_NAME + 1], id[APPROVAL_ID_LEN + 1];
	const char *rest;
	size_t idlen;

	if (!h->srv->approvals) {
		reply_error(req, 503, "no user may write: there are no held writes");
		return;
	}
	if (!path) {
		reply_error(req, 404, "not found");
		return;
	}
	/* Everything outside /api/ is the page, for people in a browser. */
	if (strncmp(path, "/api/", 5) != 0 && strcmp(path, "/api") != 0) {
		approval_web_handle(h->web, req, path);
		return;
	}
	if (strncmp(path, API_PREFIX, sizeof(API_PREFIX) - 1) != 0) {
		reply_error(req, 404, "not found");
		return;
	}
	if (!authenticate(h, req, name, sizeof(name)))
		return;
	rest = path + sizeof(API_PREFIX) - 1;
	if (rest[0] == '\0' || (rest[0] == '/' && rest[1] == '\0')) {
		if (cmd != EVHTTP_REQ_GET) {
			reply_error(req, 405, "GET the list");
			return;
		}
		list(h, req, evhttp_uri_get_query(uri));
		return;
	}
	idlen = rest[0] == '/' ? strcspn(rest + 1, "/") : 0;
	if (idlen != APPROVAL_ID_LEN) {
		reply_error(req, 404, "no such approval");
		return;
	}
	memcpy(id, rest + 1, APPROVAL_ID_LEN);
	id[APPROVAL_ID_LEN] = '\0';
	if (!approval_id_valid(id)) {
		reply_error(req, 404, "no such approval");
		return;
	}
	rest += 1 + APPROVAL_ID_LEN;
	if (rest[0] == '\0' && cmd == EVHTTP_REQ_GET)
		send_record(h, req, id, 200);
	else if (cmd == EVHTTP_REQ_POST && (!strcmp(rest, "/approve") || !strcmp(rest, "/reject")))
		decide(h, req, id, !strcmp(rest, "/approve"), name);
	else
		reply_error(req, rest[0] ? 404 : 405, rest[0] ? "not found" : "GET the record");
}

struct approval_http *approval_http_new(struct server *srv, char *err, size_t errlen)
{
	const struct airlock_config *cfg = srv->cfg;
	struct approval_http *h = calloc(1, sizeof(*h));

	if (!h || !(h->http = evhttp_new(srv->base))) {
		snprintf(err, errlen, "out of memory");
		free(h);
		return NULL;
	}
	h->srv = srv;
	if (!(h->web = approval_web_new(srv))) {
		snprintf(err, errlen, "out of memory");
		approval_http_free(h);
		return NULL;
	}
	evhttp_set_bevcb(h->http, tls_bev, h);
	evhttp_set_max_body_size(h->http, MAX_BODY);
	evhttp_set_max_headers_size(h->http, MAX_HEADERS);
	evhttp_set_timeout(h->http, 30);
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
	evhttp_set_gencb(h->http, handle, h);
	if (!evhttp_bind_socket_with_handle(h->http, cfg->approval_listen_host, cfg->approval_listen_port)) {
		snprintf(err, errlen, "cannot listen on %s:%u", cfg->approval_listen_host, cfg->approval_listen_port);
		approval_http_free(h);
		return NULL;
	}
	log_info("listening for approvers (HTTPS) on %s:%u", cfg->approval_listen_host, cfg->approval_listen_port);
	return h;
}

void approval_http_free(struct approval_http *h)
{
	if (!h)
		return;
	if (h->http)
		evhttp_free(h->http);
	approval_web_free(h->web);
	free(h);
}
