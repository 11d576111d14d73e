/*
 * pg_prepared: a Postgres session's prepared statements and portals, the
 * store both the extended protocol (pg_extended.c: Parse, Bind, Close) and
 * the statements that free them (pg_query.c: DEALLOCATE, DISCARD ALL) use.
 * The statements array grows as needed: what bounds it is the memory they
 * hold (prepared_bytes, SESS_MAX_PREPARED_BYTES), not a count. A statement
 * is freed when neither the session's list nor a portal holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "proxy/pg/pg_session_int.h"

int pgx_find_stmt(struct pg_session *s, const char *name)
{
	for (int i = 0; i < s->nstmts; i++)
		if (s->stmts[i] && !strcmp(s->stmts[i]->name, name))
			return i;
	return -1;
}

int pgx_find_portal(struct pg_session *s, const char *name)
{
	for (int i = 0; i < SESS_MAX_PORTALS; i++)
		if (s->portals[i] && !strcmp(s->portals[i]->name, name))
			return i;
	return -1;
}

/* Drops one reference to st (the session's list holds one, each portal one); the last frees it. */
static void stmt_unref(struct pg_session *s, struct pgx_stmt *st)
{
	if (--st->refs > 0)
		return;
	s->prepared_bytes -= st->bytes;
	free(st->sql);
	free(st->types);
	free(st->desc);
	free(st);
}

void pgx_close_portal(struct pg_session *s, int i)
{
	struct pgx_portal *p = s->portals[i];

	if (p->running)
		pgc_portal_free(s, p);
	if (s->undescribed == p)
		s->undescribed = NULL;
	s->prepared_bytes -= p->bytes;
	stmt_unref(s, p->stmt);
	free(p->values);
	free(p->params);
	free(p->formats);
	free(p);
	s->portals[i] = NULL;
}

void pgx_close_suspended(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_PORTALS; i++)
		if (s->portals[i] && s->portals[i]->running)
			pgx_close_portal(s, i);
}

void pgx_close_stmt(struct pg_session *s, int i)
{
	struct pgx_stmt *st = s->stmts[i];

	/* As in Postgres, portals bound from it live on: each holds the statement. */
	s->stmts[i] = NULL;
	stmt_unref(s, st);
}

void pgx_free_all(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_PORTALS; i++)
		if (s->portals[i])
			pgx_close_portal(s, i);
	for (int i = 0; i < s->nstmts; i++)
		if (s->stmts[i])
			pgx_close_stmt(s, i);
	free(s->stmts);
	s->stmts = NULL;
	s->nstmts = 0;
}

int pgx_deallocate(struct pg_session *s, const char *name)
{
	int i;

	if (name[0]) {
		i = pgx_find_stmt(s, name);
		if (i < 0)
			return -1;
		pgx_close_stmt(s, i);
		return 0;
	}
	for (i = 0; i < s->nstmts; i++)
		if (s->stmts[i] && s->stmts[i]->name[0])
			pgx_close_stmt(s, i);
	return 0;
}

int pgx_stmt_slot(struct pg_session *s)
{
	struct pgx_stmt **grown;
	int old = s->nstmts, n = old ? old * 2 : 16;

	for (int i = 0; i < old; i++)
		if (!s->stmts[i])
			return i;
	grown = realloc(s->stmts, (size_t)n * sizeof(*grown));
	if (!grown)
		return -1;
	memset(grown + old, 0, (size_t)(n - old) * sizeof(*grown));
	s->stmts = grown;
	s->nstmts = n;
	return old;
}
