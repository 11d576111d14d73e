/*
 * config_keys: the key table, one row per key: its section, name, type,
 * where it is stored, whether the section needs it, whether a reload may
 * change it, its default and what a valid value looks like. Everything
 * else about keys is derived from these rows: the defaults a section
 * starts with, the required-key check, the "known keys" in messages, what
 * config_free releases and the keys a SIGHUP reload may not change.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CFG(field) offsetof(struct airlock_config, field)
#define TGT(field) offsetof(struct airlock_target, field)
#define USR(field) offsetof(struct airlock_user, field)
#define META(field) offsetof(struct conf_user_meta, field)
#define APR(field) offsetof(struct airlock_approver, field)
#define ADM(field) offsetof(struct airlock_admin, field)
#define MIB (1024ull * 1024)
#define NANO 1000000000ull

#define REQUIRED CONF_REQUIRED
#define NO_RELOAD CONF_NO_RELOAD
#define LISTEN_FORMS "host:port with an IPv4 address, localhost or [IPv6 address], e.g. "

/* section, name, type, where, flags, default, then what the type needs. */
#define KEY(sect_, name_, type_, off_, flags_, def_, ...)                                                 \
	{                                                                                                 \
		.sect = SECT_##sect_, .name = (name_), .type = (type_), .off = (off_), .flags = (flags_), \
		.def = (def_), __VA_ARGS__                                                                \
	}

const struct conf_key conf_keys[] = {
	KEY(SERVER, "pg_listen", CT_LISTEN, CFG(pg_listen_host), REQUIRED | NO_RELOAD, NULL,
	    .off2 = CFG(pg_listen_port), .expect = LISTEN_FORMS "127.0.0.1:6432"),
	/* No default: without it there is no MySQL listener. */
	KEY(SERVER, "mysql_listen", CT_LISTEN, CFG(mysql_listen_host), NO_RELOAD, NULL, .off2 = CFG(mysql_listen_port),
	    .expect = LISTEN_FORMS "127.0.0.1:3307"),
	KEY(SERVER, "max_connections", CT_U32, CFG(max_connections), 0, "1000", .min = 1, .max = 1000000),
	KEY(SERVER, "max_unauthenticated", CT_U32, CFG(max_unauthenticated), 0, "256", .min = 1, .max = 100000),
	KEY(SERVER, "max_unauthenticated_per_address", CT_U32, CFG(max_unauthenticated_per_address), 0, "32", .min = 1,
	    .max = 100000),
	KEY(SERVER, "login_free_failures", CT_U32, CFG(login_free_failures), 0, "5", .min = 0, .max = 1000000),
	KEY(SERVER, "login_delay_ms", CT_U32, CFG(login_delay_ms), 0, "500", .min = 1, .max = 10000),
	KEY(SERVER, "login_delay_max_ms", CT_U32, CFG(login_delay_max_ms), 0, "8000", .min = 1, .max = 10000),
	KEY(SERVER, "login_failure_window_ms", CT_U32, CFG(login_failure_window_ms), 0, "900000", .min = 1000,
	    .max = 86400000),
	KEY(SERVER, "max_message_bytes", CT_U32, CFG(max_message_bytes), 0, "1048576", .min = 1024, .max = 64 * MIB),
	KEY(SERVER, "tls_cert_file", CT_PATH, CFG(tls_cert_file), 0, NULL,
	    .expect = "the path of a PEM certificate (chain) for the listeners"),
	KEY(SERVER, "tls_key_file", CT_PATH, CFG(tls_key_file), 0, NULL,
	    .expect = "the path of the PEM private key of tls_cert_file"),
	KEY(SERVER, "tls_required", CT_BOOL, CFG(tls_required), 0, "off", .expect = "on or off"),
	KEY(SERVER, "job_dir", CT_PATH, CFG(job_dir), NO_RELOAD, "/run/airlock/jobs", .expect = "a directory path"),
	KEY(SERVER, "docker_socket", CT_PATH, CFG(docker_socket), NO_RELOAD, "/var/run/docker.sock",
	    .expect = "the Docker engine's unix socket path"),
	KEY(SERVER, "runtime", CT_RUNTIME, CFG(runtime), NO_RELOAD, "docker",
	    .expect = "docker (the Docker engine at docker_socket) or oci (oci_runtime run directly)"),
	/* Needed with runtime = docker: checked when the file is complete. */
	KEY(SERVER, "runner_image", CT_IMAGE, CFG(runner_image), 0, NULL,
	    .expect = "an image pinned by digest: sha256:<64 hex> or NAME@sha256:<64 hex>"),
	KEY(SERVER, "oci_runtime", CT_PATH, CFG(oci_runtime), NO_RELOAD, "/usr/sbin/runc",
	    .expect = "the path of an OCI runtime binary, e.g. /usr/sbin/runc or /usr/bin/crun"),
	/* Needed with runtime = oci: checked when the file is complete. */
	KEY(SERVER, "runner_rootfs", CT_ROOTFS, CFG(runner_rootfs), NO_RELOAD, NULL,
	    .expect = "a root filesystem archive pinned by digest: /PATH.tar@sha256:<64 hex>"),
	KEY(SERVER, "oci_userns", CT_BOOL, CFG(oci_userns), NO_RELOAD, "on", .expect = "on or off"),
	KEY(SERVER, "runner_uids", CT_UID_RANGE, CFG(runner_uids), 0, "1000000000-1000065535",
	    .off2 = CFG(runner_uid_first), .off3 = CFG(runner_uid_last),
	    .expect = "a range of numeric uids FIRST-LAST that no host account or group uses, e.g. "
		      "1000000000-1000065535"),
	KEY(SERVER, "validator_workers", CT_U32, CFG(validator_workers), NO_RELOAD, "2", .min = 1, .max = 64),
	KEY(SERVER, "validator_uid", CT_U32, CFG(validator_uid), NO_RELOAD, "999999999", .min = 1, .max = 4294967294u),
	KEY(SERVER, "validator_timeout_ms", CT_U32, CFG(validator_timeout_ms), NO_RELOAD, "5000", .min = 10,
	    .max = 600000),
	KEY(SERVER, "validator_memory_mb", CT_U32, CFG(validator_memory_mb), NO_RELOAD, "1024", .min = 64,
	    .max = 65536),
	KEY(SERVER, "validator_path", CT_PATH, CFG(validator_path), NO_RELOAD, NULL,
	    .expect = "the airlock-validator program (default: beside airlockd)"),
	KEY(SERVER, "kill_margin_ms", CT_U32, CFG(kill_margin_ms), 0, "2000", .min = 100, .max = 600000),
	KEY(SERVER, "shutdown_grace_ms", CT_U32, CFG(shutdown_grace_ms), 0, "10000", .min = 0, .max = 600000),
	KEY(SERVER, "pool_min", CT_U32, CFG(pool_min), 0, "0", .min = 0, .max = 1024),
	/* The old name of pool_min: the same field (both at once is an error, checked at the end). */
	KEY(SERVER, "pool_size", CT_U32, CFG(pool_min), 0, NULL, .min = 0, .max = 1024),
	/* 0: pool_min, no growth. */
	KEY(SERVER, "pool_max", CT_U32, CFG(pool_max), 0, "0", .min = 0, .max = 1024),
	KEY(SERVER, "pool_refill_concurrency", CT_U32, CFG(pool_refill_concurrency), 0, "2", .min = 1, .max = 64),
	KEY(SERVER, "pool_idle_ms", CT_U32, CFG(pool_idle_ms), 0, "30000", .min = 100, .max = 86400000),
	KEY(SERVER, "pool_max_age_ms", CT_U32, CFG(pool_max_age_ms), 0, "600000", .min = 1000, .max = 86400000),
	KEY(SERVER, "queue_wait_ms", CT_U32, CFG(queue_wait_ms), 0, "2000", .min = 0, .max = 600000),
	KEY(SERVER, "max_jobs", CT_U32, CFG(max_jobs), 0, "16", .min = 1, .max = 4096),
	/* No default: without it there is no approval listener. */
	KEY(SERVER, "approval_listen", CT_LISTEN, CFG(approval_listen_host), NO_RELOAD, NULL,
	    .off2 = CFG(approval_listen_port), .expect = LISTEN_FORMS "127.0.0.1:8443"),
	/* No default: without it there is no metrics listener. */
	KEY(SERVER, "metrics_listen", CT_LISTEN, CFG(metrics_listen_host), NO_RELOAD, NULL,
	    .off2 = CFG(metrics_listen_port), .expect = LISTEN_FORMS "127.0.0.1:9930"),
	/* Peering: which node issued a cancel key or MySQL id, and where the others listen. */
	KEY(SERVER, "peer_id", CT_U32, CFG(peer_id), NO_RELOAD, "0", .min = 0, .max = 255,
	    .expect = "this node's id among its peers, 1 to 255, or 0 for a node without peers"),
	KEY(SERVER, "workers", CT_U32, CFG(workers), NO_RELOAD, "1", .min = 1, .max = 16,
	    .expect = "how many processes share the listeners, 1 to 16 (one event loop each)"),
	KEY(SERVER, "peer_secret_file", CT_SECRET_FILE, CFG(peer_secret_file), 0, NULL, .off2 = CFG(peer_secret),
	    .expect = "the path of a file (mode 0600), the same on every node, holding the key that signs what "
		      "nodes ask of each other (KILL QUERY)"),
	KEY(SERVER, "peers", CT_PEER_LIST, CFG(peers), 0, NULL, .off2 = CFG(npeers),
	    .expect = "a comma-separated list of ID=ADDRESS:PORT, each another node's id and Postgres listener "
		      "(an IPv4 or [IPv6] address), e.g. 2=10.0.0.2:6432"),
	KEY(SERVER, "approval_store", CT_PATH, CFG(approval_store), NO_RELOAD, "/var/lib/airlock/approvals.db",
	    .expect = "the SQLite file that keeps held writes"),
	/* No default: held writes stay in approval_store, this node's own. */
	KEY(SERVER, "state_dsn", CT_CONNINFO, CFG(state_dsn), NO_RELOAD, NULL,
	    .expect = "a libpq connection string to the Postgres database the nodes share for held writes, "
		      "without a password (name a passfile= instead), e.g. host=10.0.0.5 dbname=airlock "
		      "user=airlock passfile=/etc/airlock/state.pgpass sslmode=verify-full"),
	/* No default: no webhook. Its host must be in approval_webhook_hosts (checked at the end). */
	KEY(SERVER, "approval_webhook", CT_WEBHOOK_URL, CFG(approval_webhook), NO_RELOAD, NULL,
	    .expect = "https://HOST[:PORT]/PATH (http:// only to 127.0.0.1 or [::1]), HOST listed in "
		      "approval_webhook_hosts"),
	KEY(SERVER, "approval_webhook_hosts", CT_HOST_LIST, CFG(approval_webhook_hosts), NO_RELOAD, NULL,
	    .off2 = CFG(napproval_webhook_hosts),
	    .expect = "a comma-separated list of the host names or IP addresses approval_webhook may name"),
	KEY(SERVER, "approval_webhook_cacert", CT_PATH, CFG(approval_webhook_cacert), NO_RELOAD, NULL,
	    .expect = "a PEM file of the CAs approval_webhook's certificate is checked against"),
	KEY(SERVER, "approval_webhook_secret_file", CT_SECRET_FILE, CFG(approval_webhook_secret_file), NO_RELOAD, NULL,
	    .off2 = CFG(approval_webhook_secret),
	    .expect = "the path of a file (mode 0600) holding the key that signs each webhook POST"),
	KEY(SERVER, "audit_log", CT_AUDIT, CFG(audit_log), NO_RELOAD, "-",
	    .expect = "\"-\" for stderr, or a file path"),

	/* No default: an empty list denies every target. */
	KEY(HOSTS, "allow", CT_HOST_LIST, CFG(host_allow), 0, NULL, .off2 = CFG(nhost_allow),
	    .expect = "a comma-separated list of host names or IP addresses (empty denies every target)"),

	KEY(TARGET, "engine", CT_ENGINE, TGT(engine), 0, "postgres", .expect = "postgres or mariadb"),
	KEY(TARGET, "host", CT_HOST, TGT(host), REQUIRED, NULL,
	    .expect = "a host name or IP address listed in [hosts] allow"),
	KEY(TARGET, "port", CT_U16, TGT(port), REQUIRED, NULL, .min = 1, .max = 65535),
	KEY(TARGET, "database", CT_TEXT, TGT(database), REQUIRED, NULL, .expect = "the backend database name"),
	KEY(TARGET, "user", CT_TEXT, TGT(user), REQUIRED, NULL, .expect = "the backend role name"),
	KEY(TARGET, "password_file", CT_PASSWORD_FILE, TGT(password_file), REQUIRED, NULL, .off2 = TGT(password),
	    .expect = "the path of a file holding the backend password"),
	/* 0: no bound. Ready runners hold a connection each, so they count. */
	KEY(TARGET, "max_db_connections", CT_U32, TGT(max_db_connections), 0, "0", .min = 0, .max = 100000),
	/* Postgres only (refused for mariadb when the file is complete): proxy/job/bsess.h. */
	KEY(TARGET, "keep_sessions", CT_BOOL, TGT(keep_sessions), 0, "off", .expect = "on or off"),
	KEY(TARGET, "sslmode", CT_SSLMODE, TGT(sslmode), 0, "disable",
	    .expect = "disable, require, verify-ca or verify-full"),
	/* Needed by verify-ca and verify-full, refused by the others: checked when the file is complete. */
	KEY(TARGET, "sslrootcert", CT_CA_FILE, TGT(sslrootcert), 0, NULL, .off2 = TGT(ca_pem),
	    .expect = "the path of a PEM file of the CA certificates the database's certificate is checked against"),

	KEY(USER, "scram", CT_SCRAM, USR(scram), REQUIRED, NULL,
	    .expect = "a SCRAM-SHA-256 verifier; make one with `airlockd --make-verifier`"),
	/* A user needs target, mysql_target or both: checked when the file is complete. */
	KEY(USER, "target", CT_TARGET_REF, META(target_name), 0, NULL,
	    .expect = "the NAME of a [target NAME] section with engine postgres"),
	/* No default here: it is the target's database, filled in once targets are resolved. */
	KEY(USER, "database", CT_TEXT, USR(database), 0, NULL, .expect = "the database name clients connect to"),
	KEY(USER, "tables", CT_TABLE_LIST, USR(tables), 0, NULL, .off2 = USR(ntables),
	    .expect = "a comma-separated list of schema.table, table or schema.*"),
	KEY(USER, "functions", CT_TABLE_LIST, USR(functions), 0, NULL, .off2 = USR(nfunctions),
	    .expect = "a comma-separated list of schema.function, function or schema.*"),
	KEY(USER, "timeout_ms", CT_U32, USR(limits.timeout_ms), 0, "10000", .min = 1, .max = 3600000),
	KEY(USER, "memory_mb", CT_U32, USR(limits.memory_mb), 0, "128", .min = 16, .max = 65536),
	KEY(USER, "backend_memory_mb", CT_U32, USR(limits.backend_memory_mb), 0, "256", .min = 16, .max = 65536),
	KEY(USER, "cpus", CT_CPUS, USR(limits.nano_cpus), 0, "0.5", .min = NANO / 100, .max = 64 * NANO,
	    .expect = "a number of CPUs from 0.01 to 64, e.g. 0.5"),
	KEY(USER, "pids", CT_U32, USR(limits.pids), 0, "64", .min = 8, .max = 4096),
	KEY(USER, "max_rows", CT_U32, USR(limits.max_rows), 0, "1000", .min = 1, .max = 10000000),
	KEY(USER, "max_bytes", CT_U64, USR(limits.max_bytes), 0, "1000000", .min = 1, .max = 1024 * MIB),
	KEY(USER, "max_cost", CT_U64, USR(limits.max_cost), 0, "0", .min = 0, .max = UINT64_C(1000000000000000)),
	KEY(USER, "max_connections", CT_U32, USR(max_connections), 0, "100", .min = 1, .max = 1000000),
	KEY(USER, "max_jobs", CT_U32, USR(max_jobs), 0, "8", .min = 1, .max = 4096),
	KEY(USER, "plan_check", CT_BOOL, USR(plan_check), 0, "off", .expect = "on or off"),
	KEY(USER, "truncation_is_error", CT_BOOL, USR(truncation_is_error), 0, "off", .expect = "on or off"),
	KEY(USER, "tls_required", CT_BOOL, USR(tls_required), 0, "off", .expect = "on or off"),
	KEY(USER, "forbid_select_star", CT_BOOL, USR(forbid_select_star), 0, "off", .expect = "on or off"),
	KEY(USER, "budget_statements_per_minute", CT_U64, USR(budget[AIRLOCK_BUDGET_STATEMENTS]), 0, "0", .min = 0,
	    .max = 100000000),
	KEY(USER, "budget_rows_per_minute", CT_U64, USR(budget[AIRLOCK_BUDGET_ROWS]), 0, "0", .min = 0,
	    .max = UINT64_C(1000000000000)),
	KEY(USER, "budget_bytes_per_minute", CT_U64, USR(budget[AIRLOCK_BUDGET_BYTES]), 0, "0", .min = 0,
	    .max = UINT64_C(1000000000000000)),
	KEY(USER, "budget_runner_seconds_per_hour", CT_U64, USR(budget[AIRLOCK_BUDGET_RUNNER_SECONDS]), 0, "0",
	    .min = 0, .max = 100000000),
	/* Governed writes: held until a person approves them (checked together when the file is complete). */
	KEY(USER, "writes", CT_WRITES, USR(writes), 0, "deny",
	    .expect = "deny (every write refused) or approve (a write on write_tables held for approval)"),
	KEY(USER, "write_tables", CT_TABLE_LIST, USR(write_tables), 0, NULL, .off2 = USR(nwrite_tables),
	    .expect = "a comma-separated list of schema.table or schema.*, each also in tables"),
	KEY(USER, "write_target", CT_TARGET_REF, META(write_target_name), 0, NULL,
	    .expect = "the NAME of a [target NAME] section with engine postgres whose role may write write_tables"),
	KEY(USER, "max_write_rows", CT_U32, USR(max_write_rows), 0, "100", .min = 1, .max = 10000000),
	KEY(USER, "approval_ttl", CT_U32, USR(approval_ttl), 0, "3600", .min = 10, .max = 30 * 86400,
	    .expect = "seconds a held write waits for a decision before it expires"),
	KEY(USER, "approval_wait_ms", CT_U32, USR(approval_wait_ms), 0, "0", .min = 0, .max = 3600000),
	KEY(USER, "approvals", CT_U32, USR(approvals), 0, "1", .min = 1, .max = 2,
	    .expect = "1, or 2 for two distinct approvers per write"),
	KEY(USER, "mysql_native", CT_MY_NATIVE, USR(mysql_native), 0, NULL,
	    .expect = "a mysql_native_password hash: * and 40 hex digits, as MariaDB's PASSWORD() prints"),
	KEY(USER, "mysql_target", CT_TARGET_REF, META(mysql_target_name), 0, NULL,
	    .expect = "the NAME of a [target NAME] section with engine mariadb"),
	/* No default here: it is the mysql_target's database, filled in once targets are resolved. */
	KEY(USER, "mysql_database", CT_TEXT, USR(mysql_database), 0, NULL,
	    .expect = "the database name MySQL clients start in"),
	KEY(USER, "mysql_tables", CT_MY_TABLE_LIST, USR(mysql_tables), 0, NULL, .off2 = USR(nmysql_tables),
	    .expect = "a comma-separated list of db.table or db.*"),
	KEY(USER, "mysql_write_tables", CT_MY_TABLE_LIST, USR(mysql_write_tables), 0, NULL,
	    .off2 = USR(nmysql_write_tables),
	    .expect = "a comma-separated list of db.table or db.*, each also in mysql_tables"),
	KEY(USER, "mysql_write_target", CT_TARGET_REF, META(mysql_write_target_name), 0, NULL,
	    .expect = "the NAME of a [target NAME] section with engine mariadb whose account may write "
		      "mysql_write_tables"),
	KEY(USER, "mysql_allow_functions", CT_MY_FUNCS, USR(mysql_allow_sleep), 0, NULL,
	    .off2 = USR(mysql_allow_benchmark), .expect = "a comma-separated list of sleep, benchmark"),
	KEY(APPROVER, "scram", CT_SCRAM, APR(scram), REQUIRED, NULL,
	    .expect = "a SCRAM-SHA-256 verifier of the approver's password; make one with `airlockd --make-verifier`"),
	KEY(ADMIN, "scram", CT_SCRAM, ADM(scram), REQUIRED, NULL,
	    .expect = "a SCRAM-SHA-256 verifier of the admin's password; make one with `airlockd --make-verifier`"),
	/* Row filters and column policies, one key per table (and per masked column). */
	KEY(USER, "filter ", CT_RULE_FILTER, USR(rules), CONF_PREFIX, NULL, .off2 = USR(nrules),
	    .expect = "filter schema.table = an SQL predicate over its columns, e.g. customer_id <= 100"),
	KEY(USER, "columns ", CT_RULE_COLUMNS, USR(rules), CONF_PREFIX, NULL, .off2 = USR(nrules),
	    .expect = "columns schema.table = a comma-separated list of its column names"),
	KEY(USER, "mask ", CT_RULE_MASK, USR(rules), CONF_PREFIX, NULL, .off2 = USR(nrules),
	    .expect = "mask schema.table.column = an SQL expression over the table's columns"),
	KEY(USER, "mysql_filter ", CT_RULE_FILTER, USR(mysql_rules), CONF_PREFIX, NULL, .off2 = USR(nmysql_rules),
	    .off3 = 1, .expect = "mysql_filter db.table = an SQL predicate over its columns"),
	KEY(USER, "mysql_columns ", CT_RULE_COLUMNS, USR(mysql_rules), CONF_PREFIX, NULL, .off2 = USR(nmysql_rules),
	    .off3 = 1, .expect = "mysql_columns db.table = a comma-separated list of its column names"),
	KEY(USER, "mysql_mask ", CT_RULE_MASK, USR(mysql_rules), CONF_PREFIX, NULL, .off2 = USR(nmysql_rules),
	    .off3 = 1, .expect = "mysql_mask db.table.column = an SQL expression over the table's columns"),
};

#define NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))
_Static_assert(NKEYS <= CONF_MAX_KEYS, "every row has a line in struct conf_seen");
const size_t conf_nkeys = NKEYS;

const struct conf_key *conf_find_key(enum conf_section s, const char *name)
{
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];
		size_t n = strlen(k->name);

		if (k->sect != s)
			continue;
		if (k->flags & CONF_PREFIX ? strncasecmp(k->name, name, n) == 0 && name[n] != '\0'
					   : strcasecmp(k->name, name) == 0)
			return k;
	}
	return NULL;
}

void conf_apply_defaults(struct conf_ctx *ctx, enum conf_section s, void *base)
{
	unsigned line = ctx->line;
	size_t i;

	/* A default that does not parse is airlock's bug, not a line of the file. */
	ctx->line = 0;
	for (i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == s && conf_keys[i].def)
			conf_set(ctx, &conf_keys[i], base, "built-in default of", conf_keys[i].def);
	ctx->line = line;
}

void conf_check_required(struct conf_ctx *ctx, enum conf_section s, const struct conf_seen *seen, const char *label)
{
	char ebuf[64];
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == s && (conf_keys[i].flags & CONF_REQUIRED) && !seen->key_line[i])
			conf_err(ctx, seen->header_line, "%s is missing %s; expected %s", label, conf_keys[i].name,
				 conf_expect_text(&conf_keys[i], ebuf, sizeof(ebuf)));
}

unsigned conf_key_line(enum conf_section s, const struct conf_seen *seen, const char *key)
{
	const struct conf_key *k = conf_find_key(s, key);

	if (k && seen->key_line[k - conf_keys])
		return seen->key_line[k - conf_keys];
	return seen->header_line;
}

void conf_key_names(enum conf_section s, char *buf, size_t cap)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < NKEYS && off < cap; i++)
		if (conf_keys[i].sect == s)
			off += (size_t)snprintf(buf + off, cap - off, "%s%s%s", off ? ", " : "", conf_keys[i].name,
						!(conf_keys[i].flags & CONF_PREFIX) ? ""
						: conf_keys[i].type == CT_RULE_MASK ? "TABLE.COLUMN"
										    : "TABLE");
}

void conf_free_fields(enum conf_section s, void *base)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == s)
			conf_field_free(&conf_keys[i], base);
}

const char *config_reload_blocker(const struct airlock_config *running, const struct airlock_config *next)
{
	size_t i;

	/* Only [server] and [hosts] are stored in struct airlock_config itself. */
	for (i = 0; i < NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		if ((k->flags & CONF_NO_RELOAD) && (k->sect == SECT_SERVER || k->sect == SECT_HOSTS) &&
		    !conf_field_equal(k, running, next))
			return k->name;
	}
	return NULL;
}
