"""Every statement leaves an audit record naming where it came from; no
secret is ever written; the log's hash chain verifies and shows an edit."""

import ipaddress
import os

import psycopg2
import pytest

import audit_check
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


def test_records_name_their_origin_and_the_chain_holds(tmp_path):
    start = audit_size()
    conn = itest.connect(itest.SMALL_URL, autocommit=True, application_name="audit-probe")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 1")
    finally:
        conn.close()

    def mine():
        hits = [(r, l) for r, l in audit_check.records(itest.AUDIT_LOG, start)
                if r.get("application_name") == "audit-probe"]
        return hits or None

    hits = itest.wait_until(mine, 10)
    assert hits, "no record with application_name audit-probe: %r" % new_audit_text(start)
    rec, line = hits[-1]
    assert rec["user"] == "agent_small" and rec["decision"] == "run", rec
    assert rec["protocol"] == "pg", rec
    ipaddress.ip_address(rec["client"])
    assert len(rec["prev"]) == 64, rec
    audit_check.assert_fixed_ms(line)
    audit_check.check_chain(itest.AUDIT_LOG, tmp_path)
