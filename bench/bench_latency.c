/*
 * bench_latency: round-trip latency of one statement over one connection.
 *
 *   bench_latency LABEL CONNINFO N [SQL [PAUSE_MS [fresh]]]
 *
 * Connects once, runs SQL (default "SELECT 1") N times as a simple query,
 * PAUSE_MS apart (default 0: back to back), and prints one line: label,
 * runs, median, p90, p99 and mean in ms. Only the statements are timed,
 * not the connection set-up or the pauses. With "fresh", each run makes a
 * new connection and the time includes it (what a client without a pool
 * pays). Any failed run aborts.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "bench/bench_stats.h"

int main(int argc, char **argv)
{
	const char *label, *conninfo, *sql = "SELECT 1";
	int n, pause_ms = 0;
	bool fresh;
	double *ms;
	PGconn *conn;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_latency LABEL CONNINFO N [SQL [PAUSE_MS]]\n");
		return 2;
	}
	label = argv[1];
	conninfo = argv[2];
	n = atoi(argv[3]);
	if (argc > 4)
		sql = argv[4];
	if (argc > 5)
		pause_ms = atoi(argv[5]);
	fresh = argc > 6 && strcmp(argv[6], "fresh") == 0;
	if (n <= 0) {
		fprintf(stderr, "N must be positive\n");
		return 2;
	}
	ms = calloc((size_t)n, sizeof(*ms));
	conn = PQconnectdb(conninfo);
	if (!ms || PQstatus(conn) != CONNECTION_OK) {
		fprintf(stderr, "%s: connect failed: %s", label, PQerrorMessage(conn));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		double t0;

		if (i > 0)
			bench_pause(pause_ms);
		t0 = bench_now_ms();
		if (fresh && i > 0) {
			PQfinish(conn);
			conn = PQconnectdb(conninfo);
			if (PQstatus(conn) != CONNECTION_OK) {
				fprintf(stderr, "%s: run %d: connect failed: %s", label, i, PQerrorMessage(conn));
				return 1;
			}
		}
		PGresult *r = PQexec(conn, sql);

		ms[i] = bench_now_ms() - t0;
		if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK) {
			fprintf(stderr, "%s: run %d failed: %s", label, i, PQresultErrorMessage(r));
			PQclear(r);
			PQfinish(conn);
			return 1;
		}
		PQclear(r);
	}
	PQfinish(conn);
	bench_report(label, ms, n);
	free(ms);
	return 0;
}
