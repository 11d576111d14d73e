"""pgwire: a small Postgres frontend over a plain socket, for tests that
need to see protocol messages a driver hides (SSLRequest answers,
ParameterStatus, SQLSTATEs of startup errors, extended-protocol replies).

A Conn owns its socket; close() releases it. Messages are (type, body)
pairs with type a one-byte bytes object.
"""

import base64
import hashlib
import hmac
import os
import struct
from urllib.parse import unquote, urlsplit

import wire

PROTOCOL_3 = 196608
SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102


def url_parts(url):
    """(host, port, user, password, database) of a postgresql:// URL."""
    u = urlsplit(url)
    return (u.hostname, u.port or 5432, unquote(u.username or ""),
            unquote(u.password or ""), u.path.lstrip("/"))


def cstr(s):
    return s.encode() + b"\0"


def error_fields(body):
    """ErrorResponse / NoticeResponse body -> {field code: text}."""
    out = {}
    for part in body.split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode(errors="replace")
    return out


ServerClosed = wire.ServerClosed


class Conn(wire.Conn):
    def __init__(self, host, port, timeout=15):
        super().__init__(host, port, timeout)
        self.params = {}
        self.key = None
        self.status = None

    # -- framing

    def send_msg(self, mtype, body=b""):
        self.send(mtype + struct.pack("!i", len(body) + 4) + body)

    def recv_msg(self):
        head = self.recv_exact(5)
        (length,) = struct.unpack("!i", head[1:5])
        if length < 4 or length > 64 * 1024 * 1024:
            raise AssertionError("bad message length %d" % length)
        return head[:1], self.recv_exact(length - 4)

    def extended(self, sql, *values, type_oid=23):
        """sql run unnamed over Parse/Bind/Execute/Sync with text parameters
        (each of type_oid); the messages up to ReadyForQuery."""
        self.send_msg(b"P", cstr("") + cstr(sql) + struct.pack("!h", len(values)) +
                      b"".join(struct.pack("!I", type_oid) for _ in values))
        bind = cstr("") + cstr("") + struct.pack("!hh", 0, len(values))
        for v in values:
            bind += struct.pack("!i", len(v)) + v
        self.send_msg(b"B", bind + struct.pack("!h", 0))
        self.send_msg(b"E", b"\0" + struct.pack("!i", 0))
        self.send_msg(b"S", b"")
        return self.recv_until_ready()

    def recv_until_ready(self):
        """Messages up to and including ReadyForQuery."""
        msgs = []
        while True:
            t, body = self.recv_msg()
            msgs.append((t, body))
            if t == b"Z":
                self.status = body
                return msgs

    # -- startup

    def special_request(self, code):
        """SSLRequest / GSSENCRequest: returns the one-byte answer."""
        self.send(struct.pack("!ii", 8, code))
        return self.recv_exact(1)

    def start_tls(self, context, server_hostname):
        """SSLRequest, then TLS (an ssl.SSLContext's) on the socket; the server must agree."""
        answer = self.special_request(SSL_REQUEST)
        assert answer == b"S", answer
        self.sock = context.wrap_socket(self.sock, server_hostname=server_hostname)

    def startup(self, user, database, **params):
        body = struct.pack("!i", PROTOCOL_3) + cstr("user") + cstr(user)
        body += cstr("database") + cstr(database)
        for k, v in params.items():
            body += cstr(k) + cstr(v)
        body += b"\0"
        self.send(struct.pack("!i", len(body) + 4) + body)

    def login(self, user, password, database, **params):
        """Startup and authentication. Returns None when the session is
        ready, or the ErrorResponse fields. Records whether SASL was offered
        in self.sasl_offered."""
        self.startup(user, database, **params)
        self.sasl_offered = False
        scram = None
        while True:
            t, body = self.recv_msg()
            if t == b"E":
                return error_fields(body)
            if t == b"R":
                (code,) = struct.unpack("!i", body[:4])
                if code == 0:
                    continue
                if code == 10:
                    mechs = [m for m in body[4:].split(b"\0") if m]
                    assert b"SCRAM-SHA-256" in mechs, mechs
                    self.sasl_offered = True
                    scram = _Scram(password)
                    first = scram.client_first()
                    self.send_msg(b"p", cstr("SCRAM-SHA-256") +
                                  struct.pack("!i", len(first)) + first)
                elif code == 11:
                    self.send_msg(b"p", scram.client_final(body[4:]))
                elif code == 12:
                    scram.check_server_final(body[4:])
                elif code == 3:
                    self.send_msg(b"p", cstr(password))
                else:
                    raise AssertionError("unexpected auth request %d" % code)
            elif t == b"S":
                k, v = body.split(b"\0")[:2]
                self.params[k.decode()] = v.decode()
            elif t == b"K":
                self.key = struct.unpack("!ii", body)
            elif t == b"Z":
                self.status = body
                return None
            elif t == b"N":
                continue
            else:
                raise AssertionError("unexpected message %r at startup" % t)

    # -- queries

    def query(self, sql):
        self.send_msg(b"Q", cstr(sql))
        return self.recv_until_ready()


class _Scram:
    """Client side of SCRAM-SHA-256 (RFC 5802/7677), no channel binding."""

    def __init__(self, password):
        self.password = password.encode()
        self.nonce = base64.b64encode(os.urandom(18)).decode()

    def client_first(self):
        self.first_bare = "n=,r=" + self.nonce
        return ("n,," + self.first_bare).encode()

    def client_final(self, server_first):
        server_first = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
        assert attrs["r"].startswith(self.nonce), "server nonce must extend ours"
        salt = base64.b64decode(attrs["s"])
        salted = hashlib.pbkdf2_hmac("sha256", self.password, salt, int(attrs["i"]))
        client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
        stored_key = hashlib.sha256(client_key).digest()
        without_proof = "c=biws,r=" + attrs["r"]
        self.auth_message = ",".join([self.first_bare, server_first, without_proof]).encode()
        sig = hmac.new(stored_key, self.auth_message, hashlib.sha256).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        self.server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()

    def check_server_final(self, server_final):
        want = hmac.new(self.server_key, self.auth_message, hashlib.sha256).digest()
        got = server_final.decode()
        assert got == "v=" + base64.b64encode(want).decode(), "bad server signature"
