"""Every setting airlock accepts over Postgres is applied to the statements
that follow it, answered as the server answers, or refused: durations are
read and shown as Postgres does, statement_timeout and lock_timeout bound
the statement, and the idle timeouts end the session as Postgres does."""

import subprocess
import time

import psycopg2
import pytest

import itest


def one(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()[0]


@pytest.fixture
def pair():
    a = itest.connect(itest.AGENT_URL, autocommit=True)
    d = itest.connect(itest.direct_url(), autocommit=True)
    yield a, d
    a.close()
    d.close()


@pytest.mark.parametrize("name", ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
                                  "idle_session_timeout"])
@pytest.mark.parametrize("value", ["0", "1500", "'1500ms'", "'90s'", "'120s'", "'1h'", "'2d'", "'1.5s'",
                                   "'250us'", "' 5 min '"])
def test_durations_read_and_show_as_postgres_does(pair, name, value):
    a, d = pair
    for conn in pair:
        with conn.cursor() as cur:
            cur.execute("SET %s = %s" % (name, value))
    assert one(a, "SHOW " + name) == one(d, "SHOW " + name), value


@pytest.mark.parametrize("value", ["'abc'", "'-1'", "'5 parsecs'", "'1e20'"])
def test_bad_durations_fail_like_postgres(pair, value):
    states = []
    for conn in pair:
        with pytest.raises(psycopg2.Error) as e:
            with conn.cursor() as cur:
                cur.execute("SET statement_timeout = %s" % value)
        states.append(e.value.pgcode)
    assert states == ["22023", "22023"], states


def test_statement_timeout_bounds_the_statement():
    a = itest.connect(itest.AGENT_URL, autocommit=True)
    with a.cursor() as cur:
        cur.execute("SET statement_timeout = '1s'")
        t0 = time.monotonic()
        with pytest.raises(psycopg2.Error) as e:
            cur.execute("SELECT pg_sleep(5)")
        took = time.monotonic() - t0
    assert e.value.pgcode == "57014", e.value
    assert took < 4, took
    # 0 is no limit of the session's own: the user's timeout_ms still holds, and a short read runs.
    with a.cursor() as cur:
        cur.execute("SET statement_timeout = 0")
        cur.execute("SELECT pg_sleep(1.5)")
    a.close()


def test_lock_timeout_bounds_the_wait_for_a_lock():
    holder = subprocess.Popen(
        ["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-d", "shop", "-c",
         "BEGIN; LOCK TABLE orders IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;"],
        cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert itest.wait_until(lambda: itest.super_query(
            "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' "
            "AND relation = 'orders'::regclass") == "1", 10, 0.1)
        a = itest.connect(itest.AGENT_URL, autocommit=True)
        with a.cursor() as cur:
            cur.execute("SET lock_timeout = '300ms'")
            t0 = time.monotonic()
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("SELECT count(*) FROM orders")
            took = time.monotonic() - t0
        assert e.value.pgcode == "55P03", e.value
        assert took < 3, took
        a.close()
    finally:
        holder.wait(20)


def test_idle_in_transaction_timeout_ends_the_session():
    a = itest.connect(itest.AGENT_URL)  # autocommit off: psycopg2 opens a transaction block
    with a.cursor() as cur:
        cur.execute("SET idle_in_transaction_session_timeout = '1s'")
        cur.execute("SELECT 1")
    time.sleep(2.5)
    with pytest.raises(psycopg2.OperationalError) as e:
        with a.cursor() as cur:
            cur.execute("SELECT 1")
    assert "idle-in-transaction timeout" in str(e.value) or "closed" in str(e.value), e.value


def test_idle_session_timeout_ends_the_session_outside_a_transaction():
    a = itest.connect(itest.AGENT_URL, autocommit=True)
    with a.cursor() as cur:
        cur.execute("SET idle_session_timeout = '1s'")
        cur.execute("SELECT 1")
        time.sleep(0.5)
        cur.execute("SELECT 1")
    time.sleep(2.5)
    with pytest.raises(psycopg2.OperationalError) as e:
        with a.cursor() as cur:
            cur.execute("SELECT 1")
    assert "idle-session timeout" in str(e.value) or "closed" in str(e.value), e.value


def test_idle_timeouts_off_keep_the_session(pair):
    a, _ = pair
    with a.cursor() as cur:
        cur.execute("SET idle_session_timeout = 0")
    time.sleep(1.2)
    assert one(a, "SELECT 1") == 1


def raw_query(sql):
    import pgwire
    c = pgwire.Conn("127.0.0.1", int(itest.AGENT_URL.rsplit(":", 1)[1].split("/")[0]))
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    return c, c.query(sql)


def test_sequelize_connect_statements_in_one_query(pair):
    """Several session statements in one Query run in order, each with its CommandComplete."""
    import pgwire
    sql = "SET client_min_messages TO warning;SET TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE"
    c, msgs = raw_query(sql)
    assert [t for t, _ in msgs if t in (b"C", b"E")] == [b"C", b"C"], msgs
    tz = [t for t, b in c.query("SHOW TimeZone") if t == b"D"]
    assert tz, "no row"
    c.close()
    a, d = pair
    for conn in pair:
        with conn.cursor() as cur:
            cur.execute(sql)
    assert one(a, "SHOW TimeZone") == one(d, "SHOW TimeZone") == "<+00>-00"
    assert one(a, "SHOW client_min_messages") == "warning"
    assert pgwire.cstr  # the raw client above used the simple protocol


@pytest.mark.parametrize("interval", ["'+05:30'", "'-08:00'", "'01:00'", "'-03:30'", "'5 hours'", "'+14:00'"])
def test_time_zone_interval_as_postgres(pair, interval):
    a, d = pair
    for conn in pair:
        with conn.cursor() as cur:
            cur.execute("SET TIME ZONE INTERVAL %s HOUR TO MINUTE" % interval)
    assert one(a, "SHOW TimeZone") == one(d, "SHOW TimeZone")
    q = "SELECT '2024-01-01 12:00:00+00'::timestamptz::text"
    assert one(a, q) == one(d, q)


def test_statement_list_with_a_read_is_refused_whole(pair):
    a, _ = pair
    with pytest.raises(psycopg2.Error) as e:
        with a.cursor() as cur:
            cur.execute("SET search_path = public, pg_catalog; SELECT 1")
    assert e.value.pgcode == "42601" and "MULTI_STATEMENT" in str(e.value), e.value
    assert one(a, "SHOW search_path") == '"public"'


def test_statement_list_error_undoes_its_settings(pair):
    a, d = pair
    before = [one(a, "SHOW TimeZone"), one(d, "SHOW TimeZone")]
    for conn in pair:
        with pytest.raises(psycopg2.Error) as e:
            with conn.cursor() as cur:
                cur.execute("SET TimeZone = 'Asia/Tokyo'; SET statement_timeout = 'abc'")
        assert e.value.pgcode == "22023", e.value
    assert [one(a, "SHOW TimeZone"), one(d, "SHOW TimeZone")] == before
