/*
 * runner_my_sample: a MySQL write's dry-run rows made into the sample
 * airlockd keeps with the held write. Each row is one JSON object of its
 * columns, name to the value as the database printed it (a string) or
 * null, sent as a notice coded FRAME_SAMPLE_CODE (its message). The
 * caller owns every buffer; nothing here talks to a server.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_SAMPLE_H
#define AIRLOCK_RUNNER_RUNNER_MY_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>

#include <mysql.h>

#include "base/wbuf.h"

/* What a dry run's sample rows may hold in all, beside RUNNER_SAMPLE_ROWS rows (the record's cap). */
#define MY_SAMPLE_BYTES (32u * 1024u)

/*
 * Appends s (len bytes) to b as a JSON string: '"' and '\' escaped, every
 * control character but NUL as \u00XX, a NUL or a byte that is not part of
 * valid UTF-8 as \ufffd. The text is always valid JSON whatever the bytes.
 */
void my_sample_put_str(struct wbuf *b, const char *s, size_t len);

/*
 * Appends {"name": value, ...} of the n columns f (names) and row
 * (values, lengths; NULL is null) to b.
 */
void my_sample_put_row(struct wbuf *b, const MYSQL_FIELD *f, const MYSQL_ROW row, const unsigned long *lengths,
		       unsigned n);

#endif
