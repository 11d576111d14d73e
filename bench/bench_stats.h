/*
 * bench_stats: what the latency benchmarks share: a monotonic clock in
 * milliseconds and the one-line summary (median, p90, p99, mean) of a set
 * of timings. Header-only; ms is sorted in place.
 */
#ifndef AIRLOCK_BENCH_STATS_H
#define AIRLOCK_BENCH_STATS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline void bench_pause(int pause_ms)
{
	struct timespec pause = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};

	if (pause_ms > 0)
		nanosleep(&pause, NULL);
}

static inline void bench_report(const char *label, double *ms, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += ms[i];
	qsort(ms, (size_t)n, sizeof(*ms), bench_cmp_double);
	printf("%-12s runs=%d median_ms=%.3f p90_ms=%.3f p99_ms=%.3f mean_ms=%.3f\n", label, n, ms[n / 2],
	       ms[(int)(n * 0.9)], ms[(int)(n * 0.99)], sum / n);
}

#endif
