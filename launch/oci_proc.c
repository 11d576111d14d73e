/*
 * oci_proc: child processes on the loop (see oci_proc.h).
 */
#define _GNU_SOURCE
#include "launch/oci_proc.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct oci_proc {
	struct event_base *base;
	pid_t pid;
	int pidfd;
	int outfd;
	struct event *pid_ev;
	struct event *out_ev;
	struct event *fail_ev; /* a spawn failure, reported from the loop */
	oci_proc_done_fn done;
	void *arg;
	int status;
	bool exited;
	char head[OCI_PROC_HEAD + 1];
	size_t nhead;
	char tail[OCI_PROC_TAIL + 1];
	size_t ntail;
};

/* Stops watching one descriptor: frees its event and closes it (either may be unset already). */
static void unwatch(struct event **ev, int *fd)
{
	if (*ev)
		event_free(*ev);
	*ev = NULL;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void proc_free(struct oci_proc *p)
{
	unwatch(&p->pid_ev, &p->pidfd);
	unwatch(&p->out_ev, &p->outfd);
	if (p->fail_ev)
		event_free(p->fail_ev);
	free(p);
}

/* Both the exit and the end of the output seen: report and free. */
static void proc_maybe_done(struct oci_proc *p)
{
	if (!p->exited || p->outfd >= 0)
		return;
	p->head[p->nhead] = '\0';
	p->tail[p->ntail] = '\0';
	if (p->done)
		p->done(p->arg, p->status, p->head, p->tail);
	proc_free(p);
}

static void keep_output(struct oci_proc *p, const char *b, size_t n)
{
	size_t h = n < OCI_PROC_HEAD - p->nhead ? n : OCI_PROC_HEAD - p->nhead;

	memcpy(p->head + p->nhead, b, h);
	p->nhead += h;
	if (n >= OCI_PROC_TAIL) {
		memcpy(p->tail, b + n - OCI_PROC_TAIL, OCI_PROC_TAIL);
		p->ntail = OCI_PROC_TAIL;
		return;
	}
	if (p->ntail + n > OCI_PROC_TAIL) {
		size_t drop = p->ntail + n - OCI_PROC_TAIL;

		memmove(p->tail, p->tail + drop, p->ntail - drop);
		p->ntail -= drop;
	}
	memcpy(p->tail + p->ntail, b, n);
	p->ntail += n;
}

static void on_output(evutil_socket_t fd, short what, void *arg)
{
	struct oci_proc *p = arg;
	char b[4096];
	ssize_t n;

	(void)what;
	for (;;) {
		n = read(fd, b, sizeof(b));
		if (n > 0) {
			keep_output(p, b, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		break;
	}
	unwatch(&p->out_ev, &p->outfd);
	proc_maybe_done(p);
}

static void on_exit_ev(evutil_socket_t fd, short what, void *arg)
{
	struct oci_proc *p = arg;
	int st;

	(void)fd;
	(void)what;
	if (waitpid(p->pid, &st, WNOHANG) != p->pid)
		return;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	p->exited = true;
	p->pid = 0;
	unwatch(&p->pid_ev, &p->pidfd);
	proc_maybe_done(p);
}

static void on_fail(evutil_socket_t fd, short what, void *arg)
{
	struct oci_proc *p = arg;

	(void)fd;
	(void)what;
	p->exited = true;
	p->status = -1;
	proc_maybe_done(p);
}

/* posix_spawn with the settings of oci_proc.h; the child's pid, or -1 with errno. */
static pid_t spawn(char *const argv[], int out_w)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	pid_t pid = -1;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_w, 1);
	posix_spawn_file_actions_adddup2(&fa, out_w, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return pid;
}

struct oci_proc *oci_proc_spawn(struct event_base *base, char *const argv[], oci_proc_done_fn done, void *arg)
{
	struct oci_proc *p = calloc(1, sizeof(*p));
	int pfd[2];

	if (!p)
		return NULL;
	p->base = base;
	p->done = done;
	p->arg = arg;
	p->pidfd = p->outfd = -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(p->head, sizeof(p->head), "pipe: %s", strerror(errno));
		goto failed;
	}
	p->pid = spawn(argv, pfd[1]);
	close(pfd[1]);
	if (p->pid < 0) {
		snprintf(p->head, sizeof(p->head), "cannot run %s: %s", argv[0], strerror(errno));
		p->nhead = strlen(p->head);
		p->pid = 0;
		close(pfd[0]);
		goto failed;
	}
	p->outfd = pfd[0];
	fcntl(p->outfd, F_SETFL, O_NONBLOCK);
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (p->pidfd < 0) {
		/* Cannot watch it: end it now and reap it here (it has barely started). */
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
		snprintf(p->head, sizeof(p->head), "pidfd_open: %s", strerror(errno));
		p->nhead = strlen(p->head);
		close(p->outfd);
		p->outfd = -1;
		goto failed;
	}
	p->pid_ev = event_new(base, p->pidfd, EV_READ | EV_PERSIST, on_exit_ev, p);
	p->out_ev = event_new(base, p->outfd, EV_READ | EV_PERSIST, on_output, p);
	if (!p->pid_ev || !p->out_ev || event_add(p->pid_ev, NULL) < 0 || event_add(p->out_ev, NULL) < 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		proc_free(p);
		return NULL;
	}
	return p;
failed:
	p->nhead = strlen(p->head);
	p->fail_ev = event_new(base, -1, 0, on_fail, p);
	if (!p->fail_ev) {
		proc_free(p);
		return NULL;
	}
	event_active(p->fail_ev, 0, 0);
	return p;
}

pid_t oci_proc_pid(const struct oci_proc *p)
{
	return p->pid;
}

void oci_proc_signal(struct oci_proc *p, int sig)
{
	if (p->pid > 0 && !p->exited)
		kill(p->pid, sig);
}

void oci_proc_forget(struct oci_proc *p)
{
	p->done = NULL;
}

/* ---- blocking ---- */

bool oci_proc_wait_sync(struct oci_proc *p, unsigned timeout_ms)
{
	int st = 0;

	for (unsigned waited = 0; p->pid > 0; waited += 10) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);

		if (r == p->pid || r < 0)
			break;
		if (waited >= timeout_ms)
			return false;
		usleep(10000);
	}
	p->pid = 0;
	proc_free(p);
	return true;
}

int oci_proc_reap_sync(struct oci_proc *p, unsigned timeout_ms)
{
	int st = 0, status = -1;
	pid_t r = 0;

	for (unsigned waited = 0; p->pid > 0; waited += 10) {
		r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid || r < 0)
			break;
		if (waited >= timeout_ms) {
			kill(p->pid, SIGKILL);
			r = waitpid(p->pid, &st, 0);
			break;
		}
		usleep(10000);
	}
	if (r > 0)
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	p->pid = 0;
	proc_free(p);
	return status;
}

struct sync_run {
	bool done;
	int status;
	char *out;
	size_t outlen;
};

static void sync_done(void *arg, int status, const char *head, const char *tail)
{
	struct sync_run *r = arg;

	(void)tail;
	r->done = true;
	r->status = status;
	if (r->out)
		snprintf(r->out, r->outlen, "%s", head);
}

static void sync_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

int oci_proc_run_sync(char *const argv[], unsigned timeout_ms, char *out, size_t outlen)
{
	struct event_base *base = event_base_new();
	struct sync_run r = {.out = out, .outlen = outlen};
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	struct event *timer;
	struct oci_proc *p;

	if (out && outlen)
		out[0] = '\0';
	if (!base)
		return -1;
	timer = evtimer_new(base, sync_timeout, base);
	p = oci_proc_spawn(base, argv, sync_done, &r);
	if (!timer || !p) {
		if (timer)
			event_free(timer);
		event_base_free(base);
		return -1;
	}
	evtimer_add(timer, &tv);
	while (!r.done && event_base_loop(base, EVLOOP_ONCE) == 0 && !event_base_got_break(base))
		;
	if (!r.done) {
		/* Timed out: kill it and wait for the reap, so nothing outlives this call. */
		oci_proc_signal(p, SIGKILL);
		while (!r.done && event_base_loop(base, EVLOOP_ONCE) == 0)
			;
		r.status = -1;
	}
	event_free(timer);
	event_base_free(base);
	return r.status;
}
