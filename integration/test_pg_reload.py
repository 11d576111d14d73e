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
