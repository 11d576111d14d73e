#!/usr/bin/env python3
"""soak: many clients at once against a private airlockd, on both
protocols, for a while: reads, refusals, truncations, timeouts, cancels,
catalog queries and reconnects, mixed at random. Samples airlockd's RSS and
descriptor count, and reports whether they stayed flat after the warm-up.

  integration/tests/soak.py [--seconds N] [--clients N]

test_soak.py runs it for 2 minutes in the suite; bench/soak.sh for an hour.
Needs what integration/test.sh sets up (the databases, the engine, the
runner image and the test config). It runs the release build of airlockd
(build/airlockd): under ASan the allocator's quarantine grows by design,
which would hide the trend this measures."""

import argparse
import contextlib
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import psycopg2  # noqa: E402
import pymysql  # noqa: E402

from itest import AGENT_PASSWORD, REPO  # noqa: E402
from private_airlockd import PrivateAirlockd  # noqa: E402

WARMUP_S = 30


class Soak:
    def __init__(self, seconds, clients, seed):
        self.seconds = seconds
        self.clients = clients
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts = {}
        self.unexpected = []
        self.samples = []  # (t, rss_kb, fds)
        self.d = PrivateAirlockd("soak", {"pool_min": 2, "kill_margin_ms": 1000}, uid_base=1000900000,
                                 binary=os.path.join(REPO, "build", "airlockd"))

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def bad(self, what, err):
        with self.lock:
            if len(self.unexpected) < 20:
                self.unexpected.append("%s: %r" % (what, err))
        self.count("unexpected")

    # ---- what one client does

    def pg(self, user="agent"):
        conn = psycopg2.connect(self.d.url(user=user), connect_timeout=20, sslmode="disable")
        conn.autocommit = True
        return conn

    @contextlib.contextmanager
    def pg_cur(self, user="agent"):
        """A cursor on a new connection, closed after (a reconnect per operation)."""
        conn = self.pg(user)
        try:
            with conn.cursor() as cur:
                yield conn, cur
        finally:
            conn.close()

    def my(self, user="agent"):
        return pymysql.connect(host="127.0.0.1", port=self.d.my_port, user=user, password=AGENT_PASSWORD,
                               database="shop", connect_timeout=20, read_timeout=60, autocommit=True)

    def op_pg_read(self, rng):
        with self.pg_cur() as (conn, cur):
            cur.execute("SELECT id, amount FROM orders WHERE id > %s ORDER BY id LIMIT %s",
                        (rng.randint(0, 1000), rng.randint(1, 50)))
            cur.fetchall()
            cur.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE n.nspname = 'public' ORDER BY 1")
            assert len(cur.fetchall()) >= 3
        return "pg read"

    def op_pg_refusal(self, rng):
        with self.pg_cur() as (conn, cur):
            try:
                cur.execute(rng.choice(["DELETE FROM orders", "SELECT * FROM staff_salaries",
                                        "SELECT pg_read_file('/etc/passwd')", "SELECT 1; SELECT 2"]))
            except psycopg2.Error as e:
                assert e.pgcode in ("25006", "42501", "42P01", "42601"), e
                return "pg refusal"
        raise AssertionError("a refusal ran")

    def op_pg_truncated(self, rng):
        with self.pg_cur("agent_small") as (conn, cur):
            cur.execute("SELECT id FROM orders ORDER BY id")
            assert len(cur.fetchall()) == 5
            assert any("RESULT_TRUNCATED" in n for n in conn.notices), conn.notices
        return "pg truncated"

    def op_pg_timeout(self, rng):
        with self.pg_cur("agent_small") as (conn, cur):
            try:
                cur.execute("SELECT pg_sleep(4)")
            except psycopg2.Error as e:
                assert e.pgcode == "57014", e
                return "pg timeout"
        raise AssertionError("pg_sleep(4) outlived a 2 s timeout")

    def op_pg_cancel(self, rng):
        conn = self.pg()
        try:
            timer = threading.Timer(rng.uniform(0.1, 0.8), conn.cancel)
            timer.start()
            with conn.cursor() as cur:
                try:
                    cur.execute("SELECT pg_sleep(5)")
                except psycopg2.Error as e:
                    assert e.pgcode == "57014", e
                    return "pg cancel"
            return "pg cancel (finished first)"
        finally:
            conn.close()

    def op_pg_session(self, rng):
        """One connection, several statements, a transaction block and a cursor."""
        conn = self.pg()
        conn.autocommit = False
        try:
            with conn.cursor() as cur:
                cur.execute("SET TimeZone = 'UTC'")
                cur.execute("DECLARE c CURSOR FOR SELECT id FROM orders ORDER BY id")
                cur.execute("FETCH 10 FROM c")
                assert len(cur.fetchall()) == 10
                cur.execute("CLOSE c")
            conn.commit()
        finally:
            conn.close()
        return "pg session"

    def op_my_read(self, rng):
        conn = self.my()
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT id, amount FROM orders WHERE id > %s ORDER BY id LIMIT %s",
                            (rng.randint(0, 1000), rng.randint(1, 50)))
                cur.fetchall()
                cur.execute("SHOW TABLES")
                assert len(cur.fetchall()) == 3
        finally:
            conn.close()
        return "mysql read"

    def op_my_refusal(self, rng):
        conn = self.my()
        try:
            with conn.cursor() as cur:
                try:
                    cur.execute(rng.choice(["DELETE FROM orders", "SELECT * FROM staff_salaries",
                                            "SELECT LOAD_FILE('/etc/passwd')", "SELECT 1; SELECT 2"]))
                except pymysql.err.MySQLError:
                    return "mysql refusal"
        finally:
            conn.close()
        raise AssertionError("a MySQL refusal ran")

    def op_my_truncated(self, rng):
        conn = self.my("agent_small")
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT id FROM orders ORDER BY id")
                assert len(cur.fetchall()) == 5
        finally:
            conn.close()
        return "mysql truncated"

    def op_bad_login(self, rng):
        try:
            psycopg2.connect(self.d.url(password="wrong"), connect_timeout=20, sslmode="disable")
        except psycopg2.OperationalError:
            return "bad login"
        raise AssertionError("a wrong password logged in")

    OPS = [(op_pg_read, 6), (op_pg_refusal, 3), (op_pg_truncated, 2), (op_pg_timeout, 1), (op_pg_cancel, 1),
           (op_pg_session, 2), (op_my_read, 5), (op_my_refusal, 3), (op_my_truncated, 2), (op_bad_login, 1)]

    def client(self, n):
        rng = random.Random(self.rng.random() + n)
        ops = [op for op, w in self.OPS for _ in range(w)]
        while not self.stop.is_set():
            op = rng.choice(ops)
            try:
                self.count(op(self, rng))
            except Exception as e:  # every outcome is counted; an unexpected one fails the soak
                # agent_small may run 2 statements at once: more wait in the queue, and past
                # queue_wait_ms get BUSY, as they should (whichever room was missing last).
                if "BUSY" in str(e) and op.__name__ in ("op_pg_truncated", "op_pg_timeout", "op_my_truncated"):
                    self.count("busy (agent_small's max_jobs)")
                elif "too many connections for this user" in str(e) or "max_connections" in str(e):
                    self.count("refused (agent_small's max_connections)")
                else:
                    self.bad(op.__name__, e)

    def sample(self):
        t0 = time.monotonic()
        while not self.stop.is_set():
            self.samples.append((time.monotonic() - t0, self.d.rss_kb(), self.d.fds()))
            self.stop.wait(2)

    def run(self):
        self.d.start()
        threads = [threading.Thread(target=self.client, args=(i,), daemon=True) for i in range(self.clients)]
        threads.append(threading.Thread(target=self.sample, daemon=True))
        for th in threads:
            th.start()
        time.sleep(self.seconds)
        self.stop.set()
        for th in threads:
            th.join(60)
        # Quiet: what remains is what airlockd keeps while idle.
        time.sleep(3)
        idle = (self.d.rss_kb(), self.d.fds())
        status = self.d.stop()
        clean = self.d.clean()
        return self.report(idle, status, clean)

    def report(self, idle, status, clean):
        warm = [s for s in self.samples if s[0] >= min(WARMUP_S, self.seconds / 3)]
        first = warm[: max(1, len(warm) // 10)]
        rss0 = sorted(s[1] for s in first)[len(first) // 2]
        fds0 = max(s[2] for s in first)
        out = {
            "seconds": self.seconds,
            "clients": self.clients,
            "outcomes": dict(sorted(self.counts.items())),
            "unexpected": self.unexpected,
            "rss_kb_after_warmup": rss0,
            "rss_kb_max": max(s[1] for s in warm),
            "rss_kb_idle_at_end": idle[0],
            "fds_after_warmup": fds0,
            "fds_max": max(s[2] for s in warm),
            "fds_idle_at_end": idle[1],
            "exit_status": status,
            "nothing_left": clean,
        }
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = Soak(a.seconds, a.clients, a.seed).run()
    print(json.dumps(r, indent=2))
    return 0 if not r["unexpected"] and r["nothing_left"] else 1


if __name__ == "__main__":
    sys.exit(main())
