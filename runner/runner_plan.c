/*
 * runner_plan: see runner_plan.h.
 */
#include "runner/runner_plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Postgres names are at most 63 bytes; a longer one is not a name this plan can hold. */
#define NAME_MAX_BYTES 64
/* Deeper nesting than any plan: refused rather than tracked. */
#define MAX_DEPTH 256

struct scan {
	const char *p, *end;
};

/*
 * Reads a JSON string at s->p (the opening quote) into buf (cap bytes,
 * NUL-terminated); false when it is malformed, unterminated or too long
 * (too long is fine when buf is NULL: the value is skipped).
 */
static bool read_string(struct scan *s, char *buf, size_t cap)
{
	size_t n = 0;

	s->p++;
	while (s->p < s->end) {
		char c = *s->p++;

		if (c == '"') {
			if (buf)
				buf[n] = '\0';
			return true;
		}
		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\') {
			if (s->p >= s->end)
				return false;
			c = *s->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				c = '?'; /* control characters never appear in a name we accept */
				break;
			case 'u':
				if (s->end - s->p < 4)
					return false;
				for (int i = 0; i < 4; i++) {
					char h = s->p[i];

					if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
					      (h >= 'A' && h <= 'F')))
						return false;
				}
				s->p += 4;
				c = '?';
				break;
			default:
				return false;
			}
		}
		if (buf) {
			if (n + 1 >= cap)
				return false;
			buf[n++] = c;
		}
	}
	return false;
}

static void skip_space(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

static bool allowed_name(const char *allowed, const char *schema, const char *rel)
{
	size_t slen = strlen(schema), rlen = strlen(rel);
	const char *e = allowed;

	while (e && *e) {
		const char *comma = strchr(e, ','), *stop = comma ? comma : e + strlen(e);
		size_t n;

		while (e < stop && *e == ' ')
			e++;
		n = (size_t)(stop - e);
		if (n > slen + 1 && memcmp(e, schema, slen) == 0 && e[slen] == '.') {
			const char *t = e + slen + 1;
			size_t tlen = n - slen - 1;

			if ((tlen == 1 && t[0] == '*') || (tlen == rlen && memcmp(t, rel, rlen) == 0))
				return true;
		}
		e = comma ? comma + 1 : NULL;
	}
	return false;
}

enum runner_plan_verdict runner_plan_check(const char *json, size_t len, const char *allowed, char *outside, size_t cap)
{
	struct scan s = {.p = json, .end = json + len};
	/* The relation of the object at each depth, waiting for its "Schema". */
	char rel[NAME_MAX_BYTES], key[32];
	int depth = 0, rel_depth = -1;
	bool want_rel = false, want_schema = false;

	if (!json || !allowed)
		return RUNNER_PLAN_UNREAD;
	while (s.p < s.end) {
		char c;

		skip_space(&s);
		if (s.p >= s.end)
			break;
		c = *s.p;
		if (c == '{' || c == '[') {
			if (++depth > MAX_DEPTH)
				return RUNNER_PLAN_UNREAD;
			s.p++;
		} else if (c == '}' || c == ']') {
			if (c == '}' && rel_depth == depth)
				return RUNNER_PLAN_UNREAD; /* a relation without its schema */
			if (--depth < 0)
				return RUNNER_PLAN_UNREAD;
			s.p++;
		} else if (c == '"') {
			char value[NAME_MAX_BYTES];
			const char *start = s.p;

			if (want_rel || want_schema) {
				if (!read_string(&s, value, sizeof(value)))
					return RUNNER_PLAN_UNREAD;
				if (want_rel) {
					memcpy(rel, value, sizeof(rel));
					rel_depth = depth;
				} else {
					if (!allowed_name(allowed, value, rel)) {
						if (outside)
							snprintf(outside, cap, "%s.%s", value, rel);
						return RUNNER_PLAN_OUTSIDE;
					}
					rel_depth = -1;
				}
				want_rel = want_schema = false;
				continue;
			}
			if (!read_string(&s, key, sizeof(key))) {
				/* Not a key we look for (long, or a value): skip it whole. */
				s.p = start;
				if (!read_string(&s, NULL, 0))
					return RUNNER_PLAN_UNREAD;
				key[0] = '\0';
			}
			skip_space(&s);
			if (s.p < s.end && *s.p == ':') {
				s.p++;
				skip_space(&s);
				if (strcmp(key, "Relation Name") == 0) {
					if (rel_depth == depth || s.p >= s.end || *s.p != '"')
						return RUNNER_PLAN_UNREAD;
					want_rel = true;
				} else if (strcmp(key, "Schema") == 0 && rel_depth == depth) {
					if (s.p >= s.end || *s.p != '"')
						return RUNNER_PLAN_UNREAD;
					want_schema = true;
				}
			}
		} else {
			/* Numbers, true, false, null, ',' and ':' between values. */
			s.p++;
		}
	}
	if (depth != 0 || rel_depth >= 0 || want_rel || want_schema)
		return RUNNER_PLAN_UNREAD;
	return RUNNER_PLAN_ALLOWED;
}
