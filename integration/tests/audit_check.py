"""audit_check: an audit log's hash chain through airlockd --verify-audit:
the live log must verify, and a copy with one byte of a record changed
must be reported at the record after it."""

import hashlib
import json
import re
import subprocess

from private_airlockd import AIRLOCKD_BIN


def complete_lines(path, start=0):
    """The lines of path from byte start up to its last newline (a record being written is left out)."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    return data[:data.rfind(b"\n") + 1].splitlines()


def records(path, start=0):
    """(record, its line's bytes) of each complete line from byte start."""
    return [(json.loads(line), line) for line in complete_lines(path, start) if line.strip()]


def verify(path):
    return subprocess.run([AIRLOCKD_BIN, "--verify-audit", path], capture_output=True, text=True, timeout=60)


def assert_fixed_ms(line):
    """ms is written with at most 3 decimals."""
    m = re.search(rb'"ms":(-?[0-9.eE+-]+)[,}]', line)
    assert m and re.fullmatch(rb"[0-9]+(\.[0-9]{1,3})?", m.group(1)), line


def check_chain(path, tmp_path):
    """The log at path verifies; a copy with one byte of a middle record changed is broken at the next line."""
    lines = complete_lines(path)
    assert len(lines) >= 2, "too few audit records to check a chain: %r" % lines
    out = verify(path)
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"%s: [0-9]+ records?, chain intact\n" % re.escape(path), out.stdout), out.stdout

    i = len(lines) // 2 - 1 if len(lines) > 2 else 0
    at = lines[i].index(b'"ts":"2') + len(b'"ts":"')
    changed = lines[i][:at] + b"1" + lines[i][at + 1:]  # the year's first digit: still a valid record
    copy = str(tmp_path / "audit-tampered.log")
    with open(copy, "wb") as f:
        f.write(b"\n".join(lines[:i] + [changed] + lines[i + 1:]) + b"\n")
    out = verify(copy)
    assert out.returncode == 1, (out.stdout, out.stderr)
    want = "%s:%d: broken link: prev is %s, the previous record hashes to %s\n" % (
        copy, i + 2, json.loads(lines[i + 1])["prev"], hashlib.sha256(changed).hexdigest())
    assert out.stderr == want, out.stderr
