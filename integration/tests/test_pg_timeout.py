"""Statement timeout: agent_small has timeout_ms = 2000."""

import time

import psycopg2
import pytest


def test_timeout_cancels_long_query(small):
    t0 = time.monotonic()
    with pytest.raises(psycopg2.Error) as info:
        with small.cursor() as cur:
            cur.execute("SELECT pg_sleep(15)")
    elapsed = time.monotonic() - t0
    assert info.value.pgcode == "57014", (info.value.pgcode, info.value.pgerror)
    assert 1.5 <= elapsed <= 6, elapsed


def test_timeout_session_usable_afterwards(small):
    with pytest.raises(psycopg2.Error):
        with small.cursor() as cur:
            cur.execute("SELECT count(*) FROM orders a CROSS JOIN customers b")
    with small.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchall() == [(1,)]


def test_short_sleep_succeeds(agent_ac):
    t0 = time.monotonic()
    with agent_ac.cursor() as cur:
        cur.execute("SELECT pg_sleep(0.2)")
        assert len(cur.fetchall()) == 1
    assert time.monotonic() - t0 >= 0.2
