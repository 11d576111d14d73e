/*
 * validate_my_scope_tables: see validate_my_scope_tables.h. Sorted in C
 * byte order of the upper-case names for bsearch.
 */
#include "validator/mysql/validate_my_scope_tables.h"

#include <stdlib.h>
#include <string.h>

/*
 * A key (primary, unique or foreign) is shown whole or not at all, as
 * Postgres' filtered pg_constraint shows it: not when one of its columns,
 * or a column or table it references, is hidden. Its rows in
 * KEY_COLUMN_USAGE are read once, uncorrelated, so MariaDB lists them a
 * single time however many rows ask.
 */
#define HIDDEN_KEYS                                                                                                \
	"(SELECT k.CONSTRAINT_SCHEMA, k.TABLE_NAME,"                                                               \
	" k.CONSTRAINT_NAME FROM information_schema.KEY_COLUMN_USAGE k WHERE NOT (@C(k.TABLE_SCHEMA,k.TABLE_NAME|" \
	"k.COLUMN_NAME) AND (k.REFERENCED_TABLE_NAME IS NULL OR (@T(k.REFERENCED_TABLE_SCHEMA,"                    \
	"k.REFERENCED_TABLE_NAME) AND @C(k.REFERENCED_TABLE_SCHEMA,k.REFERENCED_TABLE_NAME|"                       \
	"k.REFERENCED_COLUMN_NAME)))))"
#define KEY_SHOWN "(r.CONSTRAINT_SCHEMA, r.TABLE_NAME, r.CONSTRAINT_NAME) NOT IN " HIDDEN_KEYS
/*
 * An index named as a hidden key goes with it: a primary or unique key's
 * index, and the one MariaDB makes for a foreign key that has none, which
 * takes the constraint's name (it may name the hidden table).
 */
#define INDEX_SHOWN "(r.TABLE_SCHEMA, r.TABLE_NAME, r.INDEX_NAME) NOT IN " HIDDEN_KEYS
/*
 * A column's default or generation expression that may name a column the
 * table's rule hides (its name appears in the text) reads as NULL. The
 * pairs are read once, uncorrelated, and only when a ruled table asks. A
 * ruled table's columns are numbered among the shown ones, so no gap
 * tells where a hidden column stands.
 */
#define NAMES_HIDDEN(col)                                                                                              \
	"@R(r.TABLE_SCHEMA,r.TABLE_NAME) AND (r.TABLE_SCHEMA, r.TABLE_NAME, r.COLUMN_NAME) IN (SELECT d.TABLE_SCHEMA," \
	" d.TABLE_NAME, d.COLUMN_NAME FROM information_schema.COLUMNS d JOIN information_schema.COLUMNS h ON"          \
	" h.TABLE_SCHEMA = d.TABLE_SCHEMA AND h.TABLE_NAME = d.TABLE_NAME WHERE @R(d.TABLE_SCHEMA,d.TABLE_NAME) AND"   \
	" NOT @C(h.TABLE_SCHEMA,h.TABLE_NAME|h.COLUMN_NAME) AND LOCATE(h.COLUMN_NAME, d." col ") > 0)"

/* clang-format off */
static const struct vmy_is_table tables[] = {
	{"ALL_PLUGINS", VMY_IS_PASS, NULL, NULL},
	{"APPLICABLE_ROLES", VMY_IS_PASS, NULL, NULL},
	{"CHARACTER_SETS", VMY_IS_PASS, NULL, NULL},
	{"CHECK_CONSTRAINTS", VMY_IS_FILTER, "@T(r.CONSTRAINT_SCHEMA,r.TABLE_NAME) AND NOT @R(r.CONSTRAINT_SCHEMA,r.TABLE_NAME)", NULL},
	{"CLIENT_STATISTICS", VMY_IS_PASS, NULL, NULL},
	{"COLLATIONS", VMY_IS_PASS, NULL, NULL},
	{"COLLATION_CHARACTER_SET_APPLICABILITY", VMY_IS_PASS, NULL, NULL},
	{"COLUMNS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME) AND @C(r.TABLE_SCHEMA,r.TABLE_NAME|r.COLUMN_NAME)",
		"r.TABLE_CATALOG, r.TABLE_SCHEMA, r.TABLE_NAME, r.COLUMN_NAME, IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), "
		"CAST(ROW_NUMBER() OVER (PARTITION BY r.TABLE_SCHEMA, r.TABLE_NAME ORDER BY r.ORDINAL_POSITION) AS "
		"UNSIGNED), r.ORDINAL_POSITION) AS ORDINAL_POSITION, "
		"IF(" NAMES_HIDDEN("COLUMN_DEFAULT") ", NULL, r.COLUMN_DEFAULT) AS COLUMN_DEFAULT, r.IS_NULLABLE, "
		"r.DATA_TYPE, r.CHARACTER_MAXIMUM_LENGTH, r.CHARACTER_OCTET_LENGTH, r.NUMERIC_PRECISION, r.NUMERIC_SCALE, "
		"r.DATETIME_PRECISION, r.CHARACTER_SET_NAME, r.COLLATION_NAME, r.COLUMN_TYPE, r.COLUMN_KEY, r.EXTRA, "
		"r.PRIVILEGES, r.COLUMN_COMMENT, r.IS_GENERATED, "
		"IF(" NAMES_HIDDEN("GENERATION_EXPRESSION") ", NULL, r.GENERATION_EXPRESSION) AS GENERATION_EXPRESSION"},
	{"COLUMN_PRIVILEGES", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
	{"ENABLED_ROLES", VMY_IS_PASS, NULL, NULL},
	{"ENGINES", VMY_IS_PASS, NULL, NULL},
	{"EVENTS", VMY_IS_FILTER, "@D(r.EVENT_SCHEMA)", NULL},
	/* Tablespace files (paths): read as empty, as on a server without NDB (mysqldump asks). */
	{"FILES", VMY_IS_FILTER, "FALSE", NULL},
	{"GEOMETRY_COLUMNS", VMY_IS_FILTER, "@T(r.F_TABLE_SCHEMA,r.F_TABLE_NAME)", NULL},
	{"GLOBAL_STATUS", VMY_IS_PASS, NULL, NULL},
	{"GLOBAL_VARIABLES", VMY_IS_PASS, NULL, NULL},
	{"INDEX_STATISTICS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
	{"INNODB_BUFFER_PAGE", VMY_IS_DENY, NULL, NULL},
	{"INNODB_BUFFER_PAGE_LRU", VMY_IS_DENY, NULL, NULL},
	{"INNODB_BUFFER_POOL_STATS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMP", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMPMEM", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMPMEM_RESET", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMP_PER_INDEX", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMP_PER_INDEX_RESET", VMY_IS_DENY, NULL, NULL},
	{"INNODB_CMP_RESET", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_BEING_DELETED", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_CONFIG", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_DEFAULT_STOPWORD", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_DELETED", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_INDEX_CACHE", VMY_IS_DENY, NULL, NULL},
	{"INNODB_FT_INDEX_TABLE", VMY_IS_DENY, NULL, NULL},
	{"INNODB_LOCKS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_LOCK_WAITS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_METRICS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_COLUMNS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_FIELDS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_FOREIGN", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_FOREIGN_COLS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_INDEXES", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_TABLES", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_TABLESPACES", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_TABLESTATS", VMY_IS_DENY, NULL, NULL},
	{"INNODB_SYS_VIRTUAL", VMY_IS_DENY, NULL, NULL},
	{"INNODB_TABLESPACES_ENCRYPTION", VMY_IS_DENY, NULL, NULL},
	{"INNODB_TRX", VMY_IS_DENY, NULL, NULL},
	{"KEYWORDS", VMY_IS_PASS, NULL, NULL},
	{"KEY_CACHES", VMY_IS_PASS, NULL, NULL},
	{"KEY_COLUMN_USAGE", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME) AND " KEY_SHOWN, NULL},
	{"OPTIMIZER_TRACE", VMY_IS_PASS, NULL, NULL},
	{"PARAMETERS", VMY_IS_FILTER, "@D(r.SPECIFIC_SCHEMA)", NULL},
	{"PARTITIONS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
	{"PLUGINS", VMY_IS_PASS, NULL, NULL},
	{"PROCESSLIST", VMY_IS_FILTER, "r.ID = CONNECTION_ID()", NULL},
	{"PROFILING", VMY_IS_PASS, NULL, NULL},
	{"REFERENTIAL_CONSTRAINTS", VMY_IS_FILTER, "@T(r.CONSTRAINT_SCHEMA,r.TABLE_NAME) AND @T(r.UNIQUE_CONSTRAINT_SCHEMA,r.REFERENCED_TABLE_NAME) AND " KEY_SHOWN, NULL},
	{"ROUTINES", VMY_IS_FILTER, "@D(r.ROUTINE_SCHEMA)", NULL},
	{"SCHEMATA", VMY_IS_FILTER, "@D(r.SCHEMA_NAME)", NULL},
	{"SCHEMA_PRIVILEGES", VMY_IS_FILTER, "@D(r.TABLE_SCHEMA)", NULL},
	{"SESSION_STATUS", VMY_IS_PASS, NULL, NULL},
	{"SESSION_VARIABLES", VMY_IS_PASS, NULL, NULL},
	{"SPATIAL_REF_SYS", VMY_IS_PASS, NULL, NULL},
	{"SQL_FUNCTIONS", VMY_IS_PASS, NULL, NULL},
	{"STATISTICS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME) AND @C(r.TABLE_SCHEMA,r.TABLE_NAME|r.COLUMN_NAME) AND " INDEX_SHOWN,
		"r.TABLE_CATALOG, r.TABLE_SCHEMA, r.TABLE_NAME, r.NON_UNIQUE, r.INDEX_SCHEMA, r.INDEX_NAME, "
		"r.SEQ_IN_INDEX, r.COLUMN_NAME, r.COLLATION, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.CARDINALITY) AS CARDINALITY, r.SUB_PART, r.PACKED, "
		"r.NULLABLE, r.INDEX_TYPE, r.COMMENT, r.INDEX_COMMENT, r.IGNORED"},
	{"SYSTEM_VARIABLES", VMY_IS_PASS, NULL, NULL},
	{"TABLES", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)",
		"r.TABLE_CATALOG, r.TABLE_SCHEMA, r.TABLE_NAME, r.TABLE_TYPE, r.ENGINE, r.VERSION, r.ROW_FORMAT, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.TABLE_ROWS) AS TABLE_ROWS, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.AVG_ROW_LENGTH) AS AVG_ROW_LENGTH, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.DATA_LENGTH) AS DATA_LENGTH, r.MAX_DATA_LENGTH, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.INDEX_LENGTH) AS INDEX_LENGTH, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.DATA_FREE) AS DATA_FREE, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.AUTO_INCREMENT) AS AUTO_INCREMENT, r.CREATE_TIME, "
		"IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.UPDATE_TIME) AS UPDATE_TIME, r.CHECK_TIME, "
		"r.TABLE_COLLATION, IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.CHECKSUM) AS CHECKSUM, "
		"r.CREATE_OPTIONS, r.TABLE_COMMENT, r.MAX_INDEX_LENGTH, r.TEMPORARY"},
	{"TABLESPACES", VMY_IS_PASS, NULL, NULL},
	{"TABLE_CONSTRAINTS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME) AND " KEY_SHOWN, NULL},
	{"TABLE_PRIVILEGES", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
	{"TABLE_STATISTICS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
	{"THREAD_POOL_GROUPS", VMY_IS_PASS, NULL, NULL},
	{"THREAD_POOL_QUEUES", VMY_IS_PASS, NULL, NULL},
	{"THREAD_POOL_STATS", VMY_IS_PASS, NULL, NULL},
	{"THREAD_POOL_WAITS", VMY_IS_PASS, NULL, NULL},
	{"TRIGGERS", VMY_IS_FILTER, "@T(r.EVENT_OBJECT_SCHEMA,r.EVENT_OBJECT_TABLE)", NULL},
	{"USER_PRIVILEGES", VMY_IS_PASS, NULL, NULL},
	{"USER_STATISTICS", VMY_IS_PASS, NULL, NULL},
	{"USER_VARIABLES", VMY_IS_PASS, NULL, NULL},
	{"VIEWS", VMY_IS_FILTER, "@T(r.TABLE_SCHEMA,r.TABLE_NAME)", NULL},
};
/* clang-format on */

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct vmy_is_table *)elem)->name);
}

const struct vmy_is_table *vmy_is_table_find(const char *name)
{
	char upper[65];
	size_t i;

	for (i = 0; name[i]; i++) {
		if (i + 1 >= sizeof(upper))
			return NULL;
		upper[i] = (name[i] >= 'a' && name[i] <= 'z') ? (char)(name[i] - 32) : name[i];
	}
	upper[i] = '\0';
	return bsearch(upper, tables, NTABLES, sizeof(tables[0]), cmp_name);
}

bool vmy_is_table_known(const char *name)
{
	return vmy_is_table_find(name) != NULL;
}

bool vmy_is_table_denied(const char *name)
{
	const struct vmy_is_table *t = vmy_is_table_find(name);

	return t && t->mode == VMY_IS_DENY;
}

const struct vmy_is_table *vmy_is_table_entry(size_t i)
{
	return i < NTABLES ? &tables[i] : NULL;
}

bool vmy_is_table_sorted(void)
{
	size_t i;

	for (i = 1; i < NTABLES; i++) {
		if (strcmp(tables[i - 1].name, tables[i].name) >= 0)
			return false;
	}
	return true;
}
