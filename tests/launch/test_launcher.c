/*
 * test_launcher: the Docker launcher against a real engine at
 * /var/run/docker.sock. AIRLOCK_TEST_IMAGE names a pinned image whose
 * entrypoint behaves like airlock-runner: it connects to the control socket
 * given as argv[1] and waits for a job there, and exits nonzero when it
 * cannot connect. Tests that need the engine are skipped when the socket is
 * not connectable or AIRLOCK_TEST_IMAGE is unset.
 *
 * The fake_* tests need no engine: they point the launcher at a small
 * in-process HTTP server that plays a misbehaving Docker engine.
 *
 * AIRLOCK_TEST_SWEEP=1 also runs the sweep test, which removes EVERY
 * container labelled airlock.job on the engine, other people's included:
 * set it only on an engine nobody else is using.
 */
#include "launch/launcher.h"

#include <curl/curl.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <jansson.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define DOCKER_SOCK "/var/run/docker.sock"
#define MISSING_IMAGE "sha256:0000000000000000000000000000000000000000000000000000000000000000"
#define TEST_MEMORY (64ull << 20)
#define TEST_NANO_CPUS 500000000ull
#define TEST_PIDS 32

static struct event_base *base;
static struct launcher *launcher;
static bool in_api; /* set around launcher calls: callbacks must not run then */
static unsigned seq;

struct tjob {
	char dir[64];
	char job_id[48];
	int listen_fd;
	struct launch *la;
	int started;
	bool ok;
	char code[32];
	char error[256];
	int exited;
	int exit_code;
	bool killed;
	double t_run, t_started, t_exited;
	bool kill_on_start;
	bool release_on_start;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool engine_ready(void)
{
	char err[256];

	return getenv("AIRLOCK_TEST_IMAGE") && *getenv("AIRLOCK_TEST_IMAGE") &&
	       launcher_ping_sync(DOCKER_SOCK, 2000, err, sizeof(err)) == 0;
}

#define NEED_ENGINE()                \
	do {                         \
		if (!engine_ready()) \
			skip();      \
	} while (0)

static void on_started(void *arg, bool ok, const char *code, const char *error)
{
	struct tjob *j = arg;

	assert_false(in_api);
	assert_int_equal(j->started, 0);
	j->started++;
	j->ok = ok;
	j->t_started = now_ms();
	snprintf(j->code, sizeof(j->code), "%s", code ? code : "");
	snprintf(j->error, sizeof(j->error), "%s", error ? error : "");
	if (ok && j->kill_on_start)
		launcher_kill(j->la);
	if (ok && j->release_on_start)
		launcher_release(j->la, true);
}

static void on_exited(void *arg, int exit_code, bool killed)
{
	struct tjob *j = arg;

	assert_false(in_api);
	assert_int_equal(j->started, 1);
	assert_true(j->ok);
	assert_int_equal(j->exited, 0);
	j->exited++;
	j->exit_code = exit_code;
	j->killed = killed;
	j->t_exited = now_ms();
}

static const struct launch_callbacks callbacks = {on_started, on_exited};

/* A job directory; with listen, a control socket nobody ever answers on. */
static void tjob_init(struct tjob *j, bool listen_sock)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	memset(j, 0, sizeof(*j));
	j->listen_fd = -1;
	snprintf(j->dir, sizeof(j->dir), "/tmp/airlock-lt-XXXXXX");
	assert_non_null(mkdtemp(j->dir));
	assert_int_equal(chmod(j->dir, 0755), 0);
	snprintf(j->job_id, sizeof(j->job_id), "lt%ld-%u", (long)getpid(), seq++);
	if (!listen_sock)
		return;
	j->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(j->listen_fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/control.sock", j->dir);
	assert_int_equal(bind(j->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(chmod(a.sun_path, 0777), 0);
	assert_int_equal(listen(j->listen_fd, 4), 0);
}

static void tjob_cleanup(struct tjob *j)
{
	char p[sizeof(j->dir) + 16];

	if (j->listen_fd >= 0) {
		close(j->listen_fd);
		if (snprintf(p, sizeof(p), "%s/control.sock", j->dir) < (int)sizeof(p))
			unlink(p);
	}
	rmdir(j->dir);
}

static struct launch_spec tjob_spec(const struct tjob *j, uint32_t kill_after_ms)
{
	struct launch_spec s = {
		.image = getenv("AIRLOCK_TEST_IMAGE"),
		.user = "65534:65534",
		.job_dir = j->dir,
		.job_id = j->job_id,
		.memory_bytes = TEST_MEMORY,
		.nano_cpus = TEST_NANO_CPUS,
		.pids_limit = TEST_PIDS,
		.kill_after_ms = kill_after_ms,
	};
	return s;
}

static struct launch *tjob_run(struct launcher *l, struct tjob *j, const struct launch_spec *s)
{
	j->t_run = now_ms();
	in_api = true;
	j->la = launcher_run(l, s, &callbacks, j);
	in_api = false;
	assert_non_null(j->la);
	assert_int_equal(j->started, 0);
	return j->la;
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	*(bool *)arg = true;
}

/* Runs the loop until pred(arg) or timeout_ms; returns pred's last answer. */
static bool run_until(bool (*pred)(void *arg), void *arg, unsigned timeout_ms)
{
	bool timed_out = false;
	struct event *t = evtimer_new(base, on_deadline, &timed_out);
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};

	evtimer_add(t, &tv);
	while (!pred(arg) && !timed_out)
		event_base_loop(base, EVLOOP_ONCE);
	event_free(t);
	return pred(arg);
}

static bool pred_started(void *arg)
{
	return ((struct tjob *)arg)->started > 0;
}
static bool pred_exited(void *arg)
{
	return ((struct tjob *)arg)->exited > 0;
}
static bool pred_none_live(void *arg)
{
	return launcher_live(arg) == 0;
}

/* Lets the loop run idle for ms (to catch late callbacks). */
static bool pred_never(void *arg)
{
	return false;
}

static void run_for(unsigned ms)
{
	run_until(pred_never, NULL, ms);
}

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct {
		char *data;
		size_t len;
	} *b = arg;
	char *q = realloc(b->data, b->len + size * n + 1);

	assert_non_null(q);
	memcpy(q + b->len, p, size * n);
	b->len += size * n;
	q[b->len] = '\0';
	b->data = q;
	return size * n;
}

/* GET path on the engine; returns the parsed JSON body or NULL on 404. */
static json_t *engine_get(const char *path)
{
	struct {
		char *data;
		size_t len;
	} b = {NULL, 0};
	char url[512];
	CURL *c = curl_easy_init();
	long status = 0;
	json_t *j = NULL;

	snprintf(url, sizeof(url), "http://localhost/v1.41%s", path);
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, DOCKER_SOCK);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (status == 200)
		j = json_loads(b.data, 0, NULL);
	else
		assert_int_equal(status, 404);
	free(b.data);
	return j;
}

/* Containers on the engine labelled airlock.job=<job_id>, running or not. */
static size_t engine_count(const char *job_id)
{
	char filt[128], path[512];
	char *esc;
	json_t *arr;
	size_t n;

	snprintf(filt, sizeof(filt), "{\"label\":[\"airlock.job=%s\"]}", job_id);
	esc = curl_easy_escape(NULL, filt, 0);
	snprintf(path, sizeof(path), "/containers/json?all=1&filters=%s", esc);
	curl_free(esc);
	arr = engine_get(path);
	assert_true(json_is_array(arr));
	n = json_array_size(arr);
	json_decref(arr);
	return n;
}

static int group_setup(void **state)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

static int setup(void **state)
{
	base = event_base_new();
	launcher = launcher_new_docker(base, DOCKER_SOCK);
	return base && launcher ? 0 : -1;
}

static int teardown(void **state)
{
	launcher_free(launcher);
	launcher = NULL;
	event_base_free(base);
	base = NULL;
	return 0;
}

/* ---- a fake engine on a unix socket, served from the same loop ---- */

struct fake {
	char path[108];
	struct evhttp *http;
	int delete_failures; /* answer this many DELETEs with 500 first */
	int start_status;    /* 204 unless set */
	int create_status;   /* 201 unless set */
	bool huge_create;    /* answer create with 2 MiB */
	int wait_code;       /* >= 0: answer wait at once; -1: hold until a DELETE */
	struct evhttp_request *pending_wait;
	int n_create, n_start, n_wait, n_delete;
	char last_delete[256];
};

static void fake_reply(struct evhttp_request *req, int code, const char *body)
{
	struct evbuffer *b = evbuffer_new();

	if (body)
		evbuffer_add(b, body, strlen(body));
	evhttp_send_reply(req, code, "x", b);
	evbuffer_free(b);
}

static void fake_handle(struct evhttp_request *req, void *arg)
{
	struct fake *f = arg;
	const char *uri = evhttp_request_get_uri(req);
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	char body[128];

	if (cmd == EVHTTP_REQ_POST && strstr(uri, "/containers/create")) {
		f->n_create++;
		if (f->create_status) {
			fake_reply(req, f->create_status, "{\"message\":\"create exploded\"}");
			return;
		}
		if (f->huge_create) {
			struct evbuffer *b = evbuffer_new();
			char chunk[4096];
			int i;

			memset(chunk, ' ', sizeof(chunk));
			for (i = 0; i < 512; i++)
				evbuffer_add(b, chunk, sizeof(chunk));
			evhttp_send_reply(req, 201, "Created", b);
			evbuffer_free(b);
			return;
		}
		fake_reply(req, 201, "{\"Id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
	} else if (cmd == EVHTTP_REQ_POST && strstr(uri, "/start")) {
		f->n_start++;
		fake_reply(req, f->start_status ? f->start_status : 204,
			   f->start_status ? "{\"message\":\"start exploded\"}" : NULL);
	} else if (cmd == EVHTTP_REQ_POST && strstr(uri, "/wait")) {
		f->n_wait++;
		if (f->wait_code < 0) {
			f->pending_wait = req;
			return;
		}
		snprintf(body, sizeof(body), "{\"Error\":null,\"StatusCode\":%d}", f->wait_code);
		fake_reply(req, 200, body);
	} else if (cmd == EVHTTP_REQ_DELETE) {
		f->n_delete++;
		snprintf(f->last_delete, sizeof(f->last_delete), "%s", uri);
		if (f->delete_failures > 0) {
			f->delete_failures--;
			fake_reply(req, 500, "{\"message\":\"engine busy\"}");
			return;
		}
		fake_reply(req, 204, NULL);
		if (f->pending_wait) {
			fake_reply(f->pending_wait, 200, "{\"Error\":null,\"StatusCode\":137}");
			f->pending_wait = NULL;
		}
	} else {
		fake_reply(req, 404, "{\"message\":\"page not found\"}");
	}
}

/* Listens on f->path (again): counters and settings are kept. */
static void fake_listen(struct fake *f)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct evconnlistener *lis;

	unlink(f->path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", f->path);
	lis = evconnlistener_new_bind(base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE, 16, (struct sockaddr *)&a, sizeof(a));
	assert_non_null(lis);
	f->http = evhttp_new(base);
	assert_non_null(f->http);
	assert_non_null(evhttp_bind_listener(f->http, lis));
	evhttp_set_allowed_methods(f->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE);
	evhttp_set_gencb(f->http, fake_handle, f);
}

static void fake_start(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "/tmp/airlock-fake-%ld-%u.sock", (long)getpid(), seq++);
	fake_listen(f);
}

/* Closes the listener and every connection, as a dockerd that exits. */
static void fake_stop(struct fake *f)
{
	evhttp_free(f->http);
	f->http = NULL;
	f->pending_wait = NULL;
	unlink(f->path);
}

static struct launch_spec fake_spec(struct tjob *j, uint32_t kill_after_ms)
{
	struct launch_spec s;

	tjob_init(j, false);
	s = tjob_spec(j, kill_after_ms);
	s.image = MISSING_IMAGE;
	return s;
}

/* A kill that fails twice is retried with backoff; then all settles. */
static void test_fake_kill_retry(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;

	fake_start(&f);
	f.wait_code = -1;
	f.delete_failures = 2;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 100);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_exited, &j, 10000));
	assert_true(j.ok);
	assert_true(j.killed);
	assert_int_equal(j.exit_code, 137);
	/* 100 ms deadline, then retries after 250 and 500 ms. */
	assert_true(j.t_exited - j.t_started >= 800);
	assert_true(run_until(pred_none_live, l, 10000));
	assert_int_equal(f.n_delete, 3);
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j);
}

/* The exit is reported at once; a failing removal is retried until it works. */
static void test_fake_remove_retry(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;

	fake_start(&f);
	f.wait_code = 3;
	f.delete_failures = 3;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_exited, &j, 10000));
	assert_int_equal(j.exit_code, 3);
	assert_false(j.killed);
	assert_int_equal(launcher_live(l), 1);
	assert_true(run_until(pred_none_live, l, 10000));
	assert_int_equal(f.n_delete, 4);
	assert_non_null(strstr(f.last_delete, "force=1"));
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j);
}

/* A failed start is reported and the created container is still removed. */
static void test_fake_start_fails(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;

	fake_start(&f);
	f.start_status = 500;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 10000));
	assert_false(j.ok);
	assert_string_equal(j.code, "LAUNCH_FAILED");
	assert_non_null(strstr(j.error, "start exploded"));
	assert_true(run_until(pred_none_live, l, 10000));
	assert_int_equal(f.n_delete, 1);
	assert_int_equal(f.n_wait, 0);
	run_for(50);
	assert_int_equal(j.exited, 0);
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j);
}

/* A create the engine fails part way is reported, and the container it may have made is removed by name. */
static void test_fake_create_fails(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;
	char name[128];

	fake_start(&f);
	f.create_status = 500;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 10000));
	assert_false(j.ok);
	assert_string_equal(j.code, "LAUNCH_FAILED");
	assert_non_null(strstr(j.error, "create exploded"));
	assert_true(run_until(pred_none_live, l, 10000));
	assert_int_equal(f.n_delete, 1);
	snprintf(name, sizeof(name), "/containers/airlock-%s?", s.job_id);
	assert_non_null(strstr(f.last_delete, name));
	assert_int_equal(f.n_start, 0);
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j);
}

/* A reply over the cap fails the launch; the container is removed by name. */
static void test_fake_huge_reply(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;
	char want[96];

	fake_start(&f);
	f.huge_create = true;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 10000));
	assert_false(j.ok);
	assert_string_equal(j.code, "LAUNCH_FAILED");
	assert_non_null(strstr(j.error, "larger than"));
	assert_true(run_until(pred_none_live, l, 10000));
	snprintf(want, sizeof(want), "/containers/airlock-%s?", j.job_id);
	assert_non_null(strstr(f.last_delete, want));
	assert_int_equal(f.n_start, 0);
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j);
}

/* launcher_free with the engine gone: it gives up promptly and fires no callback. */
static void test_fake_free_engine_gone(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;
	double t0;

	fake_start(&f);
	f.wait_code = -1;
	l = launcher_new_docker(base, f.path);
	s = fake_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 10000));
	assert_true(j.ok);
	assert_int_equal(launcher_live(l), 1);
	fake_stop(&f);
	t0 = now_ms();
	launcher_free(l);
	assert_true(now_ms() - t0 < 2000);
	assert_int_equal(j.exited, 0);
	tjob_cleanup(&j);
}

/*
 * The engine goes away mid-run and comes back: the removal that failed
 * meanwhile is tried again as soon as a request gets through, not after
 * its backoff (which by then is 8 s).
 */
static void test_fake_engine_back_hurries_removal(void **state)
{
	struct fake f;
	struct launcher *l;
	struct launch_spec s1, s2;
	struct tjob j1, j2;
	double t0;

	fake_start(&f);
	f.wait_code = -1;
	l = launcher_new_docker(base, f.path);
	s1 = fake_spec(&j1, 0);
	tjob_run(l, &j1, &s1);
	assert_true(run_until(pred_started, &j1, 10000));
	fake_stop(&f);
	assert_true(run_until(pred_exited, &j1, 10000));
	/* Removal tries at 0, 0.25, 0.75, 1.75, 3.75 and 7.75 s; the next is due at 15.75 s. */
	run_for(8000);
	assert_int_equal(launcher_live(l), 1);
	assert_int_equal(f.n_delete, 0);

	fake_listen(&f);
	f.wait_code = 0;
	s2 = fake_spec(&j2, 0);
	t0 = now_ms();
	tjob_run(l, &j2, &s2);
	assert_true(run_until(pred_exited, &j2, 10000));
	assert_true(run_until(pred_none_live, l, 10000));
	assert_true(now_ms() - t0 < 5000);
	assert_int_equal(f.n_delete, 2);
	launcher_free(l);
	fake_stop(&f);
	tjob_cleanup(&j1);
	tjob_cleanup(&j2);
}

/* ---- tests that need no engine ---- */

static void test_bad_socket(void **state)
{
	struct launcher *l = launcher_new_docker(base, "/nonexistent/docker.sock");
	struct launch_spec s;
	struct tjob j;
	char err[256] = "";

	assert_non_null(l);
	tjob_init(&j, false);
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 5000));
	assert_false(j.ok);
	assert_string_equal(j.code, "DOCKER_UNAVAILABLE");
	assert_int_equal(launcher_live(l), 0);
	run_for(50);
	assert_int_equal(j.exited, 0);
	launcher_free(l);
	tjob_cleanup(&j);

	assert_int_equal(launcher_ping_sync("/nonexistent/docker.sock", 1000, err, sizeof(err)), -1);
	assert_true(err[0] != '\0');
	assert_int_equal(launcher_sweep_sync("/nonexistent/docker.sock", NULL, 1000), -1);
}

static void expect_refused(const struct launch_spec *s, struct tjob *j)
{
	tjob_run(launcher, j, s);
	assert_true(run_until(pred_started, j, 5000));
	assert_false(j->ok);
	assert_string_equal(j->code, "LAUNCH_FAILED");
	assert_int_equal(launcher_live(launcher), 0);
}

static void test_bad_spec(void **state)
{
	struct launch_spec s;
	struct tjob j;

	tjob_init(&j, false);
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	s.user = "0:0";
	expect_refused(&s, &j);
	assert_non_null(strstr(j.error, "root"));

	j.started = 0;
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	s.user = "nobody";
	expect_refused(&s, &j);

	j.started = 0;
	s = tjob_spec(&j, 0);
	s.image = "busybox:latest";
	expect_refused(&s, &j);
	assert_non_null(strstr(j.error, "pinned"));

	j.started = 0;
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	s.job_id = "../x";
	expect_refused(&s, &j);

	j.started = 0;
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	s.memory_bytes = 0;
	expect_refused(&s, &j);
	tjob_cleanup(&j);
}

/* ---- tests against the engine ---- */

/* No control socket: the runner exits nonzero; the container is removed. */
static void test_exit_removes(void **state)
{
	struct launch_spec s;
	struct tjob j;
	double t_removed;

	NEED_ENGINE();
	tjob_init(&j, false);
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);
	assert_true(run_until(pred_exited, &j, 30000));
	assert_int_not_equal(j.exit_code, 0);
	assert_false(j.killed);
	assert_true(run_until(pred_none_live, launcher, 30000));
	t_removed = now_ms();
	assert_int_equal(engine_count(j.job_id), 0);
	print_message("create+start %.0f ms, start->exit %.0f ms, exit->removed %.0f ms\n", j.t_started - j.t_run,
		      j.t_exited - j.t_started, t_removed - j.t_exited);
	tjob_cleanup(&j);
}

static void test_kill_deadline(void **state)
{
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	tjob_init(&j, true);
	s = tjob_spec(&j, 500);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);
	assert_true(run_until(pred_exited, &j, 30000));
	assert_true(j.killed);
	assert_true(j.t_exited - j.t_started >= 490);
	assert_true(j.t_exited - j.t_started < 10000);
	assert_true(run_until(pred_none_live, launcher, 30000));
	assert_int_equal(engine_count(j.job_id), 0);
	print_message("deadline 500 ms: exited %.0f ms after start\n", j.t_exited - j.t_started);
	tjob_cleanup(&j);
}

/* launcher_kill from inside on_started. */
static void test_kill_now(void **state)
{
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	tjob_init(&j, true);
	j.kill_on_start = true;
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_exited, &j, 30000));
	assert_true(j.ok);
	assert_true(j.killed);
	assert_true(run_until(pred_none_live, launcher, 30000));
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);
}

static void test_missing_image(void **state)
{
	struct launch_spec s;
	struct tjob j;
	char err[256] = "";

	NEED_ENGINE();
	tjob_init(&j, false);
	s = tjob_spec(&j, 0);
	s.image = MISSING_IMAGE;
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_false(j.ok);
	assert_string_equal(j.code, "IMAGE_UNAVAILABLE");
	run_for(100);
	assert_int_equal(j.exited, 0);
	assert_int_equal(launcher_live(launcher), 0);
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);

	assert_int_equal(launcher_image_present_sync(DOCKER_SOCK, MISSING_IMAGE, 5000, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not found"));
	assert_int_equal(launcher_image_present_sync(DOCKER_SOCK, getenv("AIRLOCK_TEST_IMAGE"), 5000, err, sizeof(err)),
			 0);
}

/* Release (with kill) from inside on_started: no more callbacks, container gone. */
static void test_release_after_start(void **state)
{
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	tjob_init(&j, true);
	j.release_on_start = true;
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);
	assert_true(run_until(pred_none_live, launcher, 30000));
	run_for(100);
	assert_int_equal(j.exited, 0);
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);
}

/* Release (no kill) before the create has even been answered. */
static void test_release_immediately(void **state)
{
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	tjob_init(&j, true);
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	in_api = true;
	launcher_release(j.la, false);
	in_api = false;
	run_for(300);
	assert_true(run_until(pred_none_live, launcher, 30000));
	run_for(100);
	assert_int_equal(j.started, 0);
	assert_int_equal(j.exited, 0);
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);
}

static bool strarr_has(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return true;
	return false;
}

static void test_settings(void **state)
{
	struct launch_spec s;
	struct tjob j;
	char path[128];
	json_t *c, *hc, *cfg, *env, *v, *mounts;
	size_t i;

	NEED_ENGINE();
	tjob_init(&j, true);
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);

	snprintf(path, sizeof(path), "/containers/airlock-%s/json", j.job_id);
	c = engine_get(path);
	assert_non_null(c);
	hc = json_object_get(c, "HostConfig");
	cfg = json_object_get(c, "Config");
	assert_true(json_is_true(json_object_get(json_object_get(c, "State"), "Running")));
	assert_string_equal(json_string_value(json_object_get(hc, "NetworkMode")), "none");
	assert_true(json_is_true(json_object_get(hc, "ReadonlyRootfs")));
	assert_false(json_is_true(json_object_get(hc, "Privileged")));
	assert_true(strarr_has(json_object_get(hc, "CapDrop"), "ALL"));
	assert_true(strarr_has(json_object_get(hc, "SecurityOpt"), "no-new-privileges"));
	assert_int_equal(json_integer_value(json_object_get(hc, "Memory")), TEST_MEMORY);
	assert_int_equal(json_integer_value(json_object_get(hc, "MemorySwap")), TEST_MEMORY);
	assert_int_equal(json_integer_value(json_object_get(hc, "NanoCpus")), TEST_NANO_CPUS);
	assert_int_equal(json_integer_value(json_object_get(hc, "PidsLimit")), TEST_PIDS);
	assert_false(json_is_true(json_object_get(hc, "AutoRemove")));
	assert_int_equal(json_array_size(json_object_get(hc, "Binds")), 0);
	assert_string_equal(json_string_value(json_object_get(cfg, "User")), "65534:65534");
	assert_true(json_is_true(json_object_get(cfg, "NetworkDisabled")));
	assert_int_equal(json_array_size(json_object_get(cfg, "Cmd")), 1);
	assert_true(strarr_has(json_object_get(cfg, "Cmd"), "/job/control.sock"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(cfg, "Labels"), "airlock.job")),
			    j.job_id);
	/* The only mount: the job directory, read-only at /job. */
	mounts = json_object_get(c, "Mounts");
	assert_int_equal(json_array_size(mounts), 1);
	v = json_array_get(mounts, 0);
	assert_string_equal(json_string_value(json_object_get(v, "Destination")), "/job");
	assert_string_equal(json_string_value(json_object_get(v, "Source")), j.dir);
	assert_true(json_is_false(json_object_get(v, "RW")));
	/* Only the image's own environment; nothing secret. */
	env = json_object_get(cfg, "Env");
	json_array_foreach(env, i, v)
	{
		assert_null(strstr(json_string_value(v), "PASSWORD"));
		assert_null(strstr(json_string_value(v), "PGPASS"));
		assert_null(strstr(json_string_value(v), "SECRET"));
	}
	json_decref(c);

	in_api = true;
	launcher_kill(j.la);
	in_api = false;
	assert_true(run_until(pred_exited, &j, 30000));
	assert_true(j.killed);
	assert_true(run_until(pred_none_live, launcher, 30000));
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);
}

#define NCONC 8

static bool pred_all_exited(void *arg)
{
	struct tjob *js = arg;
	int i;

	for (i = 0; i < NCONC; i++)
		if (!js[i].exited)
			return false;
	return true;
}

static void test_concurrent(void **state)
{
	struct tjob js[NCONC];
	struct launch_spec s;
	double t0, t_exit, t_gone;
	int i;

	NEED_ENGINE();
	t0 = now_ms();
	for (i = 0; i < NCONC; i++) {
		tjob_init(&js[i], false);
		s = tjob_spec(&js[i], 10000);
		tjob_run(launcher, &js[i], &s);
	}
	assert_int_equal(launcher_live(launcher), 0);
	assert_true(run_until(pred_all_exited, js, 60000));
	t_exit = now_ms();
	assert_true(run_until(pred_none_live, launcher, 60000));
	t_gone = now_ms();
	for (i = 0; i < NCONC; i++) {
		assert_true(js[i].ok);
		assert_false(js[i].killed);
		assert_int_not_equal(js[i].exit_code, 0);
		assert_int_equal(engine_count(js[i].job_id), 0);
		tjob_cleanup(&js[i]);
	}
	print_message("%d concurrent: all exited after %.0f ms, all removed after %.0f ms\n", NCONC, t_exit - t0,
		      t_gone - t0);
}

/* launcher_free removes containers that are still running. */
static void test_free_removes(void **state)
{
	struct launcher *l;
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	l = launcher_new_docker(base, DOCKER_SOCK);
	assert_non_null(l);
	tjob_init(&j, true);
	s = tjob_spec(&j, 0);
	tjob_run(l, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);
	assert_int_equal(launcher_live(l), 1);
	assert_int_equal(engine_count(j.job_id), 1);
	launcher_free(l);
	assert_int_equal(engine_count(j.job_id), 0);
	tjob_cleanup(&j);
}

static void test_sweep(void **state)
{
	struct launch_spec s;
	struct tjob j;

	NEED_ENGINE();
	if (!getenv("AIRLOCK_TEST_SWEEP"))
		skip();
	tjob_init(&j, true);
	s = tjob_spec(&j, 0);
	tjob_run(launcher, &j, &s);
	assert_true(run_until(pred_started, &j, 30000));
	assert_true(j.ok);
	assert_true(launcher_sweep_sync(DOCKER_SOCK, NULL, 10000) >= 1);
	assert_int_equal(engine_count(j.job_id), 0);
	/* The launcher sees the container vanish and still reports the exit. */
	assert_true(run_until(pred_exited, &j, 30000));
	assert_true(run_until(pred_none_live, launcher, 30000));
	tjob_cleanup(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_socket, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_spec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_kill_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_remove_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_start_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_create_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_huge_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_free_engine_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_engine_back_hurries_removal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_now, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_after_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_immediately, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	};

	/* The fake engine writes to connections the launcher may have dropped. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
