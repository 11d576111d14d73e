"""keep_sessions: airlockd keeps logged-in backend sessions and lends one to
each runner (proxy/job/bsess.h, relay_kept.h).

With the real runner: statements reuse a session (one backend serves
several), over TLS that airlockd holds; two users never share one; a
session goes on after an error, a timeout, a cut result and a cancel;
the extended protocol and psql's \\d work through it.

Playing a compromised runner (integration/rogue/runner_stain.c, in a
private airlockd whose runners are all it): a runner that leaves every
kind of session state behind (settings, the default transaction mode, a
prepared statement, a held cursor, an advisory lock, a LISTEN, an open
transaction), with or without saying Terminate, hands the next runner of
the same session (the same backend process) a session with none of it;
a runner that stops in the middle of a message gets its session closed,
never lent again; and the runner is given no password and no TLS to use:
what it could take away is a session it is lent, not the backend's
credentials."""

import os
import signal
import subprocess
import time

import psycopg2
import psycopg2.extras
import pytest

import itest
from itest import AGENT_PASSWORD, REPO, wait_until
from private_airlockd import PrivateAirlockd

STAIN_BIN = os.path.join(REPO, "build", "runner_stain")
KEPT = {"target shop": {"keep_sessions": "on"}}


@pytest.fixture(scope="module")
def kept():
    d = PrivateAirlockd("kept", {"pool_min": 2, "pool_max": 4}, uid_base=1006300000, sections=KEPT)
    d.start()
    yield d
    status = d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


@pytest.fixture(scope="module")
def stain():
    if not os.access(STAIN_BIN, os.X_OK):
        pytest.fail("%s is missing: build/ must be built (test.sh does)" % STAIN_BIN)
    script = os.path.join(REPO, "integration", "tools", "build-runner-image.sh")
    if itest.RUNTIME == "oci":
        out = subprocess.run([script, "--rootfs", os.path.join(itest.STATE_DIR, "stain-rootfs.tar"), STAIN_BIN],
                             capture_output=True, text=True, check=True).stdout
        image = {"runtime": "oci", "runner_rootfs": out.split()[-1]}
    else:
        out = subprocess.run([script, STAIN_BIN, "airlock-runner:stain"], capture_output=True, text=True,
                             check=True).stdout
        image = {"runtime": "docker", "runner_image": out.split()[-1]}
    d = PrivateAirlockd("stain", dict(image, pool_min=1, pool_max=2), uid_base=1006500000, sections=KEPT)
    d.start()
    yield d
    status = d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


def one(d, sql, user="agent", password=AGENT_PASSWORD, params=None):
    conn = psycopg2.connect(d.url(user=user, password=password), connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchone()[0]
    finally:
        conn.close()


def pids(d, n, user="agent", password=AGENT_PASSWORD):
    """The backend process ids of n statements run one after another."""
    seen = []
    for _ in range(n):
        seen.append(one(d, "SELECT pg_backend_pid()", user, password))
        time.sleep(0.2)
    return seen


def test_statements_reuse_a_tls_session(kept):
    seen = pids(kept, 8)
    assert len(set(seen)) < len(seen), "every statement had a backend of its own: %s" % seen
    for pid in set(seen):
        row = itest.super_query("SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s "
                                "USING (pid) WHERE pid = %d" % pid)
        assert row == "airlock-runner|t", (pid, row)


def test_users_never_share_a_session(kept):
    agent, support = [], []
    for _ in range(5):
        agent += pids(kept, 1)
        support += pids(kept, 1, "support", "support-secret")
    assert not set(agent) & set(support), (agent, support)


def test_a_session_goes_on_after_errors_timeouts_cuts_and_cancels(kept):
    conn = psycopg2.connect(kept.url(user="agent_small"), connect_timeout=10)
    conn.autocommit = True
    try:
        assert itest.pg_outcome(conn, "SELECT 1/0")[:2] == ("error", "22012")
        out = itest.pg_outcome(conn, "SELECT pg_sleep(10)")
        assert out[0] == "error" and out[1] == "57014", out
        assert itest.pg_outcome(conn, "SELECT id FROM orders ORDER BY id") == ("rows", [(i,) for i in range(1, 6)])
        for _ in range(6):
            assert itest.pg_outcome(conn, "SELECT 41 + 1") == ("rows", [(42,)])
    finally:
        conn.close()
    # A client's cancel reaches the statement its session runs, and the session serves again.
    conn = psycopg2.connect(kept.url(), connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            t0 = time.monotonic()
            timer = __import__("threading").Timer(1.0, conn.cancel)
            timer.start()
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("SELECT pg_sleep(8)")
            timer.join()
            assert e.value.pgcode == "57014", e.value
            assert time.monotonic() - t0 < 6
        assert itest.pg_outcome(conn, "SELECT 1") == ("rows", [(1,)])
    finally:
        conn.close()


def test_results_larger_than_the_relays_buffers(kept):
    """A result many times the relay's 256 KiB high-water mark streams through whole, twice on one session."""
    for _ in range(2):
        conn = psycopg2.connect(kept.url(), connect_timeout=10)
        conn.autocommit = True
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT repeat('x', 1000) FROM generate_series(1, 900)")
                rows = cur.fetchall()
            assert len(rows) == 900 and all(r[0] == "x" * 1000 for r in rows)
        finally:
            conn.close()


def test_extended_protocol_and_psql(kept):
    assert one(kept, "SELECT %s::int + %s", params=(40, 2)) == 42
    assert one(kept, "SELECT count(*) FROM orders WHERE customer_id = %s", params=(1,)) >= 0
    out = itest.psql(kept.url(), "\\d orders")
    assert out.returncode == 0, out.stderr
    assert 'Table "public.orders"' in out.stdout and "customer_id" in out.stdout, out.stdout


def console(d, sql):
    """Rows of one command of d's admin console, each as {column: value}."""
    conn = psycopg2.connect("host=127.0.0.1 port=%d user=admin password=admin-secret dbname=airlock "
                            "sslmode=disable" % d.pg_port, connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            names = [c.name for c in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        conn.close()


def busy_jobs(d):
    """The states of d's jobs that are not ready runners (SHOW JOBS)."""
    return [j["state"] for j in console(d, "SHOW JOBS") if j["state"] not in ("IDLE", "NEW")]


def test_a_client_that_leaves_mid_statement_frees_its_job_when_the_reset_ends(kept):
    """The agent leaves while its statement runs, after a reload replaced the configuration its
    job was made with. airlockd cancels the statement and keeps the job (its slot, its connection)
    until the backend is done with it. A kept session's backend never exits: done is its reset
    ending, and the job ends then, not at timeout_ms (10 s) with a warning; the session is kept
    for the next runner; and the job, outliving its configuration, reads none of it (under ASan a
    read of the freed target aborts airlockd)."""
    conn = psycopg2.connect(kept.url(), async_=1, connect_timeout=10)
    psycopg2.extras.wait_select(conn)
    running = ("SELECT pid FROM pg_stat_activity WHERE application_name = 'airlock-runner' "
               "AND state = 'active' AND strpos(query, 'pg_sleep(30)') > 0")
    try:
        conn.cursor().execute("SELECT pg_sleep(30)")
        assert wait_until(lambda: itest.super_query(running) != "", 10), "the statement never reached its backend"
        pid = int(itest.super_query(running))
        time.sleep(0.3)  # past the memory watch's first tick: the pid is checked and watched
        reloads = kept.log().count("reloaded ")
        kept.signal(signal.SIGHUP)
        assert wait_until(lambda: kept.log().count("reloaded ") > reloads, 10), kept.log()[-2000:]
    finally:
        conn.close()
    assert wait_until(lambda: busy_jobs(kept) == [], 8), busy_jobs(kept)
    assert "no longer waited for" not in kept.log(), kept.log()[-3000:]
    # The backend finished the canceled statement and the reset: idle, its last query the reset's marker.
    row = itest.super_query("SELECT state || '|' || left(query, 21) FROM pg_stat_activity WHERE pid = %d" % pid)
    assert row == "idle|SELECT 'airlock-reset", (pid, row)
    assert kept.alive()
    assert one(kept, "SELECT 41 + 1") == 42


def pools(d):
    """d's SHOW POOLS as {target: {column: value}}."""
    return {r["target"]: r for r in console(d, "SHOW POOLS")}


def test_the_console_counts_idle_sessions(kept):
    """SHOW POOLS' kept: the idle sessions of a target, among its connections."""
    one(kept, "SELECT 1")
    one(kept, "SELECT 1", "support", "support-secret")
    assert wait_until(lambda: int(pools(kept)["shop"]["kept"]) >= 2, 10), pools(kept)
    row = pools(kept)["shop"]
    assert int(row["kept"]) <= int(row["connections"]), row
    assert int(pools(kept)["shop_maria"]["kept"]) == 0


def probe(d):
    """(pid, the rest of the session's state) as runner_stain's probe reads it."""
    fields = one(d, "SELECT 'probe'").split("|")
    return int(fields[0]), fields[1:]


@pytest.mark.parametrize("how", ["stain", "stain_x"])
def test_a_stained_session_is_clean_for_its_next_runner(stain, how):
    _, clean = probe(stain)
    assert clean[0] == "airlock-runner" and clean[-1] == "t", clean
    stained = int(one(stain, "SELECT '%s'" % how))
    # Its next runners get a session; one of them the stained one, reset.
    reused = False
    for _ in range(6):
        time.sleep(0.3)
        pid, state = probe(stain)
        assert state == clean, (pid, state, clean)
        reused = reused or pid == stained
    assert reused, "the stained session (%d) was never lent again" % stained


def test_a_runner_stopping_inside_a_message_loses_its_session(stain):
    cut = int(one(stain, "SELECT 'partial'"))
    for _ in range(5):
        time.sleep(0.3)
        assert probe(stain)[0] != cut
    # Closed, not kept: its backend ends.
    assert wait_until(lambda: itest.super_query("SELECT count(*) FROM pg_stat_activity WHERE pid = %d" % cut) == "0",
                      10)


def test_a_kept_sessions_runner_gets_no_credentials(stain):
    """The runner of a kept session is given neither the backend's password nor its TLS: airlockd holds both."""
    assert one(stain, "SELECT 'secrets'") == "password=0 tls=0"
