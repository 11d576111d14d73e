/*
 * runner_my_watch: the MySQL runner's watchdog thread (see
 * runner_my_watch.h for who owns what).
 *
 * The thread polls the control socket, a wake pipe and the deadline. The
 * first event wins and is the only one acted on: KILL QUERY over a fresh
 * connection, then, unless the main thread disarms within KILL_GRACE_MS,
 * shutdown(2) of the statement's socket. When the proxy is gone, or the
 * KILL could not be sent, the shutdown comes at once.
 */
#include "runner/runner_my_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runner/runner_my_conn.h"

#define KILL_CONNECT_S 2
#define KILL_IO_S 2
#define KILL_GRACE_MS 1000 /* after a KILL, before the socket is shut down */

int64_t my_watch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* KILL QUERY for the statement's connection; true when the server accepted it. */
static bool kill_query(struct my_watch *w)
{
	char sql[64];
	unsigned err;
	MYSQL *k;
	bool ok;

	k = my_conn_open(w->sock_path, w->job->user, w->job->password, NULL, KILL_CONNECT_S, KILL_IO_S, KILL_IO_S,
			 &err);
	if (!k) {
		fprintf(stderr, "airlock-runner: could not open the KILL connection (%u)\n", err);
		return false;
	}
	snprintf(sql, sizeof(sql), "KILL QUERY %llu", w->conn_id);
	ok = mysql_real_query(k, sql, (unsigned long)strlen(sql)) == 0;
	if (!ok)
		fprintf(stderr, "airlock-runner: KILL QUERY failed (%u)\n", mysql_errno(k));
	mysql_close(k);
	return ok;
}

/* Shuts the statement's socket down if the main thread still waits on it. */
static void shut_db(struct my_watch *w)
{
	pthread_mutex_lock(&w->mu);
	if (w->armed && !w->stop)
		shutdown(w->db_fd, SHUT_RDWR);
	pthread_mutex_unlock(&w->mu);
}

/* Waits up to ms for the wake pipe; true when woken (to stop or after a disarm). */
static bool wait_wake(struct my_watch *w, int ms)
{
	struct pollfd p = {.fd = w->wake[0], .events = POLLIN};
	int64_t until = my_watch_now_ms() + ms;

	for (;;) {
		int64_t left = until - my_watch_now_ms();
		int n;

		if (left <= 0)
			return false;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
}

/* Records ev unless an event came first, then acts on it while still armed. */
static void fire(struct my_watch *w, enum my_event ev)
{
	bool armed;
	bool killed;

	pthread_mutex_lock(&w->mu);
	if (w->event != MY_EVENT_NONE) {
		pthread_mutex_unlock(&w->mu);
		return;
	}
	w->event = ev;
	armed = w->armed && !w->stop;
	pthread_mutex_unlock(&w->mu);
	if (!armed)
		return;
	mysql_thread_init();
	killed = kill_query(w);
	mysql_thread_end();
	/* Gone: nobody will read the outcome, so do not wait for the statement. */
	if (ev == MY_EVENT_GONE || !killed || !wait_wake(w, KILL_GRACE_MS))
		shut_db(w);
}

static void drain_wake(struct my_watch *w)
{
	char buf[16];

	while (read(w->wake[0], buf, sizeof(buf)) > 0)
		;
}

/* What the control socket's news means to the watch. */
static const enum my_event ctl_event[] = {
	[RUNNER_CTL_NOTHING] = MY_EVENT_NONE,
	[RUNNER_CTL_CANCEL] = MY_EVENT_CANCEL,
	[RUNNER_CTL_GONE] = MY_EVENT_GONE,
};

static void *watch_main(void *arg)
{
	struct my_watch *w = arg;

	for (;;) {
		struct pollfd p[2];
		enum my_event ev;
		int64_t left;
		int n, timeout;

		pthread_mutex_lock(&w->mu);
		ev = w->event;
		if (w->stop) {
			pthread_mutex_unlock(&w->mu);
			break;
		}
		pthread_mutex_unlock(&w->mu);
		/* After the first event only the wake pipe matters. */
		timeout = -1;
		if (ev == MY_EVENT_NONE) {
			left = w->deadline_ms - my_watch_now_ms();
			if (left <= 0) {
				fire(w, MY_EVENT_TIMEOUT);
				continue;
			}
			timeout = left > INT_MAX ? INT_MAX : (int)left;
		}
		p[0].fd = w->wake[0];
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = ev == MY_EVENT_NONE ? w->ctl->fd : -1;
		p[1].events = POLLIN;
		p[1].revents = 0;
		n = poll(p, 2, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot watch any more: treat it like losing the proxy. */
			fire(w, MY_EVENT_GONE);
			continue;
		}
		if (p[0].revents)
			drain_wake(w);
		if (p[1].revents) {
			enum my_event got = ctl_event[runner_ctl_on_readable(w->ctl)];

			if (got != MY_EVENT_NONE)
				fire(w, got);
		}
	}
	return NULL;
}

int my_watch_start(struct my_watch *w, struct runner_ctl *ctl, const struct runner_job *job, const char *sock_path,
		   unsigned long long conn_id, int db_fd, int64_t deadline_ms)
{
	memset(w, 0, sizeof(*w));
	w->ctl = ctl;
	w->job = job;
	w->sock_path = sock_path;
	w->conn_id = conn_id;
	w->db_fd = db_fd;
	w->deadline_ms = deadline_ms;
	w->armed = true;
	if (pipe(w->wake) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (fcntl(w->wake[i], F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(w->wake[i], F_SETFL, fcntl(w->wake[i], F_GETFL) | O_NONBLOCK) < 0)
			goto out_pipe;
	}
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		goto out_pipe;
	if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
		goto out_mutex;
	w->started = true;
	return 0;
out_mutex:
	pthread_mutex_destroy(&w->mu);
out_pipe:
	close(w->wake[0]);
	close(w->wake[1]);
	return -1;
}

enum my_event my_watch_event(struct my_watch *w)
{
	enum my_event ev;

	pthread_mutex_lock(&w->mu);
	ev = w->event;
	pthread_mutex_unlock(&w->mu);
	return ev;
}

static void wake(struct my_watch *w)
{
	static const char one = 1;

	/* A full pipe already holds a wake-up. */
	if (write(w->wake[1], &one, 1) < 0 && errno != EAGAIN)
		fprintf(stderr, "airlock-runner: watchdog wake-up failed\n");
}

enum my_event my_watch_disarm(struct my_watch *w)
{
	enum my_event ev;

	pthread_mutex_lock(&w->mu);
	w->armed = false;
	ev = w->event;
	pthread_mutex_unlock(&w->mu);
	/* Ends a wait for the statement to let go after a KILL. */
	wake(w);
	return ev;
}

void my_watch_stop(struct my_watch *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_mutex_unlock(&w->mu);
	wake(w);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	close(w->wake[0]);
	close(w->wake[1]);
	w->started = false;
}
