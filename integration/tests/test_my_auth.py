"""MySQL authentication: mysql_native_password for users with a
mysql_native verifier (agent), caching_sha2_password with the RSA
public-key exchange for users without one (agent_sha2, no TLS), and the
same 1045 for a wrong password and an unknown user.

The RSA test comes first in this file: it is the suite's first login of
agent_sha2, so airlock cannot have a cached fast-path entry for it yet."""

import pymysql
import pytest

import itest
import mywire


def count_orders(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders")
        return cur.fetchall()


def access_denied(**kw):
    with pytest.raises(pymysql.err.OperationalError) as info:
        itest.my_connect(**kw).close()
    errno, message = info.value.args
    assert errno == 1045, info.value.args
    if kw.get("user") != "airlock_ro":
        assert "airlock_ro" not in message
    return message


def test_sha2_full_authentication_with_rsa_key():
    """PyMySQL without TLS: fast path refused (no cached entry), so it asks
    for the server's public key and sends the password RSA-encrypted."""
    conn = itest.my_connect(user="agent_sha2")
    try:
        key = conn.server_public_key or b""
        assert key.startswith(b"-----BEGIN PUBLIC KEY-----"), key[:40]
        assert count_orders(conn) == ((200000,),)
        with conn.cursor() as cur:
            cur.execute("SELECT DATABASE()")
            assert cur.fetchall() == (("shop",),)
    finally:
        conn.close()


def test_sha2_second_connection():
    for _ in range(2):
        conn = itest.my_connect(user="agent_sha2", autocommit=True)
        try:
            assert count_orders(conn) == ((200000,),)
        finally:
            conn.close()


def test_sha2_raw_client_full_authentication():
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        err = c.login("agent_sha2", itest.AGENT_PASSWORD, "shop")
        assert err is None, err
        assert c.auth_plugin_used == "caching_sha2_password"
        r = c.query("SELECT COUNT(*) FROM customers")
        assert r.rows == [[b"1000"]]


def test_sha2_wrong_password():
    message = access_denied(user="agent_sha2", password="wrong-secret")
    assert "'agent_sha2'" in message


def test_native_password_login():
    conn = itest.my_connect(autocommit=True)
    try:
        assert count_orders(conn) == ((200000,),)
    finally:
        conn.close()


def test_native_raw_client():
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        err = c.login("agent", itest.AGENT_PASSWORD, "shop")
        assert err is None, err
        assert c.auth_plugin_used == "mysql_native_password"
        assert c.status & mywire.SERVER_STATUS_AUTOCOMMIT


def test_native_wrong_password():
    message = access_denied(password="wrong-secret")
    assert message.startswith("Access denied for user 'agent'@"), message
    assert "(using password: YES)" in message


def test_empty_password():
    message = access_denied(password="")
    assert message.startswith("Access denied for user 'agent'@"), message


def test_unknown_user_indistinguishable():
    known = access_denied(password="wrong-secret")
    unknown = access_denied(user="nobody", password="wrong-secret")
    assert unknown.replace("'nobody'", "'X'") == known.replace("'agent'", "'X'")


def test_unknown_user_raw_client_same_errno():
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        err = c.login("nobody", itest.AGENT_PASSWORD, "shop")
        assert isinstance(err, mywire.Err), err
        assert err.errno == 1045 and err.sqlstate == "28000", err


def sha2_first_login(user, password):
    """A raw login that starts with caching_sha2_password (as MySQL 8 clients do)."""
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        c.read_handshake()
        c.handshake.plugin = "caching_sha2_password"
        c.read_handshake = lambda: None
        err = c.login(user, password, "shop")
        return err, getattr(c, "server_public_key", None)


def test_unknown_user_caching_sha2_same_exchange():
    """Known user (wrong password) and unknown user both get full
    authentication, the public key, and then 1045."""
    known, known_key = sha2_first_login("agent", "wrong-secret")
    unknown, unknown_key = sha2_first_login("nobody", "wrong-secret")
    assert isinstance(known, mywire.Err) and known.errno == 1045, known
    assert isinstance(unknown, mywire.Err) and unknown.errno == 1045, unknown
    assert known_key and known_key == unknown_key


def test_sha2_cleartext_password_in_the_clear_is_refused():
    """Full authentication on a connection without TLS: the password itself, as a client sends it
    over TLS, is refused though it is the right one; in the clear only the RSA exchange carries it."""
    with mywire.Conn(itest.MY_HOST, itest.MY_PORT) as c:
        c.read_handshake()
        c.handshake.plugin = "caching_sha2_password"
        # A scramble of another password: the fast path fails, cached entry or not.
        c.send_packet(c.handshake_response("agent_sha2", "not-the-password", "shop"))
        more = c.recv_payload()
        assert more[:2] == b"\x01\x04", more[:8]  # full authentication
        c.send_packet(itest.AGENT_PASSWORD.encode() + b"\0")
        answer = c.recv_payload()
        assert answer[:1] == b"\xff", "a cleartext password in the clear logged in: %r" % answer[:16]
        assert mywire.Err(answer).errno == 1045, mywire.Err(answer)


def test_backend_account_cannot_log_in_to_airlock():
    """The backend account's name and password are not an airlock login."""
    access_denied(user="airlock_ro", password=itest.my_backend_password())


def test_login_to_database_not_allowed():
    with pytest.raises(pymysql.err.OperationalError) as info:
        itest.my_connect(database="mysql").close()
    errno, message = info.value.args
    assert errno in (1044, 1142), info.value.args
    assert "mysql" in message
