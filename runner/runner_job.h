/*
 * runner_job: turns a decoded 'J' frame into NUL-terminated strings and
 * checked numbers. Every key is known and required except the "set.<name>"
 * pairs; an unknown key fails the job, so a cap the proxy asks for can
 * never be silently ignored. runner_job_free releases (and wipes) all of it.
 *
 * backend_memory_mb (RUNNER_MEM_MIN_MB to RUNNER_MEM_MAX_MB) is optional too;
 * the settings derived from it (work_mem, ...) may not come as set.<name>.
 *
 * Engine "mariadb" (MySQL and MariaDB backends) takes the same keys except
 * plan_tables, plan_sql, formats, copy_header, type_check, guard, write and param.<i>, which fail its
 * job (its max_cost is checked as runner_my_cost.h says), and only three settings (hidden_keys is its alone):
 * set.names, set.sql_mode and set.time_zone. Its job is complete only with
 * set.sql_mode, because the proxy's lexer assumed that mode.
 */
#ifndef AIRLOCK_RUNNER_JOB_H
#define AIRLOCK_RUNNER_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/frame.h"

#define RUNNER_JOB_MAX_TIMEOUT_MS (24u * 3600u * 1000u)
#define RUNNER_JOB_MAX_PARAMS 200

/*
 * A bound parameter travels as the pair "param.<i>" (i from 0) whose value
 * is: u8 flags (RUNNER_PARAM_NULL, RUNNER_PARAM_BINARY), u32 type OID
 * (0 = let the server infer it), then the value's bytes.
 */
#define RUNNER_PARAM_NULL 1
#define RUNNER_PARAM_BINARY 2

/* Rows of a write's dry run sent as its sample (its plan comes in a notice coded FRAME_PLAN_CODE). */
#define RUNNER_SAMPLE_ROWS 20

struct runner_job {
	char *engine;
	char *dbname;
	char *user;
	char *password;
	char *tls;      /* "require", "verify-ca" or "verify-full" (runner_tls.h); NULL: no TLS */
	char *tls_host; /* the name the database's certificate must carry; with tls only */
	/* The target's salted password for a SCRAM salt, as airlockd computed it (runner_tls.h); NULL: none. */
	char *scram_salt;
	char *scram_iterations;
	char *scram_key;
	/*
	 * 'P' key "kept" = "1": airlockd answers the relay's login itself and
	 * lends the connection a kept backend session once the statement comes
	 * (proxy/job/relay_kept.h); a warm runner then has nothing to warm up.
	 */
	bool kept;
	char *sql;
	char *timeout_text; /* timeout_ms as given, for set_config */
	uint32_t timeout_ms;
	uint64_t max_rows;
	uint64_t max_bytes;
	bool have_rows;
	bool have_bytes;
	uint32_t backend_memory_mb; /* 0: absent; else the engine's memory settings derive from it (runner_mem.h) */
	uint64_t max_cost;          /* 0: no EXPLAIN check (Postgres: runner_pg.c; MySQL: runner_my_cost.h) */
	bool have_cost;
	char *plan_tables; /* the plan check: relations a plan may read, "schema.table" / "schema.*",
			    * comma-separated; NULL: no check */
	bool copy_header;  /* a COPY's first line is a header: not counted as a row */
	char *plan_sql;    /* the read whose plan max_cost and plan_tables check, when sql is not one (COPY) */
	char *formats;     /* result format codes, '0' / '1', one per column or one for all; NULL: text */
	bool describe;     /* prepare and describe the statement instead of running it */
	/*
	 * A read run before anything else sees the parameter types: a row from
	 * it is the oid of a type outside the user's world; NULL: none.
	 */
	char *type_check;
	/*
	 * A read run after the settings, before the statement is sent: its
	 * error refuses the statement (validator/pg/validate_pg_guard.h); NULL: none.
	 */
	char *guard;
	/* MySQL: a read listing the names of keys outside the user's world (runner_my_hidden.h); NULL: none. */
	char *hidden_keys;
	/*
	 * Postgres: the statement is a write (runner_pg_write.c), run in a
	 * read-write transaction: RUNNER_WRITE_DRY rolls it back whatever
	 * happens, RUNNER_WRITE_RUN commits it when it touched at most
	 * write_max rows. write_check: the statement's first column is the
	 * check a row must pass (true); returning: the client asked for the
	 * rows (the columns after the check), else none are sent. sample (a
	 * dry run only): the statement is the dry run's variant
	 * (validator/pg/validate_pg_write.h), whose first RUNNER_SAMPLE_ROWS
	 * rows (after the check) are sent within max_bytes and the rest only
	 * counted; with plan_sql, the plan of that text (the write as it will
	 * run) goes first, as a notice coded FRAME_PLAN_CODE.
	 */
	enum { RUNNER_WRITE_NONE, RUNNER_WRITE_DRY, RUNNER_WRITE_RUN } write;
	uint64_t write_max;
	bool have_write_max;
	bool write_check;
	bool returning;
	bool sample;
	/*
	 * MariaDB, a dry run without sample (an UPDATE): the read of the rows
	 * the write will touch (validator/mysql/validate_my_write_sample.h),
	 * run before it in its transaction; after it they are read again by
	 * primary key and sent as pairs (runner_my_pairs.h). NULL: none.
	 */
	char *sample_read;
	size_t nsets;
	char *set_names[FRAME_MAX_PAIRS];
	char *set_values[FRAME_MAX_PAIRS];
	/* Bound parameters, ready for PQsendQueryParams; values are NUL-terminated copies. */
	int nparams;
	char *param_values[RUNNER_JOB_MAX_PARAMS];
	int param_lengths[RUNNER_JOB_MAX_PARAMS];
	int param_formats[RUNNER_JOB_MAX_PARAMS];
	unsigned int param_types[RUNNER_JOB_MAX_PARAMS];
	bool param_set[RUNNER_JOB_MAX_PARAMS];
};

void runner_job_init(struct runner_job *job);
/*
 * Adds the pairs of one 'P' or 'J' frame to job (a key given twice, in one
 * frame or across both, is an error). 0 on success; on failure -1 with a
 * reason in why that names at most the offending key, never a value; the
 * job is then freed.
 */
int runner_job_parse(const struct frame_job *fj, struct runner_job *job, char *why, size_t why_len);
/* True once the credentials are there (what a 'P' frame brings). */
bool runner_job_can_connect(const struct runner_job *job);
/* True once everything is there. */
bool runner_job_complete(const struct runner_job *job);
void runner_job_free(struct runner_job *job);
/* The value of set.<name>, or NULL when the job has none. */
const char *runner_job_setting(const struct runner_job *job, const char *name);

#endif
