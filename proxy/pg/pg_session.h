/*
 * pg_session: one Postgres client connection: start-up, SCRAM-SHA-256,
 * simple Query, the local answers to session statements, and the mapping
 * of runner frames to RowDescription / DataRow / CommandComplete.  The session
 * core (proxy/session.h) owns the connection; this folder is the
 * protocol: pg_session.c start-up and authentication, pg_query.c
 * statements and their results, pg_extended.c the extended protocol,
 * pg_cursor.c cursors, pg_settings.c the settings a session keeps.
 */
#ifndef AIRLOCK_PROXY_PG_SESSION_H
#define AIRLOCK_PROXY_PG_SESSION_H

struct session_proto;

/* The Postgres wire protocol, for the session core (session_accept). */
extern const struct session_proto pg_session_proto;

#endif
