/*
 * launcher_int: what the two launchers (launcher_docker.c, launcher_oci.c)
 * share behind launcher.h. A launcher and each of its launches begin with
 * these headers; the public functions of launcher.c dispatch through ops.
 */
#ifndef AIRLOCK_RUNNER_LAUNCH_LAUNCHER_INT_H
#define AIRLOCK_RUNNER_LAUNCH_LAUNCHER_INT_H

#include "runner/launch/launcher.h"

struct launcher_ops {
	struct launch *(*run)(struct launcher *l, const struct launch_spec *spec, const struct launch_callbacks *cb,
			      void *arg);
	void (*kill)(struct launch *la);
	void (*release)(struct launch *la, bool kill_now);
	unsigned (*live)(const struct launcher *l);
	void (*free)(struct launcher *l);
};

/* The first member of each launcher. */
struct launcher {
	const struct launcher_ops *ops;
};

/* The first member of each launch. */
struct launch {
	struct launcher *owner;
};

/*
 * What is wrong with spec before any runtime is asked, or NULL. The image
 * is checked only when need_image (Docker); the OCI launcher has its root
 * filesystem from its own options.
 */
const char *launch_spec_problem(const struct launch_spec *spec, bool need_image);

#endif
