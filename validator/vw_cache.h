/*
 * vw_cache: a worker's answers kept by the exact request that asked for
 * them. A request's body holds everything its answer depends on (the
 * operation, the user's whole policy, the user's name among it, and the
 * statement), and the validators are pure functions of it, so the same
 * body gets the same answer without parsing, scoping, deparsing and
 * validating again: what psql's \d and an ORM's reflection send over and
 * over costs a look-up. Users never share an entry: their names differ.
 *
 * Bounded: at most VW_CACHE_ENTRIES answers and max_bytes of keys and
 * answers together; the least recently used goes first. Ownership: the
 * cache copies what it keeps; what vw_cache_get returns is borrowed until
 * the next vw_cache_put or vw_cache_free.
 */
#ifndef AIRLOCK_VALIDATOR_VW_CACHE_H
#define AIRLOCK_VALIDATOR_VW_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VW_CACHE_ENTRIES 256

struct vw_cache;

/* An empty cache of at most max_bytes, or NULL when out of memory. */
struct vw_cache *vw_cache_new(size_t max_bytes);
void vw_cache_free(struct vw_cache *c);

/* The answer kept for key (with its follows flag), or NULL. */
const uint8_t *vw_cache_get(struct vw_cache *c, const uint8_t *key, size_t klen, size_t *alen, bool *follows);

/*
 * Keeps copies of key and answer, making room by dropping the least
 * recently used. One larger than an eighth of max_bytes is not kept, nor
 * is anything when memory runs out.
 */
void vw_cache_put(struct vw_cache *c, const uint8_t *key, size_t klen, const uint8_t *answer, size_t alen,
		  bool follows);

/* How many look-ups found their answer, and how many answers are kept now. */
uint64_t vw_cache_hits(const struct vw_cache *c);
size_t vw_cache_count(const struct vw_cache *c);

#endif
