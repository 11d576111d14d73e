/*
 * audit: one JSON line per statement: who, from where, what (fingerprint),
 * decision, rows, bytes, time; and one per failed login. Never the
 * statement's values or any credential. Each line is chained to the one
 * before it by its hash (proxy/audit_chain.h, proxy/audit_verify.h).
 */
#ifndef AIRLOCK_PROXY_AUDIT_H
#define AIRLOCK_PROXY_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"

struct audit;
struct stats;

struct audit_entry {
	const char *user;
	uint32_t session;      /* BackendKeyData pid of the session */
	uint64_t fingerprint;  /* pg_query fingerprint, 0 if unparsable */
	const char *decision;  /* "run", "local", "refused", "error" */
	const char *sqlstate;  /* NULL on success */
	enum airlock_err code; /* AIRLOCK_E_NONE: no airlock code */
	uint64_t rows;
	uint64_t bytes;
	uint8_t truncated; /* enum frame_trunc */
	double ms;         /* recorded to 3 decimals */
	/* A statement's session (NULL protocol: a step recorded outside any session, these left out): */
	const char *protocol;    /* "pg" or "mysql" */
	const char *client;      /* the client's address, "" when none (a unix socket) */
	const char *application; /* Postgres application_name, MySQL program_name; "" when none */
	/* A held write's steps (held, approved, rejected, running, executed, drifted, failed, expired): */
	const char *approval; /* its id; NULL for any other statement */
	const char *by;       /* the approver who decided, or NULL */
	const char *reason;   /* the decision's or the outcome's reason, or NULL */
};

/*
 * A failed login: the name tried (whether or not such a user exists), the
 * protocol ("pg", "mysql"), the client address ("" when none), the
 * sqlstate answered and how long the answer waits.
 */
void audit_login_failed(struct audit *a, const char *user, uint32_t session, const char *protocol, const char *client,
			const char *sqlstate, uint32_t wait_ms);
/*
 * path "-" is stderr. Each record carries "prev" (proxy/audit_chain.h): an
 * existing file's chain continues from its last complete line, stderr's
 * starts at zeros. Returns NULL with errno set on failure. The caller
 * owns the result.
 */
struct audit *audit_open(const char *path);
/*
 * Opens path again (SIGUSR1, after logrotate moved the file): later records
 * go there, the chain going on from the last record written, so the new
 * file's first "prev" is the old file's last line's hash. A file path still
 * names is continued from its own last line. Nothing changes on failure
 * (-1, errno set; records keep going to the file open now); "-" and a log
 * never opened are left alone.
 */
int audit_reopen(struct audit *a, const char *path);
void audit_record(struct audit *a, const struct audit_entry *e);

struct event_base;

/* The longest record a worker may hand the supervisor. */
#define AUDIT_MAX_RECORD 65536

/*
 * A worker's log (workers = N): each record goes whole, without "prev",
 * as one message on fd (a SOCK_SEQPACKET socket to the supervisor), which
 * chains them all into the one file (audit_append). Records go from base's
 * loop once it has handled what is ready now (the statement's answer to
 * its client first: waking the supervisor on this machine's CPUs costs the
 * client most of a millisecond), or at audit_close. Takes fd; borrows
 * base, which outlives a. NULL when out of memory.
 */
struct audit *audit_open_remote(int fd, struct event_base *base);
/*
 * The supervisor's side: body (len bytes, from a worker) is written as the
 * next record of a's chain, with "prev" added. -1, nothing written, when
 * body is not one JSON object on one line of at most AUDIT_MAX_RECORD
 * bytes without a "prev" of its own.
 */
int audit_append(struct audit *a, const char *body, size_t len);
/*
 * From now on each record of a held write's step (e->approval set) also
 * counts in st's airlock_approvals_total; st is borrowed and must outlive
 * a (or be unset with NULL first).
 */
void audit_count_approvals(struct audit *a, struct stats *st);
/*
 * From now on each record carries "config", checksum (the configuration's
 * SHA-256 in hex, copied), just before "prev": nodes whose policies drifted
 * apart show it record by record.
 */
void audit_set_config(struct audit *a, const char *checksum);
void audit_close(struct audit *a);

#endif
