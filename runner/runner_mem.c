/* runner_mem: per-statement memory settings from backend_memory_mb (see runner_mem.h). */
#include "runner/runner_mem.h"

#include <inttypes.h>
#include <stdio.h>

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static uint64_t clamp_mb(uint32_t mb)
{
	if (mb < RUNNER_MEM_MIN_MB)
		return RUNNER_MEM_MIN_MB;
	if (mb > RUNNER_MEM_MAX_MB)
		return RUNNER_MEM_MAX_MB;
	return mb;
}

/* The value in decimal, then unit ("" or "kB"). */
static void put(struct runner_mem_setting *s, const char *name, uint64_t v, const char *unit)
{
	s->name = name;
	snprintf(s->value, sizeof(s->value), "%" PRIu64 "%s", v, unit);
}

void runner_mem_pg(uint32_t mb, struct runner_mem_setting out[RUNNER_MEM_PG_N])
{
	uint64_t work_kb = clamp_mb(mb) * KIB / 16;

	if (work_kb < 64)
		work_kb = 64;
	put(&out[0], "work_mem", work_kb, "kB");
	put(&out[1], "hash_mem_multiplier", 1, "");
	put(&out[2], "max_parallel_workers_per_gather", 0, "");
}

void runner_mem_my(uint32_t mb, struct runner_mem_setting out[RUNNER_MEM_MY_N])
{
	uint64_t bytes = clamp_mb(mb) * MIB, buf = bytes / 32;

	if (buf < 32 * KIB)
		buf = 32 * KIB;
	put(&out[0], "max_session_mem_used", bytes, "");
	put(&out[1], "tmp_table_size", bytes / 4, "");
	put(&out[2], "max_heap_table_size", bytes / 4, "");
	put(&out[3], "sort_buffer_size", buf, "");
	put(&out[4], "join_buffer_size", buf, "");
}

size_t runner_mem_my_sql(uint32_t mb, char *out, size_t cap)
{
	struct runner_mem_setting mem[RUNNER_MEM_MY_N];
	size_t len = 0;

	runner_mem_my(mb, mem);
	for (size_t i = 0; i < RUNNER_MEM_MY_N && len < cap; i++) {
		int n = snprintf(out + len, cap - len, ", @@SESSION.%s = %s", mem[i].name, mem[i].value);

		if (n < 0 || (size_t)n >= cap - len)
			return 0;
		len += (size_t)n;
	}
	return len;
}
