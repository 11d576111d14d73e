"""Governed writes over Postgres, the agent's side: the demo's `writer`
may write orders with approval. A write is checked, dry-run by a runner
with the write role (airlock_rw) in a transaction that is always rolled
back, and held: the agent gets APPROVAL_REQUIRED (55000) naming the
approval, nothing is written, and SHOW airlock.approval '<id>' tells it
where the write stands. A write past max_write_rows, a write the row
filter forbids, a table outside write_tables and every write of a user
without writes are refused before anything is held."""

import json
import os
import re
import time

import psycopg
import pytest

import itest
from private_airlockd import PrivateAirlockd

WRITER_URL = itest.AGENT_URL.replace("agent:agent-secret", "writer:writer-secret")
outcome = itest.pg_outcome


@pytest.fixture
def writer():
    yield from itest.connected(WRITER_URL)


@pytest.fixture
def agent():
    yield from itest.connected(itest.AGENT_URL)


def orders_state():
    return itest.super_query("SELECT count(*), sum(amount), md5(string_agg(id || ':' || coalesce(note, ''), ',' "
                             "ORDER BY id)) FROM orders")


def held(got):
    """The approval id of an APPROVAL_REQUIRED answer (got whole)."""
    assert got[0] == "error" and got[1] == "55000", got
    assert "APPROVAL_REQUIRED" in got[2], got
    m = re.search(r"approval (w[a-z2-7]{20})\b", got[2])
    assert m, got
    assert "SHOW airlock.approval '%s'" % m.group(1) in got[2], got
    return m.group(1)


def show(conn, approval):
    with conn.cursor() as cur:
        cur.execute("SHOW airlock.approval '%s'" % approval)
        cols = [d.name for d in cur.description]
        rows = cur.fetchall()
    assert len(rows) == 1, rows
    return dict(zip(cols, rows[0]))


WRITES = [
    ("UPDATE orders SET note = 'checked' WHERE id BETWEEN 10 AND 14", 5),
    ("UPDATE orders SET amount = amount + 1 WHERE customer_id = -1", 0),
    ("DELETE FROM orders WHERE id IN (20, 21, 22)", 3),
    ("INSERT INTO orders (customer_id, amount, note) VALUES (7, 9.99, 'new'), (8, 1.00, 'new')", 2),
    ("INSERT INTO orders (customer_id, amount) SELECT id, 1 FROM customers WHERE id <= 4", 4),
    ("UPDATE orders o SET note = c.name FROM customers c WHERE c.id = o.customer_id AND o.id = 30", 1),
    ("DELETE FROM orders WHERE id = 40 RETURNING id, amount", 1),
]


@pytest.mark.parametrize("sql,rows", WRITES)
def test_a_write_is_held_and_nothing_is_written(writer, sql, rows):
    before = orders_state()
    approval = held(outcome(writer, sql, whole=True))
    assert orders_state() == before
    got = show(writer, approval)
    assert got["id"] == approval
    assert got["status"] == "pending"
    assert got["rows"] == str(rows)
    assert got["executed_rows"] is None and got["decided_by"] is None
    assert got["created_at"] < got["expires_at"]


def test_bound_parameters_over_the_extended_protocol():
    """psycopg 3 binds server-side: Parse, Bind, Execute with the values apart from the text, in binary
    (kept as their text) or as text."""
    before = orders_state()
    with psycopg.connect(WRITER_URL, autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute("UPDATE orders SET note = %b WHERE id = %b", ["bound", 50])
        assert e.value.sqlstate == "55000" and "APPROVAL_REQUIRED" in str(e.value)
        with pytest.raises(psycopg.Error) as e:
            conn.execute("UPDATE orders SET note = %t WHERE id = %t", ["bound", 50])
        assert e.value.sqlstate == "55000" and "APPROVAL_REQUIRED" in str(e.value)
        approval = re.search(r"approval (w[a-z2-7]{20})\b", str(e.value)).group(1)
    assert orders_state() == before
    conn = itest.connect(WRITER_URL, autocommit=True)
    try:
        assert show(conn, approval)["rows"] == "1"
    finally:
        conn.close()


def test_a_write_past_max_write_rows_is_refused(writer):
    before = orders_state()
    got = outcome(writer, "UPDATE orders SET note = note WHERE id <= 500")
    assert got[0] == "error" and got[1] == "54000" and "WRITE_ROWS" in got[2], got
    assert "500 rows, more than 100" in got[2], got
    got = outcome(writer, "DELETE FROM orders WHERE id <= 300 RETURNING id")
    assert got[0] == "error" and got[1] == "54000" and "WRITE_ROWS" in got[2], got
    assert orders_state() == before


def test_the_databases_own_error_comes_back(writer):
    got = outcome(writer, "UPDATE orders SET amount = 'many' WHERE id = 1")
    assert got[0] == "error" and got[1] == "22P02", got
    got = outcome(writer, "INSERT INTO orders (no_such_column) VALUES (1)")
    assert got[0] == "error" and got[1] == "42703", got


def test_what_stays_refused(writer, agent):
    before = orders_state()
    refused = [
        (writer, "UPDATE customers SET name = 'x' WHERE id = 1", "25006", "not one of your write tables"),
        (writer, "DELETE FROM staff_salaries", "25006", "not one of your write tables"),
        (writer, "DELETE FROM orders WHERE id IN (SELECT id FROM staff_salaries)", "42501", "staff_salaries"),
        (writer, "UPDATE orders SET note = 'x'; DELETE FROM orders", "42601", "MULTI_STATEMENT"),
        (writer, "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", "25006", "NOT_READ_ONLY"),
        (writer, "TRUNCATE orders", "25006", "NOT_READ_ONLY"),
        (writer, "UPDATE orders SET note = pg_read_file('/etc/passwd') WHERE id = 1", "42501", "pg_read_file"),
        (agent, "UPDATE orders SET note = 'x' WHERE id = 1", "25006", "NOT_READ_ONLY"),
        (agent, "DELETE FROM orders WHERE id = 1", "25006", "NOT_READ_ONLY"),
    ]
    for conn, sql, state, part in refused:
        got = outcome(conn, sql)
        assert got[0] == "error" and got[1] == state and part in got[2], (sql, got)
    assert orders_state() == before


def test_a_write_in_a_read_only_transaction_is_refused():
    """As Postgres answers in a block begun READ ONLY (psycopg2's readonly session, SQLAlchemy's
    postgresql_readonly, psycopg 3's read_only): 25006, nothing dry-run or held. SET TRANSACTION inside
    the block changes its mode both ways."""
    before = orders_state()
    conn = itest.connect(WRITER_URL, autocommit=False)
    try:
        conn.set_session(readonly=True)
        got = outcome(conn, "UPDATE orders SET note = 'ro' WHERE id = 70")
        assert got[:2] == ("error", "25006") and "cannot execute UPDATE in a read-only transaction" in got[2], got
        conn.set_session(readonly=None, autocommit=True)
        for block, state in ((["BEGIN", "SET TRANSACTION READ ONLY"], "25006"),
                             (["START TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ"], "25006"),
                             (["BEGIN READ ONLY", "SET TRANSACTION READ WRITE"], "55000"),
                             (["BEGIN"], "55000")):
            for sql in block:
                assert outcome(conn, sql)[0] == "rows", sql
            got = outcome(conn, "DELETE FROM orders WHERE id = 71", whole=True)
            assert got[0] == "error" and got[1] == state, (block, got)
            assert ("APPROVAL_REQUIRED" in got[2]) == (state == "55000"), got
            assert outcome(conn, "ROLLBACK")[0] == "rows"
        # The next block is read-write again.
        assert outcome(conn, "BEGIN")[0] == "rows"
        held(outcome(conn, "DELETE FROM orders WHERE id = 72", whole=True))
        outcome(conn, "ROLLBACK")
    finally:
        conn.close()
    with psycopg.connect(WRITER_URL) as conn:
        conn.read_only = True
        with pytest.raises(psycopg.Error) as e:
            conn.execute("INSERT INTO orders (customer_id, amount) VALUES (%s, %s)", [1, 2])
        assert e.value.sqlstate == "25006" and "INSERT" in str(e.value)
    assert orders_state() == before


def test_another_users_approval_does_not_exist(writer, agent):
    approval = held(outcome(writer, "DELETE FROM orders WHERE id = 60", whole=True))
    for sql in ("SHOW airlock.approval '%s'" % approval, "SHOW airlock.approval 'waaaaaaaaaaaaaaaaaaaa'",
                "SHOW airlock.approval 'x'' OR ''1'"):
        got = outcome(agent, sql)
        assert got[0] == "error" and got[1] == "42704" and "does not exist" in got[2], got
    got = outcome(writer, "SHOW airlock.approval 'waaaaaaaaaaaaaaaaaaaa'")
    assert got[0] == "error" and got[1] == "42704", got


def audit_since(offset):
    with open(itest.AUDIT_LOG, "rb") as f:
        f.seek(offset)
        return [json.loads(line) for line in f.read().decode().splitlines() if line.strip()]


def test_a_held_write_is_audited(writer):
    offset = os.path.getsize(itest.AUDIT_LOG)
    approval = held(outcome(writer, "UPDATE orders SET note = 'audited' WHERE id = 70", whole=True))
    for _ in range(50):
        records = [r for r in audit_since(offset) if r.get("user") == "writer" and r.get("decision") == "held"]
        if records:
            break
        time.sleep(0.1)
    assert records and records[-1]["code"] == "APPROVAL_REQUIRED" and records[-1]["rows"] == 1, records
    assert records[-1]["approval"] == approval, records


PRIVATE_STORE = os.path.join(itest.STATE_DIR, "approvals-writes.db")


@pytest.fixture(scope="module")
def private():
    """An airlockd of its own: its store of held writes, and writer's orders filtered to customer_id <= 100."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(PRIVATE_STORE + suffix):
            os.unlink(PRIVATE_STORE + suffix)
    d = PrivateAirlockd("writes", {"pool_min": 0, "approval_store": PRIVATE_STORE}, uid_base=1002600000,
                        sections={"user writer": {"filter public.orders": "customer_id <= 100"}})
    d.start()
    yield d
    if d.alive():
        assert d.stop() in (0, -15)


def private_outcome(d, sql):
    conn = itest.connect(d.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        return outcome(conn, sql, whole=True)
    finally:
        conn.close()


def test_the_row_filter_bounds_a_write(private):
    """The filter narrows what an UPDATE or DELETE touches, and a row it would leave outside the filter
    fails the write (WRITE_CHECK), as a policy's WITH CHECK does."""
    inside = itest.super_query("SELECT id FROM orders WHERE customer_id <= 100 ORDER BY id LIMIT 1")
    outside = itest.super_query("SELECT id FROM orders WHERE customer_id > 100 ORDER BY id LIMIT 1")
    before = orders_state()
    approval = held(private_outcome(private, "UPDATE orders SET note = 'x' WHERE id IN (%s, %s)" % (inside, outside)))
    assert approval
    conn = itest.connect(private.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        assert show(conn, approval)["rows"] == "1"
    finally:
        conn.close()
    for sql in ("UPDATE orders SET customer_id = 500 WHERE id = %s" % inside,
                "INSERT INTO orders (customer_id, amount) VALUES (500, 1)",
                "INSERT INTO orders (customer_id, amount) VALUES (NULL, 1)"):
        got = private_outcome(private, sql)
        assert got[0] == "error" and got[1] == "42501" and "WRITE_CHECK" in got[2], (sql, got)
    assert orders_state() == before


def test_held_writes_survive_a_restart(private):
    inside = itest.super_query("SELECT id FROM orders WHERE customer_id <= 100 ORDER BY id LIMIT 1")
    approval = held(private_outcome(private, "DELETE FROM orders WHERE id = %s" % inside))
    assert private.stop() in (0, -15)
    mode = os.stat(PRIVATE_STORE).st_mode & 0o777
    assert mode == 0o600, oct(mode)
    private.start()
    conn = itest.connect(private.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        got = show(conn, approval)
    finally:
        conn.close()
    assert got["status"] == "pending" and got["rows"] == "1"
