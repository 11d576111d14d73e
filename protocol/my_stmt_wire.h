/*
 * my_stmt_wire: what my_stmt.c (the execute decoder, binary rows) and
 * my_literal.c (parameter literals) share: how a type's value is laid out
 * on the wire, and the refusal helper. Internal to protocol/.
 */
#ifndef AIRLOCK_PROTOCOL_MY_STMT_WIRE_H
#define AIRLOCK_PROTOCOL_MY_STMT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/my_stmt.h"

/* How a type's value is laid out on the wire (parameters and binary rows). */
enum my_wire_kind {
	MY_W_UNKNOWN,
	MY_W_NONE,   /* MY_TYPE_NULL: no bytes */
	MY_W_FIXED,  /* fixed_len bytes */
	MY_W_DATE,   /* length byte 0/4/7/11 + bytes */
	MY_W_TIME,   /* length byte 0/8/12 + bytes */
	MY_W_LENENC, /* lenenc string */
};

/* type's layout; *fixed_len its size for MY_W_FIXED, else 0. */
enum my_wire_kind my_wire_kind(uint8_t type, size_t *fixed_len);

/* s is not empty and holds only digits, signs, '.', 'e' and 'E': a number as %g prints it, no inf or nan. */
bool my_plain_number(const char *s);

/* MY_ERR with *why (when why is not NULL) set to reason, static. */
enum my_status my_fail(const char **why, const char *reason);

#endif
