/*
 * vw_serve: what a validator worker does with one request: the
 * validators' calls the operation names, under the request's policy, and
 * the response that carries their results. Pure: no I/O; the response is
 * appended to a wbuf the caller owns.
 */
#ifndef AIRLOCK_VALIDATOR_VW_SERVE_H
#define AIRLOCK_VALIDATOR_VW_SERVE_H

#include "base/wbuf.h"
#include "validator/channel/vw_codec.h"
#include "validator/vw_cache.h"

/*
 * Answers the request body (without its length) into w (one whole
 * message), from cache when an answer to the same bytes is kept there;
 * keeps the answers to Postgres reads (VW_PG_VALIDATE, VW_PG_AGAIN,
 * VW_PG_SCOPE, VW_PG_READ, VW_PG_SPLIT). cache may be NULL. A body that
 * cannot be read is answered VW_BAD_REQUEST. False only when w cannot
 * hold even a refusal. *follows: airlockd's next request comes as soon as
 * it reads this answer (a read's scoping, a write's dry run).
 */
bool vw_serve_body(struct vw_cache *cache, const uint8_t *body, size_t len, struct wbuf *w, bool *follows);

/* Answers a request that could not be read: VW_BAD_REQUEST. */
bool vw_serve_bad_request(struct wbuf *w);

/* Runs each validator once on harmless input, so that what they set up on first use is set up. */
void vw_serve_warm_up(void);

#endif
