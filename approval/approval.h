/*
 * approval: a write held until a person approves it. One record per
 * statement an agent asked to run: who asked, what it sent, what will run
 * after rewriting, what the dry run saw, and where it stands. The store
 * keeps records durably (approval_store.h); nothing here does I/O.
 *
 * A record moves only forward:
 *
 *   pending --approve--> approved --run--> running --> executed
 *      |                    |                 |    \-> failed
 *      |                    |                 \------> failed (interrupted:
 *      |                    |                          never run again)
 *      |                    \--drift-----------------> drifted
 *      |--reject---------------------------------------> rejected
 *      \--ttl-------------------------------------------> expired
 *
 * With two approvers required, a first approval leaves the record pending
 * with that approver named; the second (a different one) moves it on.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_H
#define AIRLOCK_APPROVAL_APPROVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The id: "w" and 20 lower-case base32 characters (100 random bits). */
#define APPROVAL_ID_LEN 21

/* Bounds on what a record holds (a longer value is refused, never cut). */
#define APPROVAL_MAX_TEXT (256 * 1024)  /* statement, rewritten statement, plan */
#define APPROVAL_MAX_SAMPLE (64 * 1024) /* the dry run's sample, as JSON */
#define APPROVAL_MAX_NAME 256           /* user, approver, address, application_name */
#define APPROVAL_MAX_REASON 1024

enum approval_status {
	APPROVAL_PENDING,
	APPROVAL_APPROVED,
	APPROVAL_RUNNING,
	APPROVAL_EXECUTED,
	APPROVAL_REJECTED,
	APPROVAL_EXPIRED,
	APPROVAL_DRIFTED,
	APPROVAL_FAILED,
};

/* "pending", "approved", ...; NULL for a value outside the enum. */
const char *approval_status_name(enum approval_status s);
/* The status named name; false when none is. */
bool approval_status_parse(const char *name, enum approval_status *out);
/* No transition leaves it. */
bool approval_status_final(enum approval_status s);

/*
 * ms (unix ms) as "YYYY-MM-DD HH:MM:SS.mmm" in UTC followed by suffix
 * ("+00" reads as a Postgres timestamptz, "" as a MySQL DATETIME); "" when
 * ms is 0 (not yet) or cannot be told.
 */
void approval_time_sql(int64_t ms, const char *suffix, char *out, size_t len);

/*
 * One held write. Every string is owned by the record (heap, NUL
 * terminated, never NULL once filled by the store; "" when empty) and freed
 * by approval_free.
 */
struct approval {
	char id[APPROVAL_ID_LEN + 1];
	enum approval_status status;
	char *user;             /* the airlock user that asked */
	char *protocol;         /* "postgres" or "mysql" */
	char *client_addr;      /* the client's address, as the listener saw it */
	char *application_name; /* as the client set it ("" when none) */
	char *statement;        /* as the agent sent it */
	char *params;           /* the bound values: a JSON array of strings and nulls */
	char *rewritten;        /* as it will run, after rewriting */
	char *plan;             /* the dry run's plan, as text */
	char *sample;           /* the dry run's sample, as JSON (approval_sample.h) */
	int64_t rows;           /* rows the dry run touched: what the approver approves */
	int64_t executed_rows;  /* rows the execution touched; -1 until it ran */
	int64_t created_at;     /* unix milliseconds */
	int64_t expires_at;     /* unix milliseconds: pending past this becomes expired */
	int64_t decided_at;     /* unix milliseconds; 0 until decided */
	int approvals_needed;   /* 1 or 2 distinct approvers */
	char *approved_by;      /* approvers so far, comma-separated ("" when none) */
	char *decided_by;       /* who rejected, or the approvers who approved ("" until decided) */
	char *reason;           /* the approver's reason, or why it drifted or failed ("" when none) */
	char *policy_checksum;  /* the configuration's checksum when the write was asked */
	char *settings;         /* the session's settings the write ran under: a JSON object of names to values */
	char *param_types;      /* the bound values' types: a JSON array of type OIDs (0: unspecified) */
	/*
	 * The rows the run returned (RETURNING), for a session waiting on it:
	 * a JSON array of strings, each a runner frame ('T' then 'D's) as its
	 * type letter and its payload in base64; "" when none were kept.
	 */
	char *result;
};

/* Fills out->id with a fresh random id; false when the system's random source failed. */
bool approval_new_id(char out[APPROVAL_ID_LEN + 1]);
/* id has the shape approval_new_id makes (checked before any look-up). */
bool approval_id_valid(const char *id);

/* Frees the record's strings (not a itself) and zeroes it; a NULL a or a zeroed record is fine. */
void approval_free(struct approval *a);

#endif
