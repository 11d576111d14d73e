/*
 * pg_client: the Postgres v3 protocol from the client's side, for the
 * backend sessions airlockd keeps itself (proxy/job/bsess.h): the
 * frontend messages it sends as a client, and readers of the backend
 * messages it gets back. Pure, no I/O.
 *
 * A backend message is framed by pg_decode_msg (pg_codec.h) first; the
 * readers here take its body, never read past it, and return pointers
 * into it (valid while the caller's buffer is). Each answers PG_ERR with
 * a static reason for a message that is not the kind asked for or does not
 * hold what that kind must.
 */
#ifndef AIRLOCK_PROTOCOL_PG_CLIENT_H
#define AIRLOCK_PROTOCOL_PG_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wbuf.h"
#include "protocol/pg_codec.h"

/* AuthenticationRequest codes ('R'). */
enum {
	PG_AUTH_OK = 0,
	PG_AUTH_CLEARTEXT = 3,
	PG_AUTH_MD5 = 5,
	PG_AUTH_SASL = 10,
	PG_AUTH_SASL_CONTINUE = 11,
	PG_AUTH_SASL_FINAL = 12,
};

/* The one-byte answers to an SSLRequest. */
#define PG_SSL_YES 'S'
#define PG_SSL_NO 'N'

void pg_put_ssl_request(struct wbuf *w);
/* StartupMessage, protocol 3.0, with n name/value pairs (borrowed for the call). */
void pg_put_startup(struct wbuf *w, const struct pg_param *params, size_t n);
/* PasswordMessage ('p') with a password (cleartext, or "md5..." from pg_md5_password). */
void pg_put_password(struct wbuf *w, const char *password);
/* SASLInitialResponse ('p'): mechanism and the client's first message. */
void pg_put_sasl_initial(struct wbuf *w, const char *mechanism, const void *data, size_t len);
/* SASLResponse ('p'). */
void pg_put_sasl_response(struct wbuf *w, const void *data, size_t len);
void pg_put_query(struct wbuf *w, const char *sql); /* 'Q' */
void pg_put_sync(struct wbuf *w);                   /* 'S' */
void pg_put_terminate(struct wbuf *w);              /* 'X' */

/*
 * 'R': the code and what follows it (*data, *len: the SASL mechanisms, the
 * MD5 salt or a SASL message; empty for others).
 */
enum pg_status pg_read_auth(const struct pg_msg *m, uint32_t *code, const uint8_t **data, size_t *len,
			    const char **err);
/* Is mechanism among an AuthenticationSASL's list (its data, as pg_read_auth gave it)? */
bool pg_auth_sasl_offers(const uint8_t *data, size_t len, const char *mechanism);
/* 'S' ParameterStatus: name and value. */
enum pg_status pg_read_parameter_status(const struct pg_msg *m, const char **name, const char **value,
					const char **err);
/* 'K' BackendKeyData. */
enum pg_status pg_read_backend_key(const struct pg_msg *m, uint32_t *pid, uint32_t *key, const char **err);
/* 'Z' ReadyForQuery: 'I', 'T' or 'E'. */
enum pg_status pg_read_ready(const struct pg_msg *m, char *status, const char **err);
/* 'C' CommandComplete: the tag. */
enum pg_status pg_read_command_tag(const struct pg_msg *m, const char **tag, const char **err);
/* 'E' or 'N': the SQLSTATE and primary message fields (each "" when absent). */
enum pg_status pg_read_error(const struct pg_msg *m, const char **sqlstate, const char **message, const char **err);
/* 'D' DataRow of exactly one non-NULL value: *value, *len. */
enum pg_status pg_read_datarow_one(const struct pg_msg *m, const uint8_t **value, size_t *len, const char **err);

/*
 * Watching a reset's answers: after a client's last messages, airlockd
 * sends Sync, ROLLBACK, DISCARD ALL and a query of a marker only it knows;
 * the backend answers whatever the client left first, then those in
 * order. Each ReadyForQuery ends a cycle; the reset is clean at the
 * ReadyForQuery of the cycle that returned the marker, when that cycle
 * had no error, the cycle before it completed DISCARD ALL with no error,
 * and the status is 'I' (no transaction open).
 */
struct pg_reset_watch {
	bool error, discard, marker; /* of the cycle now */
	bool prev_discard;           /* the cycle before ended with DISCARD ALL done */
};

enum pg_reset_step {
	PG_RESET_MORE,   /* read on */
	PG_RESET_CLEAN,  /* the reset is done and clean */
	PG_RESET_FAILED, /* malformed, or the marker's cycle was not clean */
};

/* One backend message of the reset's answers; marker is the value the marker query returns. */
enum pg_reset_step pg_reset_step(struct pg_reset_watch *w, const struct pg_msg *m, const char *marker);

/*
 * The answer to an AuthenticationMD5Password: "md5" + hex MD5 of (hex MD5
 * of password and user) and the 4-byte salt, into out (36 bytes and NUL).
 * 0, or -1 when the digest is not available.
 */
int pg_md5_password(const char *password, const char *user, const uint8_t salt[4], char out[36]);

#endif
