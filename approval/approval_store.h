/*
 * approval_store: where held writes live, durably, behind a table of
 * functions. The SQLite store (approval_store_sqlite.c) is an embedded
 * file written with synchronous commits: a write acknowledged to an agent
 * as held survives a crash of airlockd. The Postgres store
 * (approval_store_pg.c) is one database several nodes share.
 *
 * Every state change is a compare-and-set on the status: it happens only
 * when the record is in the state the caller expects, so two deciders (two
 * approvers, two nodes) can never both move it, and a write is run at most
 * once. Calls block (a local file or a nearby database: milliseconds, each
 * wait bounded); callers are the event loop's, one at a time.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_STORE_H
#define AIRLOCK_APPROVAL_APPROVAL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approval/approval.h"

enum approval_result {
	APPROVAL_OK,
	APPROVAL_NOT_FOUND, /* no record with that id */
	APPROVAL_CONFLICT,  /* the record is not in the expected state (someone else moved it) */
	APPROVAL_INVALID,   /* a value out of bounds or of the wrong shape; nothing was written */
	APPROVAL_IO,        /* the store failed; the message says how */
};

struct approval_store;

/* A login key: the SHA-256 of the page's session token (the cookie), never the token itself. */
#define APPROVAL_LOGIN_KEY_LEN 32
#define APPROVAL_LOGIN_CSRF_LEN 64
#define APPROVAL_LOGIN_BINDING_LEN 32

/* A login of the approval page as a shared store keeps it, so that every node's page knows it. */
struct approval_login {
	char csrf[APPROVAL_LOGIN_CSRF_LEN + 1]; /* the forms' token: 64 lower-case hex characters */
	char approver[APPROVAL_MAX_NAME + 1];
	unsigned char binding[APPROVAL_LOGIN_BINDING_LEN];
	int64_t created_ms; /* unix milliseconds */
	int64_t last_ms;    /* the last request that found it */
};

/* One change of state (approval_store_move). Strings are borrowed for the call. */
struct approval_move {
	const char *id;
	enum approval_status from; /* the state the record must be in */
	enum approval_status to;
	int64_t now;           /* unix milliseconds: decided_at when to is a decision */
	const char *by;        /* the approver deciding (approve/reject), else NULL */
	const char *reason;    /* the reason to record, or NULL to keep the current one */
	int64_t executed_rows; /* for to == APPROVAL_EXECUTED, else ignored */
	const char *result;    /* for to == APPROVAL_EXECUTED: the rows it returned (struct approval's), or NULL */
};

struct approval_store_ops {
	/* Stores a new record (a->status must be pending, a->id fresh). */
	enum approval_result (*put)(struct approval_store *s, const struct approval *a);
	/* Reads the record id into out (caller frees with approval_free). */
	enum approval_result (*get)(struct approval_store *s, const char *id, struct approval *out);
	/*
	 * Calls fn for each record in status (oldest first), at most limit of
	 * them; fn's record is borrowed for the call. Stops early when fn
	 * returns false.
	 */
	enum approval_result (*each)(struct approval_store *s, enum approval_status status, size_t limit,
				     bool (*fn)(void *arg, const struct approval *a), void *arg);
	/*
	 * Moves a record. An approval with approvals_needed 2 whose first
	 * approver is m->by stays pending with by added to approved_by (the
	 * same approver twice is APPROVAL_CONFLICT); any other move needs
	 * m->from to be the record's status.
	 */
	enum approval_result (*move)(struct approval_store *s, const struct approval_move *m);
	/* Every pending record with expires_at <= now becomes expired; *n counts them. */
	enum approval_result (*expire)(struct approval_store *s, int64_t now, size_t *n);
	/*
	 * At start-up: every record left running (airlockd stopped while it
	 * ran) becomes failed, with a reason saying it is never run again by
	 * itself; *n counts them. The Postgres store fails only the records
	 * this node was running: another node's may be running now.
	 */
	enum approval_result (*recover)(struct approval_store *s, int64_t now, size_t *n);
	/*
	 * The approval page's logins, for a store several nodes share (NULL
	 * in a store of one node's own: each node then keeps its logins in
	 * memory). key is APPROVAL_LOGIN_KEY_LEN bytes. login_get fills out
	 * (APPROVAL_NOT_FOUND when there is none); login_touch records a
	 * request at now; login_sweep ends every login idle since before
	 * idle_before or made before created_before.
	 */
	enum approval_result (*login_put)(struct approval_store *s, const unsigned char *key,
					  const struct approval_login *l);
	enum approval_result (*login_get)(struct approval_store *s, const unsigned char *key,
					  struct approval_login *out);
	enum approval_result (*login_touch)(struct approval_store *s, const unsigned char *key, int64_t now);
	enum approval_result (*login_end)(struct approval_store *s, const unsigned char *key);
	enum approval_result (*login_sweep)(struct approval_store *s, int64_t idle_before, int64_t created_before);
	/* The last failure's message (borrowed until the next call). */
	const char *(*error)(struct approval_store *s);
	void (*close)(struct approval_store *s);
};

struct approval_store {
	const struct approval_store_ops *ops;
	uint64_t failures; /* calls that ended APPROVAL_IO since open: the file or database failed */
};

/*
 * Opens (creating when absent, mode 0600) the SQLite store at path; NULL on
 * failure, with the reason in err (errlen bytes). The caller closes it
 * with s->ops->close(s).
 */
struct approval_store *approval_store_sqlite_open(const char *path, char *err, size_t errlen);

/*
 * Opens the Postgres store on conninfo (a libpq connection string),
 * making its table when absent; node is this node's peer_id, recorded on
 * the writes it runs so that its recover fails only those. NULL on
 * failure, with the reason in err (errlen bytes; never the password).
 * The caller closes it with s->ops->close(s).
 */
struct approval_store *approval_store_pg_open(const char *conninfo, int node, char *err, size_t errlen);

#endif
