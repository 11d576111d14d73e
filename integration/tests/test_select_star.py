"""forbid_select_star, user narrow (orders shown as id, customer_id and
amount; customers whole), on both listeners with real clients: a read whose
result columns come from a star is refused with SELECT_STAR and a hint that
names exactly the columns the user may read (a columns rule's list, else the
table's own; a hidden column never), while named columns, count(*) and
EXISTS (SELECT * ...) run, and users without the key are not affected."""

import psycopg
import psycopg2
import pymysql
import pytest

import itest
import mywire
from test_my_drivers import mysql2_run

pytestmark = pytest.mark.usefixtures("snapshot_guard", "my_snapshot_guard")

NARROW_URL = itest.AGENT_URL.replace("agent:agent-secret", "narrow:agent-secret")
ORDERS_HINT = "name the columns you need: id, customer_id, amount"
CUSTOMERS_HINT = "name the columns you need: id, name, email"
HIDDEN = ("note", "created_at")


@pytest.fixture
def pg():
    yield from itest.connected(NARROW_URL)


def pg_refusal(conn, sql):
    with pytest.raises(psycopg2.Error) as e:
        with conn.cursor() as cur:
            cur.execute(sql)
    return e.value


# ---------------------------------------------------------------- Postgres


@pytest.mark.parametrize("sql,hint", [
    ("SELECT * FROM customers", CUSTOMERS_HINT),
    ("SELECT * FROM orders WHERE id < 10", ORDERS_HINT),
    ("SELECT o.* FROM orders o", ORDERS_HINT),
    ("TABLE orders", ORDERS_HINT),
    ("SELECT id, o.* FROM orders o", ORDERS_HINT),
    ("SELECT customer_id FROM orders UNION SELECT * FROM (SELECT id FROM customers) c",
     "name the columns you need: customer_id"),
    ("SELECT o FROM orders o", ORDERS_HINT),
    ("SELECT to_json(c) FROM customers c", CUSTOMERS_HINT),
    ("COPY (SELECT * FROM orders) TO STDOUT", ORDERS_HINT),
])
def test_pg_select_star_refused_with_the_columns(pg, sql, hint):
    e = pg_refusal(pg, sql)
    assert e.pgcode == "42501"
    assert e.diag.message_primary.startswith("SELECT_STAR: "), e.diag.message_primary
    assert e.diag.message_hint == hint
    for col in HIDDEN:
        assert col not in e.diag.message_hint
    # The session goes on.
    with pg.cursor() as cur:
        cur.execute("SELECT count(*) FROM customers")
        assert cur.fetchone() == (1000,)


def test_pg_select_star_join_lists_both_tables(pg):
    e = pg_refusal(pg, "SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id")
    assert e.diag.message_hint == "name the columns you need: id, customer_id, amount, name, email"


@pytest.mark.parametrize("sql", [
    "SELECT id, name, email FROM customers ORDER BY id LIMIT 3",
    "SELECT count(*) FROM orders",
    "SELECT count(*), count(o.*) FROM orders o",
    "SELECT id FROM customers c WHERE EXISTS (SELECT * FROM orders o WHERE o.customer_id = c.id) LIMIT 3",
    "SELECT id FROM customers WHERE id IN (SELECT customer_id FROM (SELECT * FROM orders) o) LIMIT 3",
    "WITH x AS (SELECT * FROM orders) SELECT id, amount FROM x ORDER BY id LIMIT 3",
    "EXPLAIN SELECT * FROM customers",
])
def test_pg_select_star_what_runs(pg, sql):
    with pg.cursor() as cur:
        cur.execute(sql)
        assert cur.fetchall()


def test_pg_select_star_prepared(pg):
    """Parse is refused with the same hint; the described statement's parameters are typed."""
    with psycopg.connect(NARROW_URL, autocommit=True, connect_timeout=10) as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT * FROM orders WHERE id = %s", [3], prepare=True)
        assert e.value.sqlstate == "42501"
        assert e.value.diag.message_hint == ORDERS_HINT
        rows = conn.execute("SELECT id, amount FROM orders WHERE id = %s", [3], prepare=True).fetchall()
        assert [r[0] for r in rows] == [3]
        (n,) = conn.execute("SELECT count(*) FROM orders WHERE id < %s", [5], prepare=True).fetchone()
        assert isinstance(n, int)


def test_pg_select_star_cursor_and_transaction():
    conn = itest.connect(NARROW_URL)
    try:
        cur = conn.cursor(name="wide")
        with pytest.raises(psycopg2.Error) as e:
            cur.execute("SELECT * FROM orders")
        assert e.value.diag.message_hint == ORDERS_HINT
        conn.rollback()
        with conn.cursor() as plain:
            plain.execute("SELECT id FROM orders ORDER BY id LIMIT 1")
            assert plain.fetchone() is not None
        conn.commit()
    finally:
        conn.close()


def test_pg_select_star_psql():
    r = itest.psql(NARROW_URL, "SELECT * FROM orders", extra=["-v", "VERBOSITY=verbose"])
    assert r.returncode != 0
    assert "42501" in r.stderr and "SELECT_STAR" in r.stderr, r.stderr
    assert "HINT:  " + ORDERS_HINT in r.stderr, r.stderr
    assert "note" not in r.stderr
    r = itest.psql(NARROW_URL, "SELECT id, amount FROM orders ORDER BY id LIMIT 2")
    assert r.returncode == 0, r.stderr
    r = itest.psql(NARROW_URL, "SHOW airlock.policy")
    assert r.returncode == 0 and "forbid_select_star" in r.stdout, r.stdout


def test_pg_select_star_other_users_unaffected():
    rows = itest.fetch_all(itest.AGENT_URL, "SELECT * FROM orders ORDER BY id LIMIT 2")
    assert len(rows[0]) == 5
    r = itest.psql(itest.AGENT_URL, "SELECT * FROM customers ORDER BY id LIMIT 1")
    assert r.returncode == 0, r.stderr
    r = itest.psql(itest.AGENT_URL, "SHOW airlock.policy")
    assert "forbid_select_star" not in r.stdout


# ---------------------------------------------------------------- MySQL


def my_refusal(sql, user="narrow"):
    conn = itest.my_connect(user=user)
    try:
        with conn.cursor() as cur:
            with pytest.raises(pymysql.MySQLError) as e:
                cur.execute(sql)
            # The session goes on.
            cur.execute("SELECT COUNT(*) FROM customers")
            assert cur.fetchone() == (1000,)
        return e.value.args
    finally:
        conn.close()


@pytest.mark.parametrize("sql,hint", [
    ("SELECT * FROM customers", CUSTOMERS_HINT),
    ("SELECT * FROM orders WHERE id < 10", ORDERS_HINT),
    ("SELECT o.* FROM shop.orders o", ORDERS_HINT),
    ("SELECT id, o.* FROM orders o", ORDERS_HINT),
    ("(SELECT * FROM orders) UNION SELECT id, customer_id, amount FROM orders", ORDERS_HINT),
    ("SELECT * FROM (SELECT id, customer_id FROM orders) d", "name the columns you need: id, customer_id"),
])
def test_my_select_star_refused_with_the_columns(sql, hint):
    errno, message = my_refusal(sql)
    assert errno == 1142
    assert "SELECT_STAR" in message
    assert message.endswith("(" + hint + ")"), message
    for col in HIDDEN:
        assert col not in message


@pytest.mark.parametrize("sql", [
    "SELECT id, name, email FROM customers ORDER BY id LIMIT 3",
    "SELECT COUNT(*) FROM orders",
    "SELECT id FROM customers c WHERE EXISTS (SELECT * FROM orders o WHERE o.customer_id = c.id) LIMIT 3",
    "SELECT id FROM customers WHERE id IN (SELECT customer_id FROM (SELECT * FROM orders) o) LIMIT 3",
    "SELECT d.id FROM (SELECT * FROM orders) d ORDER BY d.id LIMIT 3",
    "EXPLAIN SELECT * FROM customers",
    "DESCRIBE customers",
])
def test_my_select_star_what_runs(sql):
    conn = itest.my_connect(user="narrow")
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            assert cur.fetchall()
    finally:
        conn.close()


def test_my_select_star_prepared():
    jobs = [
        {"sql": "SELECT * FROM orders WHERE id = ?", "values": [3], "execute": True},
        {"sql": "SELECT id, amount FROM orders WHERE id = ?", "values": [3], "execute": True},
        {"sql": "SELECT COUNT(*) AS n FROM orders WHERE id < ?", "values": [5], "execute": True},
    ]
    out = mysql2_run(jobs, user=("narrow", itest.AGENT_PASSWORD))
    assert out[0]["error"]["errno"] == 1142, out[0]
    assert out[0]["error"]["message"].endswith("(" + ORDERS_HINT + ")"), out[0]
    assert [r[0] for r in out[1]["rows"]] == [3]
    assert len(out[2]["rows"]) == 1


def test_my_select_star_field_list():
    """COM_FIELD_LIST returns column definitions only: not refused, and the hidden columns stay hidden."""
    c = mywire.Conn(itest.MY_HOST, itest.MY_PORT)
    try:
        assert c.login("narrow", itest.AGENT_PASSWORD, "shop") is None
        columns, eof = c.field_list("orders")
        assert [col.name for col in columns] == ["id", "customer_id", "amount"]
        assert isinstance(eof, mywire.Eof)
    finally:
        c.close()


def test_my_select_star_cli():
    r = itest.mysql_cli("SELECT * FROM orders", user="narrow")
    assert r.returncode != 0
    assert "ERROR 1142 (42000)" in r.stderr and "SELECT_STAR" in r.stderr, r.stderr
    assert "(" + ORDERS_HINT + ")" in r.stderr, r.stderr
    assert "note" not in r.stderr
    r = itest.mysql_cli("SELECT id, amount FROM orders ORDER BY id LIMIT 2", user="narrow")
    assert r.returncode == 0, r.stderr
    r = itest.mysql_cli("SHOW AIRLOCK POLICY", user="narrow")
    assert r.returncode == 0 and "forbid_select_star" in r.stdout, r.stdout


def test_my_select_star_other_users_unaffected():
    conn = itest.my_connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT * FROM orders ORDER BY id LIMIT 2")
            assert len(cur.fetchone()) == 5
    finally:
        conn.close()
    r = itest.mysql_cli("SELECT * FROM customers ORDER BY id LIMIT 1")
    assert r.returncode == 0, r.stderr
