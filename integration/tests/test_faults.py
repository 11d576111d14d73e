"""Faults, each against the real components and a private airlockd of the
test's own (private_airlockd.py): a runner that stays up after its result,
SIGTERM while statements run, airlockd killed mid-statement and started
again, a runner killed from outside or by the OOM killer, clients that
vanish mid-result or mid-login or read slowly, and a backend that accepts
and never answers. For each fault the client gets a clear native answer,
never a hang, airlockd goes on serving, and afterwards no container, job
directory, backend connection or descriptor is left."""

import os
import signal
import socket
import subprocess
import threading
import time

import psycopg2
import pytest

import itest
import pgwire
from itest import REPO, fetch_all, wait_until
from private_airlockd import PrivateAirlockd

PG_PORT = 5432
LINGER_BIN = os.path.join(REPO, "build", "runner_linger")


@pytest.fixture(scope="module")
def linger_image():
    """A runner image (or, for runtime = oci, root filesystem) whose runner answers, then stays up
    holding its relay (integration/rogue/): the server keys that select it."""
    if not os.access(LINGER_BIN, os.X_OK):
        pytest.fail("%s is missing: build/ must be built (test.sh does)" % LINGER_BIN)
    script = os.path.join(REPO, "integration", "tools", "build-runner-image.sh")
    if itest.RUNTIME == "oci":
        out = subprocess.run([script, "--rootfs", os.path.join(itest.STATE_DIR, "linger-rootfs.tar"), LINGER_BIN],
                             capture_output=True, text=True, check=True).stdout
        return {"runner_rootfs": out.split()[-1]}
    out = subprocess.run([script, LINGER_BIN, "airlock-runner:linger"], capture_output=True, text=True,
                         check=True).stdout
    return {"runner_image": out.split()[-1]}


@pytest.fixture
def lingering(linger_image):
    d = PrivateAirlockd("linger", dict(linger_image, pool_min=0, kill_margin_ms=3000))
    d.start()
    yield d
    status = d.stop()
    assert d.clean(), "containers or job directories left: %s %s" % (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


def test_runner_that_stays_up_loses_its_relay_and_is_killed(lingering):
    """The agent's statement was long since answered; the runner must not keep a container
    or a path to the backend (its relay) for as long as it likes."""
    conn = lingering.connect()
    cur = conn.cursor()
    t0 = time.monotonic()
    cur.execute("SELECT 1")
    assert cur.statusmessage == "SELECT 0"
    # The rogue runner is alive, but its backend connection closed with the result: airlockd's copy
    # and the socket the runner was handed (a TLS target's) alike.
    assert lingering.containers(), "the rogue runner exited by itself: the test proves nothing"
    assert wait_until(lambda: not lingering.backend_sockets(PG_PORT, runners=True), 2, 0.05), \
        lingering.backend_sockets(PG_PORT, runners=True)
    assert lingering.containers(), "relay check came too late to tell the two mechanisms apart"
    # Then kill_margin_ms (3 s) after the result, the container goes; timeout_ms (10 s) plays no part.
    assert wait_until(lambda: not lingering.containers(), 9, 0.1), lingering.log()[-2000:]
    assert time.monotonic() - t0 < 9.5
    assert "still running 3000 ms after its result" in lingering.log()
    # The session goes on.
    cur.execute("SHOW airlock.policy")
    conn.close()


# ---- a private airlockd with no warm pool: every container is a statement's

def plain(name, uid_base, server=None, sections=None, binary=None):
    values = {"pool_min": 0, "kill_margin_ms": 1000}
    values.update(server or {})
    return PrivateAirlockd(name, values, uid_base=uid_base, sections=sections, binary=binary)


@pytest.fixture
def lone():
    d = plain("lone", 1000400000, {"shutdown_grace_ms": 4000})
    d.start()
    yield d
    if d.alive():
        d.stop()
    itest.remove_containers(d.containers(), d.job_dir)


def fd_list(d):
    out = []
    for fd in os.listdir("/proc/%d/fd" % d.pid):
        try:
            out.append(os.readlink("/proc/%d/fd/%s" % (d.pid, fd)))
        except OSError:
            pass
    return sorted(out)


def in_thread(fn, *args):
    """Runs fn(*args) in a thread; returns a dict that gets "value" or "error"."""
    out = {}

    def run():
        try:
            out["value"] = fn(*args)
        except Exception as e:  # the test reads what the client saw
            out["error"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    out["thread"] = th
    return out


def run_sql(d, sql):
    return fetch_all(d.url(), sql)


def kept_and_reset(line):
    """Is d's backend connection (a line of backend_sockets) a kept session (keep_sessions), idle and reset
    after its last runner: its last query the reset's marker?"""
    port = int(line.split()[2].rsplit(":", 1)[1])
    return itest.super_query("SELECT state || '|' || left(query, 22) FROM pg_stat_activity "
                             "WHERE client_port = %d" % port) == "idle|SELECT 'airlock-reset-"


def settle(d):
    """Nothing of d's left: containers, job directories, backend connections but the sessions it keeps,
    each idle and reset."""
    assert wait_until(lambda: not d.containers() and not d.job_dirs()
                      and all(kept_and_reset(ln) for ln in d.backend_sockets(PG_PORT)),
                      20, 0.1), (d.containers(), d.job_dirs(), d.backend_sockets(PG_PORT))


def test_sigterm_drains_then_cuts_off(lone):
    """SIGTERM: no new connections at once, idle sessions told, a short statement finishes,
    a long one is cut off at shutdown_grace_ms, every container removed, exit status 0."""
    idle = lone.connect()
    raw = pgwire.Conn("127.0.0.1", lone.pg_port)
    assert raw.login("agent", "agent-secret", "shop") is None
    short = in_thread(run_sql, lone, "SELECT pg_sleep(1.5), 1")
    # psql prints what the server said; psycopg2 reports only the closed connection.
    long = subprocess.Popen(["psql", "-X", lone.url(), "-c", "SELECT pg_sleep(30)"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert wait_until(lambda: len(lone.containers()) == 2, 20, 0.05), lone.containers()
    t0 = time.monotonic()
    lone.signal(signal.SIGTERM)
    assert wait_until(lambda: not PrivateAirlockd.accepts(lone.pg_port), 2, 0.05), "still accepting"
    assert not PrivateAirlockd.accepts(lone.my_port)
    # Told as Postgres tells it (a client that writes first may see only the reset, as with Postgres).
    t, body = raw.recv_msg()
    assert t == b"E" and pgwire.error_fields(body).get("C") == "57P01", (t, body)
    with pytest.raises(psycopg2.OperationalError):
        with idle.cursor() as cur:
            cur.execute("SELECT 1")
    short["thread"].join(10)
    assert short.get("value") == [("", 1)], short
    out = long.communicate(timeout=10)[0]
    assert "FATAL:  terminating connection due to administrator command" in out, out
    status = lone.wait_exit(10)
    took = time.monotonic() - t0
    assert status == 0, lone.log()[-2000:]
    assert 3.5 < took < 8, took
    assert not lone.containers() and not lone.job_dirs()
    assert "shutting down: its statement was cut off" in lone.log()


def test_sigterm_with_nothing_running_exits_at_once(lone):
    conn = lone.connect()
    t0 = time.monotonic()
    lone.signal(signal.SIGTERM)
    assert lone.wait_exit(5) == 0
    assert time.monotonic() - t0 < 2
    conn.close()


def test_sigkill_mid_statement_then_restart_sweeps(lone):
    """airlockd killed while a statement runs: the client sees the connection go, and the
    next start removes the container and the job directory the dead process left."""
    job = in_thread(run_sql, lone, "SELECT pg_sleep(20)")
    assert wait_until(lambda: len(lone.containers()) == 1, 20, 0.05)
    # A runner that does not notice airlockd's death (stopped, as a hung one would be) keeps its container.
    assert wait_until(lambda: itest.live_runners(lone.job_dir), 10, 0.05)
    for r in itest.live_runners(lone.job_dir):
        os.kill(r["pid"], signal.SIGSTOP)
    lone.kill()
    job["thread"].join(5)
    assert isinstance(job.get("error"), psycopg2.OperationalError), job
    assert lone.containers() and lone.job_dirs(), "nothing was left to sweep: the test proves nothing"
    lone.start()
    assert not lone.job_dirs(), lone.job_dirs()
    assert wait_until(lambda: not lone.containers(), 20, 0.1), lone.containers()
    assert run_sql(lone, "SELECT 1") == [(1,)]
    settle(lone)


def test_runner_killed_from_outside_mid_result(lone):
    conn = lone.connect()

    def kill_one():
        job = in_thread(run_sql, lone, "SELECT g, pg_sleep(0.005) FROM generate_series(1, 4000) g")
        assert wait_until(lambda: len(lone.containers()) == 1, 20, 0.05)
        time.sleep(0.5)
        itest.kill_container(lone.containers()[0], lone.job_dir)
        job["thread"].join(10)
        err = job.get("error")
        assert isinstance(err, psycopg2.Error) and err.pgcode == "58000", job
        assert "runner exited" in str(err), err
        # Another session and this one go on.
        with conn.cursor() as cur:
            cur.execute("SELECT 2")
            assert cur.fetchall() == [(2,)]
        settle(lone)

    kill_one()
    fds = lone.fds()
    kill_one()
    kill_one()
    assert wait_until(lambda: lone.fds() <= fds, 5, 0.1), (lone.fds(), fds, fd_list(lone))
    conn.close()


def test_runner_stopped_and_continued_mid_statement_finishes(lone):
    """A runner stopped and continued while it waits on the backend (SIGSTOP / SIGCONT, what a
    tracer or a frozen cgroup does to it): its interrupted poll resumes (restart_syscall is in
    the seccomp allowlist) and the statement answers as if nothing happened."""
    job = in_thread(run_sql, lone, "SELECT pg_sleep(1.5), 7")
    assert wait_until(lambda: lone.runner_pids(), 20, 0.02), lone.log()[-2000:]
    time.sleep(0.5)
    pids = lone.runner_pids()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    time.sleep(0.3)
    for pid in pids:
        os.kill(pid, signal.SIGCONT)
    job["thread"].join(20)
    assert job.get("value") == [("", 7)], job
    settle(lone)


def test_runner_oom_killed(lone):
    """A row larger than the runner's memory (128 MB): the container dies, the client gets a clear error."""
    with pytest.raises(psycopg2.Error) as e:
        run_sql(lone, "SELECT repeat('x', 400 * 1024 * 1024)")
    assert e.value.pgcode in ("58000", "53200", "54000"), e.value
    assert run_sql(lone, "SELECT 1") == [(1,)]
    settle(lone)


def test_client_disconnects_mid_result_and_mid_login(lone):
    def vanish():
        # Mid-result: the client reads a little of a long stream and goes.
        c = pgwire.Conn("127.0.0.1", lone.pg_port)
        assert c.login("agent", "agent-secret", "shop") is None
        c.send_msg(b"Q", pgwire.cstr("SELECT g, pg_sleep(0.005) FROM generate_series(1, 4000) g"))
        assert c.recv_msg()[0] == b"T"
        c.close()
        # Mid-login: start-up sent and the SCRAM exchange left half done; bare TCP connects.
        for _ in range(5):
            h = pgwire.Conn("127.0.0.1", lone.pg_port)
            h.startup("agent", "shop")
            h.recv_msg()
            h.close()
            socket.create_connection(("127.0.0.1", lone.pg_port)).close()
            socket.create_connection(("127.0.0.1", lone.my_port)).close()
        settle(lone)

    # The first round warms what airlockd keeps (the engine connections libcurl caches).
    vanish()
    fds = lone.fds()
    for _ in range(3):
        vanish()
    assert wait_until(lambda: lone.fds() <= fds, 5, 0.1), (lone.fds(), fds, fd_list(lone))
    assert run_sql(lone, "SELECT 3") == [(3,)]


def test_slow_reader_keeps_memory_bounded():
    """A client that reads 40 MB slowly: airlockd stops reading the runner while the client's
    output is high, so its memory stays flat (back-pressure), and every byte arrives."""
    # The release build: under ASan the allocator's quarantine grows by design and would hide the trend.
    d = plain("slow", 1000500000, sections={"user agent": {"max_bytes": 100000000, "max_rows": 10000000,
                                                            "timeout_ms": 120000}},
              binary=os.path.join(REPO, "build", "airlockd"))
    d.start()
    try:
        run_sql(d, "SELECT 1")
        base = d.rss_kb()
        c = pgwire.Conn("127.0.0.1", d.pg_port, timeout=60)
        assert c.login("agent", "agent-secret", "shop") is None
        c.send_msg(b"Q", pgwire.cstr("SELECT repeat('x', 1000) FROM generate_series(1, 40000)"))
        got, peak = 0, base
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        while True:
            b = c.sock.recv(256 * 1024)
            if not b:
                break
            got += len(b)
            if got < 40 * 1000 * 1000:
                time.sleep(0.02)
                peak = max(peak, d.rss_kb())
            if b.endswith(b"Z\x00\x00\x00\x05I"):
                break
        c.close()
        assert got > 40 * 1000 * 1000, got
        assert peak - base < 24 * 1024, "airlockd grew by %d kB while a slow client read 40 MB" % (peak - base)
    finally:
        d.stop()
    assert d.clean()


class Silent:
    """A TCP server on loopback that accepts and never answers: a hung backend."""

    def __init__(self):
        self.lst = socket.socket()
        self.lst.bind(("127.0.0.1", 0))
        self.lst.listen(16)
        self.port = self.lst.getsockname()[1]
        self.conns = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.lst.accept()
            except OSError:
                return
            self.conns.append(c)

    def open_conns(self):
        """Accepted connections the other side has not closed."""
        live = 0
        for c in self.conns:
            c.setblocking(False)
            try:
                while c.recv(65536):  # what the runner sent, then EOF once closed
                    pass
            except BlockingIOError:
                live += 1
            except OSError:
                pass
        return live

    def close(self):
        self.lst.close()
        for c in self.conns:
            c.close()


def test_backend_that_accepts_and_never_answers():
    hung = Silent()
    d = plain("hung", 1000600000, sections={"target shop": {"port": hung.port}})
    d.start()
    try:
        t0 = time.monotonic()
        with pytest.raises(psycopg2.Error) as e:
            run_sql(d, "SELECT 1")  # agent: timeout_ms 10 s, kill_margin_ms 1 s
        took = time.monotonic() - t0
        assert e.value.pgcode == "08001" and "could not connect to the database" in str(e.value), e.value
        assert took < 15, took
        # Airlockd still serves (locally answered), and nothing is left, the hung connection included.
        assert run_sql(d, "SHOW airlock.policy")
        assert wait_until(lambda: not d.containers() and not d.job_dirs() and hung.open_conns() == 0, 20, 0.1), \
            (d.containers(), d.job_dirs(), hung.open_conns())
    finally:
        d.stop()
        hung.close()
