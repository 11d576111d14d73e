"""Governed writes, the person's side: an approver decides a held write
through the approval listener's JSON API (HTTPS with the server's
certificate, HTTP Basic against the approver's verifier). An approved
write is validated again, dry-run again and run once with the write role
only when it still touches the rows the approver saw; a rejected one and
one whose rows changed (drifted) write nothing. The agent reads each
outcome with SHOW airlock.approval.

The suite's config has [approver approver] (password approver-secret).
This module's airlockd is its own: an approval listener, a store of its
own, and writer allowed to write write_probe.items, a table of this
module, so the shared orders stay as they are."""

import base64
import json
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest

import itest
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd, free_port

CA = os.path.join(itest.STATE_DIR, "tls", "ca.crt")
APPROVER, APPROVER_PASSWORD = "approver", "approver-secret"


@pytest.fixture(scope="module", autouse=True)
def probe_table():
    itest.super_query("""
        DROP SCHEMA IF EXISTS write_probe CASCADE;
        CREATE SCHEMA write_probe;
        CREATE TABLE write_probe.items (id int PRIMARY KEY, flag text, n int);
        INSERT INTO write_probe.items SELECT g, 'x', g FROM generate_series(1, 6) g;
        GRANT USAGE ON SCHEMA write_probe TO airlock_ro, airlock_rw;
        GRANT SELECT ON write_probe.items TO airlock_ro;
        GRANT SELECT, INSERT, UPDATE, DELETE ON write_probe.items TO airlock_rw;
    """)
    yield
    itest.super_query("DROP SCHEMA write_probe CASCADE")


def empty_store(name):
    """The path of a store of held writes of name's own, with no file left from an earlier run."""
    store = os.path.join(itest.STATE_DIR, "approvals-%s.db" % name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.unlink(store + suffix)
    return store


def approval_instance(name, uid_base, **writer):
    """A started airlockd of this module's own: an approval listener, a store of its own (emptied first),
    and writer allowed to write write_probe.items, with the writer keys given."""
    store = empty_store(name)
    port = free_port()
    d = PrivateAirlockd(name, {"pool_min": 0, "approval_store": store, "approval_listen": "127.0.0.1:%d" % port},
                        uid_base=uid_base, sections={"user writer": dict({
                            "tables": "public.orders, write_probe.items, pg_catalog.*, information_schema.*",
                            "write_tables": "write_probe.items"}, **writer)})
    d.approval_port = port
    d.store = store
    return d


def started(d):
    d.start()
    assert itest.wait_until(lambda: PrivateAirlockd.accepts(d.approval_port), 10, 0.1)
    return d


@pytest.fixture(scope="module")
def private():
    d = started(approval_instance("approve", 1002700000))
    yield d
    assert d.stop() in (0, -15)


def api(d, method, path, body=None, user=APPROVER, password=APPROVER_PASSWORD, content_type="application/json"):
    """(status, parsed JSON body) of one request to the approval listener."""
    ctx = ssl.create_default_context(cafile=CA)
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request("https://127.0.0.1:%d%s" % (d.approval_port, path), data=data, method=method)
    if user is not None:
        req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode())
    if data is not None and content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null"), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null"), dict(e.headers)


def writer_outcome(d, sql):
    conn = itest.connect(d.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        return itest.pg_outcome(conn, sql, whole=True)
    finally:
        conn.close()


def hold(d, sql):
    got = writer_outcome(d, sql)
    assert got[0] == "error" and got[1] == "55000", got
    return re.search(r"approval (w[a-z2-7]{20})\b", got[2]).group(1)


def shown(d, approval):
    conn = itest.connect(d.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW airlock.approval '%s'" % approval)
            cols = [c.name for c in cur.description]
            return dict(zip(cols, cur.fetchone()))
    finally:
        conn.close()


def settled(d, approval, wait=60):
    """The agent's view once the run is over (no longer approved or running)."""
    got = None
    deadline = time.time() + wait
    while time.time() < deadline:
        got = shown(d, approval)
        if got["status"] not in ("approved", "running"):
            return got
        time.sleep(0.2)
    raise AssertionError("approval %s did not settle: %s" % (approval, got))


def items():
    return itest.super_query("SELECT string_agg(id || ':' || flag || ':' || n, ',' ORDER BY id) FROM write_probe.items")


def test_an_approved_write_runs_once(private):
    before = items()
    approval = hold(private, "UPDATE write_probe.items SET flag = 'approved' WHERE id <= 2")
    assert items() == before
    status, listed, headers = api(private, "GET", "/api/approvals")
    assert status == 200
    mine = [r for r in listed if r["id"] == approval]
    assert mine and mine[0]["user"] == "writer" and mine[0]["rows"] == 2 and mine[0]["status"] == "pending"
    assert mine[0]["statement"] == "UPDATE write_probe.items SET flag = 'approved' WHERE id <= 2"
    assert "write_probe.items" in mine[0]["rewritten"]
    assert headers.get("Content-Security-Policy", "").startswith("default-src 'none'")
    assert headers.get("X-Content-Type-Options") == "nosniff"
    status, record, _ = api(private, "POST", "/api/approvals/%s/approve" % approval, {"reason": "looks right"})
    assert status == 200 and record["decided_by"] == APPROVER, record
    got = settled(private, approval)
    assert got["status"] == "executed" and got["executed_rows"] == "2" and got["decided_by"] == APPROVER, got
    assert items() == before.replace("1:x:1", "1:approved:1").replace("2:x:2", "2:approved:2")
    # Decided once: a second approval, or a rejection, changes nothing.
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
    assert api(private, "POST", "/api/approvals/%s/reject" % approval, {"reason": "late"})[0] == 409
    status, record, _ = api(private, "GET", "/api/approvals/%s" % approval)
    assert status == 200 and record["status"] == "executed" and record["executed_rows"] == 2
    steps = audited(private, approval)
    assert [r["decision"] for r in steps] == ["held", "approved", "running", "executed"], steps
    assert steps[1]["by"] == APPROVER and steps[1]["reason"] == "looks right" and steps[3]["rows"] == 2, steps


def rows_now(where):
    """write_probe.items rows as [id, flag, n] texts, by id."""
    got = itest.super_query("SELECT coalesce(string_agg(id || ',' || flag || ',' || n, ';' ORDER BY id), '') "
                            "FROM write_probe.items WHERE " + where)
    return [r.split(",") for r in got.split(";")] if got else []


def record(d, approval):
    status, rec, _ = api(d, "GET", "/api/approvals/%s" % approval)
    assert status == 200, rec
    return rec


def test_the_approver_sees_what_the_dry_run_changed(private):
    """Each row the write touches, as it was and as it will be, and the plan; the agent's RETURNING
    plays no part, and nothing is written."""
    before = rows_now("id IN (3, 4)")
    approval = hold(private, "UPDATE write_probe.items SET n = n * 10, flag = flag || '!' WHERE id IN (3, 4) "
                             "RETURNING id")
    rec = record(private, approval)
    sample = rec["sample"]
    assert sample["columns"] == ["id", "flag", "n"], sample
    assert sample["truncated"] is False and rec["rows"] == 2
    got = sorted(sample["rows"], key=lambda r: int(r["before"][0]))
    assert [r["before"] for r in got] == before, got
    assert [r["after"] for r in got] == [[i, f + "!", str(int(n) * 10)] for i, f, n in before], got
    assert rec["plan"].startswith("Update on items"), rec["plan"]
    assert rows_now("id IN (3, 4)") == before
    # An INSERT shows only the rows as they will be, a DELETE only as they were.
    approval = hold(private, "INSERT INTO write_probe.items VALUES (900, 'new', 9)")
    rows = record(private, approval)["sample"]["rows"]
    assert rows == [{"before": None, "after": ["900", "new", "9"]}], rows
    approval = hold(private, "DELETE FROM write_probe.items WHERE id = 3")
    rec = record(private, approval)
    assert rec["sample"]["rows"] == [{"before": rows_now("id = 3")[0], "after": None}], rec
    assert "Delete on items" in rec["plan"], rec["plan"]
    assert rows_now("id >= 900") == []


def test_a_large_write_shows_a_bounded_sample(private):
    approval = hold(private, "INSERT INTO write_probe.items SELECT g, 'bulk', g FROM generate_series(1000, 1024) g")
    rec = record(private, approval)
    assert rec["rows"] == 25 and len(rec["sample"]["rows"]) == 20 and rec["sample"]["truncated"] is True, rec
    assert rows_now("id >= 1000") == []


def test_the_run_keeps_the_sessions_settings(private):
    """What runs is what the approver saw: the settings and search_path the agent asked under, and the
    types it bound its values with, are kept with the write and applied again when it runs."""
    itest.super_query("INSERT INTO write_probe.items VALUES (60, 'x', 60)")
    conn = itest.connect(private.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SET search_path TO write_probe")
            cur.execute("SET DateStyle TO 'SQL, DMY'")
        got = itest.pg_outcome(conn, "UPDATE items SET flag = (DATE '2024-01-02')::text WHERE id = 60", whole=True)
    finally:
        conn.close()
    assert got[0] == "error" and got[1] == "55000", got
    approval = re.search(r"approval (w[a-z2-7]{20})\b", got[2]).group(1)
    rec = record(private, approval)
    assert rec["sample"]["rows"][0]["after"][1] == "02/01/2024", rec["sample"]
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {"reason": "ok"})[0] == 200
    got = settled(private, approval)
    assert got["status"] == "executed", got
    assert rows_now("id = 60") == [["60", "02/01/2024", "60"]]
    itest.super_query("DELETE FROM write_probe.items WHERE id = 60")


def test_values_bound_in_binary_are_kept_as_text(private):
    """A driver binding in binary (psycopg 3's %b; many do for numbers): each value of a type airlock
    reads is kept and shown as its text with its type, and runs as such; any other is refused."""
    import datetime
    import decimal

    import psycopg

    itest.super_query("INSERT INTO write_probe.items VALUES (61, 'x', 61)")
    try:
        with psycopg.connect(private.url(user="writer", password="writer-secret"), autocommit=True) as conn:
            with pytest.raises(psycopg.Error) as e:
                conn.execute("UPDATE write_probe.items SET flag = %b::text || ' ' || %b::text, n = %b WHERE id = %b",
                             [decimal.Decimal("1.50"), datetime.date(2024, 1, 2), 7, 61])
            assert e.value.sqlstate == "55000", e.value
            approval = re.search(r"approval (w[a-z2-7]{20})\b", str(e.value)).group(1)
            with pytest.raises(psycopg.Error) as e:
                conn.execute("UPDATE write_probe.items SET n = (%b::int[])[1] WHERE id = 61", [[1, 2]])
            assert e.value.sqlstate == "0A000" and "bind it as text" in str(e.value), e.value
        rec = record(private, approval)
        assert json.loads(rec["params"]) == ["1.50", "2024-01-02", "7", "61"], rec["params"]
        assert rec["sample"]["rows"][0]["after"] == ["61", "1.50 2024-01-02", "7"], rec["sample"]
        assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        assert settled(private, approval)["status"] == "executed"
        assert rows_now("id = 61") == [["61", "1.50 2024-01-02", "7"]]
    finally:
        itest.super_query("DELETE FROM write_probe.items WHERE id = 61")


@pytest.fixture(scope="module")
def ruled():
    """writer sees write_probe.items through a rule: rows with n < 100, flag masked."""
    d = started(approval_instance("approve4", 1003200000, **{
        "filter write_probe.items": "n < 100", "columns write_probe.items": "id, flag, n",
        "mask write_probe.items.flag": "'hidden'"}))
    yield d
    assert d.stop() in (0, -15)


def test_a_ruled_tables_sample_keeps_to_the_rule(ruled):
    """The sample shows the rule's columns, a masked one as (masked), and only rows the filter keeps."""
    itest.super_query("INSERT INTO write_probe.items VALUES (50, 'secret', 5000), (51, 'secret', 51)")
    try:
        approval = hold(ruled, "UPDATE write_probe.items SET n = n + 1 WHERE id IN (50, 51)")
        rec = record(ruled, approval)
        assert rec["rows"] == 1, rec
        assert rec["sample"]["columns"] == ["id", "flag", "n"], rec
        assert rec["sample"]["rows"] == [{"before": ["51", "(masked)", "51"], "after": ["51", "(masked)", "52"]}]
        assert "secret" not in json.dumps(rec)
        assert rows_now("id IN (50, 51)") == [["50", "secret", "5000"], ["51", "secret", "51"]]
    finally:
        itest.super_query("DELETE FROM write_probe.items WHERE id IN (50, 51)")


def audited(d, approval):
    """The audit records of one held write, in order."""
    with open(d.audit_log) as f:
        return [r for r in map(json.loads, filter(str.strip, f)) if r.get("approval") == approval]


def test_a_rejected_write_writes_nothing(private):
    before = items()
    approval = hold(private, "DELETE FROM write_probe.items WHERE id = 6")
    assert api(private, "POST", "/api/approvals/%s/reject" % approval, {})[0] == 400
    status, record, _ = api(private, "POST", "/api/approvals/%s/reject" % approval, {"reason": "not today"})
    assert status == 200 and record["status"] == "rejected"
    got = shown(private, approval)
    assert got["status"] == "rejected" and got["reason"] == "not today" and got["decided_by"] == APPROVER
    assert items() == before


def test_a_write_whose_rows_changed_drifts(private):
    approval = hold(private, "UPDATE write_probe.items SET n = n + 100 WHERE flag = 'x' AND id IN (3, 4)")
    itest.super_query("UPDATE write_probe.items SET flag = 'moved' WHERE id = 4")
    before = items()
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
    got = settled(private, approval)
    assert got["status"] == "drifted" and "1 rows; 2 were approved" in got["reason"], got
    assert items() == before
    assert [r["decision"] for r in audited(private, approval)] == ["held", "approved", "drifted"]


def test_approvers_log_in_with_their_verifier(private):
    assert api(private, "GET", "/api/approvals", password="wrong")[0] == 401
    assert api(private, "GET", "/api/approvals", user="nobody", password="x")[0] == 401
    # An airlock user is no approver.
    assert api(private, "GET", "/api/approvals", user="writer", password="writer-secret")[0] == 401
    assert api(private, "GET", "/api/approvals", user=None)[0] == 401
    status, _, headers = api(private, "GET", "/api/approvals", user=None)
    assert headers.get("WWW-Authenticate", "").startswith("Basic")


def test_a_cross_site_form_post_is_refused(private):
    before = items()
    approval = hold(private, "DELETE FROM write_probe.items WHERE id = 5")
    for ctype in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", None):
        status, _, _ = api(private, "POST", "/api/approvals/%s/approve" % approval, b"reason=x", content_type=ctype)
        assert status == 415, (ctype, status)
    assert shown(private, approval)["status"] == "pending"
    assert items() == before


def test_the_listener_speaks_tls_only(private):
    with socket.create_connection(("127.0.0.1", private.approval_port), timeout=5) as s:
        s.sendall(b"GET /api/approvals HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            data = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = b""
    assert b"HTTP/1.1 200" not in data and b"statement" not in data


def test_unknown_paths_and_ids(private):
    assert api(private, "GET", "/api/approvals/wnotanid")[0] == 404
    assert api(private, "GET", "/api/approvals/waaaaaaaaaaaaaaaaaaaa")[0] == 404
    assert api(private, "GET", "/api/approvals?status=bogus")[0] == 400
    assert api(private, "GET", "/api/nothing")[0] == 404


SECOND, SECOND_PASSWORD = "second", "second-secret"


def make_verifier(password):
    out = subprocess.run([AIRLOCKD_BIN, "--make-verifier"], input=password, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def two():
    """writer's writes need two distinct approvers and expire after 10 s; a second approver, second."""
    d = approval_instance("approve2", 1002800000, approvals="2", approval_ttl="10")
    with open(d.config, "a") as f:
        f.write("\n[approver %s]\nscram = %s\n" % (SECOND, make_verifier(SECOND_PASSWORD)))
    yield started(d)
    assert d.stop() in (0, -15)


def test_two_distinct_approvers(two):
    before = items()
    approval = hold(two, "UPDATE write_probe.items SET n = n + 1000 WHERE id = 6")
    status, record, _ = api(two, "POST", "/api/approvals/%s/approve" % approval, {})
    assert status == 200 and record["status"] == "pending" and record["approved_by"] == APPROVER, record
    # The same approver again is no second approval.
    assert api(two, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
    assert items() == before
    status, record, _ = api(two, "POST", "/api/approvals/%s/approve" % approval, {}, user=SECOND,
                            password=SECOND_PASSWORD)
    assert status == 200 and record["approved_by"] == "%s,%s" % (APPROVER, SECOND), record
    got = settled(two, approval)
    assert got["status"] == "executed" and got["executed_rows"] == "1", got
    assert items() == before.replace("6:x:6", "6:x:1006")


def test_an_undecided_write_expires(two):
    before = items()
    approval = hold(two, "DELETE FROM write_probe.items WHERE id = 3")
    time.sleep(11)
    assert shown(two, approval)["status"] == "expired"
    assert api(two, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
    assert [r["decision"] for r in audited(two, approval)] == ["held", "expired"]
    assert items() == before



@pytest.fixture(scope="module")
def waiting():
    """writer waits up to 20 s for the decision (approval_wait_ms): the drop-in mode for ORMs and tools."""
    d = started(approval_instance("approve3", 1002900000, approval_wait_ms="20000"))
    yield d
    assert d.stop() in (0, -15)


def pending_id(d, statement):
    """The id of the pending write with this statement, once it is held."""
    for _ in range(150):
        status, listed, _ = api(d, "GET", "/api/approvals")
        mine = [r["id"] for r in listed if r["statement"] == statement]
        if mine:
            return mine[0]
        time.sleep(0.2)
    raise AssertionError("never held: " + statement)


def in_thread(fn):
    import threading

    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=run)
    t.start()
    return t, out


def test_the_wait_ends_with_the_real_result(waiting):
    sql = "UPDATE write_probe.items SET flag = 'waited' WHERE id IN (1, 2)"
    conn = itest.connect(waiting.url(user="writer", password="writer-secret"), autocommit=True)
    notices = []

    def run():
        with conn.cursor() as cur:
            cur.execute(sql)
            notices.extend(conn.notices)
            return cur.rowcount, cur.statusmessage

    try:
        t, out = in_thread(run)
        approval = pending_id(waiting, sql)
        assert api(waiting, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        t.join(60)
        assert "error" not in out, out
        assert out["value"] == (2, "UPDATE 2")
        assert any("APPROVAL_REQUIRED" in n and approval in n for n in notices), notices
    finally:
        conn.close()
    assert "1:waited:" in items() and "2:waited:" in items()


def test_the_wait_gives_the_rows_the_write_returned(waiting):
    """RETURNING in the waiting mode: the run's own rows, over the simple protocol (psycopg2) and the
    extended one with a bound value (psycopg 3)."""
    import psycopg

    sql = "UPDATE write_probe.items SET n = n + 7 WHERE id IN (3, 4) RETURNING id, n, flag"
    want = [(int(i), int(n) + 7, f) for i, f, n in rows_now("id IN (3, 4)")]
    conn = itest.connect(waiting.url(user="writer", password="writer-secret"), autocommit=True)

    def run():
        with conn.cursor() as cur:
            cur.execute(sql)
            return sorted(cur.fetchall()), cur.statusmessage, [d.name for d in cur.description]

    try:
        t, out = in_thread(run)
        approval = pending_id(waiting, sql)
        assert api(waiting, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        t.join(60)
        assert "error" not in out, out
        assert out["value"] == (want, "UPDATE 2", ["id", "n", "flag"]), out
    finally:
        conn.close()

    sql3 = "INSERT INTO write_probe.items VALUES ($1, 'returned', 1) RETURNING id, flag"
    conn3 = psycopg.connect(waiting.url(user="writer", password="writer-secret"), autocommit=True)

    def run3():
        cur = conn3.execute("INSERT INTO write_probe.items VALUES (%t, 'returned', 1) RETURNING id, flag", (701,))
        return cur.fetchall(), cur.statusmessage

    try:
        t, out = in_thread(run3)
        approval = pending_id(waiting, sql3)
        assert api(waiting, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        t.join(60)
        assert "error" not in out, out
        assert out["value"] == ([(701, "returned")], "INSERT 0 1"), out
    finally:
        conn3.close()
        itest.super_query("DELETE FROM write_probe.items WHERE id = 701")


def test_a_rejection_ends_the_wait_with_its_reason(waiting):
    sql = "DELETE FROM write_probe.items WHERE id = 2"
    before = items()
    conn = itest.connect(waiting.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        t, out = in_thread(lambda: itest.pg_outcome(conn, sql))
        approval = pending_id(waiting, sql)
        assert api(waiting, "POST", "/api/approvals/%s/reject" % approval, {"reason": "keep row 2"})[0] == 200
        t.join(60)
        got = out["value"]
        assert got[0] == "error" and got[1] == "55000" and "rejected" in got[2] and "keep row 2" in got[2], got
    finally:
        conn.close()
    assert items() == before


def test_a_cancel_ends_the_wait_and_the_write_stays_held(waiting):
    sql = "DELETE FROM write_probe.items WHERE id = 1"
    conn = itest.connect(waiting.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        t, out = in_thread(lambda: itest.pg_outcome(conn, sql))
        approval = pending_id(waiting, sql)
        conn.cancel()
        t.join(30)
        got = out["value"]
        assert got[0] == "error" and got[1] == "57014" and approval in got[2], got
    finally:
        conn.close()
    status, record, _ = api(waiting, "GET", "/api/approvals/%s" % approval)
    assert status == 200 and record["status"] == "pending"


AIRLOCKCTL = os.path.join(os.path.dirname(AIRLOCKD_BIN), "airlockctl")


def ctl(d, *args, password=APPROVER_PASSWORD):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AIRLOCK_APPROVER_PASSWORD": password}
    return subprocess.run([AIRLOCKCTL, "--url", "https://127.0.0.1:%d" % d.approval_port, "--user", APPROVER,
                           "--cacert", CA, *args], capture_output=True, text=True, timeout=60, env=env)


def test_airlockctl(private):
    """The approvers' command: pending --json, approve, reject, with the password from the environment."""
    before = items()
    approve_id = hold(private, "UPDATE write_probe.items SET n = -1 WHERE id = 5")
    reject_id = hold(private, "DELETE FROM write_probe.items WHERE id = 6")
    got = ctl(private, "pending", "--json")
    assert got.returncode == 0, got.stderr
    pending = {r["id"]: r for r in json.loads(got.stdout)}
    assert pending[approve_id]["user"] == "writer" and pending[approve_id]["rows"] == 1
    assert pending[reject_id]["statement"] == "DELETE FROM write_probe.items WHERE id = 6"
    listing = ctl(private, "pending")
    assert listing.returncode == 0 and approve_id in listing.stdout and "write_probe.items" in listing.stdout
    got = ctl(private, "reject", reject_id, "--reason", "row 6 stays")
    assert got.returncode == 0, got.stderr
    got = ctl(private, "approve", approve_id)
    assert got.returncode == 0, got.stderr
    assert settled(private, approve_id)["status"] == "executed"
    assert shown(private, reject_id)["status"] == "rejected"
    assert items() == before.replace("5:x:5", "5:x:-1")
    # Decided already: the server's 409, exit 1; a wrong password: 401, exit 1; a bad id never leaves.
    assert ctl(private, "approve", approve_id).returncode == 1
    refused = ctl(private, "pending", password="hunter2-zzz")
    assert refused.returncode == 1 and "hunter2-zzz" not in refused.stderr + refused.stdout
    assert ctl(private, "approve", "../../etc").returncode == 2
