/*
 * validate_my_fingerprint: a 64-bit fingerprint of a MySQL statement for
 * the audit log: its tokens with every literal replaced by one
 * placeholder and words lower-cased, so the same statement with other
 * constants (or other spacing and comments) shares it, and no value can
 * be read back from it.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_FINGERPRINT_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when the text does not lex (the audit log then shows no fingerprint). */
uint64_t vmy_fingerprint(const char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes);

#endif
