/*
 * libFuzzer target for a write's binary values turned to text
 * (protocol/pg_binary.h), as pg_write_params.c calls it: the first byte
 * picks a type, the rest is the value. On success the text holds no NUL
 * (it is bound again as a C string's bytes and kept in JSON), an integer
 * reads back as the same number, and on failure the buffer is untouched.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/pg_binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t types[] = {16,   17,   19,   20,   21,   23,   25,   26,   114,  700, 701, 1042,
				 1043, 1082, 1083, 1114, 1184, 1186, 1700, 2950, 3802, 0,   1007};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t type;
	struct wbuf w;
	enum pg_binary_result r;

	if (size < 1)
		return 0;
	type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
	wbuf_init(&w);
	wbuf_put_str(&w, "x");
	r = pg_binary_to_text(type, data + 1, size - 1, &w);
	if (r != PG_BINARY_OK && (w.len != 1 || w.failed))
		abort();
	if (r == PG_BINARY_OK && !w.failed) {
		if (memchr(w.data, 0, w.len))
			abort();
		if (type == 20 || type == 21 || type == 23) {
			uint64_t v = 0;
			char *end;
			long long back;

			wbuf_put_u8(&w, 0);
			for (size_t i = 1; i < size; i++)
				v = v << 8 | data[i];
			back = strtoll((const char *)w.data + 1, &end, 10);
			if (*end || (type == 20 && back != (long long)(int64_t)v) ||
			    (type == 23 && back != (int32_t)(uint32_t)v) ||
			    (type == 21 && back != (int16_t)(uint16_t)v))
				abort();
		}
	}
	wbuf_free(&w);
	return 0;
}
