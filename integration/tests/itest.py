"""itest: shared helpers for the integration tests: the connection URLs and
addresses test.sh exports, psql / mysql CLI and superuser runners, and
snapshots of the Postgres and MariaDB shop databases to prove that refused
statements changed nothing."""

import json
import os
import re
import ssl
import subprocess
import time

import psycopg2

REPO = os.environ.get("AIRLOCK_REPO",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STATE_DIR = "/var/lib/airlock-demo"
PW_FILE = os.environ.get("AIRLOCK_PW_FILE", STATE_DIR + "/shop.password")
JOB_DIR = os.environ.get("AIRLOCK_JOB_DIR", "/run/airlock/jobs")
POOL_SIZE = int(os.environ.get("AIRLOCK_POOL_SIZE", "0"))
# Warm pools are kept per target and resource shape: the test config has two
# (shop on Postgres, shop_maria on MariaDB, one shape each), so at most
# WARM_MAX warm runner containers may remain after the suite.
POOL_SHAPES = int(os.environ.get("AIRLOCK_POOL_SHAPES", "1"))
WARM_MAX = POOL_SIZE * POOL_SHAPES
AUDIT_LOG = os.environ.get("AIRLOCK_AUDIT_LOG", STATE_DIR + "/audit-test.log")
# The demo CA (integration/tools/lib.sh, tls_files). It signs the databases'
# certificate too: Postgres and MariaDB take the backend accounts'
# (airlock_ro, airlock_rw) logins over TLS only, so every direct connection
# as one of them uses TLS (libpq's default sslmode=prefer does; the others
# are told here).
DB_CA = os.environ.get("AIRLOCK_DB_CA", STATE_DIR + "/tls/ca.crt")
# The runtime of the airlockd under test: "oci" (runc run directly) or "docker".
RUNTIME = os.environ.get("AIRLOCK_RUNTIME", "docker")
OCI_RUNTIME = os.environ.get("AIRLOCK_OCI_RUNTIME", "/usr/bin/crun")
# Under a job_dir, the OCI runtime's state, bundles and root filesystem.
OCI_STATE = ".oci"
# The lock one airlockd holds on its job_dir.
LOCK_FILE = ".airlockd.lock"


def oci_root(job_dir=JOB_DIR):
    return os.path.join(job_dir, OCI_STATE, "runtime")


def oci_list(job_dir=JOB_DIR, runtime=None):
    """The OCI runtime's containers of the airlockd whose job_dir this is: [{id, pid, status, ...}].
    runtime: the binary that airlockd runs (OCI_RUNTIME unless given)."""
    runtime = runtime or OCI_RUNTIME
    root = oci_root(job_dir)
    if not os.path.isdir(root) or not os.access(runtime, os.X_OK):
        return []
    # `list` reads each container's state file and fails when one is being
    # deleted under it: that is a moment, not an answer, so ask again.
    for attempt in range(20):
        r = subprocess.run([runtime, "--root", root, "list", "--format", "json"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 0:
            return [c for c in (json.loads(r.stdout) or []) if c["id"].startswith("airlock-")]
        time.sleep(0.05)
    raise AssertionError("%s list failed 20 times: %s" % (runtime, r.stderr.strip()))


def runner_containers(job_dir=JOB_DIR, running_only=False, runtime=None):
    """Ids of the runner containers of the airlockd with this job_dir, on the runtime under test
    (runtime: the OCI binary, when not OCI_RUNTIME)."""
    if RUNTIME == "oci":
        return [c["id"] for c in oci_list(job_dir, runtime) if not running_only or c["status"] == "running"]
    args = ["docker", "ps", "-q", "--filter", "label=airlock.root=" + job_dir]
    if not running_only:
        args.insert(2, "-a")
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=30).stdout.split()


def job_dir_entries(job_dir=JOB_DIR):
    """What is left in job_dir but the OCI runtime's own directory (an empty bundle list is clean)."""
    try:
        names = [n for n in os.listdir(job_dir) if n not in (OCI_STATE, LOCK_FILE)]
    except FileNotFoundError:
        return []
    bundles = os.path.join(job_dir, OCI_STATE, "bundles")
    if os.path.isdir(bundles):
        names += [os.path.join(OCI_STATE, "bundles", b) for b in os.listdir(bundles)]
    return names

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


def db_tls_context():
    """An ssl.SSLContext that checks a database's certificate (and name) against DB_CA."""
    return ssl.create_default_context(cafile=DB_CA)


def node_direct_url():
    """direct_url() for the Node drivers (node-postgres, postgres.js), which use no TLS unless the URL asks:
    sslmode=verify-full, with DB_CA in NODE_EXTRA_CA_CERTS (node_env)."""
    return with_params(direct_url(), sslmode="verify-full")


def node_env(**extra):
    """clean_env() for node: the demo CA trusted too (NODE_EXTRA_CA_CERTS), for direct connections."""
    return dict(clean_env(), NODE_EXTRA_CA_CERTS=DB_CA, **extra)


def connect(url, autocommit=False, **kw):
    kw.setdefault("connect_timeout", 10)
    conn = psycopg2.connect(url, **kw)
    conn.autocommit = autocommit
    return conn


def connected(url):
    """For a fixture: yields an autocommit connection to url, closed after."""
    conn = connect(url, autocommit=True)
    try:
        yield conn
    finally:
        conn.close()


def fetch_all(url, sql):
    """The rows of sql run on a new autocommit connection to url, closed after."""
    conn = connect(url, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


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


def pg_outcome(conn, sql, whole=False):
    """('rows', rows, or None for a statement with no result) or ('error',
    sqlstate, message) of sql on conn: message is the error's first line,
    or with whole its whole text (detail and hint too). After an error the
    transaction is rolled back; a connection lost raises."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", cur.fetchall() if cur.description else None)
    except psycopg2.Error as e:
        if conn.closed:
            raise
        conn.rollback()
        if whole:
            return ("error", e.pgcode, str(e))
        return ("error", e.pgcode, e.pgerror.splitlines()[0] if e.pgerror else "")


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
    """Runs one function of integration/tools/lib.sh in bash; returns CompletedProcess."""
    script = 'set -euo pipefail; source "%s/integration/tools/lib.sh"; %s' % (REPO, function)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)


# ---------------------------------------------------------------- MySQL

MY_HOST = os.environ.get("AIRLOCK_MY_LISTEN_HOST", "127.0.0.1")
MY_PORT = int(os.environ.get("AIRLOCK_MY_LISTEN_PORT", "3307"))
MY_DIRECT_HOST = os.environ.get("AIRLOCK_MY_DIRECT_HOST", "127.0.0.1")
MY_DIRECT_PORT = int(os.environ.get("AIRLOCK_MY_DIRECT_PORT", "3306"))
MY_PW_FILE = os.environ.get("AIRLOCK_MY_PW_FILE", STATE_DIR + "/shop_maria.password")
MY_SOCK = os.environ.get("AIRLOCK_MY_SOCK", "/run/mysqld/mysqld.sock")
AGENT_PASSWORD = "agent-secret"

# Queries on the allowed tables whose rows, column metadata and mysql CLI
# output must match MariaDB directly.
MY_QUERIES = [
    "SELECT id, amount FROM orders ORDER BY id LIMIT 3",
    "SELECT id, customer_id, amount, note, created_at FROM orders"
    " WHERE id BETWEEN 8 AND 12 ORDER BY id",
    "SELECT id, amount > 500 AS big, NULL AS nothing, note IS NULL AS no_note"
    " FROM orders ORDER BY id DESC LIMIT 4",
    "SELECT o.id, c.name, c.email, p.name AS product, p.price FROM orders o"
    " JOIN customers c ON c.id = o.customer_id JOIN products p ON p.id = o.id % 200 + 1"
    " WHERE o.id <= 5 ORDER BY o.id",
    "SELECT COUNT(*), SUM(amount), AVG(amount), MIN(created_at), MAX(created_at),"
    " COUNT(note) FROM orders",
    "SELECT customer_id, COUNT(*) AS n, SUM(amount) AS total FROM orders"
    " WHERE customer_id <= 3 GROUP BY customer_id ORDER BY customer_id",
    "SELECT id, name FROM products WHERE id < 0",
    "SELECT 1.5e0 AS f, CAST(42 AS SIGNED) AS s, CAST(7 AS UNSIGNED) AS u,"
    " x'7879' AS b, DATE '2024-02-29' AS d, TIME '26:03:04' AS t,"
    " CAST(1.25 AS DECIMAL(6,3)) AS dec3, 'h\u00e9llo \u2713 \U0001F600' AS txt,"
    " JSON_OBJECT('a', JSON_ARRAY(1, 2)) AS j, 1 = 1 AS truth",
    "SELECT id, DATE(created_at) AS d, TIME(created_at) AS tm, YEAR(created_at) AS y,"
    " created_at + INTERVAL 1 DAY AS later, CAST(amount AS CHAR) AS s"
    " FROM orders WHERE id IN (7, 70, 700) ORDER BY id",
    "SELECT email FROM customers WHERE id IN (49, 50, 51) ORDER BY id",
    "SELECT name, price FROM products ORDER BY price DESC, id LIMIT 5",
    "SELECT `id`, `note` FROM `shop`.`orders` WHERE id = 10 OR id = 11 ORDER BY 1",
    "SELECT id, note FROM orders WHERE id IN (VALUES (3), (4)) ORDER BY id",
    "VALUES (1, 'one'), (2, 'two') ORDER BY 1 DESC",
    "SELECT o.id, jt.v FROM orders o, JSON_TABLE(CONCAT('[', o.id, ',', o.customer_id, ']'), '$[*]'"
    " COLUMNS (n FOR ORDINALITY, v INT PATH '$')) AS jt WHERE o.id <= 2 ORDER BY o.id, jt.n",
]


# The mysql CLI's and mysqldump's options for a direct connection as a backend account.
MY_DIRECT_TLS_ARGS = ["--ssl", "--ssl-ca=" + DB_CA, "--ssl-verify-server-cert"]


def my_backend_password():
    with open(MY_PW_FILE) as f:
        return f.read().strip()


def my_connect(user="agent", password=AGENT_PASSWORD, database="shop", **kw):
    """PyMySQL connection to airlock's MySQL listener (autocommit off)."""
    import pymysql

    kw.setdefault("connect_timeout", 10)
    kw.setdefault("read_timeout", 60)
    return pymysql.connect(host=MY_HOST, port=MY_PORT, user=user, password=password,
                           database=database, **kw)


def my_direct(database="shop", **kw):
    """PyMySQL connection straight to MariaDB as airlock_ro, over TLS (its
    account REQUIREs SSL) with the server's certificate checked."""
    import pymysql

    kw.setdefault("connect_timeout", 10)
    kw.setdefault("read_timeout", 60)
    kw.setdefault("ssl", {"ca": DB_CA})
    return pymysql.connect(host=MY_DIRECT_HOST, port=MY_DIRECT_PORT, user="airlock_ro",
                           password=my_backend_password(), database=database, **kw)


def mysqldb_connect(user="agent", password=AGENT_PASSWORD, direct=False, **kw):
    """mysqlclient (MySQLdb) connection to airlock, or straight to MariaDB (over TLS)."""
    import MySQLdb

    kw.setdefault("connect_timeout", 10)
    kw.setdefault("charset", "utf8mb4")
    if direct:
        kw.setdefault("ssl", {"ca": DB_CA})
        return MySQLdb.connect(host=MY_DIRECT_HOST, port=MY_DIRECT_PORT, user="airlock_ro",
                               passwd=my_backend_password(), db="shop", **kw)
    return MySQLdb.connect(host=MY_HOST, port=MY_PORT, user=user, passwd=password,
                           db="shop", **kw)


def my_env():
    """The environment without MYSQL_* variables, so only the arguments count."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYSQL")}
    env.pop("LANG", None)
    env["LC_ALL"] = "C.UTF-8"
    return env


def mysql_args(direct=False, user="agent", password=AGENT_PASSWORD, database="shop"):
    """argv and env of the mysql CLI for airlock (the password given with -p,
    as a user would) or for MariaDB directly (airlock_ro, password in MYSQL_PWD,
    over TLS with the server's certificate checked)."""
    env = my_env()
    args = ["mysql", "--no-defaults", "--connect-timeout=10"]
    if direct:
        args += ["-h", MY_DIRECT_HOST, "-P", str(MY_DIRECT_PORT), "-u", "airlock_ro"] + MY_DIRECT_TLS_ARGS
        env["MYSQL_PWD"] = my_backend_password()
    else:
        args += ["-h", MY_HOST, "-P", str(MY_PORT), "-u", user, "-p" + password]
    if database:
        args.append(database)
    return args, env


def mysql_cli(*sql, extra=(), direct=False, user="agent", password=AGENT_PASSWORD,
              database="shop", stdin=None, timeout=60):
    """Runs the real mysql CLI with -e for each statement (or a script on
    stdin when sql is empty); returns CompletedProcess."""
    args, env = mysql_args(direct, user, password, database)
    args += list(extra)
    for s in sql:
        args += ["-e", s]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def my_super_query(sql):
    """Tab-separated output of sql run as MariaDB's root over its unix socket."""
    r = subprocess.run(["mariadb", "--no-defaults", "--protocol=socket", "-S", MY_SOCK,
                        "-u", "root", "-N", "-B", "-e", sql],
                       capture_output=True, text=True, cwd="/", timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def my_snapshot():
    """Counts and checksums of the four tables, the tables and routines of
    every non-system database, the databases, the AUTO_INCREMENT of orders,
    and airlock_ro's grants."""
    return my_super_query("""
        SET SESSION group_concat_max_len = 67108864;
        SELECT CONCAT_WS('\\n',
          (SELECT COUNT(*) FROM shop.orders), (SELECT COUNT(*) FROM shop.customers),
          (SELECT COUNT(*) FROM shop.products), (SELECT COUNT(*) FROM shop.staff_salaries),
          (SELECT MD5(GROUP_CONCAT(CONCAT_WS('|', id, customer_id, amount, note, created_at)
                                   ORDER BY id SEPARATOR ',')) FROM shop.orders),
          (SELECT MD5(GROUP_CONCAT(CONCAT_WS('|', id, name, email) ORDER BY id SEPARATOR ','))
             FROM shop.customers),
          (SELECT MD5(GROUP_CONCAT(CONCAT_WS('|', id, name, price) ORDER BY id SEPARATOR ','))
             FROM shop.products),
          (SELECT MD5(GROUP_CONCAT(CONCAT_WS('|', id, name, salary) ORDER BY id SEPARATOR ','))
             FROM shop.staff_salaries),
          (SELECT GROUP_CONCAT(CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, ':', TABLE_TYPE, ':',
                                      IFNULL(AUTO_INCREMENT, '')) ORDER BY 1)
             FROM information_schema.TABLES
            WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')),
          (SELECT GROUP_CONCAT(SCHEMA_NAME ORDER BY 1) FROM information_schema.SCHEMATA),
          (SELECT COUNT(*) FROM information_schema.ROUTINES),
          (SELECT COUNT(*) FROM information_schema.TRIGGERS),
          (SELECT GROUP_CONCAT(CONCAT(GRANTEE, ':', TABLE_SCHEMA, '.', TABLE_NAME, ':',
                                      PRIVILEGE_TYPE) ORDER BY 1)
             FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE LIKE '%airlock_ro%'),
          (SELECT GROUP_CONCAT(CONCAT(GRANTEE, ':', PRIVILEGE_TYPE) ORDER BY 1)
             FROM information_schema.USER_PRIVILEGES WHERE GRANTEE LIKE '%airlock_ro%'),
          (SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES
            WHERE GRANTEE LIKE '%airlock_ro%'),
          @@GLOBAL.max_connections, @@GLOBAL.read_only)
    """)


AIRLOCK_CODE = re.compile(r"(?:^|[\s(\[])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*):")


def airlock_code(message):
    """The upper-case airlock code a refusal message carries ("CODE: ..."),
    or None."""
    m = AIRLOCK_CODE.search(message or "")
    return m.group(1) if m else None


def _oci_runner(c, job_dir):
    """{id, pid, uid, job_dir, bundle} of one listed OCI container, or None when it is gone."""
    try:
        with open(os.path.join(c["bundle"], "config.json")) as f:
            cfg = json.load(f)
        with open("/proc/%d/status" % c["pid"]) as f:
            uid = int(next(ln for ln in f if ln.startswith("Uid:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return None
    src = next(m["source"] for m in cfg["mounts"] if m["destination"] == "/job")
    return {"id": c["id"], "pid": c["pid"], "uid": uid, "job_dir": src, "bundle": c["bundle"]}


def live_runners(job_dir=JOB_DIR, runtime=None):
    """{id, pid (on the host), uid, job_dir} of every running runner container
    (runtime: the OCI binary, when not OCI_RUNTIME)."""
    found = []
    if RUNTIME == "oci":
        for c in oci_list(job_dir, runtime):
            r = c["status"] == "running" and c["pid"] and _oci_runner(c, job_dir)
            if r:
                found.append(r)
        return found
    for cid in runner_containers(job_dir, running_only=True):
        r = subprocess.run(["docker", "inspect", cid], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            continue
        info = json.loads(r.stdout)[0]
        if not info["State"]["Running"] or not info["State"]["Pid"]:
            continue
        found.append({"id": cid, "pid": info["State"]["Pid"], "uid": int(info["Config"]["User"].split(":")[0]),
                      "job_dir": info["Mounts"][0]["Source"]})
    return found


def kill_container(cid, job_dir=JOB_DIR):
    """Kills one runner container from outside airlockd, as an operator (or a crash) would."""
    if RUNTIME == "oci":
        args = [OCI_RUNTIME, "--root", oci_root(job_dir), "kill", cid, "KILL"]
    else:
        args = ["docker", "kill", cid]
    subprocess.run(args, capture_output=True, timeout=30, check=True)


def remove_containers(ids, job_dir=JOB_DIR):
    """Force-removes runner containers a test left."""
    for cid in ids:
        if RUNTIME == "oci":
            subprocess.run([OCI_RUNTIME, "--root", oci_root(job_dir), "delete", "--force", cid],
                           capture_output=True, timeout=60)
        else:
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True, timeout=60)
