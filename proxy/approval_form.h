/*
 * approval_form: the approval page's form bodies
 * (application/x-www-form-urlencoded) decoded into a fixed set of named
 * fields. Pure: bytes in, owned strings out; no I/O.
 *
 * A body is refused whole, never cut or half-read, when it is longer than
 * APPROVAL_FORM_MAX, holds a NUL (raw or as %00), a malformed escape, a
 * field the caller did not name, a field twice, or a value longer than
 * its field's max after decoding. "+" is a space, as browsers send it.
 */
#ifndef AIRLOCK_PROXY_APPROVAL_FORM_H
#define AIRLOCK_PROXY_APPROVAL_FORM_H

#include <stddef.h>

#define APPROVAL_FORM_MAX 8192

struct approval_form_field {
	const char *name; /* borrowed; the caller's */
	size_t max;       /* the longest value, in bytes after decoding */
	char *value;      /* heap, owned by the caller once filled (approval_form_free); NULL when absent */
};

enum approval_form_result {
	APPROVAL_FORM_OK,
	APPROVAL_FORM_TOO_LONG, /* the body is over APPROVAL_FORM_MAX */
	APPROVAL_FORM_MALFORMED,
	APPROVAL_FORM_NO_MEMORY,
};

/*
 * Decodes body (len bytes, any bytes; borrowed) into the n fields, whose
 * values must be NULL on entry. On anything but APPROVAL_FORM_OK every
 * value is NULL again.
 */
enum approval_form_result approval_form_parse(const char *body, size_t len, struct approval_form_field *f, size_t n);

/* Wipes and frees the fields' values and sets them NULL. */
void approval_form_free(struct approval_form_field *f, size_t n);

#endif
