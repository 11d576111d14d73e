/*
 * job: one statement, one runner container, one private directory.
 *
 * Life of a job:
 *   job_start: check capacity and the host allowlist, make the directory
 *   and its two sockets, ask the launcher for a container.
 *   runner connects to control.sock -> the job frame goes out.
 *   runner connects to .s.PGSQL.5432 -> a relay to the backend.
 *   result frames -> owner events; 'C' or 'E' -> on_done.
 *   container gone (exited, killed or never started) and owner done or
 *   detached -> sockets and directory removed, job freed.
 */
#define _GNU_SOURCE
#include "proxy/job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "proxy/log.h"
#include "proxy/job_int.h"
#include "proxy/relay.h"
#include "runner/launch/launcher.h"

static void job_free(struct job *j);

struct jobs *jobs_new(struct event_base *base, struct evdns_base *dns, struct launcher *launcher,
		      const struct airlock_config *cfg)
{
	struct jobs *js = calloc(1, sizeof(*js));

	if (!js)
		return NULL;
	js->base = base;
	js->dns = dns;
	js->launcher = launcher;
	js->cfg = cfg;
	return js;
}

void jobs_set_config(struct jobs *js, const struct airlock_config *cfg)
{
	js->cfg = cfg;
	/* Warm runners hold the old targets' credentials: replace them. */
	for (size_t i = 0; i < js->npools; i++) {
		while (js->pools[i].idle) {
			pool_discard(js->pools[i].idle);
		}
	}
	js->npools = 0;
	if (js->refill)
		jobs_start_pool(js);
}

void jobs_free(struct jobs *js)
{
	/* The launcher is already gone (its containers removed): drop every job now. */
	while (js->all) {
		js->all->container_gone = true;
		js->all->detached = true;
		js->all->pend_code = NULL;
		js->all->launch = NULL;
		job_free(js->all);
	}
	if (js->refill)
		event_free(js->refill);
	free(js);
}

int jobs_sweep_dir(const char *job_dir)
{
	DIR *d = opendir(job_dir);
	struct dirent *de;
	int n = 0;
	char path[512], sock[600];

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", job_dir, de->d_name);
		snprintf(sock, sizeof(sock), "%s/control.sock", path);
		unlink(sock);
		snprintf(sock, sizeof(sock), "%s/.s.PGSQL.5432", path);
		unlink(sock);
		if (rmdir(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

unsigned jobs_live(const struct jobs *js)
{
	return js->live;
}

static void job_wipe(struct frame_buf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->cap);
	frame_buf_free(b);
}

static void job_wipe_frame(struct job *j)
{
	job_wipe(&j->connframe);
	job_wipe(&j->jobframe);
}

/* Delivers the final event once (r may be NULL once detached); closes the control connection. */
static void job_finish(struct job *j, const struct job_result *r)
{
	if (j->done)
		return;
	j->done = true;
	j->js->running--;
	if (j->ctl) {
		bufferevent_free(j->ctl);
		j->ctl = NULL;
	}
	job_wipe_frame(j);
	if (!j->detached && j->ev->on_done)
		j->ev->on_done(j->arg, r);
}

static void job_fail(struct job *j, const char *sqlstate, const char *code, const char *message)
{
	struct job_result r = {
		.ok = false,
		.sqlstate = sqlstate,
		.code = code,
		.message = message,
		.detail = NULL,
		.hint = NULL,
	};
	job_finish(j, &r);
}

static void job_defer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;

	if (j->pend_code) {
		job_fail(j, j->pend_sqlstate, j->pend_code, j->pend_message);
		j->pend_code = NULL;
	}
	job_maybe_free(j);
}

/* Records a failure to be reported on the next loop pass (never re-entrantly). */
static void job_fail_later(struct job *j, const char *sqlstate, const char *code, const char *message)
{
	struct timeval zero = {0, 0};

	snprintf(j->pend_sqlstate, sizeof(j->pend_sqlstate), "%s", sqlstate);
	j->pend_code = code;
	snprintf(j->pend_message, sizeof(j->pend_message), "%s", message);
	evtimer_add(j->defer, &zero);
}

static void job_free(struct job *j)
{
	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		relay_free(j->relays[i]);
	if (j->ctl)
		bufferevent_free(j->ctl);
	if (j->ctl_lst)
		evconnlistener_free(j->ctl_lst);
	if (j->db_lst)
		evconnlistener_free(j->db_lst);
	if (j->ctl_path[0])
		unlink(j->ctl_path);
	if (j->db_path[0])
		unlink(j->db_path);
	if (j->dir[0] && rmdir(j->dir) < 0 && errno != ENOENT)
		log_warn("job %s: could not remove its directory: %s", j->id, strerror(errno));
	pool_remove(j);
	if (j->defer)
		event_free(j->defer);
	if (j->deadline)
		event_free(j->deadline);
	job_wipe_frame(j);
	free(j->host);
	if (j->prev)
		j->prev->next = j->next;
	else
		j->js->all = j->next;
	if (j->next)
		j->next->prev = j->prev;
	j->js->live--;
	free(j);
}

void job_maybe_free(struct job *j)
{
	if ((j->done || j->detached) && j->container_gone && !j->pend_code)
		job_free(j);
}

/* ---- result frames from the runner ---- */

static void job_frame_error(struct job *j, const struct frame *f, bool notice)
{
	struct frame_error e;
	char sqlstate[6], code[64], message[1024], detail[1024], hint[1024];
	struct job_result r = {.ok = false};

	if (frame_decode_error(f, &e) != FRAME_OK) {
		job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent a malformed error frame");
		return;
	}
	if (notice) {
		if (!j->detached && j->ev->on_notice)
			j->ev->on_notice(j->arg, &e);
		return;
	}
	snprintf(sqlstate, sizeof(sqlstate), "%.*s", (int)e.sqlstate.len, e.sqlstate.ptr);
	snprintf(code, sizeof(code), "%.*s", (int)e.code.len, e.code.ptr);
	snprintf(message, sizeof(message), "%.*s", (int)e.message.len, e.message.ptr);
	snprintf(detail, sizeof(detail), "%.*s", (int)e.detail.len, e.detail.ptr);
	snprintf(hint, sizeof(hint), "%.*s", (int)e.hint.len, e.hint.ptr);
	if (strlen(sqlstate) != 5)
		snprintf(sqlstate, sizeof(sqlstate), "XX000");
	r.sqlstate = sqlstate;
	r.code = code;
	r.message = message;
	r.detail = detail[0] ? detail : NULL;
	r.hint = hint[0] ? hint : NULL;
	for (uint32_t i = 0; i < e.position.len; i++)
		r.position = r.position * 10 + (e.position.ptr[i] - '0');
	for (uint32_t i = 0; i < e.my_errno.len && r.my_errno < 100000; i++)
		r.my_errno = r.my_errno * 10 + (unsigned)(e.my_errno.ptr[i] - '0');
	job_finish(j, &r);
}

static void job_frame_complete(struct job *j, const struct frame *f)
{
	struct frame_complete c;
	char tag[64];
	struct job_result r = {.ok = true};

	if (frame_decode_complete(f, &c) != FRAME_OK) {
		job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent a malformed completion frame");
		return;
	}
	snprintf(tag, sizeof(tag), "%.*s", (int)c.tag.len, c.tag.ptr);
	r.rows = j->rows;
	r.bytes = j->bytes;
	r.truncated = c.truncated;
	r.warnings = c.warnings;
	r.tag = tag;
	job_finish(j, &r);
}

/* Backstop: the runner enforces the caps; the proxy enforces them again. */
static bool job_frame_row(struct job *j, const struct frame *f)
{
	uint16_t ncols;
	struct job_result r = {.ok = true};
	char tag[48];

	if (frame_row_check(f, &ncols) != FRAME_OK) {
		job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent a malformed row");
		return false;
	}
	if (j->rows + 1 > j->limits.max_rows || j->bytes + f->len > j->limits.max_bytes) {
		snprintf(tag, sizeof(tag), "SELECT %" PRIu64, j->rows);
		r.rows = j->rows;
		r.bytes = j->bytes;
		r.truncated = j->rows + 1 > j->limits.max_rows ? FRAME_TRUNC_MAX_ROWS : FRAME_TRUNC_MAX_BYTES;
		r.tag = tag;
		job_finish(j, &r);
		return false;
	}
	j->rows++;
	j->bytes += f->len;
	if (!j->detached && j->ev->on_row)
		j->ev->on_row(j->arg, f);
	return true;
}

static void job_ctl_read_cb(struct bufferevent *bev, void *arg)
{
	struct job *j = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (j->pool) {
		/* A warm runner speaks before its statement only when its connect failed. */
		log_warn("job %s: warm runner could not connect to the database", j->id);
		bufferevent_free(j->ctl);
		j->ctl = NULL;
		pool_discard(j);
		pool_slot_failed(j->js);
		return;
	}

	while (!j->done && !j->paused) {
		size_t have = evbuffer_get_length(in);
		uint8_t hdr[FRAME_HEADER_LEN];
		uint32_t plen;
		size_t total, consumed;
		struct frame f;
		const uint8_t *data;

		if (have < FRAME_HEADER_LEN)
			return;
		evbuffer_copyout(in, hdr, sizeof(hdr));
		plen = (uint32_t)hdr[1] << 24 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 8 | hdr[4];
		if (plen > FRAME_MAX_PAYLOAD) {
			job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent an oversized frame");
			return;
		}
		total = FRAME_HEADER_LEN + (size_t)plen;
		if (have < total) {
			/* Let the buffer grow to exactly one whole frame, no further. */
			bufferevent_setwatermark(bev, EV_READ, 0,
						 total > JOB_CTL_WATERMARK ? total : JOB_CTL_WATERMARK);
			return;
		}
		data = evbuffer_pullup(in, (ssize_t)total);
		if (!data || frame_peek(data, total, FRAME_MAX_PAYLOAD, &f, &consumed) != FRAME_OK) {
			job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent a malformed frame");
			return;
		}
		switch (f.type) {
		case FRAME_ROWDESC:
		case FRAME_MYCOLS:
			if (!j->detached && j->ev->on_rowdesc)
				j->ev->on_rowdesc(j->arg, &f);
			break;
		case FRAME_ROW:
			if (!job_frame_row(j, &f))
				return;
			break;
		case FRAME_NOTICE:
			job_frame_error(j, &f, true);
			break;
		case FRAME_COMPLETE:
			job_frame_complete(j, &f);
			return;
		case FRAME_ERROR:
			job_frame_error(j, &f, false);
			return;
		default:
			job_fail(j, "XX000", "EXECUTION_FAILED", "runner sent an unexpected frame");
			return;
		}
		if (j->done || !j->ctl)
			return;
		evbuffer_drain(in, total);
		bufferevent_setwatermark(bev, EV_READ, 0, JOB_CTL_WATERMARK);
	}
}

static void job_ctl_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct job *j = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		/* Runner went away without a result; on_exited will tell why. */
		bufferevent_free(j->ctl);
		j->ctl = NULL;
	}
}

static bool job_peer_is_runner(struct job *j, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	/* Root-run proxies check the runner's uid; others accept their own uid too. */
	return cred.uid == j->runner_uid || (geteuid() != 0 && cred.uid == geteuid());
}

/* Sends what the runner can have now: credentials at once, the statement once attached. */
static void job_send_frame(struct job *j)
{
	if (!j->ctl || j->done)
		return;
	if (j->connframe.data) {
		bufferevent_write(j->ctl, j->connframe.data, j->connframe.len);
		job_wipe(&j->connframe);
		/* A warm runner reports a failed connect before it has a statement. */
		bufferevent_enable(j->ctl, EV_READ);
	}
	if (!j->jobframe.data)
		return;
	bufferevent_write(j->ctl, j->jobframe.data, j->jobframe.len);
	job_wipe(&j->jobframe);
	if (j->paused)
		bufferevent_disable(j->ctl, EV_READ);
	else
		bufferevent_enable(j->ctl, EV_READ);
}

static void job_ctl_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen,
			      void *arg)
{
	struct job *j = arg;

	if (j->ctl || j->done || (j->detached && !j->pool) || !job_peer_is_runner(j, fd)) {
		close(fd);
		return;
	}
	evutil_make_socket_nonblocking(fd);
	j->ctl = bufferevent_socket_new(j->js->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!j->ctl) {
		close(fd);
		return;
	}
	bufferevent_setcb(j->ctl, job_ctl_read_cb, NULL, job_ctl_event_cb, j);
	bufferevent_setwatermark(j->ctl, EV_READ, 0, JOB_CTL_WATERMARK);
	/* One runner per job: no further control connections. */
	evconnlistener_disable(j->ctl_lst);
	job_send_frame(j);
}

static void job_relay_closed(void *arg, struct relay *r)
{
	struct job *j = arg;

	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		if (j->relays[i] == r)
			j->relays[i] = NULL;
}

static void job_db_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen,
			     void *arg)
{
	struct job *j = arg;
	int slot = -1;

	for (int i = 0; i < JOB_MAX_RELAYS; i++)
		if (!j->relays[i])
			slot = i;
	/* Only an attached job has a backend to reach. */
	if (slot < 0 || !j->host || j->container_gone || !job_peer_is_runner(j, fd)) {
		close(fd);
		return;
	}
	j->relays[slot] = relay_new(j->js->base, j->js->dns, fd, j->host, j->port, job_relay_closed, j);
}

/* ---- container events ---- */

static void job_on_started(void *arg, bool ok, const char *code, const char *error)
{
	struct job *j = arg;
	char msg[256];

	if (ok) {
		j->js->backoff_ms = 0;
		return;
	}
	j->container_gone = true;
	j->launch = NULL;
	log_warn("job %s: runner did not start: %s: %s", j->id, code, error);
	if (j->pool) {
		pool_remove(j);
		pool_slot_failed(j->js);
		job_maybe_free(j);
		return;
	}
	if (!strcmp(code, "DOCKER_UNAVAILABLE"))
		snprintf(msg, sizeof(msg), "the Docker engine is not reachable, so the statement was not run");
	else if (!strcmp(code, "IMAGE_UNAVAILABLE"))
		snprintf(msg, sizeof(msg), "the pinned runner image is not present in the Docker engine");
	else
		snprintf(msg, sizeof(msg), "the runner container could not be started");
	job_fail(j, "58000", code, msg);
	job_maybe_free(j);
}

static void job_on_exited(void *arg, int exit_code, bool killed)
{
	struct job *j = arg;
	char msg[256];

	j->container_gone = true;
	j->launch = NULL;
	if (j->pool) {
		log_warn("job %s: warm runner exited before use (status %d)", j->id, exit_code);
		pool_remove(j);
		pool_slot_failed(j->js);
	} else if (!j->done) {
		if (killed) {
			snprintf(msg, sizeof(msg),
				 "statement exceeded timeout_ms=%u and its runner was stopped",
				 j->limits.timeout_ms);
			job_fail(j, "57014", "TIMEOUT", msg);
		} else {
			snprintf(msg, sizeof(msg), "the runner exited (status %d) before returning a result",
				 exit_code);
			job_fail(j, "58000", "EXECUTION_FAILED", msg);
		}
	}
	job_maybe_free(j);
}

static const struct launch_callbacks job_launch_cb = {
	.on_started = job_on_started,
	.on_exited = job_on_exited,
};

static void job_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job *j = arg;

	if (j->launch && !j->done) {
		log_info("job %s: kill deadline reached", j->id);
		launcher_kill(j->launch);
	}
}

/* ---- set-up ---- */

static int job_listen(struct job *j, const char *path, evconnlistener_cb cb, struct evconnlistener **out)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 4) < 0)
		goto out_close;
	if (geteuid() == 0 && chown(path, j->runner_uid, j->runner_gid) < 0)
		goto out_close;
	if (chmod(path, 0600) < 0)
		goto out_close;
	*out = evconnlistener_new(j->js->base, cb, j, LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (!*out)
		goto out_close;
	return 0;
out_close:
	close(fd);
	return -1;
}

static void job_put_pair(struct frame_buf *b, const char *key, const char *value)
{
	frame_put_cstr(b, key);
	frame_put_cstr(b, value);
}

static void job_put_param(struct frame_buf *b, size_t i, const struct job_param *p)
{
	char key[32];
	uint8_t flags = (p->value ? 0 : 1) | (p->binary ? 2 : 0);

	snprintf(key, sizeof(key), "param.%zu", i);
	frame_put_cstr(b, key);
	frame_put_u32(b, 5 + (p->value ? p->len : 0));
	frame_put_u8(b, flags);
	frame_put_u32(b, p->type_oid);
	if (p->value)
		frame_put_bytes(b, p->value, p->len);
}

/* Returns -1 when the job cannot be expressed in one frame. */
static int job_build_frame(struct job *j, const struct job_request *req)
{
	struct frame_buf *b = &j->jobframe;
	char num[3][32];
	char key[96];
	bool cost = req->cost_check && req->limits->max_cost > 0;
	size_t npairs = 4 + (cost ? 1 : 0) + req->nsettings + req->nparams;

	if (npairs > FRAME_MAX_PAIRS)
		return -1;
	snprintf(num[0], sizeof(num[0]), "%u", req->limits->timeout_ms);
	snprintf(num[1], sizeof(num[1]), "%u", j->limits.max_rows);
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, req->limits->max_bytes);
	frame_buf_init(b);
	frame_begin(b, FRAME_JOB);
	frame_put_u16(b, (uint16_t)npairs);
	job_put_pair(b, "sql", req->sql);
	job_put_pair(b, "timeout_ms", num[0]);
	job_put_pair(b, "max_rows", num[1]);
	job_put_pair(b, "max_bytes", num[2]);
	if (cost) {
		char c[32];

		snprintf(c, sizeof(c), "%" PRIu64, req->limits->max_cost);
		job_put_pair(b, "max_cost", c);
	}
	for (size_t i = 0; i < req->nsettings; i++) {
		snprintf(key, sizeof(key), "set.%s", req->settings[i].name);
		job_put_pair(b, key, req->settings[i].value);
	}
	for (size_t i = 0; i < req->nparams; i++)
		job_put_param(b, i, &req->params[i]);
	frame_end(b);
	return b->failed ? -1 : 0;
}

/* The 'P' frame: what a runner needs to connect to the target. */
static void job_build_connframe(struct job *j, const struct airlock_target *t)
{
	struct frame_buf *b = &j->connframe;

	frame_buf_init(b);
	frame_begin(b, FRAME_CONNECT);
	frame_put_u16(b, 4);
	job_put_pair(b, "engine", t->engine);
	job_put_pair(b, "dbname", t->database);
	job_put_pair(b, "user", t->user);
	job_put_pair(b, "password", t->password);
	frame_end(b);
}

/* A job with no directory and no container yet; counted live. */
struct job *job_new_bare(struct jobs *js)
{
	struct job *j = calloc(1, sizeof(*j));
	uint8_t rnd[16];

	if (!j)
		return NULL;
	j->js = js;
	j->defer = evtimer_new(js->base, job_defer_cb, j);
	j->deadline = evtimer_new(js->base, job_deadline_cb, j);
	if (!j->defer || !j->deadline || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		if (j->defer)
			event_free(j->defer);
		if (j->deadline)
			event_free(j->deadline);
		free(j);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(j->id + 2 * i, 3, "%02x", rnd[i]);
	js->live++;
	j->next = js->all;
	if (js->all)
		js->all->prev = j;
	js->all = j;
	j->container_gone = true; /* until a launch exists */
	j->detached = true;       /* until an owner attaches */
	return j;
}

/*
 * Directory, sockets and container for a job of this resource shape.
 * Returns -1 (with a reason logged) when any of it could not be made.
 */
int job_prepare(struct job *j, const struct airlock_target *target, uint32_t memory_mb, uint64_t nano_cpus,
		uint32_t pids)
{
	const struct airlock_config *cfg = j->js->cfg;
	struct launch_spec spec;

	j->target = target;
	j->port = target->port;
	j->host = strdup(target->host);
	job_build_connframe(j, target);
	if (!j->host || j->connframe.failed)
		return -1;

	j->runner_uid = cfg->runner_uid;
	j->runner_gid = cfg->runner_gid;
	snprintf(j->dir, sizeof(j->dir), "%s/%s", cfg->job_dir, j->id);
	if (mkdir(j->dir, 0700) < 0) {
		log_error("job %s: cannot create its directory under %s: %s", j->id, cfg->job_dir,
			  strerror(errno));
		j->dir[0] = '\0';
		return -1;
	}
	if (geteuid() == 0 && chown(j->dir, j->runner_uid, j->runner_gid) < 0)
		log_warn("job %s: chown of its directory failed: %s", j->id, strerror(errno));
	snprintf(j->ctl_path, sizeof(j->ctl_path), "%s/control.sock", j->dir);
	/* The name each runner's client library looks for: libpq's socket naming, or the runner's own. */
	snprintf(j->db_path, sizeof(j->db_path), "%s/%s", j->dir,
		 strcmp(target->engine, "mariadb") == 0 ? "mysqld.sock" : ".s.PGSQL.5432");
	if (job_listen(j, j->ctl_path, job_ctl_accept_cb, &j->ctl_lst) < 0 ||
	    job_listen(j, j->db_path, job_db_accept_cb, &j->db_lst) < 0) {
		log_error("job %s: cannot listen in its directory: %s", j->id, strerror(errno));
		return -1;
	}
	spec = (struct launch_spec){
		.image = cfg->runner_image,
		.user = cfg->runner_user,
		.job_dir = j->dir,
		.job_id = j->id,
		.memory_bytes = (uint64_t)memory_mb * 1024 * 1024,
		.nano_cpus = nano_cpus,
		.pids_limit = pids,
		.kill_after_ms = 0, /* the job's own deadline kills it, counted from attach */
	};
	j->launch = launcher_run(j->js->launcher, &spec, &job_launch_cb, j);
	if (!j->launch)
		return -1;
	j->container_gone = false;
	return 0;
}

struct job *job_start(struct jobs *js, const struct job_request *req, const struct job_events *ev, void *arg)
{
	const struct airlock_config *cfg = js->cfg;
	struct job *j = NULL;
	struct timeval tv;
	uint32_t kill_ms;

	/* Refusals that need no container never take or start one. */
	if (js->running >= cfg->max_jobs || !config_host_allowed(cfg, req->target->host)) {
		j = job_new_bare(js);
		if (!j)
			return NULL;
		if (js->running >= cfg->max_jobs)
			job_fail_later(j, "53300", "BUSY",
				       "BUSY: airlock is running as many statements as it is allowed to; retry shortly");
		else
			job_fail_later(j, "42501", "HOST_NOT_ALLOWED",
				       "HOST_NOT_ALLOWED: the target database host is not in the host allowlist");
	} else {
		j = pool_take(js, req->target, req->limits);
		if (!j) {
			j = job_new_bare(js);
			if (!j)
				return NULL;
			if (job_prepare(j, req->target, req->limits->memory_mb, req->limits->nano_cpus,
					req->limits->pids) < 0)
				job_fail_later(j, "58000", "EXECUTION_FAILED",
					       "the runner could not be prepared (see the airlock log)");
		}
		pool_schedule(js, js->backoff_ms);
	}
	j->ev = ev;
	j->arg = arg;
	j->detached = false;
	js->running++;
	if (j->pend_code)
		return j;

	j->limits = *req->limits;
	if (req->max_rows && req->max_rows < j->limits.max_rows)
		j->limits.max_rows = req->max_rows;
	if (job_build_frame(j, req) < 0) {
		job_fail_later(j, "54000", "EXECUTION_FAILED",
			       "the statement and its parameters are too large for one job");
		if (j->launch)
			launcher_kill(j->launch);
		return j;
	}
	kill_ms = j->limits.timeout_ms + cfg->kill_margin_ms;
	tv.tv_sec = kill_ms / 1000;
	tv.tv_usec = (kill_ms % 1000) * 1000;
	evtimer_add(j->deadline, &tv);
	job_send_frame(j);
	return j;
}

void job_cancel(struct job *j)
{
	struct frame_buf b;

	if (j->done || j->cancel_sent)
		return;
	j->cancel_sent = true;
	if (!j->ctl || j->jobframe.data) {
		/* The runner has not received the job yet: stop it before it runs anything. */
		job_fail_later(j, "57014", "CANCELED", "canceling statement due to user request");
		if (j->launch)
			launcher_kill(j->launch);
		return;
	}
	frame_buf_init(&b);
	frame_begin(&b, FRAME_CANCEL);
	frame_end(&b);
	if (!b.failed)
		bufferevent_write(j->ctl, b.data, b.len);
	frame_buf_free(&b);
}

void job_pause(struct job *j, bool paused)
{
	j->paused = paused;
	if (!j->ctl || j->jobframe.data)
		return;
	if (paused) {
		bufferevent_disable(j->ctl, EV_READ);
	} else {
		bufferevent_enable(j->ctl, EV_READ);
		/* Frames may already be buffered: process them now. */
		job_ctl_read_cb(j->ctl, j);
	}
}

void job_detach(struct job *j)
{
	struct timeval zero = {0, 0};
	bool was_done = j->done;

	j->detached = true;
	job_finish(j, NULL); /* detached: no event goes out */
	if (!was_done && j->launch)
		launcher_kill(j->launch);
	j->pend_code = NULL;
	evtimer_add(j->defer, &zero);
}
