/*
 * config_errors: the problems one load found, each a line of its own that
 * names the line of the file and the key (the caller owns the struct
 * config_errors they are written into). Every part of conf/ reports
 * through conf_err, so this file calls nothing else of the folder.
 */
#include "conf/config_internal.h"

#include <stdarg.h>
#include <stdio.h>

void conf_err(struct conf_ctx *ctx, unsigned line, const char *fmt, ...)
{
	struct config_errors *e = ctx->errs;
	char *msg;
	int off = 0;
	va_list ap;

	if (e->n >= CONFIG_MAX_ERRORS)
		return;
	msg = e->msg[e->n];
	if (e->n == CONFIG_MAX_ERRORS - 1) {
		snprintf(msg, sizeof(e->msg[0]), "too many problems; only the first %d are listed",
			 CONFIG_MAX_ERRORS - 1);
		e->n++;
		return;
	}
	if (line)
		off = snprintf(msg, sizeof(e->msg[0]), "line %u: ", line);
	va_start(ap, fmt);
	vsnprintf(msg + off, sizeof(e->msg[0]) - (size_t)off, fmt, ap);
	va_end(ap);
	e->n++;
}
