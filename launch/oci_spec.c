/*
 * oci_spec: config.json of one runner container (see oci_spec.h).
 */
#include "launch/oci_spec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The files of /proc a runner has no business reading, as container runtimes mask them. */
static const char *const masked_paths[] = {
	"/proc/acpi",       "/proc/asound",        "/proc/interrupts",  "/proc/kcore",
	"/proc/keys",       "/proc/latency_stats", "/proc/sched_debug", "/proc/scsi",
	"/proc/timer_list", "/proc/timer_stats",   "/sys/firmware",
};

static const char *const readonly_paths[] = {
	"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

static json_t *string_array(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static bool parse_user(const char *user, unsigned long *uid, unsigned long *gid)
{
	char *end;

	*uid = strtoul(user, &end, 10);
	if (end == user || *end != ':')
		return false;
	*gid = strtoul(end + 1, &end, 10);
	return *end == '\0' && *uid != 0;
}

/*
 * Container root (used by the runtime's own set-up before the runner runs)
 * is the host's nobody; the runner's uid is itself on both sides.
 */
static json_t *id_mappings(unsigned long id)
{
	return json_pack("[{s:i, s:i, s:i}, {s:I, s:I, s:i}]", "containerID", 0, "hostID", 65534, "size", 1,
			 "containerID", (json_int_t)id, "hostID", (json_int_t)id, "size", 1);
}

static json_t *rlimit(const char *type, uint64_t v)
{
	return json_pack("{s:s, s:I, s:I}", "type", type, "hard", (json_int_t)v, "soft", (json_int_t)v);
}

static json_t *process(const struct launch_spec *sp, unsigned long uid, unsigned long gid, uint64_t fsize)
{
	return json_pack("{s:b, s:{s:I, s:I, s:[]}, s:[s, s], s:[s, s], s:s, s:{s:[], s:[], s:[], s:[], s:[]}, "
			 "s:[o, o, o, o], s:b, s:i}",
			 "terminal", 0, "user", "uid", (json_int_t)uid, "gid", (json_int_t)gid, "additionalGids",
			 "args", "/airlock-runner", "/job/control.sock", "env", "PATH=/", LAUNCH_RUNNER_ENV, "cwd", "/",
			 "capabilities", "bounding", "effective", "inheritable", "permitted", "ambient", "rlimits",
			 rlimit("RLIMIT_CORE", 0), rlimit("RLIMIT_NOFILE", OCI_NOFILE),
			 rlimit("RLIMIT_NPROC", (uint64_t)sp->pids_limit), rlimit("RLIMIT_FSIZE", fsize),
			 "noNewPrivileges", 1, "oomScoreAdj", 1000);
}

static json_t *mounts(const struct launch_spec *sp)
{
	return json_pack("[{s:s, s:s, s:s, s:[s, s, s]}, {s:s, s:s, s:s, s:[s, s, s, s, s]},"
			 " {s:s, s:s, s:s, s:[s, s, s, s, s]}]",
			 "destination", "/proc", "type", "proc", "source", "proc", "options", "nosuid", "noexec",
			 "nodev", "destination", "/dev", "type", "tmpfs", "source", "tmpfs", "options", "nosuid",
			 "noexec", "strictatime", "mode=755", "size=64k", "destination", "/job", "type", "bind",
			 "source", sp->job_dir, "options", "rbind", "ro", "nosuid", "nodev", "noexec");
}

static json_t *resources(const struct launch_spec *sp)
{
	uint64_t quota = sp->nano_cpus * OCI_CPU_PERIOD_US / 1000000000u;

	if (quota < 1000)
		quota = 1000; /* the kernel's least */
	return json_pack("{s:[{s:b, s:s}], s:{s:I, s:I}, s:{s:I, s:I}, s:{s:I}}", "devices", "allow", 0, "access",
			 "rwm", "memory", "limit", (json_int_t)sp->memory_bytes, "swap", (json_int_t)sp->memory_bytes,
			 "cpu", "quota", (json_int_t)quota, "period", (json_int_t)OCI_CPU_PERIOD_US, "pids", "limit",
			 (json_int_t)sp->pids_limit);
}

static json_t *linux_section(const struct launch_spec *sp, unsigned long uid, unsigned long gid, bool userns)
{
	char cgroup[128];
	json_t *lx, *ns;

	snprintf(cgroup, sizeof(cgroup), "/airlock/" OCI_ID_PREFIX "%s", sp->job_id);
	ns = json_pack("[{s:s}, {s:s}, {s:s}, {s:s}, {s:s}, {s:s}]", "type", "pid", "type", "network", "type", "ipc",
		       "type", "uts", "type", "mount", "type", "cgroup");
	lx = json_pack("{s:o, s:o, s:s, s:o, s:o, s:o}", "namespaces", ns, "resources", resources(sp), "cgroupsPath",
		       cgroup, "maskedPaths",
		       string_array(masked_paths, sizeof(masked_paths) / sizeof(masked_paths[0])), "readonlyPaths",
		       string_array(readonly_paths, sizeof(readonly_paths) / sizeof(readonly_paths[0])), "seccomp",
		       oci_seccomp());
	if (lx && userns) {
		json_array_append_new(ns, json_pack("{s:s}", "type", "user"));
		json_object_set_new(lx, "uidMappings", id_mappings(uid));
		json_object_set_new(lx, "gidMappings", id_mappings(gid));
	}
	return lx;
}

json_t *oci_spec_config(const struct launch_spec *sp, const char *rootfs, bool userns, uint64_t fsize)
{
	unsigned long uid, gid;

	if (!sp->user || !parse_user(sp->user, &uid, &gid) || !rootfs)
		return NULL;
	/* json_pack with o steals each part, also when it fails. */
	return json_pack("{s:s, s:o, s:{s:s, s:b}, s:s, s:o, s:o}", "ociVersion", "1.0.2", "process",
			 process(sp, uid, gid, fsize), "root", "path", rootfs, "readonly", 1, "hostname", "runner",
			 "mounts", mounts(sp), "linux", linux_section(sp, uid, gid, userns));
}
