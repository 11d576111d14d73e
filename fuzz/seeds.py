#!/usr/bin/env python3
"""seeds: (re)writes the checked-in seed corpora under fuzz/corpus/ from
realistic inputs, so the fuzzers start from what clients really send.

  fuzz/seeds.py            with the test environment up (integration/test.sh
                           leaves Postgres, MariaDB and airlockd's config)
  fuzz/seeds.py --grammar  only the hand-written validator seeds, no database

What it gathers:
- every SQL string of the integration tests (Postgres ones for
  fuzz_validate_pg, MySQL ones for fuzz_validate_my, the latter under each
  policy-flag byte the target reads);
- the catalog queries psql sends for its backslash commands (psql -E) and
  those SQLAlchemy sends to reflect a schema, on both engines;
- whole client byte streams (psql, psycopg2, PyMySQL, the mysql CLI) as
  they reach airlockd, captured by a relay on loopback: for fuzz_pg_decode,
  fuzz_my_decode and fuzz_session (with its protocol byte);
- EXPLAIN (FORMAT JSON, VERBOSE) of the Postgres corpus, for fuzz_runner_plan;
- MariaDB's EXPLAIN rows and Last_query_cost of the MySQL corpus, for
  fuzz_runner_my_cost;
- the demo and test configurations, for fuzz_config;
- hand-written statements for every construct that holds a relation
  reference, and a few inputs near the size limit (fuzz/seeds_grammar.py),
  for fuzz_validate_pg and fuzz_validate_my.
- an audit log whose chain is intact, and the same with a torn last line,
  for fuzz_audit_verify (made here, with or without --grammar);
- a worker's records as the supervisor takes them (workers = N), for
  fuzz_audit_append (made here, with or without --grammar);
- rows of the shared store of held writes as Postgres hands them back
  (pending, approved by two, executed with its rows kept), for
  fuzz_state_row (made here, with or without --grammar);
- what a backend sends a kept session's client (a SCRAM login, a reset's
  answers after a canceled statement and after unread rows, a refused
  login), for fuzz_pg_client (made here, with or without --grammar).

Files are named by a hash of their content, so running it again adds only
what is new. The corpora are inputs, not code: they carry no secrets (the
captured logins use the suite's fixed test passwords)."""

import argparse
import ast
import glob
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading

import seeds_grammar  # fuzz/seeds_grammar.py, beside this script

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(REPO, "fuzz", "corpus")
STATE = "/var/lib/airlock-demo"
SQL_START = re.compile(r"\s*(SELECT|WITH|VALUES|TABLE|SHOW|SET|RESET|BEGIN|START|COMMIT|END|ROLLBACK|"
                       r"SAVEPOINT|RELEASE|DECLARE|FETCH|CLOSE|EXPLAIN|DESCRIBE|DESC|USE|DISCARD|COPY|"
                       r"INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|GRANT|LOCK|CALL|DO|PREPARE|EXECUTE|"
                       r"DEALLOCATE|LISTEN|NOTIFY|VACUUM|ANALYZE|TRUNCATE|KILL|HANDLER|LOAD)\b", re.I)
# fuzz_validate_my's first byte: policy flags (see fuzz_validate_my.c); the same statement under several.
MY_FLAGS = (0x00, 0x01, 0x02, 0x08, 0x80)
# Captured and gathered inputs larger than this are left out; the hand-written large seeds go up to
# LARGE_MAX, under the validators' 1 MiB (max_message_bytes' default).
GATHERED_MAX = 64 * 1024
LARGE_MAX = 512 * 1024


def put(target, data, limit=GATHERED_MAX):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > limit:
        return False
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, hashlib.sha1(data).hexdigest()[:16])
    if os.path.exists(path):
        return False
    with open(path, "wb") as f:
        f.write(data)
    return True


def test_strings():
    """(engine, sql) of every SQL-looking string constant in integration/tests/*.py."""
    out = set()
    for path in sorted(glob.glob(os.path.join(REPO, "integration", "tests", "*.py"))):
        name = os.path.basename(path)
        engine = "my" if name.startswith("test_my_") else "pg"
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id.startswith("MY_") for t in node.targets):
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                        out.add(("my", sub.value))
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_START.match(node.value):
                # Driver placeholders become a value, as the statement would reach airlock.
                out.add((engine, node.value.replace("%s", "1")))
    return sorted(out)


def psql_hidden_queries(url):
    cmds = [r"\d", r"\dt", r"\d orders", r"\d+ orders", r"\di", r"\ds", r"\dv", r"\dn", r"\df", r"\dT",
            r"\l", r"\du", r"\dx", r"\dp", r"\dC", r"\do", r"\d customers"]
    out = []
    for c in cmds:
        r = subprocess.run(["psql", "-X", "-E", "-c", c, url], capture_output=True, text=True, timeout=60)
        out += re.findall(r"\*{8} QUERY \*{9}\n(.*?)\n\*{26}", r.stdout, re.S)
    return out


def sqlalchemy_queries(url):
    try:
        import sqlalchemy
    except ImportError:
        return []
    seen = []
    eng = sqlalchemy.create_engine(url)

    @sqlalchemy.event.listens_for(eng, "before_cursor_execute")
    def grab(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement.replace("%(", "(").replace(")s", ")"))

    try:
        with eng.connect() as conn:
            insp = sqlalchemy.inspect(conn)
            for t in insp.get_table_names():
                insp.get_columns(t)
                insp.get_pk_constraint(t)
                insp.get_foreign_keys(t)
                insp.get_indexes(t)
    except Exception as e:  # a missing driver or server: the other sources still count
        print("seeds: sqlalchemy %s: %s" % (url.split("://")[0], e), file=sys.stderr)
    return seen


class Capture:
    """A loopback relay in front of port that keeps what clients send."""

    def __init__(self, port):
        self.port = port
        self.lst = socket.socket()
        self.lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lst.bind(("127.0.0.1", 0))
        self.lst.listen(8)
        self.streams = []
        threading.Thread(target=self.serve, daemon=True).start()

    @property
    def addr(self):
        return self.lst.getsockname()[1]

    def serve(self):
        while True:
            try:
                c, _ = self.lst.accept()
            except OSError:
                return
            threading.Thread(target=self.pipe, args=(c,), daemon=True).start()

    def pipe(self, c):
        s = socket.create_connection(("127.0.0.1", self.port))
        got = bytearray()
        self.streams.append(got)

        def back():
            while True:
                try:
                    b = s.recv(65536)
                except OSError:
                    b = b""
                if not b:
                    c.close()
                    return
                c.sendall(b)

        threading.Thread(target=back, daemon=True).start()
        while True:
            try:
                b = c.recv(65536)
            except OSError:
                b = b""
            if not b:
                s.close()
                return
            got += b
            s.sendall(b)


def capture_streams():
    pg, my = Capture(6432), Capture(3307)
    env = dict(os.environ, PGPASSWORD="agent-secret")
    pg_url = "postgresql://agent@127.0.0.1:%d/shop?sslmode=disable" % pg.addr
    for c in ["SELECT 1", r"\d orders", "SELECT id, amount FROM orders WHERE id < 4",
              "BEGIN; SELECT 1; COMMIT", "SET search_path = public; SHOW search_path"]:
        subprocess.run(["psql", "-X", "-c", c, pg_url], env=env, capture_output=True, timeout=60)
    try:
        import psycopg2
        conn = psycopg2.connect(pg_url.replace("agent@", "agent:agent-secret@"))
        cur = conn.cursor()
        cur.execute("SELECT id FROM orders WHERE id = %s AND note IS DISTINCT FROM %s", (3, "x"))
        cur.fetchall()
        cur.execute("DECLARE c CURSOR FOR SELECT id FROM orders")
        cur.execute("FETCH 3 FROM c")
        conn.rollback()
        conn.close()
    except Exception as e:
        print("seeds: psycopg2: %s" % e, file=sys.stderr)
    for c in ["SELECT 1", "SHOW TABLES", "SELECT id, amount FROM orders WHERE id < 4", "SELECT @@version_comment"]:
        subprocess.run(["mysql", "-h", "127.0.0.1", "-P", str(my.addr), "-u", "agent", "-pagent-secret",
                        "--skip-ssl", "shop", "-e", c], capture_output=True, timeout=60)
    try:
        import pymysql
        conn = pymysql.connect(host="127.0.0.1", port=my.addr, user="agent", password="agent-secret",
                               database="shop")
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders WHERE id = %s", (3,))
            cur.fetchall()
        conn.close()
    except Exception as e:
        print("seeds: pymysql: %s" % e, file=sys.stderr)
    return [bytes(s) for s in pg.streams if s], [bytes(s) for s in my.streams if s]


def explain_json(url, sqls):
    import psycopg2
    out = []
    conn = psycopg2.connect(url)
    conn.autocommit = True
    for sql in sqls:
        try:
            with conn.cursor() as cur:
                cur.execute("EXPLAIN (FORMAT JSON, VERBOSE) " + sql)
                out.append(cur.fetchone()[0])
        except Exception:
            pass
    conn.close()
    import json
    return [json.dumps(p) for p in out]


def explain_my_cost(password, sqls):
    """fuzz_runner_my_cost's input for each read: Last_query_cost, then one line a plan row
    (id, select_type, table, type, tab-separated, \\N for NULL)."""
    import pymysql
    out = []
    conn = pymysql.connect(host="127.0.0.1", port=3306, user="airlock_ro", password=password, database="shop")
    for sql in sqls:
        try:
            with conn.cursor() as cur:
                cur.execute("EXPLAIN " + sql)
                names = [d[0] for d in cur.description]
                rows = [[r[names.index(c)] for c in ("id", "select_type", "table", "type")] for r in cur.fetchall()]
                cur.execute("SHOW SESSION STATUS LIKE 'Last_query_cost'")
                lines = [cur.fetchone()[1]]
        except Exception:
            continue
        lines += ["\t".join("\\N" if v is None else str(v) for v in r) for r in rows]
        out.append("\n".join(lines).encode())
    conn.close()
    return out


def audit_logs():
    """A chained audit log as airlockd writes it (statement, failed login, held write), and it torn."""
    records = [
        {"ts": "2026-12-04T15:00:00.000Z", "user": "agent", "session": 1, "fingerprint": "00000000000000ab",
         "decision": "run", "rows": 1, "bytes": 10, "ms": 1.5, "protocol": "pg", "client": "127.0.0.1",
         "application_name": "psql"},
        {"ts": "2026-12-04T15:00:01.000Z", "user": "agent", "session": 2, "decision": "login_failed",
         "protocol": "mysql", "client": "", "sqlstate": "28000", "wait_ms": 0},
        {"ts": "2026-12-04T15:00:02.000Z", "user": "agent", "session": 3, "fingerprint": "0000000000000000",
         "decision": "held", "rows": 3, "bytes": 0, "ms": 0.123, "approval": "x1"},
    ]
    prev, lines = "0" * 64, []
    for r in records:
        line = json.dumps(dict(r, prev=prev), separators=(",", ":")).encode()
        lines.append(line)
        prev = hashlib.sha256(line).hexdigest()
    intact = b"\n".join(lines) + b"\n"
    return [intact, intact + b'{"ts":"2026-']


def worker_records():
    """Records as a worker sends them to the supervisor: one JSON object on one line, without "prev"."""
    records = [
        {"ts": "2026-12-05T10:00:00.000Z", "user": "agent", "session": 262145, "fingerprint": "00000000000000ab",
         "decision": "run", "rows": 1, "bytes": 10, "ms": 1.5, "protocol": "pg", "client": "127.0.0.1",
         "application_name": "psql", "config": "ab" * 32},
        {"ts": "2026-12-05T10:00:01.000Z", "user": "writer", "session": 3, "fingerprint": "0000000000000000",
         "decision": "held", "rows": 3, "bytes": 0, "ms": 0.123, "approval": "x1", "reason": "a \"quoted\" one"},
    ]
    return [json.dumps(r, separators=(",", ":")).encode() for r in records] + [b"{}"]


def state_rows():
    """Rows of airlock_approvals in fuzz_state_row's framing: each column a 2-byte length and its binary value."""
    import struct

    def row(status, approved_by, decided_by, executed_rows, result):
        cols = [b"wabcdefghijklmnopqrst", status.encode(), b"alice", b"postgres", b"10.0.0.7", b"psql",
                b"UPDATE t SET x = $1 WHERE id = 3", b'["1"]', b"UPDATE public.t SET x = $1 WHERE id = 3",
                b"Update on t", b'{"columns":["x"],"rows":[["0"]]}', struct.pack("!q", 1),
                struct.pack("!q", executed_rows), struct.pack("!q", 1700000000000),
                struct.pack("!q", 1700003600000), struct.pack("!q", 1700000001000 if decided_by else 0),
                struct.pack("!i", 2 if "," in approved_by else 1), approved_by.encode(), decided_by.encode(),
                b"", b"sha256:0123", b'{"search_path":"public"}', b"[25]", result.encode()]
        return b"".join(struct.pack("!H", len(c)) + c for c in cols)

    return [row("pending", "", "", -1, ""),
            row("approved", "grace,heidi", "grace,heidi", -1, ""),
            row("executed", "grace", "grace", 1, '["VAAB", "RAAB"]')]


def backend_streams():
    """What a Postgres backend sends a kept session's client (fuzz_pg_client): a SCRAM login to its
    ReadyForQuery, a reset's answers after a canceled statement, and one after rows left unread."""
    import struct

    def m(t, body):
        return t + struct.pack("!I", len(body) + 4) + body

    def status(k, v):
        return m(b"S", k + b"\0" + v + b"\0")

    ready = m(b"Z", b"I")
    login = (m(b"R", struct.pack("!I", 10) + b"SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0")
             + m(b"R", struct.pack("!I", 11) + b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                 b"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
             + m(b"R", struct.pack("!I", 12) + b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
             + m(b"R", struct.pack("!I", 0)) + status(b"server_version", b"15.8")
             + status(b"client_encoding", b"UTF8") + status(b"DateStyle", b"ISO, MDY")
             + status(b"standard_conforming_strings", b"on") + m(b"K", struct.pack("!II", 4242, 0xdeadbeef)) + ready)
    marker = b"airlock-reset-00112233445566778899aabbccddeeff"
    reset = (ready + m(b"C", b"ROLLBACK\0") + ready + m(b"C", b"DISCARD ALL\0") + ready
             + m(b"T", struct.pack("!H", 1) + b"?column?\0" + struct.pack("!IhIhih", 0, 0, 25, -1, -1, 0))
             + m(b"D", struct.pack("!HI", 1, len(marker)) + marker) + m(b"C", b"SELECT 1\0") + ready)
    canceled = m(b"E", b"SERROR\0VERROR\0C57014\0Mcanceling statement due to user request\0\0") + m(b"Z", b"E")
    rows = b"".join(m(b"D", struct.pack("!HI", 1, 5) + b"%05d" % i) for i in range(20))
    return [login, canceled + reset, rows + reset,
            m(b"E", b"SFATAL\0C28P01\0Mpassword authentication failed for user \"ro\"\0\0")]


def main():
    args = argparse.ArgumentParser(description="(re)writes the seed corpora under fuzz/corpus/")
    args.add_argument("--grammar", action="store_true", help="only the hand-written validator seeds")
    grammar_only = args.parse_args().grammar
    n = {}

    def add(target, data, limit=GATHERED_MAX):
        if put(target, data, limit):
            n[target] = n.get(target, 0) + 1

    for target, data in seeds_grammar.seeds():
        add(target, data, LARGE_MAX)
    for log in audit_logs():
        add("fuzz_audit_verify", log)
    for row in state_rows():
        add("fuzz_state_row", row)
    for record in worker_records():
        add("fuzz_audit_append", record)
    for stream in backend_streams():
        add("fuzz_pg_client", stream)
    if grammar_only:
        report(n)
        return
    strings = test_strings()
    pg_sql = [s for e, s in strings if e == "pg"]
    my_sql = [s for e, s in strings if e == "my"]
    with open(os.path.join(STATE, "shop.password")) as f:
        pg_direct = "postgresql://airlock_ro:%s@127.0.0.1:5432/shop" % f.read().strip()
    with open(os.path.join(STATE, "shop_maria.password")) as f:
        my_direct = "mysql+pymysql://airlock_ro:%s@127.0.0.1:3306/shop" % f.read().strip()
    pg_sql += psql_hidden_queries(pg_direct)
    pg_sql += sqlalchemy_queries(pg_direct.replace("postgresql://", "postgresql+psycopg2://"))
    my_sql += sqlalchemy_queries(my_direct)
    for s in pg_sql:
        add("fuzz_validate_pg", s)
    for s in my_sql:
        for flag in MY_FLAGS:
            add("fuzz_validate_my", bytes([flag]) + s.encode())
    for plan in explain_json(pg_direct, [s for s in pg_sql if re.match(r"\s*(SELECT|WITH)", s, re.I)]):
        add("fuzz_runner_plan", plan)
    with open(os.path.join(STATE, "shop_maria.password")) as f:
        my_password = f.read().strip()
    for plan in explain_my_cost(my_password, [s for s in my_sql if re.match(r"\s*(SELECT|WITH|VALUES|\()", s, re.I)]):
        add("fuzz_runner_my_cost", plan)
    pg_streams, my_streams = capture_streams()
    for s in pg_streams:
        add("fuzz_pg_decode", s)
        add("fuzz_session", bytes([0x00]) + s)
        add("fuzz_session", bytes([0x40]) + s)
    for s in my_streams:
        add("fuzz_my_decode", s)
        add("fuzz_session", bytes([0x01]) + s)
        add("fuzz_session", bytes([0x41]) + s)
    for path in [os.path.join(REPO, "conf", "airlock.example.ini"), os.path.join(STATE, "airlock-test.ini"),
                 os.path.join(STATE, "airlock.ini")]:
        if os.path.exists(path):
            with open(path, "rb") as f:
                add("fuzz_config", f.read())
    add("fuzz_config", webhook_config())
    report(n)


def webhook_config():
    """The example config with its webhook keys set (the example shows them commented out)."""
    with open(os.path.join(REPO, "conf", "airlock.example.ini"), "rb") as f:
        return re.sub(rb"^; (approval_webhook\w*) =", rb"\1 =", f.read(), flags=re.M)


def report(n):
    for target in sorted(n):
        print("seeds: %s: %d new" % (target, n[target]))


if __name__ == "__main__":
    main()
