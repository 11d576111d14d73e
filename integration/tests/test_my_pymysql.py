"""PyMySQL through airlock: the same Python values and cursor.description as
MariaDB directly, autocommit on and off, COMMIT / ROLLBACK, SET NAMES,
ping, select_db, and non-ASCII text."""

import datetime
from decimal import Decimal

import pymysql
import pytest

import itest
from itest import MY_QUERIES


def fetch(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.description or ()), list(cur.fetchall()), cur.rowcount


@pytest.mark.parametrize("sql", MY_QUERIES)
def test_rows_and_types_match_direct(my_agent, my_direct, sql):
    assert fetch(my_agent, sql) == fetch(my_direct, sql)


def test_exact_values(my_agent):
    desc, rows, n = fetch(my_agent, "SELECT id, customer_id, amount, note, created_at"
                                    " FROM orders WHERE id IN (1, 10) ORDER BY id")
    assert n == 2
    assert rows == [
        (1, 920, Decimal("0.37"), "order 1", datetime.datetime(2024, 1, 1, 0, 1)),
        (10, 191, Decimal("3.70"), None, datetime.datetime(2024, 1, 1, 0, 10)),
    ]
    assert [d[0] for d in desc] == ["id", "customer_id", "amount", "note", "created_at"]
    assert [d[1] for d in desc] == [
        pymysql.constants.FIELD_TYPE.LONGLONG, pymysql.constants.FIELD_TYPE.LONG,
        pymysql.constants.FIELD_TYPE.NEWDECIMAL, pymysql.constants.FIELD_TYPE.VAR_STRING,
        pymysql.constants.FIELD_TYPE.DATETIME]
    desc, rows, n = fetch(my_agent, "SELECT COUNT(*), SUM(amount), COUNT(note) FROM orders")
    assert rows == [(200000, Decimal("99999000.00"), 180000)]


def test_description_matches_direct(my_agent, my_direct):
    """Column name, type, display and internal size, precision, scale and
    nullability, for every column type of the shop tables."""
    for table in ("orders", "customers", "products"):
        sql = "SELECT * FROM %s ORDER BY id LIMIT 3" % table
        assert fetch(my_agent, sql) == fetch(my_direct, sql), table


def test_client_side_parameters(my_agent, my_direct):
    """PyMySQL escapes parameters into the SQL text; quoting must survive."""
    sql = "SELECT %s AS a, %s AS b, %s AS c, %s AS d, %s AS e"
    args = ("it's \\ \"q\" `b` -- #", 5, Decimal("1.25"), None,
            datetime.datetime(2024, 2, 29, 12, 30, 5))
    got = fetch(my_agent, sql, args)
    assert got[1] == [("it's \\ \"q\" `b` -- #", 5, Decimal("1.25"), None,
                       "2024-02-29 12:30:05")]
    assert got == fetch(my_direct, sql, args)


def test_non_ascii_round_trip(my_agent, my_direct):
    text = "h\u00e9llo \u2713 \u65e5\u672c \U0001F600 \u00df"
    sql = "SELECT %s AS t, CHAR_LENGTH(%s) AS n, HEX(%s) AS h"
    got = fetch(my_agent, sql, (text, text, text))
    assert got[1] == [(text, len(text), text.encode().hex().upper())]
    assert got == fetch(my_direct, sql, (text, text, text))


def test_autocommit_on(my_agent):
    assert my_agent.get_autocommit()
    assert fetch(my_agent, "SELECT id FROM orders WHERE id = 7")[1] == [(7,)]
    assert fetch(my_agent, "SELECT @@autocommit")[1] == [(1,)]


def test_autocommit_off_commit_rollback(my_agent_tx):
    conn = my_agent_tx
    assert not conn.get_autocommit()
    assert fetch(conn, "SELECT @@autocommit")[1] == [(0,)]
    assert fetch(conn, "SELECT id FROM orders WHERE id = 5")[1] == [(5,)]
    conn.commit()
    assert fetch(conn, "SELECT id FROM orders WHERE id = 6")[1] == [(6,)]
    conn.rollback()
    conn.begin()
    assert fetch(conn, "SELECT COUNT(*) FROM products")[1] == [(200,)]
    conn.commit()
    conn.autocommit(True)
    assert conn.get_autocommit()
    assert fetch(conn, "SELECT @@autocommit")[1] == [(1,)]
    conn.autocommit(False)
    assert not conn.get_autocommit()


def test_set_names(my_agent):
    with my_agent.cursor() as cur:
        cur.execute("SET NAMES utf8mb4")
        cur.execute("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci")
        cur.execute("SELECT @@character_set_client, @@character_set_connection,"
                    " @@character_set_results, @@collation_connection")
        assert cur.fetchall() == (("utf8mb4", "utf8mb4", "utf8mb4", "utf8mb4_unicode_ci"),)
    assert fetch(my_agent, "SELECT %s", ("\u00e9\u2713",))[1] == [("\u00e9\u2713",)]


def test_set_names_latin1_converts_results():
    """The session's character set applies to results: latin1 bytes come back."""
    conn = itest.my_connect(autocommit=True, charset="latin1")
    ref = itest.my_direct(autocommit=True, charset="latin1")
    try:
        sql = "SELECT CONVERT(%s USING utf8mb4) AS t, note FROM orders WHERE id = 3"
        got = fetch(conn, sql, ("caf\u00e9",))
        assert got[1] == [("caf\u00e9", "order 3")]
        assert got == fetch(ref, sql, ("caf\u00e9",))
    finally:
        conn.close()
        ref.close()


def test_ping(my_agent):
    my_agent.ping(reconnect=False)
    assert fetch(my_agent, "SELECT 1")[1] == [(1,)]
    my_agent.ping(reconnect=False)


def test_select_db(my_agent):
    my_agent.select_db("shop")
    assert fetch(my_agent, "SELECT DATABASE()")[1] == [("shop",)]
    assert fetch(my_agent, "SELECT COUNT(*) FROM customers")[1] == [(1000,)]


@pytest.mark.parametrize("db", ["mysql", "information_schema_x", "performance_schema"])
def test_select_db_not_allowed(my_agent, db):
    with pytest.raises(pymysql.err.MySQLError) as info:
        my_agent.select_db(db)
    errno, message = info.value.args
    assert errno in (1044, 1142), info.value.args
    assert db in message
    assert "airlock_ro" not in message
    # The session keeps its database and goes on.
    assert fetch(my_agent, "SELECT DATABASE()")[1] == [("shop",)]
    assert fetch(my_agent, "SELECT COUNT(*) FROM products")[1] == [(200,)]


def test_connect_without_database():
    conn = itest.my_connect(database=None, autocommit=True)
    try:
        assert fetch(conn, "SELECT COUNT(*) FROM shop.orders")[1] == [(200000,)]
        conn.select_db("shop")
        assert fetch(conn, "SELECT COUNT(*) FROM orders")[1] == [(200000,)]
    finally:
        conn.close()


def test_unbuffered_cursor(my_agent):
    """SSCursor reads rows as they arrive."""
    with my_agent.cursor(pymysql.cursors.SSCursor) as cur:
        cur.execute("SELECT id FROM orders ORDER BY id LIMIT 500")
        ids = [r[0] for r in cur]
    assert ids == list(range(1, 501))
    assert fetch(my_agent, "SELECT 2")[1] == [(2,)]


def test_dict_cursor(my_agent):
    with my_agent.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SELECT id, name, email FROM customers WHERE id IN (50, 51) ORDER BY id")
        assert cur.fetchall() == [
            {"id": 50, "name": "customer 50", "email": None},
            {"id": 51, "name": "customer 51", "email": "customer51@example.com"},
        ]


def test_server_version(my_agent):
    """The handshake announces a MySQL 8.0 version (drivers parse it)."""
    assert my_agent.get_server_info().startswith("8.0.")
    assert my_agent.server_version.startswith("8.0.")


def test_many_connections():
    conns = [itest.my_connect(autocommit=True) for _ in range(20)]
    try:
        assert fetch(conns[-1], "SELECT COUNT(*) FROM products")[1] == [(200,)]
        assert fetch(conns[0], "SELECT COUNT(*) FROM customers")[1] == [(1000,)]
    finally:
        for c in conns:
            c.close()
