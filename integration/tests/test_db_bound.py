"""A target's max_db_connections bounds the backend connections its
runners hold at once, ready runners included, on both protocols: a burst
larger than the bound all succeeds (the statements beyond it wait in the
queue), and airlockd's established connections to the backend, sampled
throughout, never exceed it. Ready runners of one resource shape give way
to a statement of another shape. Past queue_wait_ms the statement gets
53300 BUSY naming max_db_connections."""

import re
import threading
import time
import urllib.request
from urllib.parse import urlparse

import psycopg2
import pymysql
import pytest

import itest
from itest import AGENT_PASSWORD
from private_airlockd import PrivateAirlockd, free_port

PG_BOUND = 3
MY_BOUND = 2
METRICS_PORT = free_port()
PG_BACKEND = urlparse(itest.direct_url()).port
MY_BACKEND = itest.MY_DIRECT_PORT


@pytest.fixture(scope="module")
def bounded():
    d = PrivateAirlockd(
        "dbbound",
        {"max_jobs": 32, "queue_wait_ms": 60000, "pool_min": 2, "pool_max": 6, "max_connections": 200,
         "metrics_listen": "127.0.0.1:%d" % METRICS_PORT},
        uid_base=1003100000,
        sections={
            "target shop": {"max_db_connections": PG_BOUND},
            "target shop_maria": {"max_db_connections": MY_BOUND},
            # Another resource shape on the same target: a pool of its own.
            "user agent_lowmem": {"memory_mb": 96},
        })
    d.start()
    yield d
    d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())


def gauge(target):
    """airlock_backend_connections{target} as the metrics listener reads it now."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % METRICS_PORT, timeout=10) as r:
        text = r.read().decode()
    m = re.search(r'^airlock_backend_connections\{target="%s"\} (\S+)$' % re.escape(target), text, re.M)
    assert m, text
    return float(m.group(1))


class Sampler:
    """The most established connections d holds to the backend at port, sampled every few ms,
    and the most the metrics' gauge for target read."""

    def __init__(self, d, port, target):
        self.d, self.port, self.target, self.most, self.most_gauge, self.samples = d, port, target, 0, 0, 0
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run)

    def run(self):
        while not self.stop.is_set():
            self.most = max(self.most, len(self.d.backend_sockets(self.port)))
            if self.samples % 10 == 0:
                self.most_gauge = max(self.most_gauge, gauge(self.target))
            self.samples += 1
            time.sleep(0.005)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.t.join(10)


def burst(fn, clients, each):
    """fn(i) in clients threads, each times; the outcomes ("ok" or the error) in a list."""
    out = []
    lock = threading.Lock()

    def client(i):
        for _ in range(each):
            try:
                got = fn(i)
            except Exception as e:  # each failure is reported, none hidden
                got = "%s: %s" % (type(e).__name__, e)
            with lock:
                out.append(got)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def pg_sleep(d, user="agent"):
    def run(_):
        conn = psycopg2.connect(d.url(user, AGENT_PASSWORD), connect_timeout=20)
        conn.autocommit = True
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT pg_sleep(0.2), 7")
                return "ok" if cur.fetchall() == [("", 7)] else "wrong rows"
        finally:
            conn.close()
    return run


def test_pg_burst_stays_within_the_bound(bounded):
    with Sampler(bounded, PG_BACKEND, "shop") as s:
        out = burst(pg_sleep(bounded), 12, 3)
    assert out == ["ok"] * 36, out
    assert s.samples > 20
    assert 2 <= s.most <= PG_BOUND, s.most
    # The metrics see the same: the count airlockd keeps is what it holds.
    assert 1 <= s.most_gauge <= PG_BOUND, s.most_gauge
    # Idle again: the ready runners stay within it too.
    time.sleep(0.5)
    assert len(bounded.backend_sockets(PG_BACKEND)) <= PG_BOUND


def test_my_burst_stays_within_the_bound(bounded):
    def run(_):
        conn = pymysql.connect(host="127.0.0.1", port=bounded.my_port, user="agent", password=AGENT_PASSWORD,
                               database="shop", connect_timeout=20)
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT SLEEP(0.2), 7")
                return "ok" if cur.fetchall() == ((0, 7),) else "wrong rows"
        finally:
            conn.close()

    with Sampler(bounded, MY_BACKEND, "shop_maria") as s:
        out = burst(run, 8, 3)
    assert out == ["ok"] * 24, out
    assert 1 <= s.most <= MY_BOUND, s.most


def test_another_shape_takes_a_ready_runners_place(bounded):
    """agent and agent_lowmem have pools of their own on the same target;
    together they want more ready runners than the bound, so each
    statement of the shape with none ready sheds one of the other."""
    def alternate(i):
        return pg_sleep(bounded, "agent_lowmem" if i % 2 else "agent")(i)

    with Sampler(bounded, PG_BACKEND, "shop") as s:
        out = burst(alternate, 6, 2)
    assert out == ["ok"] * 12, out
    assert s.most <= PG_BOUND, s.most


def test_busy_past_the_wait_names_the_bound():
    d = PrivateAirlockd("dbbusy", {"max_jobs": 8, "queue_wait_ms": 300, "pool_min": 0},
                        uid_base=1003200000, sections={"target shop": {"max_db_connections": 1}})
    d.start()
    try:
        out = burst(lambda i: pg_sleep_long(d), 3, 1)
        busy = [o for o in out if o != "ok"]
        assert out.count("ok") >= 1, out
        assert busy, out
        for o in busy:
            assert "max_db_connections=1" in o and "BUSY" in o, o
    finally:
        d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())


def pg_sleep_long(d):
    conn = psycopg2.connect(d.url(), connect_timeout=20)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            try:
                cur.execute("SELECT pg_sleep(1.5), 1")
            except psycopg2.Error as e:
                assert e.pgcode == "53300", (e.pgcode, str(e))
                raise
            return "ok"
    finally:
        conn.close()
