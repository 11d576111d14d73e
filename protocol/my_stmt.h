/*
 * my_stmt: MySQL's server-side prepared statement protocol, the part a
 * proxy that runs prepared statements as text needs: decode
 * COM_STMT_EXECUTE, turn each bound parameter into an SQL literal, and
 * write COM_STMT_PREPARE_OK and binary result rows (from the text the
 * server produced). Pure: no I/O, no allocation except the growth of the
 * caller's wbuf.
 *
 * Decoded parameter values are views into the caller's packet (valid
 * while it is). Errors are static strings.
 */
#ifndef AIRLOCK_PROTOCOL_MY_STMT_H
#define AIRLOCK_PROTOCOL_MY_STMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/my_codec.h"

#define MY_STMT_MAX_PARAMS 1024
/* Most columns my_write_binary_row takes. */
#define MY_STMT_MAX_COLS 4096
/* The unsigned bit in a parameter type's flag byte. */
#define MY_PARAM_FLAG_UNSIGNED 0x80u

/* One bound parameter of COM_STMT_EXECUTE, as the client sent it. */
struct my_param {
	bool is_null;
	uint8_t type;         /* MY_TYPE_* */
	bool is_unsigned;     /* flag 0x80 in the type's second byte */
	const uint8_t *value; /* view into the packet (NULL for is_null) */
	/*
	 * Bytes of value. Length-encoded types: the content, without the
	 * lenenc prefix. DATE/DATETIME/TIMESTAMP/TIME: the bytes after the
	 * length byte, so len is that byte (0/4/7/11, TIME 0/8/12).
	 */
	size_t len;
};

struct my_stmt_execute {
	uint32_t stmt_id;
	uint8_t flags;       /* cursor type; 0 = CURSOR_TYPE_NO_CURSOR */
	uint32_t iterations; /* as sent (clients send 1); not checked here */
	bool new_params_bound;
	uint16_t nparams;                           /* copied from the caller's argument */
	struct my_param params[MY_STMT_MAX_PARAMS]; /* caller allocates the struct (it is large) */
};

/*
 * Reads the statement id only (first 4 bytes after the command byte);
 * MY_ERR if short. p/len are the whole packet payload including the
 * command byte 0x17.
 */
enum my_status my_stmt_execute_id(const uint8_t *p, size_t len, uint32_t *stmt_id);

/*
 * Decodes a COM_STMT_EXECUTE payload (command byte included) for a
 * statement with nparams parameters: 0x17, u32 stmt id, u8 flags, u32
 * iterations, then when nparams > 0 the NULL bitmap ((nparams + 7) / 8
 * bytes, offset 0), new_params_bound (0 or 1), with 1 nparams * (type,
 * flags), then the non-NULL values. When the packet does not re-send types
 * (new_params_bound = 0), prev_types (nparams entries of 2 bytes each:
 * type, flags; as returned in types_out on an earlier execute) supplies
 * them; NULL prev_types with new_params_bound = 0 and nparams > 0 ->
 * MY_ERR. types_out (2*nparams bytes, may be NULL, may be prev_types
 * itself) receives the types in effect, only on MY_OK. Every length
 * checked; trailing garbage -> MY_ERR; a type the codec does not know ->
 * MY_ERR with why; nparams > MY_STMT_MAX_PARAMS -> MY_ERR. A parameter of
 * type MY_TYPE_NULL is NULL whatever its bitmap bit. On MY_ERR out->nparams
 * is 0 and the params are not to be used. Views point into p.
 * (CLIENT_QUERY_ATTRIBUTES' parameter count is not parsed: never advertise it.)
 */
enum my_status my_stmt_decode_execute(const uint8_t *p, size_t len, uint16_t nparams, const uint8_t *prev_types,
				      struct my_stmt_execute *out, uint8_t *types_out, const char **why);

/*
 * Appends one parameter as SQL literal text to a wbuf used as a plain
 * byte buffer (no my_begin/my_end; the wbuf's own limit applies, so a
 * caller that wants the text capped opens it with wbuf_begin first):
 *   NULL (or type NULL) -> NULL
 *   TINY/SHORT/LONG/INT24/LONGLONG/YEAR -> decimal integer, signed or unsigned per is_unsigned
 *   FLOAT/DOUBLE -> shortest round-trip decimal (exponent form like 1e+300 when %g picks it);
 *       an integral value with |v| < 2^53 as an integer; NaN/Inf -> MY_ERR
 *   DECIMAL/NEWDECIMAL -> the text if it matches ^-?[0-9]+(\.[0-9]+)?$ (else MY_ERR), unquoted
 *   strings, blobs, JSON, ENUM, SET, BIT, GEOMETRY -> '...' where ' becomes '' and, unless
 *       no_backslash_escapes, \ becomes \\ and NUL becomes \0 (under no_backslash_escapes a
 *       value holding a NUL byte is written _<nul_charset> X'<hex>' instead, a literal of that
 *       character set and its default collation; MY_ERR when nul_charset is NULL or not a
 *       plain name). Other bytes are copied as they are: safe only for a connection
 *       character set where 0x27 and 0x5c never occur inside a multibyte character (utf8mb4,
 *       utf8mb3, latin1, ascii, binary), not for gbk, big5, sjis, cp932, gb18030.
 *   DATE/DATETIME/TIMESTAMP -> 'YYYY-MM-DD' (length 0 or 4), 'YYYY-MM-DD HH:MM:SS' (7),
 *       'YYYY-MM-DD HH:MM:SS.ffffff' (11); a field out of range (month 13...) -> MY_ERR
 *   TIME -> '[-]HH:MM:SS[.ffffff]' with hours = days*24 + hours (length 0/8/12)
 * Negative numbers start with '-': put a space before the literal when substituting.
 * Returns MY_OK or MY_ERR with why (static); on MY_ERR out->len is as it was (unless
 * out->failed was set by the allocation, which is also MY_ERR).
 */
enum my_status my_param_literal(const struct my_param *prm, bool no_backslash_escapes, const char *nul_charset,
				struct wbuf *out, const char **why);

/* COM_STMT_PREPARE_OK: 0x00, stmt id, column count, param count, filler 0, warnings. A whole packet. */
void my_write_prepare_ok(struct wbuf *b, uint8_t seq, uint32_t stmt_id, uint16_t ncols, uint16_t nparams,
			 uint16_t warnings);

/*
 * Binary result row (whole packet): header 0x00, NULL bitmap with offset 2
 * ((ncols + 7 + 2) / 8 bytes), then each non-NULL value encoded for its
 * column type from the TEXT the server produced (values[i] / lens[i];
 * values[i] == NULL means SQL NULL):
 *   TINY 1 byte, SHORT/YEAR 2, LONG/INT24 4, LONGLONG 8 (little-endian;
 *   parsed signed or unsigned per unsigned_flags[i], range-checked for the
 *   width), FLOAT 4-byte IEEE, DOUBLE 8-byte IEEE, DATE/DATETIME/TIMESTAMP
 *   from 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' into the 0/4/7/11-byte layout (all
 *   zero -> length 0), TIME from '[-]HHH:MM:SS[.ffffff]' into the 0/8/12-byte
 *   layout, everything else as a length-encoded string.
 * unsigned_flags may be NULL (all signed). Text that does not parse for its
 * type, or ncols > MY_STMT_MAX_COLS -> MY_ERR with why and b as it was.
 * An allocation failure sets b->failed as the other writers do (MY_OK).
 */
enum my_status my_write_binary_row(struct wbuf *b, uint8_t seq, uint16_t ncols, const uint8_t *types,
				   const bool *unsigned_flags, const uint8_t *const *values, const size_t *lens,
				   const char **why);

#endif
