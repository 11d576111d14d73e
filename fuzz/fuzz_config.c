/*
 * fuzz_config: libFuzzer target for the config parser: any bytes as an INI
 * file must load or be refused with messages, never crash or leak.
 */
#include <stdint.h>
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
	if (cfg)
		config_free(cfg);
	free(text);
	return 0;
}
