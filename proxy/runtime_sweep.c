/* runtime_sweep: the runner containers an earlier run left for one job directory (see runtime_sweep.h). */
#include "proxy/runtime_sweep.h"

#include <stdio.h>
#include <string.h>

#include "launch/launcher.h"
#include "proxy/server.h"

bool runtime_sweep_ask(struct runtime_sweep *s, const struct airlock_config *cfg)
{
	int rc;

	if (s->answers != 0)
		return s->answers > 0;
	if (strcmp(cfg->runtime, "oci") == 0)
		rc = oci_runtime_check_sync(cfg->oci_runtime, s->err, sizeof(s->err));
	else
		rc = launcher_ping_sync(cfg->docker_socket, 3000, s->err, sizeof(s->err));
	s->answers = rc < 0 ? -1 : 1;
	return rc >= 0;
}

enum runtime_sweep_outcome runtime_sweep_dir(struct runtime_sweep *s, const struct airlock_config *cfg, const char *dir,
					     int *count)
{
	char state[4200];
	int n;

	if (count)
		*count = 0;
	if (strcmp(cfg->runtime, "oci") == 0) {
		snprintf(state, sizeof(state), "%s/" SERVER_OCI_STATE, dir);
		/* Bundles go either way; the runtime is asked only when its root names a container. */
		if (!oci_state_empty(state) && !runtime_sweep_ask(s, cfg))
			return RUNTIME_NOT_ASKED;
		n = oci_sweep_sync(cfg->oci_runtime, state);
		if (count && n > 0)
			*count = n;
		if (oci_state_empty(state))
			return RUNTIME_SWEPT;
		snprintf(s->err, sizeof(s->err), "%.140s/runtime still holds containers %.60s did not remove", state,
			 cfg->oci_runtime);
		return RUNTIME_LEFT;
	}
	if (!runtime_sweep_ask(s, cfg))
		return RUNTIME_NOT_ASKED;
	n = launcher_sweep_sync(cfg->docker_socket, dir, 10000);
	if (n < 0) {
		snprintf(s->err, sizeof(s->err), "its containers cannot be listed at %.200s", cfg->docker_socket);
		return RUNTIME_LEFT;
	}
	if (count)
		*count = n;
	return RUNTIME_SWEPT;
}
