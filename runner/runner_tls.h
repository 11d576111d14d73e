/*
 * runner_tls: TLS from the runner to the database, through the relay.
 *
 * The runner reaches the database only through the relay's unix socket,
 * and over a unix socket libpq negotiates no TLS at all, while MariaDB
 * Connector/C checks the certificate's name against "localhost" and goes
 * on in plain text when the server offers no TLS. So for a TLS target the
 * client library talks plain text to this shim, on an abstract unix
 * socket of the runner's own network namespace (no other process is in
 * it), and the shim talks TLS (OpenSSL) to the database over the relay:
 *
 *  - Postgres: an SSLRequest; anything but 'S' fails the connection.
 *    When the server asks for SCRAM-SHA-256 and the password is printable
 *    ASCII, the shim logs in itself (OpenSSL's PBKDF2, three times
 *    faster than libpq 15's loop) and checks the server's signature before
 *    libpq, which sees only the AuthenticationOk, gets a byte.
 *  - MariaDB: the server's greeting must offer CLIENT_SSL or the
 *    connection fails; the library gets the greeting with CLIENT_SSL
 *    cleared, the server gets the library's handshake response first cut
 *    to an SSL request, then the TLS handshake, then the response itself.
 *    The login's sequence ids are one apart on the two sides; the shim
 *    renumbers the login's packets until the server's OK or ERR.
 *
 * What is checked: "require" only encrypts; "verify-ca" checks the chain
 * against the CA file FRAME_TLS_CA_FILE in the job's directory;
 * "verify-full" checks that and that the certificate names tls_host (a
 * DNS name, or an IP address literal against the IP SANs). No byte of the
 * client library's (its login, the password's proof) reaches the
 * database before the handshake and its checks passed; on a failure both
 * sides are closed and the reason is kept for the runner's error.
 *
 * Each connection the library opens (the statement's, a Postgres cancel,
 * the MariaDB watchdog's KILL QUERY) gets its own TLS session. The shim is
 * one thread; its handshakes are done one at a time, with a deadline.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_TLS_H
#define AIRLOCK_RUNNER_RUNNER_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/scram_client.h"

struct runner_job;
struct runner_tls;

/* The longest a connection's negotiation and handshake (and a MariaDB login) may take. */
#define RUNNER_TLS_HANDSHAKE_MS 10000

/*
 * Starts the shim for job (job->tls set, engine postgres or mariadb):
 * relay_name is the relay socket in socket_dir (the job's directory),
 * where FRAME_TLS_CA_FILE is too (read for verify-ca and verify-full). Writes into addr what the client library is to
 * be given: the host for libpq ("@airlock-tls-<pid>", port 5432), the unix_socket for Connector/C. 0, or -1 with why
 * set (nothing started). *out is owned by the caller: runner_tls_stop.
 */
int runner_tls_start(struct runner_tls **out, const struct runner_job *job, const char *socket_dir,
		     const char *relay_name, char *addr, size_t addr_len, char *why, size_t why_len);

/*
 * Why the last connection's TLS failed ("the database does not offer
 * TLS", a certificate check's reason, ...), copied into buf; "" when
 * none has failed. Safe to show: never the database's own text.
 */
void runner_tls_failure(struct runner_tls *t, char *buf, size_t len);

/*
 * The SCRAM salt (base64, NUL-terminated) and iterations of the shim's
 * last Postgres login whose server proved it knows the password: 0, or
 * -1 when there was none. airlockd salts the password for them once and
 * gives its later runners the result ('P' keys scram_salt,
 * scram_iterations, scram_key), which the shim uses in place of salting
 * the password when the server's salt and iterations are the same.
 */
int runner_tls_scram_seen(struct runner_tls *t, char salt_b64[SCRAM_SALT_B64_MAX], uint32_t *iterations);

/* Stops the thread, closes every connection and frees t. NULL is a no-op. */
void runner_tls_stop(struct runner_tls *t);

#endif
