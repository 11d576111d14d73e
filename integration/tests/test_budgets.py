"""Budgets per user (the budget_* keys, token buckets): past one, a
statement is refused before it runs with BUDGET, Postgres 53400 and MySQL
1226, naming the key and its amount and saying when to retry. The retry
time is honest: a statement sent at that time starts. The bucket is the
user's, shared by its sessions and both protocols; rows and runner time are
charged as each statement ends; SHOW USERS and the metrics show it.

Each test has an airlockd of its own, started with the budget it tests."""

import re
import time
import urllib.request

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port

UID_BASE = 1005000000
RETRY = re.compile(r"retry after (\d+) ms")


@pytest.fixture
def daemon(request):
    started = []

    def start(name, user_keys, server=None):
        d = PrivateAirlockd(name, dict({"pool_min": 1}, **(server or {})), uid_base=UID_BASE,
                            sections={"user agent": user_keys})
        d.start()
        started.append(d)
        return d

    yield start
    for d in started:
        assert d.stop() in (0, -15), d.log()


def pg_run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def pg_refusal(conn, sql="SELECT 1"):
    """The BUDGET error sql gets, as (message, hint); fails when it runs."""
    with pytest.raises(psycopg2.Error) as e:
        pg_run(conn, sql)
    assert e.value.pgcode == "53400", e.value
    return e.value.diag.message_primary, e.value.diag.message_hint


def retry_ms(text):
    m = RETRY.search(text or "")
    assert m, text
    return int(m.group(1))


def admin_users(d):
    conn = psycopg2.connect(host="127.0.0.1", port=d.pg_port, user="admin", password="admin-secret",
                            dbname="airlock", sslmode="disable", connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW USERS")
            names = [c.name for c in cur.description]
            return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}
    finally:
        conn.close()


def test_statements_budget_refuses_then_lets_the_retry_run(daemon):
    metrics_port = free_port()
    d = daemon("budget_stmts", {"budget_statements_per_minute": 30},
               {"metrics_listen": "127.0.0.1:%d" % metrics_port})
    conn = d.connect(sslmode="disable")
    other = d.connect(sslmode="disable")
    try:
        # 30 at once (the full bucket), then one every 2 s: the first refusal comes after 30 or a few more.
        began, ran = time.monotonic(), 0
        while ran < 100:
            try:
                assert pg_run(conn, "SELECT 1") == [(1,)]
                ran += 1
            except psycopg2.Error as e:
                assert e.pgcode == "53400", e
                message, hint = e.diag.message_primary, e.diag.message_hint
                break
        elapsed = time.monotonic() - began
        assert 30 <= ran <= 30 + int(elapsed / 2) + 1, (ran, elapsed)
        assert message.startswith("BUDGET: "), message
        assert 'user "agent" is past its budget_statements_per_minute (30)' in message
        wait = retry_ms(hint)
        assert 1 <= wait <= 2001, hint

        # The bucket is the user's: its other session is refused too, and nothing ran for either.
        message2, hint2 = pg_refusal(other)
        assert "budget_statements_per_minute" in message2
        assert retry_ms(hint2) <= wait

        # At the time told the statement starts; the one right after waits its 2 s again.
        time.sleep(wait / 1000.0)
        assert pg_run(conn, "SELECT 2") == [(2,)]
        _, hint3 = pg_refusal(conn)
        assert 1000 <= retry_ms(hint3) <= 2001, hint3

        # A refusal fails an open transaction block, as any error does; the session stays usable after it.
        conn.autocommit = False
        time.sleep(retry_ms(hint3) / 1000.0)
        pg_run(conn, "SELECT 3")
        _, hint4 = pg_refusal(conn)
        conn.rollback()
        conn.autocommit = True
        time.sleep(retry_ms(hint4) / 1000.0)
        assert pg_run(conn, "SELECT 4") == [(4,)]
    finally:
        conn.close()
        other.close()

    users = admin_users(d)
    assert users["agent"]["statements_per_minute"].startswith("30, "), users["agent"]
    assert users["agent"]["rows_per_minute"] == ""
    assert int(users["agent"]["refused_by_budget"]) >= 4
    assert users["support"]["statements_per_minute"] == ""

    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % metrics_port, timeout=10) as r:
        text = r.read().decode()
    refused = re.search(r'^airlock_budget_refusals_total\{user="agent",budget="statements"\} (\S+)$', text, re.M)
    assert refused and float(refused.group(1)) >= 4, text
    assert re.search(r'^airlock_budget_amount\{user="agent",budget="statements"\} 30$', text, re.M), text
    assert re.search(r'^airlock_budget_remaining\{user="agent",budget="statements"\} \S+$', text, re.M)
    statements = re.search(r'^airlock_statements_total\{protocol="pg",user="agent",decision="refused",'
                           r'code="BUDGET"\} (\S+)$', text, re.M)
    assert statements and float(statements.group(1)) >= 4, text

    # Each refusal is in the audit log, coded.
    with open(d.audit_log) as f:
        audited = [line for line in f if '"code":"BUDGET"' in line]
    assert len(audited) >= 4


def my_connect(d):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=itest.AGENT_PASSWORD,
                           database="shop", connect_timeout=10, read_timeout=60, autocommit=True)


def test_rows_budget_over_mysql_is_charged_after_the_statement(daemon):
    # 20 rows a second, 1200 when full.
    d = daemon("budget_rows", {"budget_rows_per_minute": 1200, "max_rows": 2000})
    conn = my_connect(d)
    try:
        with conn.cursor() as cur:
            # One statement may take nearly all, and one more overdraws: rows are only known at the end.
            assert cur.execute("SELECT id FROM orders WHERE id <= 1000") == 1000
            assert cur.execute("SELECT id FROM orders WHERE id <= 300") == 300
            with pytest.raises(pymysql.MySQLError) as e:
                cur.execute("SELECT 1")
            # The wait told counts from the refusal, which is before its answer came: from here is late enough.
            told = time.monotonic()
            errno, text = e.value.args
            assert errno == 1226, e.value
            assert text.startswith("BUDGET: "), text
            assert 'past its budget_rows_per_minute (1200)' in text
            wait = retry_ms(text)
            # About 100 rows of debt at 20 a second: 5 s, less what flowed back meanwhile.
            assert 0 < wait <= 5100, text
            # The debt is the user's on every protocol: Postgres is held back too.
            pg = d.connect(sslmode="disable")
            try:
                message, hint = pg_refusal(pg)
                assert "budget_rows_per_minute" in message
            finally:
                pg.close()
            time.sleep(max(0.0, wait / 1000.0 - (time.monotonic() - told)))
            assert cur.execute("SELECT 1") == 1
    finally:
        conn.close()


def test_runner_seconds_are_charged_as_the_job_ends(daemon):
    # One runner second an hour: a statement that sleeps 1.5 s overdraws it by about half a second.
    d = daemon("budget_runner", {"budget_runner_seconds_per_hour": 1, "timeout_ms": 5000})
    conn = my_connect(d)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT SLEEP(1.5)")
            with pytest.raises(pymysql.MySQLError) as e:
                cur.execute("SELECT 1")
            errno, text = e.value.args
            assert errno == 1226, e.value
            assert "past its budget_runner_seconds_per_hour (1)" in text
            # 0.5 s of debt refills at 1 s an hour: about 1,800 s; the runner's own overhead adds a little.
            assert 1_700_000 <= retry_ms(text) <= 3_600_000, text
    finally:
        conn.close()
