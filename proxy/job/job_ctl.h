/*
 * job_ctl: the proxy's end of one runner's control connection. It writes
 * what the job sends (credentials, the statement, a cancel) and reads
 * result frames back: a frame's length is checked against
 * FRAME_MAX_PAYLOAD before any of it is buffered, the input grows to one
 * whole frame at most, and whole frames are handed to the owner one at a
 * time, in order, while reading is not paused. It knows nothing of jobs.
 *
 * Ownership: the owner makes and frees it. Events run on the loop from the
 * connection's own callbacks; inside one the owner may free the job_ctl,
 * and then on_frame must return false.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_CTL_H
#define AIRLOCK_PROXY_JOB_JOB_CTL_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct frame;
struct job_ctl;

struct job_ctl_events {
	/*
	 * One whole frame, borrowed for the call. true: it was used, go on
	 * with the next; false: stop now and keep it (the owner may have
	 * freed the job_ctl).
	 */
	bool (*on_frame)(void *arg, const struct frame *f);
	/* The runner sent bytes that are not a frame; reason is static text. Nothing more is read. */
	void (*on_bad)(void *arg, const char *reason);
	/* The runner closed the connection, or it failed. */
	void (*on_closed)(void *arg);
};

/*
 * Takes ownership of the connected socket fd (closed here on failure).
 * Reading starts paused. ev is borrowed and must outlive the job_ctl.
 * NULL when out of memory.
 */
struct job_ctl *job_ctl_new(struct event_base *base, int fd, const struct job_ctl_events *ev, void *arg);
/* Closes the connection; no event follows. NULL is ignored. */
void job_ctl_free(struct job_ctl *c);
/* Queues bytes for the runner (copied). */
void job_ctl_write(struct job_ctl *c, const void *data, size_t len);
/*
 * Stops or resumes reading. Resuming does not hand on what is already
 * buffered (it never calls back from inside): job_ctl_process does.
 */
void job_ctl_pause(struct job_ctl *c, bool paused);
/* Hands on the whole frames already buffered, as if they had just arrived. */
void job_ctl_process(struct job_ctl *c);

#endif
