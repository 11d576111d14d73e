"""Every core of one machine ([server] workers, docs/admin.md).

An airlockd of the test's own runs two workers that share its listeners
(SO_REUSEPORT): the kernel hands each new connection to either. Each
session id carries the worker that holds it, so a client's CancelRequest
or MySQL KILL QUERY, which arrives on a connection of its own and so on
either worker, is passed to the worker that holds the statement: ten out
of ten land. A peer node's signed KILL QUERY that lands on the wrong
worker is passed on the same way and its answer passed back.

Both workers' audit records go through the supervisor into one file with
one hash chain. SIGHUP reloads every worker, SIGTERM stops them all
cleanly, and a worker that dies takes the others down with it (exit 1) so
a service manager starts airlockd again whole, never half of it."""

import json
import os
import re
import signal
import socket
import stat
import struct
import subprocess
import time
import urllib.request

import pymysql
import pytest

import itest
import pgwire
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd, free_port
from test_peer_cancel import outcome, peer_kill, secret_file, send_cancel, sleeping_on
from test_pg_approvals import api, audited, in_thread

UID_BASE = 1005800000
USER, PASSWORD, DB = "agent", itest.AGENT_PASSWORD, "shop"
KEY = b"the-key-of-the-workers-node-0123456789"
ADMIN_PASSWORD = "admin-secret"


def worker_of(session_id):
    return ((session_id & 0xFFFFFFFF) >> 18) & 0xF


def children(pid):
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return [int(p) for p in f.read().split()]


@pytest.fixture(scope="module")
def node():
    itest.super_query("""
        DROP SCHEMA IF EXISTS workers_probe CASCADE;
        CREATE SCHEMA workers_probe;
        CREATE TABLE workers_probe.items (id int PRIMARY KEY, flag text);
        INSERT INTO workers_probe.items VALUES (1, 'x'), (2, 'x');
        GRANT USAGE ON SCHEMA workers_probe TO airlock_ro, airlock_rw;
        GRANT SELECT ON workers_probe.items TO airlock_ro;
        GRANT SELECT, UPDATE ON workers_probe.items TO airlock_rw;
    """)
    approval, metrics = free_port(), free_port()
    while metrics + 1 in (approval,):
        metrics = free_port()
    store = os.path.join(itest.STATE_DIR, "approvals-workers.db")
    for tail in ("", "-wal", "-shm"):
        if os.path.exists(store + tail):
            os.unlink(store + tail)
    d = PrivateAirlockd("workers", {"workers": 2, "pool_min": 1, "peer_id": 5,
                                    "peer_secret_file": secret_file("workers-peer.key", KEY),
                                    "approval_listen": "127.0.0.1:%d" % approval,
                                    "metrics_listen": "127.0.0.1:%d" % metrics, "approval_store": store},
                        uid_base=UID_BASE,
                        sections={"user writer": {"tables": "workers_probe.items, pg_catalog.*",
                                                  "write_tables": "workers_probe.items",
                                                  "approval_wait_ms": "20000"}})
    d.approval_port, d.metrics_port = approval, metrics
    d.start()
    # Both workers serve: every worker's first ready runner is up.
    assert itest.wait_until(lambda: len(re.findall(r"worker \d: listening for MySQL", d.log())) == 2, 30, 0.2)
    yield d
    d.stop()
    itest.super_query("DROP SCHEMA workers_probe CASCADE")


def pg_session(node, user=USER, password=PASSWORD, db=DB):
    c = pgwire.Conn("127.0.0.1", node.pg_port)
    assert c.login(user, password, db) is None
    return c


def pg_on(node, worker, **login):
    """A logged-in raw Postgres session that the kernel gave to worker (others are closed)."""
    for _ in range(64):
        c = pg_session(node, **login)
        if worker_of(c.key[0]) == worker:
            return c
        c.close()
    raise AssertionError("64 connections and none on worker %d" % worker)


def my_on(node, worker, user=USER):
    for _ in range(64):
        c = pymysql.connect(host="127.0.0.1", port=node.my_port, user=user, password=PASSWORD, database=DB,
                            autocommit=True, connect_timeout=10, read_timeout=60)
        if worker_of(c.thread_id()) == worker:
            return c
        c.close()
    raise AssertionError("64 connections and none on worker %d" % worker)


def test_connections_spread_over_both_workers(node):
    seen = {}
    for _ in range(24):
        c = pg_session(node)
        try:
            w = worker_of(c.key[0])
            seen[w] = seen.get(w, 0) + 1
            assert (c.key[0] >> 22) & 0xFF == 5, hex(c.key[0])  # the node's peer_id stays
            assert outcome_of_select(c) == [("1",)]
        finally:
            c.close()
    assert sorted(seen) == [0, 1], seen
    for w in (0, 1):
        m = my_on(node, w)
        try:
            with m.cursor() as cur:
                cur.execute("SELECT 1")
                assert cur.fetchall() == ((1,),)
        finally:
            m.close()


def rows_of(c, sql):
    """sql's rows as tuples of text (NULL as None); an error fails the test."""
    rows = []
    for t, body in c.query(sql):
        assert t != b"E", pgwire.error_fields(body)
        if t == b"D":
            (n,), off, row = struct.unpack("!h", body[:2]), 2, []
            for _ in range(n):
                (size,) = struct.unpack("!i", body[off:off + 4])
                off += 4
                row.append(None if size < 0 else body[off:off + size].decode())
                off += max(size, 0)
            rows.append(tuple(row))
    return rows


def outcome_of_select(c):
    return rows_of(c, "SELECT 1")


def test_each_worker_has_its_own_directory_uids_and_socket(node):
    for w in (0, 1):
        assert os.path.isdir(os.path.join(node.job_dir, "w%d" % w))
        sock = os.path.join(node.job_dir, ".workers", "%d.sock" % w)
        st = os.stat(sock)
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    assert stat.S_IMODE(os.stat(os.path.join(node.job_dir, ".workers")).st_mode) == 0o700
    # Each worker's SHOW CONFIG: its own directory and its half of runner_uids.
    for w, uids in enumerate(("%d-%d" % (UID_BASE, UID_BASE + 499), "%d-%d" % (UID_BASE + 500, UID_BASE + 999))):
        c = pg_on(node, w, user="admin", password=ADMIN_PASSWORD, db="airlock")
        try:
            config = dict(rows_of(c, "SHOW CONFIG"))
        finally:
            c.close()
        assert config["workers"] == "2"
        assert config["job_dir"] == os.path.join(node.job_dir, "w%d" % w)
        assert config["runner_uids"] == uids


def test_a_cancel_reaches_its_statement_from_either_worker(node):
    """Each cancel arrives on a connection of its own, on whichever worker the kernel picks:
    every one lands, and at least a few had to be passed to the other worker."""
    sent_on = lambda: len(re.findall(r"cancel for session \d+ sent to worker", node.log()))
    before, landed = sent_on(), 0
    for k in range(30):
        c = pg_session(node)
        try:
            c.send_msg(b"Q", pgwire.cstr("SELECT pg_sleep(30)"))
            time.sleep(0.8)  # the statement is in its runner
            started = time.monotonic()
            send_cancel(node.pg_port, *c.key)
            assert outcome(c) == "57014", "cancel %d" % k
            assert time.monotonic() - started < 10
            landed += 1
        finally:
            c.close()
        if landed >= 10 and sent_on() - before >= 3:
            break
    assert landed >= 10 and sent_on() - before >= 3, (landed, sent_on() - before)


def sleeping(node, worker, secs):
    """A MySQL session on worker running SLEEP(secs) in a thread: (connection, thread, result)."""
    return sleeping_on(my_on(node, worker), secs)


def test_kill_query_reaches_the_other_workers_connection(node):
    victim, t, result = sleeping(node, 0, 10)
    killer = my_on(node, 1)
    try:
        with killer.cursor() as cur:
            cur.execute("KILL QUERY %d" % victim.thread_id())
        t.join(20)
        assert result.get("error", (None,))[0] == 1317, result
        assert result["secs"] < 7, result
    finally:
        killer.close()
        victim.close()
    assert re.search(r"worker 1: mysql session \d+: KILL QUERY \d+ sent to worker 0", node.log())


def test_kill_query_of_another_user_on_the_other_worker_kills_nothing(node):
    victim, t, result = sleeping(node, 1, 4)
    killer = my_on(node, 0, user="agent_small")
    try:
        with killer.cursor() as cur, pytest.raises(pymysql.err.MySQLError) as e:
            cur.execute("KILL QUERY %d" % victim.thread_id())
        assert e.value.args[0] == 1094
        t.join(20)
        assert result.get("rows") == ((0,),), result
    finally:
        killer.close()
        victim.close()


def test_a_peers_kill_on_the_wrong_worker_is_passed_on(node):
    """Another node's signed KILL QUERY arrives on either worker; the one that holds the connection
    cancels it and the answer (K) comes back through the one that took it."""
    relayed = lambda: len(re.findall(r"KILL QUERY \d+ from a peer: sent to worker", node.log()))
    before = relayed()
    for k in range(14):
        victim, t, result = sleeping(node, k % 2, 8)
        try:
            packet = peer_kill(victim.thread_id(), USER, int(time.time() * 1000), key=KEY)
            with socket.create_connection(("127.0.0.1", node.pg_port), timeout=5) as s:
                s.sendall(packet)
                s.settimeout(5)
                assert s.recv(1) == b"K"
            t.join(20)
            assert result.get("error", (None,))[0] == 1317, result
        finally:
            victim.close()
        if relayed() > before:
            break
    assert relayed() > before


def test_the_workers_key_never_leaves_the_node(node):
    """A request signed with a key the node does not hold is refused, whichever worker takes it."""
    victim, t, result = sleeping(node, 0, 3)
    try:
        for _ in range(4):
            packet = peer_kill(victim.thread_id(), USER, int(time.time() * 1000), key=b"guessed-" * 5)
            with socket.create_connection(("127.0.0.1", node.pg_port), timeout=5) as s:
                s.sendall(packet)
                s.settimeout(5)
                assert s.recv(1) == b"N"
        t.join(20)
        assert result.get("rows") == ((0,),), result
    finally:
        victim.close()


def test_the_audit_log_is_one_chain_of_both_workers(node):
    for w in (0, 1):
        c = pg_on(node, w)
        try:
            assert outcome_of_select(c) == [("1",)]
        finally:
            c.close()

    def workers_recorded():
        with open(node.audit_log) as f:
            records = [json.loads(ln) for ln in f if ln.strip()]
        return {worker_of(r["session"]) for r in records if r.get("decision") == "run"}

    # A worker sends its records once its clients have their answers: the last may follow a moment later.
    itest.wait_until(lambda: workers_recorded() == {0, 1}, 10, 0.1)
    assert workers_recorded() == {0, 1}
    out = subprocess.run([AIRLOCKD_BIN, "--verify-audit", node.audit_log], capture_output=True, text=True)
    assert out.returncode == 0 and "chain intact" in out.stdout, out.stdout + out.stderr


def test_a_write_held_on_one_worker_is_approved_on_the_page_of_the_other(node):
    """The approval page is worker 0's; a session on worker 1 holds a write and waits: the approval
    runs it on worker 0, and the waiting session reads the outcome from the shared store."""
    sql = "UPDATE workers_probe.items SET flag = 'w' WHERE id IN (1, 2)"
    for _ in range(64):
        conn = itest.connect(node.url(user="writer", password="writer-secret"), autocommit=True)
        if worker_of(conn.get_backend_pid()) == 1:
            break
        conn.close()
    else:
        raise AssertionError("no connection on worker 1")

    def run():
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.rowcount, cur.statusmessage

    try:
        t, out = in_thread(run)
        approval = None
        for _ in range(150):
            status, listed, _ = api(node, "GET", "/api/approvals")
            assert status == 200, listed
            mine = [r["id"] for r in listed if r["statement"] == sql]
            if mine:
                approval = mine[0]
                break
            time.sleep(0.2)
        assert approval, "never listed"
        status, record, _ = api(node, "POST", "/api/approvals/%s/approve" % approval, {"reason": "ok"})
        assert status == 200, record
        t.join(60)
        assert out.get("value") == (2, "UPDATE 2"), out
    finally:
        conn.close()
    got = itest.super_query("SELECT string_agg(flag, ',' ORDER BY id) FROM workers_probe.items")
    assert "w,w" in got, got
    # A worker sends its records once its clients have their answers: the last may follow a moment later.
    decisions = ["held", "approved", "running", "executed"]
    itest.wait_until(lambda: len(audited(node, approval)) >= len(decisions), 10, 0.1)
    assert [r["decision"] for r in audited(node, approval)] == decisions


def test_each_worker_serves_its_own_metrics(node):
    """Worker K serves its own figures on metrics_listen's port + K: a scrape config lists each."""
    for w in (0, 1):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % (node.metrics_port + w), timeout=10) as r:
            text = r.read().decode()
        assert re.search(r"^airlock_statements_total\{", text, re.M), text[:500]
    assert not PrivateAirlockd.accepts(node.metrics_port + 2)


def console(node, worker, command):
    c = pg_on(node, worker, user="admin", password=ADMIN_PASSWORD, db="airlock")
    try:
        return rows_of(c, command)
    finally:
        c.close()


def test_the_consoles_pause_and_resume_hold_every_worker(node):
    """PAUSE on worker 0's console holds a statement on worker 1 until RESUME on worker 1's."""
    console(node, 0, "PAUSE")
    c = pg_on(node, 1)
    try:
        c.send_msg(b"Q", pgwire.cstr("SELECT 1"))
        c.sock.settimeout(1.5)
        with pytest.raises(socket.timeout):
            c.sock.recv(1)
        c.sock.settimeout(30)
        console(node, 1, "RESUME")
        assert outcome(c) is None
    finally:
        c.close()
    assert "worker 1: another worker's console paused every worker" in node.log()


def test_the_consoles_reload_reloads_every_worker(node):
    before = len(re.findall(r"worker 0: reloaded", node.log()))
    console(node, 1, "RELOAD")
    assert itest.wait_until(lambda: len(re.findall(r"worker 0: reloaded", node.log())) == before + 1, 20, 0.2)


def sockets(pid):
    """The socket inodes among pid's descriptors (OSError once it is gone; one closed meanwhile is skipped)."""
    held = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except FileNotFoundError:
            continue
        if link.startswith("socket:["):
            held.add(link[len("socket:["):-1])
    return held


def test_no_process_below_a_worker_holds_its_line_to_the_supervisor(node):
    """The audit and control socket is the workers' alone: validators, runtimes and runners (which
    parse or run what agents send) inherit no end of it. An inherited end is the same socket, so the
    ends the supervisor and the workers hold are what no process below a worker may hold (crun keeps
    a SEQPACKET pair of its own while it starts a container)."""
    with open("/proc/net/unix") as f:
        seqpacket = {ln.split()[6] for ln in f.read().splitlines()[1:] if ln.split()[4] == "0005"}
    workers = children(node.pid)
    lines = set().union(*(sockets(pid) for pid in [node.pid] + workers)) & seqpacket
    assert lines, "no SEQPACKET end in the supervisor or its workers"
    below = []
    for w in workers:
        todo = children(w)
        while todo:
            pid = todo.pop()
            below.append(pid)
            try:
                todo.extend(children(pid))
            except OSError:
                pass
    assert below
    for pid in below:
        try:
            held = sockets(pid)
        except OSError:
            continue
        assert not held & lines, (pid, held & lines)


def test_sighup_reloads_every_worker(node):
    before = len(re.findall(r"worker \d: reloaded", node.log()))
    node.signal(signal.SIGHUP)
    assert itest.wait_until(lambda: sorted(re.findall(r"worker (\d): reloaded", node.log())[before:]) == ["0", "1"],
                            20, 0.2), node.log()[-2000:]


def test_sigterm_stops_every_worker_cleanly(node):
    workers = children(node.pid)
    assert len(workers) == 2
    assert node.stop() == 0
    for pid in workers:
        assert not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z"
    assert not PrivateAirlockd.accepts(node.pg_port)


def test_a_worker_that_dies_stops_airlockd():
    d = PrivateAirlockd("workers_die", {"workers": 2, "pool_min": 0}, uid_base=UID_BASE + 2000)
    d.start()
    try:
        assert itest.wait_until(lambda: len(re.findall(r"worker \d: listening for MySQL", d.log())) == 2, 30, 0.2)
        workers = children(d.pid)
        assert len(workers) == 2
        os.kill(workers[1], signal.SIGKILL)
        assert d.wait_exit(30) == 1, d.log()[-2000:]
        assert re.search(r"worker \d \(pid %d\) ended by signal 9; stopping the others" % workers[1], d.log())
        assert not PrivateAirlockd.accepts(d.pg_port)
    finally:
        d.stop()


def test_the_consoles_shutdown_stops_every_worker():
    """And a SIGHUP that comes while the workers start waits for their handlers instead of ending them."""
    d = PrivateAirlockd("workers_shut", {"workers": 2, "pool_min": 0}, uid_base=UID_BASE + 3000)
    d.start(wait=False)
    try:
        assert itest.wait_until(lambda: len(children(d.pid)) == 2, 10, 0.01)
        d.signal(signal.SIGHUP)
        assert itest.wait_until(lambda: len(re.findall(r"worker \d: listening for MySQL", d.log())) == 2, 30, 0.2)
        assert itest.wait_until(lambda: len(re.findall(r"worker \d: reloaded", d.log())) == 2, 10, 0.1), d.log()
        assert d.alive() and len(children(d.pid)) == 2
        c = pgwire.Conn("127.0.0.1", d.pg_port)
        assert c.login("admin", ADMIN_PASSWORD, "airlock") is None
        c.query("SHUTDOWN WAIT_FOR_CLIENTS")
        c.close()
        assert d.wait_exit(30) == 0, d.log()[-2000:]
        assert re.search(r"worker \d's console: SHUTDOWN; every worker drains", d.log())
    finally:
        d.stop()


def test_too_few_runner_uids_for_the_workers_is_refused():
    d = PrivateAirlockd("workers_few", {"workers": 4, "runner_uids": "%d-%d" % (UID_BASE + 4000, UID_BASE + 4002)},
                        uid_base=UID_BASE + 4000)
    out = subprocess.run([AIRLOCKD_BIN, "--check-config", d.config], capture_output=True, text=True)
    assert out.returncode == 1
    assert "runner_uids has 3 uids and workers = 4" in out.stderr, out.stderr


def test_a_start_with_fewer_workers_removes_what_a_crashed_run_left():
    """A crash leaves each worker's runner containers and directory (job_dir/wK) behind. A later
    start as one process never uses them: it removes the containers (and any runner still running),
    then the directories and the workers' sockets."""
    uid = UID_BASE + 5000
    d = PrivateAirlockd("workers_shrink", {"workers": 2, "pool_min": 1}, uid_base=uid)
    roots = [os.path.join(d.job_dir, "w%d" % k) for k in (0, 1)]
    left = []
    d.start()
    try:
        assert itest.wait_until(lambda: len(re.findall(r"worker \d: listening for MySQL", d.log())) == 2, 30, 0.2)
        assert itest.wait_until(lambda: all(itest.live_runners(r) for r in roots), 30, 0.2), d.log()[-2000:]
        left = [r["pid"] for root in roots for r in itest.live_runners(root)]
        # Runners that still run when airlockd dies: a runner ends once its line to its worker is
        # gone, unless it is stopped (or busy) and does not read it.
        for pid in left:
            os.kill(pid, signal.SIGSTOP)
        for pid in children(d.pid) + [d.pid]:
            os.kill(pid, signal.SIGKILL)
        d.proc.wait()
        assert all(itest.runner_containers(r) for r in roots)
        assert os.path.isdir(os.path.join(d.job_dir, ".workers"))
    finally:
        d.stop()
    one = PrivateAirlockd("workers_shrink", {"workers": 1, "pool_min": 0}, uid_base=uid)
    try:
        # Without the sweep, the runners' uids are busy and the start is refused.
        one.start()
        assert "removed 2 worker directories left from a run with more workers" in one.log(), one.log()
        assert itest.wait_until(lambda: not any(os.path.exists("/proc/%d" % pid) for pid in left), 10, 0.1)
        assert not any(os.path.exists(r) for r in roots)
        assert not any(itest.runner_containers(r) for r in roots)
        assert not os.path.exists(os.path.join(d.job_dir, ".workers"))
        c = pg_session(one)
        assert rows_of(c, "SELECT count(*) FROM orders WHERE id <= 3") == [("3",)]
        c.close()
    finally:
        one.stop()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
