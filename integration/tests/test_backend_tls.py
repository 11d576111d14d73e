"""TLS from the runners to the databases (sslmode, sslrootcert).

The demo's backend accounts log in over TLS only (Postgres hostssl with a
hostnossl reject; MariaDB REQUIRE SSL), so every statement of the suite
proves the runners' TLS. Here: that it is TLS (pg_stat_ssl, the accounts'
refusal of plain text), and an impostor database on a loopback port, played
by this test, that the runner must refuse before it sends a byte of its
login: a certificate from another CA, a certificate of the right CA for
another name, a server that offers no TLS at all. verify-ca, which checks
no name, goes on with the right CA's certificate for another name: that is
the difference between the modes."""

import os
import socket
import ssl
import subprocess
import threading
import time

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port

UID_BASE = 1005300000
CA_DIR = os.path.join(itest.STATE_DIR, "tls")


# ---- the real databases ----

def test_postgres_statements_run_over_tls():
    """A statement's backend, seen from Postgres while it runs: TLS."""
    seen = []

    def watch():
        deadline = time.time() + 10
        while time.time() < deadline and not seen:
            out = itest.super_query(
                "SELECT s.ssl, s.version FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)"
                " WHERE a.usename = 'airlock_ro' AND a.query LIKE '%pg_sleep(1.5)%'"
                " AND a.pid <> pg_backend_pid()")
            seen.extend(tuple(line.split("|")) for line in out.splitlines())
            time.sleep(0.1)

    t = threading.Thread(target=watch)
    t.start()
    assert itest.fetch_all(itest.AGENT_URL, "SELECT pg_sleep(1.5)") == [("",)]
    t.join()
    assert seen and all(ssl_on == "t" for ssl_on, _ in seen), seen
    assert seen[0][1].startswith("TLSv1."), seen


def test_the_password_is_salted_once_for_a_targets_runners():
    """The first runner's shim salts the password for the server's SCRAM salt and names the salt in
    its 'B' frame; airlockd salts the password itself, once, and its later runners log in with that
    key: had it been wrong, the server would refuse their proofs."""
    d = PrivateAirlockd("scram_once", {"pool_min": 0}, uid_base=UID_BASE + 400,
                        sections={"target shop": {"keep_sessions": "off"}})
    d.start()
    try:
        for i in range(4):
            conn = d.connect()
            try:
                with conn.cursor() as cur:
                    cur.execute("SELECT id FROM orders WHERE id = %s", (i + 1,))
                    assert cur.fetchall() == [(i + 1,)]
            finally:
                conn.close()
        made = [ln for ln in d.log().splitlines() if "its password salted for its runners" in ln]
        assert len(made) == 1 and "target shop:" in made[0] and "4096 iterations" in made[0], made
    finally:
        d.stop()


def test_postgres_account_refuses_plain_text():
    with pytest.raises(psycopg2.OperationalError) as e:
        itest.connect(itest.with_params(itest.direct_url(), sslmode="disable"))
    assert "no encryption" in str(e.value) or "rejects connection" in str(e.value), e.value


def test_mariadb_statements_run_over_tls():
    """The account REQUIREs SSL: a statement through airlock works, a plain login of it does not."""
    assert itest.my_super_query(
        "SELECT DISTINCT ssl_type FROM mysql.user WHERE user IN ('airlock_ro', 'airlock_rw')") == "ANY"
    c = itest.my_connect(autocommit=True)
    try:
        with c.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM products")
            assert cur.fetchall() == ((200,),)
    finally:
        c.close()
    with pytest.raises(pymysql.err.OperationalError) as e:
        itest.my_direct(ssl=None)
    assert e.value.args[0] == 1045, e.value


# ---- an impostor database ----

def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """Certificates for the impostor: the demo CA's for another name, and a rogue CA's for 127.0.0.1."""
    d = tmp_path_factory.mktemp("impostor")

    def sign(name, san, ca_crt, ca_key):
        key, csr, crt, ext = (str(d / (name + s)) for s in (".key", ".csr", ".crt", ".ext"))
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name, "-keyout", key, "-out", csr)
        with open(ext, "w") as f:
            f.write("subjectAltName = %s\nextendedKeyUsage = serverAuth\n" % san)
        openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial", "-days", "2",
                "-extfile", ext, "-out", crt)
        return crt, key

    rogue_ca, rogue_key = str(d / "rogue-ca.crt"), str(d / "rogue-ca.key")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=rogue CA",
            "-keyout", rogue_key, "-out", rogue_ca)
    return {
        "other_name": sign("db.other.test", "DNS:db.other.test", os.path.join(CA_DIR, "ca.crt"),
                           os.path.join(CA_DIR, "ca.key")),
        "rogue": sign("rogue", "IP:127.0.0.1, DNS:localhost", rogue_ca, rogue_key),
    }


class Impostor:
    """A loopback server that plays a database up to the TLS handshake and
    keeps every byte it is sent after it (a login would be there)."""

    def __init__(self, engine, cert=None, offer_tls=True):
        self.engine, self.cert, self.offer_tls = engine, cert, offer_tls
        self.port = free_port()
        self.sock = socket.create_server(("127.0.0.1", self.port))
        self.sock.settimeout(0.5)
        self.after_tls = b""
        self.after_refusal = b""
        self.handshakes = 0
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()

    def run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            self.connections += 1
            conn.settimeout(3)
            try:
                self.serve(conn)
            except (OSError, ssl.SSLError):
                pass
            finally:
                conn.close()

    def read_rest(self, conn):
        data = b""
        try:
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        except (OSError, ssl.SSLError):
            pass
        return data

    def serve(self, conn):
        if self.engine == "postgres":
            req = conn.recv(8)
            assert req == b"\x00\x00\x00\x08\x04\xd2\x16\x2f", req
            if not self.offer_tls:
                conn.sendall(b"N")
                self.after_refusal += self.read_rest(conn)
                return
            conn.sendall(b"S")
        else:
            # A MariaDB greeting: protocol 10, version, thread id, scramble, capabilities.
            caps = 0x0200 | 0x8000 | 0x00080000 | (0x0800 if self.offer_tls else 0)
            body = (b"\x0a" + b"10.11.99-MariaDB\x00" + (7).to_bytes(4, "little") + b"abcdefgh\x00"
                    + (caps & 0xffff).to_bytes(2, "little") + b"\x21" + b"\x02\x00"
                    + (caps >> 16).to_bytes(2, "little") + b"\x15" + b"\x00" * 10 + b"ijklmnopqrst\x00"
                    + b"mysql_native_password\x00")
            conn.sendall(len(body).to_bytes(3, "little") + b"\x00" + body)
            if not self.offer_tls:
                self.after_refusal += self.read_rest(conn)
                return
            hdr = conn.recv(4)
            conn.recv(int.from_bytes(hdr[:3], "little"))
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*self.cert)
        tls = ctx.wrap_socket(conn, server_side=True)
        self.handshakes += 1
        self.after_tls += self.read_rest(tls)


def impostor_airlockd(name, impostor, sslmode, kept=False):
    target = {"host": "127.0.0.1", "port": impostor.port, "sslmode": sslmode,
              "sslrootcert": os.path.join(CA_DIR, "ca.crt") if sslmode.startswith("verify-") else None}
    section = "target shop" if impostor.engine == "postgres" else "target shop_maria"
    if impostor.engine == "postgres":
        # Who makes the TLS: the runner's shim, or airlockd for the sessions it keeps (keep_sessions).
        target["keep_sessions"] = "on" if kept else "off"
    return PrivateAirlockd(name, {"pool_min": 0}, uid_base=UID_BASE, sections={section: target})


def pg_error(d):
    conn = d.connect()
    try:
        with conn.cursor() as cur:
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("SELECT count(*) FROM products")
        return e.value
    finally:
        conn.close()


def my_error(d):
    c = pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=itest.AGENT_PASSWORD,
                        database="shop", connect_timeout=10, read_timeout=60, autocommit=True)
    try:
        with c.cursor() as cur:
            with pytest.raises(pymysql.err.MySQLError) as e:
                cur.execute("SELECT COUNT(*) FROM products")
        return e.value
    finally:
        c.close()


def refused(engine, impostor, sslmode, name):
    """The statement's error over engine's protocol against the impostor ("postgres_kept": airlockd's
    own TLS, keep_sessions)."""
    d = impostor_airlockd(name, impostor, sslmode, kept=engine == "postgres_kept")
    d.start()
    try:
        err = my_error(d) if engine == "mariadb" else pg_error(d)
        assert d.alive()
    finally:
        d.stop()
    assert d.clean(), (d.containers(), d.job_dirs())
    return err


def message(err):
    return (err.pgerror or str(err)) if isinstance(err, psycopg2.Error) else str(err.args)


ENGINES = ["postgres", "postgres_kept", "mariadb"]


def wire(engine):
    """The protocol an impostor for engine speaks ("postgres_kept" is Postgres, logged in to by airlockd)."""
    return "mariadb" if engine == "mariadb" else "postgres"


@pytest.mark.parametrize("engine", ENGINES)
def test_certificate_of_another_ca_is_refused(certs, engine):
    imp = Impostor(wire(engine), certs["rogue"])
    try:
        err = refused(engine, imp, "verify-full", "tlsrogue")
    finally:
        imp.close()
    text = message(err)
    assert "EXECUTION_FAILED" in text and "certificate failed its check" in text, text
    assert "unable to get local issuer certificate" in text or "self-signed" in text, text
    assert imp.connections >= 1
    # Nothing of the login reached it: no user name, no password proof.
    assert imp.after_tls == b"", imp.after_tls


@pytest.mark.parametrize("engine", ENGINES)
def test_certificate_for_another_name_is_refused_by_verify_full(certs, engine):
    imp = Impostor(wire(engine), certs["other_name"])
    try:
        err = refused(engine, imp, "verify-full", "tlsname")
    finally:
        imp.close()
    text = message(err)
    assert "certificate failed its check" in text and "mismatch" in text, text
    assert imp.after_tls == b"", imp.after_tls


@pytest.mark.parametrize("engine", ENGINES)
def test_verify_ca_checks_the_chain_only(certs, engine):
    """The same impostor, under verify-ca: the handshake passes and the login goes out."""
    imp = Impostor(wire(engine), certs["other_name"])
    try:
        refused(engine, imp, "verify-ca", "tlsca")
    finally:
        imp.close()
    assert imp.handshakes >= 1
    assert b"airlock_ro" in imp.after_tls, imp.after_tls


@pytest.mark.parametrize("engine", ENGINES)
def test_a_database_without_tls_gets_nothing(engine):
    """No fall back to plain text, in any mode: require included."""
    imp = Impostor(wire(engine), offer_tls=False)
    try:
        err = refused(engine, imp, "require", "tlsnone")
    finally:
        imp.close()
    text = message(err)
    assert "does not offer TLS" in text, text
    assert imp.after_refusal == b"", imp.after_refusal


# ---- an impostor that does not know the password ----

class ScramImpostor(Impostor):
    """A Postgres impostor that asks for SCRAM-SHA-256 after the handshake and
    then claims the login succeeded without knowing the password: a SASLFinal
    with a made-up signature (or none at all, with skip_final), then
    AuthenticationOk and ReadyForQuery. Whatever the client sends after that
    is kept: a statement there would have gone to a server that proved
    nothing."""

    def __init__(self, cert, skip_final=False):
        self.skip_final = skip_final
        self.after_ok = b""
        super().__init__("postgres", cert)

    @staticmethod
    def message(tls):
        head = b""
        while len(head) < 5:
            head += tls.recv(5 - len(head))
        body = b""
        n = int.from_bytes(head[1:5], "big") - 4
        while len(body) < n:
            body += tls.recv(n - len(body))
        return head[:1], body

    def serve(self, conn):
        assert conn.recv(8) == b"\x00\x00\x00\x08\x04\xd2\x16\x2f"
        conn.sendall(b"S")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*self.cert)
        tls = ctx.wrap_socket(conn, server_side=True)
        self.handshakes += 1
        n = int.from_bytes(tls.recv(4), "big")
        startup = b""
        while len(startup) < n - 4:
            startup += tls.recv(n - 4 - len(startup))

        def auth(code, data=b""):
            body = code.to_bytes(4, "big") + data
            tls.sendall(b"R" + (len(body) + 4).to_bytes(4, "big") + body)

        auth(10, b"SCRAM-SHA-256\x00\x00")
        _, first = self.message(tls)
        client_first = first[first.index(b"\x00") + 1 + 4:]
        nonce = client_first.split(b",r=", 1)[1]
        auth(11, b"r=" + nonce + b"impostor,s=QSXCR+Q6sek8bf92,i=4096")
        self.message(tls)
        if not self.skip_final:
            auth(12, b"v=" + b"A" * 43 + b"=")
        auth(0)
        tls.sendall(b"Z\x00\x00\x00\x05I")
        self.after_ok += self.read_rest(tls)


@pytest.mark.parametrize("engine", ["postgres", "postgres_kept"])
@pytest.mark.parametrize("skip_final", [False, True], ids=["forged-signature", "no-signature"])
def test_a_server_that_cannot_prove_the_password_gets_no_statement(certs, skip_final, engine):
    """Under require (no certificate check), only SCRAM's server signature tells
    the real database from one in the middle: the login stops there, the
    runner's own or airlockd's for the sessions it keeps."""
    imp = ScramImpostor(certs["rogue"], skip_final=skip_final)
    try:
        err = refused(engine, imp, "require", "tlsscram")
    finally:
        imp.close()
    text = message(err)
    assert "EXECUTION_FAILED" in text, text
    assert imp.handshakes >= 1
    assert imp.after_ok == b"", imp.after_ok
