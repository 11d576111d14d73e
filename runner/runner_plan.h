/*
 * runner_plan: the relations a Postgres plan reads, checked against an
 * allowlist. The plan is the text of EXPLAIN (FORMAT JSON, VERBOSE): every
 * node that scans a relation carries "Relation Name" and, with VERBOSE,
 * "Schema" in the same object. The text is read with a small JSON scanner
 * (strings with their escapes, objects and their depth), never by
 * searching substrings, so no string value can pose as a key. Pure,
 * bounded by len, no allocation.
 */
#ifndef AIRLOCK_RUNNER_PLAN_H
#define AIRLOCK_RUNNER_PLAN_H

#include <stddef.h>

enum runner_plan_verdict {
	RUNNER_PLAN_ALLOWED = 1, /* every relation named is allowed (or none is named) */
	RUNNER_PLAN_OUTSIDE = 0, /* a relation outside the allowlist */
	RUNNER_PLAN_UNREAD = -1, /* the text is not a plan this scanner can read: refuse */
};

/*
 * json: len bytes of EXPLAIN's output. allowed: comma-separated entries
 * "schema.table" or "schema.*" (names compared byte for byte, as Postgres
 * stores them). The first relation outside goes into outside (cap bytes,
 * "schema.table") when outside is not NULL.
 */
enum runner_plan_verdict runner_plan_check(const char *json, size_t len, const char *allowed, char *outside,
					   size_t cap);

#endif
