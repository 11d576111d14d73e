/*
 * validator_pool: starting, calling and replacing the validator workers.
 * See validator_pool.h.
 */
#define _GNU_SOURCE
#include "proxy/validator_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proxy/log.h"
#include "proxy/timeval.h"
#include "validator/vw_sandbox.h"

/* The worker's main thread may grow its stack this far (a guard page below it ends the process). */
#define VPOOL_STACK_BYTES (256u << 20)

struct worker {
	pid_t pid; /* 0: none */
	int fd;    /* airlockd's end of the channel; -1: none */
	uint64_t served;
};

struct vpool {
	struct vpool_options o;
	char *path;            /* owned copy of o.path */
	char mem[16], cpu[16]; /* the worker's arguments, made before any fork */
	struct worker *w;
	unsigned next; /* the worker called last; the first tried next */
	enum vpool_failure failure;
	char failure_text[128];
	uint64_t calls, failures, started;
	void (*observe)(void *arg, double seconds); /* vpool_observe; NULL: none */
	void *observe_arg;                          /* borrowed */
	uint64_t busy_ns;                           /* every vpool_call's time, added up */
	unsigned spin_skip;                         /* waits left that sleep at once (VPOOL_SPIN_BACKOFF) */
};

/* ---- starting and ending a worker ---- */

/* In the child, between fork and exec: only async-signal-safe calls. Never returns. */
static void child(const struct vpool *p, int fd)
{
	char *const argv[] = {p->path, (char *)p->mem, (char *)p->cpu, NULL}, *const envp[] = {NULL};
	struct rlimit stack = {.rlim_cur = VPOOL_STACK_BYTES, .rlim_max = VPOOL_STACK_BYTES};
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The channel on VW_CHANNEL_FD, and nothing else open at all. */
	if (fd == VW_CHANNEL_FD) {
		if (fcntl(fd, F_SETFD, 0) < 0)
			_exit(126);
	} else if (dup2(fd, VW_CHANNEL_FD) < 0) {
		_exit(126);
	}
	for (int i = 0; i < VW_CHANNEL_FD; i++)
		close(i);
	if (close_range(VW_CHANNEL_FD + 1, ~0u, 0) < 0)
		_exit(126);
	/* Dies with airlockd, even a SIGKILLed one. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || setrlimit(RLIMIT_STACK, &stack) < 0)
		_exit(126);
	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(p->o.gid, p->o.gid, p->o.gid) < 0 ||
			       setresuid(p->o.uid, p->o.uid, p->o.uid) < 0))
		_exit(126);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(126);
	execve(p->path, argv, envp);
	_exit(127);
}

static void worker_end(struct worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	w->pid = 0;
	w->fd = -1;
	w->served = 0;
}

static int worker_start(struct vpool *p, struct worker *w)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0)
		child(p, sv[1]);
	close(sv[1]);
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) < 0) {
		close(sv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	w->pid = pid;
	w->fd = sv[0];
	w->served = 0;
	p->started++;
	return 0;
}

struct vpool *vpool_new(const struct vpool_options *o, char *err, size_t errlen)
{
	struct vpool *p = calloc(1, sizeof(*p));
	unsigned n = o->workers ? o->workers : 1;

	if (!p || !(p->path = strdup(o->path)) || !(p->w = calloc(n, sizeof(*p->w)))) {
		snprintf(err, errlen, "out of memory");
		vpool_free(p);
		return NULL;
	}
	p->o = *o;
	p->o.workers = n;
	p->o.path = p->path;
	snprintf(p->mem, sizeof(p->mem), "%u", o->memory_mb);
	snprintf(p->cpu, sizeof(p->cpu), "%u", o->cpu_seconds);
	if (access(p->path, X_OK) < 0) {
		snprintf(err, errlen, "validator %s: %s", p->path, strerror(errno));
		vpool_free(p);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		p->w[i].fd = -1;
		if (worker_start(p, &p->w[i]) < 0) {
			snprintf(err, errlen, "cannot start validator %s: %s", p->path, strerror(errno));
			vpool_free(p);
			return NULL;
		}
	}
	return p;
}

void vpool_free(struct vpool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; p->w && i < p->o.workers; i++)
		worker_end(&p->w[i]);
	free(p->w);
	free(p->path);
	free(p);
}

/* ---- one call ---- */

static bool fail(struct vpool *p, struct worker *w, enum vpool_failure why)
{
	static const char *const text[] = {
		[VPOOL_CRASHED] = "the validator worker ended while validating it",
		[VPOOL_MALFORMED] = "the validator worker answered something unreadable",
		[VPOOL_NO_WORKER] = "no validator worker could be started",
		[VPOOL_NO_MEMORY] = "out of memory",
	};
	pid_t pid = w ? w->pid : 0;

	p->failure = why;
	p->failures++;
	if (why == VPOOL_TIMEOUT)
		snprintf(p->failure_text, sizeof(p->failure_text), "the validator worker did not answer within %u ms",
			 p->o.timeout_ms);
	else
		snprintf(p->failure_text, sizeof(p->failure_text), "%s", text[why]);
	if (w) {
		log_warn("validator worker pid %d: %s; replacing it", (int)pid, p->failure_text);
		worker_end(w);
		if (worker_start(p, w) < 0)
			log_error("cannot start a validator worker: %s", strerror(errno));
		/* The next call goes to another worker, started before this one. */
		p->next = (unsigned)(w - p->w + 1) % p->o.workers;
	}
	return false;
}

/*
 * Most answers come within tens of microseconds. Waiting for them in
 * poll() puts airlockd to sleep, and on an otherwise idle machine waking
 * it again costs more than the answer took; so the first VPOOL_SPIN_US of
 * a wait ask without sleeping. On a busy machine the answer is late (the
 * worker waits for a CPU), and asking burns the CPU it waits for: a wait
 * whose spin missed makes the next VPOOL_SPIN_BACKOFF waits sleep at once.
 */
#define VPOOL_SPIN_US 60
#define VPOOL_SPIN_BACKOFF 16

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Writes what is left of out and reads the answer into *body, within the
 * deadline, asking without sleeping for the first spin_us; *missed: the
 * spin ended before the answer came.
 */
static enum vpool_failure exchange(struct worker *w, const struct wbuf *out, int64_t deadline, int64_t spin_us,
				   bool *missed, uint8_t **body, uint32_t *len)
{
	size_t sent = 0, got = 0, want = 4;
	int64_t spin_until = now_us() + spin_us;
	uint8_t head[4];
	bool spinning;

	*body = NULL;
	for (;;) {
		struct pollfd pfd = {.fd = w->fd, .events = POLLIN | (sent < out->len ? POLLOUT : 0)};
		int64_t left = deadline - monotonic_ms();
		ssize_t n;

		if (left <= 0)
			return VPOOL_TIMEOUT;
		spinning = spin_us && !*missed && now_us() < spin_until;
		*missed = spin_us && !spinning;
		n = poll(&pfd, 1, spinning ? 0 : (int)left);
		if (n == 0 && spinning)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return VPOOL_CRASHED;
		if (n == 0)
			return VPOOL_TIMEOUT;
		if (sent < out->len && (pfd.revents & POLLOUT)) {
			n = write(w->fd, out->data + sent, out->len - sent);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return VPOOL_CRASHED;
			if (n > 0)
				sent += (size_t)n;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (!*body && got < 4)
			n = read(w->fd, head + got, 4 - got);
		else
			n = read(w->fd, *body + (got - 4), want - got);
		if (n == 0)
			return VPOOL_CRASHED;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return VPOOL_CRASHED;
		}
		got += (size_t)n;
		if (got == 4 && !*body) {
			*len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
			/* An answer before the whole question was read is no answer. */
			if (*len > VW_MAX_BODY || sent < out->len)
				return VPOOL_MALFORMED;
			*body = malloc(*len ? *len : 1);
			if (!*body)
				return VPOOL_NO_MEMORY;
			want = 4 + (size_t)*len;
		}
		if (*body && got == want)
			return VPOOL_NO_FAILURE;
	}
}

/* An idle worker never writes: a readable or hung-up channel, or a reaped pid, means it ended while idle. */
static bool idle_alive(struct worker *w)
{
	struct pollfd pfd = {.fd = w->fd, .events = POLLIN};

	return w->fd >= 0 && poll(&pfd, 1, 0) == 0;
}

static bool call(struct vpool *p, const struct wbuf *req, enum vw_op op, size_t sql_len, size_t nrules,
		 struct vw_response *res)
{
	struct worker *w = NULL;
	enum vpool_failure why;
	uint8_t *body = NULL;
	uint32_t len = 0;
	bool ok, missed = false;

	memset(res, 0, sizeof(*res));
	p->calls++;
	p->failure = VPOOL_NO_FAILURE;
	if (req->failed)
		return fail(p, NULL, VPOOL_NO_MEMORY);
	/* The worker of the last call while it serves: it looks for a follow-up request without sleeping. */
	for (unsigned i = 0; i < p->o.workers && !w; i++) {
		unsigned at = (p->next + i) % p->o.workers;
		struct worker *c = &p->w[at];

		if (c->fd < 0 && worker_start(p, c) < 0)
			continue;
		if (c->served >= VPOOL_RECYCLE || !idle_alive(c)) {
			if (c->served < VPOOL_RECYCLE)
				log_warn("validator worker pid %d ended while idle; replacing it", (int)c->pid);
			worker_end(c);
			/* Replaced, it readies itself while another (already started) takes this call. */
			if (worker_start(p, c) < 0 || i + 1 < p->o.workers)
				continue;
		}
		w = c;
		p->next = at;
	}
	if (!w)
		return fail(p, NULL, VPOOL_NO_WORKER);
	why = exchange(w, req, monotonic_ms() + p->o.timeout_ms, p->spin_skip ? 0 : VPOOL_SPIN_US, &missed, &body,
		       &len);
	if (p->spin_skip)
		p->spin_skip--;
	else if (missed)
		p->spin_skip = VPOOL_SPIN_BACKOFF;
	if (why != VPOOL_NO_FAILURE) {
		free(body);
		return fail(p, w, why);
	}
	w->served++;
	ok = vw_get_response(body, len, op, sql_len, nrules, res);
	free(body);
	if (ok && res->status == VW_NO_MEMORY) {
		/* The worker answered: it stays. */
		vw_response_free(res);
		return fail(p, NULL, VPOOL_NO_MEMORY);
	}
	if (!ok || res->status != VW_OK) {
		vw_response_free(res);
		return fail(p, w, VPOOL_MALFORMED);
	}
	return true;
}

bool vpool_call(struct vpool *p, const struct wbuf *req, enum vw_op op, size_t sql_len, size_t nrules,
		struct vw_response *res)
{
	uint64_t t0 = monotonic_ns(), took;
	bool ok;

	ok = call(p, req, op, sql_len, nrules, res);
	took = monotonic_ns() - t0;
	p->busy_ns += took;
	if (p->observe)
		p->observe(p->observe_arg, (double)took / 1e9);
	return ok;
}

uint64_t vpool_busy_ns(const struct vpool *p)
{
	return p ? p->busy_ns : 0;
}

void vpool_observe(struct vpool *p, void (*fn)(void *arg, double seconds), void *arg)
{
	p->observe = fn;
	p->observe_arg = arg;
}

enum vpool_failure vpool_last_failure(const struct vpool *p)
{
	return p->failure;
}

const char *vpool_failure_text(const struct vpool *p)
{
	return p->failure == VPOOL_NO_FAILURE ? "" : p->failure_text;
}

size_t vpool_pids(const struct vpool *p, pid_t *pids, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < p->o.workers && n < max; i++)
		if (p->w[i].pid > 0)
			pids[n++] = p->w[i].pid;
	return n;
}

void vpool_counts(const struct vpool *p, uint64_t *calls, uint64_t *failures, uint64_t *started)
{
	*calls = p->calls;
	*failures = p->failures;
	*started = p->started;
}

#ifdef AIRLOCK_VALIDATOR_BYPASS
bool vpool_bypass(const struct vpool *p)
{
	return p->o.bypass;
}
#endif
