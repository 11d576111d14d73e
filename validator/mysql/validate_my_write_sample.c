/*
 * validate_my_write_sample: see validate_my_write_sample.h.
 */
#include "validator/mysql/validate_my_write_sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wbuf.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_write.h"

/* Ends b as a C string: its data (heap), or NULL when it failed. */
static char *finish(struct wbuf *b)
{
	wbuf_put_u8(b, 0);
	if (b->failed) {
		wbuf_free(b);
		return NULL;
	}
	return (char *)b->data;
}

/* "SELECT * FROM db.table", the head of an UPDATE's read of w's table. */
static void put_read_head(struct wbuf *b, const struct vmy_write_plan *w)
{
	wbuf_put_str(b, "SELECT * FROM ");
	vmy_scope_put_ident(b, w->db);
	wbuf_put_str(b, ".");
	vmy_scope_put_ident(b, w->table);
}

/*
 * An UPDATE's read of the rows it touches: the table, its alias, its
 * WHERE (the filter joined) and ORDER BY as text has them, and a LIMIT of
 * at most the rows a sample keeps.
 */
static char *update_read(const struct vmy_result *v, const char *text)
{
	const struct vmy_write_plan *w = &v->write;
	size_t len = strlen(text), end = v->stmt_len && v->stmt_len <= len ? v->stmt_len : len;
	size_t tail_end = w->limit_start ? w->limit_start : end;
	long n = w->limit_start && w->limit < VMY_WRITE_SAMPLE_ROWS ? w->limit : VMY_WRITE_SAMPLE_ROWS;
	bool alias = w->alias_end > w->alias_start;
	char num[32];
	struct wbuf b;

	if (w->filter_at > tail_end || tail_end > end ||
	    (alias && (w->alias_start < w->target_end || w->alias_end > w->filter_at)))
		return NULL;
	wbuf_init(&b);
	put_read_head(&b, w);
	if (alias)
		wbuf_put_bytes(&b, text + w->alias_start, w->alias_end - w->alias_start);
	wbuf_put_bytes(&b, text + w->filter_at, tail_end - w->filter_at);
	/* On a line of its own: nothing of the text before (a comment) reaches it. */
	snprintf(num, sizeof(num), "\nLIMIT %ld", n);
	wbuf_put_str(&b, num);
	return finish(&b);
}

char *vmy_write_sample(const struct vmy_policy *pol, const struct vmy_result *v, const char *text)
{
	const struct vmy_write_plan *w = &v->write;
	struct wbuf b;

	if (v->kind != VMY_WRITE || !text || w->sample)
		return NULL;
	/* MariaDB has no UPDATE ... RETURNING: its rows are read before and after it. */
	if (strcmp(w->command, "UPDATE") == 0)
		return update_read(v, text);
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
	return finish(&b);
}

bool vmy_write_sample_same(const struct vmy_result *text, const struct vmy_result *sample)
{
	return text->kind == VMY_WRITE && sample->kind == VMY_WRITE && !text->write.sample && sample->write.sample &&
	       strcmp(text->write.command, sample->write.command) == 0 &&
	       strcmp(text->write.db, sample->write.db) == 0 && strcmp(text->write.table, sample->write.table) == 0 &&
	       text->write.rule == sample->write.rule;
}

/* Whether sample starts with update_read's head for w's table, whitespace after it. */
static bool reads_the_table(const struct vmy_write_plan *w, const char *sample)
{
	struct wbuf b;
	bool same;

	wbuf_init(&b);
	put_read_head(&b, w);
	same = !b.failed && strncmp(sample, (const char *)b.data, b.len) == 0 &&
	       (sample[b.len] == ' ' || sample[b.len] == '\n' || sample[b.len] == '\t');
	wbuf_free(&b);
	return same;
}

bool vmy_write_sample_reads(const struct vmy_result *text, const struct vmy_result *read, const char *sample)
{
	const struct vmy_scoped_ref *first = read->scope.nrefs ? &read->scope.refs[0] : NULL;

	if (text->kind != VMY_WRITE || strcmp(text->write.command, "UPDATE") != 0 || read->kind != VMY_READ ||
	    !read->stmt_kind || strcmp(read->stmt_kind, "SELECT") != 0 || !reads_the_table(&text->write, sample))
		return false;
	/* A table with a rule is the read's first reference (its FROM), read through that same rule. */
	if (text->write.rule < 0)
		return true;
	return first && first->rule == text->write.rule && strcmp(first->db, text->write.db) == 0 &&
	       strcmp(first->written, text->write.table) == 0;
}

char *vmy_write_sample_checked(const struct vmy_policy *ext, const char *text, const struct vmy_result *made)
{
	char *sample = vmy_write_sample(ext, made, text);
	struct vmy_result *again = sample ? malloc(sizeof(*again)) : NULL;
	struct vmy_policy read = *ext;
	bool same;

	if (!again) {
		free(sample);
		return NULL;
	}
	/* The read's star is airlock's own: its columns are the write table's, which no rule limits. */
	read.forbid_star = false;
	vmy_validate(&read, sample, strlen(sample), again);
	same = made->kind == VMY_WRITE && strcmp(made->write.command, "UPDATE") == 0
		       ? vmy_write_sample_reads(made, again, sample)
		       : vmy_write_sample_same(made, again);
	free(again);
	if (!same) {
		free(sample);
		return NULL;
	}
	return sample;
}
