"""mysqlclient (MySQLdb, on libmariadb) through airlock: same rows as
MariaDB directly, and CLIENT_MULTI_STATEMENTS negotiated by the client
never lets two statements through."""

from decimal import Decimal

import MySQLdb
import pytest
from MySQLdb.constants import CLIENT

import itest
from itest import MY_QUERIES

# mysqlclient adds MULTI_STATEMENTS by itself only when it is built against
# a client library that reports version 4.1 or later (libmysqlclient);
# Debian's build on libmariadb 3.x does not, so the tests ask for it.
MULTI = CLIENT.MULTI_STATEMENTS | CLIENT.MULTI_RESULTS


@pytest.fixture
def mdb():
    conn = itest.mysqldb_connect(client_flag=MULTI)
    yield conn
    conn.close()


@pytest.fixture
def mdb_direct():
    conn = itest.mysqldb_connect(direct=True, client_flag=MULTI)
    yield conn
    conn.close()


def fetch(conn, sql):
    cur = conn.cursor()
    try:
        cur.execute(sql)
        return [d[:2] for d in cur.description or ()], list(cur.fetchall())
    finally:
        cur.close()


@pytest.mark.parametrize("sql", MY_QUERIES)
def test_rows_match_direct(mdb, mdb_direct, sql):
    assert fetch(mdb, sql) == fetch(mdb_direct, sql)


def test_connect_and_query(mdb):
    assert mdb.get_server_info().startswith("8.0.")
    assert not mdb.get_autocommit()
    assert fetch(mdb, "SELECT id, amount, note FROM orders WHERE id IN (1, 10) ORDER BY id")[1] == \
        [(1, Decimal("0.37"), "order 1"), (10, Decimal("3.70"), None)]
    mdb.commit()
    mdb.autocommit(True)
    assert mdb.get_autocommit()
    assert fetch(mdb, "SELECT COUNT(*) FROM customers")[1] == [(1000,)]
    mdb.ping()


def test_set_character_set(mdb):
    mdb.set_character_set("utf8mb4")
    assert mdb.character_set_name() == "utf8mb4"
    assert fetch(mdb, "SELECT '\u00e9\u2713\U0001F600'")[1] == [("\u00e9\u2713\U0001F600",)]


@pytest.mark.parametrize("sql", [
    "SELECT 1; SELECT 2",
    "SELECT id FROM orders LIMIT 1;SELECT id FROM customers LIMIT 1",
])
def test_multi_statement_refused(mdb, mdb_direct, sql):
    """MariaDB itself would run both (the client asked for MULTI_STATEMENTS);
    airlock refuses the query whole with 1064 and the connection goes on."""
    cur = mdb_direct.cursor()
    cur.execute(sql)
    assert cur.fetchall()
    cur.close()

    cur = mdb.cursor()
    with pytest.raises(MySQLdb.MySQLError) as info:
        cur.execute(sql)
    errno, message = info.value.args
    assert errno == 1064, info.value.args
    assert itest.airlock_code(message) == "MULTI_STATEMENT", message
    cur.close()
    assert fetch(mdb, "SELECT COUNT(*) FROM products")[1] == [(200,)]
    assert fetch(mdb, "SELECT 3")[1] == [(3,)]


def test_warning_count_zero_for_plain_select(mdb):
    fetch(mdb, "SELECT id FROM orders ORDER BY id LIMIT 3")
    assert mdb.warning_count() == 0
