"""Row filters and column policies over Postgres, user support: orders only
where customer_id <= 100, customers as id, name and a masked email. Every
reading path must return exactly what a direct query with the predicate
and the mask returns; support_cols sees orders as three columns, one of
them masked."""

import psycopg
import psycopg2
import pytest

import itest

pytestmark = pytest.mark.usefixtures("snapshot_guard")

SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")
COLS_URL = itest.AGENT_URL.replace("agent:agent-secret", "support_cols:support-secret")

# What support sees, written out for a direct connection.
ORDERS = "(SELECT * FROM orders WHERE customer_id <= 100)"
CUSTOMERS = ("(SELECT id, name, left(email, 1) || '***@' || split_part(email, '@', 2) AS email"
             " FROM customers)")

# (query through airlock, the same query written against the views above)
PATHS = [
    ("SELECT id, customer_id, amount FROM orders ORDER BY id LIMIT 50",
     "SELECT id, customer_id, amount FROM {o} orders ORDER BY id LIMIT 50"),
    ("SELECT count(*), sum(amount), max(customer_id) FROM orders",
     "SELECT count(*), sum(amount), max(customer_id) FROM {o} orders"),
    ("SELECT * FROM public.orders WHERE customer_id > 95 ORDER BY id DESC LIMIT 5",
     "SELECT * FROM {o} orders WHERE customer_id > 95 ORDER BY id DESC LIMIT 5"),
    ("SELECT c.id, c.email, count(o.id) FROM customers c JOIN orders o ON o.customer_id = c.id"
     " GROUP BY c.id, c.email ORDER BY c.id DESC LIMIT 5",
     "SELECT c.id, c.email, count(o.id) FROM {c} c JOIN {o} o ON o.customer_id = c.id"
     " GROUP BY c.id, c.email ORDER BY c.id DESC LIMIT 5"),
    ("SELECT count(*) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL",
     "SELECT count(*) FROM {c} c LEFT JOIN {o} o ON o.customer_id = c.id WHERE o.id IS NULL"),
    ("SELECT count(*) FROM customers WHERE id IN (SELECT customer_id FROM orders)",
     "SELECT count(*) FROM {c} customers WHERE id IN (SELECT customer_id FROM {o} orders)"),
    ("SELECT (SELECT max(amount) FROM orders), (SELECT count(*) FROM orders o WHERE o.customer_id = 7)",
     "SELECT (SELECT max(amount) FROM {o} orders), (SELECT count(*) FROM {o} o WHERE o.customer_id = 7)"),
    ("WITH t AS (SELECT customer_id, amount FROM orders) SELECT count(DISTINCT customer_id), sum(amount) FROM t",
     "WITH t AS (SELECT customer_id, amount FROM {o} orders) SELECT count(DISTINCT customer_id), sum(amount)"
     " FROM t"),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3)"
     " SELECT n, (SELECT count(*) FROM orders WHERE customer_id = n) FROM r",
     "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3)"
     " SELECT n, (SELECT count(*) FROM {o} orders WHERE customer_id = n) FROM r"),
    ("SELECT c.id, x.n FROM customers c, LATERAL (SELECT count(*) AS n FROM orders o"
     " WHERE o.customer_id = c.id) x WHERE c.id BETWEEN 95 AND 105 ORDER BY c.id",
     "SELECT c.id, x.n FROM {c} c, LATERAL (SELECT count(*) AS n FROM {o} o"
     " WHERE o.customer_id = c.id) x WHERE c.id BETWEEN 95 AND 105 ORDER BY c.id"),
    ("SELECT customer_id FROM orders UNION SELECT id FROM customers WHERE id > 995 ORDER BY 1 DESC LIMIT 8",
     "SELECT customer_id FROM {o} orders UNION SELECT id FROM {c} customers WHERE id > 995"
     " ORDER BY 1 DESC LIMIT 8"),
    ("SELECT count(*) FROM (SELECT customer_id FROM orders INTERSECT SELECT id FROM customers) s",
     "SELECT count(*) FROM (SELECT customer_id FROM {o} orders INTERSECT SELECT id FROM {c} customers) s"),
    ("SELECT o FROM orders o ORDER BY id LIMIT 2", "SELECT o FROM {o} o ORDER BY id LIMIT 2"),
    ("SELECT email FROM customers WHERE id IN (1, 50, 999) ORDER BY id",
     "SELECT email FROM {c} customers WHERE id IN (1, 50, 999) ORDER BY id"),
    ("SELECT count(*) FROM customers WHERE email LIKE 'customer%'",
     "SELECT count(*) FROM {c} customers WHERE email LIKE 'customer%'"),
    ("SELECT * FROM customers ORDER BY id LIMIT 3", "SELECT * FROM {c} customers ORDER BY id LIMIT 3"),
    ("TABLE orders ORDER BY id LIMIT 2", "SELECT * FROM {o} orders ORDER BY id LIMIT 2"),
    ("SELECT count(*) FROM ONLY orders", "SELECT count(*) FROM {o} orders"),
]


def rows(url, sql):
    return itest.fetch_all(url, sql)


@pytest.mark.parametrize("through,direct", PATHS)
def test_paths_see_the_filtered_table(through, direct):
    want = rows(itest.direct_url(), direct.format(o=ORDERS, c=CUSTOMERS))
    assert rows(SUPPORT_URL, through) == want


def test_filter_holds_for_every_row():
    got = rows(SUPPORT_URL, "SELECT count(*), count(*) FILTER (WHERE customer_id > 100) FROM orders")
    assert got[0][0] > 0 and got[0][1] == 0
    assert rows(SUPPORT_URL, "SELECT count(*) FROM orders WHERE customer_id > 100") == [(0,)]


def test_cursor_reads_the_filtered_table():
    conn = itest.connect(SUPPORT_URL)
    try:
        with conn.cursor() as cur:
            cur.execute("DECLARE c CURSOR FOR SELECT customer_id, email FROM orders o"
                        " JOIN customers c ON c.id = o.customer_id WHERE c.email IS NOT NULL"
                        " ORDER BY customer_id DESC")
            cur.execute("FETCH 3 FROM c")
            got = cur.fetchall()
        conn.rollback()
    finally:
        conn.close()
    assert all(r[0] <= 100 for r in got) and len(got) == 3
    assert all(r[1].startswith("c***@") for r in got)


def test_prepared_and_parameters():
    """The extended protocol: parameters, named statements, the same statement run many times."""
    with psycopg.connect(SUPPORT_URL, autocommit=True) as conn, \
            psycopg.connect(itest.direct_url(), autocommit=True) as direct:
        for threshold in (0, 50, 99, 100, 150):
            sql = "SELECT count(*), min(customer_id) FROM orders WHERE customer_id > %s"
            got = conn.execute(sql, (threshold,), prepare=True).fetchall()
            want = direct.execute("SELECT count(*), min(customer_id) FROM " + ORDERS +
                                  " orders WHERE customer_id > %s", (threshold,)).fetchall()
            assert got == want, threshold
        got = conn.execute("SELECT email FROM customers WHERE id = %s", (42,), prepare=True).fetchall()
        want = direct.execute("SELECT email FROM " + CUSTOMERS + " c WHERE id = %s", (42,)).fetchall()
        assert got == want


def test_plan_and_own_text_refused_with_a_filtered_table():
    for sql in ["EXPLAIN SELECT * FROM orders",
                "EXPLAIN (VERBOSE) SELECT email FROM customers",
                "SELECT query, (SELECT count(*) FROM orders) FROM pg_stat_activity",
                "SELECT current_query(), count(*) FROM orders"]:
        conn = itest.connect(SUPPORT_URL, autocommit=True)
        try:
            with pytest.raises(psycopg2.Error) as info:
                with conn.cursor() as cur:
                    cur.execute(sql)
            assert info.value.pgcode == "0A000", sql
            assert "customer_id" not in str(info.value)
        finally:
            conn.close()


def test_statistics_of_filtered_tables_hidden():
    assert rows(SUPPORT_URL, "SELECT count(*) FROM pg_stats WHERE tablename IN ('orders', 'customers')") == [(0,)]
    assert rows(itest.AGENT_URL, "SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'orders'") == [(True,)]


def test_columns_policy():
    with itest.connect(COLS_URL, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM orders ORDER BY id LIMIT 3")
        assert [d.name for d in cur.description] == ["id", "customer_id", "amount"]
        got = cur.fetchall()
        cur.execute("SELECT attname FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attnum > 0"
                    " ORDER BY attnum")
        assert [r[0] for r in cur.fetchall()] == ["id", "customer_id", "amount"]
        cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'orders'"
                    " ORDER BY ordinal_position")
        assert [r[0] for r in cur.fetchall()] == ["id", "customer_id", "amount"]
    want = rows(itest.direct_url(), "SELECT id, customer_id, round(amount, -2) FROM orders ORDER BY id LIMIT 3")
    assert got == want
    for sql in ["SELECT note FROM orders", "SELECT o.created_at FROM orders o", "SELECT ctid FROM orders"]:
        conn = itest.connect(COLS_URL, autocommit=True)
        try:
            with pytest.raises(psycopg2.Error) as info:
                with conn.cursor() as cur:
                    cur.execute(sql)
            assert info.value.pgcode == "42703", sql
        finally:
            conn.close()
    r = itest.psql(COLS_URL, r"\d orders")
    assert r.returncode == 0, r.stderr
    assert "customer_id" in r.stdout and "note" not in r.stdout and "created_at" not in r.stdout


def test_other_users_unaffected(agent_ac):
    with agent_ac.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders WHERE customer_id > 100")
        assert cur.fetchone()[0] > 0
        cur.execute("SELECT email FROM customers WHERE id = 1")
        assert "***" not in cur.fetchone()[0]


def test_show_policy_names_what_not_how():
    got = rows(SUPPORT_URL, "SHOW airlock.policy")
    assert ("user", "support", "") in got
    assert ("table", "public.orders", "rows filtered") in got
    assert ("table", "public.customers", "columns id, name, email; masked: email") in got
    assert ("limit", "max_rows", "1000") in got
    assert "customer_id <=" not in repr(got) and "split_part" not in repr(got)
    r = itest.psql(SUPPORT_URL, "SHOW airlock.policy")
    assert r.returncode == 0 and "rows filtered" in r.stdout, r.stderr
    agent = rows(itest.AGENT_URL, "SHOW airlock.policy")
    assert ("table", "public.orders", "") in agent
