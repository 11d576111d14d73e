/*
 * validator_client: requests to a validator worker in the validators'
 * own terms. See validator_client.h.
 */
#include "proxy/validator_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

#define HINT "it was not run; write it more simply or split it (other statements are not affected)"

/* The code of a failed call: running out of memory is not the validator's failure. */
static enum airlock_err failed_code(const struct vpool *p)
{
	return vpool_last_failure(p) == VPOOL_NO_MEMORY ? AIRLOCK_E_OUT_OF_MEMORY : AIRLOCK_E_VALIDATOR_FAILED;
}

static void pg_failed(const struct vpool *p, struct pgv_result *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = PGV_REFUSED;
	out->code = failed_code(p);
	snprintf(out->sqlstate, sizeof(out->sqlstate), "%s", airlock_pg_sqlstate(out->code, AIRLOCK_N_NONE));
	snprintf(out->message, sizeof(out->message), "the statement could not be validated: %s", vpool_failure_text(p));
	snprintf(out->hint, sizeof(out->hint), "%s", HINT);
}

static void my_failed(const struct vpool *p, struct vmy_result *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = VMY_REFUSED;
	out->code = failed_code(p);
	out->my_errno = airlock_my_errno(out->code, AIRLOCK_N_NONE);
	snprintf(out->sqlstate, sizeof(out->sqlstate), "%s", airlock_my_sqlstate(out->code, AIRLOCK_N_NONE));
	snprintf(out->message, sizeof(out->message), "The statement could not be validated: %s", vpool_failure_text(p));
	snprintf(out->hint, sizeof(out->hint), "%s", HINT);
}

#ifdef AIRLOCK_VALIDATOR_BYPASS
/* Test builds only (CMakeLists.txt): every statement is a read, run as sent. */
#define BYPASSED(p) vpool_bypass(p)
#else
#define BYPASSED(p) false
#endif

/* One request and its response; false when the worker failed. */
static bool call(struct vpool *p, enum vw_op op, const struct pgv_policy *pg, const struct vmy_policy *my,
		 const char *sql, size_t len, const struct vmy_result *read, size_t split_max, struct vw_response *res)
{
	struct wbuf w;
	bool ok;

	wbuf_init(&w);
	vw_put_request(&w, op, pg, my, sql, len, read, split_max);
	ok = vpool_call(p, &w, op, len, my ? my->nrules : 0, res);
	wbuf_free(&w);
	return ok;
}

void vcl_scoped_clear(struct vcl_scoped *c)
{
	free(c->key);
	free(c->text);
	free(c->guard);
	memset(c, 0, sizeof(*c));
}

/* The bytes of a VW_PG_SCOPE request for sql under pol: the key of a held scope (heap, or NULL). */
static uint8_t *scope_key(const struct pgv_policy *pol, const char *sql, size_t *len)
{
	struct wbuf w;

	wbuf_init(&w);
	vw_put_request(&w, VW_PG_SCOPE, pol, NULL, sql, strlen(sql), NULL, 0);
	if (w.failed) {
		wbuf_free(&w);
		return NULL;
	}
	*len = w.len;
	return w.data;
}

enum pgv_kind vcl_pg_validate(struct vpool *p, const struct pgv_policy *pol, const char *sql, bool again,
			      struct pgv_result *out, struct vcl_scoped *pre)
{
	enum vw_op op = again ? VW_PG_AGAIN : pre ? VW_PG_READ : VW_PG_VALIDATE;
	struct vw_response res;

	if (pre)
		vcl_scoped_clear(pre);
	if (BYPASSED(p)) {
		memset(out, 0, sizeof(*out));
		return out->kind = PGV_READ;
	}
	if (!call(p, op, pol, NULL, sql, strlen(sql), NULL, 0, &res)) {
		pg_failed(p, out);
		return out->kind;
	}
	*out = res.pg;
	if (pre && res.scoped) {
		pre->key = scope_key(pol, sql, &pre->keylen);
		if (pre->key) {
			pre->v = res.scope;
			pre->text = res.text;
			pre->guard = res.guard;
			res.text = res.guard = NULL;
		}
	}
	vw_response_free(&res);
	return out->kind;
}

enum pgv_kind vcl_pg_write(struct vpool *p, const struct pgv_policy *pol, const char *sql, char **rewritten,
			   char **guard, char **sample, struct pgv_result *out)
{
	struct vw_response res;

	*rewritten = NULL;
	*guard = NULL;
	if (sample)
		*sample = NULL;
	if (BYPASSED(p) || !call(p, VW_PG_WRITE, pol, NULL, sql, strlen(sql), NULL, 0, &res)) {
		pg_failed(p, out);
		return out->kind;
	}
	*out = res.pg;
	if (out->kind == PGV_WRITE && !res.text) {
		pg_failed(p, out); /* a write always comes back as the text to run */
	} else if (out->kind == PGV_WRITE) {
		*rewritten = res.text;
		*guard = res.guard;
		res.text = res.guard = NULL;
		if (sample) {
			*sample = res.sample;
			res.sample = NULL;
		}
	} else if (out->kind != PGV_REFUSED) {
		pg_failed(p, out);
	}
	vw_response_free(&res);
	return out->kind;
}

/* Takes what pre holds as the answer to the request w: true when its key is w's bytes. */
static bool take_scoped(struct vcl_scoped *pre, const struct wbuf *w, struct vw_response *res)
{
	if (!pre || !pre->key || w->failed || pre->keylen != w->len || memcmp(pre->key, w->data, w->len) != 0)
		return false;
	memset(res, 0, sizeof(*res));
	res->pg = pre->v;
	res->text = pre->text;
	res->guard = pre->guard;
	pre->text = pre->guard = NULL;
	return true;
}

enum pgv_kind vcl_pg_scope(struct vpool *p, const struct pgv_policy *pol, const char *sql, char **rewritten,
			   char **guard, struct pgv_result *out, struct vcl_scoped *pre)
{
	struct vw_response res;
	struct wbuf w;
	bool ok;

	*rewritten = NULL;
	if (guard)
		*guard = NULL;
	if (BYPASSED(p)) {
		if (pre)
			vcl_scoped_clear(pre);
		memset(out, 0, sizeof(*out));
		return out->kind = PGV_READ;
	}
	wbuf_init(&w);
	vw_put_request(&w, VW_PG_SCOPE, pol, NULL, sql, strlen(sql), NULL, 0);
	ok = take_scoped(pre, &w, &res) || vpool_call(p, &w, VW_PG_SCOPE, strlen(sql), 0, &res);
	wbuf_free(&w);
	if (pre)
		vcl_scoped_clear(pre);
	if (!ok) {
		pg_failed(p, out);
		return out->kind;
	}
	*out = res.pg;
	/* A rewrite comes only with a read. */
	if (out->kind == PGV_READ) {
		*rewritten = res.text;
		res.text = NULL;
		if (guard) {
			*guard = res.guard;
			res.guard = NULL;
		}
	}
	vw_response_free(&res);
	return out->kind;
}

size_t vcl_pg_split(struct vpool *p, const char *sql, size_t *off, size_t *len, size_t max)
{
	struct vw_response res;
	size_t n = 0;

	if (max > VW_MAX_SPLIT)
		max = VW_MAX_SPLIT;
	if (!call(p, VW_PG_SPLIT, NULL, NULL, sql, strlen(sql), NULL, max, &res))
		return 0;
	if (res.nsplit <= max) {
		n = res.nsplit;
		if (n) {
			memcpy(off, res.split_off, n * sizeof(*off));
			memcpy(len, res.split_len, n * sizeof(*len));
		}
	}
	vw_response_free(&res);
	return n;
}

void vcl_my_validate(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len, struct vmy_result *out,
		     uint64_t *fingerprint)
{
	struct vw_response res;

	*fingerprint = 0;
	if (BYPASSED(p)) {
		memset(out, 0, sizeof(*out));
		out->kind = VMY_READ;
		out->stmt_kind = "SELECT";
		return;
	}
	if (!call(p, VW_MY_VALIDATE, NULL, pol, sql, len, NULL, 0, &res)) {
		my_failed(p, out);
		return;
	}
	*out = *res.my;
	*fingerprint = res.my_fingerprint;
	vw_response_free(&res);
}

char *vcl_my_scope(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len,
		   const struct vmy_result *v, bool *failed, struct vmy_result *again)
{
	return vcl_my_write_scope(p, pol, sql, len, v, failed, again, NULL);
}

char *vcl_my_write_scope(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len,
			 const struct vmy_result *v, bool *failed, struct vmy_result *again, char **sample)
{
	struct vw_response res;
	char *text;

	if (sample)
		*sample = NULL;
	memset(again, 0, sizeof(*again));
	again->kind = VMY_EMPTY;
	*failed = false;
	if (BYPASSED(p))
		return NULL;
	if (!call(p, VW_MY_SCOPE, NULL, pol, sql, len, v, 0, &res)) {
		my_failed(p, again);
		*failed = true;
		return NULL;
	}
	*failed = res.my_failed;
	text = res.text;
	res.text = NULL;
	if (text)
		*again = *res.my;
	if (text && sample) {
		*sample = res.sample;
		res.sample = NULL;
	}
	vw_response_free(&res);
	return text;
}

bool vcl_check(struct vpool *p, char *err, size_t errlen)
{
	static const char *const tables[] = {"public.t"};
	const struct pgv_policy pol = {.tables = tables, .ntables = 1, .user = "check"};
	pid_t pids[64];
	size_t n = vpool_pids(p, pids, 64);

	for (size_t i = 0; i < n; i++) {
		struct pgv_result r;

		if (vcl_pg_validate(p, &pol, "SELECT 1 FROM public.t", false, &r, NULL) != PGV_READ) {
			snprintf(err, errlen, "the validator worker does not answer: %s",
				 r.code == AIRLOCK_E_VALIDATOR_FAILED ? vpool_failure_text(p) : r.message);
			return false;
		}
	}
	return true;
}
