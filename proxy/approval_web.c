#define _GNU_SOURCE
#include "proxy/approval_web.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "approval/approval_store.h"
#include "base/wbuf.h"
#include "conf/config.h"
#include "proxy/approval_decide.h"
#include "proxy/approval_form.h"
#include "proxy/approval_login.h"
#include "proxy/approval_page.h"
#include "proxy/approval_web_session.h"
#include "proxy/approvals.h"
#include "proxy/log.h"
#include "proxy/ops_page.h"
#include "proxy/server.h"
#include "proxy/timeval.h"

#define COOKIE "__Host-airlock"
#define SESSIONS_MAX 64
#define SESSION_IDLE_MS (30 * 60 * 1000)
#define SESSION_ABSOLUTE_MS (8 * 60 * 60 * 1000)
#define PASSWORD_MAX 1024
#define LIST_MAX 500
#define NOT_APPROVER "admin accounts see the operator's page; only approvers ([approver NAME]) see and decide writes"
#define CSP                                                                                                  \
	"default-src 'none'; style-src 'self'; img-src 'none'; form-action 'self'; frame-ancestors 'none'; " \
	"base-uri 'none'"

struct approval_web {
	struct server *srv;            /* borrowed */
	struct web_sessions *sessions; /* owned */
};

struct approval_web *approval_web_new(struct server *srv)
{
	struct approval_web *web = calloc(1, sizeof(*web));

	if (!web)
		return NULL;
	web->srv = srv;
	if (!(web->sessions = web_sessions_new(SESSIONS_MAX, SESSION_IDLE_MS, SESSION_ABSOLUTE_MS))) {
		free(web);
		return NULL;
	}
	return web;
}

/*
 * The table of logins, shared through the store of held writes when that
 * store is one several nodes share (state_dsn); the store is looked up at
 * each use, since a reload may bring it.
 */
static struct web_sessions *sessions(struct approval_web *web)
{
	web_sessions_share(web->sessions, web->srv->approvals);
	return web->sessions;
}

void approval_web_free(struct approval_web *web)
{
	if (!web)
		return;
	web_sessions_free(web->sessions);
	free(web);
}

/* Sends len bytes of body as type with status and the headers every page answer has. */
static void send_body(struct evhttp_request *req, int status, const char *type, const void *body, size_t len)
{
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(out, "Content-Type", type);
	evhttp_add_header(out, "Content-Security-Policy", CSP);
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(out, "Cache-Control", "no-store");
	evhttp_add_header(out, "Referrer-Policy", "no-referrer");
	evhttp_add_header(out, "X-Frame-Options", "DENY");
	if (buf && len)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, status, NULL, buf);
	if (buf)
		evbuffer_free(buf);
}

/* Sends the page w holds (w is the caller's), or 500 when building it failed. */
static void send_page(struct evhttp_request *req, int status, const struct wbuf *w)
{
	static const char oom[] = "out of memory\n";

	if (w->failed)
		send_body(req, 500, "text/plain; charset=utf-8", oom, sizeof(oom) - 1);
	else
		send_body(req, status, "text/html; charset=utf-8", w->data, w->len);
}

static void send_message(struct evhttp_request *req, int status, const char *title, const char *message,
			 const char *href)
{
	struct wbuf w;

	wbuf_init(&w);
	approval_page_message(&w, title, message, href);
	send_page(req, status, &w);
	wbuf_free(&w);
}

static void send_login(struct evhttp_request *req, int status, const char *error)
{
	struct wbuf w;

	wbuf_init(&w);
	approval_page_login(&w, error);
	send_page(req, status, &w);
	wbuf_free(&w);
}

/* 303 to location (a path of ours). */
static void see_other(struct evhttp_request *req, const char *location)
{
	evhttp_add_header(evhttp_request_get_output_headers(req), "Location", location);
	send_body(req, 303, "text/plain; charset=utf-8", NULL, 0);
}

/*
 * The request's session cookie's value into token; false when there is
 * none, or more than one, or it is not a token's length.
 */
static bool cookie_token(struct evhttp_request *req, char token[WEB_SESSION_TOKEN_LEN + 1])
{
	const char *h = evhttp_find_header(evhttp_request_get_input_headers(req), "Cookie");
	const char *p = h;
	int found = 0;

	while (p && *p) {
		size_t n;

		p += strspn(p, " \t;");
		n = strcspn(p, ";");
		if (n > sizeof(COOKIE) && !strncmp(p, COOKIE "=", sizeof(COOKIE))) {
			const char *v = p + sizeof(COOKIE);
			size_t vlen = n - sizeof(COOKIE);

			while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
				vlen--;
			if (vlen != WEB_SESSION_TOKEN_LEN || found++)
				return false;
			memcpy(token, v, vlen);
			token[vlen] = '\0';
		}
		p += n;
	}
	return found == 1;
}

/*
 * What a session is bound to: a digest of its role, its account's name and
 * verifier; false when it cannot be made. The role is in the digest, so a
 * session made for an approver never passes for an admin's of the same name.
 */
static bool binding_of(bool admin, const char *name, const char *scram, unsigned char out[WEB_SESSION_BINDING_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const char *role = admin ? "admin" : "approver";
	unsigned int len = 0;
	bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
		  EVP_DigestUpdate(ctx, role, strlen(role) + 1) == 1 &&
		  EVP_DigestUpdate(ctx, name, strlen(name) + 1) == 1 &&
		  EVP_DigestUpdate(ctx, scram, strlen(scram)) == 1 && EVP_DigestFinal_ex(ctx, out, &len) == 1 &&
		  len == WEB_SESSION_BINDING_LEN;

	EVP_MD_CTX_free(ctx);
	return ok;
}

/* s's binding is that of the account (NULL: none) in that role. */
static bool bound_to(const struct web_session *s, bool admin, const char *name, const char *scram)
{
	unsigned char now[WEB_SESSION_BINDING_LEN];

	return name && binding_of(admin, name, scram, now) && CRYPTO_memcmp(now, s->binding, sizeof(now)) == 0;
}

/*
 * The live session of the request's cookie (borrowed from the table), or
 * NULL; *admin says whether it is an admin's. A session whose account the
 * configuration in force no longer has, or has with another verifier (a
 * reload), is ended.
 */
static const struct web_session *session_of(struct approval_web *web, struct evhttp_request *req, bool *admin)
{
	char token[WEB_SESSION_TOKEN_LEN + 1];
	struct web_sessions *t = sessions(web);
	const struct web_session *s;
	const struct airlock_approver *a;
	const struct airlock_admin *ad;

	*admin = false;
	if (!cookie_token(req, token) || !(s = web_sessions_find(t, token, web_sessions_now(t))))
		return NULL;
	a = approval_login_find(web->srv->cfg, s->approver);
	ad = config_find_admin(web->srv->cfg, s->approver);
	if (a && bound_to(s, false, a->name, a->scram))
		return s;
	if (ad && bound_to(s, true, ad->name, ad->scram)) {
		*admin = true;
		return s;
	}
	log_info("approval page: the session of %s ends: its account changed", s->approver);
	web_sessions_end(sessions(web), token);
	return NULL;
}

/*
 * A POST from a page of this listener, as far as the browser tells: a
 * Sec-Fetch-Site header, when present, is same-origin; an Origin header,
 * when present, is https:// and the request's Host. Our pages' referrer
 * policy (no-referrer) makes a browser send "Origin: null" even from this
 * origin, so null passes only beside Sec-Fetch-Site: same-origin (an
 * opaque origin elsewhere, a sandboxed frame, is cross-site to it).
 */
static bool same_origin(struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *origin = evhttp_find_header(in, "Origin");
	const char *site = evhttp_find_header(in, "Sec-Fetch-Site");
	const char *host = evhttp_find_header(in, "Host");

	if (site && strcmp(site, "same-origin") != 0)
		return false;
	if (!origin || (site && !strcmp(origin, "null")))
		return true;
	return host && host[0] && !strncmp(origin, "https://", 8) && !strcmp(origin + 8, host);
}

/*
 * The request's form body into the n fields (approval_form.h); 0, or the
 * status to refuse with (the fields are then all NULL): 415 for another
 * type, 413 too long, 400 malformed.
 */
static int form_parse(struct evhttp_request *req, struct approval_form_field *f, size_t n)
{
	const char *type = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	const char *body;

	if (!type || strcasecmp(type, "application/x-www-form-urlencoded") != 0)
		return 415;
	if (len > APPROVAL_FORM_MAX)
		return 413;
	if (!(body = (const char *)evbuffer_pullup(in, -1)) && len)
		return 500;
	switch (approval_form_parse(body ? body : "", len, f, n)) {
	case APPROVAL_FORM_OK:
		return 0;
	case APPROVAL_FORM_TOO_LONG:
		return 413;
	case APPROVAL_FORM_NO_MEMORY:
		return 500;
	default:
		return 400;
	}
}

static const char *form_error(int status)
{
	switch (status) {
	case 415:
		return "send the form as application/x-www-form-urlencoded";
	case 413:
		return "the form is too long";
	case 500:
		return "out of memory";
	default:
		return "the form is malformed: an unknown, repeated or too long field, or a NUL";
	}
}

static void login(struct approval_web *web, struct evhttp_request *req)
{
	struct approval_form_field f[] = {{"name", APPROVAL_MAX_NAME, NULL}, {"password", PASSWORD_MAX, NULL}};
	const struct web_session *s;
	struct web_sessions *t;
	char cookie[sizeof(COOKIE) + WEB_SESSION_TOKEN_LEN + 64], retry[16];
	unsigned char binding[WEB_SESSION_BINDING_LEN];
	uint32_t wait = 0;
	struct web_account acct;
	bool ok;
	int status = form_parse(req, f, 2);

	if (status) {
		send_login(req, status, form_error(status));
		return;
	}
	if (!f[0].value || !f[1].value || !f[0].value[0]) {
		approval_form_free(f, 2);
		send_login(req, 400, "enter an approver's or admin's name and password");
		return;
	}
	ok = approval_login_web(web->srv, req, f[0].value, f[1].value, &wait, &acct);
	if (wait) {
		approval_form_free(f, 2);
		snprintf(retry, sizeof(retry), "%u", (wait + 999) / 1000);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", retry);
		send_login(req, 429, "too many failed logins from this address or for this name: try again later");
		return;
	}
	if (!ok) {
		approval_form_free(f, 2);
		send_login(req, 401, "wrong approver name or password");
		return;
	}
	t = sessions(web);
	s = binding_of(acct.admin, acct.name, acct.scram, binding)
		    ? web_sessions_create(t, acct.name, binding, web_sessions_now(t))
		    : NULL;
	approval_form_free(f, 2);
	if (!s) {
		if (web->srv->approvals && web->srv->approvals->ops->login_put)
			log_error("approval page: a login could not be kept in the shared store: %s",
				  web->srv->approvals->ops->error(web->srv->approvals));
		send_login(req, 500,
			   "the login could not be made (the system's random source, or the shared store, "
			   "failed: see the log); try again");
		return;
	}
	log_info("approval page: %s logged in%s", s->approver, acct.admin ? " (admin: the operator's page)" : "");
	snprintf(cookie, sizeof(cookie), COOKIE "=%s; Path=/; Secure; HttpOnly; SameSite=Strict", s->token);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Set-Cookie", cookie);
	explicit_bzero(cookie, sizeof(cookie));
	see_other(req, "/");
}

/*
 * The session of a POST past /login with its form, checked: same origin, a
 * live session, the session's CSRF token. NULL with the answer sent. The
 * fields are filled (the caller frees them) only when a session returns.
 */
static const struct web_session *checked_post(struct approval_web *web, struct evhttp_request *req,
					      struct approval_form_field *f, size_t n, bool *admin)
{
	const struct web_session *s;
	int status;

	if (!same_origin(req)) {
		send_message(req, 403, "Refused", "this form was not sent from this page", "/");
		return NULL;
	}
	if (!(s = session_of(web, req, admin))) {
		send_message(req, 403, "Refused", "log in first: the session ended or there is none", "/");
		return NULL;
	}
	if ((status = form_parse(req, f, n)) != 0) {
		send_message(req, status, "Refused", form_error(status), "/");
		return NULL;
	}
	/* f[0] is always the csrf field. */
	if (!web_session_csrf_ok(s, f[0].value)) {
		approval_form_free(f, n);
		send_message(req, 403, "Refused", "the form's token is wrong or missing: reload the page", "/");
		return NULL;
	}
	return s;
}

static void logout(struct approval_web *web, struct evhttp_request *req)
{
	struct approval_form_field f[] = {{"csrf", WEB_SESSION_TOKEN_LEN, NULL}};
	bool admin;
	const struct web_session *s = checked_post(web, req, f, 1, &admin);

	if (!s)
		return;
	log_info("approval page: %s logged out", s->approver);
	web_sessions_end(sessions(web), s->token);
	approval_form_free(f, 1);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Set-Cookie",
			  COOKIE "=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0");
	see_other(req, "/");
}

struct list_ctx {
	struct wbuf *w;
	size_t n;
};

static bool list_row(void *arg, const struct approval *a)
{
	struct list_ctx *c = arg;

	c->n++;
	return approval_page_list_row(c->w, a);
}

static void home(struct approval_web *web, struct evhttp_request *req)
{
	struct approval_store *st = web->srv->approvals;
	bool admin;
	const struct web_session *s = session_of(web, req, &admin);
	struct wbuf w;
	struct list_ctx c = {.w = &w};

	if (!s) {
		send_login(req, 200, NULL);
		return;
	}
	if (admin) {
		see_other(req, "/ops");
		return;
	}
	if (!st) {
		send_message(req, 200, "Pending writes", "no user may write: nothing is ever held", "/");
		return;
	}
	approvals_expire(st, web->srv->audit, wall_ms());
	wbuf_init(&w);
	approval_page_list_begin(&w, s->approver, s->csrf);
	if (st->ops->each(st, APPROVAL_PENDING, LIST_MAX, list_row, &c) != APPROVAL_OK) {
		send_message(req, 500, "Error", "the store of held writes failed", "/");
	} else {
		approval_page_list_end(&w, c.n);
		send_page(req, 200, &w);
	}
	wbuf_free(&w);
}

static void record(struct approval_web *web, struct evhttp_request *req, const char *id)
{
	struct approval_store *st = web->srv->approvals;
	bool admin;
	const struct web_session *s = session_of(web, req, &admin);
	struct approval a = {0};
	struct wbuf w;

	if (!s) {
		see_other(req, "/");
		return;
	}
	if (admin || !st) {
		send_message(req, 403, "Refused", NOT_APPROVER, "/");
		return;
	}
	approvals_expire(st, web->srv->audit, wall_ms());
	if (st->ops->get(st, id, &a) != APPROVAL_OK) {
		approval_free(&a);
		send_message(req, 404, "Not found", "no such approval", "/");
		return;
	}
	wbuf_init(&w);
	approval_page_record(&w, &a, s->approver, s->csrf);
	approval_free(&a);
	send_page(req, 200, &w);
	wbuf_free(&w);
}

static void decide(struct approval_web *web, struct evhttp_request *req, const char *id, bool approve)
{
	struct approval_form_field f[] = {{"csrf", WEB_SESSION_TOKEN_LEN, NULL}, {"reason", APPROVAL_MAX_REASON, NULL}};
	bool admin;
	const struct web_session *s = checked_post(web, req, f, 2, &admin);
	char back[sizeof("/approval/") + APPROVAL_ID_LEN];
	const char *reason;

	if (!s)
		return;
	if (admin) {
		approval_form_free(f, 2);
		send_message(req, 403, "Refused", NOT_APPROVER, "/");
		return;
	}
	snprintf(back, sizeof(back), "/approval/%s", id);
	reason = f[1].value ? f[1].value : "";
	if (!approve && !reason[0]) {
		send_message(req, 400, "Refused", "a rejection needs a reason", back);
	} else {
		switch (approval_decide(web->srv, id, approve, s->approver, reason)) {
		case APPROVAL_OK:
			see_other(req, back);
			break;
		case APPROVAL_NOT_FOUND:
			send_message(req, 404, "Not found", "no such approval", "/");
			break;
		case APPROVAL_CONFLICT:
			send_message(req, 409, "Not decided",
				     "the write is no longer pending (decided, expired, or approved by you already)",
				     back);
			break;
		default:
			send_message(req, 500, "Error", "the store of held writes failed", back);
			break;
		}
	}
	approval_form_free(f, 2);
}

/* The operator's page: admins only. */
static void ops(struct approval_web *web, struct evhttp_request *req)
{
	bool admin;
	const struct web_session *s = session_of(web, req, &admin);
	struct wbuf w;

	if (!s) {
		see_other(req, "/");
		return;
	}
	if (!admin) {
		send_message(req, 403, "Refused", "the operator's page is for admin accounts ([admin NAME]) only", "/");
		return;
	}
	wbuf_init(&w);
	ops_page_render(&w, web->srv, s->approver, s->csrf, (int64_t)(monotonic_ns() / 1000000000u));
	send_page(req, 200, &w);
	wbuf_free(&w);
}

void approval_web_handle(struct approval_web *web, struct evhttp_request *req, const char *path)
{
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	bool get = cmd == EVHTTP_REQ_GET, post = cmd == EVHTTP_REQ_POST;
	char id[APPROVAL_ID_LEN + 1];
	const char *rest;

	if (!strcmp(path, "/style.css") && get) {
		send_body(req, 200, "text/css; charset=utf-8", approval_page_css(), strlen(approval_page_css()));
		return;
	}
	if (!strcmp(path, "/") && get) {
		home(web, req);
		return;
	}
	if (!strcmp(path, "/login") && post) {
		if (!same_origin(req))
			send_login(req, 403, "this form was not sent from this page");
		else
			login(web, req);
		return;
	}
	if (!strcmp(path, "/logout") && post) {
		logout(web, req);
		return;
	}
	if (!strcmp(path, "/ops") && get) {
		ops(web, req);
		return;
	}
	if (strncmp(path, "/approval/", 10) != 0 || strlen(path + 10) < APPROVAL_ID_LEN) {
		send_message(req, 404, "Not found", "no such page", "/");
		return;
	}
	memcpy(id, path + 10, APPROVAL_ID_LEN);
	id[APPROVAL_ID_LEN] = '\0';
	rest = path + 10 + APPROVAL_ID_LEN;
	if (!approval_id_valid(id))
		send_message(req, 404, "Not found", "no such approval", "/");
	else if (!rest[0] && get)
		record(web, req, id);
	else if (post && (!strcmp(rest, "/approve") || !strcmp(rest, "/reject")))
		decide(web, req, id, !strcmp(rest, "/approve"));
	else
		send_message(req, rest[0] ? 404 : 405, "Not found", "no such page", "/");
}
