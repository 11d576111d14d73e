/*
 * timeval: milliseconds as the struct timeval libevent's timers take, the
 * one conversion every timer in airlockd needs.
 */
#ifndef AIRLOCK_PROXY_TIMEVAL_H
#define AIRLOCK_PROXY_TIMEVAL_H

#include <stdint.h>
#include <sys/time.h>

static inline struct timeval ms_timeval(uint64_t ms)
{
	struct timeval tv = {.tv_sec = (time_t)(ms / 1000), .tv_usec = (suseconds_t)(ms % 1000) * 1000};

	return tv;
}

#endif
