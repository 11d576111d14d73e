"""airlockd's own layers behind the runner, each proven alone: a private
airlockd (private_airlockd.py) whose runner root filesystem (or image)
holds integration/rogue/runner_rogue.c, a runner that keeps to no limit,
so nothing but airlockd stands between it and the client.

- The proxy's backstop caps: the rogue sends 5,000 rows whatever the job's
  max_rows and max_bytes and calls its result whole; airlockd's own
  counting of the row frames must cut it at agent_small's max_rows (5) and
  max_bytes (2,000), with the RESULT_TRUNCATED notice (Postgres) or
  warning (MySQL), as the runner would have.
- The container kill: the rogue takes the statement and then answers
  nothing, ignores cancels and never exits; airlockd must end the
  statement with TIMEOUT and remove the container at timeout_ms +
  kill_margin_ms."""

import os
import subprocess
import threading
import time

import psycopg2
import pymysql
import pytest

import itest
from itest import AGENT_PASSWORD, REPO, wait_until
from private_airlockd import PrivateAirlockd

ROGUE_BIN = os.path.join(REPO, "build", "runner_rogue")
KILL_MARGIN_MS = 1500
SMALL_TIMEOUT_MS = 2000  # agent_small's timeout_ms in the test config
# A client that has waited this long has no answer coming.
GIVE_UP_S = 12


@pytest.fixture(scope="module")
def rogue_image():
    if not os.access(ROGUE_BIN, os.X_OK):
        pytest.fail("%s is missing: build/ must be built (test.sh does)" % ROGUE_BIN)
    script = os.path.join(REPO, "integration", "tools", "build-runner-image.sh")
    if itest.RUNTIME == "oci":
        out = subprocess.run([script, "--rootfs", os.path.join(itest.STATE_DIR, "rogue-rootfs.tar"), ROGUE_BIN],
                             capture_output=True, text=True, check=True).stdout
        return {"runtime": "oci", "runner_rootfs": out.split()[-1]}
    out = subprocess.run([script, ROGUE_BIN, "airlock-runner:rogue"], capture_output=True, text=True,
                         check=True).stdout
    return {"runtime": "docker", "runner_image": out.split()[-1]}


@pytest.fixture(scope="module")
def rogue(rogue_image):
    d = PrivateAirlockd("rogue", dict(rogue_image, pool_min=0, kill_margin_ms=KILL_MARGIN_MS), uid_base=1000500000)
    d.start()
    yield d
    status = d.stop()
    assert d.clean(), "containers or job directories left: %s %s" % (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


def pg_small(d):
    conn = psycopg2.connect(d.url(user="agent_small"), connect_timeout=10)
    conn.autocommit = True
    return conn


def my_small(d):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent_small", password=AGENT_PASSWORD,
                           database="shop", connect_timeout=10, read_timeout=30)


def pg_rows(conn, sql):
    del conn.notices[:]
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


@pytest.mark.parametrize("sql, cap, nrows", [
    ("SELECT id AS flood FROM orders", "max_rows", 5),
    # 1,000-byte values: one row fits agent_small's 2,000 bytes, two do not.
    ("SELECT id AS wide FROM orders", "max_bytes", 1),
])
def test_pg_proxy_backstop_cuts_a_runner_that_ignores_its_caps(rogue, sql, cap, nrows):
    conn = pg_small(rogue)
    try:
        rows = pg_rows(conn, sql)
        assert len(rows) == nrows, len(rows)
        assert any(cap in m and "RESULT_TRUNCATED" in m for m in conn.notices), conn.notices
        # The session goes on.
        assert len(pg_rows(conn, "SELECT id AS flood FROM orders")) == 5
    finally:
        conn.close()
    assert rogue.alive()


@pytest.mark.parametrize("sql, cap, nrows", [
    ("SELECT id AS flood FROM orders", "max_rows", 5),
    ("SELECT id AS wide FROM orders", "max_bytes", 1),
])
def test_my_proxy_backstop_cuts_a_runner_that_ignores_its_caps(rogue, sql, cap, nrows):
    conn = my_small(rogue)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            assert len(cur.fetchall()) == nrows
            assert cur._result.warning_count == 1
            cur.execute("SHOW WARNINGS")
            assert any(cap in w[2] for w in cur.fetchall())
    finally:
        conn.close()
    assert rogue.alive()


def test_pg_container_kill_ends_a_runner_that_never_answers(rogue):
    conn = pg_small(rogue)
    out = {}

    def statement():
        try:
            pg_rows(conn, "SELECT id AS deaf FROM orders")
        except psycopg2.Error as e:
            out["error"] = e

    t0 = time.monotonic()
    worker = threading.Thread(target=statement, daemon=True)
    worker.start()
    worker.join(GIVE_UP_S)
    took = time.monotonic() - t0
    if worker.is_alive():
        conn.cancel()
        worker.join(5)
        pytest.fail("no answer %d s after the statement: nothing killed the runner" % GIVE_UP_S)
    conn.close()
    e = out.get("error")
    assert e is not None and e.pgcode == "57014" and "TIMEOUT" in str(e), e
    # Killed at timeout_ms + kill_margin_ms: nothing in the runner ended it.
    assert (SMALL_TIMEOUT_MS + KILL_MARGIN_MS) / 1000 - 0.3 <= took <= 8, took
    assert wait_until(lambda: not rogue.containers(), 10, 0.1), rogue.containers()
    assert rogue.alive()


def test_my_container_kill_ends_a_runner_that_never_answers(rogue):
    conn = pymysql.connect(host="127.0.0.1", port=rogue.my_port, user="agent_small", password=AGENT_PASSWORD,
                           database="shop", connect_timeout=10, read_timeout=GIVE_UP_S)
    t0 = time.monotonic()
    try:
        with pytest.raises(pymysql.MySQLError) as e:
            with conn.cursor() as cur:
                cur.execute("SELECT id AS deaf FROM orders")
        took = time.monotonic() - t0
    finally:
        conn.close()
    assert e.value.args[0] == 3024 and "TIMEOUT" in str(e.value), e.value
    assert (SMALL_TIMEOUT_MS + KILL_MARGIN_MS) / 1000 - 0.3 <= took <= 8, took
    assert wait_until(lambda: not rogue.containers(), 10, 0.1), rogue.containers()
    assert rogue.alive()
