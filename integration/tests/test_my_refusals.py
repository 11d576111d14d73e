"""Refused MySQL statements: native errors with a real errno, an airlock
code in the message, and the MariaDB shop database unchanged (checked as
root before and after the module)."""

import os

import pymysql
import pytest

import itest

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

OUTFILE = "/tmp/airlock-test-outfile"

WRITES = [
    "INSERT INTO orders (customer_id, amount) VALUES (1, 1)",
    "INSERT INTO customers SELECT * FROM customers",
    "REPLACE INTO products VALUES (1, 'x', 1)",
    "UPDATE orders SET amount = 0 WHERE id = 1",
    "UPDATE orders o JOIN customers c ON c.id = o.customer_id SET o.amount = 0",
    "DELETE FROM orders WHERE id = 1",
    "DELETE o FROM orders o WHERE o.id = 1",
    "TRUNCATE TABLE orders",
    "DROP TABLE orders",
    "DROP DATABASE shop",
    "CREATE TABLE evil (i int)",
    "CREATE TABLE evil AS SELECT * FROM orders",
    "CREATE TEMPORARY TABLE evil (i int)",
    "CREATE DATABASE evil",
    "CREATE VIEW evil AS SELECT * FROM orders",
    "ALTER TABLE orders ADD COLUMN x int",
    "RENAME TABLE orders TO orders2",
    "GRANT SELECT ON shop.staff_salaries TO 'agent'@'%'",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE customers",
    "SELECT * FROM orders WHERE id = 1 FOR UPDATE",
    "SELECT * FROM orders WHERE id = 1 LOCK IN SHARE MODE",
]

HIDDEN_TABLE = [
    "SELECT * FROM staff_salaries",
    "SELECT * FROM shop.staff_salaries",
    "SELECT * FROM SHOP.STAFF_SALARIES",
    "SELECT * FROM `staff_salaries`",
    "SELECT * FROM `shop`.`staff_salaries`",
    "SELECT o.id, s.salary FROM orders o JOIN staff_salaries s ON s.id = o.id",
    "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM staff_salaries)",
    "SELECT (SELECT MAX(salary) FROM shop.staff_salaries)",
    "SELECT id FROM orders UNION ALL SELECT id FROM staff_salaries",
    "WITH s AS (SELECT * FROM staff_salaries) SELECT * FROM s",
    "SELECT * FROM orders, staff_salaries LIMIT 1",
]


def refused(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as info:
        with conn.cursor() as cur:
            cur.execute(sql)
    errno, message = info.value.args
    assert itest.my_backend_password() not in message
    assert "airlock_ro" not in message
    code = itest.airlock_code(message)
    assert code, "no airlock code in %r" % message
    return errno, message, code


def still_serving(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM products")
        assert cur.fetchall() == ((200,),)


@pytest.mark.parametrize("sql", WRITES)
def test_write_refused(my_agent, sql):
    errno, message, code = refused(my_agent, sql)
    assert errno == 1792, (errno, message)
    assert code == "NOT_READ_ONLY", message


@pytest.mark.parametrize("sql", HIDDEN_TABLE)
def test_table_not_allowed(my_agent, sql):
    errno, message, code = refused(my_agent, sql)
    assert errno == 1142, (errno, message)
    assert code == "TABLE_NOT_ALLOWED", message
    assert "staff_salaries" in message.lower()


@pytest.mark.parametrize("sql", ["DESCRIBE staff_salaries", "DESC shop.staff_salaries",
                                 "SHOW COLUMNS FROM staff_salaries",
                                 "SHOW CREATE TABLE staff_salaries"])
def test_describe_hidden_table(my_agent, sql):
    errno, message, code = refused(my_agent, sql)
    assert errno == 1142, (errno, message)
    assert "staff_salaries" in message


def test_describe_allowed_table_matches_direct(my_agent, my_direct):
    def describe(conn):
        with conn.cursor() as cur:
            cur.execute("DESCRIBE orders")
            return cur.fetchall()
    assert describe(my_agent) == describe(my_direct)


@pytest.mark.parametrize("sql", [
    "SELECT load_file('/etc/passwd')",
    "SELECT LOAD_FILE('/etc/passwd') AS x FROM orders LIMIT 1",
    "SELECT `load_file`('/etc/passwd')",
])
def test_load_file_refused(my_agent, sql):
    # 1370: what MySQL answers for a routine the account may not execute.
    errno, message, code = refused(my_agent, sql)
    assert errno == 1370, (errno, message)
    assert code == "FORBIDDEN_FUNCTION" and "load_file" in message.lower(), message


def test_state_changing_function_refused(my_agent):
    """UUID_SHORT() advances a counter shared by the whole server: a write, refused."""
    errno, message, code = refused(my_agent, "SELECT UUID_SHORT()")
    assert errno == 1370 and code == "FORBIDDEN_FUNCTION", (errno, message)


def test_cte_names_compare_without_case(my_agent):
    """As MariaDB compares them: WITH Top ... FROM top reads the CTE."""
    with my_agent.cursor() as cur:
        cur.execute("WITH Top AS (SELECT id FROM orders ORDER BY id LIMIT 2) SELECT * FROM top")
        assert cur.fetchall() == ((1,), (2,))


@pytest.mark.parametrize("sql,code", [
    ("/*!50000 DROP TABLE orders */", "NOT_READ_ONLY"),
    ("SELECT 1 /*!50000 ; DROP TABLE orders */", "MULTI_STATEMENT"),
    ("/*M!100000 DROP TABLE orders */", "NOT_READ_ONLY"),
    ("SELECT /*! id FROM orders; DROP TABLE orders */", "MULTI_STATEMENT"),
    ("SELECT /*!50000 salary FROM staff_salaries */", "TABLE_NOT_ALLOWED"),
    ("SELECT 1 /*!50000 , 2 -- */\n", "EXECUTABLE_COMMENT"),
    ("SELECT 1 /*! /* inner */ , 2 */", "EXECUTABLE_COMMENT"),
    ("SELECT 1 /*!5000 , 2 */", "EXECUTABLE_COMMENT"),
])
def test_executable_comments_judged_as_read(my_agent, sql, code):
    """A versioned comment's content is judged as MariaDB would run it; a form whose reading is
    not certain is refused whole."""
    assert refused(my_agent, sql)[2] == code
    still_serving(my_agent)


def test_versioned_show_full_tables_as_without_the_comment(my_agent):
    """DBD::mysql's table_info: the agent's world, as SHOW FULL TABLES lists it."""
    got = []
    for sql in ["SHOW /*!50002 FULL*/ TABLES FROM shop", "SHOW FULL TABLES FROM shop"]:
        with my_agent.cursor() as cur:
            cur.execute(sql)
            got.append(([d[0] for d in cur.description], cur.fetchall()))
    assert got[0] == got[1] and len(got[0][1]) == 3, got


@pytest.mark.parametrize("sql", [
    "SHOW /*!50002 FULL*/ TABLES FROM shop LIKE 'orders'",
    "SELECT 1 /*!110000 , 2 */",
    "SELECT id /*M!100100 , customer_id */ FROM orders ORDER BY id LIMIT 2",
    "SELECT /*!40101 'x' AS */ 'y'",
    "SELECT '/*!50000 not a comment */' AS s",
])
def test_versioned_comments_read_as_mariadb(my_agent, my_direct, sql):
    """DBD::mysql's table_info sends SHOW /*!50002 FULL*/ TABLES; mysqldump wraps its settings so."""
    got = []
    for conn in (my_agent, my_direct):
        with conn.cursor() as cur:
            cur.execute(sql)
            got.append(([d[0] for d in cur.description], cur.fetchall()))
    assert got[0] == got[1], got


def test_double_dash_without_space_is_minus(my_agent, my_direct):
    """In MySQL `--` starts a comment only when whitespace follows:
    `SELECT 1--1` is 1 - (-1)."""
    for conn in (my_agent, my_direct):
        with conn.cursor() as cur:
            cur.execute("SELECT 1--1")
            assert cur.fetchall() == ((2,),)


@pytest.mark.parametrize("sql", [
    "SELECT 1; DROP TABLE orders",
    "SELECT 1;DROP TABLE orders",
    "SELECT id FROM orders LIMIT 1; DELETE FROM orders",
    "SELECT 'a;b'; DROP TABLE orders",
    "SELECT 1 -- x\n; DROP TABLE orders",
    "SELECT 1 # x\n; DROP TABLE orders",
    "SELECT \"x\\\";\"; DROP TABLE orders",
])
def test_multi_statement(my_agent, sql):
    errno, message, code = refused(my_agent, sql)
    assert errno == 1064, (errno, message)
    assert code == "MULTI_STATEMENT", message


def test_comment_hides_nothing(my_agent):
    """Text inside a real comment is not a statement: these are one SELECT."""
    for sql in ("SELECT 1 -- ; DROP TABLE orders", "SELECT 1 # ; DROP TABLE orders",
                "SELECT 1 /* ; DROP TABLE orders */", "SELECT ';DROP TABLE orders' AS s"):
        with my_agent.cursor() as cur:
            cur.execute(sql)
            assert len(cur.fetchall()) == 1


@pytest.mark.parametrize("sql", [
    "SELECT * FROM orders INTO OUTFILE '%s'" % OUTFILE,
    "SELECT id FROM orders LIMIT 1 INTO DUMPFILE '%s'" % OUTFILE,
    "SELECT id INTO OUTFILE '%s' FROM orders" % OUTFILE,
])
def test_select_into_refused(my_agent, sql):
    refused(my_agent, sql)
    assert not os.path.exists(OUTFILE)


@pytest.mark.parametrize("sql", [
    "SET GLOBAL max_connections = 1",
    "SET @@GLOBAL.max_connections = 1",
    "SET GLOBAL read_only = 0",
])
def test_global_settings_refused(my_agent, sql):
    errno, message, code = refused(my_agent, sql)
    assert errno == 1227, (errno, message)


@pytest.mark.parametrize("sql", [
    "SELECT @@hostname",
    "SELECT @@datadir",
    "SELECT @@GLOBAL.secure_file_priv",
])
def test_server_variables_refused(my_agent, sql):
    refused(my_agent, sql)
    still_serving(my_agent)


@pytest.mark.parametrize("sql", [
    "SHOW PROCESSLIST",
    "SELECT * FROM mysql.user",
    "SELECT * FROM information_schema.PROCESSLIST",
    "SELECT BENCHMARK(10000000, MD5('x'))",
    "LOCK TABLES orders WRITE",
    "SHUTDOWN",
    "FLUSH PRIVILEGES",
    "HANDLER orders OPEN",
    "CALL nothing()",
    "PREPARE s FROM 'DROP TABLE orders'",
    "EXECUTE IMMEDIATE 'DROP TABLE orders'",
])
def test_other_refusals(my_agent, sql):
    refused(my_agent, sql)
    still_serving(my_agent)


@pytest.mark.parametrize("sql", ["KILL 1", "KILL QUERY 1", "KILL CONNECTION 2"])
def test_kill_of_a_thread_not_the_agents(my_agent, sql):
    """Thread ids name the agent's own sessions only: any other id is
    unknown (1094) or refused, and never reaches the database."""
    with pytest.raises(pymysql.err.MySQLError) as info:
        with my_agent.cursor() as cur:
            cur.execute(sql)
    errno, message = info.value.args
    assert errno == 1094 or itest.airlock_code(message), info.value.args
    assert "airlock_ro" not in message
    still_serving(my_agent)


def test_user_answered_locally(my_agent):
    with my_agent.cursor() as cur:
        cur.execute("SELECT user()")
        rows = cur.fetchall()
        assert cur.description[0][0] == "user()"
    assert len(rows) == 1 and rows[0][0].startswith("agent@"), rows
    with my_agent.cursor() as cur:
        cur.execute("SELECT USER() AS u")
        assert cur.fetchall()[0][0].startswith("agent@")
        assert cur.description[0][0] == "u"


@pytest.mark.parametrize("sql", ["SELECT current_user()", "SELECT CURRENT_USER",
                                 "SELECT session_user()", "SELECT system_user()"])
def test_other_user_functions_never_name_the_backend(my_agent, sql):
    """Answered as the agent, or refused; never the backend account."""
    try:
        with my_agent.cursor() as cur:
            cur.execute(sql)
            value = cur.fetchall()[0][0]
    except pymysql.err.MySQLError as e:
        assert itest.airlock_code(e.args[1]), e.args
        assert "airlock_ro" not in e.args[1]
    else:
        assert value.startswith("agent@"), value


def test_session_usable_after_refusals(my_agent):
    for sql in (WRITES[0], HIDDEN_TABLE[0], "SELECT load_file('/etc/passwd')",
                "SELECT 1; DROP TABLE orders", "SET GLOBAL max_connections = 1"):
        refused(my_agent, sql)
        still_serving(my_agent)


def test_autocommit_off_refusal_then_select(my_agent_tx):
    refused(my_agent_tx, "DELETE FROM orders")
    with my_agent_tx.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders")
        assert cur.fetchall() == ((200000,),)
    my_agent_tx.rollback()
