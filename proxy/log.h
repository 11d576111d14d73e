/*
 * log: timestamped lines on stderr. Callers prefix the identity of what
 * they log about (e.g. "session 1234:"); secrets are never passed in.
 */
#ifndef AIRLOCK_PROXY_LOG_H
#define AIRLOCK_PROXY_LOG_H

/* Every later line starts with tag and ": " (a worker's "worker 1"); NULL or "": none. Copied. */
void log_set_tag(const char *tag);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);

#endif
