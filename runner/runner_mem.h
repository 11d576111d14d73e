/*
 * runner_mem: the engine settings that bound a statement's memory in the
 * database backend, derived from the user's backend_memory_mb (B MiB).
 * Pure: numbers in, names and values out; nothing is allocated.
 *
 * Postgres (set_config(..., true) in the statement's transaction, after the
 * session's own settings, so nothing the session kept can undo them):
 *   work_mem = B / 16 (at least 64 kB): each sort and hash node of a plan
 *     may use this much before it spills to a temporary file; sixteen such
 *     nodes fill the budget;
 *   hash_mem_multiplier = 1: hash nodes get no more than sorts;
 *   max_parallel_workers_per_gather = 0: no parallel workers, whose memory
 *     would be other processes' (each with its own work_mem), so the whole
 *     statement's memory is in the one backend airlockd watches.
 * What work_mem does not bound (an aggregate's state such as string_agg's
 * string, a huge array or row value, the planner's own memory) only the
 * watch in airlockd bounds (proxy/job/job_mem.h). temp_file_limit (disk, not
 * memory) can only be set by a superuser: the operator sets it on the
 * backend role (ALTER ROLE ... SET temp_file_limit).
 *
 * MariaDB (one SET with the job's other session variables):
 *   max_session_mem_used = B: the server refuses an allocation that takes
 *     the session past it and fails the statement (1290);
 *   tmp_table_size = max_heap_table_size = B / 4: an in-memory temporary
 *     table larger than this goes to disk;
 *   sort_buffer_size = join_buffer_size = B / 32 (at least 32 kB).
 */
#ifndef AIRLOCK_RUNNER_MEM_H
#define AIRLOCK_RUNNER_MEM_H

#include <stddef.h>
#include <stdint.h>

#define RUNNER_MEM_MIN_MB 16u
#define RUNNER_MEM_MAX_MB 65536u
#define RUNNER_MEM_PG_N 3
#define RUNNER_MEM_MY_N 5

struct runner_mem_setting {
	const char *name; /* static */
	char value[24];   /* Postgres: with its unit ("16384kB"); MariaDB: bytes, digits only */
};

/* mb is clamped to RUNNER_MEM_MIN_MB .. RUNNER_MEM_MAX_MB. */
void runner_mem_pg(uint32_t mb, struct runner_mem_setting out[RUNNER_MEM_PG_N]);
void runner_mem_my(uint32_t mb, struct runner_mem_setting out[RUNNER_MEM_MY_N]);
/* Appends ", @@SESSION.<name> = <bytes>" for each MariaDB setting to out (of cap); returns the length added. */
#define RUNNER_MEM_MY_SQL_MAX 256
size_t runner_mem_my_sql(uint32_t mb, char *out, size_t cap);

#endif
