/*
 * launcher: runs one-shot runner containers, on one of two runtimes,
 * driven by the caller's libevent base. Nothing blocks the loop. This
 * header is the whole interface.
 *
 *  - Docker: the Engine API over the engine's unix socket (libcurl multi);
 *    create -> start -> wait -> remove (DELETE ?force=1).
 *  - OCI: an OCI runtime binary (runc, crun) run directly: a bundle with a
 *    generated config.json per container, `run` as a child process reaped
 *    through a pidfd, `kill` and `delete --force` when it must stop.
 *
 * Either way the container is always removed, whatever happened: failed
 * start, kill deadline, caller release, or launcher shutdown.
 *
 * launch/ is the host side of the runner: launcher.c (dispatch and
 * the spec checks both make), launcher_docker.c and launcher_http.c (the
 * Engine API), launcher_oci.c (the runtime's processes), oci_spec.c (the
 * config.json), oci_rootfs.c (the pinned root filesystem), oci_sync.c (the
 * start-up checks and sweep) and image_ref.c (the pinned-image rule, pure,
 * which conf/ uses too). A launch is owned by the launcher until its
 * container is removed; the caller holds it only until release.
 */
#ifndef AIRLOCK_LAUNCH_LAUNCHER_H
#define AIRLOCK_LAUNCH_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct launcher;
struct launch;

/*
 * The one variable either runtime puts in a runner's environment beyond
 * PATH: libpq loads libldap and with it GnuTLS, whose load-time set-up
 * (about 0.4 ms of CPU per runner, measured) only LDAP over TLS would
 * use, and a runner never reaches LDAP. Nothing in the runner calls
 * GnuTLS; libldap would set it up itself before any use.
 */
#define LAUNCH_RUNNER_ENV "GNUTLS_NO_IMPLICIT_INIT=1"

/* Container settings. All strings are copied by launcher_run. */
struct launch_spec {
	const char *image;      /* pinned (image_ref_pinned): "sha256:<64 hex>" or "name@sha256:<64 hex>" */
	const char *user;       /* "uid:gid", never root */
	const char *job_dir;    /* host directory, bind-mounted read-only at /job */
	const char *job_id;     /* label airlock.job=<job_id>, and container name suffix */
	uint64_t memory_bytes;  /* Memory and MemorySwap */
	uint64_t nano_cpus;     /* NanoCpus */
	int64_t pids_limit;     /* PidsLimit */
	uint32_t kill_after_ms; /* force-remove this long after start; 0 = never */
};

/*
 * Callbacks. Each is called at most once, on the event loop, never from
 * inside launcher_run. error is a short human-readable reason (borrowed,
 * valid during the call) and code one of "DOCKER_UNAVAILABLE",
 * "RUNTIME_UNAVAILABLE", "IMAGE_UNAVAILABLE", "LAUNCH_FAILED".
 *  on_started: the container is running (or failed to; then ok=false and
 *              on_exited will not be called).
 *  on_exited:  the container stopped; exit_code is its status, killed is
 *              true when the kill deadline or launcher_kill ended it.
 */
struct launch_callbacks {
	void (*on_started)(void *arg, bool ok, const char *code, const char *error);
	void (*on_exited)(void *arg, int exit_code, bool killed);
};

/* New Docker launcher on base. docker_socket is e.g. "/var/run/docker.sock". Copies it. */
struct launcher *launcher_new_docker(struct event_base *base, const char *docker_socket);

/* What the OCI launcher needs. Strings are copied. */
struct oci_options {
	const char *runtime;    /* absolute path of the runtime binary (runc, crun) */
	const char *state_dir;  /* root-only directory of this airlockd: the runtime's state, the bundles */
	const char *rootfs;     /* the unpacked, checked root filesystem (oci_rootfs_prepare_sync); NULL: none */
	const char *rootfs_ref; /* its pinned archive, to unpack it again if the tree disappears; NULL: never */
	bool userns;            /* a user namespace per container */
};

/*
 * New OCI launcher on base. Every launch without a rootfs fails with
 * IMAGE_UNAVAILABLE, and when the runtime cannot be run, with
 * RUNTIME_UNAVAILABLE: never with another runtime.
 */
struct launcher *launcher_new_oci(struct event_base *base, const struct oci_options *opts);
/* Force-removes every live container of this launcher, then frees it (blocking; call at exit only). */
void launcher_free(struct launcher *l);

/*
 * Starts a launch. Returns NULL only on allocation failure; every other
 * failure is reported through on_started(ok=false), including a spec that
 * is refused before Docker is asked (LAUNCH_FAILED): an image not pinned by
 * digest, a user that is not a numeric "uid:gid" with uid not 0, a relative
 * job_dir, a job_id outside [A-Za-z0-9_.-]{1,64}, or a zero memory, CPU or
 * PID limit. The launch is owned by
 * the launcher; the caller holds a borrowed handle until it calls
 * launcher_release or on_exited/on_started(false) has returned.
 */
struct launch *launcher_run(struct launcher *l, const struct launch_spec *spec, const struct launch_callbacks *cb,
			    void *arg);

/*
 * Kill now (force remove). Callbacks still fire (on_exited with killed=true).
 * A kill before the create is answered ends the launch with
 * on_started(ok=false, "LAUNCH_FAILED", "killed before start"); a kill
 * during the start takes effect as soon as the container runs.
 */
void launcher_kill(struct launch *la);

/*
 * The caller gives up its handle: no callback fires after this returns. The
 * launcher still waits for and removes the container (killing it first if
 * kill_now).
 */
void launcher_release(struct launch *la, bool kill_now);

/* Number of containers created and not yet removed. */
unsigned launcher_live(const struct launcher *l);

/*
 * Synchronous checks of the Docker engine for start-up and tests (block up to timeout_ms; never
 * call them from a running loop's callbacks). Return 0 on success, or -1 and
 * write a reason into err.
 */
int launcher_ping_sync(const char *docker_socket, uint32_t timeout_ms, char *err, size_t errlen);
int launcher_image_present_sync(const char *docker_socket, const char *image, uint32_t timeout_ms, char *err,
				size_t errlen);
/*
 * Removes leftover containers labelled airlock.job (from a crashed run)
 * whose airlock.root label (the parent of their job directory) is job_root;
 * job_root NULL removes every airlock container. Returns count or -1.
 */
int launcher_sweep_sync(const char *docker_socket, const char *job_root, uint32_t timeout_ms);

/*
 * The OCI runtime's start-up checks: 0 when runtime runs (its --version),
 * or -1 with a reason. The sweep force-deletes every container in
 * state_dir's runtime root whose id has the airlock prefix and removes
 * every bundle left there; it returns the number of containers or -1.
 */
int oci_runtime_check_sync(const char *runtime, char *err, size_t errlen);
int oci_sweep_sync(const char *runtime, const char *state_dir);

/* True when state_dir's runtime root names no container (or is not there): nothing to ask the runtime about. */
bool oci_state_empty(const char *state_dir);

#endif
