/*
 * pg_session: one Postgres client connection: start-up, SCRAM-SHA-256,
 * simple Query, the local answers to session statements, and the mapping
 * of runner frames to RowDescription / DataRow / CommandComplete. The only
 * place a session's state changes is pg_session.c's set_state().
 */
#ifndef AIRLOCK_PROXY_PG_SESSION_H
#define AIRLOCK_PROXY_PG_SESSION_H

#include <stdint.h>

#include <event2/util.h>

struct server;
struct pg_session;

/* Takes ownership of fd. The session frees itself when the connection ends. */
void pg_session_accept(struct server *srv, evutil_socket_t fd);
/* CancelRequest: cancels the statement of the session with this key, if any. */
void pg_session_cancel(struct server *srv, uint32_t pid, uint32_t key);
/* Closes every session (shutdown). */
void pg_session_close_all(struct server *srv);

#endif
