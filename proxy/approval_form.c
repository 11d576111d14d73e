#define _GNU_SOURCE
#include "proxy/approval_form.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

void approval_form_free(struct approval_form_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].value)
			explicit_bzero(f[i].value, strlen(f[i].value));
		free(f[i].value);
		f[i].value = NULL;
	}
}

/* Every % starts two hex digits (libevent's decoder keeps a stray % as it is; we refuse it). */
static bool escapes_ok(const char *s)
{
	for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
		if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]))
			return false;
	return true;
}

enum approval_form_result approval_form_parse(const char *body, size_t len, struct approval_form_field *f, size_t n)
{
	enum approval_form_result r = APPROVAL_FORM_OK;
	struct evkeyvalq q;
	struct evkeyval *kv;
	char *copy;

	if (len > APPROVAL_FORM_MAX)
		return APPROVAL_FORM_TOO_LONG;
	if (memchr(body, '\0', len))
		return APPROVAL_FORM_MALFORMED;
	if (!(copy = malloc(len + 1)))
		return APPROVAL_FORM_NO_MEMORY;
	memcpy(copy, body, len);
	copy[len] = '\0';
	/* A NUL as %00 would cut a value short once decoded. */
	if (strstr(copy, "%00") || !escapes_ok(copy)) {
		r = APPROVAL_FORM_MALFORMED;
		goto out_free_copy;
	}
	/* The form encoding's spaces; a literal + arrives as %2B. */
	for (char *p = copy; *p; p++)
		if (*p == '+')
			*p = ' ';
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(copy, &q) != 0) {
		r = APPROVAL_FORM_MALFORMED;
		goto out_clear;
	}
	TAILQ_FOREACH(kv, &q, next)
	{
		size_t i;

		for (i = 0; i < n && strcmp(f[i].name, kv->key) != 0; i++)
			;
		if (i == n || f[i].value || strlen(kv->value) > f[i].max) {
			r = APPROVAL_FORM_MALFORMED;
			break;
		}
		if (!(f[i].value = strdup(kv->value))) {
			r = APPROVAL_FORM_NO_MEMORY;
			break;
		}
	}
	TAILQ_FOREACH(kv, &q, next)
	if (kv->value)
		explicit_bzero(kv->value, strlen(kv->value));
out_clear:
	evhttp_clear_headers(&q);
out_free_copy:
	explicit_bzero(copy, len);
	free(copy);
	if (r != APPROVAL_FORM_OK)
		approval_form_free(f, n);
	return r;
}
