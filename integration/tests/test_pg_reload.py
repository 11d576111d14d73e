"""SIGHUP reloads the config: a valid file takes effect for new sessions
(open ones keep theirs), an invalid one is refused and the running config
stays in force."""

import os
import re
import signal
import time

import psycopg2
import pytest

import itest

CONFIG = os.environ.get("AIRLOCK_CONFIG", itest.STATE_DIR + "/airlock-test.ini")
NEW_URL = itest.AGENT_URL.replace("agent:", "agent_new:", 1)


def hup():
    os.kill(int(os.environ["AIRLOCKD_PID"]), signal.SIGHUP)


def wait_for_login(url, want):
    deadline = time.time() + 10
    while True:
        try:
            itest.connect(url).close()
            ok = True
        except psycopg2.OperationalError:
            ok = False
        if ok == want or time.time() > deadline:
            return ok
        time.sleep(0.2)


@pytest.fixture
def config_text():
    if "AIRLOCKD_PID" not in os.environ:
        pytest.skip("needs the airlockd that test.sh started")
    with open(CONFIG) as f:
        original = f.read()
    yield original
    with open(CONFIG, "w") as f:
        f.write(original)
    hup()
    assert wait_for_login(NEW_URL, False) is False


def test_reload_adds_a_user_and_refuses_a_bad_file(config_text):
    scram = re.search(r"^scram = (.*)$", config_text, re.M).group(1)
    before = itest.connect(itest.AGENT_URL, autocommit=True)
    try:
        assert wait_for_login(NEW_URL, False) is False
        with open(CONFIG, "w") as f:
            f.write(config_text + "\n[user agent_new]\nscram = %s\ntarget = shop\n"
                    "tables = public.orders\nmax_rows = 3\n" % scram)
        hup()
        assert wait_for_login(NEW_URL, True) is True
        new = itest.connect(NEW_URL, autocommit=True)
        with new.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id")
            assert [r[0] for r in cur.fetchall()] == [1, 2, 3]
            with pytest.raises(psycopg2.Error) as exc:
                cur.execute("SELECT id FROM customers LIMIT 1")
            assert exc.value.pgcode == "42501"
        new.close()
        # The session opened before the reload still works.
        with before.cursor() as cur:
            cur.execute("SELECT count(*) FROM customers")
            assert cur.fetchall() == [(1000,)]

        # A broken file is refused as a whole: agent_new stays.
        with open(CONFIG, "a") as f:
            f.write("\n[server]\nbogus_key = 1\n")
        hup()
        time.sleep(1)
        assert wait_for_login(NEW_URL, True) is True
    finally:
        before.close()


def my_login(user, password="agent-secret"):
    try:
        itest.my_connect(user=user, password=password).close()
        return True
    except Exception:
        return False


def wait_for_my_login(user, want):
    deadline = time.time() + 10
    while True:
        ok = my_login(user)
        if ok == want or time.time() > deadline:
            return ok
        time.sleep(0.2)


def test_reload_mysql_user_and_sha2_cache(config_text):
    """A user added by SIGHUP logs in over MySQL with caching_sha2_password
    (no mysql_native: full authentication with the RSA key, then the fast
    path); the new generation starts with an empty cache."""
    scram = re.search(r"^scram = (.*)$", config_text, re.M).group(1)
    assert wait_for_my_login("agent_new", False) is False
    with open(CONFIG, "w") as f:
        f.write(config_text + "\n[user agent_new]\nscram = %s\nmysql_target = shop_maria\n"
                "mysql_tables = shop.orders\nmax_rows = 3\n" % scram)
    hup()
    assert wait_for_my_login("agent_new", True) is True
    assert my_login("agent_new")  # second login: the fast path
    assert not my_login("agent_new", "wrong-secret")
    conn = itest.my_connect(user="agent_new")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id")
            assert [r[0] for r in cur.fetchall()] == [1, 2, 3]
    finally:
        conn.close()
    # A user with no Postgres target cannot log in over Postgres, and is told why.
    with pytest.raises(psycopg2.OperationalError) as exc:
        itest.connect(NEW_URL)
    assert "logs in over MySQL only" in str(exc.value)
