"""Row filters and column policies over MySQL, user support: orders only
where customer_id <= 100, customers as id, name and a masked email. Every
reading path (text queries and mysql2's server-side prepared statements)
must return exactly what MariaDB returns for the same query written over
the filtered, masked tables; support_cols sees orders as three columns."""

import pymysql
import pytest

import itest
from test_my_drivers import mysql2_run

pytestmark = pytest.mark.usefixtures("my_snapshot_guard")

ORDERS = "(SELECT * FROM orders WHERE customer_id <= 100)"
CUSTOMERS = ("(SELECT id, name, CONCAT(LEFT(email, 1), '***@', SUBSTRING_INDEX(email, '@', -1)) AS email"
             " FROM customers)")

PATHS = [
    ("SELECT id, customer_id, amount FROM orders ORDER BY id LIMIT 50",
     "SELECT id, customer_id, amount FROM {o} orders ORDER BY id LIMIT 50"),
    ("SELECT COUNT(*), SUM(amount), MAX(customer_id) FROM orders",
     "SELECT COUNT(*), SUM(amount), MAX(customer_id) FROM {o} orders"),
    ("SELECT * FROM shop.orders WHERE customer_id > 95 ORDER BY id DESC LIMIT 5",
     "SELECT * FROM {o} orders WHERE customer_id > 95 ORDER BY id DESC LIMIT 5"),
    ("SELECT c.id, c.email, COUNT(o.id) FROM customers c JOIN orders o ON o.customer_id = c.id"
     " GROUP BY c.id, c.email ORDER BY c.id DESC LIMIT 5",
     "SELECT c.id, c.email, COUNT(o.id) FROM {c} c JOIN {o} o ON o.customer_id = c.id"
     " GROUP BY c.id, c.email ORDER BY c.id DESC LIMIT 5"),
    ("SELECT COUNT(*) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL",
     "SELECT COUNT(*) FROM {c} c LEFT JOIN {o} o ON o.customer_id = c.id WHERE o.id IS NULL"),
    ("SELECT COUNT(*) FROM customers WHERE id IN (SELECT customer_id FROM orders)",
     "SELECT COUNT(*) FROM {c} customers WHERE id IN (SELECT customer_id FROM {o} orders)"),
    ("SELECT (SELECT MAX(amount) FROM orders), (SELECT COUNT(*) FROM orders o WHERE o.customer_id = 7)",
     "SELECT (SELECT MAX(amount) FROM {o} orders), (SELECT COUNT(*) FROM {o} o WHERE o.customer_id = 7)"),
    ("WITH t AS (SELECT customer_id, amount FROM orders) SELECT COUNT(DISTINCT customer_id), SUM(amount) FROM t",
     "WITH t AS (SELECT customer_id, amount FROM {o} orders) SELECT COUNT(DISTINCT customer_id), SUM(amount)"
     " FROM t"),
    ("SELECT COUNT(*) FROM (SELECT customer_id FROM orders) AS d WHERE customer_id > 50",
     "SELECT COUNT(*) FROM (SELECT customer_id FROM {o} orders) AS d WHERE customer_id > 50"),
    ("SELECT customer_id FROM orders UNION SELECT id FROM customers WHERE id > 995 ORDER BY 1 DESC LIMIT 8",
     "SELECT customer_id FROM {o} orders UNION SELECT id FROM {c} customers WHERE id > 995"
     " ORDER BY 1 DESC LIMIT 8"),
    ("SELECT email FROM customers WHERE id IN (1, 50, 999) ORDER BY id",
     "SELECT email FROM {c} customers WHERE id IN (1, 50, 999) ORDER BY id"),
    ("SELECT COUNT(*) FROM customers WHERE email LIKE 'customer%'",
     "SELECT COUNT(*) FROM {c} customers WHERE email LIKE 'customer%'"),
    ("SELECT * FROM customers ORDER BY id LIMIT 3", "SELECT * FROM {c} customers ORDER BY id LIMIT 3"),
    # db.table.column: the derived table has no database.
    ("SELECT shop.customers.email, `shop`.`customers`.`id` FROM shop.customers WHERE shop.customers.id < 4"
     " ORDER BY shop.customers.id",
     "SELECT customers.email, customers.id FROM {c} customers WHERE customers.id < 4 ORDER BY customers.id"),
    ("SELECT `o`.`id` FROM `shop`.`orders` AS `o` ORDER BY 1 DESC LIMIT 2",
     "SELECT `o`.`id` FROM {o} AS `o` ORDER BY 1 DESC LIMIT 2"),
    # Index hints go inside the filtered table.
    ("SELECT id FROM orders USE INDEX (PRIMARY) WHERE id <= 40 ORDER BY id",
     "SELECT id FROM {o} orders WHERE id <= 40 ORDER BY id"),
    ("SELECT o.id, c.email FROM orders AS o FORCE INDEX FOR JOIN (PRIMARY), customers c IGNORE INDEX (PRIMARY)"
     " WHERE c.id = o.customer_id AND o.id < 30 ORDER BY o.id",
     "SELECT o.id, c.email FROM {o} AS o, {c} c WHERE c.id = o.customer_id AND o.id < 30 ORDER BY o.id"),
    # VALUES and JSON_TABLE beside a filtered table.
    ("SELECT o.id FROM orders o WHERE o.customer_id IN (VALUES (7), (150), (99)) ORDER BY o.id",
     "SELECT o.id FROM {o} o WHERE o.customer_id IN (VALUES (7), (150), (99)) ORDER BY o.id"),
    ("SELECT o.id, j.v FROM orders o, JSON_TABLE(CONCAT('[', o.customer_id, ']'), '$[*]'"
     " COLUMNS (v INT PATH '$')) AS j WHERE o.id < 20 ORDER BY o.id",
     "SELECT o.id, j.v FROM {o} o, JSON_TABLE(CONCAT('[', o.customer_id, ']'), '$[*]'"
     " COLUMNS (v INT PATH '$')) AS j WHERE o.id < 20 ORDER BY o.id"),
]


def my_rows(sql, user="support", direct=False):
    conn = itest.my_direct() if direct else itest.my_connect(user=user, password="support-secret",
                                                           autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("through,direct", PATHS)
def test_paths_see_the_filtered_table(through, direct):
    assert my_rows(through) == my_rows(direct.format(o=ORDERS, c=CUSTOMERS), direct=True)


def test_prepared_statements_see_the_filtered_table():
    jobs = [{"sql": "SELECT COUNT(*), MIN(customer_id) FROM orders WHERE customer_id > ?", "values": [t],
             "execute": True} for t in (0, 50, 99, 100, 150)]
    jobs.append({"sql": "SELECT email FROM customers WHERE id = ?", "values": [42], "execute": True})
    direct = [{"sql": j["sql"].replace("FROM orders", "FROM " + ORDERS + " orders")
               .replace("FROM customers", "FROM " + CUSTOMERS + " customers"),
               "values": j["values"], "execute": True} for j in jobs]
    got = mysql2_run(jobs, user=("support", "support-secret"))
    want = mysql2_run(direct, direct=True)
    assert [g["rows"] for g in got] == [w["rows"] for w in want]


def test_filter_and_columns_keep_their_secrets():
    for sql in ["EXPLAIN SELECT * FROM orders", "EXPLAIN FORMAT=JSON SELECT email FROM customers",
                "DESCRIBE customers", "SHOW CREATE TABLE customers", "SHOW COLUMNS FROM customers"]:
        conn = itest.my_connect(user="support", password="support-secret", autocommit=True)
        try:
            with pytest.raises(pymysql.MySQLError) as info:
                with conn.cursor() as cur:
                    cur.execute(sql)
            assert info.value.args[0] == 1235, sql
            assert "customer_id <=" not in str(info.value)
        finally:
            conn.close()
    assert my_rows("SELECT COUNT(*) FROM orders WHERE customer_id > 100") == ((0,),)


def test_columns_policy():
    conn = itest.my_connect(user="support_cols", password="support-secret", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT * FROM orders ORDER BY id LIMIT 3")
            assert [d[0] for d in cur.description] == ["id", "customer_id", "amount"]
            got = cur.fetchall()
            cur.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'orders'"
                        " ORDER BY ORDINAL_POSITION")
            assert [r[0] for r in cur.fetchall()] == ["id", "customer_id", "amount"]
            cur.execute("SELECT DISTINCT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = 'orders'"
                        " ORDER BY 1")
            assert [r[0] for r in cur.fetchall()] == ["customer_id", "id"]
            with pytest.raises(pymysql.MySQLError) as info:
                cur.execute("SELECT note FROM orders")
            assert info.value.args[0] == 1054
    finally:
        conn.close()
    assert got == my_rows("SELECT id, customer_id, ROUND(amount, -2) FROM orders ORDER BY id LIMIT 3", direct=True)


def test_other_users_unaffected(my_agent):
    with my_agent.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders WHERE customer_id > 100")
        assert cur.fetchone()[0] > 0


def test_show_policy_names_what_not_how():
    got = my_rows("SHOW AIRLOCK POLICY")
    assert ("user", "support", "") in got
    assert ("table", "shop.orders", "rows filtered") in got
    assert ("table", "shop.customers", "columns id, name, email; masked: email") in got
    assert "customer_id <=" not in repr(got) and "SUBSTRING_INDEX" not in repr(got)
