"""itest: shared helpers for the integration tests: the connection URLs
test.sh exports, psql and superuser runners, and a snapshot of the shop
database to prove that refused statements changed nothing."""

import os
import subprocess
import time

import psycopg2

REPO = os.environ.get("AIRLOCK_REPO",
                      os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATE_DIR = "/var/lib/airlock-demo"
PW_FILE = os.environ.get("AIRLOCK_PW_FILE", STATE_DIR + "/shop.password")
JOB_DIR = os.environ.get("AIRLOCK_JOB_DIR", "/run/airlock/jobs")
POOL_SIZE = int(os.environ.get("AIRLOCK_POOL_SIZE", "0"))
AUDIT_LOG = os.environ.get("AIRLOCK_AUDIT_LOG", STATE_DIR + "/audit-test.log")

AGENT_URL = os.environ.get("AIRLOCK_PG_URL",
                           "postgresql://agent:agent-secret@127.0.0.1:6432/shop")
SMALL_URL = os.environ.get("AIRLOCK_SMALL_URL",
                           "postgresql://agent_small:agent-secret@127.0.0.1:6432/shop")

# Queries on the allowed tables whose output must match a direct connection.
QUERIES = [
    "SELECT id, amount FROM orders ORDER BY id LIMIT 3",
    "SELECT id, customer_id, amount, note, created_at FROM orders"
    " WHERE id BETWEEN 8 AND 12 ORDER BY id",
    "SELECT id, amount > 500 AS big, ARRAY[id, customer_id] AS ids,"
    " NULL::int AS nothing, note IS NULL AS no_note FROM orders ORDER BY id DESC LIMIT 4",
    "SELECT o.id, c.name, c.email, p.name AS product, p.price FROM orders o"
    " JOIN customers c ON c.id = o.customer_id JOIN products p ON p.id = o.id % 200 + 1"
    " WHERE o.id <= 5 ORDER BY o.id",
    "SELECT count(*), sum(amount), avg(amount)::numeric(12,4), min(created_at),"
    " max(created_at), count(note) FROM orders",
    "SELECT customer_id, count(*) AS n, sum(amount) AS total FROM orders"
    " WHERE customer_id <= 3 GROUP BY customer_id ORDER BY customer_id",
    "SELECT id, name FROM products WHERE id < 0",
    "VALUES (1, 'one', true), (2, NULL, false)",
    "SELECT 1.5::float8 AS f, 42::int2 AS s, 'x y'::bytea AS b,"
    " '{\"a\": [1, 2]}'::jsonb AS j, interval '1 day 02:03:04' AS iv,"
    " date '2024-02-29' AS d, uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u,"
    " 'h\u00e9llo \u2713'::text AS t, '{{1,2},{3,4}}'::int[] AS a2,"
    " ARRAY['a', NULL, 'c d'] AS ta",
    "SELECT email FROM customers WHERE id IN (49, 50, 51) ORDER BY id",
    "SELECT name, price FROM products ORDER BY price DESC, id LIMIT 5",
]


def backend_password():
    with open(PW_FILE) as f:
        return f.read().strip()


def direct_url():
    url = os.environ.get("AIRLOCK_DIRECT_URL")
    if url:
        return url
    return "postgresql://airlock_ro:%s@127.0.0.1:5432/shop" % backend_password()


def with_params(url, **params):
    sep = "&" if "?" in url else "?"
    return url + sep + "&".join("%s=%s" % kv for kv in params.items())


def connect(url, autocommit=False, **kw):
    kw.setdefault("connect_timeout", 10)
    conn = psycopg2.connect(url, **kw)
    conn.autocommit = autocommit
    return conn


def clean_env():
    """The environment without PG* variables, so only the URL counts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PGCONNECT_TIMEOUT"] = "10"
    return env


def psql(url, *commands, extra=(), timeout=60):
    """Runs the real psql with -c for each command; returns CompletedProcess."""
    args = ["psql", "-X", "-v", "ON_ERROR_STOP=1", *extra, url]
    for c in commands:
        args += ["-c", c]
    return subprocess.run(args, capture_output=True, text=True, env=clean_env(),
                          timeout=timeout, stdin=subprocess.DEVNULL)


def super_query(sql, db="shop"):
    """One value-per-line output of sql run as the postgres superuser."""
    r = subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-At",
                        "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                       capture_output=True, text=True, cwd="/", timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def db_snapshot():
    """Counts, a checksum of every table, the relations of every non-system
    schema, and airlock_ro's settings and privileges."""
    return super_query("""
        SELECT concat_ws(E'\\n',
          (SELECT count(*) FROM orders),
          (SELECT md5(string_agg(o::text, ',' ORDER BY id)) FROM orders o),
          (SELECT md5(string_agg(c::text, ',' ORDER BY id)) FROM customers c),
          (SELECT md5(string_agg(p::text, ',' ORDER BY id)) FROM products p),
          (SELECT md5(string_agg(s::text, ',' ORDER BY id)) FROM staff_salaries s),
          (SELECT last_value FROM orders_id_seq),
          (SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' ORDER BY 1)
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')),
          (SELECT string_agg(x, ',') FROM (SELECT unnest(setconfig) x FROM pg_db_role_setting
             WHERE setrole = 'airlock_ro'::regrole ORDER BY 1) s),
          (SELECT rolsuper::text || rolcreaterole::text || rolcreatedb::text FROM pg_roles
            WHERE rolname = 'airlock_ro'),
          (SELECT string_agg(table_name || ':' || privilege_type, ',' ORDER BY 1)
             FROM information_schema.role_table_grants WHERE grantee = 'airlock_ro'))
    """)


def wait_until(pred, secs, step=0.5):
    deadline = time.monotonic() + secs
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(step)


def lib_sh(function):
    """Runs one function of integration/lib.sh in bash; returns CompletedProcess."""
    script = 'set -euo pipefail; source "%s/integration/lib.sh"; %s' % (REPO, function)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)
