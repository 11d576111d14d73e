"""psycopg2 through airlock: same rows and types as direct, transactions,
autocommit, server version, session settings."""

import datetime
import threading
import time
from decimal import Decimal

import psycopg2
import psycopg2.extensions as ext
import pytest

import itest
from itest import QUERIES


def fetch(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return ([(d.name, d.type_code) for d in cur.description], cur.fetchall(),
                cur.rowcount)


@pytest.mark.parametrize("sql", QUERIES)
def test_rows_and_types_match_direct(agent, direct, sql):
    assert fetch(agent, sql) == fetch(direct, sql)


def test_exact_values(agent):
    desc, rows, n = fetch(agent, "SELECT id, customer_id, amount, note, created_at"
                                 " FROM orders WHERE id IN (1, 10) ORDER BY id")
    assert n == 2
    assert rows[0][:4] == (1, 920, Decimal("0.37"), "order 1")
    assert rows[1][:4] == (10, 191, Decimal("3.70"), None)
    assert rows[0][4] == datetime.datetime(2024, 1, 1, 0, 1, tzinfo=datetime.timezone.utc)
    desc, rows, n = fetch(agent, "SELECT count(*), sum(amount), count(note) FROM orders")
    assert rows == [(200000, Decimal("99999000.00"), 180000)]


def test_transaction_status_and_commit(agent):
    assert agent.get_transaction_status() == ext.TRANSACTION_STATUS_IDLE
    fetch(agent, "SELECT 1")
    assert agent.get_transaction_status() == ext.TRANSACTION_STATUS_INTRANS
    agent.commit()
    assert agent.get_transaction_status() == ext.TRANSACTION_STATUS_IDLE
    fetch(agent, "SELECT id FROM orders WHERE id = 5")
    assert agent.get_transaction_status() == ext.TRANSACTION_STATUS_INTRANS
    agent.rollback()
    assert agent.get_transaction_status() == ext.TRANSACTION_STATUS_IDLE
    assert fetch(agent, "SELECT id FROM orders WHERE id = 6")[1] == [(6,)]


def test_autocommit(agent_ac):
    assert fetch(agent_ac, "SELECT id FROM orders WHERE id = 7")[1] == [(7,)]
    assert agent_ac.get_transaction_status() == ext.TRANSACTION_STATUS_IDLE


def test_server_version(agent):
    assert 150000 <= agent.server_version < 160000
    assert agent.info.parameter_status("server_version").startswith("15.")
    assert agent.info.parameter_status("client_encoding") == "UTF8"
    assert agent.info.parameter_status("integer_datetimes") == "on"
    assert agent.info.parameter_status("standard_conforming_strings") == "on"
    assert agent.info.parameter_status("DateStyle").startswith("ISO")
    assert agent.info.backend_pid != 0
    version = fetch(agent, "SELECT version()")[1][0][0]
    assert version.startswith("PostgreSQL 15.")


def test_timezone_setting_applies_to_queries(agent_ac):
    assert fetch(agent_ac, "SHOW TimeZone")[1][0][0]
    cur = agent_ac.cursor()
    cur.execute("SET TimeZone = 'Asia/Tokyo'")
    assert fetch(agent_ac, "SHOW TimeZone")[1] == [("Asia/Tokyo",)]
    assert fetch(agent_ac, "SELECT created_at::text FROM orders WHERE id = 1")[1] == \
        [("2024-01-01 09:01:00+09",)]
    cur.execute("SET TimeZone = 'UTC'")
    assert fetch(agent_ac, "SHOW TimeZone")[1] == [("UTC",)]
    assert fetch(agent_ac, "SELECT created_at::text FROM orders WHERE id = 1")[1] == \
        [("2024-01-01 00:01:00+00",)]
    assert agent_ac.info.parameter_status("TimeZone") == "UTC"


def test_search_path_setting_applies(agent_ac):
    cur = agent_ac.cursor()
    cur.execute("SET search_path = pg_catalog")
    with pytest.raises(psycopg2.Error):
        cur.execute("SELECT count(*) FROM orders")
    cur.execute("SET search_path = public")
    cur.execute("SELECT count(*) FROM orders")
    assert cur.fetchall() == [(200000,)]


def test_server_side_parameters_in_query(agent):
    """psycopg2 interpolates parameters client-side; quoting must survive."""
    with agent.cursor() as cur:
        cur.execute("SELECT %s::text, %s::int, %s::numeric, %s",
                    ("it's \\ \"q\"", 5, Decimal("1.25"), None))
        assert cur.fetchall() == [("it's \\ \"q\"", 5, Decimal("1.25"), None)]


def test_named_cursor(agent):
    """Named cursors: DECLARE ... CURSOR, FETCH FORWARD n, CLOSE."""
    with agent.cursor(name="c1") as cur:
        cur.itersize = 3
        cur.execute("SELECT id FROM orders ORDER BY id LIMIT 7")
        assert [r[0] for r in cur] == [1, 2, 3, 4, 5, 6, 7]
    agent.commit()


def test_move_skips_rows_as_postgres_does(agent):
    """MOVE [FORWARD] n and MOVE ALL read past rows without sending them; the tag counts them."""
    def run(conn):
        out = []
        with conn.cursor() as cur:
            cur.execute("DECLARE m CURSOR FOR SELECT id FROM orders ORDER BY id LIMIT 10")
            for sql in ["MOVE 3 IN m", "FETCH 2 FROM m", "MOVE FORWARD 1 FROM m", "FETCH NEXT FROM m",
                        "MOVE ALL IN m", "FETCH 1 FROM m", "MOVE 1 IN m"]:
                cur.execute(sql)
                out.append((cur.statusmessage, cur.fetchall() if sql.startswith("FETCH") else None))
        conn.rollback()
        return out

    direct = itest.connect(itest.direct_url())
    try:
        want = run(direct)
    finally:
        direct.close()
    assert run(agent) == want
    assert want[1] == ("FETCH 2", [(4,), (5,)]) and want[4] == ("MOVE 3", None), want
    # psycopg2's scroll() on a named cursor is a MOVE.
    with agent.cursor(name="sc") as cur:
        cur.execute("SELECT id FROM orders ORDER BY id LIMIT 6")
        cur.scroll(2)
        assert cur.fetchone() == (3,)
    agent.commit()


def test_cancel_during_fetch(agent):
    """conn.cancel() while a FETCH waits on its cursor's statement stops it
    with 57014, and the session goes on."""

    cur = agent.cursor(name="slow")
    timer = threading.Timer(1.0, agent.cancel)
    t0 = time.time()
    timer.start()
    try:
        with pytest.raises(psycopg2.extensions.QueryCanceledError):
            cur.execute("SELECT pg_sleep(8)")
            cur.fetchall()
    finally:
        timer.cancel()
    assert time.time() - t0 < 5
    agent.rollback()
    with agent.cursor() as c:
        c.execute("SELECT 1")
        assert c.fetchall() == [(1,)]
