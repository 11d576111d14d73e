/*
 * validate_my_create: see validate_my_create.h.
 */
#include "validator/mysql/validate_my_create.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/config.h"
#include "validator/mysql/validate_my_names.h"

/* Longest name read: MariaDB's 64 characters, up to 4 bytes each. */
#define NAME_CAP 257
/* Columns of one key: MariaDB allows 64. */
#define MAX_KEY_COLS 64

struct line {
	const char *p, *end;
};

enum verdict { KEEP, DROP };

static bool take(struct line *l, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(l->end - l->p) < n || strncmp(l->p, word, n) != 0)
		return false;
	l->p += n;
	return true;
}

/* w as a whole word: at the end of the line or before a space. */
static bool word(struct line *l, const char *w)
{
	struct line at = *l;

	if (!take(&at, w) || (at.p < at.end && *at.p != ' '))
		return false;
	*l = at;
	return true;
}

/* One name as SHOW CREATE TABLE prints it, unquoted into out. */
static bool take_name(struct line *l, char *out)
{
	size_t n = 0;
	char q;

	if (l->p >= l->end)
		return false;
	q = *l->p;
	if (q == '`' || q == '"') {
		for (l->p++;; l->p++) {
			if (l->p >= l->end)
				return false;
			if (*l->p == q) {
				if (l->p + 1 >= l->end || l->p[1] != q) {
					l->p++;
					break;
				}
				l->p++; /* a doubled quote stands for one */
			}
			if (n + 1 >= NAME_CAP || *l->p == '\0')
				return false;
			out[n++] = *l->p;
		}
	} else {
		for (; l->p < l->end && !strchr(" \t(),.`\"", *l->p); l->p++) {
			if (n + 1 >= NAME_CAP || *l->p == '\0')
				return false;
			out[n++] = *l->p;
		}
	}
	out[n] = '\0';
	return n > 0;
}

/* "(a, b)": the names into cols; their count, 0 when the list does not read as one. */
static size_t take_names(struct line *l, char (*cols)[NAME_CAP])
{
	size_t n = 0;

	if (!take(l, "("))
		return 0;
	do {
		if (n == MAX_KEY_COLS || !take_name(l, cols[n]))
			return 0;
		n++;
	} while (take(l, ","));
	return take(l, ")") ? n : 0;
}

/* True when column col of db.table is one the user's rule for it shows (no rule, or no column list: all). */
static bool column_visible(const struct vmy_policy *pol, const char *db, const char *table, const char *col)
{
	int rule = vmy_rule_index(pol, db, table);
	const struct airlock_rule *r;

	if (rule < 0)
		return true;
	r = &pol->rules[rule];
	if (!r->has_columns)
		return true;
	for (size_t i = 0; i < r->ncolumns; i++)
		if (strcasecmp(r->columns[i].name, col) == 0)
			return true;
	return false;
}

/* ' FOREIGN KEY (cols) REFERENCES [db.]table (cols) ...', after the word FOREIGN. */
static enum verdict foreign_key(const struct vmy_policy *pol, const char *db, struct line *l)
{
	char cols[MAX_KEY_COLS][NAME_CAP];
	char a[NAME_CAP], b[NAME_CAP];
	const char *ref_db = db, *ref_table = a;
	size_t n;

	if (!take(l, " KEY ") || take_names(l, cols) == 0 || !take(l, " REFERENCES ") || !take_name(l, a))
		return DROP;
	if (take(l, ".")) {
		if (!take_name(l, b))
			return DROP;
		ref_db = a;
		ref_table = b;
	}
	if (!take(l, " ") || (n = take_names(l, cols)) == 0 || !vmy_table_visible(pol, ref_db, ref_table))
		return DROP;
	for (size_t i = 0; i < n; i++)
		if (!column_visible(pol, ref_db, ref_table, cols[i]))
			return DROP;
	return KEEP;
}

/* The names of the foreign keys left out, whose indexes go with them. */
struct dropped {
	char (*names)[NAME_CAP];
	size_t n, cap;
	bool failed;
};

static void drop_name(struct dropped *d, const char *name)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 8;
		char(*names)[NAME_CAP] = realloc(d->names, cap * sizeof(*names));

		if (!names) {
			d->failed = true;
			return;
		}
		d->names = names;
		d->cap = cap;
	}
	memcpy(d->names[d->n++], name, NAME_CAP);
}

/*
 * A line's verdict. A foreign key left out adds its name to d (when d is
 * not NULL); with d's names known, an index line ("KEY name (...)") of one
 * of them is left out too: MariaDB names the index it makes for a foreign
 * key that has none after the constraint, which may name the hidden table.
 */
static enum verdict judge(const struct vmy_policy *pol, const char *db, struct line l, struct dropped *d,
			  const struct dropped *known)
{
	char name[NAME_CAP];
	enum verdict v;

	while (l.p < l.end && *l.p == ' ')
		l.p++;
	if (word(&l, "CONSTRAINT")) {
		if (!take(&l, " ") || !take_name(&l, name))
			return DROP;
		if (!take(&l, " FOREIGN"))
			/* CHECK: over the table's own columns, all of which the user sees. Nothing else is printed
			 * so. */
			return take(&l, " CHECK ") ? KEEP : DROP;
		v = foreign_key(pol, db, &l);
		if (v == DROP && d)
			drop_name(d, name);
		return v;
	}
	if (word(&l, "FOREIGN"))
		return foreign_key(pol, db, &l);
	if (known && known->n && (word(&l, "KEY") || (word(&l, "UNIQUE") && take(&l, " ") && word(&l, "KEY"))) &&
	    take(&l, " ") && take_name(&l, name)) {
		for (size_t i = 0; i < known->n; i++)
			if (strcasecmp(known->names[i], name) == 0)
				return DROP;
	}
	return KEEP;
}

char *vmy_create_scrub(const struct vmy_policy *pol, const char *db, const char *text, size_t len, size_t *out_len)
{
	struct dropped d = {0};
	char *out;
	size_t o = 0, at = 0;

	/* The foreign keys come after the indexes: their names first. */
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;

		judge(pol, db, (struct line){text + at, text + end}, &d, NULL);
		at = nl ? end + 1 : len;
	}
	out = d.failed ? NULL : malloc(len + 1);
	if (!out) {
		free(d.names);
		return NULL;
	}
	at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct line l = {text + at, text + end};

		if (judge(pol, db, l, NULL, &d) == DROP) {
			/* The last item goes: the one kept before it loses its comma. */
			if ((end == at || text[end - 1] != ',') && o >= 2 && out[o - 1] == '\n' && out[o - 2] == ',') {
				out[o - 2] = '\n';
				o--;
			}
		} else {
			memcpy(out + o, text + at, end - at);
			o += end - at;
			if (nl)
				out[o++] = '\n';
		}
		at = nl ? end + 1 : len;
	}
	out[o] = '\0';
	*out_len = o;
	free(d.names);
	return out;
}
