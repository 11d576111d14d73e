/*
 * test_validate_pg: table-driven cases for the Postgres statement
 * validator: reads that pass, refusals with their SQLSTATE and code (the
 * public bypass classes included), session statement classification,
 * search_path resolution and CTE scoping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_catalog.h"
#include "validator/pg/validate_pg_funcs.h"

static const char *const default_tables[] = {
	"public.orders", "public.customers", "public.products", "pg_catalog.*", "information_schema.*",
};
static const char *const default_path[] = {"public"};

static const struct pgv_policy default_policy = {
	.tables = default_tables,
	.ntables = sizeof(default_tables) / sizeof(default_tables[0]),
	.search_path = default_path,
	.nsearch_path = 1,
};

struct vcase {
	const char *sql;
	enum pgv_kind kind;
	const char *sqlstate;  /* refusals only */
	enum airlock_err code; /* refusals only */
};

#define READ(s)                                   \
	{                                         \
		s, PGV_READ, NULL, AIRLOCK_E_NONE \
	}
#define REFUSE(s, st, c)              \
	{                             \
		s, PGV_REFUSED, st, c \
	}
#define RO(s) REFUSE(s, "25006", AIRLOCK_E_NOT_READ_ONLY)
#define MULTI(s) REFUSE(s, "42601", AIRLOCK_E_MULTI_STATEMENT)
#define FUNC(s) REFUSE(s, "42501", AIRLOCK_E_FORBIDDEN_FUNCTION)
#define TABLE(s) REFUSE(s, "42501", AIRLOCK_E_TABLE_NOT_ALLOWED)
#define SYNTAX(s) REFUSE(s, "42601", AIRLOCK_E_SYNTAX_ERROR)
#define UNSUP(s) REFUSE(s, "0A000", AIRLOCK_E_UNSUPPORTED)
#define FORBID(s) REFUSE(s, "42501", AIRLOCK_E_FORBIDDEN_STATEMENT)

static const struct vcase cases[] = {
	/* Plain reads. */
	READ("SELECT 1"),
	READ("SELECT 1;"),
	READ("select 1 ;  "),
	READ("SELECT 1;;"),
	READ("  SELECT 1  "),
	READ("SELECT"),
	READ("VALUES (1, 'a'), (2, 'b')"),
	READ("TABLE orders"),
	READ("TABLE public.orders"),
	READ("SELECT * FROM orders"),
	READ("SELECT * FROM ORDERS"),
	READ("SELECT * FROM public.orders"),
	READ("SELECT * FROM \"public\".\"orders\""),
	READ("SELECT * FROM \"orders\""),
	READ("SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
	     "WHERE o.amount > 100 ORDER BY o.id LIMIT 50"),
	READ("SELECT * FROM orders o LEFT JOIN products p USING (id) FULL JOIN customers c ON true"),
	READ("SELECT count(*), sum(amount) FILTER (WHERE amount > 1) FROM orders GROUP BY 1 HAVING count(*) > 2"),
	READ("SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY id) FROM orders"),
	READ("SELECT * FROM orders WHERE id IN (SELECT id FROM products)"),
	READ("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM customers)"),
	READ("SELECT (SELECT max(id) FROM products) AS m"),
	READ("SELECT * FROM orders UNION ALL SELECT * FROM products"),
	READ("SELECT id FROM orders INTERSECT SELECT id FROM customers EXCEPT SELECT id FROM products"),
	READ("SELECT * FROM orders o, LATERAL (SELECT * FROM products p WHERE p.id = o.id) x"),
	READ("SELECT * FROM orders TABLESAMPLE SYSTEM (10)"),
	READ("SELECT * FROM ONLY orders"),
	READ("SELECT * FROM generate_series(1, 10) g"),
	READ("SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY[1, 2]))"),
	READ("SELECT * FROM json_to_record('{\"a\":1}') AS x(a int)"),
	READ("SELECT now(), current_user, version(), current_setting('search_path')"),
	READ("SELECT pg_sleep(1)"),
	READ("SELECT pg_catalog.pg_sleep(0.1)"),
	READ("SELECT 'DROP TABLE orders; DELETE FROM x' AS s"),
	READ("SELECT * FROM orders WHERE status = 'UPDATE'"),
	READ("SELECT 'a'';' AS s"),
	READ("SELECT $$;$$"),
	READ("SELECT $tag$ ; DROP TABLE x; $tag$"),
	READ("SELECT E'\\';DROP TABLE x--'"),
	READ("SELECT /* ; DROP TABLE x */ 1"),
	READ("SELECT 1 -- ; DROP TABLE x"),
	READ("SELECT /* outer /* nested ; DROP TABLE x */ still comment */ 1"),
	READ("-- leading comment\nSELECT 1"),
	READ("SELECT 1;  -- trailing comment"),
	READ("SELECT 1 /* ; */ ;"),
	SYNTAX("\xd0\x85"
	       "ELECT 1"),
	TABLE("SELECT * FROM \xd0\xbe"
	      "rders"),
	TABLE("SELECT * FROM ｏrders"),
	READ("SELECT 1::regclass, 'orders'::regclass::oid"),
	READ("SELECT CASE WHEN amount > 0 THEN 'pos' ELSE 'neg' END FROM orders"),
	READ("SELECT * FROM orders ORDER BY id DESC NULLS LAST OFFSET 5 FETCH FIRST 10 ROWS ONLY"),
	READ("SELECT DISTINCT ON (customer_id) * FROM orders"),
	READ("SELECT ARRAY(SELECT id FROM products)"),
	READ("SELECT xmlelement(name foo, 'bar')"),
	READ("SELECT to_json(o) FROM orders o"),
	/* CTEs. */
	READ("WITH x AS (SELECT * FROM orders) SELECT * FROM x"),
	READ("WITH staff_salaries AS (SELECT 1 AS a) SELECT * FROM staff_salaries"),
	READ("WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b, a"),
	READ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t"),
	READ("WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
	READ("WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y) s"),
	READ("WITH x AS (SELECT 1) SELECT * FROM x UNION SELECT * FROM x"),
	READ("WITH x AS MATERIALIZED (SELECT * FROM orders) SELECT * FROM x"),
	READ("SELECT * FROM (WITH s AS (SELECT 1) SELECT * FROM s) q"),
	READ("WITH RECURSIVE a AS (SELECT * FROM staff_salaries), staff_salaries AS (SELECT 1) "
	     "SELECT * FROM a"),
	READ("WITH x AS (SELECT 1) SELECT * FROM (WITH x AS (SELECT * FROM x) SELECT * FROM x) s"),
	READ("WITH pg_class AS (SELECT 1) SELECT * FROM pg_class"),
	READ("SELECT * FROM orders WHERE id IN (WITH c AS (SELECT id FROM customers) SELECT id FROM c)"),
	/* Catalogs. */
	READ("SELECT * FROM pg_class"),
	READ("SELECT * FROM pg_catalog.pg_class"),
	READ("SELECT * FROM information_schema.tables"),
	READ("SELECT * FROM information_schema.columns WHERE table_name = 'orders'"),
	READ("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c "
	     "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
	     "WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default "
	     "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3"),
	READ("SELECT n.nspname as \"Schema\", c.relname as \"Name\", CASE c.relkind WHEN 'r' "
	     "THEN 'table' WHEN 'v' THEN 'view' END as \"Type\", "
	     "pg_catalog.pg_get_userbyid(c.relowner) as \"Owner\" FROM pg_catalog.pg_class c "
	     "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
	     "WHERE c.relkind IN ('r','p','v','m','S','f','') AND n.nspname <> 'pg_catalog' "
	     "AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema' "
	     "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2"),
	READ("SELECT * FROM pg_settings WHERE name = 'search_path'"),
	READ("SELECT * FROM pg_stat_activity"),
	READ("SELECT * FROM pg_tables, pg_views, pg_roles, pg_indexes"),
	/* EXPLAIN. */
	READ("EXPLAIN SELECT * FROM orders"),
	READ("EXPLAIN VERBOSE SELECT * FROM orders"),
	READ("EXPLAIN (COSTS false, FORMAT JSON) SELECT * FROM orders"),
	READ("EXPLAIN (VERBOSE, COSTS, FORMAT YAML) SELECT 1"),
	REFUSE("EXPLAIN ANALYZE SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("EXPLAIN (ANALYZE) SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("EXPLAIN (FORMAT JSON, ANALYZE true) SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("EXPLAIN ANALYSE SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("EXPLAIN (ANALYSE, BUFFERS) SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("EXPLAIN (\"ANALYZE\") SELECT 1", "0A000", AIRLOCK_E_UNSUPPORTED),
	RO("EXPLAIN DELETE FROM orders"),
	RO("EXPLAIN UPDATE orders SET amount = 0"),
	RO("EXPLAIN INSERT INTO orders VALUES (1)"),
	RO("EXPLAIN CREATE TABLE t AS SELECT 1"),
	TABLE("EXPLAIN SELECT * FROM staff_salaries"),
	FUNC("EXPLAIN SELECT nextval('s')"),
	RO("EXPLAIN WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d"),
	UNSUP("EXPLAIN EXECUTE p"),
	/* Empty. */
	{"", PGV_EMPTY, NULL, AIRLOCK_E_NONE},
	{"   \n\t ", PGV_EMPTY, NULL, AIRLOCK_E_NONE},
	{"-- only a comment", PGV_EMPTY, NULL, AIRLOCK_E_NONE},
	{"/* only a comment */", PGV_EMPTY, NULL, AIRLOCK_E_NONE},
	{";", PGV_EMPTY, NULL, AIRLOCK_E_NONE},
	/* Syntax errors. */
	SYNTAX("SELEC 1"),
	/* Parameters Postgres does not take: the deparser would write both as "?". */
	SYNTAX("SELECT $0"),
	SYNTAX("SELECT * FROM orders WHERE id = ?"),
	SYNTAX("SELECT ($1 + (SELECT $0))"),
	SYNTAX("SELECT 1 FROM"),
	SYNTAX("SELECT 'unterminated"),
	SYNTAX("SELECT $$unterminated"),
	SYNTAX("SELECT /* unterminated comment"),
	SYNTAX("DROP"),
	/* Stacked statements. */
	MULTI("SELECT 1; SELECT 2"),
	MULTI("SELECT 'a'';' ; DROP TABLE orders"),
	MULTI("SELECT $$;$$; DELETE FROM orders"),
	MULTI("SELECT $x$ $$ $x$; DELETE FROM orders"),
	MULTI("SELECT E'\\'';DROP TABLE x--'"),
	MULTI("COMMIT; DROP TABLE orders"),
	MULTI("SELECT 1; COMMIT"),
	MULTI("BEGIN; SELECT 1; COMMIT"),
	MULTI("SET x = 1; SELECT 1"),
	MULTI("SELECT 1 /* a */ ; /* b */ SELECT 2"),
	MULTI("SELECT 1; -- trailing\nDELETE FROM orders"),
	/* Writes and DDL. */
	RO("INSERT INTO orders VALUES (1)"),
	RO("UPDATE orders SET amount = 0"),
	RO("DELETE FROM orders"),
	RO("MERGE INTO orders o USING products p ON o.id = p.id WHEN MATCHED THEN DELETE"),
	RO("DROP TABLE orders"),
	RO("DROP VIEW v"),
	RO("TRUNCATE orders"),
	RO("CREATE TABLE t (a int)"),
	RO("CREATE TABLE t AS SELECT 1"),
	RO("CREATE MATERIALIZED VIEW mv AS SELECT 1"),
	RO("CREATE VIEW v AS SELECT 1"),
	RO("CREATE INDEX i ON orders (id)"),
	RO("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
	RO("CREATE EXTENSION dblink"),
	RO("CREATE SCHEMA s"),
	RO("CREATE ROLE r SUPERUSER"),
	RO("ALTER TABLE orders ADD COLUMN x int"),
	RO("ALTER TABLE orders RENAME TO o2"),
	RO("ALTER ROLE r SUPERUSER"),
	RO("GRANT SELECT ON staff_salaries TO public"),
	RO("REVOKE SELECT ON orders FROM public"),
	RO("COMMENT ON TABLE orders IS 'x'"),
	RO("VACUUM orders"),
	RO("VACUUM FULL"),
	RO("ANALYZE orders"),
	RO("CLUSTER orders"),
	RO("REINDEX TABLE orders"),
	RO("REFRESH MATERIALIZED VIEW mv"),
	RO("COPY orders FROM '/tmp/x'"),
	RO("NOTIFY ch, 'x'"),
	RO("SELECT 1 INTO t"),
	RO("SELECT * INTO TEMP t FROM orders"),
	RO("SELECT * FROM orders FOR UPDATE"),
	RO("SELECT * FROM orders FOR SHARE"),
	RO("SELECT * FROM orders FOR NO KEY UPDATE SKIP LOCKED"),
	RO("SELECT * FROM orders FOR KEY SHARE NOWAIT"),
	RO("SELECT * FROM (SELECT * FROM orders FOR UPDATE) s"),
	RO("SELECT (SELECT id FROM orders LIMIT 1 FOR SHARE)"),
	RO("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM products FOR UPDATE)"),
	RO("WITH x AS (SELECT * FROM orders FOR UPDATE) SELECT * FROM x"),
	RO("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d"),
	RO("WITH u AS (UPDATE orders SET amount = 0 RETURNING id) SELECT 1"),
	RO("WITH i AS (INSERT INTO orders VALUES (1) RETURNING *) SELECT * FROM i"),
	RO("WITH a AS (SELECT 1), d AS (DELETE FROM staff_salaries RETURNING *) SELECT * FROM a"),
	RO("SELECT * FROM (WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d) s"),
	RO("WITH x AS (SELECT 1) DELETE FROM orders"),
	RO("WITH d AS (DELETE FROM orders RETURNING *) SELECT nextval('s') FROM staff_salaries"),
	/* Other statement kinds. */
	UNSUP("COPY (SELECT 1) TO '/tmp/out'"),
	UNSUP("CALL p()"),
	FORBID("DO $$BEGIN DELETE FROM orders; END$$"),
	/* A lock a read-only transaction may take is answered without one (pg_dump's); others are writes. */
	RO("LOCK orders"),
	RO("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE"),
	RO("LOCK TABLE orders IN SHARE MODE"),
	{"LOCK TABLE public.orders IN ACCESS SHARE MODE", PGV_LOCK, NULL, AIRLOCK_E_NONE},
	{"LOCK TABLE ONLY orders, customers * IN ROW SHARE MODE NOWAIT", PGV_LOCK, NULL, AIRLOCK_E_NONE},
	TABLE("LOCK TABLE staff_salaries IN ACCESS SHARE MODE"),
	TABLE("LOCK TABLE orders, public.staff_salaries IN ACCESS SHARE MODE"),
	UNSUP("PREPARE p AS SELECT 1"),
	UNSUP("EXECUTE p"),
	UNSUP("LISTEN ch"),
	UNSUP("UNLISTEN *"),
	UNSUP("MOVE BACKWARD 10 IN c"),
	UNSUP("MOVE ABSOLUTE 3 IN c"),
	FORBID("LOAD 'plpgsql'"),
	FORBID("CHECKPOINT"),
	FORBID("ALTER SYSTEM SET work_mem = '1GB'"),
	UNSUP("SET CONSTRAINTS ALL DEFERRED"),
	UNSUP("PREPARE TRANSACTION 'x'"),
	UNSUP("COMMIT PREPARED 'x'"),
	UNSUP("ROLLBACK PREPARED 'x'"),
	UNSUP("COMMIT AND CHAIN"),
	UNSUP("SET TRANSACTION SNAPSHOT '00000003-0000001B-1'"),
	FORBID("SET ROLE postgres"),
	FORBID("SET ROLE NONE"),
	FORBID("SET SESSION AUTHORIZATION postgres"),
	FORBID("SET SESSION AUTHORIZATION DEFAULT"),
	FORBID("RESET ROLE"),
	FORBID("RESET SESSION AUTHORIZATION"),
	FORBID("SET LOCAL ROLE postgres"),
	FORBID("SET \"Role\" TO postgres"),
	FORBID("SET session_authorization = 'postgres'"),
	FORBID("SET session_preload_libraries = 'x'"),
	FORBID("SET local_preload_libraries TO 'x'"),
	RO("SET default_transaction_read_only = off"),
	RO("SET transaction_read_only TO false"),
	RO("SET SESSION default_transaction_read_only = 0"),
	RO("RESET default_transaction_read_only"),
	RO("SET default_transaction_read_only TO DEFAULT"),
	UNSUP("SET TIME ZONE INTERVAL '1 day' HOUR TO MINUTE"),
	UNSUP("SET TIME ZONE INTERVAL '+16:00' HOUR TO MINUTE"),
	UNSUP("SET work_mem FROM CURRENT"),
	/* Denied functions, however spelled. */
	FUNC("SELECT nextval('s')"),
	FUNC("SELECT txid_current()"),
	FUNC("SELECT pg_catalog.pg_current_xact_id()"),
	READ("SELECT txid_current_if_assigned(), pg_current_xact_id_if_assigned()"),
	FUNC("SELECT setval('s', 1)"),
	FUNC("SELECT currval('s')"),
	FUNC("SELECT lastval()"),
	FUNC("SELECT NEXTVAL('s')"),
	FUNC("SELECT pg_catalog.nextval('s')"),
	FUNC("SELECT \"nextval\"('s')"),
	/* set_config() alone is a SET (test_set_config); within a read it stays denied. */
	REFUSE("SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false)", "25006",
	       AIRLOCK_E_NOT_READ_ONLY),
	FUNC("SELECT set_config('search_path', 'x', false), 1"),
	FUNC("SELECT set_config('search_path', 'x', false) FROM orders"),
	FUNC("SELECT set_config('search_path', name, false) FROM customers"),
	FUNC("SELECT public.set_config('search_path', 'x', false)"),
	FUNC("SELECT set_config('search_path', 'x', false) OVER ()"),
	FUNC("SELECT (SELECT set_config('search_path', 'x', false))"),
	FUNC("SELECT * FROM query_to_xml('select * from staff_salaries', true, true, '')"),
	FUNC("SELECT query_to_xmlschema('select 1', true, true, '')"),
	FUNC("SELECT query_to_xml_and_xmlschema('select 1', true, true, '')"),
	FUNC("SELECT table_to_xml('staff_salaries', true, true, '')"),
	FUNC("SELECT schema_to_xml('public', true, true, '')"),
	FUNC("SELECT database_to_xml(true, true, '')"),
	FUNC("SELECT cursor_to_xml('c', 1, true, true, '')"),
	FUNC("SELECT ts_stat('select v from staff_salaries')"),
	FUNC("SELECT ts_rewrite('a'::tsquery, 'select 1')"),
	FUNC("SELECT * FROM dblink('host=evil', 'select 1') AS t(a int)"),
	FUNC("SELECT dblink_connect('host=evil')"),
	FUNC("SELECT dblink_exec('x', 'DROP TABLE orders')"),
	FUNC("SELECT lo_import('/etc/passwd')"),
	FUNC("SELECT lo_export(1, '/tmp/x')"),
	FUNC("SELECT lo_create(0)"),
	FUNC("SELECT lo_get(1)"),
	FUNC("SELECT lo_from_bytea(0, 'x')"),
	FUNC("SELECT loread(0, 10)"),
	FUNC("SELECT lowrite(0, 'x')"),
	FUNC("SELECT pg_read_file('/etc/passwd')"),
	FUNC("SELECT pg_read_binary_file('/etc/passwd')"),
	FUNC("SELECT pg_ls_dir('.')"),
	FUNC("SELECT * FROM pg_ls_waldir()"),
	FUNC("SELECT pg_stat_file('postgresql.conf')"),
	FUNC("SELECT pg_file_write('x', 'y', false)"),
	FUNC("SELECT pg_logdir_ls()"),
	FUNC("SELECT U&\"\\0070g_read_file\"('/etc/passwd')"),
	FUNC("SELECT \"PG_READ_FILE\"('/etc/passwd')"),
	FUNC("SELECT U&\"!0070g_read_file\" UESCAPE '!' ('/etc/passwd')"),
	FUNC("SELECT \"pg_catalog\".\"pg_read_file\"('/etc/passwd')"),
	FUNC("SELECT pg_read_file/**/('/etc/passwd')"),
	FUNC("SELECT pg_advisory_lock(1)"),
	FUNC("SELECT pg_try_advisory_xact_lock(1)"),
	FUNC("SELECT pg_advisory_unlock_all()"),
	FUNC("SELECT pg_notify('ch', 'x')"),
	FUNC("SELECT pg_cancel_backend(1)"),
	FUNC("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"),
	FUNC("SELECT pg_reload_conf()"),
	FUNC("SELECT pg_rotate_logfile()"),
	FUNC("SELECT pg_promote()"),
	FUNC("SELECT pg_switch_wal()"),
	FUNC("SELECT pg_create_restore_point('x')"),
	FUNC("SELECT pg_backup_start('x')"),
	FUNC("SELECT pg_start_backup('x')"),
	FUNC("SELECT pg_create_logical_replication_slot('s', 'test_decoding')"),
	FUNC("SELECT pg_create_physical_replication_slot('s')"),
	FUNC("SELECT pg_drop_replication_slot('s')"),
	FUNC("SELECT * FROM pg_logical_slot_get_changes('s', NULL, NULL)"),
	FUNC("SELECT pg_replication_origin_create('x')"),
	FUNC("SELECT pg_export_snapshot()"),
	FUNC("SELECT pg_stat_reset()"),
	FUNC("SELECT pg_stat_reset_shared('bgwriter')"),
	FUNC("SELECT * FROM orders WHERE id = nextval('s')"),
	FUNC("SELECT * FROM orders ORDER BY nextval('s')"),
	FUNC("SELECT * FROM orders LIMIT nextval('s')"),
	FUNC("SELECT * FROM ROWS FROM (nextval('s'))"),
	FUNC("SELECT (SELECT pg_read_file('/etc/passwd'))"),
	FUNC("WITH x AS (SELECT lo_import('/etc/passwd')) SELECT * FROM x"),
	FUNC("SELECT count(*) FILTER (WHERE nextval('s') > 0) FROM orders"),
	FUNC("SELECT coalesce(NULL, pg_read_file('/etc/passwd'))"),
	FUNC("SELECT * FROM orders WHERE amount > ANY (SELECT setval('s', 1))"),
	/* Relations outside the allowlist, however hidden. */
	TABLE("SELECT * FROM staff_salaries"),
	TABLE("SELECT * FROM STAFF_SALARIES"),
	TABLE("TABLE staff_salaries"),
	TABLE("SELECT * FROM public.staff_salaries"),
	TABLE("SELECT * FROM \"public\".\"staff_salaries\""),
	TABLE("SELECT * FROM \"staff_salaries\""),
	TABLE("SELECT * FROM U&\"staff\\005fsalaries\""),
	TABLE("SELECT * FROM U&\"\\0073taff_salaries\""),
	TABLE("SELECT * FROM \"Orders\""),
	TABLE("SELECT * FROM \"ORDERS\""),
	TABLE("SELECT * FROM other.orders"),
	TABLE("SELECT * FROM orders o JOIN staff_salaries s ON s.id = o.id"),
	TABLE("SELECT * FROM orders, staff_salaries"),
	TABLE("SELECT * FROM orders WHERE id IN (SELECT id FROM staff_salaries)"),
	TABLE("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM staff_salaries)"),
	TABLE("SELECT (SELECT max(salary) FROM staff_salaries)"),
	TABLE("SELECT * FROM orders UNION SELECT * FROM staff_salaries"),
	TABLE("SELECT * FROM staff_salaries UNION SELECT * FROM orders"),
	TABLE("SELECT * FROM orders o, LATERAL (SELECT * FROM staff_salaries s WHERE s.id = o.id) x"),
	TABLE("SELECT * FROM (SELECT * FROM (SELECT * FROM staff_salaries) a) b"),
	TABLE("SELECT ARRAY(SELECT salary FROM staff_salaries)"),
	TABLE("SELECT * FROM orders ORDER BY (SELECT 1 FROM staff_salaries LIMIT 1)"),
	TABLE("SELECT CASE WHEN true THEN (SELECT 1 FROM staff_salaries) END"),
	TABLE("SELECT * FROM staff_salaries TABLESAMPLE BERNOULLI (50)"),
	TABLE("VALUES ((SELECT 1 FROM staff_salaries))"),
	TABLE("WITH x AS (SELECT * FROM staff_salaries) SELECT * FROM x"),
	TABLE("WITH staff_salaries AS (SELECT * FROM staff_salaries) SELECT * FROM staff_salaries"),
	TABLE("WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
	TABLE("WITH a AS (SELECT * FROM staff_salaries), staff_salaries AS (SELECT 1) "
	      "SELECT * FROM a"),
	TABLE("WITH staff_salaries AS (SELECT 1) SELECT * FROM public.staff_salaries"),
	TABLE("WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT * FROM y) SELECT * FROM y) s"),
	TABLE("WITH a AS (SELECT 1) SELECT * FROM public.a"),
	TABLE("WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT 1) SELECT * FROM y) s, staff_salaries"),
	TABLE("SELECT * FROM (WITH staff_salaries AS (SELECT 1) SELECT * FROM staff_salaries) s, staff_salaries"),
	TABLE("WITH a AS (WITH b AS (SELECT 1) SELECT * FROM b) SELECT * FROM b"),
	TABLE("WITH RECURSIVE t AS (SELECT 1) SELECT * FROM t, staff_salaries"),
	TABLE("SELECT * FROM orders WHERE id = (WITH s AS (SELECT 1) SELECT id FROM staff_salaries)"),
	TABLE("SELECT * FROM pg_temp.x"),
	TABLE("SELECT * FROM pg_toast.pg_toast_1"),
	REFUSE("SELECT * FROM otherdb.public.orders", "0A000", AIRLOCK_E_UNSUPPORTED),
	REFUSE("SELECT * FROM postgres.pg_catalog.pg_class", "0A000", AIRLOCK_E_UNSUPPORTED),
	RO("SELECT * FROM staff_salaries FOR UPDATE"),
	FUNC("SELECT nextval('s') FROM staff_salaries"),
};

static const char *kind_name(enum pgv_kind k)
{
	static const char *const names[] = {
		"REFUSED", "EMPTY",    "READ",      "SET",     "RESET",       "SHOW",    "BEGIN",
		"COMMIT",  "ROLLBACK", "SAVEPOINT", "RELEASE", "ROLLBACK_TO", "DISCARD", "SET_TRANSACTION",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static int check_case(const struct pgv_policy *policy, const struct vcase *c)
{
	struct pgv_result r;
	enum pgv_kind k = pgv_validate(policy, c->sql, &r);
	bool ok = k == c->kind && r.kind == k;

	if (ok && c->kind == PGV_REFUSED) {
		ok = strcmp(r.sqlstate, c->sqlstate) == 0 && r.code == c->code && r.message[0] != '\0';
	}
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n  want %s %s %s\n  got  %s %s %s: %s (hint: %s)\n", c->sql,
			kind_name(c->kind), c->sqlstate ? c->sqlstate : "", airlock_err_name(c->code), kind_name(k),
			r.sqlstate, airlock_err_name(r.code), r.message, r.hint);
	}
	return ok ? 0 : 1;
}

static void test_cases(void **state)
{
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		failures += check_case(&default_policy, &cases[i]);
	assert_int_equal(failures, 0);
}

/* Session statements: kind, name, value and flags. */
struct scase {
	const char *sql;
	enum pgv_kind kind;
	const char *name;
	const char *value;
	bool is_local;
	bool set_default;
	bool read_write;
};

static const struct scase session_cases[] = {
	{"SET search_path TO public, \"App\"", PGV_SET, "search_path", "public, \"App\"", false, false, false},
	{"SET search_path = 'public', 'App'", PGV_SET, "search_path", "public, \"App\"", false, false, false},
	{"SET search_path TO public", PGV_SET, "search_path", "public", false, false, false},
	{"SET SCHEMA 'app'", PGV_SET, "search_path", "app", false, false, false},
	{"SET datestyle TO 'ISO'", PGV_SET, "datestyle", "ISO", false, false, false},
	{"SET DateStyle = 'ISO, MDY'", PGV_SET, "datestyle", "ISO, MDY", false, false, false},
	{"SET datestyle = ISO, MDY", PGV_SET, "datestyle", "iso, mdy", false, false, false},
	{"SET TIME ZONE 'UTC'", PGV_SET, "timezone", "UTC", false, false, false},
	{"SET TimeZone TO 'Europe/Paris'", PGV_SET, "timezone", "Europe/Paris", false, false, false},
	{"SET TIME ZONE LOCAL", PGV_SET, "timezone", "", false, true, false},
	{"SET TIME ZONE INTERVAL '+1:00' HOUR TO MINUTE", PGV_SET, "timezone", "<+01>-01", false, false, false},
	{"SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE", PGV_SET, "timezone", "<+05:30>-05:30", false, false, false},
	{"SET TIME ZONE INTERVAL '-08:00' HOUR TO MINUTE", PGV_SET, "timezone", "<-08>+08", false, false, false},
	{"SET TIME ZONE INTERVAL '5 hours' HOUR TO MINUTE", PGV_SET, "timezone", "<+05>-05", false, false, false},
	{"SET TIME ZONE DEFAULT", PGV_SET, "timezone", "", false, true, false},
	{"SET NAMES 'UTF8'", PGV_SET, "client_encoding", "UTF8", false, false, false},
	{"SET client_encoding TO 'UTF8'", PGV_SET, "client_encoding", "UTF8", false, false, false},
	{"SET extra_float_digits = 3", PGV_SET, "extra_float_digits", "3", false, false, false},
	{"SET extra_float_digits = -2", PGV_SET, "extra_float_digits", "-2", false, false, false},
	{"SET extra_float_digits = 0", PGV_SET, "extra_float_digits", "0", false, false, false},
	{"SET seed TO 0.5", PGV_SET, "seed", "0.5", false, false, false},
	{"SET statement_timeout = '5s'", PGV_SET, "statement_timeout", "5s", false, false, false},
	{"SET LOCAL work_mem = '64MB'", PGV_SET, "work_mem", "64MB", true, false, false},
	{"SET SESSION application_name = 'psql'", PGV_SET, "application_name", "psql", false, false, false},
	{"SET enable_seqscan = off", PGV_SET, "enable_seqscan", "off", false, false, false},
	{"SET enable_seqscan TO true", PGV_SET, "enable_seqscan", "true", false, false, false},
	{"SET work_mem TO DEFAULT", PGV_SET, "work_mem", "", false, true, false},
	{"SET default_transaction_read_only = on", PGV_SET, "default_transaction_read_only", "on", false, false, false},
	{"SET XML OPTION DOCUMENT", PGV_SET, "xmloption", "DOCUMENT", false, false, false},
	{"RESET search_path", PGV_RESET, "search_path", "", false, false, false},
	{"RESET ALL", PGV_RESET, "all", "", false, false, false},
	{"RESET TIME ZONE", PGV_RESET, "timezone", "", false, false, false},
	{"SHOW search_path", PGV_SHOW, "search_path", "", false, false, false},
	{"SHOW ALL", PGV_SHOW, "all", "", false, false, false},
	{"SHOW TIME ZONE", PGV_SHOW, "timezone", "", false, false, false},
	{"SHOW TRANSACTION ISOLATION LEVEL", PGV_SHOW, "transaction_isolation", "", false, false, false},
	{"SHOW server_version", PGV_SHOW, "server_version", "", false, false, false},
	{"show \"DateStyle\"", PGV_SHOW, "datestyle", "", false, false, false},
	{"BEGIN", PGV_BEGIN, "", "", false, false, false},
	{"BEGIN;", PGV_BEGIN, "", "", false, false, false},
	{"BEGIN TRANSACTION", PGV_BEGIN, "", "", false, false, false},
	{"BEGIN READ ONLY", PGV_BEGIN, "", "", false, false, false},
	{"BEGIN READ WRITE", PGV_BEGIN, "", "", false, false, true},
	{"BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE", PGV_BEGIN, "", "serializable", false, false, true},
	{"START TRANSACTION", PGV_BEGIN, "", "", false, false, false},
	{"START TRANSACTION ISOLATION LEVEL REPEATABLE READ", PGV_BEGIN, "", "repeatable read", false, false, false},
	{"START TRANSACTION READ ONLY, DEFERRABLE", PGV_BEGIN, "", "", false, false, false},
	{"COMMIT", PGV_COMMIT, "", "", false, false, false},
	{"COMMIT WORK", PGV_COMMIT, "", "", false, false, false},
	{"END", PGV_COMMIT, "", "", false, false, false},
	{"ROLLBACK", PGV_ROLLBACK, "", "", false, false, false},
	{"ABORT", PGV_ROLLBACK, "", "", false, false, false},
	{"SAVEPOINT sp1", PGV_SAVEPOINT, "sp1", "", false, false, false},
	{"SAVEPOINT \"My Sp\"", PGV_SAVEPOINT, "My Sp", "", false, false, false},
	{"RELEASE sp1", PGV_RELEASE, "sp1", "", false, false, false},
	{"RELEASE SAVEPOINT sp1", PGV_RELEASE, "sp1", "", false, false, false},
	{"ROLLBACK TO sp1", PGV_ROLLBACK_TO, "sp1", "", false, false, false},
	{"ROLLBACK TO SAVEPOINT sp1", PGV_ROLLBACK_TO, "sp1", "", false, false, false},
	{"DISCARD ALL", PGV_DISCARD, "all", "", false, false, false},
	{"DISCARD PLANS", PGV_DISCARD, "plans", "", false, false, false},
	{"DISCARD SEQUENCES", PGV_DISCARD, "sequences", "", false, false, false},
	{"DISCARD TEMP", PGV_DISCARD, "temp", "", false, false, false},
	{"DEALLOCATE p", PGV_DEALLOCATE, "p", "", false, false, false},
	{"DEALLOCATE PREPARE \"_pg3_0\"", PGV_DEALLOCATE, "_pg3_0", "", false, false, false},
	{"DEALLOCATE ALL", PGV_DEALLOCATE, "", "", false, false, false},
	{"SET TRANSACTION READ ONLY", PGV_SET_TRANSACTION, "transaction", "", false, false, false},
	{"SET TRANSACTION READ WRITE", PGV_SET_TRANSACTION, "transaction", "", false, false, true},
	{"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", PGV_SET_TRANSACTION, "transaction", "read committed", false,
	 false, false},
	{"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", PGV_SET_TRANSACTION, "session_characteristics", "",
	 false, false, false},
	{"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", PGV_SET_TRANSACTION, "session_characteristics", "",
	 false, false, true},
};

/* SELECT set_config('name', 'value', is_local) alone: a SET answered with the new value. */
static void test_set_config(void **state)
{
	struct pgv_result r;

	(void)state;
	assert_int_equal(pgv_validate(NULL, "SELECT pg_catalog.set_config('statement_timeout', '30000', false)", &r),
			 PGV_SET);
	assert_true(r.set_config);
	assert_false(r.is_local);
	assert_string_equal(r.name, "statement_timeout");
	assert_string_equal(r.value, "30000");
	assert_string_equal(r.column, "set_config");
	assert_int_equal(pgv_validate(NULL, "select SET_CONFIG('Search_Path', '', true) AS sp", &r), PGV_SET);
	assert_true(r.is_local);
	assert_string_equal(r.name, "search_path");
	assert_string_equal(r.value, "");
	assert_string_equal(r.column, "sp");
	assert_int_equal(pgv_validate(NULL, "SELECT set_config('role', 'postgres', false)", &r), PGV_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_STATEMENT);
	assert_int_equal(pgv_validate(NULL, "SELECT set_config('search_path', 'x', 'no')", &r), PGV_REFUSED);
	/* pg_dump's form: the row of pg_settings the setting names. */
	assert_int_equal(
		pgv_validate(NULL,
			     "SELECT set_config(name, 'view, foreign-table', false) FROM pg_settings WHERE name = "
			     "'restrict_nonsystem_relation_kind'",
			     &r),
		PGV_SET);
	assert_string_equal(r.name, "restrict_nonsystem_relation_kind");
	assert_string_equal(r.value, "view, foreign-table");
	assert_string_equal(r.column, "set_config");
	assert_int_equal(pgv_validate(NULL,
				      "SELECT set_config(name, '0', true) FROM pg_catalog.pg_settings WHERE name = "
				      "'statement_timeout'",
				      &r),
			 PGV_SET);
	assert_true(r.is_local);
	/* Any other shape is a read, where set_config is denied. */
	static const char *const others[] = {
		"SELECT set_config(name, '0', false) FROM pg_settings WHERE name LIKE 'statement%'",
		"SELECT set_config(name, '0', false) FROM pg_settings",
		"SELECT set_config(name, '0', false) FROM pg_settings s WHERE name = 'statement_timeout'",
		"SELECT set_config(name, '0', false) FROM ONLY pg_settings WHERE name = 'statement_timeout'",
		"SELECT set_config(setting, '0', false) FROM pg_settings WHERE name = 'statement_timeout'",
		"SELECT set_config(name, '0', false) FROM public.pg_settings WHERE name = 'statement_timeout'",
		"SELECT set_config(name, '0', false) FROM pg_settings WHERE setting = 'statement_timeout'",
		"SELECT set_config(name, '0', false) FROM pg_settings, pg_class WHERE name = 'statement_timeout'",
		"SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'statement_timeout' LIMIT 1",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		assert_int_equal(pgv_validate(NULL, others[i], &r), PGV_REFUSED);
		assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	}
}

static void test_session(void **state)
{
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(session_cases) / sizeof(session_cases[0]); i++) {
		const struct scase *c = &session_cases[i];
		struct pgv_result r;

		/* READ ONLY, said in a BEGIN or SET TRANSACTION, is flagged (the block refuses writes). */
		bool read_only =
			(c->kind == PGV_BEGIN || c->kind == PGV_SET_TRANSACTION) && strstr(c->sql, "READ ONLY");

		pgv_validate(&default_policy, c->sql, &r);
		if (r.kind != c->kind || strcmp(r.name, c->name) != 0 || strcmp(r.value, c->value) != 0 ||
		    r.is_local != c->is_local || r.set_default != c->set_default || r.read_write != c->read_write ||
		    r.read_only != read_only) {
			fprintf(stderr,
				"FAIL: %s\n  want %s name=%s value=%s local=%d default=%d rw=%d\n"
				"  got  %s name=%s value=%s local=%d default=%d rw=%d (%s)\n",
				c->sql, kind_name(c->kind), c->name, c->value, c->is_local, c->set_default,
				c->read_write, kind_name(r.kind), r.name, r.value, r.is_local, r.set_default,
				r.read_write, r.message);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* search_path resolution with other policies. */
static void test_search_path(void **state)
{
	static const char *const t_app[] = {"app.*", "public.orders", "pg_catalog.pg_class"};
	static const char *const p_app_public[] = {"app", "public"};
	static const char *const p_public_app[] = {"public", "app"};
	static const char *const p_explicit[] = {"public", "pg_catalog"};
	static const char *const p_user[] = {"$user", "public"};
	static const char *const p_empty[] = {""};
	struct pgv_policy p = {.tables = t_app, .ntables = 3};
	static const struct vcase app_public[] = {
		/* orders: app.orders allowed (app.*), public.orders allowed. */
		READ("SELECT * FROM orders"),
		/* widgets: app allows it, but public.widgets is not allowed. */
		TABLE("SELECT * FROM widgets"),
		READ("SELECT * FROM app.widgets"),
		READ("SELECT * FROM pg_class"),
		TABLE("SELECT * FROM pg_namespace"),
		TABLE("SELECT * FROM pg_catalog.pg_namespace"),
		READ("SELECT * FROM pg_catalog.pg_class"),
		/* Not a catalog relation: resolved through app and public. */
		TABLE("SELECT * FROM pg_my_table"),
	};
	static const struct vcase explicit_catalog[] = {
		/* pg_catalog after public: public.pg_class could shadow it. */
		TABLE("SELECT * FROM pg_class"),
		READ("SELECT * FROM orders"),
	};
	static const struct vcase user_path[] = {
		TABLE("SELECT * FROM orders"),
		READ("SELECT * FROM public.orders"),
	};
	static const struct vcase empty_path[] = {
		READ("SELECT * FROM orders"),
		READ("SELECT * FROM pg_class"),
		TABLE("SELECT * FROM public.widgets"),
	};
	static const char *const none[] = {NULL};
	static const struct vcase empty_allowlist[] = {
		TABLE("SELECT * FROM orders"),
		TABLE("SELECT * FROM pg_class"),
		TABLE("SELECT * FROM information_schema.tables"),
		READ("SELECT 1"),
		READ("WITH x AS (SELECT 1) SELECT * FROM x"),
	};
	int failures = 0;
	size_t i;

	(void)state;
	p.search_path = p_app_public;
	p.nsearch_path = 2;
	for (i = 0; i < sizeof(app_public) / sizeof(app_public[0]); i++)
		failures += check_case(&p, &app_public[i]);
	p.search_path = p_public_app;
	failures += check_case(&p, &app_public[0]);
	failures += check_case(&p, &app_public[1]);
	p.search_path = p_explicit;
	for (i = 0; i < sizeof(explicit_catalog) / sizeof(explicit_catalog[0]); i++)
		failures += check_case(&p, &explicit_catalog[i]);
	p.search_path = p_user;
	for (i = 0; i < sizeof(user_path) / sizeof(user_path[0]); i++)
		failures += check_case(&p, &user_path[i]);
	p.search_path = p_empty;
	p.nsearch_path = 0;
	for (i = 0; i < sizeof(empty_path) / sizeof(empty_path[0]); i++)
		failures += check_case(&p, &empty_path[i]);
	p.search_path = p_empty;
	p.nsearch_path = 1;
	failures += check_case(&p, &empty_path[0]);
	p.tables = none;
	p.ntables = 0;
	p.search_path = default_path;
	for (i = 0; i < sizeof(empty_allowlist) / sizeof(empty_allowlist[0]); i++)
		failures += check_case(&p, &empty_allowlist[i]);
	assert_int_equal(failures, 0);
}

static void test_messages(void **state)
{
	struct pgv_result r;

	(void)state;
	assert_int_equal(pgv_validate(&default_policy, "SELECT * FROM staff_salaries", &r), PGV_REFUSED);
	assert_string_equal(r.message, "table \"staff_salaries\" is not allowed");
	assert_string_equal(r.hint, "allowed tables: public.orders, public.customers, "
				    "public.products, pg_catalog.*, information_schema.*");
	assert_int_equal(r.cursor_pos, 15);

	pgv_validate(&default_policy, "SELECT * FROM public.staff_salaries", &r);
	assert_string_equal(r.message, "table \"public.staff_salaries\" is not allowed");

	pgv_validate(&default_policy, "SELECT 1; DROP TABLE orders", &r);
	assert_int_equal(r.code, AIRLOCK_E_MULTI_STATEMENT);
	assert_non_null(strstr(r.hint, "one statement per query"));
	assert_int_equal(r.cursor_pos, 10);

	pgv_validate(&default_policy, "SELECT 1 FROM", &r);
	assert_int_equal(r.code, AIRLOCK_E_SYNTAX_ERROR);
	assert_string_equal(r.message, "syntax error at end of input");
	assert_int_equal(r.cursor_pos, 14);

	pgv_validate(&default_policy, "SELECT U&\"\\0070g_read_file\"('/etc/passwd')", &r);
	assert_non_null(strstr(r.message, "pg_read_file"));
	assert_non_null(strstr(r.message, "files"));
	assert_int_equal(r.cursor_pos, 8);

	/* Cursor positions count characters, not bytes. */
	pgv_validate(&default_policy, "SELECT 'é', nextval('s')", &r);
	assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	assert_int_equal(r.cursor_pos, 13);

	pgv_validate(&default_policy, "DROP TABLE orders", &r);
	assert_non_null(strstr(r.message, "DROP TABLE"));
	assert_non_null(strstr(r.message, "SELECT"));

	pgv_validate(&default_policy, "CREATE MATERIALIZED VIEW v AS SELECT 1", &r);
	assert_non_null(strstr(r.message, "CREATE MATERIALIZED VIEW"));

	pgv_validate(&default_policy, "SET ROLE postgres", &r);
	assert_string_equal(r.sqlstate, "42501");
	assert_non_null(strstr(r.message, "SET ROLE"));

	pgv_validate(&default_policy, "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", &r);
	assert_non_null(strstr(r.message, "DELETE"));

	/* Writes outrank functions, which outrank relations. */
	pgv_validate(&default_policy,
		     "SELECT nextval('s') FROM staff_salaries WHERE id IN "
		     "(SELECT id FROM orders FOR UPDATE)",
		     &r);
	assert_int_equal(r.code, AIRLOCK_E_NOT_READ_ONLY);
}

static void test_search_path_hint(void **state)
{
	static const char *const tables[] = {"public.widgets"};
	static const char *const path[] = {"app", "public"};
	struct pgv_policy p = {.tables = tables, .ntables = 1, .search_path = path, .nsearch_path = 2};
	struct pgv_result r;

	(void)state;
	pgv_validate(&p, "SELECT * FROM widgets", &r);
	assert_int_equal(r.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
	assert_non_null(strstr(r.message, "\"app\""));
	assert_non_null(strstr(r.hint, "public.widgets"));
}

static void test_long_hint_is_cut(void **state)
{
	static const char *tables[200];
	static char names[200][32];
	struct pgv_policy p = {.tables = tables, .ntables = 200, .search_path = default_path, .nsearch_path = 1};
	struct pgv_result r;
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "public.table_number_%zu", i);
		tables[i] = names[i];
	}
	pgv_validate(&p, "SELECT * FROM secret", &r);
	assert_int_equal(r.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
	assert_true(strlen(r.hint) < sizeof(r.hint));
	assert_non_null(strstr(r.hint, "..."));
}

static void test_fingerprint(void **state)
{
	struct pgv_result a, b, c;

	(void)state;
	pgv_validate(&default_policy, "SELECT * FROM orders WHERE id = 1", &a);
	pgv_validate(&default_policy, "select * from orders where id = 42", &b);
	pgv_validate(&default_policy, "SELECT * FROM customers WHERE id = 1", &c);
	assert_int_not_equal(a.fingerprint, 0);
	assert_true(a.fingerprint == b.fingerprint);
	assert_true(a.fingerprint != c.fingerprint);
	pgv_validate(&default_policy, "SELECT * FROM staff_salaries", &c);
	assert_int_not_equal(c.fingerprint, 0);
}

static void test_tables_sorted(void **state)
{
	(void)state;
	assert_true(pgv_function_table_sorted());
	assert_true(pgv_catalog_table_sorted());
	assert_true(pgv_catalog_has_relation("pg_class"));
	assert_true(pgv_catalog_has_relation("pg_stat_user_tables"));
	assert_false(pgv_catalog_has_relation("orders"));
	assert_non_null(pgv_function_denied("pg_advisory_xact_lock_shared"));
	assert_non_null(pgv_function_denied("dblink"));
	assert_null(pgv_function_denied("pg_sleep"));
	assert_null(pgv_function_denied("now"));
	assert_null(pgv_function_denied("lower"));
}

static void test_null_and_garbage(void **state)
{
	struct pgv_result r;
	char big[70000];

	(void)state;
	assert_int_equal(pgv_validate(&default_policy, NULL, &r), PGV_REFUSED);
	assert_int_equal(pgv_validate(&default_policy, "\xff\xfe SELECT", &r), PGV_REFUSED);
	assert_int_equal(pgv_validate(&default_policy, "SELECT '\xff'", &r), PGV_REFUSED);
	assert_string_equal(r.sqlstate, "22021");
	assert_int_equal(pgv_validate(&default_policy, "SELECT * FROM \"\xff\"", &r), PGV_REFUSED);
	memset(big, '(', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "SELECT ", 7);
	assert_int_equal(pgv_validate(&default_policy, big, &r), PGV_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_set_config),
		cmocka_unit_test(test_search_path),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_search_path_hint),
		cmocka_unit_test(test_long_hint_is_cut),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_tables_sorted),
		cmocka_unit_test(test_null_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
