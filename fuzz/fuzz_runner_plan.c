/*
 * fuzz_runner_plan: libFuzzer target for the plan check's reader of
 * EXPLAIN (FORMAT JSON, VERBOSE) text. The input, in an exact-size heap
 * copy (a read past its end is an ASan error), is checked against a fixed
 * allowlist; the verdict must be one of the three and stable, and a
 * relation reported outside must be a terminated "schema.table".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char allowed[] = "public.orders, public.customers,pg_catalog.*";
	char outside[130];
	enum runner_plan_verdict a, b;
	char *copy;

	if (size > 1 << 20)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(outside, 'x', sizeof(outside));
	a = runner_plan_check(copy, size, allowed, outside, sizeof(outside));
	b = runner_plan_check(copy, size, allowed, NULL, 0);
	if (a != b || (a != RUNNER_PLAN_ALLOWED && a != RUNNER_PLAN_OUTSIDE && a != RUNNER_PLAN_UNREAD))
		abort();
	if (a == RUNNER_PLAN_OUTSIDE && (!memchr(outside, '\0', sizeof(outside)) || !strchr(outside, '.')))
		abort();
	free(copy);
	return 0;
}
