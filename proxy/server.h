/*
 * server: the process-wide state of airlockd: the event loop, the loaded
 * config, the launcher, the job manager, the audit log, the listeners and
 * the registry of live sessions (for connection limits and CancelRequest).
 * One struct server per process; it owns everything it points to.
 *
 * The config lives in generations (proxy/gen.h): SIGHUP loads the file
 * again and, when it is valid, makes a new generation current; the server
 * holds a reference on the current one. Listeners come from one table of
 * protocols (proxy/session.h's struct session_proto), and every session
 * of either protocol is in one registry.
 */
#ifndef AIRLOCK_PROXY_SERVER_H
#define AIRLOCK_PROXY_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "conf/config.h"
#include "proxy/budget.h"

struct event_base;
struct evdns_base;
struct evconnlistener;
struct launcher;
struct jobs;
struct audit;
struct login_guard;
struct ops_history;
struct my_rsa;
struct session;
struct session_proto;
struct stats;
struct metrics_http;
struct server_gen;
struct peers;

/* The decisions of audited statements, counted since start (the admin console's SHOW STATS); other last. */
#define SERVER_DECISIONS(X) X(run) X(local) X(refused) X(error) X(held) X(admin) X(other)
enum server_decision {
#define SERVER_DECISION_ENUM(name) SERVER_DECISION_##name,
	SERVER_DECISIONS(SERVER_DECISION_ENUM)
#undef SERVER_DECISION_ENUM
};
#define SERVER_NDECISIONS (SERVER_DECISION_other + 1)

/*
 * What the supervisor (proxy/supervisor.h) hands one worker of workers =
 * N: the descriptors it made before the fork and the key the workers sign
 * their requests to each other with. The worker owns the descriptors.
 */
struct server_worker {
	uint32_t index, count;
	int listen_fd[2];   /* Postgres, MySQL: this worker's SO_REUSEPORT socket; -1 when not configured */
	int sibling_fd;     /* this worker's unix listener, where the other workers forward cancels */
	int audit_fd;       /* a SOCK_SEQPACKET socket: each audit record goes to the supervisor */
	int control_fd;     /* the same socket, for what the console asks of every worker (server_ctl.h) */
	char job_dir[4096]; /* job_dir as configured: the sockets of every worker are under it */
	uint8_t key[32];    /* signs KILL QUERY between workers (protocol/peer_msg.h) */
};

/* One listening socket and the protocol its clients speak. */
struct server_listener {
	struct server *srv;
	const struct session_proto *proto;
	struct evconnlistener *lst; /* NULL when the protocol is not configured */
};

struct server {
	struct event_base *base;
	struct evdns_base *dns;
	const struct airlock_config *cfg; /* gen->cfg */
	struct server_gen *gen;           /* the current generation */
	int job_dir_lock;                 /* holds job_dir for this process (job_dir_lock); -1 before */
	struct launcher *launcher;
	struct vpool *validators; /* the validator workers every session's statements go through */
	struct jobs *jobs;
	struct audit *audit;
	struct approval_store *approvals;    /* held writes; NULL while no user may write */
	struct approval_http *approval_http; /* the approvers' listener; NULL without approval_listen */
	struct approval_notify *notify;      /* the webhook of new held writes; NULL without approval_webhook */
	struct stats *stats;                 /* the metrics' series; NULL without metrics_listen */
	struct metrics_http *metrics_http;   /* the metrics listener; NULL without metrics_listen */
	struct ops_history *ops;             /* the operator page's last hour; NULL without approval_listen */
	struct event *ops_tick;              /* samples what is live into ops every few seconds */
	struct server_listener listeners[2]; /* Postgres, then MySQL */
	struct server_listener sibling;      /* workers = N: the other workers' forwards (Postgres); else unused */
	struct server_worker worker;         /* workers = N: who this worker is (count 1: a single process) */
	struct my_rsa *my_rsa;               /* caching_sha2_password's key pair, made at start-up */
	struct login_guard *guard;           /* failed logins per address and user name; NULL: out of memory */
	struct budgets budgets;              /* each user's budgets, kept across reloads */
	struct peers *peers;                 /* cancels forwarded to other nodes (peer.h) */
	struct ssl_ctx_st *tls;              /* the listeners' TLS context; NULL: no TLS configured */
	time_t started;
	struct event *signals[4];         /* SIGINT, SIGTERM, SIGHUP, SIGUSR1, as server_signals lists them */
	struct event *sibling_signals[2]; /* workers = N: SIGRTMIN pauses, SIGRTMIN + 1 resumes (the console's) */
	bool stopping;                    /* SIGTERM: draining (no listener, running statements finish) */
	bool paused;         /* the admin console's PAUSE: client sessions start no statement until RESUME */
	struct event *drain; /* shutdown_grace_ms: then what still runs is ended */

	unsigned nsessions;       /* Postgres and MySQL sessions together */
	unsigned npreauth;        /* of them, those still logging in (closing ones not counted) */
	unsigned nloggedin;       /* of them, those logged in and not closing: what max_connections caps */
	uint64_t accept_seq;      /* order of arrival, for evicting the oldest */
	struct session *sessions; /* every live session, linked through session.prev / next */

	/* Audited statements by decision (session_audit.c). */
	uint64_t statements[SERVER_NDECISIONS];
};

/*
 * Builds the server and binds its listeners; takes ownership of cfg (even
 * on failure). path is where SIGHUP reloads it from. worker: NULL for a
 * single process, else what the supervisor made for this worker (copied;
 * its descriptors taken even on failure). Returns -1 with a message on
 * stderr.
 */
int server_init(struct server *srv, const char *path, struct airlock_config *cfg, const struct server_worker *worker);
/* validator_uid is no host account and nothing runs as it (when root); -1 logged. */
int server_check_validator_uid(const struct airlock_config *cfg);
/* Under job_dir: the OCI runtime's state, the bundles and the unpacked root filesystem. */
#define SERVER_OCI_STATE ".oci"

/*
 * Makes cfg->job_dir, takes its lock and removes what an earlier run left
 * there (job directories, runner containers), asking the runtime through
 * rs (the caller's, kept for its later sweeps). Returns the descriptor
 * that holds the lock (the caller's), or -1 logged.
 */
struct runtime_sweep;
int server_take_job_dir(const struct airlock_config *cfg, struct runtime_sweep *rs);
/* Runs the loop until SIGINT/SIGTERM. */
int server_run(struct server *srv);
void server_fini(struct server *srv);

#endif
