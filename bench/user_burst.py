"""bench/user_burst.py: one user's burst, timed: CLIENTS threads at once
(parallel tool calls, an ORM's pool), each running STATEMENTS statements.
With "fresh", each statement opens a connection of its own (the direct
baseline); otherwise each client keeps one connection. Prints one line:
label, wall time in ms, statements done and errors (the first on stderr).

    python3 bench/user_burst.py LABEL DSN CLIENTS STATEMENTS [fresh]
"""

import sys
import threading
import time

import psycopg2


def main():
    label, dsn, clients, statements = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    fresh = len(sys.argv) > 5 and sys.argv[5] == "fresh"
    done, errors = [0], []
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)

    def one(conn, i):
        with conn.cursor() as cur:
            cur.execute("SELECT %s::int", (i,))
            return cur.fetchone()[0] == i

    def client(n):
        conn = None if fresh else psycopg2.connect(dsn)
        if conn:
            conn.autocommit = True
        start.wait()
        for i in range(statements):
            try:
                if fresh:
                    c = psycopg2.connect(dsn)
                    c.autocommit = True
                    ok = one(c, n * statements + i)
                    c.close()
                else:
                    ok = one(conn, n * statements + i)
                with lock:
                    done[0] += ok
            except psycopg2.Error as e:
                with lock:
                    errors.append(str(e).splitlines()[0])
        if conn:
            conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    ms = (time.monotonic() - t0) * 1000
    print("%-16s median_ms=%.1f stmts=%d errors=%d" % (label, ms, done[0], len(errors)))
    if errors:
        print("%s: %d failed, first: %s" % (label, len(errors), errors[0]), file=sys.stderr)


if __name__ == "__main__":
    main()
