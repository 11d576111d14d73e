#include "approval/approval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "base/name_table.h"

static const char *const status_names[] = {
	[APPROVAL_PENDING] = "pending",   [APPROVAL_APPROVED] = "approved", [APPROVAL_RUNNING] = "running",
	[APPROVAL_EXECUTED] = "executed", [APPROVAL_REJECTED] = "rejected", [APPROVAL_EXPIRED] = "expired",
	[APPROVAL_DRIFTED] = "drifted",   [APPROVAL_FAILED] = "failed",
};

const char *approval_status_name(enum approval_status s)
{
	return (size_t)s < NAME_TABLE_LEN(status_names) ? status_names[s] : NULL;
}

bool approval_status_parse(const char *name, enum approval_status *out)
{
	for (size_t i = 0; name && i < NAME_TABLE_LEN(status_names); i++) {
		if (strcmp(status_names[i], name) == 0) {
			*out = (enum approval_status)i;
			return true;
		}
	}
	return false;
}

bool approval_status_final(enum approval_status s)
{
	return s == APPROVAL_EXECUTED || s == APPROVAL_REJECTED || s == APPROVAL_EXPIRED || s == APPROVAL_DRIFTED ||
	       s == APPROVAL_FAILED;
}

/* RFC 4648's base32 alphabet, lower case: no look-alike pairs a person reads out wrong but 0/o, 1/l, absent. */
static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

void approval_time_sql(int64_t ms, const char *suffix, char *out, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 0 || !gmtime_r(&t, &tm)) {
		out[0] = '\0';
		return;
	}
	snprintf(out, len, "%04d-%02d-%02d %02d:%02d:%02d.%03d%s", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000), suffix);
}

bool approval_new_id(char out[APPROVAL_ID_LEN + 1])
{
	unsigned char r[APPROVAL_ID_LEN - 1];

	if (RAND_bytes(r, sizeof(r)) != 1)
		return false;
	out[0] = 'w';
	for (size_t i = 0; i < sizeof(r); i++)
		out[i + 1] = b32[r[i] & 31];
	out[APPROVAL_ID_LEN] = '\0';
	return true;
}

bool approval_id_valid(const char *id)
{
	if (!id || id[0] != 'w' || strlen(id) != APPROVAL_ID_LEN)
		return false;
	for (size_t i = 1; i < APPROVAL_ID_LEN; i++) {
		if (!strchr(b32, id[i]) || id[i] == '\0')
			return false;
	}
	return true;
}

void approval_free(struct approval *a)
{
	if (!a)
		return;
	free(a->user);
	free(a->protocol);
	free(a->client_addr);
	free(a->application_name);
	free(a->statement);
	free(a->params);
	free(a->rewritten);
	free(a->plan);
	free(a->sample);
	free(a->approved_by);
	free(a->decided_by);
	free(a->reason);
	free(a->policy_checksum);
	free(a->settings);
	free(a->param_types);
	free(a->result);
	memset(a, 0, sizeof(*a));
}
