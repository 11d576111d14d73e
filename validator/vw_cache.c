/* vw_cache: see vw_cache.h. */
#include "validator/vw_cache.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t hash;
	uint64_t used; /* the cache's clock at its last look-up; 0: the slot is free */
	uint8_t *key;  /* owned */
	size_t klen;
	uint8_t *answer; /* owned */
	size_t alen;
	bool follows;
};

struct vw_cache {
	struct entry e[VW_CACHE_ENTRIES];
	size_t bytes, max_bytes, count;
	uint64_t clock, hits;
};

/* FNV-1a: a look-up compares the whole key after the hash matches, so the hash only has to spread. */
static uint64_t hash_of(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

struct vw_cache *vw_cache_new(size_t max_bytes)
{
	struct vw_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->max_bytes = max_bytes;
	return c;
}

static void drop(struct vw_cache *c, struct entry *e)
{
	c->bytes -= e->klen + e->alen;
	c->count--;
	free(e->key);
	free(e->answer);
	memset(e, 0, sizeof(*e));
}

void vw_cache_free(struct vw_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < VW_CACHE_ENTRIES; i++)
		if (c->e[i].used)
			drop(c, &c->e[i]);
	free(c);
}

static struct entry *find(struct vw_cache *c, uint64_t h, const uint8_t *key, size_t klen)
{
	for (size_t i = 0; i < VW_CACHE_ENTRIES; i++) {
		struct entry *e = &c->e[i];

		if (e->used && e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
	}
	return NULL;
}

const uint8_t *vw_cache_get(struct vw_cache *c, const uint8_t *key, size_t klen, size_t *alen, bool *follows)
{
	struct entry *e = c && klen ? find(c, hash_of(key, klen), key, klen) : NULL;

	if (!e)
		return NULL;
	e->used = ++c->clock;
	c->hits++;
	*alen = e->alen;
	*follows = e->follows;
	return e->answer;
}

/* The least recently used entry, or NULL when there is none. */
static struct entry *oldest(struct vw_cache *c)
{
	struct entry *o = NULL;

	for (size_t i = 0; i < VW_CACHE_ENTRIES; i++)
		if (c->e[i].used && (!o || c->e[i].used < o->used))
			o = &c->e[i];
	return o;
}

void vw_cache_put(struct vw_cache *c, const uint8_t *key, size_t klen, const uint8_t *answer, size_t alen, bool follows)
{
	uint64_t h;
	struct entry *e, *free_slot = NULL;

	if (!c || !klen || klen + alen > c->max_bytes / 8 || klen + alen < klen)
		return;
	h = hash_of(key, klen);
	if (find(c, h, key, klen))
		return;
	while (c->count && (c->count == VW_CACHE_ENTRIES || c->bytes + klen + alen > c->max_bytes))
		drop(c, oldest(c));
	for (size_t i = 0; i < VW_CACHE_ENTRIES && !free_slot; i++)
		if (!c->e[i].used)
			free_slot = &c->e[i];
	e = free_slot;
	e->key = malloc(klen);
	e->answer = malloc(alen ? alen : 1);
	if (!e->key || !e->answer) {
		free(e->key);
		free(e->answer);
		e->key = e->answer = NULL;
		return;
	}
	memcpy(e->key, key, klen);
	if (alen)
		memcpy(e->answer, answer, alen);
	e->hash = h;
	e->klen = klen;
	e->alen = alen;
	e->follows = follows;
	e->used = ++c->clock;
	c->bytes += klen + alen;
	c->count++;
}

uint64_t vw_cache_hits(const struct vw_cache *c)
{
	return c ? c->hits : 0;
}

size_t vw_cache_count(const struct vw_cache *c)
{
	return c ? c->count : 0;
}
