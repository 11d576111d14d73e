/*
 * tls: the listeners' TLS, with OpenSSL under libevent's bufferevent_openssl.
 * One server context at a time, made at start and again at each reload
 * from tls_cert_file and tls_key_file (TLS 1.2 and newer; a session keeps
 * the context it started TLS with); a session switches to TLS in place when
 * its client asks (Postgres' SSLRequest, MySQL's SSL request packet).
 */
#ifndef AIRLOCK_PROXY_TLS_H
#define AIRLOCK_PROXY_TLS_H

#include <stddef.h>

struct bufferevent;
struct event_base;
typedef struct ssl_ctx_st SSL_CTX;

/* A server context from PEM files; NULL with a reason in err. The caller owns it (tls_free). */
SSL_CTX *tls_new(const char *cert_file, const char *key_file, char *err, size_t errlen);
void tls_free(SSL_CTX *ctx);
/*
 * A TLS server bufferevent over bev, the handshake to come: takes bev
 * (freed with the result, or at once on failure). NULL on failure.
 */
struct bufferevent *tls_wrap(SSL_CTX *ctx, struct event_base *base, struct bufferevent *bev);

/*
 * Ending a session: queues TLS close_notify below tls, so the client reads
 * a clean end after the last message instead of a broken connection.
 */
void tls_close_notify(struct bufferevent *tls);

/*
 * The negotiated cipher and protocol version of tls (static strings owned
 * by OpenSSL, valid while the connection lives), "" before the handshake.
 */
void tls_describe(struct bufferevent *tls, const char **cipher, const char **version);

#endif
