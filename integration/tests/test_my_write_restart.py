"""Held MySQL writes over time: one nobody decides expires and can no longer
be approved; one held when airlockd stops is still held after it starts
again, and runs once when approved then. The store and the expiry are the
ones Postgres writes use (test_pg_approvals.py, test_pg_writes.py); these
play them through the MySQL listener."""

import time

import pytest

import itest
from private_airlockd import PrivateAirlockd
from test_pg_approvals import api, audited
from test_my_writes import hold, instance, items, probe_table, settled, shown  # noqa: F401 (probe_table: the module's table)


@pytest.fixture(scope="module")
def brief():
    d = instance("mybrief", 1003400000, approval_ttl="10")
    yield d
    assert d.stop() in (0, -15)


def test_an_undecided_write_expires(brief):
    before = items()
    approval = hold(brief, "DELETE FROM write_probe.items WHERE id = 3")
    assert shown(brief, approval)["status"] == "pending"
    time.sleep(11)
    assert shown(brief, approval)["status"] == "expired"
    assert api(brief, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
    assert [r["decision"] for r in audited(brief, approval)] == ["held", "expired"]
    assert items() == before


def test_a_held_write_survives_a_restart_and_runs_once():
    d = instance("myrestart", 1003500000)
    try:
        before = items()
        approval = hold(d, "UPDATE write_probe.items SET flag = CONCAT(flag, 'y') WHERE id = 2")
        assert d.stop() in (0, -15)
        assert items() == before
        d.start()
        assert itest.wait_until(lambda: PrivateAirlockd.accepts(d.approval_port), 10, 0.1)
        got = shown(d, approval)
        assert got["status"] == "pending" and got["rows"] == 1, got
        status, record, _ = api(d, "POST", "/api/approvals/%s/approve" % approval, {})
        assert status == 200, record
        got = settled(d, approval)
        assert got["status"] == "executed" and got["executed_rows"] == 1, got
        assert items() == before.replace("2:x:2", "2:xy:2")
        # Once: approving again is refused, and the flag gained one y only.
        assert api(d, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
        assert items() == before.replace("2:x:2", "2:xy:2")
    finally:
        assert d.stop() in (0, -15)
