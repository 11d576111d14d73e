"""max_rows and max_bytes: results are cut, and the client is told why;
and the per-user cap on running jobs."""

import psycopg2
import pytest

import itest


def run(conn, sql):
    del conn.notices[:]
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall(), cur.rowcount


def test_max_rows_truncates_with_notice(small):
    rows, n = run(small, "SELECT id FROM orders ORDER BY id")
    assert rows == [(1,), (2,), (3,), (4,), (5,)]
    assert n == 5
    assert any("max_rows" in m for m in small.notices), small.notices


def test_under_max_rows_no_notice(small):
    rows, n = run(small, "SELECT id FROM orders ORDER BY id LIMIT 4")
    assert rows == [(1,), (2,), (3,), (4,)]
    assert not any("max_rows" in m or "max_bytes" in m for m in small.notices), small.notices


def test_default_user_max_rows(agent_ac):
    rows, n = run(agent_ac, "SELECT id FROM orders ORDER BY id")
    assert [r[0] for r in rows] == list(range(1, 1001))
    assert any("max_rows" in m for m in agent_ac.notices), agent_ac.notices
    rows, n = run(agent_ac, "SELECT id FROM orders ORDER BY id LIMIT 10")
    assert len(rows) == 10
    assert not agent_ac.notices


def test_max_bytes_truncates_with_notice(small):
    rows, n = run(small, "SELECT id, repeat('x', 500) AS pad FROM orders ORDER BY id")
    assert 1 <= len(rows) <= 4, len(rows)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r[1] == "x" * 500 for r in rows)
    assert any("max_bytes" in m for m in small.notices), small.notices


def test_single_huge_value_is_cut(small):
    """One value larger than max_bytes never reaches the client."""
    rows, n = run(small, "SELECT repeat('y', 100000) AS big")
    assert sum(len(r[0]) for r in rows) <= 2000
    assert any("max_bytes" in m for m in small.notices), small.notices


def test_psql_prints_truncation_notice():
    r = itest.psql(itest.SMALL_URL, "SELECT id FROM orders ORDER BY id")
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("(5 rows)"), r.stdout
    assert "NOTICE" in r.stderr and "max_rows" in r.stderr, r.stderr


def test_per_user_job_cap():
    """agent_small may run 2 jobs at once; open cursors hold theirs, so a
    third cursor is refused with 53300 BUSY until one is closed."""
    conn = itest.connect(itest.SMALL_URL)
    try:
        cur = conn.cursor()
        cur.execute("DECLARE c1 CURSOR FOR SELECT id FROM orders ORDER BY id")
        cur.execute("DECLARE c2 CURSOR FOR SELECT id FROM customers ORDER BY id")
        with pytest.raises(psycopg2.OperationalError) as exc:
            cur.execute("DECLARE c3 CURSOR FOR SELECT id FROM products ORDER BY id")
        assert exc.value.pgcode == "53300"
        assert "BUSY" in str(exc.value)
        conn.rollback()  # ends the transaction and its cursors
        cur = conn.cursor()
        cur.execute("DECLARE c3 CURSOR FOR SELECT id FROM products ORDER BY id")
        cur.execute("FETCH 2 FROM c3")
        assert cur.fetchall() == [(1,), (2,)]
    finally:
        conn.close()
    # Other users are not held back by agent_small's cap.
    other = itest.connect(itest.AGENT_URL, autocommit=True)
    try:
        cur = other.cursor()
        cur.execute("SELECT 1")
        assert cur.fetchall() == [(1,)]
    finally:
        other.close()


def test_cost_cap_refuses_before_running(small):
    """max_cost: EXPLAIN's estimate is checked first; a cross join of orders
    with itself is refused with 54001 COST_LIMIT without being run."""
    with small.cursor() as cur:
        with pytest.raises(psycopg2.Error) as exc:
            cur.execute("SELECT count(*) FROM orders a, orders b")
        assert exc.value.pgcode == "54001"
        assert "COST_LIMIT" in str(exc.value)
        assert "max_cost=1000000" in str(exc.value)
    small.rollback()
    with small.cursor() as cur:
        cur.execute("SELECT id FROM orders WHERE id = 42")
        assert cur.fetchall() == [(42,)]
        # EXPLAIN itself only plans: it is not cost-checked.
        cur.execute("EXPLAIN SELECT count(*) FROM orders a, orders b")
        assert cur.fetchall()


def test_cost_cap_off_by_default(agent_ac):
    with agent_ac.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders a, orders b WHERE a.id = b.id")
        assert cur.fetchall() == [(200000,)]


def test_truncation_is_error_over_postgres():
    strict = itest.AGENT_URL.replace("agent:agent-secret", "strict:agent-secret")
    conn = itest.connect(strict, autocommit=True)
    try:
        with pytest.raises(psycopg2.Error) as e:
            with conn.cursor() as cur:
                cur.execute("SELECT id FROM orders ORDER BY id")
        assert e.value.pgcode == "54000" and "RESULT_TRUNCATED" in str(e.value), e.value
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 5")
            assert len(cur.fetchall()) == 5
    finally:
        conn.close()
