/*
 * launcher_oci: the launch state machine of launcher.h on an OCI runtime
 * binary (runc or crun), run directly.
 *
 * A launch writes its bundle (<state_dir>/bundles/<container id>/, the
 * generated config.json; the container never sees it) and runs
 * `RUNTIME --root <state_dir>/runtime run --bundle B --pid-file B/pid ID`
 * in the foreground: that process lives as long as the container and
 * exits with the runner's status. The container has started once the
 * runtime writes the pid file (polled while it starts); if the runtime
 * exits without one, the container never ran and the launch fails with
 * the runtime's own words. A kill runs `RUNTIME kill ID KILL`; a runtime
 * that does not end a killed container in time is itself killed and
 * `delete --force` cleans up. After every run the bundle is removed, and
 * the runtime's state too when it is left (`delete --force`).
 *
 * Ownership as in launcher_docker.c: the launcher owns every launch and
 * frees it once nothing of it is left and the caller's handle is dead.
 * Callbacks are only called from the launch's notify event.
 */
#define _GNU_SOURCE
#include "base/dlist.h"
#include "launch/launcher_int.h"
#include "launch/oci_proc.h"
#include "launch/oci_rootfs.h"
#include "launch/oci_spec.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START_POLL_MS 3    /* pid file checks while the runtime starts the container */
#define KILL_GRACE_MS 5000 /* a killed container's runtime gets this long to exit */
#define SHUTDOWN_TIMEOUT_MS 10000u
/* At shutdown, a runner still starting is killed again this often until its run ends. */
#define SHUTDOWN_RETRY_MS 250u

struct olauncher {
	struct launcher base; /* first */
	struct event_base *evb;
	char *runtime;
	char *rootfs;     /* NULL: no checked root filesystem */
	char *rootfs_ref; /* the pinned archive it came from; NULL: it is never unpacked again */
	char state[4096]; /* where it is unpacked */
	bool rootfs_lost; /* it disappeared and could not be unpacked again (said once in the log) */
	bool userns;
	uint64_t fsize;     /* the runner's RLIMIT_FSIZE: 0, or OCI_FSIZE_CRUN for crun */
	char root[4096];    /* the runtime's --root */
	char bundles[4096]; /* bundle directories */
	struct olaunch *launches;
	unsigned live;
};

struct olaunch {
	struct launch base; /* first */
	struct olauncher *l;
	struct olaunch *next;
	struct olaunch *prev;
	struct launch_spec spec; /* strings owned */
	char id[96];
	char bundle[4200];
	struct oci_proc *run; /* the runtime's run, while it lives */
	struct oci_proc *aux; /* a kill or delete in flight */
	struct event *poll_timer;
	struct event *kill_timer;  /* kill_after_ms */
	struct event *grace_timer; /* after a kill */
	bool live;                 /* counted in l->live: a container may exist */
	bool started;              /* the pid file was seen */
	bool kill_wanted;
	bool kill_sent;
	bool deleting;
	bool done; /* nothing of the container is left */
};

static void launch_maybe_free(struct olaunch *la);
static void launch_send_kill(struct olaunch *la);

#define log_launch(la, ...) launch_log((la)->spec.job_id, __VA_ARGS__)

/* ---- bundle ---- */

static int bundle_write(struct olaunch *la, char *err, size_t errlen)
{
	char path[4300];
	json_t *cfg;
	int rc;

	if (mkdir(la->bundle, 0700) < 0) {
		snprintf(err, errlen, "cannot make the bundle %.180s: %s", la->bundle, strerror(errno));
		return -1;
	}
	cfg = oci_spec_config(&la->spec, la->l->rootfs, la->l->userns, la->l->fsize);
	snprintf(path, sizeof(path), "%s/config.json", la->bundle);
	rc = cfg ? json_dump_file(cfg, path, JSON_COMPACT) : -1;
	json_decref(cfg);
	if (rc < 0)
		snprintf(err, errlen, "cannot write %.200s", path);
	return rc;
}

static void bundle_remove(struct olaunch *la)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/config.json", la->bundle);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pid", la->bundle);
	unlink(path);
	if (rmdir(la->bundle) < 0 && errno != ENOENT)
		log_launch(la, "cannot remove the bundle %s: %s", la->bundle, strerror(errno));
}

static bool pid_file_written(const struct olaunch *la)
{
	char path[4300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/pid", la->bundle);
	return stat(path, &st) == 0 && st.st_size > 0;
}

/* Does the runtime still keep state for the container? */
static bool state_left(const struct olaunch *la)
{
	char path[4300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", la->l->root, la->id);
	return lstat(path, &st) == 0;
}

/* ---- the end of a launch ---- */

/* Stops each of the launch's timers that exists, or (free_them) frees it. */
static void timers_end(struct olaunch *la, bool free_them)
{
	struct event **timers[] = {&la->poll_timer, &la->kill_timer, &la->grace_timer};

	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		if (free_them)
			launch_event_free(timers[i]);
		else if (*timers[i])
			evtimer_del(*timers[i]);
	}
}

static void launch_finish(struct olaunch *la)
{
	bundle_remove(la);
	if (la->live) {
		la->live = false;
		la->l->live--;
	}
	la->done = true;
	timers_end(la, false);
	launch_maybe_free(la);
}

static void on_delete_done(void *arg, int status, const char *head, const char *tail)
{
	struct olaunch *la = arg;

	(void)head;
	la->aux = NULL;
	if (status != 0 && state_left(la))
		log_launch(la, "delete --force %s failed (%d): %s", la->id, status, tail);
	launch_finish(la);
}

static void launch_delete(struct olaunch *la)
{
	char *argv[] = {la->l->runtime, "--root", la->l->root, "delete", "--force", la->id, NULL};

	la->deleting = true;
	if (la->aux) {
		oci_proc_forget(la->aux); /* a kill still in flight: it is moot now */
		la->aux = NULL;
	}
	la->aux = oci_proc_spawn(la->l->evb, argv, on_delete_done, la);
	if (!la->aux) {
		log_launch(la, "cannot run delete --force %s", la->id);
		launch_finish(la);
	}
}

/* How the runtime's status reads: "killed" when a kill was sent. */
static void on_run_done(void *arg, int status, const char *head, const char *tail)
{
	struct olaunch *la = arg;
	bool started = la->started || (status >= 0 && pid_file_written(la));

	(void)head;
	la->run = NULL;
	if (la->poll_timer)
		evtimer_del(la->poll_timer);
	if (status < 0) {
		launch_notify_started(&la->base, false, "RUNTIME_UNAVAILABLE", head);
	} else if (!started) {
		char msg[256];

		if (la->kill_wanted)
			snprintf(msg, sizeof(msg), "killed before start");
		else
			snprintf(msg, sizeof(msg), "%s exited %d before the container ran: ...%s", la->l->runtime,
				 status, tail + (strlen(tail) > 160 ? strlen(tail) - 160 : 0));
		log_launch(la, "%s", msg);
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", msg);
	} else {
		if (!la->started)
			launch_notify_started(&la->base, true, NULL, NULL);
		la->started = true;
		launch_notify_exited(&la->base, status, la->kill_sent);
	}
	if (status >= 0 && state_left(la))
		launch_delete(la);
	else if (!la->aux)
		launch_finish(la);
	else
		la->deleting = true; /* the kill in flight finishes it */
}

static void on_poll(evutil_socket_t fd, short what, void *arg)
{
	struct olaunch *la = arg;
	struct timeval tv = {0, START_POLL_MS * 1000};

	(void)fd;
	(void)what;
	if (!la->run || la->started)
		return;
	if (!pid_file_written(la)) {
		evtimer_add(la->poll_timer, &tv);
		return;
	}
	la->started = true;
	launch_notify_started(&la->base, true, NULL, NULL);
	if (la->spec.kill_after_ms) {
		struct timeval kt = {la->spec.kill_after_ms / 1000, (la->spec.kill_after_ms % 1000) * 1000};

		evtimer_add(la->kill_timer, &kt);
	}
	if (la->kill_wanted)
		launch_send_kill(la);
}

/* ---- kill ---- */

static void on_kill_done(void *arg, int status, const char *head, const char *tail)
{
	struct olaunch *la = arg;

	(void)status;
	(void)head;
	(void)tail;
	la->aux = NULL;
	if (la->deleting && !la->run)
		launch_finish(la);
}

static void on_grace(evutil_socket_t fd, short what, void *arg)
{
	struct olaunch *la = arg;

	(void)fd;
	(void)what;
	if (!la->run)
		return;
	/* The runtime did not end the container: end the runtime; delete --force follows its exit. */
	log_launch(la, "the runtime did not stop %s in time; killing it", la->id);
	oci_proc_signal(la->run, SIGKILL);
}

static void launch_send_kill(struct olaunch *la)
{
	char *argv[] = {la->l->runtime, "--root", la->l->root, "kill", la->id, "KILL", NULL};

	if (la->kill_sent || !la->run || la->aux)
		return;
	la->kill_sent = true;
	la->aux = oci_proc_spawn(la->l->evb, argv, on_kill_done, la);
}

static void launch_want_kill(struct olaunch *la)
{
	struct timeval tv = {KILL_GRACE_MS / 1000, (KILL_GRACE_MS % 1000) * 1000};

	la->kill_wanted = true;
	if (la->run && !evtimer_pending(la->grace_timer, NULL))
		evtimer_add(la->grace_timer, &tv);
	/* Not started yet: on_poll sends it once the container exists, or the runtime's exit settles it. */
	if (la->started)
		launch_send_kill(la);
}

static void on_kill_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	launch_want_kill(arg);
}

/* ---- launches ---- */

static void launch_destroy(struct olaunch *la)
{
	struct olauncher *l = la->l;

	DLIST_UNLINK(l->launches, la);
	if (la->run)
		oci_proc_forget(la->run);
	if (la->aux)
		oci_proc_forget(la->aux);
	timers_end(la, true);
	launch_fini(&la->base);
	launch_spec_free(&la->spec);
	free(la);
}

static void launch_maybe_free(struct olaunch *la)
{
	if (la->done && !la->run && !la->aux && launch_caller_done(&la->base))
		launch_destroy(la);
}

static void launch_settled(struct launch *base)
{
	launch_maybe_free((struct olaunch *)base);
}

/*
 * The unpacked root filesystem is there, or unpacked again from its pinned
 * archive (hashed and checked again) when something removed it; false
 * when it cannot be, after which every launch fails, as the log says once.
 */
static bool rootfs_ready(struct olauncher *l)
{
	char out[4096], err[512];
	struct stat st;
	char *copy;

	if (!l->rootfs)
		return false;
	if (stat(l->rootfs, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	if (l->rootfs_lost || !l->rootfs_ref)
		return false;
	if (oci_rootfs_prepare_sync(l->rootfs_ref, l->state, out, sizeof(out), err, sizeof(err)) < 0 ||
	    !(copy = strdup(out))) {
		launch_log(NULL,
			   "runner root filesystem %s disappeared and cannot be unpacked again: %s; "
			   "every statement fails until airlockd is restarted",
			   l->rootfs, err);
		l->rootfs_lost = true;
		return false;
	}
	launch_log(NULL, "runner root filesystem %s disappeared; unpacked %s again as %s", l->rootfs, l->rootfs_ref,
		   copy);
	free(l->rootfs);
	l->rootfs = copy;
	return true;
}

static void launch_begin(struct olaunch *la)
{
	char pidfile[4300], err[256];
	char *argv[] = {la->l->runtime, "--root",     la->l->root, "run",  "--bundle",
			la->bundle,     "--pid-file", pidfile,     la->id, NULL};
	struct timeval tv = {0, START_POLL_MS * 1000};
	const char *problem = launch_spec_problem(&la->spec, false);

	if (problem) {
		la->done = true;
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", problem);
		return;
	}
	if (!rootfs_ready(la->l)) {
		la->done = true;
		launch_notify_started(&la->base, false, "IMAGE_UNAVAILABLE",
				      la->l->rootfs_lost ? "the runner root filesystem disappeared and could not be "
							   "unpacked again from its pinned archive"
							 : "no checked runner root filesystem");
		return;
	}
	snprintf(la->id, sizeof(la->id), OCI_ID_PREFIX "%s", la->spec.job_id);
	snprintf(la->bundle, sizeof(la->bundle), "%s/%s", la->l->bundles, la->id);
	snprintf(pidfile, sizeof(pidfile), "%s/pid", la->bundle);
	if (bundle_write(la, err, sizeof(err)) < 0) {
		bundle_remove(la);
		la->done = true;
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", err);
		return;
	}
	la->live = true;
	la->l->live++;
	la->run = oci_proc_spawn(la->l->evb, argv, on_run_done, la);
	if (!la->run) {
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", "out of memory");
		launch_finish(la);
		return;
	}
	evtimer_add(la->poll_timer, &tv);
}

static struct launch *oci_run(struct launcher *base, const struct launch_spec *spec, const struct launch_callbacks *cb,
			      void *arg)
{
	struct olauncher *l = (struct olauncher *)base;
	struct olaunch *la = calloc(1, sizeof(*la));

	if (!la)
		return NULL;
	la->l = l;
	la->poll_timer = evtimer_new(l->evb, on_poll, la);
	la->kill_timer = evtimer_new(l->evb, on_kill_deadline, la);
	la->grace_timer = evtimer_new(l->evb, on_grace, la);
	DLIST_PUSH(l->launches, la);
	if (launch_spec_copy(&la->spec, spec) < 0 ||
	    launch_init(&la->base, base, l->evb, cb, arg, launch_settled) < 0 || !la->poll_timer || !la->kill_timer ||
	    !la->grace_timer) {
		launch_destroy(la);
		return NULL;
	}
	launch_begin(la);
	return &la->base;
}

static void oci_kill(struct launch *base)
{
	launch_want_kill((struct olaunch *)base);
}

static unsigned oci_live(const struct launcher *base)
{
	return ((const struct olauncher *)base)->live;
}

/* Blocking, at exit: every container still there is deleted by force. */
static void oci_free(struct launcher *base)
{
	struct olauncher *l = (struct olauncher *)base;

	while (l->launches) {
		struct olaunch *la = l->launches;

		if (la->live) {
			char *kill_argv[] = {l->runtime, "--root", l->root, "kill", la->id, "KILL", NULL};
			char *del_argv[] = {l->runtime, "--root", l->root, "delete", "--force", la->id, NULL};

			/* The runtime's run reaps the killed runner and removes the container; delete what it leaves.
			 */
			if (la->aux) {
				oci_proc_reap_sync(la->aux, SHUTDOWN_TIMEOUT_MS);
				la->aux = NULL;
			}
			/*
			 * A runner the stopped loop still saw starting may have started since: it is killed
			 * all the same, and again until its run ends (a kill before the container exists
			 * fails). Only then is the run itself killed.
			 */
			for (unsigned waited = 0; la->run && waited < SHUTDOWN_TIMEOUT_MS;
			     waited += SHUTDOWN_RETRY_MS) {
				oci_proc_run_sync(kill_argv, SHUTDOWN_TIMEOUT_MS, NULL, 0);
				if (oci_proc_wait_sync(la->run, SHUTDOWN_RETRY_MS))
					la->run = NULL;
			}
			if (la->run) {
				oci_proc_reap_sync(la->run, 0);
				la->run = NULL;
			}
			if (state_left(la) && oci_proc_run_sync(del_argv, SHUTDOWN_TIMEOUT_MS, NULL, 0) != 0 &&
			    state_left(la))
				log_launch(la, "could not delete container %s at shutdown", la->id);
			bundle_remove(la);
			la->live = false;
			l->live--;
		}
		launch_destroy(la);
	}
	free(l->runtime);
	free(l->rootfs);
	free(l->rootfs_ref);
	free(l);
}

static const struct launcher_ops oci_ops = {
	.run = oci_run,
	.kill = oci_kill,
	.live = oci_live,
	.free = oci_free,
};

/* Is the runtime binary crun (named crun, crun-1.8, ...)? It sets rlimits before loading seccomp: oci_spec.h. */
static bool runtime_is_crun(const char *path)
{
	const char *base = strrchr(path, '/');

	return strncmp(base ? base + 1 : path, "crun", 4) == 0;
}

struct launcher *launcher_new_oci(struct event_base *base, const struct oci_options *o)
{
	struct olauncher *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->base.ops = &oci_ops;
	l->evb = base;
	l->userns = o->userns;
	l->fsize = runtime_is_crun(o->runtime) ? OCI_FSIZE_CRUN : 0;
	l->runtime = strdup(o->runtime);
	l->rootfs = o->rootfs ? strdup(o->rootfs) : NULL;
	l->rootfs_ref = o->rootfs_ref ? strdup(o->rootfs_ref) : NULL;
	snprintf(l->state, sizeof(l->state), "%s", o->state_dir);
	snprintf(l->root, sizeof(l->root), "%s/runtime", o->state_dir);
	snprintf(l->bundles, sizeof(l->bundles), "%s/bundles", o->state_dir);
	if (!l->runtime || (o->rootfs && !l->rootfs) || (o->rootfs_ref && !l->rootfs_ref)) {
		free(l->runtime);
		free(l->rootfs);
		free(l->rootfs_ref);
		free(l);
		return NULL;
	}
	mkdir(l->root, 0700);
	mkdir(l->bundles, 0711);
	return &l->base;
}
