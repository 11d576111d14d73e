/*
 * oci_sync: the OCI runtime's blocking start-up work (see launcher.h):
 * is the runtime there, and the sweep of what an earlier run left.
 */
#define _GNU_SOURCE
#include "launch/launcher.h"
#include "launch/oci_proc.h"
#include "launch/oci_rootfs.h"
#include "launch/oci_spec.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_TIMEOUT_MS 5000u
#define DELETE_TIMEOUT_MS 10000u

int oci_runtime_check_sync(const char *runtime, char *err, size_t errlen)
{
	char out[512];
	char *argv[] = {(char *)runtime, "--version", NULL};
	int st;

	if (!runtime || runtime[0] != '/') {
		snprintf(err, errlen, "oci_runtime must be an absolute path");
		return -1;
	}
	if (access(runtime, X_OK) < 0) {
		snprintf(err, errlen, "%s cannot be run: %m", runtime);
		return -1;
	}
	st = oci_proc_run_sync(argv, CHECK_TIMEOUT_MS, out, sizeof(out));
	if (st != 0) {
		snprintf(err, errlen, "%s --version exited %d: %.200s", runtime, st, out);
		return -1;
	}
	return 0;
}

/* See launcher.h. */
bool oci_state_empty(const char *state_dir)
{
	char root[4096];
	struct dirent *de;
	bool empty = true;
	DIR *d;

	snprintf(root, sizeof(root), "%s/runtime", state_dir);
	d = opendir(root);
	if (!d)
		return errno == ENOENT;
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

int oci_sweep_sync(const char *runtime, const char *state_dir)
{
	char root[4096], bundles[4096], path[8192];
	char *out = malloc(OCI_PROC_HEAD + 1), *line, *save = NULL;
	char *list[] = {(char *)runtime, "--root", root, "list", "-q", NULL};
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (!out)
		return -1;
	snprintf(root, sizeof(root), "%s/runtime", state_dir);
	snprintf(bundles, sizeof(bundles), "%s/bundles", state_dir);
	/* An empty root names no container: the runtime is not asked (it may not even run). */
	if (!oci_state_empty(state_dir) && oci_proc_run_sync(list, CHECK_TIMEOUT_MS, out, OCI_PROC_HEAD + 1) == 0) {
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *del[] = {(char *)runtime, "--root", root, "delete", "--force", line, NULL};

			if (strncmp(line, OCI_ID_PREFIX, strlen(OCI_ID_PREFIX)) != 0)
				continue;
			if (oci_proc_run_sync(del, DELETE_TIMEOUT_MS, NULL, 0) == 0)
				n++;
			else
				fprintf(stderr, "launcher: could not delete the leftover container %s\n", line);
		}
	}
	free(out);
	d = opendir(bundles);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, OCI_ID_PREFIX, strlen(OCI_ID_PREFIX)) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", bundles, de->d_name);
		oci_remove_tree(path);
	}
	if (d)
		closedir(d);
	return n;
}
