"""TLS on the MySQL listener: airlock offers CLIENT_SSL when TLS is
configured; a client's SSL request switches the connection to TLS before
the handshake response, which then arrives inside it. caching_sha2_password
over TLS takes the password as MySQL servers do (no RSA exchange). With
tls_required a login in the clear is refused with 3159."""

import os
import ssl
import subprocess

import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

CA = os.path.join(itest.STATE_DIR, "tls", "ca.crt")


def test_mysql_cli_over_verified_tls():
    args, env = itest.mysql_args()
    args = args[:-1] + ["--ssl", "--ssl-ca=" + CA, "--ssl-verify-server-cert", "-N", "-e",
                        "status; SELECT id FROM orders ORDER BY id LIMIT 2", args[-1]]
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Cipher in use is" in r.stdout, r.stdout
    assert r.stdout.rstrip().endswith("1\n2"), r.stdout


@pytest.mark.parametrize("user", ["agent", "agent_sha2"])
def test_pymysql_over_tls(user):
    ctx = ssl.create_default_context(cafile=CA)
    conn = pymysql.connect(host="127.0.0.1", port=itest.MY_PORT, user=user, password=itest.AGENT_PASSWORD,
                           database="shop", ssl=ctx, connect_timeout=10, autocommit=True)
    try:
        assert isinstance(conn._sock, ssl.SSLSocket)
        with conn.cursor() as cur:
            cur.execute("SELECT id, amount FROM orders ORDER BY id LIMIT 3")
            got = cur.fetchall()
        with itest.my_direct() as d, d.cursor() as cur:
            cur.execute("SELECT id, amount FROM orders ORDER BY id LIMIT 3")
            assert got == cur.fetchall()
        with pytest.raises(pymysql.err.MySQLError):
            with conn.cursor() as cur:
                cur.execute("DELETE FROM orders")
    finally:
        conn.close()


def test_application_confirms_tls_from_sql(my_agent):
    """SHOW SESSION STATUS LIKE 'Ssl_cipher' names the cipher the client negotiated (empty in the
    clear), as MariaDB answers; the server's own status stays refused."""
    ctx = ssl.create_default_context(cafile=CA)
    conn = pymysql.connect(host="127.0.0.1", port=itest.MY_PORT, user="agent", password=itest.AGENT_PASSWORD,
                           database="shop", ssl=ctx, connect_timeout=10, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            assert cur.fetchall() == (("Ssl_cipher", conn._sock.cipher()[0]),)
            cur.execute("SHOW STATUS WHERE Variable_name = 'Ssl_version'")
            assert cur.fetchall() == (("Ssl_version", conn._sock.version()),)
    finally:
        conn.close()
    with my_agent.cursor() as cur:
        cur.execute("SHOW STATUS LIKE 'Ssl_%'")
        assert cur.fetchall() == (("Ssl_cipher", ""), ("Ssl_version", ""))
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Threads_connected'")
    assert info.value.args[0] == 1227


def test_wrong_password_over_tls_is_1045():
    ctx = ssl.create_default_context(cafile=CA)
    with pytest.raises(pymysql.err.OperationalError) as e:
        pymysql.connect(host="127.0.0.1", port=itest.MY_PORT, user="agent", password="wrong", database="shop",
                        ssl=ctx, connect_timeout=10)
    assert e.value.args[0] == 1045, e.value


def plain_refused_tls_reads(port, user, sql, rows):
    """user's login in the clear gets 3159; over TLS (verified) it logs in and sql returns rows."""
    with pytest.raises(pymysql.err.OperationalError) as e:
        pymysql.connect(host="127.0.0.1", port=port, user=user, password=itest.AGENT_PASSWORD, database="shop",
                        connect_timeout=10)
    assert e.value.args[0] == 3159, e.value
    ctx = ssl.create_default_context(cafile=CA)
    conn = pymysql.connect(host="127.0.0.1", port=port, user=user, password=itest.AGENT_PASSWORD, database="shop",
                           ssl=ctx, connect_timeout=10)
    with conn.cursor() as cur:
        cur.execute(sql)
        assert cur.fetchall() == rows
    conn.close()


def test_tls_required_refuses_plain_mysql_logins():
    d = PrivateAirlockd("mytlsreq", {"tls_required": "on", "pool_min": 0}, uid_base=1001100000)
    d.start()
    try:
        plain_refused_tls_reads(d.my_port, "agent", "SELECT 1", ((1,),))
    finally:
        assert d.stop() in (0, -15)


def test_a_mysql_user_who_must_use_tls():
    plain_refused_tls_reads(itest.MY_PORT, "secure", "SELECT COUNT(*) FROM orders WHERE id < 3", ((2,),))
