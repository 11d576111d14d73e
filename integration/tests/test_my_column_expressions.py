"""A column's default and generation expression may name another column
of its table. Played as an attacker over MySQL: col_expr's rule shows
every column but secret_pay, and two shown columns are computed from it
(a generated column and a DEFAULT expression). information_schema.COLUMNS
must not print the hidden name: those expressions read as NULL, the
others (a literal default, CURRENT_TIMESTAMP, an expression over shown
columns) as MariaDB prints them; and the shown columns are numbered
without the gap secret_pay leaves."""

import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

USERS = ("'airlock_ro'@'127.0.0.1'", "'airlock_ro'@'localhost'")
TABLE = ("CREATE TABLE shop.col_expr (id int NOT NULL PRIMARY KEY, secret_pay int, base int DEFAULT 3,"
         " pay_x2 int AS (secret_pay * 2) VIRTUAL, bonus int DEFAULT (secret_pay + 1),"
         " base_x2 int AS (base * 2) VIRTUAL, note varchar(10) DEFAULT 'plain',"
         " created timestamp NULL DEFAULT current_timestamp()) ENGINE=InnoDB")
SQL = ("SELECT COLUMN_NAME, COLUMN_DEFAULT, GENERATION_EXPRESSION FROM information_schema.COLUMNS"
       " WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'col_expr' ORDER BY ORDINAL_POSITION")


@pytest.fixture(scope="module")
def private():
    itest.my_super_query("DROP TABLE IF EXISTS shop.col_expr; " + TABLE)
    for u in USERS:
        itest.my_super_query("GRANT SELECT ON shop.col_expr TO {u}".format(u=u))
    d = PrivateAirlockd("colexpr", {"pool_min": 0}, uid_base=1002300000, sections={"user agent": {
        "mysql_tables": "shop.orders, shop.col_expr, information_schema.*",
        "mysql_columns shop.col_expr": "id, base, pay_x2, bonus, base_x2, note, created"}})
    d.start()
    yield d
    assert d.stop() in (0, -15)
    for u in USERS:
        itest.my_super_query("REVOKE SELECT ON shop.col_expr FROM {u}".format(u=u))
    itest.my_super_query("DROP TABLE shop.col_expr")


def run(conn, sql):
    """The rows of sql on conn (closed after) and its columns' names and (type, size)."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall(), [d[0] for d in cur.description], [d[1:3] for d in cur.description]
    finally:
        conn.close()


def through(private, sql):
    return run(pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent", password=itest.AGENT_PASSWORD,
                               database="shop", autocommit=True, connect_timeout=10, read_timeout=60), sql)


def direct(sql):
    return run(itest.my_direct(autocommit=True), sql)


def test_expressions_naming_a_hidden_column_read_as_null(private):
    got = {name: (default, generated) for name, default, generated in through(private, SQL)[0]}
    assert list(got) == ["id", "base", "pay_x2", "bonus", "base_x2", "note", "created"], got
    assert got["pay_x2"][1] is None and got["bonus"][0] is None, got
    assert "secret" not in repr(got), got
    # What names no hidden column reads as MariaDB prints it.
    want = {name: (default, generated) for name, default, generated in direct(SQL)[0]}
    for name in ("id", "base", "base_x2", "note", "created"):
        assert got[name] == want[name], (name, got[name], want[name])
    assert "'plain'" in repr(got["note"]) and "base" in repr(got["base_x2"])
    # The check is not vacuous: MariaDB prints the hidden name in both.
    assert "secret_pay" in repr(want["pay_x2"]) and "secret_pay" in repr(want["bonus"]), want


def test_the_whole_catalog_names_no_hidden_column(private):
    rows, names, _ = through(private, "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop'")
    assert "secret" not in repr(rows)
    assert names == direct("SELECT * FROM information_schema.COLUMNS LIMIT 0")[1]
    # A table without a rule keeps its expressions.
    orders = sorted(r for r in rows if r[2] == "orders")
    assert orders and orders == sorted(direct("SELECT * FROM information_schema.COLUMNS"
                                              " WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders'")[0])


def test_shown_columns_are_numbered_without_gaps(private):
    sql = ("SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop'"
           " AND TABLE_NAME = '{t}' ORDER BY ORDINAL_POSITION")
    got = through(private, sql.format(t="col_expr"))[0]
    assert [r[1] for r in got] == list(range(1, 8)), got
    assert dict(direct(sql.format(t="col_expr"))[0])["base"] == 3, "not vacuous: secret_pay is 2"
    # A table without a rule keeps the server's numbers, and the column keeps its type.
    assert through(private, sql.format(t="orders"))[0] == direct(sql.format(t="orders"))[0]
    mine, theirs = through(private, sql.format(t="col_expr"))[2], direct(sql.format(t="col_expr"))[2]
    assert mine[1] == theirs[1], (mine, theirs)
