/*
 * validate_my_scope: rewrites a read that passed vmy_validate so that what
 * it can learn of the database describes only what the policy allows.
 *
 *   - each information_schema table that names tables, databases or
 *     sessions (validate_my_scope_tables' FILTER entries) is read through
 *     a derived table with its filter, under the reference's own name or
 *     alias; the derived table ends in a LIMIT of every row, so that
 *     MariaDB neither merges it nor pushes the statement's conditions into
 *     it, where they would run on rows the filter drops;
 *   - SHOW [FULL] TABLES, SHOW TABLE STATUS and SHOW DATABASES become the
 *     same SELECT over a filtered information_schema, with the columns
 *     the SHOW form has (LIKE kept; a WHERE applies outside the filtered
 *     rows, as above);
 *   - each table the user has a rule for (conf/config.h) becomes
 *     (SELECT <columns, masks in place> FROM db.table WHERE (<filter>)),
 *     so every reading path sees the same rows and columns.
 *
 * Filter markers (each expands to a parenthesised predicate):
 *   @T(s,t)  schema column s and table column t name a table the allowlist
 *            allows (byte for byte, as MariaDB compares table names)
 *   @D(s)    s names a database the allowlist has an entry for
 *   @C(s,t|c) column c of table s.t is one the user's rule for it shows
 *   @R(s,t)  s.t is a table the user reads through a rule: figures that
 *            count its rows (TABLE_ROWS, CARDINALITY, ...) read as NULL
 *
 * Names from the policy go in as hexadecimal literals, so no quoting or
 * character set rule can change what they mean. The caller validates the
 * rewritten text again before it runs. Pure: no I/O.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SCOPE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wbuf.h"
#include "validator/mysql/validate_my.h"

/*
 * sql (len bytes) passed vmy_validate under pol as VMY_READ with result v.
 * Returns NULL with *failed false when it runs as written; the text to run
 * (heap, NUL-terminated; the caller frees it); or NULL with *failed true
 * when it cannot be rewritten (memory ran out, or a shape the rewrite does
 * not follow): the caller refuses it, never runs it unscoped.
 */
char *vmy_scope(const struct vmy_policy *pol, const char *sql, size_t len, const struct vmy_result *v, bool *failed);

/* True when v reads a table through the user's row filter or column policy. */
bool vmy_scope_reads_rules(const struct vmy_result *v);

/*
 * A read of the names of the foreign keys, on tables the user sees, that
 * the world hides (they reference a hidden table or column): MariaDB
 * names the index it makes for such a key after it, and EXPLAIN prints
 * index names (runner/runner_my_hidden.h). Heap, the caller frees; NULL
 * when memory ran out.
 */
char *vmy_hidden_foreign_keys_sql(const struct vmy_policy *pol);

/*
 * Appends sql[from, to) with each scoped reference of sp inside it replaced
 * as vmy_scope replaces it; false when a reference is out of order or
 * straddles the range.
 */
bool vmy_scope_range(struct wbuf *w, const struct vmy_policy *pol, const char *sql, size_t from, size_t to,
		     const struct vmy_scope_plan *sp);

/* Appends `name`, backticks doubled. */
void vmy_scope_put_ident(struct wbuf *w, const char *s);

/* Appends template with its markers expanded for pol; false when a marker is malformed. */
bool vmy_scope_expand(struct wbuf *w, const struct vmy_policy *pol, const char *template);

#endif
