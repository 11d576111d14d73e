/*
 * validate_my_write_sample: the dry-run variant of a MySQL write
 * (validate_my_write.h) that shows the approver the rows it touches.
 * MariaDB 10.11 returns the rows of an INSERT or a single-table DELETE
 * (RETURNING), not of an UPDATE. The variant is the text that will run
 * with its rows returned whole after the check column, if any; it must
 * validate again as the same write before it runs. An UPDATE's is a read
 * of the rows it will touch (the runner reads them again after it, by
 * primary key: runner/runner_my_pairs.h); it must validate again as a
 * read of the same table.
 *
 * Pure: no I/O; the texts returned are heap, the caller frees them.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_WRITE_SAMPLE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_WRITE_SAMPLE_H

#include <stdbool.h>

#include "validator/mysql/validate_my.h"

/* Rows an UPDATE's read takes: the sample's (approval_sample.h); the count comes from the UPDATE. */
#define VMY_WRITE_SAMPLE_ROWS 20

/*
 * A dry run's sample variant of text, the text that will run of the write
 * v (vmy_write_scope's, validated again): the same statement, whose rows
 * it returns whole after the check column if any (RETURNING *, or the
 * check's RETURNING followed by db.table.*), so the runner can show each
 * row a DELETE removes or an INSERT adds. The rows it touches and their
 * count stay those of text. For an UPDATE (MariaDB has no UPDATE ...
 * RETURNING) it is instead SELECT * FROM db.table [alias] with the text's
 * WHERE and ORDER BY and a LIMIT of at most VMY_WRITE_SAMPLE_ROWS (the
 * text's own when lower): the rows the UPDATE will touch, read first in
 * its transaction. Heap, the caller frees it; NULL when out of memory or
 * when v does not fit text. It must be validated again (rewrite) and pass
 * vmy_write_sample_same (vmy_write_sample_reads for an UPDATE) before it
 * runs.
 */
char *vmy_write_sample(const struct vmy_policy *pol, const struct vmy_result *v, const char *text);

/* Whether sample (the variant, validated again) is the write text is (validated again), with its rows. */
bool vmy_write_sample_same(const struct vmy_result *text, const struct vmy_result *sample);

/*
 * Whether read (sample, an UPDATE's variant, validated again) is one
 * SELECT whose FROM starts with the table the write text (validated again)
 * updates, read through the same rule when the table has one.
 */
bool vmy_write_sample_reads(const struct vmy_result *text, const struct vmy_result *read, const char *sample);

/*
 * What the worker sends: vmy_write_sample of text (the write as it will
 * run, validated under ext, ext->rewrite set, as made), validated again
 * under ext (its star allowed) and kept only when vmy_write_sample_same,
 * or vmy_write_sample_reads for an UPDATE. NULL: none.
 */
char *vmy_write_sample_checked(const struct vmy_policy *ext, const char *text, const struct vmy_result *made);

#endif
