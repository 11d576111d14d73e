"""backend_memory_mb over MySQL: the runner sets MariaDB's
max_session_mem_used (and the temporary-table, sort and join buffer sizes)
from it. agent_lowmem has 32 MB: a statement whose session needs more (a
long IN list costs MariaDB about 300 bytes an item) fails with 1290
MEMORY_LIMIT, and the session goes on."""

import pymysql
import pytest

import itest

INLIST = ",".join(["1"] * 200000)


@pytest.fixture
def my_lowmem():
    conn = itest.my_connect(user="agent_lowmem", autocommit=True)
    yield conn
    conn.close()


def test_direct_session_passes_the_budget(my_direct):
    """Without the bound the same statement's session takes more than 32 MB."""
    with my_direct.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders WHERE id IN (%s)" % INLIST)
        assert cur.fetchall() == ((1,),)
        cur.execute("SHOW SESSION STATUS LIKE 'Max_memory_used'")
        assert int(cur.fetchall()[0][1]) > 32 * 1024 * 1024


def test_statement_past_the_budget_fails(my_lowmem):
    with pytest.raises(pymysql.err.MySQLError) as info:
        with my_lowmem.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM orders WHERE id IN (%s)" % INLIST)
            cur.fetchall()
    errno, message = info.value.args[0], info.value.args[1]
    assert errno == 1290, info.value.args
    assert itest.airlock_code(message) == "MEMORY_LIMIT", message
    assert "backend_memory_mb" in message, message
    # The server's own text (which names its option) is not what the agent reads.
    assert "max-session-mem-used" not in message
    with my_lowmem.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders WHERE id IN (1, 2, 3)")
        assert cur.fetchall() == ((3,),)


def test_demo_user_statement_within_the_budget(my_agent):
    """The same statement fits the demo's 256 MB."""
    with my_agent.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM orders WHERE id IN (%s)" % INLIST)
        assert cur.fetchall() == ((1,),)
