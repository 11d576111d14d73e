/*
 * launcher_http: see launcher_http.h. Also holds the launcher's blocking
 * start-up helpers (launcher_ping_sync, launcher_image_present_sync,
 * launcher_sweep_sync), which are plain blocking easy handles.
 */
#include "launch/launcher_http.h"
#include "base/dlist.h"
#include "launch/launcher.h"

#include <event2/event.h>
#include <jansson.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool docker_is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[64] == '\0';
}

bool docker_image_chars_ok(const char *s)
{
	if (!*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/:@", *s))
			return false;
	return true;
}

static size_t reply_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct docker_reply *rb = userdata;
	size_t n = size * nmemb;
	char *p;

	if (n > DOCKER_REPLY_MAX - rb->len) {
		rb->overflow = true;
		return 0;
	}
	p = realloc(rb->data, rb->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + rb->len, ptr, n);
	rb->len += n;
	p[rb->len] = '\0';
	rb->data = p;
	return n;
}

int docker_easy_setup(CURL *easy, const char *sock, const char *method, const char *path, const char *body,
		      struct curl_slist *hdrs, long timeout_ms, struct docker_reply *rb, char *errbuf)
{
	char url[512];
	int n = snprintf(url, sizeof(url), "%s%s", DOCKER_API_BASE, path);
	CURLcode cc = CURLE_OK;

	if (n < 0 || (size_t)n >= sizeof(url))
		return -1;
	errbuf[0] = '\0';
#define SET(opt, val)                                          \
	do {                                                   \
		if (cc == CURLE_OK)                            \
			cc = curl_easy_setopt(easy, opt, val); \
	} while (0)
	SET(CURLOPT_UNIX_SOCKET_PATH, sock);
	SET(CURLOPT_URL, url);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http");
	SET(CURLOPT_TIMEOUT_MS, timeout_ms);
	SET(CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	SET(CURLOPT_WRITEFUNCTION, reply_write);
	SET(CURLOPT_WRITEDATA, rb);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_HTTPHEADER, hdrs);
	if (!strcmp(method, "POST")) {
		SET(CURLOPT_POST, 1L);
		SET(CURLOPT_POSTFIELDS, body ? body : "");
		SET(CURLOPT_POSTFIELDSIZE, (long)(body ? strlen(body) : 0));
	} else if (strcmp(method, "GET")) {
		SET(CURLOPT_CUSTOMREQUEST, method);
	}
#undef SET
	return cc == CURLE_OK ? 0 : -1;
}

void docker_message(const char *body, size_t len, long status, char *out, size_t outlen)
{
	json_t *j = body ? json_loadb(body, len, 0, NULL) : NULL;
	const char *m = j ? json_string_value(json_object_get(j, "message")) : NULL;
	size_t i;

	if (m)
		snprintf(out, outlen, "%s", m);
	else
		snprintf(out, outlen, "HTTP %ld", status);
	for (i = 0; out[i]; i++)
		if (!isprint((unsigned char)out[i]))
			out[i] = '?';
	json_decref(j);
}

void docker_transport_message(CURLcode cc, const char *curl_err, bool overflow, const char *sock, char *out,
			      size_t outlen)
{
	if (overflow)
		snprintf(out, outlen, "docker reply larger than %u bytes", DOCKER_REPLY_MAX);
	else if (cc == CURLE_COULDNT_CONNECT)
		snprintf(out, outlen, "cannot connect to the docker engine at %s", sock);
	else
		snprintf(out, outlen, "docker engine at %s: %s", sock,
			 curl_err && *curl_err ? curl_err : curl_easy_strerror(cc));
}

CURLcode docker_http_sync(const char *sock, const char *method, const char *path, uint32_t timeout_ms, long *status,
			  struct docker_reply *rb)
{
	char errbuf[CURL_ERROR_SIZE];
	CURL *easy = curl_easy_init();
	CURLcode cc;

	*status = 0;
	if (!easy)
		return CURLE_OUT_OF_MEMORY;
	if (docker_easy_setup(easy, sock, method, path, NULL, NULL, (long)timeout_ms, rb, errbuf)) {
		curl_easy_cleanup(easy);
		return CURLE_FAILED_INIT;
	}
	cc = curl_easy_perform(easy);
	if (cc == CURLE_OK)
		curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(easy);
	return cc;
}

/* ---- curl multi on libevent ---- */

struct sockev {
	struct sockev *next;
	struct sockev *prev;
	struct event *ev;
};

struct docker_multi {
	struct event_base *base;
	CURLM *multi;
	struct event *timer;
	struct sockev *socks;
	docker_done_fn done;
	void *arg;
};

static void multi_drain(struct docker_multi *m)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(m->multi, &left))) {
		CURL *easy = msg->easy_handle;
		CURLcode cc = msg->data.result;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_multi_remove_handle(m->multi, easy);
		m->done(m->arg, easy, cc);
	}
}

static void on_sock_event(evutil_socket_t fd, short what, void *arg)
{
	struct docker_multi *m = arg;
	int flags = 0, running;

	if (what & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(m->multi, fd, flags, &running);
	multi_drain(m);
}

static void on_timer_event(evutil_socket_t fd, short what, void *arg)
{
	struct docker_multi *m = arg;
	int running;

	curl_multi_socket_action(m->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	multi_drain(m);
}

static void sockev_free(struct docker_multi *m, struct sockev *se)
{
	event_free(se->ev);
	DLIST_UNLINK(m->socks, se);
	free(se);
}

/* curl's CURLMOPT_SOCKETFUNCTION: one persistent event per watched socket. */
static int on_curl_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct docker_multi *m = userp;
	struct sockev *se = socketp;
	short flags = EV_PERSIST;

	if (what == CURL_POLL_REMOVE) {
		if (se) {
			sockev_free(m, se);
			curl_multi_assign(m->multi, s, NULL);
		}
		return 0;
	}
	if (what & CURL_POLL_IN)
		flags |= EV_READ;
	if (what & CURL_POLL_OUT)
		flags |= EV_WRITE;
	if (!se) {
		se = calloc(1, sizeof(*se));
		if (!se)
			return -1;
		se->ev = event_new(m->base, s, flags, on_sock_event, m);
		if (!se->ev) {
			free(se);
			return -1;
		}
		DLIST_PUSH(m->socks, se);
		curl_multi_assign(m->multi, s, se);
	} else {
		event_del(se->ev);
		event_assign(se->ev, m->base, s, flags, on_sock_event, m);
	}
	return event_add(se->ev, NULL);
}

/* curl's CURLMOPT_TIMERFUNCTION: only arms the event, never calls back into curl. */
static int on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct docker_multi *m = userp;
	struct timeval tv;

	if (timeout_ms < 0)
		return evtimer_del(m->timer);
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	return evtimer_add(m->timer, &tv);
}

struct docker_multi *docker_multi_new(struct event_base *base, docker_done_fn done, void *arg)
{
	struct docker_multi *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->base = base;
	m->done = done;
	m->arg = arg;
	m->multi = curl_multi_init();
	m->timer = evtimer_new(base, on_timer_event, m);
	if (!m->multi || !m->timer) {
		docker_multi_free(m);
		return NULL;
	}
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
	curl_multi_setopt(m->multi, CURLMOPT_SOCKETDATA, m);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
	curl_multi_setopt(m->multi, CURLMOPT_TIMERDATA, m);
	curl_multi_setopt(m->multi, CURLMOPT_MAXCONNECTS, 32L);
	return m;
}

int docker_multi_add(struct docker_multi *m, CURL *easy)
{
	return curl_multi_add_handle(m->multi, easy) == CURLM_OK ? 0 : -1;
}

void docker_multi_remove(struct docker_multi *m, CURL *easy)
{
	curl_multi_remove_handle(m->multi, easy);
}

void docker_multi_free(struct docker_multi *m)
{
	if (!m)
		return;
	if (m->multi)
		curl_multi_cleanup(m->multi);
	while (m->socks)
		sockev_free(m, m->socks);
	if (m->timer)
		event_free(m->timer);
	free(m);
}

/* ---- blocking helpers of launcher.h ---- */

int launcher_ping_sync(const char *docker_socket, uint32_t timeout_ms, char *err, size_t errlen)
{
	struct docker_reply rb = {0};
	long status;
	CURLcode cc = docker_http_sync(docker_socket, "GET", "/_ping", timeout_ms, &status, &rb);
	int ret = 0;

	if (cc != CURLE_OK) {
		docker_transport_message(cc, NULL, rb.overflow, docker_socket, err, errlen);
		ret = -1;
	} else if (status != 200) {
		snprintf(err, errlen, "docker engine at %s answered HTTP %ld to ping", docker_socket, status);
		ret = -1;
	}
	free(rb.data);
	return ret;
}

int launcher_image_present_sync(const char *docker_socket, const char *image, uint32_t timeout_ms, char *err,
				size_t errlen)
{
	char path[300], msg[256];
	struct docker_reply rb = {0};
	long status;
	CURLcode cc;
	int ret = -1;

	if (!image || !docker_image_chars_ok(image)) {
		snprintf(err, errlen, "invalid image reference");
		return -1;
	}
	snprintf(path, sizeof(path), "/images/%s/json", image);
	cc = docker_http_sync(docker_socket, "GET", path, timeout_ms, &status, &rb);
	if (cc != CURLE_OK) {
		docker_transport_message(cc, NULL, rb.overflow, docker_socket, err, errlen);
	} else if (status == 200) {
		ret = 0;
	} else if (status == 404) {
		snprintf(err, errlen, "image %s not found", image);
	} else {
		docker_message(rb.data, rb.len, status, msg, sizeof(msg));
		snprintf(err, errlen, "image %s: %s", image, msg);
	}
	free(rb.data);
	return ret;
}

int launcher_sweep_sync(const char *docker_socket, const char *job_root, uint32_t timeout_ms)
{
	/* filters={"label":["airlock.job"]} */
	static const char list_path[] = "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22airlock.job%22%5D%7D";
	struct docker_reply rb = {0};
	json_t *arr = NULL, *c;
	char path[160];
	long status;
	size_t i;
	int removed = 0;

	if (docker_http_sync(docker_socket, "GET", list_path, timeout_ms, &status, &rb) != CURLE_OK || status != 200)
		goto out_fail;
	arr = json_loadb(rb.data, rb.len, 0, NULL);
	if (!json_is_array(arr))
		goto out_fail;
	json_array_foreach(arr, i, c)
	{
		const char *id = json_string_value(json_object_get(c, "Id"));
		const char *root = json_string_value(json_object_get(json_object_get(c, "Labels"), "airlock.root"));
		struct docker_reply drb = {0};

		if (!id || !docker_is_hex64(id))
			continue;
		/* Another airlockd's containers (another job_dir) are not ours to remove. */
		if (job_root && (!root || strcmp(root, job_root) != 0))
			continue;
		snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", id);
		if (docker_http_sync(docker_socket, "DELETE", path, timeout_ms, &status, &drb) == CURLE_OK &&
		    ((status >= 200 && status < 300) || status == 404))
			removed++;
		else
			fprintf(stderr, "launcher: sweep could not remove container %.12s\n", id);
		free(drb.data);
	}
	json_decref(arr);
	free(rb.data);
	return removed;

out_fail:
	json_decref(arr);
	free(rb.data);
	return -1;
}
