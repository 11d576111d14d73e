/*
 * my_reply: the replies every part of a MySQL session writes: the output
 * buffer and its flush, the status flags of OK and EOF, OK and ERR
 * packets (the airlock code leading the message, the hint after it), the
 * end of a result set, refusals with their audit record, and the warnings
 * SHOW WARNINGS lists. It calls nothing else of the session's files, so
 * they all build on it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

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
	my_write_ok(&s->core.w, s->seq++, s->caps, 0, 0, myr_status(s), (uint16_t)s->warn_count, false);
}

void myr_put_err(struct my_session *s, uint16_t errcode, const char *sqlstate, enum airlock_err code,
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
	my_write_err(&s->core.w, s->seq++, errcode, sqlstate, text);
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

void myr_refuse(struct my_session *s, unsigned errcode, const char *sqlstate, enum airlock_err code,
		const char *message, const char *hint)
{
	myr_put_err(s, (uint16_t)errcode, sqlstate, code, message, hint);
	session_audit(&s->core, "refused", sqlstate, code, 0, 0, 0);
	myr_flush(s);
}

void myr_result_end(struct my_session *s)
{
	if (myr_deprecate_eof(s))
		my_write_ok(&s->core.w, s->seq++, s->caps, 0, 0, myr_status(s), (uint16_t)s->warn_count, true);
	else
		my_write_eof(&s->core.w, s->seq++, (uint16_t)s->warn_count, myr_status(s));
}
