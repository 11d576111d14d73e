/*
 * ctl_http: one HTTPS request to the approval listener with libcurl, and
 * nothing else in airlockctl touches libcurl. Blocking, one easy handle a
 * request.
 *
 * Every request: https only (no other protocol, no redirect followed), the
 * peer's certificate and host name verified (against conn->cacert when
 * set, else the system's CA certificates), TLS 1.2 or later, HTTP Basic
 * with conn->user and conn->password, a timeout for the whole transfer and
 * a cap on the reply's size (a bigger reply is an error, never cut short).
 *
 * Call ctl_http_global_init once before the first request (it calls
 * curl_global_init) and ctl_http_global_cleanup at the end.
 *
 * Ownership: everything passed in is borrowed for the call; a reply's body
 * is malloc'd and owned by the reply (ctl_http_reply_free).
 */
#ifndef AIRLOCK_CTL_CTL_HTTP_H
#define AIRLOCK_CTL_CTL_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_HTTP_TIMEOUT_MS 30000L         /* the whole transfer */
#define CTL_HTTP_CONNECT_TIMEOUT_MS 10000L /* connecting, within the above */
#define CTL_HTTP_REPLY_MAX ((size_t)16 << 20)

struct ctl_http_conn {
	const char *user;     /* HTTP Basic user name (no ':') */
	const char *password; /* HTTP Basic password */
	const char *cacert;   /* PEM file of trusted CA certificates; NULL: the system's */
	long timeout_ms;      /* the whole transfer; 0: CTL_HTTP_TIMEOUT_MS */
	size_t reply_max;     /* most bytes of a reply body; 0: CTL_HTTP_REPLY_MAX */
};

struct ctl_http_reply {
	long status; /* the HTTP status */
	char *body;  /* len bytes and a NUL; never NULL after a reply came */
	size_t len;
};

/* false when libcurl cannot start. */
bool ctl_http_global_init(void);
void ctl_http_global_cleanup(void);

/*
 * method ("GET" or "POST") url; body (JSON, sent with Content-Type:
 * application/json) is NULL for GET. true with *reply filled when the
 * server answered, whatever its status; false with reply zeroed and one
 * line in err (errlen bytes: libcurl's message; it may quote the server,
 * so print it escaped) when no reply came or it was over the cap.
 */
bool ctl_http_send(const struct ctl_http_conn *conn, const char *method, const char *url, const char *body,
		   struct ctl_http_reply *reply, char *err, size_t errlen);

/* Frees the body; r is then as zeroed. */
void ctl_http_reply_free(struct ctl_http_reply *r);

#endif
