/* log: timestamped lines on stderr. */
#include "proxy/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static char log_tag[24];

void log_set_tag(const char *tag)
{
	snprintf(log_tag, sizeof(log_tag), "%s", tag ? tag : "");
}

__attribute__((format(printf, 2, 0))) static void log_line(const char *level, const char *fmt, va_list ap)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ldZ %s %s%s", when, ts.tv_nsec / 1000000, level, log_tag, log_tag[0] ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOG_FN(fn, level)                 \
	void fn(const char *fmt, ...)     \
	{                                 \
		va_list ap;               \
		va_start(ap, fmt);        \
		log_line(level, fmt, ap); \
		va_end(ap);               \
	}

LOG_FN(log_info, "info")
LOG_FN(log_warn, "warn")
LOG_FN(log_error, "error")
