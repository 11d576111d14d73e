/*
 * airlock-runner: the one-shot program inside a runner container.
 *
 *	airlock-runner /job/control.sock
 *
 * Connects to the control socket, reads exactly one job frame, runs it
 * against the database reached through the relay socket next to the
 * control socket (<dir>/.s.PGSQL.5432), streams result frames back and
 * exits. Exit status 0 once the job's outcome (rows or an error frame) has
 * been sent; nonzero only when the control socket fails.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/frame.h"
#include "runner/runner_ctl.h"
#include "runner/runner_job.h"
#include "runner/runner_pg.h"

/* The directory part of an absolute socket path, malloc'd; NULL if path is not absolute. */
static char *socket_dir(const char *path)
{
	const char *slash;
	size_t n;
	char *dir;

	if (path[0] != '/')
		return NULL;
	slash = strrchr(path, '/');
	n = slash == path ? 1 : (size_t)(slash - path);
	dir = malloc(n + 1);
	if (!dir)
		return NULL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return dir;
}

/* Sends an error frame for a job that cannot be run; returns the exit status. */
static int reject_job(struct runner_ctl *ctl, const char *message)
{
	runner_ctl_error(ctl, FRAME_ERROR, "08P01", "EXECUTION_FAILED", message, "", "");
	return runner_ctl_flush(ctl) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	struct frame_job *fj = NULL;
	struct runner_job job;
	struct frame f;
	uint8_t *buf = NULL;
	char why[160];
	char *dir = NULL;
	int status = 1;

	signal(SIGPIPE, SIG_IGN);
	if (argc != 2) {
		fprintf(stderr, "usage: airlock-runner /job/control.sock\n");
		return 2;
	}
	dir = socket_dir(argv[1]);
	if (!dir) {
		fprintf(stderr, "airlock-runner: the control socket path must be absolute\n");
		return 2;
	}
	if (runner_ctl_connect(&ctl, argv[1]) < 0)
		goto out_dir;
	if (runner_ctl_read_job(&ctl, &buf, &f) < 0)
		goto out_ctl;
	fj = malloc(sizeof(*fj));
	if (!fj) {
		status = reject_job(&ctl, "out of memory");
		goto out_buf;
	}
	if (frame_decode_job(&f, fj) != FRAME_OK) {
		status = reject_job(&ctl, "invalid job frame");
		goto out_buf;
	}
	if (runner_job_parse(fj, &job, why, sizeof(why)) < 0) {
		status = reject_job(&ctl, why);
		goto out_buf;
	}
	/* The frame holds the password too; the job has its own copy now. */
	explicit_bzero(buf, (size_t)FRAME_HEADER_LEN + f.len);
	if (strcmp(job.engine, "postgres") == 0)
		status = runner_pg_run(&job, &ctl, dir) == 0 ? 0 : 1;
	else
		status = reject_job(&ctl, "unsupported engine");
	runner_job_free(&job);
out_buf:
	free(fj);
	free(buf);
out_ctl:
	runner_ctl_close(&ctl);
out_dir:
	free(dir);
	return status;
}
