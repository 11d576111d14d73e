/*
 * job_mem: the memory watch over a Postgres job's backend (see job_mem.h).
 * Everything here runs on the loop; the /proc reads are small (a status
 * file a tick; the TCP table and the fd links once, at the first tick).
 */
#define _GNU_SOURCE
#include "proxy/job/job_mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <event2/event.h>

#include "proxy/job/bsess.h"
#include "proxy/job/job_impl.h"
#include "proxy/job/job_proc.h"
#include "proxy/log.h"
#include "proxy/job/relay.h"
#include "proxy/timeval.h"

#define STATUS_MAX 8192
#define TCP_TABLE_MAX (16u * 1024u * 1024u)
#define MIB ((uint64_t)1024 * 1024)

struct job_mem {
	struct job *job;
	struct event *tick;
	int pidfd;
	pid_t pid;
	bool checked;  /* the pid passed every check */
	bool canceled; /* past the budget: its statement was sent a cancel */
	uint64_t budget;
	job_mem_over_fn over;
	job_mem_gone_fn gone; /* job_mem_await_exit's: called when the backend has exited, or at gone_by */
	uint64_t gone_by;     /* monotonic ns */
};

/* Reads a whole /proc file into a new NUL-terminated buffer of at most max bytes; NULL on failure. */
static char *read_proc(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			char *grown;

			if (cap >= max)
				goto fail;
			cap *= 2;
			grown = realloc(buf, cap);
			if (!grown)
				goto fail;
			buf = grown;
		} else if (!buf && !(buf = malloc(cap))) {
			goto fail;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/* Has the process the pidfd names exited (then its pid may name another)? */
static bool pidfd_exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

/* The process and its parent run the same executable: a backend under its postmaster. */
static bool runs_under_same_binary(pid_t pid)
{
	char path[64], *status;
	size_t len;
	long ppid;
	struct stat self, parent;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	status = read_proc(path, STATUS_MAX, &len);
	if (!status)
		return false;
	ppid = job_proc_ppid(status, len);
	free(status);
	if (ppid <= 1)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &self) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/exe", ppid);
	if (stat(path, &parent) < 0)
		return false;
	return self.st_dev == parent.st_dev && self.st_ino == parent.st_ino;
}

/* The inode of pid's end of the TCP connection local <-> peer (as airlockd sees it); 0 when none. */
static uint64_t backend_socket_inode(pid_t pid, const struct sockaddr *local, const struct sockaddr *peer)
{
	static const char *const tables[2] = {"tcp", "tcp6"};
	uint64_t inode = 0;

	for (int v6 = 0; v6 < 2 && !inode; v6++) {
		char lkey[JOB_PROC_TCP_KEY_LEN], rkey[JOB_PROC_TCP_KEY_LEN], path[64], *text;
		size_t len;

		/* The backend's local address is airlockd's peer, and the other way round. */
		if (!job_proc_tcp_key(peer, v6, lkey) || !job_proc_tcp_key(local, v6, rkey))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, tables[v6]);
		text = read_proc(path, TCP_TABLE_MAX, &len);
		if (!text)
			continue;
		inode = job_proc_tcp_inode(text, len, lkey, rkey);
		free(text);
	}
	return inode;
}

/* Does pid hold a socket with this inode among its open files? */
static bool holds_socket(pid_t pid, uint64_t inode)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		char target[64];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = job_proc_socket_inode(target) == inode;
	}
	closedir(d);
	return found;
}

/* Does the process hold the backend's end of one of the job's relays? */
static bool holds_a_relay(const struct job_mem *m)
{
	for (int i = 0; i < JOB_MAX_RELAYS; i++) {
		int fd = relay_backend_fd(m->job->relays[i]);
		struct sockaddr_storage local, peer;
		socklen_t llen = sizeof(local), plen = sizeof(peer);
		uint64_t inode;

		if (fd < 0 || getsockname(fd, (struct sockaddr *)&local, &llen) < 0 ||
		    getpeername(fd, (struct sockaddr *)&peer, &plen) < 0)
			continue;
		inode = backend_socket_inode(m->pid, (struct sockaddr *)&local, (struct sockaddr *)&peer);
		if (inode && holds_socket(m->pid, inode))
			return true;
	}
	return false;
}

/* The checks of job_mem.h, on the process the pidfd pins. */
static bool check_backend(struct job_mem *m)
{
	return runs_under_same_binary(m->pid) && holds_a_relay(m) && !pidfd_exited(m->pidfd);
}

static void job_mem_unavailable(const struct job_mem *m, const char *why)
{
	static bool told;

	/* Once per process: on a host where it cannot work it would say so for every statement. */
	if (told)
		return;
	told = true;
	log_warn("job %s: the backend's memory is not watched (%s); backend_memory_mb is left to the engine's "
		 "settings",
		 m->job->id, why);
}

/* Sends the backend SIGINT, what pg_cancel_backend sends: its current statement is canceled. */
static void cancel_backend(const struct job_mem *m)
{
	if (syscall(SYS_pidfd_send_signal, m->pidfd, SIGINT, NULL, 0) < 0)
		log_warn("job %s: could not cancel the backend's statement: %s", m->job->id, strerror(errno));
}

/* The backend is past its budget: its statement is canceled and the job hears it; the watch goes on. */
static void job_mem_over(struct job_mem *m, uint64_t used)
{
	struct job *j = m->job;

	m->canceled = true;
	cancel_backend(m);
	log_info("job %s: backend used %" PRIu64 " MB, above backend_memory_mb=%u; its statement is being canceled",
		 j->id, used / MIB, j->limits.backend_memory_mb);
	snprintf(j->mem_message, sizeof(j->mem_message),
		 "the statement used %" PRIu64 " MB of database memory, more than backend_memory_mb=%u allows, "
		 "and was canceled",
		 used / MIB, j->limits.backend_memory_mb);
	j->mem_over = true;
	m->over(j);
}

/* The backend has exited, or is given up on: the watch ends; an awaiting job hears it. */
static void job_mem_end(struct job_mem *m)
{
	struct job *j = m->job;
	job_mem_gone_fn gone = m->gone;

	job_mem_stop(j);
	if (gone)
		gone(j);
}

static void job_mem_tick(evutil_socket_t fd, short what, void *arg)
{
	struct job_mem *m = arg;
	struct timeval tv = ms_timeval(JOB_MEM_TICK_MS);
	char path[64], *status;
	size_t len;
	int64_t used;

	if (!m->checked) {
		if (!check_backend(m)) {
			job_mem_unavailable(m, "the reported backend pid could not be confirmed as this job's");
			job_mem_stop(m->job);
			return;
		}
		m->checked = true;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)m->pid);
	status = read_proc(path, STATUS_MAX, &len);
	used = status ? job_proc_private_bytes(status, len) : -1;
	free(status);
	/* Read before the exit check: a number read while the pidfd's process lived is that process's. */
	if (used < 0 || pidfd_exited(m->pidfd)) {
		job_mem_end(m);
		return;
	}
	/* A kept session's backend does not exit: its reset's end says the canceled statement is over. */
	if (m->gone && m->job->env->bsess && bsess_pid_settled(m->job->env->bsess, (uint32_t)m->pid)) {
		job_mem_end(m);
		return;
	}
	if (m->gone && monotonic_ns() >= m->gone_by) {
		log_warn("job %s: its backend (pid %d) still works on the canceled statement; no longer waited for",
			 m->job->id, (int)m->pid);
		job_mem_end(m);
		return;
	}
	/* Armed first: over may end the job (it reads the runner's last frames), which frees m and can free the job. */
	evtimer_add(m->tick, &tv);
	if (!m->canceled && (uint64_t)used > m->budget)
		job_mem_over(m, (uint64_t)used);
}

void job_mem_watch(struct job *j, uint32_t pid, job_mem_over_fn over)
{
	struct job_mem *m;
	struct timeval tv = ms_timeval(JOB_MEM_TICK_MS);
	int err;

	if (j->mem || j->mem_tried || j->state == JOB_DONE || !j->limits.backend_memory_mb || pid == 0 ||
	    pid > INT32_MAX)
		return;
	j->mem_tried = true;
	m = calloc(1, sizeof(*m));
	if (!m)
		return;
	m->job = j;
	m->over = over;
	m->pid = (pid_t)pid;
	m->budget = (uint64_t)j->limits.backend_memory_mb * MIB;
	m->pidfd = (int)syscall(SYS_pidfd_open, m->pid, 0);
	err = errno;
	m->tick = evtimer_new(j->env->base, job_mem_tick, m);
	if (m->pidfd < 0 || !m->tick) {
		j->mem = m;
		job_mem_unavailable(m, m->pidfd < 0 ? strerror(err) : "out of memory");
		job_mem_stop(j);
		return;
	}
	j->mem = m;
	evtimer_add(m->tick, &tv);
}

bool job_mem_await_exit(struct job *j, job_mem_gone_fn gone, uint32_t max_ms)
{
	struct job_mem *m = j->mem;

	if (!m || m->gone)
		return false;
	/* Not checked yet (the job ends within a tick of its 'B' frame): checked now, while its relays are open. */
	if (!m->checked && !(m->checked = check_backend(m)))
		return false;
	if (!m->canceled) {
		m->canceled = true;
		cancel_backend(m);
	}
	m->gone = gone;
	m->gone_by = monotonic_ns() + (uint64_t)max_ms * 1000000u;
	return true;
}

void job_mem_stop(struct job *j)
{
	struct job_mem *m = j->mem;

	if (!m)
		return;
	j->mem = NULL;
	if (m->tick)
		event_free(m->tick);
	if (m->pidfd >= 0)
		close(m->pidfd);
	free(m);
}
