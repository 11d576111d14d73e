/*
 * pg_write_params: a write's bound values as its record keeps them
 * (pg_session_int.h). The record shows each value to a person and the run
 * binds it again, both as text, so a value a driver bound in binary (many
 * do for numbers) is turned to its text first, its type kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/pg_binary.h"
#include "proxy/pg/pg_session_int.h"
#include "validator/pg/validate_pg_types.h"

void pgw_params_free(struct pgw_params *p)
{
	for (size_t i = 0; p->texts && i < p->x.nparams; i++)
		free(p->texts[i]);
	free(p->texts);
	free(p->params);
	memset(p, 0, sizeof(*p));
}

/* Value i of in made text into out's; false with why. */
static bool take(const struct job_param *in, size_t i, struct pgw_params *out, char *why, size_t whylen)
{
	struct job_param *p = &out->params[i];
	enum pg_binary_result r;
	struct wbuf w;

	*p = *in;
	if (pgv_param_type_needs_check(in->type_oid) || pgv_param_type_refused(in->type_oid)) {
		snprintf(why, whylen, "a write's parameters must be of built-in or unspecified types ($%zu is not)",
			 i + 1);
		return false;
	}
	if (!in->binary || !in->value) {
		p->binary = false; /* a NULL has no format */
		return true;
	}
	wbuf_init(&w);
	r = pg_binary_to_text(in->type_oid, in->value, in->len, &w);
	if (r == PG_BINARY_OK)
		wbuf_put_u8(&w, 0);
	if (r == PG_BINARY_UNKNOWN_TYPE)
		snprintf(why, whylen,
			 "$%zu is bound in binary as a type whose value a person could not be shown (type %u): bind it "
			 "as text",
			 i + 1, in->type_oid);
	else if (r == PG_BINARY_MALFORMED)
		snprintf(why, whylen, "$%zu is not a value of its type (%u) in binary", i + 1, in->type_oid);
	else if (w.failed)
		snprintf(why, whylen, "out of memory");
	if (r != PG_BINARY_OK || w.failed) {
		wbuf_free(&w);
		return false;
	}
	out->texts[i] = (char *)w.data; /* the wbuf's buffer, now owned here */
	p->value = w.data;
	p->len = (uint32_t)(w.len - 1);
	p->binary = false;
	return true;
}

bool pgw_params_text(const struct pgq_exec *in, struct pgw_params *out, char *why, size_t whylen)
{
	size_t n = in->nparams;

	memset(out, 0, sizeof(*out));
	out->x = *in;
	out->params = calloc(n ? n : 1, sizeof(*out->params));
	out->texts = calloc(n ? n : 1, sizeof(*out->texts));
	if (!out->params || !out->texts) {
		snprintf(why, whylen, "out of memory");
		pgw_params_free(out);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!take(&in->params[i], i, out, why, whylen)) {
			pgw_params_free(out);
			return false;
		}
	}
	out->x.params = out->params;
	return true;
}
