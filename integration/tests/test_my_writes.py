"""Governed writes over MySQL, end to end with the real clients: a write of
writer (writes = approve) is checked, dry-run on its mysql_write_target
(the MariaDB account airlock_rw, which may write write_probe.items and
nothing else) and held; the agent gets APPROVAL_REQUIRED naming the
approval and reads the outcome with SHOW AIRLOCK APPROVAL; an approver
decides through the approval listener's JSON API. An approved write is
checked and dry-run again under the settings it was asked under and runs
once; a rejected or drifted one writes nothing; one past max_write_rows,
outside the write tables or past the row filter is refused at once.

This module's airlockd is its own (an approval listener, a store of its
own) and writes a MariaDB database of its own, write_probe."""

import base64
import json
import os
import re
import ssl
import subprocess
import time
import urllib.request

import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port
from test_pg_approvals import APPROVER, APPROVER_PASSWORD, CA, api, audited, in_thread, pending_id

HOSTS = ("'airlock_ro'@'127.0.0.1'", "'airlock_ro'@'localhost'", "'airlock_rw'@'127.0.0.1'",
         "'airlock_rw'@'localhost'")


@pytest.fixture(scope="module", autouse=True)
def probe_table():
    grants = "".join("GRANT SELECT ON write_probe.items TO %s;" % h for h in HOSTS)
    grants += "".join("GRANT INSERT, UPDATE, DELETE ON write_probe.items TO %s;" % h for h in HOSTS[2:])
    itest.my_super_query("DROP DATABASE IF EXISTS write_probe; CREATE DATABASE write_probe;"
                         "CREATE TABLE write_probe.items (id INT PRIMARY KEY, flag VARCHAR(20), n INT);"
                         "INSERT INTO write_probe.items VALUES (1, 'x', 1), (2, 'x', 2), (3, 'x', 3), (4, 'x', 4), (5, 'x', 5),"
                         " (6, 'x', 6);" + grants)
    yield
    itest.my_super_query("DROP DATABASE write_probe")


def instance(name, uid_base, **writer):
    """A started airlockd of this module's own: an approval listener, a store of its own (emptied first), and
    writer allowed to write write_probe.items through a row filter, with the writer keys given."""
    store = itest.STATE_DIR + "/approvals-%s.db" % name
    port = free_port()
    d = PrivateAirlockd(name, {"pool_min": 0, "approval_store": store, "approval_listen": "127.0.0.1:%d" % port},
                        uid_base=uid_base, sections={"user writer": dict({
                            "mysql_tables": "shop.orders, write_probe.items, information_schema.*",
                            "mysql_write_tables": "write_probe.items",
                            "mysql_filter write_probe.items": "n <= 100",
                            "max_write_rows": "5"}, **writer)})
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(store + suffix)
        except FileNotFoundError:
            pass
    d.approval_port = port
    d.start()
    assert itest.wait_until(lambda: PrivateAirlockd.accepts(port), 10, 0.1)
    return d


@pytest.fixture(scope="module")
def private():
    d = instance("mywrites", 1003100000)
    yield d
    assert d.stop() in (0, -15)


@pytest.fixture(scope="module")
def wide():
    d = instance("mywide", 1003300000, max_write_rows="50")
    yield d
    assert d.stop() in (0, -15)


@pytest.fixture(scope="module")
def waiting():
    d = instance("mywait", 1003200000, approval_wait_ms="60000")
    yield d
    assert d.stop() in (0, -15)


def writer(d, **kw):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="writer", password="writer-secret",
                           database="write_probe", connect_timeout=10, read_timeout=60, **kw)


def outcome(conn, sql):
    """('ok', rowcount) or ('error', errno, message) of sql on conn."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("ok", cur.rowcount)
    except pymysql.MySQLError as e:
        return ("error", e.args[0], e.args[1])


def hold(d, sql, setup=()):
    conn = writer(d, autocommit=True)
    try:
        for s in setup:
            assert outcome(conn, s)[0] == "ok", s
        got = outcome(conn, sql)
    finally:
        conn.close()
    assert got[0] == "error" and got[1] == 1105 and got[2].startswith("APPROVAL_REQUIRED"), got
    return re.search(r"approval (w[a-z2-7]{20})\b", got[2]).group(1)


def shown(d, approval):
    conn = writer(d)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW AIRLOCK APPROVAL '%s'" % approval)
            cols = [c[0] for c in cur.description]
            return dict(zip(cols, cur.fetchone()))
    finally:
        conn.close()


def settled(d, approval, wait=60):
    got = None
    deadline = time.time() + wait
    while time.time() < deadline:
        got = shown(d, approval)
        if got["status"] not in ("approved", "running"):
            return got
        time.sleep(0.2)
    raise AssertionError("approval %s did not settle: %s" % (approval, got))


def items():
    return itest.my_super_query("SELECT GROUP_CONCAT(CONCAT_WS(':', id, flag, n) ORDER BY id) FROM write_probe.items")


@pytest.mark.parametrize("sql,rows", [
    ("UPDATE items SET flag = 'held' WHERE id <= 2", 2),
    ("update write_probe.items set flag = 'same' where id = 1", 1),
    ("DELETE FROM items WHERE id IN (5, 6)", 2),
    ("DELETE FROM items WHERE id = 99", 0),
    ("INSERT INTO items (id, flag, n) VALUES (50, 'new', 7), (51, 'new', 8)", 2),
    ("INSERT INTO items SET id = 52, flag = 'set', n = 1", 1),
    ("UPDATE items SET flag = 'sub' WHERE id IN (SELECT id FROM (SELECT 3 AS id) t)", 1),
])
def test_a_write_is_held_and_nothing_is_written(private, sql, rows):
    before = items()
    approval = hold(private, sql)
    assert items() == before
    got = shown(private, approval)
    assert got["status"] == "pending" and got["rows"] == rows and got["executed_rows"] is None, got


def test_an_approved_write_runs_once_and_the_cli_reads_it(private):
    before = items()
    approval = hold(private, "UPDATE items SET flag = 'approved' WHERE id <= 2")
    status, listed, _ = api(private, "GET", "/api/approvals")
    mine = [r for r in listed if r["id"] == approval]
    assert status == 200 and mine and mine[0]["rows"] == 2 and mine[0]["protocol"] == "mysql", mine
    assert "`write_probe`.`items`" in mine[0]["rewritten"] and "(n <= 100)" in mine[0]["rewritten"], mine
    # The approver reads the write's plan (MariaDB's EXPLAIN of what will run).
    status, rec, _ = api(private, "GET", "/api/approvals/%s" % approval)
    assert status == 200 and "select_type=SIMPLE" in rec["plan"] and "table=items" in rec["plan"], rec["plan"]
    status, record, _ = api(private, "POST", "/api/approvals/%s/approve" % approval, {"reason": "fine"})
    assert status == 200, record
    got = settled(private, approval)
    assert got["status"] == "executed" and got["executed_rows"] == 2 and got["decided_by"] == APPROVER, got
    assert items() == before.replace("1:x:1", "1:approved:1").replace("2:x:2", "2:approved:2")
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 409
    steps = audited(private, approval)
    assert [r["decision"] for r in steps] == ["held", "approved", "running", "executed"], steps
    # The mysql CLI reads the same outcome.
    args = ["mysql", "--no-defaults", "-h", "127.0.0.1", "-P", str(private.my_port), "-u", "writer",
            "-pwriter-secret", "-N", "-B", "write_probe", "-e", "SHOW AIRLOCK APPROVAL '%s'" % approval]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60, env=itest.my_env())
    assert r.returncode == 0 and r.stdout.split("\t")[:4] == [approval, "executed", "2", "2"], r


def test_the_cli_gets_the_held_error(private):
    args = ["mysql", "--no-defaults", "-h", "127.0.0.1", "-P", str(private.my_port), "-u", "writer",
            "-pwriter-secret", "write_probe", "-e", "DELETE FROM items WHERE id = 4"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60, env=itest.my_env())
    assert r.returncode == 1 and "ERROR 1105 (HY000)" in r.stderr and "APPROVAL_REQUIRED" in r.stderr, r
    assert "SHOW AIRLOCK APPROVAL" in r.stderr, r
    assert "4:x:4" in items()


def test_a_rejected_write_writes_nothing(private):
    before = items()
    approval = hold(private, "DELETE FROM items WHERE id = 6")
    status, record, _ = api(private, "POST", "/api/approvals/%s/reject" % approval, {"reason": "not today"})
    assert status == 200 and record["status"] == "rejected"
    got = shown(private, approval)
    assert got["status"] == "rejected" and got["reason"] == "not today", got
    assert items() == before


def test_a_write_whose_rows_changed_drifts(private):
    itest.my_super_query("UPDATE write_probe.items SET flag = 'd' WHERE id IN (3, 4)")
    approval = hold(private, "UPDATE items SET flag = 'e' WHERE flag = 'd'")
    assert shown(private, approval)["rows"] == 2
    itest.my_super_query("UPDATE write_probe.items SET flag = 'd' WHERE id = 5")
    before = items()
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
    got = settled(private, approval)
    assert got["status"] == "drifted" and "3 rows" in got["reason"], got
    assert items() == before


def test_the_run_keeps_the_sessions_sql_mode(private):
    """Under ANSI_QUOTES "id" is the column; read as a string the run would match no row and drift."""
    approval = hold(private, 'UPDATE items SET flag = \'ansi\' WHERE "id" = 1',
                    setup=("SET sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')",))
    assert shown(private, approval)["rows"] == 1
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
    got = settled(private, approval)
    assert got["status"] == "executed" and got["executed_rows"] == 1, got
    assert "1:ansi:1" in items()


def test_past_max_write_rows_it_is_refused_at_once(private):
    conn = writer(private, autocommit=True)
    try:
        got = outcome(conn, "UPDATE items SET flag = 'many'")
    finally:
        conn.close()
    assert got[0] == "error" and got[1] == 1105 and got[2].startswith("WRITE_ROWS"), got
    assert "many" not in items()


def test_the_row_filter_bounds_a_write(private):
    itest.my_super_query("INSERT INTO write_probe.items VALUES (500, 'hidden', 500)")
    try:
        conn = writer(private, autocommit=True)
        try:
            # The hidden row is not touched, and a row the filter hides cannot be written.
            assert outcome(conn, "SELECT COUNT(*) FROM items WHERE id = 500")[0] == "ok"
            approval = None
            got = outcome(conn, "DELETE FROM items WHERE id = 500")
            assert got[0] == "error" and got[1] == 1105, got
            approval = re.search(r"approval (w[a-z2-7]{20})\b", got[2]).group(1)
            got = outcome(conn, "INSERT INTO items VALUES (600, 'big', 600)")
            assert got[0] == "error" and got[2].startswith("WRITE_CHECK"), got
            got = outcome(conn, "UPDATE items SET n = 1000 WHERE id = 1")
            assert got[0] == "error" and got[2].startswith("WRITE_CHECK"), got
        finally:
            conn.close()
        assert shown(private, approval)["rows"] == 0
        assert "600:" not in items() and "500:hidden:500" in items()
    finally:
        itest.my_super_query("DELETE FROM write_probe.items WHERE id >= 500")


def test_what_stays_refused(private):
    conn = writer(private, autocommit=True)
    try:
        for sql, errno, part in [
            ("UPDATE shop.orders SET note = 'x' WHERE id = 1", 1792, "not one of your write tables"),
            ("REPLACE INTO items VALUES (1, 'r', 1)", 1792, None),
            ("UPDATE items SET flag = 'a'; DELETE FROM items", None, None),
            ("INSERT INTO items SELECT * FROM items", None, "INSERT ... SELECT"),
            ("UPDATE items, shop.orders SET items.flag = 'j'", None, "several tables"),
            ("DELETE FROM items WHERE id = 1 RETURNING *", None, "RETURNING"),
            ("UPDATE items SET flag = (SELECT password FROM mysql.user LIMIT 1)", None, None),
        ]:
            got = outcome(conn, sql)
            assert got[0] == "error", (sql, got)
            assert errno is None or got[1] == errno, (sql, got)
            assert part is None or part in got[2], (sql, got)
            assert not got[2].startswith("APPROVAL_REQUIRED"), (sql, got)
    finally:
        conn.close()
    # A user without writes = approve is refused as before.
    conn = pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent", password=itest.AGENT_PASSWORD,
                           database="shop", connect_timeout=10)
    try:
        got = outcome(conn, "UPDATE orders SET note = 'x' WHERE id = 1")
        assert got[0] == "error" and got[1] == 1792, got
    finally:
        conn.close()


def test_another_users_approval_does_not_exist(private):
    approval = hold(private, "UPDATE items SET flag = 'mine' WHERE id = 1")
    conn = pymysql.connect(host="127.0.0.1", port=private.my_port, user="agent", password=itest.AGENT_PASSWORD,
                           database="shop", connect_timeout=10)
    try:
        got = outcome(conn, "SHOW AIRLOCK APPROVAL '%s'" % approval)
        assert got[0] == "error" and "does not exist" in got[2], got
    finally:
        conn.close()


def test_the_wait_ends_with_the_real_result(waiting):
    """approval_wait_ms: the statement waits for the decision and gets the OK it would have had, with a
    warning naming the approval."""
    sql = "UPDATE items SET flag = 'waited' WHERE id IN (1, 2)"
    conn = writer(waiting, autocommit=True)

    def run():
        with conn.cursor() as cur:
            n = cur.execute(sql)
            cur.execute("SHOW WARNINGS")
            return n, cur.fetchall()

    try:
        t, out = in_thread(run)
        approval = pending_id(waiting, sql)
        assert api(waiting, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        t.join(60)
        assert "error" not in out, out
        rows, warnings = out["value"]
        assert rows == 2, out
        assert any("APPROVAL_REQUIRED" in w[2] and approval in w[2] for w in warnings), warnings
    finally:
        conn.close()
    assert "1:waited:" in items() and "2:waited:" in items()


def test_a_rejection_ends_the_wait_with_its_reason(waiting):
    sql = "DELETE FROM items WHERE id = 2"
    before = items()
    conn = writer(waiting, autocommit=True)
    try:
        t, out = in_thread(lambda: outcome(conn, sql))
        approval = pending_id(waiting, sql)
        assert api(waiting, "POST", "/api/approvals/%s/reject" % approval, {"reason": "keep row 2"})[0] == 200
        t.join(60)
        got = out["value"]
        assert got[0] == "error" and got[1] == 1105 and "rejected" in got[2] and "keep row 2" in got[2], got
    finally:
        conn.close()
    assert items() == before


def test_kill_query_ends_the_wait_and_the_write_stays_held(waiting):
    sql = "DELETE FROM items WHERE id = 3"
    conn = writer(waiting, autocommit=True)
    killer = writer(waiting, autocommit=True)
    try:
        conn_id = conn.thread_id()
        t, out = in_thread(lambda: outcome(conn, sql))
        approval = pending_id(waiting, sql)
        assert outcome(killer, "KILL QUERY %d" % conn_id)[0] == "ok"
        t.join(30)
        got = out["value"]
        assert got[0] == "error" and "canceling the wait" in got[2] and approval in got[2], got
        # The session goes on, and the write is still there to decide.
        assert outcome(conn, "SELECT 1")[0] == "ok"
        assert shown(waiting, approval)["status"] == "pending"
    finally:
        conn.close()
        killer.close()
    assert "3:" in items()


def node_mysql2(d, jobs):
    """mysql2's results (integration/clients/node_mysql2.js) for jobs, as writer on d."""
    env = dict(itest.clean_env())
    env["NODE_PATH"] = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")
    out = subprocess.run(["node", os.path.join(itest.REPO, "integration/clients/node_mysql2.js"), "127.0.0.1",
                          str(d.my_port), "writer", "writer-secret", "write_probe"],
                         input=json.dumps(jobs), capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_prepared_write_is_held_with_its_values(private):
    """mysql2's execute() prepares on the server and binds in binary: the write is held with its values in
    place, what the approver reads, and runs once approved."""
    got = node_mysql2(private, [{"sql": "UPDATE items SET flag = ? WHERE id = ?", "values": ["it's", 4],
                                 "execute": True}])
    err = got[0].get("error")
    assert err and err["errno"] == 1105 and "APPROVAL_REQUIRED" in err["message"], got
    approval = re.search(r"approval (w[a-z2-7]{20})\b", err["message"]).group(1)
    status, rec, _ = api(private, "GET", "/api/approvals/%s" % approval)
    # Values in place as airlock binds them: the string quoted, the number as mysql2 sent it (a double).
    assert status == 200 and rec["rows"] == 1 and re.search(r"WHERE id = +4e0$", rec["statement"]), rec
    assert "?" not in rec["statement"] and "'it''s'" in rec["statement"], rec
    assert api(private, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
    assert settled(private, approval)["status"] == "executed"
    assert "4:it's:4" in items()
    # A prepared write outside the write tables is refused as the text one is.
    got = node_mysql2(private, [{"sql": "UPDATE shop.orders SET note = ? WHERE id = 1", "values": ["x"],
                                 "execute": True}])
    assert got[0].get("error") and got[0]["error"]["errno"] == 1792, got


def record(d, approval):
    """The record of approval as the JSON API gives it: (parsed, the raw body)."""
    ctx = ssl.create_default_context(cafile=CA)
    req = urllib.request.Request("https://127.0.0.1:%d/api/approvals/%s" % (d.approval_port, approval))
    req.add_header("Authorization", "Basic " + base64.b64encode(
        ("%s:%s" % (APPROVER, APPROVER_PASSWORD)).encode()).decode())
    with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
        raw = r.read()
    return json.loads(raw), raw


def probe_rows(where):
    """write_probe.items's rows WHERE where, as the sample gives them: each value its text."""
    out = itest.my_super_query("SELECT id, flag, n FROM write_probe.items WHERE %s ORDER BY id" % where)
    return [line.split("\t") for line in out.splitlines() if line] if out else []


@pytest.fixture
def sample_rows():
    itest.my_super_query("INSERT INTO write_probe.items VALUES (700, 'one', 7), (701, 'two', 8), (702, 'hid', 500)")
    yield
    itest.my_super_query("DELETE FROM write_probe.items WHERE id >= 700")


def test_the_approver_sees_the_rows_a_delete_and_an_insert_touch(private, sample_rows):
    """A DELETE's rows as they were, an INSERT's as they will be (the filter's check column left out), in the
    record the JSON API gives; a row the user's filter hides never shows; nothing is written."""
    before = probe_rows("id >= 700")
    approval = hold(private, "DELETE FROM items WHERE id >= 700 ORDER BY id DESC")
    rec, _ = record(private, approval)
    assert rec["protocol"] == "mysql" and rec["rows"] == 2, rec
    assert rec["sample"] == {"columns": ["id", "flag", "n"], "truncated": False,
                             "rows": [{"before": ["701", "two", "8"], "after": None},
                                      {"before": ["700", "one", "7"], "after": None}]}, rec["sample"]
    assert "table=items" in rec["plan"], rec["plan"]
    approval = hold(private, "INSERT INTO items (id, flag, n) VALUES (710, 'new', 7), (711, NULL, 8)")
    rec, _ = record(private, approval)
    assert rec["rows"] == 2 and rec["sample"] == {
        "columns": ["id", "flag", "n"], "truncated": False,
        "rows": [{"before": None, "after": ["710", "new", "7"]}, {"before": None, "after": ["711", None, "8"]}]}, rec
    assert "RETURNING" not in rec["rewritten"].split("IS TRUE)")[-1], rec["rewritten"]
    # The row the filter hides (n = 500) is not in the sample, nor touched.
    approval = hold(private, "DELETE FROM items WHERE flag = 'hid' OR id = 700")
    rec, _ = record(private, approval)
    assert rec["rows"] == 1 and rec["sample"]["rows"] == [{"before": ["700", "one", "7"], "after": None}], rec
    assert "hid" not in json.dumps(rec["sample"])
    assert probe_rows("id >= 700") == before


def test_the_approver_sees_an_updates_rows_before_and_after(private, sample_rows):
    """MariaDB has no UPDATE ... RETURNING: the dry run reads the rows first and again after the UPDATE, by
    primary key; each row shows as it was and as the UPDATE left it, in the UPDATE's order, the row the
    filter hides never; nothing is written."""
    before = probe_rows("id >= 700")
    approval = hold(private, "UPDATE items SET flag = CONCAT(flag, '!', id) WHERE id >= 700 ORDER BY id DESC")
    rec, _ = record(private, approval)
    assert rec["rows"] == 2 and rec["plan"], rec
    assert rec["sample"] == {"columns": ["id", "flag", "n"], "truncated": False,
                             "rows": [{"before": ["701", "two", "8"], "after": ["701", "two!701", "8"]},
                                      {"before": ["700", "one", "7"], "after": ["700", "one!700", "7"]}]}, rec
    assert "hid" not in json.dumps(rec["sample"])
    # Its LIMIT: the rows it touches, no more.
    approval = hold(private, "UPDATE items AS i SET i.flag = NULL WHERE i.id >= 700 ORDER BY i.id LIMIT 1")
    rec, _ = record(private, approval)
    assert rec["rows"] == 1 and rec["sample"]["rows"] == [{"before": ["700", "one", "7"],
                                                           "after": ["700", None, "7"]}], rec
    assert probe_rows("id >= 700") == before


def test_a_value_of_hidden_characters_is_escaped_in_the_record(private, sample_rows):
    """A value the database holds with a control and a right-to-left override shows escaped, and flags
    the record; the statement itself is plain."""
    itest.my_super_query("INSERT INTO write_probe.items VALUES (720, CONCAT('a', CHAR(0xE280AE USING utf8mb4), "
                         "CHAR(7), '<b>'), 7)")
    approval = hold(private, "DELETE FROM items WHERE id = 720")
    rec, raw = record(private, approval)
    assert rec["sample"]["rows"] == [{"before": ["720", "a\u202e\x07<b>", "7"], "after": None}], rec
    assert rec["suspicious"] is True, rec
    assert "\u202e".encode() not in raw and b"\x07" not in raw and b"<b>" not in raw, raw
    assert b"\\u202e" in raw.lower() and b"\\u0007" in raw, raw


def test_a_large_write_shows_a_bounded_sample(wide):
    rows = ", ".join("(%d, 'bulk', %d)" % (i, i % 50) for i in range(1000, 1025))
    approval = hold(wide, "INSERT INTO items (id, flag, n) VALUES " + rows)
    rec, _ = record(wide, approval)
    assert rec["rows"] == 25 and len(rec["sample"]["rows"]) == 20 and rec["sample"]["truncated"] is True, rec
    assert rec["sample"]["rows"][0] == {"before": None, "after": ["1000", "bulk", "0"]}, rec["sample"]
    assert probe_rows("id >= 1000") == []


def test_a_large_update_shows_a_bounded_sample(wide):
    """25 rows updated: 20 pairs shown, marked truncated; the count is the UPDATE's own."""
    itest.my_super_query("INSERT INTO write_probe.items VALUES " +
                         ", ".join("(%d, 'bulk', %d)" % (i, i % 50) for i in range(1000, 1025)))
    try:
        approval = hold(wide, "UPDATE items SET flag = 'wide' WHERE id >= 1000 ORDER BY id")
        rec, _ = record(wide, approval)
        assert rec["rows"] == 25 and rec["sample"]["truncated"] is True, rec
        assert [r["before"][0] for r in rec["sample"]["rows"]] == [str(i) for i in range(1000, 1020)], rec
        assert rec["sample"]["rows"][19] == {"before": ["1019", "bulk", "19"], "after": ["1019", "wide", "19"]}
        assert len(probe_rows("flag = 'wide'")) == 0
    finally:
        itest.my_super_query("DELETE FROM write_probe.items WHERE id >= 1000")
