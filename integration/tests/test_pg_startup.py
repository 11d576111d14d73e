"""Connection start-up, authentication, transaction status and cancel,
seen through psycopg2 (libpq)."""

import threading
import time

import psycopg2
import psycopg2.extensions as ext
import pytest

import itest


def test_sslmode_require_gets_tls():
    """The suite's config has TLS (test_pg_tls.py covers it): sslmode=require connects over it."""
    conn = itest.connect(itest.with_params(itest.AGENT_URL, sslmode="require"))
    try:
        assert conn.info.ssl_in_use
    finally:
        conn.close()


def test_sslmode_prefer_works():
    conn = itest.connect(itest.with_params(itest.AGENT_URL, sslmode="prefer"))
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == [(1,)]
    finally:
        conn.close()


def test_wrong_password():
    url = itest.AGENT_URL.replace("agent-secret", "wrong-secret")
    with pytest.raises(psycopg2.OperationalError) as info:
        itest.connect(url)
    assert 'password authentication failed for user "agent"' in str(info.value)


def test_unknown_user_same_message():
    url = itest.AGENT_URL.replace("agent:", "nobody:")
    with pytest.raises(psycopg2.OperationalError) as info:
        itest.connect(url)
    assert 'password authentication failed for user "nobody"' in str(info.value)


def test_unknown_database():
    url = itest.AGENT_URL.rsplit("/", 1)[0] + "/nosuchdb"
    with pytest.raises(psycopg2.OperationalError) as info:
        itest.connect(url)
    assert "nosuchdb" in str(info.value)
    assert "does not exist" in str(info.value)


def test_startup_parameters_accepted():
    conn = itest.connect(itest.AGENT_URL, application_name="itest",
                         options="-c search_path=public -c extra_float_digits=3")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM customers")
            assert cur.fetchall() == [(1000,)]
    finally:
        conn.close()


def test_transaction_status(agent):
    with agent.cursor() as cur:
        cur.execute("SELECT 1")
    assert agent.info.transaction_status == ext.TRANSACTION_STATUS_INTRANS
    agent.commit()
    assert agent.info.transaction_status == ext.TRANSACTION_STATUS_IDLE


def test_error_in_transaction_then_rollback(agent):
    with agent.cursor() as cur:
        cur.execute("SELECT 1")
        with pytest.raises(psycopg2.Error):
            cur.execute("SELECT * FROM staff_salaries")
    assert agent.info.transaction_status == ext.TRANSACTION_STATUS_INERROR
    with pytest.raises(psycopg2.errors.InFailedSqlTransaction):
        with agent.cursor() as cur:
            cur.execute("SELECT 1")
    agent.rollback()
    assert agent.info.transaction_status == ext.TRANSACTION_STATUS_IDLE
    with agent.cursor() as cur:
        cur.execute("SELECT 2")
        assert cur.fetchall() == [(2,)]


def test_cancel_request(agent_ac):
    timer = threading.Timer(1.0, agent_ac.cancel)
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(psycopg2.Error) as info:
            with agent_ac.cursor() as cur:
                cur.execute("SELECT pg_sleep(9)")
    finally:
        timer.cancel()
    elapsed = time.monotonic() - t0
    assert info.value.pgcode == "57014", (info.value.pgcode, info.value.pgerror)
    assert elapsed < 5, elapsed
    with agent_ac.cursor() as cur:
        cur.execute("SELECT 3")
        assert cur.fetchall() == [(3,)]


def test_many_connections():
    conns = [itest.connect(itest.AGENT_URL, autocommit=True) for _ in range(20)]
    try:
        for c in conns:
            assert c.info.transaction_status == ext.TRANSACTION_STATUS_IDLE
        with conns[-1].cursor() as cur:
            cur.execute("SELECT count(*) FROM products")
            assert cur.fetchall() == [(200,)]
    finally:
        for c in conns:
            c.close()


def test_per_user_connection_cap():
    """agent_small may hold 6 sessions; the 7th is refused with 53300 and
    a slot freed by a disconnect can be used again."""
    held = [itest.connect(itest.SMALL_URL, autocommit=True) for _ in range(6)]
    try:
        with pytest.raises(psycopg2.OperationalError) as exc:
            itest.connect(itest.SMALL_URL)
        assert "too many connections" in str(exc.value)
        # Other users are not affected by agent_small's cap.
        other = itest.connect(itest.AGENT_URL, autocommit=True)
        other.close()
        held.pop().close()
        deadline = time.time() + 5
        while True:
            try:
                held.append(itest.connect(itest.SMALL_URL, autocommit=True))
                break
            except psycopg2.OperationalError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
    finally:
        for c in held:
            c.close()


def test_startup_options_apply_like_set():
    """PGOPTIONS / the options start-up parameter: -c name=value goes through
    the same rules as SET."""
    conn = itest.connect(itest.AGENT_URL, options="-c TimeZone=Asia/Tokyo --DateStyle=ISO,\\ DMY")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT '2024-01-01 00:00+00'::timestamptz::text, current_setting('DateStyle')")
            assert cur.fetchall() == [("2024-01-01 09:00:00+09", "ISO, DMY")]
    finally:
        conn.close()
    with pytest.raises(psycopg2.OperationalError) as exc:
        itest.connect(itest.AGENT_URL, options="-c work_mem=1GB")
    assert "work_mem" in str(exc.value)
    with pytest.raises(psycopg2.OperationalError) as exc:
        itest.connect(itest.AGENT_URL, options="-c default_transaction_read_only=off")
    assert "read" in str(exc.value)
