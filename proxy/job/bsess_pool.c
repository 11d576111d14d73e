/*
 * bsess_pool: the kept backend sessions of one job manager (bsess.h):
 * which idle session a runner gets, the TLS contexts (one per distinct
 * target connection: making one costs OpenSSL 3.0 about 2 ms), the
 * parameters a runner is told as its connection starts, cancel requests.
 */
#define _GNU_SOURCE
#include "proxy/job/bsess_int.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "base/dlist.h"
#include "proxy/job/job_int.h"
#include "proxy/log.h"

static void fp_add(EVP_MD_CTX *c, const char *s)
{
	EVP_DigestUpdate(c, s ? s : "", s ? strlen(s) + 1 : 1);
}

void bsess_fingerprint(const struct airlock_target *t, const char *host, uint8_t fp[BSESS_FP_LEN])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned int n = 0;
	char port[8];

	memset(fp, 0, BSESS_FP_LEN);
	snprintf(port, sizeof(port), "%u", (unsigned)t->port);
	if (!c)
		return;
	if (EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1) {
		fp_add(c, t->engine);
		fp_add(c, t->host);
		fp_add(c, port);
		fp_add(c, t->database);
		fp_add(c, t->user);
		fp_add(c, t->password);
		fp_add(c, t->sslmode);
		fp_add(c, t->ca_pem);
		fp_add(c, host);
		EVP_DigestFinal_ex(c, fp, &n);
	}
	EVP_MD_CTX_free(c);
}

struct bsess_pool *bsess_pool_new(struct job_env *env)
{
	struct bsess_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->env = env;
	p->idle_ms = BSESS_IDLE_MS;
	return p;
}

void bsess_pool_free(struct bsess_pool *p)
{
	if (!p)
		return;
	while (p->all) {
		p->all->ready = NULL;
		bsess_close(p->all);
	}
	while (p->cancels)
		bsess_cancel_free(p->cancels);
	for (size_t i = 0; i < p->nctx; i++)
		SSL_CTX_free(p->ctx[i].ctx);
	for (size_t i = 0; i < p->nparams; i++) {
		free(p->params[i].target);
		wbuf_free(&p->params[i].msgs);
	}
	free(p->params);
	free(p);
}

/* The TLS context of t's connection, made now if there is none; NULL on failure. */
static SSL_CTX *pool_ctx(struct bsess_pool *p, const struct airlock_target *t, const uint8_t fp[BSESS_FP_LEN])
{
	SSL_CTX *ctx;
	BIO *bio;
	X509 *x;
	int ncerts = 0;

	for (size_t i = 0; i < p->nctx; i++)
		if (memcmp(p->ctx[i].fp, fp, BSESS_FP_LEN) == 0)
			return p->ctx[i].ctx;
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
		goto fail;
	if (t->ca_pem) {
		bio = BIO_new_mem_buf(t->ca_pem, -1);
		if (!bio)
			goto fail;
		while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
			if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), x) == 1)
				ncerts++;
			X509_free(x);
		}
		BIO_free(bio);
		if (!ncerts)
			goto fail;
	}
	SSL_CTX_set_verify(ctx, t->ca_pem ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
	if (p->nctx == BSESS_MAX_CTX) {
		SSL_CTX_free(p->ctx[0].ctx);
		memmove(&p->ctx[0], &p->ctx[1], (BSESS_MAX_CTX - 1) * sizeof(p->ctx[0]));
		p->nctx--;
	}
	memcpy(p->ctx[p->nctx].fp, fp, BSESS_FP_LEN);
	p->ctx[p->nctx++].ctx = ctx;
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

bool bsess_params(const struct bsess_pool *p, const struct airlock_target *t, const uint8_t **msgs, size_t *len)
{
	for (size_t i = 0; i < p->nparams; i++)
		if (strcmp(p->params[i].target, t->name) == 0 && !p->params[i].msgs.failed && p->params[i].msgs.len) {
			*msgs = p->params[i].msgs.data;
			*len = p->params[i].msgs.len;
			return true;
		}
	return false;
}

struct bsess *bsess_get(struct bsess_pool *p, const struct airlock_target *t, const char *host, uint16_t port,
			const char *user, bsess_ready_fn ready, void *arg, bool *started)
{
	uint8_t fp[BSESS_FP_LEN];
	struct bsess *s, *next;
	SSL_CTX *ctx;

	bsess_fingerprint(t, host, fp);
	for (s = p->idle; s; s = next) {
		next = s->next;
		if (strcmp(s->target, t->name) != 0)
			continue;
		/* The target's connection changed (a reload): what was kept for the old one goes. */
		if (memcmp(s->fp, fp, BSESS_FP_LEN) != 0) {
			bsess_close(s);
			continue;
		}
		if (strcmp(s->user, user) != 0)
			continue;
		DLIST_UNLINK(p->idle, s);
		/* The job it goes to holds a count of its own. */
		s->counted = false;
		job_db_give(p->env, s->target);
		evtimer_del(s->timer);
		bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
		s->state = BS_LENT;
		*started = true;
		return s;
	}
	ctx = config_target_tls(t) ? pool_ctx(p, t, fp) : NULL;
	*started = (!config_target_tls(t) || ctx) && bsess_login(p, t, fp, host, port, user, false, ctx, ready, arg);
	return NULL;
}

bool bsess_probe(struct bsess_pool *p, const struct airlock_target *t, const char *host, uint16_t port,
		 bsess_ready_fn ready, void *arg)
{
	uint8_t fp[BSESS_FP_LEN];
	SSL_CTX *ctx = NULL;

	bsess_fingerprint(t, host, fp);
	if (config_target_tls(t) && !(ctx = pool_ctx(p, t, fp)))
		return false;
	return bsess_login(p, t, fp, host, port, NULL, true, ctx, ready, arg) != NULL;
}

void bsess_forget(struct bsess_pool *p, void *arg)
{
	for (struct bsess *s = p->all; s; s = s->all_next)
		if (s->ready_arg == arg) {
			s->ready = NULL;
			s->ready_arg = NULL;
			/* The job that counted its connection lets go of it; the login, kept once in, counts itself. */
			if (!s->counted)
				s->counted = job_db_take(p->env, s->target);
		}
}

bool bsess_pid_settled(const struct bsess_pool *p, uint32_t pid)
{
	for (const struct bsess *s = p->all; s; s = s->all_next)
		if (pid && s->pid == pid)
			return s->state == BS_IDLE || s->state == BS_LENT;
	return false;
}

bool bsess_shed(struct bsess_pool *p, const char *target)
{
	for (struct bsess *s = p->idle; s; s = s->next)
		if (strcmp(s->target, target) == 0) {
			bsess_close(s);
			return true;
		}
	return false;
}
