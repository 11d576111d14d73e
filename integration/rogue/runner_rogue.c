/*
 * runner_rogue: a runner that keeps to no limit, for the tests that prove
 * airlockd's own layers without the runner's (test_runner_backstop.py).
 *
 *	runner_rogue /job/control.sock
 *
 * Speaks the control protocol as airlock-runner does up to the job frame
 * (a connect frame first or not) and never touches the database. Then,
 * by the statement's text, which the tests choose:
 *
 *  - "deaf" anywhere in it: answers nothing and never exits, whatever
 *    comes (a cancel frame, the job's deadline), as a runner whose
 *    statement hangs where no cancel reaches it. Only airlockd's kill of
 *    the container ends it.
 *  - otherwise: a result of ROGUE_ROWS rows of ROGUE_VALUE_BYTES bytes
 *    each (ROGUE_WIDE_BYTES with "wide" in the statement), whatever the
 *    job's max_rows and max_bytes, completed as whole (no truncation), in
 *    the engine's layout ('T' or 'K', 'D', 'C'). Only airlockd's own
 *    counting of the frames can cut it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/frame.h"
#include "runner/runner_ctl.h"

#define ROGUE_ROWS 5000
#define ROGUE_VALUE_BYTES 200
#define ROGUE_WIDE_BYTES 1000

struct rogue_job {
	char engine[16];
	bool deaf;
	bool wide;
};

/* Reads one 'P' or 'J' frame into j; the frame type, or -1. */
static int read_job(struct runner_ctl *ctl, struct rogue_job *j)
{
	struct frame_job *fj = malloc(sizeof(*fj));
	const struct frame_str *v;
	uint8_t *buf = NULL;
	struct frame f;
	int type = -1;

	if (!fj || runner_ctl_read_job(ctl, &buf, &f) < 0 || frame_decode_job(&f, fj) != FRAME_OK)
		goto out;
	type = f.type;
	v = frame_job_get(fj, "engine");
	if (v && v->len < sizeof(j->engine)) {
		memcpy(j->engine, v->ptr, v->len);
		j->engine[v->len] = '\0';
	}
	v = frame_job_get(fj, "sql");
	if (v && memmem(v->ptr, v->len, "deaf", 4))
		j->deaf = true;
	if (v && memmem(v->ptr, v->len, "wide", 4))
		j->wide = true;
out:
	free(buf);
	free(fj);
	return type;
}

static void put_mycol(struct wbuf *b, const char *name)
{
	frame_put_cstr(b, "");
	frame_put_cstr(b, "");
	frame_put_cstr(b, "");
	frame_put_cstr(b, name);
	frame_put_cstr(b, "");
	frame_put_u16(b, 45);  /* utf8mb4_general_ci */
	frame_put_u32(b, 800); /* display length */
	frame_put_u8(b, 253);  /* MYSQL_TYPE_VAR_STRING */
	frame_put_u16(b, 0);
	frame_put_u8(b, 31);
}

/* The whole result, caps or none; -1 when the control socket failed. */
static int flood(struct runner_ctl *ctl, bool my, bool wide)
{
	char value[ROGUE_WIDE_BYTES];
	size_t n = wide ? ROGUE_WIDE_BYTES : ROGUE_VALUE_BYTES;
	struct wbuf *b = &ctl->out;

	memset(value, 'x', sizeof(value));
	if (my) {
		frame_begin(b, FRAME_MYCOLS);
		frame_put_u16(b, 1);
		put_mycol(b, "v");
	} else {
		frame_begin(b, FRAME_ROWDESC);
		frame_put_u16(b, 1);
		frame_put_cstr(b, "v");
		frame_put_u32(b, 0);
		frame_put_i16(b, 0);
		frame_put_u32(b, 25); /* text */
		frame_put_i16(b, -1);
		frame_put_i32(b, -1);
		frame_put_i16(b, 0);
	}
	if (runner_ctl_commit(ctl) < 0)
		return -1;
	for (int i = 0; i < ROGUE_ROWS; i++) {
		frame_begin(b, FRAME_ROW);
		frame_put_u16(b, 1);
		frame_put_i32(b, (int32_t)n);
		frame_put_bytes(b, value, n);
		if (runner_ctl_commit(ctl) < 0)
			return -1;
	}
	if (my)
		runner_ctl_complete_my(ctl, ROGUE_ROWS, FRAME_TRUNC_NONE, "SELECT 5000", 0);
	else
		runner_ctl_complete(ctl, ROGUE_ROWS, FRAME_TRUNC_NONE, "SELECT 5000");
	return runner_ctl_flush(ctl);
}

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	struct rogue_job j = {{0}};
	int type;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc != 2 || runner_ctl_connect(&ctl, argv[1]) < 0)
		return 2;
	type = read_job(&ctl, &j);
	if (type == FRAME_CONNECT)
		type = read_job(&ctl, &j);
	if (type != FRAME_JOB)
		return 1;
	if (j.deaf) {
		/* Deaf to everything: SIGTERM too. The container's kill (SIGKILL) ends it. */
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		fprintf(stderr, "runner_rogue: deaf: not answering, not exiting\n");
		for (;;)
			pause();
	}
	return flood(&ctl, strcmp(j.engine, "mariadb") == 0, j.wide) == 0 ? 0 : 1;
}
