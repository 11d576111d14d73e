/*
 * vw_codec: the messages between airlockd and a validator worker
 * (validator/main.c), both ways. Pure: no I/O; the writers
 * append to a wbuf the caller owns, the readers borrow the caller's
 * bytes.
 *
 * A message on the channel is a 4-byte big-endian length, then that many
 * bytes of body, at most VW_MAX_BODY. A request's body is its operation,
 * the statement's user's policy (never another user's: the worker sees
 * what that one statement needs), the statement text and, for VW_MY_SCOPE,
 * the validator's earlier result. A response's body is a status, the
 * validator's result and the operation's extra (the rewritten text, the
 * statements' offsets).
 *
 * The worker is untrusted by airlockd: a worker that parsed hostile text
 * may be anybody's. Every reader checks each length against what is left
 * and against the field it fills, each enum against its range, each
 * offset against the text it points into, and reports a malformed message
 * as false, never as a partial result. A false from a response reader
 * costs the statement a VALIDATOR_FAILED error, nothing more.
 */
#ifndef AIRLOCK_VALIDATOR_CHANNEL_VW_CODEC_H
#define AIRLOCK_VALIDATOR_CHANNEL_VW_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "base/rbuf.h"
#include "base/wbuf.h"
#include "validator/mysql/validate_my.h"
#include "validator/pg/validate_pg.h"

/* The largest body either way: a statement of the largest max_message_bytes, its policy and its rewrite. */
#define VW_MAX_BODY (192u << 20)
/* Statements pgv_split reports at most. */
#define VW_MAX_SPLIT 1024

enum vw_op {
	VW_PG_VALIDATE = 1, /* pgv_validate (with the fingerprint) */
	VW_PG_AGAIN,        /* pgv_validate_again */
	VW_PG_SCOPE,        /* pgv_scope: the result and the rewritten text, if any */
	VW_PG_SPLIT,        /* pgv_split: the statements' offsets */
	VW_MY_VALIDATE,     /* vmy_validate and vmy_fingerprint */
	VW_MY_SCOPE,        /* vmy_scope of a read, then vmy_validate of the rewrite with information_schema */
	VW_PG_WRITE,        /* pgv_write_scope: the result, the text to run, its guard and its dry run */
	VW_PG_READ,         /* VW_PG_VALIDATE, then for a read VW_PG_SCOPE's answer too: one round trip */
	VW_NOPS
};

enum vw_status {
	VW_OK = 0,
	VW_BAD_REQUEST = 1, /* the worker could not read the request: airlockd's bug, reported as such */
	VW_NO_MEMORY = 2,   /* the worker ran out of memory: OUT_OF_MEMORY to the client */
};

/* A request as the worker reads it: views into the request's bytes, arrays owned by the struct. */
struct vw_request {
	enum vw_op op;
	size_t split_max; /* VW_PG_SPLIT */
	struct pgv_policy pg;
	struct vmy_policy my;
	const char *sql; /* NUL-terminated; sql_len bytes before the NUL (MySQL text may hold NULs) */
	size_t sql_len;
	struct vmy_result *my_read; /* VW_MY_SCOPE: the read's result */

	/* Every allocation behind the views above (owned). */
	void **owned;
	size_t nowned, capowned;
};

/* ---- requests (airlockd writes, the worker reads) ---- */

/*
 * Appends one request message (length and body). pg or my is the policy
 * the operation reads (the other may be NULL); my_read only for
 * VW_MY_SCOPE; split_max only for VW_PG_SPLIT. False when w failed.
 */
bool vw_put_request(struct wbuf *w, enum vw_op op, const struct pgv_policy *pg, const struct vmy_policy *my,
		    const char *sql, size_t sql_len, const struct vmy_result *my_read, size_t split_max);

/*
 * Reads a request body (without its length) into req, which owns copies
 * of everything it points to (vw_request_free releases them). False when
 * the body is malformed (req is then empty).
 */
bool vw_get_request(const uint8_t *body, size_t len, struct vw_request *req);
void vw_request_free(struct vw_request *req);

/* ---- responses (the worker writes, airlockd reads) ---- */

/* A response as airlockd reads it. */
struct vw_response {
	enum vw_status status;
	struct pgv_result pg;  /* the PG operations */
	char *text;            /* VW_PG_SCOPE, VW_MY_SCOPE, VW_PG_WRITE: the rewritten text (owned), NULL for none */
	char *guard;           /* VW_PG_SCOPE, VW_PG_WRITE: the runner's guard read (owned), NULL for none */
	char *sample;          /* VW_PG_WRITE, VW_MY_SCOPE of a write: the dry run's variant (validate_pg_write.h,
				* validate_my_write.h; owned), NULL for none */
	size_t nsplit;         /* VW_PG_SPLIT */
	size_t *split_off;     /* owned, nsplit of them */
	size_t *split_len;     /* owned */
	struct vmy_result *my; /* VW_MY_VALIDATE, VW_MY_SCOPE (the rewrite's result): owned */
	uint64_t my_fingerprint;
	bool my_failed; /* VW_MY_SCOPE: the read could not be scoped */
	/* VW_PG_READ of a read: what VW_PG_SCOPE answers (its result here, its text and guard above). */
	bool scoped;
	struct pgv_result scope;
};

/* Appends a response message; r's fields that op does not use are ignored. False when w failed. */
bool vw_put_response(struct wbuf *w, enum vw_op op, const struct vw_response *r);

/*
 * Reads a response body to a request of op over sql_len bytes of text
 * under a policy of nrules rules (MySQL), checking every field; res is filled (free it with vw_response_free) or,
 * on false, left empty.
 */
bool vw_get_response(const uint8_t *body, size_t len, enum vw_op op, size_t sql_len, size_t nrules,
		     struct vw_response *res);
void vw_response_free(struct vw_response *res);

/* ---- the validators' results, shared by both directions (vw_result.c) ---- */

void vw_put_pg_result(struct wbuf *w, const struct pgv_result *r);
bool vw_get_pg_result(struct rbuf *r, size_t sql_len, struct pgv_result *out);
void vw_put_my_result(struct wbuf *w, const struct vmy_result *r);
bool vw_get_my_result(struct rbuf *r, size_t sql_len, size_t nrules, struct vmy_result *out);

/* A string of at most cap - 1 bytes into a char[cap], NUL-terminated; false if longer or not terminated. */
bool vw_get_str(struct rbuf *r, char *dst, size_t cap);
void vw_put_str(struct wbuf *w, const char *s);

#endif
