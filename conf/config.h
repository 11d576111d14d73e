/*
 * config: one INI file (parsed with inih) into one immutable struct.
 * config_load returns a struct the caller owns and frees with config_free;
 * every string and array inside it belongs to that struct. Reload builds a
 * new struct and swaps the pointer; nothing inside is ever mutated.
 */
#ifndef AIRLOCK_CONF_CONFIG_H
#define AIRLOCK_CONF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct airlock_limits {
	uint32_t timeout_ms;        /* statement timeout in the engine; container killed at +2000 ms */
	uint32_t memory_mb;         /* container memory (and memory+swap) */
	uint32_t backend_memory_mb; /* the database backend's memory per statement (runner/runner_mem.h) */
	uint64_t nano_cpus;         /* container CPU, 1e9 = one CPU */
	uint32_t pids;              /* container PID cap */
	uint32_t max_rows;          /* rows returned before truncation */
	uint64_t max_bytes;         /* DataRow payload bytes returned before truncation */
	uint64_t max_cost;          /* planner's total cost above which a SELECT is refused; 0 = no check */
};

/*
 * A person who may decide held writes (on the approval listener), never an
 * airlock user: [approver NAME] with a SCRAM-SHA-256 verifier, no password.
 */
struct airlock_approver {
	char *name;  /* section name: [approver NAME] */
	char *scram; /* as a user's scram */
};

/*
 * An operator of the admin console (the virtual database "airlock" on the
 * Postgres listener), never an airlock user: [admin NAME] with a
 * SCRAM-SHA-256 verifier, no password.
 */
#define CONFIG_ADMIN_DATABASE "airlock" /* the database name an admin logs in to */
struct airlock_admin {
	char *name;  /* section name: [admin NAME] */
	char *scram; /* as a user's scram */
};

struct airlock_target {
	char *name;   /* section name: [target NAME] */
	char *engine; /* "postgres" or "mariadb" (MariaDB or MySQL) */
	char *host;   /* must pass the host allowlist */
	uint16_t port;
	char *database;              /* backend database */
	char *user;                  /* backend role */
	char *password;              /* read from password_file at load; never logged */
	char *password_file;         /* resolved against the config file's directory */
	uint32_t max_db_connections; /* backend connections its runners may hold at once, ready ones too; 0: no bound */
	/*
	 * Postgres: airlockd keeps logged-in backend sessions and lends one to
	 * each runner, reset between runners, never shared by two users
	 * (proxy/job/bsess.h); off: each runner logs in on a connection of its own.
	 */
	bool keep_sessions;
	/*
	 * TLS from the runner to the backend (runner/runner_tls.h):
	 * "disable", "require" (encrypted, certificate unchecked), "verify-ca"
	 * (the chain checked against sslrootcert) or "verify-full" (that, and
	 * host named in the certificate). Never a fall back to plain text.
	 */
	char *sslmode;
	char *sslrootcert; /* the CA file's path, resolved; NULL unless verify-ca or verify-full */
	char *ca_pem;      /* its PEM text, read and checked at load (at most CONF_MAX_CA_BYTES) */
};

/* The bound on a target's sslrootcert file. */
#define CONF_MAX_CA_BYTES (256u * 1024u)

/*
 * A user's budgets (token buckets, proxy/budget.h): each key's amount is
 * both what the bucket holds when full and what flows back in over its
 * period (a minute, or an hour for runner time); 0: no budget of that kind.
 */
enum airlock_budget_kind {
	AIRLOCK_BUDGET_STATEMENTS,     /* statements per minute, taken as each starts */
	AIRLOCK_BUDGET_ROWS,           /* rows per minute to the client, charged as each statement ends */
	AIRLOCK_BUDGET_BYTES,          /* bytes per minute to the client, likewise */
	AIRLOCK_BUDGET_RUNNER_SECONDS, /* seconds per hour a runner worked for the user, charged as each job ends */
	AIRLOCK_BUDGET_NKINDS
};

/* A column a rule lets the user see, and what is shown in its place. */
struct airlock_column {
	char *name; /* the column, as the database names it */
	char *mask; /* an SQL expression over the table's columns shown instead; NULL: the value itself */
};

/*
 * The row filter and column policy of one table for one user, over one
 * protocol: the user's reads see that table as
 *   SELECT <columns, masks in place> FROM table WHERE <filter>
 * wherever they name it.
 */
struct airlock_rule {
	char *table;                    /* "schema.table" (Postgres) or "db.table" (MySQL), as in the allowlist */
	char *filter;                   /* SQL predicate over the table's columns; NULL: every row */
	struct airlock_column *columns; /* the columns shown, in order; NULL: every column */
	size_t ncolumns;
	bool has_columns; /* a columns key was set (masks need it) */
};

struct airlock_user {
	char *name;                          /* section name: [user NAME] */
	char *scram;                         /* "SCRAM-SHA-256$<iter>:<salt b64>$<StoredKey b64>:<ServerKey b64>" */
	const struct airlock_target *target; /* points into config->targets */
	char *database;                      /* database name the client connects to */
	char **tables;                       /* allowlist entries: "schema.table" or "schema.*" */
	size_t ntables;
	char **functions; /* functions the database defines that this user may call: "schema.name" or "schema.*" */
	size_t nfunctions;
	struct airlock_limits limits;
	uint32_t max_connections; /* concurrent sessions of this user */
	uint32_t max_jobs;        /* statements (and open cursors) of this user running at once */
	bool plan_check;          /* Postgres reads: the runner refuses a plan that scans a relation outside tables */
	bool truncation_is_error; /* a result cut by max_rows / max_bytes ends with an error, not a notice */
	bool tls_required;        /* this user's logins without TLS are refused (the server's key: everyone's) */
	bool forbid_select_star;  /* reads whose result columns come from a star (SELECT *, t.*, TABLE t) are refused */
	uint64_t budget[AIRLOCK_BUDGET_NKINDS]; /* budget_* keys, by enum airlock_budget_kind; 0: none */

	/* Governed writes (writes = approve): each held until a person approves it. */
	char *writes;        /* "deny" or "approve" */
	char **write_tables; /* "schema.table" or "schema.*", each also in tables */
	size_t nwrite_tables;
	const struct airlock_target *write_target; /* engine "postgres": the role that writes; into config->targets */
	uint32_t max_write_rows;                   /* a write touching more is refused before anyone decides */
	uint32_t approval_ttl;                     /* seconds a held write waits for a decision */
	uint32_t approval_wait_ms;                 /* 0: answer APPROVAL_REQUIRED at once; else wait for the outcome */
	uint32_t approvals;                        /* distinct approvers a write needs: 1 or 2 */

	/* MySQL logins (all optional; a user without mysql_target cannot log in over MySQL). */
	char *mysql_native; /* "*<40 HEX>": SHA1(SHA1(password)); NULL: caching_sha2_password only */
	const struct airlock_target *mysql_target; /* engine "mariadb"; points into config->targets */
	char *mysql_database;                      /* database MySQL clients start in (default: the target's) */
	char **mysql_tables;                       /* allowlist entries "db.table" or "db.*", case kept */
	size_t nmysql_tables;
	/* Governed writes over MySQL (writes = approve): "db.table" or "db.*", each also in mysql_tables. */
	char **mysql_write_tables;
	size_t nmysql_write_tables;
	const struct airlock_target *mysql_write_target; /* engine "mariadb": the account that writes */
	bool mysql_allow_sleep;                          /* mysql_allow_functions lists sleep */
	bool mysql_allow_benchmark;

	/* Row filters and column policies: filter / columns / mask keys (Postgres), mysql_* (MySQL). */
	struct airlock_rule *rules;
	size_t nrules;
	struct airlock_rule *mysql_rules;
	size_t nmysql_rules;
};

struct airlock_config {
	char *path;            /* as given to config_load; NULL from config_load_string */
	uint8_t checksum[32];  /* SHA-256 of the text as loaded */
	char checksum_hex[65]; /* the same in lower-case hex: SHOW CONFIG, the metrics, each audit record */

	/* [server] */
	char *pg_listen_host; /* pg_listen = host:port */
	uint16_t pg_listen_port;
	char *mysql_listen_host; /* mysql_listen = host:port; NULL: no MySQL listener */
	uint16_t mysql_listen_port;
	uint32_t max_connections;                 /* authenticated sessions, all users */
	uint32_t max_unauthenticated;             /* sessions still logging in, all addresses */
	uint32_t max_unauthenticated_per_address; /* sessions still logging in from one client address */
	uint32_t max_message_bytes;               /* largest frontend message accepted */
	char *tls_cert_file;                      /* PEM certificate chain; NULL: no TLS */
	char *tls_key_file;                       /* PEM private key of tls_cert_file */
	bool tls_required;                        /* logins without TLS are refused */
	uint32_t login_free_failures;             /* failed logins per address or user name with no wait */
	uint32_t login_delay_ms;                  /* the first wait after those, doubled with each failure */
	uint32_t login_delay_max_ms;              /* the longest wait */
	uint32_t login_failure_window_ms;         /* failures are forgotten this long after the last one */
	char *job_dir;                            /* where per-job directories are made */
	char *runtime;                            /* "docker" or "oci" */
	char *docker_socket;                      /* runtime = docker */
	char *runner_image;                       /* runtime = docker: pinned by digest */
	char *oci_runtime;                        /* runtime = oci: the runtime binary */
	char *runner_rootfs;                      /* runtime = oci: /path.tar@sha256:<hex> */
	bool oci_userns;                          /* runtime = oci: a user namespace per container */
	char *runner_uids;                        /* FIRST-LAST, as written: the uids runners run as, one per job */
	uint32_t runner_uid_first; /* runner_uids parsed once at load: never 0, no host account in the range */
	uint32_t runner_uid_last;
	uint32_t validator_workers;       /* validator worker processes kept running */
	uint32_t validator_uid;           /* the uid (and gid) they run as; not 0, no runner uid */
	uint32_t validator_timeout_ms;    /* the longest one statement's validation may take */
	uint32_t validator_memory_mb;     /* each worker's address space */
	char *validator_path;             /* the worker program; NULL: airlock-validator beside airlockd */
	uint32_t kill_margin_ms;          /* container killed at timeout_ms + this */
	uint32_t shutdown_grace_ms;       /* SIGTERM: running statements get this long to finish */
	uint32_t pool_min;                /* ready runners per target and shape at idle (pool_size: its old name) */
	uint32_t pool_max;                /* what a pool may grow to while statements wait; 0: pool_min */
	uint32_t pool_refill_concurrency; /* runners of one pool starting at once */
	uint32_t pool_idle_ms;            /* an unused extra runner is retired after this */
	uint32_t pool_max_age_ms;         /* a ready runner older than this is retired unused */
	uint32_t queue_wait_ms;           /* beyond max_jobs: wait this long for room, then BUSY; 0: BUSY at once */
	uint32_t max_jobs;                /* concurrent running jobs; beyond it: busy error */
	char *audit_log;                  /* file path, or "-" for stderr */
	char *approval_store;             /* the SQLite file of held writes */
	char *state_dsn;                  /* NULL, or the Postgres database nodes share for held writes */
	char *approval_listen_host;       /* approval_listen = host:port (HTTPS); NULL: no approval listener */
	uint16_t approval_listen_port;
	char *metrics_listen_host; /* metrics_listen = host:port (HTTP, GET /metrics); NULL: none */
	uint16_t metrics_listen_port;
	char *approval_webhook;        /* each new held write is POSTed here; NULL: no webhook */
	char **approval_webhook_hosts; /* the hosts approval_webhook may name */
	size_t napproval_webhook_hosts;
	char *approval_webhook_cacert;      /* CA bundle the webhook's certificate is checked with; NULL: system's */
	char *approval_webhook_secret_file; /* open to its owner only; NULL: POSTs are not signed */
	char *approval_webhook_secret;      /* read from it: the HMAC-SHA256 key of X-Airlock-Signature */
	uint32_t peer_id; /* this node's id among its peers (1-255), in every cancel key and MySQL id; 0: none */
	uint32_t workers; /* processes sharing the listeners (1-16); each its own loop, pool and runners */
	char **peers;     /* "ID=ADDRESS:PORT" each: another node's Postgres listener, for cancels naming it */
	size_t npeers;
	char *peer_secret_file; /* open to its owner only; NULL: no KILL QUERY for another node's connection */
	char *peer_secret;      /* read from it: the HMAC-SHA256 key of peer_msg.h's messages */

	/* [hosts] allow = a, b, c */
	char **host_allow;
	size_t nhost_allow;

	struct airlock_target *targets;
	size_t ntargets;
	struct airlock_user *users;
	size_t nusers;
	struct airlock_approver *approvers;
	size_t napprovers;
	struct airlock_admin *admins;
	size_t nadmins;
#ifdef AIRLOCK_VALIDATOR_BYPASS

	/* [server] validator_bypass, test builds only (CMakeLists.txt): statements reach the runner unvalidated. */
	bool validator_bypass;
#endif
};

/* Problems found while loading: every message names the line and key. */
#define CONFIG_MAX_ERRORS 64
struct config_errors {
	size_t n;
	char msg[CONFIG_MAX_ERRORS][256];
};

/*
 * Parses and validates path. Returns NULL when anything is wrong; then errs
 * holds one explanation per problem (not just the first).
 */
struct airlock_config *config_load(const char *path, struct config_errors *errs);
/* Same, from a string (for tests); base_dir resolves relative password_file paths. */
struct airlock_config *config_load_string(const char *text, const char *base_dir, struct config_errors *errs);
void config_free(struct airlock_config *cfg);

/*
 * The first key a reload may not change (it names something bound at
 * start-up: a listener, a directory, the engine's socket, the audit file)
 * whose value differs between the running config and next; NULL when next
 * may replace running. The name is static: never freed.
 */
/*
 * workers = N: worker index's share of cfg, in place. Its own directory
 * under job_dir (job_dir/wINDEX), its own slice of runner_uids (so no two
 * workers' runners share a uid), its metrics on metrics_listen's port +
 * index, and the approval listener on worker 0 only. Applied at start and
 * after each reload, so the reload's comparison sees like with like.
 * false when out of memory (cfg unchanged as far as it matters: the caller
 * frees it).
 */
bool config_worker_share(struct airlock_config *cfg, uint32_t index);
/* Where worker index's socket for its siblings is: job_dir/.workers/INDEX.sock (job_dir as configured). */
#define CONFIG_WORKER_DIR "/.workers"
#define CONFIG_WORKER_SOCKET_TAIL CONFIG_WORKER_DIR "/15.sock"
#define CONFIG_WORKER_SOCKET_MAX 108 /* sun_path */
void config_worker_socket(const char *job_dir, uint32_t index, char *out, size_t len);

const char *config_reload_blocker(const struct airlock_config *running, const struct airlock_config *next);

/* Exact after trimming, case-insensitive; an empty allowlist allows nothing. */
bool config_host_allowed(const struct airlock_config *cfg, const char *host);

/*
 * The address of peer id (cfg->peers): its IP literal into host (hostlen
 * bytes, brackets off) and its port; false when no peer has that id.
 */
bool config_peer(const struct airlock_config *cfg, uint32_t id, char *host, size_t hostlen, uint16_t *port);
/* The same for the i-th entry of cfg->peers, its id in *id; false past the end. */
bool config_peer_at(const struct airlock_config *cfg, size_t i, uint32_t *id, char *host, size_t hostlen,
		    uint16_t *port);
/* A pointer into cfg->users (borrowed: valid as long as cfg), or NULL. */
const struct airlock_user *config_find_user(const struct airlock_config *cfg, const char *name);
/* A pointer into cfg->admins (borrowed: valid as long as cfg), or NULL. */
const struct airlock_admin *config_find_admin(const struct airlock_config *cfg, const char *name);
/* True for "sha256:<64 hex>" and "<name>@sha256:<64 hex>". */
bool config_image_pinned(const char *image);
/* Does the runner reach t over TLS (its sslmode set and not "disable")? */
bool config_target_tls(const struct airlock_target *t);
/* Does airlockd keep t's backend sessions for its runners (keep_sessions on a Postgres target)? */
bool config_target_kept(const struct airlock_target *t);

#endif
