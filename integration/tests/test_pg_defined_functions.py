"""Functions the database defines. Their bodies run with the backend
role's grants, past the user's tables, row filters and masks, and airlock
does not read them: a call is refused unless the user's `functions`
lists it, an unlisted one is missing from the catalogs, and an
unqualified call is sent qualified, so the search_path cannot turn a
built-in name into the database's overload.

The attacker is `support` (orders of customers 1-100 only, no products);
`planned` lists public.probe_total and reads it. The objects are made
and dropped around this module."""

from urllib.parse import urlparse

import psycopg2
import pytest

import itest
import pgwire

SUPPORT_URL = itest.AGENT_URL.replace("agent:agent-secret", "support:support-secret")
PLANNED_URL = itest.AGENT_URL.replace("agent:agent-secret", "planned:agent-secret")

outcome = itest.pg_outcome
HOST, PORT = urlparse(itest.AGENT_URL).hostname, urlparse(itest.AGENT_URL).port


@pytest.fixture(scope="module", autouse=True)
def defined_functions():
    itest.super_query("""
        DROP FUNCTION IF EXISTS public.probe_total(integer), public.probe_products(),
            public.probe_total_gone(integer), public.upper(integer), public.lower(text);
        CREATE FUNCTION public.probe_total(c integer) RETURNS numeric LANGUAGE plpgsql STABLE AS
            $$BEGIN RETURN (SELECT sum(amount) FROM public.orders WHERE customer_id = c); END$$;
        CREATE FUNCTION public.probe_products() RETURNS bigint LANGUAGE plpgsql STABLE AS
            $$BEGIN RETURN (SELECT count(*) FROM public.products); END$$;
        CREATE FUNCTION public.upper(integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'hijacked'$$;
        CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'hijacked'$$;
        DROP SCHEMA IF EXISTS fn_shadow CASCADE;
        CREATE SCHEMA fn_shadow;
        CREATE FUNCTION fn_shadow.probe_total(c integer) RETURNS numeric LANGUAGE sql AS $$SELECT -1$$;
        GRANT USAGE ON SCHEMA fn_shadow TO airlock_ro;
    """)
    yield
    itest.super_query("DROP FUNCTION public.probe_total(integer), public.probe_products(),"
                      " public.upper(integer), public.lower(text); DROP SCHEMA fn_shadow CASCADE")


@pytest.fixture
def support():
    yield from itest.connected(SUPPORT_URL)


@pytest.fixture
def planned():
    yield from itest.connected(PLANNED_URL)


# Each would hand support a hidden customer's orders, or a table outside its world, if it ran.
CALLS = [
    "SELECT probe_total(150)",
    "SELECT public.probe_total(150)",
    "SELECT t FROM probe_total(150) AS t",
    "SELECT id FROM orders WHERE probe_total(150) > 0 LIMIT 1",
    "SELECT (SELECT probe_total(c) FROM (VALUES (150)) v(c))",
    "SELECT probe_products()",
    "SELECT \"probe_total\"(150)",
]


@pytest.mark.parametrize("sql", CALLS)
def test_unlisted_function_is_refused(support, sql):
    got = outcome(support, sql)
    assert got[0] == "error" and got[1] == "42501", got
    assert "FORBIDDEN_FUNCTION" in got[2] and "not a built-in function" in got[2], got


def test_unlisted_function_refused_over_extended_protocol():
    c = pgwire.Conn(HOST, PORT)
    try:
        assert c.login("support", "support-secret", "shop") is None
        got = c.extended("SELECT probe_total($1)", b"150")
    finally:
        c.close()
    errors = [pgwire.error_fields(body) for t, body in got if t == b"E"]
    assert errors and errors[0].get("C") == "42501", got
    assert not [body for t, body in got if t == b"D"], got


def test_hidden_rows_read_nothing_through_a_listed_function(planned):
    """planned lists probe_total: the operator accepts what it reads (planned has no filter)."""
    got = outcome(planned, "SELECT probe_total(150) IS NOT NULL, public.probe_total(150) = probe_total(150)")
    assert got == ("rows", [(True, True)]), got
    # A function it does not list is refused as for anyone.
    got = outcome(planned, "SELECT probe_products()")
    assert got[0] == "error" and got[1] == "42501", got


# Built-in names the database overloads: each reaches pg_catalog's function, never public's.
HIJACKS = [
    ("SELECT upper(7)", None),
    ("SELECT lower('ABC')", "abc"),
    ("SELECT lower(name) FROM customers WHERE id = 1", None),
]


@pytest.mark.parametrize("path", ["public", "public, pg_catalog"])
@pytest.mark.parametrize("sql,want", HIJACKS)
def test_builtin_name_is_not_the_databases_overload(support, path, sql, want):
    with support.cursor() as cur:
        cur.execute("SET search_path = " + path)
    got = outcome(support, sql)
    assert "hijacked" not in repr(got), got
    if want is not None:
        assert got == ("rows", [(want,)]), got


def test_listed_function_called_unqualified_is_the_listed_one(planned):
    """fn_shadow, first in the search_path, has its own probe_total; planned lists public's alone."""
    with planned.cursor() as cur:
        cur.execute("SET search_path = fn_shadow, public")
    got = outcome(planned, "SELECT probe_total(150) = public.probe_total(150), probe_total(150) > 0")
    assert got == ("rows", [(True, True)]), got


def oid_of(signature):
    return int(itest.super_query("SELECT '{}'::regprocedure::oid".format(signature)))


# An unlisted function answers as one that does not exist; {f} is its name, {o} its oid.
CATALOG_PROBES = [
    "SELECT proname, prosrc FROM pg_proc WHERE proname = '{f}'",
    "SELECT count(*) FROM pg_proc WHERE prosrc LIKE '%public.orders%'",
    "SELECT routine_name, routine_definition FROM information_schema.routines WHERE routine_name = '{f}'",
    "SELECT count(*) FROM information_schema.parameters WHERE specific_name LIKE '{f}%'",
    "SELECT count(*) FROM information_schema.routine_privileges WHERE routine_name = '{f}'",
    "SELECT to_regproc('public.{f}'), to_regprocedure('public.{f}(integer)')",
    "SELECT 'public.{f}'::regproc",
    "SELECT '{o}'::regproc::text, {o}::regprocedure::text",
    "SELECT pg_get_functiondef({o})",
    "SELECT pg_get_function_arguments({o}), pg_get_function_result({o})",
    "SELECT has_function_privilege({o}, 'execute')",
    "SELECT count(*) FROM pg_depend WHERE classid = 'pg_proc'::regclass AND objid = {o}",
    "SELECT obj_description({o}, 'pg_proc')",
    "SELECT pg_function_is_visible({o}), pg_stat_get_function_calls({o})",
    "SELECT p.oid FROM pg_proc p WHERE p.oid = {o}",
    "SELECT has_function_privilege('public.{f}(integer)', 'execute')",
]


@pytest.mark.parametrize("probe", CATALOG_PROBES)
def test_unlisted_function_is_missing_from_the_catalogs(support, probe):
    there = oid_of("public.probe_total(integer)")
    gone = there + 1000000
    hidden = outcome(support, probe.format(f="probe_total", o=there))
    missing = outcome(support, probe.format(f="probe_total_gone", o=gone))
    norm = repr(hidden).replace("probe_total", "F").replace(str(there), "O")
    assert norm == repr(missing).replace("probe_total_gone", "F").replace(str(gone), "O"), (hidden, missing)
    assert "customer_id" not in repr(hidden), hidden


def test_listed_function_is_in_the_catalogs(planned):
    got = outcome(planned, "SELECT proname, prosrc LIKE '%public.orders%' FROM pg_proc WHERE proname = 'probe_total'")
    assert got == ("rows", [("probe_total", True)]), got
    got = outcome(planned, "SELECT routine_name FROM information_schema.routines WHERE routine_name LIKE 'probe%'")
    assert got == ("rows", [("probe_total",)]), got
    got = outcome(planned, "SELECT 'public.probe_total'::regproc::text")
    assert got == ("rows", [("probe_total",)]), got


def test_backend_error_in_a_rewritten_statement_has_no_position(support):
    """The statement ran qualified: a position would point into text the agent never sent."""
    sql = "SELECT count(*), no_such_column FROM orders"
    conn = itest.connect(itest.direct_url(), autocommit=True)
    try:
        direct = outcome(conn, sql)
    finally:
        conn.close()
    assert outcome(support, sql) == direct, direct
    with support.cursor() as cur:
        with pytest.raises(psycopg2.Error) as info:
            cur.execute(sql)
    assert info.value.diag.statement_position is None
