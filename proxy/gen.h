/*
 * gen: one loaded config and what is counted under it. SIGHUP loads the
 * file again and, when it is valid, makes a new generation current for
 * new sessions; each session holds the generation it logged in under
 * until it ends, with the per-user counters (sessions, jobs) and the
 * caching_sha2_password fast-path cache that belong to that config. A
 * generation is freed when its last holder (the server while it is
 * current, or a session) releases it.
 */
#ifndef AIRLOCK_PROXY_GEN_H
#define AIRLOCK_PROXY_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct airlock_config;
struct airlock_user;

struct server_gen {
	struct airlock_config *cfg; /* owned */
	unsigned *user_sessions;    /* per cfg->users index */
	/* caching_sha2_password's fast-path cache, per cfg->users index: SHA256(SHA256(password)),
	 * filled by a successful full authentication and valid for this generation only. */
	uint8_t (*my_sha2_cache)[32];
	bool *my_sha2_valid;
	size_t cfg_nusers; /* entries in the per-user arrays */
	unsigned refs;
};

/* A generation owning cfg (even on failure), with one reference; NULL when out of memory. */
struct server_gen *gen_new(struct airlock_config *cfg);
struct server_gen *gen_hold(struct server_gen *gen);
/* Drops a reference; frees the generation with the last one. */
void gen_release(struct server_gen *gen);

/* One more session of u; false when u already has max_connections. */
bool gen_session_acquire(struct server_gen *gen, const struct airlock_user *u);
void gen_session_release(struct server_gen *gen, const struct airlock_user *u);

/* u's caching_sha2_password cache entry (32 bytes) and whether it is filled. */
uint8_t *gen_sha2_entry(struct server_gen *gen, const struct airlock_user *u, bool *valid);
/* Fills u's entry (called after a full authentication succeeded). */
void gen_sha2_fill(struct server_gen *gen, const struct airlock_user *u, const uint8_t digest[32]);

#endif
