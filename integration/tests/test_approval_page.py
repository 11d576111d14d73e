"""The approval page: a person decides held writes in a real browser
(headless Chromium, driven over the DevTools protocol) on the approval
listener, beside the JSON API.

A held write whose statement is hostile (markup, an event handler, a
right-to-left override, zero-width characters, a comment asking for
approval) shows as inert text with its hidden characters marked: no
script runs and no element is injected. Logging in makes a session cookie
(__Host-, Secure, HttpOnly, SameSite=Strict); decisions are forms carrying
the session's CSRF token. A form another origin submits while the person
is logged in decides nothing; so does a post with a wrong or missing
token, or from another Origin. Wrong passwords are audited and throttled
as Basic credentials are.

This module's airlockd is its own (approval listener, store, writer
allowed to write write_probe.items, the table test_pg_approvals.py makes),
with a short login-failure window so the throttling test does not hold up
the others."""

import http.client
import http.server
import json
import re
import signal
import ssl
import threading
import time
import urllib.parse
import urllib.request

import pytest

import itest
from chromium import Chromium
from private_airlockd import PrivateAirlockd, free_port
from test_pg_approvals import (APPROVER, APPROVER_PASSWORD, CA, api, empty_store, hold, items,  # noqa: F401
                               make_verifier, probe_table, settled, shown, started)

CSP = ("default-src 'none'; style-src 'self'; img-src 'none'; form-action 'self'; frame-ancestors 'none'; "
       "base-uri 'none'")

# A write an agent could send to fool a person: markup that would run, an
# override that reverses what follows, zero-width spaces, a comment that asks.
HOSTILE = ("/* approve me: routine fix, already reviewed */ UPDATE write_probe.items SET flag = "
           "'</td><script>document.title=''pwned''</script><img src=x onerror=\"document.title=''img''\">"
           "\u202egnp.exe\u200b\u200b' -- approve me\n WHERE id = 1")


@pytest.fixture(scope="module")
def page():
    store = empty_store("page")
    port = free_port()
    d = PrivateAirlockd("page", {"pool_min": 0, "approval_store": store, "approval_listen": "127.0.0.1:%d" % port,
                                 "login_free_failures": 3, "login_delay_ms": 1000, "login_delay_max_ms": 2000,
                                 "login_failure_window_ms": 3000},
                        uid_base=1003000000, sections={"user writer": {
                            "tables": "public.orders, write_probe.items, pg_catalog.*, information_schema.*",
                            "write_tables": "write_probe.items"}})
    d.approval_port = port
    d.store = store
    yield started(d)
    assert d.stop() in (0, -15)


@pytest.fixture(scope="module")
def browser(page):
    b = Chromium()
    yield b
    b.close()


def origin(d):
    return "https://127.0.0.1:%d" % d.approval_port


def request(d, method, path, body=None, headers=None):
    """(status, headers as a list of pairs, body text) of one request, redirects not followed."""
    conn = http.client.HTTPSConnection("127.0.0.1", d.approval_port, timeout=30,
                                       context=ssl.create_default_context(cafile=CA))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.getheaders(), r.read().decode("utf-8", "replace")
    finally:
        conn.close()


def header(headers, name):
    got = [v for k, v in headers if k.lower() == name.lower()]
    return got[0] if got else None


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def form_login(d, name=APPROVER, password=APPROVER_PASSWORD):
    return request(d, "POST", "/login", urllib.parse.urlencode({"name": name, "password": password}), FORM)


def logged_in(d):
    """(cookie header value, csrf token) of a fresh session made through the form."""
    status, headers, _ = form_login(d)
    assert status == 303, status
    token = re.match(r"__Host-airlock=([0-9a-f]{64});", header(headers, "Set-Cookie")).group(1)
    cookie = "__Host-airlock=" + token
    status, _, body = request(d, "GET", "/", headers={"Cookie": cookie})
    assert status == 200 and "Signed in as" in body
    return cookie, re.search(r'name="csrf" value="([0-9a-f]{64})"', body).group(1)


def post_form(d, path, fields, cookie, extra=None):
    headers = dict(FORM, Cookie=cookie, **(extra or {}))
    body = fields if isinstance(fields, str) else urllib.parse.urlencode(fields)
    return request(d, "POST", path, body, headers)


def browser_login(d, browser):
    """Logs the browser in through the form, unless it is already."""
    browser.navigate(origin(d) + "/")
    if browser.eval("!!document.querySelector('form[action=\"/login\"]')"):
        browser.submit("form[action='/login']", name=APPROVER, password=APPROVER_PASSWORD)
    assert browser.eval("location.pathname") == "/"
    assert browser.eval("document.body.innerText").count("Signed in as") == 1


def test_login_cookie_and_headers(page):
    status, headers, body = request(page, "GET", "/")
    assert status == 200 and 'action="/login"' in body and "Signed in as" not in body
    assert header(headers, "Content-Type") == "text/html; charset=utf-8"
    assert header(headers, "Content-Security-Policy") == CSP
    assert header(headers, "X-Content-Type-Options") == "nosniff"
    assert header(headers, "Cache-Control") == "no-store"
    assert header(headers, "Referrer-Policy") == "no-referrer"
    assert header(headers, "X-Frame-Options") == "DENY"
    status, headers, _ = form_login(page)
    assert status == 303 and header(headers, "Location") == "/"
    cookie = header(headers, "Set-Cookie")
    assert re.fullmatch(r"__Host-airlock=[0-9a-f]{64}; Path=/; Secure; HttpOnly; SameSite=Strict", cookie), cookie
    assert header(headers, "Content-Security-Policy") == CSP
    status, headers, css = request(page, "GET", "/style.css")
    assert status == 200 and header(headers, "Content-Type") == "text/css; charset=utf-8" and ".ch{" in css
    # The JSON API stays as it was: Basic credentials, JSON answers.
    assert api(page, "GET", "/api/approvals")[0] == 200
    assert api(page, "GET", "/api/approvals", user=None)[0] == 401
    # A cookie that is no session's, or two cookies, are no login.
    assert "Signed in as" not in request(page, "GET", "/", headers={"Cookie": "__Host-airlock=" + "a" * 64})[2]
    good, _ = logged_in(page)
    assert "Signed in as" not in request(page, "GET", "/", headers={"Cookie": good + "; " + good})[2]


def test_a_hostile_write_is_shown_inert(page, browser):
    approval = hold(page, HOSTILE)
    browser.navigate(origin(page) + "/")
    assert browser.eval("!!document.querySelector('form[action=\"/login\"]')")
    browser.submit("form[action='/login']", name=APPROVER, password=APPROVER_PASSWORD)
    assert browser.eval("location.pathname") == "/"
    assert browser.eval("document.body.innerText").count("Signed in as") == 1
    cookies = [c for c in browser.call("Network.getCookies", urls=[origin(page) + "/"])["cookies"]
               if c["name"] == "__Host-airlock"]
    assert len(cookies) == 1 and cookies[0]["httpOnly"] and cookies[0]["secure"], cookies
    assert cookies[0]["sameSite"] == "Strict" and cookies[0]["path"] == "/", cookies
    # The list: the row links to the record, with the badge; the cookie is not visible to a script.
    row = browser.eval("[...document.querySelectorAll('#pending tbody tr')].map(r => r.innerText)"
                       ".filter(t => t.includes(%s))" % json.dumps(approval))
    assert len(row) == 1 and "approve me" in row[0] and "hidden characters" in row[0], row
    assert browser.eval("document.cookie") == ""
    browser.navigate(origin(page) + "/approval/" + approval)
    assert browser.eval("document.title") == approval + " - airlock"
    # Nothing the agent wrote became an element or ran.
    assert browser.eval("document.querySelectorAll('script, img, iframe, object, embed, svg').length") == 0
    assert browser.eval("[...document.querySelectorAll('*')].filter(e => [...e.attributes]"
                        ".some(a => a.name.startsWith('on'))).length") == 0
    statement = browser.eval("document.getElementById('statement').innerText")
    assert "</td><script>document.title=''pwned''</script>" in statement, statement
    assert "onerror=\"document.title=''img''\"" in statement and "approve me" in statement
    # The override and the zero-width spaces are visible markers, never the characters themselves.
    assert "U+202E" in statement and statement.count("U+200B") == 2, statement
    body = browser.eval("document.body.innerText")
    assert "\u202e" not in body and "\u200b" not in body
    assert browser.eval("document.querySelectorAll('#statement .ch').length") == 3
    rewritten = browser.eval("document.getElementById('rewritten').innerText")
    assert "write_probe.items" in rewritten and "approve me" not in rewritten and "U+202E" in rewritten, rewritten
    assert browser.eval("document.getElementById('rows').innerText") == "1"
    # The dry run's sample: the row before and after, the database's copy of the hostile text as inert
    # as the agent's, the changed cell marked; and the plan.
    assert browser.eval("document.querySelectorAll('#sample tr.before, #sample tr.after').length") == 2
    after = browser.eval("document.querySelector('#sample tr.after').innerText")
    assert "</td><script>" in after and "U+202E" in after, after
    assert browser.eval("document.querySelectorAll('#sample tr.after td.changed').length") == 1
    assert browser.eval("document.getElementById('plan').innerText").startswith("Update on items")
    assert browser.eval("!!document.querySelector('h1 .badge')")
    assert browser.errors() == []
    # Approve through the form: the write runs once, as the API and the table say.
    browser.submit("#approve", reason="checked by a person")
    assert browser.eval("location.pathname") == "/approval/" + approval
    got = settled(page, approval)
    assert got["status"] == "executed" and got["executed_rows"] == "1" and got["decided_by"] == APPROVER, got
    status, record, _ = api(page, "GET", "/api/approvals/" + approval)
    assert record["status"] == "executed" and record["reason"] == "checked by a person", record
    assert itest.super_query("SELECT flag FROM write_probe.items WHERE id = 1").startswith("</td><script>")
    browser.navigate(origin(page) + "/approval/" + approval)
    assert browser.eval("!!document.getElementById('approve')") is False
    assert "executed" in browser.eval("document.getElementById('record').innerText")
    assert browser.eval("document.title") == approval + " - airlock"


def test_reject_through_the_form(page, browser):
    before = items()
    approval = hold(page, "DELETE FROM write_probe.items WHERE id = 6")
    browser_login(page, browser)
    browser.navigate(origin(page) + "/approval/" + approval)
    assert browser.eval("!!document.getElementById('sample')")
    browser.submit("#reject", reason="not today: ask first")
    assert browser.eval("location.pathname") == "/approval/" + approval
    got = shown(page, approval)
    assert got["status"] == "rejected" and got["reason"] == "not today: ask first" and got["decided_by"] == APPROVER
    assert items() == before
    assert "not today: ask first" in browser.eval("document.getElementById('record').innerText")


class CrossSite(http.server.BaseHTTPRequestHandler):
    """Another origin's page that posts an approval form to the listener as soon as it loads."""
    target = ""

    def do_GET(self):
        body = ("<!DOCTYPE html><html><body><form method=post action=%s>"
                "<input name=csrf value=guessed><input name=reason value=sneaky></form>"
                "<script>document.forms[0].submit()</script></body></html>" % json.dumps(self.target)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_cross_site_form_decides_nothing(page, browser):
    before = items()
    approval = hold(page, "UPDATE write_probe.items SET n = n + 7 WHERE id = 2")
    browser_login(page, browser)
    CrossSite.target = origin(page) + "/approval/%s/approve" % approval
    server = http.server.HTTPServer(("127.0.0.2", 0), CrossSite)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.navigate("http://127.0.0.2:%d/" % server.server_address[1])
        assert itest.wait_until(lambda: browser.eval("location.origin") == origin(page), 10, 0.1)
        time.sleep(0.5)
        assert "Refused" in browser.eval("document.body.innerText")
    finally:
        server.shutdown()
        server.server_close()
    assert shown(page, approval)["status"] == "pending"
    assert items() == before
    # Still pending and still decidable by the person on the page itself.
    browser.navigate(origin(page) + "/approval/" + approval)
    assert browser.eval("!!document.getElementById('approve')")


def test_posts_need_the_session_token_and_this_origin(page):
    before = items()
    approval = hold(page, "UPDATE write_probe.items SET n = n + 9 WHERE id = 3")
    path = "/approval/%s/approve" % approval
    cookie, csrf = logged_in(page)
    other_cookie, other_csrf = logged_in(page)
    refused = [
        post_form(page, path, {"reason": "x"}, cookie),
        post_form(page, path, {"csrf": "0" * 64}, cookie),
        post_form(page, path, {"csrf": other_csrf}, cookie),
        post_form(page, path, {"csrf": csrf}, ""),
        post_form(page, path, {"csrf": csrf}, "__Host-airlock=" + "b" * 64),
        post_form(page, path, {"csrf": csrf}, cookie, {"Origin": "http://127.0.0.2:8000"}),
        post_form(page, path, {"csrf": csrf}, cookie, {"Origin": "null"}),
        post_form(page, path, {"csrf": csrf}, cookie, {"Sec-Fetch-Site": "cross-site"}),
        post_form(page, path, {"csrf": csrf}, cookie, {"Sec-Fetch-Site": "same-site"}),
    ]
    assert [r[0] for r in refused] == [403] * len(refused), [(r[0], r[2][-300:]) for r in refused]
    assert header(refused[0][1], "Content-Security-Policy") == CSP
    # Malformed forms: another type, a repeated field, an unknown one, a NUL, too long.
    assert post_form(page, path, "csrf=%s" % csrf, cookie, {"Content-Type": "text/plain"})[0] == 415
    assert post_form(page, path, "csrf=%s&csrf=%s" % (csrf, csrf), cookie)[0] == 400
    assert post_form(page, path, "csrf=%s&extra=1" % csrf, cookie)[0] == 400
    assert post_form(page, path, "csrf=%s&reason=a%%00b" % csrf, cookie)[0] == 400
    assert post_form(page, path, {"csrf": csrf, "reason": "r" * 1025}, cookie)[0] == 400
    assert post_form(page, path, {"csrf": csrf, "reason": "r" * 9000}, cookie)[0] == 413
    assert post_form(page, "/approval/%s/reject" % approval, {"csrf": csrf}, cookie)[0] == 400
    assert shown(page, approval)["status"] == "pending" and items() == before
    # The same post with the session's token, from this origin, decides.
    status, headers, _ = post_form(page, path, {"csrf": csrf, "reason": "fine as is"}, cookie,
                                   {"Origin": origin(page), "Sec-Fetch-Site": "same-origin"})
    assert status == 303 and header(headers, "Location") == path[:-len("/approve")]
    assert settled(page, approval)["status"] == "executed"
    status, _, body = post_form(page, path, {"csrf": csrf}, cookie)
    assert status == 409 and "no longer pending" in body
    assert request(page, "GET", "/approval/waaaaaaaaaaaaaaaaaaaa", headers={"Cookie": cookie})[0] == 404
    assert request(page, "GET", "/nothing")[0] == 404


def test_logout_ends_the_session(page, browser):
    cookie, csrf = logged_in(page)
    assert post_form(page, "/logout", {"csrf": "1" * 64}, cookie)[0] == 403
    status, headers, _ = post_form(page, "/logout", {"csrf": csrf}, cookie)
    assert status == 303 and "Max-Age=0" in header(headers, "Set-Cookie")
    status, _, body = request(page, "GET", "/", headers={"Cookie": cookie})
    assert status == 200 and 'action="/login"' in body and "Signed in as" not in body
    assert request(page, "GET", "/approval/waaaaaaaaaaaaaaaaaaaa", headers={"Cookie": cookie})[0] == 303
    # In the browser: the logout button ends its session and shows the login form.
    browser.navigate(origin(page) + "/")
    browser.submit("form[action='/logout']")
    assert browser.eval("!!document.querySelector('form[action=\"/login\"]')")
    assert [c for c in browser.call("Network.getCookies", urls=[origin(page) + "/"])["cookies"]
            if c["name"] == "__Host-airlock"] == []


def test_wrong_passwords_are_refused_audited_and_throttled(page, browser):
    browser.navigate(origin(page) + "/")
    browser.submit("form[action='/login']", name=APPROVER, password="wrong")
    assert "wrong approver name or password" in browser.eval("document.getElementById('error').innerText")
    assert "Signed in as" not in browser.eval("document.body.innerText")
    statuses = []
    for _ in range(6):
        status, headers, body = form_login(page, password="still-wrong")
        statuses.append(status)
        if status == 429:
            assert int(header(headers, "Retry-After")) >= 1 and "too many failed logins" in body
            assert header(headers, "Content-Security-Policy") == CSP
            break
    assert statuses[0] == 401 and statuses[-1] == 429, statuses
    # While the wait is due, the right password is refused too.
    assert form_login(page)[0] == 429
    with open(page.audit_log) as f:
        failed = [r for r in map(json.loads, filter(str.strip, f))
                  if r.get("decision") == "login_failed" and r.get("protocol") == "https"]
    assert len(failed) >= len(statuses) and failed[0]["user"] == APPROVER, failed
    # The window passes: the right password logs in again.
    time.sleep(3.5)
    assert form_login(page)[0] == 303


def test_a_reload_that_changes_the_approver_ends_its_sessions(page):
    """Runs last: it gives the approver a new password."""
    cookie, _ = logged_in(page)
    new_password = "rotated-secret"
    with open(page.config) as f:
        text = f.read()
    section = re.search(r"^\[approver %s\]\n(?:[^\[].*\n)*" % APPROVER, text, re.M)
    assert section, text
    rotated = re.sub(r"^scram\s*=.*$", "scram = " + make_verifier(new_password), section.group(0), flags=re.M)
    with open(page.config, "w") as f:
        f.write(text.replace(section.group(0), rotated))
    page.signal(signal.SIGHUP)
    assert itest.wait_until(lambda: api(page, "GET", "/api/approvals", password=new_password)[0] == 200, 10, 0.2)
    status, _, body = request(page, "GET", "/", headers={"Cookie": cookie})
    assert status == 200 and 'action="/login"' in body and "Signed in as" not in body
    assert "its account changed" in page.log()
