/*
 * my_reply: the replies every part of a MySQL session writes: the output
 * buffer and its flush, the status flags of OK and EOF, OK and ERR
 * packets (the airlock code leading the message, the hint after it), the
 * end of a result set, refusals with their audit record, the warnings
 * SHOW WARNINGS lists, column definitions from a runner's frame and rows
 * in the binary protocol (for COM_STMT_EXECUTE results and cursors alike). It calls nothing else of the session's
 * files, so they all build on it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/my_stmt.h"

#include "base/errors.h"
#include "proxy/mysql/my_session_int.h"

void myr_flush(struct my_session *s)
{
	session_flush(&s->core);
}

uint16_t myr_status(const struct my_session *s)
{
	uint16_t st = 0;

	if (s->vars.autocommit)
		st |= MY_STATUS_AUTOCOMMIT;
	if (s->in_trans)
		st |= MY_STATUS_IN_TRANS;
	if (s->in_trans && s->read_only_txn)
		st |= MY_STATUS_IN_TRANS_READONLY;
	return st;
}

void myr_put_ok(struct my_session *s)
{
	myr_put_ok_rows(s, 0);
}

void myr_put_ok_rows(struct my_session *s, uint64_t affected)
{
	my_write_ok(&s->core.w, s->seq++, s->caps, affected, 0, myr_status(s), (uint16_t)s->warn_count, false);
}

/* An ERR packet with an errno and SQLSTATE decided already (the table's, or relayed from a runner). */
static void put_err(struct my_session *s, uint16_t my_errno, const char *sqlstate, enum airlock_err code,
		    const char *message, const char *hint)
{
	const char *name = airlock_err_name(code);
	char text[1400];
	int n;

	if (name[0] && strncmp(message, name, strlen(name)) != 0)
		n = snprintf(text, sizeof(text), "%s: %s", name, message);
	else
		n = snprintf(text, sizeof(text), "%s", message);
	if (hint && hint[0] && n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, " (%s)", hint);
	my_write_err(&s->core.w, s->seq++, my_errno, sqlstate, text);
}

void myr_put_err(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message,
		 const char *hint)
{
	put_err(s, airlock_my_errno(code, native), airlock_my_sqlstate(code, native), code, message, hint);
}

void myr_put_db_err(struct my_session *s, uint16_t my_errno, const char *sqlstate, const char *message)
{
	put_err(s, my_errno, sqlstate, AIRLOCK_E_NONE, message, NULL);
}

bool myr_deprecate_eof(const struct my_session *s)
{
	return (s->caps & MY_CAP_DEPRECATE_EOF) != 0;
}

void myr_clear_warnings(struct my_session *s)
{
	s->nwarnings = 0;
	s->warn_count = 0;
}

void myr_add_warning(struct my_session *s, const char *level, uint16_t code, const char *message)
{
	s->warn_count++;
	if (s->nwarnings >= MYS_MAX_WARNINGS)
		return;
	struct mys_warning *w = &s->warnings[s->nwarnings++];
	snprintf(w->level, sizeof(w->level), "%s", level);
	w->code = code;
	snprintf(w->message, sizeof(w->message), "%s", message);
}

void myr_warn(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message)
{
	myr_add_warning(s, "Warning", airlock_my_errno(code, native), message);
}

static void refuse(struct my_session *s, uint16_t my_errno, const char *sqlstate, enum airlock_err code,
		   const char *message, const char *hint)
{
	put_err(s, my_errno, sqlstate, code, message, hint);
	session_audit(&s->core, "refused", sqlstate, code, 0, 0, 0);
	myr_flush(s);
}

void myr_refuse(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message,
		const char *hint)
{
	refuse(s, airlock_my_errno(code, native), airlock_my_sqlstate(code, native), code, message, hint);
}

void myr_refused(struct my_session *s, const struct vmy_result *v)
{
	/* The worker took the errno and SQLSTATE from the table; vw_result let through only a well-formed pair. */
	refuse(s, v->my_errno, v->sqlstate, v->code, v->message, v->hint);
}

void myr_result_end_with(struct my_session *s, uint16_t status)
{
	status |= myr_status(s);
	if (myr_deprecate_eof(s))
		my_write_ok(&s->core.w, s->seq++, s->caps, 0, 0, status, (uint16_t)s->warn_count, true);
	else
		my_write_eof(&s->core.w, s->seq++, (uint16_t)s->warn_count, status);
}

void myr_result_end(struct my_session *s)
{
	myr_result_end_with(s, 0);
}

bool myr_bin_alloc(struct mys_bin *b, uint16_t n)
{
	b->types = calloc(n ? n : 1, sizeof(*b->types));
	b->is_unsigned = calloc(n ? n : 1, sizeof(*b->is_unsigned));
	b->values = calloc(n ? n : 1, sizeof(*b->values));
	b->lens = calloc(n ? n : 1, sizeof(*b->lens));
	return b->types && b->is_unsigned && b->values && b->lens;
}

void myr_bin_free(struct mys_bin *b)
{
	free(b->types);
	free(b->is_unsigned);
	free(b->values);
	free(b->lens);
	memset(b, 0, sizeof(*b));
}

bool myr_binary_row(struct my_session *s, struct mys_bin *b, uint16_t ncols, const struct frame *f)
{
	const char *why = NULL;
	struct rbuf cur;
	uint16_t n;
	bool ok = frame_row_begin(f, &n, &cur) == FRAME_OK && n == ncols;

	/* The arrays were made for this result's columns; each row only fills them. */
	for (uint16_t i = 0; ok && i < n; i++) {
		uint32_t len;

		ok = frame_row_next(&cur, &b->values[i], &len) == FRAME_OK;
		b->lens[i] = len;
	}
	if (ok &&
	    my_write_binary_row(&s->core.w, s->seq, n, b->types, b->is_unsigned, b->values, b->lens, &why) == MY_OK)
		s->seq++;
	else
		ok = false;
	if (!ok) {
		session_warn(&s->core, "a value could not be encoded in the binary protocol: %s",
			     why ? why : "out of memory");
		myr_put_err(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_MY_UNKNOWN_ERROR,
			    "a value could not be sent in the binary protocol", "run the statement as a text query");
	}
	return ok;
}

/* The bytes of the UTF-8 character at s (1 for a stray byte). */
static size_t char_len(const char *s, size_t n)
{
	unsigned char c = (unsigned char)*s;
	size_t len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

	return len <= n ? len : 1;
}

/*
 * Whether name matches the COM_FIELD_LIST wildcard as MariaDB matches it:
 * '%' any run, '_' one character, '\' takes the next byte as itself, letters
 * without case. Greedy with one backtrack point, so time stays linear in
 * the two lengths times the pattern's '%' groups, never exponential.
 */
static bool wild_match(const char *name, size_t n, const char *wild)
{
	size_t si = 0, pi = 0, star_p = 0, star_s = 0, wn = strlen(wild);
	bool star = false;

	while (si < n) {
		if (pi < wn && wild[pi] == '%') {
			star = true;
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < wn && wild[pi] == '_') {
			pi++;
			si += char_len(name + si, n - si);
			continue;
		}
		if (pi < wn) {
			size_t lit = wild[pi] == '\\' && pi + 1 < wn ? pi + 1 : pi;

			if (tolower((unsigned char)wild[lit]) == tolower((unsigned char)name[si])) {
				pi = lit + 1;
				si++;
				continue;
			}
		}
		if (!star)
			return false;
		star_s += char_len(name + star_s, n - star_s);
		si = star_s;
		pi = star_p;
	}
	while (pi < wn && wild[pi] == '%')
		pi++;
	return pi == wn;
}

uint16_t myr_put_columns(struct my_session *s, const struct frame *f, bool field_list, struct mys_bin *bin)
{
	struct rbuf cur;
	struct frame_mycol col;
	uint16_t n, i;

	if (frame_mycols_begin(f, &n, &cur) != FRAME_OK)
		return 0;
	for (i = 0; i < n; i++) {
		if (frame_mycols_next(&cur, &col) != FRAME_OK)
			break;
		if (bin) {
			bin->types[i] = col.type;
			bin->is_unsigned[i] = (col.flags & MY_FLAG_UNSIGNED) != 0;
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
		if (field_list && s->field_wild[0] && !wild_match(c.name, c.name_len, s->field_wild))
			continue;
		my_write_column_def(&s->core.w, s->seq++, &c, field_list);
	}
	return i;
}

void myr_job_error(struct my_session *s, const struct job_result *r)
{
	char state[6];
	/* The runner's errno, else the airlock code's, else the server's "unknown error". */
	uint16_t n = r->my_errno ? (uint16_t)r->my_errno : airlock_my_errno(r->code, AIRLOCK_N_NONE);

	/*
	 * The runner's SQLSTATE goes with the runner's errno; a failure without
	 * one (airlockd's own: BUSY, TIMEOUT, a runner that did not start)
	 * takes its code's MySQL SQLSTATE, not the Postgres one the job keeps.
	 */
	if (!r->my_errno && r->code != AIRLOCK_E_NONE)
		snprintf(state, sizeof(state), "%s", airlock_my_sqlstate(r->code, AIRLOCK_N_NONE));
	else
		snprintf(state, sizeof(state), "%s",
			 r->sqlstate && strlen(r->sqlstate) == 5
				 ? r->sqlstate
				 : airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR));
	put_err(s, n, state, r->code, r->message, r->hint);
	session_audit(&s->core, "error", state, r->code, 0, 0, 0);
}
