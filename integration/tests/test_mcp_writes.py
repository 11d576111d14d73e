"""Governed writes in the wait mode (approval_wait_ms) through the MCP
servers agents use, unchanged: @bytebase/dbhub over Postgres and MySQL,
and @benborla29/mcp-server-mysql with its write switches on. The server's
write waits on its connection while a person approves or rejects it
through the approval listener; the tool call then returns the real
result of the write that ran once, or the rejection and its reason, and
the database shows exactly that.

This module's airlockd is its own (an approval listener, a store of its
own, writer waiting up to 60 s), and it writes tables of its own:
mcp_probe.items in Postgres and in MariaDB."""

import time

import pytest

import itest
import mcpwire
from private_airlockd import PrivateAirlockd, free_port
from test_mcp_servers import DBHUB, MYSQL_MCP, servers_installed  # noqa: F401 - the fixture guards this module
from test_pg_approvals import api, empty_store, in_thread

MY_HOSTS = ("'airlock_ro'@'127.0.0.1'", "'airlock_ro'@'localhost'", "'airlock_rw'@'127.0.0.1'",
            "'airlock_rw'@'localhost'")
WRITER_PASSWORD = "writer-secret"


@pytest.fixture(scope="module", autouse=True)
def probe_tables():
    itest.super_query("""
        DROP SCHEMA IF EXISTS mcp_probe CASCADE;
        CREATE SCHEMA mcp_probe;
        CREATE TABLE mcp_probe.items (id int PRIMARY KEY, flag text, n int);
        INSERT INTO mcp_probe.items SELECT g, 'x', g FROM generate_series(1, 6) g;
        GRANT USAGE ON SCHEMA mcp_probe TO airlock_ro, airlock_rw;
        GRANT SELECT ON mcp_probe.items TO airlock_ro;
        GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_probe.items TO airlock_rw;
    """)
    grants = "".join("GRANT SELECT ON mcp_probe.items TO %s;" % h for h in MY_HOSTS)
    grants += "".join("GRANT INSERT, UPDATE, DELETE ON mcp_probe.items TO %s;" % h for h in MY_HOSTS[2:])
    itest.my_super_query("DROP DATABASE IF EXISTS mcp_probe; CREATE DATABASE mcp_probe;"
                         "CREATE TABLE mcp_probe.items (id INT PRIMARY KEY, flag VARCHAR(20), n INT);"
                         "INSERT INTO mcp_probe.items VALUES (1, 'x', 1), (2, 'x', 2), (3, 'x', 3), (4, 'x', 4),"
                         " (5, 'x', 5), (6, 'x', 6);" + grants)
    yield
    itest.super_query("DROP SCHEMA mcp_probe CASCADE")
    itest.my_super_query("DROP DATABASE mcp_probe")


@pytest.fixture(scope="module")
def waiting():
    store = empty_store("mcpwait")
    port = free_port()
    d = PrivateAirlockd("mcpwait", {"pool_min": 0, "approval_store": store,
                                    "approval_listen": "127.0.0.1:%d" % port},
                        uid_base=1004200000, sections={"user writer": {
                            "tables": "public.orders, mcp_probe.items, pg_catalog.*, information_schema.*",
                            "write_tables": "mcp_probe.items",
                            "mysql_tables": "shop.orders, mcp_probe.items, information_schema.*",
                            "mysql_write_tables": "mcp_probe.items",
                            "approval_wait_ms": "60000"}})
    d.approval_port = port
    d.start()
    assert itest.wait_until(lambda: PrivateAirlockd.accepts(port), 10, 0.1)
    yield d
    assert d.stop() in (0, -15)


def pg_items():
    return itest.super_query("SELECT string_agg(id || ':' || flag || ':' || n, ',' ORDER BY id) FROM mcp_probe.items")


def my_items():
    return itest.my_super_query("SELECT GROUP_CONCAT(CONCAT_WS(':', id, flag, n) ORDER BY id) FROM mcp_probe.items")


def held_with(d, marker):
    """The id of the one pending write whose statement holds marker, once it is held."""
    for _ in range(300):
        status, listed, _ = api(d, "GET", "/api/approvals")
        assert status == 200, listed
        mine = [r["id"] for r in listed if marker in r["statement"]]
        if mine:
            assert len(mine) == 1, listed
            return mine[0]
        time.sleep(0.2)
    raise AssertionError("never held: " + marker)


def decide(d, marker, approve, reason="checked"):
    approval = held_with(d, marker)
    action = "approve" if approve else "reject"
    assert api(d, "POST", "/api/approvals/%s/%s" % (approval, action), {"reason": reason})[0] == 200
    return approval


def call(argv, env, tool, sql):
    """The response of one tools/call of tool with sql, run by the MCP server argv in a thread."""
    return in_thread(lambda: mcpwire.run(argv, [("tools/call", {"name": tool, "arguments": {"sql": sql}})],
                                         env=env, timeout=120)[1])


def dbhub(d, engine):
    if engine == "postgres":
        dsn = "postgres://writer:%s@127.0.0.1:%d/shop?sslmode=disable" % (WRITER_PASSWORD, d.pg_port)
    else:
        dsn = "mysql://writer:%s@127.0.0.1:%d/mcp_probe?sslmode=disable" % (WRITER_PASSWORD, d.my_port)
    return ["node", DBHUB, "--transport", "stdio", "--dsn", dsn], dict(itest.clean_env(), DSN=dsn)


def finished(t, out):
    t.join(90)
    assert not t.is_alive(), "the tool call never returned"
    assert "error" not in out, out
    return out["value"]


def is_error(resp):
    return bool(resp.get("error")) or bool(resp.get("result", {}).get("isError")) or \
        "error" in mcpwire.text(resp).lower()


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_dbhub_waits_for_the_approval_and_gets_the_real_result(waiting, engine):
    argv, env = dbhub(waiting, engine)
    items = pg_items if engine == "postgres" else my_items
    before = items()
    sql = "UPDATE mcp_probe.items SET flag = 'mcp', n = n + 100 WHERE id IN (1, 2)"
    t, out = call(argv, env, "execute_sql", sql)
    approval = decide(waiting, "flag = 'mcp'", True)
    resp = finished(t, out)
    assert not is_error(resp), resp
    assert items() == before.replace("1:x:1", "1:mcp:101").replace("2:x:2", "2:mcp:102")
    # Run once: the record says executed, with the rows the tool saw written.
    status, record, _ = api(waiting, "GET", "/api/approvals/%s" % approval)
    assert status == 200 and record["status"] == "executed" and record["executed_rows"] == 2, record


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_dbhub_gets_the_rejection_and_its_reason(waiting, engine):
    argv, env = dbhub(waiting, engine)
    items = pg_items if engine == "postgres" else my_items
    before = items()
    t, out = call(argv, env, "execute_sql", "DELETE FROM mcp_probe.items WHERE id = 3")
    decide(waiting, "WHERE id = 3", False, reason="keep row three")
    resp = finished(t, out)
    text = mcpwire.text(resp) if "result" in resp else str(resp)
    assert "rejected" in text and "keep row three" in text, resp
    assert items() == before


def test_mcp_server_mysql_waits_for_the_approval(waiting):
    env = dict(itest.clean_env(), MYSQL_HOST="127.0.0.1", MYSQL_PORT=str(waiting.my_port), MYSQL_USER="writer",
               MYSQL_PASS=WRITER_PASSWORD, MYSQL_DB="mcp_probe", MYSQL_DISABLE_READ_ONLY_TRANSACTIONS="true",
               ALLOW_INSERT_OPERATION="true", ALLOW_UPDATE_OPERATION="true", ALLOW_DELETE_OPERATION="true",
               MYSQL_SSL="false")
    before = my_items()
    t, out = call(["node", MYSQL_MCP], env, "mysql_query", "INSERT INTO mcp_probe.items VALUES (7, 'mcp7', 7)")
    decide(waiting, "'mcp7'", True)
    resp = finished(t, out)
    assert not is_error(resp), resp
    assert my_items() == before + ",7:mcp7:7"
