"""The backend database fails: Postgres stopped during the suite and
started again, and Postgres at its own connection limit for the backend
role. Statements fail with a clear native error meanwhile, airlockd keeps
serving (local answers, the MySQL listener), and it recovers by itself.
Marked disruptive (it stops Postgres), so it runs after the tests that
need Postgres up."""

import subprocess
import time

import psycopg2
import pytest

import itest
from private_airlockd import PrivateAirlockd

pytestmark = pytest.mark.disruptive

PG_VERSION = "15"


def pg_ctl(action):
    r = subprocess.run(["pg_ctlcluster", PG_VERSION, "main", action, *(["-m", "fast"] if action == "stop" else [])],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def query(url=itest.AGENT_URL, sql="SELECT count(*) FROM products"):
    return itest.fetch_all(url, sql)


def works():
    try:
        return query() == [(200,)]
    except psycopg2.Error:
        return False


def test_postgres_stopped_and_started_again():
    assert works()
    pg_ctl("stop")
    try:
        t0 = time.monotonic()
        with pytest.raises(psycopg2.Error) as e:
            query()
        took = time.monotonic() - t0
        # A warm runner's connection dies with the server (57P01 / 08006), a new one cannot connect (08001).
        assert e.value.pgcode in ("08001", "08006", "57P01", "58000"), e.value
        assert took < 20, took
        assert "127.0.0.1" not in str(e.value) and "airlock_ro" not in str(e.value), e.value
        # Still serving: local answers, and the MySQL side.
        assert query(sql="SHOW TimeZone")
        mc = itest.my_connect(autocommit=True)
        with mc.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM products")
            assert cur.fetchall() == ((200,),)
        mc.close()
    finally:
        pg_ctl("start")
    # The warm pool notices and refills; statements work again without a restart of airlockd.
    assert itest.wait_until(works, 60, 0.5)


def test_backend_role_at_its_connection_limit():
    """Postgres refuses the runner's connection (too many connections for the role): the client
    gets that as a native error, and the next statement works once there is room."""
    d = PrivateAirlockd("connlimit", {"pool_min": 0, "kill_margin_ms": 1000}, uid_base=1000800000)
    d.start()
    holders = []
    try:
        used = int(itest.super_query("SELECT count(*) FROM pg_stat_activity WHERE usename = 'airlock_ro'"))
        itest.super_query("ALTER ROLE airlock_ro CONNECTION LIMIT %d" % max(used, 1))
        # Fill any room left while the limit applies.
        while True:
            try:
                holders.append(psycopg2.connect(itest.direct_url()))
            except psycopg2.OperationalError:
                break
        with pytest.raises(psycopg2.Error) as e:
            query(d.url())
        assert e.value.pgcode in ("53300", "08001"), e.value
        assert "too many connections" in str(e.value) or "could not connect" in str(e.value), e.value
    finally:
        for h in holders:
            h.close()
        itest.super_query("ALTER ROLE airlock_ro CONNECTION LIMIT -1")
    try:
        assert query(d.url()) == [(200,)]
        assert itest.wait_until(lambda: not d.containers() and not d.job_dirs(), 20, 0.1)
    finally:
        assert d.stop() in (0, -15)
