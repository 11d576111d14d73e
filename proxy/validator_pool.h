/*
 * validator_pool: airlockd's side of the validator workers
 * (validator/main.c). A few workers are started ahead of need,
 * each as the validator uid with nothing open but its channel; a call
 * sends one request (validator/channel/vw_codec.h) to a worker and waits for its
 * answer, at most timeout_ms.
 *
 * A worker that crashes, closes its channel, overruns the deadline or
 * answers anything malformed is killed and replaced at once; the call
 * that was in flight fails (the caller answers that one statement with
 * VALIDATOR_FAILED) and every other session goes on. A worker is also
 * replaced after VPOOL_RECYCLE requests, so whatever a long life
 * accumulates in it does not last.
 *
 * The call blocks airlockd's loop for as long as the worker takes, as the
 * validators did when they ran inside airlockd; the deadline bounds it.
 */
#ifndef AIRLOCK_PROXY_VALIDATOR_POOL_H
#define AIRLOCK_PROXY_VALIDATOR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/wbuf.h"
#include "validator/channel/vw_codec.h"

/* Requests one worker answers before it is replaced. */
#define VPOOL_RECYCLE 100000

struct vpool_options {
	const char *path; /* the airlock-validator program */
	unsigned workers; /* how many are kept running (at least 1) */
	uid_t uid;        /* the uid and gid they run as, when airlockd is root */
	gid_t gid;
	uint32_t timeout_ms;  /* the longest one request may take */
	uint32_t memory_mb;   /* each worker's address space */
	uint32_t cpu_seconds; /* each worker's CPU over its life */
#ifdef AIRLOCK_VALIDATOR_BYPASS
	bool bypass; /* test builds only: validator_client.c answers every statement as a read, unvalidated */
#endif
};

struct vpool;

/* Why the last failed call failed. */
enum vpool_failure {
	VPOOL_NO_FAILURE,
	VPOOL_CRASHED,   /* the worker died or closed its channel */
	VPOOL_TIMEOUT,   /* it did not answer within timeout_ms */
	VPOOL_MALFORMED, /* its answer did not read as one */
	VPOOL_NO_WORKER, /* none could be started */
	VPOOL_NO_MEMORY, /* airlockd's or the worker's: OUT_OF_MEMORY to the client */
};

/* Starts the workers. NULL with a message in err when none can start. The caller owns the pool. */
struct vpool *vpool_new(const struct vpool_options *o, char *err, size_t errlen);
/* Closes every channel and kills and reaps every worker. NULL is fine. */
void vpool_free(struct vpool *p);

/*
 * Sends req (one whole request message of op over sql_len bytes of text,
 * under a policy of nrules rules) and reads the answer into res (free it
 * with vw_response_free). False when the worker failed: res is empty,
 * vpool_last_failure says why and the worker has been replaced.
 */
bool vpool_call(struct vpool *p, const struct wbuf *req, enum vw_op op, size_t sql_len, size_t nrules,
		struct vw_response *res);
/*
 * From now on fn(arg, seconds) is told how long each vpool_call took,
 * failed ones too (fn NULL: no one is); arg is borrowed and must outlive
 * the pool or be unset first.
 */
void vpool_observe(struct vpool *p, void (*fn)(void *arg, double seconds), void *arg);
/*
 * Nanoseconds spent in vpool_call since the pool was made (0 for a NULL
 * pool). Calls block the loop, so the difference across a piece of work
 * is that work's validation time.
 */
uint64_t vpool_busy_ns(const struct vpool *p);
enum vpool_failure vpool_last_failure(const struct vpool *p);
#ifdef AIRLOCK_VALIDATOR_BYPASS
bool vpool_bypass(const struct vpool *p);
#endif
/* A sentence for the failure ("crashed", "did not answer within 2000 ms", ...); static or in p. */
const char *vpool_failure_text(const struct vpool *p);

/* The pids of the running workers, for the tests and the log: up to max of them; how many. */
size_t vpool_pids(const struct vpool *p, pid_t *pids, size_t max);
/* Counters since start: calls, failures, workers started. */
void vpool_counts(const struct vpool *p, uint64_t *calls, uint64_t *failures, uint64_t *started);

#endif
