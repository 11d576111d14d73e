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


def outcome_with_columns(conn, sql):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", [c.name for c in cur.description], cur.fetchall())
    except psycopg2.Error as e:
        return ("error", e.pgcode)


# What mcp-postgres-server sends at every call, and what pg_dump sends first.
SET_CONFIGS = [
    ("SELECT set_config('statement_timeout', '30000', false)", "statement_timeout"),
    ("SELECT pg_catalog.set_config('search_path', '', false)", "search_path"),
    ("SELECT set_config('TimeZone', 'Europe/Paris', false) AS tz", "TimeZone"),
    ("SELECT set_config('lock_timeout', '5s', true)", "lock_timeout"),
    ("SELECT set_config('DateStyle', 'SQL, DMY', false)", "DateStyle"),
]


@pytest.mark.parametrize("sql,name", SET_CONFIGS)
def test_set_config_of_a_kept_setting_as_postgres(pair, sql, name):
    """The new value comes back as Postgres returns it, and SHOW reads it after (a local one
    outside a transaction block changes nothing)."""
    a, d = pair
    assert outcome_with_columns(a, sql) == outcome_with_columns(d, sql)
    assert one(a, "SHOW " + name) == one(d, "SHOW " + name)


def test_set_config_local_inside_a_transaction_ends_with_it(pair):
    a, d = pair
    got = []
    for conn in pair:
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("SELECT set_config('statement_timeout', '7s', true)")
            inside = one(conn, "SHOW statement_timeout")
            cur.execute("COMMIT")
        got.append((inside, one(conn, "SHOW statement_timeout")))
    assert got[0] == got[1], got


@pytest.mark.parametrize("sql", [
    "SELECT set_config('work_mem', '1GB', false)",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT set_config('role', 'postgres', false)",
    "SELECT set_config('statement_timeout', '1s', false), 1",
])
def test_set_config_of_anything_else_is_refused(pair, sql):
    got = outcome_with_columns(pair[0], sql)
    assert got[0] == "error" and got[1] in ("42501", "25006"), got


def test_set_local_ends_with_the_block(pair):
    """SET LOCAL holds until the block ends, then the value before it is back; a plain SET stays."""
    got = []
    for conn in pair:
        before = one(conn, "SHOW TimeZone")
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("SET LOCAL statement_timeout = '7s'")
            cur.execute("SET LOCAL TimeZone = 'Asia/Tokyo'")
            cur.execute("SET lock_timeout = '3s'")
            inside = (one(conn, "SHOW statement_timeout"), one(conn, "SHOW TimeZone"))
            cur.execute("COMMIT")
        # The server's default TimeZone may be spelled otherwise (Etc/UTC): what matters is that it is back.
        got.append((inside, one(conn, "SHOW statement_timeout"), one(conn, "SHOW TimeZone") == before,
                    one(conn, "SHOW lock_timeout"), conn.get_parameter_status("TimeZone") == before))
        with conn.cursor() as cur:
            cur.execute("RESET lock_timeout")
    assert got[0] == got[1], got


def test_dump_settings_apply_as_on_postgres(pair):
    """What pg_dump sets before it reads: row_security and synchronize_seqscans read back as on
    Postgres, and row_security = off is applied (a read RLS would filter fails instead; the demo has
    no policy, so reads run)."""
    a, d = pair
    for conn in pair:
        with conn.cursor() as cur:
            cur.execute("SET row_security = off")
            cur.execute("SET synchronize_seqscans TO off")
    for name in ("row_security", "synchronize_seqscans"):
        assert one(a, "SHOW " + name) == one(d, "SHOW " + name) == "off"
        assert one(a, "SELECT current_setting('%s')" % name) == "off"
    assert one(a, "SELECT count(*) FROM orders WHERE id <= 3") == 3
