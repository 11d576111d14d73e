#define _GNU_SOURCE
#include "proxy/approval_page.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"

#define FIRST_LINE_MAX 160

static const char css[] =
	"body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f6f4}\n"
	"header{display:flex;justify-content:space-between;align-items:center;padding:.6em 1.2em;"
	"background:#20303c;color:#fff}\n"
	"header a{color:#fff}header form{margin:0}\n"
	"main{padding:1em 1.2em;max-width:90em}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\n"
	"pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid #ccc;padding:.6em;margin:.3em "
	"0}\n"
	"code{white-space:pre-wrap;word-break:break-all}\n"
	".ch{background:#ffd24d;color:#000;border:1px solid #a60;border-radius:3px;padding:0 .2em;font:12px "
	"monospace}\n"
	".badge{background:#b00020;color:#fff;border-radius:3px;padding:0 .4em;font-size:12px;margin-left:.4em}\n"
	".stmt{display:grid;grid-template-columns:1fr 1fr;gap:1em}\n"
	".note{color:#555;font-size:13px;margin:0}\n"
	".null{color:#777;font-style:italic}\n"
	"td.changed{background:#fff3b0}\n"
	"tr.before th{color:#555}tr.after th{color:#174}\n"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dt{font-weight:600}dd{margin:0}\n"
	".decide{display:flex;gap:2em;flex-wrap:wrap}.decide form{background:#fff;border:1px solid #ccc;padding:1em}\n"
	"textarea{display:block;width:28em;height:5em;margin:.3em 0}\n"
	".error{color:#b00020;font-weight:600}\n"
	"label{display:block;margin:.4em 0}\n"
	".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(740px,1fr));gap:1em}\n"
	"figure.chart{background:#fff;border:1px solid #ccc;margin:0;padding:.5em}\n"
	"figcaption{font-weight:600;margin-bottom:.3em}\n"
	"ul.legend{list-style:none;padding:0;margin:.3em 0 0;display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:13px}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#444}\n"
	"section.tables{display:grid;gap:1em}\n"
	"td.num{text-align:right}\n";

const char *approval_page_css(void)
{
	return css;
}

static void put(struct wbuf *w, const char *s)
{
	wbuf_put_str(w, s);
}

/* Attacker-written (or any outside) text as HTML text content. */
static void text(struct wbuf *w, const char *s)
{
	approval_html_text(w, s, strlen(s));
}

static void attr(struct wbuf *w, const char *s)
{
	approval_html_attr(w, s, strlen(s));
}

static void put_i64(struct wbuf *w, int64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, v);
	put(w, num);
}

void approval_page_time(int64_t ms, char *out, size_t outlen)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 0 || !gmtime_r(&t, &tm) || !strftime(out, outlen, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, outlen, "-");
}

static void put_time(struct wbuf *w, int64_t ms)
{
	char when[40];

	approval_page_time(ms, when, sizeof(when));
	put(w, when);
}

size_t approval_page_first_line(const char *s, size_t max, bool *cut)
{
	size_t n = strcspn(s, "\r\n");

	*cut = s[n] != '\0';
	if (n > max) {
		n = max;
		/* Back to the start of the character the cut falls in. */
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		*cut = true;
	}
	return n;
}

void approval_page_begin(struct wbuf *w, const char *title, const char *brand, const char *who, const char *csrf,
			 unsigned refresh_s)
{
	char num[16];

	put(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	       "<meta name=\"viewport\" content=\"width=device-width\">");
	if (refresh_s) {
		snprintf(num, sizeof(num), "%u", refresh_s);
		put(w, "<meta http-equiv=\"refresh\" content=\"");
		put(w, num);
		put(w, "\">");
	}
	put(w, "<title>");
	text(w, title);
	put(w, " - airlock</title><link rel=\"stylesheet\" href=\"/style.css\"></head>\n<body><header>"
	       "<a href=\"/\">");
	text(w, brand);
	put(w, "</a>");
	if (who) {
		put(w, "<form method=\"post\" action=\"/logout\">Signed in as <strong>");
		text(w, who);
		put(w, "</strong> <input type=\"hidden\" name=\"csrf\" value=\"");
		attr(w, csrf);
		put(w, "\"><button type=\"submit\">Log out</button></form>");
	}
	put(w, "</header>\n<main>");
}

bool approval_page_end(struct wbuf *w)
{
	put(w, "</main></body></html>\n");
	return !w->failed;
}

static void head(struct wbuf *w, const char *title, const char *approver, const char *csrf)
{
	approval_page_begin(w, title, "airlock: held writes", approver, csrf, 0);
}

static bool foot(struct wbuf *w)
{
	return approval_page_end(w);
}

bool approval_page_login(struct wbuf *w, const char *error)
{
	head(w, "Log in", NULL, NULL);
	put(w, "<h1>Log in to decide held writes</h1><p class=\"note\">Approvers decide held writes; admins see this "
	       "node's operations.</p>");
	if (error) {
		put(w, "<p class=\"error\" id=\"error\">");
		text(w, error);
		put(w, "</p>");
	}
	put(w, "<form method=\"post\" action=\"/login\">"
	       "<label>Name <input name=\"name\" autocomplete=\"username\" required maxlength=\"256\"></label>"
	       "<label>Password <input name=\"password\" type=\"password\" autocomplete=\"current-password\" required "
	       "maxlength=\"1024\"></label><button type=\"submit\">Log in</button></form>");
	return foot(w);
}

bool approval_page_list_begin(struct wbuf *w, const char *approver, const char *csrf)
{
	head(w, "Pending writes", approver, csrf);
	put(w, "<h1>Writes waiting for a decision</h1>\n<table id=\"pending\"><thead><tr><th>Approval</th><th>User</th>"
	       "<th>Asked (UTC)</th><th>Rows</th><th>Statement (first line)</th></tr></thead><tbody>\n");
	return !w->failed;
}

/* The badge of a record any of whose agent-written strings holds a marked character. */
static bool suspicious(const struct approval *a)
{
	const char *s[] = {a->statement, a->params, a->user, a->application_name, a->client_addr};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (approval_text_suspicious(s[i], strlen(s[i])))
			return true;
	return false;
}

static void badge(struct wbuf *w, const struct approval *a)
{
	if (suspicious(a))
		put(w, "<strong class=\"badge\" title=\"the agent's text holds control, bidirectional or invisible "
		       "characters or bytes that are not UTF-8; they are shown as marked boxes\">hidden "
		       "characters</strong>");
}

bool approval_page_list_row(struct wbuf *w, const struct approval *a)
{
	bool cut;
	size_t n = approval_page_first_line(a->statement, FIRST_LINE_MAX, &cut);

	put(w, "<tr><td><a href=\"/approval/");
	attr(w, a->id);
	put(w, "\">");
	text(w, a->id);
	put(w, "</a></td><td>");
	text(w, a->user);
	put(w, "</td><td>");
	put_time(w, a->created_at);
	put(w, "</td><td>");
	put_i64(w, a->rows);
	put(w, "</td><td><code>");
	approval_html_text(w, a->statement, n);
	put(w, cut ? " \xe2\x80\xa6" : "");
	put(w, "</code>");
	badge(w, a);
	put(w, "</td></tr>\n");
	return !w->failed;
}

bool approval_page_list_end(struct wbuf *w, size_t n)
{
	put(w, "</tbody></table>\n");
	if (n == 0)
		put(w, "<p id=\"empty\">No write is waiting for a decision.</p>");
	return foot(w);
}

static void dt(struct wbuf *w, const char *term)
{
	put(w, "<dt>");
	put(w, term);
	put(w, "</dt><dd>");
}

static void dd_text(struct wbuf *w, const char *term, const char *value)
{
	dt(w, term);
	if (value[0])
		text(w, value);
	else
		put(w, "<span class=\"null\">none</span>");
	put(w, "</dd>");
}

/* One JSON value as a cell's content: null as NULL, a string inertly, anything else as its JSON text. */
static void value(struct wbuf *w, const json_t *v)
{
	char *dumped;

	if (!v || json_is_null(v)) {
		put(w, "<span class=\"null\">NULL</span>");
	} else if (json_is_string(v)) {
		approval_html_text(w, json_string_value(v), json_string_length(v));
	} else if ((dumped = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT))) {
		text(w, dumped);
		free(dumped);
	} else {
		w->failed = true;
	}
}

/* json (a store's field) parsed, or NULL; the caller json_decrefs it. */
static json_t *parse(const char *s)
{
	return s[0] ? json_loadb(s, strlen(s), JSON_REJECT_DUPLICATES, NULL) : NULL;
}

static void params(struct wbuf *w, const char *json)
{
	json_t *a = parse(json);
	size_t i;
	json_t *v;

	put(w, "<h2>Bound values</h2>");
	if (!json[0] || (json_is_array(a) && json_array_size(a) == 0)) {
		put(w, "<p id=\"params\" class=\"null\">none</p>");
	} else if (!json_is_array(a)) {
		put(w, "<p class=\"error\">The bound values are not a JSON array; as stored:</p><pre id=\"params\">");
		text(w, json);
		put(w, "</pre>");
	} else {
		put(w,
		    "<table id=\"params\"><thead><tr><th>Parameter</th><th>Value (as text)</th></tr></thead><tbody>");
		json_array_foreach(a, i, v)
		{
			put(w, "<tr><th>$");
			put_i64(w, (int64_t)i + 1);
			put(w, "</th><td>");
			value(w, v);
			put(w, "</td></tr>");
		}
		put(w, "</tbody></table>");
	}
	json_decref(a);
}

/* One row of the sample: label, then each value; a cell differing from the same cell of other is marked. */
static void sample_row(struct wbuf *w, const char *cls, const char *label, const json_t *row, const json_t *other)
{
	size_t i;
	json_t *v;

	put(w, "<tr class=\"");
	put(w, cls);
	put(w, "\"><th>");
	put(w, label);
	put(w, "</th>");
	json_array_foreach(row, i, v)
	{
		const json_t *o = json_is_array(other) ? json_array_get(other, i) : NULL;
		bool changed = json_is_array(other) && (!o || !json_equal(v, (json_t *)o));

		put(w, changed ? "<td class=\"changed\"><mark>" : "<td>");
		value(w, v);
		put(w, changed ? "</mark></td>" : "</td>");
	}
	put(w, "</tr>\n");
}

/* Why the sample shows fewer rows than the write touches, when the dry run said (the database's text: escaped). */
static void sample_note(struct wbuf *w, const json_t *o)
{
	const char *note = json_string_value(json_object_get(o, "note"));

	if (!note)
		return;
	put(w, "<p class=\"note\" id=\"sample-note\">");
	text(w, note);
	put(w, "</p>");
}

static void sample(struct wbuf *w, const char *json)
{
	json_t *o = parse(json);
	json_t *cols = json_object_get(o, "columns"), *rows = json_object_get(o, "rows"), *c, *r;
	size_t i;

	put(w, "<h2>Sample of the rows the dry run touched</h2>");
	if (!json[0] ||
	    (json_is_array(cols) && json_is_array(rows) && json_array_size(cols) == 0 && json_array_size(rows) == 0)) {
		put(w, "<p id=\"sample\" class=\"null\">no sample</p>");
		sample_note(w, o);
		json_decref(o);
		return;
	}
	if (!json_is_object(o) || !json_is_array(cols) || !json_is_array(rows)) {
		put(w, "<p class=\"error\">The sample is not in the expected shape; as stored:</p><pre id=\"sample\">");
		text(w, json);
		put(w, "</pre>");
		json_decref(o);
		return;
	}
	put(w, "<p class=\"note\">Each touched row before and after the write; a changed value is highlighted.</p>"
	       "<table id=\"sample\"><thead><tr><th></th>");
	json_array_foreach(cols, i, c)
	{
		put(w, "<th>");
		value(w, c);
		put(w, "</th>");
	}
	put(w, "</tr></thead><tbody>\n");
	json_array_foreach(rows, i, r)
	{
		json_t *before = json_object_get(r, "before"), *after = json_object_get(r, "after");

		if (json_is_array(r)) {
			sample_row(w, "row", "row", r, NULL);
			continue;
		}
		if (json_is_array(before))
			sample_row(w, "before", json_is_array(after) ? "before" : "deleted", before, NULL);
		if (json_is_array(after))
			sample_row(w, "after", json_is_array(before) ? "after" : "inserted", after, before);
	}
	put(w, "</tbody></table>\n");
	if (json_is_true(json_object_get(o, "truncated")))
		put(w, "<p class=\"note\" id=\"truncated\">The write touches more rows than the sample shows.</p>");
	sample_note(w, o);
	json_decref(o);
}

/* name is one of the comma-separated names in list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return true;
	return false;
}

static void forms(struct wbuf *w, const struct approval *a, const char *approver, const char *csrf)
{
	put(w, "<h2>Decide</h2><div class=\"decide\">");
	if (listed(a->approved_by, approver)) {
		put(w, "<p id=\"waiting\">You approved this write; it waits for another approver.</p>");
	} else {
		put(w, "<form method=\"post\" id=\"approve\" action=\"/approval/");
		attr(w, a->id);
		put(w, "/approve\"><input type=\"hidden\" name=\"csrf\" value=\"");
		attr(w, csrf);
		put(w, "\"><label>Reason (optional)<textarea name=\"reason\" maxlength=\"1024\"></textarea></label>"
		       "<button type=\"submit\">Approve: run this write</button></form>");
	}
	put(w, "<form method=\"post\" id=\"reject\" action=\"/approval/");
	attr(w, a->id);
	put(w, "/reject\"><input type=\"hidden\" name=\"csrf\" value=\"");
	attr(w, csrf);
	put(w, "\"><label>Reason (required)<textarea name=\"reason\" maxlength=\"1024\" required></textarea></label>"
	       "<button type=\"submit\">Reject</button></form></div>");
}

bool approval_page_record(struct wbuf *w, const struct approval *a, const char *approver, const char *csrf)
{
	const char *status = approval_status_name(a->status);

	head(w, a->id, approver, csrf);
	put(w, "<h1>Held write <code>");
	text(w, a->id);
	put(w, "</code>");
	badge(w, a);
	put(w, "</h1>\n<dl id=\"record\">");
	dd_text(w, "Status", status ? status : "unknown");
	dd_text(w, "Asked by", a->user);
	dt(w, "Asked at");
	put_time(w, a->created_at);
	put(w, "</dd>");
	dt(w, "Expires at");
	put_time(w, a->expires_at);
	put(w, "</dd>");
	dd_text(w, "From address", a->client_addr);
	dd_text(w, "Protocol", a->protocol);
	dd_text(w, "application_name", a->application_name);
	dt(w, "Rows the dry run touched");
	put(w, "<strong id=\"rows\">");
	put_i64(w, a->rows);
	put(w, "</strong></dd>");
	dt(w, "Approvers needed");
	put_i64(w, a->approvals_needed);
	put(w, "</dd>");
	dd_text(w, "Approved so far by", a->approved_by);
	dd_text(w, "Decided by", a->decided_by);
	dt(w, "Decided at");
	put_time(w, a->decided_at);
	put(w, "</dd>");
	dd_text(w, "Reason", a->reason);
	if (a->executed_rows >= 0) {
		dt(w, "Rows the run wrote");
		put_i64(w, a->executed_rows);
		put(w, "</dd>");
	}
	put(w, "</dl>\n<h2>Statement</h2><div class=\"stmt\"><div><h3>As the agent sent it</h3>"
	       "<p class=\"note\">Exactly as received, comments included; control, bidirectional and invisible "
	       "characters are shown as marked boxes.</p><pre id=\"statement\">");
	text(w, a->statement);
	put(w, "</pre></div><div><h3>As it will run</h3><p class=\"note\">The parser's reading after airlock's "
	       "rewriting: comments dropped, spacing canonical, names qualified, the user's row filter joined.</p>"
	       "<pre id=\"rewritten\">");
	text(w, a->rewritten);
	put(w, "</pre></div></div>\n");
	params(w, a->params);
	if (a->plan[0]) {
		put(w, "<h2>Plan of the dry run</h2><pre id=\"plan\">");
		text(w, a->plan);
		put(w, "</pre>\n");
	}
	sample(w, a->sample);
	if (a->status == APPROVAL_PENDING)
		forms(w, a, approver, csrf);
	return foot(w);
}

bool approval_page_message(struct wbuf *w, const char *title, const char *message, const char *href)
{
	head(w, title, NULL, NULL);
	put(w, "<h1>");
	text(w, title);
	put(w, "</h1><p class=\"error\" id=\"error\">");
	text(w, message);
	put(w, "</p><p><a href=\"");
	attr(w, href);
	put(w, "\">Back</a></p>");
	return foot(w);
}
