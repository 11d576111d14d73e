"""MySQL wire level, with a raw socket client (mywire), for what drivers do
not show: the handshake, status flags in OK and EOF, COM_FIELD_LIST,
COM_PING, COM_STATISTICS, COM_QUIT, unknown commands, and hostile packets
(wrong sequence ids, oversized lengths, garbage instead of a handshake
response). After each hostile packet the proxy goes on serving others."""

import re
import socket
import struct

import pytest

import itest
import mywire

HOST, PORT = itest.MY_HOST, itest.MY_PORT
USER, PASSWORD = "agent", itest.AGENT_PASSWORD


def conn():
    return mywire.Conn(HOST, PORT)


def logged_in(user=USER, database="shop"):
    c = conn()
    err = c.login(user, PASSWORD, database)
    assert err is None, err
    return c


def direct():
    """MariaDB itself, as airlock_ro: over TLS (its account REQUIREs SSL)."""
    c = mywire.Conn(itest.MY_DIRECT_HOST, itest.MY_DIRECT_PORT)
    err = c.login("airlock_ro", itest.my_backend_password(), "shop", tls=itest.db_tls_context(),
                  server_hostname=itest.MY_DIRECT_HOST)
    assert err is None, err
    return c


def still_serving():
    with logged_in() as c:
        r = c.query("SELECT COUNT(*) FROM products")
        assert isinstance(r, mywire.Result), r
        assert r.rows == [[b"200"]]


def closed_or_error(c, secs=5):
    """The server answers a bad packet with an ERR packet and/or closes,
    within secs; returns the Err or None."""
    c.sock.settimeout(secs)
    try:
        head = c.sock.recv(4)
    except ConnectionResetError:
        return None
    except socket.timeout:
        pytest.fail("no answer within %d s: the server is still waiting for the packet" % secs)
    if head == b"":
        return None
    try:
        head += c.recv_exact(4 - len(head))
        payload = c.recv_exact(int.from_bytes(head[:3], "little"))
    except (mywire.ServerClosed, ConnectionResetError):
        pytest.fail("a partial packet, then the connection ended")
    assert payload[:1] == b"\xff", payload[:16]
    return mywire.Err(payload)


# ---------------------------------------------------------------- handshake

def test_handshake():
    with conn() as c:
        hs = c.read_handshake()
        assert hs.protocol == 10
        assert hs.server_version.startswith("8.0."), hs.server_version
        assert "MariaDB" not in hs.server_version
        assert hs.conn_id != 0
        assert len(hs.salt) == 20 and b"\0" not in hs.salt
        for cap in (mywire.CLIENT_PROTOCOL_41, mywire.CLIENT_SECURE_CONNECTION,
                    mywire.CLIENT_PLUGIN_AUTH, mywire.CLIENT_TRANSACTIONS,
                    mywire.CLIENT_CONNECT_WITH_DB):
            assert hs.caps & cap, hex(cap)
        assert hs.status & mywire.SERVER_STATUS_AUTOCOMMIT
        assert hs.plugin in ("mysql_native_password", "caching_sha2_password")


def test_connection_ids_and_salts_differ():
    with conn() as a, conn() as b:
        ha, hb = a.read_handshake(), b.read_handshake()
        assert ha.conn_id != hb.conn_id
        assert ha.salt != hb.salt


def test_login_sets_autocommit_status():
    with logged_in() as c:
        assert c.status & mywire.SERVER_STATUS_AUTOCOMMIT
        assert not c.status & mywire.SERVER_STATUS_IN_TRANS


# ---------------------------------------------------------------- results

def test_result_set_packets():
    with logged_in() as c:
        r = c.query("SELECT id, note FROM orders WHERE id IN (9, 10) ORDER BY id")
        assert isinstance(r, mywire.Result), r
        assert r.names() == ["id", "note"]
        assert r.rows == [[b"9", b"order 9"], [b"10", None]]
        assert isinstance(r.end, mywire.Eof)
        assert r.end.status & mywire.SERVER_STATUS_AUTOCOMMIT
        assert r.end.warnings == 0


def test_column_definitions_match_direct():
    sql = ("SELECT id, customer_id, amount, note, created_at, amount * 2 AS twice,"
           " CONCAT(note, '!') AS shout FROM orders WHERE id < 4 ORDER BY id")
    with logged_in() as c, direct() as d:
        via, ref = c.query(sql), d.query(sql)
        assert [col.key() for col in via.columns] == [col.key() for col in ref.columns]
        assert via.rows == ref.rows


def test_status_flags_with_autocommit_off():
    """With autocommit off the EOF after rows has IN_TRANS (as MariaDB's
    does) and COMMIT's OK clears it."""
    for make in (logged_in, direct):
        with make() as c:
            ok = c.query("SET autocommit=0")
            assert isinstance(ok, mywire.Ok), ok
            assert not ok.status & mywire.SERVER_STATUS_AUTOCOMMIT
            r = c.query("SELECT id FROM orders WHERE id = 1")
            assert r.end.status & mywire.SERVER_STATUS_IN_TRANS, (make, r.end)
            assert not r.end.status & mywire.SERVER_STATUS_AUTOCOMMIT
            ok = c.query("COMMIT")
            assert not ok.status & mywire.SERVER_STATUS_IN_TRANS, (make, ok)
            ok = c.query("START TRANSACTION")
            assert ok.status & mywire.SERVER_STATUS_IN_TRANS, (make, ok)
            ok = c.query("SET autocommit=1")
            assert ok.status & mywire.SERVER_STATUS_AUTOCOMMIT, (make, ok)
            assert not ok.status & mywire.SERVER_STATUS_IN_TRANS, (make, ok)


def test_refusal_is_err_packet():
    with logged_in() as c:
        err = c.query("SELECT * FROM staff_salaries")
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1142 and err.sqlstate == "42000", err
        assert itest.airlock_code(err.message) == "TABLE_NOT_ALLOWED", err
        err = c.query("DELETE FROM orders")
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1792 and err.sqlstate == "25006", err
        assert isinstance(c.ping(), mywire.Ok)


# ---------------------------------------------------------------- commands

def test_field_list_orders():
    with logged_in() as c, direct() as d:
        via = c.field_list("orders")
        ref = d.field_list("orders")
        assert not isinstance(via, mywire.Err), via
        columns, eof = via
        assert [col.name for col in columns] == ["id", "customer_id", "amount", "note",
                                                 "created_at"]
        assert [col.name for col in columns] == [col.name for col in ref[0]]
        assert [col.type for col in columns] == [col.type for col in ref[0]]
        assert all(col.table == "orders" and col.org_table == "orders" for col in columns)
        assert isinstance(eof, mywire.Eof)
        assert isinstance(c.ping(), mywire.Ok)


@pytest.mark.parametrize("table", ["staff_salaries", "STAFF_SALARIES"])
def test_field_list_hidden_table(table):
    with logged_in() as c:
        err = c.field_list(table)
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1142, err
        assert "staff_salaries" in err.message.lower()
        assert "airlock_ro" not in err.message
        r = c.query("SELECT 1")
        assert r.rows == [[b"1"]]


def test_ping():
    with logged_in() as c:
        ok = c.ping()
        assert isinstance(ok, mywire.Ok), ok
        assert ok.status & mywire.SERVER_STATUS_AUTOCOMMIT


def test_init_db():
    with logged_in(database=None) as c:
        assert isinstance(c.init_db("shop"), mywire.Ok)
        assert c.query("SELECT DATABASE()").rows == [[b"shop"]]
        err = c.init_db("mysql")
        assert isinstance(err, mywire.Err), err
        assert err.errno in (1044, 1142) and "mysql" in err.message, err
        assert c.query("SELECT DATABASE()").rows == [[b"shop"]]


def test_statistics():
    """COM_STATISTICS (the mysql CLI's \\s) answers a status line."""
    with logged_in() as c:
        text = c.statistics()
        assert isinstance(text, str), text
        # The CLI prints the first word as a label and the number after it
        # as the uptime: "Uptime: <seconds>  Threads: ...".
        assert re.match(r"Uptime: \d+ ", text), text
        assert isinstance(c.ping(), mywire.Ok)


def test_quit_closes():
    with logged_in() as c:
        c.command(mywire.COM_QUIT)
        c.sock.settimeout(5)
        assert c.sock.recv(16) == b""
    still_serving()


@pytest.mark.parametrize("cmd", [0x00, 0x40, 0x7F, 0xEE])
def test_unknown_command(cmd):
    with logged_in() as c:
        c.command(cmd, b"xyz")
        err = c.read_reply()
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1047, err
        assert isinstance(c.ping(), mywire.Ok)


def test_empty_query():
    with logged_in() as c:
        err = c.query("")
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1065, err
        assert isinstance(c.ping(), mywire.Ok)


# ---------------------------------------------------------------- hostile

@pytest.mark.parametrize("seq", [1, 5, 255])
def test_wrong_sequence_id(seq):
    """A command must start with sequence id 0."""
    with logged_in() as c:
        c.command(mywire.COM_QUERY, "SELECT 1", seq=seq)
        err = closed_or_error(c)
        if err is not None:
            assert err.errno in (1156, 1047, 1064, 1153) or err.sqlstate == "08S01", err
    still_serving()


def test_wrong_sequence_id_in_handshake_response():
    with conn() as c:
        c.read_handshake()
        c.send_packet(c.handshake_response(USER, PASSWORD, "shop"), seq=7)
        err = closed_or_error(c)
        assert err is None or err.errno != 0
    still_serving()


def test_oversized_packet_length():
    """A length above the proxy's limit is refused on the header alone,
    without waiting for (and buffering) the body."""
    with logged_in() as c:
        c.send((mywire.MAX_PAYLOAD - 1).to_bytes(3, "little") + b"\0" + b"\x03SELECT 1")
        closed_or_error(c)
    still_serving()


def test_split_packet_continuation_refused_or_bounded():
    """A 16 MiB - 1 packet announces a continuation; only the header and a
    little of the body are sent."""
    with logged_in() as c:
        c.send(mywire.MAX_PAYLOAD.to_bytes(3, "little") + b"\0" + b"\x03SELECT '" + b"x" * 1000)
        closed_or_error(c)
    still_serving()


def test_large_handshake_response_rejected():
    """Before authentication only small packets are taken."""
    with conn() as c:
        c.read_handshake()
        c.send((20004).to_bytes(3, "little") + b"\x01" + b"x" * 100)
        closed_or_error(c)
    still_serving()


def test_garbage_instead_of_handshake_response():
    with conn() as c:
        c.read_handshake()
        c.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        closed_or_error(c)
    still_serving()


def test_malformed_handshake_response():
    """A well-framed packet whose content is not a handshake response."""
    for payload in (b"\x01\x02junkjunk", b"", b"\x00" * 32, b"\xff" * 40):
        with conn() as c:
            c.read_handshake()
            c.send_packet(payload, seq=1)
            err = closed_or_error(c)
            if err is not None:
                assert err.errno != 0
    still_serving()


def test_truncated_handshake_response_then_close():
    with conn() as c:
        c.read_handshake()
        full = c.handshake_response(USER, PASSWORD, "shop")
        c.send(len(full).to_bytes(3, "little") + b"\x01" + full[:10])
    still_serving()


def test_client_speaks_first():
    """Bytes before the server's greeting: the greeting comes or the
    connection closes; either way the proxy goes on."""
    s = socket.create_connection((HOST, PORT), timeout=5)
    try:
        s.sendall(b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + b"\0" * 64)
        try:
            s.recv(4096)
        except (socket.timeout, ConnectionResetError):
            pass
    finally:
        s.close()
    still_serving()


def test_abrupt_disconnect_mid_query():
    for _ in range(3):
        c = logged_in()
        c.command(mywire.COM_QUERY, "SELECT SLEEP(3)")
        c.close()
    still_serving()


def test_malformed_field_list():
    """COM_FIELD_LIST without the table's terminating NUL."""
    with logged_in() as c:
        c.command(mywire.COM_FIELD_LIST, b"orders")
        payload = c.recv_payload()
        if payload[:1] == b"\xff":
            assert isinstance(c.ping(), mywire.Ok)
        else:
            while not (payload[:1] == b"\xfe" and len(payload) < 9):
                payload = c.recv_payload()
    still_serving()


def test_init_db_overlong_name():
    with logged_in() as c:
        err = c.init_db("x" * 300)
        assert isinstance(err, mywire.Err), err
        assert isinstance(c.ping(), mywire.Ok)


COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_CLOSE = 0x16, 0x17, 0x19


def prepare(c, sql):
    """COM_STMT_PREPARE; returns (stmt_id, nparams) or the Err."""
    c.command(COM_STMT_PREPARE, sql.encode())
    first = c.recv_payload()
    if first[0] == 0xFF:
        return mywire.Err(first)
    assert first[0] == 0x00, first
    stmt_id, ncols, nparams = struct.unpack("<IHH", first[1:9])
    for _ in range(nparams):
        c.recv_payload()  # parameter definitions
    if nparams:
        c.recv_payload()  # EOF: mywire does not negotiate DEPRECATE_EOF
    for _ in range(ncols):
        c.recv_payload()  # the statement's columns, as the backend described them
    if ncols:
        c.recv_payload()
    return stmt_id, nparams


def test_prepared_statement_errors():
    with logged_in() as c:
        stmt_id, nparams = prepare(c, "SELECT id FROM orders WHERE id = ?")
        assert nparams == 1
        # Session statements are for text queries; refusals come at PREPARE.
        err = prepare(c, "SET autocommit = 0")
        assert isinstance(err, mywire.Err) and err.errno == 1295, err
        err = prepare(c, "SELECT * FROM staff_salaries WHERE id = ?")
        assert isinstance(err, mywire.Err) and err.errno == 1142, err
        # A statement id that does not exist.
        c.command(COM_STMT_EXECUTE, struct.pack("<IBI", 999999, 0, 1))
        err = c.read_reply()
        assert isinstance(err, mywire.Err) and err.errno == 1243, err
        # A malformed execute (parameters missing) is refused, the session goes on.
        c.command(COM_STMT_EXECUTE, struct.pack("<IBI", stmt_id, 0, 1))
        err = c.read_reply()
        assert isinstance(err, mywire.Err) and err.errno == 1210, err
        # COM_STMT_CLOSE has no reply; executing the closed statement is an unknown id.
        c.command(COM_STMT_CLOSE, struct.pack("<I", stmt_id))
        c.command(COM_STMT_EXECUTE, struct.pack("<IBI", stmt_id, 0, 1) + b"\x00\x01\x08\x00" + struct.pack("<q", 1))
        err = c.read_reply()
        assert isinstance(err, mywire.Err) and err.errno == 1243, err
        assert isinstance(c.ping(), mywire.Ok)


def test_prepared_statements_are_capped_by_memory_not_count():
    """Hundreds of statements are fine (drivers prepare one per text); what they hold is capped
    at 4 MiB per session (1461, as the server's max_prepared_stmt_count), and CLOSE gives room back."""
    with logged_in() as c:
        for i in range(500):
            got = prepare(c, "SELECT %d AS n" % i)
            assert not isinstance(got, mywire.Err), (i, got)
        big = "SELECT 1 AS n -- " + "x" * (900 * 1024)
        ids = []
        for i in range(6):
            got = prepare(c, big)
            if isinstance(got, mywire.Err):
                break
            ids.append(got[0])
        assert isinstance(got, mywire.Err) and got.errno == 1461, got
        assert 3 <= len(ids) <= 4, len(ids)
        assert isinstance(c.ping(), mywire.Ok)


def test_nul_in_a_bound_string_under_no_backslash_escapes():
    """No escape writes a NUL under NO_BACKSLASH_ESCAPES: the value goes as a hex literal of the
    connection's character set, and reads (bytes, collation, comparison) as MariaDB reads it bound."""
    from test_my_world_sweep import binary_outcome

    sql = "SELECT HEX(?) AS h, COLLATION(?) AS c, ? = 'a' AS eq, LENGTH(?) AS n"
    value = "a\0b"
    got = {}
    for name, opened in (("airlock", logged_in), ("direct", direct)):
        with opened() as c:
            assert not isinstance(c.query("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'"), mywire.Err)
            got[name] = binary_outcome(c, sql, (value,) * 4)
    assert got["airlock"] == got["direct"], got
    assert got["airlock"][0] == "rows" and b"610062" in got["airlock"][2][0], got
