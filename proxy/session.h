/*
 * session: the core both client protocols share. A Postgres session
 * (proxy/pg/) and a MySQL session (proxy/mysql/) each embed one struct
 * session as their first member and describe their wire protocol to it
 * with a struct session_proto; the core does the rest of a connection's
 * life:
 *
 *   - accept: the global connection limit, the socket options, the
 *     bufferevent, the authentication deadline, the session's id, the
 *     config generation it holds, and the registry of live sessions that
 *     CancelRequest and KILL QUERY search;
 *   - the framed read loop: the protocol says how long the next message
 *     is from its first bytes, the core buffers exactly that much (8 KiB
 *     at most before authentication, max_message_bytes after) and hands
 *     it over whole; input waits while a statement runs;
 *   - back-pressure: a job's frames stop being read while the client has
 *     more than SESSION_OUT_HIGH_WATER bytes unsent;
 *   - starting and ending jobs under the user's max_jobs, and the audit
 *     record of each statement (session_audit.c), which asks the protocol
 *     for the client's program name;
 *   - close with a reason (logged with the session's identity), a flush
 *     when asked, and the free on a later loop pass, never inside the
 *     callback that closed it.
 *
 * The state below is written only by session_set_state(), which checks
 * each move against one table and moves the server's counts with it:
 *
 *   AUTH     logging in (counted in srv->npreauth); input is read, small
 *            messages only, except while a login verdict waits
 *            (s->waiting, session_verdict).
 *   READY    logged in (counted in srv->nloggedin) and waiting for the
 *            client: input is read and the idle limit runs.
 *   BUSY     logged in, a statement (or FETCH, or Describe) runs for it:
 *            input waits until it is answered.
 *   CLOSING  session_close was called: counted nowhere, nothing is read,
 *            the session is freed on a later loop pass.
 *
 *   AUTH  -> READY    session_login
 *   READY -> BUSY     a statement went to a job (the protocols)
 *   BUSY  -> READY    its answer is written (the protocols)
 *   AUTH, READY, BUSY -> CLOSING   session_close (only: it does what
 *                                  closing takes, then moves the state)
 *
 * Anything else is airlockd's bug: strict builds (proxy/strict.h) abort;
 * others log it and close the session. One exception: CLOSING is
 * terminal, and a move asked of a closing session is ignored quietly (a
 * reply that could not be built closes the session in the middle of an
 * answer whose end still asks for READY).
 *
 * A session is owned by the loop: it frees itself after session_close(),
 * or in session_close_all() at shutdown.
 */
#ifndef AIRLOCK_PROXY_SESSION_H
#define AIRLOCK_PROXY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <event2/util.h>

#include "base/errors.h"
#include "base/wbuf.h"

#define SESSION_OUT_HIGH_WATER (1024u * 1024u)
#define SESSION_OUT_LOW_WATER (256u * 1024u)
/* Before authentication only messages this small are buffered (SCRAM's and MySQL's handshakes fit). */
#define SESSION_PREAUTH_MAX_MESSAGE 8192u
#define SESSION_AUTH_TIMEOUT_SEC 15
/* The deadline to log in while more than half the unauthenticated budget is taken. */
#define SESSION_AUTH_TIMEOUT_PRESSED_SEC 3
/* Bytes of a message's start that frame sees. */
#define SESSION_PEEK 16

/* The states, from one list so their names cannot drift. */
#define SESSION_STATES(X) \
	X(AUTH)           \
	X(READY)          \
	X(BUSY)           \
	X(CLOSING)

enum session_state {
#define SESSION_ENUM(name) SESSION_##name,
	SESSION_STATES(SESSION_ENUM)
#undef SESSION_ENUM
};
#define SESSION_NSTATES (SESSION_CLOSING + 1)

struct budget;
struct bufferevent;
struct event;
struct job;
struct job_events;
struct job_request;
struct server;
struct server_gen;
struct airlock_user;
struct session;

/* What a wire protocol tells the core. Every hook but frame and message may be NULL. */
struct session_proto {
	const char *name; /* "pg" or "mysql": leads the session's log lines */
	size_t size;      /* bytes of the protocol's session struct, whose first member is a struct session */
	size_t header;    /* bytes buffered before frame is asked (at most SESSION_PEEK) */
	/*
	 * The whole length of the next message, from the first n bytes
	 * buffered (n >= header): > 0 (when it is more than n, frame is asked
	 * again once that much is buffered, so a protocol whose header length
	 * varies can ask for more), or 0 after refusing the header (the
	 * protocol has answered and closed the session). max is the message
	 * size allowed in the current state.
	 */
	size_t (*frame)(struct session *s, const uint8_t *hdr, size_t n, uint32_t max);
	/* One whole message (its header included); borrowed for the call. */
	void (*message)(struct session *s, const uint8_t *msg, size_t len);
	/* Right after accept: the greeting, if the protocol speaks first. False closes the session. */
	bool (*start)(struct session *s);
	/* Over max_connections: answers on fd before it is closed (no session exists). */
	void (*refuse)(evutil_socket_t fd);
	/* The authentication deadline passed: answer; the core closes. */
	void (*auth_timeout)(struct session *s);
	/* Logged in and waiting for the client: ms it may stay idle before the session is closed; 0: no limit. */
	uint64_t (*idle_ms)(struct session *s);
	/* That idle limit passed: answer (the core closes). */
	void (*idle_timeout)(struct session *s);
	/* The server is shutting down: answer (the core closes). */
	void (*shutdown)(struct session *s);
	/* The client's unsent output fell below SESSION_OUT_LOW_WATER. */
	void (*drained)(struct session *s);
	/* Closing: detach what still runs for the session (the core detaches s->job itself). */
	void (*close)(struct session *s);
	/* Freeing: release what the protocol's struct owns. */
	void (*free)(struct session *s);
	/*
	 * The name the client gave its program (Postgres application_name,
	 * MySQL program_name), for the audit log; "" when none. Borrowed from
	 * the session until it next changes.
	 */
	const char *(*application)(struct session *s);
};

struct session {
	const struct session_proto *proto;
	struct server *srv;
	struct session *prev, *next; /* the registry: every live session of either protocol */
	struct bufferevent *bev;
	struct event *timer; /* the authentication deadline, then the deferred free */
	struct event *idle;  /* proto->idle_ms's limit while waiting for the client; made on first use */
	enum session_state st;

	uint32_t id; /* the backend pid (Postgres) or connection id (MySQL) the client sees */
	char user[64];
	struct server_gen *gen;       /* the config generation this session logged in under (held) */
	const struct airlock_user *u; /* in gen->cfg; NULL until the user is known */
	bool counted;                 /* counted in the generation's sessions of u */
	bool admin;                   /* an admin console session (u NULL): runs no statement, never paused */
	struct budget *budget;        /* the user's budgets (server's registry, outliving the session); NULL: none */
	time_t since;                 /* when it arrived (wall clock), for the admin console */

	bool waiting; /* AUTH: a login verdict waits out failed logins (session_verdict): input is not read */
	bool verdict_pass;
	void (*verdict_then)(struct session *s, bool pass);
	bool progressed;     /* a whole first message arrived (a flood's half-open connections never get here) */
	bool in_message;     /* session_process is handing a message to the protocol (t0 is its arrival) */
	bool tls;            /* bev is TLS over the socket (session_start_tls) */
	bool tls_next;       /* asked for: TLS starts once the message that asked is consumed */
	uint8_t flush_waits; /* closing over TLS: loop passes spent waiting for the socket to take the rest */
	bool tls_ended;      /* close_notify queued */
	uint64_t seq;        /* srv->accept_seq at arrival */
	uint8_t addr[16];    /* the client's address (IPv4 or IPv6 bytes); addrlen 0: none (a pair in tests) */
	uint8_t addrlen;

	/* The running statement. */
	struct job *job;
	unsigned njobs;  /* jobs of this session not yet released (its statement, open cursors and portals) */
	bool out_paused; /* a job is paused until the client's output drains */
	uint64_t fingerprint;
	struct timespec t0;
	uint64_t validate_ns; /* validator time of the messages since the last audit record (a phase of the metrics) */

	struct wbuf w; /* the reply being built; session_flush sends it */
};

/* Takes ownership of fd: a session of proto, or fd closed (after proto->refuse when the server is full). */
void session_accept(struct server *srv, const struct session_proto *proto, evutil_socket_t fd);
/*
 * The same over a connected bufferevent (owned from now on; freed on
 * failure). Returns the session, which the loop owns, or NULL. Does not
 * check max_connections.
 */
struct session *session_attach(struct server *srv, const struct session_proto *proto, struct bufferevent *bev);
/* Frees every session at once (shutdown). */
void session_close_all(struct server *srv);
/*
 * Shutting down (srv->stopping): every session not running a statement is
 * told and closed, now and whenever a statement ends; with force, those
 * running one too (their jobs are detached, their containers killed).
 */
void session_shutdown_all(struct server *srv, bool force);
/* The live session of proto with this id, or NULL. */
struct session *session_find(struct server *srv, const struct session_proto *proto, uint32_t id);

/*
 * The one way a session's state moves (see the table above), CLOSING
 * excepted: session_close moves to it. false when it did not move: the
 * session was closing, or the move is forbidden (the bug is logged and
 * the session closed).
 */
bool session_set_state(struct session *s, enum session_state st);
/* Does the table allow from -> to? */
bool session_state_allowed(enum session_state from, enum session_state to);
const char *session_state_name(enum session_state st);
/*
 * Ends the session: logs why, detaches its job, stops reading, and frees
 * it on a later pass, after the queued output went out when flush is set.
 * Later calls do nothing.
 */
void session_close(struct session *s, bool flush, const char *why);
/* Sends what s->w holds and empties it; a reply that could not be built closes the session instead. */
void session_flush(struct session *s);
/* Log lines prefixed with the protocol and the session's id: information and warnings. */
/* The client's address as text in out (INET6_ADDRSTRLEN bytes), "" when it has none (a unix socket). */
void session_client(const struct session *s, char *out, size_t len);
__attribute__((format(printf, 2, 3))) void session_log(const struct session *s, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void session_warn(const struct session *s, const char *fmt, ...);

/*
 * Authentication (how: the mechanism, for the log) done: counts the
 * session against u's max_connections; false when u is at its limit.
 * An admin's session (s->admin) has no u and no such limit; both count
 * in the server's max_connections.
 */
bool session_login(struct session *s, const char *how);
/*
 * The password check is done (pass: the password was right for an existing
 * user). A failure is counted against the client's address and the user
 * name, logged and audited with sqlstate. then(s, pass) answers the client;
 * it runs at once, or, after repeated failures for the address or the name
 * (server login_* keys), once their wait is over, the same wait whatever
 * the verdict. Input is not read meanwhile.
 */
void session_verdict(struct session *s, bool pass, const char *sqlstate, void (*then)(struct session *s, bool pass));
/*
 * The client asked for TLS and was told yes (that answer already written):
 * from the next byte on the session speaks TLS, the handshake first.
 * False (the session is closed) when the server has no TLS or it fails.
 */
bool session_start_tls(struct session *s);
/*
 * Reads the input that waited (after a statement, or a FETCH, finished).
 * While the server is paused (srv->paused) a logged-in session that is
 * not an admin's reads nothing: its next statement waits in its input.
 */
void session_process(struct session *s);
/* The pause is over: every logged-in session reads what waited. */
void session_resume_all(struct server *srv);
/* The live session (either protocol) with this id, or NULL. */
struct session *session_find_any(struct server *srv, uint32_t id);
/*
 * The end of a statement whose reply (its end included) is in s->w: sends
 * it, the session is READY again, and the messages that arrived meanwhile
 * are processed. The one end-of-statement step of both protocols.
 */
void session_statement_done(struct session *s);

/* Why session_job_start gave no job: the code, and the message and hint the client is told. */
struct session_refusal {
	enum airlock_err code; /* BUSY, BUDGET or OUT_OF_MEMORY */
	char message[320];
	char hint[96];
};
/*
 * A job for the user's statement: past the user's own max_jobs it waits
 * in the queue (job.h user_max_jobs) as one past the server's does. A
 * session that holds jobs already (open cursors, portals) would wait for
 * itself: past its user's max_jobs it gets NULL, refused with BUSY. A
 * statement (not a describe) past one of the user's budgets (budget.h)
 * gets NULL, refused with BUDGET and when to retry; the job's runner time
 * is charged to the user's budget when it ends. NULL with OUT_OF_MEMORY
 * when out of memory. Each job it returned is matched by one
 * session_job_release when its pointer is dropped.
 */
struct job *session_job_start(struct session *s, const struct job_request *req, const struct job_events *ev, void *arg,
			      struct session_refusal *why);
void session_job_release(struct session *s);
/* The statement's job (s->job) delivered its result: s->job is dropped and released. */
void session_job_finished(struct session *s);
/* After a frame went out: pauses j while the client has too much unsent. */
void session_backpressure(struct session *s, struct job *j);

/* The audit record of the statement started at s->t0. */
void session_audit(struct session *s, const char *decision, const char *sqlstate, enum airlock_err code, uint64_t rows,
		   uint64_t bytes, uint8_t truncated);
/* The statement is a write held for approval id (rows: its dry run's), audited with the id. */
void session_audit_held(struct session *s, const char *approval, uint64_t rows);
/* A statement begins: its clock and fingerprint. */
void session_statement_begin(struct session *s, uint64_t fingerprint);

#endif
