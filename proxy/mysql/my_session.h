/*
 * my_session: one MySQL client connection: the handshake,
 * mysql_native_password and caching_sha2_password, the command loop, and
 * the mapping of runner frames to text result sets.
 */
#ifndef AIRLOCK_PROXY_MY_SESSION_H
#define AIRLOCK_PROXY_MY_SESSION_H

#include <event2/util.h>

struct server;

/* Takes ownership of fd. The session frees itself when the connection ends. */
void my_session_accept(struct server *srv, evutil_socket_t fd);
/* Closes every MySQL session (shutdown). */
void my_session_close_all(struct server *srv);

#endif
