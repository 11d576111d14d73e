/*
 * bench_my_latency: round-trip latency of one statement over one MySQL
 * connection (MariaDB Connector/C), the MySQL twin of bench_latency.
 *
 *   bench_my_latency LABEL HOST PORT USER PASSWORD DB N [SQL [PAUSE_MS]]
 *
 * Connects once, runs SQL (default "SELECT 1") N times with COM_QUERY,
 * PAUSE_MS apart (default 0), reads every row, and prints the same line
 * as bench_latency. Only the statements are timed. Any failed run aborts.
 * With MY_CA set in the environment (a CA file) the connection is TLS with
 * the server's certificate and name checked (a direct one to the demo's
 * MariaDB, whose backend accounts require it).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mysql.h>

#include "bench/bench_stats.h"

int main(int argc, char **argv)
{
	const char *label, *sql = "SELECT 1";
	int n, pause_ms = 0;
	unsigned port;
	double *ms;
	MYSQL *conn;

	if (argc < 8) {
		fprintf(stderr, "usage: bench_my_latency LABEL HOST PORT USER PASSWORD DB N [SQL [PAUSE_MS]]\n");
		return 2;
	}
	label = argv[1];
	port = (unsigned)atoi(argv[3]);
	n = atoi(argv[7]);
	if (argc > 8)
		sql = argv[8];
	if (argc > 9)
		pause_ms = atoi(argv[9]);
	if (n <= 0) {
		fprintf(stderr, "N must be positive\n");
		return 2;
	}
	ms = calloc((size_t)n, sizeof(*ms));
	conn = mysql_init(NULL);
	if (conn && getenv("MY_CA") && *getenv("MY_CA")) {
		my_bool on = 1;

		mysql_optionsv(conn, MYSQL_OPT_SSL_CA, getenv("MY_CA"));
		mysql_optionsv(conn, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
		mysql_optionsv(conn, MYSQL_OPT_SSL_ENFORCE, &on);
	}
	if (!ms || !conn || !mysql_real_connect(conn, argv[2], argv[4], argv[5], argv[6], port, NULL, 0)) {
		fprintf(stderr, "%s: connect failed: %s\n", label, conn ? mysql_error(conn) : "out of memory");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		MYSQL_RES *res;
		double t0;

		if (i > 0)
			bench_pause(pause_ms);
		t0 = bench_now_ms();
		if (mysql_query(conn, sql) != 0 || !(res = mysql_store_result(conn))) {
			fprintf(stderr, "%s: run %d failed: %s\n", label, i, mysql_error(conn));
			mysql_close(conn);
			return 1;
		}
		ms[i] = bench_now_ms() - t0;
		mysql_free_result(res);
	}
	mysql_close(conn);
	bench_report(label, ms, n);
	free(ms);
	return 0;
}
