/* gen: a config generation and the per-user counters kept under it. */
#define _GNU_SOURCE
#include "proxy/gen.h"

#include <stdlib.h>
#include <string.h>

#include "conf/config.h"

static size_t user_index(const struct server_gen *gen, const struct airlock_user *u)
{
	return (size_t)(u - gen->cfg->users);
}

static void gen_free(struct server_gen *gen)
{
	config_free(gen->cfg);
	free(gen->user_sessions);
	if (gen->my_sha2_cache)
		explicit_bzero(gen->my_sha2_cache, gen->cfg_nusers * sizeof(*gen->my_sha2_cache));
	free(gen->my_sha2_cache);
	free(gen->my_sha2_valid);
	free(gen);
}

struct server_gen *gen_new(struct airlock_config *cfg)
{
	struct server_gen *gen = calloc(1, sizeof(*gen));
	size_t n = cfg->nusers ? cfg->nusers : 1;

	if (!gen) {
		config_free(cfg);
		return NULL;
	}
	gen->cfg = cfg;
	gen->user_sessions = calloc(n, sizeof(*gen->user_sessions));
	gen->my_sha2_cache = calloc(n, sizeof(*gen->my_sha2_cache));
	gen->my_sha2_valid = calloc(n, sizeof(*gen->my_sha2_valid));
	gen->cfg_nusers = n;
	gen->refs = 1;
	if (!gen->user_sessions || !gen->my_sha2_cache || !gen->my_sha2_valid) {
		gen_free(gen);
		return NULL;
	}
	return gen;
}

struct server_gen *gen_hold(struct server_gen *gen)
{
	gen->refs++;
	return gen;
}

void gen_release(struct server_gen *gen)
{
	if (--gen->refs == 0)
		gen_free(gen);
}

/* Counts one more against *n unless that would pass max. */
static bool take(unsigned *n, uint32_t max)
{
	if (*n >= max)
		return false;
	(*n)++;
	return true;
}

bool gen_session_acquire(struct server_gen *gen, const struct airlock_user *u)
{
	return take(&gen->user_sessions[user_index(gen, u)], u->max_connections);
}

void gen_session_release(struct server_gen *gen, const struct airlock_user *u)
{
	gen->user_sessions[user_index(gen, u)]--;
}

uint8_t *gen_sha2_entry(struct server_gen *gen, const struct airlock_user *u, bool *valid)
{
	size_t i = user_index(gen, u);

	*valid = gen->my_sha2_valid[i];
	return gen->my_sha2_cache[i];
}

void gen_sha2_fill(struct server_gen *gen, const struct airlock_user *u, const uint8_t digest[32])
{
	size_t i = user_index(gen, u);

	memcpy(gen->my_sha2_cache[i], digest, 32);
	gen->my_sha2_valid[i] = true;
}
