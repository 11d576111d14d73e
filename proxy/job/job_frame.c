/*
 * job_frame: the 'P' and 'J' frames of a job (see job_frame.h). Every
 * value is a key/value pair of counted strings; a bound parameter is a
 * counted blob of flags (NULL, binary), type OID and value.
 */
#define _GNU_SOURCE
#include "proxy/job/job_frame.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

void job_frame_wipe(struct wbuf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->cap);
	wbuf_free(b);
}

static void job_put_pair(struct wbuf *b, const char *key, const char *value)
{
	frame_put_cstr(b, key);
	frame_put_cstr(b, value);
}

static void job_put_param(struct wbuf *b, size_t i, const struct job_param *p)
{
	char key[32];
	uint8_t flags = (p->value ? 0 : 1) | (p->binary ? 2 : 0);

	snprintf(key, sizeof(key), "param.%zu", i);
	frame_put_cstr(b, key);
	frame_put_u32(b, 5 + (p->value ? p->len : 0));
	frame_put_u8(b, flags);
	frame_put_u32(b, p->type_oid);
	if (p->value)
		frame_put_bytes(b, p->value, p->len);
}

int job_frame_job(struct wbuf *b, const struct job_request *req)
{
	char num[4][32];
	char key[96];
	bool cost = req->cost_check && req->limits->max_cost > 0;
	bool mem = req->limits->backend_memory_mb > 0;
	size_t npairs = 4 + (mem ? 1 : 0) + (cost ? 1 : 0) + (req->plan_tables ? 1 : 0) + (req->formats ? 1 : 0) +
			(req->describe ? 1 : 0) + (req->plan_sql ? 1 : 0) + (req->copy_header ? 1 : 0) +
			(req->type_check ? 1 : 0) + (req->guard ? 1 : 0) + (req->hidden_keys ? 1 : 0) + req->nsettings +
			req->nparams + (req->write ? 2 : 0) + (req->write_check ? 1 : 0) + (req->returning ? 1 : 0) +
			(req->sample ? 1 : 0) + (req->sample_read ? 1 : 0);

	if (npairs > FRAME_MAX_PAIRS)
		return -1;
	snprintf(num[0], sizeof(num[0]), "%u", req->limits->timeout_ms);
	snprintf(num[1], sizeof(num[1]), "%u", req->limits->max_rows);
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, req->limits->max_bytes);
	snprintf(num[3], sizeof(num[3]), "%u", req->limits->backend_memory_mb);
	wbuf_init(b);
	frame_begin(b, FRAME_JOB);
	frame_put_u16(b, (uint16_t)npairs);
	job_put_pair(b, "sql", req->sql);
	job_put_pair(b, "timeout_ms", num[0]);
	job_put_pair(b, "max_rows", num[1]);
	job_put_pair(b, "max_bytes", num[2]);
	if (mem)
		job_put_pair(b, "backend_memory_mb", num[3]);
	if (cost) {
		char c[32];

		snprintf(c, sizeof(c), "%" PRIu64, req->limits->max_cost);
		job_put_pair(b, "max_cost", c);
	}
	if (req->plan_tables)
		job_put_pair(b, "plan_tables", req->plan_tables);
	if (req->formats)
		job_put_pair(b, "formats", req->formats);
	if (req->describe)
		job_put_pair(b, "describe", "1");
	if (req->plan_sql)
		job_put_pair(b, "plan_sql", req->plan_sql);
	if (req->copy_header)
		job_put_pair(b, "copy_header", "1");
	if (req->type_check)
		job_put_pair(b, "type_check", req->type_check);
	if (req->guard)
		job_put_pair(b, "guard", req->guard);
	if (req->hidden_keys)
		job_put_pair(b, "hidden_keys", req->hidden_keys);
	if (req->write) {
		char m[32];

		snprintf(m, sizeof(m), "%" PRIu64, req->write_max);
		job_put_pair(b, "write", req->write == 1 ? "dry" : "run");
		job_put_pair(b, "write_max", m);
	}
	if (req->write_check)
		job_put_pair(b, "write_check", "1");
	if (req->returning)
		job_put_pair(b, "returning", "1");
	if (req->sample)
		job_put_pair(b, "sample", "1");
	if (req->sample_read)
		job_put_pair(b, "sample_read", req->sample_read);
	for (size_t i = 0; i < req->nsettings; i++) {
		snprintf(key, sizeof(key), "set.%s", req->settings[i].name);
		job_put_pair(b, key, req->settings[i].value);
	}
	for (size_t i = 0; i < req->nparams; i++)
		job_put_param(b, i, &req->params[i]);
	frame_end(b);
	return b->failed ? -1 : 0;
}

void job_frame_connect(struct wbuf *b, const struct airlock_target *t, const struct scram_salted *known, bool kept)
{
	/* A kept session's runner gets no password, and talks plain text to airlockd, which holds the TLS. */
	bool tls = config_target_tls(t) && !kept;
	char salt[SCRAM_SALT_B64_MAX], key[SCRAM_KEY_B64_LEN], iterations[16];
	bool scram = !kept && known && scram_salted_encode(known, salt, key) == 0;

	snprintf(iterations, sizeof(iterations), "%d", scram ? known->iterations : 0);
	wbuf_init(b);
	frame_begin(b, FRAME_CONNECT);
	frame_put_u16(b, (uint16_t)(4 + (tls ? 2 : 0) + (scram ? 3 : 0) + (kept ? 1 : 0)));
	job_put_pair(b, "engine", t->engine);
	job_put_pair(b, "dbname", t->database);
	job_put_pair(b, "user", t->user);
	job_put_pair(b, "password", kept ? "" : t->password);
	if (kept)
		job_put_pair(b, "kept", "1");
	if (tls) {
		job_put_pair(b, "tls", t->sslmode);
		job_put_pair(b, "tls_host", t->host);
	}
	if (scram) {
		job_put_pair(b, "scram_salt", salt);
		job_put_pair(b, "scram_iterations", iterations);
		job_put_pair(b, "scram_key", key);
	}
	frame_end(b);
	OPENSSL_cleanse(key, sizeof(key));
}
