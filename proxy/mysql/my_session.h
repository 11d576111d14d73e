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

#include <stdbool.h>
#include <stdint.h>

struct server;
struct session_proto;

/* The MySQL wire protocol, for the session core (session_accept). */
extern const struct session_proto my_session_proto;

/*
 * KILL QUERY's effect on this node's MySQL session id (a session id as
 * issued, proxy/peer_key.h; mysql is &my_session_proto) when it is logged
 * in as user: its statement is canceled, or its wait for a held write
 * ended. by names who asked, for the log. false when no such session of
 * that user is here (another user's is not told apart from none).
 */
bool my_kill_query(struct server *srv, const struct session_proto *mysql, uint32_t id, const char *user,
		   const char *by);

#endif
