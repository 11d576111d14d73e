"""Failed logins slow down guessing: per client address and per user name,
after login_free_failures failures every answer for that address or name
waits, a right password's too, so silence tells nothing; a known user and
an unknown one get the same waits; every failed login is in the audit log.

Each test has a private airlockd (private_airlockd.py) with small numbers:
3 free failures, then 400 ms doubling up to 1600 ms. The suite's own
airlockd runs with a high threshold, since its tests fail logins on purpose
from 127.0.0.1."""

import json
import time

import psycopg2
import pymysql
import pytest

from itest import AGENT_PASSWORD
from private_airlockd import PrivateAirlockd

FREE, FIRST, MAX = 3, 400, 1600
# Waits the n-th failure (1-based) sees before its answer: none up to FREE, then doubling.
WAITS = [0, 0, 0, FIRST, 2 * FIRST, MAX, MAX]


@pytest.fixture
def guarded():
    d = PrivateAirlockd("guard", {"login_free_failures": FREE, "login_delay_ms": FIRST,
                                  "login_delay_max_ms": MAX, "login_failure_window_ms": 600000},
                        uid_base=1000300000)
    d.start()
    yield d
    status = d.stop()
    assert status in (0, -15), d.log()[-3000:]


def pg_login(d, user, password):
    """(seconds, ok) of one Postgres login."""
    t0 = time.monotonic()
    try:
        psycopg2.connect(d.url(user=user, password=password), sslmode="disable", connect_timeout=20).close()
        ok = True
    except psycopg2.OperationalError as e:
        assert "password authentication failed for user \"%s\"" % user in str(e), e
        ok = False
    return time.monotonic() - t0, ok


def my_login(d, user, password):
    t0 = time.monotonic()
    try:
        pymysql.connect(host="127.0.0.1", port=d.my_port, user=user, password=password, database="shop",
                        connect_timeout=20, read_timeout=20).close()
        ok = True
    except pymysql.err.OperationalError as e:
        assert e.args[0] == 1045, e
        ok = False
    return time.monotonic() - t0, ok


LOGINS = {"pg": pg_login, "mysql": my_login}


def failed_logins(d):
    with open(d.audit_log) as f:
        return [e for e in map(json.loads, f) if e["decision"] == "login_failed"]


def assert_waits(times):
    for n, (took, want) in enumerate(zip(times, WAITS), 1):
        assert took >= want / 1000.0 - 0.02, "failure %d answered in %.3f s, before its %d ms" % (n, took, want)
        assert took < want / 1000.0 + 1.5, "failure %d took %.3f s for a %d ms wait" % (n, took, want)


@pytest.mark.parametrize("proto", ["pg", "mysql"])
@pytest.mark.parametrize("user", ["agent", "ghost"])
def test_failures_wait_longer_and_longer(guarded, proto, user):
    """A known user's wrong password and an unknown name: the same waits, the same answer."""
    login = LOGINS[proto]
    times = []
    for _ in WAITS:
        took, ok = login(guarded, user, "wrong-guess")
        assert not ok
        times.append(took)
    assert_waits(times)
    # Every failure is in the audit log, with the name tried and the wait it got.
    seen = failed_logins(guarded)
    assert [e["user"] for e in seen] == [user] * len(WAITS)
    assert {e["protocol"] for e in seen} == {proto}
    assert {e["client"] for e in seen} == {"127.0.0.1"}
    assert {e["sqlstate"] for e in seen} == {"28P01" if proto == "pg" else "28000"}
    assert [e["wait_ms"] for e in seen] == WAITS
    assert "wrong-guess" not in open(guarded.audit_log).read()


@pytest.mark.parametrize("proto", ["pg", "mysql"])
def test_right_password_waits_the_same_then_clears_the_name(guarded, proto):
    """Under penalty a right password is answered no sooner than a wrong one, so an attacker
    cannot stop listening early; then the name's count is cleared (the address's is not)."""
    login = LOGINS[proto]
    for _ in range(FREE + 2):
        assert not login(guarded, "agent", "wrong-guess")[1]
    took, ok = login(guarded, "agent", AGENT_PASSWORD)
    assert ok
    assert took >= 4 * FIRST / 1000.0 - 0.02, took
    # The address still has its failures: another name from it waits too.
    took, ok = login(guarded, "support", "wrong-guess")
    assert not ok and took >= MAX / 1000.0 - 0.02, took


def test_spray_across_names_is_counted_by_address(guarded):
    """One guess at each of many names from one address: the address's count grows."""
    times = [pg_login(guarded, "user%d" % i, "wrong-guess")[0] for i in range(len(WAITS))]
    assert_waits(times)


def test_waiting_logins_do_not_hold_up_others(guarded):
    """While a guessed name's answer waits, a logged-in session keeps working."""
    for _ in range(FREE + 2):
        pg_login(guarded, "ghost", "wrong-guess")
    conn = guarded.connect()
    cur = conn.cursor()
    t0 = time.monotonic()
    import threading
    th = threading.Thread(target=pg_login, args=(guarded, "ghost", "wrong-guess"))
    th.start()
    cur.execute("SHOW airlock.policy")
    cur.fetchall()
    assert time.monotonic() - t0 < 0.5
    th.join()
    conn.close()
