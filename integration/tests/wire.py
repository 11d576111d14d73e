"""wire: the socket plumbing the test clients of both protocols share
(pgwire.Conn and mywire.Conn build their framing on it).

A Conn owns its socket; close() (or leaving a with block) releases it.
"""

import socket


class ServerClosed(Exception):
    """The server closed the connection while a reply was being read."""


class Conn:
    def __init__(self, host, port, timeout=15):
        self.sock = socket.create_connection((host, port), timeout=timeout)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ServerClosed("server closed the connection")
            buf += chunk
        return buf
