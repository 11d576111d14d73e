/* audit_verify: the first broken link of an audit log's hash chain, or none. */
#include "proxy/audit_verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define READ_CHUNK 65536

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

enum audit_verify_result audit_verify_file(struct audit_verify *v, FILE *f)
{
	char *chunk = malloc(READ_CHUNK), *line = malloc(AUDIT_VERIFY_LINE_MAX);
	enum audit_verify_result r = AUDIT_VERIFY_INTACT;
	size_t n = 0, got;

	if (!chunk || !line) {
		snprintf(v->msg, sizeof(v->msg), "%s", strerror(ENOMEM));
		r = AUDIT_VERIFY_IO;
		goto out_free;
	}
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
out_free:
	free(line);
	free(chunk);
	return r;
}
