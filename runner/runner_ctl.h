/*
 * runner_ctl: airlock-runner's side of the job's control socket. Connects,
 * reads the one job frame, queues result frames and writes them out in
 * full, and notices a cancel frame or the proxy going away while a
 * statement runs. Owns its socket and output buffer; runner_ctl_close
 * releases both.
 *
 * Threads: the writing side (out, broken, the queue and flush functions)
 * and the reading side (in, in_len, runner_ctl_on_readable) touch
 * different fields, so one thread may watch for 'X' while another writes
 * frames (runner_my does that). Nothing here locks: each side must have
 * a single owner at a time.
 */
#ifndef AIRLOCK_RUNNER_CTL_H
#define AIRLOCK_RUNNER_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "base/frame.h"

/* Output is written once this much is queued (and before any wait). */
#define RUNNER_CTL_FLUSH_AT (64u * 1024u)
/* Longest text put in an error or notice field; longer text is cut. */
#define RUNNER_CTL_MAX_TEXT 8192u

struct runner_ctl {
	int fd;
	uint8_t in[32]; /* partial inbound frame while a statement runs */
	size_t in_len;
	struct wbuf out; /* frames queued for the proxy */
	bool broken;     /* a write failed; nothing more will be sent */
};

enum runner_ctl_event {
	RUNNER_CTL_NOTHING,
	RUNNER_CTL_CANCEL,
	RUNNER_CTL_GONE, /* EOF, socket error or a frame that is not 'X' */
};

/* 0 or -1 (message on stderr). path must fit a sockaddr_un. */
int runner_ctl_connect(struct runner_ctl *c, const char *path);
void runner_ctl_close(struct runner_ctl *c);

/*
 * Reads exactly one 'J' frame. On success *buf (malloc'd, caller frees)
 * holds the frame and f points into it. -1 on EOF, I/O error, another type
 * or a payload above FRAME_MAX_PAYLOAD.
 */
int runner_ctl_read_job(struct runner_ctl *c, uint8_t **buf, struct frame *f);

/* Call when the socket polled readable; reads what is there without blocking. */
enum runner_ctl_event runner_ctl_on_readable(struct runner_ctl *c);

/* Closes the frame being built and flushes when enough is queued. -1 when broken. */
int runner_ctl_commit(struct runner_ctl *c);
/* Writes everything queued. -1 when broken. */
int runner_ctl_flush(struct runner_ctl *c);

/* Queue an 'E' or 'N' frame; NULL fields are sent as "". */
int runner_ctl_error(struct runner_ctl *c, uint8_t type, const char *sqlstate, const char *code, const char *message,
		     const char *detail, const char *hint);
/* Same, for a backend error that carries the statement position ("" when none). */
int runner_ctl_error_at(struct runner_ctl *c, const char *sqlstate, const char *message, const char *detail,
			const char *hint, const char *position);
/*
 * Queue an 'E' or 'N' frame for a MySQL backend: empty detail and position,
 * then my_errno in decimal. A my_errno of 0 or above 65535 is sent as 1105
 * (ER_UNKNOWN_ERROR), which always fits a MySQL ERR packet.
 */
int runner_ctl_error_my(struct runner_ctl *c, uint8_t type, const char *sqlstate, const char *code, unsigned my_errno,
			const char *message, const char *hint);
/* Queue a 'B' frame: the database's process id for this connection (Postgres), and the login's SCRAM salt (base64)
 * and iterations when salt_b64 is not NULL. */
int runner_ctl_backend(struct runner_ctl *c, uint32_t pid, const char *salt_b64, uint32_t iterations);
/* Queue a 'C' frame. */
int runner_ctl_complete(struct runner_ctl *c, uint64_t rows, enum frame_trunc trunc, const char *tag);
/* Same, with the MySQL backend's warning count (capped at 65535). */
int runner_ctl_complete_my(struct runner_ctl *c, uint64_t rows, enum frame_trunc trunc, const char *tag,
			   unsigned warnings);

#endif
