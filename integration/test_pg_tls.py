"""TLS on the Postgres listener: a client that asks for it (SSLRequest) gets
it, with the certificate the config names (a local CA signs it for
127.0.0.1 and localhost in the test setup); clients that verify the server
(sslmode=verify-full) connect; a client that does not ask still connects
in the clear unless tls_required is on, when it is refused with 28000."""

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
    d = PrivateAirlockd("tlsreq", {"tls_required": "on", "pool_size": 0}, uid_base=1001000000)
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
