/*
 * airlock-runner: the one-shot program inside a runner container.
 *
 *	airlock-runner /job/control.sock
 *
 * Connects to the control socket, reads exactly one job frame, runs it
 * against the database reached through the relay socket next to the
 * control socket (<dir>/.s.PGSQL.5432 for engine postgres, <dir>/mysqld.sock
 * for engine mariadb), streams result frames back and exits. Exit status 0
 * once the job's outcome (rows or an error frame) has been sent; nonzero
 * only when the control socket fails.
 *
 * runner/ holds this program (main.c) over its library (runner_ctl.c the
 * control socket; runner_job.c the job frame read into a struct;
 * runner_pg.c with libpq and runner_my.c with MariaDB Connector/C,
 * runner_my_conn.c and runner_my_watch.c its connection and its KILL QUERY
 * watchdog; runner_tls*.c the TLS shim a target with sslmode puts between
 * the client library and the relay, and logs in to Postgres with SCRAM for
 * libpq), which links only base/ and protocol/'s SCRAM client of airlock's
 * own code. The host side that starts its
 * containers is launch/, the only code that links curl.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/frame.h"
#include "base/sanitizer.h"
#include "runner/runner_ctl.h"
#include "runner/runner_job.h"
#include "runner/runner_my.h"
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

/*
 * Sends an error frame for a job that cannot be run; returns the exit
 * status. A mariadb job gets the MySQL layout (errno 1105, ER_UNKNOWN_ERROR).
 */
static int reject_job(struct runner_ctl *ctl, bool my, const char *message)
{
	if (my)
		runner_ctl_error_my(
			ctl, FRAME_ERROR, airlock_my_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_UNKNOWN_ERROR),
			airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
			airlock_my_errno(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_UNKNOWN_ERROR), message, "");
	else
		runner_ctl_error(ctl, FRAME_ERROR,
				 airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_PROTOCOL_VIOLATION),
				 airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), message, "", "");
	return runner_ctl_flush(ctl) == 0 ? 0 : 1;
}

static bool engine_is_mariadb(const struct frame_job *fj)
{
	const struct frame_str *e = frame_job_get(fj, "engine");

	return e && e->len == 7 && memcmp(e->ptr, "mariadb", 7) == 0;
}

/*
 * Reads one 'P' or 'J' frame and adds its pairs to job. Returns the frame
 * type, or -1 (with why set; the job is freed) on failure. The frame's
 * copy of any password is wiped. *my is set when the frame names engine
 * mariadb, so even a job that fails to parse is answered in its layout.
 */
static int read_frame_into(struct runner_ctl *ctl, struct runner_job *job, bool *my, char *why, size_t why_len)
{
	struct frame_job *fj = malloc(sizeof(*fj));
	uint8_t *buf = NULL;
	struct frame f;
	int type = -1;

	snprintf(why, why_len, "no job");
	if (!fj || runner_ctl_read_job(ctl, &buf, &f) < 0)
		goto out;
	if (frame_decode_job(&f, fj) != FRAME_OK) {
		snprintf(why, why_len, "invalid job frame");
		goto out;
	}
	if (engine_is_mariadb(fj))
		*my = true;
	if (runner_job_parse(fj, job, why, why_len) < 0)
		goto out;
	type = f.type;
out:
	if (buf)
		explicit_bzero(buf, (size_t)FRAME_HEADER_LEN + f.len);
	free(buf);
	free(fj);
	return type;
}

struct rest_ctx {
	struct runner_ctl *ctl;
	bool my; /* the job is for engine mariadb */
};

/* After a warm connect: the 'J' frame with the statement. */
static int read_rest(void *arg, struct runner_job *job)
{
	struct rest_ctx *rc = arg;
	char why[160];

	if (read_frame_into(rc->ctl, job, &rc->my, why, sizeof(why)) != FRAME_JOB || !runner_job_complete(job)) {
		reject_job(rc->ctl, rc->my, "the job frame after a connect frame is missing or incomplete");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	struct runner_job job;
	struct rest_ctx rest = {.ctl = &ctl};
	char why[160];
	char *dir = NULL;
	int status = 1, type;

	/*
	 * Before anything secret arrives: not dumpable, so no other process of
	 * the same uid may read this one's memory (/proc/PID/mem, ptrace) and a
	 * crash writes no core.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		perror("airlock-runner: prctl(PR_SET_DUMPABLE)");
		return 2;
	}
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
	runner_job_init(&job);
	type = read_frame_into(&ctl, &job, &rest.my, why, sizeof(why));
	if (type < 0) {
		status = reject_job(&ctl, rest.my, why);
		goto out_job;
	}
	if (!runner_job_can_connect(&job) || (type == FRAME_JOB && !runner_job_complete(&job))) {
		status = reject_job(&ctl, rest.my, "job is missing a required key");
		goto out_job;
	}
	if (strcmp(job.engine, "postgres") == 0)
		status = runner_pg_run(&job, &ctl, dir, read_rest, &rest) == 0 ? 0 : 1;
	else if (strcmp(job.engine, "mariadb") == 0)
		status = runner_my_run(&job, &ctl, dir, read_rest, &rest) == 0 ? 0 : 1;
	else
		status = reject_job(&ctl, false, "unsupported engine");
out_job:
	runner_job_free(&job);
	runner_ctl_close(&ctl);
out_dir:
	free(dir);
	/*
	 * Everything the job owed is sent. exit() would now run the libraries'
	 * exit handlers (OpenSSL's clean-up among them): about a millisecond of
	 * CPU, on the core airlockd needs to pass the answer on. A leak check
	 * build keeps them, since LeakSanitizer reports from one.
	 */
#if !AIRLOCK_ASAN
	fflush(NULL);
	_exit(status);
#endif
	return status;
}
