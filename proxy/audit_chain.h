/*
 * audit_chain: the hash chain of the audit log. Every record carries
 * "prev", the lowercase hex SHA-256 of the previous line's exact bytes
 * (its newline not included); the first record of a log carries 64 zeros.
 * Editing, inserting or deleting a record breaks the link of the record
 * after it. Pure but for audit_chain_tail, which reads a file it is given.
 */
#ifndef AIRLOCK_PROXY_AUDIT_CHAIN_H
#define AIRLOCK_PROXY_AUDIT_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#define AUDIT_CHAIN_HEX 64

/* The prev of a log's first record: 64 '0's. */
extern const char audit_chain_zero[AUDIT_CHAIN_HEX + 1];

/* hex receives the hash of line[0..len) (NUL-terminated). False when OpenSSL fails. */
bool audit_chain_hash(const void *line, size_t len, char hex[AUDIT_CHAIN_HEX + 1]);

/*
 * The tail of an existing log open for reading on fd (a regular file; it
 * is read with pread from its end, in bounded chunks, whatever its size):
 * hex receives the hash of its last complete line, or audit_chain_zero
 * when it has none; *torn is set when bytes with no newline after them
 * end the file (a write cut short). 0, or -1 with errno on an I/O error.
 */
int audit_chain_tail(int fd, char hex[AUDIT_CHAIN_HEX + 1], bool *torn);

#endif
