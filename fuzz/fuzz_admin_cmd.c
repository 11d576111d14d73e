/*
 * libFuzzer target for the admin console's command parser: any bytes
 * (cut at the first NUL, as a Query's text is) give a known kind, a name
 * for it, and an explanation whenever the line is refused.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/admin_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct admin_cmd c;
	enum admin_cmd_kind k;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	k = admin_cmd_parse(text, &c);
	if (k != c.kind || k > ADMIN_CMD_SHUTDOWN || !admin_cmd_name(k))
		abort();
	if ((k == ADMIN_CMD_BAD || k == ADMIN_CMD_UNKNOWN) != (c.why != NULL))
		abort();
	if (strlen(text) > ADMIN_CMD_MAX && k != ADMIN_CMD_BAD)
		abort();
	free(text);
	return 0;
}
