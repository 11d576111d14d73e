"""The admin console: the virtual database "airlock" on the Postgres
listener, for [admin NAME] accounts only (docs/admin.md). Read-only
commands run on the shared airlockd; KILL_CLIENT, RELOAD, PAUSE / RESUME
and SHUTDOWN on a private one."""

import csv
import io
import json
import threading
import time

import psycopg2
import pytest

import itest
import pgwire
from private_airlockd import PrivateAirlockd

HOST, PORT, USER, PASSWORD, DB = pgwire.url_parts(itest.AGENT_URL)
ADMIN_PASSWORD = "admin-secret"

COLUMNS = {
    "SHOW POOLS": ["target", "engine", "connections", "max_db_connections", "ready", "busy", "starting",
                   "waiting", "kept"],
    "SHOW STATS": ["stat", "value"],
    "SHOW CLIENTS": ["id", "protocol", "user", "client", "state", "connected_seconds", "application_name",
                     "fingerprint"],
    "SHOW JOBS": ["id", "state", "age_ms", "runner_uid", "target"],
    "SHOW CONFIG": ["key", "value"],
    "SHOW USERS": ["user", "max_jobs", "max_connections", "max_rows", "max_bytes", "timeout_ms", "writes",
                   "sessions", "statements_per_minute", "rows_per_minute", "bytes_per_minute",
                   "runner_seconds_per_hour", "refused_by_budget"],
}


def dsn(port=PORT, user="admin", password=ADMIN_PASSWORD, dbname="airlock"):
    return "host=127.0.0.1 port=%d user=%s dbname=%s password=%s sslmode=disable" % (port, user, dbname, password)


def admin(port=PORT):
    return itest.connect(dsn(port), autocommit=True)


def run(conn, sql):
    """(column names, rows, command tag) of one console command."""
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchall() if cur.description else []
        return names, rows, cur.statusmessage


def as_dicts(conn, sql):
    names, rows, _ = run(conn, sql)
    return [dict(zip(names, r)) for r in rows]


def login_error(user, password, database, port=PORT):
    with pgwire.Conn(HOST, port) as c:
        return c.login(user, password, database)


@pytest.fixture
def console():
    conn = admin()
    try:
        yield conn
    finally:
        conn.close()


def test_psql_renders_each_show():
    for sql, names in COLUMNS.items():
        r = itest.psql(dsn(), sql, extra=("--csv",))
        assert r.returncode == 0, r.stderr
        rows = list(csv.reader(io.StringIO(r.stdout)))
        assert rows[0] == names, (sql, rows[0])
        assert all(len(row) == len(names) for row in rows[1:])


def test_each_show_has_its_columns_and_rows(console):
    for sql, names in COLUMNS.items():
        got, rows, tag = run(console, sql)
        assert got == names, sql
        assert tag == "SHOW %d" % len(rows), (sql, tag)
    pools = as_dicts(console, "show pools;")
    assert {p["target"]: p["engine"] for p in pools}["shop"] == "postgres"
    stats = dict(run(console, "Show Stats")[1])
    assert {"validator_calls", "validator_failures", "jobs_live", "queue_depth", "uptime_seconds",
            "statements_run", "statements_refused", "statements_admin"} <= set(stats)
    assert int(stats["statements_admin"]) >= 1
    assert int(stats["uptime_seconds"]) >= 0
    users = {u["user"]: u for u in as_dicts(console, "SHOW USERS")}
    assert users["agent"]["writes"] == "deny"
    assert int(users["agent"]["max_rows"]) == 1000
    assert "admin" not in users and "approver" not in users
    config = dict(run(console, "SHOW CONFIG")[1])
    assert len(config["config_checksum"]) == 64
    assert config["pg_listen"].endswith(":%d" % PORT)


def test_clients_lists_a_live_agent_session(console):
    agent = itest.connect(itest.with_params(itest.AGENT_URL, application_name="admin-seen"), autocommit=True)
    try:
        with agent.cursor() as cur:
            cur.execute("SELECT 1")
        mine = [c for c in as_dicts(console, "SHOW CLIENTS") if c["application_name"] == "admin-seen"]
        assert len(mine) == 1, mine
        assert mine[0]["user"] == "agent" and mine[0]["protocol"] == "pg"
        assert mine[0]["state"] == "idle" and mine[0]["fingerprint"] == ""
        assert mine[0]["client"] == "127.0.0.1"
        me = [c for c in as_dicts(console, "SHOW CLIENTS") if c["protocol"] == "admin"]
        assert me and me[0]["user"] == "admin"
    finally:
        agent.close()


def test_no_verifier_or_secret_is_shown(console):
    text = repr([run(console, sql)[1] for sql in COLUMNS])
    assert "SCRAM-SHA-256$" not in text
    assert itest.backend_password() not in text
    for password in ("agent-secret", "admin-secret", "approver-secret", "writer-secret"):
        assert password not in text


def test_wrong_kinds_of_login_fail_as_a_wrong_password():
    wrong = login_error("admin", "wrong-secret", "airlock")
    agent = login_error(USER, PASSWORD, "airlock")
    elsewhere = login_error("admin", ADMIN_PASSWORD, DB)
    for err, name in ((wrong, "admin"), (agent, USER), (elsewhere, "admin")):
        assert err is not None
        assert err["C"] == "28P01", err
        assert err["M"] == 'password authentication failed for user "%s"' % name
    assert login_error("admin", ADMIN_PASSWORD, "airlock") is None


def test_unknown_or_malformed_command_errors_and_the_session_goes_on(console):
    for sql, state in (("SELECT 1", "0A000"), ("SHOW POOLS EXTRA", "0A000"), ("KILL_CLIENT abc", "42601"),
                       ("SHOW " + "X" * 300, "42601"), ("BEGIN", "0A000")):
        with pytest.raises(psycopg2.Error) as e:
            run(console, sql)
        assert e.value.pgcode == state, (sql, e.value.pgerror)
        assert run(console, "SHOW STATS")[0] == ["stat", "value"]
    with pytest.raises(psycopg2.Error) as e:
        run(console, "KILL_CLIENT 1")
    assert e.value.pgcode == "42704"


def test_commands_are_audited(console):
    def admin_records():
        with open(itest.AUDIT_LOG) as f:
            return [r for r in map(json.loads, filter(None, f.read().splitlines())) if r.get("decision") == "admin"]

    before = len(admin_records())
    run(console, "SHOW POOLS")
    assert itest.wait_until(lambda: len(admin_records()) > before, 5, 0.1)
    assert admin_records()[-1]["user"] == "admin"


@pytest.fixture(scope="module")
def private():
    d = PrivateAirlockd("adminconsole", {"pool_min": 0}, uid_base=1004400000).start()
    yield d
    if d.alive():
        d.stop()


def test_kill_client_closes_an_agent_session(private):
    agent = private.connect(application_name="to-kill")
    conn = admin(private.pg_port)
    try:
        ids = [c["id"] for c in as_dicts(conn, "SHOW CLIENTS") if c["application_name"] == "to-kill"]
        assert len(ids) == 1
        assert run(conn, "kill_client %s;" % ids[0])[2] == "KILL_CLIENT"
        with pytest.raises(psycopg2.Error):
            with agent.cursor() as cur:
                cur.execute("SELECT 1")
        # Closing over TLS, it is listed as closing until its last bytes went out.
        assert itest.wait_until(
            lambda: not [c for c in as_dicts(conn, "SHOW CLIENTS") if c["application_name"] == "to-kill"], 5, 0.1)
        assert "killed by admin admin" in private.log()
    finally:
        agent.close()
        conn.close()


def test_reload_answers_and_reports_a_refusal(private):
    conn = admin(private.pg_port)
    original = open(private.config).read()
    try:
        assert run(conn, "RELOAD")[2] == "RELOAD"
        with open(private.config, "w") as f:
            f.write(original + "\n[nonsense\n")
        with pytest.raises(psycopg2.Error) as e:
            run(conn, "RELOAD")
        assert e.value.pgcode == "22023"
        assert run(conn, "SHOW STATS")[0] == ["stat", "value"]
    finally:
        with open(private.config, "w") as f:
            f.write(original)
        conn.close()
    conn = admin(private.pg_port)
    try:
        assert run(conn, "RELOAD")[2] == "RELOAD"
    finally:
        conn.close()


def test_pause_holds_new_statements_until_resume(private):
    agent = private.connect(application_name="paused")
    conn = admin(private.pg_port)
    done = {}

    def query():
        with agent.cursor() as cur:
            cur.execute("SELECT 41 + 1")
            done["rows"] = cur.fetchall()

    try:
        assert run(conn, "PAUSE")[2] == "PAUSE"
        t = threading.Thread(target=query)
        t.start()
        time.sleep(2)
        assert "rows" not in done
        state = [c["state"] for c in as_dicts(conn, "SHOW CLIENTS") if c["application_name"] == "paused"]
        assert state == ["paused"]
        assert run(conn, "RESUME")[2] == "RESUME"
        t.join(60)
        assert done.get("rows") == [(42,)]
    finally:
        run(conn, "RESUME")
        agent.close()
        conn.close()


def test_shutdown_wait_for_clients_drains_the_server(private):
    agent = private.connect()
    conn = admin(private.pg_port)
    try:
        assert run(conn, "SHUTDOWN WAIT_FOR_CLIENTS")[2] == "SHUTDOWN"
        assert private.wait_exit(30) == 0, private.log()
    finally:
        agent.close()
        conn.close()
