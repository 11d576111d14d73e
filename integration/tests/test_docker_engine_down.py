"""The Docker engine goes away and comes back: queries fail with
DOCKER_UNAVAILABLE meanwhile, airlockd stays up, then recovers. Marked
disruptive (it stops dockerd), so it runs after the tests that need the
engine."""

import time

import psycopg2
import pytest

import itest

pytestmark = [
    pytest.mark.disruptive,
    pytest.mark.skipif(itest.RUNTIME != "docker", reason="the airlockd under test runs runtime = %s" % itest.RUNTIME),
]


def docker_answers():
    r = itest.lib_sh("docker_ok")
    return r.returncode == 0


def query_ok():
    try:
        conn = itest.connect(itest.AGENT_URL, autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM products")
                return cur.fetchall() == [(200,)]
        finally:
            conn.close()
    except psycopg2.Error:
        return False


def test_docker_down_and_back():
    assert query_ok()
    r = itest.lib_sh("docker_stop")
    try:
        assert r.returncode == 0, r.stderr
        assert not docker_answers()

        conn = itest.connect(itest.AGENT_URL, autocommit=True)
        try:
            t0 = time.monotonic()
            with pytest.raises(psycopg2.Error) as info:
                with conn.cursor() as cur:
                    cur.execute("SELECT count(*) FROM products")
            assert time.monotonic() - t0 < 30
            e = info.value
            assert "DOCKER_UNAVAILABLE" in (e.pgerror or ""), e.pgerror
            assert e.pgcode and e.pgcode[:2] in ("58", "53"), e.pgcode
            assert "/var/run/docker.sock" not in (e.pgerror or "")
        finally:
            conn.close()

        # airlockd itself still serves: a new connection and a local answer.
        conn = itest.connect(itest.AGENT_URL, autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW TimeZone")
                assert cur.fetchall()
        finally:
            conn.close()
    finally:
        r = itest.lib_sh("docker_start")
        assert r.returncode == 0, r.stderr

    assert itest.wait_until(query_ok, 60, step=2), "no recovery after dockerd restart"


def test_docker_stopped_during_a_statement():
    """The engine goes away while a runner runs a statement: the client gets an error, not a hang."""
    assert itest.wait_until(query_ok, 60, 1)
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    cur = conn.cursor()
    out = {}

    def run():
        try:
            cur.execute("SELECT pg_sleep(20)")
            out["value"] = cur.fetchall()
        except psycopg2.Error as e:
            out["error"] = e

    import threading
    th = threading.Thread(target=run, daemon=True)
    th.start()
    time.sleep(1.5)
    t0 = time.monotonic()
    r = itest.lib_sh("docker_stop")
    try:
        assert r.returncode == 0, r.stderr
        th.join(30)
        assert not th.is_alive(), "the statement hangs with the engine gone"
        assert "error" in out, out
        assert time.monotonic() - t0 < 30
    finally:
        r = itest.lib_sh("docker_start")
        assert r.returncode == 0, r.stderr
    conn.close()
    assert itest.wait_until(query_ok, 90, 1)
