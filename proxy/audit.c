/*
 * audit: JSON lines through jansson, one per statement or failed login,
 * each written whole with one write and chained to the line before it
 * (proxy/audit_chain.h).
 */
#define _GNU_SOURCE
#include "proxy/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "proxy/audit_chain.h"
#include "proxy/stats.h"

struct audit {
	int fd;
	bool own;
	bool remote;                    /* a worker's: records go to the supervisor, which chains them */
	char prev[AUDIT_CHAIN_HEX + 1]; /* the hash of the last line written, the next record's "prev" */
	struct stats *stats;            /* borrowed (audit_count_approvals); NULL: not counted */
	char config[65];                /* the configuration's checksum (audit_set_config); "" before */
	/* remote: records made, not yet sent (owned), and the event that sends them (NULL: sent at once) */
	char **pending;
	size_t npending, pending_cap;
	struct event *send_ev;
};

/* Writes all of buf; false with errno when the file did not take it. */
static bool write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * An existing log is continued: the chain goes on from its last complete
 * line. Bytes after that line's newline are a write cut short (a crash):
 * a newline ends them, so they stay one broken line the verifier reports.
 */
static int continue_chain(struct audit *a)
{
	struct stat st;
	bool torn;

	if (fstat(a->fd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode))
		return 0; /* a pipe or a terminal: nothing to read back */
	if (audit_chain_tail(a->fd, a->prev, &torn) < 0)
		return -1;
	return torn && !write_all(a->fd, "\n", 1) ? -1 : 0;
}

int audit_reopen(struct audit *a, const char *path)
{
	struct audit b = {.own = true};
	struct stat st;

	if (!a || !a->own || a->remote || !strcmp(path, "-"))
		return 0;
	/*
	 * A file moved away (logrotate) leaves path new or empty: its first
	 * record links to the last one written to the old file. A file still
	 * there is continued from its own last line, as at start.
	 */
	memcpy(b.prev, a->prev, sizeof(b.prev));
	b.fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (b.fd < 0)
		return -1;
	if (fstat(b.fd, &st) < 0 || (st.st_size > 0 && continue_chain(&b) < 0)) {
		int saved = errno;

		close(b.fd);
		errno = saved;
		return -1;
	}
	close(a->fd);
	a->fd = b.fd;
	memcpy(a->prev, b.prev, sizeof(a->prev));
	return 0;
}

struct audit *audit_open(const char *path)
{
	struct audit *a = calloc(1, sizeof(*a));
	int saved;

	if (!a)
		return NULL;
	memcpy(a->prev, audit_chain_zero, sizeof(a->prev));
	if (!strcmp(path, "-")) {
		a->fd = STDERR_FILENO;
		return a;
	}
	a->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (a->fd < 0)
		goto out_free;
	a->own = true;
	if (continue_chain(a) < 0)
		goto out_close;
	return a;
out_close:
	saved = errno;
	close(a->fd);
	errno = saved;
out_free:
	saved = errno;
	free(a);
	errno = saved;
	return NULL;
}

/* One record to the supervisor, whole. */
static void send_record(const struct audit *a, const char *line)
{
	while (send(a->fd, line, strlen(line), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static void send_pending(struct audit *a)
{
	for (size_t i = 0; i < a->npending; i++) {
		send_record(a, a->pending[i]);
		free(a->pending[i]);
	}
	a->npending = 0;
}

static void send_cb(evutil_socket_t fd, short what, void *arg)
{
	send_pending(arg);
}

struct audit *audit_open_remote(int fd, struct event_base *base)
{
	struct audit *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->fd = fd;
	a->remote = true;
	/* Without the event, records are sent as they are made. */
	a->send_ev = base ? evtimer_new(base, send_cb, a) : NULL;
	return a;
}

/* Keeps line (taken) to be sent once the loop has handled what is ready; false: not kept, not taken. */
static bool keep(struct audit *a, char *line)
{
	static const struct timeval now = {0, 0};

	if (!a->send_ev)
		return false;
	if (a->npending == a->pending_cap) {
		size_t cap = a->pending_cap ? a->pending_cap * 2 : 16;
		char **p = realloc(a->pending, cap * sizeof(*p));

		if (!p)
			return false;
		a->pending = p;
		a->pending_cap = cap;
	}
	a->pending[a->npending++] = line;
	/* A zero timer runs after the I/O the next poll reports: the client's answer goes out first. */
	if (a->npending == 1)
		evtimer_add(a->send_ev, &now);
	return true;
}

/* Writes line (len bytes, then room for one more) with "prev" and the newline; the chain moves on once written. */
static void chain_and_write(struct audit *a, char *line, size_t len)
{
	char hash[AUDIT_CHAIN_HEX + 1];

	if (!audit_chain_hash(line, len, hash))
		return;
	line[len] = '\n';
	if (write_all(a->fd, line, len + 1))
		memcpy(a->prev, hash, sizeof(a->prev));
}

int audit_append(struct audit *a, const char *body, size_t len)
{
	char *line;
	json_t *o;
	int rc = -1;

	/* One JSON object on one line, as a worker's audit_write made it, with no "prev" of its own. */
	if (!a || a->remote || len < 2 || len > AUDIT_MAX_RECORD || body[0] != '{' || memchr(body, '\n', len) ||
	    memchr(body, '\r', len))
		return -1;
	o = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o) || json_object_get(o, "prev") ||
	    json_object_set_new(o, "prev", json_string(a->prev)) < 0)
		goto out;
	/* Dumped again as the worker dumped it: the same bytes for its records, and "prev" last. */
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (line) {
		chain_and_write(a, line, strlen(line));
		free(line);
		rc = 0;
	}
out:
	json_decref(o);
	return rc;
}

/* The current time as ISO 8601 UTC with milliseconds. */
static void audit_now(char when[40])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), 40 - strlen(when), ".%03ldZ", ts.tv_nsec / 1000000);
}

/*
 * Writes o as one line, its last key "prev", and releases it. The chain
 * moves on only when the whole line was written. 15 significant digits
 * print a number rounded to 3 decimals as just those (ms).
 */
static void audit_write(struct audit *a, json_t *o)
{
	char *line = NULL;
	size_t len;

	if (a->config[0] && json_object_set_new(o, "config", json_string(a->config)) < 0)
		goto out_decref;
	if (a->remote) {
		/* The supervisor adds "prev": the one chain of every worker's records is its. */
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
		if (line && !keep(a, line)) {
			send_record(a, line);
			free(line);
		}
		goto out_decref;
	}
	if (json_object_set_new(o, "prev", json_string(a->prev)) < 0)
		goto out_decref;
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (!line)
		goto out_decref;
	len = strlen(line);
	chain_and_write(a, line, len); /* json_dumps's NUL: the line goes out with its newline in one write */
	free(line);
out_decref:
	json_decref(o);
}

/* A client's text as a JSON string: what is not UTF-8 is still recorded, its other bytes as '?'. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	char ascii[256];
	size_t i;

	if (j)
		return j;
	for (i = 0; s[i] && i + 1 < sizeof(ascii); i++)
		ascii[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	ascii[i] = '\0';
	return json_string(ascii);
}

void audit_login_failed(struct audit *a, const char *user, uint32_t session, const char *protocol, const char *client,
			const char *sqlstate, uint32_t wait_ms)
{
	char when[40];
	json_t *o, *name;

	if (!a)
		return;
	audit_now(when);
	name = text(user);
	o = json_pack("{s:s, s:o, s:I, s:s, s:s, s:s, s:s, s:I}", "ts", when, "user", name, "session",
		      (json_int_t)session, "decision", "login_failed", "protocol", protocol, "client", client,
		      "sqlstate", sqlstate, "wait_ms", (json_int_t)wait_ms);
	if (o)
		audit_write(a, o);
}

void audit_set_config(struct audit *a, const char *checksum)
{
	if (a)
		snprintf(a->config, sizeof(a->config), "%s", checksum ? checksum : "");
}

void audit_count_approvals(struct audit *a, struct stats *st)
{
	if (a)
		a->stats = st;
}

void audit_record(struct audit *a, const struct audit_entry *e)
{
	char when[40], fp[20];
	json_t *o;

	if (!a)
		return;
	if (e->approval)
		stats_approval(a->stats, e->decision);
	audit_now(when);
	snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)e->fingerprint);
	o = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:f}", "ts", when, "user", e->user ? e->user : "", "session",
		      (json_int_t)e->session, "fingerprint", fp, "decision", e->decision, "rows", (json_int_t)e->rows,
		      "bytes", (json_int_t)e->bytes, "ms", round(e->ms * 1000.0) / 1000.0);
	if (!o)
		return;
	if (e->protocol) {
		json_object_set_new(o, "protocol", json_string(e->protocol));
		json_object_set_new(o, "client", json_string(e->client ? e->client : ""));
		json_object_set_new(o, "application_name", text(e->application ? e->application : ""));
	}
	if (e->sqlstate)
		json_object_set_new(o, "sqlstate", json_string(e->sqlstate));
	if (e->code != AIRLOCK_E_NONE)
		json_object_set_new(o, "code", json_string(airlock_err_name(e->code)));
	if (e->truncated)
		json_object_set_new(o, "truncated", json_string(e->truncated == 1 ? "max_rows" : "max_bytes"));
	if (e->approval)
		json_object_set_new(o, "approval", json_string(e->approval));
	if (e->by)
		json_object_set_new(o, "by", json_string(e->by));
	if (e->reason && e->reason[0])
		json_object_set_new(o, "reason", json_string(e->reason));
	audit_write(a, o);
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	send_pending(a);
	free(a->pending);
	if (a->send_ev)
		event_free(a->send_ev);
	if (a->own || a->remote)
		close(a->fd);
	free(a);
}
