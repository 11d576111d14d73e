"""Three airlockd nodes behind Debian's HAProxy, as an operator would run them.

Each node runs in a network namespace of its own (netns.py), as on a
machine of its own: every node listens on the same 127.0.0.1:6432, 3307
and 9930 of its namespace, reaches the databases at 127.0.0.1:5432 and
3306 of its namespace (carried to the host's) and its peers at
127.0.0.1:7001-7003 (carried to theirs). HAProxy runs on the host and
reaches each node through a port of its own.

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
import netns
from private_airlockd import PrivateAirlockd, free_port

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
        assert itest.wait_until(lambda: all(self.status("n%d" % i) == "UP" for i in range(1, len(nodes) + 1)),
                                20, 0.2), self.logs()

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


NODE_PG, NODE_MY, NODE_METRICS, PEER_BASE = 6432, 3307, 9930, 7000
PG_DB_PORT = 5432


@pytest.fixture(scope="module")
def cluster():
    spaces, forwards, nodes = [], [], []
    lb = None
    try:
        for i in (1, 2, 3):
            spaces.append(netns.Netns("airlock-node%d" % i))
        for i, ns in enumerate(spaces, 1):
            peers = ", ".join("%d=127.0.0.1:%d" % (j, PEER_BASE + j) for j in (1, 2, 3) if j != i)
            n = PrivateAirlockd("node%d" % i, uid_base=UID_BASE + i * 2000,
                                server={"pool_min": 1, "peer_id": i, "shutdown_grace_ms": 8000, "peers": peers,
                                        "pg_listen": "127.0.0.1:%d" % NODE_PG,
                                        "mysql_listen": "127.0.0.1:%d" % NODE_MY,
                                        "metrics_listen": "127.0.0.1:%d" % NODE_METRICS})
            n.prefix = ns.command([])
            # The databases, in the node's namespace where its config says they are.
            for port in (PG_DB_PORT, itest.MY_DIRECT_PORT):
                forwards.append(netns.Forward(ns, port, None, port))
            for j, other in enumerate(spaces, 1):
                if j != i:
                    forwards.append(netns.Forward(ns, PEER_BASE + j, other, NODE_PG))
            # What the host (HAProxy, the test's clients) reaches the node by.
            pg = netns.Forward(None, 0, ns, NODE_PG)
            my = netns.Forward(None, 0, ns, NODE_MY)
            metrics = netns.Forward(None, 0, ns, NODE_METRICS)
            forwards += [pg, my, metrics]
            n.pg_port, n.my_port, n.metrics_port = pg.port, my.port, metrics.port
            nodes.append(n)
        for n in nodes:
            n.start()
        lb = Balancer(nodes)
        yield lb, nodes
    finally:
        if lb:
            lb.stop()
        for n in nodes:
            n.stop()
        for f in forwards:
            f.close()
        for ns in spaces:
            ns.delete()


def test_each_node_is_alone_in_its_namespace(cluster):
    """Three processes listen on the same 127.0.0.1:6432, each in a namespace of its own."""
    _, nodes = cluster
    spaces = {os.readlink("/proc/%d/ns/net" % n.pid) for n in nodes}
    assert len(spaces) == 3 and os.readlink("/proc/self/ns/net") not in spaces


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
    assert set(landings(lb, 6)) == {1, 2, 3}
    for _ in range(3):
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
    before = sum(int(r[3]) for n in nodes for r in console(n, "SHOW PEERS"))
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
    assert sum(int(r[3]) for n in nodes for r in console(n, "SHOW PEERS")) > before


def test_a_paused_node_leaves_the_balancer_and_comes_back(cluster):
    lb, nodes = cluster
    console(nodes[0], "PAUSE")
    try:
        assert health(nodes[0]) == (503, "paused\n")
        assert itest.wait_until(lambda: lb.status("n1") == "DOWN", 10, 0.1)
        assert set(landings(lb, 6)) == {2, 3}
    finally:
        console(nodes[0], "RESUME")
    assert itest.wait_until(lambda: lb.status("n1") == "UP", 10, 0.1)
    assert set(landings(lb, 6)) == {1, 2, 3}


def test_a_draining_node_leaves_the_balancer(cluster):
    """SIGTERM: the node finishes what runs and says "stopping" meanwhile; new clients go to the other."""
    lb, nodes = cluster
    busy = None
    for _ in range(6):
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
    assert set(landings(lb, 4)) == {1, 3}
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
    assert set(conns) == {1, 2, 3}
    nodes[1].kill()
    try:
        for conn in conns[1] + conns[3]:
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM orders WHERE id <= 3")
                assert cur.fetchone() == (3,)
        for conn in conns[2]:
            with pytest.raises(psycopg2.Error):
                with conn.cursor() as cur:
                    cur.execute("SELECT 1")
        assert itest.wait_until(lambda: lb.status("n2") == "DOWN", 10, 0.1)
        assert set(landings(lb, 4)) == {1, 3}
    finally:
        for cs in conns.values():
            for c in cs:
                c.close()
        nodes[1].start()
