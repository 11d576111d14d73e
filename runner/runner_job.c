/*
 * runner_job: the job frame as C strings and numbers (see runner_job.h).
 */
#include "runner/runner_job.h"
#include "runner/runner_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Settings a job may never change: they are what keeps it bounded and read-only. */
static const char *const denied_settings[] = {
	"statement_timeout",
	"transaction_read_only",
	"default_transaction_read_only",
	"role",
	"session_authorization",
	"work_mem",
	"hash_mem_multiplier",
	"max_parallel_workers_per_gather",
	"temp_file_limit",
};

/* The only settings a mariadb job may carry (applied by runner_my). */
static const char *const mariadb_settings[] = {
	"names",
	"sql_mode",
	"time_zone",
	"database",  /* the session's current database: unqualified names resolve against it */
	"collation", /* collation_connection, when not the character set's default */
	/* The session variables the proxy keeps and checks (proxy/mysql/my_vars.c), applied by runner_my. */
	"default_week_format",
	"div_precision_increment",
	"foreign_key_checks",
	"group_concat_max_len",
	"lc_time_names",
	"net_read_timeout",
	"net_write_timeout",
	"sql_auto_is_null",
	"sql_notes",
	"sql_quote_show_create",
	"sql_safe_updates",
	"sql_select_limit",
	"sql_warnings",
	"unique_checks",
};

#define SET_PREFIX "set."
#define PARAM_PREFIX "param."
#define MAX_SETTING_NAME 127

/* NUL-terminated copy; NULL when s holds a NUL byte or memory runs out. */
static char *dup_str(const struct frame_str *s)
{
	char *p;

	if (s->len && memchr(s->ptr, '\0', s->len))
		return NULL;
	p = malloc((size_t)s->len + 1);
	if (!p)
		return NULL;
	if (s->len)
		memcpy(p, s->ptr, s->len);
	p[s->len] = '\0';
	return p;
}

static int parse_u64(const struct frame_str *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	uint32_t i;

	if (s->len == 0 || s->len > 20)
		return -1;
	for (i = 0; i < s->len; i++) {
		unsigned d;

		if (s->ptr[i] < '0' || s->ptr[i] > '9')
			return -1;
		d = (unsigned)(s->ptr[i] - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static bool setting_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > MAX_SETTING_NAME)
		return false;
	for (i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '.'))
			return false;
	}
	for (i = 0; i < sizeof(denied_settings) / sizeof(denied_settings[0]); i++)
		if (strcasecmp(name, denied_settings[i]) == 0)
			return false;
	return true;
}

/* "param.<i>": flags, type OID, bytes (see runner_job.h). */
static int take_param(struct runner_job *job, const struct frame_str *k, const struct frame_str *v)
{
	const size_t plen = strlen(PARAM_PREFIX);
	uint64_t idx;
	struct frame_str num = {.ptr = k->ptr + plen, .len = k->len - (uint32_t)plen};
	const uint8_t *b = (const uint8_t *)v->ptr;
	uint8_t flags;
	size_t n;
	char *copy;

	if (parse_u64(&num, RUNNER_JOB_MAX_PARAMS - 1, &idx) < 0 || v->len < 5 || job->param_set[idx])
		return -1;
	flags = b[0];
	if (flags & ~(RUNNER_PARAM_NULL | RUNNER_PARAM_BINARY))
		return -1;
	n = v->len - 5;
	job->param_types[idx] = (unsigned)b[1] << 24 | (unsigned)b[2] << 16 | (unsigned)b[3] << 8 | b[4];
	job->param_formats[idx] = (flags & RUNNER_PARAM_BINARY) ? 1 : 0;
	job->param_set[idx] = true;
	if ((int)idx + 1 > job->nparams)
		job->nparams = (int)idx + 1;
	if (flags & RUNNER_PARAM_NULL)
		return n == 0 ? 0 : -1;
	/* Text values are C strings for libpq: no NUL inside. */
	if (!(flags & RUNNER_PARAM_BINARY) && n && memchr(b + 5, '\0', n))
		return -1;
	copy = malloc(n + 1);
	if (!copy)
		return -1;
	if (n)
		memcpy(copy, b + 5, n);
	copy[n] = '\0';
	job->param_values[idx] = copy;
	job->param_lengths[idx] = (int)n;
	return 0;
}

/* One result format code per column, or one for all: '0' text, '1' binary. */
static bool formats_ok(const struct frame_str *v)
{
	if (v->len == 0 || v->len > FRAME_MAX_COLS)
		return false;
	for (uint32_t i = 0; i < v->len; i++)
		if (v->ptr[i] != '0' && v->ptr[i] != '1')
			return false;
	return true;
}

/* v is exactly word. */
static bool flag_value(const struct frame_str *v, const char *word)
{
	size_t n = strlen(word);

	return v->len == n && memcmp(v->ptr, word, n) == 0;
}

static bool key_is(const struct frame_str *k, const char *name)
{
	size_t n = strlen(name);

	return k->len == n && memcmp(k->ptr, name, n) == 0;
}

/* Stores a copy of v in *slot; -1 when v holds a NUL, memory runs out, or the slot is taken. */
static int take(char **slot, const struct frame_str *v)
{
	if (*slot)
		return -1;
	*slot = dup_str(v);
	return *slot ? 0 : -1;
}

void runner_job_init(struct runner_job *job)
{
	memset(job, 0, sizeof(*job));
}

bool runner_job_can_connect(const struct runner_job *job)
{
	return job->engine && job->dbname && job->user && job->password && !job->tls == !job->tls_host;
}

static bool is_mariadb(const struct runner_job *job)
{
	return job->engine && strcmp(job->engine, "mariadb") == 0;
}

bool runner_job_complete(const struct runner_job *job)
{
	if (is_mariadb(job) && !runner_job_setting(job, "sql_mode"))
		return false;
	return runner_job_can_connect(job) && job->sql && job->timeout_text && job->have_rows && job->have_bytes;
}

const char *runner_job_setting(const struct runner_job *job, const char *name)
{
	size_t i;

	for (i = 0; i < job->nsets; i++)
		if (strcmp(job->set_names[i], name) == 0)
			return job->set_values[i];
	return NULL;
}

/* What a mariadb job may not hold; 0 when it is fine, else -1 with why set. */
static int check_mariadb(const struct runner_job *job, char *why, size_t why_len)
{
	size_t i, j;

	if (job->plan_tables) {
		snprintf(why, why_len, "job key plan_tables is not supported for engine mariadb");
		return -1;
	}
	if (job->nparams) {
		snprintf(why, why_len, "bound parameters are not supported for engine mariadb");
		return -1;
	}
	/* A write's dry run takes its sample and plan_sql as a Postgres one does (checked with the write). */
	if (job->formats || (job->plan_sql && !job->write) || job->copy_header || job->type_check || job->guard ||
	    job->returning) {
		snprintf(why, why_len,
			 "result formats, plan_sql (but a write's), copy_header, type_check, guard and returning are "
			 "not supported for engine mariadb");
		return -1;
	}
	for (i = 0; i < job->nsets; i++) {
		for (j = 0; j < sizeof(mariadb_settings) / sizeof(mariadb_settings[0]); j++)
			if (strcmp(job->set_names[i], mariadb_settings[j]) == 0)
				break;
		if (j == sizeof(mariadb_settings) / sizeof(mariadb_settings[0])) {
			snprintf(why, why_len, "setting not allowed in a mariadb job: %s", job->set_names[i]);
			return -1;
		}
		/* Once in 'P' and again in 'J' would leave two values for one setting. */
		for (j = 0; j < i; j++) {
			if (strcmp(job->set_names[i], job->set_names[j]) == 0) {
				snprintf(why, why_len, "setting given twice: %s", job->set_names[i]);
				return -1;
			}
		}
	}
	return 0;
}

int runner_job_parse(const struct frame_job *fj, struct runner_job *job, char *why, size_t why_len)
{
	uint64_t v;
	uint16_t i;

	for (i = 0; i < fj->npairs; i++) {
		const struct frame_str *k = &fj->pairs[i].key;
		const struct frame_str *val = &fj->pairs[i].value;
		int rc = 0;

		if (key_is(k, "engine")) {
			rc = take(&job->engine, val);
		} else if (key_is(k, "dbname")) {
			rc = take(&job->dbname, val);
		} else if (key_is(k, "user")) {
			rc = take(&job->user, val);
		} else if (key_is(k, "password")) {
			rc = take(&job->password, val);
		} else if (key_is(k, "tls")) {
			rc = flag_value(val, "require") || flag_value(val, "verify-ca") ||
					     flag_value(val, "verify-full")
				     ? take(&job->tls, val)
				     : -1;
		} else if (key_is(k, "tls_host")) {
			rc = take(&job->tls_host, val);
		} else if (key_is(k, "scram_salt")) {
			rc = take(&job->scram_salt, val);
		} else if (key_is(k, "scram_iterations")) {
			rc = take(&job->scram_iterations, val);
		} else if (key_is(k, "scram_key")) {
			rc = take(&job->scram_key, val);
		} else if (key_is(k, "sql")) {
			rc = take(&job->sql, val);
		} else if (key_is(k, "timeout_ms")) {
			rc = parse_u64(val, RUNNER_JOB_MAX_TIMEOUT_MS, &v);
			if (rc == 0 && v == 0)
				rc = -1;
			if (rc == 0) {
				job->timeout_ms = (uint32_t)v;
				rc = take(&job->timeout_text, val);
			}
		} else if (key_is(k, "max_rows")) {
			rc = job->have_rows ? -1 : parse_u64(val, UINT64_MAX, &job->max_rows);
			job->have_rows = rc == 0;
		} else if (key_is(k, "backend_memory_mb")) {
			rc = job->backend_memory_mb ? -1 : parse_u64(val, RUNNER_MEM_MAX_MB, &v);
			if (rc == 0 && v < RUNNER_MEM_MIN_MB)
				rc = -1;
			if (rc == 0)
				job->backend_memory_mb = (uint32_t)v;
		} else if (key_is(k, "max_cost")) {
			rc = job->have_cost ? -1 : parse_u64(val, UINT64_MAX, &job->max_cost);
			job->have_cost = rc == 0;
		} else if (key_is(k, "plan_tables")) {
			rc = job->plan_tables ? -1 : take(&job->plan_tables, val);
		} else if (key_is(k, "copy_header")) {
			rc = job->copy_header || val->len != 1 || val->ptr[0] != '1' ? -1 : 0;
			job->copy_header = rc == 0;
		} else if (key_is(k, "plan_sql")) {
			rc = take(&job->plan_sql, val);
		} else if (key_is(k, "type_check")) {
			rc = take(&job->type_check, val);
		} else if (key_is(k, "guard")) {
			rc = take(&job->guard, val);
		} else if (key_is(k, "hidden_keys")) {
			rc = take(&job->hidden_keys, val);
		} else if (key_is(k, "write")) {
			rc = job->write ? -1 : flag_value(val, "dry") ? 0 : flag_value(val, "run") ? 0 : -1;
			if (rc == 0)
				job->write = flag_value(val, "dry") ? RUNNER_WRITE_DRY : RUNNER_WRITE_RUN;
		} else if (key_is(k, "write_max")) {
			rc = job->have_write_max ? -1 : parse_u64(val, UINT64_MAX, &job->write_max);
			job->have_write_max = rc == 0;
		} else if (key_is(k, "kept")) {
			rc = job->kept || !flag_value(val, "1") ? -1 : 0;
			job->kept = rc == 0;
		} else if (key_is(k, "write_check")) {
			rc = job->write_check || !flag_value(val, "1") ? -1 : 0;
			job->write_check = rc == 0;
		} else if (key_is(k, "sample")) {
			rc = job->sample || !flag_value(val, "1") ? -1 : 0;
			job->sample = rc == 0;
		} else if (key_is(k, "sample_read")) {
			rc = take(&job->sample_read, val);
		} else if (key_is(k, "returning")) {
			rc = job->returning || !flag_value(val, "1") ? -1 : 0;
			job->returning = rc == 0;
		} else if (key_is(k, "formats")) {
			rc = job->formats || !formats_ok(val) ? -1 : take(&job->formats, val);
		} else if (key_is(k, "describe")) {
			rc = job->describe || val->len != 1 || val->ptr[0] != '1' ? -1 : 0;
			job->describe = rc == 0;
		} else if (key_is(k, "max_bytes")) {
			rc = job->have_bytes ? -1 : parse_u64(val, UINT64_MAX, &job->max_bytes);
			job->have_bytes = rc == 0;
		} else if (k->len > strlen(PARAM_PREFIX) && memcmp(k->ptr, PARAM_PREFIX, strlen(PARAM_PREFIX)) == 0) {
			rc = take_param(job, k, val);
		} else if (k->len > strlen(SET_PREFIX) && memcmp(k->ptr, SET_PREFIX, strlen(SET_PREFIX)) == 0) {
			struct frame_str name = {
				.ptr = k->ptr + strlen(SET_PREFIX),
				.len = k->len - (uint32_t)strlen(SET_PREFIX),
			};
			size_t n = job->nsets;

			if (take(&job->set_names[n], &name) < 0 || take(&job->set_values[n], val) < 0) {
				free(job->set_names[n]);
				job->set_names[n] = NULL;
				rc = -1;
			} else {
				job->nsets++;
				if (!setting_name_ok(job->set_names[n])) {
					snprintf(why, why_len, "setting not allowed in a job: %s", job->set_names[n]);
					goto fail;
				}
			}
		} else {
			snprintf(why, why_len, "unknown job key");
			goto fail;
		}
		if (rc < 0) {
			snprintf(why, why_len, "bad value for job key %.*s", (int)(k->len > 64 ? 64 : k->len), k->ptr);
			goto fail;
		}
	}
	for (int p = 0; p < job->nparams; p++) {
		if (!job->param_set[p]) {
			snprintf(why, why_len, "job parameters are not numbered from 0 without gaps");
			goto fail;
		}
	}
	/* The engine may come after its settings in a frame: check once the frame is read. */
	if (is_mariadb(job) && check_mariadb(job, why, why_len) < 0)
		goto fail;
	if (job->engine && !is_mariadb(job) && (job->hidden_keys || job->sample_read)) {
		snprintf(why, why_len, "job keys hidden_keys and sample_read are only for engine mariadb");
		goto fail;
	}
	/*
	 * A write bounds its rows, and is one statement of its own: no cost, COPY, describe or formats; only a
	 * dry run takes a sample, and plan_sql (the plan it shows) only with one.
	 */
	if ((job->write != RUNNER_WRITE_NONE) != job->have_write_max ||
	    (!job->write && (job->write_check || job->returning || job->sample)) ||
	    (job->write && (job->describe || job->have_cost || job->plan_tables || job->copy_header || job->formats)) ||
	    (job->sample && (job->write != RUNNER_WRITE_DRY || job->returning)) ||
	    (job->write && job->plan_sql && !job->sample) ||
	    (job->sample_read && (job->write != RUNNER_WRITE_DRY || job->sample || job->write_check))) {
		snprintf(why, why_len,
			 "a write job takes write_max and none of describe, max_cost, plan_tables, copy_header and "
			 "formats; sample only for a dry run without returning, and plan_sql only with sample; "
			 "sample_read only for a dry run without sample or write_check");
		goto fail;
	}
	return 0;
fail:
	runner_job_free(job);
	return -1;
}

static void free_secret(char *p)
{
	if (p) {
		explicit_bzero(p, strlen(p));
		free(p);
	}
}

void runner_job_free(struct runner_job *job)
{
	size_t i;

	free(job->engine);
	free(job->dbname);
	free(job->user);
	free_secret(job->password);
	free(job->sql);
	free(job->timeout_text);
	free(job->plan_tables);
	free(job->formats);
	free(job->plan_sql);
	free(job->type_check);
	free(job->guard);
	free(job->hidden_keys);
	free(job->sample_read);
	free(job->tls);
	free(job->tls_host);
	free(job->scram_salt);
	free(job->scram_iterations);
	free_secret(job->scram_key);
	for (i = 0; i < job->nsets; i++) {
		free(job->set_names[i]);
		free(job->set_values[i]);
	}
	for (i = 0; i < RUNNER_JOB_MAX_PARAMS; i++)
		free(job->param_values[i]);
	memset(job, 0, sizeof(*job));
}
