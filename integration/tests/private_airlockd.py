"""private_airlockd: a second airlockd of the tests' own, for the tests that
kill, stop or misconfigure it, or give it another runner image, without
touching the one test.sh started.

It runs the same binary (AIRLOCKD_BIN) with the suite's config
(AIRLOCK_CONFIG), changed in [server] to listen on free loopback ports and
to use a job directory, runner uid range, validator uid and audit log of its own; other
keys of [server], and of any section, can be set per test. Its runner containers carry its own job
directory as their airlock.root label, so its start-up sweep and the
suite's airlockd never touch each other's containers."""

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import time

import psycopg2

import itest
from itest import AGENT_PASSWORD, JOB_DIR, STATE_DIR, wait_until

AIRLOCKD_BIN = os.environ.get("AIRLOCKD_BIN", os.path.join(
    os.environ.get("AIRLOCK_REPO", "."), "build", "airlockd"))
CONFIG = os.environ.get("AIRLOCK_CONFIG", STATE_DIR + "/airlock-test.ini")


_handed_out = set()


def free_port():
    """A loopback port free now, below the kernel's ephemeral range.

    A port the kernel hands out for bind(0) comes from the same range it uses
    for outgoing connections, so a connection made between this pick and the
    daemon's bind could take it. Ports drawn from below that range are taken
    only by an explicit bind; each is handed out once per test process."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    for _ in range(1000):
        port = rng.randrange(10000, max(low, 10001))
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise AssertionError("no free loopback port below %d" % low)


def rewrite(text, sections):
    """text with each key of sections[name] set in section [name] (added at its end where absent),
    or taken out where its value is None."""
    out, section, done = [], None, set()

    def flush():
        for k, v in sections.get(section, {}).items():
            if (section, k) not in done and v is not None:
                out.append("%s = %s" % (k, v))

    for line in text.splitlines():
        m = re.match(r"\s*\[(.+)\]\s*$", line)
        if m:
            flush()
            section = m.group(1).strip()
        elif section in sections and "=" in line and not line.lstrip().startswith(("#", ";")):
            k = line.split("=", 1)[0].strip()
            if k in sections[section]:
                done.add((section, k))
                if sections[section][k] is None:
                    continue
                line = "%s = %s" % (k, sections[section][k])
        out.append(line)
    flush()
    return "\n".join(out) + "\n"


class PrivateAirlockd:
    """One airlockd process; name keeps its files apart (and must be a plain word)."""

    RUNNER_UIDS = 1000  # runner uids from uid_base; the validator's uid comes right after them

    def __init__(self, name, server=None, uid_base=1000200000, sections=None, binary=None):
        self.name = name
        self.uid_base = uid_base
        self.binary = binary or AIRLOCKD_BIN
        self.pg_port = free_port()
        self.my_port = free_port()
        self.job_dir = os.path.join(os.path.dirname(JOB_DIR), "jobs-" + name)
        self.config = os.path.join(STATE_DIR, "airlock-%s.ini" % name)
        self.log_path = os.path.join(STATE_DIR, "airlockd-%s.log" % name)
        self.audit_log = os.path.join(STATE_DIR, "audit-%s.log" % name)
        values = {
            "pg_listen": "127.0.0.1:%d" % self.pg_port,
            "mysql_listen": "127.0.0.1:%d" % self.my_port,
            "job_dir": self.job_dir,
            "runner_uids": "%d-%d" % (uid_base, uid_base + self.RUNNER_UIDS - 1),
            # Its validator workers' uid, next to its runner range: no other airlockd's.
            "validator_uid": uid_base + self.RUNNER_UIDS,
            "audit_log": self.audit_log,
        }
        values.update(server or {})
        self.oci_runtime = values.get("oci_runtime")  # None: the suite's
        # A pool size given is the size: no growth beyond it unless asked.
        if "pool_min" in values and "pool_max" not in values:
            values["pool_max"] = 0
        with open(CONFIG) as f:
            text = rewrite(f.read(), dict(sections or {}, server=values))
        with open(self.config, "w") as f:
            f.write(text)
        os.chmod(self.config, 0o600)
        # Each instance starts with an empty audit log of its own.
        open(self.audit_log, "w").close()
        self.proc = None
        self.prefix = []  # e.g. a Netns's command: the process started through it

    def start(self, wait=True):
        log = open(self.log_path, "ab")
        if not hasattr(self, "log_start"):
            self.log_start = log.tell()  # log() reads this instance's lines, never an earlier run's
        self.run_start = log.tell()  # ready() reads this start's lines only
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1")
        self.proc = subprocess.Popen(self.prefix + [self.binary, "-c", self.config], stdout=log, stderr=log,
                                     stdin=subprocess.DEVNULL, env=env)
        log.close()
        if wait and not wait_until(self.ready, 30, 0.1):
            raise AssertionError("private airlockd %s does not accept:\n%s" % (self.name, self.log()))
        return self

    def ready(self):
        """Both listeners up. Started through a prefix (a namespace), its ports are a forwarder's,
        which accepts before the process does: its log's line for the MySQL listener, bound
        last, says it instead."""
        if self.prefix:
            return "listening for MySQL clients" in self.log(since=self.run_start)
        return self.accepts(self.pg_port) and self.accepts(self.my_port)

    @staticmethod
    def accepts(port):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def url(self, user="agent", password=AGENT_PASSWORD, database="shop"):
        return "postgresql://%s:%s@127.0.0.1:%d/%s" % (user, password, self.pg_port, database)

    def connect(self, **kw):
        kw.setdefault("connect_timeout", 10)
        conn = psycopg2.connect(self.url(), **kw)
        conn.autocommit = True
        return conn

    def log(self, since=None):
        """The log from since (a file offset), by default from log_start (or the beginning)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(getattr(self, "log_start", 0) if since is None else since)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=20):
        """SIGTERM, then the exit status (SIGKILL after timeout s, and an AssertionError).
        Its job directory goes too once empty."""
        if not self.alive():
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("private airlockd %s ignored SIGTERM for %d s" % (self.name, timeout))
        if not self.containers():
            shutil.rmtree(os.path.join(self.job_dir, itest.OCI_STATE), ignore_errors=True)
        try:
            os.unlink(os.path.join(self.job_dir, itest.LOCK_FILE))
        except OSError:
            pass
        try:
            os.rmdir(self.job_dir)
        except OSError:
            pass
        return status

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def containers(self):
        """Ids of the runner containers that carry this airlockd's job directory."""
        return itest.runner_containers(self.job_dir, runtime=self.oci_runtime)

    def job_dirs(self):
        return itest.job_dir_entries(self.job_dir)

    def runner_pids(self):
        """The processes running as one of this airlockd's runner uids."""
        pids = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/status" % pid) as f:
                    uid = int(next(ln for ln in f if ln.startswith("Uid:")).split()[1])
            except (OSError, StopIteration, ValueError):
                continue
            if self.uid_base <= uid < self.uid_base + self.RUNNER_UIDS:
                pids.append(int(pid))
        return pids

    def backend_sockets(self, port, runners=False):
        """Established TCP connections to 127.0.0.1:port this airlockd holds (and, with runners,
        its runners: a socket it handed one)."""
        out = subprocess.run(["ss", "-Htnp", "state", "established", "dst", "127.0.0.1:%d" % port],
                             capture_output=True, text=True, check=True).stdout
        holders = [self.pid] + (self.runner_pids() if runners else [])
        return [ln for ln in out.splitlines() if any("pid=%d," % p in ln for p in holders)]

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def rss_kb(self):
        with open("/proc/%d/status" % self.pid) as f:
            return int(next(ln for ln in f if ln.startswith("VmRSS:")).split()[1])

    def wait_exit(self, secs):
        """The exit status once the process ended within secs, else None."""
        try:
            return self.proc.wait(secs)
        except subprocess.TimeoutExpired:
            return None

    def clean(self, secs=30):
        """True once no container and no job directory of this airlockd is left."""
        return wait_until(lambda: not self.containers() and not self.job_dirs(), secs, 0.2)
