/*
 * approval_page: the approval page's HTML, for a person in a browser. Pure:
 * a record (or our own short texts) in, a page appended to a wbuf out; no
 * I/O, no clock. Every string an agent or an approver wrote goes through
 * approval_html_text or approval_html_attr (approval_text.h), so it shows
 * exactly and inertly, with control, bidirectional and invisible
 * characters as visible markers. The pages hold no script; forms post back
 * to the same listener with the session's CSRF token in a hidden field.
 *
 * Ownership: every argument is borrowed for the call; the wbuf is the
 * caller's (check w->failed once at the end, or the functions' result).
 * Strings may be "" but not NULL, except where a comment says so.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_PAGE_H
#define AIRLOCK_PROXY_APPROVAL_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approval/approval.h"

struct wbuf;

/* The style sheet served at /style.css (static, NUL terminated). */
const char *approval_page_css(void);

/* The login form; error (our own text, or NULL) is shown above it. */
bool approval_page_login(struct wbuf *w, const char *error);
/*
 * The start of any page of the listener: its title, the header (brand,
 * linking to /; with who, a logout form carrying csrf), and with
 * refresh_s > 0 a reload every that many seconds. approval_page_end
 * closes it; false when the page could not be built.
 */
void approval_page_begin(struct wbuf *w, const char *title, const char *brand, const char *who, const char *csrf,
			 unsigned refresh_s);
bool approval_page_end(struct wbuf *w);

/*
 * The list of pending writes: begin (the approver's name and a logout form
 * carrying csrf), one row a record, end (n: rows written, so an empty list
 * says so).
 */
bool approval_page_list_begin(struct wbuf *w, const char *approver, const char *csrf);
bool approval_page_list_row(struct wbuf *w, const struct approval *a);
bool approval_page_list_end(struct wbuf *w, size_t n);

/* One record in full; when it is pending, the approve and reject forms carrying csrf. */
bool approval_page_record(struct wbuf *w, const struct approval *a, const char *approver, const char *csrf);

/* A short page of our own: a title, a message and a link back to href (a path of ours). */
bool approval_page_message(struct wbuf *w, const char *title, const char *message, const char *href);

/* ms (unix milliseconds) as "2026-01-31 23:59:59 UTC" into out (at least 32 bytes); "-" for 0. */
void approval_page_time(int64_t ms, char *out, size_t outlen);

/* The statement's first line, cut at a character boundary to at most max bytes: its length; *cut when shortened. */
size_t approval_page_first_line(const char *s, size_t max, bool *cut);

#endif
