/*
 * validate_my_write_sample: see validate_my_write_sample.h.
 */
#include "validator/mysql/validate_my_write_sample.h"

#include <stdlib.h>
#include <string.h>

#include "base/wbuf.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_write.h"

char *vmy_write_sample(const struct vmy_policy *pol, const struct vmy_result *v, const char *text)
{
	const struct vmy_write_plan *w = &v->write;
	struct wbuf b;

	/* MariaDB has no UPDATE ... RETURNING. */
	if (v->kind != VMY_WRITE || !text || w->sample || strcmp(w->command, "UPDATE") == 0)
		return NULL;
	wbuf_init(&b);
	wbuf_put_str(&b, text);
	/* On a line of its own: nothing of the text before (a comment) reaches it. */
	if (vmy_write_checks(pol, v)) {
		wbuf_put_str(&b, "\n, ");
		vmy_scope_put_ident(&b, w->db);
		wbuf_put_str(&b, ".");
		vmy_scope_put_ident(&b, w->table);
		wbuf_put_str(&b, ".*");
	} else {
		wbuf_put_str(&b, "\nRETURNING *");
	}
	wbuf_put_u8(&b, 0);
	if (b.failed) {
		wbuf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

bool vmy_write_sample_same(const struct vmy_result *text, const struct vmy_result *sample)
{
	return text->kind == VMY_WRITE && sample->kind == VMY_WRITE && !text->write.sample && sample->write.sample &&
	       strcmp(text->write.command, sample->write.command) == 0 &&
	       strcmp(text->write.db, sample->write.db) == 0 && strcmp(text->write.table, sample->write.table) == 0 &&
	       text->write.rule == sample->write.rule;
}

char *vmy_write_sample_checked(const struct vmy_policy *ext, const char *text, const struct vmy_result *made)
{
	char *sample = vmy_write_sample(ext, made, text);
	struct vmy_result *again = sample ? malloc(sizeof(*again)) : NULL;
	bool same;

	if (!again) {
		free(sample);
		return NULL;
	}
	vmy_validate(ext, sample, strlen(sample), again);
	same = vmy_write_sample_same(made, again);
	free(again);
	if (!same) {
		free(sample);
		return NULL;
	}
	return sample;
}
