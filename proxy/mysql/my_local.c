/*
 * my_local: result sets the session answers itself (SHOW WARNINGS, local
 * SELECTs of session values, SHOW VARIABLES, ...), as text rows, and for
 * SHOW WARNINGS prepared with COM_STMT_PREPARE as binary rows too (PHP
 * PDO with native prepares reads a statement's warnings that way).
 */
#include <stdio.h>
#include <string.h>

#include "protocol/my_stmt.h"
#include "proxy/mysql/my_session_int.h"

void myl_columns(struct my_session *s, const struct myl_col *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct my_column c = {
			.name = cols[i].name,
			.name_len = strlen(cols[i].name),
			.charset = cols[i].numeric ? 63 : s->vars.charset_id,
			.length = cols[i].numeric ? 21 : 1024,
			.type = cols[i].type,
			.flags = cols[i].numeric ? (MY_FLAG_NOT_NULL | MY_FLAG_BINARY | MY_FLAG_NUM) : 0,
			.decimals = cols[i].decimals,
		};
		my_write_column_def(&s->core.w, s->seq++, &c, false);
	}
	if (!myr_deprecate_eof(s))
		my_write_eof(&s->core.w, s->seq++, 0, myr_status(s));
}

void myl_header(struct my_session *s, const struct myl_col *cols, size_t n)
{
	my_write_column_count(&s->core.w, s->seq++, n);
	myl_columns(s, cols, n);
}

void myl_row(struct my_session *s, const char *const *values, size_t n)
{
	my_begin(&s->core.w, s->seq++);
	for (size_t i = 0; i < n; i++) {
		if (values[i])
			my_put_lenenc_str(&s->core.w, values[i], strlen(values[i]));
		else
			my_put_null(&s->core.w);
	}
	my_end(&s->core.w);
}

/* One row of at most 3 columns, as text or, for COM_STMT_EXECUTE, binary. */
static void row_as(struct my_session *s, const struct myl_col *cols, const char *const *values, size_t n, bool binary)
{
	uint8_t types[3];
	const uint8_t *vals[3];
	size_t lens[3];
	const char *why;

	if (!binary || n > 3) {
		myl_row(s, values, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		types[i] = cols[i].type;
		vals[i] = (const uint8_t *)values[i];
		lens[i] = values[i] ? strlen(values[i]) : 0;
	}
	/* The values are the session's own (a level, a number, a message): they always encode. */
	(void)my_write_binary_row(&s->core.w, s->seq++, (uint16_t)n, types, NULL, vals, lens, &why);
}

/* As MariaDB describes them (its strings with decimals 39, NOT_FIXED_DEC). */
static const struct myl_col warning_cols[] = {
	{"Level", MY_TYPE_VAR_STRING, false, 39},
	{"Code", MY_TYPE_LONG, true, 0},
	{"Message", MY_TYPE_VAR_STRING, false, 39},
};

static struct myl_col count_col(const struct myl_warnings *w)
{
	return (struct myl_col){w->errors_only ? "@@session.error_count" : "@@session.warning_count", MY_TYPE_LONGLONG,
				true};
}

size_t myl_warnings_columns(struct my_session *s, const struct myl_warnings *w)
{
	struct myl_col count = count_col(w);

	if (w->count_only) {
		myl_columns(s, &count, 1);
		return 1;
	}
	myl_columns(s, warning_cols, 3);
	return 3;
}

void myl_show_warnings(struct my_session *s, const struct myl_warnings *w, bool binary)
{
	char code[12];
	uint64_t rows = 0;
	long seen = 0;

	if (w->count_only) {
		/* SHOW COUNT(*) WARNINGS: one row, the count. */
		const struct myl_col count = count_col(w);
		uint32_t n = s->warn_count;
		const char *row[1] = {code};

		if (w->errors_only) {
			n = 0;
			for (uint16_t i = 0; i < s->nwarnings; i++)
				n += strcmp(s->warnings[i].level, "Error") == 0;
		}
		snprintf(code, sizeof(code), "%u", n);
		myl_header(s, &count, 1);
		row_as(s, &count, row, 1, binary);
		myr_result_end(s);
		session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 1, 0, 0);
		myr_flush(s);
		return;
	}
	myl_header(s, warning_cols, 3);
	for (uint16_t i = 0; i < s->nwarnings; i++) {
		const struct mys_warning *m = &s->warnings[i];
		const char *row[3] = {m->level, code, m->message};

		if (w->errors_only && strcmp(m->level, "Error") != 0)
			continue;
		if (seen++ < w->offset)
			continue;
		if (w->limit >= 0 && rows >= (uint64_t)w->limit)
			break;
		snprintf(code, sizeof(code), "%u", m->code);
		row_as(s, warning_cols, row, 3, binary);
		rows++;
	}
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, rows, 0, 0);
	myr_flush(s);
}
