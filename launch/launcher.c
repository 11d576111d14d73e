/*
 * launcher: the public functions of launcher.h, dispatched to the launcher
 * a caller made (launcher_new_docker or launcher_new_oci), and the checks
 * of a launch spec both launchers make before asking their runtime.
 */
#include "launch/launcher_int.h"
#include "launch/image_ref.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

/* A decimal uid or gid at *p; advances *p past it. */
static bool parse_id_part(const char **p, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s)) {
		*v = *v * 10 + (unsigned long)(*s++ - '0');
		if (*v > 0xffffffffUL)
			return false;
	}
	*p = s;
	return true;
}

/* "uid:gid", numeric, uid not 0 (each job passes its own uid of runner_uids). */
static bool user_ok(const char *s)
{
	unsigned long uid, gid;

	return parse_id_part(&s, &uid) && uid != 0 && *s++ == ':' && parse_id_part(&s, &gid) && *s == '\0';
}

static bool job_id_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*failed = true;
	return d;
}

int launch_spec_copy(struct launch_spec *dst, const struct launch_spec *src)
{
	bool failed = false;

	*dst = *src;
	dst->image = dup_or_null(src->image, &failed);
	dst->user = dup_or_null(src->user, &failed);
	dst->job_dir = dup_or_null(src->job_dir, &failed);
	dst->job_id = dup_or_null(src->job_id ? src->job_id : "", &failed);
	return failed ? -1 : 0;
}

void launch_spec_free(struct launch_spec *sp)
{
	free((char *)sp->image);
	free((char *)sp->user);
	free((char *)sp->job_dir);
	free((char *)sp->job_id);
	memset(sp, 0, sizeof(*sp));
}

void launch_log(const char *job_id, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "launcher: job %s: ", job_id ? job_id : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *launch_spec_problem(const struct launch_spec *sp, bool need_image)
{
	if (need_image && (!sp->image || !image_ref_pinned(sp->image)))
		return "image reference is not pinned by digest";
	if (!sp->user || !user_ok(sp->user))
		return "user must be a numeric uid:gid with uid not 0 (root)";
	if (!sp->job_dir || sp->job_dir[0] != '/' || strchr(sp->job_dir, ','))
		return "job directory must be an absolute path";
	if (!sp->job_id || !job_id_ok(sp->job_id))
		return "job id must be 1-64 characters of [A-Za-z0-9_.-]";
	if (!sp->memory_bytes || sp->memory_bytes > INT64_MAX || !sp->nano_cpus || sp->nano_cpus > INT64_MAX ||
	    sp->pids_limit <= 0)
		return "memory, cpu and pids limits are required";
	return NULL;
}

/* ---- callbacks, always through the notify event ---- */

static void on_notify(evutil_socket_t fd, short what, void *arg)
{
	struct launch *la = arg;

	(void)fd;
	(void)what;
	if (!la->released && la->started_pending) {
		la->started_pending = false;
		if (la->cb.on_started)
			la->cb.on_started(la->arg, la->started_ok, la->code, la->error);
		if (!la->started_ok)
			la->final_done = true;
	}
	if (!la->released && la->exited_pending) {
		la->exited_pending = false;
		if (la->cb.on_exited)
			la->cb.on_exited(la->arg, la->exit_code, la->killed);
		la->final_done = true;
	}
	la->settled(la);
}

int launch_init(struct launch *la, struct launcher *owner, struct event_base *evb, const struct launch_callbacks *cb,
		void *arg, void (*settled)(struct launch *la))
{
	la->owner = owner;
	la->cb = *cb;
	la->arg = arg;
	la->settled = settled;
	la->notify = event_new(evb, -1, 0, on_notify, la);
	return la->notify ? 0 : -1;
}

void launch_event_free(struct event **ev)
{
	if (*ev)
		event_free(*ev);
	*ev = NULL;
}

void launch_fini(struct launch *la)
{
	launch_event_free(&la->notify);
}

void launch_notify_started(struct launch *la, bool ok, const char *code, const char *error)
{
	if (la->released)
		return;
	la->started_pending = true;
	la->started_ok = ok;
	la->code = code;
	snprintf(la->error, sizeof(la->error), "%s", error ? error : "");
	event_active(la->notify, 0, 0);
}

void launch_notify_exited(struct launch *la, int exit_code, bool killed)
{
	if (la->released)
		return;
	la->exited_pending = true;
	la->exit_code = exit_code;
	la->killed = killed;
	event_active(la->notify, 0, 0);
}

void launch_release_handle(struct launch *la)
{
	la->released = true;
	la->started_pending = false;
	la->exited_pending = false;
	event_active(la->notify, 0, 0);
}

bool launch_caller_done(const struct launch *la)
{
	return la->released || (la->final_done && !la->started_pending && !la->exited_pending);
}

/* ---- dispatch ---- */

struct launch *launcher_run(struct launcher *l, const struct launch_spec *spec, const struct launch_callbacks *cb,
			    void *arg)
{
	return l->ops->run(l, spec, cb, arg);
}

void launcher_kill(struct launch *la)
{
	if (!la->released)
		la->owner->ops->kill(la);
}

void launcher_release(struct launch *la, bool kill_now)
{
	/* Freed on the next loop pass if nothing is left to do. */
	launch_release_handle(la);
	if (kill_now)
		la->owner->ops->kill(la);
}

unsigned launcher_live(const struct launcher *l)
{
	return l->ops->live(l);
}

void launcher_free(struct launcher *l)
{
	if (l)
		l->ops->free(l);
}
