/*
 * runner_my_cost: max_cost on MySQL and MariaDB backends, checked before
 * the statement is sent.
 *
 * MariaDB 10.11's EXPLAIN, FORMAT=JSON included, prints no cost. The
 * optimizer's estimate for the plan it chose is the session status
 * Last_query_cost, which EXPLAIN sets: EXPLAIN plans the statement and
 * never runs it. MariaDB fills it only for a statement it takes for one
 * join once it has merged what it can (derived tables, views, IN and
 * EXISTS subqueries turned into semi-joins), and reads 0 for a plan that
 * reads no table or one row of each (const).
 *
 * So the check runs "EXPLAIN <statement>", reads the plan's id,
 * select_type, table and type columns, then SHOW SESSION STATUS LIKE
 * 'Last_query_cost'. Which plans the number covers was measured on
 * 10.11: it is 0 for a UNION or a subquery left on its own, except that
 * the selects of a WITH clause fall outside it and it is then not 0. It
 * is believed only for a plan that is one join:
 *   - every row SIMPLE: any cost; a cost of 0 only when every row reads at
 *     most one row (type NULL, system or const);
 *   - every row PRIMARY, or MATERIALIZED when its result is one of the
 *     join's tables (a PRIMARY row reading <subqueryN>): the semi-joins
 *     IN and EXISTS become; only a cost above 0.
 * A cost above max_cost refuses; so does every other plan, and a value
 * that is not a plain decimal number: a cap that cannot be checked fails
 * closed.
 *
 * The pure part (my_cost_plan_row, my_cost_parse, my_cost_judge) borrows
 * its arguments for the call and keeps no pointer to them.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_COST_H
#define AIRLOCK_RUNNER_RUNNER_MY_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mysql.h>

#include "runner/runner_ctl.h"

/* Longest Last_query_cost text read: MariaDB prints %.6f of a double below 1e300. */
#define MY_COST_TEXT_MAX 320
/* Most MATERIALIZED selects, and <subqueryN> tables, a plan may have; more makes its cost unknown. */
#define MY_COST_MAX_IDS 64

enum my_cost_verdict {
	MY_COST_UNDER,     /* the estimate is at most max_cost: the statement may run */
	MY_COST_OVER,      /* above max_cost */
	MY_COST_UNKNOWN,   /* MariaDB gave no estimate that covers the statement */
	MY_COST_FAILED,    /* the backend or the client library failed: the connection's error */
	MY_COST_NO_MEMORY, /* the EXPLAIN text could not be made */
};

/* One row of the plan: its columns' values (ptr NULL for SQL NULL) and lengths. */
struct my_cost_row {
	const char *id, *select_type, *table, *type;
	size_t id_len, select_type_len, table_len, type_len;
};

/* What the plan's rows say; zero-initialised before the first row. */
struct my_cost_plan {
	size_t rows;
	bool simple;                            /* some row is SIMPLE */
	bool primary;                           /* some row is PRIMARY or MATERIALIZED */
	bool reads_more;                        /* some SIMPLE row may read more than one row */
	bool other;                             /* some row is of another kind, or could not be read */
	unsigned materialized[MY_COST_MAX_IDS]; /* ids of the MATERIALIZED rows */
	unsigned joined[MY_COST_MAX_IDS];       /* N of each PRIMARY row reading <subqueryN> */
	size_t nmaterialized, njoined;
};

struct my_cost {
	enum my_cost_verdict verdict;
	double cost; /* Last_query_cost, when it was read */
};

/* Adds one row of the plan to p. */
void my_cost_plan_row(struct my_cost_plan *p, const struct my_cost_row *row);

/* Last_query_cost's value: digits, then optionally '.' and digits. 0 with *cost set, else -1. */
int my_cost_parse(const char *text, size_t len, double *cost);

/* The verdict on a plan and its cost (have_cost false: none could be read). */
enum my_cost_verdict my_cost_judge(const struct my_cost_plan *p, bool have_cost, double cost, uint64_t max_cost);

/* Runs the check of sql on conn (in the statement's session, after its settings). */
struct my_cost my_cost_check(MYSQL *conn, const char *sql, uint64_t max_cost);

/* Queues the refusal of an OVER, UNKNOWN or NO_MEMORY verdict as an 'E' frame; -1 when it could not be. */
int my_cost_refuse(struct runner_ctl *ctl, const struct my_cost *c, uint64_t max_cost);

#endif
