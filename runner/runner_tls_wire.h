/*
 * runner_tls_wire: what the TLS shim reads and changes in the databases'
 * first messages, as pure functions over a buffer (no I/O), so that each
 * is tested and fuzzed with whatever a hostile or broken server could
 * send (runner_tls_login.c calls them).
 */
#ifndef AIRLOCK_RUNNER_RUNNER_TLS_WIRE_H
#define AIRLOCK_RUNNER_RUNNER_TLS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MariaDB's CLIENT_SSL capability (the low half of the capabilities). */
#define TLS_WIRE_MY_CLIENT_SSL 0x0800u

/*
 * payload (len bytes: an AuthenticationSASL message's body, its auth type
 * first) with SCRAM-SHA-256-PLUS taken out of its list of mechanisms, in
 * place. Returns the new length, never more than len; a list that does
 * not end as the protocol says is cut where it stops making sense.
 * len < 4: returned as it is.
 */
size_t tls_wire_pg_drop_plus(uint8_t *payload, size_t len);

/*
 * Whether payload (len bytes: an AuthenticationSASL message's body, its
 * auth type first) names SCRAM-SHA-256 among its mechanisms, in a list
 * that ends as the protocol says.
 */
bool tls_wire_pg_offers_scram(const uint8_t *payload, size_t len);

/*
 * Where a MariaDB greeting's payload (len bytes, without the packet
 * header) keeps the low half of its capabilities: 0 with *off set, or -1
 * when it is not a greeting of protocol 10 that holds them.
 */
int tls_wire_my_caps_at(const uint8_t *payload, size_t len, size_t *off);

#endif
