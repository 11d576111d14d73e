"""max_cost over MySQL: agent_small's MySQL logins have max_cost = 1000000.
The runner asks MariaDB for the estimate of the exact statement (EXPLAIN,
then Last_query_cost: runner/runner_my_cost.h) and refuses a read above
it, before it is sent, with ERR 1104 (42000) COST_LIMIT; a cheap read
runs. A statement whose cost MariaDB does not give (a UNION, a subquery
in the select list, a WITH clause's derived table) is refused too. Over
COM_QUERY (PyMySQL, the mysql CLI) and COM_STMT_EXECUTE (mysql2's
execute, and Connector/C with a server-side cursor)."""

import os
import subprocess
import tempfile
import time

import pymysql
import pytest

import itest
from test_my_drivers import mysql2_run

# orders x orders: 4e10 rows, an estimate near 8e9; far past agent_small's 2 s if it ran.
EXPENSIVE = "SELECT COUNT(*) FROM orders a, orders b"
# customers x customers: 1e6 rows, an estimate near 2e5.
CHEAP_JOIN = "SELECT COUNT(*) FROM customers a, customers b"
# customers x customers x customers: an estimate near 2e8, and 1e9 rows.
OVER_JOIN = "SELECT COUNT(*) FROM customers a, customers b, customers c"
# An estimate near 2e6 for 1e7 rows: quick to run.
OVER_BUT_QUICK = "SELECT COUNT(*) FROM customers a, customers b, customers c WHERE c.id <= 10"


def refused(exc, unknown=False):
    errno, msg = exc.args[0], exc.args[1]
    assert errno == 1104, exc.args
    assert msg.startswith("COST_LIMIT: "), msg
    assert "max_cost=1000000" in msg, msg
    if unknown:
        assert "gives no cost estimate" in msg, msg
    else:
        assert "the estimated cost" in msg and "is above" in msg, msg


def query(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def test_expensive_read_refused_before_it_runs(my_small):
    t0 = time.monotonic()
    with pytest.raises(pymysql.err.MySQLError) as exc:
        query(my_small, EXPENSIVE)
    # Refused at once: run, it would have met agent_small's 2 s timeout (3024).
    assert time.monotonic() - t0 < 1.5
    refused(exc.value)
    with pytest.raises(pymysql.err.MySQLError) as exc:
        query(my_small, OVER_JOIN)
    refused(exc.value)
    # The session goes on; cheap reads run.
    assert query(my_small, "SELECT id FROM orders WHERE id = 42") == ((42,),)
    assert query(my_small, CHEAP_JOIN) == ((1000000,),)
    # Single-row lookups and reads of no table cost 0 and run.
    assert query(my_small, "SELECT a.id, b.id FROM orders a, orders b WHERE a.id = 1 AND b.id = 2") == ((1, 2),)
    assert query(my_small, "SELECT 1") == ((1,),)
    assert query(my_small, "VALUES (7)") == ((7,),)


def test_semi_join_costed_as_one_join(my_small):
    """IN and EXISTS become semi-joins: MariaDB's estimate covers them."""
    sql = ("SELECT COUNT(*) FROM shop.customers c WHERE c.id IN (SELECT customer_id FROM shop.orders WHERE id < 100)"
           " AND EXISTS (SELECT 1 FROM shop.orders o WHERE o.customer_id = c.id AND o.id < 500)")
    assert query(my_small, sql) == ((int(itest.my_super_query(sql)),),)
    with pytest.raises(pymysql.err.MySQLError) as exc:
        query(my_small, "SELECT COUNT(*) FROM customers WHERE id IN (SELECT a.customer_id FROM orders a, orders b)")
    refused(exc.value)


@pytest.mark.parametrize("sql", [
    "SELECT id FROM customers WHERE id = 1 UNION SELECT id FROM customers WHERE id = 2",
    "SELECT (SELECT COUNT(*) FROM customers a, customers b, customers c) FROM customers",
    "SELECT * FROM (SELECT COUNT(*) AS n FROM customers a, customers b, customers c) AS d",
    # MariaDB's Last_query_cost is 2.4 here: it leaves the WITH clause's selects out.
    "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 100000000) SELECT COUNT(*) FROM r",
    "WITH x AS (SELECT id, (SELECT COUNT(*) FROM customers a, customers b, customers c) AS m FROM customers)"
    " SELECT * FROM x",
])
def test_statement_without_an_estimate_refused(my_small, sql):
    with pytest.raises(pymysql.err.MySQLError) as exc:
        query(my_small, sql)
    refused(exc.value, unknown=True)
    assert query(my_small, "SELECT 2") == ((2,),)


def test_statements_explain_cannot_take_are_not_checked(my_small):
    # EXPLAIN itself only plans; SHOW and DESCRIBE read no rows worth a cost.
    assert query(my_small, "EXPLAIN " + EXPENSIVE)
    assert query(my_small, "SHOW TABLES")
    assert query(my_small, "DESCRIBE orders")
    assert query(my_small, "SELECT @@version_comment")


def test_other_users_have_no_cap(my_small, my_agent):
    with pytest.raises(pymysql.err.MySQLError) as exc:
        query(my_small, OVER_BUT_QUICK)
    refused(exc.value)
    assert query(my_agent, OVER_BUT_QUICK) == ((10000000,),)
    assert query(my_agent, "SELECT id FROM customers WHERE id = 1 UNION SELECT 2") == ((1,), (2,))


def test_mysql_cli_gets_the_native_error():
    r = itest.mysql_cli(EXPENSIVE, user="agent_small")
    assert r.returncode != 0
    assert "ERROR 1104 (42000)" in r.stderr and "COST_LIMIT" in r.stderr, r.stderr
    r = itest.mysql_cli(CHEAP_JOIN, user="agent_small")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "COUNT(*)\n1000000\n"


def test_prepared_statement_execute():
    """mysql2's execute(): COM_STMT_PREPARE, then COM_STMT_EXECUTE with the values bound."""
    got = mysql2_run([
        {"sql": "SELECT COUNT(*) AS n FROM orders a, orders b WHERE a.id > ?", "values": [0], "execute": True},
        {"sql": "SELECT COUNT(*) AS n FROM customers a, customers b WHERE a.id > ?", "values": [0],
         "execute": True},
        {"sql": "SELECT id FROM orders WHERE id = ?", "values": [42], "execute": True},
        {"sql": "SELECT COUNT(*) AS n FROM orders a, orders b WHERE a.id > ?", "values": [0]},
    ], user=("agent_small", itest.AGENT_PASSWORD))
    for i in (0, 3):
        assert got[i]["error"]["errno"] == 1104, got[i]
        assert got[i]["error"]["message"].startswith("COST_LIMIT: the estimated cost"), got[i]
    assert got[1]["rows"] == [[1000000]], got[1]
    assert got[2]["rows"] == [[42]], got[2]


@pytest.fixture(scope="module")
def cursor_bin():
    src = os.path.join(itest.REPO, "integration", "clients", "my_cursor_check.c")
    out = os.path.join(tempfile.mkdtemp(prefix="airlock-mycost-"), "my_cursor_check")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libmariadb"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["cc", "-O1", "-Wall", "-o", out, src, *flags], check=True, timeout=120)
    return out


def cursor_run(exe, sql, param):
    args = [exe, "127.0.0.1", str(itest.MY_PORT), "agent_small", itest.AGENT_PASSWORD, "shop", "2", sql, str(param)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, env=itest.clean_env())
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_prepared_statement_with_a_cursor(cursor_bin):
    got = cursor_run(cursor_bin, "SELECT COUNT(*) FROM orders a, orders b WHERE a.id > ?", 0)
    assert got[0].startswith("error 1104 42000 COST_LIMIT: the estimated cost"), got
    assert got[-1] == "after 42"
    got = cursor_run(cursor_bin, "SELECT id FROM orders WHERE id <= ? ORDER BY id", 3)
    assert got == ["1", "2", "3", "rows 3", "after 42"], got
