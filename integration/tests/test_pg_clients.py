"""Clients that Describe statements, ask for binary results and read
portals a few rows at a time: pgx (Go, Debian's package), lib/pq (Go's
database/sql driver, whose db.Begin() sends BEGIN READ WRITE), postgres.js,
node-postgres' pg-cursor, psycopg 3 (binary cursors, named server-side
cursors, pipelines, a query run 100 times, rollback after an error) and
PgJDBC (a PreparedStatement run 20 times, setFetchSize, getMetaData), and
Perl's DBD::Pg (DBI's catalog methods).
Each runs against airlock and directly against the backend; everything
but the refusals must be the same, and a refusal arrives as the client's
own error with airlock's message, the connection usable after it."""

import json
import os
import subprocess
import tempfile
from urllib.parse import unquote, urlparse

import psycopg
import pytest

import itest
from test_pg_drivers import jdbc_classes, jdbc_run  # noqa: F401 (jdbc_classes is a fixture)

CLIENTS = os.path.join(itest.REPO, "integration", "clients")
NODE_PATH = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")


def go_build(name):
    """integration/clients/NAME.go built against Debian's Go packages (GOPATH mode: no module download)."""
    out = tempfile.mkdtemp(prefix="airlock-%s-" % name)
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=os.path.join(out, "cache"),
               GOFLAGS="")
    exe = os.path.join(out, name)
    subprocess.run(["go", "build", "-o", exe, os.path.join(CLIENTS, name + ".go")], check=True, env=env,
                   timeout=600, cwd=out)
    return exe


@pytest.fixture(scope="module")
def pgx_bin():
    """pgx_check built against Debian's pgx v4."""
    return go_build("pgx_check")


@pytest.fixture(scope="module")
def pq_bin():
    """pq_check built against Debian's lib/pq."""
    return go_build("pq_check")


def test_lib_pq_transactions_same_as_direct(pq_bin):
    """db.Begin() (BEGIN READ WRITE) and BeginTx ReadOnly, with reads over both protocols inside:
    the same as directly. A write inside the block is refused (NOT_READ_ONLY; directly the backend
    role lacks the privilege), and the connection goes on."""
    # lib/pq asks for TLS unless told otherwise; the backend takes airlock_ro over TLS only.
    got = go_run(pq_bin, itest.with_params(itest.AGENT_URL, sslmode="disable"))
    over_tls = go_run(pq_bin, itest.with_params(itest.AGENT_URL, sslmode="require"))
    want = go_run(pq_bin, itest.with_params(itest.direct_url(), sslmode="verify-full", sslrootcert=itest.DB_CA))
    assert over_tls == got
    write = got.pop("write")
    assert write["code"] == "25006" and write["message"].startswith("NOT_READ_ONLY"), write
    assert want.pop("write")["code"] in ("42501", "25006")
    assert got == want
    assert got["begin"] is None and got["commit"] is None
    assert [r[0] for r in got["tx_simple"]] == ["1", "2", "3"]
    assert got["after"] == [["still", "usable"]]


def go_run(exe, url, *mode):
    out = subprocess.run([exe, url, *mode], capture_output=True, text=True, timeout=300, env=itest.clean_env())
    assert out.returncode == 0, out.stderr
    return {d["step"]: d["value"] for d in map(json.loads, out.stdout.splitlines())}


def assert_refused_like_backend(got, want, airlock_code):
    """Same SQLSTATE as the backend's own refusal, with airlock's message."""
    assert got["code"] == want["code"], (got, want)
    assert got["message"].startswith(airlock_code), got


def test_pgx_same_as_direct(pgx_bin):
    """pgx prepares, Describes and binds with binary formats; its statement cache reuses the description."""
    got = go_run(pgx_bin, itest.AGENT_URL)
    want = go_run(pgx_bin, itest.direct_url())
    assert_refused_like_backend(got.pop("refused"), want.pop("refused"), "NOT_READ_ONLY")
    assert got == want
    assert got["select_1"] == {"value": 1, "err": None}
    assert got["repeat"] == 5050
    assert got["batch"]["errs"] == [None, None, None]


def test_pgx_simple_protocol(pgx_bin):
    """PreferSimpleProtocol: the same, except a batch, which pgx then sends as one string of
    several statements: refused as MULTI_STATEMENT, the session usable after."""
    got = go_run(pgx_bin, itest.AGENT_URL, "simple")
    want = go_run(pgx_bin, itest.direct_url(), "simple")
    assert_refused_like_backend(got.pop("refused"), want.pop("refused"), "NOT_READ_ONLY")
    batch = got.pop("batch")
    assert batch["errs"][0]["message"].startswith("MULTI_STATEMENT")
    got.pop("batch_close")
    want.pop("batch")
    want.pop("batch_close")
    assert got == want


def node_run(script, url):
    env = itest.node_env(NODE_PATH=NODE_PATH)
    out = subprocess.run(["node", os.path.join(CLIENTS, script), url], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_postgresjs_and_pg_cursor_same_as_direct():
    got = node_run("node_postgresjs.js", itest.AGENT_URL)
    want = node_run("node_postgresjs.js", itest.node_direct_url())
    for mode in ("prepared", "unprepared"):
        assert_refused_like_backend(got[mode].pop("refused")["error"], want[mode].pop("refused")["error"],
                                    "NOT_READ_ONLY")
    # staff_salaries is readable directly; through airlock the cursor is refused, the connection goes on.
    refused = got["cursor"].pop("refused")
    assert refused["code"] == "42501" and refused["message"].startswith("TABLE_NOT_ALLOWED"), refused
    want["cursor"].pop("refused")
    assert got == want
    assert got["prepared"]["repeat"] == sum(range(1, 61))
    assert [len(b) for b in got["cursor"]["batches"]] == [4, 4, 3, 0]


def psycopg3_session(url):
    out = {}
    with psycopg.connect(url, connect_timeout=10) as conn:
        cur = conn.cursor(binary=True)
        cur.execute("SELECT id, amount, created_at, note, ARRAY[id, customer_id] AS a, amount::float8 AS f"
                    " FROM orders WHERE id <= %s ORDER BY id", (5,))
        out["binary"] = [tuple(str(v) for v in row) for row in cur.fetchall()]
        out["binary_types"] = [d.type_code for d in cur.description]
        conn.rollback()
        with conn.cursor(name="agent_cursor") as nc:
            nc.execute("SELECT id, note FROM orders WHERE id <= %s ORDER BY id", (9,))
            out["named"] = [nc.fetchmany(4), nc.fetchmany(4), nc.fetchall()]
            out["named_description"] = [(d.name, d.type_code) for d in nc.description]
        conn.rollback()
        with conn.pipeline():
            c1 = conn.execute("SELECT id FROM orders WHERE id = %s", (3,))
            c2 = conn.execute("SELECT name FROM customers WHERE id = %s", (4,))
            c3 = conn.execute("SELECT count(*) FROM products WHERE price > %s", (1,))
        out["pipeline"] = [c1.fetchall(), c2.fetchall(), c3.fetchall()]
        conn.rollback()
        # Prepared automatically after five runs, then used 95 more times.
        out["repeat"] = sum(conn.execute("SELECT id FROM orders WHERE id = %s", (i,)).fetchone()[0]
                            for i in range(1, 101))
        conn.rollback()
        try:
            conn.execute("DELETE FROM orders WHERE id = %s", (1,))
            out["refused"] = None
        except psycopg.Error as e:
            out["refused"] = {"code": e.sqlstate, "message": e.diag.message_primary}
        conn.rollback()
        out["after_rollback"] = conn.execute("SELECT count(*) FROM orders WHERE id < %s", (10,)).fetchone()
    return out


def test_psycopg3_binary_named_cursors_and_pipelines():
    got = psycopg3_session(itest.AGENT_URL)
    want = psycopg3_session(itest.direct_url())
    assert_refused_like_backend(got.pop("refused"), want.pop("refused"), "NOT_READ_ONLY")
    # The backend names its zone Etc/UTC, airlock UTC: the same instants.
    for o in (got, want):
        o["binary"] = [tuple(v.replace("Etc/", "") for v in row) for row in o["binary"]]
    assert got == want
    assert got["repeat"] == 5050
    assert [len(b) for b in got["named"]] == [4, 4, 1]


def test_psycopg3_binary_fetch_from_a_named_cursor_is_a_clear_error():
    """A cursor's rows come from a job started at DECLARE, in text: a binary FETCH is refused, not garbled."""
    with psycopg.connect(itest.AGENT_URL, connect_timeout=10) as conn:
        with pytest.raises(psycopg.errors.FeatureNotSupported) as info:
            with conn.cursor(name="bin_cursor", binary=True) as nc:
                nc.execute("SELECT id FROM orders ORDER BY id")
                nc.fetchmany(2)
        assert "binary results from a cursor" in str(info.value)
        conn.rollback()
        assert conn.execute("SELECT 1").fetchone() == (1,)


JDBC_QUERIES = [
    "SELECT id, amount, created_at, note, ARRAY[id, customer_id] AS ids, amount::float8 AS f, id::int2 AS s,"
    " (id % 2 = 0) AS even FROM orders WHERE id <= 3 ORDER BY id",
    "SELECT c.id, c.name, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id"
    " WHERE c.id <= 4 GROUP BY c.id, c.name ORDER BY c.id",
    "#fetch 4 SELECT id, note FROM orders WHERE id <= 11 ORDER BY id",
    "#fetch 1 SELECT name FROM products ORDER BY id LIMIT 3",
    "#describe SELECT id, amount, note FROM orders WHERE id = ? AND amount > ?",
    "#describe SELECT name FROM customers WHERE email LIKE ?",
    "SELECT 1 AS one",
]


def test_jdbc_twenty_runs_fetch_size_and_metadata(jdbc_classes):  # noqa: F811
    """PgJDBC switches to binary transfer on a statement's sixth run; setFetchSize reads a portal in steps
    (inside the transaction autocommit off opens); getMetaData / getParameterMetaData Describe first."""
    got = jdbc_run(jdbc_classes, itest.AGENT_URL, JDBC_QUERIES, runs=20)
    assert got == jdbc_run(jdbc_classes, itest.direct_url(), JDBC_QUERIES, runs=20)
    assert got[-1] == "valid true"
    assert got[4] == "#describe: id:bigserial amount:numeric note:text | int8 numeric"


def test_jdbc_refusal_then_more(jdbc_classes):  # noqa: F811
    got = jdbc_run(jdbc_classes, itest.AGENT_URL, ["#fetch 2 SELECT * FROM staff_salaries", "SELECT 2 AS two"],
                   runs=20)
    assert got[0].startswith("#fetch 2: ERROR 42501") and "TABLE_NOT_ALLOWED" in got[0], got
    assert got[1] == "two:int4 | 2"


@pytest.mark.parametrize("dialect", ["postgresql+psycopg2"])  # Debian's SQLAlchemy 1.4 has no psycopg 3 dialect
def test_sqlalchemy_engine_reflection_and_orm_same_as_direct(dialect):
    """What LangChain's SQLDatabase and ORMs do: reflect the tables, then ORM queries with bound
    parameters, a join and an aggregate, and a refusal as the driver's own exception."""
    sqlalchemy = pytest.importorskip("sqlalchemy")
    from sqlalchemy import orm

    def session_rows(url):
        engine = sqlalchemy.create_engine(url.replace("postgresql://", dialect + "://"))
        try:
            meta = sqlalchemy.MetaData()
            meta.reflect(bind=engine, only=["orders", "customers"])
            orders, customers = meta.tables["orders"], meta.tables["customers"]
            with orm.Session(engine) as session:
                few = session.execute(sqlalchemy.select(orders.c.id, orders.c.amount, orders.c.note)
                                      .where(orders.c.id <= 5).order_by(orders.c.id)).all()
                joined = session.execute(sqlalchemy.select(customers.c.name, sqlalchemy.func.count(orders.c.id))
                                         .join(orders, orders.c.customer_id == customers.c.id)
                                         .where(customers.c.id < 4).group_by(customers.c.name)
                                         .order_by(customers.c.name)).all()
                one = session.execute(sqlalchemy.select(orders).where(orders.c.id == 7)).one()
                try:
                    session.execute(sqlalchemy.delete(orders).where(orders.c.id == 1))
                    refused = None
                except sqlalchemy.exc.DBAPIError as e:
                    refused = str(e.orig).splitlines()[0]
                session.rollback()
                after = session.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(orders)).scalar()
            return {"few": [tuple(r) for r in few], "joined": [tuple(r) for r in joined], "one": tuple(one),
                    "after": after}, refused
        finally:
            engine.dispose()

    got, refused = session_rows(itest.AGENT_URL)
    want, _ = session_rows(itest.direct_url())
    assert got == want
    assert refused.startswith("NOT_READ_ONLY"), refused


def dbd_pg_run(direct):
    """integration/clients/dbd_pg_check.pl through airlock as agent, or straight to the backend."""
    url = urlparse(itest.direct_url() if direct else itest.AGENT_URL)
    out = subprocess.run(["perl", os.path.join(CLIENTS, "dbd_pg_check.pl"), url.hostname, str(url.port),
                          url.path.lstrip("/"), unquote(url.username), unquote(url.password)],
                         capture_output=True, text=True, timeout=120, env=itest.clean_env(),
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_dbd_pg_catalog_methods_same_as_direct():
    """Perl's DBD::Pg: table_info (which joins pg_description on c.tableoid, a system column of the
    filtered pg_class), column_info, primary_key and a bound read answer as the backend does, less
    the table outside the agent's world."""
    got = dbd_pg_run(False)
    want = dbd_pg_run(True)
    assert "staff_salaries" in repr(want["table_info"])
    want["table_info"] = [r for r in want["table_info"] if r[1] != "staff_salaries"]
    assert got == want
    assert ["public", "orders", "TABLE", "airlock demo data v1"] in got["table_info"], got
