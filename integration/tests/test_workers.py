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
import threading
import time

import pymysql
import pytest

import itest
import pgwire
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd
from test_peer_cancel import peer_kill, secret_file, send_cancel

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
    d = PrivateAirlockd("workers", {"workers": 2, "pool_min": 1, "peer_id": 5,
                                    "peer_secret_file": secret_file("workers-peer.key", KEY)},
                        uid_base=UID_BASE)
    d.start()
    # Both workers serve: every worker's first ready runner is up.
    assert itest.wait_until(lambda: len(re.findall(r"worker \d: listening for MySQL", d.log())) == 2, 30, 0.2)
    yield d
    d.stop()


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


def outcome(c):
    for t, body in c.recv_until_ready():
        if t == b"E":
            return pgwire.error_fields(body).get("C")
    return None


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
    victim = my_on(node, worker)
    result = {}

    def run():
        t0 = time.monotonic()
        try:
            with victim.cursor() as cur:
                cur.execute("SELECT SLEEP(%d)" % secs)
                result["rows"] = cur.fetchall()
        except pymysql.err.MySQLError as e:
            result["error"] = e.args
        result["secs"] = time.monotonic() - t0

    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.5)
    return victim, t, result


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
    out = subprocess.run([AIRLOCKD_BIN, "--verify-audit", node.audit_log], capture_output=True, text=True)
    assert out.returncode == 0 and "chain intact" in out.stdout, out.stdout + out.stderr
    with open(node.audit_log) as f:
        records = [json.loads(ln) for ln in f if ln.strip()]
    assert {worker_of(r["session"]) for r in records if r.get("decision") == "run"} == {0, 1}


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


def test_too_few_runner_uids_for_the_workers_is_refused():
    d = PrivateAirlockd("workers_few", {"workers": 4, "runner_uids": "%d-%d" % (UID_BASE + 4000, UID_BASE + 4002)},
                        uid_base=UID_BASE + 4000)
    out = subprocess.run([AIRLOCKD_BIN, "--check-config", d.config], capture_output=True, text=True)
    assert out.returncode == 1
    assert "runner_uids has 3 uids and workers = 4" in out.stderr, out.stderr
