"""The extended query protocol, message by message, against a direct
connection: Describe of a statement (ParameterDescription with the types
the backend infers, then RowDescription or NoData), result formats per
column as Bind asks (text, binary, and both side by side), portals read a
few rows at a time (PortalSuspended, more Executes, Close), and a
description that no longer matches the result failing as Postgres fails
it. Each exchange is sent to airlock and to the backend directly, and what
comes back must be the same."""

import os
import struct
import urllib.parse

import pytest

import itest
import pgwire

HOST, PORT = "127.0.0.1", int(os.environ.get("AIRLOCK_LISTEN_PORT", "6432"))


def agent_conn():
    c = pgwire.Conn(HOST, PORT)
    assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
    return c


def direct_conn():
    """The backend takes airlock_ro over TLS only: SSLRequest first, the certificate checked."""
    u = urllib.parse.urlparse(itest.direct_url())
    c = pgwire.Conn(u.hostname, u.port)
    c.start_tls(itest.db_tls_context(), u.hostname)
    assert c.login(u.username, urllib.parse.unquote(u.password), u.path.lstrip("/")) is None
    return c


def parse(name, sql, types=()):
    return b"P", pgwire.cstr(name) + pgwire.cstr(sql) + struct.pack("!h", len(types)) + \
        b"".join(struct.pack("!I", t) for t in types)


def bind(portal, stmt, params=(), formats=(), param_formats=()):
    body = pgwire.cstr(portal) + pgwire.cstr(stmt) + struct.pack("!h", len(param_formats)) + \
        b"".join(struct.pack("!h", f) for f in param_formats) + struct.pack("!h", len(params))
    for p in params:
        if p is None:
            body += struct.pack("!i", -1)
        else:
            body += struct.pack("!i", len(p)) + p
    body += struct.pack("!h", len(formats)) + b"".join(struct.pack("!h", f) for f in formats)
    return b"B", body


def describe(kind, name):
    return b"D", kind + pgwire.cstr(name)


def execute(portal, max_rows=0):
    return b"E", pgwire.cstr(portal) + struct.pack("!i", max_rows)


def close(kind, name):
    return b"C", kind + pgwire.cstr(name)


SYNC = (b"S", b"")


def rowdesc(body):
    """A RowDescription as (name, type, typmod, format) per column: table OIDs differ under scoping."""
    (n,) = struct.unpack("!h", body[:2])
    off, cols = 2, []
    for _ in range(n):
        end = body.index(b"\0", off)
        name = body[off:end]
        _table, _att, typ, _len, mod, fmt = struct.unpack("!IhIhih", body[end + 1:end + 19])
        cols.append((name, typ, mod, fmt))
        off = end + 19
    return cols


def normal(msgs):
    """What a client reads: notices and parameter status left out, RowDescription decoded."""
    out = []
    for t, body in msgs:
        if t in (b"N", b"S"):
            continue
        if t == b"T":
            out.append((t, rowdesc(body)))
        elif t == b"E":
            f = pgwire.error_fields(body)
            out.append((t, f.get("C")))
        else:
            out.append((t, body))
    return out


def exchange(c, *msgs):
    """Sends msgs, then everything up to the ReadyForQuery that answers the last Sync."""
    for t, body in msgs:
        c.send_msg(t, body)
    syncs = sum(1 for t, _ in msgs if t == b"S")
    got = []
    for _ in range(syncs):
        got += c.recv_until_ready()
    return normal(got)


def both(*msgs):
    a, d = agent_conn(), direct_conn()
    try:
        return exchange(a, *msgs), exchange(d, *msgs)
    finally:
        a.close()
        d.close()


def test_describe_statement_infers_parameter_types():
    """pgx, postgres.js and PgJDBC Describe a statement before they bind it."""
    sql = "SELECT id, amount, note, created_at FROM orders WHERE id = $1 AND amount > $2"
    got, want = both(parse("s", sql), describe(b"S", "s"), SYNC)
    assert got == want
    assert [t for t, _ in got] == [b"1", b"t", b"T", b"Z"]
    # int8 and numeric, as the backend inferred them.
    assert got[1][1] == struct.pack("!hII", 2, 20, 1700)


def test_describe_statement_with_given_types_and_no_rows():
    cases = [
        (parse("a", "SELECT $1::text || $2", (25,)), b"t"),
        (parse("b", "SELECT $1", (20,)), b"t"),
        (parse("c", "SET search_path = public"), b"t"),
    ]
    for p, _ in cases:
        stmt = p[1].split(b"\0")[0].decode()
        got, want = both(p, describe(b"S", stmt), SYNC)
        assert got == want, (p, got, want)


def test_describe_statement_refused_read_is_refused():
    got = exchange_agent(parse("x", "SELECT * FROM staff_salaries"), describe(b"S", "x"), SYNC)
    assert got[0] == (b"E", "42501") and got[-1][0] == b"Z"


def exchange_agent(*msgs):
    a = agent_conn()
    try:
        return exchange(a, *msgs)
    finally:
        a.close()


def test_describe_then_execute_many_times_uses_the_description():
    """pgx's statement cache: Parse + Describe once, then Bind / Execute with binary results."""
    sql = "SELECT id, amount, created_at, ARRAY[id, customer_id] AS ids FROM orders WHERE id = $1"
    msgs = [parse("p", sql), describe(b"S", "p"), SYNC]
    for i in range(1, 6):
        msgs += [bind("", "p", [struct.pack("!q", i)], [1], [1]), execute(""), SYNC]
    binmsgs = msgs
    got, want = both(*binmsgs)
    assert got == want
    assert sum(1 for t, _ in got if t == b"D") == 5


@pytest.mark.parametrize("formats", [[1], [0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                                     [0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
def test_result_formats_per_column(formats):
    """Binary for every type a client asks it for, arrays and numerics included, beside text."""
    sql = ("SELECT 1.5::float8 AS f, 42::int2 AS s, 'x y'::bytea AS b, '{\"a\": [1, 2]}'::jsonb AS j,"
           " interval '1 day 02:03:04' AS iv, date '2024-02-29' AS d,"
           " uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u, 'h\u00e9llo'::text AS t,"
           " '{{1,2},{3,4}}'::int[] AS a2, 12345.678::numeric(10,3) AS n, NULL::int8 AS nothing")
    got, want = both(parse("", sql), bind("", "", (), formats), describe(b"P", ""), execute(""), SYNC)
    assert got == want
    assert [t for t, _ in got] == [b"1", b"2", b"T", b"D", b"C", b"Z"]


def test_mixed_formats_over_a_table_with_parameters():
    sql = ("SELECT o.id, o.amount, o.note, o.created_at, c.name FROM orders o JOIN customers c"
           " ON c.id = o.customer_id WHERE o.id <= $1 ORDER BY o.id;")
    got, want = both(parse("", sql), bind("", "", [b"6"], [1, 1, 0, 1, 0]), describe(b"P", ""),
                     execute(""), SYNC)
    assert got == want
    assert sum(1 for t, _ in got if t == b"D") == 6


def without_bind_complete(msgs):
    return [m for m in msgs if m[0] != b"2"]


def test_wrong_number_of_result_formats_is_08P01():
    """Postgres refuses it at Bind; airlock, which learns the column count when the statement runs,
    at Execute unless the statement was described: the same error either way, then the session goes on."""
    got, want = both(parse("", "SELECT 1, 2, 3"), bind("", "", (), [1, 0]), execute(""), SYNC,
                     parse("", "SELECT 4"), bind("", ""), execute(""), SYNC)
    assert without_bind_complete(got) == without_bind_complete(want)
    assert (b"E", "08P01") in got and got[-1] == (b"Z", b"I")
    got, want = both(parse("d", "SELECT 1, 2, 3"), describe(b"S", "d"), SYNC, bind("", "d", (), [0, 0]),
                     execute(""), SYNC, bind("", "d", [b"1"]), execute(""), SYNC, bind("", "d", (), [1, 0, 1]),
                     execute(""), SYNC)
    assert got == want
    assert got.count((b"E", "08P01")) == 2


def test_portal_read_a_few_rows_at_a_time():
    """node pg-cursor: Execute with a row limit, PortalSuspended, more Executes, Close, then Sync."""
    sql = "SELECT id, note FROM orders WHERE id <= $1 ORDER BY id"
    msgs = [parse("", sql), bind("cur", "", [b"7"]), describe(b"P", "cur"), execute("cur", 3),
            (b"H", b"")]
    a, d = agent_conn(), direct_conn()
    try:
        for c in (a, d):
            for t, body in msgs:
                c.send_msg(t, body)
        def until(c, last):
            out = []
            while True:
                t, body = c.recv_msg()
                out.append((t, body))
                if t in last:
                    return normal(out)
        first = [until(c, (b"s", b"C", b"E")) for c in (a, d)]
        assert first[0] == first[1]
        assert [t for t, _ in first[0]] == [b"1", b"2", b"T", b"D", b"D", b"D", b"s"]
        for c in (a, d):
            c.send_msg(*execute("cur", 3))
            c.send_msg(b"H", b"")
        second = [until(c, (b"s", b"C", b"E")) for c in (a, d)]
        assert second[0] == second[1]
        assert [t for t, _ in second[0]] == [b"D", b"D", b"D", b"s"]
        for c in (a, d):
            c.send_msg(*execute("cur", 3))
            c.send_msg(b"H", b"")
        third = [until(c, (b"s", b"C", b"E")) for c in (a, d)]
        assert third[0] == third[1]
        assert third[0][-1] == (b"C", b"SELECT 1\0")
        for c in (a, d):
            c.send_msg(*close(b"P", "cur"))
        rest = [exchange(c, SYNC) for c in (a, d)]
        assert rest[0] == rest[1] == [(b"3", b""), (b"Z", b"I")]
    finally:
        a.close()
        d.close()


def test_portal_in_a_transaction_across_syncs():
    """PgJDBC setFetchSize: inside BEGIN, a named portal goes on after each Sync."""
    sql = "SELECT id FROM orders ORDER BY id LIMIT 10"
    msgs = [(b"Q", pgwire.cstr("BEGIN")), parse("", sql), bind("C_1", ""), describe(b"P", "C_1"),
            execute("C_1", 4), SYNC, execute("C_1", 4), SYNC, execute("C_1", 4), SYNC,
            execute("C_1", 4), SYNC, (b"Q", pgwire.cstr("COMMIT")), execute("C_1", 4), SYNC]
    a, d = agent_conn(), direct_conn()
    try:
        outs = []
        for c in (a, d):
            out = []
            for t, body in msgs:
                c.send_msg(t, body)
                if t in (b"S", b"Q"):
                    out += normal(c.recv_until_ready())
            outs.append(out)
        assert outs[0] == outs[1]
        kinds = [t for t, _ in outs[0]]
        assert kinds.count(b"s") == 2 and kinds.count(b"D") == 10
        # After COMMIT the portal is gone.
        assert (b"E", "34000") in outs[0]
    finally:
        a.close()
        d.close()


def test_unnamed_portal_ends_at_sync_outside_a_transaction():
    sql = "SELECT id FROM orders ORDER BY id"
    got, want = both(parse("", sql), bind("", ""), execute("", 2), SYNC, execute("", 2), SYNC)
    assert got == want
    assert (b"E", "34000") in got


def test_many_suspended_portals_then_the_session_goes_on():
    msgs = []
    for i in range(5):
        msgs += [parse("", "SELECT g FROM generate_series(1, 100) g"), bind("p%d" % i, ""),
                 execute("p%d" % i, 1)]
    for i in range(5):
        msgs += [execute("p%d" % i, 0), close(b"P", "p%d" % i)]
    msgs += [SYNC]
    got, want = both(*msgs)
    assert got == want
    assert sum(1 for t, _ in got if t == b"D") == 500


def test_changed_result_type_fails_as_postgres_fails_it():
    """A statement described, then its table changes: 0A000, never rows read against the old columns."""
    itest.super_query("CREATE SCHEMA IF NOT EXISTS plan_test; GRANT USAGE ON SCHEMA plan_test TO airlock_ro;"
                      " DROP TABLE IF EXISTS plan_test.shape_change;"
                      " CREATE TABLE plan_test.shape_change (v int); INSERT INTO plan_test.shape_change VALUES (1);"
                      " GRANT SELECT ON plan_test.shape_change TO airlock_ro")
    try:
        c = pgwire.Conn(HOST, PORT)
        assert c.login("planned", itest.AGENT_PASSWORD, "shop") is None
        d = direct_conn()
        sql = "SELECT * FROM plan_test.shape_change"
        for conn in (c, d):
            got = exchange(conn, parse("s", sql), describe(b"S", "s"), SYNC)
            assert [t for t, _ in got] == [b"1", b"t", b"T", b"Z"], got
        itest.super_query("ALTER TABLE plan_test.shape_change ALTER COLUMN v TYPE text")
        # Postgres finds out at Bind, airlock when the statement runs: no row either way.
        got = [exchange(conn, bind("", "s"), execute(""), SYNC) for conn in (c, d)]
        assert without_bind_complete(got[0]) == got[1] == [(b"E", "0A000"), (b"Z", b"I")]
        # Prepared again, it runs with the new columns.
        got = [exchange(conn, close(b"S", "s"), parse("s", sql), describe(b"S", "s"), bind("", "s"),
                        execute(""), SYNC) for conn in (c, d)]
        assert got[0] == got[1]
        assert (b"D", struct.pack("!hi", 1, 1) + b"1") in got[0]
        c.close()
        d.close()
    finally:
        itest.super_query("DROP TABLE IF EXISTS plan_test.shape_change")


def test_describe_of_a_portal_that_is_not_executed():
    """Bind, Describe of the portal, Sync (or Flush) with no Execute: the RowDescription still comes, before
    ReadyForQuery; executed later, the portal's rows come without a second one."""
    sql = "SELECT id, note FROM orders WHERE id <= $1 ORDER BY id"
    got, want = both(parse("", sql), bind("p", "", [b"2"], [1, 0]), describe(b"P", "p"), SYNC,
                     parse("", "SELECT * FROM staff_salaries"), bind("q", ""), describe(b"P", "q"), SYNC)
    assert got[:4] == want[:4] == [(b"1", b""), (b"2", b""), got[2], (b"Z", b"I")]
    assert got[2][0] == b"T" and [c[3] for c in got[2][1]] == [1, 0]
    assert (b"E", "42501") in got  # the hidden table, refused as always
    a, d = agent_conn(), direct_conn()
    try:
        outs = []
        for c in (a, d):
            for t, body in (parse("", sql), bind("p", "", [b"3"]), describe(b"P", "p"), (b"H", b"")):
                c.send_msg(t, body)
            first = []
            while not first or first[-1][0] != b"T":
                first.append(c.recv_msg())
            outs.append(normal(first) + exchange(c, execute("p"), SYNC))
        assert outs[0] == outs[1]
        assert [t for t, _ in outs[0]] == [b"1", b"2", b"T", b"D", b"D", b"D", b"C", b"Z"]
    finally:
        a.close()
        d.close()
