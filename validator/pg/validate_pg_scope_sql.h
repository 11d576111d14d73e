/*
 * validate_pg_scope_sql: the SQL text the catalog scoping splices into a
 * statement. A growing string buffer, and the expansion of the filter
 * templates of validate_pg_scope_rels into SQL that names exactly the
 * relations the policy allows.
 *
 * Template markers (each expands to a parenthesised SQL expression):
 *   @V          oids of the visible relations: the allowed tables and
 *               views, their indexes, and the sequences and TOAST tables
 *               that belong to them
 *   @T          oids of the visible types: every type but the row types
 *               of hidden relations and the arrays of those
 *   @C          oids of the visible constraints (on visible relations and
 *               referencing only visible relations)
 *   @M          oids of the visible schemas: pg_catalog,
 *               information_schema, schemas a "schema.*" entry allows, and
 *               schemas holding a visible relation
 *   @F          oids of the world's functions: those of pg_catalog and
 *               information_schema, and those the policy's functions list
 *               in a visible schema
 *   @N(s,r)     true when schema column s and relation column r name a
 *               visible relation
 *   @D(s,r)     true when the view of schema s and name r reads a
 *               relation, column or function outside the world (its
 *               definition would name it)
 *   @S(s,n)     true when schema column s and specific name column n
 *               (information_schema's name_oid) name a function in @F
 *   @K(s,k)     true when constraint schema s and name k name a visible
 *               constraint (information_schema's synthesised NOT NULL
 *               names included)
 *   @O(c,o)     true when object o of catalog c (pg_depend style) belongs
 *               to something visible
 *   @Y(s,t)     true when schema column s and type column t name a
 *               visible type (in @T)
 *   @B          the backend role's oid: the one role of the agent's world,
 *               owner of everything in it
 *   @W          the airlock user's name (as name): what that role is called
 *   @R, @U, @H, @Q  the user's rules (validate_pg_scope_sql.c)
 * Template text outside markers is copied verbatim. Everything returned is
 * heap memory the caller frees.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_SQL_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/wbuf.h"
#include "validator/pg/validate_pg.h"

/* The world's sets that a statement can hold as CTEs of its own, each named once (pgv_scope_put_sets). */
enum pgv_set {
	PGV_SET_VISIBLE = 1u << 0,     /* @V: airlock_visible */
	PGV_SET_TYPES = 1u << 1,       /* @T: airlock_types */
	PGV_SET_CONSTRAINTS = 1u << 2, /* @C: airlock_constraints */
	PGV_SET_SCHEMAS = 1u << 3,     /* @M: airlock_schemas */
	PGV_SET_FUNCTIONS = 1u << 4,   /* @F: airlock_functions */
};
#define PGV_SETS_ALL 0x1fu

/*
 * A growing string on base/wbuf (zero-initialised is empty); failed
 * sticks once memory ran out or an expansion went wrong. The markers of
 * the sets in cte_sets expand to the name of their CTE instead of the set
 * written out; sets_read gathers the sets so named.
 */
struct pgv_sbuf {
	struct wbuf w;
	bool failed;
	unsigned cte_sets;
	unsigned sets_read;
};

void pgv_sb_put(struct pgv_sbuf *sb, const char *s);
void pgv_sb_putn(struct pgv_sbuf *sb, const char *s, size_t n);
/* s as a SQL string literal ('...' with quotes doubled). */
void pgv_sb_literal(struct pgv_sbuf *sb, const char *s);
/* What text holds, as a SQL string literal; text is emptied (a failure of either marks sb failed). */
void pgv_sb_literal_of(struct pgv_sbuf *sb, struct pgv_sbuf *text);
/* s as a quoted identifier ("..." with quotes doubled). */
void pgv_sb_ident(struct pgv_sbuf *sb, const char *s);
/* Returns the text (caller frees) or NULL when memory ran out; resets sb. */
char *pgv_sb_take(struct pgv_sbuf *sb);
void pgv_sb_free(struct pgv_sbuf *sb);

/*
 * Appends "WITH airlock_visible AS MATERIALIZED (<the visible relations>) "
 * and adds PGV_SET_VISIBLE to sb->cte_sets, so the @V expanded after it
 * reads that CTE: for templates that hold no text of the agent's, where a
 * name could not be captured.
 */
void pgv_scope_put_visible_cte(struct pgv_sbuf *sb, const struct pgv_policy *policy);
/*
 * Appends the CTEs of the sets in mask (enum pgv_set; the visible set
 * too when any other is), "airlock_visible(oid) AS MATERIALIZED (...),
 * airlock_types(oid) AS ...", for a WITH list: each later one reads the
 * visible set by its name. Returns how many were appended.
 */
size_t pgv_scope_put_sets(struct pgv_sbuf *sb, const struct pgv_policy *policy, unsigned mask);
/* name is the CTE name of one of the world's sets (airlock_visible, airlock_types, ...). */
bool pgv_scope_set_named(const char *name);

/* Appends template with its markers expanded for policy. */
void pgv_scope_expand(struct pgv_sbuf *sb, const struct pgv_policy *policy, const char *template);

#endif
