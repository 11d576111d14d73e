"""A crashed airlockd leaves job directories behind; the next start removes
them all: a MariaDB job's (its relay socket is mysqld.sock), a Postgres
job's (.s.PGSQL.5432), and whatever the runner uid could have put in one
(symlinks out of job_dir, a FIFO, nested directories), without following a
symlink or touching anything outside job_dir. Runs a second airlockd of
the same binary with its own job_dir and ports, so the suite's airlockd is
not disturbed."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile

import pytest

import itest
from private_airlockd import free_port

RUNNER_UID = 65534
FAKE_ID = "0123456789abcdef0123456789abcdef"




def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def containers(job_dir):
    return itest.runner_containers(job_dir)


def job_dirs(job_dir, sock):
    """The job directories under job_dir that hold the relay socket sock."""
    return [d for d in os.listdir(job_dir) if d != itest.OCI_STATE and os.path.exists(os.path.join(job_dir, d, sock))]


class Instance:
    """A second airlockd: the suite's config with its own ports, job_dir,
    audit log and pool size."""

    def __init__(self, scratch, job_dir, pool_size):
        with open(os.environ["AIRLOCK_CONFIG"]) as f:
            text = f.read()
        self.pg_port, self.my_port = free_port(), free_port()
        for key, value in (("pg_listen", "127.0.0.1:%d" % self.pg_port),
                           ("mysql_listen", "127.0.0.1:%d" % self.my_port),
                           ("job_dir", job_dir), ("pool_min", str(pool_size)), ("pool_max", "0"),
                           # The suite's airlockd runs its runners as the suite's range.
                           ("runner_uids", "1100000000-1100065535"),
                           ("audit_log", os.path.join(scratch, "audit.log"))):
            text, n = re.subn(r"^%s = .*$" % key, "%s = %s" % (key, value), text, count=1, flags=re.M)
            assert n == 1, key
        # Its validator workers' uid: not the suite's airlockd's (whose config may name one).
        text = re.sub(r"(?m)^validator_uid = .*\n", "", text)
        text, n = re.subn(r"^\[server\]$", "[server]\nvalidator_uid = 1100066000", text, count=1, flags=re.M)
        assert n == 1
        self.config = os.path.join(scratch, "airlock-sweep-%d.ini" % pool_size)
        fd = os.open(self.config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.log = os.path.join(scratch, "airlockd-%d.log" % pool_size)
        self.proc = None

    def start(self, binary):
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([binary, "-c", self.config], stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        up = itest.wait_until(lambda: self.proc.poll() is not None or
                              (port_open(self.pg_port) and port_open(self.my_port)), 30, step=0.2)
        assert up and self.proc.poll() is None, self.log_text()

    def log_text(self):
        with open(self.log) as f:
            return f.read()

    def stop(self, sig):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None


def plant_hostile(job_dir, mariadb_dir, outside):
    """What a process running as the runner uid could leave in the job
    directories it owns (it cannot write job_dir itself)."""
    secret = os.path.join(outside, "secret")

    def own(path):
        os.lchown(path, RUNNER_UID, RUNNER_UID)

    d = os.path.join(job_dir, mariadb_dir)
    os.symlink(secret, os.path.join(d, "to-secret"))
    own(os.path.join(d, "to-secret"))
    os.symlink(outside, os.path.join(d, "to-outside"))
    own(os.path.join(d, "to-outside"))
    os.symlink("../..", os.path.join(d, "up"))
    own(os.path.join(d, "up"))
    os.mkfifo(os.path.join(d, "fifo"))
    own(os.path.join(d, "fifo"))
    os.makedirs(os.path.join(d, "nested", "deeper"))
    own(os.path.join(d, "nested"))
    own(os.path.join(d, "nested", "deeper"))
    with open(os.path.join(d, "nested", "deeper", "file"), "w") as f:
        f.write("x")
    os.symlink(outside, os.path.join(d, "nested", "deeper", "out"))
    # A job directory whose sockets were swapped for symlinks out of job_dir.
    fake = os.path.join(job_dir, FAKE_ID)
    os.mkdir(fake, 0o700)
    own(fake)
    os.symlink(secret, os.path.join(fake, "control.sock"))
    os.symlink(outside, os.path.join(fake, "mysqld.sock"))
    with open(os.path.join(fake, ".s.PGSQL.5432"), "w") as f:
        f.write("not a socket")


@pytest.fixture
def scratch():
    if "AIRLOCKD_PID" not in os.environ or "AIRLOCK_CONFIG" not in os.environ:
        pytest.skip("needs the airlockd that test.sh started")
    parent = os.path.dirname(itest.JOB_DIR.rstrip("/"))
    job_dir = tempfile.mkdtemp(prefix="sweep-test-", dir=parent)
    os.chmod(job_dir, 0o711)  # as airlockd makes it: runners (and a user namespace's root) search it
    scratch = tempfile.mkdtemp(prefix="airlock-sweep-")
    instances = []
    yield job_dir, scratch, instances
    for inst in instances:
        inst.stop(signal.SIGKILL)
    itest.remove_containers(containers(job_dir), job_dir)
    shutil.rmtree(job_dir, ignore_errors=True)
    shutil.rmtree(scratch, ignore_errors=True)


def test_restart_sweeps_mariadb_and_postgres_job_dirs(scratch):
    job_dir, scratch_dir, instances = scratch
    binary = os.readlink("/proc/%s/exe" % os.environ["AIRLOCKD_PID"])
    outside = os.path.join(scratch_dir, "outside")
    os.mkdir(outside)
    with open(os.path.join(outside, "secret"), "w") as f:
        f.write("keep me")
    os.mkdir(os.path.join(job_dir, "not-a-job"))

    # A keeps one warm runner per target: a MariaDB job and a Postgres job.
    a = Instance(scratch_dir, job_dir, pool_size=1)
    instances.append(a)
    a.start(binary)
    assert itest.wait_until(lambda: job_dirs(job_dir, "mysqld.sock") and
                            job_dirs(job_dir, ".s.PGSQL.5432") and
                            len(containers(job_dir)) >= 2, 30), \
        (os.listdir(job_dir), a.log_text())
    my_dirs = job_dirs(job_dir, "mysqld.sock")
    pg_dirs = job_dirs(job_dir, ".s.PGSQL.5432")
    assert set(my_dirs).isdisjoint(pg_dirs)

    # The crash: nothing is cleaned up.
    assert a.stop(signal.SIGKILL) == -signal.SIGKILL
    for d in my_dirs + pg_dirs:
        assert os.path.isdir(os.path.join(job_dir, d)), d
    plant_hostile(job_dir, my_dirs[0], outside)
    left = sorted(my_dirs + pg_dirs + [FAKE_ID])

    # B starts on the same job_dir (no warm pool, so nothing new appears).
    b = Instance(scratch_dir, job_dir, pool_size=0)
    instances.append(b)
    b.start(binary)
    assert sorted(itest.job_dir_entries(job_dir)) == ["not-a-job"], (left, os.listdir(job_dir))
    m = re.search(r"removed (\d+) job directories left from an earlier run", b.log_text())
    assert m and int(m.group(1)) == len(left), b.log_text()
    assert itest.wait_until(lambda: not containers(job_dir), 20), containers(job_dir)
    # Nothing outside job_dir was followed into.
    with open(os.path.join(outside, "secret")) as f:
        assert f.read() == "keep me"
    assert os.listdir(outside) == ["secret"]
    assert os.path.isdir(os.path.join(job_dir, "not-a-job"))

    assert b.stop(signal.SIGTERM) in (0, -signal.SIGTERM), b.log_text()
    assert itest.job_dir_entries(job_dir) == ["not-a-job"]
