"""The metrics listener (metrics_listen): GET /metrics answers Prometheus'
text format with the statements each protocol ran, refused and answered
locally by user, decision and code, the failed logins, the sessions now
and the jobs live. The counts agree with the audit log; promtool accepts
the text; a real Prometheus scrapes it and answers a query for a series.

This module's airlockd is its own, with metrics_listen on a free port."""

import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
import urllib.request

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd, free_port

# One sample line: name{labels} value (the labels' values may hold escaped quotes).
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@pytest.fixture(scope="module")
def private():
    port = free_port()
    d = PrivateAirlockd("metrics", {"pool_min": 0, "metrics_listen": "127.0.0.1:%d" % port}, uid_base=1000740000)
    d.metrics_port = port
    d.start()
    yield d
    assert d.stop() in (0, -15)


def scrape(d):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % d.metrics_port, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        return r.read().decode()


def samples(text):
    """{(name, frozenset of (label, value))): value} of every sample line."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "not a sample line: %r" % line
        labels = frozenset(LABEL.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(s, name, **labels):
    """The sum of name's samples whose labels include labels."""
    want = set(labels.items())
    return sum(v for (n, ls), v in s.items() if n == name and want <= ls)


def pg_connect(d, password=itest.AGENT_PASSWORD):
    # Without TLS: libpq's sslmode=prefer tries again in plain text after a failed login, a second failure.
    conn = psycopg2.connect("postgresql://agent:%s@127.0.0.1:%d/shop" % (password, d.pg_port), connect_timeout=10,
                            sslmode="disable")
    conn.autocommit = True
    return conn


def my_connect(d, password=itest.AGENT_PASSWORD):
    return pymysql.connect(host="127.0.0.1", port=d.my_port, user="agent", password=password, database="shop",
                           connect_timeout=10, read_timeout=60)


@pytest.fixture(scope="module")
def traffic(private):
    """Runs, refuses and answers locally a few statements over both protocols, and fails two logins."""
    before = samples(scrape(private))
    conn = pg_connect(private)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id, amount FROM orders ORDER BY id LIMIT 3")
            assert len(cur.fetchall()) == 3
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 2")
            cur.fetchall()
            with pytest.raises(psycopg2.Error):
                cur.execute("SELECT * FROM staff_salaries")
            cur.execute("SET application_name = 'metrics'")
        # While this session is open it is counted as logged in.
        during = samples(scrape(private))
    finally:
        conn.close()
    conn = my_connect(private)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM orders ORDER BY id LIMIT 4")
            assert len(cur.fetchall()) == 4
            with pytest.raises(pymysql.err.MySQLError):
                cur.execute("SELECT * FROM staff_salaries")
    finally:
        conn.close()
    with pytest.raises(psycopg2.OperationalError):
        pg_connect(private, password="wrong-password")
    with pytest.raises(pymysql.err.OperationalError):
        my_connect(private, password="wrong-password")
    # The audit record (and so the count) of the last statement is written as its answer goes out.
    itest.wait_until(lambda: value(samples(scrape(private)), "airlock_failed_logins_total") >= 2, 10, 0.2)
    return before, during, samples(scrape(private))


def test_statements_are_counted_by_protocol_user_decision_and_code(traffic):
    before, _, after = traffic

    def moved(**kw):
        return value(after, "airlock_statements_total", **kw) - value(before, "airlock_statements_total", **kw)

    assert moved(protocol="pg", user="agent", decision="run", code="none") >= 2
    assert moved(protocol="mysql", user="agent", decision="run", code="none") >= 1
    for proto in ("pg", "mysql"):
        # The hidden table's refusal, under the airlock code the audit record names (compared below).
        assert moved(protocol=proto, user="agent", decision="refused") == 1
        assert moved(protocol=proto, user="agent", decision="refused", code="none") == 0
    assert moved(protocol="pg", user="agent", decision="local") >= 1
    # Rows and bytes went to agent; each statement's time is in the histogram.
    assert value(after, "airlock_rows_total", user="agent") - value(before, "airlock_rows_total", user="agent") >= 9
    assert value(after, "airlock_bytes_total", user="agent") > value(before, "airlock_bytes_total", user="agent")
    for proto in ("pg", "mysql"):
        count = value(after, "airlock_statement_duration_seconds_count", protocol=proto)
        assert count == value(after, "airlock_statements_total", protocol=proto)
        assert value(after, "airlock_statement_duration_seconds_bucket", protocol=proto, le="+Inf") == count


def test_counts_agree_with_the_audit_log(private, traffic):
    """Each (user, decision, code) counts as many statements as the audit log has records, and each
    protocol as many failed logins."""
    now = samples(scrape(private))
    want, want_failed = {}, {}
    with open(private.audit_log) as f:
        for line in f:
            r = json.loads(line)
            if r.get("decision") == "login_failed":
                want_failed[r["protocol"]] = want_failed.get(r["protocol"], 0) + 1
            elif "decision" in r and "approval" not in r:
                key = (r["user"], r["decision"], r.get("code", "none"))
                want[key] = want.get(key, 0) + 1
    got, got_failed = {}, {}
    for (name, labels), v in now.items():
        ls = dict(labels)
        if name == "airlock_statements_total":
            key = (ls["user"], ls["decision"], ls["code"])
            got[key] = got.get(key, 0) + int(v)
        elif name == "airlock_failed_logins_total":
            got_failed[ls["protocol"]] = int(v)
    assert got == want
    assert got_failed == want_failed


def config_series(s):
    return {dict(ls)["checksum"]: v for (n, ls), v in s.items() if n == "airlock_config_info"}


def test_config_checksum_in_metrics_and_every_audit_record(private, traffic):
    """airlock_config_info names the SHA-256 of the configuration in force, as its only series, and each
    audit record carries the same; after a reload both name the new text and the old series is gone."""
    import hashlib
    import signal

    def checksum():
        with open(private.config, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    first = checksum()
    assert config_series(samples(scrape(private))) == {first: 1}
    with open(private.audit_log) as f:
        records = [json.loads(line) for line in f]
    assert records and all(r.get("config") == first for r in records)

    with open(private.config, "a") as f:
        f.write("# edited for the reload test\n")
    second = checksum()
    assert second != first
    private.signal(signal.SIGHUP)
    assert itest.wait_until(lambda: config_series(samples(scrape(private))) == {second: 1}, 15, 0.2)
    conn = pg_connect(private)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
    finally:
        conn.close()
    with open(private.audit_log) as f:
        last = [json.loads(line) for line in f][-1]
    assert last["config"] == second


def test_failed_logins_and_sessions(traffic):
    before, during, after = traffic
    for proto in ("pg", "mysql"):
        assert (value(after, "airlock_failed_logins_total", protocol=proto) -
                value(before, "airlock_failed_logins_total", protocol=proto)) == 1
    assert value(during, "airlock_sessions", protocol="pg", state="logged_in") >= 1
    assert ("airlock_sessions", frozenset({("protocol", "mysql"), ("state", "logging_in")})) in after
    assert ("airlock_jobs_live", frozenset()) in after
    # The validator's round trips are timed, one or more a statement.
    assert value(after, "airlock_validator_call_duration_seconds_count") > 0


def test_targets_show_connections_pools_and_the_queue(traffic):
    """Each target's backend connections, its bound, its warm runners and
    what waits for it; the suite's config bounds shop at 30."""
    after = traffic[2]
    assert value(after, "airlock_backend_connections_max", target="shop") == 30
    assert value(after, "airlock_backend_connections_max", target="shop_maria") == 30
    for target in ("shop", "shop_writer", "shop_maria", "shop_maria_writer"):
        assert ("airlock_backend_connections", frozenset({("target", target)})) in after
        assert ("airlock_queue_waiting", frozenset({("target", target)})) in after
        assert ("airlock_kept_sessions", frozenset({("target", target)})) in after
        for state in ("ready", "busy", "starting"):
            assert ("airlock_pool_runners", frozenset({("target", target), ("state", state)})) in after
    # The traffic's Postgres statements left shop a kept session (idle for 60 s), which is a connection too;
    # MariaDB targets keep none.
    assert 1 <= value(after, "airlock_kept_sessions", target="shop") <= value(after, "airlock_backend_connections",
                                                                                 target="shop")
    assert value(after, "airlock_kept_sessions", target="shop_maria") == 0
    # pool_min is 0 here and nothing runs: no runner holds a connection, none waits.
    assert value(after, "airlock_backend_connections", target="shop") <= 30
    assert value(after, "airlock_queue_depth") == 0


def test_a_running_statement_is_a_busy_runner(private):
    """While a statement runs, its target has a busy runner; once it answered, none."""
    def busy():
        return value(samples(scrape(private)), "airlock_pool_runners", target="shop_maria", state="busy")

    conn = my_connect(private)
    try:
        done = []
        worker = threading.Thread(target=lambda: done.append(conn.cursor().execute("SELECT SLEEP(2)")))
        worker.start()
        assert itest.wait_until(lambda: busy() >= 1, 10, 0.05)
        worker.join(30)
        assert done == [1]
        assert itest.wait_until(lambda: busy() == 0, 10, 0.1)
    finally:
        conn.close()


def test_phases_are_timed(traffic):
    """Each statement's phases are in airlock_phase_seconds: every statement's total, the validator's time
    of those it checked, and for each job its wait for room, for a runner (pool_min is 0 here, so every
    runner is a fresh container, whose start is timed too) and the backend's answer. A job's phases lie
    inside its statement's total, so their sums do too."""
    before, _, after = traffic

    def moved(name, **kw):
        return value(after, name, **kw) - value(before, name, **kw)

    statements = moved("airlock_statements_total")
    assert moved("airlock_phase_seconds_count", phase="total") == statements
    assert moved("airlock_phase_seconds_count", phase="validation") >= 4
    jobs = moved("airlock_phase_seconds_count", phase="backend")
    # Three reads ran in runners (two over Postgres, one over MySQL).
    assert jobs >= 3
    for phase in ("queue_wait", "runner_wait", "container_start"):
        assert moved("airlock_phase_seconds_count", phase=phase) >= 3, phase
    started = moved("airlock_containers_total", result="started")
    assert started >= 3
    runtimes = {dict(ls)["runtime"] for (n, ls) in after if n == "airlock_containers_total"}
    assert runtimes <= {"oci", "docker"} and runtimes
    # Simple-protocol statements here: their checks count inside their total too.
    inside = sum(moved("airlock_phase_seconds_sum", phase=p)
                 for p in ("validation", "queue_wait", "runner_wait", "backend"))
    total = moved("airlock_phase_seconds_sum", phase="total")
    assert 0 < inside <= total + 0.001 * statements
    # A fresh container takes a measurable while; no phase is negative.
    assert moved("airlock_phase_seconds_sum", phase="container_start") > 0
    for p in ("validation", "queue_wait", "runner_wait", "container_start", "backend", "total"):
        assert value(after, "airlock_phase_seconds_sum", phase=p) >= 0
        count = value(after, "airlock_phase_seconds_count", phase=p)
        assert value(after, "airlock_phase_seconds_bucket", phase=p, le="+Inf") == count
    # Each failed login's wait is observed (none waited here: the first failure of each name waits 0).
    assert moved("airlock_failed_login_wait_seconds_count") == 2


def status(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


def test_other_paths_methods_bodies_and_big_headers_are_refused(private):
    port = private.metrics_port
    assert status(port, "GET", "/metrics?x=1") == 200
    assert status(port, "GET", "/") == 404
    assert status(port, "GET", "/metrics/../admin") == 404
    assert status(port, "POST", "/metrics", headers={"Content-Length": "0"}) == 501
    assert status(port, "DELETE", "/metrics") == 501
    # A body is refused before it is read, whatever the method.
    assert status(port, "GET", "/metrics", body="x" * 100, headers={"Content-Length": "100"}) == 413
    assert status(port, "POST", "/metrics", body="x=1") == 413
    assert status(port, "GET", "/metrics", headers={"X-Big": "a" * 9000}) == 400


def test_promtool_accepts_the_text(private, traffic):
    text = scrape(private)
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr + "\n" + text


def query(port, q):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q}))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
    except OSError:
        return None
    return body["data"]["result"] if body.get("status") == "success" else None


def test_prometheus_scrapes_the_listener(private, traffic):
    tmp = tempfile.mkdtemp(prefix="airlock-prometheus-")
    port = free_port()
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: airlock\n    metrics_path: /metrics\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % private.metrics_port)
    log = open(os.path.join(tmp, "prometheus.log"), "wb")
    proc = subprocess.Popen(["prometheus", "--config.file=" + config, "--web.listen-address=127.0.0.1:%d" % port,
                             "--storage.tsdb.path=" + os.path.join(tmp, "data")],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        found = itest.wait_until(
            lambda: [r for r in query(port, 'airlock_statements_total{protocol="pg",decision="run"}') or []
                     if r["metric"].get("user") == "agent"], 30, 0.5)
        with open(os.path.join(tmp, "prometheus.log"), errors="replace") as f:
            assert found, "no series after 30 s; prometheus said:\n" + f.read()[-4000:]
        assert found[0]["metric"]["job"] == "airlock"
        assert float(found[0]["value"][1]) >= 2
        up = query(port, 'up{job="airlock"}')
        assert up and up[0]["value"][1] == "1", up
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
