/*
 * approval_sample: what a held write's dry run saw, as the record keeps it
 * (struct approval's sample):
 *
 *   {"columns": [name, ...],
 *    "rows": [{"before": [value, ...] | null, "after": [value, ...] | null}, ...],
 *    "truncated": true | false,
 *    "note": why the rows are not all shown}       (only when there is a reason)
 *
 * Each row's before and after come from the dry run's variant of the write
 * (validator/pg/validate_pg_write.h) as JSON objects, column name to value;
 * a value is kept as its text (a string as itself, any other JSON value as
 * its compact JSON text) or null. The columns are the names in the order
 * first seen. Pure: no I/O.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_SAMPLE_H
#define AIRLOCK_APPROVAL_APPROVAL_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rows a sample keeps; a dry run touching more is marked truncated. */
#define APPROVAL_SAMPLE_ROWS 20

struct approval_sample;

/* An empty sample (owned by the caller: approval_sample_finish or _free); NULL when out of memory. */
struct approval_sample *approval_sample_new(void);

/*
 * One row the write touches: before and after each a JSON object's text
 * (len bytes; NULL when the write has none: INSERT has no before, DELETE
 * no after). A row past APPROVAL_SAMPLE_ROWS, or one that is not two such
 * objects, is not kept and marks the sample truncated. False when out of
 * memory.
 */
bool approval_sample_row(struct approval_sample *s, const char *before, size_t blen, const char *after, size_t alen);

/*
 * The sample's JSON text (heap, the caller frees; at most max bytes, whole
 * rows left out from the end to fit, which marks it truncated), and s
 * freed. touched: the rows the write touches; more than were kept marks it
 * truncated. NULL when out of memory, or when not even no rows fit.
 */
char *approval_sample_finish(struct approval_sample *s, uint64_t touched, size_t max);

/*
 * Why the sample cannot show the rows the write touches (its read failed,
 * none could be made): len bytes of why, cut at 512; the first reason said
 * is kept.
 * False when out of memory.
 */
bool approval_sample_note(struct approval_sample *s, const char *why, size_t len);

/* Frees s unfinished; NULL is fine. */
void approval_sample_free(struct approval_sample *s);

#endif
