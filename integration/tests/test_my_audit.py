"""MySQL statements leave audit records with a fingerprint and where they
came from; no value or secret is written; the log's hash chain verifies
and shows an edit."""

import ipaddress
import json
import os

import pymysql
import pytest

import audit_check
import itest


def audit_size():
    return os.path.getsize(itest.AUDIT_LOG) if os.path.exists(itest.AUDIT_LOG) else 0


def new_records(start):
    with open(itest.AUDIT_LOG, "rb") as f:
        f.seek(start)
        text = f.read().decode(errors="replace")
    return [json.loads(l) for l in text.splitlines() if l.strip()], text


def test_statements_are_audited_without_values():
    start = audit_size()
    conn = itest.my_connect(user="agent_small")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders WHERE note = 'needle-4711' LIMIT 2")
            cur.execute("SELECT id FROM orders WHERE note = 'other-value' LIMIT 2")
            with pytest.raises(pymysql.err.MySQLError):
                cur.execute("SELECT * FROM staff_salaries")
            with pytest.raises(pymysql.err.MySQLError):
                cur.execute("DELETE FROM orders")
    finally:
        conn.close()

    def grown():
        recs, _ = new_records(start)
        mine = [r for r in recs if r.get("user") == "agent_small"]
        return mine if len(mine) >= 4 else None

    mine = itest.wait_until(grown, 10)
    _, text = new_records(start)
    assert mine, "fewer than 4 new audit records: %r" % text
    decisions = [r["decision"] for r in mine[-4:]]
    assert decisions[:2] == ["run", "run"], mine
    assert decisions[2:] == ["refused", "refused"], mine
    # The same statement with another constant shares its fingerprint; the value is not logged.
    assert mine[-4]["fingerprint"] == mine[-3]["fingerprint"], mine
    assert mine[-4]["fingerprint"] != mine[-2]["fingerprint"], mine
    assert "needle-4711" not in text
    assert itest.my_backend_password() not in text
    assert "agent-secret" not in text


def test_records_name_their_origin_and_the_chain_holds(tmp_path):
    start = audit_size()
    conn = itest.my_connect(user="agent_small", program_name="audit-probe")
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
    assert hits, "no record with application_name audit-probe: %r" % new_records(start)[1]
    rec, line = hits[-1]
    assert rec["user"] == "agent_small" and rec["decision"] == "run", rec
    assert rec["protocol"] == "mysql", rec
    ipaddress.ip_address(rec["client"])
    assert len(rec["prev"]) == 64, rec
    audit_check.assert_fixed_ms(line)
    audit_check.check_chain(itest.AUDIT_LOG, tmp_path)
