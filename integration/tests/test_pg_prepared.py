"""Prepared statements live as long as the client wants and as many as fit
in the session's memory: DEALLOCATE name / ALL (simple and extended), Close
and DISCARD ALL free them, answered by airlock as Postgres answers; a
session holds hundreds of them (node-postgres names one per query text,
psycopg 3 prepares a query after five runs), and the MySQL side the same
(mysql2 execute() prepares per text)."""

import os
import struct

import psycopg

import itest
import pgwire
from test_my_drivers import mysql2_run
from test_pg_drivers import node_run

HOST, PORT = "127.0.0.1", int(os.environ.get("AIRLOCK_LISTEN_PORT", "6432"))


def raw():
    c = pgwire.Conn(HOST, PORT)
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    return c


def parse(c, name, sql):
    c.send_msg(b"P", pgwire.cstr(name) + pgwire.cstr(sql) + struct.pack("!h", 0))


def sync(c):
    c.send_msg(b"S")
    return c.recv_until_ready()


def kinds(msgs):
    return [t for t, _ in msgs]


def error_code(msgs):
    for t, body in msgs:
        if t == b"E":
            return pgwire.error_fields(body).get("C")
    return None


def test_hundreds_of_named_statements_then_deallocate():
    c = raw()
    for i in range(300):
        parse(c, "s%d" % i, "SELECT %d AS n" % i)
    assert kinds(sync(c)).count(b"1") == 300
    # Each one runs.
    c.send_msg(b"B", pgwire.cstr("") + pgwire.cstr("s299") + struct.pack("!hhh", 0, 0, 0))
    c.send_msg(b"E", pgwire.cstr("") + struct.pack("!i", 0))
    msgs = sync(c)
    assert error_code(msgs) is None, msgs
    assert [b for t, b in msgs if t == b"D"] == [struct.pack("!hi", 1, 3) + b"299"]
    # DEALLOCATE one (simple protocol), then it is gone and its name free again.
    msgs = c.query("DEALLOCATE s7")
    assert any(t == b"C" and b.startswith(b"DEALLOCATE") for t, b in msgs), msgs
    c.send_msg(b"D", b"S" + pgwire.cstr("s7"))
    assert error_code(sync(c)) == "26000"
    parse(c, "s7", "SELECT 7")
    assert error_code(sync(c)) is None
    assert error_code(c.query("DEALLOCATE nosuch")) == "26000"
    # DEALLOCATE ALL through the extended protocol.
    parse(c, "", "DEALLOCATE ALL")
    c.send_msg(b"B", pgwire.cstr("") + pgwire.cstr("") + struct.pack("!hhh", 0, 0, 0))
    c.send_msg(b"E", pgwire.cstr("") + struct.pack("!i", 0))
    msgs = sync(c)
    assert error_code(msgs) is None and any(t == b"C" and b.startswith(b"DEALLOCATE ALL") for t, b in msgs)
    c.send_msg(b"D", b"S" + pgwire.cstr("s1"))
    assert error_code(sync(c)) == "26000"
    # Room again for as many.
    for i in range(300):
        parse(c, "t%d" % i, "SELECT %d" % i)
    assert error_code(sync(c)) is None
    msgs = c.query("DISCARD ALL")
    assert error_code(msgs) is None
    c.send_msg(b"D", b"S" + pgwire.cstr("t1"))
    assert error_code(sync(c)) == "26000"
    c.close()


def test_memory_not_count_bounds_them():
    """Statements holding more than the session's 4 MiB are refused with 53400, and closing frees room."""
    c = raw()
    big = "SELECT '" + "x" * 60000 + "'"
    for i in range(80):
        parse(c, "b%d" % i, big)
    msgs = sync(c)
    assert error_code(msgs) == "53400", kinds(msgs)
    msgs = c.query("DEALLOCATE ALL")
    parse(c, "again", big)
    assert error_code(sync(c)) is None
    c.close()


def test_psycopg3_prepares_after_five_runs_and_rolls_back():
    with psycopg.connect(itest.AGENT_URL) as conn:
        for _ in range(3):
            for i in range(12):
                cur = conn.execute("SELECT id FROM orders WHERE id = %s", (i + 1,))
                assert cur.fetchall() == [(i + 1,)]
            conn.rollback()
        # Everything prepared from the first statement on, many distinct texts.
        conn.prepare_threshold = 0
        for i in range(150):
            assert conn.execute("SELECT %s::int + " + str(i), (1,)).fetchone() == (1 + i,)
        conn.rollback()


def test_node_pg_names_a_statement_per_query():
    jobs = [{"text": "SELECT $1::int + %d AS n" % i, "values": [1], "name": "q%d" % i} for i in range(120)]
    out = node_run(itest.AGENT_URL, jobs)
    assert [o.get("rows") for o in out] == [[[1 + i]] for i in range(120)], [o for o in out if "error" in o][:3]


def test_mysql2_execute_prepares_per_text():
    jobs = [{"sql": "SELECT ? + %d AS n" % i, "values": [1], "execute": True} for i in range(150)]
    out = mysql2_run(jobs)
    errors = [o for o in out if "error" in o]
    assert not errors, errors[:3]
    assert [o["rows"] for o in out] == [[[1 + i]] for i in range(150)] or \
        [int(o["rows"][0][0]) for o in out] == [1 + i for i in range(150)]
