/*
 * login_guard: failed logins counted per client address and per user name,
 * and the wait they call for. Pure (no clock, no I/O: the caller passes the
 * time) and bounded: each of the two tables holds LOGIN_GUARD_SLOTS
 * entries, and a full table gives up first what has expired, then the
 * entry with the fewest failures, so a spray of new names or addresses
 * cannot push out the one under attack.
 *
 * A user name counts whether or not such a user exists, so the waits never
 * tell a known user from an unknown one. Once either key has failed `free`
 * times, each within `window_ms` of the one before, every verdict for it
 * (a right password's too, so that silence tells nothing) waits delay_ms,
 * doubled with each further failure, up to max_ms. A success
 * clears the user name's count, never the address's.
 */
#ifndef AIRLOCK_PROXY_LOGIN_GUARD_H
#define AIRLOCK_PROXY_LOGIN_GUARD_H

#include <stddef.h>
#include <stdint.h>

#define LOGIN_GUARD_SLOTS 4096
/* User names longer than this count by their first LOGIN_GUARD_KEY bytes. */
#define LOGIN_GUARD_KEY 64

struct login_guard_cfg {
	uint32_t free;      /* failures with no wait */
	uint32_t delay_ms;  /* the first wait */
	uint32_t max_ms;    /* the longest */
	uint32_t window_ms; /* a key's failures are forgotten this long after its last one */
};

struct login_guard;

/* NULL when out of memory; the caller owns the result. */
struct login_guard *login_guard_new(void);
void login_guard_free(struct login_guard *g);

/* The wait, in ms, for a verdict on a login from addr (addrlen 0: none) as user, at now_ms. */
uint32_t login_guard_wait(struct login_guard *g, const struct login_guard_cfg *cfg, const uint8_t *addr, size_t addrlen,
			  const char *user, uint64_t now_ms);
/* A wrong password (or an unknown user) from addr for user. */
void login_guard_failed(struct login_guard *g, const struct login_guard_cfg *cfg, const uint8_t *addr, size_t addrlen,
			const char *user, uint64_t now_ms);
/* The right password for user. */
void login_guard_passed(struct login_guard *g, const char *user);

#endif
