/*
 * launcher_int: what the two launchers (launcher_docker.c, launcher_oci.c)
 * share behind launcher.h. A launcher and each of its launches begin with
 * these headers; the public functions of launcher.c dispatch through ops.
 */
#ifndef AIRLOCK_LAUNCH_LAUNCHER_INT_H
#define AIRLOCK_LAUNCH_LAUNCHER_INT_H

#include "launch/launcher.h"

struct event;

struct launcher_ops {
	struct launch *(*run)(struct launcher *l, const struct launch_spec *spec, const struct launch_callbacks *cb,
			      void *arg);
	void (*kill)(struct launch *la); /* stop it now; only while the caller holds its handle, or at release */
	unsigned (*live)(const struct launcher *l);
	void (*free)(struct launcher *l);
};

/* The first member of each launcher. */
struct launcher {
	const struct launcher_ops *ops;
};

/*
 * The first member of each launch: its owner and its callbacks, which are
 * only ever delivered from its notify event (launcher.c), so that no
 * callback runs inside a launcher call.
 */
struct launch {
	struct launcher *owner;
	struct launch_callbacks cb;
	void *arg;
	struct event *notify;
	void (*settled)(struct launch *la); /* after each delivery: the launcher may free la */
	bool released;                      /* the caller's handle is dead: nothing more is delivered */
	bool final_done;                    /* the last callback has returned */
	bool started_pending;
	bool started_ok;
	bool exited_pending;
	bool killed;
	const char *code;
	char error[256];
	int exit_code;
};

/* Sets up la's callbacks on evb; settled is told after each delivery. -1 when out of memory. */
int launch_init(struct launch *la, struct launcher *owner, struct event_base *evb, const struct launch_callbacks *cb,
		void *arg, void (*settled)(struct launch *la));
void launch_fini(struct launch *la);
/* Frees *ev (owned by the caller) when it is set and clears the pointer. */
void launch_event_free(struct event **ev);
/* Queue on_started / on_exited for the next loop pass (nothing once released). */
void launch_notify_started(struct launch *la, bool ok, const char *code, const char *error);
void launch_notify_exited(struct launch *la, int exit_code, bool killed);
/* The caller gives up its handle: nothing queued is delivered; settled is told on the next pass. */
void launch_release_handle(struct launch *la);
/* May the launcher free la as far as its caller is concerned? */
bool launch_caller_done(const struct launch *la);

/* dst gets src with its strings copied (the launch's own). -1 when out of memory (dst then holds what was copied). */
int launch_spec_copy(struct launch_spec *dst, const struct launch_spec *src);
void launch_spec_free(struct launch_spec *sp);
/* One line on stderr about job_id's launch. */
void launch_log(const char *job_id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * What is wrong with spec before any runtime is asked, or NULL. The image
 * is checked only when need_image (Docker); the OCI launcher has its root
 * filesystem from its own options.
 */
const char *launch_spec_problem(const struct launch_spec *spec, bool need_image);

#endif
