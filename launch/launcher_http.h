/*
 * launcher_http: HTTP to the Docker Engine API over its unix socket, for
 * the launcher only (launch/launcher_*.c; nothing else includes this).
 * Request setup with a bounded reply buffer, Docker's error text, blocking
 * requests, and the glue that runs a curl multi handle on a libevent base.
 *
 * Ownership: a docker_reply's data is malloc'd and owned by whoever owns
 * the reply (free(data)); a docker_multi owns only its socket and timer
 * events, never the easy handles added to it.
 */
#ifndef AIRLOCK_LAUNCH_LAUNCHER_HTTP_H
#define AIRLOCK_LAUNCH_LAUNCHER_HTTP_H

#include <curl/curl.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;

#define DOCKER_API_BASE "http://localhost/v1.41"
#define DOCKER_REPLY_MAX (1u << 20) /* bytes of one reply; more is an error */

struct docker_reply {
	char *data; /* NUL-terminated when non-NULL */
	size_t len;
	bool overflow; /* the reply passed DOCKER_REPLY_MAX */
};

/* Is s exactly 64 lowercase hex digits (an image or container id)? */
bool docker_is_hex64(const char *s);
/* Is s a plausible image reference that is safe to put in a URL path? */
bool docker_image_chars_ok(const char *s);

/*
 * Prepares easy for "method API_BASE path" on the socket sock. body (may be
 * NULL) and hdrs must outlive the transfer; the reply goes into rb, curl's
 * error text into errbuf (CURL_ERROR_SIZE). timeout_ms 0 = none. 0 or -1.
 */
int docker_easy_setup(CURL *easy, const char *sock, const char *method, const char *path, const char *body,
		      struct curl_slist *hdrs, long timeout_ms, struct docker_reply *rb, char *errbuf);

/* Docker's {"message": ...} as printable text, else "HTTP <status>". */
void docker_message(const char *body, size_t len, long status, char *out, size_t outlen);
/* Why a transfer failed before an HTTP status came back. */
void docker_transport_message(CURLcode cc, const char *curl_err, bool overflow, const char *sock, char *out,
			      size_t outlen);

/* Blocking request without a body; fills *status (0 if none) and rb. */
CURLcode docker_http_sync(const char *sock, const char *method, const char *path, uint32_t timeout_ms, long *status,
			  struct docker_reply *rb);

/*
 * A curl multi handle driven by events on base. done is called on the loop
 * for every finished transfer, after the easy handle has been taken out of
 * the multi handle; it may add new transfers.
 */
struct docker_multi;
typedef void (*docker_done_fn)(void *arg, CURL *easy, CURLcode cc);

struct docker_multi *docker_multi_new(struct event_base *base, docker_done_fn done, void *arg);
int docker_multi_add(struct docker_multi *m, CURL *easy);
void docker_multi_remove(struct docker_multi *m, CURL *easy);
void docker_multi_free(struct docker_multi *m);

#endif
