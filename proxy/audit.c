/* audit: JSON lines through jansson, one per statement, flushed per line. */
#include "proxy/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

struct audit {
	FILE *out;
	int own;
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

void audit_record(struct audit *a, const struct audit_entry *e)
{
	struct timespec ts;
	char when[40], fp[20];
	struct tm tm;
	json_t *o;
	char *line;

	if (!a)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ", ts.tv_nsec / 1000000);
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
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (line) {
		fprintf(a->out, "%s\n", line);
		fflush(a->out);
		free(line);
	}
	json_decref(o);
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	if (a->own)
		fclose(a->out);
	free(a);
}
