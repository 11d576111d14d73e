"""Every statement leaves an audit record; no secret is ever written."""

import os

import psycopg2
import pytest

import itest


def audit_size():
    return os.path.getsize(itest.AUDIT_LOG) if os.path.exists(itest.AUDIT_LOG) else 0


def new_audit_text(start):
    with open(itest.AUDIT_LOG, "rb") as f:
        f.seek(start)
        return f.read().decode(errors="replace")


def test_statements_are_audited(small):
    start = audit_size()
    with small.cursor() as cur:
        cur.execute("SELECT id FROM orders ORDER BY id LIMIT 2")
        with pytest.raises(psycopg2.Error):
            cur.execute("SELECT * FROM staff_salaries")
        with pytest.raises(psycopg2.Error):
            cur.execute("DELETE FROM orders")

    def grown():
        text = new_audit_text(start)
        return text if len([l for l in text.splitlines() if l.strip()]) >= 3 else None

    text = itest.wait_until(grown, 10)
    assert text, "fewer than 3 new audit records: %r" % new_audit_text(start)
    assert "agent_small" in text
    assert itest.backend_password() not in text
    assert "agent-secret" not in text


def test_audit_log_holds_no_password():
    with open(itest.AUDIT_LOG, "rb") as f:
        data = f.read().decode(errors="replace")
    assert itest.backend_password() not in data
