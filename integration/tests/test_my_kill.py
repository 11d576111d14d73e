"""KILL QUERY <id>, what the mysql client sends on Ctrl-C over a second
connection, cancels the statement of the same user's session."""

import threading
import time

import pymysql
import pytest

import itest


def test_kill_query_cancels_a_running_statement():
    victim = itest.my_connect(autocommit=True)
    killer = itest.my_connect(autocommit=True)
    try:
        conn_id = victim.thread_id()
        result = {}

        def run():
            t0 = time.monotonic()
            try:
                with victim.cursor() as cur:
                    cur.execute("SELECT SLEEP(8)")
                    result["rows"] = cur.fetchall()
            except pymysql.err.MySQLError as e:
                result["error"] = e.args
            result["secs"] = time.monotonic() - t0

        t = threading.Thread(target=run)
        t.start()
        time.sleep(1.5)
        with killer.cursor() as cur:
            cur.execute("KILL QUERY %d" % conn_id)
        t.join(20)
        assert not t.is_alive()
        assert result.get("error", (None,))[0] == 1317, result
        assert "CANCELED" in result["error"][1], result
        assert result["secs"] < 6, result
        # The session goes on.
        with victim.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
    finally:
        victim.close()
        killer.close()


def test_kill_connection_and_unknown_ids():
    conn = itest.my_connect(autocommit=True)
    other = itest.my_connect(autocommit=True)
    try:
        with conn.cursor() as cur:
            with pytest.raises(pymysql.err.MySQLError) as info:
                cur.execute("KILL %d" % other.thread_id())
            assert info.value.args[0] == 1235, info.value.args
            with pytest.raises(pymysql.err.MySQLError) as info:
                cur.execute("KILL QUERY 4294967295")
            assert info.value.args[0] == 1094, info.value.args
    finally:
        conn.close()
        other.close()
