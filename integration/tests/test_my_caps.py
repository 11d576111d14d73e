"""max_rows, max_bytes and the statement timeout for MySQL clients:
agent_small has max_rows 5, max_bytes 2000 and timeout_ms 2000. A cut
result ends normally with one warning, and SHOW WARNINGS says which cap."""

import time

import MySQLdb
import pymysql
import pytest

import itest
import mywire


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        rows = cur.fetchall()
        return rows, cur._result.warning_count


def warnings(conn):
    with conn.cursor() as cur:
        cur.execute("SHOW WARNINGS")
        assert [d[0] for d in cur.description] == ["Level", "Code", "Message"]
        return cur.fetchall()


def test_max_rows_truncates_with_warning(my_small):
    rows, nwarn = run(my_small, "SELECT * FROM orders")
    assert len(rows) == 5
    assert nwarn == 1
    w = warnings(my_small)
    assert len(w) == 1, w
    assert "max_rows" in w[0][2], w
    assert w[0][0] in ("Warning", "Note"), w


def test_max_rows_ordered_values(my_small):
    rows, nwarn = run(my_small, "SELECT id FROM orders ORDER BY id")
    assert rows == ((1,), (2,), (3,), (4,), (5,))
    assert nwarn == 1


def test_under_max_rows_no_warning(my_small):
    rows, nwarn = run(my_small, "SELECT id FROM orders ORDER BY id LIMIT 4")
    assert rows == ((1,), (2,), (3,), (4,))
    assert nwarn == 0
    assert warnings(my_small) == ()


def test_warnings_cleared_by_next_statement(my_small):
    run(my_small, "SELECT id FROM orders")
    assert len(warnings(my_small)) == 1
    rows, nwarn = run(my_small, "SELECT 1")
    assert nwarn == 0
    assert warnings(my_small) == ()


def test_max_bytes_truncates_with_warning(my_small):
    rows, nwarn = run(my_small, "SELECT id, REPEAT('x', 500) AS pad FROM orders ORDER BY id")
    assert 1 <= len(rows) <= 4, len(rows)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r[1] == "x" * 500 for r in rows)
    assert nwarn == 1
    w = warnings(my_small)
    assert len(w) == 1 and "max_bytes" in w[0][2], w


def test_single_huge_value_is_cut(my_small):
    rows, nwarn = run(my_small, "SELECT REPEAT('y', 100000) AS big")
    assert sum(len(r[0]) for r in rows) <= 2000
    assert nwarn == 1
    assert "max_bytes" in warnings(my_small)[0][2]


def test_default_user_max_rows(my_agent):
    rows, nwarn = run(my_agent, "SELECT id FROM orders ORDER BY id")
    assert [r[0] for r in rows] == list(range(1, 1001))
    assert nwarn == 1
    assert "max_rows" in warnings(my_agent)[0][2]


def test_truncation_seen_by_mysqlclient():
    conn = itest.mysqldb_connect(user="agent_small")
    try:
        cur = conn.cursor()
        cur.execute("SELECT id FROM orders ORDER BY id")
        assert cur.fetchall() == ((1,), (2,), (3,), (4,), (5,))
        assert conn.warning_count() == 1
        cur.execute("SHOW WARNINGS")
        assert "max_rows" in cur.fetchall()[0][2]
    finally:
        conn.close()


def test_truncation_eof_on_the_wire():
    """The rows end with a normal EOF carrying warning count 1, never an ERR."""
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        assert c.login("agent_small", itest.AGENT_PASSWORD, "shop") is None
        r = c.query("SELECT id, note FROM orders ORDER BY id")
        assert isinstance(r, mywire.Result), r
        assert r.rows == [[b"1", b"order 1"], [b"2", b"order 2"], [b"3", b"order 3"],
                          [b"4", b"order 4"], [b"5", b"order 5"]]
        assert isinstance(r.end, mywire.Eof), r.end
        assert r.end.warnings == 1
        assert isinstance(c.ping(), mywire.Ok)


def test_mysql_cli_prints_truncated_rows():
    r = itest.mysql_cli("SELECT id FROM orders ORDER BY id", user="agent_small")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "id\n1\n2\n3\n4\n5\n"


# ---------------------------------------------------------------- timeout

def test_timeout_interrupts_sleep(my_small):
    t0 = time.monotonic()
    with pytest.raises(pymysql.err.MySQLError) as info:
        with my_small.cursor() as cur:
            cur.execute("SELECT SLEEP(15)")
            cur.fetchall()
    elapsed = time.monotonic() - t0
    assert info.value.args[0] == 3024, info.value.args
    assert elapsed < 6, elapsed
    assert elapsed >= 1.5, elapsed
    with my_small.cursor() as cur:
        cur.execute("SELECT id FROM orders WHERE id = 42")
        assert cur.fetchall() == ((42,),)


def test_timeout_interrupts_heavy_query(my_small):
    # Heavy per row, cheap to the planner (one scan of orders), so agent_small's max_cost lets it start.
    t0 = time.monotonic()
    with pytest.raises(pymysql.err.MySQLError) as info:
        with my_small.cursor() as cur:
            cur.execute("SELECT MAX(SHA2(REPEAT(note, 5000), 512)) FROM orders")
            cur.fetchall()
    assert info.value.args[0] == 3024, info.value.args
    assert time.monotonic() - t0 < 6
    with my_small.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchall() == ((1,),)


def test_timeout_seen_by_mysqlclient():
    conn = itest.mysqldb_connect(user="agent_small")
    try:
        cur = conn.cursor()
        t0 = time.monotonic()
        with pytest.raises(MySQLdb.MySQLError) as info:
            cur.execute("SELECT SLEEP(15)")
        assert info.value.args[0] == 3024, info.value.args
        assert time.monotonic() - t0 < 6
        cur.execute("SELECT 2")
        assert cur.fetchall() == ((2,),)
    finally:
        conn.close()


def test_short_sleep_succeeds(my_agent):
    t0 = time.monotonic()
    with my_agent.cursor() as cur:
        cur.execute("SELECT SLEEP(0.2)")
        assert cur.fetchall() == ((0,),)
    assert time.monotonic() - t0 >= 0.2


def test_sleep_not_allowed_without_allow_functions():
    """agent_sha2 has no mysql_allow_functions: SLEEP is refused."""
    conn = itest.my_connect(user="agent_sha2", autocommit=True)
    try:
        with pytest.raises(pymysql.err.MySQLError) as info:
            with conn.cursor() as cur:
                cur.execute("SELECT SLEEP(0.1)")
        assert itest.airlock_code(info.value.args[1]), info.value.args
    finally:
        conn.close()


def test_truncation_is_error_over_mysql():
    """truncation_is_error: the cut result ends with an ERR naming RESULT_TRUNCATED (drivers raise it)."""
    import pymysql
    conn = itest.my_connect(user="strict", autocommit=True)
    try:
        with pytest.raises(pymysql.err.MySQLError) as e:
            with conn.cursor() as cur:
                cur.execute("SELECT id FROM orders ORDER BY id")
                cur.fetchall()
        assert "RESULT_TRUNCATED" in str(e.value) and "max_rows=5" in str(e.value), e.value
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 5")
            assert len(cur.fetchall()) == 5
    finally:
        conn.close()
