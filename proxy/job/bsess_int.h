/*
 * bsess_int: the insides of kept backend sessions, shared by bsess.c (one
 * session: login, reset, idle) and bsess_pool.c (the pool: lending, TLS
 * contexts, the parameters runners are told). Nothing else includes it.
 */
#ifndef AIRLOCK_PROXY_JOB_BSESS_INT_H
#define AIRLOCK_PROXY_JOB_BSESS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "base/wbuf.h"
#include "protocol/pg_client.h"
#include "protocol/scram_client.h"
#include "proxy/job/bsess.h"

struct bsess_cancel;

#define BSESS_FP_LEN 32
/* How long an unused session is kept. */
#define BSESS_IDLE_MS 60000u
/* TLS contexts kept (one per distinct target connection). */
#define BSESS_MAX_CTX 16

enum bs_state {
	BS_CONNECTING, /* TCP connect */
	BS_SSL_ANSWER, /* SSLRequest sent, its one byte awaited */
	BS_TLS,        /* the TLS handshake */
	BS_LOGIN,      /* startup sent: authentication, parameters, key, ReadyForQuery */
	BS_LENT,       /* a runner's (its relay drives the connection) */
	BS_RESET,      /* given back: the reset's answers awaited */
	BS_IDLE,       /* on the idle list, counted */
};

struct bsess {
	struct bsess_pool *pool;
	struct bsess *prev, *next;         /* pool->idle, while idle */
	struct bsess *all_prev, *all_next; /* pool->all */
	enum bs_state state;
	struct bufferevent *bev; /* the connection (a TLS filter over the socket's, once TLS is up) */
	struct event *timer;     /* the login's or the reset's deadline, or the idle expiry */
	char *target;            /* its target's name */
	char *user;              /* the user whose runners it serves ("" for a probe) */
	uint8_t fp[BSESS_FP_LEN];
	char *role, *db, *host, *cert_host;
	uint16_t port;
	bool tls, verify_host;
	SSL_CTX *ctx;   /* its own reference; NULL without TLS */
	bool probe;     /* logged in only for its parameters, then closed */
	char *password; /* during the login only */
	struct scram_client sc;
	bool authed;
	bool sasl, sasl_proved; /* SCRAM began; the server's signature checked */
	bool counted;           /* holds one of its target's backend connections in job_dbs (given back, reset, idle) */
	uint32_t pid, key;
	struct wbuf params;   /* the ParameterStatus messages of the login */
	bsess_ready_fn ready; /* the login's waiter; NULL: none */
	void *ready_arg;
	struct bsess_cancel *cancel; /* a cancel request on its way; the reset waits for it */
	bool reset_waits;            /* given back while a cancel was on its way */
	bool busy;                   /* given back with a statement perhaps still running */
	/* The reset: */
	char marker[48];
	size_t skip, discarded;
	struct pg_reset_watch watch;
};

struct bsess_ctx {
	uint8_t fp[BSESS_FP_LEN];
	SSL_CTX *ctx;
};

struct bsess_params {
	char *target;
	uint8_t fp[BSESS_FP_LEN];
	struct wbuf msgs;
};

struct bsess_pool {
	struct job_env *env;
	struct bsess *idle; /* through prev / next */
	struct bsess *all;  /* through all_prev / all_next */
	uint32_t idle_ms;
	struct bsess_ctx ctx[BSESS_MAX_CTX];
	size_t nctx;
	struct bsess_params *params;
	size_t nparams;
	struct bsess_cancel *cancels; /* cancel requests on their way */
};

/*
 * A session logging in to t (whose fingerprint is fp) at host:port for user (NULL: a probe's ""),
 * over TLS of ctx (its own reference taken) when t has TLS; NULL when out
 * of memory.
 */
struct bsess *bsess_login(struct bsess_pool *p, const struct airlock_target *t, const uint8_t fp[BSESS_FP_LEN],
			  const char *host, uint16_t port, const char *user, bool probe, SSL_CTX *ctx,
			  bsess_ready_fn ready, void *arg);
/* ---- bsess_cancel.c ---- */

/* Frees a cancel request now (the pool's end, or the postmaster closed it); a connection it holds is given back. */
void bsess_cancel_free(struct bsess_cancel *c);
/*
 * The session of c is closed while c is on its way: c holds the session's
 * count of target's backend connections until the postmaster closes it
 * (the backend, signalled, may still run). false: c cannot (it holds one,
 * or out of memory); the caller gives the count back.
 */
bool bsess_cancel_hold(struct bsess_cancel *c, const char *target);
/* c's session is gone: the request goes on alone. */
void bsess_cancel_detach(struct bsess_cancel *c);
/* bsess_cancel (bsess.h) for s; done(s) is told when the postmaster has closed it, while s lives. */
void bsess_cancel_start(struct bsess *s, void (*done)(struct bsess *s));
/* Frees s now, wherever it is; nobody is told. */
void bsess_close(struct bsess *s);
/* The digest of what t's connection is made of, and the address it goes to. */
void bsess_fingerprint(const struct airlock_target *t, const char *host, uint8_t fp[BSESS_FP_LEN]);

#endif
