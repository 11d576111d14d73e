"""bench/idle.py: the memory an idle authenticated connection costs a
server. Opens N Postgres connections (each logged in, then left idle) and
prints the server process's RSS before and with them, in kB, and per
connection.

    python3 bench/idle.py LABEL PID N CONNINFO
"""

import resource
import sys
import time

import psycopg2


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(next(ln for ln in f if ln.startswith("VmRSS:")).split()[1])


def main():
    label, pid, n, dsn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, n + 256), max(hard, n + 256)))
    before = rss_kb(pid)
    conns = []
    t0 = time.monotonic()
    for _ in range(n):
        conns.append(psycopg2.connect(dsn))
    took = time.monotonic() - t0
    time.sleep(2)
    with_them = rss_kb(pid)
    print("%-16s conns=%d rss_before_kb=%d rss_with_kb=%d per_conn_kb=%.2f connect_s=%.1f" % (
        label, n, before, with_them, (with_them - before) / n, took))
    for c in conns:
        c.close()


if __name__ == "__main__":
    main()
