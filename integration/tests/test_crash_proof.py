"""Statements written to take airlockd down, sent as an ordinary agent
would: relations the scoping rewrites under TABLESAMPLE, and chains of one
operator long enough to exhaust a recursive reader's stack (well under
max_message_bytes). Each gets a native error; airlockd keeps its pid and
every other session goes on answering. Beside them, a second airlockd
started on the suite's job_dir is refused before it touches anything, and
the first goes on serving."""

import os
import shutil
import time

import psycopg2
import pymysql
import pytest

import itest
from private_airlockd import PrivateAirlockd

SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")

TABLESAMPLE = [
    ("agent", "SELECT count(*) FROM pg_class TABLESAMPLE BERNOULLI (100)"),
    ("agent", "SELECT count(*) FROM information_schema.tables TABLESAMPLE SYSTEM (10)"),
    ("agent", "SELECT count(*) FROM pg_stats TABLESAMPLE SYSTEM (10) REPEATABLE (7)"),
    ("agent", "SELECT * FROM orders o JOIN pg_attribute a TABLESAMPLE SYSTEM (1) ON true LIMIT 1"),
    ("support", "SELECT count(*) FROM orders TABLESAMPLE SYSTEM (10)"),
    ("support", "SELECT count(*) FROM customers TABLESAMPLE BERNOULLI (50)"),
    ("support", "SELECT * FROM (SELECT * FROM public.orders TABLESAMPLE SYSTEM (5)) s LIMIT 1"),
]

# (head, item repeated, tail repeated): 80,000 terms or more, 160 kB to 800 kB.
CHAINS = [
    ("SELECT 1", "+1", "", 80000),
    ("SELECT 'a'", "||'a'", "", 80000),
    ("SELECT 1", "::int", "", 80000),
    ("SELECT true", " = true", "", 80000),
    ("SELECT 1", " COLLATE \"C\"", "", 40000),
    ("SELECT ", "NOT ", "true", 80000),
    ("SELECT ", "(", "1)", 80000),
    ("SELECT ", "ARRAY[", "1]", 20000),
    ("SELECT 1", " UNION SELECT 1", "", 20000),
    ("SELECT * FROM orders a", " JOIN orders b USING (id)", "", 20000),
]


def chain(head, item, tail, n):
    if tail.endswith(")") or tail.endswith("]"):
        return head + item * n + tail[:-1] + tail[-1] * n
    return head + item * n + tail


def pg_connect(url):
    conn = psycopg2.connect(url, connect_timeout=10)
    conn.autocommit = True
    return conn


def airlockd_pid():
    pid = os.environ.get("AIRLOCKD_PID")
    if not pid:
        pytest.skip("AIRLOCKD_PID is not set: run under integration/test.sh")
    return int(pid)


@pytest.fixture(scope="module")
def bystander():
    """A session of another user that must answer throughout."""
    conn = pg_connect(itest.AGENT_URL)
    yield conn
    conn.close()


def still_serving(pid, bystander):
    os.kill(pid, 0)
    with bystander.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders")
        assert cur.fetchone()[0] > 0


@pytest.mark.parametrize("user,sql", TABLESAMPLE)
def test_tablesample_over_a_scoped_relation_is_refused(user, sql, bystander):
    pid = airlockd_pid()
    conn = pg_connect(itest.AGENT_URL if user == "agent" else SUPPORT_URL)
    with conn.cursor() as cur:
        with pytest.raises(psycopg2.Error) as e:
            cur.execute(sql)
        assert e.value.pgcode == "0A000", e.value
        assert "TABLESAMPLE" in str(e.value)
        # The session goes on.
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    conn.close()
    still_serving(pid, bystander)


def test_tablesample_of_an_unscoped_table_runs(bystander):
    conn = pg_connect(itest.AGENT_URL)
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) >= 0 FROM products TABLESAMPLE SYSTEM (100)")
        assert cur.fetchone() == (True,)
    conn.close()


@pytest.mark.parametrize("head,item,tail,n", CHAINS, ids=[c[1].strip() or c[2] for c in CHAINS])
def test_deep_statement_is_refused_before_parsing(head, item, tail, n, bystander):
    pid = airlockd_pid()
    sql = chain(head, item, tail, n)
    assert len(sql) < 1048576
    conn = pg_connect(itest.AGENT_URL)
    with conn.cursor() as cur:
        with pytest.raises(psycopg2.Error) as e:
            cur.execute(sql)
        assert e.value.pgcode == "54001", e.value
        assert "TOO_COMPLEX" in str(e.value)
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    conn.close()
    still_serving(pid, bystander)


def test_deep_statement_over_the_extended_protocol(bystander):
    pid = airlockd_pid()
    conn = pg_connect(itest.AGENT_URL)
    with conn.cursor() as cur:
        with pytest.raises(psycopg2.Error) as e:
            cur.execute("SELECT %s::int" + "+1" * 80000, (1,))
        assert e.value.pgcode == "54001", e.value
    conn.close()
    still_serving(pid, bystander)


def test_wide_statement_still_runs():
    conn = pg_connect(itest.AGENT_URL)
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM orders WHERE id IN (%s)" % ", ".join(str(i) for i in range(50000)))
        assert cur.fetchone()[0] > 0
        cur.execute("SELECT count(*) FROM orders WHERE " + " OR ".join("id = %d" % i for i in range(3000)))
        assert cur.fetchone()[0] > 0
    conn.close()


MY_DEEP = [
    "SELECT 1" + "+1" * 80000,
    "SELECT " + "(" * 80000 + "1" + ")" * 80000,
    "SELECT " + "NOT " * 80000 + "1",
]


@pytest.mark.parametrize("sql", MY_DEEP, ids=["plus", "parens", "not"])
def test_mysql_deep_statement_gets_a_native_error(sql, bystander):
    pid = airlockd_pid()
    conn = itest.my_connect(user="support", password="support-secret")
    try:
        with conn.cursor() as cur:
            with pytest.raises(pymysql.MySQLError):
                cur.execute(sql)
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
    finally:
        conn.close()
    still_serving(pid, bystander)


def test_mysql_long_union_is_answered(bystander):
    """airlock's MySQL reader does not recurse per UNION: the backend answers it."""
    pid = airlockd_pid()
    conn = itest.my_connect(user="support", password="support-secret")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1" + " UNION SELECT 1" * 20000)
            assert cur.fetchall() == ((1,),)
    finally:
        conn.close()
    still_serving(pid, bystander)


def test_second_airlockd_on_the_same_job_dir_is_refused(bystander):
    pid = airlockd_pid()
    before = sorted(os.listdir(itest.JOB_DIR))
    other = PrivateAirlockd("samedir", {"job_dir": itest.JOB_DIR, "pool_min": 0})
    other.start(wait=False)
    try:
        assert itest.wait_until(lambda: not other.alive(), 30), "the second airlockd kept running"
        assert other.proc.returncode != 0
        log = other.log()
        assert "in use by airlockd pid %d" % pid in log, log[-2000:]
        assert "removed" not in log, log[-2000:]
    finally:
        if other.alive():
            other.kill()  # never stop(): that would clean the suite's own job_dir
    # Nothing of the first one's was swept: its entries are still there (runners come and go, the
    # OCI state and the lock stay), and it still serves reads that need a runner.
    after = os.listdir(itest.JOB_DIR)
    for name in (itest.OCI_STATE, itest.LOCK_FILE):
        assert (name in before) == (name in after), (before, after)
    time.sleep(0.5)
    still_serving(pid, bystander)


def test_removed_root_filesystem_is_unpacked_again():
    """Whatever removed the unpacked runner tree (an operator, a stray sweep), the next statement
    unpacks it again from the pinned archive, checked again, and runs."""
    d = PrivateAirlockd("rootfsgone", {"runtime": "oci", "pool_min": 0}, uid_base=1000650000)
    d.start()
    try:
        conn = pg_connect(d.url())
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM orders")
            assert cur.fetchone()[0] > 0
            state = os.path.join(d.job_dir, itest.OCI_STATE)
            trees = [n for n in os.listdir(state) if n.startswith("rootfs-")]
            assert len(trees) == 1, trees
            shutil.rmtree(os.path.join(state, trees[0]))
            cur.execute("SELECT count(*) FROM orders")
            assert cur.fetchone()[0] > 0
            again = [n for n in os.listdir(state) if n.startswith("rootfs-")]
            assert len(again) == 1 and again != trees, again
            cur.execute("SELECT 1")
        conn.close()
        assert "disappeared; unpacked" in d.log()
    finally:
        rc = d.stop()
    assert rc in (0, -15), d.log()[-3000:]
