"""The audit log under logrotate: moved away and airlockd sent SIGUSR1, the
log goes on in a new file whose first record links to the moved file's last
one, so `airlockd --verify-audit OLD NEW` checks the chain through both; the
new file alone is refused at its first record, with the hint to name the
older file first. `airlockd --version` and `--help` answer on stdout."""

import os
import signal
import subprocess

import psycopg2

import itest
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd


def records(path):
    with open(path) as f:
        return [line for line in f if line.strip()]


def run_one(d, sql="SELECT 1"):
    conn = psycopg2.connect(d.url(), connect_timeout=10, sslmode="disable")
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
    finally:
        conn.close()


def verify(*paths):
    return subprocess.run([AIRLOCKD_BIN, "--verify-audit", *paths], capture_output=True, text=True, timeout=60)


def test_rotated_log_chains_into_the_new_file():
    d = PrivateAirlockd("rotation", {"pool_min": 0}, uid_base=1004800000)
    d.start()
    rotated = d.audit_log + ".1"
    try:
        run_one(d)
        assert itest.wait_until(lambda: len(records(d.audit_log)) >= 1, 10, 0.1)
        before = len(records(d.audit_log))
        os.rename(d.audit_log, rotated)
        d.signal(signal.SIGUSR1)
        assert itest.wait_until(lambda: os.path.exists(d.audit_log), 10, 0.1), d.log()
        run_one(d, "SELECT 2")
        assert itest.wait_until(lambda: len(records(d.audit_log)) >= 1, 10, 0.1)
        # Nothing more went to the moved file once it was reopened.
        assert len(records(rotated)) == before
        assert "audit log %s opened again" % d.audit_log in d.log()
    finally:
        assert d.stop() in (0, -15)

    both = verify(rotated, d.audit_log)
    assert both.returncode == 0, both.stderr
    assert both.stdout.count("chain intact") == 2, both.stdout

    alone = verify(d.audit_log)
    assert alone.returncode == 1
    assert ":1: broken link" in alone.stderr
    assert "name that file first" in alone.stderr

    # In the wrong order the chain breaks where the files meet.
    swapped = verify(d.audit_log, rotated)
    assert swapped.returncode == 1

    # An edit of the rotated file's last record shows at the new file's first.
    with open(rotated, "rb") as f:
        data = bytearray(f.read())
    at = data.rindex(b'"user":"') + len(b'"user":"')
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    with open(rotated, "wb") as f:
        f.write(bytes(data))
    edited = verify(rotated, d.audit_log)
    assert edited.returncode == 1
    assert d.audit_log in edited.stderr
    os.unlink(rotated)


def test_version_and_help():
    v = subprocess.run([AIRLOCKD_BIN, "--version"], capture_output=True, text=True, timeout=30)
    assert v.returncode == 0
    assert v.stdout.startswith("airlockd ") and "libevent" in v.stdout and "OpenSSL" in v.stdout
    h = subprocess.run([AIRLOCKD_BIN, "--help"], capture_output=True, text=True, timeout=30)
    assert h.returncode == 0
    assert "--verify-audit FILE..." in h.stdout and "--version" in h.stdout
