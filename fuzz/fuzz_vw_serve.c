/*
 * fuzz_vw_serve: libFuzzer target for a validator worker's loop body, as
 * airlock-validator runs it (validator/main.c): the input is a request
 * body, answered by vw_serve_body with a cache, then asked again. The
 * second answer must be the first byte for byte, with the same follows
 * flag, whether it came from the cache or was made again: a kept answer
 * is never another request's. Seeds: fuzz/corpus/fuzz_vw_codec.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "validator/vw_serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vw_cache *cache;
	struct wbuf first, again;
	bool f1 = false, f2 = false, ok1, ok2;

	if (!cache)
		cache = vw_cache_new((size_t)16 << 20);
	wbuf_init(&first);
	wbuf_init(&again);
	ok1 = vw_serve_body(cache, data, size, &first, &f1);
	ok2 = vw_serve_body(cache, data, size, &again, &f2);
	if (ok1 != ok2 || f1 != f2 || first.len != again.len ||
	    (first.len && memcmp(first.data, again.data, first.len) != 0))
		abort();
	wbuf_free(&first);
	wbuf_free(&again);
	return 0;
}
