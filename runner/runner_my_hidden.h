/*
 * runner_my_hidden: the plan of a MySQL EXPLAIN without the names of keys
 * outside the user's world. MariaDB names the index it makes for a
 * foreign key that has none after the constraint (`fk_staff_salaries`),
 * and a plan prints index names in possible_keys, key and Extra (text) and
 * in its FORMAT=JSON text. The job's hidden_keys read lists those names,
 * in the statement's session before it runs; each is then printed as
 * RUNNER_HIDDEN_KEY wherever it stands as a whole name (between the start
 * or end of the value and a comma, quote, parenthesis, space or
 * semicolon). The plan still shows that an index was used.
 *
 * Owns the names it loads (my_hidden_free); a scrubbed value is heap the
 * caller frees. Bounded: at most RUNNER_HIDDEN_MAX names of at most
 * RUNNER_HIDDEN_NAME_MAX bytes, else the job is refused.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_HIDDEN_H
#define AIRLOCK_RUNNER_RUNNER_MY_HIDDEN_H

#include <stdbool.h>
#include <stddef.h>

#include <mysql.h>

#include "base/frame.h"

#define RUNNER_HIDDEN_KEY "airlock_hidden_key"
#define RUNNER_HIDDEN_MAX 4096
#define RUNNER_HIDDEN_NAME_MAX 256

#define RUNNER_HIDDEN_COLS 4 /* possible_keys, key, Extra, EXPLAIN */

struct my_hidden {
	char **names;
	size_t n;
	bool cols[FRAME_MAX_COLS]; /* the result's columns that print index names */
	bool any;                  /* some column does, and some name is hidden */
	char *scratch[FRAME_MAX_COLS > RUNNER_HIDDEN_COLS ? RUNNER_HIDDEN_COLS : FRAME_MAX_COLS];
	size_t nscratch; /* the current row's scrubbed values, freed at the next row */
};

enum my_hidden_load { MY_HIDDEN_OK, MY_HIDDEN_FAILED /* the connection's error */, MY_HIDDEN_TOO_MANY };

/* Runs sql on conn and keeps the first column of each row in h (zero-initialised). */
enum my_hidden_load my_hidden_load(MYSQL *conn, const char *sql, struct my_hidden *h);

/* Marks the result's columns (n of them) that print index names. */
void my_hidden_columns(struct my_hidden *h, const MYSQL_FIELD *f, unsigned n);

/*
 * Column i's value v (len bytes) with each hidden name replaced: heap
 * (*out_len its length; the caller frees it), or NULL when nothing was
 * replaced or, with *failed set, memory ran out.
 */
char *my_hidden_scrub(const struct my_hidden *h, unsigned i, const char *v, size_t len, size_t *out_len, bool *failed);

/*
 * Scrubs the row's values (n columns) in place: a value that named a
 * hidden key points into h's scratch until the next row. -1 when memory
 * ran out (or more of its values named one than an EXPLAIN has columns
 * that print names).
 */
int my_hidden_row(struct my_hidden *h, char **row, unsigned long *lengths, unsigned n);

void my_hidden_free(struct my_hidden *h);

#endif
