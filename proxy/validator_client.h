/*
 * validator_client: the validators' calls as the sessions make them,
 * answered by a validator worker (validator_pool.h) instead of running
 * in airlockd. Each has the signature and meaning of the library call it
 * stands for (validate_pg.h, validate_pg_scope.h, validate_my.h,
 * validate_my_scope.h); when the worker fails, the statement is refused
 * with VALIDATOR_FAILED in the protocol's terms and a hint, and nothing
 * of it runs. Only the statement's user's policy is sent.
 */
#ifndef AIRLOCK_PROXY_VALIDATOR_CLIENT_H
#define AIRLOCK_PROXY_VALIDATOR_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "validator/mysql/validate_my.h"
#include "validator/pg/validate_pg.h"
#include "proxy/validator_pool.h"

/*
 * A read's scope, answered in the same round trip as its validation and
 * held for the vcl_pg_scope call that follows. Its key is the bytes of
 * that call's request, policy and text: the worker's answer is a function
 * of them alone, so an equal request may take it instead of asking again.
 */
struct vcl_scoped {
	uint8_t *key; /* owned; NULL when nothing is held */
	size_t keylen;
	struct pgv_result v;
	char *text;  /* owned, or NULL */
	char *guard; /* owned, or NULL */
};

/* Frees what c holds; c is then empty. */
void vcl_scoped_clear(struct vcl_scoped *c);

/*
 * pgv_validate (again: pgv_validate_again). With pre (NULL for none) and
 * not again, a read's scope comes back with it into *pre, which is
 * emptied first.
 */
enum pgv_kind vcl_pg_validate(struct vpool *p, const struct pgv_policy *pol, const char *sql, bool again,
			      struct pgv_result *out, struct vcl_scoped *pre);
/*
 * pgv_scope_guarded: *rewritten is the heap text to run, or NULL to run sql
 * as it is; *guard (guard may be NULL) the heap guard read, or NULL. What
 * pre holds (NULL for nothing) is the answer when its key is this request;
 * pre is empty afterwards either way.
 */
enum pgv_kind vcl_pg_scope(struct vpool *p, const struct pgv_policy *pol, const char *sql, char **rewritten,
			   char **guard, struct pgv_result *out, struct vcl_scoped *pre);
/*
 * pgv_write_scope: PGV_WRITE with *rewritten (heap) the text to run,
 * *guard (heap, or NULL) its guard read and, when sample is not NULL,
 * *sample (heap, or NULL) its dry run's variant (pgv_write_sample); or
 * PGV_REFUSED with all NULL. A write is never bypassed: with
 * validator_bypass it is refused.
 */
enum pgv_kind vcl_pg_write(struct vpool *p, const struct pgv_policy *pol, const char *sql, char **rewritten,
			   char **guard, char **sample, struct pgv_result *out);
/* pgv_split; 0 also when the worker failed (the whole text is then validated, and refused). */
size_t vcl_pg_split(struct vpool *p, const char *sql, size_t *off, size_t *len, size_t max);

/* vmy_validate, and vmy_fingerprint into *fingerprint (0 when the worker failed). */
void vcl_my_validate(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len, struct vmy_result *out,
		     uint64_t *fingerprint);
/*
 * vmy_scope of the read v, then vmy_validate of the rewrite under pol with
 * information_schema.* added, into again. Returns the heap text, or NULL:
 * with *failed false, run sql as it is; with *failed true, it could not be
 * scoped, and again->kind is VMY_REFUSED when the worker failed (again
 * says so) or VMY_EMPTY otherwise.
 */
char *vcl_my_scope(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len,
		   const struct vmy_result *v, bool *failed, struct vmy_result *again);
/*
 * vcl_my_scope of a write v, and *sample (heap, or NULL: none) its dry
 * run's variant (vmy_write_sample), already validated again by the worker.
 */
char *vcl_my_write_scope(struct vpool *p, const struct vmy_policy *pol, const char *sql, size_t len,
			 const struct vmy_result *v, bool *failed, struct vmy_result *again, char **sample);

/* Each worker answers a harmless statement; false with a message in err otherwise. */
bool vcl_check(struct vpool *p, char *err, size_t errlen);

#endif
