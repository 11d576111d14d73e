"""Held writes shared by several nodes ([server] state_dsn, docs/admin.md).

Two airlockds of the test's own play two nodes behind a load balancer,
each with its own peer_id and approval listener, both keeping held writes
in one real Postgres database (a role and database this module makes, the
password in a pgpass file, the link verified against the demo CA). A
write held through node 1 is listed, approved and run from node 2's
listener, and the session on node 1 that waits for it gets the real
result. Two approvers pressing approve on the two nodes at the same
moment run the write once: one is told 409. What goes wrong is told
plainly: a database that cannot be reached stops the start, and a lost
connection is made again without losing a write.

The store's own tests (tests/approval/test_approval_store_pg.c: every
record and move the SQLite store passes, recovery per node, damaged rows,
a foreign table) run here too, on the same database."""

import os
import re
import secrets
import subprocess
import threading
import time
import urllib.request

import pymysql
import pytest

import itest
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd, free_port
from test_approval_page import logged_in, post_form, request
from test_pg_approvals import api, audited, in_thread

UID_BASE = 1005600000
DB, ROLE = "airlock_state_it", "airlock_state_it"
CA = os.path.join(itest.STATE_DIR, "tls", "ca.crt")


@pytest.fixture(scope="module")
def state_dsn():
    """A database of the module's own for the store, and the conninfo that reaches it (no password in it)."""
    password = secrets.token_hex(16)
    itest.super_query("DROP DATABASE IF EXISTS %s WITH (FORCE)" % DB, db="postgres")
    itest.super_query("DROP ROLE IF EXISTS %s" % ROLE, db="postgres")
    itest.super_query("CREATE ROLE %s LOGIN PASSWORD '%s'" % (ROLE, password), db="postgres")
    itest.super_query("CREATE DATABASE %s OWNER %s" % (DB, ROLE), db="postgres")
    passfile = os.path.join(itest.STATE_DIR, "state-it.pgpass")
    fd = os.open(passfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("127.0.0.1:5432:%s:%s:%s\n" % (DB, ROLE, password))
    os.chmod(passfile, 0o600)
    # The same table in MariaDB, for the MySQL side.
    hosts = ("'airlock_ro'@'127.0.0.1'", "'airlock_ro'@'localhost'", "'airlock_rw'@'127.0.0.1'",
             "'airlock_rw'@'localhost'")
    itest.my_super_query("DROP DATABASE IF EXISTS state_probe; CREATE DATABASE state_probe;"
                         "CREATE TABLE state_probe.items (id INT PRIMARY KEY, flag VARCHAR(20), n INT);"
                         "INSERT INTO state_probe.items VALUES (1, 'x', 1), (2, 'x', 2), (3, 'x', 3);"
                         + "".join("GRANT SELECT ON state_probe.items TO %s;" % h for h in hosts)
                         + "".join("GRANT UPDATE ON state_probe.items TO %s;" % h for h in hosts[2:]))
    itest.super_query("""
        DROP SCHEMA IF EXISTS state_probe CASCADE;
        CREATE SCHEMA state_probe;
        CREATE TABLE state_probe.items (id int PRIMARY KEY, flag text, n int);
        INSERT INTO state_probe.items SELECT g, 'x', g FROM generate_series(1, 6) g;
        GRANT USAGE ON SCHEMA state_probe TO airlock_ro, airlock_rw;
        GRANT SELECT ON state_probe.items TO airlock_ro;
        GRANT SELECT, INSERT, UPDATE, DELETE ON state_probe.items TO airlock_rw;
    """)
    yield ("host=127.0.0.1 port=5432 dbname=%s user=%s passfile=%s sslmode=verify-full sslrootcert=%s"
           % (DB, ROLE, passfile, CA))
    itest.super_query("DROP SCHEMA state_probe CASCADE")
    itest.my_super_query("DROP DATABASE state_probe")
    itest.super_query("DROP DATABASE IF EXISTS %s WITH (FORCE)" % DB, db="postgres")
    itest.super_query("DROP ROLE IF EXISTS %s" % ROLE, db="postgres")


def node(name, peer_id, dsn):
    """An airlockd with its own approval listener whose held writes live in dsn; writer may write
    state_probe.items and waits up to 20 s for a decision."""
    port, metrics = free_port(), free_port()
    d = PrivateAirlockd(name, {"pool_min": 0, "peer_id": peer_id, "state_dsn": dsn,
                               "approval_listen": "127.0.0.1:%d" % port,
                               "metrics_listen": "127.0.0.1:%d" % metrics},
                        uid_base=UID_BASE + peer_id * 2000,
                        sections={"user writer": {
                            "tables": "state_probe.items, pg_catalog.*, information_schema.*",
                            "write_tables": "state_probe.items", "approval_wait_ms": "20000",
                            "mysql_tables": "state_probe.items, information_schema.*",
                            "mysql_write_tables": "state_probe.items"}})
    d.approval_port = port
    d.metrics_port = metrics
    return d


def store_failures(d):
    """airlock_approval_store_failures_total as d's metrics say."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % d.metrics_port, timeout=10) as r:
        text = r.read().decode()
    return float(re.search(r"^airlock_approval_store_failures_total (\S+)$", text, re.M).group(1))


@pytest.fixture(scope="module")
def nodes(state_dsn):
    made = [node("state%d" % i, i, state_dsn) for i in (1, 2)]
    try:
        for d in made:
            d.start()
            assert itest.wait_until(lambda: PrivateAirlockd.accepts(d.approval_port), 10, 0.1)
        yield made
    finally:
        codes = [d.stop() for d in made]
    assert all(c in (0, -15) for c in codes), codes


def items():
    return itest.super_query("SELECT string_agg(id || ':' || flag || ':' || n, ',' ORDER BY id) FROM state_probe.items")


def waiting_write(d, sql):
    """sql sent by writer on d in a thread of its own, waiting for the decision: (thread, out, conn)."""
    conn = itest.connect(d.url(user="writer", password="writer-secret"), autocommit=True)

    def run():
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.rowcount, cur.statusmessage

    t, out = in_thread(run)
    return t, out, conn


def pending_on(d, statement):
    """The id of the pending write with this statement as d's listener lists it."""
    for _ in range(150):
        status, listed, _ = api(d, "GET", "/api/approvals")
        assert status == 200, listed
        mine = [r["id"] for r in listed if r["statement"] == statement]
        if mine:
            return mine[0]
        time.sleep(0.2)
    raise AssertionError("never listed: " + statement)


def test_the_store_passes_its_own_tests(state_dsn):
    binary = os.path.join(os.path.dirname(AIRLOCKD_BIN), "test_approval_store_pg")
    r = subprocess.run([binary], env=dict(os.environ, AIRLOCK_TEST_STATE_DSN=state_dsn), capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL)
    said = r.stdout + r.stderr
    assert r.returncode == 0, said
    run = re.search(r"\[  PASSED  \] (\d+) test", said)
    assert run and int(run.group(1)) >= 20 and "FAILED" not in said, said


def test_held_on_one_node_approved_and_run_from_another(nodes):
    one, two = nodes
    before = items()
    sql = "UPDATE state_probe.items SET flag = 'two' WHERE id IN (1, 2)"
    t, out, conn = waiting_write(one, sql)
    try:
        approval = pending_on(two, sql)
        assert items() == before
        status, record, _ = api(two, "POST", "/api/approvals/%s/approve" % approval, {"reason": "from node 2"})
        assert status == 200 and record["decided_by"] == "approver", record
        t.join(60)
        assert "error" not in out, out
        # The session on node 1 got the run's own outcome, decided and run on node 2.
        assert out["value"] == (2, "UPDATE 2")
    finally:
        conn.close()
    assert items() == before.replace("1:x:1", "1:two:1").replace("2:x:2", "2:two:2")
    status, record, _ = api(one, "GET", "/api/approvals/%s" % approval)
    assert status == 200 and record["status"] == "executed" and record["executed_rows"] == 2, record
    assert [r["decision"] for r in audited(one, approval)] == ["held"]
    assert [r["decision"] for r in audited(two, approval)] == ["approved", "running", "executed"]


def test_a_mysql_write_held_on_one_node_runs_from_another(nodes):
    """The MySQL side shares the store as the Postgres side does: a write held through node 2's MySQL
    listener, approved on node 1, gives the waiting client the OK it would have had."""
    one, two = nodes
    sql = "UPDATE items SET flag = 'my' WHERE id = 2"
    conn = pymysql.connect(host="127.0.0.1", port=two.my_port, user="writer", password="writer-secret",
                           database="state_probe", connect_timeout=10, read_timeout=60, autocommit=True)

    def run():
        with conn.cursor() as cur:
            return cur.execute(sql)

    try:
        t, out = in_thread(run)
        approval = pending_on(one, sql)
        assert api(one, "POST", "/api/approvals/%s/approve" % approval, {})[0] == 200
        t.join(60)
        assert out.get("value") == 1, out
    finally:
        conn.close()
    got = itest.my_super_query("SELECT flag FROM state_probe.items WHERE id = 2")
    assert "my" in got, got
    status, record, _ = api(two, "GET", "/api/approvals/%s" % approval)
    assert record["status"] == "executed" and record["protocol"] == "mysql", record


def test_approved_on_both_nodes_at_once_runs_once(nodes):
    one, two = nodes
    start = int(itest.super_query("SELECT n FROM state_probe.items WHERE id = 5"))
    rounds = 5
    for i in range(rounds):
        sql = "UPDATE state_probe.items SET n = n + 1 WHERE id = 5 /* round %d */" % i
        t, out, conn = waiting_write(one if i % 2 else two, sql)
        try:
            approval = pending_on(one, sql)
            gate = threading.Barrier(2)
            answers = {}

            def press(d):
                gate.wait(10)
                answers[d.name] = api(d, "POST", "/api/approvals/%s/approve" % approval, {})[0]

            pressers = [threading.Thread(target=press, args=(d,)) for d in nodes]
            for p in pressers:
                p.start()
            for p in pressers:
                p.join(60)
            assert sorted(answers.values()) == [200, 409], answers
            t.join(60)
            assert "error" not in out, out
            assert out["value"] == (1, "UPDATE 1")
        finally:
            conn.close()
    assert int(itest.super_query("SELECT n FROM state_probe.items WHERE id = 5")) == start + rounds


def test_a_page_login_holds_on_every_node(nodes):
    """An approver logs in on node 1's page and decides on node 2's with the same cookie and form token
    (behind one load balancer, any request may reach any node); a logout on node 2 ends it on node 1."""
    one, two = nodes
    cookie, csrf = logged_in(one)
    status, _, body = request(two, "GET", "/", headers={"Cookie": cookie})
    assert status == 200 and "Signed in as" in body and csrf in body
    sql = "UPDATE state_probe.items SET flag = 'paged' WHERE id = 4"
    t, out, conn = waiting_write(one, sql)
    try:
        approval = pending_on(two, sql)
        origin = {"Origin": "https://127.0.0.1:%d" % two.approval_port, "Sec-Fetch-Site": "same-origin"}
        status, _, _ = post_form(two, "/approval/%s/approve" % approval, {"csrf": csrf, "reason": "paged"}, cookie,
                                 origin)
        assert status == 303
        t.join(60)
        assert "error" not in out and out["value"] == (1, "UPDATE 1"), out
    finally:
        conn.close()
    assert "4:paged:4" in items()
    assert post_form(two, "/logout", {"csrf": csrf}, cookie)[0] == 303
    for d in nodes:
        status, _, body = request(d, "GET", "/", headers={"Cookie": cookie})
        assert status == 200 and 'action="/login"' in body and "Signed in as" not in body
    # The database holds no cookie: only its hash.
    token = cookie.split("=", 1)[1]
    held = itest.super_query("SELECT count(*) FROM airlock_approval_logins WHERE encode(key, 'hex') = '%s' "
                             "OR csrf = '%s'" % (token, token), db=DB)
    assert held == "0"


def test_a_lost_connection_is_made_again(nodes, state_dsn):
    one, two = nodes
    ended = itest.super_query("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity "
                              "WHERE datname = '%s' AND application_name = 'airlockd'" % DB, db="postgres")
    assert int(ended) == 2
    status, listed, _ = api(two, "GET", "/api/approvals")
    assert status == 200
    sql = "UPDATE state_probe.items SET flag = 'again' WHERE id = 6"
    t, out, conn = waiting_write(one, sql)
    try:
        approval = pending_on(two, sql)
        assert api(one, "POST", "/api/approvals/%s/reject" % approval, {"reason": "not now"})[0] == 200
        t.join(60)
        assert "error" in out and "rejected" in str(out["error"]), out
    finally:
        conn.close()
    assert "6:x:6" in items()


def test_a_write_the_store_cannot_keep_is_refused_plainly(nodes):
    """The database refuses the store's INSERT: the agent is told the write was not held and nothing was
    written, without the store's own words; the node's log has them."""
    one, _ = nodes
    before = items()
    failures = store_failures(one)
    itest.super_query("REVOKE INSERT ON airlock_approvals FROM %s" % ROLE, db=DB)
    try:
        conn = itest.connect(one.url(user="writer", password="writer-secret"), autocommit=True)
        try:
            got = itest.pg_outcome(conn, "UPDATE state_probe.items SET flag = 'lost' WHERE id = 3", whole=True)
        finally:
            conn.close()
    finally:
        itest.super_query("GRANT INSERT ON airlock_approvals TO %s" % ROLE, db=DB)
    assert got[0] == "error" and "could not be held" in got[2] and "nothing was written" in got[2], got
    assert "airlock_approvals" not in got[2] and "permission" not in got[2], got
    assert "permission denied" in one.log()
    assert items() == before
    assert store_failures(one) >= failures + 1


def test_an_unreachable_state_database_stops_the_start(state_dsn):
    dead = free_port()
    d = node("statedead", 9, "host=127.0.0.1 port=%d dbname=%s user=%s connect_timeout=2" % (dead, DB, ROLE))
    d.start(wait=False)
    try:
        code = d.wait_exit(30)
        assert code not in (None, 0), d.log()
        assert "state database" in d.log(), d.log()
    finally:
        if d.alive():
            d.kill()
