/*
 * validate_pg_bound: how deeply a statement's parse tree can nest, judged
 * from its tokens before anything recursive sees it.
 *
 * libpg_query's parser is a table-driven automaton, but what consumes its
 * tree (the JSON and protobuf writers, protobuf-c's reader, the deparser,
 * the fingerprint, airlock's own walks) recurses once per level. A chain of
 * one left-associative operator (1+1+...+1, a||b||..., x::t::t::...) nests
 * one level per operator without a single parenthesis, so a statement well
 * under max_message_bytes could exhaust the stack. The bound counts, per
 * bracket group ('(' ... ')', '[' ... ']', CASE ... END), the longest run of
 * operator and keyword tokens between separators (',', AND, OR, WHEN, THEN,
 * ELSE: siblings, never nested by the grammar; AND and OR lists are
 * flattened) plus the set operations and joins, which nest across
 * separators; a group's estimate adds its deepest child group's. The
 * estimate is never below the tree's real depth in grammar levels, so
 * flat statements (long IN lists, many OR terms, many VALUES rows) pass
 * and deep ones are refused with TOO_COMPLEX before the parser runs.
 * Pure: no I/O, no global state.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_BOUND_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_BOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "validator/pg/validate_pg.h"

/* The deepest estimate accepted. */
#define PGV_MAX_NESTING 1000
/* Texts shorter than this cannot nest deeper than their length and are not scanned. */
#define PGV_BOUND_UNSCANNED 4096

/*
 * The estimated nesting of sql (NUL-terminated), or 0 when the text does
 * not scan (the parser then reports the syntax error). Stops counting past
 * PGV_MAX_NESTING + 1. PGV_NESTING_NO_MEMORY when memory ran out.
 */
#define PGV_NESTING_NO_MEMORY ((size_t)-1)
size_t pgv_nesting(const char *sql);

/*
 * True when sql may be parsed; otherwise out holds a TOO_COMPLEX refusal
 * (54001). Texts shorter than PGV_BOUND_UNSCANNED pass without a scan.
 */
bool pgv_bound(const char *sql, struct pgv_result *out);

#endif
