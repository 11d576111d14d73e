/*
 * my_query: runs one COM_QUERY, COM_INIT_DB or COM_FIELD_LIST of a MySQL
 * session: the local answers (SET, transactions, USE, SHOW WARNINGS, SHOW
 * VARIABLES, SELECT DATABASE() and friends, KILL QUERY), and the
 * validation of reads, which my_result.c hands to a job.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "protocol/my_stmt.h"
#include "proxy/log.h"
#include "proxy/peer.h"
#include "proxy/peer_key.h"
#include "proxy/policy_view.h"
#include "proxy/mysql/my_session.h"
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"
#include "proxy/tls.h"
#include "validator/mysql/validate_my_scope.h"
#include "proxy/validator_client.h"

static void local_ok(struct my_session *s)
{
	myr_put_ok(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	myr_flush(s);
}

bool myq_database_allowed(const struct my_session *s, const char *db)
{
	const struct airlock_user *u = s->core.u;
	size_t n = strlen(db);

	if (!u)
		return false;
	if (strcmp(db, u->mysql_database) == 0)
		return true;
	for (size_t i = 0; i < u->nmysql_tables; i++) {
		const char *e = u->mysql_tables[i];

		if (strncmp(e, db, n) == 0 && e[n] == '.')
			return true;
	}
	return false;
}

/* ---- local result sets ---- */

static const char *item_value(struct my_session *s, const struct vmy_local_item *it, char *buf, size_t len,
			      bool *numeric)
{
	*numeric = false;
	switch (it->item) {
	case VMY_ITEM_DATABASE:
		return s->database[0] ? s->database : NULL;
	case VMY_ITEM_VERSION:
		return MYS_SERVER_VERSION;
	case VMY_ITEM_VERSION_COMMENT:
		return myv_value(s, "version_comment", buf, len, false);
	case VMY_ITEM_USER:
		snprintf(buf, len, "%s@%s", s->core.user, s->host);
		return buf;
	case VMY_ITEM_CURRENT_USER:
		snprintf(buf, len, "%s@%%", s->core.user);
		return buf;
	case VMY_ITEM_CONNECTION_ID:
		*numeric = true;
		snprintf(buf, len, "%u", s->core.id);
		return buf;
	case VMY_ITEM_SYSVAR: {
		const char *v = myv_value(s, it->sysvar, buf, len, true);

		*numeric = v && v[0] && strspn(v, "0123456789") == strlen(v);
		return v;
	}
	}
	return NULL;
}

static void local_select(struct my_session *s, const struct vmy_result *v)
{
	struct myl_col cols[VMY_MAX_ITEMS];
	char bufs[VMY_MAX_ITEMS][128];
	const char *values[VMY_MAX_ITEMS];
	bool any;

	for (size_t i = 0; i < v->nitems; i++) {
		bool numeric;

		values[i] = item_value(s, &v->items[i], bufs[i], sizeof(bufs[i]), &numeric);
		cols[i] = (struct myl_col){
			.name = v->items[i].label,
			.type = numeric ? MY_TYPE_LONGLONG : MY_TYPE_VAR_STRING,
			.numeric = numeric,
		};
	}
	/* Without a LIMIT of its own a SELECT is bound by sql_select_limit, which may be 0. */
	any = v->limit != 0 && (v->limit > 0 || myv_select_limit(s) > 0);
	myl_header(s, cols, v->nitems);
	if (any)
		myl_row(s, values, v->nitems);
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, any, 0, 0);
	myr_flush(s);
}

/* SQL LIKE with % and _, backslash escaping, case-insensitive (as for variable names). */
static bool like_match(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '%') {
			while (p[1] == '%')
				p++;
			if (!p[1])
				return true;
			for (; *s; s++)
				if (like_match(p + 1, s))
					return true;
			return false;
		}
		if (!*s)
			return false;
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '_')
			continue;
		if (tolower((unsigned char)*p) != tolower((unsigned char)*s))
			return false;
	}
	return !*s;
}

struct show_vars_ctx {
	struct my_session *s;
	const struct vmy_result *v;
	uint64_t rows;
};

static void show_var_row(void *arg, const char *name, const char *value)
{
	struct show_vars_ctx *c = arg;
	const char *row[2] = {name, value};
	bool want = !c->v->have_like && c->v->nnames == 0;

	if (c->v->have_like)
		want = like_match(c->v->like, name);
	for (size_t i = 0; i < c->v->nnames && !want; i++)
		want = strcasecmp(c->v->names[i], name) == 0;
	/* MariaDB's SHOW VARIABLES is bound by sql_select_limit. */
	if (!want || c->rows >= myv_select_limit(c->s))
		return;
	myl_row(c->s, row, 2);
	c->rows++;
}

static void show_variables(struct my_session *s, const struct vmy_result *v)
{
	static const struct myl_col cols[] = {
		{"Variable_name", MY_TYPE_VAR_STRING, false},
		{"Value", MY_TYPE_VAR_STRING, false},
	};
	struct show_vars_ctx c = {.s = s, .v = v};

	myl_header(s, cols, 2);
	myv_each(s, show_var_row, &c);
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, c.rows, 0, 0);
	myr_flush(s);
}

/* SHOW [SESSION] STATUS: what this session's status holds of its own (its TLS), in MariaDB's names. */
static void show_status(struct my_session *s, const struct vmy_result *v)
{
	static const struct myl_col cols[] = {
		{"Variable_name", MY_TYPE_VAR_STRING, false},
		{"Value", MY_TYPE_VAR_STRING, false},
	};
	struct show_vars_ctx c = {.s = s, .v = v};
	const char *cipher = "", *version = "";

	if (s->core.tls)
		tls_describe(s->core.bev, &cipher, &version);
	myl_header(s, cols, 2);
	show_var_row(&c, "Ssl_cipher", cipher);
	show_var_row(&c, "Ssl_version", version);
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, c.rows, 0, 0);
	myr_flush(s);
}

struct policy_ctx {
	struct my_session *s;
	uint64_t rows;
};

static void policy_row(void *arg, const char *kind, const char *name, const char *detail)
{
	struct policy_ctx *c = arg;
	const char *row[3] = {kind, name, detail};

	myl_row(c->s, row, 3);
	c->rows++;
}

/* SHOW AIRLOCK POLICY: the user's tables, which are filtered or narrowed, and its limits. */
static void show_policy(struct my_session *s)
{
	static const struct myl_col cols[] = {
		{"Kind", MY_TYPE_VAR_STRING, false},
		{"Name", MY_TYPE_VAR_STRING, false},
		{"Detail", MY_TYPE_VAR_STRING, false},
	};
	struct policy_ctx c = {.s = s};

	myl_header(s, cols, 3);
	policy_each(s->core.u, true, policy_row, &c);
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, c.rows, 0, 0);
	myr_flush(s);
}

static void set_vars(struct my_session *s, const struct vmy_result *v)
{
	struct mys_vars saved = s->vars;
	bool in_trans = s->in_trans, ro = s->read_only_txn;
	char msg[256];

	for (size_t i = 0; i < v->nassigns; i++) {
		enum airlock_native err = myv_assign(s, &v->assigns[i], msg, sizeof(msg));

		if (err) {
			/* All or nothing, as the server does. */
			s->vars = saved;
			s->in_trans = in_trans;
			s->read_only_txn = ro;
			myr_refuse(s, AIRLOCK_E_NONE, err, msg, NULL);
			return;
		}
	}
	local_ok(s);
}

static void use_db(struct my_session *s, const char *db)
{
	char msg[256];

	if (!myq_database_allowed(s, db)) {
		snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' to database '%.64s'", s->core.user,
			 s->host, db);
		myr_refuse(s, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_MY_DB_ACCESS_DENIED, msg,
			   "switch only to the databases of mysql_tables");
		return;
	}
	snprintf(s->database, sizeof(s->database), "%s", db);
	local_ok(s);
}

void myq_init_db(struct my_session *s, const char *db, size_t len)
{
	char name[65];

	myr_clear_warnings(s);
	if (len == 0 || len >= sizeof(name) || memchr(db, '\0', len)) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_DB_NAME, "Incorrect database name", NULL);
		return;
	}
	memcpy(name, db, len);
	name[len] = '\0';
	use_db(s, name);
}

/* Skips spaces; then true (and past it) when word, case-insensitive, comes next as a whole word. */
static bool take_word(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (*p < end && isspace((unsigned char)**p))
		(*p)++;
	if ((size_t)(end - *p) < n || strncasecmp(*p, word, n) != 0)
		return false;
	if (*p + n < end && (isalnum((unsigned char)(*p)[n]) || (*p)[n] == '_'))
		return false;
	*p += n;
	return true;
}

/*
 * "KILL QUERY <id>" (what the mysql client sends on Ctrl-C, over a second
 * connection), "KILL [CONNECTION] <id>" and "KILL QUERY ID <id>" (by_id
 * gets the word ID as written, "" without it: a query id, or with
 * CONNECTION or nothing before it a column MariaDB cannot find): only the exact form, digits and an optional ';'.
 * Returns false when sql is not one; then the validator refuses it like any other statement.
 */
static bool kill_statement(const char *sql, size_t len, bool *query_only, char by_id[3], uint32_t *id)
{
	const char *p = sql, *end = sql + len;
	uint64_t v = 0;
	size_t digits = 0;

	if (!take_word(&p, end, "KILL"))
		return false;
	*query_only = take_word(&p, end, "QUERY");
	if (!*query_only)
		take_word(&p, end, "CONNECTION");
	by_id[0] = '\0';
	if (take_word(&p, end, "ID")) {
		/* As written: MariaDB names the column it cannot find that way. */
		memcpy(by_id, p - 2, 2);
		by_id[2] = '\0';
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	for (; p < end && isdigit((unsigned char)*p) && digits < 11; p++, digits++)
		v = v * 10 + (uint64_t)(*p - '0');
	while (p < end && (isspace((unsigned char)*p) || *p == ';'))
		p++;
	if (digits == 0 || p != end || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

bool my_kill_query(struct server *srv, const struct session_proto *mysql, uint32_t id, const char *user, const char *by)
{
	struct session *o = session_find(srv, mysql, id);

	if (!o || !o->u || strcmp(o->user, user) != 0)
		return false;
	if (o->job) {
		session_log(o, "KILL QUERY from %s", by);
		job_cancel(o->job);
	} else if (myw_cancel((struct my_session *)o)) {
		session_log(o, "KILL QUERY from %s ended the wait for a held write", by);
	}
	return true;
}

/* The other node's answer to the KILL QUERY session waiter sent on, as MariaDB answers it. */
static void kill_answered(struct server *srv, const struct session_proto *proto, uint32_t waiter,
			  enum peer_kill_answer answer)
{
	struct session *o = session_find(srv, proto, waiter);
	struct my_session *s = (struct my_session *)o;
	char msg[64];

	if (!o || !s->kill_wait || o->st != SESSION_BUSY)
		return;
	if (answer == PEER_KILL_ANSWER_NONE) {
		snprintf(msg, sizeof(msg), "Unknown thread id: %u", s->kill_wait);
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_NO_SUCH_THREAD, msg, NULL);
	} else {
		/* Done, or sent and not answered (a node of an older airlockd answers nothing): OK, as before. */
		local_ok(s);
	}
	s->kill_wait = 0;
	session_statement_done(o);
}

/* Cancels the statement of one of the same user's sessions (KILL QUERY), as the server would. */
static void kill_query(struct my_session *s, bool query_only, const char *by_id, uint32_t id)
{
	char msg[128], by[32];
	struct session *o;

	if (by_id[0] && !query_only) {
		/* MariaDB reads KILL [CONNECTION] ID n as a column named id. */
		snprintf(msg, sizeof(msg), "Unknown column '%s' in 'KILL'", by_id);
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_BAD_FIELD, msg, NULL);
		return;
	}
	if (by_id[0]) {
		/* Query ids number the backend's statements; an agent is shown none, so none is known. */
		snprintf(msg, sizeof(msg), "Unknown query id: %u", id);
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_NO_SUCH_QUERY, msg, NULL);
		return;
	}
	/* Another node's connection: that node is asked, signed, and does the same checks. */
	if (query_only && peers_where(s->core.srv, id) != PEER_KEY_HERE &&
	    peers_forward_kill(s->core.srv, id, s->core.user, kill_answered, s->core.proto, s->core.id)) {
		if (peers_where(s->core.srv, id) == PEER_KEY_OTHER_WORKER)
			session_log(&s->core, "KILL QUERY %u sent to worker %u", id, peer_key_worker(id));
		else
			session_log(&s->core, "KILL QUERY %u sent to peer %u", id, peer_key_node(id));
		/* No other command is read until the answer (or PEER_TIMEOUT_SEC) comes. */
		s->kill_wait = id;
		session_set_state(&s->core, SESSION_BUSY);
		return;
	}
	if (!query_only) {
		o = session_find(s->core.srv, s->core.proto, id);
		if (o && o->u && strcmp(o->user, s->core.user) == 0) {
			myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
				   "KILL CONNECTION is not available through airlock",
				   "use KILL QUERY <id> to stop a statement, or close that connection");
			return;
		}
	} else {
		snprintf(by, sizeof(by), "session %u", s->core.id);
		if (my_kill_query(s->core.srv, s->core.proto, id, s->core.user, by)) {
			local_ok(s);
			return;
		}
	}
	/* Other users' sessions are as unknown as ids that do not exist. */
	snprintf(msg, sizeof(msg), "Unknown thread id: %u", id);
	myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_NO_SUCH_THREAD, msg, NULL);
}

/*
 * An EXPLAIN's job also reads which foreign keys the world hides (their
 * indexes' names leave the plan). A SELECT's (WITH, VALUES, a parenthesized
 * query) is cost-checked when the user has max_cost, as Postgres reads
 * are; SHOW, DESCRIBE and EXPLAIN, which EXPLAIN cannot take, and a field
 * list's LIMIT 0 are not.
 */
static void start_read(struct my_session *s, const char *text, bool field_list, bool binary, const struct myq_job *how,
		       const struct vmy_result *v, const struct vmy_policy *pol)
{
	char *hidden = NULL;

	if (v->stmt_kind && strcmp(v->stmt_kind, "EXPLAIN") == 0) {
		hidden = vmy_hidden_foreign_keys_sql(pol);
		if (!hidden) {
			myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
			return;
		}
	}
	s->hidden_keys = hidden;
	s->cost_check = !field_list && v->stmt_kind && strcmp(v->stmt_kind, "SELECT") == 0;
	if (how)
		myj_start_with(s, text, how);
	else
		myj_start(s, text, field_list, binary);
	s->hidden_keys = NULL;
	s->cost_check = false;
	free(hidden);
}

/*
 * Runs a read that passed the validator as v, through the catalog scoping
 * (validate_my_scope.h): a rewritten text is validated again, with
 * information_schema allowed for the derived tables the rewrite added,
 * before it runs.
 */
static void run_read(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v, bool field_list,
		     bool binary, const struct myq_job *how)
{
	struct vmy_policy pol;
	struct vmy_result *again = NULL;
	bool failed;
	char *text;

	myv_fill_policy(s, &pol);
	/* SHOW CREATE TABLE: its result names no table or column the world hides (my_scrub.c). */
	memcpy(s->create_db, v->create_db, sizeof(s->create_db));
	if (v->stmt_kind && strcmp(v->stmt_kind, "EXPLAIN") == 0 && vmy_scope_reads_rules(v)) {
		/* The plan would show the filter (FORMAT=JSON prints it). */
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "Not supported through airlock: EXPLAIN of a statement that reads a filtered table",
			   "run the statement itself");
		return;
	}
	if (vmy_scope_reads_rules(v) && myv_mode_changes_values(&s->vars)) {
		/* No spelling of the operator's filter or mask means the same under these modes. */
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "Not supported through airlock: reading a table with a row filter or column mask under "
			   "this sql_mode",
			   "SET sql_mode without NO_UNSIGNED_SUBTRACTION, NO_ZERO_IN_DATE, NO_ZERO_DATE, "
			   "ALLOW_INVALID_DATES, PAD_CHAR_TO_FULL_LENGTH and TIME_ROUND_FRACTIONAL (TRADITIONAL "
			   "sets two of them), which change what the policy's expressions compute");
		return;
	}
	again = malloc(sizeof(*again));
	if (!again) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	/* The worker scopes the read and validates the rewrite with information_schema allowed for the
	 * derived tables it added. */
	text = vcl_my_scope(s->core.srv->validators, &pol, sql, len, v, &failed, again);
	if (!text && !failed) {
		/* The job copies the text; it needs a NUL terminator (the validator refused any NUL inside). */
		text = strndup(sql, len);
		if (text)
			start_read(s, text, field_list, binary, how, v, &pol);
		else
			myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		goto out;
	}
	if (!text && again->kind == VMY_REFUSED) {
		myr_refused(s, again);
		goto out;
	}
	if (!text) {
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "Not supported through airlock: this statement could not be scoped to the allowed tables",
			   "write the catalog query more plainly");
		goto out;
	}
	if (again->kind == VMY_REFUSED)
		myr_refused(s, again);
	else if (again->kind != VMY_READ)
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_MY_PARSE_ERROR,
			   "The statement could not be scoped to the allowed tables", NULL);
	else
		start_read(s, text, field_list, binary, how, v, &pol);
out:
	free(text);
	free(again);
}

void myq_validate(struct my_session *s, const char *sql, size_t len, struct vmy_result *v)
{
	struct vmy_policy pol;

	myv_fill_policy(s, &pol);
	vcl_my_validate(s->core.srv->validators, &pol, sql, len, v, &s->core.fingerprint);
}

void myq_read_with(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v,
		   const struct myq_job *how)
{
	run_read(s, sql, len, v, false, false, how);
}

void myq_star_refuse(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v)
{
	struct vmy_result *again = malloc(sizeof(*again));

	star_refusal_hold(&s->star, v->message, v->hint, 0);
	if (!again) {
		myr_refused(s, v);
		return;
	}
	/* The same read with the star allowed: every other check it passed already. */
	s->star_allowed = true;
	myq_validate(s, sql, len, again);
	if (again->kind == VMY_READ)
		run_read(s, sql, len, again, false, false,
			 &(struct myq_job){.ev = &mys_star_events, .arg = s, .describe = true});
	s->star_allowed = false;
	/* Started, or refused before a job could start (its ERR is out); else the refusal as it is. */
	if (again->kind != VMY_READ)
		myr_refused(s, v);
	free(again);
}

/* A bound statement's final text: validated as it will run, then its job (how NULL: binary rows). */
static void run_bound(struct my_session *s, const char *sql, size_t len, const struct myq_job *how)
{
	struct vmy_result *v = malloc(sizeof(*v));

	if (!v) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	/* The final text, values in place, is what the validator judges. */
	myq_validate(s, sql, len, v);
	if (v->kind == VMY_REFUSED)
		myr_refused(s, v);
	else if (v->kind == VMY_WRITE && !how)
		myw_execute(s, sql, len, v);
	else if (v->kind != VMY_READ)
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_MY_UNSUPPORTED_PREPARED,
			   "This command is not supported in the prepared statement protocol yet",
			   "send it as a text query");
	else
		run_read(s, sql, len, v, false, !how, how);
	free(v);
}

void myq_run_binary(struct my_session *s, const char *sql, size_t len)
{
	run_bound(s, sql, len, NULL);
}

void myq_run_with(struct my_session *s, const char *sql, size_t len, const struct myq_job *how)
{
	run_bound(s, sql, len, how);
}

void myq_query(struct my_session *s, const char *sql, size_t len)
{
	bool query_only;
	char by_id[3];
	uint32_t kill_id;
	struct vmy_result *v;

	if (kill_statement(sql, len, &query_only, by_id, &kill_id)) {
		myr_clear_warnings(s);
		kill_query(s, query_only, by_id, kill_id);
		return;
	}
	v = malloc(sizeof(*v));
	if (!v) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	myq_validate(s, sql, len, v);
	if (v->kind != VMY_SHOW_WARNINGS && v->kind != VMY_SHOW_ERRORS)
		myr_clear_warnings(s);
	switch (v->kind) {
	case VMY_REFUSED:
		if (v->code == AIRLOCK_E_SELECT_STAR)
			myq_star_refuse(s, sql, len, v);
		else
			myr_refused(s, v);
		break;
	case VMY_NKINDS: /* never a result; refused to be safe */
		myr_refused(s, v);
		break;
	case VMY_EMPTY:
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_EMPTY_QUERY, "Query was empty", NULL);
		break;
	case VMY_SET:
		set_vars(s, v);
		break;
	case VMY_BEGIN:
		s->in_trans = true;
		s->read_only_txn = v->read_only_txn;
		local_ok(s);
		break;
	case VMY_COMMIT:
	case VMY_ROLLBACK:
		s->in_trans = false;
		s->read_only_txn = false;
		local_ok(s);
		break;
	case VMY_LOCK_TABLES:
		/* No lock is taken: each statement runs in its own snapshot (validate_my_lock.h). */
		local_ok(s);
		break;
	case VMY_USE:
		use_db(s, v->use_db);
		break;
	case VMY_SHOW_WARNINGS:
	case VMY_SHOW_ERRORS:
		myl_show_warnings(s,
				  &(struct myl_warnings){.errors_only = v->kind == VMY_SHOW_ERRORS,
							 .count_only = v->count_only,
							 .offset = v->offset,
							 .limit = v->limit},
				  false);
		break;
	case VMY_LOCAL_SELECT:
		local_select(s, v);
		break;
	case VMY_SHOW_VARIABLES:
		show_variables(s, v);
		break;
	case VMY_SHOW_POLICY:
		show_policy(s);
		break;
	case VMY_SHOW_APPROVAL:
		myw_show(s, v->approval);
		break;
	case VMY_WRITE:
		myw_execute(s, sql, len, v);
		break;
	case VMY_SHOW_STATUS:
		show_status(s, v);
		break;
	case VMY_READ:
		run_read(s, sql, len, v, false, false, NULL);
		break;
	}
	free(v);
}

/* `name` with backticks doubled, into out; false when it does not fit. */
static bool quote_ident(const char *name, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	if (o + 1 >= cap)
		return false;
	out[o++] = '`';
	for (size_t i = 0; i < len; i++) {
		if (o + 3 >= cap)
			return false;
		if (name[i] == '`')
			out[o++] = '`';
		out[o++] = name[i];
	}
	out[o++] = '`';
	out[o] = '\0';
	return true;
}

void myq_field_list(struct my_session *s, const char *table, size_t len, const char *wild, size_t wild_len)
{
	char qdb[140], qtable[140], sql[320];
	struct vmy_policy pol;
	struct vmy_result *v;
	uint64_t fingerprint;

	myr_clear_warnings(s);
	/* Longer than any column name could need; the server would read it whole, so keep what fits. */
	if (wild_len >= sizeof(s->field_wild))
		wild_len = sizeof(s->field_wild) - 1;
	memcpy(s->field_wild, wild, wild_len);
	s->field_wild[wild_len] = '\0';
	if (!s->database[0]) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_NO_DATABASE_SELECTED, "No database selected", NULL);
		return;
	}
	if (len == 0 || len > 64 || memchr(table, '\0', len) ||
	    !quote_ident(s->database, strlen(s->database), qdb, sizeof(qdb)) ||
	    !quote_ident(table, len, qtable, sizeof(qtable))) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_TABLE_NAME, "Incorrect table name", NULL);
		return;
	}
	/* The same rules as a query naming the table: the allowlist decides. */
	snprintf(sql, sizeof(sql), "SELECT * FROM %s.%s LIMIT 0", qdb, qtable);
	v = malloc(sizeof(*v));
	if (!v) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	/* Column definitions only (LIMIT 0): what forbid_select_star keeps out is rows. */
	s->star_allowed = true;
	myv_fill_policy(s, &pol);
	vcl_my_validate(s->core.srv->validators, &pol, sql, strlen(sql), v, &fingerprint);
	if (v->kind == VMY_REFUSED)
		myr_refused(s, v);
	else if (v->kind != VMY_READ)
		myr_refuse(s, v->code, AIRLOCK_N_MY_PARSE_ERROR, v->message, v->hint);
	else
		run_read(s, sql, strlen(sql), v, true, false, NULL);
	s->star_allowed = false;
	free(v);
}
