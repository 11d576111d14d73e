/*
 * pg_binary: a value bound in Postgres' binary format, written in its text
 * form, for the built-in types whose binary layout is fixed. A held write
 * keeps its values as text (the person deciding reads them, and the run
 * binds them again), so a client that binds in binary, as many drivers do
 * for numbers, has its values turned to text first, with their type kept.
 *
 * The text is what the server reads back as the same value under any
 * setting: dates and times in ISO 8601 (read the same whatever DateStyle
 * says), a timestamptz with its offset (+00), floats with every digit a
 * double needs (17 significant, 9 for a float4), numerics digit for digit.
 *
 * Pure: no I/O; the only allocation is the caller's wbuf growing. Every
 * read is bounded by len, and a layout the type does not have is refused.
 */
#ifndef AIRLOCK_PROTOCOL_PG_BINARY_H
#define AIRLOCK_PROTOCOL_PG_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wbuf.h"

enum pg_binary_result {
	PG_BINARY_OK,
	PG_BINARY_UNKNOWN_TYPE, /* not a type this module reads (0, unspecified, included) */
	PG_BINARY_MALFORMED,    /* len or the bytes are not a value of the type */
};

/*
 * The value v (len bytes, v may be NULL only when len is 0) of type
 * type_oid in binary, appended to out as text (no terminating NUL). On
 * anything but PG_BINARY_OK, out is as it was. Text types must be UTF-8
 * with no NUL.
 */
enum pg_binary_result pg_binary_to_text(uint32_t type_oid, const uint8_t *v, size_t len, struct wbuf *out);

/* type_oid is one pg_binary_to_text reads. */
bool pg_binary_known(uint32_t type_oid);

#endif
