/*
 * runner_my: one job against MySQL or MariaDB (see runner_my.h).
 *
 * Sequence: connect through <dir>/mysqld.sock (runner_my_conn), SET
 * SESSION TRANSACTION READ ONLY, SELECT CONNECTION_ID(); a warm runner
 * then waits for its statement. Then the watchdog starts (its deadline is
 * timeout_ms from here), one SET gives the engine's statement timeout
 * (MariaDB: max_statement_time in seconds; MySQL: MAX_EXECUTION_TIME in
 * ms; told apart by the server's version string), read-only again for
 * the next transaction (tx_read_only / transaction_read_only), MariaDB's
 * memory bounds (runner_mem.h), the job's sql_mode and time_zone,
 * mysql_set_character_set applies set.names
 * when it is not the connection's (then set.collation, when given, sets
 * collation_connection), set.database becomes the current database
 * (mysql_select_db) when it is not the one connected to, and only when all
 * of that succeeded is the statement sent: in the common case two round
 * trips, the SET and the statement, which runs as its own read-only
 * transaction. With max_cost, its EXPLAIN and the cost MariaDB estimates
 * come first (runner_my_cost.h). Its rows are read with mysql_use_result, one at a time as
 * the server sends them (my_conn_fetch: the frames queued go out only
 * when the connector would wait for more); when the statement left warnings, SHOW WARNINGS
 * turns them into 'N' frames before the 'C' frame.
 *
 * Threads: everything here runs on the main thread, the only one that
 * writes frames and the only user of the statement's connection.
 * runner_my_watch owns the control socket's reading side while the
 * statement runs and kills the query on a cancel, a timeout or the proxy
 * going away; the main thread checks its event between steps and rows and
 * takes the outcome from my_watch_disarm, whatever the statement itself
 * returned.
 *
 * A result that is not read to its end (a cap, an event, a refusal) is
 * never drained: the connection's socket is shut down before the result
 * is freed, and the server stops at its next write.
 *
 * Nothing sent to the proxy names the socket path or the password; the
 * 'user'@'host' in a backend message is masked; connection failures are
 * reduced to a fixed description.
 */
#include "runner/runner_my.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <mysql.h>

#include "base/errors.h"
#include "runner/runner_cap.h"
#include "runner/runner_mem.h"
#include "runner/runner_my_conn.h"
#include "runner/runner_my_cost.h"
#include "runner/runner_my_errors.h"
#include "runner/runner_my_hidden.h"
#include "runner/runner_my_watch.h"
#include "runner/runner_my_write.h"
#include "runner/runner_row.h"
#include "runner/runner_tls.h"

#define SOCKET_NAME "mysqld.sock"
#define CONNECT_TIMEOUT_S 10
#define WRITE_TIMEOUT_S 10
/* Connector/C's own read timeout only backs up the watchdog: well past the deadline. */
#define READ_MARGIN_S 30
#define MAX_CHARSET_NAME 32
#define DEFAULT_CHARSET "utf8mb4"
#define MAX_WARNING_FRAMES 64

enum outcome {
	OUT_OK,        /* the statement ran; its result was read to the end */
	OUT_ERROR,     /* the backend or the client library failed (r.err_*) */
	OUT_EVENT,     /* the watchdog recorded an event */
	OUT_TRUNCATED, /* a cap was reached; r.trunc says which */
	OUT_REFUSED,   /* the runner will not handle this (r.refusal) */
	OUT_GONE,      /* writing to the control socket failed */
	OUT_WRITE,     /* a write job refused its write (r.write_end) */
	OUT_COST,      /* max_cost refused the statement (r.cost) */
};

struct my_run {
	struct runner_job *job;
	struct runner_ctl *ctl;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* the relay's, or the TLS shim's */
	struct runner_tls *tls; /* the TLS shim the connections go through; NULL without TLS */
	char tls_why[200];      /* why TLS failed, when it did */
	MYSQL *conn;
	MYSQL_RES *res; /* the statement's result while it is being read */
	bool unread;    /* the connection holds data that will not be read */
	unsigned long long conn_id;
	struct my_watch watch;
	bool sent_cols; /* a 'K' frame went out: the statement returned a result set */
	struct runner_sent sent;
	enum frame_trunc trunc;
	unsigned warnings;
	const char *refusal;
	bool lost_in_rows; /* the client library failed while reading rows */
	unsigned err_no;
	char err_state[6];
	char err_msg[MYSQL_ERRMSG_SIZE];
	struct my_hidden hidden; /* an EXPLAIN's hidden keys (runner_my_hidden.h) */
	enum my_write_end write_end;
	uint64_t write_rows; /* a write job: the rows it touched */
	struct my_cost cost;
};

static bool client_errno(unsigned e)
{
	return (e >= 2000 && e < 3000) || (e >= 5000 && e < 6000);
}

/* Keeps the connection's current error for the outcome. */
static enum outcome capture_error(struct my_run *r)
{
	const char *state = mysql_sqlstate(r->conn);

	r->err_no = mysql_errno(r->conn);
	if (r->err_no == 0)
		r->err_no = airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR);
	snprintf(r->err_state, sizeof(r->err_state), "%s",
		 state && strlen(state) == 5 ? state : airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR));
	snprintf(r->err_msg, sizeof(r->err_msg), "%s", mysql_error(r->conn));
	return OUT_ERROR;
}

static enum outcome check_event(struct my_run *r)
{
	return my_watch_event(&r->watch) != MY_EVENT_NONE ? OUT_EVENT : OUT_OK;
}

/* A fixed statement that returns no rows. */
static enum outcome run_simple(struct my_run *r, const char *sql, size_t len)
{
	MYSQL_RES *res;

	if (mysql_real_query(r->conn, sql, (unsigned long)len) != 0)
		return capture_error(r);
	if (mysql_field_count(r->conn) != 0) {
		/* Never expected from the statements sent here; read and drop it. */
		res = mysql_store_result(r->conn);
		if (!res)
			return capture_error(r);
		mysql_free_result(res);
	}
	return OUT_OK;
}

static enum outcome run_fixed(struct my_run *r, const char *sql)
{
	return run_simple(r, sql, strlen(sql));
}

/* The server's full connection id (the handshake carries only 32 bits of it). */
static enum outcome read_conn_id(struct my_run *r)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	char *end;
	enum outcome o = OUT_OK;

	if (mysql_real_query(r->conn, "SELECT CONNECTION_ID()", 22) != 0)
		return capture_error(r);
	res = mysql_store_result(r->conn);
	if (!res)
		return capture_error(r);
	row = mysql_fetch_row(res);
	if (row && row[0] && row[0][0] >= '0' && row[0][0] <= '9') {
		r->conn_id = strtoull(row[0], &end, 10);
		if (*end != '\0')
			r->conn_id = 0;
	}
	if (r->conn_id == 0) {
		r->refusal = "the connection id could not be read";
		o = OUT_REFUSED;
	}
	mysql_free_result(res);
	return o;
}

/* Once per connection, before the job's statement exists (a warm runner's wait comes after). */
static enum outcome session_setup(struct my_run *r)
{
	enum outcome o = run_fixed(r, "SET SESSION TRANSACTION READ ONLY");

	if (o == OUT_OK)
		o = read_conn_id(r);
	return o;
}

/* Appends ", @@SESSION.<name> = '<value escaped>'" when the job sets name. */
static int append_setting(struct my_run *r, char *sql, size_t cap, size_t *len, const char *name)
{
	const char *value = runner_job_setting(r->job, name);
	size_t n;
	unsigned long e;

	if (!value)
		return 0;
	n = (size_t)snprintf(sql + *len, cap - *len, ", @@SESSION.%s = '", name);
	if (n >= cap - *len)
		return -1;
	*len += n;
	if (cap - *len < 2 * strlen(value) + 3)
		return -1;
	/* Quotes and backslashes are escaped the way the session's current sql_mode reads them. */
	e = mysql_real_escape_string(r->conn, sql + *len, value, (unsigned long)strlen(value));
	if (e == (unsigned long)-1)
		return -1;
	*len += e;
	sql[(*len)++] = '\'';
	sql[*len] = '\0';
	return 0;
}

/* The session variables of a job that are numbers (or 0 / 1): sent unquoted, digits only. */
static const char *const numeric_settings[] = {
	"default_week_format",   "div_precision_increment", "foreign_key_checks", "group_concat_max_len",
	"net_read_timeout",      "net_write_timeout",       "sql_auto_is_null",   "sql_notes",
	"sql_quote_show_create", "sql_safe_updates",        "sql_select_limit",   "sql_warnings",
	"unique_checks",
};

#define MAX_NUMERIC_SETTING 20 /* digits of 2^64 - 1 */

static int append_numeric(struct my_run *r, char *sql, size_t cap, size_t *len, const char *name)
{
	const char *value = runner_job_setting(r->job, name);
	size_t n;

	if (!value)
		return 0;
	if (!*value || strlen(value) > MAX_NUMERIC_SETTING || strspn(value, "0123456789") != strlen(value))
		return -1;
	n = (size_t)snprintf(sql + *len, cap - *len, ", @@SESSION.%s = %s", name, value);
	if (n >= cap - *len)
		return -1;
	*len += n;
	return 0;
}

/* The engine's statement timeout, sql_mode, time_zone and the session's variables in one statement. */
static enum outcome set_session(struct my_run *r)
{
	const struct runner_job *job = r->job;
	const char *mode = runner_job_setting(job, "sql_mode");
	const char *tz = runner_job_setting(job, "time_zone");
	const char *lc = runner_job_setting(job, "lc_time_names");
	size_t cap = 128 + 2 * (mode ? strlen(mode) : 0) + 2 * (tz ? strlen(tz) : 0) + 2 * (lc ? strlen(lc) : 0) +
		     sizeof(numeric_settings) / sizeof(numeric_settings[0]) * (48 + MAX_NUMERIC_SETTING) +
		     RUNNER_MEM_MY_SQL_MAX,
	       len;
	char *sql = malloc(cap);
	enum outcome o;

	if (!sql) {
		r->refusal = "out of memory";
		return OUT_REFUSED;
	}
	/* Read only, set again with the rest: the statement runs as its own transaction under it. */
	if (mariadb_connection(r->conn))
		len = (size_t)snprintf(sql, cap,
				       "SET @@SESSION.max_statement_time = %" PRIu32 ".%03" PRIu32
				       ", @@SESSION.tx_read_only = 1",
				       job->timeout_ms / 1000, job->timeout_ms % 1000);
	else
		len = (size_t)snprintf(
			sql, cap, "SET @@SESSION.MAX_EXECUTION_TIME = %" PRIu32 ", @@SESSION.transaction_read_only = 1",
			job->timeout_ms);
	if (mariadb_connection(r->conn) && job->backend_memory_mb)
		len += runner_mem_my_sql(job->backend_memory_mb, sql + len, cap - len);
	if (append_setting(r, sql, cap, &len, "sql_mode") < 0 || append_setting(r, sql, cap, &len, "time_zone") < 0 ||
	    append_setting(r, sql, cap, &len, "lc_time_names") < 0) {
		free(sql);
		r->refusal = "a session setting could not be quoted";
		return OUT_REFUSED;
	}
	for (size_t i = 0; i < sizeof(numeric_settings) / sizeof(numeric_settings[0]); i++) {
		if (append_numeric(r, sql, cap, &len, numeric_settings[i]) < 0) {
			free(sql);
			r->refusal = "a numeric session setting is not a number";
			return OUT_REFUSED;
		}
	}
	o = run_simple(r, sql, len);
	free(sql);
	return o;
}

static bool charset_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > MAX_CHARSET_NAME)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_'))
			return false;
	return true;
}

/* set.names: Connector/C sends SET NAMES with the name unquoted, so only a plain name passes. */
static enum outcome set_names(struct my_run *r)
{
	const char *name = runner_job_setting(r->job, "names");

	if (!name || strcasecmp(name, DEFAULT_CHARSET) == 0)
		return OUT_OK;
	if (charset_name_ok(name) && mysql_set_character_set(r->conn, name) == 0)
		return OUT_OK;
	if (mysql_errno(r->conn) && !client_errno(mysql_errno(r->conn)))
		return capture_error(r);
	/* The client library does not know it: answer as the server would. */
	r->err_no = airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_CHARACTER_SET);
	snprintf(r->err_state, sizeof(r->err_state), "%s",
		 airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_CHARACTER_SET));
	snprintf(r->err_msg, sizeof(r->err_msg), "Unknown character set: '%.64s'", charset_name_ok(name) ? name : "?");
	return OUT_ERROR;
}

/*
 * set.collation: collation_connection after SET NAMES (which resets it to
 * the character set's default), so expression columns carry the
 * collation the client asked for, as they would on the server.
 */
static enum outcome set_collation(struct my_run *r)
{
	static const char head[] = "SET @@SESSION.collation_connection = '";
	const char *coll = runner_job_setting(r->job, "collation");
	size_t cap, len = sizeof(head) - 1;
	unsigned long e;
	char *sql;
	enum outcome o;

	if (!coll)
		return OUT_OK;
	cap = sizeof(head) + 2 * strlen(coll) + 2;
	sql = malloc(cap);
	if (!sql) {
		r->refusal = "out of memory";
		return OUT_REFUSED;
	}
	memcpy(sql, head, len);
	e = mysql_real_escape_string(r->conn, sql + len, coll, (unsigned long)strlen(coll));
	if (e == (unsigned long)-1) {
		free(sql);
		r->refusal = "a session setting could not be quoted";
		return OUT_REFUSED;
	}
	len += e;
	sql[len++] = '\'';
	o = run_simple(r, sql, len);
	free(sql);
	return o;
}

/*
 * set.database: the session's current database (COM_INIT_DB). The proxy's
 * validator resolved unqualified table names against it, so the backend
 * must resolve them against the same one.
 */
static enum outcome select_database(struct my_run *r)
{
	const char *db = runner_job_setting(r->job, "database");

	/* The runner connected to the target's database: only another one needs COM_INIT_DB. */
	if (!db || (r->job->dbname && strcmp(db, r->job->dbname) == 0) || mysql_select_db(r->conn, db) == 0)
		return OUT_OK;
	return capture_error(r);
}

/* Everything the job asks for; the statement then runs as its own read-only transaction. */
static enum outcome job_setup(struct my_run *r)
{
	/* In order, each only after the one before it went through; the watchdog is asked between them. */
	static enum outcome (*const steps[])(struct my_run *) = {
		check_event, set_session, check_event, set_names, set_collation, select_database, check_event,
	};
	enum outcome o = OUT_OK;

	for (size_t i = 0; o == OUT_OK && i < sizeof(steps) / sizeof(steps[0]); i++)
		o = steps[i](r);
	/* Nothing may have opened a transaction that is not read only. */
	if (o == OUT_OK && (r->conn->server_status & SERVER_STATUS_IN_TRANS)) {
		r->refusal = "NOT_READ_ONLY: a transaction is open before the statement";
		o = OUT_REFUSED;
	}
	return o;
}

static void put_field_str(struct wbuf *b, const char *s, unsigned int len)
{
	frame_put_str(b, s ? s : "", s ? len : 0);
}

static enum outcome send_cols(struct my_run *r, MYSQL_RES *res)
{
	struct wbuf *b = &r->ctl->out;
	unsigned n = mysql_num_fields(res), i;
	MYSQL_FIELD *f = mysql_fetch_fields(res);

	if (n > FRAME_MAX_COLS || !f) {
		r->refusal = "the result has too many columns";
		return OUT_REFUSED;
	}
	frame_begin(b, FRAME_MYCOLS);
	frame_put_u16(b, (uint16_t)n);
	for (i = 0; i < n; i++) {
		put_field_str(b, f[i].db, f[i].db_length);
		put_field_str(b, f[i].table, f[i].table_length);
		put_field_str(b, f[i].org_table, f[i].org_table_length);
		put_field_str(b, f[i].name, f[i].name_length);
		put_field_str(b, f[i].org_name, f[i].org_name_length);
		frame_put_u16(b, (uint16_t)f[i].charsetnr);
		frame_put_u32(b, f[i].length > UINT32_MAX ? UINT32_MAX : (uint32_t)f[i].length);
		frame_put_u8(b, (uint8_t)f[i].type);
		/* NUM_FLAG is Connector/C's own marking of numeric types; servers never send it. */
		frame_put_u16(b, (uint16_t)(f[i].flags & ~NUM_FLAG));
		frame_put_u8(b, f[i].decimals > UINT8_MAX ? UINT8_MAX : (uint8_t)f[i].decimals);
	}
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	my_hidden_columns(&r->hidden, f, n);
	r->sent_cols = true;
	return OUT_OK;
}

/* Sends one row unless it would pass max_rows or max_bytes. */
struct row_at {
	MYSQL_ROW row;
	const unsigned long *lengths;
};

/* runner_row_value over a fetched row: NULL for SQL NULL. */
static const void *row_value(void *arg, unsigned i, size_t *len)
{
	const struct row_at *at = arg;

	*len = at->row[i] ? at->lengths[i] : 0;
	return at->row[i];
}

static enum outcome send_row(struct my_run *r, MYSQL_ROW row, const unsigned long *lengths, unsigned n)
{
	struct row_at at = {row, lengths};
	enum runner_row_status st = runner_row_send(r->ctl, r->job, &r->sent, n, row_value, &at, &r->trunc);

	return st == RUNNER_ROW_SENT ? OUT_OK : st == RUNNER_ROW_TRUNCATED ? OUT_TRUNCATED : OUT_GONE;
}

/* Reads the statement's rows as they arrive; r->res is set while rows remain. */
static enum outcome read_rows(struct my_run *r)
{
	unsigned n = mysql_num_fields(r->res);
	enum outcome o;
	bool gone = false;

	for (;;) {
		MYSQL_ROW row;
		unsigned long *lengths;

		if ((o = check_event(r)) != OUT_OK)
			return o;
		row = my_conn_fetch(r->conn, r->res, r->ctl, &gone);
		if (gone)
			return OUT_GONE;
		if (!row)
			break;
		lengths = mysql_fetch_lengths(r->res);
		if (!lengths)
			return capture_error(r);
		if (my_hidden_row(&r->hidden, row, lengths, n) < 0) {
			r->refusal = "the plan's key names could not be checked";
			return OUT_REFUSED;
		}
		o = send_row(r, row, lengths, n);
		if (o != OUT_OK)
			return o;
	}
	if (mysql_errno(r->conn)) {
		/* Connector/C reports a row above its packet limit as a lost connection. */
		r->lost_in_rows = true;
		return capture_error(r);
	}
	/* The end of the rows carries the warning count. */
	r->warnings = mysql_warning_count(r->conn);
	mysql_free_result(r->res);
	r->res = NULL;
	return OUT_OK;
}

/*
 * The statement's warnings, read with SHOW WARNINGS right after it, as 'N'
 * frames: code is the Level ("Note", "Warning", "Error"), my_errno the
 * Code. Best effort: the count in the 'C' frame stands if this fails.
 */
static enum outcome send_warnings(struct my_run *r)
{
	char msg[MYSQL_ERRMSG_SIZE + 32];
	MYSQL_RES *res;
	MYSQL_ROW row;
	unsigned sent = 0;
	enum outcome o = OUT_OK;

	if (r->warnings == 0 || mysql_real_query(r->conn, "SHOW WARNINGS", 13) != 0)
		return OUT_OK;
	res = mysql_store_result(r->conn);
	if (!res)
		return OUT_OK;
	while (mysql_num_fields(res) == 3 && sent < MAX_WARNING_FRAMES && (row = mysql_fetch_row(res)) != NULL) {
		const char *level = row[0] ? row[0] : "Warning";

		my_conn_mask_account(row[2] ? row[2] : "", r->job->user, msg, sizeof(msg));
		if (runner_ctl_error_my(r->ctl, FRAME_NOTICE,
					strcmp(level, "Error") == 0
						? airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR)
						: airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_WARNING),
					level, row[1] ? (unsigned)strtoul(row[1], NULL, 10) : 0, msg, "") < 0) {
			o = OUT_GONE;
			break;
		}
		sent++;
	}
	mysql_free_result(res);
	return o;
}

/* A describe job: the statement prepared, never executed; its columns ('K'), if it has any. */
static enum outcome describe_statement(struct my_run *r)
{
	MYSQL_STMT *st = mysql_stmt_init(r->conn);
	MYSQL_RES *meta;
	enum outcome o = OUT_OK;

	if (!st)
		return capture_error(r);
	if (mysql_stmt_prepare(st, r->job->sql, (unsigned long)strlen(r->job->sql)) != 0) {
		r->err_no = mysql_stmt_errno(st) ? mysql_stmt_errno(st)
						 : airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR);
		snprintf(r->err_state, sizeof(r->err_state), "%s", mysql_stmt_sqlstate(st));
		snprintf(r->err_msg, sizeof(r->err_msg), "%s", mysql_stmt_error(st));
		mysql_stmt_close(st);
		return OUT_ERROR;
	}
	meta = mysql_stmt_result_metadata(st);
	if (meta) {
		o = send_cols(r, meta);
		mysql_free_result(meta);
	}
	mysql_stmt_close(st);
	return o;
}

/* An EXPLAIN's hidden keys, in its session before it runs: their names leave the plan. */
static enum outcome load_hidden(struct my_run *r)
{
	enum my_hidden_load l = my_hidden_load(r->conn, r->job->hidden_keys, &r->hidden);

	if (l == MY_HIDDEN_FAILED)
		return capture_error(r);
	if (l == MY_HIDDEN_TOO_MANY)
		r->refusal = "the keys the policy hides could not be listed";
	return l == MY_HIDDEN_OK ? OUT_OK : OUT_REFUSED;
}

/* max_cost: the plan's estimate, in the statement's session, before it is sent. */
static enum outcome check_cost(struct my_run *r)
{
	r->cost = my_cost_check(r->conn, r->job->sql, r->job->max_cost);
	if (r->cost.verdict == MY_COST_FAILED)
		return capture_error(r);
	return r->cost.verdict == MY_COST_UNDER ? check_event(r) : OUT_COST;
}

static enum outcome stream_statement(struct my_run *r)
{
	const char *sql = r->job->sql;
	enum outcome o;

	if (r->job->describe)
		return describe_statement(r);
	if (r->job->write) {
		r->write_end = my_write_run(r->conn, r->job, r->ctl, &r->write_rows);
		if (r->write_end == MY_WRITE_GONE)
			return OUT_GONE;
		if (r->write_end == MY_WRITE_ERROR)
			return capture_error(r);
		return r->write_end == MY_WRITE_OK ? OUT_OK : OUT_WRITE;
	}
	if (mysql_real_query(r->conn, sql, (unsigned long)strlen(sql)) != 0)
		return capture_error(r);
	r->res = mysql_use_result(r->conn);
	if (!r->res) {
		if (mysql_field_count(r->conn) != 0)
			return capture_error(r);
		/* No result set (an OK packet): no 'K' frame goes out. */
		r->warnings = mysql_warning_count(r->conn);
	} else {
		o = send_cols(r, r->res);
		if (o == OUT_OK)
			o = read_rows(r);
		if (o != OUT_OK)
			return o;
	}
	if (mysql_more_results(r->conn)) {
		r->unread = true;
		r->refusal = "the statement returned more than one result";
		return OUT_REFUSED;
	}
	return send_warnings(r);
}

static void send_backend_error(struct my_run *r)
{
	char msg[MYSQL_ERRMSG_SIZE + 32];

	/* The client library's own errors can name the socket path: never echoed. */
	if (r->err_no == airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_STATEMENT_TIMEOUT) ||
	    r->err_no == airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_QUERY_TIMEOUT)) {
		my_send_timeout(r->ctl, r->job->timeout_ms);
	} else if (r->err_no == airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_OPTION_PREVENTS_STATEMENT) &&
		   strstr(r->err_msg, "max-session-mem-used")) {
		my_send_memory_limit(r->ctl);
	} else if (client_errno(r->err_no)) {
		my_send_lost(r->ctl, r->lost_in_rows);
	} else {
		my_conn_mask_account(r->err_msg, r->job->user, msg, sizeof(msg));
		runner_ctl_error_my(r->ctl, FRAME_ERROR, r->err_state, "", r->err_no, msg, "");
	}
}

/* Sends the frame that ends the job; the watchdog's event decides over the statement's own outcome. */
static int finish(struct my_run *r, enum outcome o, enum my_event ev)
{
	char tag[64];

	if (ev == MY_EVENT_GONE || o == OUT_GONE)
		return -1;
	if (ev == MY_EVENT_CANCEL) {
		my_send_cancel(r->ctl);
	} else if (ev == MY_EVENT_TIMEOUT) {
		my_send_timeout(r->ctl, r->job->timeout_ms);
	} else {
		switch (o) {
		case OUT_OK:
			if (r->job->write)
				snprintf(tag, sizeof(tag), "WRITE %" PRIu64, r->write_rows);
			else if (r->sent_cols)
				snprintf(tag, sizeof(tag), "SELECT %" PRIu64, r->sent.rows);
			else
				snprintf(tag, sizeof(tag), "OK");
			runner_ctl_complete_my(r->ctl, r->sent.rows, FRAME_TRUNC_NONE, tag, r->warnings);
			break;
		case OUT_TRUNCATED:
			snprintf(tag, sizeof(tag), "SELECT %" PRIu64, r->sent.rows);
			runner_ctl_complete_my(r->ctl, r->sent.rows, r->trunc, tag, 0);
			break;
		case OUT_ERROR:
			send_backend_error(r);
			break;
		case OUT_REFUSED:
			runner_ctl_error_my(
				r->ctl, FRAME_ERROR,
				airlock_my_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_NOT_SUPPORTED_YET),
				airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
				airlock_my_errno(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_NOT_SUPPORTED_YET),
				r->refusal, "");
			break;
		case OUT_WRITE:
			my_write_refusal(r->ctl, r->write_end, r->write_rows, r->job->write_max);
			break;
		case OUT_COST:
			my_cost_refuse(r->ctl, &r->cost, r->job->max_cost);
			break;
		case OUT_EVENT: /* an event is never taken back, so disarm returned it */
		case OUT_GONE:
			my_send_lost(r->ctl, r->lost_in_rows);
			break;
		}
	}
	return runner_ctl_flush(r->ctl);
}

static int finish_connect(struct my_run *r, unsigned err)
{
	char msg[256];

	/* Why TLS failed, when it did: from the shim, or from starting it. */
	if (r->tls)
		runner_tls_failure(r->tls, r->tls_why, sizeof(r->tls_why));
	if (r->tls_why[0])
		snprintf(msg, sizeof(msg), "could not connect to the database: %s", r->tls_why);
	runner_ctl_error_my(r->ctl, FRAME_ERROR,
			    airlock_my_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_CONN_HOST_ERROR),
			    airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
			    airlock_my_errno(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_CONN_HOST_ERROR),
			    r->tls_why[0] ? msg : my_conn_failure(err), "");
	return runner_ctl_flush(r->ctl);
}

/* Closes the connection without ever reading what is left of a result. */
static void close_conn(struct my_run *r)
{
	if (!r->conn)
		return;
	if (r->res || r->unread)
		shutdown(mysql_get_socket(r->conn), SHUT_RDWR);
	if (r->res)
		mysql_free_result(r->res);
	r->res = NULL;
	mysql_close(r->conn);
	r->conn = NULL;
}

int runner_my_run(struct runner_job *job, struct runner_ctl *ctl, const char *socket_dir,
		  int (*complete)(void *arg, struct runner_job *job), void *arg)
{
	struct my_run r;
	enum outcome o;
	enum my_event ev;
	unsigned err = 0, read_s;
	int n, rc;

	memset(&r, 0, sizeof(r));
	r.job = job;
	r.ctl = ctl;
	n = snprintf(r.sock_path, sizeof(r.sock_path), "%s/%s", socket_dir, SOCKET_NAME);
	if (n < 0 || (size_t)n >= sizeof(r.sock_path))
		return finish_connect(&r, 2002);
	/* Over TLS, the library connects to the shim, which goes to the relay. */
	if (job->tls && runner_tls_start(&r.tls, job, socket_dir, SOCKET_NAME, r.sock_path, sizeof(r.sock_path),
					 r.tls_why, sizeof(r.tls_why)) < 0)
		return finish_connect(&r, 2002);
	if (my_conn_library_init() < 0)
		return finish_connect(&r, 0);
	/* A warm runner learns its timeout later: then the longest a job may have. */
	read_s = (runner_job_complete(job) ? job->timeout_ms : RUNNER_JOB_MAX_TIMEOUT_MS) / 1000 + READ_MARGIN_S;
	r.conn = my_conn_open(r.sock_path, job->user, job->password, job->dbname, CONNECT_TIMEOUT_S, read_s,
			      WRITE_TIMEOUT_S, &err);
	if (!r.conn) {
		rc = finish_connect(&r, err);
		goto out;
	}
	o = session_setup(&r);
	if (o != OUT_OK) {
		rc = finish(&r, o, MY_EVENT_NONE);
		goto out;
	}
	/* Warm: connected and read-only ahead of the statement, which comes now. */
	if (!runner_job_complete(job) && (!complete || complete(arg, job) < 0)) {
		rc = -1;
		goto out;
	}
	if (my_watch_start(&r.watch, ctl, job, r.sock_path, r.conn_id, mysql_get_socket(r.conn),
			   my_watch_now_ms() + job->timeout_ms) < 0) {
		r.refusal = "the runner's watchdog could not be started";
		rc = finish(&r, OUT_REFUSED, MY_EVENT_NONE);
		goto out;
	}
	o = job_setup(&r);
	if (o == OUT_OK && job->hidden_keys)
		o = load_hidden(&r);
	if (o == OUT_OK && job->max_cost && !job->describe)
		o = check_cost(&r);
	if (o == OUT_OK)
		o = stream_statement(&r);
	ev = my_watch_disarm(&r.watch);
	rc = finish(&r, o, ev);
out:
	/* The watchdog may still use the socket: stop it before the connection closes. */
	my_watch_stop(&r.watch);
	close_conn(&r);
	my_hidden_free(&r.hidden);
	runner_tls_stop(r.tls);
	mysql_library_end();
	return rc;
}
