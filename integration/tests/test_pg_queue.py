"""Statements beyond the server's max_jobs, or beyond their user's own,
wait for room (queue_wait_ms) instead of failing at once; past the wait
they get BUSY (53300) with a hint to retry; and users take turns, so one
user's burst cannot keep another user's single statement waiting behind
all of it. A private airlockd with max_jobs = 1 makes the queue easy to
fill."""

import threading
import time

import psycopg2
import pymysql
import pytest

from private_airlockd import PrivateAirlockd

# Its fairness test times another user's statement against a burst: alone on the machine.
pytestmark = pytest.mark.serial


@pytest.fixture(scope="module")
def narrow():
    d = PrivateAirlockd("queue", {"max_jobs": 1, "queue_wait_ms": 20000, "pool_min": 0},
                        uid_base=1000630000)
    d.start()
    yield d
    d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())


def run(d, sql, user="agent", password="agent-secret", out=None, key=None):
    conn = psycopg2.connect(d.url(user, password), connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            rows = cur.fetchall()
        if out is not None:
            out[key] = ("ok", time.monotonic(), rows)
        return rows
    except psycopg2.Error as e:
        if out is None:
            raise
        out[key] = ("error", time.monotonic(), e.pgcode, str(e))
    finally:
        conn.close()


def in_threads(jobs):
    out = {}
    threads = []
    for key, (d, sql, user, pw) in jobs:
        t = threading.Thread(target=run, args=(d, sql, user, pw, out, key))
        t.start()
        threads.append(t)
        time.sleep(0.15)  # arrival order is the order given
    for t in threads:
        t.join(60)
    return out


def test_statement_waits_for_room_instead_of_busy(narrow):
    out = in_threads([("first", (narrow, "SELECT pg_sleep(1), 1", "agent", "agent-secret")),
                      ("second", (narrow, "SELECT 2", "agent", "agent-secret"))])
    assert out["first"][0] == "ok" and out["second"][0] == "ok", out
    assert out["second"][2] == [(2,)]
    # It ran once the first was done, not alongside.
    assert out["second"][1] >= out["first"][1] - 0.05, out


def test_users_take_turns(narrow):
    agent = ("agent", "agent-secret")
    support = ("support", "support-secret")
    jobs = [("hold", (narrow, "SELECT pg_sleep(1), 0",) + agent)]
    jobs += [("agent%d" % i, (narrow, "SELECT pg_sleep(0.3), %d" % i,) + agent) for i in range(4)]
    jobs += [("support", (narrow, "SELECT 42",) + support)]
    out = in_threads(jobs)
    assert all(v[0] == "ok" for v in out.values()), out
    # support arrived last, behind four of agent's: it runs right after agent's first queued one.
    later = sorted(out, key=lambda k: out[k][1])
    assert later.index("support") <= 2, later


def test_busy_after_queue_wait():
    d = PrivateAirlockd("queueshort", {"max_jobs": 1, "queue_wait_ms": 300, "pool_min": 0}, uid_base=1000640000)
    d.start()
    try:
        t0 = time.monotonic()
        out = in_threads([("long", (d, "SELECT pg_sleep(2), 1", "agent", "agent-secret")),
                          ("late", (d, "SELECT 1", "agent", "agent-secret"))])
        assert out["long"][0] == "ok", out
        kind, at, code, msg = out["late"]
        assert kind == "error" and code == "53300", out
        assert "BUSY" in msg and "queue_wait_ms=300" in msg and "retry" in msg, msg
        # Told once the wait was over, long before the first statement ended.
        assert at - t0 < 1.9, at - t0
    finally:
        d.stop()


def test_no_queue_means_busy_at_once():
    d = PrivateAirlockd("noqueue", {"max_jobs": 1, "queue_wait_ms": 0, "pool_min": 0}, uid_base=1000650000)
    d.start()
    try:
        out = in_threads([("long", (d, "SELECT pg_sleep(1), 1", "agent", "agent-secret")),
                          ("late", (d, "SELECT 1", "agent", "agent-secret"))])
        assert out["late"][0] == "error" and out["late"][2] == "53300", out
        assert out["late"][1] < out["long"][1], out
    finally:
        d.stop()


def test_canceled_while_waiting(narrow):
    """A client that goes away while its statement waits frees its place; nothing runs for it."""
    hold = threading.Thread(target=run, args=(narrow, "SELECT pg_sleep(1)"))
    hold.start()
    time.sleep(0.2)
    conn = psycopg2.connect(narrow.url(), connect_timeout=10)
    conn.autocommit = True
    cur = conn.cursor()
    t = threading.Thread(target=lambda: pytest.raises(psycopg2.Error, cur.execute, "SELECT pg_sleep(5)"))
    t.start()
    time.sleep(0.2)
    conn.cancel()
    t.join(10)
    hold.join(10)
    conn.close()
    assert run(narrow, "SELECT 3") == [(3,)]
    assert narrow.alive()


def test_busy_agent_waits_for_its_own_max_jobs():
    """One agent runs 16 statements at once (parallel tool calls, an ORM's
    pool) with a max_jobs of 2: every statement waits its turn and returns
    its rows, over both protocols; none is refused. Another user with room
    is not held up behind the agent's burst."""
    d = PrivateAirlockd("userqueue", {"max_jobs": 8, "queue_wait_ms": 60000, "pool_min": 0},
                        uid_base=1002100000, sections={"user agent": {"max_jobs": 2}})
    d.start()
    try:
        out = {}

        def pg(i):
            try:
                out["pg%d" % i] = ("ok", run(d, "SELECT pg_sleep(0.2), %d" % i)[0][1])
            except psycopg2.Error as e:
                out["pg%d" % i] = ("error", e.pgcode, str(e))

        def my(i):
            try:
                conn = pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password="agent-secret",
                                       database="shop", connect_timeout=10, read_timeout=90)
                try:
                    with conn.cursor() as cur:
                        cur.execute("SELECT %d" % i)
                        out["my%d" % i] = ("ok", int(cur.fetchall()[0][0]))
                finally:
                    conn.close()
            except pymysql.MySQLError as e:
                out["my%d" % i] = ("error", e.args)

        threads = [threading.Thread(target=pg, args=(i,)) for i in range(16)]
        threads += [threading.Thread(target=my, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        other = run(d, "SELECT 7", user="support", password="support-secret")
        other_s = time.monotonic() - t0
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads)
        assert {k: v for k, v in out.items() if v[0] != "ok"} == {}, out
        assert sorted(v[1] for k, v in out.items() if k.startswith("pg")) == list(range(16))
        assert sorted(v[1] for k, v in out.items() if k.startswith("my")) == list(range(8))
        assert other == [(7,)]
        # support had room under the server's max_jobs: it did not wait for agent's 24 statements
        # (at two at a time, 0.2 s each, those take well over a second).
        assert other_s < 1.2, other_s
        assert "BUSY" not in d.log()
    finally:
        d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())


def test_busy_agent_told_at_once_without_a_queue():
    d = PrivateAirlockd("userbusy", {"max_jobs": 8, "queue_wait_ms": 0, "pool_min": 0},
                        uid_base=1002200000, sections={"user agent": {"max_jobs": 1}})
    d.start()
    try:
        out = in_threads([("long", (d, "SELECT pg_sleep(1), 1", "agent", "agent-secret")),
                          ("late", (d, "SELECT 1", "agent", "agent-secret")),
                          ("other", (d, "SELECT 1", "support", "support-secret"))])
        assert out["long"][0] == "ok" and out["other"][0] == "ok", out
        kind, at, code, msg = out["late"]
        assert kind == "error" and code == "53300" and "its max_jobs" in msg, out
    finally:
        d.stop()
