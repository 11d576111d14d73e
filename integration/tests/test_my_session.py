"""Session statements a MySQL client sends on its own, and the status flags
in OK packets (AUTOCOMMIT, IN_TRANS) that drivers act on."""

import pymysql
import pytest

import itest

AUTOCOMMIT = pymysql.constants.SERVER_STATUS.SERVER_STATUS_AUTOCOMMIT
IN_TRANS = pymysql.constants.SERVER_STATUS.SERVER_STATUS_IN_TRANS


def query(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def test_database(my_agent):
    assert query(my_agent, "SELECT DATABASE()") == (("shop",),)
    assert query(my_agent, "select database()") == (("shop",),)
    assert query(my_agent, "SELECT SCHEMA()") == (("shop",),)


def test_version_comment(my_agent):
    """What the mysql CLI asks at start."""
    with my_agent.cursor() as cur:
        cur.execute("select @@version_comment limit 1")
        rows = cur.fetchall()
        assert [d[0] for d in cur.description] == ["@@version_comment"]
    assert len(rows) == 1 and isinstance(rows[0][0], str), rows
    assert "airlock_ro" not in rows[0][0]


def test_handshake_version(my_agent):
    assert my_agent.get_server_info().startswith("8.0.")
    assert my_agent.server_thread_id[0] > 0


def test_autocommit_flag_follows_set(my_agent):
    query(my_agent, "SET autocommit=1")
    assert my_agent.server_status & AUTOCOMMIT
    assert not my_agent.server_status & IN_TRANS
    query(my_agent, "SET autocommit=0")
    assert not my_agent.server_status & AUTOCOMMIT
    assert query(my_agent, "SELECT @@autocommit") == ((0,),)
    query(my_agent, "SET autocommit = ON")
    assert my_agent.server_status & AUTOCOMMIT
    assert query(my_agent, "SELECT @@session.autocommit") == ((1,),)


def test_in_trans_after_start_transaction(my_agent):
    query(my_agent, "START TRANSACTION")
    assert my_agent.server_status & IN_TRANS
    assert query(my_agent, "SELECT COUNT(*) FROM products") == ((200,),)
    query(my_agent, "COMMIT")
    assert not my_agent.server_status & IN_TRANS
    query(my_agent, "BEGIN")
    assert my_agent.server_status & IN_TRANS
    query(my_agent, "ROLLBACK")
    assert not my_agent.server_status & IN_TRANS
    query(my_agent, "START TRANSACTION READ ONLY")
    assert my_agent.server_status & IN_TRANS
    query(my_agent, "COMMIT")
    assert not my_agent.server_status & IN_TRANS


def test_in_trans_after_select_with_autocommit_off(my_agent_tx, my_direct):
    """With autocommit off, a statement that reads a table opens a
    transaction: the next OK has IN_TRANS, COMMIT clears it (as MariaDB)."""
    for conn in (my_agent_tx, my_direct):
        query(conn, "SET autocommit=0")
        assert not conn.server_status & IN_TRANS
        query(conn, "SELECT id FROM orders WHERE id = 1")
        query(conn, "SET NAMES utf8mb4")
        assert conn.server_status & IN_TRANS, conn
        query(conn, "COMMIT")
        assert not conn.server_status & IN_TRANS, conn


def test_start_transaction_read_write_refused(my_agent):
    with pytest.raises(pymysql.err.MySQLError) as info:
        query(my_agent, "START TRANSACTION READ WRITE")
    assert info.value.args[0] == 1792, info.value.args
    assert itest.airlock_code(info.value.args[1]), info.value.args
    assert not my_agent.server_status & IN_TRANS


def test_combined_set(my_agent):
    """One SET with several assignments, as Connector/J and others send."""
    query(my_agent, "SET autocommit=0")
    query(my_agent, "SET NAMES utf8mb4, autocommit=1")
    assert my_agent.server_status & AUTOCOMMIT
    assert query(my_agent, "SELECT @@autocommit, @@character_set_client") == \
        ((1, "utf8mb4"),)
    query(my_agent, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci, autocommit=0,"
                    " sql_mode='STRICT_TRANS_TABLES'")
    assert not my_agent.server_status & AUTOCOMMIT
    assert query(my_agent, "SELECT @@sql_mode") == (("STRICT_TRANS_TABLES",),)


# What ActiveRecord's mysql2 adapter sends at connect (strict: true, then strict: false), and nestings like them.
ORM_MODES = [
    "SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode,"
    " ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO'), @@SESSION.sql_auto_is_null = 0,"
    " @@SESSION.wait_timeout = 2147483",
    "SET NAMES utf8mb4, @@SESSION.sql_mode = CONCAT(REPLACE(REPLACE(REPLACE(@@sql_mode,"
    " 'STRICT_TRANS_TABLES', ''), 'STRICT_ALL_TABLES', ''), 'TRADITIONAL', ''), ',NO_AUTO_VALUE_ON_ZERO'),"
    " @@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483",
    "SET sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_ENGINE_SUBSTITUTION', 'ANSI_QUOTES')",
]


@pytest.mark.parametrize("sql", ORM_MODES)
def test_sql_mode_as_an_expression_of_itself(my_agent, my_direct, sql):
    """The mode reads back as MariaDB makes it, starting from the same mode."""
    for conn in (my_agent, my_direct):
        query(conn, "SET sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'")
        query(conn, sql)
        query(conn, sql)
    want = query(my_direct, "SELECT @@sql_mode, @@sql_auto_is_null")
    assert query(my_agent, "SELECT @@sql_mode, @@sql_auto_is_null") == want
    # And the mode is the one statements run under.
    quoted = query(my_direct, "SELECT \"note\" FROM orders WHERE id = 1")
    assert query(my_agent, "SELECT \"note\" FROM orders WHERE id = 1") == quoted


def test_sql_mode_applies_to_statements(my_agent):
    """ANSI_QUOTES turns "x" into an identifier, on the backend and in
    airlock's own lexer alike."""
    assert query(my_agent, "SELECT \"note\" FROM orders WHERE id = 1") == (("note",),)
    query(my_agent, "SET SESSION sql_mode = 'ANSI_QUOTES'")
    assert query(my_agent, "SELECT \"note\" FROM orders WHERE id = 1") == (("order 1",),)
    query(my_agent, "SET sql_mode = DEFAULT")
    assert query(my_agent, "SELECT \"note\" FROM orders WHERE id = 1") == (("note",),)


def test_time_zone_setting(my_agent):
    query(my_agent, "SET time_zone = '+09:00'")
    assert query(my_agent, "SELECT @@time_zone") == (("+09:00",),)
    query(my_agent, "SET time_zone = '+00:00'")
    assert query(my_agent, "SELECT @@session.time_zone") == (("+00:00",),)


@pytest.mark.parametrize("sql", ["SET sql_log_bin = 0",
                                 "SET SESSION TRANSACTION READ WRITE"])
def test_settings_that_would_leave_read_only_refused(my_agent, sql):
    with pytest.raises(pymysql.err.MySQLError) as info:
        query(my_agent, sql)
    assert itest.airlock_code(info.value.args[1]), info.value.args


def test_transaction_isolation_statement(my_agent):
    query(my_agent, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    assert query(my_agent, "SELECT COUNT(*) FROM customers") == ((1000,),)


def test_use_statement(my_agent):
    query(my_agent, "USE shop")
    assert query(my_agent, "SELECT DATABASE()") == (("shop",),)
    with pytest.raises(pymysql.err.MySQLError) as info:
        query(my_agent, "USE mysql")
    assert info.value.args[0] in (1044, 1142), info.value.args
    assert query(my_agent, "SELECT DATABASE()") == (("shop",),)


def test_show_warnings_empty(my_agent):
    query(my_agent, "SELECT 1")
    assert query(my_agent, "SHOW WARNINGS") == ()
