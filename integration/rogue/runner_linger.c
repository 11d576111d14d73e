/*
 * runner_linger: a runner that misbehaves once it has answered, for the
 * integration tests that play a compromised runner (test_faults.py).
 *
 *	runner_linger /job/control.sock
 *
 * Speaks the control protocol as airlock-runner does up to its result: it
 * takes the connect frame, opens the relay socket (so airlockd holds a
 * backend connection for it) and, for a TLS target, takes the backend's
 * socket airlockd hands over, takes the job frame and answers it with a
 * completion. Then it never exits and keeps the relay and the backend's
 * socket open, which is what a runner taken over by a statement could do.
 * airlockd must end the backend connection at once (for a handed socket,
 * its shutdown reaches the runner's copy too) and kill the container
 * kill_margin_ms later.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/fd_pass.h"
#include "base/frame.h"
#include "runner/runner_ctl.h"

/* Connects to the relay socket beside the control socket; -1 on failure. */
static int open_relay(const char *ctl_path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	const char *slash = strrchr(ctl_path, '/');
	int fd;

	if (!slash || (size_t)(slash - ctl_path) + sizeof("/.s.PGSQL.5432") > sizeof(sun.sun_path))
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%.*s/.s.PGSQL.5432", (int)(slash - ctl_path), ctl_path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		perror("runner_linger: relay");
		return -1;
	}
	return fd;
}

/* The backend's socket, when airlockd hands one over on the relay within two seconds; else -1. */
static int take_handed(int relay)
{
	struct pollfd p = {.fd = relay, .events = POLLIN};
	char byte;

	return relay >= 0 && poll(&p, 1, 2000) == 1 ? fd_pass_recv(relay, &byte, 0) : -1;
}

static int read_frame(struct runner_ctl *ctl, int want)
{
	uint8_t *buf = NULL;
	struct frame f;
	int type;

	if (runner_ctl_read_job(ctl, &buf, &f) < 0)
		return -1;
	type = f.type;
	free(buf);
	return type == want ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	int relay, backend;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc != 2 || runner_ctl_connect(&ctl, argv[1]) < 0)
		return 2;
	if (read_frame(&ctl, FRAME_CONNECT) < 0)
		return 1;
	relay = open_relay(argv[1]);
	backend = take_handed(relay);
	if (read_frame(&ctl, FRAME_JOB) < 0)
		return 1;
	runner_ctl_complete(&ctl, 0, FRAME_TRUNC_NONE, "SELECT 0");
	if (runner_ctl_flush(&ctl) < 0)
		return 1;
	fprintf(stderr, "runner_linger: answered; holding relay %d and backend socket %d and staying up\n", relay,
		backend);
	for (;;)
		pause();
}
