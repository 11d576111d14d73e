/*
 * launcher: the public functions of launcher.h, dispatched to the launcher
 * a caller made (launcher_new_docker or launcher_new_oci), and the checks
 * of a launch spec both launchers make before asking their runtime.
 */
#include "runner/launch/launcher_int.h"
#include "runner/launch/image_ref.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

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

struct launch *launcher_run(struct launcher *l, const struct launch_spec *spec, const struct launch_callbacks *cb,
			    void *arg)
{
	return l->ops->run(l, spec, cb, arg);
}

void launcher_kill(struct launch *la)
{
	la->owner->ops->kill(la);
}

void launcher_release(struct launch *la, bool kill_now)
{
	la->owner->ops->release(la, kill_now);
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
