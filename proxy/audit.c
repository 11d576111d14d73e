/* audit: JSON lines through jansson, one per statement or failed login, flushed per line. */
#include "proxy/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "proxy/stats.h"

struct audit {
	FILE *out;
	int own;
	struct stats *stats; /* borrowed (audit_count_approvals); NULL: not counted */
};

struct audit *audit_open(const char *path)
{
	struct audit *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (!strcmp(path, "-")) {
		a->out = stderr;
	} else {
		a->out = fopen(path, "a");
		if (!a->out) {
			free(a);
			return NULL;
		}
		a->own = 1;
	}
	return a;
}

/* The current time as ISO 8601 UTC with milliseconds. */
static void audit_now(char when[40])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), 40 - strlen(when), ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Writes o as one line and releases it. */
static void audit_write(struct audit *a, json_t *o)
{
	char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (line) {
		fprintf(a->out, "%s\n", line);
		fflush(a->out);
		free(line);
	}
	json_decref(o);
}

void audit_login_failed(struct audit *a, const char *user, uint32_t session, const char *protocol, const char *client,
			const char *sqlstate, uint32_t wait_ms)
{
	char when[40], ascii[256];
	json_t *o, *name;
	size_t i;

	if (!a)
		return;
	audit_now(when);
	/* A name that is not UTF-8 is still recorded, its other bytes as '?'. */
	name = json_string(user);
	if (!name) {
		for (i = 0; user[i] && i + 1 < sizeof(ascii); i++)
			ascii[i] = (unsigned char)user[i] < 0x80 ? user[i] : '?';
		ascii[i] = '\0';
		name = json_string(ascii);
	}
	o = json_pack("{s:s, s:o, s:I, s:s, s:s, s:s, s:s, s:I}", "ts", when, "user", name, "session",
		      (json_int_t)session, "decision", "login_failed", "protocol", protocol, "client", client,
		      "sqlstate", sqlstate, "wait_ms", (json_int_t)wait_ms);
	if (o)
		audit_write(a, o);
}

void audit_count_approvals(struct audit *a, struct stats *st)
{
	if (a)
		a->stats = st;
}

void audit_record(struct audit *a, const struct audit_entry *e)
{
	char when[40], fp[20];
	json_t *o;

	if (!a)
		return;
	if (e->approval)
		stats_approval(a->stats, e->decision);
	audit_now(when);
	snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)e->fingerprint);
	o = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:f}", "ts", when, "user", e->user ? e->user : "", "session",
		      (json_int_t)e->session, "fingerprint", fp, "decision", e->decision, "rows", (json_int_t)e->rows,
		      "bytes", (json_int_t)e->bytes, "ms", e->ms);
	if (!o)
		return;
	if (e->sqlstate)
		json_object_set_new(o, "sqlstate", json_string(e->sqlstate));
	if (e->code != AIRLOCK_E_NONE)
		json_object_set_new(o, "code", json_string(airlock_err_name(e->code)));
	if (e->truncated)
		json_object_set_new(o, "truncated", json_string(e->truncated == 1 ? "max_rows" : "max_bytes"));
	if (e->approval)
		json_object_set_new(o, "approval", json_string(e->approval));
	if (e->by)
		json_object_set_new(o, "by", json_string(e->by));
	if (e->reason && e->reason[0])
		json_object_set_new(o, "reason", json_string(e->reason));
	audit_write(a, o);
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	if (a->own)
		fclose(a->out);
	free(a);
}
