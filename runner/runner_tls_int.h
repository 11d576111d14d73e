/*
 * runner_tls_int: what the TLS shim's files share (runner_tls.c the
 * thread and the bytes moved; runner_tls_io.c blocking I/O with a
 * deadline, the failure kept, the handshake; runner_tls_login.c each
 * engine's negotiation). Not for the rest of the runner: runner_tls.h.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_TLS_INT_H
#define AIRLOCK_RUNNER_RUNNER_TLS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include <openssl/ssl.h>

#include "protocol/scram_client.h"
#include "runner/runner_tls.h"

#define MAX_CONNS 4   /* the statement's, a cancel, the watchdog's KILL, one spare */
#define BUF_LEN 16384 /* a TLS record's plain text at most */
#define PG_SSL_REQUEST 80877103u
#define PG_CANCEL_REQUEST 80877102u
#define PG_AUTH_OK 0u
#define PG_AUTH_SASL 10u
#define PG_AUTH_SASL_CONTINUE 11u
#define PG_AUTH_SASL_FINAL 12u
#define MY_CLIENT_PROTOCOL_41 0x0200u
#define MY_HEADER 4

struct conn {
	bool used;
	int plain; /* the client library's side, accepted on the shim's socket */
	int relay; /* the relay's socket: TLS once negotiated */
	SSL *ssl;
	bool plain_eof, tls_eof;
	short up_want, down_want; /* what the TLS session waits for, per direction */
	uint8_t up[BUF_LEN];      /* plain text from the library, for the session */
	size_t up_len, up_off;
	uint8_t down[BUF_LEN]; /* decrypted, for the library */
	size_t down_len, down_off;
};

struct runner_tls {
	pthread_t thread;
	bool running;
	int lst;
	int wake[2];
	SSL_CTX *ctx;
	bool my;      /* engine mariadb */
	bool full;    /* verify-full */
	bool host_ip; /* tls_host is an IP address literal */
	char *host;
	char *password;            /* printable ASCII, for the shim's own SCRAM (runner_tls_login.c); NULL: libpq's */
	struct scram_salted known; /* airlockd's salted password (with password only) */
	bool have_known;
	struct scram_salted seen; /* under lock: the salt and iterations of a login that passed (no key) */
	bool have_seen;           /* under lock */
	char relay_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	pthread_mutex_t lock;
	char failure[200]; /* under lock */
	struct conn conns[MAX_CONNS];
};

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t tls_now_ms(void);
/* Keeps why the connection failed: what, then ": detail" when there is one (under t->lock). */
void tls_set_failure(struct runner_tls *t, const char *what, const char *detail);
/* Waits until fd has ev, or the deadline: 0, or -1. */
int tls_wait_fd(int fd, short ev, int64_t deadline);
/*
 * Waits on fd (the relay's unix connection) for the backend's socket
 * airlockd hands over with the byte FRAME_RELAY_HANDED (base/frame.h): the
 * socket (nonblocking, close-on-exec; the caller's), or -1 at EOF (airlockd
 * could not reach the backend), at the deadline, or on anything else.
 */
int tls_take_socket(int fd, int64_t deadline);
/* Writes all n bytes to a nonblocking socket by the deadline: 0, or -1. */
int tls_write_all(int fd, const uint8_t *p, size_t n, int64_t deadline);
/* Reads exactly n bytes, never more (what follows may be TLS): 0, or -1. */
int tls_read_all(int fd, uint8_t *p, size_t n, int64_t deadline);
/* After an SSL call on c returned ret: waits for what it wants. 0 to call again, -1 on failure. */
int tls_ssl_wait(struct conn *c, int ret, int64_t deadline);
/* All n bytes through c's TLS session by the deadline: 0, or -1. */
int tls_ssl_write_all(struct conn *c, const uint8_t *p, size_t n, int64_t deadline);
/* Exactly n bytes out of c's TLS session by the deadline: 0, or -1. */
int tls_ssl_read_all(struct conn *c, uint8_t *p, size_t n, int64_t deadline);
/* The TLS handshake on c->relay with the checks of t's mode: 0, or -1 with the failure kept. */
int tls_handshake(struct runner_tls *t, struct conn *c, int64_t deadline);

/*
 * Each engine's way into TLS on a new connection (c->plain accepted,
 * c->relay connected), through the handshake and as much of the login as
 * needs changing (runner_tls_login.c): 0 when the rest may be moved as it
 * is, or -1 (the failure kept where it is the shim's).
 */
int tls_pg_negotiate(struct runner_tls *t, struct conn *c, int64_t deadline);
int tls_my_negotiate(struct runner_tls *t, struct conn *c, int64_t deadline);

#endif
