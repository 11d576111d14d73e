"""The runner's layers, each proven on its own: the real airlock-runner in a
real runner container (layers.py plays airlockd's part on the job's sockets,
so no validator stands in front and no proxy counts or kills behind), with
jobs the validator would never let through, against the demo's real
Postgres and MariaDB.

- The read-only transaction: writes and DDL as a role that may write
  (the harness's own) are refused with 25006 / 1792, and nothing changed.
- max_rows and max_bytes: a million-row read is cut by the runner itself,
  with the truncation in its completion frame, at once.
- The engine's timeout: statement_timeout ends a 60 s sleep at timeout_ms,
  before the runner's watchdog (timeout_ms plus its grace) would.
- The watchdog: with the engine's timeout off (the relay delivers
  statement_timeout / max_statement_time as 0), a 60 s sleep ends with
  TIMEOUT when the runner's own deadline passes, and the backend's
  statement is cancelled (Postgres' cancel request, MariaDB's KILL QUERY).
- The read-only role: with the transaction read-write (the relay delivers
  the runner's READ ONLY as READ WRITE), a write with the privileges of the
  demo's backend account is refused by them: 42501 / 1142.

The demo's backend accounts log in over TLS only, which the relay cannot
change; the tests that have the relay change what the runner sends log in
as their twin (airlock_layers_ro: the same privileges, plain text allowed).

The container kill and airlockd's own row and byte counting are proven
alone with a rogue runner in test_runner_backstop.py."""

import secrets
import time

import psycopg2
import pymysql
import pytest

import itest
import layers
from itest import wait_until

RW_ROLE = "airlock_layers_rw"
RO_TWIN = "airlock_layers_ro"
MY_DB = "airlock_layers"


def codes(res):
    return (res.error or {}).get("sqlstate"), (res.error or {}).get("code")


# ---------------------------------------------------------------- Postgres

@pytest.fixture(scope="module")
def pg_rw():
    """A role that may write orders and create tables in public: only the runner's transaction
    stands between it and a write."""
    pw = secrets.token_hex(16)
    itest.super_query("""
        DO $$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%(r)s') THEN CREATE ROLE %(r)s LOGIN; END IF;
        END $$;
        ALTER ROLE %(r)s LOGIN NOSUPERUSER PASSWORD '%(pw)s';
        GRANT CONNECT ON DATABASE shop TO %(r)s;
        GRANT USAGE, CREATE ON SCHEMA public TO %(r)s;
        GRANT SELECT, INSERT, DELETE ON public.orders TO %(r)s;
    """ % {"r": RW_ROLE, "pw": pw})
    yield pw
    itest.super_query("REVOKE ALL ON public.orders FROM %(r)s; REVOKE ALL ON SCHEMA public FROM %(r)s; "
                      "REVOKE ALL ON DATABASE shop FROM %(r)s; DROP ROLE %(r)s" % {"r": RW_ROLE})


@pytest.fixture(scope="module")
def pg_ro():
    """The relay's tests' login: a member of airlock_ro (its privileges, nothing more) that may log in
    without TLS."""
    pw = secrets.token_hex(16)
    itest.super_query("""
        DO $$ BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%(r)s') THEN CREATE ROLE %(r)s LOGIN; END IF;
        END $$;
        ALTER ROLE %(r)s LOGIN NOSUPERUSER INHERIT PASSWORD '%(pw)s';
        GRANT airlock_ro TO %(r)s;
    """ % {"r": RO_TWIN, "pw": pw})
    yield {"user": RO_TWIN, "password": pw}
    itest.super_query("DROP ROLE %s" % RO_TWIN)


def pg_state():
    return itest.super_query("SELECT count(*) || ',' || coalesce(to_regclass('public.layers_probe')::text, '-') "
                             "FROM orders")


@pytest.mark.parametrize("sql", [
    "DELETE FROM orders WHERE id < 0",
    "INSERT INTO orders SELECT * FROM orders WHERE false",
    "CREATE TABLE public.layers_probe (x int)",
])
def test_pg_read_only_transaction_refuses_writes(pg_rw, sql):
    # The role itself may do it: a refusal can only be the runner's transaction.
    conn = psycopg2.connect(host="127.0.0.1", port=5432, dbname="shop", user=RW_ROLE, password=pg_rw)
    try:
        conn.cursor().execute(sql)
    finally:
        conn.rollback()
        conn.close()
    before = pg_state()
    res = layers.run(layers.pg_job(sql), user=RW_ROLE, password=pg_rw)
    assert codes(res)[0] == "25006", res
    assert "read-only transaction" in res.error["message"]
    assert pg_state() == before


def test_pg_runner_stops_at_max_rows():
    res = layers.run(layers.pg_job("SELECT g FROM generate_series(1, 1000000) g", max_rows=10))
    assert res.complete and res.complete["truncated"] == 1, res
    assert [r[0] for r in res.rows] == [str(i).encode() for i in range(1, 11)]
    assert res.ms < 5000, res


def test_pg_runner_stops_at_max_bytes():
    res = layers.run(layers.pg_job("SELECT repeat('x', 100) FROM generate_series(1, 1000000)",
                                   max_rows=10000000, max_bytes=1000))
    assert res.complete and res.complete["truncated"] == 2, res
    # Each row frame is 2 + 4 + 100 bytes: nine fit in 1000, the tenth would not.
    assert len(res.rows) == 9 and res.row_bytes <= 1000, res
    assert res.ms < 5000, res


def pg_sleepers():
    return int(itest.super_query("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' "
                                 "AND pid <> pg_backend_pid()"))


def test_pg_engine_timeout_ends_a_statement_before_the_watchdog():
    res = layers.run(layers.pg_job("SELECT pg_sleep(60)", timeout_ms=1500))
    assert codes(res) == ("57014", "TIMEOUT"), res
    # statement_timeout (1.5 s), not the runner's watchdog (1.5 s + its 1 s grace).
    assert 1400 <= res.ms < 2300, res
    assert wait_until(lambda: pg_sleepers() == 0, 3, 0.1), "the backend still sleeps"


def test_pg_watchdog_ends_a_statement_the_engine_would_let_run(pg_ro):
    off = layers.run(layers.pg_job("SELECT current_setting('statement_timeout')"), relay=["engine_timeout_off"],
                     **pg_ro)
    assert off.rows == [[b"0"]], off
    res = layers.run(layers.pg_job("SELECT pg_sleep(60)", timeout_ms=1500), relay=["engine_timeout_off"], **pg_ro)
    assert codes(res) == ("57014", "TIMEOUT"), res
    # The runner's deadline is timeout_ms plus its 1 s grace; the engine's (1.5 s) was off.
    assert 2300 <= res.ms <= 6000, res
    # Its cancel request stopped the backend's statement, which nothing else would have.
    assert wait_until(lambda: pg_sleepers() == 0, 3, 0.1), "the backend still sleeps"


def test_pg_read_only_role_refuses_writes_in_a_read_write_transaction(pg_ro):
    rw = layers.run(layers.pg_job("SELECT current_setting('transaction_read_only')"), relay=["read_write"], **pg_ro)
    assert rw.rows == [[b"off"]], rw
    before = pg_state()
    res = layers.run(layers.pg_job("DELETE FROM orders WHERE id < 0"), relay=["read_write"], **pg_ro)
    assert codes(res)[0] == "42501", res
    assert "permission denied" in res.error["message"]
    assert pg_state() == before


# ---------------------------------------------------------------- MariaDB

@pytest.fixture(scope="module")
def my_rw():
    """A database of the harness's own and an account that may do anything in it."""
    pw = secrets.token_hex(16)
    itest.my_super_query("""
        DROP DATABASE IF EXISTS %(db)s;
        CREATE DATABASE %(db)s;
        CREATE TABLE %(db)s.probe (id INT PRIMARY KEY);
        INSERT INTO %(db)s.probe VALUES (1), (2), (3);
        CREATE OR REPLACE USER '%(r)s'@'127.0.0.1' IDENTIFIED BY '%(pw)s';
        GRANT ALL ON %(db)s.* TO '%(r)s'@'127.0.0.1';
    """ % {"db": MY_DB, "r": RW_ROLE, "pw": pw})
    yield pw
    itest.my_super_query("DROP USER IF EXISTS '%s'@'127.0.0.1'; DROP DATABASE IF EXISTS %s" % (RW_ROLE, MY_DB))


@pytest.fixture(scope="module")
def my_ro():
    """The relay's tests' login: airlock_ro's grants on shop, copied, on an account that may log in without
    TLS."""
    pw = secrets.token_hex(16)
    grants = itest.my_super_query("SHOW GRANTS FOR 'airlock_ro'@'127.0.0.1'").splitlines()
    sql = ["CREATE OR REPLACE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s'" % (RO_TWIN, pw)]
    # Its grants on the demo's database (others tests add and drop for a while are not copied).
    for g in grants:
        g = g.split(" IDENTIFIED BY ")[0].replace("`airlock_ro`@`127.0.0.1`", "`%s`@`127.0.0.1`" % RO_TWIN)
        if " ON `shop`." in g and "REQUIRE" not in g:
            sql.append(g)
    itest.my_super_query("; ".join(sql))
    yield {"engine": "mariadb", "user": RO_TWIN, "password": pw}
    itest.my_super_query("DROP USER IF EXISTS '%s'@'127.0.0.1'" % RO_TWIN)


def my_state():
    return itest.my_super_query("SELECT (SELECT COUNT(*) FROM %(db)s.probe), (SELECT COUNT(*) FROM "
                                "information_schema.TABLES WHERE TABLE_SCHEMA = '%(db)s')" % {"db": MY_DB})


@pytest.mark.parametrize("sql", [
    "DELETE FROM probe",
    "INSERT INTO probe VALUES (4)",
    "CREATE TABLE probe2 (x INT)",
])
def test_my_read_only_transaction_refuses_writes(my_rw, sql):
    before = my_state()
    res = layers.run(layers.my_job(sql, **{"set.database": MY_DB}), engine="mariadb", user=RW_ROLE,
                     password=my_rw, dbname=MY_DB)
    assert res.error and res.error["my_errno"] == 1792, res
    assert my_state() == before


def as_rw(my_rw):
    """The Sequence engine's tables need a database the account may read: the harness's own."""
    return {"engine": "mariadb", "user": RW_ROLE, "password": my_rw, "dbname": MY_DB}


def test_my_runner_stops_at_max_rows(my_rw):
    res = layers.run(layers.my_job("SELECT seq FROM seq_1_to_1000000", max_rows=10), **as_rw(my_rw))
    assert res.complete and res.complete["truncated"] == 1, res
    assert [r[0] for r in res.rows] == [str(i).encode() for i in range(1, 11)]
    assert res.ms < 5000, res


def test_my_runner_stops_at_max_bytes(my_rw):
    res = layers.run(layers.my_job("SELECT REPEAT('x', 100) FROM seq_1_to_1000000", max_rows=10000000,
                                   max_bytes=1000), **as_rw(my_rw))
    assert res.complete and res.complete["truncated"] == 2, res
    assert len(res.rows) == 9 and res.row_bytes <= 1000, res
    assert res.ms < 5000, res


def my_sleepers():
    return int(itest.my_super_query("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                                    "WHERE INFO = 'SELECT SLEEP(60)'"))


def test_my_watchdog_kills_a_statement_the_engine_would_let_run(my_ro):
    off = layers.run(layers.my_job("SELECT @@max_statement_time"), relay=["engine_timeout_off"], **my_ro)
    assert off.rows and float(off.rows[0][0]) == 0, off
    res = layers.run(layers.my_job("SELECT SLEEP(60)", timeout_ms=1500), relay=["engine_timeout_off"], **my_ro)
    assert res.error and res.error["code"] == "TIMEOUT" and res.error["my_errno"] == 3024, res
    assert 1400 <= res.ms <= 6000, res
    # KILL QUERY over the watchdog's own connection stopped it on the server.
    assert wait_until(lambda: my_sleepers() == 0, 3, 0.1), "the server still sleeps"


def test_my_read_only_role_refuses_writes_in_a_read_write_transaction(my_ro):
    rw = layers.run(layers.my_job("SELECT @@tx_read_only"), relay=["read_write"], **my_ro)
    assert rw.rows == [[b"0"]], rw
    res = layers.run(layers.my_job("DELETE FROM shop.orders WHERE id < 0"), relay=["read_write"], **my_ro)
    assert res.error and res.error["my_errno"] == 1142, res
