/*
 * layers_launch: one runner container, started the way airlockd starts
 * it, for the runner harness (integration/tests/layers.py), which plays
 * airlockd's part on the job's sockets itself.
 *
 *	layers_launch STATE_DIR ROOTFS_REF JOB_DIR UID KILL_AFTER_MS [RUNTIME]
 *
 * Checks and unpacks the pinned root filesystem ROOTFS_REF under
 * STATE_DIR (launch/oci_rootfs.c), then runs one container with the OCI
 * launcher (launch/launcher_oci.c: the same config.json, namespaces,
 * seccomp filter and limits as airlockd's runners, a user namespace
 * each), JOB_DIR bind-mounted at /job, running as UID:UID. The launcher
 * kills it KILL_AFTER_MS after the start (0: never). SIGTERM kills it at
 * once. Prints one line when it is gone:
 *
 *	exit=<status> killed=<0|1> ms=<milliseconds from start to exit>
 *
 * and exits 0; 3 (with the reason on stderr) when it never started.
 */
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launch/launcher.h"
#include "launch/oci_rootfs.h"

struct run {
	struct event_base *base;
	struct launch *la;
	struct timespec start;
	int status;
};

static long elapsed_ms(const struct timespec *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - from->tv_sec) * 1000 + (now.tv_nsec - from->tv_nsec) / 1000000;
}

static void on_started(void *arg, bool ok, const char *code, const char *error)
{
	struct run *r = arg;

	if (ok) {
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		return;
	}
	fprintf(stderr, "layers_launch: %s: %s\n", code, error);
	r->la = NULL;
	r->status = 3;
	event_base_loopbreak(r->base);
}

static void on_exited(void *arg, int exit_code, bool killed)
{
	struct run *r = arg;

	printf("exit=%d killed=%d ms=%ld\n", exit_code, killed ? 1 : 0, elapsed_ms(&r->start));
	fflush(stdout);
	r->la = NULL;
	r->status = 0;
	event_base_loopbreak(r->base);
}

static void on_term(evutil_socket_t sig, short what, void *arg)
{
	struct run *r = arg;

	if (r->la)
		launcher_kill(r->la);
}

int main(int argc, char **argv)
{
	struct run r = {.status = 3};
	char rootfs[4096], err[512], uidgid[64], id[64];
	struct launcher *l;
	struct oci_options o;
	struct launch_spec spec;
	struct launch_callbacks cb = {.on_started = on_started, .on_exited = on_exited};
	struct event *term;

	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: layers_launch STATE_DIR ROOTFS_REF JOB_DIR UID KILL_AFTER_MS [RUNTIME]\n");
		return 2;
	}
	/* Searchable by others, as airlockd makes it: a user namespace's root mounts the tree inside. */
	mkdir(argv[1], 0711);
	chmod(argv[1], 0711);
	if (oci_rootfs_prepare_sync(argv[2], argv[1], rootfs, sizeof(rootfs), err, sizeof(err)) < 0) {
		fprintf(stderr, "layers_launch: %s\n", err);
		return 3;
	}
	r.base = event_base_new();
	o = (struct oci_options){
		.runtime = argc == 7 ? argv[6] : "/usr/sbin/runc",
		.state_dir = argv[1],
		.rootfs = rootfs,
		.rootfs_ref = argv[2],
		.userns = true,
	};
	l = r.base ? launcher_new_oci(r.base, &o) : NULL;
	if (!l) {
		fprintf(stderr, "layers_launch: no launcher\n");
		return 3;
	}
	snprintf(uidgid, sizeof(uidgid), "%s:%s", argv[4], argv[4]);
	snprintf(id, sizeof(id), "layers-%ld", (long)getpid());
	spec = (struct launch_spec){
		.image = "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		.user = uidgid,
		.job_dir = argv[3],
		.job_id = id,
		.memory_bytes = 128u * 1024 * 1024,
		.nano_cpus = 500000000,
		.pids_limit = 64,
		.kill_after_ms = (uint32_t)strtoul(argv[5], NULL, 10),
	};
	term = evsignal_new(r.base, SIGTERM, on_term, &r);
	event_add(term, NULL);
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.la = launcher_run(l, &spec, &cb, &r);
	if (!r.la)
		return 3;
	event_base_dispatch(r.base);
	event_free(term);
	launcher_free(l);
	event_base_free(r.base);
	return r.status;
}
