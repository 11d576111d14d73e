"""Hostile statements end to end with the validator out of the way: a
private airlockd with validator_bypass = on, a key only a test build knows
(CMakeLists.txt, AIRLOCK_VALIDATOR_BYPASS; the sanitizer build the suite
drives has it), so a write, DDL or a file read goes from the client through
airlockd to the real runner and the real database, and the layers behind
the validator must refuse it on their own:

- the runner's read-only transaction: DELETE / INSERT / CREATE TABLE fail
  with Postgres' and MariaDB's own read-only errors (25006 / 1792), never
  airlock's NOT_READ_ONLY;
- the read-only backend role: file reads and writes through the server
  and other accounts' tables are refused by its privileges (42501 / 1142,
  or NULL from LOAD_FILE).

The databases are unchanged afterwards. These tests skip when airlockd was
built without the switch (AIRLOCK_SKIP_ASAN=1 runs drive the release
build). test_release_airlockd_refuses_the_bypass_key checks that the
release build has no such key and refuses a config that names it."""

import os

import psycopg2
import pymysql
import pytest

import itest
from itest import AGENT_PASSWORD, REPO
from private_airlockd import AIRLOCKD_BIN, PrivateAirlockd

RELEASE_BIN = os.path.join(REPO, "build", "airlockd")


def has_bypass(binary):
    with open(binary, "rb") as f:
        return b"validator_bypass" in f.read()


@pytest.fixture(scope="module")
def bypassed():
    if not has_bypass(AIRLOCKD_BIN):
        pytest.skip("%s was built without AIRLOCK_VALIDATOR_BYPASS" % AIRLOCKD_BIN)
    d = PrivateAirlockd("bypass", {"validator_bypass": "on", "pool_min": 0}, uid_base=1000600000)
    d.start()
    assert "statements go to the runner unvalidated" in d.log()
    yield d
    status = d.stop()
    assert d.clean(), "containers or job directories left: %s %s" % (d.containers(), d.job_dirs())
    assert status in (0, -15), d.log()[-3000:]


def test_release_airlockd_refuses_the_bypass_key():
    assert not has_bypass(RELEASE_BIN), "the release build holds the validator bypass"
    d = PrivateAirlockd("nobypass", {"validator_bypass": "on"}, uid_base=1000600000, binary=RELEASE_BIN)
    d.start(wait=False)
    status = d.wait_exit(15)
    assert status not in (None, 0), d.log()[-2000:]
    assert 'no key "validator_bypass"' in d.log(), d.log()[-2000:]


def pg_error(d, sql):
    conn = d.connect()
    try:
        with pytest.raises(psycopg2.Error) as e:
            conn.cursor().execute(sql)
        return e.value
    finally:
        conn.close()


@pytest.mark.parametrize("sql", [
    "DELETE FROM orders WHERE id < 0",
    "INSERT INTO orders SELECT * FROM orders WHERE false",
    "CREATE TABLE public.bypass_probe (x int)",
])
def test_pg_read_only_transaction_refuses_what_the_validator_let_through(bypassed, sql):
    before = itest.db_snapshot()
    e = pg_error(bypassed, sql)
    assert e.pgcode == "25006", e
    # Postgres' own words, not the validator's NOT_READ_ONLY.
    assert "read-only transaction" in str(e) and "NOT_READ_ONLY" not in str(e), e
    assert itest.db_snapshot() == before


@pytest.mark.parametrize("sql", [
    "SELECT pg_read_file('/etc/passwd')",
    "COPY (SELECT 1) TO '/tmp/airlock-bypass-probe'",
])
def test_pg_read_only_role_refuses_what_the_validator_let_through(bypassed, sql):
    before = itest.db_snapshot()
    e = pg_error(bypassed, sql)
    assert e.pgcode == "42501", e
    assert ("permission denied" in str(e) or "must be superuser" in str(e)) and "FORBIDDEN" not in str(e), e
    assert not os.path.exists("/tmp/airlock-bypass-probe")
    assert itest.db_snapshot() == before


def my_conn(d):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=AGENT_PASSWORD,
                           database="shop", connect_timeout=10, read_timeout=30)


def my_run(d, sql):
    conn = my_conn(d)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


def test_my_read_only_transaction_refuses_what_the_validator_let_through(bypassed):
    # MariaDB checks privileges before the transaction's mode for DML, so DDL shows this layer.
    before = itest.my_snapshot()
    with pytest.raises(pymysql.MySQLError) as e:
        my_run(bypassed, "CREATE TABLE shop.bypass_probe (x INT)")
    assert e.value.args[0] == 1792 and "NOT_READ_ONLY" not in str(e.value), e.value
    assert itest.my_snapshot() == before


@pytest.mark.parametrize("sql", [
    "DELETE FROM orders WHERE id < 0",
    "INSERT INTO orders SELECT * FROM orders WHERE 1 = 0",
    "SELECT * FROM mysql.user",
])
def test_my_read_only_role_refuses_what_the_validator_let_through(bypassed, sql):
    before = itest.my_snapshot()
    with pytest.raises(pymysql.MySQLError) as e:
        my_run(bypassed, sql)
    # The server's words for the account's privileges, not the validator's TABLE_NOT_ALLOWED.
    assert e.value.args[0] == 1142 and "command denied" in str(e.value), e.value
    assert "TABLE_NOT_ALLOWED" not in str(e.value) and "NOT_READ_ONLY" not in str(e.value), e.value
    assert itest.my_snapshot() == before


def test_my_read_only_role_reads_no_file(bypassed):
    # No FILE privilege: the server reads nothing.
    assert my_run(bypassed, "SELECT LOAD_FILE('/etc/passwd')") == ((None,),)
