"""The webhook of new held writes (approval_webhook): each write held for
approval is POSTed once, as JSON signed with HMAC-SHA256, to an
allowlisted receiver, here an HTTPS server of the test's own on 127.0.0.1
with the suite's certificate. A receiver that answers 500, redirects, is
slow or is down never stops the write from being held nor holds up other
sessions; a webhook the allowlist does not cover, or plain http to
another machine, keeps airlockd from starting."""

import hashlib
import hmac
import http.server
import json
import os
import re
import shutil
import ssl
import threading
import time

import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port
# The write_probe table this module's writer writes (autouse), and how a write is held.
from test_pg_approvals import hold, probe_table  # noqa: F401

TLS_DIR = os.path.join(itest.STATE_DIR, "tls")
CA = os.path.join(TLS_DIR, "ca.crt")
SECRET = "webhook-signing-key"
UID_BASE = 1003100000


class Receiver:
    """An HTTP(S) server on 127.0.0.1 that records each POST and answers as mode says:
    "ok" (200), "fail" (500), "redirect" (302 to elsewhere) or "slow" (20 s, then 200)."""

    def __init__(self, tls=True, redirect_to=None):
        self.posts = []
        self.mode = "ok"
        self.started = threading.Event()  # a request arrived (for the slow mode)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.posts.append({"path": self.path, "headers": dict(self.headers), "body": body})
                receiver.started.set()
                mode = receiver.mode
                if mode == "slow":
                    time.sleep(20)
                if mode == "redirect":
                    self.send_response(302)
                    self.send_header("Location", redirect_to or "https://127.0.0.1:1/")
                else:
                    self.send_response(500 if mode == "fail" else 200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                try:
                    self.wfile.write(b"{}")
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(os.path.join(TLS_DIR, "server.crt"), os.path.join(TLS_DIR, "server.key"))
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        if self.thread:
            self.server.shutdown()
            self.server.server_close()
            self.thread = None

    def bodies(self, approval):
        return [p for p in self.posts if approval.encode() in p["body"]]


def secret_file(name, mode=0o600):
    path = os.path.join(itest.STATE_DIR, "webhook-%s.key" % name)
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (SECRET + "\n").encode())
    os.close(fd)
    os.chmod(path, mode)
    return path


def webhook_instance(name, uid_base, **server):
    """An airlockd whose writer may write write_probe.items, with an approval listener and the webhook keys given."""
    store = os.path.join(itest.STATE_DIR, "approvals-%s.db" % name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.unlink(store + suffix)
    listen = free_port()
    values = {"pool_min": 0, "approval_store": store, "approval_listen": "127.0.0.1:%d" % listen}
    values.update(server)
    d = PrivateAirlockd(name, values, uid_base=uid_base, sections={"user writer": {
        "tables": "public.orders, write_probe.items, pg_catalog.*, information_schema.*",
        "write_tables": "write_probe.items"}})
    d.approval_port = listen
    return d


@pytest.fixture(scope="module")
def elsewhere():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(scope="module")
def receiver(elsewhere):
    r = Receiver(redirect_to="https://127.0.0.1:%d/elsewhere" % elsewhere.port)
    yield r
    r.close()


@pytest.fixture(scope="module")
def private(receiver):
    d = webhook_instance("webhook", UID_BASE, approval_webhook="https://127.0.0.1:%d/hooks/airlock" % receiver.port,
                         approval_webhook_hosts="127.0.0.1", approval_webhook_cacert=CA,
                         approval_webhook_secret_file=secret_file("webhook"))
    d.start()
    assert itest.wait_until(lambda: PrivateAirlockd.accepts(d.approval_port), 10, 0.1)
    yield d
    assert d.stop() in (0, -15)


def posted(receiver, approval, wait=20):
    assert itest.wait_until(lambda: receiver.bodies(approval), wait, 0.1), "no POST for %s" % approval
    return receiver.bodies(approval)


def logged(d, pattern, wait=20):
    return itest.wait_until(lambda: re.search(pattern, d.log()), wait, 0.2)


def test_a_held_write_is_announced_once(private, receiver):
    receiver.mode = "ok"
    sql = "UPDATE write_probe.items SET flag = 'say \"hi\" </script><b>&amp; \u202egnp.exe' WHERE id <= 2"
    approval = hold(private, sql)
    post = posted(receiver, approval)
    time.sleep(1)
    assert len(receiver.bodies(approval)) == 1
    post = post[0]
    assert post["path"] == "/hooks/airlock"
    assert post["headers"]["Content-Type"] == "application/json"
    body = post["body"]
    # The receiver can check the body came from this airlockd: HMAC-SHA256 of the exact bytes.
    want = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(post["headers"]["X-Airlock-Signature"], want)
    # Attacker text is escaped: no markup, no raw bidi override; it reads back exactly.
    for raw in (b"</script", b"<b>", b"&amp;", "\u202e".encode()):
        assert raw not in body, raw
    got = json.loads(body)
    assert got["event"] == "approval.pending" and got["id"] == approval
    assert got["user"] == "writer" and got["protocol"] == "postgres" and got["rows"] == 2
    assert got["statement"] == sql and got["statement_truncated"] is False
    assert got["expires_at"] > got["created_at"] > 0
    assert got["url"] == "https://127.0.0.1:%d/approval/%s" % (private.approval_port, approval)
    assert logged(private, r"approval webhook: %s delivered to 127\.0\.0\.1 \(HTTP 200\)" % approval)
    # The URL's path is never logged (it may hold a token).
    assert "/hooks/airlock" not in private.log()


def test_a_long_statement_is_cut(private, receiver):
    receiver.mode = "ok"
    sql = "UPDATE write_probe.items SET flag = '%s' WHERE id = 3" % ("\u00e9" * 700)
    approval = hold(private, sql)
    got = json.loads(posted(receiver, approval)[0]["body"])
    assert got["statement_truncated"] is True
    assert sql.startswith(got["statement"]) and len(got["statement"].encode()) <= 1000


def test_a_failing_receiver_does_not_stop_the_hold(private, receiver):
    receiver.mode = "fail"
    approval = hold(private, "UPDATE write_probe.items SET n = n + 1 WHERE id = 4")
    posted(receiver, approval)
    assert logged(private, r"approval webhook: %s to 127\.0\.0\.1 not accepted: HTTP 500" % approval)
    assert itest.super_query("SELECT n FROM write_probe.items WHERE id = 4") == "4"


def test_a_redirect_is_not_followed(private, receiver, elsewhere):
    receiver.mode = "redirect"
    approval = hold(private, "UPDATE write_probe.items SET n = n + 1 WHERE id = 5")
    posted(receiver, approval)
    assert logged(private, r"approval webhook: %s to 127\.0\.0\.1 not accepted: HTTP 302" % approval)
    assert not elsewhere.posts


def shown(conn, approval):
    with conn.cursor() as cur:
        cur.execute("SHOW airlock.approval '%s'" % approval)
        return dict(zip([c.name for c in cur.description], cur.fetchone()))


def test_a_slow_receiver_holds_up_no_session(private, receiver):
    receiver.mode = "slow"
    receiver.started.clear()
    other = itest.connect(private.url(user="writer", password="writer-secret"), autocommit=True)
    try:
        approval = hold(private, "UPDATE write_probe.items SET n = n + 1 WHERE id = 6")
        # The POST is in the receiver's hands, unanswered for 20 s; airlockd goes on meanwhile.
        assert receiver.started.wait(20)
        began = time.time()
        assert shown(other, approval)["status"] == "pending"
        assert time.time() - began < 8, "a statement waited for the webhook"
        with other.cursor() as cur:
            cur.execute("SELECT count(*) FROM write_probe.items")
            assert cur.fetchone()[0] == 6
        second = hold(private, "UPDATE write_probe.items SET n = n + 2 WHERE id = 6")
        assert second != approval
        # curl gives up after 10 s in all; that is logged, and the record is still pending.
        assert logged(private, r"approval webhook: %s to 127\.0\.0\.1 not delivered" % approval, 30)
        assert shown(other, approval)["status"] == "pending"
    finally:
        other.close()
        receiver.mode = "ok"


def test_a_receiver_that_is_down_does_not_stop_the_hold(private, receiver):
    receiver.close()
    began = time.time()
    approval = hold(private, "UPDATE write_probe.items SET n = n + 1 WHERE id = 1")
    assert time.time() - began < 60
    assert logged(private, r"approval webhook: %s to 127\.0\.0\.1 not delivered: .*(refused|connect)" % approval)


def refuses_to_start(name, uid_base, pattern, **server):
    d = webhook_instance(name, uid_base, **server)
    d.start(wait=False)
    try:
        assert itest.wait_until(lambda: not d.alive(), 20)
        assert d.proc.returncode != 0
        assert re.search(pattern, d.log()), d.log()
    finally:
        if d.alive():
            d.kill()
        shutil.rmtree(d.job_dir, ignore_errors=True)


def test_a_host_not_allowlisted_is_a_config_error():
    refuses_to_start("webhookhost", UID_BASE + 2000,
                     r"approval_webhook: the host hooks\.example\.com is not in approval_webhook_hosts",
                     approval_webhook="https://hooks.example.com/airlock", approval_webhook_hosts="127.0.0.1")


def test_http_to_another_machine_is_a_config_error():
    refuses_to_start("webhookhttp", UID_BASE + 4000, r"approval_webhook: http:// is allowed only to a loopback",
                     approval_webhook="http://10.0.0.7/airlock", approval_webhook_hosts="10.0.0.7")


def test_a_key_others_may_read_is_a_config_error():
    refuses_to_start("webhookkey", UID_BASE + 6000,
                     r"approval_webhook_secret_file .* is open to its group or others",
                     approval_webhook="https://127.0.0.1:1/airlock", approval_webhook_hosts="127.0.0.1",
                     approval_webhook_secret_file=secret_file("webhookkey", 0o644))
