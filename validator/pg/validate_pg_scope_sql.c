/*
 * validate_pg_scope_sql: the string buffer and the template expansion.
 * The visible-relation set is computed by the backend from the catalogs
 * themselves, so it follows the database as it is when the statement runs;
 * the policy contributes only literal schema and table names.
 */
#include "validator/pg/validate_pg_scope_sql.h"

#include "conf/config.h"

#include <stdlib.h>
#include <string.h>

void pgv_sb_putn(struct pgv_sbuf *sb, const char *s, size_t n)
{
	wbuf_put_bytes(&sb->w, s, n);
	sb->failed = sb->w.failed;
}

void pgv_sb_put(struct pgv_sbuf *sb, const char *s)
{
	pgv_sb_putn(sb, s, strlen(s));
}

/* The n bytes at s (no NUL among them) quoted with q, q doubled inside. */
static void quoted(struct pgv_sbuf *sb, const char *s, size_t n, char q)
{
	const char *end = s + n, *next;

	pgv_sb_putn(sb, &q, 1);
	while ((next = memchr(s, q, (size_t)(end - s))) != NULL) {
		pgv_sb_putn(sb, s, (size_t)(next - s) + 1);
		pgv_sb_putn(sb, &q, 1);
		s = next + 1;
	}
	pgv_sb_putn(sb, s, (size_t)(end - s));
	pgv_sb_putn(sb, &q, 1);
}

void pgv_sb_literal(struct pgv_sbuf *sb, const char *s)
{
	quoted(sb, s, strlen(s), '\'');
}

void pgv_sb_literal_of(struct pgv_sbuf *sb, struct pgv_sbuf *text)
{
	char *s = pgv_sb_take(text);

	if (!s) {
		sb->failed = true;
		return;
	}
	pgv_sb_literal(sb, s);
	free(s);
}

void pgv_sb_ident(struct pgv_sbuf *sb, const char *s)
{
	quoted(sb, s, strlen(s), '"');
}

char *pgv_sb_take(struct pgv_sbuf *sb)
{
	char *p = NULL;

	wbuf_put_u8(&sb->w, 0);
	if (!sb->failed && !sb->w.failed)
		p = (char *)sb->w.data;
	else
		wbuf_free(&sb->w);
	memset(sb, 0, sizeof(*sb));
	return p;
}

void pgv_sb_free(struct pgv_sbuf *sb)
{
	wbuf_free(&sb->w);
	memset(sb, 0, sizeof(*sb));
}

/* The dot of a "schema.table"; NULL, and sb failed, when there is none. */
static const char *table_dot(struct pgv_sbuf *sb, const char *table)
{
	const char *dot = strchr(table, '.');

	if (!dot)
		sb->failed = true;
	return dot;
}

/* (s = 'schema' AND r = 'table') for a "schema.table" (a rule's or an allowlist entry). */
static void put_names(struct pgv_sbuf *sb, const char *table, const char *s, const char *r)
{
	const char *dot = table_dot(sb, table);

	if (!dot)
		return;
	pgv_sb_put(sb, "(");
	pgv_sb_put(sb, s);
	pgv_sb_put(sb, " = ");
	quoted(sb, table, (size_t)(dot - table), '\'');
	pgv_sb_put(sb, " AND ");
	pgv_sb_put(sb, r);
	pgv_sb_put(sb, " = ");
	pgv_sb_literal(sb, dot + 1);
	pgv_sb_put(sb, ")");
}

/* SQL that is true when schema expression ns and relation expression rel match an allowlist entry. */
static void allowed(struct pgv_sbuf *sb, const struct pgv_policy *p, const char *ns, const char *rel)
{
	bool any = false;
	size_t i;

	pgv_sb_put(sb, "(");
	for (i = 0; i < p->ntables; i++) {
		const char *e = p->tables[i];
		const char *dot = e ? strchr(e, '.') : NULL;

		if (!dot || dot == e)
			continue;
		pgv_sb_put(sb, any ? " OR " : "");
		any = true;
		if (strcmp(dot + 1, "*") == 0) {
			pgv_sb_put(sb, ns);
			pgv_sb_put(sb, " = ");
			quoted(sb, e, (size_t)(dot - e), '\'');
		} else {
			put_names(sb, e, ns, rel);
		}
	}
	pgv_sb_put(sb, any ? ")" : "false)");
}

static void expand(struct pgv_sbuf *sb, const struct pgv_policy *p, const char *t);

static bool has_column_rules(const struct pgv_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		if (p->rules[i].has_columns)
			return true;
	}
	return false;
}

/*
 * The visible relations: allowed by name, or an index, sequence or TOAST
 * table that depends on one allowed by name. An index on (or whose
 * expression or predicate reads) a column a rule hides is not visible.
 */
static void visible_relations(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	/* The allowed relations once, then what depends on them (the CTE's name is read only in here). */
	pgv_sb_put(sb,
		   "(WITH airlock_allowed AS (SELECT vc.oid FROM pg_catalog.pg_class vc JOIN pg_catalog.pg_namespace vn"
		   " ON vn.oid = vc.relnamespace WHERE ");
	allowed(sb, p, "vn.nspname", "vc.relname");
	pgv_sb_put(sb, ") SELECT airlock_allowed.oid FROM airlock_allowed"
		       " UNION ALL SELECT vx.indexrelid FROM pg_catalog.pg_index vx"
		       " WHERE vx.indrelid IN (SELECT airlock_allowed.oid FROM airlock_allowed)");
	if (has_column_rules(p))
		expand(sb, p,
		       " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend hd JOIN pg_catalog.pg_attribute ha"
		       " ON ha.attrelid = hd.refobjid AND ha.attnum = hd.refobjsubid WHERE hd.classid = 1259"
		       " AND hd.objid = vx.indexrelid AND hd.refclassid = 1259 AND hd.refobjsubid > 0"
		       " AND NOT @H(ha.attrelid,ha.attname))");
	pgv_sb_put(sb, " UNION ALL SELECT vd.objid FROM pg_catalog.pg_depend vd WHERE vd.classid = 1259"
		       " AND vd.refclassid = 1259 AND vd.deptype IN ('a', 'i') AND NOT EXISTS (SELECT 1 FROM"
		       " pg_catalog.pg_index vi WHERE vi.indexrelid = vd.objid)"
		       " AND vd.refobjid IN (SELECT airlock_allowed.oid FROM airlock_allowed))");
}

/* Expands the two comma-separated arguments of a marker into a and b; returns the text after ')'. */
static const char *marker_args(const char *t, char *a, char *b, size_t cap)
{
	const char *comma = strchr(t, ','), *close = comma ? strchr(comma, ')') : NULL;

	if (*t != '(' || !comma || !close || (size_t)(comma - t) >= cap || (size_t)(close - comma) >= cap)
		return NULL;
	memcpy(a, t + 1, (size_t)(comma - t - 1));
	a[comma - t - 1] = '\0';
	memcpy(b, comma + 1, (size_t)(close - comma - 1));
	b[close - comma - 1] = '\0';
	return close + 1;
}

/* The backend role's oid, read where the statement runs (the real current user: templates are not rewritten). */
static const char BACKEND_ROLE[] = "(SELECT ab.oid FROM pg_catalog.pg_roles ab WHERE ab.rolname = CURRENT_USER)";
static const char VIS_TYPES[] = "(SELECT vt.oid FROM pg_catalog.pg_type vt WHERE (vt.typrelid = 0 OR vt.typrelid IN @V)"
				" AND (vt.typelem = 0 OR vt.typelem NOT IN (SELECT ve.oid FROM pg_catalog.pg_type ve"
				" WHERE ve.typrelid <> 0 AND ve.typrelid NOT IN @V)))";
/* A constraint on (or whose check reads, or that references) a column a rule hides is not visible. */
static const char VIS_CONSTRAINTS[] =
	"(SELECT vk.oid FROM pg_catalog.pg_constraint vk WHERE"
	" (vk.conrelid = 0 OR vk.conrelid IN @V) AND"
	" (vk.confrelid = 0 OR vk.confrelid IN @V) AND NOT EXISTS (SELECT 1 FROM"
	" pg_catalog.pg_attribute ha WHERE ((ha.attrelid = vk.conrelid AND ha.attnum ="
	" ANY (vk.conkey)) OR (ha.attrelid = vk.confrelid AND ha.attnum = ANY (vk.confkey)))"
	" AND NOT @H(ha.attrelid,ha.attname)))";
static const char VIS_SCHEMAS_HEAD[] = "(SELECT vs.oid FROM pg_catalog.pg_namespace vs WHERE vs.nspname IN"
				       " ('pg_catalog', 'information_schema') OR vs.oid IN (SELECT vr.relnamespace"
				       " FROM pg_catalog.pg_class vr WHERE vr.oid IN @V)";
static const char VIS_NAMED[] = "EXISTS (SELECT 1 FROM pg_catalog.pg_class nc JOIN pg_catalog.pg_namespace nn"
				" ON nn.oid = nc.relnamespace WHERE nn.nspname = %1 AND nc.relname = %2"
				" AND nc.oid IN @V)";
static const char VIS_CONSTRAINT_NAMED[] =
	"(EXISTS (SELECT 1 FROM pg_catalog.pg_constraint kc JOIN pg_catalog.pg_namespace kn"
	" ON kn.oid = kc.connamespace WHERE kn.nspname = %1 AND kc.conname = %2 AND kc.oid IN @C)"
	" OR (%2 OPERATOR(pg_catalog.~) '^[0-9]+_[0-9]+_[0-9]+_not_null$' AND"
	" pg_catalog.split_part(%2, '_', 2)::pg_catalog.oid IN @V))";
static const char VIS_TYPE_NAMED[] = "EXISTS (SELECT 1 FROM pg_catalog.pg_type yt JOIN pg_catalog.pg_namespace yn"
				     " ON yn.oid = yt.typnamespace WHERE yn.nspname = %1 AND yt.typname = %2"
				     " AND yt.oid IN @T)";
/* A routine by its specific name (information_schema's name_oid): one of the world's functions. */
static const char VIS_ROUTINE_NAMED[] =
	"(%1 IN ('pg_catalog', 'information_schema') OR EXISTS (SELECT 1 FROM pg_catalog.pg_proc sp"
	" JOIN pg_catalog.pg_namespace sn ON sn.oid = sp.pronamespace WHERE sn.nspname = %1"
	" AND pg_catalog.nameconcatoid(sp.proname, sp.oid) = %2 AND sp.oid IN @F))";
/*
 * A view whose definition reads what the world does not hold: a hidden
 * relation, a column a rule hides, a function outside @F. Its text would
 * name them.
 */
static const char VIEW_READS_HIDDEN[] =
	"EXISTS (SELECT 1 FROM pg_catalog.pg_class dv JOIN pg_catalog.pg_namespace dn ON dn.oid = dv.relnamespace"
	" JOIN pg_catalog.pg_rewrite dw ON dw.ev_class = dv.oid JOIN pg_catalog.pg_depend dd ON dd.classid = 2618"
	" AND dd.objid = dw.oid WHERE dn.nspname = %1 AND dv.relname = %2 AND ((dd.refclassid = 1259 AND"
	" dd.refobjid <> dv.oid AND (dd.refobjid NOT IN @V OR EXISTS (SELECT 1 FROM pg_catalog.pg_attribute da"
	" WHERE dd.refobjsubid > 0 AND da.attrelid = dd.refobjid AND da.attnum = dd.refobjsubid AND NOT"
	" @H(da.attrelid,da.attname)))) OR (dd.refclassid = 1255 AND dd.refobjid NOT IN @F)))";
static const char VIS_OBJECT[] =
	"(CASE %1 WHEN 1259 THEN %2 IN @V WHEN 2606 THEN %2 IN @C WHEN 1247 THEN %2 IN @T"
	" WHEN 1255 THEN %2 IN @F"
	" WHEN 2615 THEN %2 IN @M WHEN 1260 THEN %2 = @B"
	" WHEN 2620 THEN %2 IN (SELECT og.oid FROM pg_catalog.pg_trigger og WHERE og.tgrelid IN @V)"
	" WHEN 2618 THEN %2 IN (SELECT ow.oid FROM pg_catalog.pg_rewrite ow WHERE ow.ev_class IN @V)"
	" WHEN 3256 THEN %2 IN (SELECT op.oid FROM pg_catalog.pg_policy op WHERE op.polrelid IN @V)"
	" WHEN 2604 THEN %2 IN (SELECT od.oid FROM pg_catalog.pg_attrdef od WHERE od.adrelid IN @V)"
	" WHEN 3381 THEN %2 IN (SELECT os.oid FROM pg_catalog.pg_statistic_ext os WHERE os.stxrelid IN @V)"
	" ELSE true END)";

/* Expands a two-argument form: %1 and %2 stand for a and b. */
static void expand_with(struct pgv_sbuf *sb, const struct pgv_policy *p, const char *form, const char *a, const char *b)
{
	struct pgv_sbuf tmp = {0};
	const char *s;
	char *text;

	for (s = form; *s; s++) {
		if (s[0] == '%' && (s[1] == '1' || s[1] == '2')) {
			pgv_sb_put(&tmp, s[1] == '1' ? a : b);
			s++;
		} else {
			pgv_sb_putn(&tmp, s, 1);
		}
	}
	text = pgv_sb_take(&tmp);
	if (!text) {
		sb->failed = true;
		return;
	}
	expand(sb, p, text);
	free(text);
}

static void visible_schemas(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	size_t i;

	expand(sb, p, VIS_SCHEMAS_HEAD);
	for (i = 0; i < p->ntables; i++) {
		const char *e = p->tables[i];
		const char *dot = e ? strchr(e, '.') : NULL;

		if (!dot || dot == e || strcmp(dot + 1, "*") != 0)
			continue;
		pgv_sb_put(sb, " OR vs.nspname = ");
		quoted(sb, e, (size_t)(dot - e), '\'');
	}
	pgv_sb_put(sb, ")");
}

/*
 * The world's functions: every function of pg_catalog and
 * information_schema, and those the policy lists in a visible schema. A
 * function the database defines is otherwise missing, as a call of it is
 * refused (its body is not checked).
 */
static void world_functions(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	size_t i;

	pgv_sb_put(sb, "(SELECT fp.oid FROM pg_catalog.pg_proc fp JOIN pg_catalog.pg_namespace fn ON fn.oid ="
		       " fp.pronamespace WHERE fn.nspname IN ('pg_catalog', 'information_schema')");
	if (p->nfunctions > 0) {
		pgv_sb_put(sb, " OR fp.pronamespace IN ");
		visible_schemas(sb, p);
		pgv_sb_put(sb, " AND (false");
		for (i = 0; i < p->nfunctions; i++) {
			const char *e = p->functions[i];
			const char *dot = e ? strchr(e, '.') : NULL;

			if (!dot || dot == e)
				continue;
			pgv_sb_put(sb, " OR (fn.nspname = ");
			quoted(sb, e, (size_t)(dot - e), '\'');
			if (strcmp(dot + 1, "*") != 0) {
				pgv_sb_put(sb, " AND fp.proname = ");
				pgv_sb_literal(sb, dot + 1);
			}
			pgv_sb_put(sb, ")");
		}
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, ")");
}

/* '"schema"."table"' of a rule's "schema.table", as a SQL literal for to_regclass. */
static void put_regclass_literal(struct pgv_sbuf *sb, const char *table)
{
	struct pgv_sbuf tmp = {0};
	const char *dot = table_dot(sb, table);

	if (!dot)
		return;
	quoted(&tmp, table, (size_t)(dot - table), '"');
	pgv_sb_put(&tmp, ".");
	pgv_sb_ident(&tmp, dot + 1);
	pgv_sb_put(sb, "COALESCE(pg_catalog.to_regclass(");
	pgv_sb_literal_of(sb, &tmp);
	pgv_sb_put(sb, ")::pg_catalog.oid, 0)");
}

static void put_column_list(struct pgv_sbuf *sb, const struct airlock_rule *rule)
{
	size_t i;

	pgv_sb_put(sb, "(");
	for (i = 0; i < rule->ncolumns; i++) {
		pgv_sb_put(sb, i ? ", " : "");
		pgv_sb_literal(sb, rule->columns[i].name);
	}
	pgv_sb_put(sb, ")");
}

/* Up to three comma-separated marker arguments; returns the text after ')' or NULL. */
static const char *split_args(const char *t, char args[3][96], size_t *n)
{
	const char *close = strchr(t, ')');

	*n = 0;
	if (*t != '(' || !close)
		return NULL;
	for (t++; t < close && *n < 3; (*n)++) {
		const char *end = memchr(t, ',', (size_t)(close - t));
		size_t len;

		if (!end)
			end = close;
		len = (size_t)(end - t);
		if (len >= sizeof(args[0]))
			return NULL;
		memcpy(args[*n], t, len);
		args[*n][len] = '\0';
		t = end + 1;
	}
	return close + 1;
}

/*
 * The relations whose figures and statistics would show a ruled table's
 * rows: each table with a rule, and what hangs off it (its indexes, whose
 * expression statistics hold its values; its partitions and inheritance
 * children; its TOAST table), down every level. An oid list; "(0)" when
 * the user has no rules.
 */
static void ruled_relations(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	size_t i;

	if (p->nrules == 0) {
		pgv_sb_put(sb, "(0)");
		return;
	}
	pgv_sb_put(
		sb,
		"(WITH RECURSIVE airlock_ruled(oid) AS (SELECT rr.oid FROM pg_catalog.pg_class rr WHERE rr.oid IN (");
	for (i = 0; i < p->nrules; i++) {
		pgv_sb_put(sb, i ? ", " : "");
		put_regclass_literal(sb, p->rules[i].table);
	}
	pgv_sb_put(sb,
		   ") UNION SELECT rd.child FROM (SELECT ri.inhrelid, ri.inhparent FROM pg_catalog.pg_inherits ri"
		   " UNION ALL SELECT rx.indexrelid, rx.indrelid FROM pg_catalog.pg_index rx"
		   " UNION ALL SELECT rp.objid, rp.refobjid FROM pg_catalog.pg_depend rp WHERE rp.classid = 1259"
		   " AND rp.refclassid = 1259 AND rp.deptype IN ('a', 'i')"
		   " UNION ALL SELECT rt.reltoastrelid, rt.oid FROM pg_catalog.pg_class rt WHERE rt.reltoastrelid <> 0)"
		   " AS rd(child, parent) JOIN airlock_ruled ON rd.parent = airlock_ruled.oid)"
		   " SELECT airlock_ruled.oid FROM airlock_ruled)");
}

/*
 * The markers of the user's rules:
 *   @R(s,r)      (s, r) names no relation of ruled_relations (its statistics would show hidden rows)
 *   @U(o)        relation oid o is none of ruled_relations
 *   @H(o,a)      column a of relation o is one its rule shows (rules without columns show all)
 *   @Q(s,t,c)    the same by schema, table and column name
 */
static const char *rule_marker(struct pgv_sbuf *sb, const struct pgv_policy *p, char kind, const char *t)
{
	static const size_t want[] = {['R' - 'H'] = 2, ['U' - 'H'] = 1, ['H' - 'H'] = 2, ['Q' - 'H'] = 3};
	char args[3][96];
	const char *rest;
	size_t n = 0, i;
	bool any = false;

	rest = split_args(t, args, &n);
	if (!rest || n != want[kind - 'H'])
		return NULL;
	if (kind == 'U') {
		pgv_sb_put(sb, "(");
		pgv_sb_put(sb, args[0]);
		pgv_sb_put(sb, " NOT IN ");
		ruled_relations(sb, p);
		pgv_sb_put(sb, ")");
		return rest;
	}
	if (kind == 'R') {
		pgv_sb_put(sb, "((");
		pgv_sb_put(sb, args[0]);
		pgv_sb_put(sb, ", ");
		pgv_sb_put(sb, args[1]);
		pgv_sb_put(sb, ") NOT IN (SELECT rn.nspname, rc.relname FROM pg_catalog.pg_class rc"
			       " JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace WHERE rc.oid IN ");
		ruled_relations(sb, p);
		pgv_sb_put(sb, "))");
		return rest;
	}
	pgv_sb_put(sb, "(");
	for (i = 0; i < p->nrules; i++) {
		const struct airlock_rule *rule = &p->rules[i];

		if (!rule->has_columns)
			continue;
		pgv_sb_put(sb, any ? " AND " : "");
		any = true;
		/* Not the rule's table, or the column (the last argument) is one the rule shows. */
		pgv_sb_put(sb, "(");
		if (kind == 'Q') {
			pgv_sb_put(sb, "NOT ");
			put_names(sb, rule->table, args[0], args[1]);
		} else {
			pgv_sb_put(sb, args[0]);
			pgv_sb_put(sb, " <> ");
			put_regclass_literal(sb, rule->table);
		}
		pgv_sb_put(sb, " OR ");
		pgv_sb_put(sb, args[n - 1]);
		pgv_sb_put(sb, " IN ");
		put_column_list(sb, rule);
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, any ? ")" : "true)");
	return rest;
}

/*
 * The template of a two-argument marker: @N a relation, @K a constraint, @Y a type by name, @S a routine
 * by its specific name, @D a view whose definition reads outside the world; @O an object.
 */
static const char *named_template(char marker)
{
	switch (marker) {
	case 'N':
		return VIS_NAMED;
	case 'S':
		return VIS_ROUTINE_NAMED;
	case 'D':
		return VIEW_READS_HIDDEN;
	case 'K':
		return VIS_CONSTRAINT_NAMED;
	case 'Y':
		return VIS_TYPE_NAMED;
	default:
		return VIS_OBJECT;
	}
}

static const struct {
	enum pgv_set set;
	char marker;
	const char *name;
} sets[] = {
	{PGV_SET_VISIBLE, 'V', "airlock_visible"},         {PGV_SET_TYPES, 'T', "airlock_types"},
	{PGV_SET_CONSTRAINTS, 'C', "airlock_constraints"}, {PGV_SET_SCHEMAS, 'M', "airlock_schemas"},
	{PGV_SET_FUNCTIONS, 'F', "airlock_functions"},
};

static enum pgv_set set_of(char marker)
{
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (sets[i].marker == marker)
			return sets[i].set;
	}
	return PGV_SET_VISIBLE;
}

bool pgv_scope_set_named(const char *name)
{
	for (size_t i = 0; name && i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (!strcmp(sets[i].name, name))
			return true;
	}
	return false;
}

/* The set written out: an oid list as a parenthesised subquery. */
static void put_set_text(struct pgv_sbuf *sb, const struct pgv_policy *p, enum pgv_set set)
{
	switch (set) {
	case PGV_SET_VISIBLE:
		visible_relations(sb, p);
		break;
	case PGV_SET_TYPES:
		expand(sb, p, VIS_TYPES);
		break;
	case PGV_SET_CONSTRAINTS:
		expand(sb, p, VIS_CONSTRAINTS);
		break;
	case PGV_SET_SCHEMAS:
		visible_schemas(sb, p);
		break;
	case PGV_SET_FUNCTIONS:
		world_functions(sb, p);
		break;
	}
}

/* A set's marker: its CTE's name when sb names it so, else the set written out. */
static void put_set(struct pgv_sbuf *sb, const struct pgv_policy *p, enum pgv_set set)
{
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (sets[i].set != set || !(sb->cte_sets & set))
			continue;
		pgv_sb_put(sb, "(SELECT ");
		pgv_sb_put(sb, sets[i].name);
		pgv_sb_put(sb, ".oid FROM ");
		pgv_sb_put(sb, sets[i].name);
		pgv_sb_put(sb, ")");
		sb->sets_read |= set;
		return;
	}
	put_set_text(sb, p, set);
}

static void expand(struct pgv_sbuf *sb, const struct pgv_policy *p, const char *t)
{
	char a[96], b[96];

	while (*t && !sb->failed) {
		const char *at = strchr(t, '@'), *rest;

		if (!at) {
			pgv_sb_put(sb, t);
			return;
		}
		pgv_sb_putn(sb, t, (size_t)(at - t));
		switch (at[1]) {
		case 'V':
		case 'T':
		case 'C':
		case 'M':
		case 'F':
			put_set(sb, p, set_of(at[1]));
			t = at + 2;
			break;
		case 'B':
			pgv_sb_put(sb, BACKEND_ROLE);
			t = at + 2;
			break;
		case 'W':
			pgv_sb_put(sb, "(");
			pgv_sb_literal(sb, p->user ? p->user : "airlock");
			pgv_sb_put(sb, "::pg_catalog.name)");
			t = at + 2;
			break;
		case 'S':
		case 'D':
		case 'N':
		case 'K':
		case 'O':
		case 'Y':
			rest = marker_args(at + 2, a, b, sizeof(a));
			if (!rest) {
				sb->failed = true;
				return;
			}
			expand_with(sb, p, named_template(at[1]), a, b);
			t = rest;
			break;
		case 'R':
		case 'U':
		case 'H':
		case 'Q':
			rest = rule_marker(sb, p, at[1], at + 2);
			if (!rest) {
				sb->failed = true;
				return;
			}
			t = rest;
			break;
		default:
			/* Not a marker: templates never hold '@' otherwise. */
			sb->failed = true;
			return;
		}
	}
}

void pgv_scope_put_visible_cte(struct pgv_sbuf *sb, const struct pgv_policy *policy)
{
	pgv_sb_put(sb, "WITH ");
	pgv_scope_put_sets(sb, policy, PGV_SET_VISIBLE);
	pgv_sb_put(sb, " ");
	sb->cte_sets |= PGV_SET_VISIBLE;
}

size_t pgv_scope_put_sets(struct pgv_sbuf *sb, const struct pgv_policy *policy, unsigned mask)
{
	unsigned cte_sets = sb->cte_sets;
	size_t n = 0;

	if (mask)
		mask |= PGV_SET_VISIBLE;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (!(mask & sets[i].set))
			continue;
		pgv_sb_put(sb, n++ ? ", " : "");
		pgv_sb_put(sb, sets[i].name);
		pgv_sb_put(sb, "(oid) AS MATERIALIZED ");
		/* The visible set written out, the others reading it by name. */
		sb->cte_sets = sets[i].set == PGV_SET_VISIBLE ? 0 : PGV_SET_VISIBLE;
		put_set_text(sb, policy, sets[i].set);
	}
	sb->cte_sets = cte_sets;
	return n;
}

void pgv_scope_expand(struct pgv_sbuf *sb, const struct pgv_policy *policy, const char *template)
{
	expand(sb, policy, template);
}
