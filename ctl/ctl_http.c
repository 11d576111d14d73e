/*
 * ctl_http: see ctl_http.h. The reply is gathered in a buffer that grows
 * by doubling up to the cap; the write callback refuses the byte that
 * would pass it, which ends the transfer.
 */
#include "ctl/ctl_http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
	char *data; /* malloc'd; len bytes and a NUL once anything came */
	size_t len;
	size_t cap;
	size_t max;
	bool over; /* the reply passed max */
};

static size_t sink_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb, cap;
	char *p;

	if (n > s->max - s->len) {
		s->over = true;
		return 0;
	}
	if (s->len + n + 1 > s->cap) {
		cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n + 1)
			cap = cap > s->max / 2 ? s->max + 1 : cap * 2;
		p = realloc(s->data, cap);
		if (!p)
			return 0;
		s->data = p;
		s->cap = cap;
	}
	memcpy(s->data + s->len, ptr, n);
	s->len += n;
	s->data[s->len] = '\0';
	return n;
}

bool ctl_http_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

void ctl_http_global_cleanup(void)
{
	curl_global_cleanup();
}

/* Every option of the request; CURLE_OK or the first that failed. */
static CURLcode setup(CURL *easy, const struct ctl_http_conn *conn, const char *method, const char *url,
		      const char *body, struct curl_slist *headers, struct sink *sink, char *curl_err)
{
	CURLcode cc = CURLE_OK;

#define SET(opt, val)                                          \
	do {                                                   \
		if (cc == CURLE_OK)                            \
			cc = curl_easy_setopt(easy, opt, val); \
	} while (0)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_PROTOCOLS_STR, "https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (conn->cacert)
		SET(CURLOPT_CAINFO, conn->cacert);
	SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	SET(CURLOPT_USERNAME, conn->user);
	SET(CURLOPT_PASSWORD, conn->password);
	SET(CURLOPT_TIMEOUT_MS, conn->timeout_ms ? conn->timeout_ms : CTL_HTTP_TIMEOUT_MS);
	SET(CURLOPT_CONNECTTIMEOUT_MS, CTL_HTTP_CONNECT_TIMEOUT_MS);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)sink->max);
	SET(CURLOPT_WRITEFUNCTION, sink_write);
	SET(CURLOPT_WRITEDATA, sink);
	SET(CURLOPT_ERRORBUFFER, curl_err);
	SET(CURLOPT_USERAGENT, "airlockctl");
	SET(CURLOPT_HTTPHEADER, headers);
	if (strcmp(method, "POST") == 0) {
		SET(CURLOPT_POST, 1L);
		SET(CURLOPT_POSTFIELDS, body ? body : "");
		SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? strlen(body) : 0));
	} else if (strcmp(method, "GET") != 0) {
		SET(CURLOPT_CUSTOMREQUEST, method);
	}
#undef SET
	return cc;
}

/* The request's headers: JSON both ways, no "Expect: 100-continue" wait. NULL when out of memory. */
static struct curl_slist *make_headers(bool has_body)
{
	static const char *const names[] = {"Accept: application/json", "Expect:", "Content-Type: application/json"};
	size_t n = has_body ? 3 : 2;
	struct curl_slist *list = NULL, *next;

	for (size_t i = 0; i < n; i++) {
		next = curl_slist_append(list, names[i]);
		if (!next) {
			curl_slist_free_all(list);
			return NULL;
		}
		list = next;
	}
	return list;
}

bool ctl_http_send(const struct ctl_http_conn *conn, const char *method, const char *url, const char *body,
		   struct ctl_http_reply *reply, char *err, size_t errlen)
{
	char curl_err[CURL_ERROR_SIZE] = "";
	struct sink sink = {.max = conn->reply_max ? conn->reply_max : CTL_HTTP_REPLY_MAX};
	struct curl_slist *headers = make_headers(body != NULL);
	CURL *easy = curl_easy_init();
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	bool ok = false;

	memset(reply, 0, sizeof(*reply));
	if (!easy || !headers)
		goto out;
	cc = setup(easy, conn, method, url, body, headers, &sink, curl_err);
	if (cc == CURLE_OK)
		cc = curl_easy_perform(easy);
	if (cc == CURLE_OK && !sink.data)
		sink.data = calloc(1, 1);
	if (cc == CURLE_OK && !sink.data)
		cc = CURLE_OUT_OF_MEMORY;
	if (cc == CURLE_OK)
		cc = curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &reply->status);
	ok = cc == CURLE_OK;
out:
	if (ok) {
		reply->body = sink.data;
		reply->len = sink.len;
	} else {
		free(sink.data);
		reply->status = 0;
		if (sink.over || cc == CURLE_FILESIZE_EXCEEDED)
			snprintf(err, errlen, "the server's reply is larger than %zu bytes", sink.max);
		else
			snprintf(err, errlen, "%s", curl_err[0] ? curl_err : curl_easy_strerror(cc));
	}
	curl_slist_free_all(headers);
	curl_easy_cleanup(easy);
	return ok;
}

void ctl_http_reply_free(struct ctl_http_reply *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}
