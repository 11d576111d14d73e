/*
 * my_prepared: the server-side prepared statement protocol of a MySQL
 * session (COM_STMT_PREPARE, EXECUTE, CLOSE, RESET).
 *
 * A statement is validated at PREPARE with each '?' standing for a
 * literal, and kept as text with the byte offsets of its placeholders. At
 * EXECUTE each bound value becomes an SQL literal (protocol/my_stmt.c:
 * numbers as numbers, strings quoted for the session's sql_mode), the
 * whole text is validated again as it will run, and it runs as one job
 * like COM_QUERY; the rows come back in the binary protocol. So a value
 * can never change what a statement is: the validator sees the final text.
 * Its column definitions come from a describe job: the backend prepares
 * the statement (scoped as it will run) without executing it, and
 * COM_STMT_PREPARE_OK lists what it described, as Connector/J's
 * getMetaData() reads it. Statements are owned by the session (as many as fit in
 * MYS_MAX_PREPARED_BYTES, each counted with what airlock keeps for it) and
 * freed by CLOSE, COM_RESET_CONNECTION or the end of the session.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "protocol/my_stmt.h"
#include "proxy/log.h"
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"
#include "validator/mysql/validate_my_lex.h"

static struct mys_stmt **find_slot(struct my_session *s, uint32_t id)
{
	for (size_t i = 0; i < s->nstmts; i++)
		if (s->stmts[i] && s->stmts[i]->id == id)
			return &s->stmts[i];
	return NULL;
}

static void stmt_destroy(struct my_session *s, struct mys_stmt *st)
{
	myc_free(s, st->cursor);
	s->prepared_bytes -= st->bytes;
	free(st->sql);
	free(st->holes);
	free(st->counts);
	free(st->types);
	free(st->cols);
	free(st);
}

static void stmt_free(struct my_session *s, struct mys_stmt **slot)
{
	stmt_destroy(s, *slot);
	*slot = NULL;
}

void myp_free_all(struct my_session *s)
{
	if (s->preparing)
		stmt_destroy(s, s->preparing);
	s->preparing = NULL;
	for (size_t i = 0; i < s->nstmts; i++)
		if (s->stmts[i])
			stmt_free(s, &s->stmts[i]);
	free(s->stmts);
	s->stmts = NULL;
	s->nstmts = 0;
}

/* A free slot, the array grown when full; NULL when out of memory. Valid until the next call. */
static struct mys_stmt **free_slot(struct my_session *s)
{
	struct mys_stmt **grown;
	size_t old = s->nstmts, n = old ? old * 2 : 16;

	for (size_t i = 0; i < old; i++)
		if (!s->stmts[i])
			return &s->stmts[i];
	grown = realloc(s->stmts, n * sizeof(*grown));
	if (!grown)
		return NULL;
	memset(grown + old, 0, (n - old) * sizeof(*grown));
	s->stmts = grown;
	s->nstmts = n;
	return &s->stmts[old];
}

/*
 * The offsets of the '?' placeholders of sql (as the session's lexer reads
 * it), into *holes (malloc'd, caller frees), and for each whether it is a
 * LIMIT / OFFSET count (*counts, malloc'd): "LIMIT ?", "OFFSET ?", and the
 * second of "LIMIT ?, ?". Returns the count, or -1 when the text does not
 * lex (the validator then explains why) or has too many.
 */
static int find_holes(const struct my_session *s, const char *sql, size_t len, size_t **holes, bool **counts)
{
	struct vmy_lexer lx;
	struct vmy_token t, prev = {0}, prev2 = {0};
	size_t n = 0, cap = 0;
	size_t *out = NULL, *g1;
	bool *cnt = NULL, *g2;
	char word[8];

	bool ansi_quotes, no_backslash;

	myv_lex_modes(&s->vars, &ansi_quotes, &no_backslash);
	vmy_lex_init(&lx, sql, len, ansi_quotes, no_backslash);
	for (;; prev2 = prev, prev = t) {
		enum vmy_tok_kind k = vmy_lex_next(&lx, &t);
		bool count;

		if (k == VMY_T_END)
			break;
		if (k == VMY_T_ERROR || n >= MY_STMT_MAX_PARAMS)
			goto fail;
		if (!vmy_tok_punct(sql, &t, "?"))
			continue;
		count = prev.kind == VMY_T_WORD && vmy_tok_ident(sql, &prev, word, sizeof(word)) > 0 &&
			(!strcasecmp(word, "LIMIT") || !strcasecmp(word, "OFFSET"));
		/* "LIMIT ?, ?": a comma right after a count placeholder */
		if (!count && vmy_tok_punct(sql, &prev, ",") && n > 0 && cnt[n - 1] && prev2.start == out[n - 1] &&
		    vmy_tok_punct(sql, &prev2, "?"))
			count = true;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			g1 = realloc(out, cap * sizeof(*out));
			if (g1)
				out = g1;
			g2 = realloc(cnt, cap * sizeof(*cnt));
			if (g2)
				cnt = g2;
			if (!g1 || !g2)
				goto fail;
		}
		out[n] = t.start;
		cnt[n++] = count;
	}
	*holes = out;
	*counts = cnt;
	return (int)n;
fail:
	free(out);
	free(cnt);
	return -1;
}

/* sql with each hole replaced by the literal 0: what the validator checks at PREPARE. */
static char *with_zeros(const char *sql, size_t len, const size_t *holes, int n)
{
	char *out = malloc(len + 1), *o = out;
	size_t from = 0;

	if (!out)
		return NULL;
	for (int i = 0; i < n; i++) {
		memcpy(o, sql + from, holes[i] - from);
		o += holes[i] - from;
		*o++ = '0';
		from = holes[i] + 1;
	}
	memcpy(o, sql + from, len - from);
	o[len - from] = '\0';
	return out;
}

/* ---- the describe job of a COM_STMT_PREPARE ---- */

static void described_columns(void *arg, const struct frame *f)
{
	struct my_session *s = arg;
	struct mys_stmt *st = s->preparing;

	if (!st || f->type != FRAME_MYCOLS || st->cols)
		return;
	if (!(st->cols = malloc(f->len ? f->len : 1))) {
		st->out_of_memory = true;
		return;
	}
	memcpy(st->cols, f->payload, f->len);
	st->cols_len = f->len;
	st->bytes += f->len;
	s->prepared_bytes += f->len;
}

/* COM_STMT_PREPARE_OK, the parameters' definitions, then the statement's columns as the backend described them. */
static void put_prepare_ok(struct my_session *s, struct mys_stmt *st)
{
	struct frame f = {.type = FRAME_MYCOLS, .len = st->cols_len, .payload = st->cols};
	struct rbuf cur;
	uint16_t ncols = 0;

	if (st->cols && frame_mycols_begin(&f, &ncols, &cur) != FRAME_OK)
		ncols = 0;
	my_write_prepare_ok(&s->core.w, s->seq++, st->id, ncols, st->nparams, 0);
	for (int i = 0; i < st->nparams; i++) {
		/* As MariaDB describes a parameter before it is bound. */
		struct my_column c = {.name = "?", .name_len = 1, .charset = 63, .type = MY_TYPE_NULL};

		my_write_column_def(&s->core.w, s->seq++, &c, false);
	}
	if (st->nparams > 0 && !(s->caps & MY_CAP_DEPRECATE_EOF))
		my_write_eof(&s->core.w, s->seq++, 0, myr_status(s));
	if (ncols > 0) {
		myr_put_columns(s, &f, false, NULL);
		if (!(s->caps & MY_CAP_DEPRECATE_EOF))
			my_write_eof(&s->core.w, s->seq++, 0, myr_status(s));
	}
}

static void described(void *arg, const struct job_result *r)
{
	struct my_session *s = arg;
	struct mys_stmt *st = s->preparing, **slot;

	session_job_finished(&s->core);
	s->preparing = NULL;
	if (!st) {
		/* The session reset meanwhile. */
	} else if (!r->ok) {
		myr_job_error(s, r);
		stmt_destroy(s, st);
	} else if (st->out_of_memory || !(slot = free_slot(s))) {
		myr_put_err(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		stmt_destroy(s, st);
	} else {
		st->id = ++s->next_stmt_id;
		*slot = st;
		put_prepare_ok(s, st);
		session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	}
	myr_flush(s);
	session_set_state(&s->core, SESSION_READY);
	session_process(&s->core);
}

static const struct job_events describe_events = {
	.on_rowdesc = described_columns,
	.on_done = described,
};

/*
 * SHOW WARNINGS / SHOW ERRORS prepared: the session answers each EXECUTE
 * with the warnings then kept, as it answers the text statement; neither
 * the PREPARE nor the EXECUTE clears them.
 */
static void prepare_local(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v)
{
	struct mys_stmt *st = calloc(1, sizeof(*st)), **slot = st ? free_slot(s) : NULL;

	if (!st || !slot || !(st->sql = strndup(sql, len))) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		free(st);
		return;
	}
	st->len = len;
	st->local = true;
	st->warnings = (struct myl_warnings){.errors_only = v->kind == VMY_SHOW_ERRORS,
					     .count_only = v->count_only,
					     .offset = v->offset,
					     .limit = v->limit};
	st->bytes = sizeof(*st) + len;
	s->prepared_bytes += st->bytes;
	st->id = ++s->next_stmt_id;
	*slot = st;
	my_write_prepare_ok(&s->core.w, s->seq++, st->id, st->warnings.count_only ? 1 : 3, 0, 0);
	myl_warnings_columns(s, &st->warnings);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	myr_flush(s);
}

/* A governed write prepared: no columns, its parameters; each EXECUTE's text is validated and held. */
static void prepare_write(struct my_session *s, struct mys_stmt *st)
{
	struct mys_stmt **slot = free_slot(s);

	if (!slot) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		stmt_destroy(s, st);
		return;
	}
	st->id = ++s->next_stmt_id;
	*slot = st;
	put_prepare_ok(s, st);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 0, 0, 0);
	myr_flush(s);
}

void myp_prepare(struct my_session *s, const char *sql, size_t len)
{
	struct vmy_result *v = NULL;
	struct mys_stmt *st = NULL;
	size_t *holes = NULL;
	bool *counts = NULL;
	char *check = NULL;
	int n;

	/* Bounded by memory (the text and what is kept for it), not by a count. */
	if (s->prepared_bytes + sizeof(*st) + len > MYS_MAX_PREPARED_BYTES) {
		myr_clear_warnings(s);
		myr_refuse(s, AIRLOCK_E_BUSY, AIRLOCK_N_MY_TOO_MANY_PREPARED,
			   "Can't create more than max_prepared_stmt_count statements",
			   "close prepared statements you no longer need (they may hold 4 MiB per session)");
		return;
	}
	n = find_holes(s, sql, len, &holes, &counts);
	v = malloc(sizeof(*v));
	check = n >= 0 ? with_zeros(sql, len, holes, n) : strndup(sql, len);
	if (!v || !check) {
		myr_clear_warnings(s);
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		goto out;
	}
	myq_validate(s, check, strlen(check), v);
	if ((v->kind == VMY_SHOW_WARNINGS || v->kind == VMY_SHOW_ERRORS) && n == 0) {
		prepare_local(s, sql, len, v);
		goto out;
	}
	myr_clear_warnings(s);
	if (v->kind == VMY_REFUSED && v->code == AIRLOCK_E_SELECT_STAR) {
		myq_star_refuse(s, check, strlen(check), v);
		goto out;
	}
	if (v->kind == VMY_REFUSED) {
		myr_refused(s, v);
		goto out;
	}
	if ((v->kind != VMY_READ && v->kind != VMY_WRITE) || n < 0) {
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_MY_UNSUPPORTED_PREPARED,
			   "This command is not supported in the prepared statement protocol yet",
			   "send session statements (SET, USE, transactions, SHOW WARNINGS, ...) as text queries");
		goto out;
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->sql = strndup(sql, len)) || (n && !(st->types = calloc((size_t)n, 2)))) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		if (st)
			free(st->sql);
		free(st);
		goto out;
	}
	st->len = len;
	st->nparams = (uint16_t)n;
	st->holes = holes;
	st->counts = counts;
	holes = NULL;
	counts = NULL;
	st->bytes = sizeof(*st) + len + (size_t)n * (sizeof(size_t) + sizeof(bool) + 2);
	s->prepared_bytes += st->bytes;
	if (v->kind == VMY_WRITE) {
		/* A write returns no columns, and the read target may not prepare it: each EXECUTE is held. */
		prepare_write(s, st);
		goto out;
	}
	/* Its columns come from the backend, which prepares the statement as it will run (scoped). */
	s->preparing = st;
	myq_read_with(s, check, strlen(check), v,
		      &(struct myq_job){.ev = &describe_events, .arg = s, .describe = true});
	if (!s->core.job) {
		/* Refused before a job started: the ERR is out. */
		s->preparing = NULL;
		stmt_destroy(s, st);
	}
out:
	free(holes);
	free(counts);
	free(check);
	free(v);
}

static void unknown_stmt(struct my_session *s, uint32_t id, const char *what)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "Unknown prepared statement handler (%u) given to %s", id, what);
	myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_STMT_HANDLER, msg, NULL);
}

/* True for a non-empty run of digits with an optional leading '-'. */
static bool only_digits(const uint8_t *p, size_t n)
{
	size_t i = n && p[0] == '-';

	if (i == n)
		return false;
	for (; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/*
 * A string bound to a LIMIT / OFFSET count, read as MariaDB reads it
 * there (drivers bind every value as a string: PHP PDO, mysqli,
 * DBD::mysql, the mariadb connector), where the quoted literal would be a
 * syntax error: leading spaces, a sign, then digits up to the first other
 * character ("2.7" is 2, "abc" 0), a negative value wrapping as an
 * unsigned 64-bit one, a longer one clamped. Writes the number's digits
 * into out; false for a parameter of another type.
 */
static bool count_string(const struct my_param *prm, char *out, size_t cap)
{
	unsigned long long v = 0;
	bool neg = false, over = false;
	size_t i = 0;

	switch (prm->type) {
	case MY_TYPE_VARCHAR:
	case MY_TYPE_VAR_STRING:
	case MY_TYPE_STRING:
	case MY_TYPE_TINY_BLOB:
	case MY_TYPE_MEDIUM_BLOB:
	case MY_TYPE_LONG_BLOB:
	case MY_TYPE_BLOB:
	case MY_TYPE_NEWDECIMAL:
		break;
	default:
		return false;
	}
	if (prm->is_null)
		return false;
	while (i < prm->len && (prm->value[i] == ' ' || prm->value[i] == '\t' || prm->value[i] == '\n'))
		i++;
	if (i < prm->len && (prm->value[i] == '-' || prm->value[i] == '+'))
		neg = prm->value[i++] == '-';
	for (; i < prm->len && prm->value[i] >= '0' && prm->value[i] <= '9'; i++) {
		unsigned d = (unsigned)(prm->value[i] - '0');

		if (v > (ULLONG_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (over)
		v = ULLONG_MAX;
	else if (neg && v)
		v = 0 - v;
	snprintf(out, cap, "%llu", v);
	return true;
}

/* The statement's text with every placeholder replaced by its value's literal; NULL with why on failure. */
static char *bind_values(struct my_session *s, const struct mys_stmt *st, const struct my_stmt_execute *ex,
			 const char **why)
{
	struct wbuf b;
	size_t from = 0;
	bool ansi_quotes, no_backslash;
	char *out;

	/* A NUL under NO_BACKSLASH_ESCAPES: a hex literal of the connection's set, which must then have its default
	 * collation for the literal to compare as a quoted one would. */
	const char *nul_charset = myv_collation_is_default(&s->vars) ? s->vars.charset : NULL;

	myv_lex_modes(&s->vars, &ansi_quotes, &no_backslash);
	wbuf_init(&b);
	(void)wbuf_begin(&b, MY_HEADER_LEN + MY_MAX_PAYLOAD); /* the text never outgrows a packet */
	for (uint16_t i = 0; i < st->nparams; i++) {
		my_put_bytes(&b, st->sql + from, st->holes[i] - from);
		/* A space first: "1-?" with -7 must not become "1--7" next to a dash. */
		my_put_bytes(&b, " ", 1);
		size_t at = b.len;
		const struct my_param *prm = &ex->params[i];
		char count[24];

		if (st->counts[i] && count_string(prm, count, sizeof(count))) {
			my_put_bytes(&b, count, strlen(count));
		} else if (my_param_literal(prm, no_backslash, nul_charset, &b, why) != MY_OK) {
			wbuf_free(&b);
			return NULL;
		}
		/*
		 * A whole DOUBLE comes out as digits; outside a LIMIT count it stays a
		 * DOUBLE ("7e0"), as the server types the parameter. LIMIT needs the
		 * integer, and drivers that send every number as DOUBLE rely on that.
		 */
		if (!prm->is_null && (prm->type == MY_TYPE_DOUBLE || prm->type == MY_TYPE_FLOAT) && !st->counts[i] &&
		    only_digits(b.data + at, b.len - at))
			my_put_bytes(&b, "e0", 2);
		from = st->holes[i] + 1;
	}
	my_put_bytes(&b, st->sql + from, st->len - from);
	my_put_bytes(&b, "", 1);
	if (b.failed || b.len - 1 > s->core.srv->cfg->max_message_bytes) {
		*why = "the statement with its values is larger than max_message_bytes";
		wbuf_free(&b);
		return NULL;
	}
	out = (char *)b.data; /* the buffer's bytes now belong to the caller */
	return out;
}

void myp_execute(struct my_session *s, const uint8_t *p, size_t len)
{
	struct my_stmt_execute *ex;
	struct mys_stmt **slot;
	const char *why = NULL;
	bool cursor;
	uint32_t id;
	char *sql;

	if (my_stmt_execute_id(p, len, &id) != MY_OK) {
		myr_clear_warnings(s);
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_ARGUMENTS,
			   "Incorrect arguments to mysqld_stmt_execute", NULL);
		return;
	}
	slot = find_slot(s, id);
	if (slot && (*slot)->local) {
		myl_show_warnings(s, &(*slot)->warnings, true);
		return;
	}
	myr_clear_warnings(s);
	if (!slot) {
		unknown_stmt(s, id, "mysqld_stmt_execute");
		return;
	}
	if ((*slot)->long_data) {
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "COM_STMT_SEND_LONG_DATA is not supported",
			   "bind the value in COM_STMT_EXECUTE");
		(*slot)->long_data = false;
		return;
	}
	ex = malloc(sizeof(*ex));
	if (!ex) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	if (my_stmt_decode_execute(p, len, (*slot)->nparams, (*slot)->have_types ? (*slot)->types : NULL, ex,
				   (*slot)->types, &why) != MY_OK) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_ARGUMENTS,
			   "Incorrect arguments to mysqld_stmt_execute", why);
		free(ex);
		return;
	}
	(*slot)->have_types = true;
	/* CURSOR_TYPE_READ_ONLY (1) only: FOR_UPDATE and SCROLLABLE cursors are not offered. */
	if (ex->flags & ~1u) {
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "This cursor type is not supported",
			   "use CURSOR_TYPE_READ_ONLY or no cursor");
		free(ex);
		return;
	}
	cursor = ex->flags & 1u;
	sql = bind_values(s, *slot, ex, &why);
	free(ex);
	if (!sql) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_ARGUMENTS,
			   "Incorrect arguments to mysqld_stmt_execute", why);
		return;
	}
	/* A new execution closes the statement's cursor. */
	myc_free(s, (*slot)->cursor);
	(*slot)->cursor = NULL;
	if (cursor)
		(*slot)->cursor = myc_execute(s, sql, strlen(sql));
	else
		myq_run_binary(s, sql, strlen(sql));
	free(sql);
}

void myp_fetch(struct my_session *s, const uint8_t *p, size_t len)
{
	struct mys_stmt **slot;
	uint32_t id, rows;

	myr_clear_warnings(s);
	if (my_stmt_fetch_decode(p, len, &id, &rows) != MY_OK) {
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_WRONG_ARGUMENTS, "Incorrect arguments to mysqld_stmt_fetch",
			   NULL);
		return;
	}
	slot = find_slot(s, id);
	if (!slot) {
		unknown_stmt(s, id, "mysqld_stmt_fetch");
		return;
	}
	if (!(*slot)->cursor) {
		char msg[96];

		snprintf(msg, sizeof(msg), "The statement (%u) has no open cursor", id);
		myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_NO_OPEN_CURSOR, msg, NULL);
		return;
	}
	myc_fetch(s, (*slot)->cursor, rows);
}

void myp_close(struct my_session *s, const uint8_t *p, size_t len)
{
	struct mys_stmt **slot;
	uint32_t id;

	/* COM_STMT_CLOSE has no reply, whatever happens. */
	if (my_stmt_execute_id(p, len, &id) == MY_OK && (slot = find_slot(s, id)))
		stmt_free(s, slot);
}

void myp_reset(struct my_session *s, const uint8_t *p, size_t len)
{
	struct mys_stmt **slot;
	uint32_t id;

	if (my_stmt_execute_id(p, len, &id) != MY_OK || !(slot = find_slot(s, id))) {
		unknown_stmt(s, len >= 5 ? id : 0, "mysqld_stmt_reset");
		return;
	}
	(*slot)->long_data = false;
	myc_free(s, (*slot)->cursor);
	(*slot)->cursor = NULL;
	myr_put_ok(s);
	myr_flush(s);
}

void myp_long_data(struct my_session *s, const uint8_t *p, size_t len)
{
	struct mys_stmt **slot;
	uint32_t id;

	/* No reply; the next EXECUTE of the statement reports that long data is not supported. */
	if (my_stmt_execute_id(p, len, &id) == MY_OK && (slot = find_slot(s, id)))
		(*slot)->long_data = true;
}
