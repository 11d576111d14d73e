/*
 * test_oci_spec: the config.json of a runner container. Every isolation
 * setting the launcher promises is in it (namespaces, read-only root and
 * /job, no capabilities, no-new-privileges, the job's uid, rlimits, the
 * cgroup limits, masked /proc paths, the seccomp allowlist), the user
 * namespace only when asked, and a spec that cannot be turned into one is
 * refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launch/oci_spec.h"

static const struct launch_spec spec = {
	.user = "1000000007:1000000007",
	.job_dir = "/run/airlock/jobs/0123456789abcdef0123456789abcdef",
	.job_id = "0123456789abcdef0123456789abcdef",
	.memory_bytes = 128u << 20,
	.nano_cpus = 500000000,
	.pids_limit = 64,
};

static json_t *get(json_t *j, const char *path)
{
	char key[64];

	while (j && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		j = json_object_get(j, key);
		path += n + (dot ? 1 : 0);
	}
	return j;
}

static bool has_string(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) return true;
	return false;
}

static bool has_namespace(json_t *cfg, const char *type)
{
	size_t i;
	json_t *v;

	json_array_foreach(get(cfg, "linux.namespaces"), i,
			   v) if (strcmp(json_string_value(json_object_get(v, "type")), type) ==
				  0) return !json_object_get(v, "path"); /* a new one, never a host's */
	return false;
}

/* The hard RLIMIT_FSIZE of cfg, or -1 when it has none. */
static json_int_t fsize_of(json_t *cfg)
{
	json_t *r;
	size_t i;

	json_array_foreach(get(cfg, "process.rlimits"), i,
			   r) if (strcmp(json_string_value(json_object_get(r, "type")), "RLIMIT_FSIZE") ==
				  0) return json_integer_value(json_object_get(r, "hard"));
	return -1;
}

static void test_isolation(void **state)
{
	json_t *cfg = oci_spec_config(&spec, "/run/airlock/jobs/.oci/rootfs-x", true, 0), *m, *caps, *v;
	const char *k;
	size_t i;
	bool job_ro = false;

	(void)state;
	assert_non_null(cfg);
	assert_true(json_is_true(get(cfg, "root.readonly")));
	assert_string_equal(json_string_value(get(cfg, "root.path")), "/run/airlock/jobs/.oci/rootfs-x");
	assert_true(json_is_true(get(cfg, "process.noNewPrivileges")));
	assert_int_equal(json_integer_value(get(cfg, "process.user.uid")), 1000000007);
	assert_int_equal(json_integer_value(get(cfg, "process.user.gid")), 1000000007);
	caps = get(cfg, "process.capabilities");
	assert_int_equal(json_object_size(caps), 5);
	json_object_foreach(caps, k, v) assert_int_equal(json_array_size(v), 0);
	for (const char *const *ns =
		     (const char *const[]){"pid", "network", "ipc", "uts", "mount", "cgroup", "user", NULL};
	     *ns; ns++)
		assert_true(has_namespace(cfg, *ns));
	json_array_foreach(get(cfg, "mounts"), i, m)
	{
		if (strcmp(json_string_value(json_object_get(m, "destination")), "/job") == 0) {
			assert_string_equal(json_string_value(json_object_get(m, "source")), spec.job_dir);
			job_ro = has_string(json_object_get(m, "options"), "ro") &&
				 has_string(json_object_get(m, "options"), "nosuid");
		}
	}
	assert_true(job_ro);
	assert_true(has_string(get(cfg, "linux.maskedPaths"), "/proc/kcore"));
	assert_true(has_string(get(cfg, "linux.readonlyPaths"), "/proc/sys"));
	assert_int_equal(json_integer_value(get(cfg, "linux.resources.memory.limit")), 128 << 20);
	assert_int_equal(json_integer_value(get(cfg, "linux.resources.memory.swap")), 128 << 20);
	assert_int_equal(json_integer_value(get(cfg, "linux.resources.cpu.quota")), 50000);
	assert_int_equal(json_integer_value(get(cfg, "linux.resources.cpu.period")), 100000);
	assert_int_equal(json_integer_value(get(cfg, "linux.resources.pids.limit")), 64);
	assert_string_equal(json_string_value(get(cfg, "linux.seccomp.defaultAction")), "SCMP_ACT_ERRNO");
	assert_int_equal(json_array_size(get(cfg, "linux.uidMappings")), 2);
	/* runc: the runner may write no file at all. */
	assert_int_equal(fsize_of(cfg), 0);
	json_decref(cfg);
}

static void test_rlimits_and_environment(void **state)
{
	json_t *cfg = oci_spec_config(&spec, "/r", false, OCI_FSIZE_CRUN), *r;
	size_t i;
	int seen = 0;

	(void)state;
	json_array_foreach(get(cfg, "process.rlimits"), i, r)
	{
		const char *type = json_string_value(json_object_get(r, "type"));

		if (strcmp(type, "RLIMIT_CORE") == 0 && json_integer_value(json_object_get(r, "hard")) == 0)
			seen |= 1;
		if (strcmp(type, "RLIMIT_NOFILE") == 0 && json_integer_value(json_object_get(r, "hard")) == OCI_NOFILE)
			seen |= 2;
		if (strcmp(type, "RLIMIT_FSIZE") == 0 &&
		    json_integer_value(json_object_get(r, "hard")) == OCI_FSIZE_CRUN &&
		    json_integer_value(json_object_get(r, "soft")) == OCI_FSIZE_CRUN)
			seen |= 4;
	}
	assert_int_equal(seen, 7);
	assert_int_equal(json_array_size(get(cfg, "process.env")), 2);
	assert_string_equal(json_string_value(json_array_get(get(cfg, "process.env"), 0)), "PATH=/");
	assert_string_equal(json_string_value(json_array_get(get(cfg, "process.env"), 1)), LAUNCH_RUNNER_ENV);
	assert_false(has_namespace(cfg, "user"));
	assert_null(get(cfg, "linux.uidMappings"));
	json_decref(cfg);
}

static void test_seccomp_allowlist(void **state)
{
	json_t *sc = oci_seccomp(), *rule;
	size_t i;
	bool socket_unix_only = false, clone_checked = false, clone3_enosys = false;

	(void)state;
	json_array_foreach(json_object_get(sc, "syscalls"), i, rule)
	{
		json_t *names = json_object_get(rule, "names");
		const char *action = json_string_value(json_object_get(rule, "action"));

		/* Nothing that makes namespaces, mounts, traces or loads code is allowed. */
		for (const char *const *bad =
			     (const char *const[]){"unshare", "setns", "mount", "umount2", "pivot_root", "ptrace",
						   "bpf", "keyctl", "add_key", "init_module", "kexec_load", "fork",
						   "vfork", "personality", NULL};
		     *bad; bad++)
			assert_false(has_string(names, *bad));
		if (has_string(names, "socket"))
			socket_unix_only = json_array_size(json_object_get(rule, "args")) == 1;
		if (has_string(names, "clone"))
			clone_checked = json_array_size(json_object_get(rule, "args")) == 1;
		if (has_string(names, "clone3"))
			clone3_enosys = strcmp(action, "SCMP_ACT_ERRNO") == 0;
	}
	assert_true(socket_unix_only);
	assert_true(clone_checked);
	assert_true(clone3_enosys);
	json_decref(sc);
}

static void test_bad_user(void **state)
{
	struct launch_spec s = spec;

	(void)state;
	s.user = "root";
	assert_null(oci_spec_config(&s, "/r", true, 0));
	s.user = "0:0";
	assert_null(oci_spec_config(&s, "/r", true, 0));
	s.user = NULL;
	assert_null(oci_spec_config(&s, "/r", true, 0));
	assert_null(oci_spec_config(&spec, NULL, true, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolation),
		cmocka_unit_test(test_rlimits_and_environment),
		cmocka_unit_test(test_seccomp_allowlist),
		cmocka_unit_test(test_bad_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
