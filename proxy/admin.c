/*
 * admin: the console's commands over the server's state: the sessions'
 * registry, the job manager, the validator pool and the current config.
 */
#define _GNU_SOURCE
#include "proxy/admin.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "conf/config.h"
#include "proxy/admin_cmd.h"
#include "proxy/budget.h"
#include "proxy/job/job.h"
#include "proxy/peer.h"
#include "proxy/server.h"
#include "proxy/server_ctl.h"
#include "proxy/timeval.h"
#include "proxy/session.h"
#include "proxy/validator_pool.h"

#define ADMIN_MAX_CELLS 16
#define ADMIN_CELL 256

/* One row being built: cells written with cell(), handed over with emit(). */
struct row {
	char cells[ADMIN_MAX_CELLS][ADMIN_CELL];
	const char *ptrs[ADMIN_MAX_CELLS];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void cell(struct row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n == ADMIN_MAX_CELLS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->cells[r->n], ADMIN_CELL, fmt, ap);
	va_end(ap);
	r->ptrs[r->n] = r->cells[r->n];
	r->n++;
}

static void emit(const struct admin_out *out, struct row *r, uint64_t *rows)
{
	out->row(out->arg, r->ptrs, r->n);
	r->n = 0;
	(*rows)++;
}

/* A key/value row. */
static void kv(const struct admin_out *out, struct row *r, uint64_t *rows, const char *key, const char *value)
{
	cell(r, "%s", key);
	cell(r, "%s", value ? value : "");
	emit(out, r, rows);
}

static void kv_u64(const struct admin_out *out, struct row *r, uint64_t *rows, const char *key, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	kv(out, r, rows, key, buf);
}

static void show_pools(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"target",   "engine",  "connections", "max_db_connections", "ready", "busy",
					    "starting", "waiting", "kept"};
	const struct airlock_config *cfg = srv->cfg;

	out->columns(out->arg, names, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < cfg->ntargets; i++) {
		const struct airlock_target *t = &cfg->targets[i];
		struct jobs_target_counts c = {0};

		jobs_target_counts(srv->jobs, t->name, &c);
		cell(r, "%s", t->name);
		cell(r, "%s", t->engine);
		cell(r, "%u", c.connections);
		cell(r, "%" PRIu32, t->max_db_connections);
		cell(r, "%u", c.ready);
		cell(r, "%u", c.busy);
		cell(r, "%u", c.starting);
		cell(r, "%u", c.waiting);
		cell(r, "%u", c.kept);
		emit(out, r, rows);
	}
}

static void show_stats(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"stat", "value"};
	static const char *const decisions[] = {
#define ADMIN_DECISION_KEY(name) "statements_" #name,
		SERVER_DECISIONS(ADMIN_DECISION_KEY)
#undef ADMIN_DECISION_KEY
	};
	uint64_t calls = 0, failures = 0, started = 0;

	vpool_counts(srv->validators, &calls, &failures, &started);
	out->columns(out->arg, names, 2);
	for (size_t i = 0; i < SERVER_NDECISIONS; i++)
		kv_u64(out, r, rows, decisions[i], srv->statements[i]);
	kv_u64(out, r, rows, "validator_calls", calls);
	kv_u64(out, r, rows, "validator_failures", failures);
	kv_u64(out, r, rows, "validators_started", started);
	kv_u64(out, r, rows, "jobs_live", jobs_live(srv->jobs));
	kv_u64(out, r, rows, "queue_depth", jobs_queue_len(srv->jobs));
	kv_u64(out, r, rows, "sessions", srv->nsessions);
	kv_u64(out, r, rows, "sessions_logging_in", srv->npreauth);
	kv_u64(out, r, rows, "sessions_logged_in", srv->nloggedin);
	kv(out, r, rows, "paused", srv->paused ? "on" : "off");
	kv_u64(out, r, rows, "uptime_seconds", (uint64_t)(time(NULL) - srv->started));
}

static const char *client_state(const struct session *s)
{
	switch (s->st) {
	case SESSION_AUTH:
		return "logging_in";
	case SESSION_READY:
		return s->srv->paused && !s->admin ? "paused" : "idle";
	case SESSION_BUSY:
		return "busy";
	default:
		return "closing";
	}
}

static void show_clients(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {
		"id", "protocol", "user", "client", "state", "connected_seconds", "application_name", "fingerprint"};
	time_t now = time(NULL);

	out->columns(out->arg, names, 8);
	for (struct session *s = srv->sessions; s; s = s->next) {
		char addr[64];

		session_client(s, addr, sizeof(addr));
		cell(r, "%" PRIu32, s->id);
		cell(r, "%s", s->admin ? "admin" : s->proto->name);
		cell(r, "%s", s->user);
		cell(r, "%s", addr);
		cell(r, "%s", client_state(s));
		cell(r, "%lld", (long long)(now - s->since));
		cell(r, "%s", s->st != SESSION_AUTH && s->proto->application ? s->proto->application(s) : "");
		if (s->st == SESSION_BUSY && s->fingerprint)
			cell(r, "%016" PRIx64, s->fingerprint);
		else
			cell(r, "%s", "");
		emit(out, r, rows);
	}
}

struct jobs_reply {
	const struct admin_out *out;
	struct row *r;
	uint64_t *rows;
};

static void job_row(void *arg, const struct jobs_info *info)
{
	struct jobs_reply *j = arg;

	cell(j->r, "%s", info->id);
	cell(j->r, "%s", info->state);
	cell(j->r, "%" PRIu64, info->age_ms);
	cell(j->r, "%" PRIu32, info->runner_uid);
	cell(j->r, "%s", info->target);
	emit(j->out, j->r, j->rows);
}

static void show_jobs(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"id", "state", "age_ms", "runner_uid", "target"};
	struct jobs_reply j = {out, r, rows};

	out->columns(out->arg, names, 5);
	jobs_each(srv->jobs, job_row, &j);
}

static void listen_value(char *buf, size_t len, const char *host, uint16_t port)
{
	if (host)
		snprintf(buf, len, "%s:%u", host, (unsigned)port);
	else
		snprintf(buf, len, "%s", "");
}

/* The [server] keys that hold no secret, as loaded; a webhook is shown as set or not (its URL may carry a token). */
static void show_config(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"key", "value"};
	const struct airlock_config *c = srv->cfg;
	char buf[2 * 32 + 1];
	uint64_t v;

#define U(key, field) kv_u64(out, r, rows, key, (v = (uint64_t)c->field))
#define S(key, field) kv(out, r, rows, key, c->field)
#define B(key, field) kv(out, r, rows, key, c->field ? "on" : "off")
	out->columns(out->arg, names, 2);
	listen_value(buf, sizeof(buf), c->pg_listen_host, c->pg_listen_port);
	kv(out, r, rows, "pg_listen", buf);
	listen_value(buf, sizeof(buf), c->mysql_listen_host, c->mysql_listen_port);
	kv(out, r, rows, "mysql_listen", buf);
	U("max_connections", max_connections);
	U("max_unauthenticated", max_unauthenticated);
	U("max_unauthenticated_per_address", max_unauthenticated_per_address);
	U("max_message_bytes", max_message_bytes);
	S("tls_cert_file", tls_cert_file);
	B("tls_required", tls_required);
	U("login_free_failures", login_free_failures);
	U("login_delay_ms", login_delay_ms);
	U("login_delay_max_ms", login_delay_max_ms);
	U("login_failure_window_ms", login_failure_window_ms);
	S("job_dir", job_dir);
	S("runtime", runtime);
	S("runner_image", runner_image);
	S("oci_runtime", oci_runtime);
	S("runner_rootfs", runner_rootfs);
	S("runner_uids", runner_uids);
	U("validator_workers", validator_workers);
	U("validator_timeout_ms", validator_timeout_ms);
	U("validator_memory_mb", validator_memory_mb);
	U("kill_margin_ms", kill_margin_ms);
	U("shutdown_grace_ms", shutdown_grace_ms);
	U("pool_min", pool_min);
	U("pool_max", pool_max);
	U("pool_refill_concurrency", pool_refill_concurrency);
	U("pool_idle_ms", pool_idle_ms);
	U("pool_max_age_ms", pool_max_age_ms);
	U("queue_wait_ms", queue_wait_ms);
	U("max_jobs", max_jobs);
	S("audit_log", audit_log);
	S("approval_store", approval_store);
	S("state_dsn", state_dsn);
	listen_value(buf, sizeof(buf), c->approval_listen_host, c->approval_listen_port);
	kv(out, r, rows, "approval_listen", buf);
	listen_value(buf, sizeof(buf), c->metrics_listen_host, c->metrics_listen_port);
	kv(out, r, rows, "metrics_listen", buf);
	kv(out, r, rows, "approval_webhook", c->approval_webhook ? "set" : "");
	U("peer_id", peer_id);
	U("workers", workers);
	if (srv->worker.count > 1)
		kv_u64(out, r, rows, "worker", srv->worker.index); /* the one that answers */
	for (size_t i = 0; i < c->npeers; i++)
		kv(out, r, rows, "peers", c->peers[i]);
#undef U
#undef S
#undef B
	(void)v;
	kv(out, r, rows, "config_path", c->path);
	kv(out, r, rows, "config_checksum", c->checksum_hex);
}

static unsigned user_sessions(struct server *srv, const char *name)
{
	unsigned n = 0;

	for (struct session *s = srv->sessions; s; s = s->next)
		n += s->u && s->st != SESSION_CLOSING && strcmp(s->u->name, name) == 0;
	return n;
}

/* A budget's cell: its amount and what it holds now ("30, 12.5 left"); "" when the user has none of that kind. */
static void budget_cell(struct row *r, const struct budget *b, enum airlock_budget_kind k)
{
	if (!b || !b->amount[k])
		cell(r, "%s", "");
	else
		cell(r, "%" PRIu64 ", %.1f left", b->amount[k], b->level[k]);
}

static void show_users(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"user",
					    "max_jobs",
					    "max_connections",
					    "max_rows",
					    "max_bytes",
					    "timeout_ms",
					    "writes",
					    "sessions",
					    "statements_per_minute",
					    "rows_per_minute",
					    "bytes_per_minute",
					    "runner_seconds_per_hour",
					    "refused_by_budget"};
	const struct airlock_config *cfg = srv->cfg;
	uint64_t now = monotonic_ns();

	out->columns(out->arg, names, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < cfg->nusers; i++) {
		const struct airlock_user *u = &cfg->users[i];
		struct budget *b = budgets_find(&srv->budgets, u->name);
		uint64_t refused = 0;

		if (b)
			budget_refill(b, now);
		cell(r, "%s", u->name);
		cell(r, "%" PRIu32, u->max_jobs);
		cell(r, "%" PRIu32, u->max_connections);
		cell(r, "%" PRIu32, u->limits.max_rows);
		cell(r, "%" PRIu64, u->limits.max_bytes);
		cell(r, "%" PRIu32, u->limits.timeout_ms);
		cell(r, "%s", u->writes ? u->writes : "deny");
		cell(r, "%u", user_sessions(srv, u->name));
		for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++) {
			budget_cell(r, b, (enum airlock_budget_kind)k);
			refused += b ? b->refused[k] : 0;
		}
		cell(r, "%" PRIu64, refused);
		emit(out, r, rows);
	}
}

/* The other nodes of [server] peers, and what became of the cancels that named each. */
static void show_peers(struct server *srv, const struct admin_out *out, struct row *r, uint64_t *rows)
{
	static const char *const names[] = {"peer_id",           "address",        "port",
					    "cancels_forwarded", "cancels_failed", "cancels_dropped"};
	const struct airlock_config *c = srv->cfg;

	out->columns(out->arg, names, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < c->npeers; i++) {
		uint32_t id;
		uint16_t port;
		char host[64];
		struct peer_counts n;

		if (!config_peer_at(c, i, &id, host, sizeof(host), &port))
			continue;
		n = peers_counts(srv->peers, id);
		cell(r, "%u", id);
		cell(r, "%s", host);
		cell(r, "%u", (unsigned)port);
		cell(r, "%" PRIu64, n.forwarded);
		cell(r, "%" PRIu64, n.failed);
		cell(r, "%" PRIu64, n.dropped);
		emit(out, r, rows);
	}
}

static bool refuse(struct admin_error *err, enum airlock_err code, enum airlock_native native, const char *message)
{
	err->code = code;
	err->native = native;
	snprintf(err->message, sizeof(err->message), "%s", message);
	return false;
}

static bool kill_client(struct session *s, uint32_t id, struct admin_error *err)
{
	struct session *victim = session_find_any(s->srv, id);
	char why[128];

	if (!victim)
		return refuse(err, AIRLOCK_E_NONE, AIRLOCK_N_PG_UNDEFINED_OBJECT, "no client session has that id");
	if (victim == s)
		return refuse(err, AIRLOCK_E_NONE, AIRLOCK_N_PG_INVALID_PARAMETER_VALUE,
			      "that is this session; to leave, disconnect");
	snprintf(why, sizeof(why), "killed by admin %s", s->user);
	session_close(victim, false, why);
	return true;
}

uint64_t admin_show(struct server *srv, enum admin_cmd_kind kind, const struct admin_out *out)
{
	struct row r = {.n = 0};
	uint64_t rows = 0;

	switch (kind) {
	case ADMIN_CMD_SHOW_POOLS:
		show_pools(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_STATS:
		show_stats(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_CLIENTS:
		show_clients(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_JOBS:
		show_jobs(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_CONFIG:
		show_config(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_USERS:
		show_users(srv, out, &r, &rows);
		break;
	case ADMIN_CMD_SHOW_PEERS:
		show_peers(srv, out, &r, &rows);
		break;
	default:
		break;
	}
	return rows;
}

bool admin_run(struct session *s, const struct admin_cmd *cmd, const struct admin_out *out, char *tag, size_t taglen,
	       struct admin_error *err)
{
	struct server *srv = s->srv;
	uint64_t rows = 0;
	char why[sizeof(err->message)];

	switch (cmd->kind) {
	case ADMIN_CMD_SHOW_POOLS:
	case ADMIN_CMD_SHOW_STATS:
	case ADMIN_CMD_SHOW_CLIENTS:
	case ADMIN_CMD_SHOW_JOBS:
	case ADMIN_CMD_SHOW_CONFIG:
	case ADMIN_CMD_SHOW_USERS:
	case ADMIN_CMD_SHOW_PEERS:
		rows = admin_show(srv, cmd->kind, out);
		break;
	case ADMIN_CMD_RELOAD:
		if (srv->stopping)
			return refuse(err, AIRLOCK_E_NONE, AIRLOCK_N_PG_ADMIN_SHUTDOWN, "the server is shutting down");
		if (!server_reload(srv, why, sizeof(why)))
			return refuse(err, AIRLOCK_E_INVALID_VALUE, AIRLOCK_N_NONE, why);
		server_tell_workers(srv, SERVER_TELL_RELOAD); /* the others load the same file */
		break;
	case ADMIN_CMD_PAUSE:
		srv->paused = true;
		server_tell_workers(srv, SERVER_TELL_PAUSE);
		break;
	case ADMIN_CMD_RESUME:
		server_resume(srv);
		server_tell_workers(srv, SERVER_TELL_RESUME);
		break;
	case ADMIN_CMD_KILL_CLIENT:
		if (!kill_client(s, cmd->id, err))
			return false;
		break;
	case ADMIN_CMD_SHUTDOWN:
		break;
	case ADMIN_CMD_BAD:
		return refuse(err, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE, cmd->why);
	default:
		return refuse(err, AIRLOCK_E_NONE, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED,
			      "unknown admin command; the console knows SHOW POOLS|STATS|CLIENTS|JOBS|CONFIG|USERS, "
			      "RELOAD, PAUSE, RESUME, KILL_CLIENT <id> and SHUTDOWN WAIT_FOR_CLIENTS");
	}
	if (!strncmp(admin_cmd_name(cmd->kind), "SHOW", 4))
		snprintf(tag, taglen, "SHOW %" PRIu64, rows);
	else
		snprintf(tag, taglen, "%s", admin_cmd_name(cmd->kind));
	return true;
}

void admin_after(struct session *s, const struct admin_cmd *cmd)
{
	if (cmd->kind == ADMIN_CMD_SHUTDOWN) {
		session_log(s, "admin %s: SHUTDOWN WAIT_FOR_CLIENTS", s->user);
		server_tell_workers(s->srv, SERVER_TELL_SHUTDOWN);
		server_shutdown(s->srv);
	}
}
