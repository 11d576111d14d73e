/*
 * approval_record: the column table every store is made from, and the
 * checks of a new record (approval_record.h).
 */
#include "approval/approval_record.h"

#include <jansson.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const struct record_column record_columns[RECORD_COL_COUNT] = {
#define RECORD_ROW(name, kind, max) {#name, RECORD_##kind, offsetof(struct approval, name), max},
	APPROVAL_RECORD_COLUMNS(RECORD_ROW)
#undef RECORD_ROW
};

static enum approval_result refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum approval_result refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return APPROVAL_INVALID;
}

/* The text member c of a (borrowed): "" for NULL; false when it passes c->max bytes. */
bool record_text(const struct approval *a, const struct record_column *c, const char **v, size_t *n)
{
	const char *p = *(char *const *)((const char *)a + c->offset);

	*v = p ? p : "";
	*n = strnlen(*v, c->max + 1);
	return *n <= c->max;
}

/* Bound values: a JSON array whose elements are strings or null. */
static bool params_valid(const char *v, size_t n)
{
	json_error_t jerr;
	json_t *j = json_loadb(v, n, 0, &jerr);
	json_t *e;
	size_t i;
	bool ok;

	if (!j)
		return false;
	ok = json_is_array(j);
	json_array_foreach(j, i, e)
	{
		if (!json_is_string(e) && !json_is_null(e))
			ok = false;
	}
	json_decref(j);
	return ok;
}

/* Settings: "" (none) or a JSON object of strings. */
static bool settings_valid(const char *v, size_t n)
{
	json_t *j, *e;
	const char *k;
	bool ok;

	if (n == 0)
		return true;
	j = json_loadb(v, n, JSON_REJECT_DUPLICATES, NULL);
	ok = json_is_object(j);
	json_object_foreach(j, k, e)
	{
		if (!json_is_string(e))
			ok = false;
	}
	json_decref(j);
	return ok;
}

/* Parameter types: "" (none) or a JSON array of type OIDs (0 to 2^32 - 1). */
static bool types_valid(const char *v, size_t n)
{
	json_t *j, *e;
	size_t i;
	bool ok;

	if (n == 0)
		return true;
	j = json_loadb(v, n, 0, NULL);
	ok = json_is_array(j);
	json_array_foreach(j, i, e)
	{
		if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 0xFFFFFFFFLL)
			ok = false;
	}
	json_decref(j);
	return ok;
}

/* Any JSON value. */
static bool json_valid(const char *v, size_t n)
{
	json_error_t jerr;
	json_t *j = json_loadb(v, n, JSON_DECODE_ANY, &jerr);

	json_decref(j);
	return j != NULL;
}

enum approval_result record_check_new(const struct approval *a, char *err, size_t errlen)
{
	const char *v;
	size_t n;

	if (!a)
		return refuse(err, errlen, "no record given");
	if (!memchr(a->id, '\0', sizeof(a->id)) || !approval_id_valid(a->id))
		return refuse(err, errlen, "a record with a malformed id");
	if (a->status != APPROVAL_PENDING)
		return refuse(err, errlen, "record %s: a new record must be pending", a->id);
	if (a->approvals_needed != 1 && a->approvals_needed != 2)
		return refuse(err, errlen, "record %s: approvals_needed must be 1 or 2", a->id);
	if (a->rows < 0 || a->created_at < 0 || a->expires_at < a->created_at)
		return refuse(err, errlen,
			      "record %s: rows and created_at must not be negative, nor expires_at before created_at",
			      a->id);
	if (a->executed_rows != -1 || a->decided_at != 0)
		return refuse(err, errlen, "record %s: a new record has executed_rows -1 and decided_at 0", a->id);
	for (size_t i = 0; i < RECORD_COL_COUNT; i++) {
		const struct record_column *c = &record_columns[i];

		if (c->kind == RECORD_TEXT && !record_text(a, c, &v, &n))
			return refuse(err, errlen, "record %s: %s is longer than %zu bytes", a->id, c->name, c->max);
	}
	record_text(a, &record_columns[RECORD_COL_approved_by], &v, &n);
	if (n != 0)
		return refuse(err, errlen, "record %s: a new record has no approvers yet", a->id);
	record_text(a, &record_columns[RECORD_COL_decided_by], &v, &n);
	if (n != 0)
		return refuse(err, errlen, "record %s: a new record has no decider yet", a->id);
	record_text(a, &record_columns[RECORD_COL_result], &v, &n);
	if (n != 0)
		return refuse(err, errlen, "record %s: a new record has no result yet", a->id);
	record_text(a, &record_columns[RECORD_COL_params], &v, &n);
	if (!params_valid(v, n))
		return refuse(err, errlen, "record %s: params is not a JSON array of strings and nulls", a->id);
	record_text(a, &record_columns[RECORD_COL_sample], &v, &n);
	if (!json_valid(v, n))
		return refuse(err, errlen, "record %s: sample is not JSON", a->id);
	record_text(a, &record_columns[RECORD_COL_settings], &v, &n);
	if (!settings_valid(v, n))
		return refuse(err, errlen, "record %s: settings is not a JSON object of strings", a->id);
	record_text(a, &record_columns[RECORD_COL_param_types], &v, &n);
	if (!types_valid(v, n))
		return refuse(err, errlen, "record %s: param_types is not a JSON array of type OIDs", a->id);
	return APPROVAL_OK;
}
