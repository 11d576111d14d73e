/*
 * supervisor: the listeners bound N times, the workers forked and watched,
 * and their audit records chained into one file (see supervisor.h).
 */
#define _GNU_SOURCE
#include "proxy/supervisor.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include "proxy/approvals.h"
#include "proxy/audit.h"
#include "proxy/log.h"
#include "proxy/peer_key.h"
#include "proxy/server.h"
#include "proxy/server_ctl.h"
#include "proxy/worker_dirs.h"

/* A worker's unix socket takes this many forwards waiting to be accepted. */
#define SIBLING_BACKLOG 128
/* Each worker's socket for audit records holds this much while the supervisor writes. */
#define AUDIT_SNDBUF (4 << 20)

struct sup_worker {
	pid_t pid;  /* 0 once reaped */
	int audit;  /* the supervisor's end of its audit socket; -1 once it closed */
	bool asked; /* told to stop (so its end is no failure) */
};

struct sup {
	struct airlock_config *cfg;
	uint32_t n;
	struct sup_worker w[PEER_KEY_MAX_WORKERS];
	struct server_worker share[PEER_KEY_MAX_WORKERS]; /* what each worker is handed */
	struct audit *audit;
	int lock;      /* job_dir's lock, held for as long as any of us runs */
	int sfd;       /* the signals the supervisor reads (signalfd); a worker closes its copy */
	bool stopping; /* a stop was asked for, or a worker ended */
	int rc;
};

/*
 * host:port bound n times with SO_REUSEPORT into fds, listening: the
 * kernel spreads connections over the workers. A port another process
 * holds, even one of a reuseport group of its own, is refused first.
 */
static int bind_shared(const char *key, const char *host, uint16_t port, int fds[], uint32_t n)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *ai = NULL;
	char portstr[8];
	int one = 1, rc, probe;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &ai);
	if (rc != 0) {
		log_error("%s %s: %s", key, host, gai_strerror(rc));
		return -1;
	}
	probe = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe < 0 || setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(probe, ai->ai_addr, ai->ai_addrlen) < 0) {
		log_error("cannot listen on %s:%u: %s", host, port, strerror(errno));
		if (probe >= 0)
			close(probe);
		freeaddrinfo(ai);
		return -1;
	}
	close(probe);
	for (uint32_t i = 0; i < n; i++) {
		fds[i] = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 || setsockopt(fds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    setsockopt(fds[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
		    bind(fds[i], ai->ai_addr, ai->ai_addrlen) < 0 || listen(fds[i], 512) < 0) {
			log_error("cannot listen on %s:%u: %s", host, port, strerror(errno));
			for (uint32_t j = 0; j <= i; j++)
				if (fds[j] >= 0)
					close(fds[j]);
			freeaddrinfo(ai);
			return -1;
		}
	}
	freeaddrinfo(ai);
	return 0;
}

/* Worker index's unix socket under job_dir/.workers (0700, root's): only this user's processes reach it. */
static int bind_sibling(const char *job_dir, uint32_t index)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	config_worker_socket(job_dir, index, sun.sun_path, sizeof(sun.sun_path));
	if (unlink(sun.sun_path) < 0 && errno != ENOENT)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || chmod(sun.sun_path, 0600) < 0 ||
	    listen(fd, SIBLING_BACKLOG) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* What every worker shares, checked once before any of them starts. */
static int prepare(struct sup *s)
{
	struct airlock_config *cfg = s->cfg;
	char err[512], dir[4200];
	struct runtime_sweep rs = {0};
	struct approval_store *st;
	struct stat sb;

	/* What a single process left directly under job_dir; each worker sweeps its own directory. */
	s->lock = server_take_job_dir(cfg, &rs);
	if (s->lock < 0 || server_check_validator_uid(cfg) < 0)
		return -1;
	worker_dirs_sweep(cfg, cfg->workers, &rs);
	snprintf(dir, sizeof(dir), "%s" CONFIG_WORKER_DIR, cfg->job_dir);
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || lstat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid() || chmod(dir, 0700) < 0) {
		log_error("job_dir %s: cannot make %s, the workers' own: %s", cfg->job_dir, dir,
			  errno ? strerror(errno) : "not a directory of airlockd's");
		return -1;
	}
	/* The writes a stop left running are failed once, here: a worker's open must not fail another's. */
	if (approvals_needed(cfg)) {
		st = approvals_open(cfg, true, err, sizeof(err));
		if (!st) {
			log_error("%s", err);
			return -1;
		}
		st->ops->close(st);
	}
	s->audit = audit_open(cfg->audit_log);
	if (!s->audit) {
		log_error("audit_log %s: %s", cfg->audit_log, strerror(errno));
		return -1;
	}
	return 0;
}

/* The descriptors each worker is handed: its listeners, its unix socket and its audit socket. */
static int make_shares(struct sup *s)
{
	const struct airlock_config *cfg = s->cfg;
	int pg[PEER_KEY_MAX_WORKERS], my[PEER_KEY_MAX_WORKERS], pair[2];
	uint8_t key[32];
	int size = AUDIT_SNDBUF;

	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		log_error("workers: no random key");
		return -1;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		s->share[i] = (struct server_worker){.index = i,
						     .count = s->n,
						     .listen_fd = {-1, -1},
						     .sibling_fd = -1,
						     .audit_fd = -1,
						     .control_fd = -1};
		s->w[i].audit = -1;
		pg[i] = my[i] = -1;
	}
	if (bind_shared("pg_listen", cfg->pg_listen_host, cfg->pg_listen_port, pg, s->n) < 0)
		return -1;
	if (cfg->mysql_listen_host &&
	    bind_shared("mysql_listen", cfg->mysql_listen_host, cfg->mysql_listen_port, my, s->n) < 0) {
		for (uint32_t i = 0; i < s->n; i++)
			close(pg[i]);
		return -1;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct server_worker *w = &s->share[i];

		w->listen_fd[0] = pg[i];
		w->listen_fd[1] = my[i];
		snprintf(w->job_dir, sizeof(w->job_dir), "%s", cfg->job_dir);
		memcpy(w->key, key, sizeof(key));
		w->sibling_fd = bind_sibling(cfg->job_dir, i);
		if (w->sibling_fd < 0) {
			log_error("job_dir %s: cannot make worker %u's socket: %s", cfg->job_dir, i, strerror(errno));
			return -1;
		}
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
			log_error("workers: %s", strerror(errno));
			return -1;
		}
		/* A worker's record waits in its socket, not in its loop, while the supervisor writes. */
		setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
		s->w[i].audit = pair[0];
		w->audit_fd = pair[1];
	}
	explicit_bzero(key, sizeof(key));
	return 0;
}

static void close_share(struct server_worker *w)
{
	for (size_t i = 0; i < 2; i++)
		if (w->listen_fd[i] >= 0)
			close(w->listen_fd[i]);
	if (w->sibling_fd >= 0)
		close(w->sibling_fd);
	if (w->audit_fd >= 0)
		close(w->audit_fd);
	explicit_bzero(w->key, sizeof(w->key));
	*w = (struct server_worker){.listen_fd = {-1, -1}, .sibling_fd = -1, .audit_fd = -1, .control_fd = -1};
}

/* In the child: everything of the other workers and of the supervisor closed, then a whole server. */
static void worker_main(struct sup *s, uint32_t index, pid_t parent, const sigset_t *mask)
{
	struct server srv;
	char tag[24];
	int rc;

	/* Ends with its supervisor, and never outlives it unnoticed if that was already gone. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(1);
	/*
	 * What the supervisor passes on stays blocked until the server's loop
	 * has its handlers: until then it waits, rather than ending the worker
	 * (the default action of SIGHUP, SIGTERM and SIGRTMIN).
	 */
	sigset_t held = *mask;

	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	sigaddset(&held, SIGUSR1);
	sigaddset(&held, SIGRTMIN);
	sigaddset(&held, SIGRTMIN + 1);
	sigdelset(&held, SIGCHLD);
	sigprocmask(SIG_SETMASK, &held, NULL);
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->w[i].audit >= 0)
			close(s->w[i].audit);
		if (i != index)
			close_share(&s->share[i]);
	}
	audit_close(s->audit);
	close(s->sfd);
	snprintf(tag, sizeof(tag), "worker %u", index);
	log_set_tag(tag);
	rc = server_init(&srv, s->cfg->path, s->cfg, &s->share[index]);
	sigprocmask(SIG_SETMASK, mask, NULL); /* the loop's handlers are in place: what waited is delivered */
	if (rc == 0)
		rc = server_run(&srv);
	server_fini(&srv);
	curl_global_cleanup();
	exit(rc ? 1 : 0);
}

static void tell_all(struct sup *s, int sig)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->w[i].pid > 0) {
			if (sig == SIGTERM || sig == SIGINT)
				s->w[i].asked = true;
			kill(s->w[i].pid, sig);
		}
}

static void reap(struct sup *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (uint32_t i = 0; i < s->n; i++) {
			if (s->w[i].pid != pid)
				continue;
			s->w[i].pid = 0;
			if (s->w[i].asked && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
				log_info("worker %u stopped", i);
				break;
			}
			if (WIFSIGNALED(status))
				log_error("worker %u (pid %d) ended by signal %d%s", i, (int)pid, WTERMSIG(status),
					  s->stopping ? "" : "; stopping the others");
			else
				log_error("worker %u (pid %d) exited with %d%s", i, (int)pid, WEXITSTATUS(status),
					  s->stopping ? "" : "; stopping the others");
			s->rc = 1;
			if (!s->stopping) {
				s->stopping = true;
				tell_all(s, SIGTERM);
			}
		}
	}
}

/* What worker i's console asked of the others (server_ctl.h's SERVER_TELL_*). */
static void told(struct sup *s, uint32_t from, char what)
{
	int sig = what == SERVER_TELL_RELOAD     ? SIGHUP
		  : what == SERVER_TELL_PAUSE    ? SIGRTMIN
		  : what == SERVER_TELL_RESUME   ? SIGRTMIN + 1
		  : what == SERVER_TELL_SHUTDOWN ? SIGTERM
						 : 0;

	if (!sig) {
		log_error("worker %u: an unknown request %d; ignored", from, (int)(unsigned char)what);
		return;
	}
	if (sig == SIGTERM) {
		log_info("worker %u's console: SHUTDOWN; every worker drains", from);
		s->stopping = true;
		s->w[from].asked = true; /* it drains already: a signal now would stop it at once */
	}
	for (uint32_t i = 0; i < s->n; i++)
		if (i != from && s->w[i].pid > 0) {
			s->w[i].asked |= sig == SIGTERM;
			kill(s->w[i].pid, sig);
		}
}

/* One audit record from worker i, or its end. */
static void take_record(struct sup *s, uint32_t i)
{
	static char buf[AUDIT_MAX_RECORD + 1];
	ssize_t n = recv(s->w[i].audit, buf, sizeof(buf), MSG_TRUNC | MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(s->w[i].audit);
		s->w[i].audit = -1;
		return;
	}
	if (n == 2 && buf[0] == SERVER_TELL_MARK) {
		told(s, i, buf[1]);
		return;
	}
	if ((size_t)n > AUDIT_MAX_RECORD || audit_append(s->audit, buf, (size_t)n) < 0)
		log_error("worker %u: an audit record of %zd bytes was not one JSON line; not written", i, n);
}

static void on_signal(struct sup *s, int sig)
{
	switch (sig) {
	case SIGCHLD:
		reap(s);
		break;
	case SIGHUP:
		log_info("signal %d: each worker reloads", sig);
		tell_all(s, SIGHUP);
		break;
	case SIGUSR1:
		if (audit_reopen(s->audit, s->cfg->audit_log) < 0)
			log_warn("audit log %s: could not open it again (%s); records still go to the file open before",
				 s->cfg->audit_log, strerror(errno));
		else
			log_info("audit log %s opened again", s->cfg->audit_log);
		break;
	default: /* SIGINT, SIGTERM: each worker drains; a second one ends them now */
		log_info("signal %d: %s", sig, s->stopping ? "again" : "shutting down every worker");
		s->stopping = true;
		tell_all(s, sig);
		break;
	}
}

/* Until every worker is reaped and its audit socket read to the end. */
static void watch(struct sup *s, int sfd)
{
	struct pollfd p[PEER_KEY_MAX_WORKERS + 1];

	for (;;) {
		uint32_t alive = 0, np = 1;

		p[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
		for (uint32_t i = 0; i < s->n; i++) {
			alive += s->w[i].pid > 0 || s->w[i].audit >= 0;
			p[np++] = (struct pollfd){.fd = s->w[i].audit, .events = POLLIN};
		}
		if (!alive)
			return;
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("supervisor: %s", strerror(errno));
			return;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				on_signal(s, (int)si.ssi_signo);
		}
		for (uint32_t i = 0; i < s->n; i++)
			if (s->w[i].audit >= 0 && (p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				take_record(s, i);
	}
}

int supervisor_run(struct airlock_config *cfg)
{
	struct sup s = {.cfg = cfg, .n = cfg->workers, .lock = -1, .sfd = -1};
	sigset_t mask, old;
	pid_t self = getpid();
	int sfd = -1;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGCHLD);
	/* Blocked before the first fork: a signal then waits for the loop instead of ending us. */
	sigprocmask(SIG_BLOCK, &mask, &old);
	if (prepare(&s) < 0 || make_shares(&s) < 0) {
		s.rc = 1;
		goto out;
	}
	sfd = s.sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		log_error("supervisor: %s", strerror(errno));
		s.rc = 1;
		goto out;
	}
	for (uint32_t i = 0; i < s.n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			worker_main(&s, i, self, &old);
		if (pid < 0) {
			log_error("workers: cannot start worker %u: %s", i, strerror(errno));
			s.rc = 1;
			s.stopping = true;
			tell_all(&s, SIGTERM);
			for (uint32_t j = i; j < s.n; j++) {
				close(s.w[j].audit);
				s.w[j].audit = -1;
			}
			break;
		}
		s.w[i].pid = pid;
		close_share(&s.share[i]); /* the worker's now */
	}
	if (!s.stopping)
		log_info("workers: %u started, sharing the listeners", s.n);
	watch(&s, sfd);
out:
	for (uint32_t i = 0; i < s.n; i++) {
		close_share(&s.share[i]);
		if (s.w[i].audit >= 0)
			close(s.w[i].audit);
	}
	if (sfd >= 0)
		close(sfd);
	audit_close(s.audit);
	if (s.lock >= 0)
		close(s.lock);
	config_free(cfg);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return s.rc;
}
