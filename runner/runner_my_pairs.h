/*
 * runner_my_pairs: the sample of a MySQL UPDATE's dry run. MariaDB has no
 * UPDATE ... RETURNING: the job's sample_read (the validator's read of
 * the rows the UPDATE will touch) runs first in the write's transaction;
 * after the UPDATE the same rows are read again by the table's primary
 * key (else its first unique key of NOT NULL columns), and each row goes
 * out as a notice coded FRAME_SAMPLE_PAIR_CODE: the message its columns
 * before, the detail its columns after (JSON objects,
 * runner_my_sample.h), an empty detail when it was not found again (a
 * table without such a key, or a key the UPDATE changed). The
 * second read is the runner's own text: the table and key names come
 * from the server's description of the first read, quoted, and the key
 * values are escaped string literals.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_PAIRS_H
#define AIRLOCK_RUNNER_RUNNER_MY_PAIRS_H

#include <mysql.h>

#include "runner/runner_ctl.h"

/* The rows sql reads (stored, the caller frees them), or NULL: the read failed, the dry run goes on without a sample.
 */
MYSQL_RES *my_pairs_read(MYSQL *conn, const char *sql);

/*
 * After the UPDATE, in its transaction: reads before's rows again and
 * sends the first RUNNER_SAMPLE_ROWS pairs within MY_SAMPLE_BYTES (each
 * row at most RUNNER_CTL_MAX_TEXT). 0, or -1 when the proxy is gone.
 */
int my_pairs_send(MYSQL *conn, MYSQL_RES *before, struct runner_ctl *ctl);

#endif
