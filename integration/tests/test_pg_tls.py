"""TLS on the Postgres listener: a client that asks for it (SSLRequest) gets
it, with the certificate the config names (a local CA signs it for
127.0.0.1 and localhost in the test setup); clients that verify the server
(sslmode=verify-full) connect; a client that does not ask still connects
in the clear unless tls_required is on, when it is refused with 28000; a
reload reads the certificate files again."""

import os
import subprocess

import psycopg2
import pytest

import itest
from private_airlockd import PrivateAirlockd

TLS_DIR = os.path.join(itest.STATE_DIR, "tls")
CA = os.path.join(TLS_DIR, "ca.crt")
PORT = itest.AGENT_URL.rsplit(":", 1)[1].split("/")[0]


def psql(url, *commands):
    args = ["psql", "-X", "-At", url]
    for c in commands:
        args += ["-c", c]
    return subprocess.run(args, capture_output=True, text=True, env=itest.clean_env(), timeout=60)


@pytest.mark.parametrize("mode", ["require", "verify-ca", "verify-full"])
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_psql_over_tls(mode, host):
    url = "postgresql://agent:agent-secret@%s:%s/shop?sslmode=%s&sslrootcert=%s" % (host, PORT, mode, CA)
    r = psql(url, r"\conninfo", "SELECT id FROM orders ORDER BY id LIMIT 2")
    assert r.returncode == 0, r.stderr
    assert "SSL connection (protocol: TLSv1.3" in r.stdout or "SSL connection (protocol: TLSv1.2" in r.stdout, \
        r.stdout
    assert r.stdout.strip().endswith("1\n2"), r.stdout


def test_verify_full_refuses_a_certificate_it_cannot_trust():
    url = ("postgresql://agent:agent-secret@127.0.0.1:%s/shop?sslmode=verify-full"
           "&sslrootcert=/etc/ssl/certs/ca-certificates.crt" % PORT)
    r = psql(url, "SELECT 1")
    assert r.returncode != 0 and "certificate verify failed" in r.stderr, r.stderr


def test_psycopg2_over_tls_reads_refusals_notices_and_big_results():
    conn = psycopg2.connect(itest.AGENT_URL, sslmode="verify-full", sslrootcert=CA, connect_timeout=10)
    conn.autocommit = True
    try:
        assert conn.info.ssl_in_use
        with conn.cursor() as cur:
            cur.execute("SELECT id, amount FROM orders ORDER BY id LIMIT 3")
            direct = itest.fetch_all(itest.direct_url(), "SELECT id, amount FROM orders ORDER BY id LIMIT 3")
            assert cur.fetchall() == direct
            cur.execute("SELECT repeat('x', 1000) FROM generate_series(1, 900)")
            assert len(cur.fetchall()) == 900
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("DELETE FROM orders")
            assert e.value.pgcode == "25006"
    finally:
        conn.close()
    small = psycopg2.connect(itest.SMALL_URL, sslmode="require", connect_timeout=10)
    small.autocommit = True
    with small.cursor() as cur:
        cur.execute("SELECT id FROM orders")
        assert len(cur.fetchall()) == 5
    assert any("RESULT_TRUNCATED" in n for n in small.notices)
    small.close()


def test_wrong_password_over_tls_says_so():
    """The FATAL that ends a failed login reaches a TLS client before the connection closes."""
    with pytest.raises(psycopg2.OperationalError) as e:
        psycopg2.connect(itest.AGENT_URL.replace("agent-secret", "wrong"), sslmode="require", connect_timeout=10)
    assert 'password authentication failed for user "agent"' in str(e.value), e.value


def test_plain_connections_still_work_when_tls_is_optional():
    conn = psycopg2.connect(itest.AGENT_URL, sslmode="disable", connect_timeout=10)
    assert not conn.info.ssl_in_use
    conn.close()


def test_tls_required_refuses_plain_logins():
    d = PrivateAirlockd("tlsreq", {"tls_required": "on", "pool_min": 0}, uid_base=1001000000)
    d.start()
    try:
        with pytest.raises(psycopg2.OperationalError) as e:
            psycopg2.connect(d.url(), sslmode="disable", connect_timeout=10)
        assert "requires TLS" in str(e.value), e.value
        conn = psycopg2.connect(d.url(), sslmode="require", connect_timeout=10)
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == [(1,)]
        conn.close()
    finally:
        assert d.stop() in (0, -15)


def test_a_user_who_must_use_tls():
    """tls_required in a [user]: that user's plain logins are refused before any password, others go on."""
    url = itest.AGENT_URL.replace("agent:", "secure:")
    with pytest.raises(psycopg2.OperationalError) as e:
        psycopg2.connect(url, sslmode="disable", connect_timeout=10)
    assert "requires TLS for this user" in str(e.value), e.value
    conn = psycopg2.connect(url, sslmode="verify-full", sslrootcert=CA, connect_timeout=10)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders WHERE id < 3")
        assert cur.fetchall() == [(2,)]
    conn.close()
    conn = psycopg2.connect(itest.AGENT_URL, sslmode="disable", connect_timeout=10)
    conn.close()


def served_certificate(port):
    """The certificate a Postgres client gets after SSLRequest, as DER bytes (verified against the CA)."""
    import socket
    import ssl
    import struct

    ctx = ssl.create_default_context(cafile=CA)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        raw.sendall(struct.pack("!ii", 8, 80877103))
        assert raw.recv(1) == b"S"
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return tls.getpeercert(binary_form=True)


def make_certificate(directory, cn):
    """A key and a certificate for 127.0.0.1 signed by the suite's CA, in directory."""
    key, csr, crt, ext = (os.path.join(directory, n) for n in ("server.key", "server.csr", "server.crt", "ext.cnf"))
    with open(ext, "w") as f:
        f.write("subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n")
    for args in (["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + cn, "-keyout", key, "-out", csr],
                 ["x509", "-req", "-in", csr, "-CA", CA, "-CAkey", os.path.join(TLS_DIR, "ca.key"),
                  "-CAcreateserial", "-CAserial", os.path.join(directory, "ca.srl"), "-days", "30",
                  "-extfile", ext, "-out", crt]):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)
    os.chmod(key, 0o600)
    return crt, key


def test_a_renewed_certificate_is_served_after_reload(tmp_path):
    """SIGHUP reads the certificate files again: new connections get the renewed one, a session already in
    TLS goes on, and a pair that does not load refuses the reload and keeps the one in force."""
    import signal

    crt, key = make_certificate(str(tmp_path), "before")
    d = PrivateAirlockd("tlsreload", {"tls_cert_file": crt, "tls_key_file": key, "pool_min": 0},
                        uid_base=1001200000)
    d.start()
    try:
        first = served_certificate(d.pg_port)
        conn = psycopg2.connect(d.url(), sslmode="verify-full", sslrootcert=CA, connect_timeout=10)
        conn.autocommit = True
        make_certificate(str(tmp_path), "after")
        mark = len(d.log())  # the log file is appended to across runs: only what comes now counts
        d.signal(signal.SIGHUP)
        assert itest.wait_until(lambda: "read again" in d.log()[mark:], 10), d.log()
        second = served_certificate(d.pg_port)
        assert second != first
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == [(1,)]
        with open(crt, "w") as f:
            f.write("not a certificate\n")
        mark = len(d.log())
        d.signal(signal.SIGHUP)
        assert itest.wait_until(lambda: "reload refused: TLS" in d.log()[mark:], 10), d.log()
        assert served_certificate(d.pg_port) == second
        conn.close()
    finally:
        assert d.stop() in (0, -15)


def test_direct_tls_negotiation():
    """PostgreSQL 17's sslnegotiation=direct: TLS from the first byte, ALPN "postgresql", then the start-up
    packet inside it; the session is the same as after SSLRequest."""
    import ssl

    import pgwire

    ctx = ssl.create_default_context(cafile=CA)
    ctx.set_alpn_protocols(["postgresql"])
    c = pgwire.Conn("127.0.0.1", int(PORT))
    c.sock = ctx.wrap_socket(c.sock, server_hostname="127.0.0.1")
    try:
        assert c.sock.selected_alpn_protocol() == "postgresql"
        assert c.login("agent", itest.AGENT_PASSWORD, "shop") is None
        msgs = c.query("SELECT count(*) FROM orders WHERE id < 3")
        assert (b"D", b"\x00\x01\x00\x00\x00\x012") in msgs, msgs
    finally:
        c.close()
