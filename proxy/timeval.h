/*
 * timeval: milliseconds as the struct timeval libevent's timers take, the
 * one conversion every timer in airlockd needs, the monotonic clock in
 * milliseconds that deadlines and ages are counted on (and in nanoseconds
 * for the metrics' phases), and the wall clock
 * in unix milliseconds that records and their expiry are written in.
 */
#ifndef AIRLOCK_PROXY_TIMEVAL_H
#define AIRLOCK_PROXY_TIMEVAL_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline struct timeval ms_timeval(uint64_t ms)
{
	struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000) * 1000};

	return tv;
}

static inline int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The monotonic clock in nanoseconds, for measuring how long a step took. */
static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
