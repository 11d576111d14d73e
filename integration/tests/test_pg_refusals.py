"""Refused statements: native errors with a real SQLSTATE, the reason code
in the message, an actionable hint, and the database unchanged."""

import psycopg2
import pytest

import itest

pytestmark = pytest.mark.usefixtures("snapshot_guard")

WRITES = [
    "INSERT INTO orders (customer_id, amount) VALUES (1, 1)",
    "UPDATE orders SET amount = 0 WHERE id = 1",
    "DELETE FROM orders WHERE id = 1",
    "DROP TABLE orders",
    "CREATE TABLE evil (i int)",
    "TRUNCATE orders",
    "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
    "WITH u AS (UPDATE orders SET amount = 0 RETURNING id) SELECT count(*) FROM u",
    "SELECT * INTO evil FROM orders",
    "SELECT * FROM orders WHERE id = 1 FOR UPDATE",
    "SELECT * FROM orders WHERE id = 1 FOR SHARE",
    "CREATE TABLE evil AS SELECT * FROM orders",
    "ALTER TABLE orders ADD COLUMN x int",
    "GRANT SELECT ON staff_salaries TO PUBLIC",
    "COPY orders FROM '/etc/passwd'",
]

HIDDEN_TABLE = [
    "SELECT * FROM staff_salaries",
    "SELECT * FROM public.staff_salaries",
    "SELECT * FROM PUBLIC.STAFF_SALARIES",
    'SELECT * FROM "staff_salaries"',
    "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM staff_salaries)",
    "WITH s AS (SELECT * FROM staff_salaries) SELECT * FROM s",
    "SELECT (SELECT max(salary) FROM public.staff_salaries)",
    "SELECT o.id FROM orders o, LATERAL (SELECT salary FROM staff_salaries s"
    " WHERE s.id = o.id) x LIMIT 1",
    "SELECT id FROM orders UNION ALL SELECT id FROM staff_salaries",
    "SELECT * FROM orders o JOIN staff_salaries s ON s.id = o.id",
]

FORBIDDEN_FUNCTIONS = [
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT * FROM query_to_xml('select * from staff_salaries', true, true, '')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT pg_ls_dir('.')",
    "SELECT pg_advisory_lock(1)",
    "SELECT pg_notify('c', 'x')",
    "SELECT txid_current()",
    "SELECT pg_current_xact_id()",
    "SELECT pg_terminate_backend(1)",
    "SELECT nextval('orders_id_seq')",
    "SELECT set_config('default_transaction_read_only', 'off', false), 1",
    "SELECT id FROM orders WHERE set_config('statement_timeout', '1', false) IS NOT NULL",
]


def refused(conn, sql):
    with pytest.raises(psycopg2.Error) as info:
        with conn.cursor() as cur:
            cur.execute(sql)
    e = info.value
    secret = itest.backend_password()
    text = "%s %s" % (e.pgerror, e.diag.message_hint)
    assert secret not in text
    assert "airlock_ro" not in text
    return e


@pytest.mark.parametrize("sql", WRITES)
def test_write_refused(agent_ac, sql):
    e = refused(agent_ac, sql)
    assert e.pgcode == "25006", (e.pgcode, e.pgerror)
    assert "NOT_READ_ONLY" in e.pgerror


@pytest.mark.parametrize("sql", HIDDEN_TABLE)
def test_table_not_allowed(agent_ac, sql):
    e = refused(agent_ac, sql)
    assert e.pgcode == "42501", (e.pgcode, e.pgerror)
    assert "TABLE_NOT_ALLOWED" in e.pgerror
    assert "staff_salaries" in e.diag.message_primary
    hint = e.diag.message_hint or ""
    for allowed in ("orders", "customers", "products"):
        assert allowed in hint, hint


@pytest.mark.parametrize("sql", FORBIDDEN_FUNCTIONS)
def test_forbidden_function(agent_ac, sql):
    e = refused(agent_ac, sql)
    assert e.pgcode == "42501", (e.pgcode, e.pgerror)
    assert "FORBIDDEN_FUNCTION" in e.pgerror


@pytest.mark.parametrize("sql", ["SELECT 1; SELECT 2",
                                 "SELECT id FROM orders LIMIT 1; DELETE FROM orders"])
def test_multi_statement(agent_ac, sql):
    e = refused(agent_ac, sql)
    assert e.pgcode == "42601", (e.pgcode, e.pgerror)
    assert "MULTI_STATEMENT" in e.pgerror


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT FROM WHERE", "SELECT 'unterminated"])
def test_syntax_error(agent_ac, sql):
    e = refused(agent_ac, sql)
    assert e.pgcode == "42601", (e.pgcode, e.pgerror)


def test_session_stays_usable_after_refusals(agent_ac):
    for sql in (WRITES[0], HIDDEN_TABLE[0], FORBIDDEN_FUNCTIONS[0]):
        refused(agent_ac, sql)
        with agent_ac.cursor() as cur:
            cur.execute("SELECT count(*) FROM products")
            assert cur.fetchall() == [(200,)]


def test_read_write_transaction_is_taken_and_stays_read_only(agent_ac):
    """BEGIN READ WRITE and SET TRANSACTION READ WRITE are taken, as Postgres takes them under
    default_transaction_read_only (lib/pq's db.Begin() sends the first); reads inside run, a write
    is refused, and as the session's default READ WRITE is refused."""
    with agent_ac.cursor() as cur:
        for begin in (["BEGIN READ WRITE"], ["BEGIN", "SET TRANSACTION READ WRITE"],
                      ["START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE"]):
            for stmt in begin:
                cur.execute(stmt)
            cur.execute("SELECT count(*) FROM products")
            assert cur.fetchall() == [(200,)]
            cur.execute("COMMIT")
        cur.execute("BEGIN READ WRITE")
    e = refused(agent_ac, "UPDATE orders SET amount = 0 WHERE id = 1")
    assert e.pgcode == "25006" and "NOT_READ_ONLY" in e.pgerror
    with agent_ac.cursor() as cur:
        cur.execute("ROLLBACK")
    e = refused(agent_ac, "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")
    assert e.pgcode == "25006"


@pytest.mark.parametrize("sql", [
    "SET default_transaction_read_only = off",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    "SET transaction_read_only = off",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT set_config('transaction_read_only', 'off', true)",
    "SET ROLE postgres",
    "SET SESSION AUTHORIZATION postgres",
    "RESET ALL",
    "LOAD 'auto_explain'",
    "BEGIN READ WRITE",
    "START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE",
])
def test_cannot_leave_read_only(agent_ac, sql):
    """Whatever the session statement does, the next write is still refused
    and the statement still runs read-only."""
    def attempt(stmt):
        try:
            with agent_ac.cursor() as cur:
                cur.execute(stmt)
        except psycopg2.Error:
            pass

    attempt(sql)
    e = refused(agent_ac, "UPDATE orders SET amount = 0 WHERE id = 1")
    assert e.pgcode == "25006"
    attempt("ROLLBACK")
    with agent_ac.cursor() as cur:
        cur.execute("SELECT current_setting('transaction_read_only')")
        assert cur.fetchall() == [("on",)]
