"""Cancels across nodes ([server] peer_id and peers, docs/admin.md).

Three airlockds of the test's own play three nodes behind a load balancer:
a client's CancelRequest goes to whichever node the balancer picks, here
each in turn. The node that issued the key (its peer_id is in the key's
process id) gets it, directly or sent on by another node, and cancels the
statement. Then what an attacker or a bad configuration could do with it:
a key with the wrong secret cancels nothing though it was forwarded, two
nodes that each believe the other is node 9 pass a cancel between them
twice and then drop it, and a peer that is down costs a failed forward
and nothing else.

MySQL's KILL QUERY <id> comes over an authenticated connection, and the
node holding <id> must know the killer is its user: nodes 1 and 2 share
peer_secret_file and sign it; node 3 has another key, so its requests are
refused; a request replayed as is, or made long ago, is refused too."""

import hashlib
import hmac
import os
import socket
import struct
import threading
import time

import pymysql

import pytest

import itest
import pgwire
from private_airlockd import PrivateAirlockd, free_port, rewrite

UID_BASE = 1005400000
ADMIN_PASSWORD = "admin-secret"
USER, PASSWORD, DB = "agent", itest.AGENT_PASSWORD, "shop"
SECRET = b"the-key-nodes-1-and-2-share-0123456789"
PEER_KILL = 80877125


def secret_file(name, key):
    path = os.path.join(itest.STATE_DIR, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key + b"\n")
    os.chmod(path, 0o600)
    return path


def send_cancel(port, pid, secret):
    """A client's CancelRequest to 127.0.0.1:port, as psql sends it; the server answers nothing."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(struct.pack("!iiii", 16, pgwire.CANCEL_REQUEST, pid, secret))
        s.settimeout(5)
        assert s.recv(1) == b""


def peers_of(node):
    """SHOW PEERS on node's console: {peer_id: row as a dict}."""
    conn = itest.connect("host=127.0.0.1 port=%d user=admin dbname=airlock password=%s sslmode=disable"
                         % (node.pg_port, ADMIN_PASSWORD), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW PEERS")
            names = [d[0] for d in cur.description]
            return {int(r[0]): dict(zip(names, r)) for r in cur.fetchall()}
    finally:
        conn.close()


@pytest.fixture(scope="module")
def nodes():
    """Nodes 1, 2 and 3, each listing the others; 2 and 3 also list each other as node 9
    (a loop), and node 1 lists node 4 at a port nothing listens on."""
    made = [PrivateAirlockd("peer%d" % i, uid_base=UID_BASE + i * 2000,
                            server={"pool_min": 1, "peer_id": i}) for i in (1, 2, 3)]
    dead = free_port()
    shared = secret_file("peer-shared.key", SECRET)
    alone = secret_file("peer-other.key", b"node-3-has-a-key-of-its-own-0123456789")
    for i, node in enumerate(made, 1):
        others = ["%d=127.0.0.1:%d" % (j, n.pg_port) for j, n in enumerate(made, 1) if j != i]
        if i == 1:
            others.append("4=127.0.0.1:%d" % dead)
        if i == 2:
            others.append("9=127.0.0.1:%d" % made[2].pg_port)
        if i == 3:
            others.append("9=127.0.0.1:%d" % made[1].pg_port)
        with open(node.config) as f:
            text = rewrite(f.read(), {"server": {"peers": ", ".join(others),
                                                 "peer_secret_file": shared if i < 3 else alone}})
        with open(node.config, "w") as f:
            f.write(text)
    try:
        for node in made:
            node.start()
        yield made
    finally:
        for node in made:
            node.stop()


def running(node, sql):
    """A logged-in raw session on node with sql sent and not yet answered; its (pid, secret)."""
    c = pgwire.Conn("127.0.0.1", node.pg_port)
    assert c.login(USER, PASSWORD, DB) is None
    c.send_msg(b"Q", pgwire.cstr(sql))
    return c


def outcome(c):
    """The SQLSTATE the statement ended with, or None for success."""
    for t, body in c.recv_until_ready():
        if t == b"E":
            return pgwire.error_fields(body).get("C")
    return None


def test_keys_carry_the_node(nodes):
    for i, node in enumerate(nodes, 1):
        c = pgwire.Conn("127.0.0.1", node.pg_port)
        try:
            assert c.login(USER, PASSWORD, DB) is None
            pid = c.key[0]
            assert pid > 0 and (pid >> 22) & 0xFF == i, hex(pid)
        finally:
            c.close()


def test_a_cancel_reaches_its_statement_from_any_node(nodes):
    """Ten statements on node 1, each cancelled through a node picked in turn, ten out of ten."""
    first, before = nodes[0], {n.name: peers_of(n).get(1, {}) for n in nodes[1:]}
    for k in range(10):
        via = nodes[k % 3]
        c = running(first, "SELECT pg_sleep(30)")
        try:
            time.sleep(1.0)  # the statement is in its runner
            started = time.monotonic()
            send_cancel(via.pg_port, *c.key)
            assert outcome(c) == "57014", "cancel %d through %s" % (k, via.name)
            assert time.monotonic() - started < 10
        finally:
            c.close()
    for n in nodes[1:]:
        after = peers_of(n)[1]
        assert int(after["cancels_forwarded"]) - int(before[n.name].get("cancels_forwarded", 0)) >= 3, after
        assert after["cancels_failed"] == "0", after


def test_the_wrong_secret_cancels_nothing(nodes):
    """The forwarding node cannot tell a good key from a bad one; the node that issued it can."""
    c = running(nodes[0], "SELECT pg_sleep(2)")
    try:
        time.sleep(0.7)
        pid, secret = c.key
        send_cancel(nodes[1].pg_port, pid, secret ^ 1)
        send_cancel(nodes[2].pg_port, pid, (secret + 1) & 0x7FFFFFFF)
        assert outcome(c) is None
    finally:
        c.close()


def test_two_nodes_that_disagree_drop_the_cancel_after_two_hops(nodes):
    n2, n3 = nodes[1], nodes[2]
    before2, before3 = peers_of(n2)[9], peers_of(n3)[9]
    pid = (9 << 22) | 12345
    send_cancel(n2.pg_port, pid, 777)
    # 2 sends it to 3 (hop 1), 3 back to 2 (hop 2), and 2 drops it.
    assert itest.wait_until(lambda: int(peers_of(n2)[9]["cancels_dropped"]) == int(before2["cancels_dropped"]) + 1,
                            10, 0.1)
    time.sleep(0.5)
    after2, after3 = peers_of(n2)[9], peers_of(n3)[9]
    assert int(after2["cancels_forwarded"]) == int(before2["cancels_forwarded"]) + 1
    assert int(after3["cancels_forwarded"]) == int(before3["cancels_forwarded"]) + 1
    assert int(after3["cancels_dropped"]) == int(before3["cancels_dropped"])
    # A key that says it already hopped twice goes nowhere.
    hopped = struct.unpack("!i", struct.pack("!I", pid | (2 << 30)))[0]
    send_cancel(n3.pg_port, hopped, 777)
    assert itest.wait_until(lambda: int(peers_of(n3)[9]["cancels_dropped"]) == int(after3["cancels_dropped"]) + 1,
                            10, 0.1)
    assert int(peers_of(n3)[9]["cancels_forwarded"]) == int(after3["cancels_forwarded"])
    assert int(peers_of(n2)[9]["cancels_forwarded"]) == int(after2["cancels_forwarded"])


def test_a_peer_that_is_down_costs_a_failed_forward(nodes):
    first = nodes[0]
    before = peers_of(first)[4]
    send_cancel(first.pg_port, (4 << 22) | 99, 1)
    assert itest.wait_until(lambda: int(peers_of(first)[4]["cancels_failed"]) == int(before["cancels_failed"]) + 1,
                            10, 0.1)
    # An id no peer has, a flood of them: dropped, the node serves on.
    for _ in range(50):
        send_cancel(first.pg_port, (77 << 22) | 5, 1)
    assert first.alive()
    c = running(first, "SELECT 1")
    try:
        assert outcome(c) is None
    finally:
        c.close()


def test_show_peers_and_config(nodes):
    rows = peers_of(nodes[0])
    assert sorted(rows) == [2, 3, 4]
    assert rows[2]["address"] == "127.0.0.1" and int(rows[2]["port"]) == nodes[1].pg_port
    conn = itest.connect("host=127.0.0.1 port=%d user=admin dbname=airlock password=%s sslmode=disable"
                         % (nodes[0].pg_port, ADMIN_PASSWORD), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW CONFIG")
            config = cur.fetchall()
    finally:
        conn.close()
    assert ("peer_id", "1") in config
    assert ("peers", "2=127.0.0.1:%d" % nodes[1].pg_port) in config


# ---- MySQL: KILL QUERY across nodes ----

def my_conn(node, user="agent"):
    return pymysql.connect(host="127.0.0.1", port=node.my_port, user=user, password=PASSWORD, database=DB,
                           autocommit=True, connect_timeout=10, read_timeout=60)


def sleeping(node, secs):
    """A MySQL session on node running SLEEP(secs) in a thread: (connection, thread, result)."""
    return sleeping_on(my_conn(node), secs)


def sleeping_on(victim, secs):
    """SLEEP(secs) run on the MySQL connection victim in a thread: (victim, thread, result)."""
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


def kill_from(node, conn_id, user="agent"):
    """KILL QUERY conn_id sent through node as user: None when answered OK, else MariaDB's errno."""
    killer = my_conn(node, user)
    try:
        with killer.cursor() as cur:
            cur.execute("KILL QUERY %d" % conn_id)
        return None
    except pymysql.err.MySQLError as e:
        return e.args[0]
    finally:
        killer.close()


def test_kill_query_reaches_another_nodes_connection(nodes):
    victim, t, result = sleeping(nodes[0], 8)
    try:
        assert (victim.thread_id() >> 22) & 0xFF == 1
        assert kill_from(nodes[1], victim.thread_id()) is None
        t.join(20)
        assert result.get("error", (None,))[0] == 1317, result
        assert result["secs"] < 6, result
        with victim.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
    finally:
        victim.close()
    assert "KILL QUERY from a peer" in nodes[0].log()


def test_kill_query_of_another_user_or_key_kills_nothing(nodes):
    """Another user's KILL QUERY is sent, signed, and refused by the node that holds the connection;
    one signed with another key is refused before anything is looked up."""
    victim, t, result = sleeping(nodes[0], 4)
    try:
        # Answered as MariaDB answers for a connection it does not have: the other node said so.
        assert kill_from(nodes[1], victim.thread_id(), user="agent_small") == 1094
        time.sleep(1.1)  # refusals are logged at most once a second
        assert kill_from(nodes[2], victim.thread_id()) == 1094
        t.join(20)
        assert result.get("rows") == ((0,),), result
    finally:
        victim.close()
    log = nodes[0].log()
    assert "no such session of that user here" in log
    assert "not signed with peer_secret_file's key" in log


def test_kill_query_for_an_id_no_node_has(nodes):
    """An id of node 1 that no session has, and one of node 4, which is down: 1094 at once, as MariaDB."""
    started = time.monotonic()
    assert kill_from(nodes[1], (1 << 22) | 0x2ABCD) == 1094
    assert kill_from(nodes[0], (4 << 22) | 0x2ABCD) == 1094
    assert time.monotonic() - started < 5
    for node in nodes:
        assert node.alive()


def peer_kill(conn_id, user, made_ms, key=SECRET):
    body = struct.pack("!IIQ", PEER_KILL, conn_id, made_ms) + user.encode() + b"\0"
    head = struct.pack("!I", 4 + len(body) + 32)
    return head + body + hmac.new(key, head + body, hashlib.sha256).digest()


def send_raw(port, packet):
    """The node's answer to a packet: its one byte (K: cancelled, N: not), then its close."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(packet)
        s.settimeout(5)
        answer = s.recv(1)
        assert s.recv(1) == b""
        return answer


def test_a_replayed_or_stale_kill_is_refused(nodes):
    """An observer of the nodes' traffic sends a request again: refused, as is one made 60 s ago."""
    victim, t, result = sleeping(nodes[0], 8)
    try:
        packet = peer_kill(victim.thread_id(), USER, int(time.time() * 1000))
        assert send_raw(nodes[0].pg_port, packet) == b"K"
        t.join(20)
        assert result.get("error", (None,))[0] == 1317, result
    finally:
        victim.close()
    victim, t, result = sleeping(nodes[0], 3)
    try:
        time.sleep(1.1)  # refusals are logged at most once a second
        assert send_raw(nodes[0].pg_port, packet) == b"N"
        time.sleep(1.1)
        assert send_raw(nodes[0].pg_port, peer_kill(victim.thread_id(), USER, int(time.time() * 1000) - 60000)) == b"N"
        t.join(20)
        assert result.get("rows") == ((0,),), result
    finally:
        victim.close()
    log = nodes[0].log()
    assert "peer message refused: a replay" in log
    assert "peer message refused: too old" in log
