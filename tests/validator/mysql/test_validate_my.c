/*
 * test_validate_my: table-driven cases for the MySQL/MariaDB statement
 * validator: reads that pass, refusals with their errno and code (the
 * public bypass classes included: comment and quoting tricks, stacked
 * statements, executable comments, INTO OUTFILE, locking reads, file and
 * lock functions, tables hidden in joins, subqueries, CTEs and SHOW /
 * DESCRIBE), session statements and what they carry, local selects, and
 * malformed input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_funcs.h"

static const char *const default_tables[] = {
	"shop.orders",
	"shop.customers",
	"shop.products",
	"information_schema.*",
};

enum { F_ANSI = 1, F_NOBS = 2, F_NODB = 4, F_SLEEP = 8, F_BENCH = 16 };

static struct vmy_policy make_policy(unsigned flags)
{
	struct vmy_policy p = {
		.user = "agent",
		.database = (flags & F_NODB) ? NULL : "shop",
		.tables = default_tables,
		.ntables = sizeof(default_tables) / sizeof(default_tables[0]),
		.allow_sleep = (flags & F_SLEEP) != 0,
		.allow_benchmark = (flags & F_BENCH) != 0,
		.no_backslash_escapes = (flags & F_NOBS) != 0,
		.ansi_quotes = (flags & F_ANSI) != 0,
	};

	return p;
}

struct vcase {
	const char *sql;
	enum vmy_kind kind;
	uint16_t my_errno;     /* refusals only */
	enum airlock_err code; /* refusals only */
	unsigned flags;
};

#define K(s, k)                            \
	{                                  \
		s, k, 0, AIRLOCK_E_NONE, 0 \
	}
#define READ(s) K(s, VMY_READ)
#define REF(s, e, c)                    \
	{                               \
		s, VMY_REFUSED, e, c, 0 \
	}
#define RO(s) REF(s, 1792, AIRLOCK_E_NOT_READ_ONLY)
#define MULTI(s) REF(s, 1064, AIRLOCK_E_MULTI_STATEMENT)
#define EXEC(s) REF(s, 1064, AIRLOCK_E_EXECUTABLE_COMMENT)
#define SYNTAX(s) REF(s, 1064, AIRLOCK_E_SYNTAX)
#define TABLE(s) REF(s, 1142, AIRLOCK_E_TABLE_NOT_ALLOWED)
#define DB(s) REF(s, 1044, AIRLOCK_E_TABLE_NOT_ALLOWED)
#define FUNC(s) REF(s, 1370, AIRLOCK_E_FORBIDDEN_FUNCTION)
#define DENIED(s) REF(s, 1227, AIRLOCK_E_NOT_ALLOWED)
#define UNSUP(s) REF(s, 1235, AIRLOCK_E_UNSUPPORTED)
#define READ_F(s, f)                              \
	{                                         \
		s, VMY_READ, 0, AIRLOCK_E_NONE, f \
	}
#define REF_F(s, e, c, f)               \
	{                               \
		s, VMY_REFUSED, e, c, f \
	}

static const struct vcase cases[] = {
	/* Plain reads. */
	READ("SELECT 1"),
	READ("SELECT 1;"),
	READ("select 1 ;  "),
	READ("SELECT 1;;"),
	READ("SELECT 1; -- trailing"),
	READ("SELECT 1; /* trailing */ ;"),
	READ("  SELECT 1  "),
	READ("SELECT * FROM orders"),
	READ("SELECT * FROM shop.orders"),
	READ("SELECT * FROM `shop`.`orders`"),
	READ("SELECT * FROM `orders`"),
	READ("SELECT * FROM .orders"),
	READ("SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
	     "WHERE o.amount > 100 ORDER BY o.id LIMIT 50"),
	READ("SELECT * FROM orders o LEFT OUTER JOIN customers c USING (id) NATURAL JOIN products"),
	READ("SELECT * FROM orders o RIGHT JOIN customers c ON 1 CROSS JOIN products p"),
	READ("SELECT * FROM orders t1 STRAIGHT_JOIN products t2 ON t1.a = t2.a"),
	READ("SELECT * FROM orders a JOIN customers b JOIN products c ON b.x = c.x ON a.y = b.y"),
	READ("SELECT * FROM (orders, customers)"),
	READ("SELECT * FROM (orders o JOIN (customers c, products p) ON 1)"),
	READ("SELECT STRAIGHT_JOIN DISTINCT SQL_NO_CACHE * FROM orders"),
	READ("SELECT * FROM orders USE INDEX (PRIMARY) FORCE KEY FOR ORDER BY (idx) IGNORE INDEX () "
	     "WHERE 1"),
	READ("SELECT * FROM orders PARTITION (p0, p1) AS o"),
	READ("SELECT count(*), sum(amount) FROM orders GROUP BY 1 WITH ROLLUP HAVING count(*) > 2"),
	READ("SELECT id, ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) FROM orders WINDOW w AS (ORDER BY a)"),
	READ("SELECT * FROM orders WHERE id IN (SELECT id FROM products)"),
	READ("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM customers)"),
	READ("SELECT (SELECT max(id) FROM products) AS m"),
	READ("SELECT * FROM orders WHERE a = ANY (SELECT a FROM products)"),
	READ("SELECT * FROM orders UNION ALL SELECT * FROM products"),
	READ("SELECT id FROM orders INTERSECT SELECT id FROM customers EXCEPT SELECT id FROM products"),
	READ("(SELECT 1) UNION ALL (SELECT 2) ORDER BY 1 LIMIT 1"),
	READ("((SELECT 1))"),
	READ("SELECT * FROM (SELECT * FROM orders) AS d"),
	READ("SELECT * FROM ((SELECT 1) UNION (SELECT 2)) d"),
	READ("SELECT * FROM orders o, LATERAL (SELECT * FROM products p WHERE p.id = o.id) x"),
	READ("SELECT SUBSTRING(name FROM 2 FOR 3), TRIM(LEADING 'x' FROM name), EXTRACT(YEAR FROM d), "
	     "MID(n FROM 1) FROM orders"),
	READ("SELECT CAST(a AS CHAR CHARACTER SET utf8mb4), CONVERT(a USING utf8mb4) FROM orders"),
	READ("SELECT GROUP_CONCAT(a ORDER BY b SEPARATOR ',') FROM orders"),
	READ("SELECT JSON_VALUE(a, '$.x' DEFAULT 1 ON EMPTY) FROM orders"),
	READ("SELECT * FROM customers WHERE MATCH(a) AGAINST ('x' IN BOOLEAN MODE WITH QUERY EXPANSION)"),
	READ("SELECT * FROM orders ORDER BY id OFFSET 1 ROWS FETCH FIRST 2 ROWS WITH TIES"),
	READ("SELECT * FROM orders LIMIT 10 OFFSET 5"),
	READ("SELECT * FROM orders LIMIT ROWS EXAMINED 1000"),
	READ("SELECT CASE WHEN amount > 0 THEN 'pos' ELSE 'neg' END FROM orders"),
	READ("SELECT DATE_ADD(d, INTERVAL 1 DAY), IF(a, LEFT(b, 1), RIGHT(b, 2)) FROM orders"),
	READ("SELECT 1 FROM dual WHERE 1"),
	READ("SELECT a.b.c FROM orders a"),
	READ("SELECT @x, @`x`, @'y', @\"z\""),
	READ("SELECT now(), version(), database(), connection_id(), last_insert_id(), rand()"),
	READ("SELECT sleep_time, user_id, `user`, user FROM orders"),
	READ("SELECT 'DROP TABLE orders; DELETE FROM x' AS s"),
	READ("SELECT * FROM orders WHERE status = 'UPDATE'"),
	READ("SELECT 'a'';' AS s, \"b\"\";\" AS t"),
	READ("SELECT 'a\\';' AS s"),
	READ("SELECT /* ; DROP TABLE x */ 1"),
	READ("SELECT 1 -- ; DROP TABLE x"),
	READ("SELECT 1 # ; DROP TABLE x"),
	READ("SELECT 1 #\r; DROP TABLE x"),
	READ("-- leading comment\nSELECT 1"),
	READ("SELECT 1--1"),
	READ("SELECT 1 --\t; DROP TABLE x"),
	READ("SELECT `a;b'c\"` FROM orders"),
	READ("SELECT `DROP TABLE x; --` FROM orders"),
	READ("SELECT 0x1F, 0b01, X'0A', B'1', N'x', _utf8mb4'y', 1e5, .5"),
	READ("SELECT 0x1g FROM orders"),
	READ("SELECT * FROM orders WHERE a = ?"),
	READ("SELECT caf\xc3\xa9 FROM orders"),
	READ("SELECT @@version, @@session.sql_mode, @@local.autocommit, @@SESSION . time_zone, 1"),
	READ("SELECT @@`version_comment`, 1"),
	READ("SELECT * FROM information_schema.tables"),
	READ("SELECT * FROM INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'orders'"),
	READ("SELECT * FROM Information_Schema.Tables"),
	/* CTEs. */
	READ("WITH x AS (SELECT * FROM orders) SELECT * FROM x"),
	READ("WITH staff_salaries AS (SELECT 1 AS a) SELECT * FROM staff_salaries"),
	/* MariaDB compares CTE names without case. */
	READ("WITH Top AS (SELECT * FROM orders LIMIT 3) SELECT * FROM top"),
	READ("WITH STAFF_SALARIES AS (SELECT 1 AS a) SELECT * FROM staff_salaries"),
	READ("WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b, a"),
	READ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t"),
	READ("WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
	READ("WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y) s"),
	READ("WITH x AS (SELECT 1) SELECT * FROM x UNION SELECT * FROM x"),
	READ("SELECT * FROM orders WHERE id IN (WITH c AS (SELECT id FROM customers) SELECT id FROM c)"),
	READ("WITH x AS (SELECT 1) SELECT * FROM orders WHERE id IN (SELECT * FROM x)"),
	TABLE("WITH staff_salaries AS (SELECT * FROM staff_salaries) SELECT * FROM staff_salaries"),
	TABLE("WITH x AS (SELECT 1) SELECT * FROM shop.x"),
	TABLE("WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
	READ("WITH x AS (SELECT 1) SELECT * FROM X"), /* MariaDB: the CTE, whatever the case */
	TABLE("SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) s, x"),
	TABLE("(WITH s AS (SELECT 1) SELECT * FROM s) UNION SELECT * FROM s"),
	TABLE("WITH x AS (SELECT 1) SELECT * FROM x WHERE 1 IN (SELECT 1 FROM staff_salaries)"),
	RO("WITH x AS (SELECT 1) DELETE FROM orders"),
	RO("WITH x AS (SELECT 1) UPDATE orders SET a = 1"),
	/* EXPLAIN / DESCRIBE. */
	K("EXPLAIN SELECT * FROM orders", VMY_READ),
	K("EXPLAIN EXTENDED SELECT * FROM orders", VMY_READ),
	K("EXPLAIN PARTITIONS SELECT 1", VMY_READ),
	K("EXPLAIN FORMAT=JSON SELECT * FROM orders", VMY_READ),
	K("DESCRIBE SELECT 1", VMY_READ),
	K("DESC orders", VMY_READ),
	K("DESCRIBE orders id", VMY_READ),
	K("DESCRIBE shop.orders 'i%'", VMY_READ),
	K("EXPLAIN orders", VMY_READ),
	UNSUP("EXPLAIN ANALYZE SELECT 1"),
	UNSUP("ANALYZE SELECT 1"),
	UNSUP("ANALYZE FORMAT=JSON SELECT 1"),
	RO("ANALYZE TABLE orders"),
	RO("EXPLAIN DELETE FROM orders"),
	RO("EXPLAIN UPDATE orders SET a = 1"),
	RO("EXPLAIN INSERT INTO orders VALUES (1)"),
	RO("EXPLAIN FORMAT=JSON REPLACE INTO orders VALUES (1)"),
	DENIED("EXPLAIN FOR CONNECTION 1"),
	TABLE("EXPLAIN SELECT * FROM staff_salaries"),
	TABLE("EXPLAIN FORMAT=JSON SELECT * FROM staff_salaries"),
	TABLE("DESCRIBE staff_salaries"),
	TABLE("DESC shop.staff_salaries"),
	TABLE("EXPLAIN staff_salaries"),
	SYNTAX("EXPLAIN FORMAT=JSON INTO @x SELECT 1"),
	/* SHOW that runs. */
	K("SHOW DATABASES", VMY_READ),
	K("SHOW AIRLOCK POLICY", VMY_SHOW_POLICY),
	K("show airlock policy;", VMY_SHOW_POLICY),
	K("SHOW SCHEMAS LIKE 's%'", VMY_READ),
	K("SHOW TABLES", VMY_READ),
	K("SHOW FULL TABLES FROM shop LIKE 'o%'", VMY_READ),
	K("SHOW TABLES IN shop WHERE Tables_in_shop = 'orders'", VMY_READ),
	K("SHOW TABLE STATUS", VMY_READ),
	K("SHOW TABLE STATUS FROM shop LIKE 'orders'", VMY_READ),
	K("SHOW COLUMNS FROM orders", VMY_READ),
	K("SHOW FULL COLUMNS FROM orders FROM shop", VMY_READ),
	K("SHOW FIELDS IN shop.orders LIKE 'i%'", VMY_READ),
	K("SHOW EXTENDED FULL COLUMNS FROM orders", VMY_READ),
	K("SHOW INDEX FROM orders", VMY_READ),
	K("SHOW KEYS IN orders IN shop WHERE Key_name = 'PRIMARY'", VMY_READ),
	K("SHOW INDEXES FROM shop.orders", VMY_READ),
	K("SHOW CREATE TABLE orders", VMY_READ),
	K("SHOW CREATE TABLE `shop`.`orders`", VMY_READ),
	K("SHOW CHARACTER SET", VMY_READ),
	K("SHOW CHARSET LIKE 'utf8%'", VMY_READ),
	K("SHOW COLLATION WHERE Charset = 'utf8mb4'", VMY_READ),
	K("SHOW ENGINES", VMY_READ),
	K("SHOW STORAGE ENGINES", VMY_READ),
	K("SHOW VARIABLES", VMY_SHOW_VARIABLES),
	K("SHOW WARNINGS", VMY_SHOW_WARNINGS),
	K("SHOW ERRORS", VMY_SHOW_ERRORS),
	K("SHOW COUNT(*) WARNINGS", VMY_SHOW_WARNINGS),
	K("SHOW COUNT(*) ERRORS", VMY_SHOW_ERRORS),
	TABLE("SHOW COLUMNS FROM staff_salaries"),
	TABLE("SHOW COLUMNS FROM orders FROM mysql"),
	TABLE("SHOW INDEX FROM staff_salaries"),
	TABLE("SHOW CREATE TABLE staff_salaries"),
	TABLE("SHOW CREATE TABLE mysql.user"),
	TABLE("SHOW TABLES WHERE 1 IN (SELECT 1 FROM staff_salaries)"),
	TABLE("SHOW DATABASES WHERE (SELECT count(*) FROM staff_salaries) > 0"),
	DB("SHOW TABLES FROM mysql"),
	DB("SHOW TABLE STATUS IN mysql"),
	SYNTAX("SHOW COLUMNS FROM shop.orders FROM shop"),
	DENIED("SHOW GRANTS"),
	DENIED("SHOW GRANTS FOR CURRENT_USER"),
	DENIED("SHOW PROCESSLIST"),
	DENIED("SHOW FULL PROCESSLIST"),
	/* The session's own status (its TLS) is answered here; the server's is not shown. */
	K("SHOW STATUS", VMY_SHOW_STATUS),
	K("SHOW SESSION STATUS LIKE 'Ssl_cipher'", VMY_SHOW_STATUS),
	K("SHOW LOCAL STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')", VMY_SHOW_STATUS),
	DENIED("SHOW GLOBAL STATUS"),
	DENIED("SHOW GLOBAL STATUS LIKE 'Ssl_cipher'"),
	DENIED("SHOW GLOBAL VARIABLES"),
	DENIED("SHOW MASTER STATUS"),
	DENIED("SHOW SLAVE STATUS"),
	DENIED("SHOW REPLICA STATUS"),
	DENIED("SHOW BINLOG EVENTS"),
	DENIED("SHOW BINARY LOGS"),
	DENIED("SHOW ENGINE INNODB STATUS"),
	DENIED("SHOW CREATE USER agent"),
	DENIED("SHOW CREATE PROCEDURE p"),
	DENIED("SHOW CREATE VIEW v"),
	DENIED("SHOW CREATE DATABASE shop"),
	DENIED("SHOW PRIVILEGES"),
	DENIED("SHOW PLUGINS"),
	DENIED("SHOW OPEN TABLES"),
	DENIED("SHOW TRIGGERS"),
	DENIED("SHOW PROCEDURE STATUS"),
	DENIED("SHOW EVENTS"),
	DENIED("SHOW PROFILES"),
	DENIED("SHOW EXPLAIN FOR 1"),
	DENIED("SHOW USER_STATISTICS"),
	/* Empty. */
	K("", VMY_EMPTY),
	K("   \n\t ", VMY_EMPTY),
	K("-- only a comment", VMY_EMPTY),
	K("# only a comment", VMY_EMPTY),
	K("/* only a comment */", VMY_EMPTY),
	K(";", VMY_EMPTY),
	K(" ; ;", VMY_EMPTY),
	/* Stacked statements: the public bypasses. */
	MULTI("SELECT 1; SELECT 2"),
	MULTI("SELECT 1--1;DROP TABLE t"),
	MULTI("SELECT 1 -- x\n; DROP TABLE t"),
	MULTI("SELECT 1 # x\n; DROP TABLE t"),
	MULTI("SELECT 1 /* a */ ; /* b */ SELECT 2"),
	MULTI("SELECT 1; -- trailing\nDELETE FROM orders"),
	MULTI("SELECT 'a'';' ; DROP TABLE orders"),
	MULTI("SELECT `a;b`; DROP TABLE orders"),
	MULTI("COMMIT; DROP TABLE orders"),
	MULTI("SET autocommit = 1; SELECT 1"),
	MULTI("SELECT 1;;SELECT 2"),
	READ("SELECT '\\';DROP TABLE t;--'"),
	REF_F("SELECT '\\';DROP TABLE t;--'", 1064, AIRLOCK_E_MULTI_STATEMENT, F_NOBS),
	READ("SELECT \"a\\\";DROP TABLE t;--\""),
	REF_F("SELECT \"a\\\";DROP TABLE t;--\"", 1064, AIRLOCK_E_MULTI_STATEMENT, F_NOBS),
	READ("SELECT \"a\\\"b\""),
	REF_F("SELECT \"a\\\"b\"", 1064, AIRLOCK_E_SYNTAX, F_ANSI),
	READ_F("SELECT \"a\"\"b\" FROM orders", F_ANSI),
	REF_F("SELECT \"x\" FROM \"staff_salaries\"", 1142, AIRLOCK_E_TABLE_NOT_ALLOWED, F_ANSI),
	READ_F("SELECT \"x\" FROM \"orders\"", F_ANSI),
	READ("SELECT \"staff_salaries\""),
	/* Executable comments and hints. */
	EXEC("/*!50000 DROP TABLE t*/"),
	EXEC("/*!DROP TABLE t*/"),
	EXEC("/*M!100000 DROP TABLE t */"),
	EXEC("/*M! DROP TABLE t */"),
	EXEC("SELECT 1 /*! , sleep(10) */"),
	EXEC("SELECT 1 /*!99999 , sleep(10) */"),
	EXEC("SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1"),
	EXEC("SELECT /*+ SET_VAR(sql_mode='') */ 1"),
	EXEC("SELECT 1 /*m! , 2 */"),
	READ("SELECT 1 /*M , 2 */"),
	READ("SELECT 1 /* ! , 2 */"),
	READ("SELECT '/*!' AS x"),
	READ("SELECT 1 -- /*! DROP */"),
	/* Malformed tokens. */
	SYNTAX("SELECT 'unterminated"),
	SYNTAX("SELECT \"unterminated"),
	SYNTAX("SELECT 'a\\'"),
	READ_F("SELECT 'a\\'", F_NOBS),
	SYNTAX("SELECT `unterminated"),
	REF_F("SELECT \"unterminated", 1064, AIRLOCK_E_SYNTAX, F_ANSI),
	SYNTAX("SELECT 1 /* unterminated"),
	SYNTAX("SELECT 1 /*"),
	SYNTAX("SELECT X'0'"),
	SYNTAX("SELECT X'0G'"),
	SYNTAX("SELECT B'2'"),
	SYNTAX("SELECT .5e-- 1"),
	SYNTAX("SELECT 1.5e"),
	SYNTAX("SELECT \\N"),
	SYNTAX("SELECT 1 \x01"),
	SYNTAX("SELECT $a"),
	SYNTAX("SELECT $$ ; $$"),
	SYNTAX("SELECT \xff"),
	SYNTAX("SELECT 1--\xc2\xa0 , (SELECT * FROM staff_salaries)"),
	SYNTAX("SELECT [a b]"),
	SYNTAX("SELECT @@ version"),
	SYNTAX("SELECT @"),
	SYNTAX("SELECT * FROM ``"),
	READ("SELECT `` FROM orders"),
	RO("SELEC 1"),
	SYNTAX("SELECT 1 FROM"),
	SYNTAX("SHOW"),
	SYNTAX("DESCRIBE"),
	SYNTAX("EXPLAIN"),
	SYNTAX("SET NAMES utf8mb4 x"),
	SYNTAX("SELECT * FROM (orders"),
	SYNTAX("SELECT * FROM orders o JOIN"),
	SYNTAX("SELECT * FROM orders LEFT customers"),
	SYNTAX("SELECT * FROM orders USE INDEX"),
	SYNTAX(";SELECT 1"),
	SYNTAX("SELECT 1)"),
	SYNTAX("SELECT (1"),
	SYNTAX("SELECT * FROM orders o staff_salaries"),
	SYNTAX("SELECT * FROM orders = o"),
	SYNTAX("SELECT * FROM orders 'o' staff_salaries"),
	SYNTAX("SELECT a FROM orders WHERE b FROM staff_salaries"),
	SYNTAX("SELECT COALESCE(a FROM b) FROM orders"),
	SYNTAX("SELECT a JOIN staff_salaries"),
	SYNTAX("SELECT * FROM orders WITH x"),
	SYNTAX("SELECT * FROM FROM"),
	SYNTAX("SELECT * FROM a.b.c"),
	/* Writes, DDL and everything else. */
	RO("INSERT INTO orders VALUES (1)"),
	RO("UPDATE orders SET amount = 0"),
	RO("DELETE FROM orders"),
	RO("REPLACE INTO orders VALUES (1)"),
	RO("CREATE TABLE t (a int)"),
	RO("DROP TABLE orders"),
	RO("ALTER TABLE orders ADD c int"),
	RO("TRUNCATE orders"),
	RO("RENAME TABLE orders TO o2"),
	RO("GRANT ALL ON *.* TO agent"),
	RO("REVOKE ALL ON *.* FROM agent"),
	RO("LOAD DATA INFILE '/etc/passwd' INTO TABLE orders"),
	RO("HANDLER orders OPEN"),
	RO("CALL p()"),
	RO("DO sleep(1)"),
	/* Read locks (mysqldump's) are answered OK, no lock taken; write locks are writes. */
	K("LOCK TABLES orders READ", VMY_LOCK_TABLES),
	K("LOCK TABLES `orders` READ LOCAL, shop.customers AS c READ LOCAL", VMY_LOCK_TABLES),
	K("UNLOCK TABLES", VMY_LOCK_TABLES),
	K("unlock table", VMY_LOCK_TABLES),
	RO("LOCK TABLES orders WRITE"),
	RO("LOCK TABLES orders READ, customers LOW_PRIORITY WRITE"),
	TABLE("LOCK TABLES staff_salaries READ"),
	TABLE("LOCK TABLES orders READ, shop.staff_salaries READ"),
	SYNTAX("LOCK TABLES orders"),
	SYNTAX("LOCK orders READ"),
	SYNTAX("UNLOCK TABLES orders"),
	RO("FLUSH PRIVILEGES"),
	RO("KILL 1"),
	RO("INSTALL PLUGIN x SONAME 'x.so'"),
	RO("PREPARE s FROM 'SELECT 1'"),
	RO("EXECUTE s"),
	RO("DEALLOCATE PREPARE s"),
	RO("XA START 'x'"),
	RO("SAVEPOINT s"),
	RO("RELEASE SAVEPOINT s"),
	RO("TABLE orders"),
	READ("VALUES (1)"),
	READ("VALUES (1, 'a'), (2, 'b') ORDER BY 1 DESC LIMIT 1"),
	READ("SELECT * FROM (VALUES (1), (2)) t"),
	READ("SELECT 1 UNION VALUES (2)"),
	READ("SELECT * FROM orders WHERE id IN (VALUES (1), (2))"),
	READ("(VALUES (1)) UNION ALL (SELECT id FROM orders)"),
	TABLE("VALUES ((SELECT salary FROM staff_salaries LIMIT 1))"),
	TABLE("SELECT * FROM (VALUES (1)) t UNION SELECT id FROM staff_salaries"),
	SYNTAX("VALUES 1"),
	RO("CHECKSUM TABLE orders"),
	RO("OPTIMIZE TABLE orders"),
	RO("CHECK TABLE orders"),
	RO("HELP 'select'"),
	RO("BEGIN NOT ATOMIC SELECT 1 END"),
	MULTI("BEGIN NOT ATOMIC SELECT 1; END"),
	RO("START SLAVE"),
	RO("SHUTDOWN"),
	RO("RESET MASTER"),
	RO("PURGE BINARY LOGS BEFORE NOW()"),
	RO("CREATE FUNCTION f RETURNS STRING SONAME 'lib_mysqludf_sys.so'"),
	SYNTAX("SELEC\\x"),
	/* Reads that write or lock. */
	RO("SELECT * FROM orders INTO OUTFILE '/tmp/x'"),
	RO("SELECT * INTO OUTFILE '/tmp/x' FROM orders"),
	RO("SELECT * FROM orders INTO DUMPFILE '/tmp/x'"),
	RO("SELECT id INTO @x FROM orders LIMIT 1"),
	RO("SELECT 1 INTO @x"),
	RO("SELECT * FROM orders WHERE id = (SELECT 1 INTO @x)"),
	RO("SELECT * FROM orders FOR UPDATE"),
	RO("SELECT * FROM orders FOR UPDATE SKIP LOCKED"),
	RO("SELECT * FROM orders FOR SHARE"),
	RO("SELECT * FROM orders LOCK IN SHARE MODE"),
	RO("SELECT * FROM orders WHERE id IN (SELECT id FROM products FOR UPDATE)"),
	RO("SELECT 1 FROM dual FOR UPDATE"),
	RO("SELECT @x := 1"),
	RO("SELECT * FROM orders WHERE a = @x := 1"),
	UNSUP("SELECT * FROM orders PROCEDURE ANALYSE()"),
	UNSUP("SELECT * FROM orders FOR SYSTEM_TIME ALL"),
	READ("SELECT * FROM JSON_TABLE('[]', '$[*]' COLUMNS (a INT PATH '$')) t"),
	READ("SELECT * FROM orders, JSON_TABLE(note, '$' COLUMNS (x INT PATH '$')) AS t"),
	READ("SELECT jt.* FROM JSON_TABLE('[{\"a\":[1]}]', '$[*]' COLUMNS (id FOR ORDINALITY, NESTED PATH '$.a[*]' "
	     "COLUMNS (v VARCHAR(10) CHARACTER SET utf8mb4 PATH '$' DEFAULT '0' ON EMPTY NULL ON ERROR, "
	     "d DECIMAL(10, 2) EXISTS PATH '$'))) AS jt"),
	TABLE("SELECT * FROM JSON_TABLE((SELECT name FROM staff_salaries LIMIT 1), '$' COLUMNS (a INT PATH '$')) t"),
	SYNTAX("SELECT * FROM JSON_TABLE('[]', '$' COLUMNS (a INT PATH @x)) t"),
	SYNTAX("SELECT * FROM JSON_TABLE('[]', '$' COLUMNS (a INT PATH '$' DEFAULT 1 + 1 ON EMPTY)) t"),
	SYNTAX("SELECT * FROM JSON_TABLE('[]', '$') t"),
	FUNC("SELECT * FROM JSON_TABLE(LOAD_FILE('/etc/passwd'), '$' COLUMNS (a TEXT PATH '$')) t"),
	UNSUP("SELECT * FROM f(1)"),
	UNSUP("SELECT * FROM orders WHERE id IN (TABLE staff_salaries)"),
	UNSUP("SELECT 1 UNION TABLE staff_salaries"),
	UNSUP("SELECT {fn now()}"),
	UNSUP("SELECT * FROM {oj orders LEFT JOIN staff_salaries ON 1}"),
	/* Functions. */
	FUNC("SELECT load_file('/etc/passwd')"),
	FUNC("SELECT UUID_SHORT()"),
	FUNC("SELECT uuid_short() FROM orders"),
	READ("SELECT UUID()"), /* the rewrite replaces it (test_validate_my_scope.c) */
	READ("SELECT uuid ( ) FROM orders"),
	FUNC("SELECT UUID(1)"),
	READ("SELECT @@version_comment, UUID()"),
	FUNC("SELECT SYS_GUID()"),
	READ("SELECT uuid, `uuid` FROM orders"),
	FUNC("SELECT LOAD_FILE('/etc/passwd')"),
	FUNC("SELECT `load_file`('/etc/passwd')"),
	FUNC("SELECT load_file /* x */ ('/etc/passwd')"),
	FUNC("SELECT sleep(1)"),
	FUNC("SELECT sleep (1)"),
	FUNC("SELECT SLEEP\n(1)"),
	FUNC("SELECT * FROM orders WHERE sleep(1) = 0"),
	FUNC("SELECT * FROM orders o JOIN products p ON sleep(1)"),
	FUNC("SELECT * FROM orders ORDER BY sleep(1)"),
	READ_F("SELECT sleep(1)", F_SLEEP),
	FUNC("SELECT benchmark(1000, md5('x'))"),
	READ_F("SELECT benchmark(1000, md5('x'))", F_BENCH),
	REF_F("SELECT benchmark(1, 1)", 1370, AIRLOCK_E_FORBIDDEN_FUNCTION, F_SLEEP),
	FUNC("SELECT get_lock('x', 1)"),
	FUNC("SELECT release_lock('x')"),
	FUNC("SELECT release_all_locks()"),
	FUNC("SELECT is_free_lock('x')"),
	FUNC("SELECT is_used_lock('x')"),
	FUNC("SELECT master_pos_wait('f', 1)"),
	FUNC("SELECT master_gtid_wait('0-1-1')"),
	FUNC("SELECT source_pos_wait('f', 1)"),
	FUNC("SELECT wait_for_executed_gtid_set('x')"),
	FUNC("SELECT wait_until_sql_thread_after_gtids('x')"),
	FUNC("SELECT sys_exec('id')"),
	FUNC("SELECT sys_eval('id')"),
	FUNC("SELECT sys_get('x')"),
	FUNC("SELECT sys_set('x', 'y')"),
	FUNC("SELECT sys_anything()"),
	FUNC("SELECT lib_mysqludf_sys_info()"),
	FUNC("SELECT nextval(s)"),
	FUNC("SELECT setval(s, 1)"),
	FUNC("SELECT lastval(s)"),
	FUNC("SELECT NEXT VALUE FOR s"),
	FUNC("SELECT PREVIOUS VALUE FOR s"),
	FUNC("SELECT last_insert_id(5)"),
	FUNC("SELECT user(), 1"),
	FUNC("SELECT 1, current_user()"),
	FUNC("SELECT current_user, 1"),
	FUNC("SELECT session_user() FROM orders"),
	FUNC("SELECT system_user() FROM orders"),
	FUNC("SELECT current_role()"),
	FUNC("SELECT * FROM orders WHERE a = current_role"),
	FUNC("SELECT shop.myfunc(1)"),
	FUNC("SELECT `shop`.`myfunc`(1)"),
	FUNC("SELECT * FROM orders WHERE a = shop.f()"),
	FUNC("SELECT spider_direct_sql('x', 't', 'srv')"),
	FUNC("SELECT wsrep_sync_wait_upto_gtid('x')"),
	FUNC("SELECT (SELECT sleep(1))"),
	/* System variables. */
	DENIED("SELECT @@hostname"),
	DENIED("SELECT @@datadir, 1"),
	DENIED("SELECT @@port FROM orders"),
	DENIED("SELECT @@socket"),
	DENIED("SELECT @@basedir"),
	DENIED("SELECT @@server_id"),
	DENIED("SELECT @@log_error"),
	DENIED("SELECT @@tmpdir"),
	DENIED("SELECT @@plugin_dir"),
	DENIED("SELECT @@secure_file_priv"),
	DENIED("SELECT @@init_connect FROM dual"),
	DENIED("SELECT @@global.version"),
	DENIED("SELECT @@GLOBAL.sql_mode"),
	DENIED("SELECT @@global . sql_mode"),
	DENIED("SELECT @@session.hostname"),
	DENIED("SELECT @@`hostname`"),
	DENIED("SELECT @@session.`default`.key_buffer_size"),
	DENIED("SELECT * FROM orders WHERE a = @@hostname"),
	/* Table allowlist. */
	TABLE("SELECT * FROM staff_salaries"),
	TABLE("SELECT * FROM shop.staff_salaries"),
	TABLE("SELECT * FROM `shop`.`staff_salaries`"),
	TABLE("SELECT * FROM shop.`staff_salaries`"),
	TABLE("SELECT * FROM `staff_salaries`"),
	TABLE("SELECT * FROM .staff_salaries"),
	TABLE("SELECT * FROM ORDERS"),
	TABLE("SELECT * FROM SHOP.orders"),
	TABLE("SELECT * FROM other.orders"),
	TABLE("SELECT * FROM mysql.user"),
	TABLE("SELECT * FROM performance_schema.threads"),
	TABLE("SELECT * FROM orders o JOIN staff_salaries s ON o.id = s.id"),
	TABLE("SELECT * FROM orders o LEFT JOIN staff_salaries s USING (id)"),
	TABLE("SELECT * FROM orders NATURAL JOIN staff_salaries"),
	TABLE("SELECT * FROM orders STRAIGHT_JOIN staff_salaries"),
	TABLE("SELECT * FROM orders, staff_salaries"),
	TABLE("SELECT * FROM orders o, customers c, staff_salaries s"),
	TABLE("SELECT * FROM (orders, staff_salaries)"),
	TABLE("SELECT * FROM orders WHERE id IN (SELECT id FROM staff_salaries)"),
	TABLE("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM staff_salaries)"),
	TABLE("SELECT (SELECT max(x) FROM staff_salaries) FROM orders"),
	TABLE("SELECT * FROM orders HAVING 1 = (SELECT 1 FROM staff_salaries)"),
	TABLE("SELECT * FROM orders ORDER BY (SELECT 1 FROM staff_salaries)"),
	TABLE("SELECT * FROM orders o JOIN products p ON p.id IN (SELECT id FROM staff_salaries)"),
	TABLE("SELECT * FROM (SELECT * FROM staff_salaries) AS d"),
	TABLE("SELECT * FROM ((SELECT 1) UNION (SELECT * FROM staff_salaries)) d"),
	TABLE("SELECT * FROM orders o, LATERAL (SELECT * FROM staff_salaries) x"),
	TABLE("SELECT 1 UNION SELECT * FROM staff_salaries"),
	TABLE("SELECT 1 UNION (SELECT * FROM staff_salaries)"),
	TABLE("SELECT 1 EXCEPT SELECT * FROM staff_salaries"),
	TABLE("SELECT a FROM orders WHERE b = (SELECT 1 UNION SELECT x FROM staff_salaries)"),
	TABLE("SELECT ((SELECT 1) UNION SELECT * FROM staff_salaries)"),
	TABLE("SELECT COALESCE((SELECT x FROM staff_salaries), 1)"),
	TABLE("SELECT SUBSTRING((SELECT x FROM staff_salaries) FROM 1)"),
	TABLE("SELECT 1 MINUS SELECT * FROM staff_salaries"),
	TABLE("SELECT * FROM orders WHERE id = 1 UNION ALL SELECT * FROM staff_salaries LIMIT 1"),
	TABLE("SELECT/**/*/**/FROM/**/staff_salaries"),
	TABLE("SELECT * FROM orders -- x\n, staff_salaries"),
	TABLE("SELECT * FROM orders # x\n JOIN staff_salaries"),
	TABLE("SELECT * FROM information_schema.processlist"),
	TABLE("SELECT * FROM INFORMATION_SCHEMA.PROCESSLIST"),
	TABLE("SELECT * FROM information_schema.global_variables"),
	TABLE("SELECT * FROM information_schema.SESSION_VARIABLES"),
	TABLE("SELECT * FROM information_schema.user_privileges"),
	TABLE("SELECT * FROM information_schema.innodb_trx"),
	TABLE("SELECT * FROM information_schema.system_variables"),
	TABLE("SELECT * FROM information_schema.ROLE_TABLE_GRANTS"),
	READ("SELECT * FROM information_schema.statistics"),
	K("SHOW TABLES FROM information_schema", VMY_READ),
	TABLE("SHOW COLUMNS FROM information_schema.processlist"),
	REF_F("SELECT * FROM orders", 1046, AIRLOCK_E_NO_DATABASE, F_NODB),
	READ_F("SELECT * FROM shop.orders", F_NODB),
	REF_F("SHOW TABLES", 1046, AIRLOCK_E_NO_DATABASE, F_NODB),
	REF_F("DESCRIBE orders", 1046, AIRLOCK_E_NO_DATABASE, F_NODB),
	READ_F("SELECT 1", F_NODB),
	/* Session statements. */
	K("SET NAMES utf8mb4", VMY_SET),
	K("SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_ci'", VMY_SET),
	K("SET CHARACTER SET utf8", VMY_SET),
	K("SET CHARSET utf8mb4", VMY_SET),
	K("SET autocommit = 0", VMY_SET),
	K("SET AUTOCOMMIT=1", VMY_SET),
	K("SET autocommit := ON", VMY_SET),
	K("SET SESSION autocommit = 1", VMY_SET),
	K("SET LOCAL autocommit = 1", VMY_SET),
	K("SET @@autocommit = 1", VMY_SET),
	K("SET @@session.autocommit = 1", VMY_SET),
	K("SET @@local.autocommit = 1", VMY_SET),
	K("SET NAMES utf8mb4, autocommit=1, sql_mode='ANSI'", VMY_SET),
	K("SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE'", VMY_SET),
	K("SET sql_mode = ''", VMY_SET),
	K("SET sql_mode = DEFAULT", VMY_SET),
	K("SET sql_mode = TRADITIONAL", VMY_SET),
	K("SET sql_mode = 0", VMY_SET),
	K("SET time_zone = '+00:00'", VMY_SET),
	K("SET time_zone = SYSTEM", VMY_SET),
	K("SET transaction_isolation = 'READ-COMMITTED'", VMY_SET),
	K("SET SESSION tx_isolation = 'REPEATABLE-READ'", VMY_SET),
	K("SET transaction_read_only = 1", VMY_SET),
	K("SET tx_read_only = ON", VMY_SET),
	K("SET session_track_schema = ON", VMY_SET),
	K("SET session_track_system_variables = '*'", VMY_SET),
	K("SET net_write_timeout = 600, net_read_timeout = 600", VMY_SET),
	K("SET wait_timeout = 28800, interactive_timeout = 28800", VMY_SET),
	K("SET sql_select_limit = DEFAULT", VMY_SET),
	K("SET max_statement_time = 1.5", VMY_SET),
	K("SET max_execution_time = 1000", VMY_SET),
	K("SET group_concat_max_len = 1048576", VMY_SET),
	K("SET foreign_key_checks = 0, unique_checks = 0", VMY_SET),
	K("SET sql_auto_is_null = 0, sql_safe_updates = 1, sql_quote_show_create = 1", VMY_SET),
	K("SET sql_notes = 0, sql_warnings = 1", VMY_SET),
	K("SET div_precision_increment = 4", VMY_SET),
	K("SET lc_time_names = 'en_US'", VMY_SET),
	K("SET default_week_format = 0", VMY_SET),
	K("SET character_set_results = NULL", VMY_SET),
	K("SET character_set_connection = utf8mb4, collation_connection = utf8mb4_bin", VMY_SET),
	K("SET TRANSACTION READ ONLY", VMY_SET),
	K("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", VMY_SET),
	K("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY", VMY_SET),
	K("set autocommit=1, sql_mode = concat(@@sql_mode,',STRICT_TRANS_TABLES'), "
	  "session_track_system_variables = CONCAT(@@global.session_track_system_variables,"
	  "',transaction_isolation'), NAMES utf8mb4",
	  VMY_SET),
	DENIED("SET GLOBAL max_connections = 1"),
	DENIED("SET @@global.sql_mode = ''"),
	DENIED("SET @@GLOBAL . sql_mode = ''"),
	DENIED("SET PERSIST sql_mode = ''"),
	DENIED("SET PERSIST_ONLY sql_mode = ''"),
	DENIED("SET @@persist.sql_mode = ''"),
	DENIED("SET autocommit = 1, GLOBAL sql_mode = ''"),
	DENIED("SET GLOBAL TRANSACTION READ ONLY"),
	DENIED("SET sql_log_bin = 0"),
	DENIED("SET @@session.sql_log_bin = 0"),
	DENIED("SET PASSWORD = PASSWORD('x')"),
	DENIED("SET PASSWORD FOR agent = 'x'"),
	DENIED("SET ROLE admin"),
	DENIED("SET DEFAULT ROLE admin FOR agent"),
	DENIED("SET STATEMENT max_statement_time = 1 FOR SELECT 1"),
	DENIED("SET @x = 1"),
	DENIED("SET @x := (SELECT 1)"),
	DENIED("SET @'x' = 1"),
	DENIED("SET autocommit = 1, @x = 1"),
	DENIED("SET unknown_variable = 1"),
	DENIED("SET debug = 'x'"),
	DENIED("SET optimizer_switch = 'x=on'"),
	DENIED("SET sql_mode = (SELECT 'x')"),
	DENIED("SET sql_mode = CONCAT('a', 'b')"),
	DENIED("SET sql_mode = REPLACE('a', 'b', '')"),
	DENIED("SET sql_mode = REPLACE(CONCAT(@@sql_mode, ',X'), 'X', '')"),
	DENIED("SET sql_mode = REPLACE(@@sql_mode, 'STRICT_TRANS_TABLES')"),
	DENIED("SET sql_mode = REPLACE(@@sql_mode, '', 'ANSI')"),
	DENIED("SET sql_mode = REPLACE(@@sql_mode, 'STRICT_TRANS_TABLES', 'ORACLE')"),
	DENIED("SET sql_mode = REPLACE(@@time_zone, 'a', '')"),
	DENIED("SET sql_mode = REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(@@sql_mode, 'A', ''), 'B', ''), 'C', ''), "
	       "'D', ''), 'E', '')"),
	DENIED("SET sql_mode = CONCAT(REPLACE(@@sql_mode, 'A', ''), @@sql_mode)"),
	DENIED("SET sql_mode = REPLACE(@@sql_mode, 'A', '') + 1"),
	DENIED("SET sql_mode = CONCAT(@@time_zone, 'b')"),
	DENIED("SET time_zone = CONCAT(@@time_zone, 'b')"),
	DENIED("SET autocommit = 1 + 1"),
	DENIED("SET autocommit = f()"),
	DENIED("SET autocommit = 2"),
	DENIED("SET time_zone = @x"),
	DENIED("SET time_zone = @@global.time_zone"),
	DENIED("SET sql_mode = 'ORACLE'"),
	DENIED("SET sql_mode = 'MSSQL'"),
	DENIED("SET sql_mode = 'ANSI,POSTGRESQL'"),
	DENIED("SET sql_mode = 'NO_SUCH_MODE'"),
	DENIED("SET sql_mode = 4"),
	DENIED("SET sql_mode = CONCAT(@@sql_mode, ',ORACLE')"),
	DENIED("SET NAMES latin1"),
	DENIED("SET NAMES gbk"),
	DENIED("SET NAMES big5"),
	DENIED("SET NAMES sjis"),
	DENIED("SET NAMES DEFAULT"),
	DENIED("SET CHARACTER SET latin1"),
	DENIED("SET character_set_client = latin1"),
	DENIED("SET @@session.default.key_buffer_size = 1"),
	RO("SET transaction_read_only = 0"),
	RO("SET tx_read_only = OFF"),
	RO("SET SESSION transaction_read_only = DEFAULT"),
	RO("SET TRANSACTION READ WRITE"),
	RO("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE"),
	SYNTAX("SET"),
	SYNTAX("SET autocommit"),
	SYNTAX("SET NAMES"),
	SYNTAX("SET TRANSACTION"),
	DENIED("SET autocommit = 1 sql_mode = ''"),
	K("BEGIN", VMY_BEGIN),
	K("BEGIN WORK;", VMY_BEGIN),
	K("START TRANSACTION", VMY_BEGIN),
	K("START TRANSACTION READ ONLY", VMY_BEGIN),
	K("START TRANSACTION WITH CONSISTENT SNAPSHOT", VMY_BEGIN),
	K("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", VMY_BEGIN),
	RO("START TRANSACTION READ WRITE"),
	RO("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE"),
	K("COMMIT", VMY_COMMIT),
	K("COMMIT WORK", VMY_COMMIT),
	K("COMMIT AND NO CHAIN NO RELEASE", VMY_COMMIT),
	UNSUP("COMMIT AND CHAIN"),
	UNSUP("COMMIT RELEASE"),
	K("ROLLBACK", VMY_ROLLBACK),
	K("ROLLBACK WORK", VMY_ROLLBACK),
	K("ROLLBACK AND NO CHAIN", VMY_ROLLBACK),
	RO("ROLLBACK TO SAVEPOINT s"),
	RO("ROLLBACK WORK TO s"),
	K("USE shop", VMY_USE),
	K("USE `shop`", VMY_USE),
	K("use information_schema", VMY_USE),
	K("USE INFORMATION_SCHEMA", VMY_USE),
	DB("USE mysql"),
	DB("USE Shop"),
	SYNTAX("USE"),
	SYNTAX("USE shop other"),
	/* Local selects. */
	K("select @@version_comment limit 1", VMY_LOCAL_SELECT),
	K("SELECT DATABASE()", VMY_LOCAL_SELECT),
	K("SELECT SCHEMA();", VMY_LOCAL_SELECT),
	K("SELECT VERSION(), @@version", VMY_LOCAL_SELECT),
	K("SELECT USER(), CURRENT_USER(), CURRENT_USER, SESSION_USER(), SYSTEM_USER()", VMY_LOCAL_SELECT),
	K("SELECT CONNECTION_ID()", VMY_LOCAL_SELECT),
	K("SELECT @@session.autocommit AS ac, @@max_allowed_packet", VMY_LOCAL_SELECT),
	K("SELECT @@tx_isolation, @@transaction_isolation", VMY_LOCAL_SELECT),
	K("SELECT DATABASE() AS db LIMIT 1", VMY_LOCAL_SELECT),
	READ("SELECT DATABASE() FROM dual"),
	READ("SELECT @@version_comment, 1"),
	READ("SELECT @@version_comment LIMIT 0, 1"),
	READ("SELECT DATABASE() + 1"),
	K("SELECT @@init_connect", VMY_LOCAL_SELECT),
	DENIED("SELECT @@init_connect, 1"),
	DENIED("SELECT @@global.init_connect"),
};

static const char *kind_name(enum vmy_kind k)
{
	static const char *const names[] = {
		"READ", "EMPTY",         "SET",         "BEGIN",        "COMMIT",         "ROLLBACK",
		"USE",  "SHOW_WARNINGS", "SHOW_ERRORS", "LOCAL_SELECT", "SHOW_VARIABLES", "REFUSED",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static int check_case(size_t i, const struct vcase *c)
{
	struct vmy_policy pol = make_policy(c->flags);
	struct vmy_result r;
	bool ok;

	vmy_validate(&pol, c->sql, strlen(c->sql), &r);
	ok = r.kind == c->kind;
	if (ok && c->kind == VMY_REFUSED)
		ok = r.my_errno == c->my_errno && r.code == c->code && strlen(r.sqlstate) == 5 && r.message[0] != '\0';
	if (ok && c->kind != VMY_REFUSED)
		ok = r.code == AIRLOCK_E_NONE;
	if (!ok)
		print_error("case %zu: %s\n  want %s %u %s, got %s %u %s: %s (%s)\n", i, c->sql, kind_name(c->kind),
			    c->my_errno, airlock_err_name(c->code), kind_name(r.kind), r.my_errno,
			    airlock_err_name(r.code), r.message, r.hint);
	return ok ? 0 : 1;
}

static void test_cases(void **state)
{
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		failures += check_case(i, &cases[i]);
	assert_int_equal(failures, 0);
}

static void validate(const char *sql, unsigned flags, struct vmy_result *r)
{
	struct vmy_policy pol = make_policy(flags);

	vmy_validate(&pol, sql, strlen(sql), r);
}

/* What SET statements carry (the REPLACE()s of the first assignment in from / to). */
struct scase {
	const char *sql;
	size_t n;
	const char *name[4];
	const char *value[4];
	const char *collate[4];
	unsigned append_mask, default_mask, next_only_mask;
	const char *from[VMY_MAX_REPLACE], *to[VMY_MAX_REPLACE];
};

static const struct scase set_cases[] = {
	{"SET NAMES utf8mb4", 1, {"names"}, {"utf8mb4"}, {""}, 0, 0, 0},
	{"SET NAMES 'UTF8MB4' COLLATE 'UTF8MB4_Bin'", 1, {"names"}, {"utf8mb4"}, {"utf8mb4_bin"}, 0, 0, 0},
	{"SET NAMES utf8 COLLATE DEFAULT", 1, {"names"}, {"utf8"}, {"DEFAULT"}, 0, 0, 0},
	{"SET CHARACTER SET ascii", 1, {"character set"}, {"ascii"}, {""}, 0, 0, 0},
	{"SET @@SESSION.AutoCommit := on", 1, {"autocommit"}, {"ON"}, {""}, 0, 0, 0},
	{"SET autocommit=1, NAMES utf8mb4, sql_mode='ANSI_QUOTES'",
	 3,
	 {"autocommit", "names", "sql_mode"},
	 {"1", "utf8mb4", "ANSI_QUOTES"},
	 {""},
	 0,
	 0,
	 0},
	{"SET sql_mode = 'a''b\\\\c'", 0, {""}, {""}, {""}, 0, 0, 0},
	{"SET time_zone = '+01' ':00'", 1, {"time_zone"}, {"+01:00"}, {""}, 0, 0, 0},
	{"SET time_zone = 'Europe/Paris'", 1, {"time_zone"}, {"Europe/Paris"}, {""}, 0, 0, 0},
	{"SET sql_select_limit = -1", 1, {"sql_select_limit"}, {"-1"}, {""}, 0, 0, 0},
	{"SET sql_select_limit = +5", 1, {"sql_select_limit"}, {"5"}, {""}, 0, 0, 0},
	{"SET sql_mode = DEFAULT", 1, {"sql_mode"}, {"DEFAULT"}, {""}, 0, 1, 0},
	{"SET sql_mode = 0", 1, {"sql_mode"}, {""}, {""}, 0, 0, 0},
	{"SET sql_mode = ansi", 1, {"sql_mode"}, {"ANSI"}, {""}, 0, 0, 0},
	{"SET character_set_results = NULL", 1, {"character_set_results"}, {"NULL"}, {""}, 0, 0, 0},
	{"SET collation_connection = UTF8MB4_BIN", 1, {"collation_connection"}, {"utf8mb4_bin"}, {""}, 0, 0, 0},
	{"SET sql_mode = CONCAT(@@sql_mode, ',STRICT_TRANS_TABLES', ',NO_ZERO_DATE')",
	 1,
	 {"sql_mode"},
	 {",STRICT_TRANS_TABLES,NO_ZERO_DATE"},
	 {""},
	 1,
	 0,
	 0},
	{"SET @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO'), "
	 "@@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483",
	 3,
	 {"sql_mode", "sql_auto_is_null", "wait_timeout"},
	 {",STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO", "0", "2147483"},
	 {""},
	 1,
	 0,
	 0},
	{"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, @@SESSION.sql_mode = CONCAT(REPLACE(REPLACE(REPLACE("
	 "@@sql_mode, 'STRICT_TRANS_TABLES', ''), 'STRICT_ALL_TABLES', ''), 'TRADITIONAL', ''), "
	 "',NO_AUTO_VALUE_ON_ZERO')",
	 2,
	 {"names", "sql_mode"},
	 {"utf8mb4", ",NO_AUTO_VALUE_ON_ZERO"},
	 {"utf8mb4_unicode_ci", ""},
	 2,
	 0,
	 0},
	{"SET sql_mode = REPLACE(REPLACE(@@session.sql_mode, 'STRICT_TRANS_TABLES', ''), ',,', ',ANSI_QUOTES,')",
	 1,
	 {"sql_mode"},
	 {""},
	 {""},
	 1,
	 0,
	 0,
	 {"STRICT_TRANS_TABLES", ",,"},
	 {"", ",ANSI_QUOTES,"}},
	{"SET session_track_system_variables = CONCAT(@@global.session_track_system_variables, "
	 "',auto_increment_increment')",
	 1,
	 {"session_track_system_variables"},
	 {",auto_increment_increment"},
	 {""},
	 1,
	 0,
	 0},
	{"SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
	 1,
	 {"transaction"},
	 {"ISOLATION LEVEL READ COMMITTED"},
	 {""},
	 0,
	 0,
	 1},
	{"SET SESSION TRANSACTION READ ONLY, ISOLATION LEVEL SERIALIZABLE",
	 2,
	 {"transaction", "transaction"},
	 {"READ ONLY", "ISOLATION LEVEL SERIALIZABLE"},
	 {""},
	 0,
	 0,
	 0},
	{"SET LOCAL TRANSACTION ISOLATION LEVEL REPEATABLE READ",
	 1,
	 {"transaction"},
	 {"ISOLATION LEVEL REPEATABLE READ"},
	 {""},
	 0,
	 0,
	 0},
};

static void test_set(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(set_cases) / sizeof(set_cases[0]); i++) {
		const struct scase *c = &set_cases[i];
		struct vmy_result r;

		validate(c->sql, 0, &r);
		if (c->n == 0) {
			assert_int_equal(r.kind, VMY_REFUSED);
			continue;
		}
		if (r.kind != VMY_SET)
			print_error("%s: %s (%s)\n", c->sql, r.message, r.hint);
		assert_int_equal(r.kind, VMY_SET);
		assert_int_equal(r.nassigns, c->n);
		for (k = 0; k < c->n; k++) {
			const struct vmy_assign *a = &r.assigns[k];

			assert_string_equal(a->name, c->name[k]);
			assert_string_equal(a->value, c->value[k]);
			assert_string_equal(a->collate, c->collate[k] ? c->collate[k] : "");
			assert_int_equal(a->append, (c->append_mask >> k) & 1);
			assert_int_equal(a->is_default, (c->default_mask >> k) & 1);
			assert_int_equal(a->next_transaction_only, (c->next_only_mask >> k) & 1);
		}
		for (k = 0; k < VMY_MAX_REPLACE && c->from[k]; k++) {
			assert_true(r.assigns[0].nreplace > k);
			assert_string_equal(r.assigns[0].replace[k].from, c->from[k]);
			assert_string_equal(r.assigns[0].replace[k].to, c->to[k]);
		}
		if (k < VMY_MAX_REPLACE && !c->from[0] && strstr(c->sql, "REPLACE(REPLACE(REPLACE("))
			assert_int_equal(r.assigns[1].nreplace, 3);
	}
}

static void test_set_limits(void **state)
{
	char sql[4096];
	struct vmy_result r;
	size_t used, i;

	(void)state;
	/* 32 settings fit, 33 do not. */
	used = (size_t)snprintf(sql, sizeof(sql), "SET autocommit = 1");
	for (i = 1; i < VMY_MAX_ASSIGNS; i++)
		used += (size_t)snprintf(sql + used, sizeof(sql) - used, ", wait_timeout = %zu", i);
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_SET);
	assert_int_equal(r.nassigns, VMY_MAX_ASSIGNS);
	snprintf(sql + used, sizeof(sql) - used, ", sql_notes = 1");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.nassigns, 0);
	/* a value longer than 255 bytes */
	used = (size_t)snprintf(sql, sizeof(sql), "SET time_zone = '");
	memset(sql + used, 'x', 300);
	snprintf(sql + used + 300, sizeof(sql) - used - 300, "'");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	/* a 255-byte value fits */
	used = (size_t)snprintf(sql, sizeof(sql), "SET time_zone = '");
	memset(sql + used, 'x', 255);
	snprintf(sql + used + 255, sizeof(sql) - used - 255, "'");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_SET);
	assert_int_equal(strlen(r.assigns[0].value), 255);
}

struct lcase {
	const char *sql;
	size_t n;
	enum vmy_item item[5];
	const char *sysvar[5];
	const char *label[5];
	long limit;
};

static const struct lcase local_cases[] = {
	{"select @@version_comment limit 1",
	 1,
	 {VMY_ITEM_VERSION_COMMENT},
	 {"version_comment"},
	 {"@@version_comment"},
	 1},
	{"SELECT DATABASE()", 1, {VMY_ITEM_DATABASE}, {""}, {"DATABASE()"}, -1},
	{"select database( )", 1, {VMY_ITEM_DATABASE}, {""}, {"database( )"}, -1},
	{"SELECT schema() AS `the db`", 1, {VMY_ITEM_DATABASE}, {""}, {"the db"}, -1},
	{"SELECT @@SESSION . autocommit", 1, {VMY_ITEM_SYSVAR}, {"autocommit"}, {"@@SESSION . autocommit"}, -1},
	{"SELECT @@version AS v, version() ver, @@local.sql_mode 'mode'",
	 3,
	 {VMY_ITEM_VERSION, VMY_ITEM_VERSION, VMY_ITEM_SYSVAR},
	 {"version", "", "sql_mode"},
	 {"v", "ver", "mode"},
	 -1},
	{"SELECT USER(), current_user, CURRENT_USER(), session_user(), CONNECTION_ID()",
	 5,
	 {VMY_ITEM_USER, VMY_ITEM_CURRENT_USER, VMY_ITEM_CURRENT_USER, VMY_ITEM_USER, VMY_ITEM_CONNECTION_ID},
	 {"", "", "", "", ""},
	 {"USER()", "current_user", "CURRENT_USER()", "session_user()", "CONNECTION_ID()"},
	 -1},
	{"SELECT @@`Max_Allowed_Packet` LIMIT 5;",
	 1,
	 {VMY_ITEM_SYSVAR},
	 {"max_allowed_packet"},
	 {"@@`Max_Allowed_Packet`"},
	 5},
};

static void test_local(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(local_cases) / sizeof(local_cases[0]); i++) {
		const struct lcase *c = &local_cases[i];
		struct vmy_result r;

		validate(c->sql, 0, &r);
		if (r.kind != VMY_LOCAL_SELECT)
			print_error("%s: %d %s\n", c->sql, r.kind, r.message);
		assert_int_equal(r.kind, VMY_LOCAL_SELECT);
		assert_int_equal(r.nitems, c->n);
		assert_int_equal(r.limit, c->limit);
		for (k = 0; k < c->n; k++) {
			assert_int_equal(r.items[k].item, c->item[k]);
			assert_string_equal(r.items[k].sysvar, c->sysvar[k]);
			assert_string_equal(r.items[k].label, c->label[k]);
		}
	}
}

/* The query MySQL Connector/J 8 sends at connect. */
static void test_connector_j(void **state)
{
	static const char sql[] =
		"/* mysql-connector-j-8.0.31 (Revision: 0c86fc148d567b62266c2302bdad0f1e7a7e4eba) */"
		"SELECT  @@session.auto_increment_increment AS auto_increment_increment, "
		"@@character_set_client AS character_set_client, @@character_set_connection AS "
		"character_set_connection, @@character_set_results AS character_set_results, "
		"@@character_set_server AS character_set_server, @@collation_server AS collation_server, "
		"@@collation_connection AS collation_connection, @@init_connect AS init_connect, "
		"@@interactive_timeout AS interactive_timeout, @@license AS license, "
		"@@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS "
		"max_allowed_packet, @@net_write_timeout AS net_write_timeout, @@performance_schema AS "
		"performance_schema, @@query_cache_size AS query_cache_size, @@query_cache_type AS "
		"query_cache_type, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, "
		"@@time_zone AS time_zone, @@transaction_isolation AS transaction_isolation, "
		"@@wait_timeout AS wait_timeout";
	struct vmy_result r;

	(void)state;
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_LOCAL_SELECT);
	assert_int_equal(r.nitems, 21);
	assert_string_equal(r.items[0].sysvar, "auto_increment_increment");
	assert_string_equal(r.items[7].sysvar, "init_connect");
	assert_string_equal(r.items[7].label, "init_connect");
	assert_string_equal(r.items[20].label, "wait_timeout");
}

static void test_local_limits(void **state)
{
	char sql[2048];
	struct vmy_result r;
	size_t used, i;

	(void)state;
	used = (size_t)snprintf(sql, sizeof(sql), "SELECT DATABASE()");
	for (i = 1; i < VMY_MAX_ITEMS; i++)
		used += (size_t)snprintf(sql + used, sizeof(sql) - used, ", @@version");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_LOCAL_SELECT);
	assert_int_equal(r.nitems, VMY_MAX_ITEMS);
	snprintf(sql + used, sizeof(sql) - used, ", @@version");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_READ);
	assert_int_equal(r.nitems, 0);
	/* a long label is cut, not overflowed */
	used = (size_t)snprintf(sql, sizeof(sql), "SELECT DATABASE(");
	memset(sql + used, ' ', 400);
	snprintf(sql + used + 400, sizeof(sql) - used - 400, ")");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_LOCAL_SELECT);
	assert_int_equal(strlen(r.items[0].label), 255);
	/* a huge LIMIT saturates */
	validate("SELECT @@version LIMIT 99999999999999999999999", 0, &r);
	assert_int_equal(r.kind, VMY_LOCAL_SELECT);
	assert_true(r.limit > 0);
}

static void test_show_variables(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("SHOW VARIABLES LIKE 'char%'", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_true(r.have_like);
	assert_string_equal(r.like, "char%");
	assert_int_equal(r.nnames, 0);

	validate("SHOW SESSION VARIABLES LIKE 'sql\\_mode'", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_string_equal(r.like, "sql\\_mode");

	validate("show local variables where variable_name = 'Max_Allowed_Packet'", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_false(r.have_like);
	assert_int_equal(r.nnames, 1);
	assert_string_equal(r.names[0], "max_allowed_packet");

	validate("SHOW VARIABLES WHERE `Variable_name` IN ('a', 'B', 'c') OR Variable_name = 'd'", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_int_equal(r.nnames, 4);
	assert_string_equal(r.names[1], "b");
	assert_string_equal(r.names[3], "d");

	validate("SHOW VARIABLES WHERE Variable_name LIKE 'x%'", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_true(r.have_like);
	assert_string_equal(r.like, "x%");

	validate("SHOW VARIABLES", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
	assert_false(r.have_like);
	assert_int_equal(r.nnames, 0);

	validate("SHOW VARIABLES WHERE Value = 'x'", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1235);
	validate("SHOW VARIABLES WHERE Variable_name LIKE 'x' OR Variable_name = 'y'", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	validate("SHOW VARIABLES WHERE Variable_name = (SELECT 1)", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	validate("SHOW GLOBAL VARIABLES LIKE 'x'", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1227);
	validate("SHOW VARIABLES LIKE x", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	{
		char many[1024];
		size_t used = (size_t)snprintf(many, sizeof(many),
					       "SHOW VARIABLES WHERE "
					       "Variable_name IN ('v0'");
		int i;

		for (i = 1; i < VMY_MAX_ITEMS; i++)
			used += (size_t)snprintf(many + used, sizeof(many) - used, ", 'v%d'", i);
		snprintf(many + used, sizeof(many) - used, ")");
		validate(many, 0, &r);
		assert_int_equal(r.kind, VMY_SHOW_VARIABLES);
		assert_int_equal(r.nnames, VMY_MAX_ITEMS);
		snprintf(many + used, sizeof(many) - used, ", 'one_more')");
		validate(many, 0, &r);
		assert_int_equal(r.kind, VMY_REFUSED);
		assert_int_equal(r.nnames, 0);
	}
}

static void test_warnings(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("SHOW WARNINGS", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_WARNINGS);
	assert_int_equal(r.limit, -1);
	assert_false(r.count_only);
	validate("SHOW WARNINGS LIMIT 5", 0, &r);
	assert_int_equal(r.limit, 5);
	assert_int_equal(r.offset, 0);
	validate("show errors limit 2, 3", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_ERRORS);
	assert_int_equal(r.offset, 2);
	assert_int_equal(r.limit, 3);
	validate("SHOW COUNT(*) ERRORS", 0, &r);
	assert_int_equal(r.kind, VMY_SHOW_ERRORS);
	assert_true(r.count_only);
	validate("SHOW WARNINGS LIMIT x", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	validate("SHOW COUNT(*) WARNINGS LIMIT 1", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	validate("SHOW COUNT(x) WARNINGS", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
}

static void test_begin_use(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("START TRANSACTION READ ONLY", 0, &r);
	assert_int_equal(r.kind, VMY_BEGIN);
	assert_true(r.read_only_txn);
	validate("BEGIN", 0, &r);
	assert_int_equal(r.kind, VMY_BEGIN);
	assert_false(r.read_only_txn);
	validate("USE `information_schema`", 0, &r);
	assert_int_equal(r.kind, VMY_USE);
	assert_string_equal(r.use_db, "information_schema");
	validate("USE `sh``op`", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	validate("USE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1102);
}

static void test_read_kinds(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("SELECT 1", 0, &r);
	assert_string_equal(r.stmt_kind, "SELECT");
	validate("WITH x AS (SELECT 1) SELECT * FROM x", 0, &r);
	assert_string_equal(r.stmt_kind, "SELECT");
	validate("SHOW TABLES", 0, &r);
	assert_string_equal(r.stmt_kind, "SHOW");
	validate("DESC orders", 0, &r);
	assert_string_equal(r.stmt_kind, "DESCRIBE");
	validate("EXPLAIN orders", 0, &r);
	assert_string_equal(r.stmt_kind, "DESCRIBE");
	validate("EXPLAIN SELECT 1", 0, &r);
	assert_string_equal(r.stmt_kind, "EXPLAIN");
	validate("DESCRIBE SELECT 1", 0, &r);
	assert_string_equal(r.stmt_kind, "EXPLAIN");
	validate("SELECT * FROM staff_salaries", 0, &r);
	assert_null(r.stmt_kind);
}

static void test_messages(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("SELECT * FROM orders o JOIN staff_salaries s ON 1", 0, &r);
	assert_string_equal(r.sqlstate, "42000");
	assert_string_equal(r.message, "SELECT command denied to user 'agent' for table `shop`.`staff_salaries`");
	assert_string_equal(r.hint, "allowed tables: shop.orders, shop.customers, shop.products, "
				    "information_schema.*");

	validate("SELECT * FROM orders", F_NODB, &r);
	assert_string_equal(r.sqlstate, "3D000");
	assert_string_equal(r.message, "No database selected");
	assert_non_null(strstr(r.hint, "USE"));

	validate("SELECT 1;\n DROP TABLE t", 0, &r);
	assert_non_null(strstr(r.message, "near 'DROP TABLE t' at line 2"));
	assert_non_null(strstr(r.hint, "one statement"));

	validate("INSERT INTO orders VALUES (1)", 0, &r);
	assert_string_equal(r.sqlstate, "25006");
	assert_string_equal(r.message, "Cannot execute statement in a READ ONLY transaction");
	assert_non_null(strstr(r.hint, "INSERT"));

	validate("SELECT load_file('/etc/passwd')", 0, &r);
	assert_string_equal(r.message, "execute command denied to user 'agent' for routine 'load_file'");

	validate("/*!50000 DROP TABLE t */", 0, &r);
	assert_non_null(strstr(r.hint, "executable comments"));

	validate("SHOW TABLES FROM mysql", 0, &r);
	assert_string_equal(r.message, "Access denied for user 'agent' to database 'mysql'");

	validate("SELECT 'abc", 0, &r);
	assert_non_null(strstr(r.message, "near ''abc' at line 1"));
	assert_non_null(strstr(r.hint, "unterminated"));
}

static void test_hint_cut(void **state)
{
	static const char *many[40];
	char names[40][32];
	struct vmy_policy pol = make_policy(0);
	struct vmy_result r;
	size_t i;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "shop.table_number_%02zu", i);
		many[i] = names[i];
	}
	pol.tables = many;
	pol.ntables = 40;
	vmy_validate(&pol, "SELECT * FROM x", 15, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(strlen(r.hint), sizeof(r.hint) - 1);
	assert_string_equal(r.hint + sizeof(r.hint) - 4, "...");

	pol.ntables = 0;
	vmy_validate(&pol, "SELECT * FROM x", 15, &r);
	assert_string_equal(r.hint, "no tables are allowed for this user");
}

static void test_allowlist_entries(void **state)
{
	static const char *const entries[] = {
		"shop.*", "reports.daily", NULL, "bad", ".x", "y.", "information_schema.processlist",
	};
	struct vmy_policy pol = make_policy(0);
	struct vmy_result r;

	(void)state;
	pol.tables = entries;
	pol.ntables = sizeof(entries) / sizeof(entries[0]);
	vmy_validate(&pol, "SELECT * FROM staff_salaries", 28, &r);
	assert_int_equal(r.kind, VMY_READ);
	vmy_validate(&pol, "SELECT * FROM reports.daily JOIN reports.weekly", 47, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_non_null(strstr(r.message, "`reports`.`weekly`"));
	vmy_validate(&pol, "SELECT * FROM information_schema.PROCESSLIST", 44, &r);
	assert_int_equal(r.kind, VMY_READ);
	vmy_validate(&pol, "SELECT * FROM information_schema.tables", 39, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, "SELECT * FROM bad", 17, &r);
	assert_int_equal(r.kind, VMY_READ); /* shop.bad under shop.* */
	vmy_validate(&pol, "SELECT * FROM y.x", 17, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, "USE reports", 11, &r);
	assert_int_equal(r.kind, VMY_USE);
}

static void test_null_and_garbage(void **state)
{
	struct vmy_result r;
	static const char bytes[] = "SELECT 1\0; DROP TABLE t";

	(void)state;
	vmy_validate(NULL, "SELECT * FROM shop.orders", 25, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_string_equal(r.hint, "no tables are allowed for this user");
	vmy_validate(NULL, "SELECT * FROM orders", 20, &r);
	assert_int_equal(r.my_errno, 1046);
	vmy_validate(NULL, "SELECT 1", 8, &r);
	assert_int_equal(r.kind, VMY_READ);
	vmy_validate(NULL, NULL, 10, &r);
	assert_int_equal(r.kind, VMY_EMPTY);
	vmy_validate(NULL, bytes, sizeof(bytes) - 1, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1064);
	assert_non_null(strstr(r.hint, "NUL"));
	/* only len bytes are read */
	vmy_validate(NULL, "SELECT 1; DROP TABLE t", 8, &r);
	assert_int_equal(r.kind, VMY_READ);
}

static void test_stmt_len(void **state)
{
	struct vmy_result r;

	(void)state;
	validate("SELECT 1 ; -- x", 0, &r);
	assert_int_equal(r.stmt_len, 8);
	validate("  SELECT 'a;b' /* c */ ;;", 0, &r);
	assert_int_equal(r.stmt_len, 14);
	validate("SET autocommit=1;", 0, &r);
	assert_int_equal(r.stmt_len, 16);
	validate(" -- x", 0, &r);
	assert_int_equal(r.stmt_len, 0);
}

static void test_deep_nesting(void **state)
{
	static char sql[300000];
	struct vmy_result r;
	size_t i, n;

	(void)state;
	/* 100 levels: fine */
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (i = 0; i < 100; i++)
		sql[n++] = '(';
	sql[n++] = '1';
	for (i = 0; i < 100; i++)
		sql[n++] = ')';
	sql[n] = '\0';
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_READ);
	/* 100000 levels: refused, no stack overflow */
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (i = 0; i < 100000; i++)
		sql[n++] = '(';
	sql[n++] = '1';
	for (i = 0; i < 100000; i++)
		sql[n++] = ')';
	sql[n] = '\0';
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_TOO_COMPLEX);
	/* deep FROM nesting and deep subqueries */
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT * FROM ");
	for (i = 0; i < 1000; i++)
		sql[n++] = '(';
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "orders");
	for (i = 0; i < 1000; i++)
		sql[n++] = ')';
	sql[n] = '\0';
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	n = 0;
	for (i = 0; i < 2000; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "SELECT * FROM (");
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "SELECT 1");
	for (i = 0; i < 2000; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ") d");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_TOO_COMPLEX);
	/* many CTE names */
	n = (size_t)snprintf(sql, sizeof(sql), "WITH RECURSIVE ");
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%sc%zu AS (SELECT 1)", i ? ", " : "", i);
	snprintf(sql + n, sizeof(sql) - n, " SELECT * FROM c1");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_TOO_COMPLEX);
}

static void test_long_flat_statement(void **state)
{
	static char sql[600000];
	struct vmy_result r;
	size_t n, i;

	(void)state;
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT 1");
	for (i = 0; i < 100000; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "+1");
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, " FROM orders");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_READ);
	snprintf(sql + n, sizeof(sql) - n, ", staff_salaries");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
}

static void test_long_names(void **state)
{
	char sql[1024];
	struct vmy_result r;
	size_t n;

	(void)state;
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT * FROM `");
	memset(sql + n, 'a', 600);
	snprintf(sql + n + 600, sizeof(sql) - n - 600, "`");
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1059);
	n = (size_t)snprintf(sql, sizeof(sql), "SELECT @@");
	memset(sql + n, 'a', 600);
	sql[n + 600] = '\0';
	validate(sql, 0, &r);
	assert_int_equal(r.kind, VMY_REFUSED);
}

/* A string literal and its length (it may hold bytes strlen would misjudge). */
#define TEXT(s) s, sizeof(s) - 1

static void test_charsets(void **state)
{
	static const char hidden[] = "SELECT salary AS a\xc2\xa0"
				     "FROM shop.staff_salaries";
	struct vmy_policy pol = make_policy(0);
	struct vmy_result r;

	(void)state;
	/* utf8mb4 reads the NBSP as part of a name: no FROM, a read (the server agrees). */
	vmy_validate(&pol, hidden, strlen(hidden), &r);
	assert_int_equal(r.kind, VMY_READ);
	/* latin1 reads 0xA0 as a space: the byte must be refused outside quotes. */
	pol.charset = "latin1";
	vmy_validate(&pol, hidden, strlen(hidden), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.my_errno, 1064);
	assert_non_null(strstr(r.hint, "inside quotes"));
	vmy_validate(&pol, TEXT("SELECT 'caf\xe9', `t\xe9` FROM orders -- \xe9\n"), &r);
	assert_int_equal(r.kind, VMY_READ);
	vmy_validate(&pol, TEXT("SELECT caf\xe9 FROM orders"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, TEXT("SELECT @a\xe9"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, TEXT("SELECT 1 --\xa0, 2"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, TEXT("SET NAMES latin1"), &r);
	assert_int_equal(r.kind, VMY_SET);
	vmy_validate(&pol, TEXT("SET NAMES utf8mb4"), &r);
	assert_int_equal(r.kind, VMY_SET);
	pol.charset = "BINARY";
	vmy_validate(&pol, hidden, strlen(hidden), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	pol.charset = "UTF8MB4";
	vmy_validate(&pol, hidden, strlen(hidden), &r);
	assert_int_equal(r.kind, VMY_READ);
	/* multi-byte sets whose second byte can be a quote or backslash: nothing passes */
	pol.charset = "gbk";
	vmy_validate(&pol, TEXT("SELECT 1"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_NOT_ALLOWED);
	pol.charset = "sjis";
	vmy_validate(&pol, TEXT("SET NAMES utf8mb4"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	/* without a charset in the policy, SET NAMES stays on the utf8 family */
	pol.charset = NULL;
	vmy_validate(&pol, TEXT("SET NAMES latin1"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
	vmy_validate(&pol, TEXT("SET NAMES binary"), &r);
	assert_int_equal(r.kind, VMY_REFUSED);
}

static void test_sql_mode_parse(void **state)
{
	bool aq, nbs;

	(void)state;
	assert_true(vmy_sql_mode_parse("", 0, &aq, &nbs));
	assert_false(aq);
	assert_false(nbs);
	assert_true(vmy_sql_mode_parse("ANSI_QUOTES", 11, &aq, &nbs));
	assert_true(aq);
	assert_true(vmy_sql_mode_parse("ansi", 4, &aq, &nbs));
	assert_true(aq);
	assert_true(vmy_sql_mode_parse(",STRICT_TRANS_TABLES,,no_backslash_escapes", 42, &aq, &nbs));
	assert_false(aq);
	assert_true(nbs);
	assert_true(vmy_sql_mode_parse("TRADITIONAL,ONLY_FULL_GROUP_BY", 30, NULL, NULL));
	assert_false(vmy_sql_mode_parse("ORACLE", 6, &aq, &nbs));
	assert_false(vmy_sql_mode_parse("ANSI,MSSQL", 10, &aq, &nbs));
	assert_false(vmy_sql_mode_parse(" ANSI", 5, &aq, &nbs));
	assert_false(vmy_sql_mode_parse("NOPE", 4, &aq, &nbs));
	assert_false(vmy_sql_mode_parse("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 48, &aq, &nbs));
	assert_false(vmy_sql_mode_parse(NULL, 3, &aq, &nbs));
}

/* SHOW CREATE TABLE names its table's database, for the session to scrub its foreign keys; nothing else does. */
static void test_show_create_database(void **state)
{
	static const struct {
		const char *sql, *db;
	} shows[] = {
		{"SHOW CREATE TABLE orders", "shop"},
		{"show create table `shop`.`orders`", "shop"},
		{"SHOW CREATE TABLE information_schema.TABLES", "information_schema"},
		{"SHOW COLUMNS FROM orders", ""},
		{"SHOW INDEX FROM orders FROM shop", ""},
		{"DESCRIBE orders", ""},
		{"SELECT 1", ""},
		{"SHOW CREATE TABLE staff_salaries", ""},
	};
	struct vmy_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++) {
		validate(shows[i].sql, 0, &r);
		assert_string_equal(r.create_db, shows[i].db);
	}
}

static void test_tables_sorted(void **state)
{
	(void)state;
	assert_true(vmy_tables_sorted());
	assert_true(vmy_sysvar_readable("version_comment"));
	assert_false(vmy_sysvar_readable("hostname"));
	assert_true(vmy_setting_allowed("session_track_schema"));
	assert_false(vmy_setting_allowed("sql_log_bin"));
	assert_true(vmy_charset_allowed("utf8mb4"));
	assert_false(vmy_charset_allowed("latin1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_set_limits),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_connector_j),
		cmocka_unit_test(test_local_limits),
		cmocka_unit_test(test_show_variables),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_begin_use),
		cmocka_unit_test(test_read_kinds),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_hint_cut),
		cmocka_unit_test(test_allowlist_entries),
		cmocka_unit_test(test_null_and_garbage),
		cmocka_unit_test(test_stmt_len),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_flat_statement),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_charsets),
		cmocka_unit_test(test_sql_mode_parse),
		cmocka_unit_test(test_show_create_database),
		cmocka_unit_test(test_tables_sorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
