"""netns: network namespaces of the tests' own, as separate machines.

A Netns is a namespace made with `ip netns add`, its loopback up and
nothing else: a process started in it (`nsenter --net`) binds and reaches
only that namespace's 127.0.0.1. Forward joins two of them the way a
network would, with loopback addresses only: it listens on 127.0.0.1:PORT
in one namespace and carries each connection to 127.0.0.1:PORT in another
(a socket stays in the namespace it was made in, so one process can hold
both ends). None is the host's namespace, where the databases and the
container runtimes are.

Python 3.11 has no os.setns; libc's is called through ctypes, and only
ever for the calling thread, which is put back before anything else runs
on it."""

import ctypes
import os
import select
import socket
import subprocess
import sys
import threading

_libc = ctypes.CDLL("libc.so.6", use_errno=True)
CLONE_NEWNET = 0x40000000


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def in_netns(ns, fn):
    """fn() with this thread in ns (a Netns, or None for the host's), then back."""
    if ns is None:
        return fn()
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(ns.path, os.O_RDONLY)
    try:
        _setns(target)
        try:
            return fn()
        finally:
            _setns(home)
    finally:
        os.close(target)
        os.close(home)


class Netns:
    def __init__(self, name):
        self.name = name
        self.path = "/run/netns/" + name
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)
        subprocess.run(["ip", "netns", "add", name], check=True)
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)

    def command(self, argv):
        """argv run in this namespace only (mounts, pids and the rest are the host's)."""
        return ["nsenter", "--net=" + self.path] + list(argv)

    def delete(self):
        subprocess.run(["ip", "netns", "delete", self.name], capture_output=True)


def _listen(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    return s


def _pump(a, b):
    """Bytes both ways until both sides are done; each EOF passed on as a half close."""
    open_ = {a: b, b: a}
    try:
        while open_:
            ready, _, _ = select.select(list(open_), [], [], 300)
            if not ready:
                break
            for s in ready:
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if data:
                    try:
                        open_[s].sendall(data)
                    except OSError:
                        return
                else:
                    try:
                        open_[s].shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    del open_[s]
    finally:
        a.close()
        b.close()


class _Forwarder:
    """The forwarding itself, in a process of its own (see Forward)."""

    def __init__(self, src, listen_port, dest, dest_port):
        self.dest, self.dest_port = dest, dest_port
        self.sock = in_netns(src, lambda: _listen(listen_port))
        self.port = self.sock.getsockname()[1]

    def serve(self):
        while True:
            client, _ = self.sock.accept()
            try:
                upstream = in_netns(self.dest, lambda: socket.create_connection(("127.0.0.1", self.dest_port), 5))
            except OSError:
                client.close()  # as a refused connection looks from the other side
                continue
            threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()


class _Named:
    def __init__(self, path):
        self.path = path


class Forward:
    """127.0.0.1:listen_port in src carried to 127.0.0.1:dest_port in dest (None: the host's).

    It runs in a process of its own: a client in the test's process that
    blocks holding the interpreter's lock (psycopg2's cancel does) must not
    stop the bytes it waits for."""

    def __init__(self, src, listen_port, dest, dest_port):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), src.path if src else "-", str(listen_port),
             dest.path if dest else "-", str(dest_port)], stdout=subprocess.PIPE)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("forwarder to port %d did not start" % dest_port)
        self.port = int(line)

    def close(self):
        self.proc.kill()
        self.proc.wait()


if __name__ == "__main__":
    # Dies with the test that started it.
    _libc.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    args = sys.argv[1:]
    fwd = _Forwarder(_Named(args[0]) if args[0] != "-" else None, int(args[1]),
                     _Named(args[2]) if args[2] != "-" else None, int(args[3]))
    print(fwd.port, flush=True)
    fwd.serve()
