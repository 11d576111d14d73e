"""MCP servers agents use, from the npm registry, pointed at airlock and
driven over stdio as an agent's host drives them: @bytebase/dbhub with a
Postgres and a MySQL DSN, and @benborla29/mcp-server-mysql. Each lists
the schema (only the allowed tables), runs a read, attempts a write
(refused with airlock's message) and meets a truncated result it cannot
mistake for a whole one (the strict user, truncation_is_error = on).

mcp-server-mysql sends SET SESSION TRANSACTION READ WRITE after every read
unless started with MYSQL_DISABLE_READ_ONLY_TRANSACTIONS=true; airlock
refuses that statement, so the server is run that way, as docs/clients.md says."""

import os

import pytest

import itest
import mcpwire

NODE_MODULES = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")
DBHUB = os.path.join(NODE_MODULES, "@bytebase/dbhub/dist/index.js")
MYSQL_MCP = os.path.join(NODE_MODULES, "@benborla29/mcp-server-mysql/dist/index.js")
PG_PORT = int(os.environ.get("AIRLOCK_LISTEN_PORT", "6432"))


@pytest.fixture(scope="module", autouse=True)
def servers_installed():
    for path in (DBHUB, MYSQL_MCP):
        if not os.path.exists(path):
            pytest.fail("%s is not installed: integration/tools/lib.sh node_pg_install" % path)


def dbhub(dsn, requests):
    env = dict(itest.clean_env(), DSN=dsn)
    return mcpwire.run(["node", DBHUB, "--transport", "stdio", "--dsn", dsn], requests, env=env)


def sql_call(sql, tool="execute_sql"):
    return ("tools/call", {"name": tool, "arguments": {"sql": sql}})


DSNS = {
    "postgres": "postgres://%s:agent-secret@127.0.0.1:%d/shop?sslmode=disable",
    "mysql": "mysql://%s:agent-secret@127.0.0.1:" + str(itest.MY_PORT) + "/shop?sslmode=disable",
}


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_dbhub_lists_reads_and_is_refused(engine):
    dsn = DSNS[engine] % (("agent", PG_PORT) if engine == "postgres" else ("agent",))
    out = dbhub(dsn, [
        ("tools/call", {"name": "search_objects", "arguments": {"object_type": "table"}}),
        sql_call("SELECT id, note FROM orders WHERE id <= 3 ORDER BY id"),
        sql_call("DELETE FROM orders WHERE id = 1"),
        sql_call("SELECT * FROM staff_salaries"),
        sql_call("SELECT 7 AS seven"),
    ])
    tables = mcpwire.text(out[1])
    for name in ("orders", "customers", "products"):
        assert name in tables, tables
    assert "staff_salaries" not in tables, tables
    rows = mcpwire.text(out[2])
    assert "order 1" in rows and "order 3" in rows and "order 4" not in rows, rows
    assert "NOT_READ_ONLY" in mcpwire.text(out[3]) or "read-only" in mcpwire.text(out[3]).lower(), out[3]
    assert "TABLE_NOT_ALLOWED" in mcpwire.text(out[4]), out[4]
    assert "7" in mcpwire.text(out[5])


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_dbhub_sees_a_truncated_result(engine):
    """The strict user (max_rows 5, truncation_is_error): the agent gets an error, not five rows."""
    dsn = DSNS[engine] % (("strict", PG_PORT) if engine == "postgres" else ("strict",))
    out = dbhub(dsn, [sql_call("SELECT id FROM orders ORDER BY id LIMIT 20"),
                      sql_call("SELECT id FROM orders ORDER BY id LIMIT 3")])
    assert "RESULT_TRUNCATED" in mcpwire.text(out[1]), out[1]
    assert "RESULT_TRUNCATED" not in mcpwire.text(out[2])


def mysql_mcp(user, requests, writes="false"):
    env = dict(itest.clean_env(), MYSQL_HOST="127.0.0.1", MYSQL_PORT=str(itest.MY_PORT), MYSQL_USER=user,
               MYSQL_PASS=itest.AGENT_PASSWORD, MYSQL_DB="shop", MYSQL_DISABLE_READ_ONLY_TRANSACTIONS="true",
               ALLOW_INSERT_OPERATION=writes, ALLOW_UPDATE_OPERATION=writes, ALLOW_DELETE_OPERATION=writes,
               MYSQL_SSL="false")
    return mcpwire.run(["node", MYSQL_MCP], requests, env=env)


def test_mcp_server_mysql_lists_reads_and_is_refused():
    out = mysql_mcp("agent", [
        ("resources/list", {}),
        sql_call("SELECT id, note FROM orders WHERE id <= 3 ORDER BY id", tool="mysql_query"),
        sql_call("SELECT * FROM staff_salaries", tool="mysql_query"),
        sql_call("SELECT 7 AS seven", tool="mysql_query"),
    ])
    names = " ".join(r.get("name", "") + r.get("uri", "") for r in out[1]["result"]["resources"])
    for name in ("orders", "customers", "products"):
        assert name in names, names
    assert "staff_salaries" not in names, names
    rows = mcpwire.text(out[2])
    assert "order 1" in rows and "order 3" in rows, rows
    assert "TABLE_NOT_ALLOWED" in mcpwire.text(out[3]), out[3]
    assert "7" in mcpwire.text(out[4])


def test_mcp_server_mysql_write_reaches_airlock_and_is_refused():
    """With the server's own write switches on, its DELETE reaches airlock, which refuses it."""
    out = mysql_mcp("agent", [sql_call("DELETE FROM orders WHERE id = 1", tool="mysql_query"),
                              sql_call("SELECT COUNT(*) AS n FROM orders WHERE id = 1", tool="mysql_query")],
                    writes="true")
    assert "NOT_READ_ONLY" in mcpwire.text(out[1]), out[1]
    assert "1" in mcpwire.text(out[2])


def test_mcp_server_mysql_sees_a_truncated_result():
    out = mysql_mcp("strict", [sql_call("SELECT id FROM orders ORDER BY id LIMIT 20", tool="mysql_query")])
    assert "RESULT_TRUNCATED" in mcpwire.text(out[1]), out[1]
