/*
 * audit_verify: checks an audit log's hash chain (proxy/audit_chain.h):
 * every line a JSON object whose "prev" is the hash of the line before
 * (64 zeros on line 1). Stops at the first line that breaks the chain and
 * says why. Reads only the FILE it is given; lines are fed one at a time
 * so the check can be driven without a file.
 */
#ifndef AIRLOCK_PROXY_AUDIT_VERIFY_H
#define AIRLOCK_PROXY_AUDIT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proxy/audit_chain.h"

/* A longer line is refused: airlockd writes none near it. */
#define AUDIT_VERIFY_LINE_MAX (1024 * 1024)

enum audit_verify_result {
	AUDIT_VERIFY_INTACT, /* every line links */
	AUDIT_VERIFY_BROKEN, /* msg names the first line that does not */
	AUDIT_VERIFY_IO,     /* the file could not be read; msg says why */
};

struct audit_verify {
	char prev[AUDIT_CHAIN_HEX + 1]; /* what the next line's prev must be */
	uint64_t lines;                 /* lines that linked */
	char msg[320];                  /* "LINE: why" once a line broke the chain */
};

void audit_verify_init(struct audit_verify *v);
/* The next line (without its newline; borrowed for the call). False: it breaks the chain, v->msg says how. */
bool audit_verify_line(struct audit_verify *v, const char *line, size_t len);
/* Every line of f, to its end or the first break. A last line with no newline is a break (a write cut short). */
enum audit_verify_result audit_verify_file(struct audit_verify *v, FILE *f);

#endif
