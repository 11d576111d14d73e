/*
 * test_vw_cache: the worker's kept answers. The cache: an answer found
 * only by its exact key (not by another of the same length or hash
 * bucket), the least recently used dropped first when the entries or the
 * bytes run out, an answer past an eighth of the bytes never kept. The
 * worker's use of it (vw_serve_body): a repeated Postgres read answered
 * from the cache with the same bytes; the same statement under another
 * user's policy (another world) answered for that world, never from the
 * first user's entry; MySQL requests and unreadable bodies not kept.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "validator/vw_cache.h"
#include "validator/vw_serve.h"

#define KEY(s) (const uint8_t *)(s), sizeof(s) - 1

static void test_found_by_its_exact_key(void **state)
{
	struct vw_cache *c = vw_cache_new(1 << 20);
	const uint8_t *a;
	size_t n = 0;
	bool follows = false;

	(void)state;
	assert_non_null(c);
	assert_null(vw_cache_get(c, KEY("key-a"), &n, &follows));
	vw_cache_put(c, KEY("key-a"), KEY("answer-a"), true);
	vw_cache_put(c, KEY("key-b"), KEY("answer-b"), false);
	a = vw_cache_get(c, KEY("key-a"), &n, &follows);
	assert_non_null(a);
	assert_int_equal(n, 8);
	assert_memory_equal(a, "answer-a", 8);
	assert_true(follows);
	a = vw_cache_get(c, KEY("key-b"), &n, &follows);
	assert_memory_equal(a, "answer-b", 8);
	assert_false(follows);
	assert_null(vw_cache_get(c, KEY("key-c"), &n, &follows));
	assert_null(vw_cache_get(c, KEY("key-"), &n, &follows));
	assert_null(vw_cache_get(c, KEY("key-aa"), &n, &follows));
	assert_null(vw_cache_get(c, NULL, 0, &n, &follows));
	assert_int_equal(vw_cache_hits(c), 2);
	assert_int_equal(vw_cache_count(c), 2);
	/* The same key again keeps the first answer. */
	vw_cache_put(c, KEY("key-a"), KEY("other"), false);
	a = vw_cache_get(c, KEY("key-a"), &n, &follows);
	assert_memory_equal(a, "answer-a", 8);
	vw_cache_free(c);
	vw_cache_free(NULL);
}

static void test_least_recently_used_goes_first(void **state)
{
	struct vw_cache *c = vw_cache_new(1 << 20);
	char key[32];
	size_t n;
	bool follows;

	(void)state;
	for (int i = 0; i < VW_CACHE_ENTRIES; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		vw_cache_put(c, (const uint8_t *)key, strlen(key), KEY("v"), false);
	}
	assert_int_equal(vw_cache_count(c), VW_CACHE_ENTRIES);
	/* k0 is used again, so k1 is now the oldest. */
	assert_non_null(vw_cache_get(c, KEY("k0"), &n, &follows));
	vw_cache_put(c, KEY("new"), KEY("v"), false);
	assert_int_equal(vw_cache_count(c), VW_CACHE_ENTRIES);
	assert_non_null(vw_cache_get(c, KEY("k0"), &n, &follows));
	assert_null(vw_cache_get(c, KEY("k1"), &n, &follows));
	assert_non_null(vw_cache_get(c, KEY("k2"), &n, &follows));
	assert_non_null(vw_cache_get(c, KEY("new"), &n, &follows));
	vw_cache_free(c);
}

static void test_bytes_bound_the_cache(void **state)
{
	/* 8000 bytes: an entry may hold at most 1000. */
	struct vw_cache *c = vw_cache_new(8000);
	uint8_t big[1200];
	char key[8];
	size_t n;
	bool follows;

	(void)state;
	memset(big, 'x', sizeof(big));
	vw_cache_put(c, KEY("too-big"), big, 1000, false);
	assert_int_equal(vw_cache_count(c), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		/* 2 + 998 bytes each: eight fit. */
		vw_cache_put(c, (const uint8_t *)key, 2, big, 998, false);
	}
	assert_int_equal(vw_cache_count(c), 8);
	assert_null(vw_cache_get(c, KEY("k0"), &n, &follows));
	assert_null(vw_cache_get(c, KEY("k1"), &n, &follows));
	assert_non_null(vw_cache_get(c, KEY("k2"), &n, &follows));
	assert_non_null(vw_cache_get(c, KEY("k9"), &n, &follows));
	vw_cache_free(c);
}

/* ---- the worker's use of it ---- */

static const char *const orders_only[] = {"public.orders", "pg_catalog.*", "information_schema.*"};
static const char *const customers_only[] = {"public.customers", "pg_catalog.*", "information_schema.*"};
static const char *const path[] = {"public"};

static void request(struct wbuf *w, enum vw_op op, const struct pgv_policy *pg, const struct vmy_policy *my,
		    const char *sql)
{
	wbuf_reset(w);
	assert_true(vw_put_request(w, op, pg, my, sql, strlen(sql), NULL, 0));
}

/* The answer to the request in req (its 4-byte length left off), into out. */
static void answer(struct vw_cache *c, const struct wbuf *req, struct wbuf *out)
{
	bool follows;

	wbuf_reset(out);
	assert_true(vw_serve_body(c, req->data + 4, req->len - 4, out, &follows));
}

static void test_worker_keeps_reads_per_world(void **state)
{
	const struct pgv_policy alice = {
		.tables = orders_only, .ntables = 3, .search_path = path, .nsearch_path = 1, .user = "alice"};
	const struct pgv_policy bob = {
		.tables = customers_only, .ntables = 3, .search_path = path, .nsearch_path = 1, .user = "bob"};
	const struct vmy_policy my = {.user = "alice", .database = "shop", .tables = orders_only, .ntables = 1};
	const char *sql = "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind = 'r'";
	struct vw_cache *c = vw_cache_new(1 << 20);
	struct wbuf req, a1, a2, b1, none;

	(void)state;
	wbuf_init(&req);
	wbuf_init(&a1);
	wbuf_init(&a2);
	wbuf_init(&b1);
	wbuf_init(&none);
	request(&req, VW_PG_READ, &alice, NULL, sql);
	answer(c, &req, &a1);
	assert_int_equal(vw_cache_hits(c), 0);
	assert_int_equal(vw_cache_count(c), 1);
	/* The same bytes again: from the cache, the same answer, and it is alice's world's rewrite. */
	answer(c, &req, &a2);
	assert_int_equal(vw_cache_hits(c), 1);
	assert_int_equal(a1.len, a2.len);
	assert_memory_equal(a1.data, a2.data, a1.len);
	assert_non_null(memmem(a1.data, a1.len, "orders", 6));
	assert_null(memmem(a1.data, a1.len, "customers", 9));
	/* bob asks the same: his own world's answer, not alice's entry. */
	request(&req, VW_PG_READ, &bob, NULL, sql);
	answer(c, &req, &b1);
	assert_int_equal(vw_cache_hits(c), 1);
	assert_int_equal(vw_cache_count(c), 2);
	assert_non_null(memmem(b1.data, b1.len, "customers", 9));
	assert_null(memmem(b1.data, b1.len, "orders", 6));
	/* MySQL requests are answered, not kept. */
	request(&req, VW_MY_VALIDATE, NULL, &my, "SELECT * FROM orders");
	answer(c, &req, &none);
	answer(c, &req, &none);
	assert_int_equal(vw_cache_count(c), 2);
	assert_int_equal(vw_cache_hits(c), 1);
	/* A body that cannot be read: answered as such, not kept. */
	wbuf_reset(&req);
	wbuf_put_bytes(&req, "\0\0\0\3\xff\xff\xff", 7);
	answer(c, &req, &none);
	assert_true(none.len > 0);
	assert_int_equal(vw_cache_count(c), 2);
	wbuf_free(&req);
	wbuf_free(&a1);
	wbuf_free(&a2);
	wbuf_free(&b1);
	wbuf_free(&none);
	vw_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_by_its_exact_key),
		cmocka_unit_test(test_least_recently_used_goes_first),
		cmocka_unit_test(test_bytes_bound_the_cache),
		cmocka_unit_test(test_worker_keeps_reads_per_world),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
