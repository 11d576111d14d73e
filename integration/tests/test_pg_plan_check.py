"""The plan check (plan_check = on, user planned): the runner EXPLAINs each
read in its read-only transaction and refuses it when the plan scans a
relation outside the user's tables, which the statement itself never
names: a view over a hidden table, an inlined SQL function. The objects
live in a schema of their own, made and dropped around this module."""

import psycopg2
import pytest

import itest

PLANNED_URL = itest.AGENT_URL.replace("agent:agent-secret", "planned:agent-secret")


@pytest.fixture(scope="module", autouse=True)
def plan_objects():
    itest.super_query("""
        DROP SCHEMA IF EXISTS plan_test CASCADE;
        CREATE SCHEMA plan_test;
        GRANT USAGE ON SCHEMA plan_test TO airlock_ro;
        CREATE VIEW plan_test.big_orders AS SELECT id, amount FROM public.orders WHERE amount > 900;
        CREATE VIEW plan_test.staff_directory AS SELECT id, name, salary FROM public.staff_salaries;
        CREATE FUNCTION plan_test.staff() RETURNS SETOF public.staff_salaries LANGUAGE sql STABLE
            AS 'SELECT * FROM public.staff_salaries';
        CREATE FUNCTION plan_test.orders_of(c integer) RETURNS SETOF public.orders LANGUAGE sql STABLE
            AS 'SELECT * FROM public.orders WHERE customer_id = c';
        GRANT SELECT ON ALL TABLES IN SCHEMA plan_test TO airlock_ro;
    """)
    yield
    itest.super_query("DROP SCHEMA plan_test CASCADE")


def outcome(url, sql):
    conn = itest.connect(url, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", cur.fetchall())
    except psycopg2.Error as e:
        return ("error", e.pgcode, e.pgerror)
    finally:
        conn.close()


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM plan_test.big_orders",
    "SELECT count(*) FROM plan_test.orders_of(7)",
    "SELECT o.id FROM orders o JOIN plan_test.big_orders b ON b.id = o.id LIMIT 3",
    "SELECT relname FROM pg_class WHERE relname = 'orders'",
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'plan_test' ORDER BY 1",
])
def test_plans_over_allowed_tables_run(sql):
    got = outcome(PLANNED_URL, sql)
    assert got[0] == "rows", got


@pytest.mark.parametrize("sql", [
    "SELECT * FROM plan_test.staff_directory",
    "SELECT count(*) FROM plan_test.staff_directory WHERE salary > 0",
    "SELECT max(salary) FROM plan_test.staff()",
    "SELECT o.id FROM orders o WHERE o.id IN (SELECT id FROM plan_test.staff_directory)",
    "WITH s AS (SELECT * FROM plan_test.staff()) SELECT count(*) FROM s",
])
def test_plans_over_hidden_tables_refused(sql):
    got = outcome(PLANNED_URL, sql)
    assert got[0] == "error" and got[1] == "42501", got
    assert "TABLE_NOT_ALLOWED" in got[2]
    assert "staff_salaries" not in got[2]


def test_cursor_plan_checked():
    conn = itest.connect(PLANNED_URL)
    try:
        with conn.cursor() as cur:
            cur.execute("DECLARE c CURSOR FOR SELECT * FROM plan_test.staff_directory")
            with pytest.raises(psycopg2.Error) as info:
                cur.execute("FETCH 1 FROM c")
            assert info.value.pgcode == "42501"
    finally:
        conn.close()

