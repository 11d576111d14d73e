/*
 * ctl_print: the API's replies as airlockctl prints them. Pure: bytes in,
 * text appended to a wbuf the caller owns (and writes out); nothing here
 * does I/O.
 *
 * Every string a reply holds (the statement, its values, the names and
 * the server's messages: anything an agent or the server wrote) reaches
 * the text through approval_terminal_text (approval/approval_text.h), so
 * no control, bidirectional or invisible character reaches the terminal.
 * A record is one block: its id alone at the start of a line, then one
 * line a field, label indented by two and value at column 16; a value's
 * later lines are indented to the value column, so no text from a record
 * starts a line where a label or an id would. A record the server flags
 * suspicious, or whose strings hold a marked character, gets a WARNING
 * line right under its id.
 *
 * With --json, the server's reply is printed as received and a newline,
 * once it parses (jansson) as the API's shape and holds no raw control,
 * invisible or non-UTF-8 byte (the server escapes all of them).
 *
 * The renderers return true when they appended; false with one line in
 * err (errlen bytes; print it escaped) when the reply is not the API's,
 * or out of memory, with out holding whatever part was appended.
 */
#ifndef AIRLOCK_CTL_CTL_PRINT_H
#define AIRLOCK_CTL_CTL_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval.h"

struct wbuf;

/* What a reply holds: a JSON array of records (pending) or one record (show, approve, reject). */
enum ctl_shape {
	CTL_SHAPE_LIST,
	CTL_SHAPE_RECORD,
};

/* --json: body (len bytes) and a newline (none added when it ends in one). */
bool ctl_print_json(struct wbuf *out, const char *body, size_t len, enum ctl_shape shape, char *err, size_t errlen);

/* pending: a block a record, a blank line between them; "no NAME writes" for none (status names them). */
bool ctl_print_list(struct wbuf *out, const char *body, size_t len, enum approval_status status, char *err,
		    size_t errlen);

/* show: one record, every field. */
bool ctl_print_record(struct wbuf *out, const char *body, size_t len, char *err, size_t errlen);

/* approve, reject: the record after the decision: where it stands now. */
bool ctl_print_decision(struct wbuf *out, const char *body, size_t len, char *err, size_t errlen);

/*
 * A refusal (status not 2xx): "airlockctl: " and the body's {"error": ...}
 * message, escaped, cut at 1024 bytes, its later lines indented to the
 * value column (else "the server answered HTTP status"), with
 * ctl_api_status_hint's words after it when there are any.
 */
bool ctl_print_refusal(struct wbuf *out, long status, const char *body, size_t len);

/* "airlockctl: " and msg (a C string; escaped, its later lines indented) and a newline. */
bool ctl_print_error(struct wbuf *out, const char *msg);

/* Unix milliseconds as UTC ISO 8601 to the second ("2024-05-01T12:34:56Z"); the number itself outside years 1970..9999.
 */
void ctl_print_time(char *buf, size_t buflen, long long ms);

#endif
