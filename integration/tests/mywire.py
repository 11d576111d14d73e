"""mywire: a small MySQL client over a plain socket, for tests that need to
see packets a driver hides (the handshake, status flags in OK and EOF,
COM_FIELD_LIST, sequence ids, errors of hostile packets).

It speaks the 4.1 protocol without CLIENT_DEPRECATE_EOF (so result sets
and COM_FIELD_LIST end with EOF packets, as PyMySQL sees them) and
authenticates with mysql_native_password or caching_sha2_password (fast
path, or full authentication with the server's RSA public key).

A Conn owns its socket; close() releases it. Packets are (sequence id,
payload) pairs; parsed replies are Ok, Eof, Err and Result objects.
"""

import hashlib
import struct

import wire

CLIENT_LONG_PASSWORD = 0x1
CLIENT_LONG_FLAG = 0x4
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_SSL = 0x800
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_STATEMENTS = 0x10000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_PLUGIN_AUTH_LENENC = 0x200000
CLIENT_DEPRECATE_EOF = 0x1000000
CLIENT_QUERY_ATTRIBUTES = 0x8000000

DEFAULT_CAPS = (CLIENT_LONG_PASSWORD | CLIENT_LONG_FLAG | CLIENT_PROTOCOL_41 |
                CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_MULTI_RESULTS |
                CLIENT_PLUGIN_AUTH)

SERVER_STATUS_IN_TRANS = 0x1
SERVER_STATUS_AUTOCOMMIT = 0x2

COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_FIELD_LIST = 0x04
COM_STATISTICS = 0x09
COM_PING = 0x0E

UTF8MB4_GENERAL_CI = 45
MAX_PAYLOAD = 0xFFFFFF


class Err:
    def __init__(self, payload):
        assert payload[0] == 0xFF, payload[:1]
        (self.errno,) = struct.unpack("<H", payload[1:3])
        rest = payload[3:]
        self.sqlstate = ""
        if rest[:1] == b"#":
            self.sqlstate = rest[1:6].decode()
            rest = rest[6:]
        self.message = rest.decode(errors="replace")

    def __repr__(self):
        return "Err(%d, %r, %r)" % (self.errno, self.sqlstate, self.message)


class Ok:
    def __init__(self, payload):
        assert payload[0] in (0x00, 0xFE), payload[:1]
        self.affected_rows, pos = lenenc_int(payload, 1)
        self.insert_id, pos = lenenc_int(payload, pos)
        self.status, self.warnings = struct.unpack("<HH", payload[pos:pos + 4])
        self.info = payload[pos + 4:]

    def __repr__(self):
        return "Ok(status=%#x, warnings=%d)" % (self.status, self.warnings)


class Eof:
    def __init__(self, payload):
        assert payload[0] == 0xFE and len(payload) < 9, payload
        self.warnings, self.status = struct.unpack("<HH", payload[1:5])

    def __repr__(self):
        return "Eof(status=%#x, warnings=%d)" % (self.status, self.warnings)


class Column:
    """A column definition (Protocol::ColumnDefinition41)."""

    def __init__(self, payload, field_list=False):
        pos = 0
        parts = []
        for _ in range(6):
            s, pos = lenenc_str(payload, pos)
            parts.append(s.decode())
        (self.catalog, self.schema, self.table, self.org_table, self.name,
         self.org_name) = parts
        fixed, pos = lenenc_int(payload, pos)
        assert fixed == 0x0C, fixed
        (self.charset, self.length, self.type, self.flags,
         self.decimals) = struct.unpack("<HIBHB", payload[pos:pos + 10])
        pos += 12  # and two filler bytes
        self.default = None
        if field_list and pos < len(payload):
            if payload[pos] == 0xFB:
                pos += 1
            else:
                self.default, pos = lenenc_str(payload, pos)

    def key(self):
        """What must match the database's own definition."""
        return (self.schema, self.table, self.org_table, self.name, self.org_name,
                self.charset, self.length, self.type, self.flags, self.decimals)

    def __repr__(self):
        return "Column(%r, type=%d)" % (self.name, self.type)


class Result:
    """A text result set: columns, rows (lists of bytes or None), the final EOF
    (or the Err that ended it)."""

    def __init__(self, columns, rows, end):
        self.columns = columns
        self.rows = rows
        self.end = end

    def names(self):
        return [c.name for c in self.columns]


def lenenc_int(data, pos):
    first = data[pos]
    if first < 0xFB:
        return first, pos + 1
    if first == 0xFC:
        return struct.unpack("<H", data[pos + 1:pos + 3])[0], pos + 3
    if first == 0xFD:
        return int.from_bytes(data[pos + 1:pos + 4], "little"), pos + 4
    if first == 0xFE:
        return struct.unpack("<Q", data[pos + 1:pos + 9])[0], pos + 9
    raise AssertionError("bad length-encoded integer %#x" % first)


def lenenc_str(data, pos):
    n, pos = lenenc_int(data, pos)
    assert pos + n <= len(data), "length-encoded string runs past the packet"
    return data[pos:pos + n], pos + n


def lenenc(b):
    n = len(b)
    if n < 0xFB:
        return bytes([n]) + b
    if n < 0x10000:
        return b"\xfc" + struct.pack("<H", n) + b
    return b"\xfd" + n.to_bytes(3, "little") + b


def native_scramble(password, salt):
    """mysql_native_password: SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw)))."""
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(salt + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def sha2_scramble(password, salt):
    """caching_sha2_password fast path: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + salt)."""
    if not password:
        return b""
    h1 = hashlib.sha256(password.encode()).digest()
    h2 = hashlib.sha256(hashlib.sha256(h1).digest() + salt).digest()
    return bytes(a ^ b for a, b in zip(h1, h2))


def sha2_rsa_encrypt(password, salt, pem):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    pw = password.encode() + b"\0"
    xored = bytes(b ^ salt[i % len(salt)] for i, b in enumerate(pw))
    key = serialization.load_pem_public_key(pem)
    return key.encrypt(xored, padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()),
                                           algorithm=hashes.SHA1(), label=None))


class Handshake:
    def __init__(self, payload):
        self.protocol = payload[0]
        end = payload.index(b"\0", 1)
        self.server_version = payload[1:end].decode()
        pos = end + 1
        self.conn_id, = struct.unpack("<I", payload[pos:pos + 4])
        salt = payload[pos + 4:pos + 12]
        pos += 13  # 8 bytes of salt and a filler
        caps_lo, self.charset, self.status, caps_hi = struct.unpack("<HBHH", payload[pos:pos + 7])
        self.caps = caps_lo | (caps_hi << 16)
        pos += 7
        salt_len = payload[pos]
        pos += 11  # length byte and 10 reserved bytes
        if self.caps & CLIENT_SECURE_CONNECTION:
            n = max(13, salt_len - 8)
            part = payload[pos:pos + n]
            salt += part[:-1] if part.endswith(b"\0") else part
            pos += n
        self.salt = salt
        self.plugin = ""
        if self.caps & CLIENT_PLUGIN_AUTH:
            self.plugin = payload[pos:].split(b"\0")[0].decode()


ServerClosed = wire.ServerClosed


class Conn(wire.Conn):
    def __init__(self, host, port, timeout=15):
        super().__init__(host, port, timeout)
        self.handshake = None
        self.seq = 0
        self.server_public_key = None
        self.auth_plugin_used = None

    # -- framing

    def send_packet(self, payload, seq=None):
        """One packet (payload below 16 MiB); seq defaults to the next one."""
        if seq is None:
            seq = self.seq
        assert len(payload) < MAX_PAYLOAD
        self.send(len(payload).to_bytes(3, "little") + bytes([seq & 0xFF]) + payload)
        self.seq = (seq + 1) & 0xFF

    def recv_packet(self):
        head = self.recv_exact(4)
        length = int.from_bytes(head[:3], "little")
        assert length < MAX_PAYLOAD, "the test client does not join split packets"
        seq = head[3]
        payload = self.recv_exact(length)
        self.seq = (seq + 1) & 0xFF
        return seq, payload

    def recv_payload(self):
        return self.recv_packet()[1]

    # -- connection phase

    def read_handshake(self):
        seq, payload = self.recv_packet()
        assert seq == 0, seq
        if payload[:1] == b"\xff":
            raise AssertionError("server refused the connection: %r" % Err(payload))
        self.handshake = Handshake(payload)
        return self.handshake

    def auth_data(self, plugin, password, salt):
        if plugin == "mysql_native_password":
            return native_scramble(password, salt)
        if plugin == "caching_sha2_password":
            return sha2_scramble(password, salt)
        raise AssertionError("unexpected auth plugin %r" % plugin)

    def handshake_response(self, user, password, database=None, caps=DEFAULT_CAPS,
                           charset=UTF8MB4_GENERAL_CI):
        hs = self.handshake
        plugin = hs.plugin or "mysql_native_password"
        if database:
            caps |= CLIENT_CONNECT_WITH_DB
        auth = self.auth_data(plugin, password, hs.salt[:20])
        body = struct.pack("<IIB", caps, MAX_PAYLOAD, charset) + b"\0" * 23
        body += user.encode() + b"\0"
        body += bytes([len(auth)]) + auth
        if database:
            body += database.encode() + b"\0"
        body += plugin.encode() + b"\0"
        self.auth_plugin_used = plugin
        return body

    def login(self, user, password, database=None, caps=DEFAULT_CAPS,
              charset=UTF8MB4_GENERAL_CI, tls=None, server_hostname=None):
        """Handshake and authentication; with tls (an ssl.SSLContext) an
        SSLRequest first and the rest over TLS. Returns None when logged in,
        or the Err."""
        self.read_handshake()
        if tls is not None:
            caps |= CLIENT_SSL | (CLIENT_CONNECT_WITH_DB if database else 0)
            assert self.handshake.caps & CLIENT_SSL, "the server offers no TLS"
            self.send_packet(struct.pack("<IIB", caps, MAX_PAYLOAD, charset) + b"\0" * 23)
            self.sock = tls.wrap_socket(self.sock, server_hostname=server_hostname)
        self.send_packet(self.handshake_response(user, password, database, caps, charset))
        salt = self.handshake.salt[:20]
        plugin = self.auth_plugin_used
        while True:
            payload = self.recv_payload()
            kind = payload[:1]
            if kind == b"\x00":
                self.status = Ok(payload).status
                self.seq = 0
                return None
            if kind == b"\xff":
                self.seq = 0
                return Err(payload)
            if kind == b"\xfe":  # AuthSwitchRequest
                end = payload.index(b"\0", 1)
                plugin = payload[1:end].decode()
                salt = payload[end + 1:end + 21]
                self.auth_plugin_used = plugin
                self.send_packet(self.auth_data(plugin, password, salt))
            elif kind == b"\x01":  # AuthMoreData
                if plugin != "caching_sha2_password":
                    raise AssertionError("AuthMoreData for %s" % plugin)
                if payload[1:2] == b"\x03":  # fast authentication succeeded
                    continue
                if payload[1:2] == b"\x04":  # full authentication
                    self.send_packet(b"\x02")  # request the public key
                    key = self.recv_payload()
                    assert key[:1] == b"\x01", key[:1]
                    self.server_public_key = key[1:]
                    self.send_packet(sha2_rsa_encrypt(password, salt, key[1:]))
                    continue
                raise AssertionError("unexpected AuthMoreData %r" % payload[:8])
            else:
                raise AssertionError("unexpected packet at login: %r" % payload[:16])

    # -- command phase

    def command(self, cmd, arg=b"", seq=0):
        if isinstance(arg, str):
            arg = arg.encode()
        self.send_packet(bytes([cmd]) + arg, seq=seq)

    def read_reply(self):
        """Ok, Err, or a Result (columns, rows and the final Eof or Err)."""
        payload = self.recv_payload()
        if payload[:1] == b"\x00":
            return Ok(payload)
        if payload[:1] == b"\xff":
            return Err(payload)
        if payload[:1] == b"\xfb":
            raise AssertionError("LOCAL INFILE request")
        ncols, _ = lenenc_int(payload, 0)
        columns = [Column(self.recv_payload()) for _ in range(ncols)]
        eof = self.recv_payload()
        assert eof[:1] == b"\xfe" and len(eof) < 9, "no EOF after the column definitions"
        rows = []
        while True:
            payload = self.recv_payload()
            if payload[:1] == b"\xfe" and len(payload) < 9:
                return Result(columns, rows, Eof(payload))
            if payload[:1] == b"\xff":
                return Result(columns, rows, Err(payload))
            row, pos = [], 0
            while pos < len(payload):
                if payload[pos] == 0xFB:
                    row.append(None)
                    pos += 1
                else:
                    v, pos = lenenc_str(payload, pos)
                    row.append(v)
            rows.append(row)

    def query(self, sql):
        self.command(COM_QUERY, sql)
        return self.read_reply()

    def field_list(self, table, wild=b""):
        """COM_FIELD_LIST: (columns, Eof) or the Err."""
        self.command(COM_FIELD_LIST, table.encode() + b"\0" + wild)
        columns = []
        while True:
            payload = self.recv_payload()
            if payload[:1] == b"\xff":
                return Err(payload)
            if payload[:1] == b"\xfe" and len(payload) < 9:
                return columns, Eof(payload)
            columns.append(Column(payload, field_list=True))

    def ping(self):
        self.command(COM_PING)
        return self.read_reply()

    def init_db(self, db):
        self.command(COM_INIT_DB, db)
        return self.read_reply()

    def statistics(self):
        """COM_STATISTICS: the server's one-line status string (or an Err)."""
        self.command(COM_STATISTICS)
        payload = self.recv_payload()
        if payload[:1] == b"\xff":
            return Err(payload)
        return payload.decode(errors="replace")
