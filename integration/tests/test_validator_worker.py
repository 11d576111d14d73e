"""The validator workers, seen from outside as an operator or an attacker
would see them: their own processes, as validator_uid, in seccomp filter
mode, with no descriptor but their channel and an empty environment; a
worker killed while it holds a statement, or stopped past the deadline,
costs that statement a native VALIDATOR_FAILED and is replaced, while
airlockd keeps its pid and the next statement and every other session are
answered."""

import os
import shutil
import signal
import threading
import time

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

VALIDATOR_UID = 999999999


def children(ppid):
    """Pids of the airlock-validator processes whose parent is ppid."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if comm.startswith("airlock-valida") and int(fields[1]) == ppid and fields[0] != "Z":
            out.append(int(name))
    return sorted(out)


def status(pid):
    with open("/proc/%d/status" % pid) as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


@pytest.fixture
def private():
    d = PrivateAirlockd("validator", {"pool_min": 0, "validator_timeout_ms": 1500})
    d.start()
    yield d
    rc = d.stop()
    assert rc in (0, -15), d.log()[-3000:]


def answers(conn, sql="SELECT count(*) FROM orders"):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()


def test_workers_are_confined():
    pid = int(os.environ["AIRLOCKD_PID"])
    workers = children(pid)
    assert len(workers) == 2, workers
    for w in workers:
        st = status(w)
        assert st["Uid"].split() == [str(VALIDATOR_UID)] * 4, st["Uid"]
        assert st["Gid"].split() == [str(VALIDATOR_UID)] * 4, st["Gid"]
        assert st["Groups"].strip() == ""
        assert st["Seccomp"].strip() == "2"  # filter mode
        assert st["NoNewPrivs"].strip() == "1"
        assert st["CapEff"].strip() == "0000000000000000"
        fds = os.listdir("/proc/%d/fd" % w)
        assert fds == ["3"], fds
        assert os.readlink("/proc/%d/fd/3" % w).startswith("socket:")
        with open("/proc/%d/environ" % w, "rb") as f:
            assert f.read() == b""
        with open("/proc/%d/limits" % w) as f:
            limits = f.read()
        assert "Max core file size        0" in limits
        assert "Max open files            4" in limits


def test_worker_killed_mid_statement(private):
    other = private.connect()
    conn = private.connect()
    assert answers(conn)[0] > 0
    workers = children(private.pid)
    assert len(workers) == 2
    # Stop both, so the next statement waits in one of them; then kill them while it does.
    for w in workers:
        os.kill(w, signal.SIGSTOP)
    result = {}

    def run():
        try:
            result["row"] = answers(conn)
        except psycopg2.Error as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t0 = time.monotonic()
    t.start()
    time.sleep(0.3)
    for w in workers:
        os.kill(w, signal.SIGKILL)
    t.join(20)
    assert not t.is_alive()
    assert time.monotonic() - t0 < 1.4, "answered at the deadline, not when the worker died"
    e = result.get("error")
    assert e is not None, result
    assert e.pgcode == "XX000", e
    assert "VALIDATOR_FAILED" in str(e)
    assert "ended while validating" in str(e)
    assert e.diag.message_hint
    # The next statement, the other session, and airlockd itself.
    assert answers(conn)[0] > 0
    assert answers(other)[0] > 0
    assert private.alive()
    assert itest.wait_until(lambda: len(children(private.pid)) == 2, 10)
    assert not set(children(private.pid)) & set(workers)
    assert "validator worker pid %d" % workers[0] in private.log() or \
        "validator worker pid %d" % workers[1] in private.log()
    conn.close()
    other.close()


def test_worker_past_the_deadline_is_replaced(private):
    conn = private.connect()
    answers(conn)
    workers = children(private.pid)
    for w in workers:
        os.kill(w, signal.SIGSTOP)
    t0 = time.monotonic()
    with pytest.raises(psycopg2.Error) as e:
        answers(conn)
    assert 1.4 <= time.monotonic() - t0 < 10
    assert e.value.pgcode == "XX000"
    assert "did not answer within 1500 ms" in str(e.value)
    for w in workers:
        try:
            os.kill(w, signal.SIGCONT)
        except ProcessLookupError:
            pass
    # The one that held the statement is gone; the other was stopped too, so the next statement
    # may wait for it once more: whichever way, within two deadlines every statement is answered.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            assert answers(conn)[0] > 0
            break
        except psycopg2.Error as again:
            assert again.pgcode == "XX000"
    assert answers(conn)[0] > 0
    assert private.alive()
    conn.close()


def test_mysql_statement_of_a_killed_worker(private):
    conn = pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent", password=itest.AGENT_PASSWORD,
                           database="shop", connect_timeout=10, read_timeout=30)
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders")
        workers = children(private.pid)
        for w in workers:
            os.kill(w, signal.SIGSTOP)
        killer = threading.Timer(0.3, lambda: [os.kill(w, signal.SIGKILL) for w in workers])
        killer.start()
        with pytest.raises(pymysql.MySQLError) as e:
            cur.execute("SELECT COUNT(*) FROM orders")
        killer.join()
        assert e.value.args[0] == 1105, e.value
        assert "VALIDATOR_FAILED" in e.value.args[1]
        cur.execute("SELECT COUNT(*) FROM orders")
        assert cur.fetchone()[0] > 0
    conn.close()
    assert private.alive()


def test_airlockd_refuses_to_start_without_its_worker():
    d = PrivateAirlockd("novalidator", {"pool_min": 0, "validator_path": "/nonexistent/airlock-validator"})
    d.start(wait=False)
    try:
        assert itest.wait_until(lambda: not d.alive(), 20)
        assert d.proc.returncode != 0
        assert "validator" in d.log() and "/nonexistent/airlock-validator" in d.log()
    finally:
        if d.alive():
            d.kill()
        shutil.rmtree(d.job_dir, ignore_errors=True)
