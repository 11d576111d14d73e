/*
 * launcher_docker: the launch state machine of launcher.h on the Docker
 * Engine API (v1.41). Each request is a libcurl easy handle on one multi
 * handle run by the caller's event_base (launcher_http.c); nothing here
 * blocks the loop except launcher_free.
 *
 * Ownership: the launcher owns every struct dlaunch and frees it once its
 * container is removed (or was never created) and the caller's handle is
 * dead (released, or the final callback has returned). A launch owns its
 * in-flight requests (struct dreq). Callbacks are only ever called from the
 * launch's notify event, so no callback runs inside an API call.
 */
#include "base/dlist.h"
#include "launch/launcher_int.h"
#include "launch/launcher_http.h"

#include <curl/curl.h>
#include <event2/event.h>
#include <jansson.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQ_TIMEOUT_MS 30000L         /* create, start, delete */
#define SYNC_REMOVE_TIMEOUT_MS 10000u /* per container in launcher_free */
#define SYNC_REMOVE_RETRY_MS 100u     /* between its tries while the engine is removing it already */
#define SYNC_CREATE_SETTLE_MS 2000u   /* how long a create abandoned at shutdown may take to appear */
#define RETRY_FIRST_MS 250u
#define RETRY_MAX_MS 30000u
#define MAX_ERROR 256

enum dreq_kind { DREQ_CREATE, DREQ_START, DREQ_WAIT, DREQ_KILL, DREQ_REMOVE };

enum launch_state {
	LS_CREATING, /* create request in flight */
	LS_STARTING, /* start request in flight */
	LS_RUNNING,  /* wait request in flight; kill deadline armed */
	LS_REMOVING, /* final DELETE in flight or being retried */
	LS_DONE,     /* container removed or never created */
};

/* One HTTP request of a launch. */
struct dreq {
	struct dlaunch *la;
	enum dreq_kind kind;
	CURL *easy;
	struct curl_slist *hdrs;
	char *body; /* request body, owned */
	struct docker_reply reply;
	bool added; /* on the multi handle */
	char errbuf[CURL_ERROR_SIZE];
};

/* What came back for one request. */
struct dres {
	CURLcode cc;
	long status;
	const char *body;
	size_t len;
	const char *curl_err;
	bool overflow;
};

struct dlaunch {
	struct launch base; /* first: launcher.c reaches ops through it */
	struct dlauncher *l;
	struct dlaunch *next;
	struct dlaunch *prev;
	enum launch_state state;
	struct launch_spec spec; /* strings owned */
	char id[80];             /* container id, or name if create's outcome is unknown */
	bool created;            /* a container may exist */
	bool removed;
	bool kill_wanted;
	bool kill_sent;
	unsigned retries;
	struct dreq *req;  /* create, start, wait or remove */
	struct dreq *kreq; /* kill */
	struct event *kill_timer;
	struct event *retry_timer;
};

struct dlauncher {
	struct launcher base; /* first */
	struct event_base *evb;
	char *sock;
	struct docker_multi *multi;
	struct dlaunch *launches;
	unsigned live;
	bool engine_lost; /* the last request failed below HTTP */
};

static void launch_set_state(struct dlaunch *la, enum launch_state st);
static void launch_send_kill(struct dlaunch *la);
static void launch_remove_step(struct dlaunch *la);

#define log_launch(la, ...) launch_log((la)->spec.job_id, __VA_ARGS__)

/* ---- requests of a launch ---- */

static void dreq_free(struct dreq *r)
{
	if (!r)
		return;
	if (r->added)
		docker_multi_remove(r->la->l->multi, r->easy);
	if (r->easy)
		curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->hdrs);
	free(r->body);
	free(r->reply.data);
	free(r);
}

static void launch_on_reply(struct dlaunch *la, enum dreq_kind kind, const struct dres *res);

/*
 * Sends method path for la and stores the request in *slot. Takes body.
 * A request that cannot even be sent is answered at once as a failure.
 */
static void dreq_send(struct dlaunch *la, enum dreq_kind kind, const char *method, const char *path, char *body,
		      long timeout_ms, struct dreq **slot)
{
	struct dreq *r = calloc(1, sizeof(*r));
	struct dres fail = {.cc = CURLE_OUT_OF_MEMORY};

	if (!r)
		goto out_fail;
	r->la = la;
	r->kind = kind;
	r->body = body;
	body = NULL;
	r->easy = curl_easy_init();
	if (!r->easy)
		goto out_free;
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	if (r->body) {
		r->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
		if (!r->hdrs)
			goto out_free;
	}
	if (docker_easy_setup(r->easy, la->l->sock, method, path, r->body, r->hdrs, timeout_ms, &r->reply, r->errbuf) ||
	    docker_multi_add(la->l->multi, r->easy))
		goto out_free;
	r->added = true;
	*slot = r;
	return;

out_free:
	dreq_free(r);
out_fail:
	free(body);
	launch_on_reply(la, kind, &fail);
}

static void launch_maybe_free(struct dlaunch *la);

/* A transfer of the multi handle finished (docker_done_fn). */
/*
 * Tracks whether the engine answers. When it answers again after a
 * transport failure, every launch waiting out a backoff retries now: a
 * removal that failed while dockerd was away would otherwise wait up to
 * RETRY_MAX_MS, leaving its container behind that long.
 */
static void engine_seen(struct dlauncher *l, CURLcode cc)
{
	static const struct timeval now = {0, 0};
	struct dlaunch *la;

	if (cc != CURLE_OK) {
		l->engine_lost = true;
		return;
	}
	if (!l->engine_lost)
		return;
	l->engine_lost = false;
	for (la = l->launches; la; la = la->next) {
		if (evtimer_pending(la->retry_timer, NULL)) {
			la->retries = 0;
			evtimer_add(la->retry_timer, &now);
		}
	}
}

static void on_transfer_done(void *arg, CURL *easy, CURLcode cc)
{
	struct dreq *r = NULL;
	struct dlaunch *la;
	struct dres res = {.cc = cc};

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&r);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &res.status);
	r->added = false;
	la = r->la;
	engine_seen(la->l, cc);
	if (la->req == r)
		la->req = NULL;
	if (la->kreq == r)
		la->kreq = NULL;
	res.body = r->reply.data;
	res.len = r->reply.len;
	res.curl_err = r->errbuf;
	res.overflow = r->reply.overflow;
	launch_on_reply(la, r->kind, &res);
	dreq_free(r);
	launch_maybe_free(la);
}

/* ---- the launch state machine ---- */

static void launch_mark_removed(struct dlaunch *la)
{
	if (la->created && !la->removed) {
		la->removed = true;
		la->l->live--;
	}
}

static void launch_mark_created(struct dlaunch *la)
{
	if (!la->created) {
		la->created = true;
		la->l->live++;
	}
}

static void launch_send_create(struct dlaunch *la)
{
	const struct launch_spec *sp = &la->spec;
	char path[128];
	char root[4096];
	char *body = NULL, *slash;
	json_t *j;

	/* The job directory's parent names the airlockd instance that owns the container. */
	snprintf(root, sizeof(root), "%s", sp->job_dir);
	slash = strrchr(root, '/');
	if (slash && slash != root)
		*slash = '\0';
	snprintf(path, sizeof(path), "/containers/create?name=airlock-%s", sp->job_id);
	j = json_pack("{s:s, s:[s], s:[s], s:s, s:{s:s, s:s}, s:b, s:b, s:b, s:b, s:b, s:b,"
		      " s:{s:s, s:b, s:b, s:[s], s:[s], s:s, s:I, s:I, s:I, s:I,"
		      " s:[{s:s, s:s, s:s, s:b}], s:{s:s}, s:b, s:{s:s}}}",
		      "Image", sp->image, "Cmd", "/job/control.sock", "Env", LAUNCH_RUNNER_ENV, "User", sp->user,
		      "Labels", "airlock.job", sp->job_id, "airlock.root", root, "NetworkDisabled", 1, "AttachStdin", 0,
		      "AttachStdout", 0, "AttachStderr", 0, "Tty", 0, "OpenStdin", 0, "HostConfig", "NetworkMode",
		      "none", "ReadonlyRootfs", 1, "Privileged", 0, "CapDrop", "ALL", "SecurityOpt",
		      "no-new-privileges", "IpcMode", "private", "Memory", (json_int_t)sp->memory_bytes, "MemorySwap",
		      (json_int_t)sp->memory_bytes, "NanoCpus", (json_int_t)sp->nano_cpus, "PidsLimit",
		      (json_int_t)sp->pids_limit, "Mounts", "Type", "bind", "Source", sp->job_dir, "Target", "/job",
		      "ReadOnly", 1, "LogConfig", "Type", "none", "AutoRemove", 0, "RestartPolicy", "Name", "no");
	if (j)
		body = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!body) {
		struct dres fail = {.cc = CURLE_OUT_OF_MEMORY};

		launch_on_reply(la, DREQ_CREATE, &fail);
		return;
	}
	dreq_send(la, DREQ_CREATE, "POST", path, body, REQ_TIMEOUT_MS, &la->req);
}

static void launch_send_delete(struct dlaunch *la, enum dreq_kind kind, struct dreq **slot)
{
	char path[160];

	snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", la->id);
	dreq_send(la, kind, "DELETE", path, NULL, REQ_TIMEOUT_MS, slot);
}

static void launch_send_kill(struct dlaunch *la)
{
	la->kill_sent = true;
	event_del(la->kill_timer);
	launch_send_delete(la, DREQ_KILL, &la->kreq);
}

/* Asks for the kill now, or as soon as the container is running. */
static void launch_want_kill(struct dlaunch *la)
{
	la->kill_wanted = true;
	if (la->state == LS_RUNNING && !la->kill_sent && !la->removed && !la->kreq)
		launch_send_kill(la);
}

static void launch_retry_later(struct dlaunch *la)
{
	unsigned shift = la->retries < 7 ? la->retries : 7;
	uint32_t ms = RETRY_FIRST_MS << shift;
	struct timeval tv;

	if (ms > RETRY_MAX_MS)
		ms = RETRY_MAX_MS;
	la->retries++;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(la->retry_timer, &tv);
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	struct dlaunch *la = arg;

	if (la->state == LS_RUNNING && !la->removed && !la->kreq)
		launch_send_kill(la);
	else if (la->state == LS_REMOVING)
		launch_remove_step(la);
	launch_maybe_free(la);
}

static void on_kill_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct dlaunch *la = arg;

	log_launch(la, "kill deadline of %" PRIu32 " ms reached", la->spec.kill_after_ms);
	launch_want_kill(la);
	launch_maybe_free(la);
}

/* Issues the final DELETE unless the container is gone or a request is out. */
static void launch_remove_step(struct dlaunch *la)
{
	if (!la->created || la->removed) {
		launch_set_state(la, LS_DONE);
		return;
	}
	if (la->req || la->kreq || evtimer_pending(la->retry_timer, NULL))
		return;
	launch_send_delete(la, DREQ_REMOVE, &la->req);
}

/* The only place the state moves; runs the new state's entry action. */
static void launch_set_state(struct dlaunch *la, enum launch_state st)
{
	char path[160];
	struct timeval tv;

	la->state = st;
	switch (st) {
	case LS_CREATING:
		launch_send_create(la);
		break;
	case LS_STARTING:
		snprintf(path, sizeof(path), "/containers/%s/start", la->id);
		dreq_send(la, DREQ_START, "POST", path, NULL, REQ_TIMEOUT_MS, &la->req);
		break;
	case LS_RUNNING:
		launch_notify_started(&la->base, true, NULL, NULL);
		if (la->spec.kill_after_ms && !la->kill_wanted) {
			tv.tv_sec = la->spec.kill_after_ms / 1000;
			tv.tv_usec = (la->spec.kill_after_ms % 1000) * 1000;
			evtimer_add(la->kill_timer, &tv);
		}
		snprintf(path, sizeof(path), "/containers/%s/wait?condition=not-running", la->id);
		dreq_send(la, DREQ_WAIT, "POST", path, NULL, 0, &la->req);
		if (la->kill_wanted && la->state == LS_RUNNING)
			launch_want_kill(la);
		break;
	case LS_REMOVING:
		event_del(la->kill_timer);
		launch_remove_step(la);
		break;
	case LS_DONE:
		event_del(la->kill_timer);
		event_del(la->retry_timer);
		break;
	}
}

static bool http_ok(const struct dres *res)
{
	return res->cc == CURLE_OK && res->status >= 200 && res->status < 300;
}

/* Why a request failed: the transport's reason or Docker's message. */
static void reply_text(const struct dlaunch *la, const struct dres *res, char *out, size_t outlen)
{
	if (res->cc != CURLE_OK)
		docker_transport_message(res->cc, res->curl_err, res->overflow, la->l->sock, out, outlen);
	else
		docker_message(res->body, res->len, res->status, out, outlen);
}

/* The request may have reached the engine. */
static bool maybe_sent(CURLcode cc)
{
	return cc != CURLE_COULDNT_CONNECT && cc != CURLE_OUT_OF_MEMORY && cc != CURLE_FAILED_INIT &&
	       cc != CURLE_UNSUPPORTED_PROTOCOL;
}

static void on_create_reply(struct dlaunch *la, const struct dres *res)
{
	char msg[MAX_ERROR];
	json_t *j;
	const char *id;

	if (res->cc != CURLE_OK) {
		reply_text(la, res, msg, sizeof(msg));
		log_launch(la, "create failed: %s", msg);
		launch_notify_started(&la->base, false, res->overflow ? "LAUNCH_FAILED" : "DOCKER_UNAVAILABLE", msg);
		if (maybe_sent(res->cc)) {
			/* The container may exist: remove it by name. */
			snprintf(la->id, sizeof(la->id), "airlock-%s", la->spec.job_id);
			launch_mark_created(la);
			launch_set_state(la, LS_REMOVING);
		} else {
			launch_set_state(la, LS_DONE);
		}
		return;
	}
	if (!http_ok(res)) {
		reply_text(la, res, msg, sizeof(msg));
		if (res->status == 404 && strstr(msg, "No such image"))
			launch_notify_started(&la->base, false, "IMAGE_UNAVAILABLE", msg);
		else
			launch_notify_started(&la->base, false, "LAUNCH_FAILED", msg);
		if (res->status >= 500) {
			/* The engine failed part way (one that stops or starts, say): the container may exist. */
			snprintf(la->id, sizeof(la->id), "airlock-%s", la->spec.job_id);
			launch_mark_created(la);
			launch_set_state(la, LS_REMOVING);
		} else {
			launch_set_state(la, LS_DONE);
		}
		return;
	}
	j = json_loadb(res->body ? res->body : "", res->len, 0, NULL);
	id = json_string_value(json_object_get(j, "Id"));
	if (id && docker_is_hex64(id))
		snprintf(la->id, sizeof(la->id), "%s", id);
	else
		snprintf(la->id, sizeof(la->id), "airlock-%s", la->spec.job_id);
	launch_mark_created(la);
	if (!id || !docker_is_hex64(id)) {
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", "docker create reply has no container id");
		launch_set_state(la, LS_REMOVING);
	} else if (la->kill_wanted || la->base.released) {
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", "killed before start");
		launch_set_state(la, LS_REMOVING);
	} else {
		launch_set_state(la, LS_STARTING);
	}
	json_decref(j);
}

static void on_start_reply(struct dlaunch *la, const struct dres *res)
{
	char msg[MAX_ERROR];

	if (res->cc == CURLE_OK && (http_ok(res) || res->status == 304)) {
		launch_set_state(la, LS_RUNNING);
		return;
	}
	reply_text(la, res, msg, sizeof(msg));
	launch_notify_started(&la->base, false, res->cc != CURLE_OK ? "DOCKER_UNAVAILABLE" : "LAUNCH_FAILED", msg);
	log_launch(la, "start failed: %s", msg);
	launch_set_state(la, LS_REMOVING);
}

static void on_wait_reply(struct dlaunch *la, const struct dres *res)
{
	char msg[MAX_ERROR];
	json_t *j = NULL, *code = NULL;
	int exit_code = -1;

	if (http_ok(res)) {
		j = json_loadb(res->body ? res->body : "", res->len, 0, NULL);
		code = json_object_get(j, "StatusCode");
	}
	if (json_is_integer(code) && json_integer_value(code) >= 0 && json_integer_value(code) <= 255) {
		exit_code = (int)json_integer_value(code);
	} else if (!la->kill_sent) {
		reply_text(la, res, msg, sizeof(msg));
		log_launch(la, "wait failed: %s", msg);
	}
	json_decref(j);
	launch_notify_exited(&la->base, exit_code, la->kill_sent && (exit_code == 137 || exit_code < 0));
	launch_set_state(la, LS_REMOVING);
}

static void on_delete_reply(struct dlaunch *la, enum dreq_kind kind, const struct dres *res)
{
	char msg[MAX_ERROR];

	if (http_ok(res) || (res->cc == CURLE_OK && res->status == 404)) {
		launch_mark_removed(la);
		la->retries = 0;
		if (la->state == LS_REMOVING)
			launch_set_state(la, LS_DONE);
		return;
	}
	reply_text(la, res, msg, sizeof(msg));
	/* Log attempts 1, 2, 4, 8, ... */
	if ((la->retries & (la->retries + 1)) == 0)
		log_launch(la, "%s of container %s failed (attempt %u), retrying: %s",
			   kind == DREQ_KILL ? "kill" : "removal", la->id, la->retries + 1, msg);
	if (la->state == LS_RUNNING || la->state == LS_REMOVING)
		launch_retry_later(la);
}

static void launch_on_reply(struct dlaunch *la, enum dreq_kind kind, const struct dres *res)
{
	switch (kind) {
	case DREQ_CREATE:
		on_create_reply(la, res);
		break;
	case DREQ_START:
		on_start_reply(la, res);
		break;
	case DREQ_WAIT:
		on_wait_reply(la, res);
		break;
	case DREQ_KILL:
	case DREQ_REMOVE:
		on_delete_reply(la, kind, res);
		break;
	}
}

static void launch_destroy(struct dlaunch *la)
{
	struct dlauncher *l = la->l;

	DLIST_UNLINK(l->launches, la);
	dreq_free(la->req);
	dreq_free(la->kreq);
	launch_event_free(&la->kill_timer);
	launch_event_free(&la->retry_timer);
	launch_fini(&la->base);
	launch_spec_free(&la->spec);
	free(la);
}

static void launch_maybe_free(struct dlaunch *la)
{
	if (la->state == LS_DONE && !la->req && !la->kreq && !evtimer_pending(la->retry_timer, NULL) &&
	    launch_caller_done(&la->base))
		launch_destroy(la);
}

static void launch_settled(struct launch *base)
{
	launch_maybe_free((struct dlaunch *)base);
}

/* ---- public API ---- */

static const struct launcher_ops docker_ops;

struct launcher *launcher_new_docker(struct event_base *base, const char *docker_socket)
{
	struct dlauncher *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(l);
		return NULL;
	}
	l->evb = base;
	l->sock = strdup(docker_socket);
	l->multi = docker_multi_new(base, on_transfer_done, l);
	if (!l->sock || !l->multi) {
		docker_multi_free(l->multi);
		free(l->sock);
		free(l);
		curl_global_cleanup();
		return NULL;
	}
	l->base.ops = &docker_ops;
	return &l->base;
}

static void docker_free(struct launcher *base)
{
	struct dlauncher *l = (struct dlauncher *)base;
	char path[160];

	while (l->launches) {
		struct dlaunch *la = l->launches;
		struct docker_reply rb = {0};
		/* Its create is abandoned in flight: the engine may still make the container. */
		bool in_flight = la->state == LS_CREATING && !la->created;
		long status;
		CURLcode cc;

		dreq_free(la->req);
		dreq_free(la->kreq);
		la->req = la->kreq = NULL;
		if (in_flight) {
			snprintf(la->id, sizeof(la->id), "airlock-%s", la->spec.job_id);
			launch_mark_created(la);
		}
		if (la->created && !la->removed) {
			snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", la->id);
			/*
			 * 409: a removal this launcher asked for is still under way in
			 * the engine; ask again until it is done (404) or time is up.
			 * 404 for an abandoned create: the container may not exist yet;
			 * ask again, by its name, while a create could still land.
			 */
			for (unsigned waited = 0;; waited += SYNC_REMOVE_RETRY_MS) {
				free(rb.data);
				rb = (struct docker_reply){0};
				cc = docker_http_sync(l->sock, "DELETE", path, SYNC_REMOVE_TIMEOUT_MS, &status, &rb);
				if (cc != CURLE_OK || waited >= SYNC_REMOVE_TIMEOUT_MS ||
				    !(status == 409 || (status == 404 && in_flight && waited < SYNC_CREATE_SETTLE_MS)))
					break;
				usleep(SYNC_REMOVE_RETRY_MS * 1000u);
			}
			if (cc == CURLE_OK && ((status >= 200 && status < 300) || status == 404))
				launch_mark_removed(la);
			else
				log_launch(la, "could not remove container %s at shutdown", la->id);
			free(rb.data);
		}
		launch_destroy(la);
	}
	docker_multi_free(l->multi);
	free(l->sock);
	free(l);
	curl_global_cleanup();
}

static struct launch *docker_run(struct launcher *base, const struct launch_spec *spec,
				 const struct launch_callbacks *cb, void *arg)
{
	struct dlauncher *l = (struct dlauncher *)base;
	struct dlaunch *la = calloc(1, sizeof(*la));
	const char *problem;

	if (!la)
		return NULL;
	la->l = l;
	la->kill_timer = evtimer_new(l->evb, on_kill_deadline, la);
	la->retry_timer = evtimer_new(l->evb, on_retry, la);
	if (launch_spec_copy(&la->spec, spec) < 0 ||
	    launch_init(&la->base, base, l->evb, cb, arg, launch_settled) < 0 || !la->kill_timer || !la->retry_timer)
		goto out_free;
	DLIST_PUSH(l->launches, la);
	problem = launch_spec_problem(&la->spec, true);
	if (problem) {
		la->state = LS_DONE;
		launch_notify_started(&la->base, false, "LAUNCH_FAILED", problem);
		return &la->base;
	}
	launch_set_state(la, LS_CREATING);
	return &la->base;

out_free:
	launch_destroy(la);
	return NULL;
}

static void docker_kill(struct launch *base)
{
	launch_want_kill((struct dlaunch *)base);
}

static unsigned docker_live(const struct launcher *base)
{
	return ((const struct dlauncher *)base)->live;
}

static const struct launcher_ops docker_ops = {
	.run = docker_run,
	.kill = docker_kill,
	.live = docker_live,
	.free = docker_free,
};
