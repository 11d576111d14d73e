/*
 * my_query: runs one COM_QUERY, COM_INIT_DB or COM_FIELD_LIST of a MySQL
 * session: the local answers (SET, transactions, USE, SHOW WARNINGS, SHOW
 * VARIABLES, SELECT DATABASE() and friends) and reads handed to a job,
 * whose frames become a text result set: column count, column
 * definitions, EOF (unless the client negotiated DEPRECATE_EOF), rows, and
 * EOF or OK carrying the status flags and the warning count.
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
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"
#include "proxy/mysql/validate/validate_my_fingerprint.h"

/* Warning code reported for a result cut by max_rows or max_bytes. */
#define TRUNCATED_WARNING_CODE 1105

static bool deprecate_eof(const struct my_session *s)
{
	return (s->caps & MY_CAP_DEPRECATE_EOF) != 0;
}

void myq_clear_warnings(struct my_session *s)
{
	s->nwarnings = 0;
	s->warn_count = 0;
}

void myq_add_warning(struct my_session *s, const char *level, uint16_t code, const char *message)
{
	s->warn_count++;
	if (s->nwarnings >= MYS_MAX_WARNINGS)
		return;
	struct mys_warning *w = &s->warnings[s->nwarnings++];
	snprintf(w->level, sizeof(w->level), "%s", level);
	w->code = code;
	snprintf(w->message, sizeof(w->message), "%s", message);
}

static void refuse(struct my_session *s, unsigned errcode, const char *sqlstate, const char *code,
		   const char *message, const char *hint)
{
	mys_put_err(s, (uint16_t)errcode, sqlstate, code, message, hint);
	mys_audit(s, "refused", sqlstate, code, 0, 0, 0);
	mys_flush(s);
}

static void local_ok(struct my_session *s)
{
	mys_put_ok(s);
	mys_audit(s, "local", NULL, NULL, 0, 0, 0);
	mys_flush(s);
}

/* ---- local result sets ---- */

struct local_col {
	const char *name;
	uint8_t type;
	bool numeric;
};

static void local_header(struct my_session *s, const struct local_col *cols, size_t n)
{
	my_write_column_count(&s->w, s->seq++, n);
	for (size_t i = 0; i < n; i++) {
		struct my_column c = {
			.name = cols[i].name,
			.name_len = strlen(cols[i].name),
			.charset = cols[i].numeric ? 63 : s->vars.charset_id,
			.length = cols[i].numeric ? 21 : 1024,
			.type = cols[i].type,
			.flags = cols[i].numeric ? (MY_FLAG_NOT_NULL | MY_FLAG_BINARY | MY_FLAG_NUM) : 0,
		};
		my_write_column_def(&s->w, s->seq++, &c, false);
	}
	if (!deprecate_eof(s))
		my_write_eof(&s->w, s->seq++, 0, mys_status(s));
}

/* One text row; a NULL entry in values is SQL NULL. */
static void local_row(struct my_session *s, const char *const *values, size_t n)
{
	my_begin(&s->w, s->seq++);
	for (size_t i = 0; i < n; i++) {
		if (values[i])
			my_put_lenenc_str(&s->w, values[i], strlen(values[i]));
		else
			my_put_null(&s->w);
	}
	my_end(&s->w);
}

static void result_end(struct my_session *s)
{
	if (deprecate_eof(s))
		my_write_ok(&s->w, s->seq++, s->caps, 0, 0, mys_status(s), (uint16_t)s->warn_count, true);
	else
		my_write_eof(&s->w, s->seq++, (uint16_t)s->warn_count, mys_status(s));
}

static void show_warnings(struct my_session *s, const struct vmy_result *v, bool errors_only)
{
	static const struct local_col cols[] = {
		{"Level", MY_TYPE_VAR_STRING, false},
		{"Code", MY_TYPE_LONG, true},
		{"Message", MY_TYPE_VAR_STRING, false},
	};
	char code[12];
	uint64_t rows = 0;
	long seen = 0;

	if (v->count_only) {
		/* SHOW COUNT(*) WARNINGS: one row, the count. */
		const struct local_col count = {errors_only ? "@@session.error_count" : "@@session.warning_count",
						MY_TYPE_LONGLONG, true};
		uint32_t n = s->warn_count;
		const char *row[1] = {code};

		if (errors_only) {
			n = 0;
			for (uint16_t i = 0; i < s->nwarnings; i++)
				n += strcmp(s->warnings[i].level, "Error") == 0;
		}
		snprintf(code, sizeof(code), "%u", n);
		local_header(s, &count, 1);
		local_row(s, row, 1);
		result_end(s);
		mys_audit(s, "local", NULL, NULL, 1, 0, 0);
		mys_flush(s);
		return;
	}
	local_header(s, cols, 3);
	for (uint16_t i = 0; i < s->nwarnings; i++) {
		const struct mys_warning *w = &s->warnings[i];
		const char *row[3] = {w->level, code, w->message};

		if (errors_only && strcmp(w->level, "Error") != 0)
			continue;
		if (seen++ < v->offset)
			continue;
		if (v->limit >= 0 && rows >= (uint64_t)v->limit)
			break;
		snprintf(code, sizeof(code), "%u", w->code);
		local_row(s, row, 3);
		rows++;
	}
	result_end(s);
	mys_audit(s, "local", NULL, NULL, rows, 0, 0);
	mys_flush(s);
}

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
		snprintf(buf, len, "%s@%s", s->user, s->host);
		return buf;
	case VMY_ITEM_CURRENT_USER:
		snprintf(buf, len, "%s@%%", s->user);
		return buf;
	case VMY_ITEM_CONNECTION_ID:
		*numeric = true;
		snprintf(buf, len, "%u", s->conn_id);
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
	struct local_col cols[VMY_MAX_ITEMS];
	char bufs[VMY_MAX_ITEMS][128];
	const char *values[VMY_MAX_ITEMS];

	for (size_t i = 0; i < v->nitems; i++) {
		bool numeric;

		values[i] = item_value(s, &v->items[i], bufs[i], sizeof(bufs[i]), &numeric);
		cols[i] = (struct local_col){
			.name = v->items[i].label,
			.type = numeric ? MY_TYPE_LONGLONG : MY_TYPE_VAR_STRING,
			.numeric = numeric,
		};
	}
	local_header(s, cols, v->nitems);
	if (v->limit != 0)
		local_row(s, values, v->nitems);
	result_end(s);
	mys_audit(s, "local", NULL, NULL, v->limit != 0, 0, 0);
	mys_flush(s);
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
	if (!want)
		return;
	local_row(c->s, row, 2);
	c->rows++;
}

static void show_variables(struct my_session *s, const struct vmy_result *v)
{
	static const struct local_col cols[] = {
		{"Variable_name", MY_TYPE_VAR_STRING, false},
		{"Value", MY_TYPE_VAR_STRING, false},
	};
	struct show_vars_ctx c = {.s = s, .v = v};

	local_header(s, cols, 2);
	myv_each(s, show_var_row, &c);
	result_end(s);
	mys_audit(s, "local", NULL, NULL, c.rows, 0, 0);
	mys_flush(s);
}

static void set_vars(struct my_session *s, const struct vmy_result *v)
{
	struct mys_vars saved = s->vars;
	bool in_trans = s->in_trans, ro = s->read_only_txn;
	char msg[256];

	for (size_t i = 0; i < v->nassigns; i++) {
		unsigned err = myv_assign(s, &v->assigns[i], msg, sizeof(msg));

		if (err) {
			/* All or nothing, as the server does. */
			s->vars = saved;
			s->in_trans = in_trans;
			s->read_only_txn = ro;
			refuse(s, err, err == 1231 ? "42000" : "HY000", NULL, msg, NULL);
			return;
		}
	}
	local_ok(s);
}

static void use_db(struct my_session *s, const char *db)
{
	char msg[256];

	if (!mys_database_allowed(s, db)) {
		snprintf(msg, sizeof(msg), "Access denied for user '%s'@'%s' to database '%.64s'", s->user, s->host, db);
		refuse(s, 1044, "42000", "TABLE_NOT_ALLOWED", msg, "switch only to the databases of mysql_tables");
		return;
	}
	snprintf(s->database, sizeof(s->database), "%s", db);
	local_ok(s);
}

void myq_init_db(struct my_session *s, const char *db, size_t len)
{
	char name[65];

	myq_clear_warnings(s);
	if (len == 0 || len >= sizeof(name) || memchr(db, '\0', len)) {
		refuse(s, 1102, "42000", NULL, "Incorrect database name", NULL);
		return;
	}
	memcpy(name, db, len);
	name[len] = '\0';
	use_db(s, name);
}

/* ---- jobs ---- */

void myq_bin_free(struct my_session *s)
{
	free(s->bin.types);
	free(s->bin.is_unsigned);
	free(s->bin.values);
	free(s->bin.lens);
	memset(&s->bin, 0, sizeof(s->bin));
}

void myq_job_ended(struct my_session *s)
{
	s->gen->user_jobs[server_gen_user_index(s->gen, s->u)]--;
}

static void job_rowdesc(void *arg, const struct frame *f)
{
	struct my_session *s = arg;
	struct frame_cursor cur;
	struct frame_mycol col;
	uint16_t n;

	if (s->cols_sent || f->type != FRAME_MYCOLS || frame_mycols_begin(f, &n, &cur) != FRAME_OK) {
		log_error("mysql session %u: unexpected column frame from the runner", s->conn_id);
		return;
	}
	if (s->binary) {
		s->bin.types = calloc(n ? n : 1, sizeof(*s->bin.types));
		s->bin.is_unsigned = calloc(n ? n : 1, sizeof(*s->bin.is_unsigned));
		s->bin.values = calloc(n ? n : 1, sizeof(*s->bin.values));
		s->bin.lens = calloc(n ? n : 1, sizeof(*s->bin.lens));
		if (!s->bin.types || !s->bin.is_unsigned || !s->bin.values || !s->bin.lens) {
			s->result_failed = true;
			mys_put_err(s, 1037, "HY001", NULL, "Out of memory", NULL);
			mys_flush(s);
			job_cancel(s->job);
			return;
		}
	}
	if (!s->field_list)
		my_write_column_count(&s->w, s->seq++, n);
	for (uint16_t i = 0; i < n; i++) {
		if (frame_mycols_next(&cur, &col) != FRAME_OK)
			break;
		if (s->binary) {
			s->bin.types[i] = col.type;
			s->bin.is_unsigned[i] = (col.flags & MY_FLAG_UNSIGNED) != 0;
		}
		struct my_column c = {
			.schema = col.schema.ptr,
			.schema_len = col.schema.len,
			.table = col.table.ptr,
			.table_len = col.table.len,
			.org_table = col.org_table.ptr,
			.org_table_len = col.org_table.len,
			.name = col.name.ptr,
			.name_len = col.name.len,
			.org_name = col.org_name.ptr,
			.org_name_len = col.org_name.len,
			.charset = col.charset,
			.length = col.length,
			.type = col.type,
			.flags = col.flags,
			.decimals = col.decimals,
		};
		my_write_column_def(&s->w, s->seq++, &c, s->field_list);
	}
	if (!s->field_list && !deprecate_eof(s))
		my_write_eof(&s->w, s->seq++, 0, mys_status(s));
	s->cols_sent = true;
	s->ncols = n;
	mys_flush(s);
}

/* A row in the binary protocol, from the text values of the 'D' frame; false (ERR sent) when one does not parse. */
static bool binary_row(struct my_session *s, const struct frame *f, uint16_t n)
{
	const uint8_t *p = f->payload + 2, *end = f->payload + f->len;
	const char *why = NULL;
	bool ok = n == s->ncols;

	/* The arrays were made for this result's columns; each row only fills them. */
	for (uint16_t i = 0; ok && i < n && p + 4 <= end; i++) {
		int32_t len = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);

		p += 4;
		s->bin.values[i] = len >= 0 ? p : NULL;
		s->bin.lens[i] = len >= 0 ? (size_t)len : 0;
		if (len >= 0)
			p += len;
	}
	if (ok && my_write_binary_row(&s->w, s->seq, n, s->bin.types, s->bin.is_unsigned, s->bin.values, s->bin.lens,
				      &why) == MY_OK)
		s->seq++;
	else
		ok = false;
	if (!ok) {
		log_warn("mysql session %u: a value could not be encoded in the binary protocol: %s", s->conn_id,
			 why ? why : "out of memory");
		mys_put_err(s, 1105, "HY000", "UNSUPPORTED", "a value could not be sent in the binary protocol",
			    "run the statement as a text query");
	}
	return ok;
}

static void job_row(void *arg, const struct frame *f)
{
	struct my_session *s = arg;
	const uint8_t *p = f->payload + 2, *end = f->payload + f->len;
	uint16_t n = (uint16_t)(f->payload[0] << 8 | f->payload[1]);

	if (s->result_failed)
		return;
	if (s->binary) {
		if (!binary_row(s, f, n)) {
			s->result_failed = true;
			mys_flush(s);
			job_cancel(s->job);
			return;
		}
		goto out;
	}
	/* job.c checked the layout (frame_row_check) before handing the row on. */
	my_begin(&s->w, s->seq++);
	for (uint16_t i = 0; i < n && p + 4 <= end; i++) {
		int32_t len = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);

		p += 4;
		if (len < 0) {
			my_put_null(&s->w);
			continue;
		}
		my_put_lenenc_str(&s->w, p, (size_t)len);
		p += len;
	}
	my_end(&s->w);
out:
	mys_flush(s);
	if (s->job && evbuffer_get_length(bufferevent_get_output(s->bev)) > MYS_OUT_HIGH_WATER) {
		s->out_paused = true;
		job_pause(s->job, true);
	}
}

static void job_notice(void *arg, const struct frame_error *e)
{
	struct my_session *s = arg;
	char level[8], msg[512];
	unsigned code = 0;

	for (uint32_t i = 0; i < e->my_errno.len && code < 100000; i++)
		code = code * 10 + (unsigned)(e->my_errno.ptr[i] - '0');
	snprintf(level, sizeof(level), "%.*s", (int)e->code.len, e->code.ptr);
	if (strcmp(level, "Note") != 0 && strcmp(level, "Error") != 0)
		snprintf(level, sizeof(level), "Warning");
	snprintf(msg, sizeof(msg), "%.*s", (int)e->message.len, e->message.ptr);
	myq_add_warning(s, level, (uint16_t)code, msg);
}

/* The errno for a failure that did not come from the backend. */
static unsigned errno_for(const struct job_result *r)
{
	if (r->my_errno)
		return r->my_errno;
	if (r->code && !strcmp(r->code, "TIMEOUT"))
		return 3024;
	if (r->code && !strcmp(r->code, "CANCELED"))
		return 1317;
	if (r->code && !strcmp(r->code, "BUSY"))
		return 1040;
	return 1105;
}

static void truncated_warning(struct my_session *s, uint8_t truncated, uint64_t rows)
{
	const struct airlock_limits *lim = &s->u->limits;
	char note[400];

	if (truncated == FRAME_TRUNC_MAX_ROWS)
		snprintf(note, sizeof(note),
			 "RESULT_TRUNCATED: result truncated by max_rows=%u after %" PRIu64 " rows; add a LIMIT, "
			 "select fewer columns or filter with WHERE to get the whole result", lim->max_rows, rows);
	else
		snprintf(note, sizeof(note),
			 "RESULT_TRUNCATED: result truncated by max_bytes=%" PRIu64 " after %" PRIu64 " rows; add a "
			 "LIMIT, select fewer columns or filter with WHERE to get the whole result", lim->max_bytes, rows);
	myq_add_warning(s, "Warning", TRUNCATED_WARNING_CODE, note);
}

static void job_done(void *arg, const struct job_result *r)
{
	struct my_session *s = arg;

	s->job = NULL;
	myq_job_ended(s);
	s->out_paused = false;
	if (!s->vars.autocommit)
		s->in_trans = true; /* a statement opens a transaction when autocommit is off */
	if (s->result_failed) {
		/* The ERR went out with the row that failed. */
		mys_audit(s, "error", "HY000", "UNSUPPORTED", r->rows, r->bytes, r->truncated);
	} else if (r->ok) {
		if (r->truncated)
			truncated_warning(s, r->truncated, r->rows);
		if (s->field_list) {
			if (deprecate_eof(s))
				my_write_ok(&s->w, s->seq++, s->caps, 0, 0, mys_status(s), (uint16_t)s->warn_count, true);
			else
				my_write_eof(&s->w, s->seq++, (uint16_t)s->warn_count, mys_status(s));
		} else if (!s->cols_sent) {
			mys_put_ok(s);
		} else {
			result_end(s);
		}
		mys_audit(s, "run", NULL, NULL, r->rows, r->bytes, r->truncated);
	} else {
		char state[6];

		snprintf(state, sizeof(state), "%s", r->sqlstate && strlen(r->sqlstate) == 5 ? r->sqlstate : "HY000");
		mys_put_err(s, (uint16_t)errno_for(r), state, r->code, r->message, r->hint);
		mys_audit(s, "error", state, r->code, 0, 0, 0);
	}
	mys_flush(s);
	s->field_list = false;
	s->binary = false;
	s->result_failed = false;
	myq_bin_free(s);
	mys_set_state(s, MYS_READY);
	/* Commands that arrived meanwhile. */
	mys_process(s);
}

static const struct job_events my_job_events = {
	.on_rowdesc = job_rowdesc,
	.on_row = job_row,
	.on_notice = job_notice,
	.on_done = job_done,
};

static void start_job(struct my_session *s, const char *sql, bool field_list, bool binary)
{
	unsigned *running = &s->gen->user_jobs[server_gen_user_index(s->gen, s->u)];
	struct job_setting settings[5] = {
		{"names", s->vars.charset},
		{"sql_mode", s->vars.sql_mode},
		{"time_zone", s->vars.time_zone},
	};
	struct job_request req = {
		.target = s->u->mysql_target,
		.limits = &s->u->limits,
		.sql = sql,
		.settings = settings,
		.nsettings = 3,
	};
	char msg[256];

	if (s->database[0])
		settings[req.nsettings++] = (struct job_setting){"database", s->database};
	if (!myv_collation_is_default(&s->vars))
		settings[req.nsettings++] = (struct job_setting){"collation", s->vars.collation};
	if (*running >= s->u->max_jobs) {
		snprintf(msg, sizeof(msg), "user '%s' already runs %u statements, its max_jobs", s->user,
			 s->u->max_jobs);
		refuse(s, 1040, "08004", "BUSY", msg, "wait for a statement to finish");
		return;
	}
	s->field_list = field_list;
	s->binary = binary;
	s->result_failed = false;
	s->cols_sent = false;
	s->job = job_start(s->srv->jobs, &req, &my_job_events, s);
	if (!s->job) {
		refuse(s, 1037, "HY001", NULL, "Out of memory", NULL);
		return;
	}
	(*running)++;
	mys_set_state(s, MYS_BUSY);
}

static void fill_policy(const struct my_session *s, struct vmy_policy *pol)
{
	*pol = (struct vmy_policy){
		.user = s->user,
		.database = s->database[0] ? s->database : NULL,
		.tables = (const char *const *)s->u->mysql_tables,
		.ntables = s->u->nmysql_tables,
		.allow_sleep = s->u->mysql_allow_sleep,
		.allow_benchmark = s->u->mysql_allow_benchmark,
		/* The runner sets this character set, so the lexer must read the bytes the way the backend will. */
		.charset = s->vars.charset,
	};
	myv_lex_modes(&s->vars, &pol->ansi_quotes, &pol->no_backslash_escapes);
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
 * connection) and "KILL [CONNECTION] <id>": only the exact form, digits
 * and an optional ';'. Returns false when sql is not one; then the
 * validator refuses it like any other statement.
 */
static bool kill_statement(const char *sql, size_t len, bool *query_only, uint32_t *id)
{
	const char *p = sql, *end = sql + len;
	uint64_t v = 0;
	size_t digits = 0;

	if (!take_word(&p, end, "KILL"))
		return false;
	*query_only = take_word(&p, end, "QUERY");
	if (!*query_only)
		take_word(&p, end, "CONNECTION");
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

/* Cancels the statement of one of the same user's sessions (KILL QUERY), as the server would. */
static void kill_query(struct my_session *s, bool query_only, uint32_t id)
{
	char msg[128];

	for (struct my_session *o = s->srv->my_sessions; o; o = o->next) {
		if (o->conn_id != id || !o->u || strcmp(o->user, s->user) != 0)
			continue;
		if (!query_only) {
			refuse(s, 1235, "42000", "UNSUPPORTED", "KILL CONNECTION is not available through airlock",
			       "use KILL QUERY <id> to stop a statement, or close that connection");
			return;
		}
		if (o->job) {
			log_info("mysql session %u: KILL QUERY from session %u", o->conn_id, s->conn_id);
			job_cancel(o->job);
		}
		local_ok(s);
		return;
	}
	/* Other users' sessions are as unknown as ids that do not exist. */
	snprintf(msg, sizeof(msg), "Unknown thread id: %u", id);
	refuse(s, 1094, "HY000", NULL, msg, NULL);
}

void myq_validate(struct my_session *s, const char *sql, size_t len, struct vmy_result *v)
{
	struct vmy_policy pol;

	fill_policy(s, &pol);
	s->fingerprint = vmy_fingerprint(sql, len, pol.ansi_quotes, pol.no_backslash_escapes);
	vmy_validate(&pol, sql, len, v);
}

void myq_run_binary(struct my_session *s, const char *sql, size_t len)
{
	struct vmy_result *v = malloc(sizeof(*v));

	if (!v) {
		refuse(s, 1037, "HY001", NULL, "Out of memory", NULL);
		return;
	}
	/* The final text, values in place, is what the validator judges. */
	myq_validate(s, sql, len, v);
	if (v->kind == VMY_REFUSED)
		refuse(s, v->my_errno, v->sqlstate, v->code, v->message, v->hint);
	else if (v->kind != VMY_READ)
		refuse(s, 1295, "HY000", "UNSUPPORTED", "This command is not supported in the prepared statement protocol yet",
		       "send it as a text query");
	else
		start_job(s, sql, false, true);
	free(v);
}

void myq_query(struct my_session *s, const char *sql, size_t len)
{
	bool query_only;
	uint32_t kill_id;
	struct vmy_result *v;
	char *text;

	if (kill_statement(sql, len, &query_only, &kill_id)) {
		myq_clear_warnings(s);
		kill_query(s, query_only, kill_id);
		return;
	}
	v = malloc(sizeof(*v));
	if (!v) {
		refuse(s, 1037, "HY001", NULL, "Out of memory", NULL);
		return;
	}
	myq_validate(s, sql, len, v);
	if (v->kind != VMY_SHOW_WARNINGS && v->kind != VMY_SHOW_ERRORS)
		myq_clear_warnings(s);
	switch (v->kind) {
	case VMY_REFUSED:
		refuse(s, v->my_errno, v->sqlstate, v->code, v->message, v->hint);
		break;
	case VMY_EMPTY:
		refuse(s, 1065, "42000", NULL, "Query was empty", NULL);
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
	case VMY_USE:
		use_db(s, v->use_db);
		break;
	case VMY_SHOW_WARNINGS:
	case VMY_SHOW_ERRORS:
		show_warnings(s, v, v->kind == VMY_SHOW_ERRORS);
		break;
	case VMY_LOCAL_SELECT:
		local_select(s, v);
		break;
	case VMY_SHOW_VARIABLES:
		show_variables(s, v);
		break;
	case VMY_READ:
		/* The job copies the text; it needs a NUL terminator (the validator refused any NUL inside). */
		text = strndup(sql, len);
		if (!text) {
			refuse(s, 1037, "HY001", NULL, "Out of memory", NULL);
			break;
		}
		start_job(s, text, false, false);
		free(text);
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

void myq_field_list(struct my_session *s, const char *table, size_t len)
{
	char qdb[140], qtable[140], sql[320];
	struct vmy_policy pol;
	struct vmy_result *v;

	myq_clear_warnings(s);
	if (!s->database[0]) {
		refuse(s, 1046, "3D000", NULL, "No database selected", NULL);
		return;
	}
	if (len == 0 || len > 64 || memchr(table, '\0', len) || !quote_ident(s->database, strlen(s->database), qdb,
									sizeof(qdb)) ||
	    !quote_ident(table, len, qtable, sizeof(qtable))) {
		refuse(s, 1103, "42000", NULL, "Incorrect table name", NULL);
		return;
	}
	/* The same rules as a query naming the table: the allowlist decides. */
	snprintf(sql, sizeof(sql), "SELECT * FROM %s.%s LIMIT 0", qdb, qtable);
	v = malloc(sizeof(*v));
	if (!v) {
		refuse(s, 1037, "HY001", NULL, "Out of memory", NULL);
		return;
	}
	fill_policy(s, &pol);
	vmy_validate(&pol, sql, strlen(sql), v);
	if (v->kind != VMY_READ)
		refuse(s, v->kind == VMY_REFUSED ? v->my_errno : 1064, v->kind == VMY_REFUSED ? v->sqlstate : "42000",
		       v->code, v->message, v->hint);
	else
		start_job(s, sql, true, false);
	free(v);
}
