/*
 * log: timestamped lines on stderr. Each line leaves in one write(2), so
 * workers sharing the supervisor's stderr never interleave within a line
 * (a pipe takes up to PIPE_BUF bytes whole; a file opened O_APPEND takes
 * any single write whole).
 */
#include "proxy/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { LOG_LINE_MAX = 16384 };

static char log_tag[24];

void log_set_tag(const char *tag)
{
	snprintf(log_tag, sizeof(log_tag), "%s", tag ? tag : "");
}

static void write_all(const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

__attribute__((format(printf, 2, 0))) static void log_line(const char *level, const char *fmt, va_list ap)
{
	static const char cut[] = " [line cut]";
	struct timespec ts;
	struct tm tm;
	char when[32];
	char line[LOG_LINE_MAX];
	int head, body;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	head = snprintf(line, sizeof(line), "%s.%03ldZ %s %s%s", when, ts.tv_nsec / 1000000, level, log_tag,
			log_tag[0] ? ": " : "");
	if (head < 0 || (size_t)head >= sizeof(line))
		return;
	body = vsnprintf(line + head, sizeof(line) - (size_t)head, fmt, ap);
	if (body < 0)
		body = 0;
	n = (size_t)head + (size_t)body;
	if (n > sizeof(line) - sizeof(cut)) {
		n = sizeof(line) - sizeof(cut);
		memcpy(line + n, cut, sizeof(cut) - 1);
		n += sizeof(cut) - 1;
	}
	line[n++] = '\n';
	write_all(line, n);
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
