"""Login denial by half-open connections, played as an attacker: 1,000 TCP
connections to each listener that send only the first bytes of a start-up
packet (or nothing, to the MySQL listener's greeting), from a loopback
address of their own (127.0.0.2, 127.0.0.3), held open, or reopened as
fast as they are closed. A real client on 127.0.0.1 must still log in and
run a statement on both protocols: connections still logging in have a
budget of their own apart from max_connections, capped per client address,
with the oldest idle one closed to make room. Then a flood from several
addresses, each under the per-address cap, fills the whole budget while a
slow client that has sent its start-up packet waits: the flood turns over,
the client keeps its place and logs in."""

import resource
import socket
import struct
import threading
import time
import urllib.parse

import pymysql
import pytest

import itest
import pgwire
from private_airlockd import PrivateAirlockd

FLOOD = 1000


def open_half(port, payload, src):
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
    if payload:
        s.sendall(payload)
    return s


class Flood:
    """FLOOD half-open connections to port from src; with reopen, those the server closes are reopened."""

    def __init__(self, port, payload, src, reopen, count=FLOOD):
        self.port, self.payload, self.src, self.reopen, self.count = port, payload, src, reopen, count
        self.socks = []
        self.stop = threading.Event()
        self.reopened = 0  # connections the server closed
        self.opened = 0

    def fill(self):
        while len(self.socks) < self.count and not self.stop.is_set():
            try:
                self.socks.append(open_half(self.port, self.payload, self.src))
                self.opened += 1
            except OSError:
                time.sleep(0.01)

    def run(self):
        self.fill()
        while not self.stop.is_set():
            alive = []
            for s in self.socks:
                s.setblocking(False)
                try:
                    gone = s.recv(1 << 16) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    s.close()
                    self.reopened += 1
                else:
                    alive.append(s)
            self.socks = alive
            if self.reopen:
                self.fill()
            time.sleep(0.05)

    def close(self):
        for s in self.socks:
            s.close()
        self.socks = []


def start_floods(src, reopen):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    # Postgres: the first 4 bytes of a start-up packet (its length), never the rest.
    pg = Flood(urllib.parse.urlsplit(itest.AGENT_URL).port, b"\x00\x00\x00\x52", src, reopen)
    my = Flood(itest.MY_PORT, b"", src, reopen)
    threads = [threading.Thread(target=f.run, daemon=True) for f in (pg, my)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while (pg.opened < FLOOD or my.opened < FLOOD) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pg, my, threads


def stop_floods(floods):
    pg, my, threads = floods
    for f in (pg, my):
        f.stop.set()
    for t in threads:
        t.join(timeout=30)
    for f in (pg, my):
        f.close()


def log_in_and_read():
    """A real client of each protocol logs in and runs a statement; the seconds each took."""
    t0 = time.monotonic()
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders WHERE id <= 10")
        assert cur.fetchone() == (10,)
    conn.close()
    pg_secs = time.monotonic() - t0
    t0 = time.monotonic()
    mconn = itest.my_connect(autocommit=True)
    with mconn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders WHERE id <= 10")
        assert cur.fetchone() == (10,)
    mconn.close()
    return pg_secs, time.monotonic() - t0


@pytest.mark.parametrize("src,reopen", [("127.0.0.2", False), ("127.0.0.3", True)])
def test_real_clients_log_in_through_a_flood(src, reopen):
    floods = start_floods(src, reopen)
    try:
        pg, my, _ = floods
        assert pg.opened >= FLOOD and my.opened >= FLOOD
        pg_secs, my_secs = log_in_and_read()
        print("flood from %s (%s): login and statement %.3f s (postgres), %.3f s (mysql); closed by the server"
              " %d + %d" % (src, "reopened" if reopen else "held", pg_secs, my_secs, pg.reopened, my.reopened))
        # The server turned the flood over instead of keeping it. A MySQL socket the server closed
        # holds its greeting first, so the flood's loop sees the close a pass (50 ms) later; a
        # login quicker than that must not find the count still at 0.
        deadline = time.monotonic() + 10
        while not (pg.reopened > 0 and my.reopened > 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pg.reopened > 0 and my.reopened > 0, (pg.reopened, my.reopened)
    finally:
        stop_floods(floods)


def test_server_serves_after_the_flood():
    conn = itest.connect(itest.AGENT_URL, autocommit=True)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    conn.close()
    with pymysql.connect(host=itest.MY_HOST, port=itest.MY_PORT, user="agent", password=itest.AGENT_PASSWORD,
                         database="shop") as m:
        with m.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)


def finish_scram(c, password):
    """The rest of a SCRAM login whose start-up packet went earlier: None when ready, else the error."""
    scram = pgwire._Scram(password)
    first = scram.client_first()
    c.send_msg(b"p", pgwire.cstr("SCRAM-SHA-256") + struct.pack("!i", len(first)) + first)
    while True:
        t, body = c.recv_msg()
        if t == b"E":
            return pgwire.error_fields(body)
        if t == b"R":
            (code,) = struct.unpack("!i", body[:4])
            if code == 11:
                c.send_msg(b"p", scram.client_final(body[4:]))
            elif code == 12:
                scram.check_server_final(body[4:])
        elif t == b"Z":
            return None


def test_slow_login_keeps_its_place_while_a_flood_from_many_addresses_turns_over():
    """Four addresses, 24 half-open connections each (under the per-address cap of 32), reopened as
    they are closed, against a budget of 64: the server must close the flood's connections, the oldest
    idle first, and never the oldest of all, a client on 127.0.0.1 that sent its start-up packet
    before the flood began and finishes its login only after the flood has turned over."""
    d = PrivateAirlockd("preauthmany", {"max_unauthenticated": 64, "max_unauthenticated_per_address": 32,
                                        "pool_min": 0}, uid_base=1001300000)
    d.start()
    floods, threads = [], []
    try:
        c = pgwire.Conn("127.0.0.1", d.pg_port)
        c.startup("agent", "shop")
        t, body = c.recv_msg()
        assert t == b"R" and struct.unpack("!i", body[:4])[0] == 10, (t, body)  # AuthenticationSASL
        floods = [Flood(d.pg_port, b"\x00\x00\x00\x52", "127.0.0.%d" % n, True, count=24) for n in range(10, 14)]
        threads = [threading.Thread(target=f.run, daemon=True) for f in floods]
        for th in threads:
            th.start()
        # Past the budget every new connection closes another: the flood's own, as long as the rule holds.
        assert itest.wait_until(lambda: sum(f.reopened for f in floods) >= 100, 10, 0.1), \
            [(f.opened, f.reopened) for f in floods]
        assert finish_scram(c, itest.AGENT_PASSWORD) is None
        msgs = c.query("SELECT 1")
        assert [t for t, _ in msgs] == [b"T", b"D", b"C", b"Z"], msgs
        c.close()
    finally:
        for f in floods:
            f.stop.set()
        for th in threads:
            th.join(timeout=30)
        for f in floods:
            f.close()
        d.stop()
