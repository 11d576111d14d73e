/*
 * runner_my_write: a write job on MariaDB (runner_job.h, job->write). The
 * statement runs in a transaction started READ WRITE (the session's
 * default stays read only); the connection counts an UPDATE's matched
 * rows (CLIENT_FOUND_ROWS), so the count is the rows it touches. With
 * write_check the statement returns one column per written row, the
 * truth of the user's row filter (validate_my_write.h): a row whose check
 * is not 1 fails the job. Past write_max rows, or on a failed check, the
 * transaction is rolled back; a dry run is rolled back whatever it did;
 * a run is committed. A dry run first sends the write's plan (EXPLAIN of
 * plan_sql when the job has one) as a notice coded FRAME_PLAN_CODE. With
 * sample (a dry run of validate_my_write.h's variant, which returns each
 * row it touches after the check column), the first RUNNER_SAMPLE_ROWS
 * rows go out as notices coded FRAME_SAMPLE_CODE (runner_my_sample.h), the
 * rest only counted. With sample_read (an UPDATE's dry run), that read
 * runs before the write and its rows go out with their state after it
 * as pairs (runner_my_pairs.h) before the rollback. On every other path the transaction is left open
 * and dies with the connection: nothing is written unless COMMIT
 * succeeds here.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_WRITE_H
#define AIRLOCK_RUNNER_RUNNER_MY_WRITE_H

#include <stdint.h>

#include <mysql.h>

#include "runner/runner_ctl.h"
#include "runner/runner_job.h"

enum my_write_end {
	MY_WRITE_OK,    /* counted, and rolled back (dry run) or committed (run) */
	MY_WRITE_ERROR, /* the server or the client library failed: the connection's error says why */
	MY_WRITE_CHECK, /* a written row fails the row filter: rolled back */
	MY_WRITE_ROWS,  /* more than write_max rows: rolled back */
	MY_WRITE_GONE,  /* the plan or the sample could not be queued for the proxy */
};

/*
 * Runs job's write on conn; *rows gets the rows it touched (or returned,
 * with write_check or sample). A dry run first sends its plan on ctl.
 */
enum my_write_end my_write_run(MYSQL *conn, const struct runner_job *job, struct runner_ctl *ctl, uint64_t *rows);

/* The error frame of MY_WRITE_CHECK or MY_WRITE_ROWS (rows as counted, max the job's write_max). */
void my_write_refusal(struct runner_ctl *ctl, enum my_write_end e, uint64_t rows, uint64_t max);

#endif
