"""The MCP server agents use for Postgres (@modelcontextprotocol/server-postgres,
from the npm registry), pointed at airlock, driven over its stdio JSON-RPC
as an agent's host would: its schema listing shows exactly the allowed
tables, a hidden table has no schema, and its query tool gets airlock's
refusals and the filtered rows."""

import json
import os

import pytest

import itest
import mcpwire

NODE_MODULES = os.environ.get("AIRLOCK_NODE_PATH", "/var/lib/airlock-demo/node/node_modules")
SERVER = os.path.join(NODE_MODULES, "@modelcontextprotocol/server-postgres/dist/index.js")
SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")


def mcp(url, requests):
    """Runs the server with url, sends the handshake and requests; returns the responses by id."""
    return mcpwire.run(["node", SERVER, url], requests, env=itest.clean_env())


@pytest.fixture(scope="module", autouse=True)
def server_installed():
    if not os.path.exists(SERVER):
        pytest.fail("the MCP server is not installed: integration/tools/lib.sh node_pg_install")


def resource_names(resp):
    return sorted(r["name"] for r in resp["result"]["resources"])


def test_schema_listing_shows_only_allowed_tables():
    out = mcp(itest.AGENT_URL, [
        ("resources/list", {}),
        ("resources/read", {"uri": "postgres://127.0.0.1:6432/staff_salaries/schema"}),
        ("resources/read", {"uri": "postgres://127.0.0.1:6432/orders/schema"}),
    ])
    assert resource_names(out[1]) == ["\"customers\" database schema", "\"orders\" database schema",
                                      "\"products\" database schema"]
    assert json.loads(out[2]["result"]["contents"][0]["text"]) == []
    columns = json.loads(out[3]["result"]["contents"][0]["text"])
    assert [c["column_name"] for c in columns] == ["id", "customer_id", "amount", "note", "created_at"]


def test_query_tool_gets_refusals_and_filtered_rows():
    out = mcp(SUPPORT_URL, [
        ("resources/list", {}),
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT max(customer_id) AS m FROM orders"}}),
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT * FROM staff_salaries"}}),
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT email FROM customers WHERE id = 2"}}),
    ])
    assert resource_names(out[1]) == ["\"customers\" database schema", "\"orders\" database schema"]
    assert json.loads(out[2]["result"]["content"][0]["text"]) == [{"m": 100}]
    refused = out[3]
    text = json.dumps(refused)
    assert "TABLE_NOT_ALLOWED" in text and "salary" not in text
    assert json.loads(out[4]["result"]["content"][0]["text"]) == [{"email": "c***@example.com"}]


def test_truncation_reaches_the_agent_through_an_mcp_server():
    """The MCP server drops notices, so for a user with truncation_is_error a cut result comes back
    as the tool's error naming RESULT_TRUNCATED and the cap, never as a shorter answer."""
    strict = itest.AGENT_URL.replace("agent:agent-secret", "strict:agent-secret")
    out = mcp(strict, [
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT id FROM orders ORDER BY id"}}),
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT id FROM orders ORDER BY id LIMIT 5"}}),
    ])
    first = out[1]
    text = json.dumps(first)
    assert "RESULT_TRUNCATED" in text and "max_rows=5" in text, first
    assert "error" in first or first["result"].get("isError"), first
    rows = json.loads(out[2]["result"]["content"][0]["text"])
    assert [int(r["id"]) for r in rows] == [1, 2, 3, 4, 5]  # bigint arrives as text
    # Without the option the same server returns the five rows and nothing tells the agent.
    out = mcp(itest.SMALL_URL, [
        ("tools/call", {"name": "query", "arguments": {"sql": "SELECT id FROM orders ORDER BY id"}}),
    ])
    assert len(json.loads(out[1]["result"]["content"][0]["text"])) == 5
