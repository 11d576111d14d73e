/* audit_verify: the first broken link of an audit log's hash chain, or none. */
#include "proxy/audit_verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define READ_CHUNK 16384
#define LINE_FIRST 4096

void audit_verify_init(struct audit_verify *v)
{
	memcpy(v->prev, audit_chain_zero, sizeof(v->prev));
	v->lines = 0;
	v->msg[0] = '\0';
}

static bool is_hash(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == AUDIT_CHAIN_HEX;
}

/* The reason a line that parses is not a link of the chain, or NULL. */
static const char *bad_prev(json_t *o, const char **prev)
{
	json_t *p;

	if (!json_is_object(o))
		return "not a JSON record";
	p = json_object_get(o, "prev");
	if (!p)
		return "the record has no \"prev\"";
	if (!json_is_string(p) || !is_hash(json_string_value(p)))
		return "\"prev\" is not 64 lowercase hex digits";
	*prev = json_string_value(p);
	return NULL;
}

bool audit_verify_line(struct audit_verify *v, const char *line, size_t len)
{
	uint64_t at = v->lines + 1;
	const char *why, *prev = NULL;
	json_error_t err;
	json_t *o;
	bool ok = false;

	if (len == 0) {
		snprintf(v->msg, sizeof(v->msg), "%" PRIu64 ": an empty line, not a JSON record", at);
		return false;
	}
	/* A repeated key could hide a second "prev": refused. */
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	why = o ? bad_prev(o, &prev) : "not a JSON record";
	if (why) {
		snprintf(v->msg, sizeof(v->msg), "%" PRIu64 ": %s", at, why);
	} else if (strcmp(prev, v->prev) != 0) {
		snprintf(v->msg, sizeof(v->msg),
			 "%" PRIu64 ": broken link: prev is %s, the previous record hashes to %s", at, prev, v->prev);
	} else if (!audit_chain_hash(line, len, v->prev)) {
		snprintf(v->msg, sizeof(v->msg), "%" PRIu64 ": cannot hash the record (OpenSSL failed)", at);
	} else {
		v->lines = at;
		ok = true;
	}
	json_decref(o);
	return ok;
}

/*
 * Room for need bytes (at most AUDIT_VERIFY_LINE_MAX + 1) in *line, grown
 * by doubling: most lines are a few hundred bytes. False when out of memory.
 */
static bool room(char **line, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : LINE_FIRST;
	char *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n = n > AUDIT_VERIFY_LINE_MAX / 2 ? AUDIT_VERIFY_LINE_MAX + 1 : n * 2;
	p = realloc(*line, n);
	if (!p)
		return false;
	*line = p;
	*cap = n;
	return true;
}

enum audit_verify_result audit_verify_file(struct audit_verify *v, FILE *f)
{
	char *chunk = malloc(READ_CHUNK), *line = NULL;
	enum audit_verify_result r = AUDIT_VERIFY_INTACT;
	size_t n = 0, cap = 0, got;

	if (!chunk)
		goto out_nomem;
	while (r == AUDIT_VERIFY_INTACT && (got = fread(chunk, 1, READ_CHUNK, f)) > 0) {
		const char *p = chunk, *end = chunk + got;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t seg = (size_t)((nl ? nl : end) - p);

			if (seg > AUDIT_VERIFY_LINE_MAX - n) {
				snprintf(v->msg, sizeof(v->msg),
					 "%" PRIu64 ": a line longer than %d bytes, not a record", v->lines + 1,
					 AUDIT_VERIFY_LINE_MAX);
				r = AUDIT_VERIFY_BROKEN;
				break;
			}
			if (!room(&line, &cap, n + seg + 1)) /* + 1: never NULL, even for an empty line */
				goto out_nomem;
			memcpy(line + n, p, seg);
			n += seg;
			p += seg;
			if (!nl)
				break;
			p++;
			if (!audit_verify_line(v, line, n)) {
				r = AUDIT_VERIFY_BROKEN;
				break;
			}
			n = 0;
		}
	}
	if (r == AUDIT_VERIFY_INTACT && ferror(f)) {
		snprintf(v->msg, sizeof(v->msg), "%s", strerror(errno ? errno : EIO));
		r = AUDIT_VERIFY_IO;
	} else if (r == AUDIT_VERIFY_INTACT && n > 0) {
		snprintf(v->msg, sizeof(v->msg), "%" PRIu64 ": the last line has no newline: a write was cut short",
			 v->lines + 1);
		r = AUDIT_VERIFY_BROKEN;
	}
	goto out_free;
out_nomem:
	snprintf(v->msg, sizeof(v->msg), "%s", strerror(ENOMEM));
	r = AUDIT_VERIFY_IO;
out_free:
	free(line);
	free(chunk);
	return r;
}
