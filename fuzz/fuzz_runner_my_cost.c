/*
 * fuzz_runner_my_cost: libFuzzer target for the MySQL cost check's
 * readers of what the backend returns. The input's first line is the
 * Last_query_cost text, each further line a plan row of four
 * tab-separated fields (id, select_type, table, type; "\N" is SQL NULL).
 * Every value is an exact-size heap copy (a read past its end is an ASan
 * error). The verdict must be UNDER, OVER or UNKNOWN; a parsed cost is a
 * number at least 0; UNDER never comes with a cost above the cap, nor
 * without a row or a cost.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_my_cost.h"

#define CAP 1000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An exact-size copy of n bytes (NULL for "\N"); *fail when memory ran out. */
static char *copy(const uint8_t *p, size_t n, bool *fail)
{
	char *c;

	if (n == 2 && p[0] == '\\' && p[1] == 'N')
		return NULL;
	c = malloc(n ? n : 1);
	if (!c)
		*fail = true;
	else
		memcpy(c, p, n);
	return c;
}

static void add_row(struct my_cost_plan *p, const uint8_t *line, size_t len, bool *fail)
{
	char *v[4] = {NULL, NULL, NULL, NULL};
	size_t l[4] = {0, 0, 0, 0}, at = 0;

	for (int k = 0; k < 4; k++) {
		const uint8_t *tab = at <= len ? memchr(line + at, '\t', len - at) : NULL;
		size_t end = k < 3 && tab ? (size_t)(tab - line) : len;

		if (at <= len) {
			v[k] = copy(line + at, end - at, fail);
			l[k] = v[k] ? end - at : 0;
		}
		at = end + 1;
	}
	my_cost_plan_row(p, &(struct my_cost_row){v[0], v[1], v[2], v[3], l[0], l[1], l[2], l[3]});
	for (int k = 0; k < 4; k++)
		free(v[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct my_cost_plan p;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t first = nl ? (size_t)(nl - data) : size, at = nl ? first + 1 : size;
	bool fail = false, have;
	double cost = -1, again = -1;
	char *text;
	enum my_cost_verdict v;

	if (size > 1 << 16)
		return 0;
	memset(&p, 0, sizeof(p));
	text = copy(data, first, &fail);
	have = my_cost_parse(text, text ? first : 0, &cost) == 0;
	if (have != (my_cost_parse(text, text ? first : 0, &again) == 0) || (have && (cost != again || !(cost >= 0))))
		abort();
	free(text);
	while (at < size) {
		const uint8_t *end = memchr(data + at, '\n', size - at);
		size_t len = end ? (size_t)(end - data) - at : size - at;

		add_row(&p, data + at, len, &fail);
		at += len + 1;
	}
	if (fail)
		return 0;
	v = my_cost_judge(&p, have, cost, CAP);
	if (v != MY_COST_UNDER && v != MY_COST_OVER && v != MY_COST_UNKNOWN)
		abort();
	if (v == MY_COST_UNDER && (!have || p.rows == 0 || cost > CAP || p.other))
		abort();
	if (v != my_cost_judge(&p, have, cost, CAP))
		abort();
	return 0;
}
