/*
 * my_session: one MySQL client connection: the handshake,
 * mysql_native_password and caching_sha2_password, the command loop, and
 * the mapping of runner frames to text result sets. The session core
 * (proxy/session.h) owns the connection; this folder is the protocol:
 * my_session.c the handshake and the command loop, my_query.c statements
 * and their results, my_prepared.c server-side prepared statements,
 * my_vars.c the session's variables.
 */
#ifndef AIRLOCK_PROXY_MY_SESSION_H
#define AIRLOCK_PROXY_MY_SESSION_H

struct session_proto;

/* The MySQL wire protocol, for the session core (session_accept). */
extern const struct session_proto my_session_proto;

#endif
