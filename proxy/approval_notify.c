/*
 * approval_notify: see approval_notify.h. One struct delivery per POST in
 * flight, one struct watch per socket curl asks the loop to watch, and
 * one timer for curl's timeouts. curl calls sock_cb and timer_cb only to
 * say what to watch; the loop's callbacks (on_socket, on_timer) hand the
 * events to curl and then collect the transfers that ended.
 */
#define _GNU_SOURCE
#include "proxy/approval_notify.h"

#include <curl/curl.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "approval/approval.h"
#include "approval/approval_text.h"
#include "base/dlist.h"
#include "base/wbuf.h"
#include "conf/config.h"
#include "proxy/log.h"

#define CONNECT_TIMEOUT_MS 3000L
#define TOTAL_TIMEOUT_MS 10000L

struct watch {
	struct watch *prev, *next;
	struct event ev;
	bool assigned; /* ev was assigned: event_del is safe */
};

struct delivery {
	struct delivery *prev, *next;
	CURL *easy;
	struct curl_slist *headers;
	char *body;      /* owned; what is POSTed */
	size_t received; /* reply bytes read and dropped */
	char id[APPROVAL_ID_LEN + 1];
	char errbuf[CURL_ERROR_SIZE];
};

struct approval_notify {
	struct event_base *base;
	CURLM *multi;
	struct event timer;
	bool timer_ready; /* timer assigned: event_del is safe */
	char *url;
	char *host;            /* for the log: the URL's path may hold a token */
	const char *protocols; /* "https", or "http" for a loopback URL */
	char *cacert;          /* NULL: the system's CAs */
	char *secret;          /* NULL: unsigned */
	char *listen_host;
	uint16_t listen_port;
	unsigned inflight;
	struct delivery *deliveries;
	struct watch *watches;
};

/* ---- the body and its signature ---- */

/* The bytes of s[0..len) that fit in max without cutting a character (a byte outside UTF-8 stands alone). */
static size_t cut_at_char(const char *s, size_t len, size_t max)
{
	size_t pos = 0;

	while (pos < len) {
		uint32_t cp;
		size_t step = approval_utf8_decode(s + pos, len - pos, &cp);

		if (step == 0)
			step = 1;
		if (pos + step > max)
			break;
		pos += step;
	}
	return pos;
}

static void put_json(struct wbuf *out, const char *s)
{
	approval_json_string(out, s, s ? strlen(s) : 0, NULL);
}

bool approval_notify_body(struct wbuf *out, const struct approval *a, const char *listen_host, uint16_t listen_port)
{
	size_t slen = a->statement ? strlen(a->statement) : 0;
	size_t keep = cut_at_char(a->statement, slen, APPROVAL_NOTIFY_STATEMENT_MAX);
	char num[160];

	wbuf_put_str(out, "{\"event\":\"approval.pending\",\"id\":");
	put_json(out, a->id);
	wbuf_put_str(out, ",\"user\":");
	put_json(out, a->user);
	wbuf_put_str(out, ",\"protocol\":");
	put_json(out, a->protocol);
	snprintf(num, sizeof(num), ",\"rows\":%" PRId64 ",\"statement\":", a->rows);
	wbuf_put_str(out, num);
	approval_json_string(out, a->statement, keep, NULL);
	snprintf(num, sizeof(num), ",\"statement_truncated\":%s,\"created_at\":%" PRId64 ",\"expires_at\":%" PRId64,
		 keep < slen ? "true" : "false", a->created_at, a->expires_at);
	wbuf_put_str(out, num);
	if (listen_host) {
		bool v6 = strchr(listen_host, ':') != NULL;
		char *url = NULL;

		if (asprintf(&url, "https://%s%s%s:%u/approval/%s", v6 ? "[" : "", listen_host, v6 ? "]" : "",
			     (unsigned)listen_port, a->id) < 0) {
			out->failed = true;
			return false;
		}
		wbuf_put_str(out, ",\"url\":");
		put_json(out, url);
		free(url);
	}
	wbuf_put_str(out, "}");
	return !out->failed;
}

bool approval_notify_sign(const char *key, size_t keylen, const void *body, size_t len,
			  char out[APPROVAL_NOTIFY_SIG_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	if (!HMAC(EVP_sha256(), key, (int)keylen, body, len, md, &mdlen) || mdlen != 32)
		return false;
	memcpy(out, "sha256=", 7);
	for (i = 0; i < mdlen; i++) {
		out[7 + 2 * i] = hex[md[i] >> 4];
		out[7 + 2 * i + 1] = hex[md[i] & 0xf];
	}
	out[APPROVAL_NOTIFY_SIG_LEN] = '\0';
	return true;
}

/* ---- deliveries ---- */

static void delivery_free(struct approval_notify *n, struct delivery *d)
{
	DLIST_UNLINK(n->deliveries, d);
	n->inflight--;
	if (d->easy) {
		curl_multi_remove_handle(n->multi, d->easy);
		curl_easy_cleanup(d->easy);
	}
	curl_slist_free_all(d->headers);
	free(d->body);
	free(d);
}

/* The reply's body is not wanted: counted, bounded and dropped. */
static size_t drop_reply(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct delivery *d = arg;
	size_t len = size * nmemb;

	(void)ptr;
	if (len > APPROVAL_NOTIFY_REPLY_MAX - d->received)
		return 0; /* ends the transfer: CURLE_WRITE_ERROR */
	d->received += len;
	return len;
}

/* Reaps every transfer curl says has ended, logging how it went. */
static void collect(struct approval_notify *n)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(n->multi, &left))) {
		CURLcode cc = msg->data.result;
		struct delivery *d;
		char *priv = NULL;
		long status = 0;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
		d = (struct delivery *)(void *)priv;
		if (!d)
			continue;
		curl_easy_getinfo(d->easy, CURLINFO_RESPONSE_CODE, &status);
		if (cc == CURLE_WRITE_ERROR || cc == CURLE_FILESIZE_EXCEEDED)
			log_warn("approval webhook: %s to %s not delivered: HTTP %ld with a reply longer than %u bytes",
				 d->id, n->host, status, (unsigned)APPROVAL_NOTIFY_REPLY_MAX);
		else if (cc != CURLE_OK)
			log_warn("approval webhook: %s to %s not delivered: %s", d->id, n->host,
				 d->errbuf[0] ? d->errbuf : curl_easy_strerror(cc));
		else if (status < 200 || status > 299)
			log_warn("approval webhook: %s to %s not accepted: HTTP %ld", d->id, n->host, status);
		else
			log_info("approval webhook: %s delivered to %s (HTTP %ld)", d->id, n->host, status);
		delivery_free(n, d);
	}
}

static void on_socket(evutil_socket_t fd, short what, void *arg)
{
	struct approval_notify *n = arg;
	int flags = 0, running;

	if (what & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(n->multi, fd, flags, &running);
	collect(n);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct approval_notify *n = arg;
	int running;

	(void)fd;
	(void)what;
	curl_multi_socket_action(n->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	collect(n);
}

static void watch_free(struct approval_notify *n, struct watch *w)
{
	if (w->assigned)
		event_del(&w->ev);
	DLIST_UNLINK(n->watches, w);
	free(w);
}

/* curl's CURLMOPT_SOCKETFUNCTION: what to watch on s (or stop watching it). */
static int sock_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct approval_notify *n = userp;
	struct watch *w = socketp;
	short events = EV_PERSIST;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (w) {
			curl_multi_assign(n->multi, s, NULL);
			watch_free(n, w);
		}
		return 0;
	}
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return -1;
		DLIST_PUSH(n->watches, w);
		curl_multi_assign(n->multi, s, w);
	} else if (w->assigned) {
		event_del(&w->ev);
	}
	if (event_assign(&w->ev, n->base, s, events, on_socket, n) < 0)
		return -1;
	w->assigned = true;
	return event_add(&w->ev, NULL);
}

/* curl's CURLMOPT_TIMERFUNCTION: arms (or disarms) the one timer; never calls into curl. */
static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct approval_notify *n = userp;
	struct timeval tv;

	(void)multi;
	if (timeout_ms < 0)
		return evtimer_del(&n->timer);
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	return evtimer_add(&n->timer, &tv);
}

/* Every option of one POST; false when curl refused one. */
static bool delivery_setup(struct approval_notify *n, struct delivery *d, size_t len)
{
	CURLcode cc = CURLE_OK;

#define SET(opt, val)                                             \
	do {                                                      \
		if (cc == CURLE_OK)                               \
			cc = curl_easy_setopt(d->easy, opt, val); \
	} while (0)
	SET(CURLOPT_URL, n->url);
	SET(CURLOPT_PROTOCOLS_STR, n->protocols);
	SET(CURLOPT_REDIR_PROTOCOLS_STR, n->protocols);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	SET(CURLOPT_TIMEOUT_MS, TOTAL_TIMEOUT_MS);
	SET(CURLOPT_MAXFILESIZE, (long)APPROVAL_NOTIFY_REPLY_MAX);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	if (n->cacert)
		SET(CURLOPT_CAINFO, n->cacert);
	SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	SET(CURLOPT_USERAGENT, "airlock");
	SET(CURLOPT_POST, 1L);
	SET(CURLOPT_POSTFIELDS, d->body);
	SET(CURLOPT_POSTFIELDSIZE, (long)len);
	SET(CURLOPT_HTTPHEADER, d->headers);
	SET(CURLOPT_WRITEFUNCTION, drop_reply);
	SET(CURLOPT_WRITEDATA, d);
	SET(CURLOPT_ERRORBUFFER, d->errbuf);
	SET(CURLOPT_PRIVATE, d);
#undef SET
	return cc == CURLE_OK;
}

/* The request's headers: the body's type, its signature when there is a key, no 100-continue wait. */
static struct curl_slist *delivery_headers(const struct approval_notify *n, const char *body, size_t len)
{
	char sig[APPROVAL_NOTIFY_SIG_LEN + 1], line[64 + APPROVAL_NOTIFY_SIG_LEN];
	struct curl_slist *h = NULL, *t;
	const char *lines[3] = {"Content-Type: application/json", "Expect:", NULL};

	if (n->secret) {
		if (!approval_notify_sign(n->secret, strlen(n->secret), body, len, sig))
			return NULL;
		snprintf(line, sizeof(line), "X-Airlock-Signature: %s", sig);
		lines[2] = line;
	}
	for (size_t i = 0; i < 3 && lines[i]; i++) {
		t = curl_slist_append(h, lines[i]);
		if (!t) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = t;
	}
	return h;
}

void approval_notify_pending(struct approval_notify *n, const struct approval *a)
{
	struct delivery *d;
	struct wbuf body;

	if (!n)
		return;
	if (n->inflight >= APPROVAL_NOTIFY_MAX_INFLIGHT) {
		log_warn("approval webhook: %s not announced: %u deliveries already in flight", a->id, n->inflight);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		log_warn("approval webhook: %s not announced: out of memory", a->id);
		return;
	}
	DLIST_PUSH(n->deliveries, d);
	n->inflight++;
	snprintf(d->id, sizeof(d->id), "%s", a->id);
	wbuf_init(&body);
	if (!approval_notify_body(&body, a, n->listen_host, n->listen_port) || !wbuf_reserve(&body, 1)) {
		wbuf_free(&body);
		goto out_fail;
	}
	body.data[body.len] = '\0';
	d->body = (char *)body.data; /* owned by d from here on */
	d->headers = delivery_headers(n, d->body, body.len);
	d->easy = curl_easy_init();
	if (!d->headers || !d->easy || !delivery_setup(n, d, body.len))
		goto out_fail;
	if (curl_multi_add_handle(n->multi, d->easy) != CURLM_OK) {
		curl_easy_cleanup(d->easy);
		d->easy = NULL;
		goto out_fail;
	}
	return;
out_fail:
	log_warn("approval webhook: %s not announced: the request could not be made", a->id);
	delivery_free(n, d);
}

const char *approval_notify_host(const struct approval_notify *n)
{
	return n->host;
}

unsigned approval_notify_inflight(const struct approval_notify *n)
{
	return n ? n->inflight : 0;
}

struct approval_notify *approval_notify_new(struct event_base *base, const struct airlock_config *cfg, char *err,
					    size_t errlen)
{
	struct approval_notify *n = calloc(1, sizeof(*n));
	CURLU *u = NULL;
	char *scheme = NULL;

	if (!n)
		goto out_oom;
	n->base = base;
	n->url = strdup(cfg->approval_webhook);
	n->cacert = cfg->approval_webhook_cacert ? strdup(cfg->approval_webhook_cacert) : NULL;
	n->secret = cfg->approval_webhook_secret ? strdup(cfg->approval_webhook_secret) : NULL;
	n->listen_host = cfg->approval_listen_host ? strdup(cfg->approval_listen_host) : NULL;
	n->listen_port = cfg->approval_listen_port;
	if (!n->url || (cfg->approval_webhook_cacert && !n->cacert) || (cfg->approval_webhook_secret && !n->secret) ||
	    (cfg->approval_listen_host && !n->listen_host))
		goto out_oom;
	/* The config checked the URL with the same parser; only its scheme and host are wanted here. */
	u = curl_url();
	if (!u || curl_url_set(u, CURLUPART_URL, n->url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &n->host, 0) != CURLUE_OK) {
		snprintf(err, errlen, "approval_webhook cannot be parsed");
		goto out_fail;
	}
	n->protocols = strcasecmp(scheme, "http") == 0 ? "http" : "https";
	/* A CA file that cannot be read would fail every delivery: refused at start instead. */
	if (n->cacert && access(n->cacert, R_OK) != 0) {
		snprintf(err, errlen, "approval_webhook_cacert %.200s: %s", n->cacert, strerror(errno));
		goto out_fail;
	}
	n->multi = curl_multi_init();
	if (!n->multi || evtimer_assign(&n->timer, base, on_timer, n) < 0)
		goto out_oom;
	n->timer_ready = true;
	curl_multi_setopt(n->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	curl_multi_setopt(n->multi, CURLMOPT_SOCKETDATA, n);
	curl_multi_setopt(n->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(n->multi, CURLMOPT_TIMERDATA, n);
	curl_free(scheme);
	curl_url_cleanup(u);
	return n;
out_oom:
	snprintf(err, errlen, "out of memory");
out_fail:
	curl_free(scheme);
	curl_url_cleanup(u);
	approval_notify_free(n);
	return NULL;
}

void approval_notify_free(struct approval_notify *n)
{
	if (!n)
		return;
	while (n->deliveries)
		delivery_free(n, n->deliveries);
	if (n->multi)
		curl_multi_cleanup(n->multi);
	while (n->watches)
		watch_free(n, n->watches);
	if (n->timer_ready)
		evtimer_del(&n->timer);
	free(n->url);
	curl_free(n->host);
	free(n->cacert);
	if (n->secret) {
		explicit_bzero(n->secret, strlen(n->secret));
		free(n->secret);
	}
	free(n->listen_host);
	free(n);
}
