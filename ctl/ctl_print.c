/*
 * ctl_print: see ctl_print.h. A reply is parsed once with jansson
 * (duplicate keys refused, \u0000 kept so it can be shown marked) and
 * checked for the fields every record has (id, user, statement as
 * strings, rows as an integer); the other fields are shown as "?" when
 * missing or of another type.
 */
#include "ctl/ctl_print.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"
#include "ctl/ctl_api.h"

#define LABEL_WIDTH 13                  /* the widest label, "executed rows" */
#define VALUE_INDENT "                " /* 2 + LABEL_WIDTH + 1: the value column */
#define MESSAGE_MAX 1024                /* most bytes of a server's error message shown */

static const char warning[] = "this write holds control, bidirectional or invisible characters, or bytes that "
			      "are not UTF-8; they are shown as <U+XXXX> and <\\xNN>";

static bool fail(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	return false;
}

/* A JSON string's bytes (it may hold NUL); "" and false when v is not a string. */
static bool string_of(json_t *v, const char **s, size_t *len)
{
	if (!json_is_string(v)) {
		*s = "";
		*len = 0;
		return false;
	}
	*s = json_string_value(v);
	*len = json_string_length(v);
	return true;
}

static bool record_ok(json_t *rec)
{
	return json_is_object(rec) && json_is_string(json_object_get(rec, "id")) &&
	       json_is_string(json_object_get(rec, "user")) && json_is_string(json_object_get(rec, "statement")) &&
	       json_is_integer(json_object_get(rec, "rows"));
}

/* body parsed as shape; NULL with err set when it is not the API's. The caller json_decrefs it. */
static json_t *load(const char *body, size_t len, enum ctl_shape shape, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	size_t i;
	json_t *rec;

	if (!root) {
		fail(err, errlen, "the server's reply is not JSON");
		return NULL;
	}
	if (shape == CTL_SHAPE_RECORD && !record_ok(root)) {
		fail(err, errlen, "the server's reply is not a record of a write");
		goto bad;
	}
	if (shape == CTL_SHAPE_LIST && !json_is_array(root)) {
		fail(err, errlen, "the server's reply is not a list of writes");
		goto bad;
	}
	if (shape == CTL_SHAPE_LIST) {
		json_array_foreach(root, i, rec)
		{
			if (!record_ok(rec)) {
				fail(err, errlen, "the server's reply is not a list of writes");
				goto bad;
			}
		}
	}
	return root;
bad:
	json_decref(root);
	return NULL;
}

bool ctl_print_json(struct wbuf *out, const char *body, size_t len, enum ctl_shape shape, char *err, size_t errlen)
{
	json_t *root;

	if (approval_text_suspicious(body, len))
		return fail(err, errlen,
			    "the server's reply holds a raw control or invisible character, or bytes "
			    "that are not UTF-8");
	root = load(body, len, shape, err, errlen);
	if (!root)
		return false;
	json_decref(root);
	wbuf_put_bytes(out, body, len);
	if (len == 0 || body[len - 1] != '\n')
		wbuf_put_str(out, "\n");
	return out->failed ? fail(err, errlen, "out of memory") : true;
}

/* s (len bytes) escaped, each of its later lines indented to the value column. */
static void put_value(struct wbuf *out, const char *s, size_t len)
{
	const char *nl;

	while ((nl = memchr(s, '\n', len))) {
		approval_terminal_text(out, s, (size_t)(nl - s));
		wbuf_put_str(out, "\n" VALUE_INDENT);
		len -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	approval_terminal_text(out, s, len);
}

static void put_label(struct wbuf *out, const char *label)
{
	char pad[2 + LABEL_WIDTH + 2];

	snprintf(pad, sizeof(pad), "  %-*s ", LABEL_WIDTH, label);
	wbuf_put_str(out, pad);
}

/* A line "label  value" of our own text (not escaped). */
static void put_plain(struct wbuf *out, const char *label, const char *value)
{
	put_label(out, label);
	wbuf_put_str(out, value);
	wbuf_put_str(out, "\n");
}

/* A line of the record's string key; "(none)" when it is "", "?" when it is not a string. */
static void put_text(struct wbuf *out, json_t *rec, const char *label, const char *key)
{
	const char *s;
	size_t len;

	put_label(out, label);
	if (!string_of(json_object_get(rec, key), &s, &len))
		wbuf_put_str(out, "?");
	else if (len == 0)
		wbuf_put_str(out, "(none)");
	else
		put_value(out, s, len);
	wbuf_put_str(out, "\n");
}

/* The record's integer key; false when it is not an integer. */
static bool int_of(json_t *rec, const char *key, long long *v)
{
	json_t *j = json_object_get(rec, key);

	*v = json_is_integer(j) ? (long long)json_integer_value(j) : 0;
	return json_is_integer(j);
}

static void put_int(struct wbuf *out, json_t *rec, const char *label, const char *key)
{
	char num[32];
	long long v;

	if (int_of(rec, key, &v))
		snprintf(num, sizeof(num), "%lld", v);
	else
		snprintf(num, sizeof(num), "?");
	put_plain(out, label, num);
}

void ctl_print_time(char *buf, size_t buflen, long long ms)
{
	struct tm tm;
	time_t t = (time_t)(ms / 1000);

	if (ms < 0 || !gmtime_r(&t, &tm) || tm.tm_year > 9999 - 1900 ||
	    strftime(buf, buflen, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, buflen, "%lld", ms);
}

/* A time key; "(none)" for 0 (not yet). */
static void put_time(struct wbuf *out, json_t *rec, const char *label, const char *key)
{
	char when[64];
	long long ms;

	if (!int_of(rec, key, &ms))
		snprintf(when, sizeof(when), "?");
	else if (ms == 0)
		snprintf(when, sizeof(when), "(none)");
	else
		ctl_print_time(when, sizeof(when), ms);
	put_plain(out, label, when);
}

/* The server flagged the record, or one of its strings holds a marked character. */
static bool record_suspicious(json_t *rec)
{
	const char *key, *s;
	json_t *v;
	size_t len;

	if (json_is_true(json_object_get(rec, "suspicious")))
		return true;
	json_object_foreach(rec, key, v)
	{
		if (string_of(v, &s, &len) && approval_text_suspicious(s, len))
			return true;
	}
	return false;
}

/* The id alone on its line, then the warning when the record is suspicious. */
static void put_head(struct wbuf *out, json_t *rec)
{
	const char *id;
	size_t len;

	string_of(json_object_get(rec, "id"), &id, &len);
	put_value(out, id, len);
	wbuf_put_str(out, "\n");
	if (record_suspicious(rec))
		put_plain(out, "!! WARNING", warning);
}

/* What the listing and show share. */
static void put_summary(struct wbuf *out, json_t *rec)
{
	put_text(out, rec, "user", "user");
	put_time(out, rec, "when", "created_at");
	put_int(out, rec, "rows", "rows");
	put_text(out, rec, "application", "application_name");
	put_text(out, rec, "client", "client_addr");
	put_text(out, rec, "statement", "statement");
}

/* "N of M (names)": the approvals so far of the approvals needed. */
static void put_approvals(struct wbuf *out, json_t *rec)
{
	const char *by;
	size_t len, n = 0;
	long long needed;
	char count[64];

	string_of(json_object_get(rec, "approved_by"), &by, &len);
	for (size_t i = 0; i < len; i++)
		n += i == 0 || by[i] == ',';
	if (int_of(rec, "approvals_needed", &needed))
		snprintf(count, sizeof(count), "%zu of %lld", n, needed);
	else
		snprintf(count, sizeof(count), "%zu of ?", n);
	put_label(out, "approvals");
	wbuf_put_str(out, count);
	if (len) {
		wbuf_put_str(out, " (");
		put_value(out, by, len);
		wbuf_put_str(out, ")");
	}
	wbuf_put_str(out, "\n");
}

static void put_executed(struct wbuf *out, json_t *rec)
{
	char rows[32];
	long long n;

	if (!int_of(rec, "executed_rows", &n))
		snprintf(rows, sizeof(rows), "?");
	else if (n < 0)
		snprintf(rows, sizeof(rows), "(not run)");
	else
		snprintf(rows, sizeof(rows), "%lld", n);
	put_plain(out, "executed rows", rows);
}

bool ctl_print_list(struct wbuf *out, const char *body, size_t len, enum approval_status status, char *err,
		    size_t errlen)
{
	json_t *root = load(body, len, CTL_SHAPE_LIST, err, errlen);
	const char *name = approval_status_name(status);
	json_t *rec;
	size_t i;

	if (!root)
		return false;
	if (json_array_size(root) == 0) {
		wbuf_put_str(out, "no ");
		wbuf_put_str(out, name ? name : "such");
		wbuf_put_str(out, " writes\n");
	}
	json_array_foreach(root, i, rec)
	{
		wbuf_put_str(out, i ? "\n" : "");
		put_head(out, rec);
		put_summary(out, rec);
	}
	json_decref(root);
	return out->failed ? fail(err, errlen, "out of memory") : true;
}

/* One value of a sample row: its text escaped, NULL for null. */
static void put_cell(struct wbuf *out, json_t *v)
{
	const char *s;
	size_t len;

	if (string_of(v, &s, &len))
		put_value(out, s, len);
	else
		wbuf_put_str(out, json_is_null(v) ? "NULL" : "?");
}

static bool same_cell(json_t *a, json_t *b)
{
	return (json_is_null(a) && json_is_null(b)) ||
	       (json_is_string(a) && json_is_string(b) && json_string_length(a) == json_string_length(b) &&
		memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0);
}

/*
 * One row the write touches, on its own line: "- col=value, ..." as it was
 * (DELETE), "+ col=value, ..." as it will be (INSERT), and for an UPDATE
 * every column, a changed one as "col: old -> new".
 */
static void put_sample_row(struct wbuf *out, json_t *columns, json_t *row)
{
	json_t *before = json_object_get(row, "before"), *after = json_object_get(row, "after");
	json_t *col;
	const char *name;
	size_t i, len;

	wbuf_put_str(out, VALUE_INDENT);
	wbuf_put_str(out, json_is_array(before) && json_is_array(after) ? "~ " : json_is_array(before) ? "- " : "+ ");
	json_array_foreach(columns, i, col)
	{
		json_t *b = json_array_get(before, i), *a = json_array_get(after, i);

		wbuf_put_str(out, i ? ", " : "");
		if (string_of(col, &name, &len))
			put_value(out, name, len);
		if (json_is_array(before) && json_is_array(after) && !same_cell(b, a)) {
			wbuf_put_str(out, ": ");
			put_cell(out, b);
			wbuf_put_str(out, " -> ");
			put_cell(out, a);
		} else {
			wbuf_put_str(out, "=");
			put_cell(out, json_is_array(before) ? b : a);
		}
	}
	wbuf_put_str(out, "\n");
}

/* The dry run's sample: how many rows it shows, then each. */
static void put_sample(struct wbuf *out, json_t *rec)
{
	json_t *sample = json_object_get(rec, "sample"), *rows = json_object_get(sample, "rows");
	json_t *columns = json_object_get(sample, "columns"), *row;
	char line[96];
	size_t i;

	if (!json_is_array(rows) || !json_is_array(columns) || json_array_size(rows) == 0) {
		put_plain(out, "sample", "(none)");
		return;
	}
	snprintf(line, sizeof(line), "%zu rows as the dry run changed them%s", json_array_size(rows),
		 json_is_true(json_object_get(sample, "truncated")) ? " (more not shown)" : "");
	put_plain(out, "sample", line);
	json_array_foreach(rows, i, row) put_sample_row(out, columns, row);
}

bool ctl_print_record(struct wbuf *out, const char *body, size_t len, char *err, size_t errlen)
{
	json_t *rec = load(body, len, CTL_SHAPE_RECORD, err, errlen);

	if (!rec)
		return false;
	put_head(out, rec);
	put_text(out, rec, "status", "status");
	put_summary(out, rec);
	put_text(out, rec, "rewritten", "rewritten");
	put_text(out, rec, "params", "params");
	put_text(out, rec, "plan", "plan");
	put_sample(out, rec);
	put_text(out, rec, "protocol", "protocol");
	put_time(out, rec, "expires", "expires_at");
	put_approvals(out, rec);
	put_text(out, rec, "decided by", "decided_by");
	put_time(out, rec, "decided at", "decided_at");
	put_text(out, rec, "reason", "reason");
	put_executed(out, rec);
	json_decref(rec);
	return out->failed ? fail(err, errlen, "out of memory") : true;
}

bool ctl_print_decision(struct wbuf *out, const char *body, size_t len, char *err, size_t errlen)
{
	json_t *rec = load(body, len, CTL_SHAPE_RECORD, err, errlen);
	const char *status, *reason;
	size_t status_len, reason_len;

	if (!rec)
		return false;
	string_of(json_object_get(rec, "status"), &status, &status_len);
	string_of(json_object_get(rec, "reason"), &reason, &reason_len);
	put_head(out, rec);
	put_text(out, rec, "status", "status");
	if (status_len == 7 && memcmp(status, "pending", 7) == 0)
		put_approvals(out, rec);
	if (status_len == 8 && memcmp(status, "executed", 8) == 0)
		put_executed(out, rec);
	if (reason_len)
		put_text(out, rec, "reason", "reason");
	json_decref(rec);
	return out->failed ? fail(err, errlen, "out of memory") : true;
}

bool ctl_print_refusal(struct wbuf *out, long status, const char *body, size_t len)
{
	json_t *root = body ? json_loadb(body, len, JSON_ALLOW_NUL, NULL) : NULL;
	const char *hint = ctl_api_status_hint(status);
	const char *msg = NULL;
	size_t msg_len = 0;
	char num[64];

	if (json_is_object(root))
		string_of(json_object_get(root, "error"), &msg, &msg_len);
	wbuf_put_str(out, "airlockctl: ");
	if (msg_len) {
		/* Cut a long message at a character's start, so the cut shows no stray byte. */
		if (msg_len > MESSAGE_MAX) {
			msg_len = MESSAGE_MAX;
			while (msg_len > 0 && ((unsigned char)msg[msg_len] & 0xC0) == 0x80)
				msg_len--;
		}
		put_value(out, msg, msg_len);
		snprintf(num, sizeof(num), " (HTTP %ld", status);
	} else {
		snprintf(num, sizeof(num), "the server answered HTTP %ld", status);
	}
	wbuf_put_str(out, num);
	if (hint) {
		wbuf_put_str(out, msg_len ? ": " : " (");
		wbuf_put_str(out, hint);
	}
	wbuf_put_str(out, msg_len || hint ? ")\n" : "\n");
	json_decref(root);
	return !out->failed;
}

bool ctl_print_error(struct wbuf *out, const char *msg)
{
	wbuf_put_str(out, "airlockctl: ");
	put_value(out, msg, strlen(msg));
	wbuf_put_str(out, "\n");
	return !out->failed;
}
