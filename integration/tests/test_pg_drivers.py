"""Drivers that speak the extended query protocol: psycopg 3, node-postgres
and PgJDBC get the same results through airlock as from a direct
connection, with bound parameters (text and binary), named server-side
statements, and native refusals."""

import datetime
import decimal
import json
import os
import subprocess
import tempfile
import urllib.parse

import psycopg
import pytest

import itest

JDBC_JAR = "/usr/share/java/postgresql.jar"


def psycopg3_rows(url, sql, params=None, prepare=None):
    with psycopg.connect(url, connect_timeout=10) as conn:
        cur = conn.execute(sql, params, prepare=prepare)
        rows = cur.fetchall()
        types = [d.type_code for d in cur.description]
        status = conn.info.transaction_status
        conn.rollback()
    return rows, types, status


@pytest.mark.parametrize("sql", itest.QUERIES)
def test_psycopg3_same_as_direct(sql):
    assert psycopg3_rows(itest.AGENT_URL, sql) == psycopg3_rows(itest.direct_url(), sql)


PARAM_CASES = [
    ("SELECT id, amount, note FROM orders WHERE id = %s", (7,)),
    ("SELECT id FROM orders WHERE id = ANY(%s) ORDER BY id", ([3, 1, 2],)),
    ("SELECT %s::text AS t, %s::int AS i, %s::float8 AS f, %s::bool AS b, %s::date AS d,"
     " %s::numeric AS n, %s::bytea AS by, %s::int AS nothing",
     ("it's", 5, 1.25, True, datetime.date(2024, 2, 29), decimal.Decimal("12.34"), b"\x00\x01", None)),
    ("SELECT name FROM customers WHERE email = %s", ("customer42@example.com",)),
]


@pytest.mark.parametrize("sql,params", PARAM_CASES)
def test_psycopg3_parameters_same_as_direct(sql, params):
    """psycopg 3 sends ints, floats, bools, dates and bytes as binary parameters."""
    assert psycopg3_rows(itest.AGENT_URL, sql, params) == psycopg3_rows(itest.direct_url(), sql, params)


def test_psycopg3_prepared_statements():
    """prepare=True: a named statement (_pg3_N), Describe of the portal, Execute."""
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10, autocommit=True) as conn:
        got = [conn.execute("SELECT note FROM orders WHERE id = %s", (i,), prepare=True).fetchone()[0]
               for i in range(1, 8)]
    assert got == ["order %d" % i for i in range(1, 8)]


def test_psycopg3_transaction_status_and_refusal():
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10) as conn:
        conn.execute("SELECT 1")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        with pytest.raises(psycopg.errors.InsufficientPrivilege) as exc:
            conn.execute("SELECT * FROM staff_salaries WHERE id = %s", (1,))
        assert "staff_salaries" in str(exc.value)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        conn.rollback()
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM orders WHERE id = %s", (1,))
        conn.rollback()


def test_psycopg3_pipeline():
    """executemany pipelines Parse/Bind/Describe/Execute with Flush and one Sync."""
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10, autocommit=True) as conn:
        cur = conn.cursor()
        cur.executemany("SELECT id FROM orders WHERE id = %s", [(1,), (2,), (3,)], returning=True)
        got = []
        while True:
            got.append(cur.fetchone()[0])
            if not cur.nextset():
                break
    assert got == [1, 2, 3]


def node_run(url, jobs):
    env = itest.node_env()
    env["NODE_PATH"] = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")
    out = subprocess.run(["node", os.path.join(itest.REPO, "integration/clients/node_pg.js"), url],
                         input=json.dumps(jobs), capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_node_pg_same_as_direct():
    jobs = [{"text": q} for q in itest.QUERIES]
    jobs += [
        {"text": "SELECT id, note FROM orders WHERE id = $1 OR id = $2 ORDER BY id", "values": [3, 4]},
        {"text": "SELECT count(*) FROM customers WHERE id < $1", "values": [10], "name": "cnt"},
        {"text": "SELECT count(*) FROM customers WHERE id < $1", "values": [20], "name": "cnt"},
        {"text": "SELECT $1::text AS a, $2::int AS b", "values": [None, "7"]},
    ]
    assert node_run(itest.AGENT_URL, jobs) == node_run(itest.node_direct_url(), jobs)


def test_node_pg_refusal():
    got = node_run(itest.AGENT_URL, [{"text": "SELECT * FROM staff_salaries WHERE id = $1", "values": [1]},
                                    {"text": "SELECT 1 AS one"}])
    assert got[0]["error"]["code"] == "42501"
    assert "TABLE_NOT_ALLOWED" in got[0]["error"]["message"]
    assert got[1]["rows"] == [[1]]


@pytest.fixture(scope="module")
def jdbc_classes():
    out = tempfile.mkdtemp(prefix="airlock-jdbc-")
    subprocess.run(["javac", "-d", out, os.path.join(itest.REPO, "integration/clients/JdbcCheck.java")],
                   check=True, timeout=120)
    return out


def jdbc_run(classes, url, queries, runs=5):
    u = urllib.parse.urlsplit(url)
    jdbc = "jdbc:postgresql://%s:%d%s" % (u.hostname, u.port, u.path)
    out = subprocess.run(["java", "-cp", JDBC_JAR + ":" + classes, "JdbcCheck", jdbc,
                          urllib.parse.unquote(u.username), urllib.parse.unquote(u.password), str(runs)],
                         input="\n".join(queries) + "\n", capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_jdbc_same_as_direct(jdbc_classes):
    """PgJDBC: extended protocol always, named statements after five runs, isValid()."""
    queries = itest.QUERIES[:6]
    got = jdbc_run(jdbc_classes, itest.AGENT_URL, queries)
    assert got == jdbc_run(jdbc_classes, itest.direct_url(), queries)
    assert got[-1] == "valid true"


def test_jdbc_refusal(jdbc_classes):
    got = jdbc_run(jdbc_classes, itest.AGENT_URL, ["SELECT * FROM staff_salaries", "SELECT 2 AS two"])
    assert got[0].startswith("ERROR 42501 ") and "TABLE_NOT_ALLOWED" in got[0]
    assert got[1] == "two:int4 | 2"


def test_jdbc_metadata_lists_only_allowed(jdbc_classes):
    """DatabaseMetaData, what Hibernate and JDBC tools reflect, over the scoped catalogs."""
    got = jdbc_run(jdbc_classes, itest.AGENT_URL, ["#tables", "#columns orders", "#columns staff_salaries"])
    assert got[0] == "#tables: customers orders products", got
    assert got[1] == "#columns orders: id customer_id amount note created_at", got
    assert got[2] == "#columns staff_salaries:", got
