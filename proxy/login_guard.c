/*
 * login_guard: two fixed tables searched from a seeded hash (see
 * login_guard.h). Keys hash with FNV-1a from a per-process random seed;
 * a key is looked for in LOGIN_GUARD_PROBE slots from its hash, and a new
 * key takes the first expired one of them, else the one with the fewest
 * failures. A key that loses its slot starts over at no failures, so an
 * attacker flooding a table loses their own counts first.
 */
#define _GNU_SOURCE
#include "proxy/login_guard.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define LOGIN_GUARD_PROBE 16

struct lg_entry {
	uint8_t len; /* 0: free */
	uint8_t key[LOGIN_GUARD_KEY];
	uint32_t failures;
	uint64_t last_ms;
};

struct lg_table {
	struct lg_entry e[LOGIN_GUARD_SLOTS];
};

struct login_guard {
	uint64_t seed;
	struct lg_table addrs, users;
};

struct login_guard *login_guard_new(void)
{
	struct login_guard *g = calloc(1, sizeof(*g));

	if (g && getrandom(&g->seed, sizeof(g->seed), 0) != sizeof(g->seed))
		g->seed = (uint64_t)(uintptr_t)g * 0x9e3779b97f4a7c15ull;
	return g;
}

void login_guard_free(struct login_guard *g)
{
	free(g);
}

static size_t lg_hash(const struct login_guard *g, const uint8_t *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ g->seed;

	for (size_t i = 0; i < len; i++) {
		h ^= key[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 29;
	return (size_t)(h % LOGIN_GUARD_SLOTS);
}

static bool lg_expired(const struct lg_entry *e, const struct login_guard_cfg *cfg, uint64_t now_ms)
{
	return e->len == 0 || now_ms - e->last_ms > cfg->window_ms;
}

/* The key's entry, or NULL; when make is set, a slot for it (reset) is taken if it has none. */
static struct lg_entry *lg_find(const struct login_guard *g, struct lg_table *t, const uint8_t *key, size_t len,
				bool make, const struct login_guard_cfg *cfg, uint64_t now_ms)
{
	size_t h, i;
	struct lg_entry *victim = NULL;

	if (len > LOGIN_GUARD_KEY)
		len = LOGIN_GUARD_KEY;
	if (len == 0) {
		/* The empty user name (MySQL allows one) counts like any other. */
		key = (const uint8_t *)"\xff";
		len = 1;
	}
	h = lg_hash(g, key, len);
	for (i = 0; i < LOGIN_GUARD_PROBE; i++) {
		struct lg_entry *e = &t->e[(h + i) % LOGIN_GUARD_SLOTS];

		if (e->len == len && memcmp(e->key, key, len) == 0)
			return e;
		if (!make)
			continue;
		if (!victim || (!lg_expired(victim, cfg, now_ms) &&
				(lg_expired(e, cfg, now_ms) || e->failures < victim->failures)))
			victim = e;
	}
	if (!victim)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	victim->len = (uint8_t)len;
	memcpy(victim->key, key, len);
	return victim;
}

/* Failures that still count, for an entry at now_ms. */
static uint32_t lg_count(const struct lg_entry *e, const struct login_guard_cfg *cfg, uint64_t now_ms)
{
	return !e || lg_expired(e, cfg, now_ms) ? 0 : e->failures;
}

static uint32_t lg_wait_for(uint32_t failures, const struct login_guard_cfg *cfg)
{
	uint64_t ms = cfg->delay_ms;

	if (failures < cfg->free)
		return 0;
	for (uint32_t n = failures - cfg->free; n > 0 && ms < cfg->max_ms; n--)
		ms *= 2;
	return ms < cfg->max_ms ? (uint32_t)ms : cfg->max_ms;
}

uint32_t login_guard_wait(struct login_guard *g, const struct login_guard_cfg *cfg, const uint8_t *addr, size_t addrlen,
			  const char *user, uint64_t now_ms)
{
	uint32_t a, u;

	a = lg_count(lg_find(g, &g->addrs, addr, addrlen, false, cfg, now_ms), cfg, now_ms);
	u = lg_count(lg_find(g, &g->users, (const uint8_t *)user, strlen(user), false, cfg, now_ms), cfg, now_ms);
	return lg_wait_for(a > u ? a : u, cfg);
}

static void lg_bump(struct lg_entry *e, const struct login_guard_cfg *cfg, uint64_t now_ms)
{
	if (!e)
		return;
	if (lg_expired(e, cfg, now_ms))
		e->failures = 0;
	if (e->failures < UINT32_MAX)
		e->failures++;
	e->last_ms = now_ms;
}

void login_guard_failed(struct login_guard *g, const struct login_guard_cfg *cfg, const uint8_t *addr, size_t addrlen,
			const char *user, uint64_t now_ms)
{
	lg_bump(lg_find(g, &g->addrs, addr, addrlen, true, cfg, now_ms), cfg, now_ms);
	lg_bump(lg_find(g, &g->users, (const uint8_t *)user, strlen(user), true, cfg, now_ms), cfg, now_ms);
}

void login_guard_passed(struct login_guard *g, const char *user)
{
	struct login_guard_cfg none = {0};
	struct lg_entry *e = lg_find(g, &g->users, (const uint8_t *)user, strlen(user), false, &none, 0);

	if (e)
		e->failures = 0;
}
