/*
 * validate_pg_scope_int: what validate_pg_scope.c (the walk, relations and
 * the driver), validate_pg_scope_guard.c (functions, casts and the user
 * functions) and validate_pg_scope_tree.c (the bookkeeping under both)
 * share.
 *
 * Mutations work in place on the agent's unpacked tree: a node is
 * overwritten with a node of a template tree (parsed from SQL the scoping
 * wrote), and the template's placeholder with the agent's node, so the
 * two trees share subtrees while the statement is packed. Every overwrite
 * is recorded first; pgv_scope_undo restores them in reverse order so that
 * each tree is freed holding only what it was unpacked with.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_INT_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_INT_H

#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stddef.h>

#include "validator/pg/validate_pg.h"

/* The parser's own depth limit keeps trees far shallower; a safety net only. */
#define PGV_SCOPE_MAX_DEPTH 10000

/* The placeholder column a guard template holds where the guarded expression goes. */
#define PGV_SCOPE_PLACEHOLDER "airlock_guarded_value"

/*
 * Ends each filtered subquery (a catalog's, a rule's table). Postgres pushes
 * the statement's conditions down into a subquery and orders them with the
 * filter's by cost, so a cheap condition that raises ran on rows the filter
 * drops (CASE WHEN tablename = 'hidden' THEN 1/0 ... over pg_stats raised
 * for a hidden table, not for a missing one): an error oracle over hidden
 * rows. A subquery with OFFSET is neither pulled up nor pushed into, so the
 * filter decides first. The price: a condition of the statement no longer
 * reaches the table's indexes through the subquery.
 */
#define PGV_SCOPE_FENCE " OFFSET 0"

/*
 * Ends the one-row subquery that holds a guarded value, (SELECT value
 * OFFSET 0) AS g(a), so that the value is computed once. Its check reads
 * g.a five times; pulled up, the subquery's value would be copied into
 * each of them, and a guarded value inside another's guard (a name from
 * pg_get_serial_sequence of a regclass, cast to regclass again) into 25:
 * SQLAlchemy's column query took 22 ms to plan and 10 to run, 7 and 6
 * with the value computed once. Not being pulled up, the value is not
 * folded into the check either: a constant's branches are decided when
 * the check runs, as any other value's. The check, "g.a IN (SELECT
 * ...)" and the like, is then written COALESCE(check, false), which keeps
 * what it keeps: left bare, the planner would make it a join with g,
 * whose hash of the world's set is built again for each row the guard
 * reads, where a subplan's is built once. (Not "(check) IS TRUE": the
 * deparser drops the parentheses of an AND or NOT under IS TRUE.)
 */
#define PGV_SCOPE_ONCE " OFFSET 0"

struct pgv_sbuf;

struct pgv_undo {
	void *slot;
	size_t size;
	unsigned char saved[sizeof(PgQuery__Node)];
};

/* A conjunct alias.col = value of some query's WHERE, and the relation of that query's FROM it names (NULL: none). */
struct pgv_push {
	const void *rv; /* PgQuery__RangeVar, in the tree */
	const char *qual, *col;
	const char *value; /* the constant as SQL */
	bool integer;      /* the constant is an integer */
	bool derived;      /* implied through an equality of two columns, not written */
	bool holds;        /* every row the query keeps satisfies it (not only a filter of one side's rows) */
};

struct pgv_scope {
	const struct pgv_policy *policy;
	const char *sql;
	struct pgv_result *out;
	bool refused; /* out holds a refusal */
	/* The nearest message around the walk's position that is not a Node
	 * (SelectStmt for an item of FROM, RangeTableSample for its relation). */
	const ProtobufCMessageDescriptor *parent;
	int changes;
	bool ruled;      /* a table was read through its row filter or column policy */
	bool shows_text; /* the statement can show its own (rewritten) text or plan: EXPLAIN,
			  * pg_stat_activity, current_query() */

	struct pgv_undo *undo;
	size_t nundo, capundo;
	PgQuery__ParseResult **tmpl; /* template trees, freed at the end */
	size_t ntmpl, captmpl;
	char **strs; /* strings set into the agent's tree */
	size_t nstrs, capstrs;
	const char **ctes; /* every CTE name of the statement */
	size_t nctes, capctes;
	/* The system column tableoid, read as q.tableoid (each q kept) or bare, and the relations
	 * that stand alone in their query's FROM: a filtered catalog read so keeps the column. */
	const char **tableoid_of;
	size_t ntableoid_of, captableoid_of;
	bool tableoid_bare;
	const void **alone; /* PgQuery__RangeVar, in the tree */
	size_t nalone, capalone;
	struct pgv_push *push; /* key lookups a catalog's copy takes in (validate_pg_scope_push.c) */
	size_t npush, cappush;
	bool write; /* the statement is a write (validate_pg_write.h): its text is checked again as one */
	/*
	 * The read's filtered catalogs as CTEs of its outermost query
	 * (validate_pg_scope_hoist.c): target is that query (NULL: each
	 * reference holds its own filter), bodies the CTEs' texts by number.
	 */
	struct {
		PgQuery__SelectStmt *target;
		char **bodies;
		size_t n, cap;
		unsigned sets_read; /* the world's sets some text read by name (enum pgv_set) */
	} hoist;
};

/* An empty pgv_sbuf for text spliced into sc's statement: the world's sets named, not written out, when it holds them.
 */
#define PGV_SCOPE_SBUF(sc)                                                 \
	{                                                                  \
		.cte_sets = (sc)->hoist.target != NULL ? PGV_SETS_ALL : 0u \
	}

/*
 * Edits the agent's unpacked tree before the walk (through the recorded
 * mutations below); false to refuse (sc->refused, or an unexpected shape).
 */
typedef bool (*pgv_scope_edit_fn)(struct pgv_scope *sc, PgQuery__ParseResult *tree, void *arg);

/*
 * pgv_scope_guarded for a write: edit (non-NULL) changes the tree first,
 * then the reads in it are scoped; the text is always made again and must
 * pass as a write. Returns PGV_WRITE or PGV_REFUSED.
 */
enum pgv_kind pgv_scope_edited(const struct pgv_policy *policy, const char *sql, pgv_scope_edit_fn edit, void *arg,
			       char **rewritten, char **guard, struct pgv_result *out);

/* tree as SQL text (heap, the caller frees); NULL and refused when it cannot be made. */
char *pgv_scope_deparse(struct pgv_scope *sc, PgQuery__ParseResult *tree);

/* The check a rule's table is read behind (validate_pg_scope_rules.c): its settings at their defaults. */
extern const char pgv_scope_settings_check[];
/* Names in a rule resolve through the search_path: a rule's table is read only under the default one. */
bool pgv_scope_default_path(const struct pgv_policy *p);

/* ---- validate_pg_scope_push.c ---- */

/*
 * Before the walk (a pgv_scope_child_fn over the tree): each query's key
 * lookups and the relations they name. Only while pg_catalog is first in
 * the search_path (pgv_catalog_first): the caller checks.
 */
void pgv_scope_push_collect(void *ctx, ProtobufCMessage *m, int depth);
/*
 * " AND r.col OPERATOR(pg_catalog.=) value" into sb for each key lookup of
 * rv, the pg_catalog relation rel; how many were written.
 */
size_t pgv_scope_push_put(struct pgv_scope *sc, struct pgv_sbuf *sb, const PgQuery__RangeVar *rv, const char *rel);

/* ---- validate_pg_scope_hoist.c ---- */

/* Before the walk: the read's outermost query, when it can hold a WITH list (sc->hoist.target). */
void pgv_scope_hoist_begin(struct pgv_scope *sc, PgQuery__ParseResult *tree);
/*
 * The name of a CTE of sc's statement whose query is body's text (added
 * once: the same text gets the same name); body is emptied. The name is
 * kept until pgv_scope_free; NULL (and refused) on failure.
 */
const char *pgv_scope_hoist_add(struct pgv_scope *sc, struct pgv_sbuf *body);
/* After the walk: puts the CTEs added (and the world's sets read by name) first in the target's WITH list. */
void pgv_scope_hoist_finish(struct pgv_scope *sc);
/* A name the scoping gives its own CTEs: the agent's CTEs and unqualified relations may not take it. */
bool pgv_scope_hoist_reserved(const char *name);

/* ---- validate_pg_scope_tree.c ---- */

/* Grows *arr (elements of elem bytes, *cap of them) to hold n + 1; false (and refused) when out of memory. */
bool pgv_scope_grow(struct pgv_scope *sc, void **arr, size_t *cap, size_t n, size_t elem);
/* Undoes every recorded overwrite and frees what sc holds (not the agent's tree). */
void pgv_scope_free(struct pgv_scope *sc);
/* sql parsed and unpacked (caller frees with pg_query__parse_result__free_unpacked), NULL when it does not parse. */
PgQuery__ParseResult *pgv_scope_unpack(const char *sql);
struct pgv_sbuf;
/*
 * The first statement of sb's text parsed as a template (kept until
 * pgv_scope_free); sb is emptied. NULL and refused on failure, out of
 * memory included.
 */
PgQuery__Node *pgv_scope_template(struct pgv_scope *sc, struct pgv_sbuf *sb);
/* n as a SelectStmt, or NULL. */
PgQuery__SelectStmt *pgv_scope_select(PgQuery__Node *n);

/* " AS alias" for the subquery that replaces rv: rv's own alias (column names included) or its name. */
void pgv_scope_put_alias(struct pgv_sbuf *sb, const PgQuery__RangeVar *rv);
/*
 * node (a RangeVar) becomes the subquery sb holds ("SELECT * FROM (...)",
 * without its alias; sb is emptied), named as node was. Refused on
 * failure; what says which template had an unexpected shape.
 */
void pgv_scope_replace_relation(struct pgv_scope *sc, PgQuery__Node *node, struct pgv_sbuf *sb, const char *what);

typedef void (*pgv_scope_child_fn)(void *ctx, ProtobufCMessage *child, int depth);
/* Calls fn for each message-typed field (each element of repeated ones, the set member of a oneof) of m. */
void pgv_scope_each_child(ProtobufCMessage *m, pgv_scope_child_fn fn, void *ctx, int depth);

/* Refuses (first refusal wins) with a cursor at the 0-based byte offset location. */
__attribute__((format(printf, 6, 7))) void pgv_scope_refuse(struct pgv_scope *sc, enum airlock_err code,
							    enum airlock_native native, int location, const char *hint,
							    const char *fmt, ...);
/* A template that did not parse: refused (UNSUPPORTED, as XX000), never run unscoped. */
void pgv_scope_internal(struct pgv_scope *sc, const char *what);
/* Out of memory: refused (OUT_OF_MEMORY), never run unscoped. */
void pgv_scope_out_of_memory(struct pgv_scope *sc);

/* Records size bytes at slot for pgv_scope_undo. False (and refused) when out of memory. */
bool pgv_scope_save(struct pgv_scope *sc, void *slot, size_t size);
/* Overwrites node with with's contents, recorded. */
bool pgv_scope_replace(struct pgv_scope *sc, PgQuery__Node *node, const PgQuery__Node *with);
/* A heap copy of s owned by sc (freed at the end), NULL when out of memory. */
char *pgv_scope_strdup(struct pgv_scope *sc, const char *s);
/* size zeroed bytes owned by sc (freed at the end), NULL (and refused) when out of memory. */
void *pgv_scope_alloc(struct pgv_scope *sc, size_t size);

/*
 * The expression of sb's "SELECT <expr>" parsed as a template (sb is
 * emptied), with the placeholder column (if any) replaced by value. NULL
 * (and refused) on failure.
 */
PgQuery__Node *pgv_scope_expr(struct pgv_scope *sc, struct pgv_sbuf *sb, PgQuery__Node *value);

/* A string constant's text (borrowed from n), or NULL when n is none. */
const char *pgv_scope_string_const(const PgQuery__Node *n);

/* ---- validate_pg_scope_rules.c ---- */

/*
 * A relation outside the catalogs: when the user has a rule for the table
 * it names, node becomes the subquery the rule describes. Unqualified
 * names resolve through the search_path; one that a schema listed before
 * the rule's could capture is refused.
 */
void pgv_scope_rules_relation(struct pgv_scope *sc, PgQuery__Node *node);

/* ---- validate_pg_scope_guard.c ---- */

/* Mutations applied after node's children were walked. */
void pgv_scope_func_call(struct pgv_scope *sc, PgQuery__Node *node);
void pgv_scope_type_cast(struct pgv_scope *sc, PgQuery__Node *node);
void pgv_scope_user_value(struct pgv_scope *sc, PgQuery__Node *node);
/*
 * An unqualified call, before the mutations above: qualified with the
 * schema pgv_function_qualifier names, so the search_path cannot turn a
 * built-in (or allowed) function into another schema's overload.
 */
void pgv_scope_qualify_call(struct pgv_scope *sc, PgQuery__Node *node);
/* The column name Postgres gives node when it is one the scoping replaces, else NULL. */
const char *pgv_scope_user_colname(const PgQuery__Node *node);

#endif
