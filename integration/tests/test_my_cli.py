"""The mysql CLI (MariaDB's, as Debian ships it) through airlock prints
exactly what it prints against MariaDB directly: batch, table, vertical and
XML output, `use`, the interactive start (which reads table information
with COM_FIELD_LIST) and `\\s`."""

import os
import pty
import re
import select
import signal
import time

import pytest

import itest
from itest import MY_QUERIES

FORMATS = [[], ["-t"], ["-E"], ["-N"], ["--xml"], ["--default-character-set=utf8mb4"]]


@pytest.mark.parametrize("sql", MY_QUERIES)
def test_cli_output_matches_direct(sql):
    for extra in FORMATS:
        via = itest.mysql_cli(sql, extra=extra)
        ref = itest.mysql_cli(sql, extra=extra, direct=True)
        assert ref.returncode == 0, ref.stderr
        assert via.returncode == 0, (extra, via.stderr)
        assert via.stdout == ref.stdout, extra
        assert via.stderr == ref.stderr, extra


def test_cli_exact_values():
    sql = "SELECT id, amount FROM orders ORDER BY id LIMIT 3"
    r = itest.mysql_cli(sql)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "id\tamount\n1\t0.37\n2\t0.74\n3\t1.11\n"
    assert r.stderr == ""
    r = itest.mysql_cli(sql, extra=["-t"])
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("+----+--------+\n"
                        "| id | amount |\n"
                        "+----+--------+\n"
                        "|  1 |   0.37 |\n"
                        "|  2 |   0.74 |\n"
                        "|  3 |   1.11 |\n"
                        "+----+--------+\n")


def test_cli_show_tables():
    r = itest.mysql_cli("show tables")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Tables_in_shop", r.stdout
    for table in ("customers", "orders", "products"):
        assert table in lines[1:], r.stdout
    assert r.stderr == ""


def test_cli_use_from_script():
    """`use shop` in a script: COM_INIT_DB, then SELECT DATABASE()."""
    script = "use shop\nSELECT DATABASE();\nSELECT COUNT(*) FROM customers;\n"
    via = itest.mysql_cli(database=None, stdin=script)
    ref = itest.mysql_cli(database=None, stdin=script, direct=True)
    assert ref.returncode == 0, ref.stderr
    assert via.returncode == 0, via.stderr
    assert via.stdout == "DATABASE()\nshop\nCOUNT(*)\n1000\n"
    assert via.stdout == ref.stdout


def test_cli_error_has_errno_and_code():
    r = itest.mysql_cli("SELECT * FROM staff_salaries")
    assert r.returncode != 0
    assert r.stdout == ""
    m = re.search(r"^ERROR (\d+) \((\w{5})\) at line 1: (.*)$", r.stderr, re.M)
    assert m, r.stderr
    assert m.group(1) == "1142", r.stderr
    assert "staff_salaries" in m.group(3)
    assert itest.airlock_code(m.group(3)) == "TABLE_NOT_ALLOWED", r.stderr
    assert "airlock_ro" not in r.stderr


@pytest.mark.parametrize("sql", [
    "SELECT nonexistent_column FROM orders",
    "SELECT id FROM orders WHERE",
    "SELECT id FROM orders WHERE id = (SELECT id FROM orders)",
    "SELECT COUNT(*) FROM orders GROUP BY nope",
])
def test_cli_backend_errors_match_direct(sql):
    """Errors from MariaDB itself come back with their errno, SQLSTATE and
    message."""
    via = itest.mysql_cli(sql)
    ref = itest.mysql_cli(sql, direct=True)
    assert ref.returncode != 0
    assert via.returncode == ref.returncode
    assert via.stderr == ref.stderr


def test_cli_backend_error_does_not_name_the_backend_account():
    """MariaDB names the account in some errors; airlock never shows it."""
    r = itest.mysql_cli("SELECT no_such_function(1)")
    assert r.returncode != 0
    assert re.search(r"^ERROR \d+ \(\w{5}\)", r.stderr, re.M), r.stderr
    assert "airlock_ro" not in r.stderr


def test_cli_wrong_password():
    r = itest.mysql_cli("SELECT 1", password="wrong-secret")
    assert r.returncode != 0
    assert re.search(r"^ERROR 1045 \(28000\): Access denied for user 'agent'@", r.stderr, re.M), r.stderr


class Interactive:
    """The mysql CLI on a pseudo-terminal, so it starts as a person's would:
    no -A, so it reads table information for completion (show databases,
    show tables, COM_FIELD_LIST per table) and asks for
    @@version_comment."""

    def __init__(self, args, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execvpe(args[0], args, dict(env, TERM="dumb", MYSQL_HISTFILE="/dev/null"))
            finally:
                os._exit(127)
        self.out = b""

    def read_until(self, pattern, secs=30):
        deadline = time.monotonic() + secs
        while not re.search(pattern, self.out):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no %r within %d s; got:\n%s" %
                                     (pattern, secs, self.out.decode(errors="replace")))
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError("the CLI exited; got:\n" + self.out.decode(errors="replace"))
            self.out += chunk

    def send(self, line):
        os.write(self.fd, line.encode() + b"\n")

    def wait(self, secs=15):
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.drain()
                return os.waitstatus_to_exitcode(status)
            try:
                r, _, _ = select.select([self.fd], [], [], 0.2)
                if r:
                    self.out += os.read(self.fd, 4096)
            except OSError:
                pass
        self.kill()
        raise AssertionError("the CLI did not exit; got:\n" + self.out.decode(errors="replace"))

    def drain(self):
        """Reads what the CLI wrote before it exited and is still in the pty."""
        while True:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.5)
                chunk = os.read(self.fd, 4096) if r else b""
            except OSError:
                return  # EIO: the pty is empty and its other end closed
            if not chunk:
                return
            self.out += chunk

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def close(self):
        self.kill()
        try:
            os.close(self.fd)
        except OSError:
            pass


PROMPT = rb"\[shop\]> $"


@pytest.fixture
def interactive():
    args, env = itest.mysql_args()
    cli = Interactive(args, env)
    yield cli
    cli.close()


def test_cli_interactive_start_and_query(interactive):
    cli = interactive
    cli.read_until(PROMPT)
    banner = cli.out.decode(errors="replace")
    assert "Server version: 8.0." in banner, banner
    assert "ERROR" not in banner, banner
    cli.send("SELECT COUNT(*) FROM orders;")
    cli.read_until(rb"(?s)1 row in set.*" + PROMPT)
    out = cli.out.decode(errors="replace")
    assert re.search(r"\|\s+200000 \|", out), out
    cli.send("quit")
    assert cli.wait() == 0
    assert "Bye" in cli.out.decode(errors="replace")


def test_cli_interactive_status(interactive):
    """`\\s` asks for DATABASE(), USER(), the character set variables and
    COM_STATISTICS."""
    cli = interactive
    cli.read_until(PROMPT)
    start = len(cli.out)
    cli.send("\\s")
    cli.read_until(rb"(?s)\n--------------\r?\n\r?\n.*" + PROMPT)
    status = cli.out[start:].decode(errors="replace")
    assert re.search(r"Current database:\s+shop\r?\n", status), status
    assert re.search(r"Current user:\s+agent@", status), status
    assert re.search(r"Server version:\s+8\.0\.", status), status
    assert re.search(r"TCP port:\s+%d\r?\n" % itest.MY_PORT, status), status
    assert "ERROR" not in status, status
    assert "airlock_ro" not in status, status
    cli.send("quit")
    assert cli.wait() == 0
