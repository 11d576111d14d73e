/*
 * runner_escape: a runner taken over by an attacker, for the integration
 * tests of the runner container's isolation (test_oci_container.py).
 *
 *	runner_escape /job/control.sock
 *
 * Takes the connect and job frames as airlock-runner does, then tries what
 * code running in the runner could try to get out or reach further: inet
 * sockets, new namespaces, processes, mounts, ptrace, keys, BPF, writes to
 * its root, /job and /proc, root's uid. Each attempt's outcome (the errno's
 * name, or "ok") goes back in one error message, "escape: name=outcome
 * ...", which the test reads as the client's error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/frame.h"
#include "runner/runner_ctl.h"

static char report[2048];

static void note(const char *name, long rc)
{
	size_t n = strlen(report);

	snprintf(report + n, sizeof(report) - n, " %s=%s", name, rc >= 0 ? "ok" : strerrorname_np(errno));
}

static long try_open(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Bytes read from path, or -1. */
static long try_read(const char *path)
{
	char b[256];
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b));
	close(fd);
	return n;
}

static void probe(void)
{
	pid_t pid;
	long n;
	int fd;

	snprintf(report, sizeof(report), "escape:");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	note("inet", fd);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	note("inet6", fd);
	fd = socket(AF_NETLINK, SOCK_RAW, 0);
	note("netlink", fd);
	note("unshare_user", unshare(CLONE_NEWUSER));
	note("unshare_net", unshare(CLONE_NEWNET));
	pid = fork();
	if (pid == 0)
		_exit(0);
	note("fork", pid);
	note("mount", mount("none", "/job", "tmpfs", 0, NULL));
	note("ptrace", ptrace(PTRACE_TRACEME, 0, NULL, NULL));
	note("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
	note("bpf", syscall(SYS_bpf, 0, NULL, 0));
	note("setuid0", setuid(0));
	note("write_root", try_open("/escape", O_WRONLY | O_CREAT));
	note("write_job", try_open("/job/escape", O_WRONLY | O_CREAT));
	note("write_sysrq", try_open("/proc/sysrq-trigger", O_WRONLY));
	n = try_read("/proc/kcore");
	note(n > 0 ? "kcore_read" : "kcore_empty", n);
	note("uid_nonzero", getuid() != 0 ? 0 : -1);
	note("no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : -1);
}

int main(int argc, char **argv)
{
	struct runner_ctl ctl;
	uint8_t *buf = NULL;
	struct frame f;

	signal(SIGPIPE, SIG_IGN);
	if (argc != 2 || runner_ctl_connect(&ctl, argv[1]) < 0)
		return 2;
	if (runner_ctl_read_job(&ctl, &buf, &f) < 0 || f.type != FRAME_CONNECT)
		return 1;
	free(buf);
	buf = NULL;
	if (runner_ctl_read_job(&ctl, &buf, &f) < 0 || f.type != FRAME_JOB)
		return 1;
	free(buf);
	probe();
	runner_ctl_error(&ctl, FRAME_ERROR, "XX000", "", report, "", "");
	return runner_ctl_flush(&ctl) < 0;
}
