"""Two airlockd nodes behind Debian's HAProxy, as an operator would run them.

HAProxy balances TCP connections round robin and checks each node's
GET /health on its metrics listener (200 "ok"; 503 "paused" or
"stopping"). Through the balancer: logins, statements and refusals work on
either node; a client's cancel, which HAProxy sends to whichever node is
next, reaches its statement ten times out of ten (the nodes forward cancels
to each other, [server] peers); a paused or draining node leaves the
balancer and a resumed one comes back; a node killed mid-run costs its own
sessions only."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import psycopg2
import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port, rewrite

UID_BASE = 1005500000
ADMIN_PASSWORD = "admin-secret"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


class Balancer:
    def __init__(self, nodes):
        self.dir = tempfile.mkdtemp(prefix="airlock-haproxy-")
        self.port = free_port()
        self.sock = os.path.join(self.dir, "admin.sock")
        servers = "\n".join("  server n%d 127.0.0.1:%d check port %d" % (i, n.pg_port, n.metrics_port)
                            for i, n in enumerate(nodes, 1))
        cfg = os.path.join(self.dir, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write("""global
  stats socket %s level admin
  maxconn 512
defaults
  mode tcp
  timeout connect 2s
  timeout client 120s
  timeout server 120s
frontend pg
  bind 127.0.0.1:%d
  default_backend nodes
backend nodes
  balance roundrobin
  option httpchk GET /health
  http-check expect status 200
  default-server inter 200ms fall 1 rise 1
%s
""" % (self.sock, self.port, servers))
        self.log = open(os.path.join(self.dir, "haproxy.log"), "wb")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", cfg], stdout=self.log, stderr=self.log)
        assert itest.wait_until(lambda: self.status("n1") == "UP" and self.status("n2") == "UP", 20, 0.2), \
            self.logs()

    def logs(self):
        with open(os.path.join(self.dir, "haproxy.log"), "rb") as f:
            return f.read().decode(errors="replace")

    def stat(self):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.sock)
            s.sendall(b"show stat\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        lines = data.decode().splitlines()
        head = lines[0].lstrip("# ").split(",")
        return [dict(zip(head, ln.split(","))) for ln in lines[1:] if ln]

    def status(self, server):
        try:
            for row in self.stat():
                if row["pxname"] == "nodes" and row["svname"] == server:
                    return row["status"].split()[0]
        except OSError:
            return None
        return None

    def url(self):
        return "host=127.0.0.1 port=%d user=agent dbname=shop password=%s sslmode=disable connect_timeout=10" % (
            self.port, itest.AGENT_PASSWORD)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def node_of(conn):
    """The peer_id of the node a connection landed on: the cancel key's process id says it."""
    return (conn.get_backend_pid() >> 22) & 0xFF


def console(node, sql):
    conn = itest.connect("host=127.0.0.1 port=%d user=admin dbname=airlock password=%s sslmode=disable"
                         % (node.pg_port, ADMIN_PASSWORD), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall() if cur.description else None
    finally:
        conn.close()


def health(node):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/health" % node.metrics_port, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture(scope="module")
def cluster():
    nodes = []
    for i in (1, 2):
        metrics_port = free_port()
        n = PrivateAirlockd("lb%d" % i, uid_base=UID_BASE + i * 2000,
                            server={"pool_min": 1, "peer_id": i, "shutdown_grace_ms": 8000,
                                    "metrics_listen": "127.0.0.1:%d" % metrics_port})
        n.metrics_port = metrics_port
        nodes.append(n)
    for i, n in enumerate(nodes, 1):
        other = nodes[2 - i]
        with open(n.config) as f:
            text = rewrite(f.read(), {"server": {"peers": "%d=127.0.0.1:%d" % (3 - i, other.pg_port)}})
        with open(n.config, "w") as f:
            f.write(text)
        n.start()
    lb = Balancer(nodes)
    try:
        yield lb, nodes
    finally:
        lb.stop()
        for n in nodes:
            n.stop()


def landings(lb, count):
    """count new connections through the balancer: the node each landed on (each runs a statement)."""
    seen = []
    for _ in range(count):
        conn = itest.connect(lb.url(), autocommit=True)
        try:
            seen.append(node_of(conn))
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM orders WHERE id <= 3")
                assert cur.fetchone() == (3,)
        finally:
            conn.close()
    return seen


def test_logins_statements_and_refusals_on_either_node(cluster):
    lb, _ = cluster
    assert health(cluster[1][0]) == (200, "ok\n")
    assert set(landings(lb, 4)) == {1, 2}
    for _ in range(2):
        conn = itest.connect(lb.url(), autocommit=True)
        try:
            with conn.cursor() as cur, pytest.raises(psycopg2.Error) as e:
                cur.execute("DELETE FROM orders")
            assert e.value.pgcode == "25006", e.value
        finally:
            conn.close()


def test_cancels_through_the_balancer_land_ten_out_of_ten(cluster):
    """psycopg2's cancel opens a connection to the balancer, which sends it to the next node."""
    lb, nodes = cluster
    before = sum(int(console(n, "SHOW PEERS")[0][3]) for n in nodes)
    for k in range(10):
        conn = itest.connect(lb.url(), autocommit=True)
        try:
            timer = threading.Timer(1.0, conn.cancel)
            timer.start()
            started = time.monotonic()
            with conn.cursor() as cur, pytest.raises(psycopg2.errors.QueryCanceled):
                cur.execute("SELECT pg_sleep(30)")
            timer.join()
            assert time.monotonic() - started < 10, k
        finally:
            conn.close()
    # Round robin sent some of them to the node that did not run the statement.
    assert sum(int(console(n, "SHOW PEERS")[0][3]) for n in nodes) > before


def test_a_paused_node_leaves_the_balancer_and_comes_back(cluster):
    lb, nodes = cluster
    console(nodes[0], "PAUSE")
    try:
        assert health(nodes[0]) == (503, "paused\n")
        assert itest.wait_until(lambda: lb.status("n1") == "DOWN", 10, 0.1)
        assert set(landings(lb, 4)) == {2}
    finally:
        console(nodes[0], "RESUME")
    assert itest.wait_until(lambda: lb.status("n1") == "UP", 10, 0.1)
    assert set(landings(lb, 4)) == {1, 2}


def test_a_draining_node_leaves_the_balancer(cluster):
    """SIGTERM: the node finishes what runs and says "stopping" meanwhile; new clients go to the other."""
    lb, nodes = cluster
    busy = None
    for _ in range(4):
        conn = itest.connect(lb.url(), autocommit=True)
        if node_of(conn) == 2:
            busy = conn
            break
        conn.close()
    assert busy is not None
    result = []

    def sleep():
        with busy.cursor() as cur:
            cur.execute("SELECT pg_sleep(3)")
            result.append(cur.fetchone())

    t = threading.Thread(target=sleep)
    t.start()
    time.sleep(0.8)
    nodes[1].signal(signal.SIGTERM)
    assert itest.wait_until(lambda: health(nodes[1]) == (503, "stopping\n"), 5, 0.05)
    assert itest.wait_until(lambda: lb.status("n2") == "DOWN", 10, 0.1)
    assert set(landings(lb, 3)) == {1}
    t.join(15)
    assert result == [("",)]  # the running statement finished
    busy.close()
    assert nodes[1].wait_exit(20) == 0
    nodes[1].start()
    assert itest.wait_until(lambda: lb.status("n2") == "UP", 20, 0.1)


def test_a_killed_node_costs_only_its_own_sessions(cluster):
    lb, nodes = cluster
    conns = {}
    for _ in range(6):
        conn = itest.connect(lb.url(), autocommit=True)
        conns.setdefault(node_of(conn), []).append(conn)
    assert set(conns) == {1, 2}
    nodes[1].kill()
    try:
        for conn in conns[1]:
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM orders WHERE id <= 3")
                assert cur.fetchone() == (3,)
        for conn in conns[2]:
            with pytest.raises(psycopg2.Error):
                with conn.cursor() as cur:
                    cur.execute("SELECT 1")
        assert itest.wait_until(lambda: lb.status("n2") == "DOWN", 10, 0.1)
        assert set(landings(lb, 3)) == {1}
    finally:
        for cs in conns.values():
            for c in cs:
                c.close()
        nodes[1].start()
