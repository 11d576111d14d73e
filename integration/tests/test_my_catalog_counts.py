"""Figures that count a table's rows do not count what a rule hides. User
support reads orders through a row filter and customers through a column
list: information_schema.TABLES (TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH,
INDEX_LENGTH, DATA_FREE, AUTO_INCREMENT, UPDATE_TIME, CHECKSUM), SHOW
TABLE STATUS and STATISTICS.CARDINALITY read as unknown (NULL) for them,
as MariaDB shows a table it has no figures for, and so does SHOW INDEX
(a read of the filtered STATISTICS); SHOW CREATE TABLE of the filtered
table, which prints the next AUTO_INCREMENT value, is refused. The agent,
who has no rule, still sees the backend's figures."""

import pymysql
import pytest

import itest

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

COUNTED = ["TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE", "AUTO_INCREMENT",
           "CHECKSUM"]


def rows(user, sql):
    password = "support-secret" if user.startswith("support") else itest.AGENT_PASSWORD
    conn = itest.my_connect(user=user, password=password, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


def test_tables_figures_are_unknown_for_ruled_tables():
    sql = ("SELECT TABLE_NAME, %s, UPDATE_TIME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop'"
           " ORDER BY TABLE_NAME" % ", ".join(COUNTED))
    got = rows("support", sql)
    assert [r[0] for r in got] == ["customers", "orders"]
    for r in got:
        assert all(v is None for v in r[1:]), r
    # Without a rule the backend's own figures come through.
    agent = {r[0]: r for r in rows("agent", sql)}
    assert agent["orders"][1] and agent["orders"][1] > 1000, agent["orders"]
    assert agent["orders"][6] and agent["orders"][6] > 1000, agent["orders"]


def test_table_status_figures_are_unknown_for_ruled_tables():
    got = rows("support", "SHOW TABLE STATUS LIKE 'orders'")
    assert len(got) == 1
    conn = itest.my_connect(user="support", password="support-secret", autocommit=True)
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute("SHOW TABLE STATUS")
            status = {r["Name"]: r for r in cur.fetchall()}
    finally:
        conn.close()
    assert sorted(status) == ["customers", "orders"]
    for r in status.values():
        for k in ("Rows", "Avg_row_length", "Data_length", "Index_length", "Data_free", "Auto_increment",
                  "Update_time", "Checksum"):
            assert r[k] is None, (r["Name"], k, r[k])
        assert r["Engine"] == "InnoDB"


def test_cardinality_is_unknown_for_ruled_tables():
    got = rows("support", "SELECT TABLE_NAME, INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS"
                          " WHERE TABLE_SCHEMA = 'shop' ORDER BY 1, 2")
    assert ("orders", "orders_customer_id", None) in got, got
    assert all(r[2] is None for r in got), got
    agent = rows("agent", "SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'shop'"
                          " AND TABLE_NAME = 'orders' AND INDEX_NAME = 'PRIMARY'")
    assert agent[0][0] and agent[0][0] > 1000, agent


@pytest.mark.parametrize("sql", ["SHOW INDEX FROM orders", "SHOW KEYS FROM shop.orders"])
def test_show_index_of_a_filtered_table_has_no_cardinality(sql):
    got = rows("support", sql)
    assert [(r[2], r[4]) for r in got] == [("PRIMARY", "id"), ("orders_customer_id", "customer_id")], got
    assert all(r[6] is None for r in got), got
    # The agent, without a rule, reads the figures.
    assert all(r[6] for r in rows("agent", sql))


@pytest.mark.parametrize("sql", ["SHOW CREATE TABLE orders"])
def test_show_forms_that_count_rows_are_refused_for_a_filtered_table(sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        rows("support", sql)
    assert e.value.args[0] == 1235 and "UNSUPPORTED" in e.value.args[1], e.value.args
    # The agent, without a rule, reads them.
    assert rows("agent", sql)
