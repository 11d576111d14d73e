"""The operator's page (/ops on the approval listener): an admin account
logs in through the same form as approvers and sees this node now, its
last hour as charts (statements by decision, refusals by check, latency by
phase, sessions, jobs, ready runners and the queue) and the console's
tables, in a real browser (headless Chromium), with no script. The charts
are drawn from the statements this test sends, over both protocols. An
approver cannot see the page; an admin cannot see or decide writes.

A screenshot of the page goes to the suite's artifacts
($AIRLOCK_ARTIFACTS, else STATE_DIR/artifacts)."""

import os
import re
import urllib.parse

import psycopg2
import pymysql
import pytest

import itest
from chromium import Chromium
from private_airlockd import PrivateAirlockd, free_port
from test_approval_page import FORM, header, request
from test_pg_approvals import APPROVER, APPROVER_PASSWORD, empty_store

ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
HOSTILE_NAME = "ops<img src=x onerror=alert(1)><script>1</script>"  # within 63 bytes
ARTIFACTS = os.environ.get("AIRLOCK_ARTIFACTS", os.path.join(itest.STATE_DIR, "artifacts"))


@pytest.fixture(scope="module")
def node():
    store = empty_store("ops")
    port = free_port()
    d = PrivateAirlockd("ops", {"pool_min": 1, "approval_store": store, "approval_listen": "127.0.0.1:%d" % port},
                        uid_base=1005100000)
    d.approval_port = port
    d.start()
    assert itest.wait_until(lambda: PrivateAirlockd.accepts(port), 10, 0.1)
    yield d
    assert d.stop() in (0, -15), d.log()


@pytest.fixture(scope="module")
def browser(node):
    b = Chromium()
    yield b
    b.close()


def cookie_of(d, name, password):
    status, headers, _ = request(d, "POST", "/login", urllib.parse.urlencode({"name": name, "password": password}),
                                 FORM)
    assert status == 303, status
    return "__Host-airlock=" + re.match(r"__Host-airlock=([0-9a-f]{64});", header(headers, "Set-Cookie")).group(1)


def traffic(d):
    """Statements of every kind the charts tell apart: run, local, refused, over both protocols."""
    conn = d.connect(sslmode="disable")
    with conn.cursor() as cur:
        for i in range(5):
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT %d" % (i + 1))
            cur.fetchall()
        # What an agent names its program reaches the admin's page: markup in it must stay text.
        cur.execute("SET application_name = %s", (HOSTILE_NAME,))
        for _ in range(2):
            with pytest.raises(psycopg2.Error) as e:
                cur.execute("SELECT * FROM staff_salaries")
            assert e.value.pgcode == "42501"
    my = pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=itest.AGENT_PASSWORD,
                         database="shop", connect_timeout=10, autocommit=True)
    with my.cursor() as cur:
        cur.execute("SELECT 1")
        with pytest.raises(pymysql.MySQLError):
            cur.execute("SELECT * FROM staff_salaries")
    my.close()
    return conn  # left open: the page lists it


def ready_runners(d):
    """Warm runners ready now, all targets, as the console counts them."""
    conn = psycopg2.connect(host="127.0.0.1", port=d.pg_port, user=ADMIN, password=ADMIN_PASSWORD, dbname="airlock",
                            sslmode="disable", connect_timeout=10)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW POOLS")
            names = [c.name for c in cur.description]
            return sum(int(dict(zip(names, r))["ready"]) for r in cur.fetchall())
    finally:
        conn.close()


def values(browser, selector):
    return browser.eval("Array.from(document.querySelectorAll(%r)).map(e => Number(e.dataset.value))" % selector)


def test_an_admin_sees_the_last_hour_and_the_tables(node, browser):
    open_session = traffic(node)
    try:
        # The page samples what is live as it draws: let the pool make its warm runner again first.
        assert itest.wait_until(lambda: ready_runners(node) >= 1, 30, 0.2)
        browser.navigate("https://127.0.0.1:%d/" % node.approval_port)
        browser.submit("form[action='/login']", name=ADMIN, password=ADMIN_PASSWORD)
        assert browser.eval("location.pathname") == "/ops"
        assert browser.eval("document.title") == "Operations - airlock"
        assert "Signed in as" in browser.eval("document.body.innerText")

        # Every chart is there, drawn from what was just sent.
        for chart in ("chart-statements", "chart-refusals", "chart-latency", "chart-load"):
            assert browser.eval("!!document.querySelector('svg#%s')" % chart), chart
        assert sum(values(browser, "#chart-statements [data-series='run']")) >= 6
        assert sum(values(browser, "#chart-statements [data-series='refused']")) >= 3
        assert sum(values(browser, "#chart-statements [data-series='local']")) >= 1
        assert sum(values(browser, "#chart-refusals [data-series='TABLE_NOT_ALLOWED']")) >= 3
        backend = values(browser, "#chart-latency [data-series='backend']")
        assert backend and all(v > 0 for v in backend)
        assert values(browser, "#chart-latency [data-series='total']")
        assert values(browser, "#chart-latency [data-series='validation']")
        assert max(values(browser, "#chart-load [data-series='sessions']")) >= 1
        assert max(values(browser, "#chart-load [data-series='ready runners']")) >= 1
        legend = browser.eval("document.querySelector('svg#chart-statements').parentElement.innerText")
        assert "refused" in legend and "run" in legend

        # The console's tables: this session among the clients, the pools, the users with their budgets.
        clients = browser.eval("document.getElementById('clients').innerText")
        assert "agent" in clients and HOSTILE_NAME in clients  # shown as the text it is
        assert browser.eval("document.querySelectorAll('img, script').length") == 0
        assert "shop" in browser.eval("document.getElementById('pools').innerText")
        assert "statements_per_minute" in browser.eval("document.getElementById('users').innerText")
        assert "uptime_seconds" in browser.eval("document.getElementById('stats').innerText")
        # No secret on the page: no verifier, no password.
        html = browser.eval("document.documentElement.outerHTML")
        assert "SCRAM-SHA-256$" not in html and "password" not in browser.eval(
            "document.getElementById('config').innerText").lower().replace("password_file", "")
        # No script ran or was asked for.
        assert browser.errors() == []
        assert browser.eval("document.scripts.length") == 0

        shot = browser.screenshot(os.path.join(ARTIFACTS, "ops-page.png"))
        with open(shot, "rb") as f:
            png = f.read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, len(png)
        print("operator page screenshot: %s" % shot)
    finally:
        open_session.close()


def test_the_page_is_for_admins_and_writes_for_approvers(node):
    # Not logged in: back to the login form.
    status, headers, _ = request(node, "GET", "/ops")
    assert status == 303 and header(headers, "Location") == "/"

    admin = cookie_of(node, ADMIN, ADMIN_PASSWORD)
    status, headers, body = request(node, "GET", "/ops", headers={"Cookie": admin})
    assert status == 200 and 'id="chart-latency"' in body
    assert header(headers, "Content-Security-Policy").startswith("default-src 'none'")
    assert '<meta http-equiv="refresh" content="30">' in body
    status, headers, _ = request(node, "GET", "/", headers={"Cookie": admin})
    assert status == 303 and header(headers, "Location") == "/ops"
    # An admin neither sees nor decides a write.
    some_id = "w" + "a" * 20  # the shape of an id: the refusal is the role's, whether or not it exists
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', body).group(1)
    for method, path, form in (("GET", "/approval/" + some_id, None),
                               ("POST", "/approval/%s/approve" % some_id, {"csrf": csrf})):
        status, _, text = request(node, method, path, urllib.parse.urlencode(form) if form else None,
                                  dict(FORM, Cookie=admin) if form else {"Cookie": admin})
        assert status == 403, (path, status)
        assert "only approvers" in text

    approver = cookie_of(node, APPROVER, APPROVER_PASSWORD)
    status, _, body = request(node, "GET", "/ops", headers={"Cookie": approver})
    assert status == 403 and "admin accounts" in body
    status, _, body = request(node, "GET", "/", headers={"Cookie": approver})
    assert status == 200 and "Writes waiting for a decision" in body

    # A wrong admin password is refused as any wrong password is.
    status, _, body = request(node, "POST", "/login", urllib.parse.urlencode({"name": ADMIN, "password": "nope"}),
                              FORM)
    assert status == 401
