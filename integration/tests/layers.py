"""layers: a harness that runs the real airlock-runner, in a real runner
container, with a job airlockd would never send, and nothing of airlockd in
front of it: no validator, no result counting, no kill deadline of
airlockd's. It plays airlockd's part on the job's two sockets itself:

- the job directory (mode 0711) with control.sock and the relay socket
  (libpq's .s.PGSQL.5432, or mysqld.sock), each owned by the runner's uid,
  as proxy/job/job_dir.c makes them;
- the 'P' / 'J' frames, written as proxy/job/job_frame.c writes them, from
  any keys a test gives (base/frame.h); the result frames read back and
  decoded;
- the relay: every connection the runner opens on the relay socket
  (its session, a cancel request, the MariaDB watchdog's KILL QUERY
  connection) is carried to the database's TCP port. A test may ask the
  relay to change what the runner sends, as a database configured
  otherwise would behave: "engine_timeout_off" (the runner's
  statement_timeout / max_statement_time arrive as 0, so only the runner's
  own watchdog is left) and "read_write" (the runner's read-only
  transaction arrives as a read-write one, so only the backend role's
  privileges are left).

The demo's backend accounts (airlock_ro, airlock_rw) log in over TLS only,
so their jobs carry the targets' TLS keys (tls verify-full, tls_host) and the
job directory the CA file, as airlockd gives them; for those the relay, as
airlockd's does, hands the connected socket to the runner (SCM_RIGHTS)
instead of carrying its bytes, so it has no bytes to change: a test that
asks for changes logs in as a role without that requirement.

The container is started by integration/layers/layers_launch.c with the
OCI launcher airlockd uses (launch/), on the suite's pinned runner root
filesystem (runner_rootfs), unless AIRLOCK_LAYERS_ROOTFS names another."""

import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
import threading
import time

import itest

LAUNCH_BIN = os.environ.get("AIRLOCK_LAYERS_LAUNCH", os.path.join(itest.REPO, "build", "layers_launch"))
HARNESS_DIR = os.environ.get("AIRLOCK_LAYERS_DIR",
                             os.path.join(os.path.dirname(itest.JOB_DIR), "layers"))
# A uid range of its own: no airlockd's runners or validators use it.
RUNNER_UID = int(os.environ.get("AIRLOCK_LAYERS_UID", "1000400000"))
PG_ADDR = ("127.0.0.1", 5432)
MY_ADDR = (itest.MY_DIRECT_HOST, itest.MY_DIRECT_PORT)


def rootfs_ref():
    ref = os.environ.get("AIRLOCK_LAYERS_ROOTFS")
    if ref:
        return ref
    with open(os.path.join(itest.STATE_DIR, "runner_rootfs")) as f:
        return f.read().strip()


# ---------------------------------------------------------------- frames

def _str(b):
    return struct.pack(">I", len(b)) + b


def job_frame(pairs, ftype=b"J"):
    """A 'J' (or 'P') frame of (key, value) pairs, values str or bytes, in the order given."""
    body = struct.pack(">H", len(pairs))
    for k, v in pairs:
        body += _str(k.encode()) + _str(v if isinstance(v, bytes) else str(v).encode())
    return ftype + struct.pack(">I", len(body)) + body


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def take(self, n):
        v = self.d[self.o:self.o + n]
        if len(v) != n:
            raise ValueError("short frame")
        self.o += n
        return v

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack(">H", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def u64(self):
        return struct.unpack(">Q", self.take(8))[0]

    def s(self):
        return self.take(struct.unpack(">I", self.take(4))[0]).decode("utf-8", "replace")

    def left(self):
        return len(self.d) - self.o


def decode(ftype, payload):
    r = Reader(payload)
    if ftype in (b"E", b"N"):
        e = {"sqlstate": r.s(), "code": r.s(), "message": r.s(), "detail": r.s(), "hint": r.s()}
        e["position"] = r.s() if r.left() else ""
        e["my_errno"] = int(r.s() or 0) if r.left() else 0
        return e
    if ftype == b"C":
        c = {"rows": r.u64(), "truncated": r.u8(), "tag": r.s()}
        c["warnings"] = r.u16() if r.left() else 0
        return c
    if ftype == b"D":
        vals = []
        for _ in range(r.u16()):
            n = r.i32()
            vals.append(None if n < 0 else r.take(n))
        return vals
    if ftype == b"B":
        # The pid; a SCRAM login's salt and iterations may follow (base/frame.h), which these tests ignore.
        pid = struct.unpack(">I", r.take(4))[0]
        if r.left():
            r.s()
            struct.unpack(">I", r.take(4))
        if r.left():
            raise ValueError("a 'B' frame longer than its fields")
        return pid
    return payload


class Result:
    """What the runner sent, and what became of its container."""

    def __init__(self):
        self.frames = []  # (type, decoded)
        self.rows = []
        self.row_bytes = 0  # payload bytes of the 'D' frames, as the runner counts them
        self.error = None
        self.complete = None
        self.ms = None  # from the job frame to the frame that ended the job (None: none came)
        self.container = None  # {"exit": n, "killed": bool, "ms": n} once it is gone
        self.backend_pid = None

    def __repr__(self):
        return "Result(error=%r, complete=%r, rows=%d, ms=%r, container=%r)" % (
            self.error, self.complete, len(self.rows), self.ms, self.container)


# ---------------------------------------------------------------- relay

def _pg_rewrite(msg, opts):
    """One Postgres frontend message (type byte, length, body) as the relay passes it on."""
    t, body = msg[:1], msg[5:]
    if "read_write" in opts and t in (b"P", b"Q"):
        body = body.replace(b"BEGIN TRANSACTION READ ONLY", b"BEGIN TRANSACTION READ WRITE")
    if "engine_timeout_off" in opts and t == b"Q":
        body = re.sub(rb"set_config\('statement_timeout', '\d+'", b"set_config('statement_timeout', '0'", body)
    if "engine_timeout_off" in opts and t == b"B":
        r = Reader(body)
        portal = body[:body.index(b"\0", 0) + 1]
        r.o = len(portal)
        stmt = body[r.o:body.index(b"\0", r.o) + 1]
        r.o += len(stmt)
        nfmt = r.u16()
        fmts = r.take(2 * nfmt)
        params = []
        for _ in range(r.u16()):
            n = r.i32()
            params.append(None if n < 0 else r.take(n))
        rest = body[r.o:]
        for i in range(len(params) - 1):
            if params[i] == b"statement_timeout":
                params[i + 1] = b"0"
        body = portal + stmt + struct.pack(">H", nfmt) + fmts + struct.pack(">H", len(params))
        for p in params:
            body += struct.pack(">i", -1) if p is None else struct.pack(">i", len(p)) + p
        body += rest
    return t + struct.pack(">I", len(body) + 4) + body


def _my_rewrite(seq, payload, opts):
    """One MariaDB client packet's payload as the relay passes it on (commands only: sequence 0)."""
    if seq != 0 or not payload or payload[0] != 0x03:
        return payload
    if "read_write" in opts:
        payload = payload.replace(b"SET SESSION TRANSACTION READ ONLY", b"SET SESSION TRANSACTION READ WRITE")
        payload = payload.replace(b"@@SESSION.tx_read_only = 1", b"@@SESSION.tx_read_only = 0")
    if "engine_timeout_off" in opts:
        payload = re.sub(rb"max_statement_time = [0-9.]+", b"max_statement_time = 0", payload)
    return payload


def _read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


class Relay:
    """Carries each connection made on the relay socket to addr, changing what opts ask for."""

    def __init__(self, listener, engine, addr, opts, hand=False):
        self.listener, self.engine, self.addr, self.opts = listener, engine, addr, set(opts or ())
        self.hand = hand  # a TLS job's: the connected socket is handed over, as airlockd does
        self.socks = []
        self.connections = 0
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped:
            try:
                c, _ = self.listener.accept()
            except OSError:
                return
            c.setblocking(True)
            try:
                b = socket.create_connection(self.addr, timeout=10)
                b.settimeout(None)
            except OSError:
                c.close()
                continue
            self.connections += 1
            if self.hand:
                try:
                    socket.send_fds(c, [b"F"], [b.fileno()])
                except OSError:
                    pass
                c.close()
                self.socks.append(b)
                continue
            self.socks += [c, b]
            threading.Thread(target=self._client_to_db, args=(c, b), daemon=True).start()
            threading.Thread(target=self._pump, args=(b, c), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                d = src.recv(65536)
                if not d:
                    break
                dst.sendall(d)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _client_to_db(self, c, b):
        if not self.opts:
            return self._pump(c, b)
        try:
            if self.engine == "postgres":
                n = struct.unpack(">I", _read_exact(c, 4))[0]  # the startup or cancel message
                b.sendall(struct.pack(">I", n) + _read_exact(c, n - 4))
                while True:
                    head = _read_exact(c, 5)
                    n = struct.unpack(">I", head[1:])[0]
                    b.sendall(_pg_rewrite(head + _read_exact(c, n - 4), self.opts))
            else:
                while True:
                    head = _read_exact(c, 4)
                    n = head[0] | head[1] << 8 | head[2] << 16
                    payload = _my_rewrite(head[3], _read_exact(c, n), self.opts)
                    b.sendall(struct.pack("<I", len(payload))[:3] + head[3:4] + payload)
        except (OSError, EOFError):
            pass
        for s in (c, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self):
        self.stopped = True
        for s in [self.listener] + self.socks:
            try:
                s.close()
            except OSError:
                pass


# ---------------------------------------------------------------- a job

def _listen(path, uid):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o600)
    os.lchown(path, uid, uid)
    s.listen(8)
    return s


def _read_frame(sock, deadline):
    head = b""
    while len(head) < 5:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(5 - len(head))
        if not chunk:
            raise EOFError
        head += chunk
    n = struct.unpack(">I", head[1:])[0]
    body = b""
    while len(body) < n:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(min(65536, n - len(body)))
        if not chunk:
            raise EOFError
        body += chunk
    return head[:1], body


TLS_ONLY = ("airlock_ro", "airlock_rw")


def run(job, engine="postgres", user="airlock_ro", password=None, dbname="shop", relay=(),
        kill_after_ms=0, wait_s=20, container_wait_s=15, during=None):
    """Runs one job (a dict of the 'J' frame's keys beyond engine, dbname, user and password,
    which this fills in) in a runner container; returns its Result once the runner ended the
    job (or wait_s passed) and its container is gone (or container_wait_s more passed: then it
    is killed and the Result says so). during(result), if given, is called once the job frame
    is sent, while the statement runs."""
    if password is None:
        password = itest.backend_password() if engine == "postgres" else itest.my_backend_password()
    os.makedirs(HARNESS_DIR, mode=0o711, exist_ok=True)
    os.chmod(HARNESS_DIR, 0o711)
    job_dir = os.path.join(HARNESS_DIR, secrets.token_hex(16))
    os.mkdir(job_dir, 0o700)
    os.chmod(job_dir, 0o711)
    ctl = _listen(os.path.join(job_dir, "control.sock"), RUNNER_UID)
    tls = user in TLS_ONLY
    assert not (tls and relay), "the relay cannot change what goes over TLS: log in as another role"
    if tls:
        shutil.copyfile(itest.DB_CA, os.path.join(job_dir, "ca.pem"))
        os.chmod(os.path.join(job_dir, "ca.pem"), 0o644)
    db_sock = ".s.PGSQL.5432" if engine == "postgres" else "mysqld.sock"
    rel = Relay(_listen(os.path.join(job_dir, db_sock), RUNNER_UID), engine,
                PG_ADDR if engine == "postgres" else MY_ADDR, relay, hand=tls)
    launch = subprocess.Popen([LAUNCH_BIN, os.path.join(HARNESS_DIR, ".oci"), rootfs_ref(), job_dir,
                               str(RUNNER_UID), str(kill_after_ms), itest.OCI_RUNTIME],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    res = Result()
    conn = None
    try:
        ctl.settimeout(20)
        try:
            conn, _ = ctl.accept()
        except socket.timeout:
            launch.kill()
            raise AssertionError("the runner never connected: %s" % launch.communicate()[1])
        pairs = [("engine", engine), ("dbname", dbname), ("user", user), ("password", password)]
        if tls:
            pairs += [("tls", "verify-full"), ("tls_host", "127.0.0.1")]
        pairs += [(k, v) for k, v in job.items()]
        conn.sendall(job_frame(pairs))
        t0 = time.monotonic()
        if during:
            threading.Thread(target=during, args=(res,), daemon=True).start()
        deadline = t0 + wait_s
        while True:
            try:
                ftype, payload = _read_frame(conn, deadline)
            except (socket.timeout, EOFError, OSError):
                break
            value = decode(ftype, payload)
            res.frames.append((ftype, value))
            if ftype == b"D":
                res.rows.append(value)
                res.row_bytes += len(payload)
            elif ftype == b"B":
                res.backend_pid = value
            elif ftype in (b"C", b"E"):
                res.ms = (time.monotonic() - t0) * 1000
                if ftype == b"C":
                    res.complete = value
                else:
                    res.error = value
                break
        try:
            out, err = launch.communicate(timeout=container_wait_s)
        except subprocess.TimeoutExpired:
            launch.terminate()
            out, err = launch.communicate(timeout=30)
            res.container = {"left_running": True}
        m = re.search(r"exit=(-?\d+) killed=(\d) ms=(\d+)", out)
        if m and res.container is None:
            res.container = {"exit": int(m.group(1)), "killed": m.group(2) == "1", "ms": int(m.group(3))}
        elif res.container is None:
            res.container = {"launch_failed": err.strip()}
        return res
    finally:
        if launch.poll() is None:
            launch.kill()
            launch.wait()
        if conn:
            conn.close()
        ctl.close()
        rel.stop()
        shutil.rmtree(job_dir, ignore_errors=True)


def pg_job(sql, timeout_ms=5000, max_rows=1000, max_bytes=1000000, **extra):
    """The keys airlockd's Postgres job frame holds beyond the connection (job_frame_job)."""
    job = {"sql": sql, "timeout_ms": timeout_ms, "max_rows": max_rows, "max_bytes": max_bytes}
    job.update(extra)
    return job


def my_job(sql, timeout_ms=5000, max_rows=1000, max_bytes=1000000, **extra):
    """The same for MariaDB: set.sql_mode is required (the mode the validator lexed with)."""
    job = pg_job(sql, timeout_ms, max_rows, max_bytes, **extra)
    job.setdefault("set.sql_mode", "STRICT_TRANS_TABLES")
    job.setdefault("set.names", "utf8mb4")
    return job
