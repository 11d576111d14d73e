/*
 * bench_throughput: statements per second and their latency with several
 * clients at once.
 *
 *   bench_throughput LABEL CONNINFO CLIENTS SECONDS [SQL]
 *
 * Each client is a thread with a connection of its own, running SQL
 * (default "SELECT 1") back to back for SECONDS. Prints one line: label,
 * clients, statements, statements per second, median and p99 latency in
 * ms, and how many failed (with the first failure's message on stderr).
 * Connections are made before the clock starts.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "bench/bench_stats.h"

#define MAX_CLIENTS 256
#define MAX_PER_CLIENT 200000

struct client {
	PGconn *conn;
	const char *sql;
	double until;
	double *ms;
	int n;
	int errors;
	char first_error[256];
};

static pthread_barrier_t start;

static void *client_main(void *arg)
{
	struct client *c = arg;

	pthread_barrier_wait(&start);
	while (bench_now_ms() < c->until && c->n < MAX_PER_CLIENT) {
		double t0 = bench_now_ms();
		PGresult *r = PQexec(c->conn, c->sql);
		ExecStatusType st = PQresultStatus(r);

		if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
			c->ms[c->n++] = bench_now_ms() - t0;
		} else {
			if (!c->errors++)
				snprintf(c->first_error, sizeof(c->first_error), "%s", PQresultErrorMessage(r));
			if (PQstatus(c->conn) != CONNECTION_OK)
				PQreset(c->conn);
		}
		PQclear(r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct client cl[MAX_CLIENTS];
	pthread_t th[MAX_CLIENTS];
	const char *label, *conninfo, *sql;
	int clients, seconds, total = 0, errors = 0;
	double *all, t0, elapsed;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_throughput LABEL CONNINFO CLIENTS SECONDS [SQL]\n");
		return 2;
	}
	label = argv[1];
	conninfo = argv[2];
	clients = atoi(argv[3]);
	seconds = atoi(argv[4]);
	sql = argc > 5 ? argv[5] : "SELECT 1";
	if (clients <= 0 || clients > MAX_CLIENTS || seconds <= 0) {
		fprintf(stderr, "CLIENTS must be 1..%d and SECONDS positive\n", MAX_CLIENTS);
		return 2;
	}
	for (int i = 0; i < clients; i++) {
		cl[i].conn = PQconnectdb(conninfo);
		cl[i].sql = sql;
		cl[i].ms = malloc(MAX_PER_CLIENT * sizeof(double));
		if (PQstatus(cl[i].conn) != CONNECTION_OK || !cl[i].ms) {
			fprintf(stderr, "%s: connect %d failed: %s", label, i, PQerrorMessage(cl[i].conn));
			return 1;
		}
	}
	pthread_barrier_init(&start, NULL, (unsigned)clients + 1);
	t0 = bench_now_ms();
	for (int i = 0; i < clients; i++) {
		cl[i].until = t0 + seconds * 1000.0;
		pthread_create(&th[i], NULL, client_main, &cl[i]);
	}
	pthread_barrier_wait(&start);
	for (int i = 0; i < clients; i++)
		pthread_join(th[i], NULL);
	elapsed = bench_now_ms() - t0;
	for (int i = 0; i < clients; i++) {
		total += cl[i].n;
		errors += cl[i].errors;
	}
	all = malloc(((size_t)total + 1) * sizeof(double));
	for (int i = 0, k = 0; i < clients; i++) {
		memcpy(all + k, cl[i].ms, (size_t)cl[i].n * sizeof(double));
		k += cl[i].n;
		if (cl[i].errors)
			fprintf(stderr, "%s: client %d: %d failed, first: %s", label, i, cl[i].errors,
				cl[i].first_error);
		PQfinish(cl[i].conn);
		free(cl[i].ms);
	}
	if (total)
		qsort(all, (size_t)total, sizeof(*all), bench_cmp_double);
	printf("%-16s clients=%d stmts=%d per_s=%.1f median_ms=%.3f p99_ms=%.3f errors=%d\n", label, clients, total,
	       total / (elapsed / 1000.0), total ? all[total / 2] : 0.0, total ? all[(int)(total * 0.99)] : 0.0,
	       errors);
	free(all);
	return 0;
}
