/*
 * fuzz_config: libFuzzer target for the config parser: any bytes as an INI
 * file must load or be refused with messages, never crash or leak. A file
 * that loads must load the same way twice (a reload of an unchanged file
 * is never refused) and never run the runner as root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_errors errs;
	struct airlock_config *cfg;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&errs, 0, sizeof(errs));
	/* A base directory with no password files in it: file reads fail cleanly. */
	cfg = config_load_string(text, "/nonexistent", &errs);
	if (cfg) {
		struct airlock_config *again = config_load_string(text, "/nonexistent", &errs);
		const char *blocker = again ? config_reload_blocker(cfg, again) : "(second load failed)";

		if (blocker || cfg->runner_uid_first == 0 || cfg->runner_uid_last < cfg->runner_uid_first) {
			fprintf(stderr, "fuzz_config: unchanged file refused on reload (%s) or runner uids %u-%u\n",
				blocker ? blocker : "-", cfg->runner_uid_first, cfg->runner_uid_last);
			abort();
		}
		config_free(again);
		config_free(cfg);
	}
	free(text);
	return 0;
}
