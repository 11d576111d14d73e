"""Wire-level start-up and message handling, with a raw socket client
(pgwire), for what drivers do not show: the SSLRequest answer,
ParameterStatus, BackendKeyData, SQLSTATEs of start-up errors, the
extended protocol, and hostile frames."""

import os
import socket
import struct

import pytest

import itest
import pgwire

HOST, PORT, USER, PASSWORD, DB = pgwire.url_parts(itest.AGENT_URL)


def conn():
    return pgwire.Conn(HOST, PORT)


def logged_in():
    c = conn()
    err = c.login(USER, PASSWORD, DB)
    assert err is None, err
    return c


def test_ssl_request_answered_s_then_tls_handshake():
    """With TLS configured the answer is 'S', and what follows is a TLS handshake (test_pg_tls.py)."""
    import ssl
    with conn() as c:
        assert c.special_request(pgwire.SSL_REQUEST) == b"S"
        ctx = ssl.create_default_context(cafile=os.path.join(itest.STATE_DIR, "tls", "ca.crt"))
        c.sock = ctx.wrap_socket(c.sock, server_hostname="127.0.0.1")
        assert c.login(USER, PASSWORD, DB) is None
        assert c.status == b"I"


def test_gssenc_request_answered_n():
    with conn() as c:
        assert c.special_request(pgwire.GSSENC_REQUEST) == b"N"
        assert c.login(USER, PASSWORD, DB) is None


def test_parameter_status_and_key():
    with logged_in() as c:
        p = c.params
        assert p["server_version"].startswith("15.")
        assert p["client_encoding"] == "UTF8"
        assert p["server_encoding"] == "UTF8"
        assert p["DateStyle"] == "ISO, MDY"
        assert p["integer_datetimes"] == "on"
        assert p["standard_conforming_strings"] == "on"
        assert p["IntervalStyle"] == "postgres"
        for k in ("TimeZone", "is_superuser", "session_authorization",
                  "application_name", "default_transaction_read_only"):
            assert k in p, k
        assert p["is_superuser"] == "off"
        assert "airlock_ro" not in p.values()
        assert c.key is not None and c.key != (0, 0)


def test_keys_differ_per_connection():
    with logged_in() as a, logged_in() as b:
        assert a.key != b.key


def test_wrong_password_28P01():
    with conn() as c:
        err = c.login(USER, "wrong-secret", DB)
        assert err["C"] == "28P01"
        assert err["S"] == "FATAL"


def test_unknown_user_indistinguishable():
    with conn() as c:
        known = c.login(USER, "wrong-secret", DB)
    with conn() as c:
        unknown = c.login("nobody", "wrong-secret", DB)
        assert c.sasl_offered, "an unknown user must get the same SCRAM exchange"
    assert unknown["C"] == "28P01"
    assert unknown["M"].replace('"nobody"', '"X"') == known["M"].replace('"%s"' % USER, '"X"')


def test_unknown_database_3D000():
    with conn() as c:
        err = c.login(USER, PASSWORD, "nosuchdb")
        assert err is not None
        assert err["C"] == "3D000", err


def test_simple_query_messages():
    with logged_in() as c:
        msgs = c.query("SELECT id, note FROM orders WHERE id IN (9, 10) ORDER BY id")
        types = [t for t, _ in msgs]
        assert types == [b"T", b"D", b"D", b"C", b"Z"]
        assert msgs[3][1] == b"SELECT 2\0"
        # second DataRow: id 10, note NULL (length -1)
        body = msgs[2][1]
        (ncols,) = struct.unpack("!h", body[:2])
        assert ncols == 2
        (l1,) = struct.unpack("!i", body[2:6])
        assert body[6:6 + l1] == b"10"
        (l2,) = struct.unpack("!i", body[6 + l1:10 + l1])
        assert l2 == -1
        assert c.status == b"I"


def test_empty_query():
    with logged_in() as c:
        msgs = c.query("")
        assert [t for t, _ in msgs] == [b"I", b"Z"]


def test_begin_commit_tags_and_status():
    with logged_in() as c:
        msgs = c.query("BEGIN")
        assert (b"C", b"BEGIN\0") in msgs
        assert c.status == b"T"
        c.query("SELECT 1")
        assert c.status == b"T"
        msgs = c.query("SELECT * FROM staff_salaries")
        assert msgs[0][0] == b"E"
        assert c.status == b"E"
        msgs = c.query("ROLLBACK")
        assert (b"C", b"ROLLBACK\0") in msgs
        assert c.status == b"I"


def test_extended_query_unnamed():
    with logged_in() as c:
        sql = "SELECT id, amount FROM orders WHERE id = $1"
        c.send_msg(b"P", pgwire.cstr("") + pgwire.cstr(sql) + struct.pack("!hi", 1, 20))
        c.send_msg(b"B", pgwire.cstr("") + pgwire.cstr("") + struct.pack("!h", 0) +
                   struct.pack("!hi", 1, 1) + b"2" + struct.pack("!h", 0))
        c.send_msg(b"D", b"P" + pgwire.cstr(""))
        c.send_msg(b"E", pgwire.cstr("") + struct.pack("!i", 0))
        c.send_msg(b"S")
        msgs = c.recv_until_ready()
        types = [t for t, _ in msgs]
        assert types == [b"1", b"2", b"T", b"D", b"C", b"Z"], msgs
        assert msgs[4][1] == b"SELECT 1\0"
        assert b"0.74" in msgs[3][1]


def test_extended_error_discards_until_sync():
    with logged_in() as c:
        c.send_msg(b"P", pgwire.cstr("") + pgwire.cstr("SELECT * FROM staff_salaries") +
                   struct.pack("!h", 0))
        c.send_msg(b"B", pgwire.cstr("") + pgwire.cstr("") + struct.pack("!hhh", 0, 0, 0))
        c.send_msg(b"E", pgwire.cstr("") + struct.pack("!i", 0))
        c.send_msg(b"S")
        msgs = c.recv_until_ready()
        assert [t for t, _ in msgs] == [b"E", b"Z"], msgs
        assert pgwire.error_fields(msgs[0][1])["C"] == "42501"
        assert [t for t, _ in c.query("SELECT 1")] == [b"T", b"D", b"C", b"Z"]


def test_text_parameter_with_nul_is_22021():
    """A NUL byte in a text parameter: Postgres' own encoding error, and the session goes on."""
    with logged_in() as c:
        c.send_msg(b"P", pgwire.cstr("") + pgwire.cstr("SELECT $1::text") + struct.pack("!h", 0))
        value = b"a\x00b"
        c.send_msg(b"B", pgwire.cstr("") + pgwire.cstr("") + struct.pack("!hh", 0, 1) +
                   struct.pack("!i", len(value)) + value + struct.pack("!h", 0))
        c.send_msg(b"E", pgwire.cstr("") + struct.pack("!i", 0))
        c.send_msg(b"S")
        msgs = c.recv_until_ready()
        assert [t for t, _ in msgs] == [b"1", b"E", b"Z"], msgs
        assert pgwire.error_fields(msgs[1][1])["C"] == "22021"
        assert [t for t, _ in c.query("SELECT 1")] == [b"T", b"D", b"C", b"Z"]


def test_flush_answers_without_sync():
    with logged_in() as c:
        c.send_msg(b"P", pgwire.cstr("") + pgwire.cstr("SELECT 1") + struct.pack("!h", 0))
        c.send_msg(b"H")
        t, _ = c.recv_msg()
        assert t == b"1"
        c.send_msg(b"S")
        assert c.recv_until_ready()[-1][0] == b"Z"


def still_serving():
    with logged_in() as c:
        assert [t for t, _ in c.query("SELECT 1")] == [b"T", b"D", b"C", b"Z"]


def closed_or_error(c):
    """The server answers a bad frame with an ErrorResponse and/or closes."""
    c.sock.settimeout(5)
    try:
        first = c.sock.recv(1)
    except ConnectionResetError:
        return
    except socket.timeout:
        pytest.fail("no answer within 5 s: the server is still waiting for the frame")
    assert first in (b"", b"E"), first


def test_huge_startup_length_rejected():
    with conn() as c:
        c.send(struct.pack("!ii", 0x7FFFFFF0, pgwire.PROTOCOL_3))
        closed_or_error(c)
    still_serving()


def test_tiny_startup_length_rejected():
    with conn() as c:
        c.send(struct.pack("!i", 3))
        closed_or_error(c)
    still_serving()


def test_huge_message_length_rejected():
    with logged_in() as c:
        c.send(b"Q" + struct.pack("!i", 0x7FFFFFF0) + b"SELECT 1")
        closed_or_error(c)
    still_serving()


def test_unknown_message_type_rejected():
    with logged_in() as c:
        c.send_msg(b"\x01", b"junk")
        closed_or_error(c)
    still_serving()


def test_function_call_gets_an_error_and_the_session_goes_on():
    """FunctionCall ('F', fastpath): an ErrorResponse 0A000 and ReadyForQuery, as for a refused statement."""
    with logged_in() as c:
        # oid 1299 (now()), no argument formats, no arguments, text result
        c.send_msg(b"F", struct.pack("!Ihhh", 1299, 0, 0, 0))
        msgs = c.recv_until_ready()
        assert [t for t, _ in msgs] == [b"E", b"Z"]
        assert pgwire.error_fields(msgs[0][1])["C"] == "0A000"
        # Copy messages outside a COPY are ignored, as Postgres ignores them.
        c.send_msg(b"d", b"stray")
        c.send_msg(b"c")
        assert [t for t, _ in c.query("SELECT 1")] == [b"T", b"D", b"C", b"Z"]


def test_query_without_terminator_rejected():
    with logged_in() as c:
        c.send_msg(b"Q", b"SELECT 1")
        closed_or_error(c)
    still_serving()


def test_abrupt_disconnect_mid_query():
    for _ in range(3):
        c = logged_in()
        c.send_msg(b"Q", pgwire.cstr("SELECT pg_sleep(3)"))
        c.close()
    still_serving()


def test_cancel_with_wrong_key_is_ignored():
    with logged_in() as victim:
        pid, secret = victim.key
        s = socket.create_connection((HOST, PORT), timeout=5)
        s.sendall(struct.pack("!iiii", 16, pgwire.CANCEL_REQUEST, pid, secret ^ 1))
        s.close()
        msgs = victim.query("SELECT pg_sleep(1.5)")
        assert msgs[0][0] == b"T", msgs


@pytest.mark.parametrize("proto", [0x00020000, 0x00040000])
def test_unsupported_protocol_version(proto):
    with conn() as c:
        body = struct.pack("!i", proto) + pgwire.cstr("user") + pgwire.cstr(USER) + b"\0"
        c.send(struct.pack("!i", len(body) + 4) + body)
        closed_or_error(c)
    still_serving()


def test_prepared_statements_memory_is_capped():
    """Named statements a session keeps are capped in bytes (4 MiB), so many
    large Parse messages cannot grow the proxy without bound."""
    padding = "x" * (900 * 1024)
    sql = "SELECT 1 AS one -- " + padding
    with logged_in() as c:
        codes = []
        for i in range(6):
            c.send_msg(b"P", pgwire.cstr("big%d" % i) + pgwire.cstr(sql) + struct.pack("!h", 0))
            c.send_msg(b"S")
            msgs = c.recv_until_ready()
            codes.append(pgwire.error_fields(msgs[0][1])["C"] if msgs[0][0] == b"E" else "ok")
        assert codes[:4] == ["ok"] * 4
        assert codes[-1] == "53400", codes
        # Closing statements gives the room back.
        for i in range(4):
            c.send_msg(b"C", b"S" + pgwire.cstr("big%d" % i))
        c.send_msg(b"S")
        assert [t for t, _ in c.recv_until_ready()] == [b"3"] * 4 + [b"Z"]
        c.send_msg(b"P", pgwire.cstr("again") + pgwire.cstr(sql) + struct.pack("!h", 0))
        c.send_msg(b"S")
        assert [t for t, _ in c.recv_until_ready()] == [b"1", b"Z"]


def test_large_message_before_authentication_rejected():
    """Before authentication only SCRAM-sized messages (8 KiB) are taken, so
    unauthenticated connections cannot make the proxy buffer max_message_bytes
    each; the same size is fine once logged in."""
    with conn() as c:
        c.startup(USER, DB)
        t, _ = c.recv_msg()
        assert t == b"R"  # AuthenticationSASL
        # Only the header and a little of the body: refused on the length
        # alone, without waiting for (and buffering) the rest.
        c.send(b"p" + struct.pack("!i", 20004) + b"x" * 100)
        closed_or_error(c)
    with logged_in() as c:
        msgs = c.query("SELECT '%s' AS pad" % ("y" * 20000))
        assert [t for t, _ in msgs] == [b"T", b"D", b"C", b"Z"]
    still_serving()
